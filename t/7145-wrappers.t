#!/bin/sh
# The users' SLURM wrappers, with stand-ins for sbatch and srun that
# print what they were given: dc-sbatch signs a config through dc-signd
# and puts the request in the job comment; a refused config submits
# nothing; dc-srun hands the client library to the tasks.
. "$(dirname "$0")/test-lib.sh"

PATH="$DC_BUILD_DIR/dist/slurm:$PATH"

test_expect_success 'setup: stand-ins for sbatch and srun, a key' '
	mkdir "$SHARED/bin" &&
	for c in sbatch srun; do
		printf "#!/bin/sh\nprintf \"%%s\\\\n\" \"\$0\" \"\$@\" >>\"\$WRAP_LOG\"\n" >"$SHARED/bin/$c" &&
		chmod 755 "$SHARED/bin/$c" || return 1
	done &&
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	chmod 755 "$SHARED"
'
PATH="$SHARED/bin:$PATH"

test_expect_success NOBODY 'dc-sbatch: a config signed through dc-signd, the request in the comment' '
	chmod 777 . &&
	printf "layers: [posix]\n" >c.yaml &&
	start_signd 100 &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp \
		WRAP_LOG="$PWD/log" DC_SIGN_SOCKET="$PWD/sock" \
		dc-sbatch --trace c.yaml --trace-dir traces -n 2 job.sh 2>err
	rc=$?
	kill $signd 2>/dev/null; wait
	test $rc = 0 &&
	printf "%s\n" "$SHARED/bin/sbatch" "--comment" \
		"datacrumbs=$PWD/traces/c.sig,$PWD/traces" -n 2 job.sh >expect &&
	test_cmp expect log &&
	dc-sign --verify -q -k "$SHARED/key" traces/c.sig &&
	test "$(stat -c %U traces/c.sig)" = nobody &&
	! test -e traces/c.sig.json
'

test_expect_success NOBODY 'dc-sbatch: a config the policy refuses submits nothing, exit 5' '
	chmod 777 . &&
	printf "layers: [posix]\n" >c.yaml &&
	start_signd 5 &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp \
		WRAP_LOG="$PWD/log" DC_SIGN_SOCKET="$PWD/sock" \
		dc-sbatch --trace c.yaml --trace-dir traces job.sh 2>err
	rc=$?
	kill $signd 2>/dev/null; wait
	test $rc = 5 &&
	! test -e log &&
	grep -q "policy allows at most 5" err &&
	grep -q "^dc-sbatch: the trace spec was not signed; nothing submitted$" err &&
	! test -e traces/c.sig
'

test_expect_success 'dc-sbatch: a signed spec as it is; bad paths refused' '
	echo spec >s.sig &&
	WRAP_LOG="$PWD/log" dc-sbatch --trace s.sig --trace-dir /t/d job.sh &&
	grep -qx "datacrumbs=$PWD/s.sig,/t/d" log &&
	test_must_fail_with 2 env WRAP_LOG="$PWD/log2" dc-sbatch --trace s.sig \
		--trace-dir "/t/a,b" job.sh 2>err &&
	grep -q "may not hold commas or spaces" err &&
	! test -e log2 &&
	test_must_fail_with 1 env WRAP_LOG="$PWD/log3" dc-sbatch --trace nope.sig job.sh 2>err &&
	grep -q "cannot read the spec" err && ! test -e log3
'

test_expect_success 'dc-srun: the tasks get the client library, srun does not' '
	WRAP_LOG="$PWD/log" LD_PRELOAD= dc-srun -n 2 ./app x &&
	printf "%s\n" "$SHARED/bin/srun" "--export=ALL,LD_PRELOAD=$DC_CLIENT_LIB" \
		-n 2 ./app x >expect &&
	test_cmp expect log
'

test_done

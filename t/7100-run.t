#!/bin/sh
# dc-run: the runner for job scripts.  The trace's place, the command's
# exit status, exact counts, and every way tracing can fail to start
# costing one warning line while the command still runs.
. "$(dirname "$0")/test-lib.sh"

host=$(hostname | cut -d. -f1 | sed "s/[^A-Za-z0-9_-]/_/g")
# No scheduler of the machine running the tests leaks in.
unset SLURM_JOB_ID FLUX_JOB_ID PBS_JOBID LSB_JOBID

test_expect_success 'setup: a key and the signed default probes' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	dc-gen --default >"$SHARED/probes.json" &&
	dc-sign -k "$SHARED/key" -o "$SHARED/probes.sig" "$SHARED/probes.json"
'

test_expect_success '--help, --version and usage errors' '
	dc-run --help >out &&
	grep -q "^Usage: dc-run" out &&
	dc-run --version >out &&
	grep -q "^dc-run (datacrumbs)" out &&
	test_must_fail_with 2 dc-run 2>err &&
	grep -q "no spec given" err &&
	test_must_fail_with 2 dc-run x.sig dir 2>err &&
	grep -q "no command given" err &&
	test_must_fail_with 2 dc-run --job-id "../x" x.sig dir true 2>err &&
	grep -q "invalid job id" err &&
	test_must_fail_with 2 dc-run --timeout 0 x.sig dir true
'

test_expect_success BPF,PYTHON3 'traced: DIR/JOBID/HOST.pfw.gz, exact writes, the command'"'"'s status' '
	SLURM_JOB_ID=4242 dc-run -k "$SHARED/key" "$SHARED/probes.sig" traces \
		sh -c "workload writes 7 \"$PWD/F\"; exit 3" >out 2>err
	test $? = 3 &&
	test -f "traces/4242/$host.pfw.gz" &&
	test -f "traces/4242/$host.pfw.gz.idx" &&
	echo "dc-run: trace traces/4242/$host.pfw.gz" >expect &&
	test_cmp expect err &&
	test "$(pfw-query count "traces/4242/$host.pfw.gz" --cat POSIX --name write --file "$PWD/F")" = 7 &&
	test "$(pfw-query count "traces/4242/$host.pfw.gz" --cat sys --name write --file "$PWD/F")" = 7 &&
	test "$(stat -c %s F)" = 7 &&
	dc-write --check "traces/4242/$host.pfw.gz" >/dev/null &&
	grep -q "events, 0 dropped" "traces/4242/$host.log"
'

test_expect_success BPF,PYTHON3 'the job is in the trace: PR job_id, scheduler, step, world size' '
	SLURM_JOB_ID=4243 SLURM_STEP_ID=0 SLURM_NTASKS=1 \
		dc-run -k "$SHARED/key" "$SHARED/probes.sig" traces \
		sh -c "workload writes 2 \"$PWD/F\"; sleep 1" 2>err &&
	t="traces/4243/$host.pfw.gz" &&
	test "$(pfw-query count "$t" --ph M --name PR --arg job_id=4243 --arg scheduler=slurm --arg job_step=0 --arg world_size=1)" -ge 1 &&
	# Every process of this test (other tests may register with the
	# client-mode collector at the same time) is in the job.
	n=$(pfw-query count "$t" --ph M --name PR --arg cwd="$PWD") &&
	test "$n" -ge 2 &&
	test "$n" = "$(pfw-query count "$t" --ph M --name PR --arg cwd="$PWD" --arg job_id=4243)"
'

test_expect_success BPF,PYTHON3 'a config is signed first; a second run of the job gets HOST-2' '
	dc-run -k "$SHARED/key" --job-id j1 "$DC_SRC_DIR/configs/default.yaml" traces \
		workload writes 3 "$PWD/F" 2>err &&
	dc-run -k "$SHARED/key" --job-id j1 "$DC_SRC_DIR/configs/default.yaml" traces \
		workload writes 4 "$PWD/G" 2>err2 &&
	test "$(pfw-query count "traces/j1/$host.pfw.gz" --cat POSIX --name write --file "$PWD/F")" = 3 &&
	test "$(pfw-query count "traces/j1/$host-2.pfw.gz" --cat POSIX --name write --file "$PWD/G")" = 4 &&
	test "$(pfw-query count "traces/j1/$host.pfw.gz" --name write --file "$PWD/G")" = 0 &&
	grep -q "trace traces/j1/$host-2.pfw.gz" err2
'

test_expect_success BPF,PYTHON3 'the job id comes from Flux, PBS or LSF too' '
	FLUX_JOB_ID=289 dc-run -k "$SHARED/key" "$SHARED/probes.sig" t true 2>err &&
	test -f "t/289/$host.pfw.gz" &&
	FLUX_JOB_ID=ƒD7j8aT dc-run -k "$SHARED/key" "$SHARED/probes.sig" t true 2>err &&
	test -f "t/7952400384/$host.pfw.gz" &&
	PBS_JOBID=12.server dc-run -k "$SHARED/key" "$SHARED/probes.sig" t true 2>err &&
	test -f "t/12.server/$host.pfw.gz" &&
	LSB_JOBID="5[3]" dc-run -k "$SHARED/key" "$SHARED/probes.sig" t true 2>err &&
	test -f "t/5_3_/$host.pfw.gz"
'

test_expect_success BPF 'a tampered spec: one warning, the command runs untraced' '
	sed "s/\"write\"/\"wrote\"/" "$SHARED/probes.sig" >tampered.sig &&
	dc-run -k "$SHARED/key" --job-id bad tampered.sig traces \
		sh -c "echo ran >ran; exit 4" >out 2>err
	test $? = 4 &&
	test_one_line err &&
	grep -q "^dc-run: warning: tracing not started: .*sign.*; running sh untraced$" err &&
	test "$(cat ran)" = ran &&
	test ! -e "traces/bad/$host.pfw.gz" &&
	test ! -e "traces/bad/$host.pfw.gz.idx"
'

test_expect_success 'no collector to be found: one warning, the command runs' '
	mkdir bin &&
	for t in dc-run dc-wrap dc-aggregate dc-write; do
		ln -s "$(command -v $t)" bin/$t || return 1
	done &&
	PATH="$PWD/bin:/usr/bin:/bin" dc-run -k "$SHARED/key" --job-id nc \
		"$SHARED/probes.sig" traces sh -c "exit 0" 2>err &&
	test_one_line err &&
	grep -q "tracing not started: cannot run dc-collect: No such file or directory; running sh untraced" err
'

test_expect_success ROOT 'a collector that cannot load: one warning, the command runs' '
	mkdir bin &&
	printf "#!/bin/sh\necho \"dc-collect: cannot load BPF programs: Operation not permitted\" >&2\nexit 1\n" >bin/dc-collect &&
	chmod +x bin/dc-collect &&
	PATH="$PWD/bin:$PATH" dc-run -k "$SHARED/key" --job-id nb \
		"$SHARED/probes.sig" traces sh -c "exit 6" 2>err
	test $? = 6 &&
	test_one_line err &&
	grep -q "tracing not started: dc-collect: cannot load BPF programs: Operation not permitted; running sh untraced" err &&
	test ! -e "traces/nb/$host.pfw.gz"
'

test_expect_success BPF 'a command that does not exist: 127, as a shell says' '
	test_must_fail_with 127 dc-run -k "$SHARED/key" --job-id nf \
		"$SHARED/probes.sig" traces ./no-such-command 2>err &&
	grep -q "no-such-command: command not found" err
'

test_expect_success BPF,PYTHON3 'SIGTERM reaches the command; the trace is still complete' '
	dc-run -k "$SHARED/key" --job-id sig "$SHARED/probes.sig" traces \
		workload spin 60 "$PWD/lines" 2>err &
	pid=$! &&
	wait_for_file lines &&
	kill -TERM $pid &&
	wait $pid
	test $? = 143 &&
	dc-write --check "traces/sig/$host.pfw.gz" >/dev/null &&
	test "$(pfw-query count "traces/sig/$host.pfw.gz" --cat POSIX --name write --file "$PWD/lines")" = "$(wc -l <lines)"
'

# Not root: the collector is the site service's.  The test plays the
# service: a collector in client mode with its state where dc-run looks.

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/ "$@"
}

test_expect_success NOBODY 'not root, no service for the job: one warning, untraced' '
	mkdir -m 777 work &&
	as_nobody dc-run --job-id 55 --service-dir "$PWD/svc" "$SHARED/probes.sig" \
		"$PWD/work" sh -c "exit 2" 2>err
	test $? = 2 &&
	test_one_line err &&
	grep -q "tracing not started: no datacrumbs service traces job 55 ($PWD/svc/55/ready: No such file or directory); running sh untraced" err
'

test_expect_success BPF,NOBODY,PYTHON3 'not root: the site service traces the command' '
	mkdir -m 777 work && mkdir -p svc/56 &&
	echo "$PWD/svc-trace.pfw.gz" >svc/56/trace &&
	{ dc-collect -k "$SHARED/key" --clients --ready-file svc/56/ready \
		"$SHARED/probes.sig" 2>collect.err |
		dc-aggregate | dc-write svc-trace.pfw.gz & } &&
	wait_for_file svc/56/ready &&
	as_nobody SLURM_JOB_ID=56 dc-run --service-dir "$PWD/svc" "$SHARED/probes.sig" \
		"$PWD/work" sh -c "workload writes 5 \"$PWD/work/F\"; sleep 1" 2>err
	rc=$?
	# The collector is stopped whatever happened above.
	cpid=$(cat svc/56/ready 2>/dev/null)
	test -n "$cpid" && kill -INT $cpid
	wait
	test $rc = 0 &&
	echo "dc-run: trace $PWD/svc-trace.pfw.gz (written by the site service)" >expect &&
	test_cmp expect err &&
	test "$(pfw-query count svc-trace.pfw.gz --cat POSIX --name write --file "$PWD/work/F")" = 5 &&
	test "$(pfw-query count svc-trace.pfw.gz --ph M --name PR --arg uid=65534 --arg job_id=56)" -ge 1
'

test_expect_success NOBODY 'not root: a config the policy refuses costs one warning, the command runs' '
	printf "layers: [posix]\n" >c.yaml && chmod 644 c.yaml &&
	start_signd 5 && chmod 777 . &&
	mkdir -m 777 work &&
	as_nobody DC_SIGN_SOCKET="$PWD/sock" dc-run --job-id 57 --service-dir "$PWD/svc" \
		"$PWD/c.yaml" "$PWD/work" sh -c "echo ran >\"$PWD/work/ran\"; exit 3" 2>err
	rc=$?
	kill $signd 2>/dev/null; wait $signd
	test $rc = 3 &&
	test_one_line err &&
	grep -q "^dc-run: warning: tracing not started: dc-sign: signing service refused: spec has [0-9]* probes, the policy allows at most 5; running sh untraced$" err &&
	test "$(cat work/ran)" = ran
'

test_expect_success BPF,NOBODY,PYTHON3 'not root: a config dc-signd signs, and the site service traces' '
	printf "layers: [posix]\n" >c.yaml && chmod 644 c.yaml &&
	start_signd 100 && chmod 777 . &&
	mkdir -m 777 work && mkdir -p svc/58 &&
	echo "$PWD/svc.pfw.gz" >svc/58/trace &&
	{ dc-collect -k "$SHARED/key" --clients --ready-file svc/58/ready \
		"$SHARED/probes.sig" 2>collect.err |
		dc-aggregate | dc-write svc.pfw.gz & } &&
	wait_for_file svc/58/ready &&
	as_nobody DC_SIGN_SOCKET="$PWD/sock" dc-run --job-id 58 --service-dir "$PWD/svc" \
		"$PWD/c.yaml" "$PWD/work" sh -c "workload writes 4 \"$PWD/work/F\"; sleep 1" 2>err
	rc=$?
	cpid=$(cat svc/58/ready 2>/dev/null)
	test -n "$cpid" && kill -INT $cpid
	kill $signd 2>/dev/null
	wait
	test $rc = 0 &&
	echo "dc-run: trace $PWD/svc.pfw.gz (written by the site service)" >expect &&
	test_cmp expect err &&
	grep -q "signed" signd.log &&
	test "$(pfw-query count svc.pfw.gz --cat POSIX --name write --file "$PWD/work/F")" = 4
'

test_done

#!/bin/sh
# The Flux prolog and epilog (dist/flux) with the environment and job
# data Flux gives them: FLUX_JOB_ID in F58, FLUX_JOB_USERID, and the
# jobspec through `flux job info ID jobspec`.  Flux is not packaged for
# Debian 12: a stand-in `flux` answers exactly those two queries
# (`flux job id --to=dec`, `flux job info ID jobspec`), as flux-core does.
. "$(dirname "$0")/test-lib.sh"

unset SLURM_JOB_ID FLUX_JOB_ID PBS_JOBID LSB_JOBID
S=$SHARED
host=$(hostname -s)
prolog="$DC_BUILD_DIR/dist/flux/prolog.sh"
epilog="$DC_BUILD_DIR/dist/flux/epilog.sh"

test_expect_success PYTHON3 'setup: key, spec, settings, a stand-in flux' '
	dc-sign --gen-key -k "$S/key" >/dev/null &&
	dc-gen --default >"$S/probes.json" &&
	dc-sign -k "$S/key" -o "$S/probes.sig" "$S/probes.json" &&
	chmod 755 "$S" && chmod 644 "$S/probes.sig" &&
	mkdir "$S/bin" &&
	cat >"$S/bin/flux" <<-\EOF &&
	#!/usr/bin/env python3
	# flux job id --to=dec ID | flux job info ID jobspec
	import os, sys
	A = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	def dec(s):
	    if s.isdigit():
	        return int(s)
	    s = s[1:] if s[0] in "f\u0192" else sys.exit("flux-job: invalid id " + s)
	    v = 0
	    for c in s:
	        v = v * 58 + A.index(c)
	    return v
	a = sys.argv[1:]
	if a[:3] == ["job", "id", "--to=dec"]:
	    print(dec(a[3]))
	elif a[:2] == ["job", "info"] and a[3:] == ["jobspec"]:
	    path = os.path.join(os.environ["FAKE_FLUX_JOBS"], str(dec(a[2])))
	    if not os.path.exists(path):
	        sys.exit("flux-job: job not found")
	    sys.stdout.write(open(path).read())
	else:
	    sys.exit("flux: stand-in does not know %s" % a)
	EOF
	chmod 755 "$S/bin/flux" &&
	mkdir "$S/jobs" &&
	cat >"$S/job.conf" <<-EOF
	RUNDIR=$S/run
	KEY=$S/key
	CLIENT_LIB=$DC_CLIENT_LIB
	TIMEOUT=30
	STOP_TIMEOUT=60
	PATH=$S/bin:$DC_BUILD_DIR/dist:$PATH
	EOF
'
export DC_JOB_CONF="$S/job.conf" FAKE_FLUX_JOBS="$S/jobs"

# jobspec ID [ATTRIBUTE-JSON]: the jobspec Flux keeps for job ID.
jobspec() {
	printf "{\"version\": 1, \"tasks\": [{\"command\": [\"app\"], \"slot\": \"task\", \"count\": {\"per_slot\": 1}}], \"attributes\": {\"system\": {\"duration\": 0%s}}}\n" \
		"${2:+, \"datacrumbs\": $2}" >"$S/jobs/$1"
}

test_expect_success BPF,NOBODY,PYTHON3 'prolog starts the service, a task is traced, epilog returns with the trace complete' '
	mkdir -m 777 traces work &&
	jobspec 7952400384 "\"$S/probes.sig,$PWD/traces\"" &&
	env FLUX_JOB_ID=ƒD7j8aT FLUX_JOB_USERID=65534 "$prolog" 2>prolog.err &&
	! test -s prolog.err &&
	test -s "$S/run/7952400384/ready" &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/ \
		FLUX_JOB_ID=ƒD7j8aT FLUX_TASK_RANK=0 FLUX_JOB_SIZE=1 \
		dc-run --service-dir "$S/run" "$S/probes.sig" "$PWD/traces" \
		sh -c "workload writes 8 \"$PWD/work/F\"; sleep 1" 2>run.err
	rc=$?
	env FLUX_JOB_ID=ƒD7j8aT FLUX_JOB_USERID=65534 "$epilog" 2>epilog.err &&
	test $rc = 0 &&
	! test -s epilog.err &&
	t="traces/7952400384/$host.pfw.gz" &&
	dc-write --check "$t" >/dev/null &&
	test "$(stat -c %U "$t")" = nobody &&
	test "$(pfw-query count "$t" --cat POSIX --name write --file "$PWD/work/F")" = 8 &&
	test "$(pfw-query count "$t" --ph M --name PR --arg job_id=7952400384 --arg scheduler=flux --arg rank=0 --arg world_size=1)" -ge 1 &&
	! test -e "$S/run/7952400384"
'

test_expect_success 'a job without the attribute: nothing started, exit 0' '
	jobspec 289 &&
	env FLUX_JOB_ID=289 FLUX_JOB_USERID=0 "$prolog" 2>err &&
	! test -s err &&
	! test -e "$S/run/289"
'

test_expect_success 'a malformed request: one line, nothing started, exit 0' '
	jobspec 290 "\"no-comma\"" &&
	env FLUX_JOB_ID=290 FLUX_JOB_USERID=0 "$prolog" 2>err &&
	test_one_line err &&
	grep -q "job 290: bad request .no-comma." err &&
	! test -e "$S/run/290"
'

test_expect_success BPF 'a refused spec: one line, exit 0, the epilog still succeeds' '
	sed "s/\"write\"/\"wrote\"/" "$S/probes.sig" >bad.sig && chmod 644 bad.sig &&
	mkdir -m 777 traces &&
	jobspec 291 "\"$PWD/bad.sig,$PWD/traces\"" &&
	env FLUX_JOB_ID=291 FLUX_JOB_USERID=65534 "$prolog" 2>err;
	rc=$?
	env FLUX_JOB_ID=291 FLUX_JOB_USERID=65534 "$epilog" 2>/dev/null;
	test $rc = 0 &&
	grep -q "job 291: tracing did not start: dc-collect: .*sign" err &&
	! test -e "$S/run/291"
'

test_expect_success 'outside a job (no FLUX_JOB_ID) both scripts do nothing' '
	env -u FLUX_JOB_ID "$prolog" 2>err && ! test -s err &&
	env -u FLUX_JOB_ID "$epilog" 2>err && ! test -s err
'

test_done

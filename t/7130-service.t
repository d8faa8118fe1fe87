#!/bin/sh
# datacrumbs@.service and datacrumbs-job: the unit passes
# systemd-analyze verify; systemd is not PID 1 here, so the tests run the
# unit's own ExecStart / ExecStartPost / ExecStop lines, under the unit's
# capability bounding set: readiness, a stop that returns with the trace
# complete, the trace written as the job's user, selection by client
# registration and by cgroup v2, and a refused spec.
. "$(dirname "$0")/test-lib.sh"

unit="$DC_BUILD_DIR/dist/systemd/datacrumbs@.service"
job_cmd="$DC_BUILD_DIR/dist/datacrumbs-job"

test_lazy_prereq ANALYZE '
	command -v systemd-analyze >/dev/null || { echo "systemd-analyze not installed"; false; }
'
cgroup2_root() {
	awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts
}
test_lazy_prereq CGROUP2 '
	test -n "$(cgroup2_root)" || { echo "no cgroup v2 hierarchy"; false; }
'

# The unit's command line for KEY (ExecStart...) for job $1, pointing at
# the build tree's datacrumbs-job.
unit_cmd() {
	sed -n "s/^$1=//p" "$unit" | sed -e "s|%i|$2|g" \
		-e "s|^[^ ]*/datacrumbs-job |$job_cmd |"
}

# Run a command as the unit would: its capability bounding set, no new
# privileges, its memlock limit.
as_unit() {
	caps=$(sed -n "s/^CapabilityBoundingSet=//p" "$unit" |
		tr "A-Z " "a-z\n" | sed -n "s/^cap_/+/p" | tr "\n" "," | sed "s/,\$//")
	setpriv --bounding-set="-all,$caps" --no-new-privs "$@"
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/ "$@"
}

test_expect_success 'setup: key, spec, the service'"'"'s settings' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	dc-gen --default >"$SHARED/probes.json" &&
	dc-sign -k "$SHARED/key" -o "$SHARED/probes.sig" "$SHARED/probes.json" &&
	chmod 644 "$SHARED/probes.sig" &&
	cat >"$SHARED/job.conf" <<-EOF
	RUNDIR=$SHARED/run
	KEY=$SHARED/key
	CLIENT_LIB=$DC_CLIENT_LIB
	TIMEOUT=30
	STOP_TIMEOUT=60
	PATH=$PATH
	EOF
'
export DC_JOB_CONF="$SHARED/job.conf"

test_expect_success ANALYZE 'the unit passes systemd-analyze verify, without a word' '
	mkdir units &&
	sed "s|^\(Exec[A-Za-z]*=\)[^ ]*/datacrumbs-job |\1$job_cmd |" "$unit" >units/datacrumbs@.service &&
	# A template is verified as an instance of it.
	cp units/datacrumbs@.service units/datacrumbs@42.service &&
	systemd-analyze verify --man=no "$PWD/units/datacrumbs@42.service" >out 2>err &&
	! test -s err &&
	# The check can fail: a misspelt key is reported.
	sed "s/^KillMode=/KilMode=/" units/datacrumbs@42.service >units/bad@42.service &&
	systemd-analyze verify --man=no "$PWD/units/bad@42.service" 2>err;
	grep -q "Unknown key .KilMode." err
'

test_expect_success 'the unit runs the three commands, stops only the main process' '
	grep -q "^ExecStart=.*/datacrumbs-job start %i\$" "$unit" &&
	grep -q "^ExecStartPost=.*/datacrumbs-job wait-ready %i\$" "$unit" &&
	grep -q "^ExecStop=.*/datacrumbs-job stop %i\$" "$unit" &&
	grep -q "^KillMode=mixed\$" "$unit" &&
	grep -q "^CapabilityBoundingSet=.*CAP_BPF" "$unit"
'

test_expect_success BPF,NOBODY,PYTHON3 'start, ready, a user'"'"'s dc-run traced, stop returns with the trace complete' '
	mkdir -m 777 traces &&
	"$job_cmd" request 700 "$SHARED/probes.sig" "$PWD/traces" nobody &&
	{ as_unit $(unit_cmd ExecStart 700) 2>start.err & } &&
	start=$! &&
	as_unit $(unit_cmd ExecStartPost 700) &&
	test -s "$SHARED/run/700/ready" &&
	"$job_cmd" status 700 >status && grep -q "^job 700: tracing" status &&
	mkdir -m 777 work &&
	as_nobody SLURM_JOB_ID=700 dc-run --service-dir "$SHARED/run" \
		"$SHARED/probes.sig" "$PWD/traces" \
		sh -c "workload writes 9 \"$PWD/work/F\"; sleep 1" 2>run.err &&
	workload writes 4 "$PWD/G"
	rc=$?
	# Stopped whatever happened above.
	as_unit $(unit_cmd ExecStop 700) &&
	test $rc = 0 &&
	# stop returned: the trace is complete now, not later.
	t="traces/700/$(hostname -s).pfw.gz" &&
	dc-write --check "$t" >/dev/null &&
	test "$(pfw-query count "$t" --cat POSIX --name write --file "$PWD/work/F")" = 9 &&
	test "$(pfw-query count "$t" --name write --file "$PWD/G")" = 0 &&
	test "$(stat -c %U "$t")" = nobody &&
	test "$(stat -c %U "$t.idx")" = nobody &&
	grep -q "events, 0 dropped" "traces/700/$(hostname -s).log" &&
	grep -q "trace $PWD/$t (written by the site service)" run.err &&
	wait $start &&
	test ! -e "$SHARED/run/700"
'

test_expect_success BPF,CGROUP2,PYTHON3 'a job with a cgroup v2: traced by it, no client library needed' '
	cg="$(cgroup2_root)/dc-test-job-$$" &&
	mkdir "$cg" &&
	mkdir -m 777 traces &&
	"$job_cmd" request 701 "$SHARED/probes.sig" "$PWD/traces" root "$cg" &&
	{ as_unit $(unit_cmd ExecStart 701) 2>start.err & } &&
	start=$! &&
	as_unit $(unit_cmd ExecStartPost 701) &&
	sh -c "echo \$\$ >\"$cg/cgroup.procs\" && exec workload writes 5 \"$PWD/IN\"" &&
	workload writes 3 "$PWD/OUT" &&
	as_unit $(unit_cmd ExecStop 701);
	rc=$?
	wait $start
	rmdir "$cg" &&
	test $rc = 0 &&
	t="traces/701/$(hostname -s).pfw.gz" &&
	test "$(pfw-query count "$t" --cat POSIX --name write --file "$PWD/IN")" = 5 &&
	test "$(pfw-query count "$t" --name write --file "$PWD/OUT")" = 0
'

test_expect_success BPF 'a refused spec: wait-ready fails in one line naming the reason' '
	sed "s/\"write\"/\"wrote\"/" "$SHARED/probes.sig" >tampered.sig &&
	mkdir -m 777 traces &&
	"$job_cmd" request 702 "$PWD/tampered.sig" "$PWD/traces" nobody &&
	{ as_unit $(unit_cmd ExecStart 702) 2>start.err & } &&
	start=$! &&
	test_must_fail_with 1 as_unit $(unit_cmd ExecStartPost 702) 2>err &&
	test_one_line err &&
	grep -q "^datacrumbs-job: job 702: tracing did not start: dc-collect: .*sign" err &&
	! wait $start &&
	as_unit $(unit_cmd ExecStop 702) 2>stop.err;
	test ! -e "$SHARED/run/702"
'

test_expect_success 'stop with nothing started is quiet and succeeds' '
	"$job_cmd" stop 703 2>err &&
	! test -s err
'

test_expect_success 'bad job ids and requests are refused' '
	test_must_fail_with 2 "$job_cmd" start ../x 2>err &&
	grep -q "invalid job id" err &&
	test_must_fail_with 2 "$job_cmd" frob 1 2>err &&
	test_must_fail_with 1 "$job_cmd" start 704 2>err &&
	grep -q "job 704: no request" err &&
	"$job_cmd" request 705 relative.sig /tmp nobody &&
	test_must_fail_with 1 "$job_cmd" start 705 2>err &&
	grep -q "SPEC and DIR must be absolute paths" err &&
	"$job_cmd" request 706 /x.sig /tmp no-such-user-xyz &&
	test_must_fail_with 1 "$job_cmd" start 706 2>err &&
	grep -q "no user no-such-user-xyz" err
'

test_done

#!/bin/sh
# A real single-node SLURM: munge, slurmctld and slurmd from Debian's
# packages, started by this script with the datacrumbs prolog and epilog.
# A 2-task MPI job submitted with dc-sbatch (tracing requested in the job
# comment) and run with dc-srun is traced by the job's service; the trace
# has both ranks, their rank numbers, the job id and exact write counts.
# Every daemon started here is stopped by its pid at the end.
. "$(dirname "$0")/test-lib.sh"

test "$(id -u)" = 0 || test_skip_all "needs root (slurmd, BPF)"
for cmd in munged slurmctld slurmd sbatch mpicc; do
	command -v $cmd >/dev/null ||
		test_skip_all "$cmd not installed (slurm-wlm, munge, openmpi)"
done

S=$SHARED
host=$(hostname -s)
# Ports of our own, so a site's SLURM (or another run) is not disturbed.
port=$((20000 + ($$ % 5000) * 2))
export SLURM_CONF="$S/slurm.conf"
PATH="$DC_BUILD_DIR/dist/slurm:$DC_BUILD_DIR/dist:$PATH"
unset SLURM_JOB_ID FLUX_JOB_ID PBS_JOBID LSB_JOBID

# The daemons' pids live in variables: test_done removes the trash
# directory before the EXIT trap runs.
daemon_pids=
stop_daemons() {
	for pid in $daemon_pids; do
		kill "$pid" 2>/dev/null
		# Bounded: a daemon that ignores SIGTERM gets SIGKILL.
		n=0
		while kill -0 "$pid" 2>/dev/null && test $n -lt 100; do
			sleep 0.1
			n=$((n + 1))
		done
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
}
trap stop_daemons EXIT

test_expect_success 'setup: key, spec, the service'"'"'s settings, slurm.conf' '
	dc-sign --gen-key -k "$S/key" >/dev/null &&
	dc-gen --default >"$S/probes.json" &&
	dc-sign -k "$S/key" -o "$S/probes.sig" "$S/probes.json" &&
	chmod 755 "$S" && chmod 644 "$S/probes.sig" &&
	cat >"$S/job.conf" <<-EOF &&
	RUNDIR=$S/run
	KEY=$S/key
	CLIENT_LIB=$DC_CLIENT_LIB
	TIMEOUT=60
	STOP_TIMEOUT=120
	PATH=$PATH
	EOF
	for p in prolog epilog; do
		printf "#!/bin/sh\nexport DC_JOB_CONF=%s SLURM_CONF=%s\nexec 2>>%s\nenv >%s\nexec %s\n" \
			"$S/job.conf" "$S/slurm.conf" "$S/log/$p.log" "$S/log/$p.env" \
			"$DC_BUILD_DIR/dist/slurm/$p.sh" >"$S/$p" &&
		chmod 755 "$S/$p" || return 1
	done &&
	mkdir -p "$S/munge" "$S/state" "$S/spool" "$S/log" &&
	chmod 711 "$S/munge" &&
	dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null &&
	chmod 600 "$S/munge/munge.key" &&
	cat >"$S/slurm.conf" <<-EOF &&
	ClusterName=dctest
	SlurmctldHost=$host(127.0.0.1)
	SlurmUser=root
	SlurmdUser=root
	SlurmctldPort=$port
	SlurmdPort=$((port + 1))
	AuthType=auth/munge
	AuthInfo=socket=$S/munge/sock
	CredType=cred/munge
	StateSaveLocation=$S/state
	SlurmdSpoolDir=$S/spool
	SlurmctldPidFile=$S/slurmctld.pidfile
	SlurmdPidFile=$S/slurmd.pidfile
	SlurmctldLogFile=$S/log/slurmctld.log
	SlurmdLogFile=$S/log/slurmd.log
	ProctrackType=proctrack/linuxproc
	TaskPlugin=task/none
	SchedulerType=sched/builtin
	SelectType=select/cons_tres
	SelectTypeParameters=CR_Core
	MpiDefault=none
	ReturnToService=2
	JobCompType=jobcomp/none
	AccountingStorageType=accounting_storage/none
	JobAcctGatherType=jobacct_gather/none
	Prolog=$S/prolog
	Epilog=$S/epilog
	PrologFlags=Alloc
	NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
	PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
	EOF
	echo "CgroupPlugin=cgroup/v1" >"$S/cgroup.conf"
'

# munged, slurmctld, slurmd in the foreground of background jobs of this
# shell: their pids are $!, and stop_daemons ends exactly them.
munged -F -f --key-file="$S/munge/munge.key" --socket="$S/munge/sock" \
	--pid-file="$S/munge/pid" --log-file="$S/munge/log" \
	--seed-file="$S/munge/seed" >"$S/log/munged.out" 2>&1 &
daemon_pids=$!
wait_for_file "$S/munge/sock" 20 2>/dev/null
slurmctld -D -i -f "$S/slurm.conf" >"$S/log/slurmctld.out" 2>&1 &
daemon_pids="$! $daemon_pids"
slurmd -D -N "$host" -f "$S/slurm.conf" >"$S/log/slurmd.out" 2>&1 &
slurmd_pid=$!
daemon_pids="$slurmd_pid $daemon_pids"

test_lazy_prereq SLURMD '
	n=0
	while test $n -lt 300; do
		if sinfo -h -N -o "%T" 2>/dev/null | grep -q "^idle"; then
			exit 0
		fi
		kill -0 "$slurmd_pid" 2>/dev/null || break
		sleep 0.1
		n=$((n + 1))
	done
	echo "slurmd did not start: $(tail -n 1 "$S/log/slurmd.out" "$S/log/slurmd.log" 2>/dev/null | grep . | tail -n 1)"
	false
'
test_lazy_prereq MPI '
	mpicc -o "$S/mpi-writes" "$DC_SRC_DIR/t/helpers/mpi-writes.c" ||
	{ echo "cannot build an MPI program with mpicc"; false; }
'

# Wait (bounded) until job $1 has left the queue: its epilog has run.
wait_job_gone() {
	n=0
	while test -n "$(squeue -h -j "$1" 2>/dev/null)"; do
		test $n -ge 600 && { echo "job $1 still in the queue" >&2; return 1; }
		sleep 0.1
		n=$((n + 1))
	done
}

# A user, not root, submits: the job, its trace and its log are theirs.
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp "$@"
}

test_expect_success SLURMD,MPI,BPF,PYTHON3,NOBODY 'a user'"'"'s 2-task MPI job with tracing: both ranks, rank numbers, job id, exact writes' '
	chmod 777 . && mkdir -m 777 out traces &&
	cat >job.sh <<-EOF &&
	#!/bin/sh
	dc-srun -n 2 --mpi=pmix "$S/mpi-writes" "$PWD/out"
	EOF
	chmod 755 job.sh &&
	as_nobody dc-sbatch --trace "$S/probes.sig" --trace-dir "$PWD/traces" \
		--parsable --wait -n 2 -o "$PWD/job.out" job.sh >jobid &&
	job=$(cut -d";" -f1 jobid) &&
	wait_job_gone "$job" &&
	cat job.out &&
	test "$(stat -c %s out/rank-0)" = 300 &&
	test "$(stat -c %s out/rank-1)" = 600 &&
	t="traces/$job/$host.pfw.gz" &&
	dc-write --check "$t" >/dev/null &&
	test "$(pfw-query count "$t" --cat POSIX --name write --file "$PWD/out/rank-0")" = 3 &&
	test "$(pfw-query count "$t" --cat POSIX --name write --file "$PWD/out/rank-0" --size 100)" = 3 &&
	test "$(pfw-query count "$t" --cat sys --name write --file "$PWD/out/rank-0")" = 3 &&
	test "$(pfw-query count "$t" --cat POSIX --name write --file "$PWD/out/rank-1")" = 6 &&
	test "$(pfw-query count "$t" --cat sys --name write --file "$PWD/out/rank-1")" = 6 &&
	pfw-query list "$t" --ph M --name PR >pr &&
	python3 - "$t" "$job" <<-\PY
	import json, sys
	trace, job = sys.argv[1], sys.argv[2]
	prs = [json.loads(l)["args"] | {"pid": json.loads(l)["pid"]}
	       for l in open("pr")]
	ranks = {}
	for a in prs:
	    if a["name"].endswith("/mpi-writes"):
	        ranks.setdefault(a["rank"], set()).add(a["pid"])
	        assert a["job_id"] == job, a
	        assert a["scheduler"] == "slurm", a
	        assert a["world_size"] == 2, a
	        assert a["job_step"] == "0", a
	assert sorted(ranks) == [0, 1], ranks
	assert len(ranks[0] | ranks[1]) == 2, ranks
	# Each rank wrote its own file: the writes to rank-R come from rank R.
	import subprocess
	for r in (0, 1):
	    pids = set(int(p) for p in subprocess.check_output(
	        ["pfw-query", "pids", trace, "--cat", "POSIX", "--name", "write",
	         "--file", f"/rank-{r}"], text=True).split())
	    assert pids == ranks[r], (r, pids, ranks)
	PY
	# After the epilog: no service state left, the log is with the trace.
	! test -e "$S/run/$job" &&
	grep -q "events, 0 dropped" "traces/$job/$host.log" &&
	test "$(stat -c %U "$t")" = nobody &&
	test "$(stat -c %U "out/rank-0")" = nobody
'

test_expect_success SLURMD,MPI 'a job without the request is not traced and runs' '
	mkdir -m 777 out &&
	printf "#!/bin/sh\nsrun -n 2 --mpi=pmix %s %s\n" "$S/mpi-writes" "$PWD/out" >job.sh &&
	sbatch --parsable --wait -n 2 -o "$PWD/job.out" job.sh >jobid &&
	job=$(cut -d";" -f1 jobid) &&
	wait_job_gone "$job" &&
	test "$(stat -c %s out/rank-1)" = 600 &&
	! test -e "$S/run/$job"
'

test_expect_success SLURMD,MPI 'a request with a spec the collector refuses: the job still runs' '
	mkdir -m 777 out traces &&
	sed "s/\"write\"/\"wrote\"/" "$S/probes.sig" >bad.sig && chmod 644 bad.sig &&
	printf "#!/bin/sh\ndc-srun -n 2 --mpi=pmix %s %s\n" "$S/mpi-writes" "$PWD/out" >job.sh &&
	dc-sbatch --trace "$PWD/bad.sig" --trace-dir "$PWD/traces" \
		--parsable --wait -n 2 -o "$PWD/job.out" job.sh >jobid &&
	job=$(cut -d";" -f1 jobid) &&
	wait_job_gone "$job" &&
	test "$(stat -c %s out/rank-0)" = 300 &&
	test "$(stat -c %s out/rank-1)" = 600 &&
	! test -e "traces/$job/$host.pfw.gz"
'

test_done

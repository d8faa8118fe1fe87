#!/bin/sh
# Job identity in the trace: the scheduler's job, step, nodes, world size
# and the rank variables of MPI launchers, SLURM, Flux, torchrun and
# Horovod, read by dc-collect from each process's environment.
. "$(dirname "$0")/test-lib.sh"

unset SLURM_JOB_ID FLUX_JOB_ID PBS_JOBID LSB_JOBID

test_expect_success 'setup: a key and the signed default probes' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	dc-gen --default >"$SHARED/probes.json" &&
	dc-sign -k "$SHARED/key" -o "$SHARED/probes.sig" "$SHARED/probes.json"
'

# trace VAR=VALUE...: one traced workload with exactly that environment
# (nothing of the test's own job variables), into trace.pfw.gz.
trace() {
	env -i PATH="$PATH" DC_CLIENT_LIB="$DC_CLIENT_LIB" "$@" dc-collect -k "$SHARED/key" "$SHARED/probes.sig" -- \
		workload writes 1 2>collect.err |
	dc-aggregate | dc-write --force trace.pfw.gz
}

# The PR records of the workload as JSON objects, one a line.
pr_args() {
	pfw-query list trace.pfw.gz --ph M --name PR |
	python3 -c "
import json, sys
for line in sys.stdin:
    a = json.loads(line)[\"args\"]
    if a[\"name\"].endswith(\"/workload\"):
        print(json.dumps(a, sort_keys=True))
" | tail -n 1
}

test_expect_success BPF,PYTHON3 'SLURM: job, step, node list, nodes, tasks, rank, local rank' '
	trace SLURM_JOB_ID=4242 SLURM_STEP_ID=3 SLURM_JOB_NODELIST="n[01-04]" \
		SLURM_JOB_NUM_NODES=4 SLURM_NTASKS=16 SLURM_PROCID=9 SLURM_LOCALID=1 &&
	pr_args >args &&
	python3 -c "
import json, sys
a = json.load(open(\"args\"))
want = {\"scheduler\": \"slurm\", \"job_id\": \"4242\", \"job_step\": \"3\",
        \"nodelist\": \"n[01-04]\", \"nnodes\": 4, \"world_size\": 16,
        \"rank\": 9, \"local_rank\": 1}
bad = {k: (a.get(k), v) for k, v in want.items() if a.get(k) != v}
sys.exit(str(bad) if bad else 0)
"
'

test_expect_success BPF,PYTHON3 'an MPI launcher'"'"'s rank wins over SLURM_PROCID' '
	trace SLURM_JOB_ID=1 SLURM_PROCID=9 OMPI_COMM_WORLD_RANK=5 \
		OMPI_COMM_WORLD_SIZE=6 OMPI_COMM_WORLD_LOCAL_RANK=2 SLURM_NTASKS=10 &&
	pr_args >args &&
	python3 -c "
import json, sys
a = json.load(open(\"args\"))
sys.exit(0 if (a[\"rank\"], a[\"world_size\"], a[\"local_rank\"]) == (5, 6, 2) else str(a))
"
'

test_expect_success BPF,PYTHON3 'Flux: job id, task rank, size, nodes, local id' '
	trace FLUX_JOB_ID=289 FLUX_TASK_RANK=2 FLUX_JOB_SIZE=4 FLUX_JOB_NNODES=2 \
		FLUX_TASK_LOCAL_ID=0 &&
	pr_args >args &&
	python3 -c "
import json, sys
a = json.load(open(\"args\"))
want = {\"scheduler\": \"flux\", \"job_id\": \"289\", \"rank\": 2,
        \"world_size\": 4, \"nnodes\": 2, \"local_rank\": 0}
bad = {k: (a.get(k), v) for k, v in want.items() if a.get(k) != v}
sys.exit(str(bad) if bad else 0)
"
'

test_expect_success BPF,PYTHON3 'Flux F58 job ids are written in decimal, as flux job id --to=dec' '
	trace FLUX_JOB_ID=ƒTKuuBXJyV &&
	pr_args >args &&
	grep -q "\"job_id\": \"3371397661327360\"" args &&
	trace FLUX_JOB_ID=fD7j8aT &&
	pr_args >args &&
	grep -q "\"job_id\": \"7952400384\"" args
'

test_expect_success BPF,PYTHON3 'PBS and LSF job ids stay strings' '
	trace PBS_JOBID=0012.server PBS_NUM_NODES=3 &&
	pr_args >args &&
	grep -q "\"job_id\": \"0012.server\"" args &&
	grep -q "\"nnodes\": 3" args &&
	grep -q "\"scheduler\": \"pbs\"" args &&
	trace LSB_JOBID=77 LSB_HOSTS="a b" &&
	pr_args >args &&
	grep -q "\"job_id\": \"77\"" args &&
	grep -q "\"nodelist\": \"a b\"" args &&
	grep -q "\"scheduler\": \"lsf\"" args
'

test_expect_success BPF,PYTHON3 'torchrun: RANK, LOCAL_RANK, WORLD_SIZE without a scheduler' '
	trace RANK=3 LOCAL_RANK=1 WORLD_SIZE=8 &&
	pr_args >args &&
	python3 -c "
import json, sys
a = json.load(open(\"args\"))
ok = (a[\"rank\"], a[\"local_rank\"], a[\"world_size\"]) == (3, 1, 8) and \"scheduler\" not in a and \"job_id\" not in a
sys.exit(0 if ok else str(a))
" &&
	pfw-query list trace.pfw.gz --ph M --name process_name >names &&
	grep -q "Rank 3 (workload)" names
'

test_expect_success BPF,PYTHON3 'Horovod'"'"'s variables' '
	trace HOROVOD_RANK=1 HOROVOD_LOCAL_RANK=0 HOROVOD_SIZE=2 &&
	pr_args >args &&
	grep -q "\"rank\": 1," args &&
	grep -q "\"world_size\": 2" args &&
	grep -q "\"local_rank\": 0" args
'

test_expect_success BPF,PYTHON3 'outside a job: rank -1 and no job fields' '
	trace &&
	pr_args >args &&
	grep -q "\"rank\": -1," args &&
	! grep -q "job_id\|world_size\|scheduler" args
'

test_expect_success BPF 'dc-aggregate --text shows the job string' '
	env -i PATH="$PATH" DC_CLIENT_LIB="$DC_CLIENT_LIB" SLURM_JOB_ID=9 dc-collect -k "$SHARED/key" "$SHARED/probes.sig" -- \
		workload writes 1 2>collect.err | dc-aggregate --text >text &&
	grep "^process .*exe=$(command -v workload)" text | grep -q "job=\"\\?scheduler=slurm.*job_id=9"
'

test_done

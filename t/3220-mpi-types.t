#!/bin/sh
# MPI-IO bytes = count x the datatype's size on every blocking read and
# write call (issue 9, item 5), under both MPI libraries Debian ships,
# whose datatype handles differ: OpenMPI's points at the type (the
# collector reads its size there), MPICH's is a 32-bit code that holds a
# predefined type's size (a derived type's handle does not: its count
# and handle are recorded instead).  What moved comes from the
# MPI_Status, each library's layout; every call on the handle names the
# file.  The workload is t/helpers/mpi-types.c: 2 ranks, 1108 bytes each.
. "$(dirname "$0")/test-lib.sh"

q() {
	pfw-query "$@"
}

# run_mpi DIR CC LAUNCH...: build the workload with CC, trace LAUNCH
# (which runs ./mpi-types) with the posix and mpiio layers, the latter
# aimed at the library the workload links (the first libmpi* in ldd).
run_mpi() {
	_dir=$1 _cc=$2
	shift 2
	mkdir "$_dir" && cd "$_dir" &&
	$_cc -o mpi-types "$DC_SRC_DIR/t/helpers/mpi-types.c" &&
	_lib=$(ldd ./mpi-types | awk '$1 ~ /^libmpi/ { print $3; exit }') &&
	test -n "$_lib" &&
	printf "layers:\n  - posix\n  - name: mpiio\n    target: %s\n" "$_lib" >c.yaml &&
	dc-gen c.yaml >probes.json 2>gen.err &&
	dc-sign -k "$SHARED/key" -o probes.sig probes.json &&
	{ dc-collect -k "$SHARED/key" probes.sig -- "$@" 2>collect.err
	  echo $? >collect.rc; } | dc-aggregate | dc-write t.pfw.gz &&
	cat collect.err >&2 &&
	test "$(cat collect.rc)" = 0 &&
	test "$(wc -c <mpi-types.out)" = 2216
}

# check_calls TRACE FILE: each blocking call, on each of the 2 ranks,
# with count, type size, bytes asked (size) and moved (bytes) exact, and
# every MPI_File call naming the file: open, set_view, seek, sync and
# close too (2 ranks x 17 calls, and 1 more on the last rank).
check_calls() {
	q list "$1" --cat MPI >all &&
	q list "$1" --cat MPI --file "$2" >named &&
	python3 - <<-\EOF
	import collections, json
	want = collections.Counter()
	for c in ("write", "read"):
	    want["MPI_File_" + c, None, 300, 1, 300, 300] = 2
	    want["MPI_File_%s_at" % c, 300, 100, 2, 200, 200] = 2
	    want["MPI_File_%s_all" % c, None, 50, 4, 200, 200] = 2
	    want["MPI_File_%s_at_all" % c, 700, 25, 8, 200, 200] = 2
	want["MPI_File_write_at", 900, 10, 16, 160, 160] = 2
	want["MPI_File_read_at", 1100, 64, 1, 64, 8] = 1
	got = collections.Counter()
	calls = 0
	for line in open("named"):
	    e = json.loads(line)
	    calls += e["name"].startswith("MPI_File_")
	    a = e["args"]
	    if "tsize" in a:
	        got[e["name"], a.get("offset"), a["count"], a["tsize"],
	            a["size"], a["bytes"]] += 1
	for k in want:
	    assert got[k] == want[k], (k, got[k], want[k])
	every = sum(json.loads(l)["name"].startswith("MPI_File_") for l in open("all"))
	assert calls == every == 35, (calls, every)
	EOF
}

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success BPF,PYTHON3,OPENMPI 'OpenMPI: every read and write call, count x type size' '
	(run_mpi "$TRASH_DIRECTORY/ompi" mpicc.openmpi \
		mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 ./mpi-types) &&
	check_calls "$TRASH_DIRECTORY/ompi/t.pfw.gz" "$TRASH_DIRECTORY/ompi/mpi-types.out"
'

test_expect_success BPF,PYTHON3,OPENMPI 'OpenMPI: a derived type, its size read from the type' '
	test "$(q count "$TRASH_DIRECTORY/ompi/t.pfw.gz" --cat MPI \
		--name MPI_File_write_at --file "$TRASH_DIRECTORY/ompi/mpi-types.out" \
		--arg offset=1060 --arg count=4 --arg tsize=12 --arg size=48 --arg bytes=48)" = 2
'

test_expect_success BPF,PYTHON3,MPICH 'MPICH: every read and write call, count x type size' '
	(run_mpi "$TRASH_DIRECTORY/mpich" mpicc.mpich \
		mpiexec.mpich -n 2 ./mpi-types) &&
	check_calls "$TRASH_DIRECTORY/mpich/t.pfw.gz" "$TRASH_DIRECTORY/mpich/mpi-types.out"
'

# MPICH's derived handles index its object pool (kind 2 "direct", object
# 3 "datatype": 0x8c000000 | index); their size is not in the handle.
test_expect_success BPF,PYTHON3,MPICH 'MPICH: a derived type, its count and handle without a size' '
	q list "$TRASH_DIRECTORY/mpich/t.pfw.gz" --cat MPI --name MPI_File_write_at \
		--file "$TRASH_DIRECTORY/mpich/mpi-types.out" --arg offset=1060 >derived &&
	test "$(wc -l <derived)" = 2 &&
	python3 -c "
import json, sys
for line in open(\"derived\"):
    a = json.loads(line)[\"args\"]
    assert a[\"count\"] == 4, a
    assert a[\"datatype\"] >> 26 == 0x23, hex(a[\"datatype\"])
    assert not {\"tsize\", \"size\", \"bytes\"} & a.keys(), a
"
'

test_done

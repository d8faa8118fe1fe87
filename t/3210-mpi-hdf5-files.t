#!/bin/sh
# MPI-IO and HDF5 bytes and files against ground truth (issue 9, items 5
# and 6), with real OpenMPI and Debian's HDF5: MPI_File_open's handle,
# read through its pointer, names every later call on it, close
# included; bytes are count x the datatype's size, what moved from the
# MPI_Status; the split collectives, nonblocking and shared-pointer
# calls on both paths; HDF5 dataset, group and attribute ids name their file,
# with HDF5 shared (h5cc -shlib) and linked into the executable (h5cc's
# default), the latter through the hdf5 layer aimed at the executable.
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq MPICC '
	command -v mpicc >/dev/null && command -v mpirun >/dev/null ||
	{ echo "mpicc and mpirun (libopenmpi-dev, openmpi-bin) not installed"; false; }
'

q() {
	pfw-query "$@"
}

M="$TRASH_DIRECTORY/m"

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success BPF,PYTHON3,MPICC 'setup: two MPI ranks write and read one file' '
	mkdir "$M" &&
	mpicc -o "$M/mpi-bytes" "$DC_SRC_DIR/t/helpers/mpi-bytes.c" &&
	printf "layers: [posix, mpiio]\n" >"$M/c.yaml" &&
	(cd "$M" && trace_ok c.yaml t.pfw.gz probes.sig -- \
		mpirun --allow-run-as-root --oversubscribe -np 2 ./mpi-bytes) &&
	test "$(wc -c <"$M/mpi.out")" = 8688
'

test_expect_success BPF,PYTHON3,MPICC 'every MPI_File call names the file, MPI_File_close included' '
	T="$M/t.pfw.gz" F="$M/mpi.out" &&
	test "$(q count "$T" --cat MPI --name MPI_File_open --file "$F" --arg ret=0)" = 4 &&
	test "$(q count "$T" --cat MPI --name MPI_File_close --file "$F" --arg ret=0)" = 4 &&
	test "$(q count "$T" --cat MPI --name MPI_File_write_at --file "$F")" = 4 &&
	test "$(q count "$T" --cat MPI --name MPI_File_write_at_all --file "$F")" = 2 &&
	test "$(q count "$T" --cat MPI --name MPI_File_read_at --file "$F")" = 4 &&
	q list "$T" --cat MPI >all &&
	test "$(grep -c MPI_File_ all)" = 18 &&
	test "$(grep MPI_File_ all | grep -c "\"fhash\"")" = 18
'

test_expect_success BPF,PYTHON3,MPICC 'MPI bytes: count x datatype size asked, the status count moved' '
	T="$M/t.pfw.gz" F="$M/mpi.out" &&
	test "$(q count "$T" --cat MPI --name MPI_File_write_at --arg count=512 --arg tsize=8 --arg size=4096 --arg bytes=4096)" = 2 &&
	test "$(q count "$T" --cat MPI --name MPI_File_write_at_all --arg count=3 --arg tsize=80 --arg size=240 --arg bytes=240)" = 2 &&
	test "$(q count "$T" --cat MPI --name MPI_File_write_at --arg count=2 --arg tsize=4 --arg size=8 --arg bytes=8)" = 2 &&
	w=$(( $(q sum "$T" bytes --cat MPI --name MPI_File_write_at --file "$F") +
	      $(q sum "$T" bytes --cat MPI --name MPI_File_write_at_all --file "$F") )) &&
	test $w = 8688 &&
	test "$(q sum "$T" bytes --cat MPI --name MPI_File_read_at --file "$F")" = 8688 &&
	test "$(q count "$T" --cat MPI --name MPI_File_read_at --arg size=100 --arg bytes=0)" = 2 &&
	dc-write --summary "$T" >summary &&
	grep -E "^MPI +MPI_File_read_at +4 +8688 .* $F\$" summary
'

# mpi_rows TRACE DIR: "function file bytes" for each MPI_File function
# in TRACE's dc-write --summary (each called by 2 ranks, but
# MPI_File_delete, called by one), files relative to DIR.
mpi_rows() {
	dc-write --summary --top 0 "$1" >rows.sum &&
	awk -v d="$2/" '$1 == "MPI" && $2 ~ /^MPI_File_/ &&
		($3 == 2 || ($2 == "MPI_File_delete" && $3 == 1)) {
		f = $6; sub(d, "", f); print $2, f, $4 }' rows.sum | sort
}

# The other MPI-IO calls (t/helpers/mpi-more.c), by the client library
# and by uprobes: each names its file, once a rank, the split
# collectives' bytes at their begin, a nonblocking call's at its
# start; each file's bytes written and read are its size.
for path in fast uprobe; do
	opt=
	test $path = uprobe && opt=--no-preload
	test_expect_success BPF,PYTHON3,MPICC "split collectives, nonblocking and shared-pointer calls, set_size, preallocate, delete ($path)" "
		mkdir \"\$M/$path\" && cd \"\$M/$path\" &&
		mpicc -o mpi-more \"\$DC_SRC_DIR/t/helpers/mpi-more.c\" &&
		printf 'layers: [posix, mpiio]\n' >c.yaml &&
		trace_ok c.yaml t.pfw.gz $opt probes.sig -- \
			mpirun --allow-run-as-root --oversubscribe -np 2 ./mpi-more &&
		test \"\$(wc -c <mpi-more.out)\" = 440 &&
		test \"\$(wc -c <mpi-shared.out)\" = 28 &&
		test ! -e mpi-gone.out &&
		mpi_rows t.pfw.gz \"\$PWD\" >got &&
		cat >expect <<-\EOF &&
		MPI_File_close mpi-gone.out 0
		MPI_File_close mpi-more.out 0
		MPI_File_close mpi-shared.out 0
		MPI_File_delete mpi-gone.out 0
		MPI_File_iread mpi-more.out 20
		MPI_File_iread_all mpi-more.out 20
		MPI_File_iread_at mpi-more.out 60
		MPI_File_iread_at_all mpi-more.out 40
		MPI_File_iread_shared mpi-shared.out 4
		MPI_File_iwrite mpi-more.out 20
		MPI_File_iwrite_all mpi-more.out 20
		MPI_File_iwrite_at mpi-more.out 60
		MPI_File_iwrite_at_all mpi-more.out 40
		MPI_File_iwrite_shared mpi-shared.out 4
		MPI_File_open mpi-gone.out 0
		MPI_File_open mpi-more.out 0
		MPI_File_open mpi-shared.out 0
		MPI_File_preallocate mpi-gone.out 0
		MPI_File_read_all_begin mpi-more.out 100
		MPI_File_read_all_end mpi-more.out 0
		MPI_File_read_at_all_begin mpi-more.out 200
		MPI_File_read_at_all_end mpi-more.out 0
		MPI_File_read_ordered mpi-shared.out 10
		MPI_File_read_ordered_begin mpi-shared.out 8
		MPI_File_read_ordered_end mpi-shared.out 0
		MPI_File_read_shared mpi-shared.out 6
		MPI_File_seek_shared mpi-shared.out 0
		MPI_File_set_size mpi-more.out 0
		MPI_File_set_size mpi-shared.out 0
		MPI_File_write_all_begin mpi-more.out 100
		MPI_File_write_all_end mpi-more.out 0
		MPI_File_write_at_all_begin mpi-more.out 200
		MPI_File_write_at_all_end mpi-more.out 0
		MPI_File_write_ordered mpi-shared.out 10
		MPI_File_write_ordered_begin mpi-shared.out 8
		MPI_File_write_ordered_end mpi-shared.out 0
		MPI_File_write_shared mpi-shared.out 6
		EOF
		test_cmp expect got &&
		if test $path = fast
		then
			grep -q 'fast path: [0-9]* functions recorded' collect.err &&
			! grep 'MPI_File.*stays a uprobe' collect.err
		fi
	"
done

# build_h5 DIR [-shlib]: the HDF5 workload, shared or static.
build_h5() {
	mkdir -p "$1" && h5cc ${2:-} -o "$1/h5-ids" "$DC_SRC_DIR/t/helpers/h5-ids.c"
}

# check_h5 TRACE FILE: every H5F/H5D/H5G/H5A call names FILE, and the
# POSIX calls on FILE nest under them.
check_h5() {
	python3 - "$1" "$2" <<-\EOF
	import gzip, json, sys
	ev = [json.loads(l) for l in gzip.open(sys.argv[1], "rt") if l.startswith("{")]
	fh = {e["args"]["value"]: e["args"]["name"] for e in ev if e["name"] == "FH" and e["ph"] == "M"}
	calls = [e for e in ev if e.get("cat") == "HDF5" and e["ph"] == "X"
	         and e["name"][:3] in ("H5F", "H5D", "H5G", "H5A")]
	names = sorted(e["name"] for e in calls)
	want = sorted(["H5Fcreate", "H5Fclose", "H5Fopen", "H5Fclose",
	               "H5Dcreate2", "H5Dwrite", "H5Dclose", "H5Dopen2", "H5Dread", "H5Dclose",
	               "H5Gcreate2", "H5Gclose", "H5Gopen2", "H5Gclose",
	               "H5Acreate2", "H5Awrite", "H5Aclose", "H5Aopen", "H5Aread", "H5Aclose"])
	assert names == want, names
	bad = [e for e in calls if fh.get(e["args"].get("fhash")) != sys.argv[2]]
	assert not bad, bad
	# Bytes are those of the POSIX calls under the HDF5 ones (HDF5
	# buffers: the dataset's 256 ints go out under H5Dclose here).
	import os
	ids = {e["id"] for e in calls}
	pw = [e for e in ev if e.get("cat") == "POSIX" and e["name"] in ("pwrite", "pwrite64")
	      and e["ph"] == "X" and fh.get(e["args"].get("fhash")) == sys.argv[2]]
	assert pw and all(e["args"].get("p_idx") in ids for e in pw), pw
	assert [e for e in pw if e["args"]["ret"] == 256 * 4], pw
	end = max(e["args"]["offset"] + e["args"]["ret"] for e in pw)
	assert end == os.path.getsize(sys.argv[2]), (end, os.path.getsize(sys.argv[2]))
	EOF
}

test_expect_success BPF,PYTHON3,H5CC 'HDF5 shared: dataset, group and attribute ids name their file' '
	build_h5 "$TRASH_DIRECTORY/hs" -shlib &&
	ldd "$TRASH_DIRECTORY/hs/h5-ids" | grep -q libhdf5 &&
	printf "layers: [posix, hdf5]\n" >c.yaml &&
	(cd "$TRASH_DIRECTORY/hs" && trace_ok "$OLDPWD/c.yaml" t.pfw.gz probes.sig -- ./h5-ids) &&
	grep -q "fast path: [0-9]* functions recorded" "$TRASH_DIRECTORY/hs/collect.err" &&
	check_h5 "$TRASH_DIRECTORY/hs/t.pfw.gz" "$TRASH_DIRECTORY/hs/h5.h5"
'

# same_tree FAST UPROBE FILE: the POSIX calls on FILE and the system
# calls under them, each with its
# level, return value and the name of the call it nests under, are the
# same whether the client library recorded them (under uprobe-traced HDF5
# calls) or uprobes did.  Calls libc makes to its own exported functions
# (the fstatat inside fstat) are seen only by a uprobe: left out, and
# what ran under them moves up a level.
same_tree() {
	python3 - "$@" <<-\EOF
	import collections, gzip, json, sys
	def tree(path, file):
	    ev = [json.loads(l) for l in gzip.open(path, "rt") if l.startswith("{")]
	    fh = {e["args"]["value"]: e["args"]["name"] for e in ev if e["name"] == "FH" and e["ph"] == "M"}
	    by_id = {e["id"]: e for e in ev if e["ph"] == "X" and "id" in e}
	    out = collections.Counter()
	    on = {e["id"] for e in ev if e.get("cat") == "POSIX" and e["ph"] == "X"
	          and fh.get(e["args"].get("fhash")) == file}
	    for e in ev:
	        if e.get("id") not in on and not (e.get("cat") == "sys" and e["args"].get("p_idx") in on):
	            continue
	        p = by_id.get(e["args"].get("p_idx"))
	        if e["cat"] == "POSIX" and p and p["cat"] == "POSIX":
	            continue
	        level = e["args"]["level"]
	        if p and p["cat"] == "POSIX":
	            pp = by_id.get(p["args"].get("p_idx"))
	            if pp and pp["cat"] == "POSIX":
	                p, level = pp, level - 1
	        out[(e["cat"], e["name"], level, e["args"].get("ret"),
	             p["cat"] + ":" + p["name"] if p else None)] += 1
	    return out
	fast, slow = tree(sys.argv[1], sys.argv[3]), tree(sys.argv[2], sys.argv[3])
	for k in sorted(set(fast) | set(slow), key=str):
	    print("%-60s fast %3d uprobe %3d" % (k, fast[k], slow[k]))
	assert fast == slow and sum(fast.values()) >= 10, "differ"
	assert all(k[4] and k[4].startswith("HDF5:") for k in fast if k[0] == "POSIX"), "a POSIX call outside HDF5"
	assert all(k[4] and k[4].startswith("POSIX:") for k in fast if k[0] == "sys"), "a system call outside POSIX"
	EOF
}

test_expect_success BPF,PYTHON3,H5CC 'HDF5 shared: POSIX calls under HDF5 calls, system calls under them: the same on the fast path and by uprobe' '
	printf "layers: [posix, hdf5, syscalls]\n" >c.yaml &&
	(cd "$TRASH_DIRECTORY/hs" && rm h5.h5 &&
	 trace_ok "$OLDPWD/c.yaml" f.pfw.gz probes.sig -- ./h5-ids && rm h5.h5 &&
	 trace_ok "$OLDPWD/c.yaml" u.pfw.gz --no-preload probes.sig -- ./h5-ids) &&
	same_tree "$TRASH_DIRECTORY/hs/f.pfw.gz" "$TRASH_DIRECTORY/hs/u.pfw.gz" "$TRASH_DIRECTORY/hs/h5.h5"
'

test_expect_success BPF,PYTHON3,H5CC 'HDF5 linked into the executable: the hdf5 layer aimed at it' '
	build_h5 "$TRASH_DIRECTORY/hx" &&
	! ldd "$TRASH_DIRECTORY/hx/h5-ids" | grep -q libhdf5 &&
	dc-explore "$TRASH_DIRECTORY/hx/h5-ids" | grep -q "^H5Dwrite\b" &&
	cat >c.yaml <<-EOC &&
	layers:
	  - posix
	  - name: hdf5
	    target: $TRASH_DIRECTORY/hx/h5-ids
	EOC
	(cd "$TRASH_DIRECTORY/hx" && trace_ok "$OLDPWD/c.yaml" t.pfw.gz probes.sig -- ./h5-ids) &&
	grep -q "fast path: [0-9]* functions recorded" "$TRASH_DIRECTORY/hx/collect.err" &&
	grep -q "\"target\": \"$TRASH_DIRECTORY/hx/h5-ids\"" "$TRASH_DIRECTORY/hx/probes.json" &&
	check_h5 "$TRASH_DIRECTORY/hx/t.pfw.gz" "$TRASH_DIRECTORY/hx/h5.h5"
'

# H5PY: Debian's h5py, for the system's python3 (python3-h5py).
test_lazy_prereq H5PY '
	/usr/bin/python3 -c "import h5py" ||
	{ echo "h5py (python3-h5py) not installed for /usr/bin/python3"; false; }
'

# h5py, as Python programs use HDF5: f["x"] opens by H5Oopen, g["y"] =
# data creates an anonymous dataset and links it (H5Dcreate_anon,
# H5Olink), attributes go by name, a dataset grows by H5Dset_extent.
# By the client library and by uprobes, every call but the property
# lists' names the file, and the POSIX writes under them end at its
# size.
for path in fast uprobe; do
	opt=
	test $path = uprobe && opt=--no-preload
	test_expect_success BPF,PYTHON3,H5PY "h5py: every HDF5 call names its file ($path)" "
		mkdir $path && cd $path &&
		cat >h.py <<-\EOP &&
		import h5py, numpy as np
		with h5py.File('h.h5', 'w') as f:
		    f.create_dataset('x', data=np.arange(1000, dtype='i4'))
		    f.attrs['a'] = 7
		    f.create_group('g')['y'] = np.ones(10)
		    r = f.create_dataset('r', (10,), maxshape=(None,), chunks=(10,), dtype='i4')
		    r.resize((20,))
		    r[10:] = np.arange(10, dtype='i4')
		    r.flush()
		    f.flush()
		with h5py.File('h.h5', 'r') as f:
		    print(int(f['x'][:].sum()), int(f.attrs['a']), len(f['g/y'][()]),
		          file=open('out', 'w'))
		EOP
		printf 'layers: [posix, hdf5]\n' >c.yaml &&
		trace_ok c.yaml t.pfw.gz $opt probes.sig -- /usr/bin/python3 h.py &&
		echo '499500 7 10' >expect && test_cmp expect out &&
		python3 - t.pfw.gz \"\$PWD/h.h5\" <<-\EOP
		import collections, gzip, json, os, sys
		ev = [json.loads(l) for l in gzip.open(sys.argv[1], 'rt') if l.startswith('{')]
		fh = {e['args']['value']: e['args']['name'] for e in ev if e['name'] == 'FH' and e['ph'] == 'M'}
		calls = [e for e in ev if e.get('cat') == 'HDF5' and e['ph'] == 'X'
		         and not e['name'].startswith('H5P')]
		n = collections.Counter(e['name'] for e in calls)
		want = {'H5Fcreate': 1, 'H5Fopen': 1, 'H5Dcreate2': 2, 'H5Dcreate_anon': 1,
		        'H5Olink': 1, 'H5Gcreate2': 1, 'H5Dwrite': 3, 'H5Acreate_by_name': 1,
		        'H5Awrite': 1, 'H5Dread': 2, 'H5Aopen_by_name': 1, 'H5Aread': 1,
		        'H5Dset_extent': 1, 'H5Dflush': 1, 'H5Fflush': 1}
		assert all(n[k] == v for k, v in want.items()), n
		assert n['H5Oopen'] >= 2, n
		bad = [e for e in calls if fh.get(e['args'].get('fhash')) != sys.argv[2]]
		assert not bad, bad
		pw = [e for e in ev if e.get('cat') == 'POSIX' and e['ph'] == 'X'
		      and e['name'] in ('pwrite', 'pwrite64') and fh.get(e['args'].get('fhash')) == sys.argv[2]]
		end = max(e['args']['offset'] + e['args']['ret'] for e in pw)
		assert end == os.path.getsize(sys.argv[2]), (end, os.path.getsize(sys.argv[2]))
		EOP
	"
done

test_done

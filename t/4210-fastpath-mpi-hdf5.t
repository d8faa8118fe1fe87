#!/bin/sh
# The fast path for the mpiio and hdf5 layers: the client library wraps
# MPI-IO and HDF5 functions (without linking either library) when the
# program reaches them through the dynamic linker.  One workload traced
# both ways (--no-preload: uprobes) gives the same MPI and HDF5 events,
# name, arguments (handles read through pointers, count x the datatype's
# size, the status's count), return value, level, parent and file; the
# fast path recorded them (every probe of the spec is the client's); an
# HDF5 linked into the executable stays on uprobes, with a notice.
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq H5MPI '
	command -v mpicc >/dev/null && command -v mpirun >/dev/null &&
	pkg-config --exists hdf5-serial ||
	{ echo "mpicc, mpirun and pkg-config hdf5-serial (libhdf5-dev) not installed"; false; }
'

# both_ways CONFIG -- COMMAND: COMMAND traced on the fast path (f.pfw.gz,
# f.err) and by uprobes (u.pfw.gz), both exiting 0, in this directory.
both_ways() {
	_cfg=$1
	shift 2
	sign_spec "$_cfg" &&
	{ dc-collect -k "$SHARED/key" probes.sig -- "$@" 2>f.err; echo $? >f.rc; } |
		dc-aggregate | dc-write f.pfw.gz &&
	cat f.err >&2 &&
	test "$(cat f.rc)" = 0 &&
	{ dc-collect -k "$SHARED/key" --no-preload probes.sig -- "$@" 2>u.err; echo $? >u.rc; } |
		dc-aggregate | dc-write u.pfw.gz &&
	test "$(cat u.rc)" = 0
}

# recorded: the functions the fast path took over, from its notice.
recorded() {
	sed -n "s/^dc-collect: fast path: \([0-9]*\) functions recorded.*/\1/p" f.err
}

# probes: the uprobes of the spec (probes.json) the fast path takes: all
# but MPI_Init, MPI_Finalize and MPI_Comm_rank, which programs look up to
# learn whether they have MPI, and which stay uprobes (lib/fastabi.h).
probes() {
	python3 -c "
import json
spec = json.load(open(\"probes.json\"))
print(sum(1 for p in spec[\"probes\"] if p[\"kind\"] == \"uprobe\" and
          p[\"function\"] not in (\"MPI_Init\", \"MPI_Finalize\", \"MPI_Comm_rank\")))"
}

# same_events CATS N: the two traces' events of CATS, process by
# process, are the same, and there are N.
same_events() {
	python3 "$DC_SRC_DIR/t/helpers/fast-compare.py" --cats "$1" f.pfw.gz u.pfw.gz >cmp
	_rc=$?
	cat cmp
	test $_rc = 0 && test "$(tail -n 1 cmp)" = "$2 events compared, 0 differ"
}

# mpiio_layer LIB: a config of the mpiio layer aimed at LIB.
mpiio_layer() {
	printf "layers:\n  - name: mpiio\n    target: %s\n" "$1"
}

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

# t/helpers/mpi-types.c, 2 ranks: MPI_Init, MPI_Comm_rank, MPI_Finalize
# and 17 or 18 MPI_File calls each (35), all on mpi-types.out.
test_expect_success BPF,PYTHON3,OPENMPI 'OpenMPI: the same MPI-IO events on the fast path and by uprobe' '
	mkdir ompi && (
		cd ompi &&
		mpicc.openmpi -o mpi-types "$DC_SRC_DIR/t/helpers/mpi-types.c" &&
		lib=$(ldd ./mpi-types | awk "\$1 ~ /^libmpi/ { print \$3; exit }") &&
		mpiio_layer "$lib" >c.yaml &&
		both_ways c.yaml -- mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 ./mpi-types &&
		test "$(recorded)" = "$(probes)" &&
		same_events MPI 41 &&
		test "$(pfw-query count f.pfw.gz --cat MPI --file "$PWD/mpi-types.out")" = 35 &&
		test "$(pfw-query count f.pfw.gz --cat MPI --name MPI_File_write_at_all \
			--file "$PWD/mpi-types.out" --arg count=25 --arg tsize=8 --arg bytes=200)" = 2
	)
'

test_expect_success BPF,PYTHON3,MPICH 'MPICH: the same MPI-IO events; MPI_Comm_rank by uprobe both ways' '
	mkdir mpich && (
		cd mpich &&
		mpicc.mpich -o mpi-types "$DC_SRC_DIR/t/helpers/mpi-types.c" &&
		lib=$(ldd ./mpi-types | awk "\$1 ~ /^libmpi/ { print \$3; exit }") &&
		mpiio_layer "$lib" >c.yaml &&
		both_ways c.yaml -- mpiexec.mpich -n 2 ./mpi-types &&
		test "$(recorded)" = "$(probes)" &&
		same_events MPI 41 &&
		test "$(pfw-query count f.pfw.gz --cat MPI --file "$PWD/mpi-types.out")" = 35 &&
		# MPICH calls its own MPI_Comm_rank too: the uprobe sees
		# those calls on both paths.
		f=$(pfw-query count f.pfw.gz --cat MPI --name MPI_Comm_rank) &&
		test "$f" -gt 2 &&
		test "$f" = "$(pfw-query count u.pfw.gz --cat MPI --name MPI_Comm_rank)"
	)
'

test_expect_success BPF,PYTHON3,H5CC 'HDF5 shared: the same HDF5 events, each naming its file' '
	mkdir hs && (
		cd hs &&
		h5cc -shlib -o h5-ids "$DC_SRC_DIR/t/helpers/h5-ids.c" &&
		printf "layers: [hdf5]\n" >c.yaml &&
		both_ways c.yaml -- ./h5-ids &&
		test "$(recorded)" = "$(probes)" &&
		same_events HDF5 20 &&
		test "$(pfw-query count f.pfw.gz --cat HDF5 --file "$PWD/h5.h5")" = 20
	)
'

test_expect_success BPF,PYTHON3,H5CC 'HDF5 linked into the executable: uprobes, with a notice' '
	mkdir hx && (
		cd hx &&
		h5cc -o h5-ids "$DC_SRC_DIR/t/helpers/h5-ids.c" &&
		! ldd ./h5-ids | grep -q libhdf5 &&
		printf "layers:\n  - posix\n  - name: hdf5\n    target: %s\n" "$PWD/h5-ids" >c.yaml &&
		both_ways c.yaml -- ./h5-ids &&
		grep "fast path: $PWD/h5-ids is not a shared library: its mpiio and hdf5 functions stay uprobes" f.err &&
		test "$(recorded)" -lt "$(probes)" &&
		same_events HDF5 20
	)
'

# Python loads an extension module with RTLD_LOCAL, and the libhdf5 it
# brings is outside the global scope that dlsym(RTLD_NEXT) searches; its
# calls reach the wrappers all the same.
test_expect_success BPF,PYTHON3,H5CC 'HDF5 loaded with RTLD_LOCAL: found, and the same events' '
	mkdir hl && (
		cd hl &&
		cat >h5user.c <<-\EOC &&
		#include <hdf5.h>
		int make(const char *path)
		{
			hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);

			return f < 0 ? -1 : H5Fclose(f);
		}
		EOC
		h5cc -shlib -shared -fPIC -o libh5user.so h5user.c &&
		echo "import ctypes, sys; sys.exit(ctypes.CDLL(\"./libh5user.so\").make(b\"$PWD/l.h5\"))" >make.py &&
		LD_PRELOAD="$DC_CLIENT_LIB" python3 make.py &&
		printf "layers: [hdf5]\n" >c.yaml &&
		both_ways c.yaml -- python3 make.py &&
		same_events HDF5 2 &&
		test "$(pfw-query count f.pfw.gz --cat HDF5 --name H5Fcreate --file "$PWD/l.h5")" = 1
	)
'

# t/helpers/mpi-hdf5.c, 2 ranks: MPI_Init, MPI_Comm_rank, MPI_File_open,
# 2 x 4 collective calls, MPI_File_close, MPI_Finalize (13) and H5Fcreate,
# H5Dcreate2, H5Dwrite, H5Dclose, H5Fclose, H5Fopen, H5Dopen2, H5Dread,
# H5Dclose, H5Fclose (10) each.
test_expect_success BPF,PYTHON3,H5MPI 'MPI-IO and HDF5 in one job: the same events' '
	mkdir mh && (
		cd mh &&
		mpicc $(pkg-config --cflags hdf5-serial) -o mpi-hdf5 \
			"$DC_SRC_DIR/t/helpers/mpi-hdf5.c" $(pkg-config --libs hdf5-serial) &&
		printf "layers: [mpiio, hdf5]\n" >c.yaml &&
		mkdir out &&
		both_ways c.yaml -- mpirun --allow-run-as-root --oversubscribe -np 2 \
			./mpi-hdf5 "$PWD/out" 4 4096 &&
		test "$(recorded)" = "$(probes)" &&
		same_events MPI,HDF5 46 &&
		test "$(pfw-query count f.pfw.gz --cat HDF5 --file "$PWD/out/rank-0.h5")" = 10 &&
		test "$(pfw-query count f.pfw.gz --cat MPI --file "$PWD/out/shared.dat")" = 20
	)
'

test_done

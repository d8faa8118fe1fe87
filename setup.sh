#!/bin/sh
# setup.sh - set up datacrumbs on a fresh Debian 12 / Ubuntu machine, build
# it, and run the demo or the test suite.
#
#   ./setup.sh demo     install, build, trace a demo workload end to end
#   ./setup.sh test     install, build, run the whole test suite, then
#                       its kernel part again in a Debian 6.1 VM
#   ./setup.sh deps     only install the Debian packages
#   ./setup.sh build    only install and build (in ./build)
#
# Run as root: the packages need apt-get and the collector loads BPF.
set -eu

top=$(cd "$(dirname "$0")" && pwd)
build="$top/build"

# Build tools and libraries, the test suite's needs (python3 reads the
# traces, HDF5/MPI/SDT give real libraries to probe, OpenMPI and MPICH
# both for their different MPI handles; qemu, busybox and the
# mkfs tools run the VM of `make check-kernels`), dc-report's (Dask,
# matplotlib, pandas; chromium renders its reports in the tests),
# bpftrace for bench/kernel-bench.sh's peer column (1.6 MB with
# libbpfcc; clang's LLVM is already here), fio (a real program's POSIX
# AIO, t/3250), h5py (HDF5 as Python programs use it, t/3210), nothing
# else.
packages="autoconf automake libtool pkg-config make gcc clang llvm bpftool bpftrace
libbpf-dev libelf-dev zlib1g-dev libjansson-dev libyaml-dev libssl-dev
python3 libhdf5-dev libopenmpi-dev openmpi-bin libmpich-dev mpich
systemtap-sdt-dev passwd
slurm-wlm munge iproute2
procps libdeflate0 python3-dask python3-distributed python3-matplotlib
python3-pandas python3-h5py chromium fio
qemu-system-x86 busybox-static e2fsprogs xfsprogs file
afl++ libclang-rt-14-dev"

say() { printf 'setup.sh: %s\n' "$*" >&2; }

need_root() {
	if [ "$(id -u)" != 0 ]; then
		say "run this as root (it installs packages and loads BPF programs)"
		exit 1
	fi
}

deps() {
	missing=
	for p in $packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		say "installing:$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
	fi
	# Tracepoints are found through tracefs.
	if [ ! -d /sys/kernel/tracing/events ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	fi
}

build() {
	cd "$top"
	if [ ! -x configure ] || [ configure.ac -nt configure ]; then
		say "generating the build system"
		autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
	fi
	mkdir -p "$build"
	cd "$build"
	if [ ! -f Makefile ]; then
		say "configuring"
		"$top/configure" -q
	fi
	say "building"
	make -j"$(nproc)" >/dev/null
}

# variant DIR CONFIGURE-ARGS...: a second build of the same tree in DIR.
variant() {
	_dir=$1
	shift
	mkdir -p "$_dir"
	cd "$_dir" || return 1
	if [ ! -f Makefile ]; then
		say "configuring $_dir: $*"
		# (configure takes CC=... as an argument.)
		"$top/configure" -q "$@" || return 1
	fi
	say "building $_dir"
	make -j"$(nproc)" >/dev/null
}

# timed WHAT CMD...: run CMD, then say how long it took.
timed() {
	_what=$1
	shift
	_t0=$(date +%s)
	"$@"
	_rc=$?
	say "$_what: $(( $(date +%s) - _t0 )) s, exit $_rc"
	return $_rc
}

case "${1:-}" in
deps)
	need_root
	deps
	;;
build)
	need_root
	deps
	build
	;;
demo)
	need_root
	deps
	build
	exec "$top/demo/run-demo.sh" "$build"
	;;
test)
	need_root
	deps
	build
	# Everything runs, whatever fails; the status says if anything did.
	status=0
	variant "$top/build-san" --enable-sanitizers || status=1
	variant "$top/build-fuzz" CC=afl-clang-fast --enable-fuzzing \
		--enable-sanitizers || status=1
	# The suite, then the suite under ASan+UBSan (leaks included).  One
	# after the other, one script at a time: with both suites side by
	# side and two scripts at a time, BPF tests that count system-wide
	# (t/3120, t/3130, t/3200) failed, and they pass alone.
	# A root machine set up here has all of these: a test that needs
	# one fails rather than skips (t/test-lib.sh).
	export DC_TEST_REQUIRE="ROOT BPF PYTHON3"
	cd "$build"
	timed "the test suite" make check || status=1
	cd "$top/build-san" && timed "the sanitizer suite" make check || status=1
	# AFL++ on every fuzz target for 30 s, one per CPU at a time
	# (fuzz/README.md), then the kernel tests in a Debian 6.1 VM.
	cd "$top/build-fuzz" && timed "fuzzing" \
		make fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-30}" || status=1
	cd "$build" && timed "the kernel VM suite" make check-kernels || status=1
	exit $status
	;;
*)
	echo "usage: $0 demo|test|deps|build" >&2
	exit 2
	;;
esac

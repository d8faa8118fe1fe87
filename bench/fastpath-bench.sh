#!/bin/sh
# bench/fastpath-bench.sh - user-level calls: untraced, the interposition
# floor, the fast path and the uprobe path, each with and without the
# syscalls layer, on W1-W4, in one run (called by bench/run, or alone:
# DC_BUILD_DIR=build bench/fastpath-bench.sh, as root).
#
#   W1  write(fd, 1 byte) to /dev/null
#   W2  open + pwrite 4 KiB + close
#   W3  fwrite 64 KiB to /dev/null
#   W4  an HDF5 dataset write (create, write 4 KiB, close, flush)
#
# Figures are per call of the workload's loop, medians of 3 runs; the
# "added" columns are differences from the untraced run of the same loop
# in this run.  Untraced, floor and fast-path runs use a private copy of
# libc (see below); the uprobe path's "added" is against the system libc's
# untraced run.  FAST_N and FAST_NU set the loop sizes (the uprobe path is
# about 100 times slower, so it runs fewer iterations).
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${DC_BUILD_DIR:-$src/build}" && pwd)
PATH="$build/dc-gen:$build/dc-sign:$build/dc-collect:$build/dc-aggregate:$PATH"
export DC_DATA_DIR="$src/configs"
export DC_CLIENT_LIB="$build/dc-wrap/.libs/libdcclient.so"
N=${FAST_N:-1000000}
NU=${FAST_NU:-20000}
work=$(mktemp -d /tmp/dc-fastbench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

cc -O2 -shared -fPIC -o floor.so "$src/bench/preload-floor.c" -ldl
h5=
if [ -f /usr/include/hdf5/serial/hdf5.h ]; then
	h5="-DWITH_HDF5 -I/usr/include/hdf5/serial -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5"
fi
# shellcheck disable=SC2086
cc -O2 -o iowork "$src/bench/iowork.c" $h5
dc-sign --gen-key -k key >/dev/null
# A private copy of libc for every run but the uprobe path's: a uprobe is
# set in the library's file, so another collector's uprobes on the
# system's libc (other users of a shared machine) would slow every write()
# here.  The uprobe-path rows use the system's libc, which their spec
# names.
mkdir lib
cp "$(ldd ./iowork | sed -n 's/.*libc.so.6 => \([^ ]*\).*/\1/p')" lib/libc.so.6
PRIV="LD_LIBRARY_PATH=$work/lib"

spec() { # spec NAME LAYERS...
	_n=$1; shift
	{ echo "layers:"; for l in "$@"; do echo "  - $l"; done; } >"$_n.yaml"
	dc-gen "$_n.yaml" >"$_n.json" 2>/dev/null
	dc-sign -k key -o "$_n.sig" "$_n.json"
}
spec user posix stdio
spec usersys posix stdio syscalls
spec sys syscalls

ns() { sed -n 's/.*ns_per_iteration=\([0-9.]*\).*/\1/p' | tail -n 1; }
med3() { for i in 1 2 3; do "$@"; done | sort -n | sed -n 2p; }

plain() { env $PRIV ./iowork "$@" 2>&1 >/dev/null | ns; }
sysplain() { ./iowork "$@" 2>&1 >/dev/null | ns; }
floor() { env $PRIV LD_PRELOAD="$work/floor.so" ./iowork "$@" 2>&1 >/dev/null | ns; }
# traced SPEC [dc-collect options] -- ARGS: the stream is kept (and
# checked for drops), not aggregated: the collector's cost is the subject.
traced() {
	_s=$1; shift
	_o="" _e="$PRIV"
	if [ "$1" = --no-preload ]; then _o=$1 _e=""; shift; fi
	rm -f s.dcs
	# shellcheck disable=SC2086
	dc-collect -k key --output s.dcs $_o "$_s.sig" -- env $_e ./iowork "$@" 2>c.err >/dev/null
	if grep -q "dropped" c.err && ! grep -q " 0 dropped" c.err; then
		echo "fastpath-bench: drops: $(grep dropped c.err)" >&2
	fi
	ns <c.err
}

row() { # row NAME N UNTRACED FLOOR FAST UPROBE SYS FASTSYS UPSYS
	awk -v name="$1" -v n="$2" -v b="$3" -v fl="$4" -v f="$5" -v u="$6" \
	    -v s="$7" -v fs="$8" -v us="$9" 'BEGIN {
		printf "| %s | %.0f | %+.0f | %+.0f (%.2fx floor) | %+.0f | %+.0f | %+.0f (sum %+.0f) | %+.0f |\n",
			name, b, fl - b, f - b, (f - b) / (fl - b), u - b, s - b,
			fs - b, (f - b) + (s - b), us - b }'
}

echo "| workload | untraced ns/call | floor added | fast path added | uprobe path added | syscalls layer alone added | fast path + syscalls added | uprobe path + syscalls added |"
echo "|---|---|---|---|---|---|---|---|"
one() { # one NAME ARGS-FAST ARGS-UPROBE
	_name=$1 _nf=$2 _nu=$3; shift 3
	b=$(med3 plain "$_name" "$_nf" "$@")
	bu=$(med3 sysplain "$_name" "$_nu" "$@")
	fl=$(med3 floor "$_name" "$_nf" "$@")
	f=$(med3 traced user "$_name" "$_nf" "$@")
	s=$(med3 traced sys "$_name" "$_nf" "$@")
	fs=$(med3 traced usersys "$_name" "$_nf" "$@")
	u=$(med3 traced user --no-preload "$_name" "$_nu" "$@")
	us=$(med3 traced usersys --no-preload "$_name" "$_nu" "$@")
	# The uprobe rows ran fewer iterations: their own untraced base.
	u=$(awk -v u="$u" -v bu="$bu" -v b="$b" 'BEGIN { print u - bu + b }')
	us=$(awk -v u="$us" -v bu="$bu" -v b="$b" 'BEGIN { print u - bu + b }')
	row "$_name x $_nf" "$_nf" "$b" "$fl" "$f" "$u" "$s" "$fs" "$us"
}
one w1 "$N" "$NU"
one w2 $((N / 10)) "$((NU / 2))" "$work/f2"
one w3 $((N / 10)) "$((NU / 2))"
if [ -n "$h5" ]; then
	one w4 1000 200 "$work/f4.h5"
fi

# Design 2: a 5-byte NOP probe site (the wrapper would carry one and the
# collector attach its uprobe programs to it).  Kernels from 6.x with
# uprobe optimization turn the probe into a call to a trampoline plus the
# uprobe syscall; an int3 probe on an ordinary first instruction traps.
cat >nop.yaml <<EOC
layers:
  - name: NOP
    kind: uprobe
    target: $work/iowork
    functions: [dc_nop_site]
EOC
dc-gen nop.yaml >nop.json 2>/dev/null
dc-sign -k key -o nop.sig nop.json
nb=$(med3 plain nop "$NU")
rm -f s.dcs
nt=$(med3 traced nop nop "$NU")
echo
echo "| design 2: uprobe on a 5-byte NOP site, x $NU | untraced ns/call | traced ns/call | added per hit |"
echo "|---|---|---|---|"
awk -v b="$nb" -v t="$nt" 'BEGIN { printf "| dc_nop_site (entry + return probe) | %.0f | %.0f | %+.0f |\n", b, t, t - b }'

# An unrelated process while a collector traces a command with the posix
# layer: the fast path sets no uprobe on the functions it records.
unrelated() { # unrelated [--no-preload]
	rm -f s.dcs ready stop
	dc-collect -k key --output s.dcs --ready-file ready "$@" user.sig -- \
		sh -c 'while [ ! -e stop ]; do sleep 0.1; done' 2>/dev/null &
	_c=$!
	while [ ! -e ready ]; do sleep 0.1; done
	_r=$(med3 sysplain w1 "$NU")
	touch stop
	wait "$_c" 2>/dev/null || :
	echo "$_r"
}
b=$(med3 sysplain w1 "$NU")
f=$(unrelated)
u=$(unrelated --no-preload)
echo
echo "| unrelated process, W1 x $NU, while a -- COMMAND collector with posix+stdio runs | ns/call | vs untraced |"
echo "|---|---|---|"
awk -v b="$b" -v f="$f" -v u="$u" 'BEGIN {
	printf "| no collector | %.0f | 1.00x |\n", b
	printf "| collector, fast path (default) | %.0f | %.2fx |\n", f, f / b
	printf "| collector, --no-preload (uprobes) | %.0f | %.2fx |\n", u, u / b }'

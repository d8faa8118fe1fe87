#!/bin/sh
# bench/syscall-ab.sh - A/B of what the syscalls layer adds to a system
# call, by CPU time, against the floor and bpftrace in the same rounds.
#
#   syscall-ab.sh ROUNDS NAME=DC-COLLECT... >raw.txt
#   kernel-ab.sh --summary raw.txt [BASE]
#
# Each round runs, in an order rotated each round and reversed every
# other round, the workload's 1,000,000 one-byte write(2)s to /dev/null
# through syscall(2) (t/helpers/workload syswrites) untraced; under the
# floor (bench/dc-floor: empty programs on sys_enter and sys_exit,
# entered as dc-collect enters them); under bpftrace counting the same
# tracepoints (when installed: kernel-bench.sh's program); and under
# each DC-COLLECT given (a binary, or a script that execs one), full
# events through dc-aggregate and dc-write.  Raw lines as kernel-ab.sh's
# AB_MEASURE=cpu writes them, "round config syscalls cpu 1 ns" (ns: the
# workload thread's CPU time per call, which a loaded machine's waits
# for a CPU do not inflate), so its --summary gives each configuration's
# addition by the minimum, lower quartile and median of its runs, over
# the floor's; bpftrace is one of the configurations.
#
# DC_BUILD_DIR names the build (its dc-gen, dc-sign, dc-aggregate,
# dc-write, dc-floor and t/helpers/workload); run as root, alone.
set -eu

[ $# -ge 2 ] || { echo "usage: syscall-ab.sh ROUNDS NAME=DC-COLLECT..." >&2; exit 2; }
rounds=$1
shift
build=${DC_BUILD_DIR:?DC_BUILD_DIR names the build directory}
build=$(cd "$build" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
PATH="$build/dc-gen:$build/dc-sign:$build/dc-aggregate:$build/dc-write:$PATH"
export DC_DATA_DIR="$src/configs"
W=$build/t/helpers/workload FLOOR=$build/bench/dc-floor N=1000000
if [ ! -x "$FLOOR" ] || [ ! -x "$W" ]; then
	echo "syscall-ab: build bench/dc-floor and t/helpers/workload first (make check)" >&2
	exit 1
fi
. "$src/bench/kernel-common.sh"
kernel_workdir dc-sysab
dc-sign --gen-key -k key >/dev/null
printf 'layers: [syscalls]\n' >sys.yaml
dc-gen sys.yaml >sys.json 2>/dev/null
dc-sign -k key -o sys.sig sys.json
# As kernel-bench.sh: the floor enters system calls through tp_btf where
# the kernel has it, as dc-collect does.
SYSFLOOR="-r sys_enter -r sys_exit"
if $FLOOR -b sys_enter -r sys_exit -- true 2>/dev/null; then
	SYSFLOOR="-b sys_enter -r sys_exit"
fi
BT='tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @e = count(); } tracepoint:raw_syscalls:sys_exit /pid == cpid/ { @x = count(); }'

# shellcheck disable=SC2086
one() { # one ROUND CFG BIN ($SYSFLOOR: dc-floor's options, split)
	case $2 in
	untraced) DC_WORKLOAD_REPORT=1 "$W" syswrites $N >m.out 2>&1 ;;
	floor) DC_WORKLOAD_REPORT=1 "$FLOOR" $SYSFLOOR -- "$W" syswrites $N >m.out 2>&1 ;;
	bpftrace) DC_WORKLOAD_REPORT=1 bpftrace -e "$BT" -c "$W syswrites $N" >m.out 2>&1 ;;
	*)	{ DC_WORKLOAD_REPORT=1 "$3" -k key sys.sig -- "$W" syswrites $N 2>m.out; } |
			dc-aggregate | dc-write --force out.pfw.gz
		grep -q " 0 dropped" m.out ||
			echo "syscall-ab: $2, round $1: $(tail -n 1 m.out)" >&2 ;;
	esac
	sed -n "s/.*cpu_ns_per_iteration=\([0-9.]*\).*/$1 $2 syscalls cpu 1 \1/p" m.out | tail -n 1
}

set -- untraced=untraced floor=floor "$@"
command -v bpftrace >/dev/null 2>&1 && set -- bpftrace=bpftrace "$@"
kernel_rounds "$rounds" one "$@"

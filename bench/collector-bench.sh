#!/bin/sh
# bench/collector-bench.sh - the collector's own CPU per fast-path record,
# and that of dc-aggregate and dc-write after it, for one build or two
# compared (A/B, interleaved run by run).  As root:
#
#   bench/collector-bench.sh BUILD_DIR [BUILD_DIR_B]
#
# The workload is W1 (bench/iowork.c: N x write(fd, 1 byte) to /dev/null)
# under `dc-collect SPEC -- COMMAND` with the posix and stdio layers, so
# nearly every record comes through a client ring.  The command waits for
# a file before it starts, so the collector's start (loading the BPF
# programs) is not measured: its CPU time is counted (perf stat -p) from
# then until it exits, and the same run with COLL_SMALL calls is taken
# away, leaving the cost of the records: ns per record is
# (CPU(N) - CPU(small)) / (N - small).  Two outputs:
#   file  dc-collect --output FILE (as bench/fastpath-bench.sh runs it)
#   pipe  dc-collect | dc-aggregate | dc-write --plain to /dev/null, each
#         tool's CPU per record
# Each row also gives the workload's CPU per call of its loop.
#
# COLL_N (default 1000000), COLL_SMALL (1000), COLL_ROUNDS (5),
# COLL_MODES ("file pipe"), COLL_PERF=DIR: a perf record -g of the
# collector of the first round's N run per build and mode (DIR/A-file.data...).
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: bench/collector-bench.sh BUILD_DIR [BUILD_DIR_B]..." >&2; exit 2; }
# the builds by letter: A=dir, B=dir...
labels=
for d in "$@"; do
	x=$(echo A B C D E F G H | cut -d" " -f$(($(echo $labels | wc -w) + 1)))
	eval "$x=\$(cd \"\$d\" && pwd)"
	labels="$labels $x"
done
N=${COLL_N:-1000000}
SMALL=${COLL_SMALL:-1000}
ROUNDS=${COLL_ROUNDS:-5}
MODES=${COLL_MODES:-file pipe}
export DC_DATA_DIR="$src/configs"
work=$(mktemp -d /tmp/dc-collbench.XXXXXX)
# On an early exit a command still waiting is let go first.
trap 'touch "$work/go"; wait; rm -rf "$work"' EXIT
cd "$work"

cc -O2 -o iowork "$src/bench/iowork.c"
"$A/dc-sign/dc-sign" --gen-key -k key >/dev/null
printf 'layers:\n  - posix\n  - stdio\n' >user.yaml
"$A/dc-gen/dc-gen" user.yaml >user.json 2>/dev/null
"$A/dc-sign/dc-sign" -k key -o user.sig user.json
# A private libc, as in fastpath-bench.sh: others' uprobes on the
# system's would slow the workload.
mkdir lib
cp "$(ldd ./iowork | sed -n 's/.*libc.so.6 => \([^ ]*\).*/\1/p')" lib/libc.so.6

# msec FILE: task-clock msec from a perf stat -x, file
msec() { awk -F, '$3 == "task-clock" { print $1 }' "$1"; }

# collector BUILD [OPTION]...: dc-collect, its pid in cpid, the command
# waiting for the file go
collector() {
	_cb=$1; shift
	DC_CLIENT_LIB="$_cb/dc-wrap/.libs/libdcclient.so" sh -c 'echo $$ >cpid; exec "$@"' sh \
		"$_cb/dc-collect/dc-collect" -k key --ready-file ready "$@" user.sig -- sh -c "$_cmd"
}

# run BUILD MODE CALLS PERFOUT: prints "collector_ms aggregate_ms write_ms
# workload_ns records"
run() {
	_b=$1 _m=$2 _n=$3 _p=$4
	rm -f ready go s.dcs cs.txt as.txt ws.txt cpid
	_cmd="while [ ! -e go ]; do sleep 0.02; done; exec env LD_LIBRARY_PATH=$work/lib ./iowork w1 $_n"
	if [ "$_m" = file ]; then
		collector "$_b" --output s.dcs 2>c.err >/dev/null &
	else
		{ collector "$_b" 2>c.err |
		  perf stat -x, -e task-clock -o as.txt "$_b/dc-aggregate/dc-aggregate" |
		  perf stat -x, -e task-clock -o ws.txt "$_b/dc-write/dc-write" --plain - >/dev/null; } &
	fi
	_j=$!
	while [ ! -e ready ]; do
		kill -0 "$_j" 2>/dev/null || { cat c.err >&2; exit 1; }
		sleep 0.02
	done
	_c=$(cat cpid)
	if [ -n "$_p" ]; then
		perf record -q -g -o "$_p" -p "$_c" 2>/dev/null &
	else
		perf stat -x, -e task-clock -o cs.txt -p "$_c" &
	fi
	_ps=$!
	sleep 0.3
	touch go
	wait "$_j" 2>/dev/null || :
	wait "$_ps" 2>/dev/null || :
	_w=$(sed -n 's/.*cpu_ns_per_iteration=\([0-9.]*\).*/\1/p' c.err | tail -n 1)
	_r=$(sed -n 's/^dc-collect: \([0-9]*\) events, \([0-9]*\) dropped.*/\1 \2/p' c.err)
	case $_r in *" 0") ;; *) echo "collector-bench: $_r (events dropped)" >&2 ;; esac
	if [ -n "$_p" ]; then echo; return; fi
	if [ "$_m" = file ]; then
		echo "$(msec cs.txt) 0 0 $_w ${_r% *}"
	else
		echo "$(msec cs.txt) $(msec as.txt) $(msec ws.txt) $_w ${_r% *}"
	fi
}

echo "load before: $(uptime)"
t=$work/raw.txt
: >"$t"
for r in $(seq "$ROUNDS"); do
	# this round's order: the builds rotated by the round
	order=$(echo $labels | awk -v r="$r" '{ for (i = 0; i < NF; i++)
		printf "%s ", $((i + r) % NF + 1) }')
	for m in $MODES; do
		for x in $order; do
			eval "bd=\$$x"
			if [ "$r" = 1 ] && [ -n "${COLL_PERF:-}" ]; then
				mkdir -p "$COLL_PERF"
				run "$bd" "$m" "$N" "$COLL_PERF/$x-$m.data" >/dev/null
				sleep 1
			fi
			big=$(run "$bd" "$m" "$N" "")
			sleep 1
			small=$(run "$bd" "$m" "$SMALL" "")
			sleep 1
			echo "$x $m $r $big $small" >>"$t"
		done
	done
done
[ -z "${COLL_RAW:-}" ] || cp "$t" "$COLL_RAW"

echo
echo "| build | output | collector ns/record | dc-aggregate ns/record | dc-write ns/record | workload CPU ns/call | rounds |"
echo "|---|---|---|---|---|---|---|"
for x in $labels; do
	eval "bd=\$$x"
	for m in $MODES; do
		awk -v x="$x" -v m="$m" -v name="$x ($(git -C "$bd/.." rev-parse --short HEAD 2>/dev/null || echo "$bd"))" '
		function med(a, n,   i, j, t) {
			for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		$1 == x && $2 == m { n++
			d = $8 - $13
			c[n] = ($4 - $9) * 1e6 / d; ag[n] = ($5 - $10) * 1e6 / d
			w[n] = ($6 - $11) * 1e6 / d; l[n] = $7 }
		END { if (n == 0) exit
			printf "| %s | %s | %.0f | %s | %s | %.0f | %d |\n", name, m, med(c, n),
				m == "pipe" ? sprintf("%.0f", med(ag, n)) : "-",
				m == "pipe" ? sprintf("%.0f", med(w, n)) : "-", med(l, n), n }' "$t"
	done
done
echo
echo "load after: $(uptime)"

#!/bin/sh
# write-bench.sh - dc-write speed and trace size, against baselines
# measured in the same run on the same machine:
#   read     cat of the binary stream (the floor: input I/O)
#   format   dc-write --plain to /dev/null (JSON formatting alone)
#   gzip -1  gzip -1 of the same JSON, one thread (the usual fast way)
#   gzip -6  gzip -6 of the same JSON (the usual default)
# The input is `dc-mkstream --synthetic N`, an IOR-like POSIX stream.
#
# Usage: bench/write-bench.sh [EVENTS]          (default 2000000)
# Environment: DC_BUILD_DIR (where dc-write/ and t/helpers/ are built,
# default .), CPUS (a taskset list such as 0,1 to pin every command),
# DC_WRITE_OPTS (extra dc-write options, e.g. "--level 1"), RUNS (best
# of, default 3).  Prints one result line for bench/RESULTS.md last.
set -eu

events=${1:-2000000}
build=${DC_BUILD_DIR:-.}
runs=${RUNS:-3}
dcw=$build/dc-write/dc-write
mk=$build/t/helpers/dc-mkstream
opts=${DC_WRITE_OPTS:-}
pin=
[ -n "${CPUS:-}" ] && pin="taskset -c $CPUS"
for p in "$dcw" "$mk"; do
	[ -x "$p" ] || { echo "write-bench: $p not built (make; make t/helpers/dc-mkstream)" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/write-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# best SECONDS of $runs runs of the command (its output goes where the
# command line sends it).
best() {
	b=
	i=0
	while [ $i -lt "$runs" ]; do
		s=$(date +%s%N)
		sh -c "$1"
		e=$(date +%s%N)
		t=$(( e - s ))
		if [ -z "$b" ] || [ $t -lt $b ]; then b=$t; fi
		i=$((i + 1))
	done
	awk -v ns="$b" 'BEGIN { printf "%.3f", ns / 1e9 }'
}

"$mk" --synthetic "$events" >"$tmp/in.dcs"
"$dcw" --plain -i "$tmp/in.dcs" "$tmp/plain.pfw"
cpus=$(${pin:-} nproc)

t_read=$(best "$pin cat '$tmp/in.dcs' >/dev/null")
t_fmt=$(best "$pin '$dcw' --plain -i '$tmp/in.dcs' - >/dev/null")
t_dcw=$(best "$pin '$dcw' --force $opts -i '$tmp/in.dcs' '$tmp/out.pfw.gz'")
# CPU seconds (user + system, all threads) of one dc-write run: on a busy
# machine wall time says little, CPU time says what the work costs.
cpu_dcw=-
if [ -x /usr/bin/time ]; then
	cpu_dcw=$(/usr/bin/time -f "%U %S" $pin "$dcw" --force $opts -i "$tmp/in.dcs" \
		"$tmp/out.pfw.gz" 2>&1 >/dev/null | awk '{ print $1 + $2 }')
fi
load=$(cut -d" " -f1 /proc/loadavg 2>/dev/null || echo -)
t_gz1=$(best "$pin gzip -1 -c '$tmp/plain.pfw' >'$tmp/g1.gz'")
t_gz6=$(best "$pin gzip -6 -c '$tmp/plain.pfw' >'$tmp/g6.gz'")
s_in=$(wc -c <"$tmp/in.dcs")
s_plain=$(wc -c <"$tmp/plain.pfw")
s_dcw=$(wc -c <"$tmp/out.pfw.gz")
s_gz1=$(wc -c <"$tmp/g1.gz")
s_gz6=$(wc -c <"$tmp/g6.gz")
"$dcw" --check "$tmp/out.pfw.gz" >/dev/null

awk -v n="$events" -v cpus="$cpus" -v opts="$opts" -v cpu="$cpu_dcw" -v load="$load" \
    -v tr="$t_read" -v tf="$t_fmt" -v td="$t_dcw" -v t1="$t_gz1" -v t6="$t_gz6" \
    -v si="$s_in" -v sp="$s_plain" -v sd="$s_dcw" -v s1="$s_gz1" -v s6="$s_gz6" '
BEGIN {
	printf "events           %d (stream %.1f B/event, JSON %.1f B/event)\n", n, si / n, sp / n
	printf "cpus             %d\n", cpus
	printf "%-16s %8s %12s %10s\n", "", "seconds", "Mevents/s", "B/event"
	printf "%-16s %8.3f %12.2f %10s\n", "read stream", tr, n / tr / 1e6, "-"
	printf "%-16s %8.3f %12.2f %10.1f\n", "format (plain)", tf, n / tf / 1e6, sp / n
	printf "%-16s %8.3f %12.2f %10.2f\n", "dc-write " opts, td, n / td / 1e6, sd / n
	printf "%-16s %8.3f %12.2f %10.2f\n", "JSON | gzip -1", t1, n / t1 / 1e6, s1 / n
	printf "%-16s %8.3f %12.2f %10.2f\n", "JSON | gzip -6", t6, n / t6 / 1e6, s6 / n
	if (cpu != "-")
		printf "dc-write CPU      %.3f s = %.2f us/event: %.2f Mevents/s if %d idle cpus\n", cpu, cpu * 1e6 / n, n / (cpu / cpus) / 1e6, cpus
	printf "load average     %s\n", load
	printf "dc-write vs gzip -1: %.2fx the speed, %.2fx the size\n", t1 / td, sd / s1
	printf "dc-write vs gzip -6: %.2fx the speed, %.2fx the size\n", t6 / td, sd / s6
	printf "RESULT | dc-write%s | %d events | %d cpus, load %s | %.2f Mevents/s wall | %s us CPU/event | %.2f B/event | %.2fx gzip-1 speed | %.2fx gzip-6 speed | %.2fx gzip-6 size |\n", \
		(opts == "" ? "" : " " opts), n, cpus, load, n / td / 1e6, (cpu == "-" ? "-" : sprintf("%.2f", cpu * 1e6 / n)), sd / n, t1 / td, t6 / td, sd / s6
}'

#!/bin/sh
# bench/report-bench.sh [EVENTS [FILES]] - dc-report's analysis at scale:
# EVENTS (default 10000000) synthetic IOR-like events spread over FILES
# (default 16) traces, analysed on a local Dask cluster of 1 and then 2
# workers; then a quarter of the set on 1 worker, to show that a worker's
# peak memory does not grow with the total trace size.  Prints a Markdown
# table (paste into bench/RESULTS.md).  Needs DC_BUILD_DIR (default
# ./build) with the test helpers built (make check or make t/helpers/dc-mkstream).
# Not part of `make check`: it takes minutes.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${DC_BUILD_DIR:-$src/build}" && pwd)
events=${1:-10000000}
files=${2:-16}
work=$(mktemp -d /tmp/dc-report-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
per=$((events / files))

i=0
while [ $i -lt "$files" ]; do
	"$build/t/helpers/dc-mkstream" --synthetic "$per" |
		"$build/dc-write/dc-write" "$work/t-$i.pfw.gz"
	i=$((i + 1))
done
bytes=$(cat "$work"/t-*.pfw.gz | wc -c)

# run LABEL WORKERS TRACES...: one analysis; a table row.
run() {
	label=$1 workers=$2
	shift 2
	n=$#
	if ! "$build/dc-report/dc-report" --stats -w "$workers" "$@" -o "$work/r.html" \
		2>"$work/stats"; then
		cat "$work/stats" >&2
		exit 1
	fi
	secs=$(sed -n 's/.* analysed in \([0-9.]*\) s .*/\1/p' "$work/stats")
	ev=$(sed -n 's/.*parts, \([0-9]*\) events.*/\1/p' "$work/stats")
	parts=$(sed -n 's/^dc-report: \([0-9]*\) parts.*/\1/p' "$work/stats")
	mem=$(sed -n 's/.*peak memory \([0-9]*\) MiB.*/\1/p' "$work/stats" | sort -n | tr "\n" " ")
	cpu=$(sed -n 's/.*, CPU \([0-9.]*\) s$/\1/p' "$work/stats" | awk '{ s += $1 } END { print s }')
	rate=$(awk -v e="$ev" -v s="$secs" 'BEGIN { printf "%.0f", e / s / 1000 }')
	crate=$(awk -v e="$ev" -v s="$cpu" 'BEGIN { printf "%.0f", e / s / 1000 }')
	printf '| %s | %s | %d | %s | %d | %s s | %s k events/s | %s s | %s k events/CPU s | %sMiB |\n' \
		"$label" "$ev" "$n" "$parts" "$workers" "$secs" "$rate" "$cpu" "$crate" "$mem"
}

echo "dc-report bench: $events events in $files files, $((bytes >> 20)) MiB compressed," \
	"$(nproc) cpus, load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| what | events | files | tasks | workers | analysis (wall) | rate | workers' CPU | rate per CPU second | peak memory per worker |"
echo "|---|---|---|---|---|---|---|---|---|---|"
run "full set" 1 "$work"/t-*.pfw.gz
run "full set" 2 "$work"/t-*.pfw.gz
quarter=$(ls "$work"/t-*.pfw.gz | head -n $((files / 4)))
# shellcheck disable=SC2086
run "a quarter of it" 1 $quarter

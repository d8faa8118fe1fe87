#!/bin/sh
# aggregate-bench.sh - dc-aggregate's peak memory does not grow with the
# stream: it is bounded by what is open (calls, processes, fds) and the
# paths named, never by the number of events or by time (issue 10).
#
# The input is `dc-mkstream --nested N`: a stream as the collector writes
# it (per-thread entry numbers, parents, no ids), 8 threads of 4
# processes, each thread under one call open until its process exits,
# POSIX open/write/close with the system call each made nested under it,
# 10,000 distinct paths, a process replaced every 100,000 events.  What
# is open at any moment is the same at every length, so the peak RSS
# should be too: the result is the peak at each length and its ratio to
# the shortest's (1.00 = constant), with the time per event.
#
# Usage: bench/aggregate-bench.sh [EVENTS...]   (default 1000000 3000000
# 10000000).  Environment: DC_BUILD_DIR (where dc-aggregate/ and
# t/helpers/ are built, default .), RUNS (runs per length, the median is
# kept, default 3).  Lengths are interleaved run by run, so a change in
# the machine's load touches them all alike.
set -eu

build=${DC_BUILD_DIR:-.}
runs=${RUNS:-3}
agg=$build/dc-aggregate/dc-aggregate
mk=$build/t/helpers/dc-mkstream
for p in "$agg" "$mk"; do
	[ -x "$p" ] || { echo "aggregate-bench: $p not built (make; make t/helpers/dc-mkstream)" >&2; exit 1; }
done
[ $# -gt 0 ] || set -- 1000000 3000000 10000000

python3 - "$agg" "$mk" "$runs" "$@" <<'PY'
import os, subprocess, sys, time

agg, mk, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
lengths = [int(n) for n in sys.argv[4:]]

def one(n):
    """Peak RSS (KiB) and seconds of dc-aggregate on a stream of n events
    piped from dc-mkstream; its output is thrown away."""
    gen = subprocess.Popen([mk, "--nested", str(n)], stdout=subprocess.PIPE)
    t0 = time.monotonic()
    a = subprocess.Popen([agg], stdin=gen.stdout, stdout=subprocess.DEVNULL)
    gen.stdout.close()
    _, status, ru = os.wait4(a.pid, 0)
    secs = time.monotonic() - t0
    a.returncode = os.waitstatus_to_exitcode(status)
    if gen.wait() != 0 or a.returncode != 0:
        sys.exit("aggregate-bench: dc-mkstream or dc-aggregate failed")
    return ru.ru_maxrss, secs

res = {n: [] for n in lengths}
for r in range(runs):
    for n in lengths:
        res[n].append(one(n))

def median(v):
    v = sorted(v)
    return v[len(v) // 2]

load = os.getloadavg()[0]
base = median([m for m, _ in res[lengths[0]]])
print("| events | peak RSS (median of %d) | vs %d events | ns per event |" % (runs, lengths[0]))
print("|---|---|---|---|")
for n in lengths:
    rss = median([m for m, _ in res[n]])
    ns = median([s for _, s in res[n]]) * 1e9 / n
    print("| %d | %.1f MiB | %.2fx | %.0f |" % (n, rss / 1024, rss / base, ns))
print()
print("load average at the end: %.1f" % load)
PY

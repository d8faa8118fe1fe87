#!/bin/sh
# bench/kernel-ab.sh - A/B of dc-collect builds on the kernel layers'
# programs, by their own time (kernel.bpf_stats_enabled): how sessions 13
# and 14 measured each change to them against its parent.
#
#   kernel-ab.sh ROUNDS NAME=DC-COLLECT... >raw.txt
#   kernel-ab.sh --summary raw.txt [BASE]
#
# Each round runs the floor (bench/dc-floor: the empty programs on the
# same tracepoints) and each dc-collect given, on direct 4 KiB reads
# (16,384: the programs back to back, warm) and on 64 KiB buffered
# reads of a cold 256 MiB file (each program rarely: cold caches), on a
# loop device backed by memory, with the block, page cache and faults
# layers (AB_LAYERS).  The configurations are rotated each round and
# reversed every other round, so none follows the same one more often
# (a collector's run slows the next until its dc-collect-undo child is
# done: each run waits for it).  A DC-COLLECT may be a script that execs
# one with options.  Raw lines on stdout: "round config workload
# program runs ns_per_run".
#
# --summary prints, per workload and program, each configuration's
# median ns per run over the rounds, its ratio to the floor (the median
# of the empty tp_btf programs' mean) and to the empty program on its
# own tracepoint; with BASE, each other configuration's ns over BASE's
# in the same round: the median, and in how many rounds it was lower.
# The same binary against itself gives the noise: medians of the
# per-round ratios 0.95-1.03, and 0.86 for the rarest program (8 rounds,
# this 2-core VM, busy; bench/RESULTS.md, session 14).
#
# AB_MEASURE=cpu measures instead what each configuration adds to the
# CPU time of a workload with no device: bench/kwork.c's 4 KiB buffered
# reads and mapped pages of a sparse file's holes (16,384; a readahead
# and a page, or a fault and a page, each), on the last CPU, everything
# else on the others (bench/RESULTS.md, session 16: the floor's addition
# steady there, where the loop device's I/O spreads it); and, where the
# kernel's unbound workers can be put on that CPU too, its O_DIRECT
# 4 KiB reads of the loop device (device-direct: a bio, its request's
# insertion, issue and completion each, and the device's work) and its
# buffered ones (device-buffered: a readahead and a page too), and the
# direct reads again run beside the collector, not traced by it
# (device-direct-others: what a process not selected pays).  The rounds add
# an untraced run; raw lines "round config workload cpu 1 ns" (ns: all
# the CPU time on the workload's CPU per iteration).  --summary then
# prints what each configuration adds to the untraced runs, by the
# minimum, the lower quartile and the median of each one's runs over
# the rounds (this VM's host takes its CPU in bursts, which only ever
# lengthen a run: the lower quantiles are the least touched), each over
# the floor's, and with BASE the median of the per-round differences
# from BASE.  One pair of runs differs by 100-300
# ns here: 16 rounds or more to see 30.
#
# DC_BUILD_DIR names the build (its dc-gen, dc-sign, dc-aggregate,
# dc-write, dc-floor and t/helpers/workload); run as root, alone (BPF
# tests and benchmarks disturb each other).
set -eu

TP_OF='{"dc_bio_queue_btf": "block_bio_queue", "dc_block_complete_btf": "block_rq_complete",
 "dc_block_issue_btf": "block_rq_issue", "dc_block_split_btf": "block_split",
 "dc_bio_backmerge_btf": "block_bio_backmerge", "dc_bio_frontmerge_btf": "block_bio_frontmerge",
 "dc_pc_add_btf": "mm_filemap_add_to_page_cache", "dc_pc_delete_btf": "mm_filemap_delete_from_page_cache",
 "dc_fault_btf": "mm_filemap_fault", "dc_dirty_btf": "writeback_dirty_folio",
 "dc_ra_sync_btf": "page_cache_sync_ra", "dc_ra_async_btf": "page_cache_async_ra"}'

if [ "${1:-}" = --summary ]; then
	[ $# -ge 2 ] || { echo "usage: kernel-ab.sh --summary RAW [BASE]" >&2; exit 2; }
	exec python3 -c '
import collections, json, statistics as st, sys
tp_of = json.loads(sys.argv[1])
rows = [l.split() for l in open(sys.argv[2]) if l[:1].isdigit()]
base = sys.argv[3] if len(sys.argv) > 3 else None
cpu = collections.defaultdict(dict)      # (wl, cfg) -> round -> ns
for r, cfg, wl, prog, n, v in rows:
    if prog == "cpu":
        cpu[(wl, cfg)][r] = float(v)
rows = [x for x in rows if x[3] != "cpu"]
for wl in sorted({k[0] for k in cpu}):
    unt = cpu.get((wl, "untraced"), {})
    add = dict((c, dict((r, v - unt[r]) for r, v in cpu[(w, c)].items() if r in unt))
               for (w, c) in cpu if w == wl and c != "untraced")
    # Bursts on the host only ever lengthen a run: the lower quantiles
    # of the runs of each configuration are the least touched by them.
    def stats(v):  # min, lower quartile, median of runs
        v = sorted(v)
        return v[0], v[(len(v) - 1) // 4], st.median(v)
    us = stats(unt.values())
    lows = dict((c, [a - b for a, b in zip(stats(cpu[(wl, c)].values()), us)]) for c in add)
    fl = lows.get("floor", [float("nan")] * 3)
    print("## %s: CPU ns per iteration, untraced %.0f / %.0f / %.0f (min / q25 / median of %d rounds)" %
          (wl, us[0], us[1], us[2], len(unt)))
    print("| configuration | adds: min / q25 / median | x the floor, each | - %s per round: median (rounds lower) |" % (base or "BASE"))
    print("|---|---|---|---|")
    for c in sorted(add, key=lambda c: (c != "floor", c != base, c)):
        m = lows[c]
        d = [v - add[base][r] for r, v in add[c].items() if base in add and r in add[base]]
        diff = "%+.0f (%d of %d)" % (st.median(d), sum(x < 0 for x in d), len(d)) if d and c != base else "-"
        print("| %s | %+.0f / %+.0f / %+.0f | %s | %s |" % (c, m[0], m[1], m[2],
              " / ".join("%.2fx" % (a / b) for a, b in zip(m, fl)), diff))
    print()
ns = collections.defaultdict(dict)       # (wl, prog, cfg) -> round -> ns
runs = collections.defaultdict(list)
floor = collections.defaultdict(dict)    # wl -> round -> ns
tpfloor = collections.defaultdict(dict)  # (wl, tracepoint) -> round -> ns
for r, cfg, wl, prog, n, v in rows:
    if cfg == "floor":
        if prog == "floor_tp_btf":
            floor[wl][r] = float(v)
        elif prog.startswith("floor_tp_btf:"):
            tpfloor[(wl, prog.split(":")[1])][r] = float(v)
        continue
    ns[(wl, prog, cfg)][r] = float(v)
    runs[(wl, prog, cfg)].append(int(n))
cfgs = sorted({k[2] for k in ns}, key=lambda c: (c != base, c))
for wl in sorted({k[0] for k in ns}):
    fl = st.median(floor[wl].values()) if floor[wl] else float("nan")
    print("## %s: the floor (empty tp_btf programs) %.1f ns, median of %d rounds" % (wl, fl, len(floor[wl])))
    print("| program | " + " | ".join("%s ns (x floor, x its own empty program, runs)" % c for c in cfgs) +
          "".join(" | %s / %s (rounds lower)" % (c, base) for c in cfgs if base and c != base) + " |")
    print("|---" * (1 + len(cfgs) + (len(cfgs) - 1 if base else 0)) + "|")
    for prog in sorted({k[1] for k in ns if k[0] == wl}):
        cells = []
        for c in cfgs:
            v = ns.get((wl, prog, c))
            if not v:
                cells.append("-")
                continue
            m = st.median(v.values())
            own = tpfloor.get((wl, tp_of.get(prog, "")))
            own = ", %.2fx of %.0f" % (m / st.median(own.values()), st.median(own.values())) if own else ""
            cells.append("%.1f (%.2fx%s, %d)" % (m, m / fl, own, st.median(runs[(wl, prog, c)])))
        for c in cfgs:
            if not base or c == base:
                continue
            a, b = ns.get((wl, prog, base), {}), ns.get((wl, prog, c), {})
            q = [b[r] / a[r] for r in a if r in b]
            cells.append("%.3f (%d of %d)" % (st.median(q), sum(x < 1 for x in q), len(q)) if q else "-")
        print("| %s | %s |" % (prog, " | ".join(cells)))
    print()' "$TP_OF" "$2" "${3:-}"
fi

[ $# -ge 2 ] || { echo "usage: kernel-ab.sh ROUNDS NAME=DC-COLLECT... | --summary RAW [BASE]" >&2; exit 2; }
build=${DC_BUILD_DIR:?DC_BUILD_DIR names the build directory}
build=$(cd "$build" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
rounds=$1; shift
export DC_DATA_DIR="$src/configs"
export DC_CLIENT_LIB="${DC_CLIENT_LIB:-$build/dc-wrap/.libs/libdcclient.so}"
PATH="$build/dc-gen:$build/dc-sign:$build/dc-aggregate:$build/dc-write:$PATH"
W="$build/t/helpers/workload"
FLOOR=$build/bench/dc-floor
[ -x "$FLOOR" ] && [ -x "$W" ] || {
	echo "kernel-ab: build bench/dc-floor and t/helpers/workload first (make check)" >&2
	exit 1
}
. "$src/bench/kernel-common.sh"
kernel_workdir dc-kab
dc-sign --gen-key -k key >/dev/null
kernel_loopdev
dd if=/dev/urandom of=mnt/R bs=1M count=256 2>/dev/null && sync
printf 'layers: [%s]\n' "${AB_LAYERS:-block, pagecache, faults}" >kern.yaml
dc-gen kern.yaml >kern.json 2>/dev/null
dc-sign -k key -o kern.sig kern.json
# The floor on the same tracepoints, attached as dc-collect attaches
# (kernel-bench.sh's rule; this assumes tp_btf, which --check-kernel says).
fopts=$(python3 -c '
import json
fs = [p["function"] for p in json.load(open("kern.json"))["probes"] if p["kind"] == "tracepoint"]
fs += ["block:block_split", "block:block_bio_backmerge", "block:block_bio_frontmerge"]
for t in fs:
    tp_btf = t.split(":")[0] in ("block", "readahead") or t.startswith("filemap:mm_filemap_") or t == "writeback:writeback_dirty_folio"
    print("-b %s" % t.split(":")[1] if tp_btf else "-t %s" % t, end=" ")')
PROGS_DUMP='cat /proc/$PPID/fdinfo/* 2>/dev/null | sed -n "s/^prog_id:[^0-9]*//p" >ids; bpftool prog show --json >progs.json'
DIRECT="dd if=mnt/R of=/dev/null iflag=direct bs=4k count=16384"
COLD="$W read mnt/R"

table() { # table ROUND CFG WL: the collector's programs' lines
	python3 -c '
import json, sys
ids = set(int(x) for x in open("ids").read().split())
for p in json.load(open("progs.json")):
    if p["id"] in ids and p["name"].startswith("dc_") and p.get("run_cnt"):
        print(sys.argv[1], sys.argv[2], sys.argv[3], p["name"], p["run_cnt"],
              "%.1f" % (p["run_time_ns"] / p["run_cnt"]))' "$@"
}
settle() { # wait for the last collector's dc-collect-undo child
	sleep 0.5
	s_n=0
	while pgrep -x dc-collect-undo >/dev/null && [ $s_n -lt 300 ]; do
		sleep 0.2
		s_n=$((s_n + 1))
	done
}
one() { # one ROUND CFG BIN WL CMD
	o_r=$1 o_cfg=$2 o_bin=$3 o_wl=$4; shift 4
	dd if=mnt/R iflag=nocache count=0 2>/dev/null
	if [ "$o_cfg" = floor ]; then
		$FLOOR $fopts -- sh -c "$*" 2>&1 >/dev/null | sed -n "s/^floor: //p" |
			sed -n "s/^\([a-z_:]*\) runs=\([0-9]*\) ns_per_run=\([0-9.]*\)/$o_r floor $o_wl floor_\1 \2 \3/p"
		return 0
	fi
	rm -f ids progs.json
	"$o_bin" -k key kern.sig -- sh -c "$* >/dev/null 2>&1; $PROGS_DUMP" 2>collect.err |
		dc-aggregate | dc-write --force out.pfw.gz
	grep -q " 0 dropped" collect.err ||
		echo "kernel-ab: $o_cfg, round $o_r: $(tail -n 1 collect.err)" >&2
	table "$o_r" "$o_cfg" "$o_wl"
	settle
}

# AB_MEASURE=cpu: one run's CPU time per iteration on the last CPU.
KCPU=$(( $(nproc) - 1 ))
PIN="taskset -c 0-$((KCPU > 0 ? KCPU - 1 : 0))"
# cpu_row ROUND CFG WL [ERR]: the raw line of kwork's m.out; with ERR,
# the collector's messages, where a drop is said.
cpu_row() {
	if [ $# -gt 3 ] && ! grep -q " 0 dropped" "$4"; then
		echo "kernel-ab: $2, round $1: $(tail -n 1 "$4")" >&2
	fi
	sed -n "s/.*host_ns_per_iteration=\([0-9.]*\).*/$1 $2 $3 cpu 1 \1/p" m.out
}
one_cpu() { # one_cpu ROUND CFG BIN WL KWORK-ARGS...
	c_r=$1 c_cfg=$2 c_bin=$3 c_wl=$4; shift 4
	dd if=mnt/H iflag=nocache count=0 2>/dev/null
	case $c_cfg in
	untraced) KWORK_CPU=$KCPU ./kwork "$@" 2>m.out ;;
	floor) KWORK_CPU=$KCPU $PIN $FLOOR $fopts -- ./kwork "$@" 2>m.out ;;
	*)	KWORK_CPU=$KCPU $PIN "$c_bin" -k key kern.sig -- ./kwork "$@" 2>m.out |
			$PIN dc-aggregate | $PIN dc-write --force out.pfw.gz
		cpu_row "$c_r" "$c_cfg" "$c_wl" m.out
		return ;;
	esac
	cpu_row "$c_r" "$c_cfg" "$c_wl"
}
# The same with the workload not traced: run beside a collector that
# traces a command blocked on a FIFO until it is done (nothing periodic:
# a loop of sleeps on the other CPU slowed the direct reads 2.5x at
# times, with or without a collector).  The floor's programs run for
# every process anyway.
one_cpu_others() { # one_cpu_others ROUND CFG BIN WL KWORK-ARGS...
	case $2 in
	untraced|floor) one_cpu "$@"; return ;;
	esac
	o_r=$1 o_cfg=$2 o_bin=$3 o_wl=$4; shift 4
	dd if=mnt/H iflag=nocache count=0 2>/dev/null
	rm -f ready fifo && mkfifo fifo
	{ $PIN "$o_bin" -k key --ready-file ready kern.sig -- \
		sh -c 'read x <fifo' 2>c.err |
		$PIN dc-aggregate | $PIN dc-write --force out.pfw.gz; } &
	o_n=0
	while [ ! -s ready ] && [ $o_n -lt 300 ]; do sleep 0.1; o_n=$((o_n + 1)); done
	KWORK_CPU=$KCPU ./kwork "$@" 2>m.out
	echo done >fifo
	wait
	cpu_row "$o_r" "$o_cfg" "$o_wl" c.err
}
# Both kinds of round: each configuration's runs on the workloads.
one_round() { # one_round ROUND CFG BIN
	if [ "${AB_MEASURE:-stats}" = cpu ]; then
		one_cpu "$1" "$2" "$3" holes-read rread mnt/H 16384
		one_cpu "$1" "$2" "$3" holes-mapped mtouch mnt/H 16384
		[ -z "$wq_was" ] || {
			one_cpu "$1" "$2" "$3" device-direct dread mnt/R 16384
			one_cpu "$1" "$2" "$3" device-buffered rread mnt/R 16384
			one_cpu_others "$1" "$2" "$3" device-direct-others dread mnt/R 16384
		}
	else
		one "$1" "$2" "$3" direct "$DIRECT"
		one "$1" "$2" "$3" cold "$COLD"
	fi
}

stats_was=$(sysctl -n kernel.bpf_stats_enabled)
if [ "${AB_MEASURE:-stats}" = cpu ]; then
	[ "$KCPU" -ge 1 ] || { echo "kernel-ab: AB_MEASURE=cpu needs 2 CPUs" >&2; exit 1; }
	kernel_holes
	# The loop device's work on the workload's CPU too, where the
	# kernel lets its unbound workers be put: the device row.
	if [ -w "$WQMASK" ]; then
		wq_was=$(cat "$WQMASK")
		printf '%x\n' $((1 << KCPU)) >"$WQMASK"
	fi
	set -- untraced=untraced floor=floor "$@"
else
	sysctl -q kernel.bpf_stats_enabled=1
	set -- floor=floor "$@"
fi
kernel_rounds "$rounds" one_round "$@"

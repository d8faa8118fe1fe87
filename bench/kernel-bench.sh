#!/bin/sh
# bench/kernel-bench.sh - what kernel events cost, against the floor, in
# one run (called by bench/run; DC_BUILD_DIR names the build).
#
# Each workload runs untraced; under the floor (bench/dc-floor: programs
# that return at once on the same tracepoints); under bpftrace counting
# the same tracepoints (when installed); and traced by datacrumbs, full
# events through dc-collect | dc-aggregate | dc-write.  The workload
# reports its own loop's wall time and its thread's CPU time per
# iteration; BPF programs on its system calls run on its CPU time, which
# a loaded machine's waits for a CPU do not inflate, so the ratios use
# it.  Configurations are interleaved, one run of each per round, and
# each figure is the median of BENCH_RUNS (5) rounds.
#
#   syscalls    N x write(2) of 1 byte to /dev/null through syscall(2)
#               (libc's write() may carry other tracers' uprobes)
#   unselected  the same loop, not selected, while a traced one runs
#   kernel      bench/kwork.c's workloads on a 256 MiB file on a loop
#               device backed by memory, so the disk's noise is not in
#               them, with the block, pagecache and faults layers (the
#               floor attached as dc-collect attaches: tp_btf for the
#               block programs where the kernel has it): 4 KiB buffered
#               reads of the file cold without readahead, 4 KiB O_DIRECT
#               reads, and its pages mapped and read cold, a fault each:
#               1 to 5 events an iteration (64 KiB reads with readahead
#               make one in 3, too few to measure).  A request completes
#               in a kernel worker or an interrupt, so these rows
#               measure all the CPU time spent on the workload's CPU
#               during its loop (kwork's soaker), the collector kept
#               off that CPU.  And the same buffered and mapped reads of
#               a sparse file's holes: the page cache and faults without
#               a device (ext4 fills a hole's page itself), all of it in
#               the workload's thread, 2.4-3.3 us an iteration where the
#               device's take 11-12 and spread more: the floor's few
#               hundred ns show there
#
# Then one more run of each with kernel.bpf_stats_enabled for the
# programs' own ns per run (restored after), with two more: the system
# call programs while only the unselected loop calls, and the kernel
# layers' programs on direct 4 KiB reads, which run them back to back
# (warm) where the cold file's reads run each rarely (cold caches); and
# the floor again on those, each run writing a record into a ring
# (dc-floor -R): what a record costs any program.
# KBENCH_STATS_ONLY=1 runs only those; KBENCH_KERNEL_ONLY=1 only the
# kernel layers' rows, KBENCH_ROWS="MODE/FILE..." only those of them
# (rread/R dread/R mtouch/R rread/H mtouch/H: R the file, H the holes);
# KBENCH_VERBOSE=1 prints each run's figures (wall, then CPU) on stderr.
set -eu

build=${DC_BUILD_DIR:?DC_BUILD_DIR names the build directory}
build=$(cd "$build" && pwd) # the runs happen in a work directory
src=$(cd "$(dirname "$0")/.." && pwd)
PATH="$build/dc-gen:$build/dc-sign:$build/dc-collect:$build/dc-aggregate:$build/dc-write:$build/bench:$PATH"
export DC_DATA_DIR="$src/configs"
# The client library the collector preloads by default (the fast path).
export DC_CLIENT_LIB="${DC_CLIENT_LIB:-$build/dc-wrap/.libs/libdcclient.so}"
W="$build/t/helpers/workload"
N=${BENCH_CALLS:-1000000}
RUNS=${BENCH_RUNS:-5}
FLOOR=$build/bench/dc-floor
. "$src/bench/kernel-common.sh"
kernel_workdir dc-kbench
[ -x "$FLOOR" ] && [ -x "$W" ] || {
	echo "kernel-bench: build bench/dc-floor and t/helpers/workload first (make check)" >&2
	exit 1
}
dc-sign --gen-key -k key >/dev/null
# The floor enters system calls the way the collector does: through
# tp_btf where the kernel has it (dc-collect --check-kernel loads it).
SYSFLOOR="-r sys_enter -r sys_exit"
if $FLOOR -b sys_enter -r sys_exit -- true 2>/dev/null; then
	SYSFLOOR="-b sys_enter -r sys_exit"
fi

spec() { # spec NAME YAML
	printf '%s\n' "$2" >"$1.yaml"
	dc-gen "$1.yaml" >"$1.json" 2>/dev/null
	dc-sign -k key -o "$1.sig" "$1.json"
}

# The workload's figure from its report: KEY is ns_per_iteration or
# cpu_ns_per_iteration; the report is the last such line on stdin.
field() {
	sed -n "s/.*[^_a-z]$1=\([0-9.]*\).*/\1/p; s/^$1=\([0-9.]*\).*/\1/p" | tail -n 1
}

# interleave CFG...: run each configuration's command (the function
# run_CFG, which prints the workload's report) once per round, RUNS
# rounds, so a change in the machine's load falls on all of them alike;
# med CFG then prints "WALL CPU", the medians of its runs.
interleave() {
	for cfg in "$@"; do : >"$cfg.runs"; done
	[ -z "${KBENCH_STATS_ONLY:-}" ] || return 0
	r=0
	while [ $r -lt "$RUNS" ]; do
		# Each round begins with the next configuration: none always
		# follows the same one (the trace the one before wrote).
		i=0
		for cfg in "$@" "$@"; do
			i=$((i + 1))
			[ $i -gt $((r % $#)) ] && [ $i -le $((r % $# + $#)) ] ||
				continue
			"run_$cfg" >m.out 2>&1 || { cat m.out >&2; return 1; }
			printf '%s %s\n' "$(field ns_per_iteration <m.out)" \
				"$(field "$KFIELD" <m.out)" >>"$cfg.runs"
			[ -z "${KBENCH_VERBOSE:-}" ] ||
				echo "kernel-bench: $cfg $(tail -n 1 "$cfg.runs")" >&2
		done
		r=$((r + 1))
	done
}
med() {
	if [ ! -s "$1.runs" ]; then echo "0 0"; return 0; fi
	mid=$(( ($(wc -l <"$1.runs") + 1) / 2 ))
	w=$(cut -d' ' -f1 "$1.runs" | sort -n | sed -n "${mid}p")
	c=$(cut -d' ' -f2 "$1.runs" | sort -n | sed -n "${mid}p")
	echo "$w $c"
}
# paired CFG BASE: "WALL CPU" of CFG as BASE's medians plus the medians
# of CFG's differences from BASE round by round (the runs of a round are
# minutes closer than the rounds: what the machine does meanwhile falls
# on both alike), so that row's adds are those medians.
paired() {
	[ -s "$1.runs" ] && [ -s "$2.runs" ] || { echo "0 0"; return 0; }
	paste -d' ' "$1.runs" "$2.runs" | awk -v base="$(med "$2")" '
		{ w[NR] = $1 - $3; c[NR] = $2 - $4 }
		function mid(a, n,   i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			return a[int((n + 1) / 2)]
		}
		END { split(base, b, " ")
		      printf "%.1f %.1f\n", b[1] + mid(w, NR), b[2] + mid(c, NR) }'
}

# PIN: a command that puts what it runs on the CPUs the workload leaves
# (the kernel layers' rows); KFIELD: the workload's figure; TRACE: where
# the traced runs' trace goes (the kernel layers' rows: in memory, so no
# run's trace is written back to disk during the next run's loop).
PIN= KFIELD=cpu_ns_per_iteration TRACE=out.pfw.gz
untraced() { DC_WORKLOAD_REPORT=1 "$@" 2>&1; }
floor() { # floor TPS -- CMD...: TPS as dc-floor options
	f_opts=$1; shift 2
	DC_WORKLOAD_REPORT=1 $PIN $FLOOR $f_opts -- "$@" 2>&1
}
traced() { # traced SPEC CMD...: the whole pipeline
	t_spec=$1; shift
	{ DC_WORKLOAD_REPORT=1 $PIN dc-collect -k key "$t_spec.sig" -- "$@" 2>collect.err; } |
		$PIN dc-aggregate | $PIN dc-write --force "$TRACE"
	cat collect.err
	grep -q " 0 dropped" collect.err || { echo "kernel-bench: events dropped" >&2; return 1; }
}
have_bpftrace() { command -v bpftrace >/dev/null 2>&1; }
bt() { # bt PROGRAM CMD...
	b_prog=$1; shift
	DC_WORKLOAD_REPORT=1 $PIN bpftrace -e "$b_prog" -c "$*" 2>&1
}

# row NAME BASE FLOOR PEER DC: "WALL CPU" pairs; ratios of added CPU.
row() {
	[ -z "${KBENCH_STATS_ONLY:-}" ] || return 0
	echo "$2 $3 $4 $5" | awk -v n="$1" '{
		bw = $1; bc = $2; fw = $3; fc = $4; pw = $5; pc = $6; dw = $7; dc = $8
		fa = fc - bc; da = dc - bc; pa = pc - bc
		peer = (pc == "" || pc == "-") ? "-" : sprintf("%+.0f ns", pa)
		pr = (pc == "" || pc == "-" || pa <= 0) ? "-" : sprintf("%.2fx", da / pa)
		printf "| %s | %.0f ns | %+.0f ns | %s | %+.0f ns | %.2fx | %s | %.0f / %.0f / %.0f ns |\n",
			n, bc, fa, peer, da, (fa > 0 ? da / fa : 0), pr, bw, fw, dw }'
}

# ---- system calls ----
spec sys 'layers: [syscalls]'
if [ -z "${KBENCH_KERNEL_ONLY:-}" ]; then
echo "| workload (CPU time per iteration) | untraced | floor adds | bpftrace adds | datacrumbs adds | datacrumbs / floor | datacrumbs / bpftrace | wall: untraced / floor / datacrumbs |"
echo "|---|---|---|---|---|---|---|---|"
BT_SYS='tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @e = count(); } tracepoint:raw_syscalls:sys_exit /pid == cpid/ { @x = count(); }'
run_sys_base() { untraced "$W" syswrites "$N"; }
run_sys_floor() { floor "$SYSFLOOR" -- "$W" syswrites "$N"; }
run_sys_bt() { bt "$BT_SYS" "$W" syswrites "$N"; }
run_sys_dc() { traced sys "$W" syswrites "$N"; }
peer="- -"
if have_bpftrace; then
	interleave sys_base sys_floor sys_bt sys_dc
	peer=$(med sys_bt)
else
	interleave sys_base sys_floor sys_dc
fi
row "$N x write(2) 1 byte to /dev/null, syscalls layer" "$(med sys_base)" \
	"$(med sys_floor)" "$peer" "$(med sys_dc)"

# ---- an unselected process beside a traced one ----
# The traced side loops until told to stop; the unselected loop is
# measured while it runs.  It starts once the traced command has (the
# collector starts it when its programs are attached: loading them can
# take longer than the loop, which a fixed pause let run untraced).
started() { # wait until the traced side's command has made the file ready
	while [ ! -e ready ]; do
		kill -0 $! 2>/dev/null || { echo "kernel-bench: the collector beside stopped" >&2; return 1; }
		sleep 0.05
	done
}
beside() { # beside MODE: the unselected loop's report, with MODE beside it
	rm -f stop ready
	case $1 in
	idle)	{ dc-collect -k key sys.sig -- sh -c \
			": >ready; while [ ! -e stop ]; do sleep 0.1; done" \
			2>beside.err | dc-aggregate | dc-write --force beside.pfw.gz; } &
		started ;;
	dc)	{ dc-collect -k key sys.sig -- sh -c \
			": >ready; while [ ! -e stop ]; do \"$W\" syswrites 100000; done" \
			2>beside.err | dc-aggregate | dc-write --force beside.pfw.gz; } &
		started ;;
	esac
	DC_WORKLOAD_REPORT=1 "$W" syswrites "$N" 2>&1
	touch stop
	wait
}
run_bes_none() { beside none; }
run_bes_idle() { beside idle; }
run_bes_dc() { beside dc; }
interleave bes_none sys_floor bes_idle bes_dc
row "the same loop, not selected (the collector tracing another, idle process)" \
	"$(med bes_none)" "$(med sys_floor)" "- -" "$(med bes_idle)"
row "the same loop, not selected, a traced loop beside it (sharing the 2 CPUs)" \
	"$(med bes_none)" "$(med sys_floor)" "- -" "$(med bes_dc)"

fi

# ---- block, page cache, faults: what they cost the CPU they run on ----
# A block request completes in a kernel worker or an interrupt, not in
# the thread that asked for it, so that thread's CPU time misses it:
# these rows measure everything that ran on the workload's CPU during its
# loop (bench/kwork.c: a soaker thread of lowest priority beside it
# counts the time it did not get).  The workload and the kernel's unbound
# workers (the loop device's) run on the last CPU, the collector, the
# floor's loader and bpftrace on the others.
drop() { dd if="$kw_file" iflag=nocache count=0 2>/dev/null; }
kernel_rows() {
	spec kern 'layers: [block, pagecache, faults]'
	tps=$(python3 -c '
import json
fs = [p["function"] for p in json.load(open("kern.json"))["probes"] if p["kind"] == "tracepoint"]
fs += ["block:block_split", "block:block_bio_backmerge", "block:block_bio_frontmerge"]
print(" ".join(fs))')
	# The floor attaches the way dc-collect does: through tp_btf where
	# it says so, for the tracepoints klayers.c has tp_btf programs for
	# (block, page cache, file faults, dirtied folios, readahead), the
	# rest as classic ones.
	KATTACH="classic tracepoints"
	if dc-collect --check-kernel 2>/dev/null | grep -q "tracepoints: tp_btf"; then
		KATTACH="tp_btf where dc-collect has it, classic for the rest"
	fi
	fopts=$(for t in $tps; do
		case "$KATTACH $t" in
		tp_btf*" block:"* | tp_btf*" filemap:mm_filemap_"* | \
		tp_btf*" writeback:writeback_dirty_folio" | tp_btf*" readahead:"*)
			printf -- '-b %s ' "${t#*:}" ;;
		*) printf -- '-t %s ' "$t" ;;
		esac
	done)
	probes=$(for t in $tps; do printf 'tracepoint:%s,' "$t"; done)
	KCPU=$(( $(nproc) - 1 ))
	if [ "$KCPU" -lt 1 ] || [ ! -w "$WQMASK" ]; then
		echo "| kernel layers: they need 2 CPUs and $WQMASK | | | | | | | |"
		return 0
	fi
	wq_was=$(cat "$WQMASK")
	printf '%x\n' $((1 << KCPU)) >"$WQMASK"
	PIN="taskset -c 0-$((KCPU - 1))" KFIELD=host_ns_per_iteration
	TRACE=$shm/out.pfw.gz
	export KWORK_CPU=$KCPU KWORK_WARM=1024
	for kw in "rread R 16384:16384 x 4 KiB buffered reads of a cold file, POSIX_FADV_RANDOM (no readahead)" \
		  "dread R 16384:16384 x 4 KiB O_DIRECT reads" \
		  "mtouch R 16384:16384 pages of a cold file mapped with MADV_RANDOM, a byte read from each" \
		  "rread H 16384:the same buffered reads of a sparse file's holes (no I/O: the page cache alone)" \
		  "mtouch H 16384:the same mapped pages of a sparse file's holes (no I/O: faults and the page cache)"; do
		kw_what=${kw#*:} kw=${kw%%:*}
		set -- $kw
		kw_mode=$1 kw_file=mnt/$2 kw_n=$3
		case " ${KBENCH_ROWS:-$kw_mode/$2} " in *" $kw_mode/$2 "*) ;; *) continue ;; esac
		# The pages the run before left are dropped first, untraced
		# (kwork drops them too: none left, none counted as events).
		run_k_base() { drop; untraced ./kwork $kw_mode $kw_file $kw_n; }
		run_k_floor() { drop; floor "$fopts" -- ./kwork $kw_mode $kw_file $kw_n; }
		run_k_bt() { drop; bt "${probes%,} { @[probe] = count(); }" ./kwork $kw_mode $kw_file $kw_n; }
		run_k_dc() { drop; traced kern ./kwork $kw_mode $kw_file $kw_n; }
		peer="- -"
		if have_bpftrace; then
			interleave k_base k_floor k_bt k_dc
			peer=
		else
			interleave k_base k_floor k_dc
		fi
		events=0
		[ ! -f "$TRACE" ] || events=$(python3 -c '
import gzip, json, sys
n = 0
for line in gzip.open(sys.argv[2], "rt"):
    line = line.strip().rstrip(",")
    if line.startswith("{") and json.loads(line).get("cat") in ("block", "pagecache", "faults"):
        n += 1
print("%.1f" % (n / float(sys.argv[1])))' "$((kw_n + KWORK_WARM))" "$TRACE")
		[ "$peer" = "- -" ] || peer=$(paired k_bt k_base)
		row "$kw_what ($events events each)" "$(med k_base)" \
			"$(paired k_floor k_base)" "$peer" "$(paired k_dc k_base)"
	done
	printf '%s\n' "$wq_was" >"$WQMASK"
	PIN= KFIELD=cpu_ns_per_iteration TRACE=out.pfw.gz
	unset KWORK_CPU KWORK_WARM
}
if losetup -f >/dev/null 2>&1 && command -v mkfs.ext4 >/dev/null; then
	kernel_loopdev
	dd if=/dev/urandom of=mnt/R bs=1M count=256 2>/dev/null && sync
	kernel_holes
	echo
	echo "The kernel layers (block, pagecache, faults; floor and datacrumbs attached as dc-collect attaches them), on a 256 MiB file on ext4 on a loop device backed by memory: the CPU time everything took on the workload's CPU during its loop, per iteration (bench/kwork.c):"
	echo
	echo "| workload (its CPU's time per iteration) | untraced | floor adds | bpftrace adds | datacrumbs adds | datacrumbs / floor | datacrumbs / bpftrace | wall: untraced / floor / datacrumbs |"
	echo "|---|---|---|---|---|---|---|---|"
	kernel_rows
else
	echo "| kernel layers: no loop device or mkfs.ext4 here | | | | | | | |"
fi

# ---- the programs' own time ----
# progstats SPEC WHAT CMD...: the collector's programs' runs and ns per run,
# read by the traced command itself before the collector detaches them
# (the programs whose fds its parent, the collector, holds), and each
# one's ratio to the empty program's ns per run on the same tracepoints
# (the file floor.ns, from floorstats just before).  WHAT names the run.
PROGS_DUMP='cat /proc/$PPID/fdinfo/* 2>/dev/null | sed -n "s/^prog_id:[^0-9]*//p" >ids; bpftool prog show --json >progs.json'
# The last column compares a tp_btf program with the empty program on its
# own tracepoint (floor.tp, from floorstats), which runs at the same
# moments: a rare program meets the same cold caches as its floor does.
progtable() { # progtable WHAT: the rows, from ids and progs.json
	python3 -c '
import json, sys
what = " (%s)" % sys.argv[1] if sys.argv[1] else ""
floor = float(open("floor.ns").read() or 0) or float("nan")
tpfloor = dict((l.split()[0], float(l.split()[1])) for l in open("floor.tp"))
tp = {"dc_bio_queue_btf": "block_bio_queue", "dc_block_complete_btf": "block_rq_complete",
      "dc_block_issue_btf": "block_rq_issue", "dc_block_split_btf": "block_split",
      "dc_bio_backmerge_btf": "block_bio_backmerge", "dc_bio_frontmerge_btf": "block_bio_frontmerge",
      "dc_pc_add_btf": "mm_filemap_add_to_page_cache",
      "dc_pc_delete_btf": "mm_filemap_delete_from_page_cache",
      "dc_fault_btf": "mm_filemap_fault", "dc_dirty_btf": "writeback_dirty_folio",
      "dc_ra_sync_btf": "page_cache_sync_ra", "dc_ra_async_btf": "page_cache_async_ra"}
ids = set(int(x) for x in open("ids").read().split())
for p in json.load(open("progs.json")):
    if p["id"] in ids and p["name"].startswith("dc_") and p.get("run_cnt"):
        ns = p["run_time_ns"] / p["run_cnt"]
        own = tpfloor.get(tp.get(p["name"]))
        own = "%.2fx of %.1f" % (ns / own, own) if own else "-"
        print("| datacrumbs %s%s | %d | %.1f | %.2fx | %s |" % (p["name"], what, p["run_cnt"], ns, ns / floor, own))' "$1" | sort
}
progstats() {
	p_spec=$1 p_what=$2; shift 2
	dc-collect -k key "$p_spec.sig" -- sh -c "$*; $PROGS_DUMP" 2>/dev/null |
		dc-aggregate | dc-write --force stats.pfw.gz
	progtable "$p_what"
}
# The system call programs while only an unselected loop makes calls:
# the collector traces an idle process, which reads the figures when the
# loop is done.
progstats_unselected() {
	rm -f stop ready
	{ dc-collect -k key sys.sig -- sh -c \
		": >ready; while [ ! -e stop ]; do sleep 0.1; done; $PROGS_DUMP" 2>/dev/null |
		dc-aggregate | dc-write --force stats.pfw.gz; } &
	started
	"$W" syswrites "$N" >/dev/null 2>&1
	touch stop
	wait
	progtable "not selected" | grep " dc_sys_"
}
floorstats() { # floorstats WHAT TPS -- CMD...: also floor.ns, the mean
	f_what=$1 f_opts=$2; shift 3
	$FLOOR $f_opts -- "$@" 2>&1 | sed -n "s/^floor: //p" >floor.runs
	sed -n "s/^\([a-z_]*\) runs=\([0-9]*\) ns_per_run=\([0-9.]*\)/| floor ($f_what: \1) | \2 | \3 | 1.00x | - |/p" floor.runs
	sed -n "s/^tp_btf:\([a-z_]*\) runs=[0-9]* ns_per_run=\([0-9.]*\)/\1 \2/p" floor.runs >floor.tp
	# Over all runs, whatever kind of program made them.
	sed -n "s/^[a-z_]* runs=\([0-9]*\) ns_per_run=\([0-9.]*\)/\1 \2/p" floor.runs |
		awk '{ s += $1 * $2; n += $1 } END { if (n) printf "%.1f", s / n }' >floor.ns
}
# recfloor WHAT TPS -- CMD...: the empty programs again, each run writing
# a record of 8, then 104 bytes (dc-collect's full kernel-layer record)
# into a ring that dc-floor reads (dc-floor -R): what a record costs
# before anything is put in it, against the empty program on the same
# tracepoint (floor.runs, from floorstats just before); the tracepoints
# with 100 runs or more.
recfloor() {
	r_what=$1 r_opts=$2; shift 3
	for r_bytes in 8 104; do
		$FLOOR -R $r_bytes $r_opts -- "$@" 2>&1 | sed -n "s/^floor: //p" |
			awk -v b="$r_bytes" -v w="$r_what" -v fl="$(cat floor.ns)" '
				{ n = $1; sub(/^tp_btf:/, "", n); r = $2; sub(/^runs=/, "", r)
				  ns = $3; sub(/^ns_per_run=/, "", ns) }
				$1 == "tp_btf" || r == "" { next }
				FILENAME == "floor.runs" { empty[n] = ns; next }
				r + 0 >= 100 {
					own = (n in empty) ? sprintf("%.2fx of %.1f", ns / empty[n], empty[n]) : "-"
					printf "| floor + a %d-byte record (%s: %s) | %d | %.1f | %.2fx | %s |\n", b, w, n, r, ns, ns / fl, own
				}' floor.runs -
	done
}
[ -z "${KBENCH_KERNEL_ONLY:-}" ] || exit 0
stats_was=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -q kernel.bpf_stats_enabled=1
echo
echo "Programs' own time (kernel.bpf_stats_enabled; runs include other processes' calls on the host):"
echo
echo "| program | runs | ns per run | x the floor's | x its tracepoint's empty program |"
echo "|---|---|---|---|---|"
floorstats "empty, sys_enter + sys_exit" "$SYSFLOOR" -- "$W" syswrites "$N"
recfloor "sys_enter + sys_exit" "$SYSFLOOR" -- "$W" syswrites "$N"
progstats sys "" "$W" syswrites "$N"
progstats_unselected
if test -n "$loopdev"; then
	dd if=mnt/R iflag=nocache count=0 2>/dev/null
	floorstats "empty, the kernel layers' tracepoints ($KATTACH)" "$fopts" -- "$W" read mnt/R
	dd if=mnt/R iflag=nocache count=0 2>/dev/null
	progstats kern "" "$W" read mnt/R
	# The same programs run back to back (direct reads: a bio per read,
	# no page cache), their code and maps warm: what the work costs
	# apart from the cold caches each of the rare runs above meets.
	DIRECT="dd if=mnt/R of=/dev/null iflag=direct bs=4k count=16384"
	floorstats "empty, direct 4 KiB reads ($KATTACH)" "$fopts" -- $DIRECT
	recfloor "direct 4 KiB reads" "$fopts" -- $DIRECT
	progstats kern "direct 4 KiB reads" "$DIRECT 2>/dev/null"
fi

#!/bin/sh
# kfunc-bench.sh - run inside the test VM by bench/kfunc-vm.sh: what one
# traced kernel function costs through fentry and through kprobes.
#
# A one-function kfunc layer (vfs_write) traces N one-byte writes to a
# file on the ext4 disk, through fentry and kprobes, each with the
# file's path walked (the KPATH record, the plan from BTF) and without
# (the file argument planned as a bare pointer: no path, no inode),
# the four in turn REPS times, with an untraced run before each round.
# Each run reports the workload's own time per write and, from
# kernel.bpf_stats_enabled, the programs' run counts and ns per run
# (bpftool, read by the traced command before the collector detaches).
# Results are lines "BENCH: ..." on standard output (Markdown rows).
set -u
B=$DC_BUILD_DIR
PATH="$B/dc-gen:$B/dc-sign:$B/dc-collect:$B/dc-aggregate:$B/dc-write:$PATH"
export DC_DATA_DIR="$DC_SRC_DIR/configs"
W="$B/t/helpers/workload"
N=20000
REPS=5
out() { echo "BENCH: $*"; }

command -v bpftool >/dev/null || { out "no bpftool in the VM"; exit 1; }
mkdir -p /mnt/kbench && cd /mnt/kbench || exit 1
dc-sign --gen-key -k key >/dev/null
cat >k.yaml <<-EOC
layers:
  - name: KERN
    kind: kfunc
    functions: [vfs_write]
EOC
cat >n.yaml <<-EOC
layers:
  - name: KERN
    kind: kfunc
    functions: [vfs_write]
    args:
      vfs_write: {args: [ptr, ptr, size, offset], ret: size}
EOC
for c in k n; do
	dc-gen $c.yaml >$c.json && dc-sign -k key -o $c.sig $c.json || exit 1
done
echo 1 >/proc/sys/kernel/bpf_stats_enabled

per_call() { sed -n 's/.*ns_per_iteration=\([0-9.]*\).*/\1/p' "$1" | tail -n 1; }

# traced MODE SPEC OPTS...: one traced run; prints "MODE ns_per_write prog=ns..."
traced() {
	mode=$1 spec=$2; shift 2
	dc-collect -k key --no-preload "$@" $spec -- sh -c \
		"DC_WORKLOAD_REPORT=1 $W writes $N F 2>w.err; bpftool prog show --json >progs.json" \
		2>c.err | dc-aggregate >/dev/null
	grep -q "kernel-function probes use" c.err || { cat c.err; return 1; }
	python3 - "$mode" "$(per_call w.err)" <<-\EOP
	import json, sys
	mode, ns = sys.argv[1], sys.argv[2]
	progs = [p for p in json.load(open("progs.json"))
	         if p.get("name", "").startswith(("dc_fentry", "dc_fexit", "dc_kprobe"))
	         and p.get("run_cnt")]
	print(mode, ns, " ".join("%s=%d/%.0f" % (p["name"], p["run_cnt"],
	      p["run_time_ns"] / p["run_cnt"]) for p in progs))
	EOP
}

: >runs
i=0
while [ $i -lt "$REPS" ]; do
	DC_WORKLOAD_REPORT=1 "$W" writes "$N" F 2>w.err
	echo "untraced $(per_call w.err)" >>runs
	traced fentry k.sig >>runs || exit 1
	traced kprobes k.sig --kfunc kprobes >>runs || exit 1
	traced fentry-nopath n.sig >>runs || exit 1
	traced kprobes-nopath n.sig --kfunc kprobes >>runs || exit 1
	i=$((i + 1))
done
sed 's/^/# /' runs
python3 - "$N" "$REPS" <<-\EOP
import collections, sys
n, reps = sys.argv[1], sys.argv[2]
def median(v):  # (the VM's Python has no statistics module)
    v = sorted(v)
    return (v[len(v) // 2] + v[(len(v) - 1) // 2]) / 2
per = collections.defaultdict(list)
progs = collections.defaultdict(list)
for line in open("runs"):
    f = line.split()
    per[f[0]].append(float(f[1]))
    for kv in f[2:]:
        name, v = kv.split("=")
        progs[(f[0], name)].append(float(v.split("/")[1]))
base = median(per["untraced"])
print("BENCH: | path | ns per write (median of %s) | added by tracing | program: ns per run (median) |" % reps)
print("BENCH: |---|---|---|---|")
print("BENCH: | untraced | %.0f | | |" % base)
for m in ("fentry", "fentry-nopath", "kprobes", "kprobes-nopath"):
    med = median(per[m])
    pr = ", ".join("%s %.0f" % (name, median(v))
                   for (mm, name), v in sorted(progs.items()) if mm == m)
    print("BENCH: | %s | %.0f | %.0f (%.1fx untraced) | %s |" % (m, med, med - base, med / base, pr))
EOP
echo 0 >/proc/sys/kernel/bpf_stats_enabled

#!/bin/sh
# The verifier's work when a collector starts, most of its time to start:
# dc-collect -vv shows each program's statistics, and the exit programs
# call derive_exit (the arguments read at a call's return) as a global
# function, which the verifier checks once on its own, not again at each
# call site and on each path.  Every kernel the suite runs on (6.18 here,
# 6.1 in the VM) takes it: the fallback's line must not appear.  Of the
# uprobes' two sets of programs only the one used is loaded.  The
# per-CPU maps, the next cost, are sized to the run.
. "$(dirname "$0")/test-lib.sh"

FALLBACK="takes no global functions with pointer arguments"

# spec: the signed spec of libc's calls and the system calls.
spec() {
	printf "layers: [posix, syscalls]\n" >c.yaml &&
	sign_spec c.yaml
}

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success BPF 'with -vv each program loaded has the verifier statistics' '
	spec &&
	dc-collect -vv -k "$SHARED/key" probes.sig -- true >/dev/null 2>err &&
	sed -n "s/^libbpf: prog .\(dc_[a-z_]*\).: -- BEGIN PROG LOAD LOG --\$/\1/p" \
		err >loaded &&
	grep -E "^dc_sys_exit(_batch)?\$" loaded &&
	grep "^dc_u[a-z]*_exit\$" loaded &&
	test "$(grep -c "^processed [0-9]* insns" err)" = "$(wc -l <loaded)" &&
	! grep "$FALLBACK" err
'

# The uprobes' programs come in two sets, the same code: one for the
# kernel's multi-uprobe link, one attached function by function.  A
# collector loads (and the verifier checks) only the set it will use.
test_lazy_prereq UMULTI '
	check_kernel >features &&
	grep "uprobes yes (multi-link)" features ||
	{ echo "this kernel has no multi-uprobe link (6.6 and later)"; false; }
'
test_lazy_prereq NO_UMULTI '
	check_kernel >features &&
	! grep "uprobes yes (multi-link)" features ||
	{ echo "this kernel has the multi-uprobe link"; false; }
'

# refused_spec: bad.sig, a spec of three posix functions with fsync past
# the end of libc, which the kernel refuses whichever way it is attached.
# Three, not the layer's 39: attached one by one, each uprobe takes the
# kernel tens of ms to attach and as long to take down (13 s for the
# layer at load 4).
refused_spec() {
	printf "layers:\n  - name: posix\n    functions: [read, write, fsync]\n" >c.yaml &&
	dc-gen c.yaml >good.json &&
	python3 -c "import json, sys
spec = json.load(open(\"good.json\"))
for p in spec[\"probes\"]:
    if p[\"function\"] == \"fsync\":
        p[\"offset\"] = 1 << 40
json.dump(spec, sys.stdout)" >bad.json &&
	dc-sign -k "$SHARED/key" -o bad.sig bad.json
}

# traced_past_refusal SET [dc-collect options]: a collector with those
# options loads the uprobe programs of SET (umulti or uprobe) and no
# other (by its -vv), names the function refused, attaches the others,
# and traces the 1000 writes of a workload.
traced_past_refusal() {
	_set=$1
	shift
	refused_spec &&
	dc-collect -vv -k "$SHARED/key" --no-preload -o t.dcs "$@" bad.sig -- \
		"$WORKLOAD" writes 1000 2>err &&
	sed -n "s/^libbpf: prog .\(dc_u[a-z]*_[a-z]*\).: -- BEGIN PROG LOAD LOG --\$/\1/p" \
		err >loaded &&
	printf "dc_%s_entry\ndc_%s_exit\n" $_set $_set >expect &&
	test_cmp expect loaded &&
	grep "^dc-collect: cannot attach fsync in .*: Invalid argument\$" err &&
	n=$(python3 -c "import json; print(len(json.load(open(\"bad.json\"))[\"probes\"]))") &&
	grep "attached $((n - 1)) of $n probes" err &&
	dc-aggregate --text t.dcs >t.txt &&
	test "$(count_calls t.txt POSIX write)" = 1000
}

test_expect_success BPF,PYTHON3,UMULTI 'with the multi-uprobe link: only its programs loaded; a function refused is named, the others traced' '
	traced_past_refusal umulti
'

test_expect_success BPF,PYTHON3,NO_UMULTI 'without the multi-uprobe link: only the per-function programs loaded; a function refused is named, the others traced' '
	traced_past_refusal uprobe
'

test_expect_success BPF,PYTHON3,UMULTI '--attach single: only the per-function programs loaded; a function refused is named, the others traced' '
	traced_past_refusal uprobe --attach single
'

# held.sh, sourced by the scripts the collector runs: held_ids KEY, the
# ids of the collector's (the script's parent's) objects of one kind, by
# the KEY (prog_id, map_id) of its fds' fdinfo.
write_held_sh() {
	cat >held.sh <<-\EOS
	held_ids() {
		for fd in /proc/$PPID/fdinfo/*; do
			sed -n "s/^$1:[[:space:]]*//p" "$fd"
		done | sort -u
	}
	EOS
}

# linkage.sh, run by the collector: the linkage of derive_exit in the BTF
# the kernel holds for the collector's (its parent's) dc_sys_exit (or
# dc_sys_exit_batch), found
# through the program and link fds the collector holds.
write_linkage_sh() {
	write_held_sh &&
	cat >linkage.sh <<-\EOS
	. ./held.sh
	exec >linkage
	held_ids prog_id | while read -r id; do
		bpftool prog show id "$id" | grep -Eq " name dc_sys_exit(_batch)? " || continue
		btf=$(bpftool prog show id "$id" | sed -n "s/.*btf_id \([0-9]*\).*/\1/p")
		bpftool btf dump id "$btf" |
			sed -n "s/.* FUNC .derive_exit. type_id=[0-9]* linkage=//p"
	done
	EOS
}

test_expect_success BPF,BPFTOOL 'the loaded exit program holds derive_exit as a global function' '
	spec &&
	write_linkage_sh &&
	dc-collect -k "$SHARED/key" probes.sig -- sh linkage.sh >/dev/null 2>err &&
	test "$(cat linkage)" = global &&
	! grep "$FALLBACK" err
'

# maps.sh, run by the collector: "NAME MAX_ENTRIES" of each map its
# parent (the collector) holds.
write_maps_sh() {
	write_held_sh &&
	cat >maps.sh <<-\EOS
	. ./held.sh
	exec >maps
	held_ids map_id | while read -r id; do
		bpftool map show id "$id" | tr "\n" " "
		echo
	done | sed -n "s/^[0-9]*: [a-z_]*  name \([a-z_]*\) .* max_entries \([0-9]*\) .*/\1 \2/p"
	EOS
}

# Per-CPU maps cost their size times the CPUs to create.
test_expect_success BPF,BPFTOOL,PYTHON3 'per-CPU maps sized to the spec: drops per probe, no profile sums outside profile mode' '
	spec &&
	write_maps_sh &&
	dc-collect -k "$SHARED/key" probes.sig -- sh maps.sh >/dev/null 2>err &&
	cat maps &&
	nprobes=$(python3 -c "import json; print(len(json.load(open(\"probes.json\"))[\"probes\"]))") &&
	# its probes and the four internal ones: fork, exec, exit, register
	grep "^probe_drops $((nprobes + 4))\$" maps &&
	grep "^profile 1\$" maps
'

test_done

#!/bin/sh
# Uprobes only in the traced processes: with --process-uprobes and
# -- COMMAND or --pid the collector's uprobes are tracefs events bound to the traced processes
# and inherited by what they start (dc-collect/pidprobe.h), so another
# process calling a probed function takes no trap at all.  The kernel
# counts every trap of a tracefs uprobe event (uprobe_profile): that
# count, not a time, is what is checked.  The default (uprobes in the
# library's file) keeps exact counts through children, threads and exec;
# --process-uprobes does not while another tool attaches or removes a
# uprobe on the same function (BUGS in dc-collect(8)), as other tests
# running beside this one may.
. "$(dirname "$0")/test-lib.sh"

TRACEFS=/sys/kernel/tracing

test_lazy_prereq TRACEFS '
	test -w $TRACEFS/uprobe_events || { echo "no writable tracefs at $TRACEFS"; false; }
'

# Two functions: each one's tracefs events take the kernel about 0.2 s to
# take down, after the collector's end (dc-collect(8)).
spec() {
	printf "layers:\n  - name: posix\n    functions: [read, write]\n" >c.yaml &&
	sign_spec c.yaml
}

# write_event PID: the tracefs event of collector PID at libc write()'s
# entry (from the spec's offset).
write_event() {
	_off=$(python3 -c "import json, sys
for p in json.load(open(\"probes.json\"))[\"probes\"]:
    if p[\"kind\"] == \"uprobe\" and p[\"function\"] == \"write\":
        print(\"%x\" % p[\"offset\"])") &&
	sed -n "s|^p:datacrumbs/\(p$1_[0-9a-f]*_[0-9]*\) .*:0x0*$_off\$|\1|p" \
		$TRACEFS/uprobe_events
}

# hits EVENT: how many times the event's breakpoint was hit, in any
# process (kept by the kernel, before any filtering).
hits() {
	awk -v e="$1" '$2 == e { print $3 }' $TRACEFS/uprobe_profile
}

# no_trap_for_others COLLECTOR: the kernel's trap count for COLLECTOR's
# write() entry probe stays the same while another process writes 5000
# times.
no_trap_for_others() {
	_ev=$(write_event $1) &&
	echo "write() entry: $_ev" &&
	test -n "$_ev" &&
	_h0=$(hits $_ev) &&
	"$WORKLOAD" writes 5000 &&
	_h1=$(hits $_ev) &&
	echo "hits before $_h0, after another process wrote 5000 times: $_h1" &&
	test "$_h1" = "$_h0"
}

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success BPF,TRACEFS,PYTHON3 '-- COMMAND: 5000 write() calls of another process take no trap; the command'"'"'s 1000 are all traced' '
	spec || return 1
	dc-collect -k "$SHARED/key" --process-uprobes --no-preload -o s.dcs probes.sig -- sh -c \
		"echo \$\$ >pid; touch started; while ! test -e go; do sleep 0.05; done; exec \"\$0\" writes 1000" \
		"$WORKLOAD" 2>collect.err &
	collector=$! &&
	test_when_finished "touch go; test_kill_pid -INT $collector dc-collect" &&
	wait_for_file started &&
	no_trap_for_others $collector &&
	touch go &&
	wait $collector &&
	dc-aggregate --text s.dcs >t.txt &&
	w=$(count_calls t.txt POSIX write $(cat pid) 1) &&
	echo "one-byte writes traced: $w" &&
	test "$w" = 1000 &&
	: taken down after the end, by a child of the collector: &&
	wait_until 60 "the collector'"'"'s uprobe events stay in tracefs" \
		eval "! grep -q datacrumbs/p${collector}_ $TRACEFS/uprobe_events"
'

test_expect_success BPF,TRACEFS,PYTHON3 '--pid: another process takes no trap, the selected one is traced through its exec' '
	spec || return 1
	sh -c "while ! test -e go2; do sleep 0.05; done; exec \"\$0\" writes 700" \
		"$WORKLOAD" &
	target=$!
	test_when_finished "touch go2; test_kill_pid $target"
	dc-collect -k "$SHARED/key" --process-uprobes --pid $target -R ready -o p.dcs probes.sig 2>collect.err &
	collector=$! &&
	test_when_finished "test_kill_pid -INT $collector dc-collect" &&
	wait_for_file ready &&
	no_trap_for_others $collector &&
	touch go2 &&
	{ wait $collector; echo "collector exit $?"; } &&
	dc-aggregate --text p.dcs >t.txt &&
	w=$(count_calls t.txt POSIX write $target) &&
	echo "writes traced in process $target: $w" &&
	test "$w" = 700
'

test_expect_success BPF,TRACEFS,PYTHON3 'by default, forked children, threads, fork + exec and exec: exact counts (--process-uprobes is not exact there: BUGS in dc-collect(8))' '
	spec &&
	mkdir d &&
	dc-collect -k "$SHARED/key" --no-preload -o s.dcs probes.sig -- sh -c \
		"\"\$0\" tree \"\$1\" 300; \"\$0\" writes 250; exec \"\$0\" writes 150" \
		"$WORKLOAD" "$PWD/d" 2>collect.err &&
	dc-aggregate --text s.dcs >t.txt &&
	awk "/^call / { split(\$3, p, \"=\"); split(\$2, i, \"=\"); c[p[2] \" \" i[2]]++ }
	     END { for (k in c) print k, c[k] }" t.txt >per-pid &&
	w=$(python3 -c "import json
print([i for i, p in enumerate(json.load(open(\"probes.json\"))[\"probes\"])
       if p[\"kind\"] == \"uprobe\" and p[\"function\"] == \"write\"][0])") &&
	awk -v w=$w "\$2 == w { print \$3 }" per-pid | sort -n >got &&
	printf "150\n250\n300\n300\n1200\n" >want &&
	test_cmp want got
'

test_expect_success BPF,TRACEFS '--help says where uprobes are set for every process' '
	dc-collect --help >help &&
	grep -q "with --clients, --cgroup and --all they are always set that way" help &&
	grep -q -- "--process-uprobes  -- COMMAND, --pid: uprobes in the traced" help
'

test_expect_success BPF,TRACEFS 'by default the uprobes are in the library, not in per-process tracefs events' '
	spec &&
	dc-collect -k "$SHARED/key" --no-preload -o d.dcs probes.sig -- \
		sh -c "echo \$\$ >pid; while ! test -e go; do sleep 0.05; done; \"\$0\" writes 10" \
		"$WORKLOAD" 2>collect.err &
	collector=$! &&
	test_when_finished "touch go; test_kill_pid -INT $collector dc-collect" &&
	wait_for_file pid &&
	! grep -q "^p:datacrumbs/p${collector}_" $TRACEFS/uprobe_events
'

test_expect_success '--process-uprobes with --all is a usage error' '
	test_must_fail_with 2 dc-collect --process-uprobes --all probes.sig 2>err &&
	grep "process-uprobes needs -- COMMAND or --pid" err
'

test_done

#!/bin/sh
# Processes of a traced command that will not load the client library
# (a cleaned environment, AT_SECURE, a static executable) are decided at
# their exec: they get the wrapped functions through uprobes of their own
# (a static one on its own copies, found among its symbols; without
# symbols it is named as not traced), from a window after the exec on.
# None is counted twice, and the rest of the command stays on the fast
# path.  Their tracefs events go with them, and after the end.
. "$(dirname "$0")/test-lib.sh"

FC="$DC_BUILD_DIR/t/helpers/fastclient"
W="$DC_BUILD_DIR/t/helpers/workload"
SIG="$SHARED/probes.sig"

# wait_collect SECS MSG CMD...: wait_until, and when it gives up, the
# collector's first and last messages (collect.err), for the failure's
# output (the VM's is cut short: 20 and 10 lines).
wait_collect() {
	wait_until "$@" || {
		{ head -n 20 collect.err
		  test "$(wc -l <collect.err)" -le 30 || echo ...
		  tail -n +21 collect.err | tail -n 10; } |
			sed "s/^/collect.err: /" >&2
		false
	}
}

# gated NAME [dc-collect options] -- COMMAND: trace COMMAND, one of whose
# processes, running program NAME (an extended regular expression: a|b
# for either), will not load the client and waits for gate/go; once the
# collector has named that process (its uprobes are in place), let it
# go on.  The stream as text in t.txt, the named process's pid in
# gated.pid.
gated() {
	_name=$1
	shift
	mkdir gate &&
	{ dc-collect -k "$SHARED/key" -v -o s.dcs "$@" 2>collect.err & } &&
	_cpid=$! &&
	test_when_finished "touch \"$PWD/gate/go\"; test_kill_pid $_cpid dc-collect" &&
	wait_collect 60 "$_name got no uprobes" \
		grep -q -E "\(($_name)\) will not load the client library" collect.err &&
	touch gate/go &&
	wait $_cpid &&
	dc-aggregate --text <s.dcs >t.txt &&
	sed -n -E "s/.*process ([0-9]+) \(($_name)\) will not load.*/\1/p" \
		collect.err >gated.pid
}

# call_pids TRACE CAT NAME: the pids that made CAT NAME calls, one a line.
call_pids() {
	awk -v cat="$2" -v name="$3" '
		/^probe / { split($2, i, "="); split($4, l, "="); split($5, n, "=");
			    if (l[2] == cat && n[2] == name) w[i[2]] = 1 }
		/^call / { split($2, i, "="); split($3, p, "=");
			   if (i[2] in w) print p[2] }' "$1" | sort -u
}

# A static program that waits for the file it names, then writes a byte
# to /dev/null N times: gate-static FILE [N]; gate-stripped, the same
# without its symbols.
test_lazy_prereq STATIC_GATE '
	command -v cc >/dev/null || { echo "no C compiler"; false; }
	command -v strip >/dev/null || { echo "no strip"; false; }
	cat >gate.c <<-\EOC &&
	#include <fcntl.h>
	#include <stdlib.h>
	#include <unistd.h>
	int main(int c, char **v)
	{
		int fd = open("/dev/null", O_WRONLY), n = c > 2 ? atoi(v[2]) : 0;

		while (c > 1 && access(v[1], F_OK) != 0)
			usleep(10000);
		while (n-- > 0)
			if (write(fd, "x", 1) != 1)
				return 1;
		return 0;
	}
	EOC
	cc -static -o "$SHARED/gate-static" gate.c &&
	strip -o "$SHARED/gate-stripped" "$SHARED/gate-static" ||
	{ echo "cannot link a static program"; false; }
'

# Two functions: each one's events take the kernel about 0.2 s to take
# down after the end (in a child; a test below waits for it).
test_expect_success 'setup: a signing key and a spec of two posix functions' '
	posix_rw_spec
'

# The child drops the preload itself, not through env(1): in the test
# VM env is static busybox, named as a process of its own that will not
# load the client whenever the collector reads its exec before the next.
# A sh that loads the client (dash, on the host) asks for the uprobes
# before it execs the child (t/4240); static busybox (the VM's) cannot,
# and they are placed when the collector reads the exec.
test_expect_success BPF 'a child without LD_PRELOAD: its writes through uprobes, under its pid, once; its parent on the fast path' '
	gated fastclient "$SIG" -- sh -c "(unset LD_PRELOAD; exec \"$FC\" gate \"$PWD/gate\" 500) & \"$W\" writes 300; wait" &&
	child=$(cat gated.pid) &&
	test -n "$child" &&
	grep -E "process $child \(fastclient\) will not load the client library \(its LD_PRELOAD does not name it\): its calls of the wrapped functions go through uprobes( from [0-9.]* ms after its exec|, placed before its exec)" collect.err &&
	test "$(count_calls t.txt POSIX write "$child")" = 500 &&
	: the workload, gone before it is described at times, is the rest: &&
	: the functions recorded on the fast path have no other uprobes &&
	test "$(count_calls t.txt POSIX write)" = 800 &&
	test "$(grep -c "will not load the client library" collect.err)" = 1 &&
	! grep -q "never joined the fast path" collect.err &&
	grep "1 processes without the client library traced through uprobes" collect.err
'

test_expect_success BPF,SETGID 'a set-group-ID child (AT_SECURE ignores the preload): through uprobes, once' '
	mkdir sg &&
	cp "$FC" sg/fastclient && chgrp nogroup sg/fastclient && chmod g+s sg/fastclient &&
	gated fastclient "$SIG" -- sh -c "\"$PWD/sg/fastclient\" gate \"$PWD/gate\" 400" &&
	child=$(cat gated.pid) &&
	grep "process $child (fastclient) will not load the client library (it runs set-user-ID, set-group-ID or with capabilities (AT_SECURE), and ld.so ignores the preload)" collect.err &&
	test "$(count_calls t.txt POSIX write "$child")" = 400 &&
	! grep -q "never joined the fast path" collect.err
'

# sh gets the uprobes, waits for them, and forks a child that puts the
# preload back: the child joins the fast path, and the uprobes it
# inherited stand aside.  Where env is static (busybox, in the test VM),
# the command gets them before its exec and is named as env or sh,
# whichever it runs when the collector reads that exec: busybox runs
# sh through /proc/self/exe, whose name is "exe".
test_expect_success BPF 'no double counting: a child of a process with uprobes that loads the client again' '
	gated "env|sh|exe" "$SIG" -- env -u LD_PRELOAD sh -c "
		until test -e \"$PWD/gate/go\"; do sleep 0.05; done
		LD_PRELOAD=\"$DC_CLIENT_LIB\" \"$W\" writes 700" &&
	test "$(count_calls t.txt POSIX write)" = 700 &&
	: one process made them, and it joined the fast path: env and sh may &&
	: exec before the collector describes them, so only it is certain to &&
	call_pids t.txt POSIX write >writers &&
	test_line_count writers 1 &&
	grep "fast path: process $(cat writers) joined" collect.err
'

# The checking versions a fortified program calls for fprintf, fread and
# fgets (fastclient64 names) are wrapped functions too: a process that
# will not load the client gets them through uprobes of its own, each
# call once, as the function it stands for.  It waits for them itself
# (in the test VM sh is static busybox, which gets none to pass on).
test_expect_success BPF 'without the client, a fortified program: its fprintf, fread and fgets through uprobes, once' '
	printf "layers:\n  - name: stdio\n    functions: [fprintf, fread, fgets]\n" >chk.yaml &&
	sign_spec chk.yaml &&
	mkdir d &&
	gated fastclient64 probes.sig -- sh -c "(unset LD_PRELOAD; exec \"$DC_BUILD_DIR/t/helpers/fastclient64\" names \"$PWD/d\" 3000 \"$PWD/gate/go\")" &&
	grep -q "fast path: 6 functions recorded by the client library" collect.err &&
	child=$(cat gated.pid) &&
	test -n "$child" &&
	for f in fprintf fread fgets; do
		test "$(call_pids t.txt STDIO $f)" = "$child" &&
		test "$(count_calls t.txt STDIO $f)" = 1 || return 1
	done
'

# sh on the fast path (dash, on the host) reads the program's headers and
# asks for its uprobes before it execs it (t/4240); static busybox sh,
# the VM's, cannot, and they are placed when the exec is read.
test_expect_success BPF,STATIC_GATE 'a static executable: its own copies of the functions through uprobes, once' '
	gated gate-static "$SIG" -- sh -c "\"$SHARED/gate-static\" \"$PWD/gate/go\" 300; \"$W\" writes 20" &&
	child=$(cat gated.pid) &&
	grep -E "process $child \(gate-static\) will not load the client library \(a static executable\): its calls of the 2 wrapped functions among its symbols go through uprobes on its own copies( from [0-9.]* ms after its exec|, placed before its exec)" collect.err &&
	test "$(count_calls t.txt POSIX write "$child")" = 300 &&
	test "$(count_calls t.txt POSIX write)" = 320 &&
	test "$(grep -c "will not load the client library" collect.err)" = 1 &&
	! grep -q "never joined the fast path" collect.err &&
	: the functions where the spec names them were not defined for it &&
	! grep -q "uprobes for processes without the client defined" collect.err
'

# sh has libc's uprobes (no preload) and runs the static program: the
# child inherits them, and at its exec gets the program's own copies.
test_expect_success BPF,STATIC_GATE 'a static executable run by a process with libc'"'"'s uprobes: its own copies too, 300 bytes exact' '
	gated gate-static "$SIG" -- env -u LD_PRELOAD sh -c \
		"\"$SHARED/gate-static\" \"$PWD/gate/go\" 300; \"$W\" writes 20" &&
	child=$(cat gated.pid) &&
	test -n "$child" &&
	grep "process [0-9]* (sh) will not load the client library (its LD_PRELOAD does not name it)" collect.err &&
	grep "process $child (gate-static) will not load the client library (a static executable): its calls of the 2 wrapped functions among its symbols go through uprobes on its own copies" collect.err &&
	: 300 one-byte writes, each returning 1, under its pid &&
	test "$(count_calls t.txt POSIX write "$child" 1)" = 300 &&
	test "$(count_calls t.txt POSIX write "$child")" = 300 &&
	test "$(count_calls t.txt POSIX write)" = 320 &&
	! grep -q "never joined the fast path" collect.err
'

test_expect_success BPF,STATIC_GATE 'a static executable without symbols is named as not traced, once' '
	gated gate-stripped "$SIG" -- sh -c "\"$SHARED/gate-stripped\" \"$PWD/gate/go\" 10" &&
	grep "process $(cat gated.pid) (gate-stripped) will not load the client library (a static executable, with none of them among its symbols): its calls of the wrapped functions are not traced" collect.err &&
	test "$(count_calls t.txt POSIX write)" = 0 &&
	test "$(grep -c "will not load the client library" collect.err)" = 1 &&
	! grep -q "never joined the fast path" collect.err
'

# events NAME: the uprobe events in tracefs named after collector pid NAME.
events() {
	grep -c "^[pr]:datacrumbs/[pr]$1_" /sys/kernel/tracing/uprobe_events
}

# perf_fds PID: how many perf events PID holds open (a tracefs event's
# uprobe is one); its other descriptors come and go (the call-state maps
# its pool keeps ready are made in the background).
perf_fds() {
	ls -l /proc/$1/fd 2>/dev/null | grep -c "anon_inode:\[perf_event\]"
}

test_expect_success BPF 'the uprobe events go with the process and, after the end, in a child that does not hold up the job' '
	mkdir gate gate2 &&
	{ dc-collect -k "$SHARED/key" -v -o s.dcs "$SIG" -- sh -c "
		env -u LD_PRELOAD \"$FC\" gate \"$PWD/gate\" 30
		until test -e \"$PWD/gate2/go\"; do sleep 0.05; done" 2>collect.err & } &&
	cpid=$! &&
	test_when_finished "touch \"$PWD/gate/go\" \"$PWD/gate2/go\"; test_kill_pid $cpid dc-collect" &&
	wait_collect 60 "fastclient got no uprobes" \
		grep -q "(fastclient) will not load the client library" collect.err &&
	test "$(events $cpid)" -gt 0 &&
	fds=$(perf_fds $cpid) &&
	touch gate/go &&
	: with the process gone, its events go: at least one for each event defined &&
	wait_collect 60 "the gone process'"'"'s events stay open" \
		eval "test \$(perf_fds $cpid) -le $((fds - $(events $cpid)))" &&
	touch gate2/go &&
	wait $cpid &&
	undo=$(sed -n "s/.*uprobe events taken down in the background by process \([0-9]*\)$/\1/p" collect.err) &&
	test -n "$undo" &&
	wait_collect 120 "the events are still being taken down" \
		eval "! kill -0 $undo 2>/dev/null" &&
	test "$(events $cpid)" = 0 &&
	dc-aggregate --text <s.dcs >t.txt &&
	test "$(count_calls t.txt POSIX write)" = 30
'

# A pid that ran and is gone (reused within the test: unlikely).  The
# leftovers are removed before the collector defines its own events, at
# the first process without the client: made just before it, so that no
# other collector on the host removes them first.  That process waits
# (gate2) until the collector has named it: gone before its exec is read
# (a slow, sanitized collector), it would need no events at all.
test_expect_success BPF 'before defining its events, a collector removes the unused ones of collectors that no longer run, and only those' '
	sh -c "exit 0" & dead=$! && wait $dead &&
	ue=/sys/kernel/tracing/uprobe_events &&
	test_when_finished "echo -:datacrumbs/p$$_0badcafe_0 >>$ue; echo -:datacrumbs/p${dead}_0badcafe_0 >>$ue; true" &&
	mkdir gate gate2 &&
	{ dc-collect -k "$SHARED/key" -R ready -o s.dcs "$SIG" -- sh -c "
		until test -e \"$PWD/gate/go\"; do sleep 0.01; done
		env -u LD_PRELOAD \"$FC\" gate \"$PWD/gate2\" 5" 2>collect.err & } &&
	cpid=$! &&
	test_when_finished "touch \"$PWD/gate/go\" \"$PWD/gate2/go\"; test_kill_pid $cpid dc-collect" &&
	wait_for_file ready &&
	echo "p:datacrumbs/p${dead}_0badcafe_0 $W:0x0" >>$ue &&
	echo "p:datacrumbs/p$$_0badcafe_0 $W:0x0" >>$ue &&
	touch gate/go &&
	wait_collect 60 "fastclient got no uprobes" \
		grep -q "(fastclient) will not load the client library" collect.err &&
	touch gate2/go &&
	wait $cpid &&
	grep "removed [1-9][0-9]* unused uprobe events of collectors that no longer run (killed) from /sys/kernel/tracing/uprobe_events" collect.err &&
	test "$(events $dead)" = 0 &&
	test "$(events $$)" = 1
'

test_expect_success BPF 'with --no-preload nothing is decided: every call by uprobe' '
	dc-collect -k "$SHARED/key" --no-preload -o s.dcs "$SIG" -- \
		env -u LD_PRELOAD "$W" writes 50 2>collect.err &&
	dc-aggregate --text <s.dcs >t.txt &&
	! grep -q "will not load the client library" collect.err &&
	test "$(count_calls t.txt POSIX write)" = 50
'

test_done

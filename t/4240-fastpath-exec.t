#!/bin/sh
# A process on the fast path that execs a program with an environment
# that does not preload the client asks the collector for the uprobes
# that stand in for it before the exec (the client's exec wrappers): the
# kernel keeps them across the exec, so the program's calls are all
# traced, from its first, however short it runs.  By every exec
# function, from a child of vfork, from Python's subprocess; an exec
# that fails leaves the process on the fast path, its calls counted
# once.  The command itself, stopped before its exec by the collector,
# gets them then when it is a static or set-ID program.
. "$(dirname "$0")/test-lib.sh"

CX="$DC_BUILD_DIR/t/helpers/cleanexec"
W="$DC_BUILD_DIR/t/helpers/workload"

test_lazy_prereq DYNAMIC_ENV '
	ldd "$(command -v env)" >/dev/null 2>&1 ||
	{ echo "env(1) is not a dynamic program (it would not load the client)"; false; }
'

test_expect_success 'setup: a signing key and a spec of two posix functions' '
	posix_rw_spec
'

# run [-v] -- COMMAND: trace COMMAND into t.txt (as text), messages in
# collect.err; the process that asked for uprobes before its exec in
# ahead.pid (none: empty).
run() {
	_v=
	test "$1" = -v && _v=-v && shift
	dc-collect -k "$SHARED/key" $_v -o s.dcs "$SHARED/probes.sig" "$@" 2>collect.err &&
	dc-aggregate --text <s.dcs >t.txt &&
	ahead_pids >ahead.pid
}

for how in execve execv execvp execvpe execl execle execlp fexecve execveat vfork; do
	test_expect_success BPF "$how with the preload removed: all 300 writes of the program, through uprobes placed before" "
		run -- \"\$CX\" $how \"\$W\" writes 300 &&
		placed_before 300
	"
done

test_expect_success BPF 'an exec that fails: the process stays on the fast path, each of its writes once, its uprobes taken out' '
	run -v -- "$CX" fail 200 &&
	test ! -s ahead.pid &&
	pid=$(sed -n "s/.*debug: process \([0-9]*\): its exec failed; the uprobes placed before it are taken out$/\1/p" collect.err) &&
	test -n "$pid" &&
	grep "debug: process $pid: uprobes placed before its exec" collect.err &&
	grep "fast path: process $pid joined" collect.err &&
	test "$(count_calls t.txt POSIX write "$pid" 1)" = 200 &&
	test "$(count_calls t.txt POSIX write)" = 200 &&
	! grep -q "processes without the client library traced through uprobes" collect.err
'

test_expect_success BPF 'Python'"'"'s subprocess with env={}: the child'"'"'s 300 writes' '
	run -- python3 -c "import subprocess, sys
sys.exit(subprocess.run([\"$W\", \"writes\", \"300\"], env={}).returncode)" &&
	placed_before 300
'

# The command itself is stopped before its exec: a program that will not
# load the client though its environment names it gets its uprobes
# then, found by the collector (the client cannot ask: it never runs).
test_expect_success BPF,STATIC 'a static command, found in PATH: all its 300 writes, on its own copies placed before its exec' '
	PATH="$SHARED:$PATH" dc-collect -k "$SHARED/key" -o s.dcs "$SHARED/probes.sig" -- w300 2>collect.err &&
	dc-aggregate --text <s.dcs >t.txt &&
	pid=$(sed -n "s/.*process \([0-9]*\) (w300) will not load the client library (a static executable): its calls of the 2 wrapped functions among its symbols go through uprobes on its own copies, placed before its exec$/\1/p" collect.err) &&
	test -n "$pid" &&
	test "$(count_calls t.txt POSIX write "$pid" 1)" = 300 &&
	test "$(count_calls t.txt POSIX write)" = 300 &&
	grep "1 processes without the client library traced through uprobes, all placed before their exec" collect.err
'

test_expect_success BPF,SETGID 'a set-group-ID command: all its 300 writes, through uprobes placed before its exec' '
	cp "$W" sg-w && chgrp nogroup sg-w && chmod g+s sg-w &&
	dc-collect -k "$SHARED/key" -o s.dcs "$SHARED/probes.sig" -- ./sg-w writes 300 2>collect.err &&
	dc-aggregate --text <s.dcs >t.txt &&
	pid=$(sed -n "s/.*process \([0-9]*\) (sg-w) will not load the client library (it runs set-user-ID, set-group-ID or with capabilities (AT_SECURE), and ld.so ignores the preload): its calls of the wrapped functions go through uprobes, placed before its exec$/\1/p" collect.err) &&
	test -n "$pid" &&
	test "$(count_calls t.txt POSIX write "$pid" 1)" = 300 &&
	test "$(count_calls t.txt POSIX write)" = 300
'

# A process of the command that execs a program which will not load the
# client though its environment names it reads the program's headers
# first, and sends it along.
test_expect_success BPF,STATIC 'a static program exec'"'"'d by a process on the fast path, found in PATH: all its 300 writes, on its own copies placed before' '
	PATH="$SHARED:$PATH" run -- "$CX" keep:execvp w300 &&
	pid=$(sed -n "s/.*process \([0-9]*\) (w300) will not load the client library (a static executable): its calls of the 2 wrapped functions among its symbols go through uprobes on its own copies, placed before its exec$/\1/p" collect.err) &&
	test -n "$pid" &&
	test "$(count_calls t.txt POSIX write "$pid" 1)" = 300 &&
	test "$(count_calls t.txt POSIX write)" = 300 &&
	grep "1 processes without the client library traced through uprobes, all placed before their exec" collect.err
'

test_expect_success BPF,SETGID 'a set-group-ID program exec'"'"'d by a process on the fast path: all its 300 writes, through uprobes placed before' '
	cp "$W" sg-w && chgrp nogroup sg-w && chmod g+s sg-w &&
	run -- "$CX" keep:execve ./sg-w writes 300 &&
	pid=$(sed -n "s/.*process \([0-9]*\) (sg-w) will not load the client library (it runs set-user-ID, set-group-ID or with capabilities (AT_SECURE), and ld.so ignores the preload): its calls of the wrapped functions go through uprobes, placed before its exec$/\1/p" collect.err) &&
	test -n "$pid" &&
	test "$(count_calls t.txt POSIX write "$pid" 1)" = 300 &&
	test "$(count_calls t.txt POSIX write)" = 300
'

test_expect_success BPF 'a dynamic program exec'"'"'d with the preload: it joins the fast path, no uprobes asked for' '
	run -v -- "$CX" keep:execve "$W" writes 300 &&
	test "$(count_calls t.txt POSIX write)" = 300 &&
	! grep -q "placed before its exec" collect.err &&
	! grep -q "processes without the client library" collect.err
'

test_expect_success BPF 'posix_spawn with the environment: the child joins the fast path, all its 300 writes' '
	run -v -- "$CX" keep:spawn "$W" writes 300 &&
	parent=$(sed -n "s/.*debug: fast path: process \([0-9]*\) joined.*/\1/p" collect.err | head -n 1) &&
	child=$(sed -n "s/.*debug: fast path: process \([0-9]*\) joined.*/\1/p" collect.err | sed -n 2p) &&
	test -n "$child" && test "$child" != "$parent" &&
	test "$(count_calls t.txt POSIX write "$child" 1)" = 300 &&
	test "$(count_calls t.txt POSIX write)" = 300 &&
	! grep -q "processes without the client library" collect.err
'

# posix_spawn execs inside libc: the client makes the child itself when
# it will not load the client (dc-wrap/spawn.c; t/4250 has the rest).
test_expect_success BPF 'posix_spawn with the preload removed: all 300 writes of the program, through uprobes placed before' '
	run -- "$CX" spawn "$W" writes 300 &&
	placed_before 300
'

# cat of a file of 100,003 bytes, with nothing in its environment: its
# reads and writes move exactly the file.
test_expect_success BPF,DYNAMIC_ENV 'env -i cat FILE: every byte cat reads and writes' '
	head -c 100003 /dev/urandom >f &&
	run -- sh -c "env -i cat f >/dev/null" &&
	test_line_count ahead.pid 1 &&
	pid=$(cat ahead.pid) &&
	awk -v pid="$pid" "
		/^probe / { split(\$2, i, \"=\"); split(\$5, n, \"=\"); N[i[2]] = n[2] }
		/^call / { split(\$2, i, \"=\"); split(\$3, p, \"=\"); split(\$7, r, \"=\");
			   if (p[2] == pid && r[2] > 0) b[N[i[2]]] += r[2] }
		END { print b[\"read\"] + 0, b[\"write\"] + 0 }" t.txt >bytes &&
	echo "100003 100003" >expect &&
	test_cmp expect bytes &&
	! grep -q "earlier ones are missed" collect.err
'

# A child of vfork runs on its parent's memory until it execs, as
# Python's subprocess's does, closing and duplicating descriptors
# there.  On the fast path (the client library's vfork) its calls are
# not recorded as its parent's: the parent's write after it is named by
# the file the child closed, its own close the only one in its pid;
# through uprobes the child's calls are its own.
VF="$DC_BUILD_DIR/t/helpers/vforkcalls"
for path in fast uprobe; do
	opt=
	test $path = uprobe && opt=--no-preload
	test_expect_success BPF "a child of vfork closes and duplicates before its exec ($path)" "
		printf 'layers:\n  - name: posix\n    functions: [open, write, close, dup2]\n' >v.yaml &&
		sign_spec v.yaml &&
		dc-collect -k \"\$SHARED/key\" $opt -o s.dcs probes.sig -- \"\$VF\" \"\$PWD/vf.out\" >out 2>collect.err &&
		dc-aggregate --text <s.dcs >t.txt &&
		read -r _ parent _ child <out &&
		test \"\$(cat vf.out)\" = hello &&
		grep \"^call .* pid=\$parent .* file=\$PWD/vf.out args=3\" t.txt >w &&
		test_line_count w 2 &&
		test \"\$(count_calls t.txt POSIX close \"\$parent\")\" = 1 &&
		test \"\$(count_calls t.txt POSIX dup2 \"\$parent\")\" = 0 &&
		if test $path = uprobe
		then
			test \"\$(count_calls t.txt POSIX close \"\$child\" 0)\" = 1 &&
			test \"\$(count_calls t.txt POSIX dup2 \"\$child\" 1)\" = 1
		fi
	"
done

test_lazy_prereq PRLIMIT '
	command -v prlimit >/dev/null || { echo "no prlimit (util-linux)"; false; }
'

test_expect_success NOBODY,PRLIMIT 'vfork that fails, with the client library: -1 and EAGAIN, as libc'"'"'s' '
	setpriv --reuid=nobody --regid=nogroup --clear-groups prlimit --nproc=0:0 \
		env LD_PRELOAD="$DC_CLIENT_LIB" "$VF" fail >out &&
	echo "vfork: -1 EAGAIN" >expect &&
	test_cmp expect out
'

test_done

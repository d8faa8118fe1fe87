#!/bin/sh
# posix_spawn(3) execs its child inside libc, where no exec wrapper sees
# it.  A process on the fast path that spawns a child which will not
# load the client (its environment drops the preload; its program is
# static) makes the child itself (dc-wrap/spawn.c), and the child asks
# for its uprobes before its exec: every call of the child is traced.
# The child must find what glibc's finds: its descriptors after the file
# actions, working directory, signal mask, dispositions, process group
# and session, each compared here with the same spawn made by glibc (no
# collector), and posix_spawn must fail as glibc's does.
. "$(dirname "$0")/test-lib.sh"

SS="$DC_BUILD_DIR/t/helpers/spawnstate"
W="$DC_BUILD_DIR/t/helpers/workload"

test_expect_success 'setup: a signing key and a spec of two posix functions' '
	posix_rw_spec
'

# run COMMAND...: trace COMMAND into t.txt (as text), its output in
# out.txt, its exit status in rc, messages in collect.err; the process
# that asked for uprobes before its exec in ahead.pid (none: empty).
run() {
	{ dc-collect -k "$SHARED/key" -o s.dcs "$SHARED/probes.sig" -- "$@" \
		>out.txt 2>collect.err; echo $? >rc; } &&
	dc-aggregate --text <s.dcs >t.txt &&
	ahead_pids >ahead.pid
}

# untraced COMMAND...: the same command, glibc's spawn, no collector:
# its output in expect.txt, its exit status in expect.rc.
untraced() {
	{ "$@" >expect.txt 2>untraced.err; echo $? >expect.rc; }
}

# same_as_glibc: the command's output and exit status as without a
# collector: its child found what glibc's child finds.
same_as_glibc() {
	test_cmp expect.rc rc &&
	test_cmp expect.txt out.txt
}

# Each line: the options of one spawn, whose child reports its state.
cat >cases <<-\EOF
	(none)
	-o 5:out -r 6:/etc/passwd -d 5:9 -x 0 -k 7 -K 8 -d 7:7
	-k 12 -K 13 -k 20 -f 13
	-C / -F /tmp -k 7 -x 7
	-m 10 -m 14 -B 15 -I 12 -H 14 -H 17 -D 17 -I 18 -D 18
	-g
	-s
	-R -B 10
EOF

while read -r opts; do
	test "$opts" = "(none)" && opts=
	test_expect_success BPF "posix_spawn without the preload, $opts: 300 writes, the child finds what glibc's finds" "
		untraced \"\$SS\" spawn -c $opts \"\$SS\" report 300 &&
		run \"\$SS\" spawn -c $opts \"\$SS\" report 300 &&
		same_as_glibc &&
		placed_before 300 +output
	"
done <cases

test_expect_success BPF 'posix_spawnp without the preload: found in PATH past a file it may not run, 300 writes' '
	mkdir a b && cp "$SS" b/spawnstate && cp "$SS" a/spawnstate && chmod 644 a/spawnstate &&
	untraced "$SS" spawn -c -p -e PATH="$PWD/a:$PWD/b" spawnstate report 300 &&
	run "$SS" spawn -c -p -e PATH="$PWD/a:$PWD/b" spawnstate report 300 &&
	same_as_glibc &&
	placed_before 300 +output
'

# A spawn that fails is posix_spawn's error, as glibc's: a program that
# is not there, one that may not run, one that is not a program (no
# shell for it: posix_spawnp since glibc 2.15), a process group the
# child may not join (a session leader), a directory not there.
cat >fails <<-\EOF
	/nonexistent/program
	-p no-such-program-here
	./text
	-p -e PATH=. text
	./noexec
	-s -g ./ok
	-C /nonexistent ./ok
EOF

while read -r opts; do
	test_expect_success BPF "a spawn that fails, $opts: the same error as glibc's, no child left" "
		printf 'just text\n' >text && chmod +x text &&
		printf '#!/bin/sh\n' >noexec && chmod 644 noexec &&
		cp \"\$SS\" ok &&
		untraced \"\$SS\" spawn -c $opts report 1 &&
		grep '^spawn: ' expect.txt &&
		run \"\$SS\" spawn -c $opts report 1 &&
		same_as_glibc &&
		test \"\$(count_calls t.txt POSIX write)\" = 0 &&
		! grep -q 'processes without the client library traced' collect.err
	"
done <fails

test_expect_success BPF 'a thread writes while its process spawns: each write counted once, under its own process' '
	run "$SS" spawn -c -w 5000 "$SS" report 300 &&
	test_line_count ahead.pid 1 &&
	child=$(cat ahead.pid) &&
	test "$(count_calls t.txt POSIX write "$child" 1)" = 300 &&
	test "$(count_calls t.txt POSIX write "" 1)" = 5300 &&
	! grep -q "earlier ones are missed" collect.err
'

test_expect_success BPF,STATIC 'a static program spawned with the preload: all its 300 writes, on its own copies placed before its exec' '
	run "$SS" spawn "$SHARED/w300" &&
	test "$(cat rc)" = 0 &&
	pid=$(sed -n "s/.*process \([0-9]*\) (w300) will not load the client library (a static executable): its calls of the 2 wrapped functions among its symbols go through uprobes on its own copies, placed before its exec$/\1/p" collect.err) &&
	test -n "$pid" &&
	test "$(count_calls t.txt POSIX write "$pid" 1)" = 300 &&
	test "$(count_calls t.txt POSIX write)" = 300
'

# Python's subprocess uses os.posix_spawn when it can (an absolute path,
# close_fds=False): the child's stdout to /dev/null is a file action,
# SIGPIPE and the like back to their default an attribute.
test_expect_success BPF,PYTHON3 'Python'"'"'s subprocess by posix_spawn with env={}: the child'"'"'s 300 writes' '
	run python3 -c "import subprocess, sys
subprocess._USE_POSIX_SPAWN or sys.exit(3)
sys.exit(subprocess.run([\"$W\", \"writes\", \"300\"], env={}, close_fds=False,
			stdout=subprocess.DEVNULL).returncode)" &&
	test "$(cat rc)" = 0 &&
	placed_before 300
'

test_done

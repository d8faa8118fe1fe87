#!/bin/sh
# The client library's own work in a process on the fast path is not
# recorded as the program's: its handshake with dc-collect (a Unix
# socket, a memfd sized with ftruncate and sealed with fcntl, a mapping)
# and its first look at its ring.  It says so at dc_client_quiet, where
# dc-collect mutes the thread.  The program's own socket traffic and
# system calls are all there, exactly as on the uprobe path.
. "$(dirname "$0")/test-lib.sh"

NP="$DC_BUILD_DIR/t/helpers/dc-netpair"
FC="$DC_BUILD_DIR/t/helpers/fastclient"
PORT=$((20000 + $$ % 20000))

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

# spec: probes.sig here, with the net layer.
spec() {
	layers posix syscalls net faults >c.yaml &&
	sign_spec c.yaml
}

# pair OUT [dc-collect options]: 5 UDP requests of 32 bytes and their
# replies of 48, the client traced into OUT, the server untraced.
pair() {
	_out=$1
	shift
	rm -f ready
	"$NP" server $PORT 5 "$PWD/ready" 2>server.err &
	_srv=$!
	test_when_finished "test_kill_pid $_srv"
	wait_for_file ready &&
	dc-collect -k "$SHARED/key" "$@" probes.sig -- \
		"$NP" client 127.0.0.1 $PORT 5 2>collect.err |
		dc-aggregate | dc-write --force "$_out" &&
	wait $_srv
}

# sock EVENTS TRACE FAMILY [RET]: how many sock_EVENTS_length instants
# of address family FAMILY (1 Unix, 2 IPv4) TRACE holds, of RET bytes
# if given.
sock() {
	pfw-query count "$2" --ph i --cat net --name "sock:sock_$1_length" \
		--arg family=$3 ${4:+--arg ret=$4}
}

test_expect_success BPF,PYTHON3 'the program sent and received what it did, and the library nothing' '
	spec &&
	pair fast.pfw.gz &&
	grep -q "fast path: [0-9]* functions recorded" collect.err &&
	! grep "dc_client_quiet" collect.err &&
	test "$(sock send fast.pfw.gz 2 32)" = 5 &&
	test "$(sock recv fast.pfw.gz 2 48)" = 5 &&
	test "$(sock send fast.pfw.gz 2)" = 5 &&
	test "$(sock recv fast.pfw.gz 2)" = 5 &&
	test "$(sock send fast.pfw.gz 1)" = 0 &&
	test "$(sock recv fast.pfw.gz 1)" = 0
'

# The memfd is sized with ftruncate and sealed with fcntl; the program
# calls neither.  Its closes: its own, as the uprobe path sees them, and
# the dynamic loader closing the client library after mapping it.
test_expect_success BPF,PYTHON3 'none of the library system calls, the same as on the uprobe path' '
	spec &&
	pair fast.pfw.gz &&
	pair uprobe.pfw.gz --no-preload &&
	test "$(sock send uprobe.pfw.gz 2 32)" = 5 &&
	for f in ftruncate fcntl
	do
		test "$(pfw-query count fast.pfw.gz --cat sys --name $f)" = 0 &&
		test "$(pfw-query count uprobe.pfw.gz --cat sys --name $f)" = 0 ||
		{ echo "$f in a trace"; return 1; }
	done &&
	u=$(pfw-query count uprobe.pfw.gz --cat sys --name close) &&
	f=$(pfw-query count fast.pfw.gz --cat sys --name close) &&
	test "$f" = $((u + 1)) || { echo "closes: $f on the fast path, $u by uprobes"; return 1; }
'

# A child forked without exec handshakes again, muted the same way.
test_expect_success BPF,PYTHON3 'a forked child: nothing of its handshake either' '
	spec &&
	dc-collect -k "$SHARED/key" probes.sig -- "$FC" fork 10 20 2>collect.err |
		dc-aggregate | dc-write --force fork.pfw.gz &&
	test "$(pfw-query pids fork.pfw.gz --cat POSIX --name write | wc -l)" = 2 &&
	test "$(pfw-query count fork.pfw.gz --cat POSIX --name write)" = 30 &&
	for f in ftruncate fcntl
	do
		test "$(pfw-query count fork.pfw.gz --cat sys --name $f)" = 0 ||
		{ echo "$f in the trace"; return 1; }
	done &&
	test "$(sock send fork.pfw.gz 1)" = 0 &&
	test "$(sock recv fork.pfw.gz 1)" = 0
'

# A client library from before the hook: said in one line, dc-collect's
# own (libbpf, asked for a symbol that is not there, prints one first).
test_expect_success BPF 'a client library without dc_client_quiet: one notice, nothing from libbpf' '
	spec &&
	echo "int dc_old_client;" >old.c &&
	cc -shared -fPIC -o old.so old.c &&
	dc-collect -k "$SHARED/key" --client-lib "$PWD/old.so" -o s.dcs probes.sig -- true 2>collect.err &&
	grep "fast path: cannot watch dc_client_quiet in $PWD/old.so (a library from before it, without the hook): the client library'"'"'s own system calls and socket messages show as the program'"'"'s" collect.err &&
	! grep -i "libbpf" collect.err
'

test_done

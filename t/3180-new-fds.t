#!/bin/sh
# Descriptors that are not files, made while traced (a pipe, a
# socketpair, an eventfd, a memfd, a TCP connection's sockets): each is
# named in the trace, in the kernel's form for its kind (what /proc
# calls it), and the bytes through it are in its rows of dc-write
# --summary.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success BPF 'traced: the workload makes them, the system calls are recorded' '
	printf "layers: [syscalls, sockets]\n" >c.yaml &&
	trace_ok c.yaml "$SHARED/fds.pfw.gz" probes.sig -- "$WORKLOAD" fds "$SHARED/kernel" &&
	cat "$SHARED/kernel" &&
	test "$(wc -l <"$SHARED/kernel")" = 8
'

# The kernel's names, from /proc in the workload: the forms the trace's
# follow (dc-trace(5), File names).
test_expect_success BPF 'what /proc calls them: pipe:[N], socket:[N], anon_inode:[eventfd], /memfd:NAME' '
	grep -x "pipe [0-9]* [0-9]* pipe:\[[0-9]*\]" "$SHARED/kernel" &&
	grep -x "socketpair [0-9]* [0-9]* socket:\[[0-9]*\]" "$SHARED/kernel" &&
	grep -x "eventfd [0-9]* [0-9]* anon_inode:\[eventfd\]" "$SHARED/kernel" &&
	grep -x "memfd [0-9]* [0-9]* /memfd:dc-test (deleted)" "$SHARED/kernel"
'

# Each call on them names the one it works on: the pipe's two ends one
# pipe, pipe:[PID.N]; each socket its own socket:[PID.N]; the eventfd and
# the memfd by the kernel's very names.  pipe2 and socketpair record the
# descriptors they made (fd0, fd1), as the program saw them.
test_expect_success BPF,PYTHON3 'the trace names each, and each call on it, in the kernel'"'"'s form' '
	python3 - "$SHARED/fds.pfw.gz" "$SHARED/kernel" <<-\EOP
	import gzip, json, re, sys
	names, ev = {}, []
	for line in gzip.open(sys.argv[1], "rt"):
	    if line.startswith("{"):
	        e = json.loads(line)
	        if e["name"] == "FH":
	            names[e["args"]["value"]] = e["args"]["name"]
	        elif e.get("ph") == "X":
	            ev.append(e)
	kernel = {}
	for line in open(sys.argv[2]):
	    what, fd, fd2, name = line.rstrip("\n").split(" ", 3)
	    kernel[what] = (int(fd), int(fd2), name)
	pid = {e["pid"] for e in ev if e["name"] == "pipe2"}
	assert len(pid) == 1, pid
	pid = pid.pop()
	mine = [e for e in ev if e["pid"] == pid]
	def fname(e):
	    return names.get(e["args"].get("fhash"))
	def one(name, **args):
	    got = [e for e in mine if e["name"] == name and
	           all(e["args"].get(k) == v for k, v in args.items())]
	    assert len(got) == 1, (name, args, got)
	    return got[0]
	def on(fd, name, nbytes):
	    e = one(name, fd=fd, ret=nbytes)
	    return fname(e)
	r, w, _ = kernel["pipe"]
	made = one("pipe2", fd0=r, fd1=w)
	pipe = fname(made)
	assert re.fullmatch(r"pipe:\[%d\.[0-9]+\]" % pid, pipe), pipe
	assert on(w, "write", 1000) == pipe and on(r, "read", 1000) == pipe
	s0, s1, _ = kernel["socketpair"]
	made = one("socketpair", fd0=s0, fd1=s1)
	a, b = on(s0, "sendto", 2000), on(s1, "recvfrom", 2000)
	assert fname(made) == a, (fname(made), a)
	for fd, name in (("eventfd", "eventfd2"), ("memfd", "memfd_create")):
	    fd, _, kname = kernel[fd]
	    assert fname(one(name, ret=fd)) == kname, (name, kname)
	assert on(kernel["eventfd"][0], "write", 8) == kernel["eventfd"][2]
	assert on(kernel["memfd"][0], "write", 300) == kernel["memfd"][2]
	ls, cs, acc = (kernel[k][0] for k in ("listen", "client", "accepted"))
	listen = fname(one("socket", ret=ls))
	client = on(cs, "sendto", 4000)
	assert fname(one("socket", ret=cs)) == client
	accepted = on(acc, "recvfrom", 4000)
	# accept names the socket it listens on; what it returns is new.
	assert fname(one("accept", ret=acc)) == listen
	socks = [a, b, listen, client, accepted]
	for s in socks:
	    assert re.fullmatch(r"socket:\[%d\.[0-9]+\]" % pid, s), s
	assert len(set(socks + [pipe])) == 6, socks + [pipe]
	# N counts the pipes and sockets in the order they were made.
	order = [int(s.split(".")[1][:-1]) for s in [pipe, a, b, listen, client, accepted]]
	assert order == sorted(order), order
	EOP
'

# row FILE LAYER FUNCTION NAME: the calls and bytes of that row of a
# dc-write --summary, named NAME (as printed).
row() {
	awk -v l="$2" -v f="$3" -v n="$4" '
		$1 == l && $2 == f && substr($0, length($0) - length(n) + 1) == n &&
		substr($0, length($0) - length(n) - 1, 2) == "  " { print $3, $4 }' "$1"
}

test_expect_success BPF 'dc-write --summary: the bytes of each, in its own row' '
	dc-write --summary --top 0 "$SHARED/fds.pfw.gz" >sum &&
	grep "pipe:\|socket:\|anon_inode\|memfd" sum &&
	pipe=$(sed -n "s/^sys  *pipe2  *1  *0  *[0-9.]*  //p" sum) &&
	test -n "$pipe" &&
	test "$(row sum sys write "$pipe")" = "1 1000" &&
	test "$(row sum sys read "$pipe")" = "1 1000" &&
	test "$(row sum sys write "anon_inode:[eventfd]")" = "1 8" &&
	test "$(row sum sys write "\"/memfd:dc-test (deleted)\"")" = "1 300" &&
	test "$(awk "\$1 == \"sock\" && \$2 == \"sendto\" && \$NF ~ /^socket:/ { print \$3, \$4 }" sum | sort)" = "$(printf "1 2000\n1 4000")" &&
	test "$(awk "\$1 == \"sock\" && \$2 == \"recvfrom\" && \$NF ~ /^socket:/ { print \$3, \$4 }" sum | sort)" = "$(printf "1 2000\n1 4000")" &&
	! grep "(unnamed)" sum
'

test_done

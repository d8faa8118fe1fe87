#!/bin/sh
# Process and descriptor state in time order (issue 9, items 8 and 9):
# what the collector reads from /proc it reads late, while the process
# runs on, so it must never describe a process, or name its files, as
# they became only after the events it is applied to.
#  - A child keeps its parent's program, rank and command line until it
#    execs (dc-trace(5)): its PR at the fork says so, and its exec gets
#    a PR of its own with the new program, argv and rank, since the
#    exec's time.
#  - A chdir gives the process a PR with its new directory.
#  - A shell's redirection (open /dev/null, save fd 1 with F_DUPFD, close
#    1, dup2 the file onto 1, and back) names every call's file as it
#    was when the call was made.
#  - A process described late (a client that registered) has its
#    relative names resolved against the directory /proc showed, back to
#    its last chdir, never across one.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

# forkexec forks two children; each writes a line to out, sets RANK=7
# and execs sleep (the first after 200 ms, the second at once; sleep
# lives long enough for /proc to be read after its exec).  The parent
# runs with RANK=3, and moves to /tmp before the second fork: that child
# starts there, which the parent's description does not say.
test_expect_success BPF,PYTHON3 'a child: its PR at the fork is its parent, its exec has its own' '
	: >out &&
	printf "layers: [posix, syscalls]\n" >c.yaml &&
	RANK=3 trace_ok c.yaml t.pfw.gz probes.sig -- \
		forkexec "$PWD/out" /bin/sleep 0.3 &&
	test "$(cat out)" = "child 1
child 2" &&
	python3 - "$(command -v forkexec)" "$PWD" <<-\EOF
	import gzip, json, os, sys
	exe, pwd = os.path.realpath(sys.argv[1]), sys.argv[2]
	lines = [json.loads(l) for l in gzip.open("t.pfw.gz", "rt")
	         if l.startswith("{")]
	pr, forks, execs, order = {}, {}, {}, []
	for i, e in enumerate(lines):
	    if e["name"] == "PR":
	        pr.setdefault(e["pid"], []).append(e["args"])
	        order.append(("PR", e["pid"], e["args"].get("origin")))
	    elif e["name"] == "fork" and e["ph"] == "i":
	        forks[e["args"]["child"]] = e
	    elif e["name"] == "exec" and e["ph"] == "i":
	        execs[e["pid"]] = e
	        order.append(("exec", e["pid"], None))
	    elif e["name"] == "write" and e["cat"] == "POSIX":
	        order.append(("write", e["pid"], None))
	assert len(forks) == 2, forks
	parent = [a for a in pr[next(iter(forks.values()))["pid"]]]
	top = parent[0]
	assert top["name"] == exe and top["rank"] == 3, top
	assert top["cmdline"] == "forkexec %s/out /bin/sleep 0.3" % pwd, top
	for n, (child, f) in enumerate(sorted(forks.items(), key=lambda c: c[1]["ts"])):
	    cwd = pwd if n == 0 else "/tmp"
	    got = pr[child]
	    assert len(got) == 2, got
	    fork, exe_pr = got
	    assert fork == dict(top, ppid=f["pid"], since=f["ts"], origin="fork", cwd=cwd), (fork, top)
	    want = {"name": "/usr/bin/sleep", "value": exe_pr["value"], "rank": 7,
	            "ppid": f["pid"], "uid": 0, "gid": 0,
	            "cmdline": "/bin/sleep 0.3",
	            "cwd": cwd, "since": execs[child]["ts"], "origin": "exec"}
	    assert exe_pr == want, (exe_pr, want)
	    # The fork PR before the child writes, the exec PR after it,
	    # before the exec instant.
	    i = order.index(("PR", child, "fork"))
	    assert order[i + 1] == ("write", child, None), order[i:i + 4]
	    assert order.index(("PR", child, "exec")) < order.index(("exec", child, None))
	    assert order.index(("write", child, None)) < order.index(("PR", child, "exec"))
	EOF
'

# Each process's exit instant says how it ended, as the shell that
# waited for it says ($?): an exit code, or 128 + N and signal N for a
# death by signal N, so that exit(137) and SIGKILL stay apart.
test_expect_success BPF,PYTHON3 'exit instants: the status the shell saw, and the signal that killed' '
	cat >ends.sh <<-\EOF &&
	sh -c "exit 7"; echo $? >st.exit7
	sh -c "exit 137"; echo $? >st.exit137
	sh -c "kill -KILL \$\$"; echo $? >st.kill
	sleep 5 & kill -TERM $!; wait $!; echo $? >st.term
	EOF
	printf "layers: [syscalls]\n" >c.yaml &&
	trace_ok c.yaml t.pfw.gz probes.sig -- sh ends.sh &&
	test "$(cat st.exit7 st.exit137 st.kill st.term)" = "7
137
137
143" &&
	python3 - <<-\EOF
	import gzip, json
	lines = [json.loads(l) for l in gzip.open("t.pfw.gz", "rt") if l.startswith("{")]
	ends = [(e["args"]["ret"], e["args"].get("signal"))
	        for e in lines if e["name"] == "exit" and e["ph"] == "i"]
	# The script, its three sh children and sleep.
	want = [(0, None), (7, None), (137, None), (137, 9), (143, 15)]
	assert sorted(ends, key=str) == sorted(want, key=str), ends
	EOF
'

# sh -c 'exec prog' execs twice in a row: /proc, read late for the first
# exec, may show the second program already.  The first exec's PR is the
# shell (read in time) or its path (read too late), never sleep's.
test_expect_success BPF,PYTHON3 'two execs in a row: each its own PR, the first never the second' '
	printf "layers: [posix]\n" >c.yaml &&
	trace_ok c.yaml t.pfw.gz probes.sig -- \
		sh -c "exec /bin/sleep 0.3" &&
	python3 - "$PWD" <<-\EOF
	import gzip, json, sys
	pwd = sys.argv[1]
	lines = [json.loads(l) for l in gzip.open("t.pfw.gz", "rt")
	         if l.startswith("{")]
	execs = [e for e in lines if e["name"] == "exec" and e["ph"] == "i"]
	assert len(execs) == 2 and execs[0]["pid"] == execs[1]["pid"], execs
	pid = execs[0]["pid"]
	prs = [e["args"] for e in lines if e["name"] == "PR" and e["pid"] == pid
	       and e["args"].get("origin") == "exec"]
	assert len(prs) == 2, prs
	first, second = prs
	assert first["since"] == execs[0]["ts"], (first, execs)
	if first["name"] == "/usr/bin/dash":
	    assert first["cmdline"] == "sh -c exec /bin/sleep 0.3", first
	else:
	    # the path execvp found, as the EXEC record has it
	    assert first["name"] in ("/usr/bin/sh", "/bin/sh"), first
	    assert first["cmdline"] == first["name"], first
	assert second["since"] == execs[1]["ts"], (second, execs)
	assert second["name"] == "/usr/bin/sleep", second
	assert second["cmdline"] == "/bin/sleep 0.3", second
	EOF
'

# A program that exits at once may be gone when dc-collect reads /proc
# for its exec's description (at the drain after the record: later still
# while the merge holds the record back, as DC_TEST_FLUSH_EVERY makes it
# do); a zombie's entry has no program and no arguments.  Such an exec
# is described from /proc, or not at all and then by the EXEC record's
# path, never by an empty description.
test_expect_success BPF,PYTHON3 'programs that exit at once: each exec described as its program, from /proc or its path, never empty' '
	printf "layers: [pagecache]\n" >c.yaml &&
	(
		DC_TEST_FLUSH_EVERY=5 && export DC_TEST_FLUSH_EVERY &&
		trace_ok c.yaml t.pfw.gz probes.sig -- \
			sh -c "i=0; while test \$i -lt 40; do /bin/true; i=\$((i + 1)); done"
	) &&
	python3 - "$(realpath /bin/true)" <<-\EOF
	import gzip, json, sys
	true = sys.argv[1]
	ev = [json.loads(l) for l in gzip.open("t.pfw.gz", "rt")
	      if l.startswith("{")]
	children = [e["args"]["child"] for e in ev
	            if e["name"] == "fork" and e["ph"] == "i"]
	assert len(children) == 40, children
	read = 0
	for pid in children:
	    prs = [(e["args"]["name"], e["args"]["cmdline"]) for e in ev
	           if e["name"] == "PR" and e["pid"] == pid and
	           e["args"].get("origin") == "exec"]
	    assert prs in ([(true, "/bin/true")], [("/bin/true", "/bin/true")]), (pid, prs)
	    read += prs[0][0] == true
	print("%d of 40 described from /proc, the others gone first" % read)
	EOF
'

# A program that runs itself again through /proc/self/exe (busybox's
# applets do, and runc): the exec names /proc/self, the exec'ing
# process's, not the collector's, which reads /proc then.  Described
# all the same, as the program it is.
test_expect_success BPF,PYTHON3 'an exec of /proc/self/exe is described as the program it runs' '
	printf "layers: [posix]\n" >c.yaml &&
	trace_ok c.yaml t.pfw.gz probes.sig -- \
		sh -c "exec /proc/self/exe -c \"sleep 0.3; true\"" &&
	python3 - <<-\EOF
	import gzip, json, os
	lines = [json.loads(l) for l in gzip.open("t.pfw.gz", "rt")
	         if l.startswith("{")]
	execs = [e for e in lines if e["name"] == "exec" and e["ph"] == "i"]
	pid = execs[0]["pid"]
	assert [e["pid"] for e in execs[:2]] == [pid, pid], execs
	prs = [e["args"] for e in lines if e["name"] == "PR" and e["pid"] == pid
	       and e["args"].get("origin") == "exec"]
	assert len(prs) == 2, prs
	assert prs[1]["since"] == execs[1]["ts"], (prs, execs)
	assert prs[1]["name"] == os.path.realpath("/bin/sh"), prs[1]
	assert prs[1]["cmdline"] == "/proc/self/exe -c sleep 0.3; true", prs[1]
	EOF
'

# A process's description says its working directory: after its own
# chdir, a PR of its own says the new one, since the chdir's end, before
# its next event.  The shell lives on (sleep, not its last command, is
# not execed) so that its exec is described.
test_expect_success BPF,PYTHON3 'a chdir describes the process again, with the new directory' '
	mkdir d1 &&
	printf "layers: [syscalls]\n" >c.yaml &&
	trace_ok c.yaml t.pfw.gz probes.sig -- sh -c "cd d1 && echo x >a && sleep 0.3; true" &&
	python3 - "$PWD" <<-\EOF
	import gzip, json, sys
	pwd = sys.argv[1]
	lines = [json.loads(l) for l in gzip.open("t.pfw.gz", "rt")
	         if l.startswith("{")]
	files = {e["args"]["value"]: e["args"]["name"] for e in lines
	         if e["name"] == "FH"}
	at = [i for i, e in enumerate(lines) if e.get("cat") == "sys" and
	      e["name"] == "chdir" and e["args"].get("ret") == 0]
	assert len(at) == 1, at
	chdir = lines[at[0]]
	pid = chdir["pid"]
	prs = [(i, e["args"]) for i, e in enumerate(lines)
	       if e["name"] == "PR" and e["pid"] == pid]
	(i1, before), (i2, after) = prs[-2:]
	assert before["origin"] == "exec" and before["cwd"] == pwd, before
	assert after["cwd"] == pwd + "/d1" and "origin" not in after, after
	assert after["name"] == before["name"], (before, after)
	assert after["cmdline"] == before["cmdline"], (before, after)
	end = chdir["ts"] + chdir["dur"]
	assert end - 1 <= after["since"] <= end + 1, (chdir, after)
	assert i1 < at[0] < i2, (i1, at, i2)
	opened = [i for i, e in enumerate(lines) if e.get("cat") == "sys" and
	          files.get(e["args"].get("fhash")) == pwd + "/d1/a"]
	assert opened and i2 < min(opened), (i2, opened)
	EOF
'

# check_names COUNT:NAME:FD:CMD:RET:FILE...: the sys calls NAME (fcntl,
# close, dup2, write) of t.pfw.gz with these fd, cmd (empty: none), ret
# and file (empty: none) number exactly COUNT each.  S in FD or RET is
# the fd dash saved fd 1 in (what fcntl(1, F_DUPFD, 10) returned).
check_names() {
	python3 - "$@" <<-\EOF
	import collections, gzip, json, sys
	files, got, saved = {}, collections.Counter(), set()
	for l in gzip.open("t.pfw.gz", "rt"):
	    if not l.startswith("{"):
	        continue
	    e = json.loads(l)
	    a = e.get("args", {})
	    if e["ph"] == "M" and e["name"] == "FH":
	        files[a["value"]] = a["name"]
	    elif e.get("cat") == "sys" and e["name"] in ("fcntl", "close", "dup2", "write"):
	        key = (e["name"], a.get("fd"), a.get("cmd"), a.get("ret"))
	        got[key + (files.get(a.get("fhash")),)] += 1
	        if e["name"] == "fcntl" and a.get("fd") == 1 and a.get("cmd") == 0:
	            saved.add(a["ret"])
	assert len(saved) == 1 and min(saved) >= 10, saved
	s = saved.pop()
	want = collections.Counter()
	for w in sys.argv[1:]:
	    n, name, fd, cmd, ret, f = w.split(":")
	    num = lambda v: s if v == "S" else int(v)
	    want[name, num(fd), None if cmd == "" else int(cmd),
	         num(ret), f or None] = int(n)
	bad = {k: (got[k], v) for k, v in want.items() if got[k] != v}
	assert not bad, bad
	EOF
}

# dash saves fd 1 above 10 (F_DUPFD), closes it, dup2s /dev/null (fd 3)
# onto it, runs the command, dup2s the saved one back.  N loops keep the
# redirection open most of the time, whenever /proc is read.  Fd 3 is
# the shell's first free one only if none above 2 came with the test
# (flock(1) without -o, a harness's): those are closed for the command.
shell_loop='i=0; while [ $i -lt 50 ]; do echo $i >/dev/null; i=$((i + 1)); done; echo there'

test_expect_success BPF,PYTHON3 'a shell after its exec: each fd names its file of the moment' '
	printf "layers: [syscalls]\n" >c.yaml &&
	trace_ok c.yaml t.pfw.gz probes.sig -- sh -c "$shell_loop" 3>&- 4>&- 5>&- &&
	grep -q "^there\$" collect.err &&
	E=$PWD/collect.err &&
	check_names "50:fcntl:1:0:S:$E" "50:close:1::0:$E" \
		"50:dup2:3::1:/dev/null" "50:close:3::0:/dev/null" \
		"10:write:1::2:/dev/null" "40:write:1::3:/dev/null" \
		"50:dup2:S::1:$E" "50:close:S::0:$E" "1:write:1::6:$E"
'

# The same in a subshell: a forked child redirects at once, while the
# collector still handles its fork.  Without the fast path, the child
# runs ahead of the collector the most.
test_expect_success BPF,PYTHON3 'a forked shell: each fd names its file of the moment' '
	printf "layers: [syscalls]\n" >c.yaml &&
	trace_ok c.yaml t.pfw.gz --no-preload probes.sig -- \
		sh -c "( { /bin/sleep 0.2; } >/dev/null; echo there ); echo done" \
		3>&- 4>&- 5>&- &&
	grep -q "^there\$" collect.err &&
	E=$PWD/collect.err &&
	check_names "1:fcntl:1:0:S:$E" "1:close:1::0:$E" \
		"1:dup2:3::1:/dev/null" "1:dup2:S::1:$E" "1:close:S::0:$E" \
		"1:write:1::6:$E" "1:write:1::5:$E"
'

# A process the collector began to follow while it ran (a client that
# registered) is described from /proc after it went on: its working
# directory comes later than its first relative names.  It changes only
# by chdir and fchdir, which the stream shows, so /proc's holds back to
# the last of them.
write_late() {
	cat <<-\EOF
	header host=node1 run=r1 offset=1700000000000000000 start=1000 ids=0
	probe id=0 kind=uprobe layer=POSIX name=open target=/lib/libc.so.6 args=path,flags,mode ret=fd
	probe id=1 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	probe id=2 kind=syscall layer=sys name=chdir args=path ret=status
	probe id=3 kind=syscall layer=sys name=fchdir args=fd ret=status
	probe id=4 kind=syscall layer=sys name=openat args=fd,path,flags,mode ret=fd
	EOF
}

# late_files_are LINE...: the events on standard input, between
# write_late's header and the end, made into a stream and aggregated:
# its calls, each as "pid probe file", are the LINEs in order.
late_files_are() {
	{ write_late && cat && echo end; } >s &&
	printf "%s\n" "$@" >expect &&
	dc-mkstream s >in.bin &&
	dc-aggregate --text in.bin >out 2>err &&
	test_line_count err 0 &&
	sed -n "s/^call probe=\([0-9]*\) pid=\([0-9]*\) .* file=\([^ ]*\) .*/\2 \1 \3/p" out >got &&
	test_cmp expect got
}

test_expect_success 'described late: names opened before /proc was read resolve against its directory' '
	late_files_are "100 0 /work/dir/F" "100 4 /work/G" \
		"100 4 /work/dir/F/H" "100 1 /work/dir/F" "200 0 /abs" \
		"100 1 /work/G" "100 0 /work/dir/I" <<-\EOF
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/dd cmdline=dd cwd=/work/dir taken=500
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=F
	call probe=4 pid=100 tid=100 ts=200 dur=10 ret=4 args=-100,0,0,0 str=../G
	call probe=4 pid=100 tid=100 ts=210 dur=10 ret=5 args=3,0,0,0 str=H
	call probe=1 pid=100 tid=100 ts=300 dur=10 ret=1 args=3,0,1
	call probe=0 pid=200 tid=200 ts=540 dur=10 ret=3 args=0,0,0 str=/abs
	call probe=1 pid=100 tid=100 ts=600 dur=10 ret=1 args=4,0,1
	call probe=0 pid=100 tid=100 ts=700 dur=10 ret=6 args=0,0,0 str=I
	EOF
'

test_expect_success 'described late after a chdir: its directory holds from the chdir on, not before' '
	late_files_are "100 0 a" "100 2 missing" "100 2 /work/dir/sub" \
		"100 0 /work/dir/sub/b" "100 1 a" <<-\EOF
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/app cmdline=app cwd=/work/dir/sub taken=500
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=a
	call probe=2 pid=100 tid=100 ts=200 dur=10 ret=-2 flags=2 args=0 str=missing
	call probe=2 pid=100 tid=100 ts=300 dur=10 ret=0 args=0 str=sub
	call probe=0 pid=100 tid=100 ts=400 dur=10 ret=4 args=0,0,0 str=b
	call probe=1 pid=100 tid=100 ts=600 dur=10 ret=1 args=3,0,1
	EOF
'

# /proc shows the directory with symbolic links resolved; a chdir the
# events name keeps the name the program gave.
test_expect_success 'described late after a chdir the events name: its name stays' '
	late_files_are "100 0 x" "100 2 /link/dir" "100 0 /link/dir/a" <<-\EOF
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/app cmdline=app cwd=/real/dir taken=500
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=x
	call probe=2 pid=100 tid=100 ts=200 dur=10 ret=0 args=0 str=/link/dir
	call probe=0 pid=100 tid=100 ts=300 dur=10 ret=4 args=0,0,0 str=a
	EOF
'

test_expect_success 'described late: a stream that ends first still gets the directory' '
	late_files_are "100 0 /work/dir/a" <<-\EOF
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/app cmdline=app cwd=/work/dir taken=500
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=a
	EOF
'

# A collector behind a short-lived process reads /proc as it exits:
# exe and cmdline are gone, the directory is still there, and is the one
# the process ended in.
test_expect_success 'described late, read as it exited: names resolve against its last directory' '
	late_files_are "100 0 /work/dir/F" "100 1 /work/dir/F" <<-\EOF
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe= cmdline= cwd=/work/dir taken=500
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=F
	call probe=1 pid=100 tid=100 ts=200 dur=10 ret=1 args=3,0,1
	exitproc pid=100 tid=100 ts=400 ret=0
	EOF
'

# A fork gives the child the directory its parent has then, which a
# later /proc read cannot tell (the parent may chdir before it): the
# waiting names go as written, the child's too.
test_expect_success 'described late, forked first: names before the read stay as written' '
	late_files_are "100 0 a" "101 0 c" "100 0 /work/dir/b" <<-\EOF
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/app cmdline=app cwd=/work/dir taken=500
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=a
	fork pid=100 tid=100 ts=200 child=101
	call probe=0 pid=101 tid=101 ts=300 dur=10 ret=4 args=0,0,0 str=c
	call probe=0 pid=100 tid=100 ts=600 dur=10 ret=4 args=0,0,0 str=b
	EOF
'

# /proc read after an exec may show a chdir the new program made since:
# the exec's PROCESS frame has the directory known at the exec, and the
# chdir describes the process again.
test_expect_success 'an exec read late is described with the directory it had' '
	late_files_are "100 2 /work/dir/d1" "100 0 /work/dir/d1/a" <<-\EOF &&
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/app cmdline=app cwd=/work/dir taken=50
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 flags=2 start=100 exe=/bin/sh cmdline=sh cwd=/work/dir/d1 taken=300
	exec pid=100 tid=100 ts=100 str=/bin/sh
	call probe=2 pid=100 tid=100 ts=200 dur=10 ret=0 args=0 str=d1
	call probe=0 pid=100 tid=100 ts=400 dur=10 ret=3 args=0,0,0 str=a
	EOF
	sed -n "s/^process pid=100 .* flags=\([0-9]*\) start=\([0-9]*\) .* cwd=\([^ ]*\).*/\1 \2 \3/p" out >got &&
	cat >expect <<-\EOF &&
	0 0 /work/dir
	2 100 /work/dir
	0 210 /work/dir/d1
	EOF
	test_cmp expect got
'

# A chdir or fchdir to where the events cannot name (an fd of unknown
# path, a relative name from there) leaves the directory unknown until
# the next snapshot says it: not the one from before, not a relative one.
test_expect_success 'a chdir the events cannot name: unknown until /proc says' '
	late_files_are "100 3 -" "100 0 a" "100 2 x" "100 0 b" \
		"100 0 /elsewhere/x/c" <<-\EOF
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/app cmdline=app cwd=/work/dir taken=50
	call probe=3 pid=100 tid=100 ts=100 dur=10 ret=0 args=9
	call probe=0 pid=100 tid=100 ts=200 dur=10 ret=3 args=0,0,0 str=a
	call probe=2 pid=100 tid=100 ts=210 dur=10 ret=0 args=0 str=x
	call probe=0 pid=100 tid=100 ts=220 dur=10 ret=4 args=0,0,0 str=b
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/app cmdline=app cwd=/elsewhere/x taken=250
	call probe=0 pid=100 tid=100 ts=300 dur=10 ret=5 args=0,0,0 str=c
	EOF
'

# --snapshot PATH: a FILE frame for PATH and each file below it, a
# symbolic link as itself (not followed); --snapshot-max N writes N
# frames and says it stopped only when files were left out.
# snap_tree: the tree snap (5 entries) and a signed spec.
snap_tree() {
	mkdir -p snap/sub &&
	printf 12345 >snap/a &&
	printf 1234567 >snap/sub/b &&
	ln -s /etc snap/etc &&
	printf "layers: [syscalls]\n" >c.yaml &&
	sign_spec c.yaml
}

# snapshot OPTION...: collect `true` with them; got: "PATH SIZE" per
# FILE frame, PATH relative to here, sorted.
snapshot() {
	{ dc-collect -k "$SHARED/key" "$@" probes.sig -- true 2>err; echo $? >rc; } |
		dc-aggregate --text >t.txt &&
	test "$(cat rc)" = 0 &&
	sed -n "s|^file size=\([0-9]*\) .* path=$PWD/\(.*\)|\2 \1|p" t.txt | sort >got
}

test_expect_success BPF 'a snapshot: the tree, each file with its size, a link not followed' '
	snap_tree &&
	snapshot --snapshot "$PWD/snap" &&
	sed "s/ [0-9]*\$//" got >paths &&
	printf "snap\nsnap/a\nsnap/etc\nsnap/sub\nsnap/sub/b\n" >expect &&
	test_cmp expect paths &&
	grep -x "snap/a 5" got &&
	grep -x "snap/sub/b 7" got &&
	grep -x "snap/etc 4" got &&
	! grep "snapshot" err
'

test_expect_success BPF 'a snapshot cut at --snapshot-max, and one that fits it exactly' '
	snap_tree &&
	snapshot --snapshot "$PWD/snap" --snapshot-max 2 &&
	test_line_count got 2 &&
	grep -x "dc-collect: snapshot of $PWD/snap stopped at 2 files (--snapshot-max)" err &&
	snapshot --snapshot "$PWD/snap" --snapshot-max 5 &&
	test_line_count got 5 &&
	! grep "snapshot" err
'

test_expect_success BPF 'a snapshot of a missing path: a warning naming it, tracing goes on' '
	snap_tree &&
	snapshot --snapshot "$PWD/none" --snapshot "$PWD/snap/sub" &&
	grep -x "dc-collect: cannot snapshot $PWD/none: No such file or directory" err &&
	printf "snap/sub\nsnap/sub/b 7\n" >expect &&
	sed "s|^snap/sub [0-9]*\$|snap/sub|" got >paths &&
	test_cmp expect paths
'

test_done

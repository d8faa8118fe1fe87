#!/bin/sh
# dc-collect on real workloads with exact counts: fsync, block I/O and the
# page cache, threads and forks, recursion, drops, signals, options.
. "$(dirname "$0")/test-lib.sh"

# recurse_layer: the workload's dc_test_recurse as the layer RECURSE.
recurse_layer() {
	cat <<-EOC
	layers:
	  - name: RECURSE
	    kind: uprobe
	    target: $WORKLOAD
	    functions: [dc_test_recurse]
	EOC
}

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success BPF 'the start-up line says what the kernel offers and what falls back' '
	printf "layers: [syscalls]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- true &&
	grep "^dc-collect: kernel .*uprobes yes.*kernel functions: " collect.err &&
	test "$(grep -c "kernel functions:" collect.err)" = 1
'

test_expect_success BPF,PYTHON3 '100 fsync calls give 100 fsync events' '
	printf "layers: [posix, syscalls]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" fsync "$PWD/F" 100 &&
	test "$(pfw-query count t.pfw.gz --cat POSIX --name fsync --file "$PWD/F")" = 100 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name fsync --file "$PWD/F")" = 100 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name write --file "$PWD/F" --arg ret=1)" = 100 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name close --file "$PWD/F")" = 1 &&
	test "$(pfw-query count t.pfw.gz --cat POSIX --name close --file "$PWD/F")" = 1
'

test_expect_success BPF,PYTHON3 'a failed library call carries the errno of the syscall under it' '
	printf "layers: [posix, syscalls]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" read "$PWD/missing" &&
	test "$(cat collect.rc)" = 1 &&
	test "$(pfw-query count t.pfw.gz --cat POSIX --name open --file "$PWD/missing" --arg ret=-1 --arg errno=2)" = 1 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name openat --file "$PWD/missing" --arg ret=-2 --arg errno=2)" = 1
'

test_expect_success BPF,PYTHON3 'a system call without a path keeps its errno; offsets past 32 bits come through whole' '
	printf "layers: [syscalls]\n" >c.yaml &&
	: >S &&
	cat >calls.py <<-\EOP &&
	import os
	fd = os.open("S", os.O_RDONLY)
	os.lseek(fd, 1 << 20, os.SEEK_SET)
	os.lseek(fd, 1 << 40, os.SEEK_SET)
	try:
	    os.read(999, 1)
	except OSError:
	    pass
	EOP
	trace_ok c.yaml t.pfw.gz probes.sig -- python3 calls.py &&
	test "$(pfw-query count t.pfw.gz --cat sys --name lseek --arg ret=1048576)" = 1 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name lseek --arg ret=1099511627776)" = 1 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name read --arg ret=-9 --arg errno=9)" = 1
'

test_expect_success BPF,PYTHON3 'a file read twice after dropping caches: block reads only the first time' '
	dd if=/dev/urandom of=R bs=1M count=8 2>/dev/null && sync &&
	echo 3 >/proc/sys/vm/drop_caches &&
	printf "layers: [syscalls, block, pagecache]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- sh -c \
		"\"$WORKLOAD\" read R; \"$WORKLOAD\" read R" &&
	pfw-query pids t.pfw.gz --cat sys --name read --file "$PWD/R" >pids &&
	test_line_count pids 2 &&
	first=$(sed -n 1p pids) second=$(sed -n 2p pids) &&
	test "$(pfw-query count t.pfw.gz --cat block --pid "$first")" -gt 0 &&
	test "$(pfw-query count t.pfw.gz --cat block --pid "$second")" = 0 &&
	pfw-query list t.pfw.gz --cat pagecache --ph i --pid "$first" \
		--name filemap:mm_filemap_add_to_page_cache >added &&
	pages=$(python3 -c "import json,sys; print(sum(json.loads(l)[\"args\"][\"pages\"] for l in sys.stdin))" <added) &&
	echo "pages added: $pages" &&
	test "$pages" -ge 2048 &&
	test "$(pfw-query count t.pfw.gz --cat pagecache --ph i \
		--name filemap:mm_filemap_add_to_page_cache --pid "$second")" = 0
'

test_expect_success BPF,PYTHON3 'a loopback TCP connection: connect, accept, send, receive, close' '
	printf "layers: [syscalls, sockets, net]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" tcp 10 &&
	pfw-query list t.pfw.gz --cat sock >sock &&
	pfw-query list t.pfw.gz --cat sys --name close >close &&
	python3 - <<-\EOP
	import json
	sock = [json.loads(l) for l in open("sock")]
	close = [json.loads(l) for l in open("close")]
	def calls(name):
	    return [e for e in sock if e["name"] == name]
	assert len(calls("socket")) == 2, calls("socket")
	assert len(calls("bind")) == 1 and len(calls("listen")) == 1
	assert len(calls("connect")) == 1
	accepts = calls("accept") + calls("accept4")
	assert len(accepts) == 1, accepts
	sends = calls("sendto")
	assert len(sends) == 10 and all(e["args"]["ret"] == 1000 for e in sends), sends
	recvs = calls("recvfrom")
	assert len(recvs) >= 10 and sum(e["args"]["ret"] for e in recvs) == 10000
	fds = {e["args"]["ret"] for e in calls("socket") + accepts}
	assert len(fds) == 3, fds
	assert len([e for e in close if e["args"].get("fd") in fds]) == 3, close
	EOP
	test "$(pfw-query count t.pfw.gz --cat net --ph i --name sock:inet_sock_set_state)" -gt 0
'

test_expect_success BPF,PYTHON3 'dropped packets: 50 datagrams to a closed port, 50 drops' '
	printf "layers: [net]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" udpdrop 50 "$PWD/ksoftirqd" &&
	n=$(pfw-query count t.pfw.gz --cat net --ph i --name skb:kfree_skb --arg protocol=2048) &&
	# A drop the kernel made in ksoftirqd is in no traced task and is
	# not kept (dc-config(5)).  On older kernels (6.1) a ksoftirqd that runs
	# takes even the loopback packets the sender would have handled
	# (the 6.1 VM under load): all 50 only if none ran meanwhile.
	if test "$(cat ksoftirqd)" = "ksoftirqd 0"
	then
		want=50
	else
		echo "# $(cat ksoftirqd) switches in while sending: $n drops kept" &&
		want=$((n > 50 ? 50 : n))
	fi &&
	# What was found instead, by process and reason.
	if test "$n" != "$want"
	then
		echo "$n IPv4 drops, not $want; all drops by pid and reason:" &&
		pfw-query list t.pfw.gz --cat net --ph i --name skb:kfree_skb |
			sed -n "s/.*\"protocol\": \([0-9]*\), \"reason\": \([0-9]*\)}.*\"pid\": \([0-9]*\),.*/pid \3 protocol \1 reason \2/p" |
			sort | uniq -c
		false
	fi &&
	# sock_send_length is newer than some kernels (6.1 lacks it).
	if grep -q "sock:sock_send_length" probes.json; then
		test "$(pfw-query count t.pfw.gz --cat net --ph i --name sock:sock_send_length)" = 50
	fi
'

test_expect_success BPF,PYTHON3 '4 threads and 2 forked children traced completely, a bystander absent' '
	"$WORKLOAD" spin 3 "$PWD/bystander" &
	printf "layers: [posix]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" tree "$PWD" 50 &&
	wait &&
	for f in t0 t1 t2 t3 c0 c1; do
		n=$(pfw-query count t.pfw.gz --cat POSIX --name write --file "$PWD/$f" --size 4096) &&
		test "$n" = 50 || { echo "$f: $n writes of 4096 bytes, not 50"; return 1; }
	done &&
	pfw-query pids t.pfw.gz --cat POSIX --name write >pids &&
	test_line_count pids 3 &&
	n=$(pfw-query count t.pfw.gz --file "$PWD/bystander") &&
	{ test "$n" = 0 || { echo "the bystander: $n events"; false; }; } &&
	test -s bystander
'

# Four threads each open a file of their own, write 4 KiB and close it,
# 2,000 times: one thread's fd is freed by its close while another's
# open is getting it, and records come as calls return.  Through the
# client library and through uprobes.  (Before a2400ce dc-aggregate
# named no file for 1 to 2 writes of the 8,000 in each of 3 runs here,
# both ways.)
test_expect_success BPF,PYTHON3 'threads opening, writing and closing in turn: every write names its file' '
	printf "layers: [posix]\n" >c.yaml &&
	for how in fast uprobes; do
		rm -f r0 r1 r2 r3 &&
		opt= &&
		if test $how = uprobes; then opt=--no-preload; fi &&
		trace_ok c.yaml $how.pfw.gz $opt probes.sig -- "$WORKLOAD" reopen "$PWD" 2000 &&
		for f in r0 r1 r2 r3; do
			test "$(stat -c %s $f)" = 8192000 &&
			n=$(pfw-query count $how.pfw.gz --cat POSIX --name write --file "$PWD/$f" --size 4096) &&
			test "$n" = 2000 || {
				echo "$how: $f: $n writes of 4096 bytes, not 2000; of all of them," \
					"$(pfw-query count $how.pfw.gz --cat POSIX --name write --size 4096)" \
					"in the trace, $(pfw-query list $how.pfw.gz --cat POSIX --name write --size 4096 |
						grep -c -v fhash) naming no file"
				return 1
			}
		done || return 1
	done
'

test_expect_success BPF,PYTHON3 'a recursive function pairs at every depth' '
	{ recurse_layer &&
	  printf "    args:\n      dc_test_recurse: {args: [int], ret: int}\n"; } >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" recurse 10 &&
	test "$(pfw-query count t.pfw.gz --cat RECURSE)" = 11 &&
	for d in 0 1 2 3 4 5 6 7 8 9 10; do
		test "$(pfw-query count t.pfw.gz --cat RECURSE --arg level=$d --arg ret=$((10 - d)))" = 1 ||
		return 1
	done
'

test_expect_success BPF,PYTHON3 'USDT probes fire, gated ones too (semaphores raised)' '
	cat >c.yaml <<-EOC &&
	layers:
	  - name: DEMO
	    kind: usdt
	    target: $DC_BUILD_DIR/t/helpers/usdt-demo
	    include: ["^dcdemo:"]
	EOC
	trace c.yaml t.pfw.gz probes.sig -- "$DC_BUILD_DIR/t/helpers/usdt-demo" &&
	for site in start gated stop; do
		test "$(pfw-query count t.pfw.gz --ph i --cat DEMO --name dcdemo:$site)" = 1 ||
		return 1
	done
'

test_expect_success BPF,PYTHON3 'calls nested deeper than the kernel stack are counted, not lost silently' '
	recurse_layer >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" recurse 40 &&
	test "$(pfw-query count t.pfw.gz --cat RECURSE)" = 32 &&
	pfw-query list t.pfw.gz --name end >end &&
	grep "\"dropped\": 9" end &&
	grep "9 calls dropped: nested deeper than 32" collect.err
'

# tree.py TRACE: every event with a p_idx names an event of its thread
# that holds its start, one level up; prints "level p_idx-level" pairs.
write_tree_check() {
	cat >tree.py <<-\PY
	import gzip, json, sys
	ev = {}
	for line in gzip.open(sys.argv[1], "rt"):
	    line = line.strip().rstrip(",")
	    if line in ("[", "]", ""):
	        continue
	    o = json.loads(line)
	    ev[o["id"]] = o
	n = 0
	for o in ev.values():
	    p = o.get("args", {}).get("p_idx")
	    if p is None or o.get("cat") == "datacrumbs":
	        continue
	    q = ev[p]
	    assert q["tid"] == o["tid"], o
	    assert q["args"]["level"] == o["args"]["level"] - 1, o
	    assert q["ts"] <= o["ts"] <= q["ts"] + q["dur"], o
	    n += 1
	print(n)
	PY
}

test_expect_success BPF,PYTHON3 'the recursion the kernel stores nests exactly, call by call' '
	recurse_layer >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" recurse 20 &&
	write_tree_check &&
	test "$(python3 tree.py t.pfw.gz)" = 20 &&
	for level in 0 5 20; do
		test "$(pfw-query count t.pfw.gz --cat RECURSE --arg level=$level)" = 1 ||
		return 1
	done
'

# One stack slot (DC_TEST_STACK_SLOTS=0): of threads running at once, one
# holds it and the others keep their stacks in task storage, a thread
# that began there staying there when the slot is freed.
test_expect_success BPF,PYTHON3 'threads whose stack slot another holds trace completely and nest' '
	printf "layers: [posix, syscalls]\n" >c.yaml &&
	(DC_TEST_STACK_SLOTS=0 && export DC_TEST_STACK_SLOTS &&
	 trace_ok c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" tree "$PWD" 50) &&
	for f in t0 t1 t2 t3 c0 c1; do
		test "$(pfw-query count t.pfw.gz --cat POSIX --name write --file "$PWD/$f" --size 4096)" = 50 &&
		test "$(pfw-query count t.pfw.gz --cat sys --name write --file "$PWD/$f" --arg ret=4096)" = 50 ||
		return 1
	done &&
	write_tree_check &&
	python3 tree.py t.pfw.gz >n &&
	test "$(cat n)" -ge 300
'

# The call spans an idle flush of dc-write's (--flush-interval 1: the
# default, 5 s, would need a call of 6 s): its children still find it.
test_expect_success BPF,PYTHON3 'a syscall under a user function that sleeps past dc-write'"'"'s idle flush has that call as parent' '
	cat >c.yaml <<-EOC &&
	layers:
	  - name: SLOW
	    kind: uprobe
	    target: $WORKLOAD
	    functions: [dc_test_slow]
	    args:
	      dc_test_slow: {args: [path, int], ret: int}
	  - name: sys
	    kind: syscall
	    functions: [openat, write, close]
	    args:
	      openat: {args: [fd, path, flags, mode], ret: fd}
	      write: {args: [fd, ptr, size], ret: size}
	      close: {args: [fd], ret: status}
	EOC
	sign_spec c.yaml &&
	dc-collect -k "$SHARED/key" probes.sig -- "$WORKLOAD" slow 2 "$PWD/S" 2>collect.err |
		dc-aggregate | dc-write --flush-interval 1 t.pfw.gz &&
	cat >slow.py <<-\PY &&
	import gzip, json, sys
	ev = [json.loads(l.strip().rstrip(",")) for l in gzip.open(sys.argv[1], "rt")
	      if l.strip() not in ("[", "]")]
	slow = [o for o in ev if o["name"] == "dc_test_slow"]
	assert len(slow) == 1, slow
	slow = slow[0]
	assert slow["dur"] >= 2000000, slow
	writes = [o for o in ev if o["cat"] == "sys" and o["name"] == "write"
	          and o["args"].get("size") == 1 and o["args"].get("level") == 1]
	assert len(writes) == 2, writes
	for w in writes:
	    assert w["args"]["p_idx"] == slow["id"], (w, slow)
	# The second write came 2 s after the first, inside the same call.
	assert writes[1]["ts"] - writes[0]["ts"] >= 2000000 or \
	       writes[0]["ts"] - writes[1]["ts"] >= 2000000, writes
	print("ok")
	PY
	python3 slow.py t.pfw.gz &&
	write_tree_check &&
	python3 tree.py t.pfw.gz >n &&
	test "$(cat n)" -ge 4
'

test_expect_success BPF,PYTHON3,FULLSPEED 'a tiny ring buffer drops, and captured + dropped = issued' '
	write_layer >c.yaml &&
	trace c.yaml t.pfw.gz --ring-size 4096 --poll-ms 50 probes.sig -- \
		"$WORKLOAD" writes 200000 &&
	captured=$(pfw-query count t.pfw.gz --cat sys --name write --file /dev/null) &&
	pfw-query list t.pfw.gz --name dropped --ph i >drops &&
	dropped=$(grep "\"kind\": \"probe\"" drops |
		python3 -c "import json,sys; print(json.load(sys.stdin)[\"args\"][\"by\"].get(\"sys/write\", 0))") &&
	echo "captured $captured dropped $dropped" &&
	test "$dropped" -gt 0 &&
	test $((captured + dropped)) = 200000
'

test_expect_success BPF,PYTHON3,FULLSPEED,UNSANITIZED '1,000,000 write() calls in a tight loop lose nothing by default' '
	write_layer >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" writes 1000000 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name write --file /dev/null)" = 1000000 &&
	grep "1000[0-9]* events, 0 dropped" collect.err
'

test_expect_success BPF,PYTHON3 'profile mode: counters per interval add up to every call' '
	{ printf "mode: profile\ninterval_ms: 100\n" && write_layer; } >c.yaml &&
	cat c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" writes 50000 "$PWD/out" &&
	grep "profile mode: counters every 100 ms" collect.err &&
	test "$(pfw-query count t.pfw.gz --cat sys --name write)" = 0 &&
	pfw-query list t.pfw.gz --ph C --cat sys --name write >counters &&
	python3 - <<-\EOP
	import json
	c = [json.loads(l)["args"] for l in open("counters")]
	assert len(c) >= 1, c
	assert sum(a["calls"] for a in c) == 50000, c
	assert sum(a["bytes"] for a in c) == 50000, c
	assert sum(a["errors"] for a in c) == 0, c
	EOP
'

# The process to trace lives until the test stops it: the collector may
# take longer than any fixed time to start (6.1 under TCG at load 20
# took over 30 s and found the process gone).
test_expect_success BPF,PYTHON3 'SIGTERM drains, ends the stream and exits 0' '
	sleep 3600 &
	sleeper=$! &&
	test_when_finished "test_kill_pid $sleeper sleep" &&
	printf "layers: [syscalls]\n" >c.yaml &&
	{ trace c.yaml t.pfw.gz --pid $sleeper --ready-file ready probes.sig & } &&
	tracer=$! &&
	wait_for_file ready &&
	collector=$(ready_pid ready) &&
	test_when_finished "test_kill_pid -INT $collector dc-collect" &&
	kill -TERM "$collector" &&
	wait $tracer &&
	test "$(cat collect.rc)" = 0 &&
	pfw-query list t.pfw.gz --name end >end &&
	grep "\"interrupted\": true" end
'

test_expect_success BPF 'the output file is created 0600 and never overwritten; the run id is checked' '
	printf "layers: [syscalls]\n" >c.yaml &&
	dc-gen c.yaml >p.json && dc-sign -k "$SHARED/key" -o p.sig p.json &&
	dc-collect -k "$SHARED/key" --run-id run-1 -o out.dcs p.sig -- true 2>err &&
	test "$(stat -c %a out.dcs)" = 600 &&
	test_must_fail_with 1 dc-collect -k "$SHARED/key" -o out.dcs p.sig -- true 2>err &&
	grep "cannot create out.dcs" err &&
	ln -s /etc/passwd link.dcs &&
	test_must_fail_with 1 dc-collect -k "$SHARED/key" -o link.dcs p.sig -- true 2>err &&
	test_must_fail_with 2 dc-collect -k "$SHARED/key" --run-id ../x -o x.dcs p.sig -- true 2>err &&
	grep "bad run id" err &&
	test ! -e x.dcs
'

test_expect_success BPF,PYTHON3 'kernel-function probes fall back, said in one line' '
	cat >p.json <<-EOJ &&
	{"datacrumbs_probes": 1, "probes": [
	 {"layer": "kernel", "kind": "kfunc", "function": "vfs_read", "args": [], "ret": "size"},
	 {"layer": "sys", "kind": "syscall", "function": "close", "nr": 3, "args": ["fd"], "ret": "status"}]}
	EOJ
	dc-sign -k "$SHARED/key" -o p.sig p.json &&
	dc-collect -k "$SHARED/key" p.sig -- true 2>err | dc-aggregate | dc-write t.pfw.gz &&
	if grep -q "kprobes yes" err; then
		test "$(pfw-query count t.pfw.gz --cat kernel --name vfs_read)" -gt 0
	else
		test "$(grep -c "kernel-function probes skipped" err)" = 1
	fi
'

# A cgroup v2 hierarchy: the host's, or one mounted for the tests.
cgroup2_root() {
	awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts
}
# rmdir_cgroup DIR: remove a test cgroup and the ones below it.  A task
# that has just exited can keep a cgroup busy for a moment: retry, 10 s.
rmdir_cgroup() {
	test -d "$1" || return 0
	_tries=100
	until find "$1" -depth -type d -exec rmdir {} + 2>/dev/null; do
		_tries=$((_tries - 1))
		test "$_tries" -gt 0 || { echo "cannot remove cgroup $1" >&2; return 1; }
		sleep 0.1
	done
}
test_lazy_prereq CGROUP2 '
	test -n "$(cgroup2_root)" || {
		mkdir -p /tmp/dc-test-cgroup2 &&
		mount -t cgroup2 none /tmp/dc-test-cgroup2
	} || { echo "no cgroup v2 hierarchy and cannot mount one"; false; }
'

test_expect_success BPF,CGROUP2,PYTHON3 '--cgroup traces what runs in the cgroup and below, nothing else' '
	cg="$(cgroup2_root)/dc-test-$$" &&
	mkdir -p "$cg/inner" &&
	test_when_finished "rmdir_cgroup \"$cg\"" &&
	printf "layers: [posix]\n" >c.yaml &&
	dc-gen c.yaml >p.json && dc-sign -k "$SHARED/key" -o p.sig p.json &&
	{ dc-collect -k "$SHARED/key" --cgroup "$cg" --ready-file ready p.sig 2>err |
		dc-aggregate | dc-write t.pfw.gz & } &&
	wait_for_file ready &&
	collector=$(ready_pid ready) &&
	test_when_finished "test_kill_pid -INT $collector dc-collect" &&
	# Absolute paths: dd is done in a millisecond, often before the
	# collector reads its /proc entry, so its cwd may be unknown and a
	# relative name would stay unresolved (the old flake of this test).
	sh -c "echo \$\$ >\"$cg/inner/cgroup.procs\" && exec dd if=/dev/zero of=\"$PWD/IN\" bs=4k count=7 2>/dev/null" &&
	dd if=/dev/zero of="$PWD/OUT" bs=4k count=5 2>/dev/null &&
	kill -INT "$collector" &&
	wait &&
	test "$(pfw-query count t.pfw.gz --cat POSIX --name write --file "$PWD/IN")" = 7 &&
	test "$(pfw-query count t.pfw.gz --file "$PWD/OUT")" = 0
'

test_expect_success BPF 'a reader that dies: one line, exit 1, and the command still finishes' '
	printf "layers: [syscalls]\n" >c.yaml &&
	dc-gen c.yaml >p.json && dc-sign -k "$SHARED/key" -o p.sig p.json &&
	{ dc-collect -k "$SHARED/key" p.sig -- sh -c \
		"sleep 1; dd if=/dev/zero of=F bs=64k count=64 2>/dev/null" \
		2>err; echo $? >rc; } | head -c 100 >/dev/null &&
	test "$(cat rc)" = 1 &&
	grep "the stream.s reader went away; stopping" err &&
	test "$(stat -c %s F)" = 4194304
'

test_expect_success 'bad options: exit 2 with a one-line reason' '
	test_must_fail_with 2 dc-collect 2>err &&
	grep "missing the signed probe spec" err &&
	test_must_fail_with 2 dc-collect --ring-size 1000 x.sig -- true 2>err &&
	grep "power of two" err &&
	test_must_fail_with 2 dc-collect --pid 1 --all x.sig 2>err &&
	test_must_fail_with 2 dc-collect x.sig --no-preload -- true 2>err &&
	grep "^dc-collect: --no-preload after the probe spec: options go before it" err &&
	dc-collect --help | grep "^Usage: dc-collect" &&
	dc-collect --version | grep datacrumbs
'

test_done

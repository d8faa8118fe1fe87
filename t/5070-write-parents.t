#!/bin/sh
# dc-write: p_idx, the id of each event's parent.  The collector writes a
# call when it returns, so children arrive before their parent; dc-write
# holds them and writes each group in order of entry.
. "$(dirname "$0")/test-lib.sh"

probes() {
	cat <<-\IN
	header host=node1 run=r1 offset=1700000000000000000 start=1000
	probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	probe id=1 kind=syscall layer=sys name=write args=fd,ptr,size ret=size
	probe id=2 kind=tracepoint layer=mm name=fault args=index
	probe id=3 kind=uprobe layer=APP name=fib target=/bin/app args=int ret=int
	probe id=4 kind=tracepoint layer=block name=block_rq args=dev,sector,size,op ret=status
	IN
}

# Events only, "name level p_idx id" per line, in file order.  Level-0
# events carry no p_idx (they have no parent): shown as -1 here.
events() {
	grep "\"ph\":\"[Xi]\",.*\"level\"" "$1" |
	sed '/"cat":"datacrumbs"/!s/"level":0}}$/"level":0,"p_idx":-1}}/' |
	sed "s/^{\"id\":\([0-9]*\),\"name\":\"\([^\"]*\)\".*\"level\":\([0-9]*\),\"p_idx\":\(-*[0-9]*\)}}$/\2 \3 \4 \1/"
}

test_expect_success 'a group is written in order of entry, children under parents' '
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=0 pid=100 tid=100 ts=1000 dur=1000 ret=1 depth=0 args=3,0,1
	instant probe=2 pid=100 tid=100 ts=5500 depth=2 args=7
	call probe=1 pid=100 tid=100 ts=5000 dur=2000 ret=4096 depth=1 args=3,0,4096
	call probe=0 pid=100 tid=100 ts=4000 dur=4000 ret=4096 depth=0 args=3,0,4096
	end
	IN
	cat >expect <<-\EXPECT &&
	[
	{"id":1,"name":"HH","cat":"datacrumbs","pid":0,"tid":0,"ph":"M","args":{"name":"node1","value":4145648582732102}}
	{"id":2,"name":"start","cat":"datacrumbs","pid":0,"tid":0,"ts":1700000000000001,"dur":0,"ph":"X","args":{"hhash":4145648582732102,"host":"node1","run":"r1","format":1}}
	{"id":3,"name":"thread_name","cat":"datacrumbs","pid":100,"tid":100,"ph":"M","args":{"name":"100"}}
	{"id":4,"name":"write","cat":"POSIX","pid":100,"tid":100,"ts":1700000000000001,"dur":1,"ph":"X","args":{"hhash":4145648582732102,"fd":3,"size":1,"ret":1,"level":0}}
	{"id":5,"name":"write","cat":"POSIX","pid":100,"tid":100,"ts":1700000000000004,"dur":4,"ph":"X","args":{"hhash":4145648582732102,"fd":3,"size":4096,"ret":4096,"level":0}}
	{"id":6,"name":"write","cat":"sys","pid":100,"tid":100,"ts":1700000000000005,"dur":2,"ph":"X","args":{"hhash":4145648582732102,"fd":3,"size":4096,"ret":4096,"level":1,"p_idx":5}}
	{"id":7,"name":"fault","cat":"mm","pid":100,"tid":100,"ts":1700000000000005,"dur":0,"ph":"i","s":"t","args":{"hhash":4145648582732102,"index":7,"level":2,"p_idx":6}}
	{"id":8,"name":"end","cat":"datacrumbs","pid":0,"tid":0,"ts":1700000000000008,"dur":0,"ph":"X","args":{"hhash":4145648582732102,"num_events":7,"events":4,"dropped":0,"truncated":false,"corrupt":false,"interrupted":false}}
	EXPECT
	dc-mkstream in.txt | dc-write --plain - >out.pfw 2>err &&
	test_cmp expect out.pfw &&
	test ! -s err &&
	dc-write --check out.pfw
'

test_expect_success PYTHON3 'a recursive chain and siblings, threads interleaved' '
	# fib(0) calls fib(1) twice, each fib(1) calls fib(2) ... on tid 1;
	# tid 2 runs flat calls between the records of tid 1.
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=3 pid=9 tid=1 ts=1300 dur=100 depth=3 args=3 ret=3
	call probe=0 pid=9 tid=2 ts=1000 dur=10 depth=0 args=1,0,1 ret=1
	call probe=3 pid=9 tid=1 ts=1200 dur=300 depth=2 args=2 ret=2
	call probe=3 pid=9 tid=1 ts=1100 dur=500 depth=1 args=1 ret=1
	call probe=3 pid=9 tid=1 ts=1700 dur=50 depth=2 args=2 ret=2
	call probe=0 pid=9 tid=2 ts=2000 dur=10 depth=0 args=1,0,1 ret=1
	call probe=3 pid=9 tid=1 ts=1650 dur=200 depth=1 args=1 ret=1
	call probe=3 pid=9 tid=1 ts=1000 dur=2000 depth=0 args=0 ret=0
	end
	IN
	dc-mkstream in.txt | dc-write --plain - >out.pfw &&
	events out.pfw >got &&
	cat >expect <<-\EXPECT &&
	write 0 -1 4
	write 0 -1 5
	fib 0 -1 7
	fib 1 7 8
	fib 2 8 9
	fib 3 9 10
	fib 1 7 11
	fib 2 11 12
	EXPECT
	test_cmp expect got &&
	cat >parents.py <<-\PY &&
	import json, sys
	seen = {}
	n = 0
	for line in open(sys.argv[1]):
	    if line.strip() in "[]":
	        continue
	    o = json.loads(line)
	    seen[o["id"]] = o
	    a = o.get("args", {})
	    p = a.get("p_idx")
	    if p is None and a.get("level") == 0 and o.get("cat") != "datacrumbs" \
	            and o.get("ph") in ("X", "i"):
	        p = -1  # level 0: no parent, no p_idx
	    if p is None:
	        continue
	    n += 1
	    if p == -1:
	        continue
	    q = seen[p]
	    assert q["tid"] == o["tid"] and q["ph"] == "X", line
	    assert q["ts"] <= o["ts"] <= q["ts"] + q["dur"], line
	    assert q["args"]["level"] == o["args"]["level"] - 1, line
	print(n)
	PY
	python3 parents.py out.pfw >n &&
	echo 8 >expect &&
	test_cmp expect n &&
	dc-write --check out.pfw
'

test_expect_success 'an outer call that never returns: its children are written at the end' '
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=1 pid=5 tid=5 ts=2000 dur=100 depth=1 args=3,0,1 ret=1
	instant probe=2 pid=5 tid=5 ts=2500 depth=1 args=1
	call probe=1 pid=5 tid=5 ts=3000 dur=100 depth=1 args=3,0,2 ret=2
	call probe=0 pid=5 tid=6 ts=3000 dur=100 depth=0 args=3,0,3 ret=3
	end
	IN
	dc-mkstream in.txt | dc-write --plain - >out.pfw &&
	events out.pfw >got &&
	cat >expect <<-\EXPECT &&
	write 0 -1 4
	write 1 -1 6
	fault 1 -1 7
	write 1 -1 8
	EXPECT
	test_cmp expect got &&
	grep "\"events\":4," out.pfw &&
	dc-write --check out.pfw
'

test_expect_success 'a truncated stream still writes what was held' '
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=1 pid=5 tid=5 ts=2000 dur=100 depth=1 args=3,0,1 ret=1
	call probe=1 pid=5 tid=5 ts=3000 dur=100 depth=1 args=3,0,2 ret=2
	truncate 20
	string id=1 value=/never/whole
	IN
	dc-mkstream in.txt >in.dcs &&
	test_must_fail_with 3 dc-write --plain -i in.dcs out.pfw 2>err &&
	events out.pfw >got &&
	cat >expect <<-\EXPECT &&
	write 1 -1 4
	write 1 -1 5
	EXPECT
	test_cmp expect got &&
	grep "\"truncated\":true" out.pfw
'

test_expect_success 'an instant outside every call ends a group whose outer call was lost' '
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=1 pid=5 tid=5 ts=2000 dur=100 depth=1 args=3,0,1 ret=1
	instant probe=2 pid=5 tid=5 ts=5000 depth=0 args=1
	call probe=1 pid=5 tid=5 ts=6000 dur=100 depth=1 args=3,0,2 ret=2
	call probe=0 pid=5 tid=5 ts=5500 dur=1000 depth=0 args=3,0,2 ret=2
	end
	IN
	dc-mkstream in.txt | dc-write --plain - >out.pfw &&
	events out.pfw >got &&
	cat >expect <<-\EXPECT &&
	write 1 -1 4
	fault 0 -1 5
	write 0 -1 6
	write 1 6 7
	EXPECT
	test_cmp expect got
'

test_expect_success 'async work takes the call it started in, held or written' '
	# Block I/O issued inside the syscall: one request completes before
	# the calls return, one after; a third on a thread with no calls.
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=4 pid=5 tid=5 ts=2100 dur=300 depth=3 args=8388609,8,4096,87 flags=8
	call probe=1 pid=5 tid=5 ts=2000 dur=1000 depth=1 args=3,0,4096 ret=4096
	call probe=0 pid=5 tid=5 ts=1500 dur=2000 depth=0 args=3,0,4096 ret=4096
	call probe=4 pid=5 tid=5 ts=2900 dur=9000 depth=3 args=8388609,16,4096,87 flags=8
	call probe=4 pid=5 tid=7 ts=2900 dur=9000 depth=1 args=8388609,24,4096,87 flags=8
	end
	IN
	dc-mkstream in.txt | dc-write --plain - >out.pfw &&
	events out.pfw >got &&
	cat >expect <<-\EXPECT &&
	write 0 -1 4
	write 1 4 5
	block_rq 3 5 7
	block_rq 3 5 8
	block_rq 1 -1 10
	EXPECT
	test_cmp expect got &&
	dc-write --check out.pfw
'

test_expect_success PYTHON3 'a thread holds at most 65536 records: the rest keep their parent' '
	# 65536 + 4 children of one call that returns last.
	{ probes && cat <<-\IN; } >in.txt &&
	repeat 65540 call probe=1 pid=5 tid=5 ts=2000 dur=10 depth=1 args=3,0,1 ret=1
	call probe=0 pid=5 tid=5 ts=1000 dur=100000000 depth=0 args=3,0,1 ret=1
	end
	IN
	dc-mkstream in.txt | dc-write out.pfw.gz &&
	dc-write --check out.pfw.gz &&
	gzip -dc out.pfw.gz >out.pfw &&
	cat >count.py <<-\PY &&
	import json, sys, collections
	c = collections.Counter()
	ids = {}
	for line in open(sys.argv[1]):
	    if line.strip() in "[]":
	        continue
	    o = json.loads(line)
	    top = o["args"].get("level") == 0 and o["cat"] != "datacrumbs" and o["ph"] in ("X", "i")
	    if "p_idx" in o["args"] or top:
	        ids[o["id"]] = o
	        p = o["args"].get("p_idx", -1)
	        par = "-" if p == -1 else ids[p]["args"]["level"]
	        c["%s %d %s" % (o["name"], o["args"]["level"], par)] += 1
	for k in sorted(c):
	    print(k, c[k])
	PY
	python3 count.py out.pfw >got &&
	cat >expect <<-\EXPECT &&
	write 0 - 1
	write 1 - 65536
	write 1 0 4
	EXPECT
	test_cmp expect got
'

test_expect_success 'idle input: held records are written after --flush-interval' '
	{ probes && cat <<-\IN; } >in.txt &&
	repeat 3 call probe=1 pid=5 tid=5 ts=2000 dur=100 depth=1 args=3,0,1 ret=1
	end
	IN
	dc-mkstream in.txt >in.dcs &&
	mkfifo fifo &&
	{ dc-write --flush-interval 1 out.pfw.gz <fifo 2>err & } &&
	writer=$! &&
	exec 9>fifo &&
	cat in.dcs >&9 &&
	i=0 &&
	while test $i -lt 100 &&
	      test "$(gzip -dc out.pfw.gz 2>/dev/null | grep -c "\"level\":1,\"p_idx\":-1}}")" != 3; do
		sleep 0.1; i=$((i + 1))
	done &&
	test $i -lt 100 &&
	exec 9>&- &&
	wait $writer &&
	gzip -dc out.pfw.gz | tail -n 1 | grep "\"name\":\"end\".*\"events\":3,"
'

test_expect_success 'all threads hold at most 64 MiB: the largest group goes first' '
	# 9 threads of 7000 children of about 1 KiB: 7.5 MB each, under the
	# 8 MiB of one thread, 67.5 MB in all.  Thread 1 fills first.
	path=/$(printf "%01000d" 0) &&
	{
		echo "probe id=0 layer=POSIX name=open args=path ret=fd" &&
		for t in 1 2 3 4 5 6 7 8 9; do
			echo "repeat 7000 call probe=0 pid=5 tid=$t ts=2000 dur=10 depth=1 args=0 ret=1 str=$path"
		done &&
		for t in 1 2 3 4 5 6 7 8 9; do
			echo "call probe=0 pid=5 tid=$t ts=1000 dur=100000000000 depth=0 args=0 ret=1 str=/x"
		done &&
		echo end
	} >in.txt &&
	dc-mkstream in.txt >in.dcs &&
	dc-write --plain -i in.dcs out.pfw &&
	rm in.dcs &&
	for t in 1 2 3 4 5 6 7 8 9; do
		echo "$t $(grep -c "\"tid\":$t,.*\"level\":1,\"p_idx\":-1}}" out.pfw)" || return 1
	done >got &&
	cat >expect <<-\EXPECT &&
	1 7000
	2 0
	3 0
	4 0
	5 0
	6 0
	7 0
	8 0
	9 0
	EXPECT
	test_cmp expect got &&
	test "$(grep -c "\"level\":1,\"p_idx\":[0-9]" out.pfw)" = 56000 &&
	rm out.pfw
'

test_done

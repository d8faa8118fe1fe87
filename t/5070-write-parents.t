#!/bin/sh
# dc-write: id and p_idx.  dc-aggregate decides every event's parent and
# numbers the events (t/4020-calltree.t); dc-write prints twice those
# numbers as id and p_idx, gives its own lines the odd ids, and holds
# nothing: each record is written when it arrives.
. "$(dirname "$0")/test-lib.sh"

# probes [IDS]: IDS 1 (default) for a stream as dc-aggregate writes it,
# 0 for one as dc-collect writes it.
probes() {
	echo "header host=node1 run=r1 offset=1700000000000000000 start=1000 ids=${1:-1}" &&
	cat <<-\IN
	probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	probe id=1 kind=syscall layer=sys name=write args=fd,ptr,size ret=size
	probe id=2 kind=tracepoint layer=mm name=fault args=index
	probe id=3 kind=uprobe layer=APP name=fib target=/bin/app args=int ret=int
	probe id=4 kind=tracepoint layer=block name=block_rq args=dev,sector,size,op ret=status
	IN
}

# Events only, "name level p_idx id" per line, in file order; "-" for an
# event with no p_idx (it has no parent).
events() {
	grep "\"ph\":\"[Xi]\",.*\"level\"" "$1" |
	grep -v "\"cat\":\"datacrumbs\"" |
	sed -e "s/^{\"id\":\([0-9]*\),\"name\":\"\([^\"]*\)\".*\"level\":\([0-9]*\)\(,\"p_idx\":\(-*[0-9]*\)\)*}}$/\2 \3 \5 \1/" \
	    -e "s/  / - /"
}

test_expect_success 'ids are twice the stream ids, own lines odd, written as they come' '
	probes >in.txt &&
	cat >>in.txt <<-\IN &&
	call probe=0 pid=100 tid=100 ts=1000 dur=1000 ret=1 depth=0 args=3,0,1 seq=1
	instant probe=2 pid=100 tid=100 ts=5500 depth=2 args=7 seq=2 parent=3
	call probe=1 pid=100 tid=100 ts=5000 dur=2000 ret=4096 depth=1 args=3,0,4096 seq=3 parent=4
	call probe=0 pid=100 tid=100 ts=4000 dur=4000 ret=4096 depth=0 args=3,0,4096 seq=4
	end
	IN
	cat >expect <<-\EXPECT &&
	[
	{"id":1,"name":"HH","cat":"datacrumbs","pid":0,"tid":0,"ph":"M","args":{"name":"node1","value":4145648582732102}}
	{"id":3,"name":"start","cat":"datacrumbs","pid":0,"tid":0,"ts":1700000000000001,"dur":0,"ph":"X","args":{"hhash":4145648582732102,"host":"node1","run":"r1","format":1}}
	{"id":5,"name":"thread_name","cat":"datacrumbs","pid":100,"tid":100,"ph":"M","args":{"name":"100"}}
	{"id":2,"name":"write","cat":"POSIX","pid":100,"tid":100,"ts":1700000000000001,"dur":1,"ph":"X","args":{"hhash":4145648582732102,"fd":3,"size":1,"ret":1,"level":0}}
	{"id":4,"name":"fault","cat":"mm","pid":100,"tid":100,"ts":1700000000000005,"dur":0,"ph":"i","s":"t","args":{"hhash":4145648582732102,"index":7,"level":2,"p_idx":6}}
	{"id":6,"name":"write","cat":"sys","pid":100,"tid":100,"ts":1700000000000005,"dur":2,"ph":"X","args":{"hhash":4145648582732102,"fd":3,"size":4096,"ret":4096,"level":1,"p_idx":8}}
	{"id":8,"name":"write","cat":"POSIX","pid":100,"tid":100,"ts":1700000000000004,"dur":4,"ph":"X","args":{"hhash":4145648582732102,"fd":3,"size":4096,"ret":4096,"level":0}}
	{"id":7,"name":"end","cat":"datacrumbs","pid":0,"tid":0,"ts":1700000000000008,"dur":0,"ph":"X","args":{"hhash":4145648582732102,"num_events":7,"events":4,"dropped":0,"truncated":false,"corrupt":false,"interrupted":false}}
	EXPECT
	dc-mkstream in.txt | dc-write --plain - >out.pfw 2>err &&
	test_cmp expect out.pfw &&
	test ! -s err &&
	dc-write --check out.pfw
'

test_expect_success PYTHON3 'a recursive chain and siblings, threads interleaved, through dc-aggregate' '
	# fib(0) calls fib(1) twice, each fib(1) calls fib(2) ... on tid 1;
	# tid 2 runs flat calls between the records of tid 1.
	probes 0 >in.txt &&
	cat >>in.txt <<-\IN &&
	call probe=3 pid=9 tid=1 ts=1300 dur=100 depth=3 args=3 ret=3 seq=4 parent=3
	call probe=0 pid=9 tid=2 ts=1000 dur=10 depth=0 args=1,0,1 ret=1 seq=1
	call probe=3 pid=9 tid=1 ts=1200 dur=300 depth=2 args=2 ret=2 seq=3 parent=2
	call probe=3 pid=9 tid=1 ts=1100 dur=500 depth=1 args=1 ret=1 seq=2 parent=1
	call probe=3 pid=9 tid=1 ts=1700 dur=50 depth=2 args=2 ret=2 seq=6 parent=5
	call probe=0 pid=9 tid=2 ts=2000 dur=10 depth=0 args=1,0,1 ret=1 seq=2
	call probe=3 pid=9 tid=1 ts=1650 dur=200 depth=1 args=1 ret=1 seq=5 parent=1
	call probe=3 pid=9 tid=1 ts=1000 dur=2000 depth=0 args=0 ret=0 seq=1
	end
	IN
	dc-mkstream in.txt | dc-aggregate | dc-write --plain - >out.pfw &&
	events out.pfw >got &&
	cat >expect <<-\EXPECT &&
	fib 3 4 2
	write 0 - 6
	fib 2 8 4
	fib 1 10 8
	fib 2 14 12
	write 0 - 16
	fib 1 10 14
	fib 0 - 10
	EXPECT
	test_cmp expect got &&
	cat >parents.py <<-\PY &&
	import json, sys
	seen = {}
	kids = []
	for line in open(sys.argv[1]):
	    if line.strip() in "[]":
	        continue
	    o = json.loads(line)
	    seen[o["id"]] = o
	    if "p_idx" in o.get("args", {}):
	        kids.append(o)
	for o in kids:
	    q = seen[o["args"]["p_idx"]]
	    assert q["tid"] == o["tid"] and q["ph"] == "X", o
	    assert q["ts"] <= o["ts"] <= q["ts"] + q["dur"], o
	    assert q["args"]["level"] == o["args"]["level"] - 1, o
	print(len(kids))
	PY
	python3 parents.py out.pfw >n &&
	echo 5 >expect &&
	test_cmp expect n &&
	dc-write --check out.pfw
'

test_expect_success 'a parent that never returned: its children name it, nothing waits' '
	probes 0 >in.txt &&
	cat >>in.txt <<-\IN &&
	call probe=1 pid=5 tid=5 ts=2000 dur=100 depth=1 args=3,0,1 ret=1 seq=2 parent=1
	call probe=1 pid=5 tid=5 ts=3000 dur=100 depth=1 args=3,0,2 ret=2 seq=3 parent=1
	call probe=0 pid=5 tid=6 ts=3000 dur=100 depth=0 args=3,0,3 ret=3 seq=1
	end
	IN
	dc-mkstream in.txt | dc-aggregate 2>err | dc-write --plain - >out.pfw &&
	events out.pfw >got &&
	cat >expect <<-\EXPECT &&
	write 1 4 2
	write 1 4 6
	write 0 - 8
	EXPECT
	test_cmp expect got &&
	grep "1 calls still open at the end" err &&
	grep "\"events\":3," out.pfw &&
	dc-write --check out.pfw
'

test_expect_success 'a truncated stream: everything that arrived is written' '
	probes >in.txt &&
	cat >>in.txt <<-\IN &&
	call probe=1 pid=5 tid=5 ts=2000 dur=100 depth=1 args=3,0,1 ret=1 parent=9
	call probe=1 pid=5 tid=5 ts=3000 dur=100 depth=1 args=3,0,2 ret=2 parent=9
	truncate 20
	string id=1 value=/never/whole
	IN
	dc-mkstream in.txt >in.dcs &&
	test_must_fail_with 3 dc-write --plain -i in.dcs out.pfw 2>err &&
	events out.pfw >got &&
	cat >expect <<-\EXPECT &&
	write 1 18 2
	write 1 18 4
	EXPECT
	test_cmp expect got &&
	grep "\"truncated\":true" out.pfw
'

test_expect_success 'an orphan prints p_idx -1 and is counted in the end event' '
	probes >in.txt &&
	cat >>in.txt <<-\IN &&
	instant probe=2 pid=5 tid=5 ts=5000 depth=40 args=1 flags=16
	call probe=4 pid=5 tid=5 ts=2900 dur=9000 depth=1 args=8388609,24,4096,87 flags=8
	end
	IN
	dc-mkstream in.txt | dc-write --plain - >out.pfw &&
	events out.pfw >got &&
	cat >expect <<-\EXPECT &&
	fault 40 -1 2
	block_rq 1 - 4
	EXPECT
	test_cmp expect got &&
	grep "\"name\":\"end\".*\"dropped\":0,\"orphans\":1," out.pfw &&
	dc-write --check out.pfw
'

test_expect_success 'idle input: what arrived is readable after --flush-interval' '
	probes >in.txt &&
	cat >>in.txt <<-\IN &&
	repeat 3 call probe=1 pid=5 tid=5 ts=2000 dur=100 depth=1 args=3,0,1 ret=1 parent=99
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
	      test "$(gzip -dc out.pfw.gz 2>/dev/null | grep -c "\"level\":1,\"p_idx\":198}}")" != 3; do
		sleep 0.1; i=$((i + 1))
	done &&
	test $i -lt 100 &&
	exec 9>&- &&
	wait $writer &&
	gzip -dc out.pfw.gz | tail -n 1 | grep "\"name\":\"end\".*\"events\":3,"
'

test_done

#!/bin/sh
# dc-write: the exact lines written for every record type (a stream with
# a fixed clock offset, so every byte of the trace is known).
. "$(dirname "$0")/test-lib.sh"

write_input() {
	cat >in.txt <<-\IN
	header host=node1 run=r1 offset=1700000000000000000 start=1000
	probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	probe id=1 kind=uprobe layer=POSIX name=open target=/lib/libc.so.6 args=path,flags,mode ret=fd
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/dd cmdline="dd if=x of=y" cwd=/tmp
	string id=3 value=/tmp/f
	call probe=1 pid=100 tid=100 ts=4000 dur=500 ret=3 args=0,65,420 str=/tmp/f file=3
	call probe=0 pid=100 tid=100 ts=5000 dur=2000 ret=4096 depth=0 args=3,0,4096 file=3
	instant probe=0 pid=100 tid=100 ts=9500
	fork pid=100 tid=100 ts=10000 child=101
	exec pid=101 ts=11000 str=/bin/x
	exitproc pid=101 ts=12000 ret=2
	drops kind=cpu total=5 0=3 1=2
	end
	IN
}

write_expect() {
	cat >expect <<-\EXPECT
	[
	{"id":1,"name":"HH","cat":"datacrumbs","pid":0,"tid":0,"ph":"M","args":{"name":"node1","value":4145648582732102}}
	{"id":3,"name":"start","cat":"datacrumbs","pid":0,"tid":0,"ts":1700000000000001,"dur":0,"ph":"X","args":{"hhash":4145648582732102,"host":"node1","run":"r1","format":1}}
	{"id":5,"name":"PR","cat":"datacrumbs","pid":100,"tid":100,"ph":"M","args":{"name":"/bin/dd","value":4300590314256813,"rank":-1,"ppid":1,"uid":0,"gid":0,"cmdline":"dd if=x of=y","cwd":"/tmp"}}
	{"id":7,"name":"process_name","cat":"datacrumbs","pid":100,"tid":100,"ph":"M","args":{"name":"dd (100)"}}
	{"id":9,"name":"thread_name","cat":"datacrumbs","pid":100,"tid":100,"ph":"M","args":{"name":"100"}}
	{"id":11,"name":"FH","cat":"datacrumbs","pid":100,"tid":100,"ph":"M","args":{"name":"/tmp/f","value":344000883352744}}
	{"id":2,"name":"open","cat":"POSIX","pid":100,"tid":100,"ts":1700000000000004,"dur":0,"ph":"X","args":{"hhash":4145648582732102,"fhash":344000883352744,"flags":65,"mode":420,"ret":3,"level":0}}
	{"id":4,"name":"write","cat":"POSIX","pid":100,"tid":100,"ts":1700000000000005,"dur":2,"ph":"X","args":{"hhash":4145648582732102,"fhash":344000883352744,"fd":3,"size":4096,"ret":4096,"level":0}}
	{"id":6,"name":"write","cat":"POSIX","pid":100,"tid":100,"ts":1700000000000009,"dur":0,"ph":"i","s":"t","args":{"hhash":4145648582732102,"ret":0,"level":0}}
	{"id":8,"name":"fork","cat":"POSIX","pid":100,"tid":100,"ts":1700000000000010,"dur":0,"ph":"i","s":"t","args":{"hhash":4145648582732102,"child":101,"level":0}}
	{"id":13,"name":"PR","cat":"datacrumbs","pid":101,"tid":101,"ph":"M","args":{"name":"/bin/x","value":8858493123116091,"rank":-1,"ppid":100,"uid":0,"gid":0,"cmdline":"/bin/x","cwd":"/tmp","since":1700000000000011,"origin":"exec"}}
	{"id":15,"name":"process_name","cat":"datacrumbs","pid":101,"tid":101,"ph":"M","args":{"name":"x (101)"}}
	{"id":17,"name":"thread_name","cat":"datacrumbs","pid":101,"tid":101,"ph":"M","args":{"name":"101"}}
	{"id":19,"name":"FH","cat":"datacrumbs","pid":101,"tid":101,"ph":"M","args":{"name":"/bin/x","value":8858493123116091}}
	{"id":10,"name":"exec","cat":"POSIX","pid":101,"tid":101,"ts":1700000000000011,"dur":0,"ph":"i","s":"t","args":{"hhash":4145648582732102,"fhash":8858493123116091,"level":0}}
	{"id":12,"name":"exit","cat":"POSIX","pid":101,"tid":101,"ts":1700000000000012,"dur":0,"ph":"i","s":"t","args":{"hhash":4145648582732102,"ret":2,"level":0}}
	{"id":21,"name":"dropped","cat":"datacrumbs","pid":0,"tid":0,"ts":1700000000000012,"dur":0,"ph":"i","s":"g","args":{"kind":"cpu","total":5,"by":{"0":3,"1":2}}}
	{"id":23,"name":"end","cat":"datacrumbs","pid":0,"tid":0,"ts":1700000000000012,"dur":0,"ph":"X","args":{"hhash":4145648582732102,"num_events":17,"events":6,"dropped":5,"truncated":false,"corrupt":false,"interrupted":false}}
	EXPECT
}

test_expect_success 'every record type gives its exact trace lines' '
	write_input &&
	write_expect &&
	dc-mkstream in.txt >in.dcs &&
	dc-write -i in.dcs out.pfw 2>err &&
	test_cmp expect out.pfw &&
	test_must_be_empty() { test ! -s "$1"; } &&
	test_must_be_empty err
'

test_expect_success 'events kept unattributed: an instant of their own and a count, not in dropped' '
	write_input &&
	sed -i "/^end\$/i drops kind=unattributed total=5 1=2" in.txt &&
	dc-mkstream in.txt >in.dcs &&
	dc-write -i in.dcs out.pfw 2>err &&
	grep "\"name\":\"unattributed\"" out.pfw >got &&
	grep -q "\"s\":\"g\",\"args\":{\"kind\":\"unattributed\",\"total\":5,\"by\":{\"block\":2}}}\$" got &&
	grep "\"name\":\"end\"" out.pfw >got &&
	grep -q "\"dropped\":5,\"unattributed\":2,\"truncated\":false" got
'

# A client library lost records (the fast path): by process id, its
# total every loss the collector knows, which the per-CPU view already
# counts: not added to dropped.
test_expect_success 'records lost by client libraries: an instant by process, named' '
	write_input &&
	sed -i "/^end\$/i drops kind=process total=5 4242=2" in.txt &&
	dc-mkstream in.txt >in.dcs &&
	dc-write -i in.dcs out.pfw 2>err &&
	grep -q "\"name\":\"dropped\".*\"args\":{\"kind\":\"process\",\"total\":5,\"by\":{\"4242\":2}}}\$" out.pfw &&
	grep "\"name\":\"end\"" out.pfw >got &&
	grep -q "\"dropped\":5,\"truncated\":false" got
'

test_expect_success 'gzip output holds the same lines' '
	write_input &&
	write_expect &&
	dc-mkstream in.txt | dc-write out.pfw.gz &&
	gzip -dc out.pfw.gz >out &&
	test_cmp expect out &&
	test -s out.pfw.gz.idx
'

test_expect_success 'standard output gets gzip unless --plain' '
	write_input &&
	write_expect &&
	dc-mkstream in.txt >in.dcs &&
	dc-write -i in.dcs - >out.gz &&
	gzip -dc out.gz >out &&
	test_cmp expect out &&
	dc-write --plain -i in.dcs - >plain &&
	test_cmp expect plain
'

# A child is its parent's program until it execs (dc-trace(5)): its PR at
# the fork is the parent's (rank and command line included), whatever
# the collector learnt later; the exec gets one PR of its own, from the
# collector's description of that exec (which comes before the exec
# record), not the program path alone.
test_expect_success PYTHON3 'a child: the PR at its fork is the parent one, the exec has its own' '
	cat >in.txt <<-\IN &&
	header host=node1 run=r1 offset=1700000000000000000 start=1000
	probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	process pid=100 ppid=1 uid=0 gid=0 rank=3 start=2000 exe=/bin/dd cmdline="dd if=x of=y" cwd=/tmp taken=2000
	call probe=0 pid=100 tid=100 ts=5000 dur=2000 ret=1 args=1,0,1
	fork pid=100 tid=100 ts=10000 child=101
	process pid=101 ppid=100 uid=0 gid=0 rank=3 flags=1 start=10000 exe=/bin/dd cmdline="dd if=x of=y" cwd=/tmp taken=10000
	call probe=0 pid=101 tid=101 ts=10500 dur=100 ret=1 args=1,0,1
	process pid=101 ppid=100 uid=0 gid=0 rank=7 flags=2 start=11000 exe=/bin/x cmdline="x -a" cwd=/tmp taken=11200
	exec pid=101 ts=11000 str=/bin/x
	call probe=0 pid=101 tid=101 ts=12000 dur=100 ret=1 args=1,0,1
	fork pid=100 tid=100 ts=13000 child=102
	call probe=0 pid=102 tid=102 ts=13500 dur=100 ret=1 args=1,0,1
	exec pid=102 ts=14000 str=/bin/y
	call probe=0 pid=102 tid=102 ts=14500 dur=100 ret=1 args=1,0,1
	end
	IN
	dc-mkstream in.txt | dc-write out.pfw &&
	python3 - <<-\EOF
	import json
	lines = [json.loads(l) for l in open("out.pfw") if l.startswith("{")]
	pr = {}
	for e in lines:
	    if e["name"] == "PR":
	        pr.setdefault(e["pid"], []).append(e["args"])
	dd = {"name": "/bin/dd", "rank": 3, "uid": 0, "gid": 0,
	      "cmdline": "dd if=x of=y", "cwd": "/tmp"}
	def want(pid, **kw):
	    d = dict(dd, **kw)
	    d["value"] = [a for a in pr[pid] if a["name"] == d["name"]][0]["value"]
	    return d
	assert pr[100] == [want(100, ppid=1, since=1700000000000002)], pr[100]
	assert pr[101] == [
	    want(101, ppid=100, since=1700000000000010, origin="fork"),
	    want(101, ppid=100, name="/bin/x", rank=7, cmdline="x -a",
	         since=1700000000000011, origin="exec")], pr[101]
	# No description from the collector: the fork copies the parent, the
	# exec names the program (its path as the command line).
	assert pr[102] == [
	    want(102, ppid=100, since=1700000000000013, origin="fork"),
	    want(102, ppid=100, name="/bin/y", cmdline="/bin/y",
	         since=1700000000000014, origin="exec")], pr[102]
	order = [(e["name"], e["pid"], e.get("args", {}).get("origin")) for e in lines
	         if e["name"] in ("PR", "write", "exec")]
	assert order.index(("PR", 101, "fork")) < order.index(("write", 101, None)) \
	    < order.index(("PR", 101, "exec")) < order.index(("exec", 101, None)), order
	EOF
'

test_expect_success PYTHON3 'hashes are FNV-1a 64 folded to 53 bits' '
	write_input &&
	dc-mkstream in.txt | dc-write out.pfw &&
	cat >hash.py <<-\PY &&
	import json, sys
	def h(s):
	    x = 0xcbf29ce484222325
	    for b in s.encode():
	        x = ((x ^ b) * 0x100000001b3) & 0xffffffffffffffff
	    return (x >> 53) ^ (x & ((1 << 53) - 1))
	n = 0
	for line in open(sys.argv[1]):
	    if line.strip() in "[]":
	        continue
	    o = json.loads(line)
	    if o["ph"] == "M" and o["name"] in ("HH", "FH", "SH", "PR"):
	        assert o["args"]["value"] == h(o["args"]["name"]), line
	        assert o["args"]["value"] < 2**53
	        n += 1
	print(n)
	PY
	python3 hash.py out.pfw >n &&
	echo 5 >expect &&
	test_cmp expect n
'

test_expect_success 'timestamps: offset added, both ends rounded down to us' '
	cat >in.txt <<-\IN &&
	header host=h offset=1700000000000000999 start=0
	probe id=0 layer=POSIX name=read args=fd ret=size
	call probe=0 pid=1 ts=1 dur=1 ret=1 args=3
	call probe=0 pid=1 ts=2000 dur=999 ret=1 args=3
	call probe=0 pid=1 ts=2999 dur=2 ret=1 args=3
	end
	IN
	dc-mkstream in.txt | dc-write out.pfw &&
	grep "\"name\":\"read\"" out.pfw | sed "s/.*\"ts\":\([0-9]*\),\"dur\":\([0-9]*\).*/\1 \2/" >got &&
	cat >expect <<-\EXPECT &&
	1700000000000001 0
	1700000000000002 1
	1700000000000003 1
	EXPECT
	test_cmp expect got
'

test_expect_success 'undeclared probes and unknown event types are kept or skipped with one warning' '
	cat >in.txt <<-\IN &&
	header host=h
	call probe=7 pid=1 ts=1000 dur=1000 ret=9 args=1,2
	call probe=7 pid=1 ts=3000 dur=1000 ret=9 args=1,2
	call type=99 pid=1 ts=5000
	end
	IN
	dc-mkstream in.txt | dc-write out.pfw 2>err &&
	grep -c "\"name\":\"probe_7\",\"cat\":\"unknown\".*\"arg0\":1,\"arg1\":2,\"ret\":9" out.pfw >n &&
	echo 2 >expect && test_cmp expect n &&
	test_line_count err 2 &&
	grep "undeclared probe 7" err &&
	grep "unknown type 99" err
'

test_expect_success 'kernel fields by kind; async work on lanes of its own' '
	cat >in.txt <<-\IN &&
	header host=h offset=1700000000000000000
	probe id=0 kind=tracepoint layer=block name=block_rq args=dev,sector,size,op ret=status
	probe id=1 kind=tracepoint layer=net name=tcp_state args=family,protocol,oldstate,newstate,sport,dport
	call probe=0 pid=7 tid=8 ts=1000000 dur=5000000 args=8388609,2048,4096,21335 flags=8
	call probe=0 pid=7 tid=8 ts=2000000 dur=1000000 args=8388609,4096,512,82 flags=8
	call probe=0 pid=7 tid=8 ts=6000000 dur=1000 args=8388609,8192,512,82 flags=8
	call probe=1 pid=7 tid=8 ts=9000000 args=2,6,1,7,5000,80
	end
	IN
	dc-mkstream in.txt | dc-write out.pfw &&
	grep "\"name\":\"block_rq\"" out.pfw | sed "s/.*\"tid\":\([0-9]*\),.*\"args\":{\"hhash\":[0-9]*,\(.*\)}}/\1 \2/" >got &&
	cat >expect <<-\EXPECT &&
	1073742272 "dev":8388609,"sector":2048,"size":4096,"op":"WS","ret":0,"level":0
	1073742273 "dev":8388609,"sector":4096,"size":512,"op":"R","ret":0,"level":0
	1073742272 "dev":8388609,"sector":8192,"size":512,"op":"R","ret":0,"level":0
	EXPECT
	test_cmp expect got &&
	grep "\"name\":\"thread_name\",.*\"tid\":1073742272,.*{\"name\":\"async lane 0\"}" out.pfw &&
	grep "\"name\":\"thread_name\",.*\"tid\":1073742273,.*{\"name\":\"async lane 1\"}" out.pfw &&
	grep "\"name\":\"tcp_state\",\"cat\":\"net\",\"pid\":7,\"tid\":8,.*\"family\":2,\"protocol\":6,\"oldstate\":1,\"newstate\":7,\"sport\":5000,\"dport\":80,\"level\":0}}" out.pfw
'

test_expect_success 'every number fits a JSON reader: 2^64-1 is written as -1' '
	cat >in.txt <<-\IN &&
	header host=h
	probe id=0 layer=STDIO name=fread args=ptr,size,size,handle ret=size
	call probe=0 pid=1 ts=1000 args=0,18446744073709551615,1,18446744073709551614 ret=-1
	end
	IN
	dc-mkstream in.txt | dc-write out.pfw.gz &&
	gzip -dc out.pfw.gz | grep "\"size\":-1,\"size2\":1,\"handle\":-2,\"ret\":-1," &&
	dc-write --check out.pfw.gz
'

test_expect_success 'strings are escaped into valid JSON' '
	printf "header host=h\nprobe id=0 layer=POSIX name=open args=path ret=fd\ncall probe=0 pid=1 ts=1000 str=\"/tmp/a\\\\\"b\\\\\\\\c\"\nend\n" >in.txt &&
	dc-mkstream in.txt | dc-write out.pfw &&
	grep -F "\"name\":\"/tmp/a\\\"b\\\\c\"" out.pfw
'

test_expect_success 'usage errors exit 2 with one line and a hint' '
	test_must_fail_with 2 dc-write 2>err &&
	grep "missing output file name" err &&
	test_must_fail_with 2 dc-write --split-by cpu out.pfw.gz 2>err &&
	grep "split-by" err &&
	test_must_fail_with 2 dc-write --level 0 out.pfw.gz 2>err &&
	test_line_count err 2 &&
	dc-write --help >out && grep "^Usage: dc-write" out &&
	dc-write --version >out && grep datacrumbs out
'

test_expect_success 'extreme timestamps and offsets do not overflow: clamped to the signed range' '
	cat >in.txt <<-\IN &&
	header host=h offset=9223372036854775000 start=0
	probe id=0 layer=POSIX name=read args=fd ret=size
	call probe=0 pid=1 ts=18446744073709551000 dur=0 ret=1 args=3
	call probe=0 pid=1 ts=5 dur=0 ret=1 args=3
	end
	IN
	dc-mkstream in.txt | dc-write --plain - >out.pfw 2>err &&
	grep "\"name\":\"read\"" out.pfw | sed "s/.*\"ts\":\([0-9]*\),.*/\1/" >got &&
	printf "9223372036854775\n9223372036854775\n" >expect &&
	test_cmp expect got &&
	cat >in.txt <<-\IN &&
	header host=h offset=-9223372036854775000 start=0
	probe id=0 layer=POSIX name=read args=fd ret=size
	call probe=0 pid=1 ts=1000 dur=0 ret=1 args=3
	end
	IN
	dc-mkstream in.txt | dc-write --plain - >out.pfw 2>err &&
	grep "\"name\":\"read\".*\"ts\":0," out.pfw
'

test_expect_success 'a string written as SH and later used as a file also gets its FH' '
	cat >in.txt <<-\IN &&
	header host=h offset=1700000000000000000 start=0
	probe id=0 layer=STDIO name=fopen args=str,str ret=handle
	probe id=1 layer=POSIX name=open args=path,flags,mode ret=fd
	call probe=0 pid=1 ts=1000 dur=10 ret=0 args=0,0 str=/tmp/same flags=2
	call probe=1 pid=1 ts=2000 dur=10 ret=3 args=0,0,0 str=/tmp/same
	end
	IN
	dc-mkstream in.txt | dc-write --plain - >out.pfw &&
	grep -c "\"name\":\"SH\",.*\"name\":\"/tmp/same\"" out.pfw >n &&
	echo 1 >expect && test_cmp expect n &&
	grep -c "\"name\":\"FH\",.*\"name\":\"/tmp/same\"" out.pfw >n &&
	test_cmp expect n &&
	dc-write --check out.pfw
'

test_done

#!/bin/sh
# dc-write and COUNTERS frames (profile mode): one counter sample (ph "C")
# per entry, exact lines for a known stream; --summary rows; --check.
. "$(dirname "$0")/test-lib.sh"

write_input() {
	cat >in.txt <<-\IN
	header host=node1 run=r1 offset=1700000000000000000 start=1000
	probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	probe id=1 kind=syscall layer=sys name=openat args=fd,path,flags,mode ret=fd
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/dd cmdline="dd if=x of=y" cwd=/tmp
	counters start=1000000 interval=1000000000 pid=100 probe=0 calls=5 dur=10500 bytes=20480 errors=1 pid=100 probe=1 calls=2 dur=3000
	call probe=0 pid=100 tid=100 ts=2000000 dur=2000 ret=4096 args=3,0,4096
	counters start=1001000000 interval=1000000000 pid=100 probe=0 calls=1 dur=999 bytes=7
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
	{"id":9,"name":"write","cat":"POSIX","pid":100,"tid":100,"ts":1700000000001000,"ph":"C","args":{"calls":5,"dur_us":10,"bytes":20480,"errors":1}}
	{"id":11,"name":"openat","cat":"sys","pid":100,"tid":100,"ts":1700000000001000,"ph":"C","args":{"calls":2,"dur_us":3,"bytes":0,"errors":0}}
	{"id":13,"name":"thread_name","cat":"datacrumbs","pid":100,"tid":100,"ph":"M","args":{"name":"100"}}
	{"id":2,"name":"write","cat":"POSIX","pid":100,"tid":100,"ts":1700000000002000,"dur":2,"ph":"X","args":{"hhash":4145648582732102,"fd":3,"size":4096,"ret":4096,"level":0}}
	{"id":15,"name":"write","cat":"POSIX","pid":100,"tid":100,"ts":1700000001001000,"ph":"C","args":{"calls":1,"dur_us":0,"bytes":7,"errors":0}}
	{"id":17,"name":"end","cat":"datacrumbs","pid":0,"tid":0,"ts":1700000002001000,"dur":0,"ph":"X","args":{"hhash":4145648582732102,"num_events":9,"events":4,"dropped":0,"truncated":false,"corrupt":false,"interrupted":false}}
	EXPECT
}

test_expect_success 'counter entries give their exact trace lines' '
	write_input &&
	write_expect &&
	dc-mkstream in.txt >in.dcs &&
	dc-write --plain -i in.dcs out.pfw 2>err &&
	test_cmp expect out.pfw &&
	test ! -s err &&
	dc-write --check out.pfw >check &&
	grep "valid: 10 objects" check
'

test_expect_success PYTHON3 'JSON readers see counter events with numeric args' '
	write_input &&
	dc-mkstream in.txt | dc-write out.pfw.gz &&
	gzip -dc out.pfw.gz >out &&
	python3 -c "
import json, sys
ev = [json.loads(l) for l in open(\"out\") if l.startswith(\"{\")]
c = [e for e in ev if e[\"ph\"] == \"C\"]
assert len(c) == 3, c
assert [e[\"name\"] for e in c] == [\"write\", \"openat\", \"write\"]
assert all(\"dur\" not in e for e in c)
assert sum(e[\"args\"][\"calls\"] for e in c) == 8
assert sum(e[\"args\"][\"bytes\"] for e in c) == 20487
assert c[2][\"ts\"] - c[0][\"ts\"] == 1000000
end = ev[-1]
assert end[\"name\"] == \"end\" and end[\"args\"][\"events\"] == 4
"
'

test_expect_success 'counters of an undeclared probe are written under its number' '
	cat >in.txt <<-\IN &&
	header host=node1 run=r1 offset=1700000000000000000 start=1000
	counters start=1000 interval=1000 pid=7 probe=9 calls=4
	end
	IN
	dc-mkstream in.txt | dc-write --plain - >out 2>err &&
	grep "^{\"id\":5,\"name\":\"probe_9\",\"cat\":\"unknown\",\"pid\":7,\"tid\":7,\"ts\":1700000000000001,\"ph\":\"C\",\"args\":{\"calls\":4,\"dur_us\":0,\"bytes\":0,\"errors\":0}}$" out &&
	test_one_line err
'

test_expect_success 'a malformed counters frame is skipped with one line, exit 4' '
	cat >in.txt <<-\IN &&
	header host=node1 run=r1 offset=0 start=0
	raw type=10 hex=e803000000000000e80300000000000002000000000000000100000002000000
	end
	IN
	dc-mkstream in.txt >in.dcs &&
	test_must_fail_with 4 dc-write --plain -i in.dcs out.pfw 2>err &&
	test_one_line err &&
	grep "malformed counters frame" err &&
	! grep "\"ph\":\"C\"" out.pfw
'

# The write call names no file either: it shares the row of the samples.
test_expect_success 'summary: counters add calls, bytes and time, file "-"' '
	write_input &&
	dc-mkstream in.txt | dc-write t.pfw.gz &&
	dc-write --summary --top 0 t.pfw.gz >out &&
	grep "^t.pfw.gz: 1 events from 1 processes over 1.000 s, 3 counter samples, 0 dropped$" out &&
	grep "^POSIX  *write  *7  *24583  *0.012  -$" out &&
	test_line_count out 4 &&
	grep "^sys  *openat  *2  *0  *0.003  -$" out
'

test_expect_success '--check wants numbers in counter args' '
	printf "[\n{\"id\":1,\"name\":\"w\",\"cat\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"ph\":\"C\",\"args\":{\"calls\":\"many\"}}\n]\n" >bad.pfw &&
	test_must_fail_with 4 dc-write --check bad.pfw >out 2>err &&
	grep "counter arg \"calls\" is not a number" err &&
	printf "[\n{\"id\":1,\"name\":\"w\",\"cat\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"ph\":\"C\",\"args\":{\"calls\":3,\"dur_us\":1.5}}\n]\n" >good.pfw &&
	dc-write --check good.pfw
'

test_done

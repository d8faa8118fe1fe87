#!/bin/sh
# dc-write --summary: calls, bytes and time per layer, function and file,
# of our traces and of other DFTracer writers' traces.
. "$(dirname "$0")/test-lib.sh"

SAMPLES="$SHARED_DIR/samples"
test_lazy_prereq SAMPLES '
	test -r "$SAMPLES/dfanalyzer_test_2023.pfw.gz" || { echo "no shared/samples"; false; }
'

test_expect_success 'a known stream: exact calls and bytes per file' '
	cat >in.txt <<-EOF &&
	header host=node1 run=r1 offset=1700000000000000000 start=1000
	probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	probe id=1 kind=uprobe layer=POSIX name=mmap target=/lib/libc.so.6 args=ptr,size,int,flags,fd,offset ret=handle
	string id=3 value=/data/a
	string id=4 value=/data/b
	repeat 5 call probe=0 pid=100 tid=100 ts=5000 dur=2000 ret=4096 args=3,0,4096 file=3
	repeat 2 call probe=0 pid=100 tid=100 ts=90000 dur=1000 ret=100 args=4,0,4096 file=4
	call probe=1 pid=100 tid=100 ts=99000 dur=1000 ret=139999999 args=0,4096,0,0,4,0 file=4
	end events=AUTO dropped=0 flags=0
	EOF
	dc-mkstream <in.txt | dc-write t.pfw.gz &&
	dc-write --summary --top 0 t.pfw.gz >out &&
	grep "^t.pfw.gz: 8 events from 1 processes" out &&
	grep "^POSIX  *write  *5  *20480  *0.010  /data/a$" out &&
	grep "^POSIX  *write  *2  *200  *0.002  /data/b$" out &&
	grep "^POSIX  *mmap  *1  *0  *0.001  /data/b$" out
'

test_expect_success SAMPLES 'other writers: DFTracer 1.0 and the 2023 form' '
	dc-write --summary "$SAMPLES/cm1-DEFAULT-3537780-preload.pfw.gz" >out &&
	grep "8080 events from 1 processes" out &&
	dc-write --summary --top 1 "$SAMPLES/dfanalyzer_test_2023.pfw.gz" >out &&
	grep "^POSIX  *remove " out &&
	test_line_count out 3
'

test_expect_success 'a missing file is exit 1, a damaged one exit 4, one line each' '
	test_must_fail_with 1 dc-write --summary no-such.pfw.gz 2>err &&
	test_one_line err &&
	printf "[\n{\"id\":1,\"name\":\"w\",\"cat\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\",\"args\":{}}\n{broken\n" >bad.pfw &&
	test_must_fail_with 4 dc-write --summary bad.pfw >out &&
	grep "1 unreadable lines" out &&
	test_must_fail_with 2 dc-write --summary 2>err
'

test_done

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

# Kernel instants that say what they moved, beside the system call that
# moved the same bytes: each layer's rows count their own.  Socket
# messages: the length returned, 0 for a MSG_PEEK (flags 2) or a failure.
# io_uring completions: the result of requests that move data (READ 22,
# WRITE 23), not of others (OPENAT 18 returns a descriptor), not when the
# opcode is not known (-1) or the request failed.
net_uring_stream() {
	cat <<-EOF
	header host=node1 run=r1 offset=1700000000000000000 start=1000
	probe id=0 kind=syscall layer=sys name=sendto target=kernel args=fd,ptr,size,flags,ptr,int ret=size
	probe id=1 kind=tracepoint layer=net name=sock:sock_send_length target=sock args=family,protocol,flags ret=size
	probe id=2 kind=tracepoint layer=net name=sock:sock_recv_length target=sock args=family,protocol,flags ret=size
	probe id=3 kind=tracepoint layer=io_uring name=io_uring:io_uring_complete target=io_uring args=int,opcode ret=size
	probe id=4 kind=tracepoint layer=io_uring name=io_uring:io_uring_submit_req target=io_uring args=opcode,int ret=none
	repeat 3 instant probe=1 pid=100 tid=100 ts=5000 dur=0 ret=1000 args=2,6,0 depth=1
	repeat 3 call probe=0 pid=100 tid=100 ts=5000 dur=2000 ret=1000 args=3,0,1000,0,0,0
	instant probe=2 pid=100 tid=100 ts=20000 ret=700 args=2,6,0
	instant probe=2 pid=100 tid=100 ts=21000 ret=300 args=10,6,64
	instant probe=2 pid=100 tid=100 ts=22000 ret=500 args=2,6,2
	instant probe=2 pid=100 tid=100 ts=23000 ret=-11 args=2,6,64
	instant probe=4 pid=100 tid=100 ts=29000 args=22,7
	instant probe=3 pid=100 tid=100 ts=30000 ret=65536 args=7,22
	instant probe=3 pid=100 tid=100 ts=31000 ret=65536 args=8,22
	instant probe=3 pid=100 tid=100 ts=32000 ret=4096 args=9,23
	instant probe=3 pid=100 tid=100 ts=33000 ret=5 args=10,18
	instant probe=3 pid=100 tid=100 ts=34000 ret=100 args=11,-1
	instant probe=3 pid=100 tid=100 ts=35000 ret=-5 args=12,22
	end events=AUTO dropped=0 flags=0
	EOF
}

test_expect_success 'socket messages and io_uring completions: their bytes, per layer' '
	net_uring_stream | dc-mkstream | dc-write --plain nu.pfw &&
	grep "\"name\":\"sock:sock_recv_length\",.*\"flags\":2,\"ret\":500,\"bytes\":0," nu.pfw &&
	grep "\"name\":\"io_uring:io_uring_complete\",.*\"opcode\":22,\"ret\":65536,\"bytes\":65536," nu.pfw &&
	grep "\"name\":\"io_uring:io_uring_complete\",.*\"opcode\":18,\"ret\":5,\"level\"" nu.pfw &&
	grep "\"name\":\"io_uring:io_uring_complete\",.*\"opcode\":-1,\"ret\":100,\"level\"" nu.pfw &&
	dc-write --summary --top 0 nu.pfw >out &&
	cat out &&
	grep "^nu.pfw: 17 events from 1 processes" out &&
	grep "^sys  *sendto  *3  *3000 " out &&
	grep "^net  *sock:sock_send_length  *3  *3000 " out &&
	grep "^net  *sock:sock_recv_length  *4  *1000 " out &&
	grep "^io_uring  *io_uring:io_uring_complete  *6  *135168 " out &&
	grep "^io_uring  *io_uring:io_uring_submit_req  *1  *0 " out
'

# Names longer than the columns' usual widths (a layer of 8, a function
# of 24 characters): printed whole, and the columns widen to the longest
# shown, so every row's numbers stay under their headings.  A row left
# out by --top does not widen them.
test_expect_success 'long layer and function names: whole, the columns as wide as the longest' '
	long=a_function_name_of_fifty_characters_from_a_library &&
	test ${#long} = 50 &&
	cat >in.txt <<-EOF &&
	header host=node1 run=r1 offset=1700000000000000000 start=1000
	probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	probe id=1 kind=uprobe layer=MyLibraryLayer name=$long target=/lib/libmy.so args=fd,ptr,size ret=size
	probe id=2 kind=uprobe layer=MyLibraryLayer name=short target=/lib/libmy.so args=fd,ptr,size ret=size
	probe id=3 kind=uprobe layer=MyLibraryLayer name=${long}_and_more target=/lib/libmy.so args=fd,ptr,size ret=size
	string id=3 value=/data/a
	call probe=0 pid=100 tid=100 ts=5000 dur=2000 ret=4096 args=3,0,4096 file=3
	repeat 2 call probe=1 pid=100 tid=100 ts=9000 dur=3000 ret=100 args=3,0,100 file=3
	call probe=2 pid=100 tid=100 ts=19000 dur=1000 ret=7 args=3,0,7 file=3
	call probe=3 pid=100 tid=100 ts=29000 dur=10 ret=1 args=3,0,1 file=3
	end events=AUTO dropped=0 flags=0
	EOF
	dc-mkstream <in.txt | dc-write --plain long.pfw &&
	dc-write --summary --top 2 long.pfw >out &&
	cat out &&
	grep "^MyLibraryLayer  *$long  *2  *200  *0.006  /data/a\$" out &&
	grep "^MyLibraryLayer  *short  *1  *7  *0.001  /data/a\$" out &&
	grep "^POSIX  *write  *1  *4096  *0.002  /data/a\$" out &&
	! grep "_and_more" out &&
	# Each column ends where its heading does: the function column
	# starts one blank after the longest layer, the calls column
	# after the longest function shown.
	sed -n 2p out >head &&
	grep "^layer  *function  *calls " head &&
	test "$(awk "{ print index(\$0, \"calls\") + 4 }" head)" = $((14 + 1 + 50 + 1 + 9)) &&
	sed 1,2d out | awk -v want=$((14 + 1 + 50 + 1 + 9)) "
		{ match(\$0, /^[^ ]+ +[^ ]+ +[0-9]+/); if (RLENGTH != want) bad++ }
		END { exit bad + 0 }" &&
	# Without --top, the longest function of all sets the width.
	dc-write --summary --top 0 long.pfw >all &&
	grep "^MyLibraryLayer  *${long}_and_more  *1  *1 " all &&
	sed 1,2d all | awk -v want=$((14 + 1 + 59 + 1 + 9)) "
		{ match(\$0, /^[^ ]+ +[^ ]+ +[0-9]+/); if (RLENGTH != want) bad++ }
		END { exit bad + 0 }"
'

test_expect_success SAMPLES 'other writers: DFTracer 1.0 and the 2023 form' '
	dc-write --summary "$SAMPLES/cm1-DEFAULT-3537780-preload.pfw.gz" >out &&
	grep "8080 events from 1 processes" out &&
	dc-write --summary --top 1 "$SAMPLES/dfanalyzer_test_2023.pfw.gz" >out &&
	grep "^POSIX  *remove " out &&
	test_line_count out 3
'

# Copies between two descriptors: a row for the file read and one for
# the file written, each with the call, its time and its bytes; rename
# names two files too but moves no bytes: one row.
test_expect_success 'a copy between two files: a row for each, the bytes read and written' '
	cat >in.txt <<-EOF &&
	header host=node1 run=r1 offset=1700000000000000000 start=1000 ids=0
	probe id=0 kind=syscall layer=sys name=openat target=kernel args=fd,path,flags,mode ret=fd
	probe id=1 kind=syscall layer=sys name=sendfile target=kernel args=fd,fd,ptr,size ret=size
	probe id=2 kind=syscall layer=sys name=copy_file_range target=kernel args=fd,ptr,fd,ptr,size,flags ret=size
	probe id=3 kind=kfunc layer=vfs name=vfs_rename target=kernel args=path,path ret=status
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/cp cmdline=cp cwd=/d
	call probe=0 pid=100 tid=100 ts=1000 dur=1000 ret=3 args=-100,0,0,0 str=/d/src
	call probe=0 pid=100 tid=100 ts=3000 dur=1000 ret=4 args=-100,0,65,420 str=/d/dst
	call probe=1 pid=100 tid=100 ts=5000 dur=3000 ret=5000 args=4,3,0,5000
	call probe=1 pid=100 tid=100 ts=9000 dur=1000 ret=0 args=4,3,0,5000
	call probe=2 pid=100 tid=100 ts=11000 dur=2000 ret=700 args=3,0,4,0,1000,0
	call type=8 probe=3 pid=100 tid=100 ts=14000 seq=9 ret=0 str=/d/dst
	call type=8 probe=3 pid=100 tid=100 ts=14001 seq=9 ret=1 str=/d/new
	call probe=3 pid=100 tid=100 ts=14000 dur=1000 ret=0 args=0,0 seq=9
	end events=AUTO dropped=0 flags=0
	EOF
	dc-mkstream <in.txt | dc-aggregate | dc-write --plain cp.pfw &&
	dc-write --summary --top 0 cp.pfw >out &&
	cat out &&
	grep "^sys  *sendfile  *2  *5000  *0.004  /d/src$" out &&
	grep "^sys  *sendfile  *2  *5000  *0.004  /d/dst$" out &&
	grep "^sys  *copy_file_range  *1  *700  *0.002  /d/src$" out &&
	grep "^sys  *copy_file_range  *1  *700  *0.002  /d/dst$" out &&
	grep "\"fhash2\"" cp.pfw | grep "\"name\":\"vfs_rename\"" &&
	grep "^vfs  *vfs_rename  *1  *0  *0.001  /d/dst$" out &&
	test "$(grep -c "  /d/new$" out)" = 0
'

# A name with a newline, a tab, a backslash, a quote, a blank and a
# control character: one row, the name as one word (lib/quote.h), as
# dc-aggregate --text writes values.  So is a trace name with a blank.
test_expect_success 'file names with newlines and other odd bytes stay on their row, quoted' '
	cat >"odd trace.pfw" <<-\EOF &&
	[
	{"id":1,"name":"HH","cat":"datacrumbs","pid":0,"tid":0,"ph":"M","args":{"name":"h","value":1}}
	{"id":3,"name":"FH","cat":"datacrumbs","pid":1,"tid":1,"ph":"M","args":{"name":"/d/a\nb\tc\\d\"e f\u0001","value":42}}
	{"id":5,"name":"FH","cat":"datacrumbs","pid":1,"tid":1,"ph":"M","args":{"name":"/d/plain","value":43}}
	{"id":2,"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":10,"dur":5,"ph":"X","args":{"fhash":42,"fd":3,"size":4096,"ret":4096}}
	{"id":4,"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":20,"dur":1,"ph":"X","args":{"fhash":43,"fd":4,"size":10,"ret":10}}
	EOF
	dc-write --summary "odd trace.pfw" >out &&
	cat out &&
	test_line_count out 4 &&
	grep "^\"odd trace.pfw\": 2 events from 1 processes" out &&
	cat >want <<-\EOF &&
	POSIX    write                            1           4096        0.005  "/d/a\x0ab\x09c\\d\"e f\x01"
	EOF
	grep -x -F -f want out &&
	grep -x "POSIX    write                            1             10        0.001  /d/plain" out
'

test_expect_success BPF 'a traced file named with a newline and a tab: one row, its name quoted' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	f=$(printf "odd\nname\tx") &&
	printf "layers: [syscalls]\n" >c.yaml &&
	trace_ok c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" writes 5 "$PWD/$f" &&
	test "$(stat -c %s "$f")" = 5 &&
	dc-write --summary --top 0 t.pfw.gz >out &&
	want="\"$PWD/odd\\x0aname\\x09x\"" &&
	test "$(sed -n "s/^sys  *write  *5  *5  *[0-9.]*  //p" out)" = "$want" &&
	test "$(grep -c -F "$want" out)" = 3 &&
	! grep "^name" out
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

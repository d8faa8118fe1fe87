#!/bin/sh
# dc-write: bad, truncated and corrupt input, unwritable output.
. "$(dirname "$0")/test-lib.sh"

stream_lines() {
	cat <<-\IN
	header host=h offset=1700000000000000000
	probe id=0 layer=POSIX name=write args=fd,ptr,size ret=size
	repeat 600 call probe=0 pid=5 ts=1000 dur=1000 ret=4096 args=3,0,4096
	IN
}

test_expect_success 'bad magic: one line, exit 4, no output file' '
	printf "not a stream at all, really\n" >bad.dcs &&
	test_must_fail_with 4 dc-write -i bad.dcs out.pfw.gz 2>err &&
	test_one_line err &&
	grep "bad magic" err &&
	test ! -e out.pfw.gz && test ! -e out.pfw.gz.idx
'

test_expect_success 'empty input: exit 3, no output file' '
	test_must_fail_with 3 dc-write out.pfw.gz </dev/null 2>err &&
	test_one_line err &&
	grep "empty stream" err &&
	test ! -e out.pfw.gz
'

test_expect_success 'missing end frame: all events kept, marked truncated, exit 3' '
	stream_lines >in.txt &&
	dc-mkstream in.txt >in.dcs &&
	test_must_fail_with 3 dc-write -i in.dcs out.pfw 2>err &&
	test_one_line err &&
	grep "no end frame" err &&
	test $(grep -c "\"name\":\"write\"" out.pfw) = 600 &&
	tail -n 1 out.pfw | grep "\"name\":\"end\".*\"events\":600,.*\"truncated\":true,\"corrupt\":false"
'

test_expect_success 'writer killed inside a frame: the complete frames are kept, exit 3' '
	stream_lines >in.txt &&
	echo "truncate 40" >>in.txt &&
	echo "call probe=0 pid=5 ts=9000000 dur=10" >>in.txt &&
	echo end >>in.txt &&
	dc-mkstream in.txt >in.dcs &&
	test_must_fail_with 3 dc-write -i in.dcs out.pfw.gz 2>err &&
	test_one_line err &&
	grep "inside a frame" err &&
	gzip -dc out.pfw.gz >out &&
	test $(grep -c "\"name\":\"write\"" out) = 600 &&
	tail -n 1 out | grep "\"truncated\":true"
'

test_expect_success 'corrupt frame: what came before is kept, exit 4' '
	stream_lines >in.txt &&
	echo "corrupt" >>in.txt &&
	echo "repeat 5 call probe=0 pid=5 ts=9000000 dur=10" >>in.txt &&
	echo end >>in.txt &&
	dc-mkstream in.txt >in.dcs &&
	test_must_fail_with 4 dc-write -i in.dcs out.pfw 2>err &&
	test_one_line err &&
	grep "checksum mismatch" err &&
	test $(grep -c "\"name\":\"write\"" out.pfw) = 600 &&
	tail -n 1 out.pfw | grep "\"truncated\":true,\"corrupt\":true"
'

test_expect_success 'a malformed frame payload is skipped with one line, exit 4' '
	cat >in.txt <<-\IN &&
	header host=h
	raw type=4 hex=0102
	raw type=77 hex=00112233
	probe id=0 layer=POSIX name=read args=fd ret=size
	call probe=0 pid=1 ts=1000 dur=1000 args=3 ret=1
	end
	IN
	dc-mkstream in.txt >in.dcs &&
	test_must_fail_with 4 dc-write -i in.dcs out.pfw 2>err &&
	test_one_line err &&
	grep "frame at byte 56: malformed probe frame" err &&
	grep "\"name\":\"read\"" out.pfw &&
	tail -n 1 out.pfw | grep "\"truncated\":false"
'

test_expect_success PYTHON3 'the first SIGINT is noted, the stream still read to its end' '
	stream_lines >in.txt && echo end >>in.txt &&
	dc-mkstream in.txt >in.dcs &&
	mkfifo fifo &&
	# A background job of sh starts with SIGINT ignored: restore it.
	{ python3 -c "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])" \
		dc-write --plain out.pfw <fifo 2>err & } &&
	writer=$! &&
	exec 9>fifo &&
	head -c 1000 in.dcs >&9 &&
	i=0 &&
	while test $i -lt 100 && ! test -e out.pfw; do
		sleep 0.1; i=$((i + 1))
	done &&
	kill -INT $writer &&
	sleep 0.3 &&
	tail -c +1001 in.dcs >&9 &&
	exec 9>&- &&
	wait $writer &&
	test $(grep -c "\"name\":\"write\"" out.pfw) = 600 &&
	tail -n 1 out.pfw | grep "\"truncated\":false,\"corrupt\":false,\"interrupted\":true"
'

test_expect_success 'end frame flags from upstream reach the end event' '
	printf "header host=h\nend flags=5\n" | dc-mkstream >in.dcs &&
	dc-write -i in.dcs out.pfw &&
	tail -n 1 out.pfw | grep "\"truncated\":true,\"corrupt\":false,\"interrupted\":true"
'

test_expect_success 'a full disk is one line and exit 1 (gzip and plain)' '
	stream_lines >in.txt && echo end >>in.txt &&
	dc-mkstream in.txt >in.dcs &&
	test_must_fail_with 1 dc-write -i in.dcs /dev/full 2>err &&
	test_one_line err &&
	grep "/dev/full: cannot write: No space left on device" err &&
	test_must_fail_with 1 dc-write --plain -i in.dcs /dev/full 2>err &&
	test_one_line err &&
	grep "No space left" err &&
	test ! -e /dev/full.idx
'

test_expect_success 'a closed pipe on standard output is one line and exit 1' '
	stream_lines >in.txt && echo end >>in.txt &&
	dc-mkstream in.txt >in.dcs &&
	{ dc-write --plain -i in.dcs - 2>err; echo $? >rc; } | head -c 10 >/dev/null &&
	echo 1 >expect && test_cmp expect rc &&
	test_one_line err && grep "Broken pipe" err
'

test_expect_success 'an uncreatable output is one line and exit 1' '
	printf "header host=h\nend\n" | dc-mkstream >in.dcs &&
	test_must_fail_with 1 dc-write -i in.dcs no/such/dir/out.pfw.gz 2>err &&
	test_one_line err && grep "cannot create no/such/dir/out.pfw.gz" err
'

test_done

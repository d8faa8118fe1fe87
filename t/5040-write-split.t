#!/bin/sh
# dc-write: one file per process or host, and size-based rotation.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'split by pid: one complete trace per process' '
	cat >in.txt <<-\IN &&
	header host=h
	probe id=0 layer=POSIX name=read args=fd ret=size
	process pid=10 ppid=1 rank=0 exe=/bin/a
	process pid=20 ppid=1 rank=1 exe=/bin/b
	repeat 3 call probe=0 pid=10 ts=1000 dur=10 args=3
	repeat 5 call probe=0 pid=20 ts=1000 dur=10 args=4
	drops total=2 0=2
	end
	IN
	dc-mkstream in.txt | dc-write --split-by pid out.pfw.gz &&
	test ! -e out.pfw.gz &&
	dc-write --check out-10.pfw.gz out-20.pfw.gz >sum &&
	gzip -dc out-10.pfw.gz >a && gzip -dc out-20.pfw.gz >b &&
	test $(grep -c "\"name\":\"read\"" a) = 3 &&
	test $(grep -c "\"name\":\"read\"" b) = 5 &&
	! grep "\"pid\":20" a && ! grep "\"pid\":10" b &&
	grep "\"name\":\"process_name\".*\"name\":\"Rank 0 (a)\"" a &&
	grep "\"name\":\"process_name\".*\"name\":\"Rank 1 (b)\"" b &&
	tail -n 1 a | grep "\"events\":3,\"dropped\":2," &&
	tail -n 1 b | grep "\"events\":5,\"dropped\":2,"
'

test_expect_success 'split by host names the file after the stream host' '
	printf "header host=node7\nend\n" | dc-mkstream | dc-write --split-by host out.pfw &&
	grep "\"name\":\"HH\".*\"name\":\"node7\"" out-node7.pfw
'

test_expect_success 'a host name from the stream cannot leave the output directory' '
	mkdir -p d &&
	printf "header host=../../evil/x\nend\n" | dc-mkstream |
		dc-write --split-by host d/out.pfw &&
	test -f "d/out-_._.._evil_x.pfw" &&
	test ! -e evil && test ! -e ../evil
'

test_expect_success '--max-size rotates into complete numbered traces' '
	dc-mkstream --synthetic 40000 >in.dcs &&
	dc-write --max-size 100K --chunk-size 64K -i in.dcs out.pfw.gz &&
	ls out*.pfw.gz >files &&
	test $(wc -l <files) -ge 3 &&
	dc-write --check out.pfw.gz out.1.pfw.gz out.2.pfw.gz >sum &&
	n=0 && for f in $(cat files); do
		c=$(gzip -dc $f | grep -c "\"cat\":\"POSIX\"") && n=$((n + c)) &&
		gzip -dc $f | tail -n 1 | grep "\"name\":\"end\"" || exit 1
	done &&
	test $n = 40000 &&
	for f in $(cat files); do
		test $(wc -c <$f) -lt $((100 * 1024 + 64 * 1024)) || exit 1
	done
'

test_expect_success 'split and rotation need a file name' '
	test_must_fail_with 2 dc-write --split-by pid - </dev/null 2>err &&
	test_must_fail_with 2 dc-write --max-size 1M - </dev/null 2>err
'

test_done

#!/bin/sh
# dc-write: gzip members, the index sidecar, threads, and a writer killed
# in the middle of a run.
. "$(dirname "$0")/test-lib.sh"

members() {
	python3 "$DC_SRC_DIR/t/helpers/pfw-members.py" "$@"
}

test_expect_success PYTHON3 'chunks become members; the index names each one' '
	dc-mkstream --synthetic 50000 >in.dcs &&
	dc-write --chunk-size 256K -i in.dcs out.pfw.gz &&
	members out.pfw.gz >got &&
	read nmembers nlines <got &&
	test "$nmembers" -gt 10 &&
	test "$nlines" = "$(gzip -dc out.pfw.gz | wc -l)" &&
	python3 -c "
import gzip, json, sys
n = 0
with gzip.open(\"out.pfw.gz\", \"rt\") as f:
    assert f.readline() == \"[\n\"
    for line in f:
        json.loads(line); n += 1
print(n)" >n &&
	echo $((nlines - 1)) >expect &&
	test_cmp expect n
'

test_expect_success 'the output does not depend on the number of threads' '
	dc-mkstream --synthetic 20000 >in.dcs &&
	dc-write --threads 0 --chunk-size 64K -i in.dcs t0.pfw.gz &&
	dc-write --threads 1 --chunk-size 64K -i in.dcs t1.pfw.gz &&
	dc-write --threads 3 --chunk-size 64K -i in.dcs t3.pfw.gz &&
	cmp t0.pfw.gz t1.pfw.gz && cmp t0.pfw.gz t3.pfw.gz &&
	cmp t0.pfw.gz.idx t3.pfw.gz.idx &&
	dc-write --plain -i in.dcs plain.pfw &&
	gzip -dc t3.pfw.gz | cmp - plain.pfw
'

test_expect_success 'levels trade size for speed; all give the same lines' '
	dc-mkstream --synthetic 20000 >in.dcs &&
	dc-write --level 1 -i in.dcs l1.pfw.gz &&
	dc-write --level 9 -i in.dcs l9.pfw.gz &&
	test $(wc -c <l9.pfw.gz) -lt $(wc -c <l1.pfw.gz) &&
	gzip -dc l1.pfw.gz >a && gzip -dc l9.pfw.gz >b && cmp a b
'

test_lazy_prereq LIBDEFLATE '
	printf "header host=h\nend\n" | dc-mkstream |
		dc-write --compressor libdeflate - >/dev/null
'

test_expect_success LIBDEFLATE 'zlib and libdeflate write the same trace' '
	dc-mkstream --synthetic 20000 >in.dcs &&
	dc-write --compressor zlib --chunk-size 64K -i in.dcs z.pfw.gz &&
	dc-write --compressor libdeflate --chunk-size 64K -i in.dcs d.pfw.gz &&
	! cmp -s z.pfw.gz d.pfw.gz &&
	gzip -dc z.pfw.gz >z && gzip -dc d.pfw.gz >d && cmp z d &&
	cut -d, -f1-3 z.pfw.gz.idx >zi && cut -d, -f1-3 d.pfw.gz.idx >di &&
	test $(wc -l <zi) = $(wc -l <di) &&
	dc-write --check z.pfw.gz d.pfw.gz >/dev/null &&
	dc-write --compressor libdeflate --level 12 -i in.dcs d12.pfw.gz &&
	gzip -dc d12.pfw.gz | cmp - z
'

test_expect_success 'zlib stops at level 9; unknown compressors are refused' '
	test_must_fail_with 2 dc-write --compressor zlib --level 10 out.pfw.gz 2>err &&
	grep "above 9 needs libdeflate" err &&
	test_must_fail_with 2 dc-write --compressor lz4 out.pfw.gz 2>err &&
	grep "auto, zlib or libdeflate" err
'

test_expect_success 'no index for standard output or with --no-index' '
	printf "header host=h\nend\n" | dc-mkstream >in.dcs &&
	dc-write --no-index -i in.dcs out.pfw.gz &&
	test ! -e out.pfw.gz.idx &&
	dc-write -i in.dcs - >out.gz && gzip -t out.gz &&
	test ! -e -.idx
'

test_expect_success PYTHON3 'kill -9 mid-run: every written member stays readable' '
	dc-mkstream --synthetic 300000 >in.dcs &&
	mkfifo fifo &&
	{ dc-write --chunk-size 512K out.pfw.gz <fifo 2>err & } &&
	writer=$! &&
	exec 9>fifo &&
	cat in.dcs >&9 &&
	i=0 &&
	while test $i -lt 300 &&
	      test "$(cat out.pfw.gz.idx 2>/dev/null | wc -l)" -lt 2; do
		sleep 0.1; i=$((i + 1))
	done &&
	kill -9 $writer &&
	exec 9>&- &&
	{ wait $writer; true; } &&
	test "$(wc -l <out.pfw.gz.idx)" -ge 2 &&
	members --tail-ok out.pfw.gz >got &&
	read nmembers nlines <got &&
	test "$nmembers" -ge 2 &&
	{ gzip -dc out.pfw.gz >out 2>/dev/null; true; } &&
	test "$(wc -l <out)" -ge "$nlines" &&
	sed "1d;\$d" out | python3 -c "
import json, sys
for line in sys.stdin:
    json.loads(line)
"
'

test_expect_success 'idle input: the partly filled chunk is written after --flush-interval' '
	cat >in.txt <<-\IN &&
	header host=h
	probe id=0 layer=POSIX name=write args=fd,ptr,size ret=size
	repeat 600 call probe=0 pid=5 ts=1000 dur=1000 ret=4096 args=3,0,4096
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
	      test "$(gzip -dc out.pfw.gz 2>/dev/null | grep -c "\"name\":\"write\"")" != 600; do
		sleep 0.1; i=$((i + 1))
	done &&
	test $(wc -l <out.pfw.gz.idx) = 1 &&
	exec 9>&- &&
	wait $writer &&
	test $(wc -l <out.pfw.gz.idx) = 2 &&
	gzip -dc out.pfw.gz | tail -n 1 | grep "\"name\":\"end\".*\"events\":600,"
'

test_lazy_prereq GNU_TIME '
	/usr/bin/time -f %M true
'

# Under AddressSanitizer freed memory waits in a quarantine of up to
# 256 MiB, which grows with what was freed: measured without it.
test_expect_success GNU_TIME 'memory does not grow with the length of the trace' '
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" &&
	export ASAN_OPTIONS &&
	dc-mkstream --synthetic 50000 >small.dcs &&
	dc-mkstream --synthetic 1000000 >big.dcs &&
	/usr/bin/time -f %M -o small.kb dc-write --threads 2 --chunk-size 256K -i small.dcs s.pfw.gz &&
	/usr/bin/time -f %M -o big.kb dc-write --threads 2 --chunk-size 256K -i big.dcs b.pfw.gz &&
	echo "max RSS: $(cat small.kb) KiB for 50000 events, $(cat big.kb) KiB for 1000000" &&
	test $(cat big.kb) -lt $(( $(cat small.kb) + 4096 ))
'

test_expect_success 'fsync after every member still gives the same file' '
	dc-mkstream --synthetic 5000 >in.dcs &&
	dc-write --fsync --chunk-size 64K -i in.dcs a.pfw.gz &&
	dc-write --chunk-size 64K -i in.dcs b.pfw.gz &&
	cmp a.pfw.gz b.pfw.gz
'

test_done

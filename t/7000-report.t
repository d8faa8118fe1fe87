#!/bin/sh
# dc-report: the report's numbers are dc-write --summary's, whatever the
# parts and workers, on a local cluster and on a running Dask cluster.
. "$(dirname "$0")/test-lib.sh"

Q=report-query.py

# A collector's stream (ids=0: seq and parent are entry numbers) of GROUPS
# HDF5 writes, each H5Dwrite > pwrite > pwrite64 (the collector sends the
# innermost call first; dc-aggregate keeps that order, so a parent's line
# comes after its children's), on two ranks, plus an open and a close
# naming the file.
nested_stream() {
	cat <<-EOF
	header host=node1 run=r7 offset=1700000000000000000 start=1000 ids=0
	probe id=0 kind=uprobe layer=HDF5 name=H5Dwrite target=/lib/libhdf5.so args=handle,handle ret=int
	probe id=1 kind=uprobe layer=POSIX name=pwrite target=/lib/libc.so.6 args=fd,ptr,size,offset ret=size
	probe id=2 kind=syscall layer=sys name=pwrite64 target=kernel args=fd,ptr,size,offset ret=size
	probe id=3 kind=uprobe layer=POSIX name=open target=/lib/libc.so.6 args=path,flags,mode ret=fd
	probe id=4 kind=uprobe layer=POSIX name=close target=/lib/libc.so.6 args=fd ret=int
	process pid=100 ppid=1 uid=0 gid=0 rank=0 exe=/usr/bin/app cmdline="app -n 2" cwd=/tmp
	process pid=101 ppid=1 uid=0 gid=0 rank=1 exe=/usr/bin/app cmdline="app -n 2" cwd=/tmp
	string id=7 value=/data/out.h5
	call probe=3 pid=100 tid=100 ts=1000000 dur=5000 ret=3 depth=0 args=0,66,420 file=7 seq=1
	EOF
	i=0
	while [ $i -lt "$1" ]; do
		pid=$((100 + i % 2))
		t=$((2000000 + i * 100000))
		s=$((10 + 3 * i))
		echo "call probe=2 pid=$pid tid=$pid ts=$((t + 2000)) dur=30000 ret=65536 depth=2 args=3,0,65536,0 file=7 seq=$((s + 2)) parent=$((s + 1))"
		echo "call probe=1 pid=$pid tid=$pid ts=$((t + 1000)) dur=40000 ret=65536 depth=1 args=3,0,65536,0 file=7 seq=$((s + 1)) parent=$s"
		echo "call probe=0 pid=$pid tid=$pid ts=$t dur=50000 ret=0 depth=0 args=1,2 seq=$s"
		i=$((i + 1))
	done
	echo "call probe=4 pid=100 tid=100 ts=$((2000000 + $1 * 100000)) dur=3000 ret=0 depth=0 args=3 file=7 seq=$((10 + 3 * $1))"
	echo "end events=AUTO dropped=0 flags=0"
}

test_expect_success 'help, version, usage errors' '
	dc-report --help >out &&
	grep "^Usage: dc-report" out &&
	dc-report --version >out &&
	grep "^dc-report (datacrumbs) " out &&
	test_must_fail_with 2 dc-report t.pfw.gz 2>err &&
	test_one_line err &&
	grep "no output given" err &&
	test_must_fail_with 2 dc-report -o r.html 2>err &&
	test_one_line err &&
	test_must_fail_with 2 dc-report --part-size 12Q -o r.html x 2>err &&
	test_one_line err &&
	test_must_fail_with 2 dc-report --bogus x -o r.html 2>err &&
	test_one_line err &&
	test_must_fail_with 2 dc-report -w -1 x -o r.html 2>err &&
	test_one_line err &&
	grep "workers must be 0 or more" err &&
	test ! -e r.html
'

test_expect_success DASK 'a nested trace over many gzip members on two workers: summary, call paths, files' '
	nested_stream 300 | dc-mkstream | dc-aggregate | dc-write --chunk-size 4K "$SHARED/n.pfw.gz" &&
	test $(wc -l <"$SHARED/n.pfw.gz.idx") -gt 20 &&
	dc-report -w 2 --stats --part-size 8K --top 0 "$SHARED/n.pfw.gz" -o "$SHARED/many.html" 2>stats &&
	grep "^dc-report: [1-9][0-9]* parts, 902 events, analysed in [0-9.]* s (cluster start [0-9.]* s) on 2 workers$" stats &&
	test $(grep -c "^dc-report: worker tcp://.* peak memory [1-9][0-9]* MiB, CPU [0-9.]* s$" stats) = 2 &&
	dc-write --summary --top 0 "$SHARED/n.pfw.gz" >want &&
	$Q "$SHARED/many.html" summary >got &&
	head -n 1 want | sed "s/^[^:]*: //; s/, 0 dropped//" >want.head &&
	head -n 1 got >got.head &&
	test_cmp want.head got.head &&
	grep "^902 events from 2 processes" got &&
	tail -n +3 want >want.rows && tail -n +2 got >got.rows &&
	test_cmp want.rows got.rows &&
	$Q "$SHARED/many.html" table calltree-table >paths &&
	grep -x "H5Dwrite	300	15000" paths &&
	grep -x "H5Dwrite > pwrite	300	12000" paths &&
	grep -x "H5Dwrite > pwrite > pwrite64	300	9000" paths &&
	$Q "$SHARED/many.html" table files-table >files &&
	grep -x "/data/out.h5	600	21000	0	19660800	2	8" files &&
	$Q "$SHARED/many.html" table layer-table >layers &&
	grep -x "POSIX	12008	19.73	HDF5 99.9%	302	19660800	1.5 GiB/s" layers &&
	grep -x "sys	9000	14.79	POSIX 100.0%	300	19660800	2.0 GiB/s" layers &&
	$Q "$SHARED/many.html" warning >warn &&
	test ! -s warn
'

test_expect_success DASK 'parents written after their children: exact paths, bytes once, no orphans' '
	zcat "$SHARED/n.pfw.gz" >n.pfw &&
	child=$(grep -n "\"name\":\"pwrite64\"" n.pfw | head -n 1 | cut -d: -f1) &&
	parent=$(grep -n "\"name\":\"H5Dwrite\"" n.pfw | head -n 1 | cut -d: -f1) &&
	test "$child" -lt "$parent" &&
	$Q "$SHARED/many.html" table layer-table >layers &&
	grep -x "HDF5	15000	24.65	-	300	0	-" layers &&
	! grep -i orphan "$SHARED/many.html"
'

# A deeper tree: one long app call (main) of pid 100 over GROUPS
# H5Dwrite > pwrite > pwrite64, so main, written last, is the parent of
# every part's lines.
deep_stream() {
	nested_stream "$1" | sed -e "s/ pid=101 tid=101 / pid=100 tid=100 /" \
		-e "/^call probe=[0-2] /s/ depth=\([0-2]\) / depth=\1+ /" \
		-e "s/ depth=0+ / depth=1 /; s/ depth=1+ / depth=2 /; s/ depth=2+ / depth=3 /" \
		-e "/^call probe=0 /s/\$/ parent=5/" \
		-e "/^call probe=4 /i\\
call probe=5 pid=100 tid=100 ts=1500000 dur=40000000 ret=0 depth=0 args= seq=5" \
		-e "/^probe id=4 /a\\
probe id=5 kind=uprobe layer=app name=main target=/usr/bin/app args= ret=int"
}

test_expect_success DASK 'a deep tree over many gzip members and parts, children first or parents first' '
	deep_stream 300 | dc-mkstream | dc-aggregate | dc-write --chunk-size 4K "$SHARED/deep.pfw.gz" &&
	test $(wc -l <"$SHARED/deep.pfw.gz.idx") -gt 20 &&
	dc-report -w 0 --part-size 8K --top 0 "$SHARED/deep.pfw.gz" -o deep.html &&
	dc-write --summary --top 0 "$SHARED/deep.pfw.gz" | tail -n +3 >want &&
	$Q deep.html summary | tail -n +2 >got &&
	test_cmp want got &&
	$Q deep.html table calltree-table >paths &&
	grep -x "main	1	40000" paths &&
	grep -x "main > H5Dwrite	300	15000" paths &&
	grep -x "main > H5Dwrite > pwrite	300	12000" paths &&
	grep -x "main > H5Dwrite > pwrite > pwrite64	300	9000" paths &&
	test $(wc -l <paths) = 6 &&
	$Q deep.html table files-table >files &&
	grep -x "/data/out.h5	600	21000	0	19660800	2	8" files &&
	$Q deep.html warning >warn &&
	test ! -s warn &&
	zcat "$SHARED/deep.pfw.gz" | python3 "$DC_SRC_DIR/t/helpers/pfw-parents-first.py" 40 pf.pfw.gz &&
	test $(wc -l <pf.pfw.gz.idx) -gt 20 &&
	dc-report -w 0 --part-size 8K --top 0 pf.pfw.gz -o pf.html &&
	for t in calltree-table files-table layer-table; do
		$Q pf.html table $t >pf.$t &&
		$Q deep.html table $t >deep.$t &&
		test_cmp deep.$t pf.$t || exit 1
	done
'

test_expect_success DASK 'a parent never written: its children counted under their own name, said' '
	zcat "$SHARED/deep.pfw.gz" | grep -v "\"name\":\"main\"" >nomain.pfw &&
	dc-report -w 0 --top 0 nomain.pfw -o nomain.html &&
	$Q nomain.html table calltree-table >paths &&
	grep -x "H5Dwrite > pwrite > pwrite64	300	9000" paths &&
	! grep main paths &&
	$Q nomain.html table files-table >files &&
	grep -x "/data/out.h5	600	21000	0	19660800	2	8" files &&
	$Q nomain.html warning >warn &&
	grep "^300 calls whose parent call could not be found" warn
'

test_expect_success DASK 'one part, by default in this process, gives the same report as many parts on two workers' '
	dc-report --stats --top 0 "$SHARED/n.pfw.gz" -o one.html 2>stats &&
	grep "^dc-report: 1 parts, 902 events, analysed in [0-9.]* s in this process$" stats &&
	grep "^dc-report: this process peak memory [1-9][0-9]* MiB, CPU [0-9.]* s$" stats &&
	test_line_count stats 2 &&
	for t in summary-table layer-table files-table calltree-table kernel-table; do
		$Q one.html table $t >one.$t &&
		$Q "$SHARED/many.html" table $t >many.$t &&
		test_cmp one.$t many.$t || exit 1
	done &&
	$Q one.html plots >one.plots &&
	$Q "$SHARED/many.html" plots >many.plots &&
	test_cmp one.plots many.plots
'

test_expect_success DASK 'an IOR-like trace: numbers equal dc-write --summary, every figure drawn' '
	dc-mkstream --synthetic 50000 | dc-write --chunk-size 1M s.pfw.gz &&
	dc-report -w 0 --part-size 2M --top 0 s.pfw.gz -o r.html &&
	dc-write --summary --top 0 s.pfw.gz >want &&
	$Q r.html summary >got &&
	tail -n +3 want >want.rows && tail -n +2 got >got.rows &&
	test_cmp want.rows got.rows &&
	grep "^50000 events from 2 processes" got &&
	$Q r.html plots >plots &&
	cut -f1 plots >names &&
	printf "%s\n" "time per layer" "heat map of bytes per process over time" \
		"bandwidth per layer over time" "calls by size, per layer and operation" >want.names &&
	test_cmp want.names names &&
	! grep "	0$" plots
'

SAMPLES="$SHARED_DIR/samples"
test_lazy_prereq SAMPLES '
	test -r "$SAMPLES/dfanalyzer_test_2023.pfw.gz" || { echo "no shared/samples"; false; }
'

test_expect_success DASK,SAMPLES 'other writers'"'"' traces (DFTracer 1.0, the 2023 form): the same numbers, no warning' '
	for f in cm1-DEFAULT-3537780-preload dfanalyzer_test_2023; do
		dc-report -w 0 --top 0 "$SAMPLES/$f.pfw.gz" -o $f.html &&
		dc-write --summary --top 0 "$SAMPLES/$f.pfw.gz" | tail -n +3 >want &&
		$Q $f.html summary | tail -n +2 >got &&
		test_cmp want got &&
		$Q $f.html warning >warn &&
		test ! -s warn || exit 1
	done
'

# remote_report ARGS...: start a Dask scheduler and one worker (in /, with
# no datacrumbs on its path), run dc-report --scheduler ADDRESS ARGS...,
# stop both by pid.
remote_report() {
	dask-scheduler --host 127.0.0.1 --port 0 --no-dashboard \
		--scheduler-file sched.json >sched.log 2>&1 &
	sched=$!
	worker=
	if wait_for_file sched.json 120; then
		addr=$(python3 -c "import json; print(json.load(open(\"sched.json\"))[\"address\"])")
		(cd / && exec dask-worker --scheduler-file "$OLDPWD/sched.json" \
			--nthreads 1 --nworkers 1 --no-dashboard) >worker.log 2>&1 &
		worker=$!
		dc-report --scheduler "$addr" "$@" &&
		dc-report --scheduler-file sched.json "$@" -o file.html
		rc=$?
	else
		rc=1
	fi
	kill $sched $worker 2>/dev/null
	wait
	return $rc
}

# Reads of /dev/zero, of a pipe and of a file the trace cannot name are
# not the page cache's: the kernel table counts only reads of files by
# path outside /dev, /proc and /sys (it counted /dev/zero's 100 MiB once).
test_expect_success DASK 'the page cache served only reads of files, not of devices or pipes' '
	{
		echo "header host=node1 run=pc offset=1700000000000000000 start=1000 ids=0" &&
		echo "probe id=0 kind=syscall layer=sys name=read target=kernel args=fd,ptr,size ret=size" &&
		echo "process pid=100 ppid=1 uid=0 gid=0 rank=0 exe=/usr/bin/dd cmdline=dd cwd=/tmp" &&
		echo "string id=7 value=/dev/zero" &&
		echo "string id=8 value=/data/cached" &&
		echo "string id=9 value=pipe:[4242]" &&
		echo "string id=10 value=/proc/self/status" &&
		for i in 1 2 3; do
			echo "call probe=0 pid=100 tid=100 ts=$((i * 1000000)) dur=1000 ret=1048576 depth=0 args=3,0,1048576 file=7 seq=$i"
		done &&
		echo "call probe=0 pid=100 tid=100 ts=5000000 dur=1000 ret=4096 depth=0 args=4,0,4096 file=8 seq=5" &&
		echo "call probe=0 pid=100 tid=100 ts=6000000 dur=1000 ret=4096 depth=0 args=4,0,4096 file=8 seq=6" &&
		echo "call probe=0 pid=100 tid=100 ts=7000000 dur=1000 ret=512 depth=0 args=5,0,512 file=9 seq=7" &&
		echo "call probe=0 pid=100 tid=100 ts=8000000 dur=1000 ret=300 depth=0 args=6,0,300 file=10 seq=8" &&
		echo "call probe=0 pid=100 tid=100 ts=9000000 dur=1000 ret=100 depth=0 args=11,0,100 seq=9" &&
		echo "end events=AUTO dropped=0 flags=0"
	} | dc-mkstream | dc-aggregate | dc-write pc.pfw.gz &&
	dc-report -w 0 pc.pfw.gz -o pc.html &&
	$Q pc.html table kernel-table >kernel &&
	cat kernel &&
	grep -x "bytes read by system calls	$((3 * 1048576 + 8192 + 512 + 300 + 100))" kernel &&
	grep -x "bytes served from the page cache (at least)	8192" kernel
'

# Access sizes count the bytes each read or write moved, not what it
# asked for: a read of a 64 KiB buffer that returned 100 bytes is in the
# 64-byte bucket, one at the end of its file in 0; cp's copy_file_range
# asks for 2^63 - 1 bytes and copies 3,000,017, a read and a write of
# the 2 MiB bucket; an fread of 4096 items of 1 byte that got 10 is in
# 8; a socket message by its length, a peek (MSG_PEEK) moved nothing.
# A failed read (-EAGAIN) made no access.
test_expect_success DASK 'access sizes: the bytes each call moved, failed calls left out' '
	cat >sz.txt <<-EOF &&
	header host=node1 run=sz offset=1700000000000000000 start=1000 ids=0
	probe id=0 kind=syscall layer=sys name=read target=kernel args=fd,ptr,size ret=size
	probe id=1 kind=syscall layer=sys name=openat target=kernel args=fd,path,flags,mode ret=fd
	probe id=2 kind=syscall layer=sys name=copy_file_range target=kernel args=fd,ptr,fd,ptr,size,flags ret=size
	probe id=3 kind=uprobe layer=STDIO name=fread target=/lib/libc.so.6 args=ptr,isize,count,file ret=items
	probe id=4 kind=tracepoint layer=net name=sock:sock_recv_length target=sock args=family,protocol,flags ret=size
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/cp cmdline=cp cwd=/d
	call probe=1 pid=100 tid=100 ts=1000 dur=1000 ret=3 args=-100,0,0,0 str=/d/src seq=1
	call probe=1 pid=100 tid=100 ts=3000 dur=1000 ret=4 args=-100,0,65,420 str=/d/dst seq=2
	call probe=2 pid=100 tid=100 ts=5000 dur=3000 ret=3000017 args=3,0,4,0,9223372036854775807,0 seq=3
	call probe=2 pid=100 tid=100 ts=9000 dur=1000 ret=0 args=3,0,4,0,9223372036854775807,0 seq=4
	call probe=0 pid=100 tid=100 ts=11000 dur=1000 ret=100 args=3,0,65536 seq=5
	repeat 2 call probe=0 pid=100 tid=100 ts=13000 dur=1000 ret=65536 args=3,0,65536 seq=6
	call probe=0 pid=100 tid=100 ts=15000 dur=1000 ret=0 args=3,0,65536 seq=8
	call probe=0 pid=100 tid=100 ts=17000 dur=1000 ret=-11 args=3,0,4096 error=11 seq=9
	call probe=3 pid=100 tid=100 ts=19000 dur=1000 ret=10 args=0,1,4096,0 seq=10
	instant probe=4 pid=100 tid=100 ts=21000 ret=300 args=2,6,0
	instant probe=4 pid=100 tid=100 ts=22000 ret=1 args=2,6,2
	instant probe=4 pid=100 tid=100 ts=23000 ret=-11 args=2,6,64
	end events=AUTO dropped=0 flags=0
	EOF
	dc-mkstream <sz.txt | dc-aggregate | dc-write sz.pfw.gz &&
	dc-report -w 0 sz.pfw.gz -o sz.html &&
	$Q sz.html table sizes-table >sizes &&
	cat sizes &&
	sort sizes >got &&
	sort >want <<-\EOF &&
	STDIO	read	8	1
	sys	read	0	2
	sys	read	64	1
	sys	read	65536	2
	sys	read	2097152	1
	sys	write	0	1
	sys	write	2097152	1
	net	read	0	1
	net	read	256	1
	EOF
	test_cmp want got
'

# A read or a write by its name: the line and character reads and the
# printing of STDIO (getline, getdelim, fgetc, getchar; fprintf,
# vfprintf, printf, puts, putchar, dprintf, fwrite_unlocked: stdout's
# a file slot in the PROBE frame, as the collector gives it); a POSIX
# AIO request by its aio_return's op (R 82, W 87), its aio_read or
# aio_write neither.
test_expect_success DASK 'lines read and printed, AIO requests returned: read and written bytes per file' '
	cat >rw.txt <<-EOF &&
	header host=node1 run=rw offset=1700000000000000000 start=1000 ids=0
	probe id=0 kind=uprobe layer=POSIX name=open target=/lib/libc.so.6 args=path,flags,mode ret=fd
	probe id=1 kind=uprobe layer=STDIO name=fprintf target=/lib/libc.so.6 args=file,str ret=size
	probe id=2 kind=uprobe layer=STDIO name=vfprintf target=/lib/libc.so.6 args=file,str ret=size
	probe id=3 kind=uprobe layer=STDIO name=getline target=/lib/libc.so.6 args=ptr,ptr,file ret=size
	probe id=4 kind=uprobe layer=STDIO name=getdelim target=/lib/libc.so.6 args=ptr,ptr,int,file ret=size
	probe id=5 kind=uprobe layer=POSIX name=aio_write target=/lib/libc.so.6 args=fd,size,offset ret=status
	probe id=6 kind=uprobe layer=POSIX name=aio_read target=/lib/libc.so.6 args=fd,size,offset ret=status
	probe id=7 kind=uprobe layer=POSIX name=aio_return target=/lib/libc.so.6 args=fd,size,offset,op ret=size
	probe id=8 kind=uprobe layer=STDIO name=printf target=/lib/libc.so.6 args=str,file ret=size
	probe id=9 kind=uprobe layer=STDIO name=puts target=/lib/libc.so.6 args=ptr,file ret=size
	probe id=10 kind=uprobe layer=STDIO name=putchar target=/lib/libc.so.6 args=char,file ret=all
	probe id=11 kind=uprobe layer=STDIO name=fgetc target=/lib/libc.so.6 args=file ret=char
	probe id=12 kind=uprobe layer=STDIO name=getchar target=/lib/libc.so.6 args=file ret=char
	probe id=13 kind=uprobe layer=STDIO name=dprintf target=/lib/libc.so.6 args=fd,str ret=size
	probe id=14 kind=uprobe layer=STDIO name=fwrite_unlocked target=/lib/libc.so.6 args=ptr,isize,count,file ret=items
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/app cmdline=app cwd=/d
	call probe=0 pid=100 tid=100 ts=1000 dur=1000 ret=3 args=0,66,420 str=/d/log seq=1
	call probe=0 pid=100 tid=100 ts=3000 dur=1000 ret=4 args=0,66,420 str=/d/data seq=2
	call probe=1 pid=100 tid=100 ts=5000 dur=1000 ret=20 args=4096,0,0,0,0,3 seq=3
	call probe=2 pid=100 tid=100 ts=7000 dur=1000 ret=30 args=4096,0,0,0,0,3 seq=4
	call probe=3 pid=100 tid=100 ts=9000 dur=1000 ret=100 args=0,0,4096,0,0,3 seq=5
	call probe=4 pid=100 tid=100 ts=11000 dur=1000 ret=50 args=0,0,10,4096,0,3 seq=6
	call probe=5 pid=100 tid=100 ts=13000 dur=1000 ret=0 args=4,8192,0 seq=7
	call probe=6 pid=100 tid=100 ts=15000 dur=1000 ret=0 args=4,4096,0 seq=8
	call probe=7 pid=100 tid=100 ts=17000 dur=1000 ret=8192 args=4,8192,0,87 seq=9
	call probe=7 pid=100 tid=100 ts=19000 dur=1000 ret=4000 args=4,4096,0,82 seq=10
	call probe=8 pid=100 tid=100 ts=21000 dur=1000 ret=25 args=4096,0,0,0,0,3 seq=11
	call probe=9 pid=100 tid=100 ts=23000 dur=1000 ret=6 args=4096,0,0,0,0,3 seq=12
	call probe=10 pid=100 tid=100 ts=25000 dur=1000 ret=33 args=33,0,0,0,0,3 seq=13
	call probe=11 pid=100 tid=100 ts=27000 dur=1000 ret=65 args=0,0,0,0,0,3 seq=14
	call probe=12 pid=100 tid=100 ts=29000 dur=1000 ret=66 args=0,0,0,0,0,3 seq=15
	call probe=12 pid=100 tid=100 ts=31000 dur=1000 ret=-1 args=0,0,0,0,0,3 seq=16
	call probe=13 pid=100 tid=100 ts=33000 dur=1000 ret=7 args=3,4096 seq=17
	call probe=14 pid=100 tid=100 ts=35000 dur=1000 ret=2 args=4096,10,2,0,0,3 seq=18
	end events=AUTO dropped=0 flags=0
	EOF
	dc-mkstream <rw.txt | dc-aggregate | dc-write rw.pfw.gz &&
	dc-report -w 0 rw.pfw.gz -o rw.html &&
	$Q rw.html table files-table >files &&
	cat files &&
	grep "^/d/log	12	[0-9.]*	152	109	" files &&
	grep "^/d/data	2	[0-9.]*	4000	8192	" files
'

# A collector's stream (ids=0) of GROUPS rounds, each: pid 100 sends
# 1000 bytes with sendto, the socket's message (1000) under it, and
# receives 300 bytes and peeks at 1 (MSG_PEEK) outside every call; pid
# 101's io_uring_enter, under it the completions of a 64 KiB read
# (opcode 22), a 4 KiB write (23) and an open (18, a descriptor), and a
# 8 KiB read completed by its io-wq thread 102 outside every call.
net_uring_stream() {
	cat <<-EOF
	header host=node1 run=nu offset=1700000000000000000 start=1000 ids=0
	probe id=0 kind=syscall layer=sys name=sendto target=kernel args=fd,ptr,size,flags,ptr,int ret=size
	probe id=1 kind=tracepoint layer=net name=sock:sock_send_length target=sock args=family,protocol,flags ret=size
	probe id=2 kind=tracepoint layer=net name=sock:sock_recv_length target=sock args=family,protocol,flags ret=size
	probe id=3 kind=tracepoint layer=io_uring name=io_uring:io_uring_complete target=io_uring args=int,opcode ret=size
	probe id=4 kind=syscall layer=sys name=io_uring_enter target=kernel args=fd,int,int,flags,ptr,size ret=int
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/usr/bin/net cmdline=net cwd=/tmp
	process pid=101 ppid=1 uid=0 gid=0 rank=-1 exe=/usr/bin/ring cmdline=ring cwd=/tmp
	EOF
	i=0
	while [ $i -lt "$1" ]; do
		t=$((1000000 + i * 100000)) s=$((10 + 2 * i))
		echo "instant probe=1 pid=100 tid=100 ts=$((t + 500)) ret=1000 depth=1 args=2,6,0 parent=$s"
		echo "call probe=0 pid=100 tid=100 ts=$t dur=2000 ret=1000 depth=0 args=3,0,1000,0,0,0 seq=$s"
		echo "instant probe=2 pid=100 tid=100 ts=$((t + 3000)) ret=300 depth=0 args=2,6,0"
		echo "instant probe=2 pid=100 tid=100 ts=$((t + 4000)) ret=1 depth=0 args=2,6,2"
		echo "instant probe=3 pid=101 tid=101 ts=$((t + 5500)) ret=65536 depth=1 args=$i,22 parent=$((s + 1))"
		echo "instant probe=3 pid=101 tid=101 ts=$((t + 5600)) ret=4096 depth=1 args=$i,23 parent=$((s + 1))"
		echo "instant probe=3 pid=101 tid=101 ts=$((t + 5700)) ret=5 depth=1 args=$i,18 parent=$((s + 1))"
		echo "call probe=4 pid=101 tid=101 ts=$((t + 5000)) dur=1000 ret=3 depth=0 args=4,3,3,1,0,0 seq=$((s + 1))"
		echo "instant probe=3 pid=101 tid=102 ts=$((t + 7000)) ret=8192 depth=0 args=$i,22"
		i=$((i + 1))
	done
	echo "end events=AUTO dropped=0 flags=0"
}

# The layer table counts each layer's bytes (sys: the sendto calls; net:
# the socket messages, the peek not); a process's bytes count once: the
# socket message under a sendto not again, the other instants (under an
# io_uring_enter, which moved nothing, or under no call) once.
test_expect_success DASK 'socket messages and io_uring completions: per layer, once per process, over parts' '
	net_uring_stream 200 | dc-mkstream | dc-aggregate | dc-write --chunk-size 4K nu.pfw.gz &&
	test $(wc -l <nu.pfw.gz.idx) -gt 10 &&
	dc-report -w 0 --part-size 8K --top 0 nu.pfw.gz -o nu.html &&
	dc-write --summary --top 0 nu.pfw.gz | tail -n +3 >want &&
	$Q nu.html summary | tail -n +2 >got &&
	test_cmp want got &&
	grep "^net  *sock:sock_send_length  *200  *200000 " got &&
	grep "^net  *sock:sock_recv_length  *400  *60000 " got &&
	grep "^io_uring  *io_uring:io_uring_complete  *800  *15564800 " got &&
	$Q nu.html table layer-table >layers &&
	cat layers &&
	grep "^sys	600	.*	-	400	200000	" layers &&
	grep "^net	0	.*	600	260000	-$" layers &&
	grep "^io_uring	0	.*	800	15564800	-$" layers &&
	$Q nu.html table heat-table >heat &&
	cat heat &&
	printf "net (100)\t60000\t200000\nring (101)\t14745600\t819200\n" >want.heat &&
	test_cmp want.heat heat &&
	dc-report -w 0 --top 0 nu.pfw.gz -o one.html &&
	for t in summary-table layer-table heat-table; do
		$Q one.html table $t >one.$t &&
		$Q nu.html table $t >nu.$t &&
		test_cmp one.$t nu.$t || exit 1
	done
'

test_expect_success DASK 'the header: command, hosts, processes, ranks, batch job, run id' '
	zcat "$SHARED/n.pfw.gz" | sed "s/\"cwd\":\"\/tmp\"}/\"cwd\":\"\/tmp\",\"scheduler\":\"slurm\",\"job_id\":\"4242\",\"job_step\":\"0\"}/" >job.pfw &&
	grep -c "\"job_id\":\"4242\"" job.pfw >n && test "$(cat n)" = 2 &&
	dc-report -w 0 job.pfw -o job.html &&
	test "$($Q job.html header command)" = "app -n 2" &&
	test "$($Q job.html header hosts)" = node1 &&
	test "$($Q job.html header processes)" = 2 &&
	test "$($Q job.html header ranks)" = 2 &&
	test "$($Q job.html header job)" = "slurm job 4242 step 0, run r7" &&
	test "$($Q job.html header events)" = 902
'

test_expect_success DASK 'a running Dask cluster (--scheduler): workers without datacrumbs, same report' '
	remote_report --part-size 8K --top 0 "$SHARED/n.pfw.gz" -o remote.html &&
	for t in summary-table calltree-table files-table; do
		$Q remote.html table $t >remote.$t &&
		$Q file.html table $t >file.$t &&
		test_cmp remote.$t file.$t &&
		$Q "$SHARED/many.html" table $t >many.$t &&
		test_cmp many.$t remote.$t || exit 1
	done
'

# Dask waits for a scheduler for distributed.comm.timeouts.connect (30 s).
test_expect_success DASK 'no scheduler there: exit 1, one line, after the connect timeout Dask is given' '
	test_must_fail_with 1 env DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=2s \
		dc-report --scheduler tcp://127.0.0.1:9 "$SHARED/n.pfw.gz" -o r.html 2>err &&
	test_one_line err &&
	grep "^dc-report: Dask cluster: .* after 2 s" err &&
	test_must_fail_with 1 dc-report --scheduler-file nowhere.json "$SHARED/n.pfw.gz" -o r.html 2>err &&
	test_one_line err &&
	grep "^dc-report: Dask cluster: no scheduler file nowhere.json" err &&
	test ! -e r.html
'

test_done

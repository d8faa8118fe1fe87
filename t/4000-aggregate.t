#!/bin/sh
# dc-aggregate: file names, totals, damaged input, merging (the call
# tree has its own script, t/4020-calltree.t).
# Streams are made with dc-mkstream and results read with --text.
. "$(dirname "$0")/test-lib.sh"

# probes: the usual POSIX and syscall set, same ids in every test.
write_probes() {
	cat <<-\EOF
	header host=node1 run=r1 offset=1700000000000000000 start=1000 ids=0
	probe id=0 kind=uprobe layer=POSIX name=open target=/lib/libc.so.6 args=path,flags,mode ret=fd
	probe id=1 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	probe id=2 kind=uprobe layer=POSIX name=close target=/lib/libc.so.6 args=fd ret=status
	probe id=3 kind=syscall layer=sys name=openat args=fd,path,flags,mode ret=fd
	probe id=4 kind=uprobe layer=POSIX name=dup target=/lib/libc.so.6 args=fd ret=fd
	probe id=5 kind=uprobe layer=POSIX name=dup2 target=/lib/libc.so.6 args=fd,fd ret=fd
	probe id=6 kind=uprobe layer=POSIX name=fcntl target=/lib/libc.so.6 args=fd,int,int ret=int
	probe id=7 kind=syscall layer=sys name=read args=fd,ptr,size ret=size
	probe id=8 kind=uprobe layer=STDIO name=fopen target=/lib/libc.so.6 args=path,str ret=handle
	probe id=9 kind=uprobe layer=STDIO name=fwrite target=/lib/libc.so.6 args=ptr,size,size,handle ret=size
	probe id=10 kind=uprobe layer=STDIO name=fclose target=/lib/libc.so.6 args=handle ret=status
	probe id=11 kind=uprobe layer=APP name=work target=/bin/app args=int ret=int
	probe id=12 kind=uprobe layer=APP name=step target=/bin/app args=int ret=int
	probe id=13 kind=syscall layer=sys name=socket args=int,int,int ret=fd
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/app cmdline="app -x" cwd=/work/dir
	EOF
}

# agg FILE: the text form of dc-aggregate's output for description FILE.
agg() {
	dc-mkstream "$1" >in.bin &&
	dc-aggregate --text in.bin >out 2>err
}

# events: the event lines only, without their ids (t/4020 checks those).
events() {
	grep -E "^(call|enter|exit|instant|fork|exec|exitproc) " out |
	sed -E "s/ seq=[0-9]+ parent=[0-9]+//"
}

test_must_be_empty_err() {
	if test -s err; then cat err >&2; return 1; fi
}

test_expect_success 'the tools are built' '
	command -v dc-aggregate && command -v dc-mkstream
'

test_expect_success 'calls pass through unchanged' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=11 pid=100 tid=100 ts=100 dur=50 ret=-5 depth=3 flags=2 args=1,2
	end
	EOF
	agg s &&
	events >got &&
	echo "call probe=11 pid=100 tid=100 ts=100 dur=50 ret=-5 depth=3 flags=2 file=- args=1,2" >expect &&
	test_cmp expect got
'

test_expect_success 'open names its fd; relative paths use the cwd; close forgets after the call' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,65,420 str=out/../data.txt
	call probe=1 pid=100 tid=100 ts=200 dur=10 ret=4 args=3,0,4
	call probe=2 pid=100 tid=100 ts=300 dur=10 ret=0 args=3
	call probe=1 pid=100 tid=100 ts=400 dur=10 ret=4 args=3,0,4
	call probe=0 pid=100 tid=100 ts=500 dur=10 ret=-2 flags=2 args=0,0,0 str=/nope
	call probe=1 pid=100 tid=100 ts=600 dur=10 ret=4 args=-2,0,4
	end
	EOF
	agg s &&
	events | sed "s/ tid=.* file=/ file=/" >got &&
	cat >expect <<-\EOF &&
	call probe=0 pid=100 file=/work/dir/data.txt args=0,65,420 str=out/../data.txt
	call probe=1 pid=100 file=/work/dir/data.txt args=3,0,4
	call probe=2 pid=100 file=/work/dir/data.txt args=3
	call probe=1 pid=100 file=- args=3,0,4
	call probe=0 pid=100 file=/nope args=0,0,0 str=/nope
	call probe=1 pid=100 file=- args=-2,0,4
	EOF
	test_cmp expect got
'

# Threads of one process share its fds: one thread's close frees fd 3
# while another's open, begun before the close ended, gets it.  Records
# come as calls return, so the open (returned at 1490) comes before the
# close (at 1600): the close is of the file fd 3 named when it began, and
# so is a write in flight across the reuse; calls begun after the open
# returned are on the new file.
test_expect_success 'an fd closed by one thread while another opens it again: each call names its own file' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=0 pid=100 tid=100 ts=1000 dur=100 ret=3 args=0,65,420 str=/a
	call probe=1 pid=100 tid=100 ts=1200 dur=10 ret=4 args=3,0,4
	call probe=0 pid=100 tid=101 ts=1290 dur=200 ret=3 args=0,65,420 str=/b
	call probe=1 pid=100 tid=102 ts=1250 dur=300 ret=4 args=3,0,4
	call probe=2 pid=100 tid=100 ts=1300 dur=300 ret=0 args=3
	call probe=1 pid=100 tid=101 ts=1700 dur=10 ret=4 args=3,0,4
	call probe=2 pid=100 tid=101 ts=1800 dur=10 ret=0 args=3
	call probe=1 pid=100 tid=101 ts=1900 dur=10 ret=4 args=3,0,4
	end
	EOF
	agg s &&
	events | sed "s/ pid=100 tid=\([0-9]*\) .* file=/ \1 file=/" >got &&
	cat >expect <<-\EOF &&
	call probe=0 100 file=/a args=0,65,420 str=/a
	call probe=1 100 file=/a args=3,0,4
	call probe=0 101 file=/b args=0,65,420 str=/b
	call probe=1 102 file=/a args=3,0,4
	call probe=2 100 file=/a args=3
	call probe=1 101 file=/b args=3,0,4
	call probe=2 101 file=/b args=3
	call probe=1 101 file=- args=3,0,4
	EOF
	test_cmp expect got
'

test_expect_success 'STRING frames come before the events that use them' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=/a
	call probe=1 pid=100 tid=100 ts=200 dur=10 ret=4 args=3,0,4
	EOF
	echo "drops total=0" >>s &&
	cat >>s <<-\EOF &&
	call probe=0 pid=100 tid=100 ts=300 dur=10 ret=4 args=0,0,0 str=/b
	call probe=1 pid=100 tid=100 ts=400 dur=10 ret=4 args=4,0,4
	call probe=1 pid=100 tid=100 ts=500 dur=10 ret=4 args=3,0,4
	end
	EOF
	dc-mkstream s | dc-aggregate >bin &&
	dc-aggregate --text bin >out &&
	grep -E "^(string|call)" out | sed "s/ pid=.* file=/ file=/" >got &&
	cat >expect <<-\EOF &&
	string id=1 value=/a
	call probe=0 file=/a args=0,0,0 str=/a
	call probe=1 file=/a args=3,0,4
	string id=2 value=/b
	call probe=0 file=/b args=0,0,0 str=/b
	call probe=1 file=/b args=4,0,4
	call probe=1 file=/a args=3,0,4
	EOF
	test_cmp expect got
'

# Process 200 was described after it had released its working directory
# (empty cwd), 300 not at all: their relative names stay as written, and
# one line says how many and why; 100's (cwd known) and an unknown
# dirfd's are not counted.
test_expect_success 'relative paths of processes whose working directory is unknown: kept, counted, said why' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	process pid=200 ppid=1 uid=0 gid=0 rank=-1 exe= cmdline= cwd=
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=known
	call probe=3 pid=100 tid=100 ts=150 dur=10 ret=8 args=42,0,0,0 str=unknown-dir-rel
	call probe=0 pid=200 tid=200 ts=200 dur=10 ret=3 args=0,0,0 str=F
	call probe=3 pid=200 tid=200 ts=300 dur=10 ret=4 args=-100,0,0,0 str=G
	call probe=0 pid=300 tid=300 ts=400 dur=10 ret=3 args=0,0,0 str=H
	end
	EOF
	agg s &&
	events | sed "s/ tid=.* file=/ file=/; s/ args=.*//" >got &&
	cat >expect <<-\EOF &&
	call probe=0 pid=100 file=/work/dir/known
	call probe=3 pid=100 file=unknown-dir-rel
	call probe=0 pid=200 file=F
	call probe=3 pid=200 file=G
	call probe=0 pid=300 file=H
	EOF
	test_cmp expect got &&
	echo "dc-aggregate: 3 relative paths of 2 processes kept as written: no working directory known for them (the collector found none in /proc: they had exited before it read it)" >expect &&
	test_cmp expect err
'

test_expect_success 'openat resolves against its dirfd, or the cwd for AT_FDCWD' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=5 args=0,0,0 str=/data/run
	call probe=3 pid=100 tid=100 ts=200 dur=10 ret=6 args=5,0,0,0 str=./x/y.h5
	call probe=3 pid=100 tid=100 ts=300 dur=10 ret=7 args=-100,0,0,0 str=z
	call probe=3 pid=100 tid=100 ts=400 dur=10 ret=8 args=42,0,0,0 str=unknown-dir-rel
	call probe=7 pid=100 tid=100 ts=500 dur=10 ret=1 args=6,0,1
	call probe=7 pid=100 tid=100 ts=600 dur=10 ret=1 args=7,0,1
	call probe=7 pid=100 tid=100 ts=700 dur=10 ret=1 args=8,0,1
	end
	EOF
	agg s &&
	events | sed "s/ tid=.* file=/ file=/; s/ args=.*//" >got &&
	cat >expect <<-\EOF &&
	call probe=0 pid=100 file=/data/run
	call probe=3 pid=100 file=/data/run/x/y.h5
	call probe=3 pid=100 file=/work/dir/z
	call probe=3 pid=100 file=unknown-dir-rel
	call probe=7 pid=100 file=/data/run/x/y.h5
	call probe=7 pid=100 file=/work/dir/z
	call probe=7 pid=100 file=unknown-dir-rel
	EOF
	test_cmp expect got
'

test_expect_success 'syscall events get the file of an fd opened through libc' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=3 pid=100 tid=100 ts=110 dur=10 ret=3 depth=1 args=-100,0,0,0 str=/f seq=2 parent=1
	call probe=0 pid=100 tid=100 ts=100 dur=30 ret=3 args=0,0,0 str=/f seq=1
	call probe=7 pid=100 tid=100 ts=200 dur=10 ret=1 args=3,0,1
	end
	EOF
	agg s &&
	events | sed "s/ ts=.* file=/ file=/" >got &&
	cat >expect <<-\EOF &&
	call probe=3 pid=100 tid=100 file=/f args=-100,0,0,0 str=/f
	call probe=0 pid=100 tid=100 file=/f args=0,0,0 str=/f
	call probe=7 pid=100 tid=100 file=/f args=3,0,1
	EOF
	test_cmp expect got
'

test_expect_success 'dup, dup2, fcntl(F_DUPFD) copy; other fcntl does not, a new fd is what made it' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=/f
	call probe=0 pid=100 tid=100 ts=110 dur=10 ret=9 args=0,0,0 str=/g
	call probe=4 pid=100 tid=100 ts=200 dur=10 ret=4 args=3
	call probe=5 pid=100 tid=100 ts=300 dur=10 ret=9 args=3,9
	call probe=6 pid=100 tid=100 ts=400 dur=10 ret=10 args=3,0,10
	call probe=6 pid=100 tid=100 ts=500 dur=10 ret=0 args=3,2,1
	call probe=13 pid=100 tid=100 ts=550 dur=10 ret=4 args=2,1,0
	call probe=2 pid=100 tid=100 ts=600 dur=10 ret=0 args=3
	call probe=1 pid=100 tid=100 ts=700 dur=10 ret=1 args=4,0,1
	call probe=1 pid=100 tid=100 ts=710 dur=10 ret=1 args=9,0,1
	call probe=1 pid=100 tid=100 ts=720 dur=10 ret=1 args=10,0,1
	call probe=1 pid=100 tid=100 ts=730 dur=10 ret=1 args=3,0,1
	end
	EOF
	agg s &&
	events | sed "s/ pid=.* file=/ file=/" >got &&
	cat >expect <<-\EOF &&
	call probe=0 file=/f args=0,0,0 str=/f
	call probe=0 file=/g args=0,0,0 str=/g
	call probe=4 file=/f args=3
	call probe=5 file=/f args=3,9
	call probe=6 file=/f args=3,0,10
	call probe=6 file=/f args=3,2,1
	call probe=13 file=socket:[100.1] args=2,1,0
	call probe=2 file=/f args=3
	call probe=1 file=socket:[100.1] args=4,0,1
	call probe=1 file=/f args=9,0,1
	call probe=1 file=/f args=10,0,1
	call probe=1 file=- args=3,0,1
	EOF
	test_cmp expect got
'

# Descriptors that are not files, made by the events (dc-trace(5), File
# names): a pipe is pipe:[PID.N] at both ends, N counting the pipes and
# sockets PID made; pipe() names it once with the pipe2 system call under
# it (whose record comes first); a failed pipe2 names nothing, whatever
# its array held; a socketpair makes two sockets; accept4 is named by the
# socket it listens on, what it returns is new; an eventfd and a memfd
# have the kernel's names.  A child inherits the names and counts its
# own; an exec keeps them, and /proc's names read later do not replace
# them.
test_expect_success 'pipes, sockets, eventfds and memfds made by the events are named' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	probe id=14 kind=uprobe layer=POSIX name=pipe target=/lib/libc.so.6 args=fdpair ret=status
	probe id=15 kind=syscall layer=sys name=pipe2 args=fdpair,flags ret=status
	probe id=16 kind=syscall layer=sock name=socketpair args=int,int,int,fdpair ret=status
	probe id=17 kind=syscall layer=sys name=memfd_create args=str,flags ret=fd
	probe id=18 kind=syscall layer=sys name=eventfd2 args=int,flags ret=fd
	probe id=19 kind=syscall layer=sock name=accept4 args=fd,ptr,ptr,flags ret=fd
	call probe=15 pid=100 tid=100 ts=110 dur=10 ret=0 depth=1 args=17179869187,0 seq=2 parent=1
	call probe=14 pid=100 tid=100 ts=100 dur=50 ret=0 args=17179869187 seq=1
	call probe=1 pid=100 tid=100 ts=200 dur=10 ret=5 args=4,0,5
	call probe=7 pid=100 tid=100 ts=210 dur=10 ret=5 args=3,0,5
	call probe=15 pid=100 tid=100 ts=220 dur=10 ret=-24 flags=2 args=25769803781,0
	call probe=1 pid=100 tid=100 ts=230 dur=10 ret=1 args=5,0,1
	call probe=16 pid=100 tid=100 ts=240 dur=10 ret=0 args=1,1,0,34359738375
	call probe=1 pid=100 tid=100 ts=250 dur=10 ret=1 args=7,0,1
	call probe=7 pid=100 tid=100 ts=260 dur=10 ret=1 args=8,0,1
	call probe=17 pid=100 tid=100 ts=270 dur=10 ret=11 args=0,0 str=buf
	call probe=18 pid=100 tid=100 ts=280 dur=10 ret=12 args=0,0
	call probe=13 pid=100 tid=100 ts=290 dur=10 ret=13 args=2,1,0
	call probe=19 pid=100 tid=100 ts=300 dur=10 ret=14 args=13,0,0,0
	call probe=1 pid=100 tid=100 ts=310 dur=10 ret=1 args=14,0,1
	fork pid=100 tid=100 ts=400 child=101
	call probe=1 pid=101 tid=101 ts=410 dur=10 ret=1 args=4,0,1
	call probe=15 pid=101 tid=101 ts=420 dur=10 ret=0 args=42949672969,0
	call probe=1 pid=101 tid=101 ts=430 dur=10 ret=1 args=10,0,1
	exec pid=100 tid=100 ts=500 str=/bin/other
	fds pid=100 taken=600 3=pipe:[555] 4=pipe:[555] 11=/memfd:buf 12=anon_inode:[eventfd]
	call probe=1 pid=100 tid=100 ts=700 dur=10 ret=1 args=4,0,1
	call probe=1 pid=100 tid=100 ts=710 dur=10 ret=1 args=11,0,1
	call probe=1 pid=100 tid=100 ts=720 dur=10 ret=1 args=12,0,1
	end
	EOF
	agg s &&
	test_must_be_empty_err &&
	events | sed "s/ tid=.* file=/ file=/; s/ args=.*//" >got &&
	cat >expect <<-\EOF &&
	call probe=15 pid=100 file=pipe:[100.1]
	call probe=14 pid=100 file=pipe:[100.1]
	call probe=1 pid=100 file=pipe:[100.1]
	call probe=7 pid=100 file=pipe:[100.1]
	call probe=15 pid=100 file=-
	call probe=1 pid=100 file=-
	call probe=16 pid=100 file=socket:[100.2]
	call probe=1 pid=100 file=socket:[100.2]
	call probe=7 pid=100 file=socket:[100.3]
	call probe=17 pid=100 file="/memfd:buf (deleted)"
	call probe=18 pid=100 file=anon_inode:[eventfd]
	call probe=13 pid=100 file=socket:[100.4]
	call probe=19 pid=100 file=socket:[100.4]
	call probe=1 pid=100 file=socket:[100.5]
	fork probe=0 pid=100 file=-
	call probe=1 pid=101 file=pipe:[100.1]
	call probe=15 pid=101 file=pipe:[101.1]
	call probe=1 pid=101 file=pipe:[101.1]
	exec probe=0 pid=100 file=-
	call probe=1 pid=100 file=pipe:[100.1]
	call probe=1 pid=100 file="/memfd:buf (deleted)"
	call probe=1 pid=100 file=anon_inode:[eventfd]
	EOF
	test_cmp expect got &&
	# The trace: the descriptors pipe2 made as fd0 and fd1, none for
	# the one that failed.
	dc-aggregate in.bin | dc-write --plain t.pfw &&
	grep "\"name\":\"pipe2\",.*\"fd0\":3,\"fd1\":4,\"flags\":0,\"ret\":0," t.pfw &&
	grep "\"name\":\"pipe2\",.*\"flags\":0,\"ret\":-24," t.pfw &&
	! grep "\"fd0\":5" t.pfw &&
	grep "\"name\":\"socketpair\",.*\"fd0\":7,\"fd1\":8,\"ret\":0," t.pfw
'

# sendfile(out, in, ...) and copy_file_range(in, ..., out, ...),
# splice(in, ..., out, ...): named by the file read, with the file
# written as their string; not when that fd is unknown (fd 7), nor for
# dup2, whose two fds return no byte count.
test_expect_success 'copies between two fds: the file read names the call, the file written is its string' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	probe id=14 kind=syscall layer=sys name=sendfile args=fd,fd,ptr,size ret=size
	probe id=15 kind=syscall layer=sys name=copy_file_range args=fd,ptr,fd,ptr,size,flags ret=size
	probe id=16 kind=syscall layer=sys name=splice args=fd,ptr,fd,ptr,size,flags ret=size
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=/src
	call probe=0 pid=100 tid=100 ts=110 dur=10 ret=4 args=0,0,0 str=/dst
	call probe=14 pid=100 tid=100 ts=200 dur=10 ret=100 args=4,3,0,100
	call probe=15 pid=100 tid=100 ts=300 dur=10 ret=100 args=3,0,4,0,100,0
	call probe=16 pid=100 tid=100 ts=400 dur=10 ret=100 args=3,0,4,0,100,0
	call probe=16 pid=100 tid=100 ts=500 dur=10 ret=100 args=3,0,7,0,100,0
	call probe=16 pid=100 tid=100 ts=600 dur=10 ret=100 args=7,0,4,0,100,0
	call probe=5 pid=100 tid=100 ts=700 dur=10 ret=4 args=3,4
	end
	EOF
	agg s &&
	test_must_be_empty_err &&
	events | sed "s/ pid=.* file=/ file=/" | grep -v "^call probe=0 " >got &&
	cat >expect <<-\EOF &&
	call probe=14 file=/src args=4,3,0,100 str=/dst
	call probe=15 file=/src args=3,0,4,0,100,0 str=/dst
	call probe=16 file=/src args=3,0,4,0,100,0 str=/dst
	call probe=16 file=/src args=3,0,7,0,100,0
	call probe=16 file=- args=7,0,4,0,100,0 str=/dst
	call probe=5 file=/src args=3,4
	EOF
	test_cmp expect got
'

test_expect_success 'fork copies the fd table; process exit drops it' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=/f
	fork pid=100 tid=100 ts=200 child=101
	call probe=2 pid=100 tid=100 ts=300 dur=10 ret=0 args=3
	call probe=1 pid=101 tid=101 ts=400 dur=10 ret=1 args=3,0,1
	call probe=1 pid=100 tid=100 ts=410 dur=10 ret=1 args=3,0,1
	exitproc pid=101 tid=101 ts=500 ret=0
	call probe=1 pid=101 tid=101 ts=600 dur=10 ret=1 args=3,0,1
	end
	EOF
	agg s &&
	events | sed "s/ tid=.* file=/ file=/" >got &&
	cat >expect <<-\EOF &&
	call probe=0 pid=100 file=/f args=0,0,0 str=/f
	fork probe=0 pid=100 file=- args=101
	call probe=2 pid=100 file=/f args=3
	call probe=1 pid=101 file=/f args=3,0,1
	call probe=1 pid=100 file=- args=3,0,1
	exitproc probe=0 pid=101 file=- args=
	call probe=1 pid=101 file=- args=3,0,1
	EOF
	test_cmp expect got
'

test_expect_success 'a library close names the file its close syscall closed; a failed close of a closed fd names none' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	probe id=14 kind=syscall layer=sys name=close args=fd ret=status
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=/f seq=1
	call probe=14 pid=100 tid=100 ts=210 dur=10 ret=0 depth=1 args=3 seq=3 parent=2
	call probe=2 pid=100 tid=100 ts=200 dur=30 ret=0 args=3 seq=2
	call probe=14 pid=100 tid=100 ts=310 dur=10 ret=-9 depth=1 args=3 flags=2 error=9 seq=5 parent=4
	call probe=2 pid=100 tid=100 ts=300 dur=30 ret=-1 args=3 flags=2 seq=4
	end
	EOF
	agg s &&
	events | cut -d" " -f2,7,10 >got &&
	cat >expect <<-\EOF &&
	probe=0 ret=3 file=/f
	probe=14 ret=0 file=/f
	probe=2 ret=0 file=/f
	probe=14 ret=-9 file=-
	probe=2 ret=-1 file=-
	EOF
	test_cmp expect got
'

test_expect_success 'fopen names its handle; fclose forgets it' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=8 pid=100 tid=100 ts=100 dur=10 ret=94000000 args=0,0 str=log.txt
	call probe=9 pid=100 tid=100 ts=200 dur=10 ret=1 args=0,1,5,94000000
	call probe=10 pid=100 tid=100 ts=300 dur=10 ret=0 args=94000000
	call probe=9 pid=100 tid=100 ts=400 dur=10 ret=1 args=0,1,5,94000000
	call probe=8 pid=100 tid=100 ts=500 dur=10 ret=0 flags=2 args=0,0 str=/ro/x
	call probe=9 pid=100 tid=100 ts=600 dur=10 ret=1 args=0,1,5,0
	end
	EOF
	agg s &&
	events | sed "s/ pid=.* file=/ file=/; s/ args=.*//" >got &&
	cat >expect <<-\EOF &&
	call probe=8 file=/work/dir/log.txt
	call probe=9 file=/work/dir/log.txt
	call probe=10 file=/work/dir/log.txt
	call probe=9 file=-
	call probe=8 file=/ro/x
	call probe=9 file=-
	EOF
	test_cmp expect got
'

test_expect_success 'exec forgets handles but keeps fds' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=/f
	call probe=8 pid=100 tid=100 ts=110 dur=10 ret=5000 args=0,0 str=/h
	exec pid=100 tid=100 ts=200 str=/bin/other
	call probe=1 pid=100 tid=100 ts=300 dur=10 ret=1 args=3,0,1
	call probe=9 pid=100 tid=100 ts=400 dur=10 ret=1 args=0,1,5,5000
	end
	EOF
	agg s &&
	events | sed "s/ pid=.* file=/ file=/; s/ args=.*//" >got &&
	cat >expect <<-\EOF &&
	call probe=0 file=/f
	call probe=8 file=/h
	exec probe=0 file=-
	call probe=1 file=/f
	call probe=9 file=-
	EOF
	test_cmp expect got
'

test_expect_success 'the END frame has its own totals; DROPS pass through' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	repeat 700 call probe=1 pid=100 tid=100 ts=100 dur=10 ret=1 args=1,0,1
	call probe=11 pid=100 tid=100 ts=900000 dur=100 ret=0 args=1
	drops kind=cpu total=7 0=4 1=3
	drops kind=probe total=7 1=7
	drops kind=unattributed total=7 1=2
	end events=AUTO dropped=7 flags=4
	EOF
	agg s &&
	test "$(events | wc -l)" = 701 &&
	grep -q "^drops kind=cpu total=7 0=4 1=3\$" out &&
	grep -q "^drops kind=probe total=7 1=7\$" out &&
	grep -q "^drops kind=unattributed total=7 1=2\$" out &&
	grep "^end " out >got &&
	echo "end events=701 dropped=7 flags=4 ts=900100" >expect &&
	test_cmp expect got
'

test_expect_success 'the binary output reads back the same' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=3 args=0,0,0 str=/f
	call probe=1 pid=100 tid=100 ts=200 dur=100 ret=1 args=3,0,1
	sysinfo kernel=6.18 cpus=2
	end
	EOF
	dc-mkstream s >in.bin &&
	dc-aggregate in.bin >out.bin &&
	dc-aggregate --text in.bin >expect &&
	dc-aggregate --text out.bin >got &&
	test_cmp expect got &&
	grep -q "^sysinfo kernel=6.18 cpus=2\$" got &&
	grep -q "^header host=node1 run=r1 offset=1700000000000000000 start=1000\$" got
'

test_expect_success 'a truncated input: all complete frames, END flagged, exit 3' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=1 pid=100 tid=100 ts=200 dur=10 ret=1 depth=1 args=1,0,1 seq=2 parent=1
	drops kind=cpu total=2 0=2
	truncate 30
	call probe=1 pid=100 tid=100 ts=300 dur=10 ret=1 args=1,0,1
	EOF
	dc-mkstream s >in.bin &&
	test_must_fail_with 3 dc-aggregate --text in.bin >out 2>err &&
	grep -q "in.bin: .*truncated" err &&
	events | cut -d" " -f1-5,9 >got &&
	cat >expect <<-\EOF &&
	call probe=1 pid=100 tid=100 ts=200 flags=0
	EOF
	test_cmp expect got &&
	grep -q "^end events=1 dropped=2 flags=1 " out
'

test_expect_success 'truncated binary output is still a complete stream' '
	write_probes >s &&
	echo "call probe=1 pid=100 tid=100 ts=200 dur=10 ret=1 args=1,0,1" >>s &&
	dc-mkstream s >in.bin &&
	test_must_fail_with 3 dc-aggregate in.bin >out.bin 2>err &&
	grep -q "no end frame" err &&
	dc-aggregate --text out.bin >out &&
	grep -q "^end events=1 dropped=0 flags=1 " out
'

test_expect_success 'a corrupt input: frames before it kept, END flagged, exit 4' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=1 pid=100 tid=100 ts=200 dur=10 ret=1 args=1,0,1
	corrupt
	call probe=1 pid=100 tid=100 ts=300 dur=10 ret=1 args=1,0,1
	end
	EOF
	dc-mkstream s >in.bin &&
	test_must_fail_with 4 dc-aggregate --text in.bin >out 2>err &&
	test_one_line err &&
	grep -q "checksum" err &&
	test "$(events | wc -l)" = 1 &&
	grep -q "^end events=1 dropped=0 flags=2 " out
'

test_expect_success 'an input END flag from upstream is kept' '
	write_probes >s &&
	echo "end flags=1" >>s &&
	agg s &&
	grep -q "^end events=0 dropped=0 flags=1 " out
'

test_expect_success 'not a stream: one line, exit 4, no output' '
	echo "hello world, this is text" >in &&
	test_must_fail_with 4 dc-aggregate in >out 2>err &&
	test_one_line err &&
	grep -q "bad magic" err &&
	! test -s out
'

test_expect_success 'empty input: exit 3, no output' '
	test_must_fail_with 3 dc-aggregate </dev/null >out 2>err &&
	test_one_line err &&
	grep -q "empty" err &&
	! test -s out
'

test_expect_success 'a missing input file is a system error, exit 1' '
	test_must_fail_with 1 dc-aggregate nonexistent.bin >out 2>err &&
	test_one_line err &&
	grep -q "nonexistent.bin" err
'

test_expect_success 'usage errors exit 2' '
	test_must_fail_with 2 dc-aggregate --bogus 2>err &&
	grep -q "Try .dc-aggregate --help" err &&
	dc-aggregate --help >out &&
	grep -q "^Usage: dc-aggregate" out &&
	dc-aggregate --version | grep -q "^dc-aggregate (datacrumbs)"
'

test_expect_success 'a closed output pipe is one error line, not a crash' '
	dc-mkstream --synthetic 200000 >big.bin &&
	{ dc-aggregate --text big.bin 2>err; echo $? >rc; } | head -n 1 >/dev/null &&
	test "$(cat rc)" = 1 &&
	test_one_line err &&
	grep -q "cannot write standard output" err
'

# Two hosts, different clocks and different probe tables.
write_merge_inputs() {
	cat >a <<-\EOF &&
	header host=node1 run=r1 offset=1700000000000000000 start=1000
	probe id=0 kind=uprobe layer=POSIX name=open target=/lib/libc.so.6 args=path,flags,mode ret=fd
	probe id=1 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	process pid=100 ppid=1 uid=0 gid=0 rank=0 exe=/bin/app cmdline=app cwd=/a start=500
	string id=1 value=/a/pre
	call probe=0 pid=100 tid=100 ts=1000 dur=10 ret=3 args=0,0,0 str=/a/f
	call probe=1 pid=100 tid=100 ts=2000 dur=10 ret=1 args=3,0,1
	call probe=1 pid=100 tid=100 ts=2500 dur=10 ret=1 args=9,0,1 file=1
	drops kind=cpu total=2 0=2
	end dropped=2
	EOF
	cat >b <<-\EOF
	header host=node2 run=r1 offset=1700000000000005000 start=1000
	probe id=0 kind=uprobe layer=POSIX name=read target=/lib/libc.so.6 args=fd,ptr,size ret=size
	probe id=1 kind=uprobe layer=POSIX name=open target=/lib/libc.so.6 args=path,flags,mode ret=fd
	probe id=2 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	process pid=100 ppid=1 uid=0 gid=0 rank=1 exe=/bin/app cmdline=app cwd=/b start=500
	string id=1 value=/b/pre
	call probe=1 pid=100 tid=100 ts=1000 dur=10 ret=3 args=0,0,0 str=g
	call probe=0 pid=100 tid=100 ts=2000 dur=10 ret=1 args=3,0,1
	call probe=2 pid=100 tid=100 ts=2100 dur=10 ret=1 args=3,0,1
	call probe=2 pid=100 tid=100 ts=2500 dur=10 ret=1 args=9,0,1 file=1
	end dropped=3
	EOF
}

# Resolve probe ids to names, so lines compare whatever the numbering.
named_events() {
	awk '
	/^probe / { for (i = 2; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == "id") id = kv[2]; if (kv[1] == "name") nm = kv[2] }
		name[id] = nm; next }
	/^call / { split($2, kv, "="); $2 = "probe=" name[kv[2]]; print }
	' out | sed -E "s/ seq=[0-9]+ parent=[0-9]+//"
}

test_expect_success 'merge: one header, times on its clock, probes and strings renumbered' '
	write_merge_inputs &&
	dc-mkstream a >a.bin &&
	dc-mkstream b >b.bin &&
	dc-aggregate --text a.bin b.bin >out 2>err &&
	test_must_be_empty_err &&
	test "$(grep -c "^header " out)" = 1 &&
	grep -q "^header host=node1 " out &&
	named_events | cut -d" " -f1-5,10 >got &&
	cat >expect <<-\EOF &&
	call probe=open pid=100 tid=100 ts=1000 file=/a/f
	call probe=write pid=100 tid=100 ts=2000 file=/a/f
	call probe=write pid=100 tid=100 ts=2500 file=/a/pre
	call probe=open pid=4194404 tid=4194404 ts=6000 file=/b/g
	call probe=read pid=4194404 tid=4194404 ts=7000 file=/b/g
	call probe=write pid=4194404 tid=4194404 ts=7100 file=/b/g
	call probe=write pid=4194404 tid=4194404 ts=7500 file=/b/pre
	EOF
	test_cmp expect got &&
	test "$(grep -c "^probe " out)" = 3 &&
	test "$(grep "^probe " out | cut -d" " -f2 | sort -u | wc -l)" = 3 &&
	grep -q "^probe id=0 .* name=open " out &&
	grep -q "^probe id=1 .* name=write " out &&
	# The second host keeps its processes apart: pid + 2^22, and says so.
	grep -q "^process pid=4194404 .*start=5500 .*cwd=/b.*host=node2.*host_index=1" out &&
	grep -q "^end events=7 dropped=5 flags=0 " out
'

test_expect_success 'merge of live inputs (pipes) loses nothing' '
	write_merge_inputs &&
	dc-mkstream a >a.bin &&
	dc-mkstream b >b.bin &&
	cat b.bin | dc-aggregate --text a.bin - >out 2>err &&
	test_must_be_empty_err &&
	named_events | cut -d" " -f1-5,10 | sort >got &&
	cat >expect <<-\EOF &&
	call probe=open pid=100 tid=100 ts=1000 file=/a/f
	call probe=open pid=4194404 tid=4194404 ts=6000 file=/b/g
	call probe=read pid=4194404 tid=4194404 ts=7000 file=/b/g
	call probe=write pid=100 tid=100 ts=2000 file=/a/f
	call probe=write pid=100 tid=100 ts=2500 file=/a/pre
	call probe=write pid=4194404 tid=4194404 ts=7100 file=/b/g
	call probe=write pid=4194404 tid=4194404 ts=7500 file=/b/pre
	EOF
	test_cmp expect got &&
	grep -q "^end events=7 dropped=5 flags=0 " out
'

test_expect_success 'merge with a truncated input: the rest kept, exit 3' '
	write_merge_inputs &&
	dc-mkstream a >a.bin &&
	grep -v "^end" b | dc-mkstream >b.bin &&
	test_must_fail_with 3 dc-aggregate --text a.bin b.bin >out 2>err &&
	test_one_line err &&
	grep -q "b.bin: .*truncated" err &&
	test "$(grep -c "^call " out)" = 7 &&
	grep -q "^end events=7 dropped=2 flags=1 " out
'

test_expect_success 'one input keeps its probe and string ids' '
	write_merge_inputs &&
	dc-mkstream b >b.bin &&
	dc-aggregate --text b.bin >out &&
	grep "^probe" out | cut -d" " -f2,5 >got &&
	printf "id=0 name=read\nid=1 name=open\nid=2 name=write\n" >expect &&
	test_cmp expect got &&
	grep -q "^string id=1 value=/b/pre\$" out
'

test_expect_success 'a stream from the generator keeps every event and file' '
	dc-mkstream --synthetic 5000 >in.bin &&
	dc-aggregate --text in.bin >out &&
	test "$(grep -c "^call " out)" = 5000 &&
	grep -q "^end events=5000 " out &&
	! grep "^call .*file=-" out
'

test_expect_success 'output is flushed while the input is still open' '
	write_probes >s &&
	echo "call probe=1 pid=100 tid=100 ts=200 dur=10 ret=1 args=1,0,1" >>s &&
	dc-mkstream s >in.bin &&
	mkfifo fifo
	{ cat in.bin; sleep 3; } >fifo &
	dc-aggregate --text <fifo >out 2>err &
	sleep 1.5
	grep -q "^call probe=1 " out &&
	! grep -q "^end" out &&
	wait &&
	grep -q "^end events=1 dropped=0 flags=1 " out
'

test_expect_success 'a first SIGTERM lets the stream finish; a second one stops' '
	write_probes >s &&
	printf "%s\n" "call probe=1 pid=100 tid=100 ts=200 dur=10 ret=1 args=1,0,1" end >>s &&
	dc-mkstream s >in.bin &&
	size=$(wc -c <in.bin) &&
	mkfifo fifo1 fifo2 || exit 1
	{ head -c $((size - 48)) in.bin; sleep 2; tail -c 48 in.bin; } >fifo1 &
	dc-aggregate --text <fifo1 >out1 2>err1 &
	pid=$!
	sleep 1 &&
	kill -TERM $pid &&
	wait $pid &&
	grep -q "^end events=1 dropped=0 flags=0 " out1 || exit 1
	{ head -c $((size - 48)) in.bin; sleep 3; } >fifo2 &
	dc-aggregate --text <fifo2 >out2 2>err2 &
	pid=$!
	sleep 1 &&
	kill -TERM $pid &&
	sleep 0.2 &&
	kill -TERM $pid
	wait $pid
	test $? = 143 &&
	! grep -q "^end" out2
'

test_expect_success 'unknown event record types pass through' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=1 pid=100 tid=100 ts=200 dur=10 ret=1 args=1,0,1 type=42
	end
	EOF
	agg s &&
	grep "^event " out >got &&
	echo "event type=42 probe=1 pid=100 tid=100 ts=200 dur=10 ret=1 depth=0 flags=0 seq=1 parent=0 file=- args=1,0,1" >expect &&
	test_cmp expect got &&
	grep -q "^end events=1 " out
'

test_expect_success PYTHON3 'unknown frame types pass through' '
	write_probes >s &&
	echo end >>s &&
	dc-mkstream s >in.bin &&
	python3 "$DC_SRC_DIR/t/helpers/stream-mutate.py" in.bin new.bin --add 77 0a0b0c &&
	dc-aggregate new.bin >out.bin 2>err &&
	test_must_be_empty_err &&
	dc-aggregate --text out.bin >out &&
	grep -q "^frame type=77 length=3\$" out
'

test_expect_success PYTHON3 'an FDS snapshot names descriptors opened before tracing' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	call probe=0 pid=100 tid=100 ts=100 dur=10 ret=5 args=0,0,0 str=/gone
	call probe=1 pid=100 tid=100 ts=200 dur=10 ret=1 args=3,0,1
	EOF
	echo "drops total=0" >>s &&
	cat >>s <<-\EOF &&
	call probe=1 pid=100 tid=100 ts=300 dur=10 ret=1 args=3,0,1
	call probe=1 pid=100 tid=100 ts=400 dur=10 ret=1 args=1,0,1
	call probe=1 pid=100 tid=100 ts=500 dur=10 ret=1 args=5,0,1
	end
	EOF
	dc-mkstream s >in.bin &&
	# pid 100, 2 entries: fd 3 "/tmp/pre", fd 1 "pipe:[77]"; before DROPS
	python3 "$DC_SRC_DIR/t/helpers/stream-mutate.py" in.bin fds.bin --add-before 5 9 \
		640000000200000003000000""0800""2f746d702f707265""01000000""0900""706970653a5b37375d &&
	dc-aggregate --text fds.bin >out 2>err &&
	test_must_be_empty_err &&
	grep -q "^fds pid=100 3=/tmp/pre 1=pipe:\[77\]\$" out &&
	events | sed "s/ pid=.* file=/ file=/" >got &&
	cat >expect <<-\EOF &&
	call probe=0 file=/gone args=0,0,0 str=/gone
	call probe=1 file=- args=3,0,1
	call probe=1 file=/tmp/pre args=3,0,1
	call probe=1 file=pipe:[77] args=1,0,1
	call probe=1 file=/gone args=5,0,1
	EOF
	test_cmp expect got
'

# Issue 9, item 9, exactly: a shell execs (the collector reads its fds
# late, at 1550, after the redirection below began, and the frame comes
# right after the EXEC record), then redirects stdout to /dev/null the
# way dash does and back.  Every call names the file its fd had when it
# was made; the snapshot applies from its time on, and only where the
# events have not said.
test_expect_success 'a late /proc snapshot names nothing before its time, nor what the events did' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	fds pid=100 taken=50 0=/dev/pts/0 1=/work/out 2=/work/out
	exec pid=100 tid=100 ts=100 str=/bin/sh
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 flags=2 start=100 exe=/bin/sh cmdline="sh -c x" cwd=/work/dir taken=1550
	fds pid=100 taken=1550 0=/dev/pts/0 1=/dev/null 2=/work/out 10=/work/out
	call probe=0 pid=100 tid=100 ts=1000 dur=10 ret=3 args=0,0,0 str=/dev/null
	call probe=6 pid=100 tid=100 ts=1100 dur=10 ret=10 args=1,0,10
	call probe=2 pid=100 tid=100 ts=1200 dur=10 ret=0 args=1
	call probe=5 pid=100 tid=100 ts=1300 dur=10 ret=1 args=3,1
	call probe=2 pid=100 tid=100 ts=1400 dur=10 ret=0 args=3
	call probe=1 pid=100 tid=100 ts=1500 dur=10 ret=2 args=1,0,2
	call probe=5 pid=100 tid=100 ts=6000 dur=10 ret=1 args=10,1
	call probe=2 pid=100 tid=100 ts=6100 dur=10 ret=0 args=10
	call probe=1 pid=100 tid=100 ts=6200 dur=10 ret=6 args=1,0,6
	call probe=1 pid=100 tid=100 ts=6300 dur=10 ret=6 args=2,0,6
	call probe=1 pid=100 tid=100 ts=6400 dur=10 ret=-9 flags=2 args=3,0,6
	end
	EOF
	agg s &&
	test_must_be_empty_err &&
	grep -q "^fds pid=100 taken=1550 0=/dev/pts/0 1=/dev/null 2=/work/out 10=/work/out\$" out &&
	grep -q "^process pid=100 .* taken=1550\$" out &&
	events | sed "s/ pid=.* file=/ file=/" >got &&
	cat >expect <<-\EOF &&
	exec probe=0 file=- args= str=/bin/sh
	call probe=0 file=/dev/null args=0,0,0 str=/dev/null
	call probe=6 file=/work/out args=1,0,10
	call probe=2 file=/work/out args=1
	call probe=5 file=/dev/null args=3,1
	call probe=2 file=/dev/null args=3
	call probe=1 file=/dev/null args=1,0,2
	call probe=5 file=/work/out args=10,1
	call probe=2 file=/work/out args=10
	call probe=1 file=/work/out args=1,0,6
	call probe=1 file=/work/out args=2,0,6
	call probe=1 file=- args=3,0,6
	EOF
	test_cmp expect got
'

# A library's chdir() arrives after the system call it made (children
# first), which moved the directory already: its relative path is
# taken against the directory it began in, and it moves nothing more.
test_expect_success 'a chdir under a chdir: both the same directory, moved once' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	probe id=14 kind=uprobe layer=POSIX name=chdir target=/lib/libc.so.6 args=path ret=status
	probe id=15 kind=syscall layer=sys name=chdir args=path ret=status
	call probe=15 pid=100 tid=100 ts=110 dur=10 ret=0 depth=1 args=0 str=sub
	call probe=14 pid=100 tid=100 ts=100 dur=30 ret=0 args=0 str=sub
	call probe=0 pid=100 tid=100 ts=200 dur=10 ret=3 args=0,0,0 str=f
	call probe=15 pid=100 tid=100 ts=300 dur=10 ret=0 args=0 str=..
	call probe=0 pid=100 tid=100 ts=400 dur=10 ret=4 args=0,0,0 str=g
	end
	EOF
	agg s &&
	test_must_be_empty_err &&
	events | sed "s/ tid=.* file=/ file=/; s/ args=.*//" >got &&
	cat >expect <<-\EOF &&
	call probe=15 pid=100 file=/work/dir/sub
	call probe=14 pid=100 file=/work/dir/sub
	call probe=0 pid=100 file=/work/dir/sub/f
	call probe=15 pid=100 file=/work/dir
	call probe=0 pid=100 file=/work/dir/g
	EOF
	test_cmp expect got
'

# A shell redirects stdin and stdout without a traced call, then execs
# the program (`sh -c 'exec prog <in >out'`), which reads and writes
# at once; the collector reads its fds at 1550, when the EXEC record
# reaches it, and the frames come right before that record.  From the
# exec on, every fd the snapshot names and no event touched before 1550
# has the snapshot's file (the older one named the shell's, 7 had no
# name); one the events closed and reopened before then (3) is unknown
# until they reopen it, one they closed (9, in a range) keeps its file
# till then; one the snapshot lacks (5, and 6 though an event opened it)
# was closed by the exec.  A fork while the events wait
# gives the child the fds as they were then.
test_expect_success 'the snapshot after an exec names, from the exec on, the fds no event touched before it' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	probe id=14 kind=uprobe layer=APP name=take_fd target=/bin/app args=int ret=fd
	probe id=15 kind=syscall layer=sys name=close_range args=int,int,flags ret=status
	fds pid=100 taken=50 0=/dev/null 1=/work/collect.err 2=/work/collect.err 5=/work/cloexec 9=/work/nine
	call probe=0 pid=100 tid=100 ts=60 dur=10 ret=6 args=0,0,0 str=/work/cloexec6
	call probe=14 pid=100 tid=100 ts=70 dur=10 ret=7 args=2
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 flags=2 start=100 exe=/bin/prog cmdline=prog cwd=/work/dir taken=1550
	fds pid=100 taken=1550 0=/work/in 1=/work/out 2=/work/collect.err 3=/work/late 4=/work/four 7=socket:[9] 9=/work/nine-later
	exec pid=100 tid=100 ts=100 str=/bin/prog
	call probe=7 pid=100 tid=100 ts=200 dur=10 ret=5 args=0,0,5
	call probe=1 pid=100 tid=100 ts=300 dur=10 ret=6 args=1,0,6
	call probe=1 pid=100 tid=100 ts=350 dur=10 ret=-9 flags=2 args=5,0,6
	call probe=1 pid=100 tid=100 ts=360 dur=10 ret=-9 flags=2 args=6,0,6
	call probe=1 pid=100 tid=100 ts=370 dur=10 ret=6 args=7,0,6
	call probe=1 pid=100 tid=100 ts=400 dur=10 ret=6 args=4,0,6
	call probe=1 pid=100 tid=100 ts=420 dur=10 ret=6 args=9,0,6
	call probe=15 pid=100 tid=100 ts=450 dur=10 ret=0 args=8,20,0
	call probe=1 pid=100 tid=100 ts=500 dur=10 ret=6 args=3,0,6
	call probe=2 pid=100 tid=100 ts=600 dur=10 ret=0 args=3
	call probe=0 pid=100 tid=100 ts=700 dur=10 ret=3 args=0,0,0 str=/work/late
	call probe=1 pid=100 tid=100 ts=800 dur=10 ret=6 args=3,0,6
	fork pid=100 tid=100 ts=900 child=101
	call probe=1 pid=101 tid=101 ts=1000 dur=10 ret=6 args=1,0,6
	call probe=1 pid=100 tid=100 ts=1100 dur=10 ret=6 args=2,0,6
	call probe=1 pid=100 tid=100 ts=2000 dur=10 ret=6 args=1,0,6
	call probe=1 pid=100 tid=100 ts=2100 dur=10 ret=6 args=3,0,6
	end
	EOF
	agg s &&
	test_must_be_empty_err &&
	events | sed "s/ tid=.* file=/ file=/; s/ args=.*//" >got &&
	cat >expect <<-\EOF &&
	call probe=0 pid=100 file=/work/cloexec6
	call probe=14 pid=100 file=-
	exec probe=0 pid=100 file=-
	call probe=7 pid=100 file=/work/in
	call probe=1 pid=100 file=/work/out
	call probe=1 pid=100 file=-
	call probe=1 pid=100 file=-
	call probe=1 pid=100 file=socket:[9]
	call probe=1 pid=100 file=/work/four
	call probe=1 pid=100 file=/work/nine
	call probe=15 pid=100 file=-
	call probe=1 pid=100 file=-
	call probe=2 pid=100 file=-
	call probe=0 pid=100 file=/work/late
	call probe=1 pid=100 file=/work/late
	fork probe=0 pid=100 file=-
	call probe=1 pid=101 file=/work/out
	call probe=1 pid=100 file=/work/collect.err
	call probe=1 pid=100 file=/work/out
	call probe=1 pid=100 file=/work/late
	EOF
	test_cmp expect got
'

# (take_fd makes an fd of a kind dc-aggregate does not know: unnamed.)
test_expect_success 'a snapshot fills in unnamed fds, forgets what only /proc or an exec vouched for, not what a close said' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	probe id=14 kind=uprobe layer=APP name=take_fd target=/bin/app args=int ret=fd
	fds pid=100 taken=50 7=/pre 8=/pre8
	call probe=14 pid=100 tid=100 ts=100 dur=10 ret=6 args=2
	call probe=0 pid=100 tid=100 ts=110 dur=10 ret=5 args=0,0,0 str=/five
	call probe=2 pid=100 tid=100 ts=120 dur=10 ret=0 args=5
	call probe=0 pid=100 tid=100 ts=130 dur=10 ret=3 args=0,0,0 str=/cloexec
	call probe=0 pid=100 tid=100 ts=140 dur=10 ret=4 args=0,0,0 str=/kept
	exec pid=100 tid=100 ts=200 str=/bin/other
	fds pid=100 taken=300 4=/kept 5=/late 6=socket:[9] 8=/pre8
	call probe=1 pid=100 tid=100 ts=250 dur=10 ret=1 args=6,0,1
	call probe=1 pid=100 tid=100 ts=400 dur=10 ret=1 args=6,0,1
	call probe=1 pid=100 tid=100 ts=410 dur=10 ret=-9 flags=2 args=5,0,1
	call probe=1 pid=100 tid=100 ts=420 dur=10 ret=-9 flags=2 args=3,0,1
	call probe=1 pid=100 tid=100 ts=430 dur=10 ret=1 args=4,0,1
	call probe=1 pid=100 tid=100 ts=440 dur=10 ret=-9 flags=2 args=7,0,1
	call probe=1 pid=100 tid=100 ts=450 dur=10 ret=1 args=8,0,1
	end
	EOF
	agg s &&
	test_must_be_empty_err &&
	events | sed "s/ pid=.* file=/ file=/; s/ args=.*//" | tail -n 7 >got &&
	cat >expect <<-\EOF &&
	call probe=1 file=-
	call probe=1 file=socket:[9]
	call probe=1 file=-
	call probe=1 file=-
	call probe=1 file=/kept
	call probe=1 file=-
	call probe=1 file=/pre8
	EOF
	test_cmp expect got
'

# The collector describes a fork from its copy of the parent's
# description, which may predate a chdir, and reads /proc after an exec,
# which may follow one: the frames passed on have the directory the
# events say at the fork and at the exec.  The chdir itself describes
# the process again, from its end on.
test_expect_success 'a fork and an exec are described with the cwd the events say then' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	probe id=15 kind=syscall layer=sys name=chdir args=path ret=status
	call probe=15 pid=100 tid=100 ts=300 dur=10 ret=0 args=0 str=sub
	fork pid=100 tid=100 ts=400 child=101
	process pid=101 ppid=100 uid=0 gid=0 rank=-1 flags=1 start=400 exe=/bin/app cmdline="app -x" cwd=/work/dir job=k=v taken=400
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 flags=2 start=500 exe=/bin/new cmdline=new cwd=/later job= taken=900
	exec pid=100 tid=100 ts=500 str=/bin/new
	process pid=101 ppid=100 uid=0 gid=0 rank=-1 flags=0 start=950 exe=/bin/app cmdline="app -x" cwd=/elsewhere taken=950
	end
	EOF
	agg s &&
	test_must_be_empty_err &&
	grep "^process" out >got &&
	cat >expect <<-\EOF &&
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 flags=0 start=0 exe=/bin/app cmdline="app -x" cwd=/work/dir
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 flags=0 start=310 exe=/bin/app cmdline="app -x" cwd=/work/dir/sub
	process pid=101 ppid=100 uid=0 gid=0 rank=-1 flags=1 start=400 exe=/bin/app cmdline="app -x" cwd=/work/dir/sub job=k=v taken=400
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 flags=2 start=500 exe=/bin/new cmdline=new cwd=/work/dir/sub job="" taken=900
	process pid=101 ppid=100 uid=0 gid=0 rank=-1 flags=0 start=950 exe=/bin/app cmdline="app -x" cwd=/elsewhere job="" taken=950
	EOF
	test_cmp expect got
'

test_expect_success 'a PROCESS frame gives its cwd from its time on; a fork gets its parent cwd, not the frame' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/app cmdline=app cwd=/late taken=500
	call probe=0 pid=100 tid=100 ts=300 dur=10 ret=3 args=0,0,0 str=a
	fork pid=100 tid=100 ts=400 child=101
	process pid=101 ppid=100 uid=0 gid=0 rank=-1 flags=1 start=400 exe=/bin/app cmdline=app cwd=/wrong taken=400
	call probe=0 pid=100 tid=100 ts=600 dur=10 ret=4 args=0,0,0 str=b
	call probe=0 pid=101 tid=101 ts=700 dur=10 ret=4 args=0,0,0 str=c
	end
	EOF
	agg s &&
	test_must_be_empty_err &&
	events | grep "^call" | sed "s/ tid=.* file=/ file=/; s/ args=.*//" >got &&
	cat >expect <<-\EOF &&
	call probe=0 pid=100 file=/work/dir/a
	call probe=0 pid=100 file=/late/b
	call probe=0 pid=101 file=/work/dir/c
	EOF
	test_cmp expect got
'

test_expect_success PYTHON3 'a malformed payload in a good frame: one line, exit 4, END flagged' '
	write_probes >s &&
	echo "call probe=1 pid=100 tid=100 ts=200 dur=10 ret=1 args=1,0,1" >>s &&
	echo end >>s &&
	dc-mkstream s >in.bin &&
	python3 "$DC_SRC_DIR/t/helpers/stream-mutate.py" in.bin bad.bin --add 4 0102030405 &&
	test_must_fail_with 4 dc-aggregate --text bad.bin >out 2>err &&
	test_one_line err &&
	grep -q "bad.bin: malformed probe frame at byte" err &&
	grep -q "^call probe=1 " out &&
	grep -q "^end events=1 dropped=0 flags=2 " out
'

test_expect_success PYTHON3 'nonsense inside well-formed frames never crashes; output stays a stream' '
	write_probes >s &&
	cat >>s <<-\EOF &&
	enter probe=0 pid=100 tid=100 ts=100 args=0,0,0 str=../a/./b
	enter probe=3 pid=100 tid=100 ts=110 args=-100,0,0,0 str=../a/./b
	exit probe=3 pid=100 tid=100 ts=120 ret=3
	exit probe=0 pid=100 tid=100 ts=130 ret=3
	call probe=3 pid=100 tid=100 ts=200 dur=10 ret=6 args=3,0,0,0 str=./x/y.h5
	call probe=5 pid=100 tid=100 ts=300 dur=10 ret=9 args=3,9
	call probe=6 pid=100 tid=100 ts=400 dur=10 ret=10 args=3,0,10
	call probe=8 pid=100 tid=100 ts=500 dur=10 ret=94000000 args=0,0 str=log.txt
	call probe=1 pid=100 tid=100 ts=600 dur=10 ret=1 args=9,0,1 file=4
	fork pid=100 tid=100 ts=700 child=101
	call probe=10 pid=100 tid=100 ts=900 dur=10 ret=0 args=94000000
	enter probe=1 pid=100 tid=102 ts=1000 args=9,0,1
	exitproc pid=101 tid=101 ts=1100 ret=0
	drops kind=probe total=3 1=3
	end dropped=3
	EOF
	dc-mkstream s >in.bin &&
	python3 "$DC_SRC_DIR/t/helpers/stream-mutate.py" in.bin m.bin 1 300 &&
	seed=1 &&
	while test $seed -le 300; do
		dc-aggregate m.bin.$seed >o.bin 2>err
		rc=$?
		case $rc in 0|3|4) ;; *) echo "seed $seed: exit $rc"; cat err; exit 1 ;; esac
		dc-aggregate --text o.bin >/dev/null 2>err || {
			echo "seed $seed: output is not a complete stream"; cat err; exit 1; }
		seed=$((seed + 1))
	done
'

test_done

#!/bin/sh
# dc-aggregate and COUNTERS frames (profile mode): passed on, renumbered
# and moved to the output clock when inputs merge, printed by --text, and
# made from calls by --profile.
. "$(dirname "$0")/test-lib.sh"

write_a() {
	cat <<-\EOF
	header host=node1 run=r1 offset=1000000000 start=1000
	probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	probe id=1 kind=uprobe layer=POSIX name=open target=/lib/libc.so.6 args=path,flags,mode ret=fd
	counters start=1000 interval=1000000 pid=100 probe=0 calls=5 dur=10000 bytes=20480 errors=1 pid=100 probe=1 calls=2 dur=3000 bytes=0 errors=0
	end
	EOF
}

# Another host: its clock is 1 ms behind, its open is probe 0 and its
# read has an id of its own.
write_b() {
	cat <<-\EOF
	header host=node2 run=r1 offset=999000000 start=5000
	probe id=0 kind=uprobe layer=POSIX name=open target=/lib/libc.so.6 args=path,flags,mode ret=fd
	probe id=7 kind=uprobe layer=POSIX name=read target=/lib/libc.so.6 args=fd,ptr,size ret=size
	counters start=2000000 interval=1000000 pid=200 probe=0 calls=1 dur=100 pid=200 probe=7 calls=3 dur=300 bytes=12 errors=2
	end
	EOF
}

test_expect_success 'one input: counters pass unchanged, --text prints them' '
	write_a >a.txt &&
	dc-mkstream a.txt >a.dcs &&
	dc-aggregate a.dcs >out.dcs &&
	dc-aggregate --text out.dcs >out &&
	grep "^counters" out >got &&
	echo "counters start=1000 interval=1000000 pid=100 probe=0 calls=5 dur=10000 bytes=20480 errors=1 pid=100 probe=1 calls=2 dur=3000 bytes=0 errors=0" >expect &&
	test_cmp expect got &&
	grep "^end events=0 dropped=0 flags=0 ts=1001000$" out
'

test_expect_success 'merging: probe ids renumbered, start on the output clock' '
	write_a >a.txt &&
	write_b >b.txt &&
	dc-mkstream a.txt >a.dcs &&
	dc-mkstream b.txt >b.dcs &&
	dc-aggregate --text a.dcs b.dcs >out &&
	grep "^counters" out >got &&
	cat >expect <<-\EOF &&
	counters start=1000 interval=1000000 pid=100 probe=0 calls=5 dur=10000 bytes=20480 errors=1 pid=100 probe=1 calls=2 dur=3000 bytes=0 errors=0
	counters start=1000000 interval=1000000 pid=4194504 probe=1 calls=1 dur=100 bytes=0 errors=0 pid=4194504 probe=7 calls=3 dur=300 bytes=12 errors=2
	EOF
	test_cmp expect got &&
	grep "^probe id=7 kind=uprobe layer=POSIX name=read " out &&
	test $(grep -c "^probe " out) = 3
'

test_expect_success 'a counters frame shorter than its count is bad input' '
	cat >c.txt <<-\EOF &&
	header host=node1 run=r1 offset=0 start=0
	raw type=10 hex=e803000000000000e80300000000000002000000000000000100000002000000
	counters start=5 interval=5 pid=1 probe=0 calls=1
	end
	EOF
	dc-mkstream c.txt >c.dcs &&
	test_must_fail_with 4 dc-aggregate --text c.dcs >out 2>err &&
	test_one_line err &&
	grep "malformed counters frame at byte" err &&
	grep "^counters start=5 interval=5 pid=1 probe=0 calls=1 " out &&
	grep "^end .*flags=2 " out
'

write_calls() {
	cat <<-\EOF
	header host=node1 run=r1 offset=1700000000000000000 start=1000000
	probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	probe id=1 kind=uprobe layer=STDIO name=fopen target=/lib/libc.so.6 args=path,str ret=handle
	process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/dd cmdline="dd" cwd=/tmp
	repeat 5 call probe=0 pid=100 tid=100 ts=1000000 dur=2000 ret=4096 args=3,0,4096
	call probe=0 pid=100 tid=100 ts=1500000 dur=1000 ret=-5 args=3,0,4096
	call probe=1 pid=100 tid=100 ts=1600000 dur=500 ret=0 args=0,0 str=/tmp/f
	call probe=1 pid=100 tid=100 ts=1700000 dur=700 ret=1234 args=0,0 str=/tmp/g
	call probe=0 pid=101 tid=101 ts=2999000 dur=2000 ret=10 args=3,0,10
	instant probe=1 pid=101 tid=101 ts=3100000
	call probe=0 pid=101 tid=101 ts=3200000 flags=4 args=3,0,10
	fork pid=100 tid=100 ts=3500000 child=102
	end
	EOF
}

# Interval k is [1000000 + k ms, ...): a call counts where it ends (the
# one of pid 101 ends at 3001000, in the third interval); the unwound
# call (flags=4) counts with no duration, the instant as a call.
test_expect_success '--profile: exact sums per interval, pid and probe' '
	write_calls >c.txt &&
	dc-mkstream c.txt | dc-aggregate --text --profile 1ms >out &&
	grep "^counters" out >got &&
	cat >expect <<-\EOF &&
	counters start=1000000 interval=1000000 pid=100 probe=0 calls=6 dur=11000 bytes=20480 errors=1 pid=100 probe=1 calls=2 dur=1200 bytes=0 errors=1
	counters start=3000000 interval=1000000 pid=101 probe=0 calls=2 dur=2000 bytes=10 errors=0 pid=101 probe=1 calls=1 dur=0 bytes=0 errors=1
	EOF
	test_cmp expect got &&
	! grep "^call " out &&
	grep "^fork probe=0 pid=100 " out &&
	grep "^end events=1 " out
'

# The kernel's instants that say what moved count their bytes as the
# trace would: a socket message its length, not a peek (flags 2) nor a
# failure; an io_uring completion the result of a read (22) or write
# (23), not of an open (18) or of a request not known (-1).
test_expect_success '--profile: socket messages and io_uring completions count their bytes' '
	cat >k.txt <<-\EOF &&
	header host=node1 run=r1 offset=1700000000000000000 start=1000000
	probe id=0 kind=tracepoint layer=net name=sock:sock_recv_length target=sock args=family,protocol,flags ret=size
	probe id=1 kind=tracepoint layer=io_uring name=io_uring:io_uring_complete target=io_uring args=int,opcode ret=size
	instant probe=0 pid=100 tid=100 ts=1100000 ret=700 args=2,6,0
	instant probe=0 pid=100 tid=100 ts=1200000 ret=500 args=2,6,2
	instant probe=0 pid=100 tid=100 ts=1300000 ret=-11 args=2,6,64
	instant probe=1 pid=100 tid=100 ts=1400000 ret=65536 args=7,22
	instant probe=1 pid=100 tid=100 ts=1500000 ret=4096 args=8,23
	instant probe=1 pid=100 tid=100 ts=1600000 ret=5 args=9,18
	instant probe=1 pid=100 tid=100 ts=1700000 ret=100 args=10,-1
	end
	EOF
	dc-mkstream k.txt | dc-aggregate --text --profile 1s >out &&
	grep "^counters" out >got &&
	echo "counters start=1000000 interval=1000000000 pid=100 probe=0 calls=3 dur=0 bytes=700 errors=1 pid=100 probe=1 calls=4 dur=0 bytes=69632 errors=0" >expect &&
	test_cmp expect got &&
	dc-mkstream k.txt | dc-aggregate | dc-write --plain k.pfw &&
	dc-mkstream k.txt | dc-aggregate --profile 1s | dc-write --plain kp.pfw &&
	dc-write --summary k.pfw | awk "NR > 2 { print \$1, \$2, \$3, \$4 }" >trace.rows &&
	dc-write --summary kp.pfw | awk "NR > 2 { print \$1, \$2, \$3, \$4 }" >profile.rows &&
	test_cmp trace.rows profile.rows
'

test_expect_success '--profile intervals: units, and one interval for everything' '
	write_calls >c.txt &&
	dc-mkstream c.txt >c.dcs &&
	dc-aggregate --text --profile 1000us c.dcs >us &&
	dc-aggregate --text -p 1000000ns c.dcs >ns &&
	test_cmp us ns &&
	dc-aggregate --text --profile 10 c.dcs >out &&
	grep "^counters" out >got &&
	echo "counters start=1000000 interval=10000000000 pid=100 probe=0 calls=6 dur=11000 bytes=20480 errors=1 pid=100 probe=1 calls=2 dur=1200 bytes=0 errors=1 pid=101 probe=0 calls=2 dur=2000 bytes=10 errors=0 pid=101 probe=1 calls=1 dur=0 bytes=0 errors=1" >expect &&
	test_cmp expect got
'

test_expect_success '--profile output is a stream dc-write reads' '
	write_calls >c.txt &&
	dc-mkstream c.txt | dc-aggregate --profile 1ms | dc-write --plain -i - out.pfw &&
	test $(grep -c "\"ph\":\"C\"" out.pfw) = 4 &&
	dc-write --check out.pfw
'

test_expect_success 'bad --profile intervals are usage errors' '
	for bad in 0 1m -5 x 1.5s ""; do
		test_must_fail_with 2 dc-aggregate --profile "$bad" </dev/null 2>err &&
		grep "bad interval" err || return 1
	done
'

test_done

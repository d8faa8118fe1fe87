#!/bin/sh
# dc-aggregate owns the call tree: collector streams (per-thread entry
# numbers, seq and parent) become stream ids with exact parents, whatever
# the depth, the timestamps, the interleaving of threads, the length of a
# call or the pace of the input; dc-write prints them as id and p_idx.
. "$(dirname "$0")/test-lib.sh"

# A collector's stream (ids=0): seq/parent are per-thread entry numbers.
probes() {
	cat <<-\IN
	header host=node1 run=r1 offset=1700000000000000000 start=1000 ids=0
	probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	probe id=1 kind=syscall layer=sys name=write args=fd,ptr,size ret=size
	probe id=2 kind=tracepoint layer=mm name=fault args=index
	probe id=3 kind=uprobe layer=APP name=fib target=/bin/app args=int ret=int
	probe id=4 kind=tracepoint layer=block name=block_rq args=dev,sector,size,op ret=status
	probe id=5 kind=uprobe layer=POSIX name=open target=/lib/libc.so.6 args=path,flags,mode ret=fd
	probe id=6 kind=syscall layer=sys name=openat args=fd,path,flags,mode ret=fd
	IN
}

# tree IN: "probe tid args seq parent flags" per event, from dc-aggregate.
tree() {
	dc-mkstream "$1" | dc-aggregate --text >agg.txt 2>agg.err &&
	sed -n "s/^\(call\|instant\) probe=\([0-9]*\) pid=[0-9]* tid=\([0-9]*\) .* flags=\([0-9]*\) seq=\([0-9]*\) parent=\([0-9]*\) .*args=\([-0-9,]*\).*/\2 \3 \7 \5 \6 \4/p" agg.txt
}

# pidx PFW: "name level id p_idx" per event of the trace (- for none).
pidx() {
	grep "\"ph\":\"[Xi]\",.*\"level\"" "$1" |
	grep -v "\"cat\":\"datacrumbs\"" |
	sed -e "s/^{\"id\":\([0-9]*\),\"name\":\"\([^\"]*\)\".*\"level\":\([0-9]*\)\(,\"p_idx\":\(-*[0-9]*\)\)*}}$/\2 \3 \1 \5/" \
	    -e "s/ $/ -/"
}

test_expect_success 'children before parents: ids reserved, parents exact' '
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=0 pid=100 tid=100 ts=1000 dur=1000 ret=1 depth=0 args=3,0,1 seq=1
	instant probe=2 pid=100 tid=100 ts=5500 depth=2 args=7 parent=3
	call probe=1 pid=100 tid=100 ts=5000 dur=2000 ret=4096 depth=1 args=3,0,4096 seq=3 parent=2
	call probe=0 pid=100 tid=100 ts=4000 dur=4000 ret=4096 depth=0 args=3,0,4096 seq=2
	end
	IN
	tree in.txt >got &&
	cat >expect <<-\EOF &&
	0 100 3,0,1 1 0 0
	2 100 7 2 3 0
	1 100 3,0,4096 3 4 0
	0 100 3,0,4096 4 0 0
	EOF
	test_cmp expect got &&
	test ! -s agg.err &&
	dc-mkstream in.txt | dc-aggregate | dc-write --plain - >out.pfw &&
	pidx out.pfw >got &&
	cat >expect <<-\EOF &&
	write 0 2 -
	fault 2 4 6
	write 1 6 8
	write 0 8 -
	EOF
	test_cmp expect got &&
	dc-write --check out.pfw
'

test_expect_success 'equal timestamps: entry order, not time, decides' '
	# Three calls entered in the same nanosecond: a (seq 1) holds b
	# (seq 2) holds c (seq 3); then d (seq 4), a sibling of b, also at
	# the same time.  Timestamps alone could not tell them apart.
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=3 pid=7 tid=7 ts=5000 dur=0 depth=2 args=3 seq=3 parent=2
	call probe=3 pid=7 tid=7 ts=5000 dur=0 depth=1 args=2 seq=2 parent=1
	call probe=3 pid=7 tid=7 ts=5000 dur=0 depth=1 args=4 seq=4 parent=1
	call probe=3 pid=7 tid=7 ts=5000 dur=0 depth=0 args=1 seq=1
	end
	IN
	tree in.txt >got &&
	cat >expect <<-\EOF &&
	3 7 3 1 2 0
	3 7 2 2 3 0
	3 7 4 4 3 0
	3 7 1 3 0 0
	EOF
	test_cmp expect got
'

test_expect_success 'interleaved threads with the same entry numbers stay apart' '
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=1 pid=9 tid=1 ts=1100 dur=10 depth=1 args=1,0,1 seq=2 parent=1 ret=1
	call probe=1 pid=9 tid=2 ts=1200 dur=10 depth=1 args=2,0,1 seq=2 parent=1 ret=1
	call probe=1 pid=9 tid=1 ts=1300 dur=10 depth=1 args=1,0,1 seq=3 parent=1 ret=1
	call probe=0 pid=9 tid=2 ts=1000 dur=900 depth=0 args=2,0,1 seq=1 ret=1
	call probe=1 pid=9 tid=1 ts=1400 dur=10 depth=1 args=1,0,1 seq=4 parent=1 ret=1
	call probe=0 pid=9 tid=1 ts=1000 dur=900 depth=0 args=1,0,1 seq=1 ret=1
	end
	IN
	tree in.txt >got &&
	cat >expect <<-\EOF &&
	1 1 1,0,1 1 2 0
	1 2 2,0,1 3 4 0
	1 1 1,0,1 5 2 0
	0 2 2,0,1 4 0 0
	1 1 1,0,1 6 2 0
	0 1 1,0,1 2 0 0
	EOF
	test_cmp expect got
'

test_expect_success 'recursion 1000 deep (past every former limit): each level under the one above' '
	{ probes &&
	  awk "BEGIN { for (d = 999; d >= 0; d--)
		printf \"call probe=3 pid=5 tid=5 ts=%d dur=%d depth=%d args=%d seq=%d parent=%d\n\",
			1000 + d, 3000 - 2 * d, d, d, d + 1, d }" &&
	  echo end; } >in.txt &&
	tree in.txt >got &&
	# Level d (seq d+1) gets id 1000 - d; its parent, level d-1, 1001 - d.
	awk "{ split(\$3, a, \",\"); d = a[1];
	       want_id = 1000 - d; want_p = d ? 1001 - d : 0;
	       if (\$4 != want_id || \$5 != want_p) { print \"bad: \" \$0; bad = 1 } }
	     END { exit bad }" got &&
	test_line_count got 1000 &&
	test ! -s agg.err
'

test_expect_success 'the kernel stack overflowed: the record says its parent is unknown' '
	# flags=16 (DC_EVF_ORPHAN): the collector could not know the parent.
	{ probes && cat <<-\IN; } >in.txt &&
	instant probe=2 pid=5 tid=5 ts=1500 depth=40 args=1 flags=16
	call probe=3 pid=5 tid=5 ts=1000 dur=1000 depth=0 args=0 seq=1
	end
	IN
	tree in.txt >got &&
	cat >expect <<-\EOF &&
	2 5 1 1 0 16
	3 5 0 2 0 0
	EOF
	test_cmp expect got &&
	grep "1 events with no known parent" agg.err &&
	dc-mkstream in.txt | dc-aggregate 2>/dev/null | dc-write --plain - >out.pfw &&
	pidx out.pfw >got &&
	cat >expect <<-\EOF &&
	fault 40 2 -1
	fib 0 4 -
	EOF
	test_cmp expect got &&
	grep "\"name\":\"end\".*\"orphans\":1," out.pfw &&
	dc-write --check out.pfw
'

test_expect_success 'a call longer than any former hold limit keeps 100,000 children' '
	{ probes &&
	  awk "BEGIN { for (i = 2; i <= 100001; i++)
		printf \"call probe=1 pid=3 tid=3 ts=%d dur=1 depth=1 args=3,0,1 seq=%d parent=1 ret=1\n\", 1000 + 10 * i, i }" &&
	  echo "call probe=0 pid=3 tid=3 ts=1000 dur=2000000 depth=0 args=3,0,1 seq=1 ret=1" &&
	  echo end; } >in.txt &&
	dc-mkstream in.txt | dc-aggregate | dc-write --plain - >out.pfw &&
	pidx out.pfw >got &&
	grep "^write 0 " got >outer &&
	test_line_count outer 1 &&
	outer=$(cut -d" " -f3 outer) &&
	grep "^write 1 " got >children &&
	test_line_count children 100000 &&
	! grep -v " $outer\$" children
'

test_expect_success 'input that stalls 10 s in the middle of a call loses no parent' '
	{ probes &&
	  awk "BEGIN { for (i = 2; i <= 2001; i++)
		printf \"call probe=1 pid=3 tid=3 ts=%d dur=1 depth=1 args=3,0,1 seq=%d parent=1 ret=1\n\", 1000 + 10 * i, i }" &&
	  echo "call probe=0 pid=3 tid=3 ts=1000 dur=2000000 depth=0 args=3,0,1 seq=1 ret=1" &&
	  echo end; } >in.txt &&
	dc-mkstream in.txt >in.dcs &&
	half=$(( $(wc -c <in.dcs) / 2 )) &&
	{ head -c $half in.dcs; sleep 10; tail -c +$((half + 1)) in.dcs; } |
		dc-aggregate | dc-write --flush-interval 1 --plain - >out.pfw &&
	pidx out.pfw >got &&
	outer=$(grep "^write 0 " got | cut -d" " -f3) &&
	grep "^write 1 " got >children &&
	test_line_count children 2000 &&
	! grep -v " $outer\$" children
'

test_expect_success 'a parent whose record was lost: later calls are not given it' '
	# seq 2 (depth 1, under 1) was named by its child seq 3, but its own
	# record never came (dropped); seq 4 returned after it, under 1.
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=1 pid=5 tid=5 ts=1200 dur=10 depth=2 args=3,0,1 seq=3 parent=2 ret=1
	call probe=1 pid=5 tid=5 ts=1500 dur=10 depth=1 args=3,0,2 seq=4 parent=1 ret=1
	call probe=3 pid=5 tid=5 ts=1000 dur=1000 depth=0 args=0 seq=1
	call probe=3 pid=5 tid=5 ts=3000 dur=1000 depth=0 args=9 seq=5
	end
	IN
	tree in.txt >got &&
	cat >expect <<-\EOF &&
	1 5 3,0,1 1 2 0
	1 5 3,0,2 3 4 0
	3 5 0 4 0 0
	3 5 9 5 0 0
	EOF
	test_cmp expect got &&
	grep "1 calls named as parents never returned" agg.err
'

# The client library writes the record of a signal handler's call that
# came while it wrote another after that one (dc-wrap/fast.c): here the
# handler's call 3 began after call 1 returned (its parent 0), and its
# record came before 1's, when 1's child 2 had named 1 already.  And 1
# was its thread's innermost a few instructions before it read its
# start, where call 5's handler came: its child, started before it.
test_expect_success 'a signal handler'"'"'s calls: a record before its sibling'"'"'s, a child before its parent' '
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=3 pid=5 tid=5 ts=1010 dur=20 depth=1 args=2 seq=2 parent=1 ret=0
	call probe=3 pid=5 tid=5 ts=1200 dur=10 depth=0 args=3 seq=3 ret=0
	call probe=3 pid=5 tid=5 ts=1000 dur=100 depth=0 args=1 seq=1 ret=0
	call probe=3 pid=5 tid=5 ts=1900 dur=50 depth=1 args=6 seq=6 parent=5 ret=0
	call probe=3 pid=5 tid=5 ts=2000 dur=500 depth=0 args=5 seq=5 ret=0
	end
	IN
	tree in.txt >got &&
	cat >expect <<-\EOF &&
	3 5 2 1 2 0
	3 5 3 3 0 0
	3 5 1 2 0 0
	3 5 6 4 5 0
	3 5 5 5 0 0
	EOF
	test_cmp expect got &&
	test ! -s agg.err &&
	grep "args=5" agg.txt | grep "ts=1900 dur=600 "
'

# A call dropped so (3, named by its child 4, then taken for lost at 5)
# is not claimed by a later thread with the same tid whose calls are
# numbered from 1 again: its call 3 began after 5.
test_expect_success 'a dropped call is not claimed by a later thread with its tid and number' '
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=3 pid=7 tid=7 ts=500 dur=10 depth=1 args=4 seq=4 parent=3 ret=0
	call probe=3 pid=7 tid=7 ts=1000 dur=10 depth=0 args=5 seq=5 ret=0
	call probe=3 pid=7 tid=7 ts=2000 dur=10 depth=0 args=3 seq=3 ret=0
	end
	IN
	tree in.txt >got &&
	cat >expect <<-\EOF &&
	3 7 4 1 2 0
	3 7 5 3 0 0
	3 7 3 4 0 0
	EOF
	test_cmp expect got &&
	grep "1 calls named as parents never returned" agg.err
'

# But a signal handler's call that came while its thread wrote the
# record of the call before (1), after that call's end, is dropped by 1's
# record, which began before it: its child (4, the handler's system call,
# whose record came first) tells it, begun after it.  Its record claims
# its id back (before, it got a new one, and 1 in 24 runs of t/4200's
# handler test said "1 calls named as parents never returned").
test_expect_success 'a handler'"'"'s call dropped by the record it came during: claimed back by its own' '
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=3 pid=7 tid=7 ts=1300 dur=10 depth=1 args=4 seq=4 parent=3 ret=0
	call probe=3 pid=7 tid=7 ts=1000 dur=100 depth=0 args=1 seq=1 ret=0
	call probe=3 pid=7 tid=7 ts=1200 dur=200 depth=0 args=3 seq=3 ret=0
	end
	IN
	tree in.txt >got &&
	cat >expect <<-\EOF &&
	3 7 4 1 2 0
	3 7 1 3 0 0
	3 7 3 2 0 0
	EOF
	test_cmp expect got &&
	test ! -s agg.err
'

test_expect_success 'async block I/O: parent still open, already returned, or out of reach' '
	# flags 8 = async, 40 = async + parent-done (the call had returned).
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=4 pid=5 tid=5 ts=1100 dur=50 depth=2 flags=8 args=8,0,4096,0 parent=2
	call probe=1 pid=5 tid=5 ts=1000 dur=500 depth=1 args=3,0,1 seq=2 parent=1 ret=1
	call probe=3 pid=5 tid=5 ts=900 dur=700 depth=0 args=0 seq=1
	call probe=4 pid=5 tid=5 ts=1200 dur=900 depth=2 flags=40 args=8,8,4096,0 parent=2
	call probe=4 pid=5 tid=5 ts=1200 dur=900 depth=2 flags=40 args=8,16,4096,0 parent=77
	end
	IN
	tree in.txt >got &&
	cat >expect <<-\EOF &&
	4 5 8,0,4096,0 1 2 8
	1 5 3,0,1 2 3 0
	3 5 0 3 0 0
	4 5 8,8,4096,0 4 2 40
	4 5 8,16,4096,0 5 0 56
	EOF
	test_cmp expect got &&
	grep "1 events with no known parent" agg.err
'

test_expect_success 'a failed library call takes the errno of its failed child' '
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=6 pid=5 tid=5 ts=1100 dur=10 depth=1 args=-100,0,0,0 str=/nope seq=2 parent=1 ret=-2 flags=2
	call probe=5 pid=5 tid=5 ts=1000 dur=100 depth=0 args=0,0,0 str=/nope seq=1 ret=-1 flags=2
	call probe=5 pid=5 tid=5 ts=2000 dur=100 depth=0 args=0,0,0 str=/nope seq=3 ret=-1 flags=2
	end
	IN
	sed -i "s/ret=-2 flags=2/ret=-2 flags=2 error=2/" in.txt &&
	dc-mkstream in.txt | dc-aggregate | dc-write --plain - >out.pfw &&
	grep "\"name\":\"open\"" out.pfw >opens &&
	test_line_count opens 2 &&
	head -n 1 opens | grep "\"ret\":-1,\"errno\":2," &&
	tail -n 1 opens | grep -v "errno"
'

# A later process with the same pid (used again) does not find them.
test_expect_success 'process exit forgets the calls it left open' '
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=1 pid=5 tid=5 ts=1100 dur=10 depth=1 args=3,0,1 seq=2 parent=1 ret=1
	exitproc pid=5 tid=5 ts=5000 ret=0
	call probe=1 pid=6 tid=6 ts=6000 dur=10 depth=0 args=3,0,1 seq=1 ret=1
	call probe=1 pid=5 tid=5 ts=7000 dur=10 depth=0 args=3,0,2 seq=1 ret=1
	end
	IN
	tree in.txt >got &&
	cat >expect <<-\EOF &&
	1 5 3,0,1 1 2 0
	1 6 3,0,1 4 0 0
	1 5 3,0,2 5 0 0
	EOF
	test_cmp expect got &&
	grep "1 calls named as parents never returned" agg.err
'

test_expect_success 'merged inputs keep their trees apart' '
	{ probes && cat <<-\IN; } >a.txt &&
	call probe=1 pid=5 tid=5 ts=1100 dur=10 depth=1 args=3,0,1 seq=2 parent=1 ret=1
	call probe=3 pid=5 tid=5 ts=1000 dur=700 depth=0 args=0 seq=1
	end
	IN
	cp a.txt b.txt &&
	dc-mkstream a.txt >a.dcs &&
	dc-mkstream b.txt >b.dcs &&
	dc-aggregate --text a.dcs b.dcs >agg.txt &&
	sed -n "s/^call .*seq=\([0-9]*\) parent=\([0-9]*\) .*/\1 \2/p" agg.txt >got &&
	cat >expect <<-\EOF &&
	2 4
	4 0
	3 5
	5 0
	EOF
	test_cmp expect got
'

test_expect_success 'a collector stream straight into dc-write is refused, no file made' '
	{ probes && echo end; } >in.txt &&
	dc-mkstream in.txt >in.dcs &&
	test_must_fail_with 2 dc-write -i in.dcs out.pfw.gz 2>err &&
	test_one_line err &&
	grep "put dc-aggregate between dc-collect and dc-write" err &&
	test ! -e out.pfw.gz
'

test_expect_success 'any pid and tid are storable: 4294967295 nests like any other' '
	{ probes && cat <<-\IN; } >in.txt &&
	call probe=1 pid=4294967295 tid=4294967295 ts=1100 dur=10 depth=1 args=3,0,1 seq=2 parent=1 ret=1
	instant probe=2 pid=4294967295 tid=4294967295 ts=1150 depth=1 args=1 parent=1
	call probe=0 pid=4294967295 tid=4294967295 ts=1000 dur=700 depth=0 args=3,0,1 seq=1 ret=1
	call probe=0 pid=0 tid=0 ts=2000 dur=10 depth=0 args=3,0,1 seq=1 ret=1
	end
	IN
	tree in.txt >got &&
	cat >expect <<-\EOF &&
	1 4294967295 3,0,1 1 2 0
	2 4294967295 1 3 2 0
	0 4294967295 3,0,1 2 0 0
	0 0 3,0,1 4 0 0
	EOF
	test_cmp expect got &&
	dc-mkstream in.txt | dc-aggregate | dc-write --plain - >out.pfw &&
	pidx out.pfw >got &&
	cat >expect <<-\EOF &&
	write 1 2 4
	fault 1 6 4
	write 0 4 -
	write 0 8 -
	EOF
	test_cmp expect got &&
	grep -c "\"pid\":4294967295,\"tid\":4294967295" out.pfw >n &&
	echo 4 >expect && test_cmp expect n &&
	dc-write --check out.pfw
'

test_done

#!/bin/sh
# dc-write's outputs: never through a symbolic link, never over an
# existing file without --force (issue 13 item 1).
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a small stream' '
	cat >"$SHARED/in.txt" <<-\IN &&
	header host=h offset=1700000000000000000
	probe id=0 layer=POSIX name=write args=fd,ptr,size ret=size
	repeat 20 call probe=0 pid=5 ts=1000 dur=1000 ret=4096 args=3,0,4096
	end
	IN
	dc-mkstream "$SHARED/in.txt" >"$SHARED/in.dcs"
'

test_expect_success 'a symbolic link as OUT is refused and its target untouched' '
	echo precious >victim &&
	ln -s victim out.pfw.gz &&
	test_must_fail_with 1 dc-write -i "$SHARED/in.dcs" out.pfw.gz 2>err &&
	test_one_line err &&
	grep "out.pfw.gz is a symbolic link" err &&
	echo precious >expect && test_cmp expect victim &&
	test ! -e out.pfw.gz.idx
'

test_expect_success '--force does not write through a symbolic link either' '
	echo precious >victim &&
	ln -s victim out.pfw &&
	test_must_fail_with 1 dc-write --force -i "$SHARED/in.dcs" out.pfw 2>err &&
	grep "symbolic link" err &&
	echo precious >expect && test_cmp expect victim
'

test_expect_success 'a dangling link does not get its target created' '
	ln -s made-by-dc-write out.pfw.gz &&
	test_must_fail_with 1 dc-write -i "$SHARED/in.dcs" out.pfw.gz 2>err &&
	test ! -e made-by-dc-write
'

test_expect_success 'a symbolic link as OUT.idx is refused; no trace is left' '
	echo precious >victim &&
	ln -s victim out.pfw.gz.idx &&
	test_must_fail_with 1 dc-write -i "$SHARED/in.dcs" out.pfw.gz 2>err &&
	test_one_line err &&
	grep "out.pfw.gz.idx is a symbolic link" err &&
	echo precious >expect && test_cmp expect victim &&
	test ! -e out.pfw.gz
'

test_expect_success 'an existing trace is refused and left alone' '
	echo old >out.pfw.gz &&
	test_must_fail_with 1 dc-write -i "$SHARED/in.dcs" out.pfw.gz 2>err &&
	test_one_line err &&
	grep "out.pfw.gz already exists: refusing to overwrite it (use --force" err &&
	echo old >expect && test_cmp expect out.pfw.gz
'

test_expect_success 'an existing index is refused; the new trace is removed' '
	echo old >out.pfw.gz.idx &&
	test_must_fail_with 1 dc-write -i "$SHARED/in.dcs" out.pfw.gz 2>err &&
	grep "out.pfw.gz.idx already exists" err &&
	test ! -e out.pfw.gz &&
	echo old >expect && test_cmp expect out.pfw.gz.idx
'

test_expect_success '--force replaces a trace and its index with new files' '
	dc-write -i "$SHARED/in.dcs" out.pfw.gz &&
	ln out.pfw.gz hardlink &&
	cp hardlink expect &&
	dc-write --force -i "$SHARED/in.dcs" out.pfw.gz &&
	dc-write --check out.pfw.gz >check &&
	grep "valid" check &&
	test_cmp expect hardlink &&
	test "$(stat -c %i out.pfw.gz)" != "$(stat -c %i hardlink)"
'

test_expect_success 'a split output that exists is refused by name' '
	echo old >out-5.pfw.gz &&
	test_must_fail_with 1 dc-write --split-by pid -i "$SHARED/in.dcs" out.pfw.gz 2>err &&
	grep "out-5.pfw.gz already exists" err &&
	echo old >expect && test_cmp expect out-5.pfw.gz
'

test_expect_success 'devices are written as they are' '
	dc-write -i "$SHARED/in.dcs" /dev/null &&
	test ! -e /dev/null.idx
'

test_done

#!/bin/sh
# Every numeric option of every tool is checked against its range: a
# value outside it is one line and exit 2, never truncated or wrapped to
# something that fits (issue 13 item 8: --ring-size 4G became 0).
. "$(dirname "$0")/test-lib.sh"

# rejects OPTION VALUE CMD...: CMD with OPTION VALUE exits 2 with one line
# naming OPTION and VALUE (and the usual "Try --help" line).
rejects() {
	_opt=$1 _val=$2
	shift 2
	test_must_fail_with 2 "$@" "$_opt" "$_val" >out 2>err </dev/null &&
	test ! -s out &&
	grep -e "$_opt" err | grep -F -e "$_val" &&
	test "$(grep -vc "^Try " err)" = 1
}

test_expect_success 'dc-collect: ring size, wakeup, poll, snapshot and interval limits' '
	rejects --ring-size 4G dc-collect &&
	rejects --ring-size 2048 dc-collect &&
	rejects --ring-size 18446744073709551615K dc-collect &&
	rejects --ring-size -4096 dc-collect &&
	rejects --wakeup 4G dc-collect &&
	rejects --poll-ms 0 dc-collect &&
	rejects --poll-ms 4294967297 dc-collect &&
	rejects --snapshot-max 0 dc-collect &&
	rejects --snapshot-max 18446744073709551616 dc-collect &&
	rejects --proc-interval 4294967296 dc-collect
'

test_expect_success 'dc-collect: fast-path sizes and overflowing digits (lib/numbers.c)' '
	rejects --fast-ring 2G dc-collect &&
	rejects --fast-ring 12K dc-collect &&
	rejects --fast-slots 0 dc-collect &&
	rejects --fast-slots 1025 dc-collect &&
	rejects --fast-full maybe dc-collect &&
	rejects --fast-full "" dc-collect &&
	rejects --fast-full wait=0 dc-collect &&
	rejects --fast-full wait=60001 dc-collect &&
	rejects --fast-full wait= dc-collect &&
	rejects --fast-full wait=-5 dc-collect &&
	rejects --fast-full wait=10x dc-collect &&
	rejects --fast-full drop=10 dc-collect &&
	rejects --fast-full wait=99999999999999999999 dc-collect &&
	rejects --ring-size 99999999999999999999 dc-collect &&
	rejects --ring-size 64KB dc-collect &&
	rejects --wakeup 16E dc-collect &&
	test_must_fail_with 2 dc-collect --fast-ring 2G p.sig -- true 2>err &&
	grep "fast-ring takes a power of two from 4096 to 1073741824, not .2G." err &&
	test_must_fail_with 2 dc-collect --fast-full wait=0 p.sig -- true 2>err &&
	grep "fast-full takes wait, wait=MS (MS from 1 to 60000) or drop, not .wait=0." err
'

test_expect_success 'dc-collect: the range is named, a non-power of two refused' '
	test_must_fail_with 2 dc-collect --ring-size 4G p.sig -- true 2>err &&
	grep "ring-size takes a power of two from 4096 to 2147483648, not .4G." err &&
	test_must_fail_with 2 dc-collect --ring-size 12K p.sig -- true 2>err &&
	grep "power of two" err &&
	test_must_fail_with 2 dc-collect --ring-size 64K --wakeup 128K p.sig -- true 2>err &&
	grep "wakeup must not exceed" err
'

test_expect_success 'dc-write: sizes never wrap, counts have ranges' '
	rejects --max-size 17179869184G dc-write o.pfw.gz &&
	rejects --max-size 0 dc-write o.pfw.gz &&
	rejects --chunk-size 2G dc-write o.pfw.gz &&
	rejects --chunk-size 4294967296K dc-write o.pfw.gz &&
	rejects --chunk-size 16E dc-write o.pfw.gz &&
	rejects --max-size 99999999999999999999 dc-write o.pfw.gz &&
	test_must_fail_with 2 dc-write --chunk-size 2G o.pfw.gz 2>err &&
	grep "chunk-size takes 1 to 1G, not .2G." err &&
	rejects --threads 4294967297 dc-write o.pfw.gz &&
	rejects --level 0 dc-write o.pfw.gz &&
	rejects --flush-interval -1 dc-write o.pfw.gz &&
	rejects --top 18446744073709551617 dc-write --summary x &&
	test_must_fail_with 2 dc-write --check --summary x 2>err &&
	grep "^dc-write: --check and --summary do not go together$" err &&
	test ! -e o.pfw.gz
'

test_expect_success 'dc-aggregate: a profile interval that would overflow' '
	rejects --profile 18446744073709551615s dc-aggregate &&
	rejects --profile 0 dc-aggregate
'

test_expect_success 'dc-wrap: timeout range' '
	rejects --timeout 99999999999999 dc-wrap &&
	rejects --timeout -1 dc-wrap
'
test_expect_success 'dc-run: timeout range' '
	rejects --timeout 0 dc-run &&
	rejects --timeout 99999999999999 dc-run &&
	test_must_fail_with 2 dc-run --timeout 5s -- true 2>err &&
	grep "^dc-run: --timeout takes a number from 1 to 31622400, not .5s.$" err
'

test_done

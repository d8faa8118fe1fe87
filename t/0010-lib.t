#!/bin/sh
# lib/'s shared pieces: the one hash table (every key storable, 0 and
# 2^64-1 included), the one FNV-1a, the one size parser (overflow and
# ranges refused).  The checks are in t/helpers/lib-test.c; each of its
# TAP lines must pass.  The tools' own use of the parser is in
# t/0100-options.t.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'lib-test is built' '
	command -v lib-test
'

test_expect_success 'lib unit tests all pass' '
	lib-test >tap &&
	cat tap &&
	! grep "^not ok" tap &&
	n=$(sed -n "s/^1\.\.//p" tap) &&
	test "$n" -gt 50 &&
	test "$(grep -c "^ok " tap)" = "$n"
'

test_done

#!/bin/sh
# The stream codec: round trip, truncation at every byte, damaged input.
# The checks themselves are in t/helpers/stream-test.c; each of its TAP
# lines must pass.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'stream-test is built' '
	command -v stream-test
'

test_expect_success 'stream codec unit tests all pass' '
	stream-test >tap &&
	cat tap &&
	! grep "^not ok" tap &&
	n=$(sed -n "s/^1\.\.//p" tap) &&
	test "$n" -gt 30 &&
	test "$(grep -c "^ok " tap)" = "$n"
'

test_done

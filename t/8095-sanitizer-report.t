#!/bin/sh
# Sanitizer findings reach the suite's log.  Combined with ASan, GCC's
# UBSan writes its reports to stderr whatever log_path says; the tools'
# hook (lib/sanreport.c) appends each to $DC_UBSAN_LOG.PID, which
# `make check` collects into t/sanitizer/ and fails on.  Only in a
# sanitizer build (configure --enable-sanitizers).
. "$(dirname "$0")/test-lib.sh"

PROBE="$DC_BUILD_DIR/t/helpers/ub-probe"

test_expect_success SANITIZED 'a UBSan finding goes to the log, one line naming tool, place and kind, and fails the tool' '
	test_must_fail_with 86 env DC_UBSAN_LOG="$PWD/ub" \
		UBSAN_OPTIONS=halt_on_error=1:exitcode=86 "$PROBE" 5 2>err &&
	test "$(cat ub.* | wc -l)" = 1 &&
	grep "^ub-probe: .*ub-probe.c:[0-9]*:[0-9]*: runtime error (signed-integer-overflow): " ub.* &&
	grep "runtime error" err
'

test_expect_success SANITIZED 'no finding, no log' '
	rm -f ub.* &&
	env DC_UBSAN_LOG="$PWD/ub" "$PROBE" 0 &&
	! ls ub.* 2>/dev/null
'

test_done

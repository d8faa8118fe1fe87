#!/bin/sh
# vm-crash.t - run only inside the test VM, by t/9001-vm-harness.t: a
# test that passes, then one that crashes the kernel (sysrq "c"), which
# the harness must report at once, with the test that was running.
. "$(dirname "$0")/../test-lib.sh"

test "${DC_IN_VM:-}" = 1 || test_skip_all "crashes the kernel: only in the test VM"

test_expect_success 'a test before the crash' '
	true
'

test_expect_success 'the kernel crashes here' '
	echo c >/proc/sysrq-trigger
'

test_done

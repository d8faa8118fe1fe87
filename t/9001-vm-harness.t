#!/bin/sh
# The test VM's harness (t/kernels/run-vm.sh) when the guest kernel
# breaks: a VM whose kernel crashes under a test stops at once (oops and
# panic settings on its command line), not at VM_TIMEOUT, and run-vm.sh
# says so and prints the console from the crash, after the markers of
# the tests that were running (DC_TEST_KMSG, t/test-lib.sh).  The guest
# runs t/kernels/vm-crash.t alone, which crashes it with sysrq "c".
. "$(dirname "$0")/test-lib.sh"

KDIR=${DC_KERNEL_DIR:-$DC_BUILD_DIR/kernels/debian-6.1}
VM_DIR="$TRASH_DIRECTORY/vm"

vm_host_or_skip
test -f "$KDIR/vmlinuz" ||
	test_skip_all "no kernel in $KDIR (make check-kernels fetches it)"

test_expect_success 'a VM root with the crashing script alone' '
	mkdir -p "$VM_DIR" &&
	(cd "$DC_BUILD_DIR" && "$DC_SRC_DIR/t/kernels/mkinitramfs.sh" \
		"$DC_SRC_DIR" "$DC_BUILD_DIR" "$KDIR" "$VM_DIR/initrd" kernels/vm-crash.t)
'

test -f "$VM_DIR/initrd" || test_done
VM_TIMEOUT=600 && export VM_TIMEOUT
run_vm "$KDIR" "$VM_DIR"

test_expect_success 'run-vm.sh fails, saying the VM stopped before the end' '
	test "$(cat "$VM_DIR/rc")" = 1 &&
	grep "^run-vm.sh: the VM stopped before the end; console:" "$VM_DIR/run.err" &&
	! grep "ran more than" "$VM_DIR/run.err" &&
	! grep "^DC-VM-DONE" "$VM_DIR/results"
'

test_expect_success "the VM stopped at the crash, not at VM_TIMEOUT (${vm_took}s)" '
	test "$vm_took" -lt 600
'

test_expect_success 'the console shows the crash, after the test that was running' '
	sed -n "/console:\$/,\$p" "$VM_DIR/run.err" >console &&
	grep -n "dc-test: vm-crash: test 1 ends, exit 0" console >before &&
	grep -n "dc-test: vm-crash: test 2 begins" console >running &&
	grep -n -m 1 -E "sysrq|BUG:|Oops|Kernel panic" console >crash &&
	test "$(cut -d : -f 1 before)" -lt "$(cut -d : -f 1 running)" &&
	test "$(cut -d : -f 1 running)" -lt "$(cut -d : -f 1 crash)" &&
	grep "Kernel panic" console
'

test_done

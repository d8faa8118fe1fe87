#!/bin/sh
# The kernel-dependent tests again, inside a VM running Debian 12's stock
# kernel (6.1: kprobes, fentry and BTF, no multi-uprobe links, no nop5
# uprobe optimisation), under qemu.  `make check-kernels` fetches the
# kernel (t/kernels/fetch-kernel.sh) and runs this script; the VM's root
# is an initramfs of the built tools (t/kernels/mkinitramfs.sh), its init
# (t/kernels/vm-init) runs the scripts in VM_TESTS and sends their TAP
# back on a serial port, and each of their tests is reported here as one
# test, named "6.1: SCRIPT: test".
. "$(dirname "$0")/test-lib.sh"

KDIR=${DC_KERNEL_DIR:-$DC_BUILD_DIR/kernels/debian-6.1}
VM_DIR="$TRASH_DIRECTORY/vm"
# Inside, two scripts run at a time (t/kernels/vm-init), longest first.
# t/4200 (the fast path) for what 6.1 changes under it: plain uprobes
# attached one by one where the client library is not preloaded.
# t/3240: that 6.1's verifier takes the exit programs' global function.
# t/4220: the fallback's tracefs uprobes on 6.1 (35 s alone there);
# t/4240: placed before an exec, which 6.1 must keep across it.
# t/3100: the block programs read 6.1's struct request and bio (CO-RE),
# exact bytes through splits and merges, on a loop device.
# t/3190: the per-CPU batches (6.1 runs a program on a chosen CPU).
# t/3250: POSIX AIO's requests read at entry by 6.1's uprobe programs.
# t/3260: stdout and stdin found from the probed address by 6.1's
# uprobes, attached one by one.
VM_TESTS=${DC_VM_TESTS:-"3000-collect.t 9010-kfunc.t 9020-vfs.t 6000-pipeline.t 4200-fastpath.t 3100-block.t 3190-kernel-batches.t 3240-verifier.t 3250-posix-aio.t 3260-stdstreams.t 4220-fastpath-fallback.t 4240-fastpath-exec.t"}
# The tests the VM leaves out (DC_SKIP_TESTS, t/test-lib.sh): under an
# emulated CPU each collector takes 7 to 20 s to start.  Out: what is
# about user space alone (options, -vv's output, output files, signals,
# the stream's reader, profile counters, errno and nesting derived in
# the programs, the fast path's own ring and processes), which the host
# suite proves on any kernel, and a repeat (t/6000's unselected process:
# t/3000's bystander shows it).  Everything about what 6.1 has or lacks
# stays (t/4240: execve, vfork and a failed exec stand for the exec
# functions, which differ only in the client).  Also out: t/3000's threads that reopen files, a test of
# dc-aggregate's naming (user space): there two scripts at a time
# attach uprobes on libc's functions, and while one does, the other's
# per-process uprobes can lose a call (dc-collect(8) BUGS; it lost one
# of 8,000 writes once, 1,999 on one file).  t/3260 keeps its uprobe
# path (stdout and stdin found from the probed address, which is the
# kernel's), not its fast path's tests nor a library's missing stdout
# (user space).  DC_VM_SKIP_TESTS replaces the list ("" runs every
# test).
VM_SKIP=${DC_VM_SKIP_TESTS-"3000:a failed library call carries the errno*
3000:calls nested deeper than the kernel stack*
3000:the recursion the kernel stores*
3000:a syscall under a user function that sleeps*
3000:profile mode*
3000:SIGTERM drains*
3000:the output file is created 0600*
3000:a reader that dies*
3000:bad options*
3000:threads opening, writing and closing*
3240:with -vv*
6000:a process that was not selected*
6000:a command that does not exist*
6000:a tampered spec*
4200:a signal handler*
4200:a tiny ring drops*
4200:a full ring waits*
4200:a stopped collector*
4200:a client killed by SIGKILL*
4200:threads:*
4200:fork:*
4200:exec:*
4200:a hostile client*
4200:a process that drops the preload*
4240:execv with*
4240:execvp*
4240:execl*
4240:fexecve*
4240:execveat*
4240:Python*
4240:a child of vfork*
4240:vfork that fails*
3260:fast:*
3260:stdout in a library that has none*"}

vm_host_or_skip

test_expect_success 'the Debian 6.1 kernel is there (make check-kernels fetches it)' '
	test -f "$KDIR/vmlinuz" && test -f "$KDIR/modules/order" &&
	grep "^6\.1\." "$KDIR/release"
'

test_expect_success 'the VM root holds the built tools and the tests' '
	mkdir -p "$VM_DIR" &&
	(cd "$DC_BUILD_DIR" && DC_SKIP_TESTS=$VM_SKIP "$DC_SRC_DIR/t/kernels/mkinitramfs.sh" \
		"$DC_SRC_DIR" "$DC_BUILD_DIR" "$KDIR" "$VM_DIR/initrd" $VM_TESTS)
'

test -f "$VM_DIR/initrd" || test_done
run_vm "$KDIR" "$VM_DIR"
sed 's/^/# /' "$VM_DIR/run.err"

test_expect_success 'the VM booted the 6.1 kernel and ran every script' '
	grep "^DC-VM: kernel 6\.1\." "$VM_DIR/results" &&
	grep "^DC-VM-DONE" "$VM_DIR/results"
'

# relay SCRIPT: each test of SCRIPT's TAP as one test here, its comments
# (failure details) as comments; the script must end with its plan and
# exit 0.
relay() {
	_script=$1 _n=0 _plan=
	# A serial line ends in CR LF.
	tr -d '\r' <"$VM_DIR/results" |
		sed -n "/^DC-VM-BEGIN $_script\$/,/^DC-VM-END $_script /p" \
		>"$VM_DIR/$_script.tap"
	while IFS= read -r line; do
		case $line in
		"ok "*|"not ok "*)
			_n=$((_n + 1))
			test_count=$((test_count + 1))
			case $line in
			"not ok "*) test_failed=$((test_failed + 1)) ;;
			esac
			echo "$line" | sed -e "s/^\(\(not \)*ok\) [0-9]* \(- \)*/\1 $test_count - 6.1: $_script: /" \
				-e "s/ - 6.1: $_script: # skip / # skip 6.1: $_script: /"
			;;
		"1.."*) _plan=${line#1..} ;;
		"#"*) echo "$line" ;;
		DC-VM-END*) _rc=${line##* } ;;
		esac
	done <"$VM_DIR/$_script.tap"
	test_count=$((test_count + 1))
	if [ -n "$_plan" ] && [ "${_plan%% *}" = "$_n" ] && [ "${_rc:-x}" = 0 ]; then
		echo "ok $test_count - 6.1: $_script ran all its $_n tests"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - 6.1: $_script ran all its tests (plan ${_plan:-none}, $_n seen, exit ${_rc:-none})"
	fi
}

for t in $VM_TESTS; do
	relay "$t"
done

test_done

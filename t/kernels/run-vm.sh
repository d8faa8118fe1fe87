#!/bin/sh
# run-vm.sh KERNELDIR INITRAMFS OUTDIR - boot the test VM and wait for it.
#
# Makes the ext4 test disk (and an xfs one where mkfs.xfs exists), boots
# KERNELDIR/vmlinuz with INITRAMFS under qemu, and leaves the kernel
# console in OUTDIR/console.log and the tests' output (vm-init's second
# serial port) in OUTDIR/results.  KVM is used when it boots: /dev/kvm
# exists on machines where a nested KVM guest never starts, so a KVM boot
# that has not reached vm-init within KVM_GRACE seconds is stopped and
# the VM runs again under TCG (software emulation, slower but
# everywhere).  OUTDIR/accel says which ran.
#
# Exit: 0 the VM ran every script (results end with DC-VM-DONE), 77 qemu
# cannot start here (the reason on stderr), 1 anything else.
set -u

kdir=$1 initrd=$2 outdir=$3
# VM_TIMEOUT only stops a VM hung in user space: the scripts take 4 to 6
# minutes under TCG on a quiet 2-core host (17 once on a loaded one).  A
# kernel that oopses or keeps a CPU for a minute (a soft lockup: twice
# watchdog_thresh, not the default 20 s, which a starved vCPU could
# reach) panics, which ends the VM at once with the trace on its console.
: "${KVM_GRACE:=20}" "${VM_TIMEOUT:=1200}" "${VM_MEM:=1536}"
say() { printf 'run-vm.sh: %s\n' "$*" >&2; }

qemu=$(command -v qemu-system-x86_64) ||
	{ say "qemu-system-x86_64 not installed (Debian package qemu-system-x86)"; exit 77; }
mkdir -p "$outdir"
rm -f "$outdir/console.log" "$outdir/results" "$outdir/accel"

truncate -s 0 "$outdir/ext4.img" && truncate -s 768M "$outdir/ext4.img" &&
	mkfs.ext4 -q -F "$outdir/ext4.img" ||
	{ say "cannot make the ext4 disk image"; exit 1; }
xfs=
if command -v mkfs.xfs >/dev/null; then
	truncate -s 0 "$outdir/xfs.img" && truncate -s 320M "$outdir/xfs.img" &&
		mkfs.xfs -q -f "$outdir/xfs.img" &&
		xfs="-drive file=$outdir/xfs.img,format=raw,if=virtio"
fi

# boot ACCEL CPU: start qemu in the background, its pid in $vm.
# no_timer_check: under emulation on a loaded host the kernel's check
# that the timer ticks through the IO-APIC can miss it, and then it
# panics at boot ("IO-APIC + timer doesn't work!"), as seen at load 6.
boot() {
	: >"$outdir/console.log"
	: >"$outdir/results"
	# shellcheck disable=SC2086
	"$qemu" -accel "$1" -cpu "$2" -smp 2 -m "$VM_MEM" -nodefaults \
		-display none -no-reboot \
		-kernel "$kdir/vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 loglevel=6 no_timer_check softlockup_panic=1 watchdog_thresh=30 oops=panic" \
		-drive "file=$outdir/ext4.img,format=raw,if=virtio" $xfs \
		-serial "file:$outdir/console.log" \
		-serial "file:$outdir/results" 2>"$outdir/qemu.err" &
	vm=$!
}

# started SECONDS: vm-init has written its first line within SECONDS.
started() {
	_n=$(( $1 * 5 ))
	while [ "$_n" -gt 0 ]; do
		grep -q '^DC-VM: kernel' "$outdir/results" 2>/dev/null && return 0
		kill -0 "$vm" 2>/dev/null || return 1
		sleep 0.2
		_n=$((_n - 1))
	done
	return 1
}

accel=
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	boot kvm host
	if started "$KVM_GRACE"; then
		accel=kvm
	else
		if kill "$vm" 2>/dev/null; then
			say "a KVM guest did not start within ${KVM_GRACE}s; using TCG"
		else
			say "KVM refused ($(tail -n 1 "$outdir/qemu.err")); using TCG"
		fi
		wait "$vm" 2>/dev/null
	fi
fi
# TCG with one host thread for both vCPUs: with a thread each (MTTCG,
# the default), the 6.1 guest oopsed (a call to address 0 at vfs_read's
# entry, which fentry and kprobes patch, in two readers at once,
# interrupts off) or locked up (a vCPU spinning with interrupts off, RCU
# stalled) in about one run of the kernel scripts in three.  Suspected:
# the kernel patching its own text (ftrace, jump labels: collectors
# attach and detach all the time) under another vCPU that runs it, which
# multi-threaded TCG gets wrong; never seen on the 6.18 host.
# None in 9 runs with one thread (256-334 s; 211-275 before).
if [ -z "$accel" ]; then
	boot tcg,thread=single max
	accel=tcg
	# A qemu that dies at once cannot run here at all.
	sleep 1
	if ! kill -0 "$vm" 2>/dev/null && ! [ -s "$outdir/console.log" ]; then
		say "qemu cannot start: $(tail -n 1 "$outdir/qemu.err")"
		exit 77
	fi
fi
echo "$accel" >"$outdir/accel"

# console: the kernel's console from its first complaint, if it made
# one (after the tests that ran then, marked by vm-init's DC_TEST_KMSG),
# else its end.
console() {
	_first=$(grep -n -m 1 -E 'BUG:|Oops|soft lockup|Kernel panic|WARNING:' \
		"$outdir/console.log" | cut -d : -f 1)
	if [ -n "$_first" ]; then
		head -n "$_first" "$outdir/console.log" | grep 'dc-test:' | tail -n 6
		tail -n "+$_first" "$outdir/console.log" | head -n 80
	else
		tail -n 20 "$outdir/console.log"
	fi
}

# Wait for the VM to power off, at most VM_TIMEOUT seconds.
n=$VM_TIMEOUT
while kill -0 "$vm" 2>/dev/null; do
	if [ "$n" -le 0 ]; then
		say "the VM ran more than ${VM_TIMEOUT}s; stopped; console:"
		kill "$vm"
		wait "$vm" 2>/dev/null
		console >&2
		exit 1
	fi
	sleep 1
	n=$((n - 1))
done
wait "$vm"
grep -q '^DC-VM-DONE' "$outdir/results" || {
	say "the VM stopped before the end; console:"
	console >&2
	exit 1
}
exit 0

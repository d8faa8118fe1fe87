#!/bin/sh
# bench/kfunc-vm.sh [BUILD_DIR] - a kernel function traced through fentry
# against kprobes, each with and without walking the file's path, in the
# Debian 6.1 VM of `make check-kernels` (this machine's kernel has
# neither).  Boots the VM with
# t/kernels/kfunc-bench.sh as its only script and prints its Markdown
# table.  Under TCG (software emulation) absolute times are many times
# a real machine's; compare the rows with each other.  Run as root.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
kdir=$build/kernels/debian-6.1
command -v bpftool >/dev/null ||
	{ echo "bench/kfunc-vm.sh: needs bpftool (Debian package bpftool)" >&2; exit 1; }
"$src/t/kernels/fetch-kernel.sh" "$kdir"
work=$(mktemp -d /tmp/dc-kbench.XXXXXX)
trap 'rm -rf "$work"' EXIT
(cd "$build" && "$src/t/kernels/mkinitramfs.sh" "$src" "$build" "$kdir" "$work/initrd" \
	kernels/kfunc-bench.sh)
"$src/t/kernels/run-vm.sh" "$kdir" "$work/initrd" "$work" 2>"$work/run.err" ||
	{ cat "$work/run.err" >&2; exit 1; }
tr -d '\r' <"$work/results" >"$work/out"
if ! grep -q '^BENCH: |' "$work/out"; then
	echo "bench/kfunc-vm.sh: the VM's benchmark gave no table:" >&2
	cat "$work/out" >&2
	exit 1
fi
echo "Debian $(sed -n 's/^DC-VM: kernel //p' "$work/out") in qemu ($(cat "$work/accel")), host load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
sed -n 's/^BENCH: //p' "$work/out"

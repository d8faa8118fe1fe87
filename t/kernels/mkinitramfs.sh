#!/bin/sh
# mkinitramfs.sh SRC BUILD KERNELDIR OUT TEST... - the root of the test VM.
#
# An uncompressed cpio archive holding busybox (init, mount, insmod), the
# host programs the test scripts call where busybox differs (dash as
# /bin/sh, coreutils date, procps pkill/pgrep, losetup, mkfs.ext4,
# python3 with the part of
# its library the helpers import), the built tools and test helpers, each
# with the shared libraries ldd finds, the kernel modules KERNELDIR lists,
# the test library, the named test scripts and the VM's init (vm-init).
set -eu

src=$1 build=$2 kdir=$3 out=$4
shift 4
say() { printf 'mkinitramfs.sh: %s\n' "$*" >&2; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" \
	"$root/lib" "$root/lib64" "$root/usr/lib" "$root/proc" "$root/sys" \
	"$root/dev" "$root/tmp" "$root/mnt" "$root/run" "$root/etc" \
	"$root/dc/src/t" "$root/dc/build" "$root/lib/dc-modules"

# copy FILE [DEST]: FILE into the root at DEST (default: the same path),
# with every shared library it needs at the path the loader looks in.
copy() {
	dest=${2:-$1}
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$1" "$root$dest"
	if file -L "$1" | grep -q 'ELF.*dynamic'; then
		ldd "$1" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' |
		while read -r lib; do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	fi
}

busybox=$(command -v busybox)
file "$busybox" | grep -q 'statically linked' ||
	{ say "$busybox is not static (install busybox-static)"; exit 1; }
cp "$busybox" "$root/bin/busybox"
copy "$(command -v dash)" /bin/sh
# Static busybox programs make no libc calls the POSIX layer could see:
# the workloads the tests trace are the host's dynamic ones.
for p in date pkill pgrep dd cat head tail cp true sleep sync stat truncate; do
	copy "/usr/bin/$p"
done
# A loop device with ext4 on it (t/3100): busybox's losetup has no
# --show and busybox has no mkfs.ext4.
copy "$(command -v losetup)" /usr/sbin/losetup
copy "$(command -v mkfs.ext4)" /usr/sbin/mkfs.ext4
copy /etc/mke2fs.conf

# Python for pfw-query and the trace checks in test bodies: the
# interpreter and exactly the modules they import (socket, threading and
# the idna codec getaddrinfo encodes a host name with: t/3160's TCP
# transfer between two threads).
py=/usr/bin/python3
copy "$(readlink -f $py)" /usr/bin/python3
$py -c '
import argparse, collections, encodings.idna, gzip, json, mmap, os, re, socket, struct, subprocess, sys, threading, zlib
for m in list(sys.modules.values()):
    f = getattr(m, "__file__", None)
    if f:
        print(f)
' | while read -r f; do
	copy "$f"
done
pylib=$($py -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')
# site and sysconfig read these at start-up.
for f in "$pylib"/_sysconfigdata_*.py "$pylib/site.py" "$pylib/os.py"; do
	[ -e "$f" ] && copy "$f"
done

# The built tools, the client library and the test helpers.
for t in dc-explore dc-gen dc-sign dc-collect dc-aggregate dc-write dc-wrap; do
	for f in "$build/$t"/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		copy "$f" "/dc/build/$t/$(basename "$f")"
	done
done
copy "$build/dc-wrap/.libs/libdcclient.so" /dc/build/dc-wrap/.libs/libdcclient.so
for f in "$build"/t/helpers/*; do
	[ -f "$f" ] && [ -x "$f" ] && copy "$f" "/dc/build/t/helpers/$(basename "$f")"
done
cp -r "$src/t/helpers" "$root/dc/src/t/"
cp -r "$src/configs" "$root/dc/src/"
cp "$src/t/test-lib.sh" "$root/dc/src/t/"
# DC_TEST_VERBOSE carries into the VM.
printf '%s' "${DC_TEST_VERBOSE:-}" >"$root/dc/verbose"
# So does DC_SKIP_TESTS (t/test-lib.sh): the tests the VM leaves out.
printf '%s\n' "${DC_SKIP_TESTS:-}" >"$root/dc/skip-tests"
: >"$root/dc/tests"
# bpftool where there is one: bench/kfunc-vm.sh reads program stats.
if bt=$(command -v bpftool); then
	copy "$bt" /usr/sbin/bpftool
fi
for t in "$@"; do
	mkdir -p "$root/dc/src/t/$(dirname "$t")"
	cp "$src/t/$t" "$root/dc/src/t/$t"
	echo "$t" >>"$root/dc/tests"
done

cp "$kdir"/modules/*.ko "$kdir/modules/order" "$root/lib/dc-modules/"
cp "$src/t/kernels/vm-init" "$root/init"
chmod +x "$root/init"

(cd "$root" && find . | "$root/bin/busybox" cpio -o -H newc 2>/dev/null) >"$out.tmp"
mv "$out.tmp" "$out"

#!/bin/sh
# fetch-kernel.sh DIR - put Debian 12's stock kernel (6.1) and the few
# modules the test VM needs in DIR, without installing anything into the
# host's /boot or /lib/modules: the package is downloaded with
# `apt-get download` and unpacked with `dpkg-deb -x` in a scratch
# directory.  DIR gets vmlinuz, config, release and modules/ holding the
# .ko files in load order (modules/order).  Does nothing if DIR is ready.
set -eu

dir=$1
say() { printf 'fetch-kernel.sh: %s\n' "$*" >&2; }

if [ -f "$dir/vmlinuz" ] && [ -f "$dir/modules/order" ]; then
	exit 0
fi
command -v apt-get >/dev/null || { say "needs apt-get (Debian or Ubuntu)"; exit 1; }

# Debian 12's linux-image-amd64 depends on the current 6.1 ABI package;
# the version is read from it, not written here, so security updates
# that retire an ABI do not break the fetch.
find_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-6\.1\.0-[0-9]+-amd64$/ { print $2; exit }'
}
pkg=$(find_pkg)
if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
	apt-get update -qq >/dev/null 2>&1 || true
	pkg=$(find_pkg)
fi
if [ -z "$pkg" ]; then
	pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' |
		awk '{ print $1 }' | sort -t- -k4,4n | tail -n 1)
fi
if [ -z "$pkg" ]; then
	say "no linux-image-6.1.0-*-amd64 package in the apt sources (run apt-get update on Debian 12)"
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say "downloading $pkg"
(cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>&1) || {
	# apt's sandbox user may not write to a root-owned scratch directory.
	chmod 777 "$tmp"
	(cd "$tmp" && apt-get download -q "$pkg" >/dev/null)
}
dpkg-deb -x "$tmp"/"$pkg"_*.deb "$tmp/root"
release=${pkg#linux-image-}
mods="$tmp/root/lib/modules/$release"

# Module dependencies from each module's .modinfo (no depmod needed).
depends() {
	objcopy -O binary --only-section=.modinfo "$1" "$tmp/modinfo" &&
	tr '\0' '\n' <"$tmp/modinfo" | sed -n 's/^depends=//p' | tr ',' ' '
}
path_of() {
	find "$mods/kernel" -name "$1.ko" -o -name "$(echo "$1" | tr _ -).ko" |
		head -n 1
}
mkdir -p "$tmp/out/modules"
: >"$tmp/out/modules/order"
# load NAME: its dependencies first, then itself, each once.
load() {
	grep -qx "$1.ko" "$tmp/out/modules/order" && return 0
	p=$(path_of "$1")
	[ -n "$p" ] || { say "module $1 not in $pkg"; exit 1; }
	for d in $(depends "$p"); do
		load "$d"
	done
	p=$(path_of "$1")
	cp "$p" "$tmp/out/modules/$1.ko"
	echo "$1.ko" >>"$tmp/out/modules/order"
}
# virtio disks (the test file systems) and the file systems themselves.
for m in virtio_pci virtio_blk crc32c_generic ext4 xfs loop; do
	load "$m"
done
cp "$tmp/root/boot/vmlinuz-$release" "$tmp/out/vmlinuz"
cp "$tmp/root/boot/config-$release" "$tmp/out/config"
echo "$release" >"$tmp/out/release"
mkdir -p "$dir"
rm -rf "$dir/modules"
mv "$tmp/out/modules" "$dir/modules"
mv "$tmp/out/config" "$tmp/out/release" "$dir/"
mv "$tmp/out/vmlinuz" "$dir/vmlinuz"
say "kernel $release in $dir"

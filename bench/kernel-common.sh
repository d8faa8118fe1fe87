# bench/kernel-common.sh - sourced by kernel-bench.sh and kernel-ab.sh:
# their work directory, a loop device for the kernel layers, and the
# cleanup of both at exit.
#
#   kernel_workdir NAME  make /tmp/NAME.XXXXXX and cd into it; from then
#                        on, exit removes it, takes the loop device
#                        down, and puts kernel.bpf_stats_enabled back to
#                        $stats_was (set it before changing the sysctl)
#                        and the unbound workqueues' CPUs ($WQMASK) to
#                        $wq_was (the same); $shm is a directory of its
#                        own in /dev/shm
#   kernel_loopdev       a 400 MiB ext4 on a loop device backed by
#                        memory (/dev/shm: the disk's noise is not in
#                        the reads), mounted at mnt; $loopdev names it
#   kernel_holes         after kernel_loopdev: mnt/H, a sparse file of
#                        80 MiB (20,480 pages: kwork's 16,384 and its
#                        1,024 warm-up ones), and ./kwork built from
#                        bench/kwork.c ($src names the source tree)

kernel_workdir() {
	work=$(mktemp -d "/tmp/$1.XXXXXX")
	img=/dev/shm/$1.$$ shm=/dev/shm/$1.$$.d
	loopdev= stats_was= wq_was=
	WQMASK=/sys/devices/virtual/workqueue/cpumask
	trap kernel_cleanup EXIT
	trap 'exit 1' INT TERM HUP
	mkdir "$shm"
	cd "$work"
}

kernel_cleanup() {
	test -n "$stats_was" && sysctl -q kernel.bpf_stats_enabled="$stats_was"
	test -n "$wq_was" && printf '%s\n' "$wq_was" >"$WQMASK"
	if test -n "$loopdev"; then
		umount "$work/mnt" 2>/dev/null || :
		losetup -d "$loopdev" 2>/dev/null || :
	fi
	rm -rf "$work" "$img" "$shm"
}

kernel_loopdev() {
	truncate -s 400M "$img"
	loopdev=$(losetup -f --show "$img")
	mkfs.ext4 -q -F "$loopdev"
	mkdir mnt && mount "$loopdev" mnt
}

kernel_holes() {
	truncate -s 80M mnt/H
	cc -O2 -o kwork "$src/bench/kwork.c" -lpthread
}

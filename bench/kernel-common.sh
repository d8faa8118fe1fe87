# bench/kernel-common.sh - sourced by kernel-bench.sh, kernel-ab.sh and syscall-ab.sh:
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
#   kernel_rounds N FN NAME=BIN...
#                        FN ROUND NAME BIN for each configuration, N
#                        rounds, their order rotated each round and
#                        reversed every other round, so that none
#                        follows the same one more often

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

kernel_rounds() {
	kr_rounds=$1 kr_fn=$2
	shift 2
	kr_n=$# kr_r=0 kr_spec=
	while [ $kr_r -lt "$kr_rounds" ]; do
		kr_i=0
		while [ $kr_i -lt $kr_n ]; do
			if [ $((kr_r / kr_n % 2)) -eq 0 ]; then
				kr_j=$(( (kr_i + kr_r) % kr_n + 1 ))
			else
				kr_j=$(( (kr_n - 1 - kr_i + kr_r) % kr_n + 1 ))
			fi
			eval "kr_spec=\${$kr_j}"
			"$kr_fn" $kr_r "${kr_spec%%=*}" "${kr_spec#*=}"
			kr_i=$((kr_i + 1))
		done
		kr_r=$((kr_r + 1))
	done
}

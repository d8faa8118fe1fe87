#!/bin/sh
# Block I/O is counted exactly, even when the kernel splits requests: the
# block bytes of a process equal the size of the file it read or wrote,
# direct and buffered, on a device whose max_sectors_kb is lowered so every
# large I/O is split.  The device is a loop device on a file in the trash
# directory, so nothing of the host's disks is touched.
. "$(dirname "$0")/test-lib.sh"

MNT="$SHARED/mnt"

# loop_devno: the loop device's number as the block events have it (the
# kernel's dev_t: major << 20 | minor).
loop_devno() {
	_dev=$(cat "$SHARED/loopdev") &&
	echo $(( 0x$(stat -c %t "$_dev") * 1048576 + 0x$(stat -c %T "$_dev") ))
}

# block_bytes TRACE PID OP: bytes of the block events of PID on the loop
# device whose operation has the letter OP (R or W), how many there were,
# and the largest; metadata (M) left out.  (The program's own start-up may
# read from the host's disk if something dropped the caches.)
block_bytes() {
	_devno=$(loop_devno) &&
	pfw-query list "$1" --cat block --pid "$2" --arg dev=$_devno | python3 -c "
import json, sys
n = total = big = 0
for line in sys.stdin:
    a = json.loads(line)[\"args\"]
    if \"$3\" in a[\"op\"] and \"M\" not in a[\"op\"]:
        n += 1; total += a[\"size\"]; big = max(big, a[\"size\"])
print(total, n, big)"
}

# block_requests TRACE: the block requests of the processes traced on the
# loop device, one "pid op sector size" line each, sorted (completions
# never seen queued, pid 0, left out: they depend on timing).
block_requests() {
	_devno=$(loop_devno) &&
	pfw-query list "$1" --cat block --arg dev=$_devno | python3 -c "
import json, sys
pids = {}
rows = []
for line in sys.stdin:
    e = json.loads(line)
    if e[\"pid\"]:
        p = pids.setdefault(e[\"pid\"], len(pids))
        a = e[\"args\"]
        rows.append((p, a[\"op\"], a[\"sector\"], a[\"size\"]))
for r in sorted(rows):
    print(*r)"
}

# Undo the device set-up whatever happens to the tests (the
# test_when_finished of the whole script).
cleanup_device() {
	# The second device's backing file is on the first's file system.
	fsfreeze --unfreeze "$MNT" 2>/dev/null
	if test -s "$SHARED/floopdev"; then
		losetup -d "$(cat "$SHARED/floopdev")"
		rm -f "$SHARED/floopdev"
	fi
	if test -s "$SHARED/loopdev"; then
		_dev=$(cat "$SHARED/loopdev")
		if test -s "$SHARED/max_sectors_kb"; then
			cat "$SHARED/max_sectors_kb" \
				>"/sys/block/${_dev#/dev/}/queue/max_sectors_kb"
		fi
		umount "$MNT" 2>/dev/null
		losetup -d "$_dev"
		rm -f "$SHARED/loopdev"
	fi
	for _f in ploopdev eloopdev; do
		if test -s "$SHARED/$_f"; then
			losetup -d "$(cat "$SHARED/$_f")"
			rm -f "$SHARED/$_f"
		fi
	done
}
trap cleanup_device EXIT
trap 'exit 1' INT TERM HUP

test_lazy_prereq LOOP '
	test "$(id -u)" = 0 || { echo "loop devices need root"; false; }
	command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null ||
		{ echo "losetup or mkfs.ext4 not installed"; false; }
	test -e /dev/loop-control || { echo "no loop device support"; false; }
'

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success LOOP 'setup: an ext4 loop device with max_sectors_kb lowered to 64' '
	truncate -s 192M "$SHARED/img" &&
	losetup -f --show "$SHARED/img" >"$SHARED/loopdev" &&
	dev=$(cat "$SHARED/loopdev") &&
	q=/sys/block/${dev#/dev/}/queue &&
	cat $q/max_sectors_kb >"$SHARED/max_sectors_kb" &&
	mkfs.ext4 -q -F "$dev" &&
	mkdir -p "$MNT" && mount "$dev" "$MNT" &&
	echo 64 >$q/max_sectors_kb &&
	test "$(cat $q/max_sectors_kb)" = 64 &&
	dd if=/dev/urandom of="$MNT/R" bs=1M count=16 2>/dev/null && sync
'

test_expect_success BPF,LOOP,PYTHON3 'a direct read of 16 MiB in 8 MiB blocks: 16 MiB of block reads, split in 64 KiB requests' '
	printf "layers: [block]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- dd if="$MNT/R" of=/dev/null bs=8M iflag=direct &&
	test "$(cat collect.rc)" = 0 &&
	pid=$(pfw-query pids t.pfw.gz --cat block --arg dev=$(loop_devno) | grep -v "^0\$") &&
	set -- $(block_bytes t.pfw.gz "$pid" R) &&
	echo "bytes $1 in $2 requests, largest $3" &&
	test "$1" = 16777216 && test "$2" -ge 256 && test "$3" -le 65536
'

test_expect_success BPF,LOOP,PYTHON3 'a buffered read of a cold 16 MiB file: 16 MiB of block reads, a page for every 4 KiB' '
	dd if="$MNT/R" iflag=nocache count=0 2>/dev/null &&
	printf "layers: [syscalls, block, pagecache]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" read "$MNT/R" &&
	test "$(cat collect.rc)" = 0 &&
	pid=$(pfw-query pids t.pfw.gz --cat sys --name read --file "$MNT/R") &&
	pfw-query list t.pfw.gz --ph i --pid "$pid" \
		--name filemap:mm_filemap_add_to_page_cache \
		--arg inode=$(stat -c %i "$MNT/R") >added &&
	pages=$(python3 -c "import json,sys; print(sum(json.loads(l)[\"args\"][\"pages\"] for l in sys.stdin))" <added) &&
	set -- $(block_bytes t.pfw.gz "$pid" R) &&
	echo "bytes $1 in $2 requests, largest $3; $pages pages added" &&
	test "$1" = $((pages * 4096)) &&
	test "$1" = 16777216
'

test_expect_success BPF,LOOP,PYTHON3 'a direct write of 16 MiB in 8 MiB blocks: 16 MiB of block writes' '
	printf "layers: [block]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- dd if=/dev/zero of="$MNT/D" bs=8M count=2 oflag=direct &&
	test "$(cat collect.rc)" = 0 &&
	pid=$(pfw-query pids t.pfw.gz --cat block --arg dev=$(loop_devno) | grep -v "^0\$") &&
	set -- $(block_bytes t.pfw.gz "$pid" W) &&
	echo "bytes $1 in $2 requests, largest $3" &&
	test "$1" = 16777216 && test "$2" -ge 256 && test "$3" -le 65536
'

# Where the kernel has tp_btf the block programs read its bio and request
# in place; the classic tracepoints' programs (DC_TEST_CLASSIC_TP, as on
# a kernel without tp_btf) read the records the kernel fills: the same
# requests, devices, sectors, sizes and operations either way (the file
# written is overwritten in place, so its sectors stay the same).
test_expect_success BPF,LOOP,PYTHON3 'tp_btf and classic tracepoint programs: the same requests, sectors, sizes and operations' '
	printf "layers: [block]\n" >c.yaml &&
	dd if=/dev/zero of="$MNT/S" bs=256k count=8 2>/dev/null && sync &&
	cmd="dd if=$MNT/D of=/dev/null bs=1M iflag=direct &&
	     dd if=/dev/zero of=$MNT/S bs=256k count=8 oflag=direct,dsync conv=notrunc" &&
	trace c.yaml btf.pfw.gz probes.sig -- sh -c "$cmd" &&
	test "$(cat collect.rc)" = 0 &&
	grep -o "tracepoints: [a-z_]*" collect.err &&
	(
		DC_TEST_CLASSIC_TP=1 && export DC_TEST_CLASSIC_TP &&
		trace c.yaml classic.pfw.gz probes.sig -- sh -c "$cmd"
	) &&
	test "$(cat collect.rc)" = 0 &&
	grep "tracepoints: classic (DC_TEST_CLASSIC_TP)" collect.err &&
	block_requests btf.pfw.gz >btf.req &&
	block_requests classic.pfw.gz >classic.req &&
	cut -d" " -f2 classic.req | sort | uniq -c &&
	test $(grep -c " R[A-Z]* " classic.req) -ge 256 &&
	test $(grep -c " W[A-Z]* " classic.req) -ge 32 &&
	test_cmp classic.req btf.req
'

# The same for the page cache programs: folios added and faulted in (the
# cold 16 MiB file mapped and read: faults, and their readaheads; the
# file then read, all of it cached), dirtied (an overwrite of 256 KiB)
# and removed (the file's cache dropped, once written back: dirty pages
# stay; all but a few, which the drop found busy): the same device and
# inode and the same pages in all (how they
# come in folios depends on the moment), the same dirtied indexes,
# either kind, and faults on the device (how many depends on when the
# readaheads end) where the kernel has their tracepoint (6.1 has not:
# none).  Mapped first: a page already cached is mapped by the
# fault-around without a fault of its own.
test_expect_success BPF,LOOP,PYTHON3 'tp_btf and classic tracepoint programs: the same page cache events' '
	printf "layers: [pagecache, faults]\n" >c.yaml &&
	cmd="dd if=$MNT/D iflag=nocache count=0 &&
	     python3 -c \"import mmap; f = open(\\\"$MNT/D\\\", \\\"rb\\\"); m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ); sum(m[i] for i in range(0, len(m), 4096))\" &&
	     cat $MNT/D >/dev/null &&
	     dd if=/dev/zero of=$MNT/D bs=64k count=4 conv=notrunc &&
	     sync $MNT/D && dd if=$MNT/D iflag=nocache count=0" &&
	for kind in btf classic; do
		(
			if test $kind = classic; then
				DC_TEST_CLASSIC_TP=1 && export DC_TEST_CLASSIC_TP
			fi &&
			trace c.yaml $kind.pfw.gz probes.sig -- sh -c "$cmd"
		) &&
		test "$(cat collect.rc)" = 0 &&
		pfw-query list $kind.pfw.gz --ph i --arg inode=$(stat -c %i "$MNT/D") |
		python3 -c "
import json, sys, collections
pages = collections.Counter()
dirty = []
faults = []
for line in sys.stdin:
    e = json.loads(line)
    a = e[\"args\"]
    key = (e[\"name\"], a.get(\"dev\"), a[\"inode\"])
    if \"dirty\" in e[\"name\"]:
        dirty.append(a[\"index\"])
    elif \"fault\" in e[\"name\"]:
        faults.append((a[\"dev\"], a[\"index\"]))
    else:
        pages[key] += a[\"pages\"]
for k in sorted(pages):
    print(*k, pages[k])
print(\"dirtied\", *sorted(dirty))
print(\"faults\", \"some\" if faults else \"none\", \"on devices\", *sorted(set(d for d, i in faults)))" >$kind.ev || return 1
	done &&
	cat classic.ev btf.ev &&
	grep "^filemap:mm_filemap_add_to_page_cache .* 4096\$" classic.ev &&
	# The drop at the end removes the pages it finds idle: a few may
	# still sit in the batch of another CPU, on their way to the LRU
	# (4092 of 4096 once, in a sanitized run), which only time settles.
	for kind in classic btf; do
		awk "/^filemap:mm_filemap_delete_from_page_cache / { n = \$NF }
			END { exit !(n >= 4032 && n <= 4096) }" $kind.ev || return 1
		sed "s/^\(filemap:mm_filemap_delete_from_page_cache .*\) [0-9]*\$/\1 most/" \
			$kind.ev >$kind.cmp || return 1
	done &&
	grep -x "dirtied $(seq -s " " 0 63)" classic.ev &&
	if test -d /sys/kernel/tracing/events/filemap/mm_filemap_fault ||
	   test -d /sys/kernel/debug/tracing/events/filemap/mm_filemap_fault; then
		grep -x "faults some on devices $(loop_devno)" classic.ev
	else
		grep -x "faults none on devices" classic.ev
	fi &&
	test_cmp classic.cmp btf.cmp
'

# A partition's bios keep the partition's block device (bi_bdev) but are
# remapped to its disk's sectors before they are queued, and its
# requests are the disk's: the classic records name the disk for both,
# and so must the tp_btf programs, or no request of a partition matches
# its bios (all of them came out unattributed, pid 0).  The partition
# table is written by hand (one partition from sector 2048), read by the
# kernel when the loop device scans it (losetup -P) or added with partx
# where the kernel reads no such table.  Read directly: 16 requests of
# 64 KiB, from the disk's sector 2048 on.
test_lazy_prereq PARTITION '
	{ test "$(id -u)" = 0 && command -v losetup >/dev/null &&
	  command -v python3 >/dev/null ||
	  { echo "needs root, losetup and python3"; false; }; } &&
	truncate -s 16M "$SHARED/pimg" &&
	python3 -c "
import struct
mbr = bytearray(512)
mbr[446:462] = struct.pack(\"<B3sB3sII\", 0, bytes(3), 0x83, bytes(3), 2048, 20480)
mbr[510:512] = b\"\\x55\\xaa\"
open(\"$SHARED/pimg\", \"r+b\").write(mbr)" &&
	losetup -P -f --show "$SHARED/pimg" >"$SHARED/ploopdev" &&
	pdev=$(cat "$SHARED/ploopdev") &&
	{ test -b ${pdev}p1 || partx -a "$pdev" 2>/dev/null || :; } &&
	{ test -b ${pdev}p1 ||
	  { echo "no partition of a loop device here (no partx)"; false; }; }
'

test_expect_success BPF,PARTITION,PYTHON3 'a partition: its requests attributed, on its disk and at its disk'"'"'s sectors, tp_btf and classic alike' '
	pdev=$(cat "$SHARED/ploopdev") &&
	pdevno=$(( 0x$(stat -c %t "$pdev") * 1048576 + 0x$(stat -c %T "$pdev") )) &&
	printf "layers: [block]\n" >c.yaml &&
	for kind in btf classic; do
		(
			if test $kind = classic; then
				DC_TEST_CLASSIC_TP=1 && export DC_TEST_CLASSIC_TP
			fi &&
			trace c.yaml $kind.pfw.gz probes.sig -- \
				dd if=${pdev}p1 of=/dev/null bs=64k count=16 iflag=direct
		) &&
		test "$(cat collect.rc)" = 0 &&
		pfw-query list $kind.pfw.gz --cat block --arg dev=$pdevno |
		python3 -c "
import json, sys
rows = []
for line in sys.stdin:
    e = json.loads(line)
    a = e[\"args\"]
    rows.append((\"traced\" if e[\"pid\"] else \"pid0\", a[\"op\"], a[\"sector\"], a[\"size\"]))
for r in sorted(rows):
    print(*r)" >$kind.req || return 1
	done &&
	cat btf.req &&
	test "$(grep -c "^traced R[A-Z]* [0-9]* 65536\$" classic.req)" = 16 &&
	head -n 1 classic.req | grep "^traced R[A-Z]* 2048 65536\$" &&
	test_cmp classic.req btf.req
'

# O_DSYNC rather than one fsync at the end: a sync(1) run elsewhere on the
# host in between would write the dirty pages itself, in its own name.
test_expect_success BPF,LOOP,PYTHON3 'a buffered 16 MiB write with O_DSYNC: 16 MiB of block writes' '
	printf "layers: [syscalls, block]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- dd if=/dev/zero of="$MNT/B" bs=1M count=16 oflag=dsync &&
	test "$(cat collect.rc)" = 0 &&
	pid=$(pfw-query pids t.pfw.gz --cat sys --name write --file "$MNT/B") &&
	set -- $(block_bytes t.pfw.gz "$pid" W) &&
	echo "bytes $1 in $2 requests, largest $3" &&
	test "$1" = 16777216 && test "$3" -le 65536
'

test_expect_success BPF,LOOP,PYTHON3 'requests in flight when tracing begins: kept with pid 0 and counted; others'"'"' I/O left out' '
	dev=$(cat "$SHARED/loopdev") &&
	( i=0; while test $i -lt 200; do
		dd if="$dev" of=/dev/null bs=4M count=32 iflag=direct 2>/dev/null
		i=$((i + 1)); done ) &
	reader=$! &&
	sleep 0.5 &&
	printf "layers: [block]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- sleep 1;
	kill $reader; wait $reader;
	test "$(cat collect.rc)" = 0 &&
	n=$(sed -n "s/.* \([0-9]*\) block requests completed that were never seen queued.*/\1/p" collect.err) &&
	echo "unknown: ${n:-0}" &&
	test "$(pfw-query count t.pfw.gz --cat block --pid 0)" = "${n:-0}" &&
	# The count travels in the stream too (a DROPS frame of kind
	# unattributed), to the trace'"'"'s end record.
	if test "${n:-0}" -gt 0; then
		test "$(pfw-query sum t.pfw.gz unattributed --cat datacrumbs --name end)" = "$n"
	else
		! pfw-query list t.pfw.gz --cat datacrumbs --name end | grep -q unattributed
	fi &&
	# On the loop device: the traced sleep'"'"'s own start-up reads the
	# host'"'"'s disk when something dropped the caches (t/3000 does).
	test "$(pfw-query pids t.pfw.gz --cat block --arg dev=$(loop_devno) |
		grep -v "^0\$" | wc -l)" = 0
'

# A request in flight when tracing begins, for certain: a direct write
# to a second loop device, whose backing file is on the first one's
# ext4, frozen, waits in that device's worker until the file system
# thaws.  The traced command reads a page of the first device (a bio
# queued after the programs attached), then thaws it.  The write's
# completion, found nowhere, began before: kept with pid 0 and counted.
# 64 more direct writes, by an untraced process after the thaw, are
# someone else's: left out.  The tp_btf programs tell the first
# from the others by their issue's jiffy, the classic ones by
# remembering every bio; each with the device's I/O statistics on
# and off (where, turned off, the requests' time stamps were earlier
# ones', and 49 of the 64 writes were taken for older than tracing).
# (fsfreeze --freeze, not -f: the VM suite's busybox has only the long
# options.)
test_lazy_prereq FREEZE '
	command -v fsfreeze >/dev/null || { echo "no fsfreeze"; false; }
'

test_expect_success BPF,LOOP,PYTHON3,FREEZE 'a request surely in flight when tracing begins: kept with pid 0, others'"'"' after it left out' '
	truncate -s 8M "$MNT/F" &&
	losetup -f --show "$MNT/F" >"$SHARED/floopdev" &&
	fdev=$(cat "$SHARED/floopdev") &&
	fdevno=$(( 0x$(stat -c %t "$fdev") * 1048576 + 0x$(stat -c %T "$fdev") )) &&
	q=/sys/block/${fdev#/dev/}/queue &&
	echo none >$q/scheduler &&
	printf "layers: [block]\n" >c.yaml &&
	test_when_finished "fsfreeze --unfreeze \"$MNT\" 2>/dev/null; touch thawed; wait;
		losetup -d $fdev && rm -f \"$SHARED/floopdev\"" &&
	for run in btf:1 btf:0 classic:1 classic:0; do
		kind=${run%:*} stats=${run#*:} &&
		echo $stats >$q/iostats &&
		rm -f thawed &&
		fsfreeze --freeze "$MNT" &&
		{ dd if=/dev/zero of="$fdev" bs=4k count=1 oflag=direct 2>/dev/null & } &&
		{ ( i=0; while test ! -e thawed && test $i -lt 3000; do
			sleep 0.01; i=$((i + 1)); done
		    dd if=/dev/zero of="$fdev" bs=4k count=64 seek=8 oflag=direct 2>/dev/null ) & } &&
		sleep 0.5 &&
		(
			if test $kind = classic; then
				DC_TEST_CLASSIC_TP=1 && export DC_TEST_CLASSIC_TP
			fi &&
			trace c.yaml t$kind$stats.pfw.gz probes.sig -- sh -c \
			"dd if=\"$MNT/R\" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &&
			 fsfreeze --unfreeze \"$MNT\" && touch thawed && sleep 1"
		);
		# (Whatever became of the command, nothing waits for good.)
		fsfreeze --unfreeze "$MNT" 2>/dev/null; touch thawed; wait;
		test "$(cat collect.rc)" = 0 &&
		n=$(sed -n "s/.* \([0-9]*\) block requests completed that were never seen queued.*/\1/p" collect.err) &&
		echo "$kind, iostats $stats: unknown ${n:-0}" &&
		test "$(pfw-query count t$kind$stats.pfw.gz --cat block --pid 0)" = "${n:-0}" &&
		pfw-query list t$kind$stats.pfw.gz --cat block --arg dev=$fdevno >on-f &&
		cat on-f &&
		python3 - <<-\EOF || return 1
		import json
		ev = [json.loads(l) for l in open("on-f")]
		assert len(ev) == 1, "%d requests on the device, not 1" % len(ev)
		e = ev[0]
		assert e["pid"] == 0 and e["args"]["size"] == 4096 and "W" in e["args"]["op"], e
		EOF
	done
'

# The in-flight table cut to one set of 8 bios (dc-collect's test
# setting): a direct 8 MiB write is split into 128 requests queued at
# once, so entries are given up before their completion, which is
# emitted all the same, with pid 0, and counted; not one byte goes
# missing.
test_expect_success BPF,LOOP,PYTHON3 'a full set of in-flight bios: evicted ones completed with pid 0 and counted' '
	printf "layers: [block]\n" >c.yaml &&
	(
		DC_TEST_BLOCK_SET_BITS=0 && export DC_TEST_BLOCK_SET_BITS &&
		trace c.yaml t.pfw.gz probes.sig -- dd if=/dev/zero of="$MNT/E" bs=8M count=1 oflag=direct
	) &&
	test "$(cat collect.rc)" = 0 &&
	n=$(sed -n "s/.* \([0-9]*\) block requests completed that were never seen queued.*/\1/p" collect.err) &&
	echo "unknown: ${n:-0}" &&
	test "${n:-0}" -gt 0 &&
	test "$(pfw-query count t.pfw.gz --cat block --pid 0)" = "$n" &&
	pid=$(pfw-query pids t.pfw.gz --cat block | grep -v "^0\$") &&
	set -- $(block_bytes t.pfw.gz "$pid" W) && mine=$1 &&
	set -- $(block_bytes t.pfw.gz 0 W) && unknown=$1 &&
	echo "dd: $mine bytes, pid 0: $unknown bytes" &&
	test "$mine" -lt 8388608 &&
	test $((mine + unknown)) -ge 8388608
'

# With tp_btf only the traced processes' bios are remembered: others'
# I/O costs the programs a look and no entry.  In a table of one set of
# 8, an untraced reader queues 128 bios at a time (8 MiB direct reads,
# split in 64 KiB requests), while the traced dd reads 4 MiB a page at
# a time: had the reader's bios been remembered they would have given
# up the traced ones' entries (as in the test above); none is, so every
# one of the traced reads is attributed.  Nothing of the reader's is in
# the trace but what was in flight when tracing began (pid 0, counted).
TPBTF_LINE="tracepoints: tp_btf"
test_lazy_prereq TPBTF '
	check_kernel >features &&
	grep "$TPBTF_LINE" features ||
	{ echo "no tp_btf programs here: $(grep -o "tracepoints: [^;]*" features)"; false; }
'

test_expect_success BPF,LOOP,PYTHON3,TPBTF 'others'"'"' bios are not remembered: a traced reader beside an untraced one fills no set' '
	dev=$(cat "$SHARED/loopdev") &&
	( i=0; while test $i -lt 400; do
		dd if="$dev" of=/dev/null bs=8M count=2 iflag=direct 2>/dev/null
		i=$((i + 1)); done ) &
	reader=$! &&
	test_when_finished "kill $reader 2>/dev/null; wait $reader; true" &&
	sleep 0.3 &&
	printf "layers: [block]\n" >c.yaml &&
	(
		DC_TEST_BLOCK_SET_BITS=0 && export DC_TEST_BLOCK_SET_BITS &&
		trace c.yaml t.pfw.gz probes.sig -- \
			dd if="$MNT/R" of=/dev/null bs=4k count=1024 iflag=direct
	) &&
	test "$(cat collect.rc)" = 0 &&
	grep "$TPBTF_LINE" collect.err &&
	n=$(sed -n "s/.* \([0-9]*\) block requests completed that were never seen queued.*/\1/p" collect.err) &&
	echo "unknown: ${n:-0}" &&
	test "$(pfw-query count t.pfw.gz --cat block --pid 0)" = "${n:-0}" &&
	pid=$(pfw-query pids t.pfw.gz --cat block | grep -v "^0\$") &&
	set -- $(block_bytes t.pfw.gz "$pid" R) &&
	echo "dd: $1 bytes in $2 requests" &&
	test "$1" = 4194304 && test "$2" = 1024
'

# links.sh, run by the collector: "LINK_ID PROGRAM" for each BPF link
# its parent (the collector) holds, by the fds' fdinfo.  Link ids grow
# in the order the links were made.
write_links_sh() {
	cat >links.sh <<-\EOS
	exec >links
	for fd in /proc/$PPID/fdinfo/*; do
		link=$(sed -n "s/^link_id:[[:space:]]*//p" "$fd")
		prog=$(sed -n "s/^prog_id:[[:space:]]*//p" "$fd")
		test -n "$link" && test -n "$prog" || continue
		echo "$link $(bpftool prog show id "$prog" |
			sed -n "1s/.* name \([a-z_0-9]*\) .*/\1/p")"
	done | sort -n
	EOS
}

# A traced process may run while the programs attach (--pid, --cgroup,
# --all): those that follow a block I/O (split, merges, issue,
# completion) attach before the queueing that remembers its bio, and
# the page cache's additions before the readaheads that count them, so
# that nothing begun once tracing starts is lost part-way.
test_expect_success BPF,BPFTOOL 'the block and readahead programs that follow attach before those that begin' '
	printf "layers: [block, pagecache]\n" >c.yaml &&
	sign_spec c.yaml &&
	write_links_sh &&
	dc-collect -k "$SHARED/key" probes.sig -- sh links.sh >/dev/null 2>err &&
	cat links &&
	order() { grep -n " dc_$1\(_btf\)\?\$" links | cut -d: -f1; } &&
	queue=$(order bio_queue) && test -n "$queue" &&
	for p in block_split bio_backmerge bio_frontmerge block_issue block_complete; do
		n=$(order $p) && test -n "$n" && test "$n" -lt "$queue" ||
		{ echo "dc_$p attached after dc_bio_queue"; return 1; }
	done &&
	add=$(order pc_add) && test -n "$add" &&
	# (6.1 has no readahead tracepoints: dc-gen plans none there.)
	for p in sync async; do
		grep -q "readahead:page_cache_${p}_ra" probes.json || continue
		n=$(order ra_$p) && test -n "$n" && test "$n" -gt "$add" ||
		{ echo "dc_ra_$p attached before dc_pc_add, or not at all"; return 1; }
	done
'

test_expect_success BPF 'DC_TEST_BLOCK_SET_BITS out of range: one error line, exit 1' '
	test_hook_refused block DC_TEST_BLOCK_SET_BITS=12 \
		"DC_TEST_BLOCK_SET_BITS=12: not a number from 0 to 11"
'

test_expect_success BPF,LOOP,PYTHON3 'kernel layers alone need no client library: traced with none installed; a posix spec says it is missing' '
	printf "layers: [block]\n" >c.yaml &&
	DC_CLIENT_LIB=/nonexistent/libdcclient.so trace_ok c.yaml t.pfw.gz probes.sig -- \
		dd if="$MNT/R" of=/dev/null bs=1M count=4 iflag=direct &&
	! grep -i "client" collect.err &&
	pid=$(pfw-query pids t.pfw.gz --cat block --arg dev=$(loop_devno) | grep -v "^0\$") &&
	set -- $(block_bytes t.pfw.gz "$pid" R) &&
	test "$1" = 4194304 &&
	printf "layers: [posix]\n" >p.yaml &&
	sign_spec p.yaml &&
	test_must_fail_with 1 env DC_CLIENT_LIB=/nonexistent/libdcclient.so \
		dc-collect -k "$SHARED/key" probes.sig -- true 2>err >/dev/null &&
	tail -n 1 err | grep -x "dc-collect: cannot preload the client library /nonexistent/libdcclient.so (--client-lib, or --no-preload): No such file or directory"
'

# A request that fails: a loop device whose backing file was cut to
# nothing after it was set up keeps its size, and a direct read of its
# first 4 KiB finds no data behind it, which the loop driver ends with
# EIO (BLK_STS_IOERR) when it reads its file asynchronously (with
# --direct-io; 6.18 does without), where a driver that reads it one
# segment at a time through the page cache (lo_read_simple) may return
# zeros instead.  Set up here, and the read tried once untraced: where
# it does not fail, no block error can be made, and the test is skipped
# saying so.
test_lazy_prereq BLOCKERR '
	{ test "$(id -u)" = 0 && command -v losetup >/dev/null &&
	  test -e /dev/loop-control ||
	  { echo "needs root, losetup and loop devices"; false; }; } &&
	truncate -s 1M "$SHARED/eimg" &&
	{ losetup -f --show --direct-io=on "$SHARED/eimg" 2>/dev/null ||
	  losetup -f --show "$SHARED/eimg"; } >"$SHARED/eloopdev" &&
	truncate -s 0 "$SHARED/eimg" &&
	! dd if="$(cat "$SHARED/eloopdev")" of=/dev/null bs=4k count=1 \
		iflag=direct 2>/dev/null ||
	{ echo "a read past a loop device'"'"'s cut file does not fail here: no block error to trace"; false; }
'

# One request, one failure: its errno in the trace, and one error of
# block_rq_complete in the counters of both profile modes, dc-aggregate
# --profile's of the collector's stream and the collector's own (which
# counted none: its block programs said their ret was no status); the
# tp_btf programs (which turn the kernel's blk_status_t into the errno)
# and the classic ones (whose record has the errno) alike.
test_expect_success BPF,BLOCKERR,PYTHON3 'a failed block request: -EIO in the trace, one error in both profile modes, tp_btf and classic alike' '
	edev=$(cat "$SHARED/eloopdev") &&
	edevno=$(( 0x$(stat -c %t "$edev") * 1048576 + 0x$(stat -c %T "$edev") )) &&
	cmd="dd if=$edev of=/dev/null bs=4k count=1 iflag=direct" &&
	printf "layers: [block]\n" >c.yaml &&
	{ printf "mode: profile\ninterval_ms: 1000\n" && cat c.yaml; } >p.yaml &&
	echo "block block:block_rq_complete 1" >errors.expected &&
	for kind in btf classic; do
		(
			if test $kind = classic; then
				DC_TEST_CLASSIC_TP=1 && export DC_TEST_CLASSIC_TP
			fi &&
			sign_spec c.yaml &&
			test_must_fail_with 1 dc-collect -k "$SHARED/key" probes.sig -- \
				$cmd >$kind.dcs 2>collect.err &&
			dc-aggregate $kind.dcs | dc-write $kind.pfw.gz &&
			dc-aggregate --profile 1s $kind.dcs | dc-write $kind-aggregate.pfw.gz &&
			trace p.yaml $kind-collector.pfw.gz probes.sig -- $cmd &&
			test "$(cat collect.rc)" = 1
		) || return 1
		pfw-query list $kind.pfw.gz --cat block --arg dev=$edevno &&
		test "$(pfw-query count $kind.pfw.gz --cat block --arg dev=$edevno)" = 1 &&
		test "$(pfw-query count $kind.pfw.gz --cat block --arg dev=$edevno \
			--arg ret=-5 --arg size=4096)" = 1 &&
		counter_errors $kind-aggregate.pfw.gz >errors.aggregate &&
		counter_errors $kind-collector.pfw.gz >errors.collector &&
		cat errors.collector &&
		test_cmp errors.expected errors.aggregate &&
		test_cmp errors.expected errors.collector || return 1
	done
'

test_expect_success LOOP 'cleanup: the device is given back, max_sectors_kb restored first' '
	dev=$(cat "$SHARED/loopdev") &&
	q=/sys/block/${dev#/dev/}/queue &&
	cat "$SHARED/max_sectors_kb" >$q/max_sectors_kb &&
	test "$(cat $q/max_sectors_kb)" = "$(cat "$SHARED/max_sectors_kb")" &&
	cleanup_device &&
	! losetup "$dev" 2>/dev/null | grep -q "$SHARED/img"
'

test_done

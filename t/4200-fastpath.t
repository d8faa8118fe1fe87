#!/bin/sh
# The user-level fast path: the client library records the posix and
# stdio calls the spec names into a shared ring dc-collect drains.  Same
# trace as the uprobe path, exact counts, counted drops, records that
# survive SIGKILL, hostile clients, threads and forks.
. "$(dirname "$0")/test-lib.sh"

FC="$DC_BUILD_DIR/t/helpers/fastclient"

# collect CONFIG OUT [dc-collect options] -- COMMAND: the stream as text
# (dc-aggregate --text) in OUT; collect.err and collect.rc kept.
collect() {
	_cfg=$1 _out=$2
	shift 2
	sign_spec "$_cfg" &&
	{ dc-collect -k "$SHARED/key" "$@" 2>collect.err; echo $? >collect.rc; } |
		dc-aggregate --text >"$_out"
}

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success BPF,PYTHON3 'one workload traced both ways gives the same events' '
	layers posix stdio syscalls >c.yaml &&
	mkdir d &&
	collect c.yaml fast.txt probes.sig -- "$FC" mix "$PWD/d" &&
	grep -q "fast path: [0-9]* functions recorded" collect.err &&
	dc-collect -k "$SHARED/key" probes.sig -- "$FC" mix "$PWD/d" 2>/dev/null |
		dc-aggregate | dc-write fast.pfw.gz &&
	dc-collect -k "$SHARED/key" --no-preload probes.sig -- "$FC" mix "$PWD/d" 2>/dev/null |
		dc-aggregate | dc-write uprobe.pfw.gz &&
	python3 "$DC_SRC_DIR/t/helpers/fast-compare.py" fast.pfw.gz uprobe.pfw.gz >cmp &&
	cat cmp &&
	n=$(sed -n "s/^\([0-9]*\) events compared, 0 differ\$/\1/p" cmp) &&
	test "$n" -ge 40
'

# A program built for large files and with glibc's checks (as Debian
# builds its packages; python3, sqlite3 and tar are) calls libc's
# functions by their other names (open64, fcntl64, fseeko64, preadv64v2)
# and through their checking versions (__read_chk, __open_2): the fast
# path records each as the uprobe on the function does, and as the
# uprobe path, once.  Before, it recorded none of them.  The checking
# versions with code of their own (__fprintf_chk, __vfprintf_chk,
# __fread_chk, __fgets_chk) are probed and wrapped as fprintf,
# vfprintf, fread and fgets, and
# so is the C99 fscanf every build calls (__isoc99_fscanf) as fscanf:
# each once, with the bytes the program wrote and read (fastclient.c),
# on both paths.  Before, neither recorded them.
test_expect_success BPF,PYTHON3 'a large-file, fortified build: every call by any of its names, as by uprobes' '
	FC64="$DC_BUILD_DIR/t/helpers/fastclient64" &&
	# It calls those names (where nm is there to say: not in the VM).
	if command -v nm >/dev/null
	then
		nm -D "$FC64" >syms &&
		for s in open64 pwritev64v2 __read_chk __pread64_chk preadv64v2 lseek64 fcntl64 __openat64_2 fopen64 fseeko64 ftello64 \
			__fprintf_chk __vfprintf_chk __fread_chk __fgets_chk __isoc99_fscanf
		do
			grep -q " U $s\(@\|\$\)" syms || { echo "fastclient64 does not call $s"; return 1; }
		done
	fi &&
	layers posix stdio syscalls >c.yaml &&
	sign_spec c.yaml &&
	mkdir d64 &&
	dc-collect -k "$SHARED/key" probes.sig -- "$FC64" names "$PWD/d64" 3000 2>/dev/null |
		dc-aggregate | dc-write fast64.pfw.gz &&
	dc-collect -k "$SHARED/key" --no-preload probes.sig -- "$FC64" names "$PWD/d64" 3000 2>/dev/null |
		dc-aggregate | dc-write uprobe64.pfw.gz &&
	python3 "$DC_SRC_DIR/t/helpers/fast-compare.py" fast64.pfw.gz uprobe64.pfw.gz >cmp &&
	cat cmp &&
	n=$(sed -n "s/^\([0-9]*\) events compared, 0 differ\$/\1/p" cmp) &&
	test "$n" -ge 30 &&
	for n in "POSIX open 2" "POSIX openat 1" "POSIX read 1" "POSIX pread 1" \
		"POSIX preadv2 1" "POSIX pwritev2 1" "POSIX lseek 1" "POSIX fcntl 1" \
		"STDIO fopen 1" "STDIO fseeko 4" "STDIO ftello 1"
	do
		set -- $n &&
		got=$(pfw-query count fast64.pfw.gz --cat $1 --name $2 --file "$PWD/d64/f") &&
		test "$got" = $3 || { echo "$1 $2 on d64/f: $got, not $3"; return 1; }
	done &&
	test "$(pfw-query count fast64.pfw.gz --cat POSIX --name read --file "$PWD/d64/f" --size 3000)" = 1 &&
	# What fprintf wrote at offset 10, the line fgets read back from there.
	printf "<3000>\n" >line &&
	dd if=d64/f bs=1 skip=10 count=7 2>/dev/null | cmp - line &&
	len=$(wc -c <line) &&
	for t in fast64 uprobe64
	do
		for q in "fprintf --arg bytes=$len --arg ret=$len" \
			"fread --arg isize=1 --arg count=3000 --arg bytes=3000 --arg ret=3000" \
			"fgets --arg size=40 --arg bytes=$len" \
			"fscanf --arg ret=1"
		do
			test "$(pfw-query count $t.pfw.gz --cat STDIO --file "$PWD/d64/f" --name $q)" = 1 &&
			test "$(pfw-query count $t.pfw.gz --cat STDIO --name ${q%% *})" = 1 ||
			{ echo "$t: not one $q"; return 1; }
		done &&
		# vfprintf, through __vfprintf_chk: what it wrote, the file d64/v.
		test "$(pfw-query count $t.pfw.gz --cat STDIO --file "$PWD/d64/v" --name vfprintf --arg bytes=$len --arg ret=$len)" = 1 ||
		{ echo "$t: not one vfprintf of $len bytes on d64/v"; return 1; }
	done &&
	cmp d64/v line
'

# Every probe of the spec that names them is the client library's, the
# checking versions too (their uprobes are not attached: the calls above
# are the wrappers'), unless a probe of one reads other registers, or
# records another name, than the wrapper: then it stays a uprobe, and
# the collector says so.
test_expect_success BPF,PYTHON3 'the checking versions are recorded by the client, as their probes say' '
	printf "layers:\n  - name: stdio\n    functions: [fprintf, fread, fgets]\n" >chk.yaml &&
	sign_spec chk.yaml &&
	test "$(dc-gen --check probes.json)" = "probes.json: 6 probes" &&
	mkdir dchk &&
	collect chk.yaml t.txt probes.sig -- "$DC_BUILD_DIR/t/helpers/fastclient64" names "$PWD/dchk" 3000 &&
	test "$(cat collect.rc)" = 0 &&
	grep -q "fast path: 6 functions recorded by the client library" collect.err &&
	for f in fprintf fread fgets; do
		test "$(count_calls t.txt STDIO $f)" = 1 || return 1
	done &&
	for change in "regs [0, 1, 3, 4] fread" "as \"fread2\" fread2"
	do
		python3 - $change <<-\PY &&
		import json, sys
		spec = json.load(open("probes.json"))
		p = [p for p in spec["probes"] if p["function"] == "__fread_chk"][0]
		p[sys.argv[1]] = json.loads(" ".join(sys.argv[2:-1]))
		json.dump(spec, open("changed.json", "w"))
		PY
		dc-sign -k "$SHARED/key" -o changed.sig changed.json &&
		{ dc-collect -k "$SHARED/key" changed.sig -- "$DC_BUILD_DIR/t/helpers/fastclient64" names "$PWD/dchk" 3000 \
			2>collect.err; echo $? >collect.rc; } | dc-aggregate --text >t.txt &&
		test "$(cat collect.rc)" = 0 &&
		grep -q "fast path: 5 functions recorded by the client library" collect.err &&
		grep -q "fast path: the probe of __fread_chk records it otherwise than the client library: it stays a uprobe" collect.err &&
		test "$(count_calls t.txt STDIO ${change##* })" = 1 ||
		{ cat collect.err; return 1; }
	done
'

# A 16 MiB ring holds the 20000 records undrained: the counts are exact
# however slow the collector is (in the 6.1 VM under emulation, with two
# scripts at a time, it made no progress for the 100 ms a full ring waits
# at the 1 MiB default, and the client rightly dropped and counted).
test_expect_success BPF 'exact counts: 20000 writes, and the syscalls nested one level under them' '
	layers posix stdio syscalls >c.yaml &&
	collect c.yaml t.txt --fast-ring 16M probes.sig -- "$DC_BUILD_DIR/t/helpers/workload" writes 20000 &&
	test "$(cat collect.rc)" = 0 &&
	test "$(count_calls t.txt POSIX write)" = 20000 &&
	grep "^call " t.txt | awk "/depth=1/" >d1 &&
	test "$(count_calls t.txt sys write)" = 20000 &&
	test "$(grep -c "" d1)" -ge 20000 &&
	! grep -q "drops kind=process total=[1-9]" t.txt
'

# fd_writes TEXT LAYER FD: the write calls of LAYER on descriptor FD.
fd_writes() {
	awk -v cat="$2" -v fd="$3" '
		/^probe / { split($2, i, "="); split($4, l, "="); split($5, n, "=");
			    L[i[2]] = l[2]; N[i[2]] = n[2] }
		/^call / { split($2, i, "="); split($13, a, "[=,]");
			   if (L[i[2]] == cat && N[i[2]] == "write" && a[2] == fd) c++ }
		END { print c + 0 }' "$1"
}

# outside_parents TEXT: the calls (and their count) that name a parent
# whose span does not hold theirs.
outside_parents() {
	awk '
		FNR == NR && /^call / { split($5, t, "="); split($6, d, "="); split($10, q, "=");
			   S[q[2]] = t[2]; E[q[2]] = t[2] + d[2]; next }
		/^call / { split($5, t, "="); split($6, d, "="); split($11, p, "=");
			   if (p[2] != 0 && (!(p[2] in S) || t[2] < S[p[2]] || t[2] + d[2] > E[p[2]])) {
				   n++; print
			   } }
		END { print n + 0 }' "$1" "$1"
}

# A signal handler's calls come anywhere in the program's: in a call, in
# its wrapper, or while the library writes a record (the handler's then
# waits for that one).  Each is recorded, and one that named the call it
# came in as its parent lies inside it (that call ends once the handler
# is done).  The records (about 29 MB) fit a 64 MiB ring undrained: no
# thread waits for a slow (sanitized) collector, with handlers' calls
# piling up meanwhile.
test_expect_success BPF 'a signal handler'"'"'s calls: each recorded, inside the call it came in' '
	layers posix syscalls >c.yaml &&
	sign_spec c.yaml &&
	{ dc-collect -k "$SHARED/key" --fast-ring 64M --fast-slots 4 probes.sig -- \
		"$DC_BUILD_DIR/t/helpers/workload" sigwrites 300000 "$PWD/counts" \
		2>collect.err; echo $? >collect.rc; } |
		dc-aggregate --text >t.txt 2>aggregate.err &&
	cat collect.err aggregate.err &&
	test "$(cat collect.rc)" = 0 &&
	read _ mfd mn _ hfd hn <counts &&
	test "$mn" = 300000 && test "$hn" -gt 100 &&
	test "$(fd_writes t.txt POSIX "$mfd")" = "$mn" &&
	test "$(fd_writes t.txt POSIX "$hfd")" = "$hn" &&
	test "$(fd_writes t.txt sys "$hfd")" = "$hn" &&
	! grep -q "records lost" collect.err &&
	! grep -q "parent\|orphan" aggregate.err &&
	outside_parents t.txt >outside &&
	test "$(tail -n 1 outside)" = 0
'

# user_calls TEXT: call records of the POSIX and STDIO layers.
user_calls() {
	awk '
		/^probe / { split($2, i, "="); split($4, l, "="); L[i[2]] = l[2] }
		/^call / { split($2, i, "=");
			   if (L[i[2]] == "POSIX" || L[i[2]] == "STDIO") c++ }
		END { print c + 0 }' "$1"
}

# all_accounted TEXT TOTAL: some user-level calls were lost, each lost one
# is counted, and the recorded and the lost add up to TOTAL.
all_accounted() {
	_n=$(user_calls "$1") &&
	_lost=$(sed -n "s/^drops kind=process total=\([0-9]*\).*/\1/p" "$1") &&
	test "$_lost" -gt 0 &&
	test $((_n + _lost)) = "$2" &&
	grep -q "user-level records lost" collect.err
}

# 100000 writes: their records (96 bytes each) fit a 16 MiB ring even if
# the collector never drained it before the end, so the first run is
# exact however slow the collector is (with 200000, a sanitized one fell
# behind and, rightly, counted 4648 lost; a full ring now waits for the
# collector besides).  The tiny ring drops:
# --fast-full drop.
test_expect_success BPF 'a tiny ring drops, and every call is either recorded or counted' '
	layers posix stdio syscalls >c.yaml &&
	collect c.yaml all.txt --fast-ring 16M probes.sig -- "$DC_BUILD_DIR/t/helpers/workload" writes 100000 &&
	! grep -q "drops kind=process total=[1-9]" all.txt &&
	test "$(count_calls all.txt POSIX write)" = 100000 &&
	total=$(user_calls all.txt) &&
	collect c.yaml t.txt --fast-ring 4096 --fast-full drop probes.sig -- "$DC_BUILD_DIR/t/helpers/workload" writes 100000 &&
	all_accounted t.txt "$total"
'

# The wait is bounded at 10 s, not the default 100 ms: a collector slowed
# by load or a sanitizer may take longer than 100 ms to read on, and the
# point here is that a full ring waits, not how long (the next test checks
# the bound each setting sends).
test_expect_success BPF 'a full ring waits for the collector: a tiny ring, 20000 writes, none lost' '
	layers posix stdio syscalls >c.yaml &&
	collect c.yaml t.txt --fast-ring 4096 --fast-full wait=10000 probes.sig -- "$DC_BUILD_DIR/t/helpers/workload" writes 20000 &&
	test "$(cat collect.rc)" = 0 &&
	test "$(count_calls t.txt POSIX write)" = 20000 &&
	! grep -q "drops kind=process total=[1-9]" t.txt &&
	! grep -q "user-level records lost" collect.err
'

# A process's threads past --fast-slots have no ring: their records are
# lost, counted and said, not silently (workload tree: 4 threads and 2
# forked children, each writing its own file; one slot a process).
test_expect_success BPF 'threads past --fast-slots: their records counted lost, and said' '
	layers posix >c.yaml &&
	mkdir all one &&
	collect c.yaml all.txt probes.sig -- "$DC_BUILD_DIR/t/helpers/workload" tree "$PWD/all" 200 &&
	! grep -q "drops kind=process total=[1-9]" all.txt &&
	test "$(count_calls all.txt POSIX write)" = 1200 &&
	total=$(user_calls all.txt) &&
	collect c.yaml t.txt --fast-slots 1 probes.sig -- "$DC_BUILD_DIR/t/helpers/workload" tree "$PWD/one" 200 &&
	test "$(cat collect.rc)" = 0 &&
	all_accounted t.txt "$total" &&
	grep "user-level records lost: its threads past --fast-slots had no ring" collect.err
'

# A client of its own, not preloaded (the library would take the socket
# first), is a process without the client at its exec: the collector
# gives it the wrapped functions through uprobes of its own (t/4220).
# Each function's tracefs events take the kernel ~0.2 s to take down
# after the end, in the background, where they slow what runs next: such
# tests trace two posix functions, not the posix and stdio layers' 52.
two_functions() {
	printf "layers:\n  - name: posix\n    functions: [read, write]\n" &&
	printf "  - syscalls\n"
}

test_expect_success BPF 'the wait for a full ring is told to the client: 1 s, wait=MS, drop' '
	two_functions >c.yaml &&
	: the client library would take the socket first: not preloaded &&
	collect c.yaml t.txt probes.sig -- env LD_PRELOAD= "$FC" config &&
	grep "^full_wait_ms=1000\$" collect.err &&
	collect c.yaml t.txt --fast-full wait=2500 probes.sig -- env LD_PRELOAD= "$FC" config &&
	grep "^full_wait_ms=2500\$" collect.err &&
	collect c.yaml t.txt --fast-full wait probes.sig -- env LD_PRELOAD= "$FC" config &&
	grep "^full_wait_ms=1000\$" collect.err &&
	collect c.yaml t.txt --fast-full drop probes.sig -- env LD_PRELOAD= "$FC" config &&
	grep "^full_wait_ms=0\$" collect.err
'

# is_zombie PID: PID has exited but is not reaped (its parent is stopped).
is_zombie() {
	case "$(cat "/proc/$1/stat")" in *") Z "*) true ;; *) false ;; esac
}

# The job (fastclient gate) connects, then waits for gate/go; the
# collector is stopped before the writes and continued only once the job
# has exited (a zombie: the stopped collector cannot reap it).
test_expect_success BPF 'a stopped collector: the job waits the bound once, finishes, and its losses are counted' '
	layers posix stdio syscalls >c.yaml &&
	mkdir ref gate &&
	touch ref/go &&
	collect c.yaml ref.txt --fast-ring 4096 probes.sig -- "$FC" gate "$PWD/ref" 20000 &&
	! grep -q "drops kind=process total=[1-9]" ref.txt &&
	total=$(user_calls ref.txt) &&
	test "$total" -gt 20000 &&
	{ dc-collect -k "$SHARED/key" --fast-ring 4096 -o s.dcs probes.sig -- \
		"$FC" gate "$PWD/gate" 20000 2>collect.err & } &&
	cpid=$! &&
	test_when_finished "kill -CONT $cpid 2>/dev/null; test_kill_pid $cpid dc-collect" &&
	wait_for_file gate/ready &&
	: the collector has another child, dc-collect-hold &&
	for job in $(cat "/proc/$cpid/task/$cpid/children"); do
		test "$(cat /proc/$job/comm)" = fastclient && break
	done &&
	test "$(cat /proc/$job/comm)" = fastclient &&
	kill -STOP $cpid &&
	touch gate/go &&
	wait_until 60 "process $job did not finish" is_zombie "$job" &&
	kill -CONT $cpid &&
	wait $cpid &&
	dc-aggregate --text <s.dcs >t.txt &&
	all_accounted t.txt "$total"
'

test_expect_success BPF 'a client killed by SIGKILL after 5000 calls still has its 5000 records' '
	layers posix stdio syscalls >c.yaml &&
	collect c.yaml t.txt probes.sig -- "$FC" kill 5000 &&
	test "$(cat collect.rc)" = 137 &&
	test "$(count_calls t.txt POSIX write)" = 5000
'

test_expect_success BPF 'threads: 4 x 3000 writes, each on its own thread' '
	layers posix stdio syscalls >c.yaml &&
	collect c.yaml t.txt probes.sig -- "$FC" threads 4 3000 &&
	test "$(count_calls t.txt POSIX write)" = 12000 &&
	awk "/^probe / { split(\$2, i, \"=\"); split(\$4, l, \"=\"); split(\$5, n, \"=\");
			 N[i[2]] = l[2] \"/\" n[2] }
	     /^call / { split(\$2, i, \"=\"); split(\$4, tid, \"=\");
			if (N[i[2]] == \"POSIX/write\") c[tid[2]]++ }
	     END { for (k in c) print c[k] }" t.txt | sort -u >per-tid &&
	echo 3000 >expect &&
	test_cmp expect per-tid
'

test_expect_success BPF 'fork: the child records into a ring of its own, under its own pid' '
	layers posix stdio syscalls >c.yaml &&
	collect c.yaml t.txt probes.sig -- "$FC" fork 1000 700 &&
	test "$(cat collect.rc)" = 0 &&
	parent=$(sed -n "s/^fork .* pid=\([0-9]*\) .*args=\([0-9]*\),.*/\1/p" t.txt | head -n 1) &&
	child=$(sed -n "s/^fork .* pid=\([0-9]*\) .*args=\([0-9]*\),.*/\2/p" t.txt | head -n 1) &&
	test "$(count_calls t.txt POSIX write "$parent")" = 1000 &&
	test "$(count_calls t.txt POSIX write "$child")" = 700
'

test_expect_success BPF 'exec: the new image records again, under the same pid' '
	layers posix stdio syscalls >c.yaml &&
	collect c.yaml t.txt probes.sig -- sh -c "exec \"$DC_BUILD_DIR/t/helpers/workload\" writes 3000" &&
	test "$(count_calls t.txt POSIX write)" = 3000
'

test_expect_success BPF 'a hostile client: no crash, no events for another pid, garbage refused' '
	two_functions >c.yaml &&
	: the client library would take the socket first: not preloaded &&
	collect c.yaml t.txt -v probes.sig -- env LD_PRELOAD= "$FC" hostile 50 &&
	cat collect.err &&
	test "$(cat collect.rc)" = 0 &&
	pid=$(sed -n "s/^process pid=\([0-9]*\) .*fastclient.*/\1/p" t.txt | head -n 1) &&
	test -n "$pid" &&
	test "$(count_calls t.txt POSIX write "$pid")" = 50 &&
	test "$(count_calls t.txt POSIX write 1)" = 0 &&
	: its call-state map claims every thread, ever deeper: &&
	grep -q "process $pid joined, its call state in a call-state map" collect.err &&
	awk -v pid="$pid" "/^call / && \$3 == \"pid=\" pid { split(\$8, d, \"=\");
		if (d[2] > m) m = d[2] } END { print m + 0 }" t.txt >depth &&
	test "$(cat depth)" -le 1024 &&
	grep -q "slot abandoned" collect.err &&
	grep -q "invalid records from process $pid refused" collect.err &&
	grep -q "^dc-collect: [0-9]* events" collect.err
'

# nested_writes TEXT: the write(2) records whose parent is a POSIX write
# of the same thread, one level above them; then all write(2) records.
nested_writes() {
	awk '
		/^probe / { split($2, i, "="); split($4, l, "="); split($5, n, "=");
			    N[i[2]] = l[2] "/" n[2] }
		/^call / { split($2, i, "="); split($4, t, "="); split($8, d, "=");
			   split($10, s, "="); split($11, p, "=");
			   name[s[2]] = N[i[2]]; tid[s[2]] = t[2]; depth[s[2]] = d[2];
			   if (N[i[2]] == "sys/write") { ws[++nw] = s[2]; up[s[2]] = p[2] } }
		END { for (k = 1; k <= nw; k++) {
			      w = ws[k]; q = up[w];
			      if (name[q] == "POSIX/write" && tid[q] == tid[w] &&
				  depth[q] + 1 == depth[w]) c++ }
		      print c + 0, nw + 0 }' "$1"
}

# The system calls under a client's call are found through the thread's
# entry of its process's call-state map, or (DC_FAST_TLS_ONLY, or a
# thread that found no entry free) by copying its TLS: each write(2)
# under its own POSIX write either way, or the kernel lost the client.
# nested_via WHERE: 2000 writes, the collector's -v line saying the
# client's call state is in WHERE, each write(2) under its POSIX write.
nested_via () {
	layers posix stdio syscalls >c.yaml &&
	collect c.yaml t.txt -v probes.sig -- "$DC_BUILD_DIR/t/helpers/workload" writes 2000 &&
	test "$(cat collect.rc)" = 0 &&
	grep -q "joined, its call state in $1" collect.err &&
	echo "2000 2000" >expect &&
	nested_writes t.txt >actual &&
	test_cmp expect actual
}

test_expect_success BPF 'system calls nest under the client'"'"'s calls read from its call-state map' '
	nested_via "a call-state map"
'

test_expect_success BPF 'DC_FAST_TLS_ONLY: the state in the TLS, the same nesting' '
	test_when_finished "unset DC_FAST_TLS_ONLY" &&
	DC_FAST_TLS_ONLY=1 && export DC_FAST_TLS_ONLY &&
	nested_via "its threads. TLS"
'

# 300 threads at once: 256 entries, and at least 44 threads keep their
# state in their TLS; both kinds in one process.
test_expect_success BPF 'a crowd of 300 threads: more than the map holds, each nested exactly' '
	layers posix stdio syscalls >c.yaml &&
	collect c.yaml t.txt -v --fast-slots 512 --fast-ring 64K probes.sig -- "$FC" crowd 300 20 &&
	test "$(cat collect.rc)" = 0 &&
	grep -q "joined, its call state in a call-state map" collect.err &&
	echo "6000 6000" >expect &&
	nested_writes t.txt >actual &&
	test_cmp expect actual &&
	! grep -q "drops kind=process total=[1-9]" t.txt
'

# Processes starting faster than one a grace period (13-26 ms, what
# placing one call-state map waits): sh and its 6 children each get a
# map of their own, every write(2) still under its POSIX write.  13
# joins (each child joins as a copy of sh, then after its exec) within
# the maps kept ready, so however fast they come.
test_expect_success BPF 'a burst of 6 processes: each gets a call-state map' '
	layers posix stdio syscalls >c.yaml &&
	collect c.yaml t.txt -v probes.sig -- sh -c "for i in 1 2 3 4 5 6; do \"$DC_BUILD_DIR/t/helpers/workload\" writes 200 & done; wait" &&
	test "$(cat collect.rc)" = 0 &&
	sed -n "s/.*process \([0-9]*\) joined, its call state in.*/\1/p" collect.err |
		sort -u | wc -l >joined &&
	echo 7 >expect &&
	test_cmp expect joined &&
	! grep "joined, its call state in its threads" collect.err &&
	echo "1200 1200" >expect &&
	nested_writes t.txt >actual &&
	test_cmp expect actual
'

# The preload is there but its client finds no collector: it cannot be
# told at the exec (t/4220 has the processes that can).
test_expect_success BPF 'a process whose client never connects is named, not silently missing' '
	layers posix stdio syscalls >c.yaml &&
	collect c.yaml t.txt probes.sig -- sh -c "DC_FAST_SOCKET=@datacrumbs-nobody-$$ \"$DC_BUILD_DIR/t/helpers/workload\" writes 10; \"$DC_BUILD_DIR/t/helpers/workload\" writes 20" &&
	test "$(count_calls t.txt POSIX write)" = 20 &&
	test "$(grep -c "never joined the fast path" collect.err)" = 1 &&
	! grep -q "will not load the client library" collect.err
'

test_expect_success BPF 'with --no-preload the command runs without the client library' '
	layers posix stdio syscalls >c.yaml &&
	collect c.yaml t.txt --no-preload probes.sig -- sh -c "cat /proc/self/maps" &&
	! grep -q "fast path:" collect.err &&
	test "$(count_calls t.txt POSIX write)" -ge 1
'

test_done

#!/bin/sh
# End to end: dc-gen | dc-sign | dc-collect | dc-aggregate | dc-write on
# real workloads, checked by reading the trace with Python's json + gzip.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a key and the signed default probes' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	dc-gen --default >"$SHARED/probes.json" &&
	dc-sign -k "$SHARED/key" -o "$SHARED/probes.sig" "$SHARED/probes.json"
'

test_expect_success BPF,PYTHON3 'dd 16 x 1 MiB: exactly 16 POSIX writes of 1 MiB on F' '
	t0=$(now_us) &&
	dc-collect -k "$SHARED/key" "$SHARED/probes.sig" -- \
		dd if=/dev/zero of=F bs=1M count=16 2>collect.err |
		dc-aggregate | dc-write trace.pfw.gz &&
	t1=$(now_us) &&
	test "$(pfw-query count trace.pfw.gz --cat POSIX --name write --file "$PWD/F")" = 16 &&
	test "$(pfw-query count trace.pfw.gz --cat POSIX --name write --file "$PWD/F" --size 1048576)" = 16 &&
	pfw-query window trace.pfw.gz "$t0" "$t1" --cat POSIX --name write --file "$PWD/F" &&
	dc-write --summary trace.pfw.gz >summary &&
	grep "^POSIX  *write  *16  *16777216  *[0-9.]*  $PWD/F$" summary
'

test_expect_success BPF,PYTHON3 'the write syscalls sit one level under the POSIX calls' '
	dc-collect -k "$SHARED/key" "$SHARED/probes.sig" -- \
		dd if=/dev/zero of=F bs=1M count=4 2>collect.err |
		dc-aggregate | dc-write trace.pfw.gz &&
	test "$(pfw-query count trace.pfw.gz --cat sys --name write --file "$PWD/F" --arg level=1)" = 4 &&
	test "$(pfw-query count trace.pfw.gz --cat POSIX --name write --file "$PWD/F" --arg level=0)" = 4
'

test_expect_success BPF,PYTHON3 'the same through dc-wrap and a collector in client mode' '
	{ dc-collect -k "$SHARED/key" --clients --ready-file ready \
		"$SHARED/probes.sig" 2>collect.err |
		dc-aggregate | dc-write trace.pfw.gz & } &&
	wait_for_file ready &&
	collector=$(ready_pid ready) &&
	test_when_finished "test_kill_pid -INT $collector dc-collect" &&
	dc-wrap --ready-file ready --timeout 30 \
		dd if=/dev/zero of=F bs=1M count=16 2>/dev/null &&
	dd if=/dev/zero of="$PWD/G" bs=1M count=3 2>/dev/null &&
	kill -INT "$collector" &&
	wait &&
	test "$(pfw-query count trace.pfw.gz --cat POSIX --name write --file "$PWD/F" --size 1048576)" = 16 &&
	test "$(pfw-query count trace.pfw.gz --name write --file "$PWD/G")" = 0
'

test_expect_success BPF,PYTHON3 'the one close names its file: the client library records none of its own' '
	dc-collect -k "$SHARED/key" "$SHARED/probes.sig" -- \
		"$DC_BUILD_DIR/t/helpers/workload" writes 3 "$PWD/F" 2>collect.err |
		dc-aggregate | dc-write trace.pfw.gz &&
	grep "fast path: [1-9][0-9]* functions recorded by the client library" collect.err &&
	test "$(pfw-query count trace.pfw.gz --cat POSIX --name close)" = 1 &&
	test "$(pfw-query count trace.pfw.gz --cat POSIX --name close --file "$PWD/F")" = 1
'

test_expect_success BPF,PYTHON3 'fclose of stdout, open before tracing, names its file' '
	dc-collect -k "$SHARED/key" -o t.dcs "$SHARED/probes.sig" -- \
		"$DC_BUILD_DIR/t/helpers/workload" stdout 3 >out 2>collect.err &&
	dc-aggregate t.dcs | dc-write trace.pfw.gz &&
	test "$(wc -c <out)" = 3 &&
	test "$(pfw-query count trace.pfw.gz --cat STDIO --name fwrite --file "$PWD/out")" = 3 &&
	test "$(pfw-query count trace.pfw.gz --cat STDIO --name fclose)" = 1 &&
	test "$(pfw-query count trace.pfw.gz --cat STDIO --name fclose --file "$PWD/out")" = 1
'

test_expect_success BPF,PYTHON3 'a process that was not selected leaves nothing' '
	( while :; do echo x >>unrelated; sleep 0.01; done ) &
	loop=$! &&
	test_when_finished "test_kill_pid $loop" &&
	dc-collect -k "$SHARED/key" "$SHARED/probes.sig" -- \
		dd if=/dev/zero of=F bs=1M count=2 2>collect.err |
		dc-aggregate | dc-write trace.pfw.gz;
	kill $loop &&
	test "$(pfw-query count trace.pfw.gz --file "$PWD/unrelated")" = 0 &&
	pfw-query pids trace.pfw.gz --cat POSIX >pids &&
	test_line_count pids 1
'

test_expect_success BPF 'a command that does not exist: exit 127, one line' '
	test_must_fail_with 127 dc-collect -k "$SHARED/key" -o out.dcs \
		"$SHARED/probes.sig" -- ./no-such-command 2>err &&
	grep "cannot run ./no-such-command" err &&
	test ! -e out.dcs
'

test_expect_success 'a tampered spec is refused before anything loads' '
	sed "s/\"write\"/\"wrote\"/" "$SHARED/probes.sig" >tampered.sig &&
	test_must_fail_with 5 dc-collect -k "$SHARED/key" -o out.dcs tampered.sig -- true 2>err &&
	test_one_line err &&
	test ! -e out.dcs
'

test_done

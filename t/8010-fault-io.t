#!/bin/sh
# Faults around the pipeline's I/O: a full disk, a closed pipe, a
# consumer that stalls for 10 s (issue 13, fault tests).
. "$(dirname "$0")/test-lib.sh"

APP="$DC_BUILD_DIR/t/helpers/fault-app"

test_expect_success 'setup: a key and a spec of the write syscall' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	cat >c.yaml <<-\EOC &&
	layers:
	  - name: sys
	    kind: syscall
	    functions: [write]
	    args:
	      write: {args: [fd, ptr, size], ret: size}
	EOC
	dc-gen c.yaml >p.json &&
	dc-sign -k "$SHARED/key" -o "$SHARED/p.sig" p.json
'

# small_disk DIR: a 256 KiB tmpfs at DIR, unmounted when the test ends.
small_disk() {
	mkdir -p "$1" &&
	mount -t tmpfs -o size=256k dc-test-full "$1" &&
	test_when_finished "umount \"$PWD/$1\""
}

test_expect_success ROOT 'dc-write on a full disk: one line, exit 1, the members written stay readable' '
	small_disk full &&
	dc-mkstream --synthetic 200000 >in.dcs &&
	test_must_fail_with 1 dc-write --level 1 --chunk-size 64K -i in.dcs full/t.pfw.gz 2>err &&
	test_one_line err &&
	grep "No space left on device" err &&
	{ dc-write --check full/t.pfw.gz >check 2>check.err; rc=$?; } &&
	test $rc = 3 -o $rc = 4 &&
	grep -v "^ " check | grep "full/t.pfw.gz: " &&
	gzip -dc full/t.pfw.gz 2>/dev/null | head -n 3 | grep "\"name\":\"start\""
'

test_expect_success ROOT,BPF 'dc-collect -o on a full disk: one line, exit 1, the command runs to its end' '
	small_disk full &&
	{ dc-collect -k "$SHARED/key" -o full/out.dcs "$SHARED/p.sig" -- \
		sh -c "\"$WORKLOAD\" writes 100000 && touch \"$PWD/finished\"" 2>err; echo $? >rc; } &&
	test "$(cat rc)" = 1 &&
	grep "cannot write the stream to full/out.dcs; stopping: No space left on device" err &&
	test -e finished
'

test_expect_success 'a closed pipe: dc-aggregate and dc-write say so in one line, exit 1, no SIGPIPE death' '
	dc-mkstream --synthetic 200000 >in.dcs &&
	{ dc-aggregate <in.dcs 2>agg.err; echo $? >agg.rc; } | head -c 100 >/dev/null &&
	test "$(cat agg.rc)" = 1 &&
	test_one_line agg.err &&
	grep -i "broken pipe" agg.err &&
	{ dc-write --plain -i in.dcs - 2>w.err; echo $? >w.rc; } | head -c 100 >/dev/null &&
	test "$(cat w.rc)" = 1 &&
	test_one_line w.err
'

test_expect_success BPF,PYTHON3 'a consumer stalled for 10 s: the command never waits, every loss is counted' '
	mkfifo s1 s2 &&
	{ dc-collect -k "$SHARED/key" --ring-size 64K --ready-file ready "$SHARED/p.sig" -- \
		sh -c "while test ! -e \"$PWD/go\"; do sleep 0.05; done &&
			\"$WORKLOAD\" writes 100000 /dev/null && touch \"$PWD/finished\"" \
		>s1 2>collect.err & } &&
	cpid=$! &&
	{ dc-aggregate <s1 >s2 2>aggregate.err & } &&
	apid=$! &&
	{ dc-write -i s2 t.pfw.gz 2>write.err & } &&
	wpid=$! &&
	test_when_finished "kill -CONT $apid 2>/dev/null; test_kill_pid $cpid dc-collect; test_kill_pid $apid dc-aggregate; test_kill_pid $wpid dc-write" &&
	wait_for_file ready &&
	kill -STOP $apid &&
	stopped=$(date +%s) &&
	# The writes begin only once the consumer is stopped: on a fast
	# machine 100000 of them take less than the ready file poll.
	touch go &&
	# The command ends while the consumer is stopped: it was never
	# held up by the stall (the collector drops instead).
	wait_for_file finished 120 &&
	test "$(awk "{ print \$3 }" /proc/$apid/stat)" = T &&
	while test $(( $(date +%s) - stopped )) -lt 10; do sleep 1; done &&
	kill -CONT $apid &&
	wait $cpid && wait $apid && wait $wpid &&
	# Exact: every write the command issued is in the trace or counted
	# as a drop of the write probe.
	dropped=$(gzip -dc t.pfw.gz | python3 -c "
import json, sys
for line in sys.stdin:
    if line.startswith(\"{\") and \"\\\"dropped\\\"\" in line:
        o = json.loads(line)
        if o[\"name\"] == \"dropped\" and o[\"args\"][\"kind\"] == \"probe\":
            print(o[\"args\"][\"by\"].get(\"sys/write\", 0))
") &&
	test "$dropped" -gt 0 &&
	got=$(pfw-query count t.pfw.gz --cat sys --name write) &&
	echo "captured $got, dropped $dropped" &&
	test $((got + dropped)) = 100000 &&
	grep "events dropped: the ring buffer was full" collect.err
'

test_done

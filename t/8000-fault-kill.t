#!/bin/sh
# Faults: each stage of the pipeline SIGKILLed mid-run.  The traced
# command always runs to its end, and the trace is readable and says what
# was lost (issue 13 items 2, 3 and the fault tests).
. "$(dirname "$0")/test-lib.sh"

APP="$DC_BUILD_DIR/t/helpers/fault-app"

test_expect_success 'setup: a key and a spec of the write syscall' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	write_layer >"$SHARED/c.yaml" &&
	dc-gen "$SHARED/c.yaml" >p.json &&
	dc-sign -k "$SHARED/key" -o "$SHARED/p.sig" p.json
'

# start_pipeline: dc-collect | dc-aggregate | dc-write t.pfw.gz, joined
# by FIFOs so each stage has a pid of its own (cpid, apid, wpid), around
# "fault-app phases F 10 ."; waits until the first phase is done and the
# stream has reached dc-write, which creates t.pfw.gz once it has the
# header.  (dc-aggregate passes the header on with the first frame after
# it: killed before that frame came, it leaves dc-write nothing to write,
# which under the sanitizers happened now and then.)
start_pipeline() {
	mkfifo s1 s2 || return 1
	dc-collect -k "$SHARED/key" --ready-file ready "$SHARED/p.sig" -- \
		"$APP" phases "$PWD/F" 10 "$PWD" >s1 2>collect.err &
	cpid=$!
	dc-aggregate <s1 >s2 2>aggregate.err &
	apid=$!
	dc-write --flush-interval 1 -i s2 t.pfw.gz 2>write.err &
	wpid=$!
	test_when_finished "test_kill_pid $cpid dc-collect; test_kill_pid $apid dc-aggregate; test_kill_pid $wpid dc-write; touch go" &&
	wait_for_file phase1 60 &&
	wait_for_file t.pfw.gz 60
}

# app_finished: the command ran its second phase after the kill.
app_finished() {
	touch go &&
	wait_for_file finished 120 &&
	test "$(stat -c %s F)" = $((20 * 4096))
}

test_expect_success BPF,PYTHON3 'collector SIGKILLed: the command goes on; the trace says events were lost' '
	start_pipeline &&
	kill -KILL $cpid &&
	app_finished &&
	wait $wpid &&
	grep "no end frame" aggregate.err &&
	pfw-query list t.pfw.gz --name end >end &&
	grep "\"truncated\": true" end &&
	grep "\"dropped_unknown\": true" end &&
	grep "unknown number of events after the last frame" end &&
	n=$(pfw-query count t.pfw.gz --cat sys --name write --file "$PWD/F") &&
	test "$n" -le 10 &&
	dc-write --check t.pfw.gz >check &&
	grep "t.pfw.gz: valid" check &&
	dc-write --summary t.pfw.gz >summary &&
	grep "unknown number after the last frame" summary
'

test_expect_success BPF,PYTHON3 'dc-aggregate SIGKILLed: the collector stops, the command goes on' '
	start_pipeline &&
	kill -KILL $apid &&
	app_finished &&
	{ wait $wpid; test $? = 3; } &&
	{ wait $cpid; test $? = 1; } &&
	# Its first failed write says the reader is gone: a batch of the
	# second phase ("reader went away; stopping"), or, when the command
	# ended before the collector wrote one, the end of the stream.
	grep ": Broken pipe$" collect.err &&
	pfw-query list t.pfw.gz --name end >end &&
	grep "\"dropped_unknown\": true" end &&
	dc-write --check t.pfw.gz
'

test_expect_success BPF,PYTHON3 'dc-write SIGKILLed: the command goes on; the trace reads as incomplete' '
	start_pipeline &&
	# Wait until a member is on disk (the idle flush, 1 s).
	tries=0 &&
	while test "$(stat -c %s t.pfw.gz 2>/dev/null || echo 0)" -lt 20; do
		tries=$((tries + 1)) && test $tries -lt 600 && sleep 0.1 || break
	done &&
	kill -KILL $wpid &&
	app_finished &&
	# The collector stops at its first failed write, or ends normally
	# when its last frames fit in the pipe: either way it is done.
	{ wait $cpid; wait $apid; true; } &&
	test_must_fail_with 3 dc-write --check t.pfw.gz >check 2>err &&
	grep "t.pfw.gz: incomplete" check &&
	grep "no end record" err
'

test_expect_success BPF,PYTHON3 'a command that segfaults: complete stream, its events, status 139' '
	dc-collect -k "$SHARED/key" "$SHARED/p.sig" -- "$APP" crash "$PWD/F" 25 \
		2>collect.err | dc-aggregate | dc-write t.pfw.gz;
	test "$(pfw-query count t.pfw.gz --cat sys --name write --file "$PWD/F")" = 25 &&
	dc-write --check t.pfw.gz >check &&
	grep "valid" check &&
	pfw-query list t.pfw.gz --name end >end &&
	grep "\"truncated\": false" end &&
	{ dc-collect -k "$SHARED/key" "$SHARED/p.sig" -- "$APP" crash "$PWD/G" 1 \
		2>/dev/null; echo $? >rc; } | cat >/dev/null &&
	test "$(cat rc)" = 139
'

test_expect_success BPF,PYTHON3 'a command that calls _exit: complete stream, its status' '
	{ dc-collect -k "$SHARED/key" "$SHARED/p.sig" -- "$APP" exit "$PWD/F" 9 7 \
		2>collect.err; echo $? >rc; } | dc-aggregate | dc-write t.pfw.gz &&
	test "$(cat rc)" = 7 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name write --file "$PWD/F")" = 9 &&
	! grep "never flushed" collect.err &&
	dc-write --check t.pfw.gz
'

test_done

#!/bin/sh
# Which threads are traced, through the collector's per-CPU answer to "is
# this thread selected?" (collect.bpf.c): a process selected after it
# started is traced from then on, one running beside a traced one never.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success BPF,PYTHON3 'a running process selected with --pid: every open, write and close after that' '
	"$WORKLOAD" spin 600 "$PWD/S" &
	spinner=$! &&
	test_when_finished "test_kill_pid $spinner workload" &&
	sleep 0.5 &&
	printf "layers: [syscalls]\n" >c.yaml &&
	{ trace c.yaml t.pfw.gz --pid $spinner --ready-file ready probes.sig & } &&
	tracer=$! &&
	wait_for_file ready 300 &&
	# 60 lines written while traced (0.6 s on a quiet machine; a
	# loaded one or a sanitized collector may take much longer to get
	# ready, so no fixed run time), then the spinner is stopped and
	# the collector ends with it.
	n0=$(wc -l <S) &&
	tries=0 &&
	while test $(wc -l <S) -lt $((n0 + 60)) && test $tries -lt 3000; do
		sleep 0.1; tries=$((tries + 1))
	done &&
	kill $spinner &&
	{ wait $spinner; true; } &&
	wait $tracer &&
	test "$(cat collect.rc)" = 0 &&
	o=$(pfw-query count t.pfw.gz --cat sys --name openat --file "$PWD/S" --pid $spinner) &&
	w=$(pfw-query count t.pfw.gz --cat sys --name write --file "$PWD/S" --pid $spinner --arg ret=5) &&
	c=$(pfw-query count t.pfw.gz --cat sys --name close --file "$PWD/S" --pid $spinner) &&
	echo "open $o write $w close $c, $(wc -l <S) lines in all" &&
	test "$w" -ge 50 &&
	test $((o - w)) -ge -1 && test $((o - w)) -le 1 &&
	test $((c - w)) -ge -1 && test $((c - w)) -le 1
'

test_expect_success BPF,PYTHON3 'a loop beside a traced one: the traced loop complete, the other absent' '
	"$WORKLOAD" syswrites 300000 "$PWD/B" &
	bystander=$! &&
	test_when_finished "test_kill_pid $bystander workload" &&
	printf "layers: [syscalls]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" syswrites 200000 "$PWD/T" &&
	wait $bystander &&
	test "$(cat collect.rc)" = 0 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name write --file "$PWD/T" --arg ret=1)" = 200000 &&
	test "$(pfw-query count t.pfw.gz --pid $bystander)" = 0
'

test_done

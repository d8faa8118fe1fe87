#!/bin/sh
# dc-collect: what it says without privileges, and the -o file it leaves
# (none) when tracing never started (issue 13 items 4 and 8).
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq SETPRIV '
	command -v setpriv >/dev/null || { echo "setpriv not installed"; false; }
'

test_expect_success 'setup: a key and a spec' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	printf "layers: [syscalls]\n" >c.yaml &&
	dc-gen c.yaml >p.json &&
	dc-sign -k "$SHARED/key" -o "$SHARED/p.sig" p.json &&
	chmod 644 "$SHARED/p.sig"
'

test_expect_success BPF,SETPRIV 'not root: "needs root or CAP_BPF and CAP_PERFMON", exit 1' '
	chmod 755 . &&
	test_must_fail_with 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all dc-collect "$SHARED/p.sig" -- true >out 2>err &&
	test_one_line err &&
	grep "permission denied: loading BPF programs needs root (or CAP_BPF and CAP_PERFMON)" err &&
	! grep "ring buffer" err &&
	test ! -s out
'

test_expect_success BPF,SETPRIV 'not root: --check-kernel says the same' '
	test_must_fail_with 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all dc-collect --check-kernel >out 2>err &&
	grep "ring buffer not permitted" out &&
	grep "cannot collect: permission denied" out
'

test_expect_success BPF 'a --pid that is not there: no -o file is left' '
	test_must_fail_with 1 dc-collect -k "$SHARED/key" -o out.dcs --pid 2147483646 \
		"$SHARED/p.sig" 2>err &&
	grep "no process 2147483646" err &&
	test ! -e out.dcs
'

test_expect_success BPF 'a command that cannot run: no -o file is left' '
	test_must_fail_with 127 dc-collect -k "$SHARED/key" -o out.dcs \
		"$SHARED/p.sig" -- ./no-such-command 2>err &&
	test ! -e out.dcs
'

test_expect_success BPF 'a bad spec or key: no -o file is created' '
	echo "{}" >bad.sig &&
	{ dc-collect -k "$SHARED/key" -o out.dcs bad.sig -- true 2>err; rc=$?; } &&
	test $rc = 4 -o $rc = 5 &&
	test ! -e out.dcs &&
	test_must_fail_with 1 dc-collect -k nokey -o out.dcs "$SHARED/p.sig" -- true 2>err &&
	test ! -e out.dcs
'

test_expect_success BPF 'a 4G ring is refused before anything is created' '
	test_must_fail_with 2 dc-collect -k "$SHARED/key" -o out.dcs --ring-size 4G \
		"$SHARED/p.sig" -- true 2>err &&
	test ! -e out.dcs
'

test_expect_success BPF 'a traced run keeps its -o file' '
	dc-collect -k "$SHARED/key" -o out.dcs "$SHARED/p.sig" -- true 2>err &&
	test -s out.dcs &&
	dc-aggregate <out.dcs | dc-write t.pfw &&
	tail -n 1 t.pfw | grep "\"truncated\":false"
'

# SIGINT as the collector found it: ignored in a job started in the
# background of a script (sh does that), default at a terminal.
# traced_sigign ign|dfl: the mask of signals a traced cat ignores, the
# collector started with SIGINT ignored (ign) or not (dfl).
traced_sigign() {
	python3 -c "import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN if sys.argv[1] == \"ign\" else signal.SIG_DFL)
os.execvp(sys.argv[2], sys.argv[2:])" "$1" \
		dc-collect -k "$SHARED/key" -o "$1.dcs" "$SHARED/p.sig" -- \
		cat /proc/self/status >"$1.status" 2>"$1.err" &&
	sed -n "s/^SigIgn:[[:space:]]*//p" "$1.status"
}

test_expect_success BPF,PYTHON3 'the command finds SIGINT as the collector did: ignored, or not' '
	ign=$(traced_sigign ign) && dfl=$(traced_sigign dfl) &&
	echo "ignored with it ignored: $ign, default: $dfl" &&
	test $((0x$ign & 2)) = 2 &&
	test $((0x$dfl & 2)) = 0 &&
	test $((0x$ign & 0x4000)) = 0
'

test_done

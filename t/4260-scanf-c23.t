#!/bin/sh
# C23's fscanf: from glibc 2.38 on, <stdio.h> names fscanf
# __isoc23_fscanf in a program built with -std=c2x or later, or with
# _GNU_SOURCE (as g++ builds every program), as it names it
# __isoc99_fscanf in one built for C99.  Its calls never reach fscanf's
# or __isoc99_fscanf's code: the stdio layer probes it, and the client
# library wraps it, as fscanf, where libc has it (lib/checking.h), and
# only there.
#
# An older glibc has no __isoc23_fscanf.  There, a stand-in of glibc
# 2.38's plays its part: a library named libc.so.isoc23 (the collector
# takes a library named libc.so* for libc, whose functions the client
# library records) with glibc's versions, GLIBC_2.38's __isoc23_fscanf
# and __isoc23_vfscanf (doing the work of the host's C99 vfscanf) and
# an fscanf, the function the stdio layer asks for; a program linked to
# it calls __isoc23_fscanf as a program built against glibc 2.38 calls
# libc's.  Where the host's libc has it, the real one is traced too.
. "$(dirname "$0")/test-lib.sh"

LIB23="$SHARED/libc.so.isoc23"

test_lazy_prereq CC '
	command -v cc >/dev/null || { echo "no C compiler"; false; }
'

# ISOC23: the host's libc has C23's fscanf (glibc 2.38 or later).
test_lazy_prereq ISOC23 '
	test -n "$(dc-explore --offsets --match "^__isoc23_fscanf\$" "$(libc_path)")" ||
	{ echo "this libc has no __isoc23_fscanf (glibc before 2.38)"; false; }
'

# scan_program FUNCTION [DECLARATION]: a C program that reads two
# numbers with FUNCTION from the file argv[1], which holds one, and
# prints both results and the number: "1 42 -1".
scan_program() {
	cat <<-EOF
	#include <stdio.h>

	${2:-}

	int main(int argc, char **argv)
	{
		FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
		int n = 0, m = 0, r1, r2;

		if (f == NULL)
			return 2;
		r1 = $1(f, "%d", &n);
		r2 = $1(f, "%d", &m);
		printf("%d %d %d\\n", r1, n, r2);
		return fclose(f) != 0;
	}
	EOF
}

# two_fscanf_calls: in t.txt and u.txt (traced_both's), the program's two
# calls, each as fscanf: one read a number, one met the end.
two_fscanf_calls() {
	for t in t.txt u.txt; do
		test "$(count_calls $t STDIO fscanf)" = 2 &&
		test "$(count_calls $t STDIO fscanf "" 1)" = 1 &&
		test "$(count_calls $t STDIO fscanf "" -1)" = 1 ||
		{ echo "$t:"; grep "^call " $t; return 1; }
	done
}

# stdio_of TARGET: a dc-gen config of the stdio layer's fscanf in TARGET.
stdio_of() {
	printf "layers:\n  - name: stdio\n    target: %s\n    functions: [fscanf]\n" "$1"
}

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success CC 'setup: a stand-in libc with the C23 fscanf, and a program that calls it' '
	cat >lib23.c <<-\EOF &&
	#include <stdarg.h>
	#include <stdio.h>

	int __isoc23_vfscanf(FILE *f, const char *fmt, va_list ap)
	{
		return vfscanf(f, fmt, ap);
	}

	int __isoc23_fscanf(FILE *f, const char *fmt, ...)
	{
		va_list ap;
		int r;

		va_start(ap, fmt);
		r = vfscanf(f, fmt, ap);
		va_end(ap);
		return r;
	}

	int old_fscanf(FILE *f, const char *fmt, ...) __asm__("fscanf");
	int old_fscanf(FILE *f, const char *fmt, ...)
	{
		va_list ap;
		int r;

		va_start(ap, fmt);
		r = vfscanf(f, fmt, ap);
		va_end(ap);
		return r;
	}
	EOF
	cat >lib23.map <<-\EOF &&
	GLIBC_2.2.5 { global: fscanf; local: *; };
	GLIBC_2.38 { global: __isoc23_fscanf; __isoc23_vfscanf; } GLIBC_2.2.5;
	EOF
	cc -shared -fPIC -Wl,-soname,libc.so.isoc23 -Wl,--version-script=lib23.map \
		-o "$LIB23" lib23.c &&
	scan_program __isoc23_fscanf \
		"int __isoc23_fscanf(FILE *f, const char *fmt, ...);" >scan23.c &&
	cc -o "$SHARED/scan23" scan23.c -L"$SHARED" -l:libc.so.isoc23 \
		-Wl,-rpath,"$SHARED" &&
	echo 42 >"$SHARED/in" &&
	test "$("$SHARED/scan23" "$SHARED/in")" = "1 42 -1" &&
	if command -v nm >/dev/null; then
		nm -D "$SHARED/scan23" | grep " U __isoc23_fscanf@GLIBC_2.38\$" &&
		nm -D "$LIB23" | grep " T __isoc23_fscanf@@GLIBC_2.38\$"
	fi
'

# check_c23_probe SPEC LIBRARY: SPEC has fscanf, and right after it
# __isoc23_fscanf at LIBRARY's offset (dc-explore's), recorded as fscanf
# with its plan, its two arguments from the first two registers.
check_c23_probe() {
	off=$(dc-explore --offsets --match "^__isoc23_fscanf\$" "$2" | cut -d" " -f1) &&
	test -n "$off" &&
	python3 - "$1" "$(readlink -f "$2")" "$((off))" <<-\PY
	import json, sys
	ps = json.load(open(sys.argv[1]))["probes"]
	names = [p["function"] for p in ps]
	p = ps[names.index("__isoc23_fscanf")]
	base = ps[names.index("fscanf")]
	assert names.index("__isoc23_fscanf") == names.index("fscanf") + 1 or \
	    names.index("__isoc23_fscanf") == names.index("fscanf") + 2, names
	assert p["as"] == "fscanf" and p.get("regs", [0, 1]) == [0, 1], p
	assert (p["layer"], p["kind"], p["target"]) == ("STDIO", "uprobe", sys.argv[2]), p
	assert p["offset"] == int(sys.argv[3]) != base["offset"], (p, base)
	assert (p["args"], p["ret"]) == (base["args"], base["ret"]), (p, base)
	PY
}

test_expect_success CC,PYTHON3 'dc-gen: a library with __isoc23_fscanf has it probed, as fscanf' '
	stdio_of "$LIB23" >c.yaml &&
	dc-gen c.yaml >spec.json 2>err &&
	test ! -s err &&
	test "$(dc-gen --check spec.json)" = "spec.json: 2 probes" &&
	check_c23_probe spec.json "$LIB23"
'

# Absent: no probe, no warning; present: probed (as above).
test_expect_success LIBC,PYTHON3 'dc-gen: the stdio layer in this libc: __isoc23_fscanf probed if it has it, quietly left out if not' '
	dc-gen --layers stdio >spec.json 2>err &&
	test ! -s err &&
	if test -n "$(dc-explore --offsets --match "^__isoc23_fscanf\$" "$(libc_path)")"
	then
		check_c23_probe spec.json "$(libc_path)"
	else
		! grep -q __isoc23 spec.json
	fi
'

# traced_both CONFIG PROGRAM ARGS...: PROGRAM traced with the spec of
# CONFIG through the client library (t.txt) and through uprobes alone
# (u.txt): the client records every probe of the spec (which has only
# fscanf's); the same calls either way.
traced_both() {
	_cfg=$1
	shift
	sign_spec "$_cfg" &&
	n=$(dc-gen --check probes.json | sed -n "s/^probes.json: \([0-9]*\) probes\$/\1/p") &&
	{ dc-collect -k "$SHARED/key" probes.sig -- "$@" 2>collect.err; echo $? >collect.rc; } |
		dc-aggregate --text >t.txt &&
	cat collect.err &&
	test "$(cat collect.rc)" = 0 &&
	grep -q "fast path: $n functions recorded by the client library" collect.err &&
	! grep "stays a uprobe" collect.err &&
	dc-collect -k "$SHARED/key" --no-preload probes.sig -- "$@" 2>collect.err |
		dc-aggregate --text >u.txt
}

# Two calls, 1 and EOF (-1), each once, on both paths.  Before, dc-gen
# probed no __isoc23_fscanf and neither path recorded a call.
test_expect_success BPF,CC,PYTHON3 'a program calling __isoc23_fscanf: each call recorded as fscanf, by the client and by uprobes' '
	stdio_of "$LIB23" >c.yaml &&
	traced_both c.yaml "$SHARED/scan23" "$SHARED/in" &&
	check_c23_probe probes.json "$LIB23" &&
	two_fscanf_calls
'

# The real one, where the host has it: a program built for C23 calls it
# for fscanf.
test_expect_success BPF,CC,ISOC23,PYTHON3 'this libc'"'"'s __isoc23_fscanf, called by a program built for C23: recorded as fscanf' '
	scan_program fscanf >c23.c &&
	cc -std=c2x -o c23 c23.c &&
	test "$(./c23 "$SHARED/in")" = "1 42 -1" &&
	if command -v nm >/dev/null; then
		nm -D c23 | grep " U __isoc23_fscanf@"
	fi &&
	stdio_of "$(libc_path)" >c.yaml &&
	traced_both c.yaml ./c23 "$SHARED/in" &&
	check_c23_probe probes.json "$(libc_path)" &&
	two_fscanf_calls
'

test_done

#!/bin/sh
# stdin and stdout, which a call uses without naming them (printf,
# vprintf, puts, putchar, getchar, scanf as C99 names it, and printf's
# and vprintf's checking versions), and reads by the character (fgetc, getc), in the stdio
# layer on both paths (the client library's wrappers and uprobes): each
# call with its return and its file, the bytes of each file against its
# size, against the workload's own record of what each call returned.
. "$(dirname "$0")/test-lib.sh"

STD="$DC_BUILD_DIR/t/helpers/stdstreams"

q() {
	pfw-query "$@"
}

test_expect_success 'setup: a signing key and the input' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	printf "stdin: 20 bytes ...\n" >"$TRASH_DIRECTORY/stdin.txt" &&
	printf "a file of 17 bytes" | head -c 17 >"$TRASH_DIRECTORY/in.txt" &&
	test $(wc -c <"$TRASH_DIRECTORY/stdin.txt") = 20 &&
	test $(wc -c <"$TRASH_DIRECTORY/in.txt") = 17
'

# The workload's calls of these functions, in time order: "name ret",
# as the workload writes them.
calls() {
	trace_calls "$1" STDIO scanf getchar fgetc printf vprintf puts putchar
}

# The workload's stdin and stdout are a shell's redirections, which the
# posix layer sees (open, dup2): with the stdio layer alone they are
# named by /proc, read when the collector reaches the exec, which a
# collector that is slow to get there (ASan, a loaded host) can find
# the program gone by (dc-aggregate(1)).
D=$TRASH_DIRECTORY
for path in fast uprobe; do
	opt=
	test $path = uprobe && opt=--no-preload
	test_expect_success BPF,PYTHON3 "$path: trace the workload" "
		mkdir \"\$D/$path\" &&
		layers stdio posix >c.yaml &&
		trace_ok c.yaml \"\$D/$path.pfw.gz\" $opt probes.sig -- \
			sh -c \"exec \\\"$STD\\\" \\\"\$D/in.txt\\\" \\\"\$D/$path/re.out\\\" <\\\"\$D/stdin.txt\\\" >\\\"\$D/$path/so.out\\\" 2>\\\"\$D/$path.log\\\"\" &&
		test \$(wc -c <\"\$D/$path/so.out\") = 55 &&
		test \$(wc -c <\"\$D/$path/re.out\") = 9 &&
		if test $path = fast
		then
			grep -q \"fast path: [0-9]* functions recorded\" collect.err
		fi
	"

	test_expect_success BPF,PYTHON3 "$path: every call, with what it returned" "
		calls \"\$D/$path.pfw.gz\" >got &&
		test_cmp \"\$D/$path.log\" got
	"

	test_expect_success BPF,PYTHON3 "$path: stdout's calls named by its file; their bytes its size" "
		T=\$D/$path.pfw.gz F=\$D/$path/so.out &&
		test \$(q count \"\$T\" --cat STDIO --name printf --file \"\$F\" --arg ret=11 --arg bytes=11) = 1 &&
		test \$(q count \"\$T\" --cat STDIO --name printf --file \"\$F\" --arg ret=3 --arg bytes=3) = 1 &&
		test \$(q count \"\$T\" --cat STDIO --name vprintf --file \"\$F\" --arg ret=16 --arg bytes=16) = 1 &&
		test \$(q count \"\$T\" --cat STDIO --name vprintf --file \"\$F\" --arg ret=12 --arg bytes=12) = 1 &&
		test \$(q count \"\$T\" --cat STDIO --name puts --file \"\$F\" --arg ret=12 --arg bytes=12) = 1 &&
		test \$(q count \"\$T\" --cat STDIO --name putchar --file \"\$F\" --arg ret=33 --arg bytes=1) = 1 &&
		n=0 &&
		for f in printf vprintf puts putchar; do
			n=\$((n + \$(q sum \"\$T\" bytes --cat STDIO --name \$f --file \"\$F\"))) || return 1
		done &&
		test \$n = \$(wc -c <\"\$F\")
	"

	test_expect_success BPF,PYTHON3 "$path: the same stream reopened is named by its new file" "
		T=\$D/$path.pfw.gz &&
		test \$(q count \"\$T\" --cat STDIO --name printf --file \"\$D/$path/re.out\" --arg ret=9 --arg bytes=9) = 1 &&
		test \$(q count \"\$T\" --cat STDIO --name printf) = 3
	"

	test_expect_success BPF,PYTHON3 "$path: stdin's word by scanf, the rest by the character: one byte each, none at the end" "
		T=\$D/$path.pfw.gz &&
		test \$(q count \"\$T\" --cat STDIO --name scanf --file \"\$D/stdin.txt\" --arg ret=1) = 1 &&
		test \$(q count \"\$T\" --cat STDIO --name getchar --file \"\$D/stdin.txt\") = 16 &&
		test \$(q sum \"\$T\" bytes --cat STDIO --name getchar --file \"\$D/stdin.txt\") = 15 &&
		test \$(q count \"\$T\" --cat STDIO --name getchar --arg ret=-1 --arg bytes=0) = 1 &&
		test \$(q count \"\$T\" --cat STDIO --name fgetc --file \"\$D/in.txt\") = 18 &&
		test \$(q sum \"\$T\" bytes --cat STDIO --name fgetc --file \"\$D/in.txt\") = 17 &&
		test \$(q count \"\$T\" --cat STDIO --name fgetc --arg ret=-1 --arg bytes=0) = 1 &&
		dc-write --summary --top 0 \"\$T\" >summary &&
		grep -E \"^STDIO +fgetc +18 +17 .* \$D/in.txt\\\$\" summary
	"
done

# GNU programs write their output with the stream functions that take
# no lock (fwrite_unlocked, fputs_unlocked...): coreutils' seq and sort,
# real programs, each traced both ways; their STDIO bytes to their
# output are its size (the posix layer too, as above).
# GNU_COREUTILS: seq and sort are GNU's, linked to libc (the VM root's
# are a static busybox).
gnu_tool() {
	_b=$(command -v "$1") && grep -q ld-linux "$_b" && grep -q fwrite_unlocked "$_b"
}
test_lazy_prereq GNU_COREUTILS '
	gnu_tool seq && gnu_tool sort ||
	{ echo "seq and sort here are not GNU coreutils linked to libc"; false; }
'

for path in fast uprobe; do
	opt=
	test $path = uprobe && opt=--no-preload
	test_expect_success BPF,PYTHON3,GNU_COREUTILS "$path: seq and sort: their STDIO bytes are their output's size" "
		layers stdio posix >c.yaml &&
		seq 3000 -1 1 >in &&
		trace_ok c.yaml seq.pfw.gz $opt probes.sig -- sh -c 'exec seq 1 3000 >seq.out' &&
		trace_ok c.yaml sort.pfw.gz $opt probes.sig -- sh -c 'exec sort -n in >sort.out' &&
		test_cmp seq.out sort.out &&
		for t in seq sort; do
			dc-write --summary --top 0 \$t.pfw.gz >\$t.summary &&
			n=\$(awk -v f=\"\$PWD/\$t.out\" '\$1 == \"STDIO\" && \$NF == f { s += \$4 } END { print s + 0 }' \$t.summary) &&
			test \$n = \$(wc -c <\$t.out) &&
			test \$(q count \$t.pfw.gz --cat STDIO --name fwrite_unlocked --file \"\$PWD/\$t.out\") -ge 1 ||
			return 1
		done
	"
done

# A plan's stdout in a library without that variable: said in one line,
# the call recorded all the same, its stream unnamed.
test_expect_success BPF,PYTHON3 'stdout in a library that has none: one warning, the call still recorded' '
	cat >z.yaml <<-\EOF &&
	layers:
	  - name: z
	    kind: uprobe
	    target: libz.so.1
	    include: ["^zlibVersion$"]
	    args:
	      zlibVersion: {args: [stdout], ret: handle}
	EOF
	trace_ok z.yaml z.pfw.gz --no-preload probes.sig -- python3 -c "import zlib; zlib.ZLIB_RUNTIME_VERSION" &&
	grep "^dc-collect: probe zlibVersion: .*libz.so.* has no stdout: the stream it uses goes unnamed\$" collect.err &&
	test $(grep -c "stdout" collect.err) = 1 &&
	test $(q count z.pfw.gz --cat z --name zlibVersion) -ge 1 &&
	q list z.pfw.gz --cat z --name zlibVersion >calls &&
	! grep fhash calls
'

test_done

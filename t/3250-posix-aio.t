#!/bin/sh
# POSIX AIO in the posix layer, on both paths (the client library's
# wrappers and uprobes): each request named by its file, with its size,
# offset and, at aio_return, what it moved and which way, against the
# workload's own record of what each call returned and the file's size.
. "$(dirname "$0")/test-lib.sh"

AIO="$DC_BUILD_DIR/t/helpers/aio"

q() {
	pfw-query "$@"
}

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

# The AIO calls of the workload's main thread, in time order, as the
# workload prints them: "name ret" (aio_suspend left out).
calls() {
	trace_calls "$1" POSIX aio_write aio_return aio_fsync lio_listio \
		aio_read aio_cancel
}

# Each path's trace, of a workload run of its own, in D (each test runs
# in a directory of its own).
D=$TRASH_DIRECTORY
for path in fast uprobe; do
	opt=
	test $path = uprobe && opt=--no-preload
	test_expect_success BPF,PYTHON3 "$path: trace the workload" "
		mkdir \"\$D/$path\" &&
		layers posix >c.yaml &&
		trace_ok c.yaml \"\$D/$path.pfw.gz\" $opt probes.sig -- \
			sh -c \"exec \\\"$AIO\\\" \\\"\$D/$path/a.out\\\" 97 >\\\"\$D/$path.out\\\"\" &&
		test \$(wc -c <\"\$D/$path/a.out\") = 9192 &&
		if test $path = fast
		then
			grep -q \"fast path: [0-9]* functions recorded\" collect.err
		fi
	"

	test_expect_success BPF,PYTHON3 "$path: every AIO call, with what it returned" "
		calls \"\$D/$path.pfw.gz\" >got &&
		test_cmp \"\$D/$path.out\" got
	"

	test_expect_success BPF,PYTHON3 "$path: each request named by its file, with its size and offset" "
		T=\$D/$path.pfw.gz F=\$D/$path/a.out &&
		test \$(q count \"\$T\" --cat POSIX --name aio_write --file \"\$F\" --arg size=4096 --arg offset=0 --arg ret=0) = 1 &&
		test \$(q count \"\$T\" --cat POSIX --name aio_write --file \"\$F\" --arg size=4096 --arg offset=4096 --arg ret=0) = 1 &&
		test \$(q count \"\$T\" --cat POSIX --name aio_write --file \"\$F\" --arg size=1000 --arg offset=8192 --arg ret=0) = 1 &&
		test \$(q count \"\$T\" --cat POSIX --name aio_fsync --file \"\$F\" --arg ret=0) = 1 &&
		test \$(q count \"\$T\" --cat POSIX --name aio_cancel --file \"\$F\" --arg ret=2) = 1 &&
		test \$(q count \"\$T\" --cat POSIX --name lio_listio --arg ret=0) = 1 &&
		test \$(q count \"\$T\" --cat POSIX --name aio_return --file \"\$F\" --arg op=R --arg size=8192 --arg offset=4096 --arg ret=5096) = 1
	"

	test_expect_success BPF,PYTHON3 "$path: aio_return says what moved, and which way: the file's size each way" "
		T=\$D/$path.pfw.gz F=\$D/$path/a.out &&
		test \$(q count \"\$T\" --cat POSIX --name aio_return --file \"\$F\" --arg op=W) = 3 &&
		test \$(q sum \"\$T\" ret --cat POSIX --name aio_return --file \"\$F\" --arg op=W) = 9192 &&
		test \$(q count \"\$T\" --cat POSIX --name aio_return --file \"\$F\" --arg op=R) = 2 &&
		test \$(q sum \"\$T\" ret --cat POSIX --name aio_return --file \"\$F\" --arg op=R) = 9192 &&
		test \$(q count \"\$T\" --cat POSIX --name aio_return --file \"\$F\" --arg op=F --arg ret=0) = 1 &&
		dc-write --summary --top 0 \"\$T\" >summary &&
		grep -E \"^POSIX +aio_return +6 +18384 .* \$F\\\$\" summary
	"

	test_expect_success BPF,PYTHON3 "$path: a request that fails: its descriptor, its aio_return -1" "
		T=\$D/$path.pfw.gz &&
		test \$(q count \"\$T\" --cat POSIX --name aio_read --arg fd=97 --arg size=100 --arg offset=0 --arg ret=0) = 1 &&
		test \$(q count \"\$T\" --cat POSIX --name aio_return --arg fd=97 --arg op=R --arg ret=-1) = 1
	"

	# glibc checks aio_fsync's operation before it reads the request:
	# with none, a pointer to nothing is not read, by glibc or the
	# profiler (reading it first would fault).
	test_expect_success BPF,PYTHON3 "$path: a pointer the call does not read is not read" "
		T=\$D/$path.pfw.gz &&
		test \$(q count \"\$T\" --cat POSIX --name aio_fsync --arg fd=-1 --arg ret=-1) = 1
	"
done

# glibc runs the requests on threads of its own with pread and pwrite,
# calls libc makes to itself: uprobes on those functions see them, the
# wrappers do not (dc-wrap(1), BUGS).
test_expect_success BPF,PYTHON3 'glibc threads'"'"' pread and pwrite: by uprobes only' '
	test $(q count "$D/uprobe.pfw.gz" --cat POSIX --name pwrite --file "$D/uprobe/a.out") = 3 &&
	test $(q count "$D/uprobe.pfw.gz" --cat POSIX --name pread --file "$D/uprobe/a.out") = 2 &&
	test $(q count "$D/fast.pfw.gz" --cat POSIX --name pwrite) = 0 &&
	test $(q count "$D/fast.pfw.gz" --cat POSIX --name pread) = 0
'

# dc-config(5)'s example of AIO in a layer of its own, aimed at librt for
# a glibc that has it there, aimed at libc here (where it is): the same
# requests, in its layer, and none in the posix layer, which leaves them
# out (and names the file by its open).
test_lazy_prereq MANPAGES '
	test -r "$DC_SRC_DIR/man/dc-config.5" ||
	{ echo "no man pages here (the VM root has none)"; false; }
'

test_expect_success BPF,PYTHON3,MANPAGES 'a layer of one'"'"'s own, as dc-config(5) shows for librt, records the same' '
	sed -n "/^POSIX AIO in a layer of its own/,/^\.fi/p" "$DC_SRC_DIR/man/dc-config.5" |
		sed -n "/^layers:\$/,\$p" |
		sed "s/^  \\\\-/  -/; s/librt\.so\.1/libc.so.6/; /^\.fi/d" >c.yaml &&
	test_line_count c.yaml 16 &&
	mkdir rt &&
	trace_ok c.yaml rt.pfw.gz --no-preload probes.sig -- "$AIO" "$PWD/rt/a.out" 97 &&
	test $(q count rt.pfw.gz --cat aio --name aio_return --file "$PWD/rt/a.out" --arg op=W) = 3 &&
	test $(q sum rt.pfw.gz ret --cat aio --name aio_return --file "$PWD/rt/a.out" --arg op=R) = 9192 &&
	test $(q count rt.pfw.gz --cat aio --name aio_write --file "$PWD/rt/a.out" --arg size=1000 --arg offset=8192) = 1 &&
	test $(q count rt.pfw.gz --cat POSIX --name open --file "$PWD/rt/a.out") = 1 &&
	test $(q count rt.pfw.gz --cat POSIX --name aio_return) = 0
'

# fio's posixaio engine: a real program's requests, queued four deep
# and polled with aio_error (not probed), each aio_return'ed: 4 MiB of
# 64 KiB requests, its --size, each way to trace it.
test_lazy_prereq FIO '
	command -v fio >/dev/null || { echo "fio is not installed"; false; }
'

test_expect_success BPF,PYTHON3,FIO 'fio (posixaio): every request, and --size in all, by both paths' '
	layers posix >c.yaml &&
	for how in fast uprobe; do
		opt= &&
		if test $how = uprobe; then opt=--no-preload; fi &&
		trace_ok c.yaml fio.$how.pfw.gz $opt probes.sig -- fio --name=w \
			--ioengine=posixaio --rw=write --bs=64k --size=4m --iodepth=4 \
			--filename="$PWD/fio.$how" --output=/dev/null &&
		test $(q count fio.$how.pfw.gz --cat POSIX --name aio_write --file "$PWD/fio.$how" --arg size=65536) = 64 &&
		test $(q count fio.$how.pfw.gz --cat POSIX --name aio_return --file "$PWD/fio.$how" --arg op=W --arg ret=65536) = 64 &&
		test $(q sum fio.$how.pfw.gz ret --cat POSIX --name aio_return --file "$PWD/fio.$how") = 4194304 ||
		return 1
	done
'

# A glibc before 2.34 (RHEL 8's 2.28) has POSIX AIO in librt, not libc:
# the posix layer looks there, beside libc, for what libc lacks.  A
# stand-in of that pair: a libc.so.6 without the functions (only read,
# never run), and beside it a librt.so.1 with glibc's names and version,
# passing each call on to this libc's; the workload linked to it (found
# through a directory of its own, which holds only a link to it).
OLDC=$SHARED/oldc

test_lazy_prereq CC '
	command -v cc >/dev/null || { echo "no C compiler"; false; }
'

test_expect_success CC 'setup: a libc without AIO, its librt with it, and the workload linked to that' '
	mkdir -p "$OLDC/run" &&
	echo "int dc_stand_in_libc;" >oldc.c &&
	cc -shared -fPIC -Wl,-soname,libc.so.6 -o "$OLDC/libc.so.6" oldc.c &&
	cat >rt.c <<-\EOF &&
	#define _GNU_SOURCE
	#include <aio.h>
	#include <dlfcn.h>

	#define PASS(ret, name, params, args) \
		ret name params \
		{ \
			static ret (*real) params; \
			if (!real) \
				real = (ret (*) params)dlsym(RTLD_NEXT, #name); \
			return real args; \
		}

	PASS(int, aio_read, (struct aiocb *cb), (cb))
	PASS(int, aio_write, (struct aiocb *cb), (cb))
	PASS(ssize_t, aio_return, (struct aiocb *cb), (cb))
	PASS(int, aio_suspend, (const struct aiocb *const l[], int n, const struct timespec *t), (l, n, t))
	PASS(int, aio_cancel, (int fd, struct aiocb *cb), (fd, cb))
	PASS(int, aio_fsync, (int op, struct aiocb *cb), (op, cb))
	PASS(int, lio_listio, (int m, struct aiocb *const l[], int n, struct sigevent *s), (m, l, n, s))
	EOF
	echo "GLIBC_2.2.5 { global: aio_*; lio_listio; local: *; };" >rt.map &&
	cc -shared -fPIC -Wl,-soname,librt.so.1 -Wl,--version-script=rt.map \
		-o "$OLDC/librt.so.1" rt.c -ldl &&
	ln -s ../librt.so.1 "$OLDC/run/librt.so.1" &&
	cc -o "$OLDC/aio" "$DC_SRC_DIR/t/helpers/aio.c" -L"$OLDC/run" -l:librt.so.1 \
		-Wl,-rpath,"$OLDC/run" &&
	if command -v nm >/dev/null; then
		nm -D "$OLDC/aio" | grep " U aio_write@GLIBC_2.2.5\$"
	fi
'

test_expect_success CC,PYTHON3 'dc-gen: the posix layer takes POSIX AIO from librt where libc has none' '
	printf "layers:\n  - syscalls\n  - name: posix\n    target: %s\n    include: [\"^aio_\", \"^lio_\"]\n" \
		"$OLDC/libc.so.6" >"$D/old.yaml" &&
	dc-gen "$D/old.yaml" >spec.json 2>err &&
	test ! -s err &&
	python3 - "$(readlink -f "$OLDC/librt.so.1")" <<-\PY
	import json, sys
	ps = [p for p in json.load(open("spec.json"))["probes"] if p["kind"] == "uprobe"]
	names = sorted(p["function"] for p in ps)
	assert names == ["aio_cancel", "aio_fsync", "aio_read", "aio_return",
	                 "aio_suspend", "aio_write", "lio_listio"], names
	for p in ps:
	    assert (p["layer"], p["target"]) == ("POSIX", sys.argv[1]), p
	    assert p["offset"] > 0, p
	PY
'

for path in fast uprobe; do
	opt=
	test $path = uprobe && opt=--no-preload
	test_expect_success BPF,CC,PYTHON3 "librt's AIO, $path: every call, each request by its file" "
		mkdir \"\$D/rt-$path\" &&
		trace_ok \"\$D/old.yaml\" \"\$D/rt-$path.pfw.gz\" $opt probes.sig -- \
			sh -c \"exec \\\"$OLDC/aio\\\" \\\"\$D/rt-$path/a.out\\\" 97 >\\\"\$D/rt-$path.out\\\"\" &&
		if test $path = fast
		then
			grep -q \"fast path: 7 functions recorded\" collect.err
		fi &&
		calls \"\$D/rt-$path.pfw.gz\" >got &&
		test_cmp \"\$D/rt-$path.out\" got &&
		T=\$D/rt-$path.pfw.gz F=\$D/rt-$path/a.out &&
		test \$(q count \"\$T\" --cat POSIX --name aio_write --file \"\$F\" --arg size=1000 --arg offset=8192) = 1 &&
		test \$(q sum \"\$T\" ret --cat POSIX --name aio_return --file \"\$F\" --arg op=W) = 9192 &&
		test \$(q sum \"\$T\" ret --cat POSIX --name aio_return --file \"\$F\" --arg op=R) = 9192
	"
done

test_expect_success BPF,PYTHON3,DASK 'dc-report counts a request'"'"'s bytes at its aio_return, by its operation' '
	dc-report -o fast.html "$D/fast.pfw.gz" 2>report.err &&
	report-query.py fast.html table files-table >files &&
	cat files &&
	grep "^$D/fast/a.out	5	[0-9.]*	9192	9192	" files
'

test_done

#!/bin/sh
# The syscalls layer beyond libc's usual I/O: Linux AIO (io_setup,
# io_submit, io_getevents, io_destroy), preadv2 and pwritev2 with their
# bytes, the hints (fadvise64, readahead), and the metadata calls
# (openat2, statfs, fstatfs, faccessat, access, truncate, getdents64,
# syncfs, sync, close_range), links and attributes (linkat, symlinkat,
# readlinkat, the chmod, chown and utimensat calls), each traced as often as
# t/helpers/dc-sysmore makes it, on the files it names.
. "$(dirname "$0")/test-lib.sh"

SYSMORE="$DC_BUILD_DIR/t/helpers/dc-sysmore"

# trace_sysmore MODE ARG...: dc-sysmore traced by the syscalls layer,
# into t.pfw.gz.
trace_sysmore() {
	printf "layers: [syscalls]\n" >c.yaml &&
	trace_ok c.yaml t.pfw.gz probes.sig -- "$SYSMORE" "$@"
}

# count ARG...: how many system call events of t.pfw.gz pfw-query's
# ARGs select.
count() {
	pfw-query count t.pfw.gz --cat sys "$@"
}

# once NAME FILE: exactly one call NAME on FILE, and it returned 0.
once() {
	test "$(count --name "$1" --file "$2" --arg ret=0)" = 1 ||
	{ echo "$1 on $2: not one call returning 0"; false; }
}

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success PYTHON3 'the syscalls layer plans them, with the kinds that give their bytes and files' '
	printf "layers: [syscalls]\n" >c.yaml &&
	dc-gen c.yaml >p.json &&
	python3 - <<-\EOF
	import json
	p = {x["function"]: x for x in json.load(open("p.json"))["probes"]}
	want = {
	    "preadv2": (["fd", "iov", "int", "offset", "int", "flags"], "size"),
	    "pwritev2": (["fd", "iov", "int", "offset", "int", "flags"], "size"),
	    "io_setup": (["int", "ptr"], "status"),
	    "io_submit": (["ptr", "int", "ptr"], "int"),
	    "io_destroy": (["ptr"], "status"),
	    "openat2": (["fd", "path", "ptr", "int"], "fd"),
	    "close_range": (["fd", "fd", "flags"], "status"),
	    "truncate": (["path", "offset"], "status"),
	    "getdents64": (["fd", "ptr", "int"], "int"),
	    "sync": ([], "status"),
	    "symlinkat": (["str", "fd", "path"], "status"),
	}
	for f, (args, ret) in want.items():
	    assert f in p, f + " not planned"
	    assert (p[f]["args"], p[f]["ret"]) == (args, ret), p[f]
	EOF
'

test_expect_success BPF,PYTHON3 'Linux AIO, preadv2 and pwritev2, fadvise64 and readahead: each call, its file and bytes' '
	trace_sysmore aio "$PWD/a" 16 &&
	test "$(stat -c %s a)" = $((16 * 4096 + 2000)) &&
	test "$(count --name io_setup --arg ret=0)" = 1 &&
	test "$(count --name io_submit --arg ret=1)" = 16 &&
	if grep -q "\"io_getevents\"" probes.json; then
		test "$(count --name io_getevents --arg ret=1)" = 16
	else
		test "$(count --name io_pgetevents --arg ret=1)" = 16
	fi &&
	test "$(count --name io_destroy --arg ret=0)" = 1 &&
	test "$(count --name preadv2 --file "$PWD/a" --size 4096 --arg ret=4096)" = 1 &&
	test "$(count --name pwritev2 --file "$PWD/a" --size 2000 --arg ret=2000)" = 1 &&
	test "$(count --name fadvise64 --file "$PWD/a" --size 65536 --arg ret=0)" = 1 &&
	test "$(count --name readahead --file "$PWD/a" --size 65536 --arg ret=0)" = 1 &&
	dc-write --summary --top 0 t.pfw.gz >sum &&
	cat sum &&
	awk "\$1 == \"sys\" && \$2 == \"preadv2\" { r += \$4 }
	     \$1 == \"sys\" && \$2 == \"pwritev2\" { w += \$4 }
	     END { exit !(r == 4096 && w == 2000) }" sum
'

# The file is made by openat2 relative to the directory's descriptor,
# and named by it.  A close_range with CLOSE_RANGE_CLOEXEC leaves its
# descriptor open, and named: the write after it names the file.  After
# a plain close_range the descriptor names nothing: the failed write on
# it (EBADF) has no file.
test_expect_success BPF,PYTHON3 'openat2, the file system and access calls, truncate, getdents64, syncs, close_range' '
	mkdir d &&
	trace_sysmore meta "$PWD/d" &&
	test "$(stat -c %s d/m)" = 3 &&
	m="$PWD/d/m" &&
	test "$(count --name openat2 --file "$m")" = 1 &&
	test "$(count --name write --file "$m" --arg ret=10)" = 1 &&
	once fstatfs "$m" &&
	once statfs "$m" &&
	once faccessat "$m" &&
	if grep -q "\"access\"" probes.json; then
		once access "$m"
	fi &&
	once truncate "$m" &&
	test "$(count --name getdents64 --file "$PWD/d")" = 1 &&
	once syncfs "$m" &&
	test "$(count --name sync --arg ret=0)" = 1 &&
	test "$(count --name close_range --arg ret=0)" = 2 &&
	test "$(count --name write --file "$m" --arg ret=1)" = 1 &&
	test "$(count --name write --arg ret=-9 --arg errno=9)" = 1 &&
	test "$(pfw-query list t.pfw.gz --cat sys --name write --arg ret=-9 | grep -c fhash)" = 0
'

# Links and attributes, each named by the file it works on: by its
# path (relative to the directory's descriptor for the *at calls), by
# its descriptor (fchmod, fchown, and utimensat with no path, as
# futimens makes it), readlinkat and readlink by the link they read.
test_expect_success BPF,PYTHON3 'links and attributes: linkat, link, symlinkat, symlink, readlinkat, readlink, the chmod, chown and utimensat calls' '
	mkdir l &&
	trace_sysmore links "$PWD/l" &&
	test "$(stat -c %h l/f)" -ge 2 && test "$(readlink l/s)" = f &&
	f="$PWD/l/f" &&
	once linkat "$f" &&
	# Named by the link it makes, not by its target ("f").
	once symlinkat "$PWD/l/s" &&
	test "$(count --name symlinkat --file "$f")" = 0 &&
	test "$(count --name readlinkat --file "$PWD/l/s" --arg ret=1)" = 1 &&
	once fchmodat "$f" &&
	once fchownat "$f" &&
	once fchmod "$f" &&
	once fchown "$f" &&
	test "$(count --name utimensat --file "$f" --arg ret=0)" = 2 &&
	if grep -q "\"link\"" probes.json; then
		once link "$f" &&
		once symlink "$PWD/l/t" &&
		test "$(count --name readlink --file "$PWD/l/t" --arg ret=1)" = 1 &&
		once chmod "$f" &&
		once chown "$f"
	fi
'

test_done

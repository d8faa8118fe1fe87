#!/bin/sh
# dc-gen: shipped configs give valid specs resolved on this host, with the
# argument plans the collector needs; output is deterministic.
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq MPI '
	ls /usr/lib/*/libmpi.so /usr/lib/libmpi.so 2>/dev/null | grep -q . ||
		{ echo "MPI library (libmpi.so) not installed"; false; }
'
hdf5_path() {
	ls /usr/lib/*/libhdf5.so /usr/lib/*/libhdf5_serial.so \
		/usr/lib/*/libhdf5_openmpi.so /usr/lib/libhdf5.so 2>/dev/null | head -n 1
}
test_lazy_prereq HDF5 '
	test -n "$(hdf5_path)" || { echo "HDF5 library not installed"; false; }
'
test_lazy_prereq TRACEFS '
	test -d /sys/kernel/tracing/events || test -d /sys/kernel/debug/tracing/events ||
		{ echo "tracefs not mounted"; false; }
'
# The number the C library gives SYS_name on this architecture.
sys_nr() {
	printf '#include <sys/syscall.h>\nSYS_%s\n' "$1" | cpp -P - | tail -n 1 | tr -d " "
}

test_expect_success 'dc-gen --help, --list-layers, misuse' '
	dc-gen --help >out && grep -q "^Usage: dc-gen" out &&
	dc-gen --list-layers >out &&
	for l in posix stdio mpiio hdf5 syscalls block pagecache net faults iouring kernel; do
		grep -q "^$l " out || return 1
	done &&
	test_must_fail_with 2 dc-gen a.yaml b.yaml 2>err &&
	grep -q "more than one config" err &&
	test_must_fail_with 2 dc-gen --layers nosuch 2>err &&
	grep -q "unknown layer \"nosuch\"" err
'

test_expect_success LIBC 'the default config: valid, checked by lib/spec.c' '
	dc-gen >spec.json &&
	dc-gen --check spec.json >out &&
	grep -q "^spec.json: [1-9][0-9]* probes$" out &&
	dc-gen --default >spec2.json &&
	test_cmp spec.json spec2.json
'

test_expect_success LIBC,PYTHON3 'posix write: libc realpath, the offset dc-explore gives' '
	dc-gen >spec.json &&
	off=$(dc-explore --offsets --match "^write$" libc.so.6 | cut -d" " -f1) &&
	python3 - "$(libc_path)" "$((off))" "$(sys_nr write)" <<-\PY
	import json, sys
	spec = json.load(open("spec.json"))
	assert spec["datacrumbs_probes"] == 1 and spec["mode"] == "trace"
	by = {}
	for p in spec["probes"]:
	    by.setdefault((p["layer"], p["function"]), p)
	w = by[("POSIX", "write")]
	assert w["kind"] == "uprobe" and w["target"] == sys.argv[1], w
	assert w["offset"] == int(sys.argv[2]) and w["offset"] > 0, w
	s = by[("sys", "write")]
	assert s["kind"] == "syscall" and s["nr"] == int(sys.argv[3]), s
	assert "target" not in s, s
	plans = {
	    ("POSIX", "write"): (["fd", "ptr", "size"], "size"),
	    ("POSIX", "pwrite"): (["fd", "ptr", "size", "offset"], "size"),
	    ("POSIX", "open"): (["path", "flags", "mode"], "fd"),
	    ("POSIX", "openat"): (["fd", "path", "flags", "mode"], "fd"),
	    ("POSIX", "close"): (["fd"], "status"),
	    ("POSIX", "lseek"): (["fd", "offset", "whence"], "offset"),
	    ("POSIX", "fsync"): (["fd"], "status"),
	    ("STDIO", "fopen"): (["path", "str"], "handle"),
	    ("STDIO", "fwrite"): (["ptr", "isize", "count", "file"], "items"),
	    ("sys", "write"): (["fd", "ptr", "size"], "size"),
	    ("sys", "openat"): (["fd", "path", "flags", "mode"], "fd"),
	    ("sys", "pwrite64"): (["fd", "ptr", "size", "offset"], "size"),
	}
	for key, (args, ret) in plans.items():
	    p = by[key]
	    assert (p["args"], p["ret"]) == (args, ret), (key, p)
	# no two uprobes at one place, no syscall twice
	ups = [(p["target"], p["offset"]) for p in spec["probes"] if p["kind"] == "uprobe"]
	assert len(ups) == len(set(ups)), "duplicate uprobes"
	nrs = [p["nr"] for p in spec["probes"] if p["kind"] == "syscall"]
	assert len(nrs) == len(set(nrs)), "duplicate syscalls"
	# config order: POSIX, then STDIO, then sys
	layers = [p["layer"] for p in spec["probes"]]
	order = [l for i, l in enumerate(layers) if i == 0 or layers[i - 1] != l]
	assert order == ["POSIX", "STDIO", "sys"], order
	PY
'

# The checking versions a fortified program calls instead of fprintf,
# fread and fgets (lib/checking.h), each probed right after its
# function, at its own offset (dc-explore's), recorded as the function
# with its plan, the arguments from where glibc's prototypes have them:
# __fprintf_chk (FILE *, int flag, const char *format, ...),
# __fread_chk (void *, size_t ptrlen, size_t size, size_t n, FILE *),
# __fgets_chk (char *, size_t size, int n, FILE *).
test_expect_success LIBC,PYTHON3 'stdio: the checking versions of fprintf, vfprintf, printf, vprintf, dprintf, vdprintf, fread, fgets and the C99 fscanf, as those' '
	dc-gen --layers stdio >spec.json 2>err &&
	test ! -s err &&
	dc-gen --check spec.json &&
	for f in __fprintf_chk __vfprintf_chk __printf_chk __vprintf_chk __dprintf_chk __vdprintf_chk __fread_chk __fgets_chk
	do
		off=$(dc-explore --offsets --match "^$f\$" libc.so.6 | cut -d" " -f1) &&
		test -n "$off" &&
		echo "$f $((off))" || return 1
	done >offsets &&
	dc-explore --offsets --match "^__isoc23_fscanf\$" libc.so.6 >c23 &&
	python3 - "$(libc_path)" <<-\PY
	import json, sys
	ps = json.load(open("spec.json"))["probes"]
	offsets = dict(l.split() for l in open("offsets"))
	names = [p["function"] for p in ps]
	want = {"__fprintf_chk": ("fprintf", [0, 2]),
	        "__vfprintf_chk": ("vfprintf", [0, 2]),
	        "__printf_chk": ("printf", [1, 2]),
	        "__vprintf_chk": ("vprintf", [1, 2]),
	        "__dprintf_chk": ("dprintf", [0, 2]),
	        "__vdprintf_chk": ("vdprintf", [0, 2]),
	        "__fread_chk": ("fread", [0, 2, 3, 4]),
	        "__fgets_chk": ("fgets", [0, 2, 3])}
	for chk, (fn, regs) in want.items():
	    p, base = ps[names.index(chk)], ps[names.index(fn)]
	    assert names.index(chk) == names.index(fn) + 1, names
	    # (regs left out: each argument from its own register)
	    assert p["as"] == fn and p.get("regs", list(range(len(p["args"])))) == regs, p
	    assert (p["layer"], p["kind"], p["target"]) == ("STDIO", "uprobe", sys.argv[1]), p
	    assert p["offset"] == int(offsets[chk]) != base["offset"], (p, base)
	    assert (p["args"], p["ret"]) == (base["args"], base["ret"]), (p, base)
	    assert "as" not in base and "regs" not in base, base
	# __fprintf_chk, __vfprintf_chk, __printf_chk, __vprintf_chk,
	# __dprintf_chk, __vdprintf_chk, __fread_chk, __fgets_chk,
	# __isoc99_fscanf, __isoc99_scanf, and the __isoc23_fscanf and
	# __isoc23_scanf of glibc 2.38 on, where this libc has them (t/4260)
	c23 = int("__isoc23_fscanf" in open("c23").read())
	assert sum(1 for p in ps if "as" in p or "regs" in p) == 10 + 2 * c23, ps
	scanf = [p for p in ps if p.get("as") == "scanf"]
	assert [p["function"] for p in scanf][:1] == ["__isoc99_scanf"], scanf
	assert all(p["args"] == ["str", "stdin"] for p in scanf), scanf
	# stdout and stdin: a slot of their own, no argument of the call
	plans = {p["function"]: (p["args"], p["ret"]) for p in ps}
	assert plans["printf"] == (["str", "stdout"], "size"), plans
	assert plans["puts"] == (["ptr", "stdout"], "size"), plans
	assert plans["putchar"] == (["char", "stdout"], "all"), plans
	assert plans["getchar"] == (["stdin"], "char"), plans
	assert plans["fgetc"] == (["file"], "char") and "getc" not in plans, plans
	PY
'

# A plan the checking version can serve (fewer arguments: the first ones
# from where it has them) and one it cannot (more arguments than fread
# has): that probe is left out, with a warning.
test_expect_success LIBC,PYTHON3 'checking versions follow the layer plan, or are left out' '
	cat >plans.yaml <<-\EOF &&
	layers:
	  - name: stdio
	    functions: [fgets, fread, fwrite]
	    args:
	      fgets: {args: [strout, size], ret: handle}
	      fread: {args: [ptr, isize, count, int, int], ret: items}
	EOF
	dc-gen plans.yaml >spec.json 2>err &&
	test_one_line err &&
	grep -q "warning: layer STDIO: a plan of 5 arguments, fread has 4: __fread_chk not probed" err &&
	python3 - <<-\PY
	import json
	ps = json.load(open("spec.json"))["probes"]
	assert [p["function"] for p in ps] == ["fgets", "__fgets_chk", "fread", "fwrite"], ps
	assert ps[1]["as"] == "fgets" and ps[1]["args"] == ["strout", "size"], ps[1]
	assert ps[1]["regs"] == [0, 2], ps[1]
	PY
'

test_expect_success LIBC 'same config, same host: identical bytes' '
	dc-gen "$DC_DATA_DIR/hpc.yaml" >a.json 2>/dev/null &&
	dc-gen "$DC_DATA_DIR/hpc.yaml" >b.json 2>/dev/null &&
	cmp a.json b.json &&
	dc-gen -o c.json "$DC_DATA_DIR/hpc.yaml" 2>/dev/null &&
	cmp a.json c.json
'

test_expect_success LIBC 'hpc.yaml is valid whether or not MPI and HDF5 are here' '
	dc-gen "$DC_DATA_DIR/hpc.yaml" >spec.json &&
	dc-gen --check spec.json
'

test_expect_success MPI,PYTHON3 'hpc.yaml: MPI-IO layer from libmpi' '
	dc-gen "$DC_DATA_DIR/hpc.yaml" >spec.json &&
	lib=$(readlink -f "$(ls /usr/lib/*/libmpi.so /usr/lib/libmpi.so 2>/dev/null | head -n 1)") &&
	off=$(dc-explore --offsets --match "^MPI_File_write_at_all$" "$lib" | cut -d" " -f1) &&
	python3 - "$lib" "$((off))" <<-\PY
	import json, sys
	ps = [p for p in json.load(open("spec.json"))["probes"]
	      if p["function"] == "MPI_File_write_at_all"]
	assert len(ps) == 1, ps
	p = ps[0]
	assert p["layer"] == "MPI" and p["target"] == sys.argv[1], p
	assert p["offset"] == int(sys.argv[2]), p
	assert p["args"] == ["handle", "offset", "ptr", "count", "datatype", "mpistatus"], p
	assert p["ret"] == "code", p
	PY
'

test_expect_success HDF5,PYTHON3 'hpc.yaml: HDF5 layer resolves the installed HDF5' '
	dc-gen "$DC_DATA_DIR/hpc.yaml" >spec.json &&
	python3 - "$(readlink -f "$(hdf5_path)")" <<-\PY
	import json, sys
	ps = [p for p in json.load(open("spec.json"))["probes"] if p["layer"] == "HDF5"]
	names = {p["function"] for p in ps}
	assert {"H5Dwrite", "H5Fcreate", "H5Fclose"} <= names, names
	assert all(p["target"] == sys.argv[1] for p in ps), (ps[0], sys.argv[1])
	PY
'

test_expect_success TRACEFS,PYTHON3 'kernel.yaml: tracepoints that exist here' '
	dc-gen "$DC_DATA_DIR/kernel.yaml" >spec.json &&
	dc-gen --check spec.json &&
	python3 - <<-\PY
	import json, os
	root = "/sys/kernel/tracing" if os.path.isdir("/sys/kernel/tracing/events") \
	    else "/sys/kernel/debug/tracing"
	ps = json.load(open("spec.json"))["probes"]
	assert ps and all(p["kind"] == "tracepoint" for p in ps)
	for p in ps:
	    cat, name = p["function"].split(":")
	    assert p["target"] == cat, p
	    assert os.path.isdir(os.path.join(root, "events", cat, name)), p
	assert {p["layer"] for p in ps} <= {"block", "pagecache", "net", "faults", "io_uring"}
	PY
'

test_expect_success 'kernel.yaml without tracefs: kept, optional, one warning' '
	mkdir -p fake/empty &&
	DC_TRACEFS=$PWD/fake/empty dc-gen "$DC_DATA_DIR/kernel.yaml" >spec.json 2>err &&
	test_one_line err &&
	grep -q "tracefs is not mounted" err &&
	test "$(grep -c "\"optional\": true" spec.json)" = "$(grep -c "\"kind\": \"tracepoint\"" spec.json)"
'

test_expect_success 'a fake tracefs: missing tracepoints are warnings' '
	mkdir -p fake/events/block/block_rq_issue fake/events/block/block_rq_complete &&
	cat >k.yaml <<-\EOF &&
	layers:
	  - name: BLK
	    kind: tracepoint
	    functions: [block:block_rq_issue, block:block_rq_complete, block:nope]
	EOF
	DC_TRACEFS=$PWD/fake dc-gen k.yaml >spec.json 2>err &&
	test_one_line err &&
	grep -q "k.yaml:2:5: warning: layer BLK: no tracepoint block:nope" err &&
	test "$(grep -c "\"kind\": \"tracepoint\"" spec.json)" = 2 &&
	grep -q "\"function\": \"block:block_rq_issue\"" spec.json &&
	! grep -q optional spec.json
'

test_expect_success LIBC '--layers without a config' '
	dc-gen --layers posix,syscalls >spec.json &&
	grep -q "\"layer\": \"POSIX\"" spec.json &&
	grep -q "\"layer\": \"sys\"" spec.json &&
	! grep -q "\"layer\": \"STDIO\"" spec.json
'

test_expect_success LIBC,PYTHON3 'a custom layer: include and exclude regexes, args' '
	cat >c.yaml <<-\EOF &&
	mode: profile
	interval_ms: 250
	layers:
	  - name: MINE
	    kind: uprobe
	    target: libc.so.6
	    include: ["^p(read|write)"]
	    exclude: ["v", "64$"]
	    args:
	      pwrite: {args: [fd, ptr, size, offset], ret: size}
	      "*": {args: [fd], ret: int}
	EOF
	dc-gen c.yaml >spec.json &&
	dc-explore --match "^p(read|write)" libc.so.6 | grep -v -e v -e "64$" -e @ >expect &&
	python3 - <<-\PY
	import json
	spec = json.load(open("spec.json"))
	assert spec["mode"] == "profile" and spec["interval_ms"] == 250, spec
	ps = spec["probes"]
	assert all(p["layer"] == "MINE" for p in ps)
	names = [p["function"] for p in ps]
	want = open("expect").read().split()
	# aliases at one offset are kept once, under the first name
	assert set(names) <= set(want) and "pwrite" in names and "pread" in names, (names, want)
	assert names == sorted(names), names
	by = {p["function"]: p for p in ps}
	assert by["pwrite"]["args"] == ["fd", "ptr", "size", "offset"], by["pwrite"]
	assert by["pread"]["args"] == ["fd"] and by["pread"]["ret"] == "int", by["pread"]
	PY
'

test_expect_success USDT,PYTHON3 'a USDT layer' '
	cat >u.yaml <<-EOF &&
	layers:
	  - name: DEMO
	    kind: usdt
	    target: $(command -v usdt-demo)
	    include: ["^dcdemo:"]
	EOF
	dc-gen u.yaml >spec.json &&
	dc-explore --kind usdt --offsets "$(command -v usdt-demo)" >offsets &&
	python3 - <<-\PY
	import json
	ps = json.load(open("spec.json"))["probes"]
	got = ["%#x %s" % (p["offset"], p["function"]) for p in ps]
	assert got == open("offsets").read().split("\n")[:-1], got
	assert all(p["kind"] == "usdt" for p in ps)
	PY
'

test_expect_success LIBC 'a layer given twice adds nothing' '
	printf "layers:\n  - posix\n" >one.yaml &&
	printf "layers:\n  - posix\n  - posix\n" >two.yaml &&
	dc-gen one.yaml >one.json &&
	dc-gen two.yaml >two.json &&
	test_cmp one.json two.json
'

test_expect_success 'a missing library is an error; optional, a warning' '
	cat >m.yaml <<-\EOF &&
	layers:
	  - syscalls
	  - name: GONE
	    kind: uprobe
	    target: libdc-no-such-lib.so.9
	    functions: [f]
	EOF
	test_must_fail_with 4 dc-gen m.yaml >out 2>err &&
	test_one_line err &&
	grep -q "m.yaml:3:5: layer GONE: library libdc-no-such-lib.so.9 not found" err &&
	test ! -s out &&
	echo "    optional: true" >>m.yaml &&
	dc-gen m.yaml >spec.json 2>err &&
	test_one_line err &&
	grep -q "m.yaml:3:5: warning: layer GONE skipped" err &&
	dc-gen --check spec.json
'

test_expect_success LIBC 'missing functions are warnings' '
	cat >f.yaml <<-\EOF &&
	layers:
	  - name: F
	    kind: uprobe
	    target: libc.so.6
	    functions: [write, dc_no_such_function]
	EOF
	dc-gen f.yaml >spec.json 2>err &&
	test_one_line err &&
	grep -q "warning: layer F: no function dc_no_such_function in" err &&
	test "$(grep -c "\"function\"" spec.json)" = 1
'

test_expect_success LIBC 'more probes than max_probes' '
	printf "max_probes: 5\nlayers:\n  - posix\n" >cap.yaml &&
	test_must_fail_with 4 dc-gen cap.yaml >out 2>err &&
	test_one_line err &&
	grep -q "cap.yaml:1:13: layer POSIX needs more than max_probes (5) probes" err &&
	test ! -s out
'

test_expect_success '--check rejects what lib/spec.c rejects' '
	echo "{\"datacrumbs_probes\": 1, \"probes\": [{\"layer\": \"x\", \"kind\": \"syscall\", \"function\": \"read\"}]}" >bad.json &&
	test_must_fail_with 4 dc-gen --check bad.json 2>err &&
	grep -q "syscall without \"nr\"" err &&
	echo "{" >broken.json &&
	test_must_fail_with 4 dc-gen --check broken.json 2>err &&
	grep -q "^dc-gen: broken.json:" err &&
	# "as" and "regs": uprobes only, a name, one register (0 to 5) per argument
	u="\"layer\": \"x\", \"kind\": \"uprobe\", \"target\": \"/l\", \"function\": \"__fread_chk\", \"args\": [\"ptr\", \"size\"]" &&
	s="\"layer\": \"x\", \"kind\": \"syscall\", \"function\": \"read\", \"nr\": 0, \"args\": [\"fd\"]" &&
	for bad in "$u, \"as\": \"\"|\"as\" must be a name" \
		"$u, \"as\": 1|\"as\" must be a name" \
		"$s, \"as\": \"x\"|\"as\" is for uprobes only" \
		"$s, \"regs\": [0]|\"regs\" is for uprobes only" \
		"$u, \"regs\": [0]|one register per argument (2)" \
		"$u, \"regs\": [0, 2, 3]|one register per argument (2)" \
		"$u, \"regs\": {}|one register per argument (2)" \
		"$u, \"regs\": [0, 6]|\"regs\" names registers 0 to 5" \
		"$u, \"regs\": [-1, 2]|\"regs\" names registers 0 to 5" \
		"$u, \"regs\": [0, \"2\"]|\"regs\" names registers 0 to 5" \
		"\"layer\": \"x\", \"kind\": \"syscall\", \"function\": \"read\", \"nr\": 0, \"args\": [\"fd\", \"stdout\"]|a \"stdout\" argument is for uprobes only" \
		"$u, \"args\": [\"stdin\", \"int\", \"int\", \"int\", \"int\", \"int\"]|a plan with a \"stdin\" argument has at most 5 arguments"
	do
		echo "{\"datacrumbs_probes\": 1, \"probes\": [{${bad%|*}}]}" >bad.json &&
		test_must_fail_with 4 dc-gen --check bad.json 2>err &&
		grep -q "probe 0 (__fread_chk\|read): .*${bad#*|}" err || { cat bad.json err; return 1; }
	done &&
	echo "{\"datacrumbs_probes\": 1, \"probes\": [{$u, \"as\": \"fread\", \"regs\": [0, 2]}]}" >good.json &&
	dc-gen --check good.json
'

test_expect_success LIBC,PYTHON3 'a built-in layer adjusted: exclude, args, optional' '
	cat >adj.yaml <<-\EOF &&
	layers:
	  - name: posix
	    exclude: ["^p", "stat"]
	    optional: true
	    args:
	      write: {args: [fd], ret: int}
	  - name: K
	    kind: kfunc
	    functions: [vfs_read, vfs_write]
	EOF
	DC_VMLINUX_BTF=/sys/kernel/btf/vmlinux dc-gen adj.yaml >spec.json &&
	python3 - <<-\PY
	import json
	ps = json.load(open("spec.json"))["probes"]
	posix = {p["function"]: p for p in ps if p["layer"] == "POSIX"}
	assert "write" in posix and "read" in posix, sorted(posix)
	assert not any(n.startswith("p") or "stat" in n for n in posix), sorted(posix)
	assert posix["write"]["args"] == ["fd"] and posix["write"]["ret"] == "int"
	assert posix["read"]["args"] == ["fd", "ptr", "size"], posix["read"]
	assert all(p.get("optional") is True for p in posix.values())
	k = [p for p in ps if p["layer"] == "K"]
	assert [(p["kind"], p["function"]) for p in k] == [("kfunc", "vfs_read"), ("kfunc", "vfs_write")], k
	assert all("target" not in p and "nr" not in p for p in k), k
	PY
'

test_expect_success LIBC 'every built-in plan is valid: all layers at once' '
	dc-gen --layers posix,stdio,syscalls >spec.json 2>err &&
	test ! -s err &&
	dc-gen --check spec.json
'

test_lazy_prereq BTF '
	test -r /sys/kernel/btf/vmlinux || { echo "no /sys/kernel/btf/vmlinux"; false; }
'

test_expect_success BTF,PYTHON3 'kernel functions are checked against the kernel BTF' '
	cat >k.yaml <<-\EOF &&
	layers:
	  - name: K
	    kind: kfunc
	    functions: [vfs_read, dc_no_such_kernel_function]
	EOF
	DC_VMLINUX_BTF=/sys/kernel/btf/vmlinux dc-gen k.yaml >spec.json 2>err &&
	grep "k.yaml:2:5: warning: layer K: kernel function dc_no_such_kernel_function is not in /sys/kernel/btf/vmlinux, skipped" err &&
	python3 -c "import json; ps = json.load(open(\"spec.json\"))[\"probes\"]; assert [p[\"function\"] for p in ps] == [\"vfs_read\"], ps"
'

test_done

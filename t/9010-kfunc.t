#!/bin/sh
# Kernel functions: fentry where the kernel allows it, kprobes otherwise,
# refused at dc-gen time where neither works.  On this repository's
# development kernel (no kprobes, fentry refused) the refusal is what is
# tested; in the Debian 6.1 VM (t/9000-vm-debian-6.1.t) fentry and
# kprobes both trace, with exact counts, module functions (ext4) too.
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq NOKFUNC '
	check_kernel >features &&
	grep "kernel layers fall back to tracepoints" features ||
	{ echo "this kernel traces kernel functions"; false; }
'
# The VM's kernel: what 6.1 has and lacks is known exactly.
test_lazy_prereq LINUX61 '
	case $(uname -r) in 6.1.*) ;; *) echo "not a 6.1 kernel"; false ;; esac
'
test_lazy_prereq EXT4 '
	test "$(stat -f -c %T .)" = ext2/ext3 || { echo "the test directory is not on ext4"; false; }
'

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success NOKFUNC 'a vfs layer is refused by dc-gen, in one line saying why' '
	printf "layers: [syscalls, vfs]\n" >c.yaml &&
	test_must_fail_with 4 dc-gen c.yaml >out 2>err &&
	test_one_line err &&
	grep "c.yaml:1:[0-9]*: layer vfs: this kernel has no kprobes (CONFIG_KPROBE_EVENTS) and refuses fentry" err &&
	test ! -s out
'

test_expect_success NOKFUNC 'so are filesystems and custom kernel-function layers; optional ones are skipped' '
	printf "layers: [filesystems]\n" >c.yaml &&
	test_must_fail_with 4 dc-gen c.yaml 2>err &&
	test_one_line err && grep "layer fs: this kernel has no kprobes" err &&
	cat >c.yaml <<-EOC &&
	layers:
	  - syscalls
	  - name: NFS
	    kind: kfunc
	    optional: true
	    functions: [nfs_file_read, nfs_file_write]
	EOC
	dc-gen c.yaml >p.json 2>err &&
	test_one_line err && grep "layer NFS skipped: this kernel has no kprobes" err &&
	! grep "\"kfunc\"" p.json
'

test_expect_success NOKFUNC,PYTHON3 'a spec for another kernel, from its BTF file, is generated here; vfs_rename planned as two paths' '
	printf "layers: [vfs]\n" >c.yaml &&
	DC_VMLINUX_BTF=/sys/kernel/btf/vmlinux dc-gen c.yaml >p.json 2>err &&
	test ! -s err &&
	python3 - <<-\EOP
	import json
	p = {x["function"]: x for x in json.load(open("p.json"))["probes"]}
	assert p["vfs_write"]["kind"] == "kfunc", p
	# vfs_rename(struct renamedata *): its old name and its new
	assert p["vfs_rename"]["args"] == ["path", "path"], p["vfs_rename"]
	assert p["vfs_rename"]["ret"] == "status", p["vfs_rename"]
	EOP
'

test_expect_success 'the shipped configs still generate (only absent libraries warned about)' '
	for c in "$DC_SRC_DIR"/configs/*.yaml; do
		dc-gen "$c" >p.json 2>err &&
		! grep -v "warning: layer [A-Z0-9]* skipped: none of .* found" err ||
		{ cat err; return 1; }
	done
'

test_expect_success KFUNC,LINUX61 'on 6.1: fentry chosen, uprobes attached one by one (no multi-uprobe link), block tracepoints through tp_btf, kernel-layer records batched per CPU' '
	dc-collect --check-kernel >out &&
	grep "^kernel 6\.1\..*: uprobes yes (one by one), ring buffer yes, cookies yes; kernel functions: kprobes yes, fentry yes: kernel-function probes use fentry; tracepoints: tp_btf; kernel-layer records: batched per CPU, system calls. too$" out
'

# fsync N: N fsync system calls, each with one vfs_fsync_range under it
# on the file's inode, from 0 to LLONG_MAX.
fsync_config() {
	cat <<-EOC
	layers:
	  - name: sys
	    kind: syscall
	    functions: [openat, fsync]
	    args:
	      openat: {args: [fd, path, flags, mode], ret: fd}
	      fsync: {args: [fd], ret: status}
	  - name: KERN
	    kind: kfunc
	    functions: [vfs_fsync_range]
	EOC
}

check_fsync() {
	ino=$(stat -c %i F) &&
	pfw-query list t.pfw.gz --cat KERN --name vfs_fsync_range >k &&
	pfw-query list t.pfw.gz --cat sys --name fsync --file "$PWD/F" >s &&
	python3 - "$ino" "$1" <<-\EOP
	import json, sys
	ino, n = int(sys.argv[1]), int(sys.argv[2])
	k = [json.loads(l) for l in open("k")]
	s = [json.loads(l) for l in open("s")]
	assert len(s) == n, len(s)
	assert len(k) == n, len(k)
	for e in k:
	    a = e["args"]
	    assert a["inode"] == ino, e
	    assert a["offset"] == 0 and a["offset2"] == 2**63 - 1, e
	    assert a["ret"] == 0, e
	    assert a["level"] == s[0]["args"]["level"] + 1, (e, s[0])
	# each inside the span of one fsync syscall of its thread
	spans = [(x["ts"], x["ts"] + x["dur"]) for x in s]
	for e in k:
	    assert sum(1 for t0, t1 in spans if t0 <= e["ts"] and e["ts"] + e["dur"] <= t1) == 1, e
	EOP
}

test_expect_success KFUNC,PYTHON3 'a custom kernel-function layer: 100 fsyncs, 100 vfs_fsync_range on the inode, under them' '
	fsync_config >c.yaml &&
	trace_ok c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" fsync "$PWD/F" 100 &&
	grep "kernel-function probes use" collect.err &&
	grep "attached 3 of 3 probes" collect.err &&
	check_fsync 100
'

test_expect_success KFUNC,PYTHON3 'the same through kprobes (--kfunc kprobes)' '
	fsync_config >c.yaml &&
	trace_ok c.yaml t.pfw.gz --kfunc kprobes probes.sig -- "$WORKLOAD" fsync "$PWD/F" 100 &&
	grep "fentry yes but not used (--kfunc kprobes): kernel-function probes use kprobes" collect.err ||
	grep "kprobes yes, fentry refused.*kernel-function probes use kprobes" collect.err &&
	check_fsync 100
'

# The layer narrowed to the function counted: under TCG each fentry copy
# takes seconds to verify, and the whole layer is 20 (170 s at load 8).
test_expect_success KFUNC,EXT4,PYTHON3 'the filesystems layer: ext4 (a module) writes, one per write(2), with the bytes' '
	cat >c.yaml <<-EOC &&
	layers:
	  - syscalls
	  - name: filesystems
	    functions: [ext4_file_write_iter]
	EOC
	trace_ok c.yaml t.pfw.gz probes.sig -- dd if=/dev/zero of=F bs=4096 count=30 &&
	! grep "fentry refused" collect.err &&
	ino=$(stat -c %i F) &&
	test "$(pfw-query count t.pfw.gz --cat fs --name ext4_file_write_iter --arg inode=$ino --arg size=4096 --arg ret=4096)" = 30 &&
	test "$(pfw-query count t.pfw.gz --cat fs --name ext4_file_write_iter --arg inode=$ino)" = 30 &&
	test "$(pfw-query count t.pfw.gz --cat fs --name ext4_file_write_iter --file "$PWD/F")" = 30 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name write --file "$PWD/F" --arg ret=4096)" = 30
'

# DC_TEST_XFS: a writable directory on xfs (the VM mounts one).
test_lazy_prereq XFS '
	test -n "${DC_TEST_XFS:-}" && test "$(stat -f -c %T "$DC_TEST_XFS")" = xfs ||
	{ echo "no xfs directory (DC_TEST_XFS)"; false; }
'

# Through kprobes: the test above loads the layer's fentry programs
# (each copy takes seconds to verify under TCG).
test_expect_success KFUNC,XFS,PYTHON3 'the filesystems layer: xfs reads and writes, with the bytes (kprobes)' '
	f="$DC_TEST_XFS/F.$$" &&
	printf "layers: [syscalls, filesystems]\n" >c.yaml &&
	trace_ok c.yaml t.pfw.gz --kfunc kprobes probes.sig -- sh -c \
		"dd if=/dev/zero of=$f bs=8192 count=12 && \"$WORKLOAD\" read $f" &&
	grep "kernel-function probes use kprobes" collect.err &&
	ino=$(stat -c %i "$f") && rm -f "$f" &&
	test "$(pfw-query count t.pfw.gz --cat fs --name xfs_file_write_iter --arg inode=$ino --arg size=8192 --arg ret=8192)" = 12 &&
	test "$(pfw-query count t.pfw.gz --cat fs --name xfs_file_write_iter --file "$f")" = 12 &&
	pfw-query list t.pfw.gz --cat fs --name xfs_file_read_iter --arg inode=$ino >r &&
	python3 -c "
import json
r = [json.loads(l)[\"args\"][\"ret\"] for l in open(\"r\")]
assert sum(r) == 98304 and r[-1] == 0, r
"
'

test_expect_success KFUNC 'a kernel function that does not exist: one warning, the rest traced' '
	cat >c.yaml <<-EOC &&
	layers:
	  - syscalls
	  - name: KERN
	    kind: kfunc
	    functions: [vfs_fsync_range, dc_no_such_function]
	EOC
	dc-gen c.yaml >p.json 2>err &&
	test_one_line err &&
	grep "layer KERN: kernel function dc_no_such_function is not in this kernel or its loaded modules, skipped" err &&
	grep "\"vfs_fsync_range\"" p.json
'

test_expect_success '--kfunc takes auto or kprobes: anything else is exit 2, with the reason' '
	test_must_fail_with 2 dc-collect --kfunc fentry x.sig -- true 2>err &&
	test "$(head -n 1 err)" = "dc-collect: --kfunc must be auto or kprobes"
'

test_done

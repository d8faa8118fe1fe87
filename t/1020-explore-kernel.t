#!/bin/sh
# dc-explore's kernel listings: tracepoints and fields, syscalls, kernel
# functions with the mechanism that can probe them.  A fake tracefs
# ($DC_TRACEFS) makes the answers known in advance.
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq BTF '
	test -r /sys/kernel/btf/vmlinux || { echo "no kernel BTF at /sys/kernel/btf/vmlinux"; false; }
'
test_lazy_prereq TRACEFS '
	test -d /sys/kernel/tracing/events || test -d /sys/kernel/debug/tracing/events ||
		{ echo "tracefs not mounted"; false; }
'
sys_nr() {
	printf '#include <sys/syscall.h>\nSYS_%s\n' "$1" | cpp -P - | tail -n 1 | tr -d " "
}

# A tracefs with two block tracepoints and two syscalls.
make_fake_tracefs() {
	mkdir -p fake/events/block/block_rq_issue fake/events/block/block_rq_complete \
		fake/events/syscalls/sys_enter_write fake/events/syscalls/sys_exit_write \
		fake/events/syscalls/sys_enter_openat &&
	echo 1 >fake/events/block/enable &&
	cat >fake/events/block/block_rq_issue/format <<-\EOF &&
	name: block_rq_issue
	ID: 1234
	format:
		field:unsigned short common_type;	offset:0;	size:2;	signed:0;
		field:int common_pid;	offset:4;	size:4;	signed:1;

		field:dev_t dev;	offset:8;	size:4;	signed:0;
		field:sector_t sector;	offset:16;	size:8;	signed:0;
		field:char rwbs[8];	offset:24;	size:8;	signed:1;

	print fmt: "%d", REC->dev
	EOF
	printf "name: x\nformat:\n" >fake/events/block/block_rq_complete/format
}

test_expect_success 'tracepoints of a fake tracefs, sorted, with --match' '
	make_fake_tracefs &&
	DC_TRACEFS=$PWD/fake dc-explore --kind tracepoint >out &&
	printf "%s\n" block:block_rq_complete block:block_rq_issue \
		syscalls:sys_enter_openat syscalls:sys_enter_write syscalls:sys_exit_write >expect &&
	test_cmp expect out &&
	DC_TRACEFS=$PWD/fake dc-explore --kind tracepoint --match "^block:.*issue" >out &&
	echo block:block_rq_issue >expect &&
	test_cmp expect out
'

test_expect_success 'tracepoint fields, without the common ones' '
	make_fake_tracefs &&
	DC_TRACEFS=$PWD/fake dc-explore --kind tracepoint --fields --match issue >out &&
	printf "block:block_rq_issue\n\tdev_t dev; offset:8 size:4 signed:0\n\tsector_t sector; offset:16 size:8 signed:0\n\tchar rwbs[8]; offset:24 size:8 signed:1\n" >expect &&
	test_cmp expect out
'

test_expect_success PYTHON3 'tracepoint fields as JSON' '
	make_fake_tracefs &&
	DC_TRACEFS=$PWD/fake dc-explore --kind tracepoint --fields --json --match issue >out.json &&
	python3 - <<-\PY
	import json
	[tp] = json.load(open("out.json"))
	assert tp["name"] == "block:block_rq_issue" and tp["category"] == "block", tp
	f = tp["fields"]
	assert [x["name"] for x in f] == ["dev", "sector", "rwbs"], f
	assert f[2]["size"] == 8 and f[2]["signed"] is True and f[2]["decl"] == "char rwbs[8]", f
	PY
'

test_expect_success 'no tracefs: tracepoints fail with a clear line' '
	mkdir empty &&
	DC_TRACEFS=$PWD/empty test_must_fail_with 1 dc-explore --kind tracepoint >out 2>err &&
	test_one_line err &&
	grep -q "tracefs is not mounted" err &&
	test ! -s out
'

test_expect_success 'syscalls from the syscalls tracepoints, with numbers' '
	make_fake_tracefs &&
	DC_TRACEFS=$PWD/fake dc-explore --kind syscall --offsets >out &&
	printf "%s openat\n%s write\n" "$(sys_nr openat)" "$(sys_nr write)" >expect &&
	test_cmp expect out
'

test_expect_success 'syscalls without tracefs: the build table, with a warning' '
	mkdir empty &&
	DC_TRACEFS=$PWD/empty dc-explore --kind syscall >out 2>err &&
	test_one_line err &&
	grep -q "unchecked against the kernel" err &&
	grep -qx write out && grep -qx openat out &&
	test "$(wc -l <out)" -gt 100
'

test_expect_success BTF 'kernel functions: none probe-able without kprobe_events' '
	make_fake_tracefs &&
	echo vfs_read >fake/available_filter_functions &&
	DC_TRACEFS=$PWD/fake dc-explore --kind kfunc --match "^vfs_read$" >out 2>err &&
	grep -q "kprobes NOT available: no $PWD/fake/kprobe_events" err &&
	grep -q "fentry" err &&
	case "$(cat out)" in "vfs_read -"|"vfs_read fentry") ;; *) false ;; esac
'

test_expect_success BTF 'kernel functions: kprobe where kprobe_events and the filter list allow' '
	make_fake_tracefs &&
	: >fake/kprobe_events &&
	printf "vfs_read\nvfs_write [somemod]\n" >fake/available_filter_functions &&
	DC_TRACEFS=$PWD/fake dc-explore --kind kfunc --match "^vfs_(read|write|fsync)$" >out 2>err &&
	grep -q "kprobes available" err &&
	grep -q "^vfs_read kprobe" out &&
	grep -q "^vfs_write kprobe" out &&
	grep -qx "vfs_fsync -" out
'

test_expect_success BTF,PYTHON3 'kernel function prototypes from BTF' '
	dc-explore --kind kfunc --json --match "^vfs_read$" >out.json 2>err &&
	python3 - <<-\PY
	import json
	[f] = json.load(open("out.json"))
	assert f["name"] == "vfs_read", f
	assert f["prototype"].startswith("ssize_t vfs_read(struct file *"), f
	assert f["probeable"] == (f["kprobe"] or f["fentry"]), f
	PY
'

test_expect_success BTF,TRACEFS 'this machine: what is said matches what exists' '
	dc-explore --kind kfunc --match "^vfs_read$" >out 2>err &&
	root=/sys/kernel/tracing &&
	test -d $root/events || root=/sys/kernel/debug/tracing &&
	if test -e $root/kprobe_events; then
		grep -q "kprobes available" err
	else
		grep -q "kprobes NOT available" err && ! grep -q kprobe out
	fi
'

test_expect_success 'kernel kinds take no file arguments' '
	test_must_fail_with 2 dc-explore --kind syscall /bin/sh 2>err &&
	grep -q "takes no file arguments" err &&
	test_must_fail_with 2 dc-explore --kind nonsense 2>err &&
	grep -q "unknown kind" err
'

test_done

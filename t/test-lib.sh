# t/test-lib.sh - the shared library of the datacrumbs test scripts.
#
# A test script sources this file, declares tests and ends with test_done:
#
#   . "$(dirname "$0")/test-lib.sh"
#   test_expect_success 'dc-gen prints help' '
#       dc-gen --help >out && grep -q Usage out
#   '
#   test_expect_success BPF,ROOT 'trace dd' '...'
#   test_done
#
# Output is TAP for prove.  Every test runs in a subshell inside a scratch
# directory of its own (t/trash/SCRIPT/N), with `set -e` off: a test passes
# when its body's last command, joined with &&, succeeds.  Prerequisites
# are lazy: the first test that needs BPF runs the check that really loads
# a program; a test whose prerequisite is missing is skipped with the
# reason printed, unless DC_TEST_REQUIRE names it (e.g. "ROOT BPF
# PYTHON3", as ./setup.sh test sets it): then the test fails, so a
# machine that should run everything cannot pass by skipping.
# DC_TEST_VERBOSE=1 shows each body's output; DC_TEST_TIMES=1 follows
# each test with the seconds it took, as a comment; DC_TEST_KMSG=1 marks
# each test's start and end in the kernel's log.  DC_SKIP_TESTS names
# tests to skip, one a line, each as the script's number, a colon and a
# pattern of the description ("3000:profile mode*"): the test VM
# (t/9000) leaves out what the host suite proves there.

TEST_NAME=$(basename "$0" .t)
TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
: "${DC_SRC_DIR:=$(cd "$TEST_DIRECTORY/.." && pwd)}"
: "${DC_BUILD_DIR:=$DC_SRC_DIR}"
export DC_SRC_DIR DC_BUILD_DIR
for _d in dc-explore dc-gen dc-sign dc-collect dc-aggregate dc-write dc-wrap dc-run dc-track dc-report; do
	PATH="$DC_BUILD_DIR/$_d:$PATH"
done
PATH="$DC_BUILD_DIR/t/helpers:$DC_SRC_DIR/t/helpers:$PATH"
export PATH
# Tools find their data (configs, client library) in the build tree.
export DC_DATA_DIR="$DC_SRC_DIR/configs"
export DC_CLIENT_LIB="$DC_BUILD_DIR/dc-wrap/.libs/libdcclient.so"
SHARED_DIR="$DC_SRC_DIR/../shared"
TRASH_DIRECTORY="$DC_BUILD_DIR/t/trash/$TEST_NAME"
rm -rf "$TRASH_DIRECTORY"
mkdir -p "$TRASH_DIRECTORY" || exit 1

test_count=0
test_failed=0
test_skipped=0
_prereq_ok=" "
_prereq_missing=" "
_prereq_reason=""

# test_lazy_prereq NAME 'script': NAME holds when script succeeds; the
# script's last line of output, if any, becomes the skip reason.
test_lazy_prereq() {
	eval "_lazy_$1=\$2"
}

test_have_prereq() {
	_all=$1
	_IFS=$IFS; IFS=,; set -- $_all; IFS=$_IFS
	for _p in "$@"; do
		case "$_prereq_ok" in *" $_p "*) continue ;; esac
		case "$_prereq_missing" in *" $_p "*) return 1 ;; esac
		eval "_script=\${_lazy_$_p:-}"
		if [ -z "$_script" ]; then
			echo "# unknown prerequisite $_p" >&2
			return 1
		fi
		_dir="$TRASH_DIRECTORY/prereq-$_p"
		mkdir -p "$_dir"
		if (cd "$_dir" && eval "$_script") >"$_dir.log" 2>&1; then
			_prereq_ok="$_prereq_ok$_p "
		else
			_prereq_missing="$_prereq_missing$_p "
			_prereq_reason="$_p: $(tail -n 1 "$_dir.log")"
			return 1
		fi
	done
	return 0
}

# test_expect_success [PREREQS] 'description' 'body'
test_expect_success() {
	_prereqs=
	if [ $# -eq 3 ]; then
		_prereqs=$1
		shift
	fi
	test_count=$((test_count + 1))
	if _skip_listed "$1"; then
		test_skipped=$((test_skipped + 1))
		echo "ok $test_count # skip $1 (listed in DC_SKIP_TESTS)"
		return 0
	fi
	if [ -n "$_prereqs" ] && ! test_have_prereq "$_prereqs"; then
		case " ${DC_TEST_REQUIRE:-} " in
		*" ${_prereq_reason%%:*} "*)
			test_failed=$((test_failed + 1))
			echo "not ok $test_count - $1"
			echo "#	required prerequisite missing (DC_TEST_REQUIRE): $_prereq_reason"
			return 0
			;;
		esac
		test_skipped=$((test_skipped + 1))
		echo "ok $test_count # skip $1 (missing $_prereq_reason)"
		return 0
	fi
	_dir="$TRASH_DIRECTORY/$test_count"
	mkdir -p "$_dir"
	_log="$_dir.log"
	_start=$(date +%s)
	_kmsg "$TEST_NAME: test $test_count begins"
	# The body, then whatever it registered with test_when_finished,
	# whether the body passed or not; a failed cleanup fails the test.
	(cd "$_dir" && {
		_cleanup=: _cleanup_failed=
		eval "$2"
		_body_rc=$?
		eval "$_cleanup"
		if [ -n "$_cleanup_failed" ] && [ $_body_rc -eq 0 ]; then
			echo "test_when_finished: a cleanup command failed" >&2
			_body_rc=1
		fi
		exit $_body_rc
	}) >"$_log" 2>&1
	_rc=$?
	_kmsg "$TEST_NAME: test $test_count ends, exit $_rc"
	if [ -n "${DC_TEST_VERBOSE:-}" ]; then
		sed 's/^/# /' "$_log"
	fi
	if [ $_rc -eq 0 ]; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		echo "#	failed body (exit $_rc):"
		printf '%s\n' "$2" | sed 's/^/#	/'
		echo "#	output:"
		tail -n 40 "$_log" | sed 's/^/#	/'
		# prove shows a script's standard error, not its comments:
		# the output there too, so a log of a whole run (CI) keeps
		# what a failure printed.  (Not when it is a terminal: read
		# there already.)
		if [ ! -t 1 ]; then
			echo "# $TEST_NAME: test $test_count failed; its output's last lines:"
			tail -n 40 "$_log" | sed 's/^/#	/'
		fi >&2
	fi
	if [ -n "${DC_TEST_TIMES:-}" ]; then
		echo "# test $test_count took $(($(date +%s) - _start))s"
	fi
}

# _kmsg TEXT: with DC_TEST_KMSG (the test VM), TEXT into the kernel's log
# at a level its console shows, so a kernel complaint there can be laid
# beside the test that ran.
_kmsg() {
	if [ -n "${DC_TEST_KMSG:-}" ]; then
		echo "<3>dc-test: $*" >/dev/kmsg 2>/dev/null || :
	fi
}

# _skip_listed DESCRIPTION: DC_SKIP_TESTS names this script's test.
_skip_listed() {
	while IFS= read -r _pat; do
		case $_pat in
		"${TEST_NAME%%-*}:"*) ;;
		*) continue ;;
		esac
		# shellcheck disable=SC2254
		case $1 in
		${_pat#*:}) return 0 ;;
		esac
	done <<-EOF
	${DC_SKIP_TESTS:-}
	EOF
	return 1
}

# test_skip_all 'reason': the whole script needs something absent.
test_skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

test_done() {
	echo "1..$test_count"
	if [ $test_failed -gt 0 ]; then
		echo "# failed $test_failed of $test_count"
		exit 1
	fi
	rm -rf "$TRASH_DIRECTORY"
	exit 0
}

# ---- helpers for test bodies ----

# test_when_finished 'CMD': run CMD when the test's body is done, passed
# or failed (last registered, first run), as git's test-lib does: stop
# what the test started, remove what it made outside its directory.
# Call it from the body itself, not from a subshell of it.
test_when_finished() {
	_cleanup="{ $*
} || _cleanup_failed=1; $_cleanup"
}

# test_kill_pid [-SIGNAL] PID [NAME]: stop one process that this test
# started, by its pid (never by name: other jobs share this machine), and
# wait until it is gone, at most 30 s.  With NAME, only while the pid is
# still a NAME (/proc/PID/comm), so that a pid reused since is left
# alone.  Quiet and successful when the process is already gone.  For
# cleanup: test_when_finished "test_kill_pid -INT $pid dc-collect".
test_kill_pid() {
	_sig=-TERM
	case "$1" in -*) _sig=$1; shift ;; esac
	if [ -n "${2:-}" ] &&
	   [ "$(cat "/proc/$1/comm" 2>/dev/null)" != "$2" ]; then
		return 0
	fi
	kill "$_sig" "$1" 2>/dev/null || return 0
	_tries=300
	while kill -0 "$1" 2>/dev/null; do
		# A zombie is gone for every purpose but its parent's.
		case "$(cat "/proc/$1/stat" 2>/dev/null)" in
		*") Z "*) return 0 ;;
		esac
		_tries=$((_tries - 1))
		if [ "$_tries" -le 0 ]; then
			echo "process $1 did not stop; killing it" >&2
			kill -KILL "$1" 2>/dev/null
			return 1
		fi
		sleep 0.1
	done
}

# ready_pid FILE: the pid a collector wrote into its --ready-file.
ready_pid() {
	_p=$(cat "$1") && test -n "$_p" && echo "$_p"
}

# test_must_fail_with STATUS CMD...: CMD exits with exactly STATUS.
test_must_fail_with() {
	_want=$1
	shift
	"$@"
	_got=$?
	if [ "$_got" -ne "$_want" ]; then
		echo "expected exit $_want from '$*', got $_got" >&2
		return 1
	fi
	return 0
}

# test_line_count FILE N: FILE has exactly N lines.
test_line_count() {
	_n=$(wc -l <"$1") || return 1
	if ! [ "$_n" -eq "$2" ]; then
		echo "expected $2 lines in $1, found $_n" >&2
		cat "$1" >&2
		return 1
	fi
}

# test_one_line FILE: stderr-style file has exactly one line.
test_one_line() {
	test_line_count "$1" 1
}

test_cmp() {
	diff -u "$1" "$2"
}

# ---- common prerequisites ----

test_lazy_prereq ROOT '
	test "$(id -u)" = 0 || { echo "not running as root"; false; }
'
test_lazy_prereq PYTHON3 '
	command -v python3 >/dev/null || { echo "python3 not installed"; false; }
'
# check_kernel: what `dc-collect --check-kernel` reports, and its exit
# status.  It loads and attaches every program a run would: 1-2 s here,
# far more under emulation or a sanitizer, and nearly every script needs
# it.  A report that said yes is kept (t/trash/check-kernel) for the
# scripts after, for as long as the kernel (this boot), the user and the
# dc-collect binary are the same; a failure is checked again each time.
check_kernel() {
	_ck=$DC_BUILD_DIR/t/trash/check-kernel
	_ck_key="$(cat /proc/sys/kernel/random/boot_id) $(id -u)" &&
	_ck_key="$_ck_key $(stat -L -c %i.%s.%Y "$(command -v dc-collect)")" || return 1
	if [ -f "$_ck" ] && [ "$(head -n 1 "$_ck")" = "$_ck_key" ]; then
		tail -n +2 "$_ck"
		return 0
	fi
	dc-collect --check-kernel >"$_ck.$$"
	_ck_rc=$?
	cat "$_ck.$$"
	if [ $_ck_rc -eq 0 ]; then
		{ echo "$_ck_key"; cat "$_ck.$$"; } >"$_ck.$$.new" &&
		mv "$_ck.$$.new" "$_ck"
	fi
	rm -f "$_ck.$$"
	return $_ck_rc
}

# BPF: really load and attach the programs, not just check for a file.
test_lazy_prereq BPF '
	test "$(id -u)" = 0 || { echo "BPF needs root"; false; }
	check_kernel
'

# Tools and packages several scripts need.
test_lazy_prereq NOBODY '
	test "$(id -u)" = 0 && command -v setpriv >/dev/null &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups true ||
	{ echo "cannot run as nobody (setpriv)"; false; }
'
test_lazy_prereq DASK '
	/usr/bin/python3 -c "import dask.bag, distributed, matplotlib, cloudpickle" ||
		{ echo "python3-dask, -distributed or -matplotlib not installed"; false; }
'
test_lazy_prereq READELF '
	command -v readelf >/dev/null || { echo "readelf (binutils) not installed"; false; }
'
test_lazy_prereq OPENMPI '
	command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null ||
	{ echo "mpicc.openmpi, mpirun.openmpi (libopenmpi-dev, openmpi-bin) not installed"; false; }
'
test_lazy_prereq MPICH '
	command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null ||
	{ echo "mpicc.mpich, mpiexec.mpich (libmpich-dev, mpich) not installed"; false; }
'
test_lazy_prereq H5CC '
	command -v h5cc >/dev/null || { echo "h5cc (libhdf5-dev) not installed"; false; }
'
# SETGID: a set-group-ID program runs with that group (not on a nosuid
# mount, not under a user namespace that maps no nogroup).
test_lazy_prereq SETGID '
	getent group nogroup >/dev/null || { echo "no group nogroup"; false; }
	cp "$(command -v cat)" sg-cat && chgrp nogroup sg-cat && chmod g+s sg-cat &&
	./sg-cat /proc/self/status | awk "/^Gid:/ { exit \$2 == \$3 }" ||
	{ echo "set-group-ID programs do not run set-group-ID here"; false; }
'
# STATIC: a static program, $SHARED/w300, that writes 1 byte to
# /dev/null 300 times.
test_lazy_prereq STATIC '
	command -v cc >/dev/null || { echo "no C compiler"; false; }
	cat >w300.c <<-\EOC &&
	#include <fcntl.h>
	#include <unistd.h>
	int main(void)
	{
		int fd = open("/dev/null", O_WRONLY);

		for (int i = 0; i < 300; i++)
			if (write(fd, "x", 1) != 1)
				return 1;
		return 0;
	}
	EOC
	cc -static -o "$SHARED/w300" w300.c || { echo "cannot link a static program"; false; }
'
# BPFTOOL: bpftool, to look at the programs and maps a collector holds.
test_lazy_prereq BPFTOOL '
	command -v bpftool >/dev/null || { echo "bpftool not installed"; false; }
'
test_lazy_prereq USDT '
	command -v usdt-demo >/dev/null || { echo "usdt-demo not built (make check)"; false; }
'

# FULLSPEED: a real CPU.  In the test VM (t/9000-vm-debian-6.1.t) the CPU
# is emulated, and a million traced calls take many minutes there.
test_lazy_prereq FULLSPEED '
	test -z "${DC_IN_VM:-}" || { echo "an emulated CPU (the test VM): too slow for this many events"; false; }
'

# sanitized_build: the tools are built with the sanitizers (configure
# --enable-sanitizers links lib/sanreport.c's UBSan hook into each).
sanitized_build() {
	nm "$DC_BUILD_DIR/dc-collect/dc-collect" 2>/dev/null |
		grep -q " T __ubsan_on_report$"
}

test_lazy_prereq SANITIZED '
	sanitized_build ||
	{ echo "not a sanitizer build (configure --enable-sanitizers)"; false; }
'

# UNSANITIZED: the sanitizers slow the collector's reading of the ring
# two to three times: what must keep up with a workload at full speed is
# tested without them.
test_lazy_prereq UNSANITIZED '
	! sanitized_build ||
	{ echo "a sanitizer build: its collector reads the ring too slowly for this"; false; }
'

# ---- the test VM (t/9000, t/9001) ----

# vm_host_or_skip: the script skipped, with the reason, unless the VM
# can run here.
vm_host_or_skip() {
	test -z "${DC_IN_VM:-}" || test_skip_all "already inside the test VM"
	command -v qemu-system-x86_64 >/dev/null ||
		test_skip_all "qemu-system-x86_64 not installed (./setup.sh deps installs qemu-system-x86)"
	test "$(id -u)" = 0 ||
		test_skip_all "run as root: the VM makes its disks' file systems, its tests load BPF programs"
}

# run_vm KDIR DIR: the VM booted on DIR/initrd until it stops
# (t/kernels/run-vm.sh), its exit status in DIR/rc, its messages in
# DIR/run.err; the script skipped if qemu cannot start here.
run_vm() {
	_start=$(date +%s)
	"$DC_SRC_DIR/t/kernels/run-vm.sh" "$1" "$2/initrd" "$2" 2>"$2/run.err"
	echo $? >"$2/rc"
	vm_took=$(($(date +%s) - _start))
	if [ "$(cat "$2/rc")" = 77 ]; then
		echo "# $(cat "$2/run.err")"
		echo "1..$test_count # SKIP qemu cannot start here"
		exit 0
	fi
	echo "# the VM ran ${vm_took}s under $(cat "$2/accel" 2>/dev/null)"
}

# Fixtures shared by the tests of one script live in its trash root.
SHARED="$TRASH_DIRECTORY"

# ---- specs, signing ----

# libc as the loader maps it into sh, found without dc-explore's help.
libc_path() {
	ldd "$(command -v sh)" | awk '$1 == "libc.so.6" { print $3 }' |
		xargs readlink -f
}
test_lazy_prereq LIBC '
	test -n "$(libc_path)" || { echo "no libc.so.6 in ldd output"; false; }
'

# start_signd MAX_PROBES: a user's config signed through dc-signd, under
# the site's policy: dc-signd on ./sock for one request (--once), with
# $SHARED/key and at most MAX_PROBES POSIX uprobes in libc's directory;
# its pid in $signd, for the test to stop.
start_signd() {
	cat >policy.json <<-EOF &&
	{ "datacrumbs_policy": 1, "max_probes": $1,
	  "allowed_layers": ["POSIX"], "allowed_kinds": ["uprobe"],
	  "allowed_targets": ["$(dirname "$(realpath /lib/x86_64-linux-gnu/libc.so.6)")/"] }
	EOF
	{ dc-signd -s "$PWD/sock" -k "$SHARED/key" -p policy.json --once 2>signd.log & } &&
	signd=$! &&
	wait_for_file sock 10 &&
	test -S sock
}

# ---- tracing real workloads (t/3xxx, t/9xxx) ----

# The test workloads (t/helpers/workload.c says what each does).
WORKLOAD="$DC_BUILD_DIR/t/helpers/workload"

# sign_spec CONFIG.yaml: the spec of CONFIG generated (probes.json,
# dc-gen's messages in gen.err) and signed with $SHARED/key into
# probes.sig.
sign_spec() {
	dc-gen "$1" >probes.json 2>gen.err &&
	dc-sign -k "$SHARED/key" -o probes.sig probes.json
}

# test_hook_refused LAYER VAR=VALUE MESSAGE: dc-collect, with a spec of
# LAYER and the test hook VAR set to VALUE, stops with exit status 1 and
# one line, MESSAGE, after its start-up line.
test_hook_refused() {
	printf "layers: [%s]\n" "$1" >c.yaml &&
	sign_spec c.yaml &&
	test_must_fail_with 1 env "$2" \
		dc-collect -k "$SHARED/key" probes.sig -- true 2>err &&
	cat err &&
	test "$(grep -vc "^dc-collect: kernel " err)" = 1 &&
	tail -n 1 err | grep -x "dc-collect: $3"
}

# write_layer: a dc-gen config of one syscall layer, openat (to name the
# file) and write only.
write_layer() {
	cat <<-EOC
	layers:
	  - name: sys
	    kind: syscall
	    functions: [openat, write]
	    args:
	      openat: {args: [fd, path, flags, mode], ret: fd}
	      write: {args: [fd, ptr, size], ret: size}
	EOC
}

# layers LAYER...: a dc-gen config of the built-in layers named.
layers() {
	echo "layers:"
	printf "  - %s\n" "$@"
}

# count_calls TEXT LAYER NAME [PID [RET]]: the call records in TEXT (from
# dc-aggregate --text) of function NAME of layer LAYER (its category, as
# POSIX), of process PID only if given and not empty, that returned RET
# only if given.
count_calls() {
	awk -v cat="$2" -v name="$3" -v pid="${4:-}" -v ret="${5:-}" '
		/^probe / { split($2, i, "="); split($4, l, "="); split($5, n, "=");
			    L[i[2]] = l[2]; N[i[2]] = n[2] }
		/^call / { split($2, i, "="); split($3, p, "="); split($7, r, "=");
			   if (L[i[2]] == cat && N[i[2]] == name &&
			       (pid == "" || p[2] == pid) && (ret == "" || r[2] == ret)) c++ }
		END { print c + 0 }' "$1"
}

# trace_calls TRACE CAT NAME...: the calls in TRACE (a .pfw.gz) of the
# functions NAME of layer CAT made by processes' main threads, in time
# order, one "name ret" a line (what a workload prints of its own calls
# to compare with).
trace_calls() {
	python3 - "$@" <<-\EOF
	import gzip, json, sys
	trace, cat, names = sys.argv[1], sys.argv[2], set(sys.argv[3:])
	evs = []
	for line in gzip.open(trace, "rt"):
	    line = line.strip().rstrip(",")
	    if not line.startswith("{"):
	        continue
	    e = json.loads(line)
	    if e.get("ph") == "X" and e.get("cat") == cat and \
	            e["name"] in names and e["pid"] == e["tid"]:
	        evs.append(e)
	for e in sorted(evs, key=lambda e: e["ts"]):
	    print(e["name"], e["args"]["ret"])
	EOF
}

# posix_rw_spec: a signing key in $SHARED/key and, signed with it, a spec
# of two posix functions (read, write) in $SHARED/probes.sig.
posix_rw_spec() {
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	printf "layers:\n  - name: posix\n    functions: [read, write]\n" >c.yaml &&
	sign_spec c.yaml &&
	mv probes.sig "$SHARED/probes.sig"
}

# ahead_pids: the processes collect.err names as traced through uprobes
# placed before their exec (the client asked for them, t/4240, t/4250),
# one a line.
ahead_pids() {
	sed -n "s/.*process \([0-9]*\) ([^)]*) will not load the client library (.*): its calls of the .*, placed before its exec\$/\1/p" \
		collect.err
}

# placed_before N [+output]: in t.txt (dc-aggregate --text), the one
# process in ahead.pid made N 1-byte writes, each recorded once, and the
# trace has no other write (with +output: no other 1-byte write, the
# process printing what it found too); collect.err says none was missed.
placed_before() {
	test_line_count ahead.pid 1 &&
	_pid=$(cat ahead.pid) &&
	test "$(count_calls t.txt POSIX write "$_pid" 1)" = "$1" &&
	test "$(count_calls t.txt POSIX write "" 1)" = "$1" &&
	{ test "${2:-}" = +output || test "$(count_calls t.txt POSIX write)" = "$1"; } &&
	grep "1 processes without the client library traced through uprobes, all placed before their exec" collect.err &&
	! grep -q "earlier ones are missed" collect.err &&
	! grep -q "never joined the fast path" collect.err
}

# counter_errors TRACE: "category name errors" of each function whose
# counters (profile mode's, or dc-aggregate --profile's) in TRACE have
# failures, summed over processes and intervals.
counter_errors() {
	pfw-query list "$1" --ph C | python3 -c "
import collections, json, sys
e = collections.Counter()
for l in sys.stdin:
    v = json.loads(l)
    e[v['cat'], v['name']] += v['args']['errors']
for (c, n), k in sorted(e.items()):
    if k:
        print(c, n, k)
"
}

# trace CONFIG.yaml TRACE [dc-collect options] -- COMMAND...: generate the
# spec of CONFIG, sign it with $SHARED/key into probes.sig, collect, and
# aggregate and write TRACE.  Succeeds when the pipeline's end does;
# dc-collect's exit status is kept in collect.rc for the test to check,
# its messages in collect.err, and dc-gen's and dc-collect's messages go
# to standard error.
trace() {
	_cfg=$1 _out=$2
	shift 2
	sign_spec "$_cfg" &&
	{ dc-collect -k "$SHARED/key" "$@" 2>collect.err; echo $? >collect.rc; } |
		dc-aggregate | dc-write "$_out"
	_rc=$?
	cat gen.err >&2
	test ! -f collect.err || cat collect.err >&2
	return $_rc
}

# trace_ok ...: trace, and dc-collect exited 0.
trace_ok() {
	trace "$@" && test "$(cat collect.rc)" = 0
}

# KFUNC: kernel functions can be traced here (kprobes or fentry).
test_lazy_prereq KFUNC '
	check_kernel >features &&
	grep "kernel-function probes use" features ||
	{ echo "this kernel traces no kernel functions (no kprobes, fentry refused)"; false; }
'

# wait_for_file FILE [SECONDS]: until FILE exists, at most SECONDS (30):
# a collector that fails must fail the test, not hang it.
wait_for_file() {
	wait_until "${2:-30}" "gave up waiting for $1" test -e "$1"
}

# wait_until SECONDS MESSAGE CMD...: run CMD every 0.1 s until it
# succeeds; after SECONDS, MESSAGE on stderr and fail.
wait_until() {
	_tries=$(( $1 * 10 )) _msg=$2
	shift 2
	until "$@"; do
		_tries=$((_tries - 1))
		if test "$_tries" -le 0; then
			echo "$_msg" >&2
			return 1
		fi
		sleep 0.1
	done
}

# Wall-clock microseconds since the epoch, as traces count them.
now_us() {
	date +%s%6N
}

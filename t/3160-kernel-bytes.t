#!/bin/sh
# The bytes the kernel layers' instants report, traced for real: socket
# messages (net) and io_uring completions, in dc-write --summary per
# layer and in dc-report, where a process's bytes count once.
. "$(dirname "$0")/test-lib.sh"

URING="$DC_BUILD_DIR/t/helpers/dc-uring"
Q=report-query.py

test_lazy_prereq URING '
	: >empty &&
	"$URING" empty 0 out || { echo "io_uring is not available here"; false; }
'

# row_bytes SUMMARY LAYER FUNCTION: the bytes of the function's rows of
# a dc-write --summary, summed over its files.
row_bytes() {
	awk -v l="$2" -v f="$3" '$1 == l && $2 == f { b += $4 } END { print b + 0 }' "$1"
}

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

# 10,000,123 bytes over loopback TCP from one thread to another, and one
# byte peeked (MSG_PEEK) before the receiver reads them all; first, one
# receive that fails (nothing sent yet, a non-blocking socket: EAGAIN).
# The system calls return what they copied, the peek too; the socket
# events count what moved, the peek not (as the kernel prints it).
test_expect_success BPF,PYTHON3 'a TCP transfer: the bytes of sendto and recvfrom, and of the socket messages' '
	cat >"$SHARED/tcp.py" <<-\EOP &&
	import socket, threading
	N = 10000123
	ls = socket.socket()
	ls.bind(("127.0.0.1", 0))
	ls.listen(1)
	c = socket.create_connection(ls.getsockname())
	a, _ = ls.accept()
	a.setblocking(False)
	try:
	    a.recv(1)
	    assert False, "received before anything was sent"
	except BlockingIOError:
	    pass
	a.setblocking(True)
	def send():
	    c.sendall(b"x" * N)
	    c.close()
	t = threading.Thread(target=send)
	t.start()
	got = len(a.recv(1, socket.MSG_PEEK)) - 1
	while True:
	    b = a.recv(1 << 16)
	    if not b:
	        break
	    got += len(b)
	t.join()
	assert got == N, got
	EOP
	printf "layers: [sockets, net]\n" >c.yaml &&
	trace_ok c.yaml "$SHARED/tcp.pfw.gz" probes.sig -- python3 "$SHARED/tcp.py" &&
	cp probes.json "$SHARED/tcp.probes.json" &&
	dc-write --summary --top 0 "$SHARED/tcp.pfw.gz" >sum &&
	cat sum &&
	test "$(row_bytes sum sock sendto)" = 10000123 &&
	test "$(row_bytes sum sock recvfrom)" = 10000124 &&
	# sock_send_length is newer than some kernels (6.1 lacks it).
	if grep -q "sock:sock_send_length" probes.json; then
		test "$(row_bytes sum net sock:sock_send_length)" = 10000123 &&
		test "$(row_bytes sum net sock:sock_recv_length)" = 10000123 &&
		test "$(pfw-query count "$SHARED/tcp.pfw.gz" --ph i --name sock:sock_recv_length \
			--arg flags=2 --arg ret=1 --arg bytes=0)" = 1
	fi
'

# The report: each layer its own bytes; the process's once, at the
# system calls (the socket events under them are not added again).
test_expect_success BPF,PYTHON3,DASK 'the TCP transfer in the report: per layer, and once per process' '
	dc-report -w 0 --top 0 "$SHARED/tcp.pfw.gz" -o r.html &&
	$Q r.html table layer-table >layers &&
	cat layers &&
	grep "^sock	.*	20000247	" layers &&
	if grep -q "sock:sock_send_length" "$SHARED/tcp.probes.json"; then
		grep "^net	.*	20000246	" layers
	fi &&
	$Q r.html table heat-table >heat &&
	cat heat &&
	grep "^python3[^	]*	10000124	10000123$" heat
'

# 100 reads of 64 KiB and 100 writes of them, through io_uring: the
# completions of reads and writes count, not those of the opens (a
# descriptor), the NOP or the closes.
test_expect_success BPF,URING 'io_uring reads and writes: the completions carry the bytes' '
	dd if=/dev/urandom of=in bs=64K count=100 2>/dev/null &&
	printf "layers: [iouring]\n" >c.yaml &&
	trace_ok c.yaml "$SHARED/u.pfw.gz" probes.sig -- "$URING" in 100 out &&
	cmp in out &&
	test "$(stat -c %s out)" = 6553600 &&
	for op in 22:100 23:100 18:2 0:1 19:2; do
		test "$(pfw-query count "$SHARED/u.pfw.gz" --ph i --name io_uring:io_uring_complete \
			--arg opcode=${op%:*})" = ${op#*:} || return 1
	done &&
	test "$(pfw-query sum "$SHARED/u.pfw.gz" bytes --ph i --name io_uring:io_uring_complete \
		--arg opcode=22)" = 6553600 &&
	dc-write --summary --top 0 "$SHARED/u.pfw.gz" >sum &&
	cat sum &&
	grep "^io_uring  *io_uring:io_uring_complete  *205  *13107200 " sum
'

# The same workloads' collector streams, kept, then aggregated both ways:
# as a trace, and summed into counters per second (dc-aggregate
# --profile).  The counters' bytes per layer and function are the
# trace's: the socket messages and the io_uring completions count theirs
# (they used to count none: --profile summed the bytes of calls only).
# profile_matches CONFIG NAME COMMAND...: collect COMMAND's stream into
# NAME.dcs, write NAME.pfw.gz and NAME-profile.pfw.gz from it, their
# summaries in NAME.sum and NAME-profile.sum (NAME-profile.pfw.gz kept
# in $SHARED too, for the collector's own profile below); every row of
# the trace's with bytes has its function's bytes in the profile's.
profile_matches() {
	_cfg=$1 _name=$2
	shift 2
	sign_spec "$_cfg" &&
	dc-collect -k "$SHARED/key" probes.sig -- "$@" >$_name.dcs 2>collect.err &&
	dc-aggregate $_name.dcs | dc-write $_name.pfw.gz &&
	dc-aggregate --profile 1s $_name.dcs | dc-write $_name-profile.pfw.gz &&
	dc-write --summary --top 0 $_name.pfw.gz >$_name.sum &&
	dc-write --summary --top 0 $_name-profile.pfw.gz >$_name-profile.sum &&
	cat $_name-profile.sum &&
	grep "counter samples" $_name-profile.sum &&
	cp $_name-profile.pfw.gz "$SHARED/" &&
	awk "NR > 2 && \$4 > 0 { print \$1, \$2 }" $_name.sum | sort -u >moved &&
	test -s moved &&
	while read layer fn; do
		test "$(row_bytes $_name.sum $layer $fn)" = "$(row_bytes $_name-profile.sum $layer $fn)" ||
		{ echo "$layer $fn: $(row_bytes $_name.sum $layer $fn) in the trace," \
			"$(row_bytes $_name-profile.sum $layer $fn) in the profile"; return 1; }
	done <moved
}

test_expect_success BPF,PYTHON3 'dc-aggregate --profile: the TCP transfer'"'"'s bytes, socket messages too' '
	printf "layers: [sockets, net]\n" >c.yaml &&
	profile_matches c.yaml tcp python3 "$SHARED/tcp.py" &&
	test "$(row_bytes tcp-profile.sum sock sendto)" = 10000123 &&
	if grep -q "sock:sock_send_length" probes.json; then
		test "$(row_bytes tcp-profile.sum net sock:sock_send_length)" = 10000123 &&
		test "$(row_bytes tcp-profile.sum net sock:sock_recv_length)" = 10000123
	fi
'

test_expect_success BPF,URING 'dc-aggregate --profile: io_uring completions'"'"' bytes' '
	dd if=/dev/urandom of=in bs=64K count=100 2>/dev/null &&
	printf "layers: [iouring]\n" >c.yaml &&
	profile_matches c.yaml u "$URING" in 100 out &&
	cmp in out &&
	test "$(row_bytes u-profile.sum io_uring io_uring:io_uring_complete)" = 13107200
'

# The same workloads with the collector in profile mode: the BPF
# programs sum the socket messages' and the completions' bytes
# themselves (they used to count none), by the same rule as
# dc-aggregate --profile, whose profile of the traced run the tests
# above kept in $SHARED: the two have the same bytes per layer and
# function, each row that moved any, and the same failures.
# kprofile_matches CONFIG NAME COMMAND...: COMMAND profiled by the
# collector (CONFIG in profile mode) into NAME-kprofile.pfw.gz, its
# summary in NAME-kprofile.sum; dc-aggregate --profile's in
# NAME-profile.sum.
kprofile_matches() {
	_cfg=$1 _name=$2
	shift 2
	{ printf "mode: profile\ninterval_ms: 1000\n" && cat "$_cfg"; } >p.yaml &&
	trace_ok p.yaml $_name-kprofile.pfw.gz probes.sig -- "$@" &&
	grep "profile mode: counters every 1000 ms" collect.err &&
	dc-write --summary --top 0 $_name-kprofile.pfw.gz >$_name-kprofile.sum &&
	dc-write --summary --top 0 "$SHARED/$_name-profile.pfw.gz" >$_name-profile.sum &&
	cat $_name-kprofile.sum &&
	grep "counter samples" $_name-kprofile.sum &&
	counter_errors "$SHARED/$_name-profile.pfw.gz" >errors.aggregate &&
	counter_errors $_name-kprofile.pfw.gz >errors.collector &&
	cat errors.collector &&
	test_cmp errors.aggregate errors.collector &&
	cat $_name-profile.sum $_name-kprofile.sum |
		awk "\$3 ~ /^[0-9]+\$/ && \$4 > 0 { print \$1, \$2 }" | sort -u >moved &&
	test -s moved &&
	while read layer fn; do
		test "$(row_bytes $_name-profile.sum $layer $fn)" = \
			"$(row_bytes $_name-kprofile.sum $layer $fn)" ||
		{ echo "$layer $fn: $(row_bytes $_name-profile.sum $layer $fn)" \
			"from dc-aggregate --profile," \
			"$(row_bytes $_name-kprofile.sum $layer $fn) from the collector"; return 1; }
	done <moved
}

test_expect_success BPF,PYTHON3 'the collector'"'"'s profile mode: the TCP transfer'"'"'s bytes and failures, socket messages too' '
	printf "layers: [sockets, net]\n" >c.yaml &&
	kprofile_matches c.yaml tcp python3 "$SHARED/tcp.py" &&
	test "$(row_bytes tcp-kprofile.sum sock sendto)" = 10000123 &&
	test "$(row_bytes tcp-kprofile.sum sock recvfrom)" = 10000124 &&
	grep " recvfrom 1\$" errors.collector &&
	if grep -q "sock:sock_send_length" probes.json; then
		test "$(row_bytes tcp-kprofile.sum net sock:sock_send_length)" = 10000123 &&
		test "$(row_bytes tcp-kprofile.sum net sock:sock_recv_length)" = 10000123 &&
		grep " sock:sock_recv_length 1\$" errors.collector
	fi
'

test_expect_success BPF,URING 'the collector'"'"'s profile mode: io_uring completions'"'"' bytes' '
	dd if=/dev/urandom of=in bs=64K count=100 2>/dev/null &&
	printf "layers: [iouring]\n" >c.yaml &&
	kprofile_matches c.yaml u "$URING" in 100 out &&
	cmp in out &&
	test "$(row_bytes u-kprofile.sum io_uring io_uring:io_uring_complete)" = 13107200
'

test_expect_success BPF,URING,DASK 'io_uring in the report: reads and writes of the process' '
	dc-report -w 0 "$SHARED/u.pfw.gz" -o u.html &&
	$Q u.html table heat-table >heat &&
	cat heat &&
	grep -x "dc-uring ([0-9]*)	6553600	6553600" heat &&
	$Q u.html table layer-table >layers &&
	grep "^io_uring	.*	13107200	" layers
'

test_done

#!/bin/sh
# Many hosts: two simulated hosts on this machine (network and UTS
# namespaces made here, joined by a veth pair), a collector on each
# writing that host's stream, a UDP request/reply workload between them,
# and dc-aggregate merging the two streams: hosts kept apart (names, pids),
# each host's clock state recorded, and cross-host causality right on
# the merged time line (every request sent before it is received, every
# reply too).
. "$(dirname "$0")/test-lib.sh"

test "$(id -u)" = 0 || test_skip_all "needs root (namespaces, BPF)"
command -v ip >/dev/null || test_skip_all "ip (iproute2) not installed"

nsA=dc-hostA-$$
nsB=dc-hostB-$$
N=20

cleanup_ns() {
	ip netns del "$nsA" 2>/dev/null
	ip netns del "$nsB" 2>/dev/null
}
trap cleanup_ns EXIT

test_lazy_prereq NETNS '
	ip netns add "$nsA" && ip netns add "$nsB" &&
	ip link add dcvA netns "$nsA" type veth peer name dcvB netns "$nsB" &&
	ip -n "$nsA" addr add 10.201.0.1/24 dev dcvA &&
	ip -n "$nsB" addr add 10.201.0.2/24 dev dcvB &&
	ip -n "$nsA" link set dcvA up && ip -n "$nsA" link set lo up &&
	ip -n "$nsB" link set dcvB up && ip -n "$nsB" link set lo up &&
	ip netns exec "$nsB" unshare --uts true ||
	{ echo "cannot make network and UTS namespaces with a veth pair"; false; }
'

test_expect_success 'setup: a key and the socket probes' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	printf "layers: [sockets]\n" >"$SHARED/c.yaml" &&
	dc-gen "$SHARED/c.yaml" >"$SHARED/p.json" &&
	dc-sign -k "$SHARED/key" -o "$SHARED/p.sig" "$SHARED/p.json"
'

# on HOST NS CMD...: run CMD as host HOST: in network namespace NS and a
# UTS namespace of its own named HOST.
on() {
	_h=$1 _ns=$2
	shift 2
	ip netns exec "$_ns" unshare --uts sh -c "hostname $_h && exec \"\$@\"" sh "$@"
}

test_expect_success NETNS,BPF,PYTHON3 'two hosts, one collector each, merged: hosts apart, send before receive' '
	on hostA "$nsA" dc-collect -k "$SHARED/key" -o A.dcs "$SHARED/p.sig" -- \
		dc-netpair server 7000 $N "$PWD/ready" 2>A.err &
	a=$! &&
	wait_for_file ready &&
	on hostB "$nsB" dc-collect -k "$SHARED/key" -o B.dcs "$SHARED/p.sig" -- \
		dc-netpair client 10.201.0.1 7000 $N 2>B.err &&
	wait $a &&
	dc-aggregate --text A.dcs | grep -q "^header host=hostA " &&
	dc-aggregate --text B.dcs | grep -q "^header host=hostB " &&
	dc-aggregate A.dcs B.dcs 2>agg.err | dc-write merged.pfw.gz &&
	python3 - merged.pfw.gz $N <<-\PY
	import gzip, json, sys
	path, n = sys.argv[1], int(sys.argv[2])
	evs = [json.loads(l.rstrip(",\n")) for l in gzip.open(path, "rt")
	       if l.startswith("{")]
	host = {}
	for e in evs:
	    if e.get("name") == "PR":
	        a = e["args"]
	        host[e["pid"]] = a["host"]
	        assert a["host_index"] == (0 if a["host"] == "hostA" else 1), a
	        int(a["clock_offset_ns"])  # ns since the epoch: a string, exact
	        assert a["clock_ntp"] in ("synchronised", "unsynchronised"), a
	        assert "clock_esterror_us" in a and "clock_maxerror_us" in a, a
	assert set(host.values()) == {"hostA", "hostB"}, host
	# Every event carries its own host'"'"'s hash, named by an HH line.
	hh = {e["args"]["value"]: e["args"]["name"] for e in evs
	      if e.get("name") == "HH"}
	for e in evs:
	    if e.get("ph") == "X" and e.get("cat") == "sock":
	        assert hh[e["args"]["hhash"]] == host[e["pid"]], e
	# Host B'"'"'s processes were moved above every Linux pid.
	assert all((p >= 1 << 22) == (h == "hostB") for p, h in host.items()), host
	def calls(h, name, size):
	    out = [e for e in evs if e.get("ph") == "X" and e.get("cat") == "sock"
	           and e["name"] == name and host.get(e["pid"]) == h
	           and e["args"].get("ret") == size]
	    return sorted(out, key=lambda e: e["ts"])
	req_sent = calls("hostB", "sendto", 32)
	req_recv = calls("hostA", "recvfrom", 32)
	rep_sent = calls("hostA", "sendto", 48)
	rep_recv = calls("hostB", "recvfrom", 48)
	for name, l in (("req_sent", req_sent), ("req_recv", req_recv),
	                ("rep_sent", rep_sent), ("rep_recv", rep_recv)):
	    assert len(l) == n, (name, len(l))
	end = lambda e: e["ts"] + e["dur"]
	for i in range(n):
	    # A message is sent (the call begins) before its receive returns.
	    assert req_sent[i]["ts"] <= end(req_recv[i]), i
	    assert rep_sent[i]["ts"] <= end(rep_recv[i]), i
	    # And the round trips follow each other across the hosts.
	    assert end(req_recv[i]) <= rep_sent[i]["ts"] + rep_sent[i]["dur"], i
	    if i + 1 < n:
	        assert end(rep_recv[i]) <= req_sent[i + 1]["ts"] + 1, i
	print("ok", n)
	PY
'

test_expect_success NETNS,BPF 'each host'"'"'s stream records its clock state' '
	on hostA "$nsA" dc-collect -k "$SHARED/key" -o A.dcs "$SHARED/p.sig" -- true 2>err &&
	dc-aggregate --text A.dcs >text &&
	grep "^sysinfo" text | grep -q "clock.offset_ns=-\{0,1\}[0-9]" &&
	grep "^sysinfo" text | grep -q "clock.ntp=\(synchronised\|unsynchronised\)" &&
	grep "^sysinfo" text | grep -q "clock.esterror_us=[0-9]"
'

# Two hosts whose wall clocks disagree by 5 ms (host B's is behind): the
# end of MPI_Init, which every rank leaves at about the same moment, puts
# host B back on host A's time line.  Exact numbers through dc-mkstream.
write_mpi_streams() {
	cat >a <<-\EOF &&
	header host=nodeA run=r offset=1700000000000000000 start=0
	probe id=0 kind=uprobe layer=MPI name=MPI_Init target=/lib/libmpi.so args=ptr,ptr ret=int
	probe id=1 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	process pid=100 ppid=1 uid=0 gid=0 rank=0 exe=/bin/app cmdline=app cwd=/ start=0
	call probe=0 pid=100 tid=100 ts=1000000 dur=500000 ret=0 args=0,0
	call probe=1 pid=100 tid=100 ts=2000000 dur=1000 ret=32 args=3,0,32
	end
	EOF
	cat >b <<-EOF
	header host=nodeB run=r offset=1699999999995000000 start=0
	probe id=0 kind=uprobe layer=MPI name=$1 target=/lib/libmpi.so args=ptr,ptr ret=int
	probe id=1 kind=uprobe layer=POSIX name=read target=/lib/libc.so.6 args=fd,ptr,size ret=size
	process pid=100 ppid=1 uid=0 gid=0 rank=1 exe=/bin/app cmdline=app cwd=/ start=0
	call probe=0 pid=100 tid=100 ts=1200000 dur=300000 ret=0 args=0,0
	call probe=1 pid=100 tid=100 ts=1990000 dur=20000 ret=32 args=3,0,32
	end
	EOF
}

test_expect_success 'MPI_Init sets the other host'"'"'s clock: the receive ends after the send' '
	write_mpi_streams MPI_Init &&
	dc-mkstream a >a.dcs && dc-mkstream b >b.dcs &&
	dc-aggregate --text a.dcs b.dcs >out 2>err &&
	test_one_line err &&
	grep -q "^dc-aggregate: b.dcs (host nodeB): clock set by the end of MPI_Init: +5000000 ns$" err &&
	# Both MPI_Init calls now end at 1500000, the read ends after the
	# write began (2000000).
	grep "^call " out | cut -d" " -f2-5 >got &&
	cat >expect <<-\EOF &&
	probe=0 pid=100 tid=100 ts=1000000
	probe=1 pid=100 tid=100 ts=2000000
	probe=0 pid=4194404 tid=4194404 ts=1200000
	probe=2 pid=4194404 tid=4194404 ts=1990000
	EOF
	test_cmp expect got &&
	grep "^process pid=4194404" out | grep -q "clock_sync=MPI_Init.*clock_correction_ns=5000000"
'

test_expect_success 'without a collective both saw, the wall clocks alone: 5 ms off' '
	write_mpi_streams MPI_Send &&
	dc-mkstream a >a.dcs && dc-mkstream b >b.dcs &&
	dc-aggregate --text a.dcs b.dcs >out 2>err &&
	! test -s err &&
	# The read (probe 3 here) lands 5 ms early: 1990000 - 5000000, before
	# the stream began, as an unsigned 64-bit time.
	grep "^call probe=3 " out | grep -q " ts=18446744073706541616 "
'

test_expect_success 'merged files come out in time order, each input in its own order' '
	for h in A B; do
		{
			echo "header host=node$h run=r offset=1700000000000000000 start=0" &&
			echo "probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size" &&
			echo "process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/app cmdline=app cwd=/ start=0" &&
			for t in 1 3 5; do
				test $h = A && ts=${t}000 || ts=$((t + 1))000
				echo "call probe=0 pid=100 tid=100 ts=$ts dur=10 ret=1 args=3,0,1" &&
				# A string frame ends the EVENTS frame: three per input.
				echo "string id=$t value=/s$t" || return 1
			done &&
			echo "end"
		} >$h.txt &&
		dc-mkstream $h.txt >$h.dcs || return 1
	done &&
	dc-aggregate --text B.dcs A.dcs >out &&
	grep "^call " out | sed "s/.* ts=\([0-9]*\) .*/\1/" | tr "\n" " " >got &&
	printf "1000 2000 3000 4000 5000 6000 " >expect &&
	test_cmp expect got
'

test_done

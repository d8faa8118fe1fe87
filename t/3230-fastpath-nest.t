#!/bin/sh
# The client library's records among the kernel's (issue 11).  On the
# fast path a write() made inside a uprobe-traced user function nests
# under that call, one made after it returned does not, and the system
# call each write() makes nests under it.  dc-collect places a client
# record by the kernel's records around it (dc-collect/nest.h) and puts
# it into the stream by end time (merge.c): a drain reads every kernel
# record begun before the client records were taken, and holds back the
# records of either side that ended after its time.  t/helpers/nest-test
# feeds merge.c and nest.c by hand; the traced run has the workload's
# threads share one CPU (preempted in the middle of things) and a drain
# every millisecond.
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq TWO_CPUS '
	test "$(nproc)" -ge 2 || { echo "one CPU: the workload and the collector would share it"; false; }
'

# nest_layers: posix on the fast path, system calls, the workload's
# dc_test_nest by uprobe.
nest_layers() {
	cat <<-EOC
	layers:
	  - posix
	  - name: sys
	    kind: syscall
	    functions: [write]
	  - name: NEST
	    kind: uprobe
	    target: $WORKLOAD
	    functions: [dc_test_nest]
	EOC
}

test_expect_success 'merge and nesting, drain by drain: every check passes' '
	nest-test >tap &&
	cat tap &&
	! grep "^not ok" tap &&
	n=$(sed -n "s/^1\.\.//p" tap) &&
	test "$n" -ge 13 &&
	test "$(grep -c "^ok " tap)" = "$n"
'

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success BPF,PYTHON3,TWO_CPUS 'writes inside and after a traced function, 4 threads on one CPU: each under its call or at the top, its system call under it' '
	nest_layers >c.yaml &&
	sign_spec c.yaml &&
	{ taskset -c 1 dc-collect -k "$SHARED/key" --poll-ms 1 probes.sig -- \
		taskset -c 0 "$WORKLOAD" nest 4 3000 2>collect.err; echo $? >collect.rc; } |
		dc-aggregate 2>aggregate.err | dc-write t.pfw.gz &&
	cat collect.err aggregate.err &&
	test "$(cat collect.rc)" = 0 &&
	grep -q "fast path: [0-9]* functions recorded" collect.err &&
	test ! -s aggregate.err &&
	python3 - t.pfw.gz <<-\EOF
	import collections, gzip, json, sys
	ev = [json.loads(l) for l in gzip.open(sys.argv[1], "rt") if l.startswith("{")]
	x = [e for e in ev if e["ph"] == "X"]
	by_id = {e["id"]: e for e in x}
	def parent(e):
	    p = e["args"].get("p_idx")
	    assert p is None or p in by_id, ("parent never written", e)
	    return by_id.get(p)
	def within(e, p):
	    assert p["tid"] == e["tid"] and p["ts"] <= e["ts"], (e, p)
	    assert e["ts"] + e["dur"] <= p["ts"] + p["dur"], (e, p)
	calls = [e for e in x if e["cat"] == "NEST"]
	writes = [e for e in x if e["cat"] == "POSIX" and e["name"] == "write"]
	sys_writes = [e for e in x if e["cat"] == "sys" and e["name"] == "write"]
	assert (len(calls), len(writes)) == (12000, 24000), (len(calls), len(writes))
	assert all(e["args"]["level"] == 0 and parent(e) is None for e in calls)
	inside, level = collections.Counter(), {}
	for w in writes:
	    p = parent(w)
	    assert w["args"]["ret"] == 1, w
	    if p is not None:
	        assert p["cat"] == "NEST", (w, p)
	        within(w, p)
	        inside[p["id"]] += 1
	    level[w["id"]] = 0 if p is None else 1
	    assert w["args"]["level"] == level[w["id"]], w
	assert len(inside) == 12000 and set(inside.values()) == {1}, len(inside)
	under = collections.Counter()
	for s in sys_writes:
	    p = parent(s)
	    if p is None or p["cat"] != "POSIX":
	        continue
	    within(s, p)
	    assert s["args"]["level"] == level[p["id"]] + 1, (s, p)
	    under[p["id"]] += 1
	assert len(under) == 24000 and set(under.values()) == {1}, len(under)
	EOF
'

test_done

#!/usr/bin/env python3
"""fast-compare - compare the fast path's trace with the uprobe path's.

  fast-compare FAST.pfw.gz UPROBE.pfw.gz
  fast-compare --cats MPI,HDF5 FAST.pfw.gz UPROBE.pfw.gz

Takes the events of the traced workload (t/helpers/fastclient mix) between
its two marker stat() calls, in time order, and compares them one by one
on name, cat, level, errno, arguments and the parent call's name,
ignoring ts, dur, ids and
pointer values (heap and stack addresses differ between runs).  Calls
that libc makes to its own exported functions (fopen's open, stat's
fstatat) are seen by a uprobe (it is on the function's address) but not
by an interposing wrapper: they are removed from the uprobe trace and
what ran under them moves up a level.
With --cats, takes the events of those categories (MPI-IO and HDF5
calls) of every process instead, each process's in tree order, and
compares process with process (an MPI job's ranks have other pids in
the other run: processes are matched by their sorted event lists).
Prints the differences; exit 1 if any.
"""
import gzip
import json
import sys

IGNORE = {"hhash", "p_idx", "fhash"}
POINTER_RET = {"fopen", "fopen64", "fdopen", "freopen", "opendir",
               "readdir", "fgets", "mmap"}


def load(path):
    events, files = [], {}
    with gzip.open(path, "rt") as f:
        for line in f:
            line = line.strip().rstrip(",")
            if not line or line in ("[", "]"):
                continue
            ev = json.loads(line)
            if ev.get("ph") == "M":
                if ev.get("name") == "FH":
                    files[ev["args"]["value"]] = ev["args"]["name"]
                continue
            if ev.get("ph") == "X" and ev.get("cat") != "datacrumbs":
                events.append(ev)
    for ev in events:
        ev["file"] = files.get(ev["args"].get("fhash"), "")
    return tree_order(events)


def tree_order(events):
    """Each call before its children, siblings by start time.

    Times are whole microseconds, so a call's last child and the call's
    next sibling can start in the same one: order by the tree, not by
    (ts, level).  Siblings that tie keep the order they were written in
    (a call is written when it ends, so the earlier one first)."""
    ids = {e["id"] for e in events}
    kids = {}
    for n, e in enumerate(events):
        e["_n"] = n
        p = e["args"].get("p_idx")
        kids.setdefault(p if p in ids else None, []).append(e)
    out, todo = [], [None]
    while todo:
        p = todo.pop()
        if p is not None:
            out.append(p)
        below = sorted(kids.get(None if p is None else p["id"], []),
                       key=lambda e: (e["ts"], e["_n"]))
        todo.extend(reversed(below))
    return out


def window(events):
    marks = [e for e in events if e["cat"] == "POSIX" and e["name"] == "stat"
             and (e["file"].endswith("/begin") or e["file"].endswith("/end"))]
    if len(marks) != 2:
        sys.exit("fast-compare: %d marker stat calls, expected 2" % len(marks))
    pid = marks[0]["pid"]
    t0, t1 = marks[0]["ts"], marks[1]["ts"] + marks[1]["dur"]
    return [e for e in events if e["pid"] == pid and t0 <= e["ts"] <= t1]


def drop_internals(events, cats=("POSIX", "STDIO")):
    """A library's calls to its own exported functions (libc's, or
    MPICH's MPI_Comm_rank inside its collective reads): calls of cats
    inside another call of cats on the same thread."""
    user = [e for e in events if e["cat"] in cats]
    out, dropped = [], []
    for e in events:
        if e["cat"] in cats and any(
                s is not e and s["tid"] == e["tid"] and s["ts"] <= e["ts"] and
                e["ts"] + e["dur"] <= s["ts"] + s["dur"] and
                s["args"].get("level", 0) < e["args"].get("level", 0)
                for s in user):
            dropped.append(e)
            continue
        out.append(e)
    for e in out:
        e["args"]["level"] = e["args"].get("level", 0) - sum(
            1 for d in dropped
            if d["tid"] == e["tid"] and d["ts"] <= e["ts"] and
            e["ts"] + e["dur"] <= d["ts"] + d["dur"] and
            e["args"].get("level", 0) > d["args"].get("level", 0))
    return out


def parents(events, all_events):
    """Each kept event's parent as (cat, name), through dropped ones."""
    by_id = {e["id"]: e for e in all_events}
    kept = {e["id"] for e in events}
    for e in events:
        p = by_id.get(e["args"].get("p_idx"))
        while p is not None and p["id"] not in kept:
            p = by_id.get(p["args"].get("p_idx"))
        e["parent"] = (p["cat"], p["name"]) if p else None


def key(e):
    a = {k: v for k, v in e["args"].items() if k not in IGNORE}
    a["parent"] = e.get("parent")
    if "mode" in a and not (a.get("flags", 0) & 0o100):
        del a["mode"]  # not passed: whatever the register held
    if e["name"] in POINTER_RET:
        a.pop("ret", None)
    a.pop("handle", None)
    return (e["cat"], e["name"], e["file"], json.dumps(a, sort_keys=True))


def by_process(events, cats):
    """The events of cats, one list of keys per process, sorted."""
    kept = drop_internals([e for e in events if e["cat"] in cats], cats)
    parents(kept, events)
    procs = {}
    for e in kept:
        procs.setdefault(e["pid"], []).append(key(e))
    return sorted(procs.values())


def compare_processes(fall, sall, cats):
    fast, slow = by_process(fall, cats), by_process(sall, cats)
    if len(fast) != len(slow):
        sys.exit("fast-compare: %d processes on the fast path, %d by uprobe" %
                 (len(fast), len(slow)))
    return ([k for p in fast for k in p + [None]],
            [k for p in slow for k in p + [None]])


if sys.argv[1] == "--cats":
    fall, sall = load(sys.argv[3]), load(sys.argv[4])
    fast, slow = compare_processes(fall, sall, set(sys.argv[2].split(",")))
else:
    fall, sall = load(sys.argv[1]), load(sys.argv[2])
    fwin = window(fall)
    swin = drop_internals(window(sall))
    parents(fwin, fall)
    parents(swin, sall)
    fast = [key(e) for e in fwin]
    slow = [key(e) for e in swin]
bad = 0
for i in range(max(len(fast), len(slow))):
    f = fast[i] if i < len(fast) else None
    s = slow[i] if i < len(slow) else None
    if f != s:
        print("event %d:\n  fast   %s\n  uprobe %s" % (i, f, s))
        bad += 1
n = max(len([k for k in fast if k]), len([k for k in slow if k]))
print("%d events compared, %d differ" % (n, bad))
sys.exit(1 if bad else 0)

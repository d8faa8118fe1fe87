#!/usr/bin/env python3
"""pfw-parents-first.py --after < TRACE.pfw - print how many events name
(p_idx) a parent whose line comes after theirs.

pfw-parents-first.py N OUT.pfw.gz < TRACE.pfw - rewrite a trace's lines
(on stdin) in the order other DFTracer writers use: metadata first, then
the events by start time, a parent before its children (the longer call
first at a tie).  Writes OUT as gzip members of N lines each, with a
dc-write index (OUT.idx), so a reader can cut it into parts."""
import json, sys, zlib

if sys.argv[1] == "--after":
    pending, after = {}, 0
    for line in sys.stdin:
        line = line.strip().rstrip(",")
        if not line or line in ("[", "]"):
            continue
        e = json.loads(line)
        p = e.get("args", {}).get("p_idx")
        if p is not None and p != -1:
            pending[p] = pending.get(p, 0) + 1
        after += pending.pop(e.get("id"), 0)
    print(after)
    sys.exit(0)
n, out = int(sys.argv[1]), sys.argv[2]
head, events = [], []
for line in sys.stdin:
    line = line.strip().rstrip(",")
    if not line or line in ("[", "]"):
        continue
    e = json.loads(line)
    if e.get("ph") == "M" or e.get("cat") == "datacrumbs" and e.get("name") != "end":
        head.append((line, e))
    else:
        events.append((line, e))
end = [x for x in events if x[1].get("name") == "end" and x[1].get("cat") == "datacrumbs"]
events = [x for x in events if x not in end]
events.sort(key=lambda x: (int(x[1].get("ts", 0)), -int(x[1].get("dur", 0) or 0)))
lines = [x[0] for x in head + events + end]
with open(out, "wb") as f, open(out + ".idx", "w") as idx:
    off = 0
    for m, i in enumerate(range(0, len(lines), n)):
        text = ("\n".join(lines[i:i + n]) + "\n").encode()
        c = zlib.compressobj(6, zlib.DEFLATED, 31)
        data = c.compress(text) + c.flush()
        f.write(data)
        idx.write(json.dumps({"member": m, "offset": off, "length": len(data),
                              "first_line": i + 1, "ulength": len(text)}) + "\n")
        off += len(data)

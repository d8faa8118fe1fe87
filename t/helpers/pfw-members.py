#!/usr/bin/env python3
"""pfw-members.py TRACE.pfw.gz - check a multi-member trace against its
index (TRACE.pfw.gz.idx): every indexed member is a complete gzip member
on its own, holds the lines the index names, and every line is JSON.
Prints "MEMBERS LINES".  With --tail-ok, data after the last indexed
member may be damaged (a killed writer); the complete lines in it must
still parse.  Exit 1 with a message on the first mismatch."""
import gzip, json, sys, zlib

def fail(msg):
    print("pfw-members: " + msg, file=sys.stderr)
    sys.exit(1)

def check_lines(text, where, ids=None):
    n = 0
    for line in text.split(b"\n"):
        if line.strip() in (b"", b"[", b"]"):
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            fail("%s: not JSON: %s: %r" % (where, e, line[:80]))
        for key in ("id", "name", "cat", "pid", "tid", "ph"):
            if key not in obj:
                fail("%s: no %s: %r" % (where, key, line[:80]))
        if ids is not None:
            ids.append(obj["id"])
        n += 1
    return n

args = [a for a in sys.argv[1:] if not a.startswith("--")]
tail_ok = "--tail-ok" in sys.argv
path = args[0]
data = open(path, "rb").read()
entries = [json.loads(l) for l in open(path + ".idx")]
end = 0
lines = 0
for k, e in enumerate(entries):
    if e["member"] != k or e["offset"] != end:
        fail("entry %d: member %d at %d, expected %d at %d"
             % (k, e["member"], e["offset"], k, end))
    raw = data[e["offset"]:e["offset"] + e["length"]]
    d = zlib.decompressobj(31)
    text = d.decompress(raw)
    if not d.eof or d.unused_data:
        fail("member %d is not exactly one gzip member" % k)
    if len(text) != e["ulength"] or not text.endswith(b"\n"):
        fail("member %d: %d bytes, index says %d" % (k, len(text), e["ulength"]))
    nl = text.count(b"\n")
    if nl != e["last_line"] - e["first_line"] + 1 or e["first_line"] != lines + 1:
        fail("member %d: %d lines, index says %d..%d"
             % (k, nl, e["first_line"], e["last_line"]))
    ids = []
    objs = check_lines(text, "member %d" % k, ids)
    # Ids are unique, not in file order (dc-trace(5)): the index names
    # the ids of the member's first and last objects.
    if objs and (e["first_id"] != ids[0] or e["last_id"] != ids[-1]):
        fail("member %d: ids %d..%d, index says %d..%d"
             % (k, ids[0], ids[-1], e["first_id"], e["last_id"]))
    lines = e["last_line"]
    end += e["length"]
if end != len(data):
    if not tail_ok:
        fail("%d bytes after the last indexed member" % (len(data) - end))
    # The damaged tail: decompress what can be, check its whole lines.
    d = zlib.decompressobj(31)
    try:
        text = d.decompress(data[end:])
    except zlib.error:
        text = b""
    text = text[:text.rfind(b"\n") + 1]
    check_lines(text, "tail")
elif not tail_ok:
    # All of it must also read as one file, as zcat and gzip.open do.
    whole = gzip.decompress(data)
    if whole.count(b"\n") != lines:
        fail("gzip reads %d lines, index %d" % (whole.count(b"\n"), lines))
print(len(entries), lines)

"""calltree.py - call paths, layer overlap and bytes counted once at the
highest call that moved them, from the p_idx links of a trace, whatever
the order of parents and children.

dc-write (dc-trace(5), Parents) writes a call when it returns: its line
comes after its children's, and p_idx names an id no earlier line has.
Other DFTracer writers, and dc-write's block I/O (queued by a call that
has returned), put a parent first.  Both orders go through one path:

  * A call whose parent is already known (resolved: its path and whether
    it or a call above it moved bytes) is counted at once.
  * Otherwise its subtree waits, as a FRAGMENT, under its parent's id
    (pending), and is lifted when the parent's line comes: the parent's
    label is put before every path of the fragment, the layer overlap
    of its direct children is counted against the parent's layer, and
    its bytes are dropped when the parent moved bytes itself.

A fragment holds no call of its own, only sums: relative call path ->
[calls, us], direct children's us per layer, and the bytes of its
highest movers as a time series and per file.  So what a part holds
grows with the calls open (unresolved) and the distinct call paths under
them, not with the events read: a million writes under one open call
are one path and one series.  Merged partial results also keep a few
call records per part (exports and tails, below).  The resolved and seen
maps keep the last WINDOW ids only (a late child of an older call becomes an orphan,
as in dc-aggregate's own window).

Across parts (Dask tasks), a part hands on the fragments still waiting
(open), the calls that may be parents of lines in earlier parts
(exports) and the resolved calls that may be parents of lines in later
ones (tails: with parents first, the calls still open when the last line
of their thread began, a chain; resolved, or records as exports are).  With children first, a line's parent began before it, and on
one thread lines come in the order calls end, so a parent of an earlier
part's line began before the end of its thread's first line in this
part: those calls are the ones open at that moment, at most the stack
depth per thread (with parents first, only calls whose parent is not in
the part are handed on).  Partial results merge in trace order and lift the
earlier open fragments through the later exports; what is still open at
the end (a parent never written: lost, or still running) is counted
under its own label and in orphans.
"""
from dcreport.bins import FIRST_WIDTH, add_bin, add_counts, merge_bins

WINDOW = 1 << 17


def new_fragment():
    return {"rel": {}, "direct": {}, "n": 0, "width": FIRST_WIDTH,
            "lo": None, "hi": None, "series": {}, "fileio": {}}


def merge_fragment(a, b):
    """Add fragment B into fragment A (and return A)."""
    add_counts(a["rel"], b["rel"])
    add_counts(a["direct"], b["direct"])
    a["n"] += b["n"]
    add_counts(a["fileio"], b["fileio"])
    merge_bins(a, b)
    return a


def lift(p, f, rec):
    """Fragment F (children of the call REC) seen from REC's parent:
    REC's label before each path, its direct children's overlap counted
    into partial P, its movers' bytes dropped if REC moved bytes."""
    label, cat, moved = rec[0], rec[1], rec[2]
    ov = p["overlap"]
    for c, us in f["direct"].items():
        if c != cat:
            ov[(c, cat)] = ov.get((c, cat), 0) + us
    g = new_fragment()
    g["rel"] = {(label,) + r: v for r, v in f["rel"].items()}
    if not moved:
        g["width"], g["lo"], g["hi"] = f["width"], f["lo"], f["hi"]
        g["series"], g["fileio"] = f["series"], f["fileio"]
    return g


def commit(p, f, path, above):
    """Count fragment F under the resolved PATH into partial P; its bytes
    unless a call above (ABOVE) moved them already."""
    paths = p["paths"]
    for r, v in f["rel"].items():
        k = path + r
        c = paths.get(k)
        if c is None:
            paths[k] = list(v)
        else:
            c[0] += v[0]
            c[1] += v[1]
    if above:
        return
    for fk, rw in f["fileio"].items():
        e = p["fileio"].get(fk)
        if e is None:
            e = p["fileio"][fk] = [0, 0, 0, 0, 0, 0]
        e[2] += rw[0]
        e[3] += rw[1]
    merge_bins(p, f)


def resolve_open(p, f, key, exports):
    """Lift the open fragment F waiting for KEY through the call records
    EXPORTS (or resolved calls: path, above, layer) towards a root; count
    it in P, or keep it open in P."""
    while True:
        rec = exports.get(key)
        if rec is None:
            o = p["open"].get(key)
            p["open"][key] = f if o is None else merge_fragment(o, f)
            return
        if len(rec) == 3:
            commit(p, lift_resolved(p, f, rec), rec[0], rec[1])
            return
        f = lift(p, f, rec)
        key = rec[3]
        if key is None:
            commit(p, f, (), False)
            return


def merge_open(a, b):
    """Partial B follows partial A (already merged into A but for open
    fragments, exports and tails): A's open fragments meet B's exports
    (children first), B's meet A's tails (parents first)."""
    waiting = a["open"]
    a["open"] = {}
    for key, f in waiting.items():
        resolve_open(a, f, key, b["exports"])
    for key, f in b["open"].items():
        resolve_open(a, f, key, a["tails"])
    a["exports"].update(b["exports"])
    a["tails"].update(b["tails"])


def finish(p):
    """Count what is still open at the end: orphans, under their own
    labels (a parent that was never written)."""
    for f in p["open"].values():
        p["orphans"] += f["n"]
        commit(p, f, (), False)
    p["open"] = {}
    p["exports"] = {}
    p["tails"] = {}
    return p


class Tree:
    """The call-tree state of one part, counting into partial P."""

    def __init__(self, p, fi):
        self.p = p
        self.fi = fi
        self.resolved = {}   # key -> (path, above: it or a call above moved, layer)
        self.seen = {}       # key -> record of a call not yet resolved
        self.pending = {}    # parent key -> fragment of its children
        self.first_end = {}  # (pid, tid) -> end of its first line here
        self.stacks = {}     # (pid, tid) -> [(end, key)] of calls open now
        self.last_id = 0

    def key(self, v):
        return None if v is None else (self.fi, v)

    def _forget(self, i):
        """Keep the last WINDOW ids of the resolved and seen maps."""
        if i > self.last_id:
            self.last_id = i
            if len(self.resolved) + len(self.seen) > 2 * WINDOW:
                low = (self.fi, i - WINDOW)
                self.resolved = {k: v for k, v in self.resolved.items() if k >= low}
                self.seen = {k: v for k, v in self.seen.items() if k >= low}

    def context(self, i, pidx, label, cat, moved):
        """A line of the member before the part: only what resolves."""
        if i is None:
            return
        pk = self.key(pidx)
        if pk is None:
            self.resolved[self.key(i)] = ((label,), moved, cat)
        else:
            r = self.resolved.get(pk)
            if r is not None:
                self.resolved[self.key(i)] = (r[0] + (label,), r[1] or moved, cat)
        self._forget(i)

    def call(self, i, pidx, label, cat, us, mover, thread, ts, end):
        """A call: its id I (or None), parent id PIDX (None: none), and
        MOVER, the bytes it moved (a tuple of (series key, file key,
        direction, bytes) moves, or None)."""
        moved = mover is not None
        k = self.key(i)
        pk = self.key(pidx)
        rec = (label, cat, moved, pk)
        f = self.pending.pop(k, None) if k is not None else None
        if k is not None:
            self._export(k, pk, rec, thread, ts, end)
        if f is None and (pk is None or pk in self.resolved):
            self._direct(k, pk, rec, us, mover, ts)
        else:
            self._deferred(k, pk, rec, us, mover, f, ts)
        if i is not None:
            self._forget(i)
            # Parents first: the calls still open when this line began.
            st = [x for x in self.stacks.get(thread, ()) if x[0] >= ts]
            st.append((end, k))
            self.stacks[thread] = st

    def instant(self, pidx, mover, ts):
        """An instant that moved bytes (MOVER) under the call PIDX: no
        call path of its own; its bytes count unless a call above it
        moved them (the send above a socket's message)."""
        pk = self.key(pidx)
        r = self.resolved.get(pk) if pk is not None else None
        if pk is None or r is not None:
            if r is None or not r[1]:
                _move(self.p, mover, ts)
            return
        g = new_fragment()
        _move(g, mover, ts)
        self.deliver(g, pk, None, None)

    def _export(self, k, pk, rec, thread, ts, end):
        fe = self.first_end.get(thread)
        if fe is None:
            fe = self.first_end[thread] = end
        # Its parent not read yet (the chain goes on in this part or
        # after it): with parents first, only a part's first calls.
        if ts <= fe and pk not in self.resolved and pk not in self.seen:
            self.p["exports"][k] = rec

    def _direct(self, k, pk, rec, us, mover, ts):
        """The common case, a call with no children waiting and its
        parent resolved (or none): counted at once, no fragment."""
        p = self.p
        label, cat, moved = rec[0], rec[1], rec[2]
        if pk is None:
            path, above = (label,), False
        else:
            r = self.resolved[pk]
            path, above = r[0] + (label,), r[1]
            if r[2] != cat:
                ov = p["overlap"]
                ov[(cat, r[2])] = ov.get((cat, r[2]), 0) + us
        c = p["paths"].get(path)
        if c is None:
            p["paths"][path] = [1, us]
        else:
            c[0] += 1
            c[1] += us
        if moved and not above:
            _move(p, mover, ts)
        if k is not None:
            self.resolved[k] = (path, above or moved, cat)

    def _deferred(self, k, pk, rec, us, mover, f, ts):
        """A call with children waiting, or whose parent is not
        resolved: its subtree as a fragment, lifted and delivered."""
        label, cat, moved = rec[0], rec[1], rec[2]
        own = new_fragment()
        own["rel"][(label,)] = [1, us]
        if moved:
            _move(own, mover, ts)
        g = own
        if f is not None:
            g = lift(self.p, f, rec)
            if moved:
                g["width"], g["lo"], g["hi"] = own["width"], own["lo"], own["hi"]
                g["series"], g["fileio"] = own["series"], own["fileio"]
            add_counts(g["rel"], own["rel"])
        g["direct"] = {cat: us}
        g["n"] = 1
        self.deliver(g, pk, rec, k)

    def deliver(self, g, pk, rec, k):
        """Hand fragment G (the subtree of call REC, key K) to its parent."""
        if pk is None:
            if k is not None:
                self.resolved[k] = ((rec[0],), rec[2], rec[1])
            g["direct"] = {}
            commit(self.p, g, (), False)
            return
        r = self.resolved.get(pk)
        if r is not None:
            if k is not None:
                self.resolved[k] = (r[0] + (rec[0],), r[1] or rec[2], rec[1])
            commit(self.p, lift_resolved(self.p, g, r), r[0], r[1])
            return
        if k is not None:
            self.seen[k] = rec
        # Up through parents already read but not resolved (a late child).
        while pk in self.seen:
            prec = self.seen[pk]
            g = lift(self.p, g, prec)
            pk = prec[3]
            if pk is None:
                commit(self.p, g, (), False)
                return
            r = self.resolved.get(pk)
            if r is not None:
                commit(self.p, lift_resolved(self.p, g, r), r[0], r[1])
                return
        o = self.pending.get(pk)
        self.pending[pk] = g if o is None else merge_fragment(o, g)

    def close(self):
        """The fragments of the part still waiting: open; the resolved
        calls open at the end: tails."""
        for st in self.stacks.values():
            for end, k in st:
                t = self.resolved.get(k) or self.seen.get(k)
                if t is not None:
                    self.p["tails"][k] = t
        for pk, f in self.pending.items():
            o = self.p["open"].get(pk)
            self.p["open"][pk] = f if o is None else merge_fragment(o, f)
        self.pending = {}


def _move(t, mover, ts):
    """Count the bytes of MOVER (its moves: a read, a write, or both for
    a copy) at TS into table T (a partial result or a fragment): its
    process's series and its files' reads or writes."""
    for skey, fkey, d, n in mover:
        add_bin(t, skey, ts, n)
        if fkey is None:
            continue
        if "rel" in t:
            rw = t["fileio"].setdefault(fkey, [0, 0])
            rw[0 if d == "r" else 1] += n
        else:
            e = t["fileio"].get(fkey)
            if e is None:
                e = t["fileio"][fkey] = [0, 0, 0, 0, 0, 0]
            e[2 if d == "r" else 3] += n


def lift_resolved(p, g, r):
    """G's direct children's overlap against a resolved parent R."""
    cat = r[2]
    ov = p["overlap"]
    for c, us in g["direct"].items():
        if c != cat:
            ov[(c, cat)] = ov.get((c, cat), 0) + us
    g["direct"] = {}
    return g

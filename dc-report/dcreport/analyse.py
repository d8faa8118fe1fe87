"""analyse.py - the one analysis behind dc-report: each part of each trace
becomes a partial result (a dict of bounded tables: nothing in it grows
with the number of events, only with processes, files, functions and call
paths), and partial results merge, in a Dask reduction tree, into the
result the report draws.

The calls, bytes and time per layer, function and file, the event and
process counts and the time span follow dc-write --summary exactly (see
dc-write/summary.c): bytes are "bytes" where a call has it, else the
positive return values of calls with a size (or count) argument, up to
that size.
"""
import resource

from dcreport import calltree
from dcreport.bins import FIRST_WIDTH, add_bin, add_counts, add_nested, merge_bins
from dcreport.reader import read_part

META = ("datacrumbs", "dftracer")


def _id(v):
    """An id or p_idx as an int (DFTracer writers may quote them), None
    for none: absent, -1 (not known) or not a number."""
    if type(v) is not int:
        if type(v) is not str or not v.strip().lstrip("-").isdigit():
            return None
        v = int(v)
    return v if v >= 0 else None


def _label(name, cat):
    """A call's name in a call path: kernel events by their short name."""
    if cat in ("block", "pagecache", "faults", "net"):
        return name.rsplit(":", 1)[-1]
    return name


def int_value(v):
    """A JSON number as summary.c reads it: integers, numeric strings
    (strtoll), else -1."""
    t = type(v)
    if t is int:
        return v
    if t is str:
        s, i = v.strip(), 0
        if s[:1] in "+-":
            i = 1
        while i < len(s) and s[i].isdigit():
            i += 1
        try:
            return int(s[:i])
        except ValueError:
            return 0
    return -1


_KINDS = {}


def _access_size(args):
    """The size of a read or write for the access sizes: the bytes it
    moved (as _nbytes counts them: what a read returned, not the buffer
    it offered; what a copy_file_range copied, not the 2^63 cp asks
    for), where that is known: the call has "bytes", or a size (or
    count) and a return value.  None for a failed call (a negative
    return value, an errno): it moved nothing, it made no access."""
    if "errno" in args or ("ret" in args and int_value(args["ret"]) < 0):
        return None
    if int_value(args.get("bytes")) >= 0 or (
            "ret" in args and ("size" in args or "count" in args)):
        return _nbytes(args)
    return None


def _nbytes(args):
    """Bytes a call moved, as dc-write --summary counts them (dc-trace(5)):
    "bytes" where the return value is not a byte count (fread's items,
    MPI's status count), else its positive return value, at most the
    size (or count) it asked for."""
    v = int_value(args.get("bytes"))
    if v >= 0:
        return v
    ret = int_value(args.get("ret"))
    size = int_value(args.get("size"))
    if size < 0:
        size = int_value(args.get("count"))
    return ret if 0 < ret <= size else 0


# What the result of an io_uring request counts, by opcode (lib/bytes.h,
# dc_uring_moves): "r" bytes read, "w" bytes written, "m" moved between
# two files (splice, tee); any other opcode's result is no byte count.
URING_MOVES = dict([(op, "r") for op in (1, 4, 10, 22, 27, 49, 58, 60)] +
                   [(op, "w") for op in (2, 5, 9, 23, 26, 47, 48, 61)] +
                   [(30, "m"), (33, "m")])


# What a POSIX AIO request moved, by the operation aio_return names
# (dc-probes(5), aiocb): "R" read, "W" written.
AIO_MOVES = {"R": "r", "W": "w"}


def direction(name, args):
    """classify(NAME), but for an io_uring completion the direction of
    its request's opcode (None for splice and tee, which do both), and
    for aio_return that of its request."""
    if name.endswith("io_uring_complete"):
        d = URING_MOVES.get(int_value(args.get("opcode")))
        return d if d != "m" else None
    if name.rsplit(":", 1)[-1] == "aio_return":
        return AIO_MOVES.get(args.get("op"))
    return classify(name)


def _fkey(args):
    """The file an event names: ("n", name) in the 2023 form, ("h",
    fhash), or None."""
    fname = args.get("fname")
    if type(fname) is str:
        return ("n", fname)
    if "fhash" in args:
        return ("h", int_value(args["fhash"]))
    return None


COPIES = ("sendfile", "sendfile64", "copy_file_range", "splice", "tee")


def _is_copy(name):
    """A call that copies from one descriptor to another: it reads its
    fhash, writes its fhash2 (when the trace could name it)."""
    return name.rsplit(":", 1)[-1] in COPIES


def _copy_dest(args):
    """The file a copy between two files writes (a call with a size and
    a second file, fhash2: sendfile, copy_file_range, splice), or None;
    it reads the first (dc-trace(5))."""
    if "fhash2" in args and ("size" in args or "count" in args):
        return ("h", int_value(args["fhash2"]))
    return None


def classify(name):
    """'r' for a call that reads data, 'w' for one that writes it, None
    for metadata and everything else; by name, as Darshan's modules do."""
    k = _KINDS.get(name)
    if k is None and name not in _KINDS:
        n = name.rsplit(":", 1)[-1].lower()
        # fwrite_unlocked is fwrite without the stream's lock.
        if n.endswith("_unlocked"):
            n = n[:-len("_unlocked")]
        # A POSIX AIO request is queued by aio_read or aio_write and
        # moves its data by aio_return (direction).
        if any(x in n for x in ("readlink", "readdir", "readahead", "ready")) or \
                n in ("aio_read", "aio_write"):
            k = None
        elif "read" in n or "recv" in n or \
                n in ("fgets", "fgetc", "getc", "getchar", "getline",
                      "getdelim"):
            k = "r"
        elif "write" in n or "send" in n or \
                n in ("fputs", "fputc", "putc", "fprintf", "vfprintf",
                      "printf", "vprintf", "puts", "putchar", "dprintf",
                      "vdprintf"):
            k = "w"
        _KINDS[name] = k
    return k


def size_bucket(n):
    """The power of two at or below N (0 for 0)."""
    return 0 if n <= 0 else 1 << (n.bit_length() - 1)


def new_partial():
    return {
        "files": {},        # file index -> end args, dropped, unreadable
        "hosts": {},        # hhash -> name
        "procs": {},        # (hhash, pid) -> [id, program, rank, ppid, cmdline]
        "labels": {},       # (hhash, pid) -> [id, track name]
        "fnames": {},       # fhash -> file name
        "starts": {},       # file index -> start args
        "jobs": {},         # "slurm job 42 step 0" -> 1, from PR lines
        "events": 0, "samples": 0, "first_ts": 0, "last_ts": 0,
        "pids": {},         # (hhash, pid) -> [first ts, last end]
        "rows": {},         # (layer, name, file key) -> [calls, bytes, us]
        "width": FIRST_WIDTH, "lo": None, "hi": None,
        "series": {},       # ("p", proc, dir) / ("l", layer, dir) -> {bin: bytes}
        "sizes": {},        # (layer, dir) -> {bucket of bytes moved: calls}
        "fileio": {},       # file key -> [data calls, meta calls, r, w, data us, meta us]
        "blat": {},         # op letter -> {latency bucket us: requests}
        "devbytes": {},     # op letter -> bytes
        "cache": {},        # pagecache event name -> [count, pages]
        "faults": {},       # fault event name -> count
        "paths": {},        # call path -> [calls, us]
        "overlap": {},      # (layer, parent layer) -> us
        "orphans": 0,       # calls whose parent was not found
        "open": {},         # parent key -> call-tree fragment waiting for it
        "exports": {},      # key -> call record, for earlier parts' fragments
        "tails": {},        # key -> resolved call, for later parts' fragments
        "parts": 0,
    }


class _Part:
    """Takes the objects of one part into a partial result."""

    def __init__(self, part):
        self.p = new_partial()
        self.fi = part["file"]
        self.hh = part["hhash"]
        self.tree = calltree.Tree(self.p, self.fi)
        self.p["files"][self.fi] = {"end": None, "ours": False, "drops": 0,
                                    "unreadable": 0}

    def context(self, ev):
        """A line of the member before the part, for parents written
        before their children (see calltree)."""
        if ev.get("ph") == "X" and ev.get("cat") not in META:
            args = ev.get("args")
            if type(args) is dict and type(ev.get("name")) is str:
                name, cat = ev["name"], ev.get("cat")
                moved = ((_is_copy(name) or _copy_dest(args) is not None or
                          direction(name, args) is not None) and _nbytes(args) > 0)
                self.tree.context(_id(ev.get("id")), _id(args.get("p_idx")),
                                  _label(name, cat), cat, moved)

    def meta(self, ev, name, args):
        p = self.p
        if type(args) is not dict:
            return
        i = ev.get("id") if type(ev.get("id")) is int else 0
        key = (self.hh, ev.get("pid"))
        if name == "FH":
            v = int_value(args.get("value"))
            if type(args.get("name")) is str and v not in p["fnames"]:
                p["fnames"][v] = args["name"]
        elif name == "HH":
            p["hosts"][int_value(args.get("value"))] = str(args.get("name"))
        elif name == "PR":
            if args.get("job_id") is not None:
                job = "%s job %s" % (args.get("scheduler", ""), args["job_id"])
                if args.get("job_step") is not None:
                    job += " step %s" % args["job_step"]
                p["jobs"][job.strip()] = 1
            old = p["procs"].get(key)
            if old is None or i > old[0]:
                p["procs"][key] = [i, str(args.get("name", "")), int_value(args.get("rank")),
                                   int_value(args.get("ppid")), str(args.get("cmdline", ""))]
        elif name == "process_name":
            old = p["labels"].get(key)
            if old is None or i > old[0]:
                p["labels"][key] = [i, str(args.get("name", ""))]

    def lifecycle(self, ev, name, args):
        f = self.p["files"][self.fi]
        if type(args) is not dict:
            args = {}
        if name == "end":
            f["end"] = {k: args.get(k) for k in ("num_events", "events", "dropped",
                                                   "truncated", "corrupt", "interrupted")}
        elif name == "start":
            f["ours"] = True  # dc-write's: it ends with an end line
            self.p["starts"][self.fi] = {k: args.get(k) for k in args if k != "hhash"}
        elif name == "dropped":
            f["drops"] = max(f["drops"], int_value(args.get("total")))

    def take(self, ev):
        name, cat, ph = ev.get("name"), ev.get("cat"), ev.get("ph")
        if type(name) is not str or type(cat) is not str or type(ph) is not str:
            return
        args = ev.get("args")
        if ph == "M":
            self.meta(ev, name, args)
            return
        if cat in META:
            if cat == "datacrumbs":
                self.lifecycle(ev, name, args)
            return
        if type(args) is not dict:
            args = {}
        p = self.p
        ts = int_value(ev.get("ts"))
        dur = int_value(ev.get("dur"))
        if ts >= 0 and (p["first_ts"] == 0 or ts < p["first_ts"]):
            p["first_ts"] = ts
        if ts >= 0 and dur >= 0 and ts + dur > p["last_ts"]:
            p["last_ts"] = ts + dur
        proc = (self.hh, int_value(ev.get("pid")))
        span = p["pids"].get(proc)
        end = ts + max(dur, 0)
        if span is None:
            p["pids"][proc] = [ts, end]
        else:
            if ts < span[0]:
                span[0] = ts
            if end > span[1]:
                span[1] = end
        if ph == "C":
            self.counter(name, cat, ts, args)
            return
        p["events"] += 1
        self.event(ev, name, cat, ph, ts, dur, args, proc)

    def counter(self, name, cat, ts, args):
        p = self.p
        p["samples"] += 1
        if ts > p["last_ts"]:
            p["last_ts"] = ts
        r = p["rows"].get((cat, name, None))
        if r is None:
            r = p["rows"][(cat, name, None)] = [0, 0, 0]
        for k, col in (("calls", 0), ("bytes", 1), ("dur_us", 2)):
            v = int_value(args.get(k))
            if v > 0:
                r[col] += v

    def event(self, ev, name, cat, ph, ts, dur, args, proc):
        """One event: its rows, series and tables; a call goes to the
        call tree with the bytes it moved, counted for its process and
        file only if no call above it moved them."""
        p = self.p
        fkey, fkey2 = _fkey(args), _copy_dest(args)
        us = dur if dur > 0 else 0
        nbytes = _nbytes(args)
        self.row((cat, name, fkey), us, nbytes)
        if fkey2 is not None:
            self.row((cat, name, fkey2), us, nbytes)
        d = "c" if fkey2 is not None or _is_copy(name) else direction(name, args)
        # The bytes of a process or a file count once, at the highest
        # call that moved them (not again in the syscall under a write):
        # a call hands its bytes (mover) to the call tree, which counts
        # them, or drops them once a call above it proves to have moved some.
        mover = None
        if cat == "block":
            self.block(name, ts, dur, args, proc)
        elif cat == "pagecache":
            c = p["cache"].setdefault(name, [0, 0])
            c[0] += 1
            c[1] += max(int_value(args.get("pages")), 0)
        elif cat == "faults":
            p["faults"][name] = p["faults"].get(name, 0) + 1
        elif d is not None:
            mover = self.data(cat, proc, d, (fkey, fkey2), ts, nbytes, args)
        for k in (fkey, fkey2):
            if k is not None:
                self.fileio(k, d is not None, us)
        if ph == "X":
            self.tree.call(_id(ev.get("id")), _id(args.get("p_idx")),
                           _label(name, cat), cat, us, mover,
                           (proc, int_value(ev.get("tid"))), ts, ts + max(dur, 0))
        elif mover is not None:
            # A socket message or an io_uring completion under a send,
            # a read or io_uring_enter: its bytes count for the process
            # only if no call above it moved them.
            self.tree.instant(_id(args.get("p_idx")), mover, ts)

    def row(self, rk, us, nbytes):
        r = self.p["rows"].get(rk)
        if r is None:
            r = self.p["rows"][rk] = [0, 0, 0]
        r[0] += 1
        r[1] += nbytes
        r[2] += us

    def fileio(self, fkey, data, us):
        f = self.p["fileio"].get(fkey)
        if f is None:
            f = self.p["fileio"][fkey] = [0, 0, 0, 0, 0, 0]
        f[0 if data else 1] += 1
        f[4 if data else 5] += us

    def data(self, cat, proc, d, fkeys, ts, nbytes, args):
        """A read or write (D "r" or "w", of file FKEYS[0]) or a copy (D
        "c": read from FKEYS[0], written to FKEYS[1]): the bytes it moved
        in the access sizes, its bytes in the layer's series; what it moved, as
        (series key, file key, direction, bytes) moves, or None."""
        ways = (("r", fkeys[0]), ("w", fkeys[1])) if d == "c" else ((d, fkeys[0]),)
        size = _access_size(args)
        moves = ()
        for way, fkey in ways:
            if nbytes:
                self.add_bin(("l", cat, way), ts, nbytes)
                moves += ((("p", proc, way), fkey, way, nbytes),)
            if size is not None:
                h = self.p["sizes"].setdefault((cat, way), {})
                b = size_bucket(size)
                h[b] = h.get(b, 0) + 1
        return moves or None

    def block(self, name, ts, dur, args, proc):
        """Block requests: the completion carries the latency (its dur),
        the size and the op (R..., W..., D... for discard, F... flush)."""
        op = args.get("op")
        if "size" not in args or type(op) is not str or not op:
            return
        p = self.p
        letter = op.lstrip("F")[:1] or op[:1]
        h = p["blat"].setdefault(letter, {})
        b = size_bucket(max(dur, 0))
        h[b] = h.get(b, 0) + 1
        size = max(int_value(args.get("size")), 0)
        p["devbytes"][letter] = p["devbytes"].get(letter, 0) + size
        d = {"R": "r", "W": "w"}.get(letter)
        if d is not None and size:
            self.add_bin(("l", "block", d), ts, size)
            s = p["sizes"].setdefault(("block", d), {})
            k = size_bucket(size)
            s[k] = s.get(k, 0) + 1

    def add_bin(self, key, ts, value):
        add_bin(self.p, key, ts, value)


def analyse_parts(parts):
    """Dask's per-partition step: the partial result of some parts."""
    out = None
    for part in parts:
        a = _Part(part)
        issues, bad = read_part(part, a.take, a.context)
        a.tree.close()
        a.p["files"][part["file"]]["unreadable"] = bad
        a.p["issues"] = issues
        a.p["parts"] = 1
        out = a.p if out is None else merge_two(out, a.p)
    return out if out is not None else new_partial()


def _latest(a, b):
    for k, v in b.items():
        if k not in a or v[0] > a[k][0]:
            a[k] = v


def merge_two(a, b):
    """Merge partial B into A (and return A)."""
    for fi, f in b["files"].items():
        g = a["files"].get(fi)
        if g is None:
            a["files"][fi] = f
            continue
        if f["end"] is not None:
            g["end"] = f["end"]
        g["ours"] = g["ours"] or f["ours"]
        g["drops"] = max(g["drops"], f["drops"])
        g["unreadable"] += f["unreadable"]
    for k in ("hosts", "starts", "jobs"):
        a[k].update(b[k])
    for k, v in b["fnames"].items():
        a["fnames"].setdefault(k, v)
    _latest(a["procs"], b["procs"])
    _latest(a["labels"], b["labels"])
    a["events"] += b["events"]
    a["samples"] += b["samples"]
    a["orphans"] += b["orphans"]
    a["parts"] += b["parts"]
    a["issues"] = a.get("issues", []) + b.get("issues", [])
    if b["first_ts"] and (a["first_ts"] == 0 or b["first_ts"] < a["first_ts"]):
        a["first_ts"] = b["first_ts"]
    a["last_ts"] = max(a["last_ts"], b["last_ts"])
    for k, s in b["pids"].items():
        t = a["pids"].get(k)
        if t is None:
            a["pids"][k] = s
        else:
            t[0], t[1] = min(t[0], s[0]), max(t[1], s[1])
    for k in ("rows", "fileio", "devbytes", "cache", "faults", "paths", "overlap"):
        add_counts(a[k], b[k])
    add_nested(a["sizes"], b["sizes"])
    add_nested(a["blat"], b["blat"])
    merge_bins(a, b)
    calltree.merge_open(a, b)
    return a


def merge_all(partials):
    """Dask's aggregation step: merge partial results, in order."""
    out = None
    for p in partials:
        out = p if out is None else merge_two(out, p)
    return out if out is not None else new_partial()


def worker_usage():
    """This process's peak resident memory in bytes and CPU seconds."""
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_maxrss * 1024, u.ru_utime + u.ru_stime


class ByValue:
    """A function that travels to the workers as its code (cloudpickle by
    value), not as a module name, so workers need not have datacrumbs
    installed.  Dask pickles a task graph with plain pickle when it can,
    which would send dcreport functions by name."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args):
        return self.fn(*args)

    def __reduce__(self):
        import cloudpickle
        return (cloudpickle.loads, (cloudpickle.dumps(self.fn),))


def run(parts, client=None, split_every=8):
    """The analysis of PARTS on the Dask cluster of CLIENT, or in this
    process (Dask's synchronous scheduler) without one: one task per
    part, then a reduction tree SPLIT_EVERY wide."""
    import dask.bag as db
    if not parts:
        return new_partial()
    bag = db.from_sequence(parts, npartitions=len(parts))
    result = bag.reduction(ByValue(analyse_parts), ByValue(merge_all),
                           split_every=split_every)
    if client is None:
        return calltree.finish(result.compute(scheduler="sync"))
    return calltree.finish(client.compute(result).result())

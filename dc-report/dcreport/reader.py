"""reader.py - cut DFTracer traces into parts and read a part's lines.

A part is a run of whole gzip members of one trace, found through the
.idx sidecar dc-write keeps (dc-trace(5), Index), so parts decompress
independently, on any worker.  A file without a usable index, a plain
.pfw, or the bytes after the last indexed member (a writer that died, or
one still writing) are read as one stream part.

Nothing here raises on bad data: what cannot be read becomes an issue,
(kind, path, text), with kind "truncated" (input cut short), "malformed"
(damaged gzip data, lines that are not JSON) or "system" (cannot open or
read the file), and reading goes on with what follows when it can.
"""
import json
import os
import zlib

GZIP_MAGIC = b"\x1f\x8b"
READ_SIZE = 1 << 20


def _issue(kind, path, text):
    return (kind, path, text)


def _load_index(path, size):
    """The members of PATH's .idx as (member, offset, length, first_line),
    or (None, why) when there is none or it does not fit the file."""
    try:
        with open(path + ".idx", "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return None, "no index"
    except OSError as e:
        return None, "index unreadable (%s)" % e.strerror
    members = []
    end = 0
    for n, line in enumerate(raw.split(b"\n")):
        if not line.strip():
            continue
        try:
            e = json.loads(line)
            m = (int(e["member"]), int(e["offset"]), int(e["length"]),
                 int(e.get("first_line", 0)), int(e.get("ulength", 0)))
        except (ValueError, KeyError, TypeError, AttributeError):
            if n == 0:
                return None, "not a dc-write index"
            break  # a line being appended: use what came before
        if m[0] != len(members) or m[1] != end:
            return None, "index does not match the file"
        if m[1] + m[2] > size:
            break  # the file was cut: the rest is read as a tail

        members.append(m)
        end = m[1] + m[2]
    return members, None


def _first_host(path):
    """The host hash and name from the HH line heading PATH, or (0, "")."""
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
        if head.startswith(GZIP_MAGIC):
            head = zlib.decompressobj(31).decompress(head, 65536)
        for line in head.split(b"\n")[:4]:
            if b'"HH"' in line:
                a = json.loads(line).get("args", {})
                return int(a.get("value", 0)), str(a.get("name", ""))
    except (OSError, zlib.error, ValueError, TypeError, AttributeError):
        pass
    return 0, ""


def plan(paths, target):
    """Parts of about TARGET uncompressed bytes for the traces PATHS, the
    per-file facts the workers need, and the issues found planning."""
    parts, files, issues = [], [], []
    for fi, path in enumerate(paths):
        try:
            size = os.path.getsize(path)
            with open(path, "rb") as f:
                magic = f.read(2)
        except OSError as e:
            issues.append(_issue("system", path, "cannot read: %s" % e.strerror))
            files.append({"path": path, "host": (0, ""), "index": "unread"})
            continue
        host = _first_host(path)
        info = {"path": path, "host": host, "size": size}
        files.append(info)
        base = {"file": fi, "path": path, "hhash": host[0]}
        if magic != GZIP_MAGIC:
            info["index"] = "plain text"
            parts.append(dict(base, kind="stream", gzip=False, start=0,
                              end=size, tail=False))
            continue
        members, why = _load_index(path, size)
        if members is None or not members:
            info["index"] = why or "empty index"
            parts.append(dict(base, kind="stream", gzip=True, start=0,
                              end=size, tail=False))
            continue
        info["index"] = "%d members" % len(members)
        run, ubytes = [], 0
        for m in members:
            run.append(m)
            ubytes += m[4] or m[2] * 8
            if ubytes >= target:
                parts.append(_members_part(base, run, members))
                run, ubytes = [], 0
        if run:
            parts.append(_members_part(base, run, members))
        last = members[-1][1] + members[-1][2]
        if last < size:
            parts.append(dict(base, kind="stream", gzip=True, start=last,
                              end=size, tail=True))
    return parts, files, issues


def _members_part(base, run, members):
    first = run[0][0]
    ctx = members[first - 1] if first > 0 else None
    return dict(base, kind="members", members=[m[:4] for m in run],
                context=ctx[:4] if ctx else None)


def _lines(text, first_line, take, bad):
    """Feed the JSON objects of TEXT's lines to TAKE; count the others."""
    # One decode per block, not per line: json.loads on bytes guesses the
    # encoding of every line.
    # (A decoder made here: module globals travel to the workers pickled.)
    loads = json.JSONDecoder().decode
    for n, line in enumerate(text.decode("utf-8", "surrogateescape").split("\n")):
        if not line or line in ("[", "]") or line.isspace():
            continue
        if line[-1:] == ",":
            line = line[:-1]
        try:
            obj = loads(line)
        except ValueError:
            bad(first_line + n if first_line else 0)
            continue
        if type(obj) is dict:
            take(obj)
        else:
            bad(first_line + n if first_line else 0)


def read_part(part, take, context_take):
    """Read PART: its context member (for the parents of its first calls)
    to CONTEXT_TAKE, its lines to TAKE.  Returns (issues, bad_lines)."""
    issues, state = [], {"bad": 0, "where": []}
    path = part["path"]

    def bad(line_no):
        state["bad"] += 1
        if len(state["where"]) < 3:
            state["where"].append(line_no)

    try:
        with open(path, "rb") as f:
            if part["kind"] == "members":
                _read_members(f, part, take, context_take, bad, issues)
            else:
                _read_stream(f, part, take, bad, issues)
    except OSError as e:
        issues.append(_issue("system", path, "cannot read: %s" % e.strerror))
    if state["bad"]:
        where = ", ".join("line %d" % w for w in state["where"] if w)
        issues.append(_issue("malformed", path, "%d unreadable line%s%s" % (
            state["bad"], "" if state["bad"] == 1 else "s",
            " (" + where + ")" if where else "")))
    return issues, state["bad"]


def _read_members(f, part, take, context_take, bad, issues):
    if part["context"] is not None:
        _, off, length, first = part["context"]
        f.seek(off)
        try:
            text = zlib.decompress(f.read(length), 31)
            _lines(text, 0, context_take, lambda n: None)
        except zlib.error:
            pass  # reported by the part that holds it
    for member, off, length, first in part["members"]:
        f.seek(off)
        data = f.read(length)
        try:
            text = zlib.decompress(data, 31)
        except zlib.error as e:
            issues.append(_issue("malformed", part["path"],
                                 "gzip member %d (bytes %d-%d) is damaged (%s): "
                                 "its lines are left out" % (member, off, off + length, e)))
            continue
        _lines(text, first, take, bad)


def _read_stream(f, part, take, bad, issues):
    """Decompress (or read) bytes START..END member after member, line by
    line, in bounded memory."""
    path, pos, end = part["path"], part["start"], part["end"]
    f.seek(pos)
    dec = zlib.decompressobj(31) if part["gzip"] else None
    member_start, held = pos, b""
    # Line numbers are known when reading from the start of the file.
    lineno = 0 if pos == 0 else None
    while pos < end:
        data = f.read(min(READ_SIZE, end - pos))
        if not data:
            break
        pos += len(data)
        while data:
            if dec is None:
                out, data = data, b""
            else:
                try:
                    out = dec.decompress(data)
                except zlib.error as e:
                    issues.append(_issue("malformed", path,
                                         "damaged gzip data in the member at byte %d (%s): "
                                         "the rest of the file is left out" % (member_start, e)))
                    _lines(held[:held.rfind(b"\n") + 1], 0, take, bad)
                    return
                if dec.eof:
                    rest = dec.unused_data
                    member_start = pos - len(rest)
                    dec = zlib.decompressobj(31)
                    data = rest
                else:
                    data = b""
            held += out
            cut = held.rfind(b"\n")
            if cut >= 0:
                _lines(held[:cut], lineno + 1 if lineno is not None else 0, take, bad)
                if lineno is not None:
                    lineno += held.count(b"\n", 0, cut) + 1
                held = held[cut + 1:]
    if dec is not None and member_start < pos:
        # A member begun and never ended: the writer was cut short.
        issues.append(_issue("truncated", path,
                             "ends inside a gzip member (from byte %d): the lines "
                             "after the last complete one are lost" % member_start))
        cut = held.rfind(b"\n")
        held = held[:cut] if cut >= 0 else b""
    _lines(held, lineno + 1 if lineno is not None else 0, take, bad)

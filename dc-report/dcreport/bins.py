"""bins.py - time series in bins that merge exactly, and counting tables.

A table with "width", "lo", "hi" and "series" keys holds, per series key,
bytes per bin: absolute multiples of a power-of-two width in
microseconds, doubled until the span fits in MAX_BINS, so tables of any
span (partial results, call-tree fragments) merge exactly.
"""
FIRST_WIDTH = 1024
MAX_BINS = 240


def add_bin(p, key, ts, value):
    """Add VALUE at time TS to series KEY of table P."""
    b = ts // p["width"]
    if p["lo"] is None:
        p["lo"] = p["hi"] = b
    elif b < p["lo"] or b > p["hi"]:
        p["lo"], p["hi"] = min(p["lo"], b), max(p["hi"], b)
        while p["hi"] - p["lo"] >= MAX_BINS:
            coarsen(p)
        b = ts // p["width"]
    s = p["series"].get(key)
    if s is None:
        s = p["series"][key] = {}
    s[b] = s.get(b, 0) + value


def coarsen(p):
    """Double the bin width of table P, adding neighbouring bins."""
    p["width"] *= 2
    p["lo"] //= 2
    p["hi"] //= 2
    for key, s in p["series"].items():
        t = {}
        for b, v in s.items():
            t[b // 2] = t.get(b // 2, 0) + v
        p["series"][key] = t


def merge_bins(a, b):
    """Add the series of table B into table A (B may be coarsened)."""
    if b["lo"] is None:
        return
    while b["width"] < a["width"]:
        coarsen(b)
    while a["width"] < b["width"]:
        coarsen(a)
    if a["lo"] is None:
        a["lo"], a["hi"] = b["lo"], b["hi"]
    else:
        a["lo"], a["hi"] = min(a["lo"], b["lo"]), max(a["hi"], b["hi"])
    while a["hi"] - a["lo"] >= MAX_BINS:
        coarsen(a)
        coarsen(b)
        a["lo"], a["hi"] = min(a["lo"], b["lo"]), max(a["hi"], b["hi"])
    add_nested(a["series"], b["series"])


def add_counts(a, b):
    """Add the numbers (or lists of numbers) of dict B into dict A."""
    for k, v in b.items():
        if k in a:
            if type(v) is list:
                x = a[k]
                for i in range(len(v)):
                    x[i] += v[i]
            else:
                a[k] += v
        else:
            a[k] = list(v) if type(v) is list else v


def add_nested(a, b):
    """add_counts, one level down."""
    for k, h in b.items():
        if k in a:
            add_counts(a[k], h)
        else:
            a[k] = dict(h)

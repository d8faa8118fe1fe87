"""render.py - the report: one HTML file, inline SVG and CSS, a few lines
of script (sortable tables), nothing fetched from anywhere."""
import datetime
import html

from dcreport import plots

LAYER_ORDER = ["app", "HDF5", "PnetCDF", "MPI", "MPIIO", "STDIO", "POSIX", "sys",
               "syscalls", "sock", "block", "pagecache", "net", "faults", "io_uring"]

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;color:#222}
h1{font-size:1.6em;margin:0 0 .3em}h2{border-bottom:2px solid #4c72b0;padding-bottom:.1em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:.15em .6em;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child,td.t{text-align:left}th{cursor:pointer;background:#f0f3f8}
.warn{background:#c00;color:#fff;padding:.6em 1em;font-weight:bold;border-radius:4px;margin:.6em 0}
.warn ul{margin:.3em 0;font-weight:normal}.note{color:#666;font-size:.9em}
dl.head{display:grid;grid-template-columns:max-content auto;gap:.1em 1em}dl.head dt{font-weight:bold}
dl.head dd{margin:0}svg.plot{max-width:100%;height:auto;display:block;margin:.5em 0}
code{font-size:.9em}.path{font-family:monospace;text-align:left}
"""

SCRIPT = """
document.querySelectorAll('table.sort th').forEach(function (th, col) {
  th.addEventListener('click', function () {
    var tb = th.closest('table').tBodies[0], rows = Array.from(tb.rows);
    var num = function (r) { var v = r.cells[col].dataset.v; return v === undefined ? NaN : +v; };
    var down = th.dataset.dir !== 'down'; th.dataset.dir = down ? 'down' : 'up';
    rows.sort(function (a, b) {
      var x = num(a), y = num(b);
      var c = isNaN(x) || isNaN(y) ? a.cells[col].textContent.localeCompare(b.cells[col].textContent) : x - y;
      return down ? -c : c;
    });
    rows.forEach(function (r) { tb.appendChild(r); });
  });
});
"""


def esc(s):
    return html.escape(str(s), quote=True)


def when(us):
    if not us:
        return "-"
    t = datetime.datetime.fromtimestamp(us / 1e6, datetime.timezone.utc)
    return t.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"


def num(v, text=None):
    return '<td data-v="%s">%s</td>' % (v, esc(text if text is not None else "{:,}".format(v)))


def table(head, rows, cls="sort", tid=None):
    out = ['<table class="%s"%s><thead><tr>' % (cls, ' id="%s"' % tid if tid else "")]
    out += ["<th>%s</th>" % esc(h) for h in head]
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append("<tr>%s</tr>" % "".join(r))
    out.append("</tbody></table>")
    return "".join(out)


def text(s, cls=None):
    return '<td class="%s">%s</td>' % (cls or "t", esc(s))


def layer_key(layer):
    return (LAYER_ORDER.index(layer) if layer in LAYER_ORDER else len(LAYER_ORDER), layer)


class Report:
    def __init__(self, r, files, issues, top):
        self.r, self.files, self.top = r, files, top
        self.issues = issues + r.get("issues", [])
        self.out = []
        self.fnames = r["fnames"]

    def fname(self, fkey):
        if fkey is None:
            return "-"
        if fkey[0] == "n":
            return fkey[1]
        return self.fnames.get(fkey[1], "(unnamed)")

    def span_s(self):
        r = self.r
        return (r["last_ts"] - r["first_ts"]) / 1e6 if r["last_ts"] > r["first_ts"] else 0.0

    def html(self):
        w = self.out.append
        w("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        w("<title>datacrumbs report</title><style>%s</style></head><body>" % CSS)
        for section in (self.header, self.layers, self.heat, self.bandwidth, self.sizes,
                        self.top_files, self.kernel, self.calltree):
            section()
        w("<script>%s</script></body></html>\n" % SCRIPT)
        return "".join(self.out)

    # 1. the job
    def header(self):
        r, w = self.r, self.out.append
        w("<h1>datacrumbs report</h1>")
        w('<section id="header">')
        warn = self.warnings()
        if warn:
            w('<div class="warn" id="warning">This trace is not complete: the numbers '
              'below cover only what was recorded and read.<ul>%s</ul></div>'
              % "".join("<li>%s</li>" % esc(x) for x in warn))
        procs = r["procs"]
        ranks = {v[2] for v in procs.values() if v[2] >= 0}
        hosts = sorted(set(r["hosts"].values()) | {f["host"][1] for f in self.files
                                                    if f.get("host", (0, ""))[1]})
        runs = sorted({str(s.get("run")) for s in r["starts"].values() if s.get("run")})
        jobs = sorted(r["jobs"])
        rows = [("Command", self.command()), ("Hosts", ", ".join(hosts) or "-"),
                ("Processes", '<span id="processes" data-value="%d">%d</span>' % (
                    len(r["pids"]), len(r["pids"]))),
                ("Ranks", str(len(ranks)) if ranks else "none (not an MPI run, or ranks unknown)"),
                ("Job", ", ".join(jobs + ["run " + x for x in runs]) or "-"),
                ("Start", when(r["first_ts"])), ("End", when(r["last_ts"])),
                ("Run time", '<span id="runtime" data-value="%.3f">%.3f</span> s' % (
                    self.span_s(), self.span_s())),
                ("Events", '<span id="events" data-value="%d">%s</span>%s' % (
                    r["events"], "{:,}".format(r["events"]),
                    ", %s counter samples" % "{:,}".format(r["samples"]) if r["samples"] else "")),
                ("Traces", "; ".join("%s (%s)" % (f["path"], f.get("index", "?"))
                                     for f in self.files))]
        w('<dl class="head">')
        for k, v in rows:
            v = v if k in ("Processes", "Events", "Run time") else esc(v)
            w('<dt>%s</dt><dd id="h-%s">%s</dd>' % (esc(k), k.lower().replace(" ", "-"), v))
        w("</dl></section>")

    def command(self):
        r = self.r
        pids = {k[1] for k in r["pids"]}
        roots = [(r["pids"].get(k, [0])[0], k) for k, v in r["procs"].items() if v[3] not in pids]
        if not roots:
            roots = [(r["pids"].get(k, [0])[0], k) for k in r["procs"]]
        if not roots:
            return "-"
        v = r["procs"][min(roots)[1]]
        return v[4] or v[1]

    def warnings(self):
        out = []
        for fi, f in sorted(self.r["files"].items()):
            path = self.files[fi]["path"]
            end = f["end"]
            if end is None and f["ours"]:
                out.append("%s: no end line: the writer did not finish (killed, or still "
                           "writing); drops are unknown" % path)
                if f["drops"] > 0:
                    out.append("%s: %d events dropped (dropped lines)" % (path, f["drops"]))
                continue
            if end is None:
                continue  # another DFTracer writer's trace: no end line to expect
            dropped = max(int(end.get("dropped") or 0), f["drops"])
            if dropped:
                out.append("%s: %s events were dropped by the collector" % (
                    path, "{:,}".format(dropped)))
            for k, say in (("truncated", "its input stream was truncated"),
                           ("corrupt", "its input stream had a corrupt frame"),
                           ("interrupted", "the collection was interrupted")):
                if end.get(k) is True:
                    out.append("%s: %s" % (path, say))
        for kind, path, msg in self.issues:
            out.append("%s: %s" % (path, msg))
        if self.r["orphans"]:
            out.append("%d calls whose parent call could not be found are shown at the top of "
                       "their call path" % self.r["orphans"])
        return out

    # 2. layers
    def layer_rows(self):
        per = {}
        for (layer, name, fkey), (calls, nbytes, us) in self.r["rows"].items():
            t = per.setdefault(layer, [0, 0, 0])
            t[0] += calls
            t[1] += nbytes
            t[2] += us
        return per

    def layers(self):
        r, w = self.r, self.out.append
        per = self.layer_rows()
        ptime = sum(max(s[1] - s[0], 0) for s in r["pids"].values())
        over = {}
        for (layer, parent), us in r["overlap"].items():
            over.setdefault(layer, []).append((us, parent))
        rows, bars = [], []
        for layer in sorted(per, key=layer_key):
            calls, nbytes, us = per[layer]
            share = us / ptime if ptime else 0.0
            under = ", ".join("%s %.1f%%" % (p, 100.0 * u / us) for u, p in
                              sorted(over.get(layer, []), reverse=True) if us) or "-"
            bw = plots.human(nbytes / (us / 1e6)) + "/s" if us and nbytes else "-"
            rows.append([text(layer), num(us, "%.3f" % (us / 1e3)),
                         num(round(share * 100, 2), "%.1f%%" % (share * 100)), text(under, "t"),
                         num(calls), num(nbytes), text(bw, "b")])
            bars.append((layer, us, share))
        w('<section id="layers"><h2>Layer breakdown</h2>')
        w('<p class="note">Time is summed over processes and threads; the share is of the '
          'processes\' summed lifetimes (%.3f s); "under" is the part of a layer\'s time spent '
          'inside calls of another layer.</p>' % (ptime / 1e6))
        w(table(["layer", "time (ms)", "share", "under", "calls", "bytes", "bandwidth"], rows,
                tid="layer-table"))
        if bars:
            w(plots.layer_times(bars))
        self.rows_table()
        w("</section>")

    def rows_table(self):
        """dc-write --summary's table: per layer, function and file."""
        rows = sorted(((l, n, self.fname(f), c) for (l, n, f), c in self.r["rows"].items()),
                      key=lambda x: (x[0], -x[3][2], x[1], x[2]))
        out, layer, shown = [], None, 0
        for l, n, f, (calls, nbytes, us) in rows:
            if l != layer:
                layer, shown = l, 0
            shown += 1
            if self.top and shown > self.top:
                continue
            out.append([text(l), text(n), num(calls), num(nbytes),
                        num(us, "%.3f" % (us / 1e3)), text(f)])
        self.out.append("<details><summary>Calls, bytes and time per layer, function and file "
                        "(%s)</summary>" % ("all" if not self.top else "top %d per layer" % self.top))
        self.out.append(table(["layer", "function", "calls", "bytes", "time (ms)", "file"], out,
                              tid="summary-table"))
        self.out.append("</details>")

    # 3. heat map
    def bins(self):
        r = self.r
        if r["lo"] is None:
            return None
        return r["lo"], r["hi"] - r["lo"] + 1, r["width"] / 1e6

    def heat(self):
        r, w = self.r, self.out.append
        w('<section id="heatmap"><h2>Heat map: bytes per process over time</h2>')
        b = self.bins()
        procs = {}
        for (kind, key, d), s in r["series"].items():
            if kind == "p":
                procs.setdefault(key, {})[d] = s
        if b is None or not procs:
            w('<p class="note">No call in the trace moved bytes.</p></section>')
            return
        lo, cols, width = b
        total = sorted(procs, key=lambda k: -sum(sum(s.values()) for s in procs[k].values()))
        shown = sorted(total[:48], key=lambda k: k)
        labels = [self.proc_label(k) for k in shown]
        read = [[procs[k].get("r", {}).get(lo + c, 0) for c in range(cols)] for k in shown]
        write = [[procs[k].get("w", {}).get(lo + c, 0) for c in range(cols)] for k in shown]
        t0 = (lo * r["width"] - r["first_ts"]) / 1e6
        w(plots.heatmap(labels, read, write, t0, width))
        w(table(["process", "bytes read", "bytes written"],
                [[text(lab), num(sum(rd)), num(sum(wr))]
                 for lab, rd, wr in zip(labels, read, write)], tid="heat-table"))
        w('<p class="note">Each byte counts once, at the highest call that moved it (a '
          'write, not again the system call under it; a socket\'s message or an io_uring '
          'completion only when no traced call above it moved bytes).</p>')
        if len(total) > len(shown):
            w('<p class="note">The %d processes that moved the most bytes of %d.</p>'
              % (len(shown), len(total)))
        w("</section>")

    def proc_label(self, k):
        lab = self.r["labels"].get(k)
        return lab[1] if lab else "pid %s" % k[1]

    # 4. bandwidth
    def bandwidth(self):
        r, w = self.r, self.out.append
        w('<section id="bandwidth"><h2>Bandwidth over time per layer</h2>')
        b = self.bins()
        series = {}
        if b is not None:
            lo = b[0]
            for (kind, key, d), s in r["series"].items():
                if kind == "l":
                    series[(key, d)] = {c - lo: v for c, v in s.items()}
        if not series:
            w('<p class="note">No call in the trace moved bytes.</p></section>')
            return
        t0 = (b[0] * r["width"] - r["first_ts"]) / 1e6
        w(plots.bandwidth(series, t0, b[2], b[1]))
        w('<p class="note">Bytes of the calls that returned them, at the time each call '
          'began; the block layer counts the requests that completed, the net and io_uring '
          'layers the bytes of socket messages and completions.</p></section>')

    # 5. access sizes
    def sizes(self):
        w = self.out.append
        w('<section id="sizes"><h2>Access sizes</h2>')
        h = {"%s %s" % (l, "read" if d == "r" else "write"): v
             for (l, d), v in self.r["sizes"].items()}
        if not h:
            w('<p class="note">No read or write call that moved a known number of '
              'bytes.</p></section>')
            return
        w(plots.histograms(h, "bytes moved (power-of-two bucket)",
                           "calls by size, per layer and operation"))
        w('<p class="note">Each read or write by the bytes it moved (what a read '
          'returned, not the buffer it offered); failed calls are left out; block '
          'requests by their size.</p>')
        # The same numbers as a table: each bucket by its lower bound.
        rows = [[text(l), text("read" if d == "r" else "write"), num(b, plots.human(b)), num(c)]
                for (l, d), v in sorted(self.r["sizes"].items(),
                                        key=lambda x: (layer_key(x[0][0]), x[0][1]))
                for b, c in sorted(v.items())]
        w("<details><summary>Calls per size</summary>")
        w(table(["layer", "operation", "bytes moved from", "calls"], rows, tid="sizes-table"))
        w("</details></section>")

    # 6. files
    def top_files(self):
        w = self.out.append
        w('<section id="files"><h2>Top files</h2>')
        items = sorted(self.r["fileio"].items(), key=lambda kv: -(kv[1][4] + kv[1][5]))
        rows = []
        for fkey, (dc, mc, rb, wb, dus, mus) in items[:20 if self.top else None]:
            rows.append([text(self.fname(fkey)), num(dc), num(dus, "%.3f" % (dus / 1e3)),
                         num(rb), num(wb), num(mc), num(mus, "%.3f" % (mus / 1e3))])
        if not rows:
            w('<p class="note">No call named a file.</p></section>')
            return
        w(table(["file", "data calls", "data time (ms)", "bytes read", "bytes written",
                 "metadata calls", "metadata time (ms)"], rows, tid="files-table"))
        w('<p class="note">Data calls read or write; metadata calls are the others that '
          'name a file (open, stat, close, seek, sync...), at every layer; bytes count once, at '
          'the highest call that moved them.</p></section>')

    # 7. kernel
    def kernel(self):
        r, w = self.r, self.out.append
        w('<section id="kernel"><h2>Kernel</h2>')
        ops = {"R": "read", "W": "write", "D": "discard", "N": "other"}
        if r["blat"]:
            h = {ops.get(k, k): v for k, v in r["blat"].items()}
            w(plots.histograms({k: {b: c for b, c in v.items()} for k, v in h.items()},
                               "latency, issue to completion (power-of-two bucket, us)",
                               "block requests by latency"))
        else:
            w('<p class="note">No block requests in the trace (the block layer was not '
              'traced, or nothing reached a device).</p>')
        # Of the system calls' reads, what the page cache can have
        # served: reads of files by path, not of devices (/dev/zero),
        # /proc, /sys, pipes, sockets or files the trace cannot name.  A
        # buffered read of a block device is left out too, which keeps
        # the figure a lower bound.
        app = cached = 0
        for (l, n, f), c in r["rows"].items():
            if l in ("sys", "syscalls") and classify_read(n):
                app += c[1]
                if page_cached(self.fname(f)):
                    cached += c[1]
        dev = r["devbytes"].get("R", 0)
        pairs = [("read by system calls", app), ("read from devices", dev)]
        cache = r["cache"]
        added = sum(v[1] or v[0] for k, v in cache.items() if "add_to_page_cache" in k)
        ra = [(k.rsplit(":", 1)[-1], v) for k, v in sorted(cache.items()) if "_ra" in k]
        if app or dev:
            w(plots.bars([(k, v / 2**20) for k, v in pairs], "MiB",
                         "page cache: bytes read vs bytes that reached the device"))
        rows = [[text("bytes read by system calls"), num(app)],
                [text("bytes read from block devices"), num(dev)],
                [text("bytes served from the page cache (at least)"), num(max(cached - dev, 0))],
                [text("bytes written to block devices"), num(r["devbytes"].get("W", 0))],
                [text("pages added to the page cache"), num(added)]]
        rows += [[text("readahead %s: calls" % k), num(v[0])] for k, v in ra]
        rows += [[text("readahead %s: pages" % k), num(v[1])] for k, v in ra]
        rows += [[text("%s" % k), num(v)] for k, v in sorted(r["faults"].items())]
        w(table(["", "count"], rows, tid="kernel-table"))
        w("</section>")

    # 8. call tree
    def calltree(self):
        w = self.out.append
        w('<section id="calltree"><h2>Call tree: the top call paths by time</h2>')
        paths = sorted(self.r["paths"].items(), key=lambda kv: (-kv[1][1], kv[0]))
        rows = [[text(" > ".join(p), "path"), num(c), num(us, "%.3f" % (us / 1e3))]
                for p, (c, us) in paths[:30]]
        if not rows:
            w('<p class="note">No complete calls.</p></section>')
            return
        w(table(["call path", "calls", "time (ms)"], rows, tid="calltree-table"))
        w('<p class="note">Each path ends at the call it times; its time includes the calls '
          'under it.</p></section>')


def page_cached(path):
    """Whether a file of this name is one the page cache holds: a path,
    outside /dev, /proc and /sys."""
    return (path.startswith("/") and
            not path.startswith(("/dev/", "/proc/", "/sys/")))


def classify_read(name):
    from dcreport.analyse import classify
    return classify(name) == "r"


def render(result, files, issues, top=10):
    return Report(result, files, issues, top).html()

"""plots.py - the report's figures as inline SVG, drawn by matplotlib
(text as paths: the SVG needs no font and no network).  Each function
takes plain numbers and returns an <svg> element as a string."""
import io
import re

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402

matplotlib.rcParams.update({
    "svg.hashsalt": "dc-report",      # stable ids: the same trace, the same file
    "svg.fonttype": "path",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
})


def _data(artists):
    """Mark the artists that draw data (bars, lines, images) with an id
    starting "data-", so a reader of the SVG can tell data from axes."""
    for a in artists:
        if a.get_gid() is None:
            _data.n += 1
            a.set_gid("data-%d" % _data.n)
    return artists


_data.n = 0


def _svg(fig, label):
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    s = buf.getvalue()
    s = s[s.index("<svg"):]
    # Scale with the page; name the figure for readers and tests.
    s = re.sub(r'<svg ([^>]*?)width="[^"]*" height="[^"]*"',
               r'<svg \1', s, count=1)
    return s.replace("<svg ", '<svg class="plot" role="img" aria-label="%s" ' % label, 1)


def human(n, unit="B"):
    n = float(n)
    for p in ("", "Ki", "Mi", "Gi", "Ti", "Pi"):
        if abs(n) < 1024 or p == "Pi":
            return ("%.0f %s%s" if p == "" else "%.1f %s%s") % (n, p, unit)
        n /= 1024


def layer_times(layers):
    """LAYERS: [(layer, time us, share)]: a bar per layer."""
    fig, ax = plt.subplots(figsize=(11, 0.3 * len(layers) + 0.9))
    names = [l for l, _, _ in layers][::-1]
    vals = [t / 1e3 for _, t, _ in layers][::-1]
    _data(ax.barh(names, vals, color="#4c72b0"))
    ax.set_xlabel("time in calls (ms, summed over processes)")
    return _svg(fig, "time per layer")


def heatmap(labels, read, write, t0_s, width_s):
    """Bytes per process (rows) and time bin (columns), read above
    written.  READ and WRITE are lists of rows."""
    n = len(labels)
    fig, axes = plt.subplots(2, 1, figsize=(11, 1.6 + 0.5 * min(n, 40)), sharex=True,
                             squeeze=True, gridspec_kw={"hspace": 0.45})
    cols = len(read[0]) if read else 1
    extent = [t0_s, t0_s + cols * width_s, n - 0.5, -0.5]
    top = max([max(r) for r in read + write] + [1])
    for ax, rows, what in ((axes[0], read, "read"), (axes[1], write, "written")):
        data = [[v if v > 0 else float("nan") for v in r] for r in rows]
        im = ax.imshow(data, aspect="auto", interpolation="nearest", extent=extent,
                       cmap="viridis", norm=LogNorm(vmin=1, vmax=max(top, 2)))
        _data([im])
        ax.set_yticks(range(n))
        ax.set_yticklabels(labels)
        ax.set_title("bytes %s per %.3g s" % (what, width_s), loc="left")
        ax.set_facecolor("#f4f4f4")
    axes[1].set_xlabel("seconds since the start of the run")
    fig.colorbar(im, ax=list(axes), label="bytes", shrink=0.8)
    return _svg(fig, "heat map of bytes per process over time")


def bandwidth(series, t0_s, width_s, cols):
    """SERIES: {(layer, dir): {column: bytes}}: MiB/s per layer over time,
    reads and writes in two panels."""
    fig, axes = plt.subplots(2, 1, figsize=(11, 4.6), sharex=True)
    xs = [t0_s + (c + 0.5) * width_s for c in range(cols)]
    # One colour per layer in both panels.
    layers = sorted({layer for layer, _ in series})
    colour = {l: "C%d" % (i % 10) for i, l in enumerate(layers)}
    for ax, d, what in ((axes[0], "r", "read"), (axes[1], "w", "written")):
        drawn = False
        for (layer, dd), s in sorted(series.items()):
            if dd != d:
                continue
            ys = [s.get(c, 0) / width_s / 2**20 for c in range(cols)]
            _data(ax.step(xs, ys, where="mid", label=layer, color=colour[layer]))
            drawn = True
        ax.set_ylabel("MiB/s " + what)
        if drawn:
            ax.legend(loc="upper right", fontsize=7)
        else:
            ax.text(0.5, 0.5, "nothing %s" % what, transform=ax.transAxes,
                    ha="center", color="#888")
    axes[1].set_xlabel("seconds since the start of the run")
    return _svg(fig, "bandwidth per layer over time")


def _bucket_label(b):
    return "0" if b == 0 else human(b, "").replace(".0 ", "").replace(" ", "").replace("i", "")


def histograms(hists, xlabel, title):
    """HISTS: {name: {bucket: count}} (power-of-two buckets): one bar
    group per bucket, a colour per name."""
    buckets = sorted({b for h in hists.values() for b in h})
    names = sorted(hists)
    fig, ax = plt.subplots(figsize=(11, 3.6))
    w = 0.8 / max(len(names), 1)
    for i, name in enumerate(names):
        h = hists[name]
        _data(ax.bar([x + i * w for x in range(len(buckets))],
                     [h.get(b, 0) for b in buckets], width=w, label=name))
    ax.set_xticks([x + 0.4 - w / 2 for x in range(len(buckets))])
    ax.set_xticklabels([_bucket_label(b) for b in buckets], rotation=45, ha="right")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("count")
    ax.set_yscale("log")
    ax.legend(fontsize=7, ncol=3)
    ax.set_title(title, loc="left")
    return _svg(fig, title)


def bars(pairs, xlabel, title):
    """PAIRS: [(label, value)]: one horizontal bar each."""
    fig, ax = plt.subplots(figsize=(11, 0.4 * len(pairs) + 1.0))
    _data(ax.barh([p[0] for p in pairs][::-1], [p[1] for p in pairs][::-1],
                  color="#dd8452"))
    ax.set_xlabel(xlabel)
    ax.set_title(title, loc="left")
    return _svg(fig, title)

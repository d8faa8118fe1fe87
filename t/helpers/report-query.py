#!/usr/bin/env python3
"""report-query.py REPORT.html WHAT - read back what a dc-report report
says, for the tests:

  events | processes   the header's number
  table ID             the rows of the table with that id, tab-separated
                       (cells as shown, numbers as their data-v value)
  warning              the items of the warning box, one a line
  header KEY           the text of a header line (command, hosts, job...)
  plots                one line per figure: its aria-label and the number
                       of data marks (ids starting "data-") it draws
  sections             the section ids, in order
  summary              the header's numbers and the function table as
                       dc-write --summary prints them
"""
import sys
from html.parser import HTMLParser


class Report(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.values, self.tables, self.warning, self.plots, self.sections = {}, {}, [], [], []
        self.table = self.row = self.cell = None
        self.in_warn = self.in_li = False
        self.span = None
        self.head, self.dd = {}, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.sections.append(a.get("id", ""))
        elif tag == "span" and "data-value" in a:
            self.values[a.get("id")] = a["data-value"]
        elif tag == "table" and a.get("id"):
            self.table = self.tables.setdefault(a["id"], [])
        elif tag == "tr" and self.table is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = [a.get("data-v")]
        elif tag == "dd" and (a.get("id") or "").startswith("h-"):
            self.dd = a["id"][2:]
            self.head[self.dd] = ""
        elif tag == "div" and a.get("id") == "warning":
            self.in_warn = True
        elif tag == "li" and self.in_warn:
            self.in_li = True
            self.warning.append("")
        elif tag == "svg" and "plot" in a.get("class", ""):
            self.plots.append([a.get("aria-label"), 0])
        elif self.plots and (a.get("id") or "").startswith("data-"):
            self.plots[-1][1] += 1

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            v = self.cell[0] if self.cell[0] is not None else "".join(self.cell[1:])
            self.row.append(v.strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            if self.table is not None and self.row:
                self.table.append(self.row)
            self.row = None
        elif tag == "table":
            self.table = None
        elif tag == "li":
            self.in_li = False
        elif tag == "dd":
            self.dd = None
        elif tag == "div":
            self.in_warn = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        if self.in_li:
            self.warning[-1] += data
        if self.dd is not None:
            self.head[self.dd] += data


def word(s):
    """S as dc-write --summary prints a name (lib/quote.h): as it is, or
    in double quotes with \\" and \\\\ escapes, control characters as \\xHH."""
    b = s.encode("utf-8", "surrogateescape")
    if b and not any(c <= 32 or c in b'"\\' or c >= 0x7f for c in b):
        return s
    out = []
    for c in b:
        if c in b'"\\':
            out.append(b"\\" + bytes([c]))
        elif c < 32 or c == 0x7f:
            out.append(b"\\x%02x" % c)
        else:
            out.append(bytes([c]))
    return '"' + b"".join(out).decode("utf-8", "surrogateescape") + '"'


r = Report()
with open(sys.argv[1], encoding="utf-8") as f:
    r.feed(f.read())
what = sys.argv[2]
if what in ("events", "processes", "runtime"):
    print(r.values[what])
elif what == "table":
    for row in r.tables.get(sys.argv[3], [])[1:]:
        print("\t".join(row))
elif what == "header":
    print(r.head[sys.argv[3]])
elif what == "warning":
    for w in r.warning:
        print(w)
elif what == "plots":  # noqa
    for label, n in r.plots:
        print("%s\t%d" % (label, n))
elif what == "summary":
    print("%s events from %s processes over %s s" % (r.values["events"], r.values["processes"],
                                                    r.values["runtime"]))
    rows = r.tables["summary-table"][1:]
    # The layer and function columns as wide as their longest word, at
    # least 8 and 24 characters.
    lw = max([8] + [len(word(row[0])) for row in rows])
    nw = max([24] + [len(word(row[1])) for row in rows])
    for layer, name, calls, nbytes, us, fname in rows:
        print("%-*s %-*s %9d %14d %12.3f  %s" % (lw, word(layer), nw, word(name), int(calls),
                                               int(nbytes), int(us) / 1e3, word(fname)))
elif what == "sections":
    print("\n".join(r.sections))
else:
    sys.exit("report-query: unknown query " + what)

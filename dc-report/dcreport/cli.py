"""cli.py - dc-report's options, the Dask cluster, exit statuses."""
import argparse
import logging
import os
import sys
import time

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_TRUNCATED, EXIT_BADINPUT = 0, 1, 2, 3, 4
WORKER_WAIT = 60

USAGE = """\
Usage: dc-report [OPTION]... TRACE... -o REPORT.html
Write one self-contained HTML report of DFTracer traces (.pfw.gz, .pfw),
analysed in parallel with Dask, by gzip member through the .idx index.

  -o, --output FILE       the report (required; - for standard output)
  -w, --workers N         workers of the local Dask cluster; 0 analyses in
                          this process, with no cluster (default: 0 for
                          traces of one part, else the number of CPUs,
                          at most 8)
      --scheduler ADDRESS use a running Dask cluster (tcp://host:8786)
      --scheduler-file F  use the running Dask cluster that F describes (as
                          written by dask-scheduler --scheduler-file F)
      --part-size BYTES   uncompressed trace bytes per task (default 32M)
      --top N             rows per layer in the function table (default 10,
                          0 shows all)
      --stats             print the analysis time and each worker's peak
                          memory on standard error
  -h, --help              print this help and exit
  -V, --version           print the version and exit

Exit status: 0 report written, 1 system error, 2 usage, 3 a trace is
truncated or incomplete, 4 some trace data is unreadable (the report says
what; it covers the rest).
"""


class Usage(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Usage(message)


def parse_size(s):
    mult = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper()
    unit = s[-1:] if s[-1:] in "KMG" else ""
    digits = s[:-1] if unit else s
    if not digits.isdigit() or int(digits) == 0:
        raise Usage("bad size: %s" % s)
    return int(digits) * mult[unit]


def parse(argv):
    p = Parser(add_help=False, prog="dc-report")
    p.add_argument("traces", nargs="*")
    p.add_argument("-o", "--output")
    p.add_argument("-w", "--workers", type=int)
    p.add_argument("--scheduler")
    p.add_argument("--scheduler-file")
    p.add_argument("--part-size", default="32M")
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--stats", action="store_true")
    p.add_argument("-h", "--help", action="store_true")
    p.add_argument("-V", "--version", action="store_true")
    a = p.parse_args(argv)
    if a.help or a.version:
        return a
    if not a.traces:
        raise Usage("no trace given")
    if not a.output:
        raise Usage("no output given (-o REPORT.html)")
    if a.workers is not None and a.workers < 0:
        raise Usage("--workers must be 0 or more")
    if sum(x is not None for x in (a.workers, a.scheduler, a.scheduler_file)) > 1:
        raise Usage("--workers, --scheduler and --scheduler-file exclude each other")
    if a.top < 0:
        raise Usage("--top must be 0 or more")
    a.part_size = parse_size(a.part_size)
    return a


def start_client(a):
    """A Dask client: of the cluster at --scheduler, or of a local cluster
    of --workers single-threaded worker processes."""
    import cloudpickle
    from distributed import Client, LocalCluster
    import dcreport
    import dcreport.analyse
    import dcreport.bins
    import dcreport.calltree
    import dcreport.reader
    # Workers (remote ones too) get the analysis by value: they need Dask,
    # not datacrumbs.
    for m in (dcreport, dcreport.analyse, dcreport.bins, dcreport.calltree,
              dcreport.reader):
        cloudpickle.register_pickle_by_value(m)
    if a.scheduler or a.scheduler_file:
        # The scheduler is waited for as long as Dask's
        # distributed.comm.timeouts.connect (30 s unless configured).
        if a.scheduler_file:
            if not os.path.exists(a.scheduler_file):
                raise OSError("no scheduler file %s" % a.scheduler_file)
            client = Client(scheduler_file=a.scheduler_file)
        else:
            client = Client(a.scheduler)
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT)
        except Exception:
            client.close()
            raise OSError("no worker joined the scheduler at %s within %d s"
                          % (a.scheduler or a.scheduler_file, WORKER_WAIT))
        return client, None
    n = a.workers or max(1, min(os.cpu_count() or 1, 8))
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    return Client(cluster), cluster


def in_process(a, parts):
    """Whether to analyse in this process, on Dask's synchronous scheduler:
    when asked (-w 0), and by default for traces that make one part,
    which a cluster could not share out (it would only add its start)."""
    if a.scheduler or a.scheduler_file:
        return False
    if a.workers is None:
        return len(parts) <= 1
    return a.workers == 0


def analyse_here(a, parts):
    from dcreport import analyse as an
    t0 = time.monotonic()
    result = an.run(parts)
    if a.stats:
        rss, cpu = an.worker_usage()
        sys.stderr.write("dc-report: %d parts, %d events, analysed in %.2f s "
                         "in this process\n"
                         % (len(parts), result["events"], time.monotonic() - t0))
        sys.stderr.write("dc-report: this process peak memory %d MiB, CPU %.2f s\n"
                         % (rss >> 20, cpu))
    return result


def analyse_on_cluster(a, parts):
    from dcreport import analyse as an
    t0 = time.monotonic()
    client, cluster = start_client(a)
    try:
        t1 = time.monotonic()
        result = an.run(parts, client)
        t2 = time.monotonic()
        if a.stats:
            peaks = client.run(an.ByValue(an.worker_usage))
            sys.stderr.write("dc-report: %d parts, %d events, analysed in %.2f s "
                             "(cluster start %.2f s) on %d workers\n"
                             % (len(parts), result["events"], t2 - t1, t1 - t0, len(peaks)))
            for wk, (rss, cpu) in sorted(peaks.items()):
                sys.stderr.write("dc-report: worker %s peak memory %d MiB, CPU %.2f s\n"
                                 % (wk, rss >> 20, cpu))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return result


def analyse(a):
    from dcreport.reader import plan
    parts, files, issues = plan(a.traces, a.part_size)
    if in_process(a, parts):
        return analyse_here(a, parts), files, issues
    return analyse_on_cluster(a, parts), files, issues


def status_of(result, issues):
    kinds = {k for k, _, _ in issues}
    if "system" in kinds:
        return EXIT_FAILURE
    if "malformed" in kinds:
        return EXIT_BADINPUT
    for f in result["files"].values():
        end = f["end"]
        if end is None and not f["ours"]:
            continue  # another writer's trace, which has no end line
        if end is None or end.get("truncated") is True or end.get("corrupt") is True:
            return EXIT_BADINPUT if end and end.get("corrupt") is True else EXIT_TRUNCATED
    return EXIT_TRUNCATED if "truncated" in kinds else EXIT_OK


def write(path, out, text):
    if out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    with out:
        out.write(text)
    os.replace(path + ".tmp", path)


def main(argv, version):
    try:
        a = parse(argv)
    except Usage as e:
        sys.stderr.write("dc-report: %s (see dc-report --help)\n" % e)
        return EXIT_USAGE
    if a.help:
        sys.stdout.write(USAGE)
        return EXIT_OK
    if a.version:
        sys.stdout.write("dc-report (datacrumbs) %s\n" % version)
        return EXIT_OK
    from dcreport.render import render
    out = None
    if a.output != "-":
        # Fail before the analysis, not after it.
        try:
            out = open(a.output + ".tmp", "w", encoding="utf-8")
        except OSError as e:
            sys.stderr.write("dc-report: cannot write %s: %s\n" % (a.output, e.strerror))
            return EXIT_FAILURE
    try:
        result, files, issues = analyse(a)
    except (OSError, Exception) as e:
        # The cluster (a lost worker, a scheduler gone) or a bug: one
        # line, no half report.
        what = "Dask cluster" if isinstance(e, OSError) else "analysis failed"
        sys.stderr.write("dc-report: %s: %s\n" % (what, getattr(e, "strerror", None) or e))
        if out is not None:
            out.close()
            os.unlink(a.output + ".tmp")
        return EXIT_FAILURE
    issues = issues + result.get("issues", [])
    result["issues"] = []
    try:
        write(a.output, out, render(result, files, issues, a.top))
    except OSError as e:
        sys.stderr.write("dc-report: cannot write %s: %s\n" % (a.output, e.strerror))
        return EXIT_FAILURE
    for kind, path, msg in issues:
        sys.stderr.write("dc-report: %s: %s\n" % (path, msg))
    st = status_of(result, issues)
    if st in (EXIT_TRUNCATED, EXIT_BADINPUT) and not issues:
        sys.stderr.write("dc-report: %s\n" % ("a trace is incomplete or truncated (see the "
                                              "report's warning)" if st == EXIT_TRUNCATED
                                              else "a trace had a corrupt input stream"))
    return st

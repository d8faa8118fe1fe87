#!/bin/sh
# Kernel work sits one level below the call that caused it (dc-trace(5)):
# block I/O, page-cache and readahead events under a read system call at
# level L are at level L+1, with or without a library call above it.  And
# readahead records the pages it really read.
. "$(dirname "$0")/test-lib.sh"

# levels TRACE PID INODE: "CAT NAME LEVEL COUNT pages=N" for the events
# of PID: page-cache and readahead events of the file INODE only, block
# I/O without metadata, its bytes as pages.  (If something dropped the
# caches, the loader reads the program's libraries too: by faults outside
# every call, at level 0, or by read system calls of its own at level 0,
# whose block I/O is at level 1.)
levels() {
	pfw-query list "$1" --pid "$2" >x.json &&
	pfw-query list "$1" --pid "$2" --ph i >>x.json &&
	python3 -c "
import collections, json, sys
n = collections.Counter(); pages = collections.Counter()
for line in open(\"x.json\"):
    e = json.loads(line); a = e[\"args\"]
    if e[\"cat\"] == \"pagecache\" and a.get(\"inode\") != $3:
        continue
    if e[\"cat\"] == \"block\":
        if \"M\" in a.get(\"op\", \"M\"):
            continue
        a[\"pages\"] = a[\"size\"] // 4096
    k = (e[\"cat\"], e[\"name\"], a.get(\"level\"))
    n[k] += 1; pages[k] += a.get(\"pages\", 0)
for k in sorted(n, key=str):
    print(*k, n[k], \"pages=%d\" % pages[k])"
}

# cold FILE: FILE's pages leave the page cache (and nothing else does).
cold() {
	dd if="$1" iflag=nocache count=0 2>/dev/null
}

# The readahead tracepoints are newer than some kernels (none in 6.1).
test_lazy_prereq READAHEAD '
	test -d /sys/kernel/tracing/events/readahead/page_cache_sync_ra ||
	{ echo "no readahead tracepoints in this kernel"; false; }
'

test_expect_success 'setup: a signing key and an 8 MiB file' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	dd if=/dev/urandom of="$SHARED/R" bs=1M count=8 2>/dev/null && sync
'

test_expect_success BPF,PYTHON3 'under a library read: read 0, its syscall 1, block, page cache and readahead 2' '
	cold "$SHARED/R" &&
	printf "layers: [posix, syscalls, block, pagecache]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" read "$SHARED/R" &&
	test "$(cat collect.rc)" = 0 &&
	pid=$(pfw-query pids t.pfw.gz --cat POSIX --name read --file "$SHARED/R") &&
	levels t.pfw.gz "$pid" $(stat -c %i "$SHARED/R") >lv && cat lv &&
	test "$(pfw-query count t.pfw.gz --cat POSIX --name read --file "$SHARED/R" --arg level=0)" -gt 0 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name read --file "$SHARED/R" --arg level=1)" -gt 0 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name read --file "$SHARED/R")" = \
	     "$(pfw-query count t.pfw.gz --cat sys --name read --file "$SHARED/R" --arg level=1)" &&
	grep "^block block:block_rq_complete 2 [0-9]* pages=2048$" lv &&
	grep "^pagecache filemap:mm_filemap_add_to_page_cache 2 [0-9]* pages=2048$" lv &&
	{ ! test_have_prereq READAHEAD || grep "^pagecache readahead:page_cache_sync_ra 2 " lv; } &&
	! grep "^block .* [3-9] [0-9]* pages" lv &&
	! grep "^pagecache .* [013-9] [0-9]* pages" lv
'

test_expect_success BPF,PYTHON3 'without the library layer: the syscall at 0, its kernel work at 1' '
	cold "$SHARED/R" &&
	printf "layers: [syscalls, block, pagecache]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" read "$SHARED/R" &&
	pid=$(pfw-query pids t.pfw.gz --cat sys --name read --file "$SHARED/R") &&
	levels t.pfw.gz "$pid" $(stat -c %i "$SHARED/R") >lv && cat lv &&
	test "$(pfw-query count t.pfw.gz --cat sys --name read --file "$SHARED/R")" = \
	     "$(pfw-query count t.pfw.gz --cat sys --name read --file "$SHARED/R" --arg level=0)" &&
	grep "^block block:block_rq_complete 1 [0-9]* pages=2048$" lv &&
	grep "^pagecache filemap:mm_filemap_add_to_page_cache 1 [0-9]* pages=2048$" lv &&
	! grep "^block .* [2-9] [0-9]* pages" lv &&
	! grep "^pagecache .* [02-9] [0-9]* pages" lv
'

test_expect_success BPF,PYTHON3,READAHEAD 'readahead records the pages it read: they add up to the file, none is empty' '
	cold "$SHARED/R" &&
	printf "layers: [syscalls, pagecache]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" read "$SHARED/R" &&
	pid=$(pfw-query pids t.pfw.gz --cat sys --name read --file "$SHARED/R") &&
	pfw-query list t.pfw.gz --ph i --pid "$pid" --cat pagecache >ra.json &&
	python3 -c "
import json
ra = [json.loads(l) for l in open(\"ra.json\")]
ra = [e for e in ra if e[\"name\"].startswith(\"readahead:\") and
      e[\"args\"][\"inode\"] == $(stat -c %i "$SHARED/R")]
sync = [e for e in ra if e[\"name\"] == \"readahead:page_cache_sync_ra\"]
pages = [e[\"args\"][\"pages\"] for e in ra]
print(len(sync), \"sync,\", len(ra), \"in all, pages\", pages)
assert sync and all(e[\"args\"][\"pages\"] > 0 for e in sync)
assert sum(pages) == 2048, sum(pages)
"
'

# Without system calls traced, a readahead's pages are counted until
# the thread's next readahead or its exit (dc-collect/tracepoints.bpf.h):
# none lost, the last one sent at the thread's exit, and a readahead
# at the end of the file may find no page to read (an asynchronous one).
test_expect_success BPF,PYTHON3,READAHEAD 'page cache alone: every readahead and every page, their pages adding up to the file' '
	cold "$SHARED/R" &&
	printf "layers: [pagecache]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- "$WORKLOAD" read "$SHARED/R" &&
	pfw-query list t.pfw.gz --ph i --cat pagecache >pc.json &&
	python3 -c "
import json
ev = [json.loads(l) for l in open(\"pc.json\")]
ev = [e for e in ev if e[\"args\"].get(\"inode\") == $(stat -c %i "$SHARED/R")]
ra = [e for e in ev if e[\"name\"].startswith(\"readahead:\")]
add = [e for e in ev if e[\"name\"] == \"filemap:mm_filemap_add_to_page_cache\"]
print(len(ra), \"readaheads of\", sum(e[\"args\"][\"pages\"] for e in ra), \"pages,\",
      len(add), \"adds of\", sum(e[\"args\"][\"pages\"] for e in add))
sync = [e for e in ra if e[\"name\"] == \"readahead:page_cache_sync_ra\"]
assert len(ra) > 1 and sync and all(e[\"args\"][\"pages\"] > 0 for e in sync)
assert sum(e[\"args\"][\"pages\"] for e in ra) == 2048
assert sum(e[\"args\"][\"pages\"] for e in add) == 2048
"
'

test_done

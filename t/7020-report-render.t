#!/bin/sh
# dc-report on a real traced run: an MPI-IO + HDF5 job on two ranks under
# dc-collect, its report rendered by headless Chromium as a person would
# open it: no script error, every figure drawn, the header's event count
# the trace's, the numbers dc-write --summary's.
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq CHROMIUM '
	command -v chromium >/dev/null || { echo "chromium not installed"; false; }
'
test_lazy_prereq MPIHDF5 '
	command -v mpicc >/dev/null && command -v mpirun >/dev/null ||
		{ echo "no mpicc/mpirun (openmpi-bin, libopenmpi-dev)"; false; }
	pkg-config --exists hdf5-serial || { echo "no serial HDF5 (libhdf5-dev)"; false; }
	mpicc -O1 $(pkg-config --cflags hdf5-serial) -o "$SHARED/mpi-hdf5" \
		"$DC_SRC_DIR/t/helpers/mpi-hdf5.c" $(pkg-config --libs hdf5-serial) ||
		{ echo "cannot build the MPI-IO + HDF5 workload"; false; }
'
Q=report-query.py

# chrome ARGS...: headless Chromium, its own profile, console messages on
# stderr; killed if it takes over 120 s.
chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir="$PWD/chrome-profile" --enable-logging=stderr --v=0 \
		--allow-file-access-from-files --hide-scrollbars "$@"
}

test_expect_success BPF,MPIHDF5,DASK 'trace an MPI-IO + HDF5 job on two ranks (parents written after their children), report it' '
	cat >job.yaml <<-EOF &&
	mode: trace
	layers:
	  - posix
	  - stdio
	  - syscalls
	  - name: mpiio
	    optional: true
	  - name: hdf5
	    optional: true
	  - block
	  - pagecache
	  - faults
	EOF
	dc-gen job.yaml >probes.json &&
	dc-sign --gen-key -k k.key >/dev/null &&
	dc-sign -k k.key -o probes.sig probes.json &&
	mkdir out &&
	# The libraries the ranks map, out of the page cache: their first
	# faults read ahead, whatever ran before (readahead events below).
	for lib in $(ldd "$SHARED/mpi-hdf5" | awk "\$3 ~ /^\// { print \$3 }"); do
		dd if="$lib" iflag=nocache count=0 status=none || exit 1
	done &&
	dc-collect -k k.key probes.sig -- mpirun --allow-run-as-root --oversubscribe \
		-n 2 "$SHARED/mpi-hdf5" "$PWD/out" 4 1048576 2>collect.err |
		dc-aggregate 2>aggregate.err | dc-write --chunk-size 64K "$SHARED/job.pfw.gz" &&
	cat collect.err aggregate.err &&
	grep "fast path: [0-9]* functions recorded" collect.err &&
	! grep "parent\|orphan" aggregate.err &&
	test $(stat -c %s out/shared.dat) = 8388608 &&
	dc-report -w 2 --top 0 "$SHARED/job.pfw.gz" -o "$SHARED/job.html" &&
	dc-write --summary --top 0 "$SHARED/job.pfw.gz" >want &&
	$Q "$SHARED/job.html" summary >got &&
	tail -n +3 want >want.rows && tail -n +2 got >got.rows &&
	test_cmp want.rows got.rows &&
	head -n 1 want | sed "s/^[^:]*: //; s/, 0 dropped//" >want.head &&
	head -n 1 got >got.head &&
	test_cmp want.head got.head &&
	grep "^MPI *MPI_File_write_at_all  *8 " got.rows &&
	grep "^HDF5 *H5Dwrite  *1 .*/out/rank-0.h5$" got.rows &&
	grep "^HDF5 *H5Dwrite  *1 .*/out/rank-1.h5$" got.rows &&
	n=$(zcat "$SHARED/job.pfw.gz" | python3 "$DC_SRC_DIR/t/helpers/pfw-parents-first.py" --after) &&
	test "$n" -gt 100 &&
	$Q "$SHARED/job.html" warning >warn &&
	! grep "parent call" warn &&
	test $(wc -l <"$SHARED/job.pfw.gz.idx") -gt 4 &&
	dc-report -w 0 --part-size 64K --top 0 "$SHARED/job.pfw.gz" -o parts.html &&
	for t in calltree-table layer-table files-table summary-table; do
		$Q parts.html table $t >parts.$t &&
		$Q "$SHARED/job.html" table $t >one.$t &&
		test_cmp one.$t parts.$t || exit 1
	done &&
	grep "	/.*/out/shared.dat$\|  /.*/out/shared.dat$" got.rows &&
	$Q "$SHARED/job.html" table kernel-table >kernel &&
	for ev in exceptions:page_fault_user readahead:page_cache_async_ra; do
		n=$(zcat "$SHARED/job.pfw.gz" | grep -c "\"name\":\"$ev\"") &&
		test "$n" -gt 0 &&
		short=${ev#*:} &&
		grep -x "$ev	$n\|readahead $short: calls	$n" kernel || exit 1
	done &&
	dev=$(zcat "$SHARED/job.pfw.gz" | grep "\"name\":\"block:block_rq_complete\"" |
		grep "\"op\":\"R" | sed "s/.*\"size\":\([0-9]*\).*/\1/" | awk "{ s += \$1 } END { print s + 0 }") &&
	grep -x "bytes read from block devices	$dev" kernel
'

test_expect_success CHROMIUM 'the browser check sees script errors' '
	echo "<html><body><script>no_such_function();</script></body></html>" >bad.html &&
	chrome --dump-dom "file://$PWD/bad.html" >dom 2>err &&
	grep "Uncaught ReferenceError" err
'

test_expect_success BPF,MPIHDF5,DASK,CHROMIUM 'Chromium renders it: no script error, every figure drawn, the trace'"'"'s event count' '
	cp "$SHARED/job.html" job.html &&
	chrome --window-size=1200,9000 --screenshot="$PWD/job.png" "file://$PWD/job.html" \
		>/dev/null 2>err &&
	! grep "CONSOLE" err &&
	test $(stat -c %s job.png) -gt 100000 &&
	cp job.png "$SHARED/job.png" &&
	cat >look.html <<-\EOF &&
	<html><body><iframe id="f" src="job.html" width="1200" height="8000"></iframe>
	<pre id="out"></pre><script>
	window.onload = function () {
	  var d = document.getElementById("f").contentDocument, out = [];
	  d.querySelectorAll("svg.plot").forEach(function (s) {
	    var r = s.getBoundingClientRect(), n = 0;
	    s.querySelectorAll("[id^=data-]").forEach(function (e) {
	      var b = e.getBoundingClientRect();
	      if (b.width > 0 || b.height > 0) n++;
	    });
	    out.push(["plot", s.getAttribute("aria-label"), Math.round(r.width),
	              Math.round(r.height), n].join("|"));
	  });
	  out.push("events|" + d.getElementById("events").textContent);
	  out.push("sections|" + Array.from(d.querySelectorAll("section")).map(
	    function (s) { return s.id; }).join(","));
	  document.getElementById("out").textContent = "\n" + out.join("\n") + "\n";
	};
	</script></body></html>
	EOF
	chrome --dump-dom "file://$PWD/look.html" >dom 2>err &&
	! grep "CONSOLE" err &&
	sed -n "s/^\(plot|.*\)$/\1/p" dom >plots &&
	cat plots &&
	test $(wc -l <plots) -ge 6 &&
	for name in "time per layer" "heat map of bytes per process over time" \
		"bandwidth per layer over time" "calls by size, per layer and operation" \
		"block requests by latency" "page cache: bytes read vs bytes that reached the device"; do
		grep "^plot|$name|" plots || exit 1
	done &&
	awk -F"|" "\$3 < 300 || \$4 < 100 || \$5 < 1 { print \"empty: \" \$0; bad = 1 } END { exit bad }" plots &&
	grep -x "sections|header,layers,heatmap,bandwidth,sizes,files,kernel,calltree" dom &&
	events=$(python3 -c "
import gzip, json
n = 0
for line in gzip.open(\"$SHARED/job.pfw.gz\"):
    if line.startswith(b\"{\"):
        e = json.loads(line)
        n += e[\"ph\"] not in (\"M\", \"C\") and e[\"cat\"] not in (\"datacrumbs\", \"dftracer\")
print(\"{:,}\".format(n))") &&
	grep -x "events|$events" dom
'

test_done

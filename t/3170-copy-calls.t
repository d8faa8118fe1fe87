#!/bin/sh
# Calls that copy from one descriptor to another (copy_file_range,
# sendfile, splice), traced for real: the event names the file read
# (fhash) and the file written (fhash2); dc-write --summary gives each
# its row, dc-report the bytes read from one and written to the other.
. "$(dirname "$0")/test-lib.sh"

Q=report-query.py
SIZE=3000017

# file_bytes SUMMARY FILE [FUNCTION]: the bytes of the rows of a dc-write
# --summary naming FILE (a path without blanks; of FUNCTION only, if
# given), summed.
file_bytes() {
	awk -v f="$2" -v fn="${3:-}" '
		$6 == f && (fn == "" || $2 == fn) { b += $4 } END { print b + 0 }' "$1"
}

test_expect_success 'setup: a signing key and a file of 3,000,017 bytes' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null &&
	head -c $SIZE /dev/urandom >"$SHARED/src" &&
	test "$(stat -c %s "$SHARED/src")" = $SIZE
'

# cp copies with copy_file_range where it can (coreutils 9), else with
# read and write: either way the source's rows hold the bytes read and
# the destination's the bytes written.
test_expect_success BPF 'cp: the bytes read from the source and written to the destination' '
	cp "$SHARED/src" src &&
	printf "layers: [syscalls]\n" >c.yaml &&
	trace_ok c.yaml "$SHARED/cp.pfw.gz" probes.sig -- cp src dst &&
	cmp src dst &&
	dc-write --summary --top 0 "$SHARED/cp.pfw.gz" >sum &&
	grep "[/ ]src$\|[/ ]dst$" sum &&
	test "$(file_bytes sum "$PWD/src")" = $SIZE &&
	test "$(file_bytes sum "$PWD/dst")" = $SIZE
'

# The same in the posix layer, which has copy_file_range and sendfile,
# through the client library and through uprobes.
for path in fast uprobe; do
	opt=
	test $path = uprobe && opt=--no-preload
	test_expect_success BPF "cp in the posix layer ($path): the source's bytes and the destination's" "
		cp \"\$SHARED/src\" src && rm -f dst &&
		printf 'layers: [posix]\n' >c.yaml &&
		trace_ok c.yaml cp.pfw.gz $opt probes.sig -- cp src dst &&
		cmp src dst &&
		dc-write --summary --top 0 cp.pfw.gz >sum &&
		grep '[/ ]src\$\|[/ ]dst\$' sum &&
		test \"\$(file_bytes sum \"\$PWD/src\")\" = $SIZE &&
		test \"\$(file_bytes sum \"\$PWD/dst\")\" = $SIZE &&
		if zcat cp.pfw.gz | grep -q '\"name\":\"copy_file_range\"'; then
			test \"\$(file_bytes sum \"\$PWD/dst\" copy_file_range)\" = $SIZE
		fi
	"
done

test_expect_success BPF,DASK 'cp in the report: bytes read from the source, written to the destination' '
	dc-report -w 0 --top 0 "$SHARED/cp.pfw.gz" -o cp.html &&
	$Q cp.html table files-table >files &&
	cat files &&
	grep -x "[^	]*/src	[0-9]*	[0-9]*	$SIZE	0	[0-9]*	[0-9]*" files &&
	grep -x "[^	]*/dst	[0-9]*	[0-9]*	0	$SIZE	[0-9]*	[0-9]*" files &&
	# Access sizes are the bytes moved: coreutils 9 asks copy_file_range
	# for about 2^63 bytes and gets the 3,000,017 there are, in the
	# 2 MiB bucket, read and written; no call moved more than the file.
	$Q cp.html table sizes-table >sizes &&
	cat sizes &&
	awk -F "	" -v max=$SIZE "\$3 > max { bad = 1 } END { exit bad }" sizes &&
	if zcat "$SHARED/cp.pfw.gz" | grep -q "\"name\":\"copy_file_range\""; then
		grep -x "sys	read	2097152	[1-9][0-9]*" sizes &&
		grep -x "sys	write	2097152	[1-9][0-9]*" sizes
	fi
'

# The same file copied three ways, each to a file of its own; splice
# goes through a pipe (src to the pipe, the pipe to by-splice).
test_expect_success BPF,PYTHON3 'copy_file_range, sendfile and splice: both files named, each its bytes' '
	cp "$SHARED/src" src &&
	cat >copy.py <<-\EOP &&
	import os
	n = os.path.getsize("src")
	def copy(how, dst):
	    i = os.open("src", os.O_RDONLY)
	    o = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
	    how(i, o)
	    os.close(i)
	    os.close(o)
	def cfr(i, o):
	    left = n
	    while left:
	        left -= os.copy_file_range(i, o, left)
	def sendfile(i, o):
	    left = n
	    while left:
	        left -= os.sendfile(o, i, None, left)
	def splice(i, o):
	    r, w = os.pipe()
	    left = n
	    while left:
	        k = os.splice(i, w, min(left, 65536))
	        left -= k
	        while k:
	            k -= os.splice(r, o, k)
	copy(cfr, "by-cfr")
	copy(sendfile, "by-sendfile")
	copy(splice, "by-splice")
	EOP
	printf "layers: [syscalls]\n" >c.yaml &&
	trace_ok c.yaml "$SHARED/copy.pfw.gz" probes.sig -- python3 copy.py &&
	for f in by-cfr by-sendfile by-splice; do
		cmp src $f || return 1
	done &&
	dc-write --summary --top 0 "$SHARED/copy.pfw.gz" >sum &&
	grep "/src$\|/by-" sum &&
	for fn in copy_file_range:by-cfr sendfile:by-sendfile splice:by-splice; do
		test "$(file_bytes sum "$PWD/src" ${fn%:*})" = $SIZE &&
		test "$(file_bytes sum "$PWD/${fn#*:}" ${fn%:*})" = $SIZE || return 1
	done &&
	test "$(file_bytes sum "$PWD/src")" = $((3 * SIZE)) &&
	python3 - "$SHARED/copy.pfw.gz" "$PWD" <<-\EOP
	import gzip, json, sys
	names, calls = {}, []
	for line in gzip.open(sys.argv[1], "rt"):
	    if line.startswith("{"):
	        e = json.loads(line)
	        if e["name"] == "FH":
	            names[e["args"]["value"]] = e["args"]["name"]
	        elif e["name"] in ("copy_file_range", "sendfile"):
	            calls.append(e)
	# The file read is fhash, the file written fhash2, whichever
	# argument holds which (sendfile takes the destination first).
	for name, dst in (("copy_file_range", "by-cfr"), ("sendfile", "by-sendfile")):
	    mine = [e["args"] for e in calls if e["name"] == name]
	    assert mine, name
	    for a in mine:
	        assert names[a["fhash"]] == sys.argv[2] + "/src", (name, a)
	        assert names[a["fhash2"]] == sys.argv[2] + "/" + dst, (name, a)
	EOP
'

test_expect_success BPF,PYTHON3,DASK 'the three copies in the report: read from src, written to each copy' '
	dc-report -w 0 --top 0 "$SHARED/copy.pfw.gz" -o copy.html &&
	$Q copy.html table files-table >files &&
	cat files &&
	grep -x "[^	]*/src	[0-9]*	[0-9]*	$((3 * SIZE))	0	[0-9]*	[0-9]*" files &&
	for f in by-cfr by-sendfile by-splice; do
		grep -x "[^	]*/$f	[0-9]*	[0-9]*	0	$SIZE	[0-9]*	[0-9]*" files || return 1
	done
'

test_done

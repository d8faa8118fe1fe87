#!/bin/sh
# User-level bytes and files against ground truth (issue 9, items 4, 7
# and 10): STDIO bytes are items x size, string lengths and returns;
# vectored I/O from the iovec total; stdout and stderr named by their
# descriptors; open's mode and fcntl's argument only where they mean
# something; rename's two paths; relative paths after chdir and fchdir.
. "$(dirname "$0")/test-lib.sh"

USERBYTES="$DC_BUILD_DIR/t/helpers/userbytes"

q() {
	pfw-query "$@"
}

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

# The workload runs once, in W; every test reads its trace T.
W="$TRASH_DIRECTORY/w" T="$TRASH_DIRECTORY/t.pfw.gz"

test_expect_success BPF,PYTHON3 'setup: trace the workload with posix, stdio and syscalls' '
	mkdir "$W" &&
	printf "layers: [posix, stdio, syscalls]\n" >c.yaml &&
	cfg="$PWD/c.yaml" &&
	(cd "$W" && trace_ok "$cfg" "$T" probes.sig -- sh -c "\"$USERBYTES\" >so.txt 2>se.txt") &&
	test "$(wc -c <"$W/stdio.out")" = 12013 &&
	test "$(wc -c <"$W/vec.moved")" = 60 &&
	test "$(wc -c <"$W/sub/inner.out")" = 77 &&
	test "$(wc -c <"$W/outer.out")" = 33
'

test_expect_success BPF,PYTHON3 'fwrite and fread: size and bytes are items x size' '
	test "$(q count "$T" --cat STDIO --name fwrite --file "$W/stdio.out" --arg isize=1000 --arg count=4 --arg ret=4 --arg size=4000 --arg bytes=4000)" = 3 &&
	test "$(q sum "$T" bytes --cat STDIO --name fwrite --file "$W/stdio.out")" = 12000 &&
	test "$(q count "$T" --cat STDIO --name fread --file "$W/stdio.out" --arg ret=120 --arg size=12000 --arg bytes=12000)" = 1
'

test_expect_success BPF,PYTHON3 'fputs, fputc, fprintf and fgets: bytes from lengths and returns' '
	test "$(q count "$T" --cat STDIO --name fputs --file "$W/stdio.out" --arg size=6 --arg bytes=6)" = 1 &&
	test "$(q count "$T" --cat STDIO --name fputc --file "$W/stdio.out" --arg size=1 --arg bytes=1)" = 1 &&
	test "$(q count "$T" --cat STDIO --name fprintf --file "$W/stdio.out" --arg ret=6 --arg bytes=6)" = 1 &&
	q list "$T" --cat STDIO --name fgets --file "$W/stdio.out" >fgets &&
	test_line_count fgets 3 &&
	test "$(q sum "$T" bytes --cat STDIO --name fgets --file "$W/stdio.out")" = 13 &&
	test "$(q count "$T" --cat STDIO --name fgets --arg ret=0 --arg bytes=0)" = 1
'

test_expect_success BPF,PYTHON3 'every STDIO byte written and read adds up to the file size' '
	written=0 &&
	for f in fwrite fputs fputc fprintf; do
		n=$(q sum "$T" bytes --cat STDIO --name $f --file "$W/stdio.out") &&
		written=$((written + n)) || return 1
	done &&
	test $written = 12013 &&
	read=$(( $(q sum "$T" bytes --cat STDIO --name fread --file "$W/stdio.out") +
		 $(q sum "$T" bytes --cat STDIO --name fgets --file "$W/stdio.out") )) &&
	test $read = 12013
'

# getline and getdelim return the bytes of the line they read: read
# back by lines, the file's every byte (fast path: before, neither was
# recorded, nor the reads libc made for them).
test_expect_success BPF,PYTHON3 'getline and getdelim: bytes are the lines read, the file size in all' '
	test "$(q count "$T" --cat STDIO --name getline --file "$W/stdio.out" --arg ret=12006 --arg bytes=12006)" = 1 &&
	test "$(q count "$T" --cat STDIO --name getdelim --file "$W/stdio.out" --arg ret=7 --arg bytes=7)" = 1 &&
	test "$(q count "$T" --cat STDIO --name getline --file "$W/stdio.out" --arg ret=-1 --arg bytes=0)" = 1 &&
	test $(( $(q sum "$T" bytes --cat STDIO --name getline --file "$W/stdio.out") +
		 $(q sum "$T" bytes --cat STDIO --name getdelim --file "$W/stdio.out") )) = 12013
'

test_expect_success BPF,PYTHON3 'dc-write --summary counts STDIO bytes, not items' '
	dc-write --summary --top 0 "$T" >summary &&
	grep -E "^STDIO +fwrite +3 +12000 .* $W/stdio.out\$" summary &&
	grep -E "^STDIO +fread +1 +12000 .* $W/stdio.out\$" summary &&
	grep -E "^STDIO +fgets +3 +13 .* $W/stdio.out\$" summary
'

test_expect_success BPF,PYTHON3 'stdout and stderr FILE *s are named by their descriptors' '
	test "$(q count "$T" --cat STDIO --name fprintf --file "$W/so.txt" --arg bytes=10)" = 1 &&
	test "$(q count "$T" --cat STDIO --name fputs --file "$W/se.txt" --arg bytes=10)" = 1 &&
	test "$(q count "$T" --cat STDIO --name fflush --file "$W/so.txt")" = 1
'

test_expect_success BPF,PYTHON3 'writev and readv: size is the iovec total, ret what moved' '
	for l in POSIX sys; do
		test "$(q count "$T" --cat $l --name writev --file "$W/vec.out" --arg size=60 --arg ret=60)" = 1 &&
		test "$(q count "$T" --cat $l --name readv --file "$W/vec.out" --arg size=60 --arg ret=60)" = 1 ||
		return 1
	done
'

test_expect_success BPF,PYTHON3 'open records mode only with O_CREAT; fcntl its argument only where it has one' '
	q list "$T" --cat POSIX --name open --file "$W/vec.out" >opens &&
	test_line_count opens 2 &&
	grep "\"mode\": 416" opens &&
	test "$(grep -c "\"mode\"" opens)" = 1 &&
	test "$(q count "$T" --cat POSIX --name fcntl --file "$W/vec.out" --arg cmd=3)" = 1 &&
	test "$(q count "$T" --cat POSIX --name fcntl --file "$W/vec.out" --arg cmd=3 --arg arg2=None)" = 1 &&
	test "$(q count "$T" --cat POSIX --name fcntl --file "$W/vec.out" --arg cmd=2 --arg arg2=1)" = 1
'

test_expect_success BPF,PYTHON3 'fopen records its mode; rename both paths, resolved' '
	q list "$T" --cat STDIO --name fopen --file "$W/stdio.out" >fopens &&
	test_line_count fopens 3 &&
	python3 - "$W" "$T" <<-\EOF
	import gzip, json, sys
	w = sys.argv[1]
	ev = [json.loads(l) for l in gzip.open(sys.argv[2], "rt") if l.startswith("{")]
	fh = {e["args"]["value"]: e["args"]["name"] for e in ev if e["name"] == "FH" and e["ph"] == "M"}
	sh = {e["args"]["value"]: e["args"]["name"] for e in ev if e["name"] == "SH" and e["ph"] == "M"}
	fo = [e for e in ev if e["name"] == "fopen" and e["ph"] == "X"]
	modes = sorted(sh[e["args"]["shash"]] for e in fo)
	assert modes == ["r", "r", "w"], modes
	rn = [e for e in ev if e["name"] == "rename" and e["ph"] == "X"]
	assert {e["cat"] for e in rn} == {"POSIX", "sys"}, rn
	for e in rn:
	    assert fh[e["args"]["fhash"]] == w + "/vec.out", e
	    assert fh[e["args"]["fhash2"]] == w + "/vec.moved", e
	EOF
'

test_expect_success BPF,PYTHON3 'relative paths follow chdir and fchdir' '
	test "$(q count "$T" --cat sys --name chdir --file "$W/sub" --arg ret=0)" = 1 &&
	test "$(q count "$T" --cat sys --name fchdir --file "$W" --arg ret=0)" = 1 &&
	test "$(q sum "$T" ret --cat sys --name write --file "$W/sub/inner.out")" = 77 &&
	test "$(q count "$T" --cat POSIX --name open --file "$W/sub/inner.out")" = 1 &&
	test "$(q sum "$T" ret --cat sys --name write --file "$W/outer.out")" = 33 &&
	test "$(q count "$T" --cat POSIX --name open --file "$W/outer.out")" = 1 &&
	test "$(q count "$T" --file "$W/inner.out")" = 0
'

# mkstemp and the rest name the file in the template, which holds it
# when they return: the file's calls are named by it, on both paths.
temps_named() {
	t1=$(sed -n 1p "$2/temps.txt") t2=$(sed -n 2p "$2/temps.txt") d=$(sed -n 3p "$2/temps.txt") &&
	test -n "$t1" && test -n "$t2" && test -n "$d" &&
	test "$(q count "$1" --cat POSIX --name mkstemp --file "$2/$t1" --arg ret=3)" = 1 &&
	test "$(q sum "$1" ret --cat POSIX --name write --file "$2/$t1")" = 11 &&
	test "$(wc -c <"$2/$t1")" = 11 &&
	test "$(q count "$1" --cat POSIX --name mkostemps --file "$2/$t2" --arg ret=3 --arg flags=1024)" = 1 &&
	test "$(q sum "$1" ret --cat POSIX --name write --file "$2/$t2")" = 22 &&
	test "$(q count "$1" --cat POSIX --name close --file "$2/$t2")" = 1 &&
	test "$(q count "$1" --cat POSIX --name mkdtemp --file "$2/$d")" = 1 &&
	test -d "$2/$d"
}

# dprintf and the rest name their descriptor's file; freopen64,
# fgetpos, rewind and fsetpos the stream's.
more_named() {
	test "$(q count "$1" --cat STDIO --name dprintf --file "$2/more.fd" --arg ret=6 --arg bytes=6)" = 1 &&
	test "$(q count "$1" --cat STDIO --name dprintf --file "$2/more.fd" --arg ret=2 --arg bytes=2)" = 1 &&
	test "$(q count "$1" --cat STDIO --name vdprintf --file "$2/more.fd" --arg ret=4 --arg bytes=4)" = 1 &&
	test "$(q sum "$1" bytes --cat STDIO --name dprintf --file "$2/more.fd")" = 8 &&
	test "$(wc -c <"$2/more.fd")" = 12 &&
	test "$(q count "$1" --cat STDIO --name freopen64 --file "$2/more.out")" = 1 &&
	for f in fgetpos rewind fsetpos; do
		test "$(q count "$1" --cat STDIO --name $f --file "$2/more.out")" = 1 || return 1
	done &&
	test "$(q count "$1" --cat STDIO --name fsetpos --file "$2/more.out" --arg ret=0)" = 1
}

# truncate, posix_fadvise and the rest name their files; a copy's bytes
# are its source's and its destination's (dc-write --summary's rows),
# each its file's size; posix_fallocate and fallocate move none.
moves_named() {
	test "$(wc -c <"$2/moves.a")" = 100 && test "$(wc -c <"$2/moves.c")" = 100 &&
	test "$(wc -c <"$2/moves.d")" = 100 && test "$(wc -c <"$2/moves.e")" = 8192 &&
	test "$(q count "$1" --cat POSIX --name truncate --file "$2/moves.a" --arg ret=0)" = 1 &&
	test "$(q count "$1" --cat POSIX --name posix_fadvise --file "$2/moves.a" --arg ret=0)" = 1 &&
	test "$(q count "$1" --cat POSIX --name sendfile --file "$2/moves.a" --arg ret=100)" = 1 &&
	test "$(q count "$1" --cat POSIX --name copy_file_range --file "$2/moves.a" --arg ret=100)" = 1 &&
	test "$(q count "$1" --cat POSIX --name posix_fallocate --file "$2/moves.e" --arg ret=0)" = 1 &&
	test "$(q count "$1" --cat POSIX --name fallocate --file "$2/moves.e" --arg ret=$(cat "$2/moves.txt"))" = 1 &&
	dc-write --summary --top 0 "$1" >moves.sum &&
	for row in sendfile:moves.a:100 sendfile:moves.c:100 \
		   copy_file_range:moves.a:100 copy_file_range:moves.d:100 \
		   posix_fallocate:moves.e:0 fallocate:moves.e:0; do
		fn=${row%%:*} f=${row#*:} &&
		b=$(awk -v fn="$fn" -v f="$2/${f%:*}" "\$1 == \"POSIX\" && \$2 == fn && \$6 == f { b += \$4 } END { print b + 0 }" moves.sum) &&
		test "$b" = "${row##*:}" || { echo "$row: $b" >&2; return 1; }
	done
}

test_expect_success BPF,PYTHON3 'files made from templates, descriptors printed to and streams reopened are named' '
	temps_named "$T" "$W" &&
	more_named "$T" "$W" &&
	test "$(q count "$T" --cat sys --name openat --file "$W/$t1" --arg level=1)" = 1
'

test_expect_success BPF,PYTHON3 'chdir and fchdir, truncate, copies, space and advice in the posix layer' '
	test "$(q count "$T" --cat POSIX --name chdir --file "$W/sub" --arg ret=0)" = 1 &&
	test "$(q count "$T" --cat POSIX --name fchdir --file "$W" --arg ret=0)" = 1 &&
	moves_named "$T" "$W"
'

test_expect_success BPF,PYTHON3 'the same through uprobes' '
	printf "layers: [posix, stdio]\n" >u.yaml &&
	mkdir u &&
	(cd u && trace_ok ../u.yaml ../u.pfw.gz --no-preload probes.sig -- "$USERBYTES" >so 2>se) &&
	temps_named u.pfw.gz "$PWD/u" &&
	more_named u.pfw.gz "$PWD/u" &&
	moves_named u.pfw.gz "$PWD/u" &&
	# The posix layer alone follows the working directory.
	test "$(q count u.pfw.gz --cat POSIX --name chdir --file "$PWD/u/sub" --arg ret=0)" = 1 &&
	test "$(q count u.pfw.gz --cat POSIX --name open --file "$PWD/u/sub/inner.out")" = 1 &&
	test "$(q count u.pfw.gz --cat POSIX --name open --file "$PWD/u/outer.out")" = 1 &&
	test "$(q count u.pfw.gz --file "$PWD/u/inner.out")" = 0
'

test_expect_success BPF,PYTHON3 'profile mode, in the collector and in dc-aggregate: the same bytes' '
	mkdir p &&
	printf "mode: profile\ninterval_ms: 100\nlayers: [posix, stdio]\n" >p.yaml &&
	cfg="$PWD/p.yaml" &&
	(cd p && trace_ok "$cfg" ../p.pfw.gz probes.sig -- sh -c "\"$USERBYTES\" >so 2>se") &&
	printf "layers: [posix, stdio]\n" >t.yaml &&
	cfg="$PWD/t.yaml" && mkdir a &&
	(cd a && dc-gen "$cfg" >probes.json && dc-sign -k "$SHARED/key" -o probes.sig probes.json &&
	 dc-collect -k "$SHARED/key" probes.sig -- sh -c "\"$USERBYTES\" >so 2>se" 2>collect.err |
	 dc-aggregate --profile 100 | dc-write ../a.pfw.gz) &&
	for t in p a; do
		q list $t.pfw.gz --ph C --cat STDIO >$t.counters &&
		python3 - $t.counters <<-\EOP || return 1
		import json, sys, collections
		b = collections.Counter()
		for l in open(sys.argv[1]):
		    e = json.loads(l)
		    b[e["name"]] += e["args"]["bytes"]
		assert (b["fwrite"], b["fread"], b["fputs"], b["fputc"], b["fgets"]) == (12000, 12000, 16, 1, 13), b
		assert b["fprintf"] == 16, b
		EOP
	done
'

test_done

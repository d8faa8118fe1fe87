#!/bin/sh
# dc-report on bad input: a truncated, damaged or malformed trace gives a
# report that says what could not be read, with the documented status,
# and counts everything that could.
. "$(dirname "$0")/test-lib.sh"

Q=report-query.py

# events FILE [SKIP_MEMBER]: the event lines (what dc-write --summary
# counts) in the complete lines of FILE, read member by member as far as
# it goes, leaving out member SKIP_MEMBER.
events() {
	python3 - "$@" <<-\EOF
	import json, sys, zlib
	data = open(sys.argv[1], "rb").read()
	skip = int(sys.argv[2]) if len(sys.argv) > 2 else -1
	n, member, pos = 0, 0, 0
	while pos < len(data):
	    d = zlib.decompressobj(31)
	    text = d.decompress(data[pos:])
	    if not d.eof:
	        text = text[:text.rfind(b"\n") + 1]
	    if member != skip:
	        for line in text.split(b"\n"):
	            if line.startswith(b"{"):
	                e = json.loads(line)
	                n += e["ph"] not in ("M", "C") and e["cat"] not in ("datacrumbs", "dftracer")
	    if not d.eof:
	        break
	    pos = len(data) - len(d.unused_data)
	    member += 1
	print(n)
	EOF
}

test_expect_success 'a trace to damage: several members' '
	dc-mkstream --synthetic 20000 | dc-write --chunk-size 256K "$SHARED/t.pfw.gz" &&
	test $(wc -l <"$SHARED/t.pfw.gz.idx") -ge 4
'

test_expect_success DASK 'a trace cut inside a member: exit 3, the lines before the cut counted' '
	size=$(stat -c %s "$SHARED/t.pfw.gz") &&
	head -c $((size - 20000)) "$SHARED/t.pfw.gz" >cut.pfw.gz &&
	cp "$SHARED/t.pfw.gz.idx" cut.pfw.gz.idx &&
	test_must_fail_with 3 dc-report -w 0 cut.pfw.gz -o r.html 2>err &&
	grep "ends inside a gzip member" err &&
	$Q r.html warning >warn &&
	grep "cut.pfw.gz: no end line: the writer did not finish" warn &&
	grep "cut.pfw.gz: ends inside a gzip member (from byte [0-9]*)" warn &&
	want=$(events cut.pfw.gz) &&
	test "$want" -gt 10000 && test "$want" -lt 20000 &&
	test "$($Q r.html events)" = "$want"
'

test_expect_success DASK 'a damaged member, lines that are not JSON, a file of noise, on two workers: exit 4, each named' '
	cp "$SHARED/t.pfw.gz" dmg.pfw.gz && cp "$SHARED/t.pfw.gz.idx" dmg.pfw.gz.idx &&
	set -- $(sed -n 2p dmg.pfw.gz.idx | tr -c "0-9\n" " ") &&
	off=$2 len=$3 &&
	printf "\377\377\377\377\377\377\377\377" |
		dd of=dmg.pfw.gz bs=1 seek=$((off + len / 2)) conv=notrunc status=none &&
	{
		echo "[" &&
		echo "{\"id\":1,\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,\"ph\":\"X\",\"args\":{\"size\":8,\"ret\":8}}" &&
		echo "{\"id\":2,\"name\":\"wri" &&
		echo "{\"id\":3,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,\"ph\":\"X\",\"args\":{\"size\":8,\"ret\":4}}" &&
		echo "not json at all"
	} >bad.pfw &&
	head -c 3000 /dev/urandom >noise.pfw.gz &&
	test_must_fail_with 4 dc-report -w 2 dmg.pfw.gz bad.pfw noise.pfw.gz -o r.html 2>err &&
	$Q r.html warning >warn &&
	grep "^dmg.pfw.gz: gzip member 1 (bytes $off-$((off + len))) is damaged" warn &&
	grep "^bad.pfw: 2 unreadable lines (line 3, line 5)" warn &&
	grep "^noise.pfw.gz: " warn &&
	want=$(( $(events "$SHARED/t.pfw.gz" 1) + 2 )) &&
	test "$($Q r.html events)" = "$want" &&
	test_must_fail_with 4 dc-write --summary bad.pfw >sum &&
	grep "^bad.pfw: 2 events from 1 processes over 0.000 s, 2 unreadable lines" sum
'

test_expect_success DASK 'drops and a truncated stream upstream: a loud warning, exit 3' '
	cat >in.txt <<-EOF &&
	header host=node1 run=r1 offset=1700000000000000000 start=1000
	probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6 args=fd,ptr,size ret=size
	repeat 5 call probe=0 pid=100 tid=100 ts=5000 dur=2000 ret=4096 args=3,0,4096
	drops kind=cpu total=7 0=7
	end events=AUTO dropped=7 flags=1
	EOF
	dc-mkstream <in.txt | dc-write tr.pfw.gz &&
	test_must_fail_with 3 dc-report -w 0 tr.pfw.gz -o r.html &&
	$Q r.html warning >warn &&
	grep "^tr.pfw.gz: 7 events were dropped by the collector" warn &&
	grep "^tr.pfw.gz: its input stream was truncated" warn &&
	grep "class=\"warn\"" r.html &&
	test "$($Q r.html events)" = 5
'

test_expect_success DASK 'a missing trace: exit 1, the others reported' '
	test_must_fail_with 1 dc-report -w 0 "$SHARED/t.pfw.gz" nowhere.pfw.gz -o r.html 2>err &&
	test_one_line err &&
	grep "^dc-report: nowhere.pfw.gz: cannot read: No such file or directory" err &&
	$Q r.html warning | grep "^nowhere.pfw.gz: cannot read" &&
	test "$($Q r.html events)" = 20000
'

test_expect_success 'a report that cannot be written: exit 1 at once, one line' '
	test_must_fail_with 1 dc-report "$SHARED/t.pfw.gz" -o no/such/dir/r.html 2>err &&
	test_one_line err &&
	grep "^dc-report: cannot write no/such/dir/r.html: No such file or directory" err
'

test_done

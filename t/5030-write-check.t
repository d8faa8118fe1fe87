#!/bin/sh
# dc-write --check: the trace verifier, on our traces and on real DFTracer
# traces (shared/samples).
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq SAMPLES '
	test -r "$SHARED_DIR/samples/dfanalyzer_test_2023.pfw.gz" ||
	{ echo "no DFTracer samples in $SHARED_DIR/samples"; false; }
'

test_expect_success SAMPLES 'the three DFTracer samples pass, with per-cat counts' '
	dc-write --check "$SHARED_DIR"/samples/cm1-DEFAULT-3537780-preload.pfw.gz \
		"$SHARED_DIR"/samples/cm1-DEFAULT-3537781-preload.pfw.gz \
		"$SHARED_DIR"/samples/dfanalyzer_test_2023.pfw.gz >out 2>err &&
	test ! -s err &&
	grep "3537780-preload.pfw.gz: valid: 8791 objects in 8793 lines, 1 gzip member$" out &&
	grep "3537781-preload.pfw.gz: valid: 6574 objects in 6576 lines, 1 gzip member$" out &&
	grep "dfanalyzer_test_2023.pfw.gz: valid: 1012 objects in 1013 lines, 1 gzip member$" out &&
	grep -c "^ *1095  STDIO$" out >n && echo 2 >expect && test_cmp expect n &&
	grep "^ *6985  POSIX$" out &&
	grep "^ *1012  POSIX$" out
'

test_expect_success 'our own traces pass, index included' '
	dc-mkstream --synthetic 30000 >in.dcs &&
	dc-write --chunk-size 128K -i in.dcs out.pfw.gz &&
	dc-write --check out.pfw.gz >out &&
	lines=$(gzip -dc out.pfw.gz | wc -l) &&
	members=$(wc -l <out.pfw.gz.idx) &&
	test "$members" -gt 10 &&
	grep "out.pfw.gz: valid: $((lines - 1)) objects in $lines lines, $members gzip members$" out &&
	grep "^ *30000  POSIX$" out &&
	dc-write -i in.dcs plain.pfw && dc-write --check plain.pfw
'

test_expect_success 'a damaged gzip member is named, exit 4' '
	dc-mkstream --synthetic 30000 >in.dcs &&
	dc-write --chunk-size 128K -i in.dcs out.pfw.gz &&
	off=$(sed -n "3p" out.pfw.gz.idx | sed "s/.*\"offset\":\([0-9]*\),.*/\1/") &&
	printf "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX" |
		dd of=out.pfw.gz bs=1 seek=$((off + 200)) conv=notrunc 2>/dev/null &&
	test_must_fail_with 4 dc-write --check out.pfw.gz >out 2>err &&
	test_one_line err &&
	grep "gzip member 2 (byte $off) is corrupt" err &&
	grep "INVALID" out
'

test_expect_success 'an index that does not match the members is reported' '
	dc-mkstream --synthetic 30000 | dc-write --chunk-size 128K out.pfw.gz &&
	sed "2s/\"length\":[0-9]*/\"length\":1/" out.pfw.gz.idx >idx &&
	mv idx out.pfw.gz.idx &&
	test_must_fail_with 4 dc-write --check out.pfw.gz 2>err &&
	test_one_line err &&
	grep "out.pfw.gz.idx: line 2: entry does not match gzip member 1" err &&
	sed 1d out.pfw.gz.idx >idx && mv idx out.pfw.gz.idx &&
	test_must_fail_with 4 dc-write --check out.pfw.gz 2>err &&
	grep "line 1: entry does not match gzip member 0" err
'

test_expect_success 'an index of another tool is left alone, with a note' '
	dc-mkstream --synthetic 100 | dc-write out.pfw.gz &&
	printf "SQLite format 3\000..." >out.pfw.gz.idx &&
	dc-write --check out.pfw.gz >out 2>err &&
	grep "not a dc-write index, not checked" err &&
	grep "valid" out
'

test_expect_success 'a file cut inside a gzip member is incomplete, exit 3' '
	dc-mkstream --synthetic 3000 | dc-write out.pfw.gz &&
	head -c $(( $(wc -c <out.pfw.gz) - 100 )) out.pfw.gz >cut.pfw.gz &&
	test_must_fail_with 3 dc-write --check cut.pfw.gz >out 2>err &&
	test_one_line err &&
	grep "cut.pfw.gz: incomplete: gzip member 0 (byte 0) is cut short" err &&
	grep "^cut.pfw.gz: incomplete: " out
'

test_expect_success 'a trace without its end record is incomplete, exit 3, all read' '
	dc-mkstream --synthetic 3000 | dc-write --chunk-size 4K out.pfw.gz &&
	gzip -dc out.pfw.gz | grep -v "\"name\":\"end\"" | gzip >noend.pfw.gz &&
	test_must_fail_with 3 dc-write --check noend.pfw.gz >out 2>err &&
	test_one_line err &&
	grep "noend.pfw.gz: incomplete: no end record" err &&
	lines=$(gzip -dc noend.pfw.gz | wc -l) &&
	grep "all $lines lines were read" err &&
	grep "^noend.pfw.gz: incomplete: $((lines - 1)) objects in $lines lines" out &&
	grep "^ *3000  POSIX" out
'

test_expect_success 'a killed writer: members on disk, index behind, no end: incomplete' '
	dc-mkstream --synthetic 3000 | dc-write --chunk-size 4K out.pfw.gz &&
	n=$(wc -l <out.pfw.gz.idx) && test "$n" -gt 3 &&
	last=$(sed -n "$((n - 1))p" out.pfw.gz.idx | sed "s/.*\"offset\":\([0-9]*\).*\"length\":\([0-9]*\).*/\1 \2/") &&
	set -- $last &&
	head -c $(($1 + $2)) out.pfw.gz >k.pfw.gz &&
	head -n $((n - 2)) out.pfw.gz.idx >k.pfw.gz.idx &&
	test_must_fail_with 3 dc-write --check k.pfw.gz >out 2>err &&
	grep "k.pfw.gz: incomplete: no end record" err &&
	grep "^k.pfw.gz: incomplete" out
'

test_expect_success 'the worst file decides the status: invalid over incomplete' '
	dc-mkstream --synthetic 100 | dc-write ok.pfw.gz &&
	gzip -dc ok.pfw.gz | grep -v "\"name\":\"end\"" | gzip >noend.pfw.gz &&
	echo "not json" >bad.pfw &&
	test_must_fail_with 3 dc-write --check ok.pfw.gz noend.pfw.gz >/dev/null 2>&1 &&
	test_must_fail_with 4 dc-write --check noend.pfw.gz bad.pfw ok.pfw.gz >/dev/null 2>&1 &&
	test_must_fail_with 4 dc-write --check bad.pfw noend.pfw.gz >/dev/null 2>&1
'

test_expect_success 'bad lines: not JSON, missing keys, duplicate ids, unknown hashes, counts' '
	cat >bad.pfw <<-\EOF &&
	[
	{"id":1,"name":"HH","cat":"x","pid":1,"tid":1,"ph":"M","args":{"name":"h","value":7}}
	{"id":2,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":5,"dur":1,"ph":"X","args":{"hhash":7,"fhash":99}}
	{"id":2,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":5,"dur":1,"ph":"X","args":{"hhash":7}}
	{"id":4,"name":"read","cat":"POSIX","pid":"x","tid":1,"ph":"X","args":{}}
	{"id":5,"name":"read",
	{"id":6,"name":"end","cat":"x","pid":1,"tid":1,"ts":9,"dur":0,"ph":"X","args":{"num_events":3}}
	EOF
	test_must_fail_with 4 dc-write --check bad.pfw >out 2>err &&
	grep "line 4: id 2 also on line 3" err &&
	grep "line 5: \"pid\" is not an integer" err &&
	grep "line 5: \"ts\" missing" err &&
	grep "line 5: \"dur\" missing" err &&
	grep "line 6: not JSON" err &&
	grep "line 7: end event says other events, 4 precede it" err &&
	grep "line 3: fhash 99 has no FH line" err &&
	test_line_count err 7
'

test_expect_success 'problems are capped per file (50 bad lines + no events)' '
	{ echo "["; i=0; while test $i -lt 50; do echo "{bad"; i=$((i + 1)); done; } >bad.pfw &&
	test_must_fail_with 4 dc-write --check bad.pfw 2>err &&
	test_line_count err 21 &&
	tail -n 1 err | grep "31 more problems"
'

test_expect_success 'a missing file is exit 1, others still checked' '
	dc-mkstream --synthetic 100 | dc-write ok.pfw.gz &&
	test_must_fail_with 1 dc-write --check nosuch.pfw.gz ok.pfw.gz >out 2>err &&
	grep "cannot open nosuch.pfw.gz" err &&
	grep "ok.pfw.gz: valid" out
'

test_done

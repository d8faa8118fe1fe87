#!/bin/sh
# dc-track / dc-untrack: the client library as a DT_NEEDED entry, really
# loaded by the dynamic loader, idempotent, atomic, refusals in one line;
# a tracked program started by a plain shell is traced in client mode.
. "$(dirname "$0")/test-lib.sh"

lib=$(cd "$(dirname "$DC_CLIENT_LIB")" && pwd -P)/libdcclient.so

test_lazy_prereq STATIC_CC '
	echo "int main(void){return 0;}" >s.c &&
	cc -static -o s s.c || { echo "cannot link a static program"; false; }
'

needed() {
	readelf -dW "$1" | sed -n "s/.*(NEEDED).*\[\(.*\)\]/\1/p"
}

test_expect_success '--help, --version, usage errors' '
	dc-track --help >out && grep -q "^Usage: dc-track" out &&
	dc-untrack --help >out && grep -q "^Usage: dc-untrack" out &&
	dc-track --version | grep -q "^dc-track (datacrumbs)" &&
	test_must_fail_with 2 dc-track 2>err &&
	grep -q "no file given" err &&
	test_must_fail_with 2 dc-untrack --lib x y 2>err
'

test_expect_success READELF 'dc-track adds the library by absolute path; the program runs and loads it' '
	cp "$(command -v workload)" w &&
	dc-track w 2>err &&
	test_must_be_empty() { test ! -s "$1"; } && test_must_be_empty err &&
	needed w >got &&
	printf "libc.so.6\n%s\n" "$lib" >expect &&
	test_cmp expect got &&
	./w writes 3 "$PWD/F" &&
	test "$(stat -c %s F)" = 3 &&
	LD_DEBUG=libs ./w writes 1 /dev/null 2>ld.log &&
	grep -q "calling init: $lib" ld.log
'

test_expect_success READELF 'tracking twice changes nothing; untracking restores the list' '
	cp "$(command -v workload)" w &&
	dc-track w &&
	cp w once &&
	dc-track w 2>err &&
	grep -q "^dc-track: w: already tracked$" err &&
	cmp once w &&
	dc-track -q w 2>err && ! test -s err &&
	dc-untrack w &&
	needed w >got && echo libc.so.6 >expect && test_cmp expect got &&
	./w writes 2 /dev/null &&
	dc-untrack w 2>err &&
	grep -q "^dc-untrack: w: not tracked$" err &&
	dc-track w &&
	test "$(stat -c %s w)" = "$(stat -c %s once)" &&
	needed w >got && printf "libc.so.6\n%s\n" "$lib" >expect && test_cmp expect got
'

test_expect_success 'atomic: a new file renamed into place, mode kept, nothing left behind' '
	cp "$(command -v workload)" w &&
	chmod 751 w &&
	before=$(stat -c %i w) &&
	dc-track w &&
	test "$(stat -c %i w)" != "$before" &&
	test "$(stat -c %a w)" = 751 &&
	ls -a >files && test_line_count files 4
'

test_expect_success 'a symbolic link: the file it names is tracked, the link stays' '
	cp "$(command -v workload)" w &&
	ln -s w link &&
	dc-track link &&
	test -L link &&
	readelf -dW w | grep -q libdcclient
'

test_expect_success ROOT 'a directory it cannot write: one line, the file untouched' '
	mkdir ro && cp "$(command -v workload)" ro/w && cp ro/w orig &&
	chmod 555 ro && chmod 777 ro/w &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups dc-track ro/w 2>err
	rc=$?
	chmod 755 ro &&
	test $rc = 1 &&
	test_one_line err &&
	grep -q "^dc-track: ro/w: cannot create a file next to it: Permission denied$" err &&
	cmp orig ro/w
'

test_expect_success STATIC_CC 'a static program is refused: exit 6, one line, untouched' '
	echo "int main(void){return 0;}" >s.c && cc -static -o s s.c && cp s orig &&
	test_must_fail_with 6 dc-track s 2>err &&
	test_one_line err &&
	grep -q "^dc-track: s: statically linked: no dynamic loader will load the client library; cannot track it$" err &&
	cmp orig s
'

test_expect_success 'a shared library is refused: not an executable' '
	cp "$DC_CLIENT_LIB" l.so &&
	test_must_fail_with 6 dc-track l.so 2>err &&
	test_one_line err &&
	grep -q "not an executable" err
'

test_expect_success PYTHON3 'no spare .dynamic slot is refused: exit 6, one line, untouched' '
	cp "$(command -v workload)" w &&
	python3 - w <<-\PY &&
	# Shrink .dynamic to its used entries plus the DT_NULL: no padding.
	import struct, sys
	f = open(sys.argv[1], "r+b"); b = bytearray(f.read())
	shoff, = struct.unpack_from("<Q", b, 0x28)
	shentsize, shnum = struct.unpack_from("<HH", b, 0x3a)
	for i in range(shnum):
	    o = shoff + i * shentsize
	    typ, = struct.unpack_from("<I", b, o + 4)
	    if typ == 6:  # SHT_DYNAMIC
	        off, size = struct.unpack_from("<QQ", b, o + 0x18)
	        n = 0
	        while struct.unpack_from("<q", b, off + 16 * n)[0] != 0:
	            n += 1
	        struct.pack_into("<Q", b, o + 0x20, 16 * (n + 1))
	f.seek(0); f.write(b)
	PY
	cp w orig &&
	test_must_fail_with 6 dc-track w 2>err &&
	test_one_line err &&
	grep -q "^dc-track: w: no room for another dynamic entry" err &&
	cmp orig w
'

test_expect_success PYTHON3 'no program header to map the name: exit 6, one line, untouched' '
	cp "$(command -v workload)" w &&
	python3 - w <<-\PY &&
	# Turn every PT_NOTE into PT_NULL: nothing left to become a PT_LOAD.
	import struct, sys
	f = open(sys.argv[1], "r+b"); b = bytearray(f.read())
	phoff, = struct.unpack_from("<Q", b, 0x20)
	phentsize, phnum = struct.unpack_from("<HH", b, 0x36)
	for i in range(phnum):
	    o = phoff + i * phentsize
	    if struct.unpack_from("<I", b, o)[0] == 4:
	        struct.pack_into("<I", b, o, 0)
	f.seek(0); f.write(b)
	PY
	cp w orig &&
	test_must_fail_with 6 dc-track w 2>err &&
	test_one_line err &&
	grep -q "^dc-track: w: no room for the library.s name" err &&
	cmp orig w
'

test_expect_success 'not an ELF file: exit 4' '
	echo "#!/bin/sh" >script &&
	test_must_fail_with 4 dc-track script 2>err &&
	test_one_line err &&
	grep -q "script: not an ELF file" err
'

test_expect_success 'a missing file: exit 1, and the other files are still done' '
	cp "$(command -v workload)" w &&
	test_must_fail_with 1 dc-track nope w 2>err &&
	grep -q "nope: No such file or directory" err &&
	readelf -dW w | grep -q libdcclient
'

test_expect_success BPF,PYTHON3 'a tracked program started by a plain shell is traced in client mode' '
	dc-sign --gen-key -k key >/dev/null &&
	dc-gen --default >probes.json && dc-sign -k key -o probes.sig probes.json &&
	cp "$(command -v workload)" tracked && cp tracked plain &&
	dc-track tracked &&
	{ dc-collect -k key --clients --ready-file ready probes.sig 2>collect.err |
		dc-aggregate | dc-write trace.pfw.gz & } &&
	wait_for_file ready &&
	env -u LD_PRELOAD sh -c "./tracked writes 6 \"$PWD/T\"; ./plain writes 4 \"$PWD/P\""
	rc=$?
	cpid=$(cat ready 2>/dev/null)
	test -n "$cpid" && kill -INT $cpid
	wait
	test $rc = 0 &&
	test "$(pfw-query count trace.pfw.gz --cat POSIX --name write --file "$PWD/T")" = 6 &&
	test "$(pfw-query count trace.pfw.gz --cat sys --name write --file "$PWD/T")" = 6 &&
	test "$(pfw-query count trace.pfw.gz --name write --file "$PWD/P")" = 0
'

test_done

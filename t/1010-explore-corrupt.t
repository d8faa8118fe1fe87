#!/bin/sh
# dc-explore on files that are not usable ELF: each is one line on stderr
# and exit 4 (bad input); unreadable paths are exit 1.
. "$(dirname "$0")/test-lib.sh"


# expect_bad FILE TEXT: exit 4, exactly one line, naming FILE and TEXT.
expect_bad() {
	test_must_fail_with 4 dc-explore "$1" >out 2>err &&
	test_one_line err &&
	grep -q "^dc-explore: .*$1: .*$2" err &&
	test ! -s out
}

test_expect_success 'empty file' '
	: >empty.so &&
	expect_bad empty.so "empty file, not an ELF file"
'

test_expect_success 'random garbage' '
	head -c 4096 /dev/urandom >garbage.so &&
	printf "JUNK" | dd of=garbage.so conv=notrunc 2>/dev/null &&
	expect_bad garbage.so "not an ELF file"
'

test_expect_success 'a text file' '
	echo "INPUT(-lc)" >script.so &&
	expect_bad script.so "not an ELF file"
'

test_expect_success 'a 32-bit class header' '
	{ printf "\177ELF\001\001\001\000\000\000\000\000\000\000\000\000" &&
	  printf "\003\000\003\000\001\000\000\000" &&
	  head -c 200 /dev/zero; } >c32.so &&
	expect_bad c32.so "32-bit ELF file"
'

test_expect_success LIBC 'a copy of libc cut in half' '
	lib=$(libc_path) &&
	size=$(wc -c <"$lib") &&
	head -c $((size / 2)) "$lib" >half.so &&
	expect_bad half.so "truncated"
'

test_expect_success LIBC 'a copy of libc missing its last 100 bytes' '
	lib=$(libc_path) &&
	size=$(wc -c <"$lib") &&
	head -c $((size - 100)) "$lib" >tail.so &&
	expect_bad tail.so "truncated or corrupt ELF file: section headers"
'

test_expect_success LIBC 'only the ELF header of libc' '
	head -c 64 "$(libc_path)" >hdr.so &&
	expect_bad hdr.so "ELF file"
'

test_expect_success LIBC,PYTHON3 'corrupt header fields' '
	python3 - "$(libc_path)" <<-\PY &&
	import struct, sys
	d = open(sys.argv[1], "rb").read()
	def put(name, fmt, off, val):
	    b = bytearray(d); struct.pack_into(fmt, b, off, val)
	    open(name, "wb").write(b)
	put("phoff.so", "<Q", 0x20, 1 << 62)      # e_phoff
	put("shoff.so", "<Q", 0x28, 1 << 62)      # e_shoff
	put("shstrndx.so", "<H", 0x3e, 0xfff0)    # e_shstrndx
	put("reloc.so", "<H", 0x10, 1)            # e_type = ET_REL
	PY
	expect_bad phoff.so "corrupt ELF file" &&
	expect_bad shoff.so "section headers" &&
	expect_bad shstrndx.so "corrupt ELF file" &&
	expect_bad reloc.so "not an executable or shared object"
'

test_expect_success LIBC 'flipped bytes never crash dc-explore' '
	lib=$(libc_path) &&
	size=$(wc -c <"$lib") &&
	i=0 &&
	while [ $i -lt 40 ]; do
		cp "$lib" fuzz.so &&
		off=$(( ($(od -An -N4 -tu4 /dev/urandom) % (size / 64)) )) &&
		head -c 64 /dev/urandom | dd of=fuzz.so bs=1 seek=$off conv=notrunc 2>/dev/null &&
		{ dc-explore fuzz.so >/dev/null 2>err; rc=$?; } &&
		case $rc in 0|4) ;; *) echo "exit $rc at $off"; cat err; exit 1 ;; esac &&
		test "$(wc -l <err)" -le 1 &&
		i=$((i + 1))
	done
'

test_expect_success 'a directory is bad input, a missing file a failure' '
	mkdir dir.so &&
	expect_bad dir.so "not a regular file" &&
	test_must_fail_with 1 dc-explore ./nothing.so 2>err &&
	test_one_line err
'

test_done

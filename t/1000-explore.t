#!/bin/sh
# dc-explore: functions, versions, aliases, offsets and USDT probes of
# real ELF files, checked against readelf where it is installed.
. "$(dirname "$0")/test-lib.sh"

hdf5_path() {
	ls /usr/lib/*/libhdf5.so /usr/lib/*/libhdf5_serial.so \
		/usr/lib/*/libhdf5_openmpi.so /usr/lib/libhdf5.so 2>/dev/null | head -n 1
}
test_lazy_prereq HDF5 '
	test -n "$(hdf5_path)" || { echo "HDF5 library not installed"; false; }
'
mpi_path() {
	ls /usr/lib/*/libmpi.so /usr/lib/libmpi.so 2>/dev/null | head -n 1
}
test_lazy_prereq MPI '
	test -n "$(mpi_path)" || { echo "MPI library (libmpi.so) not installed"; false; }
'

# What readelf says a file defines: one name per line, as dc-explore
# spells them (default versions bare, hidden ones with @VERSION).
readelf_funcs() {
	readelf -W --dyn-syms --syms "$1" | awk '
		$4 ~ /^(FUNC|IFUNC)$/ && $7 != "UND" && $2 !~ /^0+$/ {
			n = $8; sub(/@@.*/, "", n); print n }' | LC_ALL=C sort -u
}
# The file offset of a virtual address, through readelf's PT_LOAD lines.
readelf_offset() {
	readelf -W -l "$1" | while read -r type off vaddr paddr filesz rest; do
		test "$type" = LOAD || continue
		if [ $(($2)) -ge $((vaddr)) ] && [ $(($2)) -lt $((vaddr + filesz)) ]; then
			echo $(($2 - vaddr + off))
			break
		fi
	done
}

test_expect_success 'dc-explore --help and a bad option' '
	dc-explore --help >out && grep -q "^Usage: dc-explore" out &&
	test_must_fail_with 2 dc-explore --bogus 2>err &&
	grep -q "Try .dc-explore --help." err &&
	test_must_fail_with 2 dc-explore 2>err &&
	grep -q "no file or library given" err
'

test_expect_success LIBC 'libc lists write and pwrite64, once each' '
	dc-explore libc.so.6 >out &&
	test "$(grep -c "^write$" out)" = 1 &&
	test "$(grep -c "^pwrite64$" out)" = 1 &&
	LC_ALL=C sort -c out
'

test_expect_success LIBC,READELF 'libc listing equals what readelf defines' '
	readelf_funcs "$(libc_path)" >expect &&
	dc-explore "$(libc_path)" >actual &&
	test_cmp expect actual
'

test_expect_success LIBC,PYTHON3 'write is write@@GLIBC_2.2.5 with its alias' '
	dc-explore --json --match "^write$" libc.so.6 >out.json &&
	python3 - "$(libc_path)" <<-\PY
	import json, sys
	objs = json.load(open("out.json"))
	assert len(objs) == 1, objs
	w = objs[0]
	assert w["name"] == "write", w
	assert w["symbol"] == "write@@GLIBC_2.2.5", w
	assert w["version"] == "GLIBC_2.2.5" and w["default_version"] is True, w
	assert "__write" in w["names"], w
	assert w["offset"] > 0 and w["size"] > 0, w
	assert w["file"] == sys.argv[1], (w["file"], sys.argv[1])
	assert w["kind"] == "func", w
	PY
'

test_expect_success LIBC,READELF 'offsets follow the PT_LOAD segments' '
	lib=$(libc_path) &&
	addr=$(readelf -W --dyn-syms "$lib" | awk "\$8 == \"write@@GLIBC_2.2.5\" { print \$2 }") &&
	expect=$(readelf_offset "$lib" "0x$addr") &&
	dc-explore --offsets --match "^write$" "$lib" >out &&
	test "$(cat out)" = "$(printf "%#x write" "$expect")"
'

test_expect_success LIBC,READELF 'hidden versions are listed as name@VERSION' '
	readelf -W --dyn-syms "$(libc_path)" |
		awk "\$4 ~ /FUNC/ && \$7 != \"UND\" && \$8 ~ /[^@]@[^@]/ { print \$8 }" |
		head -n 1 >hidden &&
	test -s hidden &&
	dc-explore libc.so.6 >out &&
	grep -qxF "$(cat hidden)" out
'

test_expect_success LIBC 'aliases share one offset' '
	dc-explore --offsets --match "^(write|__write)$" libc.so.6 >out &&
	test_line_count out 2 &&
	test "$(cut -d" " -f1 out | sort -u | wc -l)" = 1
'

test_expect_success LIBC '--match takes POSIX extended regexes; a bad one is misuse' '
	dc-explore --match "^p(read|write)64$" libc.so.6 >out &&
	printf "pread64\npwrite64\n" >expect &&
	test_cmp expect out &&
	test_must_fail_with 2 dc-explore --match "(" libc.so.6 2>err &&
	grep -q "bad --match regex" err
'

test_expect_success HDF5 'HDF5 has H5Dwrite' '
	dc-explore --offsets "$(hdf5_path)" >out &&
	grep -q " H5Dwrite$" out &&
	! grep -q "^0x0 " out
'

test_expect_success MPI 'libmpi has MPI_File_write_at_all, found by its bare name' '
	dc-explore libmpi >out &&
	grep -qx MPI_File_write_at_all out &&
	dc-explore "$(mpi_path)" >out2 &&
	test_cmp out out2
'

test_expect_success USDT 'USDT probes of usdt-demo' '
	dc-explore --kind usdt "$(command -v usdt-demo)" >out &&
	printf "dcdemo:gated\ndcdemo:start\ndcdemo:stop\n" >expect &&
	test_cmp expect out
'

test_expect_success USDT,READELF,PYTHON3 'USDT offsets and arguments match the notes' '
	exe=$(command -v usdt-demo) &&
	pc=$(readelf -n "$exe" | awk "/Name: start/ { getline; print \$2 }" | tr -d ,) &&
	expect=$(readelf_offset "$exe" "$pc") &&
	sem=$(readelf -n "$exe" | awk "/Name: gated/ { getline; print \$6 }") &&
	sem_off=$(readelf_offset "$exe" "$sem") &&
	test -n "$sem_off" &&
	dc-explore --kind usdt --json "$exe" >out.json &&
	python3 - "$expect" "$((sem))" "$sem_off" <<-\PY
	import json, sys
	objs = {o["name"]: o for o in json.load(open("out.json"))}
	s = objs["start"]
	assert s["provider"] == "dcdemo", s
	assert s["offset"] == int(sys.argv[1]), (s, sys.argv[1])
	assert s["args"].count("@") == 2, s
	g = objs["gated"]
	assert g["semaphore"] == int(sys.argv[2]) != 0, (g, sys.argv[2])
	assert g["semaphore_offset"] == int(sys.argv[3]), (g, sys.argv[3])
	assert g["semaphore_offset"] != g["semaphore"], g
	PY
'

test_expect_success USDT,READELF '.symtab functions of an executable (main)' '
	exe=$(command -v usdt-demo) &&
	addr=$(readelf -W --syms "$exe" | awk "\$8 == \"main\" && \$4 == \"FUNC\" { print \$2 }") &&
	expect=$(readelf_offset "$exe" "0x$addr") &&
	dc-explore --offsets --match "^main$" "$exe" >out &&
	test "$(cat out)" = "$(printf "%#x main" "$expect")"
'

test_expect_success USDT 'libraries by name: LD_LIBRARY_PATH, stems, versions' '
	mkdir lib &&
	cp "$(command -v usdt-demo)" lib/libdcfake.so.1 &&
	cp "$(command -v usdt-demo)" lib/libdcfake.so.2 &&
	LD_LIBRARY_PATH=$PWD/lib dc-explore --kind usdt --json libdcfake >out &&
	grep -q "\"file\": \"$PWD/lib/libdcfake.so.2\"" out &&
	ln -s libdcfake.so.1 lib/libdcfake.so &&
	LD_LIBRARY_PATH=$PWD/lib dc-explore --kind usdt --json libdcfake >out &&
	grep -q "\"file\": \"$PWD/lib/libdcfake.so.1\"" out &&
	LD_LIBRARY_PATH=$PWD/lib dc-explore --kind usdt --json libdcfake.so.2 >out &&
	grep -q "\"file\": \"$PWD/lib/libdcfake.so.2\"" out
'

test_expect_success 'a missing library or file is exit 1, one line' '
	test_must_fail_with 1 dc-explore libdc-no-such-lib 2>err &&
	test_one_line err &&
	grep -q "library libdc-no-such-lib not found" err &&
	test_must_fail_with 1 dc-explore ./no-such-file.so 2>err &&
	test_one_line err &&
	grep -q "no-such-file.so: No such file or directory" err
'

test_expect_success LIBC 'several files: lines carry the file; errors do not stop the rest' '
	test_must_fail_with 1 dc-explore --match "^write$" libc.so.6 ./missing.so libc.so.6 >out 2>err &&
	test_line_count out 2 &&
	grep -q "^/.*libc.so.6:write$" out &&
	test_one_line err
'

test_lazy_prereq LDCONFIG '
	command -v cc >/dev/null || { echo "no C compiler"; false; }
	test -x /sbin/ldconfig || { echo "no /sbin/ldconfig"; false; }
'

test_expect_success LDCONFIG 'libraries by soname through an ld.so.cache' '
	mkdir lib &&
	echo "int dccache_fn(void) { return 1; }" >fn.c &&
	cc -shared -fPIC -Wl,-soname,libdccache.so.3 -o lib/libdccache.so.3.0 fn.c &&
	ln -s libdccache.so.3.0 lib/libdccache.so.3 &&
	echo "$PWD/lib" >ld.conf &&
	/sbin/ldconfig -X -C "$PWD/ld.cache" -f "$PWD/ld.conf" &&
	DC_LDSO_CACHE=$PWD/ld.cache dc-explore --match "^dccache_fn$" libdccache.so.3 >out &&
	echo dccache_fn >expect &&
	test_cmp expect out &&
	DC_LDSO_CACHE=$PWD/ld.cache dc-explore --json --match "^dccache_fn$" libdccache >out &&
	grep -q "\"file\": \"$PWD/lib/libdccache.so.3.0\"" out &&
	test_must_fail_with 1 dc-explore libdccache.so.3 2>err &&
	test_one_line err
'

test_done

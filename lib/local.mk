# lib/: the small library every tool links: messages, the stream codec,
# the probe spec model, the hash table, FNV-1a and size parser.  Helpers
# add their shared pieces here (ELF symbol reader, syscall table and
# tracefs for dc-explore and dc-gen, signature checks for dc-sign and
# dc-collect).
noinst_LTLIBRARIES += lib/libdc.la
lib_libdc_la_SOURCES = \
	lib/deflatelib.c lib/deflatelib.h \
	lib/event.h \
	lib/jobinfo.c lib/jobinfo.h \
	lib/aioabi.h \
	lib/bytes.h \
	lib/checking.h \
	lib/fdpass.h \
	lib/hash.h \
	lib/messages.c lib/messages.h \
	lib/mpiabi.h \
	lib/numbers.c lib/numbers.h \
	lib/preload.h \
	lib/sanreport.c \
	lib/outfile.c lib/outfile.h \
	lib/quote.c lib/quote.h \
	lib/spec.c lib/spec.h \
	lib/stream.c lib/stream.h \
	lib/syscalls.c lib/syscalls.h \
	lib/tracefs.c lib/tracefs.h \
	lib/u64map.c lib/u64map.h
nodist_lib_libdc_la_SOURCES = lib/syscall-names.h
lib_libdc_la_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(JANSSON_CFLAGS)
lib_libdc_la_LIBADD = $(ZLIB_LIBS) $(JANSSON_LIBS)
lib_libdc_la_SOURCES += lib/sign.c lib/sign.h
lib_libdc_la_CFLAGS += $(LIBCRYPTO_CFLAGS)
lib_libdc_la_LIBADD += $(LIBCRYPTO_LIBS)
lib_libdc_la_SOURCES += lib/elfsyms.c lib/elfsyms.h
lib_libdc_la_CFLAGS += $(LIBELF_CFLAGS)
lib_libdc_la_LIBADD += $(LIBELF_LIBS)

# Unit tests of lib/'s hash table, FNV-1a and size parser, run by
# t/0010-lib.t.
check_PROGRAMS += t/helpers/lib-test
t_helpers_lib_test_SOURCES = t/helpers/lib-test.c t/helpers/tap.h
t_helpers_lib_test_LDADD = lib/libdc.la $(ZLIB_LIBS)

# Every SYS_ name of <sys/syscall.h> for this build's architecture, as
# DC_SYSCALL(name) lines sorted by name (lib/syscalls.c).
lib/syscall-names.h: Makefile
	$(AM_V_GEN)$(MKDIR_P) lib && \
	echo '#include <sys/syscall.h>' | $(CPP) -dM - | \
	  sed -n 's/^#define SYS_\([a-z0-9_]*\) .*/DC_SYSCALL(\1)/p' | \
	  LC_ALL=C sort -u >$@.tmp && \
	test -s $@.tmp && mv $@.tmp $@
BUILT_SOURCES += lib/syscall-names.h
CLEANFILES += lib/syscall-names.h

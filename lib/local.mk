# lib/: the small library every tool links: messages, the stream codec,
# the probe spec model.  Helpers add their shared pieces here (ELF symbol
# reader for dc-explore and dc-gen, signature checks for dc-sign and
# dc-collect).
noinst_LTLIBRARIES += lib/libdc.la
lib_libdc_la_SOURCES = \
	lib/event.h \
	lib/jobinfo.c lib/jobinfo.h \
	lib/bytes.h \
	lib/fdpass.h \
	lib/hash.h \
	lib/messages.c lib/messages.h \
	lib/numbers.c lib/numbers.h \
	lib/outfile.c lib/outfile.h \
	lib/spec.c lib/spec.h \
	lib/stream.c lib/stream.h \
	lib/u64map.c lib/u64map.h
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
t_helpers_lib_test_SOURCES = t/helpers/lib-test.c
t_helpers_lib_test_LDADD = lib/libdc.la

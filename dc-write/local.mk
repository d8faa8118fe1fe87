# dc-write/local.mk - dc-write (stream to DFTracer trace) and the test
# stream generator dc-mkstream that the tests of every tool use.
bin_PROGRAMS += dc-write/dc-write
dc_write_dc_write_SOURCES = \
	dc-write/dc-write.c \
	dc-write/trace.c dc-write/trace.h dc-write/trace-impl.h \
	dc-write/tables.c dc-write/outputs.c dc-write/json.h \
	dc-write/callargs.c dc-write/callargs.h \
	dc-write/gzout.c dc-write/gzout.h \
	dc-write/check.c dc-write/check.h \
	dc-write/summary.c dc-write/summary.h
dc_write_dc_write_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(JANSSON_CFLAGS) -pthread
dc_write_dc_write_LDADD = lib/libdc.la $(ZLIB_LIBS) $(JANSSON_LIBS) -lpthread
EXTRA_DIST += dc-write/README.md

check_PROGRAMS += t/helpers/dc-mkstream
t_helpers_dc_mkstream_SOURCES = t/helpers/dc-mkstream.c
t_helpers_dc_mkstream_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(JANSSON_CFLAGS)
t_helpers_dc_mkstream_LDADD = lib/libdc.la $(ZLIB_LIBS) $(JANSSON_LIBS)
EXTRA_DIST += t/helpers/pfw-members.py
EXTRA_DIST += bench/write-bench.sh

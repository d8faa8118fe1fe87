# dc-aggregate/local.mk: dc-aggregate, and the stream codec's unit tests.
bin_PROGRAMS += dc-aggregate/dc-aggregate
# All but its main (dc-aggregate.c): the fuzz harness runs these too.
DC_AGGREGATE_RUN = dc-aggregate/aggregate.c \
	dc-aggregate/aggregate.h dc-aggregate/files.c dc-aggregate/fdnames.c \
	dc-aggregate/profile.c \
	dc-aggregate/hold.c \
	dc-aggregate/read.c \
	dc-aggregate/calltree.c dc-aggregate/calltree.h \
	dc-aggregate/text.c dc-aggregate/text.h \
	dc-aggregate/hosts.c dc-aggregate/hosts.h \
	dc-aggregate/fdtable.c dc-aggregate/fdtable.h
dc_aggregate_dc_aggregate_SOURCES = dc-aggregate/dc-aggregate.c \
	$(DC_AGGREGATE_RUN)
dc_aggregate_dc_aggregate_LDADD = lib/libdc.la -lpthread

# Unit tests of lib/stream.c, run by t/0000-stream.t.
check_PROGRAMS += t/helpers/stream-test
t_helpers_stream_test_SOURCES = t/helpers/stream-test.c t/helpers/tap.h
t_helpers_stream_test_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)
t_helpers_stream_test_LDADD = lib/libdc.la $(ZLIB_LIBS)
EXTRA_DIST += t/helpers/stream-mutate.py
EXTRA_DIST += dc-aggregate/README.md

# dc-explore/local.mk - dc-explore: list probe-able functions, USDT
# probes, tracepoints, syscalls and kernel functions.
bin_PROGRAMS += dc-explore/dc-explore
dc_explore_dc_explore_SOURCES = \
	dc-explore/dc-explore.c dc-explore/explore.h \
	dc-explore/kernel.c
dc_explore_dc_explore_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) \
	$(JANSSON_CFLAGS) $(LIBBPF_CFLAGS)
dc_explore_dc_explore_LDADD = lib/libdc.la $(LIBELF_LIBS) $(JANSSON_LIBS) \
	$(LIBBPF_LIBS)
EXTRA_DIST += dc-explore/README.md

# dc-wrap/local.mk: dc-wrap and the client library it preloads.
bin_PROGRAMS += dc-wrap/dc-wrap
dc_wrap_dc_wrap_SOURCES = dc-wrap/dc-wrap.c
dc_wrap_dc_wrap_LDADD = lib/libdc.la

# libdcclient.so must stay free of dependencies and exported symbols
# other than its hooks: everything else is hidden.
lib_LTLIBRARIES += dc-wrap/libdcclient.la
include_HEADERS = dc-wrap/dcclient.h
# The fast path (fast.c) and the wrappers it serves (wrappers.c, and
# iolibs.c for MPI-IO and HDF5, which it does not link) are in
# the same library: preloading one file is all a process needs.
dc_wrap_libdcclient_la_SOURCES = dc-wrap/dcclient.c dc-wrap/dcclient.h \
	dc-wrap/fast.c dc-wrap/client.h dc-wrap/derive.c dc-wrap/wrappers.c \
	dc-wrap/iolibs.c \
	dc-wrap/exec.c dc-wrap/spawn.c dc-wrap/vfork.c lib/preload.h \
	lib/checking.h lib/fastabi.h lib/mpiabi.h lib/aioabi.h
# Never sanitized: it is preloaded into applications that are not.
dc_wrap_libdcclient_la_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS)) \
	-fvisibility=hidden -ftls-model=initial-exec
dc_wrap_libdcclient_la_LDFLAGS = -avoid-version -no-undefined

EXTRA_DIST += dc-wrap/README.md

# Test helper: catches the client hooks' calls (t/4100-wrap.t).
check_PROGRAMS += t/helpers/dc-client-probe
t_helpers_dc_client_probe_SOURCES = t/helpers/dc-client-probe.c
t_helpers_dc_client_probe_LDFLAGS = $(AM_LDFLAGS) -export-dynamic

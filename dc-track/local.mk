# dc-track/local.mk - dc-track and dc-untrack: the client library as a
# DT_NEEDED entry of an executable.  One source, built twice.
bin_PROGRAMS += dc-track/dc-track dc-track/dc-untrack
dc_track_dc_track_SOURCES = dc-track/dc-track.c
dc_track_dc_track_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
dc_track_dc_track_LDADD = lib/libdc.la $(LIBELF_LIBS)
dc_track_dc_untrack_SOURCES = dc-track/dc-track.c
dc_track_dc_untrack_CPPFLAGS = $(AM_CPPFLAGS) -DDC_UNTRACK
dc_track_dc_untrack_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
dc_track_dc_untrack_LDADD = lib/libdc.la $(LIBELF_LIBS)
EXTRA_DIST += dc-track/README.md

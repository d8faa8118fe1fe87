# dc-sign/local.mk - dc-sign (sign and verify probe specs) and dc-signd
# (the signing service for users who cannot read the key).
bin_PROGRAMS += dc-sign/dc-sign
dc_sign_dc_sign_SOURCES = dc-sign/dc-sign.c dc-sign/service.h
dc_sign_dc_sign_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(LIBCRYPTO_CFLAGS)
dc_sign_dc_sign_LDADD = lib/libdc.la $(JANSSON_LIBS) $(LIBCRYPTO_LIBS) $(ZLIB_LIBS)

sbin_PROGRAMS += dc-sign/dc-signd
dc_sign_dc_signd_SOURCES = dc-sign/dc-signd.c dc-sign/service.h
dc_sign_dc_signd_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(LIBCRYPTO_CFLAGS)
dc_sign_dc_signd_LDADD = lib/libdc.la $(JANSSON_LIBS) $(LIBCRYPTO_LIBS) $(ZLIB_LIBS)

# systemd units, installed under the prefix by default so a plain
# `make install` needs no root; packagers set
# systemdsystemunitdir=/lib/systemd/system.
systemdsystemunitdir = $(prefix)/lib/systemd/system
systemdsystemunit_DATA = dc-sign/dc-signd.socket dc-sign/dc-signd.service
dc_sign_subst = sed -e 's|@sbindir[@]|$(sbindir)|g' \
	-e 's|@socket[@]|/run/datacrumbs/sign.sock|g'
dc-sign/dc-signd.socket: $(srcdir)/dc-sign/dc-signd.socket.in Makefile
	$(AM_V_GEN)$(MKDIR_P) dc-sign && $(dc_sign_subst) $(srcdir)/dc-sign/dc-signd.socket.in >$@.tmp && mv $@.tmp $@
dc-sign/dc-signd.service: $(srcdir)/dc-sign/dc-signd.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) dc-sign && $(dc_sign_subst) $(srcdir)/dc-sign/dc-signd.service.in >$@.tmp && mv $@.tmp $@
CLEANFILES += dc-sign/dc-signd.socket dc-sign/dc-signd.service
EXTRA_DIST += dc-sign/dc-signd.socket.in dc-sign/dc-signd.service.in \
	dc-sign/README.md

# An example site policy for dc-signd (POLICY FILE in dc-signd(8)).
dist_pkgdata_DATA += dc-sign/policy.example.json

# Test helper: dc_verify_file() as dc-collect calls it (t/2200-*.t).
check_PROGRAMS += t/helpers/dc-verify-api
t_helpers_dc_verify_api_SOURCES = t/helpers/dc-verify-api.c
t_helpers_dc_verify_api_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
t_helpers_dc_verify_api_LDADD = lib/libdc.la $(JANSSON_LIBS) $(LIBCRYPTO_LIBS) $(ZLIB_LIBS)

# fuzz/local.mk - fuzz harnesses (one parser each, see fuzz/README.md).
# They are built with the test programs, so the suite runs the seed
# corpora and every kept crash input through them (t/8090); `make fuzz`
# in a build configured with --enable-fuzzing (CC=afl-clang-fast) runs
# AFL++ on every target for FUZZ_SECONDS each.
FUZZ_HARNESSES = fuzz/fuzz-stream fuzz/fuzz-spec fuzz/fuzz-verify \
	fuzz/fuzz-config fuzz/fuzz-elf
check_PROGRAMS += $(FUZZ_HARNESSES)
FUZZ_COMMON = fuzz/fuzz.h fuzz/fuzz-input.c

fuzz_fuzz_stream_SOURCES = fuzz/fuzz-stream.c
fuzz_fuzz_stream_LDADD = lib/libdc.la

fuzz_fuzz_spec_SOURCES = fuzz/fuzz-spec.c $(FUZZ_COMMON)
fuzz_fuzz_spec_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
fuzz_fuzz_spec_LDADD = lib/libdc.la $(JANSSON_LIBS)

fuzz_fuzz_verify_SOURCES = fuzz/fuzz-verify.c $(FUZZ_COMMON)
fuzz_fuzz_verify_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(LIBCRYPTO_CFLAGS)
fuzz_fuzz_verify_LDADD = lib/libdc.la $(JANSSON_LIBS) $(LIBCRYPTO_LIBS)

fuzz_fuzz_config_SOURCES = fuzz/fuzz-config.c dc-gen/config.c \
	dc-gen/layers.c
fuzz_fuzz_config_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/dc-gen \
	-I$(top_builddir)/dc-gen $(LIBELF_CFLAGS) $(JANSSON_CFLAGS) \
	$(YAML_CFLAGS) $(LIBBPF_CFLAGS)
fuzz_fuzz_config_LDADD = lib/libdc.la $(LIBELF_LIBS) $(JANSSON_LIBS) \
	$(YAML_LIBS) $(LIBBPF_LIBS)

fuzz_fuzz_elf_SOURCES = fuzz/fuzz-elf.c
fuzz_fuzz_elf_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
fuzz_fuzz_elf_LDADD = lib/libdc.la $(LIBELF_LIBS)

EXTRA_DIST += fuzz/README.md fuzz/run

FUZZ_SECONDS = 45
fuzz: all $(check_PROGRAMS)
	DC_SRC_DIR=$(abs_top_srcdir) DC_BUILD_DIR=$(abs_top_builddir) \
	FUZZ_SECONDS=$(FUZZ_SECONDS) $(abs_top_srcdir)/fuzz/run $(FUZZ_TARGETS)
.PHONY: fuzz

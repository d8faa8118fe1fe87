# fuzz/local.mk - fuzz harnesses (one parser each, see fuzz/README.md).
# They are built with the test programs, so the suite runs the seed
# corpora and every kept crash input through them (t/8090); `make fuzz`
# in a build configured with --enable-fuzzing (CC=afl-clang-fast) runs
# AFL++ on every target for FUZZ_SECONDS each, FUZZ_JOBS at a time.
FUZZ_HARNESSES = fuzz/fuzz-stream fuzz/fuzz-aggregate fuzz/fuzz-write \
	fuzz/fuzz-check fuzz/fuzz-spec fuzz/fuzz-verify fuzz/fuzz-config \
	fuzz/fuzz-elf
check_PROGRAMS += $(FUZZ_HARNESSES)
FUZZ_COMMON = fuzz/fuzz.h fuzz/fuzz-main.c

fuzz_fuzz_stream_SOURCES = fuzz/fuzz-stream.c $(FUZZ_COMMON)
fuzz_fuzz_stream_LDADD = lib/libdc.la

# dc-aggregate without its main.
fuzz_fuzz_aggregate_SOURCES = fuzz/fuzz-aggregate.c $(FUZZ_COMMON) \
	$(DC_AGGREGATE_RUN)
fuzz_fuzz_aggregate_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/dc-aggregate \
	-pthread
fuzz_fuzz_aggregate_LDADD = lib/libdc.la -lpthread

# dc-write's trace writer and checker, without its main.
FUZZ_WRITE_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/dc-write $(ZLIB_CFLAGS) \
	$(JANSSON_CFLAGS) -pthread
FUZZ_WRITE_LIBS = lib/libdc.la $(ZLIB_LIBS) $(JANSSON_LIBS) -lpthread

fuzz_fuzz_write_SOURCES = fuzz/fuzz-write.c $(FUZZ_COMMON) \
	dc-write/trace.c dc-write/tables.c dc-write/outputs.c \
	dc-write/callargs.c dc-write/gzout.c
fuzz_fuzz_write_CFLAGS = $(FUZZ_WRITE_CFLAGS)
fuzz_fuzz_write_LDADD = $(FUZZ_WRITE_LIBS)

fuzz_fuzz_check_SOURCES = fuzz/fuzz-check.c $(FUZZ_COMMON) dc-write/check.c
fuzz_fuzz_check_CFLAGS = $(FUZZ_WRITE_CFLAGS)
fuzz_fuzz_check_LDADD = $(FUZZ_WRITE_LIBS)

fuzz_fuzz_spec_SOURCES = fuzz/fuzz-spec.c $(FUZZ_COMMON)
fuzz_fuzz_spec_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
fuzz_fuzz_spec_LDADD = lib/libdc.la $(JANSSON_LIBS)

fuzz_fuzz_verify_SOURCES = fuzz/fuzz-verify.c $(FUZZ_COMMON)
fuzz_fuzz_verify_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(LIBCRYPTO_CFLAGS)
fuzz_fuzz_verify_LDADD = lib/libdc.la $(JANSSON_LIBS) $(LIBCRYPTO_LIBS)

fuzz_fuzz_config_SOURCES = fuzz/fuzz-config.c $(FUZZ_COMMON) \
	dc-gen/config.c dc-gen/layers.c
fuzz_fuzz_config_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/dc-gen \
	-I$(top_builddir)/dc-gen $(LIBELF_CFLAGS) $(JANSSON_CFLAGS) \
	$(YAML_CFLAGS) $(LIBBPF_CFLAGS)
fuzz_fuzz_config_LDADD = lib/libdc.la $(LIBELF_LIBS) $(JANSSON_LIBS) \
	$(YAML_LIBS) $(LIBBPF_LIBS)

fuzz_fuzz_elf_SOURCES = fuzz/fuzz-elf.c $(FUZZ_COMMON)
fuzz_fuzz_elf_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
fuzz_fuzz_elf_LDADD = lib/libdc.la $(LIBELF_LIBS)

EXTRA_DIST += fuzz/README.md fuzz/run

FUZZ_SECONDS = 60
fuzz: all $(check_PROGRAMS)
	DC_SRC_DIR=$(abs_top_srcdir) DC_BUILD_DIR=$(abs_top_builddir) \
	FUZZ_SECONDS=$(FUZZ_SECONDS) $(abs_top_srcdir)/fuzz/run $(FUZZ_TARGETS)
.PHONY: fuzz

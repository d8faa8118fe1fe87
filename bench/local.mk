# bench/local.mk
EXTRA_DIST += bench/run bench/RESULTS.md
EXTRA_DIST += bench/report-bench.sh
EXTRA_DIST += bench/write-bench.sh bench/kernel-bench.sh bench/kernel-ab.sh bench/syscall-ab.sh bench/kernel-common.sh bench/floor.bpf.c \
	bench/kfunc-vm.sh

# dc-floor: empty programs on the tracepoints a benchmark uses, the floor
# its costs are compared with.  Built, never installed.
noinst_PROGRAMS += bench/dc-floor
bench_dc_floor_SOURCES = bench/floor.c
nodist_bench_dc_floor_SOURCES = bench/floor.skel.h
bench_dc_floor_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_builddir)/bench \
	$(LIBBPF_CFLAGS)
bench_dc_floor_LDADD = lib/libdc.la $(LIBBPF_LIBS) $(LIBELF_LIBS) $(ZLIB_LIBS)
BUILT_SOURCES += bench/floor.skel.h
CLEANFILES += bench/floor.skel.h bench/floor.bpf.o

bench/floor.bpf.o: $(srcdir)/bench/floor.bpf.c dc-collect/vmlinux.h
	@$(MKDIR_P) bench
	$(AM_V_GEN)$(CLANG) $(BPF_CFLAGS) -c $(srcdir)/bench/floor.bpf.c -o $@

bench/floor.skel.h: bench/floor.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name floor_bpf > $@.tmp && mv $@.tmp $@
EXTRA_DIST += bench/fastpath-bench.sh bench/preload-floor.c bench/iowork.c bench/kwork.c
EXTRA_DIST += bench/collector-bench.sh
EXTRA_DIST += bench/aggregate-bench.sh

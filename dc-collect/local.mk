# dc-collect/: the collector.  collect.bpf.c is compiled CO-RE against a
# vmlinux.h dumped from the build host's BTF and embedded in the binary
# through a bpftool skeleton, so nothing is compiled at run time.
sbin_PROGRAMS += dc-collect/dc-collect
dc_collect_dc_collect_SOURCES = \
	dc-collect/collect.c dc-collect/collect.h dc-collect/collector.h \
	dc-collect/options.c dc-collect/load.c dc-collect/attach.c \
	dc-collect/output.c \
	dc-collect/kfeatures.c dc-collect/kfeatures.h \
	dc-collect/kfunc.c dc-collect/kfuncs.h dc-collect/kfunc.h \
	lib/kbtf.c lib/kbtf.h \
	dc-collect/fastpath.c dc-collect/fastpath.h \
	dc-collect/merge.c dc-collect/merge.h \
	dc-collect/klayers.c dc-collect/klayers.h \
	dc-collect/proc.c dc-collect/proc.h \
	dc-collect/profile.c dc-collect/profile.h \
	dc-collect/umulti.c dc-collect/umulti.h \
	dc-collect/pidprobe.c dc-collect/pidprobe.h \
	dc-collect/statepool.c dc-collect/statepool.h \
	dc-collect/fallback.c dc-collect/fallback.h \
	dc-collect/nest.c dc-collect/nest.h
nodist_dc_collect_dc_collect_SOURCES = dc-collect/collect.skel.h
dc_collect_dc_collect_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_builddir)/dc-collect \
	-I$(top_srcdir)/dc-collect $(LIBBPF_CFLAGS) $(JANSSON_CFLAGS)
dc_collect_dc_collect_LDADD = lib/libdc.la $(LIBBPF_LIBS) $(LIBELF_LIBS) \
	$(ZLIB_LIBS) $(JANSSON_LIBS) $(LIBCRYPTO_LIBS)
BUILT_SOURCES += dc-collect/collect.skel.h

# The merge and the nesting of client records, fed by hand (t/3230).
check_PROGRAMS += t/helpers/nest-test
t_helpers_nest_test_SOURCES = t/helpers/nest-test.c t/helpers/tap.h \
	dc-collect/merge.c dc-collect/nest.c
t_helpers_nest_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/dc-collect
t_helpers_nest_test_LDADD = lib/libdc.la
CLEANFILES += dc-collect/collect.skel.h dc-collect/collect.bpf.o \
	dc-collect/vmlinux.h
# collect.bpf.c and its parts, one object (see its opening comment).
EXTRA_DIST += dc-collect/collect.bpf.c dc-collect/common.bpf.h \
	dc-collect/derive.bpf.h dc-collect/stack.bpf.h \
	dc-collect/uprobe.bpf.h dc-collect/fallback.bpf.h \
	dc-collect/tracepoints.bpf.h dc-collect/block.bpf.h \
	dc-collect/syscall.bpf.h dc-collect/kfunc.bpf.h dc-collect/README.md

BPF_CFLAGS = -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
	-I$(top_builddir)/dc-collect -I$(top_srcdir)/dc-collect \
	-I$(top_srcdir)/lib $(LIBBPF_CFLAGS) -Wall -Wno-unused-function

dc-collect/vmlinux.h:
	@$(MKDIR_P) dc-collect
	$(AM_V_GEN)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

dc-collect/collect.bpf.o: $(srcdir)/dc-collect/collect.bpf.c \
		$(srcdir)/dc-collect/collect.h $(srcdir)/lib/event.h \
		$(srcdir)/dc-collect/common.bpf.h $(srcdir)/dc-collect/derive.bpf.h \
		$(srcdir)/dc-collect/stack.bpf.h $(srcdir)/dc-collect/uprobe.bpf.h \
		$(srcdir)/dc-collect/fallback.bpf.h \
		$(srcdir)/dc-collect/tracepoints.bpf.h \
		$(srcdir)/dc-collect/block.bpf.h \
		$(srcdir)/dc-collect/syscall.bpf.h \
		$(srcdir)/lib/mpiabi.h $(srcdir)/lib/bytes.h \
		$(srcdir)/lib/aioabi.h \
		$(srcdir)/dc-collect/kfunc.bpf.h $(srcdir)/dc-collect/kfunc.h \
		dc-collect/vmlinux.h
	$(AM_V_GEN)$(CLANG) $(BPF_CFLAGS) -c $(srcdir)/dc-collect/collect.bpf.c -o $@

dc-collect/collect.skel.h: dc-collect/collect.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name collect_bpf > $@.tmp && mv $@.tmp $@

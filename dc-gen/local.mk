# dc-gen/local.mk - dc-gen: turn a YAML site config into a probe spec.
bin_PROGRAMS += dc-gen/dc-gen
dc_gen_dc_gen_SOURCES = \
	dc-gen/dc-gen.c dc-gen/gen.h \
	dc-gen/config.c dc-gen/layers.c \
	lib/kbtf.c lib/kbtf.h
dc_gen_dc_gen_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(JANSSON_CFLAGS) \
	$(YAML_CFLAGS) $(LIBBPF_CFLAGS)
dc_gen_dc_gen_LDADD = lib/libdc.la $(LIBELF_LIBS) $(JANSSON_LIBS) \
	$(YAML_LIBS) $(LIBBPF_LIBS)
EXTRA_DIST += dc-gen/README.md

# The shipped site configs (dc-config(5)).
dist_pkgdata_DATA += configs/default.yaml configs/hpc.yaml configs/kernel.yaml

# t/helpers/usdt-demo: a program with USDT probes for t/1000-explore.t.
check_PROGRAMS += t/helpers/usdt-demo
t_helpers_usdt_demo_SOURCES = t/helpers/usdt-demo.c

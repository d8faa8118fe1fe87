/*
 * kfuncs.h - attaching kernel-function probes (kfunc.c).
 */
#ifndef DC_KFUNCS_H
#define DC_KFUNCS_H

#include <stdbool.h>
#include <stddef.h>

#include "kfeatures.h"
#include "spec.h"

struct collect_bpf;
struct dc_kbtf;

struct bpf_func_info;
struct bpf_link;

/* What a copy of a loaded fentry/fexit program is loaded with besides
 * its instructions: the program's BTF and func_info (kfunc.c). */
struct dc_kfunc_tmpl {
	bool ready;
	int btf_fd;                   /* -1: none */
	struct bpf_func_info *fi;
	unsigned nfi;
};

struct dc_kfuncs {
	enum dc_kfunc_method method;  /* from dc_features_kfunc_method() */
	char first[128];              /* the function the skeleton's fentry
	                                 programs load for */
	struct dc_kbtf *btf;
	bool kprobes;                 /* kprobes with cookies work too: a
	                                 function fentry refuses falls back */
	struct dc_kfunc_tmpl entry_tmpl, exit_tmpl;
	struct bpf_link **links;      /* libbpf's links (kprobes, the first
	                                 function's fentry) */
	size_t nlinks, links_cap;
	int *fds;                     /* link fds of the fentry copies */
	size_t nfds, fds_cap;
	char why[200];                /* why the last fentry load failed */
};

/* Before the skeleton loads: switch off the programs the method does not
 * use and aim the fentry programs at the first kernel function. */
void dc_kfuncs_prepare(struct dc_kfuncs *k, struct collect_bpf *skel,
		       const struct dc_spec *spec, const bool *skip);
/* The same for one function (NULL: none), as --check-kernel loads. */
void dc_kfuncs_aim(struct dc_kfuncs *k, struct collect_bpf *skel,
		   const char *first);
/* After it loads: attach probe i (a kernel function); 0 or -errno. */
int dc_kfuncs_attach(struct dc_kfuncs *k, struct collect_bpf *skel, size_t i,
		     const struct dc_probe *p);
/* Detach every kernel-function probe and free what dc_kfuncs holds. */
void dc_kfuncs_free(struct dc_kfuncs *k);

#endif /* DC_KFUNCS_H */

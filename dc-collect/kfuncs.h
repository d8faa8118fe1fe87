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

struct dc_kfuncs {
	enum dc_kfunc_method method;  /* from dc_features_kfunc_method() */
	char first[128];              /* the function the skeleton's fentry
	                                 programs load for */
	struct dc_kbtf *btf;
	bool kprobes;                 /* kprobes with cookies work too: a
	                                 function fentry refuses falls back */
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
void dc_kfuncs_free(struct dc_kfuncs *k);

#endif /* DC_KFUNCS_H */

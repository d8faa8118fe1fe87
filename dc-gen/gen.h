/*
 * gen.h - dc-gen's pieces: the site config (config.c, read from YAML),
 * the built-in layers (layers.c) and the generator (dc-gen.c).
 */
#ifndef DC_GEN_H
#define DC_GEN_H

#include <limits.h>
#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "spec.h"

/* An argument plan: how to record a function's arguments and result. */
struct plan {
	char *func;          /* function name, or "*" for every function */
	int nargs;
	uint8_t kinds[DC_MAX_ARGS];
	int ret;
};

struct builtin_func {
	const char *name;
	const char *args;    /* "fd,ptr,size" */
	const char *ret;     /* "size" */
	int quiet;           /* absent on many systems: no warning */
	const char *elsewhere; /* where the layer's library has none, the
	                          library that has it on older systems
	                          (glibc's librt for POSIX AIO), or NULL */
};

struct builtin_layer {
	const char *name;    /* as written in a config: "posix" */
	const char *cat;     /* the layer name in the spec: "POSIX" */
	int kind;            /* enum dc_probe_kind */
	const char *const *targets; /* libraries to try, in order */
	int optional;        /* missing library is a warning */
	const struct builtin_func *funcs;
	const char *const *group;   /* a group of other layers ("kernel") */
	const char *description;
};

extern const struct builtin_layer dc_builtin_layers[];
const struct builtin_layer *dc_builtin_find(const char *name);
/* Parse "fd,ptr,size" and "size" into a plan; -1 on an unknown kind. */
int dc_plan_parse(const char *args, const char *ret, struct plan *out);

struct layer_cfg {
	char *name;          /* becomes "layer" (the trace's "cat") */
	int kind;
	char **targets;
	size_t ntargets;
	regex_t *include;
	size_t ninclude;
	regex_t *exclude;
	size_t nexclude;
	char **functions;
	size_t nfunctions;
	int optional;
	struct plan *plans;
	size_t nplans;
	const struct builtin_layer *builtin;
	int line, col;       /* where the layer is in the config, 0 if none */
};

struct config {
	const char *file;    /* for messages */
	int mode;            /* enum dc_mode */
	unsigned interval_ms;
	size_t max_probes;
	int max_line, max_col;
	struct layer_cfg *layers;
	size_t nlayers;
};

/* Read a YAML config: 0, or an exit status with a one-line message in
 * err and nothing left in cfg: 4 (DC_EXIT_BADINPUT) for a bad config,
 * "FILE:LINE:COL: message", 1 (DC_EXIT_FAILURE) when it cannot be read. */
int config_load(struct config *cfg, const char *path, char *err,
		size_t errlen);
/* Room for a config's one-line message: its file name and the rest. */
#define DC_CONFIG_ERR_MAX (PATH_MAX + 1024)
/* A config made of built-in layers, from "posix,syscalls". */
void config_from_layers(struct config *cfg, const char *list);
void config_free(struct config *cfg);

/* Report an error in the config at line:col (0: no position), exit 4. */
void config_die(const struct config *cfg, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));
void config_warn(const struct config *cfg, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define DC_DEFAULT_MAX_PROBES 10000

#endif /* DC_GEN_H */

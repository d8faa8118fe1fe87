/*
 * spec.h - the probe spec: what dc-gen writes, dc-sign signs and
 * dc-collect attaches.  dc-probes(5) documents the JSON form:
 *
 *   { "datacrumbs_probes": 1, "mode": "trace", "interval_ms": 1000,
 *     "probes": [ { "layer": "POSIX", "kind": "uprobe",
 *                   "target": "/usr/lib/x86_64-linux-gnu/libc.so.6",
 *                   "function": "write", "offset": 1093952,
 *                   "args": ["fd", "ptr", "size"], "ret": "size" },
 *                 { "layer": "sys", "kind": "syscall", "function": "write",
 *                   "nr": 1, "args": ["fd", "ptr", "size"],
 *                   "ret": "size" } ] }
 *
 * A probe's id is its index in "probes".  A uprobe may record its calls
 * under another name than its function's, its argument slots read from
 * other registers than the first ones ("as" and "regs": a checking
 * version of a function, lib/checking.h).
 */
#ifndef DC_SPEC_H
#define DC_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <linux/types.h>

#include "event.h"
#include "stream.h"

#define DC_SPEC_VERSION 1
#define DC_SPEC_MAX_PROBES 65536

enum dc_mode { DC_MODE_TRACE = 0, DC_MODE_PROFILE = 1 };

struct dc_probe {
	char *layer;            /* becomes "cat" in the trace */
	enum dc_probe_kind kind;
	char *target;           /* library/executable path, tracepoint
	                           category, or NULL */
	char *function;         /* function, syscall or tracepoint name */
	char *as;               /* uprobe: the name its calls are recorded
	                           under, NULL: function (dc_probe_name) */
	uint64_t offset;        /* uprobe file offset (0: resolve by name) */
	uint64_t semaphore;     /* USDT semaphore file offset, 0 if none */
	int64_t nr;             /* syscall number, -1 if not a syscall */
	int nargs;
	uint8_t arg_kinds[DC_MAX_ARGS]; /* enum dc_arg_kind */
	uint8_t regs[DC_MAX_ARGS]; /* uprobe: the argument register each
	                           slot is read from (0: the first); in
	                           order unless "regs" says otherwise */
	uint8_t ret_kind;       /* enum dc_ret_kind */
	int optional;           /* a failure to attach is a warning */
};

struct dc_spec {
	enum dc_mode mode;
	unsigned interval_ms;
	size_t nprobes;
	struct dc_probe *probes;
};

/* Names of kinds as they appear in JSON ("fd", "size", ...). */
const char *dc_arg_kind_name(int kind);
int dc_arg_kind_parse(const char *name);   /* -1 if unknown */
const char *dc_ret_kind_name(int kind);
int dc_ret_kind_parse(const char *name);   /* -1 if unknown */
const char *dc_probe_kind_name(int kind);
int dc_probe_kind_parse(const char *name); /* -1 if unknown */

/* The name a probe's calls are recorded under: its "as", else its
 * function. */
const char *dc_probe_name(const struct dc_probe *p);
/* Whether probe p reads its argument slots from other registers than
 * the first ones, in order. */
int dc_probe_remaps(const struct dc_probe *p);

/* A checking version of a function (lib/checking.h): its name, the
 * function's, and the register each of the function's arguments is in. */
struct dc_checking {
	const char *name;
	const char *as;
	int nregs;
	uint8_t regs[DC_MAX_ARGS];
};
/* Those of lib/checking.h, ending with a NULL name. */
extern const struct dc_checking dc_checking_funcs[];
/* The one named name, or NULL. */
const struct dc_checking *dc_checking_find(const char *name);

/* Build a spec from its JSON form.  On error returns NULL and writes one
 * line into err. */
struct dc_spec *dc_spec_from_json(json_t *root, char *err, size_t errlen);

/* The first top-level key of a spec document that dc-probes(5) does not
 * define, or NULL: a signer refuses a spec that would carry unknown data
 * under its signature. */
const char *dc_spec_unknown_key(json_t *root);
/* The JSON form (new reference). */
json_t *dc_spec_to_json(const struct dc_spec *spec);
void dc_spec_free(struct dc_spec *spec);

#endif /* DC_SPEC_H */

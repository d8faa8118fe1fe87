/*
 * spec.c - the probe spec model and its JSON form (dc-probes(5)).
 */
#include "messages.h"
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "checking.h"

static const char *const arg_names[DC_ARG_KIND_MAX] = {
	[DC_ARG_NONE] = "none",   [DC_ARG_FD] = "fd",
	[DC_ARG_SIZE] = "size",   [DC_ARG_OFFSET] = "offset",
	[DC_ARG_FLAGS] = "flags", [DC_ARG_MODE] = "mode",
	[DC_ARG_PATH] = "path",   [DC_ARG_HANDLE] = "handle",
	[DC_ARG_WHENCE] = "whence", [DC_ARG_INT] = "int",
	[DC_ARG_PTR] = "ptr",     [DC_ARG_STR] = "str",
	[DC_ARG_DEV] = "dev",     [DC_ARG_SECTOR] = "sector",
	[DC_ARG_INODE] = "inode", [DC_ARG_INDEX] = "index",
	[DC_ARG_PAGES] = "pages", [DC_ARG_OP] = "op",
	[DC_ARG_FAMILY] = "family", [DC_ARG_PROTOCOL] = "protocol",
	[DC_ARG_OLDSTATE] = "oldstate", [DC_ARG_NEWSTATE] = "newstate",
	[DC_ARG_SPORT] = "sport", [DC_ARG_DPORT] = "dport",
	[DC_ARG_OPCODE] = "opcode", [DC_ARG_REASON] = "reason",
	[DC_ARG_ISIZE] = "isize", [DC_ARG_COUNT] = "count",
	[DC_ARG_IOV] = "iov",     [DC_ARG_STRLEN] = "strlen",
	[DC_ARG_STROUT] = "strout", [DC_ARG_DATATYPE] = "datatype",
	[DC_ARG_MPISTATUS] = "mpistatus", [DC_ARG_HANDLE_OUT] = "handleout",
	[DC_ARG_HANDLE_IN] = "handlein", [DC_ARG_FILE] = "file",
	[DC_ARG_CHAR] = "char",   [DC_ARG_CMD] = "cmd",
	[DC_ARG_FDPAIR] = "fdpair", [DC_ARG_AIOCB] = "aiocb",
	[DC_ARG_STDOUT] = "stdout", [DC_ARG_STDIN] = "stdin",
};

static const char *const ret_names[DC_RET_KIND_MAX] = {
	[DC_RET_NONE] = "none",     [DC_RET_STATUS] = "status",
	[DC_RET_SIZE] = "size",     [DC_RET_FD] = "fd",
	[DC_RET_HANDLE] = "handle", [DC_RET_OFFSET] = "offset",
	[DC_RET_INT] = "int",       [DC_RET_ITEMS] = "items",
	[DC_RET_ALL] = "all",       [DC_RET_CODE] = "code",
	[DC_RET_CHAR] = "char",
};

static const char *const probe_kind_names[] = {
	[DC_PROBE_UPROBE] = "uprobe",         [DC_PROBE_USDT] = "usdt",
	[DC_PROBE_SYSCALL] = "syscall",       [DC_PROBE_TRACEPOINT] = "tracepoint",
	[DC_PROBE_KFUNC] = "kfunc",           [DC_PROBE_INTERNAL] = "internal",
};
#define NPROBE_KINDS (sizeof(probe_kind_names) / sizeof(probe_kind_names[0]))

static int lookup(const char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] != NULL && strcmp(names[i], name) == 0)
			return i;
	return -1;
}

const char *dc_arg_kind_name(int kind)
{
	return kind >= 0 && kind < DC_ARG_KIND_MAX ? arg_names[kind] : "unknown";
}

int dc_arg_kind_parse(const char *name)
{
	return lookup(arg_names, DC_ARG_KIND_MAX, name);
}

const char *dc_ret_kind_name(int kind)
{
	return kind >= 0 && kind < DC_RET_KIND_MAX ? ret_names[kind] : "unknown";
}

int dc_ret_kind_parse(const char *name)
{
	return lookup(ret_names, DC_RET_KIND_MAX, name);
}

const char *dc_probe_kind_name(int kind)
{
	if (kind > 0 && (size_t)kind < NPROBE_KINDS && probe_kind_names[kind])
		return probe_kind_names[kind];
	return "unknown";
}

int dc_probe_kind_parse(const char *name)
{
	return lookup(probe_kind_names, (int)NPROBE_KINDS, name);
}


const char *dc_probe_name(const struct dc_probe *p)
{
	return p->as != NULL ? p->as : p->function;
}

int dc_probe_remaps(const struct dc_probe *p)
{
	int a;

	for (a = 0; a < p->nargs && a < DC_MAX_ARGS; a++)
		if (p->regs[a] != a)
			return 1;
	return 0;
}

#define CHECKING_ENTRY(name, as, regs)                                      \
	{ #name, #as, sizeof((uint8_t[]){ DC_STRIP regs }),                 \
	  { DC_STRIP regs } },
#define DC_STRIP(...) __VA_ARGS__
const struct dc_checking dc_checking_funcs[] = {
	DC_CHECKING_FUNCS(CHECKING_ENTRY)
	{ NULL, NULL, 0, { 0 } }
};
#undef DC_STRIP
#undef CHECKING_ENTRY

const struct dc_checking *dc_checking_find(const char *name)
{
	const struct dc_checking *c;

	for (c = dc_checking_funcs; c->name != NULL; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

void dc_spec_free(struct dc_spec *spec)
{
	size_t i;

	if (spec == NULL)
		return;
	for (i = 0; i < spec->nprobes; i++) {
		free(spec->probes[i].layer);
		free(spec->probes[i].target);
		free(spec->probes[i].function);
		free(spec->probes[i].as);
	}
	free(spec->probes);
	free(spec);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The optional non-negative integer key of probe p into *out; -1 with a
 * message when it is there but not one. */
static int probe_number(json_t *p, const char *key, size_t idx,
			const char *function, int64_t *out, char *err,
			size_t errlen)
{
	json_t *v = json_object_get(p, key);

	if (v == NULL)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		dc_format_error(err, errlen, "probe %zu (%s): bad \"%s\"", idx,
				function, key);
		return -1;
	}
	*out = json_integer_value(v);
	return 0;
}

/* The argument plan: at most DC_MAX_ARGS known kinds, one fewer with a
 * FILE * (its descriptor travels in the last slot). */
static int probe_args(json_t *args, size_t idx, const char *function,
		      struct dc_probe *out, char *err, size_t errlen)
{
	json_t *v;
	size_t i;

	if (!json_is_array(args) || json_array_size(args) > DC_MAX_ARGS) {
		dc_format_error(err, errlen,
		       "probe %zu (%s): \"args\" must be an array of at most %d names",
		       idx, function, DC_MAX_ARGS);
		return -1;
	}
	json_array_foreach(args, i, v) {
		const char *a = json_string_value(v);
		int ak = a ? dc_arg_kind_parse(a) : -1;

		if (ak < 0) {
			dc_format_error(err, errlen,
			       "probe %zu (%s): unknown argument kind \"%s\"",
			       idx, function, a ? a : "(not a string)");
			return -1;
		}
		out->arg_kinds[i] = (uint8_t)ak;
	}
	out->nargs = (int)json_array_size(args);
	for (i = 0; out->nargs == DC_MAX_ARGS && i < DC_MAX_ARGS; i++)
		if (dc_arg_is_stream(out->arg_kinds[i])) {
			dc_format_error(err, errlen,
			       "probe %zu (%s): a plan with a \"%s\" argument has at most %d arguments",
			       idx, function, arg_names[out->arg_kinds[i]],
			       DC_MAX_ARGS - 1);
			return -1;
		}
	return 0;
}

/* A uprobe's "as" (the name its calls are recorded under) and "regs"
 * (the argument register of each slot of its plan, in range, one per
 * slot); other kinds have neither. */
static int probe_remap(json_t *p, size_t idx, const char *function,
		       struct dc_probe *out, char *err, size_t errlen)
{
	json_t *as = json_object_get(p, "as"), *regs = json_object_get(p, "regs"), *v;
	size_t i;

	for (i = 0; i < DC_MAX_ARGS; i++)
		out->regs[i] = (uint8_t)i;
	if ((as != NULL || regs != NULL) && out->kind != DC_PROBE_UPROBE) {
		dc_format_error(err, errlen, "probe %zu (%s): \"%s\" is for uprobes only",
				idx, function, as != NULL ? "as" : "regs");
		return -1;
	}
	if (as != NULL && (!json_is_string(as) || json_string_length(as) == 0)) {
		dc_format_error(err, errlen, "probe %zu (%s): \"as\" must be a name",
				idx, function);
		return -1;
	}
	if (regs == NULL)
		return 0;
	if (!json_is_array(regs) || json_array_size(regs) != (size_t)out->nargs) {
		dc_format_error(err, errlen,
		       "probe %zu (%s): \"regs\" must be an array of one register per argument (%d)",
		       idx, function, out->nargs);
		return -1;
	}
	json_array_foreach(regs, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) >= DC_MAX_ARGS) {
			dc_format_error(err, errlen,
			       "probe %zu (%s): \"regs\" names registers 0 to %d",
			       idx, function, DC_MAX_ARGS - 1);
			return -1;
		}
		out->regs[i] = (uint8_t)json_integer_value(v);
	}
	return 0;
}

/* stdout and stdin are read through the address of libc's variable,
 * known from a uprobe's: no other kind of probe has them. */
static int implied_streams(const struct dc_probe *out, size_t idx,
			   const char *function, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < out->nargs && out->kind != DC_PROBE_UPROBE; i++)
		if (dc_arg_is_std_stream(out->arg_kinds[i])) {
			dc_format_error(err, errlen,
			       "probe %zu (%s): a \"%s\" argument is for uprobes only",
			       idx, function, arg_names[out->arg_kinds[i]]);
			return -1;
		}
	return 0;
}

static int probe_from_json(json_t *p, size_t idx, struct dc_probe *out,
			   char *err, size_t errlen)
{
	const char *layer, *kind, *function, *target, *ret;
	int64_t nr = -1, offset = 0, semaphore = 0;
	json_t *args;
	int k;

	if (!json_is_object(p)) {
		dc_format_error(err, errlen, "probe %zu: not an object", idx);
		return -1;
	}
	layer = json_string_value(json_object_get(p, "layer"));
	kind = json_string_value(json_object_get(p, "kind"));
	function = json_string_value(json_object_get(p, "function"));
	target = json_string_value(json_object_get(p, "target"));
	if (layer == NULL || kind == NULL || function == NULL) {
		dc_format_error(err, errlen,
		       "probe %zu: needs string \"layer\", \"kind\" and \"function\"",
		       idx);
		return -1;
	}
	k = dc_probe_kind_parse(kind);
	if (k <= 0) {
		dc_format_error(err, errlen, "probe %zu (%s): unknown kind \"%s\"", idx,
		       function, kind);
		return -1;
	}
	out->kind = (enum dc_probe_kind)k;
	if (probe_number(p, "nr", idx, function, &nr, err, errlen) != 0 ||
	    probe_number(p, "offset", idx, function, &offset, err, errlen) != 0 ||
	    probe_number(p, "semaphore", idx, function, &semaphore, err,
			 errlen) != 0)
		return -1;
	out->nr = nr;
	out->offset = (uint64_t)offset;
	out->semaphore = (uint64_t)semaphore;
	if (out->kind == DC_PROBE_SYSCALL && out->nr < 0) {
		dc_format_error(err, errlen, "probe %zu (%s): syscall without \"nr\"", idx,
		       function);
		return -1;
	}
	if ((out->kind == DC_PROBE_UPROBE || out->kind == DC_PROBE_USDT) &&
	    target == NULL) {
		dc_format_error(err, errlen, "probe %zu (%s): %s without \"target\"", idx,
		       function, kind);
		return -1;
	}
	args = json_object_get(p, "args");
	if (args != NULL && probe_args(args, idx, function, out, err, errlen) != 0)
		return -1;
	if (probe_remap(p, idx, function, out, err, errlen) != 0)
		return -1;
	if (implied_streams(out, idx, function, err, errlen) != 0)
		return -1;
	ret = json_string_value(json_object_get(p, "ret"));
	if (ret != NULL) {
		k = dc_ret_kind_parse(ret);
		if (k < 0) {
			dc_format_error(err, errlen, "probe %zu (%s): unknown return kind \"%s\"",
			       idx, function, ret);
			return -1;
		}
		out->ret_kind = (uint8_t)k;
	}
	out->optional = json_is_true(json_object_get(p, "optional"));
	out->layer = strdup(layer);
	out->function = strdup(function);
	out->as = dup_or_null(json_string_value(json_object_get(p, "as")));
	out->target = dup_or_null(target);
	return 0;
}

struct dc_spec *dc_spec_from_json(json_t *root, char *err, size_t errlen)
{
	struct dc_spec *spec;
	json_t *probes, *v;
	const char *mode;
	size_t i;

	if (!json_is_object(root)) {
		dc_format_error(err, errlen, "probe spec is not a JSON object");
		return NULL;
	}
	v = json_object_get(root, "datacrumbs_probes");
	if (!json_is_integer(v)) {
		dc_format_error(err, errlen, "not a probe spec (no \"datacrumbs_probes\")");
		return NULL;
	}
	if (json_integer_value(v) != DC_SPEC_VERSION) {
		dc_format_error(err, errlen, "unsupported probe spec version %lld",
		       (long long)json_integer_value(v));
		return NULL;
	}
	probes = json_object_get(root, "probes");
	if (!json_is_array(probes)) {
		dc_format_error(err, errlen, "probe spec has no \"probes\" array");
		return NULL;
	}
	if (json_array_size(probes) > DC_SPEC_MAX_PROBES) {
		dc_format_error(err, errlen, "probe spec has %zu probes, more than %d",
		       json_array_size(probes), DC_SPEC_MAX_PROBES);
		return NULL;
	}
	spec = calloc(1, sizeof(*spec));
	if (spec == NULL) {
		dc_format_error(err, errlen, "out of memory");
		return NULL;
	}
	spec->interval_ms = 1000;
	mode = json_string_value(json_object_get(root, "mode"));
	if (mode == NULL || strcmp(mode, "trace") == 0)
		spec->mode = DC_MODE_TRACE;
	else if (strcmp(mode, "profile") == 0)
		spec->mode = DC_MODE_PROFILE;
	else {
		dc_format_error(err, errlen, "unknown mode \"%s\"", mode);
		free(spec);
		return NULL;
	}
	v = json_object_get(root, "interval_ms");
	if (v != NULL) {
		if (!json_is_integer(v) || json_integer_value(v) <= 0) {
			dc_format_error(err, errlen, "\"interval_ms\" must be a positive integer");
			free(spec);
			return NULL;
		}
		spec->interval_ms = (unsigned)json_integer_value(v);
	}
	spec->probes = calloc(json_array_size(probes) + 1, sizeof(*spec->probes));
	if (spec->probes == NULL) {
		dc_format_error(err, errlen, "out of memory");
		free(spec);
		return NULL;
	}
	json_array_foreach(probes, i, v) {
		if (probe_from_json(v, i, &spec->probes[i], err, errlen) != 0) {
			dc_spec_free(spec);
			return NULL;
		}
		spec->nprobes = i + 1;
	}
	return spec;
}

json_t *dc_spec_to_json(const struct dc_spec *spec)
{
	json_t *root = json_object(), *probes = json_array();
	size_t i;
	int a;

	json_object_set_new(root, "datacrumbs_probes", json_integer(DC_SPEC_VERSION));
	json_object_set_new(root, "mode", json_string(spec->mode == DC_MODE_PROFILE
							   ? "profile" : "trace"));
	json_object_set_new(root, "interval_ms", json_integer(spec->interval_ms));
	for (i = 0; i < spec->nprobes; i++) {
		const struct dc_probe *p = &spec->probes[i];
		json_t *o = json_object(), *args = json_array();

		json_object_set_new(o, "layer", json_string(p->layer));
		json_object_set_new(o, "kind", json_string(dc_probe_kind_name(p->kind)));
		if (p->target)
			json_object_set_new(o, "target", json_string(p->target));
		json_object_set_new(o, "function", json_string(p->function));
		if (p->as)
			json_object_set_new(o, "as", json_string(p->as));
		if (p->kind == DC_PROBE_UPROBE || p->offset != 0)
			json_object_set_new(o, "offset", json_integer((json_int_t)p->offset));
		if (p->nr >= 0)
			json_object_set_new(o, "nr", json_integer(p->nr));
		if (p->semaphore != 0)
			json_object_set_new(o, "semaphore",
					    json_integer((json_int_t)p->semaphore));
		for (a = 0; a < p->nargs; a++)
			json_array_append_new(args, json_string(dc_arg_kind_name(p->arg_kinds[a])));
		json_object_set_new(o, "args", args);
		if (dc_probe_remaps(p)) {
			json_t *regs = json_array();

			for (a = 0; a < p->nargs; a++)
				json_array_append_new(regs, json_integer(p->regs[a]));
			json_object_set_new(o, "regs", regs);
		}
		json_object_set_new(o, "ret", json_string(dc_ret_kind_name(p->ret_kind)));
		if (p->optional)
			json_object_set_new(o, "optional", json_true());
		json_array_append_new(probes, o);
	}
	json_object_set_new(root, "probes", probes);
	return root;
}

const char *dc_spec_unknown_key(json_t *root)
{
	static const char *const known[] = {
		"datacrumbs_probes", "mode", "interval_ms", "probes",
	};
	const char *key;
	json_t *v;

	json_object_foreach(root, key, v) {
		size_t i;

		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (strcmp(key, known[i]) == 0)
				break;
		if (i == sizeof(known) / sizeof(known[0]))
			return key;
	}
	return NULL;
}

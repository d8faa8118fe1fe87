/*
 * config.c - read a dc-gen site config (dc-config(5)) with libyaml's
 * document API.  Every node keeps its line and column, so each error
 * names the place: "site.yaml:7:5: unknown key "inlcude" in a layer".
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "gen.h"
#include "messages.h"
#include "stream.h"

/* "FILE:LINE:COL: " (at line 0, "FILE: "), then kind ("" or
 * "warning: ") and the message, into buf. */
static void vformat_at(char *buf, size_t len, const struct config *cfg,
		       int line, int col, const char *kind, const char *fmt,
		       va_list ap) __attribute__((format(printf, 7, 0)));
static void vformat_at(char *buf, size_t len, const struct config *cfg,
		       int line, int col, const char *kind, const char *fmt,
		       va_list ap)
{
	int n;

	if (line > 0)
		n = snprintf(buf, len, "%s:%d:%d: %s", cfg->file, line, col, kind);
	else
		n = snprintf(buf, len, "%s: %s", cfg->file, kind);
	if (n >= 0 && (size_t)n < len)
		vsnprintf(buf + n, len - (size_t)n, fmt, ap);
}

void config_die(const struct config *cfg, int line, int col, const char *fmt, ...)
{
	char msg[DC_CONFIG_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vformat_at(msg, sizeof(msg), cfg, line, col, "", fmt, ap);
	va_end(ap);
	die_status(DC_EXIT_BADINPUT, "%s", msg);
}

void config_warn(const struct config *cfg, int line, int col, const char *fmt, ...)
{
	char msg[DC_CONFIG_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vformat_at(msg, sizeof(msg), cfg, line, col, "warning: ", fmt, ap);
	va_end(ap);
	warn("%s", msg);
}

/* The YAML being read, for node lookups and positions, and the first
 * problem found in it. */
struct reader {
	struct config *cfg;
	yaml_document_t doc;
	char *err;
	size_t errlen;
};

#define LINE(n) ((int)(n)->start_mark.line + 1)
#define COL(n) ((int)(n)->start_mark.column + 1)

/* A problem at line:col (0: none) of the config: its message into
 * r->err; returns -1, for the reader to return. */
static int bad_at(struct reader *r, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad_at(struct reader *r, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat_at(r->err, r->errlen, r->cfg, line, col, "", fmt, ap);
	va_end(ap);
	return -1;
}

#define bad(r, n, ...) bad_at(r, LINE(n), COL(n), __VA_ARGS__)

static yaml_node_t *node(struct reader *r, int id)
{
	return yaml_document_get_node(&r->doc, id);
}

static const char *type_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

static int scalar(struct reader *r, yaml_node_t *n, const char *what,
		  const char **out)
{
	if (n->type != YAML_SCALAR_NODE)
		return bad(r, n, "%s must be a string, not %s", what,
			   type_name(n));
	*out = (const char *)n->data.scalar.value;
	return 0;
}

static int integer(struct reader *r, yaml_node_t *n, const char *what,
		   unsigned long long max, unsigned long long *out)
{
	const char *s;
	char *end;

	if (scalar(r, n, what, &s) != 0)
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 ||
	    *out == 0 || *out > max)
		return bad(r, n, "%s must be an integer from 1 to %llu, not \"%s\"",
			   what, max, s);
	return 0;
}

static int boolean(struct reader *r, yaml_node_t *n, const char *what,
		   int *out)
{
	const char *s;

	if (scalar(r, n, what, &s) != 0)
		return -1;
	if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on"))
		*out = 1;
	else if (!strcasecmp(s, "false") || !strcasecmp(s, "no") ||
		 !strcasecmp(s, "off"))
		*out = 0;
	else
		return bad(r, n, "%s must be true or false, not \"%s\"", what, s);
	return 0;
}

static void free_strings(char **v, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(v[i]);
	free(v);
}

/* A list of strings; a single string counts as a list of one.  Each
 * item's node goes to (*items)[i] if items is not NULL. */
static int strings(struct reader *r, yaml_node_t *n, const char *what,
		   char ***out, size_t *count, yaml_node_t ***items)
{
	yaml_node_t **nodes;
	const char *s;
	char **v;
	size_t i, len;

	if (n->type == YAML_SCALAR_NODE) {
		len = 1;
		nodes = xcalloc(len + 1, sizeof(*nodes));
		nodes[0] = n;
	} else if (n->type == YAML_SEQUENCE_NODE) {
		len = (size_t)(n->data.sequence.items.top -
			       n->data.sequence.items.start);
		nodes = xcalloc(len + 1, sizeof(*nodes));
		for (i = 0; i < len; i++)
			nodes[i] = node(r, n->data.sequence.items.start[i]);
	} else {
		return bad(r, n, "%s must be a list of strings, not %s", what,
			   type_name(n));
	}
	v = xcalloc(len + 1, sizeof(*v));
	for (i = 0; i < len; i++) {
		if (scalar(r, nodes[i], what, &s) != 0) {
			free_strings(v, i);
			free(nodes);
			return -1;
		}
		v[i] = xstrdup(s);
	}
	*out = v;
	*count = len;
	if (items != NULL)
		*items = nodes;
	else
		free(nodes);
	return 0;
}

static void free_regexes(regex_t *res, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		regfree(&res[i]);
	free(res);
}

static int regexes(struct reader *r, yaml_node_t *n, const char *what,
		   regex_t **out, size_t *count)
{
	yaml_node_t **items;
	char **pats;
	regex_t *res;
	size_t i, len;
	int rc = 0;

	if (strings(r, n, what, &pats, &len, &items) != 0)
		return -1;
	res = xcalloc(len + 1, sizeof(*res));
	for (i = 0; i < len; i++) {
		rc = regcomp(&res[i], pats[i], REG_EXTENDED | REG_NOSUB);
		if (rc != 0) {
			char buf[256];

			regerror(rc, &res[i], buf, sizeof(buf));
			bad(r, items[i], "bad regex \"%s\" in %s: %s", pats[i],
			    what, buf);
			free_regexes(res, i);
			break;
		}
	}
	free_strings(pats, len);
	free(items);
	if (rc != 0)
		return -1;
	*out = res;
	*count = len;
	return 0;
}

static void layer_free(struct layer_cfg *l)
{
	size_t j;

	free(l->name);
	free_strings(l->targets, l->ntargets);
	free_regexes(l->include, l->ninclude);
	free_regexes(l->exclude, l->nexclude);
	free_strings(l->functions, l->nfunctions);
	for (j = 0; j < l->nplans; j++)
		free(l->plans[j].func);
	free(l->plans);
}

/* args: [fd, ptr, size] of one plan */
static int read_plan_args(struct reader *r, yaml_node_t *n, struct plan *pl)
{
	yaml_node_item_t *it;
	const char *s;

	if (n->type != YAML_SEQUENCE_NODE)
		return bad(r, n, "args of %s must be a list of argument kinds, not %s",
			   pl->func, type_name(n));
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *a = node(r, *it);
		int kind;

		if (scalar(r, a, "an argument kind", &s) != 0)
			return -1;
		kind = dc_arg_kind_parse(s);
		if (kind < 0)
			return bad(r, a, "unknown argument kind \"%s\" (fd size offset flags mode path handle whence int ptr str none)",
				   s);
		if (pl->nargs >= DC_MAX_ARGS)
			return bad(r, a, "more than %d arguments for %s",
				   DC_MAX_ARGS, pl->func);
		pl->kinds[pl->nargs++] = (uint8_t)kind;
	}
	return 0;
}

/* FUNC: { args: [fd, ptr, size], ret: size }, added to l's plans */
static int read_plan(struct reader *r, yaml_node_t *k, yaml_node_t *v,
		     struct layer_cfg *l)
{
	struct plan *pl;
	yaml_node_pair_t *q;
	const char *s;
	int have_args = 0;

	if (scalar(r, k, "a function name under args", &s) != 0)
		return -1;
	l->plans = xrealloc(l->plans, (l->nplans + 1) * sizeof(*l->plans));
	pl = &l->plans[l->nplans++];
	memset(pl, 0, sizeof(*pl));
	pl->func = xstrdup(s);
	if (v->type != YAML_MAPPING_NODE)
		return bad(r, v, "the plan of %s must be a mapping {args: [...], ret: KIND}, not %s",
			   pl->func, type_name(v));
	for (q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
		yaml_node_t *qk = node(r, q->key), *qv = node(r, q->value);
		const char *key;

		if (scalar(r, qk, "a key", &key) != 0)
			return -1;
		if (strcmp(key, "args") == 0) {
			if (read_plan_args(r, qv, pl) != 0)
				return -1;
			have_args = 1;
		} else if (strcmp(key, "ret") == 0) {
			if (scalar(r, qv, "ret", &s) != 0)
				return -1;
			pl->ret = dc_ret_kind_parse(s);
			if (pl->ret < 0)
				return bad(r, qv, "unknown return kind \"%s\" (none status size fd handle offset int)",
					   s);
		} else {
			return bad(r, qk, "unknown key \"%s\" in the plan of %s (args, ret)",
				   key, pl->func);
		}
	}
	if (!have_args)
		return bad(r, v, "the plan of %s has no args list", pl->func);
	return 0;
}

/* args: { FUNC: { args: [fd, ptr, size], ret: size }, "*": {...} } */
static int read_plans(struct reader *r, yaml_node_t *n, struct layer_cfg *l)
{
	yaml_node_pair_t *p;

	if (n->type != YAML_MAPPING_NODE)
		return bad(r, n, "args must be a mapping of function names to plans, not %s",
			   type_name(n));
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
		if (read_plan(r, node(r, p->key), node(r, p->value), l) != 0)
			return -1;
	return 0;
}

static int check_duplicate_key(struct reader *r, yaml_node_t *map,
			       yaml_node_pair_t *upto, yaml_node_t *key)
{
	yaml_node_pair_t *p;

	for (p = map->data.mapping.pairs.start; p < upto; p++) {
		yaml_node_t *k = node(r, p->key);

		if (k->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)k->data.scalar.value,
			   (const char *)key->data.scalar.value) == 0)
			return bad(r, key, "duplicate key \"%s\"",
				   (const char *)key->data.scalar.value);
	}
	return 0;
}

static void add_layer(struct config *cfg, const struct layer_cfg *l)
{
	cfg->layers = xrealloc(cfg->layers, (cfg->nlayers + 1) * sizeof(*cfg->layers));
	cfg->layers[cfg->nlayers++] = *l;
}

/* A built-in layer, or each member of a group, as configured layers. */
static void add_builtin(struct config *cfg, const struct builtin_layer *b,
			const struct layer_cfg *over, int line, int col)
{
	struct layer_cfg l;
	size_t i;

	if (b->group) {
		for (i = 0; b->group[i]; i++)
			add_builtin(cfg, dc_builtin_find(b->group[i]), over, line, col);
		return;
	}
	if (over) {
		l = *over;
		free(l.name);
	} else {
		memset(&l, 0, sizeof(l));
	}
	l.builtin = b;
	l.name = xstrdup(b->cat);
	l.kind = b->kind;
	if (!over || over->ntargets == 0) {
		free(l.targets);    /* an empty list of them */
		l.ntargets = 0;
		l.targets = NULL;
		for (i = 0; b->targets && b->targets[i]; i++) {
			l.targets = xrealloc(l.targets, (i + 1) * sizeof(*l.targets));
			l.targets[i] = xstrdup(b->targets[i]);
			l.ntargets = i + 1;
		}
	}
	if (!over)
		l.optional = b->optional;
	l.line = line;
	l.col = col;
	add_layer(cfg, &l);
}

static int parse_kind(struct reader *r, yaml_node_t *n, int *kind)
{
	const char *s;

	if (scalar(r, n, "kind", &s) != 0)
		return -1;
	*kind = dc_probe_kind_parse(s);
	if (*kind <= 0 || *kind == DC_PROBE_INTERNAL)
		return bad(r, n, "unknown kind \"%s\" (uprobe, usdt, syscall, tracepoint, kfunc)",
			   s);
	return 0;
}

/* A layer mapping's keys into l; name and kind's nodes, NULL if absent. */
static int read_layer_keys(struct reader *r, yaml_node_t *n,
			   struct layer_cfg *l, yaml_node_t **name_node,
			   yaml_node_t **kind_node)
{
	yaml_node_pair_t *p;
	const char *key, *s;
	int rc;

	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(r, p->key), *v = node(r, p->value);

		if (scalar(r, k, "a layer key", &key) != 0 ||
		    check_duplicate_key(r, n, p, k) != 0)
			return -1;
		if (strcmp(key, "name") == 0) {
			rc = scalar(r, v, "name", &s);
			if (rc == 0)
				l->name = xstrdup(s);
			*name_node = v;
		} else if (strcmp(key, "kind") == 0) {
			rc = parse_kind(r, v, &l->kind);
			*kind_node = v;
		} else if (strcmp(key, "target") == 0) {
			rc = strings(r, v, "target", &l->targets, &l->ntargets, NULL);
		} else if (strcmp(key, "include") == 0) {
			rc = regexes(r, v, "include", &l->include, &l->ninclude);
		} else if (strcmp(key, "exclude") == 0) {
			rc = regexes(r, v, "exclude", &l->exclude, &l->nexclude);
		} else if (strcmp(key, "functions") == 0) {
			rc = strings(r, v, "functions", &l->functions,
				     &l->nfunctions, NULL);
		} else if (strcmp(key, "optional") == 0) {
			rc = boolean(r, v, "optional", &l->optional);
		} else if (strcmp(key, "args") == 0) {
			rc = read_plans(r, v, l);
		} else {
			rc = bad(r, k, "unknown key \"%s\" in a layer (name, kind, target, include, functions, exclude, optional, args)",
				 key);
		}
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* A layer mapping: a configured layer, or a built-in one adjusted. */
static int read_layer_map(struct reader *r, yaml_node_t *n,
			  struct layer_cfg *l)
{
	yaml_node_t *name_node = NULL, *kind_node = NULL;
	const struct builtin_layer *b;

	if (read_layer_keys(r, n, l, &name_node, &kind_node) != 0)
		return -1;
	if (name_node == NULL)
		return bad(r, n, "a layer mapping needs a name");
	/* "- name: posix" without a kind is the built-in layer, adjusted. */
	if (kind_node == NULL && (b = dc_builtin_find(l->name)) != NULL) {
		if (b->group)
			return bad(r, name_node, "layer group \"%s\" cannot be adjusted: list its layers instead",
				   b->name);
		add_builtin(r->cfg, b, l, LINE(n), COL(n));
		return 0;
	}
	if (kind_node == NULL)
		return bad(r, name_node, "layer \"%s\" is not built in and has no kind",
			   l->name);
	if ((l->kind == DC_PROBE_UPROBE || l->kind == DC_PROBE_USDT) &&
	    l->ntargets == 0)
		return bad(r, n, "layer \"%s\": a %s layer needs a target",
			   l->name, dc_probe_kind_name(l->kind));
	if (l->ninclude == 0 && l->nfunctions == 0)
		return bad(r, n, "layer \"%s\" needs include (regexes) or functions (names)",
			   l->name);
	l->line = LINE(n);
	l->col = COL(n);
	add_layer(r->cfg, l);
	return 0;
}

static int read_layer(struct reader *r, yaml_node_t *n)
{
	struct layer_cfg l;

	if (n->type == YAML_SCALAR_NODE) {
		const char *name = (const char *)n->data.scalar.value;
		const struct builtin_layer *b = dc_builtin_find(name);

		if (b == NULL)
			return bad(r, n, "unknown layer \"%s\" (built-in layers: posix, stdio, mpiio, hdf5, syscalls, block, pagecache, net, faults, iouring, kernel)",
				   name);
		add_builtin(r->cfg, b, NULL, LINE(n), COL(n));
		return 0;
	}
	if (n->type != YAML_MAPPING_NODE)
		return bad(r, n, "a layer must be a built-in layer name or a mapping, not %s",
			   type_name(n));
	memset(&l, 0, sizeof(l));
	if (read_layer_map(r, n, &l) != 0) {
		layer_free(&l);
		return -1;
	}
	return 0;
}

static int read_mode(struct reader *r, yaml_node_t *n)
{
	const char *s;

	if (scalar(r, n, "mode", &s) != 0)
		return -1;
	if (strcmp(s, "trace") == 0)
		r->cfg->mode = DC_MODE_TRACE;
	else if (strcmp(s, "profile") == 0)
		r->cfg->mode = DC_MODE_PROFILE;
	else
		return bad(r, n, "mode must be trace or profile, not \"%s\"", s);
	return 0;
}

static int read_layers(struct reader *r, yaml_node_t *n)
{
	yaml_node_item_t *it;

	if (n->type != YAML_SEQUENCE_NODE)
		return bad(r, n, "layers must be a list, not %s", type_name(n));
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++)
		if (read_layer(r, node(r, *it)) != 0)
			return -1;
	return 0;
}

static int read_root(struct reader *r, yaml_node_t *root)
{
	struct config *cfg = r->cfg;
	yaml_node_pair_t *p;
	unsigned long long v;
	int have_layers = 0, rc;

	if (root->type != YAML_MAPPING_NODE)
		return bad(r, root, "the config must be a mapping (mode, interval_ms, max_probes, layers), not %s",
			   type_name(root));
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(r, p->key), *n = node(r, p->value);
		const char *key;

		if (scalar(r, k, "a key", &key) != 0 ||
		    check_duplicate_key(r, root, p, k) != 0)
			return -1;
		if (strcmp(key, "mode") == 0) {
			rc = read_mode(r, n);
		} else if (strcmp(key, "interval_ms") == 0) {
			rc = integer(r, n, "interval_ms", 3600000, &v);
			if (rc == 0)
				cfg->interval_ms = (unsigned)v;
		} else if (strcmp(key, "max_probes") == 0) {
			rc = integer(r, n, "max_probes", DC_SPEC_MAX_PROBES, &v);
			if (rc == 0)
				cfg->max_probes = (size_t)v;
			cfg->max_line = LINE(n);
			cfg->max_col = COL(n);
		} else if (strcmp(key, "layers") == 0) {
			rc = read_layers(r, n);
			have_layers = 1;
		} else {
			rc = bad(r, k, "unknown key \"%s\" (mode, interval_ms, max_probes, layers)",
				 key);
		}
		if (rc != 0)
			return -1;
	}
	if (!have_layers)
		return bad_at(r, 0, 0, "no layers");
	return 0;
}

static void config_init(struct config *cfg, const char *file)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->file = file;
	cfg->mode = DC_MODE_TRACE;
	cfg->interval_ms = 1000;
	cfg->max_probes = DC_DEFAULT_MAX_PROBES;
}

/* The YAML document of f into r->doc: 0, or an exit status with r->err
 * set. */
static int load_document(struct reader *r, FILE *f)
{
	yaml_parser_t parser;
	int status = 0;

	if (!yaml_parser_initialize(&parser)) {
		dc_format_error(r->err, r->errlen, "cannot set up the YAML parser");
		return DC_EXIT_FAILURE;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &r->doc)) {
		const char *problem = parser.problem ? parser.problem : "unreadable YAML";
		int line = (int)parser.problem_mark.line + 1;
		int col = (int)parser.problem_mark.column + 1;

		status = DC_EXIT_BADINPUT;
		if (parser.error == YAML_READER_ERROR && ferror(f)) {
			dc_format_error(r->err, r->errlen, "cannot read %s: %s",
					r->cfg->file, strerror(errno));
			status = DC_EXIT_FAILURE;
		} else if (parser.context) {
			bad_at(r, line, col, "YAML syntax error: %s %s", problem,
			       parser.context);
		} else {
			bad_at(r, line, col, "YAML syntax error: %s", problem);
		}
	}
	yaml_parser_delete(&parser);
	return status;
}

int config_load(struct config *cfg, const char *path, char *err,
		size_t errlen)
{
	struct reader r = { .cfg = cfg, .err = err, .errlen = errlen };
	yaml_node_t *root;
	int status;
	FILE *f;

	config_init(cfg, path);
	f = fopen(path, "rb");
	if (f == NULL) {
		dc_format_error(err, errlen, "cannot open %s: %s", path,
				strerror(errno));
		return DC_EXIT_FAILURE;
	}
	status = load_document(&r, f);
	fclose(f);
	if (status != 0)
		return status;
	root = yaml_document_get_root_node(&r.doc);
	if (root == NULL)
		status = bad_at(&r, 0, 0, "empty config");
	else
		status = read_root(&r, root);
	yaml_document_delete(&r.doc);
	if (status != 0) {
		config_free(cfg);
		return DC_EXIT_BADINPUT;
	}
	return 0;
}

void config_from_layers(struct config *cfg, const char *list)
{
	char *copy = xstrdup(list), *save = NULL, *name;

	config_init(cfg, "--layers");
	for (name = strtok_r(copy, ", ", &save); name;
	     name = strtok_r(NULL, ", ", &save)) {
		const struct builtin_layer *b = dc_builtin_find(name);

		if (b == NULL)
			dc_usage_error("unknown layer \"%s\" in --layers (see dc-gen --list-layers)",
				       name);
		add_builtin(cfg, b, NULL, 0, 0);
	}
	free(copy);
	if (cfg->nlayers == 0)
		dc_usage_error("--layers names no layer");
}

void config_free(struct config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nlayers; i++)
		layer_free(&cfg->layers[i]);
	free(cfg->layers);
	memset(cfg, 0, sizeof(*cfg));
}

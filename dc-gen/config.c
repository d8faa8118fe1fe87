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

void config_die(const struct config *cfg, int line, int col, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		die_status(DC_EXIT_BADINPUT, "%s:%d:%d: %s", cfg->file, line, col, msg);
	die_status(DC_EXIT_BADINPUT, "%s: %s", cfg->file, msg);
}

void config_warn(const struct config *cfg, int line, int col, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		warn("%s:%d:%d: warning: %s", cfg->file, line, col, msg);
	else
		warn("%s: warning: %s", cfg->file, msg);
}

/* The YAML being read, for node lookups and positions. */
struct reader {
	struct config *cfg;
	yaml_document_t doc;
};

#define LINE(n) ((int)(n)->start_mark.line + 1)
#define COL(n) ((int)(n)->start_mark.column + 1)

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

static const char *scalar(struct reader *r, yaml_node_t *n, const char *what)
{
	if (n->type != YAML_SCALAR_NODE)
		config_die(r->cfg, LINE(n), COL(n), "%s must be a string, not %s",
			   what, type_name(n));
	return (const char *)n->data.scalar.value;
}

static unsigned long long integer(struct reader *r, yaml_node_t *n,
				  const char *what, unsigned long long max)
{
	const char *s = scalar(r, n, what);
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 || v == 0 ||
	    v > max)
		config_die(r->cfg, LINE(n), COL(n),
			   "%s must be an integer from 1 to %llu, not \"%s\"", what,
			   max, s);
	return v;
}

static int boolean(struct reader *r, yaml_node_t *n, const char *what)
{
	const char *s = scalar(r, n, what);

	if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on"))
		return 1;
	if (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off"))
		return 0;
	config_die(r->cfg, LINE(n), COL(n), "%s must be true or false, not \"%s\"",
		   what, s);
}

/* A list of strings; a single string counts as a list of one. */
static char **strings(struct reader *r, yaml_node_t *n, const char *what,
		      size_t *count, int **lines, int **cols)
{
	yaml_node_item_t *it;
	char **v;
	size_t i = 0, len;

	if (n->type == YAML_SCALAR_NODE) {
		v = xcalloc(1, sizeof(*v));
		v[0] = xstrdup(scalar(r, n, what));
		if (lines) {
			*lines = xcalloc(1, sizeof(int));
			*cols = xcalloc(1, sizeof(int));
			(*lines)[0] = LINE(n);
			(*cols)[0] = COL(n);
		}
		*count = 1;
		return v;
	}
	if (n->type != YAML_SEQUENCE_NODE)
		config_die(r->cfg, LINE(n), COL(n), "%s must be a list of strings, not %s",
			   what, type_name(n));
	len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	v = xcalloc(len + 1, sizeof(*v));
	if (lines) {
		*lines = xcalloc(len + 1, sizeof(int));
		*cols = xcalloc(len + 1, sizeof(int));
	}
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *item = node(r, *it);

		if (lines) {
			(*lines)[i] = LINE(item);
			(*cols)[i] = COL(item);
		}
		v[i++] = xstrdup(scalar(r, item, what));
	}
	*count = len;
	return v;
}

static regex_t *regexes(struct reader *r, yaml_node_t *n, const char *what,
			size_t *count)
{
	int *lines = NULL, *cols = NULL;
	char **pats = strings(r, n, what, count, &lines, &cols);
	regex_t *res = xcalloc(*count + 1, sizeof(*res));
	size_t i;

	for (i = 0; i < *count; i++) {
		int rc = regcomp(&res[i], pats[i], REG_EXTENDED | REG_NOSUB);

		if (rc != 0) {
			char buf[256], msg[1024];
			int line = lines[i], col = cols[i];

			regerror(rc, &res[i], buf, sizeof(buf));
			snprintf(msg, sizeof(msg), "bad regex \"%s\" in %s: %s",
				 pats[i], what, buf);
			/* Free all before dying: nothing leaks on this exit.
			 * Patterns before i are compiled and freed already. */
			for (size_t k = i; k < *count; k++)
				free(pats[k]);
			while (i > 0)
				regfree(&res[--i]);
			free(pats);
			free(lines);
			free(cols);
			free(res);
			config_die(r->cfg, line, col, "%s", msg);
		}
		free(pats[i]);
	}
	free(pats);
	free(lines);
	free(cols);
	return res;
}

/* args: { FUNC: { args: [fd, ptr, size], ret: size }, "*": {...} } */
static void read_plans(struct reader *r, yaml_node_t *n, struct layer_cfg *l)
{
	yaml_node_pair_t *p;

	if (n->type != YAML_MAPPING_NODE)
		config_die(r->cfg, LINE(n), COL(n),
			   "args must be a mapping of function names to plans, not %s",
			   type_name(n));
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(r, p->key), *v = node(r, p->value);
		struct plan *pl;
		yaml_node_pair_t *q;
		int have_args = 0;

		l->plans = xrealloc(l->plans, (l->nplans + 1) * sizeof(*l->plans));
		pl = &l->plans[l->nplans++];
		memset(pl, 0, sizeof(*pl));
		pl->func = xstrdup(scalar(r, k, "a function name under args"));
		if (v->type != YAML_MAPPING_NODE)
			config_die(r->cfg, LINE(v), COL(v),
				   "the plan of %s must be a mapping {args: [...], ret: KIND}, not %s",
				   pl->func, type_name(v));
		for (q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
			yaml_node_t *qk = node(r, q->key), *qv = node(r, q->value);
			const char *key = scalar(r, qk, "a key");

			if (strcmp(key, "args") == 0) {
				yaml_node_item_t *it;

				if (qv->type != YAML_SEQUENCE_NODE)
					config_die(r->cfg, LINE(qv), COL(qv),
						   "args of %s must be a list of argument kinds, not %s",
						   pl->func, type_name(qv));
				for (it = qv->data.sequence.items.start;
				     it < qv->data.sequence.items.top; it++) {
					yaml_node_t *a = node(r, *it);
					const char *s = scalar(r, a, "an argument kind");
					int kind = dc_arg_kind_parse(s);

					if (kind < 0)
						config_die(r->cfg, LINE(a), COL(a),
							   "unknown argument kind \"%s\" (fd size offset flags mode path handle whence int ptr str none)",
							   s);
					if (pl->nargs >= DC_MAX_ARGS)
						config_die(r->cfg, LINE(a), COL(a),
							   "more than %d arguments for %s",
							   DC_MAX_ARGS, pl->func);
					pl->kinds[pl->nargs++] = (uint8_t)kind;
				}
				have_args = 1;
			} else if (strcmp(key, "ret") == 0) {
				const char *s = scalar(r, qv, "ret");

				pl->ret = dc_ret_kind_parse(s);
				if (pl->ret < 0)
					config_die(r->cfg, LINE(qv), COL(qv),
						   "unknown return kind \"%s\" (none status size fd handle offset int)",
						   s);
			} else {
				config_die(r->cfg, LINE(qk), COL(qk),
					   "unknown key \"%s\" in the plan of %s (args, ret)",
					   key, pl->func);
			}
		}
		if (!have_args)
			config_die(r->cfg, LINE(v), COL(v), "the plan of %s has no args list",
				   pl->func);
	}
}

static void check_duplicate_key(struct reader *r, yaml_node_t *map,
				yaml_node_pair_t *upto, yaml_node_t *key)
{
	yaml_node_pair_t *p;

	for (p = map->data.mapping.pairs.start; p < upto; p++) {
		yaml_node_t *k = node(r, p->key);

		if (k->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)k->data.scalar.value,
			   (const char *)key->data.scalar.value) == 0)
			config_die(r->cfg, LINE(key), COL(key), "duplicate key \"%s\"",
				   (const char *)key->data.scalar.value);
	}
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

static int parse_kind(struct reader *r, yaml_node_t *n)
{
	const char *s = scalar(r, n, "kind");
	int k = dc_probe_kind_parse(s);

	if (k <= 0 || k == DC_PROBE_INTERNAL)
		config_die(r->cfg, LINE(n), COL(n),
			   "unknown kind \"%s\" (uprobe, usdt, syscall, tracepoint, kfunc)", s);
	return k;
}

static void read_layer(struct reader *r, yaml_node_t *n)
{
	struct layer_cfg l;
	yaml_node_pair_t *p;
	yaml_node_t *name_node = NULL, *kind_node = NULL;
	const struct builtin_layer *b = NULL;

	if (n->type == YAML_SCALAR_NODE) {
		const char *name = (const char *)n->data.scalar.value;

		b = dc_builtin_find(name);
		if (b == NULL)
			config_die(r->cfg, LINE(n), COL(n),
				   "unknown layer \"%s\" (built-in layers: posix, stdio, mpiio, hdf5, syscalls, block, pagecache, net, faults, iouring, kernel)",
				   name);
		add_builtin(r->cfg, b, NULL, LINE(n), COL(n));
		return;
	}
	if (n->type != YAML_MAPPING_NODE)
		config_die(r->cfg, LINE(n), COL(n),
			   "a layer must be a built-in layer name or a mapping, not %s",
			   type_name(n));
	memset(&l, 0, sizeof(l));
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(r, p->key), *v = node(r, p->value);
		const char *key = scalar(r, k, "a layer key");

		check_duplicate_key(r, n, p, k);
		if (strcmp(key, "name") == 0) {
			l.name = xstrdup(scalar(r, v, "name"));
			name_node = v;
		} else if (strcmp(key, "kind") == 0) {
			l.kind = parse_kind(r, v);
			kind_node = v;
		} else if (strcmp(key, "target") == 0) {
			l.targets = strings(r, v, "target", &l.ntargets, NULL, NULL);
		} else if (strcmp(key, "include") == 0) {
			l.include = regexes(r, v, "include", &l.ninclude);
		} else if (strcmp(key, "exclude") == 0) {
			l.exclude = regexes(r, v, "exclude", &l.nexclude);
		} else if (strcmp(key, "functions") == 0) {
			l.functions = strings(r, v, "functions", &l.nfunctions, NULL, NULL);
		} else if (strcmp(key, "optional") == 0) {
			l.optional = boolean(r, v, "optional");
		} else if (strcmp(key, "args") == 0) {
			read_plans(r, v, &l);
		} else {
			config_die(r->cfg, LINE(k), COL(k),
				   "unknown key \"%s\" in a layer (name, kind, target, include, functions, exclude, optional, args)",
				   key);
		}
	}
	if (name_node == NULL)
		config_die(r->cfg, LINE(n), COL(n), "a layer mapping needs a name");
	/* "- name: posix" without a kind is the built-in layer, adjusted. */
	if (kind_node == NULL && (b = dc_builtin_find(l.name)) != NULL) {
		if (b->group)
			config_die(r->cfg, LINE(name_node), COL(name_node),
				   "layer group \"%s\" cannot be adjusted: list its layers instead",
				   b->name);
		add_builtin(r->cfg, b, &l, LINE(n), COL(n));
		return;
	}
	if (kind_node == NULL)
		config_die(r->cfg, LINE(name_node), COL(name_node),
			   "layer \"%s\" is not built in and has no kind", l.name);
	if ((l.kind == DC_PROBE_UPROBE || l.kind == DC_PROBE_USDT) && l.ntargets == 0)
		config_die(r->cfg, LINE(n), COL(n), "layer \"%s\": a %s layer needs a target",
			   l.name, dc_probe_kind_name(l.kind));
	if (l.ninclude == 0 && l.nfunctions == 0)
		config_die(r->cfg, LINE(n), COL(n),
			   "layer \"%s\" needs include (regexes) or functions (names)",
			   l.name);
	l.line = LINE(n);
	l.col = COL(n);
	add_layer(r->cfg, &l);
}

static void read_root(struct reader *r, yaml_node_t *root)
{
	struct config *cfg = r->cfg;
	yaml_node_pair_t *p;
	int have_layers = 0;

	if (root->type != YAML_MAPPING_NODE)
		config_die(cfg, LINE(root), COL(root),
			   "the config must be a mapping (mode, interval_ms, max_probes, layers), not %s",
			   type_name(root));
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(r, p->key), *v = node(r, p->value);
		const char *key = scalar(r, k, "a key");

		check_duplicate_key(r, root, p, k);
		if (strcmp(key, "mode") == 0) {
			const char *s = scalar(r, v, "mode");

			if (strcmp(s, "trace") == 0)
				cfg->mode = DC_MODE_TRACE;
			else if (strcmp(s, "profile") == 0)
				cfg->mode = DC_MODE_PROFILE;
			else
				config_die(cfg, LINE(v), COL(v),
					   "mode must be trace or profile, not \"%s\"", s);
		} else if (strcmp(key, "interval_ms") == 0) {
			cfg->interval_ms = (unsigned)integer(r, v, "interval_ms", 3600000);
		} else if (strcmp(key, "max_probes") == 0) {
			cfg->max_probes = (size_t)integer(r, v, "max_probes",
							  DC_SPEC_MAX_PROBES);
			cfg->max_line = LINE(v);
			cfg->max_col = COL(v);
		} else if (strcmp(key, "layers") == 0) {
			yaml_node_item_t *it;

			if (v->type != YAML_SEQUENCE_NODE)
				config_die(cfg, LINE(v), COL(v), "layers must be a list, not %s",
					   type_name(v));
			for (it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top; it++)
				read_layer(r, node(r, *it));
			have_layers = 1;
		} else {
			config_die(cfg, LINE(k), COL(k),
				   "unknown key \"%s\" (mode, interval_ms, max_probes, layers)",
				   key);
		}
	}
	if (!have_layers)
		config_die(cfg, 0, 0, "no layers");
}

static void config_init(struct config *cfg, const char *file)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->file = file;
	cfg->mode = DC_MODE_TRACE;
	cfg->interval_ms = 1000;
	cfg->max_probes = DC_DEFAULT_MAX_PROBES;
}

void config_load(struct config *cfg, const char *path)
{
	struct reader r;
	yaml_parser_t parser;
	yaml_node_t *root;
	FILE *f;

	config_init(cfg, path);
	f = fopen(path, "rb");
	if (f == NULL)
		sysdie("cannot open %s", path);
	if (!yaml_parser_initialize(&parser))
		die("cannot set up the YAML parser");
	yaml_parser_set_input_file(&parser, f);
	r.cfg = cfg;
	if (!yaml_parser_load(&parser, &r.doc)) {
		const char *problem = parser.problem ? parser.problem : "unreadable YAML";

		if (parser.error == YAML_READER_ERROR && ferror(f))
			sysdie("cannot read %s", path);
		if (parser.context)
			config_die(cfg, (int)parser.problem_mark.line + 1,
				   (int)parser.problem_mark.column + 1,
				   "YAML syntax error: %s %s", problem, parser.context);
		config_die(cfg, (int)parser.problem_mark.line + 1,
			   (int)parser.problem_mark.column + 1,
			   "YAML syntax error: %s", problem);
	}
	root = yaml_document_get_root_node(&r.doc);
	if (root == NULL)
		config_die(cfg, 0, 0, "empty config");
	read_root(&r, root);
	yaml_document_delete(&r.doc);
	yaml_parser_delete(&parser);
	fclose(f);
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
	size_t i, j;

	for (i = 0; i < cfg->nlayers; i++) {
		struct layer_cfg *l = &cfg->layers[i];

		free(l->name);
		for (j = 0; j < l->ntargets; j++)
			free(l->targets[j]);
		free(l->targets);
		for (j = 0; j < l->ninclude; j++)
			regfree(&l->include[j]);
		free(l->include);
		for (j = 0; j < l->nexclude; j++)
			regfree(&l->exclude[j]);
		free(l->exclude);
		for (j = 0; j < l->nfunctions; j++)
			free(l->functions[j]);
		free(l->functions);
		for (j = 0; j < l->nplans; j++)
			free(l->plans[j].func);
		free(l->plans);
	}
	free(cfg->layers);
	memset(cfg, 0, sizeof(*cfg));
}

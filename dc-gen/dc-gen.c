/*
 * dc-gen - turn a site config (YAML, dc-config(5)) into a probe spec
 * (JSON, dc-probes(5)) for this host: every uprobe is resolved against the
 * real library here with lib/elfsyms, the code dc-explore lists with, so
 * the spec carries the library's realpath and each function's file offset.
 *
 * The output depends only on the config and the host: layers in config
 * order, functions by name within a layer, duplicates (aliases at one
 * offset, a syscall listed twice) dropped after their first appearance.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include "tracefs.h"
#include "elfsyms.h"
#include "hash.h"
#include "kbtf.h"
#include "gen.h"
#include "messages.h"
#include "spec.h"
#include "stream.h"
#include "syscalls.h"
#include "u64map.h"

static const char usage_text[] =
	"Usage: dc-gen [OPTIONS] [CONFIG.yaml]\n"
	"       dc-gen --layers LAYER[,LAYER...] [OPTIONS]\n"
	"       dc-gen --check SPEC.json\n"
	"Write the probe spec (JSON) for a site config, resolved on this host.\n"
	"\n"
	"  -o, --output FILE    write the spec to FILE, not standard output\n"
	"  -l, --layers LIST    use these built-in layers instead of a config\n"
	"  -d, --default        use the shipped default config (also without CONFIG)\n"
	"  -c, --check FILE     check that FILE is a valid probe spec and exit\n"
	"  -L, --list-layers    list the built-in layers and exit\n"
	"  -v, --verbose        say more on stderr\n"
	"  -h, --help           print this help and exit\n"
	"  -V, --version        print the version and exit\n"
	"\n"
	"The default config is default.yaml in $DC_DATA_DIR, else in " PKGDATADIR ".\n";

static const struct option long_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "layers", required_argument, NULL, 'l' },
	{ "default", no_argument, NULL, 'd' },
	{ "check", required_argument, NULL, 'c' },
	{ "list-layers", no_argument, NULL, 'L' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

/* ---- a set of strings, for duplicates ---- */

/* The set: FNV-1a of a string -> the string (lib/u64map.h). */
static int same_str(uint64_t value, const void *key)
{
	return strcmp((const char *)(uintptr_t)value, key) == 0;
}

/* Adds a copy of s; returns 0 if it was already there. */
static int strset_add(struct u64map *set, const char *s)
{
	uint64_t h = dc_fnv1a_str(s);

	if (u64map_find_hashed(set, &h, same_str, s) != NULL)
		return 0;
	u64map_put(set, h, (uint64_t)(uintptr_t)xstrdup(s));
	return 1;
}

static void strset_free(struct u64map *set)
{
	size_t i;

	for (i = 0; i < set->cap; i++)
		if (set->used[i])
			free((void *)(uintptr_t)set->vals[i]);
	u64map_free(set);
}

/* ---- generation ---- */

struct opened {
	char *path;
	struct dc_elf *elf;
};

struct gen {
	struct config *cfg;
	struct dc_spec spec;
	size_t cap;
	struct u64map seen;       /* probe keys */
	struct opened *elfs;
	size_t nelfs;
	int tracefs_warned;
	struct dc_kbtf *kbtf;      /* the kernel's BTF, once a kfunc layer asks */
	int btf_tried;
	int kfunc_checked;         /* kernel functions: 1 traceable, -1 not */
	char kfunc_why[256];
};

static const struct plan *find_plan(const struct layer_cfg *l, const char *func)
{
	size_t i;

	for (i = 0; i < l->nplans; i++)
		if (strcmp(l->plans[i].func, func) == 0)
			return &l->plans[i];
	for (i = 0; i < l->nplans; i++)
		if (strcmp(l->plans[i].func, "*") == 0)
			return &l->plans[i];
	return NULL;
}

static const struct builtin_func *builtin_entry(const struct layer_cfg *l,
						const char *func)
{
	const struct builtin_func *f;

	if (l->builtin == NULL)
		return NULL;
	for (f = l->builtin->funcs; f->name; f++)
		if (strcmp(f->name, func) == 0)
			return f;
	return NULL;
}

/* Function's plan in layer l: the layer's own, else the built-in
 * table's; none (no arguments, no return) without either. */
static void plan_of(const struct layer_cfg *l, const char *function,
		    struct plan *out)
{
	const struct builtin_func *bf = builtin_entry(l, function);
	const struct plan *pl = find_plan(l, function);

	memset(out, 0, sizeof(*out));
	if (pl != NULL)
		*out = *pl;
	else if (bf != NULL && dc_plan_parse(bf->args, bf->ret, out) != 0)
		die("built-in plan of %s is broken", function);
}

/* A new probe, unless one like it (same key) is already there: NULL.
 * Its plan is pl, its argument slots read from the registers in order. */
static struct dc_probe *new_probe(struct gen *g, const struct layer_cfg *l,
				  const char *key, int kind, const char *target,
				  const char *function, uint64_t offset,
				  int64_t nr, int optional, const struct plan *pl)
{
	struct dc_probe *p;
	int a;

	if (!strset_add(&g->seen, key)) {
		debug("%s: %s: same probe as an earlier one, dropped", l->name, function);
		return NULL;
	}
	if (g->spec.nprobes >= g->cfg->max_probes) {
		if (g->cfg->max_line > 0)
			config_die(g->cfg, g->cfg->max_line, g->cfg->max_col,
				   "layer %s needs more than max_probes (%zu) probes",
				   l->name, g->cfg->max_probes);
		config_die(g->cfg, l->line, l->col,
			   "layer %s needs more than max_probes (%zu) probes",
			   l->name, g->cfg->max_probes);
	}
	if (g->spec.nprobes == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 128;
		g->spec.probes = xrealloc(g->spec.probes, g->cap * sizeof(*g->spec.probes));
	}
	p = &g->spec.probes[g->spec.nprobes++];
	memset(p, 0, sizeof(*p));
	p->layer = xstrdup(l->name);
	p->kind = (enum dc_probe_kind)kind;
	p->target = target ? xstrdup(target) : NULL;
	p->function = xstrdup(function);
	p->offset = offset;
	p->nr = nr;
	p->optional = optional;
	p->nargs = pl->nargs;
	memcpy(p->arg_kinds, pl->kinds, sizeof(p->arg_kinds));
	p->ret_kind = (uint8_t)pl->ret;
	for (a = 0; a < DC_MAX_ARGS; a++)
		p->regs[a] = (uint8_t)a;
	return p;
}

static void add_probe(struct gen *g, const struct layer_cfg *l, const char *key,
		      int kind, const char *target, const char *function,
		      uint64_t offset, int64_t nr, int optional)
{
	struct plan pl;

	plan_of(l, function, &pl);
	new_probe(g, l, key, kind, target, function, offset, nr, optional, &pl);
}

/* Function's checking versions with code of their own (lib/checking.h)
 * that the library has: probed too, their calls recorded as function's
 * with its plan, each argument from the register the checking version
 * has it in.  A plan with more arguments than the function has cannot
 * be read from one: such a probe is left out, with a warning. */
static void add_checking(struct gen *g, const struct layer_cfg *l,
			 const struct dc_elf *elf, const char *path,
			 const char *function)
{
	const struct dc_checking *c;

	for (c = dc_checking_funcs; c->name != NULL; c++) {
		const struct dc_elf_func *f;
		struct dc_probe *p;
		struct plan pl;
		char *key;

		if (strcmp(c->as, function) != 0 ||
		    (f = dc_elf_find(elf, c->name)) == NULL)
			continue;
		plan_of(l, function, &pl);
		if (pl.nargs > c->nregs) {
			config_warn(g->cfg, l->line, l->col,
				    "layer %s: a plan of %d arguments, %s has %d: %s not probed",
				    l->name, pl.nargs, function, c->nregs, c->name);
			continue;
		}
		key = xasprintf("u %s %llx", path, (unsigned long long)f->offset);
		p = new_probe(g, l, key, DC_PROBE_UPROBE, path, c->name, f->offset,
			      -1, l->optional, &pl);
		free(key);
		if (p == NULL)
			continue;
		p->as = xstrdup(function);
		memcpy(p->regs, c->regs, (size_t)p->nargs);
	}
}

static int matches_any(const regex_t *res, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (regexec(&res[i], s, 0, NULL, 0) == 0)
			return 1;
	return 0;
}

/* The names a layer asks for; built-in tables narrowed by the layer's
 * include/functions/exclude; custom layers' functions plus what include
 * picks among `candidates`. */
struct wanted {
	char **names;
	int *quiet;     /* absence is not worth a warning */
	size_t n, cap;
};

static void want(struct wanted *w, const char *name, int quiet)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->names = xrealloc(w->names, w->cap * sizeof(*w->names));
		w->quiet = xrealloc(w->quiet, w->cap * sizeof(*w->quiet));
	}
	w->names[w->n] = xstrdup(name);
	w->quiet[w->n++] = quiet;
}

static int wanted_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void wanted_finish(struct wanted *w, const struct layer_cfg *l)
{
	size_t i, j = 0;
	struct { char *name; int quiet; } *tmp = xcalloc(w->n + 1, sizeof(*tmp));

	for (i = 0; i < w->n; i++) {
		if (matches_any(l->exclude, l->nexclude, w->names[i])) {
			free(w->names[i]);
			continue;
		}
		tmp[j].name = w->names[i];
		tmp[j++].quiet = w->quiet[i];
	}
	qsort(tmp, j, sizeof(*tmp), wanted_cmp);
	w->n = 0;
	for (i = 0; i < j; i++) {
		if (w->n > 0 && strcmp(w->names[w->n - 1], tmp[i].name) == 0) {
			w->quiet[w->n - 1] &= tmp[i].quiet;
			free(tmp[i].name);
			continue;
		}
		w->names[w->n] = tmp[i].name;
		w->quiet[w->n++] = tmp[i].quiet;
	}
	free(tmp);
}

static void wanted_free(struct wanted *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->names[i]);
	free(w->names);
	free(w->quiet);
}

static int listed(const struct layer_cfg *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->nfunctions; i++)
		if (strcmp(l->functions[i], name) == 0)
			return 1;
	return 0;
}

/* Wanted names from a layer's own lists and the built-in table. */
static void wanted_base(struct wanted *w, const struct layer_cfg *l)
{
	size_t i;

	if (l->builtin) {
		const struct builtin_func *f;
		int narrowed = l->ninclude > 0 || l->nfunctions > 0;

		for (f = l->builtin->funcs; f->name; f++)
			if (!narrowed || listed(l, f->name) ||
			    matches_any(l->include, l->ninclude, f->name))
				want(w, f->name, f->quiet);
		return;
	}
	for (i = 0; i < l->nfunctions; i++)
		want(w, l->functions[i], 0);
}

static struct dc_elf *open_elf(struct gen *g, const struct layer_cfg *l,
			       const char *path)
{
	char err[PATH_MAX + 256];
	struct dc_elf *elf;
	size_t i;
	int rc;

	for (i = 0; i < g->nelfs; i++)
		if (strcmp(g->elfs[i].path, path) == 0)
			return g->elfs[i].elf;
	rc = dc_elf_open(path, &elf, err, sizeof(err));
	if (rc != 0) {
		if (l->line > 0)
			die_status(rc, "%s:%d:%d: layer %s: %s", g->cfg->file, l->line,
				   l->col, l->name, err);
		die_status(rc, "layer %s: %s", l->name, err);
	}
	g->elfs = xrealloc(g->elfs, (g->nelfs + 1) * sizeof(*g->elfs));
	g->elfs[g->nelfs].path = xstrdup(path);
	g->elfs[g->nelfs++].elf = elf;
	return elf;
}

/* The first of the layer's targets found here; NULL for an optional
 * layer without one (after a warning). */
static int resolve_target(struct gen *g, const struct layer_cfg *l, char *path,
			  size_t len)
{
	char err[PATH_MAX + 256] = "", names[1024] = "";
	size_t i;

	for (i = 0; i < l->ntargets; i++) {
		if (dc_lib_resolve(l->targets[i], path, len, err, sizeof(err)) == 0) {
			debug("layer %s: %s is %s", l->name, l->targets[i], path);
			return 1;
		}
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", l->targets[i]);
	}
	if (l->ntargets > 1)
		snprintf(err, sizeof(err), "none of %s found", names);
	if (l->optional) {
		config_warn(g->cfg, l->line, l->col, "layer %s skipped: %s", l->name, err);
		return 0;
	}
	config_die(g->cfg, l->line, l->col, "layer %s: %s", l->name, err);
}

/* The library `name` that goes with the layer's library `lib`: the one
 * beside it (a glibc installed in a directory of its own has its librt
 * there), else the one the loader would find.  0 if none. */
static int companion(const char *lib, const char *name, char *path,
		     size_t len)
{
	char err[PATH_MAX + 256];
	const char *slash = strrchr(lib, '/');
	char *beside;

	if (slash != NULL) {
		beside = xasprintf("%.*s/%s", (int)(slash - lib), lib, name);
		if (access(beside, R_OK) == 0 && realpath(beside, path) != NULL &&
		    strlen(path) < len) {
			free(beside);
			return 1;
		}
		free(beside);
	}
	return dc_lib_resolve(name, path, len, err, sizeof(err)) == 0;
}

/* Function name, which the layer's library lib does not have, from the
 * library its built-in entry names for older systems instead (glibc's
 * librt, where POSIX AIO was before 2.34): probed there if that has
 * it.  1 if probed. */
static int probe_elsewhere(struct gen *g, const struct layer_cfg *l,
			   const char *lib, const char *name)
{
	const struct builtin_func *bf = builtin_entry(l, name);
	char path[PATH_MAX];
	const struct dc_elf_func *f;
	struct dc_elf *elf;
	char *key;

	if (bf == NULL || bf->elsewhere == NULL ||
	    !companion(lib, bf->elsewhere, path, sizeof(path)))
		return 0;
	elf = open_elf(g, l, path);
	if ((f = dc_elf_find(elf, name)) == NULL)
		return 0;
	debug("layer %s: %s from %s", l->name, name, path);
	key = xasprintf("u %s %llx", path, (unsigned long long)f->offset);
	add_probe(g, l, key, DC_PROBE_UPROBE, path, name, f->offset, -1,
		  l->optional);
	free(key);
	add_checking(g, l, elf, path, name);
	return 1;
}

static void gen_uprobes(struct gen *g, const struct layer_cfg *l)
{
	char path[PATH_MAX];
	struct wanted w = { 0 };
	struct dc_elf *elf;
	size_t i, j;

	if (!resolve_target(g, l, path, sizeof(path)))
		return;
	elf = open_elf(g, l, path);
	wanted_base(&w, l);
	if (l->builtin == NULL && l->ninclude > 0) {
		for (i = 0; i < elf->nfuncs; i++)
			for (j = 0; j < elf->funcs[i].nnames; j++) {
				const struct dc_elf_name *n = &elf->funcs[i].names[j];

				/* Bare names bind to default versions only. */
				if (n->is_default &&
				    matches_any(l->include, l->ninclude, n->name))
					want(&w, n->name, 1);
			}
	}
	wanted_finish(&w, l);
	if (w.n == 0)
		config_warn(g->cfg, l->line, l->col, "layer %s: no function of %s selected",
			    l->name, path);
	for (i = 0; i < w.n; i++) {
		const struct dc_elf_func *f = dc_elf_find(elf, w.names[i]);
		char *key;

		if (f == NULL) {
			if (probe_elsewhere(g, l, path, w.names[i]))
				continue;
			if (!w.quiet[i])
				config_warn(g->cfg, l->line, l->col, "layer %s: no function %s in %s",
					    l->name, w.names[i], path);
			else
				debug("layer %s: no function %s in %s", l->name, w.names[i], path);
			continue;
		}
		key = xasprintf("u %s %llx", path, (unsigned long long)f->offset);
		add_probe(g, l, key, DC_PROBE_UPROBE, path, w.names[i], f->offset, -1,
			  l->optional);
		free(key);
		add_checking(g, l, elf, path, w.names[i]);
	}
	wanted_free(&w);
}

static void gen_usdt(struct gen *g, const struct layer_cfg *l)
{
	char path[PATH_MAX];
	struct dc_elf *elf;
	size_t i, j;

	if (!resolve_target(g, l, path, sizeof(path)))
		return;
	elf = open_elf(g, l, path);
	for (j = 0; j < l->nfunctions; j++) {
		int found = 0;

		for (i = 0; i < elf->nusdts; i++) {
			char *full = xasprintf("%s:%s", elf->usdts[i].provider,
					       elf->usdts[i].name);

			found |= strcmp(full, l->functions[j]) == 0;
			free(full);
		}
		if (!found)
			config_warn(g->cfg, l->line, l->col, "layer %s: no USDT probe %s in %s",
				    l->name, l->functions[j], path);
	}
	/* elf->usdts is sorted by provider, name and address already. */
	for (i = 0; i < elf->nusdts; i++) {
		const struct dc_elf_usdt *u = &elf->usdts[i];
		char *full = xasprintf("%s:%s", u->provider, u->name), *key;

		if ((listed(l, full) || matches_any(l->include, l->ninclude, full)) &&
		    !matches_any(l->exclude, l->nexclude, full)) {
			size_t before = g->spec.nprobes;

			key = xasprintf("u %s %llx", path, (unsigned long long)u->offset);
			add_probe(g, l, key, DC_PROBE_USDT, path, full, u->offset, -1,
				  l->optional);
			/* The collector raises the semaphore while attached. */
			if (g->spec.nprobes > before)
				g->spec.probes[before].semaphore = u->semaphore_offset;
			free(key);
		}
		free(full);
	}
}

static void gen_syscalls(struct gen *g, const struct layer_cfg *l)
{
	struct wanted w = { 0 };
	size_t i;

	wanted_base(&w, l);
	if (l->builtin == NULL && l->ninclude > 0)
		for (i = 0; i < dc_nsyscalls; i++)
			if (matches_any(l->include, l->ninclude, dc_syscalls[i].name))
				want(&w, dc_syscalls[i].name, 1);
	wanted_finish(&w, l);
	for (i = 0; i < w.n; i++) {
		long nr = dc_syscall_nr(w.names[i]);
		char *key;

		if (nr < 0) {
			if (!w.quiet[i])
				config_warn(g->cfg, l->line, l->col,
					    "layer %s: no syscall %s on this architecture",
					    l->name, w.names[i]);
			else
				debug("layer %s: no syscall %s here", l->name, w.names[i]);
			continue;
		}
		key = xasprintf("s %ld", nr);
		add_probe(g, l, key, DC_PROBE_SYSCALL, NULL, w.names[i], 0, nr,
			  l->optional);
		free(key);
	}
	wanted_free(&w);
}

static void gen_tracepoints(struct gen *g, const struct layer_cfg *l)
{
	struct wanted w = { 0 };
	size_t i;

	if (l->builtin == NULL && l->ninclude > 0)
		config_die(g->cfg, l->line, l->col,
			   "layer %s: tracepoint layers take functions (\"category:name\"), not include",
			   l->name);
	wanted_base(&w, l);
	wanted_finish(&w, l);
	for (i = 0; i < w.n; i++) {
		char *colon = strchr(w.names[i], ':'), *key, *category;
		int exists, optional = l->optional;

		if (colon == NULL || colon == w.names[i] || colon[1] == '\0')
			config_die(g->cfg, l->line, l->col,
				   "layer %s: tracepoint \"%s\" is not \"category:name\"",
				   l->name, w.names[i]);
		*colon = '\0';
		exists = dc_tracefs_has(dc_tracefs(), w.names[i], colon + 1);
		if (exists == 0) {
			if (!w.quiet[i])
				config_warn(g->cfg, l->line, l->col,
					    "layer %s: no tracepoint %s:%s in this kernel",
					    l->name, w.names[i], colon + 1);
			continue;
		}
		if (exists < 0) {
			/* Cannot check: keep it, but let the collector skip
			 * it if the kernel lacks it. */
			if (!g->tracefs_warned++)
				config_warn(g->cfg, l->line, l->col,
					    "tracefs is not mounted: tracepoints are not checked and marked optional");
			optional = 1;
		}
		key = xasprintf("t %s:%s", w.names[i], colon + 1);
		category = xstrdup(w.names[i]);
		*colon = ':';
		/* "function" is the full "category:name", as dc-collect
		 * looks it up; "target" is the category. */
		add_probe(g, l, key, DC_PROBE_TRACEPOINT, category, w.names[i], 0, -1,
			  optional);
		free(category);
		free(key);
	}
	wanted_free(&w);
}

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return 0;
}

/* The kernel's BTF (vmlinux and modules), to check kernel functions
 * against and read their prototypes, as dc-explore reads it
 * ($DC_VMLINUX_BTF for tests: that file, no modules).  NULL, said once,
 * if absent. */
static struct dc_kbtf *kernel_btf(struct gen *g)
{
	const char *path = getenv("DC_VMLINUX_BTF");

	if (g->kbtf == NULL && !g->btf_tried) {
		g->btf_tried = 1;
		libbpf_set_print(quiet_libbpf);
		g->kbtf = dc_kbtf_open(path && *path ? path : NULL);
		if (g->kbtf == NULL)
			warn("no kernel BTF (%s): kernel functions are not checked",
			     path && *path ? path : "/sys/kernel/btf/vmlinux");
	}
	return g->kbtf;
}

/* An argument plan from the function's prototype: what a pointer leads
 * to is what the collector records (the inode behind a struct file *,
 * the offset behind a loff_t *).  A struct renamedata * as the last
 * parameter (vfs_rename's only one) is planned as two paths, the old
 * name and the new, as rename(2)'s are: the collector sends them. */
static void plan_from_btf(struct dc_probe *p, const struct dc_kbtf_func *f)
{
	int i;

	p->nargs = f->nparams < DC_MAX_ARGS ? f->nparams : DC_MAX_ARGS;
	for (i = 0; i < p->nargs; i++) {
		switch (f->params[i]) {
		case DC_KT_FILE: case DC_KT_INODE: case DC_KT_DENTRY:
		case DC_KT_PATH: case DC_KT_KIOCB:
			p->arg_kinds[i] = DC_ARG_INODE;
			break;
		case DC_KT_SIZE: case DC_KT_IOV_ITER:
			p->arg_kinds[i] = DC_ARG_SIZE;
			break;
		case DC_KT_LOFF: case DC_KT_LOFF_PTR:
			p->arg_kinds[i] = DC_ARG_OFFSET;
			break;
		case DC_KT_INT:
			p->arg_kinds[i] = DC_ARG_INT;
			break;
		default:
			p->arg_kinds[i] = DC_ARG_PTR;
			break;
		}
	}
	if (p->nargs == f->nparams && p->nargs > 0 && p->nargs < DC_MAX_ARGS &&
	    f->params[p->nargs - 1] == DC_KT_RENAMEDATA) {
		p->arg_kinds[p->nargs - 1] = DC_ARG_PATH;
		p->arg_kinds[p->nargs++] = DC_ARG_PATH;
	}
	p->ret_kind = f->ret == DC_KT_SIZE ? DC_RET_SIZE
		    : f->ret == DC_KT_INT ? DC_RET_STATUS
		    : f->ret == DC_KT_LOFF ? DC_RET_OFFSET : DC_RET_NONE;
}

static void gen_kfuncs(struct gen *g, const struct layer_cfg *l)
{
	struct dc_kbtf *kbtf;
	struct wanted w = { 0 };
	const char *btf_file;
	size_t i;

	if (l->builtin == NULL && l->ninclude > 0)
		config_die(g->cfg, l->line, l->col,
			   "layer %s: kfunc layers take functions, not include", l->name);
	/* A kernel without kprobes and fentry cannot trace these at all:
	 * say so here, not at collection time.  A spec made from another
	 * kernel's BTF file ($DC_VMLINUX_BTF) is for that kernel. */
	btf_file = getenv("DC_VMLINUX_BTF");
	if (btf_file != NULL && *btf_file != '\0')
		g->kfunc_checked = 1;
	if (g->kfunc_checked == 0)
		g->kfunc_checked = dc_kbtf_traceable(g->kfunc_why,
						     sizeof(g->kfunc_why)) == 0 ? 1 : -1;
	if (g->kfunc_checked < 0) {
		if (l->optional) {
			config_warn(g->cfg, l->line, l->col, "layer %s skipped: %s",
				    l->name, g->kfunc_why);
			return;
		}
		config_die(g->cfg, l->line, l->col,
			   "layer %s: %s; trace the kernel with tracepoint layers (kernel)",
			   l->name, g->kfunc_why);
	}
	kbtf = kernel_btf(g);
	wanted_base(&w, l);
	wanted_finish(&w, l);
	for (i = 0; i < w.n; i++) {
		char *key = xasprintf("k %s", w.names[i]);
		struct dc_kbtf_func f;
		size_t before = g->spec.nprobes;
		int found = kbtf == NULL || dc_kbtf_find(kbtf, w.names[i], &f) == 0;

		/* Like a function missing from a library: a warning. */
		if (!found) {
			if (!w.quiet[i])
				config_warn(g->cfg, l->line, l->col,
					    "layer %s: kernel function %s is not in %s, skipped",
					    l->name, w.names[i],
					    btf_file && *btf_file ? btf_file
					    : "this kernel or its loaded modules");
			free(key);
			continue;
		}
		add_probe(g, l, key, DC_PROBE_KFUNC, NULL, w.names[i], 0, -1,
			  l->optional);
		if (g->spec.nprobes > before && kbtf != NULL &&
		    find_plan(l, w.names[i]) == NULL)
			plan_from_btf(&g->spec.probes[before], &f);
		free(key);
	}
	wanted_free(&w);
}

static void generate(struct gen *g)
{
	size_t i;

	g->spec.mode = (enum dc_mode)g->cfg->mode;
	g->spec.interval_ms = g->cfg->interval_ms;
	for (i = 0; i < g->cfg->nlayers; i++) {
		const struct layer_cfg *l = &g->cfg->layers[i];

		switch (l->kind) {
		case DC_PROBE_UPROBE:
			gen_uprobes(g, l);
			break;
		case DC_PROBE_USDT:
			gen_usdt(g, l);
			break;
		case DC_PROBE_SYSCALL:
			gen_syscalls(g, l);
			break;
		case DC_PROBE_TRACEPOINT:
			gen_tracepoints(g, l);
			break;
		case DC_PROBE_KFUNC:
			gen_kfuncs(g, l);
			break;
		default:
			die("layer %s: unsupported kind", l->name);
		}
	}
}

static void gen_free(struct gen *g)
{
	size_t i;

	for (i = 0; i < g->spec.nprobes; i++) {
		free(g->spec.probes[i].layer);
		free(g->spec.probes[i].target);
		free(g->spec.probes[i].function);
		free(g->spec.probes[i].as);
	}
	free(g->spec.probes);
	for (i = 0; i < g->nelfs; i++) {
		free(g->elfs[i].path);
		dc_elf_free(g->elfs[i].elf);
	}
	free(g->elfs);
	dc_kbtf_close(g->kbtf);
	strset_free(&g->seen);
}

/* ---- the command ---- */

static int check_spec(const char *path)
{
	json_error_t jerr;
	struct dc_spec *spec;
	char err[512];
	json_t *root;

	root = json_load_file(path, 0, &jerr);
	if (root == NULL) {
		if (jerr.line < 0)
			die_status(DC_EXIT_FAILURE, "%s: %s", path, jerr.text);
		die_status(DC_EXIT_BADINPUT, "%s:%d:%d: %s", path, jerr.line,
			   jerr.column, jerr.text);
	}
	spec = dc_spec_from_json(root, err, sizeof(err));
	json_decref(root);
	if (spec == NULL)
		die_status(DC_EXIT_BADINPUT, "%s: %s", path, err);
	printf("%s: %zu probes\n", path, spec->nprobes);
	dc_spec_free(spec);
	xfclose_stdout();
	return 0;
}

static char *default_config(void)
{
	const char *dir = getenv("DC_DATA_DIR");
	char *path;

	if (dir && *dir) {
		path = xasprintf("%s/default.yaml", dir);
		if (access(path, F_OK) == 0)
			return path;
		free(path);
	}
	return xasprintf("%s/default.yaml", PKGDATADIR);
}

static void write_spec(const char *text, const char *output)
{
	FILE *f;

	if (output == NULL) {
		xfwrite(text, strlen(text), stdout, "standard output");
		xfclose_stdout();
		return;
	}
	f = fopen(output, "w");
	if (f == NULL)
		sysdie("cannot create %s", output);
	if (fwrite(text, 1, strlen(text), f) != strlen(text) || fflush(f) != 0 ||
	    ferror(f)) {
		int e = errno;

		fclose(f);
		unlink(output);
		errno = e;
		sysdie("cannot write %s", output);
	}
	if (fclose(f) != 0) {
		int e = errno;

		unlink(output);
		errno = e;
		sysdie("cannot write %s", output);
	}
}

/* What the command line asked for. */
struct options {
	const char *output;      /* -o, or NULL: standard output */
	const char *layers;      /* --layers */
	const char *check;       /* --check SPEC */
	int use_default;         /* --default */
};

static void list_layers(void) __attribute__((noreturn));

static void list_layers(void)
{
	const struct builtin_layer *b;

	for (b = dc_builtin_layers; b->name; b++)
		printf("%-10s %s\n", b->name, b->description);
	xfclose_stdout();
	exit(0);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	int c;

	while ((c = getopt_long(argc, argv, "o:l:dc:LvhV", long_options, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'l':
			o->layers = optarg;
			break;
		case 'd':
			o->use_default = 1;
			break;
		case 'c':
			o->check = optarg;
			break;
		case 'L':
			list_layers();
		case 'v':
			dc_verbose++;
			break;
		case 'h':
			fputs(usage_text, stdout);
			xfclose_stdout();
			exit(0);
		case 'V':
			dc_print_version();
		default:
			dc_usage_error("unknown option");
		}
	}
	if (o->check) {
		if (optind < argc || o->layers || o->use_default || o->output)
			dc_usage_error("--check takes only the spec to check");
		return;
	}
	if (argc - optind > 1)
		dc_usage_error("more than one config given");
	if (o->layers && (o->use_default || optind < argc))
		dc_usage_error("--layers replaces the config: give one or the other");
	if (o->use_default && optind < argc)
		dc_usage_error("--default and a config file: give one or the other");
}

/* The spec as the text written out: indented JSON and a newline, checked
 * to read back first (the collector reads it with the same code). */
static char *spec_text(const struct dc_spec *spec)
{
	struct dc_spec *back;
	json_t *json = dc_spec_to_json(spec);
	char *text, err[512];
	size_t n;

	back = dc_spec_from_json(json, err, sizeof(err));
	if (back == NULL)
		die("generated an invalid spec: %s", err);
	dc_spec_free(back);
	text = json_dumps(json, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	if (text == NULL)
		die("out of memory");
	json_decref(json);
	n = strlen(text);
	text = xrealloc(text, n + 2);
	text[n] = '\n';
	text[n + 1] = '\0';
	return text;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct config cfg;
	struct gen g;
	char *path = NULL, *text, err[DC_CONFIG_ERR_MAX];
	int status;

	dc_messages_init(argv[0]);
	parse_options(argc, argv, &o);
	if (o.check)
		return check_spec(o.check);
	if (o.layers) {
		config_from_layers(&cfg, o.layers);
	} else {
		path = optind < argc ? xstrdup(argv[optind]) : default_config();
		status = config_load(&cfg, path, err, sizeof(err));
		if (status != 0)
			die_status(status, "%s", err);
	}
	memset(&g, 0, sizeof(g));
	g.cfg = &cfg;
	generate(&g);
	if (g.spec.nprobes == 0)
		config_die(&cfg, 0, 0, "no probes: nothing in the config exists on this host");
	text = spec_text(&g.spec);
	debug("%zu probes", g.spec.nprobes);
	write_spec(text, o.output);
	free(text);
	gen_free(&g);
	config_free(&cfg);
	free(path);
	return 0;
}

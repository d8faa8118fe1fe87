/*
 * dc-explore - list what datacrumbs can probe: the functions and USDT
 * probes of ELF files and libraries, and the kernel's tracepoints,
 * syscalls and functions.  See dc-explore(1).
 *
 * User-space listings come from lib/elfsyms, the same reader dc-gen uses,
 * so an offset printed here is the offset dc-gen puts in a probe spec.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "elfsyms.h"
#include "explore.h"
#include "messages.h"
#include "stream.h"

static const char usage_text[] =
	"Usage: dc-explore [OPTIONS] FILE|LIBRARY...\n"
	"       dc-explore --kind tracepoint|syscall|kfunc [OPTIONS]\n"
	"List what datacrumbs can probe.\n"
	"\n"
	"  -k, --kind KIND     func (default), usdt, tracepoint, syscall, kfunc\n"
	"  -m, --match REGEX   only names matching REGEX (POSIX extended)\n"
	"  -j, --json          print a JSON array of objects\n"
	"  -o, --offsets       print the file offset before each name\n"
	"  -f, --fields        tracepoints: print each one's fields\n"
	"  -v, --verbose       say more on stderr\n"
	"  -h, --help          print this help and exit\n"
	"  -V, --version       print the version and exit\n"
	"\n"
	"A LIBRARY without a slash is looked up like the dynamic loader does:\n"
	"\"libc.so.6\", \"libhdf5_serial.so\" or a bare \"libmpi\".\n";

static const struct option long_options[] = {
	{ "kind", required_argument, NULL, 'k' },
	{ "match", required_argument, NULL, 'm' },
	{ "json", no_argument, NULL, 'j' },
	{ "offsets", no_argument, NULL, 'o' },
	{ "fields", no_argument, NULL, 'f' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

/* A name listed in text mode. */
struct line {
	char *name;
	uint64_t offset;
};

static int line_cmp(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	int d = strcmp(x->name, y->name);

	if (d == 0 && x->offset != y->offset)
		d = x->offset < y->offset ? -1 : 1;
	return d;
}

static const char *binding_name(int b)
{
	switch (b) {
	case 0: return "local";
	case 1: return "global";
	case 2: return "weak";
	case 10: return "unique";
	default: return "other";
	}
}

static json_t *func_json(const char *file, const struct dc_elf_func *f)
{
	const struct dc_elf_name *n0 = &f->names[0];
	json_t *o = json_object(), *names = json_array();
	char *s;
	size_t i;

	for (i = 0; i < f->nnames; i++) {
		s = dc_elf_name_string(&f->names[i], 0);
		if (s == NULL)
			die("out of memory");
		json_array_append_new(names, json_string(s));
		free(s);
	}
	s = dc_elf_name_string(n0, 0);
	if (s == NULL)
		die("out of memory");
	json_object_set_new(o, "name", json_string(s));
	free(s);
	json_object_set_new(o, "names", names);
	s = dc_elf_name_string(n0, 1);
	if (s == NULL)
		die("out of memory");
	json_object_set_new(o, "symbol", json_string(s));
	free(s);
	json_object_set_new(o, "version", n0->version ? json_string(n0->version)
						       : json_null());
	json_object_set_new(o, "default_version", json_boolean(n0->is_default));
	json_object_set_new(o, "offset", json_integer((json_int_t)f->offset));
	json_object_set_new(o, "address", json_integer((json_int_t)f->address));
	json_object_set_new(o, "size", json_integer((json_int_t)f->size));
	json_object_set_new(o, "binding", json_string(binding_name(n0->binding)));
	json_object_set_new(o, "kind", json_string(f->ifunc ? "ifunc" : "func"));
	json_object_set_new(o, "file", json_string(file));
	return o;
}

static json_t *usdt_json(const char *file, const struct dc_elf_usdt *u)
{
	json_t *o = json_object();

	json_object_set_new(o, "provider", json_string(u->provider));
	json_object_set_new(o, "name", json_string(u->name));
	json_object_set_new(o, "offset", json_integer((json_int_t)u->offset));
	json_object_set_new(o, "address", json_integer((json_int_t)u->address));
	json_object_set_new(o, "args", json_string(u->args));
	json_object_set_new(o, "semaphore", json_integer((json_int_t)u->semaphore));
	json_object_set_new(o, "semaphore_offset",
			    json_integer((json_int_t)u->semaphore_offset));
	json_object_set_new(o, "kind", json_string("usdt"));
	json_object_set_new(o, "file", json_string(file));
	return o;
}

/* Open ARG as a path, or look it up as a library name.  Returns the exit
 * status of a failure (after printing it), or 0. */
static int open_target(const char *arg, struct dc_elf **elf, char *path,
		       size_t pathlen)
{
	char err[PATH_MAX + 256];
	int rc;

	err[0] = '\0';
	if (strchr(arg, '/') || access(arg, F_OK) == 0) {
		if (realpath(arg, path) == NULL) {
			warn("cannot open %s: %s", arg, strerror(errno));
			return DC_EXIT_FAILURE;
		}
	} else if (dc_lib_resolve(arg, path, pathlen, err, sizeof(err)) != 0) {
		warn("%s", err);
		return DC_EXIT_FAILURE;
	}
	debug("%s: reading %s", arg, path);
	rc = dc_elf_open(path, elf, err, sizeof(err));
	if (rc != 0)
		warn("%s", err);
	return rc;
}

static int explore_file(const char *arg, const struct explore_opts *o,
			json_t *out_json, int prefix)
{
	char path[PATH_MAX];
	struct dc_elf *elf;
	struct line *lines = NULL;
	size_t nlines = 0, cap = 0, i, j;
	int rc;

	rc = open_target(arg, &elf, path, sizeof(path));
	if (rc != 0)
		return rc;
	if (o->kind == EXPLORE_USDT) {
		for (i = 0; i < elf->nusdts; i++) {
			const struct dc_elf_usdt *u = &elf->usdts[i];
			char *s = xasprintf("%s:%s", u->provider, u->name);

			if (o->match && regexec(o->match, s, 0, NULL, 0) != 0) {
				free(s);
				continue;
			}
			if (out_json) {
				json_array_append_new(out_json, usdt_json(path, u));
				free(s);
				continue;
			}
			if (nlines == cap) {
				cap = cap ? cap * 2 : 64;
				lines = xrealloc(lines, cap * sizeof(*lines));
			}
			lines[nlines].name = s;
			lines[nlines++].offset = u->offset;
		}
	} else {
		for (i = 0; i < elf->nfuncs; i++) {
			const struct dc_elf_func *f = &elf->funcs[i];
			int any = 0;

			for (j = 0; j < f->nnames; j++) {
				char *s = dc_elf_name_string(&f->names[j], 0);

				if (s == NULL)
					die("out of memory");
				if (o->match && regexec(o->match, s, 0, NULL, 0) != 0) {
					free(s);
					continue;
				}
				any = 1;
				if (out_json) {
					free(s);
					continue;
				}
				if (nlines == cap) {
					cap = cap ? cap * 2 : 1024;
					lines = xrealloc(lines, cap * sizeof(*lines));
				}
				lines[nlines].name = s;
				lines[nlines++].offset = f->offset;
			}
			if (out_json && any)
				json_array_append_new(out_json, func_json(path, f));
		}
	}
	if (nlines > 1) /* qsort(NULL, 0) is undefined */
		qsort(lines, nlines, sizeof(*lines), line_cmp);
	for (i = 0; i < nlines; i++) {
		/* Two names at the same text: print once. */
		if (i > 0 && strcmp(lines[i].name, lines[i - 1].name) == 0 &&
		    lines[i].offset == lines[i - 1].offset)
			continue;
		if (prefix)
			printf("%s:", path);
		if (o->offsets)
			printf("%#llx ", (unsigned long long)lines[i].offset);
		printf("%s\n", lines[i].name);
	}
	for (i = 0; i < nlines; i++)
		free(lines[i].name);
	free(lines);
	dc_elf_free(elf);
	return 0;
}

/* The kinds --kind takes; func's other name is uprobe. */
static const struct {
	const char *name;
	enum explore_kind kind;
} kinds[] = {
	{ "func", EXPLORE_FUNC },
	{ "uprobe", EXPLORE_FUNC },
	{ "usdt", EXPLORE_USDT },
	{ "tracepoint", EXPLORE_TRACEPOINT },
	{ "syscall", EXPLORE_SYSCALL },
	{ "kfunc", EXPLORE_KFUNC },
};

static enum explore_kind parse_kind(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(s, kinds[i].name) == 0)
			return kinds[i].kind;
	dc_usage_error("unknown kind '%s' (func, usdt, tracepoint, syscall, kfunc)",
		       s);
}

static const char *kind_name(enum explore_kind kind)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].kind == kind)
			return kinds[i].name;
	return "?";
}

/* The options into o; returns the --match pattern or NULL. */
static const char *parse_options(int argc, char **argv, struct explore_opts *o)
{
	const char *match = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "k:m:jofvhV", long_options, NULL)) != -1) {
		switch (c) {
		case 'k':
			o->kind = parse_kind(optarg);
			break;
		case 'm':
			match = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'o':
			o->offsets = 1;
			break;
		case 'f':
			o->fields = 1;
			break;
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
	return match;
}

/* List what the kind in o names: the FILE arguments' functions or USDT
 * probes, or the kernel's tracepoints, syscalls or functions. */
static int explore(const struct explore_opts *o, int nfiles, char **files,
		   json_t *json)
{
	int i, r, rc = 0;

	if (o->kind == EXPLORE_FUNC || o->kind == EXPLORE_USDT) {
		if (nfiles == 0)
			dc_usage_error("no file or library given");
		for (i = 0; i < nfiles; i++) {
			r = explore_file(files[i], o, json, nfiles > 1 && !o->json);
			if (r != 0 && rc == 0)
				rc = r;
		}
		return rc;
	}
	if (nfiles > 0)
		dc_usage_error("--kind %s takes no file arguments",
			       kind_name(o->kind));
	if (o->kind == EXPLORE_TRACEPOINT)
		return explore_tracepoints(o, json);
	if (o->kind == EXPLORE_SYSCALL)
		return explore_syscalls(o, json);
	return explore_kfuncs(o, json);
}

int main(int argc, char **argv)
{
	struct explore_opts o;
	const char *match;
	json_t *json = NULL;
	regex_t re;
	int rc, r;

	dc_messages_init(argv[0]);
	memset(&o, 0, sizeof(o));
	o.kind = EXPLORE_FUNC;
	match = parse_options(argc, argv, &o);
	if (match) {
		char buf[256];

		r = regcomp(&re, match, REG_EXTENDED | REG_NOSUB);
		if (r != 0) {
			regerror(r, &re, buf, sizeof(buf));
			dc_usage_error("bad --match regex '%s': %s", match, buf);
		}
		o.match = &re;
	}
	if (o.json)
		json = json_array();
	rc = explore(&o, argc - optind, argv + optind, json);
	if (json) {
		char *s = json_dumps(json, JSON_INDENT(1) | JSON_PRESERVE_ORDER);

		if (s == NULL)
			die("out of memory");
		xfwrite(s, strlen(s), stdout, "standard output");
		xfwrite("\n", 1, stdout, "standard output");
		free(s);
		json_decref(json);
	}
	if (match)
		regfree(&re);
	xfclose_stdout();
	return rc;
}

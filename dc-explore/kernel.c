/*
 * kernel.c - dc-explore's kernel listings: tracepoints and their fields
 * (tracefs), syscalls (tracefs and this build's syscall table) and kernel
 * functions (BTF), each marked with the mechanism that can probe it here.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "syscalls.h"
#include "explore.h"
#include "messages.h"
#include "stream.h"
#include "tracefs.h"

#define NO_TRACEFS \
	"tracefs is not mounted at /sys/kernel/tracing or /sys/kernel/debug/tracing " \
	"(mount -t tracefs nodev /sys/kernel/tracing)"

struct names {
	char **v;
	size_t n, cap;
};

static void names_add(struct names *ns, char *s)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 256;
		ns->v = xrealloc(ns->v, ns->cap * sizeof(*ns->v));
	}
	ns->v[ns->n++] = s;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort and drop duplicates. */
static void names_sort(struct names *ns)
{
	size_t i, j = 0;

	if (ns->n == 0)
		return;
	if (ns->n > 1) /* qsort(NULL, 0) is undefined */
		qsort(ns->v, ns->n, sizeof(*ns->v), str_cmp);
	for (i = 1; i < ns->n; i++) {
		if (strcmp(ns->v[i], ns->v[j]) == 0)
			free(ns->v[i]);
		else
			ns->v[++j] = ns->v[i];
	}
	ns->n = j + 1;
}

static int names_has(const struct names *ns, const char *s)
{
	return ns->n > 0 &&
	       bsearch(&s, ns->v, ns->n, sizeof(*ns->v), str_cmp) != NULL;
}

static void names_free(struct names *ns)
{
	size_t i;

	for (i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	ns->v = NULL;
	ns->n = ns->cap = 0;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Subdirectories of dir, sorted. */
static void list_dirs(const char *dir, struct names *out)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (is_dir(path))
			names_add(out, xstrdup(de->d_name));
	}
	closedir(d);
	names_sort(out);
}

/* The fields of a tracepoint's format file, without the common_ ones,
 * as text lines or JSON objects. */
static json_t *read_fields(const char *root, const char *cat, const char *name,
			   int print)
{
	char path[PATH_MAX], line[4096];
	json_t *fields = print ? NULL : json_array();
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, cat, name);
	f = fopen(path, "r");
	if (f == NULL) {
		syswarn("cannot read %s", path);
		return fields;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *decl = strstr(line, "field:"), *semi, *p, *fname;
		long offset = -1, size = -1, sgn = -1;

		if (decl == NULL || decl != line + strspn(line, " \t"))
			continue;
		decl += strlen("field:");
		semi = strchr(decl, ';');
		if (semi == NULL)
			continue;
		*semi = '\0';
		if ((p = strstr(semi + 1, "offset:")) != NULL)
			offset = strtol(p + 7, NULL, 10);
		if ((p = strstr(semi + 1, "size:")) != NULL)
			size = strtol(p + 5, NULL, 10);
		if ((p = strstr(semi + 1, "signed:")) != NULL)
			sgn = strtol(p + 7, NULL, 10);
		/* The field name is the last identifier before any [N]. */
		fname = decl + strlen(decl);
		while (fname > decl && fname[-1] == ']') {
			while (fname > decl && fname[-1] != '[')
				fname--;
			if (fname > decl)
				fname--;
		}
		{
			char *end = fname;

			while (fname > decl && (fname[-1] == '_' ||
						(fname[-1] >= 'a' && fname[-1] <= 'z') ||
						(fname[-1] >= 'A' && fname[-1] <= 'Z') ||
						(fname[-1] >= '0' && fname[-1] <= '9')))
				fname--;
			if (strncmp(fname, "common_", 7) == 0)
				continue;
			if (print) {
				printf("\t%s; offset:%ld size:%ld signed:%ld\n", decl,
				       offset, size, sgn);
			} else {
				json_t *o = json_object();

				json_object_set_new(o, "name",
						    json_stringn(fname, (size_t)(end - fname)));
				json_object_set_new(o, "decl", json_string(decl));
				json_object_set_new(o, "offset", json_integer(offset));
				json_object_set_new(o, "size", json_integer(size));
				json_object_set_new(o, "signed", json_boolean(sgn == 1));
				json_array_append_new(fields, o);
			}
		}
	}
	if (ferror(f))
		syswarn("cannot read %s", path);
	fclose(f);
	return fields;
}

int explore_tracepoints(const struct explore_opts *o, json_t *json)
{
	const char *root = dc_tracefs();
	char dir[PATH_MAX];
	struct names cats = { 0 };
	size_t i, j;

	if (root == NULL) {
		warn(NO_TRACEFS);
		return DC_EXIT_FAILURE;
	}
	snprintf(dir, sizeof(dir), "%s/events", root);
	list_dirs(dir, &cats);
	for (i = 0; i < cats.n; i++) {
		struct names evs = { 0 };

		snprintf(dir, sizeof(dir), "%s/events/%s", root, cats.v[i]);
		list_dirs(dir, &evs);
		for (j = 0; j < evs.n; j++) {
			char *full = xasprintf("%s:%s", cats.v[i], evs.v[j]);

			if (o->match && regexec(o->match, full, 0, NULL, 0) != 0) {
				free(full);
				continue;
			}
			if (json) {
				json_t *obj = json_object();

				json_object_set_new(obj, "name", json_string(full));
				json_object_set_new(obj, "category", json_string(cats.v[i]));
				json_object_set_new(obj, "event", json_string(evs.v[j]));
				json_object_set_new(obj, "kind", json_string("tracepoint"));
				if (o->fields)
					json_object_set_new(obj, "fields",
							    read_fields(root, cats.v[i], evs.v[j], 0));
				json_array_append_new(json, obj);
			} else {
				printf("%s\n", full);
				if (o->fields)
					read_fields(root, cats.v[i], evs.v[j], 1);
			}
			free(full);
		}
		names_free(&evs);
	}
	names_free(&cats);
	return 0;
}

int explore_syscalls(const struct explore_opts *o, json_t *json)
{
	const char *root = dc_tracefs();
	struct names calls = { 0 };
	char dir[PATH_MAX];
	size_t i;

	if (root != NULL) {
		struct names evs = { 0 };

		snprintf(dir, sizeof(dir), "%s/events/syscalls", root);
		list_dirs(dir, &evs);
		for (i = 0; i < evs.n; i++)
			if (strncmp(evs.v[i], "sys_enter_", 10) == 0)
				names_add(&calls, xstrdup(evs.v[i] + 10));
		names_free(&evs);
		if (calls.n == 0)
			warn("%s/events/syscalls has no sys_enter_* tracepoints (CONFIG_FTRACE_SYSCALLS off?): listing this build's syscall table, unchecked",
			     root);
	} else {
		warn(NO_TRACEFS ": listing this build's syscall table, unchecked against the kernel");
	}
	if (calls.n == 0)
		for (i = 0; i < dc_nsyscalls; i++)
			names_add(&calls, xstrdup(dc_syscalls[i].name));
	names_sort(&calls);
	for (i = 0; i < calls.n; i++) {
		long nr = dc_syscall_nr(calls.v[i]);

		if (o->match && regexec(o->match, calls.v[i], 0, NULL, 0) != 0)
			continue;
		if (json) {
			json_t *obj = json_object();

			json_object_set_new(obj, "name", json_string(calls.v[i]));
			json_object_set_new(obj, "nr", nr >= 0 ? json_integer(nr) : json_null());
			json_object_set_new(obj, "kind", json_string("syscall"));
			if (o->fields && root) {
				char *ev = xasprintf("sys_enter_%s", calls.v[i]);

				json_object_set_new(obj, "fields",
						    read_fields(root, "syscalls", ev, 0));
				free(ev);
			}
			json_array_append_new(json, obj);
		} else {
			if (o->offsets) {
				if (nr >= 0)
					printf("%ld ", nr);
				else
					printf("- ");
			}
			printf("%s\n", calls.v[i]);
			if (o->fields && root) {
				char *ev = xasprintf("sys_enter_%s", calls.v[i]);

				read_fields(root, "syscalls", ev, 1);
				free(ev);
			}
		}
	}
	names_free(&calls);
	return 0;
}

/* ---- kernel functions ---- */

static int silent_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (dc_verbose > 1)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/* Can a BPF tracing (fentry) program be loaded here?  Loads, never
 * attaches, a two-instruction program aimed at func_id. */
static int fentry_works(__u32 func_id, char *why, size_t whylen)
{
	struct bpf_insn insns[2];
	int fd;
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = func_id);

	memset(insns, 0, sizeof(insns));
	insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K; /* r0 = 0 */
	insns[1].code = BPF_JMP | BPF_EXIT;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "dc_fentry_chk", "GPL", insns, 2,
			   &opts);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	snprintf(why, whylen, "loading a BPF tracing program failed: %s",
		 strerror(errno));
	return 0;
}

/* Lines of available_filter_functions: "name" or "name [module]". */
static int read_filter_functions(const char *root, struct names *out)
{
	char path[PATH_MAX], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/available_filter_functions", root);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, " \t\n")] = '\0';
		if (line[0])
			names_add(out, xstrdup(line));
	}
	fclose(f);
	names_sort(out);
	return 0;
}

struct membuf {
	char *buf;
	size_t len;
	FILE *f;
};

static void dump_printf(void *ctx, const char *fmt, va_list ap)
{
	vfprintf(((struct membuf *)ctx)->f, fmt, ap);
}

/* "ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)" */
static char *prototype(const struct btf *btf, struct btf_dump *d,
		       struct membuf *mb, const struct btf_type *fn)
{
	const struct btf_type *proto = btf__type_by_id(btf, fn->type);
	const char *name = btf__name_by_offset(btf, fn->name_off);
	const struct btf_param *p;
	int i, n;
	char *s;

	rewind(mb->f);
	if (proto == NULL || !btf_is_func_proto(proto)) {
		fprintf(mb->f, "%s(?)", name);
	} else {
		LIBBPF_OPTS(btf_dump_emit_type_decl_opts, ropts, .field_name = "");

		if (proto->type == 0)
			fprintf(mb->f, "void");
		else
			btf_dump__emit_type_decl(d, proto->type, &ropts);
		fprintf(mb->f, " %s(", name);
		p = btf_params(proto);
		n = btf_vlen(proto);
		for (i = 0; i < n; i++) {
			const char *pn = btf__name_by_offset(btf, p[i].name_off);
			LIBBPF_OPTS(btf_dump_emit_type_decl_opts, popts,
				    .field_name = pn ? pn : "");

			if (i > 0)
				fprintf(mb->f, ", ");
			if (p[i].type == 0)
				fprintf(mb->f, "...");
			else
				btf_dump__emit_type_decl(d, p[i].type, &popts);
		}
		if (n == 0)
			fprintf(mb->f, "void");
		fprintf(mb->f, ")");
	}
	fputc('\0', mb->f);
	fflush(mb->f);
	s = xstrdup(mb->buf);
	return s;
}

/* What explore_kfuncs knows while it lists. */
struct kfunc_list {
	struct btf *btf;
	struct btf_dump *dump;     /* prototypes, with --fields or --json */
	struct membuf mb;
	struct names filter;       /* available_filter_functions */
	int have_filter;
	int kprobes, fentry;       /* the mechanisms that attach here */
};

/* Which mechanism can attach here, said once on stderr. */
static void detect_mechanisms(struct kfunc_list *k)
{
	const char *root = dc_tracefs();
	char kprobe_why[PATH_MAX + 64] = "", fentry_why[256] = "";
	__s32 vfs_read;
	__u32 id, n, target = 0;

	if (root == NULL) {
		snprintf(kprobe_why, sizeof(kprobe_why), "%s", NO_TRACEFS);
	} else {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/kprobe_events", root);
		k->kprobes = access(p, F_OK) == 0;
		if (!k->kprobes)
			snprintf(kprobe_why, sizeof(kprobe_why),
				 "no %s (kernel built without CONFIG_KPROBES?)", p);
		k->have_filter = read_filter_functions(root, &k->filter) == 0;
	}
	/* fentry is tried on vfs_read, or on the first function in BTF. */
	vfs_read = btf__find_by_name_kind(k->btf, "vfs_read", BTF_KIND_FUNC);
	n = btf__type_cnt(k->btf);
	if (vfs_read > 0)
		target = (__u32)vfs_read;
	for (id = 1; id < n && target == 0; id++)
		if (btf_is_func(btf__type_by_id(k->btf, id)))
			target = id;
	if (geteuid() != 0)
		snprintf(fentry_why, sizeof(fentry_why),
			 "unknown: checking needs root");
	else if (target != 0)
		k->fentry = fentry_works(target, fentry_why, sizeof(fentry_why));
	else
		snprintf(fentry_why, sizeof(fentry_why), "no functions in BTF");
	notice("kernel functions: kprobes %s%s%s; fentry %s%s%s%s",
	       k->kprobes ? "available" : "NOT available",
	       k->kprobes ? "" : ": ", kprobe_why,
	       k->fentry ? "available" : "NOT available",
	       k->fentry ? "" : " (", fentry_why, k->fentry ? "" : ")");
	if (!k->kprobes && !k->fentry)
		notice("no kernel function can be probed on this machine");
}

/* The names of the BTF functions --match selects, sorted, each as
 * "name\nid" so the id stays with its name. */
static void matching_functions(const struct kfunc_list *k,
			       const struct explore_opts *o, struct names *fns)
{
	__u32 id, n = btf__type_cnt(k->btf);

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(k->btf, id);
		const char *name;

		if (t == NULL || !btf_is_func(t))
			continue;
		name = btf__name_by_offset(k->btf, t->name_off);
		if (name == NULL || *name == '\0')
			continue;
		if (o->match && regexec(o->match, name, 0, NULL, 0) != 0)
			continue;
		names_add(fns, xasprintf("%s\n%u", name, id));
	}
	names_sort(fns);
}

/* One function, as a JSON object or a line (and its prototype with
 * --fields); returns whether it can be probed. */
static int list_function(struct kfunc_list *k, const struct explore_opts *o,
			 json_t *json, const char *name,
			 const struct btf_type *t)
{
	int in_filter = k->have_filter ? names_has(&k->filter, name) : 0;
	int k_ok = k->kprobes && in_filter;
	/* fentry needs the ftrace entry too, when known. */
	int f_ok = k->fentry && (k->have_filter ? in_filter : 1);
	char *proto = NULL;

	if (json || o->fields)
		proto = prototype(k->btf, k->dump, &k->mb, t);
	if (json) {
		json_t *obj = json_object();

		json_object_set_new(obj, "name", json_string(name));
		json_object_set_new(obj, "prototype", json_string(proto));
		json_object_set_new(obj, "kind", json_string("kfunc"));
		json_object_set_new(obj, "kprobe", json_boolean(k_ok));
		json_object_set_new(obj, "fentry", json_boolean(f_ok));
		json_object_set_new(obj, "probeable", json_boolean(k_ok || f_ok));
		json_array_append_new(json, obj);
	} else {
		printf("%s %s\n", name,
		       k_ok && f_ok ? "kprobe,fentry" :
		       k_ok ? "kprobe" : f_ok ? "fentry" : "-");
		if (o->fields)
			printf("\t%s\n", proto);
	}
	free(proto);
	return k_ok || f_ok;
}

int explore_kfuncs(const struct explore_opts *o, json_t *json)
{
	struct kfunc_list k = { .mb = { NULL, 0, NULL } };
	const char *path = getenv("DC_VMLINUX_BTF");
	struct names fns = { 0 };
	size_t i, nfuncs = 0, nprobeable = 0;

	libbpf_set_print(silent_libbpf);
	errno = 0;
	k.btf = path && *path ? btf__parse(path, NULL) : btf__load_vmlinux_btf();
	if (k.btf == NULL) {
		warn("cannot load the kernel's BTF (%s): %s",
		     path && *path ? path : "/sys/kernel/btf/vmlinux",
		     strerror(errno ? errno : ENOENT));
		return DC_EXIT_FAILURE;
	}
	detect_mechanisms(&k);
	if (o->fields || json) {
		k.mb.f = open_memstream(&k.mb.buf, &k.mb.len);
		if (k.mb.f == NULL)
			sysdie("cannot allocate a buffer");
		k.dump = btf_dump__new(k.btf, dump_printf, &k.mb, NULL);
		if (k.dump == NULL)
			sysdie("cannot set up BTF printing");
	}
	matching_functions(&k, o, &fns);
	for (i = 0; i < fns.n; i++) {
		char *nl = strchr(fns.v[i], '\n');

		*nl = '\0';
		if (i > 0 && strcmp(fns.v[i], fns.v[i - 1]) == 0)
			continue; /* static functions sharing a name */
		nfuncs++;
		nprobeable += list_function(&k, o, json, fns.v[i],
			btf__type_by_id(k.btf, (__u32)strtoul(nl + 1, NULL, 10)));
	}
	names_free(&fns);
	debug("%zu kernel functions listed, %zu probe-able", nfuncs, nprobeable);
	if (k.dump)
		btf_dump__free(k.dump);
	if (k.mb.f)
		fclose(k.mb.f);
	free(k.mb.buf);
	names_free(&k.filter);
	btf__free(k.btf);
	return 0;
}

/*
 * tables.c - what dc-write knows of the stream (trace-impl.h): its
 * probes (each with the fixed part of its lines prepared), strings
 * (escaped once) and processes, and the metadata lines that describe
 * them in each output file, once per file.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "outfile.h"
#include "spec.h"
#include "trace-impl.h"

/* ---- probes, strings, processes ---- */

/* The args key of an argument of kind k: the plan's name for the kind
 * (dc-gen(1)), but for plain integers ("arg") and the handles, which are
 * all "handle" whichever way they travel; NULL for a kind this writer
 * does not know (it prints as a plain integer). */
static const char *arg_key(uint8_t k)
{
	switch (k) {
	case DC_ARG_INT:
		return "arg";
	case DC_ARG_HANDLE_OUT:
	case DC_ARG_HANDLE_IN:
	case DC_ARG_FILE:
		return "handle";
	default:
		return k < DC_ARG_KIND_MAX ? dc_arg_kind_name(k) : NULL;
	}
}

/* The probe's name and cat, and the JSON made of them once: the line
 * prefix and the key its drops are counted under. */
static void set_probe_names(struct probe *pr, const char *name,
			    size_t name_len, const char *cat, size_t cat_len)
{
	size_t nj, cj;
	char *name_json = jstr_dup(name, name_len, &nj);
	/* Names repeat across layers (POSIX write, sys write). */
	char *both = xasprintf("%.*s/%.*s", (int)cat_len, cat,
			       (int)name_len, name);

	free(pr->cat_json);
	free(pr->prefix);
	free(pr->drop_key);
	free(pr->name);
	free(pr->cat);
	pr->name = xasprintf("%.*s", (int)name_len, name);
	pr->cat = xasprintf("%.*s", (int)cat_len, cat);
	pr->drop_key = jstr_dup(both, strlen(both), &cj);
	free(both);
	pr->cat_json = jstr_dup(cat, cat_len, &cj);
	pr->cat_json_len = cj;
	pr->prefix = xasprintf(",\"name\":%s,\"cat\":%s,\"pid\":", name_json,
			       pr->cat_json);
	pr->prefix_len = strlen(pr->prefix);
	free(name_json);
}

/* Argument i's key in args (empty: not printed), and the slots of the
 * inline strings. */
static void set_arg_key(struct probe *pr, int i, uint8_t k, uint64_t *used)
{
	pr->kinds[i] = k;
	pr->key[i][0] = '\0';
	/* The first string slot is the inline string; a second one
	 * follows it after its NUL. */
	if (k == DC_ARG_PATH || k == DC_ARG_STR) {
		if (pr->path_slot < 0 && pr->str_slot < 0)
			*(k == DC_ARG_PATH ? &pr->path_slot : &pr->str_slot) = i;
		else if (pr->str2_slot < 0)
			pr->str2_slot = i;
	}
	/* Paths become fhash, strings shash; pointers are noise;
	 * lengths read through pointers become "size" and "bytes". */
	if (k == DC_ARG_NONE || k == DC_ARG_PATH || k == DC_ARG_PTR ||
	    k == DC_ARG_STR || k == DC_ARG_IOV || k == DC_ARG_STRLEN ||
	    k == DC_ARG_STROUT || k == DC_ARG_MPISTATUS)
		return;
	/* A kind newer than this table prints as a plain integer;
	 * a second argument of one kind gets its slot number. */
	if (arg_key(k) == NULL)
		snprintf(pr->key[i], sizeof(pr->key[i]), ",\"arg%d\":", i);
	else if (k == DC_ARG_INT || k >= 64 || (*used & (1ull << k)))
		snprintf(pr->key[i], sizeof(pr->key[i]), ",\"%s%d\":",
			 arg_key(k), i);
	else
		snprintf(pr->key[i], sizeof(pr->key[i]), ",\"%s\":",
			 arg_key(k));
	if (k < 64)
		*used |= 1ull << k;
}

static void set_probe(struct probe *pr, const char *name, size_t name_len,
		      const char *cat, size_t cat_len, uint8_t nargs,
		      const uint8_t *kinds, uint8_t ret_kind)
{
	uint64_t used = 0;
	int i, nfd;

	set_probe_names(pr, name, name_len, cat, cat_len);
	pr->nargs = nargs > DC_MAX_ARGS ? DC_MAX_ARGS : nargs;
	pr->ret_kind = ret_kind;
	pr->path_slot = pr->str_slot = pr->str2_slot = -1;
	for (i = 0; i < pr->nargs; i++)
		set_arg_key(pr, i, kinds[i] < DC_ARG_KIND_MAX ? kinds[i]
							     : DC_ARG_INT,
			    &used);
	for (i = 0, nfd = 0; i < pr->nargs; i++) {
		pr->key_len[i] = (uint8_t)strlen(pr->key[i]);
		nfd += pr->kinds[i] == DC_ARG_FD;
	}
	pr->copy_str = nfd >= 2 && pr->path_slot < 0 && pr->str_slot < 0 &&
		       ret_kind == DC_RET_SIZE;
	callargs_init(&pr->ca, pr->kinds, pr->nargs, ret_kind);
	pr->defined = 1;
}

static struct probe *probe_slot(struct trace *t, uint32_t id)
{
	if (id >= PROBE_ID_MAX)
		return &t->unknown;
	if (id >= t->nprobes) {
		size_t n = id + 16;

		t->probes = xrealloc(t->probes, n * sizeof(*t->probes));
		memset(t->probes + t->nprobes, 0,
		       (n - t->nprobes) * sizeof(*t->probes));
		t->nprobes = n;
	}
	return &t->probes[id];
}

struct probe *probe_for(struct trace *t, uint32_t id)
{
	struct probe *pr = probe_slot(t, id);

	if (!pr->defined) {
		/* Events before (or without) their PROBE frame still get
		 * written: every argument as a plain integer. */
		static const uint8_t ints[DC_MAX_ARGS] = {
			DC_ARG_INT, DC_ARG_INT, DC_ARG_INT,
			DC_ARG_INT, DC_ARG_INT, DC_ARG_INT,
		};
		char name[32];

		/* Ids past the table share one entry: they cannot be
		 * declared anyway (frame_probe refuses them). */
		if (id >= PROBE_ID_MAX)
			snprintf(name, sizeof(name), "probe_invalid");
		else
			snprintf(name, sizeof(name), "probe_%u", id);
		if (!t->warned_unknown_probe++)
			warn("events of undeclared probe %u: written as %s",
			     id, name);
		set_probe(pr, name, strlen(name), "unknown", 7, DC_MAX_ARGS,
			  ints, DC_RET_INT);
		pr->defined = 2;
	}
	return pr;
}

int frame_probe(struct trace *t, const struct dc_frame *f, char *err,
		size_t errlen)
{
	struct dc_probe_rec rec;
	const char *layer, *name, *target;
	size_t ll, nl, tl, pos = sizeof(rec);

	if (f->len < sizeof(rec) ||
	    (pos = dc_get_str(f->data, f->len, pos, &layer, &ll)) == 0 ||
	    (pos = dc_get_str(f->data, f->len, pos, &name, &nl)) == 0 ||
	    (pos = dc_get_str(f->data, f->len, pos, &target, &tl)) == 0) {
		snprintf(err, errlen, "malformed probe frame");
		return -1;
	}
	memcpy(&rec, f->data, sizeof(rec));
	if (rec.id >= PROBE_ID_MAX) {
		snprintf(err, errlen, "probe id %u too large", rec.id);
		return -1;
	}
	if (rec.nargs > DC_MAX_ARGS) {
		snprintf(err, errlen, "probe %u has %u arguments", rec.id,
			 rec.nargs);
		return -1;
	}
	set_probe(probe_slot(t, rec.id), name, nl, layer, ll, rec.nargs,
		  rec.arg_kinds, rec.ret_kind < DC_RET_KIND_MAX ? rec.ret_kind
								 : DC_RET_INT);
	return 0;
}

int frame_string(struct trace *t, const struct dc_frame *f, char *err,
		 size_t errlen)
{
	uint32_t id;
	uint64_t *slot;
	struct string *s;
	int added;

	if (f->len < 4) {
		snprintf(err, errlen, "malformed string frame");
		return -1;
	}
	memcpy(&id, f->data, 4);
	slot = u64map_insert(&t->string_ids, (uint64_t)id, &added);
	if (added) {
		if (t->nstrings == t->strings_cap) {
			t->strings_cap = t->strings_cap ? 2 * t->strings_cap : 64;
			t->strings = xrealloc(t->strings,
					      t->strings_cap * sizeof(*t->strings));
		}
		*slot = ++t->nstrings;
		s = &t->strings[*slot - 1];
	} else {
		s = &t->strings[*slot - 1];
		free(s->json);
	}
	s->hash = trace_hash(f->data + 4, f->len - 4);
	s->json = jstr_dup((const char *)f->data + 4, f->len - 4, &s->json_len);
	return 0;
}

struct process *process_for(struct trace *t, uint32_t pid, int create)
{
	uint64_t *slot;
	int added;

	if (!create) {
		slot = u64map_get(&t->proc_ids, (uint64_t)pid);
		return slot ? &t->procs[*slot - 1] : NULL;
	}
	slot = u64map_insert(&t->proc_ids, (uint64_t)pid, &added);
	if (added) {
		if (t->nprocs == t->procs_cap) {
			t->procs_cap = t->procs_cap ? 2 * t->procs_cap : 16;
			t->procs = xrealloc(t->procs,
					    t->procs_cap * sizeof(*t->procs));
		}
		*slot = ++t->nprocs;
		memset(&t->procs[*slot - 1], 0, sizeof(struct process));
		t->procs[*slot - 1].pid = pid;
		t->procs[*slot - 1].rank = -1;
	}
	return &t->procs[*slot - 1];
}

static char *memdup(const char *s, size_t len)
{
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* Replace the program of a process (copies everything first: the
 * arguments may point into the process itself). */
void process_set(struct process *pr, const char *exe, size_t exe_len,
		 const char *cmd, size_t cmd_len, const char *cwd,
		 size_t cwd_len)
{
	char *e = memdup(exe, exe_len), *c = memdup(cmd, cmd_len);
	char *w = memdup(cwd, cwd_len);

	free(pr->exe);
	free(pr->cmdline);
	free(pr->cwd);
	pr->exe = e;
	pr->exe_len = exe_len;
	pr->cmdline = c;
	pr->cmdline_len = cmd_len;
	pr->cwd = w;
	pr->cwd_len = cwd_len;
	pr->version++;
}

void process_set_job(struct process *pr, const char *job, size_t len)
{
	char *j = memdup(job, len);
	size_t pos = 0;

	free(pr->job);
	pr->job = j;
	pr->job_len = len;
	/* dc-aggregate names each process's host in a merge of hosts: its
	 * events get that host's hash. */
	pr->hhash = 0;
	while (pos < len) {
		size_t el = strnlen(j + pos, len - pos);

		if (el > 5 && memcmp(j + pos, "host=", 5) == 0) {
			pr->host = j + pos + 5;
			pr->host_len = el - 5;
			pr->hhash = trace_hash(pr->host, pr->host_len);
		}
		pos += el + 1;
	}
}

/* The job's key=value pairs as PR arguments; counts (world size, node
 * count, local rank) as numbers, ids as strings ("12", "12.server"). */
static char *put_job(char *p, const char *job, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		const char *e = job + pos, *eq;
		size_t el = strnlen(e, len - pos), kl, vl, i;
		int digits;

		pos += el + 1;
		eq = memchr(e, '=', el);
		if (eq == NULL || eq == e)
			continue;
		kl = (size_t)(eq - e);
		vl = el - kl - 1;
		/* JSON numbers have no leading zeros: "007" stays a string. */
		digits = vl > 0 && vl < 19 && !(vl > 1 && eq[1] == '0') &&
			 !(kl > 4 && memcmp(e, "job_", 4) == 0) &&
			 !(kl == 8 && memcmp(e, "nodelist", 8) == 0);
		for (i = 0; i < vl && digits; i++)
			digits = eq[1 + i] >= '0' && eq[1 + i] <= '9';
		*p++ = ',';
		p = put_jstr(p, e, kl);
		*p++ = ':';
		if (digits) {
			memcpy(p, eq + 1, vl);
			p += vl;
		} else {
			p = put_jstr(p, eq + 1, vl);
		}
	}
	return p;
}

int frame_process(struct trace *t, const struct dc_frame *f, char *err,
		  size_t errlen)
{
	struct dc_process_rec rec;
	const char *exe, *cmd, *cwd, *job;
	size_t el, cl, wl, jl, pos = sizeof(rec);
	struct process *pr;

	if (f->len < sizeof(rec) ||
	    (pos = dc_get_str(f->data, f->len, pos, &exe, &el)) == 0 ||
	    (pos = dc_get_str(f->data, f->len, pos, &cmd, &cl)) == 0 ||
	    (pos = dc_get_str(f->data, f->len, pos, &cwd, &wl)) == 0) {
		snprintf(err, errlen, "malformed process frame");
		return -1;
	}
	memcpy(&rec, f->data, sizeof(rec));
	pr = process_for(t, rec.pid, 1);
	pr->since = rec.start_mono_ns;
	pr->pflags = rec.flags & (DC_PROC_F_FORKED | DC_PROC_F_EXEC);
	pr->ppid = rec.ppid;
	pr->uid = rec.uid;
	pr->gid = rec.gid;
	pr->rank = rec.rank;
	/* The job string came later (dc-stream(5)): optional.  A child is in
	 * its parent's job even when its environment, read in the middle of
	 * an exec, came back empty. */
	if (pos < f->len &&
	    dc_get_str(f->data, f->len, pos, &job, &jl) != 0) {
		struct process *parent = process_for(t, rec.ppid, 0);

		pr = process_for(t, rec.pid, 0);
		if (jl > 0)
			process_set_job(pr, job, jl);
		else if (pr->job_len == 0 && parent != NULL &&
			 parent->job_len > 0)
			process_set_job(pr, parent->job, parent->job_len);
	}
	process_set(pr, exe, el, cmd, cl, cwd, wl);
	t->proc_gen++;
	return 0;
}

/* PR and process_name for pid, in o, if o has not seen this version. */
void describe_process(struct trace *t, struct output *o, uint32_t pid)
{
	struct process *pr = process_for(t, pid, 0);
	const char *base;
	char *args, *p, *cmd, *label;
	uint64_t *seen;
	size_t i;
	int added;

	if (pr == NULL || pr->version == 0)
		return;
	seen = u64map_insert(&o->procs, (uint64_t)pid, &added);
	if (*seen == pr->version)
		return;
	*seen = pr->version;
	args = xmalloc(6 * (pr->exe_len + pr->cmdline_len + pr->cwd_len +
			    2 * pr->job_len) + 320);
	/* Arguments travel NUL-separated; show them space-separated. */
	cmd = memdup(pr->cmdline, pr->cmdline_len);
	for (i = 0; i < pr->cmdline_len; i++)
		if (cmd[i] == '\0')
			cmd[i] = ' ';
	p = args;
	p = PUT(p, "\"name\":");
	p = put_jstr(p, pr->exe, pr->exe_len);
	p = PUT(p, ",\"value\":");
	p = put_u64(p, trace_hash(pr->exe, pr->exe_len));
	p = PUT(p, ",\"rank\":");
	p = put_i64(p, pr->rank);
	p = PUT(p, ",\"ppid\":");
	p = put_u64(p, pr->ppid);
	p = PUT(p, ",\"uid\":");
	p = put_u64(p, pr->uid);
	p = PUT(p, ",\"gid\":");
	p = put_u64(p, pr->gid);
	p = PUT(p, ",\"cmdline\":");
	p = put_jstr(p, cmd, pr->cmdline_len);
	p = PUT(p, ",\"cwd\":");
	p = put_jstr(p, pr->cwd, pr->cwd_len);
	/* Which description this is: from when, and after a fork (the
	 * parent's program still) or an exec. */
	if (pr->since != 0) {
		p = PUT(p, ",\"since\":");
		p = put_u64(p, to_us(t, pr->since));
	}
	if (pr->pflags & DC_PROC_F_FORKED)
		p = PUT(p, ",\"origin\":\"fork\"");
	else if (pr->pflags & DC_PROC_F_EXEC)
		p = PUT(p, ",\"origin\":\"exec\"");
	p = put_job(p, pr->job, pr->job_len);
	put_meta(o, "PR", pid, pid, args, (size_t)(p - args));
	free(cmd);
	/* Perfetto's track name: "Rank 3 (ior)" or "dd (4242)". */
	base = pr->exe;
	for (i = 0; i < pr->exe_len; i++)
		if (pr->exe[i] == '/')
			base = pr->exe + i + 1;
	if (pr->rank >= 0)
		label = xasprintf("Rank %d (%.*s)", pr->rank,
				  (int)(pr->exe + pr->exe_len - base), base);
	else
		label = xasprintf("%.*s (%u)",
				  (int)(pr->exe + pr->exe_len - base), base, pid);
	p = args;
	p = PUT(p, "\"name\":");
	p = put_jstr(p, label, strlen(label));
	put_meta(o, "process_name", pid, pid, args, (size_t)(p - args));
	free(label);
	free(args);
}

void describe_thread(struct trace *t, struct output *o, uint32_t pid,
		     uint32_t tid)
{
	char args[64], *p;
	int added;

	describe_process(t, o, pid);
	u64map_insert(&o->threads, (uint64_t)tid, &added);
	if (added) {
		p = PUT(args, "\"name\":\"");
		if (tid >= ASYNC_TID_BASE) {
			p = PUT(p, "async lane ");
			p = put_u64(p, (tid - ASYNC_TID_BASE) % ASYNC_LANES);
		} else {
			p = put_u64(p, tid);
		}
		*p++ = '"';
		put_meta(o, "thread_name", pid, tid, args, (size_t)(p - args));
	}
	o->cache_pid = pid;
	o->cache_tid = tid;
	o->cache_gen = t->proc_gen;
	o->cache_ok = 1;
}

/* FH/SH line for hash unless o already has it.  json may be NULL: then
 * raw/len is escaped here (inline strings, first use only). */
void describe_string(struct output *o, const char *kind, uint32_t pid,
		     uint32_t tid, uint64_t hash, const char *json,
		     size_t json_len, const char *raw, size_t len)
{
	/* FH and SH of one string are two lines: the key is the hash (53
	 * bits) and the kind. */
	uint64_t key = hash << 1 | (kind[0] == 'F');
	int added;

	if (key + 1 == o->cache_hash)
		return;
	u64map_insert(&o->described, key, &added);
	if (added) {
		if (json == NULL) {
			char *j = jstr_dup(raw, len, &json_len);

			put_hash_meta(o, kind, pid, tid, j, json_len, hash);
			free(j);
		} else {
			put_hash_meta(o, kind, pid, tid, json, json_len, hash);
		}
	}
	o->cache_hash = key + 1;
}


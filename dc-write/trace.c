/*
 * trace.c - stream frames to DFTracer trace lines (dc-trace(5)).
 *
 * The hot path is one complete event per record: the per-probe part of
 * the line ("name", "cat", argument keys) is prepared when the PROBE frame
 * arrives, numbers are formatted by hand straight into the output chunk,
 * and the tables consulted per event (strings, processes, what this file
 * has already described) are hash maps that grow with distinct files and
 * threads, never with events.
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
#include "messages.h"
#include "outfile.h"
#include "trace-impl.h"

/* ---- hashing ---- */

uint64_t trace_hash(const void *data, size_t len)
{
	uint64_t h = dc_fnv1a(data, len);

	return (h >> 53) ^ (h & ((1ull << 53) - 1));
}

/* ---- events ---- */

static const struct string *string_for(struct trace *t, uint32_t id)
{
	uint64_t *slot = u64map_get(&t->string_ids, (uint64_t)id);

	if (slot == NULL) {
		if (!t->warned_unknown_string++)
			warn("events name file %u, which no string frame "
			     "defines: written without fhash", id);
		return NULL;
	}
	return &t->strings[*slot - 1];
}

/* fork: the child runs its parent's program until it execs (a pid seen
 * before is a new process now), unless it was described as of a later
 * time already; exec: the process now runs the program named by the
 * event's string, unless the collector's description of this exec came
 * first (with the command line, rank and job the string lacks). */
static void process_event_update(struct trace *t, const struct dc_event *ev)
{
	struct process *pr, *child;

	if (ev->type == DC_EV_FORK && ev->nargs > 0) {
		uint32_t cpid = (uint32_t)DC_EVENT_ARGS(ev)[0];

		child = process_for(t, cpid, 0);
		if (process_for(t, ev->pid, 0) == NULL ||
		    (child != NULL && child->since > ev->ts))
			return;
		child = process_for(t, cpid, 1);
		pr = process_for(t, ev->pid, 0); /* the table may have moved */
		child->since = ev->ts;
		child->pflags = DC_PROC_F_FORKED;
		child->ppid = ev->pid;
		child->uid = pr->uid;
		child->gid = pr->gid;
		child->rank = pr->rank;
		if (pr->job_len > 0)
			process_set_job(child, pr->job, pr->job_len);
		process_set(child, pr->exe, pr->exe_len, pr->cmdline,
			    pr->cmdline_len, pr->cwd, pr->cwd_len);
		t->proc_gen++;
	} else if (ev->type == DC_EV_EXEC && ev->str_len > 0) {
		pr = process_for(t, ev->pid, 1);
		if ((pr->pflags & DC_PROC_F_EXEC) && pr->since == ev->ts)
			return;
		pr->since = ev->ts;
		pr->pflags = DC_PROC_F_EXEC;
		process_set(pr, DC_EVENT_STR(ev), ev->str_len,
			    DC_EVENT_STR(ev), ev->str_len,
			    pr->cwd ? pr->cwd : "", pr->cwd_len);
		t->proc_gen++;
	}
}

/*
 * Kernel work that can outlive the call it started in (block I/O) would
 * overlap its neighbours on the thread, which Perfetto cannot draw: it
 * goes on lanes of its own, the first lane whose last event ended before
 * this one began.
 */
static uint32_t async_lane(struct trace *t, const struct dc_event *ev)
{
	struct lanes *l;
	uint64_t *slot;
	unsigned i;
	int added;

	slot = u64map_insert(&t->lane_ids, (uint64_t)ev->pid, &added);
	if (added) {
		if (t->nlanes == t->lanes_cap) {
			t->lanes_cap = t->lanes_cap ? 2 * t->lanes_cap : 8;
			t->lanes = xrealloc(t->lanes,
					    t->lanes_cap * sizeof(*t->lanes));
		}
		memset(&t->lanes[t->nlanes], 0, sizeof(*t->lanes));
		*slot = ++t->nlanes;
	}
	l = &t->lanes[*slot - 1];
	for (i = 0; i < l->used; i++)
		if (ev->ts >= l->end[i])
			break;
	if (i == l->used) {
		if (l->used < ASYNC_LANES)
			l->used++;
		else
			i = ASYNC_LANES - 1; /* overlap rather than lose it */
	}
	if (ev->ts + ev->dur > l->end[i])
		l->end[i] = ev->ts + ev->dur;
	return ASYNC_TID_BASE + (ev->pid % (1u << 24)) * ASYNC_LANES + i;
}

/* One event line. */
/* The hashes an event's line names, each described first in o. */
struct hashes {
	uint64_t hhash, fhash, shash, h2;
	int h2_is_path;
};

static void describe_event(struct trace *t, struct output *o,
			   const struct probe *pr, const struct dc_event *ev,
			   uint32_t tid, size_t len1, struct hashes *h)
{
	const struct string *fs = NULL;

	memset(h, 0, sizeof(*h));
	h->hhash = t->hhash;
	/* Processes of the second and later hosts of a merge (pids moved
	 * above 2^22 by dc-aggregate) carry their own host's hash. */
	if (ev->pid >> 22) {
		const struct process *proc = process_for(t, ev->pid, 0);

		if (proc != NULL && proc->hhash != 0) {
			h->hhash = proc->hhash;
			describe_string(o, "HH", ev->pid, tid, h->hhash, NULL, 0,
					proc->host, proc->host_len);
		}
	}
	/* The file: the one dc-aggregate resolved, else an inline path. */
	if (ev->file_id != 0 && (fs = string_for(t, ev->file_id)) != NULL) {
		h->fhash = fs->hash;
		describe_string(o, "FH", ev->pid, tid, h->fhash, fs->json,
				fs->json_len, NULL, 0);
	} else if (len1 > 0 &&
		   (pr->path_slot >= 0 || ev->type == DC_EV_EXEC)) {
		h->fhash = trace_hash(DC_EVENT_STR(ev), len1);
		describe_string(o, "FH", ev->pid, tid, h->fhash, NULL, 0,
				DC_EVENT_STR(ev), len1);
	}
	if (len1 > 0 && pr->str_slot >= 0 && pr->path_slot < 0) {
		h->shash = trace_hash(DC_EVENT_STR(ev), len1);
		describe_string(o, "SH", ev->pid, tid, h->shash, NULL, 0,
				DC_EVENT_STR(ev), len1);
	}
	/* A second string: rename's new path, fopen's mode. */
	if (pr->str2_slot >= 0 && ev->type != DC_EV_EXEC &&
	    len1 + 1 < ev->str_len) {
		const char *s2 = DC_EVENT_STR(ev) + len1 + 1;
		size_t len2 = ev->str_len - len1 - 1;

		h->h2 = trace_hash(s2, len2);
		h->h2_is_path = pr->kinds[pr->str2_slot] == DC_ARG_PATH;
		describe_string(o, h->h2_is_path ? "FH" : "SH", ev->pid, tid,
				h->h2, NULL, 0, s2, len2);
	}
	/* A copy between two descriptors: the file it writes. */
	if (pr->copy_str && ev->type == DC_EV_CALL && len1 > 0) {
		h->h2 = trace_hash(DC_EVENT_STR(ev), len1);
		h->h2_is_path = 1;
		describe_string(o, "FH", ev->pid, tid, h->h2, NULL, 0,
				DC_EVENT_STR(ev), len1);
	}
}

/* ,"name":...,"ph":... of an event's line. */
static char *put_event_head(char *p, const struct probe *pr,
			    const struct dc_event *ev, uint32_t tid,
			    uint64_t ts_us, uint64_t end_us)
{
	const char *name = NULL;

	switch (ev->type) {
	case DC_EV_FORK:
		name = "fork";
		break;
	case DC_EV_EXEC:
		name = "exec";
		break;
	case DC_EV_EXIT_PROC:
		name = "exit";
		break;
	}
	if (name != NULL) {
		p = PUT(p, ",\"name\":\"");
		memcpy(p, name, strlen(name));
		p += strlen(name);
		p = PUT(p, "\",\"cat\":");
		memcpy(p, pr->cat_json, pr->cat_json_len);
		p += pr->cat_json_len;
		p = PUT(p, ",\"pid\":");
	} else {
		memcpy(p, pr->prefix, pr->prefix_len);
		p += pr->prefix_len;
	}
	p = put_u64(p, ev->pid);
	p = PUT(p, ",\"tid\":");
	p = put_u64(p, tid);
	p = PUT(p, ",\"ts\":");
	p = put_u64(p, ts_us);
	p = PUT(p, ",\"dur\":");
	switch (ev->type) {
	case DC_EV_CALL:
		/* Both ends rounded down: nested calls stay nested. */
		p = put_u64(p, end_us - ts_us);
		p = PUT(p, ",\"ph\":\"X\"");
		break;
	default:
		p = PUT(p, "0,\"ph\":\"i\",\"s\":\"t\"");
		break;
	}
	return p;
}

/* The two descriptors a pipe or socketpair made (DC_ARG_FDPAIR: fds[0]
 * in the slot's low half), as fd0 and fd1; none if the call failed, when
 * the array holds whatever was there before. */
static char *put_fdpair(char *p, uint64_t v, int64_t ret)
{
	if (ret != 0)
		return p;
	p = PUT(p, ",\"fd0\":");
	p = put_i64(p, (int32_t)(uint32_t)v);
	p = PUT(p, ",\"fd1\":");
	return put_i64(p, (int32_t)(uint32_t)(v >> 32));
}

/* A call's or instant's arguments, return value, bytes and errno. */
static char *put_call_args(char *p, const struct probe *pr,
			   const struct dc_event *ev)
{
	const __u64 *args = DC_EVENT_ARGS(ev);
	int i, n = ev->nargs < pr->nargs ? ev->nargs : pr->nargs;

	for (i = 0; i < n; i++) {
		if (pr->key_len[i] == 0 ||
		    !callargs_meaningful(&pr->ca, args, n, i))
			continue;
		if (pr->kinds[i] == DC_ARG_FDPAIR) {
			p = put_fdpair(p, args[i], ev->ret);
			continue;
		}
		if (pr->kinds[i] == DC_ARG_DATATYPE &&
		    (ev->flags & DC_EVF_DTSIZE)) {
			p = PUT(p, ",\"tsize\":");
			p = put_i64(p, (int64_t)args[i]);
			continue;
		}
		memcpy(p, pr->key[i], pr->key_len[i]);
		p += pr->key_len[i];
		/* Signed 64-bit throughout: values of 2^63 and more would
		 * be too big for many JSON readers, and a size_t of -1
		 * reads better as -1. */
		switch (pr->kinds[i]) {
		case DC_ARG_FD:
		case DC_ARG_WHENCE:
			p = put_i64(p, (int32_t)args[i]);
			break;
		case DC_ARG_OP:
			p = put_op(p, args[i]);
			break;
		default:
			p = put_i64(p, (int64_t)args[i]);
			break;
		}
	}
	if (pr->ret_kind != DC_RET_NONE) {
		p = PUT(p, ",\"ret\":");
		p = put_i64(p, ev->ret);
	}
	/* Calls, and the kernel's instants that say what they moved (a
	 * socket message's length, an io_uring completion's result). */
	if (pr->ca.bytes && n == pr->nargs &&
	    (ev->type == DC_EV_CALL || ev->type == DC_EV_INSTANT))
		p = callargs_put_bytes(p, pr->kinds, n, pr->ret_kind,
				       args, ev->ret, ev->flags);
	if (ev->error != 0) {
		p = PUT(p, ",\"errno\":");
		p = put_i64(p, ev->error);
	}
	return p;
}

static void write_event(struct trace *t, const struct dc_event *ev)
{
	struct output *o = output_for(t, ev->pid);
	const struct probe *pr = probe_for(t, ev->probe_id);
	uint32_t tid = (ev->flags & DC_EVF_ASYNC) ? async_lane(t, ev) : ev->tid;
	uint64_t ts_us = to_us(t, ev->ts), end_us = to_us(t, ev->ts + ev->dur);
	size_t len1 = ev->str_len ? strnlen(DC_EVENT_STR(ev), ev->str_len) : 0;
	struct hashes h;
	char *start, *p;

	if (!o->cache_ok || o->cache_pid != ev->pid || o->cache_tid != tid ||
	    o->cache_gen != t->proc_gen)
		describe_thread(t, o, ev->pid, tid);
	describe_event(t, o, pr, ev, tid, len1, &h);
	if (end_us > t->last_us)
		t->last_us = end_us;

	p = line_begin_id(o, pr->prefix_len + LINE_SLACK, &start, 2 * ev->seq);
	p = put_event_head(p, pr, ev, tid, ts_us, end_us);
	p = PUT(p, ",\"args\":{\"hhash\":");
	p = put_u64(p, h.hhash);
	if (h.fhash != 0) {
		p = PUT(p, ",\"fhash\":");
		p = put_u64(p, h.fhash);
	}
	if (h.shash != 0) {
		p = PUT(p, ",\"shash\":");
		p = put_u64(p, h.shash);
	}
	if (h.h2 != 0) {
		if (h.h2_is_path)
			p = PUT(p, ",\"fhash2\":");
		else if (h.shash != 0)
			p = PUT(p, ",\"shash2\":");
		else
			p = PUT(p, ",\"shash\":");
		p = put_u64(p, h.h2);
	}
	if (ev->type == DC_EV_FORK) {
		if (ev->nargs > 0) {
			p = PUT(p, ",\"child\":");
			p = put_u64(p, DC_EVENT_ARGS(ev)[0]);
		}
	} else if (ev->type == DC_EV_EXIT_PROC) {
		p = PUT(p, ",\"ret\":");
		p = put_i64(p, ev->ret);
		if (ev->nargs > 0 && DC_EVENT_ARGS(ev)[0] != 0) {
			p = PUT(p, ",\"signal\":");
			p = put_u64(p, DC_EVENT_ARGS(ev)[0]);
		}
	} else if (ev->type != DC_EV_EXEC) {
		p = put_call_args(p, pr, ev);
	}
	p = PUT(p, ",\"level\":");
	p = put_u64(p, ev->depth);
	/* dc-aggregate decided the parent: none (no p_idx; the commonest
	 * line stays short), unknown (-1), or the parent's id. */
	if (ev->flags & DC_EVF_ORPHAN) {
		p = PUT(p, ",\"p_idx\":-1");
		t->orphans++;
	} else if (ev->parent != 0) {
		p = PUT(p, ",\"p_idx\":");
		p = put_u64(p, 2 * ev->parent);
	}
	p = PUT(p, "}}\n");
	o->events++;
	commit(o, start, p, 2 * ev->seq);
}

static void frame_events(struct trace *t, const struct dc_frame *f)
{
	uint32_t pos = 0;

	/* The reader checked the record sizes (dc_events_valid). */
	while (pos < f->len) {
		const struct dc_event *ev = (const void *)(f->data + pos);

		pos += ev->size;
		t->events_in++;
		if (ev->type != DC_EV_CALL && ev->type != DC_EV_INSTANT &&
		    (ev->type < DC_EV_EXEC || ev->type > DC_EV_EXIT_PROC)) {
			if (!t->warned_type++)
				warn("skipping events of unknown type %u",
				     ev->type);
			continue;
		}
		if (ev->type == DC_EV_FORK || ev->type == DC_EV_EXEC)
			process_event_update(t, ev);
		write_event(t, ev);
	}
}

/* The name a per-probe drop count goes by, or NULL for its number. */
static const char *drop_key(const struct trace *t, uint32_t kind, uint32_t id)
{
	if (kind == DC_DROPS_PER_PROBE && id < PROBE_ID_MAX && id < t->nprobes &&
	    t->probes[id].defined)
		return t->probes[id].drop_key;
	if (kind == DC_DROPS_UNATTRIBUTED && id == DC_UNATTR_BLOCK)
		return "\"block\"";
	return NULL;
}

/* The args of a drops frame's instant: kind, total and the losses by
 * key (probe name, CPU, ...); returns its end in the xmalloc'd *out. */
static char *drops_args(struct trace *t, const struct dc_frame *f,
			const struct dc_drops_rec *rec, char **out)
{
	struct dc_drops_entry e;
	const char *key;
	size_t i, need = 128;
	char *p;

	for (i = 0; i < rec->count; i++) {
		memcpy(&e, f->data + sizeof(*rec) + i * sizeof(e), sizeof(e));
		key = drop_key(t, rec->kind, e.key);
		need += 48 + (key ? strlen(key) : 0);
	}
	p = *out = xmalloc(need);
	p = PUT(p, "\"kind\":");
	p = rec->kind == DC_DROPS_PER_CPU ? PUT(p, "\"cpu\"")
	  : rec->kind == DC_DROPS_PER_PROBE ? PUT(p, "\"probe\"")
	  : rec->kind == DC_DROPS_PER_PROCESS ? PUT(p, "\"process\"")
	  : rec->kind == DC_DROPS_UNATTRIBUTED ? PUT(p, "\"unattributed\"")
					    : put_u64(p, rec->kind);
	p = PUT(p, ",\"total\":");
	p = put_u64(p, rec->total);
	p = PUT(p, ",\"by\":{");
	for (i = 0; i < rec->count; i++) {
		memcpy(&e, f->data + sizeof(*rec) + i * sizeof(e), sizeof(e));
		if (i > 0)
			*p++ = ',';
		if ((key = drop_key(t, rec->kind, e.key)) != NULL) {
			size_t kl = strlen(key);

			memcpy(p, key, kl);
			p += kl;
			*p++ = ':';
		} else {
			*p++ = '"';
			p = put_u64(p, e.key);
			p = PUT(p, "\":");
		}
		p = put_u64(p, e.dropped);
	}
	*p++ = '}';
	return p;
}

static int frame_drops(struct trace *t, const struct dc_frame *f, char *err,
		       size_t errlen)
{
	struct dc_drops_rec rec;
	struct dc_drops_entry e;
	char *args, *end;
	size_t i, k;

	if (f->len < sizeof(rec)) {
		snprintf(err, errlen, "malformed drops frame");
		return -1;
	}
	memcpy(&rec, f->data, sizeof(rec));
	if ((f->len - sizeof(rec)) / sizeof(e) < rec.count) {
		snprintf(err, errlen, "malformed drops frame");
		return -1;
	}
	/* A collector reports the same losses per CPU and per probe: sum
	 * each view over the frames (several inputs), never the two. */
	if (rec.kind == DC_DROPS_PER_PROBE)
		t->drops_probe += rec.total;
	else if (rec.kind == DC_DROPS_UNATTRIBUTED) {
		/* Kept, not lost: its entries count events, its total is the
		 * losses the other frames already say. */
		for (i = 0; i < rec.count; i++) {
			memcpy(&e, f->data + sizeof(rec) + i * sizeof(e), sizeof(e));
			t->unattributed += e.dropped;
		}
	} else if (rec.kind != DC_DROPS_PER_PROCESS)
		t->drops_cpu += rec.total;
	end = drops_args(t, f, &rec, &args);
	/* An instant in every open file: the loss happened to the stream. */
	for (k = 0; k < t->nouts; k++) {
		struct output *o = t->outs[k];
		char *start, *q;
		uint64_t id;

		q = line_begin(o, (size_t)(end - args) + LINE_SLACK, &start, &id);
		q = rec.kind == DC_DROPS_UNATTRIBUTED
		    ? PUT(q, ",\"name\":\"unattributed\",\"cat\":\"" META_CAT "\",\"pid\":")
		    : PUT(q, ",\"name\":\"dropped\",\"cat\":\"" META_CAT "\",\"pid\":");
		q = put_u64(q, o->pid);
		q = PUT(q, ",\"tid\":");
		q = put_u64(q, o->pid);
		q = PUT(q, ",\"ts\":");
		q = put_u64(q, t->last_us ? t->last_us : o->start_us);
		q = PUT(q, ",\"dur\":0,\"ph\":\"i\",\"s\":\"g\",\"args\":{");
		memcpy(q, args, (size_t)(end - args));
		q += end - args;
		q = PUT(q, "}}\n");
		commit(o, start, q, id);
	}
	free(args);
	return 0;
}

void trace_counter(struct trace *t, uint32_t pid, uint64_t ts_ns,
		   const char *name, const char *cat, int n,
		   const char *const *keys, const int64_t *values)
{
	struct output *o = output_for(t, pid);
	size_t need = 6 * (strlen(name) + strlen(cat)) + LINE_SLACK;
	char *start, *p;
	uint64_t id;
	int i;

	for (i = 0; i < n; i++)
		need += 6 * strlen(keys[i]) + 32;
	describe_process(t, o, pid);
	p = line_begin(o, need, &start, &id);
	p = PUT(p, ",\"name\":");
	p = put_jstr(p, name, strlen(name));
	p = PUT(p, ",\"cat\":");
	p = put_jstr(p, cat, strlen(cat));
	p = PUT(p, ",\"pid\":");
	p = put_u64(p, pid);
	p = PUT(p, ",\"tid\":");
	p = put_u64(p, pid);
	p = PUT(p, ",\"ts\":");
	p = put_u64(p, to_us(t, ts_ns));
	p = PUT(p, ",\"ph\":\"C\",\"args\":{");
	for (i = 0; i < n; i++) {
		if (i > 0)
			*p++ = ',';
		p = put_jstr(p, keys[i], strlen(keys[i]));
		*p++ = ':';
		p = put_i64(p, values[i]);
	}
	p = PUT(p, "}}\n");
	/* A sample is a stream event: the end event counts it. */
	o->events++;
	commit(o, start, p, id);
}

/* Profile mode: a counter sample per entry, at its interval's start,
 * named and categorised like its probe's calls. */
static int frame_counters(struct trace *t, const struct dc_frame *f,
			  char *err, size_t errlen)
{
	static const char *const keys[] = { "calls", "dur_us", "bytes",
					    "errors" };
	struct dc_counters_rec rec;
	struct dc_counter_entry e;
	uint64_t end_us;
	int64_t values[4];
	uint32_t i;

	if (f->len < sizeof(rec)) {
		snprintf(err, errlen, "malformed counters frame");
		return -1;
	}
	memcpy(&rec, f->data, sizeof(rec));
	if ((f->len - sizeof(rec)) / sizeof(e) < rec.count) {
		snprintf(err, errlen, "malformed counters frame");
		return -1;
	}
	for (i = 0; i < rec.count; i++) {
		const struct probe *pr;

		memcpy(&e, f->data + sizeof(rec) + (size_t)i * sizeof(e),
		       sizeof(e));
		pr = probe_for(t, e.probe_id);
		/* Signed in JSON, as every other number: see write_event. */
		values[0] = (int64_t)e.calls;
		values[1] = (int64_t)(e.dur_ns / 1000);
		values[2] = (int64_t)e.bytes;
		values[3] = (int64_t)e.errors;
		trace_counter(t, e.pid, rec.start_mono_ns, pr->name, pr->cat, 4,
			      keys, values);
	}
	/* The samples speak for the whole interval. */
	end_us = to_us(t, rec.start_mono_ns + rec.interval_ns);
	if (rec.count > 0 && end_us > t->last_us)
		t->last_us = end_us;
	return 0;
}

void trace_flush(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nouts; i++) {
		struct output *o = t->outs[i];

		if (o->gz != NULL && gzout_flush(o->gz)) {
			o->chunk_closed = 1;
			if (gzout_failed(o->gz))
				die("%s", gzout_error(o->gz));
		}
	}
}

int trace_frame(struct trace *t, const struct dc_frame *f, char *err,
		size_t errlen)
{
	switch (f->type) {
	case DC_FRAME_EVENTS:
		frame_events(t, f);
		return 0;
	case DC_FRAME_STRING:
		return frame_string(t, f, err, errlen);
	case DC_FRAME_PROBE:
		return frame_probe(t, f, err, errlen);
	case DC_FRAME_PROCESS:
		return frame_process(t, f, err, errlen);
	case DC_FRAME_DROPS:
		return frame_drops(t, f, err, errlen);
	case DC_FRAME_COUNTERS:
		return frame_counters(t, f, err, errlen);
	case DC_FRAME_END:
		if (f->len < sizeof(t->end)) {
			snprintf(err, errlen, "malformed end frame");
			return -1;
		}
		memcpy(&t->end, f->data, sizeof(t->end));
		t->have_end = 1;
		if (t->end.events != t->events_in)
			warn("the stream's end frame counts %llu events, "
			     "%llu arrived",
			     (unsigned long long)t->end.events,
			     (unsigned long long)t->events_in);
		return 0;
	default:
		/* SYSINFO, FILE and frame types of later versions carry
		 * nothing the trace format has a place for yet. */
		return 0;
	}
}

/* ---- life cycle ---- */

struct trace *trace_new(const struct trace_opts *opts,
			const struct dc_stream_info *info)
{
	struct trace *t = xcalloc(1, sizeof(*t));
	static const char *const exts[] = { ".pfw.gz", ".pfw", ".gz" };
	size_t len = strlen(opts->path), i;

	t->opts = *opts;
	t->info = *info;
	t->hhash = trace_hash(info->host, strlen(info->host));
	t->host_json = jstr_dup(info->host, strlen(info->host), &t->host_json_len);
	t->run_json = jstr_dup(info->run_id, strlen(info->run_id),
			       &t->run_json_len);
	t->ext = xstrdup("");
	t->base = xstrdup(opts->path);
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t el = strlen(exts[i]);

		if (len > el && strcmp(opts->path + len - el, exts[i]) == 0) {
			free(t->ext);
			t->ext = xstrdup(exts[i]);
			t->base[len - el] = '\0';
			break;
		}
	}
	u64map_init(&t->string_ids);
	u64map_init(&t->proc_ids);
	u64map_init(&t->out_ids);
	u64map_init(&t->lane_ids);
	if (opts->split != SPLIT_PID)
		new_output(t, 0);
	return t;
}

int trace_accepts(const struct dc_stream_info *info)
{
	return (info->flags & DC_STREAM_F_IDS) != 0;
}

int trace_input_end(int st, int *how)
{
	if (st == DC_READ_EOF)
		return DC_EXIT_OK;
	*how |= TRACE_TRUNCATED;
	if (st == DC_READ_CORRUPT)
		*how |= TRACE_CORRUPT;
	return dc_read_exit_status(st);
}

int trace_finish(struct trace *t, int how)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < t->nouts; i++) {
		struct output *o = t->outs[i];

		if (close_file(t, o, how) != 0)
			ret = -1;
		u64map_free(&o->described);
		u64map_free(&o->threads);
		u64map_free(&o->procs);
		free(o->path);
		free(o);
	}
	free(t->outs);
	for (i = 0; i < t->nprobes; i++) {
		free(t->probes[i].cat_json);
		free(t->probes[i].drop_key);
		free(t->probes[i].prefix);
		free(t->probes[i].name);
		free(t->probes[i].cat);
	}
	free(t->probes);
	free(t->unknown.cat_json);
	free(t->unknown.prefix);
	free(t->unknown.name);
	free(t->unknown.cat);
	free(t->unknown.drop_key);
	for (i = 0; i < t->nstrings; i++)
		free(t->strings[i].json);
	free(t->strings);
	for (i = 0; i < t->nprocs; i++) {
		free(t->procs[i].exe);
		free(t->procs[i].cmdline);
		free(t->procs[i].cwd);
		free(t->procs[i].job);
	}
	free(t->procs);
	u64map_free(&t->string_ids);
	u64map_free(&t->proc_ids);
	u64map_free(&t->out_ids);
	u64map_free(&t->lane_ids);
	free(t->lanes);
	free(t->host_json);
	free(t->run_json);
	free(t->base);
	free(t->ext);
	free(t);
	return ret;
}


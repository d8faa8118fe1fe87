/*
 * aggregate.c - dc-aggregate's run (dc-aggregate.c has its options):
 * the inputs and their headers, the output, strings, probes, events and
 * the END frame, and the teardown that frees all of it, so that a run
 * can be repeated in one process (fuzz/fuzz-aggregate.c).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aggregate.h"
#include "event.h"
#include "hash.h"
#include "messages.h"
#include "stream.h"
#include "text.h"

#define OUT_BATCH (1u << 20)      /* bytes of events per output frame */

/* ---- output ---- */

void out_frame(struct aggregator *ag, uint16_t type, const void *data,
	       uint32_t len)
{
	if (ag->opt_text) {
		text_frame(stdout, &ag->text_strings, type, data, len);
		if (ferror(stdout))
			sysdie("cannot write standard output");
		return;
	}
	if (dc_writer_frame(ag->writer, type, data, len) != 0)
		sysdie("cannot write standard output");
}

void flush_events(struct aggregator *ag)
{
	if (ag->batch_len == 0)
		return;
	out_frame(ag, DC_FRAME_EVENTS, ag->batch, (uint32_t)ag->batch_len);
	ag->batch_len = 0;
}

/* Push everything written so far to the reader: called whenever input
 * pauses, so a live pipeline sees events promptly. */
void out_flush(struct aggregator *ag)
{
	flush_events(ag);
	if (ag->opt_text) {
		if (fflush(stdout) != 0)
			sysdie("cannot write standard output");
	} else if (dc_writer_flush(ag->writer) != 0) {
		sysdie("cannot write standard output");
	}
}

void out_event(struct aggregator *ag, const struct dc_event *ev)
{
	if (ag->opt_profile != 0 &&
	    (ev->type == DC_EV_CALL || ev->type == DC_EV_INSTANT)) {
		profile_event(ag, ev);
		return;
	}
	if (ag->batch_len + ev->size > OUT_BATCH)
		flush_events(ag);
	memcpy(ag->batch + ag->batch_len, ev, ev->size);
	ag->batch_len += ev->size;
	ag->events_out++;
	if (ev->ts + ev->dur > ag->last_ts)
		ag->last_ts = ev->ts + ev->dur;
}

/* ---- strings ---- */

const char *string_value(struct aggregator *ag, uint32_t id)
{
	uint64_t *slot = u64map_get(&ag->string_vals, id);

	return slot ? PTR(*slot) : NULL;
}

struct text {
	struct aggregator *ag;
	const char *s;
	size_t len;
};

static int same_string(uint64_t id, const void *key)
{
	const struct text *t = key;
	const char *v = string_value(t->ag, (uint32_t)id);

	return strlen(v) == t->len && memcmp(v, t->s, t->len) == 0;
}

uint32_t intern(struct aggregator *ag, const char *s, size_t len,
		uint32_t prefer)
{
	struct text key = { ag, s, len };
	uint64_t h = dc_fnv1a(s, len), *slot;
	uint32_t id;
	unsigned char *frame;
	char *copy;

	slot = u64map_find_hashed(&ag->string_index, &h, same_string, &key);
	if (slot != NULL)
		return (uint32_t)*slot;
	if (prefer != 0 && prefer <= ID_KEEP_MAX && string_value(ag, prefer) == NULL)
		id = prefer;
	else
		id = ag->next_string_id;
	if (id >= ag->next_string_id)
		ag->next_string_id = id + 1;
	copy = xmalloc(len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	u64map_put(&ag->string_vals, id, VAL(copy));
	u64map_put(&ag->string_index, h, id);

	/* STRING frames precede the EVENTS frame that uses them: the event
	 * being built is still in the unwritten batch. */
	frame = xmalloc(4 + len);
	memcpy(frame, &id, 4);
	memcpy(frame + 4, s, len);
	out_frame(ag, DC_FRAME_STRING, frame, (uint32_t)(4 + len));
	free(frame);
	return id;
}

/* ---- damaged input ---- */

void damaged(struct input *in, const char *what, uint64_t offset)
{
	if (!in->damaged)
		warn("%s: malformed %s frame at byte %" PRIu64 " skipped",
		     in->name, what, offset);
	in->damaged = 1;
}

static int probe_same(uint64_t probe, const void *frame)
{
	const struct probe *p = PTR(probe);
	const struct dc_frame *f = frame;

	return p->len == f->len &&
	       memcmp(p->frame + 4, f->data + 4, f->len - 4) == 0;
}

static void handle_probe(struct aggregator *ag,
			 struct input *in, const struct dc_frame *f)
{
	struct dc_probe_rec rec;
	struct probe *p = NULL;
	const char *s[3];
	size_t l[3], pos = sizeof(rec);
	char name[256];
	uint64_t h, *slot;
	uint32_t id;
	int k;

	if (f->len < sizeof(rec)) {
		damaged(in, "probe", f->offset);
		return;
	}
	memcpy(&rec, f->data, sizeof(rec));
	for (k = 0; k < 3; k++) {
		pos = dc_get_str(f->data, f->len, pos, &s[k], &l[k]);
		if (pos == 0) {
			damaged(in, "probe", f->offset);
			return;
		}
	}
	/* An identical probe from another input shares its id; probes are
	 * found by a hash of everything but the id. */
	h = dc_fnv1a(f->data + 4, f->len - 4);
	slot = u64map_find_hashed(&ag->probe_index, &h, probe_same, f);
	if (slot != NULL) {
		p = PTR(*slot);
	} else {
		/* Keep the input's id unless another probe has it. */
		id = u64map_get(&ag->out_probes, rec.id) || rec.id > ID_KEEP_MAX
			? ag->next_probe_id : rec.id;
		if (id >= ag->next_probe_id)
			ag->next_probe_id = id + 1;
		p = xcalloc(1, sizeof(*p));
		p->id = id;
		p->len = f->len;
		p->frame = xmalloc(f->len);
		memcpy(p->frame, f->data, f->len);
		memcpy(p->frame, &id, 4);
		p->nargs = rec.nargs;
		p->ret_kind = rec.ret_kind;
		memcpy(p->arg_kinds, rec.arg_kinds, 8);
		snprintf(name, sizeof(name), "%.*s", (int)l[1], s[1]);
		classify(p, name);
		u64map_put(&ag->out_probes, id, VAL(p));
		u64map_put(&ag->probe_index, h, VAL(p));
		flush_events(ag);
		out_frame(ag, DC_FRAME_PROBE, p->frame, p->len);
	}
	u64map_put(&in->probes, rec.id, VAL(p));
	if (p->op == OP_CHDIR)
		in->cwd_probes |= 1;
	else if (p->op == OP_FCHDIR)
		in->cwd_probes |= 2;
}

/* ---- the call tree ---- */

struct probe *probe_of(struct aggregator *ag, uint32_t out_id)
{
	uint64_t *slot = u64map_get(&ag->out_probes, out_id);

	return slot ? PTR(*slot) : NULL;
}

/* Output ids: input i's own id k (from its call tree, or the ids an
 * aggregated input already carries) becomes k * n_inputs + i, so merged
 * inputs never share one; a single input keeps its ids. */
static void stamp(struct aggregator *ag, unsigned idx, struct dc_event *ev)
{
	struct input *in = &ag->inputs[idx];

	if (!in->has_ids)
		calltree_stamp(&in->tree, ev);
	if (ag->n_inputs > 1) {
		ev->seq = ev->seq * ag->n_inputs + idx;
		if (ev->parent != 0)
			ev->parent = ev->parent * ag->n_inputs + idx;
	}
}

/* ---- events ---- */

/* A kernel function's file comes ahead of its call, as the path the
 * kernel walked (DC_EV_KPATH, same thread and seq; ret 1 for a second
 * path, vfs_rename's new name): kept until the call arrives.  A call
 * that was lost leaves its paths behind; past 65,536 the ones left are
 * forgotten. */
static uint64_t kpath_key(const struct dc_event *ev)
{
	return ((uint64_t)ev->tid << 32) ^ ev->seq;
}

static void kpath_keep(struct aggregator *ag, struct input *in,
		       const struct dc_event *ev)
{
	struct u64map *m = ev->ret == 1 ? &in->kpaths2 : &in->kpaths;
	size_t len;

	/* A path cut at its limit would name another file: none. */
	if (ev->str_len == 0 || ev->seq == 0 || in->has_ids ||
	    (ev->flags & DC_EVF_STR_TRUNC))
		return;
	len = strnlen(DC_EVENT_STR(ev), ev->str_len);
	if (m->count >= 65536)
		u64map_free(m);
	u64map_put(m, kpath_key(ev), intern(ag, DC_EVENT_STR(ev), len, 0));
}

/* Both paths of a two-path call (its plan has two path arguments, the
 * collector sent no string for them) as its inline string, the old name
 * and the new after its NUL, as rename(2)'s; ev sits in a REC_MAX
 * buffer. */
static void kpath_inline(struct aggregator *ag, struct dc_event *ev,
			 uint32_t first, uint32_t second)
{
	const char *p1 = string_value(ag, first), *p2 = string_value(ag, second);
	size_t len1, len2, size;
	char *str = DC_EVENT_STR(ev);

	if (p1 == NULL || p2 == NULL || strnlen(str, ev->str_len) != 0)
		return;
	len1 = strlen(p1);
	len2 = strlen(p2);
	size = (DC_EVENT_HDR_SIZE + 8u * ev->nargs + len1 + len2 + 2 + 7) & ~7u;
	if (size > REC_MAX - 8)
		return;
	memset(str, 0, size - (DC_EVENT_HDR_SIZE + 8u * ev->nargs));
	memcpy(str, p1, len1);
	memcpy(str + len1 + 1, p2, len2);
	ev->str_len = (uint16_t)(len1 + 1 + len2);
	ev->size = (uint16_t)size;
}

static void kpath_name(struct aggregator *ag, struct input *in,
		       struct dc_event *ev)
{
	uint64_t key = kpath_key(ev), *slot = u64map_get(&in->kpaths, key);
	uint64_t *slot2 = u64map_get(&in->kpaths2, key);

	if (slot != NULL && slot2 != NULL)
		kpath_inline(ag, ev, (uint32_t)*slot, (uint32_t)*slot2);
	if (slot2 != NULL)
		u64map_del(&in->kpaths2, key);
	if (slot == NULL)
		return;
	if (ev->file_id == 0)
		ev->file_id = (uint32_t)*slot;
	u64map_del(&in->kpaths, key);
}

/* The child of a fork starts with its parent's directory, fds and
 * handles. */
static void fork_proc(struct aggregator *ag, unsigned idx,
		      const struct dc_event *ev)
{
	uint32_t child = (uint32_t)DC_EVENT_ARGS(ev)[0];
	struct proc *parent, *c;

	get_proc(ag, idx, ev->pid, 1);
	drop_proc(ag, idx, child);
	c = get_proc(ag, idx, child, 1);
	parent = get_proc(ag, idx, ev->pid, 1);
	c->forked = 1;
	c->cwd = parent->cwd ? xstrdup(parent->cwd) : NULL;
	c->cwd_from_stream = c->cwd != NULL;
	u64map_copy(&c->fds, &parent->fds);
	u64map_copy(&c->handles, &parent->handles);
}

/* Handles live in the old image's memory; fds stay, but close-on-exec
 * is not traced: the first /proc snapshot after the exec says which
 * were closed, and what the new program had (its events wait for it,
 * hold.c). */
static void exec_proc(struct aggregator *ag, unsigned idx,
		      const struct dc_event *ev)
{
	struct input *in = &ag->inputs[idx];
	uint64_t at = ev->ts - (uint64_t)in->delta;   /* the input's clock */
	int waits = ag->opt_profile == 0 &&
		    snap_fds_from(in->snapshots, ev->pid, at) != NULL;
	struct proc *p = get_proc(ag, idx, ev->pid, waits);

	if (p != NULL) {
		u64map_free(&p->handles);
		fdt_exec(&p->fds);
		exec_desc(p, ev);
		p->exec_waits = waits;
		p->exec_at = at;
	}
}

/* An input's event in the output's terms: its time on the output's
 * clock, the output's probe and string ids.  Returns its probe, or NULL
 * for an id no PROBE frame named. */
static struct probe *translate(struct input *in, struct dc_event *ev)
{
	struct probe *pr;
	uint64_t *slot;

	ev->ts += (uint64_t)in->delta;
	slot = u64map_get(&in->probes, ev->probe_id);
	pr = slot ? PTR(*slot) : NULL;
	if (pr != NULL)
		ev->probe_id = pr->id;
	if (ev->file_id != 0) {
		slot = u64map_get(&in->strings, ev->file_id);
		ev->file_id = slot ? (uint32_t)*slot : 0;
	}
	return pr;
}

/* A stamped event through the file and process tables, and out. */
static void pass_event(struct aggregator *ag, unsigned idx,
		       const struct probe *pr, struct dc_event *ev)
{
	struct input *in = &ag->inputs[idx];

	switch (ev->type) {
	case DC_EV_CALL:
		track_files(ag, idx, pr, ev, 1);
		out_event(ag, ev);
		if (ag->cwd_moved != NULL)
			describe_moved(ag, ev);
		break;
	case DC_EV_INSTANT:
		track_files(ag, idx, pr, ev, 0);
		out_event(ag, ev);
		break;
	case DC_EV_FORK:
		out_event(ag, ev);
		if (ev->nargs >= 1)
			fork_proc(ag, idx, ev);
		break;
	case DC_EV_EXEC:
		exec_proc(ag, idx, ev);
		out_event(ag, ev);
		break;
	case DC_EV_EXIT_PROC:
		if (!in->has_ids)
			calltree_drop_process(&in->tree, ev->pid);
		out_event(ag, ev);
		drop_proc(ag, idx, ev->pid);
		break;
	default:
		/* A record type from a later version: keep it. */
		out_event(ag, ev);
		break;
	}
}

static void handle_events(struct aggregator *ag,
			  unsigned idx, const struct dc_frame *f)
{
	struct input *in = &ag->inputs[idx];
	struct dc_event *ev = (struct dc_event *)ag->rec;
	uint32_t pos = 0;

	while (pos < f->len) {
		const struct dc_event *src = (const void *)(f->data + pos);
		struct probe *pr;

		/* /proc's snapshots taken before this event ended apply to
		 * it; the others wait (fdtable.h). */
		if (in->snapshots != NULL)
			apply_snapshots(ag, idx, src->ts + src->dur);
		memcpy(ev, src, src->size);
		pos += src->size;
		pr = translate(in, ev);
		if (ev->type == DC_EV_KPATH) {
			kpath_keep(ag, in, ev);
			continue;
		}
		if (ev->type == DC_EV_CALL && in->kpaths.count > 0)
			kpath_name(ag, in, ev);
		stamp(ag, idx, ev);
		if (!hold_event(ag, idx, pr, ev))
			pass_event(ag, idx, pr, ev);
	}
}

/* ---- other frames ---- */

static void handle_string(struct aggregator *ag,
			  unsigned idx, const struct dc_frame *f)
{
	struct input *in = &ag->inputs[idx];
	uint32_t id;

	if (f->len < 4) {
		damaged(in, "string", f->offset);
		return;
	}
	memcpy(&id, f->data, 4);
	u64map_put(&in->strings, id,
		   intern(ag, (const char *)f->data + 4, f->len - 4, id));
}

/* The input's probe id (a u32) at p, rewritten as the output's; an id
 * no PROBE frame named stays. */
static void renumber_probe(const struct input *in, unsigned char *p)
{
	uint64_t *slot;
	uint32_t id;

	memcpy(&id, p, 4);
	slot = u64map_get(&in->probes, id);
	if (slot != NULL) {
		id = ((struct probe *)PTR(*slot))->id;
		memcpy(p, &id, 4);
	}
}

static void handle_drops(struct aggregator *ag,
			 unsigned idx, const struct dc_frame *f)
{
	struct input *in = &ag->inputs[idx];
	struct dc_drops_rec rec;
	unsigned char *copy;
	uint32_t i;

	if (f->len < sizeof(rec)) {
		damaged(in, "drops", f->offset);
		return;
	}
	memcpy(&rec, f->data, sizeof(rec));
	/* Every DROPS frame of a stream breaks down the same losses (per
	 * CPU, per probe): their totals are not added. */
	if (rec.total > in->drops_max)
		in->drops_max = rec.total;
	copy = xmalloc(f->len);
	memcpy(copy, f->data, f->len);
	if (rec.kind == DC_DROPS_PER_PROBE) {
		for (i = 0; i < rec.count; i++) {
			size_t at = sizeof(rec) + (size_t)i * sizeof(struct dc_drops_entry);

			if (at + sizeof(struct dc_drops_entry) > f->len)
				break;
			renumber_probe(in, copy + at);
		}
	}
	flush_events(ag);
	out_frame(ag, DC_FRAME_DROPS, copy, f->len);
	free(copy);
}

/* Counters of the collector's profile mode: probe ids and the interval
 * start move to the output's numbering and clock, as events do. */
static void handle_counters(struct aggregator *ag,
			    unsigned idx, const struct dc_frame *f)
{
	struct input *in = &ag->inputs[idx];
	struct dc_counters_rec rec;
	unsigned char *copy;
	uint32_t i;

	if (f->len < sizeof(rec)) {
		damaged(in, "counters", f->offset);
		return;
	}
	memcpy(&rec, f->data, sizeof(rec));
	if ((f->len - sizeof(rec)) / sizeof(struct dc_counter_entry) < rec.count) {
		damaged(in, "counters", f->offset);
		return;
	}
	copy = xmalloc(f->len);
	memcpy(copy, f->data, f->len);
	rec.start_mono_ns += (uint64_t)in->delta;
	memcpy(copy, &rec, sizeof(rec));
	for (i = 0; i < rec.count; i++) {
		size_t at = sizeof(rec) + (size_t)i * sizeof(struct dc_counter_entry) +
			    offsetof(struct dc_counter_entry, probe_id);

		renumber_probe(in, copy + at);
	}
	if (rec.start_mono_ns + rec.interval_ns > ag->last_ts)
		ag->last_ts = rec.start_mono_ns + rec.interval_ns;
	ag->counters_out += rec.count;
	flush_events(ag);
	out_frame(ag, DC_FRAME_COUNTERS, copy, f->len);
	free(copy);
}

static void handle_end(struct aggregator *ag,
		       unsigned idx, const struct dc_frame *f)
{
	struct input *in = &ag->inputs[idx];
	struct dc_end_rec rec;

	if (f->len < sizeof(rec)) {
		damaged(in, "end", f->offset);
		return;
	}
	memcpy(&rec, f->data, sizeof(rec));
	hold_release_input(ag, idx);
	in->saw_end = 1;
	in->end_dropped = rec.dropped;
	in->end_ts = rec.end_mono_ns + (uint64_t)in->delta;
	/* What upstream knew went wrong still went wrong. */
	ag->end_flags |= rec.flags;
}

/* Inputs of different hosts keep their processes apart (hosts.h). */
static void assign_hosts(struct aggregator *ag)
{
	struct dc_stream_info *infos = xcalloc(ag->n_inputs, sizeof(*infos));
	int *ok = xcalloc(ag->n_inputs, sizeof(*ok));
	unsigned i;

	ag->host_views = xcalloc(ag->n_inputs, sizeof(*ag->host_views));
	for (i = 0; i < ag->n_inputs; i++) {
		infos[i] = ag->inputs[i].info;
		ok[i] = ag->inputs[i].header_ok;
	}
	if (hosts_assign(ag->host_views, infos, ok, ag->n_inputs) > 1) {
		const char **paths = xcalloc(ag->n_inputs, sizeof(*paths));
		int64_t *delta = xcalloc(ag->n_inputs, sizeof(*delta));
		int64_t *fix = xcalloc(ag->n_inputs, sizeof(*fix));

		for (i = 0; i < ag->n_inputs; i++) {
			paths[i] = ag->inputs[i].name;
			delta[i] = ag->inputs[i].delta;
		}
		hosts_sync_mpi(ag->host_views, paths, delta, fix, ag->n_inputs);
		for (i = 0; i < ag->n_inputs; i++) {
			if (ag->host_views[i].synced == NULL)
				continue;
			ag->inputs[i].delta += fix[i];
			notice("%s (host %s): clock set by the end of %s: %+lld ns",
			       ag->inputs[i].name, ag->host_views[i].host,
			       ag->host_views[i].synced, (long long)fix[i]);
		}
		free(paths);
		free(delta);
		free(fix);
	}
	free(infos);
	free(ok);
}

void handle_frame(struct aggregator *ag, unsigned idx, const struct dc_frame *f)
{
	struct dc_frame moved;

	f = hosts_rewrite(&ag->host_views[idx], f, &moved);
	switch (f->type) {
	case DC_FRAME_EVENTS:
		handle_events(ag, idx, f);
		flush_events(ag);
		break;
	case DC_FRAME_STRING:
		handle_string(ag, idx, f);
		break;
	case DC_FRAME_PROBE:
		handle_probe(ag, &ag->inputs[idx], f);
		break;
	case DC_FRAME_PROCESS:
		handle_process(ag, idx, f);
		break;
	case DC_FRAME_DROPS:
		handle_drops(ag, idx, f);
		break;
	case DC_FRAME_END:
		handle_end(ag, idx, f);
		break;
	case DC_FRAME_FDS:
		handle_fds(ag, idx, f);
		break;
	case DC_FRAME_COUNTERS:
		handle_counters(ag, idx, f);
		break;
	default:
		/* SYSINFO, FILE, and types from later versions pass as they
		 * are. */
		flush_events(ag);
		out_frame(ag, f->type, f->data, f->len);
		break;
	}
}

/* The worse of two exit statuses: a system error above all. */
static int worse(int status, int s)
{
	if (s == DC_EXIT_FAILURE || (s > status && status != DC_EXIT_FAILURE))
		return s;
	return status;
}

/* Headers first, in order: the index of the first good one, which heads
 * the output, or -1.  *live: an input is not a regular file. */
static int read_headers(struct aggregator *ag, int *live)
{
	int first = -1;
	unsigned i;

	for (i = 0; i < ag->n_inputs; i++) {
		struct input *in = &ag->inputs[i];
		int st = dc_reader_header(in->r, &in->info);
		struct stat sb;

		if (st != DC_READ_FRAME) {
			in->status = st;
			snprintf(in->err, sizeof(in->err), "%s",
				 dc_reader_error(in->r));
			continue;
		}
		in->header_ok = 1;
		in->has_ids = (in->info.flags & DC_STREAM_F_IDS) != 0;
		calltree_init(&in->tree);
		if (first < 0)
			first = (int)i;
		if (fstat(in->fd, &sb) != 0 || !S_ISREG(sb.st_mode))
			*live = 1;
	}
	return first;
}

static void open_output(struct aggregator *ag,
			const struct dc_stream_info *first)
{
	struct dc_stream_info out_info = *first;
	unsigned i;

	out_info.flags |= DC_STREAM_F_IDS;
	ag->profile_base = out_info.start_mono_ns;
	for (i = 0; i < ag->n_inputs; i++)
		if (ag->inputs[i].header_ok)
			ag->inputs[i].delta = ag->inputs[i].info.clock_offset_ns -
					      out_info.clock_offset_ns;
	assign_hosts(ag);

	ag->batch = xmalloc(OUT_BATCH + REC_MAX);
	if (ag->opt_text) {
		text_header(stdout, &out_info);
	} else {
		ag->writer = dc_writer_open(ag->out_fd, &out_info);
		if (ag->writer == NULL)
			sysdie("cannot write standard output");
	}
}

/* The END frame: the events written, the inputs' losses and how each
 * ended; returns the exit status. */
static int write_end(struct aggregator *ag, uint64_t *dropped_out)
{
	struct dc_end_rec end;
	int status = DC_EXIT_OK;
	uint64_t dropped = 0;
	unsigned i;

	memset(&end, 0, sizeof(end));
	for (i = 0; i < ag->n_inputs; i++) {
		struct input *in = &ag->inputs[i];
		int s = dc_read_exit_status(in->status);

		/* An input's losses: its END frame's count, or for an input
		 * cut short, the most its DROPS frames reported. */
		dropped += in->saw_end ? in->end_dropped : in->drops_max;
		if (in->end_ts > end.end_mono_ns)
			end.end_mono_ns = in->end_ts;
		if (in->damaged) {
			end.flags |= DC_END_INPUT_CORRUPT;
			status = worse(status, DC_EXIT_BADINPUT);
		}
		if (s == DC_EXIT_OK)
			continue;
		warn("%s", in->err);
		if (s == DC_EXIT_TRUNCATED)
			end.flags |= DC_END_INPUT_TRUNCATED;
		else if (s == DC_EXIT_BADINPUT)
			end.flags |= DC_END_INPUT_CORRUPT;
		status = worse(status, s);
	}
	/* An input cut short has no END frame. */
	for (i = 0; i < ag->n_inputs; i++)
		hold_release_input(ag, i);
	flush_events(ag);
	end.events = ag->events_out;
	end.dropped = dropped;
	end.flags |= ag->end_flags;
	if (end.end_mono_ns < ag->last_ts)
		end.end_mono_ns = ag->last_ts;
	out_frame(ag, DC_FRAME_END, &end, sizeof(end));
	if (ag->opt_text) {
		xfclose_stdout();
	} else {
		int failed = dc_writer_close(ag->writer) != 0;

		ag->writer = NULL;
		if (failed)
			sysdie("cannot write standard output");
	}
	*dropped_out = dropped;
	return status;
}

/* What the call trees and the file names could not do, one line each. */
static void report_gaps(struct aggregator *ag)
{
	unsigned i;

	if (ag->cwd_missed_paths > 0)
		warn("%" PRIu64 " relative paths of %u processes kept as written: "
		     "no working directory known for them (the collector "
		     "found none in /proc: they had exited before it read it)",
		     ag->cwd_missed_paths, ag->cwd_missed_procs);

	for (i = 0; i < ag->n_inputs; i++) {
		struct calltree *ct = &ag->inputs[i].tree;

		if (ct->orphans > 0)
			warn("%s: %" PRIu64 " events with no known parent "
			     "(flagged orphan)", ag->inputs[i].name, ct->orphans);
		if (ct->lost_calls > 0)
			warn("%s: %" PRIu64 " calls named as parents never "
			     "returned (lost upstream)", ag->inputs[i].name,
			     ct->lost_calls);
		if (calltree_open(ct) > 0)
			warn("%s: %zu calls still open at the end, named as "
			     "parents by events written", ag->inputs[i].name,
			     calltree_open(ct));
	}
}

/* No input had a header: nothing to write, not even a header. */
static int no_header(struct aggregator *ag)
{
	int status = DC_EXIT_OK;
	unsigned i;

	for (i = 0; i < ag->n_inputs; i++)
		warn("%s", ag->inputs[i].err);
	for (i = 0; i < ag->n_inputs; i++)
		status = worse(status, dc_read_exit_status(ag->inputs[i].status));
	return status;
}

/* ---- a run ---- */

void aggregator_init(struct aggregator *ag, int out_fd)
{
	memset(ag, 0, sizeof(*ag));
	ag->out_fd = out_fd;
	ag->next_string_id = 1;
	ag->rec = xmalloc(REC_MAX);
	pthread_mutex_init(&ag->queue_lock, NULL);
	pthread_cond_init(&ag->queue_filled, NULL);
	pthread_cond_init(&ag->queue_drained, NULL);
}

void aggregator_add_input(struct aggregator *ag, const char *name, int fd)
{
	struct input *in;

	ag->inputs = xrealloc(ag->inputs, (ag->n_inputs + 1) * sizeof(*in));
	in = &ag->inputs[ag->n_inputs++];
	memset(in, 0, sizeof(*in));
	in->name = name;
	in->fd = fd;
	in->r = dc_reader_open(fd, name);
	if (in->r == NULL)
		sysdie("cannot read %s", name);
}

int aggregate(struct aggregator *ag)
{
	int first, status, live = 0;
	uint64_t dropped;

	first = read_headers(ag, &live);
	if (first < 0)
		return no_header(ag);
	open_output(ag, &ag->inputs[first].info);

	/* Files are merged in time order, so the output does not depend on
	 * timing; live inputs (pipes) all at once, so that no writer blocks
	 * while another input is read. */
	if (live && ag->n_inputs > 1)
		read_threaded(ag);
	else
		read_in_turn(ag);

	profile_write(ag);
	status = write_end(ag, &dropped);
	report_gaps(ag);
	debug("%" PRIu64 " events and %" PRIu64 " counter entries written, %"
	      PRIu64 " dropped upstream", ag->events_out, ag->counters_out,
	      dropped);
	return status;
}

static void free_probe(void *probe)
{
	struct probe *p = probe;

	free(p->frame);
	free(p);
}

static void input_free(struct input *in)
{
	dc_reader_close(in->r);
	u64map_free(&in->probes);  /* the probes are the output's */
	u64map_free(&in->strings);
	calltree_free(&in->tree);
	snap_free_all(&in->snapshots);
	u64map_free(&in->kpaths);
	u64map_free(&in->kpaths2);
}

void aggregator_free(struct aggregator *ag)
{
	size_t i;

	for (i = 0; i < ag->n_inputs; i++)
		input_free(&ag->inputs[i]);
	for (i = 0; ag->host_views != NULL && i < ag->n_inputs; i++)
		hosts_free(&ag->host_views[i]);
	free(ag->host_views);
	free(ag->inputs);
	procs_free(ag);
	u64map_free_ptrs(&ag->out_probes, free_probe);
	u64map_free(&ag->probe_index);
	u64map_free_ptrs(&ag->string_vals, free);
	u64map_free(&ag->string_index);
	u64map_free_ptrs(&ag->text_strings, free);
	profile_free(ag);
	if (ag->writer != NULL)
		dc_writer_close(ag->writer);
	free(ag->batch);
	free(ag->rec);
	pthread_mutex_destroy(&ag->queue_lock);
	pthread_cond_destroy(&ag->queue_filled);
	pthread_cond_destroy(&ag->queue_drained);
	memset(ag, 0, sizeof(*ag));
}

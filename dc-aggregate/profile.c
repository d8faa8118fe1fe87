/*
 * profile.c - dc-aggregate --profile: calls and instants summed per
 * interval, process and probe, written at the end as COUNTERS frames,
 * as the collector's profile mode would have (aggregate.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "bytes.h"
#include "messages.h"

/* ---- --profile: counters from calls ---- */

/* Interval k covers [profile_base + k * opt_profile, ... + opt_profile):
 * intervals start where the output stream started. */
struct interval {
	int64_t k;
	struct u64map index;          /* pid << 32 | probe -> entry + 1 */
	struct dc_counter_entry *entries;
	size_t n, cap;
};

/* The bytes a call moved, or an instant of the kernel's says moved (a
 * socket message, an io_uring completion that read or wrote): the
 * trace's "bytes", by the writer's rule (dc-write/callargs.c), so that
 * a profile's counters add up to what dc-write --summary finds in the
 * trace of the same events. */
static uint64_t event_bytes(const struct probe *pr, const struct dc_event *ev)
{
	struct dc_bytes b;
	unsigned n;

	if (pr == NULL || (ev->type != DC_EV_CALL && ev->type != DC_EV_INSTANT))
		return 0;
	n = ev->nargs < pr->nargs ? ev->nargs : pr->nargs;
	dc_bytes_of(pr->arg_kinds, n, pr->ret_kind, DC_EVENT_ARGS(ev),
		    ev->ret, ev->flags, &b);
	dc_bytes_kernel(pr->arg_kinds, n, pr->ret_kind, DC_EVENT_ARGS(ev), &b);
	return b.done > 0 ? (uint64_t)b.done : 0;
}

/* Count a finished call (or an instant) in the interval it ended in. */
void profile_event(struct aggregator *ag, const struct dc_event *ev)
{
	const struct probe *pr = probe_of(ag, ev->probe_id);
	uint64_t end = ev->ts + ev->dur, key, *slot;
	int64_t off = (int64_t)(end - ag->profile_base), len = (int64_t)ag->opt_profile;
	int64_t k = off >= 0 ? off / len : -((-off + len - 1) / len);
	uint8_t ret_kind = pr ? pr->ret_kind : DC_RET_NONE;
	struct dc_counter_entry *e;
	struct interval *iv;

	if (end > ag->last_ts)
		ag->last_ts = end;
	slot = u64map_get(&ag->intervals, (uint64_t)k);
	if (slot != NULL) {
		iv = PTR(*slot);
	} else {
		iv = xcalloc(1, sizeof(*iv));
		iv->k = k;
		u64map_put(&ag->intervals, (uint64_t)k, VAL(iv));
	}
	key = ((uint64_t)ev->pid << 32) | ev->probe_id;
	slot = u64map_get(&iv->index, key);
	if (slot != NULL) {
		e = &iv->entries[*slot - 1];
	} else {
		if (iv->n == iv->cap) {
			iv->cap = iv->cap ? 2 * iv->cap : 16;
			iv->entries = xrealloc(iv->entries,
					       iv->cap * sizeof(*iv->entries));
		}
		e = &iv->entries[iv->n++];
		memset(e, 0, sizeof(*e));
		e->pid = ev->pid;
		e->probe_id = ev->probe_id;
		u64map_put(&iv->index, key, iv->n);
	}
	e->calls++;
	/* A call whose exit never came has no duration or result. */
	if (ev->flags & DC_EVF_UNWOUND)
		return;
	e->dur_ns += ev->dur;
	e->bytes += event_bytes(pr, ev);
	if (dc_call_failed(ret_kind, ev->ret))
		e->errors++;
}

static int by_k(const void *a, const void *b)
{
	const struct interval *x = *(struct interval *const *)a;
	const struct interval *y = *(struct interval *const *)b;

	return x->k < y->k ? -1 : x->k > y->k;
}

static int by_pid_probe(const void *a, const void *b)
{
	const struct dc_counter_entry *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->probe_id < y->probe_id ? -1 : x->probe_id > y->probe_id;
}

/* Write every interval, oldest first, entries by pid and probe. */
static void free_interval(void *interval)
{
	struct interval *iv = interval;

	u64map_free(&iv->index);
	free(iv->entries);
	free(iv);
}

void profile_write(struct aggregator *ag)
{
	enum { PER_FRAME = 65536 }; /* entries: well under DC_FRAME_MAX */
	struct interval **all;
	unsigned char *frame;
	size_t n = 0, i, j;

	if (ag->intervals.count == 0)
		return;
	all = xmalloc(ag->intervals.count * sizeof(*all));
	for (i = 0; i < ag->intervals.cap; i++)
		if (ag->intervals.used[i])
			all[n++] = PTR(ag->intervals.vals[i]);
	qsort(all, n, sizeof(*all), by_k);
	frame = xmalloc(sizeof(struct dc_counters_rec) +
			PER_FRAME * sizeof(struct dc_counter_entry));
	flush_events(ag);
	for (i = 0; i < n; i++) {
		struct interval *iv = all[i];

		qsort(iv->entries, iv->n, sizeof(*iv->entries), by_pid_probe);
		for (j = 0; j < iv->n; j += PER_FRAME) {
			struct dc_counters_rec rec;
			size_t count = iv->n - j < PER_FRAME ? iv->n - j : PER_FRAME;

			memset(&rec, 0, sizeof(rec));
			rec.start_mono_ns = ag->profile_base +
					    (uint64_t)(iv->k * (int64_t)ag->opt_profile);
			rec.interval_ns = ag->opt_profile;
			rec.count = (uint32_t)count;
			memcpy(frame, &rec, sizeof(rec));
			memcpy(frame + sizeof(rec), iv->entries + j,
			       count * sizeof(*iv->entries));
			out_frame(ag, DC_FRAME_COUNTERS, frame, (uint32_t)(sizeof(rec) +
				  count * sizeof(*iv->entries)));
			ag->counters_out += count;
		}
		free_interval(iv);
	}
	free(frame);
	free(all);
	u64map_free(&ag->intervals);
}

void profile_free(struct aggregator *ag)
{
	u64map_free_ptrs(&ag->intervals, free_interval);
}

/* --profile's INTERVAL: a whole number with ns, us, ms or s (the
 * default); 0 if it is not one. */
uint64_t parse_interval(const char *s)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 }, { "", 1000000000 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return 0;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].suffix) == 0) {
			/* Interval arithmetic is signed: stay below 2^62. */
			if (v == 0 || v > (1ULL << 62) / units[i].ns)
				return 0;
			return v * units[i].ns;
		}
	return 0;
}

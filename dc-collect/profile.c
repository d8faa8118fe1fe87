/*
 * profile.c - profile mode's user-space half.
 *
 * The kernel keeps cumulative sums per (process, probe) in a per-CPU hash
 * and never resets them: resetting would race with the programs adding to
 * them.  Every interval this walks the map, sums the CPUs, and reports the
 * difference from what it reported last time, so every call is counted in
 * exactly one interval.  Entries of exited processes are deleted after
 * their final interval, so the map holds live processes only.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "event.h"
#include "collect.h"
#include "messages.h"
#include "profile.h"
#include "stream.h"
#include "u64map.h"

struct dc_profiler {
	int map_fd;
	int ncpu;
	struct dc_profile_value *percpu;
	/* pid << 32 | probe id -> struct dc_profile_value *: what was
	 * reported so far (lib/u64map.h: every pid is a key) */
	struct u64map last;
	uint32_t *exited;             /* pids to forget after this interval */
	size_t nexited, exited_cap;
	unsigned char *buf;
	size_t buf_cap;
};

static uint64_t pack(const struct dc_profile_key *k)
{
	return ((uint64_t)k->pid << 32) | k->probe_id;
}

struct dc_profiler *dc_profiler_new(int map_fd)
{
	struct dc_profiler *p = xcalloc(1, sizeof(*p));

	p->map_fd = map_fd;
	p->ncpu = libbpf_num_possible_cpus();
	if (p->ncpu < 1)
		p->ncpu = 1;
	p->percpu = xcalloc((size_t)p->ncpu, sizeof(*p->percpu));
	return p;
}

static void append(struct dc_profiler *p, size_t *pos, const void *data,
		   size_t len)
{
	if (*pos + len > p->buf_cap) {
		p->buf_cap = p->buf_cap ? 2 * p->buf_cap : 65536;
		while (*pos + len > p->buf_cap)
			p->buf_cap *= 2;
		p->buf = xrealloc(p->buf, p->buf_cap);
	}
	memcpy(p->buf + *pos, data, len);
	*pos += len;
}

static void forget(struct dc_profiler *p, uint32_t pid)
{
	struct dc_profile_key key, next;
	int more;

	/* Delete from the kernel map... */
	for (more = bpf_map_get_next_key(p->map_fd, NULL, &next) == 0; more;) {
		key = next;
		more = bpf_map_get_next_key(p->map_fd, &key, &next) == 0;
		if (key.pid == pid)
			bpf_map_delete_elem(p->map_fd, &key);
	}
	/* ...and from what was reported. */
	{
		uint64_t *gone = xmalloc((p->last.count + 1) * sizeof(uint64_t));
		size_t i, n = 0;

		for (i = 0; i < p->last.cap; i++)
			if (p->last.used[i] && (uint32_t)(p->last.keys[i] >> 32) == pid)
				gone[n++] = p->last.keys[i];
		for (i = 0; i < n; i++) {
			free((void *)(uintptr_t)*u64map_get(&p->last, gone[i]));
			u64map_del(&p->last, gone[i]);
		}
		free(gone);
	}
}

const unsigned char *dc_profiler_take(struct dc_profiler *p, uint64_t start_ns,
				      uint64_t interval_ns, size_t *len)
{
	struct dc_counters_rec rec;
	struct dc_profile_key key, next;
	size_t pos = sizeof(rec), i;
	int more, cpu;

	memset(&rec, 0, sizeof(rec));
	rec.start_mono_ns = start_ns;
	rec.interval_ns = interval_ns;
	for (more = bpf_map_get_next_key(p->map_fd, NULL, &next) == 0; more;) {
		struct dc_profile_value sum;
		struct dc_counter_entry e;
		struct dc_profile_value *last;
		uint64_t *slot;
		int added;

		key = next;
		more = bpf_map_get_next_key(p->map_fd, &key, &next) == 0;
		if (bpf_map_lookup_elem(p->map_fd, &key, p->percpu) != 0)
			continue;
		memset(&sum, 0, sizeof(sum));
		for (cpu = 0; cpu < p->ncpu; cpu++) {
			sum.calls += p->percpu[cpu].calls;
			sum.dur_ns += p->percpu[cpu].dur_ns;
			sum.bytes += p->percpu[cpu].bytes;
			sum.errors += p->percpu[cpu].errors;
		}
		slot = u64map_insert(&p->last, pack(&key), &added);
		if (added)
			*slot = (uint64_t)(uintptr_t)xcalloc(1, sizeof(*last));
		last = (struct dc_profile_value *)(uintptr_t)*slot;
		if (sum.calls == last->calls)
			continue;
		memset(&e, 0, sizeof(e));
		e.pid = key.pid;
		e.probe_id = key.probe_id;
		e.calls = sum.calls - last->calls;
		e.dur_ns = sum.dur_ns - last->dur_ns;
		e.bytes = sum.bytes - last->bytes;
		e.errors = sum.errors - last->errors;
		*last = sum;
		append(p, &pos, &e, sizeof(e));
		rec.count++;
	}
	for (i = 0; i < p->nexited; i++)
		forget(p, p->exited[i]);
	p->nexited = 0;
	if (rec.count == 0) {
		*len = 0;
		return NULL;
	}
	memcpy(p->buf, &rec, sizeof(rec));
	*len = pos;
	return p->buf;
}

void dc_profiler_exited(struct dc_profiler *p, uint32_t pid)
{
	if (p->nexited == p->exited_cap) {
		p->exited_cap = p->exited_cap ? 2 * p->exited_cap : 64;
		p->exited = xrealloc(p->exited, p->exited_cap * sizeof(uint32_t));
	}
	p->exited[p->nexited++] = pid;
}

void dc_profiler_free(struct dc_profiler *p)
{
	size_t i;

	if (p == NULL)
		return;
	free(p->percpu);
	for (i = 0; i < p->last.cap; i++)
		if (p->last.used[i])
			free((void *)(uintptr_t)p->last.vals[i]);
	u64map_free(&p->last);
	free(p->exited);
	free(p->buf);
	free(p);
}

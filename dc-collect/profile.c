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

struct seen {
	uint64_t key;                 /* pid << 32 | probe id; 0: empty */
	struct dc_profile_value last; /* what was reported so far */
};

struct dc_profiler {
	int map_fd;
	int ncpu;
	struct dc_profile_value *percpu;
	struct seen *table;           /* open addressing, power of two */
	size_t cap, used;
	uint32_t *exited;             /* pids to forget after this interval */
	size_t nexited, exited_cap;
	unsigned char *buf;
	size_t buf_cap;
};

static uint64_t pack(const struct dc_profile_key *k)
{
	/* pid 0 never runs user code, so the packed key is never 0. */
	return ((uint64_t)k->pid << 32) | k->probe_id;
}

static struct seen *slot(struct dc_profiler *p, uint64_t key, int insert)
{
	size_t mask = p->cap - 1, i = (size_t)(key * 0x9E3779B97F4A7C15ULL) & mask;

	while (p->table[i].key != 0 && p->table[i].key != key)
		i = (i + 1) & mask;
	if (p->table[i].key == 0 && !insert)
		return NULL;
	return &p->table[i];
}

static void grow(struct dc_profiler *p)
{
	struct seen *old = p->table;
	size_t n = p->cap, i;

	p->cap = n ? 2 * n : 1024;
	p->table = xcalloc(p->cap, sizeof(*p->table));
	p->used = 0;
	for (i = 0; i < n; i++)
		if (old[i].key != 0) {
			*slot(p, old[i].key, 1) = old[i];
			p->used++;
		}
	free(old);
}

struct dc_profiler *dc_profiler_new(int map_fd)
{
	struct dc_profiler *p = xcalloc(1, sizeof(*p));

	p->map_fd = map_fd;
	p->ncpu = libbpf_num_possible_cpus();
	if (p->ncpu < 1)
		p->ncpu = 1;
	p->percpu = xcalloc((size_t)p->ncpu, sizeof(*p->percpu));
	grow(p);
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
	/* ...and rebuild our table without it. */
	{
		struct seen *old = p->table;
		size_t n = p->cap, i;

		p->table = xcalloc(p->cap, sizeof(*p->table));
		p->used = 0;
		for (i = 0; i < n; i++)
			if (old[i].key != 0 && (uint32_t)(old[i].key >> 32) != pid) {
				*slot(p, old[i].key, 1) = old[i];
				p->used++;
			}
		free(old);
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
		struct seen *s;

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
		if (2 * (p->used + 1) > p->cap)
			grow(p);
		s = slot(p, pack(&key), 1);
		if (s->key == 0) {
			s->key = pack(&key);
			p->used++;
		}
		if (sum.calls == s->last.calls)
			continue;
		memset(&e, 0, sizeof(e));
		e.pid = key.pid;
		e.probe_id = key.probe_id;
		e.calls = sum.calls - s->last.calls;
		e.dur_ns = sum.dur_ns - s->last.dur_ns;
		e.bytes = sum.bytes - s->last.bytes;
		e.errors = sum.errors - s->last.errors;
		s->last = sum;
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
	if (p == NULL)
		return;
	free(p->percpu);
	free(p->table);
	free(p->exited);
	free(p->buf);
	free(p);
}

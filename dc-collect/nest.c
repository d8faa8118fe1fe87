/*
 * nest.c - the client's records under uprobe-traced calls (nest.h).
 *
 * The calls are few at a time (the uprobe calls open on each thread, and
 * those that ended in the last drain), so a plain array scanned per
 * client record; with none, a client record costs one test.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "messages.h"
#include "nest.h"

struct dc_nest_call {
	uint32_t pid, tid;
	uint64_t seq;          /* the kernel's seq of the call */
	uint64_t parent;       /* its parent: what the client had open */
	uint64_t start, end;   /* end 0: still open */
	uint32_t level;        /* the call's level */
	uint32_t cdepth;       /* the client's open calls when it began */
	uint64_t ended_in;     /* the drain that saw its end */
};

/* A BPF ring buffer's first page holds the reader's position, its second
 * the writers' (read-only to us; libbpf has its own mapping of both). */
void dc_nest_watch(struct dc_nest *nt, int ring_fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	if (nt->pos != NULL)
		return;
	p = mmap(NULL, 2 * page, PROT_READ, MAP_SHARED, ring_fd, 0);
	if (p == MAP_FAILED)
		sysdie("cannot map the ring buffer's positions");
	nt->pos = p;
	nt->pos_len = 2 * page;
}

static uint64_t ring_pos(const struct dc_nest *nt, size_t page)
{
	const uint64_t *p = (const uint64_t *)((const char *)nt->pos +
					       page * (nt->pos_len / 2));

	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

uint64_t dc_nest_produced(const struct dc_nest *nt)
{
	return nt->pos ? ring_pos(nt, 1) : 0;
}

bool dc_nest_behind(const struct dc_nest *nt, uint64_t pos)
{
	return nt->pos != NULL && ring_pos(nt, 0) < pos;
}

void dc_nest_enter(struct dc_nest *nt, const struct dc_event *mark)
{
	struct dc_nest_call *c;

	if (nt->n == nt->cap) {
		nt->cap = nt->cap ? 2 * nt->cap : 16;
		nt->calls = xrealloc(nt->calls, nt->cap * sizeof(*nt->calls));
	}
	c = &nt->calls[nt->n++];
	memset(c, 0, sizeof(*c));
	c->pid = mark->pid;
	c->tid = mark->tid;
	c->seq = mark->seq;
	c->parent = mark->parent;
	c->start = mark->ts;
	c->level = mark->depth;
	c->cdepth = (uint32_t)mark->ret;
}

/* A call ends, and with it any call of its thread that began inside it
 * and is still open: its return was never seen (a longjmp out of it),
 * and the kernel's stack let go of it when this one returned. */
void dc_nest_call(struct dc_nest *nt, const struct dc_event *ev)
{
	const struct dc_nest_call *ended = NULL;
	uint64_t end = ev->ts + ev->dur;

	for (size_t i = nt->n; i-- > 0;) {
		const struct dc_nest_call *c = &nt->calls[i];

		if (c->tid == ev->tid && c->seq == ev->seq && c->end == 0 &&
		    c->pid == ev->pid) {
			ended = c;
			break;
		}
	}
	if (ended == NULL)
		return;
	for (size_t i = 0; i < nt->n; i++) {
		struct dc_nest_call *c = &nt->calls[i];

		if (c->tid == ended->tid && c->pid == ended->pid &&
		    c->end == 0 && c->seq >= ended->seq) {
			c->end = end;
			c->ended_in = nt->drains;
		}
	}
}

void dc_nest_client(struct dc_nest *nt, struct dc_event *ev)
{
	const struct dc_nest_call *in = NULL;
	uint64_t end = ev->ts + ev->dur;

	if (nt->n == 0)
		return;
	/* The innermost call of the thread around the record: the one
	 * that began last. */
	for (size_t i = 0; i < nt->n; i++) {
		const struct dc_nest_call *c = &nt->calls[i];

		if (c->tid != ev->tid || c->pid != ev->pid || c->start >= ev->ts ||
		    (c->end != 0 && end > c->end))
			continue;
		if (in == NULL || c->start > in->start)
			in = c;
	}
	/* Fewer client calls open than when the call began: not inside. */
	if (in == NULL || ev->depth < in->cdepth)
		return;
	if (ev->depth == in->cdepth)
		ev->parent = in->seq;
	ev->depth = (uint16_t)(in->level + 1 + (ev->depth - in->cdepth));
}

void dc_nest_drained(struct dc_nest *nt)
{
	size_t i, j;

	for (i = j = 0; i < nt->n; i++)
		if (nt->calls[i].end == 0 || nt->calls[i].ended_in == nt->drains)
			nt->calls[j++] = nt->calls[i];
	nt->n = j;
	nt->drains++;
}

void dc_nest_forget(struct dc_nest *nt, uint32_t pid)
{
	for (size_t i = 0; i < nt->n; i++)
		if (nt->calls[i].pid == pid && nt->calls[i].end == 0) {
			nt->calls[i].end = UINT64_MAX; /* whatever is left */
			nt->calls[i].ended_in = nt->drains;
		}
}

void dc_nest_free(struct dc_nest *nt)
{
	if (nt->pos != NULL)
		munmap(nt->pos, nt->pos_len);
	free(nt->calls);
	memset(nt, 0, sizeof(*nt));
}

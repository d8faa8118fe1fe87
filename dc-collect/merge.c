/*
 * merge.c - one stream order for the kernel's and the clients' records.
 *
 * On the uprobe path every record comes out of the kernel's ring in the
 * order calls end: a system call before the library call that made it, a
 * close() after the write() before it.  Readers rely on that: dc-aggregate
 * names a call's file from the descriptor table as the stream has built
 * it so far.  Client records come from other rings, so each drain merges:
 * client records (read up to the heads taken at time `upto`, each ring
 * already in end order per thread) go in before the first kernel record
 * that ended after them.  Records of either side that ended after `upto`
 * wait for the next drain: a kernel record, for the client records that
 * end before it, which may not be in the rings yet; a client record
 * written between `upto` and the heads, for the kernel records that end
 * before it and wait (a system call made inside it).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "messages.h"

static uint64_t end_of(const struct dc_event *ev)
{
	return ev->type == DC_EV_CALL ? ev->ts + ev->dur : ev->ts;
}

static void push(unsigned char **buf, size_t *len, size_t *cap,
		 const struct dc_event *ev)
{
	if (*len + ev->size > *cap) {
		*cap = (*len + ev->size) * 2 + 65536;
		*buf = xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, ev, ev->size);
	*len += ev->size;
}

void dc_merge_kernel(struct dc_merge *m, const struct dc_event *ev)
{
	push(&m->kq, &m->klen, &m->kcap, ev);
}

void dc_merge_client(struct dc_merge *m, const struct dc_event *ev)
{
	push(&m->fq, &m->flen, &m->fcap, ev);
}

static const unsigned char *sort_base;

/* By end time; equal ends keep their ring order (offsets ascend). */
static int by_end(const void *a, const void *b)
{
	size_t oa = *(const size_t *)a, ob = *(const size_t *)b;
	uint64_t ea = end_of((const struct dc_event *)(sort_base + oa));
	uint64_t eb = end_of((const struct dc_event *)(sort_base + ob));

	if (ea != eb)
		return ea < eb ? -1 : 1;
	return oa < ob ? -1 : oa > ob;
}

/* The client records idx[from..n) (by end) wait for the next run: moved
 * to the front of the queue, in that order. */
static void keep_clients(struct dc_merge *m, size_t from, size_t n)
{
	unsigned char *keep;
	size_t len = 0, cap = 0;

	if (from == n) {
		m->flen = 0;
		return;
	}
	keep = NULL;
	for (size_t i = from; i < n; i++)
		push(&keep, &len, &cap, (const struct dc_event *)(m->fq + m->idx[i]));
	memcpy(m->fq, keep, len);
	m->flen = len;
	free(keep);
}

void dc_merge_run(struct dc_merge *m, uint64_t upto, bool final,
		  dc_merge_emit emit, void *ctx)
{
	size_t n = 0, i = 0, off, koff = 0;

	m->running = true;
	for (off = 0; off < m->flen; off += ((struct dc_event *)(m->fq + off))->size) {
		if (n == m->icap) {
			m->icap = m->icap ? 2 * m->icap : 1024;
			m->idx = xrealloc(m->idx, m->icap * sizeof(size_t));
		}
		m->idx[n++] = off;
	}
	sort_base = m->fq;
	if (n > 1) /* qsort(NULL, 0) is undefined (UBSan) */
		qsort(m->idx, n, sizeof(size_t), by_end);
	while (koff < m->klen) {
		const struct dc_event *k = (const struct dc_event *)(m->kq + koff);
		uint64_t e = end_of(k);

		if (!final && e > upto)
			break;
		for (; i < n; i++) {
			const struct dc_event *f =
				(const struct dc_event *)(m->fq + m->idx[i]);

			if (end_of(f) > e)
				break;
			emit(ctx, f, false);
		}
		emit(ctx, k, true);
		koff += k->size;
	}
	for (; i < n; i++) {
		const struct dc_event *f =
			(const struct dc_event *)(m->fq + m->idx[i]);

		if (!final && end_of(f) > upto)
			break;
		emit(ctx, f, false);
	}
	keep_clients(m, i, n);
	memmove(m->kq, m->kq + koff, m->klen - koff);
	m->klen -= koff;
	m->running = false;
}

void dc_merge_free(struct dc_merge *m)
{
	free(m->kq);
	free(m->fq);
	free(m->idx);
	memset(m, 0, sizeof(*m));
}

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
 * before it and wait (a system call made inside it).  The kernel's
 * per-CPU batches of kernel-layer records (common.bpf.h) are out of the
 * ring's order too: their records join the clients' side, and `upto` is
 * no later than the time the drain had every CPU send its batch.
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

/* Where size more bytes go at the end of buf. */
static unsigned char *room(unsigned char **buf, size_t len, size_t *cap,
			   size_t size)
{
	if (len + size > *cap) {
		*cap = (len + size) * 2 + 65536;
		*buf = xrealloc(*buf, *cap);
	}
	return *buf + len;
}

static void push(unsigned char **buf, size_t *len, size_t *cap,
		 const struct dc_event *ev)
{
	memcpy(room(buf, *len, cap, ev->size), ev, ev->size);
	*len += ev->size;
}

void dc_merge_kernel(struct dc_merge *m, const struct dc_event *ev,
		     bool soon)
{
	push(&m->kq, &m->klen, &m->kcap, ev);
	if (soon)
		m->ksoon = m->klen;
}

/* Kernel records leave kq from its front, so one offset, moved with
 * them, says whether any that wants out soon is left: no scan. */
bool dc_merge_soon(const struct dc_merge *m)
{
	return m->ksoon > 0;
}

void dc_merge_client(struct dc_merge *m, const struct dc_event *ev)
{
	push(&m->fq, &m->flen, &m->fcap, ev);
}

struct dc_event *dc_merge_client_room(struct dc_merge *m, size_t size)
{
	return (struct dc_event *)room(&m->fq, m->flen, &m->fcap, size);
}

void dc_merge_client_add(struct dc_merge *m)
{
	m->flen += ((const struct dc_event *)(m->fq + m->flen))->size;
}

/* The end of the run of idx entries in end order that begins at from. */
static size_t run_end(const struct dc_merge_ref *a, size_t from, size_t n)
{
	while (++from < n && a[from - 1].end <= a[from].end)
		;
	return from;
}

/* One pass of a natural merge sort: each two adjacent runs of src merged
 * into one in dst, the left run's entry first at equal ends; returns the
 * runs dst has. */
static size_t merge_pass(const struct dc_merge_ref *src,
			 struct dc_merge_ref *dst, size_t n)
{
	size_t runs = 0, lo = 0;

	while (lo < n) {
		size_t mid = run_end(src, lo, n);
		size_t hi = mid < n ? run_end(src, mid, n) : n;
		size_t i = lo, j = mid, k = lo;

		while (i < mid && j < hi)
			dst[k++] = src[j].end < src[i].end ? src[j++] : src[i++];
		memcpy(dst + k, src + i, (mid - i) * sizeof(*src));
		k += mid - i;
		memcpy(dst + k, src + j, (hi - j) * sizeof(*src));
		lo = hi;
		runs++;
	}
	return runs;
}

/* Index the client records by end time, equal ends in their queue order
 * (offsets ascend); returns how many there are.  Each ring's records of
 * one drain come in end order, and so do those kept from the last run:
 * the queue is a few runs (one when a single thread writes), merged in
 * place of a full sort, and not at all when it is one. */
static size_t sort_clients(struct dc_merge *m)
{
	struct dc_merge_ref *a, *b;
	size_t n = 0;

	for (size_t off = 0; off < m->flen;
	     off += ((const struct dc_event *)(m->fq + off))->size) {
		if (n == m->icap) {
			m->icap = m->icap ? 2 * m->icap : 1024;
			m->idx = xrealloc(m->idx, m->icap * sizeof(*m->idx));
			m->tmp = xrealloc(m->tmp, m->icap * sizeof(*m->tmp));
		}
		m->idx[n].end = end_of((const struct dc_event *)(m->fq + off));
		m->idx[n++].off = off;
	}
	if (run_end(m->idx, 0, n) >= n)
		return n;
	a = m->idx;
	b = m->tmp;
	for (;;) {
		size_t runs = merge_pass(a, b, n);

		a = b;
		b = a == m->idx ? m->tmp : m->idx;
		if (runs == 1)
			break;
	}
	m->tmp = b;
	m->idx = a;
	return n;
}

/* The client records idx[from..n) (by end) wait for the next run: copied
 * in that order to the keep buffer, which becomes the queue (the old
 * queue the next keep buffer; both only grow). */
static void keep_clients(struct dc_merge *m, size_t from, size_t n)
{
	unsigned char *q;
	size_t len = 0, cap;

	for (size_t i = from; i < n; i++)
		push(&m->keep, &len, &m->keepcap,
		     (const struct dc_event *)(m->fq + m->idx[i].off));
	q = m->fq;
	cap = m->fcap;
	m->fq = m->keep;
	m->fcap = m->keepcap;
	m->flen = len;
	m->keep = q;
	m->keepcap = cap;
}

void dc_merge_run(struct dc_merge *m, uint64_t upto, bool final,
		  dc_merge_emit emit, void *ctx)
{
	size_t n, i = 0, koff = 0;

	m->running = true;
	n = sort_clients(m);
	while (koff < m->klen) {
		const struct dc_event *k = (const struct dc_event *)(m->kq + koff);
		uint64_t e = end_of(k);

		if (!final && e > upto)
			break;
		for (; i < n && m->idx[i].end <= e; i++)
			emit(ctx, (const struct dc_event *)(m->fq + m->idx[i].off),
			     false);
		emit(ctx, k, true);
		koff += k->size;
	}
	for (; i < n && (final || m->idx[i].end <= upto); i++)
		emit(ctx, (const struct dc_event *)(m->fq + m->idx[i].off), false);
	if (i == n)
		m->flen = 0;
	else
		keep_clients(m, i, n);
	if (koff > 0) /* (kq is NULL until a kernel record came) */
		memmove(m->kq, m->kq + koff, m->klen - koff);
	m->klen -= koff;
	m->ksoon = m->ksoon > koff ? m->ksoon - koff : 0;
	m->running = false;
}

void dc_merge_free(struct dc_merge *m)
{
	free(m->kq);
	free(m->fq);
	free(m->keep);
	free(m->idx);
	free(m->tmp);
	memset(m, 0, sizeof(*m));
}

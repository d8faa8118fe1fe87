/*
 * calltree.c - stream-unique ids and exact parents (see calltree.h).
 *
 * A thread's open calls are kept in two stacks, one per numbering: the
 * kernel's (uprobes, syscalls) and the client library's (seq with
 * DC_SEQ_CLIENT set); numbers of one are never compared with the other.
 * Each stack is in entry order (ascending seq).  The rules, all from the
 * fact that a thread's records reach the stream in the order its calls
 * returned:
 *
 *   - a record whose parent is P: every call of P's numbering entered
 *     after P that is still in the stack had returned before this
 *     record's call began (else it, not P, would be the innermost open
 *     call), yet its record never came: it was lost; drop it;
 *   - a call numbered S returns: calls entered after S had returned
 *     before it; the same;
 *   - a call whose parent is 0 began with no call of its numbering open:
 *     every call in that stack is gone.
 *
 * Asynchronous records (DC_EVF_ASYNC: block I/O completes when it
 * completes; DC_EVF_PARENT_DONE: written after the call it began in
 * returned, as a readahead is) are out of that order and change nothing: their parent is
 * looked up in the stack, then in the window of returned calls; else,
 * unless the collector saw that parent return already (DC_EVF_PARENT_DONE,
 * which a block completion, running in no particular task, cannot tell),
 * it is taken to be still open and reserved like any other.
 *
 * One exception to that order: a signal handler's call that came as a
 * call of its thread was ending, after it stopped being the thread's
 * innermost, is a sibling that can return first and whose record can
 * come first (dc-wrap/fast.c dc_call_end).  With its parent 0, say, it
 * makes every open call of its numbering taken for lost, the ending one
 * too if its children named it; that one is found again when its record
 * comes, in a window of the calls last dropped.  So a call dropped is
 * counted lost until its record comes, if it does.  (Not a process's
 * calls left open at its exit: a pid used again must not find them.)
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "messages.h"

#define SPACES 2                  /* kernel, client numbering */

struct ct_open {
	uint64_t seq, id;
	uint64_t first;           /* the earliest start of its children */
	int32_t child_error;      /* errno of its last failed child */
};

struct ct_thread {
	uint64_t key;
	uint32_t pid;
	struct ct_open *open[SPACES];
	size_t n[SPACES], cap[SPACES];
};

#define PTR(v) ((void *)(uintptr_t)(v))
#define VAL(p) ((uint64_t)(uintptr_t)(p))

static unsigned space_of(uint64_t seq)
{
	return (seq & DC_SEQ_CLIENT) ? 1 : 0;
}

void calltree_init(struct calltree *ct)
{
	memset(ct, 0, sizeof(*ct));
	ct->returned.slots = xcalloc(CALLTREE_WINDOW, sizeof(struct ct_window_slot));
	ct->dropped.slots = xcalloc(CALLTREE_WINDOW, sizeof(struct ct_window_slot));
}

static void free_thread(void *thread)
{
	struct ct_thread *t = thread;
	unsigned s;

	for (s = 0; s < SPACES; s++)
		free(t->open[s]);
	free(t);
}

void calltree_free(struct calltree *ct)
{
	u64map_free_ptrs(&ct->threads, free_thread);
	u64map_free(&ct->returned.index);
	free(ct->returned.slots);
	u64map_free(&ct->dropped.index);
	free(ct->dropped.slots);
	memset(ct, 0, sizeof(*ct));
}

static uint64_t new_id(struct calltree *ct)
{
	return ++ct->next_id;
}

/* ---- windows of calls: returned, dropped ---- */

static uint64_t window_hash(uint64_t thread, uint64_t seq)
{
	uint64_t h = thread * 0x9e3779b97f4a7c15ULL;

	h ^= seq + 0x632be59bd9b4e019ULL + (h << 6) + (h >> 2);
	return h;
}

static void window_put(struct ct_window *w, uint64_t thread, uint64_t seq,
		       uint64_t id, uint64_t ts, uint64_t first)
{
	struct ct_window_slot *e = &w->slots[w->next];
	uint64_t *slot;

	if (e->thread != 0) {
		/* The oldest leaves the window, unless another took its
		 * index entry. */
		uint64_t h = window_hash(e->thread, e->seq);

		slot = u64map_get(&w->index, h);
		if (slot != NULL && *slot == w->next + 1)
			u64map_del(&w->index, h);
	}
	e->thread = thread;
	e->seq = seq;
	e->id = id;
	e->ts = ts;
	e->first = first;
	u64map_put(&w->index, window_hash(thread, seq), w->next + 1);
	w->next = (w->next + 1) % CALLTREE_WINDOW;
}

/* The slot of (thread, seq) in w, or NULL. */
static struct ct_window_slot *window_slot(const struct ct_window *w,
					  uint64_t thread, uint64_t seq)
{
	uint64_t *slot = u64map_get(&w->index, window_hash(thread, seq));
	struct ct_window_slot *e;

	if (slot == NULL)
		return NULL;
	e = &w->slots[*slot - 1];
	return e->thread == thread && e->seq == seq ? e : NULL;
}

static uint64_t window_find(const struct ct_window *w, uint64_t thread,
			    uint64_t seq)
{
	const struct ct_window_slot *e = window_slot(w, thread, seq);

	return e != NULL ? e->id : 0;
}

/* A call taken for lost whose record came after all: its id, no longer
 * counted lost; 0 if it is not one.  The record at hand, begun at ts, is
 * the call's, or its child's, only if it began before the record that
 * dropped it, or, the call's own (own), before the children that named
 * it: not so a call of a later thread with the same tid, which began
 * after both.  (A signal handler's call that came while its thread wrote
 * the record of the call before, after that call's end, is dropped by
 * that record, begun before it: its children tell it.) */
static uint64_t recover(struct calltree *ct, uint64_t thread, uint64_t seq,
			uint64_t ts, int own)
{
	struct ct_window_slot *e = window_slot(&ct->dropped, thread, seq);
	uint64_t id;

	if (e == NULL || (ts > e->ts && !(own && ts <= e->first)))
		return 0;
	id = e->id;
	u64map_del(&ct->dropped.index, window_hash(thread, seq));
	e->thread = 0;
	ct->lost_calls--;
	return id;
}

/* ---- threads ---- */

static struct ct_thread *thread_get(struct calltree *ct, uint64_t key,
				    uint32_t pid, int create)
{
	uint64_t *slot = u64map_get(&ct->threads, key);
	struct ct_thread *t;

	if (slot != NULL || !create)
		return slot ? PTR(*slot) : NULL;
	t = xcalloc(1, sizeof(*t));
	t->key = key;
	t->pid = pid;
	u64map_put(&ct->threads, key, VAL(t));
	return t;
}

/* A thread with nothing open holds no memory. */
static void thread_maybe_free(struct calltree *ct, struct ct_thread *t)
{
	unsigned s;

	for (s = 0; s < SPACES; s++)
		if (t->n[s] > 0)
			return;
	u64map_del(&ct->threads, t->key);
	free_thread(t);
}

/* The open call at the top of stack s dropped, by a record begun at ts:
 * taken for lost, until its record comes (recover). */
static void drop_top(struct calltree *ct, struct ct_thread *t, unsigned s,
		     uint64_t ts)
{
	const struct ct_open *o = &t->open[s][--t->n[s]];

	window_put(&ct->dropped, t->key, o->seq, o->id, ts, o->first);
	ct->lost_calls++;
}

/* Drop the calls of seq's numbering entered after seq (record ev's
 * doing). */
static void drop_after(struct calltree *ct, struct ct_thread *t, uint64_t seq,
		       const struct dc_event *ev)
{
	unsigned s = space_of(seq);

	while (t->n[s] > 0 && t->open[s][t->n[s] - 1].seq > seq)
		drop_top(ct, t, s, ev->ts);
}

static void drop_all(struct calltree *ct, struct ct_thread *t, unsigned s,
		     const struct dc_event *ev)
{
	while (t->n[s] > 0)
		drop_top(ct, t, s, ev->ts);
}

/* The open call seq, or NULL. */
static struct ct_open *find_open(struct ct_thread *t, uint64_t seq)
{
	unsigned s = space_of(seq);
	size_t lo = 0, hi = t->n[s];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->open[s][mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n[s] && t->open[s][lo].seq == seq ? &t->open[s][lo]
							  : NULL;
}

/* Reserve an id for open call seq, in entry order. */
static struct ct_open *add_open(struct calltree *ct, struct ct_thread *t,
				uint64_t seq, const struct dc_event *ev)
{
	unsigned s = space_of(seq);
	size_t i = t->n[s];

	if (t->n[s] == t->cap[s]) {
		t->cap[s] = t->cap[s] ? 2 * t->cap[s] : 8;
		t->open[s] = xrealloc(t->open[s], t->cap[s] * sizeof(*t->open[s]));
	}
	while (i > 0 && t->open[s][i - 1].seq > seq)
		i--;
	memmove(&t->open[s][i + 1], &t->open[s][i],
		(t->n[s] - i) * sizeof(*t->open[s]));
	t->n[s]++;
	t->open[s][i].seq = seq;
	/* A call taken for lost is open after all: a record names it. */
	if ((t->open[s][i].id = recover(ct, t->key, seq, ev->ts, 0)) == 0)
		t->open[s][i].id = new_id(ct);
	t->open[s][i].child_error = 0;
	t->open[s][i].first = UINT64_MAX;
	return &t->open[s][i];
}

/* ---- records ---- */

static void orphan(struct calltree *ct, struct dc_event *ev)
{
	ev->flags |= DC_EVF_ORPHAN;
	ev->parent = 0;
	ct->orphans++;
}

/* Async work: its parent is open (reserved or still to come) or in the
 * window; nothing is dropped on its account. */
static void stamp_async(struct calltree *ct, uint64_t key,
			struct dc_event *ev)
{
	struct ct_thread *t = thread_get(ct, key, ev->pid, 0);
	struct ct_open *o = t ? find_open(t, ev->parent) : NULL;
	uint64_t id;

	if (o != NULL) {
		ev->parent = o->id;
	} else if ((id = window_find(&ct->returned, key, ev->parent)) != 0) {
		ev->parent = id;
	} else if (!(ev->flags & DC_EVF_PARENT_DONE)) {
		t = thread_get(ct, key, ev->pid, 1);
		ev->parent = add_open(ct, t, ev->parent, ev)->id;
	} else {
		orphan(ct, ev);
	}
}

/* Call ev returned: the id its children reserved, or a new one; its
 * last failed child's errno in *child_error.  It starts no later than
 * its first child: a call is its thread's innermost (what its children
 * name) a few instructions before it reads its start, and a signal
 * handler's call can come in between. */
static uint64_t claim(struct calltree *ct, uint64_t key, struct ct_thread *t,
		      struct dc_event *ev, int32_t *child_error)
{
	unsigned s = space_of(ev->seq);
	struct ct_open *o;
	uint64_t id;

	*child_error = 0;
	if (t != NULL)
		drop_after(ct, t, ev->seq, ev);
	if (t == NULL || t->n[s] == 0 || t->open[s][t->n[s] - 1].seq != ev->seq)
		return (id = recover(ct, key, ev->seq, ev->ts, 1)) != 0 ? id : new_id(ct);
	o = &t->open[s][--t->n[s]];
	*child_error = o->child_error;
	if (o->first < ev->ts) {
		ev->dur += ev->ts - o->first;
		ev->ts = o->first;
	}
	return o->id;
}

void calltree_stamp(struct calltree *ct, struct dc_event *ev)
{
	uint64_t key = (uint64_t)ev->tid + 1;
	uint64_t seq = ev->seq, parent = ev->parent, id;
	struct ct_thread *t;
	struct ct_open *o = NULL;
	int32_t child_error = 0;
	int is_call = ev->type == DC_EV_CALL && seq != 0;

	if (ev->type != DC_EV_CALL && ev->type != DC_EV_INSTANT) {
		/* Process records stand outside the tree. */
		ev->seq = new_id(ct);
		ev->parent = 0;
		return;
	}
	if (is_call && parent != 0 && space_of(seq) == space_of(parent) &&
	    parent >= seq) {
		/* Impossible: a parent entered after its child. */
		ev->flags |= DC_EVF_ORPHAN;
	}
	if (parent != 0 && !is_call &&
	    (ev->flags & (DC_EVF_ASYNC | DC_EVF_PARENT_DONE)) &&
	    !(ev->flags & DC_EVF_ORPHAN)) {
		/* Async work (or an instant written after its call returned,
		 * a readahead): out of the thread's order, changes nothing. */
		ev->seq = new_id(ct);
		stamp_async(ct, key, ev);
		return;
	}

	t = thread_get(ct, key, ev->pid, 0);
	if (is_call) {
		/* First the call itself: calls entered after it are gone,
		 * and its children may have reserved its id. */
		id = claim(ct, key, t, ev, &child_error);
		window_put(&ct->returned, key, seq, id, ev->ts, 0);
	} else {
		id = new_id(ct);
	}
	ev->seq = id;

	if (ev->flags & DC_EVF_ORPHAN) {
		orphan(ct, ev);
	} else if (parent != 0) {
		if (t == NULL)
			t = thread_get(ct, key, ev->pid, 1);
		drop_after(ct, t, parent, ev);
		o = find_open(t, parent);
		if (o == NULL)
			o = add_open(ct, t, parent, ev);
		ev->parent = o->id;
		if (ev->ts < o->first)
			o->first = ev->ts;
	} else if (is_call && t != NULL) {
		/* Nothing of its numbering was open when it began. */
		drop_all(ct, t, space_of(seq), ev);
	}

	/* A failed library call without an error code takes the one of the
	 * last failed call it made: that is the errno its caller saw. */
	if (ev->error == 0 && (ev->flags & DC_EVF_FAILED))
		ev->error = child_error;
	if (ev->error != 0 && o != NULL)
		o->child_error = ev->error;
	if (t != NULL)
		thread_maybe_free(ct, t);
}

void calltree_drop_process(struct calltree *ct, uint32_t pid)
{
	struct ct_thread **gone = NULL;
	size_t i, n = 0;
	unsigned s;

	for (i = 0; i < ct->threads.cap; i++) {
		struct ct_thread *t;

		if (!ct->threads.used[i])
			continue;
		t = PTR(ct->threads.vals[i]);
		if (t->pid != pid)
			continue;
		gone = xrealloc(gone, (n + 1) * sizeof(*gone));
		gone[n++] = t;
	}
	for (i = 0; i < n; i++) {
		for (s = 0; s < SPACES; s++) {
			ct->lost_calls += gone[i]->n[s];
			gone[i]->n[s] = 0;
		}
		thread_maybe_free(ct, gone[i]);
	}
	free(gone);
}

size_t calltree_open(const struct calltree *ct)
{
	size_t i, n = 0;
	unsigned s;

	for (i = 0; i < ct->threads.cap; i++)
		if (ct->threads.used[i])
			for (s = 0; s < SPACES; s++)
				n += ((struct ct_thread *)PTR(ct->threads.vals[i]))->n[s];
	return n;
}

/*
 * nest-test - dc-collect's placing of client records among the kernel's
 * (dc-collect/merge.c, nest.c), fed records by hand, drain by drain, as
 * dc-collect's drain_ordered feeds them.  TAP on standard output
 * (t/3230-fastpath-nest.t).
 *
 * Times are in ns.  One thread, tid 10 of process 10, unless said.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "event.h"
#include "collect.h"
#include "merge.h"
#include "nest.h"
#include "tap.h"

#define TID 10
#define MAX_OUT 16

/* What a run emitted, in order: seq and whether the kernel's. */
struct out {
	uint64_t seq[MAX_OUT];
	bool kernel[MAX_OUT];
	size_t n;
};

static void collect_out(void *ctx, const struct dc_event *ev, bool kernel)
{
	struct out *o = ctx;

	if (o->n < MAX_OUT) {
		o->seq[o->n] = ev->seq;
		o->kernel[o->n] = kernel;
	}
	o->n++;
}

static struct dc_event rec(uint8_t type, uint64_t seq, uint64_t parent,
			   uint64_t ts, uint64_t dur, uint16_t depth)
{
	struct dc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.size = DC_EVENT_HDR_SIZE;
	ev.type = type;
	ev.pid = TID;
	ev.tid = TID;
	ev.seq = seq;
	ev.parent = parent;
	ev.ts = ts;
	ev.dur = dur;
	ev.depth = depth;
	return ev;
}

/* A client call (its seq in the client's numbering). */
static struct dc_event client(uint64_t seq, uint64_t parent, uint64_t ts,
			      uint64_t dur, uint16_t depth)
{
	return rec(DC_EV_CALL, seq | DC_SEQ_CLIENT,
		   parent ? parent | DC_SEQ_CLIENT : 0, ts, dur, depth);
}

/* The mark of a uprobe call begun at ts with `cdepth` client calls open. */
static struct dc_event mark(uint64_t seq, uint64_t parent, uint64_t ts,
			    uint16_t level, int64_t cdepth)
{
	struct dc_event ev = rec(DC_EV_NEST_ENTER, seq, parent, ts, 0, level);

	ev.ret = cdepth;
	return ev;
}

static bool emitted(const struct out *o, size_t n, const uint64_t *seqs)
{
	if (o->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (o->seq[i] != seqs[i])
			return false;
	return true;
}

/* A system call made inside a client call, the client's record written
 * between the drain's time (upto) and the client heads: the system call
 * ended after upto and waits; the client's record must wait with it. */
static void merge_waits_for_child(void)
{
	struct dc_merge m = { 0 };
	struct dc_event sys = rec(DC_EV_CALL, 7, 5 | DC_SEQ_CLIENT, 1100, 50, 1);
	struct dc_event call = client(5, 0, 1000, 200, 0);
	struct dc_event before = client(4, 0, 500, 100, 0);
	struct out o = { 0 };

	dc_merge_kernel(&m, &sys, false);
	dc_merge_client(&m, &before);
	dc_merge_client(&m, &call);
	dc_merge_run(&m, 1120, false, collect_out, &o);
	ok(emitted(&o, 1, (uint64_t[]){ 4 | DC_SEQ_CLIENT }),
	   "merge: what ended by the drain's time goes out, a client call "
	   "that ended after it waits with its system call (%zu out)", o.n);
	memset(&o, 0, sizeof(o));
	dc_merge_run(&m, 2000, false, collect_out, &o);
	ok(emitted(&o, 2, (uint64_t[]){ 7, 5 | DC_SEQ_CLIENT }) && o.kernel[0] &&
	   !o.kernel[1],
	   "merge: next drain, the system call before the call that made it");
	dc_merge_free(&m);
}

/* Client records in end order among the kernel's; the final run
 * empties both queues. */
static void merge_order(void)
{
	struct dc_merge m = { 0 };
	struct dc_event k1 = rec(DC_EV_CALL, 1, 0, 100, 100, 0);
	struct dc_event k2 = rec(DC_EV_CALL, 2, 0, 400, 100, 0);
	struct dc_event k3 = rec(DC_EV_CALL, 3, 0, 900, 200, 0);
	struct dc_event c1 = client(1, 0, 300, 50, 0);
	struct dc_event c2 = client(2, 0, 600, 100, 0);
	struct dc_event c3 = client(3, 0, 1150, 10, 0);
	struct out o = { 0 };

	dc_merge_kernel(&m, &k1, false);
	dc_merge_kernel(&m, &k2, false);
	dc_merge_kernel(&m, &k3, false);
	dc_merge_client(&m, &c3);
	dc_merge_client(&m, &c1);
	dc_merge_client(&m, &c2);
	dc_merge_run(&m, 1000, false, collect_out, &o);
	ok(emitted(&o, 4, (uint64_t[]){ 1, 1 | DC_SEQ_CLIENT, 2,
				        2 | DC_SEQ_CLIENT }),
	   "merge: by end time, up to the drain's time (%zu out)", o.n);
	memset(&o, 0, sizeof(o));
	dc_merge_run(&m, 1000, true, collect_out, &o);
	ok(emitted(&o, 2, (uint64_t[]){ 3, 3 | DC_SEQ_CLIENT }),
	   "merge: the final run, the rest in end order (%zu out)", o.n);
	memset(&o, 0, sizeof(o));
	dc_merge_run(&m, 5000, true, collect_out, &o);
	ok(o.n == 0, "merge: nothing twice");
	dc_merge_free(&m);
}

/* A kernel record that wants out soon (a process's own: output.c's
 * process_waits) is known to wait until the run that lets it out, with
 * records before and after it in the queue. */
static void merge_soon(void)
{
	struct dc_merge m = { 0 };
	struct dc_event k1 = rec(DC_EV_CALL, 1, 0, 100, 100, 0);
	struct dc_event k2 = rec(DC_EV_EXEC, 2, 0, 400, 0, 0);
	struct dc_event k3 = rec(DC_EV_CALL, 3, 0, 900, 200, 0);
	struct dc_event k4 = rec(DC_EV_EXIT_PROC, 4, 0, 1500, 0, 0);
	struct out o = { 0 };
	bool before, first, second, third;

	dc_merge_kernel(&m, &k1, false);
	before = dc_merge_soon(&m);
	dc_merge_kernel(&m, &k2, true);
	dc_merge_kernel(&m, &k3, false);
	dc_merge_run(&m, 300, false, collect_out, &o);
	first = dc_merge_soon(&m);
	dc_merge_run(&m, 600, false, collect_out, &o);
	second = dc_merge_soon(&m);
	dc_merge_kernel(&m, &k4, true);
	third = dc_merge_soon(&m);
	dc_merge_run(&m, 0, true, collect_out, &o);
	ok(!before && first && !second && third && !dc_merge_soon(&m) &&
	   emitted(&o, 4, (uint64_t[]){ 1, 2, 3, 4 }),
	   "merge: a record that wants out soon is known to wait until it "
	   "goes (%d %d %d %d %d, %zu out)", before, first, second, third,
	   dc_merge_soon(&m), o.n);
	dc_merge_free(&m);
}

/* Many threads' client records, drain by drain, among the kernel's: the
 * whole output is in end order, a client record before a kernel record
 * of the same end, equal ends of client records in the order the rings
 * gave them (each thread's already in end order, ties within a thread
 * too), every record once.  Checked against a plain sort of all of them. */
#define R_THREADS 4
#define R_PER 600
#define R_KERNEL 400
#define R_ALL (R_THREADS * R_PER + R_KERNEL)

struct ref {
	uint64_t end, seq;
	int client, order;
};

struct seen {
	uint64_t seq[R_ALL + 1];
	size_t n;
};

static void seen_out(void *ctx, const struct dc_event *ev, bool kernel)
{
	struct seen *o = ctx;

	(void)kernel;
	if (o->n <= R_ALL)
		o->seq[o->n] = ev->seq;
	o->n++;
}

static int by_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->client != y->client)
		return x->client ? -1 : 1;
	return x->order - y->order;
}

static uint64_t lcg = 12345;

static unsigned small_rand(unsigned max)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(lcg >> 33) % (max + 1);
}

static void merge_threads(void)
{
	static struct ref want[R_ALL];
	static uint64_t tend[R_THREADS][R_PER], kend[R_KERNEL];
	static struct seen o;
	struct dc_merge m = { 0 };
	size_t next[R_THREADS] = { 0 }, knext = 0, nref = 0, i;
	int order = 0, bad = 0;
	uint64_t upto, last = 0;

	for (int t = 0; t < R_THREADS; t++)
		for (i = 0, last = 100; i < R_PER; i++)
			tend[t][i] = last += small_rand(i % 7 ? 12 : 0);
	for (i = 0, last = 100; i < R_KERNEL; i++)
		kend[i] = last += small_rand(30);
	for (upto = 0; upto <= 12000; upto += 700) {
		uint64_t heads = upto + 40; /* what the rings hold by now */

		for (; knext < R_KERNEL && kend[knext] <= heads; knext++) {
			struct dc_event k = rec(DC_EV_CALL, knext + 1, 0,
						kend[knext] - 5, 5, 0);

			dc_merge_kernel(&m, &k, false);
			want[nref++] = (struct ref){ kend[knext], knext + 1, 0, 0 };
		}
		for (int t = 0; t < R_THREADS; t++)
			for (; next[t] < R_PER && tend[t][next[t]] <= heads; next[t]++) {
				uint64_t e = tend[t][next[t]];
				struct dc_event c = client((uint64_t)order + 1, 0, e - 3, 3, 0);

				c.tid = TID + (uint32_t)t;
				dc_merge_client(&m, &c);
				want[nref++] = (struct ref){ e, ((uint64_t)order + 1) | DC_SEQ_CLIENT,
							     1, order };
				order++;
			}
		dc_merge_run(&m, upto, false, seen_out, &o);
	}
	dc_merge_run(&m, upto, true, seen_out, &o);
	qsort(want, nref, sizeof(*want), by_ref);
	for (i = 0; i < nref && i < o.n; i++)
		bad += o.seq[i] != want[i].seq;
	ok(nref == R_ALL && o.n == nref && bad == 0,
	   "merge: %d threads' records among the kernel's, drain by drain, "
	   "in the order of a full sort (%zu of %zu out, %d misplaced)",
	   R_THREADS, o.n, nref, bad);
	dc_merge_free(&m);
}

/* A client call inside a uprobe call nests under it, one level deeper;
 * one after it returned does not. */
static void nest_inside_and_after(void)
{
	struct dc_nest nt = { 0 };
	struct dc_event m1 = mark(3, 0, 1000, 0, 0);
	struct dc_event end = rec(DC_EV_CALL, 3, 0, 1000, 500, 0);
	struct dc_event in = client(1, 0, 1100, 100, 0);
	struct dc_event deeper = client(2, 1, 1150, 20, 1);
	struct dc_event after = client(3, 0, 1600, 100, 0);
	struct dc_event other = client(4, 0, 1200, 10, 0);

	other.tid = TID + 1;
	dc_nest_enter(&nt, &m1);
	dc_nest_client(&nt, &deeper);
	dc_nest_client(&nt, &in);
	dc_nest_client(&nt, &other);
	dc_nest_call(&nt, &end);
	dc_nest_client(&nt, &after);
	ok(in.parent == 3 && in.depth == 1,
	   "nest: a client call inside the uprobe call is its child, level 1 "
	   "(parent %llu, level %u)", (unsigned long long)in.parent, in.depth);
	ok(deeper.parent == (1 | DC_SEQ_CLIENT) && deeper.depth == 2,
	   "nest: one inside that keeps its client parent, level 2");
	ok(other.parent == 0 && other.depth == 0,
	   "nest: another thread's call is not inside");
	ok(after.parent == 0 && after.depth == 0,
	   "nest: a client call after the uprobe call returned is not inside");
	dc_nest_free(&nt);
}

/* A call that returned is kept one more drain for the records written
 * just before its end, then let go. */
static void nest_one_more_drain(void)
{
	struct dc_nest nt = { 0 };
	struct dc_event m1 = mark(3, 0, 1000, 0, 0);
	struct dc_event end = rec(DC_EV_CALL, 3, 0, 1000, 500, 0);
	struct dc_event late = client(1, 0, 1100, 100, 0);
	struct dc_event later = client(2, 0, 1200, 100, 0);

	dc_nest_enter(&nt, &m1);
	dc_nest_call(&nt, &end);
	dc_nest_drained(&nt);
	dc_nest_client(&nt, &late);
	dc_nest_drained(&nt);
	dc_nest_client(&nt, &later);
	ok(late.parent == 3 && late.depth == 1,
	   "nest: a record read the drain after the call's end is inside");
	ok(later.parent == 0 && nt.n == 0,
	   "nest: two drains after its end the call is let go");
	dc_nest_free(&nt);
}

/* A uprobe call left by a longjmp: its caller's return ends it too, and
 * client calls after that are not inside it. */
static void nest_abandoned(void)
{
	struct dc_nest nt = { 0 };
	struct dc_event outer = mark(1, 0, 1000, 0, 0);
	struct dc_event left = mark(2, 1, 1100, 1, 0);
	struct dc_event in = client(1, 0, 1200, 10, 0);
	struct dc_event outer_end = rec(DC_EV_CALL, 1, 0, 1000, 500, 0);
	struct dc_event after = client(2, 0, 1600, 10, 0);

	dc_nest_enter(&nt, &outer);
	dc_nest_enter(&nt, &left);
	dc_nest_client(&nt, &in);
	dc_nest_call(&nt, &outer_end);
	dc_nest_client(&nt, &after);
	ok(in.parent == 2 && in.depth == 2,
	   "nest: inside the innermost uprobe call while it is open");
	ok(after.parent == 0 && after.depth == 0,
	   "nest: its caller returned: a later client call is in neither "
	   "(parent %llu)", (unsigned long long)after.parent);
	dc_nest_free(&nt);
}

int main(void)
{
	merge_waits_for_child();
	merge_order();
	merge_soon();
	merge_threads();
	nest_inside_and_after();
	nest_one_more_drain();
	nest_abandoned();
	return tap_done();
}

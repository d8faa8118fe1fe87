/*
 * calltree.h - dc-aggregate's call tree: the one place that decides which
 * call is an event's parent.
 *
 * The collector numbers the entries of each thread (dc_event.seq) and
 * stamps every record with the number of the call open around it
 * (dc_event.parent).  Records arrive when calls return, children before
 * their parents.  calltree_stamp() rewrites both numbers into ids unique
 * in the output stream: a child that arrives before its parent reserves
 * the parent's id, which the parent takes when its record comes.
 *
 * What is kept: per thread, the calls still open that a child has named
 * (a stack, in entry order); a fixed window of the last calls that
 * returned, for asynchronous kernel work (block I/O) that completes
 * after the call that issued it; and one of the calls last taken for
 * lost, whose record a signal handler's call can put out of order
 * (calltree.c).  Nothing depends on time or on a hold limit: a call
 * open for an hour keeps its children.
 */
#ifndef DC_AGG_CALLTREE_H
#define DC_AGG_CALLTREE_H

#include <stdint.h>
#include <linux/types.h>

#include "event.h"
#include "u64map.h"

#define CALLTREE_WINDOW 16384    /* calls remembered in a window, in all */

struct ct_window_slot {
	uint64_t thread, seq, id; /* thread 0: empty */
	uint64_t ts;              /* dropped: when the record that dropped
				     it began */
	uint64_t first;           /* dropped: the earliest start of its
				     children */
};

/* The last CALLTREE_WINDOW calls put in, by (thread, seq): the oldest
 * leaves when a new one comes. */
struct ct_window {
	struct ct_window_slot *slots;
	size_t next;
	struct u64map index;      /* hash of (thread, seq) -> slot + 1 */
};

struct calltree {
	struct u64map threads;    /* tid + 1 -> struct ct_thread * */
	uint64_t next_id;         /* the last id given */
	struct ct_window returned; /* calls whose record came */
	struct ct_window dropped; /* calls named, taken for lost: their
				     record may still come, out of order */
	uint64_t orphans;         /* records whose parent is unknown */
	uint64_t lost_calls;      /* calls a child named that never came */
};

void calltree_init(struct calltree *ct);
void calltree_free(struct calltree *ct);

/* One per input stream.  Rewrite ev->seq and ev->parent into ids unique
 * among this calltree's; a failed call with no errno takes that of its last failed
 * child.  Every record gets an id; ev->parent is 0 when it has no parent
 * and flags DC_EVF_ORPHAN when its parent is unknown. */
void calltree_stamp(struct calltree *ct, struct dc_event *ev);

/* Forget the open calls of every thread of process pid: they will not
 * return (the process exited). */
void calltree_drop_process(struct calltree *ct, uint32_t pid);

/* Open calls and threads held now (for tests and the memory bench). */
size_t calltree_open(const struct calltree *ct);

#endif /* DC_AGG_CALLTREE_H */

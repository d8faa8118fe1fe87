/*
 * nest.h - the client's records under uprobe-traced calls.
 *
 * A process on the fast path records its wrapped calls itself, while the
 * functions it does not wrap (HDF5, MPI-IO, its own) are uprobes: the
 * kernel sees those calls, the client does not, so a client record made
 * inside one names the client's own innermost call as its parent (0 if
 * none) and counts only the client's calls as its level.  The BPF program
 * marks the start of each such uprobe call (DC_EV_NEST_ENTER: its seq,
 * time, level and the client's open calls then); its CALL record gives
 * its end.  A client record of the same thread that begins and ends
 * inside it, and had no client call open in between, is its child; every
 * client record inside it is that many levels deeper.  Times of one
 * thread are exact in order: the clock is the same (CLOCK_MONOTONIC), and
 * the client's call starts after the uprobe call started and ends before
 * it returned.
 *
 * The kernel's ring is read before the client records of each drain, and
 * read up to where its writers were when the clients' heads were taken:
 * a record another CPU is still writing stops a read of the ring, and the
 * records behind it, a call's mark or its end, would be missed by the
 * client records of this drain (a record made after a call returned
 * would be taken as inside it).  So the mark of a call is always seen
 * before any record inside it, and its end before any record after it;
 * a call that has ended is kept for one more drain, for the records
 * written just before its end.
 */
#ifndef DC_NEST_H
#define DC_NEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "event.h"

struct dc_nest {
	struct dc_nest_call *calls;
	size_t n, cap;
	uint64_t drains;
	void *pos;             /* the kernel ring's two position pages */
	size_t pos_len;
};

/* Watch the positions of the kernel's ring (a BPF ring buffer map),
 * once however often asked; dies if they cannot be mapped. */
void dc_nest_watch(struct dc_nest *nt, int ring_fd);
/* Where the ring's writers are: every record reserved so far ends there. */
uint64_t dc_nest_produced(const struct dc_nest *nt);
/* Whether the ring's reader is still before pos. */
bool dc_nest_behind(const struct dc_nest *nt, uint64_t pos);

void dc_nest_enter(struct dc_nest *nt, const struct dc_event *mark);
/* A kernel CALL record: ends the call it is, if marked. */
void dc_nest_call(struct dc_nest *nt, const struct dc_event *ev);
/* A validated client record: parent and level fixed if it is inside. */
void dc_nest_client(struct dc_nest *nt, struct dc_event *ev);
/* After each drain of the client records. */
void dc_nest_drained(struct dc_nest *nt);
/* A process exited or exec'd: its calls are over. */
void dc_nest_forget(struct dc_nest *nt, uint32_t pid);
void dc_nest_free(struct dc_nest *nt);

#endif /* DC_NEST_H */

/*
 * merge.h - order the kernel's records and the clients' records of one
 * drain into one sequence by end time (see merge.c).
 */
#ifndef DC_COLLECT_MERGE_H
#define DC_COLLECT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "event.h"

/* A client record in the sort: its end time and its offset in fq. */
struct dc_merge_ref {
	uint64_t end;
	size_t off;
};

struct dc_merge {
	unsigned char *kq;       /* kernel records, in ring order */
	size_t klen, kcap;
	size_t ksoon;            /* kq's bytes up to the end of the last
				    record that wants out soon; 0: none */
	unsigned char *fq;       /* client records */
	size_t flen, fcap;
	unsigned char *keep;     /* client records that wait (swapped with fq) */
	size_t keepcap;
	struct dc_merge_ref *idx; /* client records sorted by end time */
	struct dc_merge_ref *tmp; /* the other buffer of its merge sort */
	size_t icap;             /* entries in each */
	bool running;            /* inside dc_merge_run */
};

typedef void (*dc_merge_emit)(void *ctx, const struct dc_event *ev,
			      bool kernel);

/* A record of the kernel's ring, in ring order; soon: it should not
 * wait long (dc_merge_soon). */
void dc_merge_kernel(struct dc_merge *m, const struct dc_event *ev,
		     bool soon);
/* Whether a kernel record added with soon still waits. */
bool dc_merge_soon(const struct dc_merge *m);
/* A record out of the ring's order, placed by its end: a client's, or
 * one of the kernel's per-CPU batches (output.c). */
void dc_merge_client(struct dc_merge *m, const struct dc_event *ev);
/* The same without a copy: a client record written into the room for
 * size bytes at the end of the queue, then added (not while it runs). */
struct dc_event *dc_merge_client_room(struct dc_merge *m, size_t size);
void dc_merge_client_add(struct dc_merge *m);
/* Emit everything that ended by `upto` (all of it if final) in end-time
 * order; records that ended later wait for the next run. */
void dc_merge_run(struct dc_merge *m, uint64_t upto, bool final,
		  dc_merge_emit emit, void *ctx);
void dc_merge_free(struct dc_merge *m);

#endif /* DC_COLLECT_MERGE_H */

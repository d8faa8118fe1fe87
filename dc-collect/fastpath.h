/*
 * fastpath.h - dc-collect's half of the user-level fast path: the socket
 * the client library connects to, the per-process shared rings, and the
 * validation of what clients write into them.  See lib/fastabi.h for the
 * protocol and fastpath.c for the rules.
 */
#ifndef DC_COLLECT_FASTPATH_H
#define DC_COLLECT_FASTPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "event.h"
#include "spec.h"

struct dc_fast;

/* Where records go (the collector's merge, or its EVENTS frame): room
 * gives the place for a record of size bytes, 8-aligned and the
 * collector's own, or NULL to skip it; the record is copied there from
 * the ring and checked there, and sink takes it.  A refused record is
 * not given to sink, and its room is given again. */
typedef struct dc_event *(*dc_fast_room)(void *ctx, size_t size);
typedef void (*dc_fast_sink)(void *ctx, struct dc_event *ev);
/* Is this process one the collector traces (or, in clients mode, may it
 * join)?  Called for every connecting process; true admits it. */
typedef bool (*dc_fast_admit)(void *ctx, pid_t pid);
/* An admitted process is about to exec a program that will not load the
 * client (request DC_FAST_REQ_EXEC, or DC_FAST_REQ_EXEC_PROGRAM with
 * that program's descriptor, which the callee may not keep; else -1):
 * true when the uprobes that stand in for the client are in place in
 * it.  Or that exec failed (DC_FAST_REQ_EXEC_FAILED): they go (true). */
typedef bool (*dc_fast_exec_ahead)(void *ctx, pid_t pid, __u32 request,
				   int program);

struct dc_fast_opts {
	const char *socket_name;   /* '@' prefix: abstract */
	uint32_t nslots;           /* thread slots per process */
	uint64_t slot_bytes;       /* ring bytes per thread, power of two */
	uint32_t full_wait_ms;     /* a full ring waits for us this long
	                              without progress; 0: it drops */
	int fast_map_fd;           /* BPF map tgid -> struct dc_fast_proc */
	int state_maps_fd;         /* BPF array of the call-state maps,
	                              -1: none (the TLS only) */
	uint32_t *fast_gen;        /* moved after each entry added to it */
	dc_fast_room room;
	dc_fast_sink sink;
	dc_fast_admit admit;
	dc_fast_exec_ahead exec_ahead; /* NULL: none placed ahead */
	void *ctx;
};

/* Listen, and decide from the spec which wrapped functions are recorded
 * (skip[i]: probe i is not used here).  NULL, with a warning, if the
 * socket cannot be made; the caller goes on without the fast path. */
struct dc_fast *dc_fast_open(const struct dc_fast_opts *o,
			     const struct dc_spec *spec, const bool *skip);
void dc_fast_close(struct dc_fast *f);

/* Is probe i recorded by the clients' wrappers instead of a uprobe? */
bool dc_fast_covers(const struct dc_fast *f, size_t i);
size_t dc_fast_ncovered(const struct dc_fast *f);
/* The value for DC_FAST_SOCKET in a command's environment. */
const char *dc_fast_socket_name(const struct dc_fast *f);
/* Readable when a client connects or talks: add to the main loop. */
int dc_fast_fd(const struct dc_fast *f);
bool dc_fast_active(const struct dc_fast *f); /* some ring is mapped */

/* Accept clients and advance their handshakes, without blocking. */
void dc_fast_service(struct dc_fast *f);
/* Remember every ring's head; dc_fast_drain then copies up to there.
 * Taken before the kernel ring is drained, so the system calls a client
 * call made are in the stream before the call itself, as on the uprobe
 * path. */
void dc_fast_snapshot(struct dc_fast *f);
void dc_fast_drain(struct dc_fast *f);
/* The process exited, or exec'd at `ts` (monotonic ns): its rings from
 * before then will not change; copy everything left and let them go. */
void dc_fast_finish(struct dc_fast *f, pid_t pid, uint64_t ts);
/* All rings, to the end (the collector is stopping). */
void dc_fast_finish_all(struct dc_fast *f);

/* A process that should connect (the command, after a fork or an exec;
 * at ts; expect = false: it did), and one that exited: if it never connected,
 * say so (dc_fast_without counts them). */
void dc_fast_expect(struct dc_fast *f, pid_t pid, bool expect, uint64_t ts);
void dc_fast_exited(struct dc_fast *f, pid_t pid);
unsigned dc_fast_without(const struct dc_fast *f);

/* A process's client records lost: in all (full rings, invalid records
 * and the two below), and of them signal handlers' calls that could not
 * wait for their thread's record (nested) and threads' that found no
 * free slot (noslot). */
struct dc_fast_lost {
	uint64_t count, nested, noslot;
};

/* Records lost per process: fills up to max (pid, lost) pairs, returns
 * how many processes lost any; *total is the sum. */
size_t dc_fast_drops(struct dc_fast *f, uint32_t *pids,
		     struct dc_fast_lost *lost, size_t max, uint64_t *total);

#endif /* DC_COLLECT_FASTPATH_H */

/*
 * fdtable.h - a process's file descriptors as the event stream
 * established them, and what /proc said, each in its place.
 *
 * The collector reads /proc/PID/fd (an FDS frame) and /proc/PID/cwd (in
 * a PROCESS frame) while the process runs on, so they say what was true
 * when they were read, their `taken` time (dc-stream(5)), not where the
 * frame stands in the stream.  dc-aggregate keeps them as pending
 * snapshots and applies each before the first event of its input that
 * ends after it was taken.  Even then a snapshot only fills in: a
 * descriptor an event opened, duplicated or closed keeps what the
 * events say (issue 9: /proc must never override the stream).  Events
 * that need a working directory only a pending snapshot has wait for it
 * (hold.c).
 *
 * The snapshot read after an exec also says what the new program
 * inherited: the collector reads it when the EXEC record reaches it,
 * and a quick program has made its first calls by then.  A descriptor
 * only an older snapshot named may have changed before the exec
 * unseen (a shell's redirection, `sh -c 'prog >out'`), and one the
 * program's events do not touch before the snapshot was taken had the
 * same file from the exec on.  So the process's events wait from the
 * exec until that snapshot is due (hold.c), and it then names, from
 * the exec on, the descriptors neither the stream before nor those
 * events followed.
 *
 * A table maps fd -> value: the output string id of its file in the low
 * 32 bits (0: not known) and the FD_* bits above.
 */
#ifndef DC_AGG_FDTABLE_H
#define DC_AGG_FDTABLE_H

#include <stdint.h>

#include "u64map.h"

#define FD_STREAM (1ULL << 32) /* an event opened, duplicated or closed it */
#define FD_CLOSED (1ULL << 33) /* closed by an event: no file until reused */
#define FD_EXEC   (1ULL << 34) /* open before an exec, which may have
                                  closed it (close-on-exec is not seen) */

/* The file of fd, 0 if none is known or it is closed. */
uint32_t fdt_file(const struct u64map *fds, int64_t fd);
/* An event made fd refer to file (0: a file without a name we know). */
void fdt_set(struct u64map *fds, int64_t fd, uint32_t file);
/* An event closed fd, or every fd from lo to hi. */
void fdt_close(struct u64map *fds, int64_t fd);
void fdt_close_range(struct u64map *fds, uint64_t lo, uint64_t hi);
/* The process execed: what is open may have been closed on exec. */
void fdt_exec(struct u64map *fds);
/* Apply a snapshot of the open fds (fd -> string id) taken after every
 * event applied so far: it names the fds no event established (or
 * established without a name), and forgets those only an older snapshot
 * or the time before an exec vouched for that it does not list.  At an
 * exec, applied from the exec on with a snapshot read after it: except
 * the fds in `changed` (NULL: none), which the events between the exec
 * and the snapshot opened, duplicated onto or closed, so the snapshot
 * shows them after that; it is applied again at its time. */
void fdt_apply(struct u64map *fds, const struct u64map *snap,
	       const struct u64map *changed);

/* A snapshot waiting for its time. */
struct snapshot {
	struct snapshot *next;
	uint32_t pid;
	uint64_t taken;           /* the input's monotonic ns */
	int has_fds;
	struct u64map fds;        /* fd -> output string id */
	char *cwd;                /* NULL: none */
};

/* Put s into list, kept in order of taken (equal times: in arrival
 * order). */
void snap_insert(struct snapshot **list, struct snapshot *s);
/* Take off the list the first snapshot taken before upto, or NULL. */
struct snapshot *snap_due(struct snapshot **list, uint64_t upto);
/* pid's first pending snapshot of descriptors taken at or after t, or
 * NULL. */
struct snapshot *snap_fds_from(struct snapshot *list, uint32_t pid,
			       uint64_t t);
/* The working directory of pid's first pending snapshot that has one,
 * or NULL. */
const char *snap_cwd(const struct snapshot *list, uint32_t pid);
/* The working directory of pid's last pending snapshot taken at or
 * before t that has one, or NULL. */
const char *snap_cwd_before(const struct snapshot *list, uint32_t pid,
			    uint64_t t);
/* Forget pid's snapshots (it exited), or all of them. */
void snap_drop_pid(struct snapshot **list, uint32_t pid);
void snap_free_all(struct snapshot **list);
void snap_free(struct snapshot *s);

#endif /* DC_AGG_FDTABLE_H */

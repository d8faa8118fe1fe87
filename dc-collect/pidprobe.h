/*
 * pidprobe.h - uprobes whose breakpoints go only into the traced
 * processes and the children they fork.
 *
 * A uprobe attached without a process (a multi-uprobe link, or the uprobe
 * perf PMU with pid -1) writes its breakpoint into the library's pages of
 * every process on the host: each one that calls the function pays the
 * trap (about 20 us here) whether it is traced or not.  The kernel filters
 * by process when the probe is a perf event bound to a task: it puts the
 * breakpoint only into the address spaces (mm) of the tasks its events
 * are bound to, and removes it from any other that hits it (a child that
 * inherited the parent's pages) at that child's first hit.
 *
 * A forked child must get the probes before it runs, or its first calls
 * are missed.  Only perf's own inheritance does that: an event opened with
 * `inherit` is copied into every task its task creates (threads and
 * processes), during fork, and an event survives exec.  Two kernel facts
 * shape how it is used here:
 *
 *  - inheritance re-creates the event through its PMU; the uprobe PMU
 *    would read the probe's path from the forking process's memory, so
 *    the probes are tracefs uprobe events (uprobe_events), which inherit
 *    by their id;
 *  - an inherited copy takes the parent's BPF program as its own, and the
 *    first copy to close (the first child or thread to exit) takes the
 *    program off the probe for everyone.  So each probe has two events on
 *    the traced process: one inherited and with no program (it only
 *    widens the filter), and one not inherited that holds the program and
 *    its cookie; the program runs wherever the filter lets the probe fire.
 *
 * The BPF programs still check that the process is selected.
 */
#ifndef DC_PIDPROBE_H
#define DC_PIDPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

struct dc_pidprobes;

/* The tracefs uprobe events of this collector, run through entry_prog and
 * exit_prog (kprobe-type programs); NULL with errno set and *why saying
 * it in words when they cannot be made here (no tracefs). */
struct dc_pidprobes *dc_pidprobes_new(int entry_prog, int exit_prog,
				      const char **why);

/* The probes come in sets, each placed as one.  Set 0: the functions
 * where the spec names them (libc's, for the fallback), defined whenever
 * they are first needed; dc_pidprobes_new_set numbers the others (one
 * static program's own copies of them, placed into the processes that
 * run it only). */
#define DC_PIDPROBES_SPEC 0u

/* A new set's number (1 up). */
unsigned dc_pidprobes_new_set(struct dc_pidprobes *pp);

/* Define the entry and return probes of function `name` at `offset` in
 * `path`, with cookie `cookie` (what bpf_get_attach_cookie() returns), in
 * set `set`.  0, or -errno (a path tracefs cannot name, a kernel that
 * refuses).  Before the first, the unused events of collectors that no
 * longer run are removed, and a notice counts them. */
int dc_pidprobes_add(struct dc_pidprobes *pp, unsigned set, const char *path,
		     __u64 offset, const char *name, __u64 cookie);

/* Put every probe of set into process pid, its threads, and everything
 * they create from now on.  A probe that cannot be placed is warned about
 * by name.  Returns the number of probes of the set placed. */
size_t dc_pidprobes_follow(struct dc_pidprobes *pp, pid_t pid, unsigned set);

/* Attach the programs to every probe now, on an event bound to thread
 * tid (one that stays, and calls none of the functions: the probes'
 * breakpoints go into its process too), so that following a process
 * later only widens the probes' filters: a fraction of the time.
 * Returns the number of probes held. */
size_t dc_pidprobes_hold(struct dc_pidprobes *pp, pid_t tid);

/* Close the events placed into process pid by dc_pidprobes_follow, once
 * it and every process it created are gone (what they inherited ends
 * with them): later, a few at a time (dc_pidprobes_tidy). */
void dc_pidprobes_unfollow(struct dc_pidprobes *pp, pid_t pid);

/* Close events unfollowed, for about budget_ns: each close waits for the
 * kernel (0.3 ms here), and placing events waits while one runs, so the
 * caller does this between its other work.  True while some are left. */
bool dc_pidprobes_tidy(struct dc_pidprobes *pp, uint64_t budget_ns);

/* Close every event and remove the tracefs definitions.  The events that
 * held the programs are taken down, and the definitions removed, by a
 * child of its own that outlives the collector: the kernel takes tens
 * of ms for each. */
void dc_pidprobes_free(struct dc_pidprobes *pp);

#endif /* DC_PIDPROBE_H */

/*
 * proc.h - process and system facts read from /proc and /sys, encoded as
 * stream payloads (PROCESS and SYSINFO frames).
 */
#ifndef DC_PROC_H
#define DC_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Build a PROCESS payload for pid into buf, ending with the monotonic
 * time its reading began; returns its length, or 0 if the process is
 * gone.  since: when the description starts to hold (an exec's time), 0
 * for that time; flags: DC_PROC_F_*. */
size_t dc_proc_record(pid_t pid, uint64_t since, uint32_t flags,
		      unsigned char *buf, size_t cap);

/* Build an FDS payload: pid's open file descriptors and their paths,
 * then the time the reading began.  Returns its length, or 0 if the
 * process is gone. */
size_t dc_fds_record(pid_t pid, unsigned char *buf, size_t cap);

/* Whether the PROCESS payload (plen bytes) read for pid after an exec
 * of file (len bytes, as the EXEC record names it) describes that
 * program: read late, it may describe the one a second exec loaded
 * (sh -c 'exec prog').  True when it cannot be told. */
bool dc_proc_runs(pid_t pid, const char *file, size_t len,
		  const unsigned char *payload, size_t plen);

/* The last PROCESS payload given for each process, so a fork can be
 * described from its parent's (the child runs the parent's program until
 * it execs) instead of from /proc, read later, perhaps after the exec. */
struct dc_descs {
	void *root;              /* tsearch(3) tree of descriptions by pid */
};

/* Keep payload (len bytes, a PROCESS payload for its pid) as the
 * process's description; replaces the one before. */
void dc_descs_put(struct dc_descs *d, const unsigned char *payload,
		  size_t len);
/* Build into buf the description of child, forked by parent at ts: the
 * parent's (flag DC_PROC_F_FORKED, ppid parent, since and taken ts), and
 * keep it as the child's.  Returns its length, 0 if the parent has none
 * (or it does not fit). */
size_t dc_descs_fork(struct dc_descs *d, pid_t parent, pid_t child,
		     uint64_t ts, unsigned char *buf, size_t cap);
/* Whether pid has a description. */
bool dc_descs_has(struct dc_descs *d, pid_t pid);
/* Forget a process (it exited), or everything. */
void dc_descs_drop(struct dc_descs *d, pid_t pid);
void dc_descs_free(struct dc_descs *d);

/* Build a FILE payload for path (lstat); 0 if it cannot be read. */
size_t dc_file_record(const char *path, unsigned char *buf, size_t cap);

/* Build a SYSINFO payload (key, value string pairs): kernel, CPUs,
 * memory, block devices, mounts.  Returns its length. */
size_t dc_sysinfo_record(unsigned char *buf, size_t cap);

#endif /* DC_PROC_H */

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
 * gone, or exited or execed while it was read.  since: when the
 * description starts to hold (an exec's time), 0 for that time; flags:
 * DC_PROC_F_*. */
size_t dc_proc_record(pid_t pid, uint64_t since, uint32_t flags,
		      unsigned char *buf, size_t cap);

/* Build an FDS payload: pid's open file descriptors and their paths,
 * then the time the reading began.  Returns its length, or 0 if the
 * process is gone. */
size_t dc_fds_record(pid_t pid, unsigned char *buf, size_t cap);

/* Whether the PROCESS payload (plen bytes) read for pid after an exec
 * of file (len bytes, as the EXEC record names it) describes that
 * program: read late, it may describe the one a second exec loaded
 * (sh -c 'exec prog'), or none (the process has exited).  True when it
 * cannot be told. */
bool dc_proc_runs(pid_t pid, const char *file, size_t len,
		  const unsigned char *payload, size_t plen);

/* Whether the program pid exec'd will load the client library lib (an
 * absolute path, resolved) through LD_PRELOAD, read from /proc right after
 * its exec: a dynamic program (an interpreter), without AT_SECURE, whose
 * environment's LD_PRELOAD names lib.  DC_PRELOAD_GONE: it cannot be
 * told (the process is gone). */
enum dc_preload {
	DC_PRELOAD_YES,
	DC_PRELOAD_NOT_NAMED,    /* no LD_PRELOAD naming it */
	DC_PRELOAD_SECURE,       /* AT_SECURE: ld.so ignores it */
	DC_PRELOAD_STATIC,       /* no interpreter to load it */
	DC_PRELOAD_FOREIGN,      /* not a 64-bit ELF program */
	DC_PRELOAD_GONE,
};
enum dc_preload dc_proc_preload(pid_t pid, const char *lib);
/* The program a command's execvp(3) will run (cmd, searched for in PATH
 * unless it names a directory) in path, resolved, and whether it will
 * load the client given an environment that preloads it: set-user-ID,
 * set-group-ID or with file capabilities (DC_PRELOAD_SECURE: AT_SECURE
 * then, unless its owner is the caller; a guess on the safe side),
 * static, or DC_PRELOAD_YES (a dynamic one, a script, or not found:
 * nothing to do before its exec). */
enum dc_preload dc_command_preload(const char *cmd, char *path, size_t len);
/* The same of the program file fd. */
enum dc_preload dc_file_preload(int fd);
/* Why not, in words, for messages. */
const char *dc_preload_why(enum dc_preload p);

/* The ELF file fd's type (ET_*) in *type; 1 if it names an interpreter
 * (PT_INTERP), 0 if not, -1 if it is not a 64-bit ELF file. */
int dc_elf_interp(int fd, uint16_t *type);

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

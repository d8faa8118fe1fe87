/*
 * fallback.h - the functions the client library wraps, for processes
 * that will not load it: uprobes placed into those processes only, when
 * the collector reads their exec.  fallback.c says how and what is
 * missed.
 */
#ifndef DC_COLLECT_FALLBACK_H
#define DC_COLLECT_FALLBACK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fastpath.h"
#include "spec.h"

struct dc_fallback;

/* Uprobes for the probes of spec that fast records (dc_fast_covers), run
 * through entry_prog and exit_prog (fallback.bpf.h); client is the client
 * library's resolved path.  NULL, with *why in words, when they cannot be
 * made here (no writable tracefs). */
struct dc_fallback *dc_fallback_new(const struct dc_spec *spec,
				    const struct dc_fast *fast, int entry_prog,
				    int exit_prog, const char *client,
				    const char **why);
void dc_fallback_free(struct dc_fallback *fb);

/* The events of processes gone, closed for a while (dc_pidprobes_tidy):
 * true while some are left, to be called again soon. */
bool dc_fallback_tidy(struct dc_fallback *fb);

/* Process pid exec'd program prog (NULL: not known) at ts (monotonic
 * ns).  True when it will not record its own calls and is dealt with
 * here: it got the uprobes (or has had them since before this exec), or
 * it cannot be traced at all and a warning said so.  False when it
 * should connect to the fast path. */
bool dc_fallback_exec(struct dc_fallback *fb, pid_t pid, uint64_t ts,
		      const char *prog);
/* Process pid, on the fast path, is about to exec a program that will not
 * load the client: true when it has the uprobes (placed now, or before),
 * which the kernel keeps across its exec. */
bool dc_fallback_ahead(struct dc_fallback *fb, pid_t pid);
/* ... of program (a descriptor), which will not load the client though
 * its environment names it (static, set-ID: dc_file_preload).  */
bool dc_fallback_ahead_program(struct dc_fallback *fb, pid_t pid,
			       int program);
/* Process pid, the command, stopped before its execvp of cmd: if that
 * program will not load the client though its environment preloads it
 * (static, set-ID: dc_command_preload), its uprobes are placed now, as
 * dc_fallback_ahead's.  True when they were. */
bool dc_fallback_command(struct dc_fallback *fb, pid_t pid, const char *cmd);
/* ... and that exec failed: the uprobes placed for it go (the process
 * stays on the fast path, where they would only slow it down). */
void dc_fallback_ahead_failed(struct dc_fallback *fb, pid_t pid);
/* parent forked child at ts: true when the child has the uprobes. */
bool dc_fallback_fork(struct dc_fallback *fb, pid_t parent, pid_t child,
		      uint64_t ts);
/* pid exited: true when it had the uprobes. */
bool dc_fallback_exit(struct dc_fallback *fb, pid_t pid);

#endif /* DC_COLLECT_FALLBACK_H */

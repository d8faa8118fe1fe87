/*
 * tracefs.h - where the kernel's tracing file system is, and what it
 * offers.  Shared by dc-explore and dc-gen.
 */
#ifndef DC_TRACEFS_H
#define DC_TRACEFS_H

/* The tracefs directory: $DC_TRACEFS if set (tests point it at a fake
 * tree), else /sys/kernel/tracing or /sys/kernel/debug/tracing, whichever
 * has an "events" directory.  NULL when none is mounted. */
const char *dc_tracefs(void);

/* Does tracepoint CATEGORY:NAME exist?  1 yes, 0 no, -1 no tracefs. */
int dc_tracepoint_exists(const char *category, const char *name);

#endif /* DC_TRACEFS_H */

/*
 * tracefs.h - where the kernel's tracing file system is, and which
 * tracepoints it offers.  The one owner of that question for dc-explore,
 * dc-gen and dc-collect.
 */
#ifndef DC_TRACEFS_H
#define DC_TRACEFS_H

/* The mounted tracefs: /sys/kernel/tracing or /sys/kernel/debug/tracing,
 * whichever has an "events" directory; NULL when none is. */
const char *dc_tracefs_kernel(void);

/* $DC_TRACEFS if set (the tests of dc-explore and dc-gen point it at a
 * fake tree; NULL if it has no "events"), else dc_tracefs_kernel().
 * The collector, which attaches to the real kernel, uses the latter. */
const char *dc_tracefs(void);

/* Mount tracefs at /sys/kernel/tracing unless one is mounted already:
 * 0 when one is there afterwards, -1 (errno set) if not. */
int dc_tracefs_mount(void);

/* Does tracepoint CATEGORY:NAME exist under tracefs root?  1 yes, 0 no,
 * -1 when root is NULL (no tracefs). */
int dc_tracefs_has(const char *root, const char *category, const char *name);

#endif /* DC_TRACEFS_H */

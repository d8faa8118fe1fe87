/*
 * profile.h - profile mode: turn the kernel's running sums per (process,
 * probe) into one COUNTERS frame per interval.
 */
#ifndef DC_PROFILE_H
#define DC_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct dc_profiler;

struct dc_profiler *dc_profiler_new(int map_fd);
/* A COUNTERS payload with what changed since the last call, for the
 * interval [start_ns, start_ns + interval_ns); *len gets its size (0 when
 * nothing changed).  The buffer belongs to the profiler. */
const unsigned char *dc_profiler_take(struct dc_profiler *p, uint64_t start_ns,
				      uint64_t interval_ns, size_t *len);
/* A process exited: once its last interval is taken, drop its sums. */
void dc_profiler_exited(struct dc_profiler *p, uint32_t pid);
void dc_profiler_free(struct dc_profiler *p);

#endif /* DC_PROFILE_H */

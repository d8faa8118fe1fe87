/*
 * hosts.h - keeping hosts apart when dc-aggregate merges the streams of
 * several hosts (one per node of a job).
 *
 * Process ids of different hosts may be equal.  Every input whose host
 * differs from the first input's gets a host index h > 0, and its
 * process and thread ids become id + h * 2^22 (Linux pids are below
 * 2^22), in events (pid, tid, a FORK's child), PROCESS, FDS and COUNTERS
 * frames: the rewrite happens before dc-aggregate looks at a frame, so
 * everything downstream sees unique ids.  PROCESS frames of a merge of
 * several hosts also get, in their job string (dc-stream(5)), the pairs
 * host=NAME, host_index=h, clock_offset_ns (the host's monotonic-to-wall
 * offset from its stream header) and, where the host's SYSINFO frame gave
 * them, clock_ntp, clock_esterror_us, clock_maxerror_us.
 */
#ifndef DC_AGGREGATE_HOSTS_H
#define DC_AGGREGATE_HOSTS_H

#include <stdint.h>

#include "stream.h"

#define DC_HOST_PID_SHIFT 22

struct host_view {
	unsigned index;          /* 0: the first input's host */
	int tag;                 /* several hosts: add the host pairs */
	char host[DC_NAME_MAX + 1];
	int64_t clock_offset_ns;
	char ntp[32];            /* from SYSINFO clock.*, "" if none */
	char esterror[32], maxerror[32];
	unsigned char *buf;      /* the rewritten payload */
	uint32_t cap;
};

/* Give each of n views its host index; returns the number of hosts. */
unsigned hosts_assign(struct host_view *views, const struct dc_stream_info *infos,
		      const int *header_ok, unsigned n);

/* The frame as dc-aggregate should see it: f itself, or a rewritten
 * copy in v->buf (valid until the next call). */
const struct dc_frame *hosts_rewrite(struct host_view *v, const struct dc_frame *f,
				     struct dc_frame *out);

void hosts_free(struct host_view *v);

#endif

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
 * offset from its stream header), where the host's SYSINFO frame gave
 * them clock_ntp, clock_esterror_us, clock_maxerror_us, and where an MPI
 * collective set the clock (hosts_sync_mpi) clock_sync and
 * clock_correction_ns.
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
	const char *synced;      /* the collective the clock was set by */
	int64_t correction_ns;   /* added to the wall-clock alignment */
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

/* Where the job uses MPI: the end of the first MPI_Init (else
 * MPI_Init_thread, else MPI_Barrier) is a moment every rank sees at about
 * the same time.  For stream files of several hosts, find it in each and
 * set correction[i] (ns, to add to input i's times after delta[i]) so
 * that every other host's first exit meets the first host's.  Inputs
 * that are not regular files, or have no such call, get 0.  Returns how
 * many inputs were corrected. */
unsigned hosts_sync_mpi(struct host_view *views, const char *const *paths,
			const int64_t *delta, int64_t *correction, unsigned n);

void hosts_free(struct host_view *v);

#endif

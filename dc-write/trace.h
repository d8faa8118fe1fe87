/*
 * trace.h - turn datacrumbs stream frames into DFTracer trace lines
 * (dc-trace(5)): complete events, metadata (HH, FH, SH, PR, process_name,
 * thread_name), the start and end events, one or several output files.
 */
#ifndef DC_WRITE_TRACE_H
#define DC_WRITE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

struct gz_pool;

enum trace_split { SPLIT_NONE, SPLIT_PID, SPLIT_HOST };

struct trace_opts {
	const char *path;      /* "-" for standard output */
	int plain;             /* no gzip */
	int index;             /* write OUT.idx next to regular gzip files */
	int force;             /* replace existing files */
	enum trace_split split;
	uint64_t max_size;     /* rotate after this many compressed bytes; 0 */
	size_t chunk_size;     /* uncompressed bytes per gzip member */
	struct gz_pool *pool;
};

/* How the input ended, for the end event. */
#define TRACE_TRUNCATED   0x1
#define TRACE_CORRUPT     0x2
#define TRACE_INTERRUPTED 0x4

struct trace;

/* The stable string hash of dc-trace(5): FNV-1a 64, xor-folded to 53 bits
 * so that every value is an exact JSON (IEEE double) integer. */
uint64_t trace_hash(const void *data, size_t len);

/* Creates the outputs that exist from the start (all but per-pid ones);
 * dies with a one-line message when one cannot be created. */
/* Whether a stream with this header can be written: 1 if its events
 * carry stream ids (DC_STREAM_F_IDS), 0 for a collector's stream, whose
 * parents are dc-aggregate's to decide (the call tree has one owner). */
int trace_accepts(const struct dc_stream_info *info);
struct trace *trace_new(const struct trace_opts *opts,
			const struct dc_stream_info *info);
/* Handle one frame.  0, or -1 with a one-line reason in err when its
 * payload is malformed (the frame is skipped). */
int trace_frame(struct trace *t, const struct dc_frame *frame, char *err,
		size_t errlen);
/* Send every partly filled chunk to be written (the input is idle).
 * Not concurrently with the other calls. */
void trace_flush(struct trace *t);
/*
 * A counter sample (ph "C"), for interval profiles: COUNTERS frames come
 * through here, one sample per entry.  It describes pid first (PR,
 * process_name) and counts as a stream event in the end event.
 */
void trace_counter(struct trace *t, uint32_t pid, uint64_t ts_ns,
		   const char *name, const char *cat, int n,
		   const char *const *keys, const int64_t *values);
/* Write the end events, close every output, free t.  0, or -1 after a
 * one-line message when an output could not be written. */
int trace_finish(struct trace *t, int how);

/* The input stopped with reader status st (dc_reader_next): the TRACE_
 * flags that adds to *how and the exit status it gives, 0 at its end. */
int trace_input_end(int st, int *how);

#endif

/*
 * fuzz-write - dc-write on whole streams (dc-write/trace.c and the
 * outputs behind it): frames to DFTracer trace lines, gzip members and
 * all, written to /dev/null, as `dc-write --threads 0 /dev/null` does.
 * Exit: 0, or as dc-write: 3 truncated, 4 malformed.
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "gzout.h"
#include "messages.h"
#include "stream.h"
#include "trace.h"

/* Small gzip members, so that short inputs cross member boundaries too;
 * the compression level is not what is fuzzed. */
#define FUZZ_CHUNK (16u << 10)
#define FUZZ_LEVEL 1

static int write_one(struct fuzz_input *in)
{
	struct dc_stream_info info;
	struct trace_opts opts;
	struct dc_reader *r;
	struct dc_frame frame;
	struct trace *t;
	char err[256];
	int st, how = 0, status = DC_EXIT_OK;

	r = dc_reader_open(fuzz_input_fd(in), "input");
	if (r == NULL)
		sysdie("cannot allocate the stream reader");
	st = dc_reader_header(r, &info);
	/* dc-write refuses a collector's stream with status 2. */
	if (st != DC_READ_FRAME || !trace_accepts(&info)) {
		dc_reader_close(r);
		return st != DC_READ_FRAME ? dc_read_exit_status(st)
					   : DC_EXIT_USAGE;
	}
	memset(&opts, 0, sizeof(opts));
	opts.path = "/dev/null";
	opts.chunk_size = FUZZ_CHUNK;
	opts.pool = gz_pool_new(0, GZ_ZLIB, FUZZ_LEVEL, 0);
	t = trace_new(&opts, &info);
	while ((st = dc_reader_next(r, &frame)) == DC_READ_FRAME)
		if (trace_frame(t, &frame, err, sizeof(err)) != 0)
			status = DC_EXIT_BADINPUT;
	if (st != DC_READ_EOF)
		status = trace_input_end(st, &how);
	if (trace_finish(t, how) != 0)
		status = DC_EXIT_FAILURE;
	gz_pool_free(opts.pool);
	dc_reader_close(r);
	return status;
}

const struct fuzz_target fuzz_target = { "fuzz-write", NULL, write_one };

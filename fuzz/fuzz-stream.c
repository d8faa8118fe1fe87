/*
 * fuzz-stream - the stream frame decoder (lib/stream.c): header, frames,
 * and the event records of EVENTS frames, as every reading tool sees them.
 * Exit: 0 for a whole stream, else dc_read_exit_status (3 truncated,
 * 4 corrupt).
 */
#include "config.h"

#include "fuzz.h"
#include "messages.h"
#include "stream.h"

static int stream_one(struct fuzz_input *in)
{
	struct dc_stream_info info;
	struct dc_reader *r;
	struct dc_frame f;
	int st;

	r = dc_reader_open(fuzz_input_fd(in), "input");
	if (r == NULL)
		sysdie("cannot allocate the reader");
	st = dc_reader_header(r, &info);
	while (st == DC_READ_FRAME)
		st = dc_reader_next(r, &f);
	dc_reader_close(r);
	return dc_read_exit_status(st);
}

const struct fuzz_target fuzz_target = { "fuzz-stream", NULL, stream_one };

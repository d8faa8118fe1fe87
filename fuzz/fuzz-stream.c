/*
 * fuzz-stream - the stream frame decoder (lib/stream.c): header, frames,
 * and the event records of EVENTS frames, as every reading tool sees them.
 * Exit: 0 for a whole stream, else dc_read_exit_status (3 truncated,
 * 4 corrupt).
 */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "messages.h"
#include "stream.h"

int main(void)
{
	struct dc_stream_info info;
	struct dc_reader *r;
	struct dc_frame f;
	unsigned long frames = 0;
	int st;

	dc_messages_init("fuzz-stream");
	r = dc_reader_open(STDIN_FILENO, "standard input");
	if (r == NULL)
		sysdie("cannot allocate the reader");
	st = dc_reader_header(r, &info);
	if (st == DC_READ_FRAME)
		while ((st = dc_reader_next(r, &f)) == DC_READ_FRAME)
			frames++;
	st = dc_read_exit_status(st);
	dc_reader_close(r);
	return st;
}

/*
 * fuzz-check - dc-write --check (dc-write/check.c) on DFTracer traces,
 * gzip (.pfw.gz, members and all) or plain.  Its report goes to standard
 * output.  Exit: 0 valid, 3 incomplete, 4 invalid.
 */
#include "config.h"

#include "check.h"
#include "fuzz.h"

static int check_one(struct fuzz_input *in)
{
	return check_trace(fuzz_input_path(in));
}

const struct fuzz_target fuzz_target = { "fuzz-check", NULL, check_one };

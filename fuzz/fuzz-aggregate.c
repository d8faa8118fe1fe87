/*
 * fuzz-aggregate - dc-aggregate on whole streams (dc-aggregate/): one
 * input, its stream written to /dev/null, as `dc-aggregate <INPUT
 * >/dev/null` does; the aggregator is freed after each input.
 * Exit: 0, or as dc-aggregate: 3 truncated, 4 malformed.
 */
#include "config.h"

#include <fcntl.h>
#include <unistd.h>

#include "aggregate.h"
#include "fuzz.h"
#include "messages.h"

static int aggregate_one(struct fuzz_input *in)
{
	struct aggregator ag;
	int out, status;

	out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (out < 0)
		sysdie("cannot open /dev/null");
	aggregator_init(&ag, out);
	aggregator_add_input(&ag, "input", fuzz_input_fd(in));
	status = aggregate(&ag);
	aggregator_free(&ag);
	close(out);
	return status;
}

const struct fuzz_target fuzz_target = {
	"fuzz-aggregate", NULL, aggregate_one
};

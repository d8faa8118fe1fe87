/*
 * fuzz-config - the YAML config loader of dc-gen (dc-gen/config.c,
 * dc-config(5)), without the library lookups that follow it.
 * Exit: 0 for a config it accepts, or as dc-gen: 4 for a bad one (the
 * loader's one-line message on standard error), 1 when it cannot be read.
 */
#include "config.h"

#include "fuzz.h"
#include "gen.h"
#include "messages.h"

static int config_one(struct fuzz_input *in)
{
	struct config cfg;
	char err[DC_CONFIG_ERR_MAX];
	int status;

	status = config_load(&cfg, fuzz_input_path(in), err, sizeof(err));
	if (status != 0) {
		warn("%s", err);
		return status;
	}
	config_free(&cfg);
	return 0;
}

const struct fuzz_target fuzz_target = { "fuzz-config", NULL, config_one };

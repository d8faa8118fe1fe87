/*
 * fuzz-config - the YAML config loader of dc-gen (dc-gen/config.c,
 * dc-config(5)), without the library lookups that follow it.
 * Exit: 0 for a config it accepts, 4 (with one line) for a bad one: the
 * loader dies on the first problem.
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "gen.h"

static int config_one(struct fuzz_input *in)
{
	struct config cfg;

	memset(&cfg, 0, sizeof(cfg));
	config_load(&cfg, fuzz_input_path(in));
	config_free(&cfg);
	return 0;
}

const struct fuzz_target fuzz_target = { "fuzz-config", NULL, config_one };

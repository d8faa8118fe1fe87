/*
 * fuzz-spec - the probe-spec JSON loader (lib/spec.c, dc-probes(5)):
 * JSON (or gzip JSON) to the spec model, as dc-sign and dc-collect load
 * it.  Exit: 0 for a valid spec, 4 for a bad one.
 */
#include "config.h"

#include "fuzz.h"
#include "sign.h"
#include "spec.h"
#include "stream.h"

static int spec_one(struct fuzz_input *in)
{
	char err[512];
	struct dc_spec *spec;
	json_t *doc;
	int status = 0;

	doc = dc_json_read_buffer(in->data, in->len, "input", err, sizeof(err),
				  &status);
	if (doc == NULL)
		return status;
	spec = dc_spec_from_json(doc, err, sizeof(err));
	json_decref(doc);
	if (spec == NULL)
		return DC_EXIT_BADINPUT;
	dc_spec_free(spec);
	return 0;
}

const struct fuzz_target fuzz_target = { "fuzz-spec", NULL, spec_one };

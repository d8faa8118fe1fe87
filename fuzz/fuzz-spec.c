/*
 * fuzz-spec - the probe-spec JSON loader (lib/spec.c, dc-probes(5)):
 * JSON (or gzip JSON) to the spec model, as dc-sign and dc-collect load
 * it.  Exit: 0 for a valid spec, 4 for a bad one.
 */
#include "config.h"

#include <stdlib.h>

#include "fuzz.h"
#include "messages.h"
#include "sign.h"
#include "spec.h"

int main(int argc, char **argv)
{
	char err[512];
	size_t len;
	unsigned char *in;
	struct dc_spec *spec;
	json_t *doc;
	int status = 0;

	dc_messages_init("fuzz-spec");
	in = fuzz_read_input(argc, argv, &len);
	doc = dc_json_read_buffer(in, len, "input", err, sizeof(err), &status);
	free(in);
	if (doc == NULL)
		return status;
	spec = dc_spec_from_json(doc, err, sizeof(err));
	json_decref(doc);
	if (spec == NULL)
		return DC_EXIT_BADINPUT;
	dc_spec_free(spec);
	return 0;
}

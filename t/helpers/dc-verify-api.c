/*
 * dc-verify-api - exercise dc_verify_file() (lib/sign.h) as dc-collect
 * calls it, for t/2200-verify-api.t.
 *
 *   dc-verify-api SIGNED [KEY]     KEY "-" or absent: the default key path
 *
 * Prints "ok SIGNER UID PROBES NSPEC" (summary fields and the number of
 * probes in the returned spec) or "fail STATUS ERR", and exits with the
 * status dc_verify_file set.  Exits 99 if the API breaks its contract
 * (a newline in err, an empty err, a status of 0 on failure, a summary
 * left set on failure).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sign.h"

int main(int argc, char **argv)
{
	const char *key = argc > 2 && strcmp(argv[2], "-") != 0 ? argv[2] : NULL;
	json_t *spec, *summary = (json_t *)1, *spec2;
	char err[512];
	int status = -1, status2 = -1;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: dc-verify-api SIGNED [KEY]\n");
		return 2;
	}
	memset(err, 'x', sizeof(err));
	spec = dc_verify_file(argv[1], key, &summary, err, sizeof(err), &status);
	/* Without a summary pointer it must give the same answer. */
	spec2 = dc_verify_file(argv[1], key, NULL, err, sizeof(err), &status2);
	if ((spec == NULL) != (spec2 == NULL)) {
		printf("contract: summary == NULL changes the result\n");
		return 99;
	}
	json_decref(spec2);
	if (spec == NULL) {
		if (status == 0 || status != status2 || summary != NULL ||
		    memchr(err, '\0', sizeof(err)) == NULL || err[0] == '\0' ||
		    strchr(err, '\n') != NULL) {
			printf("contract: bad failure report (status %d)\n", status);
			return 99;
		}
		printf("fail %d %s\n", status, err);
		return status;
	}
	if (status != 0 || !json_is_object(summary) || !json_is_object(spec)) {
		printf("contract: bad success report\n");
		return 99;
	}
	printf("ok %s %lld %lld %zu\n",
	       json_string_value(json_object_get(summary, "signer")),
	       (long long)json_integer_value(json_object_get(summary, "uid")),
	       (long long)json_integer_value(json_object_get(summary, "probes")),
	       json_array_size(json_object_get(spec, "probes")));
	json_decref(summary);
	json_decref(spec);
	return 0;
}

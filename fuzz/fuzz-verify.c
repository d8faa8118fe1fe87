/*
 * fuzz-verify - the signature verifier (lib/sign.c): a signed spec
 * document checked against a fixed key, the same code dc-collect runs on
 * every spec before loading anything.  The seeds are signed with this
 * key (t/fuzz/verify/README).  Exit: 0 verified, 4 malformed, 5 refused.
 */
#include "config.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "messages.h"
#include "sign.h"

/* Not a secret: the key of the fuzz seeds only. */
static const unsigned char fuzz_key[DC_KEY_BYTES] = {
	0x64, 0x61, 0x74, 0x61, 0x63, 0x72, 0x75, 0x6d, 0x62, 0x73, 0x2d,
	0x66, 0x75, 0x7a, 0x7a,
};

int main(int argc, char **argv)
{
	unsigned char digest[SHA256_DIGEST_LENGTH];
	struct dc_key key;
	char err[512];
	json_t *doc, *spec, *summary = NULL;
	unsigned char *in;
	size_t len, i;
	int status = 0;

	dc_messages_init("fuzz-verify");
	memset(&key, 0, sizeof(key));
	memcpy(key.bytes, fuzz_key, sizeof(fuzz_key));
	/* The key id is the first 16 hex digits of the key's SHA-256; the
	 * verifier compares it, so compute it as dc-sign does. */
	SHA256(key.bytes, DC_KEY_BYTES, digest);
	for (i = 0; i < DC_KEY_ID_CHARS / 2; i++)
		snprintf(key.id + 2 * i, 3, "%02x", digest[i]);
	in = fuzz_read_input(argc, argv, &len);
	doc = dc_json_read_buffer(in, len, "input", err, sizeof(err), &status);
	free(in);
	if (doc == NULL)
		return status;
	spec = dc_verify_doc(doc, &key, &summary, err, sizeof(err), &status);
	json_decref(doc);
	if (spec == NULL)
		return status;
	json_decref(spec);
	json_decref(summary);
	return 0;
}

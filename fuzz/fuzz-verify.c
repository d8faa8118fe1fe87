/*
 * fuzz-verify - the signature verifier (lib/sign.c): a signed spec
 * document checked against a fixed key, the same code dc-collect runs on
 * every spec before loading anything.  The seeds are signed with this
 * key (t/fuzz/verify/README).  Exit: 0 verified, 4 malformed, 5 refused.
 */
#include "config.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "messages.h"
#include "sign.h"

/* Not a secret: the key of the fuzz seeds only. */
static const unsigned char fuzz_key[DC_KEY_BYTES] = {
	0x64, 0x61, 0x74, 0x61, 0x63, 0x72, 0x75, 0x6d, 0x62, 0x73, 0x2d,
	0x66, 0x75, 0x7a, 0x7a,
};

/* The key with its id: the first 16 hex digits of its SHA-256, which the
 * verifier compares, computed as dc-sign does. */
static void make_key(struct dc_key *key)
{
	unsigned char digest[SHA256_DIGEST_LENGTH];
	size_t i;

	memset(key, 0, sizeof(*key));
	memcpy(key->bytes, fuzz_key, sizeof(fuzz_key));
	SHA256(key->bytes, DC_KEY_BYTES, digest);
	for (i = 0; i < DC_KEY_ID_CHARS / 2; i++)
		snprintf(key->id + 2 * i, 3, "%02x", digest[i]);
}

/* libcrypto's first call reads its configuration and loads its providers,
 * most of a run's time: once, before AFL++'s fork server. */
static void verify_init(void)
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int n;

	if (HMAC(EVP_sha256(), fuzz_key, sizeof(fuzz_key), fuzz_key,
		 sizeof(fuzz_key), mac, &n) == NULL)
		die("HMAC-SHA256 failed in libcrypto");
}

static int verify_one(struct fuzz_input *in)
{
	struct dc_key key;
	char err[512];
	json_t *doc, *spec, *summary = NULL;
	int status = 0;

	make_key(&key);
	doc = dc_json_read_buffer(in->data, in->len, "input", err, sizeof(err),
				  &status);
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

const struct fuzz_target fuzz_target = {
	"fuzz-verify", verify_init, verify_one,
};

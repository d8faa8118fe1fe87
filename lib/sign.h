/*
 * sign.h - signing keys, signed probe specs and their verification.
 *
 * dc-sign(1) makes signed specs, dc-signd(8) makes them for users who may
 * not read the key, dc-collect(8) refuses to load a spec that does not
 * verify.  dc-signed(5) documents the file format byte by byte; in short:
 *
 *   { "datacrumbs_signed": 1, "algorithm": "HMAC-SHA256",
 *     "key_id": "<16 hex>", "summary": {...}, "spec": {...},
 *     "signature": "<64 hex>" }
 *
 * The signature is HMAC-SHA256, keyed with the 32-byte site key, over the
 * canonical form of the object without "signature": jansson's
 * JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII serialisation.  Signed
 * files hold no real numbers, so the canonical form cannot vary.
 */
#ifndef DC_SIGN_H
#define DC_SIGN_H

#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>

#define DC_SIGNED_VERSION 1
#define DC_SIGN_ALGORITHM "HMAC-SHA256"
#define DC_KEY_BYTES 32           /* raw key length */
#define DC_KEY_ID_CHARS 16        /* hex digits of the key id */
#define DC_SIGNATURE_CHARS 64     /* hex digits of the HMAC */
#define DC_SIGN_MAX_INPUT (64u << 20) /* larger files are refused */

struct dc_key {
	unsigned char bytes[DC_KEY_BYTES];
	char id[DC_KEY_ID_CHARS + 1]; /* first 16 hex of SHA-256(bytes) */
};

/* Read a signed spec file (plain JSON or gzip .json.gz, detect by magic),
 * verify it with the key at keypath (NULL: the default key path, see
 * below), and return the verified "spec" object (new reference) and, if
 * summary != NULL, the signed "summary" object (new ref).  On failure
 * return NULL, write ONE line (no newline) naming the problem into err,
 * and set *status to DC_EXIT_SIGNATURE (5) for unsigned/tampered/wrong
 * algorithm/wrong key, DC_EXIT_BADINPUT (4) for malformed JSON/gzip,
 * DC_EXIT_FAILURE (1) for I/O errors and key problems (missing key, loose
 * permissions). */
json_t *dc_verify_file(const char *path, const char *keypath,
		       json_t **summary, char *err, size_t errlen, int *status);

/* The key path in force: $DC_KEY if set, else
 * SYSCONFDIR "/datacrumbs/signing.key". */
const char *dc_default_key_path(void);

/* Load the key at path (NULL: the default).  The file must hold 64 hex
 * digits and a newline, be a regular file owned by the effective user and
 * not be accessible to group or others.  Returns 0, or DC_EXIT_FAILURE
 * with one line in err. */
int dc_key_load(const char *path, struct dc_key *key, char *err,
		size_t errlen);
/* Make a new random key at path (NULL: the default), mode 0600.  An
 * existing file is refused unless force is set, in which case it is
 * replaced atomically.  Returns 0 or DC_EXIT_FAILURE with err set. */
int dc_key_generate(const char *path, int force, struct dc_key *key,
		    char *err, size_t errlen);
/* Wipe a key from memory. */
void dc_key_clear(struct dc_key *key);

/* Read a JSON document from a file ("-": standard input) or a buffer,
 * gunzipping it first when it starts with the gzip magic 1f 8b.  On
 * failure NULL, err and *status (DC_EXIT_FAILURE or DC_EXIT_BADINPUT). */
json_t *dc_json_read_file(const char *path, char *err, size_t errlen,
			  int *status);
json_t *dc_json_read_buffer(const void *buf, size_t len, const char *name,
			    char *err, size_t errlen, int *status);
/* Write doc indented, with a final newline, to path ("-" or NULL:
 * standard output), gzip-compressed when path ends in ".gz".  A file is
 * written to a temporary name and renamed into place.  Returns 0 or
 * DC_EXIT_FAILURE with err set. */
int dc_json_write_file(const char *path, json_t *doc, char *err,
		       size_t errlen);
/* The same bytes dc_json_write_file writes for plain output (malloc'd,
 * length in *len), or NULL. */
char *dc_json_pretty(json_t *doc, size_t *len);

/* The canonical serialisation (malloc'd), or NULL when v holds a real
 * number (where is written to err) or memory runs out. */
char *dc_canonical_json(json_t *v, char *err, size_t errlen);
/* SHA-256 of the canonical form of v as 64 hex digits + NUL; 0 or -1. */
int dc_canonical_sha256(json_t *v, char hex[65], char *err, size_t errlen);

/* Who signs: written into the summary. */
struct dc_signer {
	const char *user;  /* user name */
	uid_t uid;
	const char *tool;  /* "dc-sign" or "dc-signd" */
};

/* Sign a probe spec (validated with dc_spec_from_json first).  Returns
 * the signed document (new reference) or NULL with err and *status
 * (DC_EXIT_BADINPUT for a bad spec, DC_EXIT_FAILURE otherwise). */
json_t *dc_sign_spec(json_t *spec, const struct dc_key *key,
		     const struct dc_signer *signer, char *err, size_t errlen,
		     int *status);
/* Verify a parsed signed document with key; as dc_verify_file. */
json_t *dc_verify_doc(json_t *doc, const struct dc_key *key,
		      json_t **summary, char *err, size_t errlen, int *status);

#endif /* DC_SIGN_H */

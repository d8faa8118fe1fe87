/*
 * hash.h - the project's one string hash and one integer mixer.
 *
 * FNV-1a 64 hashes bytes: trace hashes of dc-trace(5) (folded to 53 bits
 * by dc-write), interned strings and probes in dc-aggregate, sets of
 * strings.  dc_mix64 (MurmurHash3's finaliser) spreads integer keys over
 * a u64map's slots, so that sequential pids, fds and ids do not cluster.
 */
#ifndef DC_HASH_H
#define DC_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define DC_FNV1A_INIT 0xcbf29ce484222325ULL  /* FNV-1a 64 offset basis */
#define DC_FNV1A_PRIME 0x100000001b3ULL

/* Continue the FNV-1a hash h over len more bytes. */
static inline uint64_t dc_fnv1a_add(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * DC_FNV1A_PRIME;
	return h;
}

static inline uint64_t dc_fnv1a(const void *data, size_t len)
{
	return dc_fnv1a_add(DC_FNV1A_INIT, data, len);
}

static inline uint64_t dc_fnv1a_str(const char *s)
{
	return dc_fnv1a(s, strlen(s));
}

static inline uint64_t dc_mix64(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key;
}

#endif /* DC_HASH_H */

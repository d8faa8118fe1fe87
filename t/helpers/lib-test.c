/*
 * lib-test - unit tests of lib/'s hash table (u64map.c), FNV-1a (hash.h),
 * size parser (numbers.c), CRC-32 (deflatelib.c) and words (quote.c), as
 * TAP.  Run by
 * t/0010-lib.t.  `lib-test spec-keys` instead prints the keys a probe
 * with every one set gets in the probe spec's JSON (spec.c), in the
 * order they are written, one a line: t/0010 holds dc-probes(5) to it.
 * `lib-test kind-names` prints the argument, return and probe kinds
 * spec.c names, one a line, for t/0010 to hold dc-mkstream to them.
 *
 * The table is checked against a plain array of what it should hold
 * after every operation of a long pseudo-random sequence, with keys
 * chosen to collide (small ranges) and keys a sentinel would have
 * broken (0, UINT64_MAX, 2^32 - 1 and 2^32: pid = tid = 4294967295
 * plus one wrapped to 0 in the old tables).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "deflatelib.h"
#include "hash.h"
#include "numbers.h"
#include "quote.h"
#include "spec.h"
#include "u64map.h"

#include "tap.h"

/* ---- u64map ---- */

static const uint64_t odd_keys[] = {
	0, 1, UINT64_MAX, UINT64_MAX - 1, 0xffffffffULL, 0x100000000ULL,
	0xffffffffULL << 32, 1ULL << 63,
};
#define NODD (sizeof(odd_keys) / sizeof(odd_keys[0]))

static void test_every_key(void)
{
	struct u64map m;
	size_t i;
	int good = 1, added;

	u64map_init(&m);
	for (i = 0; i < NODD; i++) {
		ok(u64map_get(&m, odd_keys[i]) == NULL,
		   "key %#llx absent from the start", (unsigned long long)odd_keys[i]);
		*u64map_insert(&m, odd_keys[i], &added) = i + 100;
		good &= added;
	}
	ok(good && m.count == NODD, "0, 2^64-1, 2^32-1 and 2^32 are all stored");
	for (i = 0; i < NODD; i++) {
		uint64_t *v = u64map_get(&m, odd_keys[i]);

		ok(v != NULL && *v == i + 100, "key %#llx has its own value",
		   (unsigned long long)odd_keys[i]);
	}
	u64map_insert(&m, 0, &added);
	ok(!added && *u64map_get(&m, 0) == 100,
	   "inserting key 0 again finds it, value kept");
	ok(u64map_del(&m, 0) == 1 && u64map_get(&m, 0) == NULL &&
	   u64map_get(&m, UINT64_MAX) != NULL && m.count == NODD - 1,
	   "deleting key 0 leaves the others");
	ok(u64map_del(&m, 0) == 0, "deleting an absent key says so");
	u64map_clear(&m);
	ok(m.count == 0 && u64map_get(&m, UINT64_MAX) == NULL,
	   "a cleared table is empty");
	u64map_put(&m, UINT64_MAX, 7);
	ok(*u64map_get(&m, UINT64_MAX) == 7, "and usable again");
	u64map_free(&m);
	ok(m.cap == 0 && m.count == 0 && u64map_get(&m, 1) == NULL,
	   "a freed table is an empty one");
}

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Keys from a small range (many collisions and long clusters) plus the
 * odd ones; the reference is an array indexed by the key's position. */
#define RANGE 600

static uint64_t key_at(unsigned k)
{
	return k < NODD ? odd_keys[k] : (uint64_t)(k - NODD + 1) * 1024;
}

static void test_against_reference(void)
{
	static uint64_t ref[RANGE + NODD];
	static unsigned char have[RANGE + NODD];
	struct u64map m, copy;
	unsigned step, k, bad = 0, nsteps = 200000;
	size_t count = 0, seen, i;

	u64map_init(&m);
	for (step = 0; step < nsteps; step++) {
		uint64_t r = rnd(), *v;

		k = (unsigned)(r % (RANGE + NODD));
		switch ((r >> 32) % 3) {
		case 0:
			u64map_put(&m, key_at(k), r);
			count += !have[k];
			have[k] = 1;
			ref[k] = r;
			break;
		case 1:
			if (u64map_del(&m, key_at(k)) != have[k])
				bad++;
			count -= have[k];
			have[k] = 0;
			break;
		default:
			v = u64map_get(&m, key_at(k));
			if ((v != NULL) != have[k] || (v && *v != ref[k]))
				bad++;
		}
		if (m.count != count)
			bad++;
	}
	ok(bad == 0, "%u random puts, deletes and gets agree with an array", nsteps);
	for (k = 0; k < RANGE + NODD; k++) {
		uint64_t *v = u64map_get(&m, key_at(k));

		if ((v != NULL) != have[k] || (v && *v != ref[k]))
			bad++;
	}
	ok(bad == 0, "every key present or absent as it should be at the end");
	seen = 0;
	for (i = 0; i < m.cap; i++)
		seen += m.used[i];
	ok(seen == count && m.count == count, "visiting finds %zu entries", count);
	u64map_init(&copy);
	u64map_put(&copy, key_at(NODD + RANGE + 5), 1);
	u64map_copy(&copy, &m);
	ok(copy.count == count + 1, "a copy holds every entry and its own");
	for (k = 0; k < RANGE + NODD; k++) {
		uint64_t *v = u64map_get(&copy, key_at(k));

		if ((v != NULL) != have[k] || (v && *v != ref[k]))
			bad++;
	}
	ok(bad == 0, "with the same values");
	u64map_free(&copy);
	u64map_free(&m);
}

static void test_many(void)
{
	struct u64map m;
	uint64_t i, bad = 0, n = 1000000;

	u64map_init(&m);
	for (i = 0; i < n; i++)
		u64map_put(&m, i << 32 | 0xffffffff, i);
	for (i = 0; i < n; i++) {
		uint64_t *v = u64map_get(&m, i << 32 | 0xffffffff);

		bad += v == NULL || *v != i;
	}
	ok(bad == 0 && m.count == n, "a million keys of the form pid << 32 | 2^32-1");
	ok(m.cap <= 4 * n, "in at most 4 slots a key (%zu slots)", m.cap);
	for (i = 0; i < n; i += 2)
		u64map_del(&m, i << 32 | 0xffffffff);
	for (i = 0; i < n; i++)
		bad += (u64map_get(&m, i << 32 | 0xffffffff) != NULL) != (i & 1);
	ok(bad == 0 && m.count == n / 2, "half deleted, the other half found");
	u64map_free(&m);
}

/* A table keyed by a string's hash: every hash made equal, to chain. */
static int same_str(uint64_t value, const void *key)
{
	return strcmp((const char *)(uintptr_t)value, key) == 0;
}

static void test_hashed(void)
{
	static const char *const words[] = { "a", "b", "c", "d" };
	struct u64map m;
	uint64_t h, *v;
	size_t i;
	int good = 1;

	u64map_init(&m);
	for (i = 0; i < 4; i++) {
		h = 42; /* a collision for every word */
		if (u64map_find_hashed(&m, &h, same_str, words[i]) != NULL)
			good = 0;
		if (h != 42 + i)
			good = 0;
		u64map_put(&m, h, (uint64_t)(uintptr_t)words[i]);
	}
	ok(good, "equal hashes of different keys chain on at h+1, h+2...");
	for (i = 0; i < 4; i++) {
		h = 42;
		v = u64map_find_hashed(&m, &h, same_str, words[i]);
		if (v == NULL || strcmp((const char *)(uintptr_t)*v, words[i]) != 0)
			good = 0;
	}
	ok(good, "and each is found by its own key");
	h = 42;
	ok(u64map_find_hashed(&m, &h, same_str, "e") == NULL && h == 46,
	   "an absent key gets the end of the chain");
	u64map_free(&m);
}

/* ---- FNV-1a ---- */

static void test_fnv(void)
{
	/* The published FNV-1a 64 test vectors. */
	ok(dc_fnv1a("", 0) == 0xcbf29ce484222325ULL, "FNV-1a of \"\"");
	ok(dc_fnv1a_str("a") == 0xaf63dc4c8601ec8cULL, "FNV-1a of \"a\"");
	ok(dc_fnv1a_str("foobar") == 0x85944171f73967e8ULL,
	   "FNV-1a of \"foobar\"");
	ok(dc_fnv1a_add(dc_fnv1a("foo", 3), "bar", 3) == dc_fnv1a_str("foobar"),
	   "FNV-1a continued over a second part is the hash of the whole");
}

/* ---- CRC-32 ---- */

/* The stream's CRC is zlib's crc32(): dc_crc32 (libdeflate's when it is
 * installed) must give the same at every length and alignment, and
 * continued over a second part. */
static void test_crc(void)
{
	static unsigned char buf[4096 + 64];
	unsigned bad = 0, badsplit = 0;
	size_t len, at;

	printf("# CRC-32 through %s\n", dc_libdeflate() ? "libdeflate" : "zlib");
	ok(dc_crc32(0, "123456789", 9) == 0xcbf43926u,
	   "CRC-32 of \"123456789\" is the check value cbf43926");
	ok(dc_crc32(0, "", 0) == 0 && dc_crc32(0x1234u, buf, 0) == 0x1234u,
	   "CRC-32 of nothing is the value it continues");
	for (len = 0; len < sizeof(buf); len++)
		buf[len] = (unsigned char)(rnd() >> 32);
	for (len = 0; len <= 4096; len += len < 300 ? 1 : 97)
		for (at = 0; at < 64; at += 7) {
			uint32_t want = (uint32_t)crc32(0L, buf + at, (uInt)len);
			size_t cut = len / 3;

			if (dc_crc32(0, buf + at, len) != want)
				bad++;
			if (dc_crc32(dc_crc32(0, buf + at, cut), buf + at + cut,
				     len - cut) != want)
				badsplit++;
		}
	ok(bad == 0, "CRC-32 equals zlib's crc32 at every length and alignment (%u differ)", bad);
	ok(badsplit == 0, "CRC-32 continued over a second part equals zlib's of the whole (%u differ)",
	   badsplit);
}

/* ---- sizes ---- */

static void size_is(const char *s, uint64_t lo, uint64_t hi,
		    enum dc_size_status want, uint64_t want_v)
{
	uint64_t v = 12345;
	enum dc_size_status st = dc_parse_size(s, lo, hi, &v);

	ok(st == want && (want != DC_SIZE_OK ? v == 12345 : v == want_v),
	   "size '%s' in %llu..%llu: %s", s, (unsigned long long)lo,
	   (unsigned long long)hi,
	   want == DC_SIZE_OK ? "accepted" : want == DC_SIZE_RANGE
	   ? "out of range" : "not a size");
}

static void test_sizes(void)
{
	char buf[32];

	size_is("0", 0, UINT64_MAX, DC_SIZE_OK, 0);
	size_is("4096", 0, UINT64_MAX, DC_SIZE_OK, 4096);
	size_is("64K", 0, UINT64_MAX, DC_SIZE_OK, 65536);
	size_is("64k", 0, UINT64_MAX, DC_SIZE_OK, 65536);
	size_is("3M", 0, UINT64_MAX, DC_SIZE_OK, 3ULL << 20);
	size_is("2G", 0, UINT64_MAX, DC_SIZE_OK, 2ULL << 30);
	size_is("1T", 0, UINT64_MAX, DC_SIZE_OK, 1ULL << 40);
	size_is("15E", 0, UINT64_MAX, DC_SIZE_OK, 15ULL << 60);
	size_is("18446744073709551615", 0, UINT64_MAX, DC_SIZE_OK, UINT64_MAX);
	/* Overflow, in the digits or by the suffix: never wrapped. */
	size_is("18446744073709551616", 0, UINT64_MAX, DC_SIZE_RANGE, 0);
	size_is("99999999999999999999999", 0, UINT64_MAX, DC_SIZE_RANGE, 0);
	size_is("16E", 0, UINT64_MAX, DC_SIZE_RANGE, 0);
	size_is("18446744073709551615K", 0, UINT64_MAX, DC_SIZE_RANGE, 0);
	size_is("17179869184G", 0, UINT64_MAX, DC_SIZE_RANGE, 0);
	/* Ranges: issue 13 item 8's 4G ring, which once became 0. */
	size_is("4G", 4096, 1ULL << 31, DC_SIZE_RANGE, 0);
	size_is("2G", 4096, 1ULL << 31, DC_SIZE_OK, 1ULL << 31);
	size_is("4095", 4096, 1ULL << 31, DC_SIZE_RANGE, 0);
	size_is("4K", 4096, 1ULL << 31, DC_SIZE_OK, 4096);
	/* Not sizes. */
	size_is("", 0, UINT64_MAX, DC_SIZE_INVALID, 0);
	size_is("-4096", 0, UINT64_MAX, DC_SIZE_INVALID, 0);
	size_is("+4096", 0, UINT64_MAX, DC_SIZE_INVALID, 0);
	size_is(" 4096", 0, UINT64_MAX, DC_SIZE_INVALID, 0);
	size_is("4096 ", 0, UINT64_MAX, DC_SIZE_INVALID, 0);
	size_is("K", 0, UINT64_MAX, DC_SIZE_INVALID, 0);
	size_is("4KB", 0, UINT64_MAX, DC_SIZE_INVALID, 0);
	size_is("4X", 0, UINT64_MAX, DC_SIZE_INVALID, 0);
	size_is("0x10", 0, UINT64_MAX, DC_SIZE_INVALID, 0);
	size_is("1.5G", 0, UINT64_MAX, DC_SIZE_INVALID, 0);
	ok(strcmp(dc_format_size(4096, buf, sizeof(buf)), "4K") == 0 &&
	   strcmp(dc_format_size(1ULL << 31, buf, sizeof(buf)), "2G") == 0 &&
	   strcmp(dc_format_size(4097, buf, sizeof(buf)), "4097") == 0 &&
	   strcmp(dc_format_size(0, buf, sizeof(buf)), "0") == 0 &&
	   strcmp(dc_format_size(UINT64_MAX, buf, sizeof(buf)),
		  "18446744073709551615") == 0,
	   "sizes are written back in their shortest exact form");
}

/* ---- quote ---- */

static void word_is(const char *s, size_t len, const char *want)
{
	char *got = dc_word(s, len);

	ok(strcmp(got, want) == 0, "word of %zu bytes: %s (got %s)", len, want, got);
	free(got);
}

static void test_quote(void)
{
	word_is("/data/a.h5", 10, "/data/a.h5");
	word_is("", 0, "\"\"");
	word_is("a b", 3, "\"a b\"");
	word_is("a\nb\tc\r", 6, "\"a\\x0ab\\x09c\\x0d\"");
	word_is("q\"\\", 3, "\"q\\\"\\\\\"");
	word_is("a\0b\x7f", 4, "\"a\\x00b\\x7f\"");
	word_is("caf\xc3\xa9", 5, "\"caf\xc3\xa9\"");
}

/* A probe with every key of dc-probes(5) set, written as the spec's
 * JSON: its keys in the order written. */
static int spec_keys(void)
{
	struct dc_probe p = {
		.layer = "L", .kind = DC_PROBE_USDT, .target = "/bin/true",
		.function = "f", .as = "g", .offset = 16, .semaphore = 32,
		.nr = 1, .nargs = 2, .arg_kinds = { DC_ARG_FD, DC_ARG_SIZE },
		.regs = { 1, 0 }, .ret_kind = DC_RET_SIZE, .optional = 1,
	};
	struct dc_spec spec = { DC_MODE_TRACE, 1000, 1, &p };
	json_t *root = dc_spec_to_json(&spec), *probe, *v;
	const char *key;

	probe = json_array_get(json_object_get(root, "probes"), 0);
	json_object_foreach(probe, key, v)
		printf("%s\n", key);
	json_decref(root);
	return 0;
}

/* "arg NAME", "ret NAME" and "probe NAME" of every kind with a name,
 * each list in the kinds' order. */
static int kind_names(void)
{
	int k;

	for (k = 0; k < DC_ARG_KIND_MAX; k++)
		printf("arg %s\n", dc_arg_kind_name(k));
	for (k = 0; k < DC_RET_KIND_MAX; k++)
		printf("ret %s\n", dc_ret_kind_name(k));
	for (k = 0; k < 256; k++)
		if (strcmp(dc_probe_kind_name(k), "unknown") != 0)
			printf("probe %s\n", dc_probe_kind_name(k));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "spec-keys") == 0)
		return spec_keys();
	if (argc == 2 && strcmp(argv[1], "kind-names") == 0)
		return kind_names();
	test_every_key();
	test_against_reference();
	test_many();
	test_hashed();
	test_fnv();
	test_crc();
	test_sizes();
	test_quote();
	return tap_done();
}

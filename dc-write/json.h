/*
 * json.h - the JSON dc-write writes, formatted by hand straight into the
 * output chunk: numbers, escaped strings, the "op" bit names.  Inline:
 * these run for every field of every event.
 */
#ifndef DC_WRITE_JSON_H
#define DC_WRITE_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "messages.h"

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

static inline char *put_u64(char *p, uint64_t v)
{
	char tmp[24], *q = tmp + sizeof(tmp);
	size_t n;

	while (v >= 100) {
		unsigned i = (unsigned)(v % 100) * 2;

		v /= 100;
		*--q = digit_pairs[i + 1];
		*--q = digit_pairs[i];
	}
	if (v >= 10) {
		*--q = digit_pairs[v * 2 + 1];
		*--q = digit_pairs[v * 2];
	} else {
		*--q = (char)('0' + v);
	}
	n = (size_t)(tmp + sizeof(tmp) - q);
	memcpy(p, q, n);
	return p + n;
}

static inline char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, -(uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

#define PUT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/* Length of a valid UTF-8 sequence at s (at most n bytes), or 0. */
static inline size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t k, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		k = 2;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < k || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

/* A JSON string.  Bytes that are not UTF-8 are written as \u00XX (as if
 * Latin-1), so the line is always valid JSON; the hash is of the raw
 * bytes.  Needs 6 * len + 2 bytes. */
static inline char *put_jstr(char *p, const char *str, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	*p++ = '"';
	while (i < len) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*p++ = (char)c;
			i++;
		} else if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
			i++;
		} else if (c == '\n') {
			p = PUT(p, "\\n");
			i++;
		} else if (c == '\t') {
			p = PUT(p, "\\t");
			i++;
		} else if (c >= 0x80 && utf8_len(s + i, len - i) > 0) {
			size_t k = utf8_len(s + i, len - i);

			memcpy(p, s + i, k);
			p += k;
			i += k;
		} else {
			p = PUT(p, "\\u00");
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
			i++;
		}
	}
	*p++ = '"';
	return p;
}

/* An operation code: up to 8 ASCII characters packed little-endian
 * (block "rwbs" such as "WS"), as a JSON string. */
static inline char *put_op(char *p, uint64_t v)
{
	char op[8];
	size_t n = 0;

	while (n < 8 && (v & 0xff) != 0) {
		op[n++] = (char)(v & 0xff);
		v >>= 8;
	}
	return put_jstr(p, op, n);
}

static inline char *jstr_dup(const char *s, size_t len, size_t *out_len)
{
	char *buf = xmalloc(6 * len + 3), *end;

	end = put_jstr(buf, s, len);
	*end = '\0';
	*out_len = (size_t)(end - buf);
	return buf;
}

#endif /* DC_WRITE_JSON_H */

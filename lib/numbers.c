/*
 * numbers.c - sizes and numbers on command lines; see numbers.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "messages.h"
#include "numbers.h"

static const char suffixes[] = "KMGTPE";

enum dc_size_status dc_parse_size(const char *s, uint64_t lo, uint64_t hi,
				  uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0, i;
	int range = 0;

	if (*s < '0' || *s > '9')
		return DC_SIZE_INVALID;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		/* Keep reading the digits: "99...9X" is not a size. */
		if (v > (UINT64_MAX - d) / 10)
			range = 1;
		else
			v = v * 10 + d;
	}
	if (*s != '\0') {
		for (i = 0; suffixes[i] != '\0'; i++)
			if (*s == suffixes[i] || *s == suffixes[i] + ('a' - 'A'))
				break;
		if (suffixes[i] == '\0' || s[1] != '\0')
			return DC_SIZE_INVALID;
		shift = 10 * (i + 1);
	}
	if (range || v > (UINT64_MAX >> shift))
		return DC_SIZE_RANGE;
	v <<= shift;
	if (v < lo || v > hi)
		return DC_SIZE_RANGE;
	*out = v;
	return DC_SIZE_OK;
}

char *dc_format_size(uint64_t v, char *buf, unsigned len)
{
	unsigned i = 0;

	while (v != 0 && (v & 1023) == 0 && suffixes[i] != '\0') {
		v >>= 10;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v,
			 suffixes[i - 1]);
	return buf;
}

bool dc_parse_int(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

long long dc_int_option(const char *s, const char *opt, long long lo,
			long long hi)
{
	long long v;

	if (!dc_parse_int(s, lo, hi, &v))
		dc_usage_error("%s takes a number from %lld to %lld, not '%s'",
			       opt, lo, hi, s);
	return v;
}

uint64_t dc_size_option(const char *s, const char *opt, uint64_t lo,
			uint64_t hi)
{
	char a[32], b[32];
	uint64_t v;

	if (dc_parse_size(s, lo, hi, &v) == DC_SIZE_OK)
		return v;
	dc_usage_error("%s takes %s to %s, not '%s'", opt,
		       dc_format_size(lo, a, sizeof(a)),
		       dc_format_size(hi, b, sizeof(b)), s);
}

/*
 * numbers.h - sizes and numbers given on command lines, parsed one way by
 * every tool.
 *
 * A size is decimal digits with an optional suffix K, M, G, T, P or E
 * (either case; powers of 1024).  Signs, spaces, other suffixes and
 * values that do not fit in 64 bits are refused, never wrapped or
 * truncated to something that fits (issue 13 item 8: --ring-size 4G
 * became 0).
 */
#ifndef DC_NUMBERS_H
#define DC_NUMBERS_H

#include <stdbool.h>
#include <stdint.h>

enum dc_size_status {
	DC_SIZE_OK = 0,
	DC_SIZE_INVALID,   /* not a size at all */
	DC_SIZE_RANGE,     /* a size, but outside lo..hi (or 2^64) */
};

/* Parse s; *out is set only when it is a size from lo to hi. */
enum dc_size_status dc_parse_size(const char *s, uint64_t lo, uint64_t hi,
				  uint64_t *out);

/* The size s given to option opt (for messages: "--chunk-size") from lo
 * to hi, or a one-line usage error naming opt, the range and s (exit 2):
 * "--chunk-size takes 1 to 1G, not '2G'". */
uint64_t dc_size_option(const char *s, const char *opt, uint64_t lo,
			uint64_t hi);

/* Whether s is a decimal integer from lo to hi (no sign but '-', no
 * space, nothing after it); *out is set only then. */
bool dc_parse_int(const char *s, long long lo, long long hi, long long *out);

/* The decimal integer s given to option opt, from lo to hi, or a
 * one-line usage error naming opt, the range and s (exit 2):
 * "--level takes a number from 1 to 12, not '0'". */
long long dc_int_option(const char *s, const char *opt, long long lo,
			long long hi);

/* v in the shortest exact form a size can be written in ("4096", "64K",
 * "2G") into buf of len bytes; returns buf. */
char *dc_format_size(uint64_t v, char *buf, unsigned len);

#endif /* DC_NUMBERS_H */

/*
 * deflatelib.h - libdeflate, loaded at run time when it is installed.
 *
 * libdeflate compresses faster than zlib and computes the same CRC-32 as
 * zlib's crc32() (ISO-HDLC, the same chaining from 0) several times as
 * fast, with carry-less multiplication where the CPU has it.  It is
 * optional: the build needs neither its headers nor a configure check,
 * and every user has zlib to fall back on, with the same results.
 */
#ifndef DC_DEFLATELIB_H
#define DC_DEFLATELIB_H

#include <stddef.h>
#include <stdint.h>

struct dc_libdeflate {
	void *(*alloc_compressor)(int level);
	size_t (*gzip_compress)(void *c, const void *in, size_t in_len,
				void *out, size_t out_len);
	size_t (*gzip_compress_bound)(void *c, size_t in_len);
	void (*free_compressor)(void *c);
	uint32_t (*crc32)(uint32_t crc, const void *buf, size_t len);
};

/* libdeflate's functions, or NULL when libdeflate.so.0 cannot be loaded.
 * Loaded once, on the first call, from any thread. */
const struct dc_libdeflate *dc_libdeflate(void);

/* The CRC-32 of zlib's crc32(crc, buf, len), through libdeflate when it
 * is installed. */
uint32_t dc_crc32(uint32_t crc, const void *buf, size_t len);

#endif

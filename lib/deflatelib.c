/*
 * deflatelib.c - libdeflate loaded at run time (deflatelib.h).
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <zlib.h>

#include "deflatelib.h"

static struct dc_libdeflate ld;
static const struct dc_libdeflate *loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	static const char *const names[] = { "libdeflate.so.0", "libdeflate.so" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);

		if (h == NULL)
			continue;
		*(void **)&ld.alloc_compressor = dlsym(h, "libdeflate_alloc_compressor");
		*(void **)&ld.gzip_compress = dlsym(h, "libdeflate_gzip_compress");
		*(void **)&ld.gzip_compress_bound = dlsym(h, "libdeflate_gzip_compress_bound");
		*(void **)&ld.free_compressor = dlsym(h, "libdeflate_free_compressor");
		*(void **)&ld.crc32 = dlsym(h, "libdeflate_crc32");
		if (ld.alloc_compressor && ld.gzip_compress &&
		    ld.gzip_compress_bound && ld.free_compressor && ld.crc32) {
			loaded = &ld;
			return;
		}
		dlclose(h);
	}
}

const struct dc_libdeflate *dc_libdeflate(void)
{
	pthread_once(&once, load);
	return loaded;
}

uint32_t dc_crc32(uint32_t crc, const void *buf, size_t len)
{
	const struct dc_libdeflate *d = dc_libdeflate();

	if (d != NULL)
		return d->crc32(crc, buf, len);
	/* zlib takes a uInt length: 1 GiB pieces */
	while (len > 0) {
		uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;

		crc = (uint32_t)crc32(crc, buf, n);
		buf = (const unsigned char *)buf + n;
		len -= n;
	}
	return crc;
}

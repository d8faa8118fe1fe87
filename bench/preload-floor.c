/*
 * preload-floor.c - the interposition floor for bench/fastpath-bench.sh: a
 * minimal LD_PRELOAD shim that stands for Darshan or DFTracer (neither
 * installable here).  Each wrapped call reads the clock twice and appends
 * a 32-byte record to a thread-local buffer (overwritten when full);
 * nothing else.  Built by the bench script, not installed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

struct rec {
	uint32_t fn;
	uint32_t arg;
	uint64_t ts;
	uint64_t dur;
	int64_t ret;
};

#define NREC 65536
static __thread struct rec buf[NREC];
static __thread unsigned pos;

static uint64_t now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static void put(uint32_t fn, uint32_t arg, uint64_t t0, int64_t ret)
{
	struct rec *r = &buf[pos++ & (NREC - 1)];

	r->fn = fn;
	r->arg = arg;
	r->ts = t0;
	r->dur = now() - t0;
	r->ret = ret;
}

#define REAL(name) \
	static __typeof__(name) *real; \
	if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *b, size_t n)
{
	REAL(write);
	uint64_t t0 = now();
	ssize_t r = real(fd, b, n);

	put(1, (uint32_t)fd, t0, r);
	return r;
}

ssize_t pwrite(int fd, const void *b, size_t n, off_t off)
{
	REAL(pwrite);
	uint64_t t0 = now();
	ssize_t r = real(fd, b, n, off);

	put(2, (uint32_t)fd, t0, r);
	return r;
}

ssize_t pwrite64(int fd, const void *b, size_t n, off_t off)
{
	REAL(pwrite64);
	uint64_t t0 = now();
	ssize_t r = real(fd, b, n, off);

	put(3, (uint32_t)fd, t0, r);
	return r;
}

int open(const char *path, int flags, ...)
{
	REAL(open);
	va_list ap;
	mode_t mode;
	uint64_t t0;
	int r;

	va_start(ap, flags);
	mode = va_arg(ap, mode_t);
	va_end(ap);
	t0 = now();
	r = real(path, flags, mode);
	put(4, (uint32_t)flags, t0, r);
	return r;
}

int close(int fd)
{
	REAL(close);
	uint64_t t0 = now();
	int r = real(fd);

	put(5, (uint32_t)fd, t0, r);
	return r;
}

size_t fwrite(const void *p, size_t s, size_t n, FILE *f)
{
	REAL(fwrite);
	uint64_t t0 = now();
	size_t r = real(p, s, n, f);

	put(6, 0, t0, (int64_t)r);
	return r;
}

/* W4's HDF5 calls (the hdf5 layer's that its loop makes), without
 * hdf5.h or libhdf5: hid_t is 64 bits, herr_t an int, the H5F scope an
 * enum; found with dlsym like the rest. */
typedef int64_t hid;

hid H5Dcreate2(hid loc, const char *name, hid type, hid space, hid lcpl,
	       hid dcpl, hid dapl)
{
	REAL(H5Dcreate2);
	uint64_t t0 = now();
	hid r = real(loc, name, type, space, lcpl, dcpl, dapl);

	put(7, (uint32_t)loc, t0, r);
	return r;
}

int H5Dwrite(hid set, hid mtype, hid mspace, hid fspace, hid dxpl, const void *buf)
{
	REAL(H5Dwrite);
	uint64_t t0 = now();
	int r = real(set, mtype, mspace, fspace, dxpl, buf);

	put(8, (uint32_t)set, t0, r);
	return r;
}

int H5Dclose(hid set)
{
	REAL(H5Dclose);
	uint64_t t0 = now();
	int r = real(set);

	put(9, (uint32_t)set, t0, r);
	return r;
}

int H5Fflush(hid obj, int scope)
{
	REAL(H5Fflush);
	uint64_t t0 = now();
	int r = real(obj, scope);

	put(10, (uint32_t)obj, t0, r);
	return r;
}

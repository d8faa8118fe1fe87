/*
 * derive.c - libdcclient.so's slots derived at a call's return, as
 * dc-collect's derive.bpf.h (derive_exit) derives them on the uprobe
 * path: an iovec array's total, a string's length.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/types.h>

#include "event.h"
#include "client.h"

/* Through the kernel, which reports an unreadable address instead of
 * faulting: the system call reads them, not us. */
int dc_safe_read(void *dst, __u64 src, size_t n)
{
	struct iovec local = { dst, n }, remote = { (void *)(uintptr_t)src, n };
	int saved = errno;
	ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

	errno = saved;
	return r == (ssize_t)n ? 0 : -1;
}

/* Total of iov_len over cnt entries, -1 if unreadable.  After a call
 * that succeeded, the kernel has just read the array; after one that
 * failed it may not have, and it is read the safe way. */
static __attribute__((noinline)) __s64 iov_total(__u64 iov, __s64 cnt,
						   int call_failed)
{
	struct iovec chunk[32];
	__s64 total = 0, i = 0, k, m;

	if (cnt < 0 || cnt > 1024)
		return -1;
	if (!call_failed) {
		const struct iovec *v = (const struct iovec *)(uintptr_t)iov;

		for (i = 0; i < cnt; i++)
			total += (__s64)v[i].iov_len;
		return total;
	}
	while (i < cnt) {
		m = cnt - i < 32 ? cnt - i : 32;
		if (dc_safe_read(chunk, iov + (__u64)i * sizeof(struct iovec),
			      (size_t)m * sizeof(struct iovec)) != 0)
			return -1;
		for (k = 0; k < m; k++)
			total += (__s64)chunk[k].iov_len;
		i += m;
	}
	return total;
}

/* strlen of a string the call has just read or written (so readable),
 * as the kernel programs measure it: -1 from 16 x 255 characters on. */
static __s64 str_length(__u64 p)
{
	size_t limit = 16 * (DC_MAX_STR - 1), n;

	if (p == 0)
		return -1;
	n = strnlen((const char *)(uintptr_t)p, limit);
	return n == limit ? -1 : (__s64)n;
}

__u64 dc_derive(const struct dc_fast_func_cfg *cfg, const __u64 *args,
		int nargs, int call_failed)
{
	int a = cfg->derive_arg;
	__s64 n;

	switch (cfg->derive_kind) {
	case DC_ARG_IOV:
		return (__u64)iov_total(args[a], a + 1 < nargs ?
					(__s32)args[a + 1] : -1, call_failed);
	case DC_ARG_STRLEN:
		return (__u64)str_length(args[a]);
	case DC_ARG_STROUT:
		n = call_failed ? 0 : str_length(args[a]);
		return (__u64)(n < 0 ? 0 : n);
	}
	return args[a];
}

/*
 * derive.c - libdcclient.so's slots read through a call's arguments, as
 * dc-collect's derive.bpf.h derives them on the uprobe path: at entry a
 * FILE's descriptor and a struct aiocb's request (dc_derive_entry), at
 * return an iovec array's total and a string's length (dc_derive).
 */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/types.h>

#include "event.h"
#include "aioabi.h"
#include "client.h"

/* The fields the kernel programs read by offset are where the header
 * puts them. */
_Static_assert(offsetof(struct aiocb, aio_fildes) == DC_AIOCB_FILDES_OFF &&
	       offsetof(struct aiocb, aio_lio_opcode) == DC_AIOCB_OPCODE_OFF &&
	       offsetof(struct aiocb, aio_nbytes) == DC_AIOCB_NBYTES_OFF &&
	       offsetof(struct aiocb, aio_offset) == DC_AIOCB_OFFSET_OFF,
	       "lib/aioabi.h's offsets are not glibc's struct aiocb's");

unsigned char dc_entry_reads(const struct dc_fast_func_cfg *cfg)
{
	unsigned char reads = cfg->file_arg < DC_MAX_ARGS ? DC_ENTRY_FILE : 0;
	int a;

	for (a = 0; a < cfg->nargs && a < DC_MAX_ARGS; a++)
		if (cfg->arg_kinds[a] == DC_ARG_AIOCB)
			reads |= DC_ENTRY_AIOCB;
	return reads;
}

/* The request of the struct aiocb at cb, read the safe way: a call may
 * fail before it reads a bad pointer (aio_fsync with a bad operation). */
static void aiocb_args(const struct dc_fast_func_cfg *cfg, __u64 *args, int a,
		       __u64 cb)
{
	unsigned char b[DC_AIOCB_OFFSET_OFF + 8];
	__s32 fd, opcode;
	__u64 nbytes, offset;

	if (cb == 0 || dc_safe_read(b, cb, sizeof(b)) != 0) {
		dc_aiocb_slots(cfg->arg_kinds, args, a, 0, 0, 0, 0, 0);
		return;
	}
	memcpy(&fd, b + DC_AIOCB_FILDES_OFF, sizeof(fd));
	memcpy(&opcode, b + DC_AIOCB_OPCODE_OFF, sizeof(opcode));
	memcpy(&nbytes, b + DC_AIOCB_NBYTES_OFF, sizeof(nbytes));
	memcpy(&offset, b + DC_AIOCB_OFFSET_OFF, sizeof(offset));
	dc_aiocb_slots(cfg->arg_kinds, args, a, 1, fd, opcode, nbytes, offset);
}

/* A FILE's descriptor: the call is about to use the FILE, reading it
 * now is as safe as the call.  A struct aiocb's request: aiocb_args. */
void dc_derive_entry(int fn, __u64 args[DC_MAX_ARGS], int nargs)
{
	const struct dc_fast_func_cfg *cfg = dc_fast_func(fn);
	int a = cfg->file_arg;

	/* A FILE's descriptor goes in the last slot (DC_ARG_FILE). */
	if (dc_fast_entry[fn] & DC_ENTRY_FILE)
		args[DC_MAX_ARGS - 1] = (__u64)(__s64)(a < nargs && args[a] != 0 ?
			fileno_unlocked((FILE *)(uintptr_t)args[a]) : -1);
	if (!(dc_fast_entry[fn] & DC_ENTRY_AIOCB))
		return;
	for (a = 0; a < cfg->nargs && a < DC_MAX_ARGS; a++)
		if (cfg->arg_kinds[a] == DC_ARG_AIOCB)
			aiocb_args(cfg, args, a, args[a]);
}

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

/*
 * client.h - inside libdcclient.so: what the wrappers (wrappers.c) use
 * from the fast path's core (fast.c).  Not installed.
 *
 * A wrapper is
 *
 *     if (__builtin_expect(!dc_fast_on[DC_FN_write], 1))
 *             return real_write(fd, buf, n);
 *     dc_call_begin(&call, DC_FN_write);
 *     r = real_write(fd, buf, n);
 *     dc_call_end(&call, r, args, nargs, str);
 *
 * With no collector, or for a function the spec does not name, the cost
 * is the one predictable branch on a byte that never changes.
 */
#ifndef DC_CLIENT_INTERNAL_H
#define DC_CLIENT_INTERNAL_H

#include <stddef.h>
#include <linux/types.h>

#include "fastabi.h"

#define DC_HIDDEN __attribute__((visibility("hidden")))

/* 1 for a function this process records (set once, after the handshake). */
extern DC_HIDDEN unsigned char dc_fast_on[DC_FAST_NFUNCS];

struct dc_call {
	__u64 ts;
	__u64 seq;
	__u64 parent;
	int fn;
	int file_fd;
};

/* args: the call's arguments as 64-bit slots (a FILE's descriptor is
 * read from them now, before the call can close it). */
DC_HIDDEN void dc_call_begin(struct dc_call *c, int fn, const __u64 *args,
			     int nargs);
/* Finish and record a call: ret as the C function returned it (sign-
 * extended), its arguments as 64-bit values, `str` the argument that is a
 * string (copied only when the spec asks for that argument), failed_efault
 * when the call failed with EFAULT (the string is then not read). */
DC_HIDDEN void dc_call_end(struct dc_call *c, __s64 ret, const __u64 *args,
			   int nargs, int str_index, int efault);

/* The next definition of a libc function (dlsym RTLD_NEXT), or abort with
 * one line if there is none: a wrapper cannot go on without it. */
DC_HIDDEN void *dc_real(const char *name);

#endif /* DC_CLIENT_INTERNAL_H */

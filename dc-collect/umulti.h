/*
 * umulti.h - the kernel's multi-uprobe link (Linux 6.6 and later), called
 * directly: the libbpf this builds against may predate it.
 */
#ifndef DC_UMULTI_H
#define DC_UMULTI_H

#include <stdbool.h>
#include <linux/types.h>

#define DC_BPF_TRACE_UPROBE_MULTI 48 /* enum bpf_attach_type */

/* Whether the kernel offers the link (tried with a throw-away program). */
bool dc_umulti_supported(void);

/* Attach prog_fd to cnt functions of path at once; cookies[i] is what
 * bpf_get_attach_cookie() returns at offsets[i].  Returns the link fd, or
 * -errno. */
int dc_umulti_attach(int prog_fd, const char *path, const __u64 *offsets,
		     const __u64 *cookies, __u32 cnt, bool retprobe);

#endif /* DC_UMULTI_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * floor.bpf.c - the benchmarks' floor: programs that return at once,
 * attached by bench/dc-floor to the same tracepoints datacrumbs uses, the
 * same way: classic (tp), raw (raw_tp) or BTF-typed raw (tp_btf).  What
 * they cost is what any tracer of those tracepoints pays before doing
 * anything.  A classic tracepoint's program also pays, unseen by
 * bpf_stats, the kernel's filling of the event's record before the call.
 *
 * With record_bytes set (dc-floor -R), each run also writes a record of
 * that many bytes into a BPF ring buffer that dc-floor reads as
 * dc-collect reads its own, without wakeups (a look every 10 ms): what one
 * record costs any program, apart from what it puts in it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 record_bytes = 0; /* 0, 8, 40 or 104 */
__u64 dropped = 0;                     /* records the full ring refused */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);
} ring SEC(".maps");

/* A record of n bytes, its words written (the ring's memory is not
 * cleared), submitted without a wakeup. */
#define PUT(n) do {							\
	__u64 *w = bpf_ringbuf_reserve(&ring, (n), 0);			\
	int i;								\
									\
	if (w) {							\
		for (i = 0; i < (n) / 8; i++)				\
			w[i] = i;					\
		bpf_ringbuf_submit(w, BPF_RB_NO_WAKEUP);		\
	} else {							\
		__sync_fetch_and_add(&dropped, 1);			\
	}								\
} while (0)

static __always_inline int record(void)
{
	switch (record_bytes) {
	case 8: PUT(8); break;
	case 40: PUT(40); break;
	case 104: PUT(104); break;
	}
	return 0;
}

SEC("raw_tp")
int floor_raw(void *ctx)
{
	return 0;
}

SEC("tp")
int floor_tp(void *ctx)
{
	return 0;
}

/* The same through BTF-typed raw tracepoints, where the kernel has them:
 * its target is set before loading, so dc-floor loads one per target. */
SEC("tp_btf")
int floor_btf(void *ctx)
{
	return 0;
}

/* The same with a record (-R): programs of their own, so the empty ones
 * stay empty. */
SEC("raw_tp")
int floor_raw_rec(void *ctx)
{
	return record();
}

SEC("tp")
int floor_tp_rec(void *ctx)
{
	return record();
}

SEC("tp_btf")
int floor_btf_rec(void *ctx)
{
	return record();
}

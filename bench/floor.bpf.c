// SPDX-License-Identifier: GPL-2.0
/*
 * floor.bpf.c - the benchmarks' floor: programs that return at once,
 * attached by bench/dc-floor to the same tracepoints datacrumbs uses, the
 * same way: classic (tp), raw (raw_tp) or BTF-typed raw (tp_btf).  What
 * they cost is what any tracer of those tracepoints pays before doing
 * anything.  A classic tracepoint's program also pays, unseen by
 * bpf_stats, the kernel's filling of the event's record before the call.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

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

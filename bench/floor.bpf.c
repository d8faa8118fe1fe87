// SPDX-License-Identifier: GPL-2.0
/*
 * floor.bpf.c - the benchmarks' floor: programs that return at once,
 * attached by bench/dc-floor to the same tracepoints datacrumbs uses (raw
 * ones for system calls, classic ones for the kernel layers).  What they
 * cost is what any tracer of those tracepoints pays before doing anything.
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

/* The same through BTF-typed raw tracepoints, where the kernel has them. */
SEC("tp_btf/sys_enter")
int floor_btf(void *ctx)
{
	return 0;
}

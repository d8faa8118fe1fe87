/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fallback.bpf.h - the functions the client library wraps, through
 * uprobes bound to the processes that will not load it (fallback.c).
 * Those uprobes are inherited by what such a process starts and outlive
 * its execs, so a process that has them may load the client after all
 * and join the fast path: from then on (fast_procs) the client records
 * its calls, and these programs leave them alone.  Part of collect.bpf.c.
 */

static __always_inline bool on_fast_path(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	return bpf_map_lookup_elem(&fast_procs, &tgid) != NULL;
}

SEC("uprobe")
int BPF_KPROBE(dc_fallback_entry)
{
	return on_fast_path() ? 0 : uprobe_entry(ctx);
}

SEC("uretprobe")
int BPF_KRETPROBE(dc_fallback_exit)
{
	return on_fast_path() ? 0 : regs_exit(ctx);
}

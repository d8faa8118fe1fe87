/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfunc.bpf.h - dc-collect's programs for kernel functions, included at
 * the end of collect.bpf.c (one skeleton, their own file).
 *
 * Two ways in, chosen by kfeatures.c: fentry/fexit (BPF trampolines,
 * arguments read with bpf_get_func_arg, the cheaper path) where the
 * kernel allows it, kprobes/kretprobes otherwise.  Either way the cookie
 * is the probe id and the call goes on the thread's call stack like a
 * library call, so a vfs_write sits under the write system call that
 * made it.  One fentry program serves every function: user space loads
 * copies of it, one per function (a tracing program is bound to its
 * function when it loads).
 */
#include "kfunc.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_MAX_PROBES);
	__type(key, __u32);
	__type(value, struct dc_kfunc_cfg);
} kfunc_cfg SEC(".maps");

static __always_inline __u64 kfunc_read(__u8 op, __u64 v)
{
	__u64 x = 0;

	if (v == 0)
		return 0;
	switch (op) {
	case DC_KOP_FILE_INO:
		return BPF_CORE_READ((struct file *)v, f_inode, i_ino);
	case DC_KOP_INODE_INO:
		return BPF_CORE_READ((struct inode *)v, i_ino);
	case DC_KOP_DENTRY_INO:
		return BPF_CORE_READ((struct dentry *)v, d_inode, i_ino);
	case DC_KOP_PATH_INO:
		return BPF_CORE_READ((struct path *)v, dentry, d_inode, i_ino);
	case DC_KOP_KIOCB_INO:
		return BPF_CORE_READ((struct kiocb *)v, ki_filp, f_inode, i_ino);
	case DC_KOP_IOV_COUNT:
		return BPF_CORE_READ((struct iov_iter *)v, count);
	case DC_KOP_DEREF:
		bpf_probe_read_kernel(&x, sizeof(x), (const void *)v);
		return x;
	}
	return v;
}

static __always_inline void kfunc_push(__u64 pid_tgid, __u32 probe_id,
				       __u64 *args)
{
	struct dc_kfunc_cfg *kc = bpf_map_lookup_elem(&kfunc_cfg, &probe_id);
	int i;

	/* Unrolled: a loop's back-edge is refused in some program types on
	 * older kernels (6.1's kprobes). */
	if (kc)
#pragma clang loop unroll(full)
		for (i = 0; i < DC_MAX_ARGS; i++)
			args[i] = kfunc_read(kc->op[i], args[i]);
	push((__u32)pid_tgid, probe_id, 0, args);
}

SEC("kprobe")
int BPF_KPROBE(dc_kprobe_entry)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 args[DC_MAX_ARGS];

	if (!current_selected(pid_tgid))
		return 0;
	args[0] = PT_REGS_PARM1(ctx);
	args[1] = PT_REGS_PARM2(ctx);
	args[2] = PT_REGS_PARM3(ctx);
	args[3] = PT_REGS_PARM4(ctx);
	args[4] = PT_REGS_PARM5(ctx);
	args[5] = param6(ctx);
	kfunc_push(pid_tgid, (__u32)bpf_get_attach_cookie(ctx), args);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(dc_kprobe_exit)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (!current_selected(pid_tgid))
		return 0;
	pop((__u32)pid_tgid, (__u32)bpf_get_attach_cookie(ctx), false,
	    (__s64)PT_REGS_RC(ctx));
	return 0;
}

/* The attach target is set by user space before loading; copies for the
 * other functions are loaded from these instructions. */
SEC("fentry")
int dc_fentry(__u64 *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 args[DC_MAX_ARGS];
	int i;

	if (!current_selected(pid_tgid))
		return 0;
#pragma clang loop unroll(full)
	for (i = 0; i < DC_MAX_ARGS; i++) {
		args[i] = 0;
		/* Past the function's last argument this fails, leaving 0. */
		bpf_get_func_arg(ctx, i, &args[i]);
	}
	kfunc_push(pid_tgid, (__u32)bpf_get_attach_cookie(ctx), args);
	return 0;
}

SEC("fexit")
int dc_fexit(__u64 *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 ret = 0;

	if (!current_selected(pid_tgid))
		return 0;
	bpf_get_func_ret(ctx, &ret);
	pop((__u32)pid_tgid, (__u32)bpf_get_attach_cookie(ctx), false,
	    (__s64)ret);
	return 0;
}

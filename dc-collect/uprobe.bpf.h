/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobe.bpf.h - user-level functions: one generic uprobe/uretprobe pair
 * for all of them, the BPF cookie the probe id; kprobes (kfunc.bpf.h)
 * read their arguments and returns the same way.  Part of collect.bpf.c.
 */

/* This libbpf has no PT_REGS_PARM6; the sixth argument register by arch. */
static __always_inline __u64 param6(struct pt_regs *ctx)
{
#if defined(__TARGET_ARCH_x86)
	return ctx->r9;
#elif defined(__TARGET_ARCH_arm64)
	return ((struct user_pt_regs *)ctx)->regs[5];
#else
	return 0;
#endif
}

/* A function's arguments, from the registers at its entry: uprobes and
 * kprobes (kfunc.bpf.h) alike. */
static __always_inline void regs_args(struct pt_regs *ctx, __u64 *args)
{
	args[0] = PT_REGS_PARM1(ctx);
	args[1] = PT_REGS_PARM2(ctx);
	args[2] = PT_REGS_PARM3(ctx);
	args[3] = PT_REGS_PARM4(ctx);
	args[4] = PT_REGS_PARM5(ctx);
	args[5] = param6(ctx);
}

/* Argument slots read from other registers (cfg->regs: lib/spec.c
 * keeps them below DC_MAX_ARGS): a checking version's, whose arguments
 * are its function's with others in between.  Constant offsets only,
 * which every kernel's verifier takes on the stack. */
static __noinline void remap_args(const struct dc_probe_cfg *cfg, __u64 *args)
{
	__u64 r[DC_MAX_ARGS];
	int a;

	if (cfg == NULL)
		return;
	__builtin_memcpy(r, args, sizeof(r));
	for (a = 0; a < DC_MAX_ARGS; a++) {
		switch (cfg->regs[a]) {
		case 0: args[a] = r[0]; break;
		case 1: args[a] = r[1]; break;
		case 2: args[a] = r[2]; break;
		case 3: args[a] = r[3]; break;
		case 4: args[a] = r[4]; break;
		default: args[a] = r[5]; break;
		}
	}
}

static __always_inline int uprobe_entry(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 args[DC_MAX_ARGS];
	struct dc_probe_cfg *cfg;
	__u32 cookie;

	if (!current_selected(pid_tgid))
		return 0;
	regs_args(ctx, args);
	cookie = (__u32)bpf_get_attach_cookie(ctx);
	cfg = bpf_map_lookup_elem(&probe_cfg, &cookie);
	if (cfg && cfg->remap)
		remap_args(cfg, args);
	if (cfg && (cfg->derive & DC_DERIVE_ENTRY))
		derive_entry(cfg, args, PT_REGS_IP(ctx));
	push_frame((__u32)pid_tgid, cookie, 0, true, args);
	return 0;
}

/* A function's return, the probe id in the cookie: uretprobes and
 * kretprobes (kfunc.bpf.h) alike. */
static __always_inline int regs_exit(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (!current_selected(pid_tgid))
		return 0;
	pop(pid_tgid, (__u32)bpf_get_attach_cookie(ctx),
	    (__s64)PT_REGS_RC(ctx));
	return 0;
}

/* Attached one function at a time. */
SEC("uprobe")
int BPF_KPROBE(dc_uprobe_entry)
{
	return uprobe_entry(ctx);
}

SEC("uretprobe")
int BPF_KRETPROBE(dc_uprobe_exit)
{
	return regs_exit(ctx);
}

/* The same, for the kernel's multi-uprobe link (6.6 and later): one link
 * per library attaches and detaches all its functions at once.  User
 * space loads one of the two pairs, not both (load.c), and sets this
 * one's expected attach type. */
SEC("uprobe")
int BPF_KPROBE(dc_umulti_entry)
{
	return uprobe_entry(ctx);
}

SEC("uretprobe")
int BPF_KRETPROBE(dc_umulti_exit)
{
	return regs_exit(ctx);
}


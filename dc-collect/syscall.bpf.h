/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscall.bpf.h - system calls, through the raw sys_enter/sys_exit
 * tracepoints and a syscall-number table: two programs cover all of
 * them.  Part of collect.bpf.c.
 */

/* The sixth argument from a system call's saved registers, read through
 * a helper (param6 reads them in place, where tp_btf allows it). */
static __always_inline __u64 syscall_param6(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(regs, r9);
#elif defined(__TARGET_ARCH_arm64)
	return BPF_CORE_READ((struct user_pt_regs *)regs, regs[5]);
#else
	return 0;
#endif
}

/* The probe id + 1 of a system call to trace now, or 0.  Whether the
 * thread is selected is asked first: most calls on a host are other
 * processes', and they then cost nothing more. */
static __always_inline __u32 sys_enter_probe(__u64 pid_tgid, long id)
{
	__u32 nr = (__u32)id, *pid1;

	if (!current_selected(pid_tgid) || nr >= DC_MAX_SYSCALLS)
		return 0;
	pid1 = bpf_map_lookup_elem(&syscall_probe, &nr);
	if (!pid1)
		return 0;
	return *pid1;
}

/* Two programs for system call entries: where the kernel has BTF-typed
 * raw tracepoints (tp_btf, kfeatures.c), the saved registers are read in
 * place; elsewhere through a helper.  User space loads one of them. */
SEC("tp_btf/sys_enter")
int BPF_PROG(dc_sys_enter_btf, struct pt_regs *regs, long id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 pid1 = sys_enter_probe(task_pid_tgid(task), id);
	__u64 args[DC_MAX_ARGS];

	if (pid1 == 0)
		return 0;
	args[0] = PT_REGS_PARM1_SYSCALL(regs);
	args[1] = PT_REGS_PARM2_SYSCALL(regs);
	args[2] = PT_REGS_PARM3_SYSCALL(regs);
	args[3] = PT_REGS_PARM4_SYSCALL(regs);
	args[4] = PT_REGS_PARM5_SYSCALL(regs);
	args[5] = param6(regs);
	push_on(task_stack(task, true), pid1 - 1, 1, false, args);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(dc_sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 pid1 = sys_enter_probe(task_pid_tgid(task), id);
	__u64 args[DC_MAX_ARGS];

	if (pid1 == 0)
		return 0;
#if defined(__TARGET_ARCH_x86)
	{
		/* One copy of the saved registers instead of six reads: the
		 * helper call, not the bytes, is what costs. */
		struct pt_regs r;

		if (bpf_probe_read_kernel(&r, sizeof(r), regs) != 0)
			return 0;
		args[0] = PT_REGS_PARM1_SYSCALL(&r);
		args[1] = PT_REGS_PARM2_SYSCALL(&r);
		args[2] = PT_REGS_PARM3_SYSCALL(&r);
		args[3] = PT_REGS_PARM4_SYSCALL(&r);
		args[4] = PT_REGS_PARM5_SYSCALL(&r);
		args[5] = r.r9;
	}
#else
	args[0] = PT_REGS_PARM1_CORE_SYSCALL(regs);
	args[1] = PT_REGS_PARM2_CORE_SYSCALL(regs);
	args[2] = PT_REGS_PARM3_CORE_SYSCALL(regs);
	args[3] = PT_REGS_PARM4_CORE_SYSCALL(regs);
	args[4] = PT_REGS_PARM5_CORE_SYSCALL(regs);
	args[5] = syscall_param6(regs);
#endif
	push_on(task_stack(task, true), pid1 - 1, 1, false, args);
	return 0;
}

/* Only selected threads have a stack: the per-CPU answer keeps the others
 * from looking for one. */
static __always_inline void sys_exit(long ret, const bool batch)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = task_pid_tgid(task);
	struct dc_stack *st;

	if (!current_selected(pid_tgid))
		return;
	st = task_stack(task, false);
	if (follow_ra)
		ra_flush(st, true);
	pop_syscall(st, pid_tgid, ret, batch);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(dc_sys_exit, struct pt_regs *regs, long ret)
{
	sys_exit(ret, false);
	return 0;
}

/* The same, its records into the CPU's batch (common.bpf.h): loaded
 * instead where the kernel has BPF's compare-and-swap and batches. */
SEC("raw_tp/sys_exit")
int BPF_PROG(dc_sys_exit_batch, struct pt_regs *regs, long ret)
{
	sys_exit(ret, true);
	return 0;
}

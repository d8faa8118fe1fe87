// SPDX-License-Identifier: GPL-2.0
/*
 * collect.bpf.c - dc-collect's kernel half.
 *
 * One generic program pair serves every user-level function: the uprobe's
 * BPF cookie is the probe id, and a per-probe configuration says which
 * arguments to keep.  System calls go through the raw sys_enter/sys_exit
 * tracepoints and a syscall-number table, so two programs cover all of
 * them.  Entries push a frame on a per-thread call stack and exits pop it,
 * so nested and recursive calls pair exactly and a syscall made inside a
 * traced library call sits one level deeper than it.  Each completed call
 * becomes one struct dc_event in the ring buffer.
 *
 * Only selected processes are traced: the `selected` map holds their
 * tgids; forks of a selected process are added here, in the kernel, so no
 * child escapes, and exits remove them.
 *
 * Nothing is lost silently: a full ring buffer, a stack deeper than
 * DC_MAX_DEPTH or a missing stack slot each bump a per-CPU counter that
 * user space reports.
 *
 * The programs live in headers by subject, all part of this one object
 * (one skeleton), included in this order:
 *   common.bpf.h       maps, counters, selection, the ring and its records
 *   derive.bpf.h       arguments read through at entry or return
 *   stack.bpf.h        the per-thread call stack: push, pop, emit
 *   uprobe.bpf.h       user-level functions
 *   tracepoints.bpf.h  block I/O, page cache, faults, readahead, network
 *   syscall.bpf.h      system calls
 *   kfunc.bpf.h        kernel functions (fentry, kprobes)
 * and here, the processes' lifecycle: forks, execs, exits, registrations.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "event.h"
#include "bytes.h"
#include "collect.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before loading. */
const volatile bool trace_all = false;   /* --all: every process */
const volatile __u32 self_tgid = 0;      /* never trace dc-collect */
const volatile __u32 internal_base = 0;  /* first internal probe id */
const volatile __u64 wakeup_bytes = 1 << 20; /* wake the reader past this */
const volatile bool profile_mode = false; /* sum calls, do not send them */
const volatile __u64 cgroup_id = 0;      /* --cgroup: its id, 0 if unused */
const volatile __u32 cgroup_level = 0;   /* ... and its depth below the root */
const volatile bool follow_ra = false;   /* readahead traced: stacks hold it */
const volatile bool fast_path = false;   /* clients record user-level calls */
const volatile bool batching = false;    /* kernel-layer records in per-CPU
                                            batches (common.bpf.h) */
/* Threads' stacks in 2^stack_slot_bits slots of stack_slots (fewer only
 * in tests: DC_TEST_STACK_SLOTS), the others in task storage. */
const volatile __u32 stack_slot_bits = DC_STACK_SLOT_BITS;

#include "common.bpf.h"
#include "derive.bpf.h"
#include "stack.bpf.h"
#include "uprobe.bpf.h"
#include "fallback.bpf.h"
#include "tracepoints.bpf.h"
#include "syscall.bpf.h"
#include "kfunc.bpf.h"

/* A process-level record: fork, exec, exit, registration. */
static __always_inline void emit_proc(__u8 type, __u32 which, __u32 tgid,
				      __u32 tid, __u64 arg, __s64 ret,
				      const char *kstr)
{
	struct scratch *s;
	struct dc_event *ev;
	__u32 zero = 0, probe_id = internal_base + which;
	long len = 0;
	__u64 size;

	s = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!s)
		return;
	ev = (struct dc_event *)s->rec;
	fill_header(ev, type, probe_id, ((__u64)tgid << 32) | tid,
		    bpf_ktime_get_ns(), 0, ret, 0);
	ev->nargs = DC_MAX_ARGS;
	__builtin_memset(s->rec + DC_EVENT_HDR_SIZE, 0, 8 * DC_MAX_ARGS);
	*(__u64 *)(s->rec + DC_EVENT_HDR_SIZE) = arg;
	if (kstr) {
		len = bpf_probe_read_kernel_str(s->rec + DC_EVENT_FIXED_SIZE,
						DC_MAX_STR, kstr);
		if (len < 1)
			len = 1;
		ev->str_len = (__u16)(len - 1);
	} else {
		len = 1;
		s->rec[DC_EVENT_FIXED_SIZE] = 0;
	}
	size = (DC_EVENT_FIXED_SIZE + len + 7) & ~7ULL;
	if (size > sizeof(s->rec))
		size = sizeof(s->rec);
	ev->size = (__u16)size;
	/* Process changes are rare and user space must look at /proc while
	 * the process is still there: wake it now, even behind records that
	 * were written without a wakeup. */
	output_event(s->rec, size, probe_id, BPF_RB_FORCE_WAKEUP);
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(dc_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u32 cpid = BPF_CORE_READ(child, pid);
	__u32 val = 0;

	if (!is_selected(ptgid))
		return 0;
	/* A new task may reuse the tid of one the CPUs' answers name. */
	sel_gen_bump();
	/* New threads share the tgid and so are already selected. */
	if (ctgid == ptgid)
		return 0;
	if (!trace_all) {
		bpf_map_update_elem(&selected, &ctgid, &val, BPF_ANY);
		sel_gen_bump();
	}
	emit_proc(DC_EV_FORK, DC_IPROBE_FORK, ptgid, BPF_CORE_READ(parent, pid),
		  cpid, 0, NULL);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(dc_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	if (!is_selected(tgid))
		return 0;
	/* The new image has a client of its own, or none (exec runs in
	 * the thread that survives it). */
	if (fast_path) {
		struct dc_stack *st = get_stack(0, false);

		bpf_map_delete_elem(&fast_procs, &tgid);
		if (st) {
			st->client_tls = 0;
			st->state = 0;
		}
	}
	emit_proc(DC_EV_EXEC, DC_IPROBE_EXEC, tgid, BPF_CORE_READ(p, pid),
		  old_pid, 0, BPF_CORE_READ(bprm, filename));
	return 0;
}

/* Send this CPU's batch of kernel-layer records (common.bpf.h).  Never
 * attached: user space test-runs it on each CPU whose batch holds
 * records, at every drain (output.c).  1: it interrupted a program
 * adding to the batch; user space tries again. */
SEC("raw_tp")
int dc_batch_flush(void *ctx)
{
	struct cpu_batch *b = batch_take();

	if (!b)
		return 1;
	batch_send(b, BPF_RB_NO_WAKEUP);
	batch_give(b);
	return 0;
}

/* The thread's own again (dc_client_quiet, below; its exit). */
static __always_inline void unmute(__u32 tid)
{
	if (gens.muted != 0 && bpf_map_delete_elem(&muted, &tid) == 0) {
		__sync_fetch_and_add(&gens.muted, -1);
		sel_gen_bump();
	}
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(dc_exit, struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	__u32 tid = BPF_CORE_READ(p, pid);
	int live, code, sig;

	/* sched_process_exit runs in the exiting thread: its readahead is
	 * sent before its stack goes. */
	if (follow_ra || fast_path) {
		struct dc_stack *st = get_stack(0, false);

		if (follow_ra)
			ra_flush(st, false);
		client_state_release(st);
	}
	task_stack_free(bpf_get_current_task_btf());
	unmute(tid);
	if (!is_selected(tgid))
		return 0;
	sel_gen_bump(); /* its tid may be reused */
	/* The process is gone when its last thread exits. */
	live = BPF_CORE_READ(p, signal, live.counter);
	if (live != 0)
		return 0;
	/* The status as a shell reports it: the exit code, or 128 + N
	 * for a death by signal N, which goes in the first slot too (0:
	 * it exited), so an exit(137) and a SIGKILL stay apart. */
	code = BPF_CORE_READ(p, exit_code);
	sig = code & 0x7f;
	emit_proc(DC_EV_EXIT_PROC, DC_IPROBE_EXIT, tgid, tid, sig,
		  sig ? 128 + sig : (code >> 8) & 0xff, NULL);
	if (fast_path)
		bpf_map_delete_elem(&fast_procs, &tgid);
	if (!trace_all) {
		bpf_map_delete_elem(&selected, &tgid);
		sel_gen_bump();
	}
	return 0;
}

/* The client library's dc_client_register(): select the whole process. */
SEC("uprobe")
int BPF_KPROBE(dc_client_register)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32, val = 0;

	if (tgid == self_tgid)
		return 0;
	if (bpf_map_lookup_elem(&selected, &tgid) == NULL) {
		bpf_map_update_elem(&selected, &tgid, &val, BPF_ANY);
		sel_gen_bump();
		emit_proc(DC_EV_INSTANT, DC_IPROBE_REGISTER, tgid,
			  (__u32)pid_tgid, 0, 0, NULL);
	}
	return 0;
}

/* The client library's dc_client_quiet(version, on): the calling
 * thread's system calls and kernel events from here on are the
 * library's own work (on), or the program's again (0).  Its handshake
 * with the collector (a socket, a memfd, a mapping) and its first look
 * at its ring are not the program's, and the uprobe path has none of
 * them.  A thread can mute only itself; its exit unmutes it. */
SEC("uprobe")
int BPF_KPROBE(dc_client_quiet, unsigned version, int on)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, val = 0;

	if ((__u32)(pid_tgid >> 32) == self_tgid)
		return 0;
	if (!on) {
		unmute(tid);
		return 0;
	}
	if (bpf_map_update_elem(&muted, &tid, &val, BPF_NOEXIST) == 0) {
		__sync_fetch_and_add(&gens.muted, 1);
		sel_gen_bump();
	}
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack.bpf.h - each thread's call stack: an entry pushes a frame, its
 * exit pops it and emits the completed call as one record.  The client
 * library's calls (the fast path) are counted in from its per-thread call
 * state (in its process's call-state map, or its TLS), so a call's level
 * and parent span both.  Part of collect.bpf.c.
 */

/* Where the client library keeps this thread's struct dc_client_tls (0
 * off the fast path): the process's offset from the thread pointer; its
 * call-state map in *state, its tid in *tid. */
static __always_inline __u64 client_tls_addr(__u32 *state, __u32 *tid)
{
	struct task_struct *task;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	struct dc_fast_proc *p;
	__u64 tp;

	p = bpf_map_lookup_elem(&fast_procs, &tgid);
	if (!p)
		return 0;
	*state = p->state;
	*tid = (__u32)pid_tgid;
	task = (struct task_struct *)bpf_get_current_task();
#if defined(__TARGET_ARCH_x86)
	tp = BPF_CORE_READ(task, thread.fsbase);
#elif defined(__TARGET_ARCH_arm64)
	tp = BPF_CORE_READ(task, thread.uw.tp_value);
#else
	return 0;
#endif
	return tp + p->tls_off;
}

/* The thread's entry in its process's call-state map (map): the one it
 * was last found in if the thread still owns it, else the one it owns
 * of those it may claim (lib/event.h).  NULL: it owns none. */
static __always_inline struct dc_client_state *
state_entry(struct dc_stack *st, void *map)
{
	struct dc_client_state *e;
	__u32 i, k = st->state_slot;

	if (k != 0) {
		e = bpf_map_lookup_elem(map, &k);
		if (e && e->owner == st->tid)
			return e;
	}
	for (i = 0; i < DC_CLIENT_PROBE; i++) {
		k = 1 + ((st->tid + i) & (DC_CLIENT_SLOTS - 1));
		e = bpf_map_lookup_elem(map, &k);
		if (e && e->owner == st->tid) {
			st->state_slot = k;
			return e;
		}
	}
	return NULL;
}

/* The thread's call state from its process's call-state map (st->state:
 * it has one) into *tls: 1; 0: it is in the thread's TLS (the thread
 * found no entry free, or the map is gone). */
static __always_inline int client_state(struct dc_stack *st,
					struct dc_client_tls *tls)
{
	__u32 idx = st->state - 1, zero = 0;
	struct dc_client_state *e;
	void *map;

	map = bpf_map_lookup_elem(&client_states, &idx);
	if (!map)
		return 0;
	e = state_entry(st, map);
	if (e) {
		tls->cur = e->k.cur;
		tls->depth = e->k.depth;
		return 1;
	}
	/* No entry: a thread that has not called yet (nothing open), or
	 * one of those that found none free, which keep it in the TLS. */
	e = bpf_map_lookup_elem(map, &zero);
	if (!e || e->overflow != 0)
		return 0;
	tls->cur = 0;
	tls->depth = 0;
	return 1;
}

/* The client's struct dc_client_tls of the current thread, read into
 * *tls: its address, or 0 off the fast path.  With the thread's stack
 * (st), the answer is looked up once and kept there: a thread's thread
 * pointer and its process's offset never move (exec, which could, clears
 * it), and a process off the fast path stays off it until gens.fast moves
 * (a process joined), so a thread off it (a command that records no
 * user-level call, a child without the client) does not look for its
 * process at every call.  A process with a call-state map keeps the
 * state there, read with plain loads; the TLS, in the thread's memory,
 * is copied out of it (bpf_probe_read_user), which costs far more. */
static __always_inline __u64 client_tls(struct dc_stack *st,
					struct dc_client_tls *tls)
{
	__u32 gen, state = 0, tid = 0;
	__u64 addr;

	if (!fast_path)
		return 0;
	addr = st ? st->client_tls : 0;
	if (addr == 0) {
		/* The generation before the look: a process that joins
		 * after it moves it after the look.  Odd: never the 0 of
		 * a new stack. */
		gen = (*(volatile __u32 *)&gens.fast << 1) | 1;
		if (st && st->tls_none == gen)
			return 0;
		addr = client_tls_addr(&state, &tid);
		if (st) {
			st->client_tls = addr;
			st->tls_none = addr ? 0 : gen;
			st->state = state;
			st->state_slot = 0;
			st->tid = tid;
		}
		if (addr == 0)
			return 0;
	}
	if (st && st->state != 0 && client_state(st, tls))
		return addr;
	if (bpf_probe_read_user(tls, sizeof(*tls), (void *)addr) != 0)
		return 0;
	return addr;
}

/* What bpf_get_current_pid_tgid() answers, read from the current task:
 * programs that need the task for its stack anyway save a helper call,
 * and each helper call costs. */
static __always_inline __u64 task_pid_tgid(const struct task_struct *task)
{
	return ((__u64)task->tgid << 32) | (__u32)task->pid;
}

/* A thread of a process with a call-state map exits: its entry is free
 * for the process's next thread, even if the thread never said so.  A
 * plain store: while the entry names this thread no other claims it. */
static __always_inline void client_state_release(struct dc_stack *st)
{
	struct dc_client_state *e;
	void *map;
	__u32 idx;

	if (!fast_path || !st || st->client_tls == 0 || st->state == 0)
		return;
	idx = st->state - 1;
	map = bpf_map_lookup_elem(&client_states, &idx);
	if (!map)
		return;
	e = state_entry(st, map);
	if (e)
		*(volatile __u32 *)&e->owner = 0;
}

/* task's slot in stack_slots (never NULL: the index is masked; the
 * verifier wants the check). */
static __always_inline struct dc_stack *stack_slot(struct task_struct *task)
{
	__u32 k = task->pid & ((1u << stack_slot_bits) - 1);

	return bpf_map_lookup_elem(&stack_slots, &k);
}

/* The stack of task, the current one, not in its slot: in its task
 * storage, where a thread whose slot another held when it first called
 * keeps it for good (so it looks there before taking a slot freed
 * since).  With create, a new one if it has none: its slot if free (not
 * once the thread exits, when dc_exit frees its slot: a slot taken after
 * would stay taken), else task storage. */
static __always_inline struct dc_stack *
task_stack_other(struct task_struct *task, struct dc_stack *slot, bool create)
{
	struct dc_stack *st = bpf_task_storage_get(&stacks, task, NULL, 0);

	if (st || !create)
		return st;
	if (slot && !(task->flags & 0x4 /* PF_EXITING */) &&
	    __sync_val_compare_and_swap(&slot->owner, 0,
					(__u64)(__u32)task->pid + 1) == 0) {
		/* As a new task storage is: zero where it is read
		 * before it is written. */
		slot->depth = 0;
		slot->tls_none = 0;
		slot->last_seq = 0;
		slot->client_tls = 0;
		__builtin_memset(&slot->ra, 0, sizeof(slot->ra));
		slot->state = 0;
		slot->state_slot = 0;
		slot->tid = 0;
		return slot;
	}
	return bpf_task_storage_get(&stacks, task, NULL,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
}

/* The stack of task, the current one; with create, a zeroed one if it
 * has none.  The slot of its tid first: most threads' stack is there. */
static __always_inline struct dc_stack *task_stack(struct task_struct *task,
						   bool create)
{
	struct dc_stack *slot = stack_slot(task);

	if (slot && slot->owner == (__u64)(__u32)task->pid + 1)
		return slot;
	return task_stack_other(task, slot, create);
}

/* The current thread task exits: its stack goes, and its slot is free
 * for the next thread of its tid's slot. */
static __always_inline void task_stack_free(struct task_struct *task)
{
	struct dc_stack *slot = stack_slot(task);

	if (slot && slot->owner == (__u64)(__u32)task->pid + 1)
		*(volatile __u64 *)&slot->owner = 0;
	bpf_task_storage_delete(&stacks, task);
}

/* The current thread's stack (tid is the current thread's). */
static __always_inline struct dc_stack *get_stack(__u32 tid, bool create)
{
	return task_stack(bpf_get_current_task_btf(), create);
}

/* The innermost call open on the current thread, of the kernel's frames
 * and the client library's calls together: its seq in *parent (0: none),
 * and the level of a record beginning inside it (the calls open).  A
 * kernel frame on top (a system call, a kernel function) is innermost: no
 * user code runs inside one.  A uprobe frame on top is, unless the client
 * opened calls inside it: its state then counts more open calls than
 * when the frame began (the frame keeps that count), and names the
 * innermost.  With no frame open, the client's innermost call is.  The
 * state is the client's word, written in its memory: bounded, and taken
 * only when it names a call of the client's.  *cdepth: the client's count of open
 * calls when it was read, *client: whether it was. */
static __always_inline __u32 client_level(const struct dc_client_tls *tls)
{
	return tls->depth < DC_MAX_CLIENT_DEPTH ? tls->depth : DC_MAX_CLIENT_DEPTH;
}

static __always_inline __u32 innermost(struct dc_stack *st, __u64 *parent,
				       __u32 *cdepth, bool *client)
{
	struct dc_client_tls tls;
	__u32 d = st ? st->depth : 0;

	*parent = 0;
	*cdepth = 0;
	*client = false;
	/* (Two branches, each with its own frame pointer: the verifier
	 * cannot follow a pointer that may be NULL across a helper call.) */
	if (st && d > 0 && d <= DC_MAX_DEPTH) {
		struct dc_call_frame *top = &st->frames[(d - 1) & (DC_MAX_DEPTH - 1)];

		if (top->client && client_tls(st, &tls)) {
			__u32 now = client_level(&tls);

			*cdepth = now;
			*client = true;
			if (now > top->cdepth && (tls.cur & DC_SEQ_CLIENT)) {
				*parent = tls.cur;
				return top->level + 1 + (now - top->cdepth);
			}
		}
		*parent = top->seq;
		return top->level + 1;
	}
	if (client_tls(st, &tls)) {
		*cdepth = client_level(&tls);
		*client = true;
		if ((tls.cur & DC_SEQ_CLIENT) || tls.cur == 0) {
			*parent = tls.cur;
			return *cdepth;
		}
	}
	return 0;
}

/* A uprobe call of a process on the fast path has begun: dc-collect
 * nests the client's records that fall inside it under it (nest.c). */
static __always_inline void nest_mark(const struct dc_call_frame *f)
{
	struct dc_event *ev = reserve_event(f->probe_id, 0);

	if (!ev)
		return;
	fill_header(ev, DC_EV_NEST_ENTER, f->probe_id, bpf_get_current_pid_tgid(),
		    f->ts, 0, f->cdepth, (__u16)f->level);
	ev->seq = f->seq;
	ev->parent = f->parent;
	bpf_ringbuf_submit(ev, rb_flags());
}

/* Open a frame on the current thread's stack st (NULL: none could be
 * made): a system call, a kernel function, or (user) a uprobe call. */
static __always_inline void push_on(struct dc_stack *st, __u32 probe_id,
				    __u32 is_syscall, bool user,
				    const __u64 *args)
{
	struct dc_call_frame *f;
	bool client;
	__u64 seq;
	__u32 d;

	if (!st) {
		count(DC_CNT_NOSTACK);
		count_drop(probe_id);
		return;
	}
	/* Every entry gets the next number on its thread, stored or not:
	 * the numbers say in which order calls began, exactly, even when
	 * two begin in the same nanosecond (dc-stream(5)). */
	seq = ++st->last_seq;
	d = st->depth;
	if (d >= DC_MAX_DEPTH) {
		/* A user-level call still counts towards depth so its exit
		 * pops the right level; a syscall is a leaf and never does. */
		if (!is_syscall)
			st->depth = d + 1;
		count(DC_CNT_DEPTH);
		count_drop(probe_id);
		return;
	}
	f = &st->frames[d];
	f->level = innermost(st, &f->parent, &f->cdepth, &client);
	st->depth = d + 1;
	f->probe_id = probe_id;
	f->is_syscall = is_syscall;
	f->client = user && client;
	f->seq = seq;
	f->args[0] = args[0];
	f->args[1] = args[1];
	f->args[2] = args[2];
	f->args[3] = args[3];
	f->args[4] = args[4];
	f->args[5] = args[5];
	/* Take the time last so the frame's own bookkeeping is not in it. */
	f->ts = bpf_ktime_get_ns();
	if (f->client)
		nest_mark(f);
}

static __always_inline void push_frame(__u32 tid, __u32 probe_id,
				       __u32 is_syscall, bool user,
				       const __u64 *args)
{
	push_on(get_stack(tid, true), probe_id, is_syscall, user, args);
}

static __always_inline void push(__u32 tid, __u32 probe_id, __u32 is_syscall,
				 const __u64 *args)
{
	push_frame(tid, probe_id, is_syscall, false, args);
}

/* A syscall returns -errno on failure (the last 4095 values). */
static __always_inline __s32 syscall_error(const struct dc_call_frame *f,
					   __s64 ret)
{
	return f->is_syscall && ret < 0 && ret >= -4095 ? (__s32)-ret : 0;
}

/* Emit a completed call.  A probe with a string argument goes through the
 * per-CPU scratch record (its length varies); the rest reserve a record
 * of their size in place, or with batch (a constant: dc_sys_exit_batch's
 * system calls) take it in the CPU's batch (common.bpf.h) when free.
 *
 * A completed call without a string: the ring's reservation must be a
 * constant, so emit_call picks the copy of this for its argument count
 * (n). */
static __always_inline void fill_call(struct dc_event *ev,
				      const struct dc_call_frame *f,
				      __u64 pid_tgid, __u64 now, __s64 ret,
				      __u32 depth, __u8 flags, const int n)
{
	fill_header(ev, DC_EV_CALL, f->probe_id, pid_tgid, f->ts, now - f->ts,
		    ret, depth);
	ev->seq = f->seq;
	ev->parent = f->parent;
	ev->flags = flags;
	ev->error = syscall_error(f, ret);
	put_args(ev, f->args, n);
}

static __always_inline void put_call(const struct dc_call_frame *f,
				     __u64 pid_tgid, __u64 now, __s64 ret,
				     __u32 depth, __u8 flags, const int n,
				     const bool batch)
{
	struct cpu_batch *b = batch ? batch_take_preemptible() : NULL;
	struct dc_event *ev;

	if (b) {
		fill_call(batch_room(b, f->probe_id, n), f, pid_tgid, now, ret,
			  depth, flags, n);
		batch_give(b);
		return;
	}
	ev = reserve_event(f->probe_id, n);
	if (!ev)
		return;
	fill_call(ev, f, pid_tgid, now, ret, depth, flags, n);
	bpf_ringbuf_submit(ev, rb_flags());
}

/* The user string at addr, at most DC_MAX_STR bytes with its NUL, into
 * dst: its length with the NUL (1 for an unreadable one, which leaves
 * zeros), DC_EVF_STR_TRUNC added to *flags if it was cut. */
static __always_inline long put_str(__u8 *dst, __u64 addr, __u8 *flags)
{
	long len = bpf_probe_read_user_str(dst, DC_MAX_STR, (const void *)addr);

	if (len < 1) {
		len = 1;
		dst[0] = 0;
	}
	if (len >= DC_MAX_STR)
		*flags |= DC_EVF_STR_TRUNC;
	if (len > DC_MAX_STR)
		len = DC_MAX_STR;
	return len;
}

/* A completed call with the string in argument slot str (and maybe a
 * second one, in slot str2, after the first's NUL), built in the scratch
 * record.  All argument slots are sent, so the string's offset is
 * fixed. */
static __always_inline void put_call_str(const struct dc_call_frame *f,
					 __u8 str, __u8 str2,
					 __u64 pid_tgid, __u64 now, __s64 ret,
					 __u32 depth, __u8 flags)
{
	struct dc_event *ev;
	struct scratch *s;
	__u32 zero = 0;
	__u64 size, *args;
	long len;

	if (str >= DC_MAX_ARGS)
		return;
	s = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!s)
		return;
	ev = (struct dc_event *)s->rec;
	fill_header(ev, DC_EV_CALL, f->probe_id, pid_tgid, f->ts,
		    now - f->ts, ret, depth);
	ev->seq = f->seq;
	ev->parent = f->parent;
	ev->nargs = DC_MAX_ARGS;
	put_args(ev, f->args, DC_MAX_ARGS);
	/* The strings' addresses from the record's copy of the arguments:
	 * any u8 index stays inside the scratch record, whatever the
	 * verifier knows of it (6.1's lost str2's bound across a spill,
	 * and then refused the index into the stack's frames). */
	args = DC_EVENT_ARGS(ev);
	len = put_str(s->rec + DC_EVENT_FIXED_SIZE, args[str], &flags);
	if (str2 < DC_MAX_ARGS)
		len += put_str(s->rec + DC_EVENT_FIXED_SIZE + len, args[str2],
			       &flags);
	ev->flags = flags;
	ev->str_len = (__u16)(len - 1);
	ev->error = syscall_error(f, ret);
	size = (DC_EVENT_FIXED_SIZE + len + 7) & ~7ULL;
	if (size > sizeof(s->rec))
		size = sizeof(s->rec);
	ev->size = (__u16)size;
	output_event(s->rec, size, f->probe_id, rb_flags());
}

static __always_inline void emit_call(struct dc_call_frame *f, __u64 pid_tgid,
				      __u64 now, __s64 ret, __u32 depth,
				      const bool batch)
{
	__u32 probe_id = f->probe_id;
	struct dc_probe_cfg *cfg = bpf_map_lookup_elem(&probe_cfg, &probe_id);
	__u8 dflags = 0;

	if (!cfg)
		return;
	/* A C function returning int leaves the upper half of the return
	 * register undefined: -1 must read as -1, not 4294967295. */
	if (!f->is_syscall && (cfg->ret_kind == DC_RET_FD ||
			       cfg->ret_kind == DC_RET_STATUS ||
			       cfg->ret_kind == DC_RET_INT ||
			       cfg->ret_kind == DC_RET_ALL ||
			       cfg->ret_kind == DC_RET_CHAR ||
			       cfg->ret_kind == DC_RET_CODE))
		ret = (__s32)ret;
	if (cfg->derive & DC_DERIVE_EXIT)
		dflags = derive_exit(cfg, f, ret);
	if (profile_mode) {
		struct dc_bytes b;

		dc_bytes_of(cfg->arg_kinds, cfg->nargs, cfg->ret_kind, f->args,
			    ret, dflags, &b);
		profile_call(pid_tgid >> 32, probe_id, now - f->ts, ret,
			     cfg->ret_kind, b.done);
		return;
	}
	if (dc_call_failed(cfg->ret_kind, ret))
		dflags |= DC_EVF_FAILED;
	if (cfg->str_arg < DC_MAX_ARGS) {
		put_call_str(f, cfg->str_arg, cfg->str_arg2, pid_tgid, now,
			     ret, depth, dflags);
		return;
	}
	switch (cfg->nargs) {
	case 0: put_call(f, pid_tgid, now, ret, depth, dflags, 0, batch); break;
	case 1: put_call(f, pid_tgid, now, ret, depth, dflags, 1, batch); break;
	case 2: put_call(f, pid_tgid, now, ret, depth, dflags, 2, batch); break;
	case 3: put_call(f, pid_tgid, now, ret, depth, dflags, 3, batch); break;
	case 4: put_call(f, pid_tgid, now, ret, depth, dflags, 4, batch); break;
	case 5: put_call(f, pid_tgid, now, ret, depth, dflags, 5, batch); break;
	default: put_call(f, pid_tgid, now, ret, depth, dflags, 6, batch); break;
	}
}

/* A system call returns (st: its thread's stack, or NULL): emit the
 * frame its entry pushed.  Untraced calls pushed none, and a call past
 * the stored frames none either (a syscall is a leaf: it never counted
 * towards depth).  Timed once its frame is found: most exits are of
 * untraced calls. */
static __always_inline void pop_syscall(struct dc_stack *st, __u64 pid_tgid,
					__s64 ret, const bool batch)
{
	struct dc_call_frame *f;
	__u32 d;

	if (!st || st->depth == 0)
		return;
	d = st->depth - 1;
	if (d >= DC_MAX_DEPTH)
		return;
	f = &st->frames[d];
	if (!f->is_syscall)
		return;
	st->depth = d;
	emit_call(f, pid_tgid, bpf_ktime_get_ns(), ret, f->level, batch);
}

/* Pop the user-level or kernel function call probe_id and emit it.  If
 * the top frame is another probe, calls were abandoned (longjmp,
 * exceptions): search a few frames down and count what is skipped. */
static __always_inline void pop(__u64 pid_tgid, __u32 probe_id, __s64 ret)
{
	__u64 now = bpf_ktime_get_ns();
	struct dc_stack *st = get_stack((__u32)pid_tgid, false);
	struct dc_call_frame *f;
	__u32 d;
	int i;

	if (!st || st->depth == 0) {
		count(DC_CNT_UNPAIRED);
		return;
	}
	d = st->depth - 1;
	if (d >= DC_MAX_DEPTH) {
		/* Its entry was counted as lost when it was pushed. */
		st->depth = d;
		return;
	}
	f = &st->frames[d];
	if (f->probe_id != probe_id || f->is_syscall) {
		for (i = 1; i < 8; i++) {
			if (d < (__u32)i)
				break;
			f = &st->frames[(d - i) & (DC_MAX_DEPTH - 1)];
			if (f->probe_id == probe_id && !f->is_syscall) {
				st->depth = d - i;
				count(DC_CNT_UNWOUND);
				emit_call(f, pid_tgid, now, ret, f->level, false);
				return;
			}
		}
		count(DC_CNT_UNPAIRED);
		return;
	}
	st->depth = d;
	emit_call(f, pid_tgid, now, ret, f->level, false);
}


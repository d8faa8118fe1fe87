/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.bpf.h - what all of dc-collect's BPF programs share: the ring
 * buffer and the maps, the drop counters, the answer to "is this thread
 * selected?", the ring's wakeups, and the records' common header and
 * reservation.  Part of collect.bpf.c (one skeleton; see its list).
 */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20); /* resized by user space */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_MAX_SELECTED);
	__type(key, __u32);   /* tgid */
	__type(value, __u32); /* reserved */
} selected SEC(".maps");

/* Processes on the fast path (dc-collect/fastpath.c): where, from the
 * thread pointer, their client library keeps struct dc_client_tls, and
 * which call-state map holds it instead. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_MAX_SELECTED);
	__type(key, __u32);   /* tgid */
	__type(value, struct dc_fast_proc);
} fast_procs SEC(".maps");

/* Threads doing the client library's own work (its handshake with the
 * collector, its first look at its ring): what they do is not the
 * program's, so no program records it (dc_client_quiet, collect.bpf.c).
 * Looked at only while gens.muted says it holds any. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_MAX_MUTED);
	__type(key, __u32);   /* tid */
	__type(value, __u32); /* reserved */
} muted SEC(".maps");

/* Their call-state maps (lib/event.h, struct dc_client_state), one a
 * process, each mapped by its process alone: a process can write only
 * its own threads' state, and is read only for its own threads. */
struct client_state_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, DC_CLIENT_SLOTS + 1);
	/* Sizes, not types: the maps dc-collect makes have no BTF. */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct dc_client_state));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, DC_MAX_CLIENT_MAPS);
	__type(key, __u32);
	__array(values, struct client_state_map);
} client_states SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_MAX_PROBES);
	__type(key, __u32);
	__type(value, struct dc_probe_cfg);
} probe_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_MAX_SYSCALLS);
	__type(key, __u32);   /* syscall number */
	__type(value, __u32); /* probe id + 1; 0: not traced */
} syscall_probe SEC(".maps");

/* Each thread's call stack, made when a selected thread first calls:
 * the slot of its tid here if no other thread holds it (found with a few
 * instructions), else in the thread itself (task-local storage, a helper
 * call at each system call's entry and again at its exit).
 * Slots are freed when their thread exits (stack.bpf.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << DC_STACK_SLOT_BITS);
	__type(key, __u32);
	__type(value, struct dc_stack);
} stack_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct dc_stack);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, DC_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, DC_MAX_PROBES);
	__type(key, __u32);
	__type(value, __u64);
} probe_drops SEC(".maps");

/* Profile mode: cumulative sums per (process, probe); user space takes
 * the difference every interval, so nothing is lost to a reset race. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, DC_MAX_PROFILE);
	__type(key, struct dc_profile_key);
	__type(value, struct dc_profile_value);
} profile SEC(".maps");

/* Scratch space: a record with a string. */
struct scratch {
	/* Room for two strings (rename's paths, fopen's path and mode). */
	__u8 rec[DC_EVENT_FIXED_SIZE + 2 * DC_MAX_STR + 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		*c += 1;
}

static __always_inline void count_drop(__u32 probe_id)
{
	__u64 *c = bpf_map_lookup_elem(&probe_drops, &probe_id);

	if (c)
		*c += 1;
	count(DC_CNT_DROPPED);
}

/* The generations that void cached answers, in one cache line of their
 * own, read by every system call on the host and written rarely (apart
 * from the lines each event writes: sharing CPU 0's line made a
 * bystander's every call miss while a traced thread ran on CPU 0):
 *  - sel moves whenever a process is selected or deselected, or a
 *    thread muted or unmuted
 *    (sel_gen_bump, and user space when it selects a process): the
 *    answers to "is this thread selected?" given before are void;
 *  - fast is moved by user space each time a process joins the fast
 *    path (fast_procs), before the process is told it may record: the
 *    threads' cached "not on the fast path" are void (stack.bpf.h,
 *    client_tls).
 * One line for both: a kernel-layer event of a selected thread reads
 * both, and a program that runs rarely (block I/O's) meets each line it
 * touches cold (perf: a fifth of dc_bio_queue's samples on such loads). */
struct dc_gens gens __attribute__((aligned(64)));

/* Each CPU's line: struct dc_cpu_line (collect.h).  Not static: user
 * space reads whether a CPU's batch holds records (output.c). */
_Static_assert(sizeof(struct dc_cpu_line) == 64, "a CPU's line is a cache line");

struct dc_cpu_line cpu_lines[DC_CPU_LINES] __attribute__((aligned(64)));

static __always_inline struct dc_cpu_line *this_cpu_line(void)
{
	return &cpu_lines[bpf_get_smp_processor_id() & (DC_CPU_LINES - 1)];
}

static __always_inline void sel_gen_bump(void)
{
	__sync_fetch_and_add(&gens.sel, 1);
}

static __always_inline bool is_selected(__u32 tgid)
{
	if (tgid == self_tgid)
		return false;
	if (trace_all)
		return true;
	/* Everything in the cgroup or below it: its ancestor at its level. */
	if (cgroup_id != 0 &&
	    bpf_get_current_ancestor_cgroup_id(cgroup_level) == cgroup_id)
		return true;
	return bpf_map_lookup_elem(&selected, &tgid) != NULL;
}

/* A selected process's thread muted now (the muted map). */
static __always_inline bool is_muted(__u32 tid)
{
	return gens.muted != 0 && bpf_map_lookup_elem(&muted, &tid) != NULL;
}

/* is_selected() for the current thread, through its CPU's answer; no
 * for a muted thread. */
static __always_inline bool current_selected(__u64 pid_tgid)
{
	__u32 tid = (__u32)pid_tgid;
	__u64 *c, tag;
	bool sel;

	/* Cgroup membership can change under a thread: always asked. */
	if (trace_all || cgroup_id != 0)
		return is_selected(pid_tgid >> 32) && !is_muted(tid);
	tag = ((__u64)tid << 32) | ((__u64)(gens.sel & 0x7fffffff) << 1);
	c = &this_cpu_line()->tag[tid & (DC_SEL_WAYS - 1)];
	if ((*c & ~1ULL) == tag)
		return *c & 1;
	sel = is_selected(pid_tgid >> 32) && !is_muted(tid);
	*c = tag | sel;
	return sel;
}

/* Wake the reader only when enough data waits; otherwise it polls on a
 * short timer.  One wakeup per event would cost more than the event, and
 * so would reading the ring's positions (shared with the reader's CPU) at
 * every event: look every 32 records.  And wake it only if it is not
 * reading already (its position moved since the last look) and was not
 * woken by this CPU at the position it is still at: a wakeup is an
 * interrupt the CPU sends itself (in a VM, an exit to the host: perf put
 * 7% of dc_sys_exit there when every look past the mark woke it). */
static __always_inline __u64 rb_flags(void)
{
	struct dc_cpu_line *r = this_cpu_line();
	__u64 cons;

	if (++r->since < 32)
		return BPF_RB_NO_WAKEUP;
	r->since = 0;
	cons = bpf_ringbuf_query(&events, BPF_RB_CONS_POS);
	if (cons != r->seen) {
		r->seen = cons;
		return BPF_RB_NO_WAKEUP;
	}
	if (r->woken == cons + 1 ||
	    bpf_ringbuf_query(&events, BPF_RB_PROD_POS) - cons < wakeup_bytes)
		return BPF_RB_NO_WAKEUP;
	r->woken = cons + 1;
	return BPF_RB_FORCE_WAKEUP;
}

/* Every record's header, all of it written: the ring's memory is not
 * cleared between records.  Its size and nargs stay as they are (set by
 * reserve_event, or after this in a scratch record).  In nine words
 * (struct dc_event, little-endian): field by field, the compiler merged
 * the zeros from reserved0 on (an odd offset) into 27 stores of a byte
 * each, and at the ring's cold lines those were a fifth of dc_sys_exit's
 * perf samples. */
static __always_inline void fill_header(struct dc_event *ev, __u8 type,
					__u32 probe_id, __u64 pid_tgid,
					__u64 ts, __u64 dur, __s64 ret,
					__u16 depth)
{
	__u64 *w = (__u64 *)ev;

	w[0] = ev->size | ((__u64)type << 16) | ((__u64)probe_id << 32);
	w[1] = (pid_tgid >> 32) | (pid_tgid << 32);   /* pid, then tid */
	w[2] = ts;
	w[3] = dur;
	w[4] = (__u64)ret;
	w[5] = depth | ((__u64)ev->nargs << 32);
	w[6] = 0;                                      /* file_id, error */
	w[7] = 0;                                      /* seq */
	w[8] = 0;                                      /* parent */
}

/* A record of n argument slots, reserved in the ring at exactly its size
 * (a constant: callers pick the copy for their count), its size and
 * count set; NULL, with a drop counted against probe_id, when the ring
 * is full.  Every byte less is less memory the program writes and the
 * reader reads (bpf_stats: about 1 ns a byte on a write(2)). */
static __always_inline struct dc_event *reserve_event(__u32 probe_id,
						      const int n)
{
	struct dc_event *ev;

	ev = bpf_ringbuf_reserve(&events, DC_EVENT_HDR_SIZE + 8 * n, 0);
	if (!ev) {
		count_drop(probe_id);
		return NULL;
	}
	ev->nargs = n;
	ev->size = DC_EVENT_HDR_SIZE + 8 * n;
	return ev;
}

/* The n argument slots after a record's header. */
static __always_inline void put_args(struct dc_event *ev, const __u64 *a,
				     const int n)
{
	__u64 *args = (__u64 *)((__u8 *)ev + DC_EVENT_HDR_SIZE);
	int i;

	for (i = 0; i < n; i++)
		args[i] = a[i];
}

/* A record built in scratch space (its size known only once built),
 * copied into the ring; a full ring counts a drop against probe_id. */
static __always_inline void output_event(void *rec, __u64 size,
					 __u32 probe_id, __u64 flags)
{
	if (bpf_ringbuf_output(&events, rec, size, flags) != 0)
		count_drop(probe_id);
}

/* ---- per-CPU batches ----
 *
 * Putting a kernel-layer record in the ring costs about as much as
 * building it: a reservation and a commit, each an atomic operation on
 * the ring's shared positions under its lock.  Where user space can make
 * a chosen CPU send what it holds (a test run of dc_batch_flush on that
 * CPU, kfeatures.c), each CPU gathers those records in a batch of its
 * own, sent in one bpf_ringbuf_output when full and, at every drain, by
 * user space (output.c), which unpacks it and orders its records by time
 * with the rest (merge.c).  Session 17: 84 ns less per readahead and page
 * on reads of a sparse file, about a fifth of what the layer added.
 *
 * Only programs that run with preemption off add to a batch (the
 * tracepoints.bpf.h and block.bpf.h ones: not the faultable system-call
 * tracepoints, not uprobes): such a program can be interrupted, never
 * preempted, so `busy` needs no atomic operation.  A program (or the
 * flush) that interrupts one adding a record finds the batch busy and
 * sends its record straight to the ring (the flush returns 1 and user
 * space tries again).  struct cpu_batch is in collect.h: user space
 * reads an offline CPU's at the end (output.c).
 *
 * System calls' records go into the batch too where BPF has a
 * compare-and-swap (5.12), from their own exit program
 * (dc_sys_exit_batch): that program may be preempted (the system-call
 * tracepoints may fault from 6.14 on; it stays on its CPU), so it takes
 * the batch with a compare-and-swap, and two such programs on one CPU
 * never both hold it; the others only ever interrupt it.  Session 20:
 * 40 ns less a system call, a record's reservation and commit.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_batch);
} cpu_batches SEC(".maps");

#define dc_barrier() asm volatile("" ::: "memory")

/* This CPU's batch, marked busy; NULL if a program this one interrupted
 * is adding to it. */
static __always_inline struct cpu_batch *batch_take(void)
{
	__u32 zero = 0;
	struct cpu_batch *b = bpf_map_lookup_elem(&cpu_batches, &zero);

	if (!b || b->busy)
		return NULL;
	b->busy = 1;
	dc_barrier(); /* an interruption from here on finds it busy */
	return b;
}

/* The same for a program that may be preempted (dc_sys_exit_batch's
 * only: the instruction fails to load before 5.12, wherever it is). */
static __always_inline struct cpu_batch *batch_take_preemptible(void)
{
	__u32 zero = 0;
	struct cpu_batch *b = bpf_map_lookup_elem(&cpu_batches, &zero);

	if (!b || __sync_val_compare_and_swap(&b->busy, 0, 1) != 0)
		return NULL;
	return b;
}

static __always_inline void batch_give(struct cpu_batch *b)
{
	dc_barrier();
	b->busy = 0;
}

/* Send the taken batch b as one ring record and empty it; a full ring
 * loses its records, each counted against its probe. */
static __always_inline void batch_send(struct cpu_batch *b, __u64 flags)
{
	__u32 len = b->len, n = b->n, i;

	/* Two tests, the barrier between them: joined into one on a copy
	 * of len, the verifier would not know the one passed in bounds. */
	if (len <= DC_BATCH_MARK)
		goto empty;
	barrier_var(len);
	if (len <= DC_BATCH_BYTES &&
	    bpf_ringbuf_output(&events, b->data, len, flags) != 0) {
		for (i = 0; i < DC_BATCH_RECS && i < n; i++)
			count_drop(b->probe[i]);
	}
empty:
	b->len = 0;
	b->n = 0;
	this_cpu_line()->batched = 0;
}

/* Room for a record of n argument slots in the taken batch b (sent
 * first if the record would not fit), its size and count set, the loss
 * of it counted against probe_id if the send fails. */
static __always_inline struct dc_event *batch_room(struct cpu_batch *b,
						   __u32 probe_id, const int n)
{
	const __u32 size = DC_EVENT_HDR_SIZE + 8 * n;
	__u32 len = b->len, k = b->n;
	struct dc_event *ev;

	if (len + size > DC_BATCH_BYTES || k >= DC_BATCH_RECS) {
		batch_send(b, rb_flags());
		len = 0;
		k = 0;
	}
	if (len == 0) {
		*(__u64 *)b->data = DC_BATCH_MARK | ((__u64)DC_EV_BATCH << 16);
		len = DC_BATCH_MARK;
		this_cpu_line()->batched = 1;
	}
	b->probe[k & (DC_BATCH_RECS - 1)] = probe_id;
	b->n = k + 1;
	b->len = len + size;
	ev = (struct dc_event *)(b->data + (len & (DC_BATCH_BYTES - 1)));
	ev->nargs = n;
	ev->size = size;
	return ev;
}

/* Profile mode: add one call to its process's and probe's sums. */
static __always_inline void profile_call(__u32 pid, __u32 probe_id, __u64 dur,
					 __s64 ret, __u8 ret_kind, __s64 bytes)
{
	struct dc_profile_key key = { .pid = pid, .probe_id = probe_id };
	struct dc_profile_value *v, zero = {};

	v = bpf_map_lookup_elem(&profile, &key);
	if (!v) {
		bpf_map_update_elem(&profile, &key, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&profile, &key);
		if (!v) {
			count_drop(probe_id); /* the table is full */
			return;
		}
	}
	v->calls += 1;
	v->dur_ns += dur;
	if (bytes > 0)
		v->bytes += bytes;
	if (dc_call_failed(ret_kind, ret))
		v->errors += 1;
}


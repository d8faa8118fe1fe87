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
const volatile bool follow_ra = false;   /* readahead traced: ra_pending used */
const volatile bool fast_path = false;   /* clients record user-level calls */

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
 * thread pointer, their client library keeps struct dc_client_tls. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_MAX_SELECTED);
	__type(key, __u32);   /* tgid */
	__type(value, __s64); /* TLS offset */
} fast_procs SEC(".maps");

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

/* Each thread's call stack, in the thread itself (task-local storage):
 * found without hashing, made when a selected thread first calls, freed
 * with the thread. */
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

/* The answers to "is this thread selected?" last given on each CPU, so a
 * thread making system calls in a row (selected or not: the syscall
 * tracepoints fire for every thread on the host) asks the hash map once:
 * tid << 32 | generation << 1 | selected, one 64-bit word so a program
 * preempted on the same CPU never reads half an answer.  The generation
 * moves whenever a process is selected or deselected (sel_gen_bump, and
 * user space when it selects a process), which voids the answers given
 * before. */
__u32 sel_gen;

/* A few answers per CPU, by tid: a traced thread and a bystander taking
 * turns on one CPU keep their answers. */
#define DC_SEL_WAYS 4

struct sel_answers {
	__u64 tag[DC_SEL_WAYS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sel_answers);
} sel_cache SEC(".maps");

static __always_inline void sel_gen_bump(void)
{
	__sync_fetch_and_add(&sel_gen, 1);
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

/* is_selected() for the current thread, through the per-CPU answer. */
static __always_inline bool current_selected(__u64 pid_tgid)
{
	__u32 zero = 0, tid = (__u32)pid_tgid;
	struct sel_answers *a;
	__u64 *c = NULL, tag;
	bool sel;

	/* Cgroup membership can change under a thread: always asked. */
	if (trace_all || cgroup_id != 0)
		return is_selected(pid_tgid >> 32);
	tag = ((__u64)tid << 32) | ((__u64)(sel_gen & 0x7fffffff) << 1);
	a = bpf_map_lookup_elem(&sel_cache, &zero);
	if (a) {
		c = &a->tag[tid & (DC_SEL_WAYS - 1)];
		if ((*c & ~1ULL) == tag)
			return *c & 1;
	}
	sel = is_selected(pid_tgid >> 32);
	if (c)
		*c = tag | sel;
	return sel;
}

/* Records since the last look at the ring's fill level, per CPU (racy
 * increments only make a look come a little early or late), each CPU's
 * in a cache line of its own: CPUs emitting at once do not pass one
 * line back and forth. */
#define RB_STRIDE 16 /* __u32s in 64 bytes */
__u32 rb_since_query[256 * RB_STRIDE];

/* Wake the reader only when enough data waits; otherwise it polls on a
 * short timer.  One wakeup per event would cost more than the event, and
 * so would reading the ring's positions (shared with the reader's CPU) at
 * every event: look every 32 records. */
static __always_inline __u64 rb_flags(void)
{
	__u32 slot = (bpf_get_smp_processor_id() & 255) * RB_STRIDE;

	if (++rb_since_query[slot] < 32)
		return BPF_RB_NO_WAKEUP;
	rb_since_query[slot] = 0;
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* Where the client library keeps this thread's struct dc_client_tls (0
 * off the fast path): the process's offset from the thread pointer. */
static __always_inline __u64 client_tls_addr(void)
{
	struct task_struct *task;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__s64 *off;
	__u64 tp;

	off = bpf_map_lookup_elem(&fast_procs, &tgid);
	if (!off)
		return 0;
	task = (struct task_struct *)bpf_get_current_task();
#if defined(__TARGET_ARCH_x86)
	tp = BPF_CORE_READ(task, thread.fsbase);
#elif defined(__TARGET_ARCH_arm64)
	tp = BPF_CORE_READ(task, thread.uw.tp_value);
#else
	return 0;
#endif
	return tp + *off;
}

/* The client's struct dc_client_tls of the current thread, read into
 * *tls: its address, or 0 off the fast path.  With the thread's stack
 * (st), the address is looked up once and kept there: a thread's thread
 * pointer and its process's offset never move (exec, which could, clears
 * it). */
static __always_inline __u64 client_tls(struct dc_stack *st,
					struct dc_client_tls *tls)
{
	__u64 addr;

	if (!fast_path)
		return 0;
	addr = st ? st->client_tls : 0;
	if (addr == 0) {
		addr = client_tls_addr();
		if (addr == 0)
			return 0;
		if (st)
			st->client_tls = addr;
	}
	if (bpf_probe_read_user(tls, sizeof(*tls), (void *)addr) != 0)
		return 0;
	return addr;
}

/* The current thread's stack (tid is the current thread's); with create,
 * a zeroed one if it has none. */
static __always_inline struct dc_stack *get_stack(__u32 tid, bool create)
{
	return bpf_task_storage_get(&stacks, bpf_get_current_task_btf(), NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* The innermost call open on the current thread, of the kernel's frames
 * and the client library's calls together: its seq in *parent (0: none),
 * and the level of a record beginning inside it (the calls open).  A
 * kernel frame on top (a system call, a kernel function) is innermost: no
 * user code runs inside one.  A uprobe frame on top is, unless the client
 * opened calls inside it: its TLS then counts more open calls than when
 * the frame began (the frame keeps that count), and names the innermost.
 * With no frame open, the client's innermost call is.  The TLS is the
 * client's word, read from its memory: bounded, and taken only when it
 * names a call of the client's.  *cdepth: the client's count of open
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

static __always_inline void nest_mark(const struct dc_call_frame *f);

/* Open a frame: a system call, a kernel function, or (user) a uprobe
 * call. */
static __always_inline void push_frame(__u32 tid, __u32 probe_id,
				       __u32 is_syscall, bool user,
				       const __u64 *args)
{
	struct dc_stack *st = get_stack(tid, true);
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

static __always_inline void push(__u32 tid, __u32 probe_id, __u32 is_syscall,
				 const __u64 *args)
{
	push_frame(tid, probe_id, is_syscall, false, args);
}

static __always_inline void fill_header(struct dc_event *ev, __u8 type,
					__u32 probe_id, __u64 pid_tgid,
					__u64 ts, __u64 dur, __s64 ret,
					__u16 depth)
{
	ev->type = type;
	ev->flags = 0;
	ev->probe_id = probe_id;
	ev->pid = pid_tgid >> 32;
	ev->tid = (__u32)pid_tgid;
	ev->ts = ts;
	ev->dur = dur;
	ev->ret = ret;
	ev->depth = depth;
	ev->str_len = 0;
	ev->reserved0 = 0;
	ev->reserved1 = 0;
	ev->file_id = 0;
	ev->error = 0;
	ev->seq = 0;
	ev->parent = 0;
}

/* A uprobe call of a process on the fast path has begun: dc-collect
 * nests the client's records that fall inside it under it (nest.c). */
static __always_inline void nest_mark(const struct dc_call_frame *f)
{
	struct dc_event *ev;

	ev = bpf_ringbuf_reserve(&events, DC_EVENT_HDR_SIZE, 0);
	if (!ev) {
		count_drop(f->probe_id);
		return;
	}
	fill_header(ev, DC_EV_NEST_ENTER, f->probe_id, bpf_get_current_pid_tgid(),
		    f->ts, 0, f->cdepth, (__u16)f->level);
	ev->seq = f->seq;
	ev->parent = f->parent;
	ev->nargs = 0;
	ev->size = DC_EVENT_HDR_SIZE;
	bpf_ringbuf_submit(ev, rb_flags());
}

/* A syscall returns -errno on failure (the last 4095 values). */
static __always_inline __s32 syscall_error(const struct dc_call_frame *f,
					   __s64 ret)
{
	return f->is_syscall && ret < 0 && ret >= -4095 ? (__s32)-ret : 0;
}

/* Emit a completed call.  A probe with a string argument goes through the
 * per-CPU scratch record (its length varies); the rest reserve a fixed
 * record in place. */

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

/* ---- arguments read through at entry or return (DC_DERIVE_*) ---- */

struct dc_uiovec {
	__u64 base;
	__u64 len;
};

struct iov_sum {
	__u64 iov;
	__s64 total;
};

static long iov_add(__u64 i, void *data)
{
	struct iov_sum *c = data;
	struct dc_uiovec v;

	if (bpf_probe_read_user(&v, sizeof(v),
				(const void *)(c->iov + i * sizeof(v))) != 0) {
		c->total = -1;
		return 1;
	}
	c->total += v.len;
	return 0;
}

/* Total of iov_len over cnt entries (IOV_MAX at most); -1 unreadable. */
static __noinline __s64 iov_total(__u64 iov, __s64 cnt)
{
	struct iov_sum c = { .iov = iov, .total = 0 };

	if (cnt < 0 || cnt > 1024)
		return -1;
	bpf_loop((__u32)cnt, iov_add, &c, 0);
	return c.total;
}

/* strlen of a user string, up to 16 pages of it; -1 unreadable or
 * longer. */
static __noinline __s64 user_strlen(__u64 ptr)
{
	struct scratch *s;
	__u32 zero = 0;
	__s64 total = 0;
	long n;
	int i;

	s = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!s || ptr == 0)
		return -1;
	for (i = 0; i < 16; i++) {
		n = bpf_probe_read_user_str(s->rec, DC_MAX_STR,
					    (const void *)(ptr + total));
		if (n < 1)
			return -1;
		if (n < DC_MAX_STR)
			return total + n - 1;
		total += DC_MAX_STR - 1;
	}
	return -1;
}

enum { MPI_UNKNOWN, MPI_OMPI, MPI_MPICH };

/* MPI_Type_size of a datatype handle, or -1.  MPICH encodes a built-in
 * type's size in its handle (kind "builtin", object "datatype"); an
 * OpenMPI handle points at its opal_datatype_t. */
static __noinline __s64 mpi_type_size(__u64 h, int *flavor)
{
	__u64 size;

	if (h < (1ULL << 32)) {
		if ((h >> 26) == 0x13) {
			*flavor = MPI_MPICH;
			return (h >> 8) & 0xff;
		}
		if ((h >> 30) >= 2)
			*flavor = MPI_MPICH;
		return -1;
	}
	*flavor = MPI_OMPI;
	if (bpf_probe_read_user(&size, sizeof(size),
				(const void *)(h + DC_OMPI_DT_SIZE_OFF)) != 0 ||
	    size > (1ULL << 40))
		return -1;
	return (__s64)size;
}

/* The byte count an MPI_Status reports, or -1. */
static __noinline __s64 mpi_status_bytes(__u64 st, int flavor)
{
	__u64 ucount;
	__s32 mpich[2];

	if (st < 4096) /* MPI_STATUS_IGNORE: NULL (OpenMPI), 1 (MPICH) */
		return -1;
	if (flavor == MPI_OMPI) {
		if (bpf_probe_read_user(&ucount, sizeof(ucount),
					(const void *)(st + DC_OMPI_STATUS_UCOUNT_OFF)))
			return -1;
		return (__s64)ucount;
	}
	if (flavor == MPI_MPICH) {
		/* count_lo, then count_hi_and_cancelled (cancel in bit 0). */
		if (bpf_probe_read_user(mpich, sizeof(mpich), (const void *)st))
			return -1;
		return (__s64)((__u64)(__u32)mpich[0] |
			       ((__u64)((__u32)mpich[1] >> 1) << 32));
	}
	return -1;
}

static __noinline void derive_entry(const struct dc_probe_cfg *cfg, __u64 *args)
{
	__u64 v;
	__s32 fd;
	int i;

	for (i = 0; i < DC_MAX_ARGS; i++) {
		switch (cfg->arg_kinds[i]) {
		case DC_ARG_HANDLE_IN:
			if (args[i] == 0 ||
			    bpf_probe_read_user(&v, sizeof(v), (const void *)args[i]))
				v = 0;
			args[i] = v;
			break;
		case DC_ARG_FILE:
			if (args[i] == 0 ||
			    bpf_probe_read_user(&fd, sizeof(fd),
						(const void *)(args[i] + DC_GLIBC_FILENO_OFF)))
				fd = -1;
			args[DC_MAX_ARGS - 1] = (__u64)(__s64)fd;
			break;
		}
	}
}

/* Rewrite the frame's slots that are read at return; returns flags. */
static __noinline __u8 derive_exit(const struct dc_probe_cfg *cfg,
				   struct dc_call_frame *f, __s64 ret)
{
	int flavor = MPI_UNKNOWN;
	__u8 flags = 0;
	__s64 n;
	__u64 v;
	int i;

	for (i = 0; i < DC_MAX_ARGS; i++) {
		switch (cfg->arg_kinds[i]) {
		case DC_ARG_IOV:
			f->args[i] = (__u64)iov_total(f->args[i],
				i + 1 < DC_MAX_ARGS ? (__s32)f->args[(i + 1) & 7] : -1);
			break;
		case DC_ARG_STRLEN:
			f->args[i] = (__u64)user_strlen(f->args[i]);
			break;
		case DC_ARG_STROUT:
			n = dc_call_failed(cfg->ret_kind, ret) ?
				0 : user_strlen(f->args[i]);
			f->args[i] = (__u64)(n < 0 ? 0 : n);
			break;
		case DC_ARG_DATATYPE:
			n = mpi_type_size(f->args[i], &flavor);
			if (n >= 0) {
				f->args[i] = (__u64)n;
				flags |= DC_EVF_DTSIZE;
			}
			break;
		case DC_ARG_MPISTATUS:
			f->args[i] = (__u64)(ret == 0 ?
				mpi_status_bytes(f->args[i], flavor) : -1);
			break;
		case DC_ARG_HANDLE_OUT:
			if (f->args[i] == 0 ||
			    bpf_probe_read_user(&v, sizeof(v), (const void *)f->args[i]))
				v = 0;
			f->args[i] = v;
			break;
		}
	}
	return flags;
}

/* A completed call without a string, in a ring record of exactly its
 * size: the ring's reservation must be a constant, so emit_call picks
 * the copy of this for its argument count (n).  Every byte less is less
 * memory the program writes and the reader reads (bpf_stats: about 1 ns
 * a byte on a write(2)). */
static __always_inline void put_call(const struct dc_call_frame *f,
				     __u64 pid_tgid, __u64 now, __s64 ret,
				     __u32 depth, __u8 flags, const int n)
{
	struct dc_event *ev;
	__u64 *args;
	int i;

	ev = bpf_ringbuf_reserve(&events, DC_EVENT_HDR_SIZE + 8 * n, 0);
	if (!ev) {
		count_drop(f->probe_id);
		return;
	}
	fill_header(ev, DC_EV_CALL, f->probe_id, pid_tgid, f->ts, now - f->ts,
		    ret, depth);
	ev->seq = f->seq;
	ev->parent = f->parent;
	ev->nargs = n;
	ev->size = DC_EVENT_HDR_SIZE + 8 * n;
	ev->flags = flags;
	ev->error = syscall_error(f, ret);
	args = (__u64 *)((__u8 *)ev + DC_EVENT_HDR_SIZE);
	for (i = 0; i < n; i++)
		args[i] = f->args[i];
	bpf_ringbuf_submit(ev, rb_flags());
}

static __always_inline void emit_call(struct dc_call_frame *f, __u64 now, __s64 ret,
				      __u32 depth)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 probe_id = f->probe_id;
	struct dc_probe_cfg *cfg = bpf_map_lookup_elem(&probe_cfg, &probe_id);
	struct dc_event *ev;
	__u8 nargs, str_arg, dflags = 0;
	__u64 *args;
	int i;

	if (!cfg)
		return;
	/* A C function returning int leaves the upper half of the return
	 * register undefined: -1 must read as -1, not 4294967295. */
	if (!f->is_syscall && (cfg->ret_kind == DC_RET_FD ||
			       cfg->ret_kind == DC_RET_STATUS ||
			       cfg->ret_kind == DC_RET_INT ||
			       cfg->ret_kind == DC_RET_ALL))
		ret = (__s32)ret;
	if (!f->is_syscall && cfg->ret_kind == DC_RET_CODE)
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
	nargs = cfg->nargs;
	if (nargs > DC_MAX_ARGS)
		nargs = DC_MAX_ARGS;
	str_arg = cfg->str_arg;

	if (str_arg < DC_MAX_ARGS) {
		struct scratch *s;
		__u32 zero = 0;
		long len;
		__u64 size;

		s = bpf_map_lookup_elem(&scratch_map, &zero);
		if (!s)
			return;
		ev = (struct dc_event *)s->rec;
		fill_header(ev, DC_EV_CALL, probe_id, pid_tgid, f->ts,
			    now - f->ts, ret, depth);
		ev->seq = f->seq;
		ev->parent = f->parent;
		ev->nargs = DC_MAX_ARGS; /* fixed, so the string's offset is */
		args = (__u64 *)(s->rec + DC_EVENT_HDR_SIZE);
		for (i = 0; i < DC_MAX_ARGS; i++)
			args[i] = f->args[i];
		len = bpf_probe_read_user_str(s->rec + DC_EVENT_FIXED_SIZE,
					      DC_MAX_STR,
					      (const void *)f->args[str_arg & 7]);
		if (len < 1) {
			len = 1;
			s->rec[DC_EVENT_FIXED_SIZE] = 0;
		}
		if (len >= DC_MAX_STR)
			ev->flags |= DC_EVF_STR_TRUNC;
		if (len > DC_MAX_STR)
			len = DC_MAX_STR;
		/* A second string follows the first's NUL. */
		if (cfg->str_arg2 < DC_MAX_ARGS) {
			long len2 = bpf_probe_read_user_str(
				s->rec + DC_EVENT_FIXED_SIZE + len, DC_MAX_STR,
				(const void *)f->args[cfg->str_arg2 & 7]);

			if (len2 < 1)
				len2 = 1; /* a failed read leaves zeros */
			if (len2 >= DC_MAX_STR)
				ev->flags |= DC_EVF_STR_TRUNC;
			if (len2 > DC_MAX_STR)
				len2 = DC_MAX_STR;
			len += len2;
		}
		ev->flags |= dflags;
		ev->str_len = (__u16)(len - 1);
		if (dc_call_failed(cfg->ret_kind, ret))
			ev->flags |= DC_EVF_FAILED;
		ev->error = syscall_error(f, ret);
		size = (DC_EVENT_FIXED_SIZE + len + 7) & ~7ULL;
		if (size > sizeof(s->rec))
			size = sizeof(s->rec);
		ev->size = (__u16)size;
		if (bpf_ringbuf_output(&events, s->rec, size, rb_flags()) != 0) {
			count_drop(probe_id);
			return;
		}
		return;
	}

	if (dc_call_failed(cfg->ret_kind, ret))
		dflags |= DC_EVF_FAILED;
	switch (nargs) {
	case 0: put_call(f, pid_tgid, now, ret, depth, dflags, 0); break;
	case 1: put_call(f, pid_tgid, now, ret, depth, dflags, 1); break;
	case 2: put_call(f, pid_tgid, now, ret, depth, dflags, 2); break;
	case 3: put_call(f, pid_tgid, now, ret, depth, dflags, 3); break;
	case 4: put_call(f, pid_tgid, now, ret, depth, dflags, 4); break;
	case 5: put_call(f, pid_tgid, now, ret, depth, dflags, 5); break;
	default: put_call(f, pid_tgid, now, ret, depth, dflags, 6); break;
	}
}

/* Pop the frame matching probe_id and emit it.  If the top frame is
 * another probe, calls were abandoned (longjmp, exceptions): search a few
 * frames down and count what is skipped. */
static __always_inline void pop(__u32 tid, __u32 probe_id, bool syscall,
				__s64 ret)
{
	/* A syscall exit is timed once its frame is found: most exits are
	 * of untraced calls. */
	__u64 now = syscall ? 0 : bpf_ktime_get_ns();
	struct dc_stack *st = get_stack(tid, false);
	struct dc_call_frame *f;
	__u32 d;
	int i;

	if (!st || st->depth == 0) {
		if (!syscall)
			count(DC_CNT_UNPAIRED);
		return;
	}
	d = st->depth - 1;
	if (d >= DC_MAX_DEPTH) {
		/* Its entry was counted as lost when it was pushed; syscalls
		 * pushed nothing at this depth. */
		if (!syscall)
			st->depth = d;
		return;
	}
	f = &st->frames[d];
	if (syscall) {
		/* Untraced syscalls never pushed a frame. */
		if (!f->is_syscall)
			return;
		st->depth = d;
		emit_call(f, bpf_ktime_get_ns(), ret, f->level);
		return;
	}
	if (f->probe_id != probe_id || f->is_syscall) {
		for (i = 1; i < 8; i++) {
			if (d < (__u32)i)
				break;
			f = &st->frames[(d - i) & (DC_MAX_DEPTH - 1)];
			if (f->probe_id == probe_id && !f->is_syscall) {
				st->depth = d - i;
				count(DC_CNT_UNWOUND);
				emit_call(f, now, ret, f->level);
				return;
			}
		}
		count(DC_CNT_UNPAIRED);
		return;
	}
	st->depth = d;
	emit_call(f, now, ret, f->level);
}

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
	if (cfg && (cfg->derive & DC_DERIVE_ENTRY))
		derive_entry(cfg, args);
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
	pop((__u32)pid_tgid, (__u32)bpf_get_attach_cookie(ctx), false,
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

/* The same, loaded for the kernel's multi-uprobe link (6.6 and later):
 * one link per library attaches and detaches all its functions at once.
 * User space sets the expected attach type before loading. */
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

/* The probe id + 1 of a system call to trace now, or 0. */
static __always_inline __u32 sys_enter_probe(__u64 pid_tgid, long id)
{
	__u32 nr = (__u32)id, *pid1;

	if (nr >= DC_MAX_SYSCALLS)
		return 0;
	pid1 = bpf_map_lookup_elem(&syscall_probe, &nr);
	if (!pid1 || *pid1 == 0)
		return 0;
	if (!current_selected(pid_tgid))
		return 0;
	return *pid1;
}

/* Two programs for system call entries: where the kernel has BTF-typed
 * raw tracepoints (tp_btf, kfeatures.c), the saved registers are read in
 * place; elsewhere through a helper.  User space loads one of them. */
SEC("tp_btf/sys_enter")
int BPF_PROG(dc_sys_enter_btf, struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid1 = sys_enter_probe(pid_tgid, id);
	__u64 args[DC_MAX_ARGS];

	if (pid1 == 0)
		return 0;
	args[0] = PT_REGS_PARM1_SYSCALL(regs);
	args[1] = PT_REGS_PARM2_SYSCALL(regs);
	args[2] = PT_REGS_PARM3_SYSCALL(regs);
	args[3] = PT_REGS_PARM4_SYSCALL(regs);
	args[4] = PT_REGS_PARM5_SYSCALL(regs);
	args[5] = param6(regs);
	push((__u32)pid_tgid, pid1 - 1, 1, args);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(dc_sys_enter, struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid1 = sys_enter_probe(pid_tgid, id);
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
	push((__u32)pid_tgid, pid1 - 1, 1, args);
	return 0;
}

/* A readahead still counting its pages is done (kernel layers, below). */
static __always_inline void ra_flush(__u32 tid);

/* Only selected threads have a stack: the per-CPU answer keeps the others
 * from looking for one. */
SEC("raw_tp/sys_exit")
int BPF_PROG(dc_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (!current_selected(pid_tgid))
		return 0;
	if (follow_ra)
		ra_flush((__u32)pid_tgid);
	pop((__u32)pid_tgid, 0, true, ret);
	return 0;
}

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
	if (bpf_ringbuf_output(&events, s->rec, size, BPF_RB_FORCE_WAKEUP) != 0) {
		count_drop(probe_id);
		return;
	}
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
		if (st)
			st->client_tls = 0;
	}
	emit_proc(DC_EV_EXEC, DC_IPROBE_EXEC, tgid, BPF_CORE_READ(p, pid),
		  old_pid, 0, BPF_CORE_READ(bprm, filename));
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(dc_exit, struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	__u32 tid = BPF_CORE_READ(p, pid);
	int live;

	/* sched_process_exit runs in the exiting thread. */
	bpf_task_storage_delete(&stacks, bpf_get_current_task_btf());
	if (follow_ra)
		ra_flush(tid);
	if (!is_selected(tgid))
		return 0;
	sel_gen_bump(); /* its tid may be reused */
	/* The process is gone when its last thread exits. */
	live = BPF_CORE_READ(p, signal, live.counter);
	if (live != 0)
		return 0;
	emit_proc(DC_EV_EXIT_PROC, DC_IPROBE_EXIT, tgid, tid, 0,
		  BPF_CORE_READ(p, exit_code) >> 8, NULL);
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

/* ---- kernel layers: tracepoints ----
 *
 * Classic tracepoints (their trace_event_raw_* records, read with CO-RE)
 * rather than raw ones: their fields have stayed stable across kernels
 * where the raw argument lists have not.  Fields are read with plain
 * loads from the record (ctx->field: CO-RE relocates the offset and the
 * size), not BPF_CORE_READ's helper call, which cost more than the rest
 * of an unselected task's visit.  Events are attributed to the
 * task running when the tracepoint fires and kept only for selected
 * processes; their depth is that thread's current call depth, so they
 * nest under the call that caused them.
 */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_TP_COUNT);
	__type(key, __u32);
	__type(value, __u32); /* probe id + 1; 0: not traced */
} tp_probe SEC(".maps");

/* Block I/O from queueing to completion, by device and first sector.
 * Every bio queued on the host is remembered, selected or not, so that a
 * completion found nowhere is known to be unattributed (not someone
 * else's) and is still emitted.  Merged bios leave the map at the merge;
 * LRU in case a path is missed (bio-based devices never complete a
 * request), with per-CPU lists: no lock shared by every CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_COMMON_LRU);
	__type(key, struct dc_block_key);
	__type(value, struct dc_block_start);
} block_start SEC(".maps");

/* A kernel-layer record being built: emit_kernel() writes it.  Kept
 * in a struct (on the BPF stack) rather than passed as fifteen scalars. */
struct kevent {
	__u64 pid_tgid;
	__u64 ts, dur;
	__s64 ret;
	__u64 parent;            /* seq of the innermost open call, 0: none */
	__u32 probe_id;
	__u32 depth;
	__u8 type, flags, nargs;
	__u64 a[DC_MAX_ARGS];
};

/* Where the current task is in its call tree: the depth and seq of its
 * innermost open call.  Past the stored frames the parent is unknown
 * (DC_EVF_ORPHAN), not guessed. */
static __always_inline void set_place(struct kevent *k, __u32 tid)
{
	struct dc_stack *st = get_stack(tid, false);
	__u32 cdepth;
	bool client;

	k->parent = 0;
	if (st && st->depth > DC_MAX_DEPTH) {
		k->depth = st->depth;
		k->flags |= DC_EVF_ORPHAN;
		return;
	}
	k->depth = innermost(st, &k->parent, &cdepth, &client);
}

static __always_inline int tp_probe_id(__u32 tp, __u32 *probe_id)
{
	__u32 *v = bpf_map_lookup_elem(&tp_probe, &tp);

	if (!v || *v == 0)
		return -1;
	*probe_id = *v - 1;
	return 0;
}

/* A kernel-layer record of n argument slots, reserved at its size (see
 * put_call). */
static __always_inline void put_kernel(const struct kevent *k, const int n)
{
	struct dc_event *ev;
	__u64 *args;
	int i;

	ev = bpf_ringbuf_reserve(&events, DC_EVENT_HDR_SIZE + 8 * n, 0);
	if (!ev) {
		count_drop(k->probe_id);
		return;
	}
	fill_header(ev, k->type, k->probe_id, k->pid_tgid, k->ts, k->dur,
		    k->ret, (__u16)k->depth);
	ev->flags = k->flags;
	ev->parent = k->parent;
	ev->nargs = n;
	ev->size = DC_EVENT_HDR_SIZE + 8 * n;
	args = (__u64 *)((__u8 *)ev + DC_EVENT_HDR_SIZE);
	for (i = 0; i < n; i++)
		args[i] = k->a[i];
	bpf_ringbuf_submit(ev, rb_flags());
}

/* Emit a kernel-layer record. */
static __always_inline void emit_kernel(const struct kevent *k)
{
	if (profile_mode) {
		profile_call(k->pid_tgid >> 32, k->probe_id, k->dur, k->ret,
			     DC_RET_NONE, 0);
		return;
	}
	switch (k->nargs) {
	case 0: put_kernel(k, 0); break;
	case 1: put_kernel(k, 1); break;
	case 2: put_kernel(k, 2); break;
	case 3: put_kernel(k, 3); break;
	case 4: put_kernel(k, 4); break;
	case 5: put_kernel(k, 5); break;
	default: put_kernel(k, 6); break;
	}
}

/* An instant by the current task, if it is selected and tp is traced:
 * k holds its arguments and return value. */
static __always_inline void emit_instant_k(__u32 tp, struct kevent *k)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (!current_selected(pid_tgid) || tp_probe_id(tp, &k->probe_id))
		return;
	k->pid_tgid = pid_tgid;
	k->type = DC_EV_INSTANT;
	k->ts = bpf_ktime_get_ns();
	set_place(k, (__u32)pid_tgid);
	emit_kernel(k);
}

static __always_inline void emit_instant(__u32 tp, __u8 nargs, __u64 a0,
					 __u64 a1, __u64 a2, __u64 a3,
					 __u64 a4, __u64 a5)
{
	struct kevent k = { .nargs = nargs,
			    .a = { a0, a1, a2, a3, a4, a5 } };

	emit_instant_k(tp, &k);
}

/* A request's "rwbs" (up to 8 characters, NUL-padded) packed into one
 * word, read byte by byte from the tracepoint's record: loads, not a
 * helper call (its offset is 4 bytes past an 8-byte boundary). */
#define ctx_op(ctx) ((__u64)(__u8)(ctx)->rwbs[0] |			\
	(__u64)(__u8)(ctx)->rwbs[1] << 8 |				\
	(__u64)(__u8)(ctx)->rwbs[2] << 16 |				\
	(__u64)(__u8)(ctx)->rwbs[3] << 24 |				\
	(__u64)(__u8)(ctx)->rwbs[4] << 32 |				\
	(__u64)(__u8)(ctx)->rwbs[5] << 40 |				\
	(__u64)(__u8)(ctx)->rwbs[6] << 48 |				\
	(__u64)(__u8)(ctx)->rwbs[7] << 56)

/* Is the call numbered seq still open on the current thread?  Work
 * emitted late tells dc-aggregate whether its parent's record is still to
 * come or already went by.  Frames hold increasing numbers: look down
 * from the top until one is older. */
static __always_inline bool call_open(__u64 seq)
{
	struct dc_stack *st = get_stack(0, false);
	__u32 d, i;

	if (!st)
		return false;
	d = st->depth;
	if (d > DC_MAX_DEPTH)
		d = DC_MAX_DEPTH;
	for (i = 0; i < DC_MAX_DEPTH; i++) {
		__u64 s;

		if (i >= d)
			break;
		s = st->frames[(d - 1 - i) & (DC_MAX_DEPTH - 1)].seq;
		if (s == seq)
			return true;
		if (s < seq)
			break;
	}
	return false;
}

/* Block I/O.  A bio is remembered when it is queued, in the context of the
 * task that asked for it (the request itself may be issued later by a
 * kernel worker), and followed to the request that carries it: a split
 * gives the second part an entry of its own (its first sector is not the
 * bio's), a front merge makes the bio the request's first, a back merge
 * leaves the request as it was.  The request is timed from issue and
 * emitted at each completion (a partial one moves the entry on), as one
 * CALL with its issue-to-completion latency on a track of its own
 * (DC_EVF_ASYNC).  Its level is that of the work the queuing task was
 * doing: one below its innermost open call. */
static __always_inline bool block_traced(__u32 *probe_id)
{
	return tp_probe_id(DC_TP_BLOCK_COMPLETE, probe_id) == 0 ||
	       tp_probe_id(DC_TP_BLOCK_ISSUE, probe_id) == 0 ||
	       tp_probe_id(DC_TP_BIO_QUEUE, probe_id) == 0;
}

SEC("tp/block/block_bio_queue")
int dc_bio_queue(struct trace_event_raw_block_bio *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct dc_block_key key = {};
	struct dc_block_start start = {};

	key.dev = ctx->dev;
	key.sector = ctx->sector;
	start.pid_tgid = pid_tgid;
	start.bytes = (__u64)ctx->nr_sector * 512;
	start.op = ctx_op(ctx);
	start.selected = current_selected(pid_tgid);
	if (start.selected) {
		struct kevent k = {};

		/* Others' bios are only recognised at completion: no time. */
		start.ts = bpf_ktime_get_ns();
		set_place(&k, (__u32)pid_tgid);
		start.depth = k.depth;
		start.parent = k.parent;
		start.flags = k.flags;
	}
	bpf_map_update_elem(&block_start, &key, &start, BPF_ANY);
	return 0;
}

/* A bio cut at new_sector: both parts belong to whoever queued it. */
SEC("tp/block/block_split")
int dc_block_split(struct trace_event_raw_block_split *ctx)
{
	struct dc_block_key key = {}, rest = {};
	struct dc_block_start *start;

	key.dev = rest.dev = ctx->dev;
	key.sector = ctx->sector;
	rest.sector = ctx->new_sector;
	start = bpf_map_lookup_elem(&block_start, &key);
	if (start)
		bpf_map_update_elem(&block_start, &rest, start, BPF_ANY);
	return 0;
}

/* A bio appended to a request: the request's first bio speaks for it. */
SEC("tp/block/block_bio_backmerge")
int dc_bio_backmerge(struct trace_event_raw_block_bio *ctx)
{
	struct dc_block_key key = {};

	key.dev = ctx->dev;
	key.sector = ctx->sector;
	bpf_map_delete_elem(&block_start, &key);
	return 0;
}

/* A bio put in front of a request: it becomes the first; the old first
 * began where the bio ends. */
SEC("tp/block/block_bio_frontmerge")
int dc_bio_frontmerge(struct trace_event_raw_block_bio *ctx)
{
	struct dc_block_key key = {};

	key.dev = ctx->dev;
	key.sector = ctx->sector + ctx->nr_sector;
	bpf_map_delete_elem(&block_start, &key);
	return 0;
}

SEC("tp/block/block_rq_issue")
int dc_block_issue(struct trace_event_raw_block_rq *ctx)
{
	struct dc_block_key key = {};
	struct dc_block_start *start;

	key.dev = ctx->dev;
	key.sector = ctx->sector;
	start = bpf_map_lookup_elem(&block_start, &key);
	if (!start)
		return 0;
	if (start->selected)
		start->ts = bpf_ktime_get_ns();
	start->bytes = ctx->bytes;
	start->op = ctx_op(ctx);
	return 0;
}

SEC("tp/block/block_rq_complete")
int dc_block_complete(struct trace_event_raw_block_rq_completion *ctx)
{
	struct dc_block_key key = {};
	struct dc_block_start *start;
	__u32 probe_id;
	__u64 now = bpf_ktime_get_ns(), bytes;

	key.dev = ctx->dev;
	key.sector = ctx->sector;
	bytes = (__u64)ctx->nr_sector * 512;
	if (bytes == 0)
		return 0; /* a flush: no data, no bio of its own */
	if (!block_traced(&probe_id))
		return 0;
	start = bpf_map_lookup_elem(&block_start, &key);
	if (!start) {
		/* Never seen queued (queued before tracing began, or lost):
		 * emitted all the same, with pid 0, and counted. */
		struct kevent k = {
			.ts = now, .ret = ctx->error,
			.probe_id = probe_id, .type = DC_EV_CALL,
			.flags = DC_EVF_ASYNC, .nargs = 4,
			.a = { key.dev, key.sector, bytes, ctx_op(ctx) },
		};

		count(DC_CNT_BLOCK_UNKNOWN);
		emit_kernel(&k);
		return 0;
	}
	if (start->selected) {
		struct kevent k = {
			.pid_tgid = start->pid_tgid, .ts = start->ts,
			.dur = now - start->ts,
			.ret = ctx->error,
			.parent = start->parent, .probe_id = probe_id,
			.depth = start->depth, .type = DC_EV_CALL,
			.flags = DC_EVF_ASYNC | (__u8)start->flags, .nargs = 4,
			.a = { key.dev, key.sector, bytes, start->op },
		};

		/* Completion runs in no particular task: whether the
		 * parent call is still open is not known here, and
		 * dc-aggregate looks for it both ways. */
		emit_kernel(&k);
	}
	if (bytes < start->bytes) {
		/* A partial completion: the rest continues from here. */
		struct dc_block_key rest = key;

		rest.sector += bytes / 512;
		start->bytes -= bytes;
		start->ts = now;
		bpf_map_update_elem(&block_start, &rest, start, BPF_ANY);
	}
	bpf_map_delete_elem(&block_start, &key);
	return 0;
}

/* A folio added to or removed from the page cache: one instant. */
static __always_inline void
emit_page_cache(__u32 tp, struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	emit_instant(tp, 4, ctx->s_dev,
		     ctx->i_ino, ctx->index,
		     1ULL << ctx->order, 0, 0);
}

/* Declared with the readahead programs below. */
static __always_inline void ra_count(struct trace_event_raw_mm_filemap_op_page_cache *ctx);

SEC("tp/filemap/mm_filemap_add_to_page_cache")
int dc_pc_add(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	/* Only selected threads have readaheads open: ask first. */
	if (!current_selected(bpf_get_current_pid_tgid()))
		return 0;
	if (follow_ra)
		ra_count(ctx);
	emit_page_cache(DC_TP_PC_ADD, ctx);
	return 0;
}

SEC("tp/filemap/mm_filemap_delete_from_page_cache")
int dc_pc_delete(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	emit_page_cache(DC_TP_PC_DELETE, ctx);
	return 0;
}

SEC("tp/filemap/mm_filemap_fault")
int dc_fault(struct trace_event_raw_mm_filemap_fault *ctx)
{
	emit_instant(DC_TP_FAULT, 3, ctx->s_dev,
		     ctx->i_ino, ctx->index,
		     0, 0, 0);
	return 0;
}

SEC("tp/writeback/writeback_dirty_folio")
int dc_dirty(struct trace_event_raw_writeback_folio_template *ctx)
{
	emit_instant(DC_TP_DIRTY, 2, ctx->ino,
		     ctx->index, 0, 0, 0, 0);
	return 0;
}

/* Readahead.  Its tracepoints fire before the kernel sizes the window
 * (their `size` is the previous window's, 0 on a file's first read), so
 * the pages a readahead really reads are counted as they are added to the
 * page cache by the same thread, for the same file, and the record is
 * emitted when the thread moves on: at its next readahead, its next system
 * call exit (when system calls are traced) or its exit. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct dc_ra_pending);
} ra_pending SEC(".maps");

/* The current thread's open readahead, or NULL (tid: the current one). */
static __always_inline struct dc_ra_pending *ra_open(bool create)
{
	struct dc_ra_pending *ra;

	ra = bpf_task_storage_get(&ra_pending, bpf_get_current_task_btf(), NULL,
				  create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (ra && !create && !ra->open)
		return NULL;
	return ra;
}

static __always_inline void ra_flush(__u32 tid)
{
	struct dc_ra_pending *ra = ra_open(false);

	if (!ra)
		return;
	{
		struct kevent k = {
			.pid_tgid = ra->pid_tgid, .ts = ra->ts,
			.parent = ra->parent, .probe_id = ra->probe_id,
			.depth = ra->depth, .type = DC_EV_INSTANT,
			.flags = (__u8)ra->flags, .nargs = 4,
			.a = { ra->dev, ra->ino, ra->index, ra->pages },
		};

		/* Emitted when the thread moves on (in its own context):
		 * maybe after the call it began in returned. */
		if (ra->parent != 0 && !call_open(ra->parent))
			k.flags |= DC_EVF_PARENT_DONE;
		emit_kernel(&k);
	}
	ra->open = 0;
}

/* A folio this thread added: part of its open readahead, if any. */
static __always_inline void
ra_count(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	struct dc_ra_pending *ra = ra_open(false);

	if (!ra || ra->ino != ctx->i_ino ||
	    ra->dev != ctx->s_dev)
		return;
	ra->pages += 1ULL << ctx->order;
}

static __always_inline void
ra_begin(__u32 tp, struct trace_event_raw_page_cache_ra_op *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct dc_ra_pending *ra;
	__u32 probe_id;

	if (!current_selected(pid_tgid) || tp_probe_id(tp, &probe_id))
		return;
	ra_flush((__u32)pid_tgid);
	ra = ra_open(true);
	if (!ra) {
		count_drop(probe_id);
		return;
	}
	ra->probe_id = probe_id;
	ra->ts = bpf_ktime_get_ns();
	ra->pid_tgid = pid_tgid;
	ra->dev = ctx->s_dev;
	ra->ino = ctx->i_ino;
	ra->index = ctx->index;
	ra->pages = 0;
	{
		struct kevent k = {};

		set_place(&k, (__u32)pid_tgid);
		ra->depth = k.depth;
		ra->parent = k.parent;
		ra->flags = k.flags;
	}
	ra->open = 1;
}

SEC("tp/readahead/page_cache_sync_ra")
int dc_ra_sync(struct trace_event_raw_page_cache_ra_op *ctx)
{
	ra_begin(DC_TP_RA_SYNC, ctx);
	return 0;
}

SEC("tp/readahead/page_cache_async_ra")
int dc_ra_async(struct trace_event_raw_page_cache_ra_op *ctx)
{
	ra_begin(DC_TP_RA_ASYNC, ctx);
	return 0;
}

static __always_inline void emit_sock_length(__u32 tp,
					     struct trace_event_raw_sock_msg_length *ctx)
{
	struct kevent k = {
		.ret = ctx->ret, .nargs = 3,
		.a = { ctx->family, ctx->protocol,
		       ctx->flags },
	};

	emit_instant_k(tp, &k);
}

SEC("tp/sock/sock_send_length")
int dc_sock_send(struct trace_event_raw_sock_msg_length *ctx)
{
	emit_sock_length(DC_TP_SOCK_SEND, ctx);
	return 0;
}

SEC("tp/sock/sock_recv_length")
int dc_sock_recv(struct trace_event_raw_sock_msg_length *ctx)
{
	emit_sock_length(DC_TP_SOCK_RECV, ctx);
	return 0;
}

SEC("tp/sock/inet_sock_set_state")
int dc_sock_state(struct trace_event_raw_inet_sock_set_state *ctx)
{
	emit_instant(DC_TP_SOCK_STATE, 6, ctx->family,
		     ctx->protocol, ctx->oldstate,
		     ctx->newstate, ctx->sport,
		     ctx->dport);
	return 0;
}

SEC("tp/io_uring/io_uring_submit_req")
int dc_uring_submit(struct trace_event_raw_io_uring_submit_req *ctx)
{
	emit_instant(DC_TP_URING_SUBMIT, 2, ctx->opcode,
		     ctx->user_data, 0, 0, 0, 0);
	return 0;
}

SEC("tp/io_uring/io_uring_complete")
int dc_uring_complete(struct trace_event_raw_io_uring_complete *ctx)
{
	struct kevent k = {
		.ret = ctx->res, .nargs = 1,
		.a = { ctx->user_data },
	};

	emit_instant_k(DC_TP_URING_COMPLETE, &k);
	return 0;
}

/* A packet freed as dropped (consumed packets go through consume_skb):
 * the protocol and the kernel's reason.  Drops found in softirq context
 * are attributed to whatever task was running, so only those in a
 * selected task's context are kept. */
SEC("tp/skb/kfree_skb")
int dc_skb_drop(struct trace_event_raw_kfree_skb *ctx)
{
	emit_instant(DC_TP_SKB_DROP, 2, ctx->protocol,
		     (__u64)ctx->reason, 0, 0, 0, 0);
	return 0;
}

/* An instant with no fields, for probe id `cookie`. */
static __always_inline int emit_cookie_instant(__u64 cookie)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct kevent k = {};

	if (!current_selected(pid_tgid))
		return 0;
	k.pid_tgid = pid_tgid;
	k.probe_id = (__u32)cookie;
	k.type = DC_EV_INSTANT;
	k.ts = bpf_ktime_get_ns();
	set_place(&k, (__u32)pid_tgid);
	emit_kernel(&k);
	return 0;
}

/* A USDT probe site: an instant; the cookie is the probe id.  (The
 * probe's own arguments are not decoded yet.) */
SEC("uprobe")
int BPF_KPROBE(dc_usdt)
{
	return emit_cookie_instant(bpf_get_attach_cookie(ctx));
}

/* Any other tracepoint: the instant alone; the cookie is the probe id. */
SEC("tp")
int dc_tp_generic(void *ctx)
{
	return emit_cookie_instant(bpf_get_attach_cookie(ctx));
}

/* Kernel functions (fentry and kprobes) live in their own file. */
#include "kfunc.bpf.h"

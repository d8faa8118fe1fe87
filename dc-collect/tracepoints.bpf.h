/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracepoints.bpf.h - the kernel layers through tracepoints: block I/O,
 * the page cache, faults, dirtied folios, readahead, sockets, io_uring,
 * dropped packets, USDT sites and any other tracepoint.  Part of
 * collect.bpf.c; block I/O is in block.bpf.h, included below.
 *
 * Classic tracepoints (their trace_event_raw_* records, read with CO-RE):
 * their fields have stayed stable across kernels where the raw argument
 * lists have not.  The block, page cache, fault, dirtied-folio and
 * readahead programs also come as tp_btf programs,
 * loaded instead where the kernel has tp_btf (kfeatures.c decides): the
 * kernel fills no record for them first, which it does for a classic
 * tracepoint's program at every event on the host, traced or not.  Both
 * kinds decode into the same fields and share one body.  Fields are
 * read with plain loads from the record or the kernel's structs (CO-RE
 * relocates the offset and the size), not BPF_CORE_READ's helper call,
 * which cost more than the rest of an unselected task's visit.  Events
 * are attributed to the
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

/* A kernel-layer record being built: emit_kernel() writes it.  Kept
 * in a struct (on the BPF stack) rather than passed as fifteen scalars. */
struct kevent {
	__u64 pid_tgid;
	__u64 ts, dur;
	__s64 ret;
	__s64 bytes;             /* moved, for profile mode's sums (the
				    trace's readers work it out from the
				    record: lib/bytes.h) */
	__u64 parent;            /* seq of the innermost open call, 0: none */
	__u32 probe_id;
	__u32 depth;
	__u8 type, flags, nargs;
	__u8 ret_kind;           /* profile mode: which ret fails */
	__u8 direct;             /* its program may be preempted: never
	                            into a batch (put_kernel) */
	__u64 a[DC_MAX_ARGS];
};

/* Where the current task is in its call tree (st: its stack, or NULL):
 * the depth and seq of its innermost open call.  Past the stored frames
 * the parent is unknown (DC_EVF_ORPHAN), not guessed. */
static __always_inline void set_place(struct kevent *k, struct dc_stack *st)
{
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

/* The stack of task, the current thread, known to be selected: made if
 * it has none yet, so that where the client library keeps its word (or
 * that it has none) is looked up once for the thread, not again at each
 * of its kernel-layer events (client_tls keeps the answer in the stack).
 * The programs take the task once (bpf_get_current_task_btf) and read
 * its pid and tgid from it (task_pid_tgid): one helper call, not two. */
static __always_inline struct dc_stack *sel_stack(struct task_struct *task)
{
	return task_stack(task, true);
}

static __always_inline int tp_probe_id(__u32 tp, __u32 *probe_id)
{
	__u32 *v = bpf_map_lookup_elem(&tp_probe, &tp);

	if (!v || *v == 0)
		return -1;
	*probe_id = *v - 1;
	return 0;
}

/* A kernel-layer record's fields, after its header's size and count. */
static __always_inline void fill_kernel(struct dc_event *ev,
					const struct kevent *k, const int n)
{
	fill_header(ev, k->type, k->probe_id, k->pid_tgid, k->ts, k->dur,
		    k->ret, (__u16)k->depth);
	ev->flags = k->flags;
	ev->parent = k->parent;
	put_args(ev, k->a, n);
}

/* A kernel-layer record of n argument slots: into this CPU's batch
 * (common.bpf.h) where there are batches, unless its program may be
 * preempted (k->direct), the batch is busy, or it was written after its
 * parent's record (DC_EVF_PARENT_DONE: user space orders a batch's
 * records by time, which would put it first); else straight into the
 * ring (see reserve_event). */
static __always_inline void put_kernel(const struct kevent *k, const int n)
{
	struct cpu_batch *b = NULL;
	struct dc_event *ev;

	if (batching && !k->direct && !(k->flags & DC_EVF_PARENT_DONE))
		b = batch_take();
	if (b) {
		fill_kernel(batch_room(b, k->probe_id, n), k, n);
		batch_give(b);
		return;
	}
	ev = reserve_event(k->probe_id, n);
	if (!ev)
		return;
	fill_kernel(ev, k, n);
	bpf_ringbuf_submit(ev, rb_flags());
}

/* Emit a kernel-layer record.  In profile mode, its sums: the bytes
 * and the failure its builder worked out (0 and DC_RET_NONE unless it
 * set them), as dc-aggregate --profile would find them in the record
 * by its probe's plan. */
static __always_inline void emit_kernel(const struct kevent *k)
{
	if (profile_mode) {
		profile_call(k->pid_tgid >> 32, k->probe_id, k->dur, k->ret,
			     k->ret_kind, k->bytes);
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

/* An instant by the current task, already known to be selected, if tp
 * is traced: k holds its arguments and return value, st is the task's
 * stack (or NULL). */
static __always_inline void emit_instant_sel(__u32 tp, __u64 pid_tgid,
					     struct dc_stack *st,
					     struct kevent *k)
{
	if (tp_probe_id(tp, &k->probe_id))
		return;
	k->pid_tgid = pid_tgid;
	k->type = DC_EV_INSTANT;
	k->ts = bpf_ktime_get_ns();
	set_place(k, st);
	emit_kernel(k);
}

/* The same, if the current task is selected. */
static __always_inline void emit_instant_k(__u32 tp, struct kevent *k)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = task_pid_tgid(task);

	if (current_selected(pid_tgid))
		emit_instant_sel(tp, pid_tgid, sel_stack(task), k);
}

static __always_inline void emit_instant(__u32 tp, __u8 nargs, __u64 a0,
					 __u64 a1, __u64 a2, __u64 a3,
					 __u64 a4, __u64 a5)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = task_pid_tgid(task);

	/* Most runs are other processes': nothing built for them. */
	if (!current_selected(pid_tgid))
		return;
	{
		struct kevent k = { .nargs = nargs,
				    .a = { a0, a1, a2, a3, a4, a5 } };

		emit_instant_sel(tp, pid_tgid, sel_stack(task), &k);
	}
}

/* Is the call numbered seq still open on the thread whose stack is st?
 * Work emitted late tells dc-aggregate whether its parent's record is
 * still to come or already went by.  Frames hold increasing numbers: look
 * down from the top until one is older. */
static __always_inline bool call_open(const struct dc_stack *st, __u64 seq)
{
	__u32 d, i;

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

#include "block.bpf.h"

/* The page cache, faults and dirtied folios: a file's folio, as the
 * classic records have it (read from the record, or from the kernel's
 * folio by the tp_btf programs below). */
struct folio_fields {
	__u64 dev, ino, index, pages;
};

/* The current task, its pid and tgid in *pid_tgid, if it is selected;
 * NULL if not (most runs: nothing else is read for them). */
static __always_inline struct task_struct *selected_task(__u64 *pid_tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();

	*pid_tgid = task_pid_tgid(task);
	return current_selected(*pid_tgid) ? task : NULL;
}

/* Declared with the readahead programs below. */
static __always_inline void ra_count(struct dc_stack *st, __u64 dev,
				     __u64 ino, __u64 pages);

/* A folio added to or removed from the page cache by the selected task:
 * one instant. */
static __always_inline void page_cache_op(__u32 tp, struct task_struct *task,
					  __u64 pid_tgid,
					  const struct folio_fields *f)
{
	struct dc_stack *st = sel_stack(task);
	struct kevent k = { .nargs = 4,
			    .a = { f->dev, f->ino, f->index, f->pages } };

	/* Only selected threads have readaheads open. */
	if (tp == DC_TP_PC_ADD && follow_ra)
		ra_count(st, f->dev, f->ino, f->pages);
	emit_instant_sel(tp, pid_tgid, st, &k);
}

#define PAGE_CACHE_FIELDS(ctx) { .dev = (ctx)->s_dev, .ino = (ctx)->i_ino, \
	.index = (ctx)->index, .pages = 1ULL << (ctx)->order }

SEC("tp/filemap/mm_filemap_add_to_page_cache")
int dc_pc_add(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	struct task_struct *task;
	__u64 pid_tgid;

	if ((task = selected_task(&pid_tgid))) {
		struct folio_fields f = PAGE_CACHE_FIELDS(ctx);

		page_cache_op(DC_TP_PC_ADD, task, pid_tgid, &f);
	}
	return 0;
}

SEC("tp/filemap/mm_filemap_delete_from_page_cache")
int dc_pc_delete(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	struct task_struct *task;
	__u64 pid_tgid;

	if ((task = selected_task(&pid_tgid))) {
		struct folio_fields f = PAGE_CACHE_FIELDS(ctx);

		page_cache_op(DC_TP_PC_DELETE, task, pid_tgid, &f);
	}
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

/* The same through tp_btf (see block.bpf.h's). */

/* A file's device as the filemap records have it: its superblock's, or
 * the inode's own for a block device's. */
static __always_inline __u64 inode_dev(struct inode *host)
{
	struct super_block *sb = host->i_sb;

	return sb ? sb->s_dev : host->i_rdev;
}

/* folio_order(): 0 unless the folio is large (PG_head); then 6.1's
 * _folio_order, or the low byte of _flags_1 since it moved there (6.6);
 * the flags word became a struct (memdesc_flags_t) in 6.18. */
struct folio___flags_ul { unsigned long flags; } __attribute__((preserve_access_index));
struct folio___order_u8 { unsigned char _folio_order; } __attribute__((preserve_access_index));

static __always_inline __u32 folio_order_of(struct folio *folio)
{
	unsigned long flags;

	if (bpf_core_type_exists(memdesc_flags_t))
		flags = folio->flags.f;
	else
		flags = ((struct folio___flags_ul *)folio)->flags;
	if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 0;
	if (bpf_core_field_exists(struct folio___order_u8, _folio_order))
		return ((struct folio___order_u8 *)folio)->_folio_order;
	return folio->_flags_1 & 0xff;
}

static __always_inline void folio_fields_of(struct folio *folio,
					    struct folio_fields *f)
{
	struct inode *host = folio->mapping->host;

	f->dev = inode_dev(host);
	f->ino = host->i_ino;
	f->index = folio->index;
	f->pages = 1ULL << (folio_order_of(folio) & 63);
}

/* A fault on a file's page (selected task): its device, inode, index. */
SEC("?tp_btf/mm_filemap_fault")
int BPF_PROG(dc_fault_btf, struct address_space *mapping, unsigned long index)
{
	struct task_struct *task;
	__u64 pid_tgid;

	if ((task = selected_task(&pid_tgid))) {
		struct inode *host = mapping->host;
		struct kevent k = { .nargs = 3,
				    .a = { inode_dev(host), host->i_ino, index } };

		emit_instant_sel(DC_TP_FAULT, pid_tgid, sel_stack(task), &k);
	}
	return 0;
}

SEC("?tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(dc_pc_add_btf, struct folio *folio)
{
	struct task_struct *task;
	__u64 pid_tgid;

	if ((task = selected_task(&pid_tgid))) {
		struct folio_fields f;

		folio_fields_of(folio, &f);
		page_cache_op(DC_TP_PC_ADD, task, pid_tgid, &f);
	}
	return 0;
}

SEC("?tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(dc_pc_delete_btf, struct folio *folio)
{
	struct task_struct *task;
	__u64 pid_tgid;

	if ((task = selected_task(&pid_tgid))) {
		struct folio_fields f;

		folio_fields_of(folio, &f);
		page_cache_op(DC_TP_PC_DELETE, task, pid_tgid, &f);
	}
	return 0;
}

/* The inode number writeback_dirty_folio's record has: 0 unless the
 * file's backing device has a device (not tmpfs's, for one).  mapping is
 * the folio's, as the kernel passes it.  (A block device's own page
 * cache, whose backing device is its disk's, gives 0 here.) */
static __always_inline __u64 dirty_ino(struct address_space *mapping)
{
	struct backing_dev_info *bdi;
	struct inode *host;

	if (!mapping)
		return 0;
	host = mapping->host;
	bdi = host->i_sb ? host->i_sb->s_bdi : NULL;
	return bdi && bdi->dev ? host->i_ino : 0;
}

SEC("?tp_btf/writeback_dirty_folio")
int BPF_PROG(dc_dirty_btf, struct folio *folio, struct address_space *mapping)
{
	struct task_struct *task;
	__u64 pid_tgid;

	if ((task = selected_task(&pid_tgid))) {
		struct kevent k = { .nargs = 2,
				    .a = { dirty_ino(mapping), folio->index } };

		emit_instant_sel(DC_TP_DIRTY, pid_tgid, sel_stack(task), &k);
	}
	return 0;
}

/* Readahead.  Its tracepoints fire before the kernel sizes the window
 * (their `size` is the previous window's, 0 on a file's first read), so
 * the pages a readahead really reads are counted as they are added to the
 * page cache by the same thread, for the same file, and the record is
 * emitted when the thread moves on: at its next readahead, its next system
 * call exit (when system calls are traced) or its exit.  The open
 * readahead is kept in the thread's stack (struct dc_stack): one
 * task-storage lookup finds both. */

/* The open readahead of the thread whose stack is st, or NULL. */
static __always_inline struct dc_ra_pending *ra_open(struct dc_stack *st)
{
	return st && st->ra.open ? &st->ra : NULL;
}

/* direct: the caller may be preempted (a system call's exit, 6.14 and
 * later), so its record must not go into the CPU's batch (put_kernel). */
static __always_inline void ra_flush(struct dc_stack *st, bool direct)
{
	struct dc_ra_pending *ra = ra_open(st);

	if (!ra)
		return;
	{
		struct kevent k = {
			.pid_tgid = ra->pid_tgid, .ts = ra->ts,
			.parent = ra->parent, .probe_id = ra->probe_id,
			.depth = ra->depth, .type = DC_EV_INSTANT,
			.flags = (__u8)ra->flags, .nargs = 4, .direct = direct,
			.a = { ra->dev, ra->ino, ra->index, ra->pages },
		};

		/* Emitted when the thread moves on (in its own context):
		 * maybe after the call it began in returned. */
		if (ra->parent != 0 && !call_open(st, ra->parent))
			k.flags |= DC_EVF_PARENT_DONE;
		emit_kernel(&k);
	}
	ra->open = 0;
}

/* A folio of pages this thread added to file ino on dev: part of its
 * open readahead, if any. */
static __always_inline void ra_count(struct dc_stack *st, __u64 dev,
				     __u64 ino, __u64 pages)
{
	struct dc_ra_pending *ra = ra_open(st);

	if (!ra || ra->ino != ino || ra->dev != dev)
		return;
	ra->pages += pages;
}

/* A readahead of file ino on dev from index begun by task, selected. */
static __always_inline void ra_begin(__u32 tp, struct task_struct *task,
				     __u64 pid_tgid, __u64 dev, __u64 ino,
				     __u64 index)
{
	struct dc_ra_pending *ra;
	struct dc_stack *st;
	__u32 probe_id;

	if (tp_probe_id(tp, &probe_id))
		return;
	st = sel_stack(task);
	if (!st) {
		count(DC_CNT_NOSTACK);
		count_drop(probe_id);
		return;
	}
	ra_flush(st, false);
	ra = &st->ra;
	ra->probe_id = probe_id;
	ra->ts = bpf_ktime_get_ns();
	ra->pid_tgid = pid_tgid;
	ra->dev = dev;
	ra->ino = ino;
	ra->index = index;
	ra->pages = 0;
	{
		struct kevent k = {};

		set_place(&k, st);
		ra->depth = k.depth;
		ra->parent = k.parent;
		ra->flags = k.flags;
	}
	ra->open = 1;
}

SEC("tp/readahead/page_cache_sync_ra")
int dc_ra_sync(struct trace_event_raw_page_cache_ra_op *ctx)
{
	struct task_struct *task;
	__u64 pid_tgid;

	if ((task = selected_task(&pid_tgid)))
		ra_begin(DC_TP_RA_SYNC, task, pid_tgid, ctx->s_dev,
			 ctx->i_ino, ctx->index);
	return 0;
}

SEC("tp/readahead/page_cache_async_ra")
int dc_ra_async(struct trace_event_raw_page_cache_ra_op *ctx)
{
	struct task_struct *task;
	__u64 pid_tgid;

	if ((task = selected_task(&pid_tgid)))
		ra_begin(DC_TP_RA_ASYNC, task, pid_tgid, ctx->s_dev,
			 ctx->i_ino, ctx->index);
	return 0;
}

/* The same through tp_btf (see block.bpf.h's). */
SEC("?tp_btf/page_cache_sync_ra")
int BPF_PROG(dc_ra_sync_btf, struct inode *inode, unsigned long index)
{
	struct task_struct *task;
	__u64 pid_tgid;

	if ((task = selected_task(&pid_tgid)))
		ra_begin(DC_TP_RA_SYNC, task, pid_tgid, inode_dev(inode),
			 inode->i_ino, index);
	return 0;
}

SEC("?tp_btf/page_cache_async_ra")
int BPF_PROG(dc_ra_async_btf, struct inode *inode, unsigned long index)
{
	struct task_struct *task;
	__u64 pid_tgid;

	if ((task = selected_task(&pid_tgid)))
		ra_begin(DC_TP_RA_ASYNC, task, pid_tgid, inode_dev(inode),
			 inode->i_ino, index);
	return 0;
}

/* A socket message: its length returned (negative: an error) moved
 * that many bytes, except a MSG_PEEK (2) receive's, which left them
 * queued (lib/bytes.h dc_bytes_kernel, the same rule). */
static __always_inline void emit_sock_length(__u32 tp,
					     struct trace_event_raw_sock_msg_length *ctx)
{
	struct kevent k = {
		.ret = ctx->ret, .ret_kind = DC_RET_SIZE, .nargs = 3,
		.a = { ctx->family, ctx->protocol,
		       ctx->flags },
	};

	if (ctx->ret > 0 && !(ctx->flags & 2))
		k.bytes = ctx->ret;
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

/* The opcode of the request a completion is for, which says whether
 * its result is a byte count: -1 when the kernel names no request (the
 * extra completions of a multishot request, a message between rings)
 * or its record has no req field (before 5.19). */
static __always_inline __s64
uring_opcode(struct trace_event_raw_io_uring_complete *ctx)
{
	struct io_kiocb *req;

	if (!bpf_core_field_exists(ctx->req))
		return -1;
	req = ctx->req;
	if (!req)
		return -1;
	return BPF_CORE_READ(req, opcode);
}

SEC("tp/io_uring/io_uring_complete")
int dc_uring_complete(struct trace_event_raw_io_uring_complete *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = task_pid_tgid(task);

	/* The request is read (a helper call) only for selected tasks. */
	if (!current_selected(pid_tgid))
		return 0;
	{
		__s64 opcode = uring_opcode(ctx);
		struct kevent k = {
			.ret = ctx->res, .ret_kind = DC_RET_SIZE, .nargs = 2,
			.a = { ctx->user_data, (__u64)opcode },
		};

		/* A byte count only for a request that reads or writes
		 * (lib/bytes.h, the same rule): not an open's descriptor. */
		if (ctx->res > 0 && dc_uring_moves(opcode))
			k.bytes = ctx->res;
		emit_instant_sel(DC_TP_URING_COMPLETE, pid_tgid,
				 sel_stack(task), &k);
	}
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

/* An instant with no fields, for the probe id in the program's cookie,
 * read only once the task is known to be selected (a helper call); into
 * the CPU's batch if the cookie says its program cannot be preempted. */
static __always_inline int emit_cookie_instant(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = task_pid_tgid(task);
	struct kevent k = {};
	__u64 cookie;

	if (!current_selected(pid_tgid))
		return 0;
	cookie = bpf_get_attach_cookie(ctx);
	k.pid_tgid = pid_tgid;
	k.direct = !(cookie & DC_COOKIE_BATCH);
	k.probe_id = (__u32)cookie;
	k.type = DC_EV_INSTANT;
	k.ts = bpf_ktime_get_ns();
	set_place(&k, sel_stack(task));
	emit_kernel(&k);
	return 0;
}

/* A USDT probe site: an instant; the cookie is the probe id, never with
 * DC_COOKIE_BATCH (a uprobe's program can be preempted).  (The probe's
 * own arguments are not decoded yet.) */
SEC("uprobe")
int BPF_KPROBE(dc_usdt)
{
	return emit_cookie_instant(ctx);
}

/* Any other tracepoint: the instant alone; the cookie is the probe id. */
SEC("tp")
int dc_tp_generic(void *ctx)
{
	return emit_cookie_instant(ctx);
}


/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracepoints.bpf.h - the kernel layers through tracepoints: block I/O,
 * the page cache, faults, dirtied folios, readahead, sockets, io_uring,
 * dropped packets, USDT sites and any other tracepoint.  Part of
 * collect.bpf.c.
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
 * else's) and is still emitted.  Merged bios leave the table at the merge.
 *
 * A hash map's update cost more than the rest of a bio's visit (its
 * allocation and locking, at every bio on the host), so the table is a
 * set-associative array: (device, sector) hashes to a set of
 * DC_BLOCK_WAYS slots, each with a tag byte that says who holds it: 0
 * free; seven bits of the key's hash (bit 0 clear, never 0) in use; the
 * same with bit 0 set while one program changes or reads the slot.  A
 * set's tags are one 64-bit word, and a program takes a slot with a
 * compare-and-swap of the word, its byte changed, so the CPUs that
 * queue, issue and complete a bio never write one slot at once; the
 * byte is set back after the slot's writes (block_give).  A tag matches
 * other keys now and then: the slot's key is compared too.
 * A full set gives its oldest entry to the new bio, as an LRU map would:
 * entries nothing deletes (a bio-based device's bios complete no
 * request) age out; a live entry lost that way, or a slot found busy,
 * makes its completion one never seen queued: emitted with pid 0 and
 * counted (DC_CNT_BLOCK_UNKNOWN), never silent.
 *
 * The set is chosen by the 16 KiB the bio starts in, not by its sector:
 * sequential small bios come back to the set, its tags still in the
 * cache, where a set per sector missed it at every bio.  Four 4 KiB bios
 * of a 16 KiB fill half a set; the other half is for the rest.  What a
 * bio's visit waits on is memory: the set's tags, then the slot it takes
 * (perf: a third of dc_bio_queue, the two misses one after the other).
 * So a slot is one cache line, 64 bytes, and the set's tags share way 0's
 * line, the way a set with a free way gives first: one miss finds both.
 * The map is mmapable only for its values' alignment (a page, so each
 * slot is a line); nothing maps it.
 *
 * block_set_bits (2^bits sets) is DC_BLOCK_SET_BITS; tests set fewer
 * (dc-collect's DC_TEST_BLOCK_SET_BITS) to fill a set at will. */
#define DC_BLOCK_WAYS 8      /* a tag byte each: one word per set */
#define DC_BLOCK_SET_BITS 11
#define DC_BLOCK_SETS (1 << DC_BLOCK_SET_BITS) /* x 8 ways: 16384 bios */
#define DC_BLOCK_GROUP 5     /* log2 of a set's sectors: 16 KiB */
#define DC_BLOCK_BUSY 1
#define DC_BLOCK_TRIES 4     /* compare-and-swaps lost to other ways */

const volatile __u32 block_set_bits = DC_BLOCK_SET_BITS;

/* What a bio's completion needs from its queueing and issue. */
struct block_start {
	__u64 ts;                /* issue time; 0 until issued */
	__u64 pid_tgid;          /* who queued it */
	__u64 op;                /* rwbs, packed (ctx_op) */
	__u64 parent;            /* seq of the call that queued it, 0: none */
	__u32 bytes;             /* still to complete (known from issue) */
	__u16 depth;             /* level: that of the queuing task's calls */
	__u8 selected;           /* queued by a selected process */
	__u8 flags;              /* DC_EVF_ORPHAN if that call is unknown */
};

struct block_slots {
	struct block_slot {
		__u64 tags;        /* way 0's: the set's tags, way i's in byte i */
		__u64 sector;
		__u32 dev;
		__u32 born;        /* jiffies (low half) when queued: the oldest goes */
		struct block_start start;
	} slot[DC_BLOCK_WAYS];
};

_Static_assert(sizeof(struct block_slot) == 64, "a slot is a cache line");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, DC_BLOCK_SETS);
	__type(key, __u32);
	__type(value, struct block_slots);
} block_slots SEC(".maps");

/* A set: its tags and its slots. */
struct block_set {
	__u64 *tags;
	struct block_slot *slot;
};

#define DC_GOLDEN 0x9e3779b97f4a7c15ULL

/* Way i's tag in a set's tags w. */
static __always_inline __u32 tag_of(__u64 w, int i)
{
	return (w >> (8 * (i & (DC_BLOCK_WAYS - 1)))) & 0xff;
}

/* The set of a block key in *s, and in *tag its tag: multiplicative
 * hashes of its 16 KiB and of the key, their top bits; the tag's bit 0
 * clear, the tag never 0. */
static __always_inline bool block_set_of(const struct dc_block_key *k,
					 struct block_set *s, __u32 *tag)
{
	__u64 dev = (__u64)k->dev << 40;
	__u32 bits = block_set_bits & 31, set = 0;
	struct block_slots *sl;

	if (bits)
		set = ((k->sector >> DC_BLOCK_GROUP) ^ dev) * DC_GOLDEN >>
		      (64 - bits);
	sl = bpf_map_lookup_elem(&block_slots, &set);
	if (!sl)
		return false;
	s->tags = &sl->slot[0].tags;
	s->slot = sl->slot;
	*tag = ((k->sector ^ dev) * DC_GOLDEN >> 56) & ~DC_BLOCK_BUSY;
	if (*tag == 0)
		*tag = 2;
	return true;
}

/* Does slot hold key? */
static __always_inline bool block_key_eq(const struct block_slot *slot,
					 const struct dc_block_key *key)
{
	return slot->sector == key->sector && slot->dev == key->dev;
}

/* Change way's tag from `from` to `to`, the set's other tags as they
 * are: false if it was not `from`, or other ways changed under every
 * try. */
static __always_inline bool block_mark(struct block_set *s, int way,
				       __u32 from, __u32 to)
{
	int shift = 8 * (way & (DC_BLOCK_WAYS - 1)), n;
	__u64 w = *(volatile __u64 *)s->tags, old;

	for (n = 0; n < DC_BLOCK_TRIES; n++) {
		if (((w >> shift) & 0xff) != from)
			return false;
		old = __sync_val_compare_and_swap(s->tags, w,
				(w & ~(0xffULL << shift)) | ((__u64)to << shift));
		if (old == w)
			return true;
		w = old;
	}
	return false;
}

/* Give a taken slot back: still key's (tag), or free (0), after the
 * slot's writes.  x86 keeps stores in order, so a plain store of the
 * byte does (an atomic would wait for the slot's stores to reach the
 * cache); elsewhere an atomic AND (its result used, so the ordered
 * form) clears the busy bit or the whole byte. */
static __always_inline void block_give(struct block_set *s, int way, __u32 tag)
{
	int i = way & (DC_BLOCK_WAYS - 1);

#if defined(__TARGET_ARCH_x86)
	asm volatile("" ::: "memory");
	*((volatile __u8 *)s->tags + i) = tag;
#else
	__u64 old = __sync_fetch_and_and(s->tags,
			~(0xffULL << (8 * i)) | ((__u64)tag << (8 * i)));

	asm volatile("" :: "r"(old));
#endif
}

/* Take the slot holding key (its tag marked busy): its way, or -1 when
 * no slot holds it or another CPU has it. */
static __always_inline int block_take(struct block_set *s, __u32 tag,
				      const struct dc_block_key *key)
{
	__u64 w = *(volatile __u64 *)s->tags;
	int i;

	for (i = 0; i < DC_BLOCK_WAYS; i++) {
		if (tag_of(w, i) != tag || !block_key_eq(&s->slot[i], key))
			continue;
		if (!block_mark(s, i, tag, tag | DC_BLOCK_BUSY))
			return -1;
		/* Ours now: a slot given to another key in between fails. */
		if (!block_key_eq(&s->slot[i], key)) {
			block_give(s, i, tag);
			return -1;
		}
		return i;
	}
	return -1;
}

/* The way of a full set's oldest entry (not busy), -1 if none: its
 * slots are read only when no way is free. */
static __always_inline int block_oldest(struct block_set *s, __u64 w,
					__u32 now)
{
	int i, oldest = -1;
	__u32 t, age, oldest_age = 0;

	for (i = 0; i < DC_BLOCK_WAYS; i++) {
		t = tag_of(w, i);
		if (t == 0 || (t & DC_BLOCK_BUSY))
			continue;
		age = now - s->slot[i].born;
		if (oldest < 0 || age > oldest_age) {
			oldest_age = age;
			oldest = i;
		}
	}
	return oldest;
}

/* A slot for key, taken (busy), its key written: the one holding key
 * already (a stale entry), else a free one, else the oldest; -1 when
 * another CPU took it first.  The caller writes its start and gives it
 * back with block_give(s, way, tag). */
static __always_inline int block_claim(struct block_set *s, __u32 tag,
				       const struct dc_block_key *key,
				       __u32 now)
{
	__u64 w = *(volatile __u64 *)s->tags;
	int i, way = -1;
	__u32 t;

	for (i = 0; i < DC_BLOCK_WAYS; i++) {
		t = tag_of(w, i);
		if (t == tag && block_key_eq(&s->slot[i], key)) {
			way = i;
			break;
		}
		if (t == 0 && way < 0)
			way = i;
	}
	if (way < 0)
		way = block_oldest(s, w, now);
	if (way < 0)
		return -1;
	way &= DC_BLOCK_WAYS - 1;
	if (!block_mark(s, way, tag_of(w, way), tag | DC_BLOCK_BUSY))
		return -1;
	s->slot[way].sector = key->sector;
	s->slot[way].dev = key->dev;
	s->slot[way].born = now;
	return way;
}

/* Remember start under key (see block_claim); false if it could not be. */
static __always_inline bool block_put(const struct dc_block_key *key,
				      const struct block_start *start)
{
	struct block_set s;
	__u32 tag;
	int way;

	if (!block_set_of(key, &s, &tag))
		return false;
	way = block_claim(&s, tag, key, (__u32)bpf_jiffies64());
	if (way < 0)
		return false;
	s.slot[way & (DC_BLOCK_WAYS - 1)].start = *start;
	block_give(&s, way, tag);
	return true;
}

/* Forget key, if remembered (a merged bio). */
static __always_inline void block_forget(const struct dc_block_key *key)
{
	struct block_set s;
	__u32 tag;
	int way;

	if (!block_set_of(key, &s, &tag))
		return;
	way = block_take(&s, tag, key);
	if (way >= 0)
		block_give(&s, way, 0);
}

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

/* A kernel-layer record of n argument slots (see reserve_event). */
static __always_inline void put_kernel(const struct kevent *k, const int n)
{
	struct dc_event *ev = reserve_event(k->probe_id, n);

	if (!ev)
		return;
	fill_header(ev, k->type, k->probe_id, k->pid_tgid, k->ts, k->dur,
		    k->ret, (__u16)k->depth);
	ev->flags = k->flags;
	ev->parent = k->parent;
	put_args(ev, k->a, n);
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
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = task_pid_tgid(task);
	struct dc_block_key key = {};
	struct block_start start = {};

	/* A flush carries no data: its completion is never emitted, and
	 * remembered it would only wait in the table to be given up. */
	if (ctx->nr_sector == 0)
		return 0;
	key.dev = ctx->dev;
	key.sector = ctx->sector;
	start.pid_tgid = pid_tgid;
	start.bytes = (__u64)ctx->nr_sector * 512;
	start.op = ctx_op(ctx);
	start.selected = current_selected(pid_tgid);
	if (start.selected) {
		struct kevent k = {};

		/* No clock read: the request is timed from its issue. */
		set_place(&k, sel_stack(task));
		start.depth = k.depth;
		start.parent = k.parent;
		start.flags = k.flags;
	}
	block_put(&key, &start);
	return 0;
}

/* A bio cut at new_sector: both parts belong to whoever queued it. */
SEC("tp/block/block_split")
int dc_block_split(struct trace_event_raw_block_split *ctx)
{
	struct dc_block_key key = {}, rest = {};
	struct block_set s;
	__u32 tag;
	int way;

	key.dev = rest.dev = ctx->dev;
	key.sector = ctx->sector;
	rest.sector = ctx->new_sector;
	if (!block_set_of(&key, &s, &tag))
		return 0;
	way = block_take(&s, tag, &key);
	if (way < 0)
		return 0;
	block_put(&rest, &s.slot[way & (DC_BLOCK_WAYS - 1)].start);
	block_give(&s, way, tag);
	return 0;
}

/* A bio appended to a request: the request's first bio speaks for it. */
SEC("tp/block/block_bio_backmerge")
int dc_bio_backmerge(struct trace_event_raw_block_bio *ctx)
{
	struct dc_block_key key = {};

	key.dev = ctx->dev;
	key.sector = ctx->sector;
	block_forget(&key);
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
	block_forget(&key);
	return 0;
}

SEC("tp/block/block_rq_issue")
int dc_block_issue(struct trace_event_raw_block_rq *ctx)
{
	struct dc_block_key key = {};
	struct block_start *start;
	struct block_set s;
	__u32 tag;
	int way;

	key.dev = ctx->dev;
	key.sector = ctx->sector;
	if (!block_set_of(&key, &s, &tag))
		return 0;
	way = block_take(&s, tag, &key);
	if (way < 0)
		return 0;
	start = &s.slot[way & (DC_BLOCK_WAYS - 1)].start;
	if (start->selected)
		start->ts = bpf_ktime_get_ns();
	start->bytes = ctx->bytes;
	start->op = ctx_op(ctx);
	block_give(&s, way, tag);
	return 0;
}

/* A completion whose request was never seen queued (queued before
 * tracing began, or its entry lost): emitted all the same, with pid 0,
 * and counted. */
static __always_inline void block_unknown(struct trace_event_raw_block_rq_completion *ctx,
					  __u32 probe_id, __u64 now)
{
	struct kevent k = {
		.ts = now, .ret = ctx->error,
		.probe_id = probe_id, .type = DC_EV_CALL,
		.flags = DC_EVF_ASYNC, .nargs = 4,
		.a = { ctx->dev, ctx->sector, (__u64)ctx->nr_sector * 512,
		       ctx_op(ctx) },
	};

	count(DC_CNT_BLOCK_UNKNOWN);
	emit_kernel(&k);
}

/* A partial completion of bytes of the request at key: the rest
 * continues from where it ended, timed from now. */
static __always_inline void block_rest(const struct dc_block_key *key,
				       __u64 bytes, struct block_start *start,
				       __u64 now)
{
	struct dc_block_key rest = *key;

	rest.sector += bytes / 512;
	start->bytes -= bytes;
	start->ts = now;
	block_put(&rest, start);
}

SEC("tp/block/block_rq_complete")
int dc_block_complete(struct trace_event_raw_block_rq_completion *ctx)
{
	struct dc_block_key key = {};
	struct block_start *start;
	struct block_set s;
	__u32 probe_id;
	__u64 now, bytes;
	__u32 tag;
	int way = -1;

	key.dev = ctx->dev;
	key.sector = ctx->sector;
	bytes = (__u64)ctx->nr_sector * 512;
	if (bytes == 0)
		return 0; /* a flush: no data, no bio of its own */
	if (!block_traced(&probe_id))
		return 0;
	if (block_set_of(&key, &s, &tag))
		way = block_take(&s, tag, &key);
	if (way < 0) {
		block_unknown(ctx, probe_id, bpf_ktime_get_ns());
		return 0;
	}
	start = &s.slot[way & (DC_BLOCK_WAYS - 1)].start;
	now = 0; /* others' I/O: no clock read, nothing sent */
	if (start->selected) {
		struct kevent k = {
			.pid_tgid = start->pid_tgid, .ts = start->ts,
			.ret = ctx->error,
			.parent = start->parent, .probe_id = probe_id,
			.depth = start->depth, .type = DC_EV_CALL,
			.flags = DC_EVF_ASYNC | (__u8)start->flags, .nargs = 4,
			.a = { key.dev, key.sector, bytes, start->op },
		};

		now = bpf_ktime_get_ns();
		/* A request ended without an issue (an error before its
		 * dispatch) has no latency: it is the instant it ended. */
		if (start->ts == 0)
			k.ts = now;
		k.dur = now - k.ts;
		/* Completion runs in no particular task: whether the
		 * parent call is still open is not known here, and
		 * dc-aggregate looks for it both ways. */
		emit_kernel(&k);
	}
	if (bytes < start->bytes)
		block_rest(&key, bytes, start, now);
	block_give(&s, way, 0);
	return 0;
}

/* A folio added to or removed from the page cache: one instant. */
#define PAGE_CACHE_KEVENT(ctx) { .nargs = 4,				\
	.a = { (ctx)->s_dev, (ctx)->i_ino, (ctx)->index, 1ULL << (ctx)->order } }

/* Declared with the readahead programs below. */
static __always_inline void
ra_count(struct dc_stack *st, struct trace_event_raw_mm_filemap_op_page_cache *ctx);

SEC("tp/filemap/mm_filemap_add_to_page_cache")
int dc_pc_add(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = task_pid_tgid(task);
	struct dc_stack *st;

	/* Only selected threads have readaheads open: ask first, once. */
	if (!current_selected(pid_tgid))
		return 0;
	st = sel_stack(task);
	if (follow_ra)
		ra_count(st, ctx);
	{
		struct kevent k = PAGE_CACHE_KEVENT(ctx);

		emit_instant_sel(DC_TP_PC_ADD, pid_tgid, st, &k);
	}
	return 0;
}

SEC("tp/filemap/mm_filemap_delete_from_page_cache")
int dc_pc_delete(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = task_pid_tgid(task);

	if (!current_selected(pid_tgid))
		return 0;
	{
		struct kevent k = PAGE_CACHE_KEVENT(ctx);

		emit_instant_sel(DC_TP_PC_DELETE, pid_tgid, sel_stack(task),
				 &k);
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

static __always_inline void ra_flush(struct dc_stack *st)
{
	struct dc_ra_pending *ra = ra_open(st);

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
		if (ra->parent != 0 && !call_open(st, ra->parent))
			k.flags |= DC_EVF_PARENT_DONE;
		emit_kernel(&k);
	}
	ra->open = 0;
}

/* A folio this thread added: part of its open readahead, if any. */
static __always_inline void
ra_count(struct dc_stack *st, struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	struct dc_ra_pending *ra = ra_open(st);

	if (!ra || ra->ino != ctx->i_ino ||
	    ra->dev != ctx->s_dev)
		return;
	ra->pages += 1ULL << ctx->order;
}

static __always_inline void
ra_begin(__u32 tp, struct trace_event_raw_page_cache_ra_op *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = task_pid_tgid(task);
	struct dc_ra_pending *ra;
	struct dc_stack *st;
	__u32 probe_id;

	if (!current_selected(pid_tgid) || tp_probe_id(tp, &probe_id))
		return;
	st = sel_stack(task);
	if (!st) {
		count(DC_CNT_NOSTACK);
		count_drop(probe_id);
		return;
	}
	ra_flush(st);
	ra = &st->ra;
	ra->probe_id = probe_id;
	ra->ts = bpf_ktime_get_ns();
	ra->pid_tgid = pid_tgid;
	ra->dev = ctx->s_dev;
	ra->ino = ctx->i_ino;
	ra->index = ctx->index;
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

/* An instant with no fields, for the probe id in the program's cookie,
 * read only once the task is known to be selected (a helper call). */
static __always_inline int emit_cookie_instant(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = task_pid_tgid(task);
	struct kevent k = {};

	if (!current_selected(pid_tgid))
		return 0;
	k.pid_tgid = pid_tgid;
	k.probe_id = (__u32)bpf_get_attach_cookie(ctx);
	k.type = DC_EV_INSTANT;
	k.ts = bpf_ktime_get_ns();
	set_place(&k, sel_stack(task));
	emit_kernel(&k);
	return 0;
}

/* A USDT probe site: an instant; the cookie is the probe id.  (The
 * probe's own arguments are not decoded yet.) */
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


/* SPDX-License-Identifier: GPL-2.0 */
/*
 * block.bpf.h - block I/O, from a bio's queueing to its request's
 * completion: the table of bios in flight and the block programs, as
 * classic tracepoints and as tp_btf ones sharing their bodies.  Part of
 * collect.bpf.c, included by tracepoints.bpf.h (it uses its records).
 */

/* Block I/O from queueing to completion, by device and first sector.
 * With the classic tracepoints every bio queued on the host is
 * remembered, selected or not (block_every_bio), so that a completion
 * found nowhere is known to be unattributed (not someone else's) and is
 * still emitted.  The tp_btf programs remember a selected process's bios
 * only, and on a request-based device only (a bio-based one's complete
 * no request): a completion found nowhere is told by its request's
 * issue instead (blk_rq_before), so others' I/O costs three programs
 * that look and return.  Merged bios leave the table at the merge.
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
 * of a 16 KiB fill half a set; the other half is for the rest.  And a
 * device's next 16 KiB takes the next set (a hash of the device only
 * says where its run of sets begins): sequential I/O walks the table a
 * set, then a page, at a time, where a hash of each 16 KiB scattered it
 * over the table's 1 MiB, a cache and TLB miss at every new 16 KiB
 * (dc_bio_queue on direct 4 KiB reads, medians of 7 interleaved rounds:
 * 473 ns a run then, 379 now; 689 and 458 on reads 32 KiB apart).  What a
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
		__u64 spare;       /* to the line's end */
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

/* Whether every bio is remembered (the classic tracepoints: they have no
 * request whose issue can judge a completion found nowhere,
 * blk_rq_before); set by dc-collect (load.c). */
const volatile bool block_every_bio = true;

/* The jiffy in which the first bio was queued after the tp_btf programs
 * attached, 0 until then (block_note_epoch): a request found nowhere at
 * its completion that was issued before it was in flight when tracing
 * began (blk_rq_before). */
__u64 block_epoch;

/* Way i's tag in a set's tags w. */
static __always_inline __u32 tag_of(__u64 w, int i)
{
	return (w >> (8 * (i & (DC_BLOCK_WAYS - 1)))) & 0xff;
}

/* The set of a block key in *s: the number of its 16 KiB plus the top
 * bits of a multiplicative hash of its device, modulo the set count; in
 * *tag its tag: the top byte of that hash of the key, bit 0 clear,
 * never 0. */
static __always_inline bool block_set_of(const struct dc_block_key *k,
					 struct block_set *s, __u32 *tag)
{
	__u64 dev = (__u64)k->dev << 40;
	__u32 bits = block_set_bits & 31, set = 0;
	struct block_slots *sl;

	if (bits)
		set = ((k->sector >> DC_BLOCK_GROUP) +
		       ((__u64)k->dev * DC_GOLDEN >> (64 - bits))) &
		      ((1U << bits) - 1);
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

#define DC_BLOCK_NONE (-1)   /* block_take: no slot holds the key */
#define DC_BLOCK_TAKEN (-2)  /* ... one does, but another CPU has it */

/* Take the slot holding key (its tag marked busy): its way, or
 * DC_BLOCK_NONE or DC_BLOCK_TAKEN. */
static __always_inline int block_take(struct block_set *s, __u32 tag,
				      const struct dc_block_key *key)
{
	__u64 w = *(volatile __u64 *)s->tags;
	int i;

	for (i = 0; i < DC_BLOCK_WAYS; i++) {
		if (tag_of(w, i) != tag || !block_key_eq(&s->slot[i], key))
			continue;
		if (!block_mark(s, i, tag, tag | DC_BLOCK_BUSY))
			return DC_BLOCK_TAKEN;
		/* Ours now: a slot given to another key in between fails. */
		if (!block_key_eq(&s->slot[i], key)) {
			block_give(s, i, tag);
			return DC_BLOCK_TAKEN;
		}
		return i;
	}
	return DC_BLOCK_NONE;
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
 * already (a stale entry), else a free one, else the oldest (its key
 * then in *evicted); -1 when another CPU took it first.  The caller
 * writes its start and gives it back with block_give(s, way, tag). */
static __always_inline int block_claim(struct block_set *s, __u32 tag,
				       const struct dc_block_key *key,
				       __u32 now, struct dc_block_key *evicted)
{
	__u64 w = *(volatile __u64 *)s->tags;
	int i, way = -1;
	bool evict;
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
	evict = way < 0;
	if (evict)
		way = block_oldest(s, w, now);
	if (way < 0)
		return -1;
	way &= DC_BLOCK_WAYS - 1;
	if (!block_mark(s, way, tag_of(w, way), tag | DC_BLOCK_BUSY))
		return -1;
	if (evict) {
		evicted->sector = s->slot[way].sector;
		evicted->dev = s->slot[way].dev;
	}
	s->slot[way].sector = key->sector;
	s->slot[way].dev = key->dev;
	s->slot[way].born = now;
	return way;
}

/* Selected requests whose entry could not be made or was given up to
 * another, where only selected bios are remembered (block_every_bio
 * false): the completion of one found nowhere is then still emitted,
 * as one never seen queued, where others' are not.  A hash map, as
 * this is rare, and looked in only while it holds any (block_lost_n). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct dc_block_key);
	__type(value, __u8);
} block_lost SEC(".maps");

__u64 block_lost_n;

static __always_inline void block_lose(const struct dc_block_key *key)
{
	__u8 one = 1;

	if (!block_every_bio &&
	    bpf_map_update_elem(&block_lost, key, &one, BPF_NOEXIST) == 0)
		__sync_fetch_and_add(&block_lost_n, 1);
}

/* Whether key's entry was given up (block_lose); it is not any more. */
static __always_inline bool block_found_lost(const struct dc_block_key *key)
{
	if (block_lost_n == 0 || bpf_map_delete_elem(&block_lost, key) != 0)
		return false;
	__sync_fetch_and_sub(&block_lost_n, 1);
	return true;
}

/* Remember start under key (see block_claim).  A selected request
 * whose entry could not be made, or whose entry this one took, is
 * remembered as lost (block_lose). */
static __always_inline void block_put(const struct dc_block_key *key,
				      const struct block_start *start)
{
	struct dc_block_key evicted = {};
	struct block_set s;
	__u32 tag;
	int way;

	if (!block_set_of(key, &s, &tag))
		return;
	/* Remembered again (a split's rest, queued once more). */
	block_found_lost(key);
	way = block_claim(&s, tag, key, (__u32)bpf_jiffies64(), &evicted);
	if (way < 0) {
		block_lose(key);
		return;
	}
	way &= DC_BLOCK_WAYS - 1;
	if (evicted.dev != 0 && s.slot[way].start.selected)
		block_lose(&evicted);
	s.slot[way].start = *start;
	block_give(&s, way, tag);
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

/* A block tracepoint's fields, as its classic record has them: read
 * from that record (tp/ programs) or from the kernel's own structs
 * (tp_btf/ programs, blk_* below), then handled by the same bodies. */
struct blk_fields {
	__u64 sector;
	__u64 op;                /* rwbs, packed (ctx_op, blk_op) */
	__u32 dev;
	__u32 nr_sector;
	__u32 bytes;             /* block_rq_issue's */
	__s32 error;             /* block_rq_complete's, an errno */
};

/* A bio queued by task (pid_tgid), selected or not. */
static __always_inline int bio_queue(const struct blk_fields *f,
				     struct task_struct *task, __u64 pid_tgid,
				     bool selected)
{
	struct dc_block_key key = {};
	struct block_start start = {};

	/* A flush carries no data: its completion is never emitted, and
	 * remembered it would only wait in the table to be given up. */
	if (f->nr_sector == 0)
		return 0;
	key.dev = f->dev;
	key.sector = f->sector;
	start.pid_tgid = pid_tgid;
	start.bytes = (__u64)f->nr_sector * 512;
	start.selected = selected;
	if (selected) {
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
static __always_inline int block_split(__u32 dev, __u64 sector,
				       __u64 new_sector)
{
	struct dc_block_key key = {}, rest = {};
	struct block_set s;
	__u32 tag;
	int way;

	key.dev = rest.dev = dev;
	key.sector = sector;
	rest.sector = new_sector;
	if (!block_set_of(&key, &s, &tag))
		return 0;
	way = block_take(&s, tag, &key);
	if (way < 0)
		return 0;
	block_put(&rest, &s.slot[way & (DC_BLOCK_WAYS - 1)].start);
	block_give(&s, way, tag);
	return 0;
}

/* A bio merged into a request: the request's first bio speaks for it.
 * Appended (back merge), the bio at sector leaves the table; put in
 * front, the old first, which began where the bio ends, does. */
static __always_inline int bio_merged(__u32 dev, __u64 sector)
{
	struct dc_block_key key = {};

	key.dev = dev;
	key.sector = sector;
	block_forget(&key);
	return 0;
}

static __always_inline int block_issue(const struct blk_fields *f)
{
	struct dc_block_key key = {};
	struct block_start *start;
	struct block_set s;
	__u32 tag;
	int way;

	key.dev = f->dev;
	key.sector = f->sector;
	if (!block_set_of(&key, &s, &tag))
		return 0;
	way = block_take(&s, tag, &key);
	if (way < 0)
		return 0;
	start = &s.slot[way & (DC_BLOCK_WAYS - 1)].start;
	if (start->selected)
		start->ts = bpf_ktime_get_ns();
	start->bytes = f->bytes;
	block_give(&s, way, tag);
	return 0;
}

/* A completion whose request was never seen queued (queued before
 * tracing began, or its entry lost): emitted all the same, with pid 0,
 * and counted.
 *
 * Both kinds of completion say their ret is a status (DC_RET_STATUS,
 * the block plan's in klayers.c): profile mode counts a failed request
 * (a negative errno) as an error, as dc-aggregate --profile does from
 * the record by its plan; without it, none were. */
static __always_inline void block_unknown(const struct blk_fields *f,
					  __u32 probe_id, __u64 now)
{
	struct kevent k = {
		.ts = now, .ret = f->error, .ret_kind = DC_RET_STATUS,
		.probe_id = probe_id, .type = DC_EV_CALL,
		.flags = DC_EVF_ASYNC, .nargs = 4,
		.a = { f->dev, f->sector, (__u64)f->nr_sector * 512, f->op },
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

/* Whether request rq, found nowhere at its completion, was issued
 * before the jiffy in which the first bio was queued after the tp_btf
 * programs attached (block_epoch): then it was in flight when tracing
 * began, else it is someone else's.  Its issue's jiffy is its timeout's
 * deadline less the timeout, which every issue sets.  (Not the time
 * stamp it was made with, start_time_ns: where the device keeps no I/O
 * statistics and has no scheduler the kernel need not stamp it, and
 * after I/O statistics were turned off there t/3100 found earlier
 * requests' stamps in 49 of 64 new ones, taken for requests older
 * than tracing.) */
static __always_inline bool blk_rq_before(struct request *rq)
{
	if (block_epoch == 0)
		return true; /* no bio queued since: every request is older */
	return (long)(rq->deadline - rq->timeout - block_epoch) < 0;
}

/* The completion of bytes of request rq (NULL: the classic programs,
 * where every bio is remembered). */
static __always_inline int block_complete(const struct blk_fields *f,
					  struct request *rq)
{
	struct dc_block_key key = {};
	struct block_start *start;
	struct block_set s;
	__u32 probe_id;
	__u64 now, bytes;
	__u32 tag;
	int way = DC_BLOCK_NONE;

	key.dev = f->dev;
	key.sector = f->sector;
	bytes = (__u64)f->nr_sector * 512;
	if (bytes == 0)
		return 0; /* a flush: no data, no bio of its own */
	if (!block_traced(&probe_id))
		return 0;
	if (block_set_of(&key, &s, &tag))
		way = block_take(&s, tag, &key);
	if (way < 0) {
		/* Where only selected bios are remembered, one found
		 * nowhere is someone else's unless it began before or
		 * its entry was given up. */
		if (way == DC_BLOCK_NONE && rq && !blk_rq_before(rq) &&
		    !block_found_lost(&key))
			return 0;
		block_unknown(f, probe_id, bpf_ktime_get_ns());
		return 0;
	}
	start = &s.slot[way & (DC_BLOCK_WAYS - 1)].start;
	now = 0; /* others' I/O: no clock read, nothing sent */
	if (start->selected) {
		struct kevent k = {
			.pid_tgid = start->pid_tgid, .ts = start->ts,
			.ret = f->error, .ret_kind = DC_RET_STATUS,
			.parent = start->parent, .probe_id = probe_id,
			.depth = start->depth, .type = DC_EV_CALL,
			.flags = DC_EVF_ASYNC | (__u8)start->flags, .nargs = 4,
			.a = { key.dev, key.sector, bytes, f->op },
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

/* The classic tracepoints: their records' fields. */
SEC("tp/block/block_bio_queue")
int dc_bio_queue(struct trace_event_raw_block_bio *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = task_pid_tgid(task);
	struct blk_fields f = { .dev = ctx->dev, .sector = ctx->sector,
				.nr_sector = ctx->nr_sector };

	return bio_queue(&f, task, pid_tgid, current_selected(pid_tgid));
}

SEC("tp/block/block_split")
int dc_block_split(struct trace_event_raw_block_split *ctx)
{
	return block_split(ctx->dev, ctx->sector, ctx->new_sector);
}

SEC("tp/block/block_bio_backmerge")
int dc_bio_backmerge(struct trace_event_raw_block_bio *ctx)
{
	return bio_merged(ctx->dev, ctx->sector);
}

SEC("tp/block/block_bio_frontmerge")
int dc_bio_frontmerge(struct trace_event_raw_block_bio *ctx)
{
	return bio_merged(ctx->dev, ctx->sector + ctx->nr_sector);
}

SEC("tp/block/block_rq_issue")
int dc_block_issue(struct trace_event_raw_block_rq *ctx)
{
	struct blk_fields f = { .dev = ctx->dev, .sector = ctx->sector,
				.bytes = ctx->bytes };

	return block_issue(&f);
}

SEC("tp/block/block_rq_complete")
int dc_block_complete(struct trace_event_raw_block_rq_completion *ctx)
{
	struct blk_fields f = { .dev = ctx->dev, .sector = ctx->sector,
				.nr_sector = ctx->nr_sector,
				.error = ctx->error, .op = ctx_op(ctx) };

	return block_complete(&f, NULL);
}

/* The same through BTF-typed raw tracepoints (tp_btf), where the kernel
 * has them (dc-collect's kfeatures.c decides): the kernel calls these
 * with its own bio or request and fills no record first, which the
 * classic tracepoints make it do for every bio on the host, traced or
 * not.  The fields are read from the structs as the classic records'
 * TP_fast_assign reads them (CO-RE), so both kinds give the same events.
 * They load only when asked for ("?"). */

/* A request flags' rwbs, as the kernel's blk_fill_rwbs writes it,
 * packed as ctx_op packs the record's: the flag bits by their names in
 * this kernel's enum; zone operations, named since 6.17, show as "N". */
static __always_inline __u64 blk_op(__u64 opf)
{
	__u64 op = 0;
	int n = 0;

#define BLK_RWBS(c) do { op |= (__u64)(c) << (8 * (n & 7)); n++; } while (0)
#define BLK_FLAG(name) (opf & (1ULL << bpf_core_enum_value(enum req_flag_bits, name)))
	if (BLK_FLAG(__REQ_PREFLUSH))
		BLK_RWBS('F');
	switch (opf & 0xff) { /* REQ_OP_MASK: REQ_OP_BITS is 8 */
	case REQ_OP_WRITE: BLK_RWBS('W'); break;
	case REQ_OP_DISCARD: BLK_RWBS('D'); break;
	case REQ_OP_SECURE_ERASE: BLK_RWBS('D'); BLK_RWBS('E'); break;
	case REQ_OP_FLUSH: BLK_RWBS('F'); break;
	case REQ_OP_READ: BLK_RWBS('R'); break;
	default: BLK_RWBS('N');
	}
	if (BLK_FLAG(__REQ_FUA))
		BLK_RWBS('F');
	if (BLK_FLAG(__REQ_RAHEAD))
		BLK_RWBS('A');
	if (BLK_FLAG(__REQ_SYNC))
		BLK_RWBS('S');
	if (BLK_FLAG(__REQ_META))
		BLK_RWBS('M');
	if (bpf_core_enum_value_exists(enum req_flag_bits, __REQ_ATOMIC) &&
	    BLK_FLAG(__REQ_ATOMIC))
		BLK_RWBS('U');
#undef BLK_FLAG
#undef BLK_RWBS
	return op;
}

/* blk_status_to_errno: the statuses numbered alike on every kernel
 * since 4.13 (0 to 13); the later ones (zones, offline, duration
 * limits) were renumbered between releases and give -EIO, as an
 * unknown status does in the kernel. */
static __always_inline __s32 blk_errno(__u8 status)
{
	switch (status) {
	case 0: return 0;
	case 1: return -95;  /* NOTSUPP: EOPNOTSUPP */
	case 2: return -110; /* TIMEOUT: ETIMEDOUT */
	case 3: return -28;  /* NOSPC */
	case 4: return -67;  /* TRANSPORT: ENOLINK */
	case 5: return -121; /* TARGET: EREMOTEIO */
	case 6: return -52;  /* NEXUS, RESV_CONFLICT: EBADE */
	case 7: return -61;  /* MEDIUM: ENODATA */
	case 8: return -84;  /* PROTECTION: EILSEQ */
	case 9: return -12;  /* RESOURCE: ENOMEM */
	case 11: return -78; /* DM_REQUEUE: EREMCHG */
	case 12: return -11; /* AGAIN */
	case 13: return -16; /* DEV_RESOURCE: EBUSY */
	default: return -5;  /* IOERR and the rest: EIO */
	}
}

/* A request's device: its disk's (disk_devt), 0 without one. */
static __always_inline __u32 blk_rq_dev(struct request *rq)
{
	struct gendisk *disk = rq->q->disk;

	return disk ? disk->part0->bd_dev : 0;
}

/* blk_rq_trace_sector: 0 for a passthrough request or one whose start
 * was never set. */
static __always_inline __u64 blk_rq_sector(struct request *rq)
{
	__u32 op = rq->cmd_flags & 0xff;

	if (op == bpf_core_enum_value(enum req_op, REQ_OP_DRV_IN) ||
	    op == bpf_core_enum_value(enum req_op, REQ_OP_DRV_OUT) ||
	    rq->__sector == (sector_t)-1)
		return 0;
	return rq->__sector;
}

/* bio_dev(): the device of the bio's disk, as the classic records have
 * it (disk_devt), and as a request's is (blk_rq_dev): a partition's bio
 * was remapped to its disk's sectors before it was queued, but its
 * bi_bdev is still the partition's, whose own device would match none
 * of its requests. */
static __always_inline __u32 blk_bio_dev(struct bio *bio)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;

	return disk ? disk->part0->bd_dev : bio->bi_bdev->bd_dev;
}

/* The first bio queued after the programs attached: its jiffy
 * (block_epoch).  Racing CPUs write the same or the next. */
static __always_inline void block_note_epoch(void)
{
	if (block_epoch == 0)
		block_epoch = bpf_jiffies64();
}

/* Only a selected process's bios, and only on a request-based device
 * (blk-mq): a bio-based device's bios complete no request, and
 * remembered they would only be pushed out of the table by newer ones,
 * each kept in block_lost as if its request were still in flight. */
SEC("?tp_btf/block_bio_queue")
int BPF_PROG(dc_bio_queue_btf, struct bio *bio)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = task_pid_tgid(task);

	block_note_epoch();
	if (!current_selected(pid_tgid) ||
	    !bio->bi_bdev->bd_disk->queue->mq_ops)
		return 0;
	{
		struct blk_fields f = {
			.dev = blk_bio_dev(bio),
			.sector = bio->bi_iter.bi_sector,
			.nr_sector = bio->bi_iter.bi_size >> 9,
		};

		return bio_queue(&f, task, pid_tgid, true);
	}
}

SEC("?tp_btf/block_split")
int BPF_PROG(dc_block_split_btf, struct bio *bio, unsigned int new_sector)
{
	return block_split(blk_bio_dev(bio), bio->bi_iter.bi_sector,
			   new_sector);
}

SEC("?tp_btf/block_bio_backmerge")
int BPF_PROG(dc_bio_backmerge_btf, struct bio *bio)
{
	return bio_merged(blk_bio_dev(bio), bio->bi_iter.bi_sector);
}

SEC("?tp_btf/block_bio_frontmerge")
int BPF_PROG(dc_bio_frontmerge_btf, struct bio *bio)
{
	return bio_merged(blk_bio_dev(bio), bio->bi_iter.bi_sector +
			  (bio->bi_iter.bi_size >> 9));
}

SEC("?tp_btf/block_rq_issue")
int BPF_PROG(dc_block_issue_btf, struct request *rq)
{
	struct blk_fields f = { .dev = blk_rq_dev(rq),
				.sector = blk_rq_sector(rq),
				.bytes = rq->__data_len };

	return block_issue(&f);
}

SEC("?tp_btf/block_rq_complete")
int BPF_PROG(dc_block_complete_btf, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	struct blk_fields f = { .dev = blk_rq_dev(rq),
				.sector = blk_rq_sector(rq),
				.nr_sector = nr_bytes >> 9,
				.error = blk_errno(error),
				.op = blk_op(rq->cmd_flags) };

	return block_complete(&f, rq);
}

/*
 * fast.c - libdcclient.so's fast path: the handshake with dc-collect and
 * the per-thread rings the wrappers write records into.
 *
 * See lib/fastabi.h for the protocol and the mapping.  Rules this file
 * keeps, because it runs inside somebody else's program:
 *  - No collector, no cost: if the socket cannot be reached, every
 *    dc_fast_on[] byte stays 0 and the wrappers never come here.
 *  - Never harm the process: no malloc, no stdio, errno preserved, no
 *    blocking beyond the bounded handshake and the bounded wait of a
 *    full slot for the collector (wait_room), strings copied only from
 *    pointers the call itself has just used successfully.
 *  - Lose nothing silently: a full slot, no free slot or a signal
 *    handler's call that cannot wait for the record its thread was
 *    writing (defer_record) each count a drop the collector reports.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

#include "event.h"
#include "fdpass.h"
#include "client.h"
#include "dcclient.h"

/* Client sequence numbers have the top bit set (DC_SEQ_CLIENT). */
#define CLIENT_SEQ_BIT (1ULL << 63)

DC_HIDDEN unsigned char dc_fast_on[DC_FAST_NFUNCS];

/* What every record of a function needs, worked out from its config
 * once (plan_record), so that a call reads one 8-byte entry and tests
 * one byte for anything beyond copying its arguments. */
struct fast_fn {
	__u32 probe_id;
	__u8 size;               /* header + slots: the record, unless a
	                            string follows */
	__u8 nslots;
	__u8 ret_kind;
	__u8 extra;              /* FN_* */
};

enum {
	FN_STR = 1,              /* strings after the slots */
	FN_DERIVE = 4,           /* a slot derived at return */
	FN_LIB = 8,              /* an MPI or HDF5 function */
};

/* The process's fast-path state, set by the handshake. */
static struct {
	struct dc_fast_func_cfg funcs[DC_FAST_NFUNCS];
	struct fast_fn fns[DC_FAST_NFUNCS];
	struct dc_fast_shm *shm;
	size_t map_bytes;
	__u64 slot_bytes;
	__u32 nslots;
	__u64 full_wait_ns;      /* a full slot waits this long, at most */
	pthread_key_t key;
	int key_ok;
	int populate_off;        /* MADV_POPULATE_WRITE refused */
	struct dc_client_state *states; /* the call-state map, NULL: none */
	size_t states_bytes;
	pthread_key_t state_key; /* a thread's entry, released at its exit */
	int state_key_ok;
	struct sockaddr_un addr; /* the collector's socket (socket_address) */
	socklen_t addr_len;      /* 0: not read yet */
} fast;

enum { THR_NONE = 0, THR_SLOT = 1, THR_NOSLOT = 2 };

DC_HIDDEN __thread struct dc_thread dc_thr
	__attribute__((tls_model("initial-exec")));
#define thr dc_thr

DC_HIDDEN int (*dc_gettime)(clockid_t, struct timespec *) = clock_gettime;
DC_HIDDEN unsigned char dc_fast_entry[DC_FAST_NFUNCS];

/* The library's own work in this thread from here (on) or done (0),
 * nested: the thread's system calls and kernel events in between are
 * not the program's, and dc-collect records none of them
 * (dc_client_quiet, dcclient.h).  DC_QUIET_KERNEL is set before the
 * collector is told and cleared after it is told otherwise: a signal
 * handler's call that comes in between, with the depth 0 already, finds
 * it and tells the collector otherwise itself (dc_call_begin), or its
 * system calls would go unrecorded. */
static void quiet(int on)
{
	if (on) {
		if ((thr.quiet++ & ~DC_QUIET_KERNEL) == 0) {
			thr.quiet |= DC_QUIET_KERNEL;
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			dc_client_quiet(DC_CLIENT_ABI_VERSION, 1);
		}
	} else if ((--thr.quiet & ~DC_QUIET_KERNEL) == 0) {
		dc_client_quiet(DC_CLIENT_ABI_VERSION, 0);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		thr.quiet = 0;
	}
}

/* The thread's id, asked of the kernel once. */
static __u32 own_tid(void)
{
	int saved = errno;

	if (thr.tid == 0) {
		quiet(1);
		thr.tid = (__u32)syscall(SYS_gettid);
		quiet(0);
		errno = saved;
	}
	return thr.tid;
}

/* NAME in a loaded object other than this library, or NULL.
 * dlsym(RTLD_NEXT) searches the global scope only, and a library loaded
 * with RTLD_LOCAL is not in it: Python loads its extension modules so,
 * and one linked with libhdf5 or libmpi brings them in local.  Its calls
 * still reach our wrappers first (a preload is in every object's scope),
 * so every object of the namespace is asked, in load order. */
static void *dc_real_local(const char *name)
{
	struct link_map *lm = NULL;
	void *main_handle = dlopen(NULL, RTLD_LAZY | RTLD_NOLOAD);
	Dl_info self, at;
	void *f = NULL;

	if (main_handle == NULL || dladdr((void *)dc_real_local, &self) == 0 ||
	    dlinfo(main_handle, RTLD_DI_LINKMAP, &lm) != 0)
		return NULL;
	for (; lm != NULL && f == NULL; lm = lm->l_next) {
		void *h;

		if (lm->l_name == NULL || lm->l_name[0] == '\0')
			continue;
		h = dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD);
		if (h == NULL)
			continue;
		f = dlsym(h, name);
		if (f != NULL && (dladdr(f, &at) == 0 || at.dli_fbase == self.dli_fbase))
			f = NULL;
		dlclose(h);
	}
	dlclose(main_handle);
	return f;
}

void *dc_real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	static const char msg[] = "libdcclient.so: no next definition of a wrapped function\n";

	if (f == NULL)
		f = dc_real_local(name);
	if (f == NULL) {
		if (write(2, msg, sizeof(msg) - 1) < 0)
			abort();
		abort();
	}
	return f;
}

/* The vDSO's clock_gettime, called directly: libc's clock_gettime only
 * adds a call and checks around it.  The vDSO falls back to the system
 * call itself where the clock source needs one. */
static void find_vdso_clock(void)
{
	void *vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	void *f = vdso ? dlsym(vdso, "__vdso_clock_gettime") : NULL;
	struct timespec t;

	if (f != NULL && ((int (*)(clockid_t, struct timespec *))f)(CLOCK_MONOTONIC, &t) == 0)
		dc_gettime = (int (*)(clockid_t, struct timespec *))f;
}

/* ---- slots ---- */

/* A slot's first lap would take a page fault every 4 KiB, each zeroing a
 * page inside a wrapped call (in a VM, also the host's fault).  Instead,
 * the pages ahead of the head are mapped in a chunk at a time, one
 * system call per chunk.  After the first lap every page is mapped. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define POPULATE_CHUNK (256 * 1024)

static void populate_ahead(void)
{
	int saved = errno;

	while (thr.populated < fast.slot_bytes &&
	       thr.populated < thr.head + 2 * POPULATE_CHUNK) {
		__u64 n = fast.slot_bytes - thr.populated;

		if (n > POPULATE_CHUNK)
			n = POPULATE_CHUNK;
		if (fast.populate_off ||
		    madvise(thr.data + thr.populated, n, MADV_POPULATE_WRITE) != 0) {
			/* Before Linux 5.14, or no memory now: fault as
			 * usual. */
			fast.populate_off = 1;
			thr.populated = ~0ULL;
			break;
		}
		thr.populated += n;
	}
	if (thr.populated >= fast.slot_bytes)
		thr.populated = ~0ULL; /* all of it */
	errno = saved;
}


static struct dc_fast_slot *slot_at(__u32 i)
{
	return (struct dc_fast_slot *)((char *)fast.shm + DC_FAST_HDR_BYTES +
				       (size_t)i * DC_FAST_SLOT_HDR_BYTES);
}

static void release_slot(void *arg)
{
	struct dc_fast_slot *s = arg;

	/* The head is already published; the next owner continues it. */
	if (s != NULL && s == thr.slot) {
		thr.slot = NULL;
		thr.state = THR_NONE;
		thr.limit = 0;
		__atomic_store_n(&s->owner, 0, __ATOMIC_RELEASE);
	}
}

static int claim_slot(void)
{
	__u32 i, tid;

	if (thr.state == THR_NOSLOT)
		return 0;
	if (fast.shm == NULL)
		return 0;
	tid = own_tid();
	for (i = 0; i < fast.nslots; i++) {
		struct dc_fast_slot *s = slot_at(i);
		__u32 free_owner = 0;

		if (__atomic_load_n(&s->owner, __ATOMIC_RELAXED) != 0)
			continue;
		if (!__atomic_compare_exchange_n(&s->owner, &free_owner, tid, 0,
						 __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		thr.slot = s;
		thr.tid = tid;
		thr.data = (unsigned char *)fast.shm +
			   dc_fast_data_offset(fast.nslots) +
			   (size_t)i * fast.slot_bytes;
		thr.head = __atomic_load_n(&s->head, __ATOMIC_RELAXED);
		thr.room = __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE) +
			   fast.slot_bytes;
		/* A slot another thread used is mapped as far as it
		 * wrote. */
		thr.populated = thr.head & ~(__u64)(POPULATE_CHUNK - 1);
		thr.stalled = 0;
		thr.state = THR_SLOT;
		populate_ahead();
		if (fast.key_ok)
			pthread_setspecific(fast.key, s);
		return 1;
	}
	thr.state = THR_NOSLOT;
	return 0;
}

/* thr.busy: what the thread is doing that a signal handler's call must
 * not interrupt with a record of its own. */
enum {
	BUSY_RECORD = 1, /* writing its own record: the handler's waits in
			    defer (or, while this one waits for room, is
			    written by the handler: backoff) */
	BUSY_FLUSH,      /* writing out deferred records: the handler's
			    waits behind them */
	BUSY_CLOSED,     /* past the last of them: the handler's is lost */
	BUSY_VFORK = DC_BUSY_VFORK, /* a child of vfork: nothing recorded */
};

/* A record lost with no slot to count it in: a thread's that found none
 * free (noslot), or a signal handler's call's that could not wait. */
static void count_lost(int noslot)
{
	if (fast.shm != NULL)
		__atomic_fetch_add(noslot ? &fast.shm->noslot : &fast.shm->lost,
				   1, __ATOMIC_RELAXED);
}

/* ---- per-thread call state ---- */

/* Where the kernel reads this thread's call state, from its first call:
 * an entry of the process's call-state map it claims (lib/event.h),
 * which the kernel programs read with plain loads; else its TLS (no map,
 * or no entry free: then counted in the map's header, and the programs
 * read the TLS of a thread they find no entry for).  The entry starts as
 * a copy of the TLS's state. */
struct dc_client_tls *dc_thread_state(void)
{
	struct dc_client_state *e;
	__u32 i, owner;

	if (fast.states == NULL)
		return thr.kp = &thr.k;
	own_tid();
	for (i = 0; i < DC_CLIENT_PROBE; i++) {
		e = &fast.states[1 + ((thr.tid + i) & (DC_CLIENT_SLOTS - 1))];
		owner = __atomic_load_n(&e->owner, __ATOMIC_RELAXED);
		/* Ours already: left by a thread of this tid that is gone
		 * (the kernel frees those it saw exit). */
		if (owner != thr.tid &&
		    (owner != 0 ||
		     !__atomic_compare_exchange_n(&e->owner, &owner, thr.tid, 0,
						  __ATOMIC_ACQUIRE,
						  __ATOMIC_RELAXED)))
			continue;
		e->k = thr.k;
		thr.kp = &e->k;
		if (fast.state_key_ok)
			pthread_setspecific(fast.state_key, e);
		return thr.kp;
	}
	__atomic_fetch_add(&fast.states[0].overflow, 1, __ATOMIC_RELAXED);
	return thr.kp = &thr.k;
}

/* A thread ends: its entry is free for the next one (a later call, from
 * another key's destructor, claims again). */
static void release_state(void *arg)
{
	struct dc_client_state *e = arg;

	if (e != NULL && thr.kp == &e->k) {
		thr.kp = NULL;
		__atomic_store_n(&e->owner, 0, __ATOMIC_RELEASE);
	}
}

/* ---- calls ---- */

static __u64 round8(__u64 n)
{
	return (n + 7) & ~7ULL;
}

const struct dc_fast_func_cfg *dc_fast_func(int fn)
{
	return &fast.funcs[fn];
}

/* Back off while waiting for the collector: yield a few times (it may
 * be reading right now), then sleep in short steps (it reads every few
 * milliseconds). */
static void backoff(unsigned round)
{
	struct timespec step = { 0, 100000 };
	unsigned char busy = thr.busy;

	/* Waiting to write a record of its own (nothing of it written
	 * yet), this thread lets a signal handler's call write its record
	 * itself, and wait as it does: else all of the handler's calls
	 * meanwhile would wait behind it, more than defer holds. */
	if (busy == BUSY_RECORD)
		thr.busy = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (round < 16)
		sched_yield();
	else
		nanosleep(&step, NULL);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	thr.busy = busy;
}

/* The slot has no room for `need` more bytes: wait while the collector
 * reads (full_wait_ms in the config), as long as its tail moves.  A tail
 * that stays put for the whole bound (a collector stopped, dead or held
 * up by its own reader) costs this thread the bound once: it then drops
 * without waiting until that tail moves.  1 when there is room. */
static __attribute__((noinline, cold)) int wait_room(__u64 need)
{
	__u64 cap = fast.slot_bytes, tail, seen, since;
	unsigned round = 0;
	int saved = errno;

	tail = __atomic_load_n(&thr.slot->tail, __ATOMIC_ACQUIRE);
	if (fast.full_wait_ns == 0 || tail + 1 == thr.stalled)
		return 0;
	seen = tail;
	since = dc_now();
	while (thr.head + need > tail + cap) {
		backoff(round++);
		tail = __atomic_load_n(&thr.slot->tail, __ATOMIC_ACQUIRE);
		if (tail != seen) {
			seen = tail;
			since = dc_now();
		} else if (dc_now() - since > fast.full_wait_ns) {
			thr.stalled = tail + 1;
			errno = saved;
			return 0;
		}
	}
	thr.stalled = 0;
	thr.room = tail + cap;
	errno = saved;
	return 1;
}

/* How far the head may go for a record written at once, without
 * coming here: the room known, the end of the area (a record is never
 * split) and, in the first lap, the pages mapped in a chunk ahead. */
static void set_limit(void)
{
	__u64 cap = fast.slot_bytes;
	__u64 lim = (thr.head & ~(cap - 1)) + cap;

	if (thr.room < lim)
		lim = thr.room;
	if (thr.populated != ~0ULL)
		lim = thr.populated < lim + POPULATE_CHUNK ?
		      (thr.populated > POPULATE_CHUNK ?
		       thr.populated - POPULATE_CHUNK : 0) : lim;
	thr.limit = lim;
}

/* A slot claimed and the pages ahead of the head mapped in, as the
 * library's own work (quiet); 0: no slot free. */
static int ring_ready(__u64 span)
{
	int ok = 1;

	if (thr.state == THR_NOSLOT)
		return 0;
	if (thr.state == THR_SLOT &&
	    thr.head + span + POPULATE_CHUNK <= thr.populated)
		return 1;
	quiet(1);
	if (thr.state != THR_SLOT)
		ok = claim_slot();
	else
		populate_ahead();
	quiet(0);
	return ok;
}

/* reserve() past the limit: claim a slot, map the pages ahead, read the
 * collector's tail, wait for it if the policy says so, and pad to the
 * end of the area first if the record does not fit before it.  NULL: a
 * drop, counted. */
static __attribute__((noinline)) unsigned char *reserve_slow(__u64 span)
{
	__u64 cap, off, need;
	struct dc_event *pad;

	if (!ring_ready(span)) {
		count_lost(1);
		return NULL;
	}
	cap = fast.slot_bytes;
	/* Measured again after a wait: a signal handler's record may have
	 * moved the head meanwhile (backoff). */
	for (;;) {
		off = thr.head & (cap - 1);
		need = off + span <= cap ? span : cap - off + span;
		if (thr.head + need <= thr.room)
			break;
		thr.room = __atomic_load_n(&thr.slot->tail, __ATOMIC_ACQUIRE) + cap;
		if (thr.head + need <= thr.room)
			break;
		if (!wait_room(need)) {
			__atomic_store_n(&thr.slot->drops, thr.slot->drops + 1,
					 __ATOMIC_RELAXED);
			return NULL;
		}
	}
	if (off + span > cap) {
		pad = (struct dc_event *)(thr.data + off);
		pad->size = (__u16)(cap - off);
		pad->type = 0;
		thr.head += cap - off;
	}
	set_limit();
	return thr.data + (thr.head & (cap - 1));
}

/* The next record's lines, asked for now: they were last touched by
 * the collector (or a lap ago), and the call between two records (an
 * open on ext4, say) would otherwise wait for them at its own stores.
 * Inlined by force: GCC takes a function that only prefetches for one
 * without side effects, and drops its calls. */
static inline __attribute__((always_inline)) void prefetch_next(void)
{
	unsigned char *p = thr.data + (thr.head & (fast.slot_bytes - 1));

	__builtin_prefetch(p, 1, 3);
	__builtin_prefetch(p + 64, 1, 3);
	__builtin_prefetch(p + 128, 1, 3);
}

/* `size` contiguous bytes at the head of this thread's slot, or NULL (a
 * drop, counted), with `span` >= size bytes free from there before the
 * area's end: the writer may store that far (the argument slots all
 * copied at once) and publish only `size`.  The collector's tail is read
 * only when the room known from its last reading runs out: it is on a
 * line the collector writes. */
static inline unsigned char *reserve(__u64 span)
{
	if (__builtin_expect(thr.head + span <= thr.limit, 1))
		return thr.data + (thr.head & (fast.slot_bytes - 1));
	return reserve_slow(span);
}

/* A call's strings, as the spec asks for them. */
struct call_strs {
	const char *str, *str2;
	size_t len, len2;
	int trunc;
};

/* A string of at most DC_MAX_STR - 1 characters at p: its length, and
 * *trunc set if it goes on. */
static size_t str_part(const char *p, int *trunc)
{
	size_t n = strnlen(p, DC_MAX_STR - 1);

	if (n == DC_MAX_STR - 1 && p[n] != '\0')
		*trunc = 1;
	return n;
}

/* A call's strings (those the spec asks for, from pointers the call has
 * just used without faulting): the record's size with them. */
static __u64 strings(const struct dc_fast_func_cfg *cfg, const __u64 *args,
		     int nargs, int str_index, int efault, struct call_strs *s)
{
	if (cfg->str_arg == str_index && str_index < nargs && !efault &&
	    args[str_index] != 0) {
		s->str = (const char *)(uintptr_t)args[str_index];
		s->len = str_part(s->str, &s->trunc);
	}
	if (cfg->str_arg2 < DC_MAX_ARGS && cfg->str_arg2 < nargs && !efault &&
	    args[cfg->str_arg2] != 0) {
		s->str2 = (const char *)(uintptr_t)args[cfg->str_arg2];
		s->len2 = str_part(s->str2, &s->trunc);
	}
	/* As the BPF path: all slots, then the string and its NUL, then a
	 * second string and its NUL. */
	return round8(DC_EVENT_HDR_SIZE + 8 * DC_MAX_ARGS + s->len + 1 +
		      (cfg->str_arg2 < DC_MAX_ARGS ? s->len2 + 1 : 0));
}

/* The record's header and argument slots as 64-bit words, the header's
 * fields packed as struct dc_event lays them out on a little-endian
 * machine (the client's: x86-64, arm64).  Every byte of the header is
 * stored once, the fields not named (pid, file_id, the reserved ones)
 * as zero; nothing else in the record is written through another type
 * but char. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the record's header words are little-endian");
_Static_assert(offsetof(struct dc_event, probe_id) == 4 &&
	       offsetof(struct dc_event, tid) == 12 &&
	       offsetof(struct dc_event, ts) == 16 &&
	       offsetof(struct dc_event, ret) == 32 &&
	       offsetof(struct dc_event, str_len) == 42 &&
	       offsetof(struct dc_event, nargs) == 44 &&
	       offsetof(struct dc_event, error) == 52 &&
	       offsetof(struct dc_event, parent) == 64 &&
	       DC_EVENT_HDR_SIZE == 72, "struct dc_event as put_record writes it");

/* The bytes put_record stores: the header and every slot. */
#define REC_SPAN (DC_EVENT_HDR_SIZE + 8 * DC_MAX_ARGS)

/* The room a record of `size` bytes takes where it is written:
 * put_record stores every slot, whatever the size published. */
static inline __u64 rec_room(__u64 size)
{
	return size > REC_SPAN ? size : REC_SPAN;
}

static inline __attribute__((always_inline)) void
put_record(__u64 *w, const struct dc_call *c, const struct fast_fn *fn,
	   __s64 ret, __u64 end, __u64 size, __u64 flags, __u32 error,
	   __u64 str_len, const __u64 *args)
{
	w[0] = size | (__u64)DC_EV_CALL << 16 | flags << 24 |
	       (__u64)fn->probe_id << 32;
	w[1] = (__u64)thr.tid << 32; /* pid 0: the collector knows it */
	w[2] = c->ts;
	w[3] = end - c->ts;
	w[4] = (__u64)ret;
	w[5] = (__u64)(__u16)thr.k.depth | str_len << 16 |
	       (__u64)fn->nslots << 32;
	w[6] = (__u64)error << 32;
	w[7] = c->seq;
	w[8] = c->parent;
	/* All slots: those past nslots are zero in args, and past the
	 * record's size (within the span reserved) they are not published. */
	memcpy(w + DC_EVENT_HDR_SIZE / 8, args, 8 * DC_MAX_ARGS);
}

/* The strings after the slots, then zeros to the record's end.  The
 * last word is cleared first and the strings copied over it: each byte
 * is written once or twice, never cleared in a pass of its own.  The
 * header's str_len, which counts the first NUL when there are two. */
static __u64 put_strings(char *rec, const struct dc_fast_func_cfg *cfg,
			 const struct call_strs *s, __u64 size)
{
	char *p = rec + REC_SPAN;

	memset(rec + size - 8, 0, 8);
	if (s->len > 0)
		memcpy(p, s->str, s->len);
	p[s->len] = '\0';
	if (cfg->str_arg2 >= DC_MAX_ARGS)
		return s->len;
	if (s->len2 > 0)
		memcpy(p + s->len + 1, s->str2, s->len2);
	return s->len + 1 + s->len2;
}

/* Publish a record of `size` bytes written at the head. */
static inline __attribute__((always_inline)) void commit(__u64 size)
{
	thr.head += size;
	__atomic_store_n(&thr.slot->head, thr.head, __ATOMIC_RELEASE);
	prefetch_next();
}

/* A word's zero bytes: (v - ONES) & ~v & HIGHS has the top bit of its
 * first zero byte set (and maybe of bytes after it). */
#define WORD_ONES 0x0101010101010101ULL
#define WORD_HIGHS 0x8080808080808080ULL

/* The string at src copied to dst (8-aligned, DC_MAX_STR bytes of room)
 * as str_part() and put_strings() would: at most DC_MAX_STR - 1
 * characters, *trunc set if it goes on, then its NUL and zeros to the
 * next multiple of 8.  One pass, in words of 8 bytes: a word is read
 * whole when it stays in one page, else byte by byte up to the NUL (the
 * call has just read the string to its NUL; the page after it may not
 * be mapped).  Its length. */
static size_t copy_str(char *dst, const char *src, int *trunc)
{
	size_t n, k;
	__u64 v, z;

	for (n = 0;; n += 8) {
		if (((uintptr_t)(src + n) & 4095) <= 4096 - 8) {
			memcpy(&v, src + n, 8);
		} else {
			for (v = 0, k = 0; k < 8; k++) {
				v |= (__u64)(unsigned char)src[n + k] << (8 * k);
				if (src[n + k] == '\0')
					break;
			}
		}
		z = (v - WORD_ONES) & ~v & WORD_HIGHS;
		if (n == DC_MAX_STR - 8 && (z == 0 || __builtin_ctzll(z) == 63)) {
			/* DC_MAX_STR - 1 characters: our NUL ends them. */
			*trunc = z == 0;
			v &= ~(0xffULL << 56);
			memcpy(dst + n, &v, 8);
			return n + 7;
		}
		if (z != 0) {
			k = (size_t)__builtin_ctzll(z) / 8;
			if (k < 7)
				v &= (1ULL << (8 * (k + 1))) - 1;
			memcpy(dst + n, &v, 8);
			return n + k;
		}
		memcpy(dst + n, &v, 8);
	}
}

/* A record's one string copied in one pass where the record goes, when
 * the head has room for the longest before its limit: the record, its
 * size in *size and the string's length in *len.  NULL: another case
 * (none, two strings, no room known), measured first (strings()). */
static __u64 *one_string(const struct dc_fast_func_cfg *cfg, const __u64 *args,
			 int nargs, int str_index, int efault, __u64 *size,
			 __u64 *len, int *trunc)
{
	char *rec;

	if (cfg->str_arg2 < DC_MAX_ARGS || cfg->str_arg != str_index ||
	    str_index >= nargs || efault || args[str_index] == 0 ||
	    thr.head + REC_SPAN + DC_MAX_STR > thr.limit)
		return NULL;
	rec = (char *)thr.data + (thr.head & (fast.slot_bytes - 1));
	*len = copy_str(rec + REC_SPAN, (const char *)(uintptr_t)args[str_index],
			trunc);
	*size = round8(REC_SPAN + *len + 1);
	return (__u64 *)rec;
}

/* The record of call c, `size` bytes with its strings s (measured by
 * record_size), written at w, which has room for REC_SPAN at least. */
static void write_record(__u64 *w, const struct dc_call *c, __u64 end,
			 __s64 ret, const __u64 *args, int nargs,
			 const struct call_strs *s, __u64 size)
{
	const struct fast_fn *fn = &fast.fns[c->fn];
	const struct dc_fast_func_cfg *cfg = &fast.funcs[c->fn];
	int fail = dc_call_failed(fn->ret_kind, ret);
	__u64 flags, str_len = 0;
	__u32 error = fail ? (__u32)c->err : 0;

	if (fn->extra & FN_STR)
		str_len = put_strings((char *)w, cfg, s, size);
	flags = (s->trunc ? DC_EVF_STR_TRUNC : 0) | (fail ? DC_EVF_FAILED : 0);
	if (fn->extra & FN_LIB) {
		flags |= c->evflags;
		error = 0;
	}
	put_record(w, c, fn, ret, end, size, flags, error, str_len, args);
	if ((fn->extra & FN_DERIVE) && cfg->derive_arg < nargs)
		w[DC_EVENT_HDR_SIZE / 8 + cfg->derive_arg] =
			dc_derive(cfg, args, nargs, fail);
}

/* The size of call c's record, its strings measured into s. */
static __u64 record_size(const struct dc_call *c, const __u64 *args,
			 int nargs, int str_index, int efault,
			 struct call_strs *s)
{
	const struct fast_fn *fn = &fast.fns[c->fn];

	if (fn->extra & FN_STR)
		return strings(&fast.funcs[c->fn], args, nargs, str_index,
			       efault, s);
	return fn->size;
}

/* A call a signal handler made while its thread was writing a record
 * (busy): its record, strings and all (the handler's memory may be
 * gone by then), waits in defer for that one to be written
 * (flush_deferred).  Counted lost when DC_DEFER_RECS wait already, when
 * it is longer than a defer entry, or once the last of them has been
 * seen (BUSY_CLOSED).  The entry is claimed before it is written: a
 * handler that interrupts this one takes the next. */
static __attribute__((noinline, cold)) void
defer_record(const struct dc_call *c, __u64 end, __s64 ret,
	     const __u64 *args, int nargs, int str_index, int efault)
{
	struct call_strs s = { NULL, NULL, 0, 0, 0 };
	__u64 size = record_size(c, args, nargs, str_index, efault, &s);
	unsigned n = thr.ndeferred;

	if (thr.busy == BUSY_CLOSED || n >= DC_DEFER_RECS ||
	    rec_room(size) > DC_DEFER_BYTES) {
		count_lost(0);
		return;
	}
	thr.ndeferred = (unsigned char)(n + 1);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	write_record(thr.defer[n], c, end, ret, args, nargs, &s, size);
	thr.defer_size[n] = (__u16)size;
}

static void write_deferred(unsigned i)
{
	__u64 size = thr.defer_size[i];
	unsigned char *w = reserve(rec_room(size));

	if (w != NULL) {
		memcpy(w, thr.defer[i], size);
		commit(size);
	}
}

/* The records signal handlers' calls left in defer, written in order
 * once the record they interrupted is (before this thread's next).  A
 * handler's call meanwhile waits behind them, or, once the last has
 * been seen, is counted lost: none is left behind. */
static __attribute__((noinline, cold)) void flush_deferred(void)
{
	unsigned i;

	thr.busy = BUSY_FLUSH;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	for (i = 0; i < thr.ndeferred; i++)
		write_deferred(i);
	thr.busy = BUSY_CLOSED;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	for (; i < thr.ndeferred; i++)
		write_deferred(i);
	thr.ndeferred = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	thr.busy = 0;
}

/* A record the plain path does not write: more than the header and the
 * arguments (a slot derived at return, strings, an
 * MPI or HDF5 call's flags: errno is not how those fail, and
 * dc-aggregate takes the error of a failed system call under it, as on
 * the uprobe path), a head past the limit, a call made while the
 * thread was writing a record (a signal handler's: deferred), or one
 * after deferred records (written first).  Out of line: the plain
 * record's path needs no registers saved. */
static __attribute__((noinline)) void
record_slow(const struct dc_call *c, __u64 end, __s64 ret, const __u64 *args,
	    int nargs, int str_index, int efault)
{
	struct call_strs s = { NULL, NULL, 0, 0, 0 };
	__u64 size, *w;

	if (thr.busy) {
		/* A child of vfork(2) would write its calls into the ring
		 * of the thread that forked it, as that thread's. */
		if (thr.busy != BUSY_VFORK)
			defer_record(c, end, ret, args, nargs, str_index,
				     efault);
		return;
	}
	if (thr.ndeferred)
		flush_deferred();
	thr.busy = BUSY_RECORD;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	size = record_size(c, args, nargs, str_index, efault, &s);
	w = (__u64 *)reserve(rec_room(size));
	if (w != NULL) {
		write_record(w, c, end, ret, args, nargs, &s, size);
		commit(size);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	thr.busy = 0;
	if (thr.ndeferred)
		flush_deferred();
}

/* A record whose only extra is one string (open's path): copied in one
 * pass where the head has room for the longest, else record_slow.  A
 * path of its own: open(2) leaves few of the library's lines cached, and
 * this one is short. */
static __attribute__((noinline)) void
record_str(const struct dc_call *c, __u64 end, __s64 ret, const __u64 *args,
	   int nargs, int str_index, int efault)
{
	const struct fast_fn *fn = &fast.fns[c->fn];
	__u64 size, len, *w;
	int fail, trunc = 0;

	thr.busy = BUSY_RECORD;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	w = one_string(&fast.funcs[c->fn], args, nargs, str_index, efault,
		       &size, &len, &trunc);
	if (w != NULL) {
		fail = dc_call_failed(fn->ret_kind, ret);
		put_record(w, c, fn, ret, end, size,
			   (trunc ? DC_EVF_STR_TRUNC : 0) |
			   (fail ? DC_EVF_FAILED : 0),
			   fail ? (__u32)c->err : 0, len, args);
		commit(size);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	thr.busy = 0;
	if (w == NULL)
		record_slow(c, end, ret, args, nargs, str_index, efault);
	else if (thr.ndeferred)
		flush_deferred();
}

void dc_call_end(struct dc_call *c, __s64 ret, const __u64 args[DC_MAX_ARGS],
		 int nargs, int str_index, int efault)
{
	const struct fast_fn *fn = &fast.fns[c->fn];
	int fail, err = *thr.errp;
	__u64 *w, end;

	/* The call ends once it is no longer the thread's innermost: a
	 * signal handler's call, or a page fault, that came before this
	 * named it as its parent, and began before its end. */
	dc_set_state(&thr, thr.kp, c->parent, thr.k.depth - 1);
	end = dc_now();
	if (err == 0)
		*thr.errp = c->errno0;
	c->err = err;
	if (__builtin_expect(c->quiet != 0, 0))
		dc_quiet_resume(c->quiet);
	if (__builtin_expect((fn->extra | thr.busy | thr.ndeferred) != 0, 0)) {
		if (fn->extra == FN_STR && !(thr.busy | thr.ndeferred))
			record_str(c, end, ret, args, nargs, str_index, efault);
		else
			record_slow(c, end, ret, args, nargs, str_index, efault);
		return;
	}
	/* A signal handler's call from here to the commit finds busy set,
	 * and leaves its record to be written after this one; one before
	 * it wrote its own and moved the head: the room is looked at now. */
	thr.busy = BUSY_RECORD;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(thr.head + REC_SPAN > thr.limit, 0)) {
		thr.busy = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		record_slow(c, end, ret, args, nargs, str_index, efault);
		return;
	}
	w = (__u64 *)(thr.data + (thr.head & (fast.slot_bytes - 1)));
	fail = dc_call_failed(fn->ret_kind, ret);
	put_record(w, c, fn, ret, end, fn->size, fail ? DC_EVF_FAILED : 0,
		   fail ? (__u32)err : 0, 0, args);
	commit(fn->size);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	thr.busy = 0;
	if (__builtin_expect(thr.ndeferred != 0, 0))
		flush_deferred();
}

/* A function's fast_fn from its config.  As the kernel's records: all
 * slots when a string follows or a FILE's descriptor takes the last
 * one (dc_call_begin puts it in the arguments: a plain record). */
static void plan_record(struct fast_fn *fn, const struct dc_fast_func_cfg *cfg,
			int index)
{
	int n = cfg->nargs > DC_MAX_ARGS ? DC_MAX_ARGS : cfg->nargs;

	fn->extra = (cfg->str_arg < DC_MAX_ARGS ? FN_STR : 0) |
		    (cfg->derive_arg < DC_MAX_ARGS ? FN_DERIVE : 0) |
		    (index >= DC_FN_FIRST_LIB ? FN_LIB : 0);
	if ((fn->extra & FN_STR) || cfg->file_arg < DC_MAX_ARGS)
		n = DC_MAX_ARGS;
	fn->probe_id = cfg->probe_id;
	fn->nslots = (__u8)n;
	fn->size = (__u8)(DC_EVENT_HDR_SIZE + 8 * n);
	fn->ret_kind = cfg->ret_kind;
}

/* ---- handshake ---- */

/* The collector's socket, named in the environment the process started
 * with: read once, at the first handshake, as a program may clear its
 * environment before it forks or execs (env -i). */
static int socket_address(struct sockaddr_un **a, socklen_t *len)
{
	const char *name;
	size_t n;

	if (fast.addr_len == 0) {
		name = getenv(DC_FAST_ENV);
		if (name == NULL || *name == '\0')
			name = DC_FAST_DEFAULT_SOCKET;
		n = strlen(name);
		if (n >= sizeof(fast.addr.sun_path))
			return -1;
		memset(&fast.addr, 0, sizeof(fast.addr));
		fast.addr.sun_family = AF_UNIX;
		memcpy(fast.addr.sun_path, name, n);
		if (name[0] == '@')
			fast.addr.sun_path[0] = '\0'; /* abstract */
		fast.addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	}
	*a = &fast.addr;
	*len = fast.addr_len;
	return 0;
}

/* The shared mapping, sized as the collector asked and sealed so it can
 * neither shrink under the collector nor grow. */
static int make_ring(const struct dc_fast_config *cfg, int *fd_out)
{
	__u64 bytes = dc_fast_map_bytes(cfg->nslots, cfg->slot_bytes);
	struct dc_fast_shm *shm;
	int fd;

	fd = memfd_create("datacrumbs", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)bytes) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
		goto fail;
	shm = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED)
		goto fail;
	shm->magic = DC_FAST_SHM_MAGIC;
	shm->version = DC_FAST_VERSION;
	shm->nslots = cfg->nslots;
	shm->slot_bytes = cfg->slot_bytes;
	shm->data_offset = dc_fast_data_offset(cfg->nslots);
	fast.shm = shm;
	fast.map_bytes = bytes;
	*fd_out = fd;
	return 0;
fail:
	close(fd);
	return -1;
}

static int valid_config(const struct dc_fast_config *cfg)
{
	return cfg->magic == DC_FAST_MAGIC && cfg->version == DC_FAST_VERSION &&
	       cfg->nslots > 0 && cfg->nslots <= 1024 &&
	       cfg->slot_bytes >= 4096 && cfg->slot_bytes <= (1ULL << 30) &&
	       (cfg->slot_bytes & (cfg->slot_bytes - 1)) == 0 &&
	       cfg->full_wait_ms <= DC_FAST_FULL_WAIT_MAX_MS && cfg->nfuncs <= DC_FAST_NFUNCS;
}

/* The library's own descriptor closed, not through its close wrapper:
 * after the handshake that would record it as the program's. */
static void own_close(int fd)
{
	syscall(SYS_close, fd);
}

/* Connected to the collector's socket, a hello asking for request sent
 * (with descriptor fd attached, unless -1): the socket, on which answers
 * are waited for wait_ms at most (and so is the connection, if the
 * collector's backlog is full), or -1. */
static int say_hello(__u32 request, int wait_ms, int fd)
{
	struct timeval tv = { wait_ms / 1000, (wait_ms % 1000) * 1000 };
	struct dc_fast_hello hello;
	struct sockaddr_un *addr;
	socklen_t alen;
	int sock;

	if (socket_address(&addr, &alen) != 0)
		return -1;
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return -1;
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(sock, (struct sockaddr *)addr, alen) != 0)
		goto fail;
	memset(&hello, 0, sizeof(hello));
	hello.magic = DC_FAST_MAGIC;
	hello.version = DC_FAST_VERSION;
	hello.nfuncs = DC_FAST_NFUNCS;
	hello.request = request;
	hello.tls_off = (__s64)((char *)&thr.k - (char *)__builtin_thread_pointer());
	if (fd >= 0 ? dc_send_fd(sock, &hello, sizeof(hello), fd) == 0 :
	    send(sock, &hello, sizeof(hello), MSG_NOSIGNAL) == (ssize_t)sizeof(hello))
		return sock;
fail:
	own_close(sock);
	return -1;
}

/* Map the call-state map the collector passed with the configuration
 * (fd; -1: none), unless DC_FAST_TLS_ONLY is set: the threads' state
 * then stays in their TLS, where the kernel copies it from. */
static void map_states(const struct dc_fast_config *cfg, int fd)
{
	const char *tls_only = getenv("DC_FAST_TLS_ONLY");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t bytes = (DC_CLIENT_SLOTS + 1) * sizeof(struct dc_client_state);
	void *p;

	if (fd < 0)
		return;
	if (cfg->state_slots == DC_CLIENT_SLOTS && (page & (page - 1)) == 0 &&
	    (tls_only == NULL || *tls_only == '\0')) {
		bytes = (bytes + page - 1) & ~(page - 1);
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED) {
			fast.states = p;
			fast.states_bytes = bytes;
		}
	}
	close(fd);
}

static void unmap_states(void)
{
	if (fast.states != NULL)
		munmap(fast.states, fast.states_bytes);
	fast.states = NULL;
}

/* Connect, exchange hello, config (and call-state map), ring and go; on
 * any failure the fast path stays off for this process. */
static void handshake(void)
{
	struct dc_fast_config cfg;
	struct dc_fast_ready ready;
	int sock, ring = -1, states, saved = errno;
	__u32 i;

	quiet(1);
	sock = say_hello(DC_FAST_REQ_JOIN, DC_FAST_TIMEOUT_MS, -1);
	if (sock < 0)
		goto out;
	memset(&cfg, 0, sizeof(cfg));
	if (dc_recv_fd(sock, &cfg, sizeof(cfg), &states) <
	    (int)offsetof(struct dc_fast_config, funcs) || !valid_config(&cfg)) {
		if (states >= 0)
			close(states);
		goto close_sock;
	}
	map_states(&cfg, states);
	if (make_ring(&cfg, &ring) != 0)
		goto close_sock;
	memset(&ready, 0, sizeof(ready));
	ready.magic = DC_FAST_MAGIC;
	ready.ok = 1;
	ready.state = fast.states != NULL;
	if (dc_send_fd(sock, &ready, sizeof(ready), ring) != 0)
		goto unmap;
	memset(&ready, 0, sizeof(ready));
	if (recv(sock, &ready, sizeof(ready), 0) != (ssize_t)sizeof(ready) ||
	    ready.magic != DC_FAST_MAGIC || ready.ok != 1)
		goto unmap;
	/* The kernel reads the map only if the collector could give it. */
	if (ready.state != 1)
		unmap_states();
	fast.nslots = cfg.nslots;
	fast.slot_bytes = cfg.slot_bytes;
	fast.full_wait_ns = (__u64)cfg.full_wait_ms * 1000000ULL;
	for (i = 0; i < cfg.nfuncs; i++) {
		fast.funcs[i] = cfg.funcs[i];
		plan_record(&fast.fns[i], &cfg.funcs[i], (int)i);
		dc_fast_entry[i] = cfg.funcs[i].on ? dc_entry_reads(&cfg.funcs[i]) : 0;
	}
	/* The library's own descriptors closed before it records: these
	 * close() calls reach its close wrapper, and are not the program's. */
	close(ring);
	close(sock);
	quiet(0);
	/* Only now, with the collector holding the ring: record. */
	for (i = 0; i < cfg.nfuncs; i++)
		dc_fast_on[i] = cfg.funcs[i].on;
	errno = saved;
	return;
unmap:
	munmap(fast.shm, fast.map_bytes);
	fast.shm = NULL;
	close(ring);
close_sock:
	unmap_states();
	close(sock);
out:
	quiet(0);
	errno = saved;
}

/* A request about an exec (DC_FAST_REQ_EXEC*, with the program
 * attached unless -1), and its answer waited for, DC_FAST_EXEC_WAIT_MS
 * at most, as the library's own work, not the program's (quiet).
 * Whatever the answer, or none in time, the exec goes on: without the
 * uprobes, the collector places them when it reads the exec, as for a
 * process that could not ask. */
static void exec_request(__u32 request, int program)
{
	struct dc_fast_ready answer;
	int sock, saved = errno;

	quiet(1);
	sock = say_hello(request, DC_FAST_EXEC_WAIT_MS, program);
	if (sock >= 0) {
		(void)recv(sock, &answer, sizeof(answer), 0);
		own_close(sock);
	}
	quiet(0);
	errno = saved;
}

DC_HIDDEN int dc_fast_joined(void)
{
	return fast.shm != NULL;
}

DC_HIDDEN void dc_fast_quiet(int on)
{
	quiet(on);
}

DC_HIDDEN void dc_quiet_suspend(void)
{
	/* As quiet(0): another handler's call that comes before the
	 * collector is told finds DC_QUIET_KERNEL. */
	thr.quiet = DC_QUIET_KERNEL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	dc_client_quiet(DC_CLIENT_ABI_VERSION, 0);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	thr.quiet = 0;
}

/* The quiet first: a handler's call that comes before the kernel is told
 * suspends it again, and resumes it.  The collector is told again only
 * where the work was still going on: a call that came as it ended
 * (depth 0, DC_QUIET_KERNEL) leaves it told otherwise, as quiet(0) is
 * about to. */
DC_HIDDEN void dc_quiet_resume(unsigned char q)
{
	thr.quiet = q;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (q & ~DC_QUIET_KERNEL)
		dc_client_quiet(DC_CLIENT_ABI_VERSION, 1);
}

/* About to exec a program that will not load this library (exec.c): ask
 * the collector for the uprobes that stand in for it, which the kernel
 * keeps across the exec, and wait for them to be in place, or for
 * DC_FAST_EXEC_WAIT_MS; program: that program's descriptor, when the
 * environment is not why, else -1. */
DC_HIDDEN void dc_fast_before_exec(int program)
{
	exec_request(program >= 0 ? DC_FAST_REQ_EXEC_PROGRAM : DC_FAST_REQ_EXEC,
		     program);
}

/* The exec dc_fast_before_exec asked for failed: the process goes on,
 * recording its own calls, and the collector takes the uprobes out.  It
 * waits for that: a process that ended before its message was read would
 * be a stranger to the collector by then. */
DC_HIDDEN void dc_fast_exec_failed(void)
{
	exec_request(DC_FAST_REQ_EXEC_FAILED, -1);
}

/* A forked child must not write into its parent's mapping: it starts
 * over with a ring of its own. */
static void after_fork_child(void)
{
	int on = fast.shm != NULL;

	memset(dc_fast_on, 0, sizeof(dc_fast_on));
	thr.k.cur = 0;
	thr.k.depth = 0;
	thr.kp = &thr.k;
	thr.tid = 0;
	unmap_states();
	if (fast.shm != NULL)
		munmap(fast.shm, fast.map_bytes);
	fast.shm = NULL;
	thr.slot = NULL;
	thr.state = THR_NONE;
	thr.head = 0;
	thr.room = 0;
	thr.limit = 0;
	thr.populated = 0;
	thr.stalled = 0;
	thr.seq = 0;
	thr.quiet = 0;
	thr.busy = 0;
	thr.ndeferred = 0;
	if (on)
		handshake();
	/* A call open across the fork ends in this thread's new entry. */
	if (fast.states != NULL)
		dc_thread_state();
}

DC_HIDDEN void dc_fast_init(void)
{
	memset(dc_fast_entry, 0, sizeof(dc_fast_entry));
	find_vdso_clock();
	handshake();
	if (fast.shm == NULL)
		return;
	fast.key_ok = pthread_key_create(&fast.key, release_slot) == 0;
	fast.state_key_ok = pthread_key_create(&fast.state_key, release_state) == 0;
	pthread_atfork(NULL, NULL, after_fork_child);
}

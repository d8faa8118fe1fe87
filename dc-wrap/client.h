/*
 * client.h - inside libdcclient.so: what the wrappers (wrappers.c) use
 * from the fast path's core (fast.c).  Not installed.
 *
 * A wrapper is
 *
 *     if (__builtin_expect(!dc_fast_on[DC_FN_write], 1))
 *             return real_write(fd, buf, n);
 *     dc_call_begin(&call, DC_FN_write, args, nargs);
 *     r = real_write(fd, buf, n);
 *     dc_call_end(&call, r, args, nargs, str, efault);
 *
 * With no collector, or for a function the spec does not name, the cost
 * is the one predictable branch on a byte that never changes.
 */
#ifndef DC_CLIENT_INTERNAL_H
#define DC_CLIENT_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <linux/types.h>

#include "fastabi.h"

#define DC_HIDDEN __attribute__((visibility("hidden")))
/* The wrappers: the definitions a program's calls reach. */
#define DC_EXPORT __attribute__((visibility("default")))
/* A parenthesised list, unwrapped (a macro argument's slots). */
#define STRIP(...) __VA_ARGS__

/* 1 for a function this process records (set once, after the handshake). */
extern DC_HIDDEN unsigned char dc_fast_on[DC_FAST_NFUNCS];

/* A signal handler's calls made while its thread writes a record wait
 * for it: four records, each of at most DC_DEFER_BYTES (the header,
 * every slot and 392 bytes of strings; a longer one is counted lost).
 * More than one comes only when the thread loses its CPU while it
 * writes, for longer than the signal's period: two were too few on a
 * loaded host (a handler every 200 us, 1 of 300,000 calls lost), 2 KiB
 * a thread is not. */
#define DC_DEFER_RECS 4
#define DC_DEFER_BYTES 512

/* Per thread.  `k` comes first: the thread's call state, which the
 * collector's BPF program reads at the thread pointer + its offset, sent
 * in the hello, unless the thread has an entry in the process's
 * call-state map (kp): k is then copied there at every change, and the
 * wrappers still read only k, on the line they use anyway, never the
 * entry.  Hidden and initial-exec, so a wrapper reaches it with one
 * %fs-relative access. */
struct dc_thread {
	struct dc_client_tls k;
	struct dc_client_tls *kp; /* where the kernel reads k: the thread's
	                            entry of the call-state map, or &k;
	                            NULL until its first call */
	unsigned char *data;     /* this thread's slot's data area */
	struct dc_fast_slot *slot;
	__u64 head;              /* bytes written, also published in the slot */
	__u64 room;              /* head may grow to this without reading the
	                            collector's tail (tail + capacity, as last
	                            read) */
	__u64 populated;         /* data bytes mapped in ahead of head */
	__u64 stalled;           /* the collector's tail + 1 when a wait for
	                            it ran out: no waiting again until the
	                            tail moves; 0: none */
	__u64 limit;             /* head may grow to this for a record
	                            without a look at room, the area's end
	                            or the pages mapped (fast.c set_limit);
	                            0 without a slot */
	int *errp;               /* this thread's errno */
	__u64 seq;
	__u32 tid;
	unsigned char state;     /* THR_*: no slot yet, a slot, none free */
	unsigned char busy;      /* writing a record: a signal handler's
	                            call then leaves its record in defer
	                            (fast.c BUSY_*); or DC_BUSY_VFORK */
	unsigned char quiet;     /* depth of the library's own work (fast.c
	                            quiet), and DC_QUIET_KERNEL while the
	                            kernel may have been told of it */
	unsigned char ndeferred; /* records waiting in defer, in order */
	__u16 defer_size[DC_DEFER_RECS];
	/* Records of calls a signal handler made while this thread was
	 * writing one (fast.c defer_record), written after it. */
	__u64 defer[DC_DEFER_RECS][DC_DEFER_BYTES / 8];
};

/* dc_thr.busy in a thread that called vfork(2), and so in its child,
 * which runs on the thread's memory until it execs or exits: the
 * child's calls are not recorded (vfork.c). */
#define DC_BUSY_VFORK 4

extern DC_HIDDEN __thread struct dc_thread dc_thr
	__attribute__((tls_model("initial-exec")));

struct dc_call {
	__u64 ts;
	__u64 seq;
	__u64 parent;
	int fn;
	int errno0;              /* errno before the call */
	int err;                 /* errno after it */
	__u8 evflags;            /* flags the record gets (DC_EVF_DTSIZE):
	                            set for the mpiio and hdf5 functions only */
	__u8 quiet;              /* the library's own work it came in (a
	                            signal handler's call): its quiet */
};

/* In struct dc_thread's quiet: the collector has been told (or is being
 * told) that the thread's system calls are the library's own, so a
 * signal handler's call that comes tells it otherwise first, even where
 * the depth is 0 already (fast.c quiet).  Depths stay below it. */
#define DC_QUIET_KERNEL 0x80

/* clock_gettime: the vDSO's own function once found (fast.c), which
 * skips libc's wrapper around it. */
extern DC_HIDDEN int (*dc_gettime)(clockid_t, struct timespec *);

/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns. */
static inline __attribute__((always_inline)) __u64 dc_now(void)
{
	struct timespec t;

	dc_gettime(CLOCK_MONOTONIC, &t);
	return (__u64)t.tv_sec * 1000000000ULL + (__u64)t.tv_nsec;
}

/* What function fn's record reads through its arguments at the call's
 * entry, as the kernel programs do (derive.c): a FILE's descriptor
 * (read before the call can close the FILE), a struct aiocb's request:
 * dc_fast_entry[fn] says which, as dc_entry_reads found them in its
 * plan. */
enum { DC_ENTRY_FILE = 1, DC_ENTRY_AIOCB = 2 };
DC_HIDDEN void dc_derive_entry(int fn, __u64 args[DC_MAX_ARGS], int nargs);
DC_HIDDEN unsigned char dc_entry_reads(const struct dc_fast_func_cfg *cfg);

extern DC_HIDDEN unsigned char dc_fast_entry[DC_FAST_NFUNCS];

/* The thread's call state at its first call (fast.c). */
DC_HIDDEN struct dc_client_tls *dc_thread_state(void);

/* The thread's call state becomes (cur, depth): in k, and at kp with one
 * 16-byte store made from registers, so the kernel never reads half of
 * a change.  Not a copy of k: a load of 16 bytes that spans the two
 * smaller stores just made to k cannot take its data from them, and
 * waits until they are written out (about 12 ns a call, the two
 * copies, measured in one process on W1). */
static inline __attribute__((always_inline)) void
dc_set_state(struct dc_thread *t, struct dc_client_tls *kp, __u64 cur,
	     __u32 depth)
{
	typedef __u64 state_words
		__attribute__((vector_size(16), aligned(8), may_alias));

	t->k.cur = cur;
	t->k.depth = depth;
	*(state_words *)kp = (state_words){ cur, depth | (__u64)t->k.flags << 32 };
}

/* A signal handler's call that came in the library's own work (quiet),
 * or as it ended: the program's, its system calls too, until dc_call_end
 * resumes the quiet it came in. */
DC_HIDDEN void dc_quiet_suspend(void);
DC_HIDDEN void dc_quiet_resume(unsigned char quiet);

/* The thread's next call number.  A signal handler's call may come
 * between a load and a store of it: one instruction adds and returns
 * (not locked: no other thread writes it), or an atomic add, so the
 * handler's call and the one it interrupted never share a number. */
static inline __attribute__((always_inline)) __u64
dc_next_seq(struct dc_thread *t)
{
#if defined(__x86_64__)
	__u64 v = 1;

	__asm__ __volatile__("xaddq %0, %1" : "+r"(v), "+m"(t->seq));
	return v + 1;
#else
	return __atomic_add_fetch(&t->seq, 1, __ATOMIC_RELAXED);
#endif
}

/* Open a call: it becomes the innermost on this thread, which the kernel
 * reads at the system calls it makes (so k, and its copy at kp, are
 * stored before they run). */
static inline __attribute__((always_inline)) void
dc_call_begin(struct dc_call *c, int fn, __u64 args[DC_MAX_ARGS], int nargs)
{
	struct dc_thread *t = &dc_thr;
	struct dc_client_tls *k = t->kp;

	c->fn = fn;
	if (__builtin_expect(dc_fast_entry[fn] != 0, 0))
		dc_derive_entry(fn, args, nargs);
	/* errno is cleared for the call and put back if the call does not
	 * set it: a call that fails without setting errno (fgets at the
	 * end of a file) has no errno in the trace, as on the uprobe path,
	 * and the program sees errno as the call left it. */
	if (__builtin_expect(t->errp == NULL, 0))
		t->errp = &errno;
	c->errno0 = *t->errp;
	*t->errp = 0;
	if (__builtin_expect(k == NULL, 0))
		k = dc_thread_state();
	c->parent = t->k.cur;
	c->seq = dc_next_seq(t) | DC_SEQ_CLIENT;
	dc_set_state(t, k, c->seq, t->k.depth + 1);
	if (__builtin_expect((c->quiet = t->quiet) != 0, 0))
		dc_quiet_suspend();
	__asm__ __volatile__("" ::: "memory");
	c->ts = dc_now();
}

/* Finish and record a call: it ends now (after it is no longer the
 * thread's innermost, so that whatever named it as parent is inside
 * it); ret as the C function returned it (sign-extended), its `nargs`
 * arguments as 64-bit values in an array of DC_MAX_ARGS, zero after them
 * (all are copied into the record), `str_index` the argument that is a
 * string (copied only when the spec asks for that argument), efault
 * when the call failed with EFAULT (the string is then not read).
 * errno is left as the call set it. */
DC_HIDDEN void dc_call_end(struct dc_call *c, __s64 ret,
			   const __u64 args[DC_MAX_ARGS], int nargs,
			   int str_index, int efault);

/* The next definition of a wrapped function (dlsym RTLD_NEXT), or abort
 * with one line if there is none: a wrapper cannot go on without it. */
DC_HIDDEN void *dc_real(const char *name);

/* Whether a collector records this process's calls (or, in a child of
 * vfork(2), its parent's, whose memory the child shares). */
DC_HIDDEN int dc_fast_joined(void);
/* Before an exec whose program will not load this library: the
 * collector's uprobes in its place, kept across the exec (fast.c);
 * program: its descriptor when its environment names the library, -1
 * when it does not. */
DC_HIDDEN void dc_fast_before_exec(int program);
/* The library's own work in this thread from here (on) or done (0):
 * not recorded as the program's (dc_client_quiet). */
DC_HIDDEN void dc_fast_quiet(int on);
/* ... and that exec failed. */
DC_HIDDEN void dc_fast_exec_failed(void);

/* The program an exec runs: path, relative to dirfd, looked up in PATH
 * when search (execvp's); or the descriptor fd (fexecve's), -1 if not. */
struct dc_exec_target {
	int dirfd;
	const char *path;
	int fd;
	bool search;
};

/* exec.c: whether a collector records this process and an exec of t
 * with envp would not load this library (its environment does not
 * preload it, or its program is static or set-ID: lib/preload.h). */
DC_HIDDEN bool dc_exec_unloaded(char *const envp[],
				const struct dc_exec_target *t);
/* The same, and if so the collector asked for the uprobes in the
 * library's place, before the exec: true when they were. */
DC_HIDDEN bool dc_exec_ask(char *const envp[], const struct dc_exec_target *t);
/* After an exec that returned r (it failed): if the uprobes were asked
 * for, the collector told to take them out.  Returns r. */
DC_HIDDEN int dc_exec_failed(bool asked, int r);

/* The next definition, resolved at first use: a wrapper may run before
 * this library's constructor (from another library's). */
#define REAL(fn)                                                            \
	(*({                                                                \
		if (__builtin_expect(real_##fn == NULL, 0))                 \
			real_##fn = (__typeof__(real_##fn))dc_real(#fn);    \
		real_##fn;                                                  \
	}))

/* How the collector told this process to record a function. */
DC_HIDDEN const struct dc_fast_func_cfg *dc_fast_func(int fn);

/* Copy n bytes of this process's memory that may not be readable: 0, or
 * -1 if they are not (derive.c). */
DC_HIDDEN int dc_safe_read(void *dst, __u64 src, size_t n);

/* The slot cfg derives at a call's return from its arguments (derive.c):
 * an iovec array's total, a string's length. */
DC_HIDDEN __u64 dc_derive(const struct dc_fast_func_cfg *cfg,
			  const __u64 *args, int nargs, int call_failed);

#endif /* DC_CLIENT_INTERNAL_H */

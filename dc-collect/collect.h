/*
 * collect.h - what dc-collect's BPF programs and its user-space half share:
 * map sizes and the per-probe configuration the programs read.
 *
 * Included from BPF (after vmlinux.h) and from user space (after
 * <linux/types.h>), like lib/event.h.
 */
#ifndef DC_COLLECT_H
#define DC_COLLECT_H

#define DC_MAX_PROBES 16384     /* probe ids the maps can hold */
#define DC_MAX_SYSCALLS 1024    /* syscall numbers the table covers */
#define DC_MAX_DEPTH 32         /* stored frames per thread; deeper calls
                                   are counted as dropped */
#define DC_MAX_SELECTED 65536   /* selected processes */
#define DC_STACK_SLOT_BITS 10   /* 2^N threads' stacks in the slot array
                                   (by tid); the others in task storage */
#define DC_MAX_CLIENT_DEPTH 1024 /* a client's claimed depth is cut here */
#define DC_MAX_MUTED 4096       /* threads doing the client library's
                                   own work at once (dc_client_quiet) */
#define DC_MAX_CLIENT_MAPS 4096 /* fast-path processes with a call-state
                                   map at once; more use their TLS */

/* The generations that void the programs' cached answers (the global
 * `gens`, common.bpf.h): user space moves them too. */
struct dc_gens {
	__u32 sel;               /* processes selected or deselected */
	__u32 fast;              /* processes joined the fast path */
	__u32 muted;             /* threads in the muted map now: 0, and
	                            no program looks there */
	__u32 reserved;
};

/* A process on the fast path (the fast_procs map, by tgid). */
struct dc_fast_proc {
	__s64 tls_off;           /* struct dc_client_tls at the thread
	                            pointer + tls_off */
	__u32 state;             /* its call-state map's index in
	                            client_states + 1; 0: none, the TLS */
	__u32 reserved;
};

/* Size of a record without an inline string: header + all arg slots. */
#define DC_EVENT_FIXED_SIZE (DC_EVENT_HDR_SIZE + 8 * DC_MAX_ARGS)

/* Per-probe configuration, indexed by probe id (the uprobe's cookie, or
 * the value of the syscall table). */
struct dc_probe_cfg {
	__u8 nargs;
	__u8 ret_kind;
	__u8 str_arg;            /* index of the path/string argument, or
	                            DC_NO_STR_ARG */
	__u8 derive;             /* DC_DERIVE_*: slots to read through */
	__u8 arg_kinds[DC_MAX_ARGS];
	__u8 str_arg2;           /* a second string (rename's new path,
	                            fopen's mode), copied after the first's
	                            NUL, or DC_NO_STR_ARG */
	__u8 remap;              /* uprobes: slot a is read from argument
	                            register regs[a], not register a (a
	                            checking version: lib/checking.h) */
	__u8 regs[DC_MAX_ARGS];
	__s64 stream_rel;        /* uprobes with a stdout or stdin slot:
	                            libc's variable's address less the
	                            function's; 0 unknown (load.c) */
};

#define DC_NO_STR_ARG 0xff
/* Argument kinds read at entry (a handle through its pointer, a FILE's
 * descriptor) and at return (iovec totals, string lengths, MPI datatype
 * sizes and status counts, a handle stored through a pointer). */
#define DC_DERIVE_ENTRY 0x01
#define DC_DERIVE_EXIT 0x02
/* glibc's struct _IO_FILE: _fileno on LP64 (public ABI: getc macros). */
#define DC_GLIBC_FILENO_OFF 112
/* The MPI libraries' datatype and status fields: lib/mpiabi.h. */
#include "mpiabi.h"
/* glibc's struct aiocb: lib/aioabi.h. */
#include "aioabi.h"

/* Record type of the ring only, never in the stream: a uprobe call of a
 * process on the fast path began (seq, ts, parent, depth = its level,
 * ret = the client's open calls then); dc-collect/nest.c. */
#define DC_EV_NEST_ENTER 0x80

/* Record type of the ring only: a per-CPU batch of kernel-layer records
 * (common.bpf.h, cpu_batch): this 8-byte mark (size 8, the type), then
 * the records one after another.  dc-collect/output.c unpacks it. */
#define DC_EV_BATCH 0x81
#define DC_BATCH_MARK 8
#define DC_BATCH_BYTES 4096     /* a batch's records, its mark included */
#define DC_BATCH_RECS 64        /* records in a batch at most: more than
                                   4096 bytes of the smallest hold */

/* A CPU's batch (cpu_batches, common.bpf.h). */
struct cpu_batch {
	__u64 busy;              /* a program is adding to it (64 bits:
	                            the width of BPF's compare-and-swap) */
	__u32 len;               /* bytes in data, the mark's included;
	                            0: empty */
	__u32 n;                 /* records */
	__u32 probe[DC_BATCH_RECS]; /* each record's probe: a failed send
	                            counts each lost */
	/* Room past the end for a record at any offset the verifier is
	 * shown (masked), never used. */
	__u8 data[DC_BATCH_BYTES + DC_EVENT_FIXED_SIZE];
};

/* What each CPU keeps, in a cache line written by that CPU alone (CPUs
 * emitting at once do not pass one line back and forth; past
 * DC_CPU_LINES CPUs two share one, which costs time, not correctness;
 * common.bpf.h):
 *  - the answers to "is this thread selected?" it last gave, so a
 *    thread making system calls in a row (selected or not: the syscall
 *    tracepoints fire for every thread on the host) asks the hash map
 *    once: tid << 32 | generation << 1 | selected, one 64-bit word, so
 *    a program preempted on the same CPU never reads half an answer (an
 *    answer holds whichever CPU gave it); a few, by tid: a traced thread
 *    and a bystander taking turns on one CPU keep theirs;
 *  - its looks at the ring (rb_flags: racy updates only make a look or
 *    a wakeup come a little early or late);
 *  - whether its batch holds records, for user space, which sends only
 *    those (output.c: a CPU with nothing pending is not interrupted).
 * One line for all: an event of a selected thread touches one line
 * fewer. */
#define DC_SEL_WAYS 4

struct dc_cpu_line {
	__u64 tag[DC_SEL_WAYS];  /* the selection answers */
	__u32 since;             /* records since the last look */
	__u32 batched;           /* its batch holds records (1), or not */
	__u64 seen;              /* the reader's position then */
	__u64 woken;             /* its position at this CPU's last
	                            wakeup, + 1; 0: none */
	__u64 pad;
};
/* Lines for as many CPUs as the largest machines have (256 KiB): past
 * them a drain interrupts every CPU, not only those holding records
 * (output.c), which on a node of 512 CPUs meant 512 interruptions a
 * drain, every 5 ms with clients (dc-collect says so at start). */
#define DC_CPU_LINES 4096

/* A generic tracepoint's cookie: its probe id, and this bit where its
 * program runs with preemption off (every tracepoint but the faultable
 * system-call ones), so its records may go into the CPU's batch. */
#define DC_COOKIE_BATCH (1ULL << 32)

/* One pending call on a thread's stack. */
struct dc_call_frame {
	__u32 probe_id;
	__u32 is_syscall;
	__u64 ts;
	__u64 seq;               /* this entry's number on the thread */
	__u64 parent;            /* seq of the call open around it, 0: none */
	__u32 level;             /* calls open around it (its record's depth) */
	__u32 cdepth;            /* fast path: the client's open calls then */
	__u32 client;            /* a uprobe call of a fast-path process */
	__u32 reserved;
	__u64 args[DC_MAX_ARGS];
};

/* A readahead whose pages are still being added (tracepoints.bpf.h). */
struct dc_ra_pending {
	__u64 ts;
	__u64 pid_tgid;
	__u64 ino;
	__u64 index;
	__u64 pages;             /* added to the page cache so far */
	__u64 parent;            /* seq of the call it began in, 0: none */
	__u32 dev;
	__u32 depth;
	__u32 probe_id;
	__u32 open;              /* pages still being counted */
	__u32 flags;             /* DC_EVF_ORPHAN if that call is unknown */
	__u32 reserved;
};

struct dc_stack {
	__u32 depth;             /* calls pending, may exceed DC_MAX_DEPTH */
	__u32 tls_none;          /* fast path: gens.fast << 1 | 1 when the
	                            thread's process was last found off it,
	                            0: never */
	__u64 last_seq;          /* entries numbered so far on the thread */
	__u64 client_tls;        /* fast path: address of the thread's
	                            struct dc_client_tls once found, 0 until
	                            then (cleared at exec) */
	__u64 owner;             /* a slot (stack_slots): tid + 1 of the
	                            thread whose stack it is, 0: free */
	struct dc_ra_pending ra; /* its readahead, while ra.open (beside
	                            depth: a page-cache add reads both) */
	struct dc_call_frame frames[DC_MAX_DEPTH];
	/* Last, off the lines every system call touches: */
	__u32 state;             /* with client_tls: its process's
	                            call-state map (struct dc_fast_proc) */
	__u32 state_slot;        /* the thread's entry there when last
	                            found, 0: none yet */
	__u32 tid;               /* ... and its tid then */
	__u32 reserved;
};

/* Counters kept per CPU (index into the `counters` per-CPU array).
 * Records written are counted by the reader, not here: one map update
 * less per event. */
enum dc_counter {
	DC_CNT_DROPPED = 0,      /* records lost, for any reason below or
	                            because the ring buffer was full */
	DC_CNT_DEPTH = 1,        /* calls lost: stack deeper than stored */
	DC_CNT_UNPAIRED = 2,     /* exits whose entry was never seen */
	DC_CNT_UNWOUND = 3,      /* entries whose exit was never seen */
	DC_CNT_NOSTACK = 4,      /* calls lost: no memory for a thread's
	                            stack */
	DC_CNT_BLOCK_UNKNOWN = 5,/* block completions whose request was never
	                            seen queued: emitted with pid 0 */
	DC_CNT_MAX
};

/* Kernel tracepoints with a program of their own (fields decoded into
 * arguments); any other tracepoint gets the generic program, which
 * records the instant only.  Index of the `tp_probe` table. */
enum dc_tracepoint {
	DC_TP_BIO_QUEUE,        /* block:block_bio_queue (who asked) */
	DC_TP_BLOCK_ISSUE,      /* block:block_rq_issue (when it started) */
	DC_TP_BLOCK_COMPLETE,   /* block:block_rq_complete (emits the I/O) */
	DC_TP_PC_ADD,           /* filemap:mm_filemap_add_to_page_cache */
	DC_TP_PC_DELETE,        /* filemap:mm_filemap_delete_from_page_cache */
	DC_TP_FAULT,            /* filemap:mm_filemap_fault */
	DC_TP_DIRTY,            /* writeback:writeback_dirty_folio */
	DC_TP_RA_SYNC,          /* readahead:page_cache_sync_ra */
	DC_TP_RA_ASYNC,         /* readahead:page_cache_async_ra */
	DC_TP_SOCK_SEND,        /* sock:sock_send_length */
	DC_TP_SOCK_RECV,        /* sock:sock_recv_length */
	DC_TP_SOCK_STATE,       /* sock:inet_sock_set_state */
	DC_TP_URING_SUBMIT,     /* io_uring:io_uring_submit_req */
	DC_TP_URING_COMPLETE,   /* io_uring:io_uring_complete */
	DC_TP_SKB_DROP,         /* skb:kfree_skb (a dropped packet) */
	/* Followed for the block group, never emitted on their own. */
	DC_TP_BLOCK_SPLIT,      /* block:block_split (a bio cut in two) */
	DC_TP_BIO_BACKMERGE,    /* block:block_bio_backmerge */
	DC_TP_BIO_FRONTMERGE,   /* block:block_bio_frontmerge */
	DC_TP_COUNT
};

/* Key of a block I/O from queueing to completion: its device and first
 * sector (a bio's, then its request's). */
struct dc_block_key {
	__u32 dev;
	__u32 reserved;
	__u64 sector;
};


/* Profile mode: the kernel sums calls per process and probe. */
#define DC_MAX_PROFILE 65536

struct dc_profile_key {
	__u32 pid;
	__u32 probe_id;
};

struct dc_profile_value {
	__u64 calls;
	__u64 dur_ns;
	__u64 bytes;
	__u64 errors;
};

/* Internal probe ids follow the spec's probes. */
enum dc_internal_probe {
	DC_IPROBE_FORK = 0,
	DC_IPROBE_EXEC = 1,
	DC_IPROBE_EXIT = 2,
	DC_IPROBE_REGISTER = 3,
	DC_IPROBE_COUNT
};

#endif /* DC_COLLECT_H */

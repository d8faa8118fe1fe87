/*
 * event.h - the event record shared by the BPF programs, dc-collect and
 * every stream reader.
 *
 * This header is included both from BPF C (after vmlinux.h) and from user
 * space (after <linux/types.h>), so it uses only the __u* types and defines
 * no functions.  An EVENTS frame of the stream (see dc-stream(5)) is a plain
 * concatenation of these records, in the byte order named by the stream
 * header; dc-collect copies ring-buffer records into frames unchanged.
 *
 * Records grow: a reader uses `size` to step to the next record, so later
 * versions may append fields after the argument slots without breaking old
 * readers, and new `type` values are skipped by readers that do not know
 * them.
 */
#ifndef DC_EVENT_H
#define DC_EVENT_H

/* Record types. */
enum dc_event_type {
	DC_EV_CALL = 1,     /* a complete call: entry time, duration, args, ret */
	/* 2 and 3 were unpaired entries and exits, which nothing writes
	 * since stream version 2: readers skip them as unknown types. */
	DC_EV_INSTANT = 4,  /* a point event (page fault, block completion...) */
	DC_EV_EXEC = 5,     /* a process called exec; string = new exe path */
	DC_EV_FORK = 6,     /* a selected process forked; args[0] = child pid */
	DC_EV_EXIT_PROC = 7,/* a selected process exited; ret = exit code */
	DC_EV_KPATH = 8,    /* the file a kernel function's call works on,
	                       sent at its entry: seq = that call's seq,
	                       string = its path, ret = 0 (1: a second
	                       path, vfs_rename's new name); dc-aggregate
	                       names the call with it and writes no record
	                       for it */
};

/* Flags (dc_event.flags). */
#define DC_EVF_STR_TRUNC   0x01 /* the inline string was cut at its limit */
#define DC_EVF_FAILED      0x02 /* the call failed (ret < 0 or NULL) */
#define DC_EVF_UNWOUND     0x04 /* exit never seen (longjmp, thread exit) */
#define DC_EVF_ASYNC       0x08 /* kernel work that may outlive the call it
                                   started in (block I/O): readers draw it
                                   on a track of its own */
#define DC_EVF_ORPHAN      0x10 /* its parent is not known: the kernel's
                                   call stack was deeper than it stores,
                                   or (after dc-aggregate) the parent's
                                   record was lost or out of reach */
#define DC_EVF_PARENT_DONE 0x20 /* written after its parent call returned
                                   (a readahead): the parent's record came
                                   before it */

/* Entry sequence numbers (dc_event.seq, .parent) made by the client
 * library have this bit set, so they never collide with the kernel's
 * numbering of the same thread. */
#define DC_SEQ_CLIENT (1ULL << 63)
#define DC_EVF_DTSIZE      0x80 /* the DC_ARG_DATATYPE slot holds the
                                   datatype's size, not its handle */

/* Argument kinds in a probe's argument plan (dc-probes(5)).  The same
 * numbers travel in PROBE frames; they say how to read and print a slot. */
enum dc_arg_kind {
	DC_ARG_NONE = 0,
	DC_ARG_FD = 1,      /* file descriptor */
	DC_ARG_SIZE = 2,    /* byte count */
	DC_ARG_OFFSET = 3,  /* file offset */
	DC_ARG_FLAGS = 4,   /* open(2)-style flags */
	DC_ARG_MODE = 5,    /* permission bits */
	DC_ARG_PATH = 6,    /* pointer to a NUL-terminated path: copied inline */
	DC_ARG_HANDLE = 7,  /* opaque handle (FILE *, hid_t, MPI_File) */
	DC_ARG_WHENCE = 8,  /* lseek whence */
	DC_ARG_INT = 9,     /* plain integer */
	DC_ARG_PTR = 10,    /* pointer, recorded but not dereferenced */
	DC_ARG_STR = 11,    /* pointer to a NUL-terminated non-path string */
	/* Kernel-layer fields, filled by dc-collect's tracepoint programs. */
	DC_ARG_DEV = 12,    /* device number (major << 20 | minor) */
	DC_ARG_SECTOR = 13, /* 512-byte sector */
	DC_ARG_INODE = 14,  /* inode number */
	DC_ARG_INDEX = 15,  /* page index in the file */
	DC_ARG_PAGES = 16,  /* number of pages */
	DC_ARG_OP = 17,     /* up to 8 ASCII characters packed little-endian,
	                       e.g. block "rwbs" ("WS", "R") */
	DC_ARG_FAMILY = 18, /* socket address family */
	DC_ARG_PROTOCOL = 19, /* IP protocol */
	DC_ARG_OLDSTATE = 20, /* TCP state before */
	DC_ARG_NEWSTATE = 21, /* TCP state after */
	DC_ARG_SPORT = 22,  /* source port */
	DC_ARG_DPORT = 23,  /* destination port */
	DC_ARG_OPCODE = 24, /* io_uring opcode */
	DC_ARG_REASON = 25, /* the kernel's drop reason (enum skb_drop_reason) */
	/* Arguments the collector reads through or derives at the call's
	 * entry or return (dc-probes(5)); byte accounting in lib/bytes.h. */
	DC_ARG_ISIZE = 26,  /* size of one item (fread/fwrite `size`) */
	DC_ARG_COUNT = 27,  /* number of items (fread nmemb, MPI count) */
	DC_ARG_IOV = 28,    /* struct iovec *, count in the next slot: the
	                       slot holds the total of iov_len, read at
	                       return; -1 if unreadable */
	DC_ARG_STRLEN = 29, /* const char * the call writes (fputs): the
	                       slot holds its length; -1 if unreadable */
	DC_ARG_STROUT = 30, /* char * the call fills (fgets): the slot holds
	                       the length of the string there at return, 0
	                       if the call failed */
	DC_ARG_DATATYPE = 31, /* MPI_Datatype: its size in bytes when the
	                       collector could resolve it (flag
	                       DC_EVF_DTSIZE), else the handle as passed */
	DC_ARG_MPISTATUS = 32, /* MPI_Status *: the bytes it reports at
	                       return; -1 if ignored or unknown */
	DC_ARG_HANDLE_OUT = 33, /* pointer to a handle the call stores
	                       (MPI_File_open's MPI_File *): the handle, read
	                       at return */
	DC_ARG_HANDLE_IN = 34, /* pointer to a handle (MPI_File_close's
	                       MPI_File *): the handle, read at entry */
	DC_ARG_FILE = 35,   /* glibc FILE *: the pointer; the FILE's file
	                       descriptor, read at entry, goes in the last
	                       slot (DC_MAX_ARGS - 1), which a plan with a
	                       FILE * argument leaves unused */
	DC_ARG_CHAR = 36,   /* a character the call writes (fputc) */
	DC_ARG_CMD = 37,    /* fcntl(2) command: the next slot means
	                       something only for commands that take an
	                       argument */
	DC_ARG_FDPAIR = 38, /* int[2] the call fills with two new file
	                       descriptors (pipe, pipe2, socketpair): the
	                       8 bytes there at return, fds[0] in the low 32
	                       bits and fds[1] in the high (little-endian);
	                       meaningful only if the call succeeded.  The
	                       BPF programs read it as a DC_ARG_HANDLE_OUT
	                       (dc-collect/load.c) */
	DC_ARG_AIOCB = 39,  /* struct aiocb * (POSIX AIO): the collector reads
	                       the request at the call's entry.  This slot
	                       holds its aio_fildes; the next slots, when
	                       the plan names them size, offset and op in
	                       that order, its aio_nbytes, aio_offset and
	                       operation (DC_ARG_OP: "R", "W", "F" for a
	                       sync, else 0).  The PROBE frame gives this
	                       slot as DC_ARG_FD: readers see a descriptor */
	DC_ARG_STDOUT = 40, /* the stream a call writes without naming it
	                       (printf, puts): no argument register; the
	                       slot holds the FILE * in libc's stdout at the
	                       call's entry, and is then a DC_ARG_FILE (its
	                       descriptor in the last slot).  The PROBE
	                       frame gives it as DC_ARG_FILE */
	DC_ARG_STDIN = 41,  /* the same for stdin (getchar) */
	DC_ARG_KIND_MAX
};

/* Return kinds. */
enum dc_ret_kind {
	DC_RET_NONE = 0,    /* void or not recorded */
	DC_RET_STATUS = 1,  /* 0 / -1 style status */
	DC_RET_SIZE = 2,    /* byte count, negative on failure */
	DC_RET_FD = 3,      /* new file descriptor */
	DC_RET_HANDLE = 4,  /* new handle (FILE *, hid_t): NULL/negative fails */
	DC_RET_OFFSET = 5,  /* resulting offset */
	DC_RET_INT = 6,
	DC_RET_ITEMS = 7,   /* items moved (fread, fwrite): bytes are
	                       ret x the DC_ARG_ISIZE argument */
	DC_RET_ALL = 8,     /* non-negative: all the bytes asked for moved
	                       (fputs, fputc); negative: failed */
	DC_RET_CODE = 9,    /* 0 success, any other value an error code
	                       (MPI) */
	DC_RET_CHAR = 10,   /* a character read (fgetc, getchar): one byte
	                       moved; negative (EOF): none, at the end or
	                       failed */
	DC_RET_KIND_MAX
};

/* Whether a call with this return kind failed: one rule for the BPF
 * programs, the client library and dc-aggregate's sums.  A handle fails
 * as NULL, MAP_FAILED or a negative hid_t. */
/* Whether an argument kind is a FILE * (DC_ARG_FILE), given or implied:
 * its descriptor travels in the last slot. */
static inline __attribute__((always_inline)) int
dc_arg_is_stream(__u8 kind)
{
	return kind == DC_ARG_FILE || kind == DC_ARG_STDOUT ||
	       kind == DC_ARG_STDIN;
}

/* Whether it is implied: libc's stdout or stdin when the call begins. */
static inline __attribute__((always_inline)) int
dc_arg_is_std_stream(__u8 kind)
{
	return kind == DC_ARG_STDOUT || kind == DC_ARG_STDIN;
}

static inline __attribute__((always_inline)) int
dc_call_failed(__u8 ret_kind, __s64 ret)
{
	if (ret_kind == DC_RET_HANDLE)
		return ret <= 0;
	if (ret_kind == DC_RET_NONE)
		return 0;
	if (ret_kind == DC_RET_CODE)
		return ret != 0;
	return ret < 0;
}

#define DC_MAX_ARGS 6        /* argument slots a probe may record */
#define DC_MAX_STR 4096      /* inline string limit (PATH_MAX) */

struct dc_event {
	__u16 size;      /* bytes of this record, header + args + string,
	                    a multiple of 8 */
	__u8 type;       /* enum dc_event_type */
	__u8 flags;      /* DC_EVF_* */
	__u32 probe_id;  /* which probe (PROBE frame) produced it */
	__u32 pid;       /* process id (tgid) */
	__u32 tid;       /* thread id */
	__u64 ts;        /* CLOCK_MONOTONIC ns at entry (or at the instant) */
	__u64 dur;       /* ns from entry to exit; 0 for instants */
	__s64 ret;       /* return value; syscalls: -errno on failure */
	__u16 depth;     /* nesting on this thread: 0 is outermost */
	__u16 str_len;   /* bytes of the inline string, without its NUL */
	__u8 nargs;      /* 64-bit argument slots after the header */
	__u8 reserved0;
	__u16 reserved1;
	__u32 file_id;   /* STRING frame id of the file this call works on;
	                    0 if unknown (filled in by dc-aggregate) */
	__s32 error;     /* errno of a failed call, 0 if none or unknown:
	                    the kernel's for a syscall; for a library call,
	                    that of the failed syscall it made (dc-aggregate) */
	/* The call tree.  From the collector: seq numbers the entries of
	 * one thread from 1 (0: this record is not an entry: an instant,
	 * async kernel work, a process record) and parent is the seq of
	 * the innermost call open on the thread when this record's call or
	 * instant began (0: none).  dc-aggregate rewrites both into ids
	 * unique in its output stream (the stream header says so,
	 * DC_STREAM_F_IDS): seq is this record's id, parent its parent's
	 * id or 0.  See dc-stream(5). */
	__u64 seq;
	__u64 parent;
	/* __u64 args[nargs]; then str_len bytes + NUL, padded to 8 */
};

#define DC_EVENT_HDR_SIZE 72

/* The client library's per-thread call state (lib/fastpath.h), at the
 * thread pointer + an offset the client tells the collector: the
 * innermost open wrapped call (its seq, 0 if none) and how many are open.
 * The collector's syscall program reads it to nest system calls under
 * the client's calls. */
struct dc_client_tls {
	__u64 cur;
	__u32 depth;
	__u32 flags;
};

/* The same state where the kernel reads it with plain loads: a BPF array
 * (BPF_F_MMAPABLE) dc-collect makes for each process on the fast path
 * and passes to it at the handshake; the client maps it.  Entry 0 is a
 * header; a thread claims one of the DC_CLIENT_SLOTS entries after it
 * (owner 0 -> its tid), the first free of DC_CLIENT_PROBE from
 * 1 + tid % DC_CLIENT_SLOTS, and keeps its state there, not in its TLS.
 * A thread that finds none free keeps it in its TLS and counts itself in
 * the header's overflow: the kernel then reads the TLS of a thread it
 * finds no entry for.  One cache line an entry: threads do not share
 * one.  Everything in it is the process's own claim. */
#define DC_CLIENT_SLOTS 256
#define DC_CLIENT_PROBE 4

struct dc_client_state {
	struct dc_client_tls k;
	__u32 owner;             /* tid of the thread it is, 0: free */
	__u32 overflow;          /* entry 0: threads without an entry */
	__u64 pad[5];
};

#define DC_EVENT_ARGS(ev) ((__u64 *)((char *)(ev) + DC_EVENT_HDR_SIZE))
#define DC_EVENT_STR(ev) \
	((char *)(ev) + DC_EVENT_HDR_SIZE + 8 * (ev)->nargs)

#endif /* DC_EVENT_H */

/*
 * aggregate.h - dc-aggregate's state, shared by its files:
 *
 *   dc-aggregate.c  the tool: options, signals, the files it opens
 *   aggregate.c  a run: inputs and headers, output, strings, probes,
 *                events, the END frame; the teardown
 *   files.c      what calls do to the file tables: processes, fds,
 *                handles, working directories, paths
 *   hold.c       events that wait for a /proc snapshot: their process's
 *                working directory, or its descriptors after an exec
 *   profile.c    --profile: calls summed into COUNTERS per interval
 *   read.c       reading the inputs: in time order, or a thread each
 *   calltree.c   ids and parents (calltree.h)
 *
 * All of the state is in one struct aggregator: aggregator_init,
 * aggregator_add_input for each input, aggregate, aggregator_free.
 */
#ifndef DC_AGG_AGGREGATE_H
#define DC_AGG_AGGREGATE_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>

#include "calltree.h"
#include "fdtable.h"
#include "hosts.h"
#include "stream.h"
#include "u64map.h"

#define REC_MAX 65536             /* struct dc_event.size is a u16 */

/* ---- what a probe does to the file tables ---- */

enum file_op {
	OP_NONE,
	OP_OPEN,         /* path in, fd out: open, openat, creat */
	OP_OPEN_HANDLE,  /* path in, handle out: fopen, H5Fopen */
	OP_NEW_FD,       /* fd out, no path: socket, eventfd, epoll... */
	OP_NEW_FDS,      /* two fds out through an int[2]: pipe, socketpair */
	OP_DUP,          /* fd in, fd out: dup, dup2, dup3 */
	OP_FCNTL,        /* F_DUPFD and F_DUPFD_CLOEXEC duplicate */
	OP_FDOPEN,       /* fd in, handle out */
	OP_CLOSE,        /* fd in, gone after the call */
	OP_CLOSE_HANDLE, /* handle in, gone after the call */
	OP_CLOSE_RANGE,  /* fds args[0]..args[1] gone */
	OP_CHDIR,
	OP_FCHDIR,
	OP_NEW_HANDLE,   /* handle in, handle out, same file: H5Dopen... */
};

/* What a call that makes descriptors makes (fdnames.c). */
enum made_kind {
	MADE_NONE,
	MADE_PIPE,       /* pipe:[PID.N], both ends */
	MADE_SOCKET,     /* socket:[PID.N] */
	MADE_MEMFD,      /* /memfd:NAME (deleted) */
	MADE_ANON,       /* one name for all: anon_inode:[eventfd] */
};

struct probe {
	uint32_t id;              /* in the output */
	unsigned char *frame;     /* its PROBE payload, with the output id */
	uint32_t len;
	uint8_t nargs, ret_kind;
	uint8_t arg_kinds[8];
	enum file_op op;
	int path_arg, dirfd_arg, fd_arg, handle_arg; /* -1: none */
	int handle_out_arg;       /* a handle stored through a pointer */
	int path2_arg, dirfd2_arg; /* rename's new path and its dirfd */
	uint8_t path_second;      /* its path is the record's second string
				     (symlink: the target comes first) */
	int file_arg;             /* a FILE *: its fd in the last slot */
	int copy_in_arg, copy_out_arg; /* a copy between two fds (sendfile,
				       copy_file_range, splice, tee): the fd
				       it reads and the one it writes */
	int fdpair_arg;           /* the int[2] a pipe fills, -1: none */
	uint8_t made;             /* enum made_kind */
	uint8_t has_str;          /* a string argument (memfd's name) */
	const char *made_anon;    /* MADE_ANON's name */
};

/* ---- per input ---- */

struct input {
	const char *name;
	int fd;
	struct dc_reader *r;
	struct dc_stream_info info;
	int64_t delta;            /* add to its times to get output times */
	int header_ok;
	struct u64map probes;     /* input probe id -> struct probe * */
	struct u64map strings;    /* input string id -> output string id */
	int status;               /* final dc_read_status */
	char err[512];
	int saw_end;
	uint64_t end_dropped, drops_max, end_ts;
	int damaged;              /* a frame's payload made no sense */
	int has_ids;              /* its events carry stream ids already */
	struct calltree tree;     /* else: its call tree */
	struct snapshot *snapshots; /* /proc's, waiting for their time
	                            (fdtable.h) */
	struct u64map kpaths;     /* (tid, seq) -> output string id: the
	                             file of a kernel call not yet arrived */
	struct u64map kpaths2;    /* the same for its second path (the new
	                             name of a vfs_rename) */
	unsigned held_procs;      /* processes whose events wait (hold.c) */
	unsigned cwd_probes;      /* 1: it traces chdir, 2: fchdir */
};

/* ---- per process and thread ---- */

struct proc {
	char *cwd;                /* NULL: unknown */
	/* The cwd came from the stream itself (inherited at a fork, set
	 * by chdir/fchdir): a PROCESS frame's, read from /proc later,
	 * must not replace it (dc-aggregate(1)). */
	int cwd_from_stream;
	/* The directory before the last chdir or fchdir, and when that
	 * call ended: a call begun before then (the library's chdir()
	 * around the system call) saw the one before (files.c). */
	char *cwd_prev;
	uint64_t cwd_since;
	struct u64map fds;        /* fd -> output string id, FD_* (fdtable.h) */
	/* Each fd's file before the call that last set it, and when that
	 * call returned: a call on the fd begun before then (another
	 * thread's close, which freed the fd for it, or a read or write in
	 * flight across the reuse) is on the file before (files.c). */
	struct u64map fd_prev;    /* fd -> output string id, 0: none */
	struct u64map fd_since;   /* fd -> that call's end, ts + dur */
	struct u64map handles;    /* handle -> output string id */
	/* The fd the last close removed, its file, and the id of the call
	 * that close was made in: a library close() or fclose() arrives
	 * after the close syscall it made (children come first) and names
	 * the same file; no other call on that fd does, it is not open any
	 * more. */
	int64_t closed_fd;
	uint32_t closed_file;
	uint64_t closed_in;
	/* Its events waiting for its working directory or, after an exec,
	 * for the descriptors /proc showed then (hold.c). */
	unsigned char *held;
	size_t held_len, held_cap;
	/* It execed and the snapshot read after is pending: the exec's
	 * time, on the input's clock. */
	int exec_waits;
	uint64_t exec_at;
	/* The PROCESS payload passed on last for it, or NULL. */
	unsigned char *desc;
	size_t desc_len;
	/* Where a working directory could have come from: a FORK (its
	 * parent's), a PROCESS frame that had one (/proc, read in time). */
	int forked, described_cwd;
	/* A relative path of its was kept as written for want of either
	 * (counted once in the aggregator's). */
	int cwd_missed;
	/* The pipes and sockets it made so far, which name them
	 * (fdnames.c). */
	uint32_t made;
};

/* ---- all of it ---- */

struct item;

struct aggregator {
	struct input *inputs;
	unsigned n_inputs;
	struct host_view *host_views; /* per input: hosts kept apart */
	struct u64map procs;      /* input << 32 | pid -> struct proc * */

	/* output */
	int out_fd;               /* the stream (not with opt_text: stdout) */
	int opt_text;
	struct u64map text_strings; /* --text: STRING id -> char * */
	uint64_t opt_profile;     /* --profile interval in ns; 0: off */
	struct dc_writer *writer;
	unsigned char *batch;     /* events not yet in a frame */
	size_t batch_len;
	uint64_t *rec;            /* the event being rewritten (REC_MAX) */
	uint64_t events_out;
	uint64_t last_ts;         /* latest event end written */
	uint64_t counters_out;    /* counter entries written */
	uint32_t end_flags;       /* the inputs' END flags, or-ed */
	struct proc *cwd_moved;   /* the event just tracked moved its
	                             process's working directory */
	/* Relative paths kept as written, the working directory unknown,
	 * and the processes they were of: said at the end. */
	uint64_t cwd_missed_paths;
	unsigned cwd_missed_procs;

	/* probes and strings of the output */
	struct u64map out_probes; /* output probe id -> struct probe * */
	struct u64map probe_index; /* hash of a PROBE payload -> probe */
	uint32_t next_probe_id;
	struct u64map string_vals; /* id -> value */
	struct u64map string_index; /* hash of a value -> id */
	uint32_t next_string_id;

	/* --profile */
	uint64_t profile_base;    /* where interval 0 starts */
	struct u64map intervals;  /* (uint64_t)k -> struct interval * */

	/* frames from the reader threads (read.c) */
	pthread_mutex_t queue_lock;
	pthread_cond_t queue_filled, queue_drained;
	struct item *queue_head, *queue_tail;
	size_t queue_bytes;
};

/* Output strings: ids an input chose are kept when free, up to
 * ID_KEEP_MAX, so a hostile id cannot make the next one wrap. */
#define ID_KEEP_MAX 0x7fffffffu

#define KEY(in, id) (((uint64_t)(in) << 32) | (uint32_t)(id))
#define PTR(v) ((void *)(uintptr_t)(v))
#define VAL(p) ((uint64_t)(uintptr_t)(p))

/* aggregate.c */
/* An empty aggregator writing its stream to out_fd; the options
 * (opt_text, opt_profile) are set next, then the inputs added. */
void aggregator_init(struct aggregator *ag, int out_fd);
/* An input read from fd (named name in messages), which its caller
 * closes after aggregator_free. */
void aggregator_add_input(struct aggregator *ag, const char *name, int fd);
/* Read every input to its end and write the output: the exit status
 * (dc-aggregate(1)). */
int aggregate(struct aggregator *ag);
/* Free all that ag holds; out_fd and the inputs' fds stay open. */
void aggregator_free(struct aggregator *ag);
void out_frame(struct aggregator *ag, uint16_t type, const void *data,
	       uint32_t len);
void out_event(struct aggregator *ag, const struct dc_event *ev);
void flush_events(struct aggregator *ag);
void out_flush(struct aggregator *ag);
const char *string_value(struct aggregator *ag, uint32_t id);
/* The output id of a string, written as a STRING frame the first time;
 * `prefer` is an id to keep if it is still free (an input's own id). */
uint32_t intern(struct aggregator *ag, const char *s, size_t len,
		uint32_t prefer);
void damaged(struct input *in, const char *what, uint64_t offset);
struct probe *probe_of(struct aggregator *ag, uint32_t out_id);
void handle_frame(struct aggregator *ag, unsigned idx,
		  const struct dc_frame *f);

/* files.c */
void classify(struct probe *p, const char *name);
/* The path an event of pr names inline, and its length (event_path's
 * string: the second one when pr->path_second); NULL if none. */
const char *event_path_str(const struct probe *pr, const struct dc_event *ev,
			   size_t *len);
/* The fds call ev, finished, opened, duplicated onto or closed (failed
 * or not): their count (0 to 2) in fds, and those from range[0] to
 * range[1] (none if range[0] > range[1]). */
int op_changed_fds(const struct probe *pr, const struct dc_event *ev,
		   int64_t fds[2], int64_t range[2]);
/* fd set by call ev to file (0: a file without a name we know). */
void set_fd(struct proc *p, int64_t fd, uint32_t file,
	    const struct dc_event *ev);

/* fdnames.c */
/* What a probe of this name makes: p->made, made_anon, fdpair_arg. */
void classify_made(struct probe *p, const char *name);
/* A call that made descriptors (OP_NEW_FD, OP_NEW_FDS) and succeeded:
 * name them in p's table, and ev after them if it names no file. */
void name_made_fds(struct aggregator *ag, struct proc *p,
		   const struct probe *pr, struct dc_event *ev);
/* The two descriptors of a pipe or socketpair that succeeded, from its
 * DC_ARG_FDPAIR slot; 0 if the slot could not be read (two equal
 * descriptors: the collector read none). */
int made_pair(const struct probe *pr, const struct dc_event *ev,
	      int32_t fds[2]);
/* The directory fd a relative path of ev is taken against: the fd in
 * slot dirfd_arg (-1: none), else AT_FDCWD (the working directory). */
int event_dirfd(const struct dc_event *ev, int dirfd_arg);
struct proc *get_proc(struct aggregator *ag, unsigned in, uint32_t pid,
		      int create);
void drop_proc(struct aggregator *ag, unsigned in, uint32_t pid);
/* Free every process, at the end (no events are released). */
void procs_free(struct aggregator *ag);
void handle_process(struct aggregator *ag, unsigned idx,
		    const struct dc_frame *f);
void handle_fds(struct aggregator *ag, unsigned idx, const struct dc_frame *f);
/* Apply idx's snapshots taken before upto (its clock), as its events
 * pass their time. */
void apply_snapshots(struct aggregator *ag, unsigned idx, uint64_t upto);
/* Set ev->file_id and, for a finished call, update the tables. */
void track_files(struct aggregator *ag, unsigned in, const struct probe *pr,
		 struct dc_event *ev, int finished);
/* An exec: p's description is the new program's if the collector sent
 * it (right before the EXEC record), else none is known. */
void exec_desc(struct proc *p, const struct dc_event *ev);
/* After writing ev, if it moved its process's working directory
 * (ag->cwd_moved): describe the process again from ev's end on. */
void describe_moved(struct aggregator *ag, const struct dc_event *ev);

/* hold.c */
/* Keep ev (stamped, file tables not yet applied) if its process waits
 * for its working directory, or should from ev on; 1 if kept.  Any
 * other event of a waiting process lets its events go first. */
int hold_event(struct aggregator *ag, unsigned idx, const struct probe *pr,
	       const struct dc_event *ev);
/* Let pid's waiting events go, in order, through the file tables and
 * out: cwd is the directory /proc showed after them (NULL: unknown). */
void hold_release(struct aggregator *ag, unsigned idx, uint32_t pid,
		  const char *cwd);
/* A process that execed, with s the snapshot of descriptors read after
 * it (NULL: none came): name from the exec on the descriptors its held
 * events leave alone (fdtable.h), and wait no more. */
void hold_exec_settle(struct aggregator *ag, struct proc *p,
		      const struct snapshot *s);
/* The input ends: every waiting process gets its pending snapshot's
 * directory. */
void hold_release_input(struct aggregator *ag, unsigned idx);

/* profile.c */
void profile_event(struct aggregator *ag, const struct dc_event *ev);
/* Write the intervals as COUNTERS frames and free them. */
void profile_write(struct aggregator *ag);
/* Free intervals not written (a run that stopped before its end). */
void profile_free(struct aggregator *ag);
uint64_t parse_interval(const char *s);

/* read.c */
void read_threaded(struct aggregator *ag);
void read_in_turn(struct aggregator *ag);

#endif /* DC_AGG_AGGREGATE_H */

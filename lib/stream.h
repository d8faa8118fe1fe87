/*
 * stream.h - the framed binary stream that connects the datacrumbs tools.
 *
 * A stream is a header followed by frames.  dc-stream(5) documents every
 * byte; this header is the one implementation of it.  In short:
 *
 *   header   magic "\x89DCS\r\n\x1a\n", version, header size, byte-order
 *            mark, clock offset, start time, host name, run id
 *   frame    u16 type, u16 flags, u32 length, u32 crc32(payload),
 *            u32 reserved, then `length` payload bytes
 *
 * Every multi-byte integer is in the writer's byte order, recorded by the
 * byte-order mark; a reader on the other byte order refuses the stream.
 * Readers skip frame types they do not know, so frames can be added.
 */
#ifndef DC_STREAM_H
#define DC_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "event.h"

#define DC_STREAM_MAGIC "\x89" "DCS\r\n\x1a\n"
#define DC_STREAM_MAGIC_LEN 8
#define DC_STREAM_VERSION 2      /* 2: event records of 72 bytes (seq, parent) */
#define DC_BYTE_ORDER_MARK 0x01020304u
#define DC_FRAME_HDR_SIZE 16
#define DC_FRAME_MAX (16u << 20) /* larger lengths mean corruption */
#define DC_NAME_MAX 255          /* host name and run id limit */

enum dc_frame_type {
	DC_FRAME_EVENTS = 1,  /* concatenated struct dc_event records */
	DC_FRAME_STRING = 2,  /* u32 id, then the string's bytes */
	DC_FRAME_PROCESS = 3, /* struct dc_process_rec + strings */
	DC_FRAME_PROBE = 4,   /* struct dc_probe_rec + strings */
	DC_FRAME_DROPS = 5,   /* struct dc_drops_rec + entries */
	DC_FRAME_END = 6,     /* struct dc_end_rec: last frame of a stream */
	DC_FRAME_SYSINFO = 7, /* pairs of strings: key, value */
	DC_FRAME_FILE = 8,    /* struct dc_file_rec + path: fs snapshot */
	DC_FRAME_FDS = 9,     /* struct dc_fds_rec + entries: open files */
	DC_FRAME_COUNTERS = 10, /* struct dc_counters_rec + entries: profile */
};

/* Exit statuses shared by every tool (EXIT STATUS in each man page). */
enum dc_exit {
	DC_EXIT_OK = 0,
	DC_EXIT_FAILURE = 1,   /* a system error: I/O, memory, BPF load */
	DC_EXIT_USAGE = 2,     /* bad options or arguments */
	DC_EXIT_TRUNCATED = 3, /* input ended early; everything complete kept */
	DC_EXIT_BADINPUT = 4,  /* malformed input: magic, version, corruption,
	                          bad YAML/JSON, not an ELF file */
	DC_EXIT_SIGNATURE = 5, /* unsigned, tampered or wrongly keyed spec */
};

/* What a stream header says. */
struct dc_stream_info {
	uint16_t version;
	int64_t clock_offset_ns; /* wall-clock ns = monotonic ns + offset */
	uint64_t start_mono_ns;  /* monotonic ns when the stream began */
	uint32_t flags;          /* DC_STREAM_F_* */
	char host[DC_NAME_MAX + 1];
	char run_id[DC_NAME_MAX + 1];
};

/* Probe kinds (dc_probe_rec.kind). */
enum dc_probe_kind {
	DC_PROBE_UPROBE = 1,     /* entry + return uprobe on a function */
	DC_PROBE_USDT = 2,       /* USDT note */
	DC_PROBE_SYSCALL = 3,    /* a system call, via raw syscall tracepoints */
	DC_PROBE_TRACEPOINT = 4, /* a kernel tracepoint */
	DC_PROBE_KFUNC = 5,      /* a kernel function (kprobe or fentry) */
	DC_PROBE_INTERNAL = 6,   /* records made by datacrumbs itself */
};

struct dc_probe_rec {
	uint32_t id;
	uint16_t kind;           /* enum dc_probe_kind */
	uint8_t nargs;
	uint8_t ret_kind;        /* enum dc_ret_kind */
	uint8_t arg_kinds[8];    /* enum dc_arg_kind, nargs used */
	uint64_t offset;         /* uprobe file offset; syscall number */
	/* then strings: layer (becomes cat), function name, target */
};

struct dc_process_rec {
	uint32_t pid;
	uint32_t ppid;
	uint32_t uid;
	uint32_t gid;
	int32_t rank;            /* MPI rank from the environment, -1 if none */
	uint32_t flags;          /* DC_PROC_F_* */
	uint64_t start_mono_ns;  /* since: the description holds from this
	                            time on (the fork, the exec, or when the
	                            collector began following it); 0 unknown */
	/* then strings: exe, cmdline (arguments separated by NUL), cwd,
	 * job; then u64 taken (dc_snapshot_taken) */
};

/* PROCESS flags.  A child runs its parent's program until it execs, so
 * the collector describes it at the fork with its parent's description,
 * never with what /proc says later. */
#define DC_PROC_F_FORKED 0x1 /* its parent's description, at the fork */
#define DC_PROC_F_EXEC   0x2 /* read after an exec: the new program */

enum dc_drops_kind {
	DC_DROPS_PER_CPU = 1,
	DC_DROPS_PER_PROBE = 2,
	DC_DROPS_PER_PROCESS = 3, /* client records (fast path), key = pid */
	DC_DROPS_UNATTRIBUTED = 4, /* not lost: events kept without the
	                              process they belong to, key = enum
	                              dc_unattributed; total is the stream's
	                              loss total, as in the other kinds */
};

/* Why an event could not be attributed (DC_DROPS_UNATTRIBUTED keys). */
enum dc_unattributed {
	DC_UNATTR_BLOCK = 1,     /* block requests completed that were never
	                            seen queued (in flight when tracing
	                            began): kept with pid 0 */
};

struct dc_drops_rec {
	uint64_t total;
	uint32_t count;          /* entries that follow */
	uint32_t kind;           /* enum dc_drops_kind */
	/* then count x struct dc_drops_entry */
};

struct dc_drops_entry {
	uint32_t key;            /* CPU number, probe id or process id */
	uint32_t reserved;
	uint64_t dropped;
};

/* Stream header flags (dc_stream_info.flags). */
#define DC_STREAM_F_IDS 0x1  /* event seq/parent are stream-unique ids
                                (dc-aggregate), not per-thread entry
                                numbers (dc-collect) */

#define DC_END_INPUT_TRUNCATED 0x1 /* an upstream stream ended early */
#define DC_END_INPUT_CORRUPT   0x2 /* an upstream stream had a bad frame */
#define DC_END_INTERRUPTED     0x4 /* stopped by a signal */

struct dc_end_rec {
	uint64_t events;         /* event records in this stream */
	uint64_t dropped;        /* events known lost before this stream */
	uint64_t end_mono_ns;
	uint32_t flags;          /* DC_END_* */
	uint32_t reserved;
};

/* The open file descriptors of a process when it was described; each
 * entry is an int32 fd followed by its path as a payload string. */
struct dc_fds_rec {
	uint32_t pid;
	uint32_t count;
	/* then count x (int32 fd, string path); then u64 taken */
};

/* When a PROCESS or FDS payload's facts were read (monotonic ns): the
 * u64 after its last string or entry.  Streams written before it was
 * added end there; for them this returns 0 (take the facts as read
 * where the frame stands in the stream), and 0 for a payload too short
 * for its strings or entries.  type: DC_FRAME_PROCESS or DC_FRAME_FDS. */
uint64_t dc_snapshot_taken(uint16_t type, const unsigned char *data,
			   size_t len);

/* Profile mode: per process and probe, what happened in one interval.
 * The kernel sums instead of sending every call; one frame per interval
 * with the entries that saw calls. */
struct dc_counters_rec {
	uint64_t start_mono_ns;  /* interval start, monotonic clock */
	uint64_t interval_ns;
	uint32_t count;          /* entries that follow */
	uint32_t reserved;
	/* then count x struct dc_counter_entry */
};

struct dc_counter_entry {
	uint32_t pid;
	uint32_t probe_id;
	uint64_t calls;          /* calls completed in the interval */
	uint64_t dur_ns;         /* their summed duration */
	uint64_t bytes;          /* summed positive returns of size-returning
	                            calls (DC_RET_SIZE) */
	uint64_t errors;         /* calls that failed */
};

struct dc_file_rec {
	uint64_t size;
	uint64_t inode;
	uint64_t dev;
	int64_t mtime_ns;
	uint32_t mode;
	uint32_t reserved;
	/* then string: path */
};

/* A frame as the reader hands it out; data stays valid until next read. */
struct dc_frame {
	uint16_t type;
	uint16_t flags;
	uint32_t len;
	const unsigned char *data;
	uint64_t offset;         /* stream offset of the frame header */
};

/* ---- writing ---- */

struct dc_writer;

/* Fill info with this host, now and the given run id (may be NULL). */
void dc_stream_info_init(struct dc_stream_info *info, const char *run_id);

/* Start a stream on fd: writes the header.  NULL and errno on failure. */
struct dc_writer *dc_writer_open(int fd, const struct dc_stream_info *info);
/* Append one frame (buffered).  0, or -1 with errno set. */
int dc_writer_frame(struct dc_writer *w, uint16_t type, const void *data,
		    uint32_t len);
/* Append a frame from pieces, to avoid a copy (one of 64 KiB or more in
 * at most DC_WRITER_PARTS_MAX pieces is written from them, not copied). */
#define DC_WRITER_PARTS_MAX 8
int dc_writer_framev(struct dc_writer *w, uint16_t type,
		     const void *const *parts, const uint32_t *lens, int n);
/* A frame built in place, with no copy: dc_writer_begin makes room for
 * a payload of up to max bytes (at most 1 MiB less 24; it may write what
 * is buffered) and returns where it goes, or NULL with errno set;
 * dc_writer_end closes the frame with the first len bytes there (len <=
 * max).  Nothing else may be written to w in between; a frame begun and
 * not ended is not written. */
void *dc_writer_begin(struct dc_writer *w, uint32_t max);
void dc_writer_end(struct dc_writer *w, uint16_t type, uint32_t len);
int dc_writer_flush(struct dc_writer *w);
/* Flush and free; does not close fd.  0, or -1 with errno set. */
int dc_writer_close(struct dc_writer *w);
uint64_t dc_writer_bytes(const struct dc_writer *w);

/* ---- reading ---- */

enum dc_read_status {
	DC_READ_FRAME = 1,     /* a frame was returned */
	DC_READ_EOF = 0,       /* clean end: end of input after an END frame */
	DC_READ_TRUNCATED = -1,/* input ended inside a frame or before END */
	DC_READ_CORRUPT = -2,  /* bad length or checksum */
	DC_READ_ERROR = -3,    /* read(2) failed */
	DC_READ_BADHDR = -4,   /* bad magic, version or byte order */
};

struct dc_reader;

/* name is used in messages ("-" or a path). */
struct dc_reader *dc_reader_open(int fd, const char *name);
/* Read and check the header.  DC_READ_FRAME (1) on success. */
int dc_reader_header(struct dc_reader *r, struct dc_stream_info *info);
int dc_reader_next(struct dc_reader *r, struct dc_frame *frame);
/* One line (no newline) saying what went wrong, for the last result. */
const char *dc_reader_error(const struct dc_reader *r);
void dc_reader_close(struct dc_reader *r);

/* Map a read status to the documented exit status. */
int dc_read_exit_status(int status);

/* ---- payload helpers ---- */

/* Strings inside payloads are a u16 length then the bytes, no NUL. */
size_t dc_put_str(unsigned char *buf, size_t cap, size_t pos, const char *s,
		  size_t len);
/* Read one payload string; returns new pos or 0 if malformed.  *s points
 * into the payload (not NUL-terminated); *len gets its length. */
size_t dc_get_str(const unsigned char *buf, size_t len, size_t pos,
		  const char **s, size_t *slen);

/* Check that an EVENTS payload is a well-formed sequence of records. */
int dc_events_valid(const unsigned char *data, uint32_t len);

#endif /* DC_STREAM_H */

/*
 * trace-impl.h - what dc-write's trace files share (trace.h is the
 * interface to the rest of dc-write):
 *
 *   trace.c    frames in: events, drops, counters, the end; life cycle
 *   tables.c   probes, strings and processes of the stream, and their
 *              metadata lines (HH, FH, SH, PR, process and thread names)
 *   outputs.c  the output files: names, creation, rotation, closing
 *              (the end event)
 *   json.h     number and string formatting
 */
#ifndef DC_WRITE_TRACE_IMPL_H
#define DC_WRITE_TRACE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "callargs.h"
#include "gzout.h"
#include "json.h"
#include "messages.h"
#include "stream.h"
#include "trace.h"
#include "u64map.h"

#define META_CAT "datacrumbs"
#define PROBE_ID_MAX 65536   /* larger probe ids are refused */
#define LINE_SLACK 768       /* bound on a line besides its strings */
#define ASYNC_TID_BASE (1u << 30) /* tids of async lanes (dc-trace(5)) */
#define ASYNC_LANES 64

struct probe {
	int defined;
	uint8_t nargs, ret_kind;
	uint8_t kinds[DC_MAX_ARGS];
	char *name, *cat;        /* raw, for counter samples */
	char *cat_json;          /* "POSIX" with quotes */
	char *drop_key;          /* "POSIX/write" with quotes, for drops */
	size_t cat_json_len;
	char *prefix;            /* ,"name":"write","cat":"POSIX","pid": */
	size_t prefix_len;
	char key[DC_MAX_ARGS][24]; /* ,"fd":  empty: not printed */
	uint8_t key_len[DC_MAX_ARGS];
	int path_slot, str_slot; /* -1 if none */
	int str2_slot;           /* a second inline string (rename, fopen) */
	int copy_str;            /* two fds, no string, a byte count: its
				    string is the file it writes, which
				    dc-aggregate puts there (a copy) */
	struct callargs ca;      /* slots that may mean nothing; bytes */
};

struct string {
	uint64_t hash;
	char *json;              /* the quoted, escaped string */
	size_t json_len;
};

struct process {
	uint32_t pid, ppid, uid, gid;
	int32_t rank;
	uint32_t version;        /* bumped on every change, from 1 */
	uint64_t since;          /* monotonic ns the description holds
	                            from (fork, exec); 0 unknown */
	uint32_t pflags;         /* DC_PROC_F_*: forked, exec'd */
	char *exe, *cmdline, *cwd; /* raw bytes; cmdline NUL-separated */
	size_t exe_len, cmdline_len, cwd_len;
	char *job;               /* batch job: key=value pairs, NUL-separated */
	size_t job_len;
	uint64_t hhash;          /* its host's, in a merge of hosts; 0: t's */
	const char *host;        /* into job */
	size_t host_len;
};

struct output {
	struct gzout *gz;
	uint32_t pid;            /* split by pid: the pid; else 0 */
	char *path;              /* current file */
	int number;              /* rotation: 0, 1, 2... */
	uint64_t own_lines;      /* dc-write's own lines so far (odd ids) */
	uint64_t objects;        /* lines so far, for the end event */
	uint64_t events;         /* stream events in this file */
	uint64_t start_us;
	int chunk_closed;        /* a chunk went out since the last check */
	char *reserved_end;      /* end of the space reserved for a line */
	struct u64map described; /* FH/SH hash << 1 | is FH */
	struct u64map threads;  /* tids described */
	struct u64map procs;    /* pid -> process version described */
	uint32_t cache_pid, cache_tid, cache_gen;
	int cache_ok;             /* cache_pid/tid were described (any value
	                            is a pid: no sentinel) */
	uint64_t cache_hash;     /* the last key described + 1; 0: none */
};

/* The async lanes of one process: when each lane's last event ended. */
struct lanes {
	uint64_t end[ASYNC_LANES];
	unsigned used;
};

struct trace {
	struct trace_opts opts;
	struct dc_stream_info info;
	char *base, *ext;        /* output path split for derived names */
	uint64_t hhash;
	char *host_json, *run_json;
	size_t host_json_len, run_json_len;
	struct probe *probes;
	size_t nprobes;
	struct probe unknown;    /* for probe ids above PROBE_ID_MAX */
	struct u64map string_ids; /* id -> index + 1 */
	struct string *strings;
	size_t nstrings, strings_cap;
	struct u64map proc_ids; /* pid -> index + 1 */
	struct process *procs;
	size_t nprocs, procs_cap;
	uint32_t proc_gen;       /* bumped on any process change */
	struct output **outs;
	size_t nouts;
	struct u64map out_ids;  /* pid -> index + 1 (split by pid) */
	struct u64map lane_ids; /* pid -> index + 1 into lanes */
	struct lanes *lanes;
	size_t nlanes, lanes_cap;
	uint64_t events_in;
	uint64_t orphans;        /* events whose parent is unknown */
	uint64_t unattributed;   /* events kept without their process
	                            (DROPS frames of kind unattributed) */
	uint64_t drops_cpu;      /* sum of per-CPU DROPS frame totals */
	uint64_t drops_probe;    /* sum of per-probe DROPS frame totals */
	int have_end;
	struct dc_end_rec end;
	uint64_t last_us;        /* latest event time seen, for ends */
	int warned_unknown_probe, warned_unknown_string, warned_type;
};

/* Wall-clock us of a monotonic ns time.  Any stream may hold any
 * values: the sum is taken without overflow, and kept between 0 and
 * INT64_MAX ns (times are signed 64-bit in JSON, dc-trace(5)). */
static inline uint64_t to_us(const struct trace *t, uint64_t mono_ns)
{
	int64_t off = t->info.clock_offset_ns;
	uint64_t ns;

	if (off >= 0) {
		ns = mono_ns + (uint64_t)off;
		if (ns < mono_ns)
			ns = UINT64_MAX;
	} else {
		uint64_t back = (uint64_t)0 - (uint64_t)off;

		ns = mono_ns > back ? mono_ns - back : 0;
	}
	if (ns > (uint64_t)INT64_MAX)
		ns = (uint64_t)INT64_MAX;
	return ns / 1000;
}

/* ---- lines ---- */

static inline void commit(struct output *o, char *start, char *end, uint64_t id)
{
	/* Every line is formatted into space reserved for its bound. */
	if (end > o->reserved_end)
		die("internal error: a line of %zu bytes overran its %zu",
		    (size_t)(end - start), (size_t)(o->reserved_end - start));
	if (gzout_commit(o->gz, (size_t)(end - start), id)) {
		o->chunk_closed = 1;
		if (gzout_failed(o->gz))
			die("%s", gzout_error(o->gz));
	}
}

/* Begin a line with id `id`: `{"id":N` in a reserved place of n more
 * bytes. */
static inline char *line_begin_id(struct output *o, size_t n, char **start,
				  uint64_t id)
{
	char *p = gzout_reserve(o->gz, n + 32);

	*start = p;
	o->reserved_end = p + n + 32;
	o->objects++;
	p = PUT(p, "{\"id\":");
	return put_u64(p, id);
}

/* Ids: an event's is twice its stream id (dc-aggregate's, unique in the
 * stream), so p_idx names its parent without waiting for it; dc-write's
 * own lines (metadata, start, end...) take the odd numbers, 1, 3, 5...,
 * in each file.  No two lines of a trace share an id. */
static inline char *line_begin(struct output *o, size_t n, char **start, uint64_t *id)
{
	*id = 2 * o->own_lines++ + 1;
	return line_begin_id(o, n, start, *id);
}

/* tables.c */
struct probe *probe_for(struct trace *t, uint32_t id);
int frame_probe(struct trace *t, const struct dc_frame *f, char *err,
		size_t errlen);
int frame_string(struct trace *t, const struct dc_frame *f, char *err,
		 size_t errlen);
struct process *process_for(struct trace *t, uint32_t pid, int create);
void process_set(struct process *pr, const char *exe, size_t exe_len,
		 const char *cmd, size_t cmd_len, const char *cwd,
		 size_t cwd_len);
void process_set_job(struct process *pr, const char *job, size_t len);
int frame_process(struct trace *t, const struct dc_frame *f, char *err,
		  size_t errlen);
void describe_process(struct trace *t, struct output *o, uint32_t pid);
void describe_thread(struct trace *t, struct output *o, uint32_t pid,
		     uint32_t tid);
void describe_string(struct output *o, const char *kind, uint32_t pid,
		     uint32_t tid, uint64_t hash, const char *json,
		     size_t json_len, const char *raw, size_t len);

/* outputs.c */
void put_meta(struct output *o, const char *name, uint32_t pid,
	      uint32_t tid, const char *args, size_t args_len);
void put_hash_meta(struct output *o, const char *kind, uint32_t pid,
		   uint32_t tid, const char *json, size_t json_len,
		   uint64_t hash);
struct output *new_output(struct trace *t, uint32_t pid);
int close_file(struct trace *t, struct output *o, int how);
struct output *output_for(struct trace *t, uint32_t pid);

#endif /* DC_WRITE_TRACE_IMPL_H */

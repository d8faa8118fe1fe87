/*
 * trace.c - stream frames to DFTracer trace lines (dc-trace(5)).
 *
 * The hot path is one complete event per record: the per-probe part of
 * the line ("name", "cat", argument keys) is prepared when the PROBE frame
 * arrives, numbers are formatted by hand straight into the output chunk,
 * and the tables consulted per event (strings, processes, what this file
 * has already described) are hash maps that grow with distinct files and
 * threads, never with events.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gzout.h"
#include "callargs.h"
#include "hash.h"
#include "u64map.h"
#include "messages.h"
#include "outfile.h"
#include "trace.h"

#define META_CAT "datacrumbs"
#define PROBE_ID_MAX 65536   /* larger probe ids are refused */
#define LINE_SLACK 768       /* bound on a line besides its strings */
#define ASYNC_TID_BASE (1u << 30) /* tids of async lanes (dc-trace(5)) */
#define ASYNC_LANES 64

/* ---- hashing ---- */

uint64_t trace_hash(const void *data, size_t len)
{
	uint64_t h = dc_fnv1a(data, len);

	return (h >> 53) ^ (h & ((1ull << 53) - 1));
}

/* ---- formatting ---- */

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

static char *put_u64(char *p, uint64_t v)
{
	char tmp[24], *q = tmp + sizeof(tmp);
	size_t n;

	while (v >= 100) {
		unsigned i = (unsigned)(v % 100) * 2;

		v /= 100;
		*--q = digit_pairs[i + 1];
		*--q = digit_pairs[i];
	}
	if (v >= 10) {
		*--q = digit_pairs[v * 2 + 1];
		*--q = digit_pairs[v * 2];
	} else {
		*--q = (char)('0' + v);
	}
	n = (size_t)(tmp + sizeof(tmp) - q);
	memcpy(p, q, n);
	return p + n;
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, -(uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

#define PUT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/* Length of a valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t k, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		k = 2;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < k || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

/* A JSON string.  Bytes that are not UTF-8 are written as \u00XX (as if
 * Latin-1), so the line is always valid JSON; the hash is of the raw
 * bytes.  Needs 6 * len + 2 bytes. */
static char *put_jstr(char *p, const char *str, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	*p++ = '"';
	while (i < len) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*p++ = (char)c;
			i++;
		} else if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
			i++;
		} else if (c == '\n') {
			p = PUT(p, "\\n");
			i++;
		} else if (c == '\t') {
			p = PUT(p, "\\t");
			i++;
		} else if (c >= 0x80 && utf8_len(s + i, len - i) > 0) {
			size_t k = utf8_len(s + i, len - i);

			memcpy(p, s + i, k);
			p += k;
			i += k;
		} else {
			p = PUT(p, "\\u00");
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
			i++;
		}
	}
	*p++ = '"';
	return p;
}

/* An operation code: up to 8 ASCII characters packed little-endian
 * (block "rwbs" such as "WS"), as a JSON string. */
static char *put_op(char *p, uint64_t v)
{
	char op[8];
	size_t n = 0;

	while (n < 8 && (v & 0xff) != 0) {
		op[n++] = (char)(v & 0xff);
		v >>= 8;
	}
	return put_jstr(p, op, n);
}

static char *jstr_dup(const char *s, size_t len, size_t *out_len)
{
	char *buf = xmalloc(6 * len + 3), *end;

	end = put_jstr(buf, s, len);
	*end = '\0';
	*out_len = (size_t)(end - buf);
	return buf;
}

/* ---- tables ---- */

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
static uint64_t to_us(const struct trace *t, uint64_t mono_ns)
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

/* ---- outputs ---- */

/* The host name comes from the stream, which anyone may have written:
 * in a file name it keeps only letters, digits, '.', '-' and '_', and
 * never starts with a dot, so it cannot leave the output's directory. */
static char *safe_host(const char *host)
{
	char *s = xstrdup(*host ? host : "unknown"), *p;

	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' ||
		      *p == '_'))
			*p = '_';
	if (s[0] == '.')
		s[0] = '_';
	return s;
}

static char *output_name(const struct trace *t, uint32_t pid, int number)
{
	char part[64] = "";

	if (t->opts.split == SPLIT_PID)
		snprintf(part, sizeof(part), "-%u", pid);
	if (t->opts.split == SPLIT_HOST) {
		char *host = safe_host(t->info.host);
		char *name = xasprintf("%s-%s", t->base, host);
		char *path;

		if (number > 0)
			path = xasprintf("%s.%d%s", name, number, t->ext);
		else
			path = xasprintf("%s%s", name, t->ext);
		free(name);
		free(host);
		return path;
	}
	if (number > 0)
		return xasprintf("%s%s.%d%s", t->base, part, number, t->ext);
	return xasprintf("%s%s%s", t->base, part, t->ext);
}

static void commit(struct output *o, char *start, char *end, uint64_t id)
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
static char *line_begin_id(struct output *o, size_t n, char **start,
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
static char *line_begin(struct output *o, size_t n, char **start, uint64_t *id)
{
	*id = 2 * o->own_lines++ + 1;
	return line_begin_id(o, n, start, *id);
}

/* A metadata line {"id","name","cat","pid","tid","ph":"M","args":{...}}
 * whose args are `args` (already JSON, without braces). */
static void put_meta(struct output *o, const char *name, uint32_t pid,
		     uint32_t tid, const char *args, size_t args_len)
{
	char *start, *p;
	uint64_t id;

	p = line_begin(o, args_len + LINE_SLACK + strlen(name), &start, &id);
	p = PUT(p, ",\"name\":\"");
	memcpy(p, name, strlen(name));
	p += strlen(name);
	p = PUT(p, "\",\"cat\":\"" META_CAT "\",\"pid\":");
	p = put_u64(p, pid);
	p = PUT(p, ",\"tid\":");
	p = put_u64(p, tid);
	p = PUT(p, ",\"ph\":\"M\",\"args\":{");
	memcpy(p, args, args_len);
	p += args_len;
	p = PUT(p, "}}\n");
	commit(o, start, p, id);
}

/* A name/value metadata line (HH, FH, SH). */
static void put_hash_meta(struct output *o, const char *kind, uint32_t pid,
			  uint32_t tid, const char *json, size_t json_len,
			  uint64_t hash)
{
	char *args = xmalloc(json_len + 64), *p = args;

	p = PUT(p, "\"name\":");
	memcpy(p, json, json_len);
	p += json_len;
	p = PUT(p, ",\"value\":");
	p = put_u64(p, hash);
	put_meta(o, kind, pid, tid, args, (size_t)(p - args));
	free(args);
}

/*
 * Create path and, next to a regular gzip file, its index: never through
 * a symbolic link, and an existing file only with --force (outfile.h).
 * When the index cannot be created, the trace just created is removed.
 */
static int create_outputs(struct trace *t, const char *path, int compress,
			  int *index_fd, char **index)
{
	char msg[PATH_MAX + 128];
	struct stat st;
	int fd, err;

	*index_fd = -1;
	*index = NULL;
	fd = dc_create_output(path, t->opts.force, 0644);
	if (fd < 0)
		die("%s", dc_create_output_error(msg, sizeof(msg), path, errno));
	/* An index only next to regular files: not /dev/full.idx. */
	if (!t->opts.index || !compress || fstat(fd, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		return fd;
	*index = xasprintf("%s.idx", path);
	*index_fd = dc_create_output(*index, t->opts.force, 0644);
	if (*index_fd < 0) {
		err = errno;
		close(fd);
		unlink(path);
		die("%s", dc_create_output_error(msg, sizeof(msg), *index, err));
	}
	return fd;
}

static void open_file(struct trace *t, struct output *o)
{
	const char *path = o->path;
	int compress = !t->opts.plain;
	char *index = NULL, *start, *p;
	uint64_t id;
	int fd, index_fd = -1;

	if (strcmp(path, "-") == 0)
		fd = STDOUT_FILENO;
	else
		fd = create_outputs(t, path, compress, &index_fd, &index);
	o->gz = gzout_open(t->opts.pool, fd,
			   fd == STDOUT_FILENO ? "standard output" : path, compress,
			   t->opts.chunk_size, index_fd, index);
	free(index);
	o->own_lines = 0;
	o->objects = 0;
	o->events = 0;
	u64map_clear(&o->described);
	u64map_clear(&o->threads);
	u64map_clear(&o->procs);
	o->cache_gen = 0;
	o->cache_hash = 0;
	o->cache_pid = o->cache_tid = UINT32_MAX;
	o->cache_ok = 0;

	p = gzout_reserve(o->gz, 2);
	p = PUT(p, "[\n");
	gzout_commit(o->gz, 2, UINT64_MAX);
	put_hash_meta(o, "HH", o->pid, o->pid, t->host_json, t->host_json_len,
		      t->hhash);
	/* The start event: when the stream (or this file) began. */
	p = line_begin(o, t->host_json_len + t->run_json_len + LINE_SLACK,
		       &start, &id);
	p = PUT(p, ",\"name\":\"start\",\"cat\":\"" META_CAT "\",\"pid\":");
	p = put_u64(p, o->pid);
	p = PUT(p, ",\"tid\":");
	p = put_u64(p, o->pid);
	p = PUT(p, ",\"ts\":");
	p = put_u64(p, o->start_us);
	p = PUT(p, ",\"dur\":0,\"ph\":\"X\",\"args\":{\"hhash\":");
	p = put_u64(p, t->hhash);
	p = PUT(p, ",\"host\":");
	memcpy(p, t->host_json, t->host_json_len);
	p += t->host_json_len;
	p = PUT(p, ",\"run\":");
	memcpy(p, t->run_json, t->run_json_len);
	p += t->run_json_len;
	p = PUT(p, ",\"format\":1}}\n");
	commit(o, start, p, id);
}

static struct output *new_output(struct trace *t, uint32_t pid)
{
	struct output *o = xcalloc(1, sizeof(*o));

	o->pid = pid;
	o->path = output_name(t, pid, 0);
	u64map_init(&o->described);
	u64map_init(&o->threads);
	u64map_init(&o->procs);
	o->start_us = t->last_us ? t->last_us : to_us(t, t->info.start_mono_ns);
	open_file(t, o);
	t->outs = xrealloc(t->outs, (t->nouts + 1) * sizeof(*t->outs));
	t->outs[t->nouts++] = o;
	return o;
}

#define LOST_TEXT "the stream ended without its end record: the collector " \
	"or a stage after it died; an unknown number of events after the " \
	"last frame are missing"

/* The end event, then close the file. */
static int close_file(struct trace *t, struct output *o, int how)
{
	uint64_t dropped = t->drops_cpu > t->drops_probe ? t->drops_cpu
							 : t->drops_probe;
	uint64_t id, ts = t->last_us;
	char *start, *p, *err = NULL;

	if (t->have_end && t->end.dropped > dropped)
		dropped = t->end.dropped;
	if (t->have_end && t->end.end_mono_ns != 0 &&
	    to_us(t, t->end.end_mono_ns) > ts)
		ts = to_us(t, t->end.end_mono_ns);
	if (t->have_end) {
		if (t->end.flags & DC_END_INPUT_TRUNCATED)
			how |= TRACE_TRUNCATED;
		if (t->end.flags & DC_END_INPUT_CORRUPT)
			how |= TRACE_CORRUPT | TRACE_TRUNCATED;
		if (t->end.flags & DC_END_INTERRUPTED)
			how |= TRACE_INTERRUPTED;
	}
	if (ts < o->start_us)
		ts = o->start_us;
	p = line_begin(o, LINE_SLACK + sizeof(LOST_TEXT), &start, &id);
	p = PUT(p, ",\"name\":\"end\",\"cat\":\"" META_CAT "\",\"pid\":");
	p = put_u64(p, o->pid);
	p = PUT(p, ",\"tid\":");
	p = put_u64(p, o->pid);
	p = PUT(p, ",\"ts\":");
	p = put_u64(p, ts);
	p = PUT(p, ",\"dur\":0,\"ph\":\"X\",\"args\":{\"hhash\":");
	p = put_u64(p, t->hhash);
	p = PUT(p, ",\"num_events\":");
	p = put_u64(p, o->objects - 1);
	p = PUT(p, ",\"events\":");
	p = put_u64(p, o->events);
	p = PUT(p, ",\"dropped\":");
	p = put_u64(p, dropped);
	if (t->orphans > 0) {
		p = PUT(p, ",\"orphans\":");
		p = put_u64(p, t->orphans);
	}
	if (t->unattributed > 0) {
		p = PUT(p, ",\"unattributed\":");
		p = put_u64(p, t->unattributed);
	}
	p = PUT(p, ",\"truncated\":");
	p = (how & TRACE_TRUNCATED) ? PUT(p, "true") : PUT(p, "false");
	p = PUT(p, ",\"corrupt\":");
	p = (how & TRACE_CORRUPT) ? PUT(p, "true") : PUT(p, "false");
	p = PUT(p, ",\"interrupted\":");
	p = (how & TRACE_INTERRUPTED) ? PUT(p, "true") : PUT(p, "false");
	/* A stream that ended without its END record: the collector (or a
	 * stage after it) died, and what was still in its ring buffer and
	 * pipes after the last frame is gone, uncounted.  Say so, rather
	 * than let "dropped" look exact. */
	if (how & TRACE_TRUNCATED)
		p = PUT(p, ",\"dropped_unknown\":true,\"lost\":\"" LOST_TEXT "\"");
	p = PUT(p, "}}\n");
	commit(o, start, p, id);
	if (gzout_close(o->gz, &err) != 0) {
		warn("%s", err);
		free(err);
		o->gz = NULL;
		return -1;
	}
	o->gz = NULL;
	return 0;
}

/* --max-size: after a chunk went out, see whether the file is full. */
static void maybe_rotate(struct trace *t, struct output *o)
{
	o->chunk_closed = 0;
	gzout_sync(o->gz);
	if (gzout_failed(o->gz))
		die("%s", gzout_error(o->gz));
	if (gzout_written(o->gz) < t->opts.max_size)
		return;
	if (close_file(t, o, 0) != 0)
		exit(DC_EXIT_FAILURE);
	free(o->path);
	o->path = output_name(t, o->pid, ++o->number);
	o->start_us = t->last_us;
	open_file(t, o);
}

static struct output *output_for(struct trace *t, uint32_t pid)
{
	struct output *o;
	uint64_t *slot;
	int added;

	if (t->opts.split != SPLIT_PID) {
		o = t->outs[0];
	} else {
		slot = u64map_insert(&t->out_ids, (uint64_t)pid, &added);
		if (added) {
			*slot = t->nouts + 1;
			o = new_output(t, pid);
		} else {
			o = t->outs[*slot - 1];
		}
	}
	/* Not within a held group: a parent and its children share a
	 * file, as p_idx needs. */
	if (o->chunk_closed && t->opts.max_size > 0)
		maybe_rotate(t, o);
	return o;
}

/* ---- probes, strings, processes ---- */

static void set_probe(struct probe *pr, const char *name, size_t name_len,
		      const char *cat, size_t cat_len, uint8_t nargs,
		      const uint8_t *kinds, uint8_t ret_kind)
{
	static const char *const names[DC_ARG_KIND_MAX] = {
		[DC_ARG_FD] = "fd", [DC_ARG_SIZE] = "size",
		[DC_ARG_OFFSET] = "offset", [DC_ARG_FLAGS] = "flags",
		[DC_ARG_MODE] = "mode", [DC_ARG_HANDLE] = "handle",
		[DC_ARG_WHENCE] = "whence", [DC_ARG_INT] = "arg",
		[DC_ARG_DEV] = "dev", [DC_ARG_SECTOR] = "sector",
		[DC_ARG_INODE] = "inode", [DC_ARG_INDEX] = "index",
		[DC_ARG_PAGES] = "pages", [DC_ARG_OP] = "op",
		[DC_ARG_FAMILY] = "family", [DC_ARG_PROTOCOL] = "protocol",
		[DC_ARG_OLDSTATE] = "oldstate", [DC_ARG_NEWSTATE] = "newstate",
		[DC_ARG_SPORT] = "sport", [DC_ARG_DPORT] = "dport",
		[DC_ARG_OPCODE] = "opcode", [DC_ARG_REASON] = "reason",
		[DC_ARG_ISIZE] = "isize", [DC_ARG_COUNT] = "count",
		[DC_ARG_HANDLE_OUT] = "handle", [DC_ARG_HANDLE_IN] = "handle",
		[DC_ARG_FILE] = "handle", [DC_ARG_CHAR] = "char",
		[DC_ARG_CMD] = "cmd", [DC_ARG_DATATYPE] = "datatype",
	};
	size_t nj, cj;
	char *name_json = jstr_dup(name, name_len, &nj);
	uint64_t used = 0;
	int i;

	free(pr->cat_json);
	free(pr->prefix);
	free(pr->drop_key);
	free(pr->name);
	free(pr->cat);
	pr->name = xasprintf("%.*s", (int)name_len, name);
	pr->cat = xasprintf("%.*s", (int)cat_len, cat);
	{
		/* Names repeat across layers (POSIX write, sys write). */
		char *both = xasprintf("%.*s/%.*s", (int)cat_len, cat,
				       (int)name_len, name);

		pr->drop_key = jstr_dup(both, strlen(both), &cj);
		free(both);
	}
	pr->cat_json = jstr_dup(cat, cat_len, &cj);
	pr->cat_json_len = cj;
	pr->prefix = xasprintf(",\"name\":%s,\"cat\":%s,\"pid\":", name_json,
			       pr->cat_json);
	pr->prefix_len = strlen(pr->prefix);
	free(name_json);
	pr->nargs = nargs > DC_MAX_ARGS ? DC_MAX_ARGS : nargs;
	pr->ret_kind = ret_kind;
	pr->path_slot = pr->str_slot = pr->str2_slot = -1;
	for (i = 0; i < pr->nargs; i++) {
		uint8_t k = kinds[i] < DC_ARG_KIND_MAX ? kinds[i] : DC_ARG_INT;

		pr->kinds[i] = k;
		pr->key[i][0] = '\0';
		/* The first string slot is the inline string; a second one
		 * follows it after its NUL. */
		if (k == DC_ARG_PATH || k == DC_ARG_STR) {
			if (pr->path_slot < 0 && pr->str_slot < 0)
				*(k == DC_ARG_PATH ? &pr->path_slot
						   : &pr->str_slot) = i;
			else if (pr->str2_slot < 0)
				pr->str2_slot = i;
		}
		/* Paths become fhash, strings shash; pointers are noise;
		 * lengths read through pointers become "size" and "bytes". */
		if (k == DC_ARG_NONE || k == DC_ARG_PATH || k == DC_ARG_PTR ||
		    k == DC_ARG_STR || k == DC_ARG_IOV || k == DC_ARG_STRLEN ||
		    k == DC_ARG_STROUT || k == DC_ARG_MPISTATUS)
			continue;
		/* A kind newer than this table prints as a plain integer;
		 * a second argument of one kind gets its slot number. */
		if (names[k] == NULL)
			snprintf(pr->key[i], sizeof(pr->key[i]), ",\"arg%d\":", i);
		else if (k == DC_ARG_INT || k >= 64 || (used & (1ull << k)))
			snprintf(pr->key[i], sizeof(pr->key[i]), ",\"%s%d\":",
				 names[k], i);
		else
			snprintf(pr->key[i], sizeof(pr->key[i]), ",\"%s\":",
				 names[k]);
		if (k < 64)
			used |= 1ull << k;
	}
	for (i = 0; i < pr->nargs; i++)
		pr->key_len[i] = (uint8_t)strlen(pr->key[i]);
	callargs_init(&pr->ca, pr->kinds, pr->nargs, ret_kind);
	pr->defined = 1;
}

static struct probe *probe_slot(struct trace *t, uint32_t id)
{
	if (id >= PROBE_ID_MAX)
		return &t->unknown;
	if (id >= t->nprobes) {
		size_t n = id + 16;

		t->probes = xrealloc(t->probes, n * sizeof(*t->probes));
		memset(t->probes + t->nprobes, 0,
		       (n - t->nprobes) * sizeof(*t->probes));
		t->nprobes = n;
	}
	return &t->probes[id];
}

static struct probe *probe_for(struct trace *t, uint32_t id)
{
	struct probe *pr = probe_slot(t, id);

	if (!pr->defined) {
		/* Events before (or without) their PROBE frame still get
		 * written: every argument as a plain integer. */
		static const uint8_t ints[DC_MAX_ARGS] = {
			DC_ARG_INT, DC_ARG_INT, DC_ARG_INT,
			DC_ARG_INT, DC_ARG_INT, DC_ARG_INT,
		};
		char name[32];

		/* Ids past the table share one entry: they cannot be
		 * declared anyway (frame_probe refuses them). */
		if (id >= PROBE_ID_MAX)
			snprintf(name, sizeof(name), "probe_invalid");
		else
			snprintf(name, sizeof(name), "probe_%u", id);
		if (!t->warned_unknown_probe++)
			warn("events of undeclared probe %u: written as %s",
			     id, name);
		set_probe(pr, name, strlen(name), "unknown", 7, DC_MAX_ARGS,
			  ints, DC_RET_INT);
		pr->defined = 2;
	}
	return pr;
}

static int frame_probe(struct trace *t, const struct dc_frame *f, char *err,
		       size_t errlen)
{
	struct dc_probe_rec rec;
	const char *layer, *name, *target;
	size_t ll, nl, tl, pos = sizeof(rec);

	if (f->len < sizeof(rec) ||
	    (pos = dc_get_str(f->data, f->len, pos, &layer, &ll)) == 0 ||
	    (pos = dc_get_str(f->data, f->len, pos, &name, &nl)) == 0 ||
	    (pos = dc_get_str(f->data, f->len, pos, &target, &tl)) == 0) {
		snprintf(err, errlen, "malformed probe frame");
		return -1;
	}
	memcpy(&rec, f->data, sizeof(rec));
	if (rec.id >= PROBE_ID_MAX) {
		snprintf(err, errlen, "probe id %u too large", rec.id);
		return -1;
	}
	if (rec.nargs > DC_MAX_ARGS) {
		snprintf(err, errlen, "probe %u has %u arguments", rec.id,
			 rec.nargs);
		return -1;
	}
	set_probe(probe_slot(t, rec.id), name, nl, layer, ll, rec.nargs,
		  rec.arg_kinds, rec.ret_kind < DC_RET_KIND_MAX ? rec.ret_kind
								 : DC_RET_INT);
	return 0;
}

static int frame_string(struct trace *t, const struct dc_frame *f, char *err,
			size_t errlen)
{
	uint32_t id;
	uint64_t *slot;
	struct string *s;
	int added;

	if (f->len < 4) {
		snprintf(err, errlen, "malformed string frame");
		return -1;
	}
	memcpy(&id, f->data, 4);
	slot = u64map_insert(&t->string_ids, (uint64_t)id, &added);
	if (added) {
		if (t->nstrings == t->strings_cap) {
			t->strings_cap = t->strings_cap ? 2 * t->strings_cap : 64;
			t->strings = xrealloc(t->strings,
					      t->strings_cap * sizeof(*t->strings));
		}
		*slot = ++t->nstrings;
		s = &t->strings[*slot - 1];
	} else {
		s = &t->strings[*slot - 1];
		free(s->json);
	}
	s->hash = trace_hash(f->data + 4, f->len - 4);
	s->json = jstr_dup((const char *)f->data + 4, f->len - 4, &s->json_len);
	return 0;
}

static struct process *process_for(struct trace *t, uint32_t pid, int create)
{
	uint64_t *slot;
	int added;

	if (!create) {
		slot = u64map_get(&t->proc_ids, (uint64_t)pid);
		return slot ? &t->procs[*slot - 1] : NULL;
	}
	slot = u64map_insert(&t->proc_ids, (uint64_t)pid, &added);
	if (added) {
		if (t->nprocs == t->procs_cap) {
			t->procs_cap = t->procs_cap ? 2 * t->procs_cap : 16;
			t->procs = xrealloc(t->procs,
					    t->procs_cap * sizeof(*t->procs));
		}
		*slot = ++t->nprocs;
		memset(&t->procs[*slot - 1], 0, sizeof(struct process));
		t->procs[*slot - 1].pid = pid;
		t->procs[*slot - 1].rank = -1;
	}
	return &t->procs[*slot - 1];
}

static char *memdup(const char *s, size_t len)
{
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* Replace the program of a process (copies everything first: the
 * arguments may point into the process itself). */
static void process_set(struct process *pr, const char *exe, size_t exe_len,
			const char *cmd, size_t cmd_len, const char *cwd,
			size_t cwd_len)
{
	char *e = memdup(exe, exe_len), *c = memdup(cmd, cmd_len);
	char *w = memdup(cwd, cwd_len);

	free(pr->exe);
	free(pr->cmdline);
	free(pr->cwd);
	pr->exe = e;
	pr->exe_len = exe_len;
	pr->cmdline = c;
	pr->cmdline_len = cmd_len;
	pr->cwd = w;
	pr->cwd_len = cwd_len;
	pr->version++;
}

static void process_set_job(struct process *pr, const char *job, size_t len)
{
	char *j = memdup(job, len);
	size_t pos = 0;

	free(pr->job);
	pr->job = j;
	pr->job_len = len;
	/* dc-aggregate names each process's host in a merge of hosts: its
	 * events get that host's hash. */
	pr->hhash = 0;
	while (pos < len) {
		size_t el = strnlen(j + pos, len - pos);

		if (el > 5 && memcmp(j + pos, "host=", 5) == 0) {
			pr->host = j + pos + 5;
			pr->host_len = el - 5;
			pr->hhash = trace_hash(pr->host, pr->host_len);
		}
		pos += el + 1;
	}
}

/* The job's key=value pairs as PR arguments; counts (world size, node
 * count, local rank) as numbers, ids as strings ("12", "12.server"). */
static char *put_job(char *p, const char *job, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		const char *e = job + pos, *eq;
		size_t el = strnlen(e, len - pos), kl, vl, i;
		int digits;

		pos += el + 1;
		eq = memchr(e, '=', el);
		if (eq == NULL || eq == e)
			continue;
		kl = (size_t)(eq - e);
		vl = el - kl - 1;
		/* JSON numbers have no leading zeros: "007" stays a string. */
		digits = vl > 0 && vl < 19 && !(vl > 1 && eq[1] == '0') &&
			 !(kl > 4 && memcmp(e, "job_", 4) == 0) &&
			 !(kl == 8 && memcmp(e, "nodelist", 8) == 0);
		for (i = 0; i < vl && digits; i++)
			digits = eq[1 + i] >= '0' && eq[1 + i] <= '9';
		*p++ = ',';
		p = put_jstr(p, e, kl);
		*p++ = ':';
		if (digits) {
			memcpy(p, eq + 1, vl);
			p += vl;
		} else {
			p = put_jstr(p, eq + 1, vl);
		}
	}
	return p;
}

static int frame_process(struct trace *t, const struct dc_frame *f, char *err,
			 size_t errlen)
{
	struct dc_process_rec rec;
	const char *exe, *cmd, *cwd, *job;
	size_t el, cl, wl, jl, pos = sizeof(rec);
	struct process *pr;

	if (f->len < sizeof(rec) ||
	    (pos = dc_get_str(f->data, f->len, pos, &exe, &el)) == 0 ||
	    (pos = dc_get_str(f->data, f->len, pos, &cmd, &cl)) == 0 ||
	    (pos = dc_get_str(f->data, f->len, pos, &cwd, &wl)) == 0) {
		snprintf(err, errlen, "malformed process frame");
		return -1;
	}
	memcpy(&rec, f->data, sizeof(rec));
	pr = process_for(t, rec.pid, 1);
	pr->since = rec.start_mono_ns;
	pr->pflags = rec.flags & (DC_PROC_F_FORKED | DC_PROC_F_EXEC);
	pr->ppid = rec.ppid;
	pr->uid = rec.uid;
	pr->gid = rec.gid;
	pr->rank = rec.rank;
	/* The job string came later (dc-stream(5)): optional.  A child is in
	 * its parent's job even when its environment, read in the middle of
	 * an exec, came back empty. */
	if (pos < f->len &&
	    dc_get_str(f->data, f->len, pos, &job, &jl) != 0) {
		struct process *parent = process_for(t, rec.ppid, 0);

		pr = process_for(t, rec.pid, 0);
		if (jl > 0)
			process_set_job(pr, job, jl);
		else if (pr->job_len == 0 && parent != NULL &&
			 parent->job_len > 0)
			process_set_job(pr, parent->job, parent->job_len);
	}
	process_set(pr, exe, el, cmd, cl, cwd, wl);
	t->proc_gen++;
	return 0;
}

/* PR and process_name for pid, in o, if o has not seen this version. */
static void describe_process(struct trace *t, struct output *o, uint32_t pid)
{
	struct process *pr = process_for(t, pid, 0);
	const char *base;
	char *args, *p, *cmd, *label;
	uint64_t *seen;
	size_t i;
	int added;

	if (pr == NULL || pr->version == 0)
		return;
	seen = u64map_insert(&o->procs, (uint64_t)pid, &added);
	if (*seen == pr->version)
		return;
	*seen = pr->version;
	args = xmalloc(6 * (pr->exe_len + pr->cmdline_len + pr->cwd_len +
			    2 * pr->job_len) + 320);
	/* Arguments travel NUL-separated; show them space-separated. */
	cmd = memdup(pr->cmdline, pr->cmdline_len);
	for (i = 0; i < pr->cmdline_len; i++)
		if (cmd[i] == '\0')
			cmd[i] = ' ';
	p = args;
	p = PUT(p, "\"name\":");
	p = put_jstr(p, pr->exe, pr->exe_len);
	p = PUT(p, ",\"value\":");
	p = put_u64(p, trace_hash(pr->exe, pr->exe_len));
	p = PUT(p, ",\"rank\":");
	p = put_i64(p, pr->rank);
	p = PUT(p, ",\"ppid\":");
	p = put_u64(p, pr->ppid);
	p = PUT(p, ",\"uid\":");
	p = put_u64(p, pr->uid);
	p = PUT(p, ",\"gid\":");
	p = put_u64(p, pr->gid);
	p = PUT(p, ",\"cmdline\":");
	p = put_jstr(p, cmd, pr->cmdline_len);
	p = PUT(p, ",\"cwd\":");
	p = put_jstr(p, pr->cwd, pr->cwd_len);
	/* Which description this is: from when, and after a fork (the
	 * parent's program still) or an exec. */
	if (pr->since != 0) {
		p = PUT(p, ",\"since\":");
		p = put_u64(p, to_us(t, pr->since));
	}
	if (pr->pflags & DC_PROC_F_FORKED)
		p = PUT(p, ",\"origin\":\"fork\"");
	else if (pr->pflags & DC_PROC_F_EXEC)
		p = PUT(p, ",\"origin\":\"exec\"");
	p = put_job(p, pr->job, pr->job_len);
	put_meta(o, "PR", pid, pid, args, (size_t)(p - args));
	free(cmd);
	/* Perfetto's track name: "Rank 3 (ior)" or "dd (4242)". */
	base = pr->exe;
	for (i = 0; i < pr->exe_len; i++)
		if (pr->exe[i] == '/')
			base = pr->exe + i + 1;
	if (pr->rank >= 0)
		label = xasprintf("Rank %d (%.*s)", pr->rank,
				  (int)(pr->exe + pr->exe_len - base), base);
	else
		label = xasprintf("%.*s (%u)",
				  (int)(pr->exe + pr->exe_len - base), base, pid);
	p = args;
	p = PUT(p, "\"name\":");
	p = put_jstr(p, label, strlen(label));
	put_meta(o, "process_name", pid, pid, args, (size_t)(p - args));
	free(label);
	free(args);
}

static void describe_thread(struct trace *t, struct output *o, uint32_t pid,
			    uint32_t tid)
{
	char args[64], *p;
	int added;

	describe_process(t, o, pid);
	u64map_insert(&o->threads, (uint64_t)tid, &added);
	if (added) {
		p = PUT(args, "\"name\":\"");
		if (tid >= ASYNC_TID_BASE) {
			p = PUT(p, "async lane ");
			p = put_u64(p, (tid - ASYNC_TID_BASE) % ASYNC_LANES);
		} else {
			p = put_u64(p, tid);
		}
		*p++ = '"';
		put_meta(o, "thread_name", pid, tid, args, (size_t)(p - args));
	}
	o->cache_pid = pid;
	o->cache_tid = tid;
	o->cache_gen = t->proc_gen;
	o->cache_ok = 1;
}

/* FH/SH line for hash unless o already has it.  json may be NULL: then
 * raw/len is escaped here (inline strings, first use only). */
static void describe_string(struct output *o, const char *kind, uint32_t pid,
			    uint32_t tid, uint64_t hash, const char *json,
			    size_t json_len, const char *raw, size_t len)
{
	/* FH and SH of one string are two lines: the key is the hash (53
	 * bits) and the kind. */
	uint64_t key = hash << 1 | (kind[0] == 'F');
	int added;

	if (key + 1 == o->cache_hash)
		return;
	u64map_insert(&o->described, key, &added);
	if (added) {
		if (json == NULL) {
			char *j = jstr_dup(raw, len, &json_len);

			put_hash_meta(o, kind, pid, tid, j, json_len, hash);
			free(j);
		} else {
			put_hash_meta(o, kind, pid, tid, json, json_len, hash);
		}
	}
	o->cache_hash = key + 1;
}

/* ---- events ---- */

static const struct string *string_for(struct trace *t, uint32_t id)
{
	uint64_t *slot = u64map_get(&t->string_ids, (uint64_t)id);

	if (slot == NULL) {
		if (!t->warned_unknown_string++)
			warn("events name file %u, which no string frame "
			     "defines: written without fhash", id);
		return NULL;
	}
	return &t->strings[*slot - 1];
}

/* fork: the child runs its parent's program until it execs (a pid seen
 * before is a new process now), unless it was described as of a later
 * time already; exec: the process now runs the program named by the
 * event's string, unless the collector's description of this exec came
 * first (with the command line, rank and job the string lacks). */
static void process_event_update(struct trace *t, const struct dc_event *ev)
{
	struct process *pr, *child;

	if (ev->type == DC_EV_FORK && ev->nargs > 0) {
		uint32_t cpid = (uint32_t)DC_EVENT_ARGS(ev)[0];

		child = process_for(t, cpid, 0);
		if (process_for(t, ev->pid, 0) == NULL ||
		    (child != NULL && child->since > ev->ts))
			return;
		child = process_for(t, cpid, 1);
		pr = process_for(t, ev->pid, 0); /* the table may have moved */
		child->since = ev->ts;
		child->pflags = DC_PROC_F_FORKED;
		child->ppid = ev->pid;
		child->uid = pr->uid;
		child->gid = pr->gid;
		child->rank = pr->rank;
		if (pr->job_len > 0)
			process_set_job(child, pr->job, pr->job_len);
		process_set(child, pr->exe, pr->exe_len, pr->cmdline,
			    pr->cmdline_len, pr->cwd, pr->cwd_len);
		t->proc_gen++;
	} else if (ev->type == DC_EV_EXEC && ev->str_len > 0) {
		pr = process_for(t, ev->pid, 1);
		if ((pr->pflags & DC_PROC_F_EXEC) && pr->since == ev->ts)
			return;
		pr->since = ev->ts;
		pr->pflags = DC_PROC_F_EXEC;
		process_set(pr, DC_EVENT_STR(ev), ev->str_len,
			    DC_EVENT_STR(ev), ev->str_len,
			    pr->cwd ? pr->cwd : "", pr->cwd_len);
		t->proc_gen++;
	}
}

/*
 * Kernel work that can outlive the call it started in (block I/O) would
 * overlap its neighbours on the thread, which Perfetto cannot draw: it
 * goes on lanes of its own, the first lane whose last event ended before
 * this one began.
 */
static uint32_t async_lane(struct trace *t, const struct dc_event *ev)
{
	struct lanes *l;
	uint64_t *slot;
	unsigned i;
	int added;

	slot = u64map_insert(&t->lane_ids, (uint64_t)ev->pid, &added);
	if (added) {
		if (t->nlanes == t->lanes_cap) {
			t->lanes_cap = t->lanes_cap ? 2 * t->lanes_cap : 8;
			t->lanes = xrealloc(t->lanes,
					    t->lanes_cap * sizeof(*t->lanes));
		}
		memset(&t->lanes[t->nlanes], 0, sizeof(*t->lanes));
		*slot = ++t->nlanes;
	}
	l = &t->lanes[*slot - 1];
	for (i = 0; i < l->used; i++)
		if (ev->ts >= l->end[i])
			break;
	if (i == l->used) {
		if (l->used < ASYNC_LANES)
			l->used++;
		else
			i = ASYNC_LANES - 1; /* overlap rather than lose it */
	}
	if (ev->ts + ev->dur > l->end[i])
		l->end[i] = ev->ts + ev->dur;
	return ASYNC_TID_BASE + (ev->pid % (1u << 24)) * ASYNC_LANES + i;
}

/* One event line. */
static void write_event(struct trace *t, const struct dc_event *ev)
{
	struct output *o = output_for(t, ev->pid);
	const struct probe *pr = probe_for(t, ev->probe_id);
	const __u64 *args = DC_EVENT_ARGS(ev);
	uint32_t tid = (ev->flags & DC_EVF_ASYNC) ? async_lane(t, ev) : ev->tid;
	uint64_t ts_us = to_us(t, ev->ts), end_us = to_us(t, ev->ts + ev->dur);
	uint64_t fhash = 0, shash = 0, h2 = 0, hhash = t->hhash;
	size_t len1 = ev->str_len ? strnlen(DC_EVENT_STR(ev), ev->str_len) : 0;
	int h2_is_path = 0;
	const struct string *fs = NULL;
	const char *name = NULL;
	char *start, *p;
	int i, n;

	if (!o->cache_ok || o->cache_pid != ev->pid || o->cache_tid != tid ||
	    o->cache_gen != t->proc_gen)
		describe_thread(t, o, ev->pid, tid);
	/* Processes of the second and later hosts of a merge (pids moved
	 * above 2^22 by dc-aggregate) carry their own host's hash. */
	if (ev->pid >> 22) {
		const struct process *proc = process_for(t, ev->pid, 0);

		if (proc != NULL && proc->hhash != 0) {
			hhash = proc->hhash;
			describe_string(o, "HH", ev->pid, tid, hhash, NULL, 0,
					proc->host, proc->host_len);
		}
	}
	/* The file: the one dc-aggregate resolved, else an inline path. */
	if (ev->file_id != 0 && (fs = string_for(t, ev->file_id)) != NULL) {
		fhash = fs->hash;
		describe_string(o, "FH", ev->pid, tid, fhash, fs->json,
				fs->json_len, NULL, 0);
	} else if (len1 > 0 &&
		   (pr->path_slot >= 0 || ev->type == DC_EV_EXEC)) {
		fhash = trace_hash(DC_EVENT_STR(ev), len1);
		describe_string(o, "FH", ev->pid, tid, fhash, NULL, 0,
				DC_EVENT_STR(ev), len1);
	}
	if (len1 > 0 && pr->str_slot >= 0 && pr->path_slot < 0) {
		shash = trace_hash(DC_EVENT_STR(ev), len1);
		describe_string(o, "SH", ev->pid, tid, shash, NULL, 0,
				DC_EVENT_STR(ev), len1);
	}
	/* A second string: rename's new path, fopen's mode. */
	if (pr->str2_slot >= 0 && ev->type != DC_EV_EXEC &&
	    len1 + 1 < ev->str_len) {
		const char *s2 = DC_EVENT_STR(ev) + len1 + 1;
		size_t len2 = ev->str_len - len1 - 1;

		h2 = trace_hash(s2, len2);
		h2_is_path = pr->kinds[pr->str2_slot] == DC_ARG_PATH;
		describe_string(o, h2_is_path ? "FH" : "SH", ev->pid, tid, h2,
				NULL, 0, s2, len2);
	}
	if (end_us > t->last_us)
		t->last_us = end_us;

	p = line_begin_id(o, pr->prefix_len + LINE_SLACK, &start, 2 * ev->seq);
	switch (ev->type) {
	case DC_EV_FORK:
		name = "fork";
		break;
	case DC_EV_EXEC:
		name = "exec";
		break;
	case DC_EV_EXIT_PROC:
		name = "exit";
		break;
	}
	if (name != NULL) {
		p = PUT(p, ",\"name\":\"");
		memcpy(p, name, strlen(name));
		p += strlen(name);
		p = PUT(p, "\",\"cat\":");
		memcpy(p, pr->cat_json, pr->cat_json_len);
		p += pr->cat_json_len;
		p = PUT(p, ",\"pid\":");
	} else {
		memcpy(p, pr->prefix, pr->prefix_len);
		p += pr->prefix_len;
	}
	p = put_u64(p, ev->pid);
	p = PUT(p, ",\"tid\":");
	p = put_u64(p, tid);
	p = PUT(p, ",\"ts\":");
	p = put_u64(p, ts_us);
	p = PUT(p, ",\"dur\":");
	switch (ev->type) {
	case DC_EV_CALL:
		/* Both ends rounded down: nested calls stay nested. */
		p = put_u64(p, end_us - ts_us);
		p = PUT(p, ",\"ph\":\"X\"");
		break;
	default:
		p = PUT(p, "0,\"ph\":\"i\",\"s\":\"t\"");
		break;
	}
	p = PUT(p, ",\"args\":{\"hhash\":");
	p = put_u64(p, hhash);
	if (fhash != 0) {
		p = PUT(p, ",\"fhash\":");
		p = put_u64(p, fhash);
	}
	if (shash != 0) {
		p = PUT(p, ",\"shash\":");
		p = put_u64(p, shash);
	}
	if (h2 != 0) {
		if (h2_is_path)
			p = PUT(p, ",\"fhash2\":");
		else if (shash != 0)
			p = PUT(p, ",\"shash2\":");
		else
			p = PUT(p, ",\"shash\":");
		p = put_u64(p, h2);
	}
	if (ev->type == DC_EV_FORK) {
		if (ev->nargs > 0) {
			p = PUT(p, ",\"child\":");
			p = put_u64(p, args[0]);
		}
	} else if (ev->type == DC_EV_EXIT_PROC) {
		p = PUT(p, ",\"ret\":");
		p = put_i64(p, ev->ret);
	} else if (ev->type != DC_EV_EXEC) {
		n = ev->nargs < pr->nargs ? ev->nargs : pr->nargs;
		for (i = 0; i < n; i++) {
			if (pr->key_len[i] == 0 ||
			    !callargs_meaningful(&pr->ca, args, n, i))
				continue;
			if (pr->kinds[i] == DC_ARG_DATATYPE &&
			    (ev->flags & DC_EVF_DTSIZE)) {
				p = PUT(p, ",\"tsize\":");
				p = put_i64(p, (int64_t)args[i]);
				continue;
			}
			memcpy(p, pr->key[i], pr->key_len[i]);
			p += pr->key_len[i];
			/* Signed 64-bit throughout: values of 2^63 and more
			 * would be too big for many JSON readers, and a
			 * size_t of -1 reads better as -1. */
			switch (pr->kinds[i]) {
			case DC_ARG_FD:
			case DC_ARG_WHENCE:
				p = put_i64(p, (int32_t)args[i]);
				break;
			case DC_ARG_OP:
				p = put_op(p, args[i]);
				break;
			default:
				p = put_i64(p, (int64_t)args[i]);
				break;
			}
		}
		if (pr->ret_kind != DC_RET_NONE) {
			p = PUT(p, ",\"ret\":");
			p = put_i64(p, ev->ret);
		}
		if (pr->ca.bytes && ev->type == DC_EV_CALL && n == pr->nargs)
			p = callargs_put_bytes(p, pr->kinds, n, pr->ret_kind,
					       args, ev->ret, ev->flags);
		if (ev->error != 0) {
			p = PUT(p, ",\"errno\":");
			p = put_i64(p, ev->error);
		}
	}
	p = PUT(p, ",\"level\":");
	p = put_u64(p, ev->depth);
	/* dc-aggregate decided the parent: none (no p_idx; the commonest
	 * line stays short), unknown (-1), or the parent's id. */
	if (ev->flags & DC_EVF_ORPHAN) {
		p = PUT(p, ",\"p_idx\":-1");
		t->orphans++;
	} else if (ev->parent != 0) {
		p = PUT(p, ",\"p_idx\":");
		p = put_u64(p, 2 * ev->parent);
	}
	p = PUT(p, "}}\n");
	o->events++;
	commit(o, start, p, 2 * ev->seq);
}

static void frame_events(struct trace *t, const struct dc_frame *f)
{
	uint32_t pos = 0;

	/* The reader checked the record sizes (dc_events_valid). */
	while (pos < f->len) {
		const struct dc_event *ev = (const void *)(f->data + pos);

		pos += ev->size;
		t->events_in++;
		if (ev->type != DC_EV_CALL && ev->type != DC_EV_INSTANT &&
		    (ev->type < DC_EV_EXEC || ev->type > DC_EV_EXIT_PROC)) {
			if (!t->warned_type++)
				warn("skipping events of unknown type %u",
				     ev->type);
			continue;
		}
		if (ev->type == DC_EV_FORK || ev->type == DC_EV_EXEC)
			process_event_update(t, ev);
		write_event(t, ev);
	}
}

/* The name a per-probe drop count goes by, or NULL for its number. */
static const char *drop_key(const struct trace *t, uint32_t kind, uint32_t id)
{
	if (kind == DC_DROPS_PER_PROBE && id < PROBE_ID_MAX && id < t->nprobes &&
	    t->probes[id].defined)
		return t->probes[id].drop_key;
	if (kind == DC_DROPS_UNATTRIBUTED && id == DC_UNATTR_BLOCK)
		return "\"block\"";
	return NULL;
}

static int frame_drops(struct trace *t, const struct dc_frame *f, char *err,
		       size_t errlen)
{
	struct dc_drops_rec rec;
	struct dc_drops_entry e;
	const char *key;
	char *args, *p;
	size_t i, k, need;

	if (f->len < sizeof(rec)) {
		snprintf(err, errlen, "malformed drops frame");
		return -1;
	}
	memcpy(&rec, f->data, sizeof(rec));
	if ((f->len - sizeof(rec)) / sizeof(e) < rec.count) {
		snprintf(err, errlen, "malformed drops frame");
		return -1;
	}
	/* A collector reports the same losses per CPU and per probe: sum
	 * each view over the frames (several inputs), never the two. */
	if (rec.kind == DC_DROPS_PER_PROBE)
		t->drops_probe += rec.total;
	else if (rec.kind == DC_DROPS_UNATTRIBUTED) {
		/* Kept, not lost: its entries count events, its total is the
		 * losses the other frames already say. */
		for (i = 0; i < rec.count; i++) {
			memcpy(&e, f->data + sizeof(rec) + i * sizeof(e), sizeof(e));
			t->unattributed += e.dropped;
		}
	} else if (rec.kind != DC_DROPS_PER_PROCESS)
		t->drops_cpu += rec.total;
	need = 128;
	for (i = 0; i < rec.count; i++) {
		memcpy(&e, f->data + sizeof(rec) + i * sizeof(e), sizeof(e));
		key = drop_key(t, rec.kind, e.key);
		need += 48 + (key ? strlen(key) : 0);
	}
	args = xmalloc(need);
	p = args;
	p = PUT(p, "\"kind\":");
	p = rec.kind == DC_DROPS_PER_CPU ? PUT(p, "\"cpu\"")
	  : rec.kind == DC_DROPS_PER_PROBE ? PUT(p, "\"probe\"")
	  : rec.kind == DC_DROPS_UNATTRIBUTED ? PUT(p, "\"unattributed\"")
					   : put_u64(p, rec.kind);
	p = PUT(p, ",\"total\":");
	p = put_u64(p, rec.total);
	p = PUT(p, ",\"by\":{");
	for (i = 0; i < rec.count; i++) {
		memcpy(&e, f->data + sizeof(rec) + i * sizeof(e), sizeof(e));
		if (i > 0)
			*p++ = ',';
		if ((key = drop_key(t, rec.kind, e.key)) != NULL) {
			size_t kl = strlen(key);

			memcpy(p, key, kl);
			p += kl;
			*p++ = ':';
		} else {
			*p++ = '"';
			p = put_u64(p, e.key);
			p = PUT(p, "\":");
		}
		p = put_u64(p, e.dropped);
	}
	*p++ = '}';
	/* An instant in every open file: the loss happened to the stream. */
	for (k = 0; k < t->nouts; k++) {
		struct output *o = t->outs[k];
		char *start, *q;
		uint64_t id;

		q = line_begin(o, (size_t)(p - args) + LINE_SLACK, &start, &id);
		q = rec.kind == DC_DROPS_UNATTRIBUTED
		    ? PUT(q, ",\"name\":\"unattributed\",\"cat\":\"" META_CAT "\",\"pid\":")
		    : PUT(q, ",\"name\":\"dropped\",\"cat\":\"" META_CAT "\",\"pid\":");
		q = put_u64(q, o->pid);
		q = PUT(q, ",\"tid\":");
		q = put_u64(q, o->pid);
		q = PUT(q, ",\"ts\":");
		q = put_u64(q, t->last_us ? t->last_us : o->start_us);
		q = PUT(q, ",\"dur\":0,\"ph\":\"i\",\"s\":\"g\",\"args\":{");
		memcpy(q, args, (size_t)(p - args));
		q += p - args;
		q = PUT(q, "}}\n");
		commit(o, start, q, id);
	}
	free(args);
	return 0;
}

void trace_counter(struct trace *t, uint32_t pid, uint64_t ts_ns,
		   const char *name, const char *cat, int n,
		   const char *const *keys, const int64_t *values)
{
	struct output *o = output_for(t, pid);
	size_t need = 6 * (strlen(name) + strlen(cat)) + LINE_SLACK;
	char *start, *p;
	uint64_t id;
	int i;

	for (i = 0; i < n; i++)
		need += 6 * strlen(keys[i]) + 32;
	describe_process(t, o, pid);
	p = line_begin(o, need, &start, &id);
	p = PUT(p, ",\"name\":");
	p = put_jstr(p, name, strlen(name));
	p = PUT(p, ",\"cat\":");
	p = put_jstr(p, cat, strlen(cat));
	p = PUT(p, ",\"pid\":");
	p = put_u64(p, pid);
	p = PUT(p, ",\"tid\":");
	p = put_u64(p, pid);
	p = PUT(p, ",\"ts\":");
	p = put_u64(p, to_us(t, ts_ns));
	p = PUT(p, ",\"ph\":\"C\",\"args\":{");
	for (i = 0; i < n; i++) {
		if (i > 0)
			*p++ = ',';
		p = put_jstr(p, keys[i], strlen(keys[i]));
		*p++ = ':';
		p = put_i64(p, values[i]);
	}
	p = PUT(p, "}}\n");
	/* A sample is a stream event: the end event counts it. */
	o->events++;
	commit(o, start, p, id);
}

/* Profile mode: a counter sample per entry, at its interval's start,
 * named and categorised like its probe's calls. */
static int frame_counters(struct trace *t, const struct dc_frame *f,
			  char *err, size_t errlen)
{
	static const char *const keys[] = { "calls", "dur_us", "bytes",
					    "errors" };
	struct dc_counters_rec rec;
	struct dc_counter_entry e;
	uint64_t end_us;
	int64_t values[4];
	uint32_t i;

	if (f->len < sizeof(rec)) {
		snprintf(err, errlen, "malformed counters frame");
		return -1;
	}
	memcpy(&rec, f->data, sizeof(rec));
	if ((f->len - sizeof(rec)) / sizeof(e) < rec.count) {
		snprintf(err, errlen, "malformed counters frame");
		return -1;
	}
	for (i = 0; i < rec.count; i++) {
		const struct probe *pr;

		memcpy(&e, f->data + sizeof(rec) + (size_t)i * sizeof(e),
		       sizeof(e));
		pr = probe_for(t, e.probe_id);
		/* Signed in JSON, as every other number: see write_event. */
		values[0] = (int64_t)e.calls;
		values[1] = (int64_t)(e.dur_ns / 1000);
		values[2] = (int64_t)e.bytes;
		values[3] = (int64_t)e.errors;
		trace_counter(t, e.pid, rec.start_mono_ns, pr->name, pr->cat, 4,
			      keys, values);
	}
	/* The samples speak for the whole interval. */
	end_us = to_us(t, rec.start_mono_ns + rec.interval_ns);
	if (rec.count > 0 && end_us > t->last_us)
		t->last_us = end_us;
	return 0;
}

void trace_flush(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nouts; i++) {
		struct output *o = t->outs[i];

		if (o->gz != NULL && gzout_flush(o->gz)) {
			o->chunk_closed = 1;
			if (gzout_failed(o->gz))
				die("%s", gzout_error(o->gz));
		}
	}
}

int trace_frame(struct trace *t, const struct dc_frame *f, char *err,
		size_t errlen)
{
	switch (f->type) {
	case DC_FRAME_EVENTS:
		frame_events(t, f);
		return 0;
	case DC_FRAME_STRING:
		return frame_string(t, f, err, errlen);
	case DC_FRAME_PROBE:
		return frame_probe(t, f, err, errlen);
	case DC_FRAME_PROCESS:
		return frame_process(t, f, err, errlen);
	case DC_FRAME_DROPS:
		return frame_drops(t, f, err, errlen);
	case DC_FRAME_COUNTERS:
		return frame_counters(t, f, err, errlen);
	case DC_FRAME_END:
		if (f->len < sizeof(t->end)) {
			snprintf(err, errlen, "malformed end frame");
			return -1;
		}
		memcpy(&t->end, f->data, sizeof(t->end));
		t->have_end = 1;
		if (t->end.events != t->events_in)
			warn("the stream's end frame counts %llu events, "
			     "%llu arrived",
			     (unsigned long long)t->end.events,
			     (unsigned long long)t->events_in);
		return 0;
	default:
		/* SYSINFO, FILE and frame types of later versions carry
		 * nothing the trace format has a place for yet. */
		return 0;
	}
}

/* ---- life cycle ---- */

struct trace *trace_new(const struct trace_opts *opts,
			const struct dc_stream_info *info)
{
	struct trace *t = xcalloc(1, sizeof(*t));
	static const char *const exts[] = { ".pfw.gz", ".pfw", ".gz" };
	size_t len = strlen(opts->path), i;

	t->opts = *opts;
	t->info = *info;
	t->hhash = trace_hash(info->host, strlen(info->host));
	t->host_json = jstr_dup(info->host, strlen(info->host), &t->host_json_len);
	t->run_json = jstr_dup(info->run_id, strlen(info->run_id),
			       &t->run_json_len);
	t->ext = xstrdup("");
	t->base = xstrdup(opts->path);
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t el = strlen(exts[i]);

		if (len > el && strcmp(opts->path + len - el, exts[i]) == 0) {
			free(t->ext);
			t->ext = xstrdup(exts[i]);
			t->base[len - el] = '\0';
			break;
		}
	}
	u64map_init(&t->string_ids);
	u64map_init(&t->proc_ids);
	u64map_init(&t->out_ids);
	u64map_init(&t->lane_ids);
	if (opts->split != SPLIT_PID)
		new_output(t, 0);
	return t;
}

int trace_finish(struct trace *t, int how)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < t->nouts; i++) {
		struct output *o = t->outs[i];

		if (close_file(t, o, how) != 0)
			ret = -1;
		u64map_free(&o->described);
		u64map_free(&o->threads);
		u64map_free(&o->procs);
		free(o->path);
		free(o);
	}
	free(t->outs);
	for (i = 0; i < t->nprobes; i++) {
		free(t->probes[i].cat_json);
		free(t->probes[i].drop_key);
		free(t->probes[i].prefix);
		free(t->probes[i].name);
		free(t->probes[i].cat);
	}
	free(t->probes);
	free(t->unknown.cat_json);
	free(t->unknown.prefix);
	free(t->unknown.name);
	free(t->unknown.cat);
	free(t->unknown.drop_key);
	for (i = 0; i < t->nstrings; i++)
		free(t->strings[i].json);
	free(t->strings);
	for (i = 0; i < t->nprocs; i++) {
		free(t->procs[i].exe);
		free(t->procs[i].cmdline);
		free(t->procs[i].cwd);
		free(t->procs[i].job);
	}
	free(t->procs);
	u64map_free(&t->string_ids);
	u64map_free(&t->proc_ids);
	u64map_free(&t->out_ids);
	u64map_free(&t->lane_ids);
	free(t->lanes);
	free(t->host_json);
	free(t->run_json);
	free(t->base);
	free(t->ext);
	free(t);
	return ret;
}

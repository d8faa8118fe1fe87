/*
 * dc-mkstream - write a datacrumbs stream from a text description.
 *
 * A test helper: the tests describe a stream line by line (header, probes,
 * processes, strings, events, drops, end) and get the exact binary stream
 * that dc-collect or dc-aggregate would write, through the one writer in
 * lib/stream.c.  It can also damage the stream on purpose (a frame cut
 * short, a flipped byte) and generate a large realistic stream for
 * benchmarks (--synthetic N).
 *
 * Input lines (values decimal, ret and args may be negative):
 *
 *   # comment
 *   header host=node1 run=r1 offset=1700000000000000000 start=1000 [ids=0|1]
 *          (ids=1, the default: as dc-aggregate writes it, event seq and
 *          parent are stream ids, seq numbered 1, 2, 3... in record
 *          order unless given; ids=0: as dc-collect writes it)
 *   probe id=0 kind=uprobe layer=POSIX name=write target=/lib/libc.so.6
 *         args=fd,ptr,size ret=size [offset=N]
 *   process pid=100 ppid=1 uid=0 gid=0 rank=-1 exe=/bin/dd
 *           cmdline="dd if=x of=y" cwd=/tmp [flags=N start=N]
 *           [job="k=v k=v"] [taken=N]   (taken: the time /proc was read,
 *           after the job string; without it, none, as older streams)
 *   fds pid=100 [taken=N] 3=/tmp/f 1=pipe:[7]   (an FDS frame)
 *   string id=3 value=/tmp/f
 *   call probe=0 pid=100 tid=100 ts=5000 dur=2000 ret=4096 depth=0
 *        args=3,0,4096 str=/tmp/f file=3 flags=0 [type=N] [seq=N parent=N]
 *        [error=N]
 *   enter|exit|instant|exec|exitproc ...   (same keys, other record type)
 *   fork pid=100 tid=100 ts=.. child=101   (child goes to args[0])
 *   repeat N <event line>   (N events, ts advancing by dur+1000 each)
 *   drops kind=cpu|probe|process total=5 0=3 1=2
 *   sysinfo KEY=VALUE...
 *   counters start=NS interval=NS pid=P probe=ID calls=N dur=NS bytes=N
 *            errors=N [pid=P probe=ID ...]...
 *                    (one COUNTERS frame; each pid= starts an entry, the
 *                    keys after it fill that entry, missing ones are 0;
 *                    the interval's end counts as an event end for the
 *                    default end ts=)
 *   raw type=N [hex=0011aa...]   (any frame, e.g. unknown or malformed)
 *   end [events=AUTO|N] [dropped=N] [flags=N] [ts=N]
 *   truncate BYTES   (write only BYTES bytes of the next frame, then stop)
 *   corrupt          (flip a payload byte of the next frame)
 *
 * Events are batched into EVENTS frames of at most 512 records; any other
 * line flushes the batch first.  The header line is optional (defaults:
 * this host, no run id, offset 1700000000000000000, start 0) and must come
 * before every other frame.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "messages.h"
#include "spec.h"
#include "stream.h"

#define BATCH_MAX 512
#define MAX_TOKENS 64
#define PAD8(n) (((n) + 7u) & ~7u)

/* The stream being written, and where in the description it is. */
struct mk {
	struct dc_writer *writer;
	struct dc_stream_info info;
	int header_done;
	unsigned char *batch;     /* pending EVENTS payload */
	size_t batch_len, batch_cap;
	unsigned batch_count;
	uint64_t events_total;
	uint64_t auto_seq;        /* the last seq numbered for ids=1 */
	uint64_t last_event_end;  /* the default end ts= */
	long truncate_next;       /* bytes of the next frame to write; -1 */
	int corrupt_next;
	int stopped;              /* a truncated frame was written */
	unsigned long lineno;
	uint64_t rng_state;       /* --synthetic's random numbers */
};

/* ---- errors ---- */

static void bad(struct mk *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void bad(struct mk *m, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	die_status(DC_EXIT_BADINPUT, "line %lu: %s", m->lineno, msg);
}

/* ---- output ---- */

static void start_stream(struct mk *m)
{
	if (m->header_done)
		return;
	m->writer = dc_writer_open(STDOUT_FILENO, &m->info);
	if (m->writer == NULL)
		sysdie("cannot write the stream header");
	m->header_done = 1;
}

/*
 * A damaged frame cannot go through dc_writer_frame, which only writes
 * good ones: lay it out here (the 16-byte frame header of dc-stream(5))
 * after flushing the writer, then cut or flip it.
 */
static void write_damaged(struct mk *m, uint16_t type, const void *data,
			  uint32_t len)
{
	size_t total = DC_FRAME_HDR_SIZE + PAD8(len);
	unsigned char *buf = xcalloc(1, total);
	uint32_t crc = (uint32_t)crc32(0L, data, len);
	uint16_t flags = 0;

	memcpy(buf, &type, 2);
	memcpy(buf + 2, &flags, 2);
	memcpy(buf + 4, &len, 4);
	memcpy(buf + 8, &crc, 4);
	memcpy(buf + DC_FRAME_HDR_SIZE, data, len);
	if (m->corrupt_next && len > 0) {
		buf[DC_FRAME_HDR_SIZE + len / 2] ^= 0x5a;
		m->corrupt_next = 0;
	}
	if (m->truncate_next >= 0) {
		if ((size_t)m->truncate_next < total)
			total = (size_t)m->truncate_next;
		m->stopped = 1;
	}
	if (dc_writer_flush(m->writer) != 0 || dc_write_all(STDOUT_FILENO, buf,
							    total) != 0)
		sysdie("cannot write standard output");
	free(buf);
}

static void put_frame(struct mk *m, uint16_t type, const void *data,
		      uint32_t len)
{
	start_stream(m);
	if (m->stopped)
		return;
	if (m->truncate_next >= 0 || m->corrupt_next) {
		write_damaged(m, type, data, len);
		return;
	}
	if (dc_writer_frame(m->writer, type, data, len) != 0)
		sysdie("cannot write standard output");
}

static void flush_batch(struct mk *m)
{
	if (m->batch_count == 0)
		return;
	put_frame(m, DC_FRAME_EVENTS, m->batch, (uint32_t)m->batch_len);
	m->batch_len = 0;
	m->batch_count = 0;
}

/* ---- tokens ---- */

struct token {
	char *key;   /* NULL for a bare word */
	char *value;
};

/* Split a line into words and key=value pairs; values may be "quoted"
 * with \" and \\ escapes.  Modifies line. */
static int tokenize(struct mk *m, char *line, struct token *tok, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *start, *out;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '\n' || *p == '#')
			break;
		if (n == max)
			bad(m, "too many words");
		start = out = p;
		tok[n].key = NULL;
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n') {
			if (*p == '=' && tok[n].key == NULL) {
				*out++ = '\0';
				tok[n].key = start;
				start = out;
				p++;
				if (*p == '"') {
					p++;
					while (*p != '"') {
						if (*p == '\0' || *p == '\n')
							bad(m, "unterminated quoted value");
						if (*p == '\\' && p[1] != '\0')
							p++;
						*out++ = *p++;
					}
					p++;
				}
				continue;
			}
			*out++ = *p++;
		}
		if (*p != '\0')
			p++;
		*out = '\0';
		tok[n].value = start;
		n++;
	}
	return n;
}

static const char *get(struct token *tok, int n, const char *key)
{
	int i;

	for (i = 0; i < n; i++)
		if (tok[i].key != NULL && strcmp(tok[i].key, key) == 0)
			return tok[i].value;
	return NULL;
}

static int64_t num(struct mk *m, const char *s, const char *what)
{
	char *end;
	int64_t v;

	errno = 0;
	if (*s == '-')
		v = strtoll(s, &end, 10);
	else
		v = (int64_t)strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0')
		bad(m, "bad number '%s' for %s", s, what);
	return v;
}

static int64_t get_num(struct mk *m, struct token *tok, int n, const char *key,
		       int64_t dflt)
{
	const char *v = get(tok, n, key);

	return v ? num(m, v, key) : dflt;
}

/* The kind named s, by the parser of lib/spec.c (dc-probes(5)'s names,
 * which the spec and the stream share: kept in one place, so that a
 * kind added there is known here too), or die. */
static int kind_of(struct mk *m, int (*parse)(const char *), const char *s,
		   const char *what)
{
	int k = parse(s);

	if (k < 0)
		bad(m, "unknown %s '%s'", what, s);
	return k;
}

/* ---- frames ---- */

static void do_header(struct mk *m, struct token *tok, int n)
{
	const char *v;

	if (m->header_done)
		bad(m, "header must come before every other line");
	if ((v = get(tok, n, "host")) != NULL)
		snprintf(m->info.host, sizeof(m->info.host), "%s", v);
	if ((v = get(tok, n, "run")) != NULL)
		snprintf(m->info.run_id, sizeof(m->info.run_id), "%s", v);
	m->info.clock_offset_ns = get_num(m, tok, n, "offset",
					  m->info.clock_offset_ns);
	m->info.start_mono_ns = (uint64_t)get_num(m, tok, n, "start", 0);
	if (get_num(m, tok, n, "ids", 1) == 0)
		m->info.flags &= ~(uint32_t)DC_STREAM_F_IDS;
	start_stream(m);
}

static size_t put_str_or_die(struct mk *m, unsigned char *buf, size_t cap,
			     size_t pos, const char *s)
{
	size_t r = dc_put_str(buf, cap, pos, s ? s : "", s ? strlen(s) : 0);

	if (r == 0)
		bad(m, "strings too long for one frame");
	return r;
}

static void do_probe(struct mk *m, struct token *tok, int n)
{
	static unsigned char buf[3 * 65600 + sizeof(struct dc_probe_rec)];
	struct dc_probe_rec rec;
	const char *v;
	size_t pos;

	memset(&rec, 0, sizeof(rec));
	rec.id = (uint32_t)get_num(m, tok, n, "id", 0);
	v = get(tok, n, "kind");
	rec.kind = v ? (uint16_t)kind_of(m, dc_probe_kind_parse, v, "probe kind")
		     : DC_PROBE_UPROBE;
	v = get(tok, n, "ret");
	rec.ret_kind = v ? (uint8_t)kind_of(m, dc_ret_kind_parse, v,
					    "return kind") : DC_RET_NONE;
	rec.offset = (uint64_t)get_num(m, tok, n, "offset", 0);
	v = get(tok, n, "args");
	if (v != NULL && *v != '\0') {
		char *list = xstrdup(v), *save = NULL, *a;

		for (a = strtok_r(list, ",", &save); a != NULL;
		     a = strtok_r(NULL, ",", &save)) {
			if (rec.nargs == DC_MAX_ARGS)
				bad(m, "more than %d arguments", DC_MAX_ARGS);
			rec.arg_kinds[rec.nargs++] = (uint8_t)kind_of(m,
				dc_arg_kind_parse, a, "argument kind");
		}
		free(list);
	}
	memcpy(buf, &rec, sizeof(rec));
	pos = sizeof(rec);
	pos = put_str_or_die(m, buf, sizeof(buf), pos, get(tok, n, "layer"));
	pos = put_str_or_die(m, buf, sizeof(buf), pos, get(tok, n, "name"));
	pos = put_str_or_die(m, buf, sizeof(buf), pos, get(tok, n, "target"));
	put_frame(m, DC_FRAME_PROBE, buf, (uint32_t)pos);
}

static void do_process(struct mk *m, struct token *tok, int n)
{
	static unsigned char buf[4 * 65600 + 8 + sizeof(struct dc_process_rec)];
	struct dc_process_rec rec;
	char *cmdline = NULL;
	const char *v;
	size_t pos;

	memset(&rec, 0, sizeof(rec));
	rec.pid = (uint32_t)get_num(m, tok, n, "pid", 0);
	rec.ppid = (uint32_t)get_num(m, tok, n, "ppid", 0);
	rec.uid = (uint32_t)get_num(m, tok, n, "uid", 0);
	rec.gid = (uint32_t)get_num(m, tok, n, "gid", 0);
	rec.rank = (int32_t)get_num(m, tok, n, "rank", -1);
	rec.flags = (uint32_t)get_num(m, tok, n, "flags", 0);
	rec.start_mono_ns = (uint64_t)get_num(m, tok, n, "start", 0);
	memcpy(buf, &rec, sizeof(rec));
	pos = sizeof(rec);
	pos = put_str_or_die(m, buf, sizeof(buf), pos, get(tok, n, "exe"));
	/* The command line travels with NUL between arguments. */
	v = get(tok, n, "cmdline");
	if (v != NULL) {
		char *p;

		cmdline = xstrdup(v);
		for (p = cmdline; *p != '\0'; p++)
			if (*p == ' ')
				*p = '\0';
		pos = dc_put_str(buf, sizeof(buf), pos, cmdline, strlen(v));
		if (pos == 0)
			bad(m, "command line too long");
		free(cmdline);
	} else {
		pos = put_str_or_die(m, buf, sizeof(buf), pos, "");
	}
	pos = put_str_or_die(m, buf, sizeof(buf), pos, get(tok, n, "cwd"));
	v = get(tok, n, "job");
	if (v != NULL || get(tok, n, "taken") != NULL) {
		/* key=value pairs travel NUL-separated, like the command line */
		char *job = xstrdup(v ? v : ""), *p;

		for (p = job; *p != '\0'; p++)
			if (*p == ' ')
				*p = '\0';
		pos = dc_put_str(buf, sizeof(buf), pos, job,
				 strlen(v ? v : ""));
		free(job);
		if (pos == 0)
			bad(m, "job string too long");
	}
	if (get(tok, n, "taken") != NULL) {
		uint64_t taken = (uint64_t)get_num(m, tok, n, "taken", 0);

		memcpy(buf + pos, &taken, 8);
		pos += 8;
	}
	put_frame(m, DC_FRAME_PROCESS, buf, (uint32_t)pos);
}

static void do_fds(struct mk *m, struct token *tok, int n)
{
	static unsigned char buf[MAX_TOKENS * (4 + 2 + 4096) + 16];
	struct dc_fds_rec rec;
	size_t pos = sizeof(rec);
	int i;

	memset(&rec, 0, sizeof(rec));
	rec.pid = (uint32_t)get_num(m, tok, n, "pid", 0);
	for (i = 1; i < n; i++) {
		int32_t fd;

		if (tok[i].key == NULL ||
		    ((tok[i].key[0] < '0' || tok[i].key[0] > '9') &&
		     tok[i].key[0] != '-'))
			continue;
		fd = (int32_t)num(m, tok[i].key, "fd");
		memcpy(buf + pos, &fd, 4);
		pos = put_str_or_die(m, buf, sizeof(buf) - 8, pos + 4,
				     tok[i].value);
		rec.count++;
	}
	memcpy(buf, &rec, sizeof(rec));
	if (get(tok, n, "taken") != NULL) {
		uint64_t taken = (uint64_t)get_num(m, tok, n, "taken", 0);

		memcpy(buf + pos, &taken, 8);
		pos += 8;
	}
	put_frame(m, DC_FRAME_FDS, buf, (uint32_t)pos);
}

static void do_string(struct mk *m, struct token *tok, int n)
{
	const char *v = get(tok, n, "value");
	uint32_t id = (uint32_t)get_num(m, tok, n, "id", 0);
	size_t len;
	unsigned char *buf;

	if (v == NULL)
		bad(m, "string needs value=");
	len = strlen(v);
	buf = xmalloc(4 + len);
	memcpy(buf, &id, 4);
	memcpy(buf + 4, v, len);
	put_frame(m, DC_FRAME_STRING, buf, (uint32_t)(4 + len));
	free(buf);
}

static void do_drops(struct mk *m, struct token *tok, int n)
{
	struct dc_drops_rec rec;
	struct dc_drops_entry ent[MAX_TOKENS];
	const char *v = get(tok, n, "kind");
	unsigned char buf[sizeof(rec) + sizeof(ent)];
	int i;

	memset(&rec, 0, sizeof(rec));
	memset(ent, 0, sizeof(ent));
	rec.kind = DC_DROPS_PER_CPU;
	if (v != NULL)
		rec.kind = strcmp(v, "probe") == 0 ? DC_DROPS_PER_PROBE
		      : strcmp(v, "cpu") == 0 ? DC_DROPS_PER_CPU
		      : strcmp(v, "process") == 0 ? DC_DROPS_PER_PROCESS
		      : strcmp(v, "unattributed") == 0 ? DC_DROPS_UNATTRIBUTED
					      : (uint32_t)num(m, v, "kind");
	rec.total = (uint64_t)get_num(m, tok, n, "total", 0);
	for (i = 1; i < n; i++) {
		if (tok[i].key == NULL || tok[i].key[0] < '0' || tok[i].key[0] > '9')
			continue;
		ent[rec.count].key = (uint32_t)num(m, tok[i].key, "drops key");
		ent[rec.count].dropped = (uint64_t)num(m, tok[i].value,
						       "drops count");
		rec.count++;
	}
	memcpy(buf, &rec, sizeof(rec));
	memcpy(buf + sizeof(rec), ent, rec.count * sizeof(ent[0]));
	put_frame(m, DC_FRAME_DROPS, buf,
		  (uint32_t)(sizeof(rec) + rec.count * sizeof(ent[0])));
}

static void do_sysinfo(struct mk *m, struct token *tok, int n)
{
	static unsigned char buf[MAX_TOKENS * 2 * 260];
	size_t pos = 0;
	int i;

	for (i = 1; i < n; i++) {
		if (tok[i].key == NULL)
			bad(m, "sysinfo takes KEY=VALUE pairs");
		pos = put_str_or_die(m, buf, sizeof(buf), pos, tok[i].key);
		pos = put_str_or_die(m, buf, sizeof(buf), pos, tok[i].value);
	}
	put_frame(m, DC_FRAME_SYSINFO, buf, (uint32_t)pos);
}

static void do_raw(struct mk *m, struct token *tok, int n)
{
	const char *hex = get(tok, n, "hex");
	size_t len = hex ? strlen(hex) : 0, i;
	unsigned char *buf;

	if (len % 2 != 0)
		bad(m, "hex= needs an even number of digits");
	buf = xmalloc(len / 2 + 1);
	for (i = 0; i < len / 2; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			bad(m, "bad hex digits in '%s'", hex);
		buf[i] = (unsigned char)v;
	}
	put_frame(m, (uint16_t)get_num(m, tok, n, "type", 0), buf,
		  (uint32_t)(len / 2));
	free(buf);
}

/* One COUNTERS frame: a pid= key opens the next entry. */
static void do_counters(struct mk *m, struct token *tok, int n)
{
	struct dc_counters_rec rec;
	struct dc_counter_entry ent[MAX_TOKENS], *e = NULL;
	unsigned char buf[sizeof(rec) + sizeof(ent)];
	int i;

	memset(&rec, 0, sizeof(rec));
	memset(ent, 0, sizeof(ent));
	for (i = 1; i < n; i++) {
		const char *k = tok[i].key;
		uint64_t v;

		if (k == NULL)
			bad(m, "counters takes KEY=VALUE pairs, not '%s'",
			    tok[i].value);
		v = (uint64_t)num(m, tok[i].value, k);
		if (strcmp(k, "start") == 0) {
			rec.start_mono_ns = v;
		} else if (strcmp(k, "interval") == 0) {
			rec.interval_ns = v;
		} else if (strcmp(k, "reserved") == 0) {
			rec.reserved = (uint32_t)v;
		} else if (strcmp(k, "pid") == 0) {
			e = &ent[rec.count++];
			e->pid = (uint32_t)v;
		} else if (e == NULL) {
			bad(m, "counters: '%s=' before the first pid=", k);
		} else if (strcmp(k, "probe") == 0) {
			e->probe_id = (uint32_t)v;
		} else if (strcmp(k, "calls") == 0) {
			e->calls = v;
		} else if (strcmp(k, "dur") == 0) {
			e->dur_ns = v;
		} else if (strcmp(k, "bytes") == 0) {
			e->bytes = v;
		} else if (strcmp(k, "errors") == 0) {
			e->errors = v;
		} else {
			bad(m, "counters: unknown key '%s'", k);
		}
	}
	if (rec.start_mono_ns + rec.interval_ns > m->last_event_end)
		m->last_event_end = rec.start_mono_ns + rec.interval_ns;
	memcpy(buf, &rec, sizeof(rec));
	memcpy(buf + sizeof(rec), ent, rec.count * sizeof(ent[0]));
	put_frame(m, DC_FRAME_COUNTERS, buf,
		  (uint32_t)(sizeof(rec) + rec.count * sizeof(ent[0])));
}

static void do_end(struct mk *m, struct token *tok, int n)
{
	struct dc_end_rec rec;
	const char *v = get(tok, n, "events");

	memset(&rec, 0, sizeof(rec));
	rec.events = (v == NULL || strcmp(v, "AUTO") == 0)
		? m->events_total : (uint64_t)num(m, v, "events");
	rec.dropped = (uint64_t)get_num(m, tok, n, "dropped", 0);
	rec.flags = (uint32_t)get_num(m, tok, n, "flags", 0);
	rec.end_mono_ns = (uint64_t)get_num(m, tok, n, "ts",
					    (int64_t)m->last_event_end);
	put_frame(m, DC_FRAME_END, &rec, sizeof(rec));
}

/* ---- events ---- */

static void add_event(struct mk *m, const struct dc_event *hdr,
		      const uint64_t *args, const char *str)
{
	size_t slen = str ? strlen(str) : 0;
	size_t size = PAD8(DC_EVENT_HDR_SIZE + 8u * hdr->nargs +
			   (slen ? slen + 1 : 0));
	struct dc_event *ev;

	if (slen >= DC_MAX_STR)
		bad(m, "string longer than %d bytes", DC_MAX_STR - 1);
	start_stream(m);
	if (m->batch_len + size > m->batch_cap) {
		m->batch_cap = (m->batch_len + size) * 2;
		m->batch = xrealloc(m->batch, m->batch_cap);
	}
	ev = (struct dc_event *)(m->batch + m->batch_len);
	memset(ev, 0, size);
	memcpy(ev, hdr, DC_EVENT_HDR_SIZE);
	ev->size = (uint16_t)size;
	ev->str_len = (uint16_t)slen;
	memcpy(DC_EVENT_ARGS(ev), args, 8u * hdr->nargs);
	if (slen)
		memcpy(DC_EVENT_STR(ev), str, slen);
	m->batch_len += size;
	m->batch_count++;
	m->events_total++;
	if (hdr->ts + hdr->dur > m->last_event_end)
		m->last_event_end = hdr->ts + hdr->dur;
	if (m->batch_count == BATCH_MAX)
		flush_batch(m);
}

static const char *const event_words[] = {
	NULL, "call", "enter", "exit", "instant", "exec", "fork", "exitproc",
};

static void do_event(struct mk *m, int type, struct token *tok, int n,
		     uint64_t repeat)
{
	struct dc_event ev;
	uint64_t args[DC_MAX_ARGS];
	const char *v;
	uint64_t i;

	memset(&ev, 0, sizeof(ev));
	memset(args, 0, sizeof(args));
	ev.type = (uint8_t)get_num(m, tok, n, "type", type);
	ev.flags = (uint8_t)get_num(m, tok, n, "flags", 0);
	ev.probe_id = (uint32_t)get_num(m, tok, n, "probe", 0);
	ev.pid = (uint32_t)get_num(m, tok, n, "pid", 0);
	ev.tid = (uint32_t)get_num(m, tok, n, "tid", ev.pid);
	ev.ts = (uint64_t)get_num(m, tok, n, "ts", 0);
	ev.dur = (uint64_t)get_num(m, tok, n, "dur", 0);
	ev.ret = get_num(m, tok, n, "ret", 0);
	ev.depth = (uint16_t)get_num(m, tok, n, "depth", 0);
	ev.file_id = (uint32_t)get_num(m, tok, n, "file", 0);
	ev.parent = (uint64_t)get_num(m, tok, n, "parent", 0);
	ev.error = (int32_t)get_num(m, tok, n, "error", 0);
	v = get(tok, n, "seq");
	if (v != NULL)
		ev.seq = (uint64_t)num(m, v, "seq");
	v = get(tok, n, "args");
	if (v != NULL && *v != '\0') {
		char *list = xstrdup(v), *save = NULL, *a;

		for (a = strtok_r(list, ",", &save); a != NULL;
		     a = strtok_r(NULL, ",", &save)) {
			if (ev.nargs == DC_MAX_ARGS)
				bad(m, "more than %d arguments", DC_MAX_ARGS);
			args[ev.nargs++] = (uint64_t)num(m, a, "args");
		}
		free(list);
	}
	if ((v = get(tok, n, "child")) != NULL) {
		args[0] = (uint64_t)num(m, v, "child");
		if (ev.nargs == 0)
			ev.nargs = 1;
	}
	v = get(tok, n, "str");
	for (i = 0; i < repeat; i++) {
		if (get(tok, n,
			"seq") == NULL && (m->info.flags & DC_STREAM_F_IDS))
			ev.seq = ++m->auto_seq;
		add_event(m, &ev, args, v);
		ev.ts += ev.dur + 1000;
	}
}

static int event_type(const char *word)
{
	int i;

	for (i = 1; i < (int)(sizeof(event_words) / sizeof(event_words[0])); i++)
		if (strcmp(word, event_words[i]) == 0)
			return i;
	return 0;
}

static void do_line(struct mk *m, char *line)
{
	struct token tok[MAX_TOKENS];
	int n = tokenize(m, line, tok, MAX_TOKENS), type;
	const char *word;

	if (n == 0)
		return;
	if (tok[0].key != NULL)
		bad(m, "a line starts with a keyword, not '%s='", tok[0].key);
	word = tok[0].value;
	if (strcmp(word, "repeat") == 0) {
		int64_t count;

		if (n < 3 || tok[1].key != NULL || tok[2].key != NULL)
			bad(m, "usage: repeat N EVENT-LINE");
		count = num(m, tok[1].value, "repeat count");
		type = event_type(tok[2].value);
		if (type == 0 || count < 0)
			bad(m, "repeat needs a count and an event line");
		do_event(m, type, tok + 2, n - 2, (uint64_t)count);
		return;
	}
	type = event_type(word);
	if (type != 0) {
		do_event(m, type, tok, n, 1);
		return;
	}
	flush_batch(m);
	if (strcmp(word, "header") == 0)
		do_header(m, tok, n);
	else if (strcmp(word, "probe") == 0)
		do_probe(m, tok, n);
	else if (strcmp(word, "process") == 0)
		do_process(m, tok, n);
	else if (strcmp(word, "fds") == 0)
		do_fds(m, tok, n);
	else if (strcmp(word, "string") == 0)
		do_string(m, tok, n);
	else if (strcmp(word, "drops") == 0)
		do_drops(m, tok, n);
	else if (strcmp(word, "sysinfo") == 0)
		do_sysinfo(m, tok, n);
	else if (strcmp(word, "counters") == 0)
		do_counters(m, tok, n);
	else if (strcmp(word, "end") == 0)
		do_end(m, tok, n);
	else if (strcmp(word, "raw") == 0)
		do_raw(m, tok, n);
	else if (strcmp(word, "truncate") == 0) {
		if (n != 2)
			bad(m, "usage: truncate BYTES");
		m->truncate_next = (long)num(m, tok[1].value, "truncate");
	} else if (strcmp(word, "corrupt") == 0)
		m->corrupt_next = 1;
	else
		bad(m, "unknown keyword '%s'", word);
}

/* ---- synthetic streams ---- */

static uint64_t rnd(struct mk *m)
{
	/* xorshift64*: deterministic across runs and hosts. */
	m->rng_state ^= m->rng_state >> 12;
	m->rng_state ^= m->rng_state << 25;
	m->rng_state ^= m->rng_state >> 27;
	return m->rng_state * 0x2545f4914f6cdd1dull;
}

static uint64_t rnd_range(struct mk *m, uint64_t lo, uint64_t hi)
{
	return lo + rnd(m) % (hi - lo + 1);
}

enum { P_OPEN, P_READ, P_WRITE, P_PWRITE, P_LSEEK, P_CLOSE, P_COUNT };

static void synth_event(struct mk *m, int probe, uint32_t pid, uint32_t tid,
			uint64_t *ts, uint64_t dur, int64_t ret, uint32_t file,
			const char *str, int nargs, const uint64_t *args)
{
	struct dc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = DC_EV_CALL;
	ev.probe_id = (uint32_t)probe;
	ev.pid = pid;
	ev.tid = tid;
	ev.ts = *ts;
	ev.dur = dur;
	ev.ret = ret;
	ev.file_id = file;
	ev.nargs = (uint8_t)nargs;
	ev.seq = ++m->auto_seq;
	add_event(m, &ev, args, str);
	*ts += dur + rnd_range(m, 500, 8000);
}

#define SYNTH_FILES 100

/* The synthetic stream's header, probes, two ranks and file names. */
static void synth_start(struct mk *m, char path[SYNTH_FILES][64])
{
	static const struct {
		const char *name, *args, *ret;
	} probes[P_COUNT] = {
		[P_OPEN] = { "open", "path,flags,mode", "fd" },
		[P_READ] = { "read", "fd,ptr,size", "size" },
		[P_WRITE] = { "write", "fd,ptr,size", "size" },
		[P_PWRITE] = { "pwrite", "fd,ptr,size,offset", "size" },
		[P_LSEEK] = { "lseek", "fd,offset,whence", "offset" },
		[P_CLOSE] = { "close", "fd", "status" },
	};
	char line[8192];
	int i;

	snprintf(m->info.host, sizeof(m->info.host), "synth");
	snprintf(m->info.run_id, sizeof(m->info.run_id), "synthetic");
	m->info.clock_offset_ns = 1700000000000000000ll;
	m->info.start_mono_ns = 1000000000ull;
	start_stream(m);
	for (i = 0; i < P_COUNT; i++) {
		snprintf(line, sizeof(line),
			 "probe id=%d kind=uprobe layer=POSIX name=%s "
			 "target=/usr/lib/x86_64-linux-gnu/libc.so.6 args=%s ret=%s",
			 i, probes[i].name, probes[i].args, probes[i].ret);
		do_line(m, line);
	}
	for (i = 0; i < 2; i++) {
		snprintf(line, sizeof(line),
			 "process pid=%d ppid=4000 uid=1000 gid=1000 rank=%d "
			 "exe=/usr/bin/ior cmdline=\"ior -w -r -t 1m -b 64m\" "
			 "cwd=/lustre/scratch/user/run", 4242 + i, i);
		do_line(m, line);
	}
	for (i = 0; i < SYNTH_FILES; i++) {
		snprintf(path[i], 64, "/lustre/scratch/user/run/ior.data.%05d",
			 i);
		snprintf(line, sizeof(line), "string id=%d value=%s", i + 1,
			 path[i]);
		do_line(m, line);
	}
}

/* A file a rank has open: written or read in transfers of xfer bytes. */
struct synth_open {
	uint32_t pid, file;
	int fd, writing;
	uint64_t xfer, off;
	uint64_t *ts;             /* the rank's clock */
};

/* One transfer on o, or, one time in 16, an lseek to a new offset. */
static void synth_transfer(struct mk *m, struct synth_open *o)
{
	uint64_t kind = rnd(m) % 16, a[4];
	uint64_t dur = o->xfer > 4096 ? rnd_range(m, 150000, 900000)
				      : rnd_range(m, 1500, 9000);

	a[0] = (uint64_t)o->fd;
	if (kind == 0) {
		o->off = o->xfer * rnd_range(m, 0, 63);
		a[1] = o->off;
		a[2] = 0;
		synth_event(m, P_LSEEK, o->pid, o->pid, o->ts, rnd_range(m, 300,
									 1200),
			    (int64_t)o->off, o->file, NULL, 3, a);
		return;
	}
	a[1] = 0x7f3a5c000000ull;
	a[2] = o->xfer;
	if (o->writing && kind < 4) {
		a[3] = o->off;
		synth_event(m, P_PWRITE, o->pid, o->pid, o->ts, dur,
			    (int64_t)o->xfer, o->file, NULL, 4, a);
	} else {
		synth_event(m, o->writing ? P_WRITE : P_READ, o->pid, o->pid,
			    o->ts, dur, (int64_t)o->xfer, o->file, NULL, 3, a);
	}
	o->off += o->xfer;
}

/* A random rank opens a random file, makes 8 to 200 transfers and closes
 * it, within count events in all; returns the events written so far. */
static uint64_t synth_session(struct mk *m, uint64_t ts[2],
			      char path[SYNTH_FILES][64], uint64_t done,
			      uint64_t count)
{
	int rank = (int)(rnd(m) % 2), f = (int)(rnd(m) % SYNTH_FILES);
	struct synth_open o = {
		.pid = 4242u + (uint32_t)rank, .file = (uint32_t)f + 1,
		.ts = &ts[rank],
	};
	uint64_t ops, a[3];

	o.fd = 3 + (int)(rnd(m) % 4);
	o.writing = rnd(m) % 3 != 0;
	o.xfer = rnd(m) % 4 ? 1048576 : 4096;
	ops = rnd_range(m, 8, 200);
	a[0] = 0; /* the path travels inline */
	a[1] = o.writing ? 0101 : 0;
	a[2] = o.writing ? 0644 : 0;
	synth_event(m, P_OPEN, o.pid, o.pid, o.ts, rnd_range(m, 8000, 60000),
		    o.fd,
		    o.file, path[f], 3, a);
	done++;
	for (; ops > 0 && done + 1 < count; ops--, done++)
		synth_transfer(m, &o);
	if (done < count) {
		a[0] = (uint64_t)o.fd;
		synth_event(m, P_CLOSE, o.pid, o.pid, o.ts, rnd_range(m, 2000,
								      20000),
			    0, o.file, NULL, 1, a);
		done++;
	}
	return done;
}

/*
 * An IOR-like POSIX workload: two ranks of one job each open files from a
 * set of 100, write or read them in 1 MiB or 4 KiB transfers (sometimes
 * with pwrite or after an lseek) and close them.
 */
static void synthetic(struct mk *m, uint64_t count)
{
	char line[8], path[SYNTH_FILES][64];
	uint64_t ts[2] = { 2000000000ull, 2000350000ull };
	uint64_t done = 0;

	synth_start(m, path);
	while (done < count)
		done = synth_session(m, ts, path, done, count);
	do_line(m, strcpy(line, "end"));
}

/*
 * A stream as the collector writes it (ids=0), for dc-aggregate's memory
 * bench: what is open at any moment stays the same however long the
 * stream.  4 processes of 2 threads; each thread runs inside one call
 * ("main") that stays open until its process exits, with open, write and
 * close library calls under it, each with the system call it made one
 * level further down; records come as calls return, the system call
 * first.  Each open's fd is closed again.  Every 100,000 events a
 * process exits and another (a new pid) takes its place.
 */
enum { N_MAIN, N_OPEN, N_WRITE, N_CLOSE, N_SYS_OPEN, N_SYS_WRITE,
       N_SYS_CLOSE, N_COUNT };

struct nthread {
	uint32_t pid, tid;
	uint64_t seq, ts, main_ts;
};

static void nested_event(struct mk *m, int probe, struct nthread *t,
			 uint64_t seq, uint64_t parent, uint16_t depth,
			 uint64_t ts, uint64_t dur, int64_t ret,
			 const char *str, int nargs, const uint64_t *args)
{
	struct dc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = DC_EV_CALL;
	ev.probe_id = (uint32_t)probe;
	ev.pid = t->pid;
	ev.tid = t->tid;
	ev.ts = ts;
	ev.dur = dur;
	ev.ret = ret;
	ev.depth = depth;
	ev.nargs = (uint8_t)nargs;
	ev.seq = seq;
	ev.parent = parent;
	add_event(m, &ev, args, str);
}

/* One library call with its system call under it: 2 records. */
static void nested_pair(struct mk *m, struct nthread *t, int lib, int sys,
			int64_t ret, const char *str, int nargs,
			const uint64_t *args)
{
	uint64_t lib_seq = ++t->seq, sys_seq = ++t->seq;
	uint64_t dur = rnd_range(m, 2000, 40000);

	nested_event(m, sys, t, sys_seq, lib_seq, 2, t->ts + 500, dur - 1000,
		     ret, str, nargs, args);
	nested_event(m, lib, t, lib_seq, 1, 1, t->ts, dur, ret, str, nargs,
		     args);
	t->ts += dur + rnd_range(m, 500, 4000);
}

static void nested_start(struct mk *m, struct nthread *th, int slot,
			 uint32_t pid)
{
	char line[512];
	int k;

	snprintf(line, sizeof(line),
		 "process pid=%u ppid=4000 uid=1000 gid=1000 rank=%d "
		 "exe=/usr/bin/app cmdline=app cwd=/scratch/run", pid, slot);
	do_line(m, line);
	for (k = 0; k < 2; k++) {
		struct nthread *t = &th[2 * slot + k];

		t->pid = pid;
		t->tid = pid + (uint32_t)k;
		t->seq = 1; /* main, entered first */
		t->main_ts = t->ts;
		t->ts += 1000;
	}
}

static void nested_stop(struct mk *m, struct nthread *th, int slot)
{
	struct dc_event ev;
	int k;

	for (k = 0; k < 2; k++) {
		struct nthread *t = &th[2 * slot + k];

		nested_event(m, N_MAIN, t, 1, 0, 0, t->main_ts,
			     t->ts - t->main_ts,
			     0, NULL, 0, NULL);
	}
	memset(&ev, 0, sizeof(ev));
	ev.type = DC_EV_EXIT_PROC;
	ev.pid = ev.tid = th[2 * slot].pid;
	ev.ts = th[2 * slot].ts;
	add_event(m, &ev, NULL, NULL);
}

static void synthetic_nested(struct mk *m, uint64_t count)
{
	static const char *const probes[N_COUNT] = {
		[N_MAIN] = "kind=uprobe layer=APP name=main target=/usr/bin/app",
		[N_OPEN] = "kind=uprobe layer=POSIX name=open target=libc.so.6 args=path,flags,mode ret=fd",
		[N_WRITE] = "kind=uprobe layer=POSIX name=write target=libc.so.6 args=fd,ptr,size ret=size",
		[N_CLOSE] = "kind=uprobe layer=POSIX name=close target=libc.so.6 args=fd ret=status",
		[N_SYS_OPEN] = "kind=syscall layer=sys name=openat target=kernel args=fd,path,flags,mode ret=fd",
		[N_SYS_WRITE] = "kind=syscall layer=sys name=write target=kernel args=fd,ptr,size ret=size",
		[N_SYS_CLOSE] = "kind=syscall layer=sys name=close target=kernel args=fd ret=status",
	};
	struct nthread th[8];
	char line[512], path[64];
	uint64_t done = 0, churn = 100000, a[4];
	uint32_t next_pid = 5000;
	int i, slot;

	snprintf(m->info.host, sizeof(m->info.host), "synth");
	snprintf(m->info.run_id, sizeof(m->info.run_id), "nested");
	m->info.clock_offset_ns = 1700000000000000000ll;
	m->info.start_mono_ns = 1000000000ull;
	m->info.flags &= ~(uint32_t)DC_STREAM_F_IDS;
	start_stream(m);
	for (i = 0; i < N_COUNT; i++) {
		snprintf(line, sizeof(line), "probe id=%d %s", i, probes[i]);
		do_line(m, line);
	}
	memset(th, 0, sizeof(th));
	for (slot = 0; slot < 4; slot++) {
		th[2 * slot].ts = th[2 * slot + 1].ts = 2000000000ull;
		nested_start(m, th, slot, next_pid);
		next_pid += 2;
	}
	while (done + 8 <= count) {
		struct nthread *t = &th[rnd(m) % 8];
		uint64_t n = rnd_range(m, 1, 20), fd = 3 + rnd(m) % 60;

		/* A file of 10,000, opened, written n times, closed. */
		snprintf(path, sizeof(path), "/scratch/run/out.%05u",
			 (unsigned)(rnd(m) % 10000));
		a[0] = 0;
		a[1] = 0101;
		a[2] = 0644;
		nested_pair(m, t, N_OPEN, N_SYS_OPEN, (int64_t)fd, path, 3, a);
		done += 2;
		for (; n > 0 && done + 6 <= count; n--, done += 2) {
			a[0] = fd;
			a[1] = 0x7f3a5c000000ull;
			a[2] = 4096;
			nested_pair(m, t, N_WRITE, N_SYS_WRITE, 4096, NULL, 3,
				    a);
		}
		a[0] = fd;
		nested_pair(m, t, N_CLOSE, N_SYS_CLOSE, 0, NULL, 1, a);
		done += 2;
		if (done >= churn && done + 8 <= count) {
			/* A process exits; a new one starts in its slot. */
			slot = (int)(rnd(m) % 4);
			nested_stop(m, th, slot);
			nested_start(m, th, slot, next_pid);
			next_pid += 2;
			done += 3;
			churn += 100000;
		}
	}
	for (slot = 0; slot < 4; slot++)
		nested_stop(m, th, slot);
	do_line(m, strcpy(line, "end"));
}

/* ---- main ---- */

static void usage(void) __attribute__((noreturn));

static void usage(void)
{
	printf("Usage: dc-mkstream [FILE]\n"
	       "       dc-mkstream --synthetic N | --nested N\n"
	       "Write a datacrumbs stream described by FILE (or standard input)\n"
	       "to standard output.  See the comment at the top of\n"
	       "t/helpers/dc-mkstream.c for the description language.\n"
	       "\n"
	       "  -s, --synthetic N  generate a realistic POSIX stream of N events\n"
	       "  -n, --nested N     generate a collector's stream of N nested\n"
	       "                     events, open calls bounded (a memory bench)\n"
	       "  -h, --help         show this help\n"
	       "  -V, --version      show the version\n");
	exit(0);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "synthetic", required_argument, NULL, 's' },
		{ "nested", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct mk mk = {
		.truncate_next = -1,
		.rng_state = 0x9e3779b97f4a7c15ull,
	}, *m = &mk;
	const char *synth = NULL;
	int nested = 0;
	char *line = NULL;
	size_t cap = 0;
	FILE *in = stdin;
	int c;

	dc_messages_init(argv[0]);
	while ((c = getopt_long(argc, argv, "s:n:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			synth = optarg;
			break;
		case 'n':
			synth = optarg;
			nested = 1;
			break;
		case 'h':
			usage();
		case 'V':
			dc_print_version();
		default:
			dc_usage_error("unknown option");
		}
	}
	if (argc - optind > 1 || (synth && argc - optind > 0))
		dc_usage_error("too many arguments");
	dc_stream_info_init(&m->info, NULL);
	m->info.clock_offset_ns = 1700000000000000000ll;
	m->info.start_mono_ns = 0;
	m->info.flags = DC_STREAM_F_IDS;
	if (synth != NULL) {
		char *end;
		unsigned long long n = strtoull(synth, &end, 10);

		if (*synth == '\0' || *end != '\0')
			dc_usage_error("bad event count '%s'", synth);
		if (nested)
			synthetic_nested(m, n);
		else
			synthetic(m, n);
	} else {
		if (optind < argc && (in = fopen(argv[optind], "r")) == NULL)
			sysdie("cannot open %s", argv[optind]);
		while (!m->stopped && getline(&line, &cap, in) >= 0) {
			m->lineno++;
			do_line(m, line);
		}
		if (ferror(in))
			sysdie("cannot read the description");
		flush_batch(m);
		free(line);
	}
	start_stream(m);
	if (dc_writer_close(m->writer) != 0)
		sysdie("cannot write standard output");
	free(m->batch);
	return 0;
}

/*
 * summary.c - dc-write --summary: what a trace holds, per layer, function
 * and file: calls, bytes and time.  It reads any DFTracer trace (ours or
 * another writer's, gzip or plain) the way --check does, line by line
 * through zlib, which reads every gzip member of a multi-member file.
 *
 * Bytes are an event's "bytes" where it has them (fread's items x size,
 * a socket message's length, an io_uring read's result: dc-trace(5)),
 * else the positive return values of calls that take a size (read,
 * write, pwrite...), where the value is at most that size, so short
 * reads count what really moved and mmap's address never does.  Rows
 * are per layer: a send system call and the socket message under it
 * each count the bytes in their own layer's row.  A copy between two
 * files (sendfile, copy_file_range, splice: a size and fhash2) counts
 * in the row of each, the bytes read from one and written to the other.
 *
 * Counter samples (ph "C", profile mode) add their calls, bytes and
 * dur_us to the row of their layer and function, file "-": they name no
 * file.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <zlib.h>

#include "hash.h"
#include "u64map.h"
#include "messages.h"
#include "quote.h"
#include "stream.h"
#include "summary.h"

struct row {
	char *layer, *name, *file;
	unsigned long long calls, bytes, time_us;
};

struct summary {
	struct row *rows;
	size_t nrows, cap;
	struct u64map index;      /* hash of (layer, name, file) -> row + 1 */
	struct u64map fnames;     /* fhash -> name string + 1 (in names) */
	char **names;
	size_t nnames;
	unsigned long long events, samples, dropped;
	long long first_ts, last_ts;
	int truncated, dropped_unknown, have_end;
	struct u64map pids;
};

static long long int_value(json_t *v)
{
	if (json_is_integer(v))
		return (long long)json_integer_value(v);
	if (json_is_string(v))
		return strtoll(json_string_value(v), NULL, 10);
	return -1;
}

/* The file of hash key (fhash, fhash2) of args. */
static const char *file_of(struct summary *s, json_t *args, const char *key)
{
	json_t *fh = json_object_get(args, key);
	const char *fname = json_string_value(json_object_get(args, "fname"));
	uint64_t *slot;

	if (fname != NULL && strcmp(key, "fhash") == 0)
		return fname; /* the 2023 form names files inline */
	if (fh == NULL)
		return "-";
	slot = u64map_get(&s->fnames, (uint64_t)int_value(fh));
	return slot ? s->names[*slot - 1] : "(unnamed)";
}

/* A row's key: its layer, name and file, each with its NUL. */
static uint64_t row_hash(const char *layer, const char *name, const char *file)
{
	uint64_t h = dc_fnv1a(layer, strlen(layer) + 1);

	h = dc_fnv1a_add(h, name, strlen(name) + 1);
	return dc_fnv1a_add(h, file, strlen(file) + 1);
}

struct row_key {
	const struct summary *s;
	const char *layer, *name, *file;
};

static int same_row(uint64_t index, const void *key)
{
	const struct row_key *k = key;
	const struct row *r = &k->s->rows[index - 1];

	return strcmp(r->layer, k->layer) == 0 && strcmp(r->name, k->name) == 0 &&
	       strcmp(r->file, k->file) == 0;
}

static struct row *row_for(struct summary *s, const char *layer,
			   const char *name, const char *file)
{
	struct row_key key = { s, layer, name, file };
	uint64_t h = row_hash(layer, name, file);
	uint64_t *slot;
	struct row *r;

	slot = u64map_find_hashed(&s->index, &h, same_row, &key);
	if (slot != NULL)
		return &s->rows[*slot - 1];
	if (s->nrows == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->rows = xrealloc(s->rows, s->cap * sizeof(*s->rows));
	}
	r = &s->rows[s->nrows++];
	memset(r, 0, sizeof(*r));
	r->layer = xstrdup(layer);
	r->name = xstrdup(name);
	r->file = xstrdup(file);
	u64map_put(&s->index, h, s->nrows);
	return r;
}

static void take_fh(struct summary *s, json_t *args)
{
	const char *fname = json_string_value(json_object_get(args, "name"));
	long long fh = int_value(json_object_get(args, "value"));
	uint64_t *slot;
	int added;

	if (fname == NULL || fh < 0)
		return;
	slot = u64map_insert(&s->fnames, (uint64_t)fh, &added);
	if (added) {
		s->names = xrealloc(s->names, (s->nnames + 1) * sizeof(char *));
		s->names[s->nnames++] = xstrdup(fname);
		*slot = s->nnames;
	}
}

static void take_counter(struct summary *s, const char *cat,
			 const char *name, long long ts, json_t *args)
{
	struct row *r = row_for(s, cat, name, "-");
	long long v;

	s->samples++;
	if (ts > s->last_ts)
		s->last_ts = ts;
	if ((v = int_value(json_object_get(args, "calls"))) > 0)
		r->calls += (unsigned long long)v;
	if ((v = int_value(json_object_get(args, "bytes"))) > 0)
		r->bytes += (unsigned long long)v;
	if ((v = int_value(json_object_get(args, "dur_us"))) > 0)
		r->time_us += (unsigned long long)v;
}

/* The bytes a call moved (dc-trace(5)): "bytes" where the return value
 * is not a byte count, else the return value, which is at most the size
 * asked for (mmap's address is not). */
static unsigned long long event_bytes(json_t *args)
{
	long long v, ret, size;

	if ((v = int_value(json_object_get(args, "bytes"))) >= 0)
		return (unsigned long long)v;
	ret = int_value(json_object_get(args, "ret"));
	size = int_value(json_object_get(args, "size"));
	if (size < 0)
		size = int_value(json_object_get(args, "count"));
	return ret > 0 && ret <= size ? (unsigned long long)ret : 0;
}

/* An event's row; a copy between two files (a call with a size and a
 * second file, fhash2: sendfile, copy_file_range, splice) has a row for
 * each, the bytes read from the first and written to the second. */
static void take_event(struct summary *s, const char *cat, const char *name,
		       long long dur, json_t *args)
{
	unsigned long long bytes = event_bytes(args);
	struct row *r = row_for(s, cat, name, file_of(s, args, "fhash"));

	s->events++;
	r->calls++;
	if (dur > 0)
		r->time_us += (unsigned long long)dur;
	r->bytes += bytes;
	if (json_object_get(args, "fhash2") == NULL ||
	    (json_object_get(args, "size") == NULL &&
	     json_object_get(args, "count") == NULL))
		return;
	r = row_for(s, cat, name, file_of(s, args, "fhash2"));
	r->calls++;
	if (dur > 0)
		r->time_us += (unsigned long long)dur;
	r->bytes += bytes;
}

static void take(struct summary *s, json_t *ev)
{
	const char *name = json_string_value(json_object_get(ev, "name"));
	const char *cat = json_string_value(json_object_get(ev, "cat"));
	const char *ph = json_string_value(json_object_get(ev, "ph"));
	json_t *args = json_object_get(ev, "args");
	long long ts, dur, v;

	if (name == NULL || cat == NULL || ph == NULL)
		return;
	if (strcmp(ph, "M") == 0) {
		if (strcmp(name, "FH") == 0)
			take_fh(s, args);
		return;
	}
	if (strcmp(name, "end") == 0 && strcmp(cat, "datacrumbs") == 0) {
		s->have_end = 1;
		s->dropped = (unsigned long long)int_value(json_object_get(args, "dropped"));
		s->truncated = json_is_true(json_object_get(args, "truncated"));
		s->dropped_unknown = json_is_true(json_object_get(args, "dropped_unknown"));
		return;
	}
	if (strcmp(cat, "datacrumbs") == 0 || strcmp(cat, "dftracer") == 0)
		return; /* start, dropped, fork, exec... */
	ts = int_value(json_object_get(ev, "ts"));
	dur = int_value(json_object_get(ev, "dur"));
	if (ts >= 0 && (s->first_ts == 0 || ts < s->first_ts))
		s->first_ts = ts;
	if (ts >= 0 && dur >= 0 && ts + dur > s->last_ts)
		s->last_ts = ts + dur;
	v = int_value(json_object_get(ev, "pid"));
	if (v >= 0) /* an event without a pid is no process */
		u64map_insert(&s->pids, (uint64_t)v, NULL);
	if (strcmp(ph, "C") == 0)
		take_counter(s, cat, name, ts, args);
	else
		take_event(s, cat, name, dur, args);
}

static int by_layer_then_time(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->layer, y->layer);

	if (c != 0)
		return c;
	if (x->time_us != y->time_us)
		return x->time_us < y->time_us ? 1 : -1;
	return strcmp(x->name, y->name) != 0 ? strcmp(x->name, y->name)
					     : strcmp(x->file, y->file);
}

/* Read the next line of gz into *line (grown as needed), without its
 * trailing blanks and comma; 0 at the end of the input. */
static int next_line(gzFile gz, char **line, size_t *cap, size_t *lenp)
{
	size_t len = 0;

	(*line)[0] = '\0';
	while (gzgets(gz, *line + len, (int)(*cap - len)) != NULL) {
		len += strlen(*line + len);
		if (len > 0 && (*line)[len - 1] == '\n')
			break;
		if (len + 1 >= *cap) {
			*cap *= 2;
			*line = xrealloc(*line, *cap);
		}
	}
	if (len == 0)
		return 0;
	while (len > 0 && strchr(" \t\r\n,", (*line)[len - 1]))
		(*line)[--len] = '\0';
	*lenp = len;
	return 1;
}

/* Take every event of the trace at path into s; returns the number of
 * unreadable lines (a read error counts as one), or -1 when the file
 * cannot be opened. */
static int read_trace(struct summary *s, const char *path)
{
	size_t cap = 1 << 16, len;
	char *line = xmalloc(cap);
	const char *msg;
	int bad = 0, errnum;
	gzFile gz;

	gz = gzopen(path, "rb");
	if (gz == NULL) {
		syswarn("cannot open %s", path);
		free(line);
		return -1;
	}
	while (next_line(gz, &line, &cap, &len)) {
		json_error_t jerr;
		json_t *ev;

		if (len == 0 || strcmp(line, "[") == 0 || strcmp(line, "]") == 0)
			continue;
		ev = json_loadb(line, len, JSON_DISABLE_EOF_CHECK, &jerr);
		if (ev == NULL) {
			bad++;
			continue;
		}
		take(s, ev);
		json_decref(ev);
	}
	msg = gzerror(gz, &errnum);
	if (errnum != Z_OK && errnum != Z_STREAM_END) {
		warn("%s: %s: the summary covers what could be read", path,
		     errnum == Z_ERRNO ? strerror(errno) : msg);
		bad++;
	}
	gzclose(gz);
	free(line);
	return bad;
}

/* The columns a word takes on a terminal: its UTF-8 characters (a
 * quoted word's escapes are ASCII already). */
static size_t word_width(const char *w)
{
	size_t n = 0;

	for (; *w != '\0'; w++)
		n += ((unsigned char)*w & 0xc0) != 0x80;
	return n;
}

/* w, then blanks up to width columns (none past it: never cut). */
static void put_cell(const char *w, size_t width)
{
	size_t n = word_width(w);

	fputs(w, stdout);
	for (; n < width; n++)
		putchar(' ');
}

/* Is row i shown: among the `top` first of its layer (0: all)?  Rows
 * are sorted by layer. */
static int row_shown(const struct summary *s, size_t i, unsigned top,
		     unsigned *shown)
{
	if (i == 0 || strcmp(s->rows[i - 1].layer, s->rows[i].layer) != 0)
		*shown = 0;
	return top == 0 || (*shown)++ < top;
}

/* The trace's line: what it holds, over how long, what was lost. */
static void print_heading(const struct summary *s, const char *path, int bad)
{
	dc_put_word(stdout, path, strlen(path), 0);
	printf(": %llu events from %zu processes over %.3f s",
	       s->events, s->pids.count,
	       s->last_ts > s->first_ts ?
	       (double)(s->last_ts - s->first_ts) / 1e6 : 0.0);
	if (s->samples > 0)
		printf(", %llu counter samples", s->samples);
	if (s->have_end)
		printf(", %llu dropped%s%s", s->dropped,
		       s->dropped_unknown ? " and an unknown number after the "
					    "last frame (the collector or a "
					    "stage after it died)" : "",
		       s->truncated ? ", input truncated" : "");
	if (bad)
		printf(", %d unreadable lines", bad);
	putchar('\n');
}

/* The header line and the table: at most `top` rows per layer, the most
 * time-consuming first.  The layer and function columns are as wide as
 * their longest shown word (at least 8 and 24), so no name is cut and
 * the numbers stay in line. */
static void print_summary(struct summary *s, const char *path, unsigned top,
			  int bad)
{
	size_t i, lw = 8, nw = 24;
	char **words = xcalloc(2 * s->nrows + 1, sizeof(*words));
	unsigned shown = 0;

	if (s->nrows > 1) /* qsort(NULL, 0) is undefined */
		qsort(s->rows, s->nrows, sizeof(*s->rows), by_layer_then_time);
	/* Names as words (lib/quote.h): a newline in a name cannot split
	 * the row. */
	for (i = 0; i < s->nrows; i++) {
		const struct row *r = &s->rows[i];

		if (!row_shown(s, i, top, &shown))
			continue;
		words[2 * i] = dc_word(r->layer, strlen(r->layer));
		words[2 * i + 1] = dc_word(r->name, strlen(r->name));
		if (word_width(words[2 * i]) > lw)
			lw = word_width(words[2 * i]);
		if (word_width(words[2 * i + 1]) > nw)
			nw = word_width(words[2 * i + 1]);
	}
	print_heading(s, path, bad);
	put_cell("layer", lw + 1);
	put_cell("function", nw);
	printf(" %9s %14s %12s  %s\n", "calls", "bytes", "time (ms)", "file");
	for (i = 0; i < s->nrows; i++) {
		const struct row *r = &s->rows[i];

		if (words[2 * i] == NULL)
			continue;
		put_cell(words[2 * i], lw + 1);
		put_cell(words[2 * i + 1], nw);
		printf(" %9llu %14llu %12.3f  ", r->calls, r->bytes,
		       (double)r->time_us / 1e3);
		dc_put_word(stdout, r->file, strlen(r->file), 0);
		putchar('\n');
	}
	for (i = 0; i < 2 * s->nrows; i++)
		free(words[i]);
	free(words);
}

static void summary_free(struct summary *s)
{
	size_t i;

	for (i = 0; i < s->nrows; i++) {
		free(s->rows[i].layer);
		free(s->rows[i].name);
		free(s->rows[i].file);
	}
	for (i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->rows);
	u64map_free(&s->index);
	u64map_free(&s->fnames);
	u64map_free(&s->pids);
}

static int summarize(const char *path, unsigned top)
{
	struct summary s;
	int bad;

	memset(&s, 0, sizeof(s));
	u64map_init(&s.index);
	u64map_init(&s.fnames);
	u64map_init(&s.pids);
	bad = read_trace(&s, path);
	if (bad < 0) {
		summary_free(&s);
		return DC_EXIT_FAILURE;
	}
	print_summary(&s, path, top, bad);
	summary_free(&s);
	return bad ? DC_EXIT_BADINPUT : DC_EXIT_OK;
}

int summarize_traces(int n, char **files, unsigned top)
{
	int i, st, worst = DC_EXIT_OK;

	for (i = 0; i < n; i++) {
		st = summarize(files[i], top);
		if (st == DC_EXIT_FAILURE || (st != DC_EXIT_OK && worst == DC_EXIT_OK))
			worst = st;
		if (i + 1 < n)
			putchar('\n');
	}
	xfclose_stdout();
	return worst;
}

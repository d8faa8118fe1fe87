/*
 * check.c - dc-write --check: verify DFTracer traces.
 *
 * Reads plain or multi-member gzip files (naming the damaged member),
 * parses every line with jansson, checks the keys and types DFTracer
 * readers rely on (accepting the 2023 form where numbers are quoted),
 * unique ids, a metadata line for every hhash/fhash used, counter samples
 * (ph "C") with numeric args only, the end event's
 * counts, and the OUT.idx sidecar when there is one; then prints how many
 * events each category (cat) has.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "u64map.h"
#include "messages.h"
#include "stream.h"

#define MAX_PROBLEMS 20
#define META_CAT "datacrumbs"

struct member {
	uint64_t offset, length, uoffset, ulength, last_line;
};

struct checker {
	const char *file;
	unsigned long problems;
	char *line;
	size_t line_len, line_cap;
	uint64_t lineno, objects;
	uint64_t uoffset;          /* uncompressed bytes so far */
	int seen_open, seen_close;
	struct u64map ids;        /* ids seen */
	struct u64map hh_def, fh_def; /* hashes defined */
	struct u64map hh_use, fh_use; /* hash -> first line */
	json_t *cats;              /* cat -> count */
	uint64_t nonmeta, lifecycle;
	struct member *members;
	size_t nmembers;
	int started, ended;        /* our start and end events seen */
	int cut;                   /* the last gzip member is cut short */
	uint64_t cut_at;           /* at this byte */
};

static void problem(struct checker *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct checker *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	c->problems++;
	if (c->problems > MAX_PROBLEMS)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn("%s: %s", c->file, msg);
}

/* An integer, or a string holding one (the 2023 form). */
static int get_int(json_t *v, long long *out)
{
	const char *s;
	char *end;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 1;
	}
	if (!json_is_string(v))
		return 0;
	s = json_string_value(v);
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno == 0 && end != s && *end == '\0';
}

static void note_use(struct checker *c, struct u64map *m, json_t *args,
		     const char *key)
{
	json_t *v = json_object_get(args, key);
	long long h;
	uint64_t *slot;
	int added;

	if (v == NULL)
		return;
	if (!get_int(v, &h) || h < 0) {
		problem(c, "line %llu: \"%s\" is not a hash value",
			(unsigned long long)c->lineno, key);
		return;
	}
	slot = u64map_insert(m, (uint64_t)h, &added);
	if (added)
		*slot = c->lineno;
}

/* A metadata line (ph "M"): the hashes HH and FH define. */
static void check_metadata(struct checker *c, json_t *name, json_t *args)
{
	unsigned long long ln = (unsigned long long)c->lineno;
	const char *nm = json_string_value(name);
	long long n;
	int added;

	if (args == NULL || !json_is_string(json_object_get(args, "name"))) {
		problem(c, "line %llu: metadata without args.name", ln);
		return;
	}
	if (nm == NULL || (strcmp(nm, "HH") != 0 && strcmp(nm, "FH") != 0 &&
			   strcmp(nm, "SH") != 0))
		return;
	if (!get_int(json_object_get(args, "value"), &n) || n < 0)
		problem(c, "line %llu: %s without an integer args.value", ln, nm);
	else if (strcmp(nm, "HH") == 0)
		u64map_insert(&c->hh_def, (uint64_t)n, &added);
	else if (strcmp(nm, "FH") == 0)
		u64map_insert(&c->fh_def, (uint64_t)n, &added);
}

/* ts, dur for complete events, and numbers only in a counter sample
 * (counter tracks plot every arg). */
static void check_timing(struct checker *c, json_t *obj, const char *ph,
			 json_t *args)
{
	unsigned long long ln = (unsigned long long)c->lineno;
	const char *key;
	long long n;
	json_t *v;

	if (!get_int(json_object_get(obj, "ts"), &n))
		problem(c, "line %llu: \"ts\" missing or not an integer", ln);
	if (strcmp(ph, "X") == 0 &&
	    (!get_int(json_object_get(obj, "dur"), &n) || n < 0))
		problem(c, "line %llu: \"dur\" missing or not a duration", ln);
	if (strcmp(ph, "C") != 0)
		return;
	if (args == NULL) {
		problem(c, "line %llu: counter without args", ln);
		return;
	}
	json_object_foreach(args, key, v)
		if (!json_is_number(v) && !get_int(v, &n)) {
			problem(c, "line %llu: counter arg \"%s\" is not a "
				"number", ln, key);
			break;
		}
}

/* Count the event in its category; note this writer's start, end and
 * dropped events, which the end event's "events" leaves out. */
static void count_category(struct checker *c, json_t *cat, json_t *name)
{
	const char *cs = json_string_value(cat);
	const char *nm = json_string_value(name);
	json_t *cnt;

	if (cs == NULL)
		return;
	cnt = json_object_get(c->cats, cs);
	json_object_set_new(c->cats, cs, json_integer(
		(cnt ? json_integer_value(cnt) : 0) + 1));
	if (strcmp(cs, META_CAT) != 0 || nm == NULL)
		return;
	if (strcmp(nm, "start") == 0)
		c->started = 1;
	else if (strcmp(nm, "end") == 0)
		c->ended = 1;
	if (strcmp(nm, "start") == 0 || strcmp(nm, "end") == 0 ||
	    strcmp(nm, "dropped") == 0)
		c->lifecycle++;
}

/* DFTracer's end event counts the objects before it; ours also counts
 * the stream's events (all but start, end, dropped and metadata). */
static void check_end_counts(struct checker *c, json_t *name, json_t *args)
{
	unsigned long long ln = (unsigned long long)c->lineno;
	long long n;
	json_t *v;

	if (!json_is_string(name) || strcmp(json_string_value(name), "end") != 0 ||
	    args == NULL || (v = json_object_get(args, "num_events")) == NULL)
		return;
	if (!get_int(v, &n) || (uint64_t)n != c->objects)
		problem(c, "line %llu: end event says %s events, %llu precede "
			"it", ln,
			json_is_integer(v) || json_is_string(v) ? "other" : "no",
			(unsigned long long)c->objects);
	v = json_object_get(args, "events");
	if (v != NULL && (!get_int(v, &n) ||
			  (uint64_t)n != c->nonmeta - c->lifecycle))
		problem(c, "line %llu: end event says %lld stream events, %llu "
			"precede it", ln, n,
			(unsigned long long)(c->nonmeta - c->lifecycle));
}

/* The keys every line has: integer id, pid and tid (ids unique), string
 * name, cat and ph, and args an object if present.  Returns ph, or NULL
 * when the line cannot be checked further. */
static const char *check_keys(struct checker *c, json_t *obj, json_t **args)
{
	static const char *const int_keys[] = { "id", "pid", "tid" };
	unsigned long long ln = (unsigned long long)c->lineno;
	json_t *ph, *v;
	long long id, n;
	uint64_t *slot;
	size_t i;
	int added;

	for (i = 0; i < 3; i++) {
		v = json_object_get(obj, int_keys[i]);
		if (v == NULL)
			problem(c, "line %llu: no \"%s\"", ln, int_keys[i]);
		else if (!get_int(v, &n))
			problem(c, "line %llu: \"%s\" is not an integer", ln,
				int_keys[i]);
	}
	if (!json_is_string(json_object_get(obj, "name")))
		problem(c, "line %llu: \"name\" missing or not a string", ln);
	if (!json_is_string(json_object_get(obj, "cat")))
		problem(c, "line %llu: \"cat\" missing or not a string", ln);
	ph = json_object_get(obj, "ph");
	if (!json_is_string(ph)) {
		problem(c, "line %llu: \"ph\" missing or not a string", ln);
		return NULL;
	}
	*args = json_object_get(obj, "args");
	if (*args != NULL && !json_is_object(*args)) {
		problem(c, "line %llu: \"args\" is not an object", ln);
		*args = NULL;
	}
	if (get_int(json_object_get(obj, "id"), &id)) {
		slot = u64map_insert(&c->ids, (uint64_t)id, &added);
		if (!added)
			problem(c, "line %llu: id %lld also on line %llu", ln,
				id, (unsigned long long)*slot);
		else
			*slot = c->lineno;
	}
	return json_string_value(ph);
}

static void check_object(struct checker *c, json_t *obj)
{
	json_t *name = json_object_get(obj, "name");
	json_t *args = NULL;
	const char *ph = check_keys(c, obj, &args);

	if (ph == NULL)
		return;
	if (strcmp(ph, "M") == 0) {
		check_metadata(c, name, args);
		c->objects++;
		return;
	}
	check_timing(c, obj, ph, args);
	if (args != NULL) {
		note_use(c, &c->hh_use, args, "hhash");
		note_use(c, &c->fh_use, args, "fhash");
	}
	count_category(c, json_object_get(obj, "cat"), name);
	c->nonmeta++;
	check_end_counts(c, name, args);
	c->objects++;
}

static void check_line(struct checker *c, char *s, size_t len)
{
	json_error_t jerr;
	json_t *obj;

	c->lineno++;
	while (len > 0 && (s[len - 1] == '\r' || s[len - 1] == ' ' ||
			   s[len - 1] == '\t'))
		len--;
	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	if (len == 0)
		return;
	if (!c->seen_open) {
		c->seen_open = 1;
		if (len == 1 && *s == '[')
			return;
		problem(c, "line %llu: the trace does not start with '['",
			(unsigned long long)c->lineno);
	}
	if (len == 1 && *s == ']') {
		c->seen_close = 1;
		return;
	}
	if (c->seen_close)
		problem(c, "line %llu: text after the closing ']'",
			(unsigned long long)c->lineno);
	if (s[len - 1] == ',') /* some writers separate lines with commas */
		len--;
	obj = json_loadb(s, len, 0, &jerr);
	if (obj == NULL) {
		problem(c, "line %llu: not JSON: %s",
			(unsigned long long)c->lineno, jerr.text);
		return;
	}
	if (!json_is_object(obj))
		problem(c, "line %llu: not a JSON object",
			(unsigned long long)c->lineno);
	else
		check_object(c, obj);
	json_decref(obj);
}

/* Feed uncompressed bytes; whole lines are checked as they complete. */
static void feed(struct checker *c, const unsigned char *data, size_t len)
{
	while (len > 0) {
		const unsigned char *nl = memchr(data, '\n', len);
		size_t n = nl ? (size_t)(nl - data) : len;

		if (c->line_len + n + 1 > c->line_cap) {
			c->line_cap = (c->line_len + n + 1) * 2;
			c->line = xrealloc(c->line, c->line_cap);
		}
		memcpy(c->line + c->line_len, data, n);
		c->line_len += n;
		c->uoffset += n;
		if (nl == NULL)
			return;
		c->uoffset++;
		check_line(c, c->line, c->line_len);
		c->line_len = 0;
		data += n + 1;
		len -= n + 1;
	}
}

static void add_member(struct checker *c, uint64_t offset, uint64_t length,
		       uint64_t uoffset)
{
	struct member *m;

	c->members = xrealloc(c->members, (c->nmembers + 1) * sizeof(*m));
	m = &c->members[c->nmembers++];
	m->offset = offset;
	m->length = length;
	m->uoffset = uoffset;
	m->ulength = c->uoffset - uoffset;
	m->last_line = c->lineno;
}

/* Returns 0 when the file was read through, -1 on damage (reported). */
static int read_gzip(struct checker *c, int fd, unsigned char *head,
		     size_t head_len)
{
	unsigned char in[1 << 16], out[1 << 17];
	uint64_t consumed = 0, member_start = 0, member_ustart = 0;
	z_stream zs;
	int ret = Z_OK, in_member = 1, eof = 0;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		die("cannot start the gzip decompressor");
	memcpy(in, head, head_len);
	zs.next_in = in;
	zs.avail_in = (uInt)head_len;
	for (;;) {
		if (zs.avail_in == 0 && !eof) {
			ssize_t n = read(fd, in, sizeof(in));

			if (n < 0) {
				problem(c, "cannot read: %s", strerror(errno));
				inflateEnd(&zs);
				return -1;
			}
			if (n == 0)
				eof = 1;
			zs.next_in = in;
			zs.avail_in = (uInt)n;
		}
		if (zs.avail_in == 0 && eof)
			break;
		if (!in_member) {
			/* A new member must start with the gzip magic. */
			if (zs.next_in[0] != 0x1f) {
				problem(c, "byte %llu: data after gzip member %zu "
					"is not a gzip member",
					(unsigned long long)consumed, c->nmembers);
				inflateEnd(&zs);
				return -1;
			}
			inflateReset(&zs);
			member_start = consumed;
			member_ustart = c->uoffset;
			in_member = 1;
		}
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		{
			uInt before = zs.avail_in;

			ret = inflate(&zs, Z_NO_FLUSH);
			consumed += before - zs.avail_in;
		}
		if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR) {
			problem(c, "gzip member %zu (byte %llu) is corrupt: %s",
				c->nmembers, (unsigned long long)member_start,
				zs.msg ? zs.msg : "inflate failed");
			inflateEnd(&zs);
			return -1;
		}
		feed(c, out, sizeof(out) - zs.avail_out);
		if (ret == Z_STREAM_END) {
			add_member(c, member_start, consumed - member_start,
				   member_ustart);
			in_member = 0;
		}
	}
	inflateEnd(&zs);
	if (in_member) {
		/* The writer stopped inside a member (killed, or the file
		 * was copied in part): what came out of it was read. */
		c->cut = 1;
		c->cut_at = member_start;
		return -1;
	}
	return 0;
}

static void check_index(struct checker *c, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, k = 0;

	if (f == NULL)
		return; /* no index: nothing to check */
	while (getline(&line, &cap, f) >= 0) {
		json_error_t jerr;
		json_t *e = json_loads(line, 0, &jerr);

		/* Other tools keep indexes of their own under this name
		 * (dftracer-utils writes SQLite): check only ours. */
		if (k == 0 && json_object_get(e, "member") == NULL) {
			warn("%s: not a dc-write index, not checked", path);
			json_decref(e);
			free(line);
			fclose(f);
			return;
		}
		long long mem, off, len, uoff, ulen, last;
		const struct member *m = k < c->nmembers ? &c->members[k] : NULL;

		if (e == NULL ||
		    !get_int(json_object_get(e, "member"), &mem) ||
		    !get_int(json_object_get(e, "offset"), &off) ||
		    !get_int(json_object_get(e, "length"), &len) ||
		    !get_int(json_object_get(e, "uoffset"), &uoff) ||
		    !get_int(json_object_get(e, "ulength"), &ulen) ||
		    !get_int(json_object_get(e, "last_line"), &last)) {
			problem(c, "%s: line %zu: not an index entry", path, k + 1);
		} else if (m == NULL || (size_t)mem != k ||
			   (uint64_t)off != m->offset ||
			   (uint64_t)len != m->length ||
			   (uint64_t)uoff != m->uoffset ||
			   (uint64_t)ulen != m->ulength ||
			   (uint64_t)last != m->last_line) {
			problem(c, "%s: line %zu: entry does not match gzip "
				"member %zu", path, k + 1, k);
		}
		json_decref(e);
		k++;
	}
	/* A writer killed between a member and its index line leaves the
	 * index behind the trace: that is the trace being incomplete. */
	if (k < c->nmembers && (c->ended || !c->started))
		problem(c, "%s: lists %zu of %zu gzip members", path, k,
			c->nmembers);
	free(line);
	fclose(f);
}

static int compare_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void checker_init(struct checker *c, const char *file)
{
	memset(c, 0, sizeof(*c));
	c->file = file;
	c->cats = json_object();
	u64map_init(&c->ids);
	u64map_init(&c->hh_def);
	u64map_init(&c->fh_def);
	u64map_init(&c->hh_use);
	u64map_init(&c->fh_use);
}

static void checker_free(struct checker *c)
{
	json_decref(c->cats);
	free(c->line);
	free(c->members);
	u64map_free(&c->ids);
	u64map_free(&c->hh_def);
	u64map_free(&c->fh_def);
	u64map_free(&c->hh_use);
	u64map_free(&c->fh_use);
}

/* Read every line of fd, gzip (*gz set) or plain; returns nonzero when
 * the file is damaged. */
static int read_lines(struct checker *c, int fd, int *gz)
{
	unsigned char head[2], buf[1 << 16];
	size_t head_len = 0;
	ssize_t r;

	while (head_len < 2 && (r = read(fd, head + head_len, 2 - head_len)) > 0)
		head_len += (size_t)r;
	if (head_len == 2 && head[0] == 0x1f && head[1] == 0x8b) {
		*gz = 1;
		return read_gzip(c, fd, head, head_len) != 0;
	}
	feed(c, head, head_len);
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		feed(c, buf, (size_t)r);
	if (r < 0) {
		problem(c, "cannot read: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/* Every hash used needs its metadata line somewhere in the file. */
static void check_hashes(struct checker *c, const struct u64map *use,
			 const struct u64map *def, const char *key,
			 const char *meta)
{
	size_t i;

	for (i = 0; i < use->cap; i++)
		if (use->used[i] && u64map_get(def, use->keys[i]) == NULL)
			problem(c, "line %llu: %s %llu has no %s line",
				(unsigned long long)use->vals[i], key,
				(unsigned long long)use->keys[i], meta);
}

/* The verdict line and the events per category, on standard output. */
static void print_report(struct checker *c, int gz, int incomplete)
{
	const char **keys;
	const char *key;
	size_t i, n = 0;
	json_t *val;

	printf("%s: %s: %llu objects in %llu lines", c->file,
	       c->problems ? "INVALID" : incomplete ? "incomplete" : "valid",
	       (unsigned long long)c->objects, (unsigned long long)c->lineno);
	if (gz)
		printf(", %zu gzip member%s", c->nmembers,
		       c->nmembers == 1 ? "" : "s");
	printf("\n");
	keys = xcalloc(json_object_size(c->cats) + 1, sizeof(*keys));
	json_object_foreach(c->cats, key, val)
		keys[n++] = key;
	qsort(keys, n, sizeof(*keys), compare_str);
	printf("%14s  %s\n", "events", "cat");
	for (i = 0; i < n; i++)
		printf("%14lld  %s\n",
		       (long long)json_integer_value(json_object_get(c->cats, keys[i])),
		       keys[i]);
	free(keys);
}

int check_trace(const char *file)
{
	struct checker c;
	int fd, gz = 0, damaged, incomplete;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		syswarn("cannot open %s", file);
		return DC_EXIT_FAILURE;
	}
	checker_init(&c, file);
	damaged = read_lines(&c, fd, &gz);
	close(fd);
	/* The last line may lack its newline (DFTracer's closing "]"). */
	if (!damaged && c.line_len > 0)
		check_line(&c, c.line, c.line_len);
	if (c.objects == 0 && !damaged)
		problem(&c, "no events");
	check_hashes(&c, &c.hh_use, &c.hh_def, "hhash", "HH");
	check_hashes(&c, &c.fh_use, &c.fh_def, "fhash", "FH");
	if (gz && !damaged) {
		char *idx = xasprintf("%s.idx", file);

		check_index(&c, idx);
		free(idx);
	}
	if (c.problems > MAX_PROBLEMS)
		warn("%s: %lu more problems", file, c.problems - MAX_PROBLEMS);
	incomplete = c.cut || (c.started && !c.ended && !damaged);
	if (c.cut)
		warn("%s: incomplete: gzip member %zu (byte %llu) is cut short; "
		     "the %llu lines before the cut were read", file,
		     c.nmembers, (unsigned long long)c.cut_at,
		     (unsigned long long)c.lineno);
	else if (incomplete)
		warn("%s: incomplete: no end record (the writer was stopped "
		     "before it finished); all %llu lines were read", file,
		     (unsigned long long)c.lineno);
	print_report(&c, gz, incomplete);
	checker_free(&c);
	return c.problems ? DC_EXIT_BADINPUT
	       : incomplete ? DC_EXIT_TRUNCATED : DC_EXIT_OK;
}

int check_traces(int n, char **files)
{
	int i, status = DC_EXIT_OK;

	/* The worst file decides: cannot read (1), invalid (4),
	 * incomplete (3), valid (0). */
	for (i = 0; i < n; i++) {
		int st = check_trace(files[i]);

		if (status == DC_EXIT_FAILURE || st == DC_EXIT_OK)
			continue;
		if (st == DC_EXIT_FAILURE || st > status)
			status = st;
	}
	xfclose_stdout();
	return status;
}

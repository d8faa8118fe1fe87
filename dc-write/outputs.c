/*
 * outputs.c - dc-write's output files (trace-impl.h): one, one per
 * process (--split-by pid) or per host; named, created safely (never
 * through a link, never over a file without --force), rotated at
 * --max-size, and closed with their end event.
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

#include "hash.h"
#include "outfile.h"
#include "trace-impl.h"

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




/* A metadata line {"id","name","cat","pid","tid","ph":"M","args":{...}}
 * whose args are `args` (already JSON, without braces). */
void put_meta(struct output *o, const char *name, uint32_t pid,
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
void put_hash_meta(struct output *o, const char *kind, uint32_t pid,
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

struct output *new_output(struct trace *t, uint32_t pid)
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
int close_file(struct trace *t, struct output *o, int how)
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

struct output *output_for(struct trace *t, uint32_t pid)
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


/*
 * dc-aggregate - turn raw datacrumbs streams into one stream of calls on
 * named files.
 *
 * It reads one or more streams (dc-stream(5)) and writes one, doing what
 * the kernel side cannot do cheaply:
 *
 *   - owns the call tree: rewrites each record's per-thread entry
 *     number and parent (from the collector) into ids unique in the
 *     output stream, exactly, however long a call lasts (calltree.c);
 *     a failed library call gets the errno of the failed call it made;
 *   - follows file descriptors and handles per process (open, openat,
 *     dup, fcntl, close, fopen, fork, exec, exit) and sets each event's
 *     file_id to the STRING id of the path it works on;
 *   - merges several inputs: one header, timestamps moved to its clock,
 *     probe and string ids renumbered where they clash;
 *   - passes COUNTERS frames (profile mode) on, with merged inputs'
 *     probe ids and clocks translated like events;
 *   - with --profile, sums calls per interval, process and probe into
 *     COUNTERS frames instead of writing them, as the collector's profile
 *     mode would have;
 *   - ends with its own END frame: its event count, the inputs' losses,
 *     and flags saying whether an input was cut short or damaged.
 *
 * State is per open call (the call tree), per live process (fd and
 * handle tables), plus the table of paths it has named; nothing else
 * grows with the trace.  See dc-aggregate(1).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event.h"
#include "bytes.h"
#include "calltree.h"
#include "hosts.h"
#include "map.h"
#include "messages.h"
#include "stream.h"
#include "text.h"

#define PAD8(n) (((n) + 7u) & ~7u)
#define QUEUE_BYTES (32u << 20)   /* frames buffered from live inputs */
#define OUT_BATCH (1u << 20)      /* bytes of events per output frame */
#define REC_MAX 65536             /* struct dc_event.size is a u16 */
#define PATH_BUF (2 * PATH_MAX + 2)

#ifndef F_DUPFD_CLOEXEC
#define F_DUPFD_CLOEXEC 1030
#endif

/* ---- what a probe does to the file tables ---- */

enum file_op {
	OP_NONE,
	OP_OPEN,         /* path in, fd out: open, openat, creat */
	OP_OPEN_HANDLE,  /* path in, handle out: fopen, H5Fopen */
	OP_NEW_FD,       /* fd out, no path: socket, pipe, epoll... */
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
	int file_arg;             /* a FILE *: its fd in the last slot */
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
};

static struct input *inputs;
static unsigned n_inputs;
static struct host_view *host_views; /* per input: hosts kept apart */

/* ---- per process and thread ---- */

struct proc {
	char *cwd;                /* NULL: unknown */
	/* The cwd came from the stream itself (inherited at a fork, set
	 * by chdir/fchdir): a PROCESS frame's, read from /proc later,
	 * must not replace it (dc-aggregate(1)). */
	int cwd_from_stream;
	struct u64map fds;        /* fd -> output string id */
	struct u64map handles;    /* handle -> output string id */
	/* The fd the last close removed, its file, and the id of the call
	 * that close was made in: a library close() arrives after the
	 * close syscall it made (children come first) and names the same
	 * file; no other close of that fd does, it is not open any more. */
	int64_t closed_fd;
	uint32_t closed_file;
	uint64_t closed_in;
};

static struct u64map procs;   /* input << 32 | pid -> struct proc * */

/* ---- output ---- */

static int opt_text;
static uint64_t opt_profile;  /* --profile interval in ns; 0: off */
static struct dc_writer *writer;
static unsigned char *batch;
static size_t batch_len;
static uint64_t events_out;
static uint64_t last_ts;      /* latest event end written */
static uint64_t counters_out; /* counter entries written */

static struct u64map out_probes; /* output probe id -> struct probe * */
static struct u64map probe_index; /* hash of a PROBE payload -> probe */
static uint32_t next_probe_id;

/* Output strings: id -> value, and value hash -> id.  Ids an input
 * chose are kept when free, up to ID_KEEP_MAX, so a hostile id cannot
 * make the next one wrap. */
#define ID_KEEP_MAX 0x7fffffffu
static struct u64map string_vals;
static uint32_t next_string_id = 1;
static struct u64map string_index;

#define KEY(in, id) (((uint64_t)(in) << 32) | (uint32_t)(id))
#define PTR(v) ((void *)(uintptr_t)(v))
#define VAL(p) ((uint64_t)(uintptr_t)(p))

static void out_frame(uint16_t type, const void *data, uint32_t len)
{
	if (opt_text) {
		text_frame(stdout, type, data, len);
		if (ferror(stdout))
			sysdie("cannot write standard output");
		return;
	}
	if (dc_writer_frame(writer, type, data, len) != 0)
		sysdie("cannot write standard output");
}

static void flush_events(void)
{
	if (batch_len == 0)
		return;
	out_frame(DC_FRAME_EVENTS, batch, (uint32_t)batch_len);
	batch_len = 0;
}

/* Push everything written so far to the reader: called whenever input
 * pauses, so a live pipeline sees events promptly. */
static void out_flush(void)
{
	flush_events();
	if (opt_text) {
		if (fflush(stdout) != 0)
			sysdie("cannot write standard output");
	} else if (dc_writer_flush(writer) != 0) {
		sysdie("cannot write standard output");
	}
}

static void profile_event(const struct dc_event *ev);

static void out_event(const struct dc_event *ev)
{
	if (opt_profile != 0 &&
	    (ev->type == DC_EV_CALL || ev->type == DC_EV_INSTANT)) {
		profile_event(ev);
		return;
	}
	if (batch_len + ev->size > OUT_BATCH)
		flush_events();
	memcpy(batch + batch_len, ev, ev->size);
	batch_len += ev->size;
	events_out++;
	if (ev->ts + ev->dur > last_ts)
		last_ts = ev->ts + ev->dur;
}

/* ---- strings ---- */

static uint64_t hash_str(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

static const char *string_value(uint32_t id)
{
	uint64_t *slot = u64map_get(&string_vals, id);

	return slot ? PTR(*slot) : NULL;
}

/* The output id of a string, written as a STRING frame the first time;
 * `prefer` is an id to keep if it is still free (an input's own id). */
static uint32_t intern(const char *s, size_t len, uint32_t prefer)
{
	uint64_t h = hash_str(s, len), *slot;
	uint32_t id;
	unsigned char *frame;
	char *copy;

	/* Equal hashes of different strings probe on at h+1, h+2... */
	while ((slot = u64map_get(&string_index, h)) != NULL) {
		const char *v = string_value((uint32_t)*slot);

		if (strlen(v) == len && memcmp(v, s, len) == 0)
			return (uint32_t)*slot;
		h++;
	}
	if (prefer != 0 && prefer <= ID_KEEP_MAX && string_value(prefer) == NULL)
		id = prefer;
	else
		id = next_string_id;
	if (id >= next_string_id)
		next_string_id = id + 1;
	copy = xmalloc(len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	u64map_put(&string_vals, id, VAL(copy));
	u64map_put(&string_index, h, id);

	/* STRING frames precede the EVENTS frame that uses them: the event
	 * being built is still in the unwritten batch. */
	frame = xmalloc(4 + len);
	memcpy(frame, &id, 4);
	memcpy(frame + 4, s, len);
	out_frame(DC_FRAME_STRING, frame, (uint32_t)(4 + len));
	free(frame);
	return id;
}

/* ---- damaged input ---- */

static void damaged(struct input *in, const char *what, uint64_t offset)
{
	if (!in->damaged)
		warn("%s: malformed %s frame at byte %" PRIu64 " skipped",
		     in->name, what, offset);
	in->damaged = 1;
}

/* ---- probes ---- */

static int name_is(const char *name, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(name, *list) == 0)
			return 1;
	return 0;
}

static void classify(struct probe *p, const char *name)
{
	static const char *const close_names[] = {
		"close", "__close", "__close_nocancel", "fclose", "_IO_fclose",
		"MPI_File_close", "PMPI_File_close", "H5Fclose", "H5Dclose",
		"H5Gclose", "H5Aclose", "H5Oclose", "H5Pclose", NULL,
	};
	static const char *const dup_names[] = { "dup", "dup2", "dup3", NULL };
	static const char *const fcntl_names[] = { "fcntl", "fcntl64",
						   "__fcntl", NULL };
	int i;

	p->path_arg = p->dirfd_arg = p->fd_arg = p->handle_arg = -1;
	p->handle_out_arg = p->path2_arg = p->dirfd2_arg = p->file_arg = -1;
	for (i = 0; i < p->nargs && i < DC_MAX_ARGS; i++) {
		switch (p->arg_kinds[i]) {
		case DC_ARG_PATH:
			if (p->path_arg < 0) {
				p->path_arg = i;
				if (p->fd_arg >= 0)
					p->dirfd_arg = p->fd_arg;
			} else if (p->path2_arg < 0) {
				/* renameat: fd,path,fd,path */
				p->path2_arg = i;
				if (i > 0 && p->arg_kinds[i - 1] == DC_ARG_FD)
					p->dirfd2_arg = i - 1;
			}
			break;
		case DC_ARG_FD:
			if (p->fd_arg < 0)
				p->fd_arg = i;
			break;
		case DC_ARG_FILE:
			if (p->file_arg < 0)
				p->file_arg = i;
			/* fall through */
		case DC_ARG_HANDLE:
		case DC_ARG_HANDLE_IN:
			if (p->handle_arg < 0)
				p->handle_arg = i;
			break;
		case DC_ARG_HANDLE_OUT:
			if (p->handle_out_arg < 0)
				p->handle_out_arg = i;
			break;
		}
	}

	p->op = OP_NONE;
	if (name_is(name, close_names))
		p->op = p->fd_arg >= 0 ? OP_CLOSE
		      : p->handle_arg >= 0 ? OP_CLOSE_HANDLE : OP_NONE;
	else if (strcmp(name, "close_range") == 0 && p->nargs >= 2)
		p->op = OP_CLOSE_RANGE;
	else if (name_is(name, dup_names) && p->fd_arg >= 0)
		p->op = OP_DUP;
	else if (name_is(name, fcntl_names) && p->fd_arg >= 0 && p->nargs >= 2)
		p->op = OP_FCNTL;
	else if (strcmp(name, "fdopen") == 0 && p->fd_arg >= 0)
		p->op = OP_FDOPEN;
	else if (strcmp(name, "chdir") == 0 && p->path_arg >= 0)
		p->op = OP_CHDIR;
	else if (strcmp(name, "fchdir") == 0 && p->fd_arg >= 0)
		p->op = OP_FCHDIR;
	else if (p->ret_kind == DC_RET_FD)
		p->op = p->path_arg >= 0 ? OP_OPEN : OP_NEW_FD;
	else if ((p->ret_kind == DC_RET_HANDLE || p->handle_out_arg >= 0) &&
		 p->path_arg >= 0)
		p->op = OP_OPEN_HANDLE;
	else if (p->ret_kind == DC_RET_HANDLE && p->handle_arg >= 0)
		p->op = OP_NEW_HANDLE;
}

/* Same probe, ignoring the id? */
static int probe_same(const struct probe *p, const unsigned char *data,
		      uint32_t len)
{
	return p->len == len && memcmp(p->frame + 4, data + 4, len - 4) == 0;
}

static void handle_probe(struct input *in, const struct dc_frame *f)
{
	struct dc_probe_rec rec;
	struct probe *p = NULL;
	const char *s[3];
	size_t l[3], pos = sizeof(rec);
	char name[256];
	uint64_t h, *slot;
	uint32_t id;
	int k;

	if (f->len < sizeof(rec)) {
		damaged(in, "probe", f->offset);
		return;
	}
	memcpy(&rec, f->data, sizeof(rec));
	for (k = 0; k < 3; k++) {
		pos = dc_get_str(f->data, f->len, pos, &s[k], &l[k]);
		if (pos == 0) {
			damaged(in, "probe", f->offset);
			return;
		}
	}
	/* An identical probe from another input shares its id; probes are
	 * found by a hash of everything but the id. */
	h = hash_str((const char *)f->data + 4, f->len - 4);
	while ((slot = u64map_get(&probe_index, h)) != NULL) {
		struct probe *q = PTR(*slot);

		if (probe_same(q, f->data, f->len)) {
			p = q;
			break;
		}
		h++;
	}
	if (p == NULL) {
		/* Keep the input's id unless another probe has it. */
		id = u64map_get(&out_probes, rec.id) || rec.id > ID_KEEP_MAX
			? next_probe_id : rec.id;
		if (id >= next_probe_id)
			next_probe_id = id + 1;
		p = xcalloc(1, sizeof(*p));
		p->id = id;
		p->len = f->len;
		p->frame = xmalloc(f->len);
		memcpy(p->frame, f->data, f->len);
		memcpy(p->frame, &id, 4);
		p->nargs = rec.nargs;
		p->ret_kind = rec.ret_kind;
		memcpy(p->arg_kinds, rec.arg_kinds, 8);
		snprintf(name, sizeof(name), "%.*s", (int)l[1], s[1]);
		classify(p, name);
		u64map_put(&out_probes, id, VAL(p));
		u64map_put(&probe_index, h, VAL(p));
		flush_events();
		out_frame(DC_FRAME_PROBE, p->frame, p->len);
	}
	u64map_put(&in->probes, rec.id, VAL(p));
}

/* ---- processes ---- */

static struct proc *get_proc(unsigned in, uint32_t pid, int create)
{
	uint64_t *slot = u64map_get(&procs, KEY(in, pid));
	struct proc *p;

	if (slot != NULL)
		return PTR(*slot);
	if (!create)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	u64map_put(&procs, KEY(in, pid), VAL(p));
	return p;
}

static void drop_proc(unsigned in, uint32_t pid)
{
	struct proc *p = get_proc(in, pid, 0);

	if (p == NULL)
		return;
	free(p->cwd);
	u64map_free(&p->fds);
	u64map_free(&p->handles);
	free(p);
	u64map_del(&procs, KEY(in, pid));
}

static void handle_process(unsigned idx, const struct dc_frame *f)
{
	struct input *in = &inputs[idx];
	struct dc_process_rec rec;
	const char *s[3];
	size_t l[3], pos = sizeof(rec);
	unsigned char *copy;
	struct proc *p;
	int k;

	if (f->len < sizeof(rec)) {
		damaged(in, "process", f->offset);
		return;
	}
	memcpy(&rec, f->data, sizeof(rec));
	for (k = 0; k < 3; k++) {
		pos = dc_get_str(f->data, f->len, pos, &s[k], &l[k]);
		if (pos == 0) {
			damaged(in, "process", f->offset);
			return;
		}
	}
	p = get_proc(idx, rec.pid, 1);
	/* A record without a cwd (the process was already gone) leaves the
	 * one known from before, or inherited at fork, in place. */
	if (l[2] > 0 && s[2][0] == '/' && !p->cwd_from_stream) {
		free(p->cwd);
		p->cwd = xmalloc(l[2] + 1);
		memcpy(p->cwd, s[2], l[2]);
		p->cwd[l[2]] = '\0';
	}
	copy = xmalloc(f->len);
	memcpy(copy, f->data, f->len);
	rec.start_mono_ns += (uint64_t)in->delta;
	memcpy(copy, &rec, sizeof(rec));
	flush_events();
	out_frame(DC_FRAME_PROCESS, copy, f->len);
	free(copy);
}

/* A snapshot of a process's open files (taken from /proc by the
 * collector when it starts following the process): it replaces the fd
 * table, since every event before it in the stream happened before it.
 * Descriptors that are not files keep the kernel's name for them
 * ("pipe:[1234]", "socket:[5678]"). */
static void handle_fds(unsigned idx, const struct dc_frame *f)
{
	struct input *in = &inputs[idx];
	struct dc_fds_rec rec;
	struct u64map fds = { 0 };
	size_t pos = sizeof(rec);
	struct proc *p;
	uint32_t i;

	if (f->len < sizeof(rec)) {
		damaged(in, "fds", f->offset);
		return;
	}
	memcpy(&rec, f->data, sizeof(rec));
	for (i = 0; i < rec.count; i++) {
		const char *path;
		size_t len;
		int32_t fd;

		if (pos + 4 <= f->len) {
			memcpy(&fd, f->data + pos, 4);
			pos = dc_get_str(f->data, f->len, pos + 4, &path, &len);
		} else {
			pos = 0;
		}
		if (pos == 0) {
			u64map_free(&fds);
			damaged(in, "fds", f->offset);
			return;
		}
		if (len > 0 && fd >= 0)
			u64map_put(&fds, (uint64_t)(int64_t)fd, intern(path, len, 0));
	}
	p = get_proc(idx, rec.pid, 1);
	u64map_free(&p->fds);
	p->fds = fds;
	flush_events();
	out_frame(f->type, f->data, f->len);
}

/* ---- paths ---- */

/* Join dir and rel (rel may be absolute: dir is then ignored) and
 * normalise lexically: no ".", "..", or repeated slashes.  Symbolic links
 * are not followed: the trace names what the program named. */
static size_t join_path(char *out, const char *dir, const char *rel,
			size_t rel_len)
{
	char tmp[PATH_BUF];
	size_t n = 0, o = 1, i = 0;

	if (rel_len > 0 && rel[0] == '/')
		dir = "";
	n = (size_t)snprintf(tmp, sizeof(tmp), "%s/%.*s", dir, (int)rel_len, rel);
	if (n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	out[0] = '/';
	while (i < n) {
		size_t start, len;

		while (i < n && tmp[i] == '/')
			i++;
		start = i;
		while (i < n && tmp[i] != '/')
			i++;
		len = i - start;
		if (len == 0 || (len == 1 && tmp[start] == '.'))
			continue;
		if (len == 2 && tmp[start] == '.' && tmp[start + 1] == '.') {
			/* Back to the previous slash; "/.." stays "/". */
			while (o > 1 && out[o - 1] != '/')
				o--;
			if (o > 1)
				o--;
			continue;
		}
		if (o > 1)
			out[o++] = '/';
		memcpy(out + o, tmp + start, len);
		o += len;
	}
	out[o] = '\0';
	return o;
}

static uint32_t fd_file(struct proc *p, int64_t fd)
{
	uint64_t *slot = p ? u64map_get(&p->fds, (uint64_t)fd) : NULL;

	return slot ? (uint32_t)*slot : 0;
}

static uint32_t handle_file(struct proc *p, uint64_t h)
{
	uint64_t *slot = p ? u64map_get(&p->handles, h) : NULL;

	return slot ? (uint32_t)*slot : 0;
}

static void set_fd(struct proc *p, int64_t fd, uint32_t file)
{
	if (file != 0)
		u64map_put(&p->fds, (uint64_t)fd, file);
	else
		u64map_del(&p->fds, (uint64_t)fd);
}

static uint32_t resolve_path(struct proc *p, const struct dc_event *ev,
			     const char *path, size_t len, int dirfd_arg);

/* The output string id of the path an event names inline, resolved
 * against its dirfd or the process's working directory when relative.
 * A relative path that cannot be resolved is kept as written. */
static uint32_t event_path(struct proc *p, const struct probe *pr,
			   const struct dc_event *ev)
{
	const char *path = DC_EVENT_STR(ev);
	/* A second string may follow the first's NUL. */
	size_t len = strnlen(path, ev->str_len);

	return resolve_path(p, ev, path, len, pr->dirfd_arg);
}

/* The output string id of path (len bytes) as the call saw it: against
 * the directory of the fd in slot dirfd_arg (-1: none) or the working
 * directory when relative. */
static uint32_t resolve_path(struct proc *p, const struct dc_event *ev,
			     const char *path, size_t len, int dirfd_arg)
{
	const char *base = NULL;
	char out[PATH_BUF];

	if (len == 0)
		return 0;
	if (path[0] != '/') {
		int dirfd = AT_FDCWD;

		if (dirfd_arg >= 0 && dirfd_arg < ev->nargs)
			dirfd = (int32_t)DC_EVENT_ARGS(ev)[dirfd_arg];
		if (dirfd != AT_FDCWD)
			base = string_value(fd_file(p, dirfd));
		else if (p != NULL)
			base = p->cwd;
		if (base == NULL || base[0] != '/')
			return intern(path, len, 0);
	}
	len = join_path(out, base ? base : "", path, len);
	return intern(out, len, 0);
}

/* A second path (rename's new name) is rewritten in place as the
 * absolute path the call meant; ev sits in a REC_MAX buffer. */
static void absolute_path2(struct proc *p, const struct probe *pr,
			   struct dc_event *ev)
{
	char *str = DC_EVENT_STR(ev);
	size_t len1 = strnlen(str, ev->str_len), len2, size;
	const char *abs;
	uint32_t id;

	if (len1 + 1 >= ev->str_len)
		return;
	len2 = ev->str_len - len1 - 1;
	if (str[len1 + 1] == '/')
		return;
	id = resolve_path(p, ev, str + len1 + 1, len2, pr->dirfd2_arg);
	abs = string_value(id);
	if (abs == NULL || abs[0] != '/')
		return;
	len2 = strlen(abs);
	size = PAD8(DC_EVENT_HDR_SIZE + 8u * ev->nargs + len1 + 1 + len2 + 1);
	if (size > REC_MAX - 8)
		return;
	memcpy(str + len1 + 1, abs, len2);
	memset(str + len1 + 1 + len2, 0,
	       size - (DC_EVENT_HDR_SIZE + 8u * ev->nargs + len1 + 1 + len2));
	ev->str_len = (uint16_t)(len1 + 1 + len2);
	ev->size = (uint16_t)size;
}

/* Set ev->file_id and, for a finished call (ret known), update the
 * process's tables as the call did. */
static void track_files(unsigned in, const struct probe *pr,
			struct dc_event *ev, int finished)
{
	struct proc *p = get_proc(in, ev->pid, 1);
	const __u64 *args = DC_EVENT_ARGS(ev);
	uint32_t file = 0;
	int failed = ev->ret < 0 || (ev->flags & DC_EVF_FAILED);

	/* Counters name no files: --profile needs no file tables. */
	if (pr == NULL || opt_profile != 0)
		return;
	if (pr->path_arg >= 0 && ev->str_len > 0)
		file = event_path(p, pr, ev);
	else if (pr->fd_arg >= 0 && pr->fd_arg < ev->nargs) {
		int32_t fd = (int32_t)args[pr->fd_arg];

		file = fd_file(p, fd);
		if (file == 0 && pr->op == OP_CLOSE && p->closed_file != 0 &&
		    p->closed_fd == fd && p->closed_in != 0 &&
		    p->closed_in == ev->seq)
			file = p->closed_file;
	}
	else if (pr->handle_arg >= 0 && pr->handle_arg < ev->nargs) {
		file = handle_file(p, args[pr->handle_arg]);
		/* A FILE * opened before tracing (stdin, stdout, stderr)
		 * is named by its descriptor, read at entry. */
		if (file == 0 && pr->file_arg >= 0 && pr->nargs < DC_MAX_ARGS &&
		    ev->nargs == DC_MAX_ARGS)
			file = fd_file(p, (int32_t)args[DC_MAX_ARGS - 1]);
	}
	if (file != 0)
		ev->file_id = file;
	if (pr->path2_arg >= 0)
		absolute_path2(p, pr, ev);
	if (!finished)
		return;

	switch (pr->op) {
	case OP_OPEN:
		if (!failed)
			set_fd(p, ev->ret, ev->file_id);
		break;
	case OP_OPEN_HANDLE: {
		/* Returned, or stored through a pointer (MPI_File_open). */
		uint64_t h = pr->handle_out_arg < 0 ? (uint64_t)ev->ret
			   : pr->handle_out_arg < ev->nargs
			   ? args[pr->handle_out_arg] : 0;

		if (!failed && h != 0) {
			if (ev->file_id != 0)
				u64map_put(&p->handles, h, ev->file_id);
			else
				u64map_del(&p->handles, h);
		}
		break;
	}
	case OP_NEW_HANDLE:
		/* A dataset, group or attribute id is in its file. */
		if (!failed && ev->ret > 0) {
			if (ev->file_id != 0)
				u64map_put(&p->handles, (uint64_t)ev->ret, ev->file_id);
			else
				u64map_del(&p->handles, (uint64_t)ev->ret);
		}
		break;
	case OP_NEW_FD:
		if (!failed)
			set_fd(p, ev->ret, 0);
		break;
	case OP_FCNTL:
		if (pr->fd_arg + 1 >= ev->nargs ||
		    ((int32_t)args[pr->fd_arg + 1] != F_DUPFD &&
		     (int32_t)args[pr->fd_arg + 1] != F_DUPFD_CLOEXEC))
			break;
		/* fall through */
	case OP_DUP:
		if (!failed && pr->fd_arg < ev->nargs)
			set_fd(p, ev->ret, fd_file(p, (int32_t)args[pr->fd_arg]));
		break;
	case OP_FDOPEN:
		if (!failed && ev->ret != 0 && ev->file_id != 0)
			u64map_put(&p->handles, (uint64_t)ev->ret, ev->file_id);
		break;
	case OP_CLOSE:
		/* Gone whatever close returned: Linux frees the fd even when
		 * close reports EINTR or EIO. */
		if (pr->fd_arg < ev->nargs) {
			int32_t fd = (int32_t)args[pr->fd_arg];

			if (ev->file_id != 0) {
				p->closed_fd = fd;
				p->closed_file = ev->file_id;
				p->closed_in = ev->parent;
			}
			u64map_del(&p->fds, (uint64_t)(int64_t)fd);
		}
		break;
	case OP_CLOSE_HANDLE:
		if (pr->handle_arg < ev->nargs)
			u64map_del(&p->handles, args[pr->handle_arg]);
		break;
	case OP_CLOSE_RANGE:
		if (!failed && ev->nargs >= 2) {
			uint32_t lo = (uint32_t)args[0], hi = (uint32_t)args[1];
			uint64_t *gone = xmalloc((p->fds.count + 1) * sizeof(uint64_t));
			size_t i, n = 0;

			for (i = 0; i < p->fds.cap; i++)
				if (p->fds.used[i] && p->fds.keys[i] >= lo &&
				    p->fds.keys[i] <= hi)
					gone[n++] = p->fds.keys[i];
			for (i = 0; i < n; i++)
				u64map_del(&p->fds, gone[i]);
			free(gone);
		}
		break;
	case OP_CHDIR:
	case OP_FCHDIR:
		if (!failed && ev->ret == 0 && ev->file_id != 0) {
			free(p->cwd);
			p->cwd = xstrdup(string_value(ev->file_id));
			p->cwd_from_stream = 1;
		}
		break;
	case OP_NONE:
		break;
	}
}

/* ---- the call tree ---- */

static struct probe *probe_of(uint32_t out_id)
{
	uint64_t *slot = u64map_get(&out_probes, out_id);

	return slot ? PTR(*slot) : NULL;
}

/* Output ids: input i's own id k (from its call tree, or the ids an
 * aggregated input already carries) becomes k * n_inputs + i, so merged
 * inputs never share one; a single input keeps its ids. */
static void stamp(unsigned idx, struct dc_event *ev)
{
	struct input *in = &inputs[idx];

	if (!in->has_ids)
		calltree_stamp(&in->tree, ev);
	if (n_inputs > 1) {
		ev->seq = ev->seq * n_inputs + idx;
		if (ev->parent != 0)
			ev->parent = ev->parent * n_inputs + idx;
	}
}

/* ---- events ---- */

static void handle_events(unsigned idx, const struct dc_frame *f)
{
	static uint64_t buf[REC_MAX / 8];
	struct input *in = &inputs[idx];
	struct dc_event *ev = (struct dc_event *)buf;
	uint32_t pos = 0;

	while (pos < f->len) {
		const struct dc_event *src = (const void *)(f->data + pos);
		struct probe *pr;
		uint64_t *slot;

		memcpy(ev, src, src->size);
		pos += src->size;
		ev->ts += (uint64_t)in->delta;
		slot = u64map_get(&in->probes, ev->probe_id);
		pr = slot ? PTR(*slot) : NULL;
		if (pr != NULL)
			ev->probe_id = pr->id;
		if (ev->file_id != 0) {
			slot = u64map_get(&in->strings, ev->file_id);
			ev->file_id = slot ? (uint32_t)*slot : 0;
		}

		stamp(idx, ev);
		switch (ev->type) {
		case DC_EV_CALL:
			track_files(idx, pr, ev, 1);
			out_event(ev);
			break;
		case DC_EV_INSTANT:
			track_files(idx, pr, ev, 0);
			out_event(ev);
			break;
		case DC_EV_FORK:
			out_event(ev);
			if (ev->nargs >= 1) {
				uint32_t child = (uint32_t)DC_EVENT_ARGS(ev)[0];
				struct proc *parent = get_proc(idx, ev->pid, 1), *c;

				drop_proc(idx, child);
				c = get_proc(idx, child, 1);
				parent = get_proc(idx, ev->pid, 1);
				c->cwd = parent->cwd ? xstrdup(parent->cwd) : NULL;
				c->cwd_from_stream = c->cwd != NULL;
				u64map_copy(&c->fds, &parent->fds);
				u64map_copy(&c->handles, &parent->handles);
			}
			break;
		case DC_EV_EXEC: {
			/* Handles live in the old image's memory; fds stay
			 * (close-on-exec is not traced). */
			struct proc *p = get_proc(idx, ev->pid, 0);

			if (p != NULL)
				u64map_free(&p->handles);
			out_event(ev);
			break;
		}
		case DC_EV_EXIT_PROC:
			if (!in->has_ids)
				calltree_drop_process(&in->tree, ev->pid);
			out_event(ev);
			drop_proc(idx, ev->pid);
			break;
		default:
			/* A record type from a later version: keep it. */
			out_event(ev);
			break;
		}
	}
}

/* ---- other frames ---- */

static void handle_string(unsigned idx, const struct dc_frame *f)
{
	struct input *in = &inputs[idx];
	uint32_t id;

	if (f->len < 4) {
		damaged(in, "string", f->offset);
		return;
	}
	memcpy(&id, f->data, 4);
	u64map_put(&in->strings, id,
		   intern((const char *)f->data + 4, f->len - 4, id));
}

static void handle_drops(unsigned idx, const struct dc_frame *f)
{
	struct input *in = &inputs[idx];
	struct dc_drops_rec rec;
	unsigned char *copy;
	uint32_t i;

	if (f->len < sizeof(rec)) {
		damaged(in, "drops", f->offset);
		return;
	}
	memcpy(&rec, f->data, sizeof(rec));
	/* Every DROPS frame of a stream breaks down the same losses (per
	 * CPU, per probe): their totals are not added. */
	if (rec.total > in->drops_max)
		in->drops_max = rec.total;
	copy = xmalloc(f->len);
	memcpy(copy, f->data, f->len);
	if (rec.kind == DC_DROPS_PER_PROBE) {
		for (i = 0; i < rec.count; i++) {
			size_t at = sizeof(rec) + (size_t)i * sizeof(struct dc_drops_entry);
			uint32_t key;
			uint64_t *slot;

			if (at + sizeof(struct dc_drops_entry) > f->len)
				break;
			memcpy(&key, copy + at, 4);
			slot = u64map_get(&in->probes, key);
			if (slot != NULL) {
				key = ((struct probe *)PTR(*slot))->id;
				memcpy(copy + at, &key, 4);
			}
		}
	}
	flush_events();
	out_frame(DC_FRAME_DROPS, copy, f->len);
	free(copy);
}

/* Counters of the collector's profile mode: probe ids and the interval
 * start move to the output's numbering and clock, as events do. */
static void handle_counters(unsigned idx, const struct dc_frame *f)
{
	struct input *in = &inputs[idx];
	struct dc_counters_rec rec;
	unsigned char *copy;
	uint32_t i;

	if (f->len < sizeof(rec)) {
		damaged(in, "counters", f->offset);
		return;
	}
	memcpy(&rec, f->data, sizeof(rec));
	if ((f->len - sizeof(rec)) / sizeof(struct dc_counter_entry) < rec.count) {
		damaged(in, "counters", f->offset);
		return;
	}
	copy = xmalloc(f->len);
	memcpy(copy, f->data, f->len);
	rec.start_mono_ns += (uint64_t)in->delta;
	memcpy(copy, &rec, sizeof(rec));
	for (i = 0; i < rec.count; i++) {
		size_t at = sizeof(rec) + (size_t)i * sizeof(struct dc_counter_entry) +
			    offsetof(struct dc_counter_entry, probe_id);
		uint32_t id;
		uint64_t *slot;

		memcpy(&id, copy + at, 4);
		slot = u64map_get(&in->probes, id);
		if (slot != NULL) {
			id = ((struct probe *)PTR(*slot))->id;
			memcpy(copy + at, &id, 4);
		}
	}
	if (rec.start_mono_ns + rec.interval_ns > last_ts)
		last_ts = rec.start_mono_ns + rec.interval_ns;
	counters_out += rec.count;
	flush_events();
	out_frame(DC_FRAME_COUNTERS, copy, f->len);
	free(copy);
}

/* ---- --profile: counters from calls ---- */

/* Interval k covers [profile_base + k * opt_profile, ... + opt_profile):
 * intervals start where the output stream started. */
struct interval {
	int64_t k;
	struct u64map index;          /* pid << 32 | probe -> entry + 1 */
	struct dc_counter_entry *entries;
	size_t n, cap;
};

static uint64_t profile_base;
static struct u64map intervals;   /* (uint64_t)k -> struct interval * */

static int call_failed(uint8_t ret_kind, int64_t ret)
{
	/* The collector's rule for its own sums. */
	if (ret_kind == DC_RET_HANDLE)
		return ret <= 0;
	if (ret_kind == DC_RET_NONE)
		return 0;
	if (ret_kind == DC_RET_CODE)
		return ret != 0;
	return ret < 0;
}

/* Count a finished call (or an instant) in the interval it ended in. */
static void profile_event(const struct dc_event *ev)
{
	const struct probe *pr = probe_of(ev->probe_id);
	uint64_t end = ev->ts + ev->dur, key, *slot;
	int64_t off = (int64_t)(end - profile_base), len = (int64_t)opt_profile;
	int64_t k = off >= 0 ? off / len : -((-off + len - 1) / len);
	uint8_t ret_kind = pr ? pr->ret_kind : DC_RET_NONE;
	struct dc_counter_entry *e;
	struct interval *iv;

	if (end > last_ts)
		last_ts = end;
	slot = u64map_get(&intervals, (uint64_t)k);
	if (slot != NULL) {
		iv = PTR(*slot);
	} else {
		iv = xcalloc(1, sizeof(*iv));
		iv->k = k;
		u64map_put(&intervals, (uint64_t)k, VAL(iv));
	}
	key = ((uint64_t)ev->pid << 32) | ev->probe_id;
	slot = u64map_get(&iv->index, key);
	if (slot != NULL) {
		e = &iv->entries[*slot - 1];
	} else {
		if (iv->n == iv->cap) {
			iv->cap = iv->cap ? 2 * iv->cap : 16;
			iv->entries = xrealloc(iv->entries,
					       iv->cap * sizeof(*iv->entries));
		}
		e = &iv->entries[iv->n++];
		memset(e, 0, sizeof(*e));
		e->pid = ev->pid;
		e->probe_id = ev->probe_id;
		u64map_put(&iv->index, key, iv->n);
	}
	e->calls++;
	/* A call whose exit never came has no duration or result. */
	if (ev->flags & DC_EVF_UNWOUND)
		return;
	e->dur_ns += ev->dur;
	if (pr != NULL && ev->type == DC_EV_CALL) {
		struct dc_bytes b;
		unsigned n = ev->nargs < pr->nargs ? ev->nargs : pr->nargs;

		dc_bytes_of(pr->arg_kinds, n, ret_kind, DC_EVENT_ARGS(ev),
			    ev->ret, ev->flags, &b);
		if (b.done > 0)
			e->bytes += (uint64_t)b.done;
	}
	if (call_failed(ret_kind, ev->ret))
		e->errors++;
}

static int by_k(const void *a, const void *b)
{
	const struct interval *x = *(struct interval *const *)a;
	const struct interval *y = *(struct interval *const *)b;

	return x->k < y->k ? -1 : x->k > y->k;
}

static int by_pid_probe(const void *a, const void *b)
{
	const struct dc_counter_entry *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->probe_id < y->probe_id ? -1 : x->probe_id > y->probe_id;
}

/* Write every interval, oldest first, entries by pid and probe. */
static void profile_write(void)
{
	enum { PER_FRAME = 65536 }; /* entries: well under DC_FRAME_MAX */
	struct interval **all;
	unsigned char *frame;
	size_t n = 0, i, j;

	if (intervals.count == 0)
		return;
	all = xmalloc(intervals.count * sizeof(*all));
	for (i = 0; i < intervals.cap; i++)
		if (intervals.used[i])
			all[n++] = PTR(intervals.vals[i]);
	qsort(all, n, sizeof(*all), by_k);
	frame = xmalloc(sizeof(struct dc_counters_rec) +
			PER_FRAME * sizeof(struct dc_counter_entry));
	flush_events();
	for (i = 0; i < n; i++) {
		struct interval *iv = all[i];

		qsort(iv->entries, iv->n, sizeof(*iv->entries), by_pid_probe);
		for (j = 0; j < iv->n; j += PER_FRAME) {
			struct dc_counters_rec rec;
			size_t count = iv->n - j < PER_FRAME ? iv->n - j : PER_FRAME;

			memset(&rec, 0, sizeof(rec));
			rec.start_mono_ns = profile_base +
					    (uint64_t)(iv->k * (int64_t)opt_profile);
			rec.interval_ns = opt_profile;
			rec.count = (uint32_t)count;
			memcpy(frame, &rec, sizeof(rec));
			memcpy(frame + sizeof(rec), iv->entries + j,
			       count * sizeof(*iv->entries));
			out_frame(DC_FRAME_COUNTERS, frame, (uint32_t)(sizeof(rec) +
				  count * sizeof(*iv->entries)));
			counters_out += count;
		}
		u64map_free(&iv->index);
		free(iv->entries);
		free(iv);
	}
	free(frame);
	free(all);
	u64map_free(&intervals);
}

/* --profile's INTERVAL: a whole number with ns, us, ms or s (the
 * default); 0 if it is not one. */
static uint64_t parse_interval(const char *s)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 }, { "", 1000000000 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return 0;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].suffix) == 0) {
			/* Interval arithmetic is signed: stay below 2^62. */
			if (v == 0 || v > (1ULL << 62) / units[i].ns)
				return 0;
			return v * units[i].ns;
		}
	return 0;
}

static uint32_t end_flags;

static void handle_end(unsigned idx, const struct dc_frame *f)
{
	struct input *in = &inputs[idx];
	struct dc_end_rec rec;

	if (f->len < sizeof(rec)) {
		damaged(in, "end", f->offset);
		return;
	}
	memcpy(&rec, f->data, sizeof(rec));
	in->saw_end = 1;
	in->end_dropped = rec.dropped;
	in->end_ts = rec.end_mono_ns + (uint64_t)in->delta;
	/* What upstream knew went wrong still went wrong. */
	end_flags |= rec.flags;
}

/* Inputs of different hosts keep their processes apart (hosts.h). */
static void assign_hosts(void)
{
	struct dc_stream_info *infos = xcalloc(n_inputs, sizeof(*infos));
	int *ok = xcalloc(n_inputs, sizeof(*ok));
	unsigned i;

	host_views = xcalloc(n_inputs, sizeof(*host_views));
	for (i = 0; i < n_inputs; i++) {
		infos[i] = inputs[i].info;
		ok[i] = inputs[i].header_ok;
	}
	if (hosts_assign(host_views, infos, ok, n_inputs) > 1) {
		const char **paths = xcalloc(n_inputs, sizeof(*paths));
		int64_t *delta = xcalloc(n_inputs, sizeof(*delta));
		int64_t *fix = xcalloc(n_inputs, sizeof(*fix));

		for (i = 0; i < n_inputs; i++) {
			paths[i] = inputs[i].name;
			delta[i] = inputs[i].delta;
		}
		hosts_sync_mpi(host_views, paths, delta, fix, n_inputs);
		for (i = 0; i < n_inputs; i++) {
			if (host_views[i].synced == NULL)
				continue;
			inputs[i].delta += fix[i];
			notice("%s (host %s): clock set by the end of %s: %+lld ns",
			       inputs[i].name, host_views[i].host,
			       host_views[i].synced, (long long)fix[i]);
		}
		free(paths);
		free(delta);
		free(fix);
	}
	free(infos);
	free(ok);
}

static void handle_frame(unsigned idx, const struct dc_frame *f)
{
	struct dc_frame moved;

	f = hosts_rewrite(&host_views[idx], f, &moved);
	switch (f->type) {
	case DC_FRAME_EVENTS:
		handle_events(idx, f);
		flush_events();
		break;
	case DC_FRAME_STRING:
		handle_string(idx, f);
		break;
	case DC_FRAME_PROBE:
		handle_probe(&inputs[idx], f);
		break;
	case DC_FRAME_PROCESS:
		handle_process(idx, f);
		break;
	case DC_FRAME_DROPS:
		handle_drops(idx, f);
		break;
	case DC_FRAME_END:
		handle_end(idx, f);
		break;
	case DC_FRAME_FDS:
		handle_fds(idx, f);
		break;
	case DC_FRAME_COUNTERS:
		handle_counters(idx, f);
		break;
	default:
		/* SYSINFO, FILE, and types from later versions pass as they
		 * are. */
		flush_events();
		out_frame(f->type, f->data, f->len);
		break;
	}
}

/* ---- reading: in turn, or one thread per live input ---- */

struct item {
	struct item *next;
	unsigned input;
	int done;                 /* the input ended; status in frame.type */
	struct dc_frame frame;
	uint64_t data[];
};

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_filled = PTHREAD_COND_INITIALIZER;
static pthread_cond_t queue_drained = PTHREAD_COND_INITIALIZER;
static struct item *queue_head, *queue_tail;
static size_t queue_bytes;

static void enqueue(struct item *it)
{
	pthread_mutex_lock(&queue_lock);
	while (queue_head != NULL && queue_bytes > QUEUE_BYTES)
		pthread_cond_wait(&queue_drained, &queue_lock);
	if (queue_tail)
		queue_tail->next = it;
	else
		queue_head = it;
	queue_tail = it;
	queue_bytes += it->frame.len;
	pthread_cond_signal(&queue_filled);
	pthread_mutex_unlock(&queue_lock);
}

static void *reader_thread(void *arg)
{
	unsigned idx = (unsigned)(uintptr_t)arg;
	struct input *in = &inputs[idx];
	struct dc_frame f;
	struct item *it;
	int st;

	while ((st = dc_reader_next(in->r, &f)) == DC_READ_FRAME) {
		it = xmalloc(sizeof(*it) + f.len);
		it->next = NULL;
		it->input = idx;
		it->done = 0;
		it->frame = f;
		memcpy(it->data, f.data, f.len);
		it->frame.data = (const unsigned char *)it->data;
		enqueue(it);
	}
	in->status = st;
	snprintf(in->err, sizeof(in->err), "%s", dc_reader_error(in->r));
	it = xcalloc(1, sizeof(*it));
	it->input = idx;
	it->done = 1;
	enqueue(it);
	return NULL;
}

static void read_threaded(void)
{
	pthread_t *tids = xcalloc(n_inputs, sizeof(pthread_t));
	unsigned i, running = 0;

	for (i = 0; i < n_inputs; i++) {
		if (!inputs[i].header_ok)
			continue;
		errno = pthread_create(&tids[i], NULL, reader_thread,
				       (void *)(uintptr_t)i);
		if (errno != 0)
			sysdie("cannot start a reader thread");
		running++;
	}
	while (running > 0) {
		struct item *it;

		pthread_mutex_lock(&queue_lock);
		if (queue_head == NULL) {
			/* Input is idle: hand what we have downstream. */
			pthread_mutex_unlock(&queue_lock);
			out_flush();
			pthread_mutex_lock(&queue_lock);
			while (queue_head == NULL)
				pthread_cond_wait(&queue_filled, &queue_lock);
		}
		it = queue_head;
		queue_head = it->next;
		if (queue_head == NULL)
			queue_tail = NULL;
		queue_bytes -= it->frame.len;
		pthread_cond_signal(&queue_drained);
		pthread_mutex_unlock(&queue_lock);
		if (it->done)
			running--;
		else
			handle_frame(it->input, &it->frame);
		free(it);
	}
	for (i = 0; i < n_inputs; i++)
		if (inputs[i].header_ok)
			pthread_join(tids[i], NULL);
	free(tids);
}

/* The output-clock time of the first event of an EVENTS frame, for the
 * merge below; other frames sort first, so an input's frames never
 * change order. */
static uint64_t frame_key(unsigned i, const struct dc_frame *f)
{
	const struct dc_event *ev = (const void *)f->data;

	if (f->type != DC_FRAME_EVENTS || f->len < DC_EVENT_HDR_SIZE)
		return 0;
	return ev->ts + (uint64_t)inputs[i].delta;
}

static void next_frame(unsigned i, struct dc_frame *head, int *live)
{
	struct input *in = &inputs[i];
	int st = dc_reader_next(in->r, head);

	if (st == DC_READ_FRAME)
		return;
	*live = 0;
	in->status = st;
	snprintf(in->err, sizeof(in->err), "%s", dc_reader_error(in->r));
}

/* Files: each input's frames in their order, the inputs interleaved by
 * the time of their next events, so several hosts' streams come out in
 * time order (to the EVENTS frame: a collector's frame holds the events
 * of one short drain).  A frame's data stays valid until its own reader
 * reads again. */
static void read_in_turn(void)
{
	struct dc_frame *head = xcalloc(n_inputs, sizeof(*head));
	int *live = xcalloc(n_inputs, sizeof(*live));
	unsigned i, best;

	for (i = 0; i < n_inputs; i++) {
		live[i] = inputs[i].header_ok;
		if (live[i])
			next_frame(i, &head[i], &live[i]);
	}
	for (;;) {
		best = n_inputs;
		for (i = 0; i < n_inputs; i++)
			if (live[i] && (best == n_inputs ||
					frame_key(i, &head[i]) < frame_key(best, &head[best])))
				best = i;
		if (best == n_inputs)
			break;
		handle_frame(best, &head[best]);
		/* Frames arrive in batches from a live collector: pass each
		 * one on at once. */
		out_flush();
		next_frame(best, &head[best], &live[best]);
	}
	free(head);
	free(live);
}

/* ---- main ---- */

static void on_stop_signal(int sig)
{
	/* Nothing to do: the collector upstream got the same ^C or SIGTERM
	 * and is finishing its stream, which we read to its end.  The
	 * handler resets itself, so a second signal stops us at once. */
	(void)sig;
}

static void catch_stop_signal(int sig)
{
	struct sigaction sa;

	/* A signal that came ignored (a background job) stays ignored. */
	if (sigaction(sig, NULL, &sa) != 0 || sa.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sa.sa_flags = SA_RESTART | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void __attribute__((noreturn)) usage(void)
{
	printf("Usage: %s [OPTION]... [INPUT]...\n"
	       "Pair calls, name the files they work on, and merge datacrumbs\n"
	       "streams.  Reads INPUTs (standard input if none, or -), writes\n"
	       "one stream to standard output.\n"
	       "\n"
	       "  -p, --profile=INTERVAL  sum calls per INTERVAL (a whole number\n"
	       "                  with ns, us, ms or s; s by default), process\n"
	       "                  and probe into COUNTERS frames, written at\n"
	       "                  the end, instead of writing them as events\n"
	       "  -t, --text      write the result as text, one line per frame\n"
	       "                  or event, instead of a binary stream\n"
	       "  -v, --verbose   say more on standard error\n"
	       "  -h, --help      show this help and exit\n"
	       "  -V, --version   show the version and exit\n"
	       "\n"
	       "Exit status: 0 ok, 1 system error, 2 usage, 3 an input was\n"
	       "truncated, 4 an input was malformed; the output is complete\n"
	       "and ends with an END frame in every case but 1 and 2.\n",
	       dc_program);
	xfclose_stdout();
	exit(0);
}

static void open_inputs(int argc, char **argv)
{
	unsigned i;

	n_inputs = argc > 0 ? (unsigned)argc : 1;
	inputs = xcalloc(n_inputs, sizeof(*inputs));
	for (i = 0; i < n_inputs; i++) {
		struct input *in = &inputs[i];
		const char *name = argc > 0 ? argv[i] : "-";

		in->name = strcmp(name, "-") == 0 ? "standard input" : name;
		if (strcmp(name, "-") == 0) {
			in->fd = STDIN_FILENO;
		} else {
			in->fd = open(name, O_RDONLY | O_CLOEXEC);
			if (in->fd < 0)
				sysdie("cannot open %s", name);
		}
		in->r = dc_reader_open(in->fd, in->name);
		if (in->r == NULL)
			sysdie("cannot read %s", in->name);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "text", no_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct dc_stream_info out_info;
	struct dc_end_rec end;
	int opt, first = -1, status = DC_EXIT_OK, live = 0;
	uint64_t dropped = 0;
	unsigned i;

	dc_messages_init(argv[0]);
	while ((opt = getopt_long(argc, argv, "p:tvhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			opt_profile = parse_interval(optarg);
			if (opt_profile == 0)
				dc_usage_error("bad interval '%s' for --profile",
					       optarg);
			break;
		case 't':
			opt_text = 1;
			break;
		case 'v':
			dc_verbose++;
			break;
		case 'h':
			usage();
		case 'V':
			dc_print_version();
		default:
			fprintf(stderr, "Try '%s --help' for more information.\n",
				dc_program);
			exit(DC_EXIT_USAGE);
		}
	}
	/* A reader that goes away is a write error, reported once. */
	signal(SIGPIPE, SIG_IGN);
	catch_stop_signal(SIGINT);
	catch_stop_signal(SIGTERM);
	open_inputs(argc - optind, argv + optind);

	/* Headers first, in order: the first good one heads the output. */
	for (i = 0; i < n_inputs; i++) {
		struct input *in = &inputs[i];
		int st = dc_reader_header(in->r, &in->info);
		struct stat sb;

		if (st != DC_READ_FRAME) {
			in->status = st;
			snprintf(in->err, sizeof(in->err), "%s",
				 dc_reader_error(in->r));
			continue;
		}
		in->header_ok = 1;
		in->has_ids = (in->info.flags & DC_STREAM_F_IDS) != 0;
		calltree_init(&in->tree);
		if (first < 0)
			first = (int)i;
		if (fstat(in->fd, &sb) != 0 || !S_ISREG(sb.st_mode))
			live = 1;
	}
	if (first < 0) {
		for (i = 0; i < n_inputs; i++)
			warn("%s", inputs[i].err);
		/* Nothing to write: not even a header came. */
		for (i = 0; i < n_inputs; i++) {
			int s = dc_read_exit_status(inputs[i].status);

			if (s == DC_EXIT_FAILURE || (s > status && status != DC_EXIT_FAILURE))
				status = s;
		}
		return status;
	}
	out_info = inputs[first].info;
	out_info.flags |= DC_STREAM_F_IDS;
	profile_base = out_info.start_mono_ns;
	for (i = 0; i < n_inputs; i++)
		if (inputs[i].header_ok)
			inputs[i].delta = inputs[i].info.clock_offset_ns -
					  out_info.clock_offset_ns;
	assign_hosts();

	batch = xmalloc(OUT_BATCH + REC_MAX);
	if (opt_text) {
		text_header(stdout, &out_info);
	} else {
		writer = dc_writer_open(STDOUT_FILENO, &out_info);
		if (writer == NULL)
			sysdie("cannot write standard output");
	}

	/* Files are merged in time order, so the output does not depend on
	 * timing; live inputs (pipes) all at once, so that no writer blocks
	 * while another input is read. */
	if (live && n_inputs > 1)
		read_threaded();
	else
		read_in_turn();

	profile_write();
	memset(&end, 0, sizeof(end));
	for (i = 0; i < n_inputs; i++) {
		struct input *in = &inputs[i];
		int s = dc_read_exit_status(in->status);

		/* An input's losses: its END frame's count, or for an input
		 * cut short, the most its DROPS frames reported. */
		dropped += in->saw_end ? in->end_dropped : in->drops_max;
		if (in->end_ts > end.end_mono_ns)
			end.end_mono_ns = in->end_ts;
		if (in->damaged) {
			end.flags |= DC_END_INPUT_CORRUPT;
			if (status != DC_EXIT_FAILURE)
				status = DC_EXIT_BADINPUT;
		}
		if (s == DC_EXIT_OK)
			continue;
		warn("%s", in->err);
		if (s == DC_EXIT_TRUNCATED)
			end.flags |= DC_END_INPUT_TRUNCATED;
		else if (s == DC_EXIT_BADINPUT)
			end.flags |= DC_END_INPUT_CORRUPT;
		if (s == DC_EXIT_FAILURE || (s > status && status != DC_EXIT_FAILURE))
			status = s;
	}
	flush_events();
	end.events = events_out;
	end.dropped = dropped;
	end.flags |= end_flags;
	if (end.end_mono_ns < last_ts)
		end.end_mono_ns = last_ts;
	out_frame(DC_FRAME_END, &end, sizeof(end));
	if (opt_text) {
		xfclose_stdout();
	} else if (dc_writer_close(writer) != 0) {
		sysdie("cannot write standard output");
	}
	for (i = 0; i < n_inputs; i++) {
		struct calltree *ct = &inputs[i].tree;

		if (ct->orphans > 0)
			warn("%s: %" PRIu64 " events with no known parent "
			     "(flagged orphan)", inputs[i].name, ct->orphans);
		if (ct->lost_calls > 0)
			warn("%s: %" PRIu64 " calls named as parents never "
			     "returned (lost upstream)", inputs[i].name,
			     ct->lost_calls);
		if (calltree_open(ct) > 0)
			warn("%s: %zu calls still open at the end, named as "
			     "parents by events written", inputs[i].name,
			     calltree_open(ct));
		calltree_free(ct);
	}
	debug("%" PRIu64 " events and %" PRIu64 " counter entries written, %"
	      PRIu64 " dropped upstream", events_out, counters_out, dropped);
	return status;
}

/*
 * files.c - what calls do to dc-aggregate's file tables (aggregate.h).
 *
 * Per process: its fds and handles (each naming an output string id, a
 * path) and its working directory.  A call's probe says what it does to
 * them (classify); track_files names the file an event works on and,
 * once the call returned, applies it: open, dup, fcntl, close,
 * close_range, fopen, fdopen, chdir...  FORK copies the tables, EXEC
 * drops the handles, EXIT drops the process (aggregate.c).  /proc's FDS
 * frames and PROCESS cwds wait for their time (fdtable.c).
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "messages.h"

#define PAD8(n) (((n) + 7u) & ~7u)
#define PATH_BUF (2 * PATH_MAX + 2)

#ifndef F_DUPFD_CLOEXEC
#define F_DUPFD_CLOEXEC 1030
#endif

/* ---- probes ---- */

static int name_is(const char *name, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(name, *list) == 0)
			return 1;
	return 0;
}

/* A call that copies from one descriptor to another: the event is named
 * by the file it reads, and carries the file it writes as its string
 * (dc-stream(5)).  sendfile(2) takes the destination first. */
static void classify_copy(struct probe *p, const char *name)
{
	static const char *const copy_names[] = {
		"sendfile", "sendfile64", "copy_file_range", "splice", "tee",
		NULL,
	};
	int i, n = 0, fds[2], out_first;

	p->copy_in_arg = p->copy_out_arg = -1;
	if (!name_is(name, copy_names) || p->ret_kind != DC_RET_SIZE)
		return;
	for (i = 0; i < p->nargs && i < DC_MAX_ARGS; i++) {
		if (p->arg_kinds[i] == DC_ARG_PATH || p->arg_kinds[i] == DC_ARG_STR)
			return;
		if (p->arg_kinds[i] == DC_ARG_FD && n < 2)
			fds[n++] = i;
	}
	if (n < 2)
		return;
	out_first = strncmp(name, "sendfile", 8) == 0;
	p->copy_in_arg = fds[out_first];
	p->copy_out_arg = fds[!out_first];
}

void classify(struct probe *p, const char *name)
{
	static const char *const close_names[] = {
		"close", "__close", "__close_nocancel", "fclose", "_IO_fclose",
		"closedir", "MPI_File_close", "PMPI_File_close", "H5Fclose",
		"H5Dclose", "H5Gclose", "H5Aclose", "H5Oclose", "H5Pclose",
		NULL,
	};
	static const char *const dup_names[] = { "dup", "dup2", "dup3", NULL };
	static const char *const fcntl_names[] = { "fcntl", "fcntl64",
						   "__fcntl", NULL };
	/* A stream over a descriptor: it names the descriptor's file. */
	static const char *const fdopen_names[] = { "fdopen", "fdopendir",
						    NULL };
	int i;

	p->path_arg = p->dirfd_arg = p->fd_arg = p->handle_arg = -1;
	p->handle_out_arg = p->path2_arg = p->dirfd2_arg = p->file_arg = -1;
	p->path_second = 0;
	for (i = 0; i < p->nargs && i < DC_MAX_ARGS; i++) {
		switch (p->arg_kinds[i]) {
		case DC_ARG_STR:
			/* symlink(target, path): named by the path it
			 * makes, the string after the target. */
			if (p->path_arg < 0)
				p->path_second = 1;
			break;
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

	/* Its path, the record's second string, is also written out
	 * absolute, as a rename's new name is. */
	if (p->path_second && p->path_arg >= 0) {
		p->path2_arg = p->path_arg;
		p->dirfd2_arg = p->dirfd_arg;
	}
	classify_copy(p, name);
	classify_made(p, name);
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
	else if (name_is(name, fdopen_names) && p->fd_arg >= 0)
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
	else if (p->fdpair_arg >= 0)
		p->op = OP_NEW_FDS;
}

/* Same probe, ignoring the id? */
/* ---- processes ---- */

struct proc *get_proc(struct aggregator *ag,
		      unsigned in, uint32_t pid, int create)
{
	uint64_t *slot = u64map_get(&ag->procs, KEY(in, pid));
	struct proc *p;

	if (slot != NULL)
		return PTR(*slot);
	if (!create)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	u64map_put(&ag->procs, KEY(in, pid), VAL(p));
	return p;
}

static void free_proc(void *proc)
{
	struct proc *p = proc;

	free(p->cwd);
	free(p->cwd_prev);
	free(p->desc);
	free(p->held);
	u64map_free(&p->fds);
	u64map_free(&p->fd_prev);
	u64map_free(&p->fd_since);
	u64map_free(&p->handles);
	free(p);
}

void drop_proc(struct aggregator *ag, unsigned in, uint32_t pid)
{
	struct proc *p = get_proc(ag, in, pid, 0);

	if (p == NULL)
		return;
	hold_release(ag, in, pid, NULL);
	if (ag->cwd_moved == p)
		ag->cwd_moved = NULL;
	free_proc(p);
	u64map_del(&ag->procs, KEY(in, pid));
	snap_drop_pid(&ag->inputs[in].snapshots, pid);
}

void procs_free(struct aggregator *ag)
{
	u64map_free_ptrs(&ag->procs, free_proc);
	ag->cwd_moved = NULL;
}

/* A snapshot's time has come: it fills in what the events did not say. */
static void apply_snapshot(struct aggregator *ag, unsigned idx,
			   struct snapshot *s)
{
	struct proc *p = get_proc(ag, idx, s->pid, 1);

	/* Its events that waited for it come first: they are older.  After
	 * an exec, they wait for the descriptors (hold.c). */
	if (p->exec_waits && s->has_fds && s->taken >= p->exec_at) {
		hold_exec_settle(ag, p, s);
		hold_release(ag, idx, s->pid, NULL);
	} else if (s->cwd != NULL && p->held_len > 0 && !p->exec_waits) {
		hold_release(ag, idx, s->pid, s->cwd);
	}
	if (s->has_fds)
		fdt_apply(&p->fds, &s->fds, NULL);
	if (s->cwd != NULL && !p->cwd_from_stream) {
		free(p->cwd);
		p->cwd = s->cwd;
		s->cwd = NULL;
	}
	snap_free(s);
}

void apply_snapshots(struct aggregator *ag, unsigned idx, uint64_t upto)
{
	struct snapshot *s;

	while ((s = snap_due(&ag->inputs[idx].snapshots, upto)) != NULL)
		apply_snapshot(ag, idx, s);
}

/* Queue s until the input's events pass its time; a snapshot from a
 * collector before taken existed (0) holds where it stands. */
static void add_snapshot(struct aggregator *ag, unsigned idx,
			 struct snapshot *s)
{
	if (s->taken == 0)
		apply_snapshot(ag, idx, s);
	else
		snap_insert(&ag->inputs[idx].snapshots, s);
}

/* A PROCESS payload (len bytes; exe, cmdline and cwd well formed) with
 * cwd in place of its working directory, and its length in *out_len. */
static unsigned char *with_cwd(const unsigned char *data, size_t len,
			       const char *cwd, size_t *out_len)
{
	size_t l[3], pos = sizeof(struct dc_process_rec), at, cl = strlen(cwd);
	const char *s[3];
	unsigned char *copy;
	int k;

	for (k = 0; k < 3; k++) {
		pos = dc_get_str(data, len, pos, &s[k], &l[k]);
		if (pos == 0)
			return NULL;
	}
	*out_len = len - l[2] + cl;
	copy = xmalloc(*out_len);
	memcpy(copy, data, sizeof(struct dc_process_rec));
	at = sizeof(struct dc_process_rec);
	at = dc_put_str(copy, *out_len, at, s[0], l[0]);
	at = dc_put_str(copy, *out_len, at, s[1], l[1]);
	at = dc_put_str(copy, *out_len, at, cwd, cl);
	memcpy(copy + at, data + pos, len - pos);
	return copy;
}

/* The PROCESS payload to pass on: f's own, except that a fork's or an
 * exec's description holds from its event on, so its working directory
 * is the one the events say there, when they say one (the FORK record
 * gave the child its parent's; the collector's copy of the parent's
 * description may be older than a chdir, and /proc read after an exec
 * may show a chdir made after it).  cwd, cwd_len: the frame's. */
static unsigned char *process_payload(struct aggregator *ag, unsigned idx,
				      const struct dc_frame *f,
				      const struct dc_process_rec *rec,
				      const char *cwd_was, size_t cwd_len,
				      size_t *len)
{
	struct proc *p = get_proc(ag, idx, rec->pid, 0);
	const char *cwd = NULL;
	unsigned char *copy;

	if (p != NULL && p->cwd != NULL &&
	    ((rec->flags & DC_PROC_F_FORKED) ||
	     ((rec->flags & DC_PROC_F_EXEC) && p->cwd_from_stream)))
		cwd = p->cwd;
	/* When the stream shows every chdir, what /proc said before the
	 * exec holds at the exec, and /proc read after it may not. */
	if ((rec->flags & DC_PROC_F_EXEC) && ag->inputs[idx].cwd_probes == 3) {
		const char *before = snap_cwd_before(ag->inputs[idx].snapshots,
						     rec->pid, rec->start_mono_ns);

		if (before != NULL)
			cwd = before;
		else if (p != NULL && p->cwd != NULL)
			cwd = p->cwd;
	}
	if (cwd != NULL && (strlen(cwd) != cwd_len ||
			    memcmp(cwd, cwd_was, cwd_len) != 0) &&
	    (copy = with_cwd(f->data, f->len, cwd, len)) != NULL)
		return copy;
	copy = xmalloc(f->len);
	memcpy(copy, f->data, f->len);
	*len = f->len;
	return copy;
}

/* The description passed on last for p: a chdir describes it again. */
static void keep_desc(struct proc *p, const unsigned char *payload,
		      size_t len)
{
	free(p->desc);
	p->desc = xmalloc(len);
	memcpy(p->desc, payload, len);
	p->desc_len = len;
}

/* p's working directory changed at time at: its description again,
 * with the new directory, holding from then on (dc-trace(5)'s PR). */
static void describe_cwd(struct aggregator *ag, struct proc *p, uint64_t at)
{
	struct dc_process_rec rec;
	unsigned char *copy;
	size_t len;

	if (p->desc == NULL || p->cwd == NULL ||
	    (copy = with_cwd(p->desc, p->desc_len, p->cwd, &len)) == NULL)
		return;
	memcpy(&rec, copy, sizeof(rec));
	rec.flags = 0;
	rec.start_mono_ns = at;
	memcpy(copy, &rec, sizeof(rec));
	if (dc_snapshot_taken(DC_FRAME_PROCESS, copy, len) != 0)
		memcpy(copy + len - 8, &at, 8);
	flush_events(ag);
	out_frame(ag, DC_FRAME_PROCESS, copy, (uint32_t)len);
	keep_desc(p, copy, len);
	free(copy);
}

void exec_desc(struct proc *p, const struct dc_event *ev)
{
	struct dc_process_rec rec;

	if (p->desc == NULL)
		return;
	memcpy(&rec, p->desc, sizeof(rec));
	if ((rec.flags & DC_PROC_F_EXEC) && rec.start_mono_ns == ev->ts)
		return;
	free(p->desc);
	p->desc = NULL;
	p->desc_len = 0;
}

void describe_moved(struct aggregator *ag, const struct dc_event *ev)
{
	struct proc *p = ag->cwd_moved;

	ag->cwd_moved = NULL;
	describe_cwd(ag, p, ev->ts + ev->dur);
}

void handle_process(struct aggregator *ag,
		    unsigned idx, const struct dc_frame *f)
{
	struct input *in = &ag->inputs[idx];
	struct dc_process_rec rec;
	const char *s[3];
	size_t l[3], pos = sizeof(rec), len;
	unsigned char *copy;
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
	/* A record without a cwd (the process was already gone) leaves the
	 * one known from before in place; a fork's is its parent's, which
	 * the FORK record gave the child already. */
	if (l[2] > 0 && s[2][0] == '/' && !(rec.flags & DC_PROC_F_FORKED)) {
		struct snapshot *snap = xcalloc(1, sizeof(*snap));

		snap->pid = rec.pid;
		snap->taken = dc_snapshot_taken(DC_FRAME_PROCESS, f->data, f->len);
		snap->cwd = xmalloc(l[2] + 1);
		memcpy(snap->cwd, s[2], l[2]);
		snap->cwd[l[2]] = '\0';
		add_snapshot(ag, idx, snap);
		get_proc(ag, idx, rec.pid, 1)->described_cwd = 1;
	}
	copy = process_payload(ag, idx, f, &rec, s[2], l[2], &len);
	rec.start_mono_ns += (uint64_t)in->delta;
	memcpy(copy, &rec, sizeof(rec));
	flush_events(ag);
	out_frame(ag, DC_FRAME_PROCESS, copy, (uint32_t)len);
	keep_desc(get_proc(ag, idx, rec.pid, 1), copy, len);
	free(copy);
}

/* A snapshot of a process's open files, read from /proc by the collector
 * while the process ran on: it applies from the time it was taken, and
 * only to the fds the events have not followed (fdtable.h).  Descriptors
 * that are not files keep the kernel's name for them ("pipe:[1234]",
 * "socket:[5678]"). */
void handle_fds(struct aggregator *ag, unsigned idx, const struct dc_frame *f)
{
	struct input *in = &ag->inputs[idx];
	struct dc_fds_rec rec;
	struct u64map fds = { 0 };
	struct snapshot *snap;
	size_t pos = sizeof(rec);
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
			u64map_put(&fds, (uint64_t)(int64_t)fd, intern(ag, path, len, 0));
	}
	snap = xcalloc(1, sizeof(*snap));
	snap->pid = rec.pid;
	snap->taken = dc_snapshot_taken(DC_FRAME_FDS, f->data, f->len);
	snap->has_fds = 1;
	snap->fds = fds;
	add_snapshot(ag, idx, snap);
	flush_events(ag);
	out_frame(ag, f->type, f->data, f->len);
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
	return p ? fdt_file(&p->fds, fd) : 0;
}

static uint32_t handle_file(struct proc *p, uint64_t h)
{
	uint64_t *slot = p ? u64map_get(&p->handles, h) : NULL;

	return slot ? (uint32_t)*slot : 0;
}

/* Did fd get its file after call ev began?  Then ev, on the fd, was on
 * the file before: records come as calls return, so another thread's
 * open that reused an fd an earlier close of ev's freed comes first. */
static int fd_set_since(struct proc *p, int64_t fd, const struct dc_event *ev)
{
	uint64_t *since = p ? u64map_get(&p->fd_since, (uint64_t)fd) : NULL;

	return since != NULL && *since > ev->ts;
}

/* fd set by call ev to file.  The file before, and when: unless ev set
 * it already, through a call made inside it (the open system call
 * under open(), whose record came first). */
void set_fd(struct proc *p, int64_t fd, uint32_t file,
	    const struct dc_event *ev)
{
	uint64_t *since = u64map_get(&p->fd_since, (uint64_t)fd);

	if (since == NULL || *since < ev->ts || *since > ev->ts + ev->dur) {
		u64map_put(&p->fd_prev, (uint64_t)fd, fdt_file(&p->fds, fd));
		u64map_put(&p->fd_since, (uint64_t)fd, ev->ts + ev->dur);
	}
	fdt_set(&p->fds, fd, file);
}

static uint32_t resolve_path(struct aggregator *ag,
			     struct proc *p, const struct dc_event *ev,
			     const char *path, size_t len, int dirfd_arg);

const char *event_path_str(const struct probe *pr, const struct dc_event *ev,
			   size_t *len)
{
	const char *path = DC_EVENT_STR(ev);
	/* A second string may follow the first's NUL. */
	size_t len1 = strnlen(path, ev->str_len);

	if (!pr->path_second) {
		*len = len1;
		return path;
	}
	if (len1 + 1 >= ev->str_len)
		return NULL;
	*len = ev->str_len - len1 - 1;
	return path + len1 + 1;
}

/* The output string id of the path an event names inline, resolved
 * against its dirfd or the process's working directory when relative.
 * A relative path that cannot be resolved is kept as written. */
static uint32_t event_path(struct aggregator *ag,
			   struct proc *p, const struct probe *pr,
			   const struct dc_event *ev)
{
	size_t len;
	const char *path = event_path_str(pr, ev, &len);

	return path != NULL ? resolve_path(ag, p, ev, path, len, pr->dirfd_arg)
			    : 0;
}

int event_dirfd(const struct dc_event *ev, int dirfd_arg)
{
	if (dirfd_arg >= 0 && dirfd_arg < ev->nargs)
		return (int32_t)DC_EVENT_ARGS(ev)[dirfd_arg];
	return AT_FDCWD;
}

/* A relative path of p's kept as written, its working directory
 * unknown: counted (and said at the end) when the stream never had one
 * to give, neither a FORK nor /proc (a process that exited before the
 * collector read it).  One the events made unknown (a chdir they cannot
 * name), or that /proc gave later, is dc-aggregate(1)'s to explain. */
static void cwd_missed(struct aggregator *ag, struct proc *p)
{
	if (p->forked || p->described_cwd)
		return;
	ag->cwd_missed_paths++;
	if (!p->cwd_missed)
		ag->cwd_missed_procs++;
	p->cwd_missed = 1;
}

/* The working directory call ev began in: the one before the last
 * change, if that was made by a call that ended after ev began (made
 * inside it: the chdir system call under chdir()). */
static const char *cwd_at(const struct proc *p, const struct dc_event *ev)
{
	return p->cwd_since > ev->ts ? p->cwd_prev : p->cwd;
}

/* The output string id of path (len bytes) as the call saw it: against
 * the directory of the fd in slot dirfd_arg (-1: none) or the working
 * directory when relative. */
static uint32_t resolve_path(struct aggregator *ag,
			     struct proc *p, const struct dc_event *ev,
			     const char *path, size_t len, int dirfd_arg)
{
	const char *base = NULL;
	char out[PATH_BUF];

	if (len == 0)
		return 0;
	if (path[0] != '/') {
		int dirfd = event_dirfd(ev, dirfd_arg);

		if (dirfd != AT_FDCWD)
			base = string_value(ag, fd_file(p, dirfd));
		else if (p != NULL && (base = cwd_at(p, ev)) == NULL)
			cwd_missed(ag, p);
		if (base == NULL || base[0] != '/')
			return intern(ag, path, len, 0);
	}
	len = join_path(out, base ? base : "", path, len);
	return intern(ag, out, len, 0);
}

/* A second path (rename's new name) is rewritten in place as the
 * absolute path the call meant; ev sits in a REC_MAX buffer. */
static void absolute_path2(struct aggregator *ag,
			   struct proc *p, const struct probe *pr,
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
	id = resolve_path(ag, p, ev, str + len1 + 1, len2, pr->dirfd2_arg);
	abs = string_value(ag, id);
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

/* The file of fd as call ev saw it at entry: a call made inside ev (the
 * close system call under close(), the close under fclose()) may have
 * closed it since, and ends before ev does. */
static uint32_t fd_file_in(struct proc *p, int32_t fd, const struct dc_event *ev)
{
	uint32_t file;

	if (fd_set_since(p, fd, ev))
		return (uint32_t)*u64map_get(&p->fd_prev, (uint64_t)fd);
	file = fd_file(p, fd);

	if (file == 0 && p != NULL && p->closed_file != 0 &&
	    p->closed_fd == fd && p->closed_in != 0 && p->closed_in == ev->seq)
		file = p->closed_file;
	return file;
}

/* The file an event works on: its path, fd or handle, as the process's
 * tables have it now; 0 if unknown. */
static uint32_t file_of(struct aggregator *ag, struct proc *p,
			const struct probe *pr, const struct dc_event *ev)
{
	const __u64 *args = DC_EVENT_ARGS(ev);
	uint32_t file = 0;

	if (pr->path_arg >= 0 && ev->str_len > 0)
		file = event_path(ag, p, pr, ev);
	else if (pr->copy_in_arg >= 0 && pr->copy_out_arg < ev->nargs)
		file = fd_file_in(p, (int32_t)args[pr->copy_in_arg], ev);
	else if (pr->fd_arg >= 0 && pr->fd_arg < ev->nargs)
		file = fd_file_in(p, (int32_t)args[pr->fd_arg], ev);
	else if (pr->handle_arg >= 0 && pr->handle_arg < ev->nargs) {
		file = handle_file(p, args[pr->handle_arg]);
		/* A FILE * opened before tracing (stdin, stdout, stderr)
		 * is named by its descriptor, read at entry. */
		if (file == 0 && pr->file_arg >= 0 && pr->nargs < DC_MAX_ARGS &&
		    ev->nargs == DC_MAX_ARGS)
			file = fd_file_in(p, (int32_t)args[DC_MAX_ARGS - 1], ev);
	}
	return file;
}

static void set_handle(struct proc *p, uint64_t h, uint32_t file)
{
	if (file != 0)
		u64map_put(&p->handles, h, file);
	else
		u64map_del(&p->handles, h);
}

/* The handle an open made: returned, or stored through a pointer
 * (MPI_File_open); 0 if none. */
static uint64_t opened_handle(const struct probe *pr, const struct dc_event *ev)
{
	if (pr->handle_out_arg < 0)
		return (uint64_t)ev->ret;
	return pr->handle_out_arg < ev->nargs
	       ? DC_EVENT_ARGS(ev)[pr->handle_out_arg] : 0;
}

/* An fcntl that duplicates its fd (F_DUPFD, F_DUPFD_CLOEXEC). */
static int fcntl_dups(const struct probe *pr, const struct dc_event *ev)
{
	int32_t cmd;

	if (pr->fd_arg + 1 >= ev->nargs)
		return 0;
	cmd = (int32_t)DC_EVENT_ARGS(ev)[pr->fd_arg + 1];
	return cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC;
}

/* Gone whatever close returned: Linux frees the fd even when close
 * reports EINTR or EIO. */
static void close_fd(struct proc *p, const struct probe *pr,
		     const struct dc_event *ev)
{
	int32_t fd;

	if (pr->fd_arg >= ev->nargs)
		return;
	fd = (int32_t)DC_EVENT_ARGS(ev)[pr->fd_arg];
	if (ev->file_id != 0) {
		p->closed_fd = fd;
		p->closed_file = ev->file_id;
		p->closed_in = ev->parent;
	}
	/* Reopened by another thread since: the close was of the file
	 * before (fd_set_since). */
	if (!fd_set_since(p, fd, ev))
		fdt_close(&p->fds, fd);
}

/* A chdir or fchdir that succeeded.  Somewhere the events cannot name
 * (a relative path from an unknown directory, an fd of unknown path):
 * unknown, until /proc says. */
static void change_dir(struct aggregator *ag, struct proc *p,
		       const struct dc_event *ev)
{
	const char *dir = string_value(ag, ev->file_id);

	if (dir != NULL && dir[0] == '/' &&
	    (p->cwd == NULL || strcmp(p->cwd, dir) != 0))
		ag->cwd_moved = p;
	/* The directory before, unless a call made inside this one (the
	 * system call under chdir(), whose record came first) moved it. */
	if (p->cwd_since < ev->ts || p->cwd_since > ev->ts + ev->dur) {
		free(p->cwd_prev);
		p->cwd_prev = p->cwd;
		p->cwd_since = ev->ts + ev->dur;
	} else {
		free(p->cwd);
	}
	p->cwd = dir != NULL && dir[0] == '/' ? xstrdup(dir) : NULL;
	p->cwd_from_stream = p->cwd != NULL;
}

/* What a finished call did to the process's tables. */
static void apply_op(struct aggregator *ag, struct proc *p,
		     const struct probe *pr, struct dc_event *ev)
{
	const __u64 *args = DC_EVENT_ARGS(ev);
	int failed = ev->ret < 0 || (ev->flags & DC_EVF_FAILED);
	uint64_t h;

	switch (pr->op) {
	case OP_OPEN:
		if (!failed)
			set_fd(p, ev->ret, ev->file_id, ev);
		break;
	case OP_OPEN_HANDLE:
		h = opened_handle(pr, ev);
		if (!failed && h != 0)
			set_handle(p, h, ev->file_id);
		break;
	case OP_NEW_HANDLE:
		/* A dataset, group or attribute id is in its file. */
		if (!failed && ev->ret > 0)
			set_handle(p, (uint64_t)ev->ret, ev->file_id);
		break;
	case OP_NEW_FD:
	case OP_NEW_FDS:
		if (!failed)
			name_made_fds(ag, p, pr, ev);
		break;
	case OP_FCNTL:
		if (!fcntl_dups(pr, ev))
			break;
		/* fall through */
	case OP_DUP:
		if (!failed && pr->fd_arg < ev->nargs)
			set_fd(p, ev->ret, fd_file(p, (int32_t)args[pr->fd_arg]), ev);
		break;
	case OP_FDOPEN:
		if (!failed && ev->ret != 0 && ev->file_id != 0)
			u64map_put(&p->handles, (uint64_t)ev->ret, ev->file_id);
		break;
	case OP_CLOSE:
		close_fd(p, pr, ev);
		break;
	case OP_CLOSE_HANDLE:
		if (pr->handle_arg < ev->nargs)
			u64map_del(&p->handles, args[pr->handle_arg]);
		break;
	case OP_CLOSE_RANGE:
		/* CLOSE_RANGE_CLOEXEC (4): marked close-on-exec, not closed. */
		if (!failed && ev->nargs >= 2 &&
		    !(ev->nargs >= 3 && (args[2] & 4)))
			fdt_close_range(&p->fds, (uint32_t)args[0],
					(uint32_t)args[1]);
		break;
	case OP_CHDIR:
	case OP_FCHDIR:
		if (!failed && ev->ret == 0)
			change_dir(ag, p, ev);
		break;
	case OP_NONE:
		break;
	}
}

int op_changed_fds(const struct probe *pr, const struct dc_event *ev,
		   int64_t fds[2], int64_t range[2])
{
	const __u64 *args = DC_EVENT_ARGS(ev);
	int32_t pair[2];

	range[0] = 1;
	range[1] = 0;
	switch (pr->op) {
	case OP_FCNTL:
		if (!fcntl_dups(pr, ev))
			return 0;
		/* fall through */
	case OP_OPEN:
	case OP_NEW_FD:
	case OP_DUP:
		fds[0] = ev->ret;
		return ev->ret >= 0;
	case OP_NEW_FDS:
		if (!made_pair(pr, ev, pair))
			return 0;
		fds[0] = pair[0];
		fds[1] = pair[1];
		return 2;
	case OP_CLOSE:
		if (pr->fd_arg >= ev->nargs)
			return 0;
		fds[0] = (int32_t)args[pr->fd_arg];
		return 1;
	case OP_CLOSE_RANGE:
		if (ev->nargs >= 2) {
			range[0] = (uint32_t)args[0];
			range[1] = (uint32_t)args[1];
		}
		return 0;
	default:
		return 0;
	}
}

/* The file a copy between two descriptors writes, as its string (the
 * collector sends none for it); ev sits in a REC_MAX buffer. */
static void copy_destination(struct aggregator *ag, struct proc *p,
			     const struct probe *pr, struct dc_event *ev)
{
	const char *dest;
	size_t len, size;

	if (ev->str_len != 0 || pr->copy_out_arg >= ev->nargs)
		return;
	dest = string_value(ag, fd_file_in(p, (int32_t)DC_EVENT_ARGS(ev)[
					   pr->copy_out_arg], ev));
	if (dest == NULL || dest[0] == '\0')
		return;
	len = strlen(dest);
	size = PAD8(DC_EVENT_HDR_SIZE + 8u * ev->nargs + len + 1);
	if (size > REC_MAX - 8)
		return;
	memset(DC_EVENT_STR(ev), 0, size - (DC_EVENT_HDR_SIZE + 8u * ev->nargs));
	memcpy(DC_EVENT_STR(ev), dest, len);
	ev->str_len = (uint16_t)len;
	ev->size = (uint16_t)size;
}

/* Set ev->file_id and, for a finished call (ret known), update the
 * process's tables as the call did. */
void track_files(struct aggregator *ag, unsigned in, const struct probe *pr,
		 struct dc_event *ev, int finished)
{
	struct proc *p = get_proc(ag, in, ev->pid, 1);
	uint32_t file;

	/* Counters name no files: --profile needs no file tables. */
	if (pr == NULL || ag->opt_profile != 0)
		return;
	file = file_of(ag, p, pr, ev);
	if (file != 0)
		ev->file_id = file;
	if (pr->path2_arg >= 0)
		absolute_path2(ag, p, pr, ev);
	if (pr->copy_out_arg >= 0)
		copy_destination(ag, p, pr, ev);
	if (finished)
		apply_op(ag, p, pr, ev);
}


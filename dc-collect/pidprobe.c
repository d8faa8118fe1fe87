/*
 * pidprobe.c - uprobes bound to the traced processes, inherited by what
 * they create (pidprobe.h says why it is done this way).
 *
 * Each probe is two tracefs uprobe events of the group "datacrumbs",
 * named after this collector's pid and a random token (p<PID>_<TOKEN>_<N>
 * at entry, r... at return): tracefs is shared by every pid namespace on
 * the host, so a pid alone could be another container's collector's.  A
 * collector that is killed leaves its events behind, without consumers
 * (no breakpoint anywhere): nothing can tell from here whether events
 * named after a pid another namespace may reuse are still in use, so none
 * are removed but one's own.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <bpf/bpf.h>

#include "messages.h"
#include "pidprobe.h"
#include "tracefs.h"

#define GROUP "datacrumbs"
#define ENOTSUPP_KERNEL 524 /* an instruction uprobes cannot replace */

struct pidprobe {
	char name[2][32];        /* tracefs event names: entry, return */
	int id[2];               /* their tracepoint ids */
	char *what;              /* function and path, for messages */
	__u64 cookie;
	bool held;               /* the programs are attached */
	bool failed;             /* refused once: not tried again */
	int *fds;                /* its events and links */
	size_t nfds;
};

struct dc_pidprobes {
	char root[64];           /* tracefs */
	int prog[2];             /* entry, return */
	pid_t self;
	uint32_t token;          /* tells this collector's events apart */
	struct pidprobe *p;
	size_t n;
};

/* The real kernel's tracefs, if uprobe events can be defined there. */
static const char *tracefs_root(void)
{
	const char *root = dc_tracefs_kernel();
	char path[96];

	if (root == NULL)
		return NULL;
	snprintf(path, sizeof(path), "%s/uprobe_events", root);
	return access(path, W_OK) == 0 ? root : NULL;
}

/* One command to uprobe_events: 0 or -errno. */
static int define(const struct dc_pidprobes *pp, const char *cmd)
{
	char path[96];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/uprobe_events", pp->root);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static void undefine(const struct dc_pidprobes *pp, const char *name)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "-:" GROUP "/%s\n", name);
	define(pp, cmd);
}

/* Each probe needs a few descriptors per traced thread: as many as the
 * hard limit allows. */
static void raise_nofile(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

struct dc_pidprobes *dc_pidprobes_new(int entry_prog, int exit_prog,
				      const char **why)
{
	const char *root = tracefs_root();
	struct dc_pidprobes *pp;

	if (root == NULL) {
		*why = "tracefs (uprobe_events) is not mounted or not writable";
		errno = ENOENT;
		return NULL;
	}
	pp = xcalloc(1, sizeof(*pp));
	snprintf(pp->root, sizeof(pp->root), "%s", root);
	pp->prog[0] = entry_prog;
	pp->prog[1] = exit_prog;
	pp->self = getpid();
	/* tracefs is the kernel's, shared by every pid namespace: a pid
	 * alone could name another container's collector's events. */
	if (getrandom(&pp->token, sizeof(pp->token), 0) != sizeof(pp->token))
		pp->token = (uint32_t)time(NULL) ^ ((uint32_t)pp->self << 16);
	raise_nofile();
	return pp;
}

static int read_id(const struct dc_pidprobes *pp, const char *name)
{
	char path[160];
	FILE *f;
	int id = -1;

	snprintf(path, sizeof(path), "%s/events/" GROUP "/%s/id", pp->root, name);
	f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	if (fscanf(f, "%d", &id) != 1)
		id = -EINVAL;
	fclose(f);
	return id;
}

int dc_pidprobes_add(struct dc_pidprobes *pp, const char *path, __u64 offset,
		     const char *name, __u64 cookie)
{
	struct pidprobe *p;
	char cmd[4200];
	int k, err;

	/* uprobe_events splits its commands at white space. */
	if (path[strcspn(path, " \t\n")] != '\0' || strlen(path) > 4000)
		return -EINVAL;
	pp->p = xrealloc(pp->p, (pp->n + 1) * sizeof(*pp->p));
	p = &pp->p[pp->n];
	memset(p, 0, sizeof(*p));
	for (k = 0; k < 2; k++) {
		snprintf(p->name[k], sizeof(p->name[k]), "%c%d_%08x_%zu", "pr"[k],
			 (int)pp->self, pp->token, pp->n);
		snprintf(cmd, sizeof(cmd), "%c:" GROUP "/%s %s:0x%llx\n", "pr"[k],
			 p->name[k], path, (unsigned long long)offset);
		err = define(pp, cmd);
		if (err == 0) {
			p->id[k] = read_id(pp, p->name[k]);
			err = p->id[k] < 0 ? p->id[k] : 0;
		}
		if (err != 0) {
			while (k-- > 0)
				undefine(pp, p->name[k]);
			return err;
		}
	}
	p->cookie = cookie;
	p->what = xasprintf("%s in %s", name, path);
	pp->n++;
	return 0;
}

static void keep_fd(struct pidprobe *p, int fd)
{
	p->fds = xrealloc(p->fds, (p->nfds + 1) * sizeof(int));
	p->fds[p->nfds++] = fd;
}

static void close_fds(struct pidprobe *p)
{
	while (p->nfds > 0)
		close(p->fds[--p->nfds]);
}

static int open_event(int id, pid_t tid, bool inherit)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (__u64)id;
	a.sample_period = 1;
	a.wakeup_events = 1;
	a.inherit = inherit;
	fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The event holding the program: bound to tid, not inherited (see
 * pidprobe.h), with the probe's cookie.  All or nothing. */
static int hold(struct dc_pidprobes *pp, struct pidprobe *p, pid_t tid)
{
	int fds[4], n = 0, err = 0;

	for (int k = 0; k < 2 && err == 0; k++) {
		LIBBPF_OPTS(bpf_link_create_opts, o, .perf_event.bpf_cookie = p->cookie);
		int fd = open_event(p->id[k], tid, false);

		if (fd < 0) {
			err = fd;
			break;
		}
		fds[n++] = fd;
		fd = bpf_link_create(pp->prog[k], fd, BPF_PERF_EVENT, &o);
		if (fd < 0)
			err = -errno;
		else
			fds[n++] = fd;
	}
	for (int i = 0; i < n; i++) {
		if (err == 0)
			keep_fd(p, fds[i]);
		else
			close(fds[i]);
	}
	p->held = err == 0;
	return err;
}

/* One probe on one thread: the program once, the inherited events on
 * every thread. */
static int place(struct dc_pidprobes *pp, struct pidprobe *p, pid_t tid)
{
	int err = p->held ? 0 : hold(pp, p, tid);

	for (int k = 0; k < 2 && err == 0; k++) {
		int fd = open_event(p->id[k], tid, true);

		if (fd < 0)
			return fd;
		keep_fd(p, fd);
	}
	return err;
}

/* A probe placed in part would trap without recording, or record
 * entries without their returns: all of it goes. */
static void refused(struct pidprobe *p, pid_t pid, int err)
{
	p->failed = true;
	close_fds(p);
	if (err == -ENOTSUPP_KERNEL)
		warn("cannot attach %s: the kernel cannot probe its first "
		     "instruction", p->what);
	else
		warn("cannot attach %s to process %d: %s", p->what, (int)pid,
		     strerror(-err));
}

/* Threads of pid not yet in done[0..*ndone): placed, and added. */
static bool place_threads(struct dc_pidprobes *pp, pid_t pid, pid_t **done,
			  size_t *ndone)
{
	char path[64];
	struct dirent *d;
	bool more = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (dir == NULL)
		return false;
	while ((d = readdir(dir)) != NULL) {
		pid_t tid = (pid_t)strtol(d->d_name, NULL, 10);
		size_t i;

		if (tid <= 0)
			continue;
		for (i = 0; i < *ndone && (*done)[i] != tid; i++)
			;
		if (i < *ndone)
			continue;
		*done = xrealloc(*done, (*ndone + 1) * sizeof(pid_t));
		(*done)[(*ndone)++] = tid;
		more = true;
		for (i = 0; i < pp->n; i++) {
			int err;

			if (pp->p[i].failed)
				continue;
			err = place(pp, &pp->p[i], tid);
			/* A thread that ended meanwhile is no failure. */
			if (err != 0 && err != -ESRCH)
				refused(&pp->p[i], pid, err);
		}
	}
	closedir(dir);
	return more;
}

size_t dc_pidprobes_hold(struct dc_pidprobes *pp, pid_t tid)
{
	size_t held = 0;

	for (size_t i = 0; i < pp->n; i++) {
		struct pidprobe *p = &pp->p[i];
		int err;

		if (p->failed || p->held)
			continue;
		err = hold(pp, p, tid);
		if (err != 0)
			refused(p, tid, err);
		held += err == 0;
	}
	return held;
}

size_t dc_pidprobes_follow(struct dc_pidprobes *pp, pid_t pid)
{
	pid_t *done = NULL;
	size_t ndone = 0, placed = 0;

	/* Every thread, including those started while we work: a thread
	 * created from one without the events would not inherit them. */
	while (place_threads(pp, pid, &done, &ndone))
		;
	free(done);
	for (size_t i = 0; i < pp->n; i++)
		placed += !pp->p[i].failed;
	return placed;
}

void dc_pidprobes_free(struct dc_pidprobes *pp)
{
	if (pp == NULL)
		return;
	/* Closing an event also ends the copies its children inherited, so
	 * the definitions are free to go. */
	for (size_t i = 0; i < pp->n; i++) {
		close_fds(&pp->p[i]);
		free(pp->p[i].fds);
		undefine(pp, pp->p[i].name[0]);
		undefine(pp, pp->p[i].name[1]);
		free(pp->p[i].what);
	}
	free(pp->p);
	free(pp);
}

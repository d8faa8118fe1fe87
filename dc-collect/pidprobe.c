/*
 * pidprobe.c - uprobes bound to the traced processes, inherited by what
 * they create (pidprobe.h says why it is done this way).
 *
 * Each probe is two tracefs uprobe events of the group "datacrumbs",
 * named after this collector's pid and a random token (p<PID>_<TOKEN>_<N>
 * at entry, r... at return): tracefs is shared by every pid namespace on
 * the host, so a pid alone could be another container's collector's.  A
 * collector that is killed leaves its events behind, without consumers
 * (no breakpoint anywhere).  The next collector to define events
 * removes, first, those named after a pid that does not run: the kernel refuses to remove one in
 * use, so the only ones at risk are another pid namespace's collector's
 * in the moment between defining them and opening them (that function
 * is named in a warning there).
 *
 * Taking an event down waits for the kernel's grace periods, tens of ms
 * for each, one after the other: the collector leaves that to a child of
 * its own, after its end (take_down).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
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
	unsigned set;            /* placed together (dc_pidprobes_new_set) */
	int hold[2];             /* the events holding the programs, and */
	int link[2];             /* their links; -1 until held */
	bool failed;             /* refused once: not tried again */
};

/* An inherited event of one probe in a traced thread. */
struct placed {
	int fd;
	unsigned probe;
};

/* The events placed into one process (dc_pidprobes_follow): closing them
 * ends the copies its descendants inherited. */
struct follow {
	pid_t pid;
	struct placed *ev;
	size_t n;
};

struct dc_pidprobes {
	char root[64];           /* tracefs */
	char events[96];         /* its uprobe_events */
	int prog[2];             /* entry, return */
	pid_t self;
	uint32_t token;          /* tells this collector's events apart */
	struct pidprobe *p;
	size_t n;
	bool cleaned;            /* others' leftovers removed (remove_leftovers) */
	int lock;                /* uprobe_events, for flock (defer_undos) */
	bool locked;
	unsigned nsets;          /* numbered so far (dc_pidprobes_new_set) */
	struct follow *f;        /* the processes followed */
	size_t nf;
	int *closing;            /* events unfollowed, not closed yet */
	size_t nclosing, closing_cap;
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
	int fd, err = 0;

	fd = open(pp->events, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Remove event name: 0 or -errno. */
static int undefine(const struct dc_pidprobes *pp, const char *name)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "-:" GROUP "/%s\n", name);
	return define(pp, cmd);
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

/* Whether line of uprobe_events is an event of a collector that no
 * longer runs (in our pid namespace); its name into name. */
static bool left_over(const struct dc_pidprobes *pp, const char *line,
		      char name[32])
{
	unsigned token, n;
	int pid, len = 0;

	if (sscanf(line, "%*c:" GROUP "/%31s", name) != 1 ||
	    sscanf(name, "%*1[pr]%d_%8x_%u%n", &pid, &token, &n, &len) != 3 ||
	    name[len] != '\0' || pid <= 0 || pid == pp->self)
		return false;
	return kill(pid, 0) != 0 && errno == ESRCH;
}

/* Events of collectors that ended without removing them (killed): those
 * named after a pid that no longer runs, and that nothing uses (the
 * kernel refuses to remove an event in use, as those an undo child still
 * holds).  Read first, removed after: the list changes as they go.
 * Returns how many were removed. */
static unsigned remove_leftovers(const struct dc_pidprobes *pp)
{
	char line[4200], (*names)[32] = NULL;
	size_t n = 0;
	unsigned removed = 0;
	FILE *f;

	f = fopen(pp->events, "re");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		char name[32];

		if (!left_over(pp, line, name))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		memcpy(names[n++], name, sizeof(name));
	}
	fclose(f);
	for (size_t i = 0; i < n; i++)
		removed += undefine(pp, names[i]) == 0;
	free(names);
	return removed;
}

/* Collectors and the children taking events down (take_down) queue for
 * the same kernel lock (event_mutex) at each event, and a child holds it
 * tens of ms for each close: a collector defining its events while the
 * child of the run before took a hundred down waited 18 to 22 s instead
 * of 1.5 (here, at load 15-20).  So a collector defining or placing
 * events goes first: it holds a shared flock(2) on uprobe_events
 * meanwhile, and a child takes it exclusive for each event. */
static void defer_undos(struct dc_pidprobes *pp, bool on)
{
	if (pp->lock < 0 || pp->locked == on)
		return;
	if (flock(pp->lock, on ? LOCK_SH : LOCK_UN) == 0)
		pp->locked = on;
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
	snprintf(pp->events, sizeof(pp->events), "%s/uprobe_events", root);
	pp->prog[0] = entry_prog;
	pp->prog[1] = exit_prog;
	pp->self = getpid();
	/* tracefs is the kernel's, shared by every pid namespace: a pid
	 * alone could name another container's collector's events. */
	if (getrandom(&pp->token, sizeof(pp->token), 0) != sizeof(pp->token))
		pp->token = (uint32_t)time(NULL) ^ ((uint32_t)pp->self << 16);
	raise_nofile();
	pp->lock = open(pp->events, O_RDONLY | O_CLOEXEC);
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

int dc_pidprobes_add(struct dc_pidprobes *pp, unsigned set, const char *path,
		     __u64 offset, const char *name, __u64 cookie)
{
	struct pidprobe *p;
	char cmd[4200];
	int k, err;

	/* uprobe_events splits its commands at white space. */
	if (path[strcspn(path, " \t\n")] != '\0' || strlen(path) > 4000)
		return -EINVAL;
	defer_undos(pp, true);  /* until the probes are held or placed */
	if (pp->n == 0 && !pp->cleaned) {
		unsigned n = remove_leftovers(pp);

		if (n > 0)
			notice("removed %u unused uprobe events of collectors "
			       "that no longer run (killed) from %s/uprobe_events",
			       n, pp->root);
		pp->cleaned = true;
	}
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
	p->set = set;
	p->hold[0] = p->hold[1] = p->link[0] = p->link[1] = -1;
	p->what = xasprintf("%s in %s", name, path);
	pp->n++;
	return 0;
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

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void unhold(struct pidprobe *p)
{
	for (int k = 0; k < 2; k++) {
		close_fd(&p->link[k]);
		close_fd(&p->hold[k]);
	}
}

/* The events holding the programs: bound to tid, not inherited (see
 * pidprobe.h), with the probe's cookie.  All or nothing. */
static int hold(struct dc_pidprobes *pp, struct pidprobe *p, pid_t tid)
{
	int err = 0;

	for (int k = 0; k < 2 && err == 0; k++) {
		LIBBPF_OPTS(bpf_link_create_opts, o, .perf_event.bpf_cookie = p->cookie);

		p->hold[k] = open_event(p->id[k], tid, false);
		if (p->hold[k] < 0) {
			err = p->hold[k];
			p->hold[k] = -1;
			break;
		}
		p->link[k] = bpf_link_create(pp->prog[k], p->hold[k],
					     BPF_PERF_EVENT, &o);
		if (p->link[k] < 0) {
			err = -errno;
			p->link[k] = -1;
		}
	}
	if (err != 0)
		unhold(p);
	return err;
}

/* One probe on one thread of the process f follows: the programs once,
 * the inherited events on every thread. */
static int place(struct dc_pidprobes *pp, unsigned i, pid_t tid,
		 struct follow *f)
{
	struct pidprobe *p = &pp->p[i];
	int err = p->hold[0] >= 0 ? 0 : hold(pp, p, tid);

	for (int k = 0; k < 2 && err == 0; k++) {
		int fd = open_event(p->id[k], tid, true);

		if (fd < 0)
			return fd;
		f->ev = xrealloc(f->ev, (f->n + 1) * sizeof(*f->ev));
		f->ev[f->n++] = (struct placed){ .fd = fd, .probe = i };
	}
	return err;
}

/* A probe placed in part would trap without recording, or record
 * entries without their returns: all of it goes, in every process. */
static void refused(struct dc_pidprobes *pp, unsigned i, pid_t pid, int err)
{
	struct pidprobe *p = &pp->p[i];

	p->failed = true;
	for (size_t j = 0; j < pp->nf; j++) {
		struct follow *f = &pp->f[j];
		size_t kept = 0;

		for (size_t e = 0; e < f->n; e++) {
			if (f->ev[e].probe == i)
				close(f->ev[e].fd);
			else
				f->ev[kept++] = f->ev[e];
		}
		f->n = kept;
	}
	unhold(p);
	if (err == -ENOTSUPP_KERNEL)
		warn("cannot attach %s: the kernel cannot probe its first "
		     "instruction", p->what);
	else
		warn("cannot attach %s to process %d: %s", p->what, (int)pid,
		     strerror(-err));
}

/* Threads of pid not yet in done[0..*ndone): the probes of set placed,
 * and the threads added. */
static bool place_threads(struct dc_pidprobes *pp, pid_t pid, unsigned set,
			  pid_t **done, size_t *ndone)
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

			if (pp->p[i].failed || pp->p[i].set != set)
				continue;
			/* The last follow: refused() may move the array. */
			err = place(pp, (unsigned)i, tid, &pp->f[pp->nf - 1]);
			/* A thread that ended meanwhile is no failure. */
			if (err != 0 && err != -ESRCH)
				refused(pp, (unsigned)i, pid, err);
		}
	}
	closedir(dir);
	return more;
}

size_t dc_pidprobes_hold(struct dc_pidprobes *pp, pid_t tid)
{
	size_t held = 0;

	defer_undos(pp, true);
	for (size_t i = 0; i < pp->n; i++) {
		struct pidprobe *p = &pp->p[i];
		int err;

		if (p->failed || p->hold[0] >= 0)
			continue;
		err = hold(pp, p, tid);
		if (err != 0)
			refused(pp, (unsigned)i, tid, err);
		held += err == 0;
	}
	defer_undos(pp, false);
	return held;
}

unsigned dc_pidprobes_new_set(struct dc_pidprobes *pp)
{
	return DC_PIDPROBES_SPEC + ++pp->nsets;
}

size_t dc_pidprobes_follow(struct dc_pidprobes *pp, pid_t pid, unsigned set)
{
	pid_t *done = NULL;
	size_t ndone = 0, placed = 0;

	defer_undos(pp, true);
	pp->f = xrealloc(pp->f, (pp->nf + 1) * sizeof(*pp->f));
	pp->f[pp->nf++] = (struct follow){ .pid = pid };
	/* Every thread, including those started while we work: a thread
	 * created from one without the events would not inherit them. */
	while (place_threads(pp, pid, set, &done, &ndone))
		;
	free(done);
	for (size_t i = 0; i < pp->n; i++)
		placed += !pp->p[i].failed && pp->p[i].set == set;
	defer_undos(pp, false);
	return placed;
}

/* A followed process's events, to be closed.  Each close waits for the
 * kernel to take the breakpoint out (0.3 ms, 35 ms for the hundred
 * events of a posix and stdio spec, here), and placing events into
 * another process waits while one runs (on another thread, 0.2 to 2.5 s
 * instead of 3 ms): closed all at once, they held up the processes that
 * wait for their uprobes before an exec (fallback.c).  So they are
 * closed a few at a time, between the collector's other work. */
static void close_follow(struct dc_pidprobes *pp, struct follow *f)
{
	if (pp->nclosing + f->n > pp->closing_cap) {
		pp->closing_cap = 2 * (pp->nclosing + f->n);
		pp->closing = xrealloc(pp->closing,
				       pp->closing_cap * sizeof(int));
	}
	while (f->n > 0)
		pp->closing[pp->nclosing++] = f->ev[--f->n].fd;
	free(f->ev);
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

bool dc_pidprobes_tidy(struct dc_pidprobes *pp, uint64_t budget_ns)
{
	uint64_t end;

	if (pp == NULL || pp->nclosing == 0)
		return false;
	end = mono_ns() + budget_ns;
	do
		close(pp->closing[--pp->nclosing]);
	while (pp->nclosing > 0 && mono_ns() < end);
	return pp->nclosing > 0;
}

void dc_pidprobes_unfollow(struct dc_pidprobes *pp, pid_t pid)
{
	size_t kept = 0;

	for (size_t j = 0; j < pp->nf; j++) {
		if (pp->f[j].pid == pid)
			close_follow(pp, &pp->f[j]);
		else
			pp->f[kept++] = pp->f[j];
	}
	pp->nf = kept;
}

#define UNDO_THREADS 16

struct undo_share {
	struct dc_pidprobes *pp;
	size_t first;
};

/* The links of every UNDO_THREADS-th probe's programs from first. */
static void *unlink_share(void *arg)
{
	struct undo_share *u = arg;

	for (size_t i = u->first; i < u->pp->n; i += UNDO_THREADS) {
		close_fd(&u->pp->p[i].link[0]);
		close_fd(&u->pp->p[i].link[1]);
	}
	return NULL;
}

/* Close the events holding the programs and remove the definitions.
 * Each close waits for the kernel's grace periods (tens of ms).  The
 * programs' detaches share theirs when made at once, so they go first,
 * together (0.3 s for a hundred): the programs stop running in a process
 * that still has a breakpoint, and their maps are freed.  The events'
 * last closes the kernel makes one after the other, each after any
 * collector defining or placing events (defer_undos). */
static void undo(struct dc_pidprobes *pp)
{
	pthread_t t[UNDO_THREADS];
	struct undo_share u[UNDO_THREADS];
	size_t n = 0;
	int lock;

	for (size_t k = 0; k < UNDO_THREADS && k < pp->n; k++) {
		u[k] = (struct undo_share){ .pp = pp, .first = k };
		if (pthread_create(&t[n], NULL, unlink_share, &u[k]) == 0)
			n++;
		else
			unlink_share(&u[k]);
	}
	while (n > 0)
		pthread_join(t[--n], NULL);
	lock = open(pp->events, O_RDONLY | O_CLOEXEC);
	for (size_t i = 0; i < pp->n; i++) {
		bool locked = lock >= 0 && flock(lock, LOCK_EX) == 0;

		unhold(&pp->p[i]);
		undefine(pp, pp->p[i].name[0]);
		undefine(pp, pp->p[i].name[1]);
		if (locked)
			flock(lock, LOCK_UN);
	}
	if (lock >= 0)
		close(lock);
}

static int fd_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* In the child that takes the events down: every descriptor but the
 * events and fd goes (the stream's reader, whoever reads our standard
 * error and the job that waits on us see their end), and 0-2 are
 * /dev/null so that nothing opened later takes their place. */
static void keep_only_events(struct dc_pidprobes *pp, int fd)
{
	int *keep = xcalloc(4 * pp->n + 1, sizeof(int));
	size_t n = 0;
	unsigned from = 3;
	int null;

	keep[n++] = fd;
	for (size_t i = 0; i < pp->n; i++)
		for (int k = 0; k < 2; k++) {
			if (pp->p[i].hold[k] >= 0)
				keep[n++] = pp->p[i].hold[k];
			if (pp->p[i].link[k] >= 0)
				keep[n++] = pp->p[i].link[k];
		}
	qsort(keep, n, sizeof(int), fd_cmp);
	for (size_t i = 0; i < n; i++) {
		if ((unsigned)keep[i] > from)
			close_range(from, (unsigned)keep[i] - 1, 0);
		from = (unsigned)keep[i] + 1;
	}
	close_range(from, ~0U, 0);
	free(keep);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int i = 0; i < 3 && null >= 0; i++)
		if (i != null)
			dup2(null, i);
	if (null > 2)
		close(null);
}

/* The slow part after the collector's end, in a child of its own (its
 * own session: the job's signals are not its), so neither the stream's
 * reader nor whoever waits on the collector waits for it.  It keeps
 * nothing of the collector's but the events, and starts once we have
 * closed our copies of them (the end of the pipe): the last close is
 * the one that waits, and removing a definition in use fails.  The
 * definitions carry this collector's name, so a collector started
 * meanwhile does not meet them.  Without a child, here. */
static void take_down(struct dc_pidprobes *pp)
{
	int go[2];
	pid_t pid;
	char c;

	if (pipe2(go, O_CLOEXEC) != 0) {
		undo(pp);
		return;
	}
	pid = fork();
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		undo(pp);
		return;
	}
	if (pid == 0) {
		setsid();
		close(go[1]);
		keep_only_events(pp, go[0]);
		prctl(PR_SET_NAME, "dc-collect-undo");
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		undo(pp);
		_exit(0);
	}
	close(go[0]);
	debug("uprobe events taken down in the background by process %d",
	      (int)pid);
	for (size_t i = 0; i < pp->n; i++)
		unhold(&pp->p[i]);
	close(go[1]);
}

void dc_pidprobes_free(struct dc_pidprobes *pp)
{
	bool held = false;

	if (pp == NULL)
		return;
	/* Closing a followed process's events also ends the copies its
	 * descendants inherited: the breakpoints leave them now. */
	for (size_t j = 0; j < pp->nf; j++)
		close_follow(pp, &pp->f[j]);
	free(pp->f);
	while (pp->nclosing > 0)
		close(pp->closing[--pp->nclosing]);
	free(pp->closing);
	defer_undos(pp, false);
	if (pp->lock >= 0)
		close(pp->lock);
	for (size_t i = 0; i < pp->n; i++)
		held |= pp->p[i].hold[0] >= 0 || pp->p[i].hold[1] >= 0;
	if (held)
		take_down(pp);
	else
		undo(pp);  /* definitions only: no wait */
	for (size_t i = 0; i < pp->n; i++)
		free(pp->p[i].what);
	free(pp->p);
	free(pp);
}

/*
 * fallback.c - the wrapped functions of processes that will not load the
 * client library, through uprobes placed into those processes only.
 *
 * Every process of a traced command is expected to load libdcclient.so
 * and record the functions it wraps itself (fastpath.c), and those
 * functions get no uprobe.  A process will not load it when its
 * environment has no LD_PRELOAD naming the library (a child started with
 * a cleaned environment), when it runs with AT_SECURE (set-user-ID,
 * set-group-ID, file capabilities: ld.so ignores a preload named by a
 * path), or when it is a static executable (proc.c reads which, right
 * after the exec).  The first two get the same functions through
 * uprobes bound to the process (pidprobe.h): inherited by what it
 * starts, kept across its execs into dynamic programs.  A static
 * executable has its own copies of the functions, not libc's: uprobes on
 * those, found by name among its symbols (a set of their own, defined
 * when a process first runs it, whether or not that process had libc's
 * before its exec); one without them is named in a warning, not traced.
 *
 * A process on the fast path that execs with an environment that does
 * not preload the client asks for the uprobes first (the client's exec
 * wrappers, dc-wrap/exec.c): they are placed into it before its exec,
 * which keeps them, so nothing its new program does is missed.  While
 * it is still on the fast path, they leave its calls to its client.
 * Otherwise (static and set-ID programs, execs inside libc such as
 * posix_spawn's, a process that could not ask) they are placed when
 * the collector reads the exec from the kernel's ring: the calls the
 * process makes before then are missed.  That window is measured, per
 * process, from the exec to the uprobes in place, and stated in the
 * warning naming the process.
 *
 * A process that has the uprobes and loads the client after all (a child
 * that puts the preload back) joins the fast path: from then on the BPF
 * programs leave its calls to the client (fallback.bpf.h), so none is
 * counted twice.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <search.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elfsyms.h"
#include "fallback.h"
#include "messages.h"
#include "pidprobe.h"
#include "proc.h"

#define MAX_WARNINGS 10

/* A process with the uprobes. */
struct traced {
	pid_t pid;
	uint64_t placed;         /* monotonic ns they were in place */
	pid_t root;              /* the process they were placed into */
	unsigned set;            /* which (dc_pidprobes_new_set) */
	bool ahead;              /* placed before an exec not yet read */
	enum dc_preload ahead_why; /* ... for this reason */
};

/* A static executable: uprobes on its own copies of the functions. */
struct exe {
	char *path;
	unsigned set;
	size_t n;                /* functions found in it */
};

/* A process the uprobes were placed into, and how many of it and its
 * descendants (which inherited them) are alive: at none, its events
 * are closed. */
struct root {
	pid_t pid;
	unsigned live;
};

struct dc_fallback {
	struct dc_pidprobes *pp;
	const struct dc_spec *spec;
	const struct dc_fast *fast;
	pid_t holder;            /* the idle process holding the programs,
	                            0 until the first process needs them */
	bool spec_set;           /* the spec's functions defined (set 0) */
	char client[PATH_MAX];
	void *procs;             /* tsearch(3) tree of struct traced */
	struct root *roots;
	size_t nroots;
	struct exe *exes;
	size_t nexes;
	unsigned nprocs;         /* processes given the uprobes, in all */
	unsigned nahead;         /* ... of them before their exec */
	unsigned warned;
	uint64_t longest;        /* the longest window, ns */
};

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static int traced_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct traced *)a)->pid;
	pid_t y = ((const struct traced *)b)->pid;

	return (x > y) - (x < y);
}

static struct traced *find(struct dc_fallback *fb, pid_t pid)
{
	struct traced key = { .pid = pid };
	void *node = tfind(&key, &fb->procs, traced_cmp);

	return node ? *(struct traced **)node : NULL;
}

static struct root *root_of(struct dc_fallback *fb, pid_t pid)
{
	for (size_t i = 0; i < fb->nroots; i++)
		if (fb->roots[i].pid == pid)
			return &fb->roots[i];
	return NULL;
}

/* One of root's processes is gone; with the last, its events go: their
 * descriptors would otherwise pile up, a hundred for each such process,
 * until the collector ends. */
static void gone(struct dc_fallback *fb, pid_t root)
{
	struct root *r = root_of(fb, root);

	if (r == NULL || --r->live > 0)
		return;
	dc_pidprobes_unfollow(fb->pp, root);
	*r = fb->roots[--fb->nroots];
}

/* pid has the uprobes since placed, inherited from root's (pid itself
 * when they were placed into it). */
static void add(struct dc_fallback *fb, pid_t pid, uint64_t placed,
		pid_t root, unsigned set)
{
	struct traced *t = find(fb, pid);
	struct root *r = root_of(fb, root);
	pid_t old = 0;

	if (r == NULL) {
		fb->roots = xrealloc(fb->roots, (fb->nroots + 1) *
				     sizeof(*fb->roots));
		r = &fb->roots[fb->nroots++];
		*r = (struct root){ .pid = root };
	}
	r->live++;
	if (t == NULL) {
		t = xmalloc(sizeof(*t));
		t->pid = pid;
		if (tsearch(t, &fb->procs, traced_cmp) == NULL)
			die("out of memory");
	} else {
		old = t->root;   /* a pid whose exit was not seen */
	}
	t->placed = placed;
	t->root = root;
	t->set = set;
	t->ahead = false;
	if (old != 0)
		gone(fb, old);
}

/* An idle child that holds the programs on the probes once defined
 * (dc_pidprobes_hold): placing them into a process is then only the
 * events that widen their filters, a few ms instead of tens.  It keeps
 * none of our descriptors (the stream's reader sees its end when we
 * close it), and ends with the collector, however that ends. */
static pid_t start_holder(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid < 0)
		sysdie("cannot fork");
	if (pid == 0) {
		close_range(0, ~0U, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "dc-collect-hold");
		if (getppid() != parent)
			_exit(0);
		for (;;)
			pause();
	}
	return pid;
}

struct dc_fallback *dc_fallback_new(const struct dc_spec *spec,
				    const struct dc_fast *fast, int entry_prog,
				    int exit_prog, const char *client,
				    const char **why)
{
	struct dc_pidprobes *pp = dc_pidprobes_new(entry_prog, exit_prog, why);
	struct dc_fallback *fb;

	if (pp == NULL)
		return NULL;
	fb = xcalloc(1, sizeof(*fb));
	fb->pp = pp;
	fb->spec = spec;
	fb->fast = fast;
	snprintf(fb->client, sizeof(fb->client), "%s", client);
	return fb;
}

/* The holder, started when the first process needs uprobes. */
static void need_holder(struct dc_fallback *fb)
{
	if (fb->holder == 0)
		fb->holder = start_holder();
}

/* Define the uprobes on the functions where the spec names them (libc's:
 * set 0) and hold their programs, when the first process running a
 * dynamic program without the client needs them, not at start (nor for
 * a static program, which has its own copies): each tracefs event costs
 * tens of ms to define and as much to take down (the kernel waits for a
 * grace period), a hundred of them seconds, which a run whose processes
 * all load the client would pay for nothing. */
static void define_spec_set(struct dc_fallback *fb)
{
	uint64_t t0 = mono_ns();
	size_t i;

	if (fb->spec_set)
		return;
	fb->spec_set = true;
	for (i = 0; i < fb->spec->nprobes; i++) {
		const struct dc_probe *p = &fb->spec->probes[i];
		int err;

		if (!dc_fast_covers(fb->fast, i))
			continue;
		err = dc_pidprobes_add(fb->pp, DC_PIDPROBES_SPEC, p->target,
				       p->offset, p->function, (__u64)i);
		if (err != 0)
			warn("%s in %s: no uprobe for processes without the "
			     "client library (tracefs cannot define it: %s)",
			     p->function, p->target, strerror(-err));
	}
	need_holder(fb);
	dc_pidprobes_hold(fb->pp, fb->holder);
	debug("fast path: uprobes for processes without the client defined "
	      "and held in %.1f ms", (double)(mono_ns() - t0) / 1e6);
}

/* The process's name, for messages. */
static void comm_of(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, len - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = snprintf(buf, len, "?");
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* The name of process pid, which exec'd prog (NULL: not known): its
 * comm, or when it is gone, what the kernel would have made it, prog's
 * last component cut to 15 bytes.  Its comm, not prog's name: what is
 * decided for it is read from /proc now, and it may have exec'd again
 * since prog (busybox runs its applets through /proc/self/exe: "exe"). */
static void name_of(pid_t pid, const char *prog, char *buf, size_t len)
{
	const char *base;

	comm_of(pid, buf, len);
	if (strcmp(buf, "?") != 0 || prog == NULL)
		return;
	base = strrchr(prog, '/');
	base = base ? base + 1 : prog;
	snprintf(buf, len, "%.15s", base);
}

/* The first few processes by name; the rest in the count at the end.
 * own: the functions found in a static executable; the uprobes were in
 * place window ns after its exec, or before it (ahead: nothing missed,
 * so a notice, not a warning). */
static void tell(struct dc_fallback *fb, pid_t pid, const char *comm,
		 enum dc_preload why, size_t own, uint64_t window, bool ahead)
{
	void (*say)(const char *, ...) __attribute__((format(printf, 1, 2))) =
		ahead ? notice : warn;
	char when[80];

	if (fb->warned++ >= MAX_WARNINGS)
		return;
	if (why == DC_PRELOAD_FOREIGN || (why == DC_PRELOAD_STATIC && own == 0)) {
		warn("process %d (%s) will not load the client library (%s%s): "
		     "its calls of the wrapped functions are not traced",
		     (int)pid, comm, dc_preload_why(why),
		     why == DC_PRELOAD_STATIC ? ", with none of them among "
		     "its symbols" : "");
		return;
	}
	if (ahead)
		snprintf(when, sizeof(when), ", placed before its exec");
	else
		snprintf(when, sizeof(when), " from %.1f ms after its exec; "
			 "earlier ones are missed", (double)window / 1e6);
	if (why == DC_PRELOAD_STATIC)
		say("process %d (%s) will not load the client library (%s): "
		    "its calls of the %zu wrapped functions among its symbols "
		    "go through uprobes on its own copies%s", (int)pid, comm,
		    dc_preload_why(why), own, when);
	else
		say("process %d (%s) will not load the client library (%s): "
		    "its calls of the wrapped functions go through uprobes%s",
		    (int)pid, comm, dc_preload_why(why), when);
}

/* A static executable's own copies of the wrapped functions, found by
 * name among the symbols of path (read through elf_path, which names the
 * same file): a set of uprobes of their own, defined when a process
 * first runs it, placed into the processes that run it only. */
static const struct exe *own_copies_at(struct dc_fallback *fb,
				       const char *path, const char *elf_path)
{
	char err[256], name[256];
	struct dc_elf *elf;
	struct exe *e;

	for (size_t i = 0; i < fb->nexes; i++)
		if (strcmp(fb->exes[i].path, path) == 0)
			return &fb->exes[i];
	fb->exes = xrealloc(fb->exes, (fb->nexes + 1) * sizeof(*fb->exes));
	e = &fb->exes[fb->nexes++];
	*e = (struct exe){ .path = xstrdup(path),
			   .set = dc_pidprobes_new_set(fb->pp) };
	if (dc_elf_open(elf_path, &elf, err, sizeof(err)) != 0) {
		debug("%s: %s", path, err);
		return e;
	}
	for (size_t i = 0; i < fb->spec->nprobes; i++) {
		const struct dc_probe *p = &fb->spec->probes[i];
		const struct dc_elf_func *f;

		if (!dc_fast_covers(fb->fast, i))
			continue;
		/* No versions in a static executable. */
		snprintf(name, sizeof(name), "%.*s",
			 (int)strcspn(p->function, "@"), p->function);
		f = dc_elf_find(elf, name);
		if (f != NULL && !f->ifunc &&
		    dc_pidprobes_add(fb->pp, e->set, path, f->offset, name,
				     (__u64)i) == 0)
			e->n++;
	}
	dc_elf_free(elf);
	need_holder(fb);
	dc_pidprobes_hold(fb->pp, fb->holder);
	return e;
}

/* ... the one process pid runs.  NULL when its path cannot be read. */
static const struct exe *own_copies(struct dc_fallback *fb, pid_t pid)
{
	char link[64], path[PATH_MAX];
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	len = readlink(link, path, sizeof(path) - 1);
	if (len <= 0)
		return NULL;
	path[len] = '\0';
	return own_copies_at(fb, path, link);
}

/* The static executable whose copies set is, or NULL (libc's). */
static const struct exe *exe_of_set(const struct dc_fallback *fb,
				    unsigned set)
{
	for (size_t i = 0; i < fb->nexes; i++)
		if (fb->exes[i].set == set)
			return &fb->exes[i];
	return NULL;
}

/* Forget process t: it exited, or the program it exec'd needs other
 * uprobes than those it has. */
static void forget(struct dc_fallback *fb, struct traced *t)
{
	tdelete(t, &fb->procs, traced_cmp);
	gone(fb, t->root);
	free(t);
}

/* Whether the uprobes process t has since before its exec still fit the
 * program it runs now: libc's fit any dynamic program (and stand aside if
 * it joins the fast path), a static program's own copies that program
 * only.  If not, it is forgotten, to be decided again. */
static bool still_fits(struct dc_fallback *fb, struct traced *t,
		       enum dc_preload why)
{
	const struct exe *own;

	if (why == DC_PRELOAD_GONE ||
	    (why != DC_PRELOAD_STATIC && t->set == DC_PIDPROBES_SPEC))
		return true;
	if (why == DC_PRELOAD_STATIC && t->set != DC_PIDPROBES_SPEC &&
	    (own = own_copies(fb, t->pid)) != NULL && own->set == t->set)
		return true;
	forget(fb, t);
	return false;
}

/* Uprobes set into process pid before an exec, whose program will not
 * load the client for reason why: kept across the exec. */
static bool place_ahead(struct dc_fallback *fb, pid_t pid, unsigned set,
			enum dc_preload why)
{
	uint64_t start = mono_ns();
	struct traced *t;

	if (dc_pidprobes_follow(fb->pp, pid, set) == 0)
		return false;
	add(fb, pid, mono_ns(), pid, set);
	t = find(fb, pid);
	t->ahead = true;
	t->ahead_why = why;
	debug("process %d: uprobes placed before its exec, in %.1f ms",
	      (int)pid, (double)(mono_ns() - start) / 1e6);
	return true;
}

/* ... libc's, where the spec names the functions. */
static bool spec_ahead(struct dc_fallback *fb, pid_t pid, enum dc_preload why)
{
	struct traced *t = find(fb, pid);

	if (t != NULL)
		return t->set == DC_PIDPROBES_SPEC;
	define_spec_set(fb);
	return place_ahead(fb, pid, DC_PIDPROBES_SPEC, why);
}

bool dc_fallback_ahead(struct dc_fallback *fb, pid_t pid)
{
	return fb != NULL && spec_ahead(fb, pid, DC_PRELOAD_NOT_NAMED);
}

/* Uprobes into process pid before it execs the program at path (read
 * through elf_path), whose use of a preload is why. */
static bool ahead_of(struct dc_fallback *fb, pid_t pid, enum dc_preload why,
		     const char *path, const char *elf_path)
{
	const struct exe *own;

	switch (why) {
	case DC_PRELOAD_SECURE:
		return spec_ahead(fb, pid, why);
	case DC_PRELOAD_STATIC:
		if (find(fb, pid) != NULL)
			return false;
		own = own_copies_at(fb, path, elf_path);
		return own->n > 0 && place_ahead(fb, pid, own->set, why);
	default:
		return false;
	}
}

bool dc_fallback_ahead_program(struct dc_fallback *fb, pid_t pid,
			       int program)
{
	char link[64], path[PATH_MAX];
	struct stat st;

	if (fb == NULL || fstat(program, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	/* The file the process opened: its path as /proc/PID/exe will
	 * name it after the exec, for tracefs and the copies' cache. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", program);
	if (realpath(link, path) == NULL)
		return false;
	return ahead_of(fb, pid, dc_file_preload(program), path, link);
}

bool dc_fallback_command(struct dc_fallback *fb, pid_t pid, const char *cmd)
{
	char path[PATH_MAX];

	if (fb == NULL)
		return false;
	return ahead_of(fb, pid, dc_command_preload(cmd, path, sizeof(path)),
			path, path);
}

void dc_fallback_ahead_failed(struct dc_fallback *fb, pid_t pid)
{
	struct traced *t = fb ? find(fb, pid) : NULL;

	if (t == NULL || !t->ahead)
		return;
	forget(fb, t);
	debug("process %d: its exec failed; the uprobes placed before it "
	      "are taken out", (int)pid);
}

/* The exec that process t asked for its uprobes before
 * (dc_fallback_ahead), of program prog: as dc_fallback_exec, or -1 when
 * it is to be decided again.  Nothing was missed, unless its program
 * needs others (a static one's own copies).  A program that loads the
 * client after all needs none: they go. */
static int exec_after_ahead(struct dc_fallback *fb, struct traced *t,
			    enum dc_preload why, const char *prog)
{
	const struct exe *own;
	char comm[32];

	t->ahead = false;
	if (why == DC_PRELOAD_YES) {
		forget(fb, t);
		return 0;
	}
	if (!still_fits(fb, t, why))
		return -1;
	fb->nprocs++;
	fb->nahead++;
	name_of(t->pid, prog, comm, sizeof(comm));
	own = exe_of_set(fb, t->set);
	/* Gone already, it ran what they were placed for. */
	if (why == DC_PRELOAD_GONE)
		why = t->ahead_why;
	tell(fb, t->pid, comm, why, own ? own->n : 0, 0, true);
	return 1;
}

bool dc_fallback_exec(struct dc_fallback *fb, pid_t pid, uint64_t ts,
		      const char *prog)
{
	const struct exe *own = NULL;
	struct traced *t;
	enum dc_preload why;
	uint64_t now, start;
	unsigned set = DC_PIDPROBES_SPEC;
	char comm[32];

	if (fb == NULL)
		return false;
	start = mono_ns();
	t = find(fb, pid);
	why = dc_proc_preload(pid, fb->client);
	if (t != NULL && t->ahead) {
		int r = exec_after_ahead(fb, t, why, prog);

		if (r >= 0)
			return r;
	} else if (t != NULL && still_fits(fb, t, why)) {
		return true;
	}
	if (why == DC_PRELOAD_YES || why == DC_PRELOAD_GONE)
		return false;
	name_of(pid, prog, comm, sizeof(comm));
	if (why == DC_PRELOAD_STATIC) {
		own = own_copies(fb, pid);
		set = own ? own->set : DC_PIDPROBES_SPEC;
	} else if (why != DC_PRELOAD_FOREIGN) {
		define_spec_set(fb);
	}
	if (why == DC_PRELOAD_FOREIGN ||
	    (why == DC_PRELOAD_STATIC && (own == NULL || own->n == 0))) {
		tell(fb, pid, comm, why, 0, 0, false);
		return true;
	}
	/* Each probe that cannot be placed has been named. */
	if (dc_pidprobes_follow(fb->pp, pid, set) == 0)
		return false;
	now = mono_ns();
	debug("process %d: exec read after %.1f ms, uprobes placed in %.1f ms",
	      (int)pid, (double)(start - ts) / 1e6, (double)(now - start) / 1e6);
	add(fb, pid, now, pid, set);
	fb->nprocs++;
	if (now > ts && now - ts > fb->longest)
		fb->longest = now - ts;
	tell(fb, pid, comm, why, own ? own->n : 0, now > ts ? now - ts : 0,
	     false);
	return true;
}

bool dc_fallback_fork(struct dc_fallback *fb, pid_t parent, pid_t child,
		      uint64_t ts)
{
	struct traced *t = fb ? find(fb, parent) : NULL;

	if (t == NULL)
		return false;
	/* Forked before its parent had them, it inherited none. */
	if (ts < t->placed) {
		if (dc_pidprobes_follow(fb->pp, child, t->set) == 0)
			return false;
		add(fb, child, mono_ns(), child, t->set);
	} else {
		add(fb, child, ts, t->root, t->set);
	}
	return true;
}

bool dc_fallback_exit(struct dc_fallback *fb, pid_t pid)
{
	struct traced *t = fb ? find(fb, pid) : NULL;

	if (t == NULL)
		return false;
	forget(fb, t);
	return true;
}

/* Two ms of closes at a time: a process waiting for its uprobes before
 * an exec waits this long at most for them. */
#define TIDY_NS (2ULL * 1000000ULL)

bool dc_fallback_tidy(struct dc_fallback *fb)
{
	return fb != NULL && dc_pidprobes_tidy(fb->pp, TIDY_NS);
}

void dc_fallback_free(struct dc_fallback *fb)
{
	if (fb == NULL)
		return;
	if (fb->nprocs > fb->nahead)
		notice("%u processes without the client library traced through "
		       "uprobes (%u placed before their exec); the longest time "
		       "from exec to uprobes of the others: %.1f ms", fb->nprocs,
		       fb->nahead, (double)fb->longest / 1e6);
	else if (fb->nprocs > 0)
		notice("%u processes without the client library traced through "
		       "uprobes, all placed before their exec", fb->nprocs);
	if (fb->warned > MAX_WARNINGS)
		notice("%u processes without the client library in all (the "
		       "first %d named above)", fb->warned, MAX_WARNINGS);
	if (fb->holder > 0) {
		kill(fb->holder, SIGKILL);
		waitpid(fb->holder, NULL, 0);
	}
	tdestroy(fb->procs, free);
	free(fb->roots);
	for (size_t i = 0; i < fb->nexes; i++)
		free(fb->exes[i].path);
	free(fb->exes);
	dc_pidprobes_free(fb->pp);
	free(fb);
}

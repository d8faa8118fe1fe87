/*
 * spawn.c - libdcclient.so's posix_spawn(3) and posix_spawnp(3).  glibc
 * execs their child inside libc, where exec.c's wrappers do not see it:
 * a child whose environment drops the preload, or whose program is
 * static or set-ID, would get its uprobes only when the collector reads
 * its exec, and lose its first milliseconds' calls.  So when a collector
 * records this process and the child would not load this library
 * (exec.c decides), the child is made here instead, the way glibc makes
 * it: a clone sharing this memory, this thread stopped until the child
 * execs or fails (CLONE_VFORK), every signal blocked meanwhile; in the
 * child, handlers reset to SIG_DFL, then the attributes and the file
 * actions in glibc's order, then the signal mask, then the request for
 * the uprobes (exec.c) and the exec.  An exec that fails is posix_spawn's
 * error, the child reaped, as glibc does.  Every other spawn is glibc's.
 *
 * The child runs on its own stack, in memory other threads of this
 * process go on using: it calls nothing that takes a lock (no malloc, no
 * stdio), and does its work with system calls, which the library's
 * wrappers do not record as this process's calls.
 *
 * The file actions are a list glibc keeps to itself: the functions that
 * add to one are wrapped to keep a copy of each list begun while a
 * collector records this process.  A list not copied, one whose length
 * is not glibc's count (an adder this library does not know), or
 * attributes with flags it does not know, go to glibc's posix_spawn.
 * So does a closefrom action on a kernel without close_range(2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"

/* The attribute flags made here; any other goes to glibc. */
#define KNOWN_FLAGS (POSIX_SPAWN_RESETIDS | POSIX_SPAWN_SETPGROUP |      \
		     POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |       \
		     POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER | \
		     POSIX_SPAWN_USEVFORK | POSIX_SPAWN_SETSID)

/* The child's stack: the request for uprobes reads the program's
 * headers and PATH, with PATH_MAX buffers. */
#define CHILD_STACK (256 * 1024)

/* glibc's own signals (SIGCANCEL, SIGSETXID): ignored in the child, as
 * glibc's child does, since their handlers would run in shared memory. */
#define INTERNAL_SIGNAL(sig) ((sig) == 32 || (sig) == 33)

/* The kernel's signal mask: 64 signals. */
#define KSIGSET_BYTES 8

/* One file action, as added; path a copy the list owns. */
struct action {
	enum { ACT_CLOSE, ACT_DUP2, ACT_OPEN, ACT_CHDIR, ACT_FCHDIR,
	       ACT_CLOSEFROM, ACT_TCSETPGRP } kind;
	int fd;                 /* dup2's from; the others' descriptor */
	int newfd;              /* dup2's to */
	int oflag;
	mode_t mode;
	char *path;
};

/* The copy of one list of file actions. */
struct fa_copy {
	const posix_spawn_file_actions_t *fa;
	struct action *v;
	int n, cap;
	bool lost;              /* an action could not be copied */
};

/* The copies: few lists are alive at once. */
static struct {
	pthread_mutex_t lock;
	pthread_once_t once;
	struct fa_copy *v;
	size_t n, cap;
} lists = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_ONCE_INIT, NULL, 0, 0 };

/* A fork while another thread holds the lock leaves the child a lock
 * nobody will release: held across fork. */
static void lists_lock(void)
{
	pthread_mutex_lock(&lists.lock);
}

static void lists_unlock(void)
{
	pthread_mutex_unlock(&lists.lock);
}

static void lists_atfork(void)
{
	pthread_atfork(lists_lock, lists_unlock, lists_unlock);
}

static struct fa_copy *find(const posix_spawn_file_actions_t *fa)
{
	for (size_t i = 0; i < lists.n; i++)
		if (lists.v[i].fa == fa)
			return &lists.v[i];
	return NULL;
}

static void free_copy(struct fa_copy *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
}

/* fa is no longer a list (destroyed, or begun again). */
static void forget(const posix_spawn_file_actions_t *fa)
{
	struct fa_copy *c;

	if (__atomic_load_n(&lists.n, __ATOMIC_RELAXED) == 0)
		return;
	lists_lock();
	c = find(fa);
	if (c != NULL) {
		free_copy(c);
		*c = lists.v[--lists.n];
	}
	lists_unlock();
}

/* A new, empty list at fa: copied from here on. */
static void begin(const posix_spawn_file_actions_t *fa)
{
	pthread_once(&lists.once, lists_atfork);
	lists_lock();
	if (lists.n == lists.cap) {
		size_t cap = lists.cap ? 2 * lists.cap : 8;
		struct fa_copy *v = realloc(lists.v, cap * sizeof(*v));

		if (v == NULL)
			goto out;
		lists.v = v;
		lists.cap = cap;
	}
	lists.v[lists.n] = (struct fa_copy){ .fa = fa };
	__atomic_store_n(&lists.n, lists.n + 1, __ATOMIC_RELAXED);
out:
	lists_unlock();
}

/* The action glibc added to fa: into its copy, if it has one. */
static void note(const posix_spawn_file_actions_t *fa, struct action a)
{
	struct fa_copy *c;

	if (__atomic_load_n(&lists.n, __ATOMIC_RELAXED) == 0)
		return;
	lists_lock();
	c = find(fa);
	if (c == NULL || c->lost)
		goto out;
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 8;
		struct action *v = realloc(c->v, (size_t)cap * sizeof(*v));

		if (v == NULL) {
			c->lost = true;
			goto out;
		}
		c->v = v;
		c->cap = cap;
	}
	if (a.path != NULL && (a.path = strdup(a.path)) == NULL) {
		c->lost = true;
		goto out;
	}
	c->v[c->n++] = a;
out:
	lists_unlock();
}

/* fa's actions, in a new array of *n (NULL and 0 for no list): false
 * when its copy is missing, incomplete, or not as long as glibc's. */
static bool take(const posix_spawn_file_actions_t *fa, struct action **v,
		 int *n)
{
	struct fa_copy *c;
	bool ok = false;

	*v = NULL;
	*n = 0;
	if (fa == NULL)
		return true;
	lists_lock();
	c = find(fa);
	if (c != NULL && !c->lost && c->n == fa->__used &&
	    (c->n == 0 || (*v = malloc((size_t)c->n * sizeof(**v))) != NULL)) {
		if (c->n > 0)
			memcpy(*v, c->v, (size_t)c->n * sizeof(**v));
		*n = c->n;
		ok = true;
	}
	lists_unlock();
	return ok;
}

/* The file actions' wrappers: glibc's list first, then the copy. */

static __typeof__(posix_spawn_file_actions_init) *real_posix_spawn_file_actions_init;
static __typeof__(posix_spawn_file_actions_destroy) *real_posix_spawn_file_actions_destroy;
static __typeof__(posix_spawn_file_actions_addclose) *real_posix_spawn_file_actions_addclose;
static __typeof__(posix_spawn_file_actions_adddup2) *real_posix_spawn_file_actions_adddup2;
static __typeof__(posix_spawn_file_actions_addopen) *real_posix_spawn_file_actions_addopen;
static __typeof__(posix_spawn_file_actions_addchdir_np) *real_posix_spawn_file_actions_addchdir_np;
static __typeof__(posix_spawn_file_actions_addfchdir_np) *real_posix_spawn_file_actions_addfchdir_np;

DC_EXPORT int posix_spawn_file_actions_init(posix_spawn_file_actions_t *fa)
{
	int r = REAL(posix_spawn_file_actions_init)(fa);

	if (r == 0) {
		forget(fa);
		if (dc_fast_joined())
			begin(fa);
	}
	return r;
}

DC_EXPORT int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa)
{
	forget(fa);
	return REAL(posix_spawn_file_actions_destroy)(fa);
}

DC_EXPORT int posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *fa,
						int fd)
{
	int r = REAL(posix_spawn_file_actions_addclose)(fa, fd);

	if (r == 0)
		note(fa, (struct action){ .kind = ACT_CLOSE, .fd = fd });
	return r;
}

DC_EXPORT int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa,
					       int fd, int newfd)
{
	int r = REAL(posix_spawn_file_actions_adddup2)(fa, fd, newfd);

	if (r == 0)
		note(fa, (struct action){ .kind = ACT_DUP2, .fd = fd,
					  .newfd = newfd });
	return r;
}

DC_EXPORT int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa,
					       int fd, const char *path,
					       int oflag, mode_t mode)
{
	int r = REAL(posix_spawn_file_actions_addopen)(fa, fd, path, oflag, mode);

	if (r == 0)
		note(fa, (struct action){ .kind = ACT_OPEN, .fd = fd,
					  .oflag = oflag, .mode = mode,
					  .path = (char *)path });
	return r;
}

DC_EXPORT int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *fa,
						   const char *path)
{
	int r = REAL(posix_spawn_file_actions_addchdir_np)(fa, path);

	if (r == 0)
		note(fa, (struct action){ .kind = ACT_CHDIR,
					  .path = (char *)path });
	return r;
}

DC_EXPORT int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *fa,
						    int fd)
{
	int r = REAL(posix_spawn_file_actions_addfchdir_np)(fa, fd);

	if (r == 0)
		note(fa, (struct action){ .kind = ACT_FCHDIR, .fd = fd });
	return r;
}

#if __GLIBC_PREREQ(2, 34)
static __typeof__(posix_spawn_file_actions_addclosefrom_np) *real_posix_spawn_file_actions_addclosefrom_np;

DC_EXPORT int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *fa,
						       int from)
{
	int r = REAL(posix_spawn_file_actions_addclosefrom_np)(fa, from);

	if (r == 0)
		note(fa, (struct action){ .kind = ACT_CLOSEFROM, .fd = from });
	return r;
}
#endif

#if __GLIBC_PREREQ(2, 35)
static __typeof__(posix_spawn_file_actions_addtcsetpgrp_np) *real_posix_spawn_file_actions_addtcsetpgrp_np;

DC_EXPORT int posix_spawn_file_actions_addtcsetpgrp_np(posix_spawn_file_actions_t *fa,
						       int fd)
{
	int r = REAL(posix_spawn_file_actions_addtcsetpgrp_np)(fa, fd);

	if (r == 0)
		note(fa, (struct action){ .kind = ACT_TCSETPGRP, .fd = fd });
	return r;
}
#endif

static __typeof__(execve) *real_execve;

/* What the child needs, and where it leaves its error. */
struct spawn {
	struct dc_exec_target target;
	char *const *argv;
	char *const *envp;
	struct action *acts;
	int nacts;
	short flags;
	sigset_t sigdefault, sigmask;
	pid_t pgroup;
	int policy;
	struct sched_param param;
	sigset_t oldmask;       /* the parent's (its first 64 signals) */
	int (*execve)(const char *, char *const[], char *const[]);
	int err;                /* the child's errno, when it failed */
};

/* attr's attributes into sp: false when it has a flag not made here. */
static bool read_attr(struct spawn *sp, const posix_spawnattr_t *attr)
{
	sigemptyset(&sp->sigdefault);
	sigemptyset(&sp->sigmask);
	sp->flags = 0;
	if (attr == NULL)
		return true;
	posix_spawnattr_getflags(attr, &sp->flags);
	if ((sp->flags & ~KNOWN_FLAGS) != 0)
		return false;
	posix_spawnattr_getsigdefault(attr, &sp->sigdefault);
	posix_spawnattr_getsigmask(attr, &sp->sigmask);
	posix_spawnattr_getpgroup(attr, &sp->pgroup);
	posix_spawnattr_getschedpolicy(attr, &sp->policy);
	posix_spawnattr_getschedparam(attr, &sp->param);
	return true;
}

/* Whether the actions can be made here: close_range(2), for a closefrom
 * action, is in the kernel (5.9 and later), found by trying it on no
 * descriptor. */
static bool actions_doable(const struct action *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i].kind == ACT_CLOSEFROM)
			return syscall(SYS_close_range, ~0U, ~0U, 0) == 0;
	return true;
}

/* The child's work.  It runs in this process's memory (errno included,
 * which is this thread's): system calls only, and nothing that could
 * wait for a lock another thread holds. */

/* glibc's own signals ignored, every handler back to SIG_DFL, and the
 * attribute's defaults, as glibc's child does. */
static void reset_signals(const struct spawn *sp)
{
	struct sigaction sa;

	for (int sig = 1; sig < NSIG; sig++) {
		if (INTERNAL_SIGNAL(sig)) {
			struct { void *handler; unsigned long flags;
				 void *restorer; __u64 mask; } k = { SIG_IGN, 0, NULL, 0 };

			syscall(SYS_rt_sigaction, sig, &k, NULL, KSIGSET_BYTES);
			continue;
		}
		if (!((sp->flags & POSIX_SPAWN_SETSIGDEF) &&
		      sigismember(&sp->sigdefault, sig) == 1) &&
		    (sigaction(sig, NULL, &sa) != 0 || sa.sa_handler == SIG_IGN ||
		     sa.sa_handler == SIG_DFL))
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(sig, &sa, NULL);
	}
}

/* The attributes, in glibc's order: 0, or -1 with errno. */
static int set_attrs(const struct spawn *sp)
{
	short f = sp->flags;

	if ((f & (POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER)) ==
	    POSIX_SPAWN_SETSCHEDPARAM) {
		if (syscall(SYS_sched_setparam, 0, &sp->param) != 0)
			return -1;
	} else if ((f & POSIX_SPAWN_SETSCHEDULER) &&
		   syscall(SYS_sched_setscheduler, 0, sp->policy, &sp->param) != 0) {
		return -1;
	}
	if ((f & POSIX_SPAWN_SETSID) && syscall(SYS_setsid) < 0)
		return -1;
	if ((f & POSIX_SPAWN_SETPGROUP) && syscall(SYS_setpgid, 0, sp->pgroup) != 0)
		return -1;
	/* The effective IDs only, by the system call: libc's would signal
	 * this process's other threads to change theirs. */
	if ((f & POSIX_SPAWN_RESETIDS) &&
	    (syscall(SYS_setresuid, -1, getuid(), -1) != 0 ||
	     syscall(SYS_setresgid, -1, getgid(), -1) != 0))
		return -1;
	return 0;
}

/* Below the soft limit on descriptors: a close that fails there is not
 * an error of the spawn (glibc's rule). */
static bool valid_fd(int fd)
{
	struct rlimit rl;

	return fd >= 0 && (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) != 0 ||
			   (rlim_t)fd < rl.rlim_cur);
}

/* One file action, as glibc makes it: 0, or -1 with errno. */
static int do_action(const struct spawn *sp, const struct action *a)
{
	long fd, flags;
	pid_t pgrp;

	switch (a->kind) {
	case ACT_CLOSE:
		return syscall(SYS_close, a->fd) != 0 && !valid_fd(a->fd) ? -1 : 0;
	case ACT_OPEN:
		/* An open descriptor there is closed first (POSIX). */
		syscall(SYS_close, a->fd);
		fd = syscall(SYS_openat, AT_FDCWD, a->path, a->oflag, a->mode);
		if (fd < 0)
			return -1;
		if (fd != a->fd && (syscall(SYS_dup3, fd, a->fd, 0) != a->fd ||
				    syscall(SYS_close, fd) != 0))
			return -1;
		return 0;
	case ACT_DUP2:
		if (a->fd != a->newfd)
			return syscall(SYS_dup3, a->fd, a->newfd, 0) == a->newfd ? 0 : -1;
		/* Onto itself: kept across the exec. */
		flags = syscall(SYS_fcntl, a->fd, F_GETFD);
		return flags < 0 || syscall(SYS_fcntl, a->fd, F_SETFD,
					    flags & ~FD_CLOEXEC) != 0 ? -1 : 0;
	case ACT_CHDIR:
		return (int)syscall(SYS_chdir, a->path);
	case ACT_FCHDIR:
		return (int)syscall(SYS_fchdir, a->fd);
	case ACT_CLOSEFROM:
		return (int)syscall(SYS_close_range, a->fd, ~0U, 0);
	case ACT_TCSETPGRP:
		pgrp = (sp->flags & POSIX_SPAWN_SETPGROUP) && sp->pgroup != 0 ?
			sp->pgroup : (pid_t)syscall(SYS_getpgid, 0);
		return (int)syscall(SYS_ioctl, a->fd, TIOCSPGRP, &pgrp);
	}
	errno = EINVAL;
	return -1;
}

/* posix_spawnp's search, as glibc's: each PATH directory in turn (an
 * empty one is the current directory; no PATH: /bin:/usr/bin), going on
 * past one where the file is missing or not permitted (EACCES if one
 * was); a name with a slash as it is.  No shell for a file that is not
 * a program, as glibc's posix_spawnp since 2.15. */
static void exec_search(const struct spawn *sp)
{
	const char *file = sp->target.path, *dirs = getenv("PATH");
	size_t flen = strlen(file);
	bool denied = false;
	char buf[PATH_MAX];

	if (*file == '\0') {
		errno = ENOENT;
		return;
	}
	if (strchr(file, '/') != NULL) {
		sp->execve(file, sp->argv, sp->envp);
		return;
	}
	if (flen >= NAME_MAX) {
		errno = ENAMETOOLONG;
		return;
	}
	for (dirs = dirs != NULL ? dirs : "/bin:/usr/bin";; dirs++) {
		size_t n = strcspn(dirs, ":"), at = n + (n > 0);

		if (at + flen < sizeof(buf)) {
			memcpy(buf, dirs, n);
			buf[n] = '/';
			memcpy(buf + at, file, flen + 1);
			sp->execve(buf, sp->argv, sp->envp);
			if (errno == EACCES)
				denied = true;
			else if (errno != ENOENT && errno != ESTALE &&
				 errno != ENOTDIR && errno != ENODEV &&
				 errno != ETIMEDOUT)
				return;
		}
		dirs += n;
		if (*dirs == '\0')
			break;
	}
	if (denied)
		errno = EACCES;
}

static int spawn_child(void *arg)
{
	struct spawn *sp = arg;
	bool asked;

	reset_signals(sp);
	if (set_attrs(sp) != 0)
		goto fail;
	for (int i = 0; i < sp->nacts; i++)
		if (do_action(sp, &sp->acts[i]) != 0)
			goto fail;
	pthread_sigmask(SIG_SETMASK, (sp->flags & POSIX_SPAWN_SETSIGMASK) ?
			&sp->sigmask : &sp->oldmask, NULL);
	asked = dc_exec_ask(sp->envp, &sp->target);
	if (sp->target.search)
		exec_search(sp);
	else
		sp->execve(sp->target.path, sp->argv, sp->envp);
	dc_exec_failed(asked, -1);
fail:
	sp->err = errno != 0 ? errno : EINTR;
	_exit(127);
}

/* Made here when a collector records this process and the child would
 * not load this library: true, with posix_spawn's result in *r; false
 * when it is glibc's to make. */
static bool spawn_here(int *r, pid_t *pid, const struct dc_exec_target *t,
		       const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr,
		       char *const argv[], char *const envp[])
{
	struct spawn sp = { .target = *t, .argv = argv, .envp = envp };
	int cancel, saved = errno;
	sigset_t all;
	void *stack;
	pid_t child;

	/* The attributes first: they cost no system call.  The program is
	 * read again in the child (dc_exec_ask), after the file actions,
	 * which may change what a relative path names. */
	if (!read_attr(&sp, attr) || !dc_exec_unloaded(envp, t) ||
	    !take(fa, &sp.acts, &sp.nacts))
		return false;
	if (!actions_doable(sp.acts, sp.nacts) ||
	    (stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0)) == MAP_FAILED) {
		free(sp.acts);
		return false;
	}
	sp.execve = &REAL(execve);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	/* Every signal, glibc's own too: none may run a handler in the
	 * child before it has reset them. */
	memset(&all, 0xff, sizeof(all));
	sigemptyset(&sp.oldmask);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &sp.oldmask, KSIGSET_BYTES);
	child = clone(spawn_child, (char *)stack + CHILD_STACK,
		      CLONE_VM | CLONE_VFORK | SIGCHLD, &sp);
	if (child < 0)
		*r = errno;
	else if ((*r = sp.err) != 0)
		syscall(SYS_wait4, child, NULL, 0, NULL);
	else if (pid != NULL)
		*pid = child;
	munmap(stack, CHILD_STACK);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &sp.oldmask, NULL, KSIGSET_BYTES);
	pthread_setcancelstate(cancel, NULL);
	free(sp.acts);
	errno = saved;
	return true;
}

static __typeof__(posix_spawn) *real_posix_spawn;
static __typeof__(posix_spawnp) *real_posix_spawnp;

DC_EXPORT int posix_spawn(pid_t *pid, const char *path,
			  const posix_spawn_file_actions_t *fa,
			  const posix_spawnattr_t *attr,
			  char *const argv[], char *const envp[])
{
	int r;

	if (__builtin_expect(dc_fast_joined(), 0) &&
	    spawn_here(&r, pid, &(struct dc_exec_target){ AT_FDCWD, path, -1, false },
		       fa, attr, argv, envp))
		return r;
	return REAL(posix_spawn)(pid, path, fa, attr, argv, envp);
}

DC_EXPORT int posix_spawnp(pid_t *pid, const char *file,
			   const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr,
			   char *const argv[], char *const envp[])
{
	int r;

	if (__builtin_expect(dc_fast_joined(), 0) &&
	    spawn_here(&r, pid, &(struct dc_exec_target){ AT_FDCWD, file, -1, true },
		       fa, attr, argv, envp))
		return r;
	return REAL(posix_spawnp)(pid, file, fa, attr, argv, envp);
}

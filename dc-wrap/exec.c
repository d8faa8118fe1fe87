/*
 * exec.c - libdcclient.so's wrappers of the exec family: a program that
 * a traced process execs with an environment that does not preload the
 * library will not record its own calls, and the collector gives it
 * uprobes instead (dc-collect's fallback.c).  Placed when the collector
 * reads the exec, they would miss everything the program does in the
 * milliseconds before: a short program (`env -i cat FILE`) all of it.
 * So the process asks for them before it execs (fast.c,
 * dc_fast_before_exec), and the kernel keeps them across the exec.
 *
 * So does one whose environment names the library but whose program
 * will not load it (static, set-ID: lib/preload.h), found by reading the
 * program's headers first (as the library's own work, not the
 * program's), and sent along opened: the collector places that program's
 * own copies' uprobes, or libc's.
 *
 * Every exported member of the family is wrapped: glibc's execl, execvp
 * and the rest reach execve inside libc, where no wrapper sees them.
 * posix_spawn(3)'s child execs inside libc too: spawn.c makes that
 * child itself when it would need to ask.  Not seen: system(3) and
 * popen(3), which spawn inside libc, and keep the collector's window.
 * A child of vfork(2) asks as any process: it shares its parent's
 * memory, and changes none of it for good.
 *
 * Without a collector each wrapper costs one branch.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "client.h"
#include "preload.h"

extern char **environ;

/* This library's resolved path, as the collector compares it. */
static struct {
	char path[PATH_MAX];
	int known;               /* 1: path holds it; -1: not found */
} self;

static const char *self_path(void)
{
	Dl_info info;

	if (self.known == 0)
		self.known = dladdr((void *)self_path, &info) != 0 &&
			     info.dli_fname != NULL &&
			     realpath(info.dli_fname, self.path) != NULL ? 1 : -1;
	return self.known > 0 ? self.path : NULL;
}

/* Whether envp preloads this library: the collector's rule, which it
 * applies to the environment after the exec (lib/preload.h).  Unknown
 * counts as yes: the collector decides at the exec, as before. */
static bool keeps_preload(char *const envp[])
{
	const char *lib = self_path();

	if (lib == NULL)
		return true;
	for (; envp != NULL && *envp != NULL; envp++)
		if (strncmp(*envp, "LD_PRELOAD=", 11) == 0 &&
		    dc_preload_names(*envp + 11, lib))
			return true;
	return false;
}

/* The library's own reads, not through its wrappers of read and fstat. */
static ssize_t own_pread(int fd, void *buf, size_t n, off_t off)
{
	return (ssize_t)syscall(SYS_pread64, fd, buf, n, off);
}

static int own_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_fstat, fd, st);
}

/* The program's descriptor (t's own, or opened here) when it will not
 * load this library though its environment names it: static, or set-ID
 * (lib/preload.h).  Else -1. */
static int unreached(const struct dc_exec_target *t)
{
	static const struct dc_file_ops ops = { own_pread, own_fstat };
	char found[PATH_MAX];
	const char *path = t->path;
	int fd = t->fd;

	if (fd < 0) {
		if (t->search) {
			if (!dc_find_program(path, getenv("PATH"), found,
					     sizeof(found)))
				return -1;
			path = found;
		}
		fd = (int)syscall(SYS_openat, t->dirfd, path,
				  O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
	}
	if (dc_program_preload(fd, &ops) != DC_PROGRAM_PRELOADS)
		return fd;
	if (fd != t->fd)
		syscall(SYS_close, fd);
	return -1;
}

/* Why an exec of t with envp would not load this library, with the
 * program's descriptor in *fd when it is the program (-1 when it is the
 * environment); false when it would, or when no collector records this
 * process.  The program is read as the library's own work (quiet),
 * errno as it was. */
static bool unloaded(char *const envp[], const struct dc_exec_target *t,
		     int *fd)
{
	int saved;

	*fd = -1;
	if (__builtin_expect(!dc_fast_joined(), 1))
		return false;
	if (!keeps_preload(envp))
		return true;
	saved = errno;
	dc_fast_quiet(1);
	*fd = unreached(t);
	dc_fast_quiet(0);
	errno = saved;
	return *fd >= 0;
}

DC_HIDDEN bool dc_exec_unloaded(char *const envp[],
				const struct dc_exec_target *t)
{
	int fd;
	bool r = unloaded(envp, t, &fd);

	if (fd >= 0 && fd != t->fd)
		syscall(SYS_close, fd);
	return r;
}

DC_HIDDEN bool dc_exec_ask(char *const envp[], const struct dc_exec_target *t)
{
	int fd;

	if (!unloaded(envp, t, &fd))
		return false;
	dc_fast_before_exec(fd);
	if (fd >= 0 && fd != t->fd)
		syscall(SYS_close, fd);
	return true;
}

DC_HIDDEN int dc_exec_failed(bool asked, int r)
{
	if (asked)
		dc_fast_exec_failed();
	return r;
}

#define AT_PATH(p) (&(struct dc_exec_target){ AT_FDCWD, (p), -1, false })
#define IN_PATH(p) (&(struct dc_exec_target){ AT_FDCWD, (p), -1, true })

static __typeof__(execve) *real_execve;
static __typeof__(execv) *real_execv;
static __typeof__(execvp) *real_execvp;
static __typeof__(execvpe) *real_execvpe;
static __typeof__(fexecve) *real_fexecve;

DC_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	bool asked = dc_exec_ask(envp, AT_PATH(path));

	return dc_exec_failed(asked, REAL(execve)(path, argv, envp));
}

DC_EXPORT int execv(const char *path, char *const argv[])
{
	bool asked = dc_exec_ask(environ, AT_PATH(path));

	return dc_exec_failed(asked, REAL(execv)(path, argv));
}

DC_EXPORT int execvp(const char *file, char *const argv[])
{
	bool asked = dc_exec_ask(environ, IN_PATH(file));

	return dc_exec_failed(asked, REAL(execvp)(file, argv));
}

DC_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	bool asked = dc_exec_ask(envp, IN_PATH(file));

	return dc_exec_failed(asked, REAL(execvpe)(file, argv, envp));
}

DC_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	bool asked = dc_exec_ask(envp, &(struct dc_exec_target){
		AT_FDCWD, NULL, fd, false });

	return dc_exec_failed(asked, REAL(fexecve)(fd, argv, envp));
}

#if __GLIBC_PREREQ(2, 34)
static __typeof__(execveat) *real_execveat;

DC_EXPORT int execveat(int dirfd, const char *path, char *const argv[],
		       char *const envp[], int flags)
{
	bool empty = (flags & AT_EMPTY_PATH) != 0 && *path == '\0';
	bool asked = dc_exec_ask(envp, &(struct dc_exec_target){
		dirfd, path, empty ? dirfd : -1, false });

	return dc_exec_failed(asked, REAL(execveat)(dirfd, path, argv, envp, flags));
}
#endif

/* The variadic ones: their arguments counted, then gathered into an
 * array on the stack, as libc does before it calls execve. */

/* How many arguments, arg and those after it, come before the NULL. */
static size_t count_args(const char *arg, va_list *ap)
{
	size_t n = 0;

	for (const char *a = arg; a != NULL; a = va_arg(*ap, const char *))
		n++;
	return n;
}

/* argv[0 .. n]: the n arguments and the NULL after them, which *ap has
 * then given (unless arg was it). */
static void gather_args(char **argv, size_t n, const char *arg, va_list *ap)
{
	argv[0] = (char *)arg;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(*ap, char *);
}

enum list_how { LIST_PATH, LIST_SEARCH, LIST_ENV };

/* execl, execlp and execle: arg and the arguments after it (*ap), up to
 * their NULL, then for execle the environment. */
static int exec_list(enum list_how how, const char *path, const char *arg,
		     va_list *ap)
{
	va_list count;
	size_t n;

	va_copy(count, *ap);
	n = count_args(arg, &count);
	va_end(count);
	{
		char *argv[n + 1];
		char *const *envp = environ;
		bool asked;

		gather_args(argv, n, arg, ap);
		if (how == LIST_ENV)
			envp = va_arg(*ap, char *const *);
		asked = dc_exec_ask(envp, how == LIST_SEARCH ? IN_PATH(path) :
							       AT_PATH(path));
		if (how == LIST_PATH)
			return dc_exec_failed(asked, REAL(execv)(path, argv));
		if (how == LIST_SEARCH)
			return dc_exec_failed(asked, REAL(execvp)(path, argv));
		return dc_exec_failed(asked, REAL(execve)(path, argv, envp));
	}
}

DC_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int r;

	va_start(ap, arg);
	r = exec_list(LIST_PATH, path, arg, &ap);
	va_end(ap);
	return r;
}

DC_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int r;

	va_start(ap, arg);
	r = exec_list(LIST_SEARCH, file, arg, &ap);
	va_end(ap);
	return r;
}

DC_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int r;

	va_start(ap, arg);
	r = exec_list(LIST_ENV, path, arg, &ap);
	va_end(ap);
	return r;
}

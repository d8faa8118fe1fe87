/*
 * cleanexec - exec a program with an environment that does not preload
 * the client library, by each member of the exec family, for
 * t/4240-fastpath-exec.t.
 *
 *   cleanexec HOW PROGRAM [ARG...]
 *
 * Removes LD_PRELOAD from the environment, then execs PROGRAM with ARGs
 * (at most 3 for the execl ones) through HOW: execve, execv, execvp,
 * execvpe, execl, execle, execlp, fexecve, execveat, vfork (a child
 * of vfork(2) execs it with execve; this process waits and exits with
 * its status) or spawn (posix_spawn(3), waited for the same way).  Exits
 * 127 if the exec fails.  keep:HOW does the same with LD_PRELOAD left
 * as it is.
 *
 *   cleanexec fail N
 *
 * Tries to exec a program that does not exist (with the environment
 * still cleaned), then writes 1 byte to /dev/null N times itself.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int writes(long n)
{
	int fd = open("/dev/null", O_WRONLY);

	while (fd >= 0 && n-- > 0)
		if (write(fd, "x", 1) != 1)
			return 1;
	return fd < 0;
}

static int by_vfork(char **argv)
{
	int status;
	pid_t pid = vfork();

	if (pid == 0) {
		execve(argv[0], argv, environ);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 126;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int by_spawn(char **argv)
{
	int status;
	pid_t pid;

	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0)
		return 127;
	if (waitpid(pid, &status, 0) != pid)
		return 126;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The execl ones take their arguments one by one. */
static void by_list(const char *how, char **a, int n)
{
	char *x[4] = { NULL, NULL, NULL, NULL };

	if (n > 4)
		return;
	memcpy(x, a, (size_t)n * sizeof(char *));
	if (strcmp(how, "execl") == 0)
		execl(a[0], x[0], x[1], x[2], x[3], (char *)NULL);
	else if (strcmp(how, "execlp") == 0)
		execlp(a[0], x[0], x[1], x[2], x[3], (char *)NULL);
	else if (strcmp(how, "execle") == 0)
		execle(a[0], x[0], x[1], x[2], x[3], (char *)NULL, environ);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	char **a = argv + 2;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: cleanexec HOW PROGRAM [ARG...]\n");
		return 2;
	}
	if (strncmp(how, "keep:", 5) == 0)
		how += 5;
	else
		unsetenv("LD_PRELOAD");
	if (strcmp(how, "fail") == 0) {
		char *none[] = { "/nonexistent/program", NULL };

		execv(none[0], none);
		return writes(atol(argv[2]));
	}
	if (strcmp(how, "execve") == 0)
		execve(a[0], a, environ);
	else if (strcmp(how, "execv") == 0)
		execv(a[0], a);
	else if (strcmp(how, "execvp") == 0)
		execvp(a[0], a);
	else if (strcmp(how, "execvpe") == 0)
		execvpe(a[0], a, environ);
	else if (strcmp(how, "fexecve") == 0 &&
		 (fd = open(a[0], O_RDONLY)) >= 0)
		fexecve(fd, a, environ);
	else if (strcmp(how, "execveat") == 0)
		execveat(AT_FDCWD, a[0], a, environ, 0);
	else if (strcmp(how, "vfork") == 0)
		return by_vfork(a);
	else if (strcmp(how, "spawn") == 0)
		return by_spawn(a);
	else if (strncmp(how, "execl", 5) == 0)
		by_list(how, a, argc - 2);
	else
		fprintf(stderr, "cleanexec: unknown way %s\n", how);
	perror("cleanexec: exec");
	return 127;
}

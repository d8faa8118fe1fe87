/*
 * forkexec.c - processes that fork and later exec, for t/3140: what a
 * child is between its fork and its exec.
 *
 *   forkexec FILE PROGRAM [ARG...]
 *
 * Forks two children, one after the other.  Each writes one line to
 * FILE ("child 1", "child 2": an event of the forked process), sets RANK
 * to 7 (the parent's, from the environment, stays), and execs PROGRAM
 * with ARGs; the first sleeps 200 ms before its exec, the second execs
 * at once, so the collector has no time to look at it before.  Between
 * the two forks the parent changes directory to /tmp: the second child
 * is forked there.  The parent waits for both and exits 0 if both
 * exited 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t child(const char *file, int n, char **argv)
{
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	char line[16];
	pid_t pid = fork();
	int fd;

	if (pid != 0)
		return pid;
	fd = open(file, O_WRONLY | O_APPEND);
	if (fd < 0 || write(fd, line, (size_t)snprintf(line, sizeof(line),
						      "child %d\n", n)) < 0)
		_exit(126);
	close(fd);
	if (n == 1)
		nanosleep(&nap, NULL);
	setenv("RANK", "7", 1);
	execv(argv[0], argv);
	_exit(127);
}

int main(int argc, char **argv)
{
	int status, failed = 0, n;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: forkexec FILE PROGRAM [ARG...]\n");
		return 2;
	}
	for (n = 1; n <= 2; n++) {
		if (n == 2 && chdir("/tmp") != 0)
			failed = 1;
		pid = child(argv[1], n, argv + 2);
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed = 1;
	}
	return failed;
}

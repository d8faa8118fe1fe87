/*
 * vforkcalls.c - a child of vfork(2) that closes and duplicates
 * descriptors before it execs, as Python's subprocess does, for t/4240.
 *
 *   vforkcalls FILE    opens FILE (fd 3), vforks; the child closes fd 3,
 *                      duplicates fd 2 onto fd 1 and execs true; the
 *                      parent waits, writes 5 bytes to fd 3, closes it
 *                      and prints "parent PID child PID".
 *   vforkcalls fail    expects vfork to fail (no processes left to the
 *                      user): prints its errno's name, exits 0 if -1
 *                      and EAGAIN.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t pid;
	int fd, st;

	if (argc != 2)
		return 2;
	if (strcmp(argv[1], "fail") == 0) {
		errno = 0;
		pid = vfork();
		if (pid == 0)
			_exit(0);
		printf("vfork: %d %s\n", (int)pid, errno == EAGAIN ? "EAGAIN" : strerror(errno));
		return !(pid == -1 && errno == EAGAIN);
	}
	fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd != 3)
		return 2;
	pid = vfork();
	if (pid == 0) {
		close(fd);
		dup2(2, 1);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return 3;
	if (write(fd, "hello", 5) != 5 || close(fd) != 0)
		return 4;
	printf("parent %d child %d\n", (int)getpid(), (int)pid);
	return 0;
}

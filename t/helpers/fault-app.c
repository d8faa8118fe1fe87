/*
 * fault-app - traced applications that end badly, for the fault tests
 * (t/80xx).  Each writes a known number of 4 KiB blocks with write(2).
 *
 *   fault-app crash FILE N         N writes, then a segmentation fault
 *   fault-app exit FILE N STATUS   N writes, then _exit(STATUS) with
 *                                  unflushed stdio output pending
 *   fault-app phases FILE N DIR    N writes, create DIR/phase1, wait (at
 *                                  most 120 s) for DIR/go, N more writes,
 *                                  create DIR/finished
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void blocks(const char *path, long n)
{
	static char buf[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	for (long i = 0; i < n; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("write");
			exit(1);
		}
	close(fd);
}

static void touch(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "crash") == 0) {
		blocks(argv[2], atol(argv[3]));
		{
			/* A store to page 0, which nothing maps. */
			volatile int *volatile nowhere = NULL;

			*nowhere = 1;
			raise(SIGSEGV); /* not reached */
		}
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "exit") == 0) {
		blocks(argv[2], atol(argv[3]));
		printf("never flushed\n");
		_exit(atoi(argv[4]));
	}
	if (argc == 5 && strcmp(argv[1], "phases") == 0) {
		char go[4096];

		blocks(argv[2], atol(argv[3]));
		touch(argv[4], "phase1");
		snprintf(go, sizeof(go), "%s/go", argv[4]);
		for (int i = 0; access(go, F_OK) != 0; i++) {
			if (i == 1200)
				return 2;
			usleep(100000);
		}
		blocks(argv[2], atol(argv[3]));
		touch(argv[4], "finished");
		return 0;
	}
	fprintf(stderr, "usage: fault-app crash FILE N | exit FILE N STATUS | "
		"phases FILE N DIR\n");
	return 2;
}

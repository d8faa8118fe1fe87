/*
 * io-demo - a small, predictable I/O workload for the datacrumbs demo:
 * POSIX open/write/lseek/read/fsync/close and STDIO fopen/fwrite/fread/
 * fclose on one file, so every layer of the default config has calls.
 *
 * Usage: io-demo FILE [ROUNDS]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[64 * 1024];
	int rounds = argc > 2 ? atoi(argv[2]) : 8;
	FILE *f;
	int fd, i;

	if (argc < 2) {
		fprintf(stderr, "usage: io-demo FILE [ROUNDS]\n");
		return 2;
	}
	memset(buf, 'd', sizeof(buf));
	fd = open(argv[1], O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < rounds; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("write");
			return 1;
		}
	if (fsync(fd) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
		perror("fsync/lseek");
		return 1;
	}
	for (i = 0; i < rounds; i++)
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("read");
			return 1;
		}
	close(fd);

	f = fopen(argv[1], "r+");
	if (f == NULL) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < rounds; i++)
		fwrite(buf, 1, 4096, f);
	fseek(f, 0, SEEK_SET);
	for (i = 0; i < rounds; i++)
		if (fread(buf, 1, 4096, f) != 4096) {
			perror("fread");
			return 1;
		}
	if (fclose(f) != 0) {
		perror("fclose");
		return 1;
	}
	return 0;
}

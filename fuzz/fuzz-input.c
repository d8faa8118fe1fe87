/*
 * fuzz-input.c - read a harness's input (fuzz.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "messages.h"

unsigned char *fuzz_read_input(int argc, char **argv, size_t *len)
{
	size_t cap = 4096, n = 0;
	unsigned char *buf = xmalloc(cap);
	int fd = STDIN_FILENO;
	ssize_t r;

	if (argc > 1 && strcmp(argv[1], "-") != 0) {
		fd = open(argv[1], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			sysdie("cannot open %s", argv[1]);
	}
	for (;;) {
		if (n == cap)
			buf = xrealloc(buf, cap *= 2);
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			sysdie("cannot read the input");
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (fd != STDIN_FILENO)
		close(fd);
	*len = n;
	return buf;
}

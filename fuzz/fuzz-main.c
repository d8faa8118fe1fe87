/*
 * fuzz-main.c - the driver of every fuzz harness (fuzz.h): one input
 * from a file or standard input, several files one after another, or,
 * under AFL++, input after input in one process.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "messages.h"

/* Inputs per process in persistent mode: a fresh process after that many
 * bounds what a leak on some path could pile up. */
#define FUZZ_LOOPS 1000

static int memory_file(struct fuzz_input *in)
{
	if (in->fd < 0) {
		in->fd = memfd_create("fuzz-input", MFD_CLOEXEC);
		if (in->fd < 0)
			sysdie("cannot create the input's memory file");
		snprintf(in->path, sizeof(in->path), "/proc/self/fd/%d", in->fd);
	}
	if (ftruncate(in->fd, 0) != 0 ||
	    pwrite(in->fd, in->data, in->len, 0) != (ssize_t)in->len ||
	    lseek(in->fd, 0, SEEK_SET) != 0)
		sysdie("cannot write the input's memory file");
	return in->fd;
}

const char *fuzz_input_path(struct fuzz_input *in)
{
	if (in->name != NULL)
		return in->name;
	memory_file(in);
	return in->path;
}

int fuzz_input_fd(struct fuzz_input *in)
{
	return memory_file(in);
}

/* The whole of FILE ("-": standard input) into in. */
static void read_input(struct fuzz_input *in, const char *file)
{
	size_t cap = 4096, n = 0;
	unsigned char *buf = xmalloc(cap);
	int fd = STDIN_FILENO;
	ssize_t r;

	if (strcmp(file, "-") != 0) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			sysdie("cannot open %s", file);
		in->name = file;
	}
	for (;;) {
		if (n == cap)
			buf = xrealloc(buf, cap *= 2);
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			sysdie("cannot read %s", file);
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (fd != STDIN_FILENO)
		close(fd);
	in->data = buf;
	in->len = n;
}

/* One input, from a file or standard input: the harness's status.  The
 * memory file stays open for the next input, as in persistent mode. */
static int run_file(struct fuzz_input *in, const char *file)
{
	int status;

	read_input(in, file);
	status = fuzz_target.one(in);
	free((void *)in->data);
	in->data = NULL;
	in->name = NULL;
	return status;
}

/* Several files in one process, as AFL++'s persistent mode runs inputs:
 * "FILE: exit STATUS" for each on standard output, so that a test can
 * compare them with one process per file (t/8090). */
static int run_files(struct fuzz_input *in, int n, char **files)
{
	int i, status;

	for (i = 0; i < n; i++) {
		status = run_file(in, files[i]);
		printf("%s: exit %d\n", files[i], status);
	}
	if (fflush(stdout) != 0)
		sysdie("cannot write standard output");
	return 0;
}

#ifdef __AFL_HAVE_MANUAL_CONTROL
__AFL_FUZZ_INIT();

/* AFL++'s persistent mode: the fork server starts here, after init, and
 * each child runs up to FUZZ_LOOPS inputs from shared memory. */
static void run_persistent(struct fuzz_input *in)
{
	const unsigned char *buf;

	__AFL_INIT();
	buf = __AFL_FUZZ_TESTCASE_BUF;
	while (__AFL_LOOP(FUZZ_LOOPS)) {
		in->data = buf;
		in->len = __AFL_FUZZ_TESTCASE_LEN;
		fuzz_target.one(in);
	}
}
#endif

int main(int argc, char **argv)
{
	struct fuzz_input in = { .fd = -1 };
	int status;

	dc_messages_init(fuzz_target.name);
	if (fuzz_target.init != NULL)
		fuzz_target.init();
#ifdef __AFL_HAVE_MANUAL_CONTROL
	/* Under afl-fuzz without a FILE; with one, a crash input is being
	 * reproduced. */
	if (argc == 1 && getenv("__AFL_SHM_ID") != NULL) {
		run_persistent(&in);
		return 0;
	}
#endif
	if (argc > 2)
		status = run_files(&in, argc - 1, argv + 1);
	else
		status = run_file(&in, argc > 1 ? argv[1] : "-");
	if (in.fd >= 0)
		close(in.fd);
	return status;
}

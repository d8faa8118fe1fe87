/*
 * aio - a POSIX AIO workload with exactly known requests, for
 * t/3250-posix-aio.t.
 *
 *   aio FILE BADFD
 *
 * On FILE (created): aio_write of 4096 bytes at 0, 4096 at 4096 and
 * 1000 at 8192, waited for with aio_suspend, each aio_return'ed; an
 * aio_fsync (O_SYNC), waited for, aio_return'ed; lio_listio (LIO_WAIT)
 * of two reads, 4096 at 0 and 8192 at 4096 (which gets the 5096 left),
 * each aio_return'ed; then an aio_read of 100 bytes from descriptor
 * BADFD (not open: its request fails), aio_cancel of FILE's
 * requests (none left), and aio_fsync with an operation that is none
 * and a pointer to nothing, which fails (EINVAL) without reading it.
 * Prints what each call returned, one
 * "name ret" a line, in call order (aio_suspend's left out: the calls
 * it takes vary).  Exits non-zero if anything returns what it should
 * not.
 */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "aio: %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

static void request(struct aiocb *cb, int fd, void *buf, size_t n, off_t off)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = fd;
	cb->aio_buf = buf;
	cb->aio_nbytes = n;
	cb->aio_offset = off;
	cb->aio_sigevent.sigev_notify = SIGEV_NONE;
}

/* Until each of the n requests is done. */
static void wait_all(struct aiocb **cbs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		while (aio_error(cbs[i]) == EINPROGRESS)
			check(aio_suspend((const struct aiocb *const *)cbs, n,
					  NULL) == 0 || errno == EINTR,
			      "aio_suspend");
}

static void returned(struct aiocb *cb, ssize_t want)
{
	ssize_t r = aio_return(cb);

	printf("aio_return %zd\n", r);
	check(r == want, "aio_return");
}

int main(int argc, char **argv)
{
	static char out[9192], in[12288];
	struct aiocb w[3], s, r[2], bad, *list[3];
	int fd, i, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: aio FILE BADFD\n");
		return 2;
	}
	memset(out, 'a', sizeof(out));
	fd = open(argv[1], O_CREAT | O_RDWR | O_TRUNC, 0644);
	check(fd >= 0, argv[1]);

	request(&w[0], fd, out, 4096, 0);
	request(&w[1], fd, out + 4096, 4096, 4096);
	request(&w[2], fd, out + 8192, 1000, 8192);
	for (i = 0; i < 3; i++) {
		list[i] = &w[i];
		ret = aio_write(&w[i]);
		printf("aio_write %d\n", ret);
		check(ret == 0, "aio_write");
	}
	wait_all(list, 3);
	returned(&w[0], 4096);
	returned(&w[1], 4096);
	returned(&w[2], 1000);

	request(&s, fd, NULL, 0, 0);
	ret = aio_fsync(O_SYNC, &s);
	printf("aio_fsync %d\n", ret);
	check(ret == 0, "aio_fsync");
	list[0] = &s;
	wait_all(list, 1);
	returned(&s, 0);

	request(&r[0], fd, in, 4096, 0);
	request(&r[1], fd, in + 4096, 8192, 4096);
	r[0].aio_lio_opcode = r[1].aio_lio_opcode = LIO_READ;
	list[0] = &r[0];
	list[1] = &r[1];
	ret = lio_listio(LIO_WAIT, list, 2, NULL);
	printf("lio_listio %d\n", ret);
	check(ret == 0, "lio_listio");
	returned(&r[0], 4096);
	returned(&r[1], 5096);
	check(memcmp(in, out, sizeof(out)) == 0, "the bytes read back");

	request(&bad, atoi(argv[2]), in, 100, 0);
	ret = aio_read(&bad);
	printf("aio_read %d\n", ret);
	if (ret == 0) {
		list[0] = &bad;
		wait_all(list, 1);
		returned(&bad, -1);
	}
	ret = aio_cancel(fd, NULL);
	printf("aio_cancel %d\n", ret);
	check(ret == AIO_ALLDONE, "aio_cancel");
	errno = 0;
	ret = aio_fsync(-1, (struct aiocb *)8);
	printf("aio_fsync %d\n", ret);
	check(ret == -1 && errno == EINVAL, "aio_fsync of no operation");
	check(close(fd) == 0, "close");
	return 0;
}

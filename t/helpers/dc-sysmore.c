/*
 * dc-sysmore - the system calls of the syscalls layer that libc's usual
 * I/O does not make, each a known number of times, through syscall(2):
 *
 *   dc-sysmore aio FILE N   Linux AIO: io_setup, then N x (io_submit of
 *                           one 4 KiB write at offset 4096 i,
 *                           io_getevents of it), io_destroy; then
 *                           preadv2 of 1000 + 3096 bytes at 0,
 *                           pwritev2 of 500 + 1500 at 4096 N (FILE ends
 *                           4096 N + 2000 bytes long), fadvise64
 *                           (WILLNEED) and readahead of its first 64 KiB
 *   dc-sysmore meta DIR     openat2 of DIR/m relative to DIR's fd
 *                           (created), a 10-byte write, fstatfs,
 *                           statfs, faccessat, access, getdents64 of
 *                           DIR, syncfs, sync, close_range of the
 *                           file's fd alone with CLOSE_RANGE_CLOEXEC
 *                           (it stays open) and a 1-byte write,
 *                           truncate to 3, close_range of the fd (it
 *                           is closed) and a write that fails (EBADF)
 *   dc-sysmore links DIR    DIR/f made (openat), then relative to DIR's
 *                           fd: linkat f to h, symlinkat s to "f",
 *                           readlinkat s (1 byte), fchmodat f, fchownat
 *                           f (to its owner), utimensat f; on f's fd:
 *                           fchmod, fchown, utimensat with no path
 *                           (futimens); and by path where the
 *                           architecture has them: link f to l, symlink
 *                           t to "f", readlink t, chmod f, chown f
 *
 * Exit 0 when every call returned what it should, 1 (and a line) if one
 * did not, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/close_range.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static void check(long got, long want, const char *what)
{
	if (got != want) {
		fprintf(stderr, "dc-sysmore: %s returned %ld, not %ld: %s\n",
			what, got, want, strerror(errno));
		exit(1);
	}
}

/* One completed AIO request of ctx (io_getevents, or io_pgetevents
 * where there is no io_getevents: arm64). */
static long aio_wait(aio_context_t ctx, struct io_event *ev)
{
#ifdef SYS_io_getevents
	return syscall(SYS_io_getevents, ctx, 1L, 1L, ev, NULL);
#else
	return syscall(SYS_io_pgetevents, ctx, 1L, 1L, ev, NULL, NULL);
#endif
}

static int do_aio(const char *path, long n)
{
	static char buf[4096];
	struct iovec r[2] = { { buf, 1000 }, { buf + 1000, 3096 } };
	struct iovec w[2] = { { buf, 500 }, { buf + 500, 1500 } };
	aio_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	long i;

	check(fd >= 0, 1, path);
	memset(buf, 'a', sizeof(buf));
	check(syscall(SYS_io_setup, 8L, &ctx), 0, "io_setup");
	for (i = 0; i < n; i++) {
		memset(&cb, 0, sizeof(cb));
		cb.aio_fildes = (uint32_t)fd;
		cb.aio_lio_opcode = IOCB_CMD_PWRITE;
		cb.aio_buf = (uint64_t)(uintptr_t)buf;
		cb.aio_nbytes = sizeof(buf);
		cb.aio_offset = i * (long)sizeof(buf);
		check(syscall(SYS_io_submit, ctx, 1L, cbs), 1, "io_submit");
		check(aio_wait(ctx, &ev), 1, "io_getevents");
		check((long)ev.res, (long)sizeof(buf), "the AIO write");
	}
	check(syscall(SYS_io_destroy, ctx), 0, "io_destroy");
	check(syscall(SYS_preadv2, fd, r, 2, 0L, 0L, 0), 4096, "preadv2");
	check(syscall(SYS_pwritev2, fd, w, 2, n * 4096L, 0L, 0), 2000,
	      "pwritev2");
	check(syscall(SYS_fadvise64, fd, 0L, 65536L, POSIX_FADV_WILLNEED), 0,
	      "fadvise64");
	check(syscall(SYS_readahead, fd, 0L, 65536L), 0, "readahead");
	return close(fd);
}

static int do_meta(const char *dir)
{
	struct open_how how = { .flags = O_CREAT | O_TRUNC | O_WRONLY,
				.mode = 0644 };
	char path[4096], dents[4096];
	struct statfs sf;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), fd;

	check(dfd >= 0, 1, dir);
	check(snprintf(path, sizeof(path), "%s/m", dir) < (int)sizeof(path),
	      1, "the path");
	fd = (int)syscall(SYS_openat2, dfd, "m", &how, sizeof(how));
	check(fd >= 0, 1, "openat2");
	check(syscall(SYS_write, fd, "0123456789", 10L), 10, "write");
	check(syscall(SYS_fstatfs, fd, &sf), 0, "fstatfs");
	check(syscall(SYS_statfs, path, &sf), 0, "statfs");
	check(syscall(SYS_faccessat, dfd, "m", R_OK), 0, "faccessat");
#ifdef SYS_access
	check(syscall(SYS_access, path, R_OK), 0, "access");
#endif
	check(syscall(SYS_getdents64, dfd, dents, sizeof(dents)) > 0, 1,
	      "getdents64");
	check(syscall(SYS_syncfs, fd), 0, "syncfs");
	check(syscall(SYS_sync), 0, "sync");
	check(syscall(SYS_close_range, fd, fd, CLOSE_RANGE_CLOEXEC), 0,
	      "close_range (CLOEXEC)");
	check(syscall(SYS_write, fd, "y", 1L), 1, "a write after that");
	check(syscall(SYS_truncate, path, 3L), 0, "truncate");
	check(syscall(SYS_close_range, fd, fd, 0), 0, "close_range");
	check(syscall(SYS_write, fd, "x", 1L), -1, "a write after close_range");
	return close(dfd);
}

/* The old calls of links and attributes, by path (x86-64 has them,
 * arm64 has only the *at ones). */
static void links_by_path(const char *dir)
{
#ifdef SYS_link
	char f[4096], l[4096], t[4096], buf[16];

	check(snprintf(f, sizeof(f), "%s/f", dir) < (int)sizeof(f) &&
	      snprintf(l, sizeof(l), "%s/l", dir) < (int)sizeof(l) &&
	      snprintf(t, sizeof(t), "%s/t", dir) < (int)sizeof(t), 1,
	      "the paths");
	check(syscall(SYS_link, f, l), 0, "link");
	check(syscall(SYS_symlink, "f", t), 0, "symlink");
	check(syscall(SYS_readlink, t, buf, sizeof(buf)), 1, "readlink");
	check(syscall(SYS_chmod, f, 0644), 0, "chmod");
	check(syscall(SYS_chown, f, getuid(), getgid()), 0, "chown");
#else
	(void)dir;
#endif
}

static int do_links(const char *dir)
{
	char buf[16];
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), fd;

	check(dfd >= 0, 1, dir);
	fd = openat(dfd, "f", O_CREAT | O_TRUNC | O_WRONLY, 0644);
	check(fd >= 0, 1, "openat");
	check(syscall(SYS_linkat, dfd, "f", dfd, "h", 0), 0, "linkat");
	check(syscall(SYS_symlinkat, "f", dfd, "s"), 0, "symlinkat");
	check(syscall(SYS_readlinkat, dfd, "s", buf, sizeof(buf)), 1,
	      "readlinkat");
	check(syscall(SYS_fchmodat, dfd, "f", 0600), 0, "fchmodat");
	check(syscall(SYS_fchownat, dfd, "f", getuid(), getgid(), 0), 0,
	      "fchownat");
	check(syscall(SYS_utimensat, dfd, "f", NULL, 0), 0, "utimensat");
	check(syscall(SYS_fchmod, fd, 0640), 0, "fchmod");
	check(syscall(SYS_fchown, fd, getuid(), getgid()), 0, "fchown");
	check(syscall(SYS_utimensat, fd, NULL, NULL, 0), 0,
	      "utimensat (futimens)");
	links_by_path(dir);
	close(fd);
	return close(dfd);
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "aio") == 0)
		return do_aio(argv[2], atol(argv[3]));
	if (argc == 3 && strcmp(argv[1], "meta") == 0)
		return do_meta(argv[2]);
	if (argc == 3 && strcmp(argv[1], "links") == 0)
		return do_links(argv[2]);
	fprintf(stderr, "usage: dc-sysmore aio FILE N | meta DIR | links DIR\n");
	return 2;
}

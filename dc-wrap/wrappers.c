/*
 * wrappers.c - libdcclient.so's interposing wrappers for the functions of
 * dc-gen's posix and stdio layers (the list is DC_FAST_FUNCS in
 * lib/fastabi.h; the mpiio and hdf5 layers' are in iolibs.c).
 *
 * Preloaded, these definitions come before libc's, so a program's call to
 * write() lands here.  Each wrapper tests one byte (is this function
 * recorded?) and, if not, calls the next definition, libc's; otherwise it
 * brackets the call with dc_call_begin/dc_call_end (fast.c), which write
 * the same struct dc_event the uprobe path would: the same arguments as
 * 64-bit slots (int arguments as the 32-bit register holds them, pointers
 * and 64-bit values whole), the return value sign-extended as the
 * uprobe's return program reads it.
 *
 * Calls libc makes internally (fopen's open, fwrite's write) never pass
 * through the dynamic linker's symbol table, so no wrapper sees them,
 * where a uprobe on the function's address does.  dc-collect(8) says so.
 *
 * This file includes no config.h: with _FILE_OFFSET_BITS=64 the headers
 * would rename open to open64, and the wrapper of open would vanish.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#include <aio.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/types.h>

#include "checking.h"
#include "client.h"

#define I(x) ((__u64)(__u32)(x))
#define P(x) ((__u64)(uintptr_t)(x))
#define L(x) ((__u64)(x))

/* WRAP_IF(return type, name, recorded as, bypass test, failure test on
 * r, index of the string argument or -1, argument count, (parameters),
 * (names), (slots)): name's wrapper, its calls recorded as those of the
 * table's function `as` (itself, or lib/fastabi.h's DC_FAST_ALIASES and
 * DC_FAST_FORTIFIED), except those the bypass test (on the parameters)
 * passes on unrecorded. */
#define WRAP_IF(ret, name, as, bypass, fail, stri, n, params, args, slots)  \
	static __typeof__(name) *real_##name;                               \
	DC_EXPORT ret name params                                           \
	{                                                                   \
		struct dc_call c;                                           \
		ret r;                                                      \
                                                                            \
		if (__builtin_expect(!dc_fast_on[DC_FN_##as], 1) || (bypass)) \
			return REAL(name) args;                             \
		{                                                           \
			__u64 a[DC_MAX_ARGS] = { STRIP slots };             \
                                                                            \
			dc_call_begin(&c, DC_FN_##as, a, n);                \
			r = REAL(name) args;                                \
			dc_call_end(&c, (__s64)(intptr_t)r, a, n, stri,     \
				    (fail) && errno == EFAULT);             \
		}                                                           \
		return r;                                                   \
	}
#define WRAP_AS(ret, name, as, ...) WRAP_IF(ret, name, as, 0, __VA_ARGS__)
/* WRAP(return type, name, ...): as WRAP_AS, recorded as itself. */
#define WRAP(ret, name, ...) WRAP_AS(ret, name, name, __VA_ARGS__)
/* WRAP_BOTH(return type, name, ...): name, and name_unlocked, the stdio
 * function without the stream's lock that GNU programs call, each
 * recorded as itself. */
#define WRAP_BOTH(ret, name, ...)                                          \
	WRAP(ret, name, __VA_ARGS__)                                        \
	WRAP(ret, name##_unlocked, __VA_ARGS__)

WRAP(ssize_t, read, r < 0, -1, 3,
     (int fd, void *buf, size_t n),
     (fd, buf, n), (I(fd), P(buf), L(n)))
WRAP(ssize_t, write, r < 0, -1, 3,
     (int fd, const void *buf, size_t n),
     (fd, buf, n), (I(fd), P(buf), L(n)))
WRAP(ssize_t, pread, r < 0, -1, 4,
     (int fd, void *buf, size_t n, off_t off),
     (fd, buf, n, off), (I(fd), P(buf), L(n), L(off)))
WRAP(ssize_t, pread64, r < 0, -1, 4,
     (int fd, void *buf, size_t n, off64_t off),
     (fd, buf, n, off), (I(fd), P(buf), L(n), L(off)))
WRAP(ssize_t, pwrite, r < 0, -1, 4,
     (int fd, const void *buf, size_t n, off_t off),
     (fd, buf, n, off), (I(fd), P(buf), L(n), L(off)))
WRAP(ssize_t, pwrite64, r < 0, -1, 4,
     (int fd, const void *buf, size_t n, off64_t off),
     (fd, buf, n, off), (I(fd), P(buf), L(n), L(off)))
WRAP(ssize_t, readv, r < 0, -1, 3,
     (int fd, const struct iovec *iov, int cnt),
     (fd, iov, cnt), (I(fd), P(iov), I(cnt)))
WRAP(ssize_t, writev, r < 0, -1, 3,
     (int fd, const struct iovec *iov, int cnt),
     (fd, iov, cnt), (I(fd), P(iov), I(cnt)))
WRAP(ssize_t, preadv, r < 0, -1, 4,
     (int fd, const struct iovec *iov, int cnt, off_t off),
     (fd, iov, cnt, off), (I(fd), P(iov), I(cnt), L(off)))
WRAP(ssize_t, pwritev, r < 0, -1, 4,
     (int fd, const struct iovec *iov, int cnt, off_t off),
     (fd, iov, cnt, off), (I(fd), P(iov), I(cnt), L(off)))
WRAP(ssize_t, preadv64, r < 0, -1, 4,
     (int fd, const struct iovec *iov, int cnt, off64_t off),
     (fd, iov, cnt, off), (I(fd), P(iov), I(cnt), L(off)))
WRAP(ssize_t, pwritev64, r < 0, -1, 4,
     (int fd, const struct iovec *iov, int cnt, off64_t off),
     (fd, iov, cnt, off), (I(fd), P(iov), I(cnt), L(off)))
WRAP(off_t, lseek, r < 0, -1, 3,
     (int fd, off_t off, int whence),
     (fd, off, whence), (I(fd), L(off), I(whence)))
WRAP(off64_t, lseek64, r < 0, -1, 3,
     (int fd, off64_t off, int whence),
     (fd, off, whence), (I(fd), L(off), I(whence)))
WRAP(int, fsync, r < 0, -1, 1,
     (int fd),
     (fd), (I(fd)))
WRAP(int, fdatasync, r < 0, -1, 1,
     (int fd),
     (fd), (I(fd)))
WRAP(int, close, r < 0, -1, 1,
     (int fd),
     (fd), (I(fd)))
WRAP(int, creat, r < 0, 0, 2,
     (const char *path, mode_t mode),
     (path, mode), (P(path), I(mode)))
WRAP(int, creat64, r < 0, 0, 2,
     (const char *path, mode_t mode),
     (path, mode), (P(path), I(mode)))
WRAP(int, stat, r < 0, 0, 2,
     (const char *path, struct stat *st),
     (path, st), (P(path), P(st)))
WRAP(int, lstat, r < 0, 0, 2,
     (const char *path, struct stat *st),
     (path, st), (P(path), P(st)))
WRAP(int, fstat, r < 0, -1, 2,
     (int fd, struct stat *st),
     (fd, st), (I(fd), P(st)))
WRAP(int, stat64, r < 0, 0, 2,
     (const char *path, struct stat64 *st),
     (path, st), (P(path), P(st)))
WRAP(int, lstat64, r < 0, 0, 2,
     (const char *path, struct stat64 *st),
     (path, st), (P(path), P(st)))
WRAP(int, fstat64, r < 0, -1, 2,
     (int fd, struct stat64 *st),
     (fd, st), (I(fd), P(st)))
WRAP(int, fstatat, r < 0, 1, 4,
     (int dirfd, const char *path, struct stat *st, int flags),
     (dirfd, path, st, flags), (I(dirfd), P(path), P(st), I(flags)))
WRAP(int, fstatat64, r < 0, 1, 4,
     (int dirfd, const char *path, struct stat64 *st, int flags),
     (dirfd, path, st, flags), (I(dirfd), P(path), P(st), I(flags)))
WRAP(void *, mmap, r == MAP_FAILED, -1, 6,
     (void *addr, size_t len, int prot, int flags, int fd, off_t off),
     (addr, len, prot, flags, fd, off), (P(addr), L(len), I(prot), I(flags), I(fd), L(off)))
WRAP(void *, mmap64, r == MAP_FAILED, -1, 6,
     (void *addr, size_t len, int prot, int flags, int fd, off64_t off),
     (addr, len, prot, flags, fd, off), (P(addr), L(len), I(prot), I(flags), I(fd), L(off)))
WRAP(int, munmap, r < 0, -1, 2,
     (void *addr, size_t len),
     (addr, len), (P(addr), L(len)))
WRAP(int, unlink, r < 0, 0, 1,
     (const char *path),
     (path), (P(path)))
WRAP(int, rename, r < 0, 0, 2,
     (const char *from, const char *to),
     (from, to), (P(from), P(to)))
WRAP(int, mkdir, r < 0, 0, 2,
     (const char *path, mode_t mode),
     (path, mode), (P(path), I(mode)))
WRAP(int, rmdir, r < 0, 0, 1,
     (const char *path),
     (path), (P(path)))
/* The template holds the file's name when the call returns, when
 * dc_call_end copies it, as the uprobe's return does. */
WRAP(int, mkstemp, r < 0, 0, 1,
     (char *t),
     (t), (P(t)))
WRAP(int, mkostemp, r < 0, 0, 2,
     (char *t, int flags),
     (t, flags), (P(t), I(flags)))
WRAP(int, mkstemps, r < 0, 0, 2,
     (char *t, int suffixlen),
     (t, suffixlen), (P(t), I(suffixlen)))
WRAP(int, mkostemps, r < 0, 0, 3,
     (char *t, int suffixlen, int flags),
     (t, suffixlen, flags), (P(t), I(suffixlen), I(flags)))
WRAP(char *, mkdtemp, r == NULL, 0, 1,
     (char *t),
     (t), (P(t)))
WRAP(DIR *, opendir, r == NULL, 0, 1,
     (const char *path),
     (path), (P(path)))
WRAP(struct dirent *, readdir, r == NULL, -1, 1,
     (DIR *d),
     (d), (P(d)))
WRAP(struct dirent64 *, readdir64, r == NULL, -1, 1,
     (DIR *d),
     (d), (P(d)))
WRAP(int, closedir, r < 0, -1, 1,
     (DIR *d),
     (d), (P(d)))
WRAP(DIR *, fdopendir, r == NULL, -1, 1,
     (int fd),
     (fd), (I(fd)))
WRAP(int, dup, r < 0, -1, 1,
     (int fd),
     (fd), (I(fd)))
WRAP(int, dup2, r < 0, -1, 2,
     (int fd, int fd2),
     (fd, fd2), (I(fd), I(fd2)))
WRAP(int, dup3, r < 0, -1, 3,
     (int fd, int fd2, int flags),
     (fd, fd2, flags), (I(fd), I(fd2), I(flags)))
WRAP(int, ftruncate, r < 0, -1, 2,
     (int fd, off_t len),
     (fd, len), (I(fd), L(len)))
WRAP(int, ftruncate64, r < 0, -1, 2,
     (int fd, off64_t len),
     (fd, len), (I(fd), L(len)))
/* The working directory, which relative paths are taken against:
 * without these a posix-only trace would resolve them against the one
 * the process started in. */
WRAP(int, chdir, r < 0, 0, 1,
     (const char *path),
     (path), (P(path)))
WRAP(int, fchdir, r < 0, -1, 1,
     (int fd),
     (fd), (I(fd)))
WRAP(int, truncate, r < 0, 0, 2,
     (const char *path, off_t len),
     (path, len), (P(path), L(len)))
/* Copies from one descriptor to another, sendfile's destination first. */
WRAP(ssize_t, sendfile, r < 0, -1, 4,
     (int out, int in, off_t *off, size_t n),
     (out, in, off, n), (I(out), I(in), P(off), L(n)))
WRAP(ssize_t, copy_file_range, r < 0, -1, 6,
     (int in, off64_t *off_in, int out, off64_t *off_out, size_t n,
      unsigned int flags),
     (in, off_in, out, off_out, n, flags),
     (I(in), P(off_in), I(out), P(off_out), L(n), I(flags)))
/* The posix_ ones return an error number and leave errno alone. */
WRAP(int, posix_fallocate, 0, -1, 3,
     (int fd, off_t off, off_t len),
     (fd, off, len), (I(fd), L(off), L(len)))
WRAP(int, posix_fallocate64, 0, -1, 3,
     (int fd, off64_t off, off64_t len),
     (fd, off, len), (I(fd), L(off), L(len)))
WRAP(int, fallocate, r < 0, -1, 4,
     (int fd, int mode, off_t off, off_t len),
     (fd, mode, off, len), (I(fd), I(mode), L(off), L(len)))
WRAP(int, posix_fadvise, 0, -1, 4,
     (int fd, off_t off, off_t len, int advice),
     (fd, off, len, advice), (I(fd), L(off), L(len), I(advice)))
WRAP(FILE *, fopen, r == NULL, 0, 2,
     (const char *path, const char *mode),
     (path, mode), (P(path), P(mode)))
WRAP(FILE *, fopen64, r == NULL, 0, 2,
     (const char *path, const char *mode),
     (path, mode), (P(path), P(mode)))
WRAP(FILE *, fdopen, r == NULL, 1, 2,
     (int fd, const char *mode),
     (fd, mode), (I(fd), P(mode)))
WRAP(FILE *, freopen, r == NULL, 0, 3,
     (const char *path, const char *mode, FILE *f),
     (path, mode, f), (P(path), P(mode), P(f)))
/* <stdio.h> may define the functions without the lock as macros. */
#undef fwrite_unlocked
#undef fread_unlocked
#undef fputs_unlocked
#undef fgets_unlocked
#undef fputc_unlocked
#undef putc_unlocked
#undef fgetc_unlocked
#undef getc_unlocked
#undef fflush_unlocked
#undef getchar_unlocked
#undef putchar_unlocked
WRAP_BOTH(size_t, fread, 0, -1, 4,
     (void *buf, size_t size, size_t n, FILE *f),
     (buf, size, n, f), (P(buf), L(size), L(n), P(f)))
WRAP_BOTH(size_t, fwrite, 0, -1, 4,
     (const void *buf, size_t size, size_t n, FILE *f),
     (buf, size, n, f), (P(buf), L(size), L(n), P(f)))
WRAP(int, fseek, r < 0, -1, 3,
     (FILE *f, long off, int whence),
     (f, off, whence), (P(f), L(off), I(whence)))
WRAP(int, fseeko, r < 0, -1, 3,
     (FILE *f, off_t off, int whence),
     (f, off, whence), (P(f), L(off), I(whence)))
WRAP(long, ftell, r < 0, -1, 1,
     (FILE *f),
     (f), (P(f)))
WRAP(off_t, ftello, r < 0, -1, 1,
     (FILE *f),
     (f), (P(f)))
WRAP_BOTH(int, fflush, r < 0, -1, 1,
     (FILE *f),
     (f), (P(f)))
WRAP(int, fclose, r < 0, -1, 1,
     (FILE *f),
     (f), (P(f)))
WRAP_BOTH(char *, fgets, r == NULL, -1, 3,
     (char *s, int n, FILE *f),
     (s, n, f), (P(s), I(n), P(f)))
WRAP_BOTH(int, fputs, r < 0, 0, 2,
     (const char *s, FILE *f),
     (s, f), (P(s), P(f)))
WRAP_BOTH(int, fputc, r < 0, -1, 2,
     (int ch, FILE *f),
     (ch, f), (I(ch), P(f)))
/* <stdio.h> may define putc as a macro. */
#undef putc
WRAP_BOTH(int, putc, r < 0, -1, 2,
     (int ch, FILE *f),
     (ch, f), (I(ch), P(f)))
/* As fprintf's (WRAP_VPRINTF), its format is copied even when the call
 * fails. */
WRAP(int, vfprintf, 0, 1, 2,
     (FILE *f, const char *fmt, va_list ap),
     (f, fmt, ap), (P(f), P(fmt)))
WRAP(ssize_t, getline, r < 0, -1, 3,
     (char **line, size_t *n, FILE *f),
     (line, n, f), (P(line), P(n), P(f)))
WRAP(ssize_t, getdelim, r < 0, -1, 4,
     (char **line, size_t *n, int delim, FILE *f),
     (line, n, delim, f), (P(line), P(n), I(delim), P(f)))
WRAP_BOTH(int, fgetc, r < 0, -1, 1,
     (FILE *f),
     (f), (P(f)))
#undef getc
WRAP(int, getc, r < 0, -1, 1,
     (FILE *f),
     (f), (P(f)))

WRAP(FILE *, freopen64, r == NULL, 0, 3,
     (const char *path, const char *mode, FILE *f),
     (path, mode, f), (P(path), P(mode), P(f)))
WRAP(int, fgetpos, r < 0, -1, 2,
     (FILE *f, fpos_t *pos),
     (f, pos), (P(f), P(pos)))
WRAP(int, fsetpos, r < 0, -1, 2,
     (FILE *f, const fpos_t *pos),
     (f, pos), (P(f), P(pos)))
/* As printf's (WRAP_VPRINTF), its format is copied even when the call
 * fails. */
WRAP(int, vdprintf, 0, 1, 2,
     (int fd, const char *fmt, va_list ap),
     (fd, fmt, ap), (I(fd), P(fmt)))

/* rewind returns nothing (its plan's return: none). */
static __typeof__(rewind) *real_rewind;
DC_EXPORT void rewind(FILE *f)
{
	struct dc_call c;

	if (__builtin_expect(!dc_fast_on[DC_FN_rewind], 1)) {
		REAL(rewind)(f);
		return;
	}
	{
		__u64 a[DC_MAX_ARGS] = { P(f) };

		dc_call_begin(&c, DC_FN_rewind, a, 1);
		REAL(rewind)(f);
		dc_call_end(&c, 0, a, 1, -1, 0);
	}
}

/* stdin's and stdout's functions: the stream is no argument; its slot
 * holds the FILE * in stdin or stdout at the call, as the uprobe's reads
 * libc's variable (lib/event.h DC_ARG_STDOUT). */
#undef getchar
WRAP_BOTH(int, getchar, r < 0, -1, 1,
     (void),
     (), (P(stdin)))
WRAP(int, puts, r < 0, -1, 2,
     (const char *s),
     (s), (P(s), P(stdout)))
#undef putchar
WRAP_BOTH(int, putchar, r < 0, -1, 2,
     (int ch),
     (ch), (I(ch), P(stdout)))
/* As printf's (WRAP_VPRINTF), its format is copied even when the call
 * fails. */
WRAP(int, vprintf, 0, 0, 2,
     (const char *fmt, va_list ap),
     (fmt, ap), (P(fmt), P(stdout)))
WRAP(ssize_t, preadv2, r < 0, -1, 5,
     (int fd, const struct iovec *iov, int cnt, off_t off, int flags),
     (fd, iov, cnt, off, flags), (I(fd), P(iov), I(cnt), L(off), I(flags)))
WRAP(ssize_t, pwritev2, r < 0, -1, 5,
     (int fd, const struct iovec *iov, int cnt, off_t off, int flags),
     (fd, iov, cnt, off, flags), (I(fd), P(iov), I(cnt), L(off), I(flags)))

/* POSIX AIO: a struct aiocb's request (descriptor, size, offset,
 * operation) fills the slots after its pointer at the call's entry
 * (dc_call_begin), as the plan names them. */
#define AIO_REQ(ret, name, as, cbtype, n)                                   \
	WRAP_AS(ret, name, as, r < 0, -1, n, (cbtype *cb), (cb), (P(cb)))
AIO_REQ(int, aio_read, aio_read, struct aiocb, 3)
AIO_REQ(int, aio_write, aio_write, struct aiocb, 3)
AIO_REQ(ssize_t, aio_return, aio_return, struct aiocb, 4)
WRAP(int, aio_suspend, r < 0, -1, 3,
     (const struct aiocb *const list[], int n, const struct timespec *t),
     (list, n, t), (P(list), I(n), P(t)))
WRAP(int, aio_cancel, r < 0, -1, 2,
     (int fd, struct aiocb *cb),
     (fd, cb), (I(fd), P(cb)))
WRAP(int, aio_fsync, r < 0, -1, 2,
     (int op, struct aiocb *cb),
     (op, cb), (I(op), P(cb)))
WRAP(int, lio_listio, r < 0, -1, 4,
     (int mode, struct aiocb *const list[], int n, struct sigevent *sig),
     (mode, list, n, sig), (I(mode), P(list), I(n), P(sig)))

/* ---- other names of those functions (DC_FAST_ALIASES) ---- */

WRAP_AS(ssize_t, preadv64v2, preadv2, r < 0, -1, 5,
	(int fd, const struct iovec *iov, int cnt, off64_t off, int flags),
	(fd, iov, cnt, off, flags), (I(fd), P(iov), I(cnt), L(off), I(flags)))
WRAP_AS(ssize_t, pwritev64v2, pwritev2, r < 0, -1, 5,
	(int fd, const struct iovec *iov, int cnt, off64_t off, int flags),
	(fd, iov, cnt, off, flags), (I(fd), P(iov), I(cnt), L(off), I(flags)))
WRAP_AS(int, fseeko64, fseeko, r < 0, -1, 3,
	(FILE *f, off64_t off, int whence),
	(f, off, whence), (P(f), L(off), I(whence)))
WRAP_AS(off64_t, ftello64, ftello, r < 0, -1, 1,
	(FILE *f),
	(f), (P(f)))
WRAP_AS(ssize_t, __getdelim, getdelim, r < 0, -1, 4,
	(char **line, size_t *n, int delim, FILE *f),
	(line, n, delim, f), (P(line), P(n), I(delim), P(f)))
WRAP_AS(int, truncate64, truncate, r < 0, 0, 2,
	(const char *path, off64_t len),
	(path, len), (P(path), L(len)))
WRAP_AS(ssize_t, sendfile64, sendfile, r < 0, -1, 4,
	(int out, int in, off64_t *off, size_t n),
	(out, in, off, n), (I(out), I(in), P(off), L(n)))
WRAP_AS(int, fallocate64, fallocate, r < 0, -1, 4,
	(int fd, int mode, off64_t off, off64_t len),
	(fd, mode, off, len), (I(fd), I(mode), L(off), L(len)))
WRAP_AS(int, posix_fadvise64, posix_fadvise, 0, -1, 4,
	(int fd, off64_t off, off64_t len, int advice),
	(fd, off, len, advice), (I(fd), L(off), L(len), I(advice)))
WRAP_AS(int, mkstemp64, mkstemp, r < 0, 0, 1,
	(char *t),
	(t), (P(t)))
WRAP_AS(int, mkostemp64, mkostemp, r < 0, 0, 2,
	(char *t, int flags),
	(t, flags), (P(t), I(flags)))
WRAP_AS(int, mkstemps64, mkstemps, r < 0, 0, 2,
	(char *t, int suffixlen),
	(t, suffixlen), (P(t), I(suffixlen)))
WRAP_AS(int, mkostemps64, mkostemps, r < 0, 0, 3,
	(char *t, int suffixlen, int flags),
	(t, suffixlen, flags), (P(t), I(suffixlen), I(flags)))
AIO_REQ(int, aio_read64, aio_read, struct aiocb64, 3)
AIO_REQ(int, aio_write64, aio_write, struct aiocb64, 3)
AIO_REQ(ssize_t, aio_return64, aio_return, struct aiocb64, 4)
WRAP_AS(int, aio_suspend64, aio_suspend, r < 0, -1, 3,
	(const struct aiocb64 *const list[], int n, const struct timespec *t),
	(list, n, t), (P(list), I(n), P(t)))
WRAP_AS(int, aio_cancel64, aio_cancel, r < 0, -1, 2,
	(int fd, struct aiocb64 *cb),
	(fd, cb), (I(fd), P(cb)))
WRAP_AS(int, aio_fsync64, aio_fsync, r < 0, -1, 2,
	(int op, struct aiocb64 *cb),
	(op, cb), (I(op), P(cb)))
WRAP_AS(int, lio_listio64, lio_listio, r < 0, -1, 4,
	(int mode, struct aiocb64 *const list[], int n, struct sigevent *sig),
	(mode, list, n, sig), (I(mode), P(list), I(n), P(sig)))

WRAP_AS(int, getc_unlocked, fgetc_unlocked, r < 0, -1, 1,
	(FILE *f),
	(f), (P(f)))
WRAP_AS(int, fgetpos64, fgetpos, r < 0, -1, 2,
	(FILE *f, fpos64_t *pos),
	(f, pos), (P(f), P(pos)))
WRAP_AS(int, fsetpos64, fsetpos, r < 0, -1, 2,
	(FILE *f, const fpos64_t *pos),
	(f, pos), (P(f), P(pos)))

/* ---- _FORTIFY_SOURCE's checking versions (DC_FAST_FORTIFIED) ----
 * A call the check would stop (the buffer smaller than the count, open
 * without the mode O_CREAT needs) goes to libc's own, which aborts
 * before it reaches the function: the uprobe path sees no call either. */

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

#define CHK_READ(name, as, params, args, slots)                             \
	WRAP_IF(ssize_t, name, as, n > buflen, r < 0, -1, 4, params, args, slots)

CHK_READ(__read_chk, read, (int fd, void *buf, size_t n, size_t buflen),
	 (fd, buf, n, buflen), (I(fd), P(buf), L(n)))
CHK_READ(__pread_chk, pread,
	 (int fd, void *buf, size_t n, off_t off, size_t buflen),
	 (fd, buf, n, off, buflen), (I(fd), P(buf), L(n), L(off)))
CHK_READ(__pread64_chk, pread64,
	 (int fd, void *buf, size_t n, off64_t off, size_t buflen),
	 (fd, buf, n, off, buflen), (I(fd), P(buf), L(n), L(off)))

/* The mode slot holds what the uprobe reads there: the register of a
 * third argument these calls do not have, so whatever the caller left
 * in it; 0 here. */
#define CHK_OPEN(name, as, params, args, slots, n, path_index)             \
	WRAP_IF(int, name, as,                                              \
		(flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE,  \
		r < 0, path_index, n, params, args, slots)

CHK_OPEN(__open_2, open, (const char *path, int flags), (path, flags),
	 (P(path), I(flags), 0), 3, 0)
CHK_OPEN(__open64_2, open64, (const char *path, int flags), (path, flags),
	 (P(path), I(flags), 0), 3, 0)
CHK_OPEN(__openat_2, openat, (int dirfd, const char *path, int flags),
	 (dirfd, path, flags), (I(dirfd), P(path), I(flags), 0), 4, 1)
CHK_OPEN(__openat64_2, openat64, (int dirfd, const char *path, int flags),
	 (dirfd, path, flags), (I(dirfd), P(path), I(flags), 0), 4, 1)

/* ---- checking versions with code of their own (lib/checking.h) ----
 * Each is the spec's probe of it, which records its calls as its
 * function's: the function's arguments, taken from the registers the
 * list names, as the uprobe on the checking version reads them.  No
 * bypass: a call its check stops aborts the process before it returns,
 * and neither path writes a call that never returned. */

size_t __fread_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *f);
char *__fgets_chk(char *s, size_t size, int n, FILE *f);
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
int __isoc99_fscanf(FILE *f, const char *fmt, ...);
int __isoc99_vfscanf(FILE *f, const char *fmt, va_list ap);
/* glibc 2.38's, declared here for older ones, whose <stdio.h> has not:
 * only looked up by name (REAL), never linked. */
int __isoc23_fscanf(FILE *f, const char *fmt, ...);
int __isoc23_vfscanf(FILE *f, const char *fmt, va_list ap);
int __isoc99_scanf(const char *fmt, ...);
int __isoc99_vscanf(const char *fmt, va_list ap);
int __isoc23_scanf(const char *fmt, ...);
int __isoc23_vscanf(const char *fmt, va_list ap);

#define CHK_REGS(name, as, regs) static const unsigned char regs_##name[] = { STRIP regs };
DC_CHECKING_FUNCS(CHK_REGS)
#undef CHK_REGS

/* CHK_SLOTS(name, (its arguments as the registers hold them)): the
 * slots of its record, each the argument in the register the list names
 * (constants, folded by the compiler); CHK_N(name): how many. */
#define CHK_N(name) ((int)sizeof(regs_##name))
#define CHK_SLOT(name, a, in)                                               \
	((a) < sizeof(regs_##name)                                          \
	 ? ((const __u64[DC_MAX_ARGS]){ STRIP in })[regs_##name[(a) % sizeof(regs_##name)]] \
	 : 0)
#define CHK_SLOTS(name, in)                                                 \
	CHK_SLOT(name, 0, in), CHK_SLOT(name, 1, in), CHK_SLOT(name, 2, in),  \
	CHK_SLOT(name, 3, in), CHK_SLOT(name, 4, in), CHK_SLOT(name, 5, in)

WRAP(int, __vfprintf_chk, 0, 1, CHK_N(__vfprintf_chk),
     (FILE *f, int flag, const char *fmt, va_list ap),
     (f, flag, fmt, ap),
     (CHK_SLOTS(__vfprintf_chk, (P(f), I(flag), P(fmt)))))
int __dprintf_chk(int fd, int flag, const char *fmt, ...);
int __vdprintf_chk(int fd, int flag, const char *fmt, va_list ap);
WRAP(int, __vdprintf_chk, 0, 1, CHK_N(__vdprintf_chk),
     (int fd, int flag, const char *fmt, va_list ap),
     (fd, flag, fmt, ap),
     (CHK_SLOTS(__vdprintf_chk, (I(fd), I(flag), P(fmt)))))
int __printf_chk(int flag, const char *fmt, ...);
int __vprintf_chk(int flag, const char *fmt, va_list ap);
WRAP(int, __vprintf_chk, 0, 0, CHK_N(__vprintf_chk),
     (int flag, const char *fmt, va_list ap),
     (flag, fmt, ap),
     (CHK_SLOTS(__vprintf_chk, (I(flag), P(fmt), P(stdout)))))
WRAP(size_t, __fread_chk, 0, -1, CHK_N(__fread_chk),
     (void *buf, size_t buflen, size_t size, size_t n, FILE *f),
     (buf, buflen, size, n, f),
     (CHK_SLOTS(__fread_chk, (P(buf), L(buflen), L(size), L(n), P(f)))))
WRAP(char *, __fgets_chk, r == NULL, -1, CHK_N(__fgets_chk),
     (char *s, size_t size, int n, FILE *f),
     (s, size, n, f),
     (CHK_SLOTS(__fgets_chk, (P(s), L(size), I(n), P(f)))))

/* ---- variadic functions ---- */

/* WRAP_VA(name, recorded as, (parameters, ...), the last named one,
 * type and name of the third argument, (names), failure test on r,
 * index of the string argument or -1, argument count, (slots)): a
 * function whose third argument may or may not be passed.  It is read
 * whatever the call, as the uprobe path reads the register that holds
 * it (on x86-64 and arm64, va_arg of the third argument reads its saved
 * register, whatever the caller left there), and passed on. */
#define WRAP_VA(name, as, params, last, vtype, v, real_call, fail, stri, n,  \
		slots)                                                      \
	static __typeof__(name) *real_##name;                               \
	DC_EXPORT int name params                                           \
	{                                                                   \
		struct dc_call c;                                           \
		va_list ap;                                                 \
		vtype v;                                                    \
		int r;                                                      \
                                                                            \
		va_start(ap, last);                                         \
		v = va_arg(ap, vtype);                                      \
		va_end(ap);                                                 \
		if (__builtin_expect(!dc_fast_on[DC_FN_##as], 1))           \
			return REAL(name) real_call;                        \
		{                                                           \
			__u64 a[DC_MAX_ARGS] = { STRIP slots };             \
                                                                            \
			dc_call_begin(&c, DC_FN_##as, a, n);                \
			r = REAL(name) real_call;                           \
			dc_call_end(&c, (__s64)r, a, n, stri,               \
				    (fail) && errno == EFAULT);             \
		}                                                           \
		return r;                                                   \
	}

/* open's mode, read even without O_CREAT. */
#define WRAP_OPEN(name, params, real_call, path_index, n, slots)            \
	WRAP_VA(name, name, params, flags, mode_t, mode, real_call, r < 0,  \
		path_index, n, slots)

WRAP_OPEN(open, (const char *path, int flags, ...), (path, flags, mode), 0, 3,
	  (P(path), I(flags), I(mode)))
WRAP_OPEN(open64, (const char *path, int flags, ...), (path, flags, mode), 0, 3,
	  (P(path), I(flags), I(mode)))
WRAP_OPEN(openat, (int dirfd, const char *path, int flags, ...),
	  (dirfd, path, flags, mode), 1, 4,
	  (I(dirfd), P(path), I(flags), I(mode)))
WRAP_OPEN(openat64, (int dirfd, const char *path, int flags, ...),
	  (dirfd, path, flags, mode), 1, 4,
	  (I(dirfd), P(path), I(flags), I(mode)))

/* fcntl's third argument is an int or a pointer: passed on as a long,
 * which the calling convention treats the same.  fcntl64 is the name a
 * program built with _FILE_OFFSET_BITS=64 calls (DC_FAST_ALIASES).
 * Never EFAULT from a string: no string is read. */
int fcntl64(int fd, int cmd, ...);

#define WRAP_FCNTL(name)                                                    \
	WRAP_VA(name, fcntl, (int fd, int cmd, ...), cmd, long, arg,        \
		(fd, cmd, arg), 0, -1, 3, (I(fd), I(cmd), L(arg)))

WRAP_FCNTL(fcntl)
WRAP_FCNTL(fcntl64)

/* WRAP_VPRINTF(name, (parameters, ...), the last named one, the
 * function taking a va_list it calls, (its arguments), the slot of the
 * format, argument count, (slots)): a printf- or scanf-like function.
 * WRAP_VPRINTF_AS(C name, name, ...): the same, defined under another C
 * name (one whose symbol name <stdio.h> would take). */
#define WRAP_VPRINTF(name, ...) WRAP_VPRINTF_AS(name, name, __VA_ARGS__)
#define WRAP_VPRINTF_AS(cname, name, params, last, vfn, vargs, stri, n,    \
			slots)                                              \
	static __typeof__(vfn) *real_##vfn;                                 \
	DC_EXPORT int cname params                                          \
	{                                                                   \
		struct dc_call c;                                           \
		va_list ap;                                                 \
		int r;                                                      \
                                                                            \
		va_start(ap, last);                                         \
		if (__builtin_expect(!dc_fast_on[DC_FN_##name], 1)) {       \
			r = REAL(vfn) vargs;                                \
			va_end(ap);                                         \
			return r;                                           \
		}                                                           \
		{                                                           \
			__u64 a[DC_MAX_ARGS] = { STRIP slots };             \
                                                                            \
			dc_call_begin(&c, DC_FN_##name, a, n);              \
			r = REAL(vfn) vargs;                                \
			va_end(ap);                                         \
			dc_call_end(&c, (__s64)r, a, n, stri, 0);           \
		}                                                           \
		return r;                                                   \
	}

WRAP_VPRINTF(fprintf, (FILE *f, const char *fmt, ...), fmt, vfprintf,
	     (f, fmt, ap), 1, 2, (P(f), P(fmt)))
WRAP_VPRINTF(__fprintf_chk, (FILE *f, int flag, const char *fmt, ...), fmt,
	     __vfprintf_chk, (f, flag, fmt, ap), 1, CHK_N(__fprintf_chk),
	     (CHK_SLOTS(__fprintf_chk, (P(f), I(flag), P(fmt)))))

WRAP_VPRINTF(dprintf, (int fd, const char *fmt, ...), fmt, vdprintf,
	     (fd, fmt, ap), 1, 2, (I(fd), P(fmt)))
WRAP_VPRINTF(__dprintf_chk, (int fd, int flag, const char *fmt, ...), fmt,
	     __vdprintf_chk, (fd, flag, fmt, ap), 1, CHK_N(__dprintf_chk),
	     (CHK_SLOTS(__dprintf_chk, (I(fd), I(flag), P(fmt)))))
WRAP_VPRINTF(printf, (const char *fmt, ...), fmt, vprintf, (fmt, ap), 0, 2,
	     (P(fmt), P(stdout)))
WRAP_VPRINTF(__printf_chk, (int flag, const char *fmt, ...), fmt,
	     __vprintf_chk, (flag, fmt, ap), 0, CHK_N(__printf_chk),
	     (CHK_SLOTS(__printf_chk, (I(flag), P(fmt), P(stdout)))))

/* The fscanf programs call (lib/checking.h): C99's, and C23's, which
 * only a program built against glibc 2.38 or later calls, and so only
 * where libc has the __isoc23_vfscanf it passes the call on to. */
WRAP_VPRINTF(__isoc99_fscanf, (FILE *f, const char *fmt, ...), fmt,
	     __isoc99_vfscanf, (f, fmt, ap), 1, CHK_N(__isoc99_fscanf),
	     (CHK_SLOTS(__isoc99_fscanf, (P(f), P(fmt)))))
WRAP_VPRINTF(__isoc23_fscanf, (FILE *f, const char *fmt, ...), fmt,
	     __isoc23_vfscanf, (f, fmt, ap), 1, CHK_N(__isoc23_fscanf),
	     (CHK_SLOTS(__isoc23_fscanf, (P(f), P(fmt)))))

/* The same for scanf, on stdin. */
WRAP_VPRINTF(__isoc99_scanf, (const char *fmt, ...), fmt, __isoc99_vscanf,
	     (fmt, ap), 0, CHK_N(__isoc99_scanf),
	     (CHK_SLOTS(__isoc99_scanf, (P(fmt), P(stdin)))))
WRAP_VPRINTF(__isoc23_scanf, (const char *fmt, ...), fmt, __isoc23_vscanf,
	     (fmt, ap), 0, CHK_N(__isoc23_scanf),
	     (CHK_SLOTS(__isoc23_scanf, (P(fmt), P(stdin)))))

/* fscanf and scanf by their own symbol names, the old GNU ones that
 * programs built before C99 call: <stdio.h> renames the C names to
 * __isoc99_fscanf and __isoc99_scanf (or the __isoc23_ ones), so these
 * are defined under names of their own with the symbol names given; the
 * next definitions of vfscanf and vscanf, the old ones too, are looked
 * up by name (REAL). */
int dc_fscanf(FILE *f, const char *fmt, ...) __asm__("fscanf");
int dc_scanf(const char *fmt, ...) __asm__("scanf");
WRAP_VPRINTF_AS(dc_fscanf, fscanf, (FILE *f, const char *fmt, ...), fmt,
		vfscanf, (f, fmt, ap), 1, 2, (P(f), P(fmt)))
WRAP_VPRINTF_AS(dc_scanf, scanf, (const char *fmt, ...), fmt, vscanf,
		(fmt, ap), 0, 2, (P(fmt), P(stdin)))

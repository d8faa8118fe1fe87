/*
 * userbytes.c - a workload with exactly known STDIO and vectored bytes,
 * open modes, fcntl commands, renames, a change of directory, files
 * made from templates (mkstemp), printing to a descriptor (dprintf), a
 * stream reopened and repositioned (freopen64, fgetpos, rewind), and
 * space, advice, a truncation and copies (moves), for
 * t/3200-userbytes.t.  Everything is relative to the working directory,
 * so the trace must resolve it.  Exits non-zero if any call fails.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static void check(int ok, const char *what)
{
	if (!ok) {
		perror(what);
		exit(1);
	}
}

/* glibc's, declared by <stdlib.h> only with _GNU_SOURCE, which would
 * also make <stdio.h> call __getdelim for getline (the test counts
 * getline's calls). */
int mkostemps(char *template, int suffixlen, int flags);

/* Files of unique names, made from templates: 11 bytes written to the
 * first, 22 to the second (its name ends in .dat), and a directory;
 * their names, one a line, in temps.txt. */
static void temps(const char *buf)
{
	char t1[] = "tmp-XXXXXX", t2[] = "tmp-XXXXXX.dat", d[] = "dir-XXXXXX";
	char names[64];
	int fd, n;

	check((fd = mkstemp(t1)) >= 0, "mkstemp");
	check(write(fd, buf, 11) == 11, "write mkstemp");
	check(close(fd) == 0, "close mkstemp");
	check((fd = mkostemps(t2, 4, O_APPEND)) >= 0, "mkostemps");
	check(write(fd, buf, 22) == 22, "write mkostemps");
	check(close(fd) == 0, "close mkostemps");
	check(mkdtemp(d) == d, "mkdtemp");
	n = snprintf(names, sizeof(names), "%s\n%s\n%s\n", t1, t2, d);
	check((fd = open("temps.txt", O_CREAT | O_WRONLY | O_TRUNC, 0600)) >= 0, "open temps.txt");
	check(write(fd, names, (size_t)n) == n, "write temps.txt");
	check(close(fd) == 0, "close temps.txt");
}

/* glibc's, declared only with _GNU_SOURCE. */
ssize_t copy_file_range(int in, off_t *off_in, int out, off_t *off_out,
			size_t n, unsigned int flags);
int fallocate(int fd, int mode, off_t off, off_t len);

/* Space, advice, a truncation and copies between descriptors: moves.a
 * (40 bytes written, truncated to 100), copied whole to moves.c by
 * sendfile and to moves.d by copy_file_range; moves.e given 8192 bytes
 * by posix_fallocate, then 4096 beyond its size by fallocate (which a
 * file system may refuse: what it returned in moves.txt). */
static void moves(const char *buf)
{
	int a, c, d, e, r, n;
	off_t from = 0;
	char said[32];

	check((a = open("moves.a", O_CREAT | O_RDWR | O_TRUNC, 0600)) >= 0, "open moves.a");
	check(write(a, buf, 40) == 40, "write moves.a");
	check(truncate("moves.a", 100) == 0, "truncate");
	check(posix_fadvise(a, 0, 0, POSIX_FADV_SEQUENTIAL) == 0, "posix_fadvise");
	check((c = open("moves.c", O_CREAT | O_WRONLY | O_TRUNC, 0600)) >= 0, "open moves.c");
	check(sendfile(c, a, &from, 100) == 100, "sendfile");
	check((d = open("moves.d", O_CREAT | O_WRONLY | O_TRUNC, 0600)) >= 0, "open moves.d");
	from = 0;
	check(copy_file_range(a, &from, d, NULL, 100, 0) == 100, "copy_file_range");
	check((e = open("moves.e", O_CREAT | O_WRONLY | O_TRUNC, 0600)) >= 0, "open moves.e");
	check(posix_fallocate(e, 0, 8192) == 0, "posix_fallocate");
	r = fallocate(e, 1 /* FALLOC_FL_KEEP_SIZE */, 8192, 4096);
	n = snprintf(said, sizeof(said), "%d\n", r);
	check(close(a) == 0 && close(c) == 0 && close(d) == 0 && close(e) == 0, "close moves");
	check((e = open("moves.txt", O_CREAT | O_WRONLY | O_TRUNC, 0600)) >= 0, "open moves.txt");
	check(write(e, said, (size_t)n) == n, "write moves.txt");
	check(close(e) == 0, "close moves.txt");
}

/* glibc's, declared by <stdio.h> only with _LARGEFILE64_SOURCE and
 * _FORTIFY_SOURCE, or not at all. */
FILE *freopen64(const char *path, const char *mode, FILE *f);
int __dprintf_chk(int fd, int flag, const char *fmt, ...);

static int vsay(int fd, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vdprintf(fd, fmt, ap);
	va_end(ap);
	return r;
}

/* Printing to a descriptor: 6 + 4 + 2 bytes to more.fd.  A stream
 * reopened by freopen64 on more.out (10 bytes), its position taken at
 * 4, rewound and set back. */
static void more_stdio(void)
{
	fpos_t pos;
	FILE *f;
	int fd;

	check((fd = open("more.fd", O_CREAT | O_WRONLY | O_TRUNC, 0600)) >= 0, "open more.fd");
	check(dprintf(fd, "%d\n", 12345) == 6, "dprintf");
	check(vsay(fd, "%s\n", "abc") == 4, "vdprintf");
	check(__dprintf_chk(fd, 1, "%d\n", 7) == 2, "__dprintf_chk");
	check(close(fd) == 0, "close more.fd");
	check((fd = open("more.out", O_CREAT | O_RDWR | O_TRUNC, 0600)) >= 0, "open more.out");
	check(write(fd, "0123456789", 10) == 10, "write more.out");
	check((f = fdopen(fd, "r+")) != NULL, "fdopen more.out");
	check((f = freopen64("more.out", "r", f)) != NULL, "freopen64");
	check(fseek(f, 4, SEEK_SET) == 0, "fseek more.out");
	check(fgetpos(f, &pos) == 0, "fgetpos");
	rewind(f);
	check(ftell(f) == 0, "rewind");
	check(fsetpos(f, &pos) == 0 && ftell(f) == 4, "fsetpos");
	check(fclose(f) == 0, "fclose more.out");
}

int main(void)
{
	static char buf[20000];
	struct iovec iov[3];
	char line[64], *lp = NULL;
	size_t lsize = 0;
	FILE *f;
	int fd;

	memset(buf, 'a', sizeof(buf));
	/* STDIO: 3 x fwrite(1000 x 4) + fputs 6 + fputc 1 + fprintf 6. */
	check((f = fopen("stdio.out", "w")) != NULL, "fopen w");
	for (int i = 0; i < 3; i++)
		check(fwrite(buf, 1000, 4, f) == 4, "fwrite");
	check(fputs("hello\n", f) >= 0, "fputs");
	check(fputc('x', f) == 'x', "fputc");
	check(fprintf(f, "%d\n", 12345) == 6, "fprintf");
	check(fclose(f) == 0, "fclose");
	/* Read it back: 120 items of 100, two lines, then EOF. */
	check((f = fopen("stdio.out", "r")) != NULL, "fopen r");
	check(fread(buf, 100, 120, f) == 120, "fread");
	check(fgets(line, sizeof(line), f) != NULL, "fgets 1");
	check(fgets(line, sizeof(line), f) != NULL, "fgets 2");
	check(fgets(line, sizeof(line), f) == NULL, "fgets eof");
	check(fclose(f) == 0, "fclose");
	/* And by lines: 12006 bytes to the first newline, 7 to the next,
	 * then the end (-1). */
	check((f = fopen("stdio.out", "r")) != NULL, "fopen r 2");
	check(getline(&lp, &lsize, f) == 12006, "getline");
	check(getdelim(&lp, &lsize, '\n', f) == 7, "getdelim");
	check(getline(&lp, &lsize, f) == -1, "getline eof");
	check(fclose(f) == 0, "fclose");
	free(lp);
	/* Streams opened before main: named by their descriptors. */
	check(fprintf(stdout, "to stdout\n") == 10, "fprintf stdout");
	check(fputs("to stderr\n", stderr) >= 0, "fputs stderr");
	check(fflush(stdout) == 0, "fflush");
	/* Vectored: 10 + 20 + 30 written, read back as 25 + 35. */
	check((fd = open("vec.out", O_CREAT | O_TRUNC | O_WRONLY, 0640)) >= 0, "open");
	iov[0].iov_base = buf; iov[0].iov_len = 10;
	iov[1].iov_base = buf; iov[1].iov_len = 20;
	iov[2].iov_base = buf; iov[2].iov_len = 30;
	check(writev(fd, iov, 3) == 60, "writev");
	check(fcntl(fd, F_GETFL) >= 0, "fcntl F_GETFL");
	check(fcntl(fd, F_SETFD, FD_CLOEXEC) == 0, "fcntl F_SETFD");
	check(close(fd) == 0, "close");
	check((fd = open("vec.out", O_RDONLY)) >= 0, "open r");
	iov[0].iov_len = 25;
	iov[1].iov_len = 35;
	check(readv(fd, iov, 2) == 60, "readv");
	check(close(fd) == 0, "close");
	/* Both names of a rename, then a change of directory. */
	check(rename("vec.out", "vec.moved") == 0, "rename");
	check(mkdir("sub", 0755) == 0 || access("sub", F_OK) == 0, "mkdir");
	check(chdir("sub") == 0, "chdir");
	check((fd = open("inner.out", O_CREAT | O_WRONLY | O_TRUNC, 0600)) >= 0, "open inner");
	check(write(fd, buf, 77) == 77, "write inner");
	check(close(fd) == 0, "close inner");
	check((fd = open("..", O_RDONLY | O_DIRECTORY)) >= 0, "open ..");
	check(fchdir(fd) == 0, "fchdir");
	check(close(fd) == 0, "close ..");
	check((fd = open("outer.out", O_CREAT | O_WRONLY | O_TRUNC, 0600)) >= 0, "open outer");
	check(write(fd, buf, 33) == 33, "write outer");
	check(close(fd) == 0, "close outer");
	temps(buf);
	more_stdio();
	moves(buf);
	return 0;
}

/*
 * fastclient - workloads for the fast-path tests (t/4200-fastpath.t).
 *
 *   fastclient mix DIR        POSIX and STDIO calls on DIR/f between two
 *                             marker stat() calls on DIR/begin, DIR/end
 *                             (files that do not exist); opens of paths
 *                             at and over the longest a record holds,
 *                             and of paths that end at a page's end
 *   fastclient names DIR N [GATE]
 *                             (after GATE exists, if given, waited for
 *                             with access(2), which is not wrapped)
 *                             between the same markers, calls whose
 *                             sizes and flags are known only at run
 *                             time (N, at most 4096: not checked, so
 *                             that the compiler cannot prove the reads
 *                             fit and skip __read_chk): built as
 *                             fastclient64, with
 *                             _FILE_OFFSET_BITS=64 and _FORTIFY_SOURCE,
 *                             they reach libc by its other names
 *                             (open64, fcntl64, fseeko64, preadv64v2)
 *                             and its checking versions (__read_chk,
 *                             __open_2, and __fprintf_chk, __fread_chk
 *                             and __fgets_chk, which do not go into
 *                             fprintf, fread, fgets): after the
 *                             fopen, fprintf(f, "<%zu>\n", N) at
 *                             offset 10, fread of all N bytes into a
 *                             4096-byte buffer, fgets of at most 40
 *                             bytes from offset 10 into a 64-byte one
 *                             (that line: 7 bytes for N of 4 digits),
 *                             and fscanf of N from it (which any build
 *                             for C99 or later calls as __isoc99_fscanf)
 *   fastclient kill N         N x write(/dev/null, 1 byte), then SIGKILL
 *   fastclient threads T N    T threads, each N x write(/dev/null)
 *   fastclient crowd T N      T threads alive at once, each N x
 *                             write(/dev/null): more than the call-state
 *                             map has entries for
 *   fastclient fork N M       N writes in the parent, M in a forked child
 *   fastclient gate DIR N     create DIR/ready, wait for DIR/go (with
 *                             access(2), which is not wrapped), then N
 *                             writes: a test can stop the collector
 *                             after the handshake, before the writes
 *   fastclient config         handshakes as libdcclient.so does up to
 *                             the configuration, prints what it says
 *                             of full rings (run without the preload)
 *   fastclient hostile N      a client of its own: handshakes as
 *                             libdcclient.so does, then writes garbage
 *                             into its call-state map, and garbage and
 *                             N valid write records claiming pid 1
 *                             into its ring (run without the preload)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "event.h"
#include "fdpass.h"
#include "fastabi.h"

static void fail(const char *what)
{
	fprintf(stderr, "fastclient: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void writes(long n)
{
	int fd = open("/dev/null", O_WRONLY);
	long i;

	if (fd < 0)
		fail("open");
	for (i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			fail("write");
	close(fd);
}

/* The vectored calls, whose size slot is the total of iov_len: read
 * after a call that succeeded, and the safe way after one that failed
 * (EBADF with a readable array: its total; EFAULT: -1). */
static int vectored(const char *path, char *buf)
{
	struct iovec iov[3] = { { buf, 10 }, { buf + 10, 20 }, { buf + 30, 30 } };
	volatile uintptr_t bad_iov = 8;
	int fd = open(path, O_RDWR);

	if (fd < 0)
		fail("open");
	if (writev(fd, iov, 3) != 60 || pwritev(fd, iov, 3, 100) != 60 ||
	    pwritev2(fd, iov, 2, 200, 0) != 30)
		fail("writev");
	lseek(fd, 0, SEEK_SET);
	if (readv(fd, iov, 3) != 60 || preadv(fd, iov, 3, 100) != 60 ||
	    preadv2(fd, iov, 2, 200, 0) != 30)
		fail("readv");
	if (writev(-1, iov, 3) != -1 || readv(fd, (struct iovec *)bad_iov, 2) != -1)
		return 1;
	close(fd);
	return 0;
}

/* fprintf through vfprintf (__vfprintf_chk in fastclient64). */
static int vput(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfprintf(f, fmt, ap);
	va_end(ap);
	return r;
}

/* The stdio calls whose bytes come from string lengths (fputs, fgets)
 * or are one character (fputc, putc); fgets at the end of the file
 * fails; then the same lines read back by getline and getdelim, a line
 * appended through vfprintf, the first characters read back one by one
 * (fgetc, getc, with fgetpos and fsetpos), a line written without the
 * stream's lock (fwrite_unlocked, fputs_unlocked), and one printed to a
 * descriptor (dprintf). */
static int strings(const char *path, char *buf)
{
	FILE *f = fopen(path, "w+");
	char *line = NULL;
	size_t n = 0;
	fpos_t pos;
	int fd;

	if (f == NULL)
		fail("fopen");
	if (fputs("hello\n", f) < 0 || fputc('x', f) != 'x' ||
	    putc('y', f) != 'y' || fprintf(f, "\n%d\n", 42) != 4)
		fail("fputs");
	fflush(f);
	fseek(f, 0, SEEK_SET);
	if (fgets(buf, 100, f) == NULL || fgets(buf, 3, f) == NULL)
		fail("fgets");
	/* errno as the calls leave it: untouched by one that succeeds, 0
	 * still after fgets at the end of the file (which sets none). */
	errno = ENOTTY;
	if (fgets(buf, 100, f) == NULL || errno != ENOTTY)
		fail("errno after a call that succeeded");
	while (errno = 0, fgets(buf, 100, f) != NULL)
		;
	if (errno != 0)
		fail("errno after fgets at the end of the file");
	fseek(f, 0, SEEK_SET);
	if (getline(&line, &n, f) != 6 || getdelim(&line, &n, 'y', f) != 2 ||
	    getdelim(&line, &n, 'y', f) != 4 || getline(&line, &n, f) != -1)
		fail("getline");
	free(line);
	if (fseek(f, 0, SEEK_END) != 0 || vput(f, "%s-%d\n", "v", 7) != 4)
		fail("vfprintf");
	/* By the character, the position taken and set back; then
	 * written without the stream's lock. */
	rewind(f);
	if (fgetc(f) != 'h' || getc(f) != 'e' || fgetpos(f, &pos) != 0 ||
	    fgetc(f) != 'l' || fsetpos(f, &pos) != 0 || getc(f) != 'l')
		fail("fgetc");
	if (fseek(f, 0, SEEK_END) != 0 || fwrite_unlocked("uv", 1, 2, f) != 2 ||
	    fputs_unlocked("w\n", f) < 0 || fflush_unlocked(f) != 0)
		fail("fwrite_unlocked");
	fclose(f);
	/* Printed to a descriptor. */
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0 || dprintf(fd, "%d\n", 12) != 3 || close(fd) != 0)
		fail("dprintf");
	return 0;
}

/* Paths at and over the longest a record holds (DC_MAX_STR - 1
 * characters), and short ones that end at the end of a page with no page
 * mapped after it (the client reads a string in words, never past its
 * NUL into another page): each open fails (ENOENT, ENAMETOOLONG), and
 * its path is in the trace as far as a record holds it. */
static int long_paths(void)
{
	static const size_t lens[] = { DC_MAX_STR - 9, DC_MAX_STR - 2,
				       DC_MAX_STR - 1, DC_MAX_STR,
				       DC_MAX_STR + 1, DC_MAX_STR + 900 };
	size_t page = (size_t)sysconf(_SC_PAGESIZE), i, n;
	char *p = malloc(DC_MAX_STR + 1000), *m;

	m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == NULL || m == MAP_FAILED || mprotect(m + page, page, PROT_NONE) != 0)
		fail("long paths");
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		/* /nonexistent/ then components of 99 characters */
		strcpy(p, "/nonexistent/");
		for (n = strlen(p); n < lens[i]; n++)
			p[n] = n % 100 == 0 ? '/' : (char)('a' + n % 26);
		p[lens[i]] = '\0';
		if (open(p, O_RDONLY) >= 0)
			return 1;
	}
	for (n = 2; n <= 17; n++) {
		char *q = m + page - n - 1;

		memcpy(q, "/nonexistent-page-end", n);
		q[n] = '\0';
		if (open(q, O_RDONLY) >= 0)
			return 1;
	}
	munmap(m, 2 * page);
	free(p);
	return 0;
}

static int mix(const char *dir)
{
	char path[4096], mark[4096], buf[4096];
	struct stat st;
	FILE *f;
	int fd;

	snprintf(mark, sizeof(mark), "%s/begin", dir);
	stat(mark, &st);
	snprintf(path, sizeof(path), "%s/f", dir);
	memset(buf, 'a', sizeof(buf));
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0640);
	if (fd < 0)
		fail("open");
	if (pwrite(fd, buf, 4096, 0) != 4096 || write(fd, buf, 100) != 100)
		fail("write");
	lseek(fd, 10, SEEK_SET);
	fsync(fd);
	close(fd);
	fd = open(path, O_RDONLY);
	if (read(fd, buf, 4096) != 4096 || pread(fd, buf, 50, 4000) != 50)
		fail("read");
	close(fd);
	if (open("/nonexistent/x", O_RDONLY) >= 0)
		return 1;
	f = fopen(path, "a+");
	if (f == NULL)
		fail("fopen");
	fwrite(buf, 1, 1000, f);
	fflush(f);
	fseek(f, 0, SEEK_SET);
	if (fread(buf, 1, 500, f) != 500)
		fail("fread");
	if (ftell(f) < 0)
		fail("ftell");
	fclose(f);
	if (vectored(path, buf) != 0 || strings(path, buf) != 0)
		return 1;
	snprintf(mark, sizeof(mark), "%s/g", dir);
	if (rename(path, mark) != 0)
		fail("rename");
	stat(mark, &st);
	unlink(mark);
	if (long_paths() != 0)
		return 1;
	snprintf(mark, sizeof(mark), "%s/end", dir);
	stat(mark, &st);
	return 0;
}

static int names(const char *dir, size_t n)
{
	char path[4096], mark[4096], buf[4096], line[64];
	struct iovec iov = { buf, n };
	size_t got;
	struct stat st;
	/* Flags the compiler cannot know (so open goes through __open_2). */
	int fd, flags = dir[0] == '\0' ? O_RDWR : O_RDONLY;
	FILE *f;

	snprintf(mark, sizeof(mark), "%s/begin", dir);
	stat(mark, &st);
	snprintf(path, sizeof(path), "%s/f", dir);
	memset(buf, 'n', sizeof(buf));
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0640);
	if (fd < 0 || pwritev2(fd, &iov, 1, 0, 0) != (ssize_t)n)
		fail("pwritev2");
	close(fd);
	fd = open(path, flags);
	if (fd < 0 || read(fd, buf, n) != (ssize_t)n ||
	    pread(fd, buf, n, 0) != (ssize_t)n ||
	    preadv2(fd, &iov, 1, 0, 0) != (ssize_t)n ||
	    lseek(fd, 0, SEEK_END) != (off_t)n || fcntl(fd, F_GETFL) < 0)
		fail("read");
	close(fd);
	fd = openat(AT_FDCWD, path, flags);
	if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size != n)
		fail("openat");
	close(fd);
	f = fopen(path, "r+");
	if (f == NULL || fseeko(f, 10, SEEK_SET) != 0 || ftello(f) != 10)
		fail("fseeko");
	/* The buffers' sizes are known, the counts are not: fread and
	 * fgets go through __fread_chk and __fgets_chk. */
	if (fprintf(f, "<%zu>\n", n) < 0 || fseeko(f, 0, SEEK_SET) != 0 ||
	    fread(buf, 1, n, f) != n || fseeko(f, 10, SEEK_SET) != 0 ||
	    fgets(line, (int)(n < 40 ? n : 40), f) == NULL ||
	    fseeko(f, 10, SEEK_SET) != 0 ||
	    fscanf(f, "<%zu>", &got) != 1 || got != n)
		fail("fprintf");
	fclose(f);
	snprintf(path, sizeof(path), "%s/v", dir);
	f = fopen(path, "w");
	if (f == NULL || vput(f, "<%zu>\n", n) < 0)
		fail("vfprintf");
	fclose(f);
	snprintf(mark, sizeof(mark), "%s/end", dir);
	stat(mark, &st);
	return 0;
}

static void *thread_main(void *arg)
{
	writes((long)arg);
	return NULL;
}

static int threads(int t, long n)
{
	pthread_t th[64];
	int i;

	for (i = 0; i < t && i < 64; i++)
		if (pthread_create(&th[i], NULL, thread_main, (void *)n) != 0)
			fail("pthread_create");
	for (i = 0; i < t && i < 64; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/* Threads that all live until all have written. */
struct crowd {
	pthread_barrier_t all_in, all_done;
	long n;
};

static void *crowd_main(void *arg)
{
	struct crowd *c = arg;

	pthread_barrier_wait(&c->all_in);
	writes(c->n);
	pthread_barrier_wait(&c->all_done);
	return NULL;
}

static int crowd(int t, long n)
{
	struct crowd c = { .n = n };
	pthread_attr_t attr;
	pthread_t th[1024];
	int i;

	if (t < 1 || t > 1024)
		return 2;
	pthread_barrier_init(&c.all_in, NULL, (unsigned)t);
	pthread_barrier_init(&c.all_done, NULL, (unsigned)t);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < t; i++)
		if (pthread_create(&th[i], &attr, crowd_main, &c) != 0)
			fail("pthread_create");
	for (i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static int forked(long n, long m)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		writes(m);
		_exit(0);
	}
	writes(n);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return 1;
	return 0;
}

/* ---- a hostile client ---- */


/* Append one record to slot s: raw bytes, whatever they say. */
static void put(struct dc_fast_slot *s, unsigned char *data, __u64 cap,
		const void *rec, __u64 size)
{
	memcpy(data + (s->head & (cap - 1)), rec, size);
	__atomic_store_n(&s->head, s->head + size, __ATOMIC_RELEASE);
}

/* Connect to the collector's socket and say hello, as libdcclient.so
 * does; the socket, with the configuration it sent in *cfg and the
 * call-state map passed with it in *states (-1: none). */
static int hello(struct dc_fast_config *cfg, int *states)
{
	const char *name = getenv(DC_FAST_ENV);
	struct sockaddr_un a;
	struct dc_fast_hello h = { DC_FAST_MAGIC, DC_FAST_VERSION, DC_FAST_NFUNCS, 0, 0 };
	int sock;

	if (name == NULL)
		fail("no DC_FAST_SOCKET");
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	strncpy(a.sun_path, name, sizeof(a.sun_path) - 1);
	a.sun_path[0] = '\0';
	sock = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (connect(sock, (struct sockaddr *)&a,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name))) != 0)
		fail("connect");
	if (send(sock, &h, sizeof(h), 0) != sizeof(h) ||
	    dc_recv_fd(sock, cfg, sizeof(*cfg), states) <= 0)
		fail("hello");
	return sock;
}

/* What the collector tells its clients about full rings. */
static int config(void)
{
	struct dc_fast_config cfg;
	int states, sock = hello(&cfg, &states);

	if (states >= 0)
		close(states);
	printf("full_wait_ms=%u\n", (unsigned)cfg.full_wait_ms);
	close(sock);
	return 0;
}

/* Every entry of the call-state map claimed by a thread of some other
 * process (tids 1 up) or by this one, with a depth past any limit and an
 * innermost call that is no call of ours: its own system calls are all
 * it can disturb.  0, or -1 if it cannot be mapped. */
static int garble_states(int fd)
{
	size_t bytes = ((DC_CLIENT_SLOTS + 1) * sizeof(struct dc_client_state) +
			4095) & ~(size_t)4095;
	struct dc_client_state *st;
	__u32 i, me = (__u32)getpid();

	st = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (st == MAP_FAILED)
		return -1;
	for (i = 0; i <= DC_CLIENT_SLOTS; i++) {
		st[i].owner = i + 1;
		st[i].k.cur = ~0ULL - i;
		st[i].k.depth = ~0U;
	}
	st[0].overflow = 0;
	st[1 + (me & (DC_CLIENT_SLOTS - 1))].owner = me;
	return 0;
}

static int hostile(long n)
{
	struct dc_fast_config cfg;
	struct dc_fast_ready r = { DC_FAST_MAGIC, 1, 0, 0 };
	unsigned char rec[256], *map, *data;
	struct dc_fast_slot *s0, *s1;
	struct dc_event *ev = (struct dc_event *)rec;
	int states, sock = hello(&cfg, &states), fd;
	__u64 bytes;
	long i;

	bytes = dc_fast_map_bytes(cfg.nslots, cfg.slot_bytes);
	fd = memfd_create("hostile", MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0)
		fail("memfd");
	map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		fail("mmap");
	r.state = states >= 0 && garble_states(states) == 0;
	if (dc_send_fd(sock, &r, sizeof(r), fd) != 0 || recv(sock, &r, sizeof(r), 0) <= 0)
		fail("ring");
	s0 = (struct dc_fast_slot *)(map + DC_FAST_HDR_BYTES);
	s1 = (struct dc_fast_slot *)(map + DC_FAST_HDR_BYTES + DC_FAST_SLOT_HDR_BYTES);
	data = map + dc_fast_data_offset(cfg.nslots);
	if (!cfg.funcs[DC_FN_write].on)
		fail("write is not recorded");
	/* Valid write records, but claiming to be process 1. */
	for (i = 0; i < n; i++) {
		memset(rec, 0, sizeof(rec));
		ev->size = DC_EVENT_HDR_SIZE + 8 * cfg.funcs[DC_FN_write].nargs;
		ev->type = DC_EV_CALL;
		ev->probe_id = cfg.funcs[DC_FN_write].probe_id;
		ev->pid = 1;
		ev->tid = 1;
		ev->nargs = cfg.funcs[DC_FN_write].nargs;
		ev->ret = 1;
		DC_EVENT_ARGS(ev)[0] = 1;
		DC_EVENT_ARGS(ev)[2] = 1;
		put(s0, data, cfg.slot_bytes, rec, ev->size);
	}
	/* Garbage: a syscall probe id, a wrong type, a string past its
	 * record, an argument count past the limit. */
	memset(rec, 0, sizeof(rec));
	ev->size = DC_EVENT_HDR_SIZE + 8 * 3;
	ev->type = DC_EV_CALL;
	ev->probe_id = cfg.funcs[DC_FN_write].probe_id + 100000;
	put(s0, data, cfg.slot_bytes, rec, ev->size);
	ev->probe_id = cfg.funcs[DC_FN_write].probe_id;
	ev->type = DC_EV_FORK;
	put(s0, data, cfg.slot_bytes, rec, ev->size);
	ev->type = DC_EV_CALL;
	ev->str_len = 60000;
	put(s0, data, cfg.slot_bytes, rec, ev->size);
	ev->str_len = 0;
	ev->nargs = 200;
	put(s0, data, cfg.slot_bytes, rec, ev->size);
	/* A size of zero in slot 1, a head far past the ring in slot 2. */
	memset(rec, 0, sizeof(rec));
	put(s1, data + cfg.slot_bytes, cfg.slot_bytes, rec, 64);
	((struct dc_fast_slot *)(map + DC_FAST_HDR_BYTES +
				 2 * DC_FAST_SLOT_HDR_BYTES))->head = ~0ULL - 7;
	return 0;
}

static int gate(const char *dir, long n)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/ready", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		fail(path);
	close(fd);
	snprintf(path, sizeof(path), "%s/go", dir);
	while (access(path, F_OK) != 0)
		usleep(10000);
	writes(n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "mix") == 0)
		return mix(argv[2]);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "names") == 0) {
		/* A gate first: a process that will not load the client
		 * gets its uprobes after its exec, then opens it. */
		while (argc == 5 && access(argv[4], F_OK) != 0)
			usleep(10000);
		return names(argv[2], (size_t)atol(argv[3]));
	}
	if (argc == 3 && strcmp(argv[1], "kill") == 0) {
		writes(atol(argv[2]));
		kill(getpid(), SIGKILL);
		return 1;
	}
	if (argc == 4 && strcmp(argv[1], "threads") == 0)
		return threads(atoi(argv[2]), atol(argv[3]));
	if (argc == 4 && strcmp(argv[1], "crowd") == 0)
		return crowd(atoi(argv[2]), atol(argv[3]));
	if (argc == 4 && strcmp(argv[1], "fork") == 0)
		return forked(atol(argv[2]), atol(argv[3]));
	if (argc == 4 && strcmp(argv[1], "gate") == 0)
		return gate(argv[2], atol(argv[3]));
	if (argc == 2 && strcmp(argv[1], "config") == 0)
		return config();
	if (argc == 3 && strcmp(argv[1], "hostile") == 0)
		return hostile(atol(argv[2]));
	fprintf(stderr, "usage: see the header of t/helpers/fastclient.c\n");
	return 2;
}

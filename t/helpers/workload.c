/*
 * workload - small, exact I/O workloads for the collector's tests.  Each
 * mode issues a known number of calls so tests can assert exact counts.
 *
 *   workload fsync FILE N          N x (write 1 byte + fsync)
 *   workload vec FILE N            N x writev of 3 iovecs (1000 + 2000 +
 *                                  1096 bytes), then N x readv of 2
 *                                  (2048 + 2048), all through syscall(2)
 *   workload writes N [FILE]       N x write(fd, buf, 1) (default /dev/null)
 *   workload syswrites N [FILE]    the same through syscall(2): no libc
 *                                  write() (which others may uprobe)
 *   workload read FILE             read FILE to the end in 64 KiB reads
 *   workload stdout N              N x fwrite of 1 byte to stdout, then
 *                                  fclose(stdout): a FILE the program
 *                                  did not open
 *   workload tree DIR N            4 threads and 2 forked children; each
 *                                  of the 6 writes N x 4 KiB to its own
 *                                  file DIR/t0..t3, DIR/c0..c1
 *   workload reopen DIR N          4 threads, each N x (open its own file
 *                                  DIR/r0..r3 to append, write 4 KiB,
 *                                  close): the fds come and go, one
 *                                  thread's reused by another's open
 *   workload recurse DEPTH         dc_test_recurse(DEPTH) recursing to 0
 *   workload tcp N                 loopback TCP: listen, connect, accept,
 *                                  N x send/recv 1000 bytes, close
 *   workload udpdrop N [OUT]       N UDP datagrams to a closed loopback port;
 *                                  OUT gets "ksoftirqd K": how many times
 *                                  the ksoftirqd threads were switched
 *                                  in while they were sent
 *   workload fds OUT               descriptors that are not files, each
 *                                  with known bytes: a pipe (1000 bytes
 *                                  written, read back), a socketpair
 *                                  (2000 sent from one to the other), an
 *                                  eventfd (one 8-byte write), a memfd
 *                                  "dc-test" (300 written), a loopback
 *                                  TCP connection (socket, connect,
 *                                  accept; 4000 bytes); OUT gets each
 *                                  one's descriptors and what /proc calls
 *                                  it: "pipe 3 4 pipe:[123]"
 *   workload spin SECONDS FILE     append a line to FILE every 10 ms
 *   workload slow SECONDS FILE     dc_test_slow(): write 1 byte to FILE,
 *                                  sleep SECONDS, write 1 more, in one
 *                                  call of a user function
 *   workload sigwrites N OUT       N x write 1 byte to /dev/null while
 *                                  SIGALRM comes every 200 us, whose
 *                                  handler writes 1 byte to another
 *                                  /dev/null descriptor; OUT gets
 *                                  "main FD N handler FD M"
 *   workload nest T N              T threads, each N x (dc_test_nest():
 *                                  write 1 byte to /dev/null inside a
 *                                  user function; then 1 byte outside)
 */
#define _GNU_SOURCE /* memfd_create */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void fail(const char *what)
{
	fprintf(stderr, "workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* With DC_WORKLOAD_REPORT set, the loops report their own time per
 * iteration on stderr, so benchmarks measure the calls and not the
 * start-up around them. */
static struct timespec loop_t0, loop_cpu0;

static void loop_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &loop_t0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &loop_cpu0);
}

static double ns_since(const struct timespec *t0, clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (t.tv_sec - t0->tv_sec) * 1e9 + (t.tv_nsec - t0->tv_nsec);
}

/* Wall time per iteration, and the thread's CPU time per iteration: the
 * kernel charges BPF programs on its system calls to it, and the CPU
 * time does not count time spent waiting for a CPU on a loaded machine. */
static void loop_end(long n)
{
	double cpu, wall;

	if (getenv("DC_WORKLOAD_REPORT") == NULL || n <= 0)
		return;
	cpu = ns_since(&loop_cpu0, CLOCK_THREAD_CPUTIME_ID);
	wall = ns_since(&loop_t0, CLOCK_MONOTONIC);
	fprintf(stderr, "ns_per_iteration=%.1f cpu_ns_per_iteration=%.1f\n",
		wall / n, cpu / n);
}

static int do_fsync(const char *path, long n)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	long i;

	if (fd < 0)
		fail(path);
	loop_start();
	for (i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1 || fsync(fd) != 0)
			fail("write/fsync");
	loop_end(n);
	return close(fd);
}

static int do_vec(const char *path, long n)
{
	static char buf[4096];
	struct iovec w[3] = { { buf, 1000 }, { buf + 1000, 2000 },
			      { buf + 3000, 1096 } };
	struct iovec r[2] = { { buf, 2048 }, { buf + 2048, 2048 } };
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	long i;

	if (fd < 0)
		fail(path);
	loop_start();
	for (i = 0; i < n; i++)
		if (syscall(SYS_writev, fd, w, 3) != 4096)
			fail("writev");
	if (lseek(fd, 0, SEEK_SET) != 0)
		fail("lseek");
	for (i = 0; i < n; i++)
		if (syscall(SYS_readv, fd, r, 2) != 4096)
			fail("readv");
	loop_end(2 * n);
	return close(fd);
}

/* N one-byte writes to PATH, through libc's write() or, RAW, through
 * syscall(2); each loop as lean as the other (benchmarks time them). */
static int do_writes(long n, const char *path, int raw)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	long i;

	if (fd < 0)
		fail(path);
	loop_start();
	if (raw) {
		for (i = 0; i < n; i++)
			if (syscall(SYS_write, fd, "x", 1) != 1)
				fail("write");
	} else {
		for (i = 0; i < n; i++)
			if (write(fd, "x", 1) != 1)
				fail("write");
	}
	loop_end(n);
	return close(fd);
}

static int do_read(const char *path)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t r;
	long n = 0;

	if (fd < 0)
		fail(path);
	loop_start();
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		n++;
	if (r < 0)
		fail("read");
	loop_end(n);
	return close(fd);
}

static int do_stdout(long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (fwrite("x", 1, 1, stdout) != 1)
			fail("fwrite");
	return fclose(stdout) == 0 ? 0 : 1;
}

struct writer {
	char path[4096];
	long n;
	pthread_barrier_t *start;   /* all the writers' */
};

/* Write 4 KiB n times to fd, close it. */
static void write_n(int fd, long n)
{
	static __thread char buf[4096];
	long i;

	for (i = 0; i < n; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			fail("write");
	close(fd);
}

/* Open path for writing with flags (O_TRUNC or O_APPEND), write 4 KiB n
 * times, close. */
static void write_file(const char *path, int flags, long n)
{
	int fd = open(path, O_CREAT | O_WRONLY | flags, 0644);

	if (fd < 0)
		fail(path);
	write_n(fd, n);
}

/* The writers all have their file open before any of them writes: each
 * has made a call (and taken a ring, where there is one for it) while
 * the others are alive, none ended yet. */
static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	int fd = open(w->path, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	if (fd < 0)
		fail(w->path);
	pthread_barrier_wait(w->start);
	write_n(fd, w->n);
	return NULL;
}

/* n times: open path to append, write 4 KiB, close. */
static void *reopen_thread(void *arg)
{
	struct writer *w = arg;
	long i;

	for (i = 0; i < w->n; i++)
		write_file(w->path, O_APPEND, 1);
	return NULL;
}

/* 4 threads running fn, each on its own file DIR/<name>0..3, n each. */
static void run_writers(const char *dir, char name, long n,
			void *(*fn)(void *))
{
	struct writer w[4];
	pthread_barrier_t start;
	pthread_t th[4];
	int i;

	if (pthread_barrier_init(&start, NULL, 4) != 0)
		fail("pthread_barrier_init");
	for (i = 0; i < 4; i++) {
		snprintf(w[i].path, sizeof(w[i].path), "%s/%c%d", dir, name, i);
		w[i].n = n;
		w[i].start = &start;
		if (pthread_create(&th[i], NULL, fn, &w[i]) != 0)
			fail("pthread_create");
	}
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
}

static int do_tree(const char *dir, long n)
{
	pid_t kids[2];
	int i, status, bad = 0;

	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			fail("fork");
		if (kids[i] == 0) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/c%d", dir, i);
			write_file(path, O_TRUNC, n);
			_exit(0);
		}
	}
	run_writers(dir, 't', n, writer_thread);
	for (i = 0; i < 2; i++)
		if (waitpid(kids[i], &status, 0) != kids[i] || status != 0)
			bad = 1;
	return bad;
}

/* Not inlined, not a tail call: each level is a real call and return. */
__attribute__((noinline)) int dc_test_recurse(int n)
{
	int r;

	if (n <= 0)
		return 0;
	r = dc_test_recurse(n - 1);
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

static int do_tcp(long n)
{
	struct sockaddr_in addr;
	socklen_t len = sizeof(addr);
	char buf[1000];
	int ls, cs, as;
	long i;

	memset(buf, 'n', sizeof(buf));
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
	    listen(ls, 1) != 0 ||
	    getsockname(ls, (struct sockaddr *)&addr, &len) != 0)
		fail("listen");
	cs = socket(AF_INET, SOCK_STREAM, 0);
	if (cs < 0 || connect(cs, (struct sockaddr *)&addr, sizeof(addr)) != 0)
		fail("connect");
	as = accept(ls, NULL, NULL);
	if (as < 0)
		fail("accept");
	for (i = 0; i < n; i++) {
		size_t got = 0;

		if (send(cs, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
			fail("send");
		while (got < sizeof(buf)) {
			ssize_t r = recv(as, buf + got, sizeof(buf) - got, 0);

			if (r <= 0)
				fail("recv");
			got += (size_t)r;
		}
	}
	close(cs);
	close(as);
	return close(ls);
}

/* Write n bytes to fd with send (a socket) or write, and read them all
 * back from rfd with recv or read (rfd < 0: none). */
static void through(int fd, int rfd, size_t n, int sock)
{
	char buf[4000];
	size_t got = 0;

	memset(buf, 'f', sizeof(buf));
	if ((sock ? send(fd, buf, n, 0) : write(fd, buf, n)) != (ssize_t)n)
		fail("write");
	while (rfd >= 0 && got < n) {
		ssize_t r = sock ? recv(rfd, buf, n - got, 0)
				 : read(rfd, buf, n - got);

		if (r <= 0)
			fail("read");
		got += (size_t)r;
	}
}

/* One line of OUT: what, its descriptors, what /proc calls the first. */
static void name_line(FILE *out, const char *what, int fd, int fd2)
{
	char path[64], name[512];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, name, sizeof(name) - 1);
	if (n < 0)
		fail("readlink");
	name[n] = '\0';
	fprintf(out, "%s %d %d %s\n", what, fd, fd2, name);
}

static int do_fds(const char *path)
{
	struct sockaddr_in addr;
	socklen_t len = sizeof(addr);
	uint64_t one = 1;
	int p[2], sv[2], ev, mfd, ls, cs, as;
	FILE *out;

	if (pipe(p) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		fail("pipe");
	through(p[1], p[0], 1000, 0);
	through(sv[0], sv[1], 2000, 1);
	ev = eventfd(0, 0);
	if (ev < 0 || write(ev, &one, sizeof(one)) != (ssize_t)sizeof(one))
		fail("eventfd");
	mfd = memfd_create("dc-test", 0);
	if (mfd < 0)
		fail("memfd_create");
	through(mfd, -1, 300, 0);
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	cs = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || cs < 0 ||
	    bind(ls, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
	    listen(ls, 1) != 0 ||
	    getsockname(ls, (struct sockaddr *)&addr, &len) != 0 ||
	    connect(cs, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
	    (as = accept(ls, NULL, NULL)) < 0)
		fail("connect");
	through(cs, as, 4000, 1);
	out = fopen(path, "w");
	if (out == NULL)
		fail(path);
	name_line(out, "pipe", p[0], p[1]);
	name_line(out, "socketpair", sv[0], sv[1]);
	name_line(out, "socketpair2", sv[1], sv[0]);
	name_line(out, "eventfd", ev, ev);
	name_line(out, "memfd", mfd, mfd);
	name_line(out, "listen", ls, ls);
	name_line(out, "client", cs, cs);
	name_line(out, "accepted", as, as);
	return fclose(out) != 0;
}

/* How many times the ksoftirqd threads have been switched in (their
 * context switches, /proc/PID/status).  Under load the kernel
 * leaves softirq work to them, and on older kernels (6.1) one that runs
 * takes even the loopback packets a task's own send would have handled. */
static long ksoftirqd_switches(void)
{
	char path[300], line[128];
	long total = 0, v;
	struct dirent *d;
	DIR *proc;
	FILE *f;

	if ((proc = opendir("/proc")) == NULL)
		fail("/proc");
	while ((d = readdir(proc)) != NULL) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", d->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(line, sizeof(line), f) != NULL &&
		    strncmp(line, "Name:\tksoftirqd/", 16) == 0)
			while (fgets(line, sizeof(line), f) != NULL)
				if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
				    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
					total += v;
		fclose(f);
	}
	closedir(proc);
	return total;
}

/* N UDP datagrams to a loopback port nobody listens on: each one is
 * dropped by the kernel (no socket), in this task's context unless a
 * ksoftirqd thread takes the work (counted into OUT, if given). */
static int do_udpdrop(long n, const char *out)
{
	struct sockaddr_in addr;
	socklen_t len = sizeof(addr);
	long i, before = 0;
	int s, probe;
	FILE *f;

	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* A port that was free a moment ago, now closed again. */
	probe = socket(AF_INET, SOCK_DGRAM, 0);
	if (probe < 0 || bind(probe, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
	    getsockname(probe, (struct sockaddr *)&addr, &len) != 0)
		fail("bind");
	close(probe);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		fail("socket");
	if (out != NULL)
		before = ksoftirqd_switches();
	for (i = 0; i < n; i++)
		if (sendto(s, "drop", 4, 0, (struct sockaddr *)&addr, sizeof(addr)) != 4)
			fail("sendto");
	if (close(s) != 0)
		fail("close");
	if (out != NULL) {
		if ((f = fopen(out, "w")) == NULL)
			fail(out);
		fprintf(f, "ksoftirqd %ld\n", ksoftirqd_switches() - before);
		if (fclose(f) != 0)
			fail(out);
	}
	return 0;
}

static int sig_fd;
static volatile sig_atomic_t sig_writes;

static void on_alarm(int sig)
{
	int saved = errno;

	(void)sig;
	if (write(sig_fd, "h", 1) == 1)
		sig_writes++;
	errno = saved;
}

/* A signal handler's calls among the program's: each one lands
 * anywhere in a call of the main loop, its wrapper or the library's
 * record of it. */
static int do_sigwrites(long n, const char *out)
{
	struct itimerval every = { { 0, 200 }, { 0, 200 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa;
	long i, done = 0;
	int fd;
	FILE *f;

	if ((fd = open("/dev/null", O_WRONLY)) < 0 ||
	    (sig_fd = open("/dev/null", O_WRONLY)) < 0)
		fail("/dev/null");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGALRM, &sa, NULL) != 0 ||
	    setitimer(ITIMER_REAL, &every, NULL) != 0)
		fail("setitimer");
	for (i = 0; i < n; i++)
		if (write(fd, "m", 1) == 1)
			done++;
	if (setitimer(ITIMER_REAL, &off, NULL) != 0)
		fail("setitimer");
	if ((f = fopen(out, "w")) == NULL)
		fail(out);
	fprintf(f, "main %d %ld handler %d %d\n", fd, done, sig_fd,
		(int)sig_writes);
	return fclose(f) != 0;
}

static int do_spin(double seconds, const char *path)
{
	struct timespec t0, t;
	struct timespec ten_ms = { 0, 10000000 };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd < 0 || write(fd, "spin\n", 5) != 5)
			fail(path);
		close(fd);
		nanosleep(&ten_ms, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	return 0;
}

/* One long user-level call with system calls inside, at its start and
 * after a long sleep. */
__attribute__((noinline)) int dc_test_slow(const char *path, int seconds)
{
	struct timespec t = { seconds, 0 };
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, "a", 1) != 1)
		fail(path);
	while (nanosleep(&t, &t) != 0)
		;
	if (write(fd, "b", 1) != 1)
		fail(path);
	return close(fd);
}

/* One write inside a user function, for calls recorded by the client
 * library under a uprobe-traced one. */
__attribute__((noinline)) int dc_test_nest(int fd)
{
	int r = (int)write(fd, "i", 1);

	__asm__ volatile("" : "+r"(r));
	return r;
}

static void *nest_thread(void *arg)
{
	long i, n = *(const long *)arg;
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0)
		fail("open");
	for (i = 0; i < n; i++)
		if (dc_test_nest(fd) != 1 || write(fd, "o", 1) != 1)
			fail("write");
	close(fd);
	return NULL;
}

static int do_nest(int nthreads, long n)
{
	pthread_t th[64];
	int i;

	if (nthreads < 1 || nthreads > 64)
		return 2;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, nest_thread, &n) != 0)
			fail("pthread_create");
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (strcmp(mode, "fsync") == 0 && argc == 4)
		return do_fsync(argv[2], atol(argv[3]));
	if (strcmp(mode, "vec") == 0 && argc == 4)
		return do_vec(argv[2], atol(argv[3]));
	if ((strcmp(mode, "writes") == 0 || strcmp(mode, "syswrites") == 0) &&
	    (argc == 3 || argc == 4))
		return do_writes(atol(argv[2]), argc == 4 ? argv[3] : "/dev/null",
				 mode[0] == 's');
	if (strcmp(mode, "read") == 0 && argc == 3)
		return do_read(argv[2]);
	if (strcmp(mode, "stdout") == 0 && argc == 3)
		return do_stdout(atol(argv[2]));
	if (strcmp(mode, "tree") == 0 && argc == 4)
		return do_tree(argv[2], atol(argv[3]));
	if (strcmp(mode, "reopen") == 0 && argc == 4) {
		run_writers(argv[2], 'r', atol(argv[3]), reopen_thread);
		return 0;
	}
	if (strcmp(mode, "recurse") == 0 && argc == 3)
		return dc_test_recurse(atoi(argv[2])) == atoi(argv[2]) ? 0 : 1;
	if (strcmp(mode, "tcp") == 0 && argc == 3)
		return do_tcp(atol(argv[2]));
	if (strcmp(mode, "udpdrop") == 0 && (argc == 3 || argc == 4))
		return do_udpdrop(atol(argv[2]), argc == 4 ? argv[3] : NULL);
	if (strcmp(mode, "fds") == 0 && argc == 3)
		return do_fds(argv[2]);
	if (strcmp(mode, "spin") == 0 && argc == 4)
		return do_spin(atof(argv[2]), argv[3]);
	if (strcmp(mode, "slow") == 0 && argc == 4)
		return dc_test_slow(argv[3], atoi(argv[2])) == 0 ? 0 : 1;
	if (strcmp(mode, "sigwrites") == 0 && argc == 4)
		return do_sigwrites(atol(argv[2]), argv[3]);
	if (strcmp(mode, "nest") == 0 && argc == 4)
		return do_nest(atoi(argv[2]), atol(argv[3]));
	fprintf(stderr, "usage: see the header of t/helpers/workload.c\n");
	return 2;
}

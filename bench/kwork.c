/*
 * kwork.c - workloads that make many block, page cache and fault events,
 * for bench/kernel-bench.sh, and what they cost the whole CPU they run
 * on.  Each loop reports on stderr its wall time per iteration
 * (ns_per_iteration=), its thread's CPU time (cpu_ns_per_iteration=),
 * and with KWORK_CPU=C the CPU time everything took on CPU C while it
 * ran (host_ns_per_iteration=).
 *
 *   kwork dread FILE N    N x pread(2) of 4 KiB with O_DIRECT, one page
 *                         after the other (from the start again at the
 *                         end of FILE): a bio and a request a read
 *   kwork rread FILE N    N x pread(2) of 4 KiB of FILE, dropped from
 *                         the page cache first, with POSIX_FADV_RANDOM
 *                         (no readahead): a page, a bio and a request
 *                         a read
 *   kwork mtouch FILE N   FILE mapped (dropped from the cache first,
 *                         MADV_RANDOM) and its first N pages read a
 *                         byte each: a fault, a page, a bio and a
 *                         request a page
 *
 * Each loop is preceded by KWORK_WARM (1024) iterations of its own,
 * untimed, on the last pages of FILE: the first I/O after a pause costs
 * more (the loop device's worker, caches), and the loop measures the
 * steady state.  FILE must hold N + KWORK_WARM pages (dread wraps).
 *
 * Why a soaker: a block request's completion, and the loop device's
 * work, run in a kernel worker or an interrupt, not in the thread that
 * asked for them, so that thread's CPU time misses them, and a kernel
 * without CONFIG_IRQ_TIME_ACCOUNTING charges an interrupt to whichever
 * task it interrupted.  With KWORK_CPU=C the workload runs on CPU C
 * beside a thread of lowest priority (SCHED_IDLE) that reads the clock
 * in a loop: any gap between two of its readings longer than
 * KWORK_GAP_NS (200) is time something else had the CPU, whatever it
 * was (the workload, a kernel worker, an interrupt, a BPF program).
 * The sum of the gaps over the loop is what ran on C.  The caller puts
 * the rest (the collector, other work) on other CPUs, and the kernel's
 * unbound workers on C.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096

/* The soaker's account, published as one of two copies so that the
 * thread reading it (on the same CPU: the soaker is not running then)
 * never sees a half-written one. */
struct soak {
	struct { uint64_t gaps, last; } copy[2];
	atomic_uint cur;         /* the copy to read */
	atomic_bool stop;
	uint64_t gap_ns;         /* shorter is the soaker's own loop */
	pthread_t thread;
	int on;
};

static void die(const char *what)
{
	fprintf(stderr, "kwork: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void *soak_loop(void *arg)
{
	struct soak *s = arg;
	struct sched_param none = { 0 };
	uint64_t gaps = 0, last = now_ns(CLOCK_MONOTONIC), t;
	unsigned int i = 0;

	if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &none) != 0)
		fprintf(stderr, "kwork: the soaker keeps its priority\n");
	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		t = now_ns(CLOCK_MONOTONIC);
		if (t - last > s->gap_ns)
			gaps += t - last;
		last = t;
		i ^= 1;
		s->copy[i].gaps = gaps;
		s->copy[i].last = last;
		atomic_store_explicit(&s->cur, i, memory_order_release);
	}
	return NULL;
}

/* The time others had the soaker's CPU, up to now: the gaps it saw, and
 * the one still open (the caller runs on that CPU, so it is not). */
static uint64_t soak_taken(struct soak *s)
{
	unsigned int i = atomic_load_explicit(&s->cur, memory_order_acquire);

	return s->copy[i].gaps + (now_ns(CLOCK_MONOTONIC) - s->copy[i].last);
}

/* KWORK_CPU=C: this thread and a soaker on CPU C. */
static void soak_start(struct soak *s)
{
	const char *cpu = getenv("KWORK_CPU"), *gap = getenv("KWORK_GAP_NS");
	cpu_set_t set;

	memset(s, 0, sizeof(*s));
	if (cpu == NULL || *cpu == '\0')
		return;
	s->gap_ns = gap ? strtoull(gap, NULL, 10) : 200;
	CPU_ZERO(&set);
	CPU_SET(atoi(cpu), &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		die("KWORK_CPU");
	s->copy[0].last = now_ns(CLOCK_MONOTONIC);
	errno = pthread_create(&s->thread, NULL, soak_loop, s);
	if (errno != 0)
		die("soaker");
	s->on = 1;
	usleep(20000); /* let it run: its first readings */
}

static void soak_stop(struct soak *s)
{
	if (!s->on)
		return;
	atomic_store(&s->stop, 1);
	pthread_join(s->thread, NULL);
}

struct loop {
	uint64_t wall, cpu, host;
};

static void loop_start(struct loop *l, struct soak *s)
{
	l->host = s->on ? soak_taken(s) : 0;
	l->cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
	l->wall = now_ns(CLOCK_MONOTONIC);
}

static void loop_end(struct loop *l, struct soak *s, long n)
{
	double wall = now_ns(CLOCK_MONOTONIC) - l->wall;
	double cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - l->cpu;

	fprintf(stderr, "ns_per_iteration=%.1f cpu_ns_per_iteration=%.1f",
		wall / n, cpu / n);
	if (s->on)
		fprintf(stderr, " host_ns_per_iteration=%.1f",
			(double)(soak_taken(s) - l->host) / n);
	fputc('\n', stderr);
}

/* FILE opened with flags, its size in pages (at least n unless wrap),
 * dropped from the page cache unless direct. */
static int open_pages(const char *path, int flags, long n, int wrap,
		      long *pages)
{
	struct stat st;
	int fd = open(path, flags);

	if (fd < 0 || fstat(fd, &st) != 0)
		die(path);
	*pages = st.st_size / PAGE;
	if (*pages == 0 || (!wrap && *pages < n)) {
		fprintf(stderr, "kwork: %s: %ld pages, %ld asked for\n",
			path, *pages, n);
		exit(1);
	}
	if (!(flags & O_DIRECT) &&
	    (errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) != 0)
		die("POSIX_FADV_DONTNEED");
	return fd;
}

static long warm_count(void)
{
	const char *w = getenv("KWORK_WARM");

	return w ? atol(w) : 1024;
}

/* n 4 KiB reads of fd from page first (direct ones wrap at pages). */
static void read_pages(int fd, void *buf, long first, long n, long pages)
{
	long i;

	for (i = 0; i < n; i++)
		if (pread(fd, buf, PAGE, ((first + i) % pages) * PAGE) != PAGE)
			die("pread");
}

/* N 4 KiB reads of FILE from its start, after the warm-up ones at its
 * end: direct ones wrap, the others' must fit in it. */
static void reads(const char *path, long n, int direct, struct soak *s)
{
	long pages, warm = warm_count();
	struct loop l;
	void *buf;
	int fd = open_pages(path, O_RDONLY | (direct ? O_DIRECT : 0),
			    n + warm, direct, &pages);

	if (posix_memalign(&buf, PAGE, PAGE) != 0)
		die("buffer");
	if (!direct &&
	    (errno = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM)) != 0)
		die("POSIX_FADV_RANDOM");
	read_pages(fd, buf, pages - warm, warm, pages);
	loop_start(&l, s);
	read_pages(fd, buf, 0, n, pages);
	loop_end(&l, s, n);
	free(buf);
	close(fd);
}

static void mtouch(const char *path, long n, struct soak *s)
{
	long pages, warm = warm_count(), i;
	unsigned sum = 0;
	struct loop l;
	volatile const char *m;
	int fd = open_pages(path, O_RDONLY, n + warm, 0, &pages);

	m = mmap(NULL, (size_t)pages * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		die("mmap");
	if (madvise((void *)m, (size_t)pages * PAGE, MADV_RANDOM) != 0)
		die("MADV_RANDOM");
	for (i = pages - warm; i < pages; i++)
		sum += m[i * PAGE];
	loop_start(&l, s);
	for (i = 0; i < n; i++)
		sum += m[i * PAGE];
	loop_end(&l, s, n);
	munmap((void *)m, (size_t)pages * PAGE);
	close(fd);
	if (sum == 1) /* keep the loads */
		fputc('\n', stdout);
}

int main(int argc, char **argv)
{
	struct soak s;
	long n;

	if (argc != 4 || (n = atol(argv[3])) <= 0) {
		fprintf(stderr, "usage: kwork dread|rread|mtouch FILE N\n");
		return 2;
	}
	soak_start(&s);
	if (strcmp(argv[1], "dread") == 0)
		reads(argv[2], n, 1, &s);
	else if (strcmp(argv[1], "rread") == 0)
		reads(argv[2], n, 0, &s);
	else if (strcmp(argv[1], "mtouch") == 0)
		mtouch(argv[2], n, &s);
	else {
		fprintf(stderr, "kwork: unknown workload %s\n", argv[1]);
		return 2;
	}
	soak_stop(&s);
	return 0;
}

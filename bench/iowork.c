/*
 * iowork.c - the workloads of bench/fastpath-bench.sh; each loop reports
 * its own time per iteration on stderr (ns_per_iteration=), so start-up
 * and the collector's attach time are not in it.
 *
 *   iowork w1 N          N x write(fd, 1 byte) to /dev/null
 *   iowork w2 N FILE     N x (open + pwrite 4 KiB + close) on FILE
 *   iowork w3 N          N x fwrite 64 KiB to /dev/null
 *   iowork w4 N FILE     N x an HDF5 dataset write (4 KiB) into FILE
 *                        (built with -DWITH_HDF5)
 *   iowork w1pair N      W1 and W2 (w2pair N FILE) in blocks of 1,000
 *   iowork w2pair N FILE calls, alternating with blocks that call libc's
 *                        own functions (found with dlopen, past any
 *                        preloaded wrapper): reports the median over
 *                        block pairs of the added cost per call
 *                        (added_ns=), measured in one process in its
 *                        own CPU time, so load changes between runs
 *                        and time spent waiting for a CPU cancel out
 *   iowork nop N         N x a call to dc_nop_site, a function that
 *                        starts with a 5-byte NOP (design 2: the site a
 *                        collector would probe; 6.x kernels turn a
 *                        uprobe on it into a call, no trap)
 *   iowork trap N        N x a call to dc_trap_site, an ordinary first
 *                        instruction (a uprobe on it traps)
 *   iowork execs N PROG [clean]
 *   iowork spawns N PROG [clean]
 *                        N x fork, execve PROG (no arguments), wait:
 *                        with the environment as it is, or without
 *                        LD_PRELOAD (clean); wall time per exec, the
 *                        child's start-up included
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef WITH_HDF5
#include <hdf5.h>
#endif

/* nopl 0x0(%rax,%rax,1); ret: the 5-byte NOP the kernel optimizes. */
__asm__(".globl dc_nop_site\n"
	".type dc_nop_site, @function\n"
	"dc_nop_site:\n"
	"  .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"  ret\n"
	".size dc_nop_site, .-dc_nop_site\n");
void dc_nop_site(void);

/* push %rbp; pop %rbp; ret: an ordinary first instruction, where a
 * uprobe traps (int3) and the kernel emulates or single-steps it. */
__asm__(".globl dc_trap_site\n"
	".type dc_trap_site, @function\n"
	"dc_trap_site:\n"
	"  push %rbp\n"
	"  pop %rbp\n"
	"  ret\n"
	".size dc_trap_site, .-dc_trap_site\n");
void dc_trap_site(void);

static struct timespec t0, c0;

/* On this shared machine a process waits for a CPU much of the time:
 * wall time per call grows with the load, the process's own CPU time
 * (user + system, where a uprobe's work is charged) much less. */
static double ns_of(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

#define now_ns() ns_of(CLOCK_THREAD_CPUTIME_ID)

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define PAIR_BLOCK 1000

struct io_fns {
	int (*open)(const char *, int, ...);
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*pwrite)(int, const void *, size_t, off_t);
	int (*close)(int);
};

/* One block of the workload through fns; 0 on success. */
static int pair_block(int w2, const struct io_fns *fns, int fd,
		      const char *path, const char *buf)
{
	int i;

	for (i = 0; i < PAIR_BLOCK; i++) {
		if (!w2) {
			if (fns->write(fd, buf, 1) != 1)
				return 1;
			continue;
		}
		fd = fns->open(path, O_WRONLY | O_CREAT, 0644);
		if (fd < 0 || fns->pwrite(fd, buf, 4096, 0) != 4096)
			return 1;
		fns->close(fd);
	}
	return 0;
}

/* Blocks through the program's own symbols (preloaded wrappers, if any)
 * alternating with blocks through libc's definitions. */
static int pair(int w2, long n, const char *path, const char *buf)
{
	struct io_fns wrapped = { open, write, pwrite, close }, direct;
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	long nb = n / PAIR_BLOCK, b;
	double *d = calloc((size_t)nb + 1, sizeof(double)), sw = 0, sd = 0;
	int fd = open("/dev/null", O_WRONLY);

	if (libc == NULL || d == NULL || nb < 1 || fd < 0)
		return 1;
	direct.open = (int (*)(const char *, int, ...))dlsym(libc, "open");
	direct.write = (ssize_t (*)(int, const void *, size_t))dlsym(libc, "write");
	direct.pwrite = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(libc, "pwrite");
	direct.close = (int (*)(int))dlsym(libc, "close");
	if (!direct.open || !direct.write || !direct.pwrite || !direct.close)
		return 1;
	for (b = 0; b < nb; b++) {
		double t1, t2, t3;

		t1 = now_ns();
		if (pair_block(w2, &wrapped, fd, path, buf))
			return 1;
		t2 = now_ns();
		if (pair_block(w2, &direct, fd, path, buf))
			return 1;
		t3 = now_ns();
		d[b] = ((t2 - t1) - (t3 - t2)) / PAIR_BLOCK;
		sw += t2 - t1;
		sd += t3 - t2;
	}
	qsort(d, (size_t)nb, sizeof(double), cmp_double);
	fprintf(stderr, "ns_per_iteration=%.1f direct_ns=%.1f added_ns=%.1f\n",
		sw / (nb * PAIR_BLOCK), sd / (nb * PAIR_BLOCK), d[nb / 2]);
	free(d);
	return 0;
}

static void start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
}

static void stop(long n)
{
	struct timespec t, c;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
	clock_gettime(CLOCK_MONOTONIC, &t);
	fprintf(stderr, "ns_per_iteration=%.1f cpu_ns_per_iteration=%.1f\n",
		((t.tv_sec - t0.tv_sec) * 1e9 + (t.tv_nsec - t0.tv_nsec)) / n,
		((c.tv_sec - c0.tv_sec) * 1e9 + (c.tv_nsec - c0.tv_nsec)) / n);
}

/* n x fork + execve(prog) + wait (spawn: posix_spawn(prog) + wait),
 * with the environment less LD_PRELOAD when clean. */
static int execs(long n, const char *prog, int spawn, int clean)
{
	char *argv[] = { (char *)prog, NULL };
	int status;

	if (clean)
		unsetenv("LD_PRELOAD");
	start();
	for (long i = 0; i < n; i++) {
		pid_t pid = -1;

		if (spawn && posix_spawn(&pid, prog, NULL, NULL, argv, environ) != 0)
			return 1;
		if (!spawn && (pid = fork()) == 0) {
			execve(prog, argv, environ);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			return 1;
	}
	stop(n);
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[65536];
	long n = argc > 2 ? atol(argv[2]) : 0, i;

	if (argc < 3 || n <= 0)
		return 2;
	if (strcmp(argv[1], "nop") == 0 || strcmp(argv[1], "trap") == 0) {
		void (*site)(void) = argv[1][0] == 'n' ? dc_nop_site : dc_trap_site;

		start();
		for (i = 0; i < n; i++)
			site();
		stop(n);
		return 0;
	}
	if ((strcmp(argv[1], "execs") == 0 || strcmp(argv[1], "spawns") == 0) &&
	    (argc == 4 || argc == 5))
		return execs(n, argv[3], argv[1][0] == 's',
			     argc == 5 && strcmp(argv[4], "clean") == 0);
	if (strcmp(argv[1], "w1pair") == 0)
		return pair(0, n, NULL, buf);
	if (strcmp(argv[1], "w2pair") == 0 && argc == 4)
		return pair(1, n, argv[3], buf);
	if (strcmp(argv[1], "w1") == 0) {
		int fd = open("/dev/null", O_WRONLY);

		start();
		for (i = 0; i < n; i++)
			if (write(fd, buf, 1) != 1)
				return 1;
		stop(n);
		return 0;
	}
	if (strcmp(argv[1], "w2") == 0 && argc == 4) {
		start();
		for (i = 0; i < n; i++) {
			int fd = open(argv[3], O_WRONLY | O_CREAT, 0644);

			if (fd < 0 || pwrite(fd, buf, 4096, 0) != 4096)
				return 1;
			close(fd);
		}
		stop(n);
		return 0;
	}
	if (strcmp(argv[1], "w3") == 0) {
		FILE *f = fopen("/dev/null", "w");

		start();
		for (i = 0; i < n; i++)
			if (fwrite(buf, 1, sizeof(buf), f) != sizeof(buf))
				return 1;
		stop(n);
		fclose(f);
		return 0;
	}
#ifdef WITH_HDF5
	if (strcmp(argv[1], "w4") == 0 && argc == 4) {
		hid_t file = H5Fcreate(argv[3], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
		hsize_t dims[1] = { 1024 };
		hid_t space = H5Screate_simple(1, dims, NULL);
		char name[32];

		start();
		for (i = 0; i < n; i++) {
			hid_t d;

			snprintf(name, sizeof(name), "d%ld", i);
			d = H5Dcreate2(file, name, H5T_NATIVE_INT, space, H5P_DEFAULT,
				       H5P_DEFAULT, H5P_DEFAULT);
			if (d < 0 || H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL,
					      H5P_DEFAULT, buf) < 0)
				return 1;
			H5Dclose(d);
			H5Fflush(file, H5F_SCOPE_LOCAL);
		}
		stop(n);
		H5Sclose(space);
		H5Fclose(file);
		return 0;
	}
#endif
	return 2;
}

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
 *   iowork nop N         N x a call to dc_nop_site, a function that
 *                        starts with a 5-byte NOP (design 2: the site a
 *                        collector would probe; 6.x kernels turn a
 *                        uprobe on it into a call, no trap)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static struct timespec t0;

static void start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &t0);
}

static void stop(long n)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	fprintf(stderr, "ns_per_iteration=%.1f\n",
		((t.tv_sec - t0.tv_sec) * 1e9 + (t.tv_nsec - t0.tv_nsec)) / n);
}

int main(int argc, char **argv)
{
	static char buf[65536];
	long n = argc > 2 ? atol(argv[2]) : 0, i;

	if (argc < 3 || n <= 0)
		return 2;
	if (strcmp(argv[1], "nop") == 0) {
		start();
		for (i = 0; i < n; i++)
			dc_nop_site();
		stop(n);
		return 0;
	}
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

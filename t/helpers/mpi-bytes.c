/*
 * mpi-bytes.c - MPI-IO with exactly known bytes for t/3210: each rank
 * writes REGION = 4344 bytes at rank * REGION of mpi.out in three calls
 * (512 MPI_DOUBLEs with a status, 3 of a 10-double contiguous type
 * collectively, 2 MPI_INTs with MPI_STATUS_IGNORE), closes, reopens it
 * read-only, reads its region back as MPI_BYTEs and tries 100 bytes past
 * the end (0 read), and closes.  The file is 2 * REGION bytes for 2 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define REGION (4096 + 240 + 8)

static void check(int rc, const char *what)
{
	if (rc != MPI_SUCCESS) {
		fprintf(stderr, "mpi-bytes: %s failed\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

int main(int argc, char **argv)
{
	static double buf[1024];
	MPI_Datatype ten;
	MPI_Status st;
	MPI_File fh;
	MPI_Offset off;
	int rank, size, n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	off = (MPI_Offset)rank * REGION;
	MPI_Type_contiguous(10, MPI_DOUBLE, &ten);
	MPI_Type_commit(&ten);
	check(MPI_File_open(MPI_COMM_WORLD, "mpi.out",
			    MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
	      "open");
	check(MPI_File_write_at(fh, off, buf, 512, MPI_DOUBLE, &st), "write_at");
	check(MPI_File_write_at_all(fh, off + 4096, buf, 3, ten, &st), "write_at_all");
	check(MPI_File_write_at(fh, off + 4336, buf, 2, MPI_INT, MPI_STATUS_IGNORE),
	      "write_at ignore");
	check(MPI_File_close(&fh), "close");
	check(MPI_File_open(MPI_COMM_WORLD, "mpi.out", MPI_MODE_RDONLY,
			    MPI_INFO_NULL, &fh), "open r");
	check(MPI_File_read_at(fh, off, buf, REGION, MPI_BYTE, &st), "read_at");
	MPI_Get_count(&st, MPI_BYTE, &n);
	if (n != REGION)
		check(1, "read_at count");
	check(MPI_File_read_at(fh, (MPI_Offset)size * REGION, buf, 100, MPI_BYTE, &st),
	      "read_at eof");
	MPI_Get_count(&st, MPI_BYTE, &n);
	if (n != 0)
		check(1, "read_at eof count");
	check(MPI_File_close(&fh), "close r");
	MPI_Type_free(&ten);
	MPI_Finalize();
	return 0;
}

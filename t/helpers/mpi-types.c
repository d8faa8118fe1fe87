/*
 * mpi-types.c - every blocking MPI_File read and write call, with
 * predefined datatypes of each size and a derived one, for t/3220 (run
 * under OpenMPI and MPICH, whose datatype handles differ: a pointer to
 * the type against a 32-bit code with the size inside).
 *
 * Rank r owns REGION bytes of mpi-types.out at r * REGION, seen through
 * a file view (displacement r * REGION, etype and filetype MPI_BYTE), so
 * the individual-pointer calls (MPI_File_write, _all) and the explicit
 * offsets (_at, _at_all) address the same bytes.  It writes, in order:
 *   MPI_File_write        300 MPI_CHAR          =  300 bytes at 0
 *   MPI_File_write_at     100 MPI_SHORT         =  200 bytes at 300
 *   MPI_File_write_all     50 MPI_INT           =  200 bytes at 500
 *   MPI_File_write_at_all  25 MPI_DOUBLE        =  200 bytes at 700
 *   MPI_File_write_at      10 MPI_LONG_DOUBLE   =  160 bytes at 900
 *   MPI_File_write_at       4 of 3 MPI_INTs     =   48 bytes at 1060
 *                                                  (derived, status ignored)
 * (REGION = 1108), then reads it back with the four read calls, each
 * asking for what was written there.  The last rank also asks
 * MPI_File_read_at for 64 bytes at REGION - 8, 8 bytes before the end
 * of the file: 8 move.  Each call's MPI_Status is checked.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define REGION 1108

static void check(int rc, const char *what)
{
	if (rc != MPI_SUCCESS) {
		fprintf(stderr, "mpi-types: %s failed\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static void expect(MPI_Status *st, int bytes, const char *what)
{
	int n;

	MPI_Get_count(st, MPI_BYTE, &n);
	if (n != bytes) {
		fprintf(stderr, "mpi-types: %s moved %d bytes, not %d\n", what,
			n, bytes);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

int main(int argc, char **argv)
{
	static char buf[4096];
	MPI_Datatype three;
	MPI_Status st;
	MPI_File fh;
	int rank, size, mode;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	memset(buf, 'a' + rank, sizeof(buf));
	MPI_Type_contiguous(3, MPI_INT, &three);
	MPI_Type_commit(&three);
	mode = MPI_MODE_CREATE | MPI_MODE_RDWR;
	check(MPI_File_open(MPI_COMM_WORLD, "mpi-types.out", mode,
			    MPI_INFO_NULL, &fh), "open");
	check(MPI_File_set_view(fh, (MPI_Offset)rank * REGION, MPI_BYTE,
				MPI_BYTE, "native", MPI_INFO_NULL), "set_view");
	check(MPI_File_write(fh, buf, 300, MPI_CHAR, &st), "write");
	expect(&st, 300, "write");
	check(MPI_File_write_at(fh, 300, buf, 100, MPI_SHORT, &st), "write_at");
	expect(&st, 200, "write_at");
	check(MPI_File_seek(fh, 500, MPI_SEEK_SET), "seek");
	check(MPI_File_write_all(fh, buf, 50, MPI_INT, &st), "write_all");
	expect(&st, 200, "write_all");
	check(MPI_File_write_at_all(fh, 700, buf, 25, MPI_DOUBLE, &st),
	      "write_at_all");
	expect(&st, 200, "write_at_all");
	check(MPI_File_write_at(fh, 900, buf, 10, MPI_LONG_DOUBLE, &st),
	      "write_at long double");
	expect(&st, 160, "write_at long double");
	check(MPI_File_write_at(fh, 1060, buf, 4, three, MPI_STATUS_IGNORE),
	      "write_at derived");
	check(MPI_File_sync(fh), "sync");
	MPI_Barrier(MPI_COMM_WORLD);

	check(MPI_File_seek(fh, 0, MPI_SEEK_SET), "seek 0");
	check(MPI_File_read(fh, buf, 300, MPI_CHAR, &st), "read");
	expect(&st, 300, "read");
	check(MPI_File_read_at(fh, 300, buf, 100, MPI_SHORT, &st), "read_at");
	expect(&st, 200, "read_at");
	check(MPI_File_seek(fh, 500, MPI_SEEK_SET), "seek 500");
	check(MPI_File_read_all(fh, buf, 50, MPI_INT, &st), "read_all");
	expect(&st, 200, "read_all");
	check(MPI_File_read_at_all(fh, 700, buf, 25, MPI_DOUBLE, &st),
	      "read_at_all");
	expect(&st, 200, "read_at_all");
	if (rank == size - 1) {
		check(MPI_File_read_at(fh, REGION - 8, buf, 64, MPI_BYTE, &st),
		      "read_at past the end");
		expect(&st, 8, "read_at past the end");
	}
	check(MPI_File_close(&fh), "close");
	MPI_Type_free(&three);
	MPI_Finalize();
	return 0;
}

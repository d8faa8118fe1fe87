/*
 * mpi-more.c - the MPI-IO calls beyond the blocking individual ones,
 * with exactly known bytes, for t/3210: 2 ranks.
 *
 * mpi-more.out, sized to 0 by MPI_File_set_size: rank r owns REGION =
 * 220 bytes at r * REGION, written and read back (each MPI_BYTE) by
 *   the split collectives at an offset   100 bytes at 0
 *   the split collectives at the pointer  50 bytes at 100 (after a seek)
 *   MPI_File_iwrite_at / iread_at         30 bytes at 150
 *   MPI_File_iwrite_at_all / iread_...    20 bytes at 180
 *   MPI_File_iwrite / iread               10 bytes at 200 (after a seek)
 *   MPI_File_iwrite_all / iread_all       10 bytes at 210 (after a seek)
 * mpi-shared.out, through the shared file pointer: each rank writes 5
 * bytes by MPI_File_write_ordered, 3 by write_shared, 2 by
 * iwrite_shared and 4 by the split write_ordered (28 bytes in all),
 * then, after MPI_File_seek_shared back to 0, reads as much the same
 * ways.  mpi-gone.out: MPI_File_preallocate gives it 4096 bytes, then
 * rank 0 deletes it with MPI_File_delete.  Nonblocking requests are
 * waited for at once; every call must succeed.
 */
#include <mpi.h>
#include <stdio.h>

#define REGION 220

static void check(int rc, const char *what)
{
	if (rc != MPI_SUCCESS) {
		fprintf(stderr, "mpi-more: %s failed\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static void finish(MPI_Request *req, const char *what)
{
	check(MPI_Wait(req, MPI_STATUS_IGNORE), what);
}

/* Rank r's region of fh, written (w) or read, every way but the
 * shared pointer's. */
static void region(MPI_File fh, MPI_Offset off, char *buf, int w)
{
	MPI_Status st;
	MPI_Request req;

	if (w) {
		check(MPI_File_write_at_all_begin(fh, off, buf, 100, MPI_BYTE), "write_at_all_begin");
		check(MPI_File_write_at_all_end(fh, buf, &st), "write_at_all_end");
	} else {
		check(MPI_File_read_at_all_begin(fh, off, buf, 100, MPI_BYTE), "read_at_all_begin");
		check(MPI_File_read_at_all_end(fh, buf, &st), "read_at_all_end");
	}
	check(MPI_File_seek(fh, off + 100, MPI_SEEK_SET), "seek");
	if (w) {
		check(MPI_File_write_all_begin(fh, buf, 50, MPI_BYTE), "write_all_begin");
		check(MPI_File_write_all_end(fh, buf, &st), "write_all_end");
		check(MPI_File_iwrite_at(fh, off + 150, buf, 30, MPI_BYTE, &req), "iwrite_at");
		finish(&req, "iwrite_at");
		check(MPI_File_iwrite_at_all(fh, off + 180, buf, 20, MPI_BYTE, &req), "iwrite_at_all");
		finish(&req, "iwrite_at_all");
		check(MPI_File_seek(fh, off + 200, MPI_SEEK_SET), "seek");
		check(MPI_File_iwrite(fh, buf, 10, MPI_BYTE, &req), "iwrite");
		finish(&req, "iwrite");
		check(MPI_File_seek(fh, off + 210, MPI_SEEK_SET), "seek");
		check(MPI_File_iwrite_all(fh, buf, 10, MPI_BYTE, &req), "iwrite_all");
		finish(&req, "iwrite_all");
	} else {
		check(MPI_File_read_all_begin(fh, buf, 50, MPI_BYTE), "read_all_begin");
		check(MPI_File_read_all_end(fh, buf, &st), "read_all_end");
		check(MPI_File_iread_at(fh, off + 150, buf, 30, MPI_BYTE, &req), "iread_at");
		finish(&req, "iread_at");
		check(MPI_File_iread_at_all(fh, off + 180, buf, 20, MPI_BYTE, &req), "iread_at_all");
		finish(&req, "iread_at_all");
		check(MPI_File_seek(fh, off + 200, MPI_SEEK_SET), "seek");
		check(MPI_File_iread(fh, buf, 10, MPI_BYTE, &req), "iread");
		finish(&req, "iread");
		check(MPI_File_seek(fh, off + 210, MPI_SEEK_SET), "seek");
		check(MPI_File_iread_all(fh, buf, 10, MPI_BYTE, &req), "iread_all");
		finish(&req, "iread_all");
	}
}

/* 14 bytes of each rank's through the shared file pointer. */
static void shared(MPI_File fh, char *buf, int w)
{
	MPI_Status st;
	MPI_Request req;

	if (w) {
		check(MPI_File_write_ordered(fh, buf, 5, MPI_BYTE, &st), "write_ordered");
		check(MPI_File_write_shared(fh, buf, 3, MPI_BYTE, &st), "write_shared");
		check(MPI_File_iwrite_shared(fh, buf, 2, MPI_BYTE, &req), "iwrite_shared");
		finish(&req, "iwrite_shared");
		/* Everyone's shared writes are done before the ordered
		 * ones, which are collective. */
		MPI_Barrier(MPI_COMM_WORLD);
		check(MPI_File_write_ordered_begin(fh, buf, 4, MPI_BYTE), "write_ordered_begin");
		check(MPI_File_write_ordered_end(fh, buf, &st), "write_ordered_end");
	} else {
		check(MPI_File_read_ordered(fh, buf, 5, MPI_BYTE, &st), "read_ordered");
		check(MPI_File_read_shared(fh, buf, 3, MPI_BYTE, &st), "read_shared");
		check(MPI_File_iread_shared(fh, buf, 2, MPI_BYTE, &req), "iread_shared");
		finish(&req, "iread_shared");
		MPI_Barrier(MPI_COMM_WORLD);
		check(MPI_File_read_ordered_begin(fh, buf, 4, MPI_BYTE), "read_ordered_begin");
		check(MPI_File_read_ordered_end(fh, buf, &st), "read_ordered_end");
	}
}

int main(int argc, char **argv)
{
	static char buf[REGION];
	MPI_File fh, sh;
	MPI_Offset off;
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	off = (MPI_Offset)rank * REGION;
	check(MPI_File_open(MPI_COMM_WORLD, "mpi-more.out",
			    MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open");
	check(MPI_File_set_size(fh, 0), "set_size");
	check(MPI_File_open(MPI_COMM_WORLD, "mpi-shared.out",
			    MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &sh), "open shared");
	check(MPI_File_set_size(sh, 0), "set_size shared");
	region(fh, off, buf, 1);
	shared(sh, buf, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	region(fh, off, buf, 0);
	check(MPI_File_seek_shared(sh, 0, MPI_SEEK_SET), "seek_shared");
	shared(sh, buf, 0);
	check(MPI_File_close(&fh), "close");
	check(MPI_File_close(&sh), "close shared");
	check(MPI_File_open(MPI_COMM_WORLD, "mpi-gone.out",
			    MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open gone");
	check(MPI_File_preallocate(fh, 4096), "preallocate");
	check(MPI_File_close(&fh), "close gone");
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		check(MPI_File_delete("mpi-gone.out", MPI_INFO_NULL), "delete");
	MPI_Finalize();
	return 0;
}

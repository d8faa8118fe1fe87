/*
 * mpi-hdf5.c - the MPI-IO + HDF5 workload of the report tests, exact so
 * a trace of it can be checked: every rank writes BLOCKS blocks of
 * BLOCK bytes to its stripe of one shared file with
 * MPI_File_write_at_all, reads them back with MPI_File_read_at_all, then
 * writes one dataset of BLOCKS * BLOCK bytes to an HDF5 file of its own
 * (DIR/rank-N.h5) with H5Dwrite and reads it back with H5Dread.
 *
 *   mpirun -n 2 mpi-hdf5 DIR [BLOCKS [BLOCK]]
 */
#include <mpi.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what)
{
	fprintf(stderr, "mpi-hdf5: %s failed\n", what);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static void mpiio(const char *dir, int rank, int blocks, int block, char *buf)
{
	char path[4096];
	MPI_File fh;
	int i;

	snprintf(path, sizeof(path), "%s/shared.dat", dir);
	if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
			  MPI_INFO_NULL, &fh) != MPI_SUCCESS)
		die("MPI_File_open");
	for (i = 0; i < blocks; i++) {
		MPI_Offset off = ((MPI_Offset)rank * blocks + i) * block;

		if (MPI_File_write_at_all(fh, off, buf, block, MPI_BYTE,
					  MPI_STATUS_IGNORE) != MPI_SUCCESS)
			die("MPI_File_write_at_all");
	}
	for (i = 0; i < blocks; i++) {
		MPI_Offset off = ((MPI_Offset)rank * blocks + i) * block;

		if (MPI_File_read_at_all(fh, off, buf, block, MPI_BYTE,
					 MPI_STATUS_IGNORE) != MPI_SUCCESS)
			die("MPI_File_read_at_all");
	}
	MPI_File_close(&fh);
}

static void hdf5(const char *dir, int rank, int blocks, int block, char *buf)
{
	char path[4096];
	hsize_t dims[1] = { (hsize_t)blocks * block };
	hid_t file, space, set;

	snprintf(path, sizeof(path), "%s/rank-%d.h5", dir, rank);
	file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (file < 0)
		die("H5Fcreate");
	space = H5Screate_simple(1, dims, NULL);
	set = H5Dcreate2(file, "data", H5T_NATIVE_CHAR, space, H5P_DEFAULT,
			 H5P_DEFAULT, H5P_DEFAULT);
	if (set < 0 || H5Dwrite(set, H5T_NATIVE_CHAR, H5S_ALL, H5S_ALL,
				H5P_DEFAULT, buf) < 0)
		die("H5Dwrite");
	H5Dclose(set);
	H5Sclose(space);
	H5Fclose(file);

	file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	set = file < 0 ? -1 : H5Dopen2(file, "data", H5P_DEFAULT);
	if (set < 0 || H5Dread(set, H5T_NATIVE_CHAR, H5S_ALL, H5S_ALL,
			       H5P_DEFAULT, buf) < 0)
		die("H5Dread");
	H5Dclose(set);
	H5Fclose(file);
}

int main(int argc, char **argv)
{
	int rank, blocks, block;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2) {
		fprintf(stderr, "usage: mpi-hdf5 DIR [BLOCKS [BLOCK]]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	blocks = argc > 2 ? atoi(argv[2]) : 4;
	block = argc > 3 ? atoi(argv[3]) : 1 << 20;
	buf = malloc((size_t)blocks * block);
	if (buf == NULL)
		die("malloc");
	memset(buf, 'a' + rank, (size_t)blocks * block);
	mpiio(argv[1], rank, blocks, block, buf);
	hdf5(argv[1], rank, blocks, block, buf);
	free(buf);
	MPI_Finalize();
	return 0;
}

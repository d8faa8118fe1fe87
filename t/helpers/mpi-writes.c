/*
 * mpi-writes - an MPI job with exact I/O for the scheduler tests: rank R
 * writes (R + 1) * 3 records of 100 bytes to DIR/rank-R with write(2),
 * then all ranks meet in a barrier.  Built by the tests with mpicc.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096], buf[100] = { 0 };
	int rank, i, fd;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2) {
		fprintf(stderr, "usage: mpi-writes DIR\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	snprintf(path, sizeof(path), "%s/rank-%d", argv[1], rank);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (i = 0; i < (rank + 1) * 3; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("write");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	close(fd);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}

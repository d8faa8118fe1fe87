/*
 * outfile.c - create output files safely (see outfile.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

int dc_create_output(const char *path, int force, mode_t mode)
{
	struct stat st;
	int fd;

	/* A few rounds: another process may create or remove the name
	 * between our calls; O_EXCL keeps every round safe. */
	for (int round = 0; round < 4; round++) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				O_CLOEXEC | O_NOCTTY, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd;
		if (lstat(path, &st) != 0) {
			if (errno == ENOENT)
				continue;
			return -1;
		}
		if (S_ISLNK(st.st_mode)) {
			errno = ELOOP;
			return -1;
		}
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return -1;
		}
		if (S_ISREG(st.st_mode)) {
			if (!force) {
				errno = EEXIST;
				return -1;
			}
			/* Unlinking removes the name, never what a link at
			 * the name would point to. */
			if (unlink(path) != 0 && errno != ENOENT)
				return -1;
			continue;
		}
		/* A device, FIFO or socket: nothing to overwrite. */
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return -1;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
			/* Swapped for a regular file meanwhile. */
			close(fd);
			errno = EEXIST;
			return -1;
		}
		return fd;
	}
	errno = EEXIST;
	return -1;
}

const char *dc_create_output_error(char *buf, size_t len, const char *path,
				   int err)
{
	switch (err) {
	case EEXIST:
		snprintf(buf, len, "%s already exists: refusing to overwrite it "
			 "(use --force to replace it)", path);
		break;
	case ELOOP:
		snprintf(buf, len, "%s is a symbolic link: refusing to write "
			 "through it", path);
		break;
	default:
		snprintf(buf, len, "cannot create %s: %s", path, strerror(err));
		break;
	}
	return buf;
}

/*
 * outfile.h - create an output file without following symbolic links or
 * clobbering what is there.
 *
 * A tool run by root that writes into a shared directory must not be
 * turned into a way of truncating any file: a symbolic link planted at
 * the output name is never followed (a dangling one never gets its target
 * created), and an existing regular file is replaced only when the user
 * said so (--force), by unlinking it and creating a new file with
 * O_EXCL.  Devices and FIFOs (/dev/null, a named pipe) are written as
 * they are: writing to them overwrites nothing.
 */
#ifndef DC_OUTFILE_H
#define DC_OUTFILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Open path for writing.  Returns the fd (close-on-exec), or -1 with
 * errno set: EEXIST when a regular file is there and force is 0, ELOOP
 * when path is a symbolic link, EISDIR for a directory, or open's own.
 */
int dc_create_output(const char *path, int force, mode_t mode);

/* A one-line reason for dc_create_output's failure on path, into buf
 * (for die/warn): names the file and what to do. */
const char *dc_create_output_error(char *buf, size_t len, const char *path,
				   int err);

#endif

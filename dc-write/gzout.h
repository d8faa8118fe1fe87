/*
 * gzout.h - chunked trace output: a series of independent gzip members,
 * compressed on worker threads and written in order as soon as each one
 * is finished, with an index sidecar (dc-trace(5)).
 *
 * The trace formatter writes whole lines into the current chunk through
 * gzout_reserve/gzout_commit; a chunk is closed at the first line end at
 * or past the chunk size, so a member always holds whole lines.  A crash
 * loses at most the chunks not yet written.  Plain (uncompressed) output
 * goes through the same path without the deflate step and has no index.
 */
#ifndef DC_WRITE_GZOUT_H
#define DC_WRITE_GZOUT_H

#include <stddef.h>
#include <stdint.h>

struct gz_pool;
struct gzout;

enum gz_compressor {
	GZ_ZLIB,        /* levels 1-9 */
	GZ_LIBDEFLATE,  /* levels 1-12; faster and smaller */
};

/* Whether libdeflate can be loaded (it is optional, loaded at run time). */
int gz_libdeflate_available(void);

/* threads 0: compress on the calling thread.  Dies when the compressor
 * cannot be started. */
struct gz_pool *gz_pool_new(int threads, enum gz_compressor compressor,
			    int level, int do_fsync);
void gz_pool_free(struct gz_pool *pool);

/*
 * Open an output on fd (already open for writing; gzout closes it unless
 * it is standard output).  index_fd (-1: none), already created, is the
 * index index_path, closed by gzout_close.
 */
struct gzout *gzout_open(struct gz_pool *pool, int fd, const char *path,
			 int compress, size_t chunk_size, int index_fd,
			 const char *index_path);

/* Room for up to n bytes at the end of the current chunk. */
char *gzout_reserve(struct gzout *o, size_t n);
/* The line of len bytes (newline included) at the reserved place is
 * done; id is its event id, or UINT64_MAX for a line without one.
 * Returns 1 when this closed a chunk (it went to compression). */
int gzout_commit(struct gzout *o, size_t len, uint64_t id);

/* Close the current chunk now, however small (idle input).  Returns 1
 * when there was one. */
int gzout_flush(struct gzout *o);

/* Wait until every closed chunk of o is written. */
void gzout_sync(struct gzout *o);
/* Compressed bytes written so far (after gzout_sync: all of them). */
uint64_t gzout_written(const struct gzout *o);
/* Nonzero once a write failed; gzout_error says why, in one line. */
int gzout_failed(const struct gzout *o);
const char *gzout_error(const struct gzout *o);
const char *gzout_path(const struct gzout *o);

/* Write the rest, wait, close and free.  0, or -1 with the reason in
 * *err (a malloc'd line, caller frees). */
int gzout_close(struct gzout *o, char **err);

#endif

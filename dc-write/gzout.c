/*
 * gzout.c - chunked output: gzip members compressed on a pool of worker
 * threads and written in submission order.
 *
 * The main thread fills a chunk, hands it to a free job slot (waiting when
 * all slots are busy, which bounds memory) and goes on formatting.  A
 * worker deflates the chunk into a complete gzip member; whichever thread
 * finds the oldest submitted job finished writes it, then its index line,
 * so members reach the file in order and the moment they are ready, even
 * while the main thread waits for input.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "deflatelib.h"
#include "gzout.h"
#include "messages.h"

enum job_state { JOB_FREE, JOB_FILLED, JOB_BUSY, JOB_DONE };

struct job {
	enum job_state state;
	struct gzout *o;
	unsigned char *in, *out;
	size_t in_len, in_cap, out_len, out_cap;
	uint64_t uoffset, first_line, last_line, first_id, last_id;
	int have_ids;
};

struct gz_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;     /* signalled on every job state change */
	int threads, level, do_fsync;
	pthread_t *workers;
	struct job *jobs;
	int njobs;
	int *order;              /* job indices in submission order */
	int head, count;
	int draining;            /* a thread is writing finished jobs */
	int stop;
	enum gz_compressor compressor;
	struct deflater *inline_def; /* for threads == 0 */
};

struct gzout {
	struct gz_pool *pool;
	int fd, index_fd, compress;
	char *path, *index_path;
	size_t chunk_size;
	unsigned char *buf;      /* the chunk being filled */
	size_t len, cap;
	uint64_t uoffset;        /* uncompressed bytes before this chunk */
	uint64_t lines;          /* lines committed so far */
	uint64_t first_line, first_id, last_id;
	int have_ids;
	/* Written by the draining thread, under the pool lock. */
	uint64_t written, members;
	int pending;             /* submitted chunks not yet written */
	int failed;
	char err[600];
};

/* ---- compression ---- */

/* libdeflate compresses this kind of text about three times as fast as
 * zlib at the same level, and smaller; it is optional (lib/deflatelib.h),
 * and dc-write still works (with zlib) where it is not installed. */
int gz_libdeflate_available(void)
{
	return dc_libdeflate() != NULL;
}

/* One per thread that compresses. */
struct deflater {
	void *ld;
	z_stream zs;
	int zs_ready;
};

static struct deflater *deflater_new(enum gz_compressor which, int level)
{
	struct deflater *d = xcalloc(1, sizeof(*d));

	if (which == GZ_LIBDEFLATE) {
		d->ld = dc_libdeflate()->alloc_compressor(level);
		if (d->ld == NULL)
			die("cannot start libdeflate at level %d", level);
		return d;
	}
	/* windowBits 15 + 16: a gzip wrapper, so each chunk is a member.
	 * Z_FILTERED: this text is mostly long matches and digits, and
	 * fewer short matches make it smaller at no cost in speed. */
	if (deflateInit2(&d->zs, level, Z_DEFLATED, 15 + 16, 9,
			 Z_FILTERED) != Z_OK)
		die("cannot start the gzip compressor");
	d->zs_ready = 1;
	return d;
}

static void deflater_free(struct deflater *d)
{
	if (d == NULL)
		return;
	if (d->ld != NULL)
		dc_libdeflate()->free_compressor(d->ld);
	if (d->zs_ready)
		deflateEnd(&d->zs);
	free(d);
}

static void compress_job(struct job *j, struct deflater *d)
{
	z_stream *zs = &d->zs;
	size_t bound;

	if (!j->o->compress)
		return;
	if (d->ld != NULL) {
		bound = dc_libdeflate()->gzip_compress_bound(d->ld, j->in_len);
		if (bound > j->out_cap) {
			j->out = xrealloc(j->out, bound);
			j->out_cap = bound;
		}
		j->out_len = dc_libdeflate()->gzip_compress(d->ld, j->in, j->in_len,
							   j->out, j->out_cap);
		if (j->out_len == 0)
			die("libdeflate failed to compress a chunk");
		return;
	}
	deflateReset(zs);
	bound = deflateBound(zs, j->in_len) + 64;
	if (bound > j->out_cap) {
		j->out = xrealloc(j->out, bound);
		j->out_cap = bound;
	}
	zs->next_in = j->in;
	zs->avail_in = (uInt)j->in_len;
	zs->next_out = j->out;
	zs->avail_out = (uInt)j->out_cap;
	if (deflate(zs, Z_FINISH) != Z_STREAM_END)
		die("deflate failed: %s", zs->msg ? zs->msg : "no room");
	j->out_len = j->out_cap - zs->avail_out;
}

/* ---- writing finished jobs ---- */

static void set_failed(struct gzout *o, const char *what, int err)
{
	if (o->failed)
		return;
	snprintf(o->err, sizeof(o->err), "%s: %s: %s", what,
		 "cannot write", strerror(err));
	__atomic_store_n(&o->failed, 1, __ATOMIC_RELEASE);
}

/* Runs on one thread at a time (pool->draining), without the lock. */
static void write_job(struct gz_pool *pool, struct job *j)
{
	struct gzout *o = j->o;
	const unsigned char *data = o->compress ? j->out : j->in;
	size_t len = o->compress ? j->out_len : j->in_len;
	char line[400];
	int n;

	if (o->failed)
		return;
	if (dc_write_all(o->fd, data, len) != 0) {
		set_failed(o, o->path, errno);
		return;
	}
	/* fsync fails with EINVAL on pipes and character devices: fine. */
	if (pool->do_fsync && fsync(o->fd) != 0 && errno != EINVAL &&
	    errno != EROFS) {
		set_failed(o, o->path, errno);
		return;
	}
	if (o->index_fd >= 0) {
		n = snprintf(line, sizeof(line),
			     "{\"member\":%llu,\"offset\":%llu,\"length\":%zu,"
			     "\"uoffset\":%llu,\"ulength\":%zu,"
			     "\"first_line\":%llu,\"last_line\":%llu",
			     (unsigned long long)o->members,
			     (unsigned long long)o->written, len,
			     (unsigned long long)j->uoffset, j->in_len,
			     (unsigned long long)j->first_line,
			     (unsigned long long)j->last_line);
		if (j->have_ids)
			n += snprintf(line + n, sizeof(line) - (size_t)n,
				      ",\"first_id\":%llu,\"last_id\":%llu",
				      (unsigned long long)j->first_id,
				      (unsigned long long)j->last_id);
		n += snprintf(line + n, sizeof(line) - (size_t)n, "}\n");
		if (dc_write_all(o->index_fd, line, (size_t)n) != 0) {
			set_failed(o, o->index_path, errno);
			return;
		}
	}
	o->written += len;
	o->members++;
}

/* Write every finished job at the head of the order.  Lock held. */
static void drain_locked(struct gz_pool *pool)
{
	if (pool->draining)
		return; /* that thread will find our job too */
	pool->draining = 1;
	while (pool->count > 0) {
		struct job *j = &pool->jobs[pool->order[pool->head]];

		if (j->state != JOB_DONE)
			break;
		pthread_mutex_unlock(&pool->lock);
		write_job(pool, j);
		pthread_mutex_lock(&pool->lock);
		j->state = JOB_FREE;
		j->o->pending--;
		j->o = NULL;
		pool->head = (pool->head + 1) % pool->njobs;
		pool->count--;
		pthread_cond_broadcast(&pool->cond);
	}
	pool->draining = 0;
}

static void *worker(void *arg)
{
	struct gz_pool *pool = arg;
	struct deflater *d = deflater_new(pool->compressor, pool->level);

	pthread_mutex_lock(&pool->lock);
	for (;;) {
		struct job *j = NULL;
		int i;

		for (i = 0; i < pool->count; i++) {
			struct job *c =
				&pool->jobs[pool->order[(pool->head + i) % pool->njobs]];

			if (c->state == JOB_FILLED) {
				j = c;
				break;
			}
		}
		if (j == NULL) {
			if (pool->stop)
				break;
			pthread_cond_wait(&pool->cond, &pool->lock);
			continue;
		}
		j->state = JOB_BUSY;
		pthread_mutex_unlock(&pool->lock);
		compress_job(j, d);
		pthread_mutex_lock(&pool->lock);
		j->state = JOB_DONE;
		drain_locked(pool);
		pthread_cond_broadcast(&pool->cond);
	}
	pthread_mutex_unlock(&pool->lock);
	deflater_free(d);
	return NULL;
}

/* ---- pool ---- */

struct gz_pool *gz_pool_new(int threads, enum gz_compressor compressor,
			    int level, int do_fsync)
{
	struct gz_pool *pool = xcalloc(1, sizeof(*pool));
	int i;

	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->cond, NULL);
	pool->threads = threads;
	pool->level = level;
	pool->do_fsync = do_fsync;
	pool->compressor = compressor;
	if (compressor == GZ_LIBDEFLATE && !gz_libdeflate_available())
		die("libdeflate is not installed (libdeflate.so.0)");
	/* Two chunks per worker keep every worker busy while the main
	 * thread fills the next one; more would only cost memory. */
	pool->njobs = threads > 0 ? 2 * threads + 1 : 1;
	pool->jobs = xcalloc((size_t)pool->njobs, sizeof(*pool->jobs));
	pool->order = xcalloc((size_t)pool->njobs, sizeof(*pool->order));
	if (threads == 0)
		pool->inline_def = deflater_new(compressor, level);
	pool->workers = xcalloc((size_t)(threads ? threads : 1),
				sizeof(*pool->workers));
	for (i = 0; i < threads; i++) {
		errno = pthread_create(&pool->workers[i], NULL, worker, pool);
		if (errno != 0)
			sysdie("cannot start a compression thread");
	}
	return pool;
}

void gz_pool_free(struct gz_pool *pool)
{
	int i;

	if (pool == NULL)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stop = 1;
	pthread_cond_broadcast(&pool->cond);
	pthread_mutex_unlock(&pool->lock);
	for (i = 0; i < pool->threads; i++)
		pthread_join(pool->workers[i], NULL);
	for (i = 0; i < pool->njobs; i++) {
		free(pool->jobs[i].in);
		free(pool->jobs[i].out);
	}
	deflater_free(pool->inline_def);
	free(pool->jobs);
	free(pool->order);
	free(pool->workers);
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->cond);
	free(pool);
}

/* ---- outputs ---- */

struct gzout *gzout_open(struct gz_pool *pool, int fd, const char *path,
			 int compress, size_t chunk_size, int index_fd,
			 const char *index_path)
{
	struct gzout *o = xcalloc(1, sizeof(*o));

	o->pool = pool;
	o->fd = fd;
	o->index_fd = index_fd;
	o->compress = compress;
	o->chunk_size = chunk_size;
	o->path = xstrdup(path);
	if (index_fd >= 0)
		o->index_path = xstrdup(index_path);
	return o;
}

char *gzout_reserve(struct gzout *o, size_t n)
{
	if (o->len + n > o->cap) {
		/* Start small (one output per process in split mode) and
		 * grow to the chunk size plus a line. */
		size_t cap = o->cap ? o->cap * 2 : 65536;

		if (cap > o->chunk_size + 65536)
			cap = o->chunk_size + 65536;
		if (cap < o->len + n)
			cap = o->len + n;
		o->buf = xrealloc(o->buf, cap);
		o->cap = cap;
	}
	return (char *)o->buf + o->len;
}

static void submit(struct gzout *o)
{
	struct gz_pool *pool = o->pool;
	struct job *j = NULL;
	unsigned char *tmp;
	size_t tmp_cap;
	int i;

	pthread_mutex_lock(&pool->lock);
	for (;;) {
		for (i = 0; i < pool->njobs; i++)
			if (pool->jobs[i].state == JOB_FREE) {
				j = &pool->jobs[i];
				break;
			}
		if (j != NULL)
			break;
		pthread_cond_wait(&pool->cond, &pool->lock);
	}
	/* Swap buffers: the job takes the chunk, the output takes the
	 * job's old buffer for its next chunk. */
	tmp = j->in;
	tmp_cap = j->in_cap;
	j->in = o->buf;
	j->in_cap = o->cap;
	j->in_len = o->len;
	o->buf = tmp;
	o->cap = tmp_cap;
	j->o = o;
	j->uoffset = o->uoffset;
	j->first_line = o->first_line;
	j->last_line = o->lines;
	j->first_id = o->first_id;
	j->last_id = o->last_id;
	j->have_ids = o->have_ids;
	o->pending++;
	o->uoffset += o->len;
	o->len = 0;
	o->have_ids = 0;
	pool->order[(pool->head + pool->count) % pool->njobs] = (int)(j - pool->jobs);
	pool->count++;
	if (pool->threads == 0) {
		j->state = JOB_BUSY;
		pthread_mutex_unlock(&pool->lock);
		compress_job(j, pool->inline_def);
		pthread_mutex_lock(&pool->lock);
		j->state = JOB_DONE;
		drain_locked(pool);
	} else {
		j->state = JOB_FILLED;
		pthread_cond_broadcast(&pool->cond);
	}
	pthread_mutex_unlock(&pool->lock);
}

int gzout_flush(struct gzout *o)
{
	if (o->len == 0)
		return 0;
	submit(o);
	return 1;
}

int gzout_commit(struct gzout *o, size_t len, uint64_t id)
{
	if (o->len == 0)
		o->first_line = o->lines + 1;
	o->len += len;
	o->lines++;
	if (id != UINT64_MAX) {
		if (!o->have_ids)
			o->first_id = id;
		o->last_id = id;
		o->have_ids = 1;
	}
	if (o->len >= o->chunk_size) {
		submit(o);
		return 1;
	}
	return 0;
}

void gzout_sync(struct gzout *o)
{
	struct gz_pool *pool = o->pool;

	pthread_mutex_lock(&pool->lock);
	while (o->pending > 0)
		pthread_cond_wait(&pool->cond, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
}

uint64_t gzout_written(const struct gzout *o)
{
	uint64_t n;

	pthread_mutex_lock(&o->pool->lock);
	n = o->written;
	pthread_mutex_unlock(&o->pool->lock);
	return n;
}

int gzout_failed(const struct gzout *o)
{
	return __atomic_load_n(&o->failed, __ATOMIC_ACQUIRE);
}

const char *gzout_error(const struct gzout *o)
{
	return o->err;
}

const char *gzout_path(const struct gzout *o)
{
	return o->path;
}

int gzout_close(struct gzout *o, char **err)
{
	int ret = 0;

	if (o->len > 0)
		submit(o);
	gzout_sync(o);
	/* Standard output stays open (and its errors were seen by write). */
	if (o->fd != STDOUT_FILENO && close(o->fd) != 0)
		set_failed(o, o->path, errno);
	if (o->index_fd >= 0 && close(o->index_fd) != 0)
		set_failed(o, o->index_path, errno);
	if (o->failed) {
		ret = -1;
		*err = xstrdup(o->err);
	}
	free(o->buf);
	free(o->path);
	free(o->index_path);
	free(o);
	return ret;
}

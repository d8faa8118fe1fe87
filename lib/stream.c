/*
 * stream.c - writer and reader of the datacrumbs framed stream.
 *
 * The layout is documented in dc-stream(5) and summarised in stream.h.
 * The writer buffers frames and writes whole buffers with write(2); the
 * reader keeps every complete frame and reports, in one line, why a stream
 * stopped early (truncation, corruption) so callers can finish their output
 * with what arrived.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "deflatelib.h"
#include "messages.h"
#include "stream.h"

#define WRITE_BUF (1u << 20)
#define DIRECT_MIN (64u << 10) /* frames this large skip the buffer */
#define HDR_FIXED 48 /* header bytes before the host name */
#define PAD8(n) (((n) + 7u) & ~7u)

/* ---- header ---- */

void dc_stream_info_init(struct dc_stream_info *info, const char *run_id)
{
	struct timespec mono, real1, real2;

	memset(info, 0, sizeof(*info));
	info->version = DC_STREAM_VERSION;
	/* Sample the wall clock on both sides of the monotonic clock and
	 * use the midpoint: the offset is then good to well under 1 us. */
	clock_gettime(CLOCK_REALTIME, &real1);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real2);
	int64_t r1 = real1.tv_sec * 1000000000LL + real1.tv_nsec;
	int64_t r2 = real2.tv_sec * 1000000000LL + real2.tv_nsec;
	int64_t m = mono.tv_sec * 1000000000LL + mono.tv_nsec;
	info->clock_offset_ns = r1 + (r2 - r1) / 2 - m;
	info->start_mono_ns = (uint64_t)m;
	if (gethostname(info->host, DC_NAME_MAX) != 0)
		strcpy(info->host, "unknown");
	info->host[DC_NAME_MAX] = '\0';
	if (run_id != NULL) {
		strncpy(info->run_id, run_id, DC_NAME_MAX);
		info->run_id[DC_NAME_MAX] = '\0';
	}
}

static size_t header_size(size_t host_len, size_t run_len)
{
	return (HDR_FIXED + host_len + run_len + 7) & ~(size_t)7;
}

/* ---- writer ---- */

struct dc_writer {
	int fd;
	unsigned char *buf;
	size_t used;
	uint64_t bytes;
};

int dc_writer_flush(struct dc_writer *w)
{
	if (w->used == 0)
		return 0;
	if (dc_write_all(w->fd, w->buf, w->used) != 0)
		return -1;
	w->bytes += w->used;
	w->used = 0;
	return 0;
}

static int writer_append(struct dc_writer *w, const void *data, size_t len)
{
	if (w->used + len > WRITE_BUF) {
		if (dc_writer_flush(w) != 0)
			return -1;
		if (len > WRITE_BUF) {
			if (dc_write_all(w->fd, data, len) != 0)
				return -1;
			w->bytes += len;
			return 0;
		}
	}
	memcpy(w->buf + w->used, data, len);
	w->used += len;
	return 0;
}

struct dc_writer *dc_writer_open(int fd, const struct dc_stream_info *info)
{
	struct dc_writer *w;
	unsigned char hdr[HDR_FIXED + 2 * DC_NAME_MAX + 8];
	size_t host_len = strnlen(info->host, DC_NAME_MAX);
	size_t run_len = strnlen(info->run_id, DC_NAME_MAX);
	size_t size = header_size(host_len, run_len);
	uint16_t version = DC_STREAM_VERSION, size16 = (uint16_t)size;
	uint32_t bom = DC_BYTE_ORDER_MARK;
	uint16_t hl = (uint16_t)host_len, rl = (uint16_t)run_len;

	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return NULL;
	w->buf = malloc(WRITE_BUF);
	if (w->buf == NULL) {
		free(w);
		return NULL;
	}
	w->fd = fd;
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, DC_STREAM_MAGIC, DC_STREAM_MAGIC_LEN);
	memcpy(hdr + 8, &version, 2);
	memcpy(hdr + 10, &size16, 2);
	memcpy(hdr + 12, &bom, 4);
	memcpy(hdr + 16, &info->clock_offset_ns, 8);
	memcpy(hdr + 24, &info->start_mono_ns, 8);
	memcpy(hdr + 32, &info->flags, 4);
	/* 36..39: reserved (zero) */
	memcpy(hdr + 40, &hl, 2);
	memcpy(hdr + 42, &rl, 2);
	/* 44..47: reserved */
	memcpy(hdr + HDR_FIXED, info->host, host_len);
	memcpy(hdr + HDR_FIXED + host_len, info->run_id, run_len);
	if (writer_append(w, hdr, size) != 0) {
		int err = errno;

		free(w->buf);
		free(w);
		errno = err;
		return NULL;
	}
	return w;
}

/* Write iov[0..cnt) whole, through short writes and signals. */
static int writev_all(int fd, struct iovec *iov, int cnt)
{
	while (cnt > 0) {
		ssize_t done = writev(fd, iov, cnt);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (; cnt > 0 && (size_t)done >= iov->iov_len; iov++, cnt--)
			done -= (ssize_t)iov->iov_len;
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + done;
			iov->iov_len -= (size_t)done;
		}
	}
	return 0;
}

/* A large frame goes out in one writev from where its parts are, after
 * what is buffered: copied into the buffer, it would be read and written
 * once more in memory (dc-aggregate's 1 MiB EVENTS frames: 16% of its
 * time), and its header written alone. */
static int frame_direct(struct dc_writer *w, const unsigned char *fh,
			const void *const *parts, const uint32_t *lens, int n,
			uint32_t len)
{
	static const unsigned char zero[8];
	struct iovec iov[DC_WRITER_PARTS_MAX + 2];
	int cnt = 0, i;

	if (dc_writer_flush(w) != 0)
		return -1;
	iov[cnt].iov_base = (void *)fh;
	iov[cnt++].iov_len = DC_FRAME_HDR_SIZE;
	for (i = 0; i < n; i++)
		if (lens[i] > 0) {
			iov[cnt].iov_base = (void *)parts[i];
			iov[cnt++].iov_len = lens[i];
		}
	if (PAD8(len) != len) {
		iov[cnt].iov_base = (void *)zero;
		iov[cnt++].iov_len = PAD8(len) - len;
	}
	if (writev_all(w->fd, iov, cnt) != 0)
		return -1;
	w->bytes += DC_FRAME_HDR_SIZE + PAD8(len);
	return 0;
}

int dc_writer_framev(struct dc_writer *w, uint16_t type,
		     const void *const *parts, const uint32_t *lens, int n)
{
	unsigned char fh[DC_FRAME_HDR_SIZE];
	uint32_t len = 0, crc = 0;
	uint16_t flags = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (lens[i] > DC_FRAME_MAX - len) {
			errno = EMSGSIZE;
			return -1;
		}
		len += lens[i];
		crc = dc_crc32(crc, parts[i], lens[i]);
	}
	memset(fh, 0, sizeof(fh));
	memcpy(fh, &type, 2);
	memcpy(fh + 2, &flags, 2);
	memcpy(fh + 4, &len, 4);
	memcpy(fh + 8, &crc, 4);
	if (len >= DIRECT_MIN && n <= DC_WRITER_PARTS_MAX)
		return frame_direct(w, fh, parts, lens, n, len);
	if (writer_append(w, fh, sizeof(fh)) != 0)
		return -1;
	for (i = 0; i < n; i++)
		if (writer_append(w, parts[i], lens[i]) != 0)
			return -1;
	/* Pad so every frame, and every event record, starts 8-aligned. */
	if (PAD8(len) != len) {
		static const unsigned char zero[8];

		if (writer_append(w, zero, PAD8(len) - len) != 0)
			return -1;
	}
	return 0;
}

int dc_writer_frame(struct dc_writer *w, uint16_t type, const void *data,
		    uint32_t len)
{
	return dc_writer_framev(w, type, &data, &len, 1);
}

void *dc_writer_begin(struct dc_writer *w, uint32_t max)
{
	if (max > WRITE_BUF - DC_FRAME_HDR_SIZE - 8) {
		errno = EMSGSIZE;
		return NULL;
	}
	if (w->used + DC_FRAME_HDR_SIZE + PAD8(max) > WRITE_BUF &&
	    dc_writer_flush(w) != 0)
		return NULL;
	return w->buf + w->used + DC_FRAME_HDR_SIZE;
}

void dc_writer_end(struct dc_writer *w, uint16_t type, uint32_t len)
{
	unsigned char *fh = w->buf + w->used;
	uint32_t crc = dc_crc32(0, fh + DC_FRAME_HDR_SIZE, len);
	uint16_t flags = 0;

	memset(fh, 0, DC_FRAME_HDR_SIZE);
	memcpy(fh, &type, 2);
	memcpy(fh + 2, &flags, 2);
	memcpy(fh + 4, &len, 4);
	memcpy(fh + 8, &crc, 4);
	memset(fh + DC_FRAME_HDR_SIZE + len, 0, PAD8(len) - len);
	w->used += DC_FRAME_HDR_SIZE + PAD8(len);
}

int dc_writer_close(struct dc_writer *w)
{
	int ret = dc_writer_flush(w);
	int err = errno;

	free(w->buf);
	free(w);
	errno = err;
	return ret;
}

uint64_t dc_writer_bytes(const struct dc_writer *w)
{
	return w->bytes + w->used;
}

/* ---- reader ---- */

struct dc_reader {
	int fd;
	char *name;
	unsigned char *buf;  /* holds at least one whole frame */
	size_t cap, start, end;
	uint64_t offset;     /* stream offset of buf[start] */
	int eof;
	int seen_end;
	char err[512];
};

struct dc_reader *dc_reader_open(int fd, const char *name)
{
	struct dc_reader *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->fd = fd;
	r->name = strdup(name ? name : "-");
	r->cap = 1u << 20;
	r->buf = malloc(r->cap);
	if (r->name == NULL || r->buf == NULL) {
		free(r->name);
		free(r->buf);
		free(r);
		return NULL;
	}
	return r;
}

void dc_reader_close(struct dc_reader *r)
{
	if (r == NULL)
		return;
	free(r->name);
	free(r->buf);
	free(r);
}

const char *dc_reader_error(const struct dc_reader *r)
{
	return r->err;
}

/* Make at least `need` bytes available at buf[start].  Returns 1 when
 * they are, 0 at end of input with fewer, -1 on a read error. */
static int fill(struct dc_reader *r, size_t need)
{
	if (r->end - r->start >= need)
		return 1;
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (need > r->cap) {
		size_t cap = r->cap;
		unsigned char *nb;

		while (cap < need)
			cap *= 2;
		nb = realloc(r->buf, cap);
		if (nb == NULL)
			return -1;
		r->buf = nb;
		r->cap = cap;
	}
	while (r->end < need && !r->eof) {
		ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			r->eof = 1;
		r->end += (size_t)n;
	}
	return r->end - r->start >= need ? 1 : 0;
}

static int fail(struct dc_reader *r, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct dc_reader *r, int status, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err, sizeof(r->err), "%s: ", r->name);
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return status;
}

int dc_reader_header(struct dc_reader *r, struct dc_stream_info *info)
{
	uint16_t version, size;
	uint16_t hl, rl;
	uint32_t bom;
	int got;

	got = fill(r, HDR_FIXED);
	if (got < 0)
		return fail(r, DC_READ_ERROR, "cannot read: %s", strerror(errno));
	if (got == 0 && r->end == r->start)
		return fail(r, DC_READ_TRUNCATED, "empty stream (no header)");
	/* A few bytes that begin the magic are a stream cut short, not
	 * another kind of file. */
	if (got == 0 && r->end - r->start < DC_STREAM_MAGIC_LEN)
		return fail(r, memcmp(r->buf + r->start, DC_STREAM_MAGIC,
				      r->end - r->start) == 0
				       ? DC_READ_TRUNCATED : DC_READ_BADHDR,
			    memcmp(r->buf + r->start, DC_STREAM_MAGIC,
				   r->end - r->start) == 0
				    ? "stream truncated in header"
				    : "not a datacrumbs stream (bad magic)");
	if (memcmp(r->buf + r->start, DC_STREAM_MAGIC, DC_STREAM_MAGIC_LEN))
		return fail(r, DC_READ_BADHDR,
			    "not a datacrumbs stream (bad magic)");
	if (got == 0)
		return fail(r, DC_READ_TRUNCATED, "stream truncated in header");
	memcpy(&bom, r->buf + r->start + 12, 4);
	if (bom != DC_BYTE_ORDER_MARK)
		return fail(r, DC_READ_BADHDR,
			    "stream written in another byte order (mark %08x)",
			    bom);
	memcpy(&version, r->buf + r->start + 8, 2);
	if (version != DC_STREAM_VERSION)
		return fail(r, DC_READ_BADHDR,
			    "unsupported stream version %u (this reader knows %u)",
			    version, DC_STREAM_VERSION);
	memcpy(&size, r->buf + r->start + 10, 2);
	memcpy(&hl, r->buf + r->start + 40, 2);
	memcpy(&rl, r->buf + r->start + 42, 2);
	if (hl > DC_NAME_MAX || rl > DC_NAME_MAX || size < header_size(hl, rl) ||
	    size % 8 != 0)
		return fail(r, DC_READ_BADHDR, "corrupt stream header");
	got = fill(r, size);
	if (got < 0)
		return fail(r, DC_READ_ERROR, "cannot read: %s", strerror(errno));
	if (got == 0)
		return fail(r, DC_READ_TRUNCATED, "stream truncated in header");
	memset(info, 0, sizeof(*info));
	info->version = version;
	memcpy(&info->clock_offset_ns, r->buf + r->start + 16, 8);
	memcpy(&info->start_mono_ns, r->buf + r->start + 24, 8);
	memcpy(&info->flags, r->buf + r->start + 32, 4);
	memcpy(info->host, r->buf + r->start + HDR_FIXED, hl);
	memcpy(info->run_id, r->buf + r->start + HDR_FIXED + hl, rl);
	r->start += size;
	r->offset += size;
	return DC_READ_FRAME;
}

int dc_reader_next(struct dc_reader *r, struct dc_frame *frame)
{
	uint32_t len, crc;
	int got;

	got = fill(r, DC_FRAME_HDR_SIZE);
	if (got < 0)
		return fail(r, DC_READ_ERROR, "cannot read: %s", strerror(errno));
	if (got == 0) {
		if (r->end == r->start && r->seen_end)
			return DC_READ_EOF;
		if (r->end == r->start)
			return fail(r, DC_READ_TRUNCATED,
				    "stream truncated at byte %llu: no end frame "
				    "(writer killed?)",
				    (unsigned long long)r->offset);
		return fail(r, DC_READ_TRUNCATED,
			    "stream truncated at byte %llu inside a frame header",
			    (unsigned long long)r->offset);
	}
	memcpy(&frame->type, r->buf + r->start, 2);
	memcpy(&frame->flags, r->buf + r->start + 2, 2);
	memcpy(&len, r->buf + r->start + 4, 4);
	memcpy(&crc, r->buf + r->start + 8, 4);
	if (len > DC_FRAME_MAX || frame->type == 0)
		return fail(r, DC_READ_CORRUPT,
			    "corrupt frame at byte %llu (type %u, length %u)",
			    (unsigned long long)r->offset, frame->type, len);
	got = fill(r, DC_FRAME_HDR_SIZE + (size_t)PAD8(len));
	if (got < 0)
		return fail(r, DC_READ_ERROR, "cannot read: %s", strerror(errno));
	if (got == 0)
		return fail(r, DC_READ_TRUNCATED,
			    "stream truncated at byte %llu inside a frame of "
			    "%u bytes (writer killed?)",
			    (unsigned long long)r->offset, len);
#ifndef DC_FUZZING
	/* (A fuzzing build takes any checksum, so that mutated frames
	 * reach the decoders behind this check: configure.ac.) */
	if (dc_crc32(0, r->buf + r->start + DC_FRAME_HDR_SIZE, len) != crc)
		return fail(r, DC_READ_CORRUPT,
			    "corrupt frame at byte %llu: checksum mismatch",
			    (unsigned long long)r->offset);
#else
	(void)crc;
#endif
	frame->len = len;
	frame->data = r->buf + r->start + DC_FRAME_HDR_SIZE;
	frame->offset = r->offset;
	if (frame->type == DC_FRAME_EVENTS && !dc_events_valid(frame->data, len))
		return fail(r, DC_READ_CORRUPT,
			    "corrupt events frame at byte %llu",
			    (unsigned long long)r->offset);
	r->start += DC_FRAME_HDR_SIZE + PAD8(len);
	r->offset += DC_FRAME_HDR_SIZE + PAD8(len);
	if (frame->type == DC_FRAME_END)
		r->seen_end = 1;
	return DC_READ_FRAME;
}

int dc_read_exit_status(int status)
{
	switch (status) {
	case DC_READ_FRAME:
	case DC_READ_EOF:
		return DC_EXIT_OK;
	case DC_READ_TRUNCATED:
		return DC_EXIT_TRUNCATED;
	case DC_READ_CORRUPT:
	case DC_READ_BADHDR:
		return DC_EXIT_BADINPUT;
	default:
		return DC_EXIT_FAILURE;
	}
}

/* ---- payload helpers ---- */

size_t dc_put_str(unsigned char *buf, size_t cap, size_t pos, const char *s,
		  size_t len)
{
	uint16_t l;

	if (len > 0xffff)
		len = 0xffff;
	if (pos + 2 + len > cap)
		return 0;
	l = (uint16_t)len;
	memcpy(buf + pos, &l, 2);
	memcpy(buf + pos + 2, s, len);
	return pos + 2 + len;
}

size_t dc_get_str(const unsigned char *buf, size_t len, size_t pos,
		  const char **s, size_t *slen)
{
	uint16_t l;

	if (pos + 2 > len)
		return 0;
	memcpy(&l, buf + pos, 2);
	if (pos + 2 + l > len)
		return 0;
	*s = (const char *)buf + pos + 2;
	*slen = l;
	return pos + 2 + l;
}

uint64_t dc_snapshot_taken(uint16_t type, const unsigned char *data,
			   size_t len)
{
	const char *s;
	size_t pos, l, n;
	uint32_t count;
	uint64_t taken;

	if (type == DC_FRAME_PROCESS) {
		/* exe, cmdline, cwd, job */
		pos = sizeof(struct dc_process_rec);
		for (n = 0; n < 4 && pos != 0; n++)
			pos = dc_get_str(data, len, pos, &s, &l);
	} else if (type == DC_FRAME_FDS && len >= sizeof(struct dc_fds_rec)) {
		memcpy(&count, data + offsetof(struct dc_fds_rec, count), 4);
		pos = sizeof(struct dc_fds_rec);
		for (n = 0; n < count && pos != 0; n++)
			pos = pos + 4 <= len ?
			      dc_get_str(data, len, pos + 4, &s, &l) : 0;
	} else {
		return 0;
	}
	if (pos == 0 || pos + 8 > len)
		return 0;
	memcpy(&taken, data + pos, 8);
	return taken;
}

int dc_events_valid(const unsigned char *data, uint32_t len)
{
	uint32_t pos = 0;

	while (pos < len) {
		const struct dc_event *ev;
		uint32_t need;

		if (len - pos < DC_EVENT_HDR_SIZE)
			return 0;
		ev = (const struct dc_event *)(data + pos);
		need = DC_EVENT_HDR_SIZE + 8u * ev->nargs;
		if (ev->str_len > 0)
			need += ev->str_len + 1u;
		if (ev->size < need || ev->size % 8 != 0 || ev->size > len - pos)
			return 0;
		pos += ev->size;
	}
	return 1;
}

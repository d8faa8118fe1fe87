/*
 * stream-test - unit tests of the stream codec (lib/stream.c), as TAP.
 *
 * Run by t/0000-stream.t.  Streams are written to a temporary file with
 * the real writer, then read back from it (or from a pipe fed one byte at
 * a time) with the real reader; damaged streams are made by editing the
 * bytes.  Every check prints one TAP line; the exit status is non-zero
 * when one failed.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "stream.h"

#include "tap.h"

static void bail(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- a stream in memory ---- */

struct buf {
	unsigned char *data;
	size_t len;
};

/* A temporary file holding `len` bytes, positioned at its start. */
static int file_of(const unsigned char *data, size_t len)
{
	FILE *f = tmpfile();
	int fd;

	if (f == NULL)
		bail("tmpfile");
	fd = dup(fileno(f));
	fclose(f);
	if (len > 0 && write(fd, data, len) != (ssize_t)len)
		bail("write");
	if (lseek(fd, 0, SEEK_SET) != 0)
		bail("lseek");
	return fd;
}

static struct buf slurp(int fd)
{
	struct buf b = { NULL, 0 };
	size_t cap = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) != 0)
		bail("lseek");
	for (;;) {
		if (b.len == cap) {
			cap = cap ? 2 * cap : 65536;
			b.data = realloc(b.data, cap);
			if (b.data == NULL)
				bail("realloc");
		}
		n = read(fd, b.data + b.len, cap - b.len);
		if (n < 0)
			bail("read");
		if (n == 0)
			return b;
		b.len += (size_t)n;
	}
}

/* ---- building frames ---- */

static void test_info(struct dc_stream_info *info)
{
	memset(info, 0, sizeof(*info));
	info->version = DC_STREAM_VERSION;
	info->clock_offset_ns = 1700000000123456789LL;
	info->start_mono_ns = 987654321;
	strcpy(info->host, "node-17.cluster");
	strcpy(info->run_id, "run-0042");
}

/* One event record with `nargs` arguments and an optional string. */
static size_t make_event(unsigned char *out, uint8_t type, uint32_t probe,
			 uint32_t pid, uint64_t ts, int nargs, const char *str)
{
	struct dc_event ev;
	size_t slen = str ? strlen(str) : 0;
	size_t size = DC_EVENT_HDR_SIZE + 8u * nargs + (slen ? slen + 1 : 0);
	int i;

	size = (size + 7) & ~(size_t)7;
	memset(&ev, 0, sizeof(ev));
	ev.size = (uint16_t)size;
	ev.type = type;
	ev.probe_id = probe;
	ev.pid = pid;
	ev.tid = pid + 1;
	ev.ts = ts;
	ev.dur = ts / 3;
	ev.ret = -(int64_t)ts;
	ev.depth = (uint16_t)(ts % 5);
	ev.str_len = (uint16_t)slen;
	ev.nargs = (uint8_t)nargs;
	ev.file_id = probe * 7;
	memset(out, 0, size);
	memcpy(out, &ev, DC_EVENT_HDR_SIZE);
	for (i = 0; i < nargs; i++) {
		uint64_t a = ts * 100 + (uint64_t)i;

		memcpy(out + DC_EVENT_HDR_SIZE + 8 * i, &a, 8);
	}
	if (slen)
		memcpy(out + DC_EVENT_HDR_SIZE + 8 * nargs, str, slen);
	return size;
}

/* The frames of the round-trip stream, kept to compare with. */
#define MAX_FRAMES 64
struct expect {
	uint16_t type;
	uint32_t len;
	unsigned char *data;
	size_t end;  /* stream offset just after the frame and its padding */
};
/* A stream the tests wrote: its bytes, and a copy of each frame. */
struct written {
	struct dc_writer *w;      /* while it is written */
	struct expect frames[MAX_FRAMES];
	int n;
	uint64_t events;          /* records in its EVENTS frames */
	struct buf bytes;
	size_t header_size;
};

/* Start s on fd, with the test header. */
static void written_open(struct written *s, int fd)
{
	struct dc_stream_info info;

	memset(s, 0, sizeof(*s));
	test_info(&info);
	s->w = dc_writer_open(fd, &info);
	if (s->w == NULL)
		bail("dc_writer_open");
	s->header_size = dc_writer_bytes(s->w);
}

/* Finish s: its bytes are what fd holds. */
static void written_close(struct written *s, int fd)
{
	if (dc_writer_close(s->w) != 0)
		bail("dc_writer_close");
	s->w = NULL;
	s->bytes = slurp(fd);
	close(fd);
}

static void written_free(struct written *s)
{
	while (s->n > 0)
		free(s->frames[--s->n].data);
	free(s->bytes.data);
}

/* A frame written in `parts` pieces (the middle one empty when 3). */
static void put_parts(struct written *s, uint16_t type, const void *data,
		      uint32_t len, int parts)
{
	const unsigned char *d = data;
	const void *p[3] = { d, d + len / 3, d + len / 3 };
	uint32_t l[3] = { len / 3, 0, len - len / 3 };
	struct expect *e = &s->frames[s->n];

	if (s->n == MAX_FRAMES)
		bail("too many frames");
	if (parts == 1 ? dc_writer_frame(s->w, type, data, len) != 0 :
	    dc_writer_framev(s->w, type, p, l, 3) != 0)
		bail("dc_writer_frame");
	e->type = type;
	e->len = len;
	e->data = malloc(len ? len : 1);
	memcpy(e->data, data, len);
	e->end = dc_writer_bytes(s->w);
	s->n++;
}

static void put(struct written *s, uint16_t type, const void *data,
		uint32_t len)
{
	put_parts(s, type, data, len, 1);
}

static const char *const paths[] = {
	"/", "/tmp/f", "/home/user/data/input.h5",
	"/lustre/scratch/a/very/long/path/to/a/checkpoint/file.0000017",
	"relative/x", "ab", "abcdefg", "abcdefgh",
};

/* SYSINFO: key/value string pairs. */
static void put_sysinfo(struct written *s)
{
	unsigned char p[64];
	size_t pos;

	pos = dc_put_str(p, sizeof(p), 0, "kernel", 6);
	pos = dc_put_str(p, sizeof(p), pos, "6.18.0", 6);
	pos = dc_put_str(p, sizeof(p), pos, "cpus", 4);
	pos = dc_put_str(p, sizeof(p), pos, "2", 1);
	put(s, DC_FRAME_SYSINFO, p, (uint32_t)pos);
}

static void put_probe(struct written *s)
{
	struct dc_probe_rec pr;
	unsigned char p[256];
	size_t pos;

	memset(&pr, 0, sizeof(pr));
	pr.id = 3;
	pr.kind = DC_PROBE_UPROBE;
	pr.nargs = 3;
	pr.ret_kind = DC_RET_SIZE;
	pr.arg_kinds[0] = DC_ARG_FD;
	pr.arg_kinds[1] = DC_ARG_PTR;
	pr.arg_kinds[2] = DC_ARG_SIZE;
	pr.offset = 0x10f2a0;
	memcpy(p, &pr, sizeof(pr));
	pos = dc_put_str(p, sizeof(p), sizeof(pr), "POSIX", 5);
	pos = dc_put_str(p, sizeof(p), pos, "write", 5);
	pos = dc_put_str(p, sizeof(p), pos, "/lib/libc.so.6", 14);
	put(s, DC_FRAME_PROBE, p, (uint32_t)pos);
}

static void put_process(struct written *s)
{
	struct dc_process_rec pc;
	unsigned char p[256];
	size_t pos;

	memset(&pc, 0, sizeof(pc));
	pc.pid = 100;
	pc.ppid = 1;
	pc.rank = -1;
	pc.start_mono_ns = 1000;
	memcpy(p, &pc, sizeof(pc));
	pos = dc_put_str(p, sizeof(p), sizeof(pc), "/bin/dd", 7);
	pos = dc_put_str(p, sizeof(p), pos, "dd\0if=x", 7);
	pos = dc_put_str(p, sizeof(p), pos, "/tmp", 4);
	put(s, DC_FRAME_PROCESS, p, (uint32_t)pos);
}

/* STRING: u32 id then bytes; lengths 1..n exercise the padding. */
static void put_strings(struct written *s)
{
	unsigned char p[256];
	int i;

	for (i = 0; i < 8; i++) {
		uint32_t id = (uint32_t)i + 1;
		size_t l = strlen(paths[i]);

		memcpy(p, &id, 4);
		memcpy(p + 4, paths[i], l);
		put(s, DC_FRAME_STRING, p, (uint32_t)(4 + l));
	}
}

static void put_file(struct written *s)
{
	struct dc_file_rec fr;
	unsigned char p[256];
	size_t pos;

	memset(&fr, 0, sizeof(fr));
	fr.size = 4096;
	fr.inode = 1234567;
	fr.dev = 0x803;
	fr.mtime_ns = 1700000000000000000LL;
	fr.mode = 0100644;
	memcpy(p, &fr, sizeof(fr));
	pos = dc_put_str(p, sizeof(p), sizeof(fr), "/tmp/f", 6);
	put(s, DC_FRAME_FILE, p, (uint32_t)pos);
}

/* EVENTS: records of every type, 0..6 args, strings of many sizes; then
 * an empty EVENTS frame, which is legal. */
static void put_events(struct written *s, int events_frames)
{
	unsigned char p[8192];
	size_t pos;
	int i, j;

	for (i = 0; i < events_frames; i++) {
		int n = 1 + (i * 7) % 23;

		pos = 0;
		for (j = 0; j < n; j++) {
			int k = i * 31 + j;
			const char *str = (k % 3 == 0) ? paths[k % 8] : NULL;

			pos += make_event(p + pos, (uint8_t)(1 + k % 7),
					  (uint32_t)(k % 5), 100 + (uint32_t)i,
					  (uint64_t)k * 1000 + 17, k % 7, str);
			s->events++;
		}
		put(s, DC_FRAME_EVENTS, p, (uint32_t)pos);
	}
	put(s, DC_FRAME_EVENTS, p, 0);
}

static void put_drops(struct written *s)
{
	struct dc_drops_rec dr;
	struct dc_drops_entry de[2];
	unsigned char p[sizeof(dr) + sizeof(de)];

	memset(&dr, 0, sizeof(dr));
	memset(de, 0, sizeof(de));
	dr.total = 5;
	dr.count = 2;
	dr.kind = DC_DROPS_PER_CPU;
	de[0].key = 0;
	de[0].dropped = 3;
	de[1].key = 1;
	de[1].dropped = 2;
	memcpy(p, &dr, sizeof(dr));
	memcpy(p + sizeof(dr), de, sizeof(de));
	put(s, DC_FRAME_DROPS, p, sizeof(dr) + sizeof(de));
}

static void put_end(struct written *s)
{
	struct dc_end_rec er;

	memset(&er, 0, sizeof(er));
	er.events = s->events;
	er.dropped = 5;
	er.end_mono_ns = 999999999;
	er.flags = 0;
	put(s, DC_FRAME_END, &er, sizeof(er));
}

/* Writes a stream with every frame type into s: `events_frames` EVENTS
 * frames of varying record mixes among them. */
static void write_stream(struct written *s, int events_frames)
{
	int fd = file_of(NULL, 0);

	written_open(s, fd);
	put_sysinfo(s);
	put_probe(s);
	put_process(s);
	put_strings(s);
	put_file(s);
	put_events(s, events_frames);
	/* A frame type this reader does not know: passed to the caller. */
	put(s, 99, "future!", 7);
	put_drops(s);
	put_end(s);
	written_close(s, fd);
}

/* ---- reading ---- */

struct result {
	int frames_ok;   /* frames matching those written, in order */
	int mismatch;    /* a frame differed from what was written */
	int status;      /* the final status */
	char err[512];
	struct dc_stream_info info;
	int header;      /* dc_reader_header's result */
	uint64_t events; /* records counted in EVENTS frames */
};

static struct result read_fd(const struct written *s, int fd)
{
	struct result res;
	struct dc_reader *r = dc_reader_open(fd, "test");
	struct dc_frame f;
	int st;

	memset(&res, 0, sizeof(res));
	if (r == NULL)
		bail("dc_reader_open");
	res.header = dc_reader_header(r, &res.info);
	if (res.header != DC_READ_FRAME) {
		res.status = res.header;
		snprintf(res.err, sizeof(res.err), "%s", dc_reader_error(r));
		dc_reader_close(r);
		return res;
	}
	while ((st = dc_reader_next(r, &f)) == DC_READ_FRAME) {
		const struct expect *e = &s->frames[res.frames_ok];

		if (res.frames_ok >= s->n || f.type != e->type ||
		    f.len != e->len || memcmp(f.data, e->data, f.len) != 0) {
			res.mismatch = 1;
			break;
		}
		if (f.type == DC_FRAME_EVENTS) {
			uint32_t pos = 0;

			while (pos < f.len) {
				const struct dc_event *ev =
					(const void *)(f.data + pos);
				pos += ev->size;
				res.events++;
			}
		}
		res.frames_ok++;
	}
	res.status = st;
	snprintf(res.err, sizeof(res.err), "%s", dc_reader_error(r));
	dc_reader_close(r);
	return res;
}

static struct result read_bytes(const struct written *s,
				const unsigned char *data, size_t len)
{
	int fd = file_of(data, len);
	struct result res = read_fd(s, fd);

	close(fd);
	return res;
}

/* Read through a pipe whose writer sends one byte per write(2), so the
 * reader sees every possible short read. */
static struct result read_trickle(const struct written *s,
				  const unsigned char *data, size_t len)
{
	int p[2];
	pid_t pid;
	struct result res;

	if (pipe(p) != 0)
		bail("pipe");
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (pid == 0) {
		size_t i;

		close(p[0]);
		for (i = 0; i < len; i++)
			if (write(p[1], data + i, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	res = read_fd(s, p[0]);
	close(p[0]);
	waitpid(pid, NULL, 0);
	return res;
}

/* ---- the tests ---- */

static void test_round_trip(void)
{
	struct written s;
	struct result res;

	write_stream(&s, 40);
	res = read_bytes(&s, s.bytes.data, s.bytes.len);

	ok(res.header == DC_READ_FRAME, "round trip: header read");
	ok(res.info.version == DC_STREAM_VERSION, "round trip: version %u",
	   res.info.version);
	ok(res.info.clock_offset_ns == 1700000000123456789LL,
	   "round trip: clock offset");
	ok(res.info.start_mono_ns == 987654321, "round trip: start time");
	ok(strcmp(res.info.host, "node-17.cluster") == 0,
	   "round trip: host '%s'", res.info.host);
	ok(strcmp(res.info.run_id, "run-0042") == 0,
	   "round trip: run id '%s'", res.info.run_id);
	ok(s.header_size % 8 == 0 && s.header_size == ((48 + 15 + 8 + 7) & ~7u),
	   "header is 48 bytes + names, padded to 8 (%zu)", s.header_size);
	ok(memcmp(s.bytes.data, "\x89" "DCS\r\n\x1a\n", 8) == 0,
	   "stream starts with the magic");
	ok(!res.mismatch && res.frames_ok == s.n,
	   "round trip: all %d frames identical (got %d)", s.n,
	   res.frames_ok);
	ok(res.events == s.events,
	   "round trip: %llu event records", (unsigned long long)res.events);
	ok(res.status == DC_READ_EOF, "round trip: clean EOF after END (%d)",
	   res.status);
	{
		int aligned = 1, i;

		for (i = 0; i < s.n; i++)
			if (s.frames[i].end % 8 != 0)
				aligned = 0;
		ok(aligned && s.bytes.len == s.frames[s.n - 1].end,
		   "every frame ends 8-aligned, nothing after the last");
	}

	res = read_trickle(&s, s.bytes.data, s.bytes.len);
	ok(!res.mismatch && res.frames_ok == s.n &&
	   res.status == DC_READ_EOF,
	   "round trip through a pipe, one byte per write");
	written_free(&s);
}

/* Pattern bytes for large frames. */
static unsigned char *pattern(size_t len, unsigned mul, unsigned add)
{
	unsigned char *d = malloc(len);
	size_t i;

	if (d == NULL)
		bail("malloc");
	for (i = 0; i < len; i++)
		d[i] = (unsigned char)(i * mul + add);
	return d;
}

/* End s with an END frame, close it and read its bytes back. */
static struct result end_and_read(struct written *s, int fd)
{
	struct dc_end_rec er;

	memset(&er, 0, sizeof(er));
	put(s, DC_FRAME_END, &er, sizeof(er));
	written_close(s, fd);
	return read_bytes(s, s->bytes.data, s->bytes.len);
}

static void test_big_frames(void)
{
	/* Frames larger than the reader's initial buffer and the writer's
	 * buffer still round-trip. */
	size_t len = 3u << 20;
	unsigned char *big = pattern(len, 131, 7);
	struct written s;
	struct result res;
	int fd = file_of(NULL, 0);

	written_open(&s, fd);
	put(&s, DC_FRAME_SYSINFO, big, (uint32_t)len);
	put(&s, DC_FRAME_SYSINFO, big + 1, (uint32_t)(len - 1));
	res = end_and_read(&s, fd);
	ok(!res.mismatch && res.frames_ok == 3 && res.status == DC_READ_EOF,
	   "3 MiB frames round-trip (%d frames, status %d)", res.frames_ok,
	   res.status);
	written_free(&s);
	free(big);
}

static void test_direct_frames(void)
{
	/* Frames from 64 KiB on go out from their pieces, not through the
	 * writer's buffer: between buffered ones, whole and in pieces, at
	 * and around that size, padded or not, the bytes and order hold. */
	static const uint32_t lens[] = { 65535, 65536, 65541, 200003 };
	/* Frame i starts at data + i (i < 8): room for the last one. */
	unsigned char *data = pattern(200003 + 8, 31, 1);
	struct written s;
	struct result res;
	int fd = file_of(NULL, 0);
	size_t i;

	written_open(&s, fd);
	for (i = 0; i < 8; i++) {
		put_sysinfo(&s);
		put_parts(&s, DC_FRAME_SYSINFO, data + i, lens[i % 4],
			  i < 4 ? 1 : 3);
	}
	res = end_and_read(&s, fd);
	ok(!res.mismatch && res.frames_ok == 17 && res.status == DC_READ_EOF &&
	   s.bytes.len == s.frames[s.n - 1].end,
	   "frames of 64 KiB and more, whole and in pieces, between small "
	   "ones round-trip (%d frames, status %d)", res.frames_ok, res.status);
	written_free(&s);
	free(data);
}

static void test_truncation(void)
{
	struct written s;
	size_t cut;
	int bad_frames = 0, bad_status = 0, bad_msg = 0;
	size_t first_bad = 0;

	write_stream(&s, 3);
	for (cut = 0; cut < s.bytes.len; cut++) {
		struct result res = read_bytes(&s, s.bytes.data, cut);
		int want = 0, i;

		for (i = 0; i < s.n; i++)
			if (s.frames[i].end <= cut)
				want = i + 1;
		if (res.mismatch || res.frames_ok != want) {
			if (!bad_frames++)
				first_bad = cut;
		}
		if (res.status != DC_READ_TRUNCATED) {
			if (!bad_status++ && !first_bad)
				first_bad = cut;
		}
		if (strstr(res.err, "truncated") == NULL &&
		    strstr(res.err, "empty") == NULL) {
			if (!bad_msg++ && !first_bad)
				first_bad = cut;
		}
		if (res.status != DC_READ_TRUNCATED && bad_status == 1)
			printf("# cut at %zu: status %d, error '%s'\n", cut,
			       res.status, res.err);
	}
	ok(bad_frames == 0,
	   "truncated at each of %zu bytes: every complete frame kept "
	   "(%d wrong, first at %zu)", s.bytes.len, bad_frames, first_bad);
	ok(bad_status == 0,
	   "truncated at each byte: DC_READ_TRUNCATED (%d wrong)", bad_status);
	ok(bad_msg == 0,
	   "truncated at each byte: the message says truncated (%d wrong)",
	   bad_msg);
	{
		struct result res = read_bytes(&s, s.bytes.data,
					       s.bytes.len - 40);

		ok(strstr(res.err, "test: ") == res.err,
		   "the message names the input: '%s'", res.err);
		ok(strchr(res.err, '\n') == NULL, "the message is one line");
	}
	{
		/* Cut in the middle of a frame: the status maps to exit 3. */
		struct result res = read_bytes(&s, s.bytes.data,
					       s.frames[2].end + 5);

		ok(dc_read_exit_status(res.status) == DC_EXIT_TRUNCATED,
		   "truncation maps to exit status 3");
	}
	written_free(&s);
}

/* s read after n bytes at offset at are replaced (d: room for it). */
static struct result read_patched(const struct written *s, unsigned char *d,
				  size_t at, const void *bytes, size_t n)
{
	memcpy(d, s->bytes.data, s->bytes.len);
	memcpy(d + at, bytes, n);
	return read_bytes(s, d, s->bytes.len);
}

/* s read after the byte at offset at is xor-ed with x. */
static struct result read_flipped(const struct written *s, unsigned char *d,
				  size_t at, unsigned char x)
{
	unsigned char c = s->bytes.data[at] ^ x;

	return read_patched(s, d, at, &c, 1);
}

/* A damaged header: magic, version, byte order, size. */
static void damage_header(const struct written *s, unsigned char *d)
{
	struct result res;
	char want[64];
	uint16_t v16;
	uint32_t v32;

	res = read_patched(s, d, 1, "X", 1);
	ok(res.status == DC_READ_BADHDR && strstr(res.err, "magic"),
	   "bad magic: '%s'", res.err);
	ok(dc_read_exit_status(res.status) == DC_EXIT_BADINPUT,
	   "bad magic maps to exit status 4");

	/* Not a stream at all, shorter than the magic. */
	res = read_bytes(s, (const unsigned char *)"hello\n", 6);
	ok(res.status == DC_READ_BADHDR && strstr(res.err, "magic"),
	   "short text input: bad magic, '%s'", res.err);

	v16 = DC_STREAM_VERSION + 1;
	res = read_patched(s, d, 8, &v16, 2);
	snprintf(want, sizeof(want), "version %u (this reader knows %u)",
		 DC_STREAM_VERSION + 1, DC_STREAM_VERSION);
	ok(res.status == DC_READ_BADHDR && strstr(res.err, want),
	   "bad version: '%s'", res.err);

	v32 = __builtin_bswap32(DC_BYTE_ORDER_MARK);
	res = read_patched(s, d, 12, &v32, 4);
	ok(res.status == DC_READ_BADHDR && strstr(res.err, "byte order"),
	   "wrong byte-order mark: '%s'", res.err);

	/* A header size that does not hold the names, or is not a multiple
	 * of 8 (frames would be misaligned). */
	v16 = 40;
	res = read_patched(s, d, 10, &v16, 2);
	ok(res.status == DC_READ_BADHDR && strstr(res.err, "corrupt stream header"),
	   "header size too small: '%s'", res.err);
	v16 = (uint16_t)(s->header_size + 4);
	res = read_patched(s, d, 10, &v16, 2);
	ok(res.status == DC_READ_BADHDR && strstr(res.err, "corrupt stream header"),
	   "header size not a multiple of 8: '%s'", res.err);
}

/* Damaged frame headers and payloads: the frames before are kept. */
static void damage_frames(const struct written *s, unsigned char *d)
{
	static const uint16_t type0;
	struct result res;
	uint32_t v32;

	/* Corrupt checksum: flip one payload byte of the 4th frame. */
	res = read_flipped(s, d, s->frames[2].end + DC_FRAME_HDR_SIZE, 0x40);
	ok(res.status == DC_READ_CORRUPT && strstr(res.err, "checksum") &&
	   res.frames_ok == 3 && !res.mismatch,
	   "corrupt payload: 3 frames kept, then '%s'", res.err);
	ok(dc_read_exit_status(res.status) == DC_EXIT_BADINPUT,
	   "corruption maps to exit status 4");

	/* Corrupt checksum field itself. */
	res = read_flipped(s, d, s->frames[0].end + 8, 0x01);
	ok(res.status == DC_READ_CORRUPT && res.frames_ok == 1,
	   "corrupt checksum field: '%s'", res.err);

	v32 = DC_FRAME_MAX + 1;
	res = read_patched(s, d, s->frames[1].end + 4, &v32, 4);
	ok(res.status == DC_READ_CORRUPT && res.frames_ok == 2 &&
	   strstr(res.err, "corrupt"),
	   "oversized frame length: '%s'", res.err);

	/* Frame type 0 is never written. */
	res = read_patched(s, d, s->frames[1].end, &type0, 2);
	ok(res.status == DC_READ_CORRUPT && res.frames_ok == 2,
	   "frame type 0: '%s'", res.err);
}

/* An EVENTS frame whose record sizes do not add up, with a checksum
 * that matches: the reader still refuses it. */
static void damage_events(const struct written *s, unsigned char *d)
{
	struct result res;
	unsigned char *payload;
	uint16_t size = 60; /* not a multiple of 8 */
	uint32_t crc;
	size_t at;
	int i, idx = -1;

	for (i = 0; i < s->n && idx < 0; i++)
		if (s->frames[i].type == DC_FRAME_EVENTS && s->frames[i].len > 0)
			idx = i;
	memcpy(d, s->bytes.data, s->bytes.len);
	at = s->frames[idx - 1].end;
	payload = d + at + DC_FRAME_HDR_SIZE;
	memcpy(payload, &size, 2);
	crc = (uint32_t)crc32(0L, payload, s->frames[idx].len);
	memcpy(d + at + 8, &crc, 4);
	res = read_bytes(s, d, s->bytes.len);
	ok(res.status == DC_READ_CORRUPT && res.frames_ok == idx &&
	   strstr(res.err, "events"),
	   "malformed event record: '%s'", res.err);
}

/* Bytes after the END frame that are not a frame; no END frame. */
static void damage_end(const struct written *s)
{
	unsigned char *e = malloc(s->bytes.len + 3);
	struct result res;

	memcpy(e, s->bytes.data, s->bytes.len);
	memcpy(e + s->bytes.len, "xyz", 3);
	res = read_bytes(s, e, s->bytes.len + 3);
	ok(res.status == DC_READ_TRUNCATED && res.frames_ok == s->n,
	   "garbage after END: all frames, then '%s'", res.err);
	free(e);

	/* A stream that stops after a complete frame but before END. */
	res = read_bytes(s, s->bytes.data, s->frames[s->n - 2].end);
	ok(res.status == DC_READ_TRUNCATED && strstr(res.err, "no end frame"),
	   "no END frame: '%s'", res.err);
}

static void test_damage(void)
{
	struct written s;
	unsigned char *d;
	struct result res;

	write_stream(&s, 3);
	d = malloc(s.bytes.len);
	res = read_bytes(&s, s.bytes.data, 0);
	ok(res.status == DC_READ_TRUNCATED && strstr(res.err, "empty"),
	   "empty input: truncated, '%s'", res.err);
	damage_header(&s, d);
	damage_frames(&s, d);
	damage_events(&s, d);
	damage_end(&s);
	free(d);
	written_free(&s);
}

static void test_strings(void)
{
	unsigned char p[16];
	const char *s;
	size_t l, pos;

	pos = dc_put_str(p, sizeof(p), 0, "abc", 3);
	ok(pos == 5 && p[0] == 3 && p[1] == 0 && memcmp(p + 2, "abc", 3) == 0,
	   "dc_put_str writes u16 length then bytes");
	ok(dc_put_str(p, sizeof(p), 5, "0123456789", 10) == 0,
	   "dc_put_str refuses to overflow");
	pos = dc_get_str(p, 5, 0, &s, &l);
	ok(pos == 5 && l == 3 && memcmp(s, "abc", 3) == 0,
	   "dc_get_str reads it back");
	ok(dc_get_str(p, 4, 0, &s, &l) == 0, "dc_get_str refuses a cut string");
	ok(dc_get_str(p, 5, 4, &s, &l) == 0,
	   "dc_get_str refuses a cut length");
}

static void test_exit_statuses(void)
{
	ok(dc_read_exit_status(DC_READ_EOF) == 0 &&
	   dc_read_exit_status(DC_READ_TRUNCATED) == 3 &&
	   dc_read_exit_status(DC_READ_CORRUPT) == 4 &&
	   dc_read_exit_status(DC_READ_BADHDR) == 4 &&
	   dc_read_exit_status(DC_READ_ERROR) == 1,
	   "read statuses map to exit statuses 0, 3, 4, 4, 1");
}

int main(void)
{
	test_round_trip();
	test_big_frames();
	test_direct_frames();
	test_truncation();
	test_damage();
	test_strings();
	test_exit_statuses();
	return tap_done();
}

/*
 * dc-uring - an exact io_uring workload, through the raw system calls
 * (no liburing): one request in flight at a time, each checked.
 *
 *   dc-uring IN N OUT   through the ring: open IN and create OUT
 *                       (IORING_OP_OPENAT), a NOP, then N times read
 *                       64 KiB of IN (IORING_OP_READ, at offset i x 64
 *                       KiB) and write them to OUT (IORING_OP_WRITE);
 *                       close both (IORING_OP_CLOSE).  IN must hold N x
 *                       64 KiB.  Exit 0 when every result was the one
 *                       expected, 1 otherwise, 2 on usage errors, 3 when
 *                       the kernel has no io_uring.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/io_uring.h>

#define CHUNK 65536

struct ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned long long next_id;
};

static void fail(const char *what)
{
	fprintf(stderr, "dc-uring: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *map(int fd, size_t len, off_t what)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, what);

	if (p == MAP_FAILED)
		fail("mmap");
	return p;
}

static void ring_open(struct ring *r)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0) {
		fprintf(stderr, "dc-uring: io_uring_setup: %s\n", strerror(errno));
		exit(3);
	}
	sq = map(r->fd, p.sq_off.array + p.sq_entries * sizeof(unsigned),
		 IORING_OFF_SQ_RING);
	cq = map(r->fd, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		 IORING_OFF_CQ_RING);
	r->sqes = map(r->fd, p.sq_entries * sizeof(struct io_uring_sqe),
		      IORING_OFF_SQES);
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	r->next_id = 1000;
}

/* Submit one request and wait for its completion: its result. */
static int ring_run(struct ring *r, struct io_uring_sqe *want)
{
	unsigned tail = *r->sq_tail, idx = tail & *r->sq_mask, head;
	struct io_uring_cqe *cqe;
	int res;

	want->user_data = r->next_id++;
	r->sqes[idx] = *want;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) != 1)
		fail("io_uring_enter");
	head = *r->cq_head;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		fail("no completion");
	cqe = &r->cqes[head & *r->cq_mask];
	if (cqe->user_data != want->user_data)
		fail("a completion of another request");
	res = cqe->res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

static int uring_open(struct ring *r, const char *path, int flags)
{
	struct io_uring_sqe s;
	int fd;

	memset(&s, 0, sizeof(s));
	s.opcode = IORING_OP_OPENAT;
	s.fd = AT_FDCWD;
	s.addr = (unsigned long)path;
	s.len = 0644;
	s.open_flags = (unsigned)flags;
	fd = ring_run(r, &s);
	if (fd < 0) {
		errno = -fd;
		fail(path);
	}
	return fd;
}

/* One read or write of CHUNK bytes at off; every byte of it moved. */
static void uring_rw(struct ring *r, int op, int fd, char *buf, off_t off)
{
	struct io_uring_sqe s;
	int res;

	memset(&s, 0, sizeof(s));
	s.opcode = (unsigned char)op;
	s.fd = fd;
	s.addr = (unsigned long)buf;
	s.len = CHUNK;
	s.off = (unsigned long long)off;
	res = ring_run(r, &s);
	if (res != CHUNK) {
		errno = res < 0 ? -res : EIO;
		fail(op == IORING_OP_READ ? "read" : "write");
	}
}

static void uring_simple(struct ring *r, int op, int fd)
{
	struct io_uring_sqe s;
	int res;

	memset(&s, 0, sizeof(s));
	s.opcode = (unsigned char)op;
	s.fd = fd;
	res = ring_run(r, &s);
	if (res != 0) {
		errno = -res;
		fail(op == IORING_OP_NOP ? "nop" : "close");
	}
}

int main(int argc, char **argv)
{
	static char buf[CHUNK];
	struct ring r;
	long i, n;
	int in, out;

	if (argc != 4 || (n = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: dc-uring IN N OUT\n");
		return 2;
	}
	ring_open(&r);
	in = uring_open(&r, argv[1], O_RDONLY);
	out = uring_open(&r, argv[3], O_WRONLY | O_CREAT | O_TRUNC);
	uring_simple(&r, IORING_OP_NOP, -1);
	for (i = 0; i < n; i++) {
		uring_rw(&r, IORING_OP_READ, in, buf, (off_t)i * CHUNK);
		uring_rw(&r, IORING_OP_WRITE, out, buf, (off_t)i * CHUNK);
	}
	uring_simple(&r, IORING_OP_CLOSE, in);
	uring_simple(&r, IORING_OP_CLOSE, out);
	return 0;
}

/*
 * fast.c - libdcclient.so's fast path: the handshake with dc-collect and
 * the per-thread rings the wrappers write records into.
 *
 * See lib/fastabi.h for the protocol and the mapping.  Rules this file
 * keeps, because it runs inside somebody else's program:
 *  - No collector, no cost: if the socket cannot be reached, every
 *    dc_fast_on[] byte stays 0 and the wrappers never come here.
 *  - Never harm the process: no malloc, no stdio, errno preserved, no
 *    blocking beyond the bounded handshake, strings copied only from
 *    pointers the call itself has just used successfully.
 *  - Lose nothing silently: a full slot, no free slot or a call made
 *    while the thread was already writing a record (a signal handler)
 *    each count a drop the collector reports.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

#include "event.h"
#include "fdpass.h"
#include "client.h"

/* Client sequence numbers have the top bit set (DC_SEQ_CLIENT). */
#define CLIENT_SEQ_BIT (1ULL << 63)

DC_HIDDEN unsigned char dc_fast_on[DC_FAST_NFUNCS];

/* The process's fast-path state, set by the handshake. */
static struct {
	struct dc_fast_func_cfg funcs[DC_FAST_NFUNCS];
	struct dc_fast_shm *shm;
	size_t map_bytes;
	__u64 slot_bytes;
	__u32 nslots;
	pthread_key_t key;
	int key_ok;
} fast;

enum { THR_NONE = 0, THR_SLOT = 1, THR_NOSLOT = 2 };

/* Per thread.  `k` comes first: the collector's BPF program reads it at
 * the thread pointer + its offset, sent in the hello. */
static __thread struct {
	struct dc_client_tls k;
	struct dc_fast_slot *slot;
	unsigned char *data;
	__u64 head;
	__u64 seq;
	__u32 tid;
	unsigned char state;
	unsigned char busy;
} thr __attribute__((tls_model("initial-exec")));

void *dc_real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	static const char msg[] = "libdcclient.so: no next definition of a wrapped function\n";

	if (f == NULL) {
		if (write(2, msg, sizeof(msg) - 1) < 0)
			abort();
		abort();
	}
	return f;
}

static __u64 now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (__u64)t.tv_sec * 1000000000ULL + (__u64)t.tv_nsec;
}

/* ---- slots ---- */

static struct dc_fast_slot *slot_at(__u32 i)
{
	return (struct dc_fast_slot *)((char *)fast.shm + DC_FAST_HDR_BYTES +
				       (size_t)i * DC_FAST_SLOT_HDR_BYTES);
}

static void release_slot(void *arg)
{
	struct dc_fast_slot *s = arg;

	/* The head is already published; the next owner continues it. */
	if (s != NULL && s == thr.slot) {
		thr.slot = NULL;
		thr.state = THR_NONE;
		__atomic_store_n(&s->owner, 0, __ATOMIC_RELEASE);
	}
}

static int claim_slot(void)
{
	__u32 i, tid;

	if (thr.state == THR_NOSLOT)
		return 0;
	if (fast.shm == NULL)
		return 0;
	tid = (__u32)syscall(SYS_gettid);
	for (i = 0; i < fast.nslots; i++) {
		struct dc_fast_slot *s = slot_at(i);
		__u32 free_owner = 0;

		if (__atomic_load_n(&s->owner, __ATOMIC_RELAXED) != 0)
			continue;
		if (!__atomic_compare_exchange_n(&s->owner, &free_owner, tid, 0,
						 __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		thr.slot = s;
		thr.tid = tid;
		thr.data = (unsigned char *)fast.shm +
			   dc_fast_data_offset(fast.nslots) +
			   (size_t)i * fast.slot_bytes;
		thr.head = __atomic_load_n(&s->head, __ATOMIC_RELAXED);
		thr.state = THR_SLOT;
		if (fast.key_ok)
			pthread_setspecific(fast.key, s);
		return 1;
	}
	thr.state = THR_NOSLOT;
	return 0;
}

static void count_lost(void)
{
	if (fast.shm != NULL)
		__atomic_fetch_add(&fast.shm->lost, 1, __ATOMIC_RELAXED);
}

/* ---- calls ---- */

void dc_call_begin(struct dc_call *c, int fn, const __u64 *args, int nargs)
{
	const struct dc_fast_func_cfg *cfg = &fast.funcs[fn];

	c->fn = fn;
	c->file_fd = -1;
	/* The call is about to use this FILE: reading its descriptor now
	 * is as safe as the call. */
	if (cfg->file_arg < nargs && args[cfg->file_arg] != 0)
		c->file_fd = fileno_unlocked((FILE *)(uintptr_t)args[cfg->file_arg]);
	c->parent = thr.k.cur;
	c->seq = ++thr.seq | CLIENT_SEQ_BIT;
	thr.k.cur = c->seq;
	thr.k.depth++;
	/* The kernel reads k at the syscall this call makes: stored first. */
	__asm__ __volatile__("" ::: "memory");
	c->ts = now_ns();
}

static __u64 round8(__u64 n)
{
	return (n + 7) & ~7ULL;
}

/* As collect.bpf.c decides. */
static int failed(__u8 ret_kind, __s64 ret)
{
	if (ret_kind == DC_RET_HANDLE)
		return ret <= 0;
	if (ret_kind == DC_RET_NONE)
		return 0;
	if (ret_kind == DC_RET_CODE)
		return ret != 0;
	return ret < 0;
}

/* Reserve `size` contiguous bytes in this thread's slot, or NULL. */
static unsigned char *reserve(__u64 size)
{
	__u64 cap = fast.slot_bytes, tail, off, to_end, need;

	if (thr.state != THR_SLOT && !claim_slot())
		return NULL;
	tail = __atomic_load_n(&thr.slot->tail, __ATOMIC_ACQUIRE);
	off = thr.head & (cap - 1);
	to_end = cap - off;
	need = size + (to_end < size ? to_end : 0);
	if (thr.head + need - tail > cap) {
		__atomic_store_n(&thr.slot->drops, thr.slot->drops + 1,
				 __ATOMIC_RELAXED);
		return NULL;
	}
	if (to_end < size) {
		struct dc_event *pad = (struct dc_event *)(thr.data + off);

		pad->size = (__u16)to_end;
		pad->type = 0;
		thr.head += to_end;
		off = 0;
	}
	return thr.data + off;
}

void dc_call_end(struct dc_call *c, __s64 ret, const __u64 *args, int nargs,
		 int str_index, int efault)
{
	const struct dc_fast_func_cfg *cfg = &fast.funcs[c->fn];
	__u64 end = now_ns(), size;
	const char *str = NULL, *str2 = NULL;
	size_t len = 0, len2 = 0;
	int saved = errno, n, i, trunc = 0;
	struct dc_event *ev;

	thr.k.depth--;
	thr.k.cur = c->parent;
	if (thr.busy) {
		count_lost();
		goto out;
	}
	thr.busy = 1;
	n = cfg->nargs > DC_MAX_ARGS ? DC_MAX_ARGS : cfg->nargs;
	/* A string only where the spec asks for the argument that is one,
	 * and only when the call did not fault on it. */
	if (cfg->str_arg < DC_MAX_ARGS && cfg->str_arg == str_index &&
	    str_index < nargs && !efault && args[str_index] != 0) {
		str = (const char *)(uintptr_t)args[str_index];
		len = strnlen(str, DC_MAX_STR - 1);
		if (len == DC_MAX_STR - 1 && str[len] != '\0')
			trunc = 1;
	}
	if (cfg->str_arg2 < DC_MAX_ARGS && cfg->str_arg2 < nargs && !efault &&
	    args[cfg->str_arg2] != 0) {
		str2 = (const char *)(uintptr_t)args[cfg->str_arg2];
		len2 = strnlen(str2, DC_MAX_STR - 1);
		if (len2 == DC_MAX_STR - 1 && str2[len2] != '\0')
			trunc = 1;
	}
	if (cfg->file_arg < DC_MAX_ARGS)
		n = DC_MAX_ARGS;
	if (cfg->str_arg < DC_MAX_ARGS) {
		/* As the BPF path: all slots, then the string and its NUL,
		 * then a second string and its NUL. */
		n = DC_MAX_ARGS;
		size = round8(DC_EVENT_HDR_SIZE + 8 * n + len + 1 +
			      (cfg->str_arg2 < DC_MAX_ARGS ? len2 + 1 : 0));
	} else {
		size = DC_EVENT_HDR_SIZE + 8 * (__u64)n;
	}
	ev = (struct dc_event *)reserve(size);
	if (ev == NULL)
		goto unbusy;
	memset(ev, 0, DC_EVENT_HDR_SIZE);
	ev->size = (__u16)size;
	ev->type = DC_EV_CALL;
	ev->probe_id = cfg->probe_id;
	ev->pid = 0; /* the collector knows the process */
	ev->tid = thr.tid;
	ev->ts = c->ts;
	ev->dur = end - c->ts;
	ev->ret = ret;
	ev->depth = (__u16)thr.k.depth;
	ev->nargs = (__u8)n;
	if (failed(cfg->ret_kind, ret)) {
		/* The errno this call failed with: known here exactly. */
		ev->flags |= DC_EVF_FAILED;
		ev->error = saved;
	}
	if (trunc)
		ev->flags |= DC_EVF_STR_TRUNC;
#ifdef DC_SEQ_CLIENT
	ev->seq = c->seq;
	ev->parent = c->parent;
#endif
	for (i = 0; i < n; i++)
		DC_EVENT_ARGS(ev)[i] = i < nargs ? args[i] : 0;
	if (cfg->file_arg < DC_MAX_ARGS)
		DC_EVENT_ARGS(ev)[DC_MAX_ARGS - 1] = (__u64)(__s64)c->file_fd;
	if (cfg->str_arg < DC_MAX_ARGS) {
		char *s = DC_EVENT_STR(ev);

		memset(s, 0, size - (DC_EVENT_HDR_SIZE + 8 * (__u64)n));
		ev->str_len = (__u16)len;
		if (len > 0)
			memcpy(s, str, len);
		if (cfg->str_arg2 < DC_MAX_ARGS) {
			ev->str_len = (__u16)(len + 1 + len2);
			if (len2 > 0)
				memcpy(s + len + 1, str2, len2);
		}
	}
	thr.head += size;
	__atomic_store_n(&thr.slot->head, thr.head, __ATOMIC_RELEASE);
unbusy:
	thr.busy = 0;
out:
	errno = saved;
}

/* ---- handshake ---- */

static int socket_address(struct sockaddr_un *a, socklen_t *len)
{
	const char *name = getenv(DC_FAST_ENV);
	size_t n;

	if (name == NULL || *name == '\0')
		name = DC_FAST_DEFAULT_SOCKET;
	n = strlen(name);
	if (n >= sizeof(a->sun_path))
		return -1;
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path, name, n);
	if (name[0] == '@')
		a->sun_path[0] = '\0'; /* abstract */
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	return 0;
}

/* The shared mapping, sized as the collector asked and sealed so it can
 * neither shrink under the collector nor grow. */
static int make_ring(const struct dc_fast_config *cfg, int *fd_out)
{
	__u64 bytes = dc_fast_map_bytes(cfg->nslots, cfg->slot_bytes);
	struct dc_fast_shm *shm;
	int fd;

	fd = memfd_create("datacrumbs", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)bytes) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
		goto fail;
	shm = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED)
		goto fail;
	shm->magic = DC_FAST_SHM_MAGIC;
	shm->version = DC_FAST_VERSION;
	shm->nslots = cfg->nslots;
	shm->slot_bytes = cfg->slot_bytes;
	shm->data_offset = dc_fast_data_offset(cfg->nslots);
	fast.shm = shm;
	fast.map_bytes = bytes;
	*fd_out = fd;
	return 0;
fail:
	close(fd);
	return -1;
}

static int valid_config(const struct dc_fast_config *cfg)
{
	return cfg->magic == DC_FAST_MAGIC && cfg->version == DC_FAST_VERSION &&
	       cfg->nslots > 0 && cfg->nslots <= 1024 &&
	       cfg->slot_bytes >= 4096 && cfg->slot_bytes <= (1ULL << 30) &&
	       (cfg->slot_bytes & (cfg->slot_bytes - 1)) == 0 &&
	       cfg->nfuncs <= DC_FAST_NFUNCS;
}

/* Connect, exchange hello, config, ring and go; on any failure the fast
 * path stays off for this process. */
static void handshake(void)
{
	struct timeval tv = { DC_FAST_TIMEOUT_MS / 1000,
			      (DC_FAST_TIMEOUT_MS % 1000) * 1000 };
	struct dc_fast_config cfg;
	struct dc_fast_hello hello;
	struct dc_fast_ready ready;
	struct sockaddr_un addr;
	socklen_t alen;
	int sock, ring = -1, saved = errno;
	__u32 i;

	if (socket_address(&addr, &alen) != 0)
		goto out;
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0)
		goto out;
	if (connect(sock, (struct sockaddr *)&addr, alen) != 0)
		goto close_sock;
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(&hello, 0, sizeof(hello));
	hello.magic = DC_FAST_MAGIC;
	hello.version = DC_FAST_VERSION;
	hello.nfuncs = DC_FAST_NFUNCS;
	hello.tls_off = (__s64)((char *)&thr.k - (char *)__builtin_thread_pointer());
	if (send(sock, &hello, sizeof(hello), MSG_NOSIGNAL) != (ssize_t)sizeof(hello))
		goto close_sock;
	memset(&cfg, 0, sizeof(cfg));
	if (recv(sock, &cfg, sizeof(cfg), 0) < (ssize_t)offsetof(struct dc_fast_config, funcs) ||
	    !valid_config(&cfg))
		goto close_sock;
	if (make_ring(&cfg, &ring) != 0)
		goto close_sock;
	ready.magic = DC_FAST_MAGIC;
	ready.ok = 1;
	if (dc_send_fd(sock, &ready, sizeof(ready), ring) != 0)
		goto unmap;
	memset(&ready, 0, sizeof(ready));
	if (recv(sock, &ready, sizeof(ready), 0) != (ssize_t)sizeof(ready) ||
	    ready.magic != DC_FAST_MAGIC || ready.ok != 1)
		goto unmap;
	fast.nslots = cfg.nslots;
	fast.slot_bytes = cfg.slot_bytes;
	for (i = 0; i < cfg.nfuncs; i++)
		fast.funcs[i] = cfg.funcs[i];
	/* Only now, with the collector holding the ring: record. */
	for (i = 0; i < cfg.nfuncs; i++)
		dc_fast_on[i] = cfg.funcs[i].on;
	close(ring);
	close(sock);
	errno = saved;
	return;
unmap:
	munmap(fast.shm, fast.map_bytes);
	fast.shm = NULL;
	close(ring);
close_sock:
	close(sock);
out:
	errno = saved;
}

/* A forked child must not write into its parent's mapping: it starts
 * over with a ring of its own. */
static void after_fork_child(void)
{
	int on = fast.shm != NULL;

	memset(dc_fast_on, 0, sizeof(dc_fast_on));
	if (fast.shm != NULL)
		munmap(fast.shm, fast.map_bytes);
	fast.shm = NULL;
	thr.slot = NULL;
	thr.state = THR_NONE;
	thr.head = 0;
	thr.k.cur = 0;
	thr.k.depth = 0;
	thr.seq = 0;
	if (on)
		handshake();
}

DC_HIDDEN void dc_fast_init(void)
{
	handshake();
	if (fast.shm == NULL)
		return;
	fast.key_ok = pthread_key_create(&fast.key, release_slot) == 0;
	pthread_atfork(NULL, NULL, after_fork_child);
}

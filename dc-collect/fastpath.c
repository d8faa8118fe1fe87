/*
 * fastpath.c - dc-collect's half of the user-level fast path.
 *
 * Clients (libdcclient.so, see lib/fastabi.h) connect to our socket,
 * learn which of their wrapped functions the signed spec records, and hand
 * us a sealed memfd holding one single-producer ring per thread.  We map
 * it and copy what they write into the stream.
 *
 * A client is not trusted.  What it writes is its own claim and is
 * checked record by record: size, type, probe id (only the functions we
 * told it to record), argument count, string bounds; the process id is the
 * one the kernel gave us at connect time, whatever the record says.  Our
 * read position is our own copy, never read back from the mapping.  A slot
 * whose positions make no sense is abandoned with one warning.  Each drain
 * reads at most what the ring holds, so no client can stall us, and the
 * memfd's size is sealed, so none can make our mapping fault.  Sockets are
 * non-blocking; a handshake that stalls is dropped.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "fastpath.h"
#include "messages.h"
#include "proc.h"
#include "collect.h"
#include "elfsyms.h"
#include "fastabi.h"
#include "fdpass.h"
#include "statepool.h"
#include "spec.h"

#define MAX_CONNS 64
#define HANDSHAKE_NS (5ULL * 1000000000ULL)
#define MAX_RECORD (DC_EVENT_HDR_SIZE + 8 * DC_MAX_ARGS + DC_MAX_STR + 8)

enum conn_state { CONN_FREE, CONN_HELLO, CONN_RING };

struct conn {
	int fd;
	enum conn_state state;
	pid_t pid;
	uid_t uid;
	__s64 tls_off;
	int state_fd;            /* its call-state map, -1: none */
	int state_idx;           /* ... at this index of client_states */
	uint64_t since;
};

struct ring {
	struct ring *next;
	pid_t pid;
	uint64_t since;          /* monotonic ns of the handshake */
	unsigned char *map;
	size_t bytes;
	uint32_t nslots;
	uint64_t slot_bytes;
	uint64_t *tail;          /* our read positions, per slot */
	uint64_t *snap;          /* heads at the last snapshot */
	uint64_t *populated;     /* data bytes allocated ahead, per slot */
	bool *bad;               /* slot abandoned */
	uint64_t invalid;        /* records refused */
	int state_idx;           /* its call-state map's index in
	                            client_states (which holds the map: we
	                            keep no descriptor), -1: none */
};

struct lost {
	uint32_t pid;
	struct dc_fast_lost n;
};

struct dc_fast {
	struct dc_fast_opts o;
	char name[108];
	int listen_fd;
	int epoll_fd;
	struct conn conns[MAX_CONNS];
	struct dc_fast_config cfg;       /* what every client is told */
	size_t nprobes;
	bool *covered;                   /* per probe id */
	uint8_t *want_nargs;             /* per probe id */
	bool *want_str;                  /* per probe id */
	size_t ncovered;
	const char *lib_target;          /* the last mpiio or hdf5 target */
	bool lib_shared;                 /* ... is a shared library */
	struct ring *rings;
	pid_t *expect;                   /* processes that should connect */
	size_t nexpect, expect_cap;
	unsigned without;                /* ... and exited without */
	struct lost *lost;
	size_t nlost, lost_cap;
	struct dc_states *states;        /* call-state maps ready, or NULL */
};

static const char *const fast_names[DC_FAST_NFUNCS] = {
#define DC_FAST_NAME(name, layer) #name,
	DC_FAST_FUNCS(DC_FAST_NAME)
#undef DC_FAST_NAME
};

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static bool is_libc(const char *target)
{
	const char *base = target ? strrchr(target, '/') : NULL;

	base = base ? base + 1 : target;
	return base != NULL && strncmp(base, "libc.so", 7) == 0;
}

/* Whether PATH is a shared library: an ELF ET_DYN file without an
 * interpreter (a PIE executable has one).  An mpiio or hdf5 layer aimed
 * at an executable means the library is linked into it: its calls never
 * reach the client's wrappers. */
static bool is_shared_library(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;
	uint16_t type = ET_NONE;

	if (fd < 0)
		return false;
	r = dc_elf_interp(fd, &type);
	close(fd);
	return r == 0 && type == ET_DYN;
}

/* glibc's librt, where POSIX AIO was before 2.34 (dc-gen probes it
 * there where libc has none). */
static bool is_librt(const char *target)
{
	const char *base = strrchr(target, '/');

	base = base ? base + 1 : target;
	return strncmp(base, "librt.so", 8) == 0;
}

/* Whether the client's wrapper of function fn sees the calls the probe
 * would: libc's functions in libc (or librt: a program calls its AIO
 * functions by name, as libc's), the mpiio and hdf5 layers' in a shared
 * library (the program reaches it through the dynamic linker, and so
 * the wrapper first). */
static bool client_sees(struct dc_fast *f, const struct dc_probe *p, int fn)
{
	if (fn < DC_FN_FIRST_LIB)
		return is_libc(p->target) || is_librt(p->target);
	if (f->lib_target != NULL && strcmp(f->lib_target, p->target) == 0)
		return f->lib_shared;
	f->lib_target = p->target;
	f->lib_shared = is_shared_library(p->target);
	if (!f->lib_shared)
		notice("fast path: %s is not a shared library: its mpiio and "
		       "hdf5 functions stay uprobes (a trap a call)", p->target);
	return f->lib_shared;
}

/* Whether the client's wrapper of fn reads the registers probe p does:
 * a checking version's (lib/checking.h) records its function's
 * arguments, from the registers the list names, as the function's calls;
 * any other wrapper its arguments in order. */
static bool same_registers(const struct dc_probe *p, int fn)
{
	const struct dc_checking *c = dc_checking_find(fast_names[fn]);
	int a;

	if (c == NULL)
		return !dc_probe_remaps(p);
	if (p->as == NULL || strcmp(p->as, c->as) != 0 || p->nargs > c->nregs)
		return false;
	for (a = 0; a < p->nargs; a++)
		if (p->regs[a] != c->regs[a])
			return false;
	return true;
}

/* What the client reads as the kernel programs do: a FILE's descriptor
 * and a struct aiocb's request (at entry: dc-wrap/derive.c), up to two
 * strings, one slot derived at return (an iovec total, a
 * string's length: lib/bytes.h), and for the mpiio and hdf5 functions
 * the handles, datatype sizes and status counts read through their
 * pointers (dc-wrap/iolibs.c).  Anything else stays a uprobe, so the
 * trace is the same. */
static bool client_can_record(const struct dc_probe *p, int fn)
{
	bool lib = fn >= DC_FN_FIRST_LIB;
	int a, strings = 0, derived = 0;

	if (!same_registers(p, fn)) {
		notice("fast path: the probe of %s records it otherwise than "
		       "the client library: it stays a uprobe", p->function);
		return false;
	}
	for (a = 0; a < p->nargs && a < DC_MAX_ARGS; a++) {
		switch (p->arg_kinds[a]) {
		case DC_ARG_PATH:
		case DC_ARG_STR:
			strings++;
			break;
		case DC_ARG_IOV:
		case DC_ARG_STRLEN:
		case DC_ARG_STROUT:
			derived++;
			break;
		case DC_ARG_DATATYPE:
		case DC_ARG_MPISTATUS:
		case DC_ARG_HANDLE_OUT:
		case DC_ARG_HANDLE_IN:
			if (!lib)
				return false;
			break;
		}
	}
	return strings <= 2 && derived <= 1 &&
	       (p->ret_kind <= DC_RET_INT || p->ret_kind == DC_RET_ITEMS ||
		p->ret_kind == DC_RET_ALL || p->ret_kind == DC_RET_CHAR ||
		p->ret_kind == DC_RET_CODE);
}

/* fn's entry of the table from probe i (p), which it records. */
static void func_cfg(struct dc_fast *f, int fn, const struct dc_probe *p,
		     size_t i)
{
	struct dc_fast_func_cfg *fc = &f->cfg.funcs[fn];
	int a;

	fc->on = 1;
	fc->probe_id = (__u32)i;
	fc->nargs = (__u8)(p->nargs > DC_MAX_ARGS ? DC_MAX_ARGS : p->nargs);
	fc->ret_kind = p->ret_kind;
	fc->str_arg = fc->str_arg2 = fc->file_arg = fc->derive_arg = 0xff;
	for (a = 0; a < fc->nargs; a++) {
		fc->arg_kinds[a] = p->arg_kinds[a];
		if (p->arg_kinds[a] == DC_ARG_PATH ||
		    p->arg_kinds[a] == DC_ARG_STR) {
			if (fc->str_arg == 0xff)
				fc->str_arg = (__u8)a;
			else if (fc->str_arg2 == 0xff)
				fc->str_arg2 = (__u8)a;
		}
		if (dc_arg_is_stream(p->arg_kinds[a]) && fc->file_arg == 0xff)
			fc->file_arg = (__u8)a;
		if (p->arg_kinds[a] == DC_ARG_IOV ||
		    p->arg_kinds[a] == DC_ARG_STRLEN ||
		    p->arg_kinds[a] == DC_ARG_STROUT) {
			fc->derive_arg = (__u8)a;
			fc->derive_kind = p->arg_kinds[a];
		}
	}
	/* As the kernel's records: all slots when a string follows or a
	 * FILE's descriptor takes the last one. */
	if (fc->file_arg != 0xff)
		fc->nargs = DC_MAX_ARGS;
	if (!f->covered[i]) {
		f->covered[i] = true;
		f->want_str[i] = fc->str_arg != 0xff;
		f->want_nargs[i] = f->want_str[i] ? DC_MAX_ARGS : fc->nargs;
		f->ncovered++;
	}
}

static int fast_index(const char *name)
{
	int fn;

	for (fn = 0; fn < DC_FAST_NFUNCS; fn++)
		if (strcmp(fast_names[fn], name) == 0)
			return fn;
	return -1;
}

static bool is_alias(const char *name)
{
	static const char *const aliases[] = {
#define DC_FAST_ALIAS_NAME(name, as) #name,
		DC_FAST_ALIASES(DC_FAST_ALIAS_NAME)
#undef DC_FAST_ALIAS_NAME
	};
	size_t k;

	for (k = 0; k < sizeof(aliases) / sizeof(aliases[0]); k++)
		if (strcmp(aliases[k], name) == 0)
			return true;
	return false;
}

/* The table's functions that are libc's function at p's offset: every
 * name a program can call it by (glibc exports open and open64 at one
 * address; a program built with _FILE_OFFSET_BITS=64 calls open64, and
 * the uprobe on the address sees both), set in fns, their count
 * returned; 0: the client wraps none.  -1: it wraps some, but not
 * another name a program could call it by (and bypass the wrappers),
 * so it stays a uprobe.  The other
 * names with a leading underscore are libc's own (__open, __libc_open),
 * which programs do not call; the table's (a checking version,
 * __fread_chk) they do. */
static int libc_names(const struct dc_elf *elf, const struct dc_probe *p,
		      bool *fns)
{
	const struct dc_elf_func *fu = dc_elf_func_at(elf, p->offset);
	const char *other = NULL;
	size_t k;
	int n = 0, fn;

	if (fu == NULL)
		return 0;
	for (k = 0; k < fu->nnames; k++) {
		const struct dc_elf_name *nm = &fu->names[k];

		if (!nm->from_dynsym || !nm->is_default)
			continue;
		fn = fast_index(nm->name);
		if (fn >= 0 && fn < DC_FN_FIRST_LIB) {
			n += !fns[fn];
			fns[fn] = true;
		} else if (nm->name[0] != '_' && !is_alias(nm->name)) {
			other = nm->name;
		}
	}
	if (n > 0 && other != NULL) {
		notice("fast path: %s is also %s, which the client library "
		       "does not wrap: it stays a uprobe", p->function, other);
		return -1;
	}
	return n;
}

/* libc's symbols, read at its first probe (once, whether or not they
 * could be). */
struct libc_syms {
	struct dc_elf *elf;
	bool failed;
};

/* Which of the table's functions record probe p into fns, by name, or
 * for libc's by address (libc_names); false: none. */
static bool probe_fns(const struct dc_probe *p, struct libc_syms *libc,
		      bool *fns)
{
	char err[256];
	int fn = fast_index(p->function);

	memset(fns, 0, DC_FAST_NFUNCS * sizeof(*fns));
	if (fn >= DC_FN_FIRST_LIB || !is_libc(p->target) || p->offset == 0) {
		if (fn < 0)
			return false;
		fns[fn] = true;
		return true;
	}
	if (libc->elf == NULL && !libc->failed &&
	    dc_elf_open(p->target, &libc->elf, err, sizeof(err)) != 0) {
		notice("fast path: %s; its functions stay uprobes", err);
		libc->failed = true;
	}
	if (libc->elf == NULL || strcmp(libc->elf->path, p->target) != 0)
		return false;
	return libc_names(libc->elf, p, fns) > 0;
}

/* The wrapped functions the spec names, each with its probe's plan. */
static void plan(struct dc_fast *f, const struct dc_spec *spec, const bool *skip)
{
	bool fns[DC_FAST_NFUNCS];
	struct libc_syms libc = { NULL, false };
	size_t i;
	int fn;

	f->nprobes = spec->nprobes;
	f->covered = xcalloc(spec->nprobes + 1, sizeof(bool));
	f->want_nargs = xcalloc(spec->nprobes + 1, 1);
	f->want_str = xcalloc(spec->nprobes + 1, sizeof(bool));
	f->cfg.magic = DC_FAST_MAGIC;
	f->cfg.version = DC_FAST_VERSION;
	f->cfg.nslots = f->o.nslots;
	f->cfg.slot_bytes = f->o.slot_bytes;
	f->cfg.full_wait_ms = f->o.full_wait_ms;
	f->cfg.nfuncs = DC_FAST_NFUNCS;
	for (i = 0; i < spec->nprobes; i++) {
		const struct dc_probe *p = &spec->probes[i];

		if (skip[i] || p->kind != DC_PROBE_UPROBE ||
		    !probe_fns(p, &libc, fns))
			continue;
		for (fn = 0; fn < DC_FAST_NFUNCS; fn++)
			if (fns[fn] && !f->cfg.funcs[fn].on &&
			    client_sees(f, p, fn) && client_can_record(p, fn))
				func_cfg(f, fn, p, i);
	}
	dc_elf_free(libc.elf);
}

static int make_socket(struct dc_fast *f)
{
	struct sockaddr_un a;
	size_t n = strlen(f->name);
	int fd;

	if (n >= sizeof(a.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	memcpy(a.sun_path, f->name, n);
	if (f->name[0] == '@')
		a.sun_path[0] = '\0';
	else
		unlink(f->name);
	if (bind(fd, (struct sockaddr *)&a,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)) != 0 ||
	    (f->name[0] != '@' && chmod(f->name, 0666) != 0) ||
	    listen(fd, MAX_CONNS) != 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

struct dc_fast *dc_fast_open(const struct dc_fast_opts *o,
			     const struct dc_spec *spec, const bool *skip)
{
	struct dc_fast *f = xcalloc(1, sizeof(*f));
	struct epoll_event ev = { .events = EPOLLIN };

	f->o = *o;
	snprintf(f->name, sizeof(f->name), "%s", o->socket_name);
	plan(f, spec, skip);
	f->listen_fd = make_socket(f);
	if (f->listen_fd < 0) {
		syswarn("fast path off: cannot listen on %s", f->name);
		dc_fast_close(f);
		return NULL;
	}
	f->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	ev.data.u32 = MAX_CONNS; /* the listener */
	if (f->epoll_fd < 0 ||
	    epoll_ctl(f->epoll_fd, EPOLL_CTL_ADD, f->listen_fd, &ev) != 0)
		sysdie("cannot watch the fast-path socket");
	if (f->ncovered > 0)
		f->states = dc_states_start(o->state_maps_fd);
	return f;
}

bool dc_fast_covers(const struct dc_fast *f, size_t i)
{
	return f != NULL && i < f->nprobes && f->covered[i];
}

size_t dc_fast_ncovered(const struct dc_fast *f)
{
	return f ? f->ncovered : 0;
}

const char *dc_fast_socket_name(const struct dc_fast *f)
{
	return f->name;
}

int dc_fast_fd(const struct dc_fast *f)
{
	return f->epoll_fd;
}

bool dc_fast_active(const struct dc_fast *f)
{
	return f != NULL && f->rings != NULL;
}

/* ---- call-state maps (statepool.c keeps them ready) ---- */

/* A call-state map given to a handshake that did not finish. */
static void state_map_drop(struct dc_fast *f, struct conn *cn)
{
	if (cn->state_idx < 0)
		return;
	if (cn->state_fd >= 0)
		close(cn->state_fd);
	dc_states_done(f->states, cn->state_idx);
	cn->state_fd = -1;
	cn->state_idx = -1;
}

/* The process mapped its call-state map: the kernel programs read its
 * threads' state there (client_states holds it: no descriptor kept).
 * Its index + 1. */
static __u32 state_map_give(struct conn *cn, struct ring *r)
{
	close(cn->state_fd);
	cn->state_fd = -1;
	r->state_idx = cn->state_idx;
	cn->state_idx = -1;
	return (__u32)r->state_idx + 1;
}

/* ---- handshakes ---- */

static void conn_close(struct dc_fast *f, struct conn *cn)
{
	epoll_ctl(f->epoll_fd, EPOLL_CTL_DEL, cn->fd, NULL);
	close(cn->fd);
	state_map_drop(f, cn);
	cn->state = CONN_FREE;
}

static void accept_clients(struct dc_fast *f)
{
	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN };
		struct ucred cred;
		socklen_t len = sizeof(cred);
		int fd = accept4(f->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		int i;

		if (fd < 0)
			return;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
		    cred.pid <= 0 || !f->o.admit(f->o.ctx, cred.pid)) {
			debug("fast path: process %d not admitted", (int)cred.pid);
			close(fd);
			continue;
		}
		for (i = 0; i < MAX_CONNS; i++)
			if (f->conns[i].state == CONN_FREE)
				break;
		if (i == MAX_CONNS) {
			warn("fast path: too many handshakes at once; process %d "
			     "falls back to no user-level records", (int)cred.pid);
			close(fd);
			continue;
		}
		ev.data.u32 = (uint32_t)i;
		if (epoll_ctl(f->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
			close(fd);
			continue;
		}
		f->conns[i] = (struct conn){ .fd = fd, .state = CONN_HELLO,
					     .pid = cred.pid, .uid = cred.uid,
					     .state_fd = -1, .state_idx = -1,
					     .since = mono_ns() };
	}
}

/* The memfd must be sealed at exactly the size we asked for. */
static struct ring *map_ring(struct dc_fast *f, struct conn *cn, int fd)
{
	uint64_t bytes = dc_fast_map_bytes(f->cfg.nslots, f->cfg.slot_bytes);
	int need = F_SEAL_SHRINK | F_SEAL_GROW;
	struct stat st;
	struct ring *r;
	void *map;
	int seals = fcntl(fd, F_GET_SEALS);

	if (seals < 0 || (seals & need) != need || fstat(fd, &st) != 0 ||
	    (uint64_t)st.st_size != bytes) {
		warn("fast path: process %d passed a ring that is not sealed at %llu bytes; refused",
		     (int)cn->pid, (unsigned long long)bytes);
		return NULL;
	}
	map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		syswarn("fast path: cannot map the ring of process %d", (int)cn->pid);
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->pid = cn->pid;
	r->since = mono_ns();
	r->map = map;
	r->bytes = bytes;
	r->nslots = f->cfg.nslots;
	r->slot_bytes = f->cfg.slot_bytes;
	r->tail = xcalloc(r->nslots, sizeof(uint64_t));
	r->snap = xcalloc(r->nslots, sizeof(uint64_t));
	r->populated = xcalloc(r->nslots, sizeof(uint64_t));
	r->bad = xcalloc(r->nslots, sizeof(bool));
	r->state_idx = -1;
	return r;
}

/* The configuration, every client's, with this one's call-state map
 * attached if it has one: 0, or -1. */
static int send_config(struct dc_fast *f, struct conn *cn)
{
	f->cfg.state_slots = cn->state_fd >= 0 ? DC_CLIENT_SLOTS : 0;
	if (cn->state_fd >= 0)
		return dc_send_fd(cn->fd, &f->cfg, sizeof(f->cfg), cn->state_fd);
	return send(cn->fd, &f->cfg, sizeof(f->cfg), MSG_NOSIGNAL) ==
	       (ssize_t)sizeof(f->cfg) ? 0 : -1;
}

/* The process is about to exec a program that will not load the client
 * (the program attached, or -1): the answer says whether the uprobes
 * standing in for the client are in place (o.exec_ahead), and the
 * process waits for it before its exec.  Or that exec failed: they go,
 * and the answer says when (the process waits for it too: gone before
 * it was read, it would not be admitted). */
static void conn_exec(struct dc_fast *f, struct conn *cn, __u32 request,
		      int program)
{
	struct dc_fast_ready answer = { .magic = DC_FAST_MAGIC };

	answer.ok = f->o.exec_ahead != NULL &&
		    (request == DC_FAST_REQ_EXEC_PROGRAM) == (program >= 0) &&
		    f->o.exec_ahead(f->o.ctx, cn->pid, request, program);
	if (program >= 0)
		close(program);
	if (send(cn->fd, &answer, sizeof(answer), MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(answer))
		debug("fast path: process %d did not wait for its answer",
		      (int)cn->pid);
	conn_close(f, cn);
}

static void conn_hello(struct dc_fast *f, struct conn *cn)
{
	struct dc_fast_hello h;
	int fd, n = dc_recv_fd(cn->fd, &h, sizeof(h), &fd);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n != (int)sizeof(h) || h.magic != DC_FAST_MAGIC ||
	    h.version != DC_FAST_VERSION || h.nfuncs < DC_FAST_NFUNCS ||
	    h.request > DC_FAST_REQ_EXEC_PROGRAM) {
		debug("fast path: process %d sent a bad hello", (int)cn->pid);
		if (fd >= 0)
			close(fd);
		conn_close(f, cn);
		return;
	}
	if (h.request != DC_FAST_REQ_JOIN) {
		conn_exec(f, cn, h.request, fd);
		return;
	}
	/* Nothing comes with a hello to join. */
	if (fd >= 0)
		close(fd);
	cn->tls_off = h.tls_off;
	cn->state_fd = dc_states_take(f->states, &cn->state_idx);
	if (send_config(f, cn) != 0) {
		conn_close(f, cn);
		return;
	}
	cn->state = CONN_RING;
}

static void conn_ring(struct dc_fast *f, struct conn *cn)
{
	struct dc_fast_ready ready;
	struct ring *r;
	int fd, n = dc_recv_fd(cn->fd, &ready, sizeof(ready), &fd);
	struct dc_fast_proc proc = { .tls_off = cn->tls_off };
	__u32 key = (__u32)cn->pid;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	r = (n == (int)sizeof(ready) && ready.magic == DC_FAST_MAGIC &&
	     ready.ok == 1 && fd >= 0) ? map_ring(f, cn, fd) : NULL;
	if (fd >= 0)
		close(fd);
	if (r == NULL) {
		conn_close(f, cn);
		return;
	}
	/* The kernel nests system calls under the client's calls through
	 * its call-state map, or else the TLS offset (stack.bpf.h). */
	if (ready.state == 1 && cn->state_fd >= 0)
		proc.state = state_map_give(cn, r);
	if (f->o.fast_map_fd >= 0 &&
	    bpf_map_update_elem(f->o.fast_map_fd, &key, &proc, BPF_ANY) != 0)
		syswarn("fast path: cannot register process %d with the kernel programs",
			(int)cn->pid);
	/* Before the client is told to record: the programs look for its
	 * threads again (stack.bpf.h, client_tls). */
	if (f->o.fast_gen != NULL)
		__atomic_fetch_add(f->o.fast_gen, 1, __ATOMIC_SEQ_CST);
	r->next = f->rings;
	f->rings = r;
	dc_fast_expect(f, cn->pid, false, 0);
	ready.magic = DC_FAST_MAGIC;
	ready.ok = 1;
	ready.state = proc.state != 0;
	ready.reserved = 0;
	if (send(cn->fd, &ready, sizeof(ready), MSG_NOSIGNAL) != (ssize_t)sizeof(ready))
		debug("fast path: process %d left during its handshake", (int)cn->pid);
	debug("fast path: process %d joined, its call state %s", (int)cn->pid,
	      proc.state ? "in a call-state map" : "in its threads' TLS");
	conn_close(f, cn);
}

void dc_fast_service(struct dc_fast *f)
{
	struct epoll_event evs[16];
	uint64_t now;
	int n, i;

	if (f == NULL)
		return;
	while ((n = epoll_wait(f->epoll_fd, evs, 16, 0)) > 0) {
		for (i = 0; i < n; i++) {
			uint32_t k = evs[i].data.u32;

			if (k == MAX_CONNS) {
				accept_clients(f);
				continue;
			}
			if (f->conns[k].state == CONN_HELLO)
				conn_hello(f, &f->conns[k]);
			else if (f->conns[k].state == CONN_RING)
				conn_ring(f, &f->conns[k]);
		}
	}
	now = mono_ns();
	for (i = 0; i < MAX_CONNS; i++)
		if (f->conns[i].state != CONN_FREE &&
		    now > f->conns[i].since + HANDSHAKE_NS) {
			debug("fast path: process %d stalled its handshake", (int)f->conns[i].pid);
			conn_close(f, &f->conns[i]);
		}
}

/* ---- draining ---- */

static struct dc_fast_slot *slot_of(struct ring *r, uint32_t i)
{
	return (struct dc_fast_slot *)(r->map + DC_FAST_HDR_BYTES +
				       (size_t)i * DC_FAST_SLOT_HDR_BYTES);
}

void dc_fast_snapshot(struct dc_fast *f)
{
	struct ring *r;
	uint32_t i;

	if (f == NULL)
		return;
	for (r = f->rings; r; r = r->next)
		for (i = 0; i < r->nslots; i++)
			r->snap[i] = __atomic_load_n(&slot_of(r, i)->head,
						     __ATOMIC_ACQUIRE);
}

/* Check a record copied out of the mapping (into the collector's own
 * memory: the process may change it in the mapping meanwhile) and make it
 * the process's. */
static bool valid_record(struct dc_fast *f, struct ring *r, struct dc_event *ev,
			 uint64_t size)
{
	uint64_t fixed;

	if (ev->size != size || size < DC_EVENT_HDR_SIZE ||
	    ev->type != DC_EV_CALL || ev->probe_id >= f->nprobes ||
	    !f->covered[ev->probe_id] || ev->nargs != f->want_nargs[ev->probe_id])
		return false;
	fixed = DC_EVENT_HDR_SIZE + 8 * (uint64_t)ev->nargs;
	if (f->want_str[ev->probe_id]) {
		if (((fixed + ev->str_len + 1 + 7) & ~7ULL) != size)
			return false;
		DC_EVENT_STR(ev)[ev->str_len] = '\0';
	} else if (ev->str_len != 0 || fixed != size) {
		return false;
	}
	ev->pid = (__u32)r->pid;
	if (ev->tid == 0)
		ev->tid = (__u32)r->pid;
	ev->flags &= DC_EVF_STR_TRUNC | DC_EVF_FAILED | DC_EVF_DTSIZE;
	ev->reserved0 = 0;
	ev->reserved1 = 0;
	ev->file_id = 0;
	if (!(ev->flags & DC_EVF_FAILED) || ev->error < 0 || ev->error > 4095)
		ev->error = 0;
#ifdef DC_SEQ_CLIENT
	ev->seq |= DC_SEQ_CLIENT;
	if (ev->parent != 0)
		ev->parent |= DC_SEQ_CLIENT;
#endif
	return true;
}

static void abandon(struct ring *r, uint32_t i, const char *why)
{
	r->bad[i] = true;
	warn("fast path: process %d, thread slot %u: %s; slot abandoned",
	     (int)r->pid, i, why);
}

static void drain_slot(struct dc_fast *f, struct ring *r, uint32_t i,
		       uint64_t head)
{
	unsigned char *data = r->map + dc_fast_data_offset(r->nslots) +
			      (size_t)i * r->slot_bytes;
	uint64_t cap = r->slot_bytes, tail = r->tail[i];

	if (r->bad[i] || head == tail)
		return;
	if (head < tail || head - tail > cap || ((head - tail) & 7) != 0) {
		abandon(r, i, "its write position makes no sense");
		return;
	}
	while (tail < head) {
		uint64_t off = tail & (cap - 1), size;
		struct dc_event hdr, *ev;

		/* size and type: the first 8 bytes, as struct dc_event has them */
		memcpy(&hdr, data + off, 8);
		size = hdr.size;
		if (size < 8 || (size & 7) != 0 || size > cap - off ||
		    size > head - tail || size > MAX_RECORD) {
			abandon(r, i, "a record's size makes no sense");
			break;
		}
		if (hdr.type != 0 && (ev = f->o.room(f->o.ctx, size)) != NULL) {
			memcpy(ev, data + off, size);
			if (valid_record(f, r, ev, size))
				f->o.sink(f->o.ctx, ev);
			else
				r->invalid++;
		}
		tail += size;
	}
	r->tail[i] = tail;
	__atomic_store_n(&slot_of(r, i)->tail, tail, __ATOMIC_RELEASE);
}

/* The pages of a slot's first lap, allocated here ahead of its writer:
 * each would otherwise be allocated and zeroed in a page fault inside
 * one of the process's wrapped calls.  The client maps them in chunks
 * (dc-wrap/fast.c); after the first lap all are allocated.  Best effort:
 * a kernel without MADV_POPULATE_WRITE leaves it to the faults. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define POPULATE_AHEAD (4ULL << 20)

static void populate_slot(struct ring *r, uint32_t i, uint64_t head)
{
	unsigned char *data = r->map + dc_fast_data_offset(r->nslots) +
			      (size_t)i * r->slot_bytes;
	uint64_t from = r->populated[i];
	uint64_t to = (head + POPULATE_AHEAD) & ~(POPULATE_AHEAD / 4 - 1);

	if (head == 0 || from >= r->slot_bytes || to <= from)
		return;
	if (to > r->slot_bytes)
		to = r->slot_bytes;
	/* from and to are multiples of a page (slot_bytes is, too) */
	if (madvise(data + from, to - from, MADV_POPULATE_WRITE) != 0)
		to = r->slot_bytes; /* give up on this slot */
	r->populated[i] = to;
}

void dc_fast_drain(struct dc_fast *f)
{
	struct ring *r;
	uint32_t i;

	if (f == NULL)
		return;
	for (r = f->rings; r; r = r->next)
		for (i = 0; i < r->nslots; i++) {
			drain_slot(f, r, i, r->snap[i]);
			populate_slot(r, i, r->snap[i]);
		}
}

static void drain_all(struct dc_fast *f, struct ring *r)
{
	uint32_t i;

	for (i = 0; i < r->nslots; i++)
		drain_slot(f, r, i, __atomic_load_n(&slot_of(r, i)->head,
						    __ATOMIC_ACQUIRE));
}

static void note_lost(struct dc_fast *f, struct ring *r)
{
	struct dc_fast_shm *shm = (struct dc_fast_shm *)r->map;
	uint64_t n = r->invalid + shm->lost + shm->noslot;
	uint32_t i;

	for (i = 0; i < r->nslots; i++)
		n += slot_of(r, i)->drops;
	if (r->invalid > 0)
		warn("fast path: %llu invalid records from process %d refused",
		     (unsigned long long)r->invalid, (int)r->pid);
	if (n == 0)
		return;
	for (i = 0; i < f->nlost; i++)
		if (f->lost[i].pid == (uint32_t)r->pid)
			break;
	if (i == f->nlost) {
		if (f->nlost == f->lost_cap) {
			f->lost_cap = f->lost_cap ? 2 * f->lost_cap : 16;
			f->lost = xrealloc(f->lost, f->lost_cap * sizeof(*f->lost));
		}
		f->lost[f->nlost++] = (struct lost){ .pid = (uint32_t)r->pid };
	}
	f->lost[i].n.count += n;
	f->lost[i].n.nested += shm->lost;
	f->lost[i].n.noslot += shm->noslot;
}

static void ring_free(struct dc_fast *f, struct ring *r)
{
	dc_states_done(f->states, r->state_idx);
	munmap(r->map, r->bytes);
	free(r->tail);
	free(r->snap);
	free(r->populated);
	free(r->bad);
	free(r);
}

void dc_fast_finish(struct dc_fast *f, pid_t pid, uint64_t ts)
{
	struct ring **p, *r;

	if (f == NULL)
		return;
	for (p = &f->rings; (r = *p) != NULL;) {
		if (r->pid != pid || r->since > ts) {
			p = &r->next;
			continue;
		}
		drain_all(f, r);
		note_lost(f, r);
		*p = r->next;
		ring_free(f, r);
	}
}

void dc_fast_finish_all(struct dc_fast *f)
{
	struct ring *r;

	if (f == NULL)
		return;
	while ((r = f->rings) != NULL) {
		drain_all(f, r);
		note_lost(f, r);
		f->rings = r->next;
		ring_free(f, r);
	}
}

size_t dc_fast_drops(struct dc_fast *f, uint32_t *pids,
		     struct dc_fast_lost *lost, size_t max, uint64_t *total)
{
	size_t i;

	*total = 0;
	if (f == NULL)
		return 0;
	for (i = 0; i < f->nlost; i++) {
		*total += f->lost[i].n.count;
		if (i < max) {
			pids[i] = f->lost[i].pid;
			lost[i] = f->lost[i].n;
		}
	}
	return f->nlost;
}

void dc_fast_expect(struct dc_fast *f, pid_t pid, bool expect, uint64_t ts)
{
	struct ring *r;
	size_t i;

	if (f == NULL)
		return;
	/* Connected already, after that fork or exec. */
	for (r = f->rings; expect && r; r = r->next)
		if (r->pid == pid && r->since >= ts)
			return;
	for (i = 0; i < f->nexpect; i++)
		if (f->expect[i] == pid) {
			if (!expect)
				f->expect[i] = f->expect[--f->nexpect];
			return;
		}
	if (!expect)
		return;
	if (f->nexpect == f->expect_cap) {
		f->expect_cap = f->expect_cap ? 2 * f->expect_cap : 64;
		f->expect = xrealloc(f->expect, f->expect_cap * sizeof(pid_t));
	}
	f->expect[f->nexpect++] = pid;
}

void dc_fast_exited(struct dc_fast *f, pid_t pid)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->nexpect; i++)
		if (f->expect[i] == pid) {
			f->expect[i] = f->expect[--f->nexpect];
			if (f->without++ < 10)
				warn("process %d never joined the fast path (its "
				     "client library did not connect, or it ended "
				     "before it could be given uprobes): its calls of "
				     "the wrapped functions are not in the trace",
				     (int)pid);
			return;
		}
}

unsigned dc_fast_without(const struct dc_fast *f)
{
	return f ? f->without : 0;
}

void dc_fast_close(struct dc_fast *f)
{
	int i;

	if (f == NULL)
		return;
	for (i = 0; i < MAX_CONNS; i++)
		if (f->conns[i].state != CONN_FREE)
			conn_close(f, &f->conns[i]);
	while (f->rings) {
		struct ring *r = f->rings;

		f->rings = r->next;
		ring_free(f, r);
	}
	if (f->listen_fd >= 0)
		close(f->listen_fd);
	if (f->epoll_fd > 0)
		close(f->epoll_fd);
	if (f->name[0] != '@' && f->name[0] != '\0')
		unlink(f->name);
	free(f->covered);
	free(f->want_nargs);
	free(f->want_str);
	free(f->lost);
	free(f->expect);
	dc_states_stop(f->states);
	free(f);
}

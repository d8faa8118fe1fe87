/*
 * fdnames.c - names for the descriptors a traced call makes that are
 * not files: pipes, sockets, eventfds, memfds, epoll and io_uring
 * instances (dc-trace(5), File names).
 *
 * Those open before tracing are named by /proc, through the collector's
 * FDS frames, as the kernel names them: "pipe:[INODE]", "socket:[INODE]",
 * "anon_inode:[eventfd]", "/memfd:NAME (deleted)".  A call made while
 * tracing tells no inode (the system call layer records its return value
 * and, for pipe2 and socketpair, the two descriptors written into the
 * caller's array), so a new pipe or socket is named in the kernel's form
 * with the process and a count in place of the inode: "pipe:[PID.N]",
 * the N-th pipe or socket process PID made (from 1).  Both ends of a pipe
 * share its name, as in /proc; the two sockets of a socketpair each get
 * one.  The kinds the kernel names alike for all (an eventfd, an epoll
 * instance) get the kernel's name, a memfd the kernel's from its name
 * argument.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "aggregate.h"

/* What each call makes, by its name (the system call's, or a library
 * function's of the same name). */
static const struct {
	const char *name;
	uint8_t kind;
	const char *anon;  /* MADE_ANON: the kernel's name for all of them */
} makers[] = {
	{ "pipe", MADE_PIPE, NULL },
	{ "pipe2", MADE_PIPE, NULL },
	{ "socket", MADE_SOCKET, NULL },
	{ "socketpair", MADE_SOCKET, NULL },
	{ "accept", MADE_SOCKET, NULL },
	{ "accept4", MADE_SOCKET, NULL },
	{ "memfd_create", MADE_MEMFD, NULL },
	{ "eventfd", MADE_ANON, "anon_inode:[eventfd]" },
	{ "eventfd2", MADE_ANON, "anon_inode:[eventfd]" },
	{ "epoll_create", MADE_ANON, "anon_inode:[eventpoll]" },
	{ "epoll_create1", MADE_ANON, "anon_inode:[eventpoll]" },
	{ "io_uring_setup", MADE_ANON, "anon_inode:[io_uring]" },
	{ "timerfd_create", MADE_ANON, "anon_inode:[timerfd]" },
	{ "signalfd", MADE_ANON, "anon_inode:[signalfd]" },
	{ "signalfd4", MADE_ANON, "anon_inode:[signalfd]" },
	{ "inotify_init", MADE_ANON, "anon_inode:inotify" },
	{ "inotify_init1", MADE_ANON, "anon_inode:inotify" },
	{ "pidfd_open", MADE_ANON, "anon_inode:[pidfd]" },
};

void classify_made(struct probe *p, const char *name)
{
	size_t i;
	int a;

	p->made = MADE_NONE;
	p->made_anon = NULL;
	p->fdpair_arg = -1;
	p->has_str = 0;
	for (a = 0; a < p->nargs && a < DC_MAX_ARGS; a++) {
		if (p->arg_kinds[a] == DC_ARG_FDPAIR && p->fdpair_arg < 0)
			p->fdpair_arg = a;
		if (p->arg_kinds[a] == DC_ARG_STR)
			p->has_str = 1;
	}
	for (i = 0; i < sizeof(makers) / sizeof(makers[0]); i++)
		if (strcmp(name, makers[i].name) == 0) {
			p->made = makers[i].kind;
			p->made_anon = makers[i].anon;
			return;
		}
}

/* Did a call made inside ev (the pipe2 system call under pipe()) give
 * fd its file already?  Its record came first: ev keeps that name. */
static uint32_t named_inside(struct proc *p, int64_t fd,
			     const struct dc_event *ev)
{
	uint64_t *since = u64map_get(&p->fd_since, (uint64_t)fd);

	if (since == NULL || *since < ev->ts || *since > ev->ts + ev->dur)
		return 0;
	return fdt_file(&p->fds, fd);
}

/* The name for fd, which ev made: 0 if the call makes nothing we know
 * how to name. */
static uint32_t made_name(struct aggregator *ag, struct proc *p,
			  const struct probe *pr, const struct dc_event *ev,
			  int64_t fd)
{
	char name[DC_MAX_STR + 32];
	uint32_t inside = named_inside(p, fd, ev);
	int n;

	if (inside != 0)
		return inside;
	switch (pr->made) {
	case MADE_PIPE:
	case MADE_SOCKET:
		n = snprintf(name, sizeof(name), "%s:[%u.%u]",
			     pr->made == MADE_PIPE ? "pipe" : "socket",
			     (unsigned)ev->pid, ++p->made);
		break;
	case MADE_MEMFD:
		/* Without its name argument in the record: not known. */
		if (!pr->has_str)
			return 0;
		n = snprintf(name, sizeof(name), "/memfd:%.*s (deleted)",
			     (int)strnlen(DC_EVENT_STR(ev), ev->str_len),
			     DC_EVENT_STR(ev));
		break;
	case MADE_ANON:
		return intern(ag, pr->made_anon, strlen(pr->made_anon), 0);
	default:
		return 0;
	}
	if (n < 0 || (size_t)n >= sizeof(name))
		return 0;
	return intern(ag, name, (size_t)n, 0);
}

int made_pair(const struct probe *pr, const struct dc_event *ev,
	      int32_t fds[2])
{
	uint64_t v;

	if (pr->fdpair_arg < 0 || pr->fdpair_arg >= ev->nargs || ev->ret != 0)
		return 0;
	v = DC_EVENT_ARGS(ev)[pr->fdpair_arg];
	fds[0] = (int32_t)(uint32_t)v;
	fds[1] = (int32_t)(uint32_t)(v >> 32);
	return fds[0] >= 0 && fds[1] >= 0 && fds[0] != fds[1];
}

void name_made_fds(struct aggregator *ag, struct proc *p,
		   const struct probe *pr, struct dc_event *ev)
{
	uint32_t first = 0;
	int32_t fds[2];

	if (pr->op == OP_NEW_FD) {
		first = made_name(ag, p, pr, ev, ev->ret);
		set_fd(p, ev->ret, first, ev);
	} else if (made_pair(pr, ev, fds)) {
		first = made_name(ag, p, pr, ev, fds[0]);
		set_fd(p, fds[0], first, ev);
		/* A pipe's two ends are one pipe; a socketpair's two
		 * sockets are two. */
		set_fd(p, fds[1], pr->made == MADE_PIPE && first != 0 ?
		       first : made_name(ag, p, pr, ev, fds[1]), ev);
	}
	/* A call that names no file of its own (socket, pipe2, not
	 * accept's listening socket) works on what it made. */
	if (ev->file_id == 0 && pr->fd_arg < 0 && pr->path_arg < 0)
		ev->file_id = first;
}

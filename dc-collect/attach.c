/*
 * attach.c - attach what load.c loaded: the process-tracking and system
 * call programs, every probe of the spec by its kind (uprobes in
 * multi-uprobe links per library where the kernel has them, tracepoints,
 * USDT sites, kernel functions), and the decoded tracepoints once each.
 * Every link is kept and destroyed at the end (drop_links).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collector.h"
#include "elfsyms.h"
#include "klayers.h"
#include "messages.h"
#include "umulti.h"

/* The system calls' exit program loaded, if any (choose_programs). */
static struct bpf_program *sys_exit_program(struct collect_bpf *skel)
{
	if (bpf_program__autoload(skel->progs.dc_sys_exit_batch))
		return skel->progs.dc_sys_exit_batch;
	if (bpf_program__autoload(skel->progs.dc_sys_exit))
		return skel->progs.dc_sys_exit;
	return NULL;
}

/* Keep a link (NULL passes through) so that it is detached and freed
 * at the end rather than dropped. */
static struct bpf_link *keep(struct collector *c, struct bpf_link *link)
{
	if (link != NULL) {
		c->links = xrealloc(c->links, (c->nlinks + 1) * sizeof(*c->links));
		c->links[c->nlinks++] = link;
	}
	return link;
}

void drop_links(struct collector *c)
{
	while (c->nlinks > 0)
		bpf_link__destroy(c->links[--c->nlinks]);
	free(c->links);
	c->links = NULL;
	dc_kfuncs_free(&c->kfuncs);
}

/* A uprobe the kernel refused (on the function's entry, or its return if
 * RET): warned, or said with -v only if the probe is optional. */
static void uprobe_refused(struct collector *c, size_t i, bool ret, int err)
{
	const struct dc_probe *p = &c->spec->probes[i];
	/* 524 is the kernel's ENOTSUPP: an instruction uprobes cannot
	 * replace (some atomics), which strerror does not know. */
	const char *why = err == 524 ? "the kernel cannot probe its first instruction"
				     : strerror(err);

	c->failed++;
	if (p->optional)
		debug("%s:%s not attached: %s", p->target, p->function, why);
	else
		warn("cannot attach %s%s in %s: %s", ret ? "the return of " : "",
		     p->function, p->target, why);
}

/* One function's uprobes, each its own link (the per-function programs). */
static void attach_uprobe(struct collector *c, size_t i)
{
	const struct dc_probe *p = &c->spec->probes[i];
	LIBBPF_OPTS(bpf_uprobe_opts, opts);
	struct bpf_link *entry, *exit_link;

	opts.bpf_cookie = (__u64)i;
	opts.retprobe = false;
	entry = bpf_program__attach_uprobe_opts(c->skel->progs.dc_uprobe_entry,
						-1, p->target, p->offset, &opts);
	if (entry == NULL) {
		uprobe_refused(c, i, false, errno);
		return;
	}
	opts.retprobe = true;
	exit_link = bpf_program__attach_uprobe_opts(c->skel->progs.dc_uprobe_exit,
						    -1, p->target, p->offset, &opts);
	if (exit_link == NULL) {
		uprobe_refused(c, i, true, errno);
		bpf_link__destroy(entry);
		return;
	}
	keep(c, entry);
	keep(c, exit_link);
	c->attached++;
}

/* Probe indexes (into the spec passed) by library, then offset. */
static int by_target(const void *a, const void *b, void *arg)
{
	const struct dc_spec *spec = arg;
	const struct dc_probe *pa = &spec->probes[*(const size_t *)a];
	const struct dc_probe *pb = &spec->probes[*(const size_t *)b];
	int r = strcmp(pa->target, pb->target);

	if (r != 0)
		return r;
	return pa->offset < pb->offset ? -1 : pa->offset > pb->offset;
}

/* All uprobes of one library with two multi-uprobe links (entry and
 * return).  The kernel refuses a whole link for one bad offset, so a
 * refused group is split in halves until the bad probes are alone, which
 * names them: a few bad functions cost a few links, not the whole
 * library's speed. */
static void attach_uprobe_group(struct collector *c, const size_t *idx,
				size_t n)
{
	const char *target = c->spec->probes[idx[0]].target;
	__u64 *offsets = xcalloc(n, sizeof(__u64));
	__u64 *cookies = xcalloc(n, sizeof(__u64));
	int entry, ret;
	size_t i;

	for (i = 0; i < n; i++) {
		offsets[i] = c->spec->probes[idx[i]].offset;
		cookies[i] = idx[i];
	}
	entry = dc_umulti_attach(bpf_program__fd(c->skel->progs.dc_umulti_entry),
				 target, offsets, cookies, (__u32)n, false);
	ret = entry < 0 ? entry :
		dc_umulti_attach(bpf_program__fd(c->skel->progs.dc_umulti_exit),
				 target, offsets, cookies, (__u32)n, true);
	free(offsets);
	free(cookies);
	if (entry >= 0 && ret >= 0) {
		/* The link fds stay open until exit. */
		c->attached += (unsigned)n;
		return;
	}
	if (entry >= 0)
		close(entry);
	debug("multi-uprobe link on %zu functions of %s refused (%s)", n, target,
	      strerror(-(entry < 0 ? entry : ret)));
	if (n == 1) {
		uprobe_refused(c, idx[0], entry >= 0, entry < 0 ? -entry : -ret);
		return;
	}
	attach_uprobe_group(c, idx, n / 2);
	attach_uprobe_group(c, idx + n / 2, n - n / 2);
}

/* With --process-uprobes, -- COMMAND and --pid put their uprobes into the
 * traced processes and what they create, not into every process on the
 * host (pidprobe.h).  Not the default: in a process with threads an
 * occasional call is lost without a count (t/3150 saw 1198 of 1200
 * writes in about one run of ten; the cause is not found yet), and a
 * trace must not lie.  Elsewhere the selection grows by processes nobody names
 * in advance, so the uprobes are always set system-wide. */
static void start_pidprobes(struct collector *c)
{
	const char *why = NULL;

	if (!c->opt.process_uprobes)
		return;
	c->pidprobes = dc_pidprobes_new(
		bpf_program__fd(c->skel->progs.dc_uprobe_entry),
		bpf_program__fd(c->skel->progs.dc_uprobe_exit), &why);
	if (c->pidprobes == NULL)
		notice("uprobes are set for every process on the host: %s", why);
}

/* The probe's uprobes only in the traced processes, if it can be. */
static bool add_pidprobe(struct collector *c, size_t i)
{
	const struct dc_probe *p = &c->spec->probes[i];
	int err;

	if (c->pidprobes == NULL)
		return false;
	err = dc_pidprobes_add(c->pidprobes, DC_PIDPROBES_SPEC, p->target,
			       p->offset, p->function, (__u64)i);
	if (err == 0)
		return true;
	notice("%s in %s: uprobe set for every process on the host (tracefs "
	       "cannot define it: %s)", p->function, p->target, strerror(-err));
	return false;
}

static void attach_uprobes(struct collector *c)
{
	size_t *idx = xcalloc(c->spec->nprobes + 1, sizeof(size_t));
	size_t n = 0, i, start;

	start_pidprobes(c);
	for (i = 0; i < c->spec->nprobes; i++) {
		if (c->spec->probes[i].kind != DC_PROBE_UPROBE || c->skip[i])
			continue;
		/* Recorded by the clients themselves: no trap for them. */
		if (dc_fast_covers(c->fast, i) || add_pidprobe(c, i)) {
			c->attached++;
			continue;
		}
		idx[n++] = i;
	}
	if (!c->feat.umulti) {
		for (i = 0; i < n; i++)
			attach_uprobe(c, idx[i]);
		free(idx);
		return;
	}
	qsort_r(idx, n, sizeof(size_t), by_target, (void *)c->spec);
	for (start = 0; start < n; start = i) {
		for (i = start + 1; i < n; i++)
			if (strcmp(c->spec->probes[idx[i]].target,
				   c->spec->probes[idx[start]].target) != 0)
				break;
		attach_uprobe_group(c, idx + start, i - start);
	}
	free(idx);
}

static void attach_tracepoint(struct collector *c, size_t i)
{
	const struct dc_probe *p = &c->spec->probes[i];
	LIBBPF_OPTS(bpf_tracepoint_opts, opts);
	char category[256];
	const char *colon = strchr(p->function, ':');

	if (dc_klayer_find(p->function) != NULL) {
		c->attached++; /* its program is attached once, below */
		return;
	}
	if (colon == NULL || (size_t)(colon - p->function) >= sizeof(category)) {
		warn("tracepoint %s: expected CATEGORY:NAME, skipped", p->function);
		c->failed++;
		return;
	}
	memcpy(category, p->function, (size_t)(colon - p->function));
	category[colon - p->function] = '\0';
	/* The system-call tracepoints may fault (6.14 and later): their
	 * programs can be preempted, and must not hold the CPU's batch. */
	opts.bpf_cookie = (__u64)i;
	if (strcmp(category, "syscalls") != 0 &&
	    strcmp(category, "raw_syscalls") != 0)
		opts.bpf_cookie |= DC_COOKIE_BATCH;
	if (!keep(c, bpf_program__attach_tracepoint_opts(c->skel->progs.dc_tp_generic,
							 category, colon + 1, &opts))) {
		warn("cannot attach tracepoint %s: %s", p->function, strerror(errno));
		c->failed++;
		return;
	}
	c->attached++;
}

/* A USDT site is a uprobe at the note's address; attaching with the
 * semaphore's offset makes the kernel raise it, so gated sites fire. */
static void attach_usdt(struct collector *c, size_t i)
{
	const struct dc_probe *p = &c->spec->probes[i];
	LIBBPF_OPTS(bpf_uprobe_opts, opts);

	opts.bpf_cookie = (__u64)i;
	opts.ref_ctr_offset = (size_t)p->semaphore;
	if (!keep(c, bpf_program__attach_uprobe_opts(c->skel->progs.dc_usdt, -1,
						     p->target, p->offset, &opts))) {
		warn("cannot attach USDT probe %s in %s: %s", p->function,
		     p->target, strerror(errno));
		c->failed++;
		return;
	}
	c->attached++;
}

/* Kernel functions: fentry or kprobes, as kfeatures.c decided. */
static void attach_kfunc(struct collector *c, size_t i)
{
	const struct dc_probe *p = &c->spec->probes[i];
	int err = dc_kfuncs_attach(&c->kfuncs, c->skel, i, p);

	if (err != 0) {
		warn("cannot attach kernel function %s (%s): %s", p->function,
		     dc_kfunc_method_name(c->kfuncs.method), strerror(-err));
		c->failed++;
		return;
	}
	c->attached++;
}

/* A uprobe on one of the client library's hooks (dcclient.h), in every
 * process that loads that library. */
static struct bpf_link *client_hook(struct collector *c,
				    struct bpf_program *prog, const char *func,
				    const char *lib)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts);

	opts.func_name = func;
	return keep(c, bpf_program__attach_uprobe_opts(prog, -1, lib, 0, &opts));
}

/* dc_client_quiet: what the client library does for itself (its
 * handshake, its ring) is not recorded as the program's.  Without it the
 * trace is still whole, with those calls in it: said, not fatal.  A
 * library from before the hook is told apart first, by its symbols:
 * libbpf would print a line of its own before ours. */
static void watch_quiet(struct collector *c)
{
	const char *lib = c->opt.mode == SEL_COMMAND ? c->client_real
						     : client_lib_path(&c->opt);
	const char *why = NULL;
	struct dc_elf *elf = NULL;
	char err[256];

	if (dc_elf_open(lib, &elf, err, sizeof(err)) != 0)
		why = err;
	else if (dc_elf_find(elf, "dc_client_quiet") == NULL)
		why = "a library from before it, without the hook";
	else if (client_hook(c, c->skel->progs.dc_client_quiet,
			     "dc_client_quiet", lib) == NULL)
		why = strerror(errno);
	dc_elf_free(elf);
	if (why != NULL)
		notice("fast path: cannot watch dc_client_quiet in %s (%s): the "
		       "client library's own system calls and socket messages "
		       "show as the program's", lib, why);
}

/* The collector's own programs: processes, system calls, clients. */
static void attach_internal(struct collector *c)
{
	struct collect_bpf *skel = c->skel;
	struct bpf_program *sys_exit;

	/* Process tracking first, so no fork escapes while probes attach. */
	if (!keep(c, bpf_program__attach(skel->progs.dc_fork)) ||
	    !keep(c, bpf_program__attach(skel->progs.dc_exec)) ||
	    !keep(c, bpf_program__attach(skel->progs.dc_exit)))
		sysdie("cannot attach the process-tracking tracepoints");
	if ((sys_exit = sys_exit_program(skel)) != NULL) {
		struct bpf_program *enter = c->feat.tp_btf ?
			skel->progs.dc_sys_enter_btf : skel->progs.dc_sys_enter;

		if (!keep(c, bpf_program__attach(enter)) ||
		    !keep(c, bpf_program__attach(sys_exit)))
			sysdie("cannot attach the syscall tracepoints");
	}
	if (c->opt.mode == SEL_CLIENTS) {
		const char *lib = client_lib_path(&c->opt);

		if (access(lib, R_OK) != 0)
			sysdie("client library %s", lib);
		if (!client_hook(c, skel->progs.dc_client_register,
				 "dc_client_register", lib))
			sysdie("cannot watch dc_client_register in %s", lib);
	}
	if (c->fast != NULL)
		watch_quiet(c);
}

/* The order the decoded tracepoints attach in, while the traced
 * processes may already run (--pid, --cgroup, --all): a program that
 * follows what another begins attaches before it, so that what is begun
 * once tracing starts is followed to its end.  A block I/O's split,
 * merges, issue and completion come before the queueing that remembers
 * its bio: otherwise a bio queued in between is split or completed
 * unseen, and its completion, found nowhere and issued after tracing
 * began, is taken for someone else's and dropped.  The page cache's
 * additions likewise come before the readaheads that count them. */
static const enum dc_tracepoint tp_attach_order[] = {
	DC_TP_BLOCK_SPLIT, DC_TP_BIO_BACKMERGE, DC_TP_BIO_FRONTMERGE,
	DC_TP_BLOCK_COMPLETE, DC_TP_BLOCK_ISSUE, DC_TP_BIO_QUEUE,
	DC_TP_PC_ADD, DC_TP_RA_SYNC, DC_TP_RA_ASYNC,
	DC_TP_PC_DELETE, DC_TP_FAULT, DC_TP_DIRTY,
	DC_TP_SOCK_SEND, DC_TP_SOCK_RECV, DC_TP_SOCK_STATE,
	DC_TP_URING_SUBMIT, DC_TP_URING_COMPLETE, DC_TP_SKB_DROP,
};
#define NATTACH (sizeof(tp_attach_order) / sizeof(tp_attach_order[0]))
_Static_assert(NATTACH == DC_TP_COUNT,
	       "every decoded tracepoint has its place in tp_attach_order");

void attach_all(struct collector *c)
{
	struct collect_bpf *skel = c->skel;
	struct timespec t0, t1;
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	attach_internal(c);
	for (i = 0; i < c->spec->nprobes; i++) {
		const struct dc_probe *p = &c->spec->probes[i];

		if (c->skip[i]) {
			c->failed++;
			continue;
		}
		switch (p->kind) {
		case DC_PROBE_UPROBE:
			break; /* all together, below */
		case DC_PROBE_SYSCALL:
			c->attached++;
			break;
		case DC_PROBE_TRACEPOINT:
			attach_tracepoint(c, i);
			break;
		case DC_PROBE_KFUNC:
			attach_kfunc(c, i);
			break;
		case DC_PROBE_USDT:
			attach_usdt(c, i);
			break;
		default:
			warn("probe %s (%s): kind not supported by this collector, skipped",
			     p->function, dc_probe_kind_name(p->kind));
			c->failed++;
			break;
		}
	}
	attach_uprobes(c);
	/* Decoded tracepoints: each program once, whatever probes share it. */
	for (size_t j = 0; j < NATTACH; j++) {
		enum dc_tracepoint tp = tp_attach_order[j];

		if (!c->tp_needed[tp])
			continue;
		if (!keep(c, bpf_program__attach(dc_klayer_prog(skel, tp))))
			sysdie("cannot attach tracepoint %s",
			       dc_klayer_by_tp(tp)->name);
	}
	if (c->attached == 0 && c->spec->nprobes > 0)
		die("no probe could be attached");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	notice("attached %u of %zu probes in %.1f ms%s", c->attached,
	       c->spec->nprobes,
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
	       c->failed ? " (see warnings above)" : "");
}

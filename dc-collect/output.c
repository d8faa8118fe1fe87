/*
 * output.c - what dc-collect writes into the stream (dc-stream(5)): the
 * frames, the description of processes, files and probes, the kernel's
 * ring-buffer records batched into EVENTS frames (merged with the clients'
 * on the fast path), the profile's COUNTERS and the DROPS frames.  A
 * reader that goes away stops the writing, not the collector: out_errno.
 */
#include "config.h"

#include <errno.h>
#include <fts.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collector.h"
#include "messages.h"
#include "proc.h"

/* ---- output ---- */

bool out_ok(struct collector *c)
{
	return c->out_errno == 0;
}

/* The EVENTS frame being filled is built in the writer's buffer (no copy
 * into it): it ends before any other frame. */
void out_frame(struct collector *c, uint16_t type, const void *data,
	       uint32_t len)
{
	flush_batch(c);
	if (!out_ok(c))
		return;
	if (dc_writer_frame(c->out, type, data, len) != 0)
		c->out_errno = errno;
}

void flush_batch(struct collector *c)
{
	if (c->batch == NULL)
		return;
	dc_writer_end(c->out, DC_FRAME_EVENTS, (uint32_t)c->batch_used);
	c->batch = NULL;
	c->batch_used = 0;
}

/* Room for size more bytes in the EVENTS frame (a new one if it would
 * pass BATCH_BYTES), or NULL when the stream cannot be written. */
static unsigned char *batch_room(struct collector *c, size_t size)
{
	if (c->batch != NULL && c->batch_used + size <= BATCH_BYTES)
		return c->batch + c->batch_used;
	flush_batch(c);
	if (!out_ok(c))
		return NULL;
	c->batch = dc_writer_begin(c->out, BATCH_BYTES);
	if (c->batch == NULL)
		c->out_errno = errno;
	return c->batch;
}

void flush_out(struct collector *c)
{
	flush_batch(c);
	if (out_ok(c) && dc_writer_flush(c->out) != 0)
		c->out_errno = errno;
}

/* Its open files, so descriptors opened before tracing have names.  Read
 * while it runs on: the frame says when (dc-stream(5)), and readers apply
 * it from then on. */
static void emit_fds(struct collector *c, pid_t pid)
{
	unsigned char buf[80000];
	size_t n = dc_fds_record(pid, buf, sizeof(buf));

	if (n > 0) {
		flush_batch(c);
		out_frame(c, DC_FRAME_FDS, buf, (uint32_t)n);
	}
}

/* Describe pid from /proc: since is the time the description holds from
 * (0: now), flags DC_PROC_F_*; after an exec, ev is the EXEC record. */
static void describe(struct collector *c, pid_t pid, uint64_t since,
		     uint32_t flags, const struct dc_event *ev)
{
	unsigned char buf[80000];
	size_t n = dc_proc_record(pid, since, flags, buf, sizeof(buf));

	if (n == 0) {
		debug("process %d is gone before it could be described", (int)pid);
		return;
	}
	/* Read after a second exec, it would describe this one as the next
	 * program; after the process exited, as none: say nothing, the
	 * readers name the program by the record's path, and a next EXEC
	 * record is described. */
	if (ev != NULL && !dc_proc_runs(pid, DC_EVENT_STR(ev), ev->str_len,
					buf, n)) {
		debug("process %d execed again or exited before it could be "
		      "described", (int)pid);
		dc_descs_drop(&c->descs, pid);
		return;
	}
	flush_batch(c);
	out_frame(c, DC_FRAME_PROCESS, buf, (uint32_t)n);
	dc_descs_put(&c->descs, buf, n);
	emit_fds(c, pid);
}

void emit_process(struct collector *c, pid_t pid)
{
	describe(c, pid, 0, 0, NULL);
}

/* A child runs its parent's program until it execs: it is described by
 * its parent's description, not by /proc, which may show it after its
 * exec by the time we look.  Its descriptors are its parent's, which the
 * stream's readers copy at the FORK record.  A parent never described
 * (--all, --cgroup) is described now, and the child's descriptors read. */
static void emit_forked(struct collector *c, pid_t parent, pid_t child,
			uint64_t ts)
{
	unsigned char buf[80000];
	bool known = dc_descs_has(&c->descs, parent);
	size_t n;

	if (!known)
		emit_process(c, parent);
	n = dc_descs_fork(&c->descs, parent, child, ts, buf, sizeof(buf));
	if (n == 0) {
		/* The parent was gone: readers give the child its parent's
		 * description at the FORK record. */
		debug("process %d forked %d and is gone", (int)parent, (int)child);
		return;
	}
	flush_batch(c);
	out_frame(c, DC_FRAME_PROCESS, buf, (uint32_t)n);
	if (!known)
		emit_fds(c, child);
}

/* ---- snapshots ---- */

/* A FILE frame for root and for each file below it (symbolic links not
 * followed), at most --snapshot-max; a tree with more is cut short with
 * a warning. */
static void snapshot_tree(struct collector *c, const char *root)
{
	char *roots[] = { (char *)root, NULL };
	FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
	unsigned char buf[4096 + 256];
	unsigned long count = 0;
	FTSENT *e;
	size_t n;

	if (fts == NULL) {
		syswarn("cannot snapshot %s", root);
		return;
	}
	while ((e = fts_read(fts)) != NULL) {
		if (e->fts_info == FTS_DP)
			continue;
		if (e->fts_info == FTS_ERR ||
		    (e->fts_info == FTS_NS && e->fts_level == FTS_ROOTLEVEL)) {
			errno = e->fts_errno;
			syswarn("cannot snapshot %s", e->fts_path);
			break;
		}
		if (count == c->opt.snapshot_max) {
			warn("snapshot of %s stopped at %lu files (--snapshot-max)",
			     root, count);
			break;
		}
		n = dc_file_record(e->fts_path, buf, sizeof(buf));
		if (n > 0) {
			out_frame(c, DC_FRAME_FILE, buf, (uint32_t)n);
			count++;
		}
	}
	if (e == NULL && errno != 0)
		syswarn("cannot snapshot %s", root);
	fts_close(fts);
}

void snapshot_paths(struct collector *c)
{
	int i;

	for (i = 0; i < c->opt.nsnapshots; i++)
		snapshot_tree(c, c->opt.snapshots[i]);
}

/* Describe every selected process again (--proc-interval). */
void snapshot_processes(struct collector *c)
{
	int fd = bpf_map__fd(c->skel->maps.selected);
	__u32 key, next;
	int more;

	for (more = bpf_map_get_next_key(fd, NULL, &next) == 0; more;
	     more = bpf_map_get_next_key(fd, &key, &next) == 0) {
		key = next;
		emit_process(c, (pid_t)key);
	}
}

static void emit_probe(struct collector *c, uint32_t id, int kind,
		       const char *layer, const char *name, const char *target,
		       const struct dc_probe *p)
{
	unsigned char buf[8192];
	struct dc_probe_rec rec;
	size_t pos;

	memset(&rec, 0, sizeof(rec));
	rec.id = id;
	rec.kind = (uint16_t)kind;
	if (p != NULL) {
		rec.nargs = (uint8_t)p->nargs;
		rec.ret_kind = p->ret_kind;
		memcpy(rec.arg_kinds, p->arg_kinds, (size_t)p->nargs);
		/* An aiocb's slot holds the request's descriptor; stdout's
		 * and stdin's, the FILE * (lib/event.h). */
		for (int a = 0; a < p->nargs; a++)
			if (rec.arg_kinds[a] == DC_ARG_AIOCB)
				rec.arg_kinds[a] = DC_ARG_FD;
			else if (dc_arg_is_stream(rec.arg_kinds[a]))
				rec.arg_kinds[a] = DC_ARG_FILE;
		rec.offset = p->kind == DC_PROBE_SYSCALL ? (uint64_t)p->nr : p->offset;
	}
	memcpy(buf, &rec, sizeof(rec));
	pos = dc_put_str(buf, sizeof(buf), sizeof(rec), layer, strlen(layer));
	if (pos)
		pos = dc_put_str(buf, sizeof(buf), pos, name, strlen(name));
	if (pos)
		pos = dc_put_str(buf, sizeof(buf), pos, target ? target : "",
				 target ? strlen(target) : 0);
	if (pos == 0)
		die("probe %u: names too long for a PROBE frame", id);
	out_frame(c, DC_FRAME_PROBE, buf, (uint32_t)pos);
}

void emit_probes(struct collector *c)
{
	static const char *const internal[DC_IPROBE_COUNT] = {
		[DC_IPROBE_FORK] = "fork", [DC_IPROBE_EXEC] = "exec",
		[DC_IPROBE_EXIT] = "exit", [DC_IPROBE_REGISTER] = "register",
	};
	size_t i;

	for (i = 0; i < c->spec->nprobes; i++) {
		const struct dc_probe *p = &c->spec->probes[i];

		emit_probe(c, (uint32_t)i, p->kind, p->layer, dc_probe_name(p),
			   p->target, p);
	}
	for (i = 0; i < DC_IPROBE_COUNT; i++)
		emit_probe(c, c->internal_base + (uint32_t)i, DC_PROBE_INTERNAL,
			   "datacrumbs", internal[i], NULL, NULL);
}

/* ---- ring buffer ---- */

static void append_record(struct collector *c, const struct dc_event *ev)
{
	unsigned char *to = batch_room(c, ev->size);

	if (to != NULL) {
		memcpy(to, ev, ev->size);
		c->batch_used += ev->size;
	}
	c->events++;
}

/* A client record (fastpath.c) is copied and checked where it goes: in
 * the merge's queue, or straight in the EVENTS frame when a process's
 * last records are taken while the merge runs (its exit or exec). */
struct dc_event *fast_room(void *ctx, size_t size)
{
	struct collector *c = ctx;

	if (c->merge.running)
		return (struct dc_event *)batch_room(c, size);
	return dc_merge_client_room(&c->merge, size);
}

/* The record checked, in its room: merged with the kernel's, or out. */
void fast_sink(void *ctx, struct dc_event *ev)
{
	struct collector *c = ctx;

	dc_nest_client(&c->nest, ev);
	if (c->merge.running) {
		c->batch_used += ev->size;
		c->events++;
	} else {
		dc_merge_client_add(&c->merge);
	}
}

static void process_record(struct collector *c, const struct dc_event *ev);

/* Whether ev, with room bytes from its start to the end of what holds
 * it, is a whole record: a header at least, and no longer than room. */
static bool record_fits(const struct dc_event *ev, size_t room)
{
	return room >= DC_EVENT_HDR_SIZE && ev->size >= DC_EVENT_HDR_SIZE &&
	       ev->size <= room;
}

/* A batch of kernel-layer records (DC_EV_BATCH: its mark, then the
 * records; common.bpf.h): each into the merge, among the records that
 * come out of the ring's order, to be placed by time (merge.c). */
static void on_batch(struct collector *c, const unsigned char *data,
		     size_t size)
{
	size_t off = DC_BATCH_MARK;

	while (off < size) {
		const struct dc_event *ev = (const void *)(data + off);

		if (!record_fits(ev, size - off)) {
			warn("ignoring the rest of a malformed batch of kernel records (%zu of %zu bytes)",
			     size - off, size);
			return;
		}
		dc_merge_client(&c->merge, ev);
		off += ev->size;
	}
}

int on_record(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;
	const struct dc_event *ev = data;

	if (size >= DC_BATCH_MARK && ev->size == DC_BATCH_MARK &&
	    ev->type == DC_EV_BATCH) {
		on_batch(c, data, size);
		return 0;
	}
	if (!record_fits(ev, size)) {
		warn("ignoring a malformed ring-buffer record (%zu bytes)", size);
		return 0;
	}
	/* The start of a uprobe call on the fast path: for nest.c only. */
	if (ev->type == DC_EV_NEST_ENTER) {
		dc_nest_enter(&c->nest, ev);
		return 0;
	}
	if (ev->type == DC_EV_CALL)
		dc_nest_call(&c->nest, ev);
	/* With clients or batches, the kernel's records wait to be merged
	 * with theirs; a process's own record (fork, exec, exit, a client's
	 * registration) is described from /proc when it goes out, best
	 * while the process is still there (process_waits). */
	if (c->fast != NULL || c->batching) {
		dc_merge_kernel(&c->merge, ev, ev->probe_id >= c->internal_base &&
				ev->probe_id < c->internal_base + DC_IPROBE_COUNT);
		return 0;
	}
	process_record(c, ev);
	return 0;
}

/* One record of the kernel's, in stream order. */
static void process_record(struct collector *c, const struct dc_event *ev)
{
	/* A process that exits or execs writes nothing more into the rings
	 * its client had: they go into the stream before this record. */
	if (ev->type == DC_EV_EXIT_PROC || ev->type == DC_EV_EXEC) {
		dc_fast_finish(c->fast, (pid_t)ev->pid, ev->ts);
		dc_nest_forget(&c->nest, ev->pid);
	}
	/* Every process of the command records its own calls, or gets
	 * uprobes (collect.c). */
	follow_clients(c, ev);
	/* The exec's description comes first: the readers' description of
	 * the process at the EXEC record is the new program's, complete. */
	if (ev->type == DC_EV_EXEC)
		describe(c, (pid_t)ev->pid, ev->ts, DC_PROC_F_EXEC, ev);
	append_record(c, ev);

	/* Describe processes as they appear, right after the record that
	 * introduced them and before anything they do. */
	switch (ev->type) {
	case DC_EV_FORK:
		emit_forked(c, (pid_t)ev->pid, (pid_t)DC_EVENT_ARGS(ev)[0],
			    ev->ts);
		break;
	case DC_EV_INSTANT:
		/* A client registering in a process described already (at
		 * its exec) adds nothing to say. */
		if (ev->probe_id == c->internal_base + DC_IPROBE_REGISTER &&
		    !dc_descs_has(&c->descs, (pid_t)ev->pid))
			emit_process(c, (pid_t)ev->pid);
		break;
	case DC_EV_EXIT_PROC:
		dc_descs_drop(&c->descs, (pid_t)ev->pid);
		if (c->profiler)
			dc_profiler_exited(c->profiler, ev->pid);
		break;
	}
}

static void merged_record(void *ctx, const struct dc_event *ev, bool kernel)
{
	if (kernel)
		process_record(ctx, ev);
	else
		append_record(ctx, ev);
}

/* Try a flush this many times on a CPU whose batch is busy (the test
 * run interrupted a program adding to it, which goes on once the run
 * returns), at the end of a run this many: */
#define FLUSH_TRIES 8
#define FLUSH_TRIES_FINAL 1000
/* A CPU's mark that its batch holds records is read this long after the
 * time it may have been set by: stores reach other CPUs in far less. */
#define FLUSH_SKEW_NS 20000

/* At the end, the batch of a CPU gone offline: nothing runs there to
 * send it or change it, so it is read from the map and its records join
 * the merge as a sent batch's would.  Before the end it waits for the
 * CPU to come back: read now, it would be sent again then.  The map's
 * copies for every CPU are read once, in *copies (NULL until then; the
 * caller frees it). */
static void take_offline_batch(struct collector *c, int cpu, int ncpu,
			       struct cpu_batch **copies)
{
	const struct cpu_batch *b;
	__u32 zero = 0;

	_Static_assert(sizeof(struct cpu_batch) % 8 == 0,
		       "a per-CPU value's copies are 8-byte aligned");
	if (*copies == NULL) {
		*copies = xcalloc((size_t)ncpu, sizeof(**copies));
		if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.cpu_batches),
					&zero, *copies) != 0)
			syswarn("cannot read the kernel records of offline CPUs");
	}
	b = &(*copies)[cpu];
	if (b->busy)
		warn("kernel records of offline CPU %d left: its batch was being written",
		     cpu);
	else if (b->len > DC_BATCH_MARK && b->len <= DC_BATCH_BYTES)
		on_batch(c, b->data, b->len);
}

/* Make one CPU send its batch (a test run of dc_batch_flush there);
 * false if it could not.  *offline: it is offline (its batch waits). */
static bool flush_cpu(struct collector *c, int fd, int cpu, int tries,
		      bool *offline)
{
	LIBBPF_OPTS(bpf_test_run_opts, run, .flags = BPF_F_TEST_RUN_ON_CPU,
		    .cpu = (__u32)cpu);

	while (tries-- > 0) {
		if (bpf_prog_test_run_opts(fd, &run) != 0) {
			/* Offline: its batch waits until it is back, or
			 * is read at the end. */
			if (errno == ENXIO) {
				*offline = true;
				return true;
			}
			if (!c->flush_failed)
				syswarn("cannot make CPU %d send its kernel records", cpu);
			c->flush_failed = true;
			return false;
		}
		if (run.retval == 0)
			return true;
		sched_yield();
	}
	return false;
}

/* DC_TEST_FLUSH_EVERY=N, for tests: only every Nth drain, and the last,
 * makes the CPUs send their batches; the others send nothing and count
 * as a drain at which a CPU's batch stayed busy, so the horizon stays
 * where it was and the ring's newer records wait.  That happens by
 * itself only in a race microseconds wide: tests make it happen at will
 * (t/3190: the horizon, and process_waits' polls).  Read once, at
 * start-up; 1 (every drain) without it. */
void batch_test_hooks(struct collector *c)
{
	long long n = 1;
	bool set = test_hook("DC_TEST_FLUSH_EVERY", 1, 1000000, &n);

	c->flush_every = (unsigned)n;
	/* Said, so a test knows the hook is in force, not misspelt. */
	if (set && c->batching)
		notice("DC_TEST_FLUSH_EVERY=%u: batches sent at one drain in %u only, and at the end",
		       c->flush_every, c->flush_every);
}

/* The CPUs are made to send their batches at most this often: each
 * time interrupts every CPU holding records, and with clients the
 * collector drains every FAST_TICK_MS.  Between, a drain leaves the
 * batches where they are, as one at which a batch stayed busy: the
 * ring's and the clients' newer records wait for them.  Sooner when a
 * process's record waits to be described (process_waits), and at the
 * end. */
#define FLUSH_PERIOD_NS (50 * 1000000ULL)

/* Whether this drain leaves the batches where they are (the period, or
 * the test hook); counts the drains and the sends (-v says them). */
static bool flush_skipped(struct collector *c, bool final)
{
	uint64_t now = now_ns();
	bool skip;

	c->drains++;
	if (final)
		skip = false;
	else if (c->flush_every > 1)
		skip = ++c->flush_drains % c->flush_every != 0;
	else
		skip = now - c->flushed_at < FLUSH_PERIOD_NS && !process_waits(c);
	if (!skip) {
		c->flushed_at = now;
		c->flushes++;
	}
	return skip;
}

/* Make each CPU whose batch holds records send it (common.bpf.h), and
 * move c->batch_horizon: every record batched before it is in the ring
 * now.  Not moved while a CPU's batch stays busy: its records might end
 * before the kernel's records taken out next.  Moved all the same once
 * the kernel refused a flush (said once, flush_cpu): else the ring's
 * records would wait for good.  With more CPUs than lines (collect.h),
 * lines are shared and every CPU is asked. */
static void flush_cpu_batches(struct collector *c, bool final)
{
	int fd = bpf_program__fd(c->skel->progs.dc_batch_flush);
	const volatile struct dc_cpu_line *lines = c->skel->bss->cpu_lines;
	int ncpu = libbpf_num_possible_cpus(), cpu;
	uint64_t t = now_ns();
	bool skip = flush_skipped(c, final), all = !skip;
	struct cpu_batch *copies = NULL;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (cpu = 0; !skip && cpu < ncpu; cpu++) {
		bool offline = false;

		if (ncpu <= DC_CPU_LINES && !lines[cpu].batched)
			continue;
		if (!flush_cpu(c, fd, cpu, final ? FLUSH_TRIES_FINAL : FLUSH_TRIES,
			       &offline))
			all = false;
		else if (offline && final)
			take_offline_batch(c, cpu, ncpu, &copies);
	}
	free(copies);
	if (final && !all && !c->flush_failed)
		warn("some kernel-layer records could not be taken from a CPU at the end");
	if (all || c->flush_failed)
		c->batch_horizon = t - FLUSH_SKEW_NS;
}

/* Whether a process's own record (fork, exec, exit, a client's
 * registration) waits in the merge for the next drain. */
bool process_waits(const struct collector *c)
{
	return dc_merge_soon(&c->merge);
}

/* The kernel's per-CPU batches sent first (the time before that is
 * `upto`), and the client rings' heads taken (`upto` then, if sooner);
 * then the kernel's ring; then the client records up to those heads and
 * the batched records, merged by end time with the kernel's (merge.c).
 * final: nothing waits for a next drain. */
void drain_ordered(struct collector *c, bool final)
{
	uint64_t upto = UINT64_MAX, produced = 0;
	int n;

	if (c->batching) {
		flush_cpu_batches(c, final);
		upto = c->batch_horizon;
	}
	if (c->fast != NULL) {
		uint64_t now;

		dc_fast_service(c->fast);
		now = now_ns();
		if (now < upto)
			upto = now;
		dc_fast_snapshot(c->fast);
	}
	if (c->fast != NULL || c->batching)
		produced = dc_nest_produced(&c->nest);
	/* consume, not poll: records submitted without a wakeup are only
	 * found by looking.  A record still being written stops it; on the
	 * fast path every record begun before the snapshot is read before
	 * the client records are placed (nest.h), and every batch sent
	 * before the merge places its records, so again until then. */
	while ((n = ring_buffer__consume(c->rb)) >= 0 &&
	       dc_nest_behind(&c->nest, produced))
		sched_yield();
	if (n < 0 && n != -EINTR)
		warn("reading the ring buffer failed: %s", strerror(-n));
	if (c->fast != NULL)
		dc_fast_drain(c->fast);
	if (c->fast != NULL || c->batching)
		dc_merge_run(&c->merge, upto, final, merged_record, c);
	if (c->fast != NULL)
		dc_nest_drained(&c->nest);
	flush_out(c);
}

void drain(struct collector *c)
{
	drain_ordered(c, false);
}

/* ---- counters ---- */

/* Profile mode: one COUNTERS frame for the interval that just ended. */
void take_counters(struct collector *c)
{
	uint64_t now = now_ns();
	const unsigned char *buf;
	size_t len;

	buf = dc_profiler_take(c->profiler, c->interval_start,
			       now - c->interval_start, &len);
	c->interval_start = now;
	if (len == 0)
		return;
	flush_batch(c);
	out_frame(c, DC_FRAME_COUNTERS, buf, (uint32_t)len);
}


static void sum_percpu(int map_fd, __u32 key, int ncpu, __u64 *per_cpu,
		       __u64 *total)
{
	int i;

	*total = 0;
	memset(per_cpu, 0, sizeof(__u64) * (size_t)ncpu);
	if (bpf_map_lookup_elem(map_fd, &key, per_cpu) != 0)
		return;
	for (i = 0; i < ncpu; i++)
		*total += per_cpu[i];
}

/* The kernel's counters, summed over the CPUs. */
struct drop_counts {
	__u64 total, depth, nostack, unpaired, unwound, unknown;
};

/* A DROPS frame being built in buf: the record, then its entries. */
struct drops_frame {
	unsigned char *buf;
	size_t pos;
	struct dc_drops_rec rec;
};

static void drops_begin(struct drops_frame *f, unsigned char *buf,
			uint32_t kind, uint64_t total)
{
	memset(f, 0, sizeof(*f));
	f->buf = buf;
	f->pos = sizeof(f->rec);
	f->rec.kind = kind;
	f->rec.total = total;
}

static void drops_add(struct drops_frame *f, uint32_t key, uint64_t dropped)
{
	struct dc_drops_entry e;

	memset(&e, 0, sizeof(e));
	e.key = key;
	e.dropped = dropped;
	memcpy(f->buf + f->pos, &e, sizeof(e));
	f->pos += sizeof(e);
	f->rec.count++;
}

static void drops_send(struct collector *c, struct drops_frame *f)
{
	memcpy(f->buf, &f->rec, sizeof(f->rec));
	out_frame(c, DC_FRAME_DROPS, f->buf, (uint32_t)f->pos);
}

/* One line per cause of a process's lost client records. */
static void warn_client_lost(uint32_t pid, const struct dc_fast_lost *l)
{
	uint64_t full = l->count - l->nested - l->noslot;

	if (full > 0)
		warn("process %u: %llu user-level records lost (client ring full; raise --fast-ring)",
		     (unsigned)pid, (unsigned long long)full);
	if (l->noslot > 0)
		warn("process %u: %llu user-level records lost: its threads past --fast-slots had no ring (raise it)",
		     (unsigned)pid, (unsigned long long)l->noslot);
	if (l->nested > 0)
		warn("process %u: %llu user-level records lost: signal handlers' calls made while a thread wrote more records than it keeps",
		     (unsigned)pid, (unsigned long long)l->nested);
}

/* Client records lost (fast path): per process, in the same total. */
static uint64_t report_client_drops(struct collector *c, __u64 total)
{
	uint64_t fast_total = 0;
	size_t np = dc_fast_drops(c->fast, NULL, NULL, 0, &fast_total), k;
	uint32_t *pids = xcalloc(np + 1, sizeof(uint32_t));
	struct dc_fast_lost *lost = xcalloc(np + 1, sizeof(*lost));

	dc_fast_drops(c->fast, pids, lost, np, &fast_total);
	if (c->fast != NULL) {
		unsigned char *pbuf = xmalloc(sizeof(struct dc_drops_rec) +
					      sizeof(struct dc_drops_entry) * (np + 1));
		struct drops_frame f;

		drops_begin(&f, pbuf, DC_DROPS_PER_PROCESS, total + fast_total);
		for (k = 0; k < np; k++) {
			drops_add(&f, pids[k], lost[k].count);
			warn_client_lost(pids[k], &lost[k]);
		}
		drops_send(c, &f);
		free(pbuf);
	}
	free(pids);
	free(lost);
	return fast_total;
}

/* The DROPS frame per CPU (per_cpu: records lost on each) and per probe
 * (read from the probe_drops map, reusing per_cpu), into buf. */
static void report_kernel_drops(struct collector *c, uint64_t total,
				__u64 *per_cpu, int ncpu, unsigned char *buf)
{
	int pfd = bpf_map__fd(c->skel->maps.probe_drops);
	struct drops_frame f;
	__u32 i;
	int cpu;

	drops_begin(&f, buf, DC_DROPS_PER_CPU, total);
	for (cpu = 0; cpu < ncpu; cpu++)
		if (per_cpu[cpu] != 0)
			drops_add(&f, (uint32_t)cpu, per_cpu[cpu]);
	drops_send(c, &f);

	drops_begin(&f, buf, DC_DROPS_PER_PROBE, total);
	for (i = 0; i < c->internal_base + DC_IPROBE_COUNT && i < DC_MAX_PROBES; i++) {
		__u64 t;

		sum_percpu(pfd, i, ncpu, per_cpu, &t);
		if (t != 0)
			drops_add(&f, i, t);
	}
	drops_send(c, &f);
}

/* Kept, not lost: block requests no process could be named for, in a
 * DROPS frame of kind unattributed so readers can say it next to the
 * losses (dc-stream(5)); its total is the loss total, as in the others. */
static void report_unattributed(struct collector *c, uint64_t total,
				__u64 unknown)
{
	unsigned char buf[sizeof(struct dc_drops_rec) +
			  sizeof(struct dc_drops_entry)];
	struct drops_frame f;

	if (unknown == 0)
		return;
	drops_begin(&f, buf, DC_DROPS_UNATTRIBUTED, total);
	drops_add(&f, DC_UNATTR_BLOCK, unknown);
	drops_send(c, &f);
}

static void warn_drops(const struct drop_counts *n)
{
	if (n->total > n->depth + n->nostack)
		warn("%llu events dropped: the ring buffer was full; raise --ring-size",
		     (unsigned long long)(n->total - n->depth - n->nostack));
	if (n->depth > 0)
		warn("%llu calls dropped: nested deeper than %d on one thread",
		     (unsigned long long)n->depth, DC_MAX_DEPTH);
	if (n->nostack > 0)
		warn("%llu calls dropped: no memory for a thread's call stack",
		     (unsigned long long)n->nostack);
	if (n->unknown > 0)
		notice("%llu block requests completed that were never seen queued "
		       "(in flight when tracing began, or given up by a full "
		       "set of the in-flight table): kept with pid 0",
		       (unsigned long long)n->unknown);
	if (n->unpaired || n->unwound)
		debug("%llu exits without entry, %llu abandoned calls",
		      (unsigned long long)n->unpaired,
		      (unsigned long long)n->unwound);
}

/* Write DROPS frames (per process, per CPU, per probe; unattributed
 * events) and return the total lost. */
unsigned long long report_drops(struct collector *c)
{
	int ncpu = libbpf_num_possible_cpus();
	int cfd = bpf_map__fd(c->skel->maps.counters);
	struct drop_counts n;
	__u64 *per_cpu;
	uint64_t fast_total;
	unsigned char *buf;
	size_t cap;

	if (ncpu <= 0)
		ncpu = 1;
	per_cpu = xcalloc((size_t)ncpu, sizeof(__u64));
	cap = sizeof(struct dc_drops_rec) + sizeof(struct dc_drops_entry) *
		(size_t)(ncpu > DC_MAX_PROBES ? ncpu : DC_MAX_PROBES);
	buf = xmalloc(cap);

	/* Lost records: ring buffer full, stack too deep, no stack slot.
	 * All records lost, per CPU, are read last: per_cpu keeps them. */
	sum_percpu(cfd, DC_CNT_DEPTH, ncpu, per_cpu, &n.depth);
	sum_percpu(cfd, DC_CNT_NOSTACK, ncpu, per_cpu, &n.nostack);
	sum_percpu(cfd, DC_CNT_UNPAIRED, ncpu, per_cpu, &n.unpaired);
	sum_percpu(cfd, DC_CNT_UNWOUND, ncpu, per_cpu, &n.unwound);
	sum_percpu(cfd, DC_CNT_BLOCK_UNKNOWN, ncpu, per_cpu, &n.unknown);
	sum_percpu(cfd, DC_CNT_DROPPED, ncpu, per_cpu, &n.total);

	fast_total = report_client_drops(c, n.total);
	report_kernel_drops(c, n.total + fast_total, per_cpu, ncpu, buf);
	report_unattributed(c, n.total + fast_total, n.unknown);
	warn_drops(&n);
	free(per_cpu);
	free(buf);
	return n.total + fast_total;
}

/* The host's description (SYSINFO), once at the start. */
void emit_sysinfo(struct collector *c)
{
	unsigned char *buf = xmalloc(1 << 20);
	size_t n = dc_sysinfo_record(buf, 1 << 20);

	if (n > 0)
		out_frame(c, DC_FRAME_SYSINFO, buf, (uint32_t)n);
	free(buf);
}

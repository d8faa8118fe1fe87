/*
 * dc-collect - load the datacrumbs BPF programs for a signed probe spec,
 * trace the selected processes and stream raw events to stdout.
 *
 * Flow, as in libbpf-tools: verify the spec's signature; detect kernel
 * features; open the skeleton, set read-only data and switch off programs
 * that are not needed; load; fill the probe tables (load.c); attach
 * (attach.c); start or adopt the processes to trace (here); then drain the
 * ring buffer into EVENTS frames (output.c) until the command exits or a
 * signal arrives, and end the stream with the drop counts and an END
 * frame.  collector.h says which file does what; dc-collect(8) is the
 * manual.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collector.h"
#include "fastabi.h"
#include "messages.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* ---- selection ---- */

static void select_pid(struct collector *c, pid_t pid)
{
	int fd = bpf_map__fd(c->skel->maps.selected);
	__u32 key = (__u32)pid, val = 0;

	if (bpf_map_update_elem(fd, &key, &val, BPF_ANY) != 0)
		sysdie("cannot select process %d", (int)pid);
	/* Answers the programs gave before (this process: not selected)
	 * no longer hold (collect.bpf.c, current_selected). */
	__atomic_fetch_add(&c->skel->bss->gens.sel, 1, __ATOMIC_SEQ_CST);
}

/* In the command's process, before exec: the client library first in
 * LD_PRELOAD and the socket to find us by. */
static void preload_client(struct collector *c)
{
	const char *real = c->client_real, *old = getenv("LD_PRELOAD");

	if (old != NULL && *old != '\0' && strstr(old, real) == NULL) {
		char *v = xasprintf("%s:%s", real, old);

		setenv("LD_PRELOAD", v, 1);
	} else if (old == NULL || *old == '\0') {
		setenv("LD_PRELOAD", real, 1);
	}
	setenv(DC_FAST_ENV, dc_fast_socket_name(c->fast), 1);
}

static const int kept_signals[SIG_KEPT_N] = { SIGINT, SIGTERM, SIGPIPE };

/* Signals: SIGINT and SIGTERM stop cleanly, drain, end the stream, even
 * in a job started with them ignored (in the background of a script):
 * stopping the collector is what they are sent for.  A reader that goes
 * away shows up as EPIPE on write, not as a fatal SIGPIPE.  What each
 * was when we started is kept for the command (restore_signals). */
static void take_signals(struct collector *c)
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	for (i = 0; i < SIG_KEPT_N; i++) {
		sa.sa_handler = kept_signals[i] == SIGPIPE ? SIG_IGN : on_signal;
		sigaction(kept_signals[i], &sa, &c->sig_start[i]);
	}
}

/* In the command's process: the dispositions the collector found, an
 * ignored SIGINT (a background job's) still ignored. */
static void restore_signals(const struct collector *c)
{
	int i;

	for (i = 0; i < SIG_KEPT_N; i++)
		sigaction(kept_signals[i], &c->sig_start[i], NULL);
}

/* Start COMMAND stopped, select it, then let it exec: the child does all
 * its own set-up before it stops, so the trace holds nothing of ours and
 * nothing of COMMAND's is missed. */
static void start_command(struct collector *c)
{
	int report[2], status, err = 0;
	pid_t pid, parent;
	ssize_t n;

	if (pipe2(report, O_CLOEXEC) != 0)
		sysdie("cannot create a pipe");
	parent = getpid();
	pid = fork();
	if (pid < 0)
		sysdie("cannot fork");
	if (pid == 0) {
		close(report[0]);
		/* The collector's stdout is the stream: the command's
		 * output goes to standard error instead. */
		if (c->opt.output == NULL)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		restore_signals(c);
		/* A profiler never takes down what it watches: if the
		 * collector dies, the command goes on untraced.  Should it
		 * die while the command waits stopped below, the command is
		 * continued (SIGCONT to a running process does nothing). */
		prctl(PR_SET_PDEATHSIG, SIGCONT);
		if (c->fast != NULL)
			preload_client(c);
		if (getppid() == parent)
			raise(SIGSTOP);
		execvp(c->opt.command[0], c->opt.command);
		err = errno;
		if (write(report[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(err == ENOENT ? 127 : 126);
	}
	close(report[1]);
	if (waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status))
		die("the command's process did not start");
	c->child = pid;
	select_pid(c, pid);
	if (c->pidprobes != NULL)
		dc_pidprobes_follow(c->pidprobes, pid, DC_PIDPROBES_SPEC);
	/* A program that will not load the client: uprobes in its place
	 * before it runs, not when its exec is read (fallback.c). */
	dc_fallback_command(c->fallback, pid, c->opt.command[0]);
	emit_process(c, pid);
	if (kill(pid, SIGCONT) != 0)
		sysdie("cannot start the command");
	n = read(report[0], &err, sizeof(err));
	close(report[0]);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(pid, NULL, 0);
		c->child_done = true;
		/* Nothing was traced: the stream file goes (atexit). */
		die_status(err == ENOENT ? 127 : 126, "cannot run %s: %s",
			   c->opt.command[0], strerror(err));
	}
}

static void select_pids(struct collector *c)
{
	int i;

	for (i = 0; i < c->opt.npids; i++) {
		if (kill(c->opt.pids[i], 0) != 0 && errno == ESRCH)
			die("no process %d", (int)c->opt.pids[i]);
		select_pid(c, c->opt.pids[i]);
		if (c->pidprobes != NULL)
			dc_pidprobes_follow(c->pidprobes, c->opt.pids[i],
					    DC_PIDPROBES_SPEC);
		emit_process(c, c->opt.pids[i]);
	}
}

static bool any_selected(struct collector *c)
{
	int fd = bpf_map__fd(c->skel->maps.selected);
	__u32 key;

	return bpf_map_get_next_key(fd, NULL, &key) == 0;
}

/* ---- ready file ---- */

static void write_ready_file(const char *path)
{
	char tmp[PATH_MAX];
	int fd;

	/* Create it complete under a temporary name and link it into place:
	 * a watcher never sees a half-written file, and an existing file or
	 * symlink at path is an error, never followed or clobbered. */
	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
		die("ready file name too long");
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		sysdie("cannot create ready file %s", tmp);
	dprintf(fd, "%d\n", (int)getpid());
	if (close(fd) != 0)
		sysdie("cannot write ready file %s", tmp);
	if (link(tmp, path) != 0) {
		int err = errno;

		unlink(tmp);
		errno = err;
		sysdie("cannot create ready file %s", path);
	}
	unlink(tmp);
}

/*
 * -o FILE created before tracing began: a failure in between (a process
 * that is not there, an attach that fails, a command that cannot run)
 * must not leave a stream file with nothing traced in it.  One name for
 * the atexit handler, cleared once tracing runs.
 */
static const char *unstarted_output;

static void remove_unstarted_output(void)
{
	if (unstarted_output != NULL)
		unlink(unstarted_output);
}

/* ---- main loop ---- */

static bool reap_child(struct collector *c)
{
	int status;
	pid_t r;

	if (c->child <= 0 || c->child_done)
		return c->child_done;
	r = waitpid(c->child, &status, WNOHANG);
	if (r == c->child) {
		c->child_done = true;
		c->child_status = status;
	}
	return c->child_done;
}

static double now_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Wait for the kernel's ring or a client; with client rings mapped, no
 * longer than FAST_TICK_MS: clients wake nobody when they write.  A
 * process's record held back by the merge (output.c) is described from
 * /proc when it goes out, best while the process is still there: back
 * in a millisecond. */
static int wait_events(struct collector *c)
{
	struct epoll_event ev[4];
	int timeout = c->opt.poll_ms, n;

	if (process_waits(c))
		timeout = 1;
	if (c->fast == NULL)
		return ring_buffer__poll(c->rb, timeout);
	if (dc_fast_active(c->fast) && timeout > FAST_TICK_MS)
		timeout = FAST_TICK_MS;
	/* Closes left (dc_fallback_tidy): back soon for more. */
	if (c->tidying)
		timeout = 1;
	n = epoll_wait(c->epoll_fd, ev, 4, timeout);
	return n < 0 ? -errno : n;
}

static void run(struct collector *c)
{
	double last_snapshot = now_seconds();
	int err;

	for (;;) {
		if (c->opt.proc_interval > 0 &&
		    now_seconds() - last_snapshot >= c->opt.proc_interval) {
			drain(c);
			snapshot_processes(c);
			last_snapshot = now_seconds();
		}
		if (stop_signal)
			break;
		err = wait_events(c);
		if (err < 0 && err != -EINTR) {
			warn("polling the ring buffer failed: %s", strerror(-err));
			break;
		}
		drain(c);
		c->tidying = dc_fallback_tidy(c->fallback);
		if (c->profiler && now_ns() - c->interval_start >=
				       (uint64_t)c->spec->interval_ms * 1000000ULL) {
			take_counters(c);
			flush_out(c);
		}
		if (!out_ok(c))
			break;
		if (c->opt.mode == SEL_COMMAND && reap_child(c))
			break;
		if (c->opt.mode == SEL_PIDS && !any_selected(c))
			break;
	}
	/* Whatever the kernel and the clients wrote before we stopped is
	 * still ours. */
	drain_ordered(c, true);
	if (c->batching)
		debug("the CPUs sent their batches at %llu of %llu drains",
		      c->flushes, c->drains);
	c->merge.running = true; /* the last client records go straight out */
	dc_fast_finish_all(c->fast);
	c->merge.running = false;
	flush_out(c);
	if (c->profiler) {
		take_counters(c);
		flush_out(c);
	}
}

static int command_exit_status(const struct collector *c)
{
	if (!c->child_done)
		return 0;
	if (WIFEXITED(c->child_status))
		return WEXITSTATUS(c->child_status);
	if (WIFSIGNALED(c->child_status))
		return 128 + WTERMSIG(c->child_status);
	return 1;
}

/* -- COMMAND: a client may join if the kernel traces its process. */
static bool admit_selected(void *ctx, pid_t pid)
{
	struct collector *c = ctx;
	__u32 key = (__u32)pid, val;

	return bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.selected), &key,
				   &val) == 0;
}

/* --clients: joining selects the process, as registering does. */
static bool admit_client(void *ctx, pid_t pid)
{
	struct collector *c = ctx;

	if (!admit_selected(ctx, pid)) {
		select_pid(c, pid);
		emit_process(c, pid);
	}
	return true;
}

/* A process of the command is about to exec a program that will not load
 * the client: the uprobes go into it now (fallback.c); or that exec
 * failed, and they go. */
static bool exec_ahead(void *ctx, pid_t pid, __u32 request, int program)
{
	struct collector *c = ctx;

	switch (request) {
	case DC_FAST_REQ_EXEC:
		return dc_fallback_ahead(c->fallback, pid);
	case DC_FAST_REQ_EXEC_PROGRAM:
		return dc_fallback_ahead_program(c->fallback, pid, program);
	default:
		dc_fallback_ahead_failed(c->fallback, pid);
		return true;
	}
}

/* Processes that will not load the client get the wrapped functions
 * through uprobes of their own (fallback.c). */
static void start_fallback(struct collector *c)
{
	char client[PATH_MAX];
	const char *why = NULL;

	if (c->opt.mode == SEL_COMMAND)
		snprintf(client, sizeof(client), "%s", c->client_real);
	else if (realpath(client_lib_path(&c->opt), client) == NULL)
		sysdie("cannot use the client library %s", client_lib_path(&c->opt));
	c->fallback = dc_fallback_new(c->spec, c->fast,
		bpf_program__fd(c->skel->progs.dc_fallback_entry),
		bpf_program__fd(c->skel->progs.dc_fallback_exit), client, &why);
	if (c->fallback == NULL)
		notice("fast path: processes that will not load the client "
		       "library are not traced (no uprobes of their own: %s)", why);
}

/* Who records the wrapped calls of each process of the command, at its
 * fork, exec and exit: its client (the fast path expects it to connect),
 * or uprobes in it when it will not load the client. */
void follow_clients(struct collector *c, const struct dc_event *ev)
{
	pid_t pid = (pid_t)ev->pid, child;

	if (c->fast == NULL)
		return;
	switch (ev->type) {
	case DC_EV_FORK:
		child = (pid_t)DC_EVENT_ARGS(ev)[0];
		if (!dc_fallback_fork(c->fallback, pid, child, ev->ts))
			dc_fast_expect(c->fast, child, true, ev->ts);
		break;
	case DC_EV_EXEC:
		/* What the image before did not record it did not call:
		 * the new one decides. */
		dc_fast_expect(c->fast, pid, false, ev->ts);
		if (!dc_fallback_exec(c->fallback, pid, ev->ts,
				      ev->str_len > 0 ? DC_EVENT_STR(ev) : NULL))
			dc_fast_expect(c->fast, pid, true, ev->ts);
		break;
	case DC_EV_EXIT_PROC:
		if (!dc_fallback_exit(c->fallback, pid))
			dc_fast_exited(c->fast, pid);
		break;
	default:
		break;
	}
}

/* Whether a program that adds to the per-CPU batches is needed: the
 * kernel layers' tracepoints (tracepoints.bpf.h, block.bpf.h).  Without
 * them there is nothing to batch or to send at each drain. */
static bool batched_layers(const struct collector *c)
{
	for (int tp = 0; tp < DC_TP_COUNT; tp++)
		if (c->tp_needed[tp])
			return true;
	return c->generic_tp;
}

/* The fast path: after loading (it needs the kernel's map), before
 * attaching (covered functions get no uprobe) and before the command. */
static void start_fast_path(struct collector *c)
{
	struct dc_fast_opts o;
	char name[108];
	struct epoll_event ev = { .events = EPOLLIN };

	if (!c->want_fast)
		return;
	memset(&o, 0, sizeof(o));
	if (c->opt.mode == SEL_COMMAND) {
		snprintf(name, sizeof(name), "@datacrumbs-%d-%llx", (int)getpid(),
			 (unsigned long long)now_ns());
		o.socket_name = name;
		o.admit = admit_selected;
	} else {
		o.socket_name = c->opt.fast_socket ? c->opt.fast_socket
						   : DC_FAST_DEFAULT_SOCKET;
		o.admit = admit_client;
	}
	o.nslots = c->opt.fast_slots;
	o.slot_bytes = c->opt.fast_ring;
	o.full_wait_ms = c->opt.fast_full_wait_ms;
	o.fast_map_fd = bpf_map__fd(c->skel->maps.fast_procs);
	o.state_maps_fd = bpf_map__fd(c->skel->maps.client_states);
	o.fast_gen = &c->skel->bss->gens.fast;
	o.room = fast_room;
	o.sink = fast_sink;
	o.exec_ahead = exec_ahead;
	o.ctx = c;
	c->fast = dc_fast_open(&o, c->spec, c->skip);
	if (c->fast == NULL)
		return;
	/* Nothing for the client to record: no preload, no socket, and
	 * no need of the library (a spec of kernel layers alone). */
	if (dc_fast_ncovered(c->fast) == 0) {
		dc_fast_close(c->fast);
		c->fast = NULL;
		return;
	}
	if (c->opt.mode == SEL_COMMAND &&
	    realpath(client_lib_path(&c->opt), c->client_real) == NULL)
		sysdie("cannot preload the client library %s (--client-lib, "
		       "or --no-preload)", client_lib_path(&c->opt));
	c->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epoll_fd < 0 ||
	    epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(c->rb), &ev) != 0 ||
	    epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, dc_fast_fd(c->fast), &ev) != 0)
		sysdie("cannot watch the ring buffer and the fast path");
	dc_nest_watch(&c->nest, bpf_map__fd(c->skel->maps.events));
	notice("fast path: %zu functions recorded by the client library",
	       dc_fast_ncovered(c->fast));
	start_fallback(c);
}

/* Verify the spec, plan, load and fill the tables; the ring buffer, the
 * profiler in profile mode. */
static void load(struct collector *c, uid_t *owner)
{
	const char *missing;

	/* Not allowed to use BPF at all (not root): say that first, not
	 * whatever reading the root-only signing key would say. */
	dc_features_detect(&c->feat);
	if (c->feat.denied)
		die("cannot collect: %s", dc_features_missing(&c->feat));
	c->spec = load_spec(&c->opt, owner);
	c->internal_base = (unsigned)c->spec->nprobes;

	if (c->opt.single_attach)
		c->feat.umulti = false;
	if (c->opt.kfunc_kprobes)
		c->feat.fentry_unused = true;
	notice("%s", dc_features_line(&c->feat));
	missing = dc_features_missing(&c->feat);
	if (missing != NULL)
		die("cannot collect: %s", missing);
	plan_probes(c);
	c->want_fast = c->spec->mode != DC_MODE_PROFILE &&
		       ((c->opt.mode == SEL_COMMAND && !c->opt.no_preload) ||
			(c->opt.mode == SEL_CLIENTS && c->opt.fast));
	c->sys_batch = c->spec->mode != DC_MODE_PROFILE &&
		       spec_has_kind(c->spec, DC_PROBE_SYSCALL) &&
		       dc_features_sys_batch(&c->feat);
	c->batching = c->sys_batch ||
		      (c->spec->mode != DC_MODE_PROFILE &&
		       batched_layers(c) && dc_features_batch(&c->feat));
	if (c->batching && libbpf_num_possible_cpus() > DC_CPU_LINES)
		notice("%d possible CPUs, more than %d: every CPU is asked for its kernel records at each drain",
		       libbpf_num_possible_cpus(), DC_CPU_LINES);
	batch_test_hooks(c);

	if (c->opt.output == NULL && isatty(STDOUT_FILENO))
		dc_usage_error("standard output is a terminal: pipe it into "
			       "dc-aggregate or dc-write, or use --output");

	open_and_load(c);
	fill_tables(c);
	c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.events), on_record,
				 c, NULL);
	if (c->rb == NULL)
		sysdie("cannot open the ring buffer");
	/* The merge waits for the batches each drain sends (output.c). */
	if (c->batching)
		dc_nest_watch(&c->nest, bpf_map__fd(c->skel->maps.events));
	if (c->spec->mode == DC_MODE_PROFILE) {
		c->profiler = dc_profiler_new(bpf_map__fd(c->skel->maps.profile));
		notice("profile mode: counters every %u ms instead of events",
		       c->spec->interval_ms);
	}
}

/* The output only once loading worked, so a spec or kernel that fails
 * leaves no empty file; until the command runs, any failure removes it
 * again (remove_unstarted_output).  Returns the stream's descriptor. */
static int open_output(struct collector *c, uid_t owner)
{
	int out_fd;

	if (c->opt.output == NULL)
		return STDOUT_FILENO;
	out_fd = open(c->opt.output, O_WRONLY | O_CREAT | O_EXCL |
		      O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out_fd < 0)
		sysdie("cannot create %s", c->opt.output);
	unstarted_output = c->opt.output;
	/* The stream is the trace of the user who had the spec signed:
	 * theirs, and nobody else's (mode 0600). */
	if (owner != (uid_t)-1 && owner != geteuid()) {
		struct passwd *pw = getpwuid(owner);

		if (fchown(out_fd, owner, pw ? pw->pw_gid : (gid_t)-1) != 0)
			sysdie("cannot give %s to uid %u", c->opt.output,
			       (unsigned)owner);
	}
	return out_fd;
}

/* Everything from the stream's header to the command running. */
static void start(struct collector *c, int out_fd)
{
	dc_stream_info_init(&c->info, c->opt.run_id);
	c->out = dc_writer_open(out_fd, &c->info);
	if (c->out == NULL)
		sysdie("cannot write the stream header");
	emit_probes(c);
	emit_sysinfo(c);

	take_signals(c);

	snapshot_paths(c);
	start_fast_path(c);
	attach_all(c);
	switch (c->opt.mode) {
	case SEL_PIDS:
		select_pids(c);
		break;
	case SEL_COMMAND:
		break; /* started after the ready file */
	default:
		break;
	}
	if (c->opt.ready_file)
		write_ready_file(c->opt.ready_file);
	c->interval_start = now_ns();
	if (c->opt.mode == SEL_COMMAND)
		start_command(c);
	flush_out(c);
	unstarted_output = NULL; /* tracing: the file is the user's now */
}

/* Everything the collector holds, on every way out. */
static void free_collector(struct collector *c)
{
	dc_fast_close(c->fast);
	dc_merge_free(&c->merge);
	dc_nest_free(&c->nest);
	ring_buffer__free(c->rb);
	drop_links(c);
	dc_pidprobes_free(c->pidprobes);
	dc_fallback_free(c->fallback);
	collect_bpf__destroy(c->skel);
	dc_spec_free(c->spec);
	dc_profiler_free(c->profiler);
	dc_descs_free(&c->descs);
	free(c->skip);
}

/* The stream cannot be written (its reader went away, a full disk). */
static int stop_unwritable(struct collector *c)
{
	errno = c->out_errno;
	if (c->out_errno == EPIPE)
		syswarn("the stream's reader went away; stopping");
	else
		syswarn("cannot write the stream to %s; stopping",
			c->opt.output ? c->opt.output : "standard output");
	if (c->child > 0 && !c->child_done) {
		/* The command is the user's job: let it finish. */
		waitpid(c->child, &c->child_status, 0);
		c->child_done = true;
	}
	dc_writer_close(c->out); /* frees it; the write fails */
	free_collector(c);
	return DC_EXIT_FAILURE;
}

/* The drop counts and the END frame; the status of the run. */
static int end_stream(struct collector *c, int out_fd)
{
	unsigned long long dropped;
	struct dc_end_rec end;
	struct timespec now;
	int status;

	dropped = report_drops(c);
	memset(&end, 0, sizeof(end));
	end.events = c->events;
	end.dropped = dropped;
	clock_gettime(CLOCK_MONOTONIC, &now);
	end.end_mono_ns = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
	if (stop_signal)
		end.flags |= DC_END_INTERRUPTED;
	out_frame(c, DC_FRAME_END, &end, sizeof(end));
	if (out_ok(c) && dc_writer_close(c->out) != 0)
		c->out_errno = errno;
	if (!out_ok(c)) {
		errno = c->out_errno;
		syswarn("cannot write the end of the stream");
		status = DC_EXIT_FAILURE;
	} else {
		notice("%llu events, %llu dropped", c->events, dropped);
		status = DC_EXIT_OK;
	}
	/* Close the stream before detaching: detaching uprobes one by one
	 * can take seconds, and the reader need not wait for it. */
	if (close(out_fd) != 0 && status == DC_EXIT_OK) {
		syswarn("cannot close %s", c->opt.output ? c->opt.output
						       : "standard output");
		status = DC_EXIT_FAILURE;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct collector c;
	int out_fd;
	uid_t owner;
	int status;

	dc_messages_init(argv[0]);
	memset(&c, 0, sizeof(c));
	atexit(remove_unstarted_output);
	parse_options(argc, argv, &c.opt);
	libbpf_set_print(libbpf_log);
	if (c.opt.check_kernel)
		return check_kernel();

	load(&c, &owner);
	out_fd = open_output(&c, owner);
	start(&c, out_fd);
	run(&c);
	if (!out_ok(&c))
		return stop_unwritable(&c);

	status = end_stream(&c, out_fd);
	free_collector(&c);
	if (status == DC_EXIT_OK && c.opt.mode == SEL_COMMAND)
		return command_exit_status(&c);
	return status;
}

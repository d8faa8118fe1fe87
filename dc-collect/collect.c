/*
 * dc-collect - load the datacrumbs BPF programs for a signed probe spec,
 * trace the selected processes and stream raw events to stdout.
 *
 * Flow, as in libbpf-tools: verify the spec's signature; detect kernel
 * features; open the skeleton, set read-only data and switch off programs
 * that are not needed; load; fill the probe tables; attach; start or adopt
 * the processes to trace; then drain the ring buffer into EVENTS frames
 * until the command exits or a signal arrives, and end the stream with the
 * drop counts and an END frame.  dc-collect(8) is the manual.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <mntent.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/epoll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include "event.h"
#include "collect.h"
#include "collect.skel.h"
#include "fastabi.h"
#include "fastpath.h"
#include "merge.h"
#include "kfeatures.h"
#include "kfuncs.h"
#include "klayers.h"
#include "messages.h"
#include "proc.h"
#include "profile.h"
#include "umulti.h"
#include "sign.h"
#include "spec.h"
#include "stream.h"

#define BATCH_BYTES (256u << 10)  /* EVENTS frame payload limit */
#define DEFAULT_RING (64u << 20)
#define DEFAULT_POLL_MS 100
#define MAX_PIDS 4096
#define MAX_SNAPSHOTS 64
#define DEFAULT_SNAPSHOT_MAX 100000
#define DEFAULT_FAST_RING (16u << 20)
#define DEFAULT_FAST_SLOTS 64
#define FAST_TICK_MS 5          /* drain client rings at least this often */

static const char usage_text[] =
	"Usage: dc-collect [OPTIONS] PROBES.sig [-- COMMAND [ARGS...]]\n"
	"       dc-collect --check-kernel\n"
	"Trace the processes selected by the options with the probes of a\n"
	"signed spec, and write the raw event stream to standard output.\n"
	"\n"
	"Selection (one of):\n"
	"  -- COMMAND ARGS     run COMMAND and trace it and its children\n"
	"  -p, --pid PID       trace a running process (repeatable)\n"
	"  -c, --clients       trace processes registered by the client\n"
	"                      library (see dc-wrap(1))\n"
	"  -g, --cgroup PATH   trace every process in a cgroup (v2) and below\n"
	"  -a, --all           trace every process on the host\n"
	"\n"
	"User-level calls (see dc-wrap(1)): with -- COMMAND the client library\n"
	"is preloaded into COMMAND, which then records the posix and stdio\n"
	"calls the spec names itself (the fast path), with no uprobe on those\n"
	"functions; other functions go through uprobes.  Uprobes are set in the\n"
	"library's file: while they are attached every process on the host\n"
	"that calls a probed function pays the trap, traced or not.\n"
	"      --no-preload    -- COMMAND: no fast path, every call by uprobe\n"
	"      --fast          --clients: offer the fast path to the clients\n"
	"      --fast-ring N   client ring bytes per thread (default 16M)\n"
	"      --fast-slots N  client threads with a ring per process (64)\n"
	"      --fast-socket S socket the clients connect to in --clients mode\n"
	"                      (default " DC_FAST_DEFAULT_SOCKET ")\n"
	"\n"
	"Options:\n"
	"  -k, --key FILE      key to verify the spec (default $DC_KEY or\n"
	"                      " SYSCONFDIR "/datacrumbs/signing.key)\n"
	"  -o, --output FILE   write the stream to FILE (created, never\n"
	"                      overwritten) instead of standard output\n"
	"  -r, --run-id ID     run id recorded in the stream\n"
	"  -R, --ready-file F  create F once every probe is attached\n"
	"      --client-lib P  client library to watch (default $DC_CLIENT_LIB\n"
	"                      or " LIBDIR "/libdcclient.so)\n"
	"  -b, --ring-size N   ring buffer bytes, a power of two (default 64M)\n"
	"      --wakeup N      wake the reader when N bytes wait (default\n"
	"                      ring size / 16)\n"
	"      --poll-ms MS    drain at least this often (default 100)\n"
	"      --snapshot PATH record path, size, mtime and inode of every\n"
	"                      file under PATH at start (repeatable)\n"
	"      --snapshot-max N  at most N files per snapshot (default 100000)\n"
	"      --proc-interval S describe the traced processes again every S\n"
	"                      seconds (open files, cwd)\n"
	"      --attach MODE   auto (multi-uprobe links where the kernel has\n"
	"                      them) or single (one uprobe at a time)\n"
	"      --kfunc MODE    auto (fentry where the kernel allows it, else\n"
	"                      kprobes) or kprobes, for kernel functions\n"
	"      --check-kernel  load and attach a test program, report the\n"
	"                      kernel's features, and exit\n"
	"  -v, --verbose       say more on standard error\n"
	"  -h, --help          show this help and exit\n"
	"  -V, --version       show the version and exit\n";

enum fast_option {
	OPT_NO_PRELOAD = 0x100, OPT_FAST, OPT_FAST_RING, OPT_FAST_SLOTS,
	OPT_FAST_SOCKET
};

enum select_mode { SEL_NONE, SEL_COMMAND, SEL_PIDS, SEL_CLIENTS, SEL_CGROUP,
		   SEL_ALL };

struct options {
	const char *spec_path;
	const char *key_path;
	const char *output;
	const char *run_id;
	const char *ready_file;
	const char *client_lib;
	const char *cgroup;     /* --cgroup PATH */
	unsigned long long ring_size;
	unsigned long long wakeup;
	int poll_ms;
	bool check_kernel;
	bool single_attach;    /* --attach single: no multi-uprobe links */
	bool kfunc_kprobes;    /* --kfunc kprobes: no fentry */
	enum select_mode mode;
	pid_t pids[MAX_PIDS];
	int npids;
	char **command;
	const char *snapshots[MAX_SNAPSHOTS]; /* --snapshot PATH */
	int nsnapshots;
	unsigned long snapshot_max;
	unsigned proc_interval;  /* --proc-interval SEC, 0: never */
	bool no_preload;         /* --no-preload: no fast path for COMMAND */
	bool fast;               /* --fast: the fast path for --clients */
	unsigned long long fast_ring; /* --fast-ring */
	unsigned fast_slots;     /* --fast-slots */
	const char *fast_socket; /* --fast-socket */
};

/* State of one collection run. */
struct collector {
	struct options opt;
	struct dc_spec *spec;
	struct collect_bpf *skel;
	struct ring_buffer *rb;
	struct dc_writer *out;
	struct dc_stream_info info;
	unsigned char *batch;
	size_t batch_used;
	unsigned long long events;
	unsigned int internal_base;
	pid_t child;
	int child_status;
	bool child_done;
	int out_errno;        /* set when the reader went away */
	unsigned attached, failed;
	struct dc_features feat;
	/* The plan: what each probe needs from the kernel, decided once. */
	bool tp_needed[DC_TP_COUNT];
	bool generic_tp;      /* some tracepoint uses the generic program */
	struct dc_kfuncs kfuncs; /* how kernel functions are probed */
	bool usdt;            /* some probe is a USDT site */
	bool *skip;           /* per probe: not attachable here */
	struct dc_profiler *profiler; /* profile mode */
	struct bpf_link **links;      /* every link attached, destroyed at end */
	size_t nlinks;
	uint64_t interval_start;      /* monotonic ns */
	struct dc_fast *fast;         /* the fast path, NULL if off */
	struct dc_merge merge;        /* kernel and client records, ordered */
	bool want_fast;               /* decided before loading */
	char client_real[PATH_MAX];   /* the client library to preload */
	int epoll_fd;                 /* kernel ring + fast path */
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static unsigned long long parse_size(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	int shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *s == '-' || *s == '+')
		dc_usage_error("bad %s '%s'", what, s);
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end != '\0' || v > (ULLONG_MAX >> shift))
		dc_usage_error("bad %s '%s'", what, s);
	return v << shift;
}

/* A number of the option opt from lo to hi: never truncated to fit. */
static unsigned long long parse_range(const char *s, const char *opt,
				      unsigned long long lo,
				      unsigned long long hi)
{
	unsigned long long v = parse_size(s, opt);

	if (v < lo || v > hi)
		dc_usage_error("%s takes %llu to %llu, not '%s'", opt, lo, hi, s);
	return v;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "clients", no_argument, NULL, 'c' },
		{ "all", no_argument, NULL, 'a' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "key", required_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "run-id", required_argument, NULL, 'r' },
		{ "ready-file", required_argument, NULL, 'R' },
		{ "client-lib", required_argument, NULL, 'L' },
		{ "ring-size", required_argument, NULL, 'b' },
		{ "wakeup", required_argument, NULL, 'W' },
		{ "poll-ms", required_argument, NULL, 'P' },
		{ "check-kernel", no_argument, NULL, 'K' },
		{ "attach", required_argument, NULL, 'A' },
		{ "kfunc", required_argument, NULL, 'F' },
		{ "snapshot", required_argument, NULL, 'S' },
		{ "snapshot-max", required_argument, NULL, 'M' },
		{ "proc-interval", required_argument, NULL, 'I' },
		/* Long-only options past the char range: no letter clashes. */
		{ "no-preload", no_argument, NULL, OPT_NO_PRELOAD },
		{ "fast", no_argument, NULL, OPT_FAST },
		{ "fast-ring", required_argument, NULL, OPT_FAST_RING },
		{ "fast-slots", required_argument, NULL, OPT_FAST_SLOTS },
		{ "fast-socket", required_argument, NULL, OPT_FAST_SOCKET },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->ring_size = DEFAULT_RING;
	o->poll_ms = DEFAULT_POLL_MS;
	o->snapshot_max = DEFAULT_SNAPSHOT_MAX;
	o->fast_ring = DEFAULT_FAST_RING;
	o->fast_slots = DEFAULT_FAST_SLOTS;
	/* '+': stop at the first non-option, so COMMAND's options stay its. */
	while ((c = getopt_long(argc, argv, "+p:cag:k:o:r:R:b:vhV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'p': {
			char *end;
			long pid = strtol(optarg, &end, 10);

			if (*end != '\0' || pid <= 0 || pid > INT_MAX)
				dc_usage_error("bad process id '%s'", optarg);
			if (o->npids == MAX_PIDS)
				dc_usage_error("too many --pid options (at most %d)",
					       MAX_PIDS);
			o->pids[o->npids++] = (pid_t)pid;
			break;
		}
		case 'c': o->mode = SEL_CLIENTS; break;
		case 'a': o->mode = SEL_ALL; break;
		case 'g':
			o->mode = SEL_CGROUP;
			o->cgroup = optarg;
			break;
		case 'k': o->key_path = optarg; break;
		case 'o': o->output = optarg; break;
		case 'r': o->run_id = optarg; break;
		case 'R': o->ready_file = optarg; break;
		case 'L': o->client_lib = optarg; break;
		case 'b':
			/* The kernel takes up to 2^31 (a u32, a power of 2). */
			o->ring_size = parse_size(optarg, "--ring-size");
			if (o->ring_size < 4096 || o->ring_size > (1ULL << 31) ||
			    (o->ring_size & (o->ring_size - 1)) != 0)
				dc_usage_error("--ring-size takes a power of two "
					       "from 4096 to 2147483648, not '%s'",
					       optarg);
			break;
		case 'W':
			o->wakeup = parse_range(optarg, "--wakeup", 1, 1ULL << 31);
			break;
		case 'P':
			o->poll_ms = (int)parse_range(optarg, "--poll-ms", 1, 60000);
			break;
		case 'K': o->check_kernel = true; break;
		case 'S':
			if (o->nsnapshots == MAX_SNAPSHOTS)
				dc_usage_error("too many --snapshot options (at most %d)",
					       MAX_SNAPSHOTS);
			o->snapshots[o->nsnapshots++] = optarg;
			break;
		case 'M':
			o->snapshot_max = (unsigned long)parse_range(
				optarg, "--snapshot-max", 1, 100000000);
			break;
		case 'I':
			o->proc_interval = (unsigned)parse_range(
				optarg, "--proc-interval", 0, 86400);
			break;
		case OPT_NO_PRELOAD: o->no_preload = true; break;
		case OPT_FAST: o->fast = true; break;
		case OPT_FAST_RING:
			o->fast_ring = parse_size(optarg, "fast-path ring size");
			if (o->fast_ring < 4096 || o->fast_ring > (1ULL << 30) ||
			    (o->fast_ring & (o->fast_ring - 1)) != 0)
				dc_usage_error("--fast-ring must be a power of two from 4096 to 1G");
			break;
		case OPT_FAST_SLOTS:
			o->fast_slots = (unsigned)parse_size(optarg, "fast-path slots");
			if (o->fast_slots < 1 || o->fast_slots > 1024)
				dc_usage_error("--fast-slots must be 1..1024");
			break;
		case OPT_FAST_SOCKET: o->fast_socket = optarg; break;
		case 'A':
			if (strcmp(optarg, "single") == 0)
				o->single_attach = true;
			else if (strcmp(optarg, "auto") != 0)
				dc_usage_error("--attach must be auto or single");
			break;
		case 'F':
			if (strcmp(optarg, "kprobes") == 0)
				o->kfunc_kprobes = true;
			else if (strcmp(optarg, "auto") != 0)
				dc_usage_error("--kfunc must be auto or kprobes");
			break;
		case 'v': dc_verbose++; break;
		case 'h':
			fputs(usage_text, stdout);
			xfclose_stdout();
			exit(0);
		case 'V': dc_print_version();
		default:
			fprintf(stderr, "Try 'dc-collect --help' for more information.\n");
			exit(DC_EXIT_USAGE);
		}
	}
	if (o->check_kernel)
		return;
	if (optind >= argc)
		dc_usage_error("missing the signed probe spec");
	o->spec_path = argv[optind++];
	/* With '+', getopt stops at PROBES.sig and leaves any "--" after it. */
	if (optind < argc && strcmp(argv[optind], "--") == 0)
		optind++;
	if (optind < argc)
		o->command = argv + optind;
	if (o->npids > 0) {
		if (o->mode != SEL_NONE)
			dc_usage_error("--pid cannot be combined with --clients, --cgroup or --all");
		o->mode = SEL_PIDS;
	}
	if (o->command != NULL) {
		if (o->mode != SEL_NONE)
			dc_usage_error("a COMMAND cannot be combined with --pid, --clients, --cgroup or --all");
		o->mode = SEL_COMMAND;
	}
	if (o->mode == SEL_NONE)
		dc_usage_error("say what to trace: -- COMMAND, --pid, --clients, --cgroup or --all");
	if (o->wakeup > o->ring_size)
		dc_usage_error("--wakeup must not exceed --ring-size");
	if (o->run_id != NULL) {
		const char *s;

		/* The run id ends up in file names downstream. */
		if (*o->run_id == '\0' || strlen(o->run_id) > DC_NAME_MAX ||
		    strcmp(o->run_id, ".") == 0 || strcmp(o->run_id, "..") == 0)
			dc_usage_error("bad run id '%s'", o->run_id);
		for (s = o->run_id; *s; s++)
			if (!(*s == '-' || *s == '_' || *s == '.' ||
			      (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
			      (*s >= 'A' && *s <= 'Z')))
				dc_usage_error("bad run id '%s': use letters, digits, '.', '-' and '_'",
					       o->run_id);
	}
}

/* ---- output ---- */

static bool out_ok(struct collector *c)
{
	return c->out_errno == 0;
}

static void out_frame(struct collector *c, uint16_t type, const void *data,
		      uint32_t len)
{
	if (!out_ok(c))
		return;
	if (dc_writer_frame(c->out, type, data, len) != 0)
		c->out_errno = errno;
}

static void flush_batch(struct collector *c)
{
	if (c->batch_used == 0)
		return;
	out_frame(c, DC_FRAME_EVENTS, c->batch, (uint32_t)c->batch_used);
	c->batch_used = 0;
}

static void flush_out(struct collector *c)
{
	flush_batch(c);
	if (out_ok(c) && dc_writer_flush(c->out) != 0)
		c->out_errno = errno;
}

static void emit_process(struct collector *c, pid_t pid)
{
	unsigned char buf[80000];
	size_t n = dc_proc_record(pid, 0, buf, sizeof(buf));

	if (n == 0) {
		debug("process %d is gone before it could be described", (int)pid);
		return;
	}
	flush_batch(c);
	out_frame(c, DC_FRAME_PROCESS, buf, (uint32_t)n);
	/* Its open files, so descriptors opened before tracing have names. */
	n = dc_fds_record(pid, buf, sizeof(buf));
	if (n > 0)
		out_frame(c, DC_FRAME_FDS, buf, (uint32_t)n);
}

/* ---- snapshots ---- */

static struct collector *walk_collector;
static unsigned long walk_count;

static int snapshot_one(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	unsigned char buf[4096 + 256];
	size_t n;

	(void)st; (void)type; (void)ftw;
	if (walk_count >= walk_collector->opt.snapshot_max)
		return 1;
	n = dc_file_record(path, buf, sizeof(buf));
	if (n > 0) {
		out_frame(walk_collector, DC_FRAME_FILE, buf, (uint32_t)n);
		walk_count++;
	}
	return 0;
}

static void snapshot_paths(struct collector *c)
{
	int i;

	walk_collector = c;
	for (i = 0; i < c->opt.nsnapshots; i++) {
		walk_count = 0;
		if (nftw(c->opt.snapshots[i], snapshot_one, 32, FTW_PHYS) < 0)
			syswarn("cannot snapshot %s", c->opt.snapshots[i]);
		else if (walk_count >= c->opt.snapshot_max)
			warn("snapshot of %s stopped at %lu files (--snapshot-max)",
			     c->opt.snapshots[i], walk_count);
	}
}

/* Describe every selected process again (--proc-interval). */
static void snapshot_processes(struct collector *c)
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

static void emit_probes(struct collector *c)
{
	static const char *const internal[DC_IPROBE_COUNT] = {
		[DC_IPROBE_FORK] = "fork", [DC_IPROBE_EXEC] = "exec",
		[DC_IPROBE_EXIT] = "exit", [DC_IPROBE_REGISTER] = "register",
	};
	size_t i;

	for (i = 0; i < c->spec->nprobes; i++) {
		const struct dc_probe *p = &c->spec->probes[i];

		emit_probe(c, (uint32_t)i, p->kind, p->layer, p->function,
			   p->target, p);
	}
	for (i = 0; i < DC_IPROBE_COUNT; i++)
		emit_probe(c, c->internal_base + (uint32_t)i, DC_PROBE_INTERNAL,
			   "datacrumbs", internal[i], NULL, NULL);
}

/* ---- ring buffer ---- */

static void append_record(struct collector *c, const struct dc_event *ev)
{
	if (c->batch_used + ev->size > BATCH_BYTES)
		flush_batch(c);
	memcpy(c->batch + c->batch_used, ev, ev->size);
	c->batch_used += ev->size;
	c->events++;
}

/* A validated client record (fastpath.c): merged with the kernel's,
 * or straight out when a process's last records are taken while the
 * merge runs (its exit or exec). */
static void fast_sink(void *ctx, const struct dc_event *ev)
{
	struct collector *c = ctx;

	if (c->merge.running)
		append_record(c, ev);
	else
		dc_merge_client(&c->merge, ev);
}

static void process_record(struct collector *c, const struct dc_event *ev);

static int on_record(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;
	const struct dc_event *ev = data;

	if (size < DC_EVENT_HDR_SIZE || ev->size < DC_EVENT_HDR_SIZE ||
	    ev->size > size) {
		warn("ignoring a malformed ring-buffer record (%zu bytes)", size);
		return 0;
	}
	/* With clients, the kernel's records wait to be merged with theirs. */
	if (c->fast != NULL) {
		dc_merge_kernel(&c->merge, ev);
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
	if (ev->type == DC_EV_EXIT_PROC || ev->type == DC_EV_EXEC)
		dc_fast_finish(c->fast, (pid_t)ev->pid, ev->ts);
	/* Every process of the command should load the client: a fork
	 * inherits it, an exec loads it again, unless something stops it. */
	if (ev->type == DC_EV_FORK)
		dc_fast_expect(c->fast, (pid_t)DC_EVENT_ARGS(ev)[0], true, ev->ts);
	else if (ev->type == DC_EV_EXEC)
		dc_fast_expect(c->fast, (pid_t)ev->pid, true, ev->ts);
	else if (ev->type == DC_EV_EXIT_PROC)
		dc_fast_exited(c->fast, (pid_t)ev->pid);
	append_record(c, ev);

	/* Describe processes as they appear, right after the record that
	 * introduced them and before anything they do. */
	switch (ev->type) {
	case DC_EV_FORK:
		emit_process(c, (pid_t)DC_EVENT_ARGS(ev)[0]);
		break;
	case DC_EV_EXEC:
		emit_process(c, (pid_t)ev->pid);
		break;
	case DC_EV_INSTANT:
		if (ev->probe_id == c->internal_base + DC_IPROBE_REGISTER)
			emit_process(c, (pid_t)ev->pid);
		break;
	case DC_EV_EXIT_PROC:
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

static uint64_t now_ns(void);

/* Client rings: their heads first (at `upto`), then the kernel's ring,
 * then the client records up to those heads, merged by end time with the
 * kernel's (merge.c).  final: nothing waits for a next drain. */
static void drain_ordered(struct collector *c, bool final)
{
	uint64_t upto = 0;
	int n;

	if (c->fast != NULL) {
		dc_fast_service(c->fast);
		upto = now_ns();
		dc_fast_snapshot(c->fast);
	}
	/* consume, not poll: records submitted without a wakeup are only
	 * found by looking. */
	n = ring_buffer__consume(c->rb);
	if (n < 0 && n != -EINTR)
		warn("reading the ring buffer failed: %s", strerror(-n));
	if (c->fast != NULL) {
		dc_fast_drain(c->fast);
		dc_merge_run(&c->merge, upto, final, merged_record, c);
	}
	flush_out(c);
}

static void drain(struct collector *c)
{
	drain_ordered(c, false);
}

/* ---- counters ---- */

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

/* Write DROPS frames (per CPU and per probe) and return the total. */
static unsigned long long report_drops(struct collector *c)
{
	int ncpu = libbpf_num_possible_cpus();
	int cfd = bpf_map__fd(c->skel->maps.counters);
	int pfd = bpf_map__fd(c->skel->maps.probe_drops);
	__u64 *per_cpu, total, depth, nostack, unpaired, unwound, unknown;
	uint64_t fast_total = 0;
	unsigned char *buf;
	struct dc_drops_rec rec;
	struct dc_drops_entry e;
	size_t pos, cap;
	__u32 i;
	int cpu;

	if (ncpu <= 0)
		ncpu = 1;
	per_cpu = xcalloc((size_t)ncpu, sizeof(__u64));
	cap = sizeof(rec) + sizeof(e) * (size_t)(ncpu > DC_MAX_PROBES ? ncpu : DC_MAX_PROBES);
	buf = xmalloc(cap);

	/* Lost records: ring buffer full, stack too deep, no stack slot.
	 * All records lost, per CPU, are read last: per_cpu keeps them. */
	sum_percpu(cfd, DC_CNT_DEPTH, ncpu, per_cpu, &depth);
	sum_percpu(cfd, DC_CNT_NOSTACK, ncpu, per_cpu, &nostack);
	sum_percpu(cfd, DC_CNT_UNPAIRED, ncpu, per_cpu, &unpaired);
	sum_percpu(cfd, DC_CNT_UNWOUND, ncpu, per_cpu, &unwound);
	sum_percpu(cfd, DC_CNT_BLOCK_UNKNOWN, ncpu, per_cpu, &unknown);
	sum_percpu(cfd, DC_CNT_DROPPED, ncpu, per_cpu, &total);

	/* Client records lost (fast path): per process, in the same total. */
	{
		size_t np = dc_fast_drops(c->fast, NULL, NULL, 0, &fast_total), k;
		uint32_t *pids = xcalloc(np + 1, sizeof(uint32_t));
		uint64_t *counts = xcalloc(np + 1, sizeof(uint64_t));

		dc_fast_drops(c->fast, pids, counts, np, &fast_total);
		if (c->fast != NULL) {
			unsigned char *pbuf = xmalloc(sizeof(rec) + sizeof(e) * (np + 1));

			memset(&rec, 0, sizeof(rec));
			rec.kind = DC_DROPS_PER_PROCESS;
			rec.total = total + fast_total;
			rec.count = (uint32_t)np;
			memcpy(pbuf, &rec, sizeof(rec));
			for (k = 0; k < np; k++) {
				memset(&e, 0, sizeof(e));
				e.key = pids[k];
				e.dropped = counts[k];
				memcpy(pbuf + sizeof(rec) + k * sizeof(e), &e, sizeof(e));
				warn("process %u: %llu user-level records lost (client ring full; raise --fast-ring)",
				     (unsigned)pids[k], (unsigned long long)counts[k]);
			}
			out_frame(c, DC_FRAME_DROPS, pbuf,
				  (uint32_t)(sizeof(rec) + sizeof(e) * np));
			free(pbuf);
		}
		free(pids);
		free(counts);
	}

	/* Per CPU. */
	memset(&rec, 0, sizeof(rec));
	rec.kind = DC_DROPS_PER_CPU;
	rec.total = total + fast_total;
	pos = sizeof(rec);
	for (cpu = 0; cpu < ncpu; cpu++) {
		if (per_cpu[cpu] == 0)
			continue;
		memset(&e, 0, sizeof(e));
		e.key = (uint32_t)cpu;
		e.dropped = per_cpu[cpu];
		memcpy(buf + pos, &e, sizeof(e));
		pos += sizeof(e);
		rec.count++;
	}
	memcpy(buf, &rec, sizeof(rec));
	out_frame(c, DC_FRAME_DROPS, buf, (uint32_t)pos);

	/* Per probe. */
	memset(&rec, 0, sizeof(rec));
	rec.kind = DC_DROPS_PER_PROBE;
	rec.total = total + fast_total;
	pos = sizeof(rec);
	for (i = 0; i < c->internal_base + DC_IPROBE_COUNT && i < DC_MAX_PROBES; i++) {
		__u64 t;

		sum_percpu(pfd, i, ncpu, per_cpu, &t);
		if (t == 0)
			continue;
		memset(&e, 0, sizeof(e));
		e.key = i;
		e.dropped = t;
		memcpy(buf + pos, &e, sizeof(e));
		pos += sizeof(e);
		rec.count++;
	}
	memcpy(buf, &rec, sizeof(rec));
	out_frame(c, DC_FRAME_DROPS, buf, (uint32_t)pos);

	if (total > depth + nostack)
		warn("%llu events dropped: the ring buffer was full; raise --ring-size",
		     (unsigned long long)(total - depth - nostack));
	if (depth > 0)
		warn("%llu calls dropped: nested deeper than %d on one thread",
		     (unsigned long long)depth, DC_MAX_DEPTH);
	if (nostack > 0)
		warn("%llu calls dropped: no memory for a thread's call stack",
		     (unsigned long long)nostack);
	if (unknown > 0)
		notice("%llu block requests completed that were never seen queued "
		       "(in flight when tracing began): kept with pid 0",
		       (unsigned long long)unknown);
	if (unpaired || unwound)
		debug("%llu exits without entry, %llu abandoned calls",
		      (unsigned long long)unpaired, (unsigned long long)unwound);
	free(per_cpu);
	free(buf);
	return total + fast_total;
}

/* ---- BPF setup ---- */

/* The user the signed summary names: the run's output belongs to them. */
static uid_t signer_uid(json_t *summary)
{
	json_t *uid = json_object_get(summary, "uid");

	if (!json_is_integer(uid) || json_integer_value(uid) < 0)
		return (uid_t)-1;
	return (uid_t)json_integer_value(uid);
}

static struct dc_spec *load_spec(const struct options *o, uid_t *owner)
{
	char err[512];
	int status = DC_EXIT_FAILURE;
	json_t *spec_json, *summary = NULL;
	struct dc_spec *spec;

	spec_json = dc_verify_file(o->spec_path, o->key_path, &summary, err,
				   sizeof(err), &status);
	if (spec_json == NULL)
		die_status(status, "%s", err);
	*owner = signer_uid(summary);
	json_decref(summary);
	spec = dc_spec_from_json(spec_json, err, sizeof(err));
	json_decref(spec_json);
	if (spec == NULL)
		die_status(DC_EXIT_BADINPUT, "%s: %s", o->spec_path, err);
	if (spec->nprobes + DC_IPROBE_COUNT > DC_MAX_PROBES)
		die_status(DC_EXIT_BADINPUT, "%s: %zu probes, more than the %d this collector holds",
			   o->spec_path, spec->nprobes, DC_MAX_PROBES - DC_IPROBE_COUNT);
	return spec;
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt,
		      va_list ap)
{
	if (level == LIBBPF_DEBUG && dc_verbose < 2)
		return 0;
	if (level == LIBBPF_INFO && dc_verbose < 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static const char *client_lib_path(const struct options *o)
{
	const char *env = getenv("DC_CLIENT_LIB");

	if (o->client_lib)
		return o->client_lib;
	if (env && *env)
		return env;
	return LIBDIR "/libdcclient.so";
}

static bool spec_has_kind(const struct dc_spec *spec, enum dc_probe_kind kind)
{
	size_t i;

	for (i = 0; i < spec->nprobes; i++)
		if (spec->probes[i].kind == kind)
			return true;
	return false;
}

static bool block_group_ready(void)
{
	return dc_tracepoint_exists("block:block_bio_queue") &&
	       dc_tracepoint_exists("block:block_rq_issue") &&
	       dc_tracepoint_exists("block:block_rq_complete");
}

/* The block programs work as one (collect.bpf.c): the three that every
 * kernel has, and those that follow splits and merges where this one
 * has them (without them, split requests would be emitted as unknown). */
static void need_block_group(struct collector *c)
{
	static const int follow[] = {
		DC_TP_BLOCK_SPLIT, DC_TP_BIO_BACKMERGE, DC_TP_BIO_FRONTMERGE
	};

	c->tp_needed[DC_TP_BIO_QUEUE] = c->tp_needed[DC_TP_BLOCK_ISSUE] =
		c->tp_needed[DC_TP_BLOCK_COMPLETE] = true;
	for (size_t i = 0; i < sizeof(follow) / sizeof(follow[0]); i++)
		if (dc_tracepoint_exists(dc_klayer_by_tp(follow[i])->name))
			c->tp_needed[follow[i]] = true;
}

/* Decide, once, what every probe needs and whether this kernel has it.
 * Decoded tracepoints take their argument plan from klayers.c. */
static void plan_probes(struct collector *c)
{
	unsigned kfuncs = 0;
	size_t i;

	c->skip = xcalloc(c->spec->nprobes + 1, sizeof(bool));
	c->kfuncs.method = dc_features_kfunc_method(&c->feat);
	c->kfuncs.kprobes = c->feat.kprobes && c->feat.cookie;
	if (spec_has_kind(c->spec, DC_PROBE_TRACEPOINT) && dc_tracefs_ready() != 0)
		syswarn("cannot mount tracefs on /sys/kernel/tracing");
	for (i = 0; i < c->spec->nprobes; i++) {
		struct dc_probe *p = &c->spec->probes[i];
		const struct dc_klayer *k;

		switch (p->kind) {
		case DC_PROBE_TRACEPOINT:
			if (!dc_tracepoint_exists(p->function)) {
				warn("tracepoint %s: not in this kernel, skipped",
				     p->function);
				c->skip[i] = true;
				break;
			}
			k = dc_klayer_find(p->function);
			if (k == NULL) {
				c->generic_tp = true;
				break;
			}
			if (k->block && !block_group_ready()) {
				warn("tracepoint %s: this kernel lacks block:block_bio_queue, "
				     "block_rq_issue or block_rq_complete; skipped",
				     p->function);
				c->skip[i] = true;
				break;
			}
			c->tp_needed[k->tp] = true;
			/* Readahead counts the pages it adds (collect.bpf.c). */
			if (k->tp == DC_TP_RA_SYNC || k->tp == DC_TP_RA_ASYNC)
				c->tp_needed[DC_TP_PC_ADD] = true;
			if (k->block)
				need_block_group(c);
			p->nargs = k->nargs;
			memcpy(p->arg_kinds, k->arg_kinds, sizeof(k->arg_kinds));
			p->ret_kind = k->ret_kind;
			break;
		case DC_PROBE_KFUNC:
			if (c->kfuncs.method == DC_KFUNC_NONE) {
				c->skip[i] = true;
				kfuncs++;
			}
			break;
		case DC_PROBE_USDT:
			c->usdt = true;
			break;
		default:
			break;
		}
	}
	/* One line for the fallback, not one per probe. */
	if (kfuncs > 0)
		warn("%u kernel-function probes skipped: kprobes unavailable and "
		     "fentry refused here; trace kernel layers with tracepoints "
		     "(dc-gen's kernel config)", kfuncs);
}

/* The mount point of the cgroup v2 hierarchy that holds path, into root. */
static bool cgroup2_root(const char *path, char *root, size_t len)
{
	FILE *m = setmntent("/proc/self/mounts", "r");
	struct mntent *e;
	size_t best = 0;

	if (m == NULL)
		return false;
	while ((e = getmntent(m)) != NULL) {
		size_t l = strlen(e->mnt_dir);

		if (strcmp(e->mnt_type, "cgroup2") != 0 || l <= best ||
		    strncmp(path, e->mnt_dir, l) != 0 ||
		    (path[l] != '/' && path[l] != '\0' && l > 1))
			continue;
		if (l >= len)
			continue;
		memcpy(root, e->mnt_dir, l + 1);
		best = l;
	}
	endmntent(m);
	return best > 0;
}

/* A cgroup v2 directory's id is its inode number; its level is its depth
 * below the root of the hierarchy. */
static void cgroup_target(const char *path, __u64 *id, __u32 *level)
{
	char real[PATH_MAX], root[PATH_MAX];
	struct stat st;
	const char *p;

	if (realpath(path, real) == NULL || stat(real, &st) != 0)
		sysdie("cgroup %s", path);
	if (!S_ISDIR(st.st_mode))
		die("cgroup %s: not a directory", path);
	if (!cgroup2_root(real, root, sizeof(root)))
		die("cgroup %s: not in a cgroup v2 hierarchy (mount -t cgroup2)",
		    path);
	*id = (__u64)st.st_ino;
	*level = 0;
	for (p = real + strlen(root); *p; p++)
		if (*p == '/' && p[1] != '\0')
			(*level)++;
}

static bool syscalls_loaded(struct collect_bpf *skel)
{
	return bpf_program__autoload(skel->progs.dc_sys_exit);
}

static void open_and_load(struct collector *c)
{
	struct collect_bpf *skel;
	bool syscalls = spec_has_kind(c->spec, DC_PROBE_SYSCALL);
	int err;

	skel = collect_bpf__open();
	if (skel == NULL)
		sysdie("cannot open the BPF object");
	skel->rodata->self_tgid = (__u32)getpid();
	skel->rodata->trace_all = c->opt.mode == SEL_ALL;
	skel->rodata->internal_base = c->internal_base;
	skel->rodata->profile_mode = c->spec->mode == DC_MODE_PROFILE;
	skel->rodata->follow_ra = c->tp_needed[DC_TP_RA_SYNC] ||
				  c->tp_needed[DC_TP_RA_ASYNC];
	skel->rodata->fast_path = c->want_fast;
	skel->rodata->wakeup_bytes = c->opt.wakeup ? c->opt.wakeup
						   : c->opt.ring_size / 16;
	if (c->opt.mode == SEL_CGROUP) {
		__u64 id;
		__u32 level;

		cgroup_target(c->opt.cgroup, &id, &level);
		skel->rodata->cgroup_id = id;
		skel->rodata->cgroup_level = level;
	}
	err = bpf_map__set_max_entries(skel->maps.events,
				       (__u32)c->opt.ring_size);
	if (err)
		die("cannot size the ring buffer: %s", strerror(-err));
	/* Programs nobody needs are not loaded at all. */
	if (!syscalls) {
		bpf_program__set_autoload(skel->progs.dc_sys_enter, false);
		bpf_program__set_autoload(skel->progs.dc_sys_exit, false);
	}
	/* One of the two entry programs: the one reading the registers in
	 * place where the kernel has tp_btf. */
	if (!syscalls || !c->feat.tp_btf)
		bpf_program__set_autoload(skel->progs.dc_sys_enter_btf, false);
	if (c->feat.tp_btf)
		bpf_program__set_autoload(skel->progs.dc_sys_enter, false);
	if (c->opt.mode != SEL_CLIENTS)
		bpf_program__set_autoload(skel->progs.dc_client_register, false);
	for (int tp = 0; tp < DC_TP_COUNT; tp++)
		if (!c->tp_needed[tp])
			bpf_program__set_autoload(dc_klayer_prog(skel, tp), false);
	if (!c->generic_tp)
		bpf_program__set_autoload(skel->progs.dc_tp_generic, false);
	if (!c->usdt)
		bpf_program__set_autoload(skel->progs.dc_usdt, false);
	if (c->feat.umulti) {
		bpf_program__set_expected_attach_type(skel->progs.dc_umulti_entry,
						      DC_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.dc_umulti_exit,
						      DC_BPF_TRACE_UPROBE_MULTI);
	} else {
		bpf_program__set_autoload(skel->progs.dc_umulti_entry, false);
		bpf_program__set_autoload(skel->progs.dc_umulti_exit, false);
	}
	dc_kfuncs_prepare(&c->kfuncs, skel, c->spec, c->skip);
	err = collect_bpf__load(skel);
	if (err)
		die("cannot load the BPF programs: %s (run with -vv for the "
		    "verifier's log)", strerror(-err));
	c->skel = skel;
}

/* Which of the BPF programs' read-through steps an argument kind needs. */
static __u8 derive_of(__u8 kind)
{
	switch (kind) {
	case DC_ARG_HANDLE_IN:
	case DC_ARG_FILE:
		return DC_DERIVE_ENTRY;
	case DC_ARG_IOV:
	case DC_ARG_STRLEN:
	case DC_ARG_STROUT:
	case DC_ARG_DATATYPE:
	case DC_ARG_MPISTATUS:
	case DC_ARG_HANDLE_OUT:
		return DC_DERIVE_EXIT;
	}
	return 0;
}

static void fill_tables(struct collector *c)
{
	int cfg_fd = bpf_map__fd(c->skel->maps.probe_cfg);
	int sys_fd = bpf_map__fd(c->skel->maps.syscall_probe);
	size_t i;
	int a;

	for (i = 0; i < c->spec->nprobes; i++) {
		const struct dc_probe *p = &c->spec->probes[i];
		struct dc_probe_cfg cfg;
		__u32 key = (__u32)i;

		memset(&cfg, 0, sizeof(cfg));
		cfg.nargs = (__u8)p->nargs;
		cfg.ret_kind = p->ret_kind;
		cfg.str_arg = cfg.str_arg2 = DC_NO_STR_ARG;
		for (a = 0; a < p->nargs; a++) {
			cfg.arg_kinds[a] = p->arg_kinds[a];
			cfg.derive |= derive_of(p->arg_kinds[a]);
			if (p->arg_kinds[a] != DC_ARG_PATH &&
			    p->arg_kinds[a] != DC_ARG_STR)
				continue;
			if (cfg.str_arg == DC_NO_STR_ARG)
				cfg.str_arg = (__u8)a;
			else if (cfg.str_arg2 == DC_NO_STR_ARG)
				cfg.str_arg2 = (__u8)a;
		}
		/* A FILE *'s descriptor travels in the last slot. */
		if (cfg.derive & DC_DERIVE_ENTRY)
			cfg.nargs = DC_MAX_ARGS;
		if (p->kind == DC_PROBE_TRACEPOINT && !c->skip[i]) {
			const struct dc_klayer *k = dc_klayer_find(p->function);
			__u32 tp, val = key + 1;

			if (k != NULL) {
				tp = (__u32)k->tp;
				if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.tp_probe),
							&tp, &val, BPF_ANY) != 0)
					sysdie("cannot fill the tracepoint table");
			}
		}
		if (bpf_map_update_elem(cfg_fd, &key, &cfg, BPF_ANY) != 0)
			sysdie("cannot fill the probe table");
		if (p->kind == DC_PROBE_SYSCALL) {
			__u32 nr = (__u32)p->nr, val = key + 1;

			if (p->nr >= DC_MAX_SYSCALLS) {
				warn("syscall %s: number %lld out of range, skipped",
				     p->function, (long long)p->nr);
				continue;
			}
			if (bpf_map_update_elem(sys_fd, &nr, &val, BPF_ANY) != 0)
				sysdie("cannot fill the syscall table");
		}
	}
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

static void drop_links(struct collector *c)
{
	while (c->nlinks > 0)
		bpf_link__destroy(c->links[--c->nlinks]);
	free(c->links);
	c->links = NULL;
}

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
		int err = errno;
		/* 524 is the kernel's ENOTSUPP: an instruction uprobes cannot
		 * replace (some atomics), which strerror does not know. */
		const char *why = err == 524 ? "the kernel cannot probe its first instruction"
					     : strerror(err);

		c->failed++;
		if (p->optional)
			debug("%s:%s not attached: %s", p->target, p->function, why);
		else
			warn("cannot attach %s in %s: %s", p->function, p->target,
			     why);
		return;
	}
	opts.retprobe = true;
	exit_link = bpf_program__attach_uprobe_opts(c->skel->progs.dc_uprobe_exit,
						    -1, p->target, p->offset, &opts);
	if (exit_link == NULL) {
		warn("cannot attach the return of %s in %s: %s", p->function,
		     p->target, strerror(errno));
		bpf_link__destroy(entry);
		c->failed++;
		return;
	}
	keep(c, entry);
	keep(c, exit_link);
	c->attached++;
}

static const struct dc_spec *sort_spec;

static int by_target(const void *a, const void *b)
{
	const struct dc_probe *pa = &sort_spec->probes[*(const size_t *)a];
	const struct dc_probe *pb = &sort_spec->probes[*(const size_t *)b];
	int r = strcmp(pa->target, pb->target);

	if (r != 0)
		return r;
	return pa->offset < pb->offset ? -1 : pa->offset > pb->offset;
}

/* All uprobes of one library with two multi-uprobe links (entry and
 * return).  The kernel refuses a whole link for one bad offset, so a
 * refused group is split in halves until the bad probes are alone, and
 * those are tried one by one (which names them): a few bad functions cost
 * a few links, not the whole library's speed. */
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
		attach_uprobe(c, idx[0]);
		return;
	}
	attach_uprobe_group(c, idx, n / 2);
	attach_uprobe_group(c, idx + n / 2, n - n / 2);
}

static void attach_uprobes(struct collector *c)
{
	size_t *idx = xcalloc(c->spec->nprobes + 1, sizeof(size_t));
	size_t n = 0, i, start;

	for (i = 0; i < c->spec->nprobes; i++) {
		if (c->spec->probes[i].kind != DC_PROBE_UPROBE || c->skip[i])
			continue;
		/* Recorded by the clients themselves: no trap for them. */
		if (dc_fast_covers(c->fast, i)) {
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
	sort_spec = c->spec;
	qsort(idx, n, sizeof(size_t), by_target);
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
	opts.bpf_cookie = (__u64)i;
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

static void attach_all(struct collector *c)
{
	struct collect_bpf *skel = c->skel;
	struct timespec t0, t1;
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &t0);

	/* Process tracking first, so no fork escapes while probes attach. */
	if (!keep(c, bpf_program__attach(skel->progs.dc_fork)) ||
	    !keep(c, bpf_program__attach(skel->progs.dc_exec)) ||
	    !keep(c, bpf_program__attach(skel->progs.dc_exit)))
		sysdie("cannot attach the process-tracking tracepoints");
	if (syscalls_loaded(skel)) {
		struct bpf_program *enter = c->feat.tp_btf ?
			skel->progs.dc_sys_enter_btf : skel->progs.dc_sys_enter;

		if (!keep(c, bpf_program__attach(enter)) ||
		    !keep(c, bpf_program__attach(skel->progs.dc_sys_exit)))
			sysdie("cannot attach the syscall tracepoints");
	}
	if (c->opt.mode == SEL_CLIENTS) {
		LIBBPF_OPTS(bpf_uprobe_opts, opts);
		const char *lib = client_lib_path(&c->opt);

		opts.func_name = "dc_client_register";
		if (access(lib, R_OK) != 0)
			sysdie("client library %s", lib);
		if (!keep(c, bpf_program__attach_uprobe_opts(
				skel->progs.dc_client_register, -1, lib, 0, &opts)))
			sysdie("cannot watch dc_client_register in %s", lib);
	}
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
	for (int tp = 0; tp < DC_TP_COUNT; tp++) {
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

/* ---- selection ---- */

static void select_pid(struct collector *c, pid_t pid)
{
	int fd = bpf_map__fd(c->skel->maps.selected);
	__u32 key = (__u32)pid, val = 0;

	if (bpf_map_update_elem(fd, &key, &val, BPF_ANY) != 0)
		sysdie("cannot select process %d", (int)pid);
	/* Answers the programs gave before (this process: not selected)
	 * no longer hold (collect.bpf.c, current_selected). */
	__atomic_fetch_add(&c->skel->bss->sel_gen, 1, __ATOMIC_SEQ_CST);
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
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
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

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* Profile mode: one COUNTERS frame for the interval that just ended. */
static void take_counters(struct collector *c)
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

static double now_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Wait for the kernel's ring or a client; with client rings mapped, no
 * longer than FAST_TICK_MS: clients wake nobody when they write. */
static int wait_events(struct collector *c)
{
	struct epoll_event ev[4];
	int timeout = c->opt.poll_ms, n;

	if (c->fast == NULL)
		return ring_buffer__poll(c->rb, c->opt.poll_ms);
	if (dc_fast_active(c->fast) && timeout > FAST_TICK_MS)
		timeout = FAST_TICK_MS;
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

static int check_kernel(void)
{
	struct dc_features f;
	struct dc_kfuncs kf = { .method = DC_KFUNC_NONE };
	const char *missing;
	struct collect_bpf *skel;
	struct bpf_link *fork_link = NULL, *sys_link = NULL;

	dc_features_detect(&f);
	printf("%s\n", dc_features_line(&f));
	missing = dc_features_missing(&f);
	if (missing != NULL) {
		printf("cannot collect: %s\n", missing);
		xfclose_stdout();
		return DC_EXIT_FAILURE;
	}
	/* Really load and attach, as a run would. */
	skel = collect_bpf__open();
	if (skel == NULL) {
		printf("cannot collect: cannot open the BPF object: %s\n", strerror(errno));
		xfclose_stdout();
		return DC_EXIT_FAILURE;
	}
	bpf_program__set_autoload(skel->progs.dc_client_register, false);
	/* The system call entry program the run would use. */
	bpf_program__set_autoload(f.tp_btf ? skel->progs.dc_sys_enter
					   : skel->progs.dc_sys_enter_btf, false);
	/* Decoded tracepoints this kernel lacks would fail CO-RE: skip. */
	dc_tracefs_ready();
	for (int tp = 0; tp < DC_TP_COUNT; tp++)
		if (!dc_tracepoint_exists(dc_klayer_by_tp(tp)->name))
			bpf_program__set_autoload(dc_klayer_prog(skel, tp), false);
	/* The kernel-function programs the run would use, on vfs_read. */
	kf.method = dc_features_kfunc_method(&f);
	dc_kfuncs_aim(&kf, skel, "vfs_read");
	bpf_map__set_max_entries(skel->maps.events, 1 << 16);
	if (collect_bpf__load(skel) != 0 ||
	    (fork_link = bpf_program__attach(skel->progs.dc_fork)) == NULL ||
	    (sys_link = bpf_program__attach(f.tp_btf ? skel->progs.dc_sys_enter_btf
						      : skel->progs.dc_sys_enter)) == NULL) {
		printf("cannot collect: loading or attaching BPF programs failed: %s\n",
		       strerror(errno));
		bpf_link__destroy(fork_link);
		collect_bpf__destroy(skel);
		xfclose_stdout();
		return DC_EXIT_FAILURE;
	}
	bpf_link__destroy(sys_link);
	bpf_link__destroy(fork_link);
	collect_bpf__destroy(skel);
	printf("BPF programs load and attach: ok\n");
	xfclose_stdout();
	return DC_EXIT_OK;
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

/* The fast path: after loading (it needs the kernel's map), before
 * attaching (covered functions get no uprobe) and before the command. */
static void start_fast_path(struct collector *c)
{
	struct dc_fast_opts o;
	char name[108];
	struct epoll_event ev = { .events = EPOLLIN };

	if (!c->want_fast)
		return;
	if (c->opt.mode == SEL_COMMAND &&
	    realpath(client_lib_path(&c->opt), c->client_real) == NULL)
		sysdie("cannot preload the client library %s (--client-lib, "
		       "or --no-preload)", client_lib_path(&c->opt));
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
	o.fast_map_fd = bpf_map__fd(c->skel->maps.fast_procs);
	o.sink = fast_sink;
	o.ctx = c;
	c->fast = dc_fast_open(&o, c->spec, c->skip);
	if (c->fast == NULL)
		return;
	/* Nothing for the client to record: no preload, no socket. */
	if (dc_fast_ncovered(c->fast) == 0) {
		dc_fast_close(c->fast);
		c->fast = NULL;
		return;
	}
	/* A uprobe outside libc (HDF5, MPI, the application's own) opens a
	 * kernel frame the client cannot see, so the client's calls under
	 * it would not nest: such specs stay on the uprobe path. */
	for (size_t i = 0; i < c->spec->nprobes; i++) {
		const struct dc_probe *p = &c->spec->probes[i];
		const char *base = p->target ? strrchr(p->target, '/') : NULL;

		base = base ? base + 1 : p->target;
		if (p->kind != DC_PROBE_UPROBE || c->skip[i] ||
		    dc_fast_covers(c->fast, i) ||
		    (base != NULL && strncmp(base, "libc.so", 7) == 0))
			continue;
		notice("fast path off: %s in %s is a uprobe outside libc, and "
		       "the client's calls under it would not nest", p->function,
		       p->target ? p->target : "?");
		dc_fast_close(c->fast);
		c->fast = NULL;
		return;
	}
	c->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epoll_fd < 0 ||
	    epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(c->rb), &ev) != 0 ||
	    epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, dc_fast_fd(c->fast), &ev) != 0)
		sysdie("cannot watch the ring buffer and the fast path");
	notice("fast path: %zu functions recorded by the client library",
	       dc_fast_ncovered(c->fast));
}

int main(int argc, char **argv)
{
	struct collector c;
	struct sigaction sa;
	const char *missing;
	unsigned long long dropped;
	struct dc_end_rec end;
	struct timespec now;
	int out_fd = STDOUT_FILENO;
	uid_t owner;
	int status;

	dc_messages_init(argv[0]);
	memset(&c, 0, sizeof(c));
	atexit(remove_unstarted_output);
	parse_options(argc, argv, &c.opt);
	libbpf_set_print(libbpf_log);
	if (c.opt.check_kernel)
		return check_kernel();

	/* Not allowed to use BPF at all (not root): say that first, not
	 * whatever reading the root-only signing key would say. */
	dc_features_detect(&c.feat);
	if (c.feat.denied)
		die("cannot collect: %s", dc_features_missing(&c.feat));
	c.spec = load_spec(&c.opt, &owner);
	c.internal_base = (unsigned)c.spec->nprobes;

	if (c.opt.single_attach)
		c.feat.umulti = false;
	if (c.opt.kfunc_kprobes)
		c.feat.fentry_unused = true;
	notice("%s", dc_features_line(&c.feat));
	missing = dc_features_missing(&c.feat);
	if (missing != NULL)
		die("cannot collect: %s", missing);
	plan_probes(&c);
	c.want_fast = c.spec->mode != DC_MODE_PROFILE &&
		      ((c.opt.mode == SEL_COMMAND && !c.opt.no_preload) ||
		       (c.opt.mode == SEL_CLIENTS && c.opt.fast));

	if (c.opt.output == NULL && isatty(STDOUT_FILENO))
		dc_usage_error("standard output is a terminal: pipe it into "
			       "dc-aggregate or dc-write, or use --output");

	open_and_load(&c);
	fill_tables(&c);
	c.rb = ring_buffer__new(bpf_map__fd(c.skel->maps.events), on_record,
				&c, NULL);
	if (c.rb == NULL)
		sysdie("cannot open the ring buffer");
	c.batch = xmalloc(BATCH_BYTES);
	if (c.spec->mode == DC_MODE_PROFILE) {
		c.profiler = dc_profiler_new(bpf_map__fd(c.skel->maps.profile));
		notice("profile mode: counters every %u ms instead of events",
		       c.spec->interval_ms);
	}

	/* The output only now that loading worked, so a spec or kernel
	 * that fails leaves no empty file; until the command runs, any
	 * failure removes it again (remove_unstarted_output). */
	if (c.opt.output != NULL) {
		out_fd = open(c.opt.output, O_WRONLY | O_CREAT | O_EXCL |
			      O_NOFOLLOW | O_CLOEXEC, 0600);
		if (out_fd < 0)
			sysdie("cannot create %s", c.opt.output);
		unstarted_output = c.opt.output;
		/* The stream is the trace of the user who had the spec signed:
		 * theirs, and nobody else's (mode 0600). */
		if (owner != (uid_t)-1 && owner != geteuid()) {
			struct passwd *pw = getpwuid(owner);

			if (fchown(out_fd, owner, pw ? pw->pw_gid : (gid_t)-1) != 0)
				sysdie("cannot give %s to uid %u", c.opt.output,
				       (unsigned)owner);
		}
	}

	dc_stream_info_init(&c.info, c.opt.run_id);
	c.out = dc_writer_open(out_fd, &c.info);
	if (c.out == NULL)
		sysdie("cannot write the stream header");
	emit_probes(&c);
	{
		unsigned char *buf = xmalloc(1 << 20);
		size_t n = dc_sysinfo_record(buf, 1 << 20);

		if (n > 0)
			out_frame(&c, DC_FRAME_SYSINFO, buf, (uint32_t)n);
		free(buf);
	}

	/* Signals: stop cleanly, drain, end the stream.  A reader that goes
	 * away shows up as EPIPE on write, not as a fatal SIGPIPE. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	snapshot_paths(&c);
	start_fast_path(&c);
	attach_all(&c);
	switch (c.opt.mode) {
	case SEL_PIDS:
		select_pids(&c);
		break;
	case SEL_COMMAND:
		break; /* started after the ready file */
	default:
		break;
	}
	if (c.opt.ready_file)
		write_ready_file(c.opt.ready_file);
	c.interval_start = now_ns();
	if (c.opt.mode == SEL_COMMAND)
		start_command(&c);
	flush_out(&c);
	unstarted_output = NULL; /* tracing: the file is the user's now */

	run(&c);

	if (!out_ok(&c)) {
		errno = c.out_errno;
		if (c.out_errno == EPIPE)
			syswarn("the stream's reader went away; stopping");
		else
			syswarn("cannot write the stream to %s; stopping",
				c.opt.output ? c.opt.output : "standard output");
		if (c.child > 0 && !c.child_done) {
			/* The command is the user's job: let it finish. */
			waitpid(c.child, &c.child_status, 0);
			c.child_done = true;
		}
		dc_writer_close(c.out); /* frees it; the write fails */
		ring_buffer__free(c.rb);
		drop_links(&c);
		collect_bpf__destroy(c.skel);
		dc_spec_free(c.spec);
		dc_profiler_free(c.profiler);
		free(c.skip);
		free(c.batch);
		return DC_EXIT_FAILURE;
	}

	dropped = report_drops(&c);
	memset(&end, 0, sizeof(end));
	end.events = c.events;
	end.dropped = dropped;
	clock_gettime(CLOCK_MONOTONIC, &now);
	end.end_mono_ns = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
	if (stop_signal)
		end.flags |= DC_END_INTERRUPTED;
	out_frame(&c, DC_FRAME_END, &end, sizeof(end));
	if (out_ok(&c) && dc_writer_close(c.out) != 0)
		c.out_errno = errno;
	if (!out_ok(&c)) {
		errno = c.out_errno;
		syswarn("cannot write the end of the stream");
		status = DC_EXIT_FAILURE;
	} else {
		notice("%llu events, %llu dropped", c.events, dropped);
		status = DC_EXIT_OK;
	}
	/* Close the stream before detaching: detaching uprobes one by one
	 * can take seconds, and the reader need not wait for it. */
	if (close(out_fd) != 0 && status == DC_EXIT_OK) {
		syswarn("cannot close %s", c.opt.output ? c.opt.output
						      : "standard output");
		status = DC_EXIT_FAILURE;
	}
	dc_fast_close(c.fast);
	dc_merge_free(&c.merge);
	ring_buffer__free(c.rb);
	drop_links(&c);
	collect_bpf__destroy(c.skel);
	dc_spec_free(c.spec);
	dc_profiler_free(c.profiler);
	free(c.skip);
	free(c.batch);
	if (status == DC_EXIT_OK && c.opt.mode == SEL_COMMAND)
		return command_exit_status(&c);
	return status;
}

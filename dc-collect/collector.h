/*
 * collector.h - the user-space half of dc-collect: the options, the state
 * of one collection run (struct collector), and what its files call of
 * each other.  collect.h is the part shared with the BPF programs.
 *
 *   collect.c  main, process selection, the command, the run loop,
 *              who records each process's wrapped calls
 *   fallback.c uprobes for the processes that will not load the client
 *   options.c  the command line
 *   load.c     spec verification, the plan, open/load, probe tables,
 *              --check-kernel
 *   attach.c   attaching every program and probe, the links
 *   output.c   the stream: frames, process and file descriptions,
 *              ring-buffer records, drop counts
 */
#ifndef DC_COLLECTOR_H
#define DC_COLLECTOR_H

#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "event.h"
#include "collect.h"
#include "collect.skel.h"
#include "fallback.h"
#include "fastpath.h"
#include "kfeatures.h"
#include "kfuncs.h"
#include "merge.h"
#include "proc.h"
#include "nest.h"
#include "pidprobe.h"
#include "profile.h"
#include "spec.h"
#include "stream.h"

#define BATCH_BYTES (256u << 10)  /* EVENTS frame payload limit */
#define MAX_PIDS 4096
#define MAX_SNAPSHOTS 64
#define FAST_TICK_MS 5          /* drain client rings at least this often */

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
	bool process_uprobes;    /* --process-uprobes: pidprobe.h */
	bool fast;               /* --fast: the fast path for --clients */
	unsigned long long fast_ring; /* --fast-ring */
	unsigned fast_slots;     /* --fast-slots */
	const char *fast_socket; /* --fast-socket */
	unsigned fast_full_wait_ms; /* --fast-full: a full client ring
	                            waits this long; 0: it drops */
};

/* The signals the collector handles or ignores, and what they were when
 * it started: the command is given them back. */
enum { SIG_KEPT_INT, SIG_KEPT_TERM, SIG_KEPT_PIPE, SIG_KEPT_N };

/* State of one collection run. */
struct collector {
	struct options opt;
	struct sigaction sig_start[SIG_KEPT_N];
	struct dc_spec *spec;
	struct collect_bpf *skel;
	struct ring_buffer *rb;
	struct dc_writer *out;
	struct dc_stream_info info;
	unsigned char *batch;  /* the EVENTS payload being filled, in c->out's
	                          buffer (output.c), or NULL */
	size_t batch_used;
	unsigned long long events;
	unsigned int internal_base;
	pid_t child;
	int child_status;
	bool child_done;
	bool tidying;            /* fallback events left to close */
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
	struct dc_descs descs;        /* the last description of each process */
	struct dc_pidprobes *pidprobes; /* uprobes in the traced processes only */
	struct dc_nest nest;          /* client records under uprobe calls */
	struct dc_fallback *fallback; /* uprobes for processes without the
	                                 client library */
	bool batching;                /* kernel-layer records in per-CPU
	                                 batches (common.bpf.h), merged */
	bool sys_batch;               /* system calls' too (dc_sys_exit_batch) */
	uint64_t batch_horizon;       /* every record batched before this
	                                 time is in the ring (output.c) */
	bool flush_failed;            /* said once: a CPU's batch could not
	                                 be sent */
	unsigned flush_every;         /* DC_TEST_FLUSH_EVERY: only every Nth
	                                 drain makes the CPUs send (output.c) */
	unsigned long long flush_drains; /* drains counted for it */
	uint64_t flushed_at;          /* when the CPUs last sent their batches */
	unsigned long long drains, flushes; /* drains, and those that sent */
};

static inline uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* collect.c */
void follow_clients(struct collector *c, const struct dc_event *ev);

/* options.c */
void parse_options(int argc, char **argv, struct options *o);
const char *client_lib_path(const struct options *o);

/* load.c */
struct dc_spec *load_spec(const struct options *o, uid_t *owner);
bool spec_has_kind(const struct dc_spec *spec, enum dc_probe_kind kind);
int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap);
void plan_probes(struct collector *c);
/* A test hook: environment variable name, if set, a number from lo to
 * hi in *n (true), or a one-line error and exit 1; false if not set. */
bool test_hook(const char *name, long long lo, long long hi, long long *n);
void open_and_load(struct collector *c);
void fill_tables(struct collector *c);
int check_kernel(void);

/* attach.c */
void attach_all(struct collector *c);
void drop_links(struct collector *c);

/* output.c */
bool out_ok(struct collector *c);
void out_frame(struct collector *c, uint16_t type, const void *data,
	       uint32_t len);
void flush_batch(struct collector *c);
void flush_out(struct collector *c);
void emit_process(struct collector *c, pid_t pid);
void emit_probes(struct collector *c);
void emit_sysinfo(struct collector *c);
void snapshot_paths(struct collector *c);
void snapshot_processes(struct collector *c);
struct dc_event *fast_room(void *ctx, size_t size);
void fast_sink(void *ctx, struct dc_event *ev);
int on_record(void *ctx, void *data, size_t size);
void batch_test_hooks(struct collector *c);
void drain_ordered(struct collector *c, bool final);
void drain(struct collector *c);
bool process_waits(const struct collector *c);
void take_counters(struct collector *c);
unsigned long long report_drops(struct collector *c);

#endif /* DC_COLLECTOR_H */

/*
 * options.c - dc-collect's command line (getopt_long, as remctl): every
 * option checked here, with a one-line usage error (exit 2) for anything
 * out of range; dc-collect(8) is the manual.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "fastabi.h"
#include "messages.h"
#include "numbers.h"

#define DEFAULT_RING (64u << 20)
#define DEFAULT_POLL_MS 100
#define DEFAULT_SNAPSHOT_MAX 100000
/* 1 MiB: a ring that stays in a core's cache costs a record less than
 * one streamed through memory (bench/RESULTS.md), and a full ring waits
 * for us instead of losing records (--fast-full). */
#define DEFAULT_FAST_RING (1u << 20)
#define DEFAULT_FAST_SLOTS 64

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
	"is preloaded into COMMAND, which then records the posix, stdio,\n"
	"mpiio and hdf5 calls the spec names itself (the fast path; MPI and\n"
	"HDF5 when in a shared library), with no uprobe on those functions;\n"
	"other functions go through uprobes.  Uprobes are set in the\n"
	"library's file: while they are attached every process on the host\n"
	"that calls a probed function pays the trap, traced or not\n"
	"(with --clients, --cgroup and --all they are always set that way).\n"
	"A process of COMMAND that will not load the library (no LD_PRELOAD\n"
	"naming it, AT_SECURE) gets those functions through uprobes of its\n"
	"own from its exec on; its calls before they are in place (12 to 60\n"
	"ms here) are missed, and a warning names it with that time.  A\n"
	"static executable gets them on its own copies, found among its\n"
	"symbols; one without them is named as not traced.\n"
	"      --no-preload    -- COMMAND: no fast path, every call by uprobe\n"
	"      --process-uprobes  -- COMMAND, --pid: uprobes in the traced\n"
	"                      processes only; loses calls while other tools\n"
	"                      attach uprobes (BUGS)\n"
	"      --fast          --clients: offer the fast path to the clients\n"
	"      --fast-ring N   client ring bytes per thread (default 1M)\n"
	"      --fast-slots N  client threads with a ring per process (64)\n"
	"      --fast-full P   a client thread whose ring is full: wait[=MS]\n"
	"                      for us while we read, up to MS (1 to 60000,\n"
	"                      default 1000) without progress, then drop;\n"
	"                      or drop at once (default wait=1000)\n"
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
	OPT_FAST_SOCKET, OPT_PROCESS_UPROBES, OPT_FAST_FULL
};

/* A number of the option opt from lo to hi (suffixes K, M, G...): never
 * wrapped or truncated to fit (lib/numbers.h). */
static unsigned long long parse_range(const char *s, const char *opt,
				      unsigned long long lo,
				      unsigned long long hi)
{
	return dc_size_option(s, opt, lo, hi);
}

/* The same, and a power of two. */
static unsigned long long parse_pow2(const char *s, const char *opt,
				     unsigned long long lo,
				     unsigned long long hi)
{
	uint64_t v;

	if (dc_parse_size(s, lo, hi, &v) != DC_SIZE_OK || (v & (v - 1)) != 0)
		dc_usage_error("%s takes a power of two from %llu to %llu, "
			       "not '%s'", opt, lo, hi, s);
	return v;
}

/* --fast-full wait[=MS]|drop: how long a client thread whose ring is
 * full waits for us to read on, in ms; 0: it drops at once.  MS is
 * read as every number here is (lib/numbers.h), as --poll-ms is. */
static unsigned parse_fast_full(const char *arg)
{
	uint64_t ms;

	if (strcmp(arg, "drop") == 0)
		return 0;
	if (strcmp(arg, "wait") == 0)
		return DC_FAST_FULL_WAIT_MS;
	if (strncmp(arg, "wait=", 5) != 0 ||
	    dc_parse_size(arg + 5, 1, DC_FAST_FULL_WAIT_MAX_MS, &ms) != DC_SIZE_OK)
		dc_usage_error("--fast-full takes wait, wait=MS (MS from 1 to %d) "
			       "or drop, not '%s'", DC_FAST_FULL_WAIT_MAX_MS, arg);
	return (unsigned)ms;
}

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
	{ "process-uprobes", no_argument, NULL, OPT_PROCESS_UPROBES },
	{ "fast", no_argument, NULL, OPT_FAST },
	{ "fast-ring", required_argument, NULL, OPT_FAST_RING },
	{ "fast-slots", required_argument, NULL, OPT_FAST_SLOTS },
	{ "fast-socket", required_argument, NULL, OPT_FAST_SOCKET },
	{ "fast-full", required_argument, NULL, OPT_FAST_FULL },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void add_pid(struct options *o, const char *arg)
{
	char *end;
	long pid = strtol(arg, &end, 10);

	if (*end != '\0' || pid <= 0 || pid > INT_MAX)
		dc_usage_error("bad process id '%s'", arg);
	if (o->npids == MAX_PIDS)
		dc_usage_error("too many --pid options (at most %d)", MAX_PIDS);
	o->pids[o->npids++] = (pid_t)pid;
}

/* The options that size buffers and time the loop. */
static void parse_sizes(int c, const char *arg, struct options *o)
{
	switch (c) {
	case 'b':
		/* The kernel takes up to 2^31 (a u32, a power of 2). */
		o->ring_size = parse_pow2(arg, "--ring-size", 4096, 1ULL << 31);
		break;
	case 'W':
		o->wakeup = parse_range(arg, "--wakeup", 1, 1ULL << 31);
		break;
	case 'P':
		o->poll_ms = (int)parse_range(arg, "--poll-ms", 1, 60000);
		break;
	case 'M':
		o->snapshot_max = (unsigned long)parse_range(
			arg, "--snapshot-max", 1, 100000000);
		break;
	case 'I':
		o->proc_interval = (unsigned)parse_range(
			arg, "--proc-interval", 0, 86400);
		break;
	case OPT_FAST_RING:
		o->fast_ring = parse_pow2(arg, "--fast-ring", 4096, 1ULL << 30);
		break;
	case OPT_FAST_SLOTS:
		o->fast_slots = (unsigned)parse_range(arg, "--fast-slots", 1, 1024);
		break;
	}
}

static void parse_option(int c, const char *arg, struct options *o)
{
	switch (c) {
	case 'p': add_pid(o, arg); break;
	case 'c': o->mode = SEL_CLIENTS; break;
	case 'a': o->mode = SEL_ALL; break;
	case 'g':
		o->mode = SEL_CGROUP;
		o->cgroup = arg;
		break;
	case 'k': o->key_path = arg; break;
	case 'o': o->output = arg; break;
	case 'r': o->run_id = arg; break;
	case 'R': o->ready_file = arg; break;
	case 'L': o->client_lib = arg; break;
	case 'b': case 'W': case 'P': case 'M': case 'I':
	case OPT_FAST_RING: case OPT_FAST_SLOTS:
		parse_sizes(c, arg, o);
		break;
	case 'K': o->check_kernel = true; break;
	case 'S':
		if (o->nsnapshots == MAX_SNAPSHOTS)
			dc_usage_error("too many --snapshot options (at most %d)",
				       MAX_SNAPSHOTS);
		o->snapshots[o->nsnapshots++] = arg;
		break;
	case OPT_NO_PRELOAD: o->no_preload = true; break;
	case OPT_PROCESS_UPROBES: o->process_uprobes = true; break;
	case OPT_FAST: o->fast = true; break;
	case OPT_FAST_SOCKET: o->fast_socket = arg; break;
	case OPT_FAST_FULL:
		o->fast_full_wait_ms = parse_fast_full(arg);
		break;
	case 'A':
		if (strcmp(arg, "single") == 0)
			o->single_attach = true;
		else if (strcmp(arg, "auto") != 0)
			dc_usage_error("--attach must be auto or single");
		break;
	case 'F':
		if (strcmp(arg, "kprobes") == 0)
			o->kfunc_kprobes = true;
		else if (strcmp(arg, "auto") != 0)
			dc_usage_error("--kfunc must be auto or kprobes");
		break;
	case 'v': dc_verbose++; break;
	case 'h':
		fputs(usage_text, stdout);
		xfclose_stdout();
		exit(0);
	case 'V': dc_print_version();
	default:
		dc_try_help();
	}
}

/* One way to select processes, and a run id that is safe in file names. */
static void check_options(struct options *o)
{
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
	if (o->process_uprobes && o->mode != SEL_COMMAND && o->mode != SEL_PIDS)
		dc_usage_error("--process-uprobes needs -- COMMAND or --pid");
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

void parse_options(int argc, char **argv, struct options *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->ring_size = DEFAULT_RING;
	o->poll_ms = DEFAULT_POLL_MS;
	o->snapshot_max = DEFAULT_SNAPSHOT_MAX;
	o->fast_ring = DEFAULT_FAST_RING;
	o->fast_slots = DEFAULT_FAST_SLOTS;
	o->fast_full_wait_ms = DC_FAST_FULL_WAIT_MS;
	/* '+': stop at the first non-option, so COMMAND's options stay its. */
	while ((c = getopt_long(argc, argv, "+p:cag:k:o:r:R:b:vhV", longopts,
				NULL)) != -1)
		parse_option(c, optarg, o);
	if (o->check_kernel)
		return;
	if (optind >= argc)
		dc_usage_error("missing the signed probe spec");
	o->spec_path = argv[optind++];
	/* With '+', getopt stops at PROBES.sig and leaves any "--" after it.
	 * Without one, a word there that looks like an option is one given
	 * too late (a command is rarely named so): said now, before
	 * anything is loaded, not as a command that cannot run. */
	if (optind < argc && strcmp(argv[optind], "--") == 0)
		optind++;
	else if (optind < argc && argv[optind][0] == '-')
		dc_usage_error("%s after the probe spec: options go before it "
			       "(dc-collect [OPTIONS] PROBES.sig [-- COMMAND])",
			       argv[optind]);
	if (optind < argc)
		o->command = argv + optind;
	check_options(o);
}

const char *client_lib_path(const struct options *o)
{
	const char *env = getenv("DC_CLIENT_LIB");

	if (o->client_lib)
		return o->client_lib;
	if (env && *env)
		return env;
	return LIBDIR "/libdcclient.so";
}

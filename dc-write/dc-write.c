/*
 * dc-write - write a datacrumbs stream as a DFTracer trace.
 *
 * The last tool of the pipeline: reads the framed stream (dc-stream(5))
 * from dc-collect or dc-aggregate and writes the DFTracer .pfw.gz format
 * (dc-trace(5)) that Perfetto and DFTracer's analyzers read: one JSON
 * object per line in a series of independent gzip members, compressed on
 * worker threads, with an index sidecar.  With --check it verifies traces
 * instead, its own or other DFTracer writers'.
 *
 * Whatever arrived is written even when the input stops early: the end
 * event then says truncated (exit 3) or corrupt (exit 4).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "summary.h"
#include "gzout.h"
#include "messages.h"
#include "numbers.h"
#include "stream.h"
#include "trace.h"

#define DEFAULT_CHUNK (4u << 20)
#define DEFAULT_LEVEL 6
#define DEFAULT_FLUSH_INTERVAL 5

/*
 * The idle flusher: when no input has come for --flush-interval seconds,
 * the partly filled chunks are written, so a slow trace can be read while
 * it runs and a crash loses at most that much.  The main thread holds
 * `lock` while it formats a frame and releases it while it waits for
 * input; the flusher only touches the trace while the main thread waits.
 */
struct idle {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	struct trace *trace;
	long interval;           /* seconds; 0: never */
	int waiting;             /* the main thread waits for input */
	unsigned long wait_seq;  /* which wait (one flush per wait) */
	int stop;
};

static void *idle_flusher(void *arg)
{
	struct idle *idle = arg;
	unsigned long flushed_seq = 0;

	pthread_mutex_lock(&idle->lock);
	while (!idle->stop) {
		unsigned long seq = idle->wait_seq;
		struct timespec until;
		int rc = 0;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += idle->interval;
		/* Sleep a whole interval unless the state changes. */
		while (!idle->stop && idle->wait_seq == seq && rc == 0)
			rc = pthread_cond_timedwait(&idle->wake, &idle->lock,
						    &until);
		if (!idle->stop && idle->waiting && idle->wait_seq == seq &&
		    flushed_seq != seq) {
			trace_flush(idle->trace);
			flushed_seq = seq;
		}
	}
	pthread_mutex_unlock(&idle->lock);
	return NULL;
}

/* From here until idle_stop, the trace is the main thread's only while it
 * holds the lock: next_frame lets the flusher in while it waits. */
static void idle_start(struct idle *idle, struct trace *t)
{
	idle->trace = t;
	pthread_mutex_lock(&idle->lock);
	if (idle->interval > 0) {
		errno = pthread_create(&idle->thread, NULL, idle_flusher, idle);
		if (errno != 0)
			sysdie("cannot start the flush thread");
	}
}

static void idle_stop(struct idle *idle)
{
	idle->stop = 1;
	pthread_cond_signal(&idle->wake);
	pthread_mutex_unlock(&idle->lock);
	if (idle->interval > 0)
		pthread_join(idle->thread, NULL);
}

static int next_frame(struct idle *idle, struct dc_reader *reader,
		      struct dc_frame *frame)
{
	int st;

	idle->waiting = 1;
	idle->wait_seq++;
	pthread_cond_signal(&idle->wake);
	pthread_mutex_unlock(&idle->lock);
	st = dc_reader_next(reader, frame);
	pthread_mutex_lock(&idle->lock);
	idle->waiting = 0;
	return st;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	/* The first ^C is noted and the stream read to its end (the
	 * collector upstream finishes it); the handler is reset, so a
	 * second one ends dc-write at once. */
	(void)sig;
	interrupted = 1;
}

static void usage(void) __attribute__((noreturn));

static void usage(void)
{
	printf("Usage: dc-write [OPTION]... OUT.pfw.gz\n"
	       "       dc-write --check FILE...\n"
	       "       dc-write --summary [--top N] FILE...\n"
	       "Write the datacrumbs stream on standard input as a DFTracer trace.\n"
	       "OUT '-' writes to standard output; a name ending in .pfw is\n"
	       "written uncompressed.\n"
	       "\n"
	       "  -i, --input FILE       read the stream from FILE\n"
	       "      --plain            write uncompressed JSON lines\n"
	       "      --split-by KEY     pid: one file per process (OUT-PID.pfw.gz);\n"
	       "                         host: OUT-HOST.pfw.gz; none (default)\n"
	       "      --max-size BYTES   start OUT.1.pfw.gz, OUT.2... when a file\n"
	       "                         reaches BYTES (suffixes K, M, G)\n"
	       "      --chunk-size BYTES uncompressed bytes per gzip member (4M)\n"
	       "      --threads N        compression threads (default: CPUs)\n"
	       "      --level N          compression level, 1 (fast) to 9, or 12\n"
	       "                         with libdeflate (default %d)\n"
	       "      --compressor NAME  auto (default: libdeflate if installed,\n"
	       "                         else zlib), zlib or libdeflate\n"
	       "      --flush-interval S write a partly filled chunk when no input\n"
	       "                         came for S seconds (default %d; 0: never)\n"
	       "      --fsync            fsync after every member\n"
	       "      --no-index         do not write OUT.idx\n"
	       "      --force            replace an existing OUT (and OUT.idx)\n"
	       "      --summary          print calls, bytes and time per layer,\n"
	       "                         function and file of the trace FILEs\n"
	       "      --top N            with --summary, at most N rows per layer\n"
	       "                         (default 10, 0 for all)\n"
	       "      --check            verify the trace FILEs, print a summary\n"
	       "  -h, --help             show this help\n"
	       "  -V, --version          show the version\n",
	       DEFAULT_LEVEL, DEFAULT_FLUSH_INTERVAL);
	xfclose_stdout();
	exit(0);
}

/* What the command line asked for. */
struct options {
	enum { MODE_WRITE, MODE_CHECK, MODE_SUMMARY } mode;
	struct trace_opts trace;
	const char *input;       /* NULL or "-": standard input */
	const char *compressor;  /* auto, zlib or libdeflate */
	enum gz_compressor gz;   /* what it comes to */
	long threads;
	int level;
	int do_fsync;
	unsigned top;            /* --summary's rows per layer */
	long flush_interval;
};

enum {
	OPT_PLAIN = 256, OPT_SPLIT, OPT_MAX_SIZE, OPT_CHUNK,
	OPT_THREADS, OPT_LEVEL, OPT_FSYNC, OPT_NO_INDEX, OPT_CHECK,
	OPT_COMPRESSOR, OPT_FLUSH, OPT_SUMMARY, OPT_TOP, OPT_FORCE,
};

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "plain", no_argument, NULL, OPT_PLAIN },
	{ "split-by", required_argument, NULL, OPT_SPLIT },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "chunk-size", required_argument, NULL, OPT_CHUNK },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "level", required_argument, NULL, OPT_LEVEL },
	{ "compressor", required_argument, NULL, OPT_COMPRESSOR },
	{ "fsync", no_argument, NULL, OPT_FSYNC },
	{ "flush-interval", required_argument, NULL, OPT_FLUSH },
	{ "no-index", no_argument, NULL, OPT_NO_INDEX },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void parse_options(int argc, char **argv, struct options *o)
{
	int c;

	while ((c = getopt_long(argc, argv, "i:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case OPT_PLAIN:
			o->trace.plain = 1;
			break;
		case OPT_SPLIT:
			if (strcmp(optarg, "pid") == 0)
				o->trace.split = SPLIT_PID;
			else if (strcmp(optarg, "host") == 0)
				o->trace.split = SPLIT_HOST;
			else if (strcmp(optarg, "none") == 0)
				o->trace.split = SPLIT_NONE;
			else
				dc_usage_error("--split-by takes pid, host or "
					       "none, not '%s'", optarg);
			break;
		case OPT_MAX_SIZE:
			o->trace.max_size = dc_size_option(optarg, "--max-size",
							   1, UINT64_MAX);
			break;
		case OPT_CHUNK:
			o->trace.chunk_size = (size_t)dc_size_option(
				optarg, "--chunk-size", 1, 1u << 30);
			break;
		case OPT_THREADS:
			o->threads = dc_int_option(optarg, "--threads", 0, 256);
			break;
		case OPT_LEVEL:
			o->level = (int)dc_int_option(optarg, "--level", 1, 12);
			break;
		case OPT_COMPRESSOR:
			if (strcmp(optarg, "auto") != 0 &&
			    strcmp(optarg, "zlib") != 0 &&
			    strcmp(optarg, "libdeflate") != 0)
				dc_usage_error("--compressor takes auto, zlib or "
					       "libdeflate, not '%s'", optarg);
			o->compressor = optarg;
			break;
		case OPT_FLUSH:
			o->flush_interval = dc_int_option(optarg, "--flush-interval",
						      0, 86400);
			break;
		case OPT_FSYNC:
			o->do_fsync = 1;
			break;
		case OPT_NO_INDEX:
			o->trace.index = 0;
			break;
		case OPT_FORCE:
			o->trace.force = 1;
			break;
		case OPT_CHECK:
		case OPT_SUMMARY:
			if (o->mode != MODE_WRITE)
				dc_usage_error("--check and --summary do not go "
					       "together");
			o->mode = c == OPT_CHECK ? MODE_CHECK : MODE_SUMMARY;
			break;
		case OPT_TOP:
			o->top = (unsigned)dc_int_option(optarg, "--top", 0, 1000000);
			break;
		case 'h':
			usage();
		case 'V':
			dc_print_version();
		default:
			dc_usage_error("unknown option");
		}
	}
}

/* The output OUT and what its name implies; the options that need a
 * file name refuse '-'. */
static void set_output(struct options *o, const char *path)
{
	size_t len = strlen(path);

	o->trace.path = path;
	if (len > 4 && strcmp(path + len - 4, ".pfw") == 0)
		o->trace.plain = 1;
	if (strcmp(path, "-") == 0 && o->trace.split != SPLIT_NONE)
		dc_usage_error("--split-by needs a file name, not '-'");
	if (strcmp(path, "-") == 0 && o->trace.max_size > 0)
		dc_usage_error("--max-size needs a file name, not '-'");
	if (o->trace.plain)
		o->threads = 0;
}

/* auto: libdeflate when it is installed; the trace is the same gzip
 * either way, only its size and the speed differ. */
static enum gz_compressor choose_compressor(const struct options *o)
{
	enum gz_compressor gz;

	if (strcmp(o->compressor, "libdeflate") == 0 ||
	    (strcmp(o->compressor, "auto") == 0 && gz_libdeflate_available()))
		gz = GZ_LIBDEFLATE;
	else
		gz = GZ_ZLIB;
	if (gz == GZ_LIBDEFLATE && !gz_libdeflate_available())
		die("--compressor libdeflate: libdeflate.so.0 is not installed");
	if (gz == GZ_ZLIB && o->level > 9)
		dc_usage_error("--level above 9 needs libdeflate");
	return gz;
}

static void catch_signals(void)
{
	struct sigaction sa;

	signal(SIGPIPE, SIG_IGN); /* a closed pipe is a write error */
	/* Keep SIGINT ignored when it came ignored (a background job of a
	 * script); otherwise note the first one. */
	if (sigaction(SIGINT, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_interrupt;
		sa.sa_flags = SA_RESTART | SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
	}
}

/* The stream reader on --input (or standard input), its header read and
 * checked before anything is created: bad input leaves no empty trace
 * behind. */
static struct dc_reader *open_input(const char **input, int *fdp,
				    struct dc_stream_info *info)
{
	struct dc_reader *reader;
	int fd = STDIN_FILENO, st;

	if (*input != NULL && strcmp(*input, "-") != 0) {
		fd = open(*input, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			sysdie("cannot open %s", *input);
	} else {
		*input = "standard input";
	}
	*fdp = fd;
	reader = dc_reader_open(fd, *input);
	if (reader == NULL)
		sysdie("cannot allocate the stream reader");
	st = dc_reader_header(reader, info);
	if (st != DC_READ_FRAME)
		die_status(dc_read_exit_status(st), "%s", dc_reader_error(reader));
	if (!trace_accepts(info))
		die_status(DC_EXIT_USAGE, "%s: a collector's stream: put "
			   "dc-aggregate between dc-collect and dc-write",
			   *input);
	return reader;
}

/* Format every frame into the trace and finish it: whatever arrived is
 * written, and the end event says how the input ended.  Returns the exit
 * status. */
static int write_trace(struct options *o, struct dc_reader *reader,
		       const struct dc_stream_info *info)
{
	struct idle idle = { .lock = PTHREAD_MUTEX_INITIALIZER,
			     .wake = PTHREAD_COND_INITIALIZER,
			     .interval = o->flush_interval };
	struct dc_frame frame;
	struct trace *t;
	int status = DC_EXIT_OK, how = 0, st;
	char err[256];

	o->trace.pool = gz_pool_new((int)o->threads, o->gz, o->level,
				    o->do_fsync);
	t = trace_new(&o->trace, info);
	idle_start(&idle, t);
	while ((st = next_frame(&idle, reader, &frame)) == DC_READ_FRAME) {
		if (trace_frame(t, &frame, err, sizeof(err)) != 0) {
			warn("%s: frame at byte %llu: %s", o->input,
			     (unsigned long long)frame.offset, err);
			status = DC_EXIT_BADINPUT;
		}
	}
	idle_stop(&idle);
	if (st != DC_READ_EOF) {
		warn("%s", dc_reader_error(reader));
		status = trace_input_end(st, &how);
	}
	if (interrupted)
		how |= TRACE_INTERRUPTED;
	if (trace_finish(t, how) != 0)
		status = DC_EXIT_FAILURE;
	gz_pool_free(o->trace.pool);
	return status;
}

int main(int argc, char **argv)
{
	struct options o = {
		.mode = MODE_WRITE,
		.trace = { .index = 1, .chunk_size = DEFAULT_CHUNK },
		.compressor = "auto",
		.threads = sysconf(_SC_NPROCESSORS_ONLN),
		.level = DEFAULT_LEVEL,
		.top = 10,
		.flush_interval = DEFAULT_FLUSH_INTERVAL,
	};
	struct dc_stream_info info;
	struct dc_reader *reader;
	int fd, status;

	dc_messages_init(argv[0]);
	if (o.threads < 1)
		o.threads = 1;
	parse_options(argc, argv, &o);
	if (o.mode == MODE_SUMMARY) {
		if (optind == argc)
			dc_usage_error("--summary needs at least one FILE");
		return summarize_traces(argc - optind, argv + optind, o.top);
	}
	if (o.mode == MODE_CHECK) {
		if (optind == argc)
			dc_usage_error("--check needs at least one FILE");
		return check_traces(argc - optind, argv + optind);
	}
	if (argc - optind != 1)
		dc_usage_error(optind == argc ? "missing output file name"
					      : "too many arguments");
	set_output(&o, argv[optind]);
	o.gz = choose_compressor(&o);
	catch_signals();
	reader = open_input(&o.input, &fd, &info);
	status = write_trace(&o, reader, &info);
	dc_reader_close(reader);
	if (fd != STDIN_FILENO)
		close(fd);
	return status;
}

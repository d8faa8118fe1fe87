/*
 * dc-aggregate - turn raw datacrumbs streams into one stream of calls on
 * named files.
 *
 * It reads one or more streams (dc-stream(5)) and writes one, doing what
 * the kernel side cannot do cheaply:
 *
 *   - owns the call tree: rewrites each record's per-thread entry
 *     number and parent (from the collector) into ids unique in the
 *     output stream, exactly, however long a call lasts (calltree.c);
 *     a failed library call gets the errno of the failed call it made;
 *   - follows file descriptors and handles per process (open, openat,
 *     dup, fcntl, close, fopen, fork, exec, exit) and sets each event's
 *     file_id to the STRING id of the path it works on (a copy
 *     between two fds: the one it reads; the one it writes becomes its
 *     string);
 *   - merges several inputs: one header, timestamps moved to its clock,
 *     probe and string ids renumbered where they clash;
 *   - passes COUNTERS frames (profile mode) on, with merged inputs'
 *     probe ids and clocks translated like events;
 *   - with --profile, sums calls per interval, process and probe into
 *     COUNTERS frames instead of writing them, as the collector's profile
 *     mode would have;
 *   - ends with its own END frame: its event count, the inputs' losses,
 *     and flags saying whether an input was cut short or damaged.
 *
 * State is per open call (the call tree), per live process (fd and
 * handle tables), plus the table of paths it has named; nothing else
 * grows with the trace.  See dc-aggregate(1).
 */
#include "config.h"

#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggregate.h"
#include "messages.h"
#include "stream.h"

static void on_stop_signal(int sig)
{
	/* Nothing to do: the collector upstream got the same ^C or SIGTERM
	 * and is finishing its stream, which we read to its end.  The
	 * handler resets itself, so a second signal stops us at once. */
	(void)sig;
}

static void catch_stop_signal(int sig)
{
	struct sigaction sa;

	/* A signal that came ignored (a background job) stays ignored. */
	if (sigaction(sig, NULL, &sa) != 0 || sa.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sa.sa_flags = SA_RESTART | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void __attribute__((noreturn)) usage(void)
{
	printf("Usage: %s [OPTION]... [INPUT]...\n"
	       "Pair calls, name the files they work on, and merge datacrumbs\n"
	       "streams.  Reads INPUTs (standard input if none, or -), writes\n"
	       "one stream to standard output.\n"
	       "\n"
	       "  -p, --profile=INTERVAL  sum calls per INTERVAL (a whole number\n"
	       "                  with ns, us, ms or s; s by default), process\n"
	       "                  and probe into COUNTERS frames, written at\n"
	       "                  the end, instead of writing them as events\n"
	       "  -t, --text      write the result as text, one line per frame\n"
	       "                  or event, instead of a binary stream\n"
	       "  -v, --verbose   say more on standard error\n"
	       "  -h, --help      show this help and exit\n"
	       "  -V, --version   show the version and exit\n"
	       "\n"
	       "Exit status: 0 ok, 1 system error, 2 usage, 3 an input was\n"
	       "truncated, 4 an input was malformed; the output is complete\n"
	       "and ends with an END frame in every case but 1 and 2.\n",
	       dc_program);
	xfclose_stdout();
	exit(0);
}

/* The inputs named on the command line, standard input if none. */
static void open_inputs(struct aggregator *ag, int argc, char **argv)
{
	int i;

	if (argc == 0) {
		aggregator_add_input(ag, "standard input", STDIN_FILENO);
		return;
	}
	for (i = 0; i < argc; i++) {
		int fd = STDIN_FILENO;

		if (strcmp(argv[i], "-") != 0) {
			fd = open(argv[i], O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				sysdie("cannot open %s", argv[i]);
		}
		aggregator_add_input(ag, fd == STDIN_FILENO ? "standard input"
							    : argv[i], fd);
	}
}

/* Close what open_inputs opened. */
static void close_inputs(const struct aggregator *ag)
{
	unsigned i;

	for (i = 0; i < ag->n_inputs; i++)
		if (ag->inputs[i].fd != STDIN_FILENO)
			close(ag->inputs[i].fd);
}

static void parse_options(struct aggregator *ag, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "text", no_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "p:tvhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			ag->opt_profile = parse_interval(optarg);
			if (ag->opt_profile == 0)
				dc_usage_error("bad interval '%s' for --profile",
					       optarg);
			break;
		case 't':
			ag->opt_text = 1;
			break;
		case 'v':
			dc_verbose++;
			break;
		case 'h':
			usage();
		case 'V':
			dc_print_version();
		default:
			dc_try_help();
		}
	}
}

int main(int argc, char **argv)
{
	struct aggregator ag;
	int status;

	dc_messages_init(argv[0]);
	aggregator_init(&ag, STDOUT_FILENO);
	parse_options(&ag, argc, argv);
	/* A reader that goes away is a write error, reported once. */
	signal(SIGPIPE, SIG_IGN);
	catch_stop_signal(SIGINT);
	catch_stop_signal(SIGTERM);
	open_inputs(&ag, argc - optind, argv + optind);
	status = aggregate(&ag);
	close_inputs(&ag);
	aggregator_free(&ag);
	return status;
}

/*
 * dc-wrap - run a command with the datacrumbs client library preloaded.
 *
 * dc-wrap optionally waits for dc-collect's ready file, puts
 * libdcclient.so first in LD_PRELOAD and execs the command, so the
 * command and everything it starts announce themselves to the collector
 * (see dcclient.h).  It replaces itself with the command: the exit status
 * is the command's own, except for its own failures (dc-wrap(1)).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "messages.h"
#include "numbers.h"

#define DEFAULT_TIMEOUT 60
#define EXIT_NOT_EXECUTABLE 126 /* as sh(1) does */
#define EXIT_NOT_FOUND 127

static const char usage_text[] =
	"Usage: %s [OPTION]... COMMAND [ARG]...\n"
	"Run COMMAND with the datacrumbs client library preloaded.\n"
	"\n"
	"  -r, --ready-file FILE  wait until FILE exists (dc-collect --ready-file)\n"
	"  -t, --timeout SEC      give up waiting after SEC seconds (default %d;\n"
	"                         0 waits forever)\n"
	"  -l, --lib PATH         client library to preload (default:\n"
	"                         $DC_CLIENT_LIB, else %s)\n"
	"      --run-id ID        export DC_RUN_ID=ID to COMMAND\n"
	"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n";

static void __attribute__((noreturn)) usage(void)
{
	printf(usage_text, dc_program, DEFAULT_TIMEOUT,
	       LIBDIR "/libdcclient.so");
	xfclose_stdout();
	exit(0);
}

static void wait_ready(const char *file, long timeout)
{
	struct timespec start, now, nap = { 0, 20 * 1000 * 1000 };
	struct stat st;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		if (stat(file, &st) == 0)
			return;
		if (errno != ENOENT)
			sysdie("cannot check ready file %s", file);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (timeout > 0 && now.tv_sec - start.tv_sec +
				(now.tv_nsec - start.tv_nsec) / 1e9 >= timeout)
			die("collector not ready: %s did not appear within %ld "
			    "seconds", file, timeout);
		nanosleep(&nap, NULL);
	}
}

/* Is `lib` already one of the LD_PRELOAD entries (colon or space
 * separated, as ld.so(8) accepts)? */
static int preload_has(const char *preload, const char *lib)
{
	size_t n = strlen(lib);
	const char *p = preload;

	while (*p != '\0') {
		size_t len = strcspn(p, ": ");

		if (len == n && strncmp(p, lib, n) == 0)
			return 1;
		p += len;
		if (*p != '\0')
			p++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ready-file", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "lib", required_argument, NULL, 'l' },
		{ "run-id", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ready_file = NULL, *lib = NULL, *run_id = NULL;
	const char *old;
	char resolved[PATH_MAX];
	long timeout = DEFAULT_TIMEOUT;
	int opt;

	dc_messages_init(argv[0]);
	/* "+": options end at COMMAND, whose own options are its business. */
	while ((opt = getopt_long(argc, argv, "+r:t:l:hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			ready_file = optarg;
			break;
		case 't':
			timeout = (long)dc_int_option(optarg, "--timeout", 0,
						      86400 * 366);
			break;
		case 'l':
			lib = optarg;
			break;
		case 'R':
			run_id = optarg;
			break;
		case 'h':
			usage();
		case 'V':
			dc_print_version();
		default:
			dc_try_help();
		}
	}
	if (optind >= argc)
		dc_usage_error("no command given");

	if (lib == NULL)
		lib = getenv("DC_CLIENT_LIB");
	if (lib == NULL || *lib == '\0')
		lib = LIBDIR "/libdcclient.so";
	/* An absolute path: the command may change directory, and ld.so
	 * would search a bare name in its own path. */
	if (realpath(lib, resolved) == NULL)
		sysdie("cannot use client library %s", lib);
	if (access(resolved, R_OK) != 0)
		sysdie("cannot use client library %s", lib);

	if (ready_file != NULL)
		wait_ready(ready_file, timeout);

	old = getenv("LD_PRELOAD");
	if (old == NULL || *old == '\0') {
		if (setenv("LD_PRELOAD", resolved, 1) != 0)
			sysdie("cannot set LD_PRELOAD");
	} else if (!preload_has(old, resolved)) {
		char *value = xasprintf("%s:%s", resolved, old);

		if (setenv("LD_PRELOAD", value, 1) != 0)
			sysdie("cannot set LD_PRELOAD");
		free(value);
	}
	if (run_id != NULL && setenv("DC_RUN_ID", run_id, 1) != 0)
		sysdie("cannot set DC_RUN_ID");

	execvp(argv[optind], argv + optind);
	if (errno == ENOENT)
		die_status(EXIT_NOT_FOUND, "%s: command not found", argv[optind]);
	die_status(EXIT_NOT_EXECUTABLE, "cannot run %s: %s", argv[optind],
		   strerror(errno));
}

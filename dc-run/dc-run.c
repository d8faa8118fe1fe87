/*
 * dc-run - trace one command of a batch job: the runner for job scripts.
 *
 *   dc-run [OPTION]... SPEC DIR COMMAND [ARG]...
 *
 * As root, dc-run starts dc-collect --clients | dc-aggregate | dc-write
 * DIR/JOBID/HOST.pfw.gz, waits for the collector's ready file, runs the
 * command under dc-wrap, stops the pipeline once the command has ended
 * and names the trace.  Not as root, the collector is the site service of
 * the job (datacrumbs@JOBID.service, started by the scheduler's prolog):
 * dc-run finds it through its state directory and runs the command under
 * dc-wrap against it.
 *
 * The job comes first: whatever keeps tracing from starting (no BPF, no
 * service, a refused spec, a tool missing) costs one warning line and the
 * command runs untraced.  dc-run exits with the command's own status.
 * Child processes are started the way dc-collect's start_command does it:
 * fork, and a close-on-exec pipe that carries errno back if exec fails, so
 * "could not start" is told apart from "started and failed".
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobinfo.h"
#include "messages.h"
#include "numbers.h"
#include "stream.h"

#define DEFAULT_TIMEOUT 60
#define DEFAULT_SERVICE_DIR "/run/datacrumbs"
#define EXIT_NOT_EXECUTABLE 126
#define EXIT_NOT_FOUND 127

struct options {
	const char *spec;        /* config (.yaml/.yml) or signed spec */
	const char *dir;         /* trace directory */
	char **command;
	const char *key;         /* -k, passed to dc-sign and dc-collect */
	const char *job_id;      /* -j, else from the scheduler */
	const char *service_dir; /* where the site service keeps its state */
	long timeout;            /* seconds to wait for readiness */
	bool no_service;         /* as root: never use a site service */
};

struct runner {
	struct options opt;
	char job[DC_JOB_ID_MAX];
	char host[256];
	char *jobdir;            /* DIR/JOBID */
	char *trace;             /* DIR/JOBID/HOST.pfw.gz */
	char *log;               /* DIR/JOBID/HOST.log: the tools' messages */
	char tmp[PATH_MAX];      /* private: ready file, generated spec */
	char *ready;
	char *sig;               /* the spec signed from a config, if any */
	pid_t stage[3];          /* collect, aggregate, write */
	char why[512];           /* why tracing did not start */
	bool traced;
};

/* The signal handlers pass signals on to the command: the one piece of
 * state a handler can reach. */
static volatile sig_atomic_t command_pid;

static const char usage_text[] =
	"Usage: %s [OPTION]... SPEC DIR COMMAND [ARG]...\n"
	"Trace COMMAND into DIR/JOBID/HOST.pfw.gz and exit with its status.\n"
	"SPEC is a signed probe spec, or a dc-gen config (.yaml, .yml) that\n"
	"is signed first (with the key as root, through dc-signd otherwise).\n"
	"\n"
	"  -j, --job-id ID        the job (default: $SLURM_JOB_ID, $FLUX_JOB_ID,\n"
	"                         $PBS_JOBID, $LSB_JOBID, else local-PID)\n"
	"  -k, --key FILE         signing key (as root; default as dc-sign)\n"
	"  -t, --timeout SEC      wait at most SEC seconds for the collector\n"
	"                         (default %d)\n"
	"      --service-dir DIR  the site service's state (default %s)\n"
	"      --no-service       as root, start a collector even when the\n"
	"                         site service traces this job\n"
	"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n"
	"If tracing cannot start, COMMAND runs untraced after one warning.\n";

static void __attribute__((noreturn)) usage(void)
{
	printf(usage_text, dc_program, DEFAULT_TIMEOUT, DEFAULT_SERVICE_DIR);
	xfclose_stdout();
	exit(0);
}

static void parse_options(struct options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "job-id", required_argument, NULL, 'j' },
		{ "key", required_argument, NULL, 'k' },
		{ "timeout", required_argument, NULL, 't' },
		{ "service-dir", required_argument, NULL, 'S' },
		{ "no-service", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(o, 0, sizeof(*o));
	o->timeout = DEFAULT_TIMEOUT;
	o->service_dir = DEFAULT_SERVICE_DIR;
	while ((opt = getopt_long(argc, argv, "+j:k:t:hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			if (!dc_job_id_valid(optarg))
				dc_usage_error("invalid job id '%s'", optarg);
			o->job_id = optarg;
			break;
		case 'k':
			o->key = optarg;
			break;
		case 't':
			o->timeout = (long)dc_int_option(optarg, "--timeout", 1,
							 86400 * 366);
			break;
		case 'S':
			o->service_dir = optarg;
			break;
		case 'N':
			o->no_service = true;
			break;
		case 'h':
			usage();
		case 'V':
			dc_print_version();
		default:
			dc_try_help();
		}
	}
	if (argc - optind < 3)
		dc_usage_error("%s", argc - optind == 0 ? "no spec given" :
				     argc - optind == 1 ? "no trace directory given" :
				     "no command given");
	o->spec = argv[optind];
	o->dir = argv[optind + 1];
	o->command = argv + optind + 2;
}

/* ---- starting programs ---- */

/* Start argv with the given standard descriptors (-1: inherit) in process
 * group pgid (0: a new one, -1: dc-run's).  Returns the pid, or -1 with
 * errno set when the program could not be started at all. */
static pid_t spawn(char *const argv[], int in, int out, int err, pid_t pgid)
{
	int report[2], e = 0;
	pid_t pid;
	ssize_t n;

	if (pipe2(report, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(report[0]);
		close(report[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		close(report[0]);
		if (pgid >= 0)
			setpgid(0, pgid);
		if ((in >= 0 && dup2(in, STDIN_FILENO) < 0) ||
		    (out >= 0 && dup2(out, STDOUT_FILENO) < 0) ||
		    (err >= 0 && dup2(err, STDERR_FILENO) < 0)) {
			e = errno;
		} else {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			signal(SIGPIPE, SIG_DFL);
			execvp(argv[0], argv);
			e = errno;
		}
		if (write(report[1], &e, sizeof(e)) < 0)
			_exit(EXIT_NOT_FOUND);
		_exit(e == ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_EXECUTABLE);
	}
	close(report[1]);
	if (pgid >= 0)
		setpgid(pid, pgid == 0 ? pid : pgid); /* both sides: no race */
	do {
		n = read(report[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(pid, NULL, 0);
		errno = e;
		return -1;
	}
	return pid;
}

static int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/* A shell-style exit status: 128 + signal for a killed process. */
static int shell_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* The last non-empty line of the log that starts with prefix (NULL:
 * any), for a one-line reason. */
static void last_log_line_of(const char *log, const char *prefix, char *buf,
			     size_t cap)
{
	char line[400];
	FILE *f = fopen(log, "re");

	buf[0] = '\0';
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] != '\0' &&
		    (prefix == NULL || strncmp(line, prefix, strlen(prefix)) == 0))
			snprintf(buf, cap, "%s", line);
	}
	fclose(f);
}

static void last_log_line(const char *log, char *buf, size_t cap)
{
	last_log_line_of(log, NULL, buf, cap);
}

static void __attribute__((format(printf, 2, 3)))
set_why(struct runner *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0] != '\0')
		return; /* the first reason is the one that counts */
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

/* Run one preparation step to its end, its messages going to the log;
 * false (and the reason) if it did not succeed. */
static bool run_step(struct runner *r, char *const argv[], int out)
{
	char last[500];
	int logfd, status;
	pid_t pid;

	logfd = open(r->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (logfd < 0) {
		set_why(r, "cannot open %s: %s", r->log, strerror(errno));
		return false;
	}
	pid = spawn(argv, -1, out, logfd, -1);
	close(logfd);
	if (pid < 0) {
		set_why(r, "cannot run %s: %s", argv[0], strerror(errno));
		return false;
	}
	status = wait_status(pid);
	if (status == 0)
		return true;
	last_log_line(r->log, last, sizeof(last));
	set_why(r, "%s", last[0] ? last : "a preparation step failed");
	return false;
}

/* ---- where the trace goes ---- */

/* The short host name, made safe for a file name. */
static void host_name(char *buf, size_t cap)
{
	size_t i;

	if (gethostname(buf, cap) != 0 || buf[0] == '\0')
		snprintf(buf, cap, "localhost");
	buf[cap - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
	for (i = 0; buf[i] != '\0'; i++)
		if (!isalnum((unsigned char)buf[i]) && buf[i] != '-' &&
		    buf[i] != '_')
			buf[i] = '_';
}

static bool make_dir(struct runner *r, const char *path)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return true;
	set_why(r, "cannot create %s: %s", path, strerror(errno));
	return false;
}

/* DIR/JOBID/HOST.pfw.gz; a second run of the same job on the same host
 * (two dc-run lines in one job script) gets HOST-2.pfw.gz, and so on.
 * The log is claimed with O_EXCL, so two runs never share names. */
static bool choose_names(struct runner *r)
{
	int n, fd;

	if (!make_dir(r, r->opt.dir))
		return false;
	r->jobdir = xasprintf("%s/%s", r->opt.dir, r->job);
	if (!make_dir(r, r->jobdir))
		return false;
	for (n = 1; n < 1000; n++) {
		char *base = n == 1 ? xasprintf("%s/%s", r->jobdir, r->host) :
			xasprintf("%s/%s-%d", r->jobdir, r->host, n);

		free(r->trace);
		free(r->log);
		r->trace = xasprintf("%s.pfw.gz", base);
		r->log = xasprintf("%s.log", base);
		free(base);
		if (access(r->trace, F_OK) == 0)
			continue;
		fd = open(r->log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			  O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			return true;
		}
		if (errno != EEXIST) {
			set_why(r, "cannot create %s: %s", r->log,
				strerror(errno));
			return false;
		}
	}
	set_why(r, "too many traces of job %s in %s", r->job, r->jobdir);
	return false;
}

static bool is_config(const char *path)
{
	size_t n = strlen(path);

	return (n > 5 && strcmp(path + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(path + n - 4, ".yml") == 0);
}

/* A config becomes a signed spec in the private directory: dc-gen, then
 * dc-sign with the key (root) or through dc-signd (anyone else, under
 * the site's policy).  A signed spec is used as it is. */
static const char *signed_spec(struct runner *r, bool root)
{
	char *json, *sig;
	char *gen[] = { "dc-gen", (char *)r->opt.spec, NULL };
	int fd;
	bool ok;

	if (!is_config(r->opt.spec))
		return r->opt.spec;
	json = xasprintf("%s/probes.json", r->tmp);
	free(r->sig);
	r->sig = sig = xasprintf("%s/probes.sig", r->tmp);
	fd = open(json, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		set_why(r, "cannot create %s: %s", json, strerror(errno));
		free(json);
		return NULL;
	}
	ok = run_step(r, gen, fd);
	close(fd);
	if (ok && root) {
		char *sign[] = { "dc-sign", "-o", sig, json, NULL, NULL, NULL };

		if (r->opt.key != NULL) {
			sign[4] = sign[2];
			sign[5] = sign[3];
			sign[1] = "-k";
			sign[2] = (char *)r->opt.key;
			sign[3] = "-o";
		}
		ok = run_step(r, sign, -1);
	} else if (ok) {
		char *sign[] = { "dc-sign", "--via-service", "-o", sig, json, NULL };

		ok = run_step(r, sign, -1);
	}
	free(json);
	return ok ? sig : NULL;
}

/* ---- the pipeline (root) ---- */

/* dc-collect --clients | dc-aggregate | dc-write, in a process group of
 * their own so a ^C or a scheduler's signal to the job's group reaches
 * the command, and dc-run stops the collector itself, after it. */
static bool start_pipeline(struct runner *r, const char *spec)
{
	char *collect[16], *aggregate[] = { "dc-aggregate", NULL };
	char *write[] = { "dc-write", r->trace, NULL };
	int p1[2], p2[2], logfd, i = 0;
	pid_t pg;

	collect[i++] = "dc-collect";
	collect[i++] = "--clients";
	collect[i++] = "--ready-file";
	collect[i++] = r->ready;
	collect[i++] = "--run-id";
	collect[i++] = r->job;
	if (r->opt.key != NULL) {
		collect[i++] = "--key";
		collect[i++] = (char *)r->opt.key;
	}
	collect[i++] = (char *)spec;
	collect[i] = NULL;

	logfd = open(r->log, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (logfd < 0 || pipe2(p1, O_CLOEXEC) != 0) {
		set_why(r, "cannot start the pipeline: %s", strerror(errno));
		if (logfd >= 0)
			close(logfd);
		return false;
	}
	if (pipe2(p2, O_CLOEXEC) != 0) {
		set_why(r, "cannot start the pipeline: %s", strerror(errno));
		close(p1[0]);
		close(p1[1]);
		close(logfd);
		return false;
	}
	/* The writer first: the others' output has somewhere to go. */
	r->stage[2] = spawn(write, p2[0], -1, logfd, 0);
	pg = r->stage[2];
	if (pg > 0)
		r->stage[1] = spawn(aggregate, p1[0], p2[1], logfd, pg);
	if (pg > 0 && r->stage[1] > 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		r->stage[0] = spawn(collect, null, p1[1], logfd, pg);
		if (null >= 0)
			close(null);
	}
	close(p1[0]);
	close(p1[1]);
	close(p2[0]);
	close(p2[1]);
	close(logfd);
	if (r->stage[0] > 0)
		return true;
	set_why(r, "cannot run %s: %s", pg <= 0 ? "dc-write" :
		r->stage[1] <= 0 ? "dc-aggregate" : "dc-collect",
		strerror(errno));
	return false;
}

/* Until the ready file appears, a stage dies, or the time is up.  When
 * a stage dies the others follow; the reason is the message of the first
 * stage in the pipe that failed (the collector's, usually: the others
 * then only see an empty stream). */
static bool wait_ready(struct runner *r)
{
	static const char *const prefix[3] = { "dc-collect:", "dc-aggregate:",
					       "dc-write:" };
	struct timespec start, now, nap = { 0, 20 * 1000 * 1000 };
	char last[500];
	int i, status;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		if (access(r->ready, F_OK) == 0)
			return true;
		for (i = 0; i < 3; i++)
			if (r->stage[i] > 0 &&
			    waitpid(r->stage[i], &status, WNOHANG) == r->stage[i])
				break;
		if (i < 3) {
			r->stage[i] = 0;
			for (i = 0; i < 3; i++) {
				if (r->stage[i] <= 0)
					continue;
				if (i == 0)
					kill(r->stage[i], SIGTERM);
				status = wait_status(r->stage[i]);
				r->stage[i] = 0;
			}
			for (i = 0, last[0] = '\0'; i < 3 && !last[0]; i++)
				last_log_line_of(r->log, prefix[i], last,
						 sizeof(last));
			set_why(r, "%s", last[0] ? last :
				"the collector stopped before it was ready");
			return false;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= r->opt.timeout) {
			set_why(r, "the collector was not ready within %ld "
				"seconds", r->opt.timeout);
			return false;
		}
		nanosleep(&nap, NULL);
	}
}

/* Stop the collector (it drains, writes END and exits) and wait for the
 * stages; true when all three ended well. */
static bool stop_pipeline(struct runner *r)
{
	int i, status;
	bool ok = true;

	if (r->stage[0] > 0)
		kill(r->stage[0], SIGTERM);
	for (i = 0; i < 3; i++) {
		if (r->stage[i] <= 0)
			continue;
		status = wait_status(r->stage[i]);
		if (status != 0)
			ok = false;
		r->stage[i] = 0;
	}
	return ok;
}

/* A failed start: stop whatever started, leave no partial trace. */
static void abandon_pipeline(struct runner *r)
{
	int i;

	for (i = 0; i < 3; i++)
		if (r->stage[i] > 0)
			kill(r->stage[i], SIGTERM);
	stop_pipeline(r);
	if (r->trace != NULL) {
		char *idx = xasprintf("%s.idx", r->trace);

		unlink(r->trace);
		unlink(idx);
		free(idx);
	}
}

/* ---- the site service (not root) ---- */

/* The service for this job keeps SERVICE_DIR/JOBID/{ready,trace}. */
static bool use_service(struct runner *r)
{
	char *state = xasprintf("%s/%s", r->opt.service_dir, r->job);
	char *file = xasprintf("%s/trace", state);
	char line[PATH_MAX];
	FILE *f;

	free(r->ready);
	r->ready = xasprintf("%s/ready", state);
	free(state);
	if (access(r->ready, F_OK) != 0) {
		set_why(r, "no datacrumbs service traces job %s (%s: %s)",
			r->job, r->ready, strerror(errno));
		free(file);
		return false;
	}
	f = fopen(file, "re");
	if (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		free(r->trace);
		r->trace = xstrdup(line);
	}
	if (f != NULL)
		fclose(f);
	free(file);
	return true;
}

static bool service_running(const struct runner *r)
{
	char *ready = xasprintf("%s/%s/ready", r->opt.service_dir, r->job);
	bool yes = access(ready, F_OK) == 0;

	free(ready);
	return yes;
}

/* ---- the command ---- */

static void forward_signal(int sig)
{
	if (command_pid > 0)
		kill((pid_t)command_pid, sig);
}

/* Run the command under dc-wrap (traced) or as it is, and wait for it.
 * dc-wrap's own failures to run it come back as 126/127 with its one
 * line; if dc-wrap itself cannot be started, the command runs untraced. */
static int run_command(struct runner *r)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				    SIGUSR1, SIGUSR2 };
	struct sigaction sa;
	char **argv = r->opt.command;
	int n, i, status;
	pid_t pid = -1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < (int)(sizeof(sigs) / sizeof(sigs[0])); i++)
		sigaction(sigs[i], &sa, NULL);

	if (r->traced) {
		char **wrapped;

		for (n = 0; argv[n] != NULL; n++)
			;
		wrapped = xcalloc((size_t)n + 6, sizeof(*wrapped));
		wrapped[0] = "dc-wrap";
		wrapped[1] = "--ready-file";
		wrapped[2] = r->ready;
		wrapped[3] = "--";
		memcpy(wrapped + 4, argv, ((size_t)n + 1) * sizeof(*argv));
		pid = spawn(wrapped, -1, -1, -1, -1);
		free(wrapped);
		if (pid < 0) {
			set_why(r, "cannot run dc-wrap: %s", strerror(errno));
			r->traced = false;
		}
	}
	if (!r->traced) {
		warn("warning: tracing not started: %s; running %s untraced",
		     r->why, argv[0]);
		pid = spawn(argv, -1, -1, -1, -1);
		if (pid < 0) {
			int e = errno;

			if (e == ENOENT) {
				warn("%s: command not found", argv[0]);
				return EXIT_NOT_FOUND;
			}
			warn("cannot run %s: %s", argv[0], strerror(e));
			return EXIT_NOT_EXECUTABLE;
		}
	}
	command_pid = pid;
	status = wait_status(pid);
	command_pid = 0;
	return status < 0 ? 1 : shell_status(status);
}

static void make_private_dir(struct runner *r)
{
	const char *base = getenv("TMPDIR");

	if (base == NULL || *base == '\0')
		base = "/tmp";
	snprintf(r->tmp, sizeof(r->tmp), "%s/dc-run.XXXXXX", base);
	if (mkdtemp(r->tmp) == NULL) {
		set_why(r, "cannot create a directory in %s: %s", base,
			strerror(errno));
		r->tmp[0] = '\0';
	}
}

static void remove_private_dir(struct runner *r)
{
	static const char *const names[] = { "ready", "probes.json",
					     "probes.sig" };
	size_t i;

	if (r->tmp[0] == '\0')
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = xasprintf("%s/%s", r->tmp, names[i]);

		unlink(p);
		free(p);
	}
	rmdir(r->tmp);
}

/* Everything before the command, as root: names, spec, pipeline. */
static void start_tracing_root(struct runner *r)
{
	const char *spec;

	if (r->tmp[0] == '\0' || !choose_names(r))
		return;
	r->ready = xasprintf("%s/ready", r->tmp);
	spec = signed_spec(r, true);
	if (spec == NULL)
		return;
	if (!start_pipeline(r, spec)) {
		abandon_pipeline(r);
		return;
	}
	if (!wait_ready(r)) {
		abandon_pipeline(r);
		return;
	}
	r->traced = true;
}

/* Not root: the spec must pass dc-signd's policy, and the site service
 * must already trace the job. */
static void start_tracing_user(struct runner *r)
{
	if (r->tmp[0] == '\0')
		return;
	if (is_config(r->opt.spec)) {
		/* Messages of the signing go to a log in the private dir. */
		r->log = xasprintf("%s/sign.log", r->tmp);
		if (signed_spec(r, false) == NULL) {
			unlink(r->log);
			return;
		}
		unlink(r->log);
		free(r->log);
		r->log = NULL;
	}
	r->traced = use_service(r);
}

int main(int argc, char **argv)
{
	struct runner r;
	int status;
	bool root;

	dc_messages_init(argv[0]);
	memset(&r, 0, sizeof(r));
	parse_options(&r.opt, argc, argv);
	if (r.opt.job_id != NULL)
		snprintf(r.job, sizeof(r.job), "%s", r.opt.job_id);
	else
		dc_job_id_from_env(r.job, sizeof(r.job));
	host_name(r.host, sizeof(r.host));
	/* The pipeline's children must not die with a closed pipe unseen. */
	signal(SIGPIPE, SIG_IGN);

	root = geteuid() == 0;
	make_private_dir(&r);
	if (root && (r.opt.no_service || !service_running(&r)))
		start_tracing_root(&r);
	else
		start_tracing_user(&r);

	status = run_command(&r);

	if (r.stage[0] > 0) {
		if (stop_pipeline(&r)) {
			notice("trace %s", r.trace);
		} else {
			char last[500];

			last_log_line(r.log, last, sizeof(last));
			warn("warning: the trace %s may be incomplete: %s",
			     r.trace, last[0] ? last : "a tool failed");
		}
	} else if (r.traced && r.trace != NULL) {
		notice("trace %s (written by the site service)", r.trace);
	} else if (r.log != NULL && root) {
		/* Nothing traced: keep the log only if it says why. */
		struct stat st;

		if (stat(r.log, &st) == 0 && st.st_size == 0)
			unlink(r.log);
	}
	remove_private_dir(&r);
	free(r.jobdir);
	free(r.trace);
	free(r.log);
	free(r.ready);
	free(r.sig);
	return status;
}

/*
 * spawnstate - posix_spawn(3) a program with chosen attributes and file
 * actions, and report what a spawned process finds, for
 * t/4250-fastpath-spawn.t: the client library makes some spawns itself
 * (dc-wrap/spawn.c), and its children must find what glibc's find.
 *
 *   spawnstate spawn [OPTION...] PROGRAM [ARG...]
 *
 * Spawns PROGRAM, waits for it and exits with its status (128 + the
 * signal if it was killed); if posix_spawn fails, prints
 * "spawn: MESSAGE" on stdout and exits 1.  Options (each may repeat):
 *   -c        without LD_PRELOAD in the child's environment
 *   -p        posix_spawnp: PROGRAM looked up in PATH
 *   -e VAR=V  VAR=V in this process's environment first (PATH=...)
 *   -o FD:PATH  open PATH for writing (created, truncated) at FD
 *   -r FD:PATH  open PATH for reading at FD
 *   -d FD:NEW   dup2 FD onto NEW        -x FD  close FD
 *   -C DIR    chdir to DIR              -F DIR fchdir to DIR, opened here
 *   -f FD     close every descriptor from FD on (closefrom)
 *   -k FD     open /dev/null at FD here first (inherited)
 *   -K FD     the same, close-on-exec
 *   -m SIG    SIG in the child's signal mask (POSIX_SPAWN_SETSIGMASK)
 *   -D SIG    SIG to its default (POSIX_SPAWN_SETSIGDEF)
 *   -I SIG    SIG ignored here first   -H SIG  a handler for SIG here
 *   -B SIG    SIG blocked here first
 *   -g        a process group of its own (POSIX_SPAWN_SETPGROUP, 0)
 *   -s        a session of its own (POSIX_SPAWN_SETSID)
 *   -R        POSIX_SPAWN_RESETIDS
 *   -w N      a thread of this process writes 1 byte to /dev/null N
 *             times meanwhile (started before the spawn, joined after)
 *
 *   spawnstate report [N]
 *
 * Prints this process's state, one fact a line: its working directory;
 * each open descriptor up to 63 (its target and close-on-exec flag);
 * its blocked, ignored and caught signals; whether it leads its process
 * group and session; its effective IDs.  Then writes 1 byte to
 * /dev/null N times.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void on_signal(int sig)
{
	(void)sig;
}

static void *writer(void *arg)
{
	long n = (long)arg;
	int fd = open("/dev/null", O_WRONLY);

	while (fd >= 0 && n-- > 0)
		if (write(fd, "x", 1) != 1)
			break;
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void fd_path(const char *arg, int *fd, const char **path)
{
	*fd = atoi(arg);
	*path = strchr(arg, ':') != NULL ? strchr(arg, ':') + 1 : "";
}

static void at_fd(int fd, int cloexec)
{
	int n = open("/dev/null", O_RDONLY | (cloexec ? O_CLOEXEC : 0));

	if (n != fd) {
		dup3(n, fd, cloexec ? O_CLOEXEC : 0);
		close(n);
	}
}

/* The environment without LD_PRELOAD. */
static char **cleaned(void)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n] != NULL)
		n++;
	env = calloc(n + 1, sizeof(*env));
	for (size_t i = 0; env != NULL && i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
			env[k++] = environ[i];
	return env;
}

static int spawn(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t mask, def, block;
	short flags = 0;
	int opt, fd, status, r, spawnp = 0, clean = 0;
	const char *path;
	struct sigaction sa;
	pthread_t thread;
	long thread_writes = 0;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	sigemptyset(&mask);
	sigemptyset(&def);
	sigemptyset(&block);
	while ((opt = getopt(argc, argv, "+cpe:o:r:d:x:C:F:f:k:K:m:D:I:H:B:gsRw:")) != -1) {
		switch (opt) {
		case 'c': clean = 1; break;
		case 'p': spawnp = 1; break;
		case 'e': putenv(optarg); break;
		case 'o':
			fd_path(optarg, &fd, &path);
			posix_spawn_file_actions_addopen(&fa, fd, path,
				O_WRONLY | O_CREAT | O_TRUNC, 0644);
			break;
		case 'r':
			fd_path(optarg, &fd, &path);
			posix_spawn_file_actions_addopen(&fa, fd, path, O_RDONLY, 0);
			break;
		case 'd':
			posix_spawn_file_actions_adddup2(&fa, atoi(optarg),
				atoi(strchr(optarg, ':') + 1));
			break;
		case 'x': posix_spawn_file_actions_addclose(&fa, atoi(optarg)); break;
		case 'C': posix_spawn_file_actions_addchdir_np(&fa, optarg); break;
		case 'F':
			posix_spawn_file_actions_addfchdir_np(&fa,
				open(optarg, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
			break;
		case 'f': posix_spawn_file_actions_addclosefrom_np(&fa, atoi(optarg)); break;
		case 'k': at_fd(atoi(optarg), 0); break;
		case 'K': at_fd(atoi(optarg), 1); break;
		case 'm': sigaddset(&mask, atoi(optarg)); flags |= POSIX_SPAWN_SETSIGMASK; break;
		case 'D': sigaddset(&def, atoi(optarg)); flags |= POSIX_SPAWN_SETSIGDEF; break;
		case 'I': signal(atoi(optarg), SIG_IGN); break;
		case 'H':
			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = on_signal;
			sigaction(atoi(optarg), &sa, NULL);
			break;
		case 'B': sigaddset(&block, atoi(optarg)); break;
		case 'g': flags |= POSIX_SPAWN_SETPGROUP; break;
		case 's': flags |= POSIX_SPAWN_SETSID; break;
		case 'R': flags |= POSIX_SPAWN_RESETIDS; break;
		case 'w': thread_writes = atol(optarg); break;
		default: return 2;
		}
	}
	if (optind >= argc)
		return 2;
	sigprocmask(SIG_BLOCK, &block, NULL);
	posix_spawnattr_setsigmask(&attr, &mask);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setflags(&attr, flags);
	if (thread_writes > 0 &&
	    pthread_create(&thread, NULL, writer, (void *)thread_writes) != 0)
		return 125;
	r = (spawnp ? posix_spawnp : posix_spawn)(&pid, argv[optind], &fa, &attr,
						   argv + optind,
						   clean ? cleaned() : environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (thread_writes > 0)
		pthread_join(thread, NULL);
	if (r != 0) {
		printf("spawn: %s\n", strerror(r));
		return 1;
	}
	if (waitpid(pid, &status, 0) != pid)
		return 126;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* /proc/self/status's line KEY: its value. */
static void status_line(const char *key, const char *name)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, strlen(key)) == 0)
			printf("%s %s", name, line + strlen(key) + 1 +
			       strspn(line + strlen(key) + 1, " \t"));
	if (f != NULL)
		fclose(f);
}

static int report(int argc, char **argv)
{
	char buf[4096], link[64];
	long n = argc > 2 ? atol(argv[2]) : 0;
	int out;

	if (getcwd(buf, sizeof(buf)) != NULL)
		printf("cwd %s\n", buf);
	fflush(stdout);
	for (int fd = 0; fd < 64; fd++) {
		int flags = fcntl(fd, F_GETFD);
		ssize_t len;

		if (flags < 0)
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		len = readlink(link, buf, sizeof(buf) - 1);
		buf[len > 0 ? len : 0] = '\0';
		/* stdout's and stderr's targets are the caller's */
		printf("fd %d %s%s\n", fd, fd == 1 ? "(stdout)" :
		       fd == 2 ? "(stderr)" : buf,
		       (flags & FD_CLOEXEC) ? " cloexec" : "");
	}
	status_line("SigBlk:", "blocked");
	status_line("SigIgn:", "ignored");
	status_line("SigCgt:", "caught");
	printf("group-leader %d\n", getpgid(0) == getpid());
	printf("session-leader %d\n", getsid(0) == getpid());
	printf("euid %d egid %d\n", (int)geteuid(), (int)getegid());
	fflush(stdout);
	out = open("/dev/null", O_WRONLY);
	while (out >= 0 && n-- > 0)
		if (write(out, "x", 1) != 1)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "spawn") == 0)
		return spawn(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return report(argc, argv);
	fprintf(stderr, "usage: spawnstate spawn [OPTION...] PROGRAM [ARG...] | report [N]\n");
	return 2;
}

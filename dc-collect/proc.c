/*
 * proc.c - snapshots of processes and of the system, for the stream.
 *
 * Each traced process gets a PROCESS frame (dc-stream(5)) when it is
 * selected or execs, so readers can name tracks and files without
 * asking the machine later (a fork is described from its parent's, by
 * the collector).  The rank and the batch job (id, step, node list,
 * world size, local rank) come from the environment (jobinfo.h).  /proc
 * is read some time after the fact, while the process runs on: every
 * payload ends with the time its reading began, so a reader applies it
 * from then on, not to what the process did before.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/timex.h>
#include <time.h>
#include <sys/utsname.h>
#include <search.h>
#include <unistd.h>

#include "jobinfo.h"
#include "preload.h"
#include "proc.h"
#include "stream.h"

/* Read a whole small /proc file; returns bytes read or -1. */
static ssize_t read_file(const char *path, char *buf, size_t cap)
{
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)total < cap) {
		n = read(fd, buf + total, cap - (size_t)total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
	}
	close(fd);
	return total;
}

static uint64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The u64 that ends a PROCESS or FDS payload (dc_snapshot_taken). */
static size_t put_taken(unsigned char *buf, size_t cap, size_t pos,
			uint64_t taken)
{
	if (pos == 0 || pos + 8 > cap)
		return 0;
	memcpy(buf + pos, &taken, 8);
	return pos + 8;
}

static ssize_t read_link(const char *path, char *buf, size_t cap)
{
	ssize_t n = readlink(path, buf, cap - 1);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The process's /proc file NAME, whole (up to cap bytes); -1 if none. */
static ssize_t read_proc(pid_t pid, const char *name, char *buf, size_t cap)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	return read_file(path, buf, cap);
}

/* The process's /proc link NAME (exe, cwd), or "" if it has none. */
static void read_proc_link(pid_t pid, const char *name, char *buf, size_t cap)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	if (read_link(path, buf, cap) < 0)
		buf[0] = '\0';
}

/* Whether pid's program is still exe (as read_proc_link gave it). */
static bool same_program(pid_t pid, const char *exe)
{
	char now[4096];

	read_proc_link(pid, "exe", now, sizeof(now));
	return strcmp(now, exe) == 0;
}

/* Parent and ids from /proc/PID/status into rec; false if the process
 * is gone, or has exited but not been reaped: it has no memory, files or
 * cwd left to describe, so say nothing rather than blanks. */
static bool read_status(pid_t pid, struct dc_process_rec *rec)
{
	char text[8192];
	ssize_t n = read_proc(pid, "status", text, sizeof(text) - 1);
	char *p;

	if (n <= 0)
		return false;
	text[n] = '\0';
	if ((p = strstr(text, "\nPPid:")) != NULL)
		rec->ppid = (uint32_t)strtoul(p + 6, NULL, 10);
	if ((p = strstr(text, "\nUid:")) != NULL)
		rec->uid = (uint32_t)strtoul(p + 5, NULL, 10);
	if ((p = strstr(text, "\nGid:")) != NULL)
		rec->gid = (uint32_t)strtoul(p + 5, NULL, 10);
	if ((p = strstr(text, "\nState:")) != NULL) {
		p += 7;
		p += strspn(p, " \t");
		if (*p == 'Z' || *p == 'X')
			return false;
	}
	return true;
}

size_t dc_proc_record(pid_t pid, uint64_t since, uint32_t flags,
		      unsigned char *buf, size_t cap)
{
	uint64_t taken = now_mono_ns();
	struct dc_process_rec rec;
	char exe[4096], cwd[4096], job[1024];
	char *big;
	ssize_t n, cmdlen;
	size_t pos, joblen = 0;

	memset(&rec, 0, sizeof(rec));
	rec.pid = (uint32_t)pid;
	rec.rank = -1;
	rec.flags = flags;
	/* Described from now on, unless the caller knows the event it
	 * describes the process after (an exec). */
	rec.start_mono_ns = since != 0 ? since : taken;
	if (!read_status(pid, &rec) || cap < sizeof(rec))
		return 0;
	read_proc_link(pid, "exe", exe, sizeof(exe));
	read_proc_link(pid, "cwd", cwd, sizeof(cwd));

	big = malloc(65536);
	if (big == NULL)
		return 0;
	n = read_proc(pid, "environ", big, 65536);
	if (n > 0) {
		rec.rank = dc_job_rank(big, (size_t)n);
		joblen = dc_job_fields(big, (size_t)n, job, sizeof(job));
	}
	cmdlen = read_proc(pid, "cmdline", big, 65535);
	if (cmdlen < 0)
		cmdlen = 0;
	/* Drop the final NUL: arguments are NUL-separated. */
	if (cmdlen > 0 && big[cmdlen - 1] == '\0')
		cmdlen--;
	/* Its program read again, last: a process that exited (its memory
	 * gone: no program, no arguments) or execed while it was read is
	 * described by none of it, its parts being of different moments
	 * (a program without its arguments, seen under load). */
	if (!same_program(pid, exe)) {
		free(big);
		return 0;
	}

	memcpy(buf, &rec, sizeof(rec));
	pos = sizeof(rec);
	pos = dc_put_str(buf, cap, pos, exe, strlen(exe));
	if (pos)
		pos = dc_put_str(buf, cap, pos, big, (size_t)cmdlen);
	if (pos)
		pos = dc_put_str(buf, cap, pos, cwd, strlen(cwd));
	if (pos)
		pos = dc_put_str(buf, cap, pos, job, joblen);
	pos = put_taken(buf, cap, pos, taken);
	free(big);
	return pos;
}

size_t dc_fds_record(pid_t pid, unsigned char *buf, size_t cap)
{
	struct dc_fds_rec rec;
	char dir[64], link[320], target[4096];
	struct dirent *de;
	size_t pos = sizeof(rec);
	uint64_t taken = now_mono_ns();
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (d == NULL || cap < sizeof(rec)) {
		if (d)
			closedir(d);
		return 0;
	}
	memset(&rec, 0, sizeof(rec));
	rec.pid = (uint32_t)pid;
	while ((de = readdir(d)) != NULL) {
		int32_t fd;
		ssize_t n;
		size_t next;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		fd = (int32_t)atoi(de->d_name);
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		n = read_link(link, target, sizeof(target));
		/* Room for the time at the end stays. */
		if (n < 0 || pos + sizeof(fd) + 8 > cap)
			continue;
		memcpy(buf + pos, &fd, sizeof(fd));
		next = dc_put_str(buf, cap - 8, pos + sizeof(fd), target,
				  (size_t)n);
		if (next == 0)
			break; /* full: keep what fits */
		pos = next;
		rec.count++;
	}
	closedir(d);
	memcpy(buf, &rec, sizeof(rec));
	return put_taken(buf, cap, pos, taken);
}

/* Whether file (len bytes) is under /proc/self or /proc/thread-self: in
 * *skip, the length of that prefix. */
static bool proc_self(const char *file, size_t len, size_t *skip)
{
	static const char *const self[] = { "/proc/self", "/proc/thread-self" };
	size_t i, n;

	for (i = 0; i < sizeof(self) / sizeof(self[0]); i++) {
		n = strlen(self[i]);
		if (len >= n && memcmp(file, self[i], n) == 0 &&
		    (len == n || file[n] == '/')) {
			*skip = n;
			return true;
		}
	}
	return false;
}

bool dc_proc_runs(pid_t pid, const char *file, size_t len,
		  const unsigned char *payload, size_t plen)
{
	char path[PATH_MAX + 64], real[PATH_MAX];
	const char *exe;
	size_t el, skip;

	if (dc_get_str(payload, plen, sizeof(struct dc_process_rec), &exe,
		       &el) == 0 || len == 0 || len >= PATH_MAX)
		return true;
	/* No program at all: it has exited (a zombie keeps its /proc
	 * entry, not its program or arguments).  Its description would be
	 * empty where the EXEC record names the program. */
	if (el == 0)
		return false;
	/* fexecve and execveat name an fd: nothing to compare with. */
	if (len > 8 && memcmp(file, "/dev/fd/", 8) == 0)
		return true;
	/* /proc/self is the exec'ing process (busybox runs its applets
	 * through /proc/self/exe), not the collector that reads it; its
	 * exe there is whatever it runs now, so a second exec since
	 * cannot be told either. */
	if (proc_self(file, len, &skip))
		snprintf(path, sizeof(path), "/proc/%d%.*s", (int)pid,
			 (int)(len - skip), file + skip);
	else if (file[0] == '/')
		snprintf(path, sizeof(path), "%.*s", (int)len, file);
	else
		snprintf(path, sizeof(path), "/proc/%d/cwd/%.*s", (int)pid,
			 (int)len, file);
	/* A program that is gone cannot be compared either. */
	if (realpath(path, real) == NULL)
		return true;
	return strlen(real) == el && memcmp(real, exe, el) == 0;
}

/* ---- will it load the client library? ---- */

int dc_elf_interp(int fd, uint16_t *type)
{
	return dc_elf_interp_rd(fd, type, pread);
}

/* AT_SECURE in the process's auxiliary vector: set-user-ID, set-group-ID
 * or file capabilities; ld.so then ignores a preload named by a path. */
static int secure_exec(pid_t pid)
{
	uint64_t av[2 * 64];
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	n = read_file(path, (char *)av, sizeof(av));
	if (n <= 0)
		return -1;
	for (size_t i = 0; i + 1 < (size_t)n / sizeof(uint64_t); i += 2) {
		if (av[i] == AT_NULL)
			break;
		if (av[i] == AT_SECURE)
			return av[i + 1] != 0;
	}
	return 0;
}

/* Whether the program has an interpreter (ld.so): 1 yes, 0 no (a static
 * one: nothing loads a preload into it), 2 not a 64-bit ELF program,
 * -1 gone. */
static int dynamic_exec(pid_t pid)
{
	char path[64];
	uint16_t type;
	int fd, r;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = dc_elf_interp(fd, &type);
	close(fd);
	return r < 0 ? 2 : r;
}

/* Whether the environment the process exec'd with preloads lib. */
static int env_preloads(pid_t pid, const char *lib)
{
	char path[64], *var = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	while (!found && getdelim(&var, &cap, '\0', f) > 0)
		found = strncmp(var, "LD_PRELOAD=", 11) == 0 &&
			dc_preload_names(var + 11, lib);
	free(var);
	fclose(f);
	return found;
}

enum dc_preload dc_proc_preload(pid_t pid, const char *lib)
{
	int r = dynamic_exec(pid);

	if (r != 1)
		return r < 0 ? DC_PRELOAD_GONE :
		       r == 0 ? DC_PRELOAD_STATIC : DC_PRELOAD_FOREIGN;
	r = secure_exec(pid);
	if (r != 0)
		return r < 0 ? DC_PRELOAD_GONE : DC_PRELOAD_SECURE;
	r = env_preloads(pid, lib);
	if (r <= 0)
		return r < 0 ? DC_PRELOAD_GONE : DC_PRELOAD_NOT_NAMED;
	return DC_PRELOAD_YES;
}

enum dc_preload dc_file_preload(int fd)
{
	static const struct dc_file_ops ops = { pread, fstat };

	switch (dc_program_preload(fd, &ops)) {
	case DC_PROGRAM_STATIC:
		return DC_PRELOAD_STATIC;
	case DC_PROGRAM_SECURE:
		return DC_PRELOAD_SECURE;
	default:
		return DC_PRELOAD_YES;
	}
}

enum dc_preload dc_command_preload(const char *cmd, char *path, size_t len)
{
	char found[PATH_MAX];
	enum dc_preload r;
	int fd;

	if (!dc_find_program(cmd, getenv("PATH"), found, sizeof(found)) ||
	    len < PATH_MAX || realpath(found, path) == NULL)
		return DC_PRELOAD_YES;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return DC_PRELOAD_YES;
	r = dc_file_preload(fd);
	close(fd);
	return r;
}

const char *dc_preload_why(enum dc_preload p)
{
	switch (p) {
	case DC_PRELOAD_NOT_NAMED:
		return "its LD_PRELOAD does not name it";
	case DC_PRELOAD_SECURE:
		return "it runs set-user-ID, set-group-ID or with capabilities "
		       "(AT_SECURE), and ld.so ignores the preload";
	case DC_PRELOAD_STATIC:
		return "a static executable";
	case DC_PRELOAD_FOREIGN:
		return "not a 64-bit ELF program";
	default:
		return "it is gone";
	}
}

/* ---- descriptions kept for forks ---- */

struct desc {
	pid_t pid;
	size_t len;
	unsigned char *payload;
};

static int desc_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct desc *)a)->pid, y = ((const struct desc *)b)->pid;

	return (x > y) - (x < y);
}

static void desc_free(void *p)
{
	struct desc *e = p;

	free(e->payload);
	free(e);
}

void dc_descs_put(struct dc_descs *d, const unsigned char *payload,
		  size_t len)
{
	struct dc_process_rec rec;
	struct desc *e, **found;
	unsigned char *copy;

	if (len < sizeof(rec))
		return;
	memcpy(&rec, payload, sizeof(rec));
	e = malloc(sizeof(*e));
	copy = malloc(len);
	if (e == NULL || copy == NULL) {
		/* Without it a fork is described by its parent in the
		 * readers (dc-write), as before the frame existed. */
		free(e);
		free(copy);
		dc_descs_drop(d, (pid_t)rec.pid);
		return;
	}
	memcpy(copy, payload, len);
	e->pid = (pid_t)rec.pid;
	e->len = len;
	e->payload = copy;
	found = tsearch(e, &d->root, desc_cmp);
	if (found == NULL) {
		desc_free(e);
		dc_descs_drop(d, (pid_t)rec.pid);
	} else if (*found != e) {
		free((*found)->payload);
		(*found)->payload = copy;
		(*found)->len = len;
		free(e);
	}
}

size_t dc_descs_fork(struct dc_descs *d, pid_t parent, pid_t child,
		     uint64_t ts, unsigned char *buf, size_t cap)
{
	struct desc key = { .pid = parent }, **found;
	struct dc_process_rec rec;
	size_t len;

	found = tfind(&key, &d->root, desc_cmp);
	if (found == NULL || (*found)->len > cap)
		return 0;
	len = (*found)->len;
	memcpy(buf, (*found)->payload, len);
	memcpy(&rec, buf, sizeof(rec));
	rec.pid = (uint32_t)child;
	rec.ppid = (uint32_t)parent;
	rec.flags = DC_PROC_F_FORKED;
	rec.start_mono_ns = ts;
	memcpy(buf, &rec, sizeof(rec));
	/* Its facts are the parent's, true of the child at the fork. */
	if (dc_snapshot_taken(DC_FRAME_PROCESS, buf, len) != 0)
		memcpy(buf + len - 8, &ts, 8);
	dc_descs_put(d, buf, len);
	return len;
}

bool dc_descs_has(struct dc_descs *d, pid_t pid)
{
	struct desc key = { .pid = pid };

	return tfind(&key, &d->root, desc_cmp) != NULL;
}

void dc_descs_drop(struct dc_descs *d, pid_t pid)
{
	struct desc key = { .pid = pid }, **found;
	struct desc *e;

	found = tfind(&key, &d->root, desc_cmp);
	if (found == NULL)
		return;
	e = *found;
	tdelete(&key, &d->root, desc_cmp);
	desc_free(e);
}

void dc_descs_free(struct dc_descs *d)
{
	tdestroy(d->root, desc_free);
	d->root = NULL;
}

size_t dc_file_record(const char *path, unsigned char *buf, size_t cap)
{
	struct dc_file_rec rec;
	struct stat st;

	if (lstat(path, &st) != 0 || cap < sizeof(rec))
		return 0;
	memset(&rec, 0, sizeof(rec));
	rec.size = (uint64_t)st.st_size;
	rec.inode = (uint64_t)st.st_ino;
	rec.dev = (uint64_t)st.st_dev;
	rec.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	rec.mode = (uint32_t)st.st_mode;
	memcpy(buf, &rec, sizeof(rec));
	return dc_put_str(buf, cap, sizeof(rec), path, strlen(path));
}

static size_t put_pair(unsigned char *buf, size_t cap, size_t pos,
		       const char *key, const char *value)
{
	if (pos == 0)
		return 0;
	pos = dc_put_str(buf, cap, pos, key, strlen(key));
	if (pos == 0)
		return 0;
	return dc_put_str(buf, cap, pos, value, strlen(value));
}

/* The host's clocks, so traces of several hosts can be put on one time
 * line and the error of doing so is known: the monotonic-to-wall offset
 * now (the stream header has the one from the start), and the kernel's
 * NTP state as chrony, ntpd or timesyncd keep it (adjtimex(2) in read
 * mode needs no privilege): synchronised or not, and the estimated and
 * maximum error of the wall clock. */
static size_t put_clock(unsigned char *buf, size_t cap, size_t pos)
{
	struct timespec mono, wall;
	struct timex tx;
	char value[64];
	int state;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &wall);
	snprintf(value, sizeof(value), "%lld",
		 (long long)(wall.tv_sec - mono.tv_sec) * 1000000000LL +
		 (wall.tv_nsec - mono.tv_nsec));
	pos = put_pair(buf, cap, pos, "clock.offset_ns", value);
	memset(&tx, 0, sizeof(tx));
	state = adjtimex(&tx);
	if (state < 0)
		return pos;
	pos = put_pair(buf, cap, pos, "clock.ntp",
		       state == TIME_ERROR || (tx.status & STA_UNSYNC) ?
		       "unsynchronised" : "synchronised");
	snprintf(value, sizeof(value), "%ld", tx.esterror);
	pos = put_pair(buf, cap, pos, "clock.esterror_us", value);
	snprintf(value, sizeof(value), "%ld", tx.maxerror);
	pos = put_pair(buf, cap, pos, "clock.maxerror_us", value);
	return pos;
}

size_t dc_sysinfo_record(unsigned char *buf, size_t cap)
{
	struct utsname u;
	struct sysinfo si;
	char value[256];
	char *text;
	ssize_t n;
	size_t pos = 0;

	/* pos 0 doubles as the error value of dc_put_str, so start with a
	 * first pair written by hand. */
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	pos = dc_put_str(buf, cap, 0, "kernel", 6);
	if (pos == 0)
		return 0;
	snprintf(value, sizeof(value), "%s %s %s", u.sysname, u.release,
		 u.machine);
	pos = dc_put_str(buf, cap, pos, value, strlen(value));
	snprintf(value, sizeof(value), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	pos = put_pair(buf, cap, pos, "cpus", value);
	if (sysinfo(&si) == 0) {
		snprintf(value, sizeof(value), "%llu",
			 (unsigned long long)si.totalram * si.mem_unit);
		pos = put_pair(buf, cap, pos, "memory_bytes", value);
	}
	pos = put_clock(buf, cap, pos);
	text = malloc(65536);
	if (text == NULL)
		return pos;
	n = read_file("/proc/partitions", text, 65535);
	if (n > 0) {
		text[n] = '\0';
		pos = put_pair(buf, cap, pos, "partitions", text);
	}
	n = read_file("/proc/self/mounts", text, 65535);
	if (n > 0) {
		text[n] = '\0';
		pos = put_pair(buf, cap, pos, "mounts", text);
	}
	free(text);
	return pos;
}

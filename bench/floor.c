/*
 * dc-floor - run a command with empty BPF programs on the given
 * tracepoints: the floor every benchmark of a kernel layer is compared
 * with (bench/run).
 *
 *   dc-floor [-t CAT:NAME]... [-r NAME]... -- COMMAND [ARG]...
 *
 * -r attaches the empty raw-tracepoint program (sys_enter, sys_exit),
 * -b the empty BTF-typed one on sys_enter (as dc-collect's entries where
 * the kernel has tp_btf), -t the empty classic-tracepoint program.  The command's exit status is
 * dc-floor's.  With kernel.bpf_stats_enabled set, the programs' runs and
 * nanoseconds per run are printed on stderr at the end, one line each:
 *   floor: raw_tp runs=N ns_per_run=X
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "floor.skel.h"

#define MAX_LINKS 64

struct floor {
	struct floor_bpf *skel;
	struct bpf_link *links[MAX_LINKS];
	int nlinks;
};

static void usage(FILE *f, int status)
{
	fprintf(f, "usage: dc-floor [-b] [-t CAT:NAME]... [-r NAME]... -- COMMAND [ARG]...\n");
	exit(status);
}

static void add_link(struct floor *fl, struct bpf_link *l, const char *what)
{
	if (l == NULL) {
		fprintf(stderr, "dc-floor: cannot attach %s: %s\n", what,
			strerror(errno));
		exit(1);
	}
	if (fl->nlinks == MAX_LINKS) {
		fprintf(stderr, "dc-floor: more than %d tracepoints\n", MAX_LINKS);
		exit(2);
	}
	fl->links[fl->nlinks++] = l;
}

static void attach_tp(struct floor *fl, const char *spec)
{
	char cat[128];
	const char *colon = strchr(spec, ':');

	if (colon == NULL || (size_t)(colon - spec) >= sizeof(cat)) {
		fprintf(stderr, "dc-floor: -t %s: not CATEGORY:NAME\n", spec);
		exit(2);
	}
	memcpy(cat, spec, (size_t)(colon - spec));
	cat[colon - spec] = '\0';
	add_link(fl, bpf_program__attach_tracepoint(fl->skel->progs.floor_tp,
						    cat, colon + 1), spec);
}

static void report(struct bpf_program *prog, const char *name)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) != 0 ||
	    info.run_cnt == 0)
		return;
	fprintf(stderr, "floor: %s runs=%llu ns_per_run=%.1f\n", name,
		(unsigned long long)info.run_cnt,
		(double)info.run_time_ns / (double)info.run_cnt);
}

int main(int argc, char **argv)
{
	struct floor fl = { 0 };
	int opt, status, i;
	pid_t pid;

	fl.skel = floor_bpf__open_and_load();
	if (fl.skel == NULL) {
		fprintf(stderr, "dc-floor: cannot load the BPF object: %s\n",
			strerror(errno));
		return 1;
	}
	while ((opt = getopt(argc, argv, "hbt:r:")) != -1) {
		switch (opt) {
		case 'b':
			add_link(&fl, bpf_program__attach(fl.skel->progs.floor_btf),
				 "tp_btf/sys_enter");
			break;
		case 't':
			attach_tp(&fl, optarg);
			break;
		case 'r':
			add_link(&fl, bpf_program__attach_raw_tracepoint(
					 fl.skel->progs.floor_raw, optarg),
				 optarg);
			break;
		case 'h':
			usage(stdout, 0);
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (optind >= argc)
		usage(stderr, 2);
	pid = fork();
	if (pid < 0) {
		perror("dc-floor: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "dc-floor: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("dc-floor: waitpid");
		return 1;
	}
	report(fl.skel->progs.floor_btf, "tp_btf");
	report(fl.skel->progs.floor_raw, "raw_tp");
	report(fl.skel->progs.floor_tp, "tp");
	for (i = 0; i < fl.nlinks; i++)
		bpf_link__destroy(fl.links[i]);
	floor_bpf__destroy(fl.skel);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

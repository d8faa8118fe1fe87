/*
 * dc-floor - run a command with empty BPF programs on the given
 * tracepoints: the floor every benchmark of a kernel layer is compared
 * with (bench/kernel-bench.sh).
 *
 *   dc-floor [-R BYTES] [-b NAME]... [-r NAME]... [-t CAT:NAME]... -- COMMAND [ARG]...
 *
 * -b attaches the empty BTF-typed raw-tracepoint program (tp_btf) to NAME,
 * -r the empty raw-tracepoint program, -t the empty classic-tracepoint
 * program: each the way dc-collect attaches its own there.  With -R,
 * each program writes a record of BYTES (8, 40 or 104) into a ring
 * buffer at every run, which dc-floor reads every 10 ms (records the
 * full ring refused are counted: "floor: dropped=N"): the cost of a
 * record alone.  With
 * kernel.bpf_stats_enabled set, each kind's runs and nanoseconds per run
 * are printed on stderr at the end, one line each:
 *   floor: raw_tp runs=N ns_per_run=X
 * and one line for each -b NAME's own program, "floor: tp_btf:NAME ...".
 *
 * Exit status: the command's (128 + the signal that ended it); 1 if the
 * programs cannot be loaded or attached or the command not run; 2 for bad
 * options.  Built for the benchmarks, never installed.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "messages.h"
#include "floor.skel.h"

#define MAX_LINKS 64 /* of each kind; 3 * MAX_LINKS in all */

struct floor {
	struct floor_bpf *skel;             /* raw_tp and tp; its ring is
	                                       every object's */
	struct ring_buffer *rb;             /* -R: the ring's reader */
	struct floor_bpf *btf[MAX_LINKS];   /* tp_btf: one per target */
	struct bpf_link *links[3 * MAX_LINKS];
	int nbtf, nlinks;
};

static const char usage_text[] =
	"usage: dc-floor [OPTION]... -- COMMAND [ARG]...\n"
	"Run COMMAND with empty BPF programs attached: what any tracer of the\n"
	"same tracepoints pays before doing anything.\n"
	"\n"
	"  -b, --btf NAME          the empty BTF-typed (tp_btf) program on NAME\n"
	"  -r, --raw NAME          the empty raw-tracepoint program on NAME\n"
	"  -t, --tracepoint CAT:NAME  the empty classic-tracepoint program\n"
	"  -R, --record BYTES      each program also writes a record of BYTES\n"
	"                          (8, 40 or 104) into a ring buffer\n"
	"  -h, --help              print this help and exit\n"
	"  -V, --version           print the version and exit\n"
	"\n"
	"With kernel.bpf_stats_enabled, each program's runs and ns per run\n"
	"are printed on stderr at the end.  Exit status: COMMAND's; 1 if the\n"
	"programs or the command could not be run; 2 for bad options.\n";

/* What to attach, from the options. */
struct floor_opts {
	const char *btf[MAX_LINKS];     /* -b NAME */
	const char *raw[MAX_LINKS];     /* -r NAME */
	const char *tp[MAX_LINKS];      /* -t CAT:NAME */
	int nbtf, nraw, ntp;
};

/* -R: bytes of each run's record, 0 for none (the empty programs). */
static unsigned record_bytes;

/* The programs attached: the empty ones, or those writing a record. */
static struct bpf_program *prog_raw(struct floor_bpf *skel)
{
	return record_bytes ? skel->progs.floor_raw_rec : skel->progs.floor_raw;
}

static struct bpf_program *prog_tp(struct floor_bpf *skel)
{
	return record_bytes ? skel->progs.floor_tp_rec : skel->progs.floor_tp;
}

static struct bpf_program *prog_btf(struct floor_bpf *skel)
{
	return record_bytes ? skel->progs.floor_btf_rec : skel->progs.floor_btf;
}

static void add_name(const char **names, int *n, const char *name)
{
	if (*n == MAX_LINKS)
		dc_usage_error("more than %d tracepoints of a kind", MAX_LINKS);
	names[(*n)++] = name;
}

/* Parse the options into *o; returns the command's index. */
static int parse_options(struct floor_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "btf", required_argument, NULL, 'b' },
		{ "raw", required_argument, NULL, 'r' },
		{ "tracepoint", required_argument, NULL, 't' },
		{ "record", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "+b:t:r:R:hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			add_name(o->btf, &o->nbtf, optarg);
			break;
		case 't':
			if (strchr(optarg, ':') == NULL)
				dc_usage_error("-t %s: not CATEGORY:NAME", optarg);
			add_name(o->tp, &o->ntp, optarg);
			break;
		case 'r':
			add_name(o->raw, &o->nraw, optarg);
			break;
		case 'R':
			record_bytes = (unsigned)strtoul(optarg, NULL, 10);
			if (record_bytes != 8 && record_bytes != 40 &&
			    record_bytes != 104)
				dc_usage_error("-R %s: not 8, 40 or 104", optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'V':
			dc_print_version();
		default:
			dc_try_help();
		}
	}
	if (optind >= argc)
		dc_usage_error("no command to run");
	return optind;
}

static void add_link(struct floor *fl, struct bpf_link *l, const char *what)
{
	if (l == NULL)
		sysdie("cannot attach %s", what);
	fl->links[fl->nlinks++] = l;
}

static void attach_tp(struct floor *fl, const char *spec)
{
	char cat[128];
	const char *colon = strchr(spec, ':');

	if ((size_t)(colon - spec) >= sizeof(cat))
		dc_usage_error("-t %s: category too long", spec);
	memcpy(cat, spec, (size_t)(colon - spec));
	cat[colon - spec] = '\0';
	add_link(fl, bpf_program__attach_tracepoint(prog_tp(fl->skel),
						    cat, colon + 1), spec);
}

/* The object with its tp_btf program alone, aimed at target (a tp_btf
 * program's target is part of what is loaded), or with the others alone
 * when target is NULL; its ring first's, if any (one ring for all). */
static struct floor_bpf *load_one(const char *target,
				  struct floor_bpf *first)
{
	struct floor_bpf *skel = floor_bpf__open();
	struct bpf_program *p;

	if (skel == NULL)
		sysdie("cannot open the BPF object");
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	bpf_program__set_autoload(prog_btf(skel), target != NULL);
	bpf_program__set_autoload(prog_raw(skel), target == NULL);
	bpf_program__set_autoload(prog_tp(skel), target == NULL);
	skel->rodata->record_bytes = record_bytes;
	/* Without records, the smallest ring: none is written. */
	if (!record_bytes && bpf_map__set_max_entries(skel->maps.ring, 4096))
		sysdie("cannot size the ring");
	if (first && bpf_map__reuse_fd(skel->maps.ring,
				       bpf_map__fd(first->maps.ring)))
		sysdie("cannot share the ring");
	if (target && bpf_program__set_attach_target(prog_btf(skel), 0, target))
		sysdie("tp_btf %s", target);
	if (floor_bpf__load(skel))
		sysdie("cannot load the BPF object%s%s", target ? " for tp_btf " : "",
		       target ? target : "");
	return skel;
}

/* -R: a record read, as dc-collect reads one (its size checked). */
static int on_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	return size == record_bytes ? 0 : -EINVAL;
}

/* Load the empty programs and attach them where *o says. */
static void attach_all(struct floor *fl, const struct floor_opts *o)
{
	int i;

	fl->skel = load_one(NULL, NULL);
	for (i = 0; i < o->nbtf; i++) {
		fl->btf[i] = load_one(o->btf[i], fl->skel);
		fl->nbtf++;
		add_link(fl, bpf_program__attach(prog_btf(fl->btf[i])),
			 o->btf[i]);
	}
	for (i = 0; i < o->nraw; i++)
		add_link(fl, bpf_program__attach_raw_tracepoint(
				 prog_raw(fl->skel), o->raw[i]),
			 o->raw[i]);
	if (record_bytes) {
		fl->rb = ring_buffer__new(bpf_map__fd(fl->skel->maps.ring),
					  on_record, NULL, NULL);
		if (fl->rb == NULL)
			sysdie("cannot read the ring");
	}
	for (i = 0; i < o->ntp; i++)
		attach_tp(fl, o->tp[i]);
}

/* The runs and run time of n programs, summed, as one line named name. */
static void report(struct bpf_program **progs, int n, const char *name)
{
	unsigned long long runs = 0, ns = 0;
	struct bpf_prog_info info;
	__u32 len;
	int i;

	for (i = 0; i < n; i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info,
					   &len) != 0)
			continue;
		runs += info.run_cnt;
		ns += info.run_time_ns;
	}
	if (runs)
		fprintf(stderr, "floor: %s runs=%llu ns_per_run=%.1f\n", name,
			runs, (double)ns / (double)runs);
}

/* Run argv[0] to its end: its wait status; the ring rb (if any) read
 * every 10 ms meanwhile, and at the end. */
static int run_command(char **argv, struct ring_buffer *rb)
{
	int status, n;
	pid_t pid = fork(), w;

	if (pid < 0)
		sysdie("fork");
	if (pid == 0) {
		execvp(argv[0], argv);
		syswarn("%s", argv[0]);
		_exit(127);
	}
	while ((w = waitpid(pid, &status, rb ? WNOHANG : 0)) == 0) {
		if ((n = ring_buffer__consume(rb)) < 0)
			die("reading the ring failed: %s", strerror(-n));
		usleep(10000);
	}
	if (w < 0)
		sysdie("waitpid");
	if (rb && (n = ring_buffer__consume(rb)) < 0)
		die("reading the ring failed: %s", strerror(-n));
	return status;
}

int main(int argc, char **argv)
{
	struct floor_opts o = { 0 };
	struct bpf_program *btf[MAX_LINKS];
	struct floor fl = { 0 };
	int cmd, status, i;

	dc_messages_init(argv[0]);
	cmd = parse_options(&o, argc, argv);
	attach_all(&fl, &o);
	status = run_command(argv + cmd, fl.rb);
	for (i = 0; i < fl.nbtf; i++)
		btf[i] = prog_btf(fl.btf[i]);
	report(btf, fl.nbtf, "tp_btf");
	/* And each tp_btf target's own (its program is its own): a program
	 * that runs rarely, each run meeting cold caches, is compared with
	 * the empty program's runs at the same moments, not with the mean
	 * of every target's, which the frequent ones make. */
	for (i = 0; i < fl.nbtf; i++) {
		char name[128];

		snprintf(name, sizeof(name), "tp_btf:%s", o.btf[i]);
		report(&btf[i], 1, name);
	}
	{
		struct bpf_program *raw = prog_raw(fl.skel), *tp = prog_tp(fl.skel);

		report(&raw, 1, "raw_tp");
		report(&tp, 1, "tp");
	}
	if (fl.rb)
		fprintf(stderr, "floor: dropped=%llu\n",
			(unsigned long long)fl.skel->bss->dropped);
	ring_buffer__free(fl.rb);
	for (i = 0; i < fl.nlinks; i++)
		bpf_link__destroy(fl.links[i]);
	for (i = 0; i < fl.nbtf; i++)
		floor_bpf__destroy(fl.btf[i]);
	floor_bpf__destroy(fl.skel);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

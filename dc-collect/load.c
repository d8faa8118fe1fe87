/*
 * load.c - from the signed spec to loaded BPF programs: verify the spec,
 * plan what each probe needs from this kernel (decided once, here), open
 * the skeleton with only the programs the plan needs, load it and fill
 * the probe tables.  --check-kernel loads and attaches a test program the
 * same way.
 */
#include "config.h"

#include <errno.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include "collector.h"
#include "elfsyms.h"
#include "klayers.h"
#include "messages.h"
#include "numbers.h"
#include "sign.h"
#include "umulti.h"

/* The user the signed summary names: the run's output belongs to them. */
static uid_t signer_uid(json_t *summary)
{
	json_t *uid = json_object_get(summary, "uid");

	if (!json_is_integer(uid) || json_integer_value(uid) < 0)
		return (uid_t)-1;
	return (uid_t)json_integer_value(uid);
}

struct dc_spec *load_spec(const struct options *o, uid_t *owner)
{
	char err[512];
	int status = DC_EXIT_FAILURE;
	json_t *spec_json, *summary = NULL;
	struct dc_spec *spec;

	spec_json = dc_verify_file(o->spec_path, o->key_path, &summary, err,
				   sizeof(err), &status);
	if (spec_json == NULL)
		die_status(status, "%s", err);
	*owner = signer_uid(summary);
	json_decref(summary);
	spec = dc_spec_from_json(spec_json, err, sizeof(err));
	json_decref(spec_json);
	if (spec == NULL)
		die_status(DC_EXIT_BADINPUT, "%s: %s", o->spec_path, err);
	if (spec->nprobes + DC_IPROBE_COUNT > DC_MAX_PROBES)
		die_status(DC_EXIT_BADINPUT, "%s: %zu probes, more than the %d this collector holds",
			   o->spec_path, spec->nprobes, DC_MAX_PROBES - DC_IPROBE_COUNT);
	return spec;
}

int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && dc_verbose < 2)
		return 0;
	if (level == LIBBPF_INFO && dc_verbose < 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}


bool spec_has_kind(const struct dc_spec *spec, enum dc_probe_kind kind)
{
	size_t i;

	for (i = 0; i < spec->nprobes; i++)
		if (spec->probes[i].kind == kind)
			return true;
	return false;
}

static bool block_group_ready(void)
{
	return dc_tracepoint_exists("block:block_bio_queue") &&
	       dc_tracepoint_exists("block:block_rq_issue") &&
	       dc_tracepoint_exists("block:block_rq_complete");
}

/* The block programs work as one (collect.bpf.c): the three that every
 * kernel has, and those that follow splits and merges where this one
 * has them (without them, split requests would be emitted as unknown). */
static void need_block_group(struct collector *c)
{
	static const int follow[] = {
		DC_TP_BLOCK_SPLIT, DC_TP_BIO_BACKMERGE, DC_TP_BIO_FRONTMERGE
	};

	c->tp_needed[DC_TP_BIO_QUEUE] = c->tp_needed[DC_TP_BLOCK_ISSUE] =
		c->tp_needed[DC_TP_BLOCK_COMPLETE] = true;
	for (size_t i = 0; i < sizeof(follow) / sizeof(follow[0]); i++)
		if (dc_tracepoint_exists(dc_klayer_by_tp(follow[i])->name))
			c->tp_needed[follow[i]] = true;
}

/* Decide, once, what every probe needs and whether this kernel has it.
 * Decoded tracepoints take their argument plan from klayers.c. */
void plan_probes(struct collector *c)
{
	unsigned kfuncs = 0;
	size_t i;

	c->skip = xcalloc(c->spec->nprobes + 1, sizeof(bool));
	c->kfuncs.method = dc_features_kfunc_method(&c->feat);
	c->kfuncs.kprobes = c->feat.kprobes && c->feat.cookie;
	if (spec_has_kind(c->spec, DC_PROBE_TRACEPOINT) && dc_tracefs_ready() != 0)
		syswarn("cannot mount tracefs on /sys/kernel/tracing");
	for (i = 0; i < c->spec->nprobes; i++) {
		struct dc_probe *p = &c->spec->probes[i];
		const struct dc_klayer *k;

		switch (p->kind) {
		case DC_PROBE_TRACEPOINT:
			if (!dc_tracepoint_exists(p->function)) {
				warn("tracepoint %s: not in this kernel, skipped",
				     p->function);
				c->skip[i] = true;
				break;
			}
			k = dc_klayer_find(p->function);
			if (k == NULL) {
				c->generic_tp = true;
				break;
			}
			if (k->block && !block_group_ready()) {
				warn("tracepoint %s: this kernel lacks block:block_bio_queue, "
				     "block_rq_issue or block_rq_complete; skipped",
				     p->function);
				c->skip[i] = true;
				break;
			}
			c->tp_needed[k->tp] = true;
			/* Readahead counts the pages it adds (collect.bpf.c). */
			if (k->tp == DC_TP_RA_SYNC || k->tp == DC_TP_RA_ASYNC)
				c->tp_needed[DC_TP_PC_ADD] = true;
			if (k->block)
				need_block_group(c);
			p->nargs = k->nargs;
			memcpy(p->arg_kinds, k->arg_kinds, sizeof(k->arg_kinds));
			p->ret_kind = k->ret_kind;
			break;
		case DC_PROBE_KFUNC:
			if (c->kfuncs.method == DC_KFUNC_NONE) {
				c->skip[i] = true;
				kfuncs++;
			}
			break;
		case DC_PROBE_USDT:
			c->usdt = true;
			break;
		default:
			break;
		}
	}
	/* One line for the fallback, not one per probe. */
	if (kfuncs > 0)
		warn("%u kernel-function probes skipped: kprobes unavailable and "
		     "fentry refused here; trace kernel layers with tracepoints "
		     "(dc-gen's kernel config)", kfuncs);
}

/* The mount point of the cgroup v2 hierarchy that holds path, into root. */
static bool cgroup2_root(const char *path, char *root, size_t len)
{
	FILE *m = setmntent("/proc/self/mounts", "r");
	struct mntent *e;
	size_t best = 0;

	if (m == NULL)
		return false;
	while ((e = getmntent(m)) != NULL) {
		size_t l = strlen(e->mnt_dir);

		if (strcmp(e->mnt_type, "cgroup2") != 0 || l <= best ||
		    strncmp(path, e->mnt_dir, l) != 0 ||
		    (path[l] != '/' && path[l] != '\0' && l > 1))
			continue;
		if (l >= len)
			continue;
		memcpy(root, e->mnt_dir, l + 1);
		best = l;
	}
	endmntent(m);
	return best > 0;
}

/* A cgroup v2 directory's id is its inode number; its level is its depth
 * below the root of the hierarchy. */
static void cgroup_target(const char *path, __u64 *id, __u32 *level)
{
	char real[PATH_MAX], root[PATH_MAX];
	struct stat st;
	const char *p;

	if (realpath(path, real) == NULL || stat(real, &st) != 0)
		sysdie("cgroup %s", path);
	if (!S_ISDIR(st.st_mode))
		die("cgroup %s: not a directory", path);
	if (!cgroup2_root(real, root, sizeof(root)))
		die("cgroup %s: not in a cgroup v2 hierarchy (mount -t cgroup2)",
		    path);
	*id = (__u64)st.st_ino;
	*level = 0;
	for (p = real + strlen(root); *p; p++)
		if (*p == '/' && p[1] != '\0')
			(*level)++;
}

/* Where the verifier takes no global function with pointer arguments
 * (kfeatures.c decides), derive_exit is marked static in the object's
 * BTF before it loads: the same instructions, checked again inside each
 * exit program that calls it (slower to load, as libbpf does for a
 * hidden function).  Said in one line. */
static void derive_exit_static(struct collect_bpf *skel)
{
	struct btf *btf = bpf_object__btf(skel->obj);
	struct btf_type *t;
	int id;

	id = btf ? btf__find_by_name_kind(btf, "derive_exit", BTF_KIND_FUNC) : -1;
	if (id < 0)
		die("the BPF object has no BTF for derive_exit");
	t = (struct btf_type *)btf__type_by_id(btf, (__u32)id);
	t->info = (__u32)BTF_KIND_FUNC << 24 | BTF_FUNC_STATIC;
	warn("this kernel's verifier takes no global functions with pointer "
	     "arguments: the exit programs check derive_exit inline (slower to start)");
}

/* -vv: the verifier's statistics for each program (instructions it
 * processed, its time), which are most of the time to start.  Only them:
 * a program refused would show no reason, so -vvv leaves libbpf to ask
 * for the verifier's whole log of a program it refuses. */
static void verifier_stats(struct collect_bpf *skel)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_log_level(prog, 4);
}

/* The uprobes' two sets of programs, the same code verified twice (most
 * of the time to start): the multi-uprobe link's (one link per library,
 * 6.6 and later) and the per-function one (one link per function: where
 * the kernel has no multi link, with --attach single, and for the
 * tracefs events of --process-uprobes).  Only the set used is loaded. */
static void uprobe_programs(struct collect_bpf *skel, bool multi, bool single)
{
	bpf_program__set_autoload(skel->progs.dc_uprobe_entry, single);
	bpf_program__set_autoload(skel->progs.dc_uprobe_exit, single);
	bpf_program__set_autoload(skel->progs.dc_umulti_entry, multi);
	bpf_program__set_autoload(skel->progs.dc_umulti_exit, multi);
	if (!multi)
		return;
	bpf_program__set_expected_attach_type(skel->progs.dc_umulti_entry,
					      DC_BPF_TRACE_UPROBE_MULTI);
	bpf_program__set_expected_attach_type(skel->progs.dc_umulti_exit,
					      DC_BPF_TRACE_UPROBE_MULTI);
}

/* Programs nobody needs are not loaded at all. */
static void choose_programs(const struct collector *c, struct collect_bpf *skel)
{
	bool syscalls = spec_has_kind(c->spec, DC_PROBE_SYSCALL);
	bool uprobes = spec_has_kind(c->spec, DC_PROBE_UPROBE);

	if (!syscalls) {
		bpf_program__set_autoload(skel->progs.dc_sys_enter, false);
		bpf_program__set_autoload(skel->progs.dc_sys_exit, false);
	}
	/* One of the two exit programs: the one whose records go into the
	 * CPUs' batches where they may (kfeatures.c). */
	bpf_program__set_autoload(c->sys_batch ? skel->progs.dc_sys_exit
					       : skel->progs.dc_sys_exit_batch,
				  false);
	/* One of the two entry programs: the one reading the registers in
	 * place where the kernel has tp_btf. */
	if (!syscalls || !c->feat.tp_btf)
		bpf_program__set_autoload(skel->progs.dc_sys_enter_btf, false);
	if (c->feat.tp_btf)
		bpf_program__set_autoload(skel->progs.dc_sys_enter, false);
	if (c->opt.mode != SEL_CLIENTS)
		bpf_program__set_autoload(skel->progs.dc_client_register, false);
	if (!c->want_fast) {
		bpf_program__set_autoload(skel->progs.dc_client_quiet, false);
		bpf_program__set_autoload(skel->progs.dc_fallback_entry, false);
		bpf_program__set_autoload(skel->progs.dc_fallback_exit, false);
	}
	dc_klayers_aim(skel, dc_features_klayers_btf(&c->feat));
	for (int tp = 0; tp < DC_TP_COUNT; tp++)
		if (!c->tp_needed[tp])
			bpf_program__set_autoload(dc_klayer_prog(skel, tp), false);
	if (!c->generic_tp)
		bpf_program__set_autoload(skel->progs.dc_tp_generic, false);
	if (!c->usdt)
		bpf_program__set_autoload(skel->progs.dc_usdt, false);
	uprobe_programs(skel, uprobes && c->feat.umulti,
			uprobes && (!c->feat.umulti || c->opt.process_uprobes));
}

bool test_hook(const char *name, long long lo, long long hi, long long *n)
{
	const char *v = getenv(name);

	if (v == NULL)
		return false;
	if (!dc_parse_int(v, lo, hi, n))
		die("%s=%s: not a number from %lld to %lld", name, v, lo, hi);
	return true;
}

/* Tables a test makes smaller, not options (so no usage error: the
 * collector's own exit 1), each 2^N entries or sets:
 * DC_TEST_BLOCK_SET_BITS=N the in-flight bio table's sets, not 2^11, so
 * that a test fills a set at will and sees its evicted bios' completions
 * counted (tracepoints.bpf.h); DC_TEST_STACK_SLOTS=N the threads' stack
 * slots, not 2^10, so that threads whose slot another holds keep their
 * stacks in task storage (stack.bpf.h).  *bits: the most, then N. */
static void test_bits(const char *name, __u32 *bits)
{
	long long n;

	if (test_hook(name, 0, *bits, &n))
		*bits = (__u32)n;
}

void open_and_load(struct collector *c)
{
	struct collect_bpf *skel;
	int err;

	skel = collect_bpf__open();
	if (skel == NULL)
		sysdie("cannot open the BPF object");
	skel->rodata->self_tgid = (__u32)getpid();
	skel->rodata->trace_all = c->opt.mode == SEL_ALL;
	skel->rodata->internal_base = c->internal_base;
	skel->rodata->profile_mode = c->spec->mode == DC_MODE_PROFILE;
	skel->rodata->follow_ra = c->tp_needed[DC_TP_RA_SYNC] ||
				  c->tp_needed[DC_TP_RA_ASYNC];
	skel->rodata->fast_path = c->want_fast;
	skel->rodata->batching = c->batching;
	/* The classic block programs remember every bio; the tp_btf ones
	 * the selected processes' only (block.bpf.h). */
	skel->rodata->block_every_bio = !dc_features_klayers_btf(&c->feat);
	bpf_program__set_autoload(skel->progs.dc_batch_flush, c->batching);
	test_bits("DC_TEST_BLOCK_SET_BITS", &skel->rodata->block_set_bits);
	test_bits("DC_TEST_STACK_SLOTS", &skel->rodata->stack_slot_bits);
	skel->rodata->wakeup_bytes = c->opt.wakeup ? c->opt.wakeup
						   : c->opt.ring_size / 16;
	if (c->opt.mode == SEL_CGROUP) {
		__u64 id;
		__u32 level;

		cgroup_target(c->opt.cgroup, &id, &level);
		skel->rodata->cgroup_id = id;
		skel->rodata->cgroup_level = level;
	}
	err = bpf_map__set_max_entries(skel->maps.events,
				       (__u32)c->opt.ring_size);
	if (err)
		die("cannot size the ring buffer: %s", strerror(-err));
	/* Per-CPU maps cost their size times the CPUs to create: the
	 * drops per probe for this spec's probes and the internal ones
	 * (output.c reads no more), the profile's sums only in profile
	 * mode (a preallocated hash of DC_MAX_PROFILE, tens of ms here). */
	bpf_map__set_max_entries(skel->maps.probe_drops,
				 c->internal_base + DC_IPROBE_COUNT);
	if (c->spec->mode != DC_MODE_PROFILE)
		bpf_map__set_max_entries(skel->maps.profile, 1);
	choose_programs(c, skel);
	dc_kfuncs_prepare(&c->kfuncs, skel, c->spec, c->skip);
	if (!c->feat.global_args)
		derive_exit_static(skel);
	if (dc_verbose == 2)
		verifier_stats(skel);
	err = collect_bpf__load(skel);
	if (err)
		die("cannot load the BPF programs: %s (run with -vvv for the "
		    "verifier's log)", strerror(-err));
	c->skel = skel;
}

/* An argument kind as the BPF programs see it.  A pipe's or a
 * socketpair's int[2] is read as a handle stored through a pointer is:
 * the 8 bytes there at return, both descriptors (lib/event.h,
 * DC_ARG_FDPAIR); readers get the spec's kind in the PROBE frame. */
static __u8 bpf_kind(__u8 kind)
{
	return kind == DC_ARG_FDPAIR ? DC_ARG_HANDLE_OUT : kind;
}

/* Which of the BPF programs' read-through steps an argument kind needs. */
static __u8 derive_of(__u8 kind)
{
	switch (kind) {
	case DC_ARG_HANDLE_IN:
	case DC_ARG_FILE:
	case DC_ARG_STDOUT:
	case DC_ARG_STDIN:
	case DC_ARG_AIOCB:
		return DC_DERIVE_ENTRY;
	case DC_ARG_IOV:
	case DC_ARG_STRLEN:
	case DC_ARG_STROUT:
	case DC_ARG_DATATYPE:
	case DC_ARG_MPISTATUS:
	case DC_ARG_HANDLE_OUT:
		return DC_DERIVE_EXIT;
	}
	return 0;
}

/* The library last read for stream_rel (most probes with a stream are
 * libc's). */
struct elf_cache {
	char *path;
	struct dc_elf *elf;  /* NULL: could not be read */
};

/* Where a uprobe's program finds libc's stdout or stdin: the variable's
 * address less the probed function's, as the library's symbols have them
 * (a shared library is mapped at one base, and the program knows the
 * function's address at its entry).  0, with a warning, where the
 * library has no such variable: the slot's stream goes unnamed. */
static __s64 stream_rel(const struct dc_probe *p, __u8 kind,
			struct elf_cache *ec)
{
	const char *var = kind == DC_ARG_STDOUT ? "stdout" : "stdin";
	const struct dc_elf_object *o;
	const struct dc_elf_func *f;
	char err[256];

	if (ec->path == NULL || strcmp(ec->path, p->target) != 0) {
		free(ec->path);
		dc_elf_free(ec->elf);
		ec->path = xstrdup(p->target);
		if (dc_elf_open(p->target, &ec->elf, err, sizeof(err)) != 0) {
			warn("%s: the stdout and stdin its probes use go unnamed",
			     err);
			ec->elf = NULL;
		}
	}
	if (ec->elf == NULL)
		return 0;
	o = dc_elf_find_object(ec->elf, var);
	f = dc_elf_func_at(ec->elf, p->offset);
	if (o == NULL || f == NULL) {
		warn("probe %s: %s has no %s: the stream it uses goes unnamed",
		     p->function, p->target, o == NULL ? var : "such function");
		return 0;
	}
	return (__s64)(o->address - f->address);
}

/* The BPF programs' view of probe p (index i). */
static void probe_cfg_of(struct collector *c, size_t i,
			 struct dc_probe_cfg *cfg, struct elf_cache *ec)
{
	const struct dc_probe *p = &c->spec->probes[i];
	bool has_file = false;
	int a;

	memset(cfg, 0, sizeof(*cfg));
	cfg->nargs = (__u8)p->nargs;
	cfg->ret_kind = p->ret_kind;
	cfg->str_arg = cfg->str_arg2 = DC_NO_STR_ARG;
	for (a = 0; a < p->nargs; a++) {
		cfg->arg_kinds[a] = bpf_kind(p->arg_kinds[a]);
		cfg->derive |= derive_of(cfg->arg_kinds[a]);
		has_file |= dc_arg_is_stream(p->arg_kinds[a]);
		if (dc_arg_is_std_stream(p->arg_kinds[a]) && !c->skip[i])
			cfg->stream_rel = stream_rel(p, p->arg_kinds[a], ec);
		if (p->arg_kinds[a] != DC_ARG_PATH &&
		    p->arg_kinds[a] != DC_ARG_STR)
			continue;
		if (cfg->str_arg == DC_NO_STR_ARG)
			cfg->str_arg = (__u8)a;
		else if (cfg->str_arg2 == DC_NO_STR_ARG)
			cfg->str_arg2 = (__u8)a;
	}
	if (p->kind == DC_PROBE_UPROBE && dc_probe_remaps(p)) {
		cfg->remap = 1;
		memcpy(cfg->regs, p->regs, sizeof(cfg->regs));
	}
	/* A FILE *'s descriptor travels in the last slot. */
	if (has_file)
		cfg->nargs = DC_MAX_ARGS;
}

void fill_tables(struct collector *c)
{
	struct elf_cache ec = { NULL, NULL };
	int cfg_fd = bpf_map__fd(c->skel->maps.probe_cfg);
	int sys_fd = bpf_map__fd(c->skel->maps.syscall_probe);
	size_t i;

	for (i = 0; i < c->spec->nprobes; i++) {
		const struct dc_probe *p = &c->spec->probes[i];
		struct dc_probe_cfg cfg;
		__u32 key = (__u32)i;

		probe_cfg_of(c, i, &cfg, &ec);
		if (p->kind == DC_PROBE_TRACEPOINT && !c->skip[i]) {
			const struct dc_klayer *k = dc_klayer_find(p->function);
			__u32 tp, val = key + 1;

			if (k != NULL) {
				tp = (__u32)k->tp;
				if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.tp_probe),
							&tp, &val, BPF_ANY) != 0)
					sysdie("cannot fill the tracepoint table");
			}
		}
		if (bpf_map_update_elem(cfg_fd, &key, &cfg, BPF_ANY) != 0)
			sysdie("cannot fill the probe table");
		if (p->kind == DC_PROBE_SYSCALL) {
			__u32 nr = (__u32)p->nr, val = key + 1;

			if (p->nr >= DC_MAX_SYSCALLS) {
				warn("syscall %s: number %lld out of range, skipped",
				     p->function, (long long)p->nr);
				continue;
			}
			if (bpf_map_update_elem(sys_fd, &nr, &val, BPF_ANY) != 0)
				sysdie("cannot fill the syscall table");
		}
	}
	free(ec.path);
	dc_elf_free(ec.elf);
}

int check_kernel(void)
{
	struct dc_features f;
	struct dc_kfuncs kf = { .method = DC_KFUNC_NONE };
	const char *missing;
	struct collect_bpf *skel;
	struct bpf_link *fork_link = NULL, *sys_link = NULL;

	dc_features_detect(&f);
	printf("%s\n", dc_features_line(&f));
	missing = dc_features_missing(&f);
	if (missing != NULL) {
		printf("cannot collect: %s\n", missing);
		xfclose_stdout();
		return DC_EXIT_FAILURE;
	}
	/* Really load and attach, as a run would. */
	skel = collect_bpf__open();
	if (skel == NULL) {
		printf("cannot collect: cannot open the BPF object: %s\n", strerror(errno));
		xfclose_stdout();
		return DC_EXIT_FAILURE;
	}
	bpf_program__set_autoload(skel->progs.dc_client_register, false);
	bpf_program__set_autoload(skel->progs.dc_client_quiet, false);
	/* The uprobe and system call entry programs the run would use. */
	uprobe_programs(skel, f.umulti, !f.umulti);
	bpf_program__set_autoload(f.tp_btf ? skel->progs.dc_sys_enter
					   : skel->progs.dc_sys_enter_btf, false);
	bpf_program__set_autoload(dc_features_sys_batch(&f)
					  ? skel->progs.dc_sys_exit
					  : skel->progs.dc_sys_exit_batch,
				  false);
	/* Decoded tracepoints this kernel lacks would fail CO-RE: skip. */
	dc_klayers_aim(skel, dc_features_klayers_btf(&f));
	dc_tracefs_ready();
	for (int tp = 0; tp < DC_TP_COUNT; tp++)
		if (!dc_tracepoint_exists(dc_klayer_by_tp(tp)->name))
			bpf_program__set_autoload(dc_klayer_prog(skel, tp), false);
	/* The kernel-function programs the run would use, on vfs_read. */
	kf.method = dc_features_kfunc_method(&f);
	dc_kfuncs_aim(&kf, skel, "vfs_read");
	bpf_map__set_max_entries(skel->maps.events, 1 << 16);
	bpf_map__set_max_entries(skel->maps.probe_drops, DC_IPROBE_COUNT);
	bpf_map__set_max_entries(skel->maps.profile, 1);
	if (!f.global_args)
		derive_exit_static(skel);
	if (collect_bpf__load(skel) != 0 ||
	    (fork_link = bpf_program__attach(skel->progs.dc_fork)) == NULL ||
	    (sys_link = bpf_program__attach(f.tp_btf ? skel->progs.dc_sys_enter_btf
						      : skel->progs.dc_sys_enter)) == NULL) {
		printf("cannot collect: loading or attaching BPF programs failed: %s\n",
		       strerror(errno));
		bpf_link__destroy(fork_link);
		collect_bpf__destroy(skel);
		xfclose_stdout();
		return DC_EXIT_FAILURE;
	}
	bpf_link__destroy(sys_link);
	bpf_link__destroy(fork_link);
	dc_kfuncs_free(&kf);
	collect_bpf__destroy(skel);
	printf("BPF programs load and attach: ok\n");
	xfclose_stdout();
	return DC_EXIT_OK;
}

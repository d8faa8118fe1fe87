/*
 * kfunc.c - kernel-function probes: fentry/fexit or kprobes, as
 * kfeatures.c decided, and what each argument records.
 *
 * fentry: a tracing program is bound to one function when it loads, so
 * the skeleton's dc_fentry/dc_fexit are loaded for the first function and
 * copies of their (relocated) instructions are loaded for every other
 * one; the BPF cookie carries the probe id either way.  A copy is loaded
 * with the program's BTF and func_info, as libbpf loads the original:
 * the programs pass a callback to bpf_loop (collect.bpf.c's iovec sum),
 * and the verifier refuses a callback's address without func_info
 * ("missing btf func_info", EINVAL: why every copy failed on 6.1 before).
 * kprobes: the two kprobe programs attach everywhere, one pair of links
 * per function (this libbpf and 6.1 kernels without fprobe have no
 * multi-kprobe link to lean on).  Every link is kept here and destroyed
 * by dc_kfuncs_free().
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "event.h"
#include "collect.h"
#include "collect.skel.h"
#include "kbtf.h"
#include "kfunc.h"
#include "kfuncs.h"
#include "messages.h"

/* What a parameter of this class records, if its plan does not say ptr. */
static __u8 op_for(enum dc_kbtf_class c)
{
	switch (c) {
	case DC_KT_FILE: return DC_KOP_FILE_INO;
	case DC_KT_INODE: return DC_KOP_INODE_INO;
	case DC_KT_DENTRY: return DC_KOP_DENTRY_INO;
	case DC_KT_PATH: return DC_KOP_PATH_INO;
	case DC_KT_KIOCB: return DC_KOP_KIOCB_INO;
	case DC_KT_IOV_ITER: return DC_KOP_IOV_COUNT;
	case DC_KT_LOFF_PTR: return DC_KOP_DEREF;
	default: return DC_KOP_RAW;
	}
}

/* The fd of a module's BTF object in the kernel, for fentry's
 * attach_btf_obj_fd; -1 if not found. */
static int module_btf_fd(const char *module)
{
	__u32 id = 0;

	while (bpf_btf_get_next_id(id, &id) == 0) {
		char name[64] = "";
		struct bpf_btf_info info;
		__u32 len = sizeof(info);
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.name = (__u64)(uintptr_t)name;
		info.name_len = sizeof(name);
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    info.kernel_btf && strcmp(name, module) == 0)
			return fd;
		close(fd);
	}
	return -1;
}

void dc_kfuncs_aim(struct dc_kfuncs *k, struct collect_bpf *skel,
		   const char *first)
{
	/* With fentry, the kprobe programs load too where kprobes work:
	 * a function whose fentry attach is refused falls back to them. */
	if (first == NULL ||
	    (k->method != DC_KFUNC_KPROBE && !k->kprobes)) {
		bpf_program__set_autoload(skel->progs.dc_kprobe_entry, false);
		bpf_program__set_autoload(skel->progs.dc_kprobe_exit, false);
	}
	if (first == NULL || k->method != DC_KFUNC_FENTRY) {
		bpf_program__set_autoload(skel->progs.dc_fentry, false);
		bpf_program__set_autoload(skel->progs.dc_fexit, false);
		return;
	}
	snprintf(k->first, sizeof(k->first), "%s", first);
	if (bpf_program__set_attach_target(skel->progs.dc_fentry, 0, first) ||
	    bpf_program__set_attach_target(skel->progs.dc_fexit, 0, first))
		die("cannot aim fentry at %s", first);
}

void dc_kfuncs_prepare(struct dc_kfuncs *k, struct collect_bpf *skel,
		       const struct dc_spec *spec, const bool *skip)
{
	const char *first = NULL;
	size_t i;

	for (i = 0; i < spec->nprobes && first == NULL; i++)
		if (spec->probes[i].kind == DC_PROBE_KFUNC && !skip[i])
			first = spec->probes[i].function;
	dc_kfuncs_aim(k, skel, first);
}

/* Keep a libbpf link (NULL: keep nothing, -errno); 0 or -errno. */
static int keep_link(struct dc_kfuncs *k, struct bpf_link *l)
{
	if (l == NULL)
		return -errno;
	if (k->nlinks == k->links_cap) {
		size_t cap = k->links_cap ? 2 * k->links_cap : 16;
		void *grown = realloc(k->links, cap * sizeof(*k->links));

		if (grown == NULL)
			sysdie("cannot keep a kernel-function link");
		k->links = grown;
		k->links_cap = cap;
	}
	k->links[k->nlinks++] = l;
	return 0;
}

static void keep_fd(struct dc_kfuncs *k, int fd)
{
	if (k->nfds == k->fds_cap) {
		size_t cap = k->fds_cap ? 2 * k->fds_cap : 16;
		void *grown = realloc(k->fds, cap * sizeof(*k->fds));

		if (grown == NULL)
			sysdie("cannot keep a kernel-function link");
		k->fds = grown;
		k->fds_cap = cap;
	}
	k->fds[k->nfds++] = fd;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* Where the subprograms of insns begin, as the verifier finds them: at 0
 * and at the target of every BPF-to-BPF call and callback address.
 * starts has room for n + 1; sorted, unique; their count. */
static unsigned subprog_starts(const struct bpf_insn *insns, size_t n,
			       __u32 *starts)
{
	unsigned cnt = 0, i, out = 0;
	size_t j;

	starts[cnt++] = 0;
	for (j = 0; j < n; j++) {
		const struct bpf_insn *in = &insns[j];

		if ((in->code == (BPF_JMP | BPF_CALL) &&
		     in->src_reg == BPF_PSEUDO_CALL) ||
		    (in->code == (BPF_LD | BPF_IMM | BPF_DW) &&
		     in->src_reg == BPF_PSEUDO_FUNC))
			starts[cnt++] = (__u32)((long)j + in->imm + 1);
	}
	qsort(starts, cnt, sizeof(*starts), cmp_u32);
	for (i = 0; i < cnt; i++)
		if (out == 0 || starts[i] != starts[out - 1])
			starts[out++] = starts[i];
	return out;
}

/* Fill t from the loaded program prog: its BTF and func_info.  The
 * kernel gives back the func_info's types in subprogram order but with
 * the offsets of its own rewritten program, so the offsets are found
 * again in libbpf's instructions, the ones a copy loads.  0 or -errno;
 * a program without func_info leaves t empty (its copies load without). */
static int tmpl_fill(struct dc_kfunc_tmpl *t, const struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info), *starts;
	unsigned n, i;
	int err = 0;

	t->ready = true;
	t->btf_fd = -1;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) != 0)
		return -errno;
	if (info.nr_func_info == 0 || info.btf_id == 0)
		return 0;
	n = info.nr_func_info;
	t->fi = calloc(n, sizeof(*t->fi));
	starts = calloc(bpf_program__insn_cnt(prog) + 1, sizeof(*starts));
	if (t->fi == NULL || starts == NULL)
		sysdie("cannot copy a program's func_info");
	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	info.nr_func_info = n;
	info.func_info_rec_size = sizeof(*t->fi);
	info.func_info = (__u64)(uintptr_t)t->fi;
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) != 0)
		err = -errno;
	else if (info.func_info_rec_size != sizeof(*t->fi) ||
		 subprog_starts(bpf_program__insns(prog),
				bpf_program__insn_cnt(prog), starts) != n)
		err = -EPROTO; /* not the layout the kernel saw */
	else if ((t->btf_fd = bpf_btf_get_fd_by_id(info.btf_id)) < 0)
		err = -errno;
	if (err == 0) {
		for (i = 0; i < n; i++)
			t->fi[i].insn_off = starts[i];
		t->nfi = n;
	}
	free(starts);
	return err;
}

static void tmpl_free(struct dc_kfunc_tmpl *t)
{
	if (t->btf_fd >= 0 && t->ready)
		close(t->btf_fd);
	free(t->fi);
	memset(t, 0, sizeof(*t));
}

/* The verifier's reason: its log's last line before the statistics
 * ("processed N insns..."), for a one-line message. */
static void last_line(char *dst, size_t size, const char *log)
{
	const char *end = log + strlen(log), *start;

	for (;;) {
		while (end > log && (end[-1] == '\n' || end[-1] == ' '))
			end--;
		start = end;
		while (start > log && start[-1] != '\n')
			start--;
		if (start == log || (strncmp(start, "processed ", 10) != 0 &&
				     strncmp(start, "verification time", 17) != 0 &&
				     strncmp(start, "stack depth", 11) != 0))
			break;
		end = start;
	}
	snprintf(dst, size, "%.*s", (int)(end - start), start);
}

/* Load a copy of prog for func and attach it with cookie; the link fd or
 * -errno (k->why says why, from the verifier, where it refused). */
static int fentry_copy(struct dc_kfuncs *k, const struct bpf_program *prog,
		       struct dc_kfunc_tmpl *t, enum bpf_attach_type type,
		       const struct dc_kbtf_func *f, int obj_fd, __u64 cookie)
{
	LIBBPF_OPTS(bpf_prog_load_opts, lo);
	LIBBPF_OPTS(bpf_link_create_opts, co);
	int fd, link, err;

	if (!t->ready && (err = tmpl_fill(t, prog)) != 0) {
		snprintf(k->why, sizeof(k->why), "cannot read the loaded "
			 "program's func_info: %s", strerror(-err));
		return err;
	}
	lo.expected_attach_type = type;
	lo.attach_btf_id = (__u32)f->id;
	lo.attach_btf_obj_fd = obj_fd > 0 ? obj_fd : 0;
	if (t->nfi > 0) {
		lo.prog_btf_fd = (__u32)t->btf_fd;
		lo.func_info = t->fi;
		lo.func_info_cnt = t->nfi;
		lo.func_info_rec_size = sizeof(*t->fi);
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, bpf_program__name(prog), "GPL",
			   bpf_program__insns(prog), bpf_program__insn_cnt(prog),
			   &lo);
	if (fd < 0) {
		static char log[1 << 16];

		/* Again with the verifier's log, for the reason. */
		err = -errno;
		log[0] = '\0';
		lo.log_buf = log;
		lo.log_size = sizeof(log);
		lo.log_level = 1;
		fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, bpf_program__name(prog),
				   "GPL", bpf_program__insns(prog),
				   bpf_program__insn_cnt(prog), &lo);
		if (fd >= 0)
			close(fd);
		last_line(k->why, sizeof(k->why), log);
		return err;
	}
	co.tracing.cookie = cookie;
	link = bpf_link_create(fd, 0, type, &co);
	if (link < 0) {
		link = -errno;
		snprintf(k->why, sizeof(k->why), "attach: %s", strerror(-link));
	}
	/* The link holds the program; the fd is not needed any more. */
	close(fd);
	return link;
}

static int attach_fentry(struct dc_kfuncs *k, struct collect_bpf *skel,
			 size_t i, const struct dc_probe *p,
			 const struct dc_kbtf_func *f)
{
	LIBBPF_OPTS(bpf_trace_opts, opts);
	int obj_fd = -1, entry, ret;

	k->why[0] = '\0';
	if (strcmp(p->function, k->first) == 0) {
		opts.cookie = i;
		if ((ret = keep_link(k, bpf_program__attach_trace_opts(
				skel->progs.dc_fentry, &opts))) != 0)
			return ret;
		return keep_link(k, bpf_program__attach_trace_opts(
				skel->progs.dc_fexit, &opts));
	}
	if (f->module[0] != '\0' && (obj_fd = module_btf_fd(f->module)) < 0)
		return -ENOENT;
	entry = fentry_copy(k, skel->progs.dc_fentry, &k->entry_tmpl,
			    BPF_TRACE_FENTRY, f, obj_fd, i);
	ret = entry < 0 ? entry :
		fentry_copy(k, skel->progs.dc_fexit, &k->exit_tmpl,
			    BPF_TRACE_FEXIT, f, obj_fd, i);
	if (entry >= 0 && ret < 0)
		close(entry);
	if (obj_fd >= 0)
		close(obj_fd);
	if (ret < 0)
		return ret;
	keep_fd(k, entry);
	keep_fd(k, ret);
	return 0;
}

static int attach_kprobe(struct dc_kfuncs *k, struct collect_bpf *skel,
			 size_t i, const struct dc_probe *p)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts);
	struct bpf_link *entry, *exit;

	opts.bpf_cookie = (__u64)i;
	entry = bpf_program__attach_kprobe_opts(skel->progs.dc_kprobe_entry,
						p->function, &opts);
	if (entry == NULL)
		return -errno;
	opts.retprobe = true;
	exit = bpf_program__attach_kprobe_opts(skel->progs.dc_kprobe_exit,
					       p->function, &opts);
	if (exit == NULL) {
		int err = -errno;

		bpf_link__destroy(entry);
		return err;
	}
	keep_link(k, entry);
	keep_link(k, exit);
	return 0;
}

/* Whether parameter a of p can name its file: the plan does not ask
 * for the bare pointer (which is how a plan leaves the path walk out). */
static bool names_file(const struct dc_probe *p, int a)
{
	return a >= p->nargs || p->arg_kinds[a] != DC_ARG_PTR;
}

/* Tell the programs how to read probe i's arguments: what the BTF says
 * each parameter is, unless the plan asks for the bare pointer; a slot
 * planned as a path holds 0, the path comes in a KPATH record. */
static void fill_ops(struct collect_bpf *skel, size_t i, const struct dc_probe *p,
		     const struct dc_kbtf_func *f)
{
	struct dc_kfunc_cfg cfg;
	__u32 key = (__u32)i;
	int a;

	memset(&cfg, 0, sizeof(cfg));
	for (a = 0; a < p->nargs && a < DC_MAX_ARGS; a++)
		if (p->arg_kinds[a] == DC_ARG_PATH)
			cfg.op[a] = DC_KOP_ZERO;
		else if (a < f->nparams && p->arg_kinds[a] != DC_ARG_PTR)
			cfg.op[a] = op_for(f->params[a]);
	/* The file is named by the first parameter that leads to a path
	 * with its mount (or to rename's two names), else by the first
	 * dentry (its mount guessed, in kfunc.bpf.h). */
	cfg.path_arg = DC_KPATH_NONE;
	for (a = 0; a < f->nparams && a < DC_MAX_ARGS; a++)
		if ((f->params[a] == DC_KT_FILE || f->params[a] == DC_KT_KIOCB ||
		     f->params[a] == DC_KT_PATH ||
		     f->params[a] == DC_KT_RENAMEDATA) && names_file(p, a)) {
			cfg.path_arg = (__u8)a;
			break;
		}
	for (a = 0; a < f->nparams && a < DC_MAX_ARGS &&
		    cfg.path_arg == DC_KPATH_NONE; a++)
		if (f->params[a] == DC_KT_DENTRY && names_file(p, a))
			cfg.path_arg = (__u8)a;
	if (cfg.path_arg != DC_KPATH_NONE)
		cfg.path_op = f->params[cfg.path_arg] == DC_KT_RENAMEDATA ?
			DC_KOP_RENAME : op_for(f->params[cfg.path_arg]);
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.kfunc_cfg), &key, &cfg,
				BPF_ANY) != 0)
		sysdie("cannot fill the kernel-function table");
}

int dc_kfuncs_attach(struct dc_kfuncs *k, struct collect_bpf *skel, size_t i,
		     const struct dc_probe *p)
{
	struct dc_kbtf_func f;
	int err;

	if (k->btf == NULL && (k->btf = dc_kbtf_open(NULL)) == NULL)
		return -errno;
	if (dc_kbtf_find(k->btf, p->function, &f) != 0)
		return -ENOENT;
	fill_ops(skel, i, p, &f);
	if (k->method != DC_KFUNC_FENTRY)
		return attach_kprobe(k, skel, i, p);
	err = attach_fentry(k, skel, i, p, &f);
	/* Only where the kernel refuses this function's fentry (a module
	 * whose BTF it cannot find, a trampoline it will not build): the
	 * reason in one line. */
	if (err != 0 && k->kprobes && attach_kprobe(k, skel, i, p) == 0) {
		warn("fentry refused %s (%s%s%s): traced with kprobes",
		     p->function, strerror(-err), k->why[0] ? ": " : "", k->why);
		return 0;
	}
	return err;
}

void dc_kfuncs_free(struct dc_kfuncs *k)
{
	size_t i;

	for (i = 0; i < k->nlinks; i++)
		bpf_link__destroy(k->links[i]);
	for (i = 0; i < k->nfds; i++)
		close(k->fds[i]);
	free(k->links);
	free(k->fds);
	k->links = NULL;
	k->fds = NULL;
	k->nlinks = k->links_cap = k->nfds = k->fds_cap = 0;
	tmpl_free(&k->entry_tmpl);
	tmpl_free(&k->exit_tmpl);
	dc_kbtf_close(k->btf);
	k->btf = NULL;
}

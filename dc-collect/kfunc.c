/*
 * kfunc.c - kernel-function probes: fentry/fexit or kprobes, as
 * kfeatures.c decided, and what each argument records.
 *
 * fentry: a tracing program is bound to one function when it loads, so
 * the skeleton's dc_fentry/dc_fexit are loaded for the first function and
 * copies of their (relocated) instructions are loaded for every other
 * one; the BPF cookie carries the probe id either way.  kprobes: the two
 * kprobe programs attach everywhere, one pair of links per function
 * (this libbpf and 6.1 kernels without fprobe have no multi-kprobe link
 * to lean on).
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

/* Load a copy of prog for func and attach it with cookie; the link fd or
 * -errno. */
static int fentry_copy(const struct bpf_program *prog, enum bpf_attach_type type,
		       const struct dc_kbtf_func *f, int obj_fd, __u64 cookie)
{
	LIBBPF_OPTS(bpf_prog_load_opts, lo);
	LIBBPF_OPTS(bpf_link_create_opts, co);
	int fd, link;

	lo.expected_attach_type = type;
	lo.attach_btf_id = (__u32)f->id;
	lo.attach_btf_obj_fd = obj_fd > 0 ? obj_fd : 0;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, bpf_program__name(prog), "GPL",
			   bpf_program__insns(prog), bpf_program__insn_cnt(prog),
			   &lo);
	if (fd < 0)
		return -errno;
	co.tracing.cookie = cookie;
	link = bpf_link_create(fd, 0, type, &co);
	if (link < 0) {
		link = -errno;
		close(fd);
		return link;
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

	if (strcmp(p->function, k->first) == 0) {
		opts.cookie = i;
		if (!bpf_program__attach_trace_opts(skel->progs.dc_fentry, &opts))
			return -errno;
		if (!bpf_program__attach_trace_opts(skel->progs.dc_fexit, &opts))
			return -errno;
		return 0;
	}
	if (f->module[0] != '\0' && (obj_fd = module_btf_fd(f->module)) < 0)
		return -ENOENT;
	entry = fentry_copy(skel->progs.dc_fentry, BPF_TRACE_FENTRY, f, obj_fd, i);
	ret = entry < 0 ? entry :
		fentry_copy(skel->progs.dc_fexit, BPF_TRACE_FEXIT, f, obj_fd, i);
	if (entry >= 0 && ret < 0)
		close(entry);
	if (obj_fd >= 0)
		close(obj_fd);
	return ret < 0 ? ret : 0;
}

static int attach_kprobe(struct collect_bpf *skel, size_t i,
			 const struct dc_probe *p)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts);
	struct bpf_link *entry;

	opts.bpf_cookie = (__u64)i;
	entry = bpf_program__attach_kprobe_opts(skel->progs.dc_kprobe_entry,
						p->function, &opts);
	if (entry == NULL)
		return -errno;
	opts.retprobe = true;
	if (!bpf_program__attach_kprobe_opts(skel->progs.dc_kprobe_exit,
					     p->function, &opts)) {
		int err = -errno;

		bpf_link__destroy(entry);
		return err;
	}
	return 0;
}

/* Tell the programs how to read probe i's arguments: what the BTF says
 * each parameter is, unless the plan asks for the bare pointer. */
static void fill_ops(struct collect_bpf *skel, size_t i, const struct dc_probe *p,
		     const struct dc_kbtf_func *f)
{
	struct dc_kfunc_cfg cfg;
	__u32 key = (__u32)i;
	int a;

	memset(&cfg, 0, sizeof(cfg));
	for (a = 0; a < p->nargs && a < f->nparams && a < DC_MAX_ARGS; a++)
		if (p->arg_kinds[a] != DC_ARG_PTR)
			cfg.op[a] = op_for(f->params[a]);
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
		return attach_kprobe(skel, i, p);
	err = attach_fentry(k, skel, i, p, &f);
	if (err != 0 && k->kprobes && attach_kprobe(skel, i, p) == 0) {
		warn("fentry refused %s (%s): traced with kprobes", p->function,
		     strerror(-err));
		return 0;
	}
	return err;
}

void dc_kfuncs_free(struct dc_kfuncs *k)
{
	dc_kbtf_close(k->btf);
	k->btf = NULL;
}

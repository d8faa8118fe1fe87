/*
 * kbtf.c - kernel functions in vmlinux's and the modules' BTF.
 *
 * Modules' BTF sits in /sys/kernel/btf/MODULE, split on top of vmlinux's;
 * they are parsed only when a function is not in vmlinux.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kbtf.h"

#define SYS_BTF "/sys/kernel/btf"

struct dc_kbtf {
	struct btf *vmlinux;
	bool modules_read;
	bool no_modules;
	size_t nmods;
	struct {
		char name[64];
		struct btf *btf;
	} *mods;
};

struct dc_kbtf *dc_kbtf_open(const char *path)
{
	struct dc_kbtf *k = calloc(1, sizeof(*k));

	if (k == NULL)
		return NULL;
	k->vmlinux = path ? btf__parse(path, NULL) : btf__load_vmlinux_btf();
	k->no_modules = path != NULL;
	if (k->vmlinux == NULL) {
		int err = errno;

		free(k);
		errno = err;
		return NULL;
	}
	return k;
}

void dc_kbtf_close(struct dc_kbtf *k)
{
	size_t i;

	if (k == NULL)
		return;
	for (i = 0; i < k->nmods; i++)
		btf__free(k->mods[i].btf);
	free(k->mods);
	btf__free(k->vmlinux);
	free(k);
}

static void read_modules(struct dc_kbtf *k)
{
	DIR *d;
	struct dirent *e;
	char path[512];

	k->modules_read = true;
	if (k->no_modules || (d = opendir(SYS_BTF)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		struct btf *b;
		void *grown;

		if (e->d_name[0] == '.' || strcmp(e->d_name, "vmlinux") == 0 ||
		    strlen(e->d_name) >= sizeof(k->mods[0].name))
			continue;
		snprintf(path, sizeof(path), SYS_BTF "/%s", e->d_name);
		b = btf__parse_split(path, k->vmlinux);
		if (b == NULL)
			continue;
		grown = realloc(k->mods, (k->nmods + 1) * sizeof(*k->mods));
		if (grown == NULL) {
			btf__free(b);
			break;
		}
		k->mods = grown;
		snprintf(k->mods[k->nmods].name, sizeof(k->mods[0].name), "%s",
			 e->d_name);
		k->mods[k->nmods++].btf = b;
	}
	closedir(d);
}

/* The type behind typedefs and qualifiers. */
static const struct btf_type *skip_mods(const struct btf *b, __u32 *id)
{
	const struct btf_type *t = btf__type_by_id(b, *id);

	while (t && (btf_is_typedef(t) || btf_is_const(t) ||
		     btf_is_volatile(t) || btf_is_restrict(t))) {
		*id = t->type;
		t = btf__type_by_id(b, *id);
	}
	return t;
}

/* The first typedef name on the way to the real type ("loff_t"). */
static const char *typedef_name(const struct btf *b, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(b, id);

	while (t && (btf_is_const(t) || btf_is_volatile(t) || btf_is_restrict(t)))
		t = btf__type_by_id(b, t->type);
	if (t && btf_is_typedef(t))
		return btf__name_by_offset(b, t->name_off);
	return "";
}

static enum dc_kbtf_class classify(const struct btf *b, __u32 id)
{
	static const struct { const char *name; enum dc_kbtf_class c; } structs[] = {
		{ "file", DC_KT_FILE }, { "inode", DC_KT_INODE },
		{ "dentry", DC_KT_DENTRY }, { "path", DC_KT_PATH },
		{ "kiocb", DC_KT_KIOCB }, { "iov_iter", DC_KT_IOV_ITER },
		{ "renamedata", DC_KT_RENAMEDATA },
	};
	const char *td = typedef_name(b, id);
	const struct btf_type *t;
	size_t i;

	if (id == 0)
		return DC_KT_VOID;
	if (strcmp(td, "size_t") == 0 || strcmp(td, "ssize_t") == 0)
		return DC_KT_SIZE;
	if (strcmp(td, "loff_t") == 0)
		return DC_KT_LOFF;
	t = skip_mods(b, &id);
	if (t == NULL)
		return DC_KT_OTHER;
	if (btf_is_int(t) || btf_is_enum(t))
		return DC_KT_INT;
	if (!btf_is_ptr(t))
		return DC_KT_OTHER;
	if (strcmp(typedef_name(b, t->type), "loff_t") == 0)
		return DC_KT_LOFF_PTR;
	id = t->type;
	t = skip_mods(b, &id);
	if (t == NULL || !btf_is_struct(t))
		return DC_KT_OTHER;
	for (i = 0; i < sizeof(structs) / sizeof(structs[0]); i++)
		if (strcmp(btf__name_by_offset(b, t->name_off), structs[i].name) == 0)
			return structs[i].c;
	return DC_KT_OTHER;
}

static void describe(const struct btf *b, int id, struct dc_kbtf_func *f)
{
	const struct btf_type *fn = btf__type_by_id(b, (__u32)id);
	const struct btf_type *proto = btf__type_by_id(b, fn->type);
	const struct btf_param *p = btf_params(proto);
	int i;

	f->btf = b;
	f->id = id;
	f->nparams = btf_vlen(proto);
	for (i = 0; i < f->nparams && i < 8; i++)
		f->params[i] = classify(b, p[i].type);
	f->ret = classify(b, proto->type);
}

int dc_kbtf_find(struct dc_kbtf *k, const char *name, struct dc_kbtf_func *f)
{
	int id;
	size_t i;

	memset(f, 0, sizeof(*f));
	id = btf__find_by_name_kind(k->vmlinux, name, BTF_KIND_FUNC);
	if (id > 0) {
		describe(k->vmlinux, id, f);
		return 0;
	}
	if (!k->modules_read)
		read_modules(k);
	for (i = 0; i < k->nmods; i++) {
		id = btf__find_by_name_kind(k->mods[i].btf, name, BTF_KIND_FUNC);
		if (id > 0) {
			describe(k->mods[i].btf, id, f);
			snprintf(f->module, sizeof(f->module), "%s", k->mods[i].name);
			return 0;
		}
	}
	return -1;
}

int dc_kbtf_tracing_probe(const char *name, const char *target, int kind,
			  enum bpf_attach_type type,
			  const struct bpf_insn *insns, size_t ninsns)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	struct btf *vmlinux;
	int id, fd;

	vmlinux = btf__load_vmlinux_btf();
	if (vmlinux == NULL)
		return -errno;
	id = btf__find_by_name_kind(vmlinux, target, kind);
	btf__free(vmlinux);
	if (id < 0)
		return -ENOENT;
	opts.expected_attach_type = type;
	opts.attach_btf_id = (__u32)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, name, "GPL", insns, ninsns, &opts);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* A small fentry program on vfs_read that reads its BPF cookie: the
 * kernel refuses BPF_PROG_TYPE_TRACING where it is not built or not
 * allowed, and the cookie helper where tracing programs cannot have
 * cookies (before 6.0), which dc-collect's fentry programs need. */
int dc_kbtf_fentry_probe(void)
{
	static const struct bpf_insn insns[] = {
		{ .code = 0x85, .imm = BPF_FUNC_get_attach_cookie }, /* call */
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },            /* r0 = 0 */
		{ .code = 0x95 },                                    /* exit */
	};

	return dc_kbtf_tracing_probe("dc_probe_fentry", "vfs_read", BTF_KIND_FUNC,
				     BPF_TRACE_FENTRY, insns, 3);
}

int dc_kbtf_traceable(char *why, size_t len)
{
	int err;

	if (access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0)
		return 0;
	err = dc_kbtf_fentry_probe();
	if (err == 0)
		return 0;
	snprintf(why, len, "this kernel has no kprobes (CONFIG_KPROBE_EVENTS) "
		 "and refuses fentry (%s)", strerror(-err));
	return -1;
}

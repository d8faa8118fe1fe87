/*
 * kbtf.h - kernel functions in the kernel's BTF: vmlinux and the loaded
 * modules (ext4, xfs, nfs, lustre... are modules on most distributions).
 *
 * dc-gen checks a config's kernel functions here and derives their
 * argument plans from the prototypes; dc-collect reads each parameter's
 * type to know what to record behind a pointer.
 */
#ifndef DC_KBTF_H
#define DC_KBTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/bpf.h>

struct btf;

/* What a parameter or return type is, as far as tracing cares. */
enum dc_kbtf_class {
	DC_KT_OTHER = 0,  /* recorded as it is (a pointer or a struct) */
	DC_KT_INT,        /* an integer no name below fits */
	DC_KT_SIZE,       /* size_t, ssize_t */
	DC_KT_LOFF,       /* loff_t */
	DC_KT_LOFF_PTR,   /* loff_t * */
	DC_KT_FILE,       /* struct file * */
	DC_KT_INODE,      /* struct inode * */
	DC_KT_DENTRY,     /* struct dentry * */
	DC_KT_PATH,       /* struct path * */
	DC_KT_KIOCB,      /* struct kiocb * */
	DC_KT_IOV_ITER,   /* struct iov_iter * */
	DC_KT_RENAMEDATA, /* struct renamedata * (vfs_rename since 5.12):
	                     the old and the new name */
	DC_KT_VOID,       /* no value (returns only) */
};

struct dc_kbtf_func {
	const struct btf *btf;   /* vmlinux's or a module's */
	int id;                  /* the BTF_KIND_FUNC */
	char module[64];         /* "" for vmlinux */
	int nparams;
	enum dc_kbtf_class params[8];
	enum dc_kbtf_class ret;
};

struct dc_kbtf;

/* The running kernel's BTF, or the file path (no modules then); NULL
 * with errno set when there is none. */
struct dc_kbtf *dc_kbtf_open(const char *path);
void dc_kbtf_close(struct dc_kbtf *k);
/* Find a function in vmlinux, then in each module; 0 or -1. */
int dc_kbtf_find(struct dc_kbtf *k, const char *name, struct dc_kbtf_func *f);


/* Whether kernel functions can be traced here, for dc-gen: kprobes
 * (their perf PMU exists) or fentry (a tracing program with a cookie
 * loads, which needs root).  0, or -1 with the reason in why. */
int dc_kbtf_traceable(char *why, size_t len);
/* Load the fentry test program on vfs_read: 0, or -errno. */
int dc_kbtf_fentry_probe(void);
/* Load program NAME (NINSNS INSNS) of BPF_PROG_TYPE_TRACING, attached as
 * TYPE to the vmlinux BTF type TARGET of KIND, and close it at once: 0,
 * -ENOENT (no such type), or the load's -errno. */
int dc_kbtf_tracing_probe(const char *name, const char *target, int kind,
			  enum bpf_attach_type type,
			  const struct bpf_insn *insns, size_t ninsns);

#endif /* DC_KBTF_H */

/*
 * kfunc.h - what the kernel-function programs (kfunc.bpf.h) and their
 * user-space half (kfunc.c) share: how each argument of a kernel
 * function is read.
 *
 * A kernel function's arguments are mostly pointers to kernel objects;
 * the collector looks each parameter's type up in the kernel's BTF and
 * tells the program to record what the pointer leads to (the inode
 * number behind a struct file *, the offset behind a loff_t *), not the
 * pointer.
 */
#ifndef DC_KFUNC_H
#define DC_KFUNC_H

enum dc_kop {
	DC_KOP_RAW = 0,        /* the register value as it is */
	DC_KOP_FILE_INO,       /* struct file *: f_inode->i_ino */
	DC_KOP_INODE_INO,      /* struct inode *: i_ino */
	DC_KOP_DENTRY_INO,     /* struct dentry *: d_inode->i_ino */
	DC_KOP_PATH_INO,       /* struct path *: dentry->d_inode->i_ino */
	DC_KOP_KIOCB_INO,      /* struct kiocb *: ki_filp->f_inode->i_ino */
	DC_KOP_IOV_COUNT,      /* struct iov_iter *: count (bytes asked) */
	DC_KOP_DEREF,          /* loff_t * and other pointers to an integer */
	DC_KOP_ZERO,           /* a slot planned as a path: 0 (the path
	                          travels in a DC_EV_KPATH record) */
	DC_KOP_RENAME,         /* struct renamedata * (path_op only): its
	                          old_dentry and new_dentry name the call */
	DC_KOP_COUNT
};

/* Per probe id: how to read each argument, and which one names the
 * file (a struct file *, struct kiocb *, struct path *, a struct
 * renamedata * (two names), or a struct dentry * reached through the
 * caller's cwd or root mount, else a mount of its file system in the
 * caller's mount namespace): its path is sent ahead of the call in a
 * DC_EV_KPATH record; DC_KPATH_NONE: none. */
struct dc_kfunc_cfg {
	__u8 op[8];
	__u8 path_arg;
	__u8 path_op;          /* DC_KOP_FILE_INO, _KIOCB_INO, _PATH_INO,
	                          _DENTRY_INO or _RENAME: what path_arg is */
	__u8 pad[6];
};

#define DC_KPATH_NONE 0xff
#define DC_KPATH_MAX 4096      /* a path's bytes, as PATH_MAX */
#define DC_KPATH_DEPTH 64      /* names and mount crossings walked */
#define DC_KPATH_MOUNTS 16     /* mounts of one file system looked at for
                                  a dentry's */

#endif /* DC_KFUNC_H */

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
	DC_KOP_COUNT
};

/* Per probe id: how to read each argument. */
struct dc_kfunc_cfg {
	__u8 op[8];
};

#endif /* DC_KFUNC_H */

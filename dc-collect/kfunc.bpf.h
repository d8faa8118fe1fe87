/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfunc.bpf.h - dc-collect's programs for kernel functions, included at
 * the end of collect.bpf.c (one skeleton, their own file).
 *
 * Two ways in, chosen by kfeatures.c: fentry/fexit (BPF trampolines,
 * arguments read with bpf_get_func_arg, the cheaper path) where the
 * kernel allows it, kprobes/kretprobes otherwise.  Either way the cookie
 * is the probe id and the call goes on the thread's call stack like a
 * library call, so a vfs_write sits under the write system call that
 * made it.  One fentry program serves every function: user space loads
 * copies of it, one per function (a tracing program is bound to its
 * function when it loads).  At entry the file's path is walked from the
 * struct file, path or kiocb (or a dentry, its mount looked for; or a
 * renamedata's two dentries) and sent ahead of the call as a
 * DC_EV_KPATH record with the call's seq; dc-aggregate names the call
 * with it.
 */
#include "kfunc.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_MAX_PROBES);
	__type(key, __u32);
	__type(value, struct dc_kfunc_cfg);
} kfunc_cfg SEC(".maps");

static __always_inline __u64 kfunc_read(__u8 op, __u64 v)
{
	__u64 x = 0;

	if (v == 0)
		return 0;
	switch (op) {
	case DC_KOP_FILE_INO:
		return BPF_CORE_READ((struct file *)v, f_inode, i_ino);
	case DC_KOP_INODE_INO:
		return BPF_CORE_READ((struct inode *)v, i_ino);
	case DC_KOP_DENTRY_INO:
		return BPF_CORE_READ((struct dentry *)v, d_inode, i_ino);
	case DC_KOP_PATH_INO:
		return BPF_CORE_READ((struct path *)v, dentry, d_inode, i_ino);
	case DC_KOP_KIOCB_INO:
		return BPF_CORE_READ((struct kiocb *)v, ki_filp, f_inode, i_ino);
	case DC_KOP_IOV_COUNT:
		return BPF_CORE_READ((struct iov_iter *)v, count);
	case DC_KOP_DEREF:
		bpf_probe_read_kernel(&x, sizeof(x), (const void *)v);
		return x;
	case DC_KOP_ZERO:
		return 0;
	}
	return v;
}

/* ---- the file's path (DC_EV_KPATH) ---- */

/* The path is built backwards, from the file's name up to the root,
 * in the first DC_KPATH_MAX bytes of buf; rec is the record sent. */
struct kpath_scratch {
	char buf[2 * DC_KPATH_MAX];
	__u8 rec[DC_EVENT_HDR_SIZE + DC_KPATH_MAX + 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kpath_scratch);
} kpath_map SEC(".maps");

struct kpath_walk {
	struct dentry *d;
	struct vfsmount *mnt;
	__s64 off;       /* where the path built so far begins in buf */
	bool trunc;      /* longer than DC_KPATH_MAX or DC_KPATH_DEPTH */
	bool done;       /* reached the root */
	bool outside;    /* reached its file system's root, not the mount's:
	                    not under mnt (or a pseudo file: pipe, socket) */
};

/* One step up: the name of d before what is built, or across the mount
 * d is the root of; 1 (stop) at the root of the process's mount tree. */
static long kpath_step(__u64 i, struct kpath_walk *w)
{
	/* Plain copies: CO-RE reads below must not relocate w itself. */
	struct dentry *d = w->d, *parent, *root;
	struct vfsmount *mnt = w->mnt;
	struct kpath_scratch *s;
	struct qstr q;
	__u32 zero = 0, len;
	__s64 off;

	s = bpf_map_lookup_elem(&kpath_map, &zero);
	if (!s)
		return 1;
	parent = BPF_CORE_READ(d, d_parent);
	root = BPF_CORE_READ(mnt, mnt_root);
	if (d == root) {
		struct mount *m = (struct mount *)((char *)mnt -
				   bpf_core_field_offset(struct mount, mnt));
		struct mount *up = BPF_CORE_READ(m, mnt_parent);

		if (up == m) {          /* the top mount */
			w->done = true;
			return 1;
		}
		w->d = BPF_CORE_READ(m, mnt_mountpoint);
		w->mnt = (struct vfsmount *)((char *)up +
					     bpf_core_field_offset(struct mount, mnt));
		return 0;
	}
	if (d == parent) {
		w->outside = true;
		return 1;
	}
	q = BPF_CORE_READ(d, d_name);
	len = q.len > 255 ? 255 : q.len;
	off = w->off - (__s64)len - 1;
	if (off < 0) {
		w->trunc = true;
		return 1;
	}
	off &= DC_KPATH_MAX - 1;
	bpf_probe_read_kernel(&s->buf[off + 1], len & 255, q.name);
	s->buf[off] = '/';
	w->off = off;
	w->d = parent;
	return 0;
}

/* The mounts of a file system: 6.1 keeps them in a list (s_mounts,
 * mnt_instance), later kernels in a chain (s_mounts, mnt_next_for_sb).
 * Flavors of both, so either kernel's vmlinux.h builds. */
struct super_block___list {
	struct list_head s_mounts;
} __attribute__((preserve_access_index));

struct mount___list {
	struct list_head mnt_instance;
} __attribute__((preserve_access_index));

struct super_block___chain {
	struct mount *s_mounts;
} __attribute__((preserve_access_index));

struct mount___chain {
	struct mount *mnt_next_for_sb;
} __attribute__((preserve_access_index));

struct kpath_mnts {
	struct mnt_namespace *ns;  /* the caller's */
	struct dentry *root;       /* the file system's root */
	struct mount *m;           /* the next mount to look at, NULL: none */
	void *head;                /* a list's head (6.1), where it ends */
	struct vfsmount *found;
};

/* One mount of the file system: the first in the caller's namespace,
 * or better one of its whole tree (not a bind mount of a directory in
 * it); 1 (stop) once that is found. */
static long kpath_mnt_step(__u64 i, struct kpath_mnts *s)
{
	struct mount *m = s->m;
	struct vfsmount *v;
	void *next;

	if (m == NULL)
		return 1;
	if (BPF_CORE_READ(m, mnt_ns) == s->ns) {
		v = (struct vfsmount *)((char *)m +
					bpf_core_field_offset(struct mount, mnt));
		if (s->found == NULL)
			s->found = v;
		if (BPF_CORE_READ(v, mnt_root) == s->root) {
			s->found = v;
			return 1;
		}
	}
	if (bpf_core_field_exists(struct mount___chain, mnt_next_for_sb)) {
		s->m = BPF_CORE_READ((struct mount___chain *)m, mnt_next_for_sb);
		return 0;
	}
	next = BPF_CORE_READ((struct mount___list *)m, mnt_instance.next);
	s->m = next == s->head ? NULL : (struct mount *)((char *)next -
		bpf_core_field_offset(struct mount___list, mnt_instance));
	return 0;
}

/* A dentry alone does not say which mount it was reached through: the
 * caller's working directory's, or else its root's, where that is the
 * same file system; else (search set) a mount of its file system in
 * the caller's mount namespace, as kpath_mnt_step picks; NULL if none. */
static __always_inline struct vfsmount *kpath_guess_mnt(struct dentry *d,
							 bool search)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct super_block *sb = BPF_CORE_READ(d, d_sb);
	struct kpath_mnts s = {};
	struct vfsmount *m;

	if (!search) {
		m = BPF_CORE_READ(t, fs, pwd.mnt);
		if (m && BPF_CORE_READ(m, mnt_sb) == sb)
			return m;
		m = BPF_CORE_READ(t, fs, root.mnt);
		if (m && BPF_CORE_READ(m, mnt_sb) == sb)
			return m;
	}
	s.ns = BPF_CORE_READ(t, nsproxy, mnt_ns);
	s.root = BPF_CORE_READ(sb, s_root);
	if (bpf_core_field_exists(struct mount___chain, mnt_next_for_sb)) {
		s.m = BPF_CORE_READ((struct super_block___chain *)sb, s_mounts);
	} else {
		struct list_head *first = BPF_CORE_READ(
			(struct super_block___list *)sb, s_mounts.next);

		s.head = (char *)sb +
			 bpf_core_field_offset(struct super_block___list, s_mounts);
		if ((void *)first == s.head)
			return NULL;
		s.m = (struct mount *)((char *)first -
			bpf_core_field_offset(struct mount___list, mnt_instance));
	}
	bpf_loop(DC_KPATH_MOUNTS, kpath_mnt_step, &s, 0);
	return s.found;
}

/* Walk w->d up from w->mnt into the scratch buffer. */
static __always_inline void kpath_walk(struct kpath_walk *w)
{
	w->off = DC_KPATH_MAX;
	w->trunc = w->done = w->outside = false;
	bpf_loop(DC_KPATH_DEPTH, kpath_step, w, 0);
}

/* The file behind ptr (op: what ptr is) as a walked path in w; false if
 * it has none (a pipe, a socket, a dentry on no mount found). */
static __always_inline bool kpath_find(struct kpath_walk *w, __u8 op,
				       __u64 ptr)
{
	if (op == DC_KOP_KIOCB_INO) {
		ptr = (__u64)BPF_CORE_READ((struct kiocb *)ptr, ki_filp);
		op = DC_KOP_FILE_INO;
	}
	if (ptr == 0)
		return false;
	if (op == DC_KOP_FILE_INO) {
		w->d = BPF_CORE_READ((struct file *)ptr, f_path.dentry);
		w->mnt = BPF_CORE_READ((struct file *)ptr, f_path.mnt);
	} else if (op == DC_KOP_PATH_INO) {
		w->d = BPF_CORE_READ((struct path *)ptr, dentry);
		w->mnt = BPF_CORE_READ((struct path *)ptr, mnt);
	} else {
		w->d = (struct dentry *)ptr;
		w->mnt = kpath_guess_mnt(w->d, false);
		if (w->mnt) {
			kpath_walk(w);
			if (!w->outside)
				return true;
		}
		/* Not the cwd's or root's file system, or outside that
		 * (bind) mount of it: a mount of its own. */
		w->d = (struct dentry *)ptr;
		w->mnt = kpath_guess_mnt(w->d, true);
	}
	if (!w->d || !w->mnt)
		return false;
	kpath_walk(w);
	return true;
}

/* Send the path of the file behind ptr as the DC_EV_KPATH record of
 * the call numbered seq on this thread; how: what ptr is (DC_KOP_*),
 * plus 1 << 8 for the call's second path (vfs_rename's new name).  A
 * global function, so the verifier checks it once, not at each of its
 * calls (each fentry copy is verified again: seconds each under TCG);
 * hence the scalar arguments.  0, or 1 if the file has no path to
 * send (a record the ring has no room for is counted as a drop). */
__noinline int kpath_send(__u64 ptr, __u64 seq, __u64 pid_tgid,
			  __u32 probe_id, __u32 how)
{
	struct kpath_walk w = {};
	struct kpath_scratch *s;
	struct dc_event *ev;
	__u32 zero = 0;
	__u64 len, size;

	if (!kpath_find(&w, (__u8)how, ptr))
		return 1;
	s = bpf_map_lookup_elem(&kpath_map, &zero);
	if (!s)
		return 1;
	/* Not under its mount: a guessed mount that was wrong, a pseudo
	 * file (pipe, socket: no path), a lazily unmounted tree.  The
	 * call goes without a name. */
	if (w.outside)
		return 1;
	if (!w.done)
		w.trunc = true;         /* deeper than DC_KPATH_DEPTH */
	if (w.off >= DC_KPATH_MAX) {          /* the root itself */
		w.off = DC_KPATH_MAX - 1;
		s->buf[DC_KPATH_MAX - 1] = '/';
	}
	w.off &= DC_KPATH_MAX - 1;
	len = DC_KPATH_MAX - w.off;
	if (len > DC_KPATH_MAX)
		return 1;
	/* The path and the NUL after it, in one copy. */
	s->buf[DC_KPATH_MAX] = 0;
	bpf_probe_read_kernel(s->rec + DC_EVENT_HDR_SIZE, len + 1, &s->buf[w.off]);
	ev = (struct dc_event *)s->rec;
	fill_header(ev, DC_EV_KPATH, probe_id, pid_tgid, bpf_ktime_get_ns(),
		    0, how >> 8, 0);
	ev->seq = seq;
	ev->nargs = 0;
	ev->str_len = (__u16)len;
	if (w.trunc)
		ev->flags |= DC_EVF_STR_TRUNC;
	size = (DC_EVENT_HDR_SIZE + len + 1 + 7) & ~7ULL;
	if (size > sizeof(s->rec))
		return 1;
	ev->size = (__u16)size;
	output_event(s->rec, size, probe_id, rb_flags());
	return 0;
}

static __always_inline void kfunc_push(__u64 pid_tgid, __u32 probe_id,
				       __u64 *args)
{
	struct dc_kfunc_cfg *kc = bpf_map_lookup_elem(&kfunc_cfg, &probe_id);
	__u64 file = 0, seq;
	__u8 path_op = 0;
	struct dc_stack *st;
	__u32 d;
	int i;

	if (kc && kc->path_arg < DC_MAX_ARGS && !profile_mode) {
		file = args[kc->path_arg & 7];
		path_op = kc->path_op;
	}
	/* Unrolled: a loop's back-edge is refused in some program types on
	 * older kernels (6.1's kprobes). */
	if (kc)
#pragma clang loop unroll(full)
		for (i = 0; i < DC_MAX_ARGS; i++)
			args[i] = kfunc_read(kc->op[i], args[i]);
	push((__u32)pid_tgid, probe_id, 0, args);
	if (file == 0)
		return;
	/* Its path goes ahead of the call, numbered as the call is. */
	st = get_stack((__u32)pid_tgid, false);
	if (!st || st->depth == 0 || st->depth > DC_MAX_DEPTH)
		return;
	d = (st->depth - 1) & (DC_MAX_DEPTH - 1);
	if (st->frames[d].probe_id != probe_id || st->frames[d].is_syscall)
		return;
	seq = st->frames[d].seq;
	if (path_op != DC_KOP_RENAME) {
		kpath_send(file, seq, pid_tgid, probe_id, path_op);
		return;
	}
	/* Before the rename: the new name's dentry may be negative, its
	 * name and parent are there all the same. */
	kpath_send((__u64)BPF_CORE_READ((struct renamedata *)file, old_dentry),
		   seq, pid_tgid, probe_id, DC_KOP_DENTRY_INO);
	kpath_send((__u64)BPF_CORE_READ((struct renamedata *)file, new_dentry),
		   seq, pid_tgid, probe_id, DC_KOP_DENTRY_INO | 1 << 8);
}

SEC("kprobe")
int BPF_KPROBE(dc_kprobe_entry)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 args[DC_MAX_ARGS];

	if (!current_selected(pid_tgid))
		return 0;
	regs_args(ctx, args);
	kfunc_push(pid_tgid, (__u32)bpf_get_attach_cookie(ctx), args);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(dc_kprobe_exit)
{
	return regs_exit(ctx);
}

/* The attach target is set by user space before loading; copies for the
 * other functions are loaded from these instructions. */
SEC("fentry")
int dc_fentry(__u64 *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 args[DC_MAX_ARGS];
	int i;

	if (!current_selected(pid_tgid))
		return 0;
#pragma clang loop unroll(full)
	for (i = 0; i < DC_MAX_ARGS; i++) {
		args[i] = 0;
		/* Past the function's last argument this fails, leaving 0. */
		bpf_get_func_arg(ctx, i, &args[i]);
	}
	kfunc_push(pid_tgid, (__u32)bpf_get_attach_cookie(ctx), args);
	return 0;
}

SEC("fexit")
int dc_fexit(__u64 *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 ret = 0;

	if (!current_selected(pid_tgid))
		return 0;
	bpf_get_func_ret(ctx, &ret);
	pop(pid_tgid, (__u32)bpf_get_attach_cookie(ctx), (__s64)ret);
	return 0;
}

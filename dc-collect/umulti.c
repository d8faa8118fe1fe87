/*
 * umulti.c - attach many uprobes with one BPF_LINK_CREATE.
 *
 * Attaching and detaching uprobes one by one costs a perf event and an
 * RCU grace period each; the multi-uprobe link does a whole library in one
 * call and one grace period.  The bpf_attr layout below is the kernel's
 * link_create.uprobe_multi, declared here because older uapi headers lack
 * it.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "umulti.h"

#define DC_BPF_LINK_CREATE 28          /* enum bpf_cmd */
#define DC_BPF_F_UPROBE_MULTI_RETURN 1

struct dc_link_create_umulti {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 umulti_flags;
	__u32 pid;
	__u32 pad;
};

int dc_umulti_attach(int prog_fd, const char *path, const __u64 *offsets,
		     const __u64 *cookies, __u32 cnt, bool retprobe)
{
	struct dc_link_create_umulti attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (__u32)prog_fd;
	attr.attach_type = DC_BPF_TRACE_UPROBE_MULTI;
	attr.path = (__u64)(uintptr_t)path;
	attr.offsets = (__u64)(uintptr_t)offsets;
	attr.cookies = (__u64)(uintptr_t)cookies;
	attr.cnt = cnt;
	attr.umulti_flags = retprobe ? DC_BPF_F_UPROBE_MULTI_RETURN : 0;
	fd = syscall(__NR_bpf, DC_BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : (int)fd;
}

bool dc_umulti_supported(void)
{
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0x95 },                         /* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	__u64 offset = 0, cookie = 0;
	int prog, link;

	opts.expected_attach_type = DC_BPF_TRACE_UPROBE_MULTI;
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "dc_probe_umulti", "GPL",
			     insns, 2, &opts);
	if (prog < 0)
		return false;
	/* A directory is never a valid target: a kernel that knows the
	 * link says EBADF for it, one that does not says EINVAL. */
	link = dc_umulti_attach(prog, "/", &offset, &cookie, 1, false);
	if (link >= 0)
		close(link);
	close(prog);
	return link == -EBADF;
}

/*
 * kfeatures.c - detect the kernel's tracing features by trying them.
 *
 * Version numbers lie (distributions backport), so each feature is probed
 * by loading or looking up the real thing.  Kernel-function probes
 * (kprobe, fentry) are optional: where neither works, kernel layers use
 * tracepoints, and the start-up line says so.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kbtf.h"
#include "kfeatures.h"
#include "umulti.h"

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Whether the kernel refuses us BPF altogether.  The feature probes
 * below cannot tell "not permitted" from "absent" (libbpf 1.1's map
 * probe answers 0 with errno EPERM, its helper probe even answers yes),
 * so try the simplest map there is: EPERM means no root, no CAP_BPF. */
static bool bpf_denied(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == EPERM || errno == EACCES;
}

/* A two-instruction tp_btf program on the raw tracepoint whose BTF type
 * is target (btf_trace_NAME): BPF_PROG_TYPE_TRACING attached to a raw
 * tracepoint by its BTF type, which some kernels refuse even where they
 * take fentry, or the other way round. */
static bool probe_tp_btf(const char *target)
{
	static const struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0x95 },                         /* exit */
	};

	return dc_kbtf_tracing_probe("dc_probe_tp_btf", target,
				     BTF_KIND_TYPEDEF, BPF_TRACE_RAW_TP,
				     insns, 2) == 0;
}

/* The probe's BTF: "int main(void *ctx)" and "int sub(long *p)", a
 * global function taking a pointer to sized memory; its type id in
 * *sub_id, the main program's in *main_id. */
static struct btf *global_args_btf(__u32 *main_id, __u32 *sub_id)
{
	struct btf *btf = btf__new_empty();
	int i32, plong, pvoid, proto, sub, main;

	if (btf == NULL)
		return NULL;
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	plong = btf__add_ptr(btf, btf__add_int(btf, "long", 8, BTF_INT_SIGNED));
	pvoid = btf__add_ptr(btf, 0);
	proto = btf__add_func_proto(btf, i32);
	btf__add_func_param(btf, "p", plong);
	sub = btf__add_func(btf, "dc_probe_sub", BTF_FUNC_GLOBAL, proto);
	proto = btf__add_func_proto(btf, i32);
	btf__add_func_param(btf, "ctx", pvoid);
	main = btf__add_func(btf, "dc_probe_main", BTF_FUNC_GLOBAL, proto);
	if (i32 < 0 || plong < 0 || pvoid < 0 || sub < 0 || main < 0) {
		btf__free(btf);
		return NULL;
	}
	*sub_id = (__u32)sub;
	*main_id = (__u32)main;
	return btf;
}

/* Whether the verifier takes a global function whose argument points to
 * a map value, as derive_exit's do (collect.bpf.c): checked once on its
 * own, its pointers sized memory that may be NULL (5.12; before that a
 * global function's pointers could only be its context, and before 5.6
 * every function was checked where it is called).  A kprobe program, the
 * type of the exit programs, passes an array's value to such a function. */
static bool probe_global_args(void)
{
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 1, .imm = 0 },            /* r1 = 0 */
		{ .code = 0x63, .dst_reg = 10, .src_reg = 1, .off = -4 }, /* *(u32 *)(r10 - 4) = r1 */
		{ .code = 0xbf, .dst_reg = 2, .src_reg = 10 },       /* r2 = r10 */
		{ .code = 0x07, .dst_reg = 2, .imm = -4 },           /* r2 += -4 */
		{ .code = 0x18, .dst_reg = 1, .src_reg = BPF_PSEUDO_MAP_FD }, /* r1 = map */
		{ 0 },
		{ .code = 0x85, .imm = BPF_FUNC_map_lookup_elem },   /* call */
		{ .code = 0x15, .dst_reg = 0, .off = 2 },            /* if r0 == 0 goto +2 */
		{ .code = 0xbf, .dst_reg = 1, .src_reg = 0 },        /* r1 = r0 */
		{ .code = 0x85, .src_reg = BPF_PSEUDO_CALL, .imm = 2 }, /* call sub */
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },            /* r0 = 0 */
		{ .code = 0x95 },                                    /* exit */
		/* sub: return p ? *p : 0 */
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },            /* r0 = 0 */
		{ .code = 0x15, .dst_reg = 1, .off = 1 },            /* if r1 == 0 goto +1 */
		{ .code = 0x79, .dst_reg = 0, .src_reg = 1 },        /* r0 = *(u64 *)(r1 + 0) */
		{ .code = 0x95 },                                    /* exit */
	};
	struct bpf_func_info info[2] = { { .insn_off = 0 }, { .insn_off = 12 } };
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	const void *raw;
	struct btf *btf;
	int btf_fd, map, fd;
	__u32 size;

	btf = global_args_btf(&info[0].type_id, &info[1].type_id);
	if (btf == NULL)
		return false;
	/* Loaded through bpf(2) itself, not btf__load_into_kernel: a
	 * refusal (no permission, an old kernel) is an answer here, not a
	 * libbpf warning on stderr. */
	raw = btf__raw_data(btf, &size);
	btf_fd = raw ? bpf_btf_load(raw, size, NULL) : -1;
	btf__free(btf);
	if (btf_fd < 0)
		return false;
	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 8, 1, NULL);
	if (map < 0) {
		close(btf_fd);
		return false;
	}
	insns[4].imm = map;
	opts.prog_btf_fd = (__u32)btf_fd;
	opts.func_info = info;
	opts.func_info_cnt = 2;
	opts.func_info_rec_size = sizeof(info[0]);
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "dc_probe_global", "GPL",
			   insns, sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd >= 0)
		close(fd);
	close(map);
	close(btf_fd);
	return fd >= 0;
}

/* Whether user space can run a program on a CPU of its choosing: a test
 * run with BPF_F_TEST_RUN_ON_CPU (5.10), how each CPU is made to send its
 * batch of kernel-layer records (common.bpf.h, output.c).  A raw
 * tracepoint program of two instructions, run on CPU 0, answers 1. */
static bool probe_cpu_run(void)
{
	static const struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 1 }, /* r0 = 1 */
		{ .code = 0x95 },                         /* exit */
	};
	LIBBPF_OPTS(bpf_test_run_opts, run, .flags = BPF_F_TEST_RUN_ON_CPU,
		    .cpu = 0);
	bool ok;
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "dc_probe_cpu", "GPL",
			   insns, 2, NULL);
	if (fd < 0)
		return false;
	ok = bpf_prog_test_run_opts(fd, &run) == 0 && run.retval == 1;
	close(fd);
	return ok;
}

/* Whether BPF programs may compare-and-swap (5.12): the system calls'
 * exit program takes its CPU's batch so, since it may be preempted
 * (common.bpf.h).  Before 5.12 the verifier refuses the instruction in
 * any program that has it, reached or not, so it is only in that one,
 * loaded where this passes: a 64-bit compare-and-swap on the stack. */
static bool probe_cmpxchg(void)
{
	static const struct bpf_insn insns[] = {
		/* *(u64 *)(r10 - 8) = 0 */
		{ .code = 0x7a, .dst_reg = 10, .off = -8, .imm = 0 },
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0xb7, .dst_reg = 2, .imm = 1 }, /* r2 = 1 */
		/* r0 = cmpxchg((u64 *)(r10 - 8), r0, r2) */
		{ .code = 0xdb, .dst_reg = 10, .src_reg = 2, .off = -8,
		  .imm = 0xf1 },
		{ .code = 0x95 },                         /* exit */
	};
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "dc_probe_cas", "GPL",
			   insns, sizeof(insns) / sizeof(insns[0]), NULL);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

void dc_features_detect(struct dc_features *f)
{
	struct utsname u;

	memset(f, 0, sizeof(*f));
	if (uname(&u) == 0)
		snprintf(f->release, sizeof(f->release), "%s", u.release);
	f->btf = exists("/sys/kernel/btf/vmlinux");
	f->denied = bpf_denied();
	f->ringbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) > 0;
	f->cookie = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
					    BPF_FUNC_get_attach_cookie, NULL) > 0;
	f->task_storage = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE,
						    NULL) > 0;
	f->uprobes = exists("/sys/bus/event_source/devices/uprobe/type");
	f->kprobes = exists("/sys/bus/event_source/devices/kprobe/type");
	if (f->btf) {
		int err = dc_kbtf_fentry_probe();

		f->fentry = err == 0;
		f->fentry_errno = -err;
	} else {
		f->fentry_errno = ENOENT;
	}
	f->umulti = dc_umulti_supported();
	f->tp_btf = f->btf && probe_tp_btf("btf_trace_sys_enter");
	f->tp_btf_layers = f->tp_btf &&
			   probe_tp_btf("btf_trace_block_rq_complete");
	/* DC_TEST_CLASSIC_TP set: the classic tracepoints' programs, as
	 * where the kernel has no tp_btf, so tests can run both kinds. */
	f->classic_forced = getenv("DC_TEST_CLASSIC_TP") != NULL;
	if (f->classic_forced)
		f->tp_btf_layers = false;
	f->global_args = probe_global_args();
	f->cpu_run = probe_cpu_run();
	f->cmpxchg = probe_cmpxchg();
	/* DC_TEST_NO_BATCH set: each record straight into the ring, as
	 * where no program runs on a chosen CPU, so tests can run both. */
	f->batch_off = getenv("DC_TEST_NO_BATCH") != NULL;
}

/* tp_btf where the kernel takes it on a kernel layer's tracepoint (tried
 * on block_rq_complete): the classic tracepoint makes the kernel fill
 * the event's record before the program runs, at every event on the
 * host (perf: ~60-130 ns more per block event here than tp_btf, more
 * than the empty program itself); otherwise the classic ones, which
 * every kernel with BPF tracepoints has. */
bool dc_features_klayers_btf(const struct dc_features *f)
{
	return f->tp_btf_layers;
}

/* fentry first: a trampoline costs less than a kprobe's breakpoint and
 * reads arguments by their BTF types; kprobes where tracing programs are
 * refused (lockdown, no trampolines on this arch or build); neither:
 * kernel layers come from tracepoints only. */
enum dc_kfunc_method dc_features_kfunc_method(const struct dc_features *f)
{
	if (f->fentry && !f->fentry_unused)
		return DC_KFUNC_FENTRY;
	if (f->kprobes && f->cookie)
		return DC_KFUNC_KPROBE;
	return DC_KFUNC_NONE;
}

/* Per-CPU batches where user space can make any CPU send its batch:
 * without that, records would wait in a quiet CPU's batch for as long
 * as it stays quiet, and the end of a run could not gather them. */
bool dc_features_batch(const struct dc_features *f)
{
	return f->cpu_run && !f->batch_off;
}

/* System calls' records in the batches too where the exit program can
 * take one safely (common.bpf.h): a record's reservation and commit
 * less a call (bench/RESULTS.md, session 20). */
bool dc_features_sys_batch(const struct dc_features *f)
{
	return dc_features_batch(f) && f->cmpxchg;
}

const char *dc_kfunc_method_name(enum dc_kfunc_method m)
{
	switch (m) {
	case DC_KFUNC_FENTRY: return "fentry";
	case DC_KFUNC_KPROBE: return "kprobes";
	default: return "none";
	}
}

const char *dc_features_missing(const struct dc_features *f)
{
	if (f->denied)
		return "permission denied: loading BPF programs needs root "
		       "(or CAP_BPF and CAP_PERFMON)";
	if (!f->btf)
		return "the kernel has no BTF (/sys/kernel/btf/vmlinux): CO-RE programs cannot load";
	if (!f->ringbuf)
		return "the kernel has no BPF ring buffer (needs 5.8 or a backport)";
	if (!f->cookie)
		return "the kernel has no BPF cookies for uprobes (needs 5.15 or a backport)";
	if (!f->task_storage)
		return "the kernel has no BPF task-local storage (needs 5.11 or a backport)";
	if (!f->uprobes)
		return "the kernel has no uprobe support (CONFIG_UPROBE_EVENTS)";
	return NULL;
}

const char *dc_features_line(const struct dc_features *f)
{
	static char line[512];
	char fentry[96];

	if (f->fentry && f->fentry_unused)
		snprintf(fentry, sizeof(fentry), "fentry yes but not used (--kfunc kprobes)");
	else if (f->fentry)
		snprintf(fentry, sizeof(fentry), "fentry yes");
	else
		snprintf(fentry, sizeof(fentry), "fentry refused (%s)",
			 strerror(f->fentry_errno));
	snprintf(line, sizeof(line),
		 "kernel %s: uprobes %s (%s), ring buffer %s, cookies %s; "
		 "kernel functions: kprobes %s, %s: %s; tracepoints: %s; "
		 "kernel-layer records: %s",
		 f->release, f->uprobes ? "yes" : "no",
		 f->umulti ? "multi-link" : "one by one",
		 f->denied ? "not permitted" : f->ringbuf ? "yes" : "no",
		 f->denied ? "not permitted" : f->cookie ? "yes" : "no",
		 f->kprobes ? "yes" : "unavailable", fentry,
		 dc_features_kfunc_method(f) == DC_KFUNC_FENTRY
			 ? "kernel-function probes use fentry"
		 : dc_features_kfunc_method(f) == DC_KFUNC_KPROBE
			 ? "kernel-function probes use kprobes"
			 : "kernel layers fall back to tracepoints",
		 dc_features_klayers_btf(f) ? "tp_btf"
		 : f->classic_forced ? "classic (DC_TEST_CLASSIC_TP)"
				     : "classic (no tp_btf)",
		 dc_features_sys_batch(f) ? "batched per CPU, system calls' too"
		 : dc_features_batch(f)
			 ? "batched per CPU, system calls' one by one (no compare-and-swap in BPF)"
		 : f->batch_off ? "one by one (DC_TEST_NO_BATCH)"
				: "one by one (no test runs on a chosen CPU)");
	return line;
}

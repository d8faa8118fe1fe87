/*
 * kfeatures.h - what this kernel offers dc-collect, found once at start.
 *
 * The one place that decides kernel features: collect.c switches programs
 * off (bpf_program__set_autoload) from what is recorded here, and prints
 * dc_features_line() so users see in one line what is used and why.
 */
#ifndef DC_FEATURES_H
#define DC_FEATURES_H

#include <stdbool.h>

struct dc_features {
	bool btf;          /* /sys/kernel/btf/vmlinux: CO-RE works */
	bool ringbuf;      /* BPF ring buffer map */
	bool cookie;       /* bpf_get_attach_cookie() for kprobe-type progs */
	bool task_storage; /* task-local storage maps (the call stacks) */
	bool uprobes;      /* the uprobe perf PMU */
	bool kprobes;      /* the kprobe perf PMU */
	bool fentry;       /* BPF_PROG_TYPE_TRACING loads, with cookies */
	bool umulti;       /* the multi-uprobe link (6.6+) */
	bool tp_btf;       /* BTF-typed raw tracepoints (sys_enter reads the
	                      saved registers in place) */
	bool tp_btf_layers; /* the same on the kernel layers' tracepoints */
	bool classic_forced; /* DC_TEST_CLASSIC_TP: tp_btf_layers off */
	bool global_args;  /* the verifier checks a global function with
	                      pointer arguments once, on its own */
	bool cpu_run;      /* a program runs on a chosen CPU (test run
	                      with BPF_F_TEST_RUN_ON_CPU) */
	bool batch_off;    /* DC_TEST_NO_BATCH: no per-CPU batches */
	bool cmpxchg;      /* BPF's compare-and-swap (5.12) */
	int fentry_errno;  /* why fentry failed to load */
	bool denied;       /* BPF refused us (EPERM): not root, no CAP_BPF */
	bool fentry_unused; /* works, but --kfunc kprobes asked for kprobes */
	char release[128]; /* uname -r */
};

/* How kernel functions are probed here: the one decision, made from
 * what dc_features_detect() found. */
enum dc_kfunc_method {
	DC_KFUNC_NONE = 0,   /* neither: kernel layers use tracepoints */
	DC_KFUNC_KPROBE,     /* kprobes/kretprobes */
	DC_KFUNC_FENTRY,     /* fentry/fexit (BPF trampolines) */
};

void dc_features_detect(struct dc_features *f);
/* Whether the kernel layers' programs are the tp_btf ones (the kernel's
 * structs read in place) rather than the classic tracepoints' (whose
 * records the kernel fills first): the one decision. */
bool dc_features_klayers_btf(const struct dc_features *f);
enum dc_kfunc_method dc_features_kfunc_method(const struct dc_features *f);
/* Whether kernel-layer records may wait in per-CPU batches
 * (common.bpf.h): the one decision. */
bool dc_features_batch(const struct dc_features *f);
/* Whether system calls' records may too (dc_sys_exit_batch): the one
 * decision. */
bool dc_features_sys_batch(const struct dc_features *f);
const char *dc_kfunc_method_name(enum dc_kfunc_method m);
/* One line, no newline, describing f and the fallback in force. */
const char *dc_features_line(const struct dc_features *f);
/* The reason BPF collection cannot run at all, or NULL if it can. */
const char *dc_features_missing(const struct dc_features *f);

#endif /* DC_FEATURES_H */

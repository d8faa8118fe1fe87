# t/: TAP test scripts, run with prove by `make check`.
EXTRA_DIST += t/test-lib.sh t/lsan.supp $(wildcard $(srcdir)/t/*.t) \
	t/kernels/fetch-kernel.sh t/kernels/mkinitramfs.sh t/kernels/run-vm.sh \
	t/kernels/vm-init t/kernels/kfunc-bench.sh t/kernels/vm-crash.t

# In a sanitizer build (configure --enable-sanitizers) every finding,
# leaks included, is written to t/sanitizer/ as well as failing its tool
# with status 86 (UBSan's through lib/sanreport.c's hook: combined with
# ASan it ignores log_path): a test that tolerates a failure still cannot hide one,
# since the suite fails when that folder has a report.  (dc-wrap
# preloads the client library ahead of the ASan runtime into sanitized
# helpers: verify_asan_link_order=0 lets them run.)
if SANITIZERS
SAN_LOGS = $(abs_top_builddir)/t/sanitizer
SAN_ENV = ASAN_OPTIONS=detect_leaks=1:exitcode=86:verify_asan_link_order=0:log_path=$(SAN_LOGS)/asan \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86:log_path=$(SAN_LOGS)/ubsan \
	DC_UBSAN_LOG=$(SAN_LOGS)/ubsan \
	LSAN_OPTIONS=suppressions=$(abs_top_srcdir)/t/lsan.supp
endif

# The scripts `make check` runs: all but the VM ones, unless told
# (make check PROVE_TESTS='...').  A sanitizer build leaves out dc-report's
# scripts (t/7000, t/7010): their time is Python and Dask, and the C tools
# they drive run the same way in the scripts that test those tools.
VM_CHECKS = 9000-vm-debian-6.1.t 9001-vm-harness.t
PROVE_TESTS = $(filter-out $(addprefix %/,$(VM_CHECKS)) $(SAN_SKIP_TESTS),\
	$(wildcard $(abs_top_srcdir)/t/*.t))
if SANITIZERS
SAN_SKIP_TESTS = %/7000-report.t %/7010-report-input.t
endif

# Scripts that load no BPF program and count nothing system-wide run two
# at a time (PROVE_JOBS), before the others, which run one at a time:
# beside another script, a collector that counts every process's events
# or times a workload sees that script too.
PROVE_JOBS = 2
PROVE_PARALLEL = $(addprefix %/,0000-stream.t 0010-lib.t 0100-options.t \
	1000-explore.t 1010-explore-corrupt.t 1020-explore-kernel.t 1100-gen.t \
	1110-gen-errors.t 2000-sign.t 2200-verify-api.t 4000-aggregate.t \
	4010-aggregate-counters.t 4020-calltree.t 4100-wrap.t \
	5000-write-format.t 5010-write-errors.t 5020-write-gzip.t \
	5030-write-check.t 5040-write-split.t 5050-write-summary.t \
	5060-write-counters.t 5070-write-parents.t 5080-write-safety.t \
	7000-report.t 7010-report-input.t 7145-wrappers.t 8090-fuzz-corpus.t \
	8095-sanitizer-report.t)

check-local: all $(check_PROGRAMS)
	@if test -n "$(SAN_LOGS)"; then rm -rf $(SAN_LOGS); mkdir -p $(SAN_LOGS); fi
	@cd $(top_builddir) && export DC_SRC_DIR=$(abs_top_srcdir) \
	DC_BUILD_DIR=$(abs_top_builddir) $(SAN_ENV) && rc=0 && \
	par='$(filter $(PROVE_PARALLEL),$(PROVE_TESTS))' && \
	seq='$(filter-out $(PROVE_PARALLEL),$(PROVE_TESTS))' && \
	{ test -z "$$par" || prove $(PROVE_FLAGS) -j$(PROVE_JOBS) $$par || rc=1; } && \
	{ test -z "$$seq" || prove $(PROVE_FLAGS) $$seq || rc=1; } && \
	if test -n "$(SAN_LOGS)" && test -n "$$(ls $(SAN_LOGS))"; then \
		echo "sanitizer findings:"; head -n 40 $(SAN_LOGS)/*; exit 1; \
	fi; exit $$rc

# The kernel-dependent tests again in a VM running Debian 12's stock 6.1
# kernel (t/9000-vm-debian-6.1.t), and the VM harness's report of a
# guest that crashes (t/9001-vm-harness.t); the kernel is fetched once,
# into the build tree, never installed on the host.
KERNEL_DIR = $(abs_top_builddir)/kernels/debian-6.1
check-kernels: all $(check_PROGRAMS)
	$(abs_top_srcdir)/t/kernels/fetch-kernel.sh $(KERNEL_DIR)
	cd $(top_builddir) && DC_SRC_DIR=$(abs_top_srcdir) \
	DC_BUILD_DIR=$(abs_top_builddir) DC_KERNEL_DIR=$(KERNEL_DIR) \
	prove $(PROVE_FLAGS) $(addprefix $(abs_top_srcdir)/t/,$(VM_CHECKS))
.PHONY: check-kernels

clean-local: clean-local-trash
clean-local-trash:
	rm -rf t/trash kernels
.PHONY: clean-local-trash

# Exact workloads for the collector's tests.
check_PROGRAMS += t/helpers/workload
t_helpers_workload_SOURCES = t/helpers/workload.c
t_helpers_workload_LDADD = -lpthread
# Never sanitized: it is the traced application, and the client
# library preloaded into it must come first, ahead of any ASan runtime.
t_helpers_workload_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS))
t_helpers_workload_LDFLAGS =
# STDIO, vectored, open/fcntl/rename/chdir arguments (t/3200).
check_PROGRAMS += t/helpers/userbytes
t_helpers_userbytes_SOURCES = t/helpers/userbytes.c
t_helpers_userbytes_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS))
t_helpers_userbytes_LDFLAGS =
# A child between its fork and its exec (t/3140).
check_PROGRAMS += t/helpers/forkexec
t_helpers_forkexec_SOURCES = t/helpers/forkexec.c
t_helpers_forkexec_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS))
t_helpers_forkexec_LDFLAGS =
# io_uring reads and writes through the raw system calls (t/3160).
check_PROGRAMS += t/helpers/dc-uring
t_helpers_dc_uring_SOURCES = t/helpers/dc-uring.c
t_helpers_dc_uring_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS))
t_helpers_dc_uring_LDFLAGS =
# The syscalls layer's calls that libc's usual I/O does not make (t/3115).
check_PROGRAMS += t/helpers/dc-sysmore
t_helpers_dc_sysmore_SOURCES = t/helpers/dc-sysmore.c
# Built by t/3210 and t/3220 themselves with mpicc (OpenMPI, MPICH) and h5cc.
EXTRA_DIST += t/helpers/mpi-bytes.c t/helpers/h5-ids.c t/helpers/mpi-types.c
EXTRA_DIST += t/helpers/pfw-query
EXTRA_DIST += t/helpers/report-query.py t/helpers/mpi-hdf5.c \
	t/helpers/pfw-parents-first.py

# Applications that crash, _exit or wait between phases (t/80xx).
check_PROGRAMS += t/helpers/fault-app
t_helpers_fault_app_SOURCES = t/helpers/fault-app.c
# Never sanitized: its segmentation fault is the point, not a finding.
t_helpers_fault_app_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS))
t_helpers_fault_app_LDFLAGS =

# Two simulated hosts talk over a veth pair (t/7160-hosts.t).
check_PROGRAMS += t/helpers/dc-netpair
t_helpers_dc_netpair_SOURCES = t/helpers/dc-netpair.c

# POSIX AIO with known requests (t/3250-posix-aio.t).  Never sanitized:
# the traced application, whose calls both paths must see as libc's.
check_PROGRAMS += t/helpers/aio
t_helpers_aio_SOURCES = t/helpers/aio.c
t_helpers_aio_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS))
t_helpers_aio_LDFLAGS =

# stdin and stdout without a FILE *, reads by the character
# (t/3260-stdstreams.t).  Never sanitized: the traced application.
# -fno-builtin and -fno-inline: its calls stay what it wrote (an
# optimised build turns printf("...\n") into puts, and <stdio.h>'s
# inline getchar, putchar and vprintf into getc, putc and vfprintf).
check_PROGRAMS += t/helpers/stdstreams
t_helpers_stdstreams_SOURCES = t/helpers/stdstreams.c
t_helpers_stdstreams_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS)) \
	-fno-builtin -fno-inline
t_helpers_stdstreams_LDFLAGS =

# Fast-path workloads and a hostile client (t/4200-fastpath.t).
check_PROGRAMS += t/helpers/fastclient
t_helpers_fastclient_SOURCES = t/helpers/fastclient.c
t_helpers_fastclient_LDADD = -lpthread
# Never sanitized: the traced application.  t/4200 compares its calls on
# the fast path with the same calls seen by uprobes on libc's functions,
# and ASan's printf interceptors never call libc's fprintf.
t_helpers_fastclient_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS))
t_helpers_fastclient_LDFLAGS =
# The same, as a program built for large files and with glibc's checks
# is (Debian builds its packages so): its calls reach libc as open64,
# fcntl64, __read_chk, __open_2 (t/4200).
check_PROGRAMS += t/helpers/fastclient64
t_helpers_fastclient64_SOURCES = t/helpers/fastclient.c
t_helpers_fastclient64_LDADD = -lpthread
t_helpers_fastclient64_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS)) -O2 \
	-D_FILE_OFFSET_BITS=64 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2
t_helpers_fastclient64_LDFLAGS =
# Execs with the preload removed, by each exec function (t/4240).  Never
# sanitized: the traced application, which preloads the client.
check_PROGRAMS += t/helpers/cleanexec
t_helpers_cleanexec_SOURCES = t/helpers/cleanexec.c
t_helpers_cleanexec_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS))
t_helpers_cleanexec_LDFLAGS =
# A child of vfork that closes and duplicates before its exec (t/4240):
# unsanitized, as the programs the client library is preloaded into.
check_PROGRAMS += t/helpers/vforkcalls
t_helpers_vforkcalls_SOURCES = t/helpers/vforkcalls.c
t_helpers_vforkcalls_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS))
t_helpers_vforkcalls_LDFLAGS =
# posix_spawn with chosen attributes and file actions (t/4250).
check_PROGRAMS += t/helpers/spawnstate
t_helpers_spawnstate_SOURCES = t/helpers/spawnstate.c
t_helpers_spawnstate_CFLAGS = $(filter-out $(SAN_CFLAGS),$(AM_CFLAGS))
t_helpers_spawnstate_LDFLAGS =
EXTRA_DIST += t/helpers/mpi-writes.c

# A signed overflow on request: UBSan's findings reach the log (t/8095).
check_PROGRAMS += t/helpers/ub-probe
t_helpers_ub_probe_SOURCES = t/helpers/ub-probe.c
t_helpers_ub_probe_LDADD = lib/libdc.la

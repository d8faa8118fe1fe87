# t/: TAP test scripts, run with prove by `make check`.
EXTRA_DIST += t/test-lib.sh $(wildcard $(srcdir)/t/*.t)

check-local: all $(check_PROGRAMS)
	cd $(top_builddir) && DC_SRC_DIR=$(abs_top_srcdir) \
	DC_BUILD_DIR=$(abs_top_builddir) \
	prove $(PROVE_FLAGS) $(abs_top_srcdir)/t/*.t

clean-local: clean-local-trash
clean-local-trash:
	rm -rf t/trash
.PHONY: clean-local-trash

# Exact workloads for the collector's tests.
check_PROGRAMS += t/helpers/workload
t_helpers_workload_SOURCES = t/helpers/workload.c
t_helpers_workload_LDADD = -lpthread
EXTRA_DIST += t/helpers/pfw-query
EXTRA_DIST += t/helpers/report-query.py t/helpers/mpi-hdf5.c

# Applications that crash, _exit or wait between phases (t/80xx).
check_PROGRAMS += t/helpers/fault-app
t_helpers_fault_app_SOURCES = t/helpers/fault-app.c

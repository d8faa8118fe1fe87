# dc-run/local.mk - dc-run, the runner for batch job scripts.
bin_PROGRAMS += dc-run/dc-run
dc_run_dc_run_SOURCES = dc-run/dc-run.c
dc_run_dc_run_LDADD = lib/libdc.la
EXTRA_DIST += dc-run/README.md

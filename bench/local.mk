# bench/local.mk
EXTRA_DIST += bench/run bench/RESULTS.md
EXTRA_DIST += bench/report-bench.sh

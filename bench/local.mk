# bench/local.mk
EXTRA_DIST += bench/run bench/RESULTS.md

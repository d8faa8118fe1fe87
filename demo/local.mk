# demo/: the workload and script behind `./setup.sh demo`.
noinst_PROGRAMS += demo/io-demo
demo_io_demo_SOURCES = demo/io-demo.c
EXTRA_DIST += demo/run-demo.sh

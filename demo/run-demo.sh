#!/bin/sh
# run-demo.sh BUILD_DIR - trace a demo workload end to end with the tools
# of BUILD_DIR: dd writing 64 MiB in 1 MiB blocks, then io-demo doing
# POSIX and STDIO calls, through dc-collect | dc-aggregate | dc-write.
# Prints where the trace is and a summary of it, and writes an HTML
# report of it (dc-report) and prints its path.
set -eu

build=$(cd "${1:?usage: run-demo.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
out="$src/demo-out"
PATH="$build/dc-gen:$build/dc-sign:$build/dc-collect:$build/dc-aggregate:$build/dc-write:$build/dc-report:$PATH"
export DC_DATA_DIR="$src/configs"
# The client library the collector preloads into the demo, from the
# build tree (nothing is installed).
export DC_CLIENT_LIB="$build/dc-wrap/.libs/libdcclient.so"

rm -rf "$out"
mkdir -p "$out"
cd "$out"

echo "== generating probes from the default config (POSIX, STDIO, syscalls)"
dc-gen --default >probes.json
dc-sign --gen-key -k demo.key >/dev/null
dc-sign -k demo.key -o probes.sig probes.json

echo "== tracing: dd (64 x 1 MiB) and io-demo"
dc-collect -k demo.key probes.sig -- sh -c '
	dd if=/dev/zero of=demo-data bs=1M count=64 status=none &&
	"$0" demo-file' "$build/demo/io-demo" |
	dc-aggregate | dc-write trace.pfw.gz

echo
echo "trace: $out/trace.pfw.gz"
dc-write --summary trace.pfw.gz

echo
echo "== writing the HTML report (dc-report, a local Dask cluster)"
dc-report trace.pfw.gz -o report.html
echo "report: $out/report.html"

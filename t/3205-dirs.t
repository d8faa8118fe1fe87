#!/bin/sh
# Directory streams are named by their directory, through the client
# library's wrappers and through uprobes alike: opendir's by its path,
# fdopendir's by its descriptor's (Python's os.listdir of a descriptor,
# tar and find read directories that way), and each readdir and
# closedir by its stream's.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

# d1 holds 3 entries, d2 holds 2: readdir returns each, "." and "..",
# then NULL.
test_expect_success BPF,PYTHON3 'opendir and fdopendir streams: every readdir and closedir names its directory' '
	mkdir d1 d2 && : >d1/a && : >d1/b && : >d1/c && : >d2/x && : >d2/y &&
	printf "layers: [posix]\n" >c.yaml &&
	for how in fast uprobes; do
		opt= &&
		if test $how = uprobes; then opt=--no-preload; fi &&
		trace_ok c.yaml $how.pfw.gz $opt probes.sig -- python3 -c "
import os
assert sorted(os.listdir(\"d1\")) == [\"a\", \"b\", \"c\"]
fd = os.open(\"d2\", os.O_RDONLY)
assert sorted(os.listdir(fd)) == [\"x\", \"y\"]
os.close(fd)" &&
		count() { pfw-query count $how.pfw.gz --cat POSIX "$@"; } &&
		test "$(count --name opendir --file "$PWD/d1")" = 1 &&
		test "$(count --name readdir --file "$PWD/d1")" = 6 &&
		test "$(count --name closedir --file "$PWD/d1")" = 1 &&
		test "$(count --name fdopendir --file "$PWD/d2")" = 1 &&
		test "$(count --name readdir --file "$PWD/d2")" = 5 &&
		test "$(count --name closedir --file "$PWD/d2")" = 1 &&
		n=$(pfw-query list $how.pfw.gz --cat POSIX --name readdir | grep -c -v fhash;
		    true) &&
		{ test "$n" = 0 || { echo "$how: $n readdir calls name no directory"; false; }; } ||
		return 1
	done
'

test_done

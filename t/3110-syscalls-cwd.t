#!/bin/sh
# The syscalls layer follows the working directory: chdir and fchdir are
# traced with their path and fd, so relative paths after them name the
# right files.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a signing key' '
	dc-sign --gen-key -k "$SHARED/key" >/dev/null
'

test_expect_success 'the syscalls layer plans chdir (a path) and fchdir (an fd)' '
	printf "layers: [syscalls]\n" >c.yaml &&
	dc-gen c.yaml >p.json &&
	python3 -c "
import json, sys
p = {x[\"function\"]: x for x in json.load(open(\"p.json\"))[\"probes\"]}
assert p[\"chdir\"][\"args\"] == [\"path\"], p[\"chdir\"]
assert p[\"fchdir\"][\"args\"] == [\"fd\"], p[\"fchdir\"]
"
'

test_expect_success BPF,PYTHON3 'chdir and fchdir are traced; files opened after them are named in the new directory' '
	mkdir d1 d2 &&
	trace_cmd="import os
os.chdir(\"d1\"); open(\"a\", \"w\").write(\"x\")
fd = os.open(\"../d2\", os.O_RDONLY); os.fchdir(fd); open(\"b\", \"w\").write(\"y\")
open(\"../fd\", \"w\").write(str(fd))" &&
	printf "layers: [syscalls]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- python3 -c "$trace_cmd" &&
	test "$(cat collect.rc)" = 0 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name chdir --file "$PWD/d1" --arg ret=0)" = 1 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name fchdir --file "$PWD/d2" --arg fd=$(cat fd) --arg ret=0)" = 1 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name openat --file "$PWD/d1/a")" = 1 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name openat --file "$PWD/d2/b")" = 1 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name openat --file "$PWD/a")" = 0
'

test_expect_success BPF,PYTHON3 'a failed chdir is traced with its errno and changes nothing' '
	mkdir d3 &&
	printf "layers: [syscalls]\n" >c.yaml &&
	trace c.yaml t.pfw.gz probes.sig -- python3 -c "
import os
try:
    os.chdir(\"missing\")
except FileNotFoundError:
    pass
os.chdir(\"d3\"); open(\"c\", \"w\").write(\"z\")" &&
	test "$(pfw-query count t.pfw.gz --cat sys --name chdir --arg ret=-2 --arg errno=2)" = 1 &&
	test "$(pfw-query count t.pfw.gz --cat sys --name openat --file "$PWD/d3/c")" = 1
'

test_done

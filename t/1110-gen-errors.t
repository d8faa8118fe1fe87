#!/bin/sh
# dc-gen on bad configs: each error is one line "FILE:LINE:COL: message"
# and exit 4.
. "$(dirname "$0")/test-lib.sh"

# bad_config 'YAML (printf format)' 'expected message': exit 4, one line,
# exactly "dc-gen: bad.yaml:" followed by the message.
bad_config() {
	printf "$1" >bad.yaml &&
	test_must_fail_with 4 dc-gen bad.yaml >out 2>err &&
	test_one_line err &&
	test ! -s out &&
	case "$(cat err)" in
	"dc-gen: bad.yaml:$2"*) ;;
	*) echo "expected: dc-gen: bad.yaml:$2"; echo "got: $(cat err)"; return 1 ;;
	esac
}

test_expect_success 'unknown top-level key' '
	bad_config "mode: trace\nlayres: [posix]\n" \
		"2:1: unknown key \"layres\""
'

test_expect_success 'unknown key in a layer' '
	bad_config "layers:\n  - name: X\n    kind: uprobe\n    target: libc.so.6\n    inlcude: [\"^a\"]\n" \
		"5:5: unknown key \"inlcude\" in a layer"
'

test_expect_success 'wrong types' '
	bad_config "interval_ms: abc\nlayers: [posix]\n" \
		"1:14: interval_ms must be an integer" &&
	bad_config "interval_ms: -5\nlayers: [posix]\n" \
		"1:14: interval_ms must be an integer" &&
	bad_config "layers: posix\n" \
		"1:9: layers must be a list, not a scalar" &&
	bad_config "layers:\n  - name: X\n    kind: uprobe\n    target: libc.so.6\n    optional: maybe\n    functions: [write]\n" \
		"5:15: optional must be true or false" &&
	bad_config "layers:\n  - name: [X]\n    kind: uprobe\n" \
		"2:11: name must be a string, not a list" &&
	bad_config "mode: fast\nlayers: [posix]\n" \
		"1:7: mode must be trace or profile"
'

test_expect_success 'bad regex' '
	bad_config "layers:\n  - name: X\n    kind: uprobe\n    target: libc.so.6\n    include: [\"^ok\", \"^(a\"]\n" \
		"5:22: bad regex \"^(a\" in include"
'

test_expect_success 'YAML syntax errors' '
	bad_config "layers: [posix\n" "2:1: YAML syntax error" &&
	bad_config "mode: trace\n\tlayers: x\n" "2:1: YAML syntax error" &&
	bad_config "layers:\n  - posix\n - stdio\n" "3:2: YAML syntax error"
'

test_expect_success 'unknown layer, kind, argument kind, return kind' '
	bad_config "layers:\n  - posix\n  - nosuch\n" \
		"3:5: unknown layer \"nosuch\"" &&
	bad_config "layers:\n  - name: X\n    kind: probe\n    functions: [a]\n" \
		"3:11: unknown kind \"probe\"" &&
	bad_config "layers:\n  - name: X\n    kind: uprobe\n    target: libc.so.6\n    functions: [write]\n    args:\n      write: {args: [fd, bogus], ret: size}\n" \
		"7:26: unknown argument kind \"bogus\"" &&
	bad_config "layers:\n  - name: X\n    kind: syscall\n    functions: [write]\n    args:\n      write: {args: [fd], ret: lots}\n" \
		"6:32: unknown return kind \"lots\""
'

test_expect_success 'incomplete layers and duplicate keys' '
	bad_config "layers:\n  - name: X\n    kind: uprobe\n    functions: [a]\n" \
		"2:5: layer \"X\": a uprobe layer needs a target" &&
	bad_config "layers:\n  - name: X\n    kind: syscall\n" \
		"2:5: layer \"X\" needs include (regexes) or functions (names)" &&
	bad_config "layers:\n  - name: X\n    functions: [a]\n" \
		"2:11: layer \"X\" is not built in and has no kind" &&
	bad_config "mode: trace\nmode: profile\nlayers: [posix]\n" \
		"2:1: duplicate key \"mode\"" &&
	bad_config "layers:\n  - name: X\n    kind: syscall\n    functions: [read, read, read, read, read, read, read]\n    args:\n      read: {args: [fd, fd, fd, fd, fd, fd, fd]}\n" \
		"6:45: more than 6 arguments for read"
'

test_expect_success 'empty config, missing layers, not a mapping' '
	: >empty.yaml &&
	test_must_fail_with 4 dc-gen empty.yaml 2>err &&
	grep -qx "dc-gen: empty.yaml: empty config" err &&
	printf "mode: trace\n" >nolayers.yaml &&
	test_must_fail_with 4 dc-gen nolayers.yaml 2>err &&
	grep -qx "dc-gen: nolayers.yaml: no layers" err &&
	bad_config "[1, 2]\n" "1:1: the config must be a mapping"
'

test_expect_success 'an unreadable config is exit 1' '
	test_must_fail_with 1 dc-gen no-such.yaml 2>err &&
	test_one_line err &&
	grep -q "cannot open no-such.yaml: No such file or directory" err
'

test_done

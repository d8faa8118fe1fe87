#!/bin/sh
# dc-wrap and libdcclient.so: preloading, the exported hooks, errors.
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq NM '
	command -v nm >/dev/null || { echo "nm (binutils) not installed"; false; }
'

test_expect_success 'the client library is built' '
	test -f "$DC_CLIENT_LIB"
'

test_expect_success 'LD_PRELOAD holds the library, absolute, first' '
	dc-wrap sh -c "echo \$LD_PRELOAD" >out &&
	echo "$(cd "$(dirname "$DC_CLIENT_LIB")" && pwd -P)/libdcclient.so" >expect &&
	test_cmp expect out
'

test_expect_success 'an existing LD_PRELOAD is kept after the library' '
	cp "$DC_CLIENT_LIB" "$PWD/other.so" &&
	LD_PRELOAD="$PWD/other.so" dc-wrap sh -c "echo \$LD_PRELOAD" >out &&
	grep -q "libdcclient.so:$PWD/other.so\$" out
'

test_expect_success 'the library is not added twice' '
	dc-wrap dc-wrap sh -c "echo \$LD_PRELOAD" >out &&
	test "$(tr ":" "\n" <out | grep -c libdcclient)" = 1
'

test_expect_success 'the command really loads the library' '
	dc-wrap cat /proc/self/maps >maps &&
	grep -q "libdcclient\.so" maps &&
	! grep -q libdcclient /proc/self/maps
'

test_expect_success 'arguments and exit status are the command'"'"'s' '
	dc-wrap sh -c "echo \$1 \$2; exit 7" sh "a b" --help >out
	test $? = 7 &&
	echo "a b --help" >expect &&
	test_cmp expect out
'

test_expect_success NM 'the hooks and the wrapped functions, nothing else, are exported' '
	nm -D --defined-only "$DC_CLIENT_LIB" >syms &&
	grep -q " T dc_client_register\$" syms &&
	grep -q " T dc_client_unregister\$" syms &&
	grep -q " T dc_client_quiet\$" syms &&
	sed -n "s/.* T //p" syms | grep -v "^dc_client_" | sort >exported &&
	# The table, the other names of libc functions and the checking versions.
	sed -n "/define DC_FAST_\(FUNCS\|ALIASES\|FORTIFIED\)(X)/,/[^\\\\]\$/p" \
		"$DC_SRC_DIR/lib/fastabi.h" |
		grep -o "X([A-Za-z0-9_]*," | sed "s/X(//; s/,//" >wrapped &&
	# And the exec functions glibc exports (dc-wrap/exec.c).
	printf "%s\n" execve execv execvp execvpe execl execle execlp \
		fexecve execveat >>wrapped &&
	# vfork, on x86-64 (dc-wrap/vfork.c).
	if test "$(uname -m)" = x86_64; then echo vfork >>wrapped; fi &&
	# posix_spawn, and the functions that build its file actions
	# (dc-wrap/spawn.c).
	printf "%s\n" posix_spawn posix_spawnp \
		posix_spawn_file_actions_init posix_spawn_file_actions_destroy \
		posix_spawn_file_actions_addclose posix_spawn_file_actions_adddup2 \
		posix_spawn_file_actions_addopen posix_spawn_file_actions_addchdir_np \
		posix_spawn_file_actions_addfchdir_np \
		posix_spawn_file_actions_addclosefrom_np \
		posix_spawn_file_actions_addtcsetpgrp_np >>wrapped &&
	sort -o wrapped wrapped &&
	test_cmp wrapped exported &&
	n=252 && { test "$(uname -m)" != x86_64 || n=253; } &&
	test "$(grep -c "" exported)" = $n &&
	# What programs look up to learn whether they have MPI: a preloaded
	# definition would answer yes in a program without it.
	! grep -E "^(MPI_Init|MPI_Initialized|MPI_Finalize|MPI_Comm_rank)\$" exported
'

test_expect_success 'the library depends on libc only' '
	readelf -d "$DC_CLIENT_LIB" | sed -n "s/.*(NEEDED).*\[\(.*\)\]/\1/p" >needed &&
	echo libc.so.6 >expect &&
	test_cmp expect needed
'

test_expect_success 'constructor and destructor call the hooks with version and pid' '
	dc-wrap dc-client-probe >out &&
	pid=$(sed -n "s/^main 0 //p" out) &&
	test -n "$pid" &&
	printf "register 1 %s\nmain 0 %s\nunregister 1 %s\n" $pid $pid $pid >expect &&
	test_cmp expect out
'

test_expect_success 'without dc-wrap the hooks are not called' '
	dc-client-probe >out &&
	test_line_count out 1
'

test_expect_success 'DC_RUN_ID is exported with --run-id' '
	dc-wrap --run-id r42 sh -c "echo \$DC_RUN_ID" >out &&
	echo r42 >expect &&
	test_cmp expect out
'

test_expect_success '--lib names the library' '
	cp "$DC_CLIENT_LIB" mylib.so &&
	dc-wrap --lib mylib.so sh -c "echo \$LD_PRELOAD" >out &&
	echo "$(pwd -P)/mylib.so" >expect &&
	test_cmp expect out
'

test_expect_success 'a missing library is refused in one line' '
	test_must_fail_with 1 dc-wrap --lib ./nope.so true 2>err &&
	test_one_line err &&
	grep -q "nope.so" err
'

test_expect_success 'DC_CLIENT_LIB is used when --lib is absent' '
	DC_CLIENT_LIB=/nonexistent/libdcclient.so &&
	test_must_fail_with 1 dc-wrap true 2>err &&
	grep -q "/nonexistent/libdcclient.so" err
'

test_expect_success 'a command that does not exist exits 127' '
	test_must_fail_with 127 dc-wrap no-such-command-xyz 2>err &&
	test_one_line err &&
	grep -q "no-such-command-xyz: command not found" err
'

test_expect_success 'a command that is not executable exits 126' '
	echo "echo hi" >script &&
	chmod 644 script &&
	test_must_fail_with 126 dc-wrap ./script 2>err &&
	test_one_line err
'

test_expect_success 'the ready file is waited for' '
	( sleep 1; : >ready ) &
	dc-wrap --ready-file ready --timeout 10 sh -c "test -f ready && echo go" >out &&
	wait &&
	echo go >expect &&
	test_cmp expect out
'

test_expect_success 'a ready file that never appears times out, exit 1' '
	test_must_fail_with 1 dc-wrap --ready-file never --timeout 1 true 2>err &&
	test_one_line err &&
	grep -q "never" err
'

test_expect_success 'no command is a usage error' '
	test_must_fail_with 2 dc-wrap 2>err &&
	grep -q "Try .dc-wrap --help" err
'

test_expect_success 'a bad timeout is a usage error' '
	test_must_fail_with 2 dc-wrap --timeout soon true
'

test_expect_success '--help and --version' '
	dc-wrap --help >out &&
	grep -q "^Usage: dc-wrap" out &&
	dc-wrap --version >out &&
	grep -q "^dc-wrap (datacrumbs)" out
'

test_done

#!/bin/sh
# dc-signd: the signing service and dc-sign --via-service, with a
# non-root caller.

. "$(dirname "$0")/test-lib.sh"

DC_TEST_USER=dc-test-user
DC_SIGN_BIN="$DC_BUILD_DIR/dc-sign/dc-sign"

test_lazy_prereq TESTUSER '
	test "$(id -u)" = 0 || { echo "needs root to create a user"; false; }
	command -v setpriv >/dev/null || { echo "setpriv not available"; false; }
	if ! id -u '$DC_TEST_USER' >/dev/null 2>&1; then
		command -v useradd >/dev/null || { echo "useradd not available"; false; }
		useradd -M -r -U -s /usr/sbin/nologin '$DC_TEST_USER' &&
		touch "$TRASH_DIRECTORY/created-user"
	fi
'

# as_user CMD...: run CMD as the test user with their groups.
as_user() {
	setpriv --reuid="$DC_TEST_USER" --regid="$(id -g "$DC_TEST_USER")" \
		--init-groups "$@"
}

# A spec with the given probes (JSON objects, comma separated).
write_spec() {
	printf '{ "datacrumbs_probes": 1, "mode": "trace", "probes": [ %s ] }\n' \
		"$1" >"${2:-spec.json}"
}

uprobe() {
	printf '{ "layer": "%s", "kind": "uprobe", "target": "%s", "function": "%s", "offset": 4096, "args": ["fd"], "ret": "size" }' \
		"$1" "$2" "$3"
}

syscall_probe() {
	printf '{ "layer": "%s", "kind": "syscall", "function": "read", "nr": 0, "args": ["fd", "ptr", "size"], "ret": "size" }' \
		"$1"
}

# Key, a library folder the policy allows, a policy; readable by the
# test user where it must be.
setup_service() {
	dc-sign --gen-key -k key >key.id 2>/dev/null &&
	mkdir -p lib &&
	head -c 8192 /dev/urandom >lib/libok.so &&
	chmod 644 lib/libok.so &&
	here=$(pwd -P) &&
	cat >policy.json <<-POLICY
	{ "datacrumbs_policy": 1, "max_probes": ${MAX_PROBES:-3},
	  "allowed_layers": ["POSIX", "sys"],
	  "allowed_kinds": ["uprobe", "syscall"],
	  "allowed_targets": ["$here/lib/"] }
	POLICY
}

# Services this test started are stopped when its subshell exits, even
# when it fails half way (the test body runs in its own subshell).
started() {
	daemons="${daemons:-} $1"
	trap 'for p in $daemons; do
		grep -q dc-signd /proc/$p/cmdline 2>/dev/null && kill $p
	done' EXIT
}

# Start dc-signd for one connection in the background.
start_once() {
	rm -f sock &&
	{ dc-signd -s "$(pwd)/sock" -k key -p policy.json --once "$@" 2>signd.log & } &&
	started $! &&
	wait_for_socket sock
}

wait_for_socket() {
	for i in $(seq 50); do
		test -S "$1" && return 0
		sleep 0.1
	done
	echo "no socket $1" >&2
	cat signd.log >&2
	return 1
}

test_expect_success 'dc-signd --help and --version' '
	dc-signd --help >out &&
	grep -q "^Usage: dc-signd" out &&
	dc-signd --version >out &&
	grep -q "^dc-signd (datacrumbs) " out &&
	test_must_fail_with 2 dc-signd --bogus 2>err &&
	grep -q "Try .dc-signd --help" err
'

test_expect_success ROOT 'dc-signd refuses a missing or malformed policy' '
	setup_service &&
	test_must_fail_with 1 dc-signd --check -k key -p nopolicy.json 2>err &&
	test_one_line err &&
	grep -q "no policy file nopolicy.json" err &&
	echo "{ \"datacrumbs_policy\": 1, " >bad.json &&
	test_must_fail_with 4 dc-signd --check -k key -p bad.json 2>err &&
	test_one_line err &&
	grep -q "bad.json:.*malformed JSON" err &&
	echo "{ \"datacrumbs_policy\": 1, \"max_probes\": 1, \"allowed_layers\": [], \"allowed_targets\": [], \"allowed_layer\": [] }" >typo.json &&
	test_must_fail_with 4 dc-signd --check -k key -p typo.json 2>err &&
	grep -q "unknown member \"allowed_layer\"" err &&
	echo "{ \"datacrumbs_policy\": 1, \"max_probes\": 1, \"allowed_layers\": [], \"allowed_targets\": [\"lib/\"] }" >rel.json &&
	test_must_fail_with 4 dc-signd --check -k key -p rel.json 2>err &&
	grep -q "not an absolute path" err &&
	dc-signd --check -k key -p policy.json 2>err &&
	grep -q "key ID $(cat key.id) and policy policy.json are usable" err
'

test_expect_success ROOT 'dc-signd refuses a key with loose permissions' '
	setup_service &&
	chmod 640 key &&
	test_must_fail_with 1 dc-signd --check -k key -p policy.json 2>err &&
	test_one_line err &&
	grep -q "too open" err
'

test_expect_success TESTUSER 'dc-signd must run as root' '
	setup_service &&
	test_must_fail_with 1 as_user "$DC_BUILD_DIR/dc-sign/dc-signd" --check -k key -p policy.json 2>err &&
	grep -q "must run as root" err
'

test_expect_success 'the client says when no service listens' '
	write_spec "$(syscall_probe sys)" &&
	test_must_fail_with 1 dc-sign --via-service -s "$(pwd)/nosock" spec.json >out 2>err &&
	test ! -s out && test_one_line err &&
	grep -q "cannot reach the signing service at .*nosock" err
'

test_expect_success TESTUSER 'a non-root user gets a spec signed in their name' '
	setup_service &&
	write_spec "$(uprobe POSIX "$(pwd -P)/lib/libok.so" write), $(syscall_probe sys)" &&
	start_once &&
	as_user "$DC_SIGN_BIN" --via-service -s "$(pwd)/sock" spec.json >signed.json 2>err &&
	wait &&
	test ! -s err &&
	dc-sign --verify -k key signed.json >out &&
	grep -q "signed by $DC_TEST_USER (uid $(id -u $DC_TEST_USER)) .* 2 probes, layers POSIX,sys$" out &&
	python3 -c "
import json, sys
s = json.load(open(\"signed.json\"))[\"summary\"]
assert s[\"signer\"] == sys.argv[1] and s[\"uid\"] == int(sys.argv[2]), s
assert s[\"tool\"] == \"dc-signd\", s
" "$DC_TEST_USER" "$(id -u $DC_TEST_USER)" &&
	grep -q "signed 2 probes for $DC_TEST_USER (uid $(id -u $DC_TEST_USER)" signd.log
'

# refused_as_user REASON-PATTERN: the service refuses spec.json with one
# line that carries the reason, and writes nothing to stdout.
refused_as_user() {
	start_once &&
	test_must_fail_with 1 as_user "$DC_SIGN_BIN" --via-service -s "$(pwd)/sock" spec.json >out 2>err &&
	wait &&
	test ! -s out &&
	test_one_line err &&
	grep -q "^dc-sign: signing service refused: $1" err &&
	grep -q "refused $DC_TEST_USER (uid $(id -u $DC_TEST_USER)" signd.log
}

test_expect_success TESTUSER 'a layer the policy does not allow is refused' '
	setup_service &&
	write_spec "$(syscall_probe sys), $(syscall_probe MPI)" &&
	refused_as_user "probe 1 (read): layer \"MPI\" is not allowed by the policy$"
'

test_expect_success TESTUSER 'more probes than the policy allows are refused' '
	setup_service &&
	p=$(syscall_probe sys) &&
	write_spec "$p, $p, $p, $p" &&
	refused_as_user "spec has 4 probes, the policy allows at most 3$" &&
	write_spec "$p, $p, $p" &&
	start_once &&
	as_user "$DC_SIGN_BIN" --via-service -s "$(pwd)/sock" spec.json >signed.json &&
	wait &&
	dc-sign --verify -k key signed.json >out &&
	grep -q " 3 probes" out
'

test_expect_success TESTUSER 'a probe kind the policy does not allow is refused' '
	setup_service &&
	write_spec "{ \"layer\": \"sys\", \"kind\": \"tracepoint\", \"target\": \"syscalls\", \"function\": \"sys_enter_read\" }" &&
	refused_as_user "probe 0 (sys_enter_read): probe kind \"tracepoint\" is not allowed by the policy$"
'

test_expect_success TESTUSER 'a target outside the allowed folders is refused' '
	setup_service &&
	mkdir -p other && cp lib/libok.so other/libok.so &&
	write_spec "$(uprobe POSIX "$(pwd -P)/other/libok.so" write)" &&
	refused_as_user "probe 0 (write): target $(pwd -P)/other/libok.so is not allowed by the policy$" &&
	mkdir -p lib2 && cp lib/libok.so lib2/libok.so &&
	write_spec "$(uprobe POSIX "$(pwd -P)/lib2/libok.so" write)" &&
	refused_as_user "probe 0 (write): target $(pwd -P)/lib2/libok.so is not allowed"
'

test_expect_success TESTUSER 'a target the caller cannot read is refused; group access counts' '
	setup_service &&
	cp lib/libok.so lib/libsecret.so &&
	chmod 600 lib/libsecret.so &&
	write_spec "$(uprobe POSIX "$(pwd -P)/lib/libsecret.so" write)" &&
	refused_as_user "target $(pwd -P)/lib/libsecret.so is not readable by $DC_TEST_USER: Permission denied$" &&
	chgrp "$(id -g $DC_TEST_USER)" lib/libsecret.so &&
	chmod 640 lib/libsecret.so &&
	start_once &&
	as_user "$DC_SIGN_BIN" --via-service -s "$(pwd)/sock" spec.json >signed.json &&
	wait &&
	dc-sign --verify -k key signed.json >/dev/null
'

test_expect_success TESTUSER 'a target behind a symlink is checked and signed as the real file' '
	setup_service &&
	mkdir -p outside && cp lib/libok.so outside/libevil.so &&
	ln -s ../outside/libevil.so lib/libsneaky.so &&
	write_spec "$(uprobe POSIX "$(pwd -P)/lib/libsneaky.so" write)" &&
	refused_as_user "probe 0 (write): target $(pwd -P)/outside/libevil.so is not allowed by the policy$" &&
	ln -s libok.so lib/liblink.so &&
	write_spec "$(uprobe POSIX "$(pwd -P)/lib/liblink.so" write)" &&
	start_once &&
	as_user "$DC_SIGN_BIN" --via-service -s "$(pwd)/sock" spec.json >signed.json &&
	wait &&
	dc-sign --verify -k key -o verified.json signed.json >/dev/null &&
	grep -q "\"target\": \"$(pwd -P)/lib/libok.so\"" verified.json
'

test_expect_success TESTUSER 'a missing target is refused' '
	setup_service &&
	write_spec "$(uprobe POSIX "$(pwd -P)/lib/libnone.so" write)" &&
	refused_as_user "target $(pwd -P)/lib/libnone.so cannot be resolved as $DC_TEST_USER: No such file or directory$"
'

test_expect_success TESTUSER 'allowed_users and allowed_groups restrict who may ask' '
	setup_service &&
	python3 -c "
import json
p = json.load(open(\"policy.json\"))
p[\"allowed_users\"] = [\"root\"]
json.dump(p, open(\"policy.json\", \"w\"))
" &&
	write_spec "$(syscall_probe sys)" &&
	refused_as_user "user $DC_TEST_USER may not use this signing service" &&
	python3 -c "
import json, sys
p = json.load(open(\"policy.json\"))
p[\"allowed_groups\"] = [sys.argv[1]]
json.dump(p, open(\"policy.json\", \"w\"))
" "$(id -gn $DC_TEST_USER)" &&
	start_once &&
	as_user "$DC_SIGN_BIN" --via-service -s "$(pwd)/sock" spec.json >signed.json &&
	wait &&
	dc-sign --verify -k key signed.json >/dev/null
'

test_expect_success ROOT 'a caller without a user name is refused' '
	setup_service &&
	write_spec "$(syscall_probe sys)" &&
	start_once &&
	test_must_fail_with 1 setpriv --reuid=54321 --regid=54321 --clear-groups \
		"$DC_SIGN_BIN" --via-service -s "$(pwd)/sock" spec.json >out 2>err &&
	wait &&
	test ! -s out && test_one_line err &&
	grep -q "signing service refused: uid 54321 has no user name" err
'

test_expect_success ROOT,PYTHON3 'a malformed request gets one error line' '
	setup_service &&
	start_once &&
	python3 -c "
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(b\"{ not json\")
s.shutdown(socket.SHUT_WR)
data = b\"\"
while True:
    b = s.recv(4096)
    if not b: break
    data += b
sys.stdout.write(data.decode())
" "$(pwd)/sock" >reply &&
	wait &&
	test_one_line reply &&
	grep -q "^error: request:1:[0-9]*: malformed JSON" reply
'

# send_raw FILE: send FILE to ./sock as a request, print the answer.
send_raw() {
	python3 -c "
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
with open(sys.argv[2], \"rb\") as f:
    s.sendall(f.read())
s.shutdown(socket.SHUT_WR)
data = b\"\"
while True:
    b = s.recv(65536)
    if not b: break
    data += b
sys.stdout.buffer.write(data)
" "$(pwd)/sock" "$1"
}

test_expect_success ROOT,PYTHON3 'a gzip request is accepted; an oversized one is refused' '
	setup_service &&
	write_spec "$(syscall_probe sys)" &&
	gzip -c spec.json >spec.json.gz &&
	start_once &&
	send_raw spec.json.gz >reply.json &&
	wait &&
	dc-sign --verify -k key reply.json >out &&
	grep -q "signed by root" out &&
	python3 -c "import sys; sys.stdout.write(\" \" * (17 << 20) + \"{}\")" >big.json &&
	start_once &&
	send_raw big.json >reply &&
	wait &&
	test_one_line reply &&
	grep -q "^error: request larger than 16 MiB$" reply
'

test_expect_success ROOT 'a signed file sent for signing is refused' '
	setup_service &&
	write_spec "$(syscall_probe sys)" &&
	dc-sign -k key spec.json >signed.json &&
	start_once &&
	send_raw signed.json >reply &&
	wait &&
	test_one_line reply &&
	grep -q "^error: the request is already a signed spec$" reply
'

test_expect_success ROOT,PYTHON3 'an unknown top-level key is refused, not signed' '
	setup_service &&
	write_spec "$(syscall_probe sys)" &&
	python3 -c "
import json, sys
d = json.load(open(\"spec.json\"))
d[\"extra\"] = {\"run_as\": \"root\"}
json.dump(d, open(\"extra.json\", \"w\"))
" &&
	start_once &&
	send_raw extra.json >reply &&
	wait &&
	test_one_line reply &&
	grep -q "^error: unknown top-level key \"extra\" in the request" reply &&
	start_once &&
	send_raw spec.json >reply.json &&
	wait &&
	dc-sign --verify -k key reply.json
'

test_expect_success TESTUSER 'the client reads the spec from standard input' '
	setup_service &&
	write_spec "$(syscall_probe sys)" &&
	start_once &&
	as_user "$DC_SIGN_BIN" --via-service -s "$(pwd)/sock" - <spec.json >signed.json &&
	wait &&
	dc-sign --verify -k key signed.json >out &&
	grep -q "signed by $DC_TEST_USER" out
'

test_expect_success ROOT 'a broken policy refuses requests but the service survives' '
	setup_service &&
	write_spec "$(syscall_probe sys)" &&
	{ dc-signd -s "$(pwd)/sock" -k key -p policy.json 2>signd.log & } &&
	pid=$! && started $pid &&
	wait_for_socket sock &&
	mv policy.json policy.good &&
	echo "{ broken" >policy.json &&
	test_must_fail_with 1 dc-sign --via-service -s "$(pwd)/sock" spec.json >out 2>err &&
	grep -q "signing service refused: the service.s policy cannot be read; tell the administrator" err &&
	grep -q "policy.json:1:.*malformed JSON" signd.log &&
	mv policy.good policy.json &&
	dc-sign --via-service -s "$(pwd)/sock" spec.json >signed.json &&
	kill -TERM $pid && wait $pid &&
	dc-sign --verify -k key signed.json >/dev/null
'

test_expect_success ROOT 'an invalid spec is refused by the client before it is sent' '
	write_spec "{ \"layer\": \"sys\", \"kind\": \"syscall\", \"function\": \"read\" }" &&
	test_must_fail_with 4 dc-sign --via-service -s "$(pwd)/nosock" spec.json 2>err &&
	test_one_line err &&
	grep -q "syscall without \"nr\"" err
'

test_expect_success TESTUSER 'a long-running service serves several users and stops on SIGTERM' '
	setup_service &&
	write_spec "$(syscall_probe sys)" &&
	{ dc-signd -s "$(pwd)/sock" -k key -p policy.json 2>signd.log & } &&
	pid=$! && started $pid &&
	wait_for_socket sock &&
	mkdir userout && chown $DC_TEST_USER userout &&
	as_user "$DC_SIGN_BIN" --via-service -s "$(pwd)/sock" -o userout/user.json.gz spec.json &&
	dc-sign --via-service -s "$(pwd)/sock" spec.json >root.json &&
	test_must_fail_with 1 dc-signd -s "$(pwd)/sock" -k key -p policy.json 2>err &&
	grep -q "another service is listening on $(pwd)/sock" err &&
	kill -TERM $pid && wait $pid &&
	test ! -e sock &&
	dc-sign --verify -k key userout/user.json.gz >out &&
	grep -q "signed by $DC_TEST_USER" out &&
	dc-sign --verify -k key root.json >out &&
	grep -q "signed by root (uid 0)" out
'

test_expect_success ROOT,PYTHON3 'a stale socket left by a dead service is replaced' '
	setup_service &&
	write_spec "$(syscall_probe sys)" &&
	python3 -c "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$(pwd)/sock" &&
	test -S sock &&
	stale=$(stat -c %i sock) &&
	{ dc-signd -s "$(pwd)/sock" -k key -p policy.json --once 2>signd.log & } &&
	started $! &&
	for i in $(seq 50); do
		test "$(stat -c %i sock)" != "$stale" && break
		sleep 0.1
	done &&
	test "$(stat -c %i sock)" != "$stale" &&
	dc-sign --via-service -s "$(pwd)/sock" spec.json >signed.json &&
	wait &&
	dc-sign --verify -k key signed.json >/dev/null
'

test_expect_success ROOT,PYTHON3 'systemd socket activation: the socket is taken from fd 3' '
	setup_service &&
	write_spec "$(syscall_probe sys)" &&
	python3 - "$(command -v dc-signd)" "$(pwd)/act.sock" <<-\PY &
	import os, socket, sys
	s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	s.bind(sys.argv[2])
	s.listen(8)
	os.chmod(sys.argv[2], 0o666)
	pid = os.fork()
	if pid == 0:
	    os.dup2(s.fileno(), 3)
	    os.set_inheritable(3, True)
	    env = dict(os.environ, LISTEN_PID=str(os.getpid()), LISTEN_FDS="1")
	    os.execve(sys.argv[1], [sys.argv[1], "-k", "key", "-p", "policy.json",
	              "-s", "/nonexistent/never.sock", "--once"], env)
	s.close()
	open("act.pid", "w").write("%d\n" % pid)
	_, status = os.waitpid(pid, 0)
	sys.exit(os.waitstatus_to_exitcode(status))
	PY
	wait_for_socket act.sock &&
	for i in $(seq 50); do test -s act.pid && break; sleep 0.1; done &&
	started "$(cat act.pid)" &&
	dc-sign --via-service -s "$(pwd)/act.sock" spec.json >signed.json &&
	wait $! &&
	test ! -e /nonexistent/never.sock &&
	dc-sign --verify -k key signed.json >/dev/null
'

test_expect_success 'the systemd units name the installed service and socket' '
	grep -q "^ExecStart=.*/sbin/dc-signd$" "$DC_BUILD_DIR/dc-sign/dc-signd.service" &&
	grep -q "^ListenStream=/run/datacrumbs/sign.sock$" "$DC_BUILD_DIR/dc-sign/dc-signd.socket"
'

test_expect_success TESTUSER,BPF 'the collector gives the stream to the user the spec was signed for' '
	setup_service &&
	write_spec "$(syscall_probe sys)" &&
	start_once &&
	as_user "$DC_SIGN_BIN" --via-service -s "$(pwd)/sock" spec.json >signed.json &&
	wait &&
	dc-collect -k key -o out.dcs signed.json -- true 2>err &&
	test "$(stat -c %U:%a out.dcs)" = "$DC_TEST_USER:600"
'

if test -f "$TRASH_DIRECTORY/created-user"; then
	userdel "$DC_TEST_USER" 2>/dev/null
	getent group "$DC_TEST_USER" >/dev/null && groupdel "$DC_TEST_USER" 2>/dev/null
fi
test_done

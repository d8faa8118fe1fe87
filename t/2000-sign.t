#!/bin/sh
# dc-sign: keys, signing, verification, tampering, gzip.

. "$(dirname "$0")/test-lib.sh"

# A two-probe spec in dc-probes(5) form, written by hand.
write_spec() {
	cat >"${1:-spec.json}" <<-\SPEC
	{ "datacrumbs_probes": 1, "mode": "trace", "interval_ms": 1000,
	  "probes": [
	    { "layer": "POSIX", "kind": "uprobe",
	      "target": "/usr/lib/x86_64-linux-gnu/libc.so.6",
	      "function": "write", "offset": 1093952,
	      "args": ["fd", "ptr", "size"], "ret": "size" },
	    { "layer": "sys", "kind": "syscall", "function": "openat",
	      "nr": 257, "args": ["fd", "path", "flags", "mode"], "ret": "fd" } ] }
	SPEC
}

# Key + spec + signed spec in the current directory.
setup_signed() {
	dc-sign --gen-key -k key >key.id 2>/dev/null &&
	write_spec &&
	dc-sign -k key spec.json >signed.json
}

# python3 edit of the parsed signed file: EXPR is run with d bound.
py_edit() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=2)
' "$1" "$2" "$3"
}

# Flip one raw byte: the first byte of the n-th (default 1st) occurrence
# of NEEDLE, XORed with 0x20 (a letter changes case, a digit becomes a
# different character class only when asked for).
flip_byte() {
	python3 -c '
import sys
data = bytearray(open(sys.argv[1], "rb").read())
needle = sys.argv[3].encode()
pos = -1
for _ in range(int(sys.argv[4])):
    pos = data.index(needle, pos + 1)
off = pos + int(sys.argv[5])
data[off] ^= int(sys.argv[6], 0)
open(sys.argv[2], "wb").write(data)
' "$1" "$2" "$3" "${4:-1}" "${5:-0}" "${6:-0x20}"
}

test_expect_success 'dc-sign --help and --version' '
	dc-sign --help >out &&
	grep -q "^Usage: dc-sign" out &&
	dc-sign --version >out &&
	grep -q "^dc-sign (datacrumbs) " out
'

test_expect_success 'misuse exits 2 with one line and a hint' '
	test_must_fail_with 2 dc-sign --bogus 2>err &&
	grep -q "Try .dc-sign --help" err &&
	test_must_fail_with 2 dc-sign 2>err &&
	grep -q "missing the spec file" err &&
	test_must_fail_with 2 dc-sign --verify --gen-key 2>err &&
	grep -q "exclude each other" err &&
	test_must_fail_with 2 dc-sign --force x.json 2>err &&
	grep -q "force only goes with --gen-key" err
'

test_expect_success PYTHON3 'gen-key makes a 0600 file of 64 hex digits; ID is SHA-256 prefix' '
	dc-sign --gen-key -k key >id 2>err &&
	test "$(stat -c %a key)" = 600 &&
	test "$(wc -c <key)" -eq 65 &&
	grep -Eq "^[0-9a-f]{64}$" key &&
	test_line_count id 1 &&
	want=$(python3 -c "import hashlib,sys; print(hashlib.sha256(bytes.fromhex(open(\"key\").read().strip())).hexdigest()[:16])") &&
	test "$(cat id)" = "$want" &&
	test "$(dc-sign --key-id -k key)" = "$want"
'

test_expect_success 'gen-key under a permissive umask still makes 0600' '
	(umask 000 && dc-sign --gen-key -k key >/dev/null 2>&1) &&
	test "$(stat -c %a key)" = 600
'

test_expect_success 'gen-key refuses to overwrite; --force replaces' '
	dc-sign --gen-key -k key >id1 2>/dev/null &&
	cp key key.orig &&
	test_must_fail_with 1 dc-sign --gen-key -k key 2>err &&
	test_one_line err &&
	grep -q "already exists: refusing to overwrite" err &&
	cmp key key.orig &&
	dc-sign --gen-key --force -k key >id2 2>/dev/null &&
	! cmp -s key key.orig &&
	! cmp -s id1 id2 &&
	test "$(stat -c %a key)" = 600
'

test_expect_success 'gen-key does not follow a symlink planted at the key path' '
	ln -s target key &&
	test_must_fail_with 1 dc-sign --gen-key -k key 2>err &&
	test_one_line err &&
	test ! -e target
'

test_expect_success 'sign and verify round trip' '
	setup_signed &&
	dc-sign --verify -k key signed.json >out 2>err &&
	test_line_count out 1 &&
	test ! -s err &&
	grep -q "^signed.json: verified: key ID $(cat key.id), signed by root (uid 0)" out &&
	grep -q ", 2 probes, layers POSIX,sys$" out
'

test_expect_success PYTHON3 'signed file has the documented members and summary' '
	setup_signed &&
	python3 - <<-\PY
	import json, hashlib
	d = json.load(open("signed.json"))
	assert sorted(d) == ["algorithm", "datacrumbs_signed", "key_id", "signature", "spec", "summary"], sorted(d)
	assert d["datacrumbs_signed"] == 1 and d["algorithm"] == "HMAC-SHA256"
	assert d["key_id"] == open("key.id").read().strip()
	s = d["summary"]
	assert s["signer"] == "root" and s["uid"] == 0 and s["probes"] == 2, s
	assert s["layers"] == ["POSIX", "sys"], s
	assert isinstance(s["signed_at"], int) and s["tool"] == "dc-sign"
	canon = json.dumps(d["spec"], sort_keys=True, separators=(",", ":"), ensure_ascii=True)
	assert s["spec_sha256"] == hashlib.sha256(canon.encode()).hexdigest()
	assert d["spec"] == json.load(open("spec.json"))
	PY
'

test_expect_success PYTHON3 'the signature is HMAC-SHA256 over the documented canonical form' '
	setup_signed &&
	python3 - <<-\PY
	import json, hmac, hashlib
	d = json.load(open("signed.json"))
	sig = d.pop("signature")
	canon = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
	key = bytes.fromhex(open("key").read().strip())
	assert hmac.new(key, canon.encode(), hashlib.sha256).hexdigest() == sig
	PY
'

test_expect_success PYTHON3 'non-ASCII text: the canonical form is byte-exact as documented' '
	dc-sign --gen-key -k key >/dev/null 2>&1 &&
	python3 - <<-\PY &&
	import json
	spec = {"datacrumbs_probes": 1, "probes": [
	    {"layer": "caf\u00e9 \U0001F600 a/b \u007f \u0001 \"q\" \\", "kind": "syscall",
	     "function": "write", "nr": 1, "args": ["fd"], "ret": "size"}]}
	open("spec.json", "w", encoding="utf-8").write(json.dumps(spec, ensure_ascii=False))
	PY
	dc-sign -k key spec.json >signed.json &&
	python3 - <<-\PY &&
	import hashlib, hmac, json, re
	d = json.load(open("signed.json"))
	sig = d.pop("signature")
	text = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
	# dc-signed(5): upper-case hex in \u escapes, U+007F written as itself.
	text = re.sub(r"\\u([0-9a-f]{4})", lambda m: "\\u" + m.group(1).upper(), text)
	text = text.replace("\\u007F", "\x7f")
	key = bytes.fromhex(open("key").read().strip())
	assert hmac.new(key, text.encode(), hashlib.sha256).hexdigest() == sig, text
	assert "\\uD83D\\uDE00" in text and "\\u00E9" in text and "a/b" in text
	PY
	python3 -c "import json; d = json.load(open(\"signed.json\")); json.dump(d, open(\"utf8.json\", \"w\", encoding=\"utf-8\"), ensure_ascii=False, indent=1)" &&
	grep -q "café" utf8.json &&
	dc-sign --verify -k key utf8.json >out &&
	grep -q "utf8.json: verified" out
'

test_expect_success PYTHON3 're-indented and re-ordered signed file still verifies' '
	setup_signed &&
	python3 -c "import json; d = json.load(open(\"signed.json\")); json.dump(d, open(\"indent4.json\", \"w\"), indent=4, sort_keys=True)" &&
	python3 -c "import json; d = json.load(open(\"signed.json\")); json.dump(dict(reversed(list(d.items()))), open(\"compact.json\", \"w\"), separators=(\",\", \":\"))" &&
	! cmp -s signed.json indent4.json &&
	dc-sign --verify -k key indent4.json >out &&
	grep -q "indent4.json: verified" out &&
	dc-sign --verify -k key compact.json >out &&
	grep -q "compact.json: verified" out
'

test_expect_success PYTHON3 'a changed value in any signed part is refused with exit 5' '
	setup_signed &&
	for edit in \
		"d[\"spec\"][\"probes\"][0][\"function\"] = \"writf\"" \
		"d[\"spec\"][\"probes\"][1][\"nr\"] = 258" \
		"d[\"spec\"][\"probes\"].pop()" \
		"d[\"spec\"][\"mode\"] = \"profile\"" \
		"d[\"summary\"][\"signer\"] = \"roou\"" \
		"d[\"summary\"][\"uid\"] = 1" \
		"d[\"summary\"][\"extra\"] = 1" \
		"d[\"extra\"] = 1"
	do
		py_edit signed.json bad.json "$edit" &&
		test_must_fail_with 5 dc-sign --verify -k key bad.json >out 2>err &&
		test_one_line err && test ! -s out &&
		grep -q "bad.json: signature does not verify with key ID $(cat key.id): the file was changed after signing (tampered)" err ||
		{ echo "edit not refused: $edit"; return 1; }
	done
'

test_expect_success PYTHON3 'a changed key_id, algorithm or signature is refused with exit 5' '
	setup_signed &&
	id=$(cat key.id) &&
	py_edit signed.json bad.json "d[\"key_id\"] = \"f\" + d[\"key_id\"][1:] if d[\"key_id\"][0] != \"f\" else \"e\" + d[\"key_id\"][1:]" &&
	test_must_fail_with 5 dc-sign --verify -k key bad.json 2>err &&
	test_one_line err &&
	grep -q "signed with key ID [ef]${id#?}, this key is $id" err &&
	py_edit signed.json bad.json "d[\"algorithm\"] = \"HMAC-SHA257\"" &&
	test_must_fail_with 5 dc-sign --verify -k key bad.json 2>err &&
	test_one_line err &&
	grep -q "unsupported signature algorithm \"HMAC-SHA257\": only HMAC-SHA256" err &&
	py_edit signed.json bad.json "d[\"signature\"] = (\"1\" if d[\"signature\"][0] == \"0\" else \"0\") + d[\"signature\"][1:]" &&
	test_must_fail_with 5 dc-sign --verify -k key bad.json 2>err &&
	test_one_line err &&
	grep -q "signature does not verify" err &&
	py_edit signed.json bad.json "d[\"signature\"] = d[\"signature\"][:-1] + \"g\"" &&
	test_must_fail_with 5 dc-sign --verify -k key bad.json 2>err &&
	test_one_line err &&
	grep -q "malformed signature: expected a string of 64 hex digits" err &&
	py_edit signed.json bad.json "d[\"signature\"] = d[\"signature\"][:-2]" &&
	test_must_fail_with 5 dc-sign --verify -k key bad.json 2>err &&
	grep -q "malformed signature" err &&
	py_edit signed.json bad.json "del d[\"signature\"]" &&
	test_must_fail_with 5 dc-sign --verify -k key bad.json 2>err &&
	test_one_line err &&
	grep -q "bad.json: unsigned: no \"signature\"" err
'

test_expect_success PYTHON3 'a real number slipped into a signed file is refused with exit 5' '
	setup_signed &&
	py_edit signed.json bad.json "d[\"spec\"][\"probes\"][0][\"offset\"] = 1093952.0" &&
	test_must_fail_with 5 dc-sign --verify -k key bad.json 2>err &&
	test_one_line err &&
	grep -q "real number at spec.probes\[0\].offset" err
'

# flip_refused NEEDLE N OFFSET XOR: the flipped file fails with exit 5.
flip_refused() {
	flip_byte signed.json bad.json "$@" &&
	! cmp -s signed.json bad.json &&
	test_must_fail_with 5 dc-sign --verify -k key bad.json >out 2>err &&
	test_one_line err && test ! -s out ||
	{ echo "flip not refused: $*"; cat err; return 1; }
}

test_expect_success PYTHON3 'one flipped byte in each part of the file is refused with exit 5' '
	setup_signed &&
	flip_refused "\"write\"" 1 1 &&
	grep -q "tampered" err &&
	flip_refused "\"nr\": " 1 6 0x01 &&
	grep -q "tampered" err &&
	flip_refused "\"root\"" 1 1 &&
	grep -q "tampered" err &&
	flip_refused "\"POSIX\"" 1 1 &&
	grep -q "tampered" err &&
	flip_refused "\"POSIX\"" 2 1 &&
	grep -q "tampered" err &&
	flip_refused "\"HMAC-SHA256\"" 1 1 &&
	grep -q "unsupported signature algorithm" err &&
	flip_refused "\"key_id\": \"" 1 11 0x01 &&
	grep -q "signature does not verify: signed with key ID" err &&
	flip_refused "\"signature\": \"" 1 14 0x01 &&
	grep -q "signature" err
'

test_expect_success PYTHON3 'a byte flip that breaks the JSON is bad input (exit 4)' '
	setup_signed &&
	flip_byte signed.json bad.json "\"spec\": {" 1 9 0x06 &&
	test_must_fail_with 4 dc-sign --verify -k key bad.json 2>err &&
	test_one_line err &&
	grep -q "^dc-sign: bad.json:[0-9]*:[0-9]*: malformed JSON" err
'

test_expect_success 'duplicate keys are refused as bad input' '
	setup_signed &&
	sed "s/^  \"key_id\"/  \"key_id\": \"0000000000000000\",\n  \"key_id\"/" signed.json >bad.json &&
	test "$(grep -c key_id bad.json)" -eq 2 &&
	test_must_fail_with 4 dc-sign --verify -k key bad.json 2>err &&
	test_one_line err &&
	grep -q "duplicate object key" err
'

test_expect_success 'an unsigned spec is refused with exit 5' '
	setup_signed &&
	test_must_fail_with 5 dc-sign --verify -k key spec.json 2>err &&
	test_one_line err &&
	grep -q "spec.json: unsigned probe spec" err &&
	echo "{}" >empty.json &&
	test_must_fail_with 5 dc-sign --verify -k key empty.json 2>err &&
	grep -q "unsigned: not a signed probe spec" err
'

test_expect_success 'a wrong key is refused with exit 5, naming both key IDs' '
	setup_signed &&
	dc-sign --gen-key -k other >other.id 2>/dev/null &&
	test_must_fail_with 5 dc-sign --verify -k other signed.json >out 2>err &&
	test ! -s out &&
	test_one_line err &&
	grep -q "signed with key ID $(cat key.id), this key is $(cat other.id)" err
'

test_expect_success 'a key readable by group or others is refused' '
	setup_signed &&
	for mode in 644 640 604 660 606 610 601
	do
		chmod $mode key &&
		test_must_fail_with 1 dc-sign --verify -k key signed.json 2>err &&
		test_one_line err &&
		grep -q "permissions 0$mode for signing key key are too open" err &&
		test_must_fail_with 1 dc-sign -k key spec.json >out 2>err &&
		test ! -s out &&
		grep -q "too open" err || { echo "mode $mode"; return 1; }
	done &&
	chmod 400 key &&
	dc-sign --verify -k key signed.json >/dev/null
'

test_expect_success 'a missing key has its own message' '
	setup_signed &&
	test_must_fail_with 1 dc-sign --verify -k nokey signed.json 2>err &&
	test_one_line err &&
	grep -q "no signing key at nokey (make one with dc-sign --gen-key -k nokey)" err &&
	test_must_fail_with 1 dc-sign -k nokey spec.json 2>err &&
	grep -q "no signing key at nokey" err
'

test_expect_success 'a malformed key has its own message' '
	setup_signed &&
	for content in "short" "$(cat key)$(cat key)" "$(sed s/./g/ key)"
	do
		printf "%s\n" "$content" >bad.key && chmod 600 bad.key &&
		test_must_fail_with 1 dc-sign --verify -k bad.key signed.json 2>err &&
		test_one_line err &&
		grep -q "malformed signing key bad.key: expected 64 hex digits and a newline" err ||
		return 1
	done &&
	printf "%s" "$(cat key)" >bad.key && chmod 600 bad.key &&
	test_must_fail_with 1 dc-sign --verify -k bad.key signed.json 2>err &&
	grep -q "malformed signing key" err
'

test_expect_success 'a key that is not a regular file is refused' '
	mkdir keydir && chmod 700 keydir &&
	test_must_fail_with 1 dc-sign --key-id -k keydir 2>err &&
	test_one_line err &&
	grep -q "not a regular file" err
'

# A system user for ownership checks; created here (and removed at the
# end) only when absent.
DC_TEST_USER=dc-test-sign
test_lazy_prereq TESTUSER '
	test "$(id -u)" = 0 || { echo "needs root to create a user"; false; }
	if ! id -u '$DC_TEST_USER' >/dev/null 2>&1; then
		command -v useradd >/dev/null || { echo "useradd not available"; false; }
		useradd -M -r -s /usr/sbin/nologin '$DC_TEST_USER' &&
		touch "$TRASH_DIRECTORY/created-user"
	fi
'

test_expect_success TESTUSER 'a key owned by another user is refused' '
	setup_signed &&
	chown $DC_TEST_USER key &&
	test_must_fail_with 1 dc-sign --verify -k key signed.json 2>err &&
	test_one_line err &&
	grep -q "signing key key is owned by $DC_TEST_USER, not by root who runs this" err &&
	test_must_fail_with 1 dc-sign -k key spec.json 2>err &&
	grep -q "is owned by $DC_TEST_USER" err
'

test_expect_success 'gzip round trip: sign to .gz, verify the .gz, sign a .gz spec' '
	setup_signed &&
	dc-sign -k key -o signed.json.gz spec.json &&
	test "$(head -c 2 signed.json.gz | od -An -tx1 | tr -d " ")" = 1f8b &&
	dc-sign --verify -k key signed.json.gz >out &&
	grep -q "^signed.json.gz: verified: key ID $(cat key.id)" out &&
	gzip -dc signed.json.gz >plain.json &&
	dc-sign --verify -k key plain.json >/dev/null &&
	gzip -c spec.json >spec.json.gz &&
	dc-sign -k key spec.json.gz >from-gz.json &&
	dc-sign --verify -k key from-gz.json >/dev/null
'

test_expect_success 'truncated or corrupt gzip is bad input' '
	setup_signed &&
	dc-sign -k key -o signed.json.gz spec.json &&
	head -c 100 signed.json.gz >trunc.gz &&
	test_must_fail_with 4 dc-sign --verify -k key trunc.gz 2>err &&
	test_one_line err &&
	grep -q "trunc.gz: truncated gzip data" err &&
	{ head -c 10 signed.json.gz; printf "garbagegarbagegarbage"; } >corrupt.gz &&
	test_must_fail_with 4 dc-sign --verify -k key corrupt.gz 2>err &&
	test_one_line err &&
	grep -q "corrupt.gz: corrupt gzip data" err
'

test_expect_success 'standard input and output, and $DC_KEY' '
	setup_signed &&
	dc-sign -k key - <spec.json >a.json &&
	DC_KEY=key dc-sign --verify - <a.json >out &&
	grep -q "^standard input: verified: key ID $(cat key.id)" out &&
	DC_KEY=key dc-sign -o b.json spec.json &&
	dc-sign -k key --verify b.json >/dev/null &&
	DC_KEY=nokey test_must_fail_with 1 dc-sign --verify b.json 2>err &&
	grep -q "no signing key at nokey" err
'

test_expect_success PYTHON3 'verify -o writes the verified spec' '
	setup_signed &&
	dc-sign --verify -k key -o verified.json signed.json >out &&
	grep -q verified out &&
	python3 -c "import json; assert json.load(open(\"verified.json\")) == json.load(open(\"spec.json\"))" &&
	dc-sign --verify -q -k key signed.json >out &&
	test ! -s out
'

test_expect_success 'bad specs are refused before signing' '
	dc-sign --gen-key -k key >/dev/null 2>&1 &&
	echo "{ \"datacrumbs_probes\": 1, \"probes\": [ { \"layer\": \"x\", \"kind\": \"warp\", \"function\": \"f\" } ] }" >bad.json &&
	test_must_fail_with 4 dc-sign -k key bad.json >out 2>err &&
	test ! -s out && test_one_line err &&
	grep -q "bad.json: probe 0 (f): unknown kind \"warp\"" err &&
	echo "{ \"datacrumbs_probes\": 1, \"interval_ms\": 1.5, \"probes\": [] }" >real.json &&
	test_must_fail_with 4 dc-sign -k key real.json 2>err &&
	test_one_line err &&
	echo "{ \"datacrumbs_probes\": 1, " >broken.json &&
	test_must_fail_with 4 dc-sign -k key broken.json 2>err &&
	test_one_line err &&
	grep -q "broken.json:.*malformed JSON" err &&
	test_must_fail_with 1 dc-sign -k key missing.json 2>err &&
	grep -q "cannot open missing.json" err
'

test_expect_success 'a signed file is not signed again' '
	setup_signed &&
	test_must_fail_with 4 dc-sign -k key signed.json 2>err &&
	grep -q "already signed" err
'

test_expect_success 'a full disk is a one-line error, not a half file' '
	setup_signed &&
	test -w /dev/full &&
	test_must_fail_with 1 dc-sign -k key spec.json >/dev/full 2>err &&
	test_one_line err &&
	grep -q "cannot write standard output" err
'

test_expect_success 'output to a device is written in place, not renamed over' '
	setup_signed &&
	test_must_fail_with 1 dc-sign -k key -o /dev/full spec.json 2>err &&
	test_one_line err &&
	grep -q "cannot write /dev/full: No space left on device" err &&
	test -c /dev/full &&
	mkfifo fifo &&
	{ cat fifo >from-fifo.json & } &&
	dc-sign -k key -o fifo spec.json &&
	wait &&
	test -p fifo &&
	dc-sign --verify -k key from-fifo.json >/dev/null
'

test_expect_success 'output replaces a file atomically and keeps no temporary' '
	setup_signed &&
	echo old >out.json &&
	dc-sign -k key -o out.json spec.json &&
	dc-sign --verify -k key out.json >/dev/null &&
	test "$(ls | grep -c "out.json")" -eq 1 &&
	test_must_fail_with 1 dc-sign -k key -o nodir/x.json spec.json 2>err &&
	test_one_line err &&
	grep -q "cannot create a file beside nodir/x.json: No such file or directory" err
'

test_expect_success '--gen-key makes a missing key directory' '
	DC_KEY=$(pwd)/etc/key dc-sign --gen-key >id 2>/dev/null &&
	test -d etc && test "$(stat -c %a etc/key)" = 600 &&
	test "$(DC_KEY=$(pwd)/etc/key dc-sign --key-id)" = "$(cat id)"
'

if test -f "$TRASH_DIRECTORY/created-user"; then
	userdel "$DC_TEST_USER" 2>/dev/null
fi
test_done

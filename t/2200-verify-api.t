#!/bin/sh
# dc_verify_file() (lib/sign.h), the call dc-collect makes: statuses,
# one-line errors, the returned spec and summary.

. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq VERIFY_API '
	command -v dc-verify-api >/dev/null ||
	{ echo "t/helpers/dc-verify-api not built (make check builds it)"; false; }
'

setup_signed() {
	dc-sign --gen-key -k key >key.id 2>/dev/null &&
	cat >spec.json <<-\SPEC &&
	{ "datacrumbs_probes": 1, "probes": [
	  { "layer": "sys", "kind": "syscall", "function": "read", "nr": 0,
	    "args": ["fd", "ptr", "size"], "ret": "size" },
	  { "layer": "sys", "kind": "syscall", "function": "write", "nr": 1,
	    "args": ["fd", "ptr", "size"], "ret": "size" },
	  { "layer": "POSIX", "kind": "uprobe", "target": "/bin/true",
	    "function": "main", "offset": 0 } ] }
	SPEC
	dc-sign -k key spec.json >signed.json
}

test_expect_success VERIFY_API 'a good file returns the spec and the summary' '
	setup_signed &&
	dc-verify-api signed.json key >out &&
	echo "ok root 0 3 3" >expect &&
	test_cmp expect out
'

test_expect_success VERIFY_API 'the default key path comes from $DC_KEY' '
	setup_signed &&
	DC_KEY=key dc-verify-api signed.json >out &&
	grep -q "^ok root" out &&
	DC_KEY=$(pwd)/nokey test_must_fail_with 1 dc-verify-api signed.json >out &&
	grep -q "^fail 1 no signing key at $(pwd)/nokey" out
'

test_expect_success VERIFY_API 'statuses: unsigned and tampered 5, malformed 4, key and I/O 1' '
	setup_signed &&
	test_must_fail_with 5 dc-verify-api spec.json key >out &&
	grep -q "^fail 5 spec.json: unsigned probe spec" out &&
	sed "s/\"read\"/\"reaD\"/" signed.json >tampered.json &&
	test_must_fail_with 5 dc-verify-api tampered.json key >out &&
	grep -q "^fail 5 tampered.json: signature does not verify" out &&
	sed "s/HMAC-SHA256/HMAC-MD5/" signed.json >alg.json &&
	test_must_fail_with 5 dc-verify-api alg.json key >out &&
	grep -q "^fail 5 alg.json: unsupported signature algorithm" out &&
	dc-sign --gen-key -k other >other.id 2>/dev/null &&
	test_must_fail_with 5 dc-verify-api signed.json other >out &&
	grep -q "signed with key ID $(cat key.id), this key is $(cat other.id)" out &&
	head -c 50 signed.json >cut.json &&
	test_must_fail_with 4 dc-verify-api cut.json key >out &&
	grep -q "^fail 4 cut.json:.*malformed JSON" out &&
	printf "\037\213garbage" >bad.gz &&
	test_must_fail_with 4 dc-verify-api bad.gz key >out &&
	grep -q "^fail 4 bad.gz: " out &&
	test_must_fail_with 1 dc-verify-api missing.json key >out &&
	grep -q "^fail 1 cannot open missing.json" out &&
	chmod 644 key &&
	test_must_fail_with 1 dc-verify-api signed.json key >out &&
	grep -q "^fail 1 permissions 0644 for signing key key are too open" out
'

test_expect_success VERIFY_API 'gzip input is detected by its magic, not its name' '
	setup_signed &&
	gzip -c signed.json >signed.anything &&
	dc-verify-api signed.anything key >out &&
	grep -q "^ok root 0 3 3" out
'

test_done

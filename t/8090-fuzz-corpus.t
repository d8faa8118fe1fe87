#!/bin/sh
# The fuzz corpora (t/fuzz/TARGET: seeds, and in regress/ every input that
# once crashed a target) through the fuzz targets of this build: each
# ends with one of its documented statuses, never a signal.  In the
# sanitizer build any memory error or leak fails it too (t/local.mk).
. "$(dirname "$0")/test-lib.sh"

CORPUS="$DC_SRC_DIR/t/fuzz"

# run_target TARGET FILE: run FILE through TARGET as fuzz/run does.
run_target() {
	case "$1" in
	stream) fuzz-stream <"$2" ;;
	aggregate) dc-aggregate <"$2" >/dev/null ;;
	write) dc-write --threads 0 --flush-interval 0 /dev/null <"$2" ;;
	check) dc-write --check "$2" >/dev/null ;;
	config) fuzz-config "$2" ;;
	spec) fuzz-spec "$2" ;;
	verify) fuzz-verify "$2" ;;
	elf) fuzz-elf "$2" ;;
	esac
}

PATH="$DC_BUILD_DIR/fuzz:$PATH"

for target in stream aggregate write check config spec verify elf; do
	test_expect_success "fuzz corpus of $target: documented statuses only" '
		n=0 bad= &&
		for f in $(find "$CORPUS/'$target'" -type f ! -name "README*" | sort); do
			run_target '$target' "$f" 2>>err
			rc=$?
			case $rc in
			0|1|3|4|5) ;;
			*) echo "$f: exit $rc" >&2; bad=1 ;;
			esac
			n=$((n + 1))
		done &&
		test -z "$bad" && test $n -gt 0
	'
done

test_expect_success 'the seeds are what they claim: valid ones pass' '
	fuzz-stream <"$CORPUS/stream/full.dcs" &&
	test_must_fail_with 3 fuzz-stream <"$CORPUS/stream/noend.dcs" &&
	dc-write --check "$CORPUS/check/full.pfw.gz" >/dev/null &&
	fuzz-config "$CORPUS/config/small.yaml" &&
	fuzz-spec "$CORPUS/spec/kinds.json" &&
	fuzz-verify "$CORPUS/verify/kinds.sig" &&
	fuzz-elf "$CORPUS/elf/tiny.so"
'

test_expect_success 'a tampered signed spec is refused by the verifier, exit 5' '
	sed "s/\"close\"/\"read\"/" "$CORPUS/verify/kinds.sig" >t.sig &&
	! cmp -s t.sig "$CORPUS/verify/kinds.sig" &&
	test_must_fail_with 5 fuzz-verify t.sig 2>/dev/null
'

test_done

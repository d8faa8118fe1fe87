#!/bin/sh
# The fuzz corpora (t/fuzz/TARGET: seeds, and in regress/ every input that
# once crashed a target) through the fuzz targets of this build: each
# ends with one of its documented statuses, never a signal.  In the
# sanitizer build any memory error or leak fails it too (t/local.mk).
. "$(dirname "$0")/test-lib.sh"

CORPUS="$DC_SRC_DIR/t/fuzz"

# run_target TARGET FILE: run FILE through TARGET's harness (fuzz/run).
run_target() {
	"fuzz-$1" "$2" >/dev/null
}

# statuses TARGET: the exit statuses its program documents.
statuses() {
	case "$1" in
	write) echo "0 1 2 3 4" ;; # 2: a collector's stream, as dc-write
	*) echo "0 1 3 4 5" ;;
	esac
}

# corpus TARGET: its seeds and kept crash inputs.
corpus() {
	find "$CORPUS/$1" -type f ! -name "README*" | sort
}

PATH="$DC_BUILD_DIR/fuzz:$PATH"

for target in stream aggregate write check config spec verify elf; do
	test_expect_success "fuzz corpus of $target: documented statuses only" '
		n=0 bad= &&
		for f in $(corpus '$target'); do
			run_target '$target' "$f" 2>>err
			rc=$?
			case " $(statuses '$target') " in
			*" $rc "*) ;;
			*) echo "$f: exit $rc" >&2; bad=1 ;;
			esac
			n=$((n + 1))
		done &&
		test -z "$bad" && test $n -gt 0
	'
done

# Under AFL++ a harness runs input after input in one process: each must
# end as it does alone, whatever came before it (no state left behind;
# the sanitizer build also sees any leak or use of freed memory).  Every
# input runs twice.
for target in stream aggregate write check config spec verify elf; do
	test_expect_success "$target: inputs in one process end as each alone" '
		for f in $(corpus '$target') $(corpus '$target'); do
			fuzz-'$target' "$f" >/dev/null 2>&1
			echo "$f: exit $?"
		done >alone &&
		fuzz-'$target' $(corpus '$target') $(corpus '$target') 2>/dev/null >out &&
		grep ": exit [0-9]*$" out >together &&
		test_cmp alone together
	'
done

# The aggregate harness calls dc-aggregate's code without its main: on
# every input it ends as dc-aggregate itself does.
test_expect_success 'fuzz-aggregate exits as dc-aggregate does' '
	bad= &&
	for f in $(corpus aggregate) $(corpus stream); do
		fuzz-aggregate "$f" 2>/dev/null
		want=$? &&
		dc-aggregate "$f" >/dev/null 2>&1
		got=$? &&
		test $want = $got || { echo "$f: dc-aggregate $got, fuzz-aggregate $want"; bad=1; }
	done &&
	test -z "$bad"
'

# The write and check harnesses call dc-write's code without its main:
# on every input they end as dc-write itself does.
test_expect_success 'fuzz-write and fuzz-check exit as dc-write does' '
	bad= &&
	for f in $(corpus write) $(corpus stream); do
		fuzz-write "$f" 2>/dev/null
		want=$? &&
		dc-write --threads 0 --flush-interval 0 /dev/null <"$f" 2>/dev/null
		got=$? &&
		test $want = $got || { echo "$f: dc-write $got, fuzz-write $want"; bad=1; }
	done &&
	for f in $(corpus check); do
		fuzz-check "$f" >/dev/null 2>&1
		want=$? &&
		dc-write --check "$f" >/dev/null 2>&1
		got=$? &&
		test $want = $got || { echo "$f: dc-write --check $got, fuzz-check $want"; bad=1; }
	done &&
	test -z "$bad"
'

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

#!/bin/sh
# lib/'s shared pieces: the one hash table (every key storable, 0 and
# 2^64-1 included), the one FNV-1a, the one size parser (overflow and
# ranges refused), the one quoting of names as words; and the probe
# spec's keys as dc-probes(5) documents them.  The checks are in
# t/helpers/lib-test.c; each of its TAP lines must pass.  The tools' own
# use of the parser is in t/0100-options.t.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'lib-test is built' '
	command -v lib-test
'

test_expect_success 'lib unit tests all pass' '
	lib-test >tap &&
	cat tap &&
	! grep "^not ok" tap &&
	n=$(sed -n "s/^1\.\.//p" tap) &&
	test "$n" -gt 50 &&
	test "$(grep -c "^ok " tap)" = "$n"
'

# dc-probes(5) describes a probe's keys in the order the spec's writer
# (lib/spec.c, dc-gen's output) puts them: the terms after each .TP of
# its Probes section.
test_expect_success 'dc-probes(5) lists the probe keys in the order they are written' '
	lib-test spec-keys >written &&
	test "$(wc -l <written)" -ge 12 &&
	sed -n "/^\.SS Probes/,/^\.S[HS] /p" "$DC_SRC_DIR/man/dc-probes.5" |
		awk "prev == \".TP\" && \$1 == \".B\" { print \$2 } { prev = \$0 }" >documented &&
	test_cmp written documented
'

# dc-mkstream, the tests' stream writer, reads the names of argument,
# return and probe kinds with lib/spec.c's parsers, which own them:
# every kind spec.c names goes into a probe record by its name and comes
# back by it from dc-aggregate --text, which names them by spec.c's
# list too.  dc-mkstream had copies of its own, which a kind added to
# lib/ had to be added to by hand, or the tests could not describe it.
test_expect_success 'dc-mkstream knows every kind lib/spec.c names, by the same number' '
	lib-test kind-names >names &&
	test "$(grep -c "^arg " names)" -ge 39 &&
	test "$(grep -c "^ret " names)" -ge 10 &&
	test "$(grep -c "^probe " names)" -ge 6 &&
	awk "{ k = \"uprobe\"; a = \"\"; r = \"none\"
	       if (\$1 == \"arg\") a = \$2; else if (\$1 == \"ret\") r = \$2; else k = \$2
	       printf \"probe id=%d kind=%s layer=L name=f%d args=%s ret=%s\\n\", NR - 1, k, NR - 1, a, r
	       printf \"kind=%s args=%s ret=%s\\n\", k, a, r >\"expect\" }
	     END { print \"end\" }" names >desc &&
	dc-mkstream <desc | dc-aggregate --text >text &&
	awk "/^probe / { print \$3, \$7, \$8 }" text >got &&
	test_cmp expect got
'

# A script with a test whose prerequisite never holds, run as prove would.
cat >"$SHARED/never.t" <<EOF
#!/bin/sh
. "$DC_SRC_DIR/t/test-lib.sh"
test_lazy_prereq NEVER 'echo "never there"; false'
test_expect_success NEVER 'needs NEVER' 'true'
test_done
EOF

test_expect_success 'test-lib: a missing prerequisite skips the test, with its reason' '
	test_when_finished "rm -rf \"$DC_BUILD_DIR/t/trash/never\"" &&
	DC_TEST_REQUIRE= sh "$SHARED/never.t" >out &&
	grep "^ok 1 # skip needs NEVER (missing NEVER: never there)$" out
'

test_expect_success 'test-lib: a missing prerequisite DC_TEST_REQUIRE names fails the test' '
	test_when_finished "rm -rf \"$DC_BUILD_DIR/t/trash/never\"" &&
	test_must_fail_with 1 env DC_TEST_REQUIRE="ROOT NEVER" sh "$SHARED/never.t" >out &&
	grep "^not ok 1 - needs NEVER$" out &&
	grep "required prerequisite missing (DC_TEST_REQUIRE): NEVER: never there" out
'

test_done

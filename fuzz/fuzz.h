/*
 * fuzz.h - the small pieces the fuzz harnesses share.
 *
 * Every harness is an ordinary program: it reads one input (a file named
 * on the command line, or standard input), hands it to one parser and
 * exits 0, or with the parser's documented status when the input is bad.
 * AFL++ runs them instrumented (configure --enable-fuzzing, `make fuzz`);
 * the test suite runs them, built normally or with sanitizers, over the
 * seed corpora and every crash input kept in t/fuzz (t/8090).
 */
#ifndef DC_FUZZ_H
#define DC_FUZZ_H

#include <stddef.h>

/* The whole input: argv[1], or standard input when absent or "-".
 * Dies with status 1 when it cannot be read. */
unsigned char *fuzz_read_input(int argc, char **argv, size_t *len);

#endif

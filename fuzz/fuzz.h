/*
 * fuzz.h - what every fuzz harness defines, and what the driver
 * (fuzz/fuzz-main.c) gives it.
 *
 * A harness is one parser behind one function: it takes an input, runs
 * it through the parser and returns the status the tool would exit with
 * (0, or the parser's documented status for bad input).  The driver calls
 * it once per input:
 *
 *  - built for AFL++ (CC=afl-clang-fast, `make fuzz`): in persistent mode,
 *    many inputs per process, each handed over in shared memory, so the
 *    function must leave nothing behind (free what it allocated, keep no
 *    state between calls);
 *  - built normally or with sanitizers: once, on the file named on the
 *    command line or on standard input, exiting with the status returned;
 *    or, given several files, on each in turn in one process, printing
 *    "FILE: exit STATUS" for each.  The test suite runs the seeds and the
 *    kept crash inputs both ways and compares (t/8090).
 *
 * The parsers return their errors: one that died (die(), exit) on bad
 * input would end the process at each such input, and AFL++ would have to
 * start a fresh one from its fork server.
 */
#ifndef DC_FUZZ_H
#define DC_FUZZ_H

#include <stddef.h>

struct fuzz_input {
	const unsigned char *data;
	size_t len;
	const char *name;      /* the file it came from, or NULL */
	int fd;                /* memory file holding data, -1 until needed */
	char path[32];         /* its name in /proc/self/fd */
};

struct fuzz_target {
	const char *name;
	/* NULL, or once before the first input: work every input would
	 * repeat (loading libraries), done before AFL++ forks. */
	void (*init)(void);
	/* One input; returns the exit status. */
	int (*one)(struct fuzz_input *in);
};

/* Each harness defines its target. */
extern const struct fuzz_target fuzz_target;

/* For parsers that open a file by name: the input's file name (the file
 * it was read from, or a memory file holding it).  Dies when the memory
 * file cannot be written. */
const char *fuzz_input_path(struct fuzz_input *in);

/* For parsers that read a file descriptor: a descriptor of the input at
 * offset 0, owned by the driver (do not close it). */
int fuzz_input_fd(struct fuzz_input *in);

#endif

/*
 * check.h - dc-write --check: verify DFTracer trace files.
 */
#ifndef DC_WRITE_CHECK_H
#define DC_WRITE_CHECK_H

/* Check every file; print a summary per file to standard output and one
 * line per problem to standard error.  Returns the exit status: 0 all
 * valid, 4 some invalid, 1 some unreadable. */
int check_traces(int n, char **files);

/* Check one file, as check_traces does, leaving standard output open:
 * 0 valid, 3 incomplete, 4 invalid, 1 unreadable. */
int check_trace(const char *file);

#endif

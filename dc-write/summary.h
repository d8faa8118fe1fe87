/*
 * summary.h - dc-write --summary: calls, bytes and time per layer,
 * function and file of DFTracer traces.
 */
#ifndef DC_WRITE_SUMMARY_H
#define DC_WRITE_SUMMARY_H

/* Print a summary of each file to standard output, at most top rows per
 * layer (0: all).  Returns 0, 4 if some lines could not be read, or 1 if
 * a file could not be opened. */
int summarize_traces(int n, char **files, unsigned top);

#endif

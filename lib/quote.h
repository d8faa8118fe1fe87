/*
 * quote.h - a string as one word of a line of text: as it is, or in
 * double quotes with \" and \\ escapes and control characters as \xHH
 * when it holds blanks, control characters, quotes, backslashes, bytes
 * of 0x7f and more, or nothing.  The one rule of dc-aggregate --text's
 * values and dc-write --summary's file names, so no name can split a
 * line or a field.
 */
#ifndef DC_QUOTE_H
#define DC_QUOTE_H

#include <stddef.h>
#include <stdio.h>

/* Write s (len bytes) to f as one word; with nul_as_space, NUL bytes (the
 * separators of a command line) as blanks, else as \x00. */
void dc_put_word(FILE *f, const char *s, size_t len, int nul_as_space);
/* The same word as a new string (NUL as \x00), to free. */
char *dc_word(const char *s, size_t len);

#endif

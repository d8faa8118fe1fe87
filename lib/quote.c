/*
 * quote.c - see quote.h.
 */
#include "config.h"

#include <stdlib.h>

#include "messages.h"
#include "quote.h"

void dc_put_word(FILE *f, const char *s, size_t len, int nul_as_space)
{
	size_t i;
	int quote = len == 0;

	for (i = 0; i < len && !quote; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ' ' || c == '"' || c == '\\' || c >= 0x7f)
			quote = 1;
	}
	if (!quote) {
		fwrite(s, 1, len, f);
		return;
	}
	putc('"', f);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\0' && nul_as_space)
			putc(' ', f);
		else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < ' ' || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			putc(c, f);
	}
	putc('"', f);
}

char *dc_word(const char *s, size_t len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (f == NULL)
		sysdie("cannot allocate memory");
	dc_put_word(f, s, len, 0);
	if (fclose(f) != 0)
		sysdie("cannot allocate memory");
	return buf;
}

/*
 * stdstreams.c - stdin and stdout without a FILE * argument, and reads
 * by the character, for t/3260-stdstreams.t:
 *
 *   stdstreams IN REOPENED
 *
 * reads a word of stdin with scanf, the rest to its end with getchar, and
 * the file IN with fgetc and getc in turn; writes stdout with printf, vprintf, puts, putchar and the
 * checking versions of printf and vprintf (what a program built with
 * _FORTIFY_SOURCE calls); then reopens stdout on REOPENED and prints once
 * more.  Every such call's name, as the trace has it, and its return go
 * to stderr, one "name ret" a line, in order.  Exits non-zero if a call
 * fails.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* glibc's checking versions, called as a fortified build would. */
int __printf_chk(int flag, const char *fmt, ...);
int __vprintf_chk(int flag, const char *fmt, va_list ap);

static void logged(const char *name, long ret)
{
	if (fprintf(stderr, "%s %ld\n", name, ret) < 0)
		exit(1);
}

static void check(int ok, const char *what)
{
	if (!ok) {
		perror(what);
		exit(1);
	}
}

/* A logger of the program's own, taking a va_list, as programs have. */
static int say(int checked, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = checked ? __vprintf_chk(1, fmt, ap) : vprintf(fmt, ap);
	va_end(ap);
	logged("vprintf", r);
	return r;
}

int main(int argc, char **argv)
{
	char word[6];
	FILE *in;
	int c, n = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: stdstreams IN REOPENED\n");
		return 2;
	}
	logged("scanf", scanf("%5s", word));
	do {
		c = getchar();
		logged("getchar", c);
	} while (c != EOF);
	check((in = fopen(argv[1], "r")) != NULL, "fopen");
	/* getc is fgetc in glibc: one function, as the trace names it. */
	do {
		c = n++ % 2 ? getc(in) : fgetc(in);
		logged("fgetc", c);
	} while (c != EOF);
	check(fclose(in) == 0, "fclose");

	/* Formats with conversions: the compiler turns a plain one into
	 * puts or putchar. */
	logged("printf", printf("%d bottles\n", 99));
	check(say(0, "%s of %s\n", "bottles", "beer") == 16, "vprintf");
	logged("puts", puts("on the wall"));
	logged("putchar", putchar('!'));
	logged("printf", __printf_chk(1, "%c%d\n", '#', 7));
	check(say(1, "take %d down\n", 1) == 12, "__vprintf_chk");
	check(fflush(stdout) == 0, "fflush");

	/* The same stream, another file: named by it from then on. */
	check(freopen(argv[2], "w", stdout) != NULL, "freopen");
	logged("printf", printf("%s\n", "reopened"));
	check(fclose(stdout) == 0, "fclose stdout");
	return 0;
}

/*
 * tap.h - TAP output for the C test helpers (t/helpers/lib-test.c,
 * t/helpers/stream-test.c): ok() prints one line a check, tap_done() the
 * plan and main's exit status.  Header-only: each helper is one program.
 */
#ifndef DC_TAP_H
#define DC_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

static void ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
}

/* After the last check: the plan, and 1 if any check failed. */
static int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}

#endif /* DC_TAP_H */

/*
 * messages.c - one-line diagnostics on stderr and checked output helpers.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "messages.h"

const char *dc_program = PACKAGE;
int dc_fatal_status = 1;
int dc_verbose;

void dc_messages_init(const char *argv0)
{
	const char *slash;

	if (argv0 == NULL || *argv0 == '\0')
		return;
	slash = strrchr(argv0, '/');
	dc_program = slash ? slash + 1 : argv0;
}

static void vmessage(const char *prefix, int err, const char *fmt, va_list ap)
{
	/* Build the line first so concurrent writers do not interleave. */
	char line[2048];
	int n;

	n = snprintf(line, sizeof(line), "%s: %s", dc_program, prefix);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	n = (int)strlen(line);
	if (err != 0)
		snprintf(line + n, sizeof(line) - (size_t)n, ": %s", strerror(err));
	fprintf(stderr, "%s\n", line);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", 0, fmt, ap);
	va_end(ap);
}

void syswarn(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmessage("", err, fmt, ap);
	va_end(ap);
}

void notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", 0, fmt, ap);
	va_end(ap);
}

void debug(const char *fmt, ...)
{
	va_list ap;

	if (dc_verbose <= 0)
		return;
	va_start(ap, fmt);
	vmessage("debug: ", 0, fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", 0, fmt, ap);
	va_end(ap);
	exit(dc_fatal_status);
}

void sysdie(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmessage("", err, fmt, ap);
	va_end(ap);
	exit(dc_fatal_status);
}

void die_status(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", 0, fmt, ap);
	va_end(ap);
	exit(status);
}

void dc_print_version(void)
{
	printf("%s (%s) %s\n", dc_program, PACKAGE_NAME, PACKAGE_VERSION);
	xfclose_stdout();
	exit(0);
}

void dc_try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", dc_program);
	exit(2);
}

void dc_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", 0, fmt, ap);
	va_end(ap);
	dc_try_help();
}

void dc_format_error(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* write(2), or with sock send(2) with MSG_NOSIGNAL, all of buf. */
static int put_all(int fd, const void *buf, size_t len, int sock)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = sock ? send(fd, p, len, MSG_NOSIGNAL)
				 : write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int dc_write_all(int fd, const void *buf, size_t len)
{
	return put_all(fd, buf, len, 0);
}

int dc_send_all(int fd, const void *buf, size_t len)
{
	return put_all(fd, buf, len, 1);
}

void xfwrite(const void *buf, size_t len, FILE *f, const char *what)
{
	if (len > 0 && fwrite(buf, 1, len, f) != len)
		sysdie("cannot write %s", what);
}

void xfclose_stdout(void)
{
	/* A full disk or a closed pipe shows up here at the latest. */
	if (fflush(stdout) != 0 || ferror(stdout))
		sysdie("cannot write standard output");
	if (fclose(stdout) != 0)
		sysdie("cannot close standard output");
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		sysdie("cannot allocate %zu bytes", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		sysdie("cannot allocate %zu x %zu bytes", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		sysdie("cannot allocate %zu bytes", n);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		sysdie("cannot copy a string");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		sysdie("cannot format a string");
	return p;
}

#if defined(__SANITIZE_ADDRESS__)
/* Sanitizer builds: every tool says messages, so lib/sanreport.c's UBSan
 * hook comes with every tool through this reference. */
void __ubsan_on_report(void);
void (*const dc_ubsan_hook)(void) = __ubsan_on_report;
#endif

/*
 * messages.h - diagnostics for the datacrumbs tools.
 *
 * Every message is one line on stderr, prefixed with the program name, so
 * stdout carries only data.  die() and sysdie() exit with the status given
 * by dc_fatal_status (default 1); sysdie() and syswarn() append
 * strerror(errno).
 */
#ifndef DC_MESSAGES_H
#define DC_MESSAGES_H

#include <stdio.h>

extern const char *dc_program; /* set by dc_messages_init */
extern int dc_fatal_status;    /* exit status of die() and sysdie() */
extern int dc_verbose;         /* debug() prints when > 0 */

void dc_messages_init(const char *argv0);

void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void syswarn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void sysdie(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Exit with an explicit status. */
void die_status(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Print the version line to stdout and exit 0 (for --version). */
void dc_print_version(void) __attribute__((noreturn));

/* An option getopt refused (it said why): print "Try 'PROGRAM --help'
 * for more information." to stderr, exit 2 (DC_EXIT_USAGE). */
void dc_try_help(void) __attribute__((noreturn));

/* Misuse: print "PROGRAM: MSG" and "Try 'PROGRAM --help'." to stderr,
 * exit 2. */
void dc_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* Format a one-line error into a caller's buffer (library functions
 * report this way and let the tool decide how to die). */
void dc_format_error(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* write(2) all of buf, retrying on EINTR and short writes: 0, or -1 with
 * errno set. */
int dc_write_all(int fd, const void *buf, size_t len);
/* The same with send(2) and MSG_NOSIGNAL: a peer gone is an error
 * (EPIPE), not SIGPIPE. */
int dc_send_all(int fd, const void *buf, size_t len);

/* Checked writes to stdout: die on failure (disk full, closed pipe). */
void xfwrite(const void *buf, size_t len, FILE *f, const char *what);
void xfclose_stdout(void);

/* Allocation that dies on failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* DC_MESSAGES_H */

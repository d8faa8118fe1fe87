/*
 * sanreport.c - UBSan findings into the test log, in sanitizer builds.
 *
 * With ASan and UBSan linked together (configure --enable-sanitizers),
 * GCC's UBSan runtime writes its reports to stderr whatever
 * UBSAN_OPTIONS' log_path says, so a finding in a tool whose stderr a
 * test keeps in a file went unseen by `make check` (ASan's reports do
 * reach log_path).  UBSan calls __ubsan_on_report() for every finding:
 * this one appends it, one line, to $DC_UBSAN_LOG.PID, which the suite
 * collects with ASan's (t/local.mk).  Compiled to nothing otherwise.
 */
#include "config.h"

#if defined(__SANITIZE_ADDRESS__)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void __ubsan_get_current_report_data(const char **kind, const char **msg,
				     const char **file, unsigned *line,
				     unsigned *col, char **addr);
void __ubsan_on_report(void);

void __ubsan_on_report(void)
{
	const char *kind = "", *msg = "", *file = "", *dir;
	unsigned line = 0, col = 0;
	char *addr = NULL, path[4096], rec[2048];
	int fd, n, saved = errno;

	if ((dir = getenv("DC_UBSAN_LOG")) == NULL || *dir == '\0')
		return;
	__ubsan_get_current_report_data(&kind, &msg, &file, &line, &col, &addr);
	snprintf(path, sizeof(path), "%s.%ld", dir, (long)getpid());
	n = snprintf(rec, sizeof(rec), "%s: %s:%u:%u: runtime error (%s): %s\n",
		     program_invocation_short_name, file ? file : "?", line, col,
		     kind ? kind : "?", msg ? msg : "?");
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (n > 0 && write(fd, rec, (size_t)n < sizeof(rec) ? (size_t)n
				   : sizeof(rec) - 1) < 0)
			n = -1;
		close(fd);
	}
	errno = saved;
}
#endif

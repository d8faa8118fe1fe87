/*
 * checking.h - glibc's other entry points of traced functions that have
 * code of their own: _FORTIFY_SOURCE's checking versions, and the C99
 * scanf.
 *
 * A program built with _FORTIFY_SOURCE=2 (as Debian builds its packages)
 * calls __fprintf_chk for every fprintf, and __fread_chk and
 * __fgets_chk for fread and fgets into a buffer whose size the compiler
 * knows.  These check their arguments and then do the work themselves:
 * they never reach the code of the function they stand for, so neither
 * the uprobe on it nor the client library's wrapper of it sees the call.
 * (Those that check and jump to the function's code, __read_chk or
 * __open_2, are seen there: lib/fastabi.h's DC_FAST_FORTIFIED.)
 *
 * dc-gen probes each one along with its function, its calls recorded
 * under the function's name with the function's argument plan, each
 * argument slot read from the register that holds it in the checking
 * version (dc-probes(5): "as" and "regs"); the client library wraps it
 * the same way (dc-wrap/wrappers.c), and dc-collect lets the client
 * record it only when the probe says what this list says
 * (dc-collect/fastpath.c).  This list is the one place that says it:
 *
 *   X(checking version, the function it stands for, (the argument
 *     register of each of the function's arguments, 0 the first))
 *
 * __fprintf_chk (FILE *, int flag, const char *format, ...): fprintf's
 * stream and format are its first and third.  __fread_chk (void *,
 * size_t buffer size, size_t size, size_t n, FILE *): fread's four are
 * all but the second.  __fgets_chk (char *, size_t buffer size, int n,
 * FILE *): likewise.  __vfprintf_chk (FILE *, int flag, const char
 * *format, va_list): vfprintf's stream and format, as __fprintf_chk's.
 * __printf_chk (int flag, const char *format, ...) and __vprintf_chk
 * (int flag, const char *format, va_list): printf's and vprintf's
 * format is their second.  The stdout slot after it in both plans is no
 * argument (the collector reads libc's variable into it): it is named
 * here by the register after the format, as printf's own plan has it.
 * __dprintf_chk (int fd, int flag, const char *format, ...) and
 * __vdprintf_chk (int fd, int flag, const char *format, va_list):
 * dprintf's and vdprintf's descriptor and format are their first and
 * third.
 *
 * __isoc99_fscanf (FILE *, const char *format, ...): <stdio.h> names
 * fscanf so in every program built for C99 or later (gcc's default),
 * whose %[ and %s do not take the a flag of the old GNU fscanf; it has
 * code of its own too, and takes fscanf's arguments in order.
 * __isoc23_fscanf, the same for C23 (%b, 0b prefixes), is what
 * <stdio.h> names it instead from glibc 2.38 on, in programs built with
 * -std=c2x or later or with _GNU_SOURCE (g++'s default).  A glibc
 * older than that has no such symbol: dc-gen probes a checking version
 * only where its library has it, and the client's wrapper of one is
 * reached only by a program that the dynamic linker found it for.
 * __isoc99_scanf and __isoc23_scanf (const char *format, ...): scanf's
 * the same way; the stdin slot after the format is no argument (as
 * printf's stdout).  (sscanf, vscanf and vfscanf, which <stdio.h>
 * renames likewise, are not traced: not here.)
 *
 * Plain C, for user space and for the client library alike.
 */
#ifndef DC_CHECKING_H
#define DC_CHECKING_H

#define DC_CHECKING_FUNCS(X) \
	X(__fprintf_chk, fprintf, (0, 2)) \
	X(__vfprintf_chk, vfprintf, (0, 2)) \
	X(__printf_chk, printf, (1, 2)) \
	X(__vprintf_chk, vprintf, (1, 2)) \
	X(__dprintf_chk, dprintf, (0, 2)) \
	X(__vdprintf_chk, vdprintf, (0, 2)) \
	X(__fread_chk, fread, (0, 2, 3, 4)) \
	X(__fgets_chk, fgets, (0, 2, 3)) \
	X(__isoc99_fscanf, fscanf, (0, 1)) \
	X(__isoc23_fscanf, fscanf, (0, 1)) \
	X(__isoc99_scanf, scanf, (0, 1)) \
	X(__isoc23_scanf, scanf, (0, 1))

#endif /* DC_CHECKING_H */

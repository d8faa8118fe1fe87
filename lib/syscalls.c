/*
 * syscalls.c - the syscall table: syscall-names.h lists every SYS_ macro
 * of <sys/syscall.h> (made by lib/local.mk), sorted by name.
 */
#include "config.h"

#include <string.h>
#include <sys/syscall.h>

#include "syscalls.h"

#define DC_SYSCALL(name) { #name, SYS_##name },
const struct dc_syscall dc_syscalls[] = {
#include "lib/syscall-names.h"
};
#undef DC_SYSCALL

const size_t dc_nsyscalls = sizeof(dc_syscalls) / sizeof(dc_syscalls[0]);

long dc_syscall_nr(const char *name)
{
	size_t lo = 0, hi = dc_nsyscalls;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, dc_syscalls[mid].name);

		if (c == 0)
			return dc_syscalls[mid].nr;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

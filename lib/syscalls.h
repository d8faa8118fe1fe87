/*
 * syscalls.h - system call numbers of this build's architecture, by name,
 * from <sys/syscall.h> (the table is generated at build time).  Used by
 * dc-gen (syscall layers) and dc-explore (--kind syscalls).
 */
#ifndef DC_SYSCALLS_H
#define DC_SYSCALLS_H

#include <stddef.h>

struct dc_syscall {
	const char *name;
	long nr;
};

extern const struct dc_syscall dc_syscalls[];
extern const size_t dc_nsyscalls;

/* The number of syscall NAME, or -1 if this architecture has none. */
long dc_syscall_nr(const char *name);

#endif /* DC_SYSCALLS_H */

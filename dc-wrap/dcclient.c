/*
 * dcclient.c - libdcclient.so: announce this process to dc-collect.
 *
 * See dcclient.h.  The hooks must really run, at their own address in
 * this file, for a uprobe on them to fire: they are noinline and
 * non-cloneable, exported with default visibility (the rest of the
 * library is hidden), and their empty asm with a memory clobber keeps the
 * compiler from proving the call useless.
 */
#include "config.h"

#include <unistd.h>

#include "dcclient.h"

#define DC_EXPORT __attribute__((visibility("default")))

#if defined(__has_attribute)
#if __has_attribute(noipa)
#define DC_HOOK __attribute__((noinline, noipa, used)) DC_EXPORT
#endif
#endif
#ifndef DC_HOOK
#define DC_HOOK __attribute__((noinline, used)) DC_EXPORT
#endif

DC_HOOK void dc_client_register(unsigned version, int pid)
{
	asm volatile("" ::"r"(version), "r"(pid) : "memory");
}

DC_HOOK void dc_client_unregister(unsigned version, int pid)
{
	asm volatile("" ::"r"(version), "r"(pid) : "memory");
}

DC_HOOK void dc_client_quiet(unsigned version, int on)
{
	asm volatile("" ::"r"(version), "r"(on) : "memory");
}

void dc_fast_init(void); /* fast.c */

__attribute__((constructor)) static void dc_client_init(void)
{
	/* The fast path first: a collector that selects this process at
	 * dc_client_register() finds its calls already recorded. */
	dc_fast_init();
	dc_client_register(DC_CLIENT_ABI_VERSION, (int)getpid());
}

__attribute__((destructor)) static void dc_client_fini(void)
{
	dc_client_unregister(DC_CLIENT_ABI_VERSION, (int)getpid());
}

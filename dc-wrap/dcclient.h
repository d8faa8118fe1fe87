/*
 * dcclient.h - the datacrumbs client library (libdcclient.so).
 *
 * A process that loads libdcclient.so (dc-wrap(1) preloads it with
 * LD_PRELOAD) announces itself to a running dc-collect: the library's
 * constructor calls dc_client_register() and its destructor calls
 * dc_client_unregister().  These hooks do nothing; they exist so that
 * dc-collect, in client mode, can attach a uprobe to dc_client_register in
 * this library's file and select the calling process (its whole thread
 * group, and the children it forks).  Tracing therefore starts at the
 * first instruction of the process's constructors and costs nothing when
 * no collector runs.
 *
 * The library is safe in any process: it allocates nothing, does no I/O,
 * depends on nothing but libc, and its constructor only calls getpid(2),
 * which is async-signal-safe.
 *
 * The library also carries the fast path (fast.c, wrappers.c, iolibs.c):
 * it wraps the posix, stdio, MPI-IO and HDF5 functions and, when a collector answers on its
 * socket (DC_FAST_SOCKET), writes the same struct dc_event records
 * (lib/event.h) the uprobes would into a shared ring that dc-collect
 * drains; lib/fastabi.h is that protocol.  Without a collector each
 * wrapper costs one branch.
 */
#ifndef DC_CLIENT_H
#define DC_CLIENT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Passed as `version` to the hooks below: what this client offers. */
#define DC_CLIENT_ABI_VERSION 1u

/* Called by the library constructor with the process id; a uprobe on this
 * function is how dc-collect learns about the process. */
void dc_client_register(unsigned version, int pid);

/* Called by the library destructor (normal exit, dlclose). */
void dc_client_unregister(unsigned version, int pid);

/* Called by the library around its own work in the calling thread (on:
 * from here; 0: done): its handshake with the collector and its first
 * look at its ring.  dc-collect, with the fast path, attaches a uprobe
 * here and records none of the thread's system calls and kernel events
 * in between: they are the library's, not the program's. */
void dc_client_quiet(unsigned version, int on);

#ifdef __cplusplus
}
#endif

#endif /* DC_CLIENT_H */

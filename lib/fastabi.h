/*
 * fastabi.h - the user-level fast path shared by the client library
 * (libdcclient.so) and dc-collect: the functions the client wraps, the
 * handshake on the collector's socket, and the layout of the per-process
 * shared ring.
 *
 * How it fits together (dc-wrap(1), dc-collect(8)):
 *
 *  1. dc-collect listens on an abstract Unix socket and names it in the
 *     command's environment (DC_FAST_SOCKET), or on the default name in
 *     --clients mode.
 *  2. The client library's constructor (and its fork handler) connects
 *     and sends a hello: its ABI version, the number of functions it can
 *     wrap and where its per-thread call state lives (TLS offset).  The
 *     kernel gives the collector the process id (SO_PEERCRED): the hello
 *     itself names no process.
 *  3. The collector answers with the table: for each wrapped function,
 *     whether the signed spec records it and with which probe id,
 *     argument count, string argument and return kind.  Functions the
 *     spec does not name stay off: the client records nothing else.
 *     With it comes, where the kernel allows, the process's call-state
 *     map (SCM_RIGHTS; state_slots says so): a BPF array the client
 *     maps and keeps each thread's struct dc_client_tls in (lib/event.h,
 *     struct dc_client_state), so the kernel programs read it with a
 *     plain load instead of copying it out of the thread's TLS at every
 *     system call.
 *  4. The client creates a memfd of the size the collector asked for,
 *     seals its size, and passes it (SCM_RIGHTS), saying whether it
 *     mapped the state map.  The collector checks the seals and the
 *     size, maps it, gives the kernel the state map (or the TLS offset
 *     only) and answers "go".  The collector holds the mapping, so
 *     whatever the process wrote survives its death.
 *  5. A process about to exec a program whose environment will not
 *     preload the library (exec.c) connects again and sends a hello
 *     with request DC_FAST_REQ_EXEC: the collector places the uprobes
 *     that stand in for the client into it (dc-collect's fallback.c),
 *     which the kernel keeps across the exec, and answers with a
 *     struct dc_fast_ready (ok = 1: in place).  The new program's calls
 *     are then traced from its first instruction, not from when the
 *     collector reads its exec.  The process waits for the answer
 *     DC_FAST_EXEC_WAIT_MS at most, then execs anyway.  If the exec
 *     fails, it says so (DC_FAST_REQ_EXEC_FAILED), and the uprobes go:
 *     its calls stay on the fast path.  A program that will not load
 *     the library though the environment names it (static: its own
 *     copies of the functions; set-ID) is sent along, opened by the
 *     process, with DC_FAST_REQ_EXEC_PROGRAM, and the same follows.
 *
 * The mapping: a header, then `nslots` slot headers of 128 bytes, then the
 * slots' data areas.  A thread claims a free slot (owner 0 -> tid) and is
 * its only writer; dc-collect is its only reader: single-producer single-
 * consumer, no locks.  The writer advances `head` (release) after writing
 * a whole record; the reader advances `tail`.  Records are struct dc_event
 * (lib/event.h), 8-byte aligned, never split: a record that does not fit
 * before the end of the area is preceded by a pad record (type 0, size =
 * the bytes to the end).  A writer whose slot is full waits for the
 * reader, as long as the reader's tail keeps moving (full_wait_ms in the
 * config; 0: it drops the record at once), and counts the record dropped
 * if it will not fit.  Everything in the mapping is the process's own
 * claim; dc-collect validates every record (dc-collect/fastpath.c).
 *
 * This header is plain C for user space only.
 */
#ifndef DC_FASTABI_H
#define DC_FASTABI_H

#include <linux/types.h>

#include "event.h"

#define DC_FAST_ENV "DC_FAST_SOCKET"      /* socket name, '@' = abstract */
#define DC_FAST_DEFAULT_SOCKET "@datacrumbs-clients"
#define DC_FAST_MAGIC 0x64636661u        /* "dcfa" */
#define DC_FAST_SHM_MAGIC 0x31676e6972636464ULL /* "ddcring1" */
#define DC_FAST_VERSION 17u               /* 9: the checking versions of
                                             lib/checking.h in the table;
                                             10: and __isoc99_fscanf;
                                             11: the hello's request;
                                             12: __isoc23_fscanf;
                                             13: fdopendir;
                                             14: the shm's noslot;
                                             15: POSIX AIO, getline,
                                             getdelim, vfprintf;
                                             16: fgetc, getc, getchar,
                                             printf, vprintf, puts,
                                             putchar; the mkstemp
                                             family, mkdtemp;
                                             freopen64, rewind,
                                             fgetpos, fsetpos, dprintf,
                                             vdprintf, scanf, the
                                             _unlocked versions;
                                             17: chdir, fchdir,
                                             truncate, sendfile,
                                             copy_file_range,
                                             posix_fallocate(64),
                                             fallocate,
                                             posix_fadvise; MPI's
                                             split collectives,
                                             iread_shared,
                                             iwrite_shared,
                                             seek_shared, set_size,
                                             preallocate, delete;
                                             H5Oopen, H5Oclose,
                                             H5Olink, H5Dcreate_anon,
                                             H5Acreate_by_name,
                                             H5Aopen_by_name,
                                             H5Dset_extent, H5Dflush */
#define DC_FAST_TIMEOUT_MS 10000          /* client waits this long */
#define DC_FAST_EXEC_WAIT_MS 2000         /* ... and this long before an
                                             exec: placing the uprobes
                                             takes ms, the first time
                                             ~100 ms (defining them) */
#define DC_FAST_FULL_WAIT_MS 1000         /* a full slot waits this long
                                             for the collector to read on:
                                             on a busy host the collector
                                             can go ~100 ms without a CPU */
#define DC_FAST_FULL_WAIT_MAX_MS 60000    /* the longest a collector may ask */

/* The functions the client wraps, in table order: X(name, layer).  The
 * order is the ABI: add at the end only, or bump DC_FAST_VERSION.  libc's
 * come first, then the mpiio and hdf5 layers' (DC_FN_FIRST_LIB).  Among
 * libc's, the checking versions that have code of their own
 * (lib/checking.h): each is the spec's probe of it, which records its
 * calls as the function's. */
#define DC_FAST_FUNCS(X) \
	X(open, posix) X(open64, posix) X(openat, posix) X(openat64, posix) \
	X(creat, posix) X(creat64, posix) X(read, posix) X(write, posix) \
	X(pread, posix) X(pread64, posix) X(pwrite, posix) \
	X(pwrite64, posix) X(readv, posix) X(writev, posix) \
	X(preadv, posix) X(pwritev, posix) X(preadv64, posix) \
	X(pwritev64, posix) X(lseek, posix) X(lseek64, posix) \
	X(fsync, posix) X(fdatasync, posix) X(close, posix) X(stat, posix) \
	X(lstat, posix) X(fstat, posix) X(stat64, posix) X(lstat64, posix) \
	X(fstat64, posix) X(fstatat, posix) X(fstatat64, posix) \
	X(mmap, posix) X(mmap64, posix) X(munmap, posix) X(unlink, posix) \
	X(rename, posix) X(mkdir, posix) X(rmdir, posix) X(opendir, posix) \
	X(readdir, posix) X(readdir64, posix) X(closedir, posix) \
	X(fdopendir, posix) \
	X(dup, posix) X(dup2, posix) X(dup3, posix) X(fcntl, posix) \
	X(ftruncate, posix) X(ftruncate64, posix) \
	X(fopen, stdio) X(fopen64, stdio) X(fdopen, stdio) \
	X(freopen, stdio) X(fread, stdio) X(fwrite, stdio) X(fseek, stdio) \
	X(fseeko, stdio) X(ftell, stdio) X(ftello, stdio) X(fflush, stdio) \
	X(fclose, stdio) X(fgets, stdio) X(fputs, stdio) X(fprintf, stdio) \
	X(fscanf, stdio) X(fputc, stdio) X(putc, stdio) X(preadv2, posix) \
	X(pwritev2, posix) \
	X(__fprintf_chk, stdio) X(__fread_chk, stdio) X(__fgets_chk, stdio) \
	X(__isoc99_fscanf, stdio) X(__isoc23_fscanf, stdio) \
	X(aio_read, posix) X(aio_write, posix) X(aio_return, posix) \
	X(aio_suspend, posix) X(aio_cancel, posix) X(aio_fsync, posix) \
	X(lio_listio, posix) X(getline, stdio) X(getdelim, stdio) \
	X(vfprintf, stdio) X(__vfprintf_chk, stdio) \
	X(fgetc, stdio) X(getc, stdio) X(getchar, stdio) X(printf, stdio) \
	X(vprintf, stdio) X(puts, stdio) X(putchar, stdio) \
	X(__printf_chk, stdio) X(__vprintf_chk, stdio) \
	X(mkstemp, posix) X(mkostemp, posix) X(mkstemps, posix) \
	X(mkostemps, posix) X(mkdtemp, posix) \
	X(freopen64, stdio) X(rewind, stdio) X(fgetpos, stdio) \
	X(fsetpos, stdio) X(dprintf, stdio) X(vdprintf, stdio) \
	X(__dprintf_chk, stdio) X(__vdprintf_chk, stdio) \
	X(scanf, stdio) X(__isoc99_scanf, stdio) X(__isoc23_scanf, stdio) \
	X(fwrite_unlocked, stdio) X(fread_unlocked, stdio) \
	X(fputs_unlocked, stdio) X(fgets_unlocked, stdio) \
	X(fputc_unlocked, stdio) X(putc_unlocked, stdio) \
	X(fgetc_unlocked, stdio) X(fflush_unlocked, stdio) \
	X(getchar_unlocked, stdio) X(putchar_unlocked, stdio) \
	X(chdir, posix) X(fchdir, posix) X(truncate, posix) \
	X(sendfile, posix) X(copy_file_range, posix) \
	X(posix_fallocate, posix) X(posix_fallocate64, posix) \
	X(fallocate, posix) X(posix_fadvise, posix) \
	X(MPI_File_open, mpiio) X(MPI_File_close, mpiio) \
	X(MPI_File_sync, mpiio) X(MPI_File_set_view, mpiio) \
	X(MPI_File_seek, mpiio) X(MPI_File_read, mpiio) \
	X(MPI_File_write, mpiio) X(MPI_File_read_all, mpiio) \
	X(MPI_File_write_all, mpiio) X(MPI_File_read_at, mpiio) \
	X(MPI_File_write_at, mpiio) X(MPI_File_read_at_all, mpiio) \
	X(MPI_File_write_at_all, mpiio) X(MPI_File_iread, mpiio) \
	X(MPI_File_iwrite, mpiio) X(MPI_File_iread_at, mpiio) \
	X(MPI_File_iwrite_at, mpiio) X(MPI_File_iread_all, mpiio) \
	X(MPI_File_iwrite_all, mpiio) X(MPI_File_iread_at_all, mpiio) \
	X(MPI_File_iwrite_at_all, mpiio) X(MPI_File_read_shared, mpiio) \
	X(MPI_File_write_shared, mpiio) X(MPI_File_read_ordered, mpiio) \
	X(MPI_File_write_ordered, mpiio) \
	X(MPI_File_iread_shared, mpiio) X(MPI_File_iwrite_shared, mpiio) \
	X(MPI_File_read_all_begin, mpiio) X(MPI_File_read_all_end, mpiio) \
	X(MPI_File_write_all_begin, mpiio) \
	X(MPI_File_write_all_end, mpiio) \
	X(MPI_File_read_at_all_begin, mpiio) \
	X(MPI_File_read_at_all_end, mpiio) \
	X(MPI_File_write_at_all_begin, mpiio) \
	X(MPI_File_write_at_all_end, mpiio) \
	X(MPI_File_read_ordered_begin, mpiio) \
	X(MPI_File_read_ordered_end, mpiio) \
	X(MPI_File_write_ordered_begin, mpiio) \
	X(MPI_File_write_ordered_end, mpiio) \
	X(MPI_File_seek_shared, mpiio) X(MPI_File_set_size, mpiio) \
	X(MPI_File_preallocate, mpiio) X(MPI_File_delete, mpiio) \
	X(H5Fcreate, hdf5) X(H5Fopen, hdf5) X(H5Fclose, hdf5) \
	X(H5Fflush, hdf5) X(H5Dcreate2, hdf5) X(H5Dopen2, hdf5) \
	X(H5Dread, hdf5) X(H5Dwrite, hdf5) X(H5Dclose, hdf5) \
	X(H5Gcreate2, hdf5) X(H5Gopen2, hdf5) X(H5Gclose, hdf5) \
	X(H5Acreate2, hdf5) X(H5Aopen, hdf5) X(H5Aread, hdf5) \
	X(H5Awrite, hdf5) X(H5Aclose, hdf5) X(H5Pcreate, hdf5) \
	X(H5Pclose, hdf5) X(H5Pset_fapl_mpio, hdf5) X(H5Pset_dxpl_mpio, hdf5) \
	X(H5Oopen, hdf5) X(H5Oclose, hdf5) X(H5Olink, hdf5) \
	X(H5Dcreate_anon, hdf5) X(H5Acreate_by_name, hdf5) \
	X(H5Aopen_by_name, hdf5) X(H5Dset_extent, hdf5) X(H5Dflush, hdf5)

/* More names the client wraps, each recorded as the function of the
 * table it stands for (X(name, that function)), so they take no entry
 * of their own:
 *  - other names of that function: glibc exports these at the same
 *    address (a program built with _FILE_OFFSET_BITS=64 calls fcntl64,
 *    which the uprobe on fcntl's address sees);
 *  - _FORTIFY_SOURCE's checking versions, which check their arguments
 *    and jump to that function's code (the uprobe on it sees the call,
 *    as the function's).  Those that do not reach it (__fread_chk,
 *    __fgets_chk, __fprintf_chk: lib/checking.h) are not among them:
 *    they have probes of their own, and so entries in the table.
 * dc-collect covers a function only when the client wraps every name
 * its library exports for it (fastpath.c). */
#define DC_FAST_ALIASES(X) \
	X(fcntl64, fcntl) X(fseeko64, fseeko) X(ftello64, ftello) \
	X(preadv64v2, preadv2) X(pwritev64v2, pwritev2) \
	X(aio_read64, aio_read) X(aio_write64, aio_write) \
	X(aio_return64, aio_return) X(aio_suspend64, aio_suspend) \
	X(aio_cancel64, aio_cancel) X(aio_fsync64, aio_fsync) \
	X(lio_listio64, lio_listio) X(__getdelim, getdelim) \
	X(mkstemp64, mkstemp) X(mkostemp64, mkostemp) \
	X(mkstemps64, mkstemps) X(mkostemps64, mkostemps) \
	X(fgetpos64, fgetpos) X(fsetpos64, fsetpos) \
	X(getc_unlocked, fgetc_unlocked) X(truncate64, truncate) \
	X(sendfile64, sendfile) X(fallocate64, fallocate) \
	X(posix_fadvise64, posix_fadvise)
#define DC_FAST_FORTIFIED(X) \
	X(__read_chk, read) X(__pread_chk, pread) X(__pread64_chk, pread64) \
	X(__open_2, open) X(__open64_2, open64) X(__openat_2, openat) \
	X(__openat64_2, openat64)

enum dc_fast_func {
#define DC_FAST_ENUM(name, layer) DC_FN_##name,
	DC_FAST_FUNCS(DC_FAST_ENUM)
#undef DC_FAST_ENUM
	DC_FAST_NFUNCS
};

/* From here on the functions of the mpiio and hdf5 layers: a shared
 * library's (libmpi, libhdf5), which the client resolves with
 * dlsym(RTLD_NEXT) and never links.  MPI_Init, MPI_Finalize and
 * MPI_Comm_rank are not among them: programs and libraries test for MPI
 * by looking those up (a weak symbol, dlsym(RTLD_DEFAULT)), and a
 * preloaded definition would tell a program without MPI that it has
 * one.  Called once or a few times a process, they stay uprobes. */
#define DC_FN_FIRST_LIB DC_FN_MPI_File_open

/* What a hello asks for. */
enum {
	DC_FAST_REQ_JOIN = 0,    /* the handshake: a ring, then records */
	DC_FAST_REQ_EXEC = 1,    /* uprobes, before an exec (step 5) */
	DC_FAST_REQ_EXEC_FAILED = 2, /* ... that failed: they go (answered
	                            when they have) */
	DC_FAST_REQ_EXEC_PROGRAM = 3, /* uprobes before an exec of the
	                            program attached (SCM_RIGHTS, opened by
	                            the process): it will not load the
	                            library though the environment names
	                            it (static, set-ID) */
};

/* Client -> collector, first message. */
struct dc_fast_hello {
	__u32 magic;             /* DC_FAST_MAGIC */
	__u32 version;           /* DC_FAST_VERSION */
	__u32 nfuncs;            /* DC_FAST_NFUNCS of the client */
	__u32 request;           /* DC_FAST_REQ_* */
	__s64 tls_off;           /* struct dc_client_tls at thread pointer
	                            + tls_off, in every thread */
};

/* How one wrapped function is recorded; on = 0: not at all. */
struct dc_fast_func_cfg {
	__u32 probe_id;
	__u8 on;
	__u8 nargs;              /* argument slots of the record */
	__u8 str_arg;            /* argument copied inline, 0xff: none */
	__u8 ret_kind;           /* enum dc_ret_kind */
	__u8 str_arg2;           /* a second string after the first's NUL */
	__u8 file_arg;           /* a FILE *: its descriptor, read at entry,
	                            goes in the last slot (DC_ARG_FILE) */
	__u8 derive_arg;         /* a slot the client fills at return as the
	                            kernel programs do, 0xff: none */
	__u8 derive_kind;        /* ... as this kind: DC_ARG_IOV (total of
	                            iov_len, count in the next slot),
	                            DC_ARG_STRLEN or DC_ARG_STROUT */
	__u8 arg_kinds[DC_MAX_ARGS]; /* the plan's kinds, DC_ARG_NONE after
	                            them: the client reads a struct aiocb's
	                            request at entry (DC_ARG_AIOCB), and the
	                            mpiio and hdf5 functions their handles,
	                            datatype sizes and status counts, as the
	                            kernel programs do */
};

/* Collector -> client, the answer to the hello. */
struct dc_fast_config {
	__u32 magic;
	__u32 version;
	__u32 nslots;            /* thread slots in the mapping */
	__u32 nfuncs;            /* entries that follow (<= the client's) */
	__u64 slot_bytes;        /* data bytes per slot, a power of two */
	__u32 full_wait_ms;      /* a full slot: wait for the collector's
	                            tail while it moves, until it stays put
	                            this long; 0: drop at once */
	__u32 state_slots;       /* DC_CLIENT_SLOTS: a call-state map is
	                            attached; 0: none (keep the state in
	                            the TLS) */
	struct dc_fast_func_cfg funcs[DC_FAST_NFUNCS];
};

/* Client -> collector with the memfd attached; collector -> client "go". */
struct dc_fast_ready {
	__u32 magic;
	__u32 ok;
	__u32 state;             /* client: 1 if it mapped the call-state
	                            map and keeps its threads' state there */
	__u32 reserved;
};

#define DC_FAST_HDR_BYTES 128
#define DC_FAST_SLOT_HDR_BYTES 128

struct dc_fast_shm {
	__u64 magic;             /* DC_FAST_SHM_MAGIC */
	__u32 version;
	__u32 nslots;
	__u64 slot_bytes;
	__u64 data_offset;       /* offset of slot 0's data area */
	__u64 lost;              /* records lost: a signal handler's call
	                            that could not wait for the one its
	                            thread was writing */
	__u64 noslot;            /* records lost: a thread found no free
	                            slot (past --fast-slots) */
};

struct dc_fast_slot {
	__u32 owner;             /* tid writing this slot, 0: free */
	__u32 reserved;
	__u64 head;              /* bytes written (client, release) */
	__u64 drops;             /* records not written: the slot was full */
	__u64 pad0[5];
	__u64 tail;              /* bytes read (collector), own cache line */
	__u64 pad1[7];
};

/* Bytes of a mapping with nslots slots of slot_bytes. */
static inline __u64 dc_fast_data_offset(__u32 nslots)
{
	__u64 hdr = DC_FAST_HDR_BYTES + (__u64)nslots * DC_FAST_SLOT_HDR_BYTES;

	return (hdr + 4095) & ~4095ULL;
}

static inline __u64 dc_fast_map_bytes(__u32 nslots, __u64 slot_bytes)
{
	return dc_fast_data_offset(nslots) + (__u64)nslots * slot_bytes;
}

#endif /* DC_FASTABI_H */

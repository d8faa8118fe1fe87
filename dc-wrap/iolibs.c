/*
 * iolibs.c - libdcclient.so's wrappers for the functions of dc-gen's
 * mpiio and hdf5 layers (DC_FAST_FUNCS from DC_FN_FIRST_LIB on).
 *
 * The library links neither libmpi nor libhdf5 and includes neither's
 * headers, whose types differ between MPI libraries (an MPI_Comm is a
 * pointer in OpenMPI, an int in MPICH).  A wrapper takes each argument
 * as the register or stack word that carries it (W: pointers,
 * MPI_Offset, hid_t, and the ints, whose upper half the callee
 * ignores), records that word, as the uprobe path reads the register,
 * and passes it on unchanged to the next definition, which dlsym
 * (RTLD_NEXT) finds at the first call.  A program without MPI or HDF5
 * never calls these.  One that links either into its executable calls
 * its own copy, never these: dc-collect leaves such functions on
 * uprobes (it decides from the probe's target).
 *
 * Arguments read through, as dc-collect/derive.bpf.h reads them (lib/mpiabi.h):
 *  - DC_ARG_HANDLE_IN (MPI_File_close's MPI_File *): the handle, read at
 *    entry; the call reads it there itself.
 *  - DC_ARG_HANDLE_OUT (MPI_File_open's MPI_File *): the handle the call
 *    stored, read at return.
 *  - DC_ARG_DATATYPE: the datatype's size (flag DC_EVF_DTSIZE) where the
 *    handle holds it (MPICH's predefined types) or points at it
 *    (OpenMPI), else the handle.
 *  - DC_ARG_MPISTATUS: the byte count in the MPI_Status after a call
 *    that succeeded, in the layout of the datatype's MPI; else -1.
 * After a call that succeeded, the memory the call used is readable;
 * after one that failed it is read the safe way (dc_safe_read).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>

#include <linux/types.h>

#include "client.h"
#include "mpiabi.h"

typedef __u64 W; /* an argument word */

/* n bytes at src: copied directly when the call has just used them,
 * else only if readable; 0 or -1. */
static int read_word(void *dst, __u64 src, size_t n, int used)
{
	if (src == 0)
		return -1;
	if (!used)
		return dc_safe_read(dst, src, n);
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return 0;
}

/* MPI_Type_size of a datatype handle, or -1 (derive.bpf.h's rule). */
static __s64 mpi_type_size(__u64 h, int *flavor, int used)
{
	__u64 size;

	if (h < (1ULL << 32)) {
		if ((h >> 26) == DC_MPICH_BUILTIN_DATATYPE) {
			*flavor = DC_MPI_MPICH;
			return (__s64)((h >> 8) & 0xff);
		}
		if ((h >> 30) >= 2)
			*flavor = DC_MPI_MPICH;
		return -1;
	}
	*flavor = DC_MPI_OMPI;
	if (read_word(&size, h + DC_OMPI_DT_SIZE_OFF, sizeof(size), used) != 0 ||
	    size > DC_OMPI_DT_SIZE_MAX)
		return -1;
	return (__s64)size;
}

/* The byte count an MPI_Status reports after a call that succeeded, or
 * -1. */
static __s64 mpi_status_bytes(__u64 st, int flavor)
{
	__u64 ucount;
	__s32 mpich[2];

	if (st < DC_MPI_STATUS_MIN)
		return -1;
	if (flavor == DC_MPI_OMPI) {
		memcpy(&ucount, (const void *)(uintptr_t)(st + DC_OMPI_STATUS_UCOUNT_OFF),
		       sizeof(ucount));
		return (__s64)ucount;
	}
	if (flavor == DC_MPI_MPICH) {
		/* count_lo, then count_hi_and_cancelled (cancel in bit 0) */
		memcpy(mpich, (const void *)(uintptr_t)st, sizeof(mpich));
		return (__s64)((__u64)(__u32)mpich[0] |
			       ((__u64)((__u32)mpich[1] >> 1) << 32));
	}
	return -1;
}

/* Slots read at entry; then the call is open. */
static void lib_begin(struct dc_call *c, int fn, __u64 *a, int n)
{
	const struct dc_fast_func_cfg *cfg = dc_fast_func(fn);
	int i;

	for (i = 0; i < n && i < DC_MAX_ARGS; i++)
		if (cfg->arg_kinds[i] == DC_ARG_HANDLE_IN) {
			__u64 v = 0;

			if (a[i] != 0)
				read_word(&v, a[i], sizeof(v), 1);
			a[i] = v;
		}
	dc_call_begin(c, fn, a, n);
}

/* Slots read at return; then the record. */
static void lib_end(struct dc_call *c, __s64 ret, __u64 *a, int n)
{
	const struct dc_fast_func_cfg *cfg = dc_fast_func(c->fn);
	int i, flavor = DC_MPI_UNKNOWN, ok = ret == 0;
	__s64 size;
	__u64 v;

	/* An int return leaves the upper half of the register undefined:
	 * the uprobe path reads the lower half, signed. */
	switch (cfg->ret_kind) {
	case DC_RET_FD:
	case DC_RET_STATUS:
	case DC_RET_INT:
	case DC_RET_ALL:
	case DC_RET_CODE:
		ret = (__s32)ret;
		ok = ret == 0;
		break;
	}
	c->evflags = 0;
	for (i = 0; i < n && i < DC_MAX_ARGS; i++) {
		switch (cfg->arg_kinds[i]) {
		case DC_ARG_DATATYPE:
			size = mpi_type_size(a[i], &flavor, ok);
			if (size >= 0) {
				a[i] = (__u64)size;
				c->evflags |= DC_EVF_DTSIZE;
			}
			break;
		case DC_ARG_MPISTATUS:
			a[i] = (__u64)(ok ? mpi_status_bytes(a[i], flavor) : -1);
			break;
		case DC_ARG_HANDLE_OUT:
			if (read_word(&v, a[i], sizeof(v), ok) != 0)
				v = 0;
			a[i] = v;
			break;
		}
	}
	dc_call_end(c, ret, a, n, cfg->str_arg, 0);
}


/* LIBWRAP(return type, name, argument count, (parameters), (names),
 * (the names recorded: the first DC_MAX_ARGS)) */
#define LIBWRAP(ret, name, n, params, args, slots)                          \
	static ret (*real_##name) params;                                   \
	DC_EXPORT ret name params                                           \
	{                                                                   \
		__u64 a[DC_MAX_ARGS] = { STRIP slots };                     \
		struct dc_call c;                                           \
		ret r;                                                      \
                                                                            \
		if (__builtin_expect(!dc_fast_on[DC_FN_##name], 1))         \
			return REAL(name) args;                             \
		lib_begin(&c, DC_FN_##name, a, n);                          \
		r = REAL(name) args;                                        \
		lib_end(&c, (__s64)r, a, n);                                \
		return r;                                                   \
	}

#define P1 (W a0)
#define P2 (W a0, W a1)
#define P3 (W a0, W a1, W a2)
#define P4 (W a0, W a1, W a2, W a3)
#define P5 (W a0, W a1, W a2, W a3, W a4)
#define P6 (W a0, W a1, W a2, W a3, W a4, W a5)
#define A1 (a0)
#define A2 (a0, a1)
#define A3 (a0, a1, a2)
#define A4 (a0, a1, a2, a3)
#define A5 (a0, a1, a2, a3, a4)
#define A6 (a0, a1, a2, a3, a4, a5)

/* MPI: every function returns an int error code. */
#define MPI1(name) LIBWRAP(int, name, 1, P1, A1, A1)
#define MPI2(name) LIBWRAP(int, name, 2, P2, A2, A2)
#define MPI3(name) LIBWRAP(int, name, 3, P3, A3, A3)
#define MPI4(name) LIBWRAP(int, name, 4, P4, A4, A4)
#define MPI5(name) LIBWRAP(int, name, 5, P5, A5, A5)
#define MPI6(name) LIBWRAP(int, name, 6, P6, A6, A6)

MPI5(MPI_File_open)
MPI1(MPI_File_close)
MPI1(MPI_File_sync)
MPI6(MPI_File_set_view)
MPI3(MPI_File_seek)
MPI5(MPI_File_read)
MPI5(MPI_File_write)
MPI5(MPI_File_read_all)
MPI5(MPI_File_write_all)
MPI6(MPI_File_read_at)
MPI6(MPI_File_write_at)
MPI6(MPI_File_read_at_all)
MPI6(MPI_File_write_at_all)
MPI5(MPI_File_iread)
MPI5(MPI_File_iwrite)
MPI6(MPI_File_iread_at)
MPI6(MPI_File_iwrite_at)
MPI5(MPI_File_iread_all)
MPI5(MPI_File_iwrite_all)
MPI6(MPI_File_iread_at_all)
MPI6(MPI_File_iwrite_at_all)
MPI5(MPI_File_read_shared)
MPI5(MPI_File_write_shared)
MPI5(MPI_File_read_ordered)
MPI5(MPI_File_write_ordered)
MPI5(MPI_File_iread_shared)
MPI5(MPI_File_iwrite_shared)
MPI4(MPI_File_read_all_begin)
MPI3(MPI_File_read_all_end)
MPI4(MPI_File_write_all_begin)
MPI3(MPI_File_write_all_end)
MPI5(MPI_File_read_at_all_begin)
MPI3(MPI_File_read_at_all_end)
MPI5(MPI_File_write_at_all_begin)
MPI3(MPI_File_write_at_all_end)
MPI4(MPI_File_read_ordered_begin)
MPI3(MPI_File_read_ordered_end)
MPI4(MPI_File_write_ordered_begin)
MPI3(MPI_File_write_ordered_end)
MPI3(MPI_File_seek_shared)
MPI2(MPI_File_set_size)
MPI2(MPI_File_preallocate)
MPI2(MPI_File_delete)

/* HDF5: a new id (hid_t, 64 bits, negative on failure) or a status
 * (herr_t, an int). */
#define ID(name, n) LIBWRAP(__s64, name, n, P##n, A##n, A##n)
#define STATUS(name, n) LIBWRAP(int, name, n, P##n, A##n, A##n)

ID(H5Fcreate, 4)
ID(H5Fopen, 3)
STATUS(H5Fclose, 1)
STATUS(H5Fflush, 2)
/* Seven arguments; the plan records six. */
LIBWRAP(__s64, H5Dcreate2, 6, (W a0, W a1, W a2, W a3, W a4, W a5, W a6),
	(a0, a1, a2, a3, a4, a5, a6), A6)
ID(H5Dopen2, 3)
STATUS(H5Dread, 6)
STATUS(H5Dwrite, 6)
STATUS(H5Dclose, 1)
ID(H5Gcreate2, 5)
ID(H5Gopen2, 3)
STATUS(H5Gclose, 1)
ID(H5Acreate2, 6)
ID(H5Aopen, 3)
STATUS(H5Aread, 3)
STATUS(H5Awrite, 3)
STATUS(H5Aclose, 1)
ID(H5Pcreate, 1)
STATUS(H5Pclose, 1)
STATUS(H5Pset_fapl_mpio, 3)
STATUS(H5Pset_dxpl_mpio, 2)
ID(H5Oopen, 3)
STATUS(H5Oclose, 1)
STATUS(H5Olink, 5)
ID(H5Dcreate_anon, 5)
/* Eight arguments; the plan records six. */
LIBWRAP(__s64, H5Acreate_by_name, 6,
	(W a0, W a1, W a2, W a3, W a4, W a5, W a6, W a7),
	(a0, a1, a2, a3, a4, a5, a6, a7), A6)
ID(H5Aopen_by_name, 5)
STATUS(H5Dset_extent, 2)
STATUS(H5Dflush, 1)

/*
 * mpiabi.h - what the MPI libraries Debian ships keep where, for the
 * mpiio layer's read-through arguments (DC_ARG_DATATYPE,
 * DC_ARG_MPISTATUS): the kernel programs (dc-collect/derive.bpf.h) and
 * the client library (dc-wrap/iolibs.c) read the same fields.
 *
 * Included from BPF C and from user space, after lib/event.h.
 */
#ifndef DC_MPIABI_H
#define DC_MPIABI_H

/* OpenMPI 4 and 5: opal_datatype_t.size (after the 16-byte object
 * header, flags, id and bdt_used), and ompi_status_public_t._ucount. */
#define DC_OMPI_DT_SIZE_OFF 24
#define DC_OMPI_STATUS_UCOUNT_OFF 16
/* An OpenMPI datatype's size above this is not a size. */
#define DC_OMPI_DT_SIZE_MAX (1ULL << 40)

/* Which MPI a datatype handle comes from: an OpenMPI handle is a
 * pointer, an MPICH handle a 32-bit code. */
enum dc_mpi_flavor { DC_MPI_UNKNOWN, DC_MPI_OMPI, DC_MPI_MPICH };

/* An MPICH handle's kind and object: 0x13 is kind "builtin", object
 * "datatype", which holds the type's size in bits 8-15; kinds 2 and 3
 * (direct, indirect) are MPICH's too, without a size. */
#define DC_MPICH_BUILTIN_DATATYPE 0x13

/* MPI_STATUS_IGNORE is NULL (OpenMPI) or 1 (MPICH): a status pointer
 * below this is none. */
#define DC_MPI_STATUS_MIN 4096

#endif /* DC_MPIABI_H */

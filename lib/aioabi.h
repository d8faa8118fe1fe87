/*
 * aioabi.h - what glibc's struct aiocb keeps where, for the posix
 * layer's POSIX AIO calls (DC_ARG_AIOCB): the kernel programs
 * (dc-collect/derive.bpf.h) and the client library (dc-wrap/derive.c)
 * read the same fields and name the operation the same way.
 *
 * Included from BPF C and from user space, after lib/event.h, so it uses
 * only the __u* types and static inline functions.
 */
#ifndef DC_AIOABI_H
#define DC_AIOABI_H

/* glibc's struct aiocb on LP64 (<aio.h>; struct aiocb64 is the same
 * struct there): int aio_fildes, int aio_lio_opcode, the buffer, then
 * size_t aio_nbytes; off_t aio_offset after the sigevent and glibc's
 * own fields. */
#define DC_AIOCB_FILDES_OFF 0
#define DC_AIOCB_OPCODE_OFF 4
#define DC_AIOCB_NBYTES_OFF 24
#define DC_AIOCB_OFFSET_OFF 128
/* The bytes from aio_fildes to the end of aio_nbytes, read as one. */
#define DC_AIOCB_HEAD_BYTES 32

/* A request's operation as a DC_ARG_OP slot holds it (up to 8 ASCII
 * characters, little-endian): glibc stores the operation it queued in
 * aio_lio_opcode (bit 7: the 64-bit offset variant): LIO_READ (0) "R",
 * LIO_WRITE (1) "W", its LIO_DSYNC and LIO_SYNC (3, 4: aio_fsync) "F";
 * anything else (LIO_NOP, a request never queued) 0. */
static __inline __u64 dc_aio_op(__s32 opcode)
{
	switch (opcode & 127) {
	case 0:
		return 'R';
	case 1:
		return 'W';
	case 3: case 4:
		return 'F';
	}
	return 0;
}

/* The request of the struct aiocb in slot i (DC_ARG_AIOCB), as read
 * from it, into the slots: its descriptor there, and its byte count,
 * offset and operation into the next three where the plan's kinds
 * (DC_MAX_ARGS of them, DC_ARG_NONE past the plan) name them size,
 * offset and op.  readable 0 (a NULL or unreadable pointer): -1 in
 * each, no operation. */
static __inline void dc_aiocb_slots(const __u8 *kinds, __u64 *args, int i,
				    int readable, __s32 fd, __s32 opcode,
				    __u64 nbytes, __u64 offset)
{
	if (i < 0 || i >= DC_MAX_ARGS)
		return;
	if (!readable) {
		fd = -1;
		opcode = -1;
		nbytes = offset = (__u64)-1;
	}
	args[i] = (__u64)(__s64)fd;
	if (i + 1 < DC_MAX_ARGS && kinds[i + 1] == DC_ARG_SIZE)
		args[i + 1] = nbytes;
	if (i + 2 < DC_MAX_ARGS && kinds[i + 2] == DC_ARG_OFFSET)
		args[i + 2] = offset;
	if (i + 3 < DC_MAX_ARGS && kinds[i + 3] == DC_ARG_OP)
		args[i + 3] = dc_aio_op(opcode);
}

#endif /* DC_AIOABI_H */

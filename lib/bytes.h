/*
 * bytes.h - how many bytes a call asked to move and how many it moved
 * (or a kernel event says moved: a socket message, an io_uring
 * completion), from its argument plan, argument slots and return value:
 * the one rule
 * the trace writer, the summary, dc-aggregate --profile and the
 * collector's profile mode share (dc-trace(5), "Bytes").
 *
 * Included from BPF C and from user space, after lib/event.h, so it uses
 * only the __u* types and static inline functions.
 */
#ifndef DC_BYTES_H
#define DC_BYTES_H

/* What the result of an io_uring request of this opcode (the kernel's
 * enum io_uring_op, a stable uapi) counts: 'r' bytes read, 'w' bytes
 * written, 'm' bytes moved from one file to another (splice, tee), 0
 * anything else (a descriptor, a status; also opcode -1, not known). */
static __inline int dc_uring_moves(__s64 opcode)
{
	switch (opcode) {
	case 1: case 4: case 10: case 22: case 27: case 49: case 58: case 60:
		return 'r'; /* READV, READ_FIXED, RECVMSG, READ, RECV,
			       READ_MULTISHOT, RECV_ZC, READV_FIXED */
	case 2: case 5: case 9: case 23: case 26: case 47: case 48: case 61:
		return 'w'; /* WRITEV, WRITE_FIXED, SENDMSG, WRITE, SEND,
			       SEND_ZC, SENDMSG_ZC, WRITEV_FIXED */
	case 30: case 33:
		return 'm'; /* SPLICE, TEE */
	}
	return 0;
}

struct dc_bytes {
	__s64 req;      /* bytes asked for; -1 unknown */
	__s64 done;     /* bytes moved; -1 unknown */
	__u8 size_slot; /* a slot already prints "size" (a size argument) */
};

/* kinds[i] for the plan's nargs slots; args holds at least nargs. */
static __inline void dc_bytes_of(const __u8 *kinds, unsigned nargs,
				 __u8 ret_kind, const __u64 *args, __s64 ret,
				 __u8 flags, struct dc_bytes *b)
{
	__s64 isize = -1, count = -1, dtsize = -1, size = -1, other = -1;
	__s64 out = -1, status = -1;
	unsigned i;

	b->req = -1;
	b->done = -1;
	b->size_slot = 0;
	for (i = 0; i < nargs && i < DC_MAX_ARGS; i++) {
		__s64 v = (__s64)args[i];

		switch (kinds[i]) {
		case DC_ARG_SIZE:
			if (size < 0) {
				size = v;
				b->size_slot = 1;
			}
			break;
		case DC_ARG_ISIZE:
			isize = v;
			break;
		case DC_ARG_COUNT:
			count = v;
			break;
		case DC_ARG_DATATYPE:
			if (flags & DC_EVF_DTSIZE)
				dtsize = v;
			break;
		case DC_ARG_IOV:
		case DC_ARG_STRLEN:
			other = v;
			break;
		case DC_ARG_CHAR:
			other = 1;
			break;
		case DC_ARG_STROUT:
			out = v;
			break;
		case DC_ARG_MPISTATUS:
			status = v;
			break;
		}
	}
	if (isize >= 0 && count >= 0)
		b->req = isize * count;
	else if (dtsize >= 0 && count >= 0)
		b->req = dtsize * count;
	else if (size >= 0)
		b->req = size;
	else if (other >= 0)
		b->req = other;

	switch (ret_kind) {
	case DC_RET_SIZE:
		b->done = ret >= 0 ? ret : 0;
		break;
	case DC_RET_ITEMS:
		if (isize >= 0)
			b->done = ret >= 0 ? ret * isize : 0;
		else if (ret <= 0)
			b->done = 0;
		break;
	case DC_RET_ALL:
		b->done = ret < 0 ? 0 : b->req;
		break;
	case DC_RET_CHAR:
		b->req = 1;
		b->done = ret < 0 ? 0 : 1;
		break;
	case DC_RET_CODE:
		/* Without an MPI_Status: all of it, as MPI promises for a
		 * successful write (a read near the end of a file may have
		 * moved less; dc-trace(5) says so). */
		b->done = ret != 0 ? 0 : b->req;
		break;
	}
	if (out >= 0)
		b->done = out;
	if (status >= 0 && ret_kind == DC_RET_CODE && ret == 0)
		b->done = status;
}

/* After dc_bytes_of, for the kernel layers' instants that say what
 * moved (user space only: the collector's profile mode works the same
 * out in the two programs that emit them, emit_sock_length and
 * dc_uring_complete in dc-collect/tracepoints.bpf.h, from the fields
 * it knows there, rather than walk a plan).  A socket message event
 * (a family, the message flags, the length returned): a MSG_PEEK (2)
 * receive moved nothing, as the tracepoint's own length says.  An
 * io_uring completion (an opcode, the request's result): a byte count
 * only for requests that move data. */
static __inline void dc_bytes_kernel(const __u8 *kinds, unsigned nargs,
				     __u8 ret_kind, const __u64 *args,
				     struct dc_bytes *b)
{
	int sock = 0;
	__s64 msgflags = 0;
	unsigned i;

	if (ret_kind != DC_RET_SIZE)
		return;
	for (i = 0; i < nargs && i < DC_MAX_ARGS; i++) {
		if (kinds[i] == DC_ARG_FAMILY)
			sock = 1;
		else if (kinds[i] == DC_ARG_FLAGS)
			msgflags = (__s64)args[i];
		else if (kinds[i] == DC_ARG_OPCODE &&
			 !dc_uring_moves((__s64)args[i]))
			b->done = -1;
	}
	if (sock && (msgflags & 2) && b->done > 0)
		b->done = 0;
}

#endif /* DC_BYTES_H */

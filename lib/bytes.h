/*
 * bytes.h - how many bytes a call asked to move and how many it moved,
 * from its argument plan, argument slots and return value: the one rule
 * the trace writer, the summary, dc-aggregate --profile and the
 * collector's profile mode share (dc-trace(5), "Bytes").
 *
 * Included from BPF C and from user space, after lib/event.h, so it uses
 * only the __u* types and static inline functions.
 */
#ifndef DC_BYTES_H
#define DC_BYTES_H

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

#endif /* DC_BYTES_H */

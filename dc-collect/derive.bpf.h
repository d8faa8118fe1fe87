/* SPDX-License-Identifier: GPL-2.0 */
/*
 * derive.bpf.h - arguments read through at a call's entry or return
 * (DC_DERIVE_*): vector totals, string lengths, handles, MPI datatype
 * sizes and statuses.  Part of collect.bpf.c.
 */

struct dc_uiovec {
	__u64 base;
	__u64 len;
};

struct iov_sum {
	__u64 iov;
	__s64 total;
};

static long iov_add(__u64 i, void *data)
{
	struct iov_sum *c = data;
	struct dc_uiovec v;

	if (bpf_probe_read_user(&v, sizeof(v),
				(const void *)(c->iov + i * sizeof(v))) != 0) {
		c->total = -1;
		return 1;
	}
	c->total += v.len;
	return 0;
}

/* The read-through steps below are global functions, like derive_exit:
 * each is checked once, where a static one would be checked again at
 * each of derive_exit's call sites (a case per argument slot), on each
 * path there.  Their arguments are scalars. */

/* Total of iov_len over cnt entries (IOV_MAX at most); -1 unreadable. */
__noinline __s64 iov_total(__u64 iov, __s64 cnt)
{
	struct iov_sum c = { .iov = iov, .total = 0 };

	if (cnt < 0 || cnt > 1024)
		return -1;
	bpf_loop((__u32)cnt, iov_add, &c, 0);
	return c.total;
}

/* strlen of a user string, up to 16 pages of it; -1 unreadable or
 * longer. */
__noinline __s64 user_strlen(__u64 ptr)
{
	struct scratch *s;
	__u32 zero = 0;
	__s64 total = 0;
	long n;
	int i;

	s = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!s || ptr == 0)
		return -1;
	for (i = 0; i < 16; i++) {
		n = bpf_probe_read_user_str(s->rec, DC_MAX_STR,
					    (const void *)(ptr + total));
		if (n < 1)
			return -1;
		if (n < DC_MAX_STR)
			return total + n - 1;
		total += DC_MAX_STR - 1;
	}
	return -1;
}

enum { MPI_UNKNOWN, MPI_OMPI, MPI_MPICH };

/* Which MPI a datatype handle is of: MPICH's are 32-bit values, the
 * built-in ones of kind "builtin", object "datatype" (0x13 above bit
 * 26) and the others with bit 31 set; OpenMPI's are pointers. */
static __always_inline int mpi_flavor(__u64 h)
{
	if (h < (1ULL << 32))
		return (h >> 26) == 0x13 || (h >> 30) >= 2 ? MPI_MPICH : MPI_UNKNOWN;
	return MPI_OMPI;
}

/* MPI_Type_size of a datatype handle, or -1.  MPICH encodes a built-in
 * type's size in its handle; an OpenMPI handle points at its
 * opal_datatype_t. */
__noinline __s64 mpi_type_size(__u64 h)
{
	__u64 size;

	if (h < (1ULL << 32))
		return (h >> 26) == 0x13 ? (__s64)((h >> 8) & 0xff) : -1;
	if (bpf_probe_read_user(&size, sizeof(size),
				(const void *)(h + DC_OMPI_DT_SIZE_OFF)) != 0 ||
	    size > (1ULL << 40))
		return -1;
	return (__s64)size;
}

/* The byte count an MPI_Status reports, or -1. */
__noinline __s64 mpi_status_bytes(__u64 st, int flavor)
{
	__u64 ucount;
	__s32 mpich[2];

	if (st < 4096) /* MPI_STATUS_IGNORE: NULL (OpenMPI), 1 (MPICH) */
		return -1;
	if (flavor == MPI_OMPI) {
		if (bpf_probe_read_user(&ucount, sizeof(ucount),
					(const void *)(st + DC_OMPI_STATUS_UCOUNT_OFF)))
			return -1;
		return (__s64)ucount;
	}
	if (flavor == MPI_MPICH) {
		/* count_lo, then count_hi_and_cancelled (cancel in bit 0). */
		if (bpf_probe_read_user(mpich, sizeof(mpich), (const void *)st))
			return -1;
		return (__s64)((__u64)(__u32)mpich[0] |
			       ((__u64)((__u32)mpich[1] >> 1) << 32));
	}
	return -1;
}

/* A POSIX AIO request's descriptor, size, offset and operation from
 * the struct aiocb in slot i (lib/aioabi.h). */
static __always_inline void aiocb_entry(const struct dc_probe_cfg *cfg,
					__u64 *args, int i)
{
	__u8 head[DC_AIOCB_HEAD_BYTES];
	const void *cb = (const void *)args[i];
	__s32 fd = 0, opcode = 0;
	__u64 nbytes = 0, offset = 0;
	int ok;

	/* The head and the offset: two reads, not the 136 bytes between. */
	ok = cb != NULL &&
	     bpf_probe_read_user(head, sizeof(head), cb) == 0 &&
	     bpf_probe_read_user(&offset, sizeof(offset),
				 cb + DC_AIOCB_OFFSET_OFF) == 0;
	if (ok) {
		__builtin_memcpy(&fd, head + DC_AIOCB_FILDES_OFF, sizeof(fd));
		__builtin_memcpy(&opcode, head + DC_AIOCB_OPCODE_OFF,
				 sizeof(opcode));
		__builtin_memcpy(&nbytes, head + DC_AIOCB_NBYTES_OFF,
				 sizeof(nbytes));
	}
	dc_aiocb_slots(cfg->arg_kinds, args, i, ok, fd, opcode, nbytes, offset);
}

/* ip: the probed function's address in the process, from which libc's
 * stdout or stdin lies cfg->stream_rel bytes away (load.c). */
static __noinline void derive_entry(const struct dc_probe_cfg *cfg,
				    __u64 *args, __u64 ip)
{
	__u64 v;
	__s32 fd;
	int i;

	for (i = 0; i < DC_MAX_ARGS; i++) {
		switch (cfg->arg_kinds[i]) {
		case DC_ARG_HANDLE_IN:
			if (args[i] == 0 ||
			    bpf_probe_read_user(&v, sizeof(v), (const void *)args[i]))
				v = 0;
			args[i] = v;
			break;
		case DC_ARG_STDOUT:
		case DC_ARG_STDIN:
			/* The stream libc's variable holds now, then as a
			 * FILE * argument. */
			if (cfg->stream_rel == 0 ||
			    bpf_probe_read_user(&v, sizeof(v),
						(const void *)(ip + cfg->stream_rel)))
				v = 0;
			args[i] = v;
			/* fall through */
		case DC_ARG_FILE:
			if (args[i] == 0 ||
			    bpf_probe_read_user(&fd, sizeof(fd),
						(const void *)(args[i] + DC_GLIBC_FILENO_OFF)))
				fd = -1;
			args[DC_MAX_ARGS - 1] = (__u64)(__s64)fd;
			break;
		case DC_ARG_AIOCB:
			aiocb_entry(cfg, args, i);
			break;
		}
	}
}

/* Rewrite the frame's slots that are read at return; returns flags.
 * A global function: the verifier checks it once, on its own, where a
 * static one is checked again at each of emit_call's call sites in each
 * exit program, on each path there (most of those programs' time to
 * load).  Its pointers are then sized memory that may be NULL.  Where
 * the kernel takes no such function (kfeatures.c), dc-collect marks it
 * static before loading (load.c). */
__noinline __u8 derive_exit(const struct dc_probe_cfg *cfg,
			    struct dc_call_frame *f, __s64 ret)
{
	int flavor = MPI_UNKNOWN;
	__u8 flags = 0;
	__s64 n;
	__u64 v;
	int i;

	if (!cfg || !f)
		return 0;
	for (i = 0; i < DC_MAX_ARGS; i++) {
		switch (cfg->arg_kinds[i]) {
		case DC_ARG_IOV:
			f->args[i] = (__u64)iov_total(f->args[i],
				i + 1 < DC_MAX_ARGS ? (__s32)f->args[(i + 1) & 7] : -1);
			break;
		case DC_ARG_STRLEN:
			f->args[i] = (__u64)user_strlen(f->args[i]);
			break;
		case DC_ARG_STROUT:
			n = dc_call_failed(cfg->ret_kind, ret) ?
				0 : user_strlen(f->args[i]);
			f->args[i] = (__u64)(n < 0 ? 0 : n);
			break;
		case DC_ARG_DATATYPE:
			/* A handle of neither kind (MPI_DATATYPE_NULL)
			 * keeps what an earlier one said. */
			if (mpi_flavor(f->args[i]) != MPI_UNKNOWN)
				flavor = mpi_flavor(f->args[i]);
			n = mpi_type_size(f->args[i]);
			if (n >= 0) {
				f->args[i] = (__u64)n;
				flags |= DC_EVF_DTSIZE;
			}
			break;
		case DC_ARG_MPISTATUS:
			f->args[i] = (__u64)(ret == 0 ?
				mpi_status_bytes(f->args[i], flavor) : -1);
			break;
		case DC_ARG_HANDLE_OUT:
			if (f->args[i] == 0 ||
			    bpf_probe_read_user(&v, sizeof(v), (const void *)f->args[i]))
				v = 0;
			f->args[i] = v;
			break;
		}
	}
	return flags;
}


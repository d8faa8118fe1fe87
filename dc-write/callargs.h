/*
 * callargs.h - what a call's argument slots mean beyond their kind:
 * slots that mean nothing for this call (open's mode without O_CREAT,
 * fcntl's argument for commands without one) and the bytes a call asked
 * for and moved (lib/bytes.h), printed as "size" and "bytes"
 * (dc-trace(5)).
 */
#ifndef DC_WRITE_CALLARGS_H
#define DC_WRITE_CALLARGS_H

#include <stdint.h>
#include <linux/types.h>

/* Per probe, from its plan. */
struct callargs {
	int8_t flags_slot, mode_slot, cmd_slot; /* -1 if none */
	uint8_t bytes;           /* print derived "size"/"bytes" */
};

void callargs_init(struct callargs *ca, const uint8_t *kinds, int nargs,
		   uint8_t ret_kind);
/* Does slot i mean something for this call? */
int callargs_meaningful(const struct callargs *ca, const __u64 *args,
			int nargs, int i);
/* Append ,"size":N and ,"bytes":M where known; p has room for 48 bytes. */
char *callargs_put_bytes(char *p, const uint8_t *kinds, int nargs,
			 uint8_t ret_kind, const __u64 *args, int64_t ret,
			 uint8_t flags);

#endif

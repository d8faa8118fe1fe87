/*
 * callargs.c - see callargs.h.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "event.h"
#include "bytes.h"
#include "callargs.h"

#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif

void callargs_init(struct callargs *ca, const uint8_t *kinds, int nargs,
		   uint8_t ret_kind)
{
	int i, size_slot = 0;

	ca->flags_slot = ca->mode_slot = ca->cmd_slot = -1;
	ca->bytes = ret_kind == DC_RET_ITEMS || ret_kind == DC_RET_ALL ||
		    ret_kind == DC_RET_CHAR;
	for (i = 0; i < nargs && i < DC_MAX_ARGS; i++) {
		switch (kinds[i]) {
		case DC_ARG_FLAGS:
			if (ca->flags_slot < 0)
				ca->flags_slot = (int8_t)i;
			break;
		case DC_ARG_MODE:
			if (ca->mode_slot < 0)
				ca->mode_slot = (int8_t)i;
			break;
		case DC_ARG_CMD:
			if (ca->cmd_slot < 0)
				ca->cmd_slot = (int8_t)i;
			break;
		case DC_ARG_SIZE:
			size_slot = 1;
			break;
		case DC_ARG_ISIZE: case DC_ARG_COUNT: case DC_ARG_IOV:
		case DC_ARG_STRLEN: case DC_ARG_STROUT: case DC_ARG_DATATYPE:
		case DC_ARG_MPISTATUS: case DC_ARG_CHAR:
			ca->bytes = 1;
			break;
		}
	}
	/* A byte count returned with no size argument (fprintf, recvmsg). */
	if (ret_kind == DC_RET_SIZE && !size_slot)
		ca->bytes = 1;
}

/* fcntl(2) commands whose third argument means nothing. */
static int fcntl_takes_arg(int cmd)
{
	switch (cmd) {
	case F_GETFD: case F_GETFL: case F_GETOWN:
#ifdef F_GETSIG
	case F_GETSIG:
#endif
#ifdef F_GETLEASE
	case F_GETLEASE:
#endif
#ifdef F_GETPIPE_SZ
	case F_GETPIPE_SZ:
#endif
#ifdef F_GET_SEALS
	case F_GET_SEALS:
#endif
		return 0;
	}
	return 1;
}

int callargs_meaningful(const struct callargs *ca, const __u64 *args,
			int nargs, int i)
{
	/* open's mode: only when it creates a file. */
	if (i == ca->mode_slot && ca->flags_slot >= 0 && ca->flags_slot < nargs) {
		int flags = (int)args[ca->flags_slot];

		return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
	}
	if (ca->cmd_slot >= 0 && i == ca->cmd_slot + 1)
		return fcntl_takes_arg((int)args[ca->cmd_slot]);
	return 1;
}

char *callargs_put_bytes(char *p, const uint8_t *kinds, int nargs,
			 uint8_t ret_kind, const __u64 *args, int64_t ret,
			 uint8_t flags)
{
	struct dc_bytes b;

	dc_bytes_of(kinds, (unsigned)nargs, ret_kind, args, ret, flags, &b);
	dc_bytes_kernel(kinds, (unsigned)nargs, ret_kind, args, &b);
	if (b.req >= 0 && !b.size_slot)
		p += sprintf(p, ",\"size\":%lld", (long long)b.req);
	if (b.done >= 0 && !(b.size_slot && ret_kind == DC_RET_SIZE))
		p += sprintf(p, ",\"bytes\":%lld", (long long)b.done);
	return p;
}

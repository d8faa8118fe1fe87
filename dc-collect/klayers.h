/*
 * klayers.h - the kernel tracepoints dc-collect decodes, and how.
 */
#ifndef DC_KLAYERS_H
#define DC_KLAYERS_H

#include <stdbool.h>
#include <stdint.h>

struct collect_bpf;
struct bpf_program;

struct dc_klayer {
	const char *name;         /* "category:event" as in tracefs */
	int tp;                   /* enum dc_tracepoint */
	uint8_t nargs;
	uint8_t arg_kinds[6];     /* what the program records */
	uint8_t ret_kind;
	bool block;               /* one of the block group, which works as one */
};

/* The decoded tracepoint called name, or NULL: such tracepoints get the
 * generic program, which records the instant only. */
const struct dc_klayer *dc_klayer_find(const char *name);
const struct dc_klayer *dc_klayer_by_tp(int tp);
/* The program decoding tp: the tp_btf one where dc_klayers_aim() chose
 * those, else the classic tracepoint's. */
struct bpf_program *dc_klayer_prog(struct collect_bpf *skel, int tp);
/* Choose, before loading, the tp_btf programs (btf) or the classic
 * ones for the tracepoints that have both; the others are not loaded. */
void dc_klayers_aim(struct collect_bpf *skel, bool btf);
/* Whether this kernel has the tracepoint ("category:event"). */
bool dc_tracepoint_exists(const char *name);
/* Mount tracefs if it is not, so tracepoints can be found; 0 or -1. */
int dc_tracefs_ready(void);

#endif /* DC_KLAYERS_H */

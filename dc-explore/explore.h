/*
 * explore.h - dc-explore's listings (dc-explore.c: ELF files; kernel.c:
 * tracepoints, syscalls, kernel functions).
 */
#ifndef DC_EXPLORE_H
#define DC_EXPLORE_H

#include <jansson.h>
#include <regex.h>

enum explore_kind {
	EXPLORE_FUNC,
	EXPLORE_USDT,
	EXPLORE_TRACEPOINT,
	EXPLORE_SYSCALL,
	EXPLORE_KFUNC,
};

struct explore_opts {
	enum explore_kind kind;
	regex_t *match;   /* NULL: everything */
	int json;
	int offsets;
	int fields;
};

/* Each prints text to stdout, or appends objects to json when it is not
 * NULL; returns an exit status. */
int explore_tracepoints(const struct explore_opts *o, json_t *json);
int explore_syscalls(const struct explore_opts *o, json_t *json);
int explore_kfuncs(const struct explore_opts *o, json_t *json);

#endif /* DC_EXPLORE_H */

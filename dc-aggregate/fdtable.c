/*
 * fdtable.c - file descriptor tables and /proc snapshots in time order
 * (fdtable.h).
 */
#include "config.h"

#include <stdlib.h>

#include "fdtable.h"
#include "messages.h"

uint32_t fdt_file(const struct u64map *fds, int64_t fd)
{
	uint64_t *slot = u64map_get(fds, (uint64_t)fd);

	return slot ? (uint32_t)*slot : 0;
}

void fdt_set(struct u64map *fds, int64_t fd, uint32_t file)
{
	u64map_put(fds, (uint64_t)fd, FD_STREAM | file);
}

void fdt_close(struct u64map *fds, int64_t fd)
{
	u64map_put(fds, (uint64_t)fd, FD_STREAM | FD_CLOSED);
}

void fdt_close_range(struct u64map *fds, uint64_t lo, uint64_t hi)
{
	size_t i;

	/* Only the fds in the table: the values change, the keys stay, so
	 * the table can be walked while it is written. */
	for (i = 0; i < fds->cap; i++)
		if (fds->used[i] && fds->keys[i] >= lo && fds->keys[i] <= hi)
			fds->vals[i] = FD_STREAM | FD_CLOSED;
}

void fdt_exec(struct u64map *fds)
{
	size_t i;

	for (i = 0; i < fds->cap; i++)
		if (fds->used[i] && !(fds->vals[i] & FD_CLOSED))
			fds->vals[i] |= FD_EXEC;
}

void fdt_apply(struct u64map *fds, const struct u64map *snap,
	       const struct u64map *changed)
{
	uint64_t *gone;
	size_t i, n = 0;

	for (i = 0; i < snap->cap; i++) {
		uint64_t *slot;

		if (!snap->used[i] ||
		    (changed && u64map_get(changed, snap->keys[i])))
			continue;
		slot = u64map_get(fds, snap->keys[i]);
		if (slot == NULL || !(*slot & FD_STREAM)) {
			u64map_put(fds, snap->keys[i], (uint32_t)snap->vals[i]);
			continue;
		}
		/* Opened by an event that could not name it (a socket, a
		 * pipe): /proc can. */
		if (!(*slot & FD_CLOSED) && (uint32_t)*slot == 0)
			*slot |= (uint32_t)snap->vals[i];
		/* Seen open after the exec: it survived it. */
		*slot &= ~FD_EXEC;
	}
	gone = xmalloc((fds->count + 1) * sizeof(*gone));
	for (i = 0; i < fds->cap; i++)
		if (fds->used[i] && u64map_get(snap, fds->keys[i]) == NULL &&
		    (!(fds->vals[i] & FD_STREAM) || (fds->vals[i] & FD_EXEC)) &&
		    !(changed && u64map_get(changed, fds->keys[i])))
			gone[n++] = fds->keys[i];
	for (i = 0; i < n; i++)
		u64map_del(fds, gone[i]);
	free(gone);
}

void snap_insert(struct snapshot **list, struct snapshot *s)
{
	while (*list != NULL && (*list)->taken <= s->taken)
		list = &(*list)->next;
	s->next = *list;
	*list = s;
}

struct snapshot *snap_due(struct snapshot **list, uint64_t upto)
{
	struct snapshot *s = *list;

	if (s == NULL || s->taken >= upto)
		return NULL;
	*list = s->next;
	s->next = NULL;
	return s;
}

void snap_free(struct snapshot *s)
{
	u64map_free(&s->fds);
	free(s->cwd);
	free(s);
}

struct snapshot *snap_fds_from(struct snapshot *list, uint32_t pid,
			       uint64_t t)
{
	for (; list != NULL; list = list->next)
		if (list->pid == pid && list->has_fds && list->taken >= t)
			return list;
	return NULL;
}

const char *snap_cwd(const struct snapshot *list, uint32_t pid)
{
	for (; list != NULL; list = list->next)
		if (list->pid == pid && list->cwd != NULL)
			return list->cwd;
	return NULL;
}

const char *snap_cwd_before(const struct snapshot *list, uint32_t pid,
			    uint64_t t)
{
	const char *cwd = NULL;

	for (; list != NULL && list->taken <= t; list = list->next)
		if (list->pid == pid && list->cwd != NULL)
			cwd = list->cwd;
	return cwd;
}

void snap_drop_pid(struct snapshot **list, uint32_t pid)
{
	while (*list != NULL) {
		struct snapshot *s = *list;

		if (s->pid == pid) {
			*list = s->next;
			snap_free(s);
		} else {
			list = &s->next;
		}
	}
}

void snap_free_all(struct snapshot **list)
{
	while (*list != NULL) {
		struct snapshot *s = *list;

		*list = s->next;
		snap_free(s);
	}
}

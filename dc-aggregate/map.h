/*
 * map.h - a small open-addressing hash map from u64 keys to u64 values.
 *
 * dc-aggregate keeps all its per-process and per-thread state in these
 * (file descriptors, handles, threads, id translations).  Linear probing
 * with backward-shift deletion: no tombstones, so a table whose entries
 * come and go (fds opened and closed) never degrades.
 */
#ifndef DC_AGG_MAP_H
#define DC_AGG_MAP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"

struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	unsigned char *used;
	size_t cap;   /* a power of two, or 0 */
	size_t count;
};

static inline size_t u64map_slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static inline uint64_t *u64map_get(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (m->count == 0)
		return NULL;
	for (i = u64map_slot(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return &m->vals[i];
	return NULL;
}

static inline void u64map_put(struct u64map *m, uint64_t key, uint64_t val);

static inline void u64map_grow(struct u64map *m)
{
	struct u64map old = *m;
	size_t i;

	m->cap = old.cap ? old.cap * 2 : 16;
	m->keys = xmalloc(m->cap * sizeof(uint64_t));
	m->vals = xmalloc(m->cap * sizeof(uint64_t));
	m->used = xcalloc(m->cap, 1);
	m->count = 0;
	for (i = 0; i < old.cap; i++)
		if (old.used[i])
			u64map_put(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
	free(old.used);
}

static inline void u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	size_t i;

	if ((m->count + 1) * 4 > m->cap * 3)
		u64map_grow(m);
	for (i = u64map_slot(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return;
		}
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->count++;
}

static inline void u64map_del(struct u64map *m, uint64_t key)
{
	size_t i, j, mask = m->cap - 1;

	if (m->count == 0)
		return;
	for (i = u64map_slot(key, m->cap); m->used[i]; i = (i + 1) & mask)
		if (m->keys[i] == key)
			break;
	if (!m->used[i])
		return;
	/* Shift later members of the cluster back over the hole. */
	for (j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
		size_t home = u64map_slot(m->keys[j], m->cap);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->used[i] = 0;
	m->count--;
}

static inline void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

static inline void u64map_copy(struct u64map *dst, const struct u64map *src)
{
	size_t i;

	for (i = 0; i < src->cap; i++)
		if (src->used[i])
			u64map_put(dst, src->keys[i], src->vals[i]);
}

/* Iterate: for (i = 0; i < m.cap; i++) if (m.used[i]) ... */

#endif /* DC_AGG_MAP_H */

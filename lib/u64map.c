/*
 * u64map.c - open addressing with linear probing; see u64map.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "messages.h"
#include "u64map.h"

#define FIRST_CAP 16

static size_t home_of(uint64_t key, size_t cap)
{
	return (size_t)dc_mix64(key) & (cap - 1);
}

void u64map_init(struct u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	u64map_init(m);
}

void u64map_free_ptrs(struct u64map *m, void (*fn)(void *))
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->used[i])
			fn((void *)(uintptr_t)m->vals[i]);
	u64map_free(m);
}

void u64map_clear(struct u64map *m)
{
	if (m->cap > 0)
		memset(m->used, 0, m->cap);
	m->count = 0;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t find(const struct u64map *m, uint64_t key)
{
	size_t i, mask = m->cap - 1;

	for (i = home_of(key, m->cap); m->used[i]; i = (i + 1) & mask)
		if (m->keys[i] == key)
			break;
	return i;
}

uint64_t *u64map_get(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (m->count == 0)
		return NULL;
	i = find(m, key);
	return m->used[i] ? &m->vals[i] : NULL;
}

static void grow(struct u64map *m)
{
	struct u64map old = *m;
	size_t i;

	if (old.cap > SIZE_MAX / 2 / sizeof(uint64_t))
		die("hash table too large");
	m->cap = old.cap ? old.cap * 2 : FIRST_CAP;
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

uint64_t *u64map_insert(struct u64map *m, uint64_t key, int *added)
{
	size_t i;

	/* At most 3/4 full, so every probe ends at an empty slot. */
	if ((m->count + 1) * 4 > m->cap * 3)
		grow(m);
	i = find(m, key);
	if (added != NULL)
		*added = !m->used[i];
	if (!m->used[i]) {
		m->used[i] = 1;
		m->keys[i] = key;
		m->vals[i] = 0;
		m->count++;
	}
	return &m->vals[i];
}

void u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	*u64map_insert(m, key, NULL) = val;
}

int u64map_del(struct u64map *m, uint64_t key)
{
	size_t i, j, mask = m->cap - 1;

	if (m->count == 0)
		return 0;
	i = find(m, key);
	if (!m->used[i])
		return 0;
	/* Shift later members of the cluster back over the hole, each
	 * that may move there without passing its home slot. */
	for (j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
		size_t home = home_of(m->keys[j], m->cap);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->used[i] = 0;
	m->count--;
	return 1;
}

void u64map_copy(struct u64map *dst, const struct u64map *src)
{
	size_t i;

	for (i = 0; i < src->cap; i++)
		if (src->used[i])
			u64map_put(dst, src->keys[i], src->vals[i]);
}

uint64_t *u64map_find_hashed(const struct u64map *m, uint64_t *h,
			     int (*same)(uint64_t value, const void *key),
			     const void *key)
{
	uint64_t *slot;

	while ((slot = u64map_get(m, *h)) != NULL) {
		if (same(*slot, key))
			return slot;
		++*h;
	}
	return NULL;
}

/*
 * hashset.c - open addressing with linear probing; see hashset.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hashset.h"
#include "messages.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	/* Fibonacci hashing spreads sequential keys (pids, ids). */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

void hashmap_init(struct hashmap *m)
{
	memset(m, 0, sizeof(*m));
}

void hashmap_free(struct hashmap *m)
{
	free(m->keys);
	free(m->values);
	hashmap_init(m);
}

void hashmap_clear(struct hashmap *m)
{
	if (m->cap > 0) {
		memset(m->keys, 0, m->cap * sizeof(*m->keys));
		memset(m->values, 0, m->cap * sizeof(*m->values));
	}
	m->used = 0;
}

uint64_t *hashmap_find(const struct hashmap *m, uint64_t key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	for (i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return &m->values[i];
		if (m->keys[i] == 0)
			return NULL;
	}
}

static void grow(struct hashmap *m)
{
	struct hashmap old = *m;
	size_t i;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->values = xcalloc(m->cap, sizeof(*m->values));
	m->used = 0;
	for (i = 0; i < old.cap; i++) {
		if (old.keys[i] != 0) {
			int added;

			*hashmap_insert(m, old.keys[i], &added) = old.values[i];
		}
	}
	free(old.keys);
	free(old.values);
}

uint64_t *hashmap_insert(struct hashmap *m, uint64_t key, int *added)
{
	size_t i;

	if ((m->used + 1) * 4 > m->cap * 3)
		grow(m);
	for (i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			*added = 0;
			return &m->values[i];
		}
		if (m->keys[i] == 0) {
			m->keys[i] = key;
			m->values[i] = 0;
			m->used++;
			*added = 1;
			return &m->values[i];
		}
	}
}

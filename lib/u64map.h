/*
 * u64map.h - the project's hash table: open addressing from 64-bit keys
 * to 64-bit values (integers, or pointers stored as integers).
 *
 * Every key is storable, 0 and UINT64_MAX included: whether a slot is
 * taken is kept apart from the key (a pid or tid of 4294967295 must not
 * look like an empty slot, issue 9 item 13).  Linear probing with
 * backward-shift deletion: no tombstones, so a table whose entries come
 * and go (fds opened and closed) never degrades.  Memory grows with the
 * number of keys held, never with the number of operations.
 *
 * A zeroed struct is an empty table.  To visit every entry:
 *     for (i = 0; i < m.cap; i++) if (m.used[i]) ... m.keys[i], m.vals[i]
 * (in no useful order; do not insert or delete while visiting).
 */
#ifndef DC_U64MAP_H
#define DC_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	unsigned char *used;
	size_t cap;   /* a power of two, or 0 */
	size_t count;
};

void u64map_init(struct u64map *m);
void u64map_free(struct u64map *m);
/* Free a table whose values are pointers, after fn on each of them. */
void u64map_free_ptrs(struct u64map *m, void (*fn)(void *));
/* Empty the table, keeping its memory. */
void u64map_clear(struct u64map *m);

/* A pointer to key's value, or NULL when absent; valid until the next
 * insert or delete. */
uint64_t *u64map_get(const struct u64map *m, uint64_t key);
/* A pointer to key's value, inserting the key with value 0 when absent;
 * *added (if not NULL) says which. */
uint64_t *u64map_insert(struct u64map *m, uint64_t key, int *added);
void u64map_put(struct u64map *m, uint64_t key, uint64_t val);
/* 1 if key was there (and is now gone), 0 if it was not. */
int u64map_del(struct u64map *m, uint64_t key);
/* Put every entry of src into dst. */
void u64map_copy(struct u64map *dst, const struct u64map *src);

/*
 * Tables keyed by the hash of a longer key (a string, a record): entries
 * whose hashes are equal go on at hash + 1, + 2...  Returns the value of
 * the entry that same(value, key) accepts, or NULL with *h set to where
 * a new entry for key goes (u64map_put(m, *h, value)).  Entries of such
 * a table are never deleted one by one: a deletion would hide the later
 * members of a chain.
 */
uint64_t *u64map_find_hashed(const struct u64map *m, uint64_t *h,
			     int (*same)(uint64_t value, const void *key),
			     const void *key);

#endif /* DC_U64MAP_H */

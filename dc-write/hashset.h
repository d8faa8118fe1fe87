/*
 * hashset.h - a small open-addressing map from 64-bit keys to 64-bit
 * values, for the tables dc-write keeps per stream and per output (file
 * hashes already described, threads seen, processes).  Key 0 is reserved;
 * callers map it away.  Memory grows with the number of distinct keys,
 * never with the number of events.
 */
#ifndef DC_WRITE_HASHSET_H
#define DC_WRITE_HASHSET_H

#include <stdint.h>
#include <stddef.h>

struct hashmap {
	uint64_t *keys;
	uint64_t *values;
	size_t cap;   /* a power of two, or 0 */
	size_t used;
};

void hashmap_init(struct hashmap *m);
void hashmap_free(struct hashmap *m);
void hashmap_clear(struct hashmap *m);
/* Pointer to the value of key, or NULL when absent. */
uint64_t *hashmap_find(const struct hashmap *m, uint64_t key);
/* Pointer to the value of key, inserting it (value 0) when absent;
 * *added says which.  The pointer is valid until the next insert. */
uint64_t *hashmap_insert(struct hashmap *m, uint64_t key, int *added);

#endif

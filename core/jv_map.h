/* jv_map: an open-addressing hash map from 64-bit keys to 32-bit values
 * (correlation ids, flow ids and external ids to event indices). */
#ifndef JV_MAP_H
#define JV_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "jv_status.h"

typedef struct {
    int64_t *keys;
    uint32_t *vals;
    uint8_t *used;
    size_t count, nslots; /* nslots: power of two or 0 */
} jv_map;

/* Initialises an empty map (no allocation). */
void jv_map_init(jv_map *m);

/* Frees the map's memory; it is empty and reusable afterwards. */
void jv_map_free(jv_map *m);

/* Sizes the table for n entries at once (no rehash while they are added; the
 * transient old+new tables of a rehash are the memory peak of big maps). */
jv_status jv_map_reserve(jv_map *m, size_t n);

/* Sets key -> val, replacing an existing value. JV_ERR_NOMEM on failure (map unchanged). */
jv_status jv_map_put(jv_map *m, int64_t key, uint32_t val);

/* Sets key -> val only if key is absent (the first writer wins). */
jv_status jv_map_put_first(jv_map *m, int64_t key, uint32_t val);

/* Returns 1 and sets *val when key is present, else 0. */
int jv_map_get(const jv_map *m, int64_t key, uint32_t *val);

#endif

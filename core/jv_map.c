/* jv_map: linear probing over power-of-two tables, grown at half load. */
#include "jv_map.h"

#include <stdlib.h>
#include <string.h>

void jv_map_init(jv_map *m) {
    memset(m, 0, sizeof *m);
}

void jv_map_free(jv_map *m) {
    free(m->keys);
    free(m->vals);
    free(m->used);
    jv_map_init(m);
}

static size_t slot_of(int64_t key, size_t nslots) {
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    h ^= h >> 31;
    return (size_t)h & (nslots - 1);
}

static jv_status grow_to(jv_map *m, size_t n) {
    jv_map nm = {calloc(n, sizeof(int64_t)), calloc(n, sizeof(uint32_t)), calloc(n, 1), 0, n};
    if (!nm.keys || !nm.vals || !nm.used) {
        jv_map_free(&nm);
        return JV_ERR_NOMEM;
    }
    for (size_t i = 0; i < m->nslots; i++) {
        if (!m->used[i]) continue;
        size_t j = slot_of(m->keys[i], n);
        while (nm.used[j])
            j = (j + 1) & (n - 1);
        nm.used[j] = 1;
        nm.keys[j] = m->keys[i];
        nm.vals[j] = m->vals[i];
    }
    nm.count = m->count;
    jv_map_free(m);
    *m = nm;
    return JV_OK;
}

static jv_status grow(jv_map *m) {
    return grow_to(m, m->nslots ? m->nslots * 2 : 256);
}

jv_status jv_map_reserve(jv_map *m, size_t n) {
    size_t want = 256;
    while (want < 2 * (n + 1)) {
        if (want > SIZE_MAX / 4) return JV_ERR_NOMEM;
        want *= 2;
    }
    return want > m->nslots ? grow_to(m, want) : JV_OK;
}

static jv_status put(jv_map *m, int64_t key, uint32_t val, int replace) {
    if ((m->count + 1) * 2 > m->nslots) JV_CHECK(grow(m));
    size_t i = slot_of(key, m->nslots);
    while (m->used[i]) {
        if (m->keys[i] == key) {
            if (replace) m->vals[i] = val;
            return JV_OK;
        }
        i = (i + 1) & (m->nslots - 1);
    }
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    m->count++;
    return JV_OK;
}

jv_status jv_map_put(jv_map *m, int64_t key, uint32_t val) {
    return put(m, key, val, 1);
}

jv_status jv_map_put_first(jv_map *m, int64_t key, uint32_t val) {
    return put(m, key, val, 0);
}

int jv_map_get(const jv_map *m, int64_t key, uint32_t *val) {
    if (!m->nslots) return 0;
    size_t i = slot_of(key, m->nslots);
    while (m->used[i]) {
        if (m->keys[i] == key) {
            *val = m->vals[i];
            return 1;
        }
        i = (i + 1) & (m->nslots - 1);
    }
    return 0;
}

/* jv_intern: open-addressing string table over an arena. */
#include "jv_intern.h"

#include <stdlib.h>
#include <string.h>

uint32_t jv_hash_bytes(const void *p, size_t n) {
    /* FNV-1a over 8-byte words (fast on long kernel names), then a finaliser */
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 1099511628211ull;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    while (n--)
        h = (h ^ *s++) * 1099511628211ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (uint32_t)h;
}

static jv_status rehash(jv_intern *t, size_t nslots) {
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots) return JV_ERR_NOMEM;
    for (size_t id = 0; id < t->count; id++) {
        size_t i = t->hash[id] & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = (uint32_t)id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return JV_OK;
}

jv_status jv_intern_init(jv_intern *t) {
    memset(t, 0, sizeof *t);
    jv_arena_init(&t->arena);
    JV_CHECK(rehash(t, 1024));
    uint32_t id;
    return jv_intern_add(t, "", 0, &id);
}

void jv_intern_free(jv_intern *t) {
    jv_arena_free(&t->arena);
    free(t->str);
    free(t->len);
    free(t->hash);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static int lookup(const jv_intern *t, const char *s, size_t n, uint32_t h, size_t *slot) {
    size_t i = h & (t->nslots - 1);
    for (;;) {
        uint32_t v = t->slots[i];
        if (!v) {
            *slot = i;
            return 0;
        }
        uint32_t id = v - 1;
        if (t->hash[id] == h && t->len[id] == n && memcmp(t->str[id], s, n) == 0) {
            *slot = i;
            return 1;
        }
        i = (i + 1) & (t->nslots - 1);
    }
}

int jv_intern_find(const jv_intern *t, const char *s, size_t n, uint32_t *id) {
    size_t slot;
    if (!t->slots || !lookup(t, s, n, jv_hash_bytes(s, n), &slot)) return 0;
    *id = t->slots[slot] - 1;
    return 1;
}

jv_status jv_intern_add(jv_intern *t, const char *s, size_t n, uint32_t *id) {
    if (n > UINT32_MAX) return JV_ERR_LIMIT;
    uint32_t h = jv_hash_bytes(s, n);
    size_t slot;
    if (lookup(t, s, n, h, &slot)) {
        *id = t->slots[slot] - 1;
        return JV_OK;
    }
    if (t->count >= UINT32_MAX - 1) return JV_ERR_LIMIT;
    if (t->count + 1 > t->cap) {
        size_t c1 = t->cap, c2 = t->cap, c3 = t->cap;
        JV_CHECK(JV_RESERVE(t->str, c1, t->count + 1));
        JV_CHECK(JV_RESERVE(t->len, c2, t->count + 1));
        JV_CHECK(JV_RESERVE(t->hash, c3, t->count + 1));
        t->cap = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
    }
    char *copy = jv_arena_strndup(&t->arena, s, n);
    if (!copy) return JV_ERR_NOMEM;
    uint32_t nid = (uint32_t)t->count++;
    t->str[nid] = copy;
    t->len[nid] = (uint32_t)n;
    t->hash[nid] = h;
    t->slots[slot] = nid + 1;
    if (t->count * 2 > t->nslots) JV_CHECK(rehash(t, t->nslots * 2));
    *id = nid;
    return JV_OK;
}

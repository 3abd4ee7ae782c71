/* jv_arena: chunked bump allocator and checked array growth. */
#include "jv_arena.h"

#include <stdlib.h>
#include <string.h>

struct jv_arena_chunk {
    jv_arena_chunk *prev;
    size_t size;
    _Alignas(16) unsigned char data[];
};

enum { JV_ARENA_CHUNK = 1 << 20 };

void jv_arena_init(jv_arena *a) {
    a->head = NULL;
    a->used = 0;
    a->total = 0;
}

void *jv_arena_alloc(jv_arena *a, size_t n) {
    size_t need = (n + 7u) & ~(size_t)7u;
    if (need < n) return NULL;
    if (!a->head || a->head->size - a->used < need) {
        size_t size = need > JV_ARENA_CHUNK / 4 ? need : JV_ARENA_CHUNK;
        if (size > SIZE_MAX - sizeof(jv_arena_chunk)) return NULL;
        jv_arena_chunk *c = malloc(sizeof(jv_arena_chunk) + size);
        if (!c) return NULL;
        c->size = size;
        if (size == need && a->head) {
            /* a big block: keep the current chunk as head so its free tail is still used */
            c->prev = a->head->prev;
            a->head->prev = c;
            a->total += size;
            return c->data;
        }
        c->prev = a->head;
        a->head = c;
        a->used = 0;
        a->total += size;
    }
    void *p = a->head->data + a->used;
    a->used += need;
    return p;
}

char *jv_arena_strndup(jv_arena *a, const char *s, size_t n) {
    if (n == SIZE_MAX) return NULL;
    char *d = jv_arena_alloc(a, n + 1);
    if (!d) return NULL;
    if (n) memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

void jv_arena_free(jv_arena *a) {
    jv_arena_chunk *c = a->head;
    while (c) {
        jv_arena_chunk *p = c->prev;
        free(c);
        c = p;
    }
    jv_arena_init(a);
}

int jv_mul_size(size_t a, size_t b, size_t *out) {
    if (a && b > SIZE_MAX / a) return 0;
    *out = a * b;
    return 1;
}

jv_status jv_reserve(void **items, size_t *cap, size_t need, size_t elsize) {
    if (need <= *cap) return JV_OK;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) return JV_ERR_NOMEM;
        ncap *= 2;
    }
    size_t bytes;
    if (!jv_mul_size(ncap, elsize, &bytes)) return JV_ERR_NOMEM;
    void *p = realloc(*items, bytes);
    if (!p) return JV_ERR_NOMEM;
    *items = p;
    *cap = ncap;
    return JV_OK;
}

/* jv_arena: bump allocation in large chunks, freed all at once, and the
 * checked array growth used by every module (no unchecked size arithmetic). */
#ifndef JV_ARENA_H
#define JV_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "jv_status.h"

typedef struct jv_arena_chunk jv_arena_chunk;

typedef struct {
    jv_arena_chunk *head; /* current chunk (linked to older ones) */
    size_t used;          /* bytes used in head */
    size_t total;         /* bytes reserved in all chunks (for memory reports) */
} jv_arena;

/* Initialises an empty arena; no memory is reserved until the first allocation. */
void jv_arena_init(jv_arena *a);

/* Returns n bytes aligned to 8 that live until jv_arena_free, or NULL when out of memory. */
void *jv_arena_alloc(jv_arena *a, size_t n);

/* Copies n bytes plus a terminating NUL into the arena; NULL when out of memory. */
char *jv_arena_strndup(jv_arena *a, const char *s, size_t n);

/* Releases every chunk; the arena is empty and reusable afterwards. */
void jv_arena_free(jv_arena *a);

/* Ensures *items has room for need elements of size elsize, growing geometrically.
 * On failure (overflow or no memory) *items and *cap are unchanged and JV_ERR_NOMEM returns. */
jv_status jv_reserve(void **items, size_t *cap, size_t need, size_t elsize);

/* Type-safe wrapper: JV_RESERVE(arr, cap, need) for an array pointer arr. */
#define JV_RESERVE(arr, cap, need) jv_reserve((void **)&(arr), &(cap), (need), sizeof *(arr))

/* Multiplies a*b into *out; returns 0 on overflow (nothing written), 1 otherwise. */
int jv_mul_size(size_t a, size_t b, size_t *out);

#endif

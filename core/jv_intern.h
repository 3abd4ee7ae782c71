/* jv_intern: string interning. Each distinct byte string gets a small id;
 * the text lives in an arena for the table's lifetime. Id 0 is the empty string. */
#ifndef JV_INTERN_H
#define JV_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "jv_arena.h"
#include "jv_status.h"

typedef struct {
    jv_arena arena;
    const char **str;  /* id -> NUL-terminated text */
    uint32_t *len;     /* id -> length */
    uint32_t *hash;    /* id -> hash */
    size_t count, cap; /* ids in use / capacity of the id arrays */
    uint32_t *slots;   /* open addressing: id + 1, 0 = empty */
    size_t nslots;     /* power of two */
} jv_intern;

/* Initialises the table with the empty string as id 0. JV_ERR_NOMEM on failure. */
jv_status jv_intern_init(jv_intern *t);

/* Frees everything; ids and returned pointers become invalid. */
void jv_intern_free(jv_intern *t);

/* Puts the id of s[0..n) in *id, adding it when new. JV_ERR_NOMEM or JV_ERR_LIMIT
 * (more than 2^32-2 strings or a string over 4 GiB) on failure. */
jv_status jv_intern_add(jv_intern *t, const char *s, size_t n, uint32_t *id);

/* Looks s[0..n) up without adding it; returns 1 and sets *id when present. */
int jv_intern_find(const jv_intern *t, const char *s, size_t n, uint32_t *id);

/* Returns the NUL-terminated text of id (id must be valid). */
static inline const char *jv_intern_str(const jv_intern *t, uint32_t id) {
    return t->str[id];
}

/* Returns the length of id's text. */
static inline size_t jv_intern_len(const jv_intern *t, uint32_t id) {
    return t->len[id];
}

/* 32-bit FNV-1a style hash of n bytes, used by the table and by callers that key on text. */
uint32_t jv_hash_bytes(const void *p, size_t n);

#endif

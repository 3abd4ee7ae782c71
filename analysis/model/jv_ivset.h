/* jv_ivset: sets of time intervals that keep their union length, merged
 * smaller into larger. A set holds disjoint intervals (an inserted interval
 * absorbs every one it overlaps or touches) in a treap keyed by start, so an
 * insertion costs O(log n) expected plus the intervals it absorbs; merging
 * the smaller of two sets into the larger costs O(small log n), and merging
 * up a tree of n intervals this way costs O(n log^2 n) whatever its depth.
 * All sets of one pool share its nodes; a pool is freed at once. */
#ifndef JV_IVSET_H
#define JV_IVSET_H

#include <stddef.h>
#include <stdint.h>

#include "jv_status.h"

typedef struct {
    int64_t s, e;         /* [s, e) */
    uint32_t left, right; /* child nodes; 0: none */
} jv_ivnode;              /* 24 bytes: node i's treap priority is a hash of i (jv_ivset.c) */

typedef struct {
    jv_ivnode *node; /* node[0] unused: index 0 is "none" */
    uint32_t cap, used, free_list;
} jv_ivpool;

typedef struct {
    uint32_t root;  /* 0: empty */
    uint32_t count; /* disjoint intervals held */
    int64_t len;    /* their total length: the union length of everything inserted */
} jv_ivset;

/* An empty pool (no allocation yet). */
void jv_ivpool_init(jv_ivpool *p);

/* Frees every node of every set of the pool. */
void jv_ivpool_free(jv_ivpool *p);

/* Adds [s, e) to set (e <= s adds nothing). JV_ERR_NOMEM when the pool
 * cannot grow (the set is then as before). */
jv_status jv_ivset_add(jv_ivpool *p, jv_ivset *set, int64_t s, int64_t e);

/* Empties *set: its nodes go back to the pool, for the sets that grow next (the pool's memory stays). */
void jv_ivset_clear(jv_ivpool *p, jv_ivset *set);

/* Moves every interval of *from into *into (the smaller set's intervals are
 * inserted into the larger one, which becomes *into); *from is left empty.
 * JV_ERR_NOMEM as for jv_ivset_add (then *into holds part of *from and
 * *from is emptied: the union is not to be trusted). */
jv_status jv_ivset_merge(jv_ivpool *p, jv_ivset *into, jv_ivset *from);

#endif

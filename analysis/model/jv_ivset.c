/* jv_ivset: interval sets with their union length (see jv_ivset.h). */
#include "jv_ivset.h"

#include <stdlib.h>
#include <string.h>

#define N(p, i) ((p)->node[i])

void jv_ivpool_init(jv_ivpool *p) {
    memset(p, 0, sizeof *p);
}

/* node i's treap priority: a multiplicative hash of its index (random enough for the expected O(log n) depth;
 * a reused node keeps its priority, which changes nothing) */
static uint32_t pri(uint32_t i) {
    uint32_t h = i * 2654435761u;
    return h ^ (h >> 15);
}

void jv_ivpool_free(jv_ivpool *p) {
    free(p->node);
    jv_ivpool_init(p);
}

/* a node for [s, e) (a freed one first); 0 when the pool cannot grow */
static uint32_t node_new(jv_ivpool *p, int64_t s, int64_t e) {
    uint32_t i = p->free_list;
    if (i) {
        p->free_list = N(p, i).left;
    } else {
        if (p->used + 1 >= p->cap) {
            uint32_t cap = p->cap ? p->cap * 2 : 1024;
            if (cap <= p->cap || cap > UINT32_MAX / 2) return 0;
            jv_ivnode *n = realloc(p->node, (size_t)cap * sizeof *n);
            if (!n) return 0;
            p->node = n;
            p->cap = cap;
            if (p->used == 0) p->used = 1; /* index 0 is "none" */
        }
        i = p->used++;
    }
    N(p, i) = (jv_ivnode){s, e, 0, 0};
    return i;
}

static void node_free(jv_ivpool *p, uint32_t i) {
    N(p, i).left = p->free_list;
    p->free_list = i;
}

/* t split into *a (starts < key) and *b (starts >= key) */
static void split(jv_ivpool *p, uint32_t t, int64_t key, uint32_t *a, uint32_t *b) {
    if (!t) {
        *a = *b = 0;
        return;
    }
    if (N(p, t).s < key) {
        uint32_t r1, r2;
        split(p, N(p, t).right, key, &r1, &r2);
        N(p, t).right = r1;
        *a = t;
        *b = r2;
    } else {
        uint32_t l1, l2;
        split(p, N(p, t).left, key, &l1, &l2);
        N(p, t).left = l2;
        *a = l1;
        *b = t;
    }
}

/* a and b joined (every start of a below every start of b) */
static uint32_t join(jv_ivpool *p, uint32_t a, uint32_t b) {
    if (!a) return b;
    if (!b) return a;
    if (pri(a) > pri(b)) {
        N(p, a).right = join(p, N(p, a).right, b);
        return a;
    }
    N(p, b).left = join(p, a, N(p, b).left);
    return b;
}

/* t without its last node, which goes to *last */
static uint32_t pop_last(jv_ivpool *p, uint32_t t, uint32_t *last) {
    if (!N(p, t).right) {
        *last = t;
        return N(p, t).left;
    }
    N(p, t).right = pop_last(p, N(p, t).right, last);
    return t;
}

/* frees the nodes of t: their count, total length and latest end into *cnt, *len, *end */
static void drop(jv_ivpool *p, uint32_t t, uint32_t *cnt, int64_t *len, int64_t *end) {
    if (!t) return;
    uint32_t l = N(p, t).left, r = N(p, t).right;
    (*cnt)++;
    *len += N(p, t).e - N(p, t).s;
    if (N(p, t).e > *end) *end = N(p, t).e;
    node_free(p, t);
    drop(p, l, cnt, len, end);
    drop(p, r, cnt, len, end);
}

jv_status jv_ivset_add(jv_ivpool *p, jv_ivset *set, int64_t s, int64_t e) {
    if (e <= s) return JV_OK;
    uint32_t nn = node_new(p, s, e); /* first: it may move the nodes */
    if (!nn) return JV_ERR_NOMEM;
    uint32_t lo, hi, mid;
    split(p, set->root, s, &lo, &hi);
    /* the last interval starting before s is the only one there that can reach s (disjoint, sorted) */
    if (lo) {
        uint32_t t = lo;
        while (N(p, t).right)
            t = N(p, t).right;
        if (N(p, t).e >= s) {
            uint32_t m;
            lo = pop_last(p, lo, &m);
            s = N(p, m).s;
            if (N(p, m).e > e) e = N(p, m).e;
            set->len -= N(p, m).e - N(p, m).s;
            set->count--;
            node_free(p, m);
        }
    }
    /* the intervals starting in [s, e] are absorbed */
    split(p, hi, e + 1, &mid, &hi);
    uint32_t cnt = 0;
    int64_t len = 0, end = e;
    drop(p, mid, &cnt, &len, &end);
    set->count -= cnt;
    set->len -= len;
    e = end;
    N(p, nn).s = s;
    N(p, nn).e = e;
    set->len += e - s;
    set->count++;
    set->root = join(p, join(p, lo, nn), hi);
    return JV_OK;
}

void jv_ivset_clear(jv_ivpool *p, jv_ivset *set) {
    uint32_t cnt = 0;
    int64_t len = 0, end = 0;
    drop(p, set->root, &cnt, &len, &end);
    *set = (jv_ivset){0, 0, 0};
}

/* every interval of t into set, t's nodes freed first (an insertion reuses them) */
static jv_status pour(jv_ivpool *p, uint32_t t, jv_ivset *set) {
    if (!t) return JV_OK;
    uint32_t l = N(p, t).left, r = N(p, t).right;
    int64_t s = N(p, t).s, e = N(p, t).e;
    node_free(p, t);
    JV_CHECK(pour(p, l, set));
    JV_CHECK(jv_ivset_add(p, set, s, e));
    return pour(p, r, set);
}

jv_status jv_ivset_merge(jv_ivpool *p, jv_ivset *into, jv_ivset *from) {
    if (from->count > into->count) {
        jv_ivset t = *into;
        *into = *from;
        *from = t;
    }
    uint32_t t = from->root;
    *from = (jv_ivset){0, 0, 0};
    return pour(p, t, into);
}

/* jv_ops: grouping GPU events under their launchers and measuring unions. */
#include "jv_ops.h"

#include <stdlib.h>
#include <string.h>

#include "jv_category.h"
#include "jv_ivset.h"
#include "jv_map.h"
#include "jv_sort.h"
#include "jv_timeline.h"

static int cmp_rows_ts(const void *a, const void *b, void *ctx) {
    const jv_trace *tr = ctx;
    const jv_launcher *x = a, *y = b;
    const jv_event *ex = &tr->ev[x->ev], *ey = &tr->ev[y->ev];
    if (jv_ev_ts(tr, ex) != jv_ev_ts(tr, ey)) return jv_ev_ts(tr, ex) < jv_ev_ts(tr, ey) ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev); /* the events are in uid order */
}

/* The union length of the GPU events under each row's launcher (every linked GPU event counts for every
 * launcher above it) into rows[].subtree_ns: each GPU event's interval goes into the set of its parent; the
 * nodes, deepest first, merge their set into their parent's (the smaller into the larger: jv_ivset), and a
 * launcher's set is read when its turn comes, complete. O(n log^2 n) at any nesting depth (the pairs of
 * every event with every launcher above it were O(n depth)). Only the events at or above the GPU events'
 * parents (up) take part: 2 x 4 bytes for each of them, not for every event. row_at: by jv_upset_ix, the row
 * of a launcher, JV_NONE32 for the other nodes. */
static jv_status subtree_unions(const jv_trace *tr, const jv_tree *t, const jv_upset *up, const uint32_t *row_at,
                                jv_launcher *rows) {
    size_t n = up->n;
    if (n == 0) return JV_OK;
    jv_status s = JV_OK;
    uint32_t *depth = malloc(n * sizeof *depth), *order = malloc(n * sizeof *order), *path = NULL;
    size_t path_cap = 0;
    jv_ivset *sets = NULL;
    size_t nsets = 0, sets_cap = 0;
    jv_ivpool pool;
    jv_ivpool_init(&pool);
    if (!depth || !order) s = JV_ERR_NOMEM;
    /* depths: each chain climbed once, up to the first node whose depth is known */
    for (size_t i = 0; s == JV_OK && i < n; i++)
        depth[i] = UINT32_MAX;
    uint32_t maxd = 0;
    for (size_t i = 0; s == JV_OK && i < tr->nev; i++) {
        if (!jv_upset_has(up, (uint32_t)i)) continue;
        size_t k = 0;
        uint32_t x = (uint32_t)i;
        while (x != JV_NONE32 && depth[jv_upset_ix(up, x)] == UINT32_MAX) {
            if ((s = JV_RESERVE(path, path_cap, k + 1)) != JV_OK) break;
            path[k++] = x;
            x = t->parent[x];
        }
        uint32_t d = x == JV_NONE32 ? 0 : depth[jv_upset_ix(up, x)] + 1;
        while (s == JV_OK && k > 0) {
            depth[jv_upset_ix(up, path[--k])] = d;
            if (d > maxd) maxd = d;
            d++;
        }
    }
    /* the nodes by depth, deepest first (counting sort, event order within a depth); then depth[] holds each
       node's set (0: none yet) */
    if (s == JV_OK) {
        uint32_t *start = calloc((size_t)maxd + 2, sizeof *start);
        if (!start) s = JV_ERR_NOMEM;
        for (size_t i = 0; s == JV_OK && i < n; i++)
            start[maxd - depth[i] + 1]++;
        for (uint32_t d = 1; s == JV_OK && d <= maxd + 1; d++)
            start[d] += start[d - 1];
        for (size_t i = 0, j = 0; s == JV_OK && i < tr->nev; i++)
            if (jv_upset_has(up, (uint32_t)i)) order[start[maxd - depth[j++]]++] = (uint32_t)i;
        free(start);
    }
    uint32_t *set_of = depth;
    for (size_t i = 0; s == JV_OK && i < n; i++)
        set_of[i] = 0;
    if (s == JV_OK) s = JV_RESERVE(sets, sets_cap, 1);
    nsets = 1; /* set 0: none */
    /* each linked GPU event into its parent's set */
    for (size_t i = 0; s == JV_OK && i < tr->nev; i++) {
        const jv_event *e = &tr->ev[i];
        uint32_t pa = t->parent[i];
        if (!jv_kind_is_gpu((jv_kind)e->kind) || pa == JV_NONE32) continue;
        uint32_t *so = &set_of[jv_upset_ix(up, pa)];
        if (!*so) {
            if ((s = JV_RESERVE(sets, sets_cap, nsets + 1)) != JV_OK) break;
            sets[nsets] = (jv_ivset){0, 0, 0};
            *so = (uint32_t)nsets++;
        }
        s = jv_ivset_add(&pool, &sets[*so], jv_ev_ts(tr, e), jv_ev_end(tr, e));
    }
    /* deepest first: a node's set is complete when its turn comes */
    for (size_t k = 0; s == JV_OK && k < n; k++) {
        uint32_t x = order[k], xi = jv_upset_ix(up, x);
        if (!set_of[xi]) continue;
        if (row_at[xi] != JV_NONE32) rows[row_at[xi]].subtree_ns = sets[set_of[xi]].len;
        uint32_t pa = t->parent[x];
        if (pa == JV_NONE32) continue;
        uint32_t pi = jv_upset_ix(up, pa);
        if (!set_of[pi]) { /* the parent takes the set over */
            set_of[pi] = set_of[xi];
        } else {
            s = jv_ivset_merge(&pool, &sets[set_of[pi]], &sets[set_of[xi]]);
        }
        set_of[xi] = 0;
    }
    jv_ivpool_free(&pool);
    free(sets);
    free(path);
    free(order);
    free(depth);
    return s;
}

static int64_t union_of(const jv_trace *tr, const uint32_t *gpu, size_t n, jv_iv *scratch) {
    for (size_t i = 0; i < n; i++) {
        const jv_event *e = &tr->ev[gpu[i]];
        scratch[i] = (jv_iv){jv_ev_ts(tr, e), jv_ev_end(tr, e)};
    }
    return jv_iv_union_len(scratch, n);
}

/* 1 when the interned name id names an NCCL kernel; memo[id]: 0 not yet known, 1 no, 2 yes (one scan of each
 * distinct name, not one per event) */
static int nccl_named(const jv_trace *tr, uint32_t id, uint8_t *memo) {
    if (!memo[id]) memo[id] = (uint8_t)(1 + jv_contains_nocase(jv_trace_str(tr, id), "nccl"));
    return memo[id] == 2;
}

jv_status jv_launchers_build(const jv_trace *tr, const jv_tree *t, jv_launchers *out) {
    memset(out, 0, sizeof *out);
    jv_map_init(&out->row_of);
    size_t cap_rows = 0, ndirect = 0;
    jv_iv *scratch = NULL;
    /* the events at or above the GPU events' parents (the launchers among them), and by their rank the row of
       each launcher (row_at: a quarter of a hash map's memory) */
    jv_upset up;
    uint32_t *row_at = NULL;
    jv_status s = jv_upset_init(&up, tr);
    if (s == JV_OK) {
        for (size_t i = 0; i < tr->nev; i++)
            if (jv_kind_is_gpu((jv_kind)tr->ev[i].kind)) jv_upset_add(&up, t, t->parent[i]);
        jv_upset_seal(&up);
        if (!(row_at = malloc((up.n ? up.n : 1) * sizeof *row_at))) s = JV_ERR_NOMEM;
        for (size_t k = 0; s == JV_OK && k < up.n; k++)
            row_at[k] = JV_NONE32;
    }
    uint8_t *memo = calloc(tr->strings.count ? tr->strings.count : 1, 1);
    if (!memo) s = JV_ERR_NOMEM;

    /* 1. rows in order of first direct GPU event */
    for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        if (!jv_kind_is_gpu((jv_kind)e->kind)) continue;
        uint32_t l = t->launcher[jv_ev_aux(tr, e)];
        if (l == JV_NONE32) continue;
        if (nccl_named(tr, e->name, memo)) continue;
        uint32_t *r = &row_at[jv_upset_ix(&up, l)]; /* l is at or above the GPU event's parent */
        if (*r == JV_NONE32) {
            if ((s = JV_RESERVE(out->rows, cap_rows, out->n + 1)) != JV_OK) break;
            *r = (uint32_t)out->n++;
            out->rows[*r] = (jv_launcher){l, 0, (uint32_t)i, 0, 0, 0, NULL};
        }
        out->rows[*r].ndirect++;
        ndirect++;
    }
    /* 2. direct lists (counting sort by row, file order kept) */
    if (s == JV_OK) {
        out->gpu_list = malloc((ndirect ? ndirect : 1) * sizeof *out->gpu_list);
        uint32_t *fill = calloc(out->n ? out->n : 1, sizeof *fill);
        if (!out->gpu_list || !fill) s = JV_ERR_NOMEM;
        uint32_t acc = 0;
        for (size_t r = 0; s == JV_OK && r < out->n; r++) {
            out->rows[r].gpu_begin = acc;
            acc += out->rows[r].ndirect;
        }
        for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
            const jv_event *e = &tr->ev[i];
            if (!jv_kind_is_gpu((jv_kind)e->kind)) continue;
            uint32_t l = t->launcher[jv_ev_aux(tr, e)];
            if (l == JV_NONE32 || nccl_named(tr, e->name, memo)) continue;
            uint32_t r = row_at[jv_upset_ix(&up, l)];
            out->gpu_list[out->rows[r].gpu_begin + fill[r]++] = (uint32_t)i;
        }
        free(fill);
    }
    /* 3. subtree unions: every linked GPU event counts for every launcher above it */
    if (s == JV_OK) s = subtree_unions(tr, t, &up, row_at, out->rows);
    free(row_at);
    jv_upset_free(&up);
    if (s == JV_OK && !(scratch = malloc((ndirect ? ndirect : 1) * sizeof *scratch))) s = JV_ERR_NOMEM;
    if (s == JV_OK) {
        /* jv_op_category once per (op name, first GPU event's name) pair: the pairs map to the row that had the
           pair first (without the map, out of memory, once per row) */
        jv_map catmemo;
        jv_map_init(&catmemo);
        int use_memo = jv_map_reserve(&catmemo, 1024) == JV_OK;
        for (size_t r = 0; s == JV_OK && r < out->n; r++) {
            jv_launcher *row = &out->rows[r];
            row->direct_ns = union_of(tr, out->gpu_list + row->gpu_begin, row->ndirect, scratch);
            uint32_t name = tr->ev[row->ev].name, fk = tr->ev[row->first_gpu].name, j;
            int64_t key = (int64_t)((uint64_t)name << 32 | fk);
            if (use_memo && jv_map_get(&catmemo, key, &j)) {
                row->category = out->rows[j].category;
                continue;
            }
            row->category = jv_op_category(jv_trace_str(tr, name), jv_trace_str(tr, fk));
            if (use_memo && jv_map_put(&catmemo, key, (uint32_t)r) != JV_OK) use_memo = 0;
        }
        jv_map_free(&catmemo);
    }
    /* 4. rows by ts */
    if (s == JV_OK) s = jv_sort_stable(out->rows, out->n, sizeof *out->rows, cmp_rows_ts, (void *)tr);
    for (size_t r = 0; s == JV_OK && r < out->n; r++)
        s = jv_map_put(&out->row_of, out->rows[r].ev, (uint32_t)r);
    free(scratch);
    free(memo);
    if (s != JV_OK) jv_launchers_free(out);
    return s;
}

void jv_launchers_free(jv_launchers *l) {
    free(l->rows);
    free(l->gpu_list);
    jv_map_free(&l->row_of);
    memset(l, 0, sizeof *l);
}

const jv_launcher *jv_launchers_find(const jv_launchers *l, uint32_t ev) {
    uint32_t r;
    return jv_map_get(&l->row_of, ev, &r) ? &l->rows[r] : NULL;
}

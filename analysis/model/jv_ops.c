/* jv_ops: grouping GPU events under their launchers and measuring unions. */
#include "jv_ops.h"

#include <stdlib.h>
#include <string.h>

#include "jv_category.h"
#include "jv_map.h"
#include "jv_sort.h"
#include "jv_timeline.h"

typedef struct {
    uint32_t row, gpu;
} pair;

static int cmp_pair(const void *a, const void *b) {
    const pair *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

static int cmp_rows_ts(const void *a, const void *b, void *ctx) {
    const jv_event *ev = ctx;
    const jv_launcher *x = a, *y = b;
    const jv_event *ex = &ev[x->ev], *ey = &ev[y->ev];
    if (ex->ts != ey->ts) return ex->ts < ey->ts ? -1 : 1;
    return (ex->uid > ey->uid) - (ex->uid < ey->uid);
}

static int64_t union_of(const jv_trace *tr, const uint32_t *gpu, size_t n, jv_iv *scratch) {
    for (size_t i = 0; i < n; i++) {
        const jv_event *e = &tr->ev[gpu[i]];
        scratch[i] = (jv_iv){e->ts, e->ts + e->dur};
    }
    return jv_iv_union_len(scratch, n);
}

jv_status jv_launchers_build(const jv_trace *tr, const jv_tree *t, jv_launchers *out) {
    memset(out, 0, sizeof *out);
    jv_map row_of;
    jv_map_init(&row_of);
    jv_map_init(&out->row_of);
    jv_status s = JV_OK;
    size_t cap_rows = 0, cap_pairs = 0, npairs = 0, ndirect = 0;
    pair *pairs = NULL;
    jv_iv *scratch = NULL;

    /* 1. rows in order of first direct GPU event */
    for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        if (!jv_kind_is_gpu((jv_kind)e->kind)) continue;
        uint32_t l = t->launcher[e->aux];
        if (l == JV_NONE32) continue;
        if (jv_contains_nocase(jv_trace_str(tr, e->name), "nccl")) continue;
        uint32_t r;
        if (!jv_map_get(&row_of, l, &r)) {
            if ((s = JV_RESERVE(out->rows, cap_rows, out->n + 1)) != JV_OK) break;
            r = (uint32_t)out->n++;
            out->rows[r] = (jv_launcher){l, 0, (uint32_t)i, 0, 0, 0, NULL};
            if ((s = jv_map_put(&row_of, l, r)) != JV_OK) break;
        }
        out->rows[r].ndirect++;
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
            uint32_t l = t->launcher[e->aux], r;
            if (l == JV_NONE32 || jv_contains_nocase(jv_trace_str(tr, e->name), "nccl")) continue;
            jv_map_get(&row_of, l, &r);
            out->gpu_list[out->rows[r].gpu_begin + fill[r]++] = (uint32_t)i;
        }
        free(fill);
    }
    /* 3. subtree pairs: every linked GPU event counts for every launcher above it */
    for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        if (!jv_kind_is_gpu((jv_kind)e->kind) || t->parent[i] == JV_NONE32) continue;
        for (uint32_t a = t->parent[i]; a != JV_NONE32; a = t->parent[a]) {
            uint32_t r;
            if (!jv_map_get(&row_of, a, &r)) continue;
            if ((s = JV_RESERVE(pairs, cap_pairs, npairs + 1)) != JV_OK) break;
            pairs[npairs++] = (pair){r, (uint32_t)i};
        }
    }
    size_t maxn = ndirect > npairs ? ndirect : npairs;
    if (s == JV_OK && !(scratch = malloc((maxn ? maxn : 1) * sizeof *scratch))) s = JV_ERR_NOMEM;
    if (s == JV_OK) {
        if (npairs) qsort(pairs, npairs, sizeof *pairs, cmp_pair);
        uint32_t *g = malloc((npairs ? npairs : 1) * sizeof *g);
        if (!g) s = JV_ERR_NOMEM;
        for (size_t k = 0; s == JV_OK && k < npairs;) {
            size_t j = k;
            while (j < npairs && pairs[j].row == pairs[k].row) {
                g[j - k] = pairs[j].gpu;
                j++;
            }
            out->rows[pairs[k].row].subtree_ns = union_of(tr, g, j - k, scratch);
            k = j;
        }
        free(g);
        for (size_t r = 0; s == JV_OK && r < out->n; r++) {
            jv_launcher *row = &out->rows[r];
            row->direct_ns = union_of(tr, out->gpu_list + row->gpu_begin, row->ndirect, scratch);
            const char *fk = jv_trace_str(tr, tr->ev[row->first_gpu].name);
            row->category = jv_op_category(jv_trace_str(tr, tr->ev[row->ev].name), fk);
        }
    }
    /* 4. rows by ts */
    if (s == JV_OK) s = jv_sort_stable(out->rows, out->n, sizeof *out->rows, cmp_rows_ts, (void *)tr->ev);
    for (size_t r = 0; s == JV_OK && r < out->n; r++)
        s = jv_map_put(&out->row_of, out->rows[r].ev, (uint32_t)r);
    free(scratch);
    free(pairs);
    jv_map_free(&row_of);
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

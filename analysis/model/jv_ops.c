/* jv_ops: grouping GPU events under their launchers and measuring unions. */
#include "jv_ops.h"

#include <stdlib.h>
#include <string.h>

#include "jv_category.h"
#include "jv_ivset.h"
#include "jv_map.h"
#include "jv_sort.h"
#include "jv_timeline.h"

typedef struct {
    const jv_trace *tr;
    const jv_launcher *rows;
} rows_ctx;

/* row indices by their launcher's ts, then by event (the events are in uid order); ctx: a rows_ctx */
static int cmp_rows_ts(const void *a, const void *b, void *ctx) {
    const rows_ctx *c = ctx;
    const uint32_t x = c->rows[*(const uint32_t *)a].ev, y = c->rows[*(const uint32_t *)b].ev;
    const int64_t tx = jv_ev_ts(c->tr, &c->tr->ev[x]), ty = jv_ev_ts(c->tr, &c->tr->ev[y]);
    if (tx != ty) return tx < ty ? -1 : 1;
    return (x > y) - (x < y);
}

/* rows[k] becomes the row at perm[k], for every k, in place (cycle by cycle); perm ends as the identity */
static void rows_permute(jv_launcher *rows, uint32_t *perm, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (perm[i] == i) continue;
        const jv_launcher first = rows[i];
        size_t j = i;
        while (perm[j] != i) {
            const size_t k = perm[j];
            rows[j] = rows[k];
            perm[j] = (uint32_t)j;
            j = k;
        }
        rows[j] = first;
        perm[j] = (uint32_t)j;
    }
}

/* row indices by their launcher event (ctx: the rows; the events are distinct) */
static int cmp_rows_ev(const void *a, const void *b, void *ctx) {
    const jv_launcher *rows = ctx;
    const uint32_t x = rows[*(const uint32_t *)a].ev, y = rows[*(const uint32_t *)b].ev;
    return (x > y) - (x < y);
}

/* the nearest row at or above event x (JV_NONE32: none): the first member of u (the rows' launchers) met climbing
 * from x, by its row in row_at (by jv_upset_ix over u) */
static uint32_t row_above(const jv_tree *t, const jv_upset *u, const uint32_t *row_at, uint32_t x) {
    while (x != JV_NONE32 && !jv_upset_has(u, x))
        x = t->parent[x];
    return x == JV_NONE32 ? JV_NONE32 : row_at[jv_upset_ix(u, x)];
}

/* The links of the rows for their subtree unions. u holds the rows' launchers, row_at (by jv_upset_ix over u)
 * their rows. up[r] gets the nearest row above row r's launcher (JV_NONE32: none), and the linked GPU events,
 * grouped by the nearest row at or above their parent (a counting sort, file order kept), go into *gpu (malloc'd):
 * row r's are (*gpu)[(*begin)[r] .. (*begin)[r + 1]) when begin is given the offsets (*begin malloc'd, nrows + 1 of
 * them); the GPU events with no row above count for no row and are left out. The nearest rows are found by
 * climbing (at most JV_TREE_MAX_DEPTH events): no per-event array of them. JV_ERR_NOMEM (*begin and *gpu NULL) on
 * failure. */
static jv_status row_links(const jv_trace *tr, const jv_tree *t, const jv_upset *u, const uint32_t *row_at,
                           const jv_launcher *rows, size_t nrows, uint32_t *up, uint32_t **begin, uint32_t **gpu) {
    jv_status s = JV_OK;
    *begin = *gpu = NULL;
    for (size_t r = 0; r < nrows; r++) {
        const uint32_t pa = t->parent[rows[r].ev];
        up[r] = row_above(t, u, row_at, pa);
    }
    if (s == JV_OK && !(*begin = calloc(nrows + 1, sizeof **begin))) s = JV_ERR_NOMEM;
    size_t n = 0;
    for (size_t i = 0; s == JV_OK && i < tr->nev; i++) {
        const uint32_t pa = t->parent[i];
        if (pa == JV_NONE32 || !jv_kind_is_gpu(jv_ev_kind(tr, &tr->ev[i]))) continue;
        const uint32_t r = row_above(t, u, row_at, pa);
        if (r == JV_NONE32) continue;
        (*begin)[r + 1]++;
        n++;
    }
    if (s == JV_OK && !(*gpu = malloc((n ? n : 1) * sizeof **gpu))) s = JV_ERR_NOMEM;
    if (s == JV_OK) {
        for (size_t r = 0; r < nrows; r++) /* (*begin)[r]: where row r's events start */
            (*begin)[r + 1] += (*begin)[r];
        for (size_t i = 0; i < tr->nev; i++) { /* (*begin)[r] moves to where row r's events end */
            const uint32_t pa = t->parent[i];
            if (pa == JV_NONE32 || !jv_kind_is_gpu(jv_ev_kind(tr, &tr->ev[i]))) continue;
            const uint32_t r = row_above(t, u, row_at, pa);
            if (r != JV_NONE32) (*gpu)[(*begin)[r]++] = (uint32_t)i;
        }
        for (size_t r = nrows; r > 0; r--) /* back to the starts */
            (*begin)[r] = (*begin)[r - 1];
        (*begin)[0] = 0;
    }
    if (s != JV_OK) {
        free(*begin);
        free(*gpu);
        *begin = *gpu = NULL;
    }
    return s;
}

/* The union length of the GPU events under each row's launcher (every linked GPU event counts for every
 * launcher above it) into rows[].subtree_ns, from row_links' up, begin and gpu. The rows go deepest first (their
 * depth in the tree of rows that up makes): a row's set, which holds its child rows' intervals by then, gets its
 * own GPU events' intervals, is read, and is handed on to the row above (merged smaller into larger: jv_ivset),
 * or emptied when there is none. So the pool holds only the intervals of the finished rows whose row above is not
 * finished yet, never every GPU event's; a set is a slot of `sets` only while its row's turn is next or its
 * intervals wait for the row above. O(n log^2 n) at any nesting depth. */
static jv_status subtree_unions(const jv_trace *tr, jv_launcher *rows, size_t nrows, const uint32_t *up,
                                const uint32_t *begin, const uint32_t *gpu) {
    if (nrows == 0) return JV_OK;
    jv_status s = JV_OK;
    uint32_t *depth = malloc(nrows * sizeof *depth), *order = malloc(nrows * sizeof *order), *path = NULL;
    size_t path_cap = 0;
    jv_ivset *sets = NULL;
    size_t nsets = 0, sets_cap = 0;
    uint32_t free_slot = 0; /* a chain of free slots of sets through their root fields; 0 ends it */
    jv_ivpool pool;
    jv_ivpool_init(&pool);
    if (!depth || !order) s = JV_ERR_NOMEM;
    /* depths: each chain of rows climbed once, up to the first row whose depth is known */
    for (size_t r = 0; s == JV_OK && r < nrows; r++)
        depth[r] = UINT32_MAX;
    uint32_t maxd = 0;
    for (size_t r = 0; s == JV_OK && r < nrows; r++) {
        size_t k = 0;
        uint32_t x = (uint32_t)r;
        while (x != JV_NONE32 && depth[x] == UINT32_MAX) {
            if ((s = JV_RESERVE(path, path_cap, k + 1)) != JV_OK) break;
            path[k++] = x;
            x = up[x];
        }
        uint32_t d = x == JV_NONE32 ? 0 : depth[x] + 1;
        while (s == JV_OK && k > 0) {
            depth[path[--k]] = d;
            if (d > maxd) maxd = d;
            d++;
        }
    }
    free(path);
    /* the rows by depth, deepest first (counting sort); then depth[] holds each row's set slot (0: none yet) */
    if (s == JV_OK) {
        uint32_t *start = calloc((size_t)maxd + 2, sizeof *start);
        if (!start) s = JV_ERR_NOMEM;
        for (size_t r = 0; s == JV_OK && r < nrows; r++)
            start[maxd - depth[r] + 1]++;
        for (uint32_t d = 1; s == JV_OK && d <= maxd + 1; d++)
            start[d] += start[d - 1];
        for (size_t r = 0; s == JV_OK && r < nrows; r++)
            order[start[maxd - depth[r]]++] = (uint32_t)r;
        free(start);
    }
    uint32_t *set_of = depth;
    for (size_t r = 0; s == JV_OK && r < nrows; r++)
        set_of[r] = 0;
    if (s == JV_OK) s = JV_RESERVE(sets, sets_cap, 1);
    nsets = 1; /* slot 0: none */
    for (size_t k = 0; s == JV_OK && k < nrows; k++) {
        const uint32_t r = order[k];
        if (!set_of[r]) {
            if (free_slot) {
                set_of[r] = free_slot;
                free_slot = sets[free_slot].root;
            } else {
                if ((s = JV_RESERVE(sets, sets_cap, nsets + 1)) != JV_OK) break;
                set_of[r] = (uint32_t)nsets++;
            }
            sets[set_of[r]] = (jv_ivset){0, 0, 0};
        }
        jv_ivset *set = &sets[set_of[r]];
        for (uint32_t q = begin[r]; s == JV_OK && q < begin[r + 1]; q++) {
            const jv_event *e = &tr->ev[gpu[q]];
            s = jv_ivset_add(&pool, set, jv_ev_ts(tr, e), jv_ev_end(tr, e));
        }
        if (s != JV_OK) break;
        rows[r].subtree_ns = set->len;
        const uint32_t p = up[r];
        if (p != JV_NONE32 && !set_of[p]) { /* the row above takes the set over */
            set_of[p] = set_of[r];
        } else {
            if (p == JV_NONE32)
                jv_ivset_clear(&pool, set);
            else
                s = jv_ivset_merge(&pool, &sets[set_of[p]], set);
            sets[set_of[r]].root = free_slot; /* the slot is free */
            free_slot = set_of[r];
        }
        set_of[r] = 0;
    }
    jv_ivpool_free(&pool);
    free(sets);
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

/* 1 for an NCCL kernel's name (tested once per distinct name through jv_name_memo) */
static int is_nccl(const char *name) {
    return jv_contains_nocase(name, "nccl");
}

jv_status jv_launchers_build(const jv_trace *tr, const jv_tree *t, jv_launchers *out) {
    memset(out, 0, sizeof *out);
    size_t cap_rows = 0, ndirect = 0;
    jv_iv *scratch = NULL;
    /* the launchers of direct GPU events (the rows' events), and by their rank the row of each (row_at: a quarter
       of a hash map's memory) */
    jv_upset up = {0};
    uint32_t *row_at = NULL;
    uint8_t *memo = calloc(tr->strings.count ? tr->strings.count : 1, 1);
    jv_status s = memo ? jv_upset_init(&up, tr) : JV_ERR_NOMEM;
    if (s == JV_OK) {
        for (size_t i = 0; i < tr->nev; i++) {
            const jv_event *e = &tr->ev[i];
            if (!jv_kind_is_gpu(jv_ev_kind(tr, e))) continue;
            uint32_t l = t->launcher[jv_ev_aux(tr, e)];
            if (l != JV_NONE32 && !jv_name_memo(tr, jv_ev_name(tr, e), memo, is_nccl)) jv_upset_add_one(&up, l);
        }
        jv_upset_seal(&up);
        if (!(row_at = malloc((up.n ? up.n : 1) * sizeof *row_at))) s = JV_ERR_NOMEM;
        for (size_t k = 0; s == JV_OK && k < up.n; k++)
            row_at[k] = JV_NONE32;
    }

    /* 1. rows in order of first direct GPU event */
    for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        if (!jv_kind_is_gpu(jv_ev_kind(tr, e))) continue;
        uint32_t l = t->launcher[jv_ev_aux(tr, e)];
        if (l == JV_NONE32) continue;
        if (jv_name_memo(tr, jv_ev_name(tr, e), memo, is_nccl)) continue;
        uint32_t *r = &row_at[jv_upset_ix(&up, l)]; /* l is a member: a launcher of a direct GPU event */
        if (*r == JV_NONE32) {
            if ((s = JV_RESERVE(out->rows, cap_rows, out->n + 1)) != JV_OK) break;
            *r = (uint32_t)out->n++;
            out->rows[*r] = (jv_launcher){l, 0, 0, JV_OPCAT_OTHER, 0, 0};
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
            if (!jv_kind_is_gpu(jv_ev_kind(tr, e))) continue;
            uint32_t l = t->launcher[jv_ev_aux(tr, e)];
            if (l == JV_NONE32 || jv_name_memo(tr, jv_ev_name(tr, e), memo, is_nccl)) continue;
            uint32_t r = row_at[jv_upset_ix(&up, l)];
            out->gpu_list[out->rows[r].gpu_begin + fill[r]++] = (uint32_t)i;
        }
        free(fill);
    }
    free(memo);
    /* 3. subtree unions: every linked GPU event counts for every launcher above it */
    uint32_t *up_row = NULL, *begin = NULL, *gpu = NULL;
    if (s == JV_OK && !(up_row = malloc((out->n ? out->n : 1) * sizeof *up_row))) s = JV_ERR_NOMEM;
    if (s == JV_OK) s = row_links(tr, t, &up, row_at, out->rows, out->n, up_row, &begin, &gpu);
    free(row_at);
    jv_upset_free(&up);
    if (s == JV_OK) s = subtree_unions(tr, out->rows, out->n, up_row, begin, gpu);
    free(up_row);
    free(begin);
    free(gpu);
    /* direct unions: a scratch array as long as the longest direct list */
    uint32_t most = 0;
    for (size_t r = 0; s == JV_OK && r < out->n; r++)
        most = out->rows[r].ndirect > most ? out->rows[r].ndirect : most;
    if (s == JV_OK && !(scratch = malloc((most ? most : 1) * sizeof *scratch))) s = JV_ERR_NOMEM;
    if (s == JV_OK) {
        /* jv_op_category once per (op name, first GPU event's name) pair: the pairs map to the row that had the
           pair first (without the map, out of memory, once per row) */
        jv_map catmemo;
        jv_map_init(&catmemo);
        int use_memo = jv_map_reserve(&catmemo, 1024) == JV_OK;
        for (size_t r = 0; s == JV_OK && r < out->n; r++) {
            jv_launcher *row = &out->rows[r];
            row->direct_ns = union_of(tr, out->gpu_list + row->gpu_begin, row->ndirect, scratch);
            const uint32_t first = out->gpu_list[row->gpu_begin]; /* ndirect >= 1 */
            uint32_t name = jv_ev_name(tr, &tr->ev[row->ev]), fk = jv_ev_name(tr, &tr->ev[first]), j;
            int64_t key = (int64_t)((uint64_t)name << 32 | fk);
            if (use_memo && jv_map_get(&catmemo, key, &j)) {
                row->cat = out->rows[j].cat;
                continue;
            }
            row->cat = (uint8_t)jv_op_category_id(jv_trace_str(tr, name), jv_trace_str(tr, fk));
            if (use_memo && jv_map_put(&catmemo, key, (uint32_t)r) != JV_OK) use_memo = 0;
        }
        jv_map_free(&catmemo);
    }
    free(scratch);
    /* 4. rows by ts (a total order: the event last): their indices merge-sorted (the rows come nearly in ts order,
       which a merge sort takes in few comparisons), the rows moved in place; then the same indices, in event
       order, for jv_launchers_find */
    if (s == JV_OK && !(out->by_ev = malloc((out->n ? out->n : 1) * sizeof *out->by_ev))) s = JV_ERR_NOMEM;
    for (size_t r = 0; s == JV_OK && r < out->n; r++)
        out->by_ev[r] = (uint32_t)r;
    const rows_ctx rc = {tr, out->rows};
    if (s == JV_OK) s = jv_sort_stable(out->by_ev, out->n, sizeof *out->by_ev, cmp_rows_ts, (void *)&rc);
    if (s == JV_OK) rows_permute(out->rows, out->by_ev, out->n);
    if (s == JV_OK) s = jv_sort_stable(out->by_ev, out->n, sizeof *out->by_ev, cmp_rows_ev, out->rows);
    if (s != JV_OK) jv_launchers_free(out);
    return s;
}

void jv_launchers_free(jv_launchers *l) {
    free(l->rows);
    free(l->gpu_list);
    free(l->by_ev);
    memset(l, 0, sizeof *l);
}

const jv_launcher *jv_launchers_find(const jv_launchers *l, uint32_t ev) {
    size_t lo = 0, hi = l->n; /* the first row in event order whose event is not below ev */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->rows[l->by_ev[mid]].ev < ev)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->n && l->rows[l->by_ev[lo]].ev == ev ? &l->rows[l->by_ev[lo]] : NULL;
}

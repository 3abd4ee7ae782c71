/* jv_sampling: the block-covering sample of a sampled verification (see jv_sampling.h). */
#include "jv_sampling.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [0, n), n >= 1 */
static int64_t below(uint64_t *s, int64_t n) {
    int64_t k = (int64_t)((double)(mix(s) >> 11) * (1.0 / 9007199254740992.0) * (double)n);
    return k < n ? k : n - 1;
}

void jv_sample_view_make(const jv_tensor *t, jv_sample_view *v) {
    memset(v, 0, sizeof *v);
    v->t = t;
    v->col_dim = -1;
    v->rows = v->cols = 1;
    int64_t ls = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        v->lstride[d] = ls;
        ls *= t->shape[d];
    }
    int order[JV_MAX_DIMS], n = 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] > 1) order[n++] = d;
    /* memory order, outer to inner: decreasing |stride|, ties in dim order (insertion sort, stable) */
    for (int i = 1; i < n && t->has_strides; i++) {
        int d = order[i], j = i;
        int64_t sd = t->strides[d] < 0 ? -t->strides[d] : t->strides[d];
        while (j > 0) {
            int64_t sp = t->strides[order[j - 1]] < 0 ? -t->strides[order[j - 1]] : t->strides[order[j - 1]];
            if (sp >= sd) break;
            order[j] = order[j - 1];
            j--;
        }
        order[j] = d;
    }
    if (n == 0) return;
    v->col_dim = order[n - 1];
    v->cols = t->shape[v->col_dim];
    v->nrd = n - 1;
    for (int i = 0; i < n - 1; i++) {
        v->row_dim[i] = order[i];
        v->rows *= t->shape[order[i]];
    }
}

int64_t jv_sample_view_index(const jv_sample_view *v, int64_t row, int64_t col) {
    if (v->col_dim < 0) return 0;
    int64_t i = col * v->lstride[v->col_dim];
    for (int j = v->nrd - 1; j >= 0; j--) {
        int d = v->row_dim[j];
        i += (row % v->t->shape[d]) * v->lstride[d];
        row /= v->t->shape[d];
    }
    return i;
}

void jv_sample_view_rowcol(const jv_sample_view *v, int64_t i, int64_t *row, int64_t *col) {
    *row = 0;
    *col = 0;
    if (v->col_dim < 0) return;
    *col = (i / v->lstride[v->col_dim]) % v->t->shape[v->col_dim];
    for (int j = 0; j < v->nrd; j++) {
        int d = v->row_dim[j];
        *row = *row * v->t->shape[d] + (i / v->lstride[d]) % v->t->shape[d];
    }
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* the smaller of a side doubled and the dim */
static int64_t grow(int64_t side, int64_t dim) {
    return side * 2 < dim ? side * 2 : dim;
}

/* a stride for the diagonals' offsets: coprime with g, near g / golden ratio (successive diagonals far apart) */
static int64_t diag_stride(int64_t g) {
    if (g <= 2) return 1;
    for (int64_t k = (int64_t)((double)g * 0.6180339887) | 1; k > 1; k--) {
        int64_t a = g, b = k;
        while (b) {
            int64_t r = a % b;
            a = b;
            b = r;
        }
        if (a == 1) return k;
    }
    return 1;
}

/* element (seeded uniform) of block (bi, bj), part `part` of `parts` equal consecutive parts of the block */
static int64_t in_block(const jv_sample_view *v, const jv_sample_plan *p, int64_t bi, int64_t bj, int64_t part,
                        int64_t parts, uint64_t *s) {
    int64_t r0 = bi * p->block_rows, c0 = bj * p->block_cols;
    int64_t h = r0 + p->block_rows <= v->rows ? p->block_rows : v->rows - r0;
    int64_t w = c0 + p->block_cols <= v->cols ? p->block_cols : v->cols - c0;
    int64_t e = h * w, lo = part * e / parts, hi = (part + 1) * e / parts;
    int64_t k = lo + below(s, hi - lo);
    return jv_sample_view_index(v, r0 + k / w, c0 + k % w);
}

/* k distinct picks in [0, n) (k < n: rejection; the counts are small) */
static void distinct(uint64_t *s, int64_t n, int64_t k, int64_t *out) {
    for (int64_t i = 0; i < k; i++) {
        int again;
        do {
            out[i] = below(s, n);
            again = 0;
            for (int64_t j = 0; j < i; j++)
                again |= out[j] == out[i];
        } while (again);
    }
}

jv_status jv_sample_plan_make(const jv_tensor *t, int64_t budget, int64_t full_rows, int64_t full_cols, uint64_t seed,
                              int64_t **idx, jv_sample_plan *plan, jv_err *err) {
    *idx = NULL;
    memset(plan, 0, sizeof *plan);
    int64_t numel = jv_tensor_numel(t);
    if (numel <= 0) JV_FAIL(err, JV_ERR_USAGE, "sample of an empty tensor");
    if (budget < 1) JV_FAIL(err, JV_ERR_USAGE, "sample budget %lld under 1", (long long)budget);
    jv_sample_view v;
    jv_sample_view_make(t, &v);
    plan->rows = v.rows;
    plan->cols = v.cols;
    plan->budget = budget;
    if (full_rows > v.rows) full_rows = v.rows;
    if (full_cols > v.cols) full_cols = v.cols;
    if (full_rows < 0) full_rows = 0;
    if (full_cols < 0) full_cols = 0;
    int64_t line_el = full_rows * v.cols + full_cols * v.rows;
    if (budget + 2 + line_el >= numel) { /* the whole tensor */
        int64_t *all = malloc((size_t)numel * sizeof *all);
        if (!all) JV_FAIL(err, JV_ERR_NOMEM, "host out of memory for a sample of %lld", (long long)numel);
        for (int64_t i = 0; i < numel; i++)
            all[i] = i;
        plan->whole = 1;
        plan->all_blocks = 1;
        plan->block_rows = plan->block_cols = plan->row_blocks = plan->col_blocks = 1;
        plan->n = numel;
        *idx = all;
        return JV_OK;
    }
    /* block shape: JV_SAMPLE_BLOCK square (smaller dims: the dim); sides double, the one with more blocks first,
     * up to JV_SAMPLE_BLOCK_MAX until every block fits the budget; then without a cap until each direction fits
     * (the Latin-square diagonals touch every row block and column block) */
    int64_t bh = v.rows < JV_SAMPLE_BLOCK ? v.rows : JV_SAMPLE_BLOCK;
    int64_t bw = v.cols < JV_SAMPLE_BLOCK ? v.cols : JV_SAMPLE_BLOCK;
    int64_t gr = (v.rows + bh - 1) / bh, gc = (v.cols + bw - 1) / bw;
    while (gr * gc > budget) {
        int can_r = bh < JV_SAMPLE_BLOCK_MAX && bh < v.rows, can_c = bw < JV_SAMPLE_BLOCK_MAX && bw < v.cols;
        if (can_r && (gr >= gc || !can_c))
            bh = grow(bh, v.rows);
        else if (can_c)
            bw = grow(bw, v.cols);
        else
            break;
        gr = (v.rows + bh - 1) / bh;
        gc = (v.cols + bw - 1) / bw;
    }
    while (gr > budget) {
        bh = grow(bh, v.rows);
        gr = (v.rows + bh - 1) / bh;
    }
    while (gc > budget) {
        bw = grow(bw, v.cols);
        gc = (v.cols + bw - 1) / bw;
    }
    plan->block_rows = bh;
    plan->block_cols = bw;
    plan->row_blocks = gr;
    plan->col_blocks = gc;
    plan->full_rows = full_rows;
    plan->full_cols = full_cols;
    int64_t cap = budget + 2 + line_el;
    int64_t *out = malloc((size_t)cap * sizeof *out);
    int64_t *lines = malloc((size_t)(full_rows + full_cols + 1) * sizeof *lines);
    if (!out || !lines) {
        free(out);
        free(lines);
        JV_FAIL(err, JV_ERR_NOMEM, "host out of memory for a sample of %lld", (long long)cap);
    }
    uint64_t s = seed ^ 0xD1B54A32D192ED03ull;
    int64_t n = 0, nb = gr * gc;
    if (nb <= budget) { /* every block: the budget spread evenly, the remainder to a seeded run of blocks */
        plan->all_blocks = 1;
        int64_t base = budget / nb, extra = budget % nb, rot = below(&s, nb);
        plan->per_block = base;
        for (int64_t b = 0; b < nb; b++) {
            int64_t bi = b / gc, bj = b % gc, m = base + ((b + rot) % nb < extra);
            int64_t h = (bi + 1) * bh <= v.rows ? bh : v.rows - bi * bh,
                    w = (bj + 1) * bw <= v.cols ? bw : v.cols - bj * bw;
            if (m > h * w) m = h * w; /* an edge block smaller than its share */
            for (int64_t k = 0; k < m; k++)
                out[n++] = in_block(&v, plan, bi, bj, k, m, &s);
        }
    } else { /* Latin-square diagonals over the longer side of the grid */
        int64_t len = gr > gc ? gr : gc, other = gr > gc ? gc : gr, k = diag_stride(other), o0 = below(&s, other);
        int64_t full = budget / len, rem = budget % len, p0 = below(&s, len);
        for (int64_t d = 0; d <= full; d++) {
            int64_t cnt = d < full ? len : rem;
            for (int64_t q = 0; q < cnt; q++) {
                int64_t p = (p0 + q) % len, x = (p + o0 + d * k) % other;
                out[n++] = gr > gc ? in_block(&v, plan, p, x, 0, 1, &s) : in_block(&v, plan, x, p, 0, 1, &s);
            }
        }
    }
    out[n++] = jv_sample_view_index(&v, 0, 0);
    out[n++] = jv_sample_view_index(&v, v.rows - 1, v.cols - 1);
    distinct(&s, v.rows, full_rows, lines);
    for (int64_t i = 0; i < full_rows; i++)
        for (int64_t c = 0; c < v.cols; c++)
            out[n++] = jv_sample_view_index(&v, lines[i], c);
    distinct(&s, v.cols, full_cols, lines);
    for (int64_t i = 0; i < full_cols; i++)
        for (int64_t r = 0; r < v.rows; r++)
            out[n++] = jv_sample_view_index(&v, r, lines[i]);
    free(lines);
    qsort(out, (size_t)n, sizeof *out, cmp_i64);
    int64_t u = 0;
    for (int64_t i = 0; i < n; i++)
        if (u == 0 || out[i] != out[u - 1]) out[u++] = out[i];
    plan->n = u;
    *idx = out;
    return JV_OK;
}

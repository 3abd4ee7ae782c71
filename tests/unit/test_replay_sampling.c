/* test_replay_sampling: the sample design of a sampled verification (replay/jv_sampling.h). The memory-order
 * view (contiguous, channels_last, transposed), then plans: indices sorted, distinct and in range; the first
 * and last element; every block holding >= 1 element when the blocks fit the budget, every row block and
 * every column block otherwise (Latin-square diagonals); complete rows and columns; the same plan for the
 * same seed and another for another; and over many seeds the chance that one element or an 8x8 tile is
 * sampled, against the bound the README states (1 - exp(-k s / N) for k elements, s over the blocks of an
 * N-element output). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_sampling.h"

#include "jv_check.h"

static jv_tensor mk(int nd, const int64_t *shape, const int64_t *strides) {
    jv_tensor t;
    memset(&t, 0, sizeof t);
    t.ndim = nd;
    t.dtype = JV_DT_F32;
    for (int i = 0; i < nd; i++)
        t.shape[i] = shape[i];
    if (strides) {
        t.has_strides = 1;
        for (int i = 0; i < nd; i++)
            t.strides[i] = strides[i];
    } else
        jv_tensor_set_contiguous(&t);
    return t;
}

static void test_view(void) {
    int64_t s3[] = {4, 5, 6};
    jv_tensor t = mk(3, s3, NULL);
    jv_sample_view v;
    jv_sample_view_make(&t, &v);
    CHECK(v.rows == 20 && v.cols == 6 && v.col_dim == 2);
    int ok = 1;
    for (int64_t i = 0; i < 120; i++) {
        int64_t r, c;
        jv_sample_view_rowcol(&v, i, &r, &c);
        ok &= jv_sample_view_index(&v, r, c) == i && r == i / 6 && c == i % 6;
    }
    CHECK(ok);
    /* channels_last NCHW [2, 3, 4, 5]: memory N, H, W, C: rows 2*4*5, columns C */
    int64_t s4[] = {2, 3, 4, 5}, st4[] = {60, 1, 15, 3};
    t = mk(4, s4, st4);
    jv_sample_view_make(&t, &v);
    CHECK(v.rows == 40 && v.cols == 3 && v.col_dim == 1);
    CHECK(jv_sample_view_index(&v, 0, 1) == 20);   /* (n0, c1, h0, w0) */
    CHECK(jv_sample_view_index(&v, 1, 0) == 1);    /* (n0, c0, h0, w1) */
    CHECK(jv_sample_view_index(&v, 20, 2) == 100); /* (n1, c2, h0, w0) = 60 + 40 */
    ok = 1;
    for (int64_t i = 0; i < 120; i++) { /* the view's storage order is the memory order */
        int64_t r, c;
        jv_sample_view_rowcol(&v, i, &r, &c);
        ok &= jv_sample_view_index(&v, r, c) == i && jv_tensor_offset_at(&t, i) == r * 3 + c;
    }
    CHECK(ok);
    /* a transposed matrix [8, 16] with strides (1, 8): columns are dim 0 */
    int64_t s2[] = {8, 16}, st2[] = {1, 8};
    t = mk(2, s2, st2);
    jv_sample_view_make(&t, &v);
    CHECK(v.rows == 16 && v.cols == 8 && v.col_dim == 0 && jv_sample_view_index(&v, 3, 2) == 2 * 16 + 3);
    /* size-1 dims are ignored: [4, 1] is 1 row of 4 columns; a scalar 1 x 1 */
    int64_t s41[] = {4, 1};
    t = mk(2, s41, NULL);
    jv_sample_view_make(&t, &v);
    CHECK(v.rows == 1 && v.cols == 4 && v.col_dim == 0);
    t = mk(0, s41, NULL);
    jv_sample_view_make(&t, &v);
    CHECK(v.rows == 1 && v.cols == 1 && v.col_dim == -1 && jv_sample_view_index(&v, 0, 0) == 0);
}

/* the checks every plan passes; returns 1 when they hold. Counts of sampled elements per block in blk
 * (row_blocks x col_blocks, caller-sized) */
static int plan_ok(const jv_tensor *t, const jv_sample_plan *p, const int64_t *idx, int64_t fr_want, int64_t fc_want) {
    int64_t numel = jv_tensor_numel(t);
    jv_sample_view v;
    jv_sample_view_make(t, &v);
    int ok = p->n > 0 && p->rows == v.rows && p->cols == v.cols;
    for (int64_t i = 0; i < p->n; i++)
        ok &= idx[i] >= 0 && idx[i] < numel && (i == 0 || idx[i] > idx[i - 1]);
    if (!ok) return 0;
    int64_t *blk = calloc((size_t)(p->row_blocks * p->col_blocks), sizeof *blk);
    int64_t *rowc = calloc((size_t)v.rows, sizeof *rowc), *colc = calloc((size_t)v.cols, sizeof *colc);
    int64_t *rb = calloc((size_t)p->row_blocks, sizeof *rb), *cb = calloc((size_t)p->col_blocks, sizeof *cb);
    int first = 0, last = 0;
    int64_t fi = jv_sample_view_index(&v, 0, 0), li = jv_sample_view_index(&v, v.rows - 1, v.cols - 1);
    for (int64_t i = 0; i < p->n; i++) {
        int64_t r, c;
        jv_sample_view_rowcol(&v, idx[i], &r, &c);
        blk[(r / p->block_rows) * p->col_blocks + c / p->block_cols]++;
        rb[r / p->block_rows]++;
        cb[c / p->block_cols]++;
        rowc[r]++;
        colc[c]++;
        first |= idx[i] == fi;
        last |= idx[i] == li;
    }
    ok &= first && last;
    ok &= p->row_blocks == (v.rows + p->block_rows - 1) / p->block_rows;
    ok &= p->col_blocks == (v.cols + p->block_cols - 1) / p->block_cols;
    for (int64_t b = 0; b < p->row_blocks; b++)
        ok &= rb[b] >= 1; /* every row block */
    for (int64_t b = 0; b < p->col_blocks; b++)
        ok &= cb[b] >= 1; /* every column block */
    if (p->all_blocks)
        for (int64_t b = 0; b < p->row_blocks * p->col_blocks; b++)
            ok &= blk[b] >= 1; /* every block */
    int64_t fullr = 0, fullc = 0;
    for (int64_t r = 0; r < v.rows; r++)
        fullr += rowc[r] == v.cols;
    for (int64_t c = 0; c < v.cols; c++)
        fullc += colc[c] == v.rows;
    ok &= p->full_rows == fr_want && p->full_cols == fc_want && fullr >= fr_want && fullc >= fc_want;
    free(blk);
    free(rowc);
    free(colc);
    free(rb);
    free(cb);
    return ok;
}

static void test_plans(void) {
    jv_err err;
    jv_err_clear(&err);
    int64_t *idx = NULL, *idx2 = NULL;
    jv_sample_plan p, p2;

    /* test_faults' GEMM output: 512 x 1024, 4096 over 16 x 32 blocks of 32 x 32 (8 each), 2 rows, 2 columns */
    int64_t sg[] = {512, 1024};
    jv_tensor t = mk(2, sg, NULL);
    CHECK(jv_sample_plan_make(&t, 4096, 2, 2, 7, &idx, &p, &err) == JV_OK);
    CHECK(p.block_rows == 32 && p.block_cols == 32 && p.row_blocks == 16 && p.col_blocks == 32 && p.all_blocks &&
          p.per_block == 8 && !p.whole);
    CHECK(p.n >= 4096 + 2 * 1024 + 2 * 512 - 200 &&
          p.n <= 4096 + 2 + 2 * 1024 + 2 * 512); /* lines and blocks overlap */
    CHECK(plan_ok(&t, &p, idx, 2, 2));
    /* deterministic for a seed, another for another */
    CHECK(jv_sample_plan_make(&t, 4096, 2, 2, 7, &idx2, &p2, &err) == JV_OK);
    CHECK(p2.n == p.n && !memcmp(idx, idx2, (size_t)p.n * sizeof *idx));
    free(idx2);
    CHECK(jv_sample_plan_make(&t, 4096, 2, 2, 8, &idx2, &p2, &err) == JV_OK);
    CHECK(p2.n != p.n || memcmp(idx, idx2, (size_t)p.n * sizeof *idx) != 0);
    free(idx2);
    free(idx);

    /* more blocks of 32 than the budget: sides grow (to 256 at most) until every block fits */
    int64_t sb[] = {4096, 4096};
    t = mk(2, sb, NULL);
    CHECK(jv_sample_plan_make(&t, 4096, 0, 0, 1, &idx, &p, &err) == JV_OK);
    CHECK(p.all_blocks && p.block_rows * p.block_cols <= 4096 * 4096 / 1024 && p.row_blocks * p.col_blocks <= 4096);
    CHECK(plan_ok(&t, &p, idx, 0, 0));
    free(idx);
    /* a budget under the blocks of 256: Latin-square diagonals, every row block and every column block */
    CHECK(jv_sample_plan_make(&t, 100, 1, 1, 1, &idx, &p, &err) == JV_OK);
    CHECK(!p.all_blocks && p.block_rows == 256 && p.block_cols == 256 && p.row_blocks == 16 && p.col_blocks == 16);
    CHECK(plan_ok(&t, &p, idx, 1, 1));
    free(idx);
    int64_t sr[] = {3000, 40}; /* more row blocks than column blocks, the budget under the row blocks of 256 */
    t = mk(2, sr, NULL);
    for (int64_t b = 5; b <= 40; b += 7) {
        CHECK(jv_sample_plan_make(&t, b, 0, 1, 3, &idx, &p, &err) == JV_OK);
        CHECK_MSG(plan_ok(&t, &p, idx, 0, 1), "3000 x 40, budget %lld: blocks %lld x %lld, grid %lld x %lld",
                  (long long)b, (long long)p.block_rows, (long long)p.block_cols, (long long)p.row_blocks,
                  (long long)p.col_blocks);
        free(idx);
    }
    int64_t sc[] = {600, 3000}; /* more column blocks: 3 x 12 of 256, budget 20 */
    t = mk(2, sc, NULL);
    CHECK(jv_sample_plan_make(&t, 20, 1, 0, 3, &idx, &p, &err) == JV_OK && !p.all_blocks && plan_ok(&t, &p, idx, 1, 0));
    free(idx);
    /* a channels_last convolution output [8, 64, 56, 56]: blocks over (N*H*W) x C */
    int64_t sn[] = {8, 64, 56, 56}, stn[] = {64 * 56 * 56, 1, 56 * 64, 64};
    t = mk(4, sn, stn);
    CHECK(jv_sample_plan_make(&t, 4096, 2, 2, 11, &idx, &p, &err) == JV_OK);
    CHECK(p.rows == 8 * 56 * 56 && p.cols == 64 && p.all_blocks && plan_ok(&t, &p, idx, 2, 2));
    free(idx);
    /* a 1-d output, an odd 3-d one */
    int64_t s1[] = {1000003};
    t = mk(1, s1, NULL);
    CHECK(jv_sample_plan_make(&t, 256, 0, 2, 5, &idx, &p, &err) == JV_OK && p.rows == 1 && plan_ok(&t, &p, idx, 0, 2));
    free(idx);
    int64_t s3[] = {7, 33, 65};
    t = mk(3, s3, NULL);
    CHECK(jv_sample_plan_make(&t, 300, 1, 1, 5, &idx, &p, &err) == JV_OK && plan_ok(&t, &p, idx, 1, 1));
    free(idx);
    /* the budget with the first and last element covers the output: every element */
    int64_t ss[] = {16, 4};
    t = mk(2, ss, NULL);
    CHECK(jv_sample_plan_make(&t, 62, 0, 0, 5, &idx, &p, &err) == JV_OK && p.whole && p.n == 64 && idx[63] == 63);
    free(idx);
    /* usage */
    CHECK(jv_sample_plan_make(&t, 0, 0, 0, 5, &idx, &p, &err) == JV_ERR_USAGE && !idx);
    int64_t s0[] = {0, 4};
    t = mk(2, s0, NULL);
    CHECK(jv_sample_plan_make(&t, 10, 0, 0, 5, &idx, &p, &err) == JV_ERR_USAGE && !idx);
}

/* 1 when the sorted idx holds logical index x */
static int holds(const int64_t *idx, int64_t n, int64_t x) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t m = (lo + hi) / 2;
        if (idx[m] < x)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < n && idx[lo] == x;
}

/* over many seeds: how often the middle element, and an 8x8 tile at the middle, of test_faults' 512 x 1024 output
 * are sampled, without lines, against 1 - exp(-k s / N) */
static void test_rates(void) {
    int64_t sg[] = {512, 1024};
    jv_tensor t = mk(2, sg, NULL);
    const int seeds = 3000;
    const int64_t s = 4096, n = 512 * 1024, mid = n / 2;
    int one = 0, tile = 0;
    jv_err err;
    jv_err_clear(&err);
    for (int k = 0; k < seeds; k++) {
        int64_t *idx = NULL;
        jv_sample_plan p;
        if (jv_sample_plan_make(&t, s, 0, 0, 1000 + (uint64_t)k, &idx, &p, &err) != JV_OK) break;
        one += holds(idx, p.n, mid);
        int hit = 0;
        for (int64_t r = 252; r < 260 && !hit; r++)
            for (int64_t c = 508; c < 516 && !hit; c++)
                hit = holds(idx, p.n, r * 1024 + c);
        tile += hit;
        free(idx);
    }
    double b1 = 1 - exp(-1.0 * (double)s / (double)n), b64 = 1 - exp(-64.0 * (double)s / (double)n);
    double r1 = (double)one / seeds, r64 = (double)tile / seeds;
    printf("sampled over %d seeds: one element %.4f (bound %.4f), an 8x8 tile %.4f (bound %.4f)\n", seeds, r1, b1, r64,
           b64);
    /* three standard deviations of the count under the bound */
    CHECK(one >= seeds * b1 - 3 * sqrt(seeds * b1 * (1 - b1)));
    CHECK(tile >= seeds * b64 - 3 * sqrt(seeds * b64 * (1 - b64)));
}

int main(void) {
    test_view();
    test_plans();
    test_rates();
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

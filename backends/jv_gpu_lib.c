/* jv_gpu_lib: a parsed call as the GPU vendor libraries see it (see jv_gpu_lib.h). */
#include "jv_gpu_lib.h"

#include <limits.h>
#include <string.h>

#include "gemm/gemm.h"

/* one operand as a row-major matrix of one batch entry */
typedef struct {
    int64_t rows, cols;
    int64_t sr, sc; /* strides (elements) */
    int64_t sb;     /* batch stride (0: shared by every batch entry) */
} mat_view;

/* Collapses dims [lo, hi] of t into one of *size with stride *stride (dims of size 1 ignored); 0 when their
 * strides do not nest. */
static int collapse(const jv_tensor *t, int lo, int hi, int64_t *size, int64_t *stride) {
    int64_t sz = 1, st = 0;
    int have = 0;
    for (int i = hi; i >= lo; i--) {
        if (t->shape[i] == 1) continue;
        if (!have) {
            st = t->strides[i];
            have = 1;
        } else if (t->strides[i] != st * sz) {
            return 0;
        }
        sz *= t->shape[i];
    }
    *size = sz;
    *stride = have ? st : 0;
    return 1;
}

/* the matrix view of t: its last two dims, leading dims one batch (fold: folded into the rows instead) */
static int view_of(const jv_tensor *t, int fold, mat_view *v) {
    if (t->ndim < 2) return 0;
    int nd = t->ndim;
    v->cols = t->shape[nd - 1];
    v->sc = t->strides[nd - 1];
    v->sb = 0;
    if (fold) return collapse(t, 0, nd - 2, &v->rows, &v->sr);
    v->rows = t->shape[nd - 2];
    v->sr = t->strides[nd - 2];
    if (nd > 2) {
        int64_t bs;
        if (!collapse(t, 0, nd - 3, &bs, &v->sb)) return 0;
    }
    return 1;
}

/* the column-major storage of X^T for the row-major matrix X of v, and whether the library must transpose it */
static int layout_of(const mat_view *v, jv_gpu_blas_mat *l) {
    int64_t r = v->rows, c = v->cols;
    if (c == 1 || v->sc == 1) { /* row-major X: stored as the c x r column-major X^T */
        int64_t ld = r == 1 ? (c > 0 ? c : 1) : v->sr;
        if (ld >= c && ld > 0) {
            l->rows = (uint64_t)c, l->cols = (uint64_t)r, l->ld = ld, l->trans = 0;
            return 1;
        }
    }
    if (r == 1 || v->sr == 1) { /* column-major X: stored as X, transposed by the library */
        int64_t ld = c == 1 ? (r > 0 ? r : 1) : v->sc;
        if (ld >= r && ld > 0) {
            l->rows = (uint64_t)r, l->cols = (uint64_t)c, l->ld = ld, l->trans = 1;
            return 1;
        }
    }
    return 0;
}

static int dt_ok(jv_dtype d) {
    return d == JV_DT_F32 || d == JV_DT_F16 || d == JV_DT_BF16 || d == JV_DT_F64;
}

/* (contract in jv_gpu_lib.h) */
jv_status jv_gpu_gemm_map_of(const char *backend, const char *lib, const jv_desc *d, const jv_operands *ops,
                             jv_gpu_gemm_map *p, jv_err *err) {
    const jv_gemm_desc *g = jv_gemm_of(d);
    memset(p, 0, sizeof *p);
    jv_gemm_roles ro;
    jv_err re = {0};
    if (jv_gemm_roles_of(d, ops, &ro, &re) != JV_OK) JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s", backend, re.msg);
    const char *name = ro.name;
    p->name = name;
    p->ia = ro.a, p->ib = ro.b, p->io = ro.out, p->ic = ro.c;
    const jv_tensor *ta = &ops->o[ro.a].t, *tb = &ops->o[ro.b].t, *to = &ops->o[ro.out].t;
    if (!dt_ok(ta->dtype) || !dt_ok(to->dtype) || ta->dtype != tb->dtype)
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: no %s GEMM for dtypes %s x %s -> %s", backend, name, lib,
                jv_dtype_short(ta->dtype), jv_dtype_short(tb->dtype), jv_dtype_short(to->dtype));
    p->in_dt = ta->dtype, p->out_dt = to->dtype;
    p->f64 = ta->dtype == JV_DT_F64;
    if (p->f64 != (to->dtype == JV_DT_F64) || (ta->dtype == JV_DT_F32 && to->dtype != JV_DT_F32))
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: no %s GEMM for %s inputs with a %s output", backend, name, lib,
                jv_dtype_short(ta->dtype), jv_dtype_short(to->dtype));
    /* matrix views: a linear (or a matmul with a 2-D right operand) folds A's leading dims into M */
    int fold = (g->op == JV_GEMM_LINEAR || g->op == JV_GEMM_MATMUL) && tb->ndim == 2;
    if (ta->ndim < 2 || tb->ndim < 2)
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: 1-D operands are not run on %s", backend, name, lib);
    if (g->op == JV_GEMM_MATMUL && !fold) {
        int same = ta->ndim == tb->ndim;
        for (int i = 0; same && i < ta->ndim - 2; i++)
            same = ta->shape[i] == tb->shape[i];
        if (!same)
            JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: broadcast batch dims are not run on %s", backend, name, lib);
    }
    mat_view va, vb, vo;
    jv_tensor wt; /* linear: B = weight^T */
    const jv_tensor *tbv = tb;
    if (g->op == JV_GEMM_LINEAR) {
        wt = *tb;
        wt.shape[0] = tb->shape[1], wt.shape[1] = tb->shape[0];
        wt.strides[0] = tb->strides[1], wt.strides[1] = tb->strides[0];
        tbv = &wt;
    }
    if (!view_of(ta, fold, &va) || !view_of(tbv, 0, &vb) || !view_of(to, fold, &vo))
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: operand strides do not collapse into a (batched) matrix",
                backend, name);
    int64_t m = va.rows, k = va.cols, n = vb.cols;
    int64_t batch = fold ? 1 : (g->batch > 0 ? g->batch : 1);
    if (vb.rows != k || vo.rows != m || vo.cols != n)
        JV_FAIL(err, JV_ERR_NOTFOUND,
                "%s backend: %s: shapes [%lld, %lld] x [%lld, %lld] -> [%lld, %lld] do not multiply", backend, name,
                (long long)m, (long long)k, (long long)vb.rows, (long long)n, (long long)vo.rows, (long long)vo.cols);
    if (vo.sc != 1 && n > 1)
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: the output is not row-major", backend, name);
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || batch > INT32_MAX)
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: a dim exceeds 2^31", backend, name);
    if (m == 0 || n == 0 || k == 0)
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: an empty GEMM (M %lld N %lld K %lld)", backend, name,
                (long long)m, (long long)n, (long long)k);
    /* the library's A is our B (B^T: N x K), its B our A (A^T: K x M), C / D out^T (N x M) */
    if (!layout_of(&vb, &p->a) || !layout_of(&va, &p->b) || !layout_of(&vo, &p->c) || p->c.trans)
        JV_FAIL(err, JV_ERR_NOTFOUND,
                "%s backend: %s: operand strides (A %lld,%lld; B %lld,%lld) are neither row- nor column-major", backend,
                name, (long long)va.sr, (long long)va.sc, (long long)vb.sr, (long long)vb.sc);
    p->a.bstride = vb.sb, p->b.bstride = va.sb, p->c.bstride = vo.sb;
    if (batch > 1 && vo.sb < m * p->c.ld)
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: output batches overlap", backend, name);
    p->alpha = g->alpha, p->beta = g->beta;
    if (g->op == JV_GEMM_LINEAR || g->op == JV_GEMM_MM || g->op == JV_GEMM_BMM || g->op == JV_GEMM_MATMUL)
        p->alpha = 1, p->beta = p->ic >= 0 ? 1 : 0;
    p->batch = batch, p->m = m, p->n = n, p->k = k;
    p->out_rs = p->c.ld, p->out_bs = batch > 1 ? vo.sb : m * p->c.ld;
    p->es = jv_dtype_size(to->dtype);
    return JV_OK;
}

/* (contract in jv_gpu_lib.h) */
jv_status jv_gpu_gemm_bias(const char *backend, jv_gpu_gemm_map *p, const jv_operands *ops, int epilogue_ok,
                           jv_err *err) {
    p->bias = JV_GPU_BIAS_NONE;
    if (p->ic < 0 || p->beta == 0) return JV_OK;
    const jv_tensor *b = &ops->o[p->ic].t, *o = &ops->o[p->io].t;
    if (b->dtype != o->dtype)
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: bias dtype %s differs from the output's %s", backend, p->name,
                jv_dtype_short(b->dtype), jv_dtype_short(o->dtype));
    if (b->ndim > 3)
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: a bias of %d dims is not supported", backend, p->name, b->ndim);
    /* strides over [batch, M, N], right-aligned; size-1 (broadcast) dims get 0 */
    int64_t want[3] = {p->batch, p->m, p->n};
    for (int k = 0; k < 3; k++) {
        int i = b->ndim - 3 + k;
        p->bias_st[k] = 0;
        if (i < 0) continue;
        if (b->shape[i] != 1 && b->shape[i] != want[k])
            JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: bias shape does not broadcast to the output", backend,
                    p->name);
        if (b->shape[i] != 1) p->bias_st[k] = b->strides[i];
    }
    if (p->n > 1 && p->bias_st[2] != 1 && p->bias_st[2] != 0)
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: a bias strided in N is not supported (stride %lld)", backend,
                p->name, (long long)p->bias_st[2]);
    if (p->bias_st[1] != 0 && p->bias_st[2] != 0 && p->bias_st[1] < p->n)
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: the bias rows overlap (row stride %lld < N %lld)", backend,
                p->name, (long long)p->bias_st[1], (long long)p->n);
    if (epilogue_ok && p->beta == 1 && p->bias_st[0] == 0 && p->bias_st[1] == 0 && p->bias_st[2] == 1 && !p->f64 &&
        p->batch == 1) {
        p->bias = JV_GPU_BIAS_EPILOGUE;
        p->beta = 0;
    } else {
        p->bias = JV_GPU_BIAS_COPY;
    }
    return JV_OK;
}

/* Copies rows [0, have) of a matrix (rows of `row` bytes, `pitch` bytes apart) over its rows [have, total),
 * doubling the copied block each time. */
static jv_status repeat_rows(jv_gpu_copy2d_fn copy2d, void *ctx, char *m, size_t pitch, size_t row, size_t have,
                             size_t total, jv_err *err) {
    while (have < total) {
        size_t n = have < total - have ? have : total - have;
        JV_CHECK(copy2d(ctx, m + have * pitch, pitch, m, pitch, row, n, err));
        have += n;
    }
    return JV_OK;
}

/* (contract in jv_gpu_lib.h) */
jv_status jv_gpu_gemm_bias_copy(const jv_gpu_gemm_map *p, const char *bias, char *out, jv_gpu_copy2d_fn copy2d,
                                void *ctx, jv_err *err) {
    const size_t es = p->es, row = (size_t)p->n * es, pitch = (size_t)p->out_rs * es, bpitch = (size_t)p->out_bs * es;
    const int64_t *st = p->bias_st;
    /* whole batches are rows of one matrix when they follow each other without a gap */
    const int flat = p->out_bs == p->m * p->out_rs;
    const int64_t nb = st[0] ? p->batch : 1; /* batch entries the bias distinguishes */
    for (int64_t b = 0; b < nb; b++) {
        char *ob = out + (size_t)b * bpitch;
        const char *bb = bias + (size_t)(b * st[0]) * es;
        if (st[1] && !st[2]) { /* one value per output row ([M, 1]): column 0, then doubled along N */
            JV_CHECK(copy2d(ctx, ob, pitch, bb, (size_t)st[1] * es, es, (size_t)p->m, err));
            for (size_t have = es; have < row;) {
                size_t n = have < row - have ? have : row - have;
                JV_CHECK(copy2d(ctx, ob + have, pitch, ob, pitch, n, (size_t)p->m, err));
                have += n;
            }
            continue;
        }
        if (st[1]) { /* one bias row per output row */
            JV_CHECK(copy2d(ctx, ob, pitch, bb, (size_t)st[1] * es, row, (size_t)p->m, err));
            continue;
        }
        if (st[2]) { /* one row, repeated over the M rows */
            JV_CHECK(copy2d(ctx, ob, row, bb, row, row, 1, err));
        } else { /* one value: the first row by doubling */
            JV_CHECK(copy2d(ctx, ob, es, bb, es, es, 1, err));
            for (size_t have = es; have < row;) {
                size_t n = have < row - have ? have : row - have;
                JV_CHECK(copy2d(ctx, ob + have, n, ob, n, n, 1, err));
                have += n;
            }
        }
        /* the first row over this batch's rows, or over every batch's rows when they are flat and shared */
        size_t rows = (size_t)p->m * (nb == 1 && flat ? (size_t)p->batch : 1);
        JV_CHECK(repeat_rows(copy2d, ctx, ob, pitch, row, 1, rows, err));
    }
    if (nb == 1 && p->batch > 1 && !(flat && !st[1])) /* batch 0 over the others, one matrix at a time */
        for (int64_t b = 1; b < p->batch; b++)
            JV_CHECK(copy2d(ctx, out + (size_t)b * bpitch, pitch, out, pitch, row, (size_t)p->m, err));
    return JV_OK;
}

/* (contract in jv_gpu_lib.h) */
int jv_gpu_dnn_dims(const jv_tensor *t, int channels_last, int *dims, int *strides) {
    if (t->ndim < 1 || t->ndim > JV_MAX_DIMS) return 0;
    jv_tensor p = *t;
    if (!p.has_strides) jv_tensor_set_contiguous(&p);
    while (p.ndim < 4) {
        p.shape[p.ndim] = 1;
        p.strides[p.ndim] = 1;
        p.ndim++;
    }
    int64_t st[JV_MAX_DIMS];
    jv_tensor_cudnn_strides(&p, channels_last, st);
    for (int i = 0; i < p.ndim; i++) {
        if (p.shape[i] < 0 || p.shape[i] > INT_MAX || st[i] > INT_MAX) return 0;
        if (p.shape[i] > 1 && st[i] <= 0) return 0;
        dims[i] = (int)p.shape[i];
        strides[i] = (int)(st[i] > 0 ? st[i] : 1);
    }
    return p.ndim;
}

/* (contract in jv_gpu_lib.h) */
int jv_gpu_dense_in(const jv_tensor *t, int cl) {
    int nd = t->ndim, order[JV_MAX_DIMS], k = 0;
    order[k++] = 0;
    if (cl) {
        for (int i = 2; i < nd; i++)
            order[k++] = i;
        order[k++] = 1;
    } else {
        for (int i = 1; i < nd; i++)
            order[k++] = i;
    }
    int64_t want = 1;
    for (int j = nd - 1; j >= 0; j--) {
        int i = order[j];
        if (t->shape[i] != 1 && t->strides[i] != want) return 0;
        want *= t->shape[i];
    }
    return 1;
}

/* test_hip_vendor: the HIP backend's vendor-library call building
 * (backends/hip/jv_hip_vendor.c) against fake hipBLASLt, rocBLAS and MIOpen
 * tables whose functions run on host memory. Each fake interprets what it is
 * handed the way the library documents it (hipBLASLt: column-major layouts,
 * TRANSA / TRANSB, ld, strided batch offsets, the bias epilogue of D's rows,
 * alpha / beta as float; rocBLAS: gemm_strided_batched_ex's m, n, k, ld and
 * strides; MIOpen: tensor dims and strides, the convolution's pads, strides,
 * dilations, groups and mode, immediate-mode solutions and their workspace,
 * ForwardBias as OpTensor(Add, alpha, y, alpha, b, beta, y), batch norm with
 * the documented statistics) and computes a naive result, refusing what the
 * library would refuse (mismatched dims, an uncompiled solution, a short
 * workspace, a 2-D copy whose pitch is below its width). Every case's outputs
 * are compared with the family's CPU reference (jv_desc_reference, through
 * tests/jv_test_cpu.h): GEMM (mm, addmm with bias, bmm, baddbmm, linear,
 * transposed views, fp32 / fp16 / bf16, on hipBLASLt and on rocBLAS alone),
 * convolution (NCHW and channels_last, stride, pad, dilation, groups,
 * depthwise, 1-D / 3-D, transposed, forward, backward data / weights / bias),
 * the 1x1 convolution as GEMMs, batch norm (training and eval forward,
 * training backward with masked grads). Wrong mappings must fail: the fake
 * flipping the TRANSA it is given, ignoring the dilation, dropping the strides
 * (so channels_last reads as NCHW), each makes the comparison fail. Last, the
 * real loader on this machine (no ROCm libraries): a start-up line naming what
 * was tried, and each family refused with "not replayed" and its reason. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_check.h"
#include "jv_hip_vendor.h"
#include "jv_test_calls.h"
#include "jv_test_cpu.h"

/* ---- the fakes' state (per test program) ---- */

static struct {
    int flip_transa;     /* hipBLASLt: record TRANSA inverted (a swapped transpose in the mapping) */
    int ignore_dilation; /* MIOpen: take every dilation as 1 */
    int drop_strides;    /* MIOpen: describe every tensor as contiguous (the strides lost) */
    int lt_version;      /* what hipblasLtGetVersion says (0: 1000, i.e. 0.10.0) */
    int lt_calls, rb_calls, mi_calls, copies;
    /* gemm-algo best: the heuristic offers lt_algos candidates (0: one), candidate i costing lt_cost[i] ms of the
     * simulated device clock the fake events read; lt_refuse = i + 1: candidate i does not launch (-1: none
     * does); lt_big_ws = i + 1: candidate i wants more workspace than there is */
    int lt_algos, lt_refuse, lt_big_ws;
    double lt_cost[JV_GPU_GEMM_CANDIDATES];
    int lt_runs[JV_GPU_GEMM_CANDIDATES], lt_last; /* launches per candidate; the last one launched */
    double clock_ms, t0_ms;                       /* the simulated device clock; the start event's reading */
} F;

static int STREAM_TOKEN;
#define FAKE_STREAM ((void *)&STREAM_TOKEN)
#define FAKE_WS     ((size_t)1 << 20)

static jv_dtype dt_hip(int t) {
    return t == JV_HIP_R_32F ? JV_DT_F32 : t == JV_HIP_R_16F ? JV_DT_F16 : t == JV_HIP_R_16BF ? JV_DT_BF16 : JV_DT_F64;
}
static jv_dtype dt_rb(int t) {
    return t == JV_ROCBLAS_F32_R    ? JV_DT_F32
           : t == JV_ROCBLAS_F16_R  ? JV_DT_F16
           : t == JV_ROCBLAS_BF16_R ? JV_DT_BF16
                                    : JV_DT_F64;
}
static jv_dtype dt_mi(int t) {
    return t == JV_MIOPEN_FLOAT      ? JV_DT_F32
           : t == JV_MIOPEN_HALF     ? JV_DT_F16
           : t == JV_MIOPEN_BFLOAT16 ? JV_DT_BF16
                                     : JV_DT_F64;
}

/* column-major D = alpha op(A) op(B) + beta C (+ bias[i] per row of D), batched with element strides */
static void naive_gemm(int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha, const void *A, jv_dtype at,
                       int64_t lda, int64_t sa, const void *B, jv_dtype bt, int64_t ldb, int64_t sb, double beta,
                       const void *C, jv_dtype ct, int64_t ldc, int64_t sc, void *D, jv_dtype dt, int64_t ldd,
                       int64_t sd, int64_t batch, const void *bias, jv_dtype biast) {
    for (int64_t b = 0; b < batch; b++)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                double acc = 0;
                for (int64_t l = 0; l < k; l++) {
                    double a = jv_dtype_load(at, A, b * sa + (ta ? l + i * lda : i + l * lda));
                    double x = jv_dtype_load(bt, B, b * sb + (tb ? j + l * ldb : l + j * ldb));
                    acc += a * x;
                }
                double v = alpha * acc;
                if (beta != 0) v += beta * jv_dtype_load(ct, C, b * sc + i + j * ldc);
                if (bias) v += jv_dtype_load(biast, bias, i);
                jv_dtype_store(dt, D, b * sd + i + j * ldd, v);
            }
}

/* ---- fake hipBLASLt ---- */

typedef struct {
    int compute, scale, transa, transb, epilogue, bias_type;
    const void *bias;
} f_desc;
typedef struct {
    int type;
    uint64_t rows, cols;
    int64_t ld, bstride;
    int32_t batch;
} f_layout;
typedef struct {
    uint64_t max_ws;
} f_pref;

static int lt_create(void **h) {
    *h = FAKE_STREAM; /* any non-NULL handle */
    return 0;
}
static int lt_destroy(void *h) {
    return h == FAKE_STREAM ? 0 : 9;
}
static int lt_version(void *h, int *v) {
    (void)h;
    *v = F.lt_version ? F.lt_version : 1000; /* 0.10.0 */
    return 0;
}
static int lt_desc_create(void **d, int compute, int scale) {
    f_desc *x = calloc(1, sizeof *x);
    if (!x) return 2;
    x->compute = compute, x->scale = scale, x->transa = x->transb = JV_HIPBLAS_OP_N;
    x->epilogue = JV_HIPBLASLT_EPILOGUE_DEFAULT, x->bias_type = -1;
    *d = x;
    return 0;
}
static int lt_desc_destroy(void *d) {
    free(d);
    return 0;
}
static int lt_desc_set(void *d, int attr, const void *buf, size_t bytes) {
    f_desc *x = d;
    int32_t i32 = 0;
    if (bytes == 4) memcpy(&i32, buf, 4);
    switch (attr) {
    case JV_HIPBLASLT_MATMUL_DESC_TRANSA:
        if (bytes != 4) return 3;
        x->transa = F.flip_transa ? (i32 == JV_HIPBLAS_OP_N ? JV_HIPBLAS_OP_T : JV_HIPBLAS_OP_N) : i32;
        return 0;
    case JV_HIPBLASLT_MATMUL_DESC_TRANSB:
        if (bytes != 4) return 3;
        x->transb = i32;
        return 0;
    case JV_HIPBLASLT_MATMUL_DESC_EPILOGUE:
        if (bytes != 4) return 3;
        x->epilogue = i32;
        return 0;
    case JV_HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
        if (bytes != 4) return 3;
        x->bias_type = i32;
        return 0;
    case JV_HIPBLASLT_MATMUL_DESC_BIAS_POINTER:
        if (bytes != sizeof(void *)) return 3;
        memcpy(&x->bias, buf, sizeof x->bias);
        return 0;
    default: return 3;
    }
}
static int lt_layout_create(void **l, int type, uint64_t rows, uint64_t cols, int64_t ld) {
    if (ld < (int64_t)rows) return 3; /* column-major: ld >= rows */
    f_layout *x = calloc(1, sizeof *x);
    if (!x) return 2;
    x->type = type, x->rows = rows, x->cols = cols, x->ld = ld, x->batch = 1;
    *l = x;
    return 0;
}
static int lt_layout_destroy(void *l) {
    free(l);
    return 0;
}
static int lt_layout_set(void *l, int attr, const void *buf, size_t bytes) {
    f_layout *x = l;
    if (attr == JV_HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT && bytes == 4) return memcpy(&x->batch, buf, 4), 0;
    if (attr == JV_HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET && bytes == 8) return memcpy(&x->bstride, buf, 8), 0;
    return 3;
}
static int lt_pref_create(void **p) {
    *p = calloc(1, sizeof(f_pref));
    return *p ? 0 : 2;
}
static int lt_pref_destroy(void *p) {
    free(p);
    return 0;
}
static int lt_pref_set(void *p, int attr, const void *buf, size_t bytes) {
    if (attr != JV_HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES || bytes != 8) return 3;
    memcpy(&((f_pref *)p)->max_ws, buf, 8);
    return 0;
}
/* the op(X) dims of a layout */
static void op_dims(const f_layout *l, int op, uint64_t *r, uint64_t *c) {
    *r = op == JV_HIPBLAS_OP_T ? l->cols : l->rows;
    *c = op == JV_HIPBLAS_OP_T ? l->rows : l->cols;
}
/* 0 when the descriptors make a valid problem: op(A) m x k, op(B) k x n, C = D m x n, one batch count */
static int lt_check(const f_desc *d, const f_layout *a, const f_layout *b, const f_layout *c, const f_layout *dd) {
    uint64_t ar, ac, br, bc;
    op_dims(a, d->transa, &ar, &ac);
    op_dims(b, d->transb, &br, &bc);
    if (d->compute != JV_HIPBLAS_COMPUTE_32F || d->scale != JV_HIP_R_32F) return 7;
    if (a->type != b->type || c->type != dd->type || a->type == JV_HIP_R_64F) return 7;
    if (ar != dd->rows || ac != br || bc != dd->cols || c->rows != dd->rows || c->cols != dd->cols) return 3;
    if (a->batch != dd->batch || b->batch != dd->batch || c->batch != dd->batch) return 3;
    if (d->epilogue == JV_HIPBLASLT_EPILOGUE_BIAS && d->bias_type != dd->type) return 3;
    return 0;
}
static int lt_heuristic(void *h, void *desc, void *a, void *b, void *c, void *d, void *pref, int req,
                        jv_hipblaslt_heuristic *res, int *ret) {
    (void)h;
    *ret = 0;
    if (req < 1) return 3;
    int s = lt_check(desc, a, b, c, d);
    if (s) return s;
    int n = F.lt_algos > 0 ? (F.lt_algos < req ? F.lt_algos : req) : 1;
    memset(res, 0, sizeof *res * (size_t)n);
    size_t need = ((f_pref *)pref)->max_ws < 4096 ? 0 : 4096; /* asks for the workspace when allowed */
    for (int i = 0; i < n; i++) {
        size_t w = F.lt_big_ws == i + 1 ? ((f_pref *)pref)->max_ws + 1 : need;
        int32_t idx = i;
        memcpy(res[i].algo.data, &w, sizeof w);
        memcpy(res[i].algo.data + 8, &idx, sizeof idx); /* which candidate: the matmul reads it back */
        res[i].workspace_size = w;
    }
    *ret = n;
    return 0;
}
static int lt_matmul(void *h, void *desc, const void *alpha, const void *A, void *al, const void *B, void *bl,
                     const void *beta, const void *C, void *cl, void *D, void *dl, const jv_hipblaslt_algo *algo,
                     void *ws, size_t ws_bytes, void *stream) {
    (void)h;
    F.lt_calls++;
    const f_desc *d = desc;
    const f_layout *a = al, *b = bl, *c = cl, *dd = dl;
    int s = lt_check(d, a, b, c, dd);
    if (s) return s;
    size_t need;
    int32_t idx;
    memcpy(&need, algo->data, sizeof need);
    memcpy(&idx, algo->data + 8, sizeof idx);
    if (idx < 0 || idx >= JV_GPU_GEMM_CANDIDATES || (F.lt_algos == 0 && idx != 0)) return 3;
    F.lt_runs[idx]++;
    if (F.lt_refuse == idx + 1 || F.lt_refuse < 0) return 7; /* HIPBLAS_STATUS_NOT_SUPPORTED: this one does not run */
    F.lt_last = idx;
    F.clock_ms += F.lt_cost[idx];
    if (stream != FAKE_STREAM || ws_bytes < need || (need && !ws)) return 3;
    if (d->epilogue == JV_HIPBLASLT_EPILOGUE_BIAS && !d->bias) return 3;
    float af, bf;
    memcpy(&af, alpha, 4);
    memcpy(&bf, beta, 4);
    uint64_t ar, ac;
    op_dims(a, d->transa, &ar, &ac);
    naive_gemm(d->transa == JV_HIPBLAS_OP_T, d->transb == JV_HIPBLAS_OP_T, (int64_t)dd->rows, (int64_t)dd->cols,
               (int64_t)ac, af, A, dt_hip(a->type), a->ld, a->bstride, B, dt_hip(b->type), b->ld, b->bstride, bf, C,
               dt_hip(c->type), c->ld, c->bstride, D, dt_hip(dd->type), dd->ld, dd->bstride, dd->batch,
               d->epilogue == JV_HIPBLASLT_EPILOGUE_BIAS ? d->bias : NULL, dt_hip(d->bias_type));
    return 0;
}

/* ---- fake rocBLAS ---- */

static int rb_create(void **h) {
    *h = FAKE_STREAM;
    return 0;
}
static int rb_destroy(void *h) {
    return h == FAKE_STREAM ? 0 : 1;
}
static int rb_set_stream(void *h, void *s) {
    (void)h;
    return s == FAKE_STREAM ? 0 : 1;
}
static int rb_version(char *buf, size_t cap) {
    snprintf(buf, cap, "4.4.0-fake");
    return 0;
}
static int rb_gemm(void *h, int ta, int tb, int32_t m, int32_t n, int32_t k, const void *alpha, const void *a, int at,
                   int32_t lda, int64_t sa, const void *b, int bt, int32_t ldb, int64_t sb, const void *beta,
                   const void *c, int ct, int32_t ldc, int64_t sc, void *d, int dt, int32_t ldd, int64_t sd,
                   int32_t batch, int compute, int algo, int32_t sol, uint32_t flags) {
    (void)h, (void)sol, (void)flags;
    F.rb_calls++;
    int t_a = ta == JV_ROCBLAS_OP_TRANSPOSE, t_b = tb == JV_ROCBLAS_OP_TRANSPOSE;
    if (lda < (t_a ? k : m) || ldb < (t_b ? n : k) || ldc < m || ldd < m) return 4; /* invalid size */
    if (at != bt || ct != dt || algo != JV_ROCBLAS_GEMM_ALGO_STANDARD) return 2;
    if (compute != (at == JV_ROCBLAS_F64_R ? JV_ROCBLAS_F64_R : JV_ROCBLAS_F32_R)) return 2;
    double al, be;
    if (compute == JV_ROCBLAS_F64_R) {
        memcpy(&al, alpha, 8), memcpy(&be, beta, 8);
    } else {
        float x, y;
        memcpy(&x, alpha, 4), memcpy(&y, beta, 4);
        al = x, be = y;
    }
    naive_gemm(t_a, t_b, m, n, k, al, a, dt_rb(at), lda, sa, b, dt_rb(bt), ldb, sb, be, c, dt_rb(ct), ldc, sc, d,
               dt_rb(dt), ldd, sd, batch, NULL, JV_DT_F32);
    return 0;
}

/* ---- fake HIP runtime: copies, scratch memory, events over the simulated clock ---- */

static int rt_alloc(void *ctx, void **p, size_t bytes) {
    (void)ctx;
    *p = calloc(1, bytes);
    return *p ? 0 : 2; /* hipErrorOutOfMemory */
}
static void rt_free(void *ctx, void *p) {
    (void)ctx;
    free(p);
}
static int rt_upload(void *ctx, void *dst, const void *src, size_t bytes, void *s) {
    (void)ctx;
    if (s != FAKE_STREAM) return 1;
    memcpy(dst, src, bytes);
    return 0;
}
static int rt_zero(void *ctx, void *dst, size_t bytes, void *s) {
    (void)ctx;
    if (s != FAKE_STREAM) return 1;
    memset(dst, 0, bytes);
    return 0;
}
static int rt_timer_start(void *ctx, void *s) {
    (void)ctx;
    F.t0_ms = F.clock_ms;
    return s != FAKE_STREAM;
}
static int rt_timer_stop(void *ctx, void *s, double *ms) {
    (void)ctx;
    *ms = F.clock_ms - F.t0_ms;
    return s != FAKE_STREAM;
}
static int rt_sync(void *ctx, void *s) {
    (void)ctx;
    return s != FAKE_STREAM;
}

static int rt_copy2d(void *ctx, void *dst, size_t dp, const void *src, size_t sp, size_t w, size_t h, void *s) {
    (void)ctx;
    F.copies++;
    if (s != FAKE_STREAM || (h > 1 && (dp < w || sp < w))) return 1; /* hipErrorInvalidValue, as HIP checks */
    for (size_t i = 0; i < h; i++)
        memmove((char *)dst + i * dp, (const char *)src + i * sp, w);
    return 0;
}

/* ---- fake MIOpen ---- */

typedef struct {
    int dt, nd;
    int dims[JV_MAX_DIMS], strides[JV_MAX_DIMS];
} f_tensor;
typedef struct {
    int sp, mode, groups;
    int pad[3], str[3], dil[3];
} f_conv;

static int mi_create(void **h, void *s) {
    *h = FAKE_STREAM;
    return s == FAKE_STREAM ? 0 : 3;
}
static int mi_destroy(void *h) {
    return h == FAKE_STREAM ? 0 : 3;
}
static int mi_set_stream(void *h, void *s) {
    (void)h;
    return s == FAKE_STREAM ? 0 : 3;
}
static int mi_version(size_t *a, size_t *b, size_t *c) {
    *a = 3, *b = 4, *c = 0;
    return 0;
}
static int mi_tensor_create(void **d) {
    *d = calloc(1, sizeof(f_tensor));
    return *d ? 0 : 4;
}
static int mi_tensor_set(void *d, int dt, int nd, const int *dims, const int *strides) {
    f_tensor *t = d;
    if (nd < 1 || nd > JV_MAX_DIMS) return 3;
    t->dt = dt, t->nd = nd;
    int run = 1;
    for (int i = nd - 1; i >= 0; i--) {
        t->dims[i] = dims[i];
        t->strides[i] = F.drop_strides ? run : strides[i];
        run *= dims[i];
    }
    return 0;
}
static int mi_tensor_destroy(void *d) {
    free(d);
    return 0;
}
static int mi_conv_create(void **d) {
    *d = calloc(1, sizeof(f_conv));
    if (*d) ((f_conv *)*d)->groups = 1;
    return *d ? 0 : 4;
}
static int mi_conv_init(void *d, int sp, const int *pad, const int *str, const int *dil, int mode) {
    f_conv *c = d;
    if (sp < 1 || sp > 3) return 3;
    c->sp = sp, c->mode = mode;
    for (int i = 0; i < sp; i++)
        c->pad[i] = pad[i], c->str[i] = str[i], c->dil[i] = F.ignore_dilation ? 1 : dil[i];
    return 0;
}
static int mi_conv_groups(void *d, int g) {
    ((f_conv *)d)->groups = g;
    return g >= 1 ? 0 : 3;
}
static int mi_conv_destroy(void *d) {
    free(d);
    return 0;
}

/* the element of logical multi-index idx */
static int64_t t_off(const f_tensor *t, const int *idx) {
    int64_t o = 0;
    for (int i = 0; i < t->nd; i++)
        o += (int64_t)idx[i] * t->strides[i];
    return o;
}

/* 0 when x, w, y and c make a normal cross-correlation (the shapes MIOpen would accept) */
static int conv_check(const f_conv *c, const f_tensor *x, const f_tensor *w, const f_tensor *y) {
    if (c->mode != JV_MIOPEN_CONVOLUTION) return 6;
    if (x->nd != w->nd || x->nd != y->nd || c->sp != x->nd - 2) return 3;
    if (x->dt != w->dt || x->dt != y->dt) return 3;
    int g = c->groups;
    if (x->dims[0] != y->dims[0] || y->dims[1] != w->dims[0] || w->dims[1] * g != x->dims[1] || w->dims[0] % g)
        return 3;
    for (int i = 0; i < c->sp; i++) {
        int s = x->dims[2 + i], r = w->dims[2 + i];
        int o = (s + 2 * c->pad[i] - c->dil[i] * (r - 1) - 1) / c->str[i] + 1;
        if (o != y->dims[2 + i]) return 3;
    }
    return 0;
}

/* dir 0: y = conv(x, w); 1: x = conv^T(y, w); 2: w = grad(x, y); naive, in double */
static int naive_conv(int dir, const f_conv *c, const f_tensor *xd, void *x, const f_tensor *wd, void *w,
                      const f_tensor *yd, void *y) {
    int s = conv_check(c, xd, wd, yd);
    if (s) return s;
    const f_tensor *od = dir == 0 ? yd : dir == 1 ? xd : wd;
    void *ob = dir == 0 ? y : dir == 1 ? x : w;
    int64_t on = 1;
    for (int i = 0; i < od->nd; i++)
        on *= od->dims[i];
    double *acc = calloc((size_t)on, sizeof *acc);
    if (!acc) return 4;
    int sp = c->sp, g = c->groups, kpg = wd->dims[0] / g, cpg = wd->dims[1];
    int64_t osz = 1, rsz = 1;
    for (int i = 0; i < sp; i++)
        osz *= yd->dims[2 + i], rsz *= wd->dims[2 + i];
    jv_dtype dt = dt_mi(xd->dt);
    for (int n = 0; n < xd->dims[0]; n++)
        for (int k = 0; k < wd->dims[0]; k++)
            for (int64_t oi = 0; oi < osz; oi++) {
                int o[3], yi[JV_MAX_DIMS] = {n, k};
                for (int64_t t = oi, i = sp - 1; i >= 0; i--)
                    o[i] = (int)(t % yd->dims[2 + i]), t /= yd->dims[2 + i];
                for (int i = 0; i < sp; i++)
                    yi[2 + i] = o[i];
                double yv = dir ? jv_dtype_load(dt, y, t_off(yd, yi)) : 0;
                for (int ci = 0; ci < cpg; ci++)
                    for (int64_t ri = 0; ri < rsz; ri++) {
                        int r[3], xi[JV_MAX_DIMS] = {n, (k / kpg) * cpg + ci}, wi[JV_MAX_DIMS] = {k, ci}, in = 1;
                        for (int64_t t = ri, i = sp - 1; i >= 0; i--)
                            r[i] = (int)(t % wd->dims[2 + i]), t /= wd->dims[2 + i];
                        for (int i = 0; i < sp; i++) {
                            xi[2 + i] = o[i] * c->str[i] - c->pad[i] + r[i] * c->dil[i];
                            wi[2 + i] = r[i];
                            in &= xi[2 + i] >= 0 && xi[2 + i] < xd->dims[2 + i];
                        }
                        if (!in) continue;
                        const int *oidx = dir == 0 ? yi : dir == 1 ? xi : wi;
                        int64_t li = 0; /* logical row-major index in the output */
                        for (int i = 0; i < od->nd; i++)
                            li = li * od->dims[i] + oidx[i];
                        if (dir == 0)
                            acc[li] += jv_dtype_load(dt, x, t_off(xd, xi)) * jv_dtype_load(dt, w, t_off(wd, wi));
                        else if (dir == 1)
                            acc[li] += yv * jv_dtype_load(dt, w, t_off(wd, wi));
                        else
                            acc[li] += yv * jv_dtype_load(dt, x, t_off(xd, xi));
                    }
            }
    for (int64_t li = 0; li < on; li++) {
        int idx[JV_MAX_DIMS] = {0};
        for (int64_t t = li, i = od->nd - 1; i >= 0; i--)
            idx[i] = (int)(t % od->dims[i]), t /= od->dims[i];
        jv_dtype_store(dt, ob, t_off(od, idx), acc[li]);
    }
    free(acc);
    return 0;
}

/* two solutions per direction: the first needs more workspace than any plan offers, the second 4096 bytes */
#define SOL_ID(dir) (200u + (unsigned)(dir))
static int compiled[3];
static int get_sol(int dir, size_t max, size_t *count, jv_miopen_solution *s) {
    if (max < 2) return 3;
    memset(s, 0, 2 * sizeof *s);
    s[0].workspace_size = (size_t)1 << 40, s[0].solution_id = 100u + (unsigned)dir, s[0].algorithm = 1;
    s[1].workspace_size = 4096, s[1].solution_id = SOL_ID(dir), s[1].algorithm = 5;
    *count = 2;
    return 0;
}
static int fwd_get(void *h, void *w, void *x, void *c, void *y, size_t max, size_t *n, jv_miopen_solution *s) {
    (void)h;
    int e = conv_check(c, x, w, y);
    return e ? e : get_sol(0, max, n, s);
}
static int bwd_data_get(void *h, void *dy, void *w, void *c, void *dx, size_t max, size_t *n, jv_miopen_solution *s) {
    (void)h;
    int e = conv_check(c, dx, w, dy);
    return e ? e : get_sol(1, max, n, s);
}
static int bwd_w_get(void *h, void *dy, void *x, void *c, void *dw, size_t max, size_t *n, jv_miopen_solution *s) {
    (void)h;
    int e = conv_check(c, x, dw, dy);
    return e ? e : get_sol(2, max, n, s);
}
static int compile_dir(int dir, uint64_t id) {
    if (id != SOL_ID(dir)) return 3;
    compiled[dir] = 1;
    return 0;
}
static int fwd_compile(void *h, void *a, void *b, void *c, void *d, uint64_t id) {
    (void)h, (void)a, (void)b, (void)c, (void)d;
    return compile_dir(0, id);
}
static int bwd_data_compile(void *h, void *a, void *b, void *c, void *d, uint64_t id) {
    (void)h, (void)a, (void)b, (void)c, (void)d;
    return compile_dir(1, id);
}
static int bwd_w_compile(void *h, void *a, void *b, void *c, void *d, uint64_t id) {
    (void)h, (void)a, (void)b, (void)c, (void)d;
    return compile_dir(2, id);
}
static int imm_ok(int dir, void *ws, size_t ws_bytes, uint64_t id) {
    F.mi_calls++;
    return compiled[dir] && id == SOL_ID(dir) && ws && ws_bytes >= 4096;
}
static int fwd_imm(void *h, void *wd, const void *w, void *xd, const void *x, void *c, void *yd, void *y, void *ws,
                   size_t wsb, uint64_t id) {
    (void)h;
    if (!imm_ok(0, ws, wsb, id)) return 3;
    return naive_conv(0, c, xd, (void *)x, wd, (void *)w, yd, y);
}
static int bwd_data_imm(void *h, void *dyd, const void *dy, void *wd, const void *w, void *c, void *dxd, void *dx,
                        void *ws, size_t wsb, uint64_t id) {
    (void)h;
    if (!imm_ok(1, ws, wsb, id)) return 3;
    return naive_conv(1, c, dxd, dx, wd, (void *)w, dyd, (void *)dy);
}
static int bwd_w_imm(void *h, void *dyd, const void *dy, void *xd, const void *x, void *c, void *dwd, void *dw,
                     void *ws, size_t wsb, uint64_t id) {
    (void)h;
    if (!imm_ok(2, ws, wsb, id)) return 3;
    return naive_conv(2, c, xd, (void *)x, dwd, dw, dyd, (void *)dy);
}
/* y = alpha*y + alpha*b + beta*y over y's elements, b [1, C, 1, ...] (MIOpen: OpTensor Add) */
static int mi_fwd_bias(void *h, const void *alpha, void *bd, const void *b, const void *beta, void *yd, void *y) {
    (void)h;
    const f_tensor *bt = bd, *yt = yd;
    if (dt_mi(yt->dt) == JV_DT_BF16) return 6; /* MIOpen refuses bf16 here */
    float a, be;
    memcpy(&a, alpha, 4), memcpy(&be, beta, 4);
    if (bt->dims[1] != yt->dims[1]) return 3;
    int64_t n = 1;
    for (int i = 0; i < yt->nd; i++)
        n *= yt->dims[i];
    jv_dtype dt = dt_mi(yt->dt);
    for (int64_t li = 0; li < n; li++) {
        int idx[JV_MAX_DIMS] = {0}, bi[JV_MAX_DIMS] = {0};
        for (int64_t t = li, i = yt->nd - 1; i >= 0; i--)
            idx[i] = (int)(t % yt->dims[i]), t /= yt->dims[i];
        bi[1] = idx[1];
        int64_t o = t_off(yt, idx);
        double v = jv_dtype_load(dt, y, o);
        jv_dtype_store(dt, y, o, a * v + a * jv_dtype_load(dt_mi(bt->dt), b, t_off(bt, bi)) + be * v);
    }
    return 0;
}
/* db = alpha * sum of dy over all but C + beta * db */
static int mi_bwd_bias(void *h, const void *alpha, void *dyd, const void *dy, const void *beta, void *dbd, void *db) {
    (void)h;
    const f_tensor *yt = dyd, *bt = dbd;
    if (dt_mi(yt->dt) == JV_DT_BF16) return 6;
    float a, be;
    memcpy(&a, alpha, 4), memcpy(&be, beta, 4);
    int64_t n = 1;
    for (int i = 0; i < yt->nd; i++)
        n *= yt->dims[i];
    double *sum = calloc((size_t)yt->dims[1], sizeof *sum);
    if (!sum) return 4;
    for (int64_t li = 0; li < n; li++) {
        int idx[JV_MAX_DIMS] = {0};
        for (int64_t t = li, i = yt->nd - 1; i >= 0; i--)
            idx[i] = (int)(t % yt->dims[i]), t /= yt->dims[i];
        sum[idx[1]] += jv_dtype_load(dt_mi(yt->dt), dy, t_off(yt, idx));
    }
    for (int c = 0; c < yt->dims[1]; c++) {
        int bi[JV_MAX_DIMS] = {0, c};
        int64_t o = t_off(bt, bi);
        double old = be != 0 ? jv_dtype_load(dt_mi(bt->dt), db, o) : 0;
        jv_dtype_store(dt_mi(bt->dt), db, o, a * sum[c] + be * old);
    }
    free(sum);
    return 0;
}

/* ---- fake MIOpen batch norm (spatial: statistics per channel over N and the spatial dims) ---- */

static int bn_derive(void *bd, void *xd, int mode) {
    f_tensor *b = bd;
    const f_tensor *x = xd;
    if (mode != JV_MIOPEN_BN_SPATIAL) return 6;
    b->dt = x->dt == JV_MIOPEN_DOUBLE ? JV_MIOPEN_DOUBLE : JV_MIOPEN_FLOAT, b->nd = x->nd;
    for (int i = 0; i < x->nd; i++)
        b->dims[i] = i == 1 ? x->dims[1] : 1, b->strides[i] = i == 1 ? 1 : x->dims[1];
    return 0;
}
static int64_t per_channel(const f_tensor *t) {
    int64_t n = 1;
    for (int i = 0; i < t->nd; i++)
        n *= i == 1 ? 1 : t->dims[i];
    return n;
}
/* the offsets of channel c's elements of t in logical order (n = per_channel(t) of them) */
static void channel_offsets(const f_tensor *t, int c, int64_t *off) {
    int64_t n = per_channel(t);
    for (int64_t li = 0; li < n; li++) {
        int idx[JV_MAX_DIMS] = {0};
        for (int64_t r = li, i = t->nd - 1; i >= 0; i--) {
            if (i == 1) {
                idx[1] = c;
                continue;
            }
            idx[i] = (int)(r % t->dims[i]), r /= t->dims[i];
        }
        off[li] = t_off(t, idx);
    }
}
static int bn_args_ok(int mode, const void *alpha, const void *beta, const f_tensor *x, const f_tensor *y) {
    float a, b;
    memcpy(&a, alpha, 4), memcpy(&b, beta, 4);
    if (mode != JV_MIOPEN_BN_SPATIAL || a != 1 || b != 0 || x->nd != y->nd) return 0;
    for (int i = 0; i < x->nd; i++)
        if (x->dims[i] != y->dims[i]) return 0;
    return 1;
}
static int bn_train(void *h, int mode, void *alpha, void *beta, void *xd, const void *x, void *yd, void *y, void *bd,
                    void *scale, void *bias, double mom, void *rm, void *rv, double eps, void *sm, void *siv) {
    (void)h, (void)bd;
    const f_tensor *xt = xd, *yt = yd;
    if (!bn_args_ok(mode, alpha, beta, xt, yt)) return 3;
    jv_dtype dx = dt_mi(xt->dt), dy = dt_mi(yt->dt);
    int64_t n = per_channel(xt);
    int64_t *ox = malloc((size_t)n * sizeof *ox), *oy = malloc((size_t)n * sizeof *oy);
    if (!ox || !oy) return free(ox), free(oy), 4;
    for (int c = 0; c < xt->dims[1]; c++) {
        channel_offsets(xt, c, ox);
        channel_offsets(yt, c, oy);
        double s = 0, q = 0;
        for (int64_t i = 0; i < n; i++)
            s += jv_dtype_load(dx, x, ox[i]);
        double mean = s / (double)n;
        for (int64_t i = 0; i < n; i++) {
            double e = jv_dtype_load(dx, x, ox[i]) - mean;
            q += e * e;
        }
        double var = q / (double)n, inv = 1 / sqrt(var + eps);
        double w = jv_dtype_load(JV_DT_F32, scale, c), b = jv_dtype_load(JV_DT_F32, bias, c);
        for (int64_t i = 0; i < n; i++)
            jv_dtype_store(dy, y, oy[i], (jv_dtype_load(dx, x, ox[i]) - mean) * inv * w + b);
        if (rm) jv_dtype_store(JV_DT_F32, rm, c, (1 - mom) * jv_dtype_load(JV_DT_F32, rm, c) + mom * mean);
        if (rv)
            jv_dtype_store(JV_DT_F32, rv, c,
                           (1 - mom) * jv_dtype_load(JV_DT_F32, rv, c) + mom * var * (double)n / (double)(n - 1));
        if (sm) jv_dtype_store(JV_DT_F32, sm, c, mean);
        if (siv) jv_dtype_store(JV_DT_F32, siv, c, inv);
    }
    free(ox), free(oy);
    return 0;
}
static int bn_infer(void *h, int mode, void *alpha, void *beta, void *xd, const void *x, void *yd, void *y, void *bd,
                    void *scale, void *bias, void *mean, void *var, double eps) {
    (void)h, (void)bd;
    const f_tensor *xt = xd, *yt = yd;
    if (!bn_args_ok(mode, alpha, beta, xt, yt)) return 3;
    jv_dtype dx = dt_mi(xt->dt), dy = dt_mi(yt->dt);
    int64_t n = per_channel(xt);
    int64_t *ox = malloc((size_t)n * sizeof *ox), *oy = malloc((size_t)n * sizeof *oy);
    if (!ox || !oy) return free(ox), free(oy), 4;
    for (int c = 0; c < xt->dims[1]; c++) {
        channel_offsets(xt, c, ox);
        channel_offsets(yt, c, oy);
        double m = jv_dtype_load(JV_DT_F32, mean, c), inv = 1 / sqrt(jv_dtype_load(JV_DT_F32, var, c) + eps);
        double w = jv_dtype_load(JV_DT_F32, scale, c), b = jv_dtype_load(JV_DT_F32, bias, c);
        for (int64_t i = 0; i < n; i++)
            jv_dtype_store(dy, y, oy[i], (jv_dtype_load(dx, x, ox[i]) - m) * inv * w + b);
    }
    free(ox), free(oy);
    return 0;
}
static int bn_bwd(void *h, int mode, const void *ad, const void *bd_, const void *ap, const void *bp, void *xd,
                  const void *x, void *dyd, const void *dy, void *dxd, void *dx, void *bnd, const void *scale,
                  void *dscale, void *dbias, double eps, const void *sm, const void *siv) {
    (void)h, (void)bnd, (void)eps;
    const f_tensor *xt = xd, *yt = dyd, *gt = dxd;
    if (!bn_args_ok(mode, ad, bd_, xt, yt) || !bn_args_ok(mode, ap, bp, xt, gt) || !sm || !siv) return 3;
    jv_dtype tx = dt_mi(xt->dt), ty = dt_mi(yt->dt), tg = dt_mi(gt->dt);
    int64_t n = per_channel(xt);
    int64_t *ox = malloc((size_t)n * sizeof *ox), *oy = malloc((size_t)n * sizeof *oy),
            *og = malloc((size_t)n * sizeof *og);
    if (!ox || !oy || !og) return free(ox), free(oy), free(og), 4;
    for (int c = 0; c < xt->dims[1]; c++) {
        channel_offsets(xt, c, ox);
        channel_offsets(yt, c, oy);
        channel_offsets(gt, c, og);
        double mean = jv_dtype_load(JV_DT_F32, sm, c), inv = jv_dtype_load(JV_DT_F32, siv, c);
        double w = jv_dtype_load(JV_DT_F32, scale, c), sdy = 0, sdyx = 0;
        for (int64_t i = 0; i < n; i++) {
            double g = jv_dtype_load(ty, dy, oy[i]);
            sdy += g, sdyx += g * (jv_dtype_load(tx, x, ox[i]) - mean) * inv;
        }
        for (int64_t i = 0; i < n; i++) {
            double xh = (jv_dtype_load(tx, x, ox[i]) - mean) * inv, g = jv_dtype_load(ty, dy, oy[i]);
            jv_dtype_store(tg, dx, og[i], w * inv * (g - sdy / (double)n - xh * sdyx / (double)n));
        }
        jv_dtype_store(JV_DT_F32, dscale, c, sdyx);
        jv_dtype_store(JV_DT_F32, dbias, c, sdy);
    }
    free(ox), free(oy), free(og);
    return 0;
}

/* a vendor set of the fakes: hipBLASLt, rocBLAS, MIOpen each present or not */
static void fake_vendor(jv_hipv *v, int lt, int rb, int mi) {
    memset(v, 0, sizeof *v);
    if (lt) {
        jv_hipblaslt_api a = {lt_create,       lt_destroy,       lt_version,        lt_desc_create, lt_desc_destroy,
                              lt_desc_set,     lt_layout_create, lt_layout_destroy, lt_layout_set,  lt_pref_create,
                              lt_pref_destroy, lt_pref_set,      lt_heuristic,      lt_matmul};
        v->lt = a;
        v->lt_lib.found = 1;
        snprintf(v->lt_lib.path, sizeof v->lt_lib.path, "fake-hipblaslt");
    } else {
        snprintf(v->lt_lib.why, sizeof v->lt_lib.why, "absent in this test");
    }
    if (rb) {
        jv_rocblas_api a = {rb_create, rb_destroy, rb_set_stream, rb_version, rb_gemm};
        v->rb = a;
        v->rb_lib.found = 1;
        snprintf(v->rb_lib.path, sizeof v->rb_lib.path, "fake-rocblas");
    } else {
        snprintf(v->rb_lib.why, sizeof v->rb_lib.why, "absent in this test");
    }
    if (mi) {
        jv_miopen_api a = {
            mi_create,         mi_destroy,     mi_set_stream, mi_version,       mi_tensor_create, mi_tensor_set,
            mi_tensor_destroy, mi_conv_create, mi_conv_init,  mi_conv_groups,   mi_conv_destroy,  fwd_get,
            fwd_compile,       fwd_imm,        bwd_data_get,  bwd_data_compile, bwd_data_imm,     bwd_w_get,
            bwd_w_compile,     bwd_w_imm,      mi_fwd_bias,   mi_bwd_bias,      bn_derive,        bn_train,
            bn_infer,          bn_bwd};
        v->mi = a;
        v->mi_lib.found = 1;
        snprintf(v->mi_lib.path, sizeof v->mi_lib.path, "fake-miopen");
    } else {
        snprintf(v->mi_lib.why, sizeof v->mi_lib.why, "absent in this test");
    }
    jv_hipv_runtime rt = {NULL,    rt_copy2d,      rt_alloc,      rt_free, rt_upload,
                          rt_zero, rt_timer_start, rt_timer_stop, rt_sync};
    jv_hipv_open(v, FAKE_STREAM, &rt);
}

/* ---- the paths under test, over jv_test_cpu.h's harness ---- */

typedef enum { K_GEMM, K_CONV, K_CONV_GEMM, K_BN } kind;
typedef struct {
    jv_hipv *v;
    kind k;
    char impl[200];
} pctx;
typedef struct {
    const jv_hipv *v;
    kind k;
    void *p;
    void *ws;
} pplan;

static jv_status p_plan(void *x, const setup *s, void **plan, jv_err *err) {
    pctx *c = x;
    pplan *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "out of memory");
    p->v = c->v, p->k = c->k;
    p->ws = calloc(1, FAKE_WS);
    *plan = p;
    memset(compiled, 0, sizeof compiled);
    switch (c->k) {
    case K_GEMM:
        return jv_hipv_gemm_plan(c->v, &s->d, &s->ops, FAKE_WS, (jv_hipv_gemm **)&p->p, c->impl, sizeof c->impl, err);
    case K_CONV:
    case K_CONV_GEMM:
        return jv_hipv_conv_plan(c->v, &s->d, &s->ops, c->k == K_CONV_GEMM, FAKE_WS, (jv_hipv_conv **)&p->p, c->impl,
                                 sizeof c->impl, err);
    case K_BN:
        snprintf(c->impl, sizeof c->impl, "MIOpen batch norm");
        return jv_hipv_bn_plan(c->v, &s->d, &s->ops, FAKE_WS, (jv_hipv_bn **)&p->p, err);
    }
    return JV_OK;
}
static jv_status p_run(void *x, void *plan, const setup *s, jv_err *err) {
    (void)x;
    pplan *p = plan;
    void *const *b = (void *const *)s->dev;
    switch (p->k) {
    case K_GEMM: return jv_hipv_gemm_run(p->v, p->p, b, p->ws, FAKE_WS, err);
    case K_CONV:
    case K_CONV_GEMM: return jv_hipv_conv_run(p->v, p->p, b, p->ws, FAKE_WS, err);
    case K_BN: return jv_hipv_bn_run(p->v, p->p, b, p->ws, FAKE_WS, err);
    }
    return JV_OK;
}
static void p_release(void *plan) {
    pplan *p = plan;
    if (!p) return;
    if (p->k == K_GEMM) jv_hipv_gemm_free(p->v, p->p);
    if (p->k == K_CONV || p->k == K_CONV_GEMM) jv_hipv_conv_free(p->v, p->p);
    if (p->k == K_BN) jv_hipv_bn_free(p->v, p->p);
    free(p->ws);
    free(p);
}

/* Runs c on a path and returns whether every output matched the reference (0 also when it did not run). */
static int run_quiet(pctx *pc, const jv_cpu_case *c, char *msg, size_t cap) {
    setup s;
    msg[0] = 0;
    if (!setup_case(c, &s, 1)) {
        setup_free(&s);
        return 0;
    }
    jv_err err;
    jv_err_clear(&err);
    void *plan = NULL;
    jv_status st = p_plan(pc, &s, &plan, &err);
    if (st == JV_OK) st = p_run(pc, plan, &s, &err);
    int ok = 0;
    if (st == JV_OK) {
        jv_verify v;
        ok = verify_all(&s, &v);
        snprintf(msg, cap, "rel_l2 %.3g worst '%s'", v.rel_l2, v.worst);
    } else {
        snprintf(msg, cap, "%s", err.msg);
    }
    p_release(plan);
    setup_free(&s);
    return ok;
}

/* ---- the cases ---- */

#define NO "\"\""

static const jv_cpu_case GEMMS[] = {
    {"mm fp32", "aten::mm", "[[64, 96], [96, 80]]", "[" FL ", " FL "]", NULL, NULL},
    {"mm fp32, A transposed", "aten::mm", "[[64, 96], [96, 80]]", "[" FL ", " FL "]", "[[1, 64], [80, 1]]", NULL},
    {"mm fp32 square, A transposed", "aten::mm", "[[64, 64], [64, 64]]", "[" FL ", " FL "]", "[[1, 64], [64, 1]]",
     NULL},
    {"mm fp32, both transposed", "aten::mm", "[[64, 96], [96, 80]]", "[" FL ", " FL "]", "[[1, 64], [1, 96]]", NULL},
    {"mm bf16, B transposed", "aten::mm", "[[64, 96], [96, 80]]", "[" BF ", " BF "]", "[[96, 1], [1, 96]]", NULL},
    {"mm fp16", "aten::mm", "[[64, 96], [96, 80]]", "[" HF ", " HF "]", NULL, NULL},
    {"mm fp32, A row stride 128", "aten::mm", "[[64, 96], [96, 80]]", "[" FL ", " FL "]", "[[128, 1], [80, 1]]", NULL},
    {"addmm fp32, [N] bias, B transposed", "aten::addmm", "[[80], [64, 96], [96, 80], [], []]", ADD_TYPES(FL),
     "[[1], [96, 1], [1, 96], [], []]", BA("1", "1")},
    {"addmm fp32, [M, N] bias, beta 0.5 alpha 2", "aten::addmm", "[[64, 80], [64, 96], [96, 80], [], []]",
     ADD_TYPES(FL), "[[80, 1], [1, 64], [80, 1], [], []]", BA("0.5", "2")},
    {"addmm fp32, [N] bias, beta 1 alpha 0.25", "aten::addmm", "[[80], [64, 96], [96, 80], [], []]", ADD_TYPES(FL),
     "[[1], [96, 1], [80, 1], [], []]", BA("1", "0.25")},
    {"addmm fp32, 0-d bias beta 2", "aten::addmm", "[[], [64, 96], [96, 80], [], []]", ADD_TYPES(FL),
     "[[], [96, 1], [80, 1], [], []]", BA("2", "1")},
    {"addmm bf16, [N] bias, A transposed", "aten::addmm", "[[80], [64, 96], [96, 80], [], []]", ADD_TYPES(BF),
     "[[1], [1, 64], [80, 1], [], []]", BA("1", "1")},
    {"addmm fp16, [M, N] bias beta 0.5", "aten::addmm", "[[64, 80], [64, 96], [96, 80], [], []]", ADD_TYPES(HF),
     "[[80, 1], [96, 1], [1, 96], [], []]", BA("0.5", "2")},
    {"bmm fp32, A transposed", "aten::bmm", "[[3, 64, 96], [3, 96, 80]]", "[" FL ", " FL "]",
     "[[6144, 1, 64], [7680, 80, 1]]", NULL},
    {"bmm bf16, B transposed", "aten::bmm", "[[3, 64, 96], [3, 96, 80]]", "[" BF ", " BF "]",
     "[[6144, 96, 1], [7680, 1, 96]]", NULL},
    {"baddbmm fp32, [B, M, N] self, beta 0.5 alpha 2", "aten::baddbmm",
     "[[3, 64, 80], [3, 64, 96], [3, 96, 80], [], []]", ADD_TYPES(FL),
     "[[5120, 80, 1], [6144, 96, 1], [7680, 1, 96], [], []]", BA("0.5", "2")},
    {"baddbmm bf16, [N] self", "aten::baddbmm", "[[80], [3, 64, 96], [3, 96, 80], [], []]", ADD_TYPES(BF),
     "[[1], [6144, 1, 64], [7680, 80, 1], [], []]", BA("1", "1")},
    {"linear fp32, [B, M, K] input, bias", "aten::linear", "[[3, 64, 96], [80, 96], [80]]", "[" FL ", " FL ", " FL "]",
     NULL, NULL},
    {"linear bf16, no bias", "aten::linear", "[[64, 96], [80, 96], []]", "[" BF ", " BF ", " BF "]", NULL, NULL},
};
#define NGEMMS ((int)(sizeof GEMMS / sizeof GEMMS[0]))

static const jv_cpu_case MM_F64 = {"mm fp64", "aten::mm", "[[64, 96], [96, 80]]", "[" DB ", " DB "]", NULL, NULL};

static const jv_cpu_case CONVS[] = {
    {"conv fwd fp32 NCHW", "aten::convolution", "[[2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], []]",
     CONV_TYPES(FL, NO), NULL, CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"conv fwd fp32 NCHW bias stride 2", "aten::convolution",
     "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]", CONV_TYPES(FL, FL), NULL,
     CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"conv fwd fp32 channels_last bias s2", "aten::convolution",
     "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]", CONV_TYPES(FL, FL),
     "[" X8_CL ", " W8_CL ", [1], [], [], [], [], [], []]",
     CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"conv fwd fp32 dilation 2 pad 2", "aten::convolution",
     "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]", CONV_TYPES(FL, FL), NULL,
     CONV_FWD_ARGS("1, 1", "2, 2", "2, 2", "False", "0, 0", "1")},
    {"conv fwd fp32 no pad 5x3 stride 2x1", "aten::convolution",
     "[[2, 8, 12, 12], [16, 8, 5, 3], [], [], [], [], [], [], []]", CONV_TYPES(FL, NO), NULL,
     CONV_FWD_ARGS("2, 1", "0, 0", "1, 1", "False", "0, 0", "1")},
    {"conv fwd fp32 groups 2", "aten::convolution", "[[2, 16, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]",
     CONV_TYPES(FL, FL), NULL, CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "2")},
    {"conv fwd fp32 depthwise channels_last", "aten::convolution",
     "[[2, 16, 12, 12], [16, 1, 3, 3], [16], [], [], [], [], [], []]", CONV_TYPES(FL, FL),
     "[" X16_CL ", [9, 1, 3, 1], [1], [], [], [], [], [], []]",
     CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "16")},
    {"conv fwd fp32 conv1d", "aten::convolution", "[[2, 8, 20], [16, 8, 3], [16], [], [], [], [], [], []]",
     CONV_TYPES(FL, FL), NULL, CONV_FWD_ARGS("1", "1", "1", "False", "0", "1")},
    {"conv fwd fp32 conv3d", "aten::convolution", "[[2, 4, 6, 6, 6], [8, 4, 3, 3, 3], [8], [], [], [], [], [], []]",
     CONV_TYPES(FL, FL), NULL, CONV_FWD_ARGS("1, 1, 1", "1, 1, 1", "1, 1, 1", "False", "0, 0, 0", "1")},
    {"conv fwd fp32 transposed bias s2", "aten::convolution",
     "[[2, 16, 6, 6], [16, 8, 3, 3], [8], [], [], [], [], [], []]", CONV_TYPES(FL, FL), NULL,
     CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "True", "1, 1", "1")},
    {"conv fwd fp16 NCHW bias", "aten::convolution", "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]",
     CONV_TYPES(HF, HF), NULL, CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"conv fwd bf16 channels_last groups 2 s2", "aten::convolution",
     "[[2, 16, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], []]", CONV_TYPES(BF, NO),
     "[" X16_CL ", " W8_CL ", [], [], [], [], [], [], []]",
     CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "False", "0, 0", "2")},
    {"conv bwd fp32 all grads", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("16", "1, 1", "1, 1", "1, 1", "False", "0, 0", "1", "True, True, True")},
    {"conv bwd fp32 grad_input only s2", "aten::convolution_backward",
     "[[2, 16, 6, 6], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("0", "2, 2", "1, 1", "1, 1", "False", "0, 0", "1", "True, False, False")},
    {"conv bwd fp32 grad_weight only dil 2", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("0", "1, 1", "2, 2", "2, 2", "False", "0, 0", "1", "False, True, False")},
    {"conv bwd fp32 channels_last groups 2", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 16, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL),
     "[" X16_CL ", " X16_CL ", " W8_CL ", [], [], [], [], [], [], [], []]",
     CONV_BWD_ARGS("16", "1, 1", "1, 1", "1, 1", "False", "0, 0", "2", "True, True, True")},
    {"conv bwd fp32 depthwise s2", "aten::convolution_backward",
     "[[2, 16, 6, 6], [2, 16, 12, 12], [16, 1, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("16", "2, 2", "1, 1", "1, 1", "False", "0, 0", "16", "True, True, True")},
    {"conv bwd fp32 conv3d", "aten::convolution_backward",
     "[[2, 8, 6, 6, 6], [2, 4, 6, 6, 6], [8, 4, 3, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("8", "1, 1, 1", "1, 1, 1", "1, 1, 1", "False", "0, 0, 0", "1", "True, True, True")},
    {"conv bwd fp32 transposed s2", "aten::convolution_backward",
     "[[2, 8, 12, 12], [2, 16, 6, 6], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("8", "2, 2", "1, 1", "1, 1", "True", "1, 1", "1", "True, True, True")},
    {"conv bwd bf16 grad_input, grad_weight", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(BF), NULL,
     CONV_BWD_ARGS("0", "1, 1", "1, 1", "1, 1", "False", "0, 0", "1", "True, True, False")},
};
#define NCONVS ((int)(sizeof CONVS / sizeof CONVS[0]))

/* 1x1, stride 1, no pad, channels_last fp16 / bf16: jv_conv_as_gemm's pointwise convolution */
#define X32_CL "[32768, 1, 1024, 32]"
#define G64_CL "[65536, 1, 2048, 64]"
static const jv_cpu_case CONV_GEMMS[] = {
    {"1x1 conv fwd bf16 CL as GEMM", "aten::convolution",
     "[[2, 32, 32, 32], [64, 32, 1, 1], [], [], [], [], [], [], []]", CONV_TYPES(BF, NO),
     "[" X32_CL ", [32, 1, 32, 32], [], [], [], [], [], [], []]",
     CONV_FWD_ARGS("1, 1", "0, 0", "1, 1", "False", "0, 0", "1")},
    {"1x1 conv bwd fp16 CL as GEMMs", "aten::convolution_backward",
     "[[2, 64, 32, 32], [2, 32, 32, 32], [64, 32, 1, 1], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(HF),
     "[" G64_CL ", " X32_CL ", [32, 1, 32, 32], [], [], [], [], [], [], [], []]",
     CONV_BWD_ARGS("0", "1, 1", "0, 0", "1, 1", "False", "0, 0", "1", "True, True, False")},
};
#define NCONV_GEMMS           ((int)(sizeof CONV_GEMMS / sizeof CONV_GEMMS[0]))

#define BN_FWD_TYPES(X, W, R) "[" X ", " W ", " W ", " R ", " R ", " SC ", " SC ", " SC "]"
#define BN_FWD_DIMS           "[[4, 16, 10, 10], [16], [16], [16], [16], [], [], []]"
#define TRAIN                 "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"
#define EVAL                  "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]"
#define BN_BWD_TYPES(X)       "[" X ", " X ", " FL ", " FL ", " FL ", " FL ", " FL ", " SC ", " SC ", \"ScalarList\"]"
#define BN_BWD_DIMS           "[[4, 16, 10, 10], [4, 16, 10, 10], [16], [16], [16], [16], [16], [], [], []]"
#define BN_BWD(M)             "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[" M "]\"]"
#define CL16                  "[1600, 1, 160, 16]"

static const jv_cpu_case BNS[] = {
    {"bn fwd train fp32 NCHW", "aten::native_batch_norm", BN_FWD_DIMS, BN_FWD_TYPES(FL, FL, FL), NULL, TRAIN},
    {"bn fwd train fp32 channels_last", "aten::native_batch_norm", BN_FWD_DIMS, BN_FWD_TYPES(FL, FL, FL),
     "[" CL16 ", [1], [1], [1], [1], [], [], []]", TRAIN},
    {"bn fwd train bf16 CL fp32 params", "aten::native_batch_norm", BN_FWD_DIMS, BN_FWD_TYPES(BF, FL, FL),
     "[" CL16 ", [1], [1], [1], [1], [], [], []]", TRAIN},
    {"bn fwd train fp16 NCHW fp32 params", "aten::native_batch_norm", BN_FWD_DIMS, BN_FWD_TYPES(HF, FL, FL), NULL,
     TRAIN},
    {"bn fwd eval fp32 NCHW", "aten::native_batch_norm", BN_FWD_DIMS, BN_FWD_TYPES(FL, FL, FL), NULL, EVAL},
    {"bn fwd eval bf16 CL fp32 params", "aten::native_batch_norm", BN_FWD_DIMS, BN_FWD_TYPES(BF, FL, FL),
     "[" CL16 ", [1], [1], [1], [1], [], [], []]", EVAL},
    {"bn bwd train fp32 NCHW all grads", "aten::native_batch_norm_backward", BN_BWD_DIMS, BN_BWD_TYPES(FL), NULL,
     BN_BWD("True, True, True")},
    {"bn bwd train fp32 CL grad_input only", "aten::native_batch_norm_backward", BN_BWD_DIMS, BN_BWD_TYPES(FL),
     "[" CL16 ", " CL16 ", [1], [1], [1], [1], [1], [], [], []]", BN_BWD("True, False, False")},
    {"bn bwd train bf16 NCHW weight/bias grads", "aten::native_batch_norm_backward", BN_BWD_DIMS, BN_BWD_TYPES(BF),
     NULL, BN_BWD("False, True, True")},
};
#define NBNS ((int)(sizeof BNS / sizeof BNS[0]))

static const jv_cpu_case *find_case(const jv_cpu_case *t, int n, const char *what) {
    for (int i = 0; i < n; i++)
        if (!strcmp(t[i].what, what)) return &t[i];
    return NULL;
}

/* runs every case of t on path kind k over v; each must match the reference; impl must name want */
static void run_all(jv_hipv *v, kind k, const jv_cpu_case *t, int n, const char *want, const char *label) {
    for (int i = 0; i < n; i++) {
        pctx pc = {v, k, ""};
        char msg[600];
        int ok = run_quiet(&pc, &t[i], msg, sizeof msg);
        CHECK_MSG(ok, "%s: %s: %s", label, t[i].what, msg);
        CHECK_MSG(!ok || strstr(pc.impl, want), "%s: %s: impl '%s' does not name %s", label, t[i].what, pc.impl, want);
        printf("%-10s %-48s %-5s %s [%s]\n", label, t[i].what, ok ? "OK" : "WRONG", msg, pc.impl);
    }
}

/* a fault in the mapping must fail the comparison (or the call) */
static void wrong_case(jv_hipv *v, kind k, const jv_cpu_case *c, int *flag, const char *what) {
    CHECK(c != NULL);
    if (!c) return;
    pctx pc = {v, k, ""};
    char msg[600];
    *flag = 1;
    int ok = run_quiet(&pc, c, msg, sizeof msg);
    *flag = 0;
    CHECK_MSG(!ok, "%s: %s passed with the fault in place", what, c->what);
    printf("%-10s %-48s %-5s %s\n", "fault", what, ok ? "MISSED" : "CAUGHT", msg);
    int again = run_quiet(&pc, c, msg, sizeof msg); /* and right again without it */
    CHECK_MSG(again, "%s: %s wrong after the fault was removed: %s", what, c->what, msg);
}

static void refused(jv_hipv *v, kind k, const jv_cpu_case *c, const char *want) {
    pctx pc = {v, k, ""};
    char msg[600];
    int ok = run_quiet(&pc, c, msg, sizeof msg);
    CHECK_MSG(!ok && strstr(msg, want), "%s: expected a refusal naming '%s', got: %s", c->what, want, msg);
    printf("%-10s %-48s %s\n", "refused", c->what, msg);
}

int main(int argc, char **argv) {
    jv_hipv v;
    const char *fake_rocm = argc > 1 ? argv[1] : NULL; /* a ROCm tree whose libhipblaslt.so lacks all but one symbol */
    unsetenv("ROCM_PATH");

    /* GEMM on hipBLASLt (rocBLAS present too: hipBLASLt comes first), then on rocBLAS alone */
    fake_vendor(&v, 1, 1, 0);
    char line[1024];
    jv_hipv_describe(&v, line, sizeof line);
    printf("vendor line (fakes): %s\n", line);
    CHECK(strstr(line, "hipBLASLt fake-hipblaslt (version 0.10.0)") != NULL);
    CHECK(strstr(line, "rocBLAS fake-rocblas (version 4.4.0-fake)") != NULL);
    CHECK(strstr(line, "MIOpen absent in this test") != NULL);
    F.lt_calls = F.rb_calls = 0;
    run_all(&v, K_GEMM, GEMMS, NGEMMS, "hipBLASLt", "hipBLASLt");
    CHECK(F.lt_calls == NGEMMS && F.rb_calls == 0);
    /* fp64: hipBLASLt has none, rocBLAS takes it */
    run_all(&v, K_GEMM, &MM_F64, 1, "rocBLAS", "fallback");
    /* a swapped transpose fails (hipBLASLt's TRANSA flipped on the way in) */
    /* square: the flipped operand still fits, the numbers are wrong */
    wrong_case(&v, K_GEMM, find_case(GEMMS, NGEMMS, "mm fp32 square, A transposed"), &F.flip_transa,
               "hipBLASLt TRANSA flipped (square)");
    wrong_case(&v, K_GEMM, find_case(GEMMS, NGEMMS, "mm fp32, A transposed"), &F.flip_transa,
               "hipBLASLt TRANSA flipped");
    wrong_case(&v, K_GEMM, find_case(GEMMS, NGEMMS, "bmm bf16, B transposed"), &F.flip_transa,
               "hipBLASLt TRANSA flipped (bmm)");
    jv_hipv_close(&v);

    /* gemm-algo best: hipBLASLt's candidates each run 2 + 5 times, timed on the (simulated) device clock, the fastest
     * kept and named in impl; one that does not launch and one wanting too much workspace are skipped; the choice
     * is reused for the same configuration; every GEMM still verifies through the chosen algorithm */
    {
        fake_vendor(&v, 1, 1, 0);
        jv_gpu_gemm_cache cache;
        memset(&cache, 0, sizeof cache);
        void *dev_ws = calloc(1, FAKE_WS);
        CHECK(dev_ws != NULL);
        v.gemm_search = 1, v.ws = dev_ws, v.gemm_cache = &cache;
        const double cost[5] = {0.030, 0.012, 0.005, 0.008, 0.020}; /* ms: #3 refuses, #4 wants too much workspace */
        F.lt_algos = 5, F.lt_refuse = 3, F.lt_big_ws = 4;
        memcpy(F.lt_cost, cost, sizeof cost);
        memset(F.lt_runs, 0, sizeof F.lt_runs);
        const jv_cpu_case *mm = find_case(GEMMS, NGEMMS, "mm fp32");
        pctx pc = {&v, K_GEMM, ""};
        char msg[600];
        int ok = mm && run_quiet(&pc, mm, msg, sizeof msg);
        CHECK_MSG(ok, "searched mm fp32: %s", msg);
        printf("%-10s %-48s %-5s [%s]\n", "search", "mm fp32", ok ? "OK" : "WRONG", pc.impl);
        CHECK_MSG(strstr(pc.impl, "searched 5, best of 3: heuristic's #2 12.0 us (#1 30.0 us)") != NULL, "impl: %s",
                  pc.impl);
        CHECK_MSG(F.lt_runs[0] == 7 && F.lt_runs[2] == 1 && F.lt_runs[3] == 0 && F.lt_runs[4] == 7,
                  "launches per candidate %d %d %d %d %d", F.lt_runs[0], F.lt_runs[1], F.lt_runs[2], F.lt_runs[3],
                  F.lt_runs[4]);
        CHECK(F.lt_runs[1] > 7 && F.lt_last == 1); /* the replay's own runs used the chosen one */
        int runs0 = F.lt_runs[0];
        ok = mm && run_quiet(&pc, mm, msg, sizeof msg); /* the same configuration: from the cache */
        CHECK(ok && F.lt_runs[0] == runs0 && cache.n == 1 && strstr(pc.impl, "heuristic's #2 12.0 us") != NULL);
        run_all(&v, K_GEMM, GEMMS, NGEMMS, "searched", "search");
        CHECK(F.lt_runs[3] == 0 && F.lt_last == 1);
        /* no candidate launches: rocBLAS runs it; without rocBLAS it is refused, naming the search */
        jv_gpu_cache_clear(&cache);
        F.lt_refuse = -1;
        run_all(&v, K_GEMM, mm, 1, "rocBLAS", "search");
        jv_hipv_close(&v);
        fake_vendor(&v, 1, 0, 0);
        v.gemm_search = 1, v.ws = dev_ws, v.gemm_cache = &cache;
        refused(&v, K_GEMM, mm, "gemm-algo best: none of hipBLASLt's 5 candidates ran");
        /* the heuristic (the default): its first pick only, nothing timed */
        F.lt_refuse = 0;
        memset(F.lt_runs, 0, sizeof F.lt_runs);
        v.gemm_search = 0;
        run_all(&v, K_GEMM, mm, 1, "hipBLASLt heuristic algo", "heuristic");
        CHECK(F.lt_runs[1] == 0 && F.lt_runs[4] == 0 && F.lt_runs[0] > 0);
        F.lt_algos = F.lt_big_ws = 0;
        jv_gpu_cache_clear(&cache);
        free(dev_ws);
        jv_hipv_close(&v);
    }

    /* a hipBLASLt older than 0.10 (enum values not checked) is not used: rocBLAS runs the GEMMs, the line says why */
    F.lt_version = 700;
    fake_vendor(&v, 1, 1, 0);
    F.lt_version = 0;
    jv_hipv_describe(&v, line, sizeof line);
    CHECK(strstr(line, "hipBLASLt fake-hipblaslt version 0.7.0 is older than hipBLASLt 0.10") != NULL);
    run_all(&v, K_GEMM, GEMMS, 1, "rocBLAS", "old LT");
    jv_hipv_close(&v);

    fake_vendor(&v, 0, 1, 0);
    run_all(&v, K_GEMM, GEMMS, NGEMMS, "rocBLAS", "rocBLAS");
    CHECK(F.rb_calls >= NGEMMS);
    jv_hipv_close(&v);

    fake_vendor(&v, 1, 0, 0);
    refused(&v, K_GEMM, &MM_F64, "hipBLASLt has no fp64 GEMM");
    refused(&v, K_CONV, &CONVS[0], "not replayed: no MIOpen (absent in this test)");
    jv_hipv_close(&v);

    /* convolution on MIOpen; 1x1 convolutions as GEMMs on hipBLASLt */
    fake_vendor(&v, 1, 0, 1);
    F.mi_calls = 0;
    run_all(&v, K_CONV, CONVS, NCONVS, "MIOpen immediate", "MIOpen");
    CHECK(F.mi_calls >= NCONVS);
    run_all(&v, K_CONV_GEMM, CONV_GEMMS, NCONV_GEMMS, "hipBLASLt 1x1 conv GEMM", "conv GEMM");
    refused(&v, K_CONV_GEMM, &CONVS[0], "not a pointwise convolution");
    wrong_case(&v, K_CONV, find_case(CONVS, NCONVS, "conv fwd fp32 dilation 2 pad 2"), &F.ignore_dilation,
               "MIOpen dilation dropped");
    wrong_case(&v, K_CONV, find_case(CONVS, NCONVS, "conv bwd fp32 grad_weight only dil 2"), &F.ignore_dilation,
               "MIOpen dilation dropped (bwd weights)");
    wrong_case(&v, K_CONV, find_case(CONVS, NCONVS, "conv fwd fp32 channels_last bias s2"), &F.drop_strides,
               "MIOpen strides dropped (channels_last)");
    wrong_case(&v, K_CONV_GEMM, &CONV_GEMMS[1], &F.flip_transa, "hipBLASLt TRANSA flipped (1x1 conv bwd)");
    /* bf16 bias: MIOpen's bias calls refuse bf16, so the plan refuses it, named */
    static const jv_cpu_case BF_BIAS = {"conv fwd bf16 NCHW bias",
                                        "aten::convolution",
                                        "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]",
                                        CONV_TYPES(BF, BF),
                                        NULL,
                                        CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")};
    refused(&v, K_CONV, &BF_BIAS, "refuses bf16");

    /* batch norm on MIOpen */
    run_all(&v, K_BN, BNS, NBNS, "MIOpen", "MIOpen BN");
    wrong_case(&v, K_BN, find_case(BNS, NBNS, "bn fwd train fp32 channels_last"), &F.drop_strides,
               "MIOpen strides dropped (BN channels_last)");
    {
        setup s;
        if (setup_case(&BNS[0], &s, 0)) {
            char why[200];
            CHECK(jv_hipv_bn_possible(&v, &s.d, &s.ops, why, sizeof why));
            jv_hipv nomi;
            fake_vendor(&nomi, 1, 0, 0);
            CHECK(!jv_hipv_bn_possible(&nomi, &s.d, &s.ops, why, sizeof why) && strstr(why, "absent"));
            jv_hipv_close(&nomi);
        }
        setup_free(&s);
    }
    jv_hipv_close(&v);

    /* the real loader here: no ROCm libraries on this machine (or, where they are, a line naming them) */
    jv_hipv_load(&v);
    int lt_here = v.lt_lib.found;
    jv_hipv_describe(&v, line, sizeof line);
    printf("vendor line (dlopen here): %s\n", line);
    CHECK(strstr(line, "hipBLASLt ") == line && strstr(line, "; rocBLAS ") && strstr(line, "; MIOpen "));
    if (!v.lt_lib.found && !v.rb_lib.found && !v.mi_lib.found) {
        CHECK(strstr(line, "hipBLASLt not found (tried libhipblaslt.so, libhipblaslt.so.1, libhipblaslt.so.0") != NULL);
        CHECK(strstr(line, "MIOpen not found (tried libMIOpen.so, libMIOpen.so.1") != NULL);
        jv_hipv_open(&v, FAKE_STREAM, NULL); /* nothing to open: still no failure */
        refused(&v, K_GEMM, &GEMMS[0], "not replayed: no GEMM library (hipBLASLt: not found");
        refused(&v, K_CONV, &CONVS[0], "not replayed: no MIOpen (not found");
        refused(&v, K_BN, &BNS[0], "batch norm not on MIOpen: not found");
    }
    jv_hipv_close(&v);

    /* a library found under $ROCM_PATH/lib that lacks a function used: not used, the line names the function */
    if (fake_rocm && !lt_here) { /* (a hipBLASLt in the search path would be found first) */
        setenv("ROCM_PATH", fake_rocm, 1);
        jv_hipv_load(&v);
        jv_hipv_describe(&v, line, sizeof line);
        printf("vendor line (ROCM_PATH=%s): %s\n", fake_rocm, line);
        CHECK(!v.lt_lib.found && strstr(v.lt_lib.why, "fake_rocm/lib/libhipblaslt.so lacks hipblasLtDestroy"));
        jv_hipv_open(&v, FAKE_STREAM, NULL);
        refused(&v, K_GEMM, &GEMMS[0], "lacks hipblasLtDestroy (an older API): not used");
        jv_hipv_close(&v);
        unsetenv("ROCM_PATH");
    }

    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

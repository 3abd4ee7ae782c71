/* hip_fakes: fake hipBLASLt and rocBLAS on host memory (hipBLASLt: column-major
 * layouts, TRANSA / TRANSB, ld, strided batch offsets, the bias epilogue of D's
 * rows, alpha / beta as float, a heuristic of F.lt_algos candidates costing
 * F.lt_cost on the simulated clock; rocBLAS: gemm_strided_batched_ex's m, n,
 * k, ld and strides), the fake HIP runtime (copies, scratch memory, events
 * over the simulated clock) and the vendor set of hip_fakes.h. */
#include "hip_fakes.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_dtype.h"

hipf_state F;
int hipf_stream_token;

static jv_dtype dt_hip(int t) {
    return t == JV_HIP_R_32F ? JV_DT_F32 : t == JV_HIP_R_16F ? JV_DT_F16 : t == JV_HIP_R_16BF ? JV_DT_BF16 : JV_DT_F64;
}
static jv_dtype dt_rb(int t) {
    return t == JV_ROCBLAS_F32_R    ? JV_DT_F32
           : t == JV_ROCBLAS_F16_R  ? JV_DT_F16
           : t == JV_ROCBLAS_BF16_R ? JV_DT_BF16
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

void fake_vendor(jv_hipv *v, int lt, int rb, int mi) {
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
        hipf_miopen_api(&v->mi);
        v->mi_lib.found = 1;
        snprintf(v->mi_lib.path, sizeof v->mi_lib.path, "fake-miopen");
    } else {
        snprintf(v->mi_lib.why, sizeof v->mi_lib.why, "absent in this test");
    }
    jv_hipv_runtime rt = {NULL,    rt_copy2d,      rt_alloc,      rt_free, rt_upload,
                          rt_zero, rt_timer_start, rt_timer_stop, rt_sync};
    jv_hipv_open(v, FAKE_STREAM, &rt);
}

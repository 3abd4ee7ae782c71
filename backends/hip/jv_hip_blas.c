/* jv_hip_blas: the HIP backend's GEMMs on hipBLASLt (heuristic algorithm, bias epilogue), else rocBLAS
 * gemm_strided_batched_ex, through the tables jv_hip_vendor.c loads (see jv_hip_vendor.h); the mapping of a
 * GEMM to a column-major library call is jv_gpu_lib's, shared with the CUDA backend. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm/gemm.h"
#include "jv_gpu_lib.h"
#include "jv_hip_vendor.h"

static const char *lt_status(int s) {
    static const char *const N[] = {
        "HIPBLAS_STATUS_SUCCESS",           "HIPBLAS_STATUS_NOT_INITIALIZED", "HIPBLAS_STATUS_ALLOC_FAILED",
        "HIPBLAS_STATUS_INVALID_VALUE",     "HIPBLAS_STATUS_MAPPING_ERROR",   "HIPBLAS_STATUS_EXECUTION_FAILED",
        "HIPBLAS_STATUS_INTERNAL_ERROR",    "HIPBLAS_STATUS_NOT_SUPPORTED",   "HIPBLAS_STATUS_ARCH_MISMATCH",
        "HIPBLAS_STATUS_HANDLE_IS_NULLPTR", "HIPBLAS_STATUS_INVALID_ENUM",    "HIPBLAS_STATUS_UNKNOWN"};
    return s >= 0 && s < (int)(sizeof N / sizeof N[0]) ? N[s] : "unknown hipblasStatus_t";
}

#define LT_CALL(err, name, call)                                                                                       \
    do {                                                                                                               \
        int lt_s_ = (call);                                                                                            \
        if (lt_s_ != JV_HIPBLAS_STATUS_SUCCESS)                                                                        \
            JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: %s failed: %s (%d)", name, #call, lt_status(lt_s_),        \
                    lt_s_);                                                                                            \
    } while (0)

/* ---- GEMM: plans ---- */

typedef enum { GEMM_LT = 1, GEMM_RB } gemm_lib;

struct jv_hipv_gemm {
    gemm_lib lib;
    jv_gpu_gemm_map map;
    void *desc, *la, *lb, *lc; /* hipBLASLt descriptors */
    jv_hipblaslt_algo algo;
    size_t ws_need;
};

static int lt_type(jv_dtype d) {
    switch (d) {
    case JV_DT_F32: return JV_HIP_R_32F;
    case JV_DT_F16: return JV_HIP_R_16F;
    case JV_DT_BF16: return JV_HIP_R_16BF;
    default: return JV_HIP_R_64F;
    }
}

static int rb_type(jv_dtype d) {
    switch (d) {
    case JV_DT_F32: return JV_ROCBLAS_F32_R;
    case JV_DT_F16: return JV_ROCBLAS_F16_R;
    case JV_DT_BF16: return JV_ROCBLAS_BF16_R;
    default: return JV_ROCBLAS_F64_R;
    }
}

void jv_hipv_gemm_free(const jv_hipv *v, jv_hipv_gemm *p) {
    if (!p) return;
    if (p->la) v->lt.layout_destroy(p->la);
    if (p->lb) v->lt.layout_destroy(p->lb);
    if (p->lc) v->lt.layout_destroy(p->lc);
    if (p->desc) v->lt.desc_destroy(p->desc);
    free(p);
}

static jv_status lt_layout(const jv_hipv *v, void **l, jv_dtype dt, const jv_gpu_blas_mat *m, int64_t batch,
                           const char *name, jv_err *err) {
    LT_CALL(err, name, v->lt.layout_create(l, lt_type(dt), m->rows, m->cols, m->ld));
    if (batch > 1) {
        int32_t bc = (int32_t)batch;
        int64_t bs = m->bstride;
        LT_CALL(err, name, v->lt.layout_set(*l, JV_HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof bc));
        LT_CALL(err, name, v->lt.layout_set(*l, JV_HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &bs, sizeof bs));
    }
    return JV_OK;
}

/* hipBLASLt: descriptors, then the heuristic's first algorithm within the workspace limit. JV_ERR_NOTFOUND when
 * hipBLASLt has no kernel for it (fp64, no algorithm). */
static jv_status plan_lt(const jv_hipv *v, jv_hipv_gemm *p, size_t ws_limit, jv_err *err) {
    const jv_gpu_gemm_map *q = &p->map;
    const char *name = q->name;
    if (q->f64) JV_FAIL(err, JV_ERR_NOTFOUND, "hipBLASLt has no fp64 GEMM");
    p->lib = GEMM_LT;
    LT_CALL(err, name, v->lt.desc_create(&p->desc, JV_HIPBLAS_COMPUTE_32F, JV_HIP_R_32F));
    int32_t ta = q->a.trans ? JV_HIPBLAS_OP_T : JV_HIPBLAS_OP_N, tb = q->b.trans ? JV_HIPBLAS_OP_T : JV_HIPBLAS_OP_N;
    LT_CALL(err, name, v->lt.desc_set(p->desc, JV_HIPBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    LT_CALL(err, name, v->lt.desc_set(p->desc, JV_HIPBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    if (q->bias == JV_GPU_BIAS_EPILOGUE) {
        uint32_t epi = JV_HIPBLASLT_EPILOGUE_BIAS;
        int32_t bt = lt_type(q->out_dt);
        LT_CALL(err, name, v->lt.desc_set(p->desc, JV_HIPBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
        LT_CALL(err, name, v->lt.desc_set(p->desc, JV_HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt));
    }
    JV_CHECK(lt_layout(v, &p->la, q->in_dt, &q->a, q->batch, name, err));
    JV_CHECK(lt_layout(v, &p->lb, q->in_dt, &q->b, q->batch, name, err));
    JV_CHECK(lt_layout(v, &p->lc, q->out_dt, &q->c, q->batch, name, err));
    size_t lim = ws_limit < JV_HIPV_LT_WORKSPACE ? ws_limit : JV_HIPV_LT_WORKSPACE;
    void *pref = NULL;
    LT_CALL(err, name, v->lt.pref_create(&pref));
    uint64_t wsb = lim;
    int s = v->lt.pref_set(pref, JV_HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb);
    jv_hipblaslt_heuristic res;
    memset(&res, 0, sizeof res);
    int returned = 0;
    if (s == JV_HIPBLAS_STATUS_SUCCESS)
        s = v->lt.heuristic(v->lt_h, p->desc, p->la, p->lb, p->lc, p->lc, pref, 1, &res, &returned);
    v->lt.pref_destroy(pref);
    if (s == JV_HIPBLAS_STATUS_NOT_SUPPORTED || (s == JV_HIPBLAS_STATUS_SUCCESS && returned == 0))
        JV_FAIL(err, JV_ERR_NOTFOUND, "hipBLASLt has no algorithm for M %lld N %lld K %lld batch %lld (%s)",
                (long long)q->m, (long long)q->n, (long long)q->k, (long long)q->batch, jv_dtype_short(q->in_dt));
    if (s == JV_HIPBLAS_STATUS_SUCCESS) s = res.state;
    if (s != JV_HIPBLAS_STATUS_SUCCESS)
        JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: hipblasLtMatmulAlgoGetHeuristic failed: %s (%d)", name,
                lt_status(s), s);
    p->algo = res.algo;
    p->ws_need = res.workspace_size;
    return JV_OK;
}

static void gemm_impl(const jv_hipv_gemm *p, char *impl, size_t cap) {
    if (!cap) return;
    if (p->lib == GEMM_LT)
        snprintf(impl, cap, "hipBLASLt heuristic algo ws %zu B%s", p->ws_need,
                 p->map.bias == JV_GPU_BIAS_EPILOGUE ? ", bias epilogue" : "");
    else
        snprintf(impl, cap, "rocBLAS gemm_strided_batched_ex");
}

/* plans a GEMM on hipBLASLt, else on rocBLAS; JV_ERR_NOTFOUND naming both reasons */
static jv_status plan_mapped(const jv_hipv *v, const jv_desc *d, const jv_operands *ops, size_t ws_limit,
                             jv_hipv_gemm **out, jv_err *err) {
    *out = NULL;
    char why_lt[300] = "", why_rb[200] = "";
    if (!v->lt_h)
        snprintf(why_lt, sizeof why_lt, "%.*s", (int)sizeof why_lt - 1,
                 v->lt_lib.why[0] ? v->lt_lib.why : "not loaded");
    if (!v->rb_h)
        snprintf(why_rb, sizeof why_rb, "%.*s", (int)sizeof why_rb - 1,
                 v->rb_lib.why[0] ? v->rb_lib.why : "not loaded");
    if (!v->lt_h && !v->rb_h)
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: not replayed: no GEMM library (hipBLASLt: %s; rocBLAS: %s)", why_lt,
                why_rb);
    for (gemm_lib lib = GEMM_LT; lib <= GEMM_RB; lib++) {
        if ((lib == GEMM_LT && !v->lt_h) || (lib == GEMM_RB && !v->rb_h)) continue;
        jv_hipv_gemm *p = calloc(1, sizeof *p);
        if (!p) JV_FAIL(err, JV_ERR_NOMEM, "hip backend: gemm plan: out of memory");
        p->lib = lib;
        jv_err le;
        jv_err_clear(&le);
        jv_status st = jv_gpu_gemm_map_of("hip", lib == GEMM_LT ? "hipBLASLt" : "rocBLAS", d, ops, &p->map, &le);
        if (st == JV_OK) st = jv_gpu_gemm_bias("hip", &p->map, ops, lib == GEMM_LT, &le);
        if (st == JV_OK && lib == GEMM_LT) st = plan_lt(v, p, ws_limit, &le);
        if (st == JV_OK) {
            *out = p;
            return JV_OK;
        }
        jv_hipv_gemm_free(v, p);
        if (st != JV_ERR_NOTFOUND) return jv_err_set(err, st, le.file, le.line, "%s", le.msg);
        if (lib == GEMM_LT)
            snprintf(why_lt, sizeof why_lt, "%.*s", (int)sizeof why_lt - 1, le.msg);
        else
            snprintf(why_rb, sizeof why_rb, "%.*s", (int)sizeof why_rb - 1, le.msg);
    }
    JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: not replayed on a GEMM library (hipBLASLt: %s; rocBLAS: %s)", why_lt,
            why_rb);
}

jv_status jv_hipv_gemm_plan(const jv_hipv *v, const jv_desc *d, const jv_operands *ops, size_t ws_limit,
                            jv_hipv_gemm **out, char *impl, size_t impl_cap, jv_err *err) {
    JV_CHECK(plan_mapped(v, d, ops, ws_limit, out, err));
    gemm_impl(*out, impl, impl_cap);
    return JV_OK;
}

/* (contract in jv_hip_vendor.h) */
const char *jv_hipv_gemm_lib(const jv_hipv_gemm *p) {
    return p->lib == GEMM_LT ? "hipBLASLt" : "rocBLAS";
}

/* what copy2d needs: the vendor table (its runtime's copy and stream) and the op's name */
typedef struct {
    const jv_hipv *v;
    const char *name;
} copy_ctx;

/* a 2-D device copy on the stream (jv_gpu_copy2d_fn; a 1-D one is one row) */
static jv_status copy2d(void *ctx, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                        size_t height, jv_err *err) {
    const copy_ctx *c = ctx;
    if (!c->v->rt.memcpy2d) JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: no runtime copy for the bias", c->name);
    int e = c->v->rt.memcpy2d(c->v->rt.ctx, dst, dpitch, src, spitch, width, height, c->v->stream);
    if (e) JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: copying the bias: hipMemcpy2DAsync failed (%d)", c->name, e);
    return JV_OK;
}

jv_status jv_hipv_gemm_run(const jv_hipv *v, const jv_hipv_gemm *p, void *const *bufs, void *ws, size_t ws_bytes,
                           jv_err *err) {
    const jv_gpu_gemm_map *q = &p->map;
    void *out = bufs[q->io];
    if (q->bias == JV_GPU_BIAS_COPY) {
        copy_ctx c = {v, q->name};
        JV_CHECK(jv_gpu_gemm_bias_copy(q, bufs[q->ic], out, copy2d, &c, err));
    }
    float af = (float)q->alpha, bf = (float)q->beta;
    const void *alpha = &af, *beta = &bf;
    if (q->f64) alpha = &q->alpha, beta = &q->beta;
    if (p->lib == GEMM_LT) {
        if (q->bias == JV_GPU_BIAS_EPILOGUE) {
            const void *bp = bufs[q->ic];
            LT_CALL(err, q->name, v->lt.desc_set(p->desc, JV_HIPBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
        }
        if (p->ws_need > ws_bytes)
            JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: workspace of %zu bytes, the algorithm needs %zu", q->name,
                    ws_bytes, p->ws_need);
        LT_CALL(err, q->name,
                v->lt.matmul(v->lt_h, p->desc, alpha, bufs[q->ib], p->la, bufs[q->ia], p->lb, beta, out, p->lc, out,
                             p->lc, &p->algo, ws, p->ws_need, v->stream));
        return JV_OK;
    }
    int ct = q->f64 ? JV_ROCBLAS_F64_R : JV_ROCBLAS_F32_R;
    int s = v->rb.gemm_strided_batched_ex(
        v->rb_h, q->a.trans ? JV_ROCBLAS_OP_TRANSPOSE : JV_ROCBLAS_OP_NONE,
        q->b.trans ? JV_ROCBLAS_OP_TRANSPOSE : JV_ROCBLAS_OP_NONE, (int32_t)q->n, (int32_t)q->m, (int32_t)q->k, alpha,
        bufs[q->ib], rb_type(q->in_dt), (int32_t)q->a.ld, q->a.bstride, bufs[q->ia], rb_type(q->in_dt),
        (int32_t)q->b.ld, q->b.bstride, beta, out, rb_type(q->out_dt), (int32_t)q->c.ld, q->c.bstride, out,
        rb_type(q->out_dt), (int32_t)q->c.ld, q->c.bstride, (int32_t)q->batch, ct, JV_ROCBLAS_GEMM_ALGO_STANDARD, 0, 0);
    if (s != JV_ROCBLAS_STATUS_SUCCESS)
        JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: rocblas_gemm_strided_batched_ex failed (status %d)", q->name,
                s);
    return JV_OK;
}

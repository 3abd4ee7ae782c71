/* jv_hip_blas: the HIP backend's GEMMs on hipBLASLt (the heuristic's algorithm, or the fastest of its candidates
 * with gemm-algo best; bias epilogue), else rocBLAS gemm_strided_batched_ex, through the tables jv_hip_vendor.c
 * loads (see jv_hip_vendor.h); the mapping of a GEMM to a column-major library call is jv_gpu_lib's, the search's
 * timing loop, ranking and cache jv_gpu_search's, both shared with the CUDA backend. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm/gemm.h"
#include "jv_gpu_lib.h"
#include "jv_hip_vendor.h"
#include "jv_tensor.h"

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
    int searched; /* the algorithm came from a search (choice says how it went) */
    jv_gpu_gemm_choice choice;
};

_Static_assert(sizeof(jv_hipblaslt_algo) <= sizeof(((jv_gpu_gemm_choice *)0)->algo),
               "jv_gpu_gemm_choice.algo holds a hipblasLtMatmulAlgo_t");

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

/* ---- GEMM: the algorithm search (gemm-algo best) ---- */

/* what the timing loop (jv_gpu_search_time) runs: the heuristic's candidates on scratch operands */
typedef struct {
    const jv_hipv *v;
    const jv_hipv_gemm *p;
    const jv_hipblaslt_heuristic *res;
    void *const *bufs;
} cand_ctx;

#define RT_CALL(err, name, call)                                                                                       \
    do {                                                                                                               \
        int rt_e_ = (call);                                                                                            \
        if (rt_e_)                                                                                                     \
            JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: gemm-algo best: %s failed (%d)", name, #call, rt_e_);      \
    } while (0)

static jv_status cand_run(void *ctx, int i, int *launched, jv_err *err) {
    const cand_ctx *c = ctx;
    const jv_gpu_gemm_map *q = &c->p->map;
    float af = (float)q->alpha, bf = (float)q->beta;
    void *out = c->bufs[q->io];
    (void)err;
    int s = c->v->lt.matmul(c->v->lt_h, c->p->desc, &af, c->bufs[q->ib], c->p->la, c->bufs[q->ia], c->p->lb, &bf, out,
                            c->p->lc, out, c->p->lc, &c->res[i].algo, c->v->ws, c->res[i].workspace_size, c->v->stream);
    *launched = s == JV_HIPBLAS_STATUS_SUCCESS; /* a candidate that does not launch is skipped */
    return JV_OK;
}

static jv_status cand_start(void *ctx, jv_err *err) {
    const cand_ctx *c = ctx;
    RT_CALL(err, c->p->map.name, c->v->rt.timer_start(c->v->rt.ctx, c->v->stream));
    return JV_OK;
}

static jv_status cand_stop(void *ctx, double *ms, jv_err *err) {
    const cand_ctx *c = ctx;
    RT_CALL(err, c->p->map.name, c->v->rt.timer_stop(c->v->rt.ctx, c->v->stream, ms));
    return JV_OK;
}

static jv_status cand_sync(void *ctx, jv_err *err) {
    const cand_ctx *c = ctx;
    RT_CALL(err, c->p->map.name, c->v->rt.sync(c->v->rt.ctx, c->v->stream));
    return JV_OK;
}

jv_status jv_hipv_scratch(const jv_hipv *v, const char *name, const char *search, const jv_operands *ops, int i,
                          int zeroed, void **buf, jv_err *err) {
    const jv_tensor *t = &ops->o[i].t;
    size_t bytes = (size_t)jv_tensor_extent(t) * jv_dtype_size(t->dtype);
    if (v->rt.alloc(v->rt.ctx, buf, bytes ? bytes : 1)) {
        *buf = NULL;
        JV_FAIL(err, JV_ERR_NOMEM, "hip backend: %s: %s: cannot allocate %zu bytes of scratch operand %s", name, search,
                bytes, ops->o[i].name);
    }
    size_t words = bytes / 8;
    if (zeroed || words == 0) {
        RT_CALL(err, name, v->rt.zero(v->rt.ctx, *buf, bytes, v->stream));
        return JV_OK;
    }
    uint64_t *h = malloc(words * 8);
    if (!h) JV_FAIL(err, JV_ERR_NOMEM, "hip backend: %s: out of host memory for the search's operands", name);
    jv_gpu_search_pattern(h, words, t->dtype, 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1));
    int e = v->rt.upload(v->rt.ctx, *buf, h, words * 8, v->stream);
    free(h);
    if (e)
        JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: %s: uploading operand %s failed (%d)", name, search,
                ops->o[i].name, e);
    if (bytes > words * 8)
        RT_CALL(err, name, v->rt.zero(v->rt.ctx, (char *)*buf + words * 8, bytes - words * 8, v->stream));
    return JV_OK;
}

/* The search: scratch operands of ops' extents, each of the n heuristic results that fits ws_limit timed on
 * them (jv_gpu_search_time), the fastest into *ch. */
static jv_status search(const jv_hipv *v, jv_hipv_gemm *p, const jv_operands *ops, const jv_hipblaslt_heuristic *res,
                        int n, size_t ws_limit, jv_gpu_gemm_choice *ch, jv_err *err) {
    const jv_gpu_gemm_map *q = &p->map;
    const jv_hipv_runtime *rt = &v->rt;
    if (!rt->alloc || !rt->free || !rt->upload || !rt->zero || !rt->timer_start || !rt->timer_stop || !rt->sync)
        JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: gemm-algo best: the runtime gives no device timing", q->name);
    void *bufs[JV_MAX_OPERANDS] = {0};
    int roles[4] = {q->ia, q->ib, q->io, q->bias == JV_GPU_BIAS_EPILOGUE ? q->ic : -1};
    jv_status st = JV_OK;
    for (int r = 0; r < 4 && st == JV_OK; r++)
        if (roles[r] >= 0 && !bufs[roles[r]])
            st = jv_hipv_scratch(v, q->name, "gemm-algo best", ops, roles[r], roles[r] == q->io, &bufs[roles[r]], err);
    if (st == JV_OK && q->bias == JV_GPU_BIAS_EPILOGUE) {
        const void *bp = bufs[q->ic];
        int s = v->lt.desc_set(p->desc, JV_HIPBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp);
        if (s != JV_HIPBLAS_STATUS_SUCCESS)
            st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__,
                            "hip backend: %s: hipblasLtMatmulDescSetAttribute(BIAS_POINTER) failed: %s (%d)", q->name,
                            lt_status(s), s);
    }
    if (st == JV_OK) {
        int ok[JV_GPU_GEMM_CANDIDATES] = {0}, timed = 0;
        double t[JV_GPU_GEMM_CANDIDATES] = {0};
        for (int c = 0; c < n; c++)
            ok[c] = res[c].state == JV_HIPBLAS_STATUS_SUCCESS && res[c].workspace_size <= ws_limit;
        const cand_ctx cc = {v, p, res, bufs};
        const jv_gpu_search_ops o = {(void *)&cc, cand_run, cand_start, cand_stop, cand_sync};
        st = jv_gpu_search_time(&o, ok, n, t, &timed, err);
        if (st == JV_OK) st = jv_gpu_search_pick(t, n, timed, "hip", "hipBLASLt", q->name, ch, err);
        if (st == JV_OK) {
            memcpy(ch->algo, &res[ch->rank].algo, sizeof res[ch->rank].algo);
            ch->ws = res[ch->rank].workspace_size;
        }
    }
    if (st == JV_OK) {
        int e = rt->sync(rt->ctx, v->stream);
        if (e)
            st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__,
                            "hip backend: %s: gemm-algo best: stream sync failed (%d)", q->name, e);
    }
    for (int i = 0; i < JV_MAX_OPERANDS; i++)
        if (bufs[i]) rt->free(rt->ctx, bufs[i]);
    return st;
}

/* the configuration as hipBLASLt sees it: types, transposes, bias and whether C is read; the layouts of its A (our
 * B), B (our A) and C / D (out); the batch count and the workspace offered */
static void search_key(const jv_gpu_gemm_map *q, size_t ws_limit, jv_gpu_key *key) {
    memset(key, 0, sizeof *key);
    const int64_t words[] = {q->f64,
                             lt_type(q->in_dt),
                             lt_type(q->out_dt),
                             q->a.trans,
                             q->b.trans,
                             q->bias,
                             q->beta == 0,
                             (int64_t)q->a.rows,
                             (int64_t)q->a.cols,
                             q->a.ld,
                             q->a.bstride,
                             (int64_t)q->b.rows,
                             (int64_t)q->b.cols,
                             q->b.ld,
                             q->b.bstride,
                             (int64_t)q->c.rows,
                             (int64_t)q->c.cols,
                             q->c.ld,
                             q->c.bstride,
                             q->batch,
                             (int64_t)ws_limit};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        jv_gpu_key_add(key, words[i]);
}

/* hipBLASLt: descriptors, then the heuristic's first algorithm within the workspace limit (searched: the fastest
 * of its first JV_GPU_GEMM_CANDIDATES within the whole workspace). JV_ERR_NOTFOUND when hipBLASLt has no kernel for
 * it (fp64, no algorithm, no candidate that runs). */
static jv_status plan_lt(const jv_hipv *v, jv_hipv_gemm *p, const jv_operands *ops, size_t ws_limit, jv_err *err) {
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
    /* heuristic: PyTorch's 32 MiB, so that the heuristic sees what PyTorch's does; search: the whole workspace */
    size_t lim = v->gemm_search || ws_limit < JV_HIPV_LT_WORKSPACE ? ws_limit : JV_HIPV_LT_WORKSPACE;
    void *pref = NULL;
    LT_CALL(err, name, v->lt.pref_create(&pref));
    uint64_t wsb = lim;
    int s = v->lt.pref_set(pref, JV_HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb);
    jv_hipblaslt_heuristic res[JV_GPU_GEMM_CANDIDATES];
    memset(res, 0, sizeof res);
    int returned = 0;
    if (s == JV_HIPBLAS_STATUS_SUCCESS)
        s = v->lt.heuristic(v->lt_h, p->desc, p->la, p->lb, p->lc, p->lc, pref,
                            v->gemm_search ? JV_GPU_GEMM_CANDIDATES : 1, res, &returned);
    v->lt.pref_destroy(pref);
    if (s == JV_HIPBLAS_STATUS_NOT_SUPPORTED || (s == JV_HIPBLAS_STATUS_SUCCESS && returned == 0))
        JV_FAIL(err, JV_ERR_NOTFOUND, "hipBLASLt has no algorithm for M %lld N %lld K %lld batch %lld (%s)",
                (long long)q->m, (long long)q->n, (long long)q->k, (long long)q->batch, jv_dtype_short(q->in_dt));
    if (s == JV_HIPBLAS_STATUS_SUCCESS && !v->gemm_search) s = res[0].state;
    if (s != JV_HIPBLAS_STATUS_SUCCESS)
        JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: hipblasLtMatmulAlgoGetHeuristic failed: %s (%d)", name,
                lt_status(s), s);
    if (returned > JV_GPU_GEMM_CANDIDATES) returned = JV_GPU_GEMM_CANDIDATES;
    if (!v->gemm_search) {
        p->algo = res[0].algo;
        p->ws_need = res[0].workspace_size;
        return JV_OK;
    }
    jv_gpu_key key;
    search_key(q, lim, &key);
    const jv_gpu_gemm_choice *had = v->gemm_cache ? jv_gpu_gemm_cache_find(v->gemm_cache, &key) : NULL;
    if (had) {
        p->choice = *had;
    } else {
        JV_CHECK(search(v, p, ops, res, returned, lim, &p->choice, err));
        if (v->gemm_cache) JV_CHECK(jv_gpu_gemm_cache_put(v->gemm_cache, &key, &p->choice, err));
    }
    memcpy(&p->algo, p->choice.algo, sizeof p->algo);
    p->ws_need = p->choice.ws;
    p->searched = 1;
    return JV_OK;
}

static void gemm_impl(const jv_hipv_gemm *p, char *impl, size_t cap) {
    if (!cap) return;
    if (p->lib == GEMM_LT) {
        int len = snprintf(impl, cap, "hipBLASLt %salgo ws %zu B%s", p->searched ? "" : "heuristic ", p->ws_need,
                           p->map.bias == JV_GPU_BIAS_EPILOGUE ? ", bias epilogue" : "");
        if (p->searched && len > 0) jv_gpu_search_describe(&p->choice, impl, (size_t)len, cap);
    } else
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
        if (st == JV_OK && lib == GEMM_LT) st = plan_lt(v, p, ops, ws_limit, &le);
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

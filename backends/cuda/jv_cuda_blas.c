/* jv_cuda_blas: GEMM on cuBLASLt (see jv_cuda_blas.h). Column-major
 * formulation: out [M, N] row-major is the column-major N x M matrix out^T,
 * so cuBLASLt computes out^T = op(B') op(A') with B' holding our B and A'
 * our A, each in the layout its traced strides give. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm/gemm.h"
#include "jv_cuda_blas.h"
#include "jv_gpu_lib.h"

struct jv_cuda_gemm {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc; /* la: our B (cuBLASLt's A), lb: our A, lc: out (C and D) */
    cublasLtMatmulAlgo_t algo;
    size_t ws_need;
    jv_gpu_gemm_map map; /* the call in cuBLASLt's terms (jv_gpu_lib.h) */
    int searched;        /* the algorithm came from a search (choice says how it went) */
    jv_gpu_gemm_choice choice;
};

_Static_assert(sizeof(cublasLtMatmulAlgo_t) == sizeof(((jv_gpu_gemm_choice *)0)->algo),
               "jv_gpu_gemm_choice.algo holds a cublasLtMatmulAlgo_t");

static const char *lt_str(cublasStatus_t s) {
    const char *t = cublasLtGetStatusString(s);
    return t ? t : "unknown cuBLAS status";
}

#define LT_CALL(err, name, call)                                                                                       \
    do {                                                                                                               \
        cublasStatus_t lt_s_ = (call);                                                                                 \
        if (lt_s_ != CUBLAS_STATUS_SUCCESS)                                                                            \
            JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: %s: %s failed: %s (%d)", name, #call, lt_str(lt_s_),          \
                    (int)lt_s_);                                                                                       \
    } while (0)

#define RT_CALL(err, name, call)                                                                                       \
    do {                                                                                                               \
        cudaError_t rt_s_ = (call);                                                                                    \
        if (rt_s_ != cudaSuccess)                                                                                      \
            JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: %s: %s failed: %s", name, #call, cudaGetErrorString(rt_s_));  \
    } while (0)

static int lt_type(jv_dtype d, cudaDataType_t *t) {
    switch (d) {
    case JV_DT_F32: *t = CUDA_R_32F; return 1;
    case JV_DT_F16: *t = CUDA_R_16F; return 1;
    case JV_DT_BF16: *t = CUDA_R_16BF; return 1;
    case JV_DT_F64: *t = CUDA_R_64F; return 1;
    default: return 0;
    }
}

static jv_status make_layout(cublasLtMatrixLayout_t *l, cudaDataType_t t, uint64_t rows, uint64_t cols, int64_t ld,
                             int64_t batch, int64_t bstride, const char *name, jv_err *err) {
    LT_CALL(err, name, cublasLtMatrixLayoutCreate(l, t, rows, cols, ld));
    if (batch > 1) {
        int32_t bc = (int32_t)batch;
        LT_CALL(err, name, cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof bc));
        LT_CALL(err, name,
                cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &bstride,
                                                 sizeof bstride));
    }
    return JV_OK;
}

void jv_cuda_gemm_free(jv_cuda_gemm *p) {
    if (!p) return;
    if (p->la) cublasLtMatrixLayoutDestroy(p->la);
    if (p->lb) cublasLtMatrixLayoutDestroy(p->lb);
    if (p->lc) cublasLtMatrixLayoutDestroy(p->lc);
    if (p->op) cublasLtMatmulDescDestroy(p->op);
    free(p);
}

/* Fills bytes of device memory at dst with values of dtype t of magnitude in
 * [1, 2) and random sign and mantissa (random bits in the fields a GEMM's
 * data toggles, no NaN or infinity), from one host chunk uploaded over it. */
static jv_status fill_scratch(void *dst, size_t bytes, jv_dtype t, uint64_t seed, cudaStream_t s, const char *name,
                              jv_err *err) {
    enum { CHUNK = 1 << 22 };
    size_t cb = bytes < CHUNK ? bytes : CHUNK;
    cb &= ~(size_t)7;
    if (cb == 0) {
        RT_CALL(err, name, cudaMemsetAsync(dst, 0, bytes, s));
        return JV_OK;
    }
    uint64_t *h = malloc(cb);
    if (!h) JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: %s: out of host memory for the search's operands", name);
    jv_gpu_search_pattern(h, cb / 8, t, seed);
    jv_status st = JV_OK;
    for (size_t off = 0; off < bytes && st == JV_OK; off += cb) {
        size_t nb = bytes - off < cb ? bytes - off : cb;
        cudaError_t e = cudaMemcpyAsync((char *)dst + off, h, nb, cudaMemcpyHostToDevice, s);
        if (e != cudaSuccess)
            st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__, "cuda backend: %s: cudaMemcpyAsync failed: %s",
                            name, cudaGetErrorString(e));
    }
    cudaError_t e = cudaStreamSynchronize(s); /* h is read until the copies end */
    if (st == JV_OK && e != cudaSuccess)
        st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__, "cuda backend: %s: cudaStreamSynchronize failed: %s",
                        name, cudaGetErrorString(e));
    free(h);
    return st;
}

/* what the search's timing loop (jv_gpu_search_time) runs: the heuristic's candidates on scratch operands */
typedef struct {
    cublasLtHandle_t lt;
    const jv_cuda_gemm *p;
    const cublasLtMatmulHeuristicResult_t *res;
    void *const *bufs;
    const jv_cuda_gemm_pick *pick;
    cudaEvent_t e0, e1;
} cand_ctx;

static jv_status cand_run(void *ctx, int i, int *launched, jv_err *err) {
    const cand_ctx *c = ctx;
    const jv_cuda_gemm *p = c->p;
    float af = (float)p->map.alpha, bf = (float)p->map.beta;
    const void *alpha = &af, *beta = &bf;
    if (p->map.f64) alpha = &p->map.alpha, beta = &p->map.beta;
    void *out = c->bufs[p->map.io];
    cublasStatus_t ls =
        cublasLtMatmul(c->lt, p->op, alpha, c->bufs[p->map.ib], p->la, c->bufs[p->map.ia], p->lb, beta, out, p->lc, out,
                       p->lc, &c->res[i].algo, c->pick->ws, c->res[i].workspaceSize, c->pick->stream);
    (void)err;
    *launched = ls == CUBLAS_STATUS_SUCCESS; /* a candidate that does not launch is skipped */
    return JV_OK;
}

static jv_status cand_start(void *ctx, jv_err *err) {
    const cand_ctx *c = ctx;
    RT_CALL(err, c->p->map.name, cudaEventRecord(c->e0, c->pick->stream));
    return JV_OK;
}

static jv_status cand_stop(void *ctx, double *ms, jv_err *err) {
    const cand_ctx *c = ctx;
    RT_CALL(err, c->p->map.name, cudaEventRecord(c->e1, c->pick->stream));
    RT_CALL(err, c->p->map.name, cudaEventSynchronize(c->e1));
    float f = 0;
    RT_CALL(err, c->p->map.name, cudaEventElapsedTime(&f, c->e0, c->e1));
    *ms = f;
    return JV_OK;
}

static jv_status cand_sync(void *ctx, jv_err *err) {
    const cand_ctx *c = ctx;
    RT_CALL(err, c->p->map.name, cudaStreamSynchronize(c->pick->stream));
    return JV_OK;
}

/* The search (jv_cuda_gemm_pick.search): scratch operands of ops' extents,
 * each of the n heuristic results that fits ws_limit timed on them, the
 * fastest into *ch. */
static jv_status search(cublasLtHandle_t lt, jv_cuda_gemm *p, const jv_operands *ops,
                        const cublasLtMatmulHeuristicResult_t *res, int n, const jv_cuda_gemm_pick *pick,
                        size_t ws_limit, jv_gpu_gemm_choice *ch, jv_err *err) {
    memset(ch, 0, sizeof *ch);
    void *bufs[JV_MAX_OPERANDS] = {0};
    int roles[4] = {p->map.ia, p->map.ib, p->map.io, p->map.bias == JV_GPU_BIAS_EPILOGUE ? p->map.ic : -1};
    cudaEvent_t e0 = NULL, e1 = NULL;
    double t[JV_GPU_GEMM_CANDIDATES] = {0};
    jv_status st = JV_OK;
    for (int r = 0; r < 4 && st == JV_OK; r++) {
        int i = roles[r];
        if (i < 0 || bufs[i]) continue;
        const jv_tensor *tt = &ops->o[i].t;
        size_t bytes = (size_t)jv_tensor_extent(tt) * jv_dtype_size(tt->dtype);
        cudaError_t e = cudaMalloc(&bufs[i], bytes ? bytes : 1);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            bufs[i] = NULL;
            st = jv_err_set(err, e == cudaErrorMemoryAllocation ? JV_ERR_NOMEM : JV_ERR_INTERNAL, __FILE__, __LINE__,
                            "cuda backend: %s: gemm-algo best: cannot allocate %zu bytes of scratch operand %s: %s",
                            p->map.name, bytes, ops->o[i].name, cudaGetErrorString(e));
            break;
        }
        if (i == p->map.io) { /* out: read only as C (beta != 0); zeros */
            e = cudaMemsetAsync(bufs[i], 0, bytes, pick->stream);
            if (e != cudaSuccess)
                st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__,
                                "cuda backend: %s: cudaMemsetAsync failed: %s", p->map.name, cudaGetErrorString(e));
            continue;
        }
        st = fill_scratch(bufs[i], bytes, tt->dtype, 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1), pick->stream,
                          p->map.name, err);
    }
    if (st == JV_OK && p->map.bias == JV_GPU_BIAS_EPILOGUE) {
        const void *bp = bufs[p->map.ic];
        cublasStatus_t ls = cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp);
        if (ls != CUBLAS_STATUS_SUCCESS)
            st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__,
                            "cuda backend: %s: cublasLtMatmulDescSetAttribute(BIAS_POINTER) failed: %s", p->map.name,
                            lt_str(ls));
    }
    if (st == JV_OK) {
        cudaError_t e = cudaEventCreate(&e0);
        if (e == cudaSuccess) e = cudaEventCreate(&e1);
        if (e != cudaSuccess)
            st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__, "cuda backend: %s: cudaEventCreate failed: %s",
                            p->map.name, cudaGetErrorString(e));
    }
    if (st == JV_OK) {
        int ok[JV_GPU_GEMM_CANDIDATES] = {0}, timed = 0;
        for (int c = 0; c < n; c++)
            ok[c] = res[c].state == CUBLAS_STATUS_SUCCESS && res[c].workspaceSize <= ws_limit;
        const cand_ctx cc = {lt, p, res, bufs, pick, e0, e1};
        const jv_gpu_search_ops ops_t = {(void *)&cc, cand_run, cand_start, cand_stop, cand_sync};
        st = jv_gpu_search_time(&ops_t, ok, n, t, &timed, err);
        if (st == JV_OK) st = jv_gpu_search_pick(t, n, timed, "cuda", "cuBLASLt", p->map.name, ch, err);
        if (st == JV_OK) {
            memcpy(ch->algo, &res[ch->rank].algo, sizeof ch->algo);
            ch->ws = res[ch->rank].workspaceSize;
        }
    }
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (st == JV_OK) {
        cudaError_t e = cudaStreamSynchronize(pick->stream);
        if (e != cudaSuccess)
            st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__,
                            "cuda backend: %s: cudaStreamSynchronize failed: %s", p->map.name, cudaGetErrorString(e));
    }
    for (int i = 0; i < JV_MAX_OPERANDS; i++)
        if (bufs[i]) cudaFree(bufs[i]);
    return st;
}

jv_status jv_cuda_gemm_plan(cublasLtHandle_t lt, const jv_desc *d, const jv_operands *ops,
                            const jv_cuda_gemm_pick *pick, jv_cuda_gemm **out, jv_err *err) {
    *out = NULL;
    jv_gpu_gemm_map q;
    JV_CHECK(jv_gpu_gemm_map_of("cuda", "cuBLASLt", d, ops, &q, err));
    const char *name = q.name;
    cudaDataType_t da, dout;
    if (!lt_type(q.in_dt, &da) || !lt_type(q.out_dt, &dout))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: no cuBLASLt GEMM for dtypes %s -> %s", name,
                jv_dtype_short(q.in_dt), jv_dtype_short(q.out_dt));
    const cudaDataType_t db = da;
    const int f64 = q.f64;
    const int64_t m = q.m, n = q.n, k = q.k, batch = q.batch;
    /* cuBLASLt's A is our B (we need B^T: N x K), its B is our A (A^T: K x M), C/D is out^T (N x M) */
    const cublasOperation_t opa = q.a.trans ? CUBLAS_OP_T : CUBLAS_OP_N, opb = q.b.trans ? CUBLAS_OP_T : CUBLAS_OP_N;

    jv_cuda_gemm *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: %s: out of memory", name);
    p->map = q;
    jv_status st = jv_gpu_gemm_bias("cuda", &p->map, ops, 1, err);
    if (st != JV_OK) goto fail;

    cublasComputeType_t ct = f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
    cudaDataType_t scale = f64 ? CUDA_R_64F : CUDA_R_32F;
#define PLAN_LT(call)                                                                                                  \
    do {                                                                                                               \
        cublasStatus_t s_ = (call);                                                                                    \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                             \
            st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__, "cuda backend: %s: %s failed: %s (%d)", name,    \
                            #call, lt_str(s_), (int)s_);                                                               \
            goto fail;                                                                                                 \
        }                                                                                                              \
    } while (0)
    PLAN_LT(cublasLtMatmulDescCreate(&p->op, ct, scale));
    int32_t ta_op = (int32_t)opa, tb_op = (int32_t)opb;
    PLAN_LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta_op, sizeof ta_op));
    PLAN_LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb_op, sizeof tb_op));
    if (p->map.bias == JV_GPU_BIAS_EPILOGUE) {
        uint32_t epi = (uint32_t)CUBLASLT_EPILOGUE_BIAS;
        int32_t bt = (int32_t)dout;
        PLAN_LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
        PLAN_LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt));
    }
    st = make_layout(&p->la, db, q.a.rows, q.a.cols, q.a.ld, batch, q.a.bstride, name, err);
    if (st == JV_OK) st = make_layout(&p->lb, da, q.b.rows, q.b.cols, q.b.ld, batch, q.b.bstride, name, err);
    if (st == JV_OK) st = make_layout(&p->lc, dout, q.c.rows, q.c.cols, q.c.ld, batch, q.c.bstride, name, err);
    if (st != JV_OK) goto fail;

    /* heuristic: PyTorch's 32 MiB, so that the heuristic sees what PyTorch's does; search: the whole workspace */
    size_t ws_limit = pick->search || pick->ws_bytes < JV_CUDA_LT_WORKSPACE ? pick->ws_bytes : JV_CUDA_LT_WORKSPACE;
    cublasLtMatmulPreference_t pref = NULL;
    PLAN_LT(cublasLtMatmulPreferenceCreate(&pref));
    uint64_t wsb = (uint64_t)ws_limit;
    cublasStatus_t ps =
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb);
    cublasLtMatmulHeuristicResult_t res[JV_GPU_GEMM_CANDIDATES];
    memset(res, 0, sizeof res);
    int returned = 0;
    if (ps == CUBLAS_STATUS_SUCCESS)
        ps = cublasLtMatmulAlgoGetHeuristic(lt, p->op, p->la, p->lb, p->lc, p->lc, pref,
                                            pick->search ? JV_GPU_GEMM_CANDIDATES : 1, res, &returned);
    cublasLtMatmulPreferenceDestroy(pref);
    if (ps == CUBLAS_STATUS_NOT_SUPPORTED || (ps == CUBLAS_STATUS_SUCCESS && returned == 0)) {
        st = jv_err_set(err, JV_ERR_NOTFOUND, __FILE__, __LINE__,
                        "cuda backend: %s: cuBLASLt has no algorithm for M %lld N %lld K %lld batch %lld (%s x %s)",
                        name, (long long)m, (long long)n, (long long)k, (long long)batch, jv_dtype_short(q.in_dt),
                        jv_dtype_short(q.in_dt));
        goto fail;
    }
    PLAN_LT(ps);
    if (!pick->search) {
        if (res[0].state != CUBLAS_STATUS_SUCCESS) PLAN_LT(res[0].state);
        p->algo = res[0].algo;
        p->ws_need = res[0].workspaceSize;
    } else {
        /* the configuration as cuBLASLt sees it: types, transposes, bias and whether C is read; the layouts of
         * its A (our B), B (our A) and C / D (out); the batch count and the workspace offered */
        jv_gpu_key key;
        memset(&key, 0, sizeof key);
        const int64_t words[] = {f64,
                                 da,
                                 db,
                                 dout,
                                 opa,
                                 opb,
                                 p->map.bias,
                                 p->map.beta == 0,
                                 (int64_t)q.a.rows,
                                 (int64_t)q.a.cols,
                                 q.a.ld,
                                 q.a.bstride,
                                 (int64_t)q.b.rows,
                                 (int64_t)q.b.cols,
                                 q.b.ld,
                                 q.b.bstride,
                                 (int64_t)q.c.rows,
                                 (int64_t)q.c.cols,
                                 q.c.ld,
                                 q.c.bstride,
                                 batch,
                                 (int64_t)ws_limit};
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            jv_gpu_key_add(&key, words[i]);
        const jv_gpu_gemm_choice *had = pick->cache ? jv_gpu_gemm_cache_find(pick->cache, &key) : NULL;
        if (had) {
            p->choice = *had;
        } else {
            st = search(lt, p, ops, res, returned, pick, ws_limit, &p->choice, err);
            if (st != JV_OK) goto fail;
            if (pick->cache) {
                st = jv_gpu_gemm_cache_put(pick->cache, &key, &p->choice, err);
                if (st != JV_OK) goto fail;
            }
        }
        memcpy(&p->algo, p->choice.algo, sizeof p->algo);
        p->ws_need = p->choice.ws;
        p->searched = 1;
    }
#undef PLAN_LT
    *out = p;
    return JV_OK;
fail:
    jv_cuda_gemm_free(p);
    return st;
}

/* a device-to-device 2-D copy on the stream ctx points to (jv_gpu_copy2d_fn), for the bias copied into out */
static jv_status copy2d(void *ctx, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                        size_t height, jv_err *err) {
    cudaError_t e =
        cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, cudaMemcpyDeviceToDevice, *(cudaStream_t *)ctx);
    if (e != cudaSuccess)
        JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: copying the bias: cudaMemcpy2DAsync failed: %s",
                cudaGetErrorString(e));
    return JV_OK;
}

jv_status jv_cuda_gemm_run(cublasLtHandle_t lt, const jv_cuda_gemm *p, void *const *bufs, void *ws, size_t ws_bytes,
                           cudaStream_t stream, jv_err *err) {
    void *out = bufs[p->map.io];
    if (p->map.bias == JV_GPU_BIAS_EPILOGUE) {
        const void *bp = bufs[p->map.ic];
        LT_CALL(err, p->map.name,
                cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
    } else if (p->map.bias == JV_GPU_BIAS_COPY) {
        JV_CHECK(jv_gpu_gemm_bias_copy(&p->map, bufs[p->map.ic], out, copy2d, &stream, err));
    }
    if (p->ws_need > ws_bytes)
        JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: %s: workspace of %zu bytes, the algorithm needs %zu", p->map.name,
                ws_bytes, p->ws_need);
    float af = (float)p->map.alpha, bf = (float)p->map.beta;
    const void *alpha = &af, *beta = &bf;
    if (p->map.f64) alpha = &p->map.alpha, beta = &p->map.beta;
    /* cuBLASLt's A is our B and its B our A */
    LT_CALL(err, p->map.name,
            cublasLtMatmul(lt, p->op, alpha, bufs[p->map.ib], p->la, bufs[p->map.ia], p->lb, beta, out, p->lc, out,
                           p->lc, &p->algo, ws, p->ws_need, stream));
    return JV_OK;
}

void jv_cuda_gemm_describe(const jv_cuda_gemm *p, char *buf, size_t cap) {
    if (!cap) return;
    int32_t id = -1, splitk = 0;
    uint32_t tile = 0, stages = 0, swz = 0;
    size_t w = 0;
    /* a field cuBLASLt does not report stays at its marker value */
    (void)cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &w);
    (void)cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &w);
    (void)cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &w);
    (void)cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &w);
    (void)cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swz, sizeof swz, &w);
    int len = snprintf(buf, cap, "cuBLASLt algo %d tile id %u stages id %u splitK %d swizzle %u ws %zu B", (int)id,
                       (unsigned)tile, (unsigned)stages, (int)splitk, (unsigned)swz, p->ws_need);
    if (!p->searched || len < 0 || (size_t)len >= cap) return;
    jv_gpu_search_describe(&p->choice, buf, (size_t)len, cap);
}

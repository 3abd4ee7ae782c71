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

/* How the bias reaches out. */
typedef enum { BIAS_NONE = 0, BIAS_EPILOGUE, BIAS_COPY } bias_mode;

/* One operand as cuBLASLt sees it. */
typedef struct {
    int64_t rows, cols; /* the row-major matrix [rows, cols] of one batch entry */
    int64_t sr, sc;     /* its strides (elements) */
    int64_t sb;         /* batch stride (0: shared by every batch entry) */
} mat_view;

struct jv_cuda_gemm {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc; /* la: our B (cuBLASLt's A), lb: our A, lc: out (C and D) */
    cublasLtMatmulAlgo_t algo;
    size_t ws_need;
    int ia, ib, io, ic; /* operand indices (ic -1: no bias) */
    int f64;            /* scale type double */
    double alpha, beta; /* beta as passed to cuBLASLt (0 with the epilogue bias) */
    bias_mode bias;
    int64_t batch, m, n;
    size_t es;              /* bytes of one out element */
    int64_t bias_st[3];     /* bias strides over out's [batch, M, N] (0: broadcast) */
    int64_t out_rs, out_bs; /* out's row and batch strides (elements; its N stride is 1) */
    const char *name;       /* op name for messages */
    int searched;           /* the algorithm came from a search (choice says how it went) */
    jv_cuda_gemm_choice choice;
};

_Static_assert(sizeof(cublasLtMatmulAlgo_t) == sizeof(((jv_cuda_gemm_choice *)0)->algo),
               "jv_cuda_gemm_choice.algo holds a cublasLtMatmulAlgo_t");

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

/* Collapses dims [lo, hi] of t into one dim of *size with stride *stride
 * (dims of size 1 ignored). Returns 0 when their strides do not nest. */
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

/* The matrix view of t: its last two dims, leading dims as one batch
 * (fold: leading dims folded into the rows instead). */
static int view_of(const jv_tensor *t, int fold, mat_view *v) {
    if (t->ndim < 2) return 0;
    int nd = t->ndim;
    v->cols = t->shape[nd - 1];
    v->sc = t->strides[nd - 1];
    if (fold) {
        if (!collapse(t, 0, nd - 2, &v->rows, &v->sr)) return 0;
        v->sb = 0;
        return 1;
    }
    v->rows = t->shape[nd - 2];
    v->sr = t->strides[nd - 2];
    v->sb = 0;
    if (nd > 2) {
        int64_t bs;
        if (!collapse(t, 0, nd - 3, &bs, &v->sb)) return 0;
    }
    return 1;
}

/* Column-major layout of X^T for the row-major matrix X of v: *op is the
 * operation cuBLASLt applies to the stored matrix to get X^T. */
static int layout_of(const mat_view *v, uint64_t *rows, uint64_t *cols, int64_t *ld, cublasOperation_t *op) {
    int64_t r = v->rows, c = v->cols;
    if (c == 1 || v->sc == 1) { /* row-major: stored as the c x r column-major X^T */
        int64_t l = r == 1 ? (c > 0 ? c : 1) : v->sr;
        if (l >= c && l > 0) {
            *rows = (uint64_t)c, *cols = (uint64_t)r, *ld = l, *op = CUBLAS_OP_N;
            return 1;
        }
    }
    if (r == 1 || v->sr == 1) { /* column-major X: transpose it */
        int64_t l = c == 1 ? (r > 0 ? r : 1) : v->sc;
        if (l >= r && l > 0) {
            *rows = (uint64_t)r, *cols = (uint64_t)c, *ld = l, *op = CUBLAS_OP_T;
            return 1;
        }
    }
    return 0;
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

/* Decides how the bias operand reaches out; fills p->bias and p->bias_st. */
static jv_status plan_bias(jv_cuda_gemm *p, const jv_operands *ops, jv_err *err) {
    p->bias = BIAS_NONE;
    if (p->ic < 0 || p->beta == 0) return JV_OK;
    const jv_tensor *b = &ops->o[p->ic].t, *o = &ops->o[p->io].t;
    if (b->dtype != o->dtype)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: bias dtype %s differs from the output's %s", p->name,
                jv_dtype_short(b->dtype), jv_dtype_short(o->dtype));
    if (b->ndim > 3)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: a bias of %d dims is not supported", p->name, b->ndim);
    /* strides over [batch, M, N], right-aligned; size-1 (broadcast) dims get 0 */
    int64_t want[3] = {p->batch, p->m, p->n};
    for (int k = 0; k < 3; k++) {
        int i = b->ndim - 3 + k;
        p->bias_st[k] = 0;
        if (i < 0) continue;
        if (b->shape[i] != 1 && b->shape[i] != want[k])
            JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: bias shape does not broadcast to the output", p->name);
        if (b->shape[i] != 1) p->bias_st[k] = b->strides[i];
    }
    if (p->n > 1 && p->bias_st[2] != 1 && !(p->bias_st[2] == 0 && p->bias_st[1] == 0 && p->bias_st[0] == 0))
        JV_FAIL(err, JV_ERR_NOTFOUND,
                "cuda backend: %s: a bias broadcast along N or strided in N is not supported (stride %lld)", p->name,
                (long long)p->bias_st[2]);
    if (p->bias_st[1] != 0 && p->bias_st[1] < p->n)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: the bias rows overlap (row stride %lld < N %lld)", p->name,
                (long long)p->bias_st[1], (long long)p->n);
    if (p->beta == 1 && p->bias_st[0] == 0 && p->bias_st[1] == 0 && p->bias_st[2] == 1 && !p->f64 && p->batch == 1) {
        p->bias = BIAS_EPILOGUE;
        p->beta = 0;
    } else {
        p->bias = BIAS_COPY;
    }
    return JV_OK;
}

/* Fills bytes of device memory at dst with values of dtype t of magnitude in
 * [1, 2) and random sign and mantissa (random bits in the fields a GEMM's
 * data toggles, no NaN or infinity), from one host chunk uploaded over it. */
static jv_status fill_scratch(void *dst, size_t bytes, cudaDataType_t t, uint64_t seed, cudaStream_t s,
                              const char *name, jv_err *err) {
    enum { CHUNK = 1 << 22 };
    size_t cb = bytes < CHUNK ? bytes : CHUNK;
    cb &= ~(size_t)7;
    if (cb == 0) {
        RT_CALL(err, name, cudaMemsetAsync(dst, 0, bytes, s));
        return JV_OK;
    }
    uint64_t *h = malloc(cb);
    if (!h) JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: %s: out of host memory for the search's operands", name);
    uint64_t x = seed | 1;
    for (size_t i = 0; i < cb / 8; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        switch (t) {
        case CUDA_R_16BF: h[i] = (x & 0x807F807F807F807Full) | 0x3F803F803F803F80ull; break;
        case CUDA_R_16F: h[i] = (x & 0x83FF83FF83FF83FFull) | 0x3C003C003C003C00ull; break;
        case CUDA_R_32F: h[i] = (x & 0x807FFFFF807FFFFFull) | 0x3F8000003F800000ull; break;
        default: h[i] = (x & 0x800FFFFFFFFFFFFFull) | 0x3FF0000000000000ull; break;
        }
    }
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

/* Times one candidate: JV_CUDA_GEMM_WARMUP launches, then JV_CUDA_GEMM_REPS
 * each between two events; *ms = their median, 0 when cuBLASLt refuses to
 * launch it. A runtime failure is an error. */
static jv_status time_candidate(cublasLtHandle_t lt, const jv_cuda_gemm *p, const cublasLtMatmulAlgo_t *algo,
                                size_t ws_need, void *const *bufs, const jv_cuda_gemm_pick *pick, cudaEvent_t e0,
                                cudaEvent_t e1, double *ms, jv_err *err) {
    *ms = 0;
    float af = (float)p->alpha, bf = (float)p->beta;
    const void *alpha = &af, *beta = &bf;
    if (p->f64) alpha = &p->alpha, beta = &p->beta;
    void *out = bufs[p->io];
    double t[JV_CUDA_GEMM_REPS];
    for (int i = 0; i < JV_CUDA_GEMM_WARMUP + JV_CUDA_GEMM_REPS; i++) {
        int timed = i >= JV_CUDA_GEMM_WARMUP;
        if (timed) RT_CALL(err, p->name, cudaEventRecord(e0, pick->stream));
        cublasStatus_t ls = cublasLtMatmul(lt, p->op, alpha, bufs[p->ib], p->la, bufs[p->ia], p->lb, beta, out, p->lc,
                                           out, p->lc, algo, pick->ws, ws_need, pick->stream);
        if (ls != CUBLAS_STATUS_SUCCESS) { /* this candidate does not launch: skipped */
            RT_CALL(err, p->name, cudaStreamSynchronize(pick->stream));
            return JV_OK;
        }
        if (!timed) continue;
        RT_CALL(err, p->name, cudaEventRecord(e1, pick->stream));
        RT_CALL(err, p->name, cudaEventSynchronize(e1));
        float f = 0;
        RT_CALL(err, p->name, cudaEventElapsedTime(&f, e0, e1));
        t[i - JV_CUDA_GEMM_WARMUP] = f;
    }
    *ms = jv_cuda_median(t, JV_CUDA_GEMM_REPS);
    return JV_OK;
}

/* The search (jv_cuda_gemm_pick.search): scratch operands of ops' extents,
 * each of the n heuristic results that fits ws_limit timed on them, the
 * fastest into *ch. */
static jv_status search(cublasLtHandle_t lt, jv_cuda_gemm *p, const jv_operands *ops,
                        const cublasLtMatmulHeuristicResult_t *res, int n, const jv_cuda_gemm_pick *pick,
                        size_t ws_limit, jv_cuda_gemm_choice *ch, jv_err *err) {
    memset(ch, 0, sizeof *ch);
    ch->offered = n;
    void *bufs[JV_MAX_OPERANDS] = {0};
    int roles[4] = {p->ia, p->ib, p->io, p->bias == BIAS_EPILOGUE ? p->ic : -1};
    cudaEvent_t e0 = NULL, e1 = NULL;
    double t[JV_CUDA_GEMM_CANDIDATES] = {0};
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
                            p->name, bytes, ops->o[i].name, cudaGetErrorString(e));
            break;
        }
        if (i == p->io) { /* out: read only as C (beta != 0); zeros */
            e = cudaMemsetAsync(bufs[i], 0, bytes, pick->stream);
            if (e != cudaSuccess)
                st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__,
                                "cuda backend: %s: cudaMemsetAsync failed: %s", p->name, cudaGetErrorString(e));
            continue;
        }
        cudaDataType_t dt = CUDA_R_32F;
        (void)lt_type(tt->dtype, &dt);
        st = fill_scratch(bufs[i], bytes, dt, 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1), pick->stream, p->name, err);
    }
    if (st == JV_OK && p->bias == BIAS_EPILOGUE) {
        const void *bp = bufs[p->ic];
        cublasStatus_t ls = cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp);
        if (ls != CUBLAS_STATUS_SUCCESS)
            st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__,
                            "cuda backend: %s: cublasLtMatmulDescSetAttribute(BIAS_POINTER) failed: %s", p->name,
                            lt_str(ls));
    }
    if (st == JV_OK) {
        cudaError_t e = cudaEventCreate(&e0);
        if (e == cudaSuccess) e = cudaEventCreate(&e1);
        if (e != cudaSuccess)
            st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__, "cuda backend: %s: cudaEventCreate failed: %s",
                            p->name, cudaGetErrorString(e));
    }
    for (int c = 0; c < n && st == JV_OK; c++) {
        if (res[c].state != CUBLAS_STATUS_SUCCESS || res[c].workspaceSize > ws_limit) continue;
        st = time_candidate(lt, p, &res[c].algo, res[c].workspaceSize, bufs, pick, e0, e1, &t[c], err);
        if (st == JV_OK && t[c] > 0) ch->timed++;
    }
    if (st == JV_OK) {
        int b = jv_cuda_fastest(t, n);
        if (b < 0) {
            st = jv_err_set(err, JV_ERR_NOTFOUND, __FILE__, __LINE__,
                            "cuda backend: %s: gemm-algo best: none of cuBLASLt's %d candidates ran", p->name, n);
        } else {
            memcpy(ch->algo, &res[b].algo, sizeof ch->algo);
            ch->ws = res[b].workspaceSize;
            ch->rank = b;
            ch->ms = t[b];
            ch->first_ms = t[0];
        }
    }
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (st == JV_OK) {
        cudaError_t e = cudaStreamSynchronize(pick->stream);
        if (e != cudaSuccess)
            st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__,
                            "cuda backend: %s: cudaStreamSynchronize failed: %s", p->name, cudaGetErrorString(e));
    }
    for (int i = 0; i < JV_MAX_OPERANDS; i++)
        if (bufs[i]) cudaFree(bufs[i]);
    return st;
}

jv_status jv_cuda_gemm_plan(cublasLtHandle_t lt, const jv_desc *d, const jv_operands *ops,
                            const jv_cuda_gemm_pick *pick, jv_cuda_gemm **out, jv_err *err) {
    const jv_gemm_desc *g = jv_gemm_of(d);
    *out = NULL;
    jv_gemm_roles ro;
    jv_err re = {0};
    if (jv_gemm_roles_of(d, ops, &ro, &re) != JV_OK) JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s", re.msg);
    const char *name = ro.name;
    int ia = ro.a, ib = ro.b, io = ro.out, ic = ro.c;
    const jv_tensor *ta = &ops->o[ia].t, *tb = &ops->o[ib].t, *to = &ops->o[io].t;
    cudaDataType_t da, db, dout;
    if (!lt_type(ta->dtype, &da) || !lt_type(tb->dtype, &db) || !lt_type(to->dtype, &dout) || da != db)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: no cuBLASLt GEMM for dtypes %s x %s -> %s", name,
                jv_dtype_short(ta->dtype), jv_dtype_short(tb->dtype), jv_dtype_short(to->dtype));
    int f64 = da == CUDA_R_64F;
    if (f64 != (dout == CUDA_R_64F) || (da == CUDA_R_32F && dout != CUDA_R_32F))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: no cuBLASLt GEMM for %s inputs with a %s output", name,
                jv_dtype_short(ta->dtype), jv_dtype_short(to->dtype));

    /* matrix views: a linear (or a matmul with a 2-D right operand) folds A's leading dims into M */
    int fold = (g->op == JV_GEMM_LINEAR || g->op == JV_GEMM_MATMUL) && tb->ndim == 2;
    if (ta->ndim < 2 || tb->ndim < 2)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: 1-D operands are not run on cuBLASLt", name);
    if (g->op == JV_GEMM_MATMUL && !fold && ta->ndim != tb->ndim)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: broadcast batch dims are not run on cuBLASLt", name);
    if (g->op == JV_GEMM_MATMUL && !fold)
        for (int i = 0; i < ta->ndim - 2; i++)
            if (ta->shape[i] != tb->shape[i])
                JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: broadcast batch dims are not run on cuBLASLt", name);
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
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: operand strides do not collapse into a (batched) matrix",
                name);
    int64_t m = va.rows, k = va.cols, n = vb.cols;
    int64_t batch = fold ? 1 : (g->batch > 0 ? g->batch : 1);
    if (vb.rows != k || vo.rows != m || vo.cols != n)
        JV_FAIL(err, JV_ERR_NOTFOUND,
                "cuda backend: %s: shapes [%lld, %lld] x [%lld, %lld] -> [%lld, %lld] do not multiply", name,
                (long long)m, (long long)k, (long long)vb.rows, (long long)n, (long long)vo.rows, (long long)vo.cols);
    if (vo.sc != 1 && n > 1) JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: the output is not row-major", name);
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || batch > INT32_MAX)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: a dim exceeds 2^31", name);
    if (m == 0 || n == 0 || k == 0)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: an empty GEMM (M %lld N %lld K %lld)", name, (long long)m,
                (long long)n, (long long)k);

    uint64_t ra, ca, rb, cb, rc, cc;
    int64_t lda, ldb, ldc;
    cublasOperation_t opa, opb, opc;
    /* cuBLASLt's A is our B (we need B^T: N x K), its B is our A (A^T: K x M), C/D is out^T (N x M) */
    if (!layout_of(&vb, &ra, &ca, &lda, &opa) || !layout_of(&va, &rb, &cb, &ldb, &opb) ||
        !layout_of(&vo, &rc, &cc, &ldc, &opc) || opc != CUBLAS_OP_N)
        JV_FAIL(err, JV_ERR_NOTFOUND,
                "cuda backend: %s: operand strides (A %lld,%lld; B %lld,%lld) are neither row- nor column-major", name,
                (long long)va.sr, (long long)va.sc, (long long)vb.sr, (long long)vb.sc);
    if (batch > 1 && vo.sb < m * ldc) JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: output batches overlap", name);

    jv_cuda_gemm *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: %s: out of memory", name);
    p->ia = ia, p->ib = ib, p->io = io, p->ic = ic;
    p->f64 = f64;
    p->alpha = g->alpha, p->beta = g->beta;
    if (g->op == JV_GEMM_LINEAR || g->op == JV_GEMM_MM || g->op == JV_GEMM_BMM || g->op == JV_GEMM_MATMUL)
        p->alpha = 1, p->beta = ic >= 0 ? 1 : 0;
    p->batch = batch, p->m = m, p->n = n;
    p->out_rs = ldc, p->out_bs = batch > 1 ? vo.sb : (int64_t)m * ldc;
    p->es = jv_dtype_size(to->dtype);
    p->name = name;
    jv_status st = plan_bias(p, ops, err);
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
    if (p->bias == BIAS_EPILOGUE) {
        uint32_t epi = (uint32_t)CUBLASLT_EPILOGUE_BIAS;
        int32_t bt = (int32_t)dout;
        PLAN_LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
        PLAN_LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt));
    }
    st = make_layout(&p->la, db, ra, ca, lda, batch, vb.sb, name, err);
    if (st == JV_OK) st = make_layout(&p->lb, da, rb, cb, ldb, batch, va.sb, name, err);
    if (st == JV_OK) st = make_layout(&p->lc, dout, rc, cc, ldc, batch, vo.sb, name, err);
    if (st != JV_OK) goto fail;

    /* heuristic: PyTorch's 32 MiB, so that the heuristic sees what PyTorch's does; search: the whole workspace */
    size_t ws_limit = pick->search || pick->ws_bytes < JV_CUDA_LT_WORKSPACE ? pick->ws_bytes : JV_CUDA_LT_WORKSPACE;
    cublasLtMatmulPreference_t pref = NULL;
    PLAN_LT(cublasLtMatmulPreferenceCreate(&pref));
    uint64_t wsb = (uint64_t)ws_limit;
    cublasStatus_t ps =
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb);
    cublasLtMatmulHeuristicResult_t res[JV_CUDA_GEMM_CANDIDATES];
    memset(res, 0, sizeof res);
    int returned = 0;
    if (ps == CUBLAS_STATUS_SUCCESS)
        ps = cublasLtMatmulAlgoGetHeuristic(lt, p->op, p->la, p->lb, p->lc, p->lc, pref,
                                            pick->search ? JV_CUDA_GEMM_CANDIDATES : 1, res, &returned);
    cublasLtMatmulPreferenceDestroy(pref);
    if (ps == CUBLAS_STATUS_NOT_SUPPORTED || (ps == CUBLAS_STATUS_SUCCESS && returned == 0)) {
        st = jv_err_set(err, JV_ERR_NOTFOUND, __FILE__, __LINE__,
                        "cuda backend: %s: cuBLASLt has no algorithm for M %lld N %lld K %lld batch %lld (%s x %s)",
                        name, (long long)m, (long long)n, (long long)k, (long long)batch, jv_dtype_short(ta->dtype),
                        jv_dtype_short(tb->dtype));
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
        jv_cuda_conv_key key;
        memset(&key, 0, sizeof key);
        const int64_t words[] = {f64,         da,
                                 db,          dout,
                                 opa,         opb,
                                 p->bias,     p->beta == 0,
                                 (int64_t)ra, (int64_t)ca,
                                 lda,         vb.sb,
                                 (int64_t)rb, (int64_t)cb,
                                 ldb,         va.sb,
                                 (int64_t)rc, (int64_t)cc,
                                 ldc,         vo.sb,
                                 batch,       (int64_t)ws_limit};
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            jv_cuda_conv_key_add(&key, words[i]);
        const jv_cuda_gemm_choice *had = pick->cache ? jv_cuda_gemm_cache_find(pick->cache, &key) : NULL;
        if (had) {
            p->choice = *had;
        } else {
            st = search(lt, p, ops, res, returned, pick, ws_limit, &p->choice, err);
            if (st != JV_OK) goto fail;
            if (pick->cache) {
                st = jv_cuda_gemm_cache_put(pick->cache, &key, &p->choice, err);
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

/* Copies rows [0, have) of a matrix (rows of `row` bytes, `pitch` bytes apart)
 * over its rows [have, total), doubling the copied block each time. */
static jv_status repeat_rows(char *m, size_t pitch, size_t row, size_t have, size_t total, cudaStream_t s,
                             const char *name, jv_err *err) {
    while (have < total) {
        size_t n = have < total - have ? have : total - have;
        RT_CALL(err, name, cudaMemcpy2DAsync(m + have * pitch, pitch, m, pitch, row, n, cudaMemcpyDeviceToDevice, s));
        have += n;
    }
    return JV_OK;
}

/* Writes the bias, broadcast to [batch, M, N], into out, whose rows are
 * p->out_rs and batches p->out_bs elements apart (dense rows of N). */
static jv_status copy_bias(const jv_cuda_gemm *p, const char *bias, char *out, cudaStream_t s, jv_err *err) {
    const size_t es = p->es, row = (size_t)p->n * es, pitch = (size_t)p->out_rs * es, bpitch = (size_t)p->out_bs * es;
    const int64_t *st = p->bias_st;
    /* whole batches are rows of one matrix when they follow each other without a gap */
    const int flat = p->out_bs == p->m * p->out_rs;
    const int64_t nb = st[0] ? p->batch : 1; /* batch entries the bias distinguishes */
    for (int64_t b = 0; b < nb; b++) {
        char *ob = out + (size_t)b * bpitch;
        const char *bb = bias + (size_t)(b * st[0]) * es;
        if (st[1]) { /* one bias row per output row */
            RT_CALL(
                err, p->name,
                cudaMemcpy2DAsync(ob, pitch, bb, (size_t)st[1] * es, row, (size_t)p->m, cudaMemcpyDeviceToDevice, s));
            continue;
        }
        if (st[2]) { /* one row, repeated over the M rows */
            RT_CALL(err, p->name, cudaMemcpyAsync(ob, bb, row, cudaMemcpyDeviceToDevice, s));
        } else { /* one value: fill the first row by doubling */
            RT_CALL(err, p->name, cudaMemcpyAsync(ob, bb, es, cudaMemcpyDeviceToDevice, s));
            for (size_t have = es; have < row;) {
                size_t n = have < row - have ? have : row - have;
                RT_CALL(err, p->name, cudaMemcpyAsync(ob + have, ob, n, cudaMemcpyDeviceToDevice, s));
                have += n;
            }
        }
        /* the first row over this batch's rows, or over every batch's rows when they are flat and shared */
        size_t rows = (size_t)p->m * (nb == 1 && flat ? (size_t)p->batch : 1);
        JV_CHECK(repeat_rows(ob, pitch, row, 1, rows, s, p->name, err));
    }
    if (nb == 1 && p->batch > 1 && !(flat && !st[1])) /* batch 0 over the others, one matrix at a time */
        for (int64_t b = 1; b < p->batch; b++)
            RT_CALL(err, p->name,
                    cudaMemcpy2DAsync(out + (size_t)b * bpitch, pitch, out, pitch, row, (size_t)p->m,
                                      cudaMemcpyDeviceToDevice, s));
    return JV_OK;
}

jv_status jv_cuda_gemm_run(cublasLtHandle_t lt, const jv_cuda_gemm *p, void *const *bufs, void *ws, size_t ws_bytes,
                           cudaStream_t stream, jv_err *err) {
    void *out = bufs[p->io];
    if (p->bias == BIAS_EPILOGUE) {
        const void *bp = bufs[p->ic];
        LT_CALL(err, p->name, cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
    } else if (p->bias == BIAS_COPY) {
        JV_CHECK(copy_bias(p, bufs[p->ic], out, stream, err));
    }
    if (p->ws_need > ws_bytes)
        JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: %s: workspace of %zu bytes, the algorithm needs %zu", p->name,
                ws_bytes, p->ws_need);
    float af = (float)p->alpha, bf = (float)p->beta;
    const void *alpha = &af, *beta = &bf;
    if (p->f64) alpha = &p->alpha, beta = &p->beta;
    /* cuBLASLt's A is our B and its B our A */
    LT_CALL(err, p->name,
            cublasLtMatmul(lt, p->op, alpha, bufs[p->ib], p->la, bufs[p->ia], p->lb, beta, out, p->lc, out, p->lc,
                           &p->algo, ws, p->ws_need, stream));
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
    const jv_cuda_gemm_choice *c = &p->choice;
    if (c->rank == 0)
        snprintf(buf + len, cap - (size_t)len, ", searched %d, best of %d: heuristic's #1 %.1f us", c->offered,
                 c->timed, c->ms * 1e3);
    else if (c->first_ms > 0)
        snprintf(buf + len, cap - (size_t)len, ", searched %d, best of %d: heuristic's #%d %.1f us (#1 %.1f us)",
                 c->offered, c->timed, c->rank + 1, c->ms * 1e3, c->first_ms * 1e3);
    else
        snprintf(buf + len, cap - (size_t)len, ", searched %d, best of %d: heuristic's #%d %.1f us (#1 did not run)",
                 c->offered, c->timed, c->rank + 1, c->ms * 1e3);
}

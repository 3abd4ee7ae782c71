/* norm.cu: the device kernel of the replayed RMS norms (norm.h: aten::rms_norm, vLLM's _C::rms_norm and
 * _C::fused_add_rms_norm), compiled as CUDA or HIP (jv_gpu.h). One block of 256 threads per row (a
 * grid-stride loop over rows): pass 1 reads the row (fused_add_rms_norm: adds the residual and stores the
 * sum rounded to the residual's dtype, keeping the rounded value) and sums the squares in float over the
 * block (jv_block_sum); pass 2 writes x * rstd * weight rounded to nearest even, each thread re-reading the
 * elements it wrote in pass 1. Consecutive threads read consecutive elements (coalesced). fp32, fp16 and
 * bf16 tensors, the weight of its own dtype; the normalized dims dense in every tensor (as vLLM's kernels
 * ask), the rows at any strides. When every tensor has one dtype and the rows are whole 16-byte vectors,
 * rn_vec_kernel does the same with 16-byte loads (the H200 measured rn_kernel at 11 % of the copy bandwidth
 * on a Llama-3-8B prefill, 11.5 us on 4 MiB held in L2; rn_vec_kernel has not run on a GPU yet). The family's
 * device-kernel entry jv_norm_gpu_kernel (jv_gpu_kernel.h) plans and runs it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_gpu.h"

extern "C" {
#include "jv_family.h"
#include "norm.h"
}
#include "jv_gpu_kernel.h"

enum { RN_THREADS = 256, RN_MAX_GRID = 65535 };

struct rn_params {
    int xdt, ydt, wdt, rdt; /* JV_GS_F32 ... (wdt, rdt: -1 when absent) */
    int nd;                 /* leading (row) dims */
    int64_t shape[JV_MAX_DIMS], xst[JV_MAX_DIMS], yst[JV_MAX_DIMS], rst[JV_MAX_DIMS];
    int64_t rows, size;
    float eps;
    const void *w;
    void *x, *y, *res;
};

struct rn_plan {
    rn_params p;
    jv_norm_slots sl;
    unsigned grid;
    int vec; /* the storage code rn_vec_kernel runs (rn_vec_of), or -1: rn_kernel */
};

/* the offsets of row r in x, y and the residual (its index over the leading dims) */
static __device__ __forceinline__ void rn_row(const rn_params &p, int64_t r, int64_t *xo, int64_t *yo, int64_t *ro) {
    int64_t a = 0, b = 0, c = 0;
    for (int i = p.nd - 1; i >= 0; i--) {
        const int64_t k = r % p.shape[i];
        r /= p.shape[i];
        a += k * p.xst[i];
        b += k * p.yst[i];
        c += k * p.rst[i];
    }
    *xo = a;
    *yo = b;
    *ro = c;
}

/* 1 / sqrt(mean of squares + eps) of a row from each thread's partial sum of squares ss, in every thread of the
 * block (every thread must call it; the caller syncs before the next row reuses the shared memory) */
static __device__ __forceinline__ float rn_rstd(const rn_params &p, float ss) {
    __shared__ float s_rstd;
    ss = jv_block_sum(ss);
    if (threadIdx.x == 0) s_rstd = rsqrtf(ss / (float)p.size + p.eps);
    __syncthreads();
    return s_rstd;
}

__global__ void __launch_bounds__(RN_THREADS) rn_kernel(rn_params p) {
    for (int64_t r = blockIdx.x; r < p.rows; r += gridDim.x) {
        int64_t xo, yo, ro;
        rn_row(p, r, &xo, &yo, &ro);
        float ss = 0.0f;
        for (int64_t j = threadIdx.x; j < p.size; j += blockDim.x) {
            float v = jv_gpu_load_f(p.xdt, p.x, xo + j);
            if (p.res) {
                v = jv_gpu_round_f(p.rdt, v + jv_gpu_load_f(p.rdt, p.res, ro + j));
                jv_gpu_store_f(p.rdt, p.res, ro + j, v);
            }
            ss += v * v;
        }
        const float rstd = rn_rstd(p, ss);
        for (int64_t j = threadIdx.x; j < p.size; j += blockDim.x) {
            const float v = p.res ? jv_gpu_load_f(p.rdt, p.res, ro + j) : jv_gpu_load_f(p.xdt, p.x, xo + j);
            const float w = p.w ? jv_gpu_load_f(p.wdt, p.w, j) : 1.0f;
            jv_gpu_store_f(p.ydt, p.y, yo + j, v * rstd * w);
        }
        __syncthreads(); /* rn_rstd's shared memory is reused by the next row */
    }
}

/* rn_kernel when x, y, the weight and the residual share storage code DT, the row is a whole number of 16-byte
 * vectors and every row starts on one (rn_plan.vec, with the buffers 16-byte aligned at run time): each
 * thread loads jv_gpu_vec<DT>::n elements at once, and the dtype is no run-time switch per element. The same
 * float operations per element as rn_kernel, in the same order; only the per-thread partial sums of squares
 * group the elements differently. */
template <int DT> __global__ void __launch_bounds__(RN_THREADS) rn_vec_kernel(rn_params p) {
    constexpr int V = jv_gpu_vec<DT>::n, ES = DT == JV_GS_F32 ? 4 : 2;
    const int64_t nv = p.size / V;
    for (int64_t r = blockIdx.x; r < p.rows; r += gridDim.x) {
        int64_t xo, yo, ro;
        rn_row(p, r, &xo, &yo, &ro);
        const uint4 *xv = reinterpret_cast<const uint4 *>(static_cast<const char *>(p.x) + xo * ES);
        uint4 *rv = p.res ? reinterpret_cast<uint4 *>(static_cast<char *>(p.res) + ro * ES) : NULL;
        float ss = 0.0f;
        for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
            float v[V];
            jv_gpu_unpack16<DT>(xv[j], v);
            if (rv) {
                float a[V];
                jv_gpu_unpack16<DT>(rv[j], a);
#pragma unroll
                for (int k = 0; k < V; k++)
                    v[k] = jv_gpu_round_f(DT, v[k] + a[k]);
                rv[j] = jv_gpu_pack16<DT>(v);
            }
#pragma unroll
            for (int k = 0; k < V; k++)
                ss += v[k] * v[k];
        }
        const float rstd = rn_rstd(p, ss);
        const uint4 *wv = static_cast<const uint4 *>(p.w);
        uint4 *yv = reinterpret_cast<uint4 *>(static_cast<char *>(p.y) + yo * ES);
        for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
            float v[V], w[V], o[V];
            jv_gpu_unpack16<DT>(rv ? rv[j] : xv[j], v);
            if (wv) {
                jv_gpu_unpack16<DT>(wv[j], w);
            } else {
#pragma unroll
                for (int k = 0; k < V; k++)
                    w[k] = 1.0f;
            }
#pragma unroll
            for (int k = 0; k < V; k++)
                o[k] = v[k] * rstd * w[k];
            yv[j] = jv_gpu_pack16<DT>(o);
        }
        __syncthreads(); /* rn_rstd's shared memory is reused by the next row */
    }
}

extern "C" int jv_gpu_norm_run(const void *plan, void *const *bufs, void *workspace, void *stream) {
    (void)workspace;
    const rn_plan *pl = static_cast<const rn_plan *>(plan);
    if (!pl || !bufs) return JV_GPU_ERR_INVALID;
    if (pl->p.rows == 0 || pl->p.size == 0) return 0;
    rn_params p = pl->p;
    p.x = bufs[pl->sl.x];
    p.y = bufs[pl->sl.y];
    p.w = pl->sl.w >= 0 ? bufs[pl->sl.w] : NULL;
    p.res = pl->sl.res >= 0 ? bufs[pl->sl.res] : NULL;
    if (!p.x || !p.y || (pl->sl.w >= 0 && !p.w) || (pl->sl.res >= 0 && !p.res)) return JV_GPU_ERR_INVALID;
    jv_gpuStream_t st = static_cast<jv_gpuStream_t>(stream);
    const int vec = pl->vec >= 0 && jv_gpu_aligned16(p.x) && jv_gpu_aligned16(p.y) && (!p.w || jv_gpu_aligned16(p.w)) &&
                    (!p.res || jv_gpu_aligned16(p.res));
    if (!vec)
        rn_kernel<<<pl->grid, RN_THREADS, 0, st>>>(p);
    else if (pl->vec == JV_GS_F32)
        rn_vec_kernel<JV_GS_F32><<<pl->grid, RN_THREADS, 0, st>>>(p);
    else if (pl->vec == JV_GS_F16)
        rn_vec_kernel<JV_GS_F16><<<pl->grid, RN_THREADS, 0, st>>>(p);
    else
        rn_vec_kernel<JV_GS_BF16><<<pl->grid, RN_THREADS, 0, st>>>(p);
    return JV_GPU_LAUNCH_STATUS();
}

/* ---- the family's device-kernel entry (jv_gpu_kernel.h) ---- */

#if JV_GPU_HOST_PASS
static int rn_supported(const jv_desc *d, const jv_operands *ops, char *why, size_t cap) {
    const jv_norm_desc *g = jv_norm_of(d);
    if (!jv_norm_replayable(g)) {
        snprintf(why, cap, "norm: only the RMS norm forwards have a device kernel");
        return 0;
    }
    const jv_norm_slots sl = jv_norm_slots_of(g);
    const int k = g->normalized_ndim;
    for (int i = 0; i < ops->n; i++) {
        const jv_tensor *t = &ops->o[i].t;
        if (jv_gpu_storage_of(t->dtype) < 0) {
            snprintf(why, cap, "rms norm: %s is %s (the device kernel runs fp32, fp16 and bf16)", ops->o[i].name,
                     jv_dtype_short(t->dtype));
            return 0;
        }
        if (!jv_tensor_tail_dense(t, i == sl.w ? t->ndim : k)) {
            snprintf(why, cap, "rms norm: %s: the device kernel needs the normalized dims dense", ops->o[i].name);
            return 0;
        }
    }
    return 1;
}

/* the storage code every tensor of p shares when the row is a whole number of 16-byte vectors and each row
 * of x, y and the residual starts on one (strides multiples of the vector), else -1 */
static int rn_vec_of(const rn_params &p) {
    const int dt = p.xdt;
    if (p.ydt != dt || (p.wdt >= 0 && p.wdt != dt) || (p.rdt >= 0 && p.rdt != dt)) return -1;
    const int64_t v = dt == JV_GS_F32 ? 4 : 8;
    if (p.size % v) return -1;
    for (int i = 0; i < p.nd; i++)
        if (p.xst[i] % v || p.yst[i] % v || p.rst[i] % v) return -1;
    return dt;
}

static jv_status rn_plan_create(const jv_desc *d, const jv_operands *ops, int sms, void **plan, size_t *ws_bytes,
                                jv_err *err) {
    (void)sms;
    *plan = NULL;
    *ws_bytes = 0;
    char why[200];
    if (!rn_supported(d, ops, why, sizeof why)) JV_FAIL(err, JV_ERR_NOTFOUND, "%s", why);
    const jv_norm_desc *g = jv_norm_of(d);
    rn_plan *pl = static_cast<rn_plan *>(calloc(1, sizeof *pl));
    if (!pl) JV_FAIL(err, JV_ERR_NOMEM, "rms norm: out of memory");
    pl->sl = jv_norm_slots_of(g);
    rn_params &p = pl->p;
    const jv_tensor *x = &ops->o[pl->sl.x].t, *y = &ops->o[pl->sl.y].t;
    const jv_tensor *res = pl->sl.res >= 0 ? &ops->o[pl->sl.res].t : NULL;
    p.xdt = jv_gpu_storage_of(x->dtype);
    p.ydt = jv_gpu_storage_of(y->dtype);
    p.wdt = pl->sl.w >= 0 ? jv_gpu_storage_of(ops->o[pl->sl.w].t.dtype) : -1;
    p.rdt = res ? jv_gpu_storage_of(res->dtype) : -1;
    p.nd = x->ndim - g->normalized_ndim;
    for (int i = 0; i < p.nd; i++) {
        p.shape[i] = x->shape[i];
        p.xst[i] = x->strides[i];
        p.yst[i] = y->strides[i];
        p.rst[i] = res ? res->strides[i] : 0;
    }
    p.rows = g->rows;
    p.size = g->size;
    p.eps = (float)jv_norm_rms_eps(g);
    const int64_t cap = RN_MAX_GRID;
    pl->grid = (unsigned)(g->rows < cap ? (g->rows > 0 ? g->rows : 1) : cap);
    pl->vec = rn_vec_of(p);
    *plan = pl;
    return JV_OK;
}

static void rn_release(void *plan) {
    free(plan);
}

extern "C" const jv_gpu_kernel jv_norm_gpu_kernel = {"norm", rn_supported, rn_plan_create, jv_gpu_norm_run, rn_release};
#endif

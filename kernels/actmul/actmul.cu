/* actmul.cu: the device kernel of the gated activations (actmul.h), compiled as CUDA or HIP (jv_gpu.h):
 * out[r, j] = act(x[r, j]) * x[r, d + j] (or x[r, j] * act(x[r, d + j])) for every row r of the output's
 * leading dims. Input and out of one dtype, fp32, fp16 or bf16; the math in float (actmul_math.h, the CPU
 * kernel's), stored rounded to nearest even. Two paths, one grid-stride loop each:
 *  - vector: the last dim dense in both tensors, d and every row stride a multiple of the elements of a
 *    16-byte vector (4 fp32, 8 fp16/bf16) and both buffers 16-byte aligned: each thread loads one vector of
 *    each half and stores one vector of out (as vLLM's vectorized kernel);
 *  - scalar: anything else (any strides), one element per thread.
 * The row's offsets come from its index over the leading dims (one leading dim, the usual [T, 2d] input: a
 * multiply; the vector's row from a 32-bit division when the vectors number under 2^31: the H200 measured the
 * vector path at 51.5 % of the copy bandwidth on a Llama-3-8B prefill with three 64-bit divisions per vector,
 * 2026-11-27; this form has not run on a GPU yet). The family's device-kernel entry
 * jv_actmul_gpu_kernel (jv_gpu_kernel.h) plans and runs them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_gpu.h"

extern "C" {
#include "actmul.h"
#include "jv_family.h"
}
#include "actmul_math.h"
#include "jv_gpu_kernel.h"

enum { AM_THREADS = 256, AM_BLOCKS_PER_SM = 8 };

struct am_params {
    int act, act_second;
    int nd; /* leading dims */
    int64_t shape[JV_MAX_DIMS], ist[JV_MAX_DIMS], ost[JV_MAX_DIMS];
    int64_t rows, w, ilast, olast;
    const void *in;
    void *out;
};

struct am_plan {
    am_params p;
    int dt;     /* JV_GS_F32, JV_GS_F16, JV_GS_BF16 */
    int vec_ok; /* the layout allows the vector path (alignment is checked at run) */
    unsigned grid_vec, grid_scalar;
};

/* the offsets of row r in the input and in out */
static __device__ __forceinline__ void am_row(const am_params &p, int64_t r, int64_t *io, int64_t *oo) {
    if (p.nd == 1) { /* one row dim (the usual [T, 2d] input): no division */
        *io = r * p.ist[0];
        *oo = r * p.ost[0];
        return;
    }
    int64_t a = 0, b = 0;
    for (int i = p.nd - 1; i >= 0; i--) {
        const int64_t k = r % p.shape[i];
        r /= p.shape[i];
        a += k * p.ist[i];
        b += k * p.ost[i];
    }
    *io = a;
    *oo = b;
}

template <int DT> __global__ void __launch_bounds__(AM_THREADS) am_vec_kernel(am_params p) {
    constexpr int V = jv_gpu_vec<DT>::n;
    const int64_t nvr = p.w / V, total = p.rows * nvr;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int small = total < ((int64_t)1 << 31); /* the row from a 32-bit division */
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
        const int64_t r = small ? (int64_t)((uint32_t)t / (uint32_t)nvr) : t / nvr, c = t - r * nvr;
        int64_t io, oo;
        am_row(p, r, &io, &oo);
        const uint4 *in = reinterpret_cast<const uint4 *>(static_cast<const char *>(p.in) + (io * (int64_t)(16 / V)));
        float a[V], b[V], o[V];
        jv_gpu_unpack16<DT>(in[c], a);
        jv_gpu_unpack16<DT>(in[nvr + c], b);
#pragma unroll
        for (int k = 0; k < V; k++)
            o[k] = jv_am_gate(p.act, p.act_second, a[k], b[k]);
        reinterpret_cast<uint4 *>(static_cast<char *>(p.out) + oo * (int64_t)(16 / V))[c] = jv_gpu_pack16<DT>(o);
    }
}

template <int DT> __global__ void __launch_bounds__(AM_THREADS) am_scalar_kernel(am_params p) {
    const int64_t total = p.rows * p.w;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
        const int64_t r = t / p.w, j = t - r * p.w;
        int64_t io, oo;
        am_row(p, r, &io, &oo);
        const float a = jv_gpu_load_f(DT, p.in, io + j * p.ilast),
                    b = jv_gpu_load_f(DT, p.in, io + (p.w + j) * p.ilast);
        jv_gpu_store_f(DT, p.out, oo + j * p.olast, jv_am_gate(p.act, p.act_second, a, b));
    }
}

extern "C" int jv_gpu_actmul_run(const void *plan, void *const *bufs, void *workspace, void *stream) {
    (void)workspace;
    const am_plan *pl = static_cast<const am_plan *>(plan);
    if (!pl || !bufs) return JV_GPU_ERR_INVALID;
    if (pl->p.rows == 0 || pl->p.w == 0) return 0;
    am_params p = pl->p;
    p.in = bufs[JV_ACTMUL_IN];
    p.out = bufs[JV_ACTMUL_OUT];
    if (!p.in || !p.out) return JV_GPU_ERR_INVALID;
    jv_gpuStream_t st = static_cast<jv_gpuStream_t>(stream);
    const int vec = pl->vec_ok && jv_gpu_aligned16(p.in) && jv_gpu_aligned16(p.out);
    const unsigned g = vec ? pl->grid_vec : pl->grid_scalar;
    switch (pl->dt) {
    case JV_GS_F32:
        if (vec)
            am_vec_kernel<JV_GS_F32><<<g, AM_THREADS, 0, st>>>(p);
        else
            am_scalar_kernel<JV_GS_F32><<<g, AM_THREADS, 0, st>>>(p);
        break;
    case JV_GS_F16:
        if (vec)
            am_vec_kernel<JV_GS_F16><<<g, AM_THREADS, 0, st>>>(p);
        else
            am_scalar_kernel<JV_GS_F16><<<g, AM_THREADS, 0, st>>>(p);
        break;
    default:
        if (vec)
            am_vec_kernel<JV_GS_BF16><<<g, AM_THREADS, 0, st>>>(p);
        else
            am_scalar_kernel<JV_GS_BF16><<<g, AM_THREADS, 0, st>>>(p);
        break;
    }
    return JV_GPU_LAUNCH_STATUS();
}

/* ---- the family's device-kernel entry (jv_gpu_kernel.h) ---- */

#if JV_GPU_HOST_PASS
static unsigned am_grid(int64_t work, int sms) {
    const int64_t cap = (int64_t)(sms > 0 ? sms : 128) * AM_BLOCKS_PER_SM;
    int64_t b = (work + AM_THREADS - 1) / AM_THREADS;
    if (b > cap) b = cap;
    return (unsigned)(b > 0 ? b : 1);
}

static int am_supported(const jv_desc *d, const jv_operands *ops, char *why, size_t cap) {
    const jv_actmul_desc *g = jv_actmul_of(d);
    if (!ops || ops->n != 2) {
        snprintf(why, cap, "%s: not the family's operands", g->name);
        return 0;
    }
    const jv_tensor *o = &ops->o[JV_ACTMUL_OUT].t, *x = &ops->o[JV_ACTMUL_IN].t;
    if (jv_gpu_storage_of(x->dtype) < 0 || x->dtype != o->dtype) {
        snprintf(why, cap, "%s: %s -> %s: the device kernel runs fp32, fp16 or bf16, input and out of one dtype",
                 g->name, jv_dtype_short(x->dtype), jv_dtype_short(o->dtype));
        return 0;
    }
    return 1;
}

static jv_status am_plan_create(const jv_desc *d, const jv_operands *ops, int sms, void **plan, size_t *ws_bytes,
                                jv_err *err) {
    *plan = NULL;
    *ws_bytes = 0;
    char why[200];
    if (!am_supported(d, ops, why, sizeof why)) JV_FAIL(err, JV_ERR_NOTFOUND, "%s", why);
    const jv_actmul_desc *g = jv_actmul_of(d);
    const jv_tensor *o = &ops->o[JV_ACTMUL_OUT].t, *x = &ops->o[JV_ACTMUL_IN].t;
    am_plan *pl = static_cast<am_plan *>(calloc(1, sizeof *pl));
    if (!pl) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", g->name);
    am_params &p = pl->p;
    p.act = (int)g->act;
    p.act_second = g->act_second;
    p.nd = o->ndim - 1;
    p.rows = 1;
    for (int i = 0; i < p.nd; i++) {
        p.shape[i] = o->shape[i];
        p.ist[i] = x->strides[i];
        p.ost[i] = o->strides[i];
        p.rows *= o->shape[i];
    }
    p.w = g->width;
    p.ilast = x->strides[o->ndim - 1];
    p.olast = o->strides[o->ndim - 1];
    pl->dt = jv_gpu_storage_of(x->dtype);
    const int V = pl->dt == JV_GS_F32 ? 4 : 8;
    int ok = p.ilast == 1 && p.olast == 1 && p.w % V == 0;
    for (int i = 0; i < p.nd && ok; i++)
        ok = p.ist[i] % V == 0 && p.ost[i] % V == 0;
    pl->vec_ok = ok;
    pl->grid_vec = am_grid(p.rows * (p.w / V), sms);
    pl->grid_scalar = am_grid(p.rows * p.w, sms);
    *plan = pl;
    return JV_OK;
}

static void am_release(void *plan) {
    free(plan);
}

extern "C" const jv_gpu_kernel jv_actmul_gpu_kernel = {"actmul", am_supported, am_plan_create, jv_gpu_actmul_run,
                                                       am_release};
#endif

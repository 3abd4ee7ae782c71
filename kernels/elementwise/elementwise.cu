/* elementwise.cu: the device kernels of the elementwise families (CUDA or
 * HIP, through jv_gpu.h) and their launch; the planning (which kernel, the
 * merged geometry) is elementwise_plan.cu; the baseline kernels are in
 * elementwise_baseline.cu.
 *
 * Elementwise: every call computes in float (PyTorch's opmath for fp32, fp16
 * and bf16) with the semantics of elementwise_ref.c, loading fp32, fp16,
 * bf16, bool and uint8 inputs and storing fp32, fp16, bf16 or bool. Operand
 * slots (in[0..2] of the descriptor) are mapped to operands exactly as
 * jv_elementwise_operands lists them. Two kernels:
 *  - dense: the output is dense (any permutation of a contiguous layout) and
 *    every tensor operand either has the output's strides and dtype or holds a
 *    single element (0-d, broadcast): one flat loop over memory with 16-byte
 *    loads and stores when every pointer is 16-byte aligned, a scalar tail
 *    otherwise; instantiated per storage type (fp32, fp16, bf16);
 *  - strided: anything else. Dims are ordered by the output's strides, size-1
 *    dims dropped and dims contiguous for every operand merged (as the CPU
 *    reference does); each output element's multi-index is recovered by
 *    division and turned into per-operand offsets with broadcast strides (0 on
 *    broadcast dims). 32-bit index math when every index fits, 64-bit
 *    otherwise.
 *  - dense1: the dense case of a light op (ew_apply_light: copies, fills,
 *    clamps, an op with a scalar) on one tensor: more loads in flight.
 * The op is a small switch inside the kernels (one dispatch per vector of
 * elements), so there are eight elementwise kernels in all. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_gpu.h"

extern "C" {
#include "elementwise.h"
#include "jv_family.h"
}
#include "elementwise_gpu.h"
#include "jv_gpu_kernel.h"

#include "elementwise_launch.h"
#include "elementwise_plan.h"

extern "C" {
#include "elementwise_math.h"
}

/* element off of a buffer of storage type dt, as a float */
static __device__ __forceinline__ float ew_load(int dt, const void *base, int64_t off) {
    switch (dt) {
    case EW_F32: return static_cast<const float *>(base)[off];
    case EW_F16: return jv_f16_bits_to_float(static_cast<const uint16_t *>(base)[off]);
    case EW_BF16: return jv_bf16_bits_to_float(static_cast<const uint16_t *>(base)[off]);
    case EW_BOOL: return static_cast<const uint8_t *>(base)[off] != 0 ? 1.0f : 0.0f;
    default: return (float)static_cast<const uint8_t *>(base)[off];
    }
}

/* element off of a buffer of storage type dt (an output type) = v rounded */
static __device__ __forceinline__ void ew_store(int dt, void *base, int64_t off, float v) {
    switch (dt) {
    case EW_F32: static_cast<float *>(base)[off] = v; break;
    case EW_F16: static_cast<uint16_t *>(base)[off] = jv_float_to_f16_bits(v); break;
    case EW_BF16: static_cast<uint16_t *>(base)[off] = jv_float_to_bf16_bits(v); break;
    default: static_cast<uint8_t *>(base)[off] = v != 0.0f ? 1 : 0; break; /* bool; NaN is true */
    }
}

/* a 16-bit word of storage type DT as a float */
template <int DT> static __device__ __forceinline__ float ew_cvt16(uint32_t bits) {
    if constexpr (DT == EW_F16)
        return jv_f16_bits_to_float((uint16_t)bits);
    else
        return jv_bf16_bits_to_float((uint16_t)bits);
}

template <int DT> static __device__ __forceinline__ uint32_t ew_pack16(float v) {
    if constexpr (DT == EW_F16)
        return jv_float_to_f16_bits(v);
    else
        return jv_float_to_bf16_bits(v);
}

/* elements per 16-byte vector */
template <int DT> struct ew_vec { static constexpr int n = DT == EW_F32 ? 4 : 8; };

/* dst[0..V-1] = the V elements of DT packed in the 16 bytes u */
template <int DT> static __device__ __forceinline__ void ew_cvt_vec(const uint4 u, float *dst) {
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
    if constexpr (DT == EW_F32) {
#pragma unroll
        for (int j = 0; j < 4; j++)
            dst[j] = __uint_as_float(w[j]);
    } else {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            dst[2 * j] = ew_cvt16<DT>(w[j] & 0xffffu); /* little endian: the lower address is the low half */
            dst[2 * j + 1] = ew_cvt16<DT>(w[j] >> 16);
        }
    }
}

/* dst[0..7] = elements off..off+7 of a buffer of storage type dt (off a
 * multiple of 8, the buffer 16-byte aligned): 8, 16 or 32 bytes in vectors */
static __device__ __forceinline__ void ew_load8(int dt, const void *base, int64_t off, float *dst) {
    switch (dt) {
    case EW_F32: {
        const uint4 *q = reinterpret_cast<const uint4 *>(static_cast<const float *>(base) + off);
        ew_cvt_vec<EW_F32>(q[0], dst);
        ew_cvt_vec<EW_F32>(q[1], dst + 4);
        break;
    }
    case EW_F16:
        ew_cvt_vec<EW_F16>(*reinterpret_cast<const uint4 *>(static_cast<const uint16_t *>(base) + off), dst);
        break;
    case EW_BF16:
        ew_cvt_vec<EW_BF16>(*reinterpret_cast<const uint4 *>(static_cast<const uint16_t *>(base) + off), dst);
        break;
    default: {
        const uint2 u = *reinterpret_cast<const uint2 *>(static_cast<const uint8_t *>(base) + off);
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const uint32_t byte = ((j < 4 ? u.x : u.y) >> (8 * (j & 3))) & 0xffu;
            dst[j] = dt == EW_BOOL ? (byte != 0 ? 1.0f : 0.0f) : (float)byte;
        }
        break;
    }
    }
}

template <int DT> static __device__ __forceinline__ void ew_store_vec(void *base, int64_t i, const float *v) {
    uint32_t w[4];
    if constexpr (DT == EW_F32) {
#pragma unroll
        for (int j = 0; j < 4; j++)
            w[j] = __float_as_uint(v[j]);
    } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
            w[j] = ew_pack16<DT>(v[2 * j]) | (ew_pack16<DT>(v[2 * j + 1]) << 16);
    }
    static_cast<uint4 *>(base)[i] = make_uint4(w[0], w[1], w[2], w[3]);
}

/* elements off..off+7 of a buffer of storage type dt (an output type) = v
 * rounded (off a multiple of 8, the buffer 16-byte aligned) */
static __device__ __forceinline__ void ew_store8(int dt, void *base, int64_t off, const float *v) {
    switch (dt) {
    case EW_F32: {
        uint4 *q = reinterpret_cast<uint4 *>(static_cast<float *>(base) + off);
        ew_store_vec<EW_F32>(q, 0, v);
        ew_store_vec<EW_F32>(q, 1, v + 4);
        break;
    }
    case EW_F16: ew_store_vec<EW_F16>(static_cast<uint16_t *>(base) + off, 0, v); break;
    case EW_BF16: ew_store_vec<EW_BF16>(static_cast<uint16_t *>(base) + off, 0, v); break;
    default: { /* bool; NaN is true */ uint32_t w[2] = {0, 0};
#pragma unroll
        for (int j = 0; j < 8; j++)
            w[j / 4] |= (v[j] != 0.0f ? 1u : 0u) << (8 * (j & 3));
        *reinterpret_cast<uint2 *>(static_cast<uint8_t *>(base) + off) = make_uint2(w[0], w[1]);
        break;
    }
    }
}

/* ---- the math ---- */

#define EW_V(expr)                                                                                                     \
    do {                                                                                                               \
        _Pragma("unroll") for (int j = 0; j < N; j++) o[j] = (expr);                                                   \
    } while (0)

/* o[j] = op(a[j], b[j], c[j]) for j < N, for the light ops (elementwise_plan.cu's light_op, plus the copy-like
 * default): cheap math that keeps the register count of ew_dense1_kernel small */
template <int N>
static __device__ __forceinline__ void ew_apply_light(const ew_params &p, const float *a, const float *b,
                                                      const float *c, float *o) {
    const float alpha = p.s.alpha, lo = p.s.lo, hi = p.s.hi;
    switch (p.s.op) {
    case JV_EW_ADD: EW_V(a[j] + alpha * b[j]); break;
    case JV_EW_SUB: EW_V(a[j] - alpha * b[j]); break;
    case JV_EW_RSUB: EW_V(b[j] - alpha * a[j]); break;
    case JV_EW_MUL: EW_V(a[j] * b[j]); break;
    case JV_EW_POW: EW_V(jv_ew_pow_special(p.s.powk, a[j])); break; /* powf: ew_apply */
    case JV_EW_RELU: EW_V(a[j] != a[j] ? a[j] : a[j] > 0.0f ? a[j] : 0.0f); break;
    case JV_EW_NEG: EW_V(-a[j]); break;
    case JV_EW_ABS: EW_V(fabsf(a[j])); break;
    case JV_EW_CLAMP: EW_V(a[j] != a[j] ? a[j] : jv_ew_clamp_nan(a[j], b[j], c[j])); break;
    case JV_EW_CLAMP_MIN: EW_V(a[j] != a[j] ? a[j] : jv_ew_max_nan(a[j], b[j])); break;
    case JV_EW_CLAMP_MAX: EW_V(a[j] != a[j] ? a[j] : jv_ew_min_nan(a[j], b[j])); break;
    case JV_EW_HARDTANH: EW_V(a[j] != a[j] ? a[j] : jv_ew_clamp_nan(a[j], lo, hi)); break;
    case JV_EW_LEAKY_RELU: EW_V(a[j] > 0.0f ? a[j] : a[j] * p.s.slope); break;
    default: /* copy, clone, contiguous, to, fill_, zero_: the value of slot 0 */ EW_V(a[j]); break;
    }
}

/* o[j] = op(a[j], b[j], c[j]) for j < N: one dispatch per N elements */
template <int N>
static __device__ __forceinline__ void ew_apply(const ew_params &p, const float *a, const float *b, const float *c,
                                                float *o) {
    switch (p.s.op) {
    case JV_EW_DIV:
        if (p.s.rounding == 0)
            EW_V(a[j] / b[j]);
        else if (p.s.rounding == 1)
            EW_V(truncf(a[j] / b[j]));
        else
            EW_V(jv_ew_div_floor(a[j], b[j]));
        break;
    case JV_EW_WHERE: EW_V(a[j] != 0.0f ? b[j] : c[j]); break;
    case JV_EW_THRESHOLD_BACKWARD: EW_V(b[j] <= p.s.thr ? 0.0f : a[j]); break;
    case JV_EW_SIGMOID_BACKWARD: EW_V(a[j] * (1.0f - b[j]) * b[j]); break;
    case JV_EW_TANH_BACKWARD: EW_V(a[j] * (1.0f - b[j] * b[j])); break;
    case JV_EW_GELU_BACKWARD: EW_V(a[j] * jv_ew_gelu_grad(b[j], p.s.gelu_tanh)); break;
    case JV_EW_SILU_BACKWARD: {
#pragma unroll
        for (int j = 0; j < N; j++) {
            float s = jv_ew_sigmoid(b[j]);
            o[j] = a[j] * s * (1.0f + b[j] * (1.0f - s));
        }
        break;
    }
    case JV_EW_MAXIMUM: EW_V(jv_ew_max_nan(a[j], b[j])); break;
    case JV_EW_MINIMUM: EW_V(jv_ew_min_nan(a[j], b[j])); break;
    /* comparisons in float: the reference's opmath for every dtype this file accepts */
    case JV_EW_EQ: EW_V(a[j] == b[j] ? 1.0f : 0.0f); break;
    case JV_EW_NE: EW_V(a[j] != b[j] ? 1.0f : 0.0f); break;
    case JV_EW_LT: EW_V(a[j] < b[j] ? 1.0f : 0.0f); break;
    case JV_EW_LE: EW_V(a[j] <= b[j] ? 1.0f : 0.0f); break;
    case JV_EW_GT: EW_V(a[j] > b[j] ? 1.0f : 0.0f); break;
    case JV_EW_GE: EW_V(a[j] >= b[j] ? 1.0f : 0.0f); break;
    case JV_EW_MASKED_FILL: EW_V(b[j] != 0.0f ? c[j] : a[j]); break;
    case JV_EW_ADDCMUL: EW_V(a[j] + p.s.value * b[j] * c[j]); break;
    case JV_EW_ADDCDIV: EW_V(a[j] + p.s.value * (b[j] / c[j])); break;
    case JV_EW_LERP: /* PyTorch's two-sided form */
        EW_V(fabsf(c[j]) < 0.5f ? a[j] + c[j] * (b[j] - a[j]) : b[j] - (b[j] - a[j]) * (1.0f - c[j]));
        break;
    case JV_EW_POW:
        if (p.s.powk == JV_EW_POWK_ANY)
            EW_V(powf(a[j], b[j]));
        else
            ew_apply_light<N>(p, a, b, c, o);
        break;
    case JV_EW_GELU: EW_V(jv_ew_gelu(a[j], p.s.gelu_tanh)); break;
    case JV_EW_SILU: EW_V(a[j] * jv_ew_sigmoid(a[j])); break;
    case JV_EW_SIGMOID: EW_V(jv_ew_sigmoid(a[j])); break;
    case JV_EW_TANH: EW_V(tanhf(a[j])); break;
    case JV_EW_RSQRT: EW_V(1.0f / sqrtf(a[j])); break;
    case JV_EW_SQRT: EW_V(sqrtf(a[j])); break;
    case JV_EW_EXP: EW_V(expf(a[j])); break;
    case JV_EW_LOG: EW_V(logf(a[j])); break;
    case JV_EW_RECIPROCAL: EW_V(1.0f / a[j]); break;
    case JV_EW_ERF: EW_V(erff(a[j])); break;
    case JV_EW_SIN: EW_V(sinf(a[j])); break;
    case JV_EW_COS: EW_V(cosf(a[j])); break;
    case JV_EW_NAN_TO_NUM:
        EW_V(a[j] != a[j] ? p.s.nanv : isinf(a[j]) ? (a[j] > 0.0f ? p.s.posinf : p.s.neginf) : a[j]);
        break;
    default: ew_apply_light<N>(p, a, b, c, o); break;
    }
}

#undef EW_V

/* ---- elementwise kernels ---- */

/* Dense: element i of every EW_DENSE slot and of the output is at offset i.
 * Vector path: each thread takes EW_DENSE_UNROLL 16-byte vectors of every
 * slot per tile, all loads issued before any math or store; the grid covers
 * the tensor in tiles (grid_tiles). */
/* vector i of the output from the raw 16 bytes of each slot (nothing when i >= nv) */
template <int DT>
static __device__ __forceinline__ void ew_dense_vec(const ew_params &p, const float *cst, uint4 r0, uint4 r1, uint4 r2,
                                                    int64_t i, int64_t nv) {
    constexpr int V = ew_vec<DT>::n;
    if (i >= nv) return;
    const uint4 raw[3] = {r0, r1, r2};
    float a[V], b[V], c[V], o[V];
    float *src[3] = {a, b, c};
#pragma unroll
    for (int k = 0; k < 3; k++) {
        if (p.kind[k] == EW_DENSE) {
            ew_cvt_vec<DT>(raw[k], src[k]);
        } else {
#pragma unroll
            for (int j = 0; j < V; j++)
                src[k][j] = cst[k];
        }
    }
    ew_apply<V>(p, a, b, c, o);
    ew_store_vec<DT>(p.out, i, o);
}

template <int DT> __global__ void __launch_bounds__(EW_THREADS) ew_dense_kernel(ew_params p, int64_t n, int vec) {
    constexpr int V = ew_vec<DT>::n, U = EW_DENSE_UNROLL;
    static_assert(U == 1 || U == 2, "ew_dense_kernel writes out at most two vectors per tile");
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    float cst[3];
#pragma unroll
    for (int k = 0; k < 3; k++)
        cst[k] = p.kind[k] == EW_SINGLE ? ew_load(p.dt[k], p.in[k], 0) : p.s.cval[k];
    int64_t done = 0;
    if (vec) {
        const int64_t nv = n / V, tile = (int64_t)blockDim.x * U;
        for (int64_t t0 = (int64_t)blockIdx.x * tile + threadIdx.x; t0 < nv; t0 += (int64_t)gridDim.x * tile) {
            uint4 raw[3][U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int64_t i = t0 + (int64_t)u * blockDim.x;
#pragma unroll
                for (int k = 0; k < 3; k++) {
                    raw[k][u] = make_uint4(0u, 0u, 0u, 0u);
                    if (p.kind[k] == EW_DENSE && i < nv) raw[k][u] = static_cast<const uint4 *>(p.in[k])[i];
                }
            }
            /* the math of each vector, written out (a loop over u with this body is too big for hipcc to
             * unroll, and raw[][u] must stay in registers) */
            ew_dense_vec<DT>(p, cst, raw[0][0], raw[1][0], raw[2][0], t0, nv);
            if constexpr (U > 1) ew_dense_vec<DT>(p, cst, raw[0][1], raw[1][1], raw[2][1], t0 + blockDim.x, nv);
        }
        done = nv * V;
    }
    for (int64_t i = done + tid; i < n; i += stride) {
        float v[3], o;
#pragma unroll
        for (int k = 0; k < 3; k++)
            v[k] = p.kind[k] == EW_DENSE ? ew_load(DT, p.in[k], i) : cst[k];
        ew_apply<1>(p, &v[0], &v[1], &v[2], &o);
        ew_store(DT, p.out, i, o);
    }
}

/* Dense, a light op (ew_apply_light), slot 0 the only dense input (or none:
 * fill_), every pointer 16-byte aligned: EW_LIGHT_UNROLL vectors per thread
 * and tile, all loads first. With the general kernel's switch compiled out it
 * needs few registers, so more blocks are resident and more bytes in flight
 * per SM: what a one-input op, with half the loads of a two-input one, needs
 * to keep the memory busy. */
template <int DT, int U> __global__ void __launch_bounds__(EW_THREADS) ew_dense1_kernel(ew_params p, int64_t n) {
    constexpr int V = ew_vec<DT>::n;
    float cst[3];
#pragma unroll
    for (int k = 0; k < 3; k++)
        cst[k] = p.kind[k] == EW_SINGLE ? ew_load(p.dt[k], p.in[k], 0) : p.s.cval[k];
    const int load = p.kind[0] == EW_DENSE;
    const uint4 *in = static_cast<const uint4 *>(p.in[0]);
    const int64_t nv = n / V, tile = (int64_t)blockDim.x * U;
    for (int64_t t0 = (int64_t)blockIdx.x * tile + threadIdx.x; t0 < nv; t0 += (int64_t)gridDim.x * tile) {
        uint4 raw[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t i = t0 + (int64_t)u * blockDim.x;
            raw[u] = make_uint4(0u, 0u, 0u, 0u);
            if (load && i < nv) raw[u] = in[i];
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t i = t0 + (int64_t)u * blockDim.x;
            if (i >= nv) break;
            float a[V], b[V], c[V], o[V];
            if (load) {
                ew_cvt_vec<DT>(raw[u], a);
            } else {
#pragma unroll
                for (int j = 0; j < V; j++)
                    a[j] = cst[0];
            }
#pragma unroll
            for (int j = 0; j < V; j++)
                b[j] = cst[1], c[j] = cst[2];
            ew_apply_light<V>(p, a, b, c, o);
            ew_store_vec<DT>(p.out, i, o);
        }
    }
    const int64_t i = nv * V + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; /* the last n % V elements */
    if (i < n) {
        float a = load ? ew_load(DT, p.in[0], i) : cst[0], o;
        ew_apply_light<1>(p, &a, &cst[1], &cst[2], &o);
        ew_store(DT, p.out, i, o);
    }
}

/* the offsets of logical index i in the output (*oo) and the three slots (off) */
template <typename I> static __device__ __forceinline__ void ew_offsets(const ew_geom<I> &g, I i, I *oo, I off[3]) {
    I rem = i;
    *oo = 0;
    off[0] = off[1] = off[2] = 0;
#pragma unroll
    for (int dd = JV_MAX_DIMS - 1; dd >= 0; dd--) {
        if (dd >= g.nd) continue;
        I r = rem;
        if (dd > 0) {
            const I q = rem / g.shape[dd];
            r = rem - q * g.shape[dd];
            rem = q;
        }
        *oo += r * g.ost[dd];
#pragma unroll
        for (int k = 0; k < 3; k++)
            off[k] += r * g.st[k][dd];
    }
}

template <typename I> __global__ void __launch_bounds__(EW_THREADS) ew_strided_kernel(ew_params p, ew_geom<I> g, I n) {
    const I tid = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
    const I stride = (I)gridDim.x * (I)blockDim.x;
    for (I i = tid; i < n; i += stride) {
        I oo, off[3];
        ew_offsets(g, i, &oo, off);
        float v[3], o;
#pragma unroll
        for (int k = 0; k < 3; k++)
            v[k] = p.kind[k] == EW_STRIDED ? ew_load(p.dt[k], p.in[k], (int64_t)off[k]) : p.s.cval[k];
        ew_apply<1>(p, &v[0], &v[1], &v[2], &o);
        ew_store(p.out_dt, p.out, (int64_t)oo, o);
    }
}

/* Strided with a contiguous innermost dim: each thread takes 8 consecutive
 * elements of a row. g is the strided geometry with the innermost dim
 * counted in vectors of 8 (its strides times 8); a slot with vin[k] loads 8
 * elements in vectors, the others (broadcast along the row) one; nvec
 * vectors in all. */
template <typename I>
__global__ void __launch_bounds__(EW_THREADS) ew_inner8_kernel(ew_params p, ew_geom<I> g, I nvec) {
    const I tid = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
    const I stride = (I)gridDim.x * (I)blockDim.x;
    for (I i = tid; i < nvec; i += stride) {
        I oo, off[3];
        ew_offsets(g, i, &oo, off);
        float v[3][8], o[8];
#pragma unroll
        for (int k = 0; k < 3; k++) {
            if (p.kind[k] == EW_STRIDED && p.vin[k]) {
                ew_load8(p.dt[k], p.in[k], (int64_t)off[k], v[k]);
            } else {
                const float x = p.kind[k] == EW_STRIDED ? ew_load(p.dt[k], p.in[k], (int64_t)off[k]) : p.s.cval[k];
#pragma unroll
                for (int j = 0; j < 8; j++)
                    v[k][j] = x;
            }
        }
        ew_apply<8>(p, v[0], v[1], v[2], o);
        ew_store8(p.out_dt, p.out, (int64_t)oo, o);
    }
}

/* 1 when the buffers of an inner8 plan allow its vector accesses (16-byte aligned) */
static int vec8(const jv_gpu_elementwise_plan *pl, const ew_params &p) {
    if (!aligned16(p.out)) return 0;
    for (int k = 0; k < 3; k++)
        if (p.kind[k] == EW_STRIDED && p.vin[k] && !aligned16(p.in[k])) return 0;
    return pl->inner8;
}

/* the light dense kernel with the plan's vectors per thread (light_u: 2, 4 or 8) */
template <int DT>
static void launch_dense1_dt(const jv_gpu_elementwise_plan *pl, const ew_params &p, int64_t n, jv_gpuStream_t st) {
    if (pl->light_u == 2)
        ew_dense1_kernel<DT, 2><<<pl->grid_light, EW_THREADS, 0, st>>>(p, n);
    else if (pl->light_u == 4)
        ew_dense1_kernel<DT, 4><<<pl->grid_light, EW_THREADS, 0, st>>>(p, n);
    else
        ew_dense1_kernel<DT, 8><<<pl->grid_light, EW_THREADS, 0, st>>>(p, n);
}

static void launch_dense1(const jv_gpu_elementwise_plan *pl, const ew_params &p, int64_t n, jv_gpuStream_t st) {
    switch (p.out_dt) {
    case EW_F32: launch_dense1_dt<EW_F32>(pl, p, n, st); break;
    case EW_F16: launch_dense1_dt<EW_F16>(pl, p, n, st); break;
    default: launch_dense1_dt<EW_BF16>(pl, p, n, st); break;
    }
}

extern "C" int jv_gpu_elementwise_run(const jv_gpu_elementwise_plan *pl, void *const *bufs, void *stream) {
    const int inval = (int)jv_gpuErrorInvalidValue;
    if (!pl || !bufs) return inval;
    if (pl->n == 0) return 0;
    ew_params p = pl->p;
    p.out = bufs[pl->out_op];
    if (!p.out) return inval;
    int vec = aligned16(p.out);
    for (int k = 0; k < 3; k++) {
        if (pl->slot_op[k] < 0) continue;
        p.in[k] = bufs[pl->slot_op[k]];
        if (!p.in[k]) return inval;
        if (p.kind[k] == EW_DENSE) vec = vec && aligned16(p.in[k]);
    }
    jv_gpuStream_t st = static_cast<jv_gpuStream_t>(stream);
    const int64_t n = pl->n;
    if (pl->fast && pl->light && vec) {
        launch_dense1(pl, p, n, st);
    } else if (pl->fast) {
        const unsigned grid = vec ? pl->grid_vec : pl->grid_scalar;
        switch (p.out_dt) {
        case EW_F32: ew_dense_kernel<EW_F32><<<grid, EW_THREADS, 0, st>>>(p, n, vec); break;
        case EW_F16: ew_dense_kernel<EW_F16><<<grid, EW_THREADS, 0, st>>>(p, n, vec); break;
        default: ew_dense_kernel<EW_BF16><<<grid, EW_THREADS, 0, st>>>(p, n, vec); break;
        }
    } else if (pl->inner8 && vec8(pl, p)) {
        if (pl->small)
            ew_inner8_kernel<uint32_t><<<pl->grid8, EW_THREADS, 0, st>>>(p, pl->v32, (uint32_t)pl->nvec);
        else
            ew_inner8_kernel<int64_t><<<pl->grid8, EW_THREADS, 0, st>>>(p, pl->v64, pl->nvec);
    } else if (pl->small) {
        ew_strided_kernel<uint32_t><<<pl->grid, EW_THREADS, 0, st>>>(p, pl->g32, (uint32_t)n);
    } else {
        ew_strided_kernel<int64_t><<<pl->grid, EW_THREADS, 0, st>>>(p, pl->g64, n);
    }
    return JV_GPU_LAUNCH_STATUS();
}

/* ---- the family's device-kernel entry (jv_gpu_kernel.h) ---- */

#if JV_GPU_HOST_PASS
static jv_status ew_kernel_plan(const jv_desc *d, const jv_operands *ops, int sms, void **plan, size_t *ws_bytes,
                                jv_err *err) {
    jv_gpu_elementwise_plan *pl = NULL;
    *ws_bytes = 0;
    jv_status st = jv_gpu_elementwise_plan_create(d, ops, sms, &pl, err);
    *plan = pl;
    return st;
}

static int ew_kernel_run(const void *plan, void *const *bufs, void *workspace, void *stream) {
    (void)workspace;
    return jv_gpu_elementwise_run(static_cast<const jv_gpu_elementwise_plan *>(plan), bufs, stream);
}

static void ew_kernel_release(void *plan) {
    jv_gpu_elementwise_plan_free(static_cast<jv_gpu_elementwise_plan *>(plan));
}

extern "C" const jv_gpu_kernel jv_elementwise_gpu_kernel = {"elementwise", jv_gpu_elementwise_supported, ew_kernel_plan,
                                                            ew_kernel_run, ew_kernel_release};
#endif

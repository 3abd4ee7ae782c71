/* batchnorm_device: the device helpers of batchnorm.cu's kernels (CUDA or HIP through jv_gpu.h): the storage of
 * each dtype and its conversions, the per-channel parameter loads and stores, the walk of a block over x (NCHW and
 * channels_last, forward or reversed) and Chan's merge of Welford partials. Included by batchnorm.cu only. */
#ifndef JV_BATCHNORM_DEVICE_H
#define JV_BATCHNORM_DEVICE_H

#include "jv_gpu.h"

#include "batchnorm_internal.h"

namespace jv_bn {

/* ---- storage ---- */

template <int DT> struct stor { typedef unsigned short type; /* fp16 / bf16 bits */ };
template <> struct stor<DT_F32> { typedef float type; };

__device__ __forceinline__ float bits_to_float(float v, int) {
    return v;
}
__device__ __forceinline__ float bits_to_float(unsigned short v, int dt) {
    if (dt == DT_F16) return __half2float(__ushort_as_half(v));
    return __uint_as_float(((unsigned int)v) << 16);
}

template <int DT> __device__ __forceinline__ float to_f(typename stor<DT>::type v) {
    return bits_to_float(v, DT);
}

template <int DT> __device__ __forceinline__ typename stor<DT>::type from_f(float v);
template <> __device__ __forceinline__ float from_f<DT_F32>(float v) {
    return v;
}
template <> __device__ __forceinline__ unsigned short from_f<DT_F16>(float v) {
    return __half_as_ushort(__float2half(v));
}
template <> __device__ __forceinline__ unsigned short from_f<DT_BF16>(float v) {
    return jv_float_to_bf16_bits(v);
}

/* V storage elements, aligned to their size (V * sizeof is 16 or a scalar) */
template <typename S, int V> struct alignas(sizeof(S) * V) vec { S v[V]; };

__device__ __forceinline__ double pv_load(pvec a, long long c, double def) {
    if (!a.p) return def;
    long long off = c * a.stride;
    if (a.dt == DT_F32) return (double)((const float *)a.p)[off];
    return (double)bits_to_float(((const unsigned short *)a.p)[off], a.dt);
}

__device__ __forceinline__ void pv_store(pvec a, long long c, double v) {
    if (!a.p) return;
    long long off = c * a.stride;
    float f = (float)v;
    if (a.dt == DT_F32)
        ((float *)a.p)[off] = f;
    else if (a.dt == DT_F16)
        ((unsigned short *)a.p)[off] = __half_as_ushort(__float2half(f));
    else
        ((unsigned short *)a.p)[off] = jv_float_to_bf16_bits(f);
}

/* ---- geometry ---- */

/* vectors in flight per thread and step for a kernel reading IN big arrays:
 * 64 bytes of fp32 (16-byte vectors or scalars), 32 bytes of fp16 / bf16
 * vectors (register room for 8 lanes); halved per array with two inputs so
 * that the 64 registers of __launch_bounds__(BLOCK, PER_SM) hold them. */
template <int V, int IN> struct unroll {
    static constexpr int one = V == 1 ? 8 : V == 4 ? 4 : 2;
    static constexpr int n = IN == 1 ? one : (one / 2 > 0 ? one / 2 : 1);
};

/* The channel-block and row-group of this block, and the thread's position. */
struct walker {
    long long n, s;    /* NCHW odometer */
    long long base;    /* NCHW: c*HWv; NHWC: channel vector cv */
    long long plane;   /* NCHW: C*HWv */
    long long r, step; /* NHWC: row, row step */
    bool live;         /* NHWC: cv < Cv */

    __device__ __forceinline__ bool next(const geo &g, long long &off) {
        if (!g.nhwc) {
            if (n >= g.N) return false;
            off = n * plane + base + s;
            s += g.step_s;
            n += g.step_n;
            if (s >= g.HWv) {
                s -= g.HWv;
                ++n;
            }
            return true;
        }
        if (!live || r < 0 || r >= g.R) return false;
        off = r * g.Cv + base;
        r += step;
        return true;
    }
};

/* Sets up the walker of this thread; cblk: NCHW channel / NHWC channel-vector block. rev: the
 * walk in the opposite order (the second pass over x: what the first pass read last, still in the
 * L2 cache, comes first). NHWC: each thread's rows last to first; NCHW: the blocks in reverse. */
__device__ __forceinline__ walker make_walker(const geo &g, bool rev, long long &cblk, int &ty_id, int &tx_id) {
    long long b = (long long)blockIdx.x;
    if (rev && !g.nhwc) b = (long long)gridDim.x - 1 - b;
    cblk = b / g.G;
    long long grp = b - cblk * g.G;
    int tid = (int)threadIdx.x;
    tx_id = tid & (g.tx - 1);
    ty_id = tid >> g.tx_log2;
    walker w;
    w.n = w.s = w.r = w.step = w.plane = 0;
    w.live = true;
    if (!g.nhwc) {
        long long j0 = grp * BLOCK + tid;
        w.n = j0 / g.HWv;
        w.s = j0 - w.n * g.HWv;
        w.base = cblk * g.HWv;
        w.plane = g.C * g.HWv;
    } else {
        int ty = BLOCK >> g.tx_log2;
        long long cv = cblk * g.tx + tx_id;
        w.live = cv < g.Cv;
        w.base = cv;
        w.r = grp * ty + ty_id;
        w.step = g.G * ty;
        if (rev && w.r < g.R) {
            w.r += (g.R - 1 - w.r) / w.step * w.step; /* the thread's last row; r < step, so r - step < 0 */
            w.step = -w.step;
        }
    }
    return w;
}

/* Chan's merge of (ma, m2a, na) with (mb, m2b, nb) into the first. */
template <typename F> __device__ __forceinline__ void chan(F &ma, F &m2a, F &na, F mb, F m2b, F nb) {
    if (nb == F(0)) return;
    if (na == F(0)) {
        ma = mb, m2a = m2b, na = nb;
        return;
    }
    F n = na + nb, d = mb - ma, f = nb / n;
    ma += d * f;
    m2a += m2b + d * d * na * f;
    na = n;
}

} // namespace jv_bn

#endif

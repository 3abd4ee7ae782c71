/* batchnorm.cu: our batch-norm device kernels (CUDA or HIP through jv_gpu.h)
 * and the C entry points of batchnorm_gpu.h. Semantics are those of
 * batchnorm_ref.c.
 *
 * x is viewed as [N, C, HW] (NCHW: dense row-major) or [R = N*HW, C]
 * (channels_last: dense with stride 1 on C). Every big kernel walks x in
 * V-element vectors (16 bytes when the contiguous run allows, 8 bytes for
 * fp16 / bf16 when only that divides it, else scalars; scalars too when a
 * buffer is not 16-byte aligned):
 *  - NCHW: block (c, g) of a 1-D grid of C*G blocks owns channel c; its
 *    threads take vector j = g*B + tid + k*G*B of the channel's N*HW/V
 *    vectors, tracked as (n, s) with an odometer (no division in the loop);
 *  - NHWC: a block is tx threads along channel vectors by ty = B/tx threads
 *    along rows; block (cb, g) owns channel vectors cb*tx .. cb*tx+tx-1 and
 *    rows g*ty + y + k*G*ty.
 * G is sized from the multiprocessor count so the grid fills the device even
 * for few channels. Reductions: per-thread partials (Welford mean / M2 per
 * lane for the statistics, plain float sums for the backward), merged over
 * the block's rows in shared memory, written per (channel, g) to the workspace,
 * then merged per channel in double by a finalize kernel (a block per
 * channel, or a warp in a lean backward; the statistics' mean first, then
 * the M2 terms: one division per channel)
 * that also writes the per-channel outputs and the coefficients of the
 * elementwise pass. The elementwise pass walks x in the reverse of the first
 * pass's order, so the rows still in the L2 cache come first.
 * Passes: training forward = stats + finalize + normalize (3N bytes); eval
 * forward = prep + normalize (2N); backward = reduce + finalize + grad_input
 * (5N; 3N for eval with grad_input only), with a prep kernel before the
 * reduce unless the plan is lean (jv_gpu_batchnorm_tuning). */
extern "C" {
#include "batchnorm.h"
#include "batchnorm_gpu.h"
#include "jv_family.h"
}

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_gpu.h"

#include "batchnorm_device.h"
#include "batchnorm_internal.h"
#include "jv_gpu_kernel.h"

using namespace jv_bn;

namespace {

/* ---- statistics (training forward) ---- */

/* Welford partials per (channel, g): ws[c*G + g] of mean, then C*G of M2, then C*G of counts. */
template <int DT, int V>
__global__ void __launch_bounds__(BLOCK, PER_SM)
    k_stats(geo g, const typename stor<DT>::type *__restrict__ x, float *__restrict__ part) {
    typedef typename stor<DT>::type S;
    constexpr int UNROLL = unroll<V, 1>::n;
    __shared__ float sh_m[BLOCK * V], sh_q[BLOCK * V], sh_n[BLOCK];
    long long cblk;
    int ty_id, tx_id;
    walker w = make_walker(g, false, cblk, ty_id, tx_id);
    float mean[V], m2[V], cnt = 0.f;
#pragma unroll
    for (int i = 0; i < V; i++)
        mean[i] = m2[i] = 0.f;
    const vec<S, V> *xv = reinterpret_cast<const vec<S, V> *>(x);
    for (;;) {
        long long off[UNROLL];
        bool ok[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            ok[u] = w.next(g, off[u]);
        if (!ok[0]) break;
        vec<S, V> a[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (ok[u]) a[u] = xv[off[u]];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            if (!ok[u]) continue;
            cnt += 1.f;
            float r = __fdividef(1.f, cnt); /* MUFU.RCP: 2 ulp at most, no slow path in the loop */
#pragma unroll
            for (int i = 0; i < V; i++) {
                float v = to_f<DT>(a[u].v[i]);
                float d = v - mean[i];
                mean[i] += d * r;
                m2[i] += d * (v - mean[i]);
            }
        }
    }
    /* merge over the block's rows (ty), per (tx, lane) */
    int tid = (int)threadIdx.x;
#pragma unroll
    for (int i = 0; i < V; i++) {
        sh_m[tid * V + i] = mean[i];
        sh_q[tid * V + i] = m2[i];
    }
    sh_n[tid] = cnt;
    __syncthreads();
    int ty = BLOCK >> g.tx_log2;
    for (int half = ty >> 1; half > 0; half >>= 1) {
        if (ty_id < half) {
            int o = tid + (half << g.tx_log2);
            float na = sh_n[tid], nb = sh_n[o];
#pragma unroll
            for (int i = 0; i < V; i++) {
                float ma = sh_m[tid * V + i], qa = sh_q[tid * V + i], n2 = na;
                chan(ma, qa, n2, sh_m[o * V + i], sh_q[o * V + i], nb);
                sh_m[tid * V + i] = ma;
                sh_q[tid * V + i] = qa;
            }
            sh_n[tid] = na + nb;
        }
        __syncthreads();
    }
    if (ty_id != 0) return;
    long long grp = (long long)blockIdx.x - cblk * g.G, cg = g.C * g.G;
    float n0 = sh_n[tid];
    if (!g.nhwc) {
        float ma = sh_m[0], qa = sh_q[0], na = n0; /* every lane saw n0 values of channel cblk */
        for (int i = 1; i < V; i++)
            chan(ma, qa, na, sh_m[i], sh_q[i], n0);
        long long k = cblk * g.G + grp;
        part[k] = ma;
        part[cg + k] = qa;
        part[2 * cg + k] = na;
        return;
    }
    long long cv = cblk * g.tx + tx_id;
    if (cv >= g.Cv) return;
    for (int i = 0; i < V; i++) {
        long long k = (cv * V + i) * g.G + grp;
        part[k] = sh_m[tid * V + i];
        part[cg + k] = sh_q[tid * V + i];
        part[2 * cg + k] = n0;
    }
}

/* Coefficients per channel, each an array of C floats in coef: 0 mean, 1 scale, 2 shift (or k1), 3 k2. */

/* The sum of v over the FIN threads of the block, in every thread (s: FIN doubles of shared memory). */
__device__ __forceinline__ double fin_sum(double v, double *s) {
    int t = (int)threadIdx.x;
    s[t] = v;
    __syncthreads();
    for (int half = FIN / 2; half > 0; half >>= 1) {
        if (t < half) s[t] += s[t + half];
        __syncthreads();
    }
    double r = s[0];
    __syncthreads();
    return r;
}

/* The sum of v over the threads that merge one channel's partials, in every one of them: the JV_WARP lanes
 * of a warp (LEAN) or the FIN threads of the block (s: FIN doubles of shared memory, unused when LEAN). */
template <int LEAN> __device__ __forceinline__ double group_sum(double v, double *s);
template <> __device__ __forceinline__ double group_sum<0>(double v, double *s) {
    return fin_sum(v, s);
}
template <> __device__ __forceinline__ double group_sum<1>(double v, double *) {
#pragma unroll
    for (int d = JV_WARP / 2; d > 0; d >>= 1)
        v += JV_SHFL_XOR(v, d);
    return v;
}

/* The threads that merge one channel's partials in a finalize kernel: LEAN, the JV_WARP lanes of a
 * warp (FIN / JV_WARP channels per block, no barrier); else the FIN threads of the block. */
template <int LEAN> struct fin_group {
    long long c; /* the channel */
    int t;       /* this thread's lane in the group */
    static constexpr int lanes = LEAN ? JV_WARP : FIN;
    __device__ __forceinline__ fin_group() {
        c = LEAN ? (long long)blockIdx.x * (FIN / JV_WARP) + (long long)(threadIdx.x / JV_WARP) : (long long)blockIdx.x;
        t = LEAN ? (int)(threadIdx.x % JV_WARP) : (int)threadIdx.x;
    }
    /* the sum of v over the group, in every lane */
    __device__ __forceinline__ double sum(double v, double *s) const { return group_sum<LEAN>(v, s); }
};

/* FIN_BATCH partials per lane loaded before any is summed: a warp per channel has G / JV_WARP of them per
 * lane (8 for [64,512,28,28] on 132 SMs), and a loop that adds each before loading the next waits out one
 * memory latency per partial */
constexpr int FIN_BATCH = 8;

/* v[a][j] = p[a][k0 + j*lanes] for the NA partial arrays p, 0 past G: a lane's next FIN_BATCH partials */
template <int NA>
__device__ __forceinline__ void load_partials(const float *const (&p)[NA], long long k0, int lanes, long long G,
                                              float (&v)[NA][FIN_BATCH]) {
#pragma unroll
    for (int j = 0; j < FIN_BATCH; j++) {
        long long k = k0 + (long long)j * lanes;
#pragma unroll
        for (int a = 0; a < NA; a++)
            v[a][j] = k < G ? p[a][k] : 0.f;
    }
}

/* blocks of a finalize kernel over C channels */
inline int fin_grid(long long C, int lean) {
    return (int)(lean ? (C + FIN / JV_WARP - 1) / (FIN / JV_WARP) : C);
}

/* One block per channel: merges the G Welford partials (mean_k, M2_k, n_k) in double, the mean first
 * (sum of n_k mean_k over sum of n_k), then M2 = sum of M2_k + n_k (mean_k - mean)^2: one division per
 * channel. (A warp per channel, as the backward's lean finalize, ran 0.7-3.7 us slower on the four
 * ResNet-50 forward shapes on an H200: two passes over the partials on fewer multiprocessors.) */
__global__ void __launch_bounds__(FIN)
    k_fwd_finalize(chan_args a, const float *__restrict__ part, float *__restrict__ coef) {
    __shared__ double s_m[FIN], s_q[FIN], s_n[FIN];
    const fin_group<0> grp;
    long long c = grp.c;
    int t = grp.t;
    long long cg = a.C * a.G;
    const float *pm = part + c * a.G, *pq = pm + cg, *pn = pm + 2 * cg;
    double n = 0, sum = 0;
    const float *const mn[2] = {pm, pn};
    for (long long k0 = t; k0 < a.G; k0 += (long long)FIN_BATCH * grp.lanes) {
        float v[2][FIN_BATCH];
        load_partials<2>(mn, k0, grp.lanes, a.G, v);
#pragma unroll
        for (int j = 0; j < FIN_BATCH; j++) {
            n += (double)v[1][j];
            sum += (double)v[1][j] * (double)v[0][j];
        }
    }
    n = grp.sum(n, s_n);
    sum = grp.sum(sum, s_m);
    double mean = n > 0 ? sum / n : 0.0;
    double q = 0;
    const float *const mqn[3] = {pm, pq, pn};
    for (long long k0 = t; k0 < a.G; k0 += (long long)FIN_BATCH * grp.lanes) {
        float v[3][FIN_BATCH];
        load_partials<3>(mqn, k0, grp.lanes, a.G, v);
#pragma unroll
        for (int j = 0; j < FIN_BATCH; j++) {
            double d = (double)v[0][j] - mean;
            q += (double)v[1][j] + (double)v[2][j] * d * d;
        }
    }
    double m2 = grp.sum(q, s_q);
    if (t != 0) return;
    double cnt = (double)a.M, var = m2 / cnt;
    if (var < 0) var = 0;
    double invstd = 1.0 / sqrt(var + a.eps);
    double w = pv_load(a.w, c, 1.0), b = pv_load(a.b, c, 0.0);
    coef[c] = (float)mean;
    coef[a.C + c] = (float)(invstd * w);
    coef[2 * a.C + c] = (float)b;
    pv_store(a.sm, c, mean);
    pv_store(a.sv, c, invstd);
    if (a.rm.p) {
        double mo = a.momentum;
        double unbiased = a.M > 1 ? var * cnt / (cnt - 1.0) : __longlong_as_double(0x7ff8000000000000LL);
        double rm = pv_load(a.rm, c, 0.0), rv = pv_load(a.rv, c, 0.0);
        pv_store(a.rm, c, (1 - mo) * rm + mo * mean);
        pv_store(a.rv, c, (1 - mo) * rv + mo * unbiased);
    }
}

/* Eval forward: coefficients from the running statistics (one thread per channel). */
__global__ void k_eval_prep(chan_args a, float *__restrict__ coef) {
    long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= a.C) return;
    double mean = pv_load(a.rm, c, 0.0), invstd = 1.0 / sqrt(pv_load(a.rv, c, 1.0) + a.eps);
    coef[c] = (float)mean;
    coef[a.C + c] = (float)(invstd * pv_load(a.w, c, 1.0));
    coef[2 * a.C + c] = (float)pv_load(a.b, c, 0.0);
}

/* mean and invstd of a backward: saved statistics in training, running ones in eval */
__device__ __forceinline__ void bwd_stats(const chan_args &a, long long c, double &mean, double &invstd) {
    if (a.training) {
        mean = pv_load(a.sm, c, 0.0);
        invstd = pv_load(a.sv, c, 1.0);
    } else {
        mean = pv_load(a.rm, c, 0.0);
        invstd = 1.0 / sqrt(pv_load(a.rv, c, 1.0) + a.eps);
    }
}

/* Backward: the mean the reduction subtracts (one thread per channel). */
__global__ void k_bwd_prep(chan_args a, float *__restrict__ coef) {
    long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= a.C) return;
    double mean, invstd;
    bwd_stats(a, c, mean, invstd);
    coef[c] = (float)mean;
}

/* ---- backward reduction: sum(dy), sum(dy * (x - mean)) ---- */

/* Partials per (channel, g): part[c*G + g] of sum(dy), then C*G of sum(dy*(x - mean)). The mean:
 * lean, read from the saved (or running) statistics by each thread; else from coef (k_bwd_prep). */
template <int DT, int V>
__global__ void __launch_bounds__(BLOCK, PER_SM)
    k_bwd_reduce(geo g, chan_args ca, int lean, const typename stor<DT>::type *__restrict__ x,
                 const typename stor<DT>::type *__restrict__ dy, const float *__restrict__ coef,
                 float *__restrict__ part) {
    typedef typename stor<DT>::type S;
    constexpr int UNROLL = unroll<V, 2>::n;
    __shared__ float sh_a[BLOCK * V], sh_b[BLOCK * V];
    long long cblk;
    int ty_id, tx_id;
    walker w = make_walker(g, false, cblk, ty_id, tx_id);
    float mean[V], sa[V], sb[V];
    long long cv = cblk * g.tx + tx_id;
#pragma unroll
    for (int i = 0; i < V; i++) {
        sa[i] = sb[i] = 0.f;
        long long ch = g.nhwc ? cv * V + i : cblk;
        mean[i] = 0.f;
        if (g.nhwc && cv >= g.Cv) continue;
        if (lean) {
            double m, invstd;
            bwd_stats(ca, ch, m, invstd);
            mean[i] = (float)m;
        } else {
            mean[i] = coef[ch];
        }
    }
    const vec<S, V> *xv = reinterpret_cast<const vec<S, V> *>(x);
    const vec<S, V> *gv = reinterpret_cast<const vec<S, V> *>(dy);
    for (;;) {
        long long off[UNROLL];
        bool ok[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            ok[u] = w.next(g, off[u]);
        if (!ok[0]) break;
        vec<S, V> a[UNROLL], b[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (ok[u]) {
                a[u] = xv[off[u]];
                b[u] = gv[off[u]];
            }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            if (!ok[u]) continue;
#pragma unroll
            for (int i = 0; i < V; i++) {
                float d = to_f<DT>(b[u].v[i]);
                sa[i] += d;
                sb[i] += d * (to_f<DT>(a[u].v[i]) - mean[i]);
            }
        }
    }
    int tid = (int)threadIdx.x;
#pragma unroll
    for (int i = 0; i < V; i++) {
        sh_a[tid * V + i] = sa[i];
        sh_b[tid * V + i] = sb[i];
    }
    __syncthreads();
    int ty = BLOCK >> g.tx_log2;
    for (int half = ty >> 1; half > 0; half >>= 1) {
        if (ty_id < half) {
            int o = tid + (half << g.tx_log2);
#pragma unroll
            for (int i = 0; i < V; i++) {
                sh_a[tid * V + i] += sh_a[o * V + i];
                sh_b[tid * V + i] += sh_b[o * V + i];
            }
        }
        __syncthreads();
    }
    if (ty_id != 0) return;
    long long grp = (long long)blockIdx.x - cblk * g.G, cg = g.C * g.G;
    if (!g.nhwc) {
        float ta = 0.f, tb = 0.f;
        for (int i = 0; i < V; i++)
            ta += sh_a[i], tb += sh_b[i];
        long long k = cblk * g.G + grp;
        part[k] = ta;
        part[cg + k] = tb;
        return;
    }
    if (cv >= g.Cv) return;
    for (int i = 0; i < V; i++) {
        long long k = (cv * V + i) * g.G + grp;
        part[k] = sh_a[tid * V + i];
        part[cg + k] = sh_b[tid * V + i];
    }
}

/* One group per channel (fin_group): sums the G partials in double, writes
 * grad_weight / grad_bias and the grad_input coefficients. */
template <int LEAN>
__global__ void __launch_bounds__(FIN)
    k_bwd_finalize(chan_args a, const float *__restrict__ part, float *__restrict__ coef) {
    __shared__ double s_a[FIN], s_b[FIN];
    const fin_group<LEAN> grp;
    long long c = grp.c;
    int t = grp.t;
    if (LEAN && c >= a.C) return; /* a whole warp: no barrier follows */
    long long cg = a.C * a.G;
    const float *pa = part + c * a.G, *pb = pa + cg;
    double sa = 0, sb = 0;
    const float *const ab[2] = {pa, pb};
    for (long long k0 = t; k0 < a.G; k0 += (long long)FIN_BATCH * grp.lanes) {
        float v[2][FIN_BATCH];
        load_partials<2>(ab, k0, grp.lanes, a.G, v);
#pragma unroll
        for (int j = 0; j < FIN_BATCH; j++) {
            sa += (double)v[0][j];
            sb += (double)v[1][j];
        }
    }
    double sum_dy = grp.sum(sa, s_a), sum_dyxm = grp.sum(sb, s_b);
    if (t != 0) return;
    double mean, invstd;
    bwd_stats(a, c, mean, invstd);
    double scale = pv_load(a.w, c, 1.0) * invstd;
    pv_store(a.gw, c, sum_dyxm * invstd);
    pv_store(a.gb, c, sum_dy);
    double cnt = a.M > 0 ? (double)a.M : 1.0;
    coef[c] = (float)mean;
    coef[a.C + c] = (float)scale;
    coef[2 * a.C + c] = (float)(-scale * sum_dy / cnt);
    coef[3 * a.C + c] = (float)(-scale * invstd * invstd * sum_dyxm / cnt);
}

/* ---- the elementwise pass ---- */

enum { EW_FWD = 0, EW_BWD_TRAIN = 1, EW_BWD_EVAL = 2 };

/* EW_FWD: out = (x - mean) * scale + shift; EW_BWD_TRAIN: out = scale*dy + k1 + k2*(x - mean);
 * EW_BWD_EVAL: out = scale * dy (x unread). */
template <int DT, int V, int MODE>
__global__ void __launch_bounds__(BLOCK, PER_SM)
    k_apply(geo g, const typename stor<DT>::type *__restrict__ x, const typename stor<DT>::type *__restrict__ dy,
            const float *__restrict__ coef, typename stor<DT>::type *__restrict__ out) {
    typedef typename stor<DT>::type S;
    constexpr int UNROLL = unroll<V, (MODE == EW_BWD_TRAIN ? 2 : 1)>::n;
    long long cblk;
    int ty_id, tx_id;
    walker w = make_walker(g, true, cblk, ty_id, tx_id);
    long long cv = cblk * g.tx + tx_id;
    if (g.nhwc && cv >= g.Cv) return;
    float mean[V], scale[V], k1[V], k2[V];
#pragma unroll
    for (int i = 0; i < V; i++) {
        long long ch = g.nhwc ? cv * V + i : cblk;
        mean[i] = coef[ch];
        scale[i] = coef[g.C + ch];
        k1[i] = coef[2 * g.C + ch];
        k2[i] = MODE == EW_BWD_TRAIN ? coef[3 * g.C + ch] : 0.f;
    }
    const vec<S, V> *xv = reinterpret_cast<const vec<S, V> *>(x);
    const vec<S, V> *gv = reinterpret_cast<const vec<S, V> *>(dy);
    vec<S, V> *ov = reinterpret_cast<vec<S, V> *>(out);
    for (;;) {
        long long off[UNROLL];
        bool ok[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            ok[u] = w.next(g, off[u]);
        if (!ok[0]) break;
        vec<S, V> a[UNROLL], b[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (ok[u]) {
                if (MODE != EW_BWD_EVAL) a[u] = xv[off[u]];
                if (MODE != EW_FWD) b[u] = gv[off[u]];
            }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            if (!ok[u]) continue;
            vec<S, V> r;
#pragma unroll
            for (int i = 0; i < V; i++) {
                float v;
                if (MODE == EW_FWD)
                    v = (to_f<DT>(a[u].v[i]) - mean[i]) * scale[i] + k1[i];
                else if (MODE == EW_BWD_TRAIN)
                    v = scale[i] * to_f<DT>(b[u].v[i]) + k1[i] + k2[i] * (to_f<DT>(a[u].v[i]) - mean[i]);
                else
                    v = scale[i] * to_f<DT>(b[u].v[i]);
                r.v[i] = from_f<DT>(v);
            }
            ov[off[u]] = r;
        }
    }
}

int grid_of(const plan &p) {
    return (int)((p.nhwc ? (p.geom.Cv + p.geom.tx - 1) / p.geom.tx : p.C) * p.geom.G);
}

template <int DT, int V>
int launch_big(const plan &p, const chan_args &a, int what, const void *x, const void *dy, float *coef, float *part,
               void *out, jv_gpuStream_t st) {
    typedef typename stor<DT>::type S;
    int grid = grid_of(p);
    const S *xs = (const S *)x, *gs = (const S *)dy;
    S *os = (S *)out;
    switch (what) {
    case 0: k_stats<DT, V><<<grid, BLOCK, 0, st>>>(p.geom, xs, part); break;
    case 1: k_bwd_reduce<DT, V><<<grid, BLOCK, 0, st>>>(p.geom, a, p.lean, xs, gs, coef, part); break;
    case 2: k_apply<DT, V, EW_FWD><<<grid, BLOCK, 0, st>>>(p.geom, xs, gs, coef, os); break;
    case 3: k_apply<DT, V, EW_BWD_TRAIN><<<grid, BLOCK, 0, st>>>(p.geom, xs, gs, coef, os); break;
    default: k_apply<DT, V, EW_BWD_EVAL><<<grid, BLOCK, 0, st>>>(p.geom, xs, gs, coef, os); break;
    }
    return JV_GPU_LAUNCH_STATUS();
}

/* what: 0 stats, 1 backward reduce, 2 normalize, 3 grad_input (training), 4 grad_input (eval) */
template <int DT>
int launch_dt(const plan &p, const chan_args &a, int what, const void *x, const void *dy, float *coef, float *part,
              void *out, jv_gpuStream_t st) {
    constexpr int VMAX = 16 / sizeof(typename stor<DT>::type);
    if (p.V == VMAX) return launch_big<DT, VMAX>(p, a, what, x, dy, coef, part, out, st);
    if (VMAX == 8 && p.V == 4) return launch_big<DT, (VMAX == 8 ? 4 : VMAX)>(p, a, what, x, dy, coef, part, out, st);
    return launch_big<DT, 1>(p, a, what, x, dy, coef, part, out, st);
}

/* a: the per-channel arguments with their addresses (the backward reduction reads the mean from them
 * when lean) */
int launch(const plan &p, const chan_args &a, int what, const void *x, const void *dy, float *coef, float *part,
           void *out, jv_gpuStream_t st) {
    if (!p.big) return 0;
    switch (p.dt) {
    case DT_F32: return launch_dt<DT_F32>(p, a, what, x, dy, coef, part, out, st);
    case DT_F16: return launch_dt<DT_F16>(p, a, what, x, dy, coef, part, out, st);
    default: return launch_dt<DT_BF16>(p, a, what, x, dy, coef, part, out, st);
    }
}

} // namespace

/* A planned call (batchnorm_gpu.h): the vector-access plan and the scalar one
 * (for buffers that are not 16-byte aligned), the per-channel arguments with
 * their addresses left NULL. */
struct jv_gpu_batchnorm_plan {
    plan vec, scalar;
    chan_args a;
    int bwd, training;
};

extern "C" int jv_gpu_batchnorm_supported(const jv_desc *d, const jv_operands *ops, char *why, size_t cap) {
    plan p;
    return make_plan(d, ops, 1, 0, &p, why, cap);
}

extern "C" jv_status jv_gpu_batchnorm_plan_create(const jv_desc *d, const jv_operands *ops, int sms,
                                                  jv_gpu_batchnorm_plan **out, size_t *ws_bytes, jv_err *err) {
    *out = NULL;
    *ws_bytes = 0;
    char why[160];
    plan v, q;
    if (!make_plan(d, ops, sms, 0, &v, why, sizeof why) || !make_plan(d, ops, sms, 1, &q, why, sizeof why))
        JV_FAIL(err, JV_ERR_NOTFOUND, "batch norm: not run by our kernel: %s", why);
    jv_gpu_batchnorm_plan *pl = static_cast<jv_gpu_batchnorm_plan *>(calloc(1, sizeof *pl));
    if (!pl) JV_FAIL(err, JV_ERR_NOMEM, "batch norm: out of memory for a plan");
    const jv_batchnorm_desc *g = v.g;
    pl->bwd = g->bwd;
    pl->training = g->training;
    chan_args &a = pl->a;
    a.w = pv_of(ops, v.iw);
    a.b = pv_of(ops, v.ib);
    a.rm = pv_of(ops, v.irm);
    a.rv = pv_of(ops, v.irv);
    a.sm = pv_of(ops, v.ism);
    a.sv = pv_of(ops, v.isv);
    a.gw = pv_of(ops, v.igw);
    a.gb = pv_of(ops, v.igb);
    a.C = v.C;
    a.M = v.M;
    a.eps = g->eps;
    a.momentum = g->momentum;
    a.training = g->training;
    v.g = q.g = NULL; /* the plan outlives the descriptor */
    pl->vec = v;
    pl->scalar = q;
    /* the larger of the two plans' needs (the scalar one runs on unaligned buffers) */
    size_t wa = v.coef_bytes + v.part_bytes, wb = q.coef_bytes + q.part_bytes;
    *ws_bytes = wa > wb ? wa : wb;
    *out = pl;
    return JV_OK;
}

extern "C" jv_gpu_batchnorm_tuning jv_gpu_batchnorm_tuning_default(void) {
    jv_gpu_batchnorm_tuning t;
    t.lean = JV_BN_DEFAULT_LEAN;
    t.wide = JV_BN_DEFAULT_WIDE;
    return t;
}

extern "C" void jv_gpu_batchnorm_plan_tune(jv_gpu_batchnorm_plan *pl, const jv_gpu_batchnorm_tuning *t) {
    if (!pl) return;
    jv_gpu_batchnorm_tuning d = jv_gpu_batchnorm_tuning_default();
    if (!t) t = &d;
    plan *ps[] = {&pl->vec, &pl->scalar};
    for (int i = 0; i < 2; i++) {
        ps[i]->lean = t->lean != 0;
        if ((t->wide != 0) != ps[i]->wide) set_geometry(ps[i], t->wide != 0); /* sized at create: cannot fail */
    }
}

extern "C" void jv_gpu_batchnorm_plan_free(jv_gpu_batchnorm_plan *pl) {
    free(pl);
}

extern "C" int jv_gpu_batchnorm_run(const jv_gpu_batchnorm_plan *pl, void *const *bufs, void *workspace, void *stream) {
    if (!pl || !workspace || !bufs) return JV_GPU_ERR_INVALID;
    const plan *pp = &pl->vec;
    if (pp->V > 1) {
        int big[] = {pp->ix, pp->iout, pp->idy, pp->idx};
        for (int i = 0; i < 4; i++)
            if (big[i] >= 0 && ((uintptr_t)bufs[big[i]] & 15u)) pp = &pl->scalar;
    }
    const plan &p = *pp;
    jv_gpuStream_t st = (jv_gpuStream_t)stream;
    float *coef = (float *)workspace;
    float *part = (float *)((char *)workspace + p.coef_bytes);
    chan_args a = pl->a;
    a.w = pv_at(a.w, bufs, p.iw);
    a.b = pv_at(a.b, bufs, p.ib);
    a.rm = pv_at(a.rm, bufs, p.irm);
    a.rv = pv_at(a.rv, bufs, p.irv);
    a.sm = pv_at(a.sm, bufs, p.ism);
    a.sv = pv_at(a.sv, bufs, p.isv);
    a.gw = pv_at(a.gw, bufs, p.igw);
    a.gb = pv_at(a.gb, bufs, p.igb);
    a.G = p.geom.G;
    if (p.C == 0) return 0;
    const void *x = bufs[p.ix];
    int cgrid = (int)((p.C + 255) / 256);
    int rc;
    if (!pl->bwd) {
        void *out = bufs[p.iout];
        if (pl->training) {
            if ((rc = launch(p, a, 0, x, NULL, coef, part, NULL, st))) return rc;
            k_fwd_finalize<<<fin_grid(p.C, 0), FIN, 0, st>>>(a, part, coef);
        } else {
            k_eval_prep<<<cgrid, 256, 0, st>>>(a, coef);
        }
        if ((rc = JV_GPU_LAUNCH_STATUS())) return rc;
        return launch(p, a, 2, x, NULL, coef, part, out, st);
    }
    const void *dy = bufs[p.idy];
    bool need_reduce = (p.idx >= 0 && pl->training) || p.igw >= 0 || p.igb >= 0;
    if (!need_reduce) a.G = 0; /* the finalize sums nothing: grad_input coefficients only */
    if (need_reduce) {
        if (!p.lean) {
            k_bwd_prep<<<cgrid, 256, 0, st>>>(a, coef);
            if ((rc = JV_GPU_LAUNCH_STATUS())) return rc;
        }
        if ((rc = launch(p, a, 1, x, dy, coef, part, NULL, st))) return rc;
    }
    if (p.lean)
        k_bwd_finalize<1><<<fin_grid(p.C, 1), FIN, 0, st>>>(a, part, coef);
    else
        k_bwd_finalize<0><<<fin_grid(p.C, 0), FIN, 0, st>>>(a, part, coef);
    if ((rc = JV_GPU_LAUNCH_STATUS())) return rc;
    if (p.idx < 0) return 0;
    return launch(p, a, pl->training ? 3 : 4, x, dy, coef, part, bufs[p.idx], st);
}

/* ---- the family's device-kernel entry (jv_gpu_kernel.h) ---- */

#if JV_GPU_HOST_PASS
static jv_status bn_kernel_plan(const jv_desc *d, const jv_operands *ops, int sms, void **plan, size_t *ws_bytes,
                                jv_err *err) {
    jv_gpu_batchnorm_plan *pl = NULL;
    *ws_bytes = 0;
    jv_status st = jv_gpu_batchnorm_plan_create(d, ops, sms, &pl, ws_bytes, err);
    *plan = pl;
    return st;
}

static int bn_kernel_run(const void *plan, void *const *bufs, void *workspace, void *stream) {
    return jv_gpu_batchnorm_run(static_cast<const jv_gpu_batchnorm_plan *>(plan), bufs, workspace, stream);
}

static void bn_kernel_release(void *plan) {
    jv_gpu_batchnorm_plan_free(static_cast<jv_gpu_batchnorm_plan *>(plan));
}

extern "C" const jv_gpu_kernel jv_batchnorm_gpu_kernel = {"batchnorm", jv_gpu_batchnorm_supported, bn_kernel_plan,
                                                          bn_kernel_run, bn_kernel_release};
#endif

/* conv_bias.cu: the bias gradient of a convolution (conv_gpu.h), CUDA or HIP
 * through jv_gpu.h. db[c] = sum of dy over every index but dim 1, as
 * conv_ref.c's reference computes it.
 *
 * One block per channel. The dims other than the channel are first reduced
 * on the host to as few as describe the same elements (size-1 dims dropped,
 * neighbours whose strides nest merged: NCHW becomes [N, HW], channels_last
 * a single run of N*HW rows of stride C), then the block's threads take rows
 * r = tid, tid + B, tid + 2B, ... of the R rows (the product of those dims),
 * tracked as a multi-index advanced by B's own digits in the same mixed radix
 * (an odometer: no division in the loop). Per-thread sums in float (double
 * for fp64), merged over the block by warp shuffles and shared memory;
 * thread 0 writes db[c] rounded to nearest even. Reads dy once. */
#include <stdint.h>

#include "jv_gpu.h"

extern "C" {
#include "conv_gpu.h"
}

#if defined(JV_HIP) || defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#define CB_INVALID_VALUE ((int)hipErrorInvalidValue)
#else
#define CB_INVALID_VALUE ((int)cudaErrorInvalidValue)
#endif

#define CB_THREADS  256 /* threads per block (a multiple of JV_WARP) */
#define CB_MAX_ROWS (JV_GPU_CONV_MAX_DIMS - 1)

/* the rows of one channel: nd dims (outermost first) of shape[k] elements
 * spaced stride[k] apart; step[k]: the digits of CB_THREADS in that radix */
struct cb_geom {
    int nd;
    int64_t rows; /* product of shape */
    int64_t shape[CB_MAX_ROWS];
    int64_t stride[CB_MAX_ROWS];
    int64_t step[CB_MAX_ROWS];
    int64_t cstride; /* stride of the channel dim */
};

/* storage type T, accumulator A */
template <typename T, typename A> struct cb_io;
template <> struct cb_io<float, float> {
    static __device__ __forceinline__ float load(const float *p) { return *p; }
    static __device__ __forceinline__ float store(float v) { return v; }
};
template <> struct cb_io<double, double> {
    static __device__ __forceinline__ double load(const double *p) { return *p; }
    static __device__ __forceinline__ double store(double v) { return v; }
};
struct cb_f16 {}; /* tags for the 16-bit types, stored as uint16_t */
struct cb_bf16 {};
template <typename TAG> struct cb_io16;
template <> struct cb_io16<cb_f16> {
    static __device__ __forceinline__ float load(const uint16_t *p) { return jv_f16_bits_to_float(*p); }
    static __device__ __forceinline__ uint16_t store(float v) { return jv_float_to_f16_bits(v); }
};
template <> struct cb_io16<cb_bf16> {
    static __device__ __forceinline__ float load(const uint16_t *p) { return jv_bf16_bits_to_float(*p); }
    static __device__ __forceinline__ uint16_t store(float v) { return jv_float_to_bf16_bits(v); }
};

/* block c: db[c] = sum over the rows of channel c. T: storage type, A:
 * accumulator, IO: load(const T *) -> A and store(A) -> T */
template <typename T, typename A, typename IO>
__global__ void __launch_bounds__(CB_THREADS) cb_kernel(const T *__restrict__ dy, T *__restrict__ db, cb_geom g) {
    const int64_t c = blockIdx.x;
    const T *base = dy + c * g.cstride;
    A acc = (A)0;
    if (g.nd == 1) {
        const int64_t s = g.stride[0];
        for (int64_t r = threadIdx.x; r < g.rows; r += CB_THREADS)
            acc += IO::load(base + r * s);
    } else if ((int64_t)threadIdx.x < g.rows) {
        int64_t idx[CB_MAX_ROWS];
        int64_t rem = threadIdx.x;
        for (int k = g.nd - 1; k >= 0; k--) {
            idx[k] = rem % g.shape[k];
            rem /= g.shape[k];
        }
        for (int64_t r = threadIdx.x; r < g.rows; r += CB_THREADS) {
            int64_t off = 0;
            for (int k = 0; k < g.nd; k++)
                off += idx[k] * g.stride[k];
            acc += IO::load(base + off);
            /* idx += step in the radix of shape (a carry past the outermost dim ends the loop via r) */
            int carry = 0;
            for (int k = g.nd - 1; k >= 0; k--) {
                int64_t v = idx[k] + g.step[k] + carry;
                carry = v >= g.shape[k];
                idx[k] = carry ? v - g.shape[k] : v;
            }
        }
    }
    acc = jv_block_sum<A>(acc);
    if (threadIdx.x == 0) db[c] = IO::store(acc);
}

template <typename T, typename A, typename IO>
static int cb_launch(const void *dy, void *db, const cb_geom &g, int64_t channels, jv_gpuStream_t s) {
    cb_kernel<T, A, IO><<<(unsigned)channels, CB_THREADS, 0, s>>>(static_cast<const T *>(dy), static_cast<T *>(db), g);
    return JV_GPU_LAUNCH_STATUS();
}

extern "C" int jv_gpu_conv_bias_grad(jv_dtype dtype, const void *dy, int ndim, const int64_t *shape,
                                     const int64_t *strides, void *db, void *stream) {
    if (ndim < 2 || ndim > JV_GPU_CONV_MAX_DIMS || !shape || !strides) return CB_INVALID_VALUE;
    if (dtype != JV_DT_F32 && dtype != JV_DT_F16 && dtype != JV_DT_BF16 && dtype != JV_DT_F64) return CB_INVALID_VALUE;
    for (int k = 0; k < ndim; k++)
        if (shape[k] < 0 || strides[k] < 0) return CB_INVALID_VALUE;
    const int64_t channels = shape[1];
    if (channels > INT32_MAX) return CB_INVALID_VALUE;
    if (channels == 0) return 0;
    if (!db) return CB_INVALID_VALUE;

    /* the rows: dims other than 1, size-1 dims dropped, nesting neighbours merged */
    cb_geom g = {};
    g.cstride = strides[1];
    g.rows = 1;
    for (int k = 0; k < ndim; k++) {
        if (k == 1 || shape[k] == 1) continue;
        if (shape[k] == 0) {
            g.rows = 0;
            continue;
        }
        if (g.nd > 0 && g.stride[g.nd - 1] == strides[k] * shape[k] &&
            g.shape[g.nd - 1] <= INT64_MAX / shape[k]) { /* merge into the previous (outer) dim */
            g.shape[g.nd - 1] *= shape[k];
            g.stride[g.nd - 1] = strides[k];
        } else {
            g.shape[g.nd] = shape[k];
            g.stride[g.nd] = strides[k];
            g.nd++;
        }
    }
    if (g.rows == 0) {
        g.nd = 0;
    } else {
        for (int k = 0; k < g.nd; k++) {
            if (g.shape[k] > INT64_MAX / g.rows) return CB_INVALID_VALUE; /* more elements than int64 */
            g.rows *= g.shape[k];
        }
    }
    if (g.nd == 0) { /* every other dim of size 1 (one row at offset 0) or one of size 0 (no rows) */
        g.nd = 1;
        g.shape[0] = g.rows;
        g.stride[0] = 0;
    }
    if (g.rows > 0 && !dy) return CB_INVALID_VALUE;
    int64_t rem = CB_THREADS; /* the digits of the step in the rows' radix */
    for (int k = g.nd - 1; k >= 0; k--) {
        g.step[k] = g.shape[k] > 0 ? rem % g.shape[k] : 0;
        rem = g.shape[k] > 0 ? rem / g.shape[k] : 0;
    }

    jv_gpuStream_t s = static_cast<jv_gpuStream_t>(stream);
    switch (dtype) {
    case JV_DT_F32: return cb_launch<float, float, cb_io<float, float>>(dy, db, g, channels, s);
    case JV_DT_F64: return cb_launch<double, double, cb_io<double, double>>(dy, db, g, channels, s);
    case JV_DT_F16: return cb_launch<uint16_t, float, cb_io16<cb_f16>>(dy, db, g, channels, s);
    default: return cb_launch<uint16_t, float, cb_io16<cb_bf16>>(dy, db, g, channels, s);
    }
}

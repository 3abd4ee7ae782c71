/* jv_gpu.h: the one compatibility header of the device sources
 * (kernels/<family>/<family>.cu): the same source compiles as CUDA (nvcc) or
 * HIP (hipcc, __HIP_PLATFORM_AMD__ or JV_HIP). Device code uses only the
 * jv_gpu* names below, never cuda* / hip* directly. Host C code never
 * includes this header: it calls the C entry points of
 * <family>_gpu.h, which take the stream as a void *. */
#ifndef JV_GPU_H
#define JV_GPU_H

#include <stdint.h>

extern "C" {
#include "jv_dtype.h"
}

#if defined(JV_HIP) || defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#include <hip/hip_bfloat16.h> /* ROCm 5.2 has hip_bfloat16 here (hip_bf16.h came later) */
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
typedef hipStream_t jv_gpuStream_t;
typedef hipError_t jv_gpuError_t;
#define jv_gpuSuccess         hipSuccess
#define jv_gpuGetLastError    hipGetLastError
#define jv_gpuPeekAtLastError hipPeekAtLastError
#define JV_GPU_ERR_INVALID    ((int)hipErrorInvalidValue) /* returned for a call that is not supported */
typedef __half jv_half;
typedef hip_bfloat16 jv_bf16;
static __device__ __forceinline__ float jv_bf16_to_float(jv_bf16 v) {
    return (float)v;
}
static __device__ __forceinline__ jv_bf16 jv_float_to_bf16(float v) {
    return jv_bf16(v);
}
#define JV_WARP                64
#define JV_SHFL_DOWN(v, delta) __shfl_down((v), (delta))
#define JV_SHFL_XOR(v, mask)   __shfl_xor((v), (mask))
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
typedef cudaStream_t jv_gpuStream_t;
typedef cudaError_t jv_gpuError_t;
#define jv_gpuSuccess          cudaSuccess
#define jv_gpuGetLastError     cudaGetLastError
#define jv_gpuPeekAtLastError  cudaPeekAtLastError
#define JV_GPU_ERR_INVALID     ((int)cudaErrorInvalidValue) /* returned for a call that is not supported */
typedef __half jv_half;
typedef __nv_bfloat16 jv_bf16;
static __device__ __forceinline__ float jv_bf16_to_float(jv_bf16 v) {
    return __bfloat162float(v);
}
static __device__ __forceinline__ jv_bf16 jv_float_to_bf16(float v) {
    return __float2bfloat16(v);
}
#define JV_WARP                32
#define JV_SHFL_DOWN(v, delta) __shfl_down_sync(0xffffffffu, (v), (delta))
#define JV_SHFL_XOR(v, mask)   __shfl_xor_sync(0xffffffffu, (v), (mask))
#endif

static __device__ __forceinline__ float jv_half_to_float(jv_half v) {
    return __half2float(v);
}
static __device__ __forceinline__ jv_half jv_float_to_half(float v) {
    return __float2half(v);
}

/* 16-bit storage by its bits, the same on both platforms (as core's jv_dtype_store rounds) */
static __device__ __forceinline__ float jv_f16_bits_to_float(unsigned short b) {
    return __half2float(__ushort_as_half(b));
}
static __device__ __forceinline__ unsigned short jv_float_to_f16_bits(float f) {
    return __half_as_ushort(__float2half(f)); /* round to nearest even */
}
static __device__ __forceinline__ float jv_bf16_bits_to_float(unsigned short b) {
    return __uint_as_float((unsigned int)b << 16);
}
/* round to nearest even; a NaN stays a quiet NaN. CUDA: the hardware conversion (one cvt.rn.bf16.f32
 * from sm_80; a NaN becomes the canonical NaN, as PyTorch's CUDA kernels write it); HIP: by the bits
 * (a NaN keeps its sign and payload, as PyTorch's CPU conversion) */
static __device__ __forceinline__ unsigned short jv_float_to_bf16_bits(float f) {
#if defined(JV_HIP) || defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
    unsigned int u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
#else
    return __bfloat16_as_ushort(__float2bfloat16_rn(f));
#endif
}

/* Storage codes of the float-typed buffers (fp32, fp16, bf16) the family kernels read and write as floats; a
 * family's plan maps a jv_dtype to one. */
enum { JV_GS_F32 = 0, JV_GS_F16 = 1, JV_GS_BF16 = 2 };

/* The storage code of dtype d; -1 for a dtype other than fp32, fp16 and bf16. */
static inline int jv_gpu_storage_of(jv_dtype d) {
    return d == JV_DT_F32 ? JV_GS_F32 : d == JV_DT_F16 ? JV_GS_F16 : d == JV_DT_BF16 ? JV_GS_BF16 : -1;
}

/* element off of a buffer of storage code dt, as a float */
static __device__ __forceinline__ float jv_gpu_load_f(int dt, const void *b, long long off) {
    if (dt == JV_GS_F32) return static_cast<const float *>(b)[off];
    const unsigned short u = static_cast<const unsigned short *>(b)[off];
    return dt == JV_GS_F16 ? jv_f16_bits_to_float(u) : jv_bf16_bits_to_float(u);
}

/* element off of a buffer of storage code dt = v rounded to it */
static __device__ __forceinline__ void jv_gpu_store_f(int dt, void *b, long long off, float v) {
    if (dt == JV_GS_F32)
        static_cast<float *>(b)[off] = v;
    else
        static_cast<unsigned short *>(b)[off] = dt == JV_GS_F16 ? jv_float_to_f16_bits(v) : jv_float_to_bf16_bits(v);
}

/* v as storage code dt holds it (rounded to it and back) */
static __device__ __forceinline__ float jv_gpu_round_f(int dt, float v) {
    if (dt == JV_GS_F16) return jv_f16_bits_to_float(jv_float_to_f16_bits(v));
    if (dt == JV_GS_BF16) return jv_bf16_bits_to_float(jv_float_to_bf16_bits(v));
    return v;
}

/* The 16-byte vectors of the family kernels: jv_gpu_vec<DT>::n elements of storage code DT per vector (4 fp32,
 * 8 fp16 / bf16), unpacked to floats and packed back rounded to nearest even (as jv_gpu_store_f rounds). */
template <int DT> struct jv_gpu_vec { static constexpr int n = DT == JV_GS_F32 ? 4 : 8; };

/* the jv_gpu_vec<DT>::n elements of u as floats into f */
template <int DT> static __device__ __forceinline__ void jv_gpu_unpack16(const uint4 u, float *f) {
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int k = 0; k < 4; k++) {
        if (DT == JV_GS_F32) {
            f[k] = __uint_as_float(w[k]);
        } else {
            const unsigned short lo = (unsigned short)(w[k] & 0xffffu), hi = (unsigned short)(w[k] >> 16);
            f[2 * k] = DT == JV_GS_F16 ? jv_f16_bits_to_float(lo) : jv_bf16_bits_to_float(lo);
            f[2 * k + 1] = DT == JV_GS_F16 ? jv_f16_bits_to_float(hi) : jv_bf16_bits_to_float(hi);
        }
    }
}

/* the jv_gpu_vec<DT>::n floats of f as one vector of storage code DT */
template <int DT> static __device__ __forceinline__ uint4 jv_gpu_pack16(const float *f) {
    unsigned w[4];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        if (DT == JV_GS_F32) {
            w[k] = __float_as_uint(f[k]);
        } else {
            const unsigned lo = DT == JV_GS_F16 ? jv_float_to_f16_bits(f[2 * k]) : jv_float_to_bf16_bits(f[2 * k]);
            const unsigned hi =
                DT == JV_GS_F16 ? jv_float_to_f16_bits(f[2 * k + 1]) : jv_float_to_bf16_bits(f[2 * k + 1]);
            w[k] = lo | (hi << 16);
        }
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* 1 when p is 16-byte aligned (a vector kernel's buffers) */
static __host__ __device__ __forceinline__ int jv_gpu_aligned16(const void *p) {
    return ((uintptr_t)p & 15u) == 0;
}

/* The sum of v over the block, valid in thread 0 (blockDim.x a multiple of
 * JV_WARP, at most 1024; every thread of the block must call it). */
template <typename A> static __device__ __forceinline__ A jv_block_sum(A v) {
    __shared__ A part[1024 / JV_WARP];
#pragma unroll
    for (int d = JV_WARP / 2; d > 0; d /= 2)
        v += JV_SHFL_DOWN(v, d);
    const unsigned lane = threadIdx.x % JV_WARP, warp = threadIdx.x / JV_WARP;
    if (lane == 0) part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / JV_WARP ? part[lane] : (A)0;
#pragma unroll
        for (int d = JV_WARP / 2; d > 0; d /= 2)
            v += JV_SHFL_DOWN(v, d);
    }
    return v;
}

/* 1 in the host compilation pass, 0 in a device pass: host-only data (a table of host function pointers,
 * such as a family's jv_gpu_kernel entry) is defined under #if JV_GPU_HOST_PASS, since hipcc would emit a
 * constant global into the device module too. */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define JV_GPU_HOST_PASS 0
#else
#define JV_GPU_HOST_PASS 1
#endif

/* The launch's error (0 when none), as the C entry points return it. */
#define JV_GPU_LAUNCH_STATUS() ((int)jv_gpuGetLastError())

#endif

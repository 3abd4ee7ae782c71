/* jv_gpu.h: the one compatibility header of the device sources
 * (kernels/<family>/<family>.cu): the same source compiles as CUDA (nvcc) or
 * HIP (hipcc, __HIP_PLATFORM_AMD__ or JV_HIP). Device code uses only the
 * jv_gpu* names below, never cuda* / hip* directly. Host C code never
 * includes this header: it calls the C entry points of
 * <family>_gpu.h, which take the stream as a void *. */
#ifndef JV_GPU_H
#define JV_GPU_H

#if defined(JV_HIP) || defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#include <hip/hip_bfloat16.h> /* ROCm 5.2 has hip_bfloat16 here (hip_bf16.h came later) */
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
typedef hipStream_t jv_gpuStream_t;
typedef hipError_t jv_gpuError_t;
#define jv_gpuSuccess         hipSuccess
#define jv_gpuGetLastError    hipGetLastError
#define jv_gpuPeekAtLastError hipPeekAtLastError
typedef __half jv_half;
typedef hip_bfloat16 jv_bf16;
static __device__ __forceinline__ float jv_bf16_to_float(jv_bf16 v) {
    return (float)v;
}
static __device__ __forceinline__ jv_bf16 jv_float_to_bf16(float v) {
    return jv_bf16(v);
}
#define JV_WARP 64
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
typedef cudaStream_t jv_gpuStream_t;
typedef cudaError_t jv_gpuError_t;
#define jv_gpuSuccess         cudaSuccess
#define jv_gpuGetLastError    cudaGetLastError
#define jv_gpuPeekAtLastError cudaPeekAtLastError
typedef __half jv_half;
typedef __nv_bfloat16 jv_bf16;
static __device__ __forceinline__ float jv_bf16_to_float(jv_bf16 v) {
    return __bfloat162float(v);
}
static __device__ __forceinline__ jv_bf16 jv_float_to_bf16(float v) {
    return __float2bfloat16(v);
}
#define JV_WARP               32
#endif

static __device__ __forceinline__ float jv_half_to_float(jv_half v) {
    return __half2float(v);
}
static __device__ __forceinline__ jv_half jv_float_to_half(float v) {
    return __float2half(v);
}

/* The launch's error (0 when none), as the C entry points return it. */
#define JV_GPU_LAUNCH_STATUS() ((int)jv_gpuGetLastError())

#endif

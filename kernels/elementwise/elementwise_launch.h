/* elementwise_launch.h: launch geometry shared by the elementwise device
 * sources (elementwise.cu, elementwise_baseline.cu); included by .cu files
 * only, after jv_gpu.h. */
#ifndef JV_ELEMENTWISE_LAUNCH_H
#define JV_ELEMENTWISE_LAUNCH_H

#include <stdint.h>

#if defined(JV_HIP) || defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#define jv_gpuMemsetAsync       hipMemsetAsync
#define jv_gpuErrorInvalidValue hipErrorInvalidValue
#else
#define jv_gpuMemsetAsync       cudaMemsetAsync
#define jv_gpuErrorInvalidValue cudaErrorInvalidValue
#endif

#define EW_THREADS       256 /* threads per block of every kernel here */
#define EW_DENSE_UNROLL  2   /* dense elementwise kernel: 16-byte vectors per thread and tile */
#define EW_LIGHT_UNROLL  4   /* dense kernel of light one-input ops: 16-byte vectors per thread and tile */
#define EW_BLOCKS_PER_SM 8   /* 8 x 256 = 2048 resident threads per SM (H100, A100): capped grids */

static inline int aligned16(const void *p) {
    return ((uintptr_t)p & 15u) == 0;
}

/* blocks for `work` items of one thread each: enough to fill the device
 * (EW_BLOCKS_PER_SM per SM, grid-stride beyond), never more than needed */
static inline unsigned grid_for(int64_t work, int sms) {
    int64_t cap = (int64_t)(sms > 0 ? sms : 128) * EW_BLOCKS_PER_SM;
    int64_t b = (work + EW_THREADS - 1) / EW_THREADS;
    if (b > cap) b = cap;
    if (b < 1) b = 1;
    return (unsigned)b;
}

/* blocks for `work` items, `per_thread` of them per thread: the whole work
 * in one wave of tiles (the kernels grid-stride beyond 2^31 - 1 blocks) */
static inline unsigned grid_tiles(int64_t work, int per_thread) {
    const int64_t per_block = (int64_t)EW_THREADS * (per_thread > 0 ? per_thread : 1);
    int64_t b = (work + per_block - 1) / per_block;
    if (b > 0x7fffffff) b = 0x7fffffff;
    if (b < 1) b = 1;
    return (unsigned)b;
}

#endif

/* jv_cuda_pure: the CUDA backend's decisions that need no device, kept apart
 * so that tests run them anywhere: which runtime errors leave a context
 * unusable, how large the fixed workspaces are, the cache of cuDNN
 * algorithm choices keyed by a convolution's full configuration (over
 * jv_gpu_search's cache, which also keeps the cuBLASLt search's choices). */
#ifndef JV_CUDA_PURE_H
#define JV_CUDA_PURE_H

#include <stddef.h>
#include <stdint.h>

#include "jv_gpu_search.h"
#include "jv_status.h"

/* cuBLASLt's workspace limit for every GEMM with gemm-algo heuristic (the
 * default), and so the limit its heuristic query is given: 32 MiB, PyTorch's
 * default for cuBLAS / cuBLASLt on sm90 and later (CublasHandlePool.cpp,
 * CUBLAS_WORKSPACE_CONFIG ":4096:8"; cuBLAS' own recommendation for sm_90),
 * so that the heuristic sees what PyTorch's sees; fixed so that the algorithm
 * a GEMM gets depends neither on the device's free memory nor on the order of
 * the ops. gemm-algo best offers the whole workspace instead. */
#define JV_CUDA_LT_WORKSPACE ((size_t)32 << 20)

/* The cuDNN workspace wanted: 256 MiB, the most any cuDNN algorithm we choose
 * may use. */
#define JV_CUDA_DNN_WORKSPACE ((size_t)256 << 20)

/* 1 when runtime error code (a cudaError_t value) leaves the CUDA context
 * unusable: every later call in the process fails with it (illegal address,
 * launch failure or timeout, illegal / misaligned / invalid-address-space
 * access, invalid PC, hardware stack error, device assert, uncorrectable ECC
 * or NVLink error, contained error, tensor-memory leak, MPS client terminated,
 * external device error). *name (may be NULL) receives the error's enum name,
 * or NULL for a code that is not sticky. */
int jv_cuda_error_sticky(int code, const char **name);

/* The one workspace allocated at open, for a device with free_bytes free:
 * JV_CUDA_DNN_WORKSPACE when that is at most 1/16 of free memory, else
 * free/16 rounded down to a MiB, never below JV_CUDA_LT_WORKSPACE (the cuBLASLt
 * limit does not shrink). */
size_t jv_cuda_workspace_bytes(size_t free_bytes);

/* PyTorch's getCudnnBatchNormMode (aten/src/ATen/native/cudnn/BatchNorm.cpp)
 * as a cudnnBatchNormMode_t value: 0 CUDNN_BATCHNORM_PER_ACTIVATION for a
 * 2-d input, 2 CUDNN_BATCHNORM_SPATIAL_PERSISTENT in training when the input's
 * suggested memory format is channels_last (4-d) or channels_last_3d (5-d),
 * 1 CUDNN_BATCHNORM_SPATIAL otherwise. */
int jv_cuda_bn_mode(int training, int channels_last, int ndim);

/* ---- cuDNN algorithm choices, per process and context (jv_gpu_search.h: the keys and the cache) ---- */

/* What was chosen for a key: the algorithm (as its enum value), the math type
 * to run it with and its workspace bytes. */
typedef struct {
    int algo;
    int math;
    size_t ws;
} jv_cuda_conv_choice;

typedef jv_gpu_cache jv_cuda_conv_cache; /* of jv_cuda_conv_choice */

/* jv_gpu_cache_find / _put for convolution choices */
static inline const jv_cuda_conv_choice *jv_cuda_conv_cache_find(const jv_cuda_conv_cache *c, const jv_gpu_key *k) {
    return (const jv_cuda_conv_choice *)jv_gpu_cache_find(c, k);
}
static inline jv_status jv_cuda_conv_cache_put(jv_cuda_conv_cache *c, const jv_gpu_key *k, const jv_cuda_conv_choice *v,
                                               jv_err *err) {
    return jv_gpu_cache_put(c, k, v, sizeof *v, err);
}

#endif

/* jv_cuda_pure: the CUDA backend's decisions that need no device, kept apart
 * so that tests run them anywhere: which runtime errors leave a context
 * unusable, how large the fixed workspaces are, the cache of cuDNN
 * algorithm choices keyed by a convolution's full configuration, and the
 * ranking and cache of the cuBLASLt algorithm search (gemm-algo best). */
#ifndef JV_CUDA_PURE_H
#define JV_CUDA_PURE_H

#include <stddef.h>
#include <stdint.h>

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

/* ---- cuDNN algorithm choices, per process and context ---- */

#define JV_CUDA_CONV_KEY_WORDS 96

/* One convolution step's configuration: direction, search mode, math type,
 * conv parameters and every descriptor's dims, strides, dtype and format. */
typedef struct {
    int64_t w[JV_CUDA_CONV_KEY_WORDS];
    int n; /* words used; 0 .. JV_CUDA_CONV_KEY_WORDS (more set overflow) */
    int overflow;
} jv_cuda_conv_key;

/* What was chosen for a key: the algorithm (as its enum value), the math type
 * to run it with and its workspace bytes. */
typedef struct {
    int algo;
    int math;
    size_t ws;
} jv_cuda_conv_choice;

/* Choices per key (a convolution step's or a GEMM's configuration), per
 * context: one cache type for every kind of choice, a value of val_size bytes
 * per key (the first put sets it). */
typedef struct {
    jv_cuda_conv_key *keys;
    unsigned char *vals;
    size_t val_size;
    int n, cap;
} jv_cuda_cache;

/* Appends v to k (sets k->overflow instead beyond JV_CUDA_CONV_KEY_WORDS). */
void jv_cuda_conv_key_add(jv_cuda_conv_key *k, int64_t v);

/* The value stored for k, or NULL (always NULL for an overflowed key). */
const void *jv_cuda_cache_find(const jv_cuda_cache *c, const jv_cuda_conv_key *k);

/* Stores the size bytes at v for k (replacing an earlier value; an overflowed
 * key is not stored). JV_ERR_NOMEM when the cache cannot grow, JV_ERR_INTERNAL
 * when size differs from the values stored before. */
jv_status jv_cuda_cache_put(jv_cuda_cache *c, const jv_cuda_conv_key *k, const void *v, size_t size, jv_err *err);

/* Releases the cache's memory and empties it (safe on an empty cache). */
void jv_cuda_cache_clear(jv_cuda_cache *c);

typedef jv_cuda_cache jv_cuda_conv_cache; /* of jv_cuda_conv_choice */

/* jv_cuda_cache_find / _put for convolution choices */
static inline const jv_cuda_conv_choice *jv_cuda_conv_cache_find(const jv_cuda_conv_cache *c,
                                                                 const jv_cuda_conv_key *k) {
    return (const jv_cuda_conv_choice *)jv_cuda_cache_find(c, k);
}
static inline jv_status jv_cuda_conv_cache_put(jv_cuda_conv_cache *c, const jv_cuda_conv_key *k,
                                               const jv_cuda_conv_choice *v, jv_err *err) {
    return jv_cuda_cache_put(c, k, v, sizeof *v, err);
}

/* ---- cuBLASLt algorithm search (gemm-algo best) ---- */

#define JV_CUDA_GEMM_CANDIDATES 16 /* heuristic results asked for and timed */
#define JV_CUDA_GEMM_WARMUP     2  /* untimed launches of each candidate */
#define JV_CUDA_GEMM_REPS       5  /* timed launches of each candidate; the median is kept */

/* The median of v[0, n) (sorts v in place); 0 when n <= 0. */
double jv_cuda_median(double *v, int n);

/* Index of the fastest candidate: the smallest t[i] > 0 (a candidate that did
 * not run has t[i] <= 0, or NaN); on a tie the lower index (the heuristic's
 * preference). -1 when none ran. */
int jv_cuda_fastest(const double *t, int n);

/* What the search chose for one GEMM configuration. */
typedef struct {
    uint64_t algo[8];    /* the cublasLtMatmulAlgo_t, as its opaque words */
    size_t ws;           /* its workspace bytes */
    int offered;         /* candidates the heuristic returned */
    int timed;           /* of them, those that ran */
    int rank;            /* the chosen one's place in the heuristic's order (0: its first pick) */
    double ms, first_ms; /* median ms of the chosen one and of the heuristic's first pick (0: it did not run) */
} jv_cuda_gemm_choice;

typedef jv_cuda_cache jv_cuda_gemm_cache; /* of jv_cuda_gemm_choice, keyed by the cuBLASLt descriptors and layouts */

/* jv_cuda_cache_find / _put for GEMM search results */
static inline const jv_cuda_gemm_choice *jv_cuda_gemm_cache_find(const jv_cuda_gemm_cache *c,
                                                                 const jv_cuda_conv_key *k) {
    return (const jv_cuda_gemm_choice *)jv_cuda_cache_find(c, k);
}
static inline jv_status jv_cuda_gemm_cache_put(jv_cuda_gemm_cache *c, const jv_cuda_conv_key *k,
                                               const jv_cuda_gemm_choice *v, jv_err *err) {
    return jv_cuda_cache_put(c, k, v, sizeof *v, err);
}

#endif

/* jv_cuda_blas: the GEMM family on cuBLASLt. A plan holds the matmul and
 * layout descriptors and the heuristic's algorithm for one parsed call over
 * its replay operands (jv_gemm_operands): row-major operands become
 * transposed column-major layouts (out^T = B^T A^T), batches use strided
 * batch offsets, an addmm / baddbmm bias is the epilogue bias when it is a
 * [N] vector with beta 1, else it is copied into out and scaled by beta.
 * The algorithm is cuBLASLt's heuristic first pick within the 32 MiB that
 * PyTorch gives it (JV_CUDA_LT_WORKSPACE), or, searched, the fastest of the
 * heuristic's first JV_GPU_GEMM_CANDIDATES within the whole workspace. */
#ifndef JV_CUDA_BLAS_H
#define JV_CUDA_BLAS_H

#include <stddef.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "jv_cuda_pure.h"
#include "jv_family.h"
#include "jv_status.h"

typedef struct jv_cuda_gemm jv_cuda_gemm;

/* How jv_cuda_gemm_plan picks the algorithm. */
typedef struct {
    int search;               /* 0: the heuristic's first pick within min(ws_bytes, JV_CUDA_LT_WORKSPACE);
                               * 1: its first JV_GPU_GEMM_CANDIDATES within ws_bytes, each run JV_GPU_GEMM_WARMUP
                               * times then timed JV_GPU_GEMM_REPS times (device events, median) on scratch
                               * operands of the op's shapes, strides and dtypes; the fastest is kept */
    size_t ws_bytes;          /* bytes the workspace holds */
    void *ws;                 /* search: the device workspace the candidates run with */
    cudaStream_t stream;      /* search: the stream they run on */
    jv_gpu_gemm_cache *cache; /* search: choices per configuration, reused by later plans (NULL: none kept) */
} jv_cuda_gemm_pick;

/* Builds the plan of a parsed GEMM call (d of the gemm family) over ops,
 * choosing its algorithm as pick says (a search allocates and frees scratch
 * operands and synchronizes pick->stream; a configuration found in
 * pick->cache is not searched again). JV_ERR_NOTFOUND, with the reason in
 * err, when cuBLASLt cannot run it (strides no BLAS layout expresses, a
 * broadcast batch matmul, dtypes it has no kernel for, no algorithm, no
 * candidate that runs); JV_ERR_NOMEM when the scratch operands do not fit;
 * an error status naming the failing call otherwise. On success free *out
 * with jv_cuda_gemm_free. */
jv_status jv_cuda_gemm_plan(cublasLtHandle_t lt, const jv_desc *d, const jv_operands *ops,
                            const jv_cuda_gemm_pick *pick, jv_cuda_gemm **out, jv_err *err);

/* Writes the chosen algorithm into buf (cap bytes, truncated, always
 * terminated): "cuBLASLt algo A tile id T stages id S splitK K swizzle W ws B
 * B" (T, S: cublasLtMatmulTile_t / cublasLtMatmulStages_t values), and for a
 * searched plan ", searched N, best of R: heuristic's #I X us (#1 Y us)"
 * (N offered, R that ran, I the chosen one's place in the heuristic's order). */
void jv_cuda_gemm_describe(const jv_cuda_gemm *p, char *buf, size_t cap);

/* Queues the planned call on stream over device buffers bufs (as
 * jv_family.reference reads them); ws holds ws_bytes (at least what the
 * chosen algorithm needs, else an error). */
jv_status jv_cuda_gemm_run(cublasLtHandle_t lt, const jv_cuda_gemm *p, void *const *bufs, void *ws, size_t ws_bytes,
                           cudaStream_t stream, jv_err *err);

/* Releases a plan (safe on NULL). */
void jv_cuda_gemm_free(jv_cuda_gemm *p);

#endif

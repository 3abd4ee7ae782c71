/* jv_cuda_blas: the GEMM family on cuBLASLt. A plan holds the matmul and
 * layout descriptors and the heuristic's algorithm for one parsed call over
 * its replay operands (jv_gemm_operands): row-major operands become
 * transposed column-major layouts (out^T = B^T A^T), batches use strided
 * batch offsets, an addmm / baddbmm bias is the epilogue bias when it is a
 * [N] vector with beta 1, else it is copied into out and scaled by beta. */
#ifndef JV_CUDA_BLAS_H
#define JV_CUDA_BLAS_H

#include <stddef.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "jv_family.h"
#include "jv_status.h"

typedef struct jv_cuda_gemm jv_cuda_gemm;

/* Builds the plan of a parsed GEMM call (d of the gemm family) over ops, for
 * a workspace of ws_bytes. JV_ERR_NOTFOUND, with the reason in err, when
 * cuBLASLt cannot run it (strides no BLAS layout expresses, a broadcast batch
 * matmul, dtypes it has no kernel for, no algorithm); an error status naming
 * the failing call otherwise. On success free *out with jv_cuda_gemm_free. */
jv_status jv_cuda_gemm_plan(cublasLtHandle_t lt, const jv_desc *d, const jv_operands *ops, size_t ws_bytes,
                            jv_cuda_gemm **out, jv_err *err);

/* Queues the planned call on stream over device buffers bufs (as
 * jv_family.reference reads them); ws holds ws_bytes (as planned). */
jv_status jv_cuda_gemm_run(cublasLtHandle_t lt, const jv_cuda_gemm *p, void *const *bufs, void *ws, size_t ws_bytes,
                           cudaStream_t stream, jv_err *err);

/* Releases a plan (safe on NULL). */
void jv_cuda_gemm_free(jv_cuda_gemm *p);

#endif

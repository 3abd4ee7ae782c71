/* jv_gpu_lib: a parsed GEMM call (kernels/gemm) as a column-major BLAS library sees it, one copy for the
 * cuBLASLt path of cuda/ and the hipBLASLt / rocBLAS paths of hip/ (each keeps only its library's calls): the
 * library's A is our B (B^T: N x K), its B our A (A^T: K x M), its C / D our out^T (N x M); transposes, leading
 * dims and batch strides from the operands' strides; how the bias reaches out (the library's bias epilogue, or
 * copied into out with beta 1) and the copies that write it; and a tensor's dims and strides as the DNN libraries'
 * descriptors take them. Needs no device. */
#ifndef JV_GPU_LIB_H
#define JV_GPU_LIB_H

#include <stddef.h>
#include <stdint.h>

#include "jv_family.h"
#include "jv_status.h"

/* How the bias reaches out. */
typedef enum { JV_GPU_BIAS_NONE = 0, JV_GPU_BIAS_EPILOGUE, JV_GPU_BIAS_COPY } jv_gpu_bias;

/* One operand as the library stores it: a rows x cols column-major matrix, ld elements between columns. */
typedef struct {
    uint64_t rows, cols;
    int64_t ld;
    int trans;       /* 1: the library transposes it */
    int64_t bstride; /* batch stride (elements; 0: shared by every batch entry) */
} jv_gpu_blas_mat;

/* A GEMM call in the library's terms. */
typedef struct {
    int ia, ib, io, ic;     /* operand indices of our A, B, out and bias / C (ic -1: none) */
    jv_dtype in_dt, out_dt; /* A's and B's dtype (the same), out's */
    int f64;                /* fp64: double scale and compute */
    jv_gpu_blas_mat a, b, c;
    int64_t batch, m, n, k;
    double alpha, beta;     /* beta as passed to the library (0 with the epilogue bias) */
    jv_gpu_bias bias;       /* set by jv_gpu_gemm_bias */
    int64_t bias_st[3];     /* bias strides over out's [batch, M, N] (0: broadcast) */
    int64_t out_rs, out_bs; /* out's row and batch strides (elements; its N stride is 1) */
    size_t es;              /* bytes of one out element */
    const char *name;       /* op name for messages */
} jv_gpu_gemm_map;

/* The library's view of GEMM call d over ops (bias NONE until jv_gpu_gemm_bias). JV_ERR_NOTFOUND, the message
 * "<backend> backend: <op>: ..." naming lib (e.g. "cuBLASLt"), when the library cannot run it: dtypes other than
 * fp32/fp16/bf16/fp64 (fp32 and fp64 only to outputs of their own type), 1-D operands, broadcast batch dims,
 * strides that do not collapse into a (batched) row- or column-major matrix, a non-row-major or batch-overlapping
 * output, a dim past 2^31, an empty GEMM. */
jv_status jv_gpu_gemm_map_of(const char *backend, const char *lib, const jv_desc *d, const jv_operands *ops,
                             jv_gpu_gemm_map *p, jv_err *err);

/* Decides how p's bias reaches out: none (no bias or beta 0); the library's epilogue when epilogue_ok, the bias is
 * one row of N broadcast over M, beta is 1, not fp64 and not batched (beta becomes 0); else copied into out before
 * the call. JV_ERR_NOTFOUND (named as above) for a bias of another dtype than out, over 3 dims, not broadcasting
 * to [batch, M, N], strided along N, or with overlapping rows. */
jv_status jv_gpu_gemm_bias(const char *backend, jv_gpu_gemm_map *p, const jv_operands *ops, int epilogue_ok,
                           jv_err *err);

/* A device-to-device 2-D copy on the backend's stream (height rows of width bytes, pitches in bytes): JV_OK or the
 * failure, named. */
typedef jv_status (*jv_gpu_copy2d_fn)(void *ctx, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                      size_t height, jv_err *err);

/* Writes p's bias (device memory at bias), broadcast to [batch, M, N], into out (p->out_rs and p->out_bs elements
 * between rows and batches) with copy2d, doubling the copied rows (a bias of one value per row, [M, 1]: its column,
 * then doubling the copied columns): O(log M) (O(log N)) copies per batch entry the bias tells apart. Every copy's
 * pitches hold its rows, as hipMemcpy2DAsync requires. */
jv_status jv_gpu_gemm_bias_copy(const jv_gpu_gemm_map *p, const char *bias, char *out, jv_gpu_copy2d_fn copy2d,
                                void *ctx, jv_err *err);

/* Dims and strides of t as int for a DNN library's tensor descriptor (cuDNN, MIOpen), padded to at least 4 dims
 * (size 1, stride 1) and with the strides of size-1 dims made canonical for the memory format (channels_last:
 * jv_tensor_cudnn_strides, as PyTorch's TensorDescriptor does). Returns the dim count, 0 when a value exceeds int
 * or a dim of size > 1 has a stride <= 0 (a broadcast, which the libraries cannot describe). */
int jv_gpu_dnn_dims(const jv_tensor *t, int channels_last, int *dims, int *strides);

/* 1 when t is dense in row-major order (cl 0) or channels-last order (cl 1: N, spatial dims, C), size-1 dims
 * ignored: the layouts the DNN libraries take without strides. */
int jv_gpu_dense_in(const jv_tensor *t, int cl);

#endif

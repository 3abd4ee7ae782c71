/* gemm: the GEMM family (aten::mm, addmm, bmm, baddbmm, _scaled_mm, and
 * aten::linear / aten::matmul when no child op carries the kernels, and
 * vllm::rocm_unquantized_gemm): its
 * descriptor, parsed from a call, and its FLOPs/bytes model.
 * Convention: C[batch, M, N] = alpha * op(A)[batch, M, K] @ op(B)[batch, K, N]
 * (+ beta * bias); trans_a / trans_b say that an operand is stored
 * column-major (its traced strides make it a transposed view). */
#ifndef JV_GEMM_H
#define JV_GEMM_H

#include "jv_family.h"

typedef enum { JV_GEMM_MM, JV_GEMM_ADDMM, JV_GEMM_BMM, JV_GEMM_BADDBMM, JV_GEMM_SCALED_MM, JV_GEMM_LINEAR,
               JV_GEMM_MATMUL } jv_gemm_op;

typedef struct {
    jv_gemm_op op;
    int64_t batch, m, n, k;
    jv_tensor a, b;        /* operands as traced (linear: b is the weight [N, K]) */
    int has_bias;
    jv_tensor bias;        /* addmm/baddbmm "self", linear/_scaled_mm bias */
    jv_dtype out_dtype;
    int trans_a, trans_b;
    double alpha, beta;
} jv_gemm_desc;

extern const jv_family jv_gemm_family;

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_gemm_desc *jv_gemm_of(const jv_desc *d) { return (const jv_gemm_desc *)(const void *)d->data; }

#endif

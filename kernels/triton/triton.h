/* triton: the family of torch.compile's generated Triton kernels as the
 * profiler records their launches (cpu_op "triton_poi_fused_mul_silu_2",
 * "triton_red_fused_add_mean_mul_pow_rsqrt_0", "triton_per_...",
 * "triton_tem_fused_addmm_gelu_0"): its
 * descriptor, parsed from a call, and its FLOPs/bytes model. Only the
 * kernel's name and its recorded tensor arguments are known (no Inductor
 * artifacts), so the model is TraceLens' for such rows, inferred from its
 * output on the torch.compile fixture (4 of 4 rows equal):
 *   n     = elements of the first tensor argument;
 *   FLOPs = n * the sum over the words of the fused-op list in the name of
 *           FLOPs per element (add, sub, mul, div, relu, mean, sum, abs, neg,
 *           eq/ne/lt/gt 1; pow, sqrt, rsqrt, var, reciprocal 2; exp, log,
 *           sigmoid, tanh, silu 4; gelu 8; any other word, as views and
 *           copies, 0);
 *   bytes = the bytes of every tensor argument, plus, for a pointwise
 *           kernel (triton_poi_), one output of n elements of the first
 *           argument's dtype (a reduction's output is among its arguments).
 * Templates (triton_tem_, max-autotune's kernels; no TraceLens model), kind
 * from the name's words:
 *   GEMM (mm, addmm, bmm, baddbmm): the operands found among the tensor
 *     arguments: A [B?,M,K] and B [B?,K,N] (first such pair in argument order)
 *     with an output [B?,M,N] among the others; FLOPs = 2*B*M*N*K (the fused
 *     epilogue's element ops left out), bytes = every tensor argument (Inductor
 *     passes the output buffer as one);
 *   convolution: x [N,C,...], w [Co,C/g,...] and out [N,Co,...] of one rank;
 *     FLOPs = 2 * |out| * |w| / Co, bytes = every tensor argument;
 *   fused attention (flex_attention) and any other template: not modelled,
 *     their work is set by generated code (a block mask, a score modification)
 *     the trace does not hold (parse fails; .unsized says JV_UNSIZED_GENERATED).
 * Not replayed (the kernel's source is not in the trace). */
#ifndef JV_TRITON_H
#define JV_TRITON_H

#include "jv_family.h"

typedef enum {
    JV_TRITON_POINTWISE,
    JV_TRITON_REDUCTION,
    JV_TRITON_PERSISTENT,
    JV_TRITON_TEMPLATE_GEMM,
    JV_TRITON_TEMPLATE_CONV
} jv_triton_kind;

#define JV_TRITON_MAX_OPS 16

typedef struct {
    jv_triton_kind kind;
    int64_t n;        /* elements of the first tensor argument */
    jv_dtype dtype;   /* its dtype */
    int ntensors;     /* tensor arguments */
    double in_bytes;  /* their bytes */
    int flops_per_el; /* summed over the fused ops the name lists */
    int nops;         /* the name's fused ops that carry FLOPs (at most JV_TRITON_MAX_OPS kept) */
    char ops[JV_TRITON_MAX_OPS][12];
    int64_t gb, gm, gn, gk; /* template GEMM: B, M, N, K */
    double conv_macs;       /* template convolution: |out| * |w| / Co */
} jv_triton_desc;

extern const jv_family jv_triton_family;

/* FLOPs per element TraceLens counts for a fused op word ("silu" 4); 0 for any word it does not list. */
int jv_triton_op_flops(const char *word);

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_triton_desc *jv_triton_of(const jv_desc *d) {
    return (const jv_triton_desc *)(const void *)d->data;
}

#endif

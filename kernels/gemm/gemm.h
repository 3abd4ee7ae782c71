/* gemm: the GEMM family (aten::mm, addmm, bmm, baddbmm, _scaled_mm, and
 * aten::linear / aten::matmul when no child op carries the kernels, and
 * vllm::rocm_unquantized_gemm, and the scaled GEMMs: vLLM's _C::cutlass_scaled_mm(out, a [M,K], b [K,N], a_scales,
 * b_scales, bias?), AITER's aiter::gemm_a8w8(_CK, _bpreshuffle, _blockscale, ...)(a [M,K], b [N,K], a_scale,
 * b_scale, out [M,N] or bias [N] or none, ...) and vLLM's wrappers vllm::rocm_aiter_(triton_)gemm_a8w8(_blockscale);
 * fp8 or int8 operands at their element size, out at its dtype (else the recorded dtype code, else bf16), and the
 * two scale tensors at their traced shapes and dtypes (per-tensor [] or [1], per-token [M,1], per-channel [1,N] or
 * [N,1], block scales [M, K/128] and [N/128, K/128])): its descriptor, parsed from a call, and its FLOPs/bytes
 * model.
 * Convention: C[batch, M, N] = alpha * op(A)[batch, M, K] @ op(B)[batch, K, N]
 * (+ beta * bias); trans_a / trans_b say that an operand is stored
 * column-major (its traced strides make it a transposed view). */
#ifndef JV_GEMM_H
#define JV_GEMM_H

#include "jv_family.h"

typedef enum {
    JV_GEMM_MM,
    JV_GEMM_ADDMM,
    JV_GEMM_BMM,
    JV_GEMM_BADDBMM,
    JV_GEMM_SCALED_MM,
    JV_GEMM_LINEAR,
    JV_GEMM_MATMUL
} jv_gemm_op;

typedef struct {
    jv_gemm_op op;
    int64_t batch, m, n, k;
    jv_tensor a, b; /* operands as traced (linear: b is the weight [N, K]) */
    int has_bias;
    jv_tensor bias; /* addmm/baddbmm "self", linear/_scaled_mm bias */
    int has_scale_a, has_scale_b;
    jv_tensor scale_a, scale_b; /* scaled GEMMs: the scales as traced (their bytes are counted) */
    jv_dtype out_dtype;
    int trans_a, trans_b;
    double alpha, beta;
    const char *op_name; /* the traced op ("aten::_scaled_mm", "_C::cutlass_scaled_mm", ...): for messages */
} jv_gemm_desc;

extern const jv_family jv_gemm_family;
/* Its ATen schemas (gemm_schema.c, NULL-terminated: jv_family.schemas). */
extern const char *const jv_gemm_schemas[];

/* ---- replay (gemm_ref.c) ---- */

/* The replay operands of a parsed GEMM call, in this order:
 *   aten::mm       "self" [M,K], "mat2" [K,N], "out" [M,N]
 *   aten::addmm    "self" (the bias as traced, broadcastable to [M,N]), "mat1", "mat2", "out"
 *   aten::bmm      "self" [B,M,K], "mat2" [B,K,N], "out" [B,M,N]
 *   aten::baddbmm  "self" (broadcastable to [B,M,N]), "batch1", "batch2", "out"
 *   aten::linear   "input" [...,K], "weight" [N,K], "bias" (when given), "out" [...,N]
 *                  (also vllm::rocm_unquantized_gemm)
 *   aten::matmul   "self", "other", "out" with PyTorch's shape rules: 1-D @ 1-D gives a 0-d out,
 *                  [..,M,K] @ [K] gives [..,M], [K] @ [..,K,N] gives [..,N], and the batch dims of
 *                  two operands of 2 or more dims broadcast.
 * Inputs keep their traced shape, strides (transposed views) and dtype and are
 * filled JV_INIT_NORMAL; "out" is contiguous with desc->out_dtype. An addmm /
 * baddbmm whose self was traced 0-d (not kept by the descriptor) gets a 0-d
 * "self" of A's dtype. JV_ERR_FORMAT, with the reason in err, for
 * aten::_scaled_mm (fp8 storage and scales are not replayed), for a dtype
 * other than fp64, fp32, fp16 and bf16, and for shapes that do not multiply
 * or broadcast. */
jv_status jv_gemm_operands(const jv_desc *d, jv_operands *out, jv_err *err);

/* The CPU reference: out = beta * bias (broadcast) + alpha * (A @ B), each
 * dot product accumulated in double in order k = 0..K-1 and rounded once
 * into out's dtype; any strides (operands are found by name in ops, as
 * jv_gemm_operands lays them out); beta == 0 ignores the bias (NaN in it is
 * not propagated), as PyTorch does. bufs[i] is the storage base of ops->o[i].
 * s NULL (or naming another operand than "out"): every output element,
 * computed from row blocks of A and column blocks of B gathered into
 * contiguous doubles. s naming "out": exactly the logical elements s->idx,
 * read straight from A and B in k blocks (no full gather), others untouched;
 * a sampled element equals the full computation's bit for bit.
 * JV_ERR_FORMAT when ops do not fit the call (missing names, shapes, dtypes)
 * or a sample index is out of range; JV_ERR_NOMEM when scratch memory fails. */
jv_status jv_gemm_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                            jv_err *err);

/* The operands of a parsed GEMM call by role, found by name in ops as jv_gemm_operands lays them out: a and b
 * (multiplied), c (addmm/baddbmm "self", linear "bias"; -1 when the call has none), out, and the op's name
 * ("aten::addmm"). JV_ERR_FORMAT naming what is missing, and for fp8 _scaled_mm (not replayed). Every
 * implementation of the family (the CPU reference, the backends' library paths) reads the call this way. */
typedef struct {
    int a, b, c, out;
    const char *name;
} jv_gemm_roles;
jv_status jv_gemm_roles_of(const jv_desc *d, const jv_operands *ops, jv_gemm_roles *r, jv_err *err);

/* An aten::mm descriptor for out[M,N] = a[M,K] @ b[K,N] over two 2-D views (shape, strides, dtype; a
 * transposed view is a column-major operand), as gemm_parse would give for that traced call; out in a's
 * dtype. Other families use it to run a call as a GEMM (a pointwise convolution). JV_ERR_FORMAT when the
 * views are not 2-D, do not multiply, or differ in dtype. */
jv_status jv_gemm_desc_mm(jv_desc *d, const jv_tensor *a, const jv_tensor *b, jv_err *err);

/* The reproducer hook (gemm_repro.c, jv_family.repro): a hipblaslt-bench line (not for fp64: hipBLASLt has
 * none) and a rocblas-bench gemm_ex / gemm_strided_batched_ex line with PyTorch's column-major mapping (m = N,
 * n = M, the tools' A = PyTorch's B), leading dims and batch strides from the operands, alpha/beta, the
 * operand, output and compute types, an addmm / linear bias as hipBLASLt's bias epilogue where PyTorch uses
 * one (1-D bias over N, beta 1) else as C; and the torch call (torch.mm, addmm, bmm, baddbmm,
 * nn.functional.linear, matmul). No tool line (amd_none) for operands that are no single strided-batched
 * GEMM or of another dtype. */
void jv_gemm_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r);

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_gemm_desc *jv_gemm_of(const jv_desc *d) {
    return (const jv_gemm_desc *)(const void *)d->data;
}

#endif

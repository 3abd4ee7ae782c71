/* actmul: the gated activations of serving stacks, one kernel each: out = act(x[..., :d]) * x[..., d:]
 * over an input [..., 2d] (vLLM's _C::silu_and_mul, _C::gelu_and_mul, _C::gelu_tanh_and_mul, all (Tensor!
 * out, Tensor input); _C::mul_and_silu, out = x[..., :d] * silu(x[..., d:]); AITER's aiter::silu_and_mul,
 * aiter::gelu_and_mul and aiter::gelu_tanh_and_mul with the same arguments): its descriptor, parsed from a
 * call, its FLOPs/bytes model and its replay.
 *   n     = elements of out (half of the input's);
 *   FLOPs = n * (the activation's FLOPs per element + 1 multiply): silu 4, gelu and gelu_tanh 8, as
 *           TraceLens counts them in fused kernels;
 *   bytes = the input read (2n) + out written (n), at their dtypes.
 * Replayed: operands out (OUT) and input (IN) with the traced shapes, strides and dtypes; the CPU reference
 * (actmul_ref.c) in double; the CPU kernel (actmul_cpu.c, OpenMP) and the device kernel (actmul.cu) for
 * fp32, fp16 and bf16 (the device kernel: input and out of one dtype). silu(x) = x / (1 + e^-x);
 * gelu(x) = x/2 (1 + erf(x / sqrt 2)); gelu_tanh(x) = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
#ifndef JV_ACTMUL_H
#define JV_ACTMUL_H

#include "jv_family.h"

typedef enum { JV_ACTMUL_SILU, JV_ACTMUL_GELU, JV_ACTMUL_GELU_TANH } jv_actmul_act;

typedef struct {
    jv_actmul_act act;
    int act_second;   /* 1: out = x[..., :d] * act(x[..., d:]) (mul_and_silu); 0: act on the first half */
    int vllm;         /* 1: vLLM's _C op (its out argument is named "result" for silu_and_mul) */
    const char *name; /* the op's name (static) */
    jv_tensor in, out;
    int64_t n;     /* elements of out */
    int64_t width; /* d: the last dim of out */
} jv_actmul_desc;

extern const jv_family jv_actmul_family;

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_actmul_desc *jv_actmul_of(const jv_desc *d) {
    return (const jv_actmul_desc *)(const void *)d->data;
}

/* Operand indices of a replay (jv_actmul_operands order, the schemas' argument order). */
enum { JV_ACTMUL_OUT = 0, JV_ACTMUL_IN = 1 };

/* The replay operands: the out tensor (OUT, named as the op's schema names it: "result" or "out") and
 * "input" (IN, normal), with the traced strides (dense when the trace has none). */
jv_status jv_actmul_operands(const jv_desc *d, jv_operands *out, jv_err *err);

/* The CPU reference (jv_family.reference): every output element (or those of sample s of operand
 * JV_ACTMUL_OUT) in double from the input's stored values, rounded once to out's dtype; any strides;
 * fp64, fp32, fp16, bf16. */
jv_status jv_actmul_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                              jv_err *err);

/* The reproducer hook (jv_family.repro): no AMD vendor tool; the PyTorch expression
 * (torch.nn.functional.silu(input[..., :d]) * input[..., d:], ...). */
void jv_actmul_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r);

/* The ATen-style schemas of the family's ops (vLLM's torch_bindings.cpp and AITER's registrations). */
extern const char *const jv_actmul_schemas[];

#endif

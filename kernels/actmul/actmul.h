/* actmul: the gated activations of serving stacks, one kernel each: out = act(x[..., :d]) * x[..., d:]
 * over an input [..., 2d] (vLLM's _C::silu_and_mul, _C::gelu_and_mul, _C::gelu_tanh_and_mul and
 * _C::mul_and_silu, all (Tensor! out, Tensor input); AITER's aiter::silu_and_mul and aiter::gelu_and_mul
 * with the same arguments): its descriptor, parsed from a call, and its FLOPs/bytes model.
 *   n     = elements of out (half of the input's);
 *   FLOPs = n * (the activation's FLOPs per element + 1 multiply): silu 4, gelu and gelu_tanh 8, as
 *           TraceLens counts them in fused kernels;
 *   bytes = the input read (2n) + out written (n), at their dtypes.
 * Not replayed. */
#ifndef JV_ACTMUL_H
#define JV_ACTMUL_H

#include "jv_family.h"

typedef enum { JV_ACTMUL_SILU, JV_ACTMUL_GELU, JV_ACTMUL_GELU_TANH } jv_actmul_act;

typedef struct {
    jv_actmul_act act;
    jv_tensor in, out;
    int64_t n;     /* elements of out */
    int64_t width; /* d: the last dim of out */
} jv_actmul_desc;

extern const jv_family jv_actmul_family;

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_actmul_desc *jv_actmul_of(const jv_desc *d) {
    return (const jv_actmul_desc *)(const void *)d->data;
}

#endif

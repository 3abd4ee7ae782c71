/* actmul_schema.c: the schemas of the gated activations' ops, as their libraries register them: vLLM's
 * csrc/torch_bindings.cpp (namespace _C; "Tensor! out": written in place, no return) and AITER's custom ops
 * (namespace aiter, registered by direct_register_custom_op with out mutated). ir/ writes a call's replay IR
 * entry with the schema of its op (jv_family.schemas). */
#include <stddef.h>

#include "actmul.h"

const char *const jv_actmul_schemas[] = {
    "_C::silu_and_mul(Tensor! result, Tensor input) -> ()",
    "_C::mul_and_silu(Tensor! out, Tensor input) -> ()",
    "_C::gelu_and_mul(Tensor! out, Tensor input) -> ()",
    "_C::gelu_tanh_and_mul(Tensor! out, Tensor input) -> ()",
    "aiter::silu_and_mul(Tensor(a!) out, Tensor input) -> ()",
    "aiter::gelu_and_mul(Tensor(a!) out, Tensor input) -> ()",
    "aiter::gelu_tanh_and_mul(Tensor(a!) out, Tensor input) -> ()",
    NULL,
};

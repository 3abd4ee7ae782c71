/* norm_schema.c: the schemas of the replayed RMS norm ops (norm.h): aten::rms_norm's func line of
 * native_functions.yaml and vLLM's csrc/torch_bindings.cpp definitions (namespace _C). ir/ writes a call's
 * replay IR entry with the schema of its op (jv_family.schemas). */
#include <stddef.h>

#include "norm.h"

const char *const jv_norm_schemas[] = {
    "rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor",
    "_C::rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> ()",
    "_C::fused_add_rms_norm(Tensor! input, Tensor! residual, Tensor weight, float epsilon) -> ()",
    NULL,
};

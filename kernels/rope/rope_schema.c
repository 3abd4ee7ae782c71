/* rope_schema.c: the schema of vLLM's rotary embedding as its csrc/torch_bindings.cpp defines it (namespace
 * _C; query and key written in place). ir/ writes a call's replay IR entry with it (jv_family.schemas). */
#include <stddef.h>

#include "rope.h"

const char *const jv_rope_schemas[] = {
    "_C::rotary_embedding(Tensor positions, Tensor! query, Tensor!? key, int head_size, Tensor cos_sin_cache, "
    "bool is_neox) -> ()",
    NULL,
};

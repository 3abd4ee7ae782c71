/* rope: the rotary position embedding kernels of serving stacks, applied in place to the query and key
 * (vLLM's _C::rotary_embedding(positions, query!, key!?, head_size, cos_sin_cache, is_neox)): its
 * descriptor, parsed from a call, and its FLOPs/bytes model. With T tokens, H_q and H_k heads of head_size
 * (query [T, H_q * head_size] or [T, H_q, head_size], key likewise, absent for MLA-style calls) and
 * rot = cos_sin_cache's last dim (the rotated part of each head: rot / 2 cosines, rot / 2 sines):
 *   FLOPs = 3 * T * (H_q + H_k) * rot   (each rotated pair: 4 multiplies, 2 adds);
 *   bytes = 2 * (|query| + |key|) * bpe (read and written in place)
 *         + T * 8 (int64 positions) + T * rot * bpe(cache) (the token's cos/sin row).
 * Not replayed. */
#ifndef JV_ROPE_H
#define JV_ROPE_H

#include "jv_family.h"

typedef struct {
    jv_tensor pos, q, k, cache;
    int has_key;
    int64_t tokens, head_size, heads_q, heads_k, rot;
    int neox;
} jv_rope_desc;

extern const jv_family jv_rope_family;

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_rope_desc *jv_rope_of(const jv_desc *d) {
    return (const jv_rope_desc *)(const void *)d->data;
}

#endif

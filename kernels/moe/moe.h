/* moe: fused mixture-of-experts layers of serving stacks (vLLM's inplace_fused_experts / outplace_fused_experts,
 * vLLM's ROCm AITER path rocm_aiter_fused_moe, AITER's aiter::fused_moe_ and aiter::ck_moe): hidden
 * [T, H], w1 [E, N1, H / pack], w2 [E, H, I / pack],
 * topk_weights [T, k], topk_ids [T, k] as their first five arguments; its descriptor, parsed from a call, and its
 * FLOPs/bytes model (TraceLens' FusedMoE, sheet MoE_fused).
 *
 * pack (param weight_pack) = H / w1's last dim: 1, or 2 for 1-byte elements holding two weights (int4, mxfp4:
 * 0.5 byte per weight); the intermediate size I = w2's last dim * pack; gated (SwiGLU: w1 holds gate and up)
 * when N1 = 2 I, else N1 = I.
 * Each token runs k experts:
 *   FLOPs = 2 T H I k (gated ? 2 : 1) (up / gate) + 2 T H I k (down) + T H (2k - 1) (the weighted sum);
 *   bytes = T H bpe(hidden) (read) + T H bpe(hidden) (output) + T k (bpe(topk_weights) + bpe(topk_ids))
 *         + E_active (N1 H + H I) bpe(w) / pack     (the weights of the experts the tokens reach)
 *         + E_active / E · S_expert + S_other       (the tensor arguments after topk_ids, at their shapes:
 *                                                    scales, zero points, expert maps; S_expert: those of 2 or
 *                                                    more dims with E first, per-expert, read for the experts
 *                                                    reached; S_other: the rest, read whole),
 * E_active = E (1 - (1 - k / E)^T), the expected number of distinct experts under uniform routing (TraceLens';
 * the trace records no routing). Scales that are no argument of the call are not counted (the trace does not say
 * whether packed weights are int4 with group scales or mxfp4 with one byte per 32 weights). Not replayed. */
#ifndef JV_MOE_H
#define JV_MOE_H

#include "jv_family.h"

typedef struct {
    jv_tensor x, w1, w2, tw, ids;
    int has_ids;
    int64_t tokens, hidden, inter, experts, topk, pack;
    int gated;
    double extra_expert_bytes, extra_bytes; /* S_expert and S_other */
} jv_moe_desc;

extern const jv_family jv_moe_family;

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_moe_desc *jv_moe_of(const jv_desc *d) {
    return (const jv_moe_desc *)(const void *)d->data;
}

#endif

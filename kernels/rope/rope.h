/* rope: the rotary position embedding kernels of serving stacks, applied in place to the query and key
 * (vLLM's _C::rotary_embedding(positions, query!, key!?, head_size, cos_sin_cache, is_neox)): its
 * descriptor, parsed from a call, and its FLOPs/bytes model. With T tokens, H_q and H_k heads of head_size
 * (query [T, H_q * head_size] or [T, H_q, head_size], key likewise, absent for MLA-style calls) and
 * rot = cos_sin_cache's last dim (the rotated part of each head: rot / 2 cosines, rot / 2 sines):
 *   FLOPs = 3 * T * (H_q + H_k) * rot   (each rotated pair: 4 multiplies, 2 adds);
 *   bytes = 2 * (|query| + |key|) * bpe (read and written in place)
 *         + T * 8 (int64 positions) + T * rot * bpe(cache) (the token's cos/sin row).
 * Replayed with positions 0..T-1 (the trace records no positions; a call with more tokens than cache rows is
 * not replayed): operands positions (IN, 0..T-1), query and key (INOUT), cos_sin_cache (IN); per token and
 * head, for i < rot/2 with cos = cache[pos, i], sin = cache[pos, rot/2 + i], the pair (x, y) = (e[i],
 * e[rot/2 + i]) (neox) or (e[2i], e[2i + 1]) (gptj) becomes (x cos - y sin, y cos + x sin); the head's
 * elements past rot are left alone. CPU reference rope_ref.c, CPU kernel rope_cpu.c, device kernel rope.cu
 * (fp32, fp16, bf16; each head's elements dense). */
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

/* Operand indices of a replay (the op's argument order; key absent: cos_sin_cache is 2). */
typedef struct {
    int pos, q, k, cache; /* k: -1 without a key */
} jv_rope_slots;

/* The slots of call g. */
jv_rope_slots jv_rope_slots_of(const jv_rope_desc *g);

/* The replay operands (see above); JV_ERR_FORMAT when the call has more tokens than cos_sin_cache rows. */
jv_status jv_rope_operands(const jv_desc *d, jv_operands *out, jv_err *err);

/* The CPU reference (full): every query and key element in double from the stored values, rounded once. */
jv_status jv_rope_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                            jv_err *err);

/* The reproducer hook: positions set to 0..T-1, then PyTorch's arithmetic over the rotated halves (neox) or
 * the even and odd elements (gptj) of each head; no AMD vendor tool. */
void jv_rope_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r);

extern const char *const jv_rope_schemas[];

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_rope_desc *jv_rope_of(const jv_desc *d) {
    return (const jv_rope_desc *)(const void *)d->data;
}

#endif

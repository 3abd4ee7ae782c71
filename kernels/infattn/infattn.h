/* infattn: serving attention over a paged or packed (varlen) KV cache (vLLM's unified_attention(_with_output),
 * flash-attention's and AITER's varlen forward), sized by the serving step's annotation: its descriptor and its
 * FLOPs/bytes model (TraceLens' InferenceAttention).
 *
 * The work of such a call is set by each request's query length sq and key length sk (prefix + new tokens),
 * tensor values no trace records. vLLM and SGLang write them, summed, into the name of a user_annotation around
 * each step: "execute_<n>_context_<r>(sq<Σsq>sk<Σsk>sqsq<Σsq²>sqsk<Σsq·sk>)_generation_<r>(sq..sk..sqsq..sqsk..)"
 * (context: prefill requests; generation: decode requests). The analysis hands the nearest such annotation
 * above the call to parse (jv_opcall.annotation). From the call: query [N_Q, H_Q, d_qk], key [..., N_KV, H_KV,
 * d_qk], value [..., H_KV, d_v] (d_v = d_qk when value is not a tensor).
 *
 * Each request attends causally: query i of sq (the last sq positions of sk) sees sk - sq + i + 1 keys, so a
 * request has P = sq·sk - sq²/2 + sq/2 query-key pairs, and the annotation's sums give P exactly:
 *   P     = Σ(sq·sk) - Σsq²/2 + Σsq/2          over context and generation requests;
 *   FLOPs = 2 · H_Q · P · (d_qk + d_v)          (QKᵀ and PV; TraceLens: the same without the Σsq/2 diagonal);
 *   bytes = Σsq · H_Q · (d_qk + d_v) · bpe(q)   (queries read, output written)
 *         + Σsk · H_KV · (d_qk + d_v) · bpe(k)  (each request's keys and values read once).
 * The KV cache itself is not an argument of these ops: its elements are counted at the key argument's size.
 *
 * Paged attention (decode over a paged KV cache): vLLM's _C::paged_attention_v1 / _C::paged_attention_v2 and ROCm's
 * _rocm_C::paged_attention: query [N_Q, H_Q, d] (one row per sequence, several with ROCm's query_start_loc), key
 * cache [blocks, H_KV, d/x, block_size, x], value cache [blocks, H_KV, d, block_size], seq_lens [S], the ints
 * block_size and max_seq_len (Concrete Inputs). The same model, d_qk = d_v = d, output at out's dtype, keys and
 * values at the cache's (fp8 caches: 1 byte). With a step annotation whose requests are the call's S sequences
 * (all, or the decode ones), its sums are exact. Without one, max_seq_len bounds them: every query over
 * max_seq_len keys and every sequence's max_seq_len keys read once (Σsq = Σsq² = N_Q, Σsq·sk = N_Q·max_seq_len,
 * Σsk = S·max_seq_len), an upper bound the param kv_lens says. Not counted: block tables, seq_lens, and v2's
 * partition scratch (exp_sums, max_logits, tmp_out). Not replayed. */
#ifndef JV_INFATTN_H
#define JV_INFATTN_H

#include "jv_family.h"

/* the sums of one request class of a step annotation */
typedef struct {
    long long reqs, sq, sk, sqsq, sqsk;
} jv_infattn_sums;

typedef struct {
    jv_tensor q, k, out; /* k: the key argument, or the key cache (paged); out: the query for the varlen ops */
    int64_t n_q, h_q, n_kv, h_kv, d_qk, d_v;
    jv_infattn_sums ctx, gen;
    int64_t seqs, block, max_len; /* paged: sequences, block size; max_len > 0: the sums are its upper bound */
} jv_infattn_desc;

extern const jv_family jv_infattn_family;

/* Parses a step annotation's name ("execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32
 * sqsk55086)") into the context and generation sums. Returns 1, or 0 when s is not such a name. */
int jv_infattn_parse_annotation(const char *s, jv_infattn_sums *ctx, jv_infattn_sums *gen);

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_infattn_desc *jv_infattn_of(const jv_desc *d) {
    return (const jv_infattn_desc *)(const void *)d->data;
}

#endif

/* sdpa: the attention family (aten::_scaled_dot_product_{flash,efficient,
 * cudnn}_attention and their _backward ops, aten::scaled_dot_product_attention
 * when no child op carries the kernels, flash_attn::_flash_attn_forward /
 * FlashAttnFunc / flash_attn::_flash_attn_backward): its descriptor, parsed
 * from a call, and its FLOPs/bytes model.
 * Convention: q [B, H_Q, N_Q, d_qk], k [B, H_KV, N_KV, d_qk],
 * v [B, H_KV, N_KV, d_v], o [B, H_Q, N_Q, d_v] whatever the traced layout
 * (aten: BHND; flash_attn: BNHD); H_Q is a multiple of H_KV (GQA/MQA). */
#ifndef JV_SDPA_H
#define JV_SDPA_H

#include "jv_family.h"

typedef enum {
    JV_SDPA_FLASH,         /* aten::_scaled_dot_product_flash_attention */
    JV_SDPA_EFFICIENT,     /* aten::_scaled_dot_product_efficient_attention */
    JV_SDPA_CUDNN,         /* aten::_scaled_dot_product_cudnn_attention */
    JV_SDPA_MATH,          /* aten::scaled_dot_product_attention (weak) */
    JV_SDPA_FLASH_BWD,     /* aten::_scaled_dot_product_flash_attention_backward */
    JV_SDPA_EFFICIENT_BWD, /* aten::_scaled_dot_product_efficient_attention_backward */
    JV_SDPA_CUDNN_BWD,     /* aten::_scaled_dot_product_cudnn_attention_backward */
    JV_SDPA_FA_FWD,        /* flash_attn::_flash_attn_forward, FlashAttnFunc */
    JV_SDPA_FA_BWD         /* flash_attn::_flash_attn_backward */
} jv_sdpa_op;

/* How a causal mask lines up when N_Q != N_KV: top-left (query i sees keys
 * j <= i; PyTorch's is_causal) or bottom-right (j <= i + N_KV - N_Q;
 * flash-attn >= 2.1). */
typedef enum { JV_SDPA_TOP_LEFT = 0, JV_SDPA_BOTTOM_RIGHT } jv_sdpa_align;

typedef struct {
    jv_sdpa_op op;
    int bwd; /* a backward op: backward formulas */
    int64_t b, n_q, h_q, n_kv, h_kv, d_qk, d_v;
    double dropout;
    int causal;
    jv_sdpa_align align;
    int64_t window_left, window_right; /* flash_attn sliding window; -1 = unbounded */
    int flash_impl;                    /* backward recomputes S = QK^T (TraceLens' flash_impl) */
    jv_dtype dt_q, dt_k, dt_v;         /* operand dtypes */
    jv_dtype dt_o;                     /* output (forward) or saved output (backward) dtype */
    jv_dtype dt_do;                    /* backward: grad_out dtype */
    int has_bias;                      /* attn_mask / attn_bias tensor present */
    jv_dtype dt_bias;
    double bias_elems; /* distinct bias elements read (a broadcast view reads fewer) */
} jv_sdpa_desc;

extern const jv_family jv_sdpa_family;

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_sdpa_desc *jv_sdpa_of(const jv_desc *d) {
    return (const jv_sdpa_desc *)(const void *)d->data;
}

/* Number of (query, key) pairs a mask lets through, for n_q queries and n_kv
 * keys: causal with the given alignment, optional sliding window
 * (window_left/right < 0: unbounded; flash_attn semantics, bottom-right
 * anchored). Exact integer count as a double. */
double jv_sdpa_pairs(int64_t n_q, int64_t n_kv, int causal, jv_sdpa_align align, int64_t window_left,
                     int64_t window_right);

#endif

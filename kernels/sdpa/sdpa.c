/* sdpa: descriptor parsing and the FLOPs/bytes model of attention.
 *
 * Forward (TraceLens §5.1): flops = 2*B*H_Q*P*(d_qk + d_v), P = the (query,
 * key) pairs the mask lets through: N_Q*N_KV, or N_Q*N_KV/2 when causal with
 * N_Q == N_KV (TraceLens' halving, kept so the numbers match it), or the exact
 * count of the causal mask's unmasked elements when N_Q != N_KV (TraceLens
 * drops such rows: defect fixed). PyTorch's is_causal is top-left aligned
 * (torch.tril(ones(N_Q, N_KV))): sum_i min(i+1, N_KV); flash_attn is
 * bottom-right aligned (flash-attn >= 2.1): sum_i clamp(i+1+N_KV-N_Q, 0, N_KV),
 * and its sliding window is counted exactly too. Softmax and dropout are not
 * counted (as TraceLens).
 * bytes = |q|*bpe_q + |k|*bpe_k + |v|*bpe_v + |o|*bpe_o (+ the attn_mask /
 * attn_bias read: its distinct elements * bpe). TraceLens always uses 2 bytes
 * per element (defect fixed: the real dtype size; equal for bf16/fp16); it
 * ignores the bias read (deliberate difference, only with a mask) and the
 * logsumexp write (we ignore it too: B*H*N_Q*4 bytes).
 *
 * Backward: flops = 2*B*H_Q*P*((2 + flash_impl)*d_qk + 2*d_v)
 *   (flash_impl: recompute S = QK^T; then dV = P^T dO, dP = dO V^T,
 *   dQ = dS K, dK = dS^T Q) + B*H_KV*N_KV*(d_qk + d_v)*(H_Q/H_KV - 1), the
 *   GQA sum of the per-query-head dK/dV (TraceLens omits the H_KV factor and
 *   halves this term when causal: both fixed, it is not masked).
 * bytes = (|q| + |k| + |v| + |o| + |dO|)*bpe read + (|dq| + |dk| + |dv|)*bpe
 *   written (+ the bias read); TraceLens omits dO (defect fixed) and has no
 *   model at all for the aten backward ops (defect fixed). The logsumexp read
 *   is not counted. */
#include "sdpa.h"

#include <math.h>
#include <string.h>

_Static_assert(sizeof(jv_sdpa_desc) <= JV_DESC_BYTES, "sdpa descriptor too large");

static const struct {
    const char *name;
    jv_sdpa_op op;
    jv_match how;
} OPS[] = {
    {"aten::_scaled_dot_product_flash_attention", JV_SDPA_FLASH, JV_MATCH_STRONG},
    {"aten::_scaled_dot_product_efficient_attention", JV_SDPA_EFFICIENT, JV_MATCH_STRONG},
    {"aten::_scaled_dot_product_cudnn_attention", JV_SDPA_CUDNN, JV_MATCH_STRONG},
    {"aten::scaled_dot_product_attention", JV_SDPA_MATH, JV_MATCH_WEAK},
    {"aten::_scaled_dot_product_flash_attention_backward", JV_SDPA_FLASH_BWD, JV_MATCH_STRONG},
    {"aten::_scaled_dot_product_efficient_attention_backward", JV_SDPA_EFFICIENT_BWD, JV_MATCH_STRONG},
    {"aten::_scaled_dot_product_cudnn_attention_backward", JV_SDPA_CUDNN_BWD, JV_MATCH_STRONG},
    {"flash_attn::_flash_attn_forward", JV_SDPA_FA_FWD, JV_MATCH_STRONG},
    {"FlashAttnFunc", JV_SDPA_FA_FWD, JV_MATCH_STRONG},
    {"flash_attn::_flash_attn_backward", JV_SDPA_FA_BWD, JV_MATCH_STRONG},
};

/* Where each op keeps its arguments (-1: none). */
typedef struct {
    int q, k, v;         /* q, k, v tensors (k, v follow q) */
    int out, dout;       /* saved output and grad_out (backward) */
    int bias;            /* attn_mask / attn_bias */
    int dropout, causal; /* concrete values */
    int window;          /* flash_attn window_size_left (right follows, or a 2-list) */
    int bnhd;            /* layout [B, N, H, d] instead of [B, H, N, d] */
    int flash_impl, bwd;
    jv_sdpa_align align;
} arg_map;

static arg_map args_of(jv_sdpa_op op) {
    arg_map m = {0, 1, 2, -1, -1, -1, -1, -1, -1, 0, 0, 0, JV_SDPA_TOP_LEFT};
    switch (op) {
    /* _scaled_dot_product_flash_attention(q, k, v, dropout_p, is_causal, return_debug_mask, *, scale) */
    case JV_SDPA_FLASH: m.dropout = 3, m.causal = 4, m.flash_impl = 1; break;
    /* _scaled_dot_product_{efficient,cudnn}_attention(q, k, v, attn_bias, compute_log_sumexp, dropout_p,
     * is_causal, ...) */
    case JV_SDPA_EFFICIENT:
    case JV_SDPA_CUDNN: m.bias = 3, m.dropout = 5, m.causal = 6; break;
    /* scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa) */
    case JV_SDPA_MATH: m.bias = 3, m.dropout = 4, m.causal = 5; break;
    /* _scaled_dot_product_flash_attention_backward(grad_out, q, k, v, out, logsumexp, cum_seq_q, cum_seq_k,
     * max_q, max_k, dropout_p, is_causal, philox_seed, philox_offset, scale) */
    case JV_SDPA_FLASH_BWD:
        m.dout = 0, m.q = 1, m.k = 2, m.v = 3, m.out = 4, m.dropout = 10, m.causal = 11;
        m.flash_impl = 1, m.bwd = 1;
        break;
    /* _scaled_dot_product_efficient_attention_backward(grad_out_, q, k, v, attn_bias, out, logsumexp,
     * philox_seed, philox_offset, dropout_p, grad_input_mask, is_causal, scale) */
    case JV_SDPA_EFFICIENT_BWD:
        m.dout = 0, m.q = 1, m.k = 2, m.v = 3, m.bias = 4, m.out = 5, m.dropout = 9, m.causal = 11;
        m.bwd = 1;
        break;
    /* _scaled_dot_product_cudnn_attention_backward(grad_out, q, k, v, out, logsumexp, philox_seed,
     * philox_offset, attn_bias, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, *, scale) */
    case JV_SDPA_CUDNN_BWD:
        m.dout = 0, m.q = 1, m.k = 2, m.v = 3, m.out = 4, m.bias = 8, m.dropout = 13, m.causal = 14;
        m.bwd = 1;
        break;
    /* _flash_attn_forward(q, k, v, dropout_p, softmax_scale, causal, window_size_left, window_size_right,
     * softcap, alibi_slopes, return_softmax); FlashAttnFunc(q, k, v, dropout_p, softmax_scale, causal,
     * window_size, ...) */
    case JV_SDPA_FA_FWD:
        m.dropout = 3, m.causal = 5, m.window = 6, m.bnhd = 1, m.flash_impl = 1;
        m.align = JV_SDPA_BOTTOM_RIGHT;
        break;
    /* _flash_attn_backward(dout, q, k, v, out, softmax_lse, dq, dk, dv, dropout_p, softmax_scale, causal,
     * window_size_left, window_size_right, softcap, alibi_slopes, deterministic, rng_state).
     * TraceLens reads dropout from C[8] (dv) and causal from C[10] (softmax_scale, so always True):
     * defect fixed. */
    case JV_SDPA_FA_BWD:
        m.dout = 0, m.q = 1, m.k = 2, m.v = 3, m.out = 4, m.dropout = 9, m.causal = 11, m.window = 12;
        m.bnhd = 1, m.flash_impl = 1, m.bwd = 1;
        m.align = JV_SDPA_BOTTOM_RIGHT;
        break;
    }
    return m;
}

static int find_op(const char *name) {
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcmp(name, OPS[i].name)) return (int)i;
    return -1;
}

static jv_match sdpa_match(const char *op) {
    int i = find_op(op);
    return i < 0 ? JV_MATCH_NONE : OPS[i].how;
}

/* the largest dimension we accept: keeps every count below 2^53 per factor
 * and every int64 sum below overflow */
#define MAX_DIM ((int64_t)1 << 40)

/* sum over i in [0, L) of clamp(i + c, 0, S) */
static double clamp_sum(int64_t L, int64_t S, int64_t c) {
    if (c < -L) c = -L;
    if (c > S) c = S;
    /* rows with 1 <= i + c <= S - 1 contribute i + c, rows with i + c >= S contribute S */
    int64_t i0 = 1 - c > 0 ? 1 - c : 0;
    int64_t i1 = S - 1 - c < L - 1 ? S - 1 - c : L - 1;
    double s = 0;
    if (i0 <= i1) {
        double n = (double)(i1 - i0 + 1);
        s += n * ((double)(i0 + c) + (double)(i1 + c)) / 2;
    }
    int64_t ic = S - c > 0 ? S - c : 0;
    if (ic < L) s += (double)(L - ic) * (double)S;
    return s;
}

double jv_sdpa_pairs(int64_t n_q, int64_t n_kv, int causal, jv_sdpa_align align, int64_t window_left,
                     int64_t window_right) {
    if (n_q <= 0 || n_kv <= 0) return 0;
    if (n_q > MAX_DIM || n_kv > MAX_DIM) return (double)n_q * (double)n_kv;
    int64_t off = align == JV_SDPA_BOTTOM_RIGHT ? n_kv - n_q : 0;
    /* query i sees keys j with i + off - window_left <= j <= i + off + right */
    int bounded_right = causal || window_right >= 0;
    int64_t right = causal ? 0 : window_right; /* flash-attn forces window_size_right = 0 when causal */
    if (right > MAX_DIM) right = MAX_DIM;
    int64_t left = window_left > MAX_DIM ? MAX_DIM : window_left;
    double hi = bounded_right ? clamp_sum(n_q, n_kv, off + right + 1) : (double)n_q * (double)n_kv;
    double lo = left >= 0 ? clamp_sum(n_q, n_kv, off - left) : 0;
    return hi > lo ? hi - lo : 0;
}

/* optional_float: "", "None" or absent give 0.0 */
static int read_dropout(const jv_opcall *c, int i, double *v) {
    const char *s = jv_opcall_value(c, i);
    *v = 0;
    if (!s || !strcmp(s, "None")) return 1;
    return jv_parse_double(s, v) && *v >= 0 && *v <= 1;
}

/* flash_attn window: window_size_left, window_size_right as two ints, or one
 * (left, right) list (FlashAttnFunc, older flash-attn) */
static int read_window(const jv_opcall *c, int i, int64_t *left, int64_t *right) {
    *left = *right = -1;
    if (i < 0) return 1;
    long long v[2];
    int n = jv_parse_ints(jv_opcall_value(c, i), v, 2);
    if (n == 2) {
        *left = v[0], *right = v[1];
    } else if (n == 1) {
        long long r;
        *left = v[0];
        if (jv_parse_ints(jv_opcall_value(c, i + 1), &r, 1) == 1) *right = r;
    }
    if (*left < -1 || *right < -1) *left = *right = -1; /* any negative means unbounded */
    return 1;
}

/* (B, H, N, d) of t: BHND is [..., H, N, d] (B = product of the leading dims),
 * BNHD is exactly [B, N, H, d] */
static int shape_of(const jv_tensor *t, int bnhd, int64_t *b, int64_t *h, int64_t *n, int64_t *d) {
    int nd = t->ndim;
    for (int i = 0; i < nd; i++)
        if (t->shape[i] < 0 || t->shape[i] > MAX_DIM) return 0;
    if (bnhd) {
        if (nd != 4) return 0;
        *b = t->shape[0], *n = t->shape[1], *h = t->shape[2], *d = t->shape[3];
        return 1;
    }
    if (nd < 2) return 0;
    *d = t->shape[nd - 1];
    *n = t->shape[nd - 2];
    *h = nd >= 3 ? t->shape[nd - 3] : 1;
    double bb = 1;
    for (int i = 0; i < nd - 3; i++)
        bb *= (double)t->shape[i];
    if (bb > (double)MAX_DIM) return 0;
    *b = (int64_t)bb;
    return 1;
}

static jv_status sdpa_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    jv_sdpa_desc *s = (jv_sdpa_desc *)(void *)d->data;
    memset(s, 0, sizeof *s);
    int oi = find_op(c->name);
    if (oi < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not an attention op", c->name);
    s->op = OPS[oi].op;
    arg_map m = args_of(s->op);
    const jv_tensor *q = jv_opcall_tensor(c, m.q), *k = jv_opcall_tensor(c, m.k), *v = jv_opcall_tensor(c, m.v);
    if (!q || !k || !v) JV_FAIL(err, JV_ERR_FORMAT, "%s: query/key/value shapes missing", c->name);
    int64_t bq, hq, nq, dq, bk, hk, nk, dk, bv, hv, nv, dv;
    if (!shape_of(q, m.bnhd, &bq, &hq, &nq, &dq) || !shape_of(k, m.bnhd, &bk, &hk, &nk, &dk) ||
        !shape_of(v, m.bnhd, &bv, &hv, &nv, &dv))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: query/key/value are not %s tensors with sane sizes", c->name,
                m.bnhd ? "[B, N, H, d]" : "[B, H, N, d]");
    if (bq != bk || bq != bv) JV_FAIL(err, JV_ERR_FORMAT, "%s: batch sizes of q, k, v differ", c->name);
    if (hk != hv || nk != nv) JV_FAIL(err, JV_ERR_FORMAT, "%s: key and value shapes differ", c->name);
    if (dq != dk) JV_FAIL(err, JV_ERR_FORMAT, "%s: query and key head sizes differ", c->name);
    if (hk <= 0 || hq % hk) JV_FAIL(err, JV_ERR_FORMAT, "%s: query heads are not a multiple of key heads", c->name);
    s->b = bq, s->h_q = hq, s->n_q = nq, s->d_qk = dq, s->h_kv = hk, s->n_kv = nk, s->d_v = dv;
    if (!read_dropout(c, m.dropout, &s->dropout)) JV_FAIL(err, JV_ERR_FORMAT, "%s: bad dropout_p", c->name);
    if (!jv_opcall_bool(c, m.causal, 0, 1, &s->causal)) JV_FAIL(err, JV_ERR_FORMAT, "%s: bad is_causal", c->name);
    read_window(c, m.window, &s->window_left, &s->window_right);
    s->align = m.align;
    s->flash_impl = m.flash_impl;
    s->bwd = m.bwd;
    s->dt_q = q->dtype, s->dt_k = k->dtype, s->dt_v = v->dtype;
    s->dt_o = q->dtype;
    s->dt_do = q->dtype;
    const jv_tensor *o = jv_opcall_tensor(c, m.out), *g = jv_opcall_tensor(c, m.dout);
    if (m.bwd && !g) JV_FAIL(err, JV_ERR_FORMAT, "%s: grad_out shape missing", c->name);
    if (o) s->dt_o = o->dtype;
    if (g) s->dt_do = g->dtype;
    const jv_tensor *bias = jv_opcall_tensor(c, m.bias);
    if (bias && bias->ndim > 0) {
        int64_t n = jv_tensor_numel(bias), e = jv_tensor_extent(bias);
        if (n < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: bad attention mask shape", c->name);
        s->has_bias = 1;
        s->dt_bias = bias->dtype;
        s->bias_elems = (double)(e >= 0 && e < n ? e : n);
    }
    d->bwd = s->bwd;
    return JV_OK;
}

static void sdpa_model(const jv_desc *d, jv_perf *p) {
    const jv_sdpa_desc *s = jv_sdpa_of(d);
    double B = (double)s->b, hq = (double)s->h_q, hkv = (double)s->h_kv, nq = (double)s->n_q, nkv = (double)s->n_kv;
    double dqk = (double)s->d_qk, dv = (double)s->d_v;
    double pairs = nq * nkv;
    int windowed = s->window_left >= 0 || s->window_right >= 0;
    if (s->causal && s->n_q == s->n_kv && !windowed)
        pairs /= 2; /* TraceLens' halving */
    else if (s->causal || windowed)
        pairs = jv_sdpa_pairs(s->n_q, s->n_kv, s->causal, s->align, s->window_left, s->window_right);
    double nel_q = B * hq * nq * dqk, nel_k = B * hkv * nkv * dqk, nel_v = B * hkv * nkv * dv, nel_o = B * hq * nq * dv;
    double bias = s->has_bias ? s->bias_elems * jv_bpe(s->dt_bias) : 0;
    double io = nel_q * jv_bpe(s->dt_q) + nel_k * jv_bpe(s->dt_k) + nel_v * jv_bpe(s->dt_v) + nel_o * jv_bpe(s->dt_o);
    if (!s->bwd) {
        p->flops = 2 * B * hq * pairs * dqk + 2 * B * hq * pairs * dv;
        p->bytes = io + bias;
    } else {
        double group = hkv > 0 ? (double)(s->h_q / s->h_kv) - 1 : 0;
        p->flops = 2 * B * hq * pairs * ((2 + s->flash_impl) * dqk + 2 * dv) + B * hkv * nkv * (dqk + dv) * group;
        p->bytes = io + nel_o * jv_bpe(s->dt_do) + nel_q * jv_bpe(s->dt_q) + nel_k * jv_bpe(s->dt_k) +
                   nel_v * jv_bpe(s->dt_v) + bias;
    }
    p->dtype = s->dt_q;
    p->matrix = 1;
}

/* a dtype's trace name, or NULL (printed None) when unknown */
static const char *dtype_name(jv_dtype t) {
    return t == JV_DT_UNKNOWN ? NULL : jv_dtype_trace_name(t);
}

static void sdpa_params(const jv_desc *d, jv_params *ps) {
    const jv_sdpa_desc *s = jv_sdpa_of(d);
    jv_param_int(ps, "B", s->b);
    jv_param_int(ps, "N_Q", s->n_q);
    jv_param_int(ps, "H_Q", s->h_q);
    jv_param_int(ps, "N_KV", s->n_kv);
    jv_param_int(ps, "H_KV", s->h_kv);
    jv_param_int(ps, "d_h_qk", s->d_qk);
    jv_param_int(ps, "d_h_v", s->d_v);
    jv_param_float(ps, "dropout", s->dropout);
    jv_param_bool(ps, "causal", s->causal);
    jv_param_bool(ps, "flash_impl", s->flash_impl);
    const char *dt[2] = {dtype_name(s->dt_q), dtype_name(s->dt_k)};
    jv_param_dtypes(ps, "dtype_A_B", dt, 2);
}

const jv_family jv_sdpa_family = {
    .name = "sdpa",
    .sheet = "SDPA",
    .split = 1,
    .category = "SDPA",
    .match = sdpa_match,
    .parse = sdpa_parse,
    .model = sdpa_model,
    .params = sdpa_params,
    .findings = {.library_nvidia = "the SDPA backend (flash / memory-efficient attention kernels)",
                 .library_amd = "the SDPA backend (CK / AOTriton attention kernels)"},
};

/* moe: descriptor parsing and the FLOPs/bytes model of fused mixture-of-experts layers (moe.h). */
#include "moe.h"

#include <math.h>
#include <string.h>

_Static_assert(sizeof(jv_moe_desc) <= JV_DESC_BYTES, "moe descriptor too large");

static jv_match moe_match(const char *op) {
    static const char *const OPS[] = {"vllm::inplace_fused_experts", "vllm::outplace_fused_experts",
                                      "vllm::rocm_aiter_fused_moe",  "aiter::ck_moe",
                                      "aiter::fused_moe_",           NULL};
    for (const char *const *o = OPS; *o; o++)
        if (!strcmp(op, *o)) return JV_MATCH_STRONG;
    return JV_MATCH_NONE;
}

static jv_status moe_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    jv_moe_desc *m = (jv_moe_desc *)(void *)d->data;
    memset(m, 0, sizeof *m);
    if (moe_match(c->name) == JV_MATCH_NONE) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not a fused MoE", c->name);
    const jv_tensor *x = jv_opcall_tensor(c, 0), *w1 = jv_opcall_tensor(c, 1), *w2 = jv_opcall_tensor(c, 2);
    const jv_tensor *tw = jv_opcall_tensor(c, 3), *ids = jv_opcall_opt_tensor(c, 4);
    if (!x || !w1 || !w2 || !tw || x->ndim != 2 || w1->ndim != 3 || w2->ndim != 3 || tw->ndim != 2)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: not hidden [T, H], w1 [E, N1, K], w2 [E, H, I], topk_weights [T, k]", c->name);
    int64_t t = x->shape[0], h = x->shape[1], e = w1->shape[0], k1 = w1->shape[2];
    if (t <= 0 || h <= 0 || e <= 0 || k1 <= 0 || w2->shape[0] != e || w2->shape[1] != h || w2->shape[2] <= 0 ||
        tw->shape[0] != t || tw->shape[1] <= 0 || tw->shape[1] > e)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: the tokens, hidden size, experts or top-k of the operands disagree", c->name);
    if (h % k1 || (h / k1 != 1 && h / k1 != 2))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: w1's last dim is neither the hidden size nor half of it", c->name);
    m->pack = h / k1;
    if (m->pack == 2 && jv_dtype_size(w1->dtype) != 1)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: w1 holds half the hidden size in elements wider than a byte", c->name);
    m->inter = w2->shape[2] * m->pack;
    if (w1->shape[1] == 2 * m->inter)
        m->gated = 1;
    else if (w1->shape[1] != m->inter)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: w1's rows are neither the intermediate size nor twice it", c->name);
    if (!jv_dtype_size(x->dtype) || !jv_dtype_size(w1->dtype) || !jv_dtype_size(tw->dtype) || w1->dtype != w2->dtype)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: no known dtype, or w1 and w2 of different dtypes", c->name);
    if (ids && (ids->ndim != 2 || ids->shape[0] != t || ids->shape[1] != tw->shape[1]))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: topk_ids is not [T, k]", c->name);
    m->x = *x, m->w1 = *w1, m->w2 = *w2, m->tw = *tw;
    if (ids && jv_dtype_size(ids->dtype)) m->ids = *ids, m->has_ids = 1;
    m->tokens = t, m->hidden = h, m->experts = e, m->topk = tw->shape[1];
    /* the tensors after topk_ids: quantization scales, zero points, expert maps; per-expert ones ([E, ...], 2-D
     * or more) are read for the experts reached only */
    for (int i = 5; i < c->nargs; i++) {
        const jv_tensor *s = jv_opcall_opt_tensor(c, i);
        if (!s || !jv_dtype_size(s->dtype)) continue;
        double b = jv_numel_d(s) * jv_bpe(s->dtype);
        if (s->ndim >= 2 && s->shape[0] == e)
            m->extra_expert_bytes += b;
        else
            m->extra_bytes += b;
    }
    d->bwd = 0;
    return JV_OK;
}

/* the expected number of distinct experts T tokens reach, k each, under uniform routing */
static double experts_active(const jv_moe_desc *m) {
    double e = (double)m->experts;
    return e * (1.0 - pow(1.0 - (double)m->topk / e, (double)m->tokens));
}

static void moe_model(const jv_desc *d, jv_perf *p) {
    const jv_moe_desc *m = jv_moe_of(d);
    double t = (double)m->tokens, h = (double)m->hidden, in = (double)m->inter, k = (double)m->topk;
    p->flops = 2.0 * t * h * in * k * (m->gated ? 2.0 : 1.0) + 2.0 * t * h * in * k + t * h * (2.0 * k - 1.0);
    double n1 = (double)m->w1.shape[1];
    p->bytes = 2.0 * t * h * jv_bpe(m->x.dtype) + t * k * jv_bpe(m->tw.dtype) +
               (m->has_ids ? t * k * jv_bpe(m->ids.dtype) : 0) +
               experts_active(m) * ((n1 * h + h * in) * jv_bpe(m->w1.dtype) / (double)m->pack +
                                    m->extra_expert_bytes / (double)m->experts) +
               m->extra_bytes;
    /* fp8 weights with fp8 activations run at the fp8 peak; packed or wider weights at the activations' */
    p->dtype = jv_dtype_size(m->w1.dtype) == 1 && jv_dtype_is_float(m->w1.dtype) ? m->w1.dtype : m->x.dtype;
    p->matrix = 1;
}

/* TraceLens' FusedMoE params */
static void moe_params(const jv_desc *d, jv_params *ps) {
    const jv_moe_desc *m = jv_moe_of(d);
    jv_param_int(ps, "num_tokens", m->tokens);
    jv_param_int(ps, "hidden_dim", m->hidden);
    jv_param_int(ps, "inter_dim", m->inter);
    jv_param_int(ps, "num_experts", m->experts);
    jv_param_int(ps, "topk", m->topk);
    jv_param_bool(ps, "gated", m->gated);
    jv_param_text(ps, "input_dtype", "%s", jv_dtype_trace_name(m->x.dtype));
    jv_param_text(ps, "weight_dtype", "%s", jv_dtype_trace_name(m->w1.dtype));
    jv_param_int(ps, "weight_pack", m->pack);
}

const jv_family jv_moe_family = {
    .name = "moe",
    .sheet = "MoE_fused",
    .category = "MoE_fused",
    .match = moe_match,
    .parse = moe_parse,
    .model = moe_model,
    .params = moe_params,
    .no_replay = "not replayed: a serving stack's fused MoE (its routing, the experts each token reaches, is not in "
                 "the trace)",
};

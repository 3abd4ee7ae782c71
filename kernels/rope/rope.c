/* rope: descriptor parsing and the FLOPs/bytes model of the serving stacks' rotary embedding (rope.h); its
 * replay is rope_ref.c's. */
#include "rope.h"

#include <string.h>

_Static_assert(sizeof(jv_rope_desc) <= JV_DESC_BYTES, "rope descriptor too large");

static jv_match rope_match(const char *op) {
    return !strcmp(op, "_C::rotary_embedding") ? JV_MATCH_STRONG : JV_MATCH_NONE;
}

/* heads of t ([T, H * head_size] or [T, H, head_size]), or -1 when its shape does not say */
static int64_t heads_of(const jv_tensor *t, int64_t tokens, int64_t head_size) {
    int64_t n = jv_tensor_numel(t);
    if (n < 0 || t->ndim < 2 || t->shape[0] != tokens || head_size <= 0 || tokens <= 0) return -1;
    int64_t per = n / tokens;
    return per % head_size ? -1 : per / head_size;
}

static jv_status rope_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    jv_rope_desc *g = (jv_rope_desc *)(void *)d->data;
    memset(g, 0, sizeof *g);
    if (rope_match(c->name) == JV_MATCH_NONE) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not a rotary embedding", c->name);
    const jv_tensor *pos = jv_opcall_tensor(c, 0), *q = jv_opcall_tensor(c, 1), *k = jv_opcall_opt_tensor(c, 2);
    const jv_tensor *cache = jv_opcall_tensor(c, 4);
    if (!pos || !q || !cache) JV_FAIL(err, JV_ERR_FORMAT, "%s: positions, query or cos_sin_cache missing", c->name);
    long long hs;
    if (jv_parse_ints(jv_opcall_value(c, 3), &hs, 1) != 1 || hs <= 0)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: head_size not recorded", c->name);
    g->tokens = jv_tensor_numel(pos);
    g->head_size = hs;
    g->heads_q = heads_of(q, g->tokens, hs);
    g->heads_k = k ? heads_of(k, g->tokens, hs) : 0;
    if (g->heads_q < 0 || g->heads_k < 0)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: query / key do not hold tokens x heads x head_size", c->name);
    if (cache->ndim != 2 || cache->shape[1] <= 0 || cache->shape[1] > hs || cache->shape[1] % 2)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: cos_sin_cache is not [positions, rotary dim <= head_size]", c->name);
    if (!jv_dtype_is_numeric(q->dtype) || !jv_dtype_is_numeric(cache->dtype) || (k && !jv_dtype_is_numeric(k->dtype)))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: no known dtype", c->name);
    g->rot = cache->shape[1];
    g->pos = *pos;
    g->q = *q;
    g->has_key = k != NULL;
    if (k) g->k = *k;
    g->cache = *cache;
    jv_opcall_bool(c, 5, 1, 1, &g->neox);
    d->bwd = 0;
    return JV_OK;
}

static void rope_model(const jv_desc *d, jv_perf *p) {
    const jv_rope_desc *g = jv_rope_of(d);
    double t = (double)g->tokens, rot = (double)g->rot;
    p->flops = 3.0 * t * (double)(g->heads_q + g->heads_k) * rot;
    p->bytes = 2.0 * jv_numel_d(&g->q) * jv_bpe(g->q.dtype) +
               (g->has_key ? 2.0 * jv_numel_d(&g->k) * jv_bpe(g->k.dtype) : 0) + t * jv_bpe(g->pos.dtype) +
               t * rot * jv_bpe(g->cache.dtype);
    p->dtype = g->q.dtype;
    p->matrix = 0;
}

static void rope_params(const jv_desc *d, jv_params *ps) {
    const jv_rope_desc *g = jv_rope_of(d);
    jv_param_int(ps, "tokens", g->tokens);
    jv_param_int(ps, "heads_q", g->heads_q);
    jv_param_int(ps, "heads_k", g->heads_k);
    jv_param_int(ps, "head_size", g->head_size);
    jv_param_int(ps, "rotary_dim", g->rot);
    jv_param_bool(ps, "is_neox", g->neox);
    const char *dt[1] = {jv_dtype_trace_name(g->q.dtype)};
    jv_param_dtypes(ps, "dtype", dt, 1);
}

const jv_family jv_rope_family = {
    .name = "rope",
    .sheet = "RoPE",
    .category = "elementwise",
    .match = rope_match,
    .parse = rope_parse,
    .model = rope_model,
    .params = rope_params,
    .operands = jv_rope_operands,
    .reference = jv_rope_reference,
    .reference_full = 1,
    .schemas = jv_rope_schemas,
    .repro = jv_rope_repro,
};

/* rope_ref.c: the replay of the rotary embedding (rope.h): operands, and the CPU reference in double from
 * the definition (vLLM's apply_token_rotary_embedding): each rotated pair of each head of the query and the
 * key, from the token's cos/sin row of cos_sin_cache at its position. */
#include <string.h>

#include "rope.h"

jv_rope_slots jv_rope_slots_of(const jv_rope_desc *g) {
    jv_rope_slots s = {0, 1, g->has_key ? 2 : -1, g->has_key ? 3 : 2};
    return s;
}

jv_status jv_rope_operands(const jv_desc *d, jv_operands *out, jv_err *err) {
    const jv_rope_desc *g = jv_rope_of(d);
    out->n = 0;
    if (g->tokens > g->cache.shape[0])
        JV_FAIL(err, JV_ERR_FORMAT,
                "_C::rotary_embedding: %lld tokens, %lld cos_sin_cache rows: the replay's positions 0..T-1 would "
                "leave the cache",
                (long long)g->tokens, (long long)g->cache.shape[0]);
    JV_CHECK(jv_operands_add(out, "positions", &g->pos, JV_ROLE_IN, JV_INIT_INDEX, err));
    JV_CHECK(jv_operands_add(out, "query", &g->q, JV_ROLE_INOUT, JV_INIT_NORMAL, err));
    if (g->has_key) JV_CHECK(jv_operands_add(out, "key", &g->k, JV_ROLE_INOUT, JV_INIT_NORMAL, err));
    return jv_operands_add(out, "cos_sin_cache", &g->cache, JV_ROLE_IN, JV_INIT_NORMAL, err);
}

/* rotates every head of tensor t (heads heads of g->head_size per token) in place */
static void rotate(const jv_rope_desc *g, const jv_tensor *t, void *buf, int64_t heads, const jv_tensor *pos,
                   const void *pbuf, const jv_tensor *cache, const void *cbuf) {
    const int64_t hs = g->head_size, half = g->rot / 2;
    for (int64_t tok = 0; tok < g->tokens; tok++) {
        const int64_t p = (int64_t)jv_dtype_load(pos->dtype, pbuf, jv_tensor_offset_at(pos, tok));
        for (int64_t h = 0; h < heads; h++) {
            const int64_t base = (tok * heads + h) * hs;
            for (int64_t i = 0; i < half; i++) {
                const double c = jv_dtype_load(cache->dtype, cbuf, jv_tensor_offset_at(cache, p * g->rot + i));
                const double s = jv_dtype_load(cache->dtype, cbuf, jv_tensor_offset_at(cache, p * g->rot + half + i));
                const int64_t xi = base + (g->neox ? i : 2 * i), yi = base + (g->neox ? half + i : 2 * i + 1);
                const int64_t xo = jv_tensor_offset_at(t, xi), yo = jv_tensor_offset_at(t, yi);
                const double x = jv_dtype_load(t->dtype, buf, xo), y = jv_dtype_load(t->dtype, buf, yo);
                jv_dtype_store(t->dtype, buf, xo, x * c - y * s);
                jv_dtype_store(t->dtype, buf, yo, y * c + x * s);
            }
        }
    }
}

jv_status jv_rope_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                            jv_err *err) {
    (void)s; /* reference_full: every output */
    const jv_rope_desc *g = jv_rope_of(d);
    const jv_rope_slots sl = jv_rope_slots_of(g);
    if (ops->n != (g->has_key ? 4 : 3))
        JV_FAIL(err, JV_ERR_FORMAT, "_C::rotary_embedding: reference: unexpected operands (%d)", ops->n);
    const jv_tensor *pos = &ops->o[sl.pos].t, *cache = &ops->o[sl.cache].t;
    for (int64_t tok = 0; tok < g->tokens; tok++) {
        const double p = jv_dtype_load(pos->dtype, bufs[sl.pos], jv_tensor_offset_at(pos, tok));
        if (!(p >= 0 && p < (double)cache->shape[0]))
            JV_FAIL(err, JV_ERR_FORMAT, "_C::rotary_embedding: position %g of token %lld outside the cache", p,
                    (long long)tok);
    }
    rotate(g, &ops->o[sl.q].t, bufs[sl.q], g->heads_q, pos, bufs[sl.pos], cache, bufs[sl.cache]);
    if (sl.k >= 0) rotate(g, &ops->o[sl.k].t, bufs[sl.k], g->heads_k, pos, bufs[sl.pos], cache, bufs[sl.cache]);
    return JV_OK;
}

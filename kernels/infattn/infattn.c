/* infattn: descriptor parsing and the FLOPs/bytes model of serving attention sized by the step annotation
 * (infattn.h). */
#include "infattn.h"

#include <string.h>

_Static_assert(sizeof(jv_infattn_desc) <= JV_DESC_BYTES, "infattn descriptor too large");

/* the ops and, for the paged-attention ops (decode over a paged KV cache), the positions of their arguments:
 * vLLM's paged_attention_v1(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables, seq_lens,
 * block_size, max_seq_len, ...), paged_attention_v2(out, exp_sums, max_logits, tmp_out, query, ..., the same
 * from query on), ROCm's paged_attention(as v2 up to seq_lens, [query_start_loc,] block_size, max_seq_len, ...),
 * AITER's paged_attention_rocm (registered in the "aiter" torch library: as v2 up to max_context_len, then
 * alibi_slopes, kv_cache_dtype, k_scale, v_scale, fp8_out_scale, partition_size, mtp) */
static const struct {
    const char *name;
    int paged;                                      /* 1: a paged-attention op */
    int query, kcache, vcache, nkv, seqlens, bsize; /* argument positions (paged) */
    int qsl; /* 1: block_size may follow a query_start_loc at bsize (ROCm's newer schema) */
} OPS[] = {
    {"vllm::unified_attention", 0, 0, 0, 0, 0, 0, 0, 0},
    {"vllm::unified_attention_with_output", 0, 0, 0, 0, 0, 0, 0, 0},
    {"flash_attn::_flash_attn_varlen_forward", 0, 0, 0, 0, 0, 0, 0, 0},
    {"aiter::mha_varlen_fwd", 0, 0, 0, 0, 0, 0, 0, 0},
    {"aiter::fmha_v3_varlen_fwd", 0, 0, 0, 0, 0, 0, 0, 0},
    {"_C::paged_attention_v1", 1, 1, 2, 3, 4, 7, 8, 0},
    {"_C::paged_attention_v2", 1, 4, 5, 6, 7, 10, 11, 0},
    {"_rocm_C::paged_attention", 1, 4, 5, 6, 7, 10, 11, 1},
    {"aiter::paged_attention_rocm", 1, 4, 5, 6, 7, 10, 11, 0},
};

static int find_op(const char *op) {
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcmp(op, OPS[i].name)) return (int)i;
    return -1;
}

static jv_match infattn_match(const char *op) {
    return find_op(op) < 0 ? JV_MATCH_NONE : JV_MATCH_STRONG;
}

/* skips literal lit at *s; 0 when *s does not start with it */
static int lit(const char **s, const char *lit) {
    size_t n = strlen(lit);
    if (strncmp(*s, lit, n)) return 0;
    *s += n;
    return 1;
}

/* reads a decimal count (at most 18 digits) at *s */
static int num(const char **s, long long *v) {
    int n = 0;
    *v = 0;
    while (**s >= '0' && **s <= '9') {
        if (++n > 18) return 0;
        *v = *v * 10 + (**s - '0');
        (*s)++;
    }
    return n > 0;
}

/* "<kind>_<reqs>(sq<a>sk<b>sqsq<c>sqsk<d>)" */
static int sums(const char **s, const char *kind, jv_infattn_sums *o) {
    return lit(s, kind) && lit(s, "_") && num(s, &o->reqs) && lit(s, "(sq") && num(s, &o->sq) && lit(s, "sk") &&
           num(s, &o->sk) && lit(s, "sqsq") && num(s, &o->sqsq) && lit(s, "sqsk") && num(s, &o->sqsk) && lit(s, ")") &&
           /* per request sq <= sq² and sq² <= sq·sk (sk >= sq): sums that break this are not lengths */
           o->sq <= o->sqsq && o->sqsq <= o->sqsk && (o->reqs > 0 || o->sq == 0);
}

int jv_infattn_parse_annotation(const char *s, jv_infattn_sums *ctx, jv_infattn_sums *gen) {
    long long n;
    memset(ctx, 0, sizeof *ctx);
    memset(gen, 0, sizeof *gen);
    if (!s || !lit(&s, "execute_") || !num(&s, &n) || !lit(&s, "_") || !sums(&s, "context", ctx) || !lit(&s, "_") ||
        !sums(&s, "generation", gen))
        return 0;
    return 1;
}

/* every op: its work follows the requests' sequence lengths (block tables, cu_seqlens: tensor values) */
static jv_unsized infattn_unsized(const char *op) {
    return find_op(op) < 0 ? JV_UNSIZED_NO : JV_UNSIZED_SEQLENS;
}

static int infattn_annotation(const char *name) {
    jv_infattn_sums c, g;
    return jv_infattn_parse_annotation(name, &c, &g);
}

/* integer argument i from Concrete Inputs; 0 when it has no such value */
static int int_arg(const jv_opcall *c, int i, long long *v) {
    return jv_parse_ints(jv_opcall_value(c, i), v, 1) == 1;
}

static jv_status paged_parse(const jv_opcall *c, int oi, jv_infattn_desc *a, jv_err *err) {
    const jv_tensor *q = jv_opcall_tensor(c, OPS[oi].query), *kc = jv_opcall_tensor(c, OPS[oi].kcache);
    const jv_tensor *vc = jv_opcall_tensor(c, OPS[oi].vcache), *sl = jv_opcall_tensor(c, OPS[oi].seqlens);
    const jv_tensor *out = jv_opcall_tensor(c, 0);
    if (!q || !kc || !vc || !sl || !out || q->ndim != 3 || kc->ndim != 5 || vc->ndim != 4 || sl->ndim != 1)
        JV_FAIL(err, JV_ERR_FORMAT,
                "%s: not query [seqs, heads, head_size], key_cache [blocks, kv_heads, head_size/x, block_size, x], "
                "value_cache [blocks, kv_heads, head_size, block_size], seq_lens [seqs]",
                c->name);
    if (!jv_dtype_size(q->dtype) || !jv_dtype_size(kc->dtype) || !jv_dtype_size(out->dtype))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: no known dtype", c->name);
    a->n_q = q->shape[0], a->h_q = q->shape[1], a->d_qk = a->d_v = q->shape[2];
    a->h_kv = kc->shape[1], a->block = kc->shape[3], a->seqs = sl->shape[0];
    a->n_kv = kc->shape[0] * a->block; /* the cache's slots */
    if (a->n_q <= 0 || a->h_q <= 0 || a->d_qk <= 0 || a->h_kv <= 0 || a->block <= 0 || a->seqs <= 0 ||
        a->n_q < a->seqs || a->h_q % a->h_kv || kc->shape[2] * kc->shape[4] != a->d_qk ||
        vc->shape[0] != kc->shape[0] || vc->shape[1] != a->h_kv || vc->shape[2] != a->d_qk || vc->shape[3] != a->block)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: the query, key cache, value cache and seq_lens shapes disagree", c->name);
    /* block_size, then max_seq_len; ROCm's newer schema has query_start_loc (a tensor or None) before them */
    int bi = OPS[oi].bsize;
    long long bs, nkv, maxlen;
    if (OPS[oi].qsl && !(int_arg(c, bi, &bs) && int_arg(c, bi + 1, &maxlen))) bi++;
    if ((int_arg(c, bi, &bs) && bs != a->block) || (int_arg(c, OPS[oi].nkv, &nkv) && nkv != a->h_kv))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: block_size or num_kv_heads disagrees with the cache's shape", c->name);
    a->q = *q;
    a->k = *kc;
    a->out = *out;
    /* the step annotation sizes the call exactly when its requests are the call's sequences (all of them, or
     * the decode ones: paged attention decodes) */
    if (c->annotation && jv_infattn_parse_annotation(c->annotation, &a->ctx, &a->gen)) {
        if (a->ctx.reqs + a->gen.reqs == a->seqs && a->ctx.sq + a->gen.sq <= a->n_q && a->ctx.sq + a->gen.sq > 0)
            return JV_OK;
        if (a->gen.reqs == a->seqs && a->gen.sq <= a->n_q && a->gen.sq > 0) {
            memset(&a->ctx, 0, sizeof a->ctx);
            return JV_OK;
        }
    }
    memset(&a->ctx, 0, sizeof a->ctx);
    memset(&a->gen, 0, sizeof a->gen);
    if (!int_arg(c, bi + 1, &maxlen) || maxlen <= 0)
        JV_FAIL(err, JV_ERR_FORMAT,
                "%s: neither a step annotation with the requests' sequence lengths nor max_seq_len recorded", c->name);
    /* an upper bound: every query over max_seq_len keys, each sequence's keys read once */
    a->max_len = maxlen;
    a->gen.reqs = a->seqs;
    a->gen.sq = a->gen.sqsq = a->n_q;
    a->gen.sqsk = a->n_q * maxlen;
    a->gen.sk = a->seqs * maxlen;
    return JV_OK;
}

static jv_status infattn_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    jv_infattn_desc *a = (jv_infattn_desc *)(void *)d->data;
    memset(a, 0, sizeof *a);
    int oi = find_op(c->name);
    if (oi < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not serving attention", c->name);
    d->bwd = 0;
    if (OPS[oi].paged) return paged_parse(c, oi, a, err);
    if (!c->annotation || !jv_infattn_parse_annotation(c->annotation, &a->ctx, &a->gen))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: no step annotation with the requests' sequence lengths", c->name);
    if (a->ctx.sq + a->gen.sq <= 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: the step annotation holds no token", c->name);
    const jv_tensor *q = jv_opcall_tensor(c, 0), *k = jv_opcall_tensor(c, 1), *v = jv_opcall_opt_tensor(c, 2);
    if (!q || !k || q->ndim != 3 || k->ndim < 3)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: query is not [tokens, heads, head_dim] or key not [..., heads, head_dim]",
                c->name);
    if (!jv_dtype_size(q->dtype) || !jv_dtype_size(k->dtype)) /* a size known (fp8 included) */
        JV_FAIL(err, JV_ERR_FORMAT, "%s: no known dtype", c->name);
    a->n_q = q->shape[0];
    a->h_q = q->shape[1];
    a->d_qk = q->shape[2];
    a->n_kv = k->shape[k->ndim - 3];
    a->h_kv = k->shape[k->ndim - 2];
    a->d_v = v && v->ndim >= 1 ? v->shape[v->ndim - 1] : a->d_qk;
    if (a->h_q <= 0 || a->d_qk <= 0 || a->h_kv <= 0 || a->d_v <= 0 || k->shape[k->ndim - 1] != a->d_qk)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: query and key head dims disagree", c->name);
    if (a->n_q < a->ctx.sq + a->gen.sq)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: the step annotation's %lld tokens exceed the call's %lld queries", c->name,
                a->ctx.sq + a->gen.sq, (long long)a->n_q);
    a->q = *q;
    a->k = *k;
    a->out = *q;
    return JV_OK;
}

/* causal query-key pairs of one request class: Σ(sq·sk) - Σsq²/2 + Σsq/2 */
static double pairs(const jv_infattn_sums *s) {
    return (double)s->sqsk - (double)s->sqsq / 2.0 + (double)s->sq / 2.0;
}

static void infattn_model(const jv_desc *d, jv_perf *p) {
    const jv_infattn_desc *a = jv_infattn_of(d);
    double dd = (double)(a->d_qk + a->d_v);
    p->flops = 2.0 * (double)a->h_q * (pairs(&a->ctx) + pairs(&a->gen)) * dd;
    p->bytes = (double)(a->ctx.sq + a->gen.sq) * (double)a->h_q *
                   ((double)a->d_qk * jv_bpe(a->q.dtype) + (double)a->d_v * jv_bpe(a->out.dtype)) +
               (double)(a->ctx.sk + a->gen.sk) * (double)a->h_kv * dd * jv_bpe(a->k.dtype);
    p->dtype = a->q.dtype;
    p->matrix = 1;
}

/* TraceLens' InferenceAttention params (its dropout, causal and flash_impl constants left out) */
static void infattn_params(const jv_desc *d, jv_params *ps) {
    const jv_infattn_desc *a = jv_infattn_of(d);
    jv_param_int(ps, "B", 1);
    jv_param_int(ps, "N_Q", a->n_q);
    jv_param_int(ps, "H_Q", a->h_q);
    jv_param_int(ps, "N_KV", a->n_kv);
    jv_param_int(ps, "H_KV", a->h_kv);
    jv_param_int(ps, "d_h_qk", a->d_qk);
    jv_param_int(ps, "d_h_v", a->d_v);
    jv_param_int(ps, "c_sq", a->ctx.sq);
    jv_param_int(ps, "c_sk", a->ctx.sk);
    jv_param_int(ps, "c_sqsq", a->ctx.sqsq);
    jv_param_int(ps, "c_sqsk", a->ctx.sqsk);
    jv_param_int(ps, "g_sq", a->gen.sq);
    jv_param_int(ps, "g_sk", a->gen.sk);
    jv_param_int(ps, "g_sqsq", a->gen.sqsq);
    jv_param_int(ps, "g_sqsk", a->gen.sqsk);
    jv_param_text(ps, "dtype_Q", "%s", jv_dtype_trace_name(a->q.dtype));
    if (a->max_len)
        jv_param_text(ps, "kv_lens", "upper bound: max_seq_len %lld", (long long)a->max_len);
    else
        jv_param_text(ps, "kv_lens", "step annotation");
}

const jv_family jv_infattn_family = {
    .name = "infattn",
    .sheet = "InferenceAttention",
    .split = 1,
    .category = "SDPA",
    .match = infattn_match,
    .annotation = infattn_annotation,
    .unsized = infattn_unsized,
    .parse = infattn_parse,
    .model = infattn_model,
    .params = infattn_params,
    .no_replay = "not replayed: attention over a serving stack's paged KV cache (its block tables are not in the "
                 "trace)",
};

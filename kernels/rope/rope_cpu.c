/* rope_cpu.c: the CPU backend's own kernel of the rotary embedding (rope.h), tokens in parallel with OpenMP:
 * per token its cos/sin row loaded to float once, then every head of the query and the key rotated in float
 * (`omp simd` over the pairs), stored rounded to nearest even. fp32, fp16 and bf16 query, key and cache;
 * int64 or int32 positions; each head's elements dense (the last dim of unit stride, a multiple of
 * head_size); a position outside the cache is an error at run time. Other calls are refused at plan time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#define RP_SIMD _Pragma("omp simd")
#else
#define RP_SIMD
#endif

#include "jv_cpu_convert.h"
#include "jv_cpu_kernel.h"
#include "rope.h"

enum { RP_MAX_ROT = 4096 };  /* the rotary dims a token's cos/sin buffer holds */
enum { RP_PAR_MIN = 32768 }; /* fewer elements run on the calling thread */

typedef struct {
    jv_rope_desc g;
    jv_rope_slots sl;
    jv_tensor pos, q, k, cache;
} rp_plan;

static int dt_ok(jv_dtype d) {
    return d == JV_DT_F32 || d == JV_DT_F16 || d == JV_DT_BF16;
}

/* 1 when every head of t is dense: unit stride innermost, the last dim a multiple of head_size */
static int heads_dense(const jv_tensor *t, int64_t hs) {
    return t->ndim >= 1 && t->strides[t->ndim - 1] == 1 && t->shape[t->ndim - 1] % hs == 0;
}

static jv_status rp_plan_create(const jv_desc *d, const jv_operands *ops, void **plan, char *impl, size_t cap,
                                jv_err *err) {
    *plan = NULL;
    const jv_rope_desc *g = jv_rope_of(d);
    const jv_rope_slots sl = jv_rope_slots_of(g);
    if (ops->n != (g->has_key ? 4 : 3)) JV_FAIL(err, JV_ERR_NOTFOUND, "_C::rotary_embedding: unexpected operands");
    const jv_tensor *pos = &ops->o[sl.pos].t, *q = &ops->o[sl.q].t, *cache = &ops->o[sl.cache].t;
    const jv_tensor *k = sl.k >= 0 ? &ops->o[sl.k].t : NULL;
    if (!dt_ok(q->dtype) || !dt_ok(cache->dtype) || (k && !dt_ok(k->dtype)) ||
        (pos->dtype != JV_DT_I64 && pos->dtype != JV_DT_I32))
        JV_FAIL(err, JV_ERR_NOTFOUND,
                "_C::rotary_embedding: unsupported dtype (the CPU kernel runs fp32, fp16 and bf16 "
                "with int64 or int32 positions)");
    if (!heads_dense(q, g->head_size) || (k && !heads_dense(k, g->head_size)) || g->rot > RP_MAX_ROT)
        JV_FAIL(err, JV_ERR_NOTFOUND, "_C::rotary_embedding: the CPU kernel needs each head dense and rot <= %d",
                RP_MAX_ROT);
    rp_plan *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "_C::rotary_embedding: out of memory");
    p->g = *g;
    p->sl = sl;
    p->pos = *pos;
    p->q = *q;
    if (k) p->k = *k;
    p->cache = *cache;
    snprintf(impl, cap, "OpenMP rotary embedding");
    *plan = p;
    return JV_OK;
}

static float ld(jv_dtype dt, const void *b, int64_t off) {
    if (dt == JV_DT_F32) return ((const float *)b)[off];
    const uint16_t u = ((const uint16_t *)b)[off];
    return dt == JV_DT_F16 ? jv_cpu_f16_to_f32(u) : jv_cpu_bf16_to_f32(u);
}

/* the pairs (x[j*xs], y[j*xs]) of one head, j < half, rotated in place */
static void rot_head(jv_dtype dt, void *b, int64_t xo, int64_t yo, int64_t st, int64_t half, const float *restrict c,
                     const float *restrict s) {
    if (dt == JV_DT_F32) {
        float *x = (float *)b + xo, *y = (float *)b + yo;
        RP_SIMD
        for (int64_t j = 0; j < half; j++) {
            const float a = x[j * st], e = y[j * st];
            x[j * st] = a * c[j] - e * s[j];
            y[j * st] = e * c[j] + a * s[j];
        }
    } else if (dt == JV_DT_F16) {
        uint16_t *x = (uint16_t *)b + xo, *y = (uint16_t *)b + yo;
        RP_SIMD
        for (int64_t j = 0; j < half; j++) {
            const float a = jv_cpu_f16_to_f32(x[j * st]), e = jv_cpu_f16_to_f32(y[j * st]);
            x[j * st] = jv_cpu_f32_to_f16(a * c[j] - e * s[j]);
            y[j * st] = jv_cpu_f32_to_f16(e * c[j] + a * s[j]);
        }
    } else {
        uint16_t *x = (uint16_t *)b + xo, *y = (uint16_t *)b + yo;
        RP_SIMD
        for (int64_t j = 0; j < half; j++) {
            const float a = jv_cpu_bf16_to_f32(x[j * st]), e = jv_cpu_bf16_to_f32(y[j * st]);
            x[j * st] = jv_cpu_f32_to_bf16(a * c[j] - e * s[j]);
            y[j * st] = jv_cpu_f32_to_bf16(e * c[j] + a * s[j]);
        }
    }
}

/* every head of tensor t of token tok */
static void rot_token(const rp_plan *p, const jv_tensor *t, void *b, int64_t heads, int64_t tok, const float *c,
                      const float *s) {
    const int64_t hs = p->g.head_size, half = p->g.rot / 2;
    for (int64_t h = 0; h < heads; h++) {
        const int64_t base = jv_tensor_offset_at(t, (tok * heads + h) * hs); /* the head is dense from here */
        if (p->g.neox)
            rot_head(t->dtype, b, base, base + half, 1, half, c, s);
        else
            rot_head(t->dtype, b, base, base + 1, 2, half, c, s);
    }
}

static jv_status rp_run(const void *plan, void *const *bufs, jv_err *err) {
    const rp_plan *p = plan;
    const int64_t T = p->g.tokens, half = p->g.rot / 2, rows = p->cache.shape[0];
    const void *pb = bufs[p->sl.pos], *cb = bufs[p->sl.cache];
    void *qb = bufs[p->sl.q], *kb = p->sl.k >= 0 ? bufs[p->sl.k] : NULL;
    if (T == 0) return JV_OK;
    if (!pb || !cb || !qb || (p->sl.k >= 0 && !kb)) JV_FAIL(err, JV_ERR_INTERNAL, "rope cpu: a NULL buffer");
    int bad = 0;
    const int64_t work = T * (p->g.heads_q + p->g.heads_k) * p->g.rot;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(| : bad) if (work >= RP_PAR_MIN)
#endif
    for (int64_t tok = 0; tok < T; tok++) {
        const int64_t po = jv_tensor_offset_at(&p->pos, tok);
        const int64_t pv = p->pos.dtype == JV_DT_I64 ? ((const int64_t *)pb)[po] : ((const int32_t *)pb)[po];
        if (pv < 0 || pv >= rows) {
            bad = 1;
            continue;
        }
        float c[RP_MAX_ROT / 2], s[RP_MAX_ROT / 2];
        for (int64_t j = 0; j < half; j++) {
            c[j] = ld(p->cache.dtype, cb, jv_tensor_offset_at(&p->cache, pv * p->g.rot + j));
            s[j] = ld(p->cache.dtype, cb, jv_tensor_offset_at(&p->cache, pv * p->g.rot + half + j));
        }
        rot_token(p, &p->q, qb, p->g.heads_q, tok, c, s);
        if (kb) rot_token(p, &p->k, kb, p->g.heads_k, tok, c, s);
    }
    (void)work;
    if (bad)
        JV_FAIL(err, JV_ERR_FORMAT, "_C::rotary_embedding: a position outside cos_sin_cache's %lld rows",
                (long long)rows);
    return JV_OK;
}

static void rp_release(void *plan) {
    free(plan);
}

const jv_cpu_kernel jv_rope_cpu_kernel = {"rope", rp_plan_create, rp_run, rp_release};

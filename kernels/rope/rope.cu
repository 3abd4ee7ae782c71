/* rope.cu: the device kernel of the rotary embedding (rope.h), compiled as CUDA or HIP (jv_gpu.h): one
 * thread per rotated pair of a head of the query or the key (a grid-stride loop over T x (H_q + H_k) x
 * rot/2 pairs, the pairs of one head on consecutive threads), its position read from positions (int64 or
 * int32; one outside the cache leaves the pair alone), cos and sin from the cache row, the pair rotated in
 * float and stored rounded to nearest even. fp32, fp16 and bf16 query, key and cache; each head's elements
 * dense (the last dim of unit stride, a multiple of head_size), the heads at any strides. The row layout
 * (positions [T], query and key [T, H*hs] or [T, H, hs], cache [rows, rot]) runs rp_kernel_rows, the same
 * loop with each offset from two strides (the H200 measured rp_kernel, which walks every operand's dims with
 * 64-bit divisions, at 6.5 % of the copy bandwidth on a Llama-3-8B prefill; rp_kernel_rows has not run on a
 * GPU yet). The family's device-kernel entry jv_rope_gpu_kernel (jv_gpu_kernel.h) plans and runs it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_gpu.h"

extern "C" {
#include "jv_family.h"
#include "rope.h"
}
#include "jv_gpu_kernel.h"

enum { RP_THREADS = 256, RP_BLOCKS_PER_SM = 8 };

struct rp_tensor {
    int nd, dt;
    int64_t shape[JV_MAX_DIMS], st[JV_MAX_DIMS];
};

struct rp_params {
    rp_tensor q, k, pos, cache;
    int has_key, neox, pos64;
    int64_t tokens, hq, hk, hs, half, rot, rows;
    /* the row layout (rp_rows: rp_kernel_rows runs): the strides of a token's row and of a head in q and k,
     * of a position, and of the cache's rows and columns */
    int rows_layout;
    int64_t q_tok, q_head, k_tok, k_head, pos_st, cache_row, cache_col;
    const void *posb, *cacheb;
    void *qb, *kb;
};

struct rp_plan {
    rp_params p;
    jv_rope_slots sl;
    unsigned grid;
};

/* the storage offset of t's row-major logical element i */
static __device__ __forceinline__ int64_t rp_offset(const rp_tensor &t, int64_t i) {
    int64_t o = 0;
    for (int d = t.nd - 1; d >= 0; d--) {
        const int64_t n = t.shape[d] > 0 ? t.shape[d] : 1;
        o += (i % n) * t.st[d];
        i /= n;
    }
    return o;
}

/* the position at element po of positions (int64 or int32) */
static __device__ __forceinline__ int64_t rp_pos(const rp_params &p, int64_t po) {
    return p.pos64 ? static_cast<const int64_t *>(p.posb)[po] : (int64_t) static_cast<const int32_t *>(p.posb)[po];
}

/* rotates pair i of the head at element base of buffer b (storage code dt) by cos c and sin s: neox pairs
 * (i, half + i), gptj pairs (2i, 2i + 1) */
static __device__ __forceinline__ void rp_rotate(const rp_params &p, int dt, void *b, int64_t base, int64_t i, float c,
                                                 float s) {
    const int64_t xo = base + (p.neox ? i : 2 * i), yo = base + (p.neox ? p.half + i : 2 * i + 1);
    const float x = jv_gpu_load_f(dt, b, xo), y = jv_gpu_load_f(dt, b, yo);
    jv_gpu_store_f(dt, b, xo, x * c - y * s);
    jv_gpu_store_f(dt, b, yo, y * c + x * s);
}

__global__ void __launch_bounds__(RP_THREADS) rp_kernel(rp_params p) {
    const int64_t per_tok = (p.hq + p.hk) * p.half, total = p.tokens * per_tok;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
        const int64_t tok = t / per_tok, rem = t - tok * per_tok;
        const int64_t hh = rem / p.half, i = rem - hh * p.half;
        const int is_k = hh >= p.hq;
        const int64_t h = is_k ? hh - p.hq : hh, heads = is_k ? p.hk : p.hq;
        const rp_tensor &tt = is_k ? p.k : p.q;
        void *b = is_k ? p.kb : p.qb;
        const int64_t pv = rp_pos(p, rp_offset(p.pos, tok));
        if (pv < 0 || pv >= p.rows) continue;
        const float c = jv_gpu_load_f(p.cache.dt, p.cacheb, rp_offset(p.cache, pv * p.rot + i));
        const float s = jv_gpu_load_f(p.cache.dt, p.cacheb, rp_offset(p.cache, pv * p.rot + p.half + i));
        rp_rotate(p, tt.dt, b, rp_offset(tt, (tok * heads + h) * p.hs), i, c, s); /* the head is dense from there */
    }
}

/* rp_kernel for the row layout (rp_rows), as most callers pass it: positions [T], query and key [T, H*hs] or
 * [T, H, hs] with each head dense, the cache [rows, rot]; every offset from two strides, and the pair's
 * (token, head, pair) from two 32-bit divisions (the plan checks that T x (H_q + H_k) x rot/2 < 2^31)
 * instead of rp_offset's 64-bit division per dimension for each of four operands. */
__global__ void __launch_bounds__(RP_THREADS) rp_kernel_rows(rp_params p) {
    const uint32_t half = (uint32_t)p.half, hq = (uint32_t)p.hq;
    const uint32_t per_tok = (uint32_t)(p.hq + p.hk) * half, total = (uint32_t)p.tokens * per_tok;
    const uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
        const uint32_t tok = t / per_tok, rem = t - tok * per_tok;
        const uint32_t hh = rem / half, i = rem - hh * half;
        const int is_k = hh >= hq;
        const int64_t pv = rp_pos(p, (int64_t)tok * p.pos_st);
        if (pv < 0 || pv >= p.rows) continue;
        const int64_t crow = pv * p.cache_row;
        const float c = jv_gpu_load_f(p.cache.dt, p.cacheb, crow + (int64_t)i * p.cache_col);
        const float s = jv_gpu_load_f(p.cache.dt, p.cacheb, crow + (int64_t)(half + i) * p.cache_col);
        const int dt = is_k ? p.k.dt : p.q.dt;
        void *b = is_k ? p.kb : p.qb;
        const int64_t base = is_k ? (int64_t)tok * p.k_tok + (int64_t)(hh - hq) * p.k_head
                                  : (int64_t)tok * p.q_tok + (int64_t)hh * p.q_head;
        rp_rotate(p, dt, b, base, i, c, s);
    }
}

extern "C" int jv_gpu_rope_run(const void *plan, void *const *bufs, void *workspace, void *stream) {
    (void)workspace;
    const rp_plan *pl = static_cast<const rp_plan *>(plan);
    if (!pl || !bufs) return JV_GPU_ERR_INVALID;
    if (pl->p.tokens == 0 || pl->p.half == 0) return 0;
    rp_params p = pl->p;
    p.posb = bufs[pl->sl.pos];
    p.cacheb = bufs[pl->sl.cache];
    p.qb = bufs[pl->sl.q];
    p.kb = pl->sl.k >= 0 ? bufs[pl->sl.k] : NULL;
    if (!p.posb || !p.cacheb || !p.qb || (pl->sl.k >= 0 && !p.kb)) return JV_GPU_ERR_INVALID;
    if (p.rows_layout)
        rp_kernel_rows<<<pl->grid, RP_THREADS, 0, static_cast<jv_gpuStream_t>(stream)>>>(p);
    else
        rp_kernel<<<pl->grid, RP_THREADS, 0, static_cast<jv_gpuStream_t>(stream)>>>(p);
    return JV_GPU_LAUNCH_STATUS();
}

/* ---- the family's device-kernel entry (jv_gpu_kernel.h) ---- */

#if JV_GPU_HOST_PASS
static void rp_set(rp_tensor *o, const jv_tensor *t) {
    o->nd = t->ndim;
    o->dt = jv_gpu_storage_of(t->dtype);
    for (int i = 0; i < t->ndim; i++) {
        o->shape[i] = t->shape[i];
        o->st[i] = t->strides[i];
    }
}

/* the strides of a token's row and of a head of t ([T, H*hs] or [T, H, hs], each head dense); 0 for another
 * layout */
static int rp_rows_of(const jv_tensor *t, int64_t tokens, int64_t heads, int64_t hs, int64_t *tok, int64_t *head) {
    if (t->ndim == 2 && t->shape[0] == tokens && t->shape[1] == heads * hs && t->strides[1] == 1) {
        *tok = t->strides[0];
        *head = hs;
        return 1;
    }
    if (t->ndim == 3 && t->shape[0] == tokens && t->shape[1] == heads && t->shape[2] == hs && t->strides[2] == 1) {
        *tok = t->strides[0];
        *head = t->strides[1];
        return 1;
    }
    return 0;
}

/* p's row layout (rp_kernel_rows), when every operand has it and the pairs fit 32-bit index math */
static int rp_rows(rp_params *p, const jv_operands *ops, const jv_rope_slots *sl) {
    const jv_tensor *pos = &ops->o[sl->pos].t, *cache = &ops->o[sl->cache].t;
    if (pos->ndim != 1 || pos->shape[0] != p->tokens) return 0;
    if (cache->ndim != 2 || cache->shape[1] != p->rot) return 0;
    if (p->tokens * (p->hq + p->hk) * p->half >= ((int64_t)1 << 31)) return 0;
    if (!rp_rows_of(&ops->o[sl->q].t, p->tokens, p->hq, p->hs, &p->q_tok, &p->q_head)) return 0;
    if (sl->k >= 0 && !rp_rows_of(&ops->o[sl->k].t, p->tokens, p->hk, p->hs, &p->k_tok, &p->k_head)) return 0;
    p->pos_st = pos->strides[0];
    p->cache_row = cache->strides[0];
    p->cache_col = cache->strides[1];
    return 1;
}

static int rp_supported(const jv_desc *d, const jv_operands *ops, char *why, size_t cap) {
    const jv_rope_desc *g = jv_rope_of(d);
    const jv_rope_slots sl = jv_rope_slots_of(g);
    if (!ops || ops->n != (g->has_key ? 4 : 3)) {
        snprintf(why, cap, "_C::rotary_embedding: unexpected operands");
        return 0;
    }
    const jv_tensor *pos = &ops->o[sl.pos].t;
    if (pos->dtype != JV_DT_I64 && pos->dtype != JV_DT_I32) {
        snprintf(why, cap, "_C::rotary_embedding: positions of dtype %s", jv_dtype_short(pos->dtype));
        return 0;
    }
    for (int i = 0; i < ops->n; i++) {
        if (i == sl.pos) continue;
        const jv_tensor *t = &ops->o[i].t;
        if (jv_gpu_storage_of(t->dtype) < 0) {
            snprintf(why, cap, "_C::rotary_embedding: %s is %s (the device kernel runs fp32, fp16 and bf16)",
                     ops->o[i].name, jv_dtype_short(t->dtype));
            return 0;
        }
        if (i != sl.cache && (t->ndim < 1 || t->strides[t->ndim - 1] != 1 || t->shape[t->ndim - 1] % g->head_size)) {
            snprintf(why, cap, "_C::rotary_embedding: %s: the device kernel needs each head dense", ops->o[i].name);
            return 0;
        }
    }
    return 1;
}

static jv_status rp_plan_create(const jv_desc *d, const jv_operands *ops, int sms, void **plan, size_t *ws_bytes,
                                jv_err *err) {
    *plan = NULL;
    *ws_bytes = 0;
    char why[200];
    if (!rp_supported(d, ops, why, sizeof why)) JV_FAIL(err, JV_ERR_NOTFOUND, "%s", why);
    const jv_rope_desc *g = jv_rope_of(d);
    rp_plan *pl = static_cast<rp_plan *>(calloc(1, sizeof *pl));
    if (!pl) JV_FAIL(err, JV_ERR_NOMEM, "_C::rotary_embedding: out of memory");
    pl->sl = jv_rope_slots_of(g);
    rp_params &p = pl->p;
    rp_set(&p.q, &ops->o[pl->sl.q].t);
    if (pl->sl.k >= 0) rp_set(&p.k, &ops->o[pl->sl.k].t);
    rp_set(&p.pos, &ops->o[pl->sl.pos].t);
    rp_set(&p.cache, &ops->o[pl->sl.cache].t);
    p.pos64 = ops->o[pl->sl.pos].t.dtype == JV_DT_I64;
    p.has_key = pl->sl.k >= 0;
    p.neox = g->neox;
    p.tokens = g->tokens;
    p.hq = g->heads_q;
    p.hk = p.has_key ? g->heads_k : 0;
    p.hs = g->head_size;
    p.rot = g->rot;
    p.half = g->rot / 2;
    p.rows = g->cache.shape[0];
    p.rows_layout = rp_rows(&p, ops, &pl->sl);
    const int64_t work = p.tokens * (p.hq + p.hk) * p.half;
    const int64_t cap = (int64_t)(sms > 0 ? sms : 128) * RP_BLOCKS_PER_SM;
    int64_t b = (work + RP_THREADS - 1) / RP_THREADS;
    pl->grid = (unsigned)(b > cap ? cap : b > 0 ? b : 1);
    *plan = pl;
    return JV_OK;
}

static void rp_release(void *plan) {
    free(plan);
}

extern "C" const jv_gpu_kernel jv_rope_gpu_kernel = {"rope", rp_supported, rp_plan_create, jv_gpu_rope_run, rp_release};
#endif

/* jv_gpu_search: the algorithm search's cache, timing loop and ranking (see jv_gpu_search.h). */
#include "jv_gpu_search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_gpu_common.h"
#include "jv_sort.h" /* jv_median_sort */

void jv_gpu_key_add(jv_gpu_key *k, int64_t v) {
    if (k->n >= JV_GPU_KEY_WORDS) {
        k->overflow = 1;
        return;
    }
    k->w[k->n++] = v;
}

static int key_eq(const jv_gpu_key *a, const jv_gpu_key *b) {
    return a->n == b->n && !memcmp(a->w, b->w, sizeof(int64_t) * (size_t)a->n);
}

const void *jv_gpu_cache_find(const jv_gpu_cache *c, const jv_gpu_key *k) {
    if (k->overflow) return NULL;
    for (int i = 0; i < c->n; i++)
        if (key_eq(&c->keys[i], k)) return c->vals + (size_t)i * c->val_size;
    return NULL;
}

jv_status jv_gpu_cache_put(jv_gpu_cache *c, const jv_gpu_key *k, const void *v, size_t size, jv_err *err) {
    if (k->overflow) return JV_OK;
    if (c->n > 0 && size != c->val_size)
        JV_FAIL(err, JV_ERR_INTERNAL, "algorithm cache: a cache of %zu-byte values given %zu bytes", c->val_size, size);
    c->val_size = size;
    for (int i = 0; i < c->n; i++)
        if (key_eq(&c->keys[i], k)) {
            memcpy(c->vals + (size_t)i * size, v, size);
            return JV_OK;
        }
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        jv_gpu_key *nk = realloc(c->keys, sizeof *nk * (size_t)cap);
        if (!nk) JV_FAIL(err, JV_ERR_NOMEM, "algorithm cache: out of memory");
        c->keys = nk;
        unsigned char *nv = realloc(c->vals, size * (size_t)cap);
        if (!nv) JV_FAIL(err, JV_ERR_NOMEM, "algorithm cache: out of memory");
        c->vals = nv;
        c->cap = cap;
    }
    c->keys[c->n] = *k;
    memcpy(c->vals + (size_t)c->n * size, v, size);
    c->n++;
    return JV_OK;
}

void jv_gpu_cache_clear(jv_gpu_cache *c) {
    free(c->keys);
    free(c->vals);
    memset(c, 0, sizeof *c);
}

int jv_gpu_fastest(const double *t, int n) {
    int best = -1;
    for (int i = 0; i < n; i++)
        if (t[i] > 0 && !isnan(t[i]) && (best < 0 || t[i] < t[best])) best = i;
    return best;
}

/* one candidate: warm-up, then the timed runs; *ms their median, 0 when the library refuses it */
static jv_status time_one(const jv_gpu_search_ops *o, int i, double *ms, jv_err *err) {
    *ms = 0;
    double t[JV_GPU_GEMM_REPS];
    for (int r = 0; r < JV_GPU_GEMM_WARMUP + JV_GPU_GEMM_REPS; r++) {
        int timed = r >= JV_GPU_GEMM_WARMUP, launched = 0;
        if (timed) JV_CHECK(o->start(o->ctx, err));
        JV_CHECK(o->run(o->ctx, i, &launched, err));
        if (!launched) return o->sync(o->ctx, err); /* skipped: nothing of it stays queued */
        if (timed) JV_CHECK(o->stop(o->ctx, &t[r - JV_GPU_GEMM_WARMUP], err));
    }
    *ms = jv_median_sort(t, JV_GPU_GEMM_REPS);
    return JV_OK;
}

jv_status jv_gpu_search_time(const jv_gpu_search_ops *o, const int *eligible, int n, double *t, int *timed,
                             jv_err *err) {
    *timed = 0;
    for (int i = 0; i < n; i++)
        t[i] = 0;
    for (int i = 0; i < n; i++) {
        if (!eligible[i]) continue;
        JV_CHECK(time_one(o, i, &t[i], err));
        if (t[i] > 0) ++*timed;
    }
    return JV_OK;
}

jv_status jv_gpu_search_pick(const double *t, int n, int timed, const char *backend, const char *lib, const char *op,
                             jv_gpu_gemm_choice *ch, jv_err *err) {
    memset(ch, 0, sizeof *ch);
    ch->offered = n;
    ch->timed = timed;
    int b = jv_gpu_fastest(t, n);
    if (b < 0)
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: gemm-algo best: none of %s's %d candidates ran", backend, op,
                lib, n);
    ch->rank = b;
    ch->ms = t[b];
    ch->first_ms = t[0] > 0 && !isnan(t[0]) ? t[0] : 0;
    return JV_OK;
}

void jv_gpu_search_pattern(uint64_t *h, size_t words, jv_dtype dt, uint64_t seed) {
    uint64_t x = seed | 1;
    for (size_t i = 0; i < words; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        switch (dt) {
        case JV_DT_BF16: h[i] = (x & 0x807F807F807F807Full) | 0x3F803F803F803F80ull; break;
        case JV_DT_F16: h[i] = (x & 0x83FF83FF83FF83FFull) | 0x3C003C003C003C00ull; break;
        case JV_DT_F32: h[i] = (x & 0x807FFFFF807FFFFFull) | 0x3F8000003F800000ull; break;
        default: h[i] = (x & 0x800FFFFFFFFFFFFFull) | 0x3FF0000000000000ull; break;
        }
    }
}

void jv_gpu_search_describe(const jv_gpu_gemm_choice *c, char *buf, size_t len, size_t cap) {
    if (len >= cap) return;
    if (c->rank == 0)
        snprintf(buf + len, cap - len, ", searched %d, best of %d: heuristic's #1 %.1f us", c->offered, c->timed,
                 c->ms * 1e3);
    else if (c->first_ms > 0)
        snprintf(buf + len, cap - len, ", searched %d, best of %d: heuristic's #%d %.1f us (#1 %.1f us)", c->offered,
                 c->timed, c->rank + 1, c->ms * 1e3, c->first_ms * 1e3);
    else
        snprintf(buf + len, cap - len, ", searched %d, best of %d: heuristic's #%d %.1f us (#1 did not run)",
                 c->offered, c->timed, c->rank + 1, c->ms * 1e3);
}

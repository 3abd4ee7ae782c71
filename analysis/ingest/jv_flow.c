/* jv_flow: the launch flow endpoints, delta-encoded (see jv_flow.h). */
#include "jv_flow.h"

#include <stdlib.h>
#include <string.h>

#include "jv_arena.h"

/* zigzag of a two's complement word: small magnitudes, either sign, give small numbers */
static uint64_t zz(uint64_t d) {
    return (d << 1) ^ (0 - (d >> 63));
}
static uint64_t unzz(uint64_t z) {
    return (z >> 1) ^ (0 - (z & 1));
}

/* the difference v - prev modulo 2^64, as two's complement */
static int64_t diff64(int64_t v, int64_t prev) {
    uint64_t d = (uint64_t)v - (uint64_t)prev;
    int64_t out;
    memcpy(&out, &d, sizeof out); /* without the implementation-defined conversion */
    return out;
}

/* zigzag of a difference taken modulo 2^64: any two int64 values round-trip */
static uint64_t zz_diff(int64_t v, int64_t prev) {
    return zz((uint64_t)v - (uint64_t)prev);
}

static int64_t add64(int64_t prev, uint64_t d) {
    uint64_t v = (uint64_t)prev + d;
    int64_t out;
    memcpy(&out, &v, sizeof out); /* two's complement back, without the implementation-defined conversion */
    return out;
}

static size_t put_varint(uint8_t *p, uint64_t v) {
    size_t k = 0;
    while (v >= 0x80) {
        p[k++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[k++] = (uint8_t)v;
    return k;
}

/* 0 when the bytes end inside the varint */
static int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v) {
    const uint8_t *p = *pp;
    uint64_t x = 0;
    for (unsigned sh = 0; p < end && sh < 64; sh += 7) {
        uint8_t b = *p++;
        x |= (uint64_t)(b & 0x7F) << sh;
        if (!(b & 0x80)) {
            *pp = p;
            *v = x;
            return 1;
        }
    }
    return 0;
}

jv_status jv_flows_add(jv_flows *f, const jv_flow *e) {
    int ph = e->phase == 'f';
    JV_CHECK(JV_RESERVE(f->bytes, f->cap, f->len + 30));
    uint8_t *p = f->bytes + f->len;
    /* a ts difference of whole microseconds (the profiler writes whole or fractional us) is kept in us */
    int64_t dt = diff64(e->ts, f->last_ts[ph]);
    int us = dt % 1000 == 0;
    size_t k = put_varint(p, (uint64_t)e->thread << 2 | (uint64_t)us << 1 | (uint64_t)ph);
    k += put_varint(p + k, zz_diff(e->id, f->last_id[ph]));
    k += put_varint(p + k, zz(us ? (uint64_t)(dt / 1000) : (uint64_t)dt));
    f->len += k;
    f->last_id[ph] = e->id;
    f->last_ts[ph] = e->ts;
    f->n++;
    return JV_OK;
}

void jv_flows_free(jv_flows *f) {
    free(f->bytes);
    memset(f, 0, sizeof *f);
}

void jv_flow_iter_init(jv_flow_iter *it, const jv_flows *f) {
    memset(it, 0, sizeof *it);
    it->p = f->bytes;
    it->end = f->bytes ? f->bytes + f->len : NULL;
}

int jv_flow_next(jv_flow_iter *it, jv_flow *out) {
    uint64_t h, di, dt;
    if (!it->p || it->p >= it->end) return 0;
    if (!get_varint(&it->p, it->end, &h) || !get_varint(&it->p, it->end, &di) || !get_varint(&it->p, it->end, &dt))
        return 0; /* cannot happen: jv_flows_add writes whole endpoints */
    int ph = (int)(h & 1);
    it->id[ph] = add64(it->id[ph], unzz(di));
    uint64_t d = unzz(dt);
    if (h & 2) { /* whole microseconds: |d * 1000| is at most the difference written, no overflow */
        int64_t q;
        memcpy(&q, &d, sizeof q);
        d = (uint64_t)(q * 1000);
    }
    it->ts[ph] = add64(it->ts[ph], d);
    *out = (jv_flow){it->id[ph], it->ts[ph], (uint32_t)(h >> 2), ph ? 'f' : 's'};
    return 1;
}

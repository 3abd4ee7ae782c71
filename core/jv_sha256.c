/* jv_sha256: SHA-256 after FIPS 180-4 (see jv_sha256.h). */
#include "jv_sha256.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define JV_SHA_NI 1
#else
#define JV_SHA_NI 0
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n) {
    return (x >> n) | (x << (32 - n));
}

static void block(jv_sha256 *s, const unsigned char *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
    s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

#if JV_SHA_NI
/* 1 when the CPU has the SHA extensions (CPUID leaf 7, EBX bit 29) and SSE4.1 (leaf 1, ECX bit 19) */
static int cpu_has_sha(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 19))) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b >> 29) & 1;
}

/* n blocks at p with the SHA extensions: per 4 rounds, sha256rnds2 twice (two rounds each) on the state held as
 * (A,B,E,F) and (C,D,G,H); the message schedule by sha256msg1 / sha256msg2 (FIPS 180-4 section 6.2.2). */
__attribute__((target("sha,sse4.1"))) static void blocks_ni(jv_sha256 *s, const unsigned char *p, size_t n) {
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i t = _mm_loadu_si128((const __m128i *)&s->h[0]);   /* D C B A (lane 3..0) */
    __m128i st1 = _mm_loadu_si128((const __m128i *)&s->h[4]); /* H G F E */
    t = _mm_shuffle_epi32(t, 0xB1);                           /* C D A B */
    st1 = _mm_shuffle_epi32(st1, 0x1B);                       /* E F G H */
    __m128i st0 = _mm_alignr_epi8(t, st1, 8);                 /* A B E F */
    st1 = _mm_blend_epi16(st1, t, 0xF0);                      /* C D G H */
    for (; n > 0; n--, p += 64) {
        __m128i save0 = st0, save1 = st1, m[4];
        for (int i = 0; i < 16; i++) {
            __m128i w;
            if (i < 4) {
                w = m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
            } else { /* W[t..t+3] from W[t-16..t-1], t = 4i */
                __m128i x = _mm_sha256msg1_epu32(m[i % 4], m[(i + 1) % 4]);
                x = _mm_add_epi32(x, _mm_alignr_epi8(m[(i + 3) % 4], m[(i + 2) % 4], 4));
                w = m[i % 4] = _mm_sha256msg2_epu32(x, m[(i + 3) % 4]);
            }
            __m128i k = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)&K[4 * i]));
            st1 = _mm_sha256rnds2_epu32(st1, st0, k);
            st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(k, 0x0E));
        }
        st0 = _mm_add_epi32(st0, save0);
        st1 = _mm_add_epi32(st1, save1);
    }
    t = _mm_shuffle_epi32(st0, 0x1B);    /* F E B A */
    st1 = _mm_shuffle_epi32(st1, 0xB1);  /* D C H G */
    st0 = _mm_blend_epi16(t, st1, 0xF0); /* D C B A */
    st1 = _mm_alignr_epi8(st1, t, 8);    /* H G F E */
    _mm_storeu_si128((__m128i *)&s->h[0], st0);
    _mm_storeu_si128((__m128i *)&s->h[4], st1);
}
#endif

/* n blocks at p */
static void blocks(jv_sha256 *s, const unsigned char *p, size_t n) {
#if JV_SHA_NI
    if (s->ni) {
        blocks_ni(s, p, n);
        return;
    }
#endif
    for (; n > 0; n--, p += 64)
        block(s, p);
}

/* (contract in jv_sha256.h) */
void jv_sha256_use_portable(jv_sha256 *s) {
    s->ni = 0;
}

void jv_sha256_init(jv_sha256 *s) {
    static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, H0, sizeof H0);
    s->len = 0;
    s->nbuf = 0;
#if JV_SHA_NI
    s->ni = cpu_has_sha();
#else
    s->ni = 0;
#endif
}

void jv_sha256_update(jv_sha256 *s, const void *data, size_t n) {
    const unsigned char *p = data;
    s->len += n;
    if (s->nbuf) {
        size_t k = 64 - s->nbuf < n ? 64 - s->nbuf : n;
        memcpy(s->buf + s->nbuf, p, k);
        s->nbuf += k, p += k, n -= k;
        if (s->nbuf < 64) return;
        blocks(s, s->buf, 1);
        s->nbuf = 0;
    }
    blocks(s, p, n / 64);
    p += n / 64 * 64;
    n %= 64;
    memcpy(s->buf, p, n);
    s->nbuf = n;
}

void jv_sha256_final(jv_sha256 *s, char hex[65]) {
    uint64_t bits = s->len * 8;
    unsigned char pad[72] = {0x80};
    size_t padn = (s->nbuf < 56 ? 56 : 120) - s->nbuf;
    for (int i = 0; i < 8; i++)
        pad[padn + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    jv_sha256_update(s, pad, padn + 8);
    for (int i = 0; i < 8; i++)
        snprintf(hex + 8 * i, 9, "%08x", (unsigned)s->h[i]);
}

jv_status jv_sha256_file(const char *path, char hex[65], uint64_t *size, jv_err *err) {
    FILE *f = fopen(path, "rb");
    if (!f) JV_FAIL(err, JV_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    jv_sha256 s;
    jv_sha256_init(&s);
    unsigned char *buf = malloc(1 << 20);
    if (!buf) {
        fclose(f);
        JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
    }
    size_t n;
    while ((n = fread(buf, 1, 1 << 20, f)) > 0)
        jv_sha256_update(&s, buf, n);
    int bad = ferror(f);
    free(buf);
    fclose(f);
    if (bad) JV_FAIL(err, JV_ERR_IO, "%s: read error", path);
    if (size) *size = s.len;
    jv_sha256_final(&s, hex);
    return JV_OK;
}

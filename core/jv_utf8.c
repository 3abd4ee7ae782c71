/* jv_utf8: validation and repair (see jv_utf8.h). */
#include "jv_utf8.h"

#include <stdint.h>
#include <string.h>

/* Length of the valid sequence at s[0..n) (1..4), or 0 when it is invalid;
 * then *part gets the length of its maximal invalid subpart (>= 1). */
static size_t seq_len(const unsigned char *s, size_t n, size_t *part) {
    unsigned c = s[0];
    size_t want;
    unsigned lo = 0x80, hi = 0xBF; /* the range of the second byte */
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF)
        want = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        want = 3;
        if (c == 0xE0) lo = 0xA0; /* overlong */
        if (c == 0xED) hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        want = 4;
        if (c == 0xF0) lo = 0x90; /* overlong */
        if (c == 0xF4) hi = 0x8F; /* above U+10FFFF */
    } else {
        *part = 1;
        return 0;
    }
    size_t k = 1;
    for (; k < want; k++) {
        if (k >= n) break;
        unsigned b = s[k];
        if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) break;
    }
    if (k == want) return want;
    *part = k;
    return 0;
}

size_t jv_utf8_valid_prefix(const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (u[i] < 0x80) { /* ASCII runs are the common case: 8 bytes at a time */
            uint64_t w;
            while (i + 8 <= n && (memcpy(&w, u + i, 8), !(w & UINT64_C(0x8080808080808080))))
                i += 8;
            if (i < n && u[i] < 0x80) i++;
            continue;
        }
        size_t part, l = seq_len(u + i, n - i, &part);
        if (!l) return i;
        i += l;
    }
    return n;
}

size_t jv_utf8_repair(const char *s, size_t n, char *dst, size_t *replaced) {
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, o = 0, rep = 0;
    while (i < n) {
        size_t part = 0, l = u[i] < 0x80 ? 1 : seq_len(u + i, n - i, &part);
        if (l) {
            memcpy(dst + o, s + i, l);
            o += l;
            i += l;
            continue;
        }
        memcpy(dst + o, "\xEF\xBF\xBD", 3);
        o += 3;
        i += part;
        rep++;
    }
    if (replaced) *replaced = rep;
    return o;
}

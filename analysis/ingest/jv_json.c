/* jv_json: the cursor parser. No recursion (nesting uses a small explicit
 * stack), no allocation; hostile input ends in JV_J_BAD with a message. */
#include "jv_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
/* JV_JSON_PORTABLE=1 builds the portable paths (word-at-a-time where the byte order is known, else byte by
 * byte) on every CPU, so that a test can check them on x86-64 too (tests/unit: test_json*_portable). */
#if defined(__SSE2__) && !(defined(JV_JSON_PORTABLE) && JV_JSON_PORTABLE)
#define JV_JSON_SSE2 1
#include <emmintrin.h>
#endif
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JV_JSON_SWAR 1
#endif
#ifdef JV_JSON_SWAR
#define SWAR_ONES UINT64_C(0x0101010101010101)
#define SWAR_LOW7 UINT64_C(0x7F7F7F7F7F7F7F7F)
#define SWAR_HIGH (~SWAR_LOW7)
#endif
#if !defined(JV_JSON_SSE2) && defined(JV_JSON_SWAR)
/* the high bit of each byte of x that equals b (an exact per-byte test: no carry crosses a byte) */
static inline uint64_t swar_eq(uint64_t x, unsigned char b) {
    uint64_t y = x ^ (SWAR_ONES * b);
    return ~(((y & SWAR_LOW7) + SWAR_LOW7) | y) & SWAR_HIGH;
}
#endif

void jv_json_init(jv_jcur *c, const char *p, const char *end, int final) {
    c->p = p;
    c->end = end;
    c->final = final;
    c->err = NULL;
    c->err_p = NULL;
}

static jv_jres bad(jv_jcur *c, const char *at, const char *msg) {
    c->err = msg;
    c->err_p = at;
    return JV_J_BAD;
}

static jv_jres more(jv_jcur *c) {
    if (c->final) return bad(c, c->end, "unexpected end of input (truncated file?)");
    return JV_J_MORE;
}

static inline int is_ws(unsigned char ch) {
    return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t';
}

/* The first byte of [p, end) that is not JSON whitespace (space, \n, \r, \t), or end: 16 bytes a step with SSE2,
 * 8 with the word-at-a-time path, then byte by byte. Kineto indents its traces: runs of 5-13 blanks. */
static inline __attribute__((always_inline)) const char *skip_ws_run(const char *p, const char *end) {
#ifdef JV_JSON_SSE2
    const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), tb = _mm_set1_epi8('\t');
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i w = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tb)));
        unsigned m = (unsigned)_mm_movemask_epi8(w) ^ 0xFFFFu; /* the bytes that are not whitespace */
        if (m) return p + __builtin_ctz(m);
        p += 16;
    }
#elif defined(JV_JSON_SWAR)
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, sizeof x);
        uint64_t w = swar_eq(x, ' ') | swar_eq(x, '\n') | swar_eq(x, '\r') | swar_eq(x, '\t');
        uint64_t m = ~w & SWAR_HIGH; /* the bytes that are not whitespace */
        if (m) return p + __builtin_ctzll(m) / 8;
        p += 8;
    }
#endif
    while (p < end && is_ws((unsigned char)*p))
        p++;
    return p;
}

static inline jv_jres ws(jv_jcur *c) {
    const char *p = c->p, *end = c->end;
    if (p < end && (unsigned char)*p > ' ') return JV_J_OK;       /* no whitespace: the common case inside a line */
    if (end - p >= 2 && *p == ' ' && (unsigned char)p[1] > ' ') { /* one blank (after ',' or ':') */
        c->p = p + 1;
        return JV_J_OK;
    }
    c->p = p = skip_ws_run(p, end);
    return p < c->end ? JV_J_OK : more(c);
}

const char *jv_json_skip_ws(const char *p, const char *end) {
    return skip_ws_run(p, end);
}

jv_jres jv_json_peek(jv_jcur *c, char *ch) {
    jv_jres r = ws(c);
    if (r != JV_J_OK) return r;
    *ch = *c->p;
    return JV_J_OK;
}

jv_jres jv_json_expect(jv_jcur *c, char ch) {
    jv_jres r = ws(c);
    if (r != JV_J_OK) return r;
    if (*c->p != ch) {
        static const char *const msgs[] = {"expected '{'", "expected '}'", "expected '['",        "expected ']'",
                                           "expected ':'", "expected ','", "unexpected character"};
        int i = ch == '{' ? 0 : ch == '}' ? 1 : ch == '[' ? 2 : ch == ']' ? 3 : ch == ':' ? 4 : ch == ',' ? 5 : 6;
        return bad(c, c->p, msgs[i]);
    }
    c->p++;
    return JV_J_OK;
}

static inline int hexval(unsigned char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* The bytes a string scan must stop at (a quote, a backslash, a control byte below 0x20) among the 16 bytes at p
 * with SSE2 (bit k: byte k), or the 8 at p on the word-at-a-time path (the high bit of byte k); for scan_string
 * and scan_string_short alike. */
#ifdef JV_JSON_SSE2
static inline unsigned stop_mask(const char *p) {
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1F);
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                               _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl)); /* byte <= 0x1F */
    return (unsigned)_mm_movemask_epi8(hit);
}
#elif defined(JV_JSON_SWAR)
static inline uint64_t stop_mask(const char *p) {
    uint64_t x;
    memcpy(&x, p, sizeof x);
    /* '"', '\\', and below 0x20 (high bit clear and low 7 bits + 0x60 < 0x80) */
    return swar_eq(x, '"') | swar_eq(x, '\\') | (~(((x & SWAR_LOW7) + SWAR_ONES * 0x60) | x) & SWAR_HIGH);
}
#endif

/* c->p at the opening quote; the bytes from there to from are plain (neither a quote, a backslash nor a control
 * byte): the scan goes on at from. */
static jv_jres scan_string(jv_jcur *c, jv_jstr *out, const char *from) {
    const char *p = from, *end = c->end;
    int escaped = 0;
    for (;;) {
        /* fast path: plain bytes, 16 at a time where the CPU has SSE2 (every x86-64), then one at a time */
#ifdef JV_JSON_SSE2
        while (end - p >= 16) {
            unsigned m = stop_mask(p);
            if (m) {
                p += __builtin_ctz(m);
                goto stop;
            }
            p += 16;
        }
#elif defined(JV_JSON_SWAR)
        while (end - p >= 8) {
            uint64_t m = stop_mask(p);
            if (m) {
                p += __builtin_ctzll(m) / 8;
                goto stop;
            }
            p += 8;
        }
#endif
        while (p < end) {
            unsigned char ch = (unsigned char)*p;
            if (ch == '"' || ch == '\\' || ch < 0x20) goto stop;
            p++;
        }
        return more(c);
    stop:; /* p at a quote, a backslash or a control byte */
        unsigned char ch = (unsigned char)*p;
        if (ch == '"') break;
        if (ch < 0x20) return bad(c, p, ch == 0 ? "NUL byte inside a string" : "control character inside a string");
        /* backslash */
        escaped = 1;
        if (p + 1 >= end) return more(c);
        switch (p[1]) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't': p += 2; break;
        case 'u':
            if (end - p < 6) return more(c);
            for (int i = 2; i < 6; i++)
                if (hexval((unsigned char)p[i]) < 0) return bad(c, p, "bad \\u escape in a string");
            p += 6;
            break;
        default: return bad(c, p, "bad escape in a string");
        }
    }
    if (out) {
        out->s = c->p + 1;
        out->n = (size_t)(p - (c->p + 1));
        out->escaped = escaped;
    }
    c->p = p + 1;
    return JV_J_OK;
}

/* scan_string for c->p at the opening quote, inline for the common short string: one that ends, unescaped,
 * within the 16 bytes (SSE2) or 8 bytes (word at a time) after the quote; any other goes on in scan_string from
 * the first byte it must look at. Keys and most values of a trace entry are short. */
static inline jv_jres scan_string_short(jv_jcur *c, jv_jstr *out) {
    const char *p = c->p + 1;
    unsigned i;
#ifdef JV_JSON_SSE2
    if (c->end - p < 16) return scan_string(c, out, p);
    unsigned m = stop_mask(p);
    if (!m) return scan_string(c, out, p + 16);
    i = (unsigned)__builtin_ctz(m);
#elif defined(JV_JSON_SWAR)
    if (c->end - p < 8) return scan_string(c, out, p);
    uint64_t m = stop_mask(p);
    if (!m) return scan_string(c, out, p + 8);
    i = (unsigned)__builtin_ctzll(m) / 8;
#else
    return scan_string(c, out, p);
#endif
#if defined(JV_JSON_SSE2) || defined(JV_JSON_SWAR)
    if (p[i] != '"') return scan_string(c, out, p + i); /* an escape or a control byte */
    if (out) {
        out->s = p;
        out->n = i;
        out->escaped = 0;
    }
    c->p = p + i + 1;
    return JV_J_OK;
#endif
}

jv_jres jv_json_string(jv_jcur *c, jv_jstr *out) {
    jv_jres r = ws(c);
    if (r != JV_J_OK) return r;
    if (*c->p != '"') return bad(c, c->p, "expected a string");
    return scan_string_short(c, out);
}

/* c->p at the first byte of a number. */
static jv_jres scan_number(jv_jcur *c) {
    const char *p = c->p, *end = c->end;
#define NEED()                                                                                                         \
    do {                                                                                                               \
        if (p >= end) return more(c);                                                                                  \
    } while (0)
    if (*p == '-') {
        p++;
        NEED();
    }
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    } else {
        return bad(c, p, "invalid number");
    }
    if (p < end && *p == '.') {
        p++;
        NEED();
        if (!(*p >= '0' && *p <= '9')) return bad(c, p, "invalid number: no digit after '.'");
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        NEED();
        if (*p == '+' || *p == '-') {
            p++;
            NEED();
        }
        if (!(*p >= '0' && *p <= '9')) return bad(c, p, "invalid number: bad exponent");
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    /* a number is only complete when a delimiter follows (or the input ends) */
    if (p >= end && !c->final) return JV_J_MORE;
#undef NEED
    c->p = p;
    return JV_J_OK;
}

jv_jres jv_json_number(jv_jcur *c, const char **s, size_t *n) {
    jv_jres r = ws(c);
    if (r != JV_J_OK) return r;
    const char *start = c->p;
    r = scan_number(c);
    if (r != JV_J_OK) return r;
    *s = start;
    *n = (size_t)(c->p - start);
    return JV_J_OK;
}

#ifdef JV_JSON_SWAR
/* The count k (0 to 8) of the ASCII digits that begin the 8 bytes at p, and in *v the value of those k digits
 * (0 when k is 0): one little-endian word, the per-byte digit test exact (no carry crosses a byte), then D.
 * Lemire's 8-digit conversion of the k digits shifted to the word's end behind zero digits. */
static inline unsigned digits_word(const char *p, uint32_t *v) {
    uint64_t x;
    memcpy(&x, p, sizeof x);
    uint64_t d = x ^ UINT64_C(0x3030303030303030);                                   /* a digit's byte is now 0 to 9 */
    uint64_t m = (((d & SWAR_LOW7) + UINT64_C(0x7676767676767676)) | d) & SWAR_HIGH; /* bytes above 9 */
    unsigned k = m ? (unsigned)__builtin_ctzll(m) / 8 : 8;
    if (k == 0) {
        *v = 0;
        return 0;
    }
    d <<= 8 * (8 - k);
    d = d * 10 + (d >> 8); /* 2-digit values in bytes 0, 2, 4, 6 */
    const uint64_t mask = UINT64_C(0x000000FF000000FF);
    d = ((d & mask) * UINT64_C(0x000F424000000064) + ((d >> 16) & mask) * UINT64_C(0x0000271000000001)) >> 32;
    *v = (uint32_t)d;
    return k;
}
#endif

jv_jres jv_json_number_u(jv_jcur *c, const char **s, size_t *n, uint64_t *v, int *plain) {
    jv_jres r = ws(c);
    if (r != JV_J_OK) return r;
    const char *p = c->p, *q = p, *end = c->end;
    *plain = 0;
    if (*p >= '1' && *p <= '9') { /* digits and their value in one pass: a delimiter follows, or the input ends */
        uint64_t x = 0;
#ifdef JV_JSON_SWAR
        static const uint32_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
        while (end - q >= 8 && q - p <= 8) { /* a word at a time (16-digit timestamps: two), then byte by byte */
            uint32_t w;
            unsigned k = digits_word(q, &w);
            x = x * pow10[k] + w;
            q += k;
            if (k < 8) break;
        }
#endif
        while (q < end && q - p <= 18 && (unsigned char)(*q - '0') <= 9)
            x = x * 10 + (uint64_t)(*q++ - '0');
        if (q - p <= 18 &&
            (q < end ? *q != '.' && *q != 'e' && *q != 'E' && (unsigned char)(*q - '0') > 9 : c->final)) {
            *s = p;
            *n = (size_t)(q - p);
            *v = x;
            *plain = 1;
            c->p = q;
            return JV_J_OK;
        }
    }
    return jv_json_number(c, s, n);
}

static jv_jres scan_literal(jv_jcur *c, const char *lit, size_t n) {
    size_t avail = (size_t)(c->end - c->p);
    size_t k = avail < n ? avail : n;
    if (memcmp(c->p, lit, k) != 0) return bad(c, c->p, "invalid literal");
    if (k < n) return more(c);
    c->p += n;
    return JV_J_OK;
}

jv_jres jv_json_skip(jv_jcur *c, const char **s, size_t *n) {
    char stack[JV_JSON_MAX_DEPTH];
    int depth = 0;
    int need_value = 1; /* expecting a value (vs a ',' or closer) */
    jv_jres r = ws(c);
    if (r != JV_J_OK) return r;
    const char *start = c->p;
    char ch0 = *start;
    if (ch0 == '"' || ch0 == '-' || (ch0 >= '0' && ch0 <= '9')) { /* a scalar: no stack (the loop's first step) */
        r = ch0 == '"' ? scan_string_short(c, NULL) : scan_number(c);
        if (r != JV_J_OK) return r;
        if (s) *s = start;
        if (n) *n = (size_t)(c->p - start);
        return JV_J_OK;
    }
    for (;;) {
        r = ws(c);
        if (r != JV_J_OK) return r;
        char ch = *c->p;
        if (need_value) {
            switch (ch) {
            case '{':
            case '[':
                if (depth >= JV_JSON_MAX_DEPTH) return bad(c, c->p, "nesting deeper than 512 levels");
                stack[depth++] = ch;
                c->p++;
                r = ws(c);
                if (r != JV_J_OK) return r;
                if (*c->p == (ch == '{' ? '}' : ']')) {
                    c->p++;
                    depth--;
                    need_value = 0;
                    break;
                }
                if (ch == '{') {
                    r = jv_json_string(c, NULL);
                    if (r != JV_J_OK) return r;
                    r = jv_json_expect(c, ':');
                    if (r != JV_J_OK) return r;
                }
                continue;
            case '"': r = scan_string_short(c, NULL); break;
            case 't': r = scan_literal(c, "true", 4); break;
            case 'f': r = scan_literal(c, "false", 5); break;
            case 'n': r = scan_literal(c, "null", 4); break;
            default:
                if (ch == '-' || (ch >= '0' && ch <= '9'))
                    r = scan_number(c);
                else
                    return bad(c, c->p, ch == 0 ? "NUL byte where a value was expected" : "expected a value");
            }
            if (r != JV_J_OK) return r;
            need_value = 0;
        } else {
            if (depth == 0) break;
            char open = stack[depth - 1];
            if (ch == ',') {
                c->p++;
                if (open == '{') {
                    r = jv_json_string(c, NULL);
                    if (r != JV_J_OK) return r;
                    r = jv_json_expect(c, ':');
                    if (r != JV_J_OK) return r;
                }
                need_value = 1;
            } else if (ch == (open == '{' ? '}' : ']')) {
                c->p++;
                depth--;
            } else {
                return bad(c, c->p, open == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
            }
        }
        if (depth == 0 && !need_value) break;
    }
    if (s) *s = start;
    if (n) *n = (size_t)(c->p - start);
    return JV_J_OK;
}

static inline jv_jres member(jv_jcur *c, int *first, jv_jstr *key) {
    jv_jres r = ws(c);
    if (r != JV_J_OK) return r;
    if (*c->p == '}') {
        c->p++;
        return JV_J_END;
    }
    if (!*first) {
        if (*c->p != ',') return bad(c, c->p, "expected ',' or '}'");
        c->p++;
    }
    r = jv_json_string(c, key);
    if (r != JV_J_OK) return r;
    if (c->p < c->end && *c->p == ':') /* the common "key": */
        c->p++;
    else if ((r = jv_json_expect(c, ':')) != JV_J_OK)
        return r;
    *first = 0;
    return JV_J_OK;
}

jv_jres jv_json_member(jv_jcur *c, int *first, jv_jstr *key) {
    return member(c, first, key);
}

jv_jres jv_json_member_value(jv_jcur *c, int *first, jv_jstr *key, char *ch) {
    jv_jres r = member(c, first, key);
    if (r != JV_J_OK) return r;
    r = ws(c);
    if (r != JV_J_OK) return r;
    *ch = *c->p;
    return JV_J_OK;
}

jv_jres jv_json_element(jv_jcur *c, int *first) {
    jv_jres r = ws(c);
    if (r != JV_J_OK) return r;
    if (*c->p == ']') {
        c->p++;
        return JV_J_END;
    }
    if (!*first) {
        if (*c->p != ',') return bad(c, c->p, "expected ',' or ']'");
        c->p++;
    }
    *first = 0;
    return ws(c);
}

static size_t put_utf8(char *d, unsigned cp) {
    if (cp < 0x80) {
        d[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        d[0] = (char)(0xC0 | (cp >> 6));
        d[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        d[0] = (char)(0xE0 | (cp >> 12));
        d[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        d[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    d[0] = (char)(0xF0 | (cp >> 18));
    d[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    d[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    d[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static unsigned hex4(const char *s) {
    return (unsigned)(hexval((unsigned char)s[0]) << 12 | hexval((unsigned char)s[1]) << 8 |
                      hexval((unsigned char)s[2]) << 4 | hexval((unsigned char)s[3]));
}

size_t jv_json_unescape(const char *s, size_t n, char *dst) {
    size_t i = 0, o = 0;
    while (i < n) {
        if (s[i] != '\\') {
            dst[o++] = s[i++];
            continue;
        }
        char e = s[i + 1];
        i += 2;
        switch (e) {
        case 'b': dst[o++] = '\b'; break;
        case 'f': dst[o++] = '\f'; break;
        case 'n': dst[o++] = '\n'; break;
        case 'r': dst[o++] = '\r'; break;
        case 't': dst[o++] = '\t'; break;
        case 'u': {
            unsigned cp = hex4(s + i);
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
                unsigned lo = hex4(s + i + 2);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                } else {
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xD800 && cp <= 0xDFFF) {
                cp = 0xFFFD;
            }
            o += put_utf8(dst + o, cp);
            break;
        }
        default: dst[o++] = e; break; /* '"', '\\', '/' */
        }
    }
    return o;
}

int jv_jstr_eq(const jv_jstr *a, const char *lit) {
    size_t n = strlen(lit);
    return a->n == n && memcmp(a->s, lit, n) == 0;
}

int jv_json_us_to_ns(const char *s, size_t n, int64_t *out) {
    /* fast exact path: [-]digits[.digits] */
    size_t i = 0;
    int neg = 0;
    if (i < n && s[i] == '-') {
        neg = 1;
        i++;
    }
    uint64_t ip = 0;
    size_t nd = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (++nd > 16) goto slow; /* 1e16 us and more: out of range below */
        ip = ip * 10 + (uint64_t)(s[i++] - '0');
    }
    uint64_t frac = 0;
    int fd = 0, round_up = 0;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (fd < 3) {
                frac = frac * 10 + (uint64_t)(s[i] - '0');
                fd++;
            } else if (fd == 3) {
                round_up = s[i] >= '5';
                fd++;
            }
            i++;
        }
    }
    if (i != n) goto slow;
    if (ip > UINT64_C(9223372036854774)) return 0; /* ns would overflow int64 */
    if (fd > 3) fd = 3;
    while (fd < 3) {
        frac *= 10;
        fd++;
    }
    int64_t v = (int64_t)(ip * 1000 + frac + (uint64_t)round_up);
    *out = neg ? -v : v;
    return 1;
slow : {
    char buf[64];
    if (n >= sizeof buf) return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    double d = strtod(buf, NULL) * 1000.0;
    if (!isfinite(d) || fabs(d) >= 9.2e18) return 0;
    *out = (int64_t)llround(d);
    return 1;
}
}

int jv_json_int64(const char *s, size_t n, int64_t *out) {
    size_t i = 0;
    int neg = 0;
    if (i < n && s[i] == '-') {
        neg = 1;
        i++;
    }
    if (i == n) return 0;
    uint64_t v = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned dgt = (unsigned)(s[i] - '0');
        if (v > (UINT64_C(9223372036854775807) - dgt) / 10) return 0;
        v = v * 10 + dgt;
    }
    if (i < n && s[i] == '.') { /* accept 7.0 */
        for (i++; i < n && s[i] == '0'; i++) {
        }
    }
    if (i != n) return 0;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 1;
}

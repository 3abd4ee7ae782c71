/* test_json: unit tests for the jv_json cursor (analysis/jv_json.h): valid
 * values, strings and their escapes, numbers (us_to_ns, int64). Nesting,
 * truncation and iteration: test_json_stream.c; the helpers: test_json.h.
 * Plain C11, no framework. Every input is copied into a heap buffer of its
 * exact length, so a read past the end of the range is caught by ASan.
 * Prints "N passed, N failed" as the last line; exits 1 on any failure. */
#include "test_json.h"

#include "jv_utf8.h"
/* ---------- valid values ---------- */

static void test_valid_values(void) {
    static const char *const vals[] = {
        "null",
        "true",
        "false",
        "0",
        "-0",
        "7",
        "-12",
        "3.25",
        "1e10",
        "1E+10",
        "-2.5e-3",
        "0.0e0",
        "\"\"",
        "\"abc\"",
        "\"caf\xc3\xa9\"",
        "[]",
        "{}",
        "[ ]",
        "{ }",
        "[1,2,3]",
        "[null,true,false]",
        "{\"a\":1}",
        "{\"a\":[1,{\"b\":\"c\"}],\"d\":{}}",
        "[[[[]]]]",
        "[{\"\":[]}]",
        " \t\r\n[ 1 , \"x\" , { \"k\" : null } ]",
    };
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
        const char *v = vals[i];
        size_t n = strlen(v), used = 0;
        const char *err = NULL;
        jv_jres r = skip_n(v, n, 1, &err, &used);
        CHECK_MSG(r == JV_J_OK, "skip(%s) final=1 -> %s (%s)", v, res_name(r), err ? err : "");
        CHECK_MSG(used == n, "skip(%s) consumed %zu of %zu", v, used, n);
    }
    /* the raw text of the value is returned without leading whitespace */
    {
        const char *doc = "  [1, \"a\"]  ,";
        char *b = dup_n(doc, strlen(doc));
        jv_jcur c;
        jv_json_init(&c, b, b + strlen(doc), 0);
        const char *s = NULL;
        size_t n = 0;
        jv_jres r = jv_json_skip(&c, &s, &n);
        CHECK_MSG(r == JV_J_OK, "skip with trailing comma after value -> %s", res_name(r));
        CHECK_MSG(s == b + 2 && n == 8, "skip raw span: offset %td length %zu", s ? s - b : -1, n);
        CHECK_MSG(c.p == b + 10, "skip stops right after the value (at %td)", c.p - b);
        free(b);
    }
    /* a number only ends at a delimiter: with more input possible it needs more */
    CHECK_MSG(skip_s("123", 0, NULL) == JV_J_MORE, "skip(123) final=0 needs more");
    CHECK_MSG(skip_s("123 ", 0, NULL) == JV_J_OK, "skip(123 ) final=0 is OK");
    CHECK_MSG(skip_s("123", 1, NULL) == JV_J_OK, "skip(123) final=1 is OK");
    CHECK_MSG(skip_s("true", 0, NULL) == JV_J_OK, "skip(true) final=0 is OK");
    CHECK_MSG(skip_s("tru", 0, NULL) == JV_J_MORE, "skip(tru) final=0 needs more");
    CHECK_MSG(skip_s("nul", 1, NULL) == JV_J_BAD, "skip(nul) final=1 is BAD");
    CHECK_MSG(skip_s("nulx", 0, NULL) == JV_J_BAD, "skip(nulx) is BAD");
    CHECK_MSG(skip_s("nan", 1, NULL) == JV_J_BAD, "skip(nan) is BAD");
    CHECK_MSG(skip_s("NaN", 1, NULL) == JV_J_BAD, "skip(NaN) is BAD");
    CHECK_MSG(skip_s("Infinity", 1, NULL) == JV_J_BAD, "skip(Infinity) is BAD");
    CHECK_MSG(skip_s("[truex]", 1, NULL) == JV_J_BAD, "skip([truex]) is BAD");
    CHECK_MSG(skip_s("'a'", 1, NULL) == JV_J_BAD, "skip('a') is BAD");
    CHECK_MSG(skip_s("", 0, NULL) == JV_J_MORE, "skip(empty) final=0 needs more");
    CHECK_MSG(skip_s("", 1, NULL) == JV_J_BAD, "skip(empty) final=1 is BAD");
    CHECK_MSG(skip_s("   ", 1, NULL) == JV_J_BAD, "skip(spaces) final=1 is BAD");
    CHECK_MSG(skip_s("]", 1, NULL) == JV_J_BAD, "skip(]) is BAD");
    CHECK_MSG(skip_s("}", 1, NULL) == JV_J_BAD, "skip(}) is BAD");
    CHECK_MSG(skip_s("[1}", 1, NULL) == JV_J_BAD, "skip([1}) is BAD");
    CHECK_MSG(skip_s("{\"a\":1]", 1, NULL) == JV_J_BAD, "skip({\"a\":1]) is BAD");
    CHECK_MSG(skip_n("[\0]", 3, 1, NULL, NULL) == JV_J_BAD, "NUL byte where a value is expected is BAD");

    /* peek / expect / string / number directly */
    {
        const char *doc = " \n x";
        char *b = dup_n(doc, 4);
        jv_jcur c;
        jv_json_init(&c, b, b + 4, 1);
        char ch = 0;
        CHECK_MSG(jv_json_peek(&c, &ch) == JV_J_OK && ch == 'x', "peek skips whitespace");
        CHECK_MSG(c.p == b + 3, "peek does not consume the byte");
        CHECK_MSG(jv_json_expect(&c, 'y') == JV_J_BAD && c.err, "expect mismatch is BAD with a message");
        jv_json_init(&c, b, b + 4, 1);
        CHECK_MSG(jv_json_expect(&c, 'x') == JV_J_OK && c.p == b + 4, "expect consumes the byte");
        CHECK_MSG(jv_json_peek(&c, &ch) == JV_J_BAD && c.err, "peek at the end with final=1 is BAD");
        jv_json_init(&c, b, b + 3, 0);
        CHECK_MSG(jv_json_peek(&c, &ch) == JV_J_MORE, "peek over whitespace only with final=0 needs more");
        free(b);
    }
    {
        const char *doc = "  \"hello\" -12.5e+3,";
        size_t n = strlen(doc);
        char *b = dup_n(doc, n);
        jv_jcur c;
        jv_json_init(&c, b, b + n, 0);
        jv_jstr s;
        CHECK_MSG(jv_json_string(&c, &s) == JV_J_OK, "string reads");
        CHECK_MSG(s.n == 5 && !memcmp(s.s, "hello", 5) && !s.escaped, "string token is the raw bytes");
        CHECK_MSG(jv_jstr_eq(&s, "hello"), "jv_jstr_eq equal");
        CHECK_MSG(!jv_jstr_eq(&s, "hell"), "jv_jstr_eq prefix is not equal");
        CHECK_MSG(!jv_jstr_eq(&s, "hello!"), "jv_jstr_eq longer is not equal");
        const char *ns = NULL;
        size_t nn = 0;
        CHECK_MSG(jv_json_number(&c, &ns, &nn) == JV_J_OK && nn == 8 && !memcmp(ns, "-12.5e+3", 8), "number reads");
        CHECK_MSG(jv_json_string(&c, &s) == JV_J_BAD && c.err, "string at ',' is BAD");
        free(b);
    }
}

/* ---------- strings ---------- */

typedef struct {
    const char *json; /* a JSON string token including quotes */
    const char *out;  /* expected decoded bytes */
    size_t out_n;
} esc_case;

static void test_string_escapes(void) {
    static const esc_case cases[] = {
        {"\"plain\"", "plain", 5},
        {"\"\\\"\"", "\"", 1},
        {"\"\\\\\"", "\\", 1},
        {"\"\\/\"", "/", 1},
        {"\"\\b\\f\\n\\r\\t\"", "\b\f\n\r\t", 5},
        {"\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"", "a\"b\\c/d\be\ff\ng\rh\ti", 17},
        {"\"\\u0041\"", "A", 1},
        {"\"\\u0000\"", "\0", 1},
        {"\"\\u007f\"", "\x7f", 1},
        {"\"\\u0080\"", "\xc2\x80", 2},
        {"\"\\u00e9\"", "\xc3\xa9", 2},
        {"\"\\u00E9\"", "\xc3\xa9", 2},
        {"\"\\u07FF\"", "\xdf\xbf", 2},
        {"\"\\u0800\"", "\xe0\xa0\x80", 3},
        {"\"\\u20AC\"", "\xe2\x82\xac", 3},
        {"\"\\uFFFF\"", "\xef\xbf\xbf", 3},
        {"\"\\uD83D\\uDE00\"", "\xf0\x9f\x98\x80", 4}, /* U+1F600 */
        {"\"\\ud834\\udd1e\"", "\xf0\x9d\x84\x9e", 4}, /* U+1D11E */
        {"\"\\uD800\\uDC00\"", "\xf0\x90\x80\x80", 4}, /* U+10000 */
        {"\"\\uDBFF\\uDFFF\"", "\xf4\x8f\xbf\xbf", 4}, /* U+10FFFF */
        {"\"\\uD800x\"", "\xef\xbf\xbdx", 4},          /* lone high surrogate */
        {"\"\\uD800\"", "\xef\xbf\xbd", 3},            /* lone high at the end */
        {"\"\\uDC00\"", "\xef\xbf\xbd", 3},            /* lone low surrogate */
        {"\"\\uD800\\u0041\"",
         "\xef\xbf\xbd"
         "A",
         4}, /* high + non-low */
        {"\"\\uD800\\uD800\\uDC00\"", "\xef\xbf\xbd\xf0\x90\x80\x80", 7},
        {"\"x\\u00e9y\\n\"", "x\xc3\xa9y\n", 5},
        {"\"caf\xc3\xa9\"", "caf\xc3\xa9", 5}, /* raw UTF-8 passes through */
        {"\"\x7f\"", "\x7f", 1},               /* DEL is not a control char in JSON */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const esc_case *k = &cases[i];
        size_t n = strlen(k->json);
        char *b = dup_n(k->json, n);
        jv_jcur c;
        jv_json_init(&c, b, b + n, 1);
        jv_jstr s = {0};
        jv_jres r = jv_json_string(&c, &s);
        CHECK_MSG(r == JV_J_OK, "string case %zu (%s) -> %s (%s)", i, k->json, res_name(r), c.err ? c.err : "");
        if (r != JV_J_OK) {
            free(b);
            continue;
        }
        CHECK_MSG(c.p == b + n, "string case %zu consumed %td of %zu", i, c.p - b, n);
        CHECK_MSG(s.s == b + 1 && s.n == n - 2, "string case %zu token span", i);
        int want_esc = memchr(k->json, '\\', n) != NULL;
        CHECK_MSG(s.escaped == want_esc, "string case %zu escaped=%d, want %d", i, s.escaped, want_esc);
        /* decode: dst of capacity n bytes suffices */
        char *dst = malloc(s.n ? s.n : 1);
        size_t o = s.escaped ? jv_json_unescape(s.s, s.n, dst) : (memcpy(dst, s.s, s.n), s.n);
        CHECK_MSG(o <= s.n, "string case %zu decoded %zu > raw %zu", i, o, s.n);
        int same = o == k->out_n && memcmp(dst, k->out, o) == 0;
        if (!same) {
            fprintf(stderr, "  case %zu decoded %zu bytes:", i, o);
            for (size_t j = 0; j < o; j++)
                fprintf(stderr, " %02x", (unsigned char)dst[j]);
            fputc('\n', stderr);
        }
        CHECK_MSG(same, "string case %zu (%s) decodes to the expected bytes", i, k->json);
        /* the same token is also accepted by skip */
        CHECK_MSG(skip_n(k->json, n, 1, NULL, NULL) == JV_J_OK, "skip accepts string case %zu", i);
        free(dst);
        free(b);
    }
}

typedef struct {
    const char *json;
    size_t n;      /* 0: strlen */
    size_t bad_at; /* expected err_p offset, (size_t)-1: any */
} bad_case;

static void test_bad_strings(void) {
    static const bad_case cases[] = {
        {"\"\\x\"", 0, 1},
        {"\"\\u12G4\"", 0, 1},
        {"\"\\u12g4\"", 0, 1},
        {"\"\\uZZZZ\"", 0, 1},
        {"\"\\U0041\"", 0, 1},
        {"\"\\'\"", 0, 1},
        {"\"\\a\"", 0, 1},
        {"\"\\0\"", 0, 1},
        {"\"\\ \"", 0, 1},
        {"\"ab\\x\"", 0, 3},
        {"\"a\x01"
         "b\"",
         0, 2},
        {"\"a\nb\"", 0, 2},
        {"\"a\tb\"", 0, 2},
        {"\"a\rb\"", 0, 2},
        {"\"\x1f\"", 0, 1},
        {"\"a\0b\"", 5, 2},
        {"\"\0\"", 3, 1},
        {"\"\\\0\"", 4, 1},
        {"\"\\u00\0\"", 7, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const bad_case *k = &cases[i];
        size_t n = k->n ? k->n : strlen(k->json);
        char *b = dup_n(k->json, n);
        for (int final = 0; final <= 1; final++) {
            jv_jcur c;
            jv_json_init(&c, b, b + n, final);
            jv_jstr s;
            jv_jres r = jv_json_string(&c, &s);
            CHECK_MSG(r == JV_J_BAD, "bad string %zu final=%d -> %s", i, final, res_name(r));
            CHECK_MSG(c.err != NULL && c.err[0], "bad string %zu has a message", i);
            if (k->bad_at != (size_t)-1)
                CHECK_MSG(c.err_p == b + k->bad_at, "bad string %zu: err_p at %td, want %zu", i,
                          c.err_p ? c.err_p - b : -1, k->bad_at);
            const char *err = NULL;
            CHECK_MSG(skip_n(k->json, n, final, &err, NULL) == JV_J_BAD && err, "skip rejects bad string %zu", i);
        }
        free(b);
    }
    /* the messages say what is wrong */
    const char *err = NULL;
    skip_n("\"a\0b\"", 5, 1, &err, NULL);
    CHECK_MSG(err && strstr(err, "NUL"), "NUL in a string: message '%s'", err ? err : "(null)");
    skip_s("\"a\x01\"", 1, &err);
    CHECK_MSG(err && strstr(err, "control"), "control char in a string: message '%s'", err ? err : "(null)");
    skip_s("\"\\x\"", 1, &err);
    CHECK_MSG(err && strstr(err, "escape"), "bad escape: message '%s'", err ? err : "(null)");
    skip_s("\"\\u12G4\"", 1, &err);
    CHECK_MSG(err && strstr(err, "\\u"), "bad \\u escape: message '%s'", err ? err : "(null)");
    /* unterminated */
    CHECK_MSG(skip_s("\"abc", 0, NULL) == JV_J_MORE, "unterminated string final=0 needs more");
    CHECK_MSG(skip_s("\"abc", 1, &err) == JV_J_BAD && err, "unterminated string final=1 is BAD");
    CHECK_MSG(skip_s("\"abc\\", 0, NULL) == JV_J_MORE, "string ending in a backslash final=0 needs more");
    CHECK_MSG(skip_s("\"\\u00", 0, NULL) == JV_J_MORE, "string ending in a partial \\u final=0 needs more");
    CHECK_MSG(skip_s("\"\\u00", 1, &err) == JV_J_BAD, "string ending in a partial \\u final=1 is BAD");
    /* bad strings as object keys */
    CHECK_MSG(skip_s("{\"a\\x\":1}", 1, &err) == JV_J_BAD && err, "bad escape in a key is BAD");
    CHECK_MSG(skip_n("{\"a\0\":1}", 8, 1, &err, NULL) == JV_J_BAD && err, "NUL in a key is BAD");
}

/* ---------- long strings: the 16-byte scan and the 8-byte ASCII check ---------- */

/* Every length 0..40 and every position of one special byte in it: the string's end, escapes, control bytes
 * and NUL found at the right place by the 16-byte fast path (jv_json.c) and its tail loop; bytes >= 0x20 and
 * >= 0x80 pass. And jv_utf8_valid_prefix stops at the first invalid byte wherever it lies in a long run. */
static void test_long_strings(void) {
    for (size_t len = 0; len <= 40; len++) {
        char *b = malloc(len + 3);
        b[0] = '"';
        memset(b + 1, 'a', len);
        b[len + 1] = '"';
        jv_jcur c;
        jv_jstr s;
        jv_json_init(&c, b, b + len + 2, 1);
        CHECK_MSG(jv_json_string(&c, &s) == JV_J_OK && s.n == len && !s.escaped && c.p == b + len + 2,
                  "plain string of %zu bytes", len);
        jv_json_init(&c, b, b + len + 1, 0);
        CHECK_MSG(jv_json_string(&c, &s) == JV_J_MORE, "unterminated string of %zu bytes needs more", len);
        for (size_t k = 0; k < len; k++) {
            static const unsigned char ok[] = {0x20, 0x7F, 0x80, 0xE9, 0xFF, '/', '\''};
            for (size_t j = 0; j < sizeof ok; j++) {
                b[1 + k] = (char)ok[j];
                jv_json_init(&c, b, b + len + 2, 1);
                CHECK_MSG(jv_json_string(&c, &s) == JV_J_OK && s.n == len, "byte 0x%02x at %zu of %zu passes", ok[j], k,
                          len);
            }
            b[1 + k] = '"'; /* the string ends there */
            jv_json_init(&c, b, b + len + 2, 1);
            CHECK_MSG(jv_json_string(&c, &s) == JV_J_OK && s.n == k && c.p == b + k + 2, "quote at %zu of %zu", k, len);
            static const unsigned char bad_bytes[] = {0x00, 0x01, 0x0A, 0x1F};
            for (size_t j = 0; j < sizeof bad_bytes; j++) {
                b[1 + k] = (char)bad_bytes[j];
                jv_json_init(&c, b, b + len + 2, 1);
                CHECK_MSG(jv_json_string(&c, &s) == JV_J_BAD && c.err_p == b + 1 + k,
                          "control byte 0x%02x at %zu of %zu refused there", bad_bytes[j], k, len);
            }
            if (k + 1 < len) {
                b[1 + k] = '\\';
                b[2 + k] = 'n';
                jv_json_init(&c, b, b + len + 2, 1);
                CHECK_MSG(jv_json_string(&c, &s) == JV_J_OK && s.n == len && s.escaped, "escape at %zu of %zu", k, len);
                b[2 + k] = 'x';
                jv_json_init(&c, b, b + len + 2, 1);
                CHECK_MSG(jv_json_string(&c, &s) == JV_J_BAD && c.err_p == b + 1 + k, "bad escape at %zu of %zu", k,
                          len);
                b[2 + k] = 'a';
            }
            b[1 + k] = 'a';
        }
        /* UTF-8: an invalid byte (a lone continuation byte, or a lead byte cut short) at every position */
        for (size_t k = 0; k < len; k++) {
            b[1 + k] = (char)0x80;
            CHECK_MSG(jv_utf8_valid_prefix(b + 1, len) == k, "lone continuation byte at %zu of %zu", k, len);
            b[1 + k] = (char)0xC3; /* followed by 'a': not a continuation */
            CHECK_MSG(jv_utf8_valid_prefix(b + 1, len) == k, "cut 2-byte sequence at %zu of %zu", k, len);
            if (k + 1 < len) {
                b[2 + k] = (char)0xA9; /* U+00E9 */
                CHECK_MSG(jv_utf8_valid_prefix(b + 1, len) == len, "2-byte sequence at %zu of %zu", k, len);
                b[2 + k] = 'a';
            }
            b[1 + k] = 'a';
        }
        CHECK_MSG(jv_utf8_valid_prefix(b + 1, len) == len, "ASCII run of %zu bytes is valid", len);
        free(b);
    }
}

/* ---------- numbers ---------- */

static void test_numbers(void) {
    static const char *const good[] = {"0",
                                       "-0",
                                       "1",
                                       "-1",
                                       "123",
                                       "-123",
                                       "0.5",
                                       "1.5",
                                       "-0.0",
                                       "1e5",
                                       "1E5",
                                       "1e+5",
                                       "1e-5",
                                       "1.5E-05",
                                       "-2.25e+10",
                                       "0e0",
                                       "10.01",
                                       "1695835585762907",
                                       "4458676522690.655"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        size_t n = strlen(good[i]);
        char *b = dup_n(good[i], n);
        jv_jcur c;
        jv_json_init(&c, b, b + n, 1);
        const char *s = NULL;
        size_t sn = 0;
        jv_jres r = jv_json_number(&c, &s, &sn);
        CHECK_MSG(r == JV_J_OK && s == b && sn == n, "number(%s) -> %s n=%zu", good[i], res_name(r), sn);
        jv_json_init(&c, b, b + n, 0);
        r = jv_json_number(&c, &s, &sn);
        CHECK_MSG(r == JV_J_MORE, "number(%s) final=0 without a delimiter needs more, got %s", good[i], res_name(r));
        free(b);
        char arr[64];
        snprintf(arr, sizeof arr, "[%s]", good[i]);
        CHECK_MSG(skip_s(arr, 1, NULL) == JV_J_OK, "skip(%s) OK", arr);
    }
    /* invalid forms, inside an array so that a partial number cannot pass */
    static const char *const bad[] = {"01",  "00",   "-01", "1.", "-",     "1e",   "1e+",   "1E-", "+1", ".5",
                                      "-.5", "1.e5", "--1", "-a", "1.5.3", "0x10", "1e5.5", "- 1", "1,", "012"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char arr[64];
        snprintf(arr, sizeof arr, "[%s]", bad[i]);
        const char *err = NULL;
        jv_jres r = skip_s(arr, 1, &err);
        CHECK_MSG(r == JV_J_BAD && err, "skip(%s) -> %s, want BAD", arr, res_name(r));
        snprintf(arr, sizeof arr, "{\"ts\":%s}", bad[i]);
        r = skip_s(arr, 0, &err);
        CHECK_MSG(r == JV_J_BAD && err, "skip(%s) final=0 -> %s, want BAD", arr, res_name(r));
    }
    /* bare invalid numbers with final=1 */
    static const char *const bare_bad[] = {"1.", "-", "1e", "1e+", "+1", ".5", "-x"};
    for (size_t i = 0; i < sizeof bare_bad / sizeof *bare_bad; i++) {
        size_t n = strlen(bare_bad[i]);
        char *b = dup_n(bare_bad[i], n);
        jv_jcur c;
        jv_json_init(&c, b, b + n, 1);
        const char *s;
        size_t sn;
        jv_jres r = jv_json_number(&c, &s, &sn);
        CHECK_MSG(r == JV_J_BAD && c.err, "number(%s) final=1 -> %s, want BAD", bare_bad[i], res_name(r));
        free(b);
    }
    /* "01": the number is "0"; what follows is not part of it */
    {
        char *b = dup_n("01", 2);
        jv_jcur c;
        jv_json_init(&c, b, b + 2, 1);
        const char *s;
        size_t sn = 99;
        jv_jres r = jv_json_number(&c, &s, &sn);
        CHECK_MSG(r == JV_J_OK && sn == 1, "number(01) reads only the 0 (got %s n=%zu)", res_name(r), sn);
        free(b);
    }
    /* huge numbers are valid JSON */
    char big[512];
    memset(big, '9', 400);
    big[0] = '1';
    big[400] = '\0';
    const char *huge[] = {"1e999999", "-1e999999", "1e-999999", "1.5e308", "1e309", big};
    for (size_t i = 0; i < sizeof huge / sizeof *huge; i++) {
        char arr[600];
        snprintf(arr, sizeof arr, "[%s]", huge[i]);
        const char *err = NULL;
        CHECK_MSG(skip_s(arr, 1, &err) == JV_J_OK, "skip of huge number %zu OK (%s)", i, err ? err : "");
        CHECK_MSG(skip_s(huge[i], 1, &err) == JV_J_OK, "skip of bare huge number %zu OK", i);
    }
}

typedef struct {
    const char *s;
    int ok;
    int64_t ns;
} ns_case;

static void test_us_to_ns(void) {
    char big[512];
    memset(big, '9', 400);
    big[0] = '1';
    big[400] = '\0';
    char bigfrac[512]; /* 1.000...0005 with a long fraction: exact path */
    memset(bigfrac, '0', 300);
    bigfrac[0] = '1';
    bigfrac[1] = '.';
    bigfrac[300] = '7';
    bigfrac[301] = '\0';
    const ns_case cases[] = {
        {"0", 1, 0},
        {"-0", 1, 0},
        {"1", 1, 1000},
        {"-1", 1, -1000},
        {"1695835585762907", 1, INT64_C(1695835585762907000)},
        {"1695835585762907.5", 1, INT64_C(1695835585762907500)},
        {"4458676522690.655", 1, INT64_C(4458676522690655)},
        {"-4458676522690.655", 1, INT64_C(-4458676522690655)},
        {"0.001", 1, 1},
        {"0.0004", 1, 0},
        {"0.0005", 1, 1},
        {"1.0005", 1, 1001},
        {"1.00049999", 1, 1000},
        {"1.0004", 1, 1000},
        {"1.0006", 1, 1001},
        {"-1.0005", 1, -1001},
        {"-1.0004", 1, -1000},
        {"1.9995", 1, 2000},
        {"0.9995", 1, 1000},
        {"12.5", 1, 12500},
        {"50.5", 1, 50500},
        {"8.25", 1, 8250},
        {"1.5", 1, 1500},
        {"2.000", 1, 2000},
        {"7.0", 1, 7000},
        {"1e3", 1, 1000000},
        {"1E3", 1, 1000000},
        {"1.25e2", 1, 125000},
        {"-1.25e2", 1, -125000},
        {"1e-3", 1, 1},
        {"1e-999", 1, 0},
        {"9223372036854774", 1, INT64_C(9223372036854774000)},
        {"9223372036854774.999", 1, INT64_C(9223372036854774999)},
        {"-9223372036854774", 1, INT64_C(-9223372036854774000)},
        {"9223372036854775", 0, 0},
        {"9999999999999999", 0, 0},
        {"12345678901234567", 0, 0},
        {"-12345678901234567", 0, 0},
        {"1e16", 0, 0},
        {"9.2e15", 0, 0},
        {"1e999999", 0, 0},
        {"-1e999999", 0, 0},
        {"1e309", 0, 0},
        {big, 0, 0},
        {bigfrac, 1, 1000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const ns_case *k = &cases[i];
        size_t n = strlen(k->s);
        char *b = dup_n(k->s, n);
        int64_t v = INT64_C(0x5a5a5a5a);
        int ok = jv_json_us_to_ns(b, n, &v);
        if (k->ok)
            CHECK_MSG(ok && v == k->ns, "us_to_ns(%.40s) -> ok=%d %lld, want %lld", k->s, ok, (long long)v,
                      (long long)k->ns);
        else
            CHECK_MSG(!ok, "us_to_ns(%.40s) -> ok=%d %lld, want out of range", k->s, ok, (long long)v);
        free(b);
    }
    /* a value inside a larger buffer: only n bytes are read */
    {
        const char *s = "12.5,99";
        int64_t v = 0;
        CHECK_MSG(jv_json_us_to_ns(s, 4, &v) && v == 12500, "us_to_ns reads only n bytes");
    }
}

typedef struct {
    const char *s;
    int ok;
    int64_t v;
} i64_case;

static void test_int64(void) {
    const i64_case cases[] = {
        {"0", 1, 0},
        {"-0", 1, 0},
        {"7", 1, 7},
        {"-7", 1, -7},
        {"7.0", 1, 7},
        {"7.000", 1, 7},
        {"-7.0", 1, -7},
        {"123456789012", 1, INT64_C(123456789012)},
        {"9223372036854775807", 1, INT64_MAX},
        {"-9223372036854775807", 1, -INT64_MAX},
        {"9223372036854775808", 0, 0},
        {"18446744073709551615", 0, 0},
        {"18446744073709551616", 0, 0},
        {"99999999999999999999", 0, 0},
        {"7.5", 0, 0},
        {"7.01", 0, 0},
        {"1e3", 0, 0},
        {"1E0", 0, 0},
        {"", 0, 0},
        {"-", 0, 0},
        {"abc", 0, 0},
        {"12a", 0, 0},
        {" 1", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const i64_case *k = &cases[i];
        size_t n = strlen(k->s);
        char *b = dup_n(k->s, n);
        int64_t v = 42;
        int ok = jv_json_int64(b, n, &v);
        if (k->ok)
            CHECK_MSG(ok && v == k->v, "int64(%s) -> ok=%d %lld, want %lld", k->s, ok, (long long)v, (long long)k->v);
        else
            CHECK_MSG(!ok, "int64(%s) -> ok=%d %lld, want rejection", k->s, ok, (long long)v);
        free(b);
    }
    char big[401];
    memset(big, '9', 400);
    big[400] = '\0';
    int64_t v = 0;
    CHECK_MSG(!jv_json_int64(big, 400, &v), "int64 of a 400-digit number is rejected");
    CHECK_MSG(jv_json_int64("77,", 2, &v) && v == 77, "int64 reads only n bytes");
}
/* jv_json_number_u against jv_json_number + jv_json_int64: the same result, end and text on every prefix of
 * each input (a number cut by the end of the range), and the value exactly when the number is plain digits. */
/* jv_json_number and jv_json_number_u over the same len bytes at b: 1 when they agree (result, end, span, and the
 * message and its place for a rejection); *r1, the span (*s1, *n1), *v and *plain from them */
static int numbers_agree(const char *b, size_t len, int final, jv_jres *r1, const char **s1, size_t *n1, uint64_t *v,
                         int *plain) {
    jv_jcur c1, c2;
    jv_json_init(&c1, b, b + len, final);
    jv_json_init(&c2, b, b + len, final);
    const char *s2 = NULL;
    size_t n2 = 0;
    *s1 = NULL;
    *n1 = 0;
    *v = 0;
    *plain = -1;
    *r1 = jv_json_number(&c1, s1, n1);
    jv_jres r2 = jv_json_number_u(&c2, &s2, &n2, v, plain);
    int same = *r1 == r2 && c1.p == c2.p && (*r1 != JV_J_OK || (*s1 == s2 && *n1 == n2));
    if (same && *r1 == JV_J_BAD) same = c1.err == c2.err && c1.err_p == c2.err_p;
    return same;
}

static void test_number_u(void) {
    static const char *const cases[] = {"7,",
                                        "0,",
                                        "05",
                                        "123}",
                                        "-5,",
                                        "1.5,",
                                        "10.0]",
                                        "3e2,",
                                        "4E1 ",
                                        "9 ",
                                        "12\n",
                                        "1x",
                                        "99999999999999999 ",
                                        "999999999999999999,",
                                        "1000000000000000000,",
                                        "9223372036854775807,",
                                        "18446744073709551616,",
                                        "1689179601896232,",
                                        "1689179601896232.5,",
                                        "-0,",
                                        "00",
                                        "1-",
                                        "1a"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t len = strlen(cases[i]);
        for (size_t cut = 1; cut <= len; cut++) {
            for (int final = 0; final <= 1; final++) {
                char *b = dup_n(cases[i], cut);
                jv_jres r1;
                const char *s1;
                size_t n1;
                uint64_t v;
                int plain;
                CHECK_MSG(numbers_agree(b, cut, final, &r1, &s1, &n1, &v, &plain),
                          "'%.*s' (final %d): number_u and number differ (number: %s)", (int)cut, cases[i], final,
                          res_name(r1));
                if (r1 == JV_J_OK) {
                    int want_plain = n1 >= 1 && n1 <= 18 && s1[0] != '0' && s1[0] != '-';
                    for (size_t k = 0; k < n1; k++)
                        want_plain = want_plain && s1[k] >= '0' && s1[k] <= '9';
                    int64_t w;
                    CHECK_MSG(plain == want_plain, "'%.*s': plain %d, want %d", (int)cut, cases[i], plain, want_plain);
                    if (plain == 1)
                        CHECK_MSG(jv_json_int64(s1, n1, &w) && (uint64_t)w == v, "'%.*s': value %llu", (int)cut,
                                  cases[i], (unsigned long long)v);
                }
                free(b);
            }
        }
    }
}

/* jv_json_number_u's word-at-a-time digits: 1 to 21 digits (zeros inside) ended by each kind of byte, with 0 to 9
 * bytes after the stop, so that the number starts at each offset of a word and its end falls in the word path
 * and in the byte-by-byte tail: the value and end agree with jv_json_number + jv_json_int64. */
static void test_number_words(void) {
    static const unsigned char stops[] = {',', ' ', '}', ']',  '\n', '.',  'e',  'E',  ':',
                                          '/', '-', 'x', 0x00, 0x80, 0xB0, 0xB9, 0xFF, 0x3A};
    unsigned seed = 12345;
    for (size_t nd = 1; nd <= 21; nd++) {
        for (size_t j = 0; j < sizeof stops; j++) {
            for (size_t pad = 0; pad <= 9; pad++) {
                char txt[48];
                for (size_t k = 0; k < nd; k++) {
                    seed = seed * 1103515245u + 12345u;
                    txt[k] = (char)('0' + (seed >> 16) % 10);
                }
                txt[0] = (char)('1' + (nd * 7 + j) % 9);
                txt[nd] = (char)stops[j];
                for (size_t k = 1; k <= pad; k++)
                    txt[nd + k] = k % 2 ? '9' : ' '; /* digits after a stop must not be read as the number's */
                size_t len = nd + 1 + pad;
                char *b = dup_n(txt, len);
                jv_jres r1;
                const char *s1;
                size_t n1;
                uint64_t v;
                int plain;
                CHECK_MSG(numbers_agree(b, len, 1, &r1, &s1, &n1, &v, &plain),
                          "%zu digits, stop 0x%02x, pad %zu: number_u and number differ (number: %s)", nd, stops[j],
                          pad, res_name(r1));
                int want_plain = r1 == JV_J_OK && n1 <= 18 && n1 == nd;
                CHECK_MSG(plain == (r1 == JV_J_OK ? want_plain : 0), "%zu digits, stop 0x%02x, pad %zu: plain %d", nd,
                          stops[j], pad, plain);
                int64_t w = 0;
                if (plain == 1)
                    CHECK_MSG(jv_json_int64(b, nd, &w) && (uint64_t)w == v, "%zu digits '%.*s': value %llu, want %lld",
                              nd, (int)nd, b, (unsigned long long)v, (long long)w);
                free(b);
            }
        }
    }
}

/* jv_json_member_value: the key, then c->p and *ch at the value's first byte after blanks of each length; a
 * truncation after the ':' needs more input (final: the truncation message at the end); a scalar skipped
 * after it gives its raw text. */
static void test_member_value(void) {
    for (size_t len = 0; len <= 20; len++) {
        char txt[256];
        char run[32];
        memset(run, ' ', len);
        run[len] = '\0';
        if (len > 1) run[0] = '\n';
        int n = snprintf(txt, sizeof txt, "{%s\"ts\":%s1689179654785946%s,%s\"cat\":%s\"kernel\"}", run, run, run, run,
                         run);
        char *b = dup_n(txt, (size_t)n);
        jv_jcur c;
        jv_json_init(&c, b, b + n, 1);
        int first = 1, ok;
        jv_jstr k;
        char ch = 0;
        const char *v;
        size_t vn;
        ok = jv_json_expect(&c, '{') == JV_J_OK && jv_json_member_value(&c, &first, &k, &ch) == JV_J_OK &&
             jv_jstr_eq(&k, "ts") && ch == '1' && *c.p == '1';
        ok = ok && jv_json_skip(&c, &v, &vn) == JV_J_OK && vn == 16 && v[0] == '1' && v[15] == '6';
        ok = ok && jv_json_member_value(&c, &first, &k, &ch) == JV_J_OK && jv_jstr_eq(&k, "cat") && ch == '"';
        ok = ok && jv_json_skip(&c, &v, &vn) == JV_J_OK && vn == 8 && v[0] == '"' && v[7] == '"';
        ok = ok && jv_json_member_value(&c, &first, &k, &ch) == JV_J_END && c.p == b + n;
        CHECK_MSG(ok, "member_value with runs of %zu blanks: %s", len, txt);
        /* cut after the ':' and its blanks: more input, or at the end a truncation */
        size_t cut = (size_t)(strchr(txt, ':') - txt) + 1 + len;
        for (int final = 0; final <= 1; final++) {
            jv_json_init(&c, b, b + cut, final);
            first = 1;
            jv_jres r = jv_json_expect(&c, '{');
            r = r == JV_J_OK ? jv_json_member_value(&c, &first, &k, &ch) : r;
            CHECK_MSG(final ? r == JV_J_BAD && c.err_p == b + cut && strstr(c.err, "unexpected end") : r == JV_J_MORE,
                      "member_value cut after ':' and %zu blanks (final %d): %s", len, final, res_name(r));
        }
        free(b);
    }
}

/* ---------- whitespace runs (the SSE2 / word-at-a-time skip) ---------- */

/* Runs of 0..40 blanks (every mix of the four, so that each 8- and 16-byte block boundary falls inside a run)
 * ended by a byte that is not JSON whitespace: the skip stops exactly there; a run to the end needs more input
 * (or, final, is a truncation). Bytes that are close to whitespace (0x0B, 0x0C, 0x1F, 0x21, 0x00, 0xA0) end it. */
static void test_ws_runs(void) {
    static const char blanks[] = {' ', '\n', '\r', '\t'};
    static const unsigned char stops[] = {'x',  '{',  '"',  0x00, 0x01, 0x08, 0x0B,
                                          0x0C, 0x1F, 0x21, 0x2A, 0x80, 0xA0, 0xFF};
    for (size_t len = 0; len <= 40; len++) {
        for (size_t mix = 0; mix < 5; mix++) {
            char *b = malloc(len + 1);
            for (size_t i = 0; i < len; i++)
                b[i] = mix < 4 ? blanks[mix] : blanks[(i * 7 + len) % 4];
            CHECK_MSG(jv_json_skip_ws(b, b + len) == b + len, "run of %zu blanks (mix %zu) skipped whole", len, mix);
            jv_jcur c;
            char ch = 0;
            jv_json_init(&c, b, b + len, 0);
            CHECK_MSG(jv_json_peek(&c, &ch) == JV_J_MORE && c.p == b + len, "run of %zu blanks needs more", len);
            jv_json_init(&c, b, b + len, 1);
            CHECK_MSG(jv_json_peek(&c, &ch) == JV_J_BAD && c.err && strstr(c.err, "unexpected end"),
                      "run of %zu blanks at the end is a truncation", len);
            for (size_t j = 0; j < sizeof stops; j++) {
                b[len] = (char)stops[j];
                CHECK_MSG(jv_json_skip_ws(b, b + len + 1) == b + len, "byte 0x%02x after %zu blanks (mix %zu) stops",
                          stops[j], len, mix);
                jv_json_init(&c, b, b + len + 1, 1);
                CHECK_MSG(jv_json_peek(&c, &ch) == JV_J_OK && c.p == b + len && ch == (char)stops[j],
                          "peek 0x%02x after %zu blanks", stops[j], len);
                /* the stop byte earlier, inside the run: the skip stops at its first position */
                for (size_t k = 0; k < len; k++) {
                    char keep = b[k];
                    b[k] = (char)stops[j];
                    CHECK_MSG(jv_json_skip_ws(b, b + len + 1) == b + k, "byte 0x%02x at %zu of %zu blanks stops",
                              stops[j], k, len);
                    b[k] = keep;
                }
            }
            free(b);
        }
    }
    /* members and elements separated by runs of each length: the keys and values come out whole */
    for (size_t len = 0; len <= 24; len++) {
        char txt[512];
        char run[32];
        memset(run, ' ', len);
        run[len] = '\0';
        if (len) run[0] = '\n';
        int n = snprintf(txt, sizeof txt, "{%s\"a\"%s:%s1%s,%s\"bc\":[%s2%s,%s\"x\\\"y\"%s]%s}", run, run, run, run,
                         run, run, run, run, run, run);
        char *b = dup_n(txt, (size_t)n);
        jv_jcur c;
        jv_json_init(&c, b, b + n, 1);
        int first = 1;
        jv_jstr k;
        int ok = jv_json_expect(&c, '{') == JV_J_OK && jv_json_member(&c, &first, &k) == JV_J_OK && jv_jstr_eq(&k, "a");
        const char *num;
        size_t nn;
        ok = ok && jv_json_number(&c, &num, &nn) == JV_J_OK && nn == 1 && num[0] == '1';
        ok = ok && jv_json_member(&c, &first, &k) == JV_J_OK && jv_jstr_eq(&k, "bc");
        const char *v;
        size_t vn;
        ok = ok && jv_json_skip(&c, &v, &vn) == JV_J_OK && v[0] == '[' && v[vn - 1] == ']';
        ok = ok && jv_json_member(&c, &first, &k) == JV_J_END && c.p == b + n;
        CHECK_MSG(ok, "object with runs of %zu blanks: %s", len, txt);
        free(b);
    }
}

int main(void) {
    test_valid_values();
    test_string_escapes();
    test_bad_strings();
    test_long_strings();
    test_ws_runs();
    test_numbers();
    test_number_u();
    test_number_words();
    test_member_value();
    test_us_to_ns();
    test_int64();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

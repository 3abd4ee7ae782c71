/* test_json.h: the helpers test_json.c and test_json_stream.c share: the counting checks (jv_check.h), exact-length
 * heap copies of the inputs (dup_n) and jv_json_skip over them (skip_n, skip_s). Include once per test program. */
#ifndef TEST_JSON_H
#define TEST_JSON_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_check.h"
#include "jv_json.h"

static const char *res_name(jv_jres r) {
    switch (r) {
    case JV_J_OK: return "OK";
    case JV_J_END: return "END";
    case JV_J_MORE: return "MORE";
    case JV_J_BAD: return "BAD";
    }
    return "?";
}

/* An exact-length heap copy of n bytes of s (so over-reads are detectable). */
static char *dup_n(const char *s, size_t n) {
    char *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    if (n) memcpy(p, s, n);
    return p;
}

/* Runs jv_json_skip over the first n bytes of s. Not inlined: inlined into test_json_stream.c's loops, GCC 12
 * reports a false -Wuse-after-free on it. */
static __attribute__((noinline)) jv_jres skip_n(const char *s, size_t n, int final, const char **err,
                                                size_t *consumed) {
    char *b = dup_n(s, n);
    jv_jcur c;
    jv_json_init(&c, b, b + n, final);
    const char *vs = NULL;
    size_t vn = 0;
    jv_jres r = jv_json_skip(&c, &vs, &vn);
    if (err) *err = c.err;
    if (consumed) *consumed = (size_t)(c.p - b);
    if (r == JV_J_BAD && !c.err) {
        failed++;
        fprintf(stderr, "FAIL: JV_J_BAD without a message for input of %zu bytes\n", n);
    }
    if (r == JV_J_BAD && (c.err_p < b || c.err_p > b + n)) {
        failed++;
        fprintf(stderr, "FAIL: err_p outside the input for input of %zu bytes\n", n);
    }
    free(b);
    return r;
}

static __attribute__((unused)) jv_jres skip_s(const char *s, int final, const char **err) {
    return skip_n(s, strlen(s), final, err, NULL);
}

#endif

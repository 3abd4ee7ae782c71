/* test_family_conv.h: the helpers test_family_conv.c and test_family_conv_tracelens.c share: the counting
 * checks (EXPECT, EXPECT_NUM, EXPECT_STR) and one traced call through the conv family (parse, model, param).
 * Include once per test program. */
#ifndef TEST_FAMILY_CONV_H
#define TEST_FAMILY_CONV_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conv/conv.h"

#include "jv_check.h"

static void expect_num(double got, double want, int line) {
    double tol = 1e-9 * (fabs(want) > 1 ? fabs(want) : 1);
    if (fabs(got - want) <= tol)
        passed++;
    else {
        failed++;
        fprintf(stderr, "%s:%d: FAILED: got %.17g, want %.17g\n", __FILE__, line, got, want);
    }
}
#define EXPECT_NUM(g, w) expect_num((g), (w), __LINE__)

static void expect_str(const char *got, const char *want, int line) {
    if (!strcmp(got, want))
        passed++;
    else {
        failed++;
        fprintf(stderr, "%s:%d: FAILED: got '%s', want '%s'\n", __FILE__, line, got, want);
    }
}
#define EXPECT_STR(g, w) expect_str((g), (w), __LINE__)

/* Parses one traced call with the conv family; returns the status. */
static jv_status parse(const char *op, const char *dims, const char *types, const char *strides, const char *concrete,
                       jv_desc *d) {
    jv_opcall c;
    jv_err err;
    jv_err_clear(&err);
    memset(d, 0, sizeof *d);
    jv_status st = jv_opcall_from_trace(&c, op, dims, types, strides, concrete, &err);
    if (st == JV_OK) st = jv_conv_family.parse(&c, d, &err);
    jv_opcall_free(&c);
    return st;
}

static jv_perf model(const jv_desc *d) {
    jv_perf p;
    memset(&p, 0, sizeof p);
    p.bytes = NAN;
    jv_conv_family.model(d, &p);
    return p;
}

static const char *param(const jv_desc *d, const char *name, char *buf, size_t cap) {
    jv_params ps;
    ps.n = 0;
    jv_conv_family.params(d, &ps);
    for (int i = 0; i < ps.n; i++)
        if (!strcmp(ps.p[i].name, name)) {
            snprintf(buf, cap, "%s", ps.p[i].text);
            return buf;
        }
    snprintf(buf, cap, "<missing %s>", name);
    return buf;
}

#endif

/* jv_test_family.h: the harness the op-family unit tests share. Define
 * JV_TEST_FAMILY (the family object under test) and, optionally,
 * JV_TEST_NEAR_FLOOR (CHECK_NEAR's tolerance is 1e-9 * max(floor, |want|);
 * default 0: purely relative) before including it, once per test program. */
#ifndef JV_TEST_FAMILY_H
#define JV_TEST_FAMILY_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jv_family.h"

#ifndef JV_TEST_NEAR_FLOOR
#define JV_TEST_NEAR_FLOOR 0.0
#endif

#define JV_TEST_UNUSED __attribute__((unused))

#include "jv_check.h"

static JV_TEST_UNUSED int near(double a, double b) {
    return fabs(a - b) <= 1e-9 * fmax(JV_TEST_NEAR_FLOOR, fabs(b));
}
#define CHECK_NEAR(a, b)                                                                                               \
    do {                                                                                                               \
        double a_ = (a), b_ = (b);                                                                                     \
        if (!near(a_, b_)) fprintf(stderr, "%s:%d: got %.17g, want %.17g\n", __FILE__, __LINE__, a_, b_);              \
        check_at(near(a_, b_), #a " == " #b, __FILE__, __LINE__);                                                      \
    } while (0)

/* Parses a call built from trace texts with the family under test (d->family set to its registry index);
 * returns the status. */
static JV_TEST_UNUSED jv_status parse(const char *name, const char *dims, const char *types, const char *strides,
                                      const char *concrete, jv_desc *d) {
    jv_opcall c;
    jv_err err;
    jv_err_clear(&err);
    memset(d, 0, sizeof *d);
    jv_status st = jv_opcall_from_trace(&c, name, dims, types, strides, concrete, &err);
    if (st == JV_OK) st = JV_TEST_FAMILY.parse(&c, d, &err);
    for (int i = 0; i < jv_family_count(); i++) /* as jv_desc_parse sets it */
        if (jv_family_get(i) == &JV_TEST_FAMILY) d->family = i;
    jv_opcall_free(&c);
    return st;
}

/* The family's model of a parsed call (bytes start as NaN, as jv_desc_model sets them). */
static JV_TEST_UNUSED jv_perf model(const jv_desc *d) {
    jv_perf p;
    memset(&p, 0, sizeof p);
    p.bytes = NAN;
    JV_TEST_FAMILY.model(d, &p);
    return p;
}

/* The text of param `name` of a parsed call, or "<missing>". */
static JV_TEST_UNUSED const char *param(const jv_desc *d, const char *name) {
    static jv_params ps;
    ps.n = 0;
    JV_TEST_FAMILY.params(d, &ps);
    for (int i = 0; i < ps.n; i++)
        if (!strcmp(ps.p[i].name, name)) return ps.p[i].text;
    return "<missing>";
}

#endif

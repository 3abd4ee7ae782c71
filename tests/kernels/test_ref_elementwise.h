/* test_ref_elementwise.h: the helpers test_ref_elementwise.c and test_ref_elementwise_ops.c share: the
 * counting checks (CHECK, CHECK_NEAR) and a trace-form call with its operands and buffers (tcall: tc_open,
 * tc_run, tc_get, tc_set, expect_out, ...). Include once per test program. */
#ifndef TEST_REF_ELEMENTWISE_H
#define TEST_REF_ELEMENTWISE_H

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elementwise/elementwise.h"
#include "jv_check.h"

/* |got - want| <= tol * max(1, |want|); NaN matches NaN, infinities match exactly */
static int close_to(double got, double want, double tol) {
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    return fabs(got - want) <= tol * fmax(1.0, fabs(want));
}

#define CHECK_NEAR(got, want, tol, what)                                                                               \
    do {                                                                                                               \
        double g_ = (got), w_ = (want);                                                                                \
        CHECK_MSG(close_to(g_, w_, (tol)), "%s: got %.17g, want %.17g", (what), g_, w_);                               \
    } while (0)

/* ---- a call with its operands and buffers ---- */

typedef struct {
    jv_status st;
    jv_err err;
    jv_desc d;
    jv_operands ops;
    void *buf[JV_MAX_OPERANDS];
    int out; /* the operand written (OUT or INOUT) */
} tcall;

static void tc_close(tcall *c) {
    for (int i = 0; i < JV_MAX_OPERANDS; i++)
        free(c->buf[i]);
    memset(c->buf, 0, sizeof c->buf);
}

/* Parses a trace-form call, lists its operands and allocates them: inputs
 * zeroed, outputs poisoned with 0xFF bytes (NaN for the float types). */
static jv_status tc_open(tcall *c, const char *name, const char *dims, const char *types, const char *strides,
                         const char *concrete) {
    memset(c, 0, sizeof *c);
    c->out = -1;
    jv_opcall oc;
    c->st = jv_opcall_from_trace(&oc, name, dims, types, strides, concrete, &c->err);
    if (c->st == JV_OK) c->st = jv_desc_parse(&oc, &c->d, &c->err);
    jv_opcall_free(&oc);
    if (c->st == JV_OK) c->st = jv_desc_operands(&c->d, &c->ops, &c->err);
    if (c->st != JV_OK) return c->st;
    for (int i = 0; i < c->ops.n; i++) {
        const jv_tensor *t = &c->ops.o[i].t;
        size_t bytes = (size_t)jv_tensor_extent(t) * jv_dtype_size(t->dtype);
        c->buf[i] = calloc(bytes ? bytes : 1, 1);
        if (!c->buf[i]) {
            c->st = JV_ERR_NOMEM;
            return c->st;
        }
        if (c->ops.o[i].role != JV_ROLE_IN) {
            c->out = i;
            memset(c->buf[i], 0xFF, bytes);
        }
    }
    return JV_OK;
}

static int tc_find(const tcall *c, const char *name) {
    for (int i = 0; i < c->ops.n; i++)
        if (!strcmp(c->ops.o[i].name, name)) return i;
    return -1;
}

/* Operand k's element at logical index i (row-major over its shape). */
static double tc_get(const tcall *c, int k, int64_t i) {
    const jv_tensor *t = &c->ops.o[k].t;
    return jv_dtype_load(t->dtype, c->buf[k], jv_tensor_offset_at(t, i));
}

static void tc_set(tcall *c, int k, const double *v) {
    const jv_tensor *t = &c->ops.o[k].t;
    int64_t n = jv_tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        jv_dtype_store(t->dtype, c->buf[k], jv_tensor_offset_at(t, i), v[i]);
}

static __attribute__((unused)) void tc_fill(tcall *c, int k, double v) {
    const jv_tensor *t = &c->ops.o[k].t;
    int64_t n = jv_tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        jv_dtype_store(t->dtype, c->buf[k], jv_tensor_offset_at(t, i), v);
}

/* Sets operand `name`; returns 0 (and fails a check) when there is none. */
static __attribute__((unused)) int tc_set_named(tcall *c, const char *name, const double *v) {
    int k = tc_find(c, name);
    CHECK_MSG(k >= 0, "no operand named '%s'", name);
    if (k >= 0) tc_set(c, k, v);
    return k >= 0;
}

static jv_status tc_run(tcall *c, const jv_sample *s) {
    jv_err_clear(&c->err);
    c->st = jv_desc_reference(&c->d, &c->ops, c->buf, s, &c->err);
    return c->st;
}

/* Checks the n output elements against want. */
static void expect_out(const tcall *c, const double *want, int64_t n, double tol, const char *what) {
    CHECK_MSG(c->st == JV_OK, "%s: status %d: %s", what, (int)c->st, c->err.msg);
    if (c->st != JV_OK || c->out < 0) return;
    CHECK_MSG(jv_tensor_numel(&c->ops.o[c->out].t) == n, "%s: %lld output elements, want %lld", what,
              (long long)jv_tensor_numel(&c->ops.o[c->out].t), (long long)n);
    for (int64_t i = 0; i < n; i++) {
        char w[160];
        snprintf(w, sizeof w, "%s [%lld]", what, (long long)i);
        CHECK_NEAR(tc_get(c, c->out, i), want[i], tol, w);
    }
}

#define N_OF(a) ((int64_t)(sizeof(a) / sizeof((a)[0])))

#endif

/* jv_test_cpu.h: the fixture the tests of the CPU backend's oneDNN paths
 * share (test_cpu_conv, test_cpu_bn): a call written as trace texts, parsed
 * into its replay operands with one host buffer each (inputs filled as the
 * runner fills them, outputs poisoned, an INOUT operand from the same values
 * on both sides), the reference run into a second set, and the comparison of
 * every output; and the drivers every path shares (run and verify, damaged
 * outputs caught, dtype refusals, timing) over a jv_cpu_path. Include once per
 * test program, after jv_check.h. */
#ifndef JV_TEST_CPU_H
#define JV_TEST_CPU_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_opcall.h"
#include "jv_progress.h" /* jv_now */
#include "jv_runner.h"

/* One call as the trace records it. */
typedef struct {
    const char *what;
    const char *op, *dims, *types, *strides, *conc;
} jv_cpu_case;

/* A parsed call and its buffers: dev for the path under test, ref for the reference (the same buffer for an
 * input). */
typedef struct {
    jv_opcall call;
    jv_desc d;
    jv_operands ops;
    void *dev[JV_MAX_OPERANDS], *ref[JV_MAX_OPERANDS];
} setup;

static __attribute__((unused)) void setup_free(setup *s) {
    for (int i = 0; i < s->ops.n; i++) {
        if (s->ref[i] != s->dev[i]) free(s->ref[i]);
        free(s->dev[i]);
    }
    jv_opcall_free(&s->call);
    memset(s, 0, sizeof *s);
}

/* parses c and allocates / fills its operands (no reference when ref is 0); an
 * INOUT operand starts from the same values on both sides */
static __attribute__((unused)) int setup_case(const jv_cpu_case *c, setup *s, int ref) {
    jv_err err;
    jv_err_clear(&err);
    memset(s, 0, sizeof *s);
    jv_status st = jv_opcall_from_trace(&s->call, c->op, c->dims, c->types, c->strides, c->conc, &err);
    if (st == JV_OK) st = jv_desc_parse(&s->call, &s->d, &err);
    if (st == JV_OK) st = jv_desc_operands(&s->d, &s->ops, &err);
    CHECK_MSG(st == JV_OK, "%s: %s", c->what, err.msg);
    if (st != JV_OK) return 0;
    for (int i = 0; i < s->ops.n; i++) {
        const jv_operand *o = &s->ops.o[i];
        size_t bytes = (size_t)jv_tensor_extent(&o->t) * jv_dtype_size(o->t.dtype);
        s->dev[i] = malloc(bytes ? bytes : 1);
        CHECK(s->dev[i] != NULL);
        if (!s->dev[i]) return 0;
        if (o->role == JV_ROLE_IN) {
            jv_fill_host(s->dev[i], o->t.dtype, jv_tensor_extent(&o->t), o->init, 1000u + (uint64_t)i);
            s->ref[i] = s->dev[i];
            continue;
        }
        if (o->role == JV_ROLE_INOUT)
            jv_fill_host(s->dev[i], o->t.dtype, jv_tensor_extent(&o->t), o->init, 1000u + (uint64_t)i);
        else
            memset(s->dev[i], 0xFF, bytes);
        if (ref) {
            s->ref[i] = malloc(bytes ? bytes : 1);
            CHECK(s->ref[i] != NULL);
            if (!s->ref[i]) return 0;
            memcpy(s->ref[i], s->dev[i], bytes);
        }
    }
    if (ref) {
        st = jv_desc_reference(&s->d, &s->ops, s->ref, NULL, &err);
        CHECK_MSG(st == JV_OK, "%s: reference: %s", c->what, err.msg);
        if (st != JV_OK) return 0;
    }
    return 1;
}

/* verifies every OUT and INOUT operand; returns 1 when all pass */
static __attribute__((unused)) int verify_all(const setup *s, jv_verify *v) {
    memset(v, 0, sizeof *v);
    int ok = 1;
    for (int i = 0; i < s->ops.n; i++)
        if (s->ops.o[i].role != JV_ROLE_IN) ok &= jv_verify_output(&s->ops.o[i], s->dev[i], s->ref[i], NULL, 0, v);
    return ok;
}

/* Damages output k of s (whole: every element zeroed; else its first element made huge: 1000 in fp32, 0x7f7f
 * in a 16-bit type), checks that verification then fails naming it, and prints one line (label width w). */
static __attribute__((unused)) void damage_and_check(setup *s, int k, int whole, const char *what, int w) {
    jv_verify v;
    const jv_operand *o = &s->ops.o[k];
    const char *name = o->name;
    size_t es = jv_dtype_size(o->t.dtype);
    if (whole) {
        memset(s->dev[k], 0, (size_t)jv_tensor_extent(&o->t) * es);
    } else {
        float big = 1000.f;
        if (o->t.dtype == JV_DT_F32)
            memcpy(s->dev[k], &big, sizeof big);
        else
            memset(s->dev[k], 0x7f, es); /* a huge bf16 */
    }
    int ok = verify_all(s, &v);
    CHECK_MSG(!ok && !strcmp(v.worst, name), "%s: damaged '%s' passed verification", what, name);
    printf("%-*s %-5s '%s' %s damaged: rel_l2 %.3g, worst '%s'\n", w, what, ok ? "MISSED" : "CAUGHT", name,
           whole ? "zeroed" : "one element", v.rel_l2, v.worst);
}

/* A path under test (a oneDNN primitive of the CPU backend): plan, run over s->dev, release. */
typedef struct {
    void *ctx;
    int width; /* label width of the printed lines */
    jv_status (*plan)(void *ctx, const setup *s, void **plan, jv_err *err);
    jv_status (*run)(void *ctx, void *plan, const setup *s, jv_err *err);
    void (*release)(void *plan);
} jv_cpu_path;

/* Runs case c on path p and verifies every output against the reference; prints one line. */
static __attribute__((unused)) void cpu_run_case(const jv_cpu_path *p, const jv_cpu_case *c) {
    setup s;
    if (!setup_case(c, &s, 1)) {
        setup_free(&s);
        return;
    }
    jv_err err;
    jv_err_clear(&err);
    void *plan = NULL;
    jv_status st = p->plan(p->ctx, &s, &plan, &err);
    CHECK_MSG(st == JV_OK, "%s: plan: %s", c->what, err.msg);
    if (st == JV_OK) st = p->run(p->ctx, plan, &s, &err);
    CHECK_MSG(st == JV_OK, "%s: run: %s", c->what, err.msg);
    if (st == JV_OK) {
        jv_verify v;
        int ok = verify_all(&s, &v);
        CHECK_MSG(ok, "%s: wrong: worst '%s' rel_l2 %.3g (tol %.3g), %lld unwritten", c->what, v.worst, v.rel_l2, v.tol,
                  (long long)v.unwritten);
        printf("%-*s %-5s rel_l2 %.3g (tol %.3g, worst '%s')\n", p->width, c->what, ok ? "OK" : "WRONG", v.rel_l2,
               v.tol, v.worst);
    } else {
        printf("%-*s ERROR %s\n", p->width, c->what, err.msg);
    }
    p->release(plan);
    setup_free(&s);
}

/* Damaged outputs must fail: case c run on path p, then output `name` zeroed (whole) or its first element made
 * huge (damage_and_check). c NULL (a case name not found) fails. */
static __attribute__((unused)) void cpu_wrong_case(const jv_cpu_path *p, const jv_cpu_case *c, const char *name,
                                                   int whole) {
    CHECK(c != NULL);
    if (!c) return;
    setup s;
    if (!setup_case(c, &s, 1)) {
        setup_free(&s);
        return;
    }
    jv_err err;
    jv_err_clear(&err);
    void *plan = NULL;
    jv_status st = p->plan(p->ctx, &s, &plan, &err);
    if (st == JV_OK) st = p->run(p->ctx, plan, &s, &err);
    CHECK_MSG(st == JV_OK, "%s: %s", c->what, err.msg);
    int k = jv_operands_find(&s.ops, name);
    CHECK(k >= 0);
    if (st == JV_OK && k >= 0) {
        jv_verify v;
        CHECK(verify_all(&s, &v)); /* right before the damage */
        damage_and_check(&s, k, whole, c->what, p->width);
    }
    p->release(plan);
    setup_free(&s);
}

/* A dtype oneDNN may not run here: refused with JV_ERR_NOTFOUND naming "unsupported dtype", or (must_refuse 0,
 * e.g. fp16 on a CPU that has it) run and right. */
static __attribute__((unused)) void cpu_refused_case(const jv_cpu_path *p, const jv_cpu_case *c, int must_refuse) {
    setup s;
    if (!setup_case(c, &s, 1)) {
        setup_free(&s);
        return;
    }
    jv_err err;
    jv_err_clear(&err);
    void *plan = NULL;
    jv_status st = p->plan(p->ctx, &s, &plan, &err);
    if (st == JV_OK) {
        CHECK_MSG(!must_refuse, "%s: planned, expected JV_ERR_NOTFOUND", c->what);
        st = p->run(p->ctx, plan, &s, &err);
        CHECK_MSG(st == JV_OK, "%s: run: %s", c->what, err.msg);
        jv_verify v;
        int ok = st == JV_OK && verify_all(&s, &v);
        CHECK_MSG(ok, "%s: wrong", c->what);
        printf("%-*s %-5s (runs on this CPU)\n", p->width, c->what, ok ? "OK" : "WRONG");
    } else {
        CHECK_MSG(st == JV_ERR_NOTFOUND && strstr(err.msg, "unsupported dtype"), "%s: %s", c->what, err.msg);
        printf("%-*s NOTFOUND: %s\n", p->width, c->what, err.msg);
    }
    p->release(plan);
    setup_free(&s);
}

/* The best of runs - 1 runs of case c on path p (the first warms up), no reference: seconds, or -1 when it
 * could not run (a failed check). */
static __attribute__((unused)) double cpu_time_case(const jv_cpu_path *p, const jv_cpu_case *c, int runs) {
    setup s;
    if (!setup_case(c, &s, 0)) {
        setup_free(&s);
        return -1;
    }
    jv_err err;
    jv_err_clear(&err);
    void *plan = NULL;
    jv_status st = p->plan(p->ctx, &s, &plan, &err);
    CHECK_MSG(st == JV_OK, "%s: %s", c->what, err.msg);
    double best = 1e30;
    for (int r = 0; st == JV_OK && r < runs; r++) {
        double t0 = jv_now();
        st = p->run(p->ctx, plan, &s, &err);
        double t = jv_now() - t0;
        if (r > 0 && t < best) best = t;
    }
    CHECK_MSG(st == JV_OK, "%s: %s", c->what, err.msg);
    p->release(plan);
    setup_free(&s);
    return st == JV_OK ? best : -1;
}

#endif

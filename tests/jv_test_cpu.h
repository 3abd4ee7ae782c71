/* jv_test_cpu.h: the fixture the tests of the CPU backend's oneDNN paths
 * share (test_cpu_conv, test_cpu_bn): a call written as trace texts, parsed
 * into its replay operands with one host buffer each (inputs filled as the
 * runner fills them, outputs poisoned, an INOUT operand from the same values
 * on both sides), the reference run into a second set, and the comparison of
 * every output. Include once per test program, after jv_check.h. */
#ifndef JV_TEST_CPU_H
#define JV_TEST_CPU_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_opcall.h"
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

#endif

/* jv_test_replay.h: the fixture the CPU-reference tests of the GEMM and
 * batch-norm families share: a call parsed from trace texts, its replay
 * operands and one host buffer each, element access by logical index, and
 * the reference run. Include once per test program. */
#ifndef JV_TEST_REPLAY_H
#define JV_TEST_REPLAY_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_check.h"
#include "jv_family.h"

#define JV_TEST_UNUSED __attribute__((unused))

/* |got - want| <= tol * max(1, |want|) */
#define CHECK_NEAR(got, want, tol)                                                                                     \
    do {                                                                                                               \
        double g_ = (got), w_ = (want);                                                                                \
        CHECK_MSG(fabs(g_ - w_) <= (tol)*fmax(1.0, fabs(w_)), "%s: got %.17g, want %.17g", #got, g_, w_);              \
    } while (0)

/* A replay: a parsed call, its operands and their buffers. */
typedef struct {
    jv_desc d;
    jv_operands ops;
    void *bufs[JV_MAX_OPERANDS];
} replay;

static JV_TEST_UNUSED void replay_free(replay *r) {
    for (int i = 0; i < r->ops.n; i++)
        free(r->bufs[i]);
    memset(r->bufs, 0, sizeof r->bufs);
    r->ops.n = 0;
}

/* deterministic value of element l of stream seed: multiples of 1/8 in [-2, 2) (exact in bf16 and fp16) */
static JV_TEST_UNUSED double value_at(unsigned seed, int64_t l) {
    uint64_t x = (uint64_t)l * 2654435761u + (uint64_t)seed * 40503u + 12345u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    return (double)((int)(x % 32u) - 16) / 8.0;
}

static JV_TEST_UNUSED int find(const replay *r, const char *name) {
    for (int i = 0; i < r->ops.n; i++)
        if (!strcmp(r->ops.o[i].name, name)) return i;
    return -1;
}

static JV_TEST_UNUSED double get(const replay *r, int i, int64_t l) {
    const jv_tensor *t = &r->ops.o[i].t;
    return jv_dtype_load(t->dtype, r->bufs[i], jv_tensor_offset_at(t, l));
}

static JV_TEST_UNUSED void set(replay *r, int i, int64_t l, double v) {
    const jv_tensor *t = &r->ops.o[i].t;
    jv_dtype_store(t->dtype, r->bufs[i], jv_tensor_offset_at(t, l), v);
}

static JV_TEST_UNUSED jv_status parse_call(const char *name, const char *dims, const char *types, const char *strides,
                                           const char *concrete, jv_desc *d) {
    jv_opcall c;
    jv_err err;
    jv_err_clear(&err);
    memset(d, 0, sizeof *d);
    jv_status st = jv_opcall_from_trace(&c, name, dims, types, strides, concrete, &err);
    if (st == JV_OK) st = jv_desc_parse(&c, d, &err);
    if (st != JV_OK) fprintf(stderr, "parse %s: %s\n", name, err.msg);
    jv_opcall_free(&c);
    return st;
}

/* Parses the call, lists its operands and allocates a zeroed buffer for each
 * (its storage extent). Returns 0, with a message, on failure. */
static JV_TEST_UNUSED int replay_open(replay *r, const char *name, const char *dims, const char *types,
                                      const char *strides, const char *concrete) {
    memset(r, 0, sizeof *r);
    jv_err err;
    jv_err_clear(&err);
    if (parse_call(name, dims, types, strides, concrete, &r->d) != JV_OK) return 0;
    if (jv_desc_operands(&r->d, &r->ops, &err) != JV_OK) {
        fprintf(stderr, "operands %s: %s\n", name, err.msg);
        return 0;
    }
    for (int i = 0; i < r->ops.n; i++) {
        const jv_tensor *t = &r->ops.o[i].t;
        int64_t ext = jv_tensor_extent(t);
        r->bufs[i] = calloc((size_t)(ext > 0 ? ext : 1), jv_dtype_size(t->dtype));
        if (!r->bufs[i]) return 0;
    }
    return 1;
}

static JV_TEST_UNUSED jv_status reference(replay *r, const jv_sample *s) {
    jv_err err;
    jv_err_clear(&err);
    jv_status st = jv_desc_reference(&r->d, &r->ops, r->bufs, s, &err);
    if (st != JV_OK) fprintf(stderr, "reference: %s\n", err.msg);
    return st;
}

#endif

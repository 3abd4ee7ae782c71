/* test_ref_conv.h: the helpers test_ref_conv.c and test_ref_conv_identities.c share: the counting checks
 * (jv_check.h, CHECK_NEAR, CHECK_EQ), conv calls built from a spec as trace texts (build_fwd, build_bwd,
 * build_raw), and their operands' values (at, put, fill_rand, run, dot, same_values, ...). Include once per
 * test program. */
#ifndef TEST_REF_CONV_H
#define TEST_REF_CONV_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv/conv.h"

#include "jv_check.h"

static void near_at(double got, double want, double tol, const char *what, const char *file, int line) {
    if (fabs(got - want) <= tol) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "%s:%d: FAILED: %s: got %.17g, want %.17g (tol %.3g)\n", file, line, what, got, want, tol);
    }
}
/* |got - want| <= tol */
#define CHECK_NEAR(got, want, tol) near_at((got), (want), (tol), #got, __FILE__, __LINE__)
/* exact (hand-computed values are small integers or halves: exact in double) */
#define CHECK_EQ(got, want) near_at((got), (want), 0.0, #got, __FILE__, __LINE__)

/* ---- building calls ---- */

typedef struct {
    const char *name;   /* NULL: aten::convolution */
    int nd;             /* spatial dims */
    int unbatched;      /* x given without its batch dim (conv1d/2d/3d only) */
    int64_t x[5], w[5]; /* x as given; w [C_out, C_in/groups, k...] or transposed [C_in, C_out/groups, k...] */
    int64_t xs[5];      /* x strides; all 0: contiguous */
    int64_t ws[5];      /* w strides; all 0: contiguous */
    int cl;             /* x channels_last (NHWC / NDHWC strides) */
    int bias;
    int64_t stride[3], pad[3], dil[3], opad[3]; /* 0 in stride or dil: 1 */
    const char *padstr;                         /* "same" / "valid" (conv1d/2d/3d); NULL: pad[] */
    int transposed;
    int64_t groups;    /* 0: 1 */
    const char *dtype; /* trace type name; NULL: "double" */
} spec;

typedef struct {
    jv_desc d;
    jv_operands ops;
    void *bufs[JV_MAX_OPERANDS];
} call;

static int64_t one_if0(int64_t v) {
    return v ? v : 1;
}

static void fmt_ints(char *buf, size_t cap, const int64_t *v, int n) {
    size_t k = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (k < cap) snprintf(buf + k, cap - k, "]");
}

/* Row-major strides of shape (or NHWC when cl and the rank is 4 or 5). */
static void strides_of(const int64_t *shape, int n, int cl, int64_t *st) {
    if (cl && n >= 4) {
        int64_t run = shape[1];
        st[1] = 1;
        for (int i = n - 1; i >= 2; i--) {
            st[i] = run;
            run *= shape[i];
        }
        st[0] = run;
        return;
    }
    int64_t run = 1;
    for (int i = n - 1; i >= 0; i--) {
        st[i] = run;
        run *= shape[i];
    }
}

static int all_zero(const int64_t *v, int n) {
    for (int i = 0; i < n; i++)
        if (v[i]) return 0;
    return 1;
}

/* Parses the call, lists its operands and allocates (zeroed) buffers. */
static jv_status build_raw(call *c, const char *name, const char *dims, const char *types, const char *strides,
                           const char *concrete) {
    memset(c, 0, sizeof *c);
    jv_opcall oc;
    jv_err err;
    jv_err_clear(&err);
    jv_status st = jv_opcall_from_trace(&oc, name, dims, types, strides, concrete, &err);
    if (st == JV_OK) st = jv_desc_parse(&oc, &c->d, &err);
    jv_opcall_free(&oc);
    if (st == JV_OK) st = jv_desc_operands(&c->d, &c->ops, &err);
    if (st != JV_OK) return st;
    for (int i = 0; i < c->ops.n; i++) {
        const jv_tensor *t = &c->ops.o[i].t;
        size_t bytes = (size_t)jv_tensor_extent(t) * jv_dtype_size(t->dtype);
        c->bufs[i] = calloc(bytes ? bytes : 1, 1);
        if (!c->bufs[i]) return JV_ERR_NOMEM;
    }
    return JV_OK;
}

static void call_free(call *c) {
    for (int i = 0; i < JV_MAX_OPERANDS; i++) {
        free(c->bufs[i]);
        c->bufs[i] = NULL;
    }
}

/* x's strides text of a spec */
static void x_strides(const spec *p, char *buf, size_t cap) {
    int xr = p->nd + 2 - p->unbatched;
    int64_t st[5];
    if (!all_zero(p->xs, xr))
        memcpy(st, p->xs, sizeof st);
    else
        strides_of(p->x, xr, p->cl, st);
    fmt_ints(buf, cap, st, xr);
}

static void w_strides(const spec *p, char *buf, size_t cap) {
    int64_t st[5];
    if (!all_zero(p->ws, p->nd + 2))
        memcpy(st, p->ws, sizeof st);
    else
        strides_of(p->w, p->nd + 2, 0, st);
    fmt_ints(buf, cap, st, p->nd + 2);
}

static void spatial_params(const spec *p, char *s, char *pd, char *dl, char *op, size_t cap) {
    int64_t a[3], b[3], e[3];
    for (int i = 0; i < p->nd; i++) {
        a[i] = one_if0(p->stride[i]);
        b[i] = one_if0(p->dil[i]);
        e[i] = p->opad[i];
    }
    fmt_ints(s, cap, a, p->nd);
    fmt_ints(dl, cap, b, p->nd);
    fmt_ints(op, cap, e, p->nd);
    if (p->padstr)
        snprintf(pd, cap, "%s", p->padstr);
    else
        fmt_ints(pd, cap, p->pad, p->nd);
}

static int64_t c_out_of(const spec *p) {
    return p->transposed ? p->w[1] * one_if0(p->groups) : p->w[0];
}

/* A forward call: aten::convolution, or p->name (conv1d/2d/3d, conv_transpose*). */
static jv_status build_fwd(call *c, const spec *p) {
    char xs[128], ws[128], xst[128], wst[128], bs[64] = "[]", bst[64] = "[]";
    char s[64], pd[64], dl[64], op[64], dims[600], types[400], strides[600], conc[600];
    const char *dt = p->dtype ? p->dtype : "double";
    int xr = p->nd + 2 - p->unbatched;
    fmt_ints(xs, sizeof xs, p->x, xr);
    fmt_ints(ws, sizeof ws, p->w, p->nd + 2);
    x_strides(p, xst, sizeof xst);
    w_strides(p, wst, sizeof wst);
    if (p->bias) {
        int64_t co = c_out_of(p), one = 1;
        fmt_ints(bs, sizeof bs, &co, 1);
        fmt_ints(bst, sizeof bst, &one, 1);
    }
    spatial_params(p, s, pd, dl, op, sizeof s);
    const char *name = p->name ? p->name : "aten::convolution";
    long long g = one_if0(p->groups);
    if (!strcmp(name, "aten::convolution")) {
        snprintf(dims, sizeof dims, "[%s, %s, %s, [], [], [], [], [], []]", xs, ws, bs);
        snprintf(types, sizeof types, "[\"%s\", \"%s\", \"%s\", \"\", \"\", \"\", \"\", \"\", \"\"]", dt, dt,
                 p->bias ? dt : "");
        snprintf(strides, sizeof strides, "[%s, %s, %s, [], [], [], [], [], []]", xst, wst, bst);
        snprintf(conc, sizeof conc, "[\"\", \"\", \"\", \"%s\", \"%s\", \"%s\", \"%s\", \"%s\", \"%lld\"]", s, pd, dl,
                 p->transposed ? "True" : "False", op, g);
    } else if (p->transposed) { /* conv_transpose1d/2d/3d(input, weight, bias, stride, padding, output_padding,
                                    groups, dilation) */
        snprintf(dims, sizeof dims, "[%s, %s, %s, [], [], [], [], []]", xs, ws, bs);
        snprintf(types, sizeof types, "[\"%s\", \"%s\", \"%s\", \"\", \"\", \"\", \"\", \"\"]", dt, dt,
                 p->bias ? dt : "");
        snprintf(strides, sizeof strides, "[%s, %s, %s, [], [], [], [], []]", xst, wst, bst);
        snprintf(conc, sizeof conc, "[\"\", \"\", \"\", \"%s\", \"%s\", \"%s\", \"%lld\", \"%s\"]", s, pd, op, g, dl);
    } else { /* conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups) */
        snprintf(dims, sizeof dims, "[%s, %s, %s, [], [], [], []]", xs, ws, bs);
        snprintf(types, sizeof types, "[\"%s\", \"%s\", \"%s\", \"\", \"\", \"\", \"\"]", dt, dt, p->bias ? dt : "");
        snprintf(strides, sizeof strides, "[%s, %s, %s, [], [], [], []]", xst, wst, bst);
        snprintf(conc, sizeof conc, "[\"\", \"\", \"\", \"%s\", \"%s\", \"%s\", \"%lld\"]", s, pd, dl, g);
    }
    return build_raw(c, name, dims, types, strides, conc);
}

/* aten::convolution_backward of p's conv; go: grad_output's shape (NULL: not traced); mask "[True, True, False]". */
static jv_status build_bwd(call *c, const spec *p, const int64_t *go, const char *mask) {
    char xs[128], ws[128], xst[128], wst[128], gs[128] = "[]", gst[128] = "[]", bsz[64];
    char s[64], pd[64], dl[64], op[64], dims[800], types[400], strides[800], conc[800];
    const char *dt = p->dtype ? p->dtype : "double";
    int r = p->nd + 2;
    fmt_ints(xs, sizeof xs, p->x, r);
    fmt_ints(ws, sizeof ws, p->w, r);
    x_strides(p, xst, sizeof xst);
    w_strides(p, wst, sizeof wst);
    if (go) {
        int64_t st[5];
        fmt_ints(gs, sizeof gs, go, r);
        strides_of(go, r, p->cl, st);
        fmt_ints(gst, sizeof gst, st, r);
    }
    int64_t co = c_out_of(p);
    fmt_ints(bsz, sizeof bsz, &co, 1);
    spatial_params(p, s, pd, dl, op, sizeof s);
    snprintf(dims, sizeof dims, "[%s, %s, %s, [], [], [], [], [], [], [], []]", gs, xs, ws);
    snprintf(types, sizeof types, "[\"%s\", \"%s\", \"%s\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\"]",
             go ? dt : "", dt, dt);
    snprintf(strides, sizeof strides, "[%s, %s, %s, [], [], [], [], [], [], [], []]", gst, xst, wst);
    snprintf(conc, sizeof conc, "[\"\", \"\", \"\", \"%s\", \"%s\", \"%s\", \"%s\", \"%s\", \"%s\", \"%lld\", \"%s\"]",
             bsz, s, pd, dl, p->transposed ? "True" : "False", op, (long long)one_if0(p->groups), mask);
    return build_raw(c, "aten::convolution_backward", dims, types, strides, conc);
}

/* ---- operand access ---- */

static int opi(const call *c, const char *name) {
    for (int i = 0; i < c->ops.n; i++)
        if (!strcmp(c->ops.o[i].name, name)) return i;
    return -1;
}

static int64_t numel(const call *c, int i) {
    return jv_tensor_numel(&c->ops.o[i].t);
}

static double at(const call *c, int i, int64_t li) {
    const jv_tensor *t = &c->ops.o[i].t;
    return jv_dtype_load(t->dtype, c->bufs[i], jv_tensor_offset_at(t, li));
}

static void put(call *c, int i, int64_t li, double v) {
    const jv_tensor *t = &c->ops.o[i].t;
    jv_dtype_store(t->dtype, c->bufs[i], jv_tensor_offset_at(t, li), v);
}

static __attribute__((unused)) void set_all(call *c, int i, const double *v) {
    for (int64_t k = 0; k < numel(c, i); k++)
        put(c, i, k, v[k]);
}

static void fill_const(call *c, int i, double v) {
    for (int64_t k = 0; k < numel(c, i); k++)
        put(c, i, k, v);
}

static double urand(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* [-1, 1) */
}

static void fill_rand(call *c, int i, uint64_t *seed) {
    for (int64_t k = 0; k < numel(c, i); k++)
        put(c, i, k, urand(seed));
}

/* dst operand di takes src operand si's logical values (same shape) */
static void copy_op(call *dst, int di, const call *src, int si) {
    for (int64_t k = 0; k < numel(src, si); k++)
        put(dst, di, k, at(src, si, k));
}

static jv_status run(call *c, const jv_sample *s) {
    jv_err err;
    jv_err_clear(&err);
    jv_status st = jv_desc_reference(&c->d, &c->ops, c->bufs, s, &err);
    if (st != JV_OK) fprintf(stderr, "reference: %s\n", err.msg);
    return st;
}

/* sum of a[i] * b[i] over logical elements, and sum |a[i] * b[i]| */
static __attribute__((unused)) double dot(const call *a, int ia, const call *b, int ib, double *abs_sum) {
    double s = 0, as = 0;
    for (int64_t k = 0; k < numel(a, ia); k++) {
        double p = at(a, ia, k) * at(b, ib, k);
        s += p;
        as += fabs(p);
    }
    if (abs_sum) *abs_sum = as;
    return s;
}

/* 1 when operand ia of a and ib of b hold equal values element for element */
static int same_values(const call *a, int ia, const call *b, int ib) {
    if (numel(a, ia) != numel(b, ib)) return 0;
    for (int64_t k = 0; k < numel(a, ia); k++)
        if (at(a, ia, k) != at(b, ib, k)) {
            fprintf(stderr, "  element %lld: %.17g != %.17g\n", (long long)k, at(a, ia, k), at(b, ib, k));
            return 0;
        }
    return 1;
}

#endif

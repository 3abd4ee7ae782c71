/* Unit tests of the conv family's replay operands and CPU reference
 * (kernels/conv/conv_ref.c), through the registry (jv_desc_parse,
 * jv_desc_operands, jv_desc_reference) on calls built from trace texts:
 *   - hand-computed cases (arithmetic in the comments): a 1-channel 4x4 with a
 *     2x2 kernel, stride 2, padding 1 (forward, bias, and its three grads);
 *     groups=2 with dilation 2 in 2d (with bias) and 1d; a 3d case; a 1d
 *     transposed conv with output_padding and with padding; "same" padding
 *     with even kernels;
 *   - adjoint identities on random data: <conv(x,w), g> == <x, grad_input(g,w)>
 *     == <w, grad_weight(g,x)> (normal and transposed, 1d/2d/3d, groups,
 *     depthwise, stride, padding, dilation), to 1e-10 of sum |y*g|;
 *     a transposed conv's forward equals grad_input of the matching normal
 *     conv; grad_bias equals the sums of grad_output;
 *   - layout invariance: channels_last and padded-stride inputs, a
 *     channels_last weight, give the same values as contiguous ones;
 *   - "same" padding with even kernels against a direct loop;
 *   - fp16 / bf16 storage within half an ulp (plus fp32 double rounding) of
 *     the fp64 result on the same inputs;
 *   - sampled runs: the listed elements equal the full run bit for bit, the
 *     rest (and the other outputs) stay untouched; bad samples are refused;
 *   - an unbatched conv2d equals the batched call;
 *   - the operand lists (names, shapes, strides, roles) and their refusals. */
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

static void set_all(call *c, int i, const double *v) {
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
static double dot(const call *a, int ia, const call *b, int ib, double *abs_sum) {
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

/* ---- hand-computed cases ---- */

static void test_hand_4x4(void) {
    /* x = 1..16 as 4x4, w = [[1, 2], [3, 4]], stride 2, padding 1: out 3x3,
     * out[oy][ox] = sum w[ky][kx] * x[2oy-1+ky][2ox-1+kx]:
     *   [0][0] = x00*w11 = 4;  [0][1] = x01*w10 + x02*w11 = 6 + 12 = 18;  [0][2] = x03*w10 = 12
     *   [1][0] = x10*w01 + x20*w11 = 10 + 36 = 46;  [1][1] = 6 + 14 + 30 + 44 = 94;  [1][2] = x13*w00 + x23*w10 = 44
     *   [2][0] = x30*w01 = 26;  [2][1] = x31*w00 + x32*w01 = 44;  [2][2] = x33*w00 = 16 */
    static const double X[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, W[4] = {1, 2, 3, 4};
    static const double OUT[9] = {4, 18, 12, 46, 94, 44, 26, 44, 16};
    spec p = {.nd = 2, .x = {1, 1, 4, 4}, .w = {1, 1, 2, 2}, .stride = {2, 2}, .pad = {1, 1}};
    call c;
    CHECK(build_fwd(&c, &p) == JV_OK);
    CHECK(c.ops.n == 3);
    int ix = opi(&c, "input"), iw = opi(&c, "weight"), io = opi(&c, "out");
    CHECK(ix == 0 && iw == 1 && io == 2);
    CHECK(c.ops.o[io].t.ndim == 4 && c.ops.o[io].t.shape[2] == 3 && c.ops.o[io].t.shape[3] == 3);
    set_all(&c, ix, X);
    set_all(&c, iw, W);
    CHECK(run(&c, NULL) == JV_OK);
    for (int k = 0; k < 9; k++)
        CHECK_EQ(at(&c, io, k), OUT[k]);
    call_free(&c);

    /* with a bias of 0.5: every output + 0.5 */
    p.bias = 1;
    CHECK(build_fwd(&c, &p) == JV_OK);
    CHECK(c.ops.n == 4 && opi(&c, "bias") == 2 && opi(&c, "out") == 3);
    set_all(&c, 0, X);
    set_all(&c, 1, W);
    fill_const(&c, 2, 0.5);
    CHECK(run(&c, NULL) == JV_OK);
    for (int k = 0; k < 9; k++)
        CHECK_EQ(at(&c, 3, k), OUT[k] + 0.5);
    call_free(&c);

    /* backward with grad_out = ones:
     * grad_input[iy][ix] = w[(iy+1)%2][(ix+1)%2] (each input position is hit by exactly one tap):
     *   rows 4 3 4 3 / 2 1 2 1 / 4 3 4 3 / 2 1 2 1;
     * grad_weight[ky][kx] = sum of x over iy in 2oy-1+ky, ix in 2ox-1+kx (inside):
     *   w00: x11+x13+x31+x33 = 6+8+14+16 = 44;  w01: x10+x12+x30+x32 = 5+7+13+15 = 40;
     *   w10: x01+x03+x21+x23 = 2+4+10+12 = 28;  w11: x00+x02+x20+x22 = 1+3+9+11 = 24;
     * grad_bias = 9 (nine outputs). */
    static const double GI[16] = {4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1}, GW[4] = {44, 40, 28, 24};
    p.bias = 0;
    const int64_t go[4] = {1, 1, 3, 3};
    CHECK(build_bwd(&c, &p, go, "[True, True, True]") == JV_OK);
    CHECK(c.ops.n == 6);
    CHECK(opi(&c, "grad_output") == 0 && opi(&c, "input") == 1 && opi(&c, "weight") == 2);
    CHECK(opi(&c, "grad_input") == 3 && opi(&c, "grad_weight") == 4 && opi(&c, "grad_bias") == 5);
    fill_const(&c, 0, 1.0);
    set_all(&c, 1, X);
    set_all(&c, 2, W);
    CHECK(run(&c, NULL) == JV_OK);
    for (int k = 0; k < 16; k++)
        CHECK_EQ(at(&c, 3, k), GI[k]);
    for (int k = 0; k < 4; k++)
        CHECK_EQ(at(&c, 4, k), GW[k]);
    CHECK_EQ(at(&c, 5, 0), 9);
    call_free(&c);
}

static void test_hand_groups_dilation(void) {
    /* 2d, groups 2, dilation 2, no padding: x [1, 2, 3, 3] (ch0 = 1..9, ch1 = 10..18),
     * w [2, 1, 2, 2] = ch0 [[1, 2], [3, 4]], ch1 [[0, 1], [1, 0]], bias [0.5, -1]: out [1, 2, 1, 1]
     * reads the corners: ch0 1*1 + 3*2 + 7*3 + 9*4 + 0.5 = 64.5; ch1 12 + 16 - 1 = 27. */
    spec p = {.nd = 2, .x = {1, 2, 3, 3}, .w = {2, 1, 2, 2}, .dil = {2, 2}, .groups = 2, .bias = 1};
    call c;
    CHECK(build_fwd(&c, &p) == JV_OK);
    for (int k = 0; k < 18; k++)
        put(&c, 0, k, k + 1);
    static const double W[8] = {1, 2, 3, 4, 0, 1, 1, 0}, B[2] = {0.5, -1};
    set_all(&c, 1, W);
    set_all(&c, 2, B);
    CHECK(run(&c, NULL) == JV_OK);
    CHECK(numel(&c, 3) == 2);
    CHECK_EQ(at(&c, 3, 0), 64.5);
    CHECK_EQ(at(&c, 3, 1), 27);
    call_free(&c);

    /* 1d, groups 2, dilation 2: x [1, 2, 5] = ch0 [1, 2, 3, 4, 5], ch1 [2, 1, 0, -1, 3];
     * w [2, 1, 2] = ch0 [1, 10], ch1 [3, -1]: out length 5 - 2 = 3,
     * ch0[o] = x0[o] + 10 x0[o+2] = 31, 42, 53;  ch1[o] = 3 x1[o] - x1[o+2] = 6, 4, -3 */
    spec q = {.nd = 1, .x = {1, 2, 5}, .w = {2, 1, 2}, .dil = {2}, .groups = 2};
    CHECK(build_fwd(&c, &q) == JV_OK);
    static const double X1[10] = {1, 2, 3, 4, 5, 2, 1, 0, -1, 3}, W1[4] = {1, 10, 3, -1};
    static const double O1[6] = {31, 42, 53, 6, 4, -3};
    set_all(&c, 0, X1);
    set_all(&c, 1, W1);
    CHECK(run(&c, NULL) == JV_OK);
    CHECK(numel(&c, 2) == 6);
    for (int k = 0; k < 6; k++)
        CHECK_EQ(at(&c, 2, k), O1[k]);
    call_free(&c);
}

static void test_hand_3d(void) {
    /* x [1, 1, 2, 2, 2] = 1..8, w [1, 1, 2, 2, 2] = 1..8, padding 1: out [1, 1, 3, 3, 3];
     * out[0,0,0] = x000 * w111 = 8; out[1,1,1] = sum x_i w_i = 1+4+...+64 = 204;
     * out[2,2,2] = x111 * w000 = 8; out[0,0,1] = x000 * w110 + x001 * w111 = 7 + 16 = 23;
     * out[1,0,0] = x000 * w011 + x100 * w111 = 1*4 + 5*8 = 44. */
    spec p = {.nd = 3, .x = {1, 1, 2, 2, 2}, .w = {1, 1, 2, 2, 2}, .pad = {1, 1, 1}};
    call c;
    CHECK(build_fwd(&c, &p) == JV_OK);
    for (int k = 0; k < 8; k++) {
        put(&c, 0, k, k + 1);
        put(&c, 1, k, k + 1);
    }
    CHECK(run(&c, NULL) == JV_OK);
    CHECK(numel(&c, 2) == 27);
    CHECK_EQ(at(&c, 2, 0), 8);
    CHECK_EQ(at(&c, 2, 13), 204);
    CHECK_EQ(at(&c, 2, 26), 8);
    CHECK_EQ(at(&c, 2, 1), 23);
    CHECK_EQ(at(&c, 2, 9), 44);
    call_free(&c);
}

static void test_hand_transposed(void) {
    /* conv_transpose1d: x [1, 1, 2] = [1, 2], w [1, 1, 3] = [1, 10, 100], stride 2:
     * out[2i + k] += x[i] w[k]: [1, 10, 100+2, 20, 200]; output_padding 1 adds a 6th
     * position that no tap reaches; bias 0.25 is added everywhere. */
    spec p = {.nd = 1, .x = {1, 1, 2}, .w = {1, 1, 3}, .stride = {2}, .opad = {1}, .transposed = 1, .bias = 1};
    static const double X[2] = {1, 2}, W[3] = {1, 10, 100}, OUT[6] = {1, 10, 102, 20, 200, 0};
    call c;
    CHECK(build_fwd(&c, &p) == JV_OK);
    CHECK(numel(&c, 3) == 6);
    set_all(&c, 0, X);
    set_all(&c, 1, W);
    fill_const(&c, 2, 0.25);
    CHECK(run(&c, NULL) == JV_OK);
    for (int k = 0; k < 6; k++)
        CHECK_EQ(at(&c, 3, k), OUT[k] + 0.25);
    call_free(&c);

    /* padding 1 crops one position at each end: length (2-1)*2 - 2 + 2 + 1 = 3: [10, 102, 20] */
    spec q = {.nd = 1,
              .x = {1, 1, 2},
              .w = {1, 1, 3},
              .stride = {2},
              .pad = {1},
              .transposed = 1,
              .name = "aten::conv_transpose1d"};
    CHECK(build_fwd(&c, &q) == JV_OK);
    CHECK(numel(&c, 2) == 3);
    set_all(&c, 0, X);
    set_all(&c, 1, W);
    CHECK(run(&c, NULL) == JV_OK);
    CHECK_EQ(at(&c, 2, 0), 10);
    CHECK_EQ(at(&c, 2, 1), 102);
    CHECK_EQ(at(&c, 2, 2), 20);
    call_free(&c);
}

static void test_hand_same(void) {
    /* conv1d padding="same", x = [1, 2, 3, 4]:
     * k = 4, w = [1, 10, 100, 1000]: total pad 3 = 1 left + 2 right,
     *   out[i] = sum_k w[k] x[i-1+k] = 3210, 4321, 432, 43;
     * k = 2, w = [1, 10]: total pad 1 = 0 left + 1 right: out[i] = x[i] + 10 x[i+1] = 21, 32, 43, 4. */
    static const double X[4] = {1, 2, 3, 4}, W4[4] = {1, 10, 100, 1000}, W2[2] = {1, 10};
    static const double O4[4] = {3210, 4321, 432, 43}, O2[4] = {21, 32, 43, 4};
    spec p = {.name = "aten::conv1d", .nd = 1, .x = {1, 1, 4}, .w = {1, 1, 4}, .padstr = "same"};
    call c;
    CHECK(build_fwd(&c, &p) == JV_OK);
    CHECK(numel(&c, 2) == 4);
    set_all(&c, 0, X);
    set_all(&c, 1, W4);
    CHECK(run(&c, NULL) == JV_OK);
    for (int k = 0; k < 4; k++)
        CHECK_EQ(at(&c, 2, k), O4[k]);
    call_free(&c);
    p.w[2] = 2;
    CHECK(build_fwd(&c, &p) == JV_OK);
    set_all(&c, 0, X);
    set_all(&c, 1, W2);
    CHECK(run(&c, NULL) == JV_OK);
    for (int k = 0; k < 4; k++)
        CHECK_EQ(at(&c, 2, k), O2[k]);
    call_free(&c);
}

/* conv2d padding="same" with even kernels and dilation against a direct loop
 * (left pad d(k-1)/2, the odd remainder on the right). */
static void test_same_2d(void) {
    spec p = {.name = "aten::conv2d",
              .nd = 2,
              .x = {2, 3, 6, 7},
              .w = {4, 3, 4, 2},
              .dil = {1, 3},
              .padstr = "same",
              .bias = 1};
    call c;
    uint64_t seed = 0x1234567u;
    CHECK(build_fwd(&c, &p) == JV_OK);
    for (int i = 0; i < 3; i++)
        fill_rand(&c, i, &seed);
    CHECK(run(&c, NULL) == JV_OK);
    const jv_tensor *o = &c.ops.o[3].t;
    CHECK(o->shape[0] == 2 && o->shape[1] == 4 && o->shape[2] == 6 && o->shape[3] == 7);
    int64_t pl0 = 1 * (4 - 1) / 2, pl1 = 3 * (2 - 1) / 2; /* 1 and 1 (right: 2 and 2) */
    double maxerr = 0;
    for (int64_t n = 0; n < 2; n++)
        for (int64_t co = 0; co < 4; co++)
            for (int64_t y = 0; y < 6; y++)
                for (int64_t x = 0; x < 7; x++) {
                    double s = at(&c, 2, co);
                    for (int64_t ci = 0; ci < 3; ci++)
                        for (int64_t ky = 0; ky < 4; ky++)
                            for (int64_t kx = 0; kx < 2; kx++) {
                                int64_t iy = y - pl0 + ky, ix = x - pl1 + 3 * kx;
                                if (iy < 0 || iy >= 6 || ix < 0 || ix >= 7) continue;
                                s += at(&c, 1, ((co * 3 + ci) * 4 + ky) * 2 + kx) *
                                     at(&c, 0, ((n * 3 + ci) * 6 + iy) * 7 + ix);
                            }
                    double got = at(&c, 3, ((n * 4 + co) * 6 + y) * 7 + x);
                    if (fabs(got - s) > maxerr) maxerr = fabs(got - s);
                }
    CHECK_NEAR(maxerr, 0, 1e-13);
    call_free(&c);
}

/* ---- adjoint identities ---- */

static const spec ADJ_SPECS[] = {
    /* 2d, groups 2, stride (2, 1), padding (1, 0), dilation (1, 2), non-square kernel */
    {.nd = 2, .x = {2, 4, 7, 6}, .w = {6, 2, 3, 2}, .stride = {2, 1}, .pad = {1, 0}, .dil = {1, 2}, .groups = 2},
    /* 1d depthwise, stride 3, padding 2, dilation 2 */
    {.nd = 1, .x = {3, 3, 11}, .w = {3, 1, 3}, .stride = {3}, .pad = {2}, .dil = {2}, .groups = 3},
    /* 3d */
    {.nd = 3, .x = {1, 2, 5, 4, 6}, .w = {4, 2, 2, 3, 2}, .stride = {1, 2, 2}, .pad = {1, 1, 0}, .dil = {2, 1, 1}},
    /* 2d, depthwise with channel multiplier 2, stride 2 that leaves input rows unread */
    {.nd = 2, .x = {2, 3, 8, 5}, .w = {6, 1, 2, 3}, .stride = {3, 2}, .pad = {0, 1}, .groups = 3},
    /* transposed 2d, groups 2 (C_out 6), stride (2, 3), padding (1, 0), dilation (1, 2), output_padding (1, 2) */
    {.nd = 2,
     .x = {2, 4, 5, 4},
     .w = {4, 3, 3, 2},
     .stride = {2, 3},
     .pad = {1, 0},
     .dil = {1, 2},
     .opad = {1, 2},
     .groups = 2,
     .transposed = 1},
    /* transposed 1d, output_padding 1 < dilation 2 with stride 1 */
    {.nd = 1, .x = {2, 2, 6}, .w = {2, 3, 3}, .dil = {2}, .opad = {1}, .pad = {1}, .transposed = 1},
    /* transposed 3d depthwise */
    {.nd = 3,
     .x = {1, 2, 3, 3, 2},
     .w = {2, 1, 2, 2, 3},
     .stride = {2, 1, 2},
     .pad = {0, 1, 1},
     .groups = 2,
     .transposed = 1},
};

static void test_adjoint(void) {
    for (size_t si = 0; si < sizeof ADJ_SPECS / sizeof ADJ_SPECS[0]; si++) {
        const spec *p = &ADJ_SPECS[si];
        uint64_t seed = 0x9E3779B97F4A7C15ull + si;
        call f, b;
        CHECK(build_fwd(&f, p) == JV_OK);
        fill_rand(&f, 0, &seed);
        fill_rand(&f, 1, &seed);
        CHECK(run(&f, NULL) == JV_OK);
        const jv_conv_desc *g = jv_conv_of(&f.d);
        CHECK(build_bwd(&b, p, g->out, "[True, True, True]") == JV_OK);
        int igo = opi(&b, "grad_output"), ix = opi(&b, "input"), iw = opi(&b, "weight");
        int igi = opi(&b, "grad_input"), igw = opi(&b, "grad_weight"), igb = opi(&b, "grad_bias");
        CHECK(igo == 0 && ix == 1 && iw == 2 && igi == 3 && igw == 4 && igb == 5);
        fill_rand(&b, igo, &seed);
        copy_op(&b, ix, &f, 0);
        copy_op(&b, iw, &f, 1);
        CHECK(run(&b, NULL) == JV_OK);
        double scale, s1, s2;
        double yg = dot(&f, 2, &b, igo, &scale);
        double xgi = dot(&f, 0, &b, igi, &s1), wgw = dot(&f, 1, &b, igw, &s2);
        CHECK(scale > 0);
        CHECK_NEAR(xgi, yg, 1e-10 * scale);
        CHECK_NEAR(wgw, yg, 1e-10 * scale);
        /* grad_bias = sums of grad_output over N and the spatial dims */
        const jv_tensor *got = &b.ops.o[igo].t;
        int64_t per = numel(&b, igo) / (got->shape[0] * got->shape[1]);
        for (int64_t c = 0; c < got->shape[1]; c++) {
            double s = 0, a = 0;
            for (int64_t n = 0; n < got->shape[0]; n++)
                for (int64_t k = 0; k < per; k++) {
                    double v = at(&b, igo, (n * got->shape[1] + c) * per + k);
                    s += v;
                    a += fabs(v);
                }
            CHECK_NEAR(at(&b, igb, c), s, 1e-13 * a);
        }
        call_free(&f);
        call_free(&b);
    }
}

/* The transposed conv's forward equals grad_input of the normal conv it transposes:
 * spec 4 of ADJ_SPECS, out [2, 6, 10, 14]; the normal conv [2, 6, 10, 14] -> [2, 4, 5, 4]. */
static void test_transposed_is_grad_input(void) {
    const spec *t = &ADJ_SPECS[4];
    uint64_t seed = 42;
    call f, b;
    CHECK(build_fwd(&f, t) == JV_OK);
    const jv_tensor *o = &f.ops.o[2].t;
    CHECK(o->shape[0] == 2 && o->shape[1] == 6 && o->shape[2] == 10 && o->shape[3] == 14);
    fill_rand(&f, 0, &seed);
    fill_rand(&f, 1, &seed);
    CHECK(run(&f, NULL) == JV_OK);
    spec n = *t;
    n.transposed = 0;
    n.opad[0] = n.opad[1] = 0;
    memcpy(n.x, o->shape, 4 * sizeof n.x[0]);
    CHECK(build_bwd(&b, &n, t->x, "[True, False, False]") == JV_OK);
    CHECK(b.ops.n == 4 && opi(&b, "grad_input") == 3);
    copy_op(&b, 0, &f, 0); /* grad_output = the transposed conv's input */
    copy_op(&b, 2, &f, 1);
    CHECK(run(&b, NULL) == JV_OK);
    CHECK(same_values(&b, 3, &f, 2));
    call_free(&f);
    call_free(&b);

    /* and the other way: a normal conv's forward is grad_input of its transposed conv */
    const spec *q = &ADJ_SPECS[0];
    CHECK(build_fwd(&f, q) == JV_OK);
    fill_rand(&f, 0, &seed);
    fill_rand(&f, 1, &seed);
    CHECK(run(&f, NULL) == JV_OK);
    const jv_conv_desc *g = jv_conv_of(&f.d);
    spec tq = *q;
    tq.transposed = 1;
    memcpy(tq.x, g->out, 4 * sizeof tq.x[0]);
    /* the transposed conv [2, 6, 4, 4] -> [2, 4, 7, 6] needs output_padding (0, 0): (4-1)*2 - 2 + 2 + 1 = 7, 3 + 2 + 1
     * = 6 */
    CHECK(build_bwd(&b, &tq, q->x, "[True, False, False]") == JV_OK);
    CHECK(b.ops.n == 4);
    copy_op(&b, 0, &f, 0);
    copy_op(&b, 2, &f, 1);
    CHECK(run(&b, NULL) == JV_OK);
    CHECK(same_values(&b, 3, &f, 2));
    call_free(&f);
    call_free(&b);
}

/* ---- layouts ---- */

static void test_layouts(void) {
    spec p = ADJ_SPECS[0], q = ADJ_SPECS[0];
    p.bias = q.bias = 1;
    q.cl = 1;
    uint64_t seed = 7;
    call a, c;
    CHECK(build_fwd(&a, &p) == JV_OK);
    CHECK(build_fwd(&c, &q) == JV_OK);
    const jv_tensor *oa = &a.ops.o[3].t, *oc = &c.ops.o[3].t;
    /* out [2, 6, 4, 4]: contiguous for an NCHW input, NHWC for a channels_last one */
    CHECK(oa->shape[2] == 4 && oa->shape[3] == 4);
    CHECK(oa->strides[0] == 96 && oa->strides[1] == 16 && oa->strides[2] == 4 && oa->strides[3] == 1);
    CHECK(oc->strides[0] == 96 && oc->strides[1] == 1 && oc->strides[2] == 24 && oc->strides[3] == 6);
    CHECK(c.ops.o[0].t.strides[1] == 1);
    for (int i = 0; i < 3; i++) {
        fill_rand(&a, i, &seed);
        copy_op(&c, i, &a, i);
    }
    CHECK(run(&a, NULL) == JV_OK);
    CHECK(run(&c, NULL) == JV_OK);
    CHECK(same_values(&a, 3, &c, 3));
    call_free(&c);

    /* a padded-stride input and a channels_last weight ([6, 2, 3, 2] as OHWI) */
    spec r = p;
    const int64_t xs[4] = {401, 100, 13, 2}, ws[4] = {12, 1, 4, 2};
    memcpy(r.xs, xs, sizeof xs);
    memcpy(r.ws, ws, sizeof ws);
    CHECK(build_fwd(&c, &r) == JV_OK);
    CHECK(c.ops.o[0].t.strides[2] == 13 && c.ops.o[1].t.strides[1] == 1);
    CHECK(c.ops.o[3].t.strides[1] == 16); /* a strided input gives a contiguous out */
    for (int i = 0; i < 3; i++)
        copy_op(&c, i, &a, i);
    CHECK(run(&c, NULL) == JV_OK);
    CHECK(same_values(&a, 3, &c, 3));
    call_free(&c);

    /* backward: channels_last input and weight give NHWC grad_input / OHWI grad_weight, same values */
    call ba, bc;
    const jv_conv_desc *g = jv_conv_of(&a.d);
    CHECK(build_bwd(&ba, &p, g->out, "[True, True, True]") == JV_OK);
    q.bias = 0;
    memcpy(q.ws, ws, sizeof ws);
    CHECK(build_bwd(&bc, &q, g->out, "[True, True, True]") == JV_OK);
    const jv_tensor *gi = &bc.ops.o[3].t, *gw = &bc.ops.o[4].t;
    CHECK(bc.ops.o[0].t.strides[1] == 1); /* grad_output traced NHWC */
    CHECK(gi->strides[1] == 1 && gi->strides[3] == 4 && gi->strides[2] == 24);
    CHECK(gw->strides[1] == 1 && gw->strides[3] == 2 && gw->strides[2] == 4 && gw->strides[0] == 12);
    CHECK(ba.ops.o[3].t.strides[3] == 1 && ba.ops.o[4].t.strides[3] == 1);
    for (int i = 0; i < 3; i++) {
        fill_rand(&ba, i, &seed);
        copy_op(&bc, i, &ba, i);
    }
    CHECK(run(&ba, NULL) == JV_OK);
    CHECK(run(&bc, NULL) == JV_OK);
    for (int i = 3; i < 6; i++)
        CHECK(same_values(&ba, i, &bc, i));
    call_free(&ba);
    call_free(&bc);
    call_free(&a);
}

/* ---- fp16 / bf16 storage ---- */

/* Runs spec p (forward and backward) in dtype dt and in fp64 on the same
 * (rounded) inputs; every output of dt must be within rel * |fp64| + abs_tol. */
static void check_low_precision(const spec *p0, const char *dt, double rel, double abs_tol) {
    spec p = *p0, d = *p0;
    p.dtype = dt;
    d.dtype = "double";
    uint64_t seed = 99;
    call lo, hi;
    CHECK(build_fwd(&lo, &p) == JV_OK);
    CHECK(build_fwd(&hi, &d) == JV_OK);
    CHECK(lo.ops.o[lo.ops.n - 1].t.dtype == jv_dtype_parse(dt));
    for (int i = 0; i < lo.ops.n - 1; i++) {
        fill_rand(&lo, i, &seed);
        copy_op(&hi, i, &lo, i);
    }
    CHECK(run(&lo, NULL) == JV_OK);
    CHECK(run(&hi, NULL) == JV_OK);
    int io = lo.ops.n - 1, bad = 0, inexact = 0;
    for (int64_t k = 0; k < numel(&lo, io); k++) {
        double want = at(&hi, io, k), got = at(&lo, io, k);
        if (fabs(got - want) > rel * fabs(want) + abs_tol) bad++;
        if (got != want) inexact++;
    }
    CHECK(bad == 0);
    CHECK(inexact > 0); /* the storage really was narrower */
    const jv_conv_desc *g = jv_conv_of(&lo.d);
    int64_t go[5];
    memcpy(go, g->out, sizeof go);
    call_free(&lo);
    call_free(&hi);

    p.bias = d.bias = 0;
    CHECK(build_bwd(&lo, &p, go, "[True, True, True]") == JV_OK);
    CHECK(build_bwd(&hi, &d, go, "[True, True, True]") == JV_OK);
    for (int i = 0; i < 3; i++) {
        fill_rand(&lo, i, &seed);
        copy_op(&hi, i, &lo, i);
    }
    CHECK(run(&lo, NULL) == JV_OK);
    CHECK(run(&hi, NULL) == JV_OK);
    for (int i = 3; i < 6; i++) {
        CHECK(lo.ops.o[i].t.dtype == jv_dtype_parse(dt));
        bad = 0;
        for (int64_t k = 0; k < numel(&lo, i); k++) {
            double want = at(&hi, i, k), got = at(&lo, i, k);
            if (fabs(got - want) > rel * fabs(want) + abs_tol) bad++;
        }
        CHECK(bad == 0);
    }
    call_free(&lo);
    call_free(&hi);
}

static void test_low_precision(void) {
    /* Inputs are exactly representable in both runs and the sums are in double, so the
     * only error is the final rounding: half an ulp (2^-11 fp16, 2^-8 bf16 relative),
     * plus 2^-24 when the store rounds through fp32 first, plus fp16's subnormal step. */
    for (int i = 0; i < 3; i++) {
        spec p = ADJ_SPECS[i == 2 ? 4 : i];
        p.bias = 1;
        check_low_precision(&p, "c10::Half", 0x1p-11 + 0x1p-23, 0x1p-24);
        check_low_precision(&p, "c10::BFloat16", 0x1p-8 + 0x1p-23, 0x1p-126);
        check_low_precision(&p, "float", 0x1p-24 + 0x1p-50, 0x1p-149);
    }
}

/* ---- sampled runs ---- */

static void poison(call *c, int i) {
    fill_const(c, i, 7777.0);
}

/* Samples operand io of c (already holding its full values in ref) at idx:
 * the listed elements match ref exactly; the rest of io, and the other outputs, stay 7777. */
static void check_sampled(call *c, int io, const double *ref, const int64_t *idx, int64_t n) {
    for (int i = 0; i < c->ops.n; i++)
        if (c->ops.o[i].role == JV_ROLE_OUT) poison(c, i);
    jv_sample s = {io, n, idx};
    CHECK(run(c, &s) == JV_OK);
    int64_t listed = 0, wrong = 0, touched = 0;
    for (int64_t k = 0; k < numel(c, io); k++) {
        int in = 0;
        for (int64_t j = 0; j < n; j++)
            in |= idx[j] == k;
        if (in) {
            listed++;
            if (at(c, io, k) != ref[k]) {
                wrong++;
                fprintf(stderr, "  operand %s element %lld: %.17g != %.17g\n", c->ops.o[io].name, (long long)k,
                        at(c, io, k), ref[k]);
            }
        } else if (at(c, io, k) != 7777.0) {
            touched++;
        }
    }
    CHECK(listed > 0);
    CHECK(wrong == 0);
    CHECK(touched == 0);
    for (int i = 0; i < c->ops.n; i++)
        if (i != io && c->ops.o[i].role == JV_ROLE_OUT) {
            int64_t t = 0;
            for (int64_t k = 0; k < numel(c, i); k++)
                t += at(c, i, k) != 7777.0;
            CHECK(t == 0);
        }
}

/* full values of operand i */
static double *values(const call *c, int i) {
    double *v = malloc((size_t)numel(c, i) * sizeof *v);
    for (int64_t k = 0; k < numel(c, i); k++)
        v[k] = at(c, i, k);
    return v;
}

static void test_sampled(void) {
    for (int si = 0; si < 6; si += 4) { /* a normal and a transposed conv */
        spec p = ADJ_SPECS[si];
        p.bias = 1;
        uint64_t seed = 1000 + (uint64_t)si;
        call f;
        CHECK(build_fwd(&f, &p) == JV_OK);
        for (int i = 0; i < 3; i++)
            fill_rand(&f, i, &seed);
        CHECK(run(&f, NULL) == JV_OK);
        double *ref = values(&f, 3);
        int64_t last = numel(&f, 3) - 1;
        const int64_t idx[6] = {0, 5, 17, last / 2, last - 3, last};
        check_sampled(&f, 3, ref, idx, 6);
        free(ref);

        /* backward: each output sampled alone */
        const jv_conv_desc *g = jv_conv_of(&f.d);
        p.bias = 0;
        call b;
        CHECK(build_bwd(&b, &p, g->out, "[True, True, True]") == JV_OK);
        for (int i = 0; i < 3; i++)
            fill_rand(&b, i, &seed);
        CHECK(run(&b, NULL) == JV_OK);
        double *r[6];
        for (int io = 3; io < 6; io++)
            r[io] = values(&b, io); /* before any sampled run poisons them */
        for (int io = 3; io < 6; io++) {
            int64_t l = numel(&b, io) - 1;
            const int64_t ix[4] = {l, 0, l / 3, l / 2};
            check_sampled(&b, io, r[io], ix, 4);
            free(r[io]);
        }
        /* a sample outside the operand, or naming an input: refused / everything computed */
        jv_err err;
        jv_err_clear(&err);
        const int64_t badidx[1] = {numel(&b, 3)};
        jv_sample bad = {3, 1, badidx};
        CHECK(jv_desc_reference(&b.d, &b.ops, b.bufs, &bad, &err) == JV_ERR_FORMAT);
        CHECK(strstr(err.msg, "sample") != NULL);
        poison(&b, 5);
        jv_sample in = {0, 1, idx};
        CHECK(run(&b, &in) == JV_OK);
        CHECK(at(&b, 5, 0) != 7777.0);
        call_free(&f);
        call_free(&b);
    }
}

/* ---- unbatched ---- */

static void test_unbatched(void) {
    spec u = {.name = "aten::conv2d",
              .nd = 2,
              .unbatched = 1,
              .x = {3, 5, 6},
              .w = {2, 3, 3, 3},
              .pad = {1, 1},
              .bias = 1,
              .stride = {1, 2}};
    spec b = {.nd = 2, .x = {1, 3, 5, 6}, .w = {2, 3, 3, 3}, .pad = {1, 1}, .bias = 1, .stride = {1, 2}};
    uint64_t seed = 5;
    call cu, cb;
    CHECK(build_fwd(&cu, &u) == JV_OK);
    CHECK(build_fwd(&cb, &b) == JV_OK);
    CHECK(jv_conv_of(&cu.d)->unbatched == 1);
    const jv_tensor *x = &cu.ops.o[0].t, *o = &cu.ops.o[3].t;
    CHECK(x->ndim == 4 && x->shape[0] == 1 && x->shape[1] == 3);
    CHECK(o->ndim == 4 && o->shape[0] == 1 && o->shape[1] == 2 && o->shape[2] == 5 && o->shape[3] == 3);
    for (int i = 0; i < 3; i++) {
        fill_rand(&cb, i, &seed);
        copy_op(&cu, i, &cb, i);
    }
    CHECK(run(&cu, NULL) == JV_OK);
    CHECK(run(&cb, NULL) == JV_OK);
    CHECK(same_values(&cu, 3, &cb, 3));
    call_free(&cu);
    call_free(&cb);
}

/* ---- operand lists and refusals ---- */

static void test_operands(void) {
    call c;
    /* input and weight dtypes differ: refused */
    CHECK(build_raw(&c, "aten::convolution", "[[1, 2, 4, 4], [2, 2, 1, 1], [], [], [], [], [], [], []]",
                    "[\"float\", \"c10::BFloat16\", \"\", \"\", \"\", \"\", \"\", \"\", \"\"]", NULL,
                    "[\"\", \"\", \"\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]") ==
          JV_ERR_FORMAT);
    call_free(&c);
    /* an integer input: refused */
    CHECK(build_raw(&c, "aten::convolution", "[[1, 2, 4, 4], [2, 2, 1, 1], [], [], [], [], [], [], []]",
                    "[\"long int\", \"long int\", \"\", \"\", \"\", \"\", \"\", \"\", \"\"]", NULL,
                    "[\"\", \"\", \"\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]") ==
          JV_ERR_FORMAT);
    call_free(&c);
    /* and the error names the reason */
    {
        jv_opcall oc;
        jv_err err;
        jv_desc d;
        jv_operands ops;
        jv_err_clear(&err);
        memset(&d, 0, sizeof d);
        CHECK(jv_opcall_from_trace(&oc, "aten::convolution", "[[1, 2, 4, 4], [2, 2, 1, 1]]",
                                   "[\"c10::Half\", \"float\"]", NULL, NULL, &err) == JV_OK);
        CHECK(jv_desc_parse(&oc, &d, &err) == JV_OK);
        jv_opcall_free(&oc);
        CHECK(jv_conv_operands(&d, &ops, &err) == JV_ERR_FORMAT);
        CHECK(strstr(err.msg, "dtypes differ") != NULL);
    }
    /* an output_mask that computes nothing: refused */
    spec p = {.nd = 2, .x = {2, 4, 6, 6}, .w = {8, 4, 3, 3}, .pad = {1, 1}, .dtype = "c10::BFloat16"};
    const int64_t go[4] = {2, 8, 6, 6};
    CHECK(build_bwd(&c, &p, go, "[False, False, False]") == JV_ERR_FORMAT);
    call_free(&c);
    /* mask [True, False, True]: grad_input and grad_bias only; grad_bias [C_out] in grad_out's dtype */
    CHECK(build_bwd(&c, &p, go, "[True, False, True]") == JV_OK);
    CHECK(c.ops.n == 5);
    CHECK(opi(&c, "grad_input") == 3 && opi(&c, "grad_bias") == 4 && opi(&c, "grad_weight") < 0);
    CHECK(c.ops.o[4].t.ndim == 1 && c.ops.o[4].t.shape[0] == 8 && c.ops.o[4].t.dtype == JV_DT_BF16);
    for (int i = 0; i < 3; i++)
        CHECK(c.ops.o[i].role == JV_ROLE_IN && c.ops.o[i].init == JV_INIT_NORMAL);
    for (int i = 3; i < 5; i++)
        CHECK(c.ops.o[i].role == JV_ROLE_OUT && c.ops.o[i].init == JV_INIT_NONE);
    call_free(&c);
    /* grad_output not traced: built from the output shape in the input's layout (channels_last here) */
    p.cl = 1;
    CHECK(build_bwd(&c, &p, NULL, "[True, True, False]") == JV_OK);
    CHECK(jv_conv_of(&c.d)->has_grad_out == 0);
    const jv_tensor *t = &c.ops.o[0].t;
    CHECK(!strcmp(c.ops.o[0].name, "grad_output"));
    CHECK(t->ndim == 4 && t->shape[1] == 8 && t->shape[2] == 6 && t->strides[1] == 1 && t->strides[3] == 8);
    CHECK(t->dtype == JV_DT_BF16);
    CHECK(c.ops.o[3].t.strides[1] == 1 && c.ops.o[4].t.strides[3] == 1); /* NHWC grad_input; OIHW grad_weight */
    uint64_t seed = 3;
    for (int i = 0; i < 3; i++)
        fill_rand(&c, i, &seed);
    CHECK(run(&c, NULL) == JV_OK);
    /* operands that are not this call's: refused */
    jv_operands bad = c.ops;
    bad.o[1].t.shape[2] = 5;
    jv_err err;
    jv_err_clear(&err);
    CHECK(jv_desc_reference(&c.d, &bad, c.bufs, NULL, &err) == JV_ERR_FORMAT);
    bad = c.ops;
    bad.n = 4;
    CHECK(jv_desc_reference(&c.d, &bad, c.bufs, NULL, &err) == JV_ERR_FORMAT);
    call_free(&c);
}

int main(void) {
    test_hand_4x4();
    test_hand_groups_dilation();
    test_hand_3d();
    test_hand_transposed();
    test_hand_same();
    test_same_2d();
    test_adjoint();
    test_transposed_is_grad_input();
    test_layouts();
    test_low_precision();
    test_sampled();
    test_unbatched();
    test_operands();
    printf("%d checks passed\n", passed);
    if (failed) fprintf(stderr, "%d checks FAILED\n", failed);
    return failed ? 1 : 0;
}

/* Unit tests of the conv family's CPU reference (kernels/conv/conv_ref.c) on
 * random data, through the registry on calls built from trace texts (the
 * helpers: test_ref_conv.h; the hand-computed cases and the operand lists:
 * test_ref_conv.c):
 *   - adjoint identities on random data: <conv(x,w), g> == <x, grad_input(g,w)>
 *     == <w, grad_weight(g,x)> (normal and transposed, 1d/2d/3d, groups,
 *     depthwise, stride, padding, dilation), to 1e-10 of sum |y*g|;
 *     a transposed conv's forward equals grad_input of the matching normal
 *     conv; grad_bias equals the sums of grad_output;
 *   - layout invariance: channels_last and padded-stride inputs, a
 *     channels_last weight, give the same values as contiguous ones;
 *   - fp16 / bf16 storage within half an ulp (plus fp32 double rounding) of
 *     the fp64 result on the same inputs;
 *   - sampled runs: the listed elements equal the full run bit for bit, the
 *     rest (and the other outputs) stay untouched; bad samples are refused. */
#include "test_ref_conv.h"
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
int main(void) {
    test_adjoint();
    test_transposed_is_grad_input();
    test_layouts();
    test_low_precision();
    test_sampled();
    printf("%d checks passed\n", passed);
    if (failed) fprintf(stderr, "%d checks FAILED\n", failed);
    return failed ? 1 : 0;
}

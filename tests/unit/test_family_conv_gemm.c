/* Unit tests of jv_conv_as_gemm (conv_ref.c): a pointwise convolution run as
 * aten::mm steps over the conv's own buffers gives what the conv reference
 * gives (forward; backward grad_input and grad_weight), on generated
 * channels_last bf16 data; the comparison catches one changed element; calls
 * the GEMMs cannot compute are refused with a reason. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv/conv.h"
#include "gemm/gemm.h"

#include "jv_dtype.h"

#define JV_TEST_FAMILY jv_conv_family
#include "jv_test_family.h"

#define BF "\"c10::BFloat16\""

static size_t bytes_of(const jv_operand *o) {
    return (size_t)jv_tensor_extent(&o->t) * jv_dtype_size(o->t.dtype);
}

/* buffers for ops: inputs filled with values in [-2, 2) (a fixed generator), outputs zeroed */
static void **alloc_bufs(const jv_operands *ops) {
    void **b = calloc(JV_MAX_OPERANDS, sizeof *b);
    uint64_t s = 0x243f6a8885a308d3ull;
    for (int i = 0; i < ops->n; i++) {
        size_t n = bytes_of(&ops->o[i]);
        b[i] = calloc(n ? n : 1, 1);
        if (ops->o[i].role == JV_ROLE_OUT) continue;
        int64_t e = jv_tensor_extent(&ops->o[i].t);
        for (int64_t k = 0; k < e; k++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            jv_dtype_store(ops->o[i].t.dtype, b[i], k, (double)((s >> 40) % 4096) / 1024.0 - 2.0);
        }
    }
    return b;
}

static void free_bufs(void **b) {
    for (int i = 0; i < JV_MAX_OPERANDS; i++)
        free(b[i]);
    free(b);
}

/* max |a - b| over max |b| of the elements of operand o (NaN where one is NaN and the other not) */
static double rel_diff(const jv_operand *o, const void *a, const void *b) {
    double dmax = 0, bmax = 0;
    int64_t n = jv_tensor_extent(&o->t);
    for (int64_t k = 0; k < n; k++) {
        double x = jv_dtype_load(o->t.dtype, a, k), y = jv_dtype_load(o->t.dtype, b, k);
        if (isnan(x) != isnan(y)) return NAN;
        dmax = fmax(dmax, fabs(x - y));
        bmax = fmax(bmax, fabs(y));
    }
    return bmax > 0 ? dmax / bmax : dmax;
}

/* the conv reference, then each GEMM step over the same buffers into copies of the outputs; returns the
 * worst disagreement over the outputs (corrupt: one element of the first GEMM output changed first) */
static double conv_vs_gemm(const jv_desc *d, int want_steps, int corrupt) {
    jv_operands ops;
    jv_err err;
    jv_err_clear(&err);
    if (jv_desc_operands(d, &ops, &err) != JV_OK) {
        fprintf(stderr, "operands: %s\n", err.msg);
        return NAN;
    }
    jv_conv_gemm *g = calloc(1, sizeof *g);
    char why[160] = "";
    int as = jv_conv_as_gemm(d, &ops, g, why, sizeof why);
    CHECK(as == 1);
    CHECK(g->n == want_steps);
    if (!as) {
        fprintf(stderr, "not as GEMM: %s\n", why);
        free(g);
        return NAN;
    }
    void **ref = alloc_bufs(&ops), **got = alloc_bufs(&ops); /* same inputs: same generator */
    double worst = 0;
    CHECK(jv_desc_reference(d, &ops, ref, NULL, &err) == JV_OK);
    for (int s = 0; s < g->n; s++) {
        const jv_conv_gemm_step *st = &g->step[s];
        jv_desc md;
        jv_operands mops;
        CHECK(jv_gemm_desc_mm(&md, &st->a, &st->b, &err) == JV_OK);
        CHECK(jv_gemm_operands(&md, &mops, &err) == JV_OK);
        CHECK(mops.n == 3);
        void *b[JV_MAX_OPERANDS] = {0};
        for (int i = 0; i < 3; i++) {
            b[i] = got[st->src[i]];
            /* the mm operand's extent fits the conv buffer it aliases */
            CHECK(jv_tensor_extent(&mops.o[i].t) * (int64_t)jv_dtype_size(mops.o[i].t.dtype) <=
                  (int64_t)bytes_of(&ops.o[st->src[i]]));
        }
        CHECK(jv_desc_reference(&md, &mops, b, NULL, &err) == JV_OK);
        const jv_operand *o = &ops.o[st->src[2]];
        if (corrupt && s == 0) jv_dtype_store(o->t.dtype, got[st->src[2]], 1, 100.0);
        double r = rel_diff(o, got[st->src[2]], ref[st->src[2]]);
        if (!(r <= worst)) worst = r;
    }
    free_bufs(ref);
    free_bufs(got);
    free(g);
    return worst;
}

/* [2, 8, 3, 5] channels_last bf16 x [6, 8, 1, 1] weight -> [2, 6, 3, 5] */
#define X_DIMS  "[2, 8, 3, 5]"
#define X_CL    "[120, 1, 40, 8]"
#define Y_DIMS  "[2, 6, 3, 5]"
#define Y_CL    "[90, 1, 30, 6]"
#define W_DIMS  "[6, 8, 1, 1]"
#define W_CL    "[8, 1, 8, 8]"
#define FWD_CON "[\"\", \"\", \"\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]"
#define FWD_TYP                                                                                                        \
    "[" BF ", " BF ", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"]"

static int fwd(const char *xs, const char *ws, const char *stride, jv_desc *d) {
    char dims[256], strides[256], conc[256];
    snprintf(dims, sizeof dims, "[" X_DIMS ", " W_DIMS ", [], [], [], [], [], [], []]");
    snprintf(strides, sizeof strides, "[%s, %s, [], [], [], [], [], [], []]", xs, ws);
    snprintf(conc, sizeof conc, "[\"\", \"\", \"\", \"%s\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
             stride);
    return parse("aten::convolution", dims, FWD_TYP, strides, conc, d) == JV_OK ? 0 : -1;
}

static void test_forward(void) {
    jv_desc d;
    CHECK(fwd(X_CL, W_CL, "[1, 1]", &d) == 0);
    double r = conv_vs_gemm(&d, 1, 0);
    CHECK(r <= 1.0 / 128);
    /* the comparison's own test: one changed output element is caught */
    CHECK(!(conv_vs_gemm(&d, 1, 1) <= 1.0 / 128));
    /* a contiguous weight [6, 8, 1, 1] is the same memory for a 1x1 kernel */
    CHECK(fwd(X_CL, "[8, 1, 1, 1]", "[1, 1]", &d) == 0);
    CHECK(conv_vs_gemm(&d, 1, 0) <= 1.0 / 128);
}

static void test_backward(void) {
    const char *dims = "[" Y_DIMS ", " X_DIMS ", " W_DIMS ", [], [], [], [], [], [], [], []]";
    const char *types = "[" BF ", " BF ", " BF ", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
                        "\"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]";
    const char *strides = "[" Y_CL ", " X_CL ", " W_CL ", [], [], [], [], [], [], [], []]";
    const char *masks[] = {"[True, True, False]", "[True, False, False]", "[False, True, False]"};
    int steps[] = {2, 1, 1};
    for (int i = 0; i < 3; i++) {
        char conc[256];
        snprintf(
            conc, sizeof conc,
            "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"%s\"]",
            masks[i]);
        jv_desc d;
        CHECK(parse("aten::convolution_backward", dims, types, strides, conc, &d) == JV_OK);
        CHECK(conv_vs_gemm(&d, steps[i], 0) <= 1.0 / 128);
        CHECK(!(conv_vs_gemm(&d, steps[i], 1) <= 1.0 / 128));
    }
}

/* 1 when d is refused with a reason containing word */
static int refused(const jv_desc *d, const char *word) {
    jv_operands ops;
    jv_err err;
    jv_err_clear(&err);
    if (jv_desc_operands(d, &ops, &err) != JV_OK) return 0;
    jv_conv_gemm *g = calloc(1, sizeof *g);
    char why[160] = "";
    int as = jv_conv_as_gemm(d, &ops, g, why, sizeof why);
    free(g);
    if (as || !strstr(why, word)) fprintf(stderr, "refused: got %d '%s', want 0 '%s'\n", as, why, word);
    return !as && strstr(why, word) != NULL;
}

static void test_refusals(void) {
    jv_desc d;
    /* stride 2 */
    CHECK(fwd(X_CL, W_CL, "[2, 2]", &d) == 0);
    CHECK(refused(&d, "stride"));
    /* NCHW data */
    CHECK(fwd("[120, 15, 5, 1]", W_CL, "[1, 1]", &d) == 0);
    CHECK(refused(&d, "channels_last"));
    /* a weight with C_in not innermost */
    CHECK(fwd(X_CL, "[1, 6, 6, 6]", "[1, 1]", &d) == 0);
    CHECK(refused(&d, "weight"));
    /* a 3x3 kernel */
    CHECK(parse("aten::convolution", "[" X_DIMS ", [6, 8, 3, 3], [], [], [], [], [], [], []]", FWD_TYP,
                "[" X_CL ", [72, 1, 24, 8], [], [], [], [], [], [], []]", FWD_CON, &d) == JV_OK);
    CHECK(refused(&d, "kernel"));
    /* a bias */
    CHECK(parse("aten::convolution", "[" X_DIMS ", " W_DIMS ", [6], [], [], [], [], [], []]",
                "[" BF ", " BF ", " BF ", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                "\"ScalarList\", \"Scalar\"]",
                "[" X_CL ", " W_CL ", [1], [], [], [], [], [], []]", FWD_CON, &d) == JV_OK);
    CHECK(refused(&d, "bias"));
    /* fp32 (cuDNN may use TF32 there; a GEMM would not) */
    CHECK(parse("aten::convolution", "[" X_DIMS ", " W_DIMS ", [], [], [], [], [], [], []]",
                "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                "\"ScalarList\", \"Scalar\"]",
                "[" X_CL ", " W_CL ", [], [], [], [], [], [], []]", FWD_CON, &d) == JV_OK);
    CHECK(refused(&d, "fp16 or bf16"));
    /* two groups */
    CHECK(parse("aten::convolution", "[" X_DIMS ", [6, 4, 1, 1], [], [], [], [], [], [], []]", FWD_TYP,
                "[" X_CL ", [4, 1, 4, 4], [], [], [], [], [], [], []]",
                "[\"\", \"\", \"\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"2\"]", &d) == JV_OK);
    CHECK(refused(&d, "grouped"));
}

int main(void) {
    test_forward();
    test_backward();
    test_refusals();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

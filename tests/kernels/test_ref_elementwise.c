/* Unit tests of the elementwise CPU reference and replay operands (unary and
 * binary families): hand-computed cases (broadcasting, alpha, rsub, in-place,
 * casts with their exact rounded values, where, threshold_backward,
 * comparisons, clamp with tensor bounds, activations to 1e-12, division
 * rounding modes, pow forms, lerp, nan_to_num, upsample_nearest) and
 * identities (backward ops against finite differences of the forward
 * reference). The helpers: test_ref_elementwise.h; layout invariance, sampled
 * runs, refusals and the table of every jv_ew_op: test_ref_elementwise_ops.c. */
#include "test_ref_elementwise.h"
/* ---- hand-computed cases ---- */

static void test_broadcast(void) {
    tcall c;
    /* [2,3] + [3] */
    tc_open(&c, "aten::add", "[[2, 3], [3], []]", "[\"float\", \"float\", \"Scalar\"]", "[[3, 1], [1], []]",
            "[\"\", \"\", \"1\"]");
    CHECK_MSG(c.st == JV_OK && c.ops.n == 3, "add operands: %s", c.err.msg);
    if (c.st == JV_OK) {
        CHECK_MSG(!strcmp(c.ops.o[0].name, "self") && !strcmp(c.ops.o[1].name, "other") &&
                      !strcmp(c.ops.o[2].name, "out"),
                  "add operand names");
        CHECK_MSG(c.ops.o[0].role == JV_ROLE_IN && c.ops.o[1].role == JV_ROLE_IN && c.ops.o[2].role == JV_ROLE_OUT &&
                      c.ops.o[2].init == JV_INIT_NONE && c.ops.o[0].init == JV_INIT_NORMAL,
                  "add roles");
        const double a[] = {1, 2, 3, 4, 5, 6}, b[] = {10, 20, 30}, want[] = {11, 22, 33, 14, 25, 36};
        tc_set(&c, 0, a);
        tc_set(&c, 1, b);
        tc_run(&c, NULL);
        expect_out(&c, want, 6, 0, "[2,3]+[3]");
    }
    tc_close(&c);

    /* [4,1] * [1,5] -> [4,5] outer product */
    tc_open(&c, "aten::mul", "[[4, 1], [1, 5]]", "[\"float\", \"float\"]", "[[1, 1], [5, 1]]", "[\"\", \"\"]");
    CHECK_MSG(c.st == JV_OK, "mul operands: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double a[] = {1, 2, 3, 4}, b[] = {1, 2, 3, 4, 5};
        double want[20];
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 5; j++)
                want[i * 5 + j] = a[i] * b[j];
        tc_set(&c, 0, a);
        tc_set(&c, 1, b);
        tc_run(&c, NULL);
        expect_out(&c, want, 20, 0, "[4,1]*[1,5]");
        CHECK_MSG(c.ops.o[2].t.ndim == 2 && c.ops.o[2].t.shape[0] == 4 && c.ops.o[2].t.shape[1] == 5, "outer shape");
    }
    tc_close(&c);

    /* a 0-d int64 tensor broadcast against int32 [3]: int32 out */
    tc_open(&c, "aten::sub", "[[3], [], []]", "[\"int\", \"long int\", \"Scalar\"]", "[[1], [], []]",
            "[\"\", \"\", \"1\"]");
    CHECK_MSG(c.st == JV_OK, "sub int: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double a[] = {5, -3, 7}, b[] = {2}, want[] = {3, -5, 5};
        tc_set(&c, 0, a);
        tc_set(&c, 1, b);
        tc_run(&c, NULL);
        CHECK_MSG(c.ops.o[2].t.dtype == JV_DT_I32, "int32 - 0-d int64 -> int32");
        expect_out(&c, want, 3, 0, "int sub");
    }
    tc_close(&c);
}

static void test_alpha_rsub_inplace(void) {
    tcall c;
    /* add with alpha 2.5 */
    tc_open(&c, "aten::add", "[[3], [3], []]", "[\"double\", \"double\", \"Scalar\"]", "[[1], [1], []]",
            "[\"\", \"\", \"2.5\"]");
    if (c.st == JV_OK) {
        const double a[] = {1, 2, 3}, b[] = {4, 5, 6}, want[] = {11, 14.5, 18};
        tc_set(&c, 0, a);
        tc_set(&c, 1, b);
        tc_run(&c, NULL);
        expect_out(&c, want, 3, 0, "add alpha 2.5");
    }
    CHECK_MSG(c.st == JV_OK, "add alpha: %s", c.err.msg);
    tc_close(&c);

    /* sub with alpha 2 and a Scalar other: self - 2*3 */
    tc_open(&c, "aten::sub", "[[3], [], []]", "[\"double\", \"Scalar\", \"Scalar\"]", "[[1], [], []]",
            "[\"\", \"3\", \"2\"]");
    CHECK_MSG(c.st == JV_OK && c.ops.n == 2, "sub Scalar: a Scalar is not an operand (%d operands)", c.ops.n);
    if (c.st == JV_OK) {
        const double a[] = {1, 2, 10}, want[] = {-5, -4, 4};
        tc_set(&c, 0, a);
        tc_run(&c, NULL);
        expect_out(&c, want, 3, 0, "sub Scalar alpha 2");
    }
    tc_close(&c);

    /* rsub(self, other, alpha=2) = other - 2*self */
    tc_open(&c, "aten::rsub", "[[3], [3], []]", "[\"float\", \"float\", \"Scalar\"]", "[[1], [1], []]",
            "[\"\", \"\", \"2\"]");
    CHECK_MSG(c.st == JV_OK, "rsub: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double a[] = {1, 2, 3}, b[] = {10, 10, 10}, want[] = {8, 6, 4};
        tc_set(&c, 0, a);
        tc_set(&c, 1, b);
        tc_run(&c, NULL);
        expect_out(&c, want, 3, 0, "rsub alpha 2");
    }
    tc_close(&c);

    /* rsub(self, Scalar 5) = 5 - self */
    tc_open(&c, "aten::rsub", "[[2], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", "[[1], [], []]",
            "[\"\", \"5\", \"1\"]");
    if (c.st == JV_OK) {
        const double a[] = {1, 7}, want[] = {4, -2};
        tc_set(&c, 0, a);
        tc_run(&c, NULL);
        expect_out(&c, want, 2, 0, "rsub Scalar");
    }
    CHECK_MSG(c.st == JV_OK, "rsub Scalar: %s", c.err.msg);
    tc_close(&c);

    /* add_ in place: self is INOUT, other [1] broadcasts */
    tc_open(&c, "aten::add_", "[[4], [1], []]", "[\"float\", \"float\", \"Scalar\"]", "[[1], [1], []]",
            "[\"\", \"\", \"1\"]");
    CHECK_MSG(c.st == JV_OK && c.ops.n == 2, "add_ operands: %d (%s)", c.ops.n, c.err.msg);
    if (c.st == JV_OK && c.ops.n == 2) {
        CHECK_MSG(!strcmp(c.ops.o[0].name, "self") && c.ops.o[0].role == JV_ROLE_INOUT &&
                      c.ops.o[0].init == JV_INIT_NORMAL,
                  "add_: self INOUT");
        CHECK_MSG(!strcmp(c.ops.o[1].name, "other") && c.ops.o[1].role == JV_ROLE_IN, "add_: other IN");
        const double a[] = {1, 2, 3, 4}, b[] = {10}, want[] = {11, 12, 13, 14};
        tc_set(&c, 0, a);
        tc_set(&c, 1, b);
        tc_run(&c, NULL);
        expect_out(&c, want, 4, 0, "add_ in place");
        CHECK_MSG(c.out == 0, "add_ writes self");
    }
    tc_close(&c);

    /* mul out=: a trailing out tensor of another dtype */
    tc_open(&c, "aten::mul", "[[3], [3], [3]]", "[\"c10::BFloat16\", \"c10::BFloat16\", \"float\"]", "[[1], [1], [1]]",
            NULL);
    CHECK_MSG(c.st == JV_OK && c.ops.n == 3 && c.out == 2 && c.ops.o[2].t.dtype == JV_DT_F32, "mul out= operands");
    if (c.st == JV_OK) {
        const double a[] = {1.5, 3, -2}, b[] = {1.5, 0.5, 0.25}, want[] = {2.25, 1.5, -0.5};
        tc_set(&c, 0, a);
        tc_set(&c, 1, b);
        tc_run(&c, NULL);
        expect_out(&c, want, 3, 0, "mul out=");
    }
    tc_close(&c);
}

static void test_casts(void) {
    /* fp32 values and their bf16 / fp16 roundings (nearest even): ties 1+2^-8,
     * 1+3*2^-8 (bf16) and 1+2^-11, 1+3*2^-11 (fp16); 65519 overflows bf16's
     * 8-bit mantissa to 65536 but stays below fp16's rounding midpoint 65520 */
    const double src[] = {1.0 / 3, 1.00390625, 1.01171875, 1.00048828125, 1.00146484375, -2.71828, 3.14159265, 65519};
    const double bf[] = {0.333984375, 1.0, 1.015625, 1.0, 1.0, -2.71875, 3.140625, 65536};
    const double hf[] = {0.333251953125, 1.00390625, 1.01171875, 1.0, 1.001953125, -2.71875, 3.140625, 65504};
    const char *dst_types[2] = {"[\"c10::BFloat16\", \"float\", \"Scalar\"]", "[\"c10::Half\", \"float\", \"Scalar\"]"};
    const double *want[2] = {bf, hf};
    for (int v = 0; v < 2; v++) {
        tcall c;
        tc_open(&c, "aten::copy_", "[[8], [8], []]", dst_types[v], "[[1], [1], []]", "[\"\", \"\", \"False\"]");
        CHECK_MSG(c.st == JV_OK && c.ops.n == 2, "copy_ operands: %s", c.err.msg);
        if (c.st == JV_OK && c.ops.n == 2) {
            CHECK_MSG(!strcmp(c.ops.o[0].name, "self") && c.ops.o[0].role == JV_ROLE_OUT &&
                          c.ops.o[0].init == JV_INIT_NONE,
                      "copy_: dst written only");
            CHECK_MSG(!strcmp(c.ops.o[1].name, "src") && c.ops.o[1].role == JV_ROLE_IN, "copy_: src IN");
            double s32[8];
            for (int i = 0; i < 8; i++)
                s32[i] = (float)src[i];
            tc_set(&c, 1, s32);
            tc_run(&c, NULL);
            expect_out(&c, want[v], 8, 0, v ? "copy_ fp32 -> fp16" : "copy_ fp32 -> bf16");
        }
        tc_close(&c);
    }
    /* _to_copy fp32 -> int32 truncates toward zero; -> bool is x != 0 */
    tcall c;
    tc_open(&c, "aten::_to_copy", "[[4], [], [], [], [], [], []]",
            "[\"float\", \"Scalar\", \"\", \"\", \"\", \"Scalar\", \"\"]", "[[1], [], [], [], [], [], []]",
            "[\"\", \"3\", \"\", \"\", \"\", \"False\", \"\"]");
    CHECK_MSG(c.st == JV_OK && c.ops.o[1].t.dtype == JV_DT_I32, "_to_copy int32: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double a[] = {2.7, -2.7, 0.2, 100}, w[] = {2, -2, 0, 100};
        tc_set(&c, 0, a);
        tc_run(&c, NULL);
        expect_out(&c, w, 4, 0, "to int32");
    }
    tc_close(&c);
}

static void test_where_threshold_compare(void) {
    tcall c;
    /* where(cond [2,1], self [2,3], other Scalar -1.) */
    tc_open(&c, "aten::where", "[[2, 1], [2, 3], []]", "[\"bool\", \"float\", \"Scalar\"]", "[[1, 1], [3, 1], []]",
            "[\"\", \"\", \"-1.\"]");
    CHECK_MSG(c.st == JV_OK && c.ops.n == 3, "where operands: %s", c.err.msg);
    if (c.st == JV_OK && c.ops.n == 3) {
        CHECK_MSG(!strcmp(c.ops.o[0].name, "condition") && c.ops.o[0].init == JV_INIT_MASK,
                  "where: condition is a mask");
        const double cond[] = {1, 0}, a[] = {1, 2, 3, 4, 5, 6}, want[] = {1, 2, 3, -1, -1, -1};
        tc_set(&c, 0, cond);
        tc_set(&c, 1, a);
        tc_run(&c, NULL);
        expect_out(&c, want, 6, 0, "where");
    }
    tc_close(&c);

    /* threshold_backward(grad, self, 0.5) = self <= 0.5 ? 0 : grad */
    tc_open(&c, "aten::threshold_backward", "[[5], [5], []]", "[\"float\", \"float\", \"Scalar\"]", "[[1], [1], []]",
            "[\"\", \"\", \"0.5\"]");
    CHECK_MSG(c.st == JV_OK, "threshold_backward: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double grad[] = {1, 2, 3, 4, 5}, self[] = {-1, 0, 0.5, 0.625, 2}, want[] = {0, 0, 0, 4, 5};
        tc_set_named(&c, "grad_output", grad);
        tc_set_named(&c, "self", self);
        tc_run(&c, NULL);
        expect_out(&c, want, 5, 0, "threshold_backward");
    }
    tc_close(&c);

    /* comparisons -> bool */
    static const struct {
        const char *op;
        double want[4];
    } CMP[] = {
        {"aten::eq", {0, 1, 0, 0}}, {"aten::ne", {1, 0, 1, 1}}, {"aten::lt", {1, 0, 0, 0}},
        {"aten::le", {1, 1, 0, 0}}, {"aten::gt", {0, 0, 1, 0}}, {"aten::ge", {0, 1, 1, 0}},
    };
    for (size_t i = 0; i < sizeof CMP / sizeof CMP[0]; i++) {
        tc_open(&c, CMP[i].op, "[[4], [4]]", "[\"float\", \"float\"]", "[[1], [1]]", NULL);
        CHECK_MSG(c.st == JV_OK && c.ops.o[2].t.dtype == JV_DT_BOOL, "%s -> bool: %s", CMP[i].op, c.err.msg);
        if (c.st == JV_OK) {
            const double a[] = {1, 2, 3, NAN}, b[] = {2, 2, 2, NAN};
            tc_set(&c, 0, a);
            tc_set(&c, 1, b);
            tc_run(&c, NULL);
            expect_out(&c, CMP[i].want, 4, 0, CMP[i].op);
        }
        tc_close(&c);
    }
    /* an fp32 tensor against a Python float compares in float, as PyTorch does:
     * float(0.1) > 0.1 is False there (it would be True in double) */
    tc_open(&c, "aten::gt", "[[2], []]", "[\"float\", \"Scalar\"]", "[[1], []]", "[\"\", \"0.1\"]");
    if (c.st == JV_OK) {
        const double a[] = {(float)0.1, 0.125}, want[] = {0, 1};
        tc_set(&c, 0, a);
        tc_run(&c, NULL);
        expect_out(&c, want, 2, 0, "gt fp32 vs 0.1 in float");
    }
    CHECK_MSG(c.st == JV_OK, "gt Scalar: %s", c.err.msg);
    tc_close(&c);
    /* ... while fp64 compares in double */
    tc_open(&c, "aten::gt", "[[1], []]", "[\"double\", \"Scalar\"]", "[[1], []]", "[\"\", \"0.1\"]");
    if (c.st == JV_OK) {
        const double a[] = {(float)0.1}, want[] = {1};
        tc_set(&c, 0, a);
        tc_run(&c, NULL);
        expect_out(&c, want, 1, 0, "gt fp64 vs 0.1 in double");
    }
    tc_close(&c);
    /* in-place comparison writes 0/1 in self's dtype */
    tc_open(&c, "aten::lt_", "[[3], []]", "[\"c10::Half\", \"Scalar\"]", "[[1], []]", "[\"\", \"0\"]");
    CHECK_MSG(c.st == JV_OK && c.ops.n == 1 && c.ops.o[0].role == JV_ROLE_INOUT, "lt_ operands: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double a[] = {-1, 0, 2}, want[] = {1, 0, 0};
        tc_set(&c, 0, a);
        tc_run(&c, NULL);
        expect_out(&c, want, 3, 0, "lt_ in place");
    }
    tc_close(&c);
}

static void test_clamp(void) {
    tcall c;
    /* clamp with tensor min and max; NaN propagates; min > max gives max */
    tc_open(&c, "aten::clamp", "[[5], [5], [5]]", "[\"float\", \"float\", \"float\"]", "[[1], [1], [1]]", NULL);
    CHECK_MSG(c.st == JV_OK && c.ops.n == 4, "clamp tensors: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double x[] = {-5, 0.5, 5, NAN, 0.5}, lo[] = {-1, -1, -1, -1, 2}, hi[] = {1, 1, 1, 1, 1};
        const double want[] = {-1, 0.5, 1, NAN, 1};
        tc_set_named(&c, "self", x);
        tc_set_named(&c, "min", lo);
        tc_set_named(&c, "max", hi);
        tc_run(&c, NULL);
        expect_out(&c, want, 5, 0, "clamp tensor bounds");
    }
    tc_close(&c);
    /* clamp(x, None, max tensor [3]) broadcast over [2,3] */
    tc_open(&c, "aten::clamp", "[[2, 3], [], [3]]", "[\"float\", \"\", \"float\"]", "[[3, 1], [], [1]]", NULL);
    CHECK_MSG(c.st == JV_OK && c.ops.n == 3 && tc_find(&c, "min") < 0, "clamp without min: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double x[] = {-10, 0, 10, 1, 2, 3}, hi[] = {0, 1, 2}, want[] = {-10, 0, 2, 0, 1, 2};
        tc_set_named(&c, "self", x);
        tc_set_named(&c, "max", hi);
        tc_run(&c, NULL);
        expect_out(&c, want, 6, 0, "clamp max tensor");
    }
    tc_close(&c);
    /* clamp_min with a Scalar, hardtanh, leaky_relu, relu */
    tc_open(&c, "aten::clamp_min", "[[3], []]", "[\"float\", \"Scalar\"]", "[[1], []]", "[\"\", \"0.5\"]");
    if (c.st == JV_OK) {
        const double x[] = {0, 1, NAN}, want[] = {0.5, 1, NAN};
        tc_set(&c, 0, x);
        tc_run(&c, NULL);
        expect_out(&c, want, 3, 0, "clamp_min");
    }
    CHECK_MSG(c.st == JV_OK, "clamp_min: %s", c.err.msg);
    tc_close(&c);
    tc_open(&c, "aten::hardtanh", "[[4], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", "[[1], [], []]",
            "[\"\", \"0.\", \"6.\"]");
    if (c.st == JV_OK) {
        const double x[] = {-1, 3, 7, 6}, want[] = {0, 3, 6, 6};
        tc_set(&c, 0, x);
        tc_run(&c, NULL);
        expect_out(&c, want, 4, 0, "hardtanh (relu6)");
    }
    CHECK_MSG(c.st == JV_OK, "hardtanh: %s", c.err.msg);
    tc_close(&c);
    tc_open(&c, "aten::leaky_relu", "[[3], []]", "[\"double\", \"Scalar\"]", "[[1], []]", "[\"\", \"0.2\"]");
    if (c.st == JV_OK) {
        const double x[] = {-2, 0, 3}, want[] = {-0.4, 0, 3};
        tc_set(&c, 0, x);
        tc_run(&c, NULL);
        expect_out(&c, want, 3, 1e-15, "leaky_relu");
    }
    CHECK_MSG(c.st == JV_OK, "leaky_relu: %s", c.err.msg);
    tc_close(&c);
    tc_open(&c, "aten::relu_", "[[4]]", "[\"float\"]", "[[1]]", NULL);
    CHECK_MSG(c.st == JV_OK && c.ops.n == 1 && c.ops.o[0].role == JV_ROLE_INOUT, "relu_ operands: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double x[] = {-1, 0, 2, NAN}, want[] = {0, 0, 2, NAN};
        tc_set(&c, 0, x);
        tc_run(&c, NULL);
        expect_out(&c, want, 4, 0, "relu_");
    }
    tc_close(&c);
}

/* runs a one-element fp64 unary op on x */
static double unary1(const char *op, const char *extra_types, const char *extra_concrete, double x) {
    char dims[64], types[128], strides[64], concrete[128];
    snprintf(dims, sizeof dims, "[[1]%s]", extra_types[0] ? ", []" : "");
    snprintf(types, sizeof types, "[\"double\"%s]", extra_types);
    snprintf(strides, sizeof strides, "[[1]%s]", extra_types[0] ? ", []" : "");
    snprintf(concrete, sizeof concrete, "[\"\"%s]", extra_concrete);
    tcall c;
    double r = NAN;
    if (tc_open(&c, op, dims, types, strides, concrete) == JV_OK) {
        tc_set(&c, 0, &x);
        if (tc_run(&c, NULL) == JV_OK) r = tc_get(&c, c.out, 0);
    }
    CHECK_MSG(c.st == JV_OK, "%s: %s", op, c.err.msg);
    tc_close(&c);
    return r;
}

/* runs a one-element fp64 binary op on (a, b) */
static double binary1(const char *op, const char *concrete3, double a, double b) {
    tcall c;
    double r = NAN;
    const char *dims = concrete3 ? "[[1], [1], []]" : "[[1], [1]]";
    const char *types = concrete3 ? "[\"double\", \"double\", \"\"]" : "[\"double\", \"double\"]";
    char concrete[64];
    snprintf(concrete, sizeof concrete, concrete3 ? "[\"\", \"\", \"%s\"]" : "[\"\", \"\"]",
             concrete3 ? concrete3 : "");
    if (tc_open(&c, op, dims, types, NULL, concrete) == JV_OK) {
        double v[2] = {a, b};
        tc_set(&c, 0, &v[0]);
        tc_set(&c, 1, &v[1]);
        if (tc_run(&c, NULL) == JV_OK) r = tc_get(&c, c.out, 0);
    }
    CHECK_MSG(c.st == JV_OK, "%s: %s", op, c.err.msg);
    tc_close(&c);
    return r;
}

static void test_activations(void) {
    /* values from an independent evaluation (Python's math module) */
    static const struct {
        double x, gelu, gelu_tanh, silu, sigmoid;
    } V[] = {
        {1, 0.8413447460685429, 0.8411919906082768, 0.7310585786300049, 0.7310585786300049},
        {-1, -0.15865525393145707, -0.15880800939172324, -0.2689414213699951, 0.2689414213699951},
        {0.5, 0.34573123063700656, 0.34571400982514394, 0.3112296656009273, 0.6224593312018546},
        {-2, -0.04550026389635842, -0.04540230591222494, -0.2384058440442351, 0.11920292202211755},
        {0, 0, 0, 0, 0.5},
    };
    for (size_t i = 0; i < sizeof V / sizeof V[0]; i++) {
        char w[64];
        snprintf(w, sizeof w, "gelu(%g)", V[i].x);
        CHECK_NEAR(unary1("aten::gelu", ", \"\"", ", \"none\"", V[i].x), V[i].gelu, 1e-12, w);
        snprintf(w, sizeof w, "gelu tanh(%g)", V[i].x);
        CHECK_NEAR(unary1("aten::gelu", ", \"\"", ", \"tanh\"", V[i].x), V[i].gelu_tanh, 1e-12, w);
        snprintf(w, sizeof w, "silu(%g)", V[i].x);
        CHECK_NEAR(unary1("aten::silu", "", "", V[i].x), V[i].silu, 1e-12, w);
        snprintf(w, sizeof w, "sigmoid(%g)", V[i].x);
        CHECK_NEAR(unary1("aten::sigmoid", "", "", V[i].x), V[i].sigmoid, 1e-12, w);
    }
    /* backward ops against central differences of the forward reference */
    const double xs[] = {-2.5, -0.7, 0.3, 1.25, 3};
    const double h = 1e-5;
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double x = xs[i];
        char w[64];
        for (int form = 0; form < 2; form++) {
            const char *ap = form ? ", \"tanh\"" : ", \"none\"";
            double fd =
                (unary1("aten::gelu", ", \"\"", ap, x + h) - unary1("aten::gelu", ", \"\"", ap, x - h)) / (2 * h);
            snprintf(w, sizeof w, "gelu_backward %s at %g", form ? "tanh" : "erf", x);
            CHECK_NEAR(binary1("aten::gelu_backward", form ? "tanh" : "none", 2.0, x), 2.0 * fd, 1e-8, w);
        }
        double fd = (unary1("aten::silu", "", "", x + h) - unary1("aten::silu", "", "", x - h)) / (2 * h);
        snprintf(w, sizeof w, "silu_backward at %g", x);
        CHECK_NEAR(binary1("aten::silu_backward", NULL, 1.5, x), 1.5 * fd, 1e-8, w);
        /* sigmoid_backward / tanh_backward take the forward output */
        fd = (unary1("aten::sigmoid", "", "", x + h) - unary1("aten::sigmoid", "", "", x - h)) / (2 * h);
        snprintf(w, sizeof w, "sigmoid_backward at %g", x);
        CHECK_NEAR(binary1("aten::sigmoid_backward", NULL, 1.0, unary1("aten::sigmoid", "", "", x)), fd, 1e-8, w);
        fd = (unary1("aten::tanh", "", "", x + h) - unary1("aten::tanh", "", "", x - h)) / (2 * h);
        snprintf(w, sizeof w, "tanh_backward at %g", x);
        CHECK_NEAR(binary1("aten::tanh_backward", NULL, 1.0, tanh(x)), fd, 1e-8, w);
    }
    /* threshold at 0 vs relu: threshold_backward(1, x, 0) is relu's derivative */
    CHECK_MSG(binary1("aten::threshold_backward", "0", 1, 0.0) == 0 &&
                  binary1("aten::threshold_backward", "0", 1, 1e-9) == 1,
              "threshold_backward at 0");
}

static void test_division_pow_lerp_nan(void) {
    /* division: true, trunc, floor (Python's // semantics: 1 // 0.1 == 9, -7 // 2 == -4) */
    CHECK_NEAR(binary1("aten::div", NULL, 7, 2), 3.5, 0, "7 / 2");
    CHECK_NEAR(binary1("aten::div", "trunc", -7, 2), -3, 0, "trunc(-7 / 2)");
    CHECK_NEAR(binary1("aten::div", "floor", -7, 2), -4, 0, "floor(-7 / 2)");
    CHECK_NEAR(binary1("aten::div", "floor", 7, -2), -4, 0, "floor(7 / -2)");
    CHECK_NEAR(binary1("aten::div", "floor", 1, 0.1), 9, 0, "1 // 0.1");
    CHECK_NEAR(binary1("aten::div", "trunc", 1, 0.1), 10, 0, "trunc(1 / 0.1)");
    /* fp32 'trunc' truncates the float quotient: 224 / 2.7317073f is 81.9999995 in
     * double but rounds to 82.0f in float, as PyTorch computes it */
    tcall c;
    tc_open(&c, "aten::div", "[[1], [1], []]", "[\"float\", \"float\", \"\"]", "[[1], [1], []]",
            "[\"\", \"\", \"trunc\"]");
    if (c.st == JV_OK) {
        const double a[] = {224}, b[] = {(float)2.7317073345184326}, want[] = {82};
        tc_set(&c, 0, a);
        tc_set(&c, 1, b);
        tc_run(&c, NULL);
        expect_out(&c, want, 1, 0, "fp32 trunc division");
    }
    CHECK_MSG(c.st == JV_OK, "div trunc fp32: %s", c.err.msg);
    tc_close(&c);
    /* integer true division -> fp32 */
    tc_open(&c, "aten::div", "[[2], [2]]", "[\"long int\", \"long int\"]", "[[1], [1]]", NULL);
    if (c.st == JV_OK) {
        const double a[] = {7, -1}, b[] = {2, 4}, want[] = {3.5, -0.25};
        tc_set(&c, 0, a);
        tc_set(&c, 1, b);
        tc_run(&c, NULL);
        CHECK_MSG(c.ops.o[2].t.dtype == JV_DT_F32, "int64 / int64 -> fp32");
        expect_out(&c, want, 2, 0, "int true division");
    }
    tc_close(&c);

    /* pow: Tensor^Tensor, Scalar^Tensor, Tensor^Scalar */
    tc_open(&c, "aten::pow", "[[2], [2]]", "[\"double\", \"double\"]", "[[1], [1]]", NULL);
    CHECK_MSG(c.st == JV_OK && c.ops.n == 3 && tc_find(&c, "exponent") == 1 && c.ops.o[0].init == JV_INIT_POSITIVE,
              "pow tensor^tensor operands: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double a[] = {2, 3}, b[] = {3, 0.5}, want[] = {8, 1.7320508075688772};
        tc_set(&c, 0, a);
        tc_set(&c, 1, b);
        tc_run(&c, NULL);
        expect_out(&c, want, 2, 1e-15, "pow tensor^tensor");
    }
    tc_close(&c);
    tc_open(&c, "aten::pow", "[[], [3]]", "[\"Scalar\", \"double\"]", "[[], [1]]", "[\"2\", \"\"]");
    CHECK_MSG(c.st == JV_OK && c.ops.n == 2 && !strcmp(c.ops.o[0].name, "exponent"), "pow scalar^tensor operands: %s",
              c.err.msg);
    if (c.st == JV_OK) {
        const double e[] = {1, 2, -1}, want[] = {2, 4, 0.5};
        tc_set(&c, 0, e);
        tc_run(&c, NULL);
        expect_out(&c, want, 3, 0, "pow scalar^tensor");
    }
    tc_close(&c);
    tc_open(&c, "aten::pow_", "[[3], []]", "[\"float\", \"Scalar\"]", "[[1], []]", "[\"\", \"2\"]");
    CHECK_MSG(c.st == JV_OK && c.ops.n == 1 && c.ops.o[0].init == JV_INIT_NORMAL, "pow_ Scalar 2: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double a[] = {-3, 0.5, 4}, want[] = {9, 0.25, 16};
        tc_set(&c, 0, a);
        tc_run(&c, NULL);
        expect_out(&c, want, 3, 0, "pow_ Scalar");
    }
    tc_close(&c);

    /* lerp with a tensor weight (both branches of PyTorch's formula) */
    tc_open(&c, "aten::lerp", "[[3], [3], [3]]", "[\"double\", \"double\", \"double\"]", "[[1], [1], [1]]", NULL);
    CHECK_MSG(c.st == JV_OK && tc_find(&c, "weight") == 2, "lerp tensor weight: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double a[] = {0, 0, 10}, b[] = {10, 10, 20}, w[] = {0.25, 0.75, 1}, want[] = {2.5, 7.5, 20};
        tc_set(&c, 0, a);
        tc_set(&c, 1, b);
        tc_set(&c, 2, w);
        tc_run(&c, NULL);
        expect_out(&c, want, 3, 0, "lerp");
    }
    tc_close(&c);

    /* nan_to_num: defaults are the dtype's max / lowest */
    tc_open(&c, "aten::nan_to_num", "[[4], [], [], []]", "[\"float\", \"Scalar\", \"Scalar\", \"Scalar\"]",
            "[[1], [], [], []]", "[\"\", \"\", \"\", \"\"]");
    if (c.st == JV_OK) {
        const double a[] = {NAN, INFINITY, -INFINITY, 1.5}, want[] = {0, FLT_MAX, -FLT_MAX, 1.5};
        tc_set(&c, 0, a);
        tc_run(&c, NULL);
        expect_out(&c, want, 4, 0, "nan_to_num fp32 defaults");
    }
    CHECK_MSG(c.st == JV_OK, "nan_to_num: %s", c.err.msg);
    tc_close(&c);
    tc_open(&c, "aten::nan_to_num", "[[3], [], [], []]", "[\"c10::BFloat16\", \"Scalar\", \"Scalar\", \"Scalar\"]",
            "[[1], [], [], []]", "[\"\", \"1.5\", \"100.\", \"\"]");
    if (c.st == JV_OK) {
        const double a[] = {NAN, INFINITY, -INFINITY}, want[] = {1.5, 100, -3.3895313892515355e38};
        tc_set(&c, 0, a);
        tc_run(&c, NULL);
        expect_out(&c, want, 3, 0, "nan_to_num bf16");
    }
    CHECK_MSG(c.st == JV_OK, "nan_to_num bf16: %s", c.err.msg);
    tc_close(&c);

    /* masked_fill_ with -inf; fill_ with a 0-d tensor value; zero_ */
    tc_open(&c, "aten::masked_fill_", "[[2, 2], [2], []]", "[\"float\", \"bool\", \"Scalar\"]", "[[2, 1], [1], []]",
            "[\"\", \"\", \"-inf\"]");
    CHECK_MSG(c.st == JV_OK && c.ops.n == 2 && c.ops.o[1].init == JV_INIT_MASK, "masked_fill_ operands: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double a[] = {1, 2, 3, 4}, m[] = {0, 1}, want[] = {1, -INFINITY, 3, -INFINITY};
        tc_set(&c, 0, a);
        tc_set(&c, 1, m);
        tc_run(&c, NULL);
        expect_out(&c, want, 4, 0, "masked_fill_");
    }
    tc_close(&c);
    tc_open(&c, "aten::fill_", "[[3], []]", "[\"float\", \"float\"]", "[[1], []]", NULL);
    CHECK_MSG(c.st == JV_OK && c.ops.n == 2 && c.ops.o[0].role == JV_ROLE_OUT && !strcmp(c.ops.o[1].name, "value"),
              "fill_ tensor value operands: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double v[] = {2.5}, want[] = {2.5, 2.5, 2.5};
        tc_set(&c, 1, v);
        tc_run(&c, NULL);
        expect_out(&c, want, 3, 0, "fill_ 0-d tensor");
    }
    tc_close(&c);
}

static void test_upsample(void) {
    tcall c;
    /* 1d, size 7 from 3: scale 3/7, src = floor(j * 3/7) = 0 0 0 1 1 2 2 */
    tc_open(&c, "aten::upsample_nearest1d", "[[1, 1, 3], [], []]", "[\"float\", \"ScalarList\", \"\"]", NULL,
            "[\"\", \"[7]\", \"\"]");
    CHECK_MSG(c.st == JV_OK && c.ops.n == 2, "upsample1d: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double a[] = {1, 2, 3}, want[] = {1, 1, 1, 2, 2, 3, 3};
        tc_set(&c, 0, a);
        tc_run(&c, NULL);
        expect_out(&c, want, 7, 0, "upsample1d size 7");
    }
    tc_close(&c);
    /* same sizes but scales=3.0 given: scale 1/3, src = floor(j / 3) = 0 0 0 1 1 1 2 */
    tc_open(&c, "aten::upsample_nearest1d", "[[1, 1, 3], [], []]", "[\"float\", \"ScalarList\", \"Scalar\"]", NULL,
            "[\"\", \"[7]\", \"3.0\"]");
    CHECK_MSG(c.st == JV_OK, "upsample1d scales: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double a[] = {1, 2, 3}, want[] = {1, 1, 1, 2, 2, 2, 3};
        tc_set(&c, 0, a);
        tc_run(&c, NULL);
        expect_out(&c, want, 7, 0, "upsample1d scales 3");
    }
    tc_close(&c);
    /* 2d by scale factors [2, 2], channels_last input: out[n,c,h,w] = in[n,c,h/2,w/2] */
    tc_open(&c, "aten::upsample_nearest2d", "[[1, 3, 4, 4], [], []]", "[\"float\", \"\", \"ScalarList\"]",
            "[[48, 1, 12, 3], [], []]", "[\"\", \"\", \"[2., 2.]\"]");
    CHECK_MSG(c.st == JV_OK, "upsample2d: %s", c.err.msg);
    if (c.st == JV_OK) {
        double a[48], want[192];
        for (int i = 0; i < 48; i++)
            a[i] = i;
        for (int ch = 0; ch < 3; ch++)
            for (int h = 0; h < 8; h++)
                for (int w = 0; w < 8; w++)
                    want[ch * 64 + h * 8 + w] = ch * 16 + (h / 2) * 4 + w / 2;
        tc_set(&c, 0, a);
        tc_run(&c, NULL);
        expect_out(&c, want, 192, 0, "upsample2d x2 channels_last");
        CHECK_MSG(c.ops.o[1].t.strides[1] == 1, "upsample2d output is channels_last");
        /* a sampled run of the same call */
        memset(c.buf[1], 0xFF, 192 * sizeof(float));
        const int64_t idx[] = {0, 77, 191};
        jv_sample s = {1, 3, idx};
        tc_run(&c, &s);
        CHECK_MSG(c.st == JV_OK, "upsample sampled: %s", c.err.msg);
        for (int64_t i = 0; i < 192; i++) {
            int listed = i == 0 || i == 77 || i == 191;
            double got = tc_get(&c, 1, i);
            CHECK_MSG(listed ? got == want[i] : isnan(got), "upsample sample element %lld: %g", (long long)i, got);
        }
    }
    tc_close(&c);
}
int main(void) {
    test_broadcast();
    test_alpha_rsub_inplace();
    test_casts();
    test_where_threshold_compare();
    test_clamp();
    test_activations();
    test_division_pow_lerp_nan();
    test_upsample();
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

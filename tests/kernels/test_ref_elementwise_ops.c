/* Unit tests of the elementwise CPU reference and replay operands (unary and
 * binary families): layout invariance, sampled runs, refusals, and a table of
 * trace-form calls that reaches every jv_ew_op. The helpers:
 * test_ref_elementwise.h; the hand-computed cases: test_ref_elementwise.c. */
#include "test_ref_elementwise.h"
/* the same op on contiguous, transposed and channels_last operands gives the same logical values */
static void test_layouts(void) {
    static const struct {
        const char *what, *strides;
    } L[] = {
        {"contiguous", "[[60, 20, 5, 1], [60, 20, 5, 1]]"},
        {"channels_last", "[[60, 1, 15, 3], [60, 1, 15, 3]]"},
        {"mixed", "[[60, 1, 15, 3], [60, 20, 5, 1]]"},
        {"permuted", "[[1, 2, 30, 6], [60, 20, 5, 1]]"},
    };
    double a[120], b[120], ref[120];
    for (int i = 0; i < 120; i++)
        a[i] = 0.25 * i - 7, b[i] = 1.0 / (1 + i % 7);
    for (size_t v = 0; v < sizeof L / sizeof L[0]; v++) {
        tcall c;
        tc_open(&c, "aten::mul", "[[2, 3, 4, 5], [2, 3, 4, 5]]", "[\"float\", \"float\"]", L[v].strides,
                "[\"\", \"\"]");
        CHECK_MSG(c.st == JV_OK, "%s mul: %s", L[v].what, c.err.msg);
        if (c.st == JV_OK) {
            tc_set(&c, 0, a);
            tc_set(&c, 1, b);
            tc_run(&c, NULL);
            double want[120];
            for (int i = 0; i < 120; i++)
                want[i] = (float)((float)a[i] * (float)b[i]);
            expect_out(&c, want, 120, 0, L[v].what);
            if (v == 0)
                for (int i = 0; i < 120; i++)
                    ref[i] = tc_get(&c, 2, i);
            else
                for (int i = 0; i < 120; i++)
                    CHECK_MSG(tc_get(&c, 2, i) == ref[i], "%s element %d", L[v].what, i);
        }
        tc_close(&c);
    }
    /* a transposed [4,3] view (strides [1,4]) plus a contiguous [4,3] */
    tcall c;
    tc_open(&c, "aten::add", "[[4, 3], [4, 3], []]", "[\"float\", \"float\", \"Scalar\"]", "[[1, 4], [3, 1], []]",
            "[\"\", \"\", \"1\"]");
    CHECK_MSG(c.st == JV_OK, "transposed add: %s", c.err.msg);
    if (c.st == JV_OK) {
        double x[12], y[12], want[12];
        for (int i = 0; i < 12; i++)
            x[i] = i, y[i] = 100 * i, want[i] = 101 * i;
        tc_set(&c, 0, x);
        tc_set(&c, 1, y);
        /* the transposed operand's storage: element (r, k) at r + 4k */
        CHECK_MSG(((float *)c.buf[0])[1] == 3 && ((float *)c.buf[0])[4] == 1, "transposed storage");
        tc_run(&c, NULL);
        expect_out(&c, want, 12, 0, "transposed + contiguous");
    }
    tc_close(&c);
    /* a channels_last out= tensor written in its own layout */
    tc_open(&c, "aten::neg", "[[1, 2, 2, 2], [1, 2, 2, 2]]", "[\"float\", \"float\"]", "[[8, 4, 2, 1], [8, 1, 4, 2]]",
            NULL);
    CHECK_MSG(c.st == JV_OK && c.ops.n == 2 && c.ops.o[1].t.strides[1] == 1, "neg out= channels_last: %s", c.err.msg);
    if (c.st == JV_OK) {
        double x[8], want[8];
        for (int i = 0; i < 8; i++)
            x[i] = i + 1, want[i] = -(i + 1);
        tc_set(&c, 0, x);
        tc_run(&c, NULL);
        expect_out(&c, want, 8, 0, "neg out= channels_last");
        CHECK_MSG(((float *)c.buf[1])[1] == -5, "channels_last storage: (0,1,0,0) at offset 1");
    }
    tc_close(&c);
}

static void test_sampled(void) {
    tcall c;
    tc_open(&c, "aten::add", "[[3, 4], [4], []]", "[\"float\", \"float\", \"Scalar\"]", "[[4, 1], [1], []]",
            "[\"\", \"\", \"2\"]");
    CHECK_MSG(c.st == JV_OK, "sampled add: %s", c.err.msg);
    if (c.st == JV_OK) {
        double x[12], y[4] = {1, 2, 3, 4};
        for (int i = 0; i < 12; i++)
            x[i] = 10 * i;
        tc_set(&c, 0, x);
        tc_set(&c, 1, y);
        const int64_t idx[] = {1, 5, 11};
        jv_sample s = {2, 3, idx};
        tc_run(&c, &s);
        CHECK_MSG(c.st == JV_OK, "sampled run: %s", c.err.msg);
        for (int i = 0; i < 12; i++) {
            double got = tc_get(&c, 2, i);
            if (i == 1 || i == 5 || i == 11)
                CHECK_MSG(got == 10 * i + 2 * y[i % 4], "sampled element %d: %g", i, got);
            else
                CHECK_MSG(isnan(got), "unlisted element %d untouched (poison NaN), got %g", i, got);
        }
        /* a sample of an input operand: every element is computed */
        jv_sample s_in = {0, 1, idx};
        tc_run(&c, &s_in);
        for (int i = 0; i < 12; i++)
            CHECK_MSG(tc_get(&c, 2, i) == 10 * i + 2 * y[i % 4], "full run element %d", i);
        /* an index outside the output */
        const int64_t bad[] = {12};
        jv_sample s_bad = {2, 1, bad};
        CHECK_MSG(tc_run(&c, &s_bad) != JV_OK && c.err.msg[0], "sample index out of range refused");
    }
    tc_close(&c);
    /* sampled in place: unlisted elements of self keep their input values */
    tc_open(&c, "aten::mul_", "[[6], []]", "[\"c10::BFloat16\", \"Scalar\"]", "[[1], []]", "[\"\", \"3\"]");
    CHECK_MSG(c.st == JV_OK && c.out == 0, "sampled mul_: %s", c.err.msg);
    if (c.st == JV_OK) {
        const double x[] = {1, 2, 3, 4, 5, 6};
        tc_set(&c, 0, x);
        const int64_t idx[] = {0, 4};
        jv_sample s = {0, 2, idx};
        tc_run(&c, &s);
        const double want[] = {3, 2, 3, 4, 15, 6};
        expect_out(&c, want, 6, 0, "sampled mul_");
    }
    tc_close(&c);
}

static void test_refusals(void) {
    tcall c;
    /* complex tensors */
    tc_open(&c, "aten::add", "[[4], [4], []]", "[\"c10::complex<float>\", \"c10::complex<float>\", \"Scalar\"]",
            "[[1], [1], []]", "[\"\", \"\", \"1\"]");
    CHECK_MSG(c.st == JV_ERR_FORMAT && strstr(c.err.msg, "complex") && strstr(c.err.msg, "aten::add"),
              "complex refused: %d '%s'", (int)c.st, c.err.msg);
    tc_close(&c);
    /* fp8 source of a copy_ */
    tc_open(&c, "aten::copy_", "[[4], [4], []]", "[\"c10::BFloat16\", \"c10::Float8_e4m3fn\", \"Scalar\"]",
            "[[1], [1], []]", "[\"\", \"\", \"False\"]");
    CHECK_MSG(c.st == JV_ERR_FORMAT && strstr(c.err.msg, "Float8"), "fp8 refused: %d '%s'", (int)c.st, c.err.msg);
    tc_close(&c);
    /* a Scalar whose value the trace does not record */
    tc_open(&c, "aten::add", "[[4], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", "[[1], [], []]",
            "[\"\", \"\", \"1\"]");
    CHECK_MSG(c.st == JV_ERR_FORMAT && strstr(c.err.msg, "not recorded"), "unknown Scalar refused: %d '%s'", (int)c.st,
              c.err.msg);
    tc_close(&c);
    tc_open(&c, "aten::where", "[[8], [], []]", "[\"bool\", \"Scalar\", \"Scalar\"]", "[[1], [], []]", NULL);
    CHECK_MSG(c.st == JV_ERR_FORMAT && c.err.msg[0], "where of unknown Scalars refused: '%s'", c.err.msg);
    tc_close(&c);
    /* a complex Python scalar */
    tc_open(&c, "aten::mul", "[[4], []]", "[\"float\", \"Scalar\"]", "[[1], []]", "[\"\", \"(1+2j)\"]");
    CHECK_MSG(c.st == JV_ERR_FORMAT && strstr(c.err.msg, "complex"), "complex Scalar refused: '%s'", c.err.msg);
    tc_close(&c);
    /* a cast to an unrecorded dtype: the output dtype is unknown */
    tc_open(&c, "aten::_to_copy", "[[8], [], [], [], [], [], []]",
            "[\"float\", \"Scalar\", \"\", \"\", \"\", \"Scalar\", \"\"]", "[[1], [], [], [], [], [], []]", NULL);
    CHECK_MSG(c.st == JV_ERR_FORMAT && strstr(c.err.msg, "dtype"), "unknown output dtype refused: '%s'", c.err.msg);
    tc_close(&c);
    /* operands that do not match the call */
    tc_open(&c, "aten::add", "[[4], [4], []]", "[\"float\", \"float\", \"Scalar\"]", "[[1], [1], []]",
            "[\"\", \"\", \"1\"]");
    if (c.st == JV_OK) {
        c.ops.n = 2;
        CHECK_MSG(tc_run(&c, NULL) == JV_ERR_FORMAT && c.err.msg[0], "too few operands refused");
        c.ops.n = 3;
        c.ops.o[1].t.shape[0] = 5;
        CHECK_MSG(tc_run(&c, NULL) == JV_ERR_FORMAT && c.err.msg[0], "wrong shape refused");
    }
    tc_close(&c);
}

/* ---- every jv_ew_op, from trace-form calls ---- */

typedef struct {
    const char *name, *dims, *types, *strides, *concrete;
    double in[3]; /* values of the readable operands, in operand order */
    double want;  /* every output element */
} table_call;

static const table_call TABLE[] = {
    {"aten::add",
     "[[2, 3], [3], []]",
     "[\"double\", \"double\", \"Scalar\"]",
     NULL,
     "[\"\", \"\", \"2\"]",
     {0.75, 1.25},
     3.25},
    {"aten::sub",
     "[[4], [4], []]",
     "[\"double\", \"double\", \"Scalar\"]",
     NULL,
     "[\"\", \"\", \"1\"]",
     {0.75, 1.25},
     -0.5},
    {"aten::rsub",
     "[[4], [4], []]",
     "[\"double\", \"double\", \"Scalar\"]",
     NULL,
     "[\"\", \"\", \"1\"]",
     {0.75, 1.25},
     0.5},
    {"aten::mul", "[[4], [4]]", "[\"double\", \"double\"]", NULL, NULL, {0.75, 1.25}, 0.9375},
    {"aten::div", "[[4], [4]]", "[\"double\", \"double\"]", NULL, NULL, {0.75, 1.25}, 0.6},
    {"aten::where", "[[4], [4], [4]]", "[\"bool\", \"double\", \"double\"]", NULL, NULL, {1, 1.25, 0.5}, 1.25},
    {"aten::threshold_backward",
     "[[4], [4], []]",
     "[\"double\", \"double\", \"Scalar\"]",
     NULL,
     "[\"\", \"\", \"1\"]",
     {0.75, 1.25},
     0.75},
    {"aten::sigmoid_backward", "[[4], [4]]", "[\"double\", \"double\"]", NULL, NULL, {0.75, 1.25}, -0.234375},
    {"aten::tanh_backward", "[[4], [4]]", "[\"double\", \"double\"]", NULL, NULL, {0.75, 1.25}, -0.421875},
    {"aten::gelu_backward",
     "[[4], [4], []]",
     "[\"double\", \"double\", \"\"]",
     NULL,
     "[\"\", \"\", \"none\"]",
     {0.75, 1.25},
     0.8419961873020665},
    {"aten::gelu_backward",
     "[[4], [4], []]",
     "[\"double\", \"double\", \"\"]",
     NULL,
     "[\"\", \"\", \"tanh\"]",
     {0.75, 1.25},
     0.8418694741872366},
    {"aten::silu_backward", "[[4], [4]]", "[\"double\", \"double\"]", NULL, NULL, {0.75, 1.25}, 0.7452606336864843},
    {"aten::maximum", "[[4], [4]]", "[\"double\", \"double\"]", NULL, NULL, {0.75, 1.25}, 1.25},
    {"aten::minimum", "[[4], [4]]", "[\"double\", \"double\"]", NULL, NULL, {0.75, 1.25}, 0.75},
    {"aten::eq", "[[4], [4]]", "[\"double\", \"double\"]", NULL, NULL, {0.75, 1.25}, 0},
    {"aten::ne", "[[4], [4]]", "[\"double\", \"double\"]", NULL, NULL, {0.75, 1.25}, 1},
    {"aten::lt", "[[4], [4]]", "[\"double\", \"double\"]", NULL, NULL, {0.75, 1.25}, 1},
    {"aten::le", "[[4], []]", "[\"double\", \"Scalar\"]", NULL, "[\"\", \"0.75\"]", {0.75}, 1},
    {"aten::gt", "[[4], [4]]", "[\"double\", \"double\"]", NULL, NULL, {0.75, 1.25}, 0},
    {"aten::ge_", "[[4], [4]]", "[\"double\", \"double\"]", NULL, NULL, {0.75, 1.25}, 0},
    {"aten::masked_fill",
     "[[4], [4], []]",
     "[\"double\", \"bool\", \"Scalar\"]",
     NULL,
     "[\"\", \"\", \"3.5\"]",
     {0.75, 1},
     3.5},
    {"aten::addcmul",
     "[[4], [4], [4], []]",
     "[\"double\", \"double\", \"double\", \"Scalar\"]",
     NULL,
     "[\"\", \"\", \"\", \"2\"]",
     {0.75, 1.25, 0.5},
     2.0},
    {"aten::addcdiv_",
     "[[4], [4], [4], []]",
     "[\"double\", \"double\", \"double\", \"Scalar\"]",
     NULL,
     "[\"\", \"\", \"\", \"2\"]",
     {0.75, 1.25, 0.5},
     5.75},
    {"aten::lerp",
     "[[4], [4], []]",
     "[\"double\", \"double\", \"Scalar\"]",
     NULL,
     "[\"\", \"\", \"0.5\"]",
     {0.75, 1.25},
     1.0},
    {"aten::pow", "[[4], []]", "[\"double\", \"Scalar\"]", NULL, "[\"\", \"2\"]", {0.75}, 0.5625},
    {"aten::copy_",
     "[[4], [4], []]",
     "[\"double\", \"float\", \"Scalar\"]",
     NULL,
     "[\"\", \"\", \"False\"]",
     {0.75},
     0.75},
    {"aten::copy",
     "[[2, 2], [2, 2], []]",
     "[\"double\", \"float\", \"Scalar\"]",
     "[[1, 2], [2, 1], []]",
     "[\"\", \"\", \"False\"]",
     {-9, 0.75},
     0.75},
    {"aten::clone", "[[4], []]", "[\"double\", \"Scalar\"]", NULL, "[\"\", \"\"]", {0.75}, 0.75},
    {"aten::contiguous", "[[2, 2], []]", "[\"double\", \"Scalar\"]", "[[1, 2], []]", "[\"\", \"0\"]", {0.75}, 0.75},
    {"aten::_to_copy",
     "[[4], [], [], [], [], [], []]",
     "[\"float\", \"Scalar\", \"\", \"\", \"\", \"Scalar\", \"\"]",
     NULL,
     "[\"\", \"7\", \"\", \"\", \"\", \"False\", \"\"]",
     {0.75},
     0.75},
    {"aten::relu", "[[4]]", "[\"double\"]", NULL, NULL, {-0.75}, 0},
    {"aten::gelu", "[[4], []]", "[\"double\", \"\"]", NULL, "[\"\", \"none\"]", {0.75}, 0.5800294857173488},
    {"aten::gelu_", "[[4], []]", "[\"double\", \"\"]", NULL, "[\"\", \"tanh\"]", {0.75}, 0.5799605551656203},
    {"aten::silu", "[[4]]", "[\"double\"]", NULL, NULL, {0.75}, 0.5093840243815447},
    {"aten::sigmoid", "[[4]]", "[\"double\"]", NULL, NULL, {0.75}, 0.679178699175393},
    {"aten::tanh", "[[4]]", "[\"double\"]", NULL, NULL, {0.75}, 0.6351489523872873},
    {"aten::neg_", "[[4]]", "[\"double\"]", NULL, NULL, {0.75}, -0.75},
    {"aten::rsqrt", "[[4]]", "[\"double\"]", NULL, NULL, {0.75}, 1.1547005383792517},
    {"aten::sqrt", "[[4]]", "[\"double\"]", NULL, NULL, {0.75}, 0.8660254037844386},
    {"aten::exp", "[[4]]", "[\"double\"]", NULL, NULL, {0.75}, 2.117000016612675},
    {"aten::log", "[[4]]", "[\"double\"]", NULL, NULL, {0.75}, -0.2876820724517809},
    {"aten::abs", "[[4]]", "[\"double\"]", NULL, NULL, {-0.75}, 0.75},
    {"aten::reciprocal", "[[4]]", "[\"double\"]", NULL, NULL, {0.75}, 4.0 / 3},
    {"aten::clamp",
     "[[4], [], []]",
     "[\"double\", \"Scalar\", \"Scalar\"]",
     NULL,
     "[\"\", \"0.8\", \"2\"]",
     {0.75},
     0.8},
    {"aten::clamp_min", "[[4], []]", "[\"double\", \"Scalar\"]", NULL, "[\"\", \"1.0\"]", {0.75}, 1.0},
    {"aten::clamp_max_", "[[4], []]", "[\"double\", \"Scalar\"]", NULL, "[\"\", \"0.5\"]", {0.75}, 0.5},
    {"aten::fill_", "[[4], []]", "[\"double\", \"Scalar\"]", NULL, "[\"\", \"2.5\"]", {0}, 2.5},
    {"aten::zero_", "[[2, 2]]", "[\"double\"]", NULL, NULL, {0}, 0},
    {"aten::hardtanh",
     "[[4], [], []]",
     "[\"double\", \"Scalar\", \"Scalar\"]",
     NULL,
     "[\"\", \"0\", \"0.5\"]",
     {0.75},
     0.5},
    {"aten::leaky_relu", "[[4], []]", "[\"double\", \"Scalar\"]", NULL, "[\"\", \"0.2\"]", {-2}, -0.4},
    {"aten::erf", "[[4]]", "[\"double\"]", NULL, NULL, {0.75}, 0.7111556336535151},
    {"aten::sin", "[[4]]", "[\"double\"]", NULL, NULL, {0.75}, 0.6816387600233341},
    {"aten::cos", "[[4]]", "[\"double\"]", NULL, NULL, {0.75}, 0.7316888688738209},
    {"aten::nan_to_num",
     "[[4], [], [], []]",
     "[\"double\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     NULL,
     "[\"\", \"0.\", \"\", \"\"]",
     {0.75},
     0.75},
    {"aten::upsample_nearest1d",
     "[[1, 2, 3], [], []]",
     "[\"double\", \"ScalarList\", \"\"]",
     NULL,
     "[\"\", \"[6]\", \"\"]",
     {0.75},
     0.75},
    {"aten::upsample_nearest2d",
     "[[1, 1, 2, 2], [], []]",
     "[\"double\", \"\", \"ScalarList\"]",
     NULL,
     "[\"\", \"\", \"[2., 3.]\"]",
     {0.75},
     0.75},
    {"aten::upsample_nearest3d",
     "[[1, 1, 2, 2, 2], [], [], [], []]",
     "[\"double\", \"ScalarList\", \"\", \"\", \"\"]",
     NULL,
     "[\"\", \"[3, 3, 3]\", \"\", \"\", \"\"]",
     {0.75},
     0.75},
};

static void test_every_op(void) {
    int seen[JV_EW_OP_COUNT] = {0};
    for (size_t t = 0; t < sizeof TABLE / sizeof TABLE[0]; t++) {
        const table_call *e = &TABLE[t];
        tcall c;
        tc_open(&c, e->name, e->dims, e->types, e->strides, e->concrete);
        CHECK_MSG(c.st == JV_OK && c.out >= 0, "%s: operands: %s", e->name, c.err.msg);
        if (c.st == JV_OK && c.out >= 0) {
            int j = 0;
            for (int k = 0; k < c.ops.n; k++)
                if (c.ops.o[k].role != JV_ROLE_OUT) tc_fill(&c, k, e->in[j < 3 ? j++ : 2]);
            tc_run(&c, NULL);
            CHECK_MSG(c.st == JV_OK, "%s: reference: %s", e->name, c.err.msg);
            if (c.st == JV_OK) {
                const jv_elementwise_desc *g = jv_elementwise_of(&c.d);
                seen[g->op] = 1;
                int64_t n = jv_tensor_numel(&c.ops.o[c.out].t);
                int ok = n > 0;
                double bad = 0;
                for (int64_t i = 0; i < n; i++) {
                    double v = tc_get(&c, c.out, i);
                    if (!close_to(v, e->want, 1e-12)) ok = 0, bad = v;
                }
                CHECK_MSG(ok, "%s (%s): output %.17g, want %.17g", e->name, e->concrete ? e->concrete : "", bad,
                          e->want);
            }
        }
        tc_close(&c);
    }
    for (int op = 0; op < JV_EW_OP_COUNT; op++)
        CHECK_MSG(seen[op], "jv_ew_op %d is reached by no table call", op);
}
int main(void) {
    test_layouts();
    test_sampled();
    test_refusals();
    test_every_op();
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

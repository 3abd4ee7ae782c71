/* Unit tests of the batch-norm family's replay operands and CPU reference
 * (kernels/batchnorm/batchnorm_ref.c): hand-computed training statistics and
 * running updates, eval, backward against central finite differences,
 * channels_last against NCHW, bf16 input with fp32 parameters, and every op
 * name of the family (operand lists, roles, and results across ops).
 * Calls are built as traces record them (jv_opcall_from_trace + jv_desc_parse). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batchnorm/batchnorm.h"
#include "jv_test_replay.h"

static unsigned seed_of(const char *name) {
    unsigned h = 5381;
    for (; *name; name++)
        h = h * 33u + (unsigned char)*name;
    return h % 1000u;
}

static double getn(const replay *r, const char *name, int64_t l) {
    return get(r, find(r, name), l);
}
static void setn(replay *r, const char *name, int64_t l, double v) {
    set(r, find(r, name), l, v);
}
static int64_t numel_of(const replay *r, const char *name) {
    return jv_tensor_numel(&r->ops.o[find(r, name)].t);
}

/* Parses, gets operands, allocates. Inputs are filled by name (NORMAL: value_at; POSITIVE: in [0.5, 1.5)),
 * outputs with NaN. */
static int setup(replay *r, const char *name, const char *dims, const char *types, const char *strides,
                 const char *concrete) {
    if (!replay_open(r, name, dims, types, strides, concrete)) return 0;
    for (int i = 0; i < r->ops.n; i++) {
        const jv_operand *o = &r->ops.o[i];
        int64_t n = jv_tensor_numel(&o->t);
        unsigned seed = seed_of(o->name);
        for (int64_t l = 0; l < n; l++) {
            double v = o->init == JV_INIT_NORMAL     ? value_at(seed, l)
                       : o->init == JV_INIT_POSITIVE ? 1.0 + value_at(seed, l) / 4.0
                                                     : NAN;
            set(r, i, l, v);
        }
    }
    return 1;
}

/* "a,b,c": the operand names in order */
static int names_are(const replay *r, const char *list) {
    char buf[256];
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < r->ops.n && len < sizeof buf; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? "," : "", r->ops.o[i].name);
    if (strcmp(buf, list)) fprintf(stderr, "operands: %s\n   wanted: %s\n", buf, list);
    return !strcmp(buf, list);
}

#define F5 "\"float\", \"float\", \"float\", \"float\", \"float\""
#define D3 "\"double\", \"double\", \"double\""

/* ---- tests ---- */

static void test_hand_training(void) {
    /* x [2, 2, 2] (N, C, L): channel 0 holds 1, 2, 3, 4; channel 1 holds 2, 4, 6, 8.
     * mean = (2.5, 5); biased var = (1.25, 5); invstd = 1/sqrt(var + 1e-5) = (0.894423613312618, 0.4472131482870333)
     * w = (2, 0.5), b = (0.1, -0.2): out[0][0][0] = (1 - 2.5)*invstd0*2 + 0.1 = -2.5832708399378537,
     * out[1][1][1] = (8 - 5)*invstd1*0.5 - 0.2 = 0.47081972243054987.
     * running (0.5, -1), (2, 3), momentum 0.1: mean 0.9*0.5 + 0.1*2.5 = 0.7, 0.9*(-1) + 0.1*5 = -0.4;
     * var (unbiased, n = 4): 0.9*2 + 0.1*1.25*4/3 = 1.9666666666666668, 0.9*3 + 0.1*5*4/3 = 3.3666666666666667 */
    replay r;
    CHECK(setup(&r, "aten::native_batch_norm", "[[2, 2, 2], [2], [2], [2], [2], [], [], []]",
                "[" D3 ", \"double\", \"double\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"));
    CHECK(names_are(&r, "input,weight,bias,running_mean,running_var,out,save_mean,save_invstd"));
    CHECK(r.ops.o[find(&r, "running_mean")].role == JV_ROLE_INOUT);
    CHECK(r.ops.o[find(&r, "running_var")].init == JV_INIT_POSITIVE);
    CHECK(r.ops.o[find(&r, "save_mean")].role == JV_ROLE_OUT && r.ops.o[find(&r, "save_mean")].t.dtype == JV_DT_F64);
    static const double X[8] = {1, 2, 2, 4, 3, 4, 6, 8}; /* logical order n, c, l */
    for (int l = 0; l < 8; l++)
        setn(&r, "input", l, X[l]);
    setn(&r, "weight", 0, 2), setn(&r, "weight", 1, 0.5);
    setn(&r, "bias", 0, 0.1), setn(&r, "bias", 1, -0.2);
    setn(&r, "running_mean", 0, 0.5), setn(&r, "running_mean", 1, -1);
    setn(&r, "running_var", 0, 2), setn(&r, "running_var", 1, 3);
    CHECK(reference(&r, NULL) == JV_OK);
    CHECK_NEAR(getn(&r, "save_mean", 0), 2.5, 1e-15);
    CHECK_NEAR(getn(&r, "save_mean", 1), 5.0, 1e-15);
    CHECK_NEAR(getn(&r, "save_invstd", 0), 0.894423613312618, 1e-14);
    CHECK_NEAR(getn(&r, "save_invstd", 1), 0.4472131482870333, 1e-14);
    CHECK_NEAR(getn(&r, "out", 0), -2.5832708399378537, 1e-14);
    CHECK_NEAR(getn(&r, "out", 7), 0.47081972243054987, 1e-14);
    /* out[0][1][0] = (2 - 5)*invstd1*0.5 - 0.2 */
    CHECK_NEAR(getn(&r, "out", 2), -3 * 0.4472131482870333 * 0.5 - 0.2, 1e-14);
    CHECK_NEAR(getn(&r, "running_mean", 0), 0.7, 1e-15);
    CHECK_NEAR(getn(&r, "running_mean", 1), -0.4, 1e-15);
    CHECK_NEAR(getn(&r, "running_var", 0), 1.9666666666666668, 1e-15);
    CHECK_NEAR(getn(&r, "running_var", 1), 3.3666666666666667, 1e-15);
    /* the normalized output of each channel has mean b and (biased) variance w^2 * var/(var + eps) */
    double s0 = 0, s1 = 0;
    for (int l = 0; l < 8; l++) {
        if ((l / 2) % 2)
            s1 += getn(&r, "out", l);
        else
            s0 += getn(&r, "out", l);
    }
    CHECK_NEAR(s0 / 4, 0.1, 1e-14);
    CHECK_NEAR(s1 / 4, -0.2, 1e-14);
    replay_free(&r);
}

static void test_hand_eval(void) {
    /* same x, eval: out = (x - rm)/sqrt(rv + eps)*w + b; out[0][0][0] = (1 - 0.5)/sqrt(2.00001)*2 + 0.1
     * = 0.8071050134262236; out[1][1][1] = (8 + 1)/sqrt(3.00001)*0.5 - 0.2 = 2.398071881237122;
     * running statistics are inputs and stay as they are */
    replay r;
    CHECK(setup(&r, "aten::native_batch_norm", "[[2, 2, 2], [2], [2], [2], [2], [], [], []]",
                "[" D3 ", \"double\", \"double\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]"));
    CHECK(names_are(&r, "input,weight,bias,running_mean,running_var,out"));
    CHECK(r.ops.o[find(&r, "running_mean")].role == JV_ROLE_IN && r.ops.o[find(&r, "running_var")].role == JV_ROLE_IN);
    static const double X[8] = {1, 2, 2, 4, 3, 4, 6, 8};
    for (int l = 0; l < 8; l++)
        setn(&r, "input", l, X[l]);
    setn(&r, "weight", 0, 2), setn(&r, "weight", 1, 0.5);
    setn(&r, "bias", 0, 0.1), setn(&r, "bias", 1, -0.2);
    setn(&r, "running_mean", 0, 0.5), setn(&r, "running_mean", 1, -1);
    setn(&r, "running_var", 0, 2), setn(&r, "running_var", 1, 3);
    CHECK(reference(&r, NULL) == JV_OK);
    CHECK_NEAR(getn(&r, "out", 0), 0.8071050134262236, 1e-14);
    CHECK_NEAR(getn(&r, "out", 7), 2.398071881237122, 1e-14);
    CHECK(getn(&r, "running_mean", 0) == 0.5 && getn(&r, "running_var", 1) == 3);
    replay_free(&r);
    /* no weight and no bias: w = 1, b = 0 */
    CHECK(setup(&r, "aten::native_batch_norm", "[[2, 2, 2], [], [], [2], [2], [], [], []]",
                "[\"double\", \"\", \"\", \"double\", \"double\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]"));
    CHECK(names_are(&r, "input,running_mean,running_var,out"));
    for (int l = 0; l < 8; l++)
        setn(&r, "input", l, X[l]);
    setn(&r, "running_mean", 0, 0.5), setn(&r, "running_mean", 1, -1);
    setn(&r, "running_var", 0, 2), setn(&r, "running_var", 1, 3);
    CHECK(reference(&r, NULL) == JV_OK);
    CHECK_NEAR(getn(&r, "out", 0), 0.5 / sqrt(2.00001), 1e-14);
    CHECK_NEAR(getn(&r, "out", 7), 9 / sqrt(3.00001), 1e-14);
    replay_free(&r);
}

/* L = sum(out * g) of a forward replay f (g = value_at(99, l)) */
static double loss(replay *f) {
    if (reference(f, NULL) != JV_OK) return NAN;
    double s = 0;
    int64_t n = numel_of(f, "out");
    for (int64_t l = 0; l < n; l++)
        s += getn(f, "out", l) * value_at(99, l);
    return s;
}

/* the worst relative difference between the backward's grad (name) and central differences of L over operand
 * wrt of f */
static double fd_err(replay *f, const char *wrt, const replay *b, const char *grad) {
    const double h = 1e-5;
    double worst = 0;
    int64_t n = numel_of(f, wrt);
    for (int64_t l = 0; l < n; l++) {
        double v = getn(f, wrt, l);
        setn(f, wrt, l, v + h);
        double lp = loss(f);
        setn(f, wrt, l, v - h);
        double lm = loss(f);
        setn(f, wrt, l, v);
        double want = (lp - lm) / (2 * h), e = fabs(getn(b, grad, l) - want) / fmax(1.0, fabs(want));
        if (!(e <= worst)) worst = e;
    }
    return worst;
}

static void test_backward_fd(void) {
    /* training: [3, 2, 2, 3] fp64 without running statistics; the backward gets the forward's save_mean and
     * save_invstd */
    replay f, b;
    CHECK(setup(&f, "aten::native_batch_norm", "[[3, 2, 2, 3], [2], [2], [], [], [], [], []]",
                "[" D3 ", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"));
    CHECK(names_are(&f, "input,weight,bias,out,save_mean,save_invstd"));
    CHECK(setup(&b, "aten::native_batch_norm_backward",
                "[[3, 2, 2, 3], [3, 2, 2, 3], [2], [], [], [2], [2], [], [], []]",
                "[" D3 ", \"\", \"\", \"double\", \"double\", \"Scalar\", \"Scalar\", \"ScalarList\"]", NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[True, True, True]\"]"));
    CHECK(names_are(&b, "grad_out,input,weight,save_mean,save_invstd,grad_input,grad_weight,grad_bias"));
    CHECK(b.ops.o[find(&b, "save_invstd")].init == JV_INIT_POSITIVE && b.ops.o[find(&b, "input")].role == JV_ROLE_IN);
    CHECK(loss(&f) == loss(&f)); /* runs the forward */
    for (int64_t l = 0; l < 36; l++)
        setn(&b, "grad_out", l, value_at(99, l)), setn(&b, "input", l, getn(&f, "input", l));
    for (int64_t c = 0; c < 2; c++) {
        setn(&b, "weight", c, getn(&f, "weight", c));
        setn(&b, "save_mean", c, getn(&f, "save_mean", c));
        setn(&b, "save_invstd", c, getn(&f, "save_invstd", c));
    }
    CHECK(reference(&b, NULL) == JV_OK);
    CHECK(fd_err(&f, "input", &b, "grad_input") <= 1e-6);
    CHECK(fd_err(&f, "weight", &b, "grad_weight") <= 1e-6);
    CHECK(fd_err(&f, "bias", &b, "grad_bias") <= 1e-6);
    /* the sum of grad_input over a channel is 0 in training (the mean is subtracted) */
    double s = 0;
    for (int64_t l = 0; l < 36; l++)
        if ((l / 6) % 2 == 1) s += getn(&b, "grad_input", l);
    CHECK(fabs(s) <= 1e-12);
    replay_free(&f);
    replay_free(&b);

    /* eval: the running statistics are constants */
    CHECK(setup(&f, "aten::native_batch_norm", "[[3, 2, 2, 3], [2], [2], [2], [2], [], [], []]",
                "[" D3 ", \"double\", \"double\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]"));
    CHECK(setup(&b, "aten::native_batch_norm_backward",
                "[[3, 2, 2, 3], [3, 2, 2, 3], [2], [2], [2], [], [], [], [], []]",
                "[" D3 ", \"double\", \"double\", \"\", \"\", \"Scalar\", \"Scalar\", \"ScalarList\"]", NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"False\", \"1e-05\", \"[True, True, True]\"]"));
    CHECK(names_are(&b, "grad_out,input,weight,running_mean,running_var,grad_input,grad_weight,grad_bias"));
    for (int64_t l = 0; l < 36; l++)
        setn(&b, "grad_out", l, value_at(99, l)), setn(&b, "input", l, getn(&f, "input", l));
    for (int64_t c = 0; c < 2; c++) {
        setn(&b, "weight", c, getn(&f, "weight", c));
        setn(&b, "running_mean", c, getn(&f, "running_mean", c));
        setn(&b, "running_var", c, getn(&f, "running_var", c));
    }
    CHECK(reference(&b, NULL) == JV_OK);
    CHECK(fd_err(&f, "input", &b, "grad_input") <= 1e-6);
    CHECK(fd_err(&f, "weight", &b, "grad_weight") <= 1e-6);
    CHECK(fd_err(&f, "bias", &b, "grad_bias") <= 1e-6);
    replay_free(&f);
    replay_free(&b);

    /* the output mask: only grad_input and grad_bias, no weight */
    CHECK(setup(&b, "aten::native_batch_norm_backward",
                "[[3, 2, 2, 3], [3, 2, 2, 3], [], [], [], [2], [2], [], [], []]",
                "[\"double\", \"double\", \"\", \"\", \"\", \"double\", \"double\", \"Scalar\", \"Scalar\", "
                "\"ScalarList\"]",
                NULL, "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[True, False, True]\"]"));
    CHECK(names_are(&b, "grad_out,input,save_mean,save_invstd,grad_input,grad_bias"));
    CHECK(reference(&b, NULL) == JV_OK);
    /* grad_bias = sum of dy over the channel */
    double gb = 0;
    for (int64_t l = 0; l < 36; l++)
        if ((l / 6) % 2 == 0) gb += getn(&b, "grad_out", l);
    CHECK_NEAR(getn(&b, "grad_bias", 0), gb, 1e-14);
    replay_free(&b);
}

static void test_channels_last(void) {
    /* [2, 3, 4, 5] channels_last (strides 60, 1, 15, 3) against NCHW, same logical values */
    const char *dims = "[[2, 3, 4, 5], [3], [3], [3], [3], [], [], []]";
    const char *types = "[" F5 ", \"Scalar\", \"Scalar\", \"Scalar\"]";
    const char *conc = "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]";
    replay n, c;
    CHECK(setup(&n, "aten::native_batch_norm", dims, types, "[[60, 20, 5, 1], [1], [1], [1], [1], [], [], []]", conc));
    CHECK(setup(&c, "aten::native_batch_norm", dims, types, "[[60, 1, 15, 3], [1], [1], [1], [1], [], [], []]", conc));
    const jv_tensor *o = &c.ops.o[find(&c, "out")].t;
    CHECK(o->strides[0] == 60 && o->strides[1] == 1 && o->strides[2] == 15 && o->strides[3] == 3);
    CHECK(reference(&n, NULL) == JV_OK && reference(&c, NULL) == JV_OK);
    int same = 1;
    for (int64_t l = 0; l < 120; l++)
        same &= fabs(getn(&n, "out", l) - getn(&c, "out", l)) <= 1e-6;
    for (int64_t k = 0; k < 3; k++) {
        same &= getn(&n, "save_mean", k) == getn(&c, "save_mean", k);
        same &= getn(&n, "save_invstd", k) == getn(&c, "save_invstd", k);
        same &= getn(&n, "running_var", k) == getn(&c, "running_var", k);
    }
    CHECK(same);
    /* the storage differs: element [0][1][0][0] sits at 20 in NCHW and at 1 in channels_last */
    CHECK(((float *)c.bufs[find(&c, "out")])[1] == ((float *)n.bufs[find(&n, "out")])[20]);
    replay_free(&n);
    replay_free(&c);
    /* backward */
    const char *bdims = "[[2, 3, 4, 5], [2, 3, 4, 5], [3], [3], [3], [3], [3], [], [], []]";
    const char *btypes = "[" F5 ", \"float\", \"float\", \"Scalar\", \"Scalar\", \"ScalarList\"]";
    const char *bconc = "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[True, True, True]\"]";
    CHECK(setup(&n, "aten::native_batch_norm_backward", bdims, btypes, NULL, bconc));
    CHECK(setup(&c, "aten::native_batch_norm_backward", bdims, btypes,
                "[[60, 1, 15, 3], [60, 1, 15, 3], [1], [1], [1], [1], [1], [], [], []]", bconc));
    o = &c.ops.o[find(&c, "grad_input")].t;
    CHECK(o->strides[1] == 1 && o->strides[3] == 3);
    CHECK(reference(&n, NULL) == JV_OK && reference(&c, NULL) == JV_OK);
    same = 1;
    for (int64_t l = 0; l < 120; l++)
        same &= fabs(getn(&n, "grad_input", l) - getn(&c, "grad_input", l)) <= 1e-6;
    for (int64_t k = 0; k < 3; k++)
        same &= fabs(getn(&n, "grad_weight", k) - getn(&c, "grad_weight", k)) <= 1e-5;
    CHECK(same);
    replay_free(&n);
    replay_free(&c);
    /* an input that is not dense (a slice) gets a contiguous out */
    CHECK(setup(&c, "aten::native_batch_norm", "[[2, 3, 4, 4], [3], [3], [3], [3], [], [], []]", types,
                "[[96, 32, 8, 1], [1], [1], [1], [1], [], [], []]", conc));
    o = &c.ops.o[find(&c, "out")].t;
    CHECK(o->strides[0] == 48 && o->strides[1] == 16 && o->strides[2] == 4 && o->strides[3] == 1);
    CHECK(c.ops.o[find(&c, "input")].t.strides[2] == 8);
    CHECK(reference(&c, NULL) == JV_OK);
    replay_free(&c);
}

static void test_bf16_fp32_params(void) {
    /* cudnn_batch_norm with a bf16 input and fp32 weight, bias, running statistics; the inputs are exact in
     * bf16, so the statistics must match a double computation to fp32 precision and out to bf16 rounding
     * (relative 2^-8, plus 1e-6 absolute near 0) */
    replay r;
    CHECK(setup(&r, "aten::cudnn_batch_norm", "[[4, 3, 5, 5], [3], [3], [3], [3], [], [], []]",
                "[\"c10::BFloat16\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                NULL, "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"));
    CHECK(r.ops.o[find(&r, "out")].t.dtype == JV_DT_BF16 && r.ops.o[find(&r, "save_mean")].t.dtype == JV_DT_F32);
    CHECK(r.ops.o[find(&r, "running_mean")].t.dtype == JV_DT_F32);
    double rm0[3], rv0[3];
    for (int k = 0; k < 3; k++)
        rm0[k] = getn(&r, "running_mean", k), rv0[k] = getn(&r, "running_var", k);
    CHECK(reference(&r, NULL) == JV_OK);
    int ok_out = 1;
    for (int k = 0; k < 3; k++) {
        double m = 0, v = 0;
        for (int nn = 0; nn < 4; nn++)
            for (int s = 0; s < 25; s++)
                m += getn(&r, "input", (nn * 3 + k) * 25 + s);
        m /= 100;
        for (int nn = 0; nn < 4; nn++)
            for (int s = 0; s < 25; s++) {
                double d = getn(&r, "input", (nn * 3 + k) * 25 + s) - m;
                v += d * d;
            }
        v /= 100;
        double is = 1 / sqrt(v + 1e-5);
        CHECK_NEAR(getn(&r, "save_mean", k), m, 1e-6);
        CHECK_NEAR(getn(&r, "save_invstd", k), is, 1e-6);
        CHECK_NEAR(getn(&r, "running_mean", k), 0.9 * rm0[k] + 0.1 * m, 1e-6);
        CHECK_NEAR(getn(&r, "running_var", k), 0.9 * rv0[k] + 0.1 * v * 100 / 99, 1e-6);
        for (int nn = 0; nn < 4; nn++)
            for (int s = 0; s < 25; s++) {
                int64_t l = (nn * 3 + k) * 25 + s;
                double want = (getn(&r, "input", l) - m) * is * getn(&r, "weight", k) + getn(&r, "bias", k);
                ok_out &= fabs(getn(&r, "out", l) - want) <= fabs(want) / 256 + 1e-6;
            }
    }
    CHECK(ok_out);
    replay_free(&r);
}

/* the family's op names, each with the operands it gets; kind 0 training forward, 1 eval forward,
 * 2 training backward, 3 eval backward */
#define X4         "[2, 3, 2, 2]"
#define FWD9       "[[2, 3, 2, 2], [3], [3], [3], [3], [], [], [], []]"
#define T9         "[" F5 ", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]"
#define FWD8       "[[2, 3, 2, 2], [3], [3], [3], [3], [], [], []]"
#define T8         "[" F5 ", \"Scalar\", \"Scalar\", \"Scalar\"]"
#define FWD7       "[[2, 3, 2, 2], [3], [3], [3], [3], [], []]"
#define T7         "[" F5 ", \"Scalar\", \"Scalar\"]"
#define C8T        "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"
#define C8F        "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]"
#define C7         "[\"\", \"\", \"\", \"\", \"\", \"0.1\", \"1e-05\"]"
#define FWD_NAMES  "input,weight,bias,running_mean,running_var,out"
#define SAVE_NAMES ",save_mean,save_invstd"
#define BWD_NAMES                                                                                                      \
    "grad_out,input,weight,running_mean,running_var,save_mean,save_invstd,grad_input,grad_weight,grad_bias"

static const struct {
    const char *name, *dims, *types, *conc, *names;
    int kind;
} TABLE[] = {
    {"aten::native_batch_norm", FWD8, T8, C8T, FWD_NAMES SAVE_NAMES, 0},
    {"aten::native_batch_norm", FWD8, T8, C8F, FWD_NAMES, 1},
    {"aten::native_batch_norm_backward", "[[2, 3, 2, 2], [2, 3, 2, 2], [3], [3], [3], [3], [3], [], [], []]",
     "[" F5 ", \"float\", \"float\", \"Scalar\", \"Scalar\", \"ScalarList\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[True, True, True]\"]", BWD_NAMES, 2},
    {"aten::native_batch_norm_backward", "[[2, 3, 2, 2], [2, 3, 2, 2], [3], [3], [3], [3], [3], [], [], []]",
     "[" F5 ", \"float\", \"float\", \"Scalar\", \"Scalar\", \"ScalarList\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"False\", \"1e-05\", \"[True, True, True]\"]", BWD_NAMES, 3},
    {"aten::batch_norm", FWD9, T9, "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\", \"True\"]", FWD_NAMES,
     0},
    {"aten::batch_norm", FWD9, T9, "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\", \"True\"]", FWD_NAMES,
     1},
    {"aten::_batch_norm_impl_index", FWD9, T9, "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\", \"True\"]",
     FWD_NAMES SAVE_NAMES, 0},
    {"aten::cudnn_batch_norm", FWD8, T8, C8T, FWD_NAMES SAVE_NAMES, 0},
    {"aten::cudnn_batch_norm", FWD8, T8, C8F, FWD_NAMES, 1},
    {"aten::miopen_batch_norm", FWD8, T8, C8T, FWD_NAMES SAVE_NAMES, 0},
    {"aten::_native_batch_norm_legit", FWD8, T8, C8T, FWD_NAMES SAVE_NAMES, 0},
    {"aten::_native_batch_norm_legit", "[[2, 3, 2, 2], [3], [3], [], [], []]",
     "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[\"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]", "input,weight,bias,out" SAVE_NAMES, 0},
    {"aten::_native_batch_norm_legit_no_training", FWD7, T7, C7, FWD_NAMES, 1},
    {"aten::_batch_norm_with_update", FWD7, T7, C7, FWD_NAMES SAVE_NAMES, 0},
    {"aten::_batch_norm_no_update", FWD7, T7, C7, FWD_NAMES, 1},
    {"aten::batch_norm_backward", "[[2, 3, 2, 2], [2, 3, 2, 2], [3], [3], [3], [3], [3], [], [], [], [0]]",
     "[" F5 ", \"float\", \"float\", \"Scalar\", \"Scalar\", \"ScalarList\", \"unsigned char\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[True, True, True]\", \"\"]", BWD_NAMES, 2},
    {"aten::batch_norm_backward", "[[2, 3, 2, 2], [2, 3, 2, 2], [3], [3], [3], [3], [3], [], [], [], [0]]",
     "[" F5 ", \"float\", \"float\", \"Scalar\", \"Scalar\", \"ScalarList\", \"unsigned char\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"False\", \"1e-05\", \"[True, True, True]\", \"\"]", BWD_NAMES, 3},
    {"aten::cudnn_batch_norm_backward", "[[2, 3, 2, 2], [2, 3, 2, 2], [3], [3], [3], [3], [3], [], [0]]",
     "[" F5 ", \"float\", \"float\", \"Scalar\", \"unsigned char\"]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1e-05\", \"\"]", BWD_NAMES, 2},
    {"aten::miopen_batch_norm_backward", "[[2, 3, 2, 2], [2, 3, 2, 2], [3], [3], [3], [3], [3], []]",
     "[" F5 ", \"float\", \"float\", \"Scalar\"]", "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1e-05\"]", BWD_NAMES,
     2},
};

static void test_every_op(void) {
    /* the first entry of each kind is the yardstick: every later entry of that kind, filled by operand name
     * with the same data, computes the same outputs */
    static const char *const OUTS[] = {"out",         "save_mean",  "save_invstd", "running_mean",
                                       "running_var", "grad_input", "grad_weight", "grad_bias"};
    replay gold[4];
    int have[4] = {0, 0, 0, 0};
    int covered[16] = {0};
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++) {
        replay r;
        int ok = setup(&r, TABLE[i].name, TABLE[i].dims, TABLE[i].types, NULL, TABLE[i].conc);
        if (!ok) fprintf(stderr, "entry %zu (%s) failed to set up\n", i, TABLE[i].name);
        CHECK(ok);
        if (!ok) {
            replay_free(&r);
            continue;
        }
        if (!names_are(&r, TABLE[i].names)) fprintf(stderr, "  entry %zu (%s)\n", i, TABLE[i].name);
        CHECK(names_are(&r, TABLE[i].names));
        int k = TABLE[i].kind, rm = find(&r, "running_mean");
        if (rm >= 0) CHECK(r.ops.o[rm].role == (k == 0 ? JV_ROLE_INOUT : JV_ROLE_IN));
        CHECK(reference(&r, NULL) == JV_OK);
        covered[jv_batchnorm_of(&r.d)->op] = 1;
        /* every output written and finite */
        int finite = 1;
        for (int o = 0; o < r.ops.n; o++)
            if (r.ops.o[o].role != JV_ROLE_IN)
                for (int64_t l = 0; l < jv_tensor_numel(&r.ops.o[o].t); l++)
                    finite &= isfinite(get(&r, o, l));
        CHECK(finite);
        if (!have[k]) {
            gold[k] = r;
            have[k] = 1;
            continue;
        }
        int same = 1, compared = 0;
        for (size_t q = 0; q < sizeof OUTS / sizeof OUTS[0]; q++) {
            int a = find(&r, OUTS[q]), b = find(&gold[k], OUTS[q]);
            if (a < 0 || b < 0 || r.ops.o[a].role == JV_ROLE_IN) continue;
            for (int64_t l = 0; l < jv_tensor_numel(&r.ops.o[a].t); l++) {
                same &= get(&r, a, l) == get(&gold[k], b, l);
                compared++;
            }
        }
        if (!same) fprintf(stderr, "  entry %zu (%s) differs from the yardstick\n", i, TABLE[i].name);
        CHECK(same && compared >= 3);
        replay_free(&r);
    }
    int all = 1;
    for (int op = JV_BN_BATCH_NORM; op <= JV_BN_MIOPEN_BWD; op++)
        all &= covered[op];
    CHECK(all);
    /* training and eval differ */
    CHECK(have[0] && have[1] && getn(&gold[0], "out", 5) != getn(&gold[1], "out", 5));
    CHECK(have[2] && have[3] && getn(&gold[2], "grad_input", 5) != getn(&gold[3], "grad_input", 5));
    for (int k = 0; k < 4; k++)
        if (have[k]) replay_free(&gold[k]);
}

static void test_refusals(void) {
    jv_desc d;
    jv_operands ops;
    jv_err err;
    /* eval without running statistics */
    CHECK(parse_call("aten::native_batch_norm", "[[2, 3, 4], [3], [3], [], [], [], [], []]",
                     "[\"float\", \"float\", \"float\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL, C8F,
                     &d) == JV_OK);
    jv_err_clear(&err);
    CHECK(jv_desc_operands(&d, &ops, &err) == JV_ERR_FORMAT && strstr(err.msg, "running"));
    /* training backward without saved statistics */
    CHECK(parse_call("aten::native_batch_norm_backward", "[[2, 3, 4], [2, 3, 4], [3], [3], [3], [], [], [], [], []]",
                     "[" F5 ", \"\", \"\", \"Scalar\", \"Scalar\", \"ScalarList\"]", NULL,
                     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[True, True, True]\"]",
                     &d) == JV_OK);
    jv_err_clear(&err);
    CHECK(jv_desc_operands(&d, &ops, &err) == JV_ERR_FORMAT && strstr(err.msg, "save_mean"));
    /* one value per channel with running statistics */
    CHECK(parse_call("aten::native_batch_norm", "[[1, 3], [3], [3], [3], [3], [], [], []]",
                     "[" F5 ", \"Scalar\", "
                     "\"Scalar\", \"Scalar\"]",
                     NULL, C8T, &d) == JV_OK);
    jv_err_clear(&err);
    CHECK(jv_desc_operands(&d, &ops, &err) == JV_ERR_FORMAT && strstr(err.msg, "one value per channel"));
    /* an fp8 input */
    CHECK(parse_call("aten::native_batch_norm", "[[2, 3, 4], [], [], [], [], [], [], []]",
                     "[\"c10::Float8_e4m3fn\", \"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL, C8T,
                     &d) == JV_OK);
    jv_err_clear(&err);
    CHECK(jv_desc_operands(&d, &ops, &err) == JV_ERR_FORMAT && strstr(err.msg, "Float8"));
    /* a reference over operands that do not fit: a weight of the wrong size */
    CHECK(parse_call("aten::native_batch_norm", FWD8, T8, NULL, C8T, &d) == JV_OK);
    jv_err_clear(&err);
    CHECK(jv_desc_operands(&d, &ops, &err) == JV_OK);
    ops.o[1].t.shape[0] = 4;
    void *bufs[JV_MAX_OPERANDS] = {0};
    jv_err_clear(&err);
    CHECK(jv_desc_reference(&d, &ops, bufs, NULL, &err) == JV_ERR_FORMAT);
}

int main(void) {
    test_hand_training();
    test_hand_eval();
    test_backward_fd();
    test_channels_last();
    test_bf16_fp32_params();
    test_every_op();
    test_refusals();
    printf("%d checks passed\n", passed);
    if (failed) printf("%d checks failed\n", failed);
    return failed != 0;
}

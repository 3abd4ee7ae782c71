/* test_family_reduce: the reduction family's dim parsing, params and
 * FLOPs/bytes model against hand-computed values and TraceLens' Reduce rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reduce/reduce.h"

#define JV_TEST_FAMILY jv_reduce_family
#include "jv_test_family.h"

/* parses and checks num_output_elems, flops and bytes */
static void expect(const char *name, const char *dims, const char *types, const char *concrete, long long n_out,
                   double flops, double bytes, int line) {
    jv_desc d;
    jv_status st = parse(name, dims, types, NULL, concrete, &d);
    check_at(st == JV_OK, "parse ok", __FILE__, line);
    if (st != JV_OK) return;
    const jv_reduce_desc *r = jv_reduce_of(&d);
    if (r->n_out != n_out) printf("  n_out %lld want %lld\n", (long long)r->n_out, n_out);
    check_at(r->n_out == n_out, "num_output_elems", __FILE__, line);
    jv_perf p = model(&d);
    if (!near(p.flops, flops) || !near(p.bytes, bytes))
        printf("  flops %.17g want %.17g, bytes %.17g want %.17g\n", p.flops, flops, p.bytes, bytes);
    check_at(near(p.flops, flops), "flops", __FILE__, line);
    check_at(near(p.bytes, bytes), "bytes", __FILE__, line);
}
#define EXPECT(name, dims, types, concrete, n_out, flops, bytes)                                                       \
    expect(name, dims, types, concrete, n_out, flops, bytes, __LINE__)

static void test_match(void) {
    static const char *const STRONG[] = {"aten::sum",      "aten::mean",      "aten::max",
                                         "aten::min",      "aten::amax",      "aten::amin",
                                         "aten::prod",     "aten::norm",      "aten::linalg_vector_norm",
                                         "aten::std",      "aten::var",       "aten::var_mean",
                                         "aten::std_mean", "aten::logsumexp", "aten::cumsum",
                                         "aten::cumprod",  "aten::argmax",    "aten::argmin",
                                         "aten::any",      "aten::all"};
    for (size_t i = 0; i < sizeof STRONG / sizeof STRONG[0]; i++)
        CHECK(jv_reduce_family.match(STRONG[i]) == JV_MATCH_STRONG);
    CHECK(jv_reduce_family.match("aten::linalg_norm") == JV_MATCH_WEAK);
    CHECK(jv_reduce_family.match("aten::sum_") == JV_MATCH_NONE);
    CHECK(jv_reduce_family.match("aten::maximum") == JV_MATCH_NONE);
    CHECK(!strcmp(jv_reduce_family.sheet, "Reduce") && jv_reduce_family.split == 1);
}

/* TraceLens rows */
static void test_tracelens_rows(void) {
    jv_desc d;
    /* amd_mi300x_resnet18_train Reduce_fwd: aten::mean over (512, 512, 7, 7) bf16, dims [-1, -2], keepdim True.
     * TraceLens: GFLOPS 0.012845056, MB 24.500001907348633 (1 output element: it never reads the dims).
     * Ours: n_in = 512*512*7*7 = 12845056, n_out = 512*512 = 262144 (out shape (512, 512, 1, 1));
     * flops = 12845056 (= TraceLens); bytes = 12845056*2 + 262144*2 = 26214400 (TraceLens 25690114) */
    CHECK(parse("aten::mean", "[[512, 512, 7, 7], [], [], []]", "[\"c10::BFloat16\", \"ScalarList\", \"Scalar\", \"\"]",
                "[[25088, 49, 7, 1], [], [], []]", "[\"\", \"[-1, -2]\", \"True\", \"\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 0.012845056 * 1e9);
    CHECK_NEAR(p.bytes, 26214400.0);
    CHECK(!near(p.bytes, 24.500001907348633 * 1048576)); /* the deliberate fix */
    const jv_reduce_desc *r = jv_reduce_of(&d);
    CHECK(r->out.ndim == 4 && r->out.shape[0] == 512 && r->out.shape[1] == 512 && r->out.shape[2] == 1 &&
          r->out.shape[3] == 1);
    CHECK(p.matrix == 0 && p.dtype == JV_DT_BF16 && d.bwd == 0);
    CHECK(!strcmp(param(&d, "num_input_elems"), "12845056"));
    CHECK(!strcmp(param(&d, "num_output_elems"), "262144"));
    CHECK(!strcmp(param(&d, "dtype_in_out"), "('c10::BFloat16', None)"));
    CHECK(!strcmp(param(&d, "reduce_type"), "mean"));
    jv_params ps = {0};
    jv_reduce_family.params(&d, &ps);
    CHECK(ps.n == 4 && !strcmp(ps.p[0].name, "num_input_elems") && !strcmp(ps.p[1].name, "num_output_elems") &&
          !strcmp(ps.p[2].name, "dtype_in_out") && !strcmp(ps.p[3].name, "reduce_type"));

    /* resnet18 aten::mean.out over (512, 1000) bf16 with dim [] (all dims): n_out 1, TraceLens is right:
     * bytes = 512000*2 + 2 = 1024002 = 0.9765644073486328 MB; flops 512000 = 0.000512 GFLOPS */
    CHECK(parse("aten::mean", "[[512, 1000], [], [], [], []]",
                "[\"c10::BFloat16\", \"ScalarList\", \"Scalar\", \"\", \"c10::BFloat16\"]", NULL,
                "[\"\", \"[]\", \"False\", \"\", \"\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 0.000512 * 1e9);
    CHECK_NEAR(p.bytes, 0.9765644073486328 * 1048576);
    CHECK(!strcmp(param(&d, "num_output_elems"), "1"));

    /* nv_v100_dlrm_w8_rank0: aten::cumsum over [417] long int (no Concrete Inputs): out = in,
     * bytes = 417*8*2 = 6672 = 0.0063629150390625 MB; flops 417 */
    CHECK(parse("aten::cumsum", "[[417], [], []]", "[\"long int\", \"Scalar\", \"\"]", NULL, NULL, &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 4.17e-07 * 1e9);
    CHECK_NEAR(p.bytes, 0.0063629150390625 * 1048576);
    CHECK(!strcmp(param(&d, "num_output_elems"), "417"));
    CHECK(!strcmp(param(&d, "dtype_in_out"), "('long int', None)"));
    CHECK(!strcmp(param(&d, "reduce_type"), "sum"));

    /* dlrm: aten::sum of a 0-d float, dim not recorded: 1 in, 1 out, bytes 8 = 7.62939453125e-06 MB */
    CHECK(parse("aten::sum", "[[], [], [], []]", "[\"float\", \"\", \"Scalar\", \"\"]", NULL, NULL, &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 1e-09 * 1e9);
    CHECK_NEAR(p.bytes, 7.62939453125e-06 * 1048576);

    /* dlrm: aten::mean(self, dtype) over [16] float: full, bytes 16*4 + 4 = 68 = 6.4849853515625e-05 MB */
    CHECK(parse("aten::mean", "[[16], []]", "[\"float\", \"\"]", NULL, NULL, &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.bytes, 6.4849853515625e-05 * 1048576);

    /* amd_mi300x_sglang_qwen3_8b_decode: aten::max(self) over [32] int: bytes 32*4 + 4 = 132 */
    CHECK(parse("aten::max", "[[32]]", "[\"int\"]", "[[1]]", "[\"\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 3.2e-08 * 1e9);
    CHECK_NEAR(p.bytes, 0.000125885009765625 * 1048576);
    CHECK(!strcmp(param(&d, "reduce_type"), "max"));
    CHECK(!strcmp(param(&d, "dtype_in_out"), "('int', None)"));
}

static void test_dims(void) {
    const char *T4 = "[\"float\", \"ScalarList\", \"Scalar\", \"\"]";
    /* sum over (2, 3, 4) float = 24 elements; bytes = 24*4 + n_out*4 */
    EXPECT("aten::sum", "[[2, 3, 4], [], [], []]", T4, "[\"\", \"[1]\", \"False\", \"\"]", 8, 24, 96 + 32);
    EXPECT("aten::sum", "[[2, 3, 4], [], [], []]", T4, "[\"\", \"1\", \"True\", \"\"]", 8, 24, 96 + 32);
    EXPECT("aten::sum", "[[2, 3, 4], [], [], []]", T4, "[\"\", \"[0, 2]\", \"False\", \"\"]", 3, 24, 96 + 12);
    EXPECT("aten::sum", "[[2, 3, 4], [], [], []]", T4, "[\"\", \"[-1]\", \"False\", \"\"]", 6, 24, 96 + 24);
    EXPECT("aten::sum", "[[2, 3, 4], [], [], []]", T4, "[\"\", \"[-3, -1]\", \"True\", \"\"]", 3, 24, 96 + 12);
    EXPECT("aten::sum", "[[2, 3, 4], [], [], []]", T4, "[\"\", \"(0, 1, 2)\", \"False\", \"\"]", 1, 24, 96 + 4);
    /* all dims: [], None, "" (not recorded) */
    EXPECT("aten::sum", "[[2, 3, 4], [], [], []]", T4, "[\"\", \"[]\", \"False\", \"\"]", 1, 24, 100);
    EXPECT("aten::sum", "[[2, 3, 4], [], [], []]", T4, "[\"\", \"None\", \"False\", \"\"]", 1, 24, 100);
    EXPECT("aten::sum", "[[2, 3, 4], [], [], []]", "[\"float\", \"\", \"Scalar\", \"\"]", NULL, 1, 24, 100);
    /* keepdim shapes */
    jv_desc d;
    CHECK(parse("aten::sum", "[[2, 3, 4], [], [], []]", T4, NULL, "[\"\", \"[1]\", \"True\", \"\"]", &d) == JV_OK);
    const jv_reduce_desc *r = jv_reduce_of(&d);
    CHECK(r->out.ndim == 3 && r->out.shape[0] == 2 && r->out.shape[1] == 1 && r->out.shape[2] == 4);
    CHECK(parse("aten::sum", "[[2, 3, 4], [], [], []]", T4, NULL, "[\"\", \"[1]\", \"False\", \"\"]", &d) == JV_OK);
    r = jv_reduce_of(&d);
    CHECK(r->out.ndim == 2 && r->out.shape[0] == 2 && r->out.shape[1] == 4);
    /* sum(self, dtype): full; dtype 6 = float on bf16: bytes = 32*2 + 1*4 = 68 */
    EXPECT("aten::sum", "[[4, 8], []]", "[\"c10::BFloat16\", \"Scalar\"]", "[\"\", \"6\"]", 1, 32, 68);
    /* sum.dim_IntList with dtype 7 (double) on float (2, 3) over dim 0: bytes = 6*4 + 3*8 = 48 */
    EXPECT("aten::sum", "[[2, 3], [], [], []]", "[\"float\", \"ScalarList\", \"Scalar\", \"Scalar\"]",
           "[\"\", \"[0]\", \"False\", \"7\"]", 3, 6, 48);
    /* TraceLens row nv_b300_moe_microbench: sum over (16, 2, 512) bf16 dim [1]: n_out 16*512 = 8192,
     * bytes = 16384*2 + 8192*2 = 49152 (TraceLens 32770) */
    EXPECT("aten::sum", "[[16, 2, 512], [], [], []]", "[\"c10::BFloat16\", \"ScalarList\", \"Scalar\", \"\"]",
           "[\"\", \"[1]\", \"False\", \"\"]", 8192, 16384, 49152);
    /* a 0-d input takes dim 0 / -1 */
    EXPECT("aten::sum", "[[], [], [], []]", T4, "[\"\", \"[0]\", \"False\", \"\"]", 1, 1, 8);
    EXPECT("aten::sum", "[[], [], [], []]", T4, "[\"\", \"[-1]\", \"True\", \"\"]", 1, 1, 8);
}

static void test_ops(void) {
    /* integral sum/cumsum promote to int64 (PyTorch): sglang cumsum over [32] int32, dim 0:
     * bytes = 32*4 + 32*8 = 384 (TraceLens 256, keeps int32) */
    EXPECT("aten::cumsum", "[[32], [], []]", "[\"int\", \"Scalar\", \"\"]", "[\"\", \"0\", \"\"]", 32, 32, 384);
    /* cumsum with dtype 6 (float) on bf16 (4, 5) dim 1: bytes = 20*2 + 20*4 = 120 */
    EXPECT("aten::cumprod", "[[4, 5], [], []]", "[\"c10::BFloat16\", \"Scalar\", \"Scalar\"]", "[\"\", \"1\", \"6\"]",
           20, 20, 120);
    /* dlrm sum over (3, 128) int32, dim unknown: n_out 1, out int64: bytes = 384*4 + 8 = 1544 (TraceLens 1540) */
    EXPECT("aten::sum", "[[3, 128], [], [], []]", "[\"int\", \"\", \"Scalar\", \"\"]", NULL, 1, 384, 1544);
    /* bool sum: bool is 1 byte, out int64: (4, 4) over dim 0: 16*1 + 4*8 = 48 */
    EXPECT("aten::sum", "[[4, 4], [], [], []]", "[\"bool\", \"ScalarList\", \"Scalar\", \"\"]",
           "[\"\", \"[0]\", \"False\", \"\"]", 4, 16, 48);
    /* prod(self, dtype) full on float (3, 3): 9*4 + 4 = 40; prod.dim_int dim 1: 36 + 12 = 48 */
    EXPECT("aten::prod", "[[3, 3], []]", "[\"float\", \"\"]", "[\"\", \"\"]", 1, 9, 40);
    EXPECT("aten::prod", "[[3, 3], [], [], []]", "[\"float\", \"Scalar\", \"Scalar\", \"\"]",
           "[\"\", \"1\", \"False\", \"\"]", 3, 9, 48);
    /* max.dim over (2, 2048, 1) float dim 1: values (2, 1) float + indices int64:
     * bytes = 4096*4 + 2*4 + 2*8 = 16408 */
    EXPECT("aten::max", "[[2, 2048, 1], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", "[\"\", \"1\", \"False\"]", 2,
           4096, 16408);
    EXPECT("aten::min", "[[2, 2048, 1], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", "[\"\", \"-2\", \"True\"]", 2,
           4096, 16408);
    /* binary max(self, other): (4, 1) and (1, 5) float broadcast to (4, 5):
     * flops 20, bytes = 4*4 + 5*4 + 20*4 = 116 */
    EXPECT("aten::max", "[[4, 1], [1, 5]]", "[\"float\", \"float\"]", NULL, 20, 20, 116);
    /* amax/amin (self, dim, keepdim) over (8, 16) bf16 dim [1]: 128*2 + 8*2 = 272; [] = all: 258 */
    EXPECT("aten::amax", "[[8, 16], [], []]", "[\"c10::BFloat16\", \"ScalarList\", \"Scalar\"]",
           "[\"\", \"[1]\", \"False\"]", 8, 128, 272);
    EXPECT("aten::amin", "[[8, 16], [], []]", "[\"c10::BFloat16\", \"ScalarList\", \"Scalar\"]",
           "[\"\", \"[]\", \"False\"]", 1, 128, 258);
    /* var.correction (self, dim, correction, keepdim) over (8, 16) float dim [1]: 512 + 32 = 544 */
    EXPECT("aten::var", "[[8, 16], [], [], []]", "[\"float\", \"ScalarList\", \"Scalar\", \"Scalar\"]",
           "[\"\", \"[1]\", \"1\", \"False\"]", 8, 128, 544);
    /* older std.dim (self, dim, unbiased, keepdim) */
    EXPECT("aten::std", "[[8, 16], [], [], []]", "[\"float\", \"ScalarList\", \"Scalar\", \"Scalar\"]",
           "[\"\", \"[0]\", \"True\", \"True\"]", 16, 128, 512 + 64);
    /* var(self, unbiased): full: 512 + 4 */
    EXPECT("aten::var", "[[8, 16], []]", "[\"float\", \"Scalar\"]", "[\"\", \"True\"]", 1, 128, 516);
    /* var_mean / std_mean write two outputs: 512 + 8*4*2 = 576 */
    EXPECT("aten::var_mean", "[[8, 16], [], [], []]", "[\"float\", \"ScalarList\", \"Scalar\", \"Scalar\"]",
           "[\"\", \"[1]\", \"1\", \"False\"]", 8, 128, 576);
    EXPECT("aten::std_mean", "[[8, 16], [], [], []]", "[\"float\", \"ScalarList\", \"Scalar\", \"Scalar\"]",
           "[\"\", \"[1]\", \"1\", \"False\"]", 8, 128, 576);
    /* norm.ScalarOpt_dim_dtype (self, p, dim, keepdim, dtype) dim [1] on float (8, 16): 512 + 32 = 544 */
    EXPECT("aten::norm", "[[8, 16], [], [], [], []]", "[\"float\", \"Scalar\", \"ScalarList\", \"Scalar\", \"\"]",
           "[\"\", \"2\", \"[1]\", \"False\", \"\"]", 8, 128, 544);
    /* norm.Scalar (self, p): full: 516; norm.ScalarOpt_dtype (self, p, dtype 7 = double): 512 + 8 = 520 */
    EXPECT("aten::norm", "[[8, 16], []]", "[\"float\", \"Scalar\"]", "[\"\", \"2\"]", 1, 128, 516);
    EXPECT("aten::norm", "[[8, 16], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", "[\"\", \"2\", \"7\"]", 1, 128,
           520);
    /* norm.ScalarOpt_dim (self, p, dim, keepdim) */
    EXPECT("aten::norm", "[[8, 16], [], [], []]", "[\"float\", \"Scalar\", \"ScalarList\", \"Scalar\"]",
           "[\"\", \"2\", \"[0]\", \"True\"]", 16, 128, 576);
    /* linalg_vector_norm (self, ord, dim, keepdim, dtype): dim None = all; dim [0], dtype 6 on bf16:
     * 128*2 + 16*4 = 320 */
    EXPECT("aten::linalg_vector_norm", "[[8, 16], [], [], [], []]", "[\"float\", \"Scalar\", \"\", \"Scalar\", \"\"]",
           "[\"\", \"2\", \"None\", \"False\", \"\"]", 1, 128, 516);
    EXPECT("aten::linalg_vector_norm", "[[8, 16], [], [], [], []]",
           "[\"c10::BFloat16\", \"Scalar\", \"ScalarList\", \"Scalar\", \"Scalar\"]",
           "[\"\", \"2\", \"[0]\", \"True\", \"6\"]", 16, 128, 320);
    /* logsumexp over (4, 6) float dim [1] keepdim: 96 + 16 = 112 */
    EXPECT("aten::logsumexp", "[[4, 6], [], []]", "[\"float\", \"ScalarList\", \"Scalar\"]",
           "[\"\", \"[1]\", \"True\"]", 4, 24, 112);
    /* argmax: sglang row (32, 151936) float dim -1: out 32 int64:
     * flops = 4861952, bytes = 4861952*4 + 32*8 = 19448064; dim None: 1 element */
    EXPECT("aten::argmax", "[[32, 151936], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", "[\"\", \"-1\", \"False\"]",
           32, 4861952, 19448064);
    EXPECT("aten::argmin", "[[32, 10], [], []]", "[\"float\", \"\", \"Scalar\"]", "[\"\", \"\", \"False\"]", 1, 320,
           1280 + 8);
    /* all(bool [1, 141]) full: 141*1 + 1 = 142 (bool 1 byte; TraceLens: unknown size) */
    EXPECT("aten::all", "[[1, 141]]", "[\"bool\"]", "[\"\"]", 1, 141, 142);
    /* any.dim over (4, 6) float dim 1 keepdim: out bool (4, 1): 96 + 4 = 100 */
    EXPECT("aten::any", "[[4, 6], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", "[\"\", \"1\", \"True\"]", 4, 24,
           100);
    /* reduce_type follows TraceLens' name rule */
    jv_desc d;
    CHECK(parse("aten::argmin", "[[4], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", NULL, NULL, &d) == JV_OK);
    CHECK(!strcmp(param(&d, "reduce_type"), "min"));
    CHECK(parse("aten::linalg_vector_norm", "[[4]]", "[\"float\"]", NULL, NULL, &d) == JV_OK);
    CHECK(!strcmp(param(&d, "reduce_type"), "norm"));
    CHECK(parse("aten::std_mean", "[[4]]", "[\"float\"]", NULL, NULL, &d) == JV_OK);
    CHECK(!strcmp(param(&d, "reduce_type"), "mean"));
    CHECK(parse("aten::logsumexp", "[[4]]", "[\"float\"]", NULL, NULL, &d) == JV_OK);
    CHECK(!strcmp(param(&d, "reduce_type"), "sum"));
    /* an unknown input dtype: bytes NaN, the traced type text printed */
    CHECK(parse("aten::sum", "[[4], []]", "[\"c10::Float8_e8m0fnu\", \"\"]", NULL, NULL, &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(isnan(p.bytes) && p.flops == 4);
    CHECK(!strcmp(param(&d, "dtype_in_out"), "('c10::Float8_e8m0fnu', None)"));
}

static void test_hostile(void) {
    jv_desc d;
    /* no shapes at all (traces without Input Dims) */
    CHECK(parse("aten::sum", NULL, NULL, NULL, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::mean", "[]", "[]", "[]", "[]", &d) == JV_ERR_FORMAT);
    /* self is not a tensor */
    CHECK(parse("aten::sum", "[[], [300, 2048], [], [], []]", "[\"\", \"int\", \"\", \"Scalar\", \"\"]", NULL, NULL,
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::sum", "[[]]", "[\"Scalar\"]", NULL, "[\"3\"]", &d) == JV_ERR_FORMAT);
    /* a negative or overflowing shape */
    CHECK(parse("aten::sum", "[[-1, 4], [], [], []]", "[\"float\", \"ScalarList\", \"Scalar\", \"\"]", NULL,
                "[\"\", \"[0]\", \"False\", \"\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::sum", "[[4294967296, 4294967296, 4294967296], [], [], []]",
                "[\"float\", \"ScalarList\", \"Scalar\", \"\"]", NULL, "[\"\", \"[0]\", \"False\", \"\"]",
                &d) == JV_ERR_FORMAT);
    /* out-of-range and malformed dims */
    const char *T4 = "[\"float\", \"ScalarList\", \"Scalar\", \"\"]";
    CHECK(parse("aten::sum", "[[2, 3, 4], [], [], []]", T4, NULL, "[\"\", \"[3]\", \"False\", \"\"]", &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::sum", "[[2, 3, 4], [], [], []]", T4, NULL, "[\"\", \"[-4]\", \"False\", \"\"]", &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::sum", "[[2, 3, 4], [], [], []]", T4, NULL, "[\"\", \"[abc]\", \"False\", \"\"]", &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::sum", "[[2, 3, 4], [], [], []]", T4, NULL,
                "[\"\", \"[0, 1, 2, 0, 1, 2, 0, 1, 2]\", \"False\", \"\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::sum", "[[2, 3, 4], [], [], []]", T4, NULL, "[\"\", \"[99999999999999999999]\", \"False\", \"\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::cumsum", "[[4], [], []]", "[\"float\", \"Scalar\", \"\"]", NULL, "[\"\", \"1\", \"\"]", &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::sum", "[[], [], [], []]", T4, NULL, "[\"\", \"[1]\", \"False\", \"\"]", &d) == JV_ERR_FORMAT);
    /* a bad keepdim */
    CHECK(parse("aten::sum", "[[2, 3, 4], [], [], []]", T4, NULL, "[\"\", \"[0]\", \"maybe\", \"\"]", &d) ==
          JV_ERR_FORMAT);
    /* binary max whose shapes do not broadcast */
    CHECK(parse("aten::max", "[[4, 3], [4, 5]]", "[\"float\", \"float\"]", NULL, NULL, &d) == JV_ERR_FORMAT);
    /* a garbage dtype code falls back to the input dtype */
    CHECK(parse("aten::sum", "[[4], []]", "[\"float\", \"Scalar\"]", NULL, "[\"\", \"999\"]", &d) == JV_OK);
    CHECK(jv_reduce_of(&d)->out.dtype == JV_DT_F32);
}

/* aten::topk (TraceLens: no model). The B300 MoE fixture's call: (16, 64) bf16, k 2, dim -1: 1024 compares;
 * bytes 1024*2 read + 32*2 values + 32*8 int64 indices = 2368 */
static void test_topk(void) {
    const char *T = "[\"c10::BFloat16\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]";
    EXPECT("aten::topk", "[[16, 64], [], [], [], []]", T, "[\"\", \"2\", \"-1\", \"True\", \"True\"]", 32, 1024, 2368);
    CHECK(jv_reduce_family.match("aten::topk") == JV_MATCH_STRONG);
    jv_desc d;
    CHECK(parse("aten::topk", "[[16, 64], [], [], [], []]", T, NULL, "[\"\", \"2\", \"-1\", \"True\", \"True\"]", &d) ==
          JV_OK);
    CHECK(!strcmp(param(&d, "reduce_type"), "topk"));
    /* along dim 0 of a [8, 5, 3] fp32 tensor, k 4: out [4, 5, 3] = 60 values; 120*4 + 60*4 + 60*8 = 1200 */
    EXPECT("aten::topk", "[[8, 5, 3], [], [], [], []]", "[\"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
           "[\"\", \"4\", \"0\", \"False\", \"True\"]", 60, 120, 1200);
    /* k missing, negative, larger than the dim; a dim out of range */
    CHECK(parse("aten::topk", "[[16, 64], [], [], [], []]", T, NULL, "[\"\", \"\", \"-1\", \"True\", \"True\"]", &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::topk", "[[16, 64], [], [], [], []]", T, NULL, "[\"\", \"-3\", \"-1\", \"True\", \"True\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::topk", "[[16, 64], [], [], [], []]", T, NULL, "[\"\", \"65\", \"-1\", \"True\", \"True\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::topk", "[[16, 64], [], [], [], []]", T, NULL, "[\"\", \"2\", \"2\", \"True\", \"True\"]", &d) ==
          JV_ERR_FORMAT);
}

int main(void) {
    test_match();
    test_topk();
    test_tracelens_rows();
    test_dims();
    test_ops();
    test_hostile();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/* test_family_softmax: the softmax family's parsing, params and FLOPs/bytes
 * model against hand-computed values (TraceLens has no softmax model). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "softmax/softmax.h"

#define JV_TEST_FAMILY jv_softmax_family
#include "jv_test_family.h"

static void test_match(void) {
    CHECK(jv_softmax_family.match("aten::_softmax") == JV_MATCH_STRONG);
    CHECK(jv_softmax_family.match("aten::softmax") == JV_MATCH_WEAK);
    CHECK(jv_softmax_family.match("aten::_log_softmax") == JV_MATCH_STRONG);
    CHECK(jv_softmax_family.match("aten::log_softmax") == JV_MATCH_WEAK);
    CHECK(jv_softmax_family.match("aten::_softmax_backward_data") == JV_MATCH_STRONG);
    CHECK(jv_softmax_family.match("aten::_log_softmax_backward_data") == JV_MATCH_STRONG);
    CHECK(jv_softmax_family.match("aten::special_softmax") == JV_MATCH_NONE);
    CHECK(!strcmp(jv_softmax_family.sheet, "Softmax") && jv_softmax_family.split == 1);
}

static void test_forward(void) {
    jv_desc d;
    /* amd_mi300xvf_timesformer_infer: aten::_softmax over (3136, 12, 8, 8) bf16, dim -1, half_to_float False.
     * n = 3136*12*8*8 = 2408448; flops = 5n = 12042240; bytes = n*2 + n*2 = 9633792 */
    CHECK(parse("aten::_softmax", "[[3136, 12, 8, 8], [], []]", "[\"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
                "[[768, 64, 8, 1], [], []]", "[\"\", \"-1\", \"False\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 12042240.0);
    CHECK_NEAR(p.bytes, 9633792.0);
    CHECK(p.matrix == 0 && p.dtype == JV_DT_BF16 && d.bwd == 0);
    CHECK(!strcmp(param(&d, "op_shape"), "(3136, 12, 8, 8)"));
    CHECK(!strcmp(param(&d, "dtype_in_out"), "('c10::BFloat16', 'c10::BFloat16')"));
    CHECK(!strcmp(param(&d, "stride_input"), "(768, 64, 8, 1)"));
    CHECK(!strcmp(param(&d, "dim"), "3"));
    jv_params ps = {0};
    jv_softmax_family.params(&d, &ps);
    CHECK(ps.n == 4 && !strcmp(ps.p[0].name, "op_shape") && !strcmp(ps.p[1].name, "dtype_in_out") &&
          !strcmp(ps.p[2].name, "stride_input") && !strcmp(ps.p[3].name, "dim"));

    /* its weak parent aten::softmax(self, dim, dtype=None): same numbers */
    CHECK(parse("aten::softmax", "[[3136, 12, 8, 8], [], []]", "[\"c10::BFloat16\", \"Scalar\", \"\"]",
                "[[768, 64, 8, 1], [], []]", "[\"\", \"-1\", \"\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 12042240.0);
    CHECK_NEAR(p.bytes, 9633792.0);

    /* half_to_float: fp16 (64, 1000) in, fp32 out: n = 64000, bytes = 64000*2 + 64000*4 = 384000 */
    CHECK(parse("aten::_softmax", "[[64, 1000], [], []]", "[\"c10::Half\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"1\", \"True\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 320000.0);
    CHECK_NEAR(p.bytes, 384000.0);
    CHECK(!strcmp(param(&d, "dtype_in_out"), "('c10::Half', 'float')"));
    CHECK(!strcmp(param(&d, "stride_input"), "None"));
    CHECK(!strcmp(param(&d, "dim"), "1"));

    /* softmax(self, dim, dtype 6 = float) on bf16 (8, 16): bytes = 128*2 + 128*4 = 768 */
    CHECK(parse("aten::softmax", "[[8, 16], [], []]", "[\"c10::BFloat16\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"0\", \"6\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.bytes, 768.0);
    CHECK(!strcmp(param(&d, "dim"), "0"));

    /* log_softmax: float (32, 50257) dim -1: n = 1608224, flops = 8041120, bytes = n*8 = 12865792 */
    CHECK(parse("aten::_log_softmax", "[[32, 50257], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"-1\", \"False\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 8041120.0);
    CHECK_NEAR(p.bytes, 12865792.0);
    CHECK(jv_softmax_of(&d)->log == 1);
    CHECK(parse("aten::log_softmax", "[[32, 50257], [], []]", "[\"float\", \"Scalar\", \"\"]", NULL,
                "[\"\", \"1\", \"\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 8041120.0);

    /* nv_sampled_w128: no Concrete Inputs: dim unknown (None), numbers still known:
     * (2, 1) float: flops 10, bytes 16 */
    CHECK(parse("aten::_softmax", "[[2, 1], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", NULL, NULL, &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 10.0);
    CHECK_NEAR(p.bytes, 16.0);
    CHECK(!strcmp(param(&d, "dim"), "None"));

    /* a 0-d input: n = 1, dim 0 or -1 */
    CHECK(parse("aten::_softmax", "[[], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"-1\", \"False\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 5.0);
    CHECK_NEAR(p.bytes, 8.0);
    CHECK(!strcmp(param(&d, "op_shape"), "()"));
}

static void test_backward(void) {
    jv_desc d;
    /* _softmax_backward_data(grad_output, output, dim, input_dtype): float (4, 10), input_dtype 15 = bf16:
     * n = 40; flops = 3n = 120; bytes = 40*4 (grad) + 40*4 (output) + 40*2 (grad_input) = 400 */
    CHECK(parse("aten::_softmax_backward_data", "[[4, 10], [4, 10], [], []]",
                "[\"float\", \"float\", \"Scalar\", \"Scalar\"]", "[[10, 1], [10, 1], [], []]",
                "[\"\", \"\", \"-1\", \"15\"]", &d) == JV_OK);
    CHECK(d.bwd == 1);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 120.0);
    CHECK_NEAR(p.bytes, 400.0);
    CHECK(!strcmp(param(&d, "dtype_in_out"), "('float', 'c10::BFloat16')"));
    CHECK(!strcmp(param(&d, "dim"), "1"));
    CHECK(!strcmp(param(&d, "op_shape"), "(4, 10)"));
    /* bf16 everywhere (input_dtype 15): bytes = 3 * 40 * 2 = 240 */
    CHECK(parse("aten::_log_softmax_backward_data", "[[4, 10], [4, 10], [], []]",
                "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]", NULL, "[\"\", \"\", \"1\", \"15\"]",
                &d) == JV_OK);
    CHECK(d.bwd == 1);
    p = model(&d);
    CHECK_NEAR(p.flops, 120.0);
    CHECK_NEAR(p.bytes, 240.0);
    /* nv_sampled_w128 row without Concrete Inputs: grad_input dtype = grad dtype: (2, 1) float:
     * flops 6, bytes 3 * 2 * 4 = 24 */
    CHECK(parse("aten::_softmax_backward_data", "[[2, 1], [2, 1], [], []]",
                "[\"float\", \"float\", \"Scalar\", \"Scalar\"]", NULL, NULL, &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 6.0);
    CHECK_NEAR(p.bytes, 24.0);
}

static void test_hostile(void) {
    jv_desc d;
    CHECK(parse("aten::_softmax", NULL, NULL, NULL, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::_softmax", "[]", "[]", "[]", "[]", &d) == JV_ERR_FORMAT);
    /* self not a tensor */
    CHECK(parse("aten::_softmax", "[[], [], []]", "[\"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"1\", \"-1\", \"False\"]", &d) == JV_ERR_FORMAT);
    /* negative shape, overflowing shape */
    CHECK(parse("aten::_softmax", "[[-4, 10], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"-1\", \"False\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::_softmax", "[[4294967296, 4294967296, 4294967296], [], []]",
                "[\"float\", \"Scalar\", \"Scalar\"]", NULL, "[\"\", \"-1\", \"False\"]", &d) == JV_ERR_FORMAT);
    /* dim out of range or malformed */
    CHECK(parse("aten::_softmax", "[[4, 10], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"2\", \"False\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::_softmax", "[[4, 10], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"-3\", \"False\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::_softmax", "[[4, 10], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"[0, 1]\", \"False\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::_softmax", "[[4, 10], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"-9223372036854775808\", \"False\"]", &d) == JV_ERR_FORMAT);
    /* a bad half_to_float */
    CHECK(parse("aten::_softmax", "[[4, 10], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"1\", \"perhaps\"]", &d) == JV_ERR_FORMAT);
    /* backward: missing output, shapes that differ */
    CHECK(parse("aten::_softmax_backward_data", "[[4, 10], [], [], []]", "[\"float\", \"\", \"Scalar\", \"Scalar\"]",
                NULL, "[\"\", \"\", \"1\", \"6\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::_softmax_backward_data", "[[4, 10], [4, 11], [], []]",
                "[\"float\", \"float\", \"Scalar\", \"Scalar\"]", NULL, "[\"\", \"\", \"1\", \"6\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::_softmax_backward_data", "[[4, 10], [4, 10, 1], [], []]",
                "[\"float\", \"float\", \"Scalar\", \"Scalar\"]", NULL, "[\"\", \"\", \"1\", \"6\"]",
                &d) == JV_ERR_FORMAT);
    /* an unknown dtype: bytes NaN */
    CHECK(parse("aten::_softmax", "[[4, 10], [], []]", "[\"c10::Weird\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"1\", \"False\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(isnan(p.bytes) && p.flops == 200);
    CHECK(!strcmp(param(&d, "dtype_in_out"), "(None, None)"));
}

int main(void) {
    test_match();
    test_forward();
    test_backward();
    test_hostile();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/* Unit tests of the actmul family (kernels/actmul): the serving stacks' gated activations, hand-computed
 * FLOPs/bytes, params, matching and hostile calls. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "actmul/actmul.h"

#define JV_TEST_FAMILY jv_actmul_family
#include "jv_test_family.h"

#define BF2 "[\"c10::BFloat16\", \"c10::BFloat16\"]"

static void test_models(void) {
    jv_desc d;
    /* vLLM silu_and_mul(out [4, 11008], input [4, 22016]) bf16: n = 44032; FLOPs = (4 + 1) n = 220160;
     * bytes = 2n*2 + n*2 = 6n = 264192 */
    CHECK(parse("_C::silu_and_mul", "[[4, 11008], [4, 22016]]", BF2, NULL, NULL, &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 220160.0);
    CHECK_NEAR(p.bytes, 264192.0);
    CHECK(!strcmp(param(&d, "activation"), "silu"));
    CHECK(!strcmp(param(&d, "op_shape"), "(4, 22016)"));
    CHECK(d.family == JV_FAM_ACTMUL);
    /* gelu_tanh_and_mul over [2, 3, 8] -> [2, 3, 4]: n = 24, FLOPs (8 + 1) * 24 = 216; fp32 out from bf16
     * input: 48*2 + 24*4 = 192 */
    CHECK(parse("_C::gelu_tanh_and_mul", "[[2, 3, 4], [2, 3, 8]]", "[\"float\", \"c10::BFloat16\"]", NULL, NULL, &d) ==
          JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 216.0);
    CHECK_NEAR(p.bytes, 192.0);
    CHECK(parse("aiter::silu_and_mul", "[[1, 8], [1, 16]]", BF2, NULL, NULL, &d) == JV_OK);
    CHECK_NEAR(model(&d).flops, 40.0);
    CHECK(jv_actmul_family.match("_C::mul_and_silu") == JV_MATCH_STRONG);
    CHECK(jv_actmul_family.match("aten::silu") == JV_MATCH_NONE);
    CHECK(jv_actmul_family.operands != NULL && jv_actmul_family.reference != NULL &&
          jv_actmul_family.no_replay == NULL);
}

static void test_hostile(void) {
    jv_desc d;
    /* the input's last dim is not twice the output's */
    CHECK(parse("_C::silu_and_mul", "[[4, 100], [4, 100]]", BF2, NULL, NULL, &d) == JV_ERR_FORMAT);
    /* leading dims differ, ranks differ, shapes missing, an unknown dtype, a negative dim */
    CHECK(parse("_C::silu_and_mul", "[[3, 100], [4, 200]]", BF2, NULL, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("_C::silu_and_mul", "[[400], [4, 200]]", BF2, NULL, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("_C::silu_and_mul", NULL, NULL, NULL, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("_C::silu_and_mul", "[[4, 100], [4, 200]]", "[\"c10::Weird\", \"c10::Weird\"]", NULL, NULL, &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("_C::silu_and_mul", "[[-4, 100], [-4, 200]]", BF2, NULL, NULL, &d) == JV_ERR_FORMAT);
}

int main(void) {
    test_models();
    test_hostile();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

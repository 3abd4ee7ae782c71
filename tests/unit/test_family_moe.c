/* Unit tests of the moe family (kernels/moe): vLLM's fused experts, hand-computed FLOPs/bytes, params and
 * hostile calls. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "moe/moe.h"

#define JV_TEST_FAMILY jv_moe_family
#include "jv_test_family.h"

static void test_models(void) {
    jv_desc d;
    /* gpt-oss-like layer, mxfp4 weights packed two to a byte: 32 tokens of 2880, 32 experts, top-4, gated
     * (w1 [32, 5760, 1440], w2 [32, 2880, 1440]: I = 2880):
     * FLOPs = 2*32*2880*2880*4*2 + 2*32*2880*2880*4 + 32*2880*7 = 4246732800 + 2123366400 + 645120 = 6370744320;
     * E_active = 32 * (1 - (28/32)^32); bytes = 2 * 32*2880*2 + 32*4*4 + 32*4*4
     *          + E_active * (5760*2880 + 2880*2880) * 1 / 2 = 368640 + 512 + 512 + E_active * 12441600 */
    CHECK(parse("vllm::outplace_fused_experts", "[[32, 2880], [32, 5760, 1440], [32, 2880, 1440], [32, 4], [32, 4]]",
                "[\"c10::BFloat16\", \"unsigned char\", \"unsigned char\", \"float\", \"int\"]", NULL, NULL,
                &d) == JV_OK);
    const jv_moe_desc *m = jv_moe_of(&d);
    CHECK(m->tokens == 32 && m->hidden == 2880 && m->inter == 2880 && m->experts == 32 && m->topk == 4 && m->gated &&
          m->pack == 2);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 6370744320.0);
    double ea = 32.0 * (1.0 - pow(28.0 / 32.0, 32.0));
    CHECK(ea > 31.5 && ea < 31.6);
    CHECK_NEAR(p.bytes, 368640.0 + 1024.0 + ea * 12441600.0);
    CHECK(p.matrix == 1 && p.dtype == JV_DT_BF16);
    CHECK(!strcmp(param(&d, "inter_dim"), "2880") && !strcmp(param(&d, "gated"), "True") &&
          !strcmp(param(&d, "weight_dtype"), "unsigned char") && !strcmp(param(&d, "weight_pack"), "2"));
    /* fp8 weights, not gated, 1 token, top-2 of 8 experts (w1 [8, 512, 256], w2 [8, 256, 512]): fp8 peak;
     * FLOPs = 2*1*256*512*2 (up) + 2*1*256*512*2 (down) + 256*3 = 524288 + 524288 + 768 = 1049344;
     * E_active = 8 * (1 - 6/8) = 2 (one token reaches exactly its k experts);
     * bytes = 2 * 256*2 + 1*2*2 (bf16 weights of topk) + 2 * (512*256 + 256*512) * 1 = 1024 + 4 + 524288 */
    CHECK(parse("vllm::inplace_fused_experts", "[[1, 256], [8, 512, 256], [8, 256, 512], [1, 2]]",
                "[\"c10::BFloat16\", \"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"c10::BFloat16\"]", NULL, NULL,
                &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 1049344.0);
    CHECK_NEAR(p.bytes, 525316.0);
    CHECK(p.dtype == JV_DT_F8E4M3 && !jv_moe_of(&d)->gated && jv_moe_of(&d)->pack == 1);
    CHECK(jv_moe_family.match("vllm::rocm_aiter_fused_moe") == JV_MATCH_STRONG);
    /* AITER's ck_moe(hidden, w1, w2, topk_weight, topk_ids, fc1_scale, fc2_scale, fc1_smooth_scale,
     * fc2_smooth_scale, block_m, expert_mask): int8 weights, 1 token of 256, top-2 of 8 experts, gated, I = 512
     * (w1 [8, 1024, 256], w2 [8, 256, 512]); per-channel scales [8, 1024, 1] and [8, 256, 1], smooth scales
     * [8, 1, 256] and [8, 1, 512] (fp32, per expert), expert_mask [8] int:
     * FLOPs = 2*256*512*2*2 + 2*256*512*2 + 256*3 = 1048576 + 524288 + 768 = 1573632;
     * E_active = 8 * (1 - 6/8) = 2; S_expert = (8*1024 + 8*256 + 8*256 + 8*512) * 4 = 65536; S_other = 8*4;
     * bytes = 2*256*2 + 2*(4 + 4) + 2 * ((1024*256 + 256*512) + 65536/8) + 32
     *       = 1024 + 16 + 2 * (393216 + 8192) + 32 = 803888 */
    CHECK(parse("aiter::ck_moe",
                "[[1, 256], [8, 1024, 256], [8, 256, 512], [1, 2], [1, 2], [8, 1024, 1], [8, 256, 1], [8, 1, 256], "
                "[8, 1, 512], [], [8]]",
                "[\"c10::BFloat16\", \"signed char\", \"signed char\", \"float\", \"int\", \"float\", \"float\", "
                "\"float\", \"float\", \"Scalar\", \"int\"]",
                NULL, NULL, &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 1573632.0);
    CHECK_NEAR(p.bytes, 803888.0);
    CHECK(p.dtype == JV_DT_BF16 && jv_moe_of(&d)->gated);
    /* aiter::fused_moe_ without scales (None): the weights alone, 1024 + 16 + 2 * 393216 = 787472 */
    CHECK(parse("aiter::fused_moe_",
                "[[1, 256], [8, 1024, 256], [8, 256, 512], [1, 2], [1, 2], [], [], [], [], [], []]",
                "[\"c10::BFloat16\", \"signed char\", \"signed char\", \"float\", \"int\", \"\", \"Scalar\", "
                "\"Scalar\", \"Scalar\", \"\", \"\"]",
                NULL, NULL, &d) == JV_OK);
    CHECK_NEAR(model(&d).bytes, 787472.0);
    CHECK(jv_moe_family.match("aten::bmm") == JV_MATCH_NONE);
}

static void test_hostile(void) {
    jv_desc d;
    const char *types = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"float\", \"int\"]";
    /* experts disagree, hidden disagrees, top-k beyond the experts, w1 rows neither I nor 2I, packed bf16,
     * a 2-D weight, topk_ids of another shape, no shapes */
    CHECK(parse("vllm::outplace_fused_experts", "[[4, 64], [8, 256, 64], [4, 64, 128], [4, 2], [4, 2]]", types, NULL,
                NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("vllm::outplace_fused_experts", "[[4, 64], [8, 256, 64], [8, 32, 128], [4, 2], [4, 2]]", types, NULL,
                NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("vllm::outplace_fused_experts", "[[4, 64], [8, 256, 64], [8, 64, 128], [4, 9], [4, 9]]", types, NULL,
                NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("vllm::outplace_fused_experts", "[[4, 64], [8, 200, 64], [8, 64, 128], [4, 2], [4, 2]]", types, NULL,
                NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("vllm::outplace_fused_experts", "[[4, 64], [8, 256, 32], [8, 64, 64], [4, 2], [4, 2]]", types, NULL,
                NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("vllm::outplace_fused_experts", "[[4, 64], [256, 64], [8, 64, 128], [4, 2], [4, 2]]", types, NULL, NULL,
                &d) == JV_ERR_FORMAT);
    CHECK(parse("vllm::outplace_fused_experts", "[[4, 64], [8, 256, 64], [8, 64, 128], [4, 2], [4, 3]]", types, NULL,
                NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("vllm::outplace_fused_experts", NULL, NULL, NULL, NULL, &d) == JV_ERR_FORMAT);
    /* the well-formed call these break: accepted */
    CHECK(parse("vllm::outplace_fused_experts", "[[4, 64], [8, 256, 64], [8, 64, 128], [4, 2], [4, 2]]", types, NULL,
                NULL, &d) == JV_OK);
}

int main(void) {
    test_models();
    test_hostile();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

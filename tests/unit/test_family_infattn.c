/* Unit tests of the infattn family (kernels/infattn): serving attention sized by the step annotation, hand-computed
 * FLOPs/bytes, the annotation parser, params and hostile calls. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "infattn/infattn.h"

#define JV_TEST_FAMILY jv_infattn_family
#include "jv_test_family.h"

#define OP "vllm::unified_attention_with_output"
/* the decode step of the MI300X vLLM gpt-oss fixture: 32 decode requests, 55086 keys in all */
#define DECODE "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)"

/* parses a call as a trace records it (with Concrete Inputs concrete, NULL: none), with the step annotation around
 * it (NULL: none) */
static jv_status parse_cc(const char *annotation, const char *name, const char *dims, const char *types,
                          const char *concrete, jv_desc *d) {
    jv_opcall c;
    jv_err err;
    jv_err_clear(&err);
    memset(d, 0, sizeof *d);
    jv_status st = jv_opcall_from_trace(&c, name, dims, types, NULL, concrete, &err);
    c.annotation = annotation;
    if (st == JV_OK) st = jv_infattn_family.parse(&c, d, &err);
    jv_opcall_free(&c);
    return st;
}

static jv_status parse_in(const char *annotation, const char *name, const char *dims, const char *types, jv_desc *d) {
    return parse_cc(annotation, name, dims, types, NULL, d);
}

static void test_annotation(void) {
    jv_infattn_sums c, g;
    CHECK(jv_infattn_parse_annotation(DECODE, &c, &g));
    CHECK(c.reqs == 0 && c.sq == 0 && c.sk == 0 && c.sqsq == 0 && c.sqsk == 0);
    CHECK(g.reqs == 32 && g.sq == 32 && g.sk == 55086 && g.sqsq == 32 && g.sqsk == 55086);
    CHECK(jv_infattn_parse_annotation("execute_3_context_1(sq4sk10sqsq16sqsk40)_generation_2(sq2sk12sqsq2sqsk12)", &c,
                                      &g));
    CHECK(c.reqs == 1 && c.sq == 4 && c.sk == 10 && c.sqsq == 16 && c.sqsk == 40 && g.sk == 12);
    /* not a step annotation, or sums no set of lengths gives (sq² < sq, sq·sk < sq²), or tokens without requests */
    CHECK(!jv_infattn_parse_annotation("step[DECODE bs=32]", &c, &g));
    CHECK(!jv_infattn_parse_annotation("execute_32_context_0(sq0sk0sqsq0sqsk0)", &c, &g));
    CHECK(
        !jv_infattn_parse_annotation("execute_1_context_1(sq4sk10sqsq3sqsk40)_generation_0(sq0sk0sqsq0sqsk0)", &c, &g));
    CHECK(
        !jv_infattn_parse_annotation("execute_1_context_1(sq4sk3sqsq16sqsk12)_generation_0(sq0sk0sqsq0sqsk0)", &c, &g));
    CHECK(!jv_infattn_parse_annotation("execute_1_context_0(sq4sk10sqsq16sqsk40)_generation_0(sq0sk0sqsq0sqsk0)", &c,
                                       &g));
    CHECK(!jv_infattn_parse_annotation("execute_1_context_1(sq99999999999999999999sk1sqsq1sqsk1)_generation_0("
                                       "sq0sk0sqsq0sqsk0)",
                                       &c, &g));
    CHECK(!jv_infattn_parse_annotation(NULL, &c, &g));
    CHECK(jv_infattn_family.annotation(DECODE) && !jv_infattn_family.annotation("execute_model"));
}

static void test_models(void) {
    jv_desc d;
    /* gpt-oss decode: 64 query heads and 8 KV heads of 64, bf16; 32 requests of one query each, 55086 keys:
     * P = 55086 - 32/2 + 32/2 = 55086 pairs; FLOPs = 2 * 64 * 55086 * (64 + 64) = 902529024;
     * bytes = 32 * 64 * 128 * 2 (q, o) + 55086 * 8 * 128 * 2 (k, v) = 524288 + 112816128 = 113340416 */
    CHECK(parse_in(DECODE, OP, "[[32, 64, 64], [32, 8, 64], [32, 8, 64], [32, 64, 64], []]",
                   "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 902529024.0);
    CHECK_NEAR(p.bytes, 113340416.0);
    CHECK(p.matrix == 1 && p.dtype == JV_DT_BF16);
    CHECK(!strcmp(param(&d, "g_sk"), "55086") && !strcmp(param(&d, "H_KV"), "8") &&
          !strcmp(param(&d, "dtype_Q"), "c10::BFloat16") && !strcmp(param(&d, "c_sq"), "0"));
    /* chunked prefill beside decode: one request of 4 new queries over 10 keys (queries see 7, 8, 9, 10 keys:
     * 34 pairs = 40 - 16/2 + 4/2), two decode requests over 5 and 7 keys (12 pairs); 4 query heads, 2 KV heads
     * of 8, 8 query rows (padded), bf16 query, fp32 key:
     * FLOPs = 2 * 4 * (34 + 12) * 16 = 5888 (TraceLens: 5632, without the diagonal's 4/2 pairs);
     * bytes = (4 + 2) * 4 * 16 * 2 + (10 + 12) * 2 * 16 * 4 = 768 + 2816 = 3584 */
    CHECK(parse_in("execute_3_context_1(sq4sk10sqsq16sqsk40)_generation_2(sq2sk12sqsq2sqsk12)",
                   "flash_attn::_flash_attn_varlen_forward", "[[8, 4, 8], [8, 2, 8], [8, 2, 8], [3], [3]]",
                   "[\"c10::BFloat16\", \"float\", \"float\", \"int\", \"int\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 5888.0);
    CHECK_NEAR(p.bytes, 3584.0);
    /* a value head dim of its own (MLA-like: d_qk 12, d_v 8): FLOPs = 2 * 4 * 46 * 20 = 7360 */
    CHECK(parse_in("execute_3_context_1(sq4sk10sqsq16sqsk40)_generation_2(sq2sk12sqsq2sqsk12)", "aiter::mha_varlen_fwd",
                   "[[8, 4, 12], [8, 2, 12], [8, 2, 8]]", "[\"c10::Half\", \"c10::Half\", \"c10::Half\"]",
                   &d) == JV_OK);
    CHECK(!strcmp(param(&d, "d_h_v"), "8") && !strcmp(param(&d, "d_h_qk"), "12"));
    CHECK_NEAR(model(&d).flops, 7360.0);
    CHECK(jv_infattn_family.match("vllm::unified_attention") == JV_MATCH_STRONG);
    CHECK(jv_infattn_family.match("_C::paged_attention") == JV_MATCH_NONE);
    /* every op of the family is sized by sequence lengths the trace records only in an annotation */
    CHECK(jv_infattn_family.unsized("aiter::paged_attention_rocm") == JV_UNSIZED_SEQLENS &&
          jv_infattn_family.unsized("vllm::unified_attention") == JV_UNSIZED_SEQLENS &&
          jv_infattn_family.unsized("aten::mm") == JV_UNSIZED_NO);
    CHECK(!strcmp(param(&d, "kv_lens"), "step annotation"));
}

/* paged_attention_v1(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables, seq_lens, block_size,
 * max_seq_len, alibi_slopes, kv_cache_dtype, k_scale, v_scale): 4 sequences, 32 query heads and 8 KV heads of 128,
 * bf16, key cache [1000, 8, 16, 16, 8] (x 8, blocks of 16), value cache [1000, 8, 128, 16] */
#define V1_DIMS                                                                                                        \
    "[[4, 32, 128], [4, 32, 128], [1000, 8, 16, 16, 8], [1000, 8, 128, 16], [], [], [4, 64], [4], [], [], [], [], "    \
    "[], []]"
#define V1_TYPES                                                                                                       \
    "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", \"int\", "   \
    "\"int\", \"Scalar\", \"Scalar\", \"\", \"\", \"float\", \"float\"]"
#define V1_CONCRETE                                                                                                    \
    "[\"\", \"\", \"\", \"\", \"8\", \"0.088388\", \"\", \"\", \"16\", \"1024\", \"\", \"auto\", \"\", \"\"]"

static void test_paged(void) {
    jv_desc d;
    /* no annotation: bounded by max_seq_len 1024: P = 4 * 1024 = 4096 query-key pairs;
     * FLOPs = 2 * 32 * 4096 * (128 + 128) = 67108864;
     * bytes = 4 * 32 * (128 * 2 + 128 * 2) (query, out) + 4 * 1024 * 8 * 256 * 2 (keys, values) = 65536 + 16777216 */
    CHECK(parse_cc(NULL, "_C::paged_attention_v1", V1_DIMS, V1_TYPES, V1_CONCRETE, &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 67108864.0);
    CHECK_NEAR(p.bytes, 16842752.0);
    CHECK(p.matrix == 1 && p.dtype == JV_DT_BF16);
    CHECK(!strcmp(param(&d, "kv_lens"), "upper bound: max_seq_len 1024") && !strcmp(param(&d, "g_sk"), "4096") &&
          !strcmp(param(&d, "N_KV"), "16000") && !strcmp(param(&d, "H_KV"), "8") && !strcmp(param(&d, "d_h_v"), "128"));
    /* v2 (exp_sums, max_logits, tmp_out after out), an fp8 cache (1 byte), inside a decode step of the same 4
     * requests with 1000 keys in all: exact, P = 1000 - 4/2 + 4/2 = 1000; FLOPs = 2 * 32 * 1000 * 256 = 16384000;
     * bytes = 4 * 32 * 512 + 1000 * 8 * 256 * 1 = 65536 + 2048000 */
    const char *v2_dims = "[[4, 32, 128], [4, 32, 4], [4, 32, 4], [4, 32, 4, 128], [4, 32, 128], [1000, 8, 8, 16, 16], "
                          "[1000, 8, 128, 16], [], [], [4, 64], [4], [], [], [], [], [], []]";
    const char *v2_types =
        "[\"c10::BFloat16\", \"float\", \"float\", \"c10::BFloat16\", \"c10::BFloat16\", "
        "\"unsigned char\", \"unsigned char\", \"Scalar\", \"Scalar\", \"int\", \"int\", \"Scalar\", "
        "\"Scalar\", \"\", \"\", \"float\", \"float\"]";
    const char *v2_cc =
        "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"8\", \"0.088\", \"\", \"\", \"16\", \"1024\", \"\", "
        "\"fp8\", \"\", \"\"]";
    const char *dec = "execute_4_context_0(sq0sk0sqsq0sqsk0)_generation_4(sq4sk1000sqsq4sqsk1000)";
    CHECK(parse_cc(dec, "_C::paged_attention_v2", v2_dims, v2_types, v2_cc, &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 16384000.0);
    CHECK_NEAR(p.bytes, 2113536.0);
    CHECK(!strcmp(param(&d, "kv_lens"), "step annotation") && !strcmp(param(&d, "g_sk"), "1000"));
    /* a mixed step whose 4 decode requests are the call's: the same numbers; one whose requests are not: bounded */
    CHECK(parse_cc("execute_5_context_1(sq4sk10sqsq16sqsk40)_generation_4(sq4sk1000sqsq4sqsk1000)",
                   "_C::paged_attention_v2", v2_dims, v2_types, v2_cc, &d) == JV_OK);
    CHECK_NEAR(model(&d).flops, 16384000.0);
    CHECK(!strcmp(param(&d, "c_sq"), "0"));
    CHECK(parse_cc("execute_9_context_0(sq0sk0sqsq0sqsk0)_generation_9(sq9sk1000sqsq9sqsk1000)",
                   "_C::paged_attention_v2", v2_dims, v2_types, v2_cc, &d) == JV_OK);
    CHECK_NEAR(model(&d).flops, 67108864.0);
    /* ROCm with query_start_loc (two queries per sequence): 8 query rows, 16 heads of 64, 4 KV heads, fp16, blocks
     * of 32, max_seq_len 512: P = 8 * 512 = 4096; FLOPs = 2 * 16 * 4096 * 128 = 16777216;
     * bytes = 8 * 16 * 256 + 4 * 512 * 4 * 128 * 2 = 32768 + 2097152 */
    const char *r_dims = "[[8, 16, 64], [4, 16, 2], [4, 16, 2], [4, 16, 2, 64], [8, 16, 64], [100, 4, 8, 32, 8], "
                         "[100, 4, 64, 32], [], [], [4, 16], [4], [5], [], [], [], [], [], [], [], []]";
    const char *r_types = "[\"c10::Half\", \"float\", \"float\", \"c10::Half\", \"c10::Half\", \"c10::Half\", "
                          "\"c10::Half\", \"Scalar\", \"Scalar\", \"int\", \"int\", \"int\", \"Scalar\", \"Scalar\", "
                          "\"\", \"\", \"float\", \"float\", \"\", \"\"]";
    const char *r_cc =
        "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"4\", \"0.125\", \"\", \"\", \"\", \"32\", \"512\", "
        "\"\", \"auto\", \"\", \"\", \"\", \"16x16\"]";
    CHECK(parse_cc(NULL, "_rocm_C::paged_attention", r_dims, r_types, r_cc, &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 16777216.0);
    CHECK_NEAR(p.bytes, 2129920.0);
    CHECK(p.dtype == JV_DT_F16 && !strcmp(param(&d, "kv_lens"), "upper bound: max_seq_len 512"));
    /* ROCm's older schema (no query_start_loc: block_size 11, max_seq_len 12), one query per sequence:
     * P = 4 * 512; FLOPs = 8388608; bytes = 4 * 16 * 256 + 2097152 */
    CHECK(
        parse_cc(NULL, "_rocm_C::paged_attention",
                 "[[4, 16, 64], [4, 16, 2], [4, 16, 2], [4, 16, 2, 64], [4, 16, 64], [100, 4, 8, 32, 8], "
                 "[100, 4, 64, 32], [], [], [4, 16], [4], [], [], [], [], [], []]",
                 "[\"c10::Half\", \"float\", \"float\", \"c10::Half\", \"c10::Half\", \"c10::Half\", \"c10::Half\", "
                 "\"Scalar\", \"Scalar\", \"int\", \"int\", \"Scalar\", \"Scalar\", \"\", \"\", \"float\", \"float\"]",
                 "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"4\", \"0.125\", \"\", \"\", \"32\", \"512\", \"\", "
                 "\"auto\", \"\", \"\"]",
                 &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 8388608.0);
    CHECK_NEAR(p.bytes, 2113536.0);
    /* AITER's paged_attention_rocm: v2's positions, then alibi_slopes, kv_cache_dtype, k_scale, v_scale,
     * fp8_out_scale, partition_size 256, mtp 1; the v2 call's tensors with the fp8 cache: the same numbers */
    const char *a_dims = "[[4, 32, 128], [4, 32, 4], [4, 32, 4], [4, 32, 4, 128], [4, 32, 128], [1000, 8, 8, 16, 16], "
                         "[1000, 8, 128, 16], [], [], [4, 64], [4], [], [], [], [], [], [], [], [], []]";
    const char *a_types = "[\"c10::BFloat16\", \"float\", \"float\", \"c10::BFloat16\", \"c10::BFloat16\", "
                          "\"unsigned char\", \"unsigned char\", \"Scalar\", \"Scalar\", \"int\", \"int\", \"Scalar\", "
                          "\"Scalar\", \"\", \"\", \"float\", \"float\", \"\", \"Scalar\", \"Scalar\"]";
    const char *a_cc =
        "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"8\", \"0.088\", \"\", \"\", \"16\", \"1024\", \"\", "
        "\"fp8\", \"\", \"\", \"\", \"256\", \"1\"]";
    CHECK(jv_infattn_family.match("aiter::paged_attention_rocm") == JV_MATCH_STRONG);
    CHECK(parse_cc(dec, "aiter::paged_attention_rocm", a_dims, a_types, a_cc, &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 16384000.0);
    CHECK_NEAR(p.bytes, 2113536.0);
    CHECK(parse_cc(NULL, "aiter::paged_attention_rocm", a_dims, a_types, a_cc, &d) == JV_OK);
    CHECK_NEAR(model(&d).flops, 67108864.0); /* bounded by max_context_len 1024, as v2 */
    CHECK(!strcmp(param(&d, "kv_lens"), "upper bound: max_seq_len 1024"));
    /* hostile: no max_seq_len and no annotation; block_size or num_kv_heads that disagree with the cache; a value
     * cache of another head size; a 4-D key cache; query heads not a multiple of the KV heads */
    CHECK(parse_cc(NULL, "_C::paged_attention_v1", V1_DIMS, V1_TYPES, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse_cc(NULL, "_C::paged_attention_v1", V1_DIMS, V1_TYPES,
                   "[\"\", \"\", \"\", \"\", \"8\", \"0.1\", \"\", \"\", \"32\", \"1024\", \"\", \"auto\", \"\", \"\"]",
                   &d) == JV_ERR_FORMAT);
    CHECK(parse_cc(NULL, "_C::paged_attention_v1", V1_DIMS, V1_TYPES,
                   "[\"\", \"\", \"\", \"\", \"4\", \"0.1\", \"\", \"\", \"16\", \"1024\", \"\", \"auto\", \"\", \"\"]",
                   &d) == JV_ERR_FORMAT);
    CHECK(parse_cc(NULL, "_C::paged_attention_v1",
                   "[[4, 32, 128], [4, 32, 128], [1000, 8, 16, 16, 8], [1000, 8, 64, 16], [], [], [4, 64], [4]]",
                   V1_TYPES, V1_CONCRETE, &d) == JV_ERR_FORMAT);
    CHECK(parse_cc(NULL, "_C::paged_attention_v1",
                   "[[4, 32, 128], [4, 32, 128], [1000, 8, 16, 128], [1000, 8, 128, 16], [], [], [4, 64], [4]]",
                   V1_TYPES, V1_CONCRETE, &d) == JV_ERR_FORMAT);
    CHECK(parse_cc(NULL, "_C::paged_attention_v1",
                   "[[4, 12, 128], [4, 12, 128], [1000, 8, 16, 16, 8], [1000, 8, 128, 16], [], [], [4, 64], [4]]",
                   V1_TYPES, V1_CONCRETE, &d) == JV_ERR_FORMAT);
}

static void test_hostile(void) {
    jv_desc d;
    const char *dims = "[[32, 64, 64], [32, 8, 64], [32, 8, 64], [32, 64, 64], []]";
    const char *types = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\"]";
    /* no annotation (the trace has none around the call), one that is not a step's */
    CHECK(parse_in(NULL, OP, dims, types, &d) == JV_ERR_FORMAT);
    CHECK(parse_in("step[DECODE bs=32]", OP, dims, types, &d) == JV_ERR_FORMAT);
    /* an annotation without tokens, more tokens than the call's queries */
    CHECK(parse_in("execute_0_context_0(sq0sk0sqsq0sqsk0)_generation_0(sq0sk0sqsq0sqsk0)", OP, dims, types, &d) ==
          JV_ERR_FORMAT);
    CHECK(parse_in("execute_40_context_0(sq0sk0sqsq0sqsk0)_generation_40(sq40sk400sqsq40sqsk400)", OP, dims, types,
                   &d) == JV_ERR_FORMAT);
    /* query not 3-D, head dims that disagree, no dtype, no shapes */
    CHECK(parse_in(DECODE, OP, "[[32, 4096], [32, 8, 64]]", types, &d) == JV_ERR_FORMAT);
    CHECK(parse_in(DECODE, OP, "[[32, 64, 64], [32, 8, 128]]", types, &d) == JV_ERR_FORMAT);
    CHECK(parse_in(DECODE, OP, dims, "[\"\", \"\", \"\", \"\", \"\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse_in(DECODE, OP, NULL, NULL, &d) == JV_ERR_FORMAT);
}

int main(void) {
    test_annotation();
    test_models();
    test_paged();
    test_hostile();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

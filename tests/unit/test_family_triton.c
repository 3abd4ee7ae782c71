/* Unit tests of the triton family (kernels/triton): the FLOPs/bytes model of
 * torch.compile's Triton kernels against hand-computed values for the four
 * rows TraceLens models in the MI300X torch.compile fixture and the A100
 * Triton fixture, its sheet params, its matching and hostile calls. */
#include <string.h>

#include "triton/triton.h"

#define JV_TEST_FAMILY jv_triton_family
#include "jv_test_family.h"

/* parse with no strides or concrete inputs */
static jv_status parse_t(const char *op, const char *dims, const char *types, jv_desc *d) {
    return parse(op, dims, types, NULL, NULL, d);
}

#define BF "\"c10::BFloat16\""

/* the MI300X torch.compile fixture's four Triton rows (TraceLens' GFLOPS and Data Moved in the comments) */
static void test_fixture_rows(void) {
    jv_desc d;
    /* mul (1) + silu (4) = 5 per element over n = 8*4096*8192 = 268435456: 1342177280 FLOPs (1.34217728 GFLOPS);
     * bytes: two bf16 tensors of n plus one output of n: 3 * 2 * n = 1610612736 (1536 MiB) */
    CHECK(parse_t("triton_poi_fused__unsafe_view_mul_silu_2", "[[8, 4096, 8192], [32768, 8192], []]",
                  "[" BF ", " BF ", \"Scalar\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(p.flops == 1342177280.0);
    CHECK(p.bytes == 1610612736.0);
    CHECK(!strcmp(param(&d, "fused_ops"), "mul, silu"));
    CHECK(!strcmp(param(&d, "kernel_kind"), "pointwise"));
    CHECK(!strcmp(param(&d, "flops_per_element"), "5"));
    /* add (1) over n = 8*4096*2048 = 67108864; three bf16 tensors of n plus the output: 4 * 2 * n = 536870912 */
    CHECK(parse_t("triton_poi_fused__unsafe_view_add_3", "[[8, 4096, 2048], [8, 4096, 2048], [32768, 2048], []]",
                  "[" BF ", " BF ", " BF ", \"Scalar\"]", &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 67108864.0 && p.bytes == 536870912.0);
    /* a reduction: add 1 + mean 1 + mul 1 + pow 2 + rsqrt 2 = 7 per element: 469762048 FLOPs; bytes: its
     * tensor arguments only, 3 * 2 * n + 2048 * 2 = 402657280 (384.00390625 MiB) */
    CHECK(parse_t("triton_red_fused__unsafe_view_add_mean_mul_pow_rsqrt_1",
                  "[[8, 4096, 2048], [32768, 2048], [2048], [8, 4096, 2048], [], []]",
                  "[" BF ", " BF ", " BF ", " BF ", \"Scalar\", \"Scalar\"]", &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 469762048.0 && p.bytes == 402657280.0);
    CHECK(!strcmp(param(&d, "kernel_kind"), "reduction"));
    CHECK(!strcmp(param(&d, "fused_ops"), "add, mean, mul, pow, rsqrt"));
    /* 2 * 2 * n + 4096 = 268439552 (256.00390625 MiB) */
    CHECK(parse_t("triton_red_fused_add_mean_mul_pow_rsqrt_0", "[[8, 4096, 2048], [2048], [8, 4096, 2048], [], []]",
                  "[" BF ", " BF ", " BF ", \"Scalar\", \"Scalar\"]", &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 469762048.0 && p.bytes == 268439552.0);
}

/* the A100 fixture: add_cos_sin over 10x10 fp32: add 1 (cos and sin are not in TraceLens' table): 100 FLOPs
 * (TraceLens 1e-07 GFLOPS); bytes 3 * 400 + 400 = 1600 (TraceLens writes 0.0 MB for it: its fp32 rows
 * move nothing there) */
static void test_a100(void) {
    jv_desc d;
    CHECK(parse_t("triton_poi_fused_add_cos_sin_0", "[[10, 10], [10, 10], [10, 10], []]",
                  "[\"float\", \"float\", \"float\", \"Scalar\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(p.flops == 100.0 && p.bytes == 1600.0);
}

static void test_words_and_match(void) {
    CHECK(jv_triton_op_flops("silu") == 4 && jv_triton_op_flops("gelu") == 8 && jv_triton_op_flops("rsqrt") == 2);
    CHECK(jv_triton_op_flops("view") == 0 && jv_triton_op_flops("") == 0 && jv_triton_op_flops("cos") == 0);
    CHECK(jv_triton_family.match("triton_poi_fused_add_0") == JV_MATCH_STRONG);
    CHECK(jv_triton_family.match("triton_per_fused_sum_1") == JV_MATCH_STRONG);
    CHECK(jv_triton_family.match("triton_tem_fused_mm_0") == JV_MATCH_STRONG); /* a template (test_templates) */
    CHECK(jv_triton_family.match("aten::add") == JV_MATCH_NONE);
    /* not replayed, and the package manifest says why */
    CHECK(jv_triton_family.operands == NULL && strstr(jv_triton_family.no_replay, "torch.compile") != NULL);
    jv_match how;
    CHECK(jv_family_find("triton_red_fused_sum_0", &how) == JV_FAM_TRITON);
    /* persistent reduction, no "fused_", an index, a word longer than any op, the index not mistaken for a word */
    jv_desc d;
    CHECK(parse_t("triton_per_mul_exp_12", "[[4, 8]]", "[\"float\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(p.flops == 32 * 5.0 && p.bytes == 128.0);
    CHECK(!strcmp(param(&d, "kernel_kind"), "persistent reduction"));
    CHECK(parse_t("triton_poi_fused_averyveryverylongword_clone_7", "[[2, 2]]", "[" BF "]", &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 0 && p.bytes == 16.0);
    CHECK(!strcmp(param(&d, "fused_ops"), "None"));
}

/* max-autotune's templates (triton_tem_): GEMM and convolution from their operands, the rest refused */
static void test_templates(void) {
    jv_desc d;
    /* addmm with a fused gelu: bias [512], A [64, 256], B [256, 512], out [64, 512], bf16: FLOPs = 2 * 64 * 512 *
     * 256 = 16777216; bytes = (512 + 64 * 256 + 256 * 512 + 64 * 512) * 2 = 361472 */
    CHECK(parse_t("triton_tem_fused_addmm_gelu_0", "[[512], [64, 256], [256, 512], [64, 512]]",
                  "[" BF ", " BF ", " BF ", " BF "]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(p.flops == 16777216.0 && p.bytes == 361472.0 && p.matrix == 1);
    CHECK(!strcmp(param(&d, "kernel_kind"), "template GEMM"));
    CHECK(!strcmp(param(&d, "M"), "64") && !strcmp(param(&d, "N"), "512") && !strcmp(param(&d, "K"), "256") &&
          !strcmp(param(&d, "B"), "1"));
    /* bmm: A [8, 32, 64], B [8, 64, 16], out [8, 32, 16], fp32: 2 * 8 * 32 * 16 * 64 = 524288 */
    CHECK(parse_t("triton_tem_fused_bmm_7", "[[8, 32, 64], [8, 64, 16], [8, 32, 16]]",
                  "[\"float\", \"float\", \"float\"]", &d) == JV_OK);
    CHECK(model(&d).flops == 524288.0 && !strcmp(param(&d, "B"), "8"));
    /* a square mm: the first pair in argument order, the output the third */
    CHECK(parse_t("triton_tem_fused_mm_0", "[[16, 16], [16, 16], [16, 16]]", "[" BF ", " BF ", " BF "]", &d) == JV_OK);
    CHECK(model(&d).flops == 2.0 * 16 * 16 * 16);
    /* convolution: x [2, 8, 10, 10], w [4, 8, 3, 3], out [2, 4, 8, 8]: 2 * 512 * 72 = 73728 */
    CHECK(parse_t("triton_tem_fused_convolution_2", "[[2, 8, 10, 10], [4, 8, 3, 3], [2, 4, 8, 8]]",
                  "[" BF ", " BF ", " BF "]", &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 73728.0 && !strcmp(param(&d, "kernel_kind"), "template convolution"));
    CHECK(!strcmp(param(&d, "M"), "nan"));
    /* refused: fused attention and unnamed templates (generated code sets their work), a GEMM whose output is not
     * among the arguments, inner dims that disagree */
    jv_unsized (*un)(const char *) = jv_triton_family.unsized;
    CHECK(un("triton_tem_fused_flex_attention_0") == JV_UNSIZED_GENERATED &&
          un("triton_tem_fused_0") == JV_UNSIZED_GENERATED && un("triton_tem_fused_mm_0") == JV_UNSIZED_NO &&
          un("triton_poi_fused_add_0") == JV_UNSIZED_NO);
    CHECK(parse_t("triton_tem_fused_flex_attention_0", "[[1, 8, 128, 64], [1, 8, 128, 64], [1, 8, 128, 64]]",
                  "[" BF ", " BF ", " BF "]", &d) == JV_ERR_FORMAT);
    CHECK(parse_t("triton_tem_fused_0", "[[4, 4]]", "[" BF "]", &d) == JV_ERR_FORMAT);
    CHECK(parse_t("triton_tem_fused_mm_0", "[[64, 256], [256, 512]]", "[" BF ", " BF "]", &d) == JV_ERR_FORMAT);
    CHECK(parse_t("triton_tem_fused_mm_0", "[[64, 256], [128, 512], [64, 512]]", "[" BF ", " BF ", " BF "]", &d) ==
          JV_ERR_FORMAT);
    /* a word that only contains "mm" is no GEMM */
    CHECK(un("triton_tem_fused_summary_0") == JV_UNSIZED_GENERATED);
}

static void test_hostile(void) {
    jv_desc d;
    /* no tensor recorded (a trace without Input Dims): no model, an error saying why */
    CHECK(parse_t("triton_poi_fused_add_0", "[[], []]", "[\"Scalar\", \"Scalar\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse_t("triton_poi_fused_add_0", NULL, NULL, &d) == JV_ERR_FORMAT);
    /* a tensor of an unknown type */
    CHECK(parse_t("triton_poi_fused_add_0", "[[4]]", "[\"c10::Weird\"]", &d) == JV_ERR_FORMAT);
    /* a negative dim */
    CHECK(parse_t("triton_poi_fused_add_0", "[[-4, 2]]", "[\"float\"]", &d) == JV_ERR_FORMAT);
    /* not a Triton kernel */
    CHECK(parse_t("aten::add", "[[4]]", "[\"float\"]", &d) == JV_ERR_NOTFOUND);
}

int main(void) {
    test_fixture_rows();
    test_a100();
    test_words_and_match();
    test_templates();
    test_hostile();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

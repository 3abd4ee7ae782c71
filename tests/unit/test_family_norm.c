/* Unit tests of the norm family (layer, group, RMS and instance norm):
 * hand-computed FLOPs/bytes for calls as traces record them (rows of the
 * TraceLens reference CSVs amd_mi300x_normalization_layers and
 * amd_mi300xvf_bert_small_infer), output masks, missing weights,
 * channels_last detection, params and hostile calls. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "norm/norm.h"

#define JV_TEST_FAMILY     jv_norm_family
#define JV_TEST_NEAR_FLOOR 1.0
#include "jv_test_family.h"

#define N 131072.0 /* 8*16*32*32 */

static void test_layer_norm(void) {
    jv_desc d;
    /* normalization_layers aten::layer_norm (8,16,32,32) fp32, normalized_shape [16, 32, 32], weight and bias:
     * rows R = 8, size 16384, P = 16384.
     * flops = 3n + 5R + 2n + 2n = 7*131072 + 40 = 917544 (TraceLens 0.000753664 GFLOPS = 5n + 6C: no affine)
     * bytes = 2n*4 + 16384*4 + 16384*4 + 2*8*4 = 1048576 + 65536 + 65536 + 64 = 1179712
     * (TraceLens 1.375 MiB = 1441792 = 2n*4 + 6*16384*4) */
    CHECK(parse("aten::layer_norm", "[[8, 16, 32, 32], [], [16, 32, 32], [16, 32, 32], [], []]",
                "[\"float\", \"ScalarList\", \"float\", \"float\", \"Scalar\", \"Scalar\"]",
                "[[16384, 1024, 32, 1], [], [1024, 32, 1], [1024, 32, 1], [], []]",
                "[\"\", \"[16, 32, 32]\", \"\", \"\", \"1.0000000000000001e-05\", \"True\"]", &d) == JV_OK);
    const jv_norm_desc *g = jv_norm_of(&d);
    CHECK(d.bwd == 0 && g->kind == JV_NORM_KIND_LAYER && g->op == JV_NORM_LAYER_NORM);
    CHECK(g->rows == 8 && g->size == 16384 && g->channels == 16384 && g->param_numel == 16384);
    CHECK(g->normalized_ndim == 3 && g->normalized_shape[0] == 16 && g->normalized_shape[2] == 32);
    CHECK(g->has_weight && g->has_bias && g->training);
    CHECK_NEAR(g->eps, 1e-5);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 917544.0);
    CHECK_NEAR(p.bytes, 1179712.0);
    CHECK(p.dtype == JV_DT_F32 && p.matrix == 0);
    CHECK(!strcmp(param(&d, "op_shape"), "(8, 16, 32, 32)"));
    CHECK(!strcmp(param(&d, "dtype_in_out"), "('float', None)"));
    CHECK(!strcmp(param(&d, "stride_input"), "(16384, 1024, 32, 1)"));
    CHECK(!strcmp(param(&d, "stride_output"), "None"));
    CHECK(!strcmp(param(&d, "num_channels"), "16384")); /* TraceLens 16384.0 (float column in that sheet) */
    CHECK(!strcmp(param(&d, "has_bias"), "True"));
    CHECK(!strcmp(param(&d, "is_affine"), "True"));
    CHECK(!strcmp(param(&d, "is_training"), "True"));
    CHECK(!strcmp(param(&d, "output_mask"), "None")); /* TraceLens nan */

    /* the inner aten::native_layer_norm (5 args): same */
    CHECK(parse("aten::native_layer_norm", "[[8, 16, 32, 32], [], [16, 32, 32], [16, 32, 32], []]",
                "[\"float\", \"ScalarList\", \"float\", \"float\", \"Scalar\"]",
                "[[16384, 1024, 32, 1], [], [1024, 32, 1], [1024, 32, 1], []]",
                "[\"\", \"[16, 32, 32]\", \"\", \"\", \"1.0000000000000001e-05\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 917544.0);
    CHECK_NEAR(p.bytes, 1179712.0);

    /* amd_mi300xvf_bert_small_infer aten::layer_norm (1,141,512) bf16, [512]: n = 72192, R = 141
     * flops = 7n + 5*141 = 505344 + 705 = 506049 (TraceLens 0.000364032 GFLOPS)
     * bytes = 2n*2 + 512*2 + 512*2 + 2*141*4 = 288768 + 1024 + 1024 + 1128 = 291944
     * (TraceLens 0.28125 MiB = 294912) */
    CHECK(parse("aten::layer_norm", "[[1, 141, 512], [], [512], [512], [], []]",
                "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
                "[[72192, 512, 1], [], [1], [1], [], []]",
                "[\"\", \"[512]\", \"\", \"\", \"9.9999999999999998e-13\", \"True\"]", &d) == JV_OK);
    g = jv_norm_of(&d);
    CHECK(g->rows == 141 && g->stat_dtype == JV_DT_F32 && g->weight_dtype == JV_DT_BF16);
    CHECK_NEAR(g->eps, 1e-12);
    p = model(&d);
    CHECK_NEAR(p.flops, 506049.0);
    CHECK_NEAR(p.bytes, 291944.0);
    CHECK(!strcmp(param(&d, "num_channels"), "512"));
    CHECK(!strcmp(param(&d, "dtype_in_out"), "('c10::BFloat16', None)"));

    /* no weight and no bias (elementwise_affine=False), (4,197,768) bf16: n = 605184, R = 788
     * flops = 3n + 5R + 2n = 5*605184 + 3940 = 3029860
     * bytes = 2n*2 + 2*788*4 = 2420736 + 6304 = 2427040 */
    CHECK(parse("aten::native_layer_norm", "[[4, 197, 768], [], [], [], []]",
                "[\"c10::BFloat16\", \"ScalarList\", \"\", \"\", \"Scalar\"]", "[[151296, 768, 1], [], [], [], []]",
                "[\"\", \"[768]\", \"\", \"\", \"1e-05\"]", &d) == JV_OK);
    g = jv_norm_of(&d);
    CHECK(!g->has_weight && !g->has_bias);
    p = model(&d);
    CHECK_NEAR(p.flops, 3029860.0);
    CHECK_NEAR(p.bytes, 2427040.0);
    CHECK(!strcmp(param(&d, "is_affine"), "False"));
    CHECK(!strcmp(param(&d, "has_bias"), "False"));

    /* weight without bias (bias=False): flops = 6n + 3940 = 3635044; bytes = 2427040 + 768*2 = 2428576 */
    CHECK(parse("aten::native_layer_norm", "[[4, 197, 768], [], [768], [], []]",
                "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", \"\", \"Scalar\"]", NULL,
                "[\"\", \"[768]\", \"\", \"\", \"1e-05\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 3635044.0);
    CHECK_NEAR(p.bytes, 2428576.0);

    /* normalized_shape absent: taken from the weight */
    CHECK(parse("aten::native_layer_norm", "[[4, 197, 768], [], [768], [768], []]",
                "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]", NULL, NULL,
                &d) == JV_OK);
    CHECK(jv_norm_of(&d)->rows == 788 && jv_norm_of(&d)->size == 768);
}

static void test_layer_norm_backward(void) {
    jv_desc d;
    /* normalization_layers aten::native_layer_norm_backward (8,16,32,32) fp32, mask [True, True, True]:
     * flops = 10n (grad_input) + 2n (grad_weight) + n (grad_bias) = 13n = 1703936 (TraceLens 0.001179648 = 9n)
     * bytes = 3n*4 + weight 16384*4 + mean/rstd 2*8*4 + grads 2*16384*4
     *       = 1572864 + 65536 + 64 + 131072 = 1769536 (TraceLens 1.75 MiB = 1835008) */
    CHECK(parse("aten::native_layer_norm_backward",
                "[[8, 16, 32, 32], [8, 16, 32, 32], [], [8, 1, 1, 1], [8, 1, 1, 1], [16, 32, 32], [16, 32, 32], []]",
                "[\"float\", \"float\", \"ScalarList\", \"float\", \"float\", \"float\", \"float\", \"ScalarList\"]",
                "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [], [1, 1, 1, 1], [1, 1, 1, 1], [1024, 32, 1], "
                "[1024, 32, 1], []]",
                "[\"\", \"\", \"[16, 32, 32]\", \"\", \"\", \"\", \"\", \"[True, True, True]\"]", &d) == JV_OK);
    const jv_norm_desc *g = jv_norm_of(&d);
    CHECK(d.bwd == 1 && g->bwd == 1 && g->rows == 8 && g->mask_len == 3);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 1703936.0);
    CHECK_NEAR(p.bytes, 1769536.0);
    CHECK(!strcmp(param(&d, "output_mask"), "[True, True, True]"));
    CHECK(!strcmp(param(&d, "has_bias"), "True"));
    CHECK(!strcmp(param(&d, "is_affine"), "True"));

    /* the mask [True, False, False] row without weight and bias:
     * flops = 9n = 1179648 (TraceLens 0.001179648: the same); bytes = 3n*4 + 2*8*4 = 1572928
     * (TraceLens 1.5625 MiB = 1638400) */
    CHECK(parse("aten::native_layer_norm_backward",
                "[[8, 16, 32, 32], [8, 16, 32, 32], [], [8, 1, 1, 1], [8, 1, 1, 1], [], [], []]",
                "[\"float\", \"float\", \"ScalarList\", \"float\", \"float\", \"\", \"\", \"ScalarList\"]",
                "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [], [1, 1, 1, 1], [1, 1, 1, 1], [], [], []]",
                "[\"\", \"\", \"[16, 32, 32]\", \"\", \"\", \"\", \"\", \"[True, False, False]\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 1179648.0);
    CHECK_NEAR(p.bytes, 1572928.0);
    CHECK(!strcmp(param(&d, "output_mask"), "[True, False, False]"));
    CHECK(!strcmp(param(&d, "is_affine"), "False"));
    CHECK(!strcmp(param(&d, "has_bias"), "False"));

    /* mask [False, True, True] with weight and bias: dy and x read 2n*4 = 1048576, + mean/rstd 64 + grads 131072
     * = 1179712; flops = 2n + 2n (xhat) + n = 5n = 655360 */
    CHECK(parse("aten::native_layer_norm_backward",
                "[[8, 16, 32, 32], [8, 16, 32, 32], [], [8, 1, 1, 1], [8, 1, 1, 1], [16, 32, 32], [16, 32, 32], []]",
                "[\"float\", \"float\", \"ScalarList\", \"float\", \"float\", \"float\", \"float\", \"ScalarList\"]",
                NULL, "[\"\", \"\", \"[16, 32, 32]\", \"\", \"\", \"\", \"\", \"[False, True, True]\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.bytes, 1179712.0);
    CHECK_NEAR(p.flops, 655360.0);
}

static void test_group_norm(void) {
    jv_desc d;
    /* normalization_layers aten::group_norm (8,16,32,32) fp32, 4 groups, weight and bias [16]:
     * R = 8*4 = 32, size 4*1024 = 4096.
     * flops = 7n + 5*32 = 917504 + 160 = 917664 (TraceLens 0.000655456)
     * bytes = 2n*4 + 16*4 + 16*4 + 2*32*4 = 1048576 + 64 + 64 + 256 = 1048960
     * (TraceLens 1.0003662109375 MiB = 1048960: the same total, by 6*C*4 = 384 = 128 + 256) */
    CHECK(parse("aten::group_norm", "[[8, 16, 32, 32], [], [16], [16], [], []]",
                "[\"float\", \"Scalar\", \"float\", \"float\", \"Scalar\", \"Scalar\"]",
                "[[16384, 1024, 32, 1], [], [1], [1], [], []]",
                "[\"\", \"4\", \"\", \"\", \"1.0000000000000001e-05\", \"True\"]", &d) == JV_OK);
    const jv_norm_desc *g = jv_norm_of(&d);
    CHECK(g->kind == JV_NORM_KIND_GROUP && g->groups == 4 && g->rows == 32 && g->size == 4096);
    CHECK(g->channels == 16 && g->param_numel == 16);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 917664.0);
    CHECK_NEAR(p.bytes, 1048960.0);
    CHECK(!strcmp(param(&d, "num_channels"), "16"));
    CHECK(g->layout == JV_LAYOUT_CONTIGUOUS);

    /* aten::native_group_norm (input, weight, bias, N, C, HxW, group, eps): same */
    CHECK(parse("aten::native_group_norm", "[[8, 16, 32, 32], [16], [16], [], [], [], [], []]",
                "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[16384, 1024, 32, 1], [1], [1], [], [], [], [], []]",
                "[\"\", \"\", \"\", \"8\", \"16\", \"1024\", \"4\", \"1.0000000000000001e-05\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 917664.0);
    CHECK_NEAR(p.bytes, 1048960.0);

    /* channels_last (8,16,32,32): strides (16384, 1, 512, 16) */
    CHECK(parse("aten::native_group_norm", "[[8, 16, 32, 32], [16], [16], [], [], [], [], []]",
                "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[16384, 1, 512, 16], [1], [1], [], [], [], [], []]",
                "[\"\", \"\", \"\", \"8\", \"16\", \"1024\", \"4\", \"1e-05\"]", &d) == JV_OK);
    CHECK(jv_norm_of(&d)->layout == JV_LAYOUT_CHANNELS_LAST);
    CHECK(!strcmp(param(&d, "stride_input"), "(16384, 1, 512, 16)"));

    /* normalization_layers aten::native_group_norm_backward, mask [True, True, True], weight [16]:
     * flops = 13n = 1703936 (TraceLens 0.001179648 = 9n)
     * bytes = 3n*4 + weight 64 + mean/rstd 2*32*4 + grads 2*16*4 = 1572864 + 64 + 256 + 128 = 1573312
     * (TraceLens 1.50006103515625 MiB = 1572928) */
    CHECK(
        parse("aten::native_group_norm_backward",
              "[[8, 16, 32, 32], [8, 16, 32, 32], [8, 4], [8, 4], [16], [], [], [], [], []]",
              "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
              "\"ScalarList\"]",
              "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [4, 1], [4, 1], [1], [], [], [], [], []]",
              "[\"\", \"\", \"\", \"\", \"\", \"8\", \"16\", \"1024\", \"4\", \"[True, True, True]\"]", &d) == JV_OK);
    g = jv_norm_of(&d);
    CHECK(d.bwd == 1 && g->groups == 4 && g->rows == 32);
    p = model(&d);
    CHECK_NEAR(p.flops, 1703936.0);
    CHECK_NEAR(p.bytes, 1573312.0);
    CHECK(!strcmp(param(&d, "num_channels"), "16")); /* TraceLens: 4.0 (C / groups) */
    CHECK(!strcmp(param(&d, "output_mask"), "[True, True, True]"));

    /* mask [True, False, False] without weight: flops 9n = 1179648 (TraceLens 0.001179648: the same);
     * bytes = 1572864 + 256 = 1573120 (TraceLens 1.50006103515625 MiB = 1572928) */
    CHECK(parse("aten::native_group_norm_backward",
                "[[8, 16, 32, 32], [8, 16, 32, 32], [8, 4], [8, 4], [], [], [], [], [], []]",
                "[\"float\", \"float\", \"float\", \"float\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
                "\"ScalarList\"]",
                "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [4, 1], [4, 1], [], [], [], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"8\", \"16\", \"1024\", \"4\", \"[True, False, False]\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 1179648.0);
    CHECK_NEAR(p.bytes, 1573120.0);
    CHECK(!strcmp(param(&d, "is_affine"), "False"));
    CHECK(!strcmp(param(&d, "has_bias"), "False")); /* TraceLens: True */

    /* no Concrete Inputs: the groups come from mean's [N, group] shape, the mask defaults to all */
    CHECK(
        parse("aten::native_group_norm_backward",
              "[[8, 16, 32, 32], [8, 16, 32, 32], [8, 4], [8, 4], [16], [], [], [], [], []]",
              "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
              "\"ScalarList\"]",
              NULL, NULL, &d) == JV_OK);
    CHECK(jv_norm_of(&d)->groups == 4);
    CHECK_NEAR(model(&d).bytes, 1573312.0);
}

static void test_rms_norm(void) {
    jv_desc d;
    /* normalization_layers aten::_fused_rms_norm (8,16,32,32) fp32, normalized_shape [32, 32], weight [32, 32]:
     * R = 128, size 1024.
     * flops = 2n + 2R + n + n = 4*131072 + 256 = 524544 (TraceLens 0.000524544 GFLOPS: same)
     * bytes = 2n*4 + 1024*4 + rstd 128*4 = 1048576 + 4096 + 512 = 1053184
     * (TraceLens 1.00390625 MiB = 1052672: no rstd written) */
    const char *dims = "[[8, 16, 32, 32], [], [32, 32], []]";
    const char *types = "[\"float\", \"ScalarList\", \"float\", \"\"]";
    const char *strides = "[[16384, 1024, 32, 1], [], [32, 1], []]";
    CHECK(parse("aten::_fused_rms_norm", dims, types, strides, "[\"\", \"[32, 32]\", \"\", \"\"]", &d) == JV_OK);
    const jv_norm_desc *g = jv_norm_of(&d);
    CHECK(g->kind == JV_NORM_KIND_RMS && g->rows == 128 && g->size == 1024 && g->channels == 1024);
    CHECK(g->eps == 0.0); /* None: the dtype's epsilon */
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 524544.0);
    CHECK_NEAR(p.bytes, 1053184.0);
    CHECK(!strcmp(param(&d, "num_channels"), "1024"));
    CHECK(!strcmp(param(&d, "has_bias"), "False"));
    CHECK(!strcmp(param(&d, "is_affine"), "True"));
    CHECK(!strcmp(param(&d, "is_training"), "False"));
    CHECK(!strcmp(param(&d, "output_mask"), "None"));

    /* aten::rms_norm, same argument layout: same model */
    CHECK(parse("aten::rms_norm", dims, types, strides, "[\"\", \"[32, 32]\", \"\", \"1e-06\"]", &d) == JV_OK);
    CHECK(jv_norm_of(&d)->op == JV_NORM_RMS_NORM);
    CHECK_NEAR(jv_norm_of(&d)->eps, 1e-6);
    CHECK_NEAR(model(&d).flops, 524544.0);
    CHECK_NEAR(model(&d).bytes, 1053184.0);

    /* older _fused_rms_norm(input, normalized_shape_ndim, weight, eps): "2" = the last two dims */
    CHECK(parse("aten::_fused_rms_norm", dims, types, strides, "[\"\", \"2\", \"\", \"1e-06\"]", &d) == JV_OK);
    CHECK(jv_norm_of(&d)->size == 1024 && jv_norm_of(&d)->normalized_ndim == 2);

    /* no weight: flops = 3n + 256 = 393472; bytes = 1048576 + 512 = 1049088 */
    CHECK(parse("aten::rms_norm", "[[8, 16, 32, 32], [], [], []]", "[\"float\", \"ScalarList\", \"\", \"\"]", NULL,
                "[\"\", \"[32, 32]\", \"\", \"\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 393472.0);
    CHECK_NEAR(p.bytes, 1049088.0);
    CHECK(!strcmp(param(&d, "is_affine"), "False"));

    /* normalization_layers aten::_fused_rms_norm_backward (grad_out, input, normalized_shape, rstd, weight,
     * output_mask) mask [True, True]:
     * flops = 7n (grad_input) + 2n (grad_weight) = 9n = 1179648 (TraceLens 0.00131072 = 10n)
     * bytes = 3n*4 + weight 4096 + rstd 128*4 + grad_weight 4096 = 1572864 + 4096 + 512 + 4096 = 1581568
     * (TraceLens 1.5078125 MiB = 1581056) */
    CHECK(parse("aten::_fused_rms_norm_backward", "[[8, 16, 32, 32], [8, 16, 32, 32], [], [8, 16, 1, 1], [32, 32], []]",
                "[\"float\", \"float\", \"ScalarList\", \"float\", \"float\", \"ScalarList\"]",
                "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [], [16, 1, 1, 1], [32, 1], []]",
                "[\"\", \"\", \"[32, 32]\", \"\", \"\", \"[True, True]\"]", &d) == JV_OK);
    g = jv_norm_of(&d);
    CHECK(d.bwd == 1 && g->mask_len == 2 && g->output_mask[0] && g->output_mask[1] && !g->output_mask[2]);
    p = model(&d);
    CHECK_NEAR(p.flops, 1179648.0);
    CHECK_NEAR(p.bytes, 1581568.0);
    CHECK(!strcmp(param(&d, "output_mask"), "[True, True]"));
    CHECK(!strcmp(param(&d, "has_bias"), "False"));

    /* mask [True, False] without weight: flops = 6n = 786432 (TraceLens 0.001048576);
     * bytes = 1572864 + 512 = 1573376 (TraceLens 1.5078125 MiB) */
    CHECK(parse("aten::_fused_rms_norm_backward", "[[8, 16, 32, 32], [8, 16, 32, 32], [], [8, 16, 1, 1], [], []]",
                "[\"float\", \"float\", \"ScalarList\", \"float\", \"\", \"ScalarList\"]",
                "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [], [16, 1, 1, 1], [], []]",
                "[\"\", \"\", \"[32, 32]\", \"\", \"\", \"[True, False]\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 786432.0);
    CHECK_NEAR(p.bytes, 1573376.0);
    CHECK(!strcmp(param(&d, "output_mask"), "[True, False]"));
}

static void test_instance_norm(void) {
    jv_desc d;
    /* normalization_layers aten::instance_norm (8,16,32,32) fp32, weight and bias, no running stats,
     * use_input_stats True: R = 8*16 = 128, size 1024.
     * flops = 7n + 5*128 = 917504 + 640 = 918144 (TraceLens 0.000655456)
     * bytes = 2n*4 + 64 + 64 + 2*128*4 = 1048576 + 128 + 1024 = 1049728 (TraceLens 1.0003662109375 MiB = 1048960) */
    const char *types = "[\"float\", \"float\", \"float\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]";
    CHECK(
        parse("aten::instance_norm", "[[8, 16, 32, 32], [16], [16], [], [], [], [], [], []]", types,
              "[[16384, 1024, 32, 1], [1], [1], [], [], [], [], [], []]",
              "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.10000000000000001\", \"1.0000000000000001e-05\", \"True\"]",
              &d) == JV_OK);
    const jv_norm_desc *g = jv_norm_of(&d);
    CHECK(g->kind == JV_NORM_KIND_INSTANCE && g->rows == 128 && g->size == 1024 && g->channels == 16);
    CHECK(g->training == 1 && !g->has_running);
    CHECK_NEAR(g->momentum, 0.1);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 918144.0);
    CHECK_NEAR(p.bytes, 1049728.0);
    CHECK(!strcmp(param(&d, "num_channels"), "16"));

    /* with running stats, use_input_stats "False" (eval; TraceLens reads it as True):
     * flops = C + 2n + 2n = 16 + 524288 = 524304; bytes = 2n*4 + 64 + 64 + 2*16*4 = 1048832 */
    const char *rtypes =
        "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]";
    CHECK(parse("aten::instance_norm", "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], [], []]", rtypes, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\", \"True\"]", &d) == JV_OK);
    CHECK(jv_norm_of(&d)->training == 0 && jv_norm_of(&d)->has_running);
    CHECK(!strcmp(param(&d, "is_training"), "False"));
    p = model(&d);
    CHECK_NEAR(p.flops, 524304.0);
    CHECK_NEAR(p.bytes, 1048832.0);

    /* with running stats and use_input_stats True: 918144 flops; bytes 1049728 + 4*16*4 = 1049984 */
    CHECK(parse("aten::instance_norm", "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], [], []]", rtypes, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\", \"True\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 918144.0);
    CHECK_NEAR(p.bytes, 1049984.0);
}

static void test_params_and_match(void) {
    jv_desc f, b;
    CHECK(parse("aten::rms_norm", "[[8, 1024], [], [1024], []]", "[\"float\", \"ScalarList\", \"float\", \"\"]", NULL,
                "[\"\", \"[1024]\", \"\", \"\"]", &f) == JV_OK);
    CHECK(
        parse("aten::native_group_norm_backward",
              "[[8, 16, 32, 32], [8, 16, 32, 32], [8, 4], [8, 4], [16], [], [], [], [], []]",
              "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
              "\"ScalarList\"]",
              NULL, NULL, &b) == JV_OK);
    jv_params pf = {0}, pb = {0};
    jv_norm_family.params(&f, &pf);
    jv_norm_family.params(&b, &pb);
    static const char *const NAMES[] = {"op_shape", "dtype_in_out", "stride_input", "stride_output", "num_channels",
                                        "has_bias", "is_affine",    "is_training",  "output_mask"};
    CHECK(pf.n == 9 && pb.n == 9);
    for (int i = 0; i < 9 && i < pf.n && i < pb.n; i++) {
        CHECK(!strcmp(pf.p[i].name, NAMES[i]));
        CHECK(!strcmp(pb.p[i].name, NAMES[i]));
    }
    CHECK(pf.p[4].is_num && pf.p[4].num == 1024);
    CHECK(!strcmp(pf.p[2].text, "None")); /* strides not recorded */

    static const char *const STRONG[] = {
        "aten::layer_norm",   "aten::native_layer_norm", "aten::native_layer_norm_backward",
        "aten::group_norm",   "aten::native_group_norm", "aten::native_group_norm_backward",
        "aten::rms_norm",     "aten::_fused_rms_norm",   "aten::_fused_rms_norm_backward",
        "aten::instance_norm"};
    for (size_t i = 0; i < sizeof STRONG / sizeof STRONG[0]; i++)
        CHECK(jv_norm_family.match(STRONG[i]) == JV_MATCH_STRONG);
    CHECK(jv_norm_family.match("aten::batch_norm") == JV_MATCH_NONE);
    CHECK(jv_norm_family.match("aten::layer_norm_") == JV_MATCH_NONE);
    CHECK(!strcmp(jv_norm_family.sheet, "Normalization") && jv_norm_family.split == 0);
    CHECK(!strcmp(jv_norm_family.category, "NORM"));
}

static void test_hostile(void) {
    jv_desc d;
    const char *lt = "[\"float\", \"ScalarList\", \"float\", \"float\", \"Scalar\"]";
    /* nothing at all */
    CHECK(parse("aten::native_layer_norm", NULL, NULL, NULL, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_layer_norm", "[]", "[]", "[]", "[]", &d) == JV_ERR_FORMAT);
    /* scalar input */
    CHECK(parse("aten::native_layer_norm", "[[], [], [16], [16], []]", lt, NULL,
                "[\"\", \"[16]\", \"\", \"\", \"1e-05\"]", &d) == JV_ERR_FORMAT);
    /* no normalized_shape and no weight */
    CHECK(parse("aten::native_layer_norm", "[[8, 16], [], [], [], []]",
                "[\"float\", \"ScalarList\", \"\", \"\", \"Scalar\"]", NULL, NULL, &d) == JV_ERR_FORMAT);
    /* normalized_shape not the trailing dims, not ints, too long, empty */
    CHECK(parse("aten::native_layer_norm", "[[8, 16, 32], [], [], [], []]",
                "[\"float\", \"ScalarList\", \"\", \"\", \"Scalar\"]", NULL,
                "[\"\", \"[16, 31]\", \"\", \"\", \"1e-05\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_layer_norm", "[[8, 16, 32], [], [], [], []]",
                "[\"float\", \"ScalarList\", \"\", \"\", \"Scalar\"]", NULL,
                "[\"\", \"[sixteen]\", \"\", \"\", \"1e-05\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_layer_norm", "[[16, 32], [], [], [], []]",
                "[\"float\", \"ScalarList\", \"\", \"\", \"Scalar\"]", NULL,
                "[\"\", \"[8, 16, 32]\", \"\", \"\", \"1e-05\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_layer_norm", "[[16, 32], [], [], [], []]",
                "[\"float\", \"ScalarList\", \"\", \"\", \"Scalar\"]", NULL, "[\"\", \"[]\", \"\", \"\", \"1e-05\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::_fused_rms_norm", "[[16, 32], [], [], []]", "[\"float\", \"ScalarList\", \"\", \"\"]", NULL,
                "[\"\", \"7\", \"\", \"\"]", &d) == JV_ERR_FORMAT);
    /* weight of the wrong size; negative dims; an overflowing normalized size */
    CHECK(parse("aten::native_layer_norm", "[[8, 16], [], [15], [16], []]", lt, NULL,
                "[\"\", \"[16]\", \"\", \"\", \"1e-05\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_layer_norm", "[[8, -16], [], [16], [16], []]", lt, NULL,
                "[\"\", \"[-16]\", \"\", \"\", \"1e-05\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_layer_norm", "[[0, 4611686018427387904, 4], [], [], [], []]",
                "[\"float\", \"ScalarList\", \"\", \"\", \"Scalar\"]", NULL,
                "[\"\", \"[4611686018427387904, 4]\", \"\", \"\", \"1e-05\"]", &d) == JV_ERR_FORMAT);
    /* eps garbage */
    CHECK(parse("aten::native_layer_norm", "[[8, 16], [], [16], [16], []]", lt, NULL,
                "[\"\", \"[16]\", \"\", \"\", \"tiny\"]", &d) == JV_ERR_FORMAT);
    /* group norm: groups that do not divide C, zero, negative, not an int, missing; N/C/HxW disagreeing;
     * overflowing C*HxW */
    const char *gt = "[\"float\", \"Scalar\", \"float\", \"float\", \"Scalar\", \"Scalar\"]";
    const char *gd = "[[8, 16, 32, 32], [], [16], [16], [], []]";
    CHECK(parse("aten::group_norm", gd, gt, NULL, "[\"\", \"5\", \"\", \"\", \"1e-05\", \"True\"]", &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::group_norm", gd, gt, NULL, "[\"\", \"0\", \"\", \"\", \"1e-05\", \"True\"]", &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::group_norm", gd, gt, NULL, "[\"\", \"-4\", \"\", \"\", \"1e-05\", \"True\"]", &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::group_norm", gd, gt, NULL, "[\"\", \"[4]\", \"\", \"\", \"1e-05\", \"True\"]", &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::group_norm", gd, gt, NULL, "[\"\", \"32\", \"\", \"\", \"1e-05\", \"True\"]", &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::group_norm", gd, gt, NULL, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::group_norm", "[[8], [], [], [], [], []]", gt, NULL, "[\"\", \"1\", \"\", \"\", \"\", \"\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_group_norm", "[[8, 16, 32, 32], [16], [16], [], [], [], [], []]",
                "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"8\", \"16\", \"1000\", \"4\", \"1e-05\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::group_norm", "[[0, 4611686018427387904, 4, 4], [], [], [], [], []]",
                "[\"float\", \"Scalar\", \"\", \"\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"1\", \"\", \"\", \"1e-05\", \"True\"]", &d) == JV_ERR_FORMAT);
    /* backward: grad_output missing or mismatched, mask of the wrong length */
    CHECK(parse("aten::native_layer_norm_backward", "[[], [8, 16], [], [8, 1], [8, 1], [16], [16], []]",
                "[\"\", \"float\", \"ScalarList\", \"float\", \"float\", \"float\", \"float\", \"ScalarList\"]", NULL,
                "[\"\", \"\", \"[16]\", \"\", \"\", \"\", \"\", \"[True, True, True]\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_layer_norm_backward", "[[8, 15], [8, 16], [], [8, 1], [8, 1], [16], [16], []]",
                "[\"float\", \"float\", \"ScalarList\", \"float\", \"float\", \"float\", \"float\", \"ScalarList\"]",
                NULL, "[\"\", \"\", \"[16]\", \"\", \"\", \"\", \"\", \"[True, True, True]\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_layer_norm_backward", "[[8, 16], [8, 16], [], [8, 1], [8, 1], [16], [16], []]",
                "[\"float\", \"float\", \"ScalarList\", \"float\", \"float\", \"float\", \"float\", \"ScalarList\"]",
                NULL, "[\"\", \"\", \"[16]\", \"\", \"\", \"\", \"\", \"[True, True]\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::_fused_rms_norm_backward", "[[8, 16], [8, 16], [], [8, 1], [16], []]",
                "[\"float\", \"float\", \"ScalarList\", \"float\", \"float\", \"ScalarList\"]", NULL,
                "[\"\", \"\", \"[16]\", \"\", \"\", \"[True, True, True]\"]", &d) == JV_ERR_FORMAT);
    /* instance norm: use_input_stats not a bool, running stats of the wrong size */
    const char *it =
        "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]";
    CHECK(parse("aten::instance_norm", "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], [], []]", it, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"yes\", \"0.1\", \"1e-05\", \"True\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::instance_norm", "[[8, 16, 32, 32], [16], [16], [8], [16], [], [], [], []]", it, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\", \"True\"]", &d) == JV_ERR_FORMAT);
    /* zero channels: no division by zero */
    CHECK(parse("aten::instance_norm", "[[8, 0, 32, 32], [], [], [], [], [], [], [], []]",
                "[\"float\", \"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\", \"True\"]", &d) == JV_OK);
    CHECK_NEAR(model(&d).bytes, 0.0);
    /* another family's name */
    CHECK(parse("aten::native_batch_norm", "[[8, 16]]", "[\"float\"]", NULL, NULL, &d) == JV_ERR_NOTFOUND);
    /* unknown dtype: bytes NaN */
    CHECK(parse("aten::native_layer_norm", "[[8, 16], [], [], [], []]",
                "[\"c10::Float8_e8m0fnu\", \"ScalarList\", \"\", \"\", \"Scalar\"]", NULL,
                "[\"\", \"[16]\", \"\", \"\", \"1e-05\"]", &d) == JV_OK);
    CHECK(isnan(model(&d).bytes));
    /* a tensor list where the input should be */
    CHECK(parse("aten::native_layer_norm", "[[[8, 16], [8, 16]], [], [], [], []]",
                "[\"TensorList\", \"ScalarList\", \"\", \"\", \"Scalar\"]", NULL, NULL, &d) == JV_ERR_FORMAT);
}

/* serving stacks' RMS norm kernels: no statistics written; vLLM's fused add also reads and writes its residual */
static void test_serving_rms_norm(void) {
    jv_desc d;
    const char *BF = "\"c10::BFloat16\"";
    char types[256];
    /* vLLM _C::rms_norm(result [4, 4096], input [4, 4096], weight [4096], eps): n = 16384, R = 4, P = 4096.
     * flops = 2n + 2R + n + n (weight) = 4n + 2R = 65544 (TraceLens' RMSNorm: R*(2P + 2) + 2n, the same);
     * bytes = 2n*2 + P*2 = 65536 + 8192 = 73728 */
    snprintf(types, sizeof types, "[%s, %s, %s, \"Scalar\"]", BF, BF, BF);
    CHECK(parse("_C::rms_norm", "[[4, 4096], [4, 4096], [4096], []]", types, NULL,
                "[\"\", \"\", \"\", \"9.9999999999999995e-07\"]", &d) == JV_OK);
    const jv_norm_desc *g = jv_norm_of(&d);
    CHECK(g->kind == JV_NORM_KIND_RMS && g->serving && !g->has_residual && g->rows == 4 && g->size == 4096);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 65544.0);
    CHECK_NEAR(p.bytes, 73728.0);
    /* _C::fused_add_rms_norm(input [4, 4096], residual [4, 4096], weight, eps): + n adds, + 2n*2 residual bytes */
    CHECK(parse("_C::fused_add_rms_norm", "[[4, 4096], [4, 4096], [4096], []]", types, NULL,
                "[\"\", \"\", \"\", \"1e-06\"]", &d) == JV_OK);
    g = jv_norm_of(&d);
    CHECK(g->has_residual && g->serving);
    p = model(&d);
    CHECK_NEAR(p.flops, 81928.0);
    CHECK_NEAR(p.bytes, 139264.0);
    /* AITER rms_norm(x [2, 7168], weight [7168], eps): n = 14336, R = 2: flops 4n + 4 = 57348 (TraceLens'
     * aiter_rms_norm: 2*(2*7168 + 2) + 2*14336, the same); bytes 2n*2 + 7168*2 = 71680 */
    snprintf(types, sizeof types, "[%s, %s, \"Scalar\"]", BF, BF);
    CHECK(parse("aiter::rms_norm", "[[2, 7168], [7168], []]", types, NULL, "[\"\", \"\", \"1e-06\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 57348.0);
    CHECK_NEAR(p.bytes, 71680.0);
    /* AITER rmsnorm(out, input, weight, eps): the input at 1 */
    snprintf(types, sizeof types, "[%s, %s, %s, \"Scalar\"]", BF, BF, BF);
    CHECK(parse("aiter::rmsnorm", "[[4, 7168], [4, 7168], [7168], []]", types, NULL, NULL, &d) == JV_OK);
    CHECK(jv_norm_of(&d)->rows == 4 && jv_norm_of(&d)->size == 7168);
    /* vLLM's weight is optional (Tensor? weight): the last dim is normalized, no weight read or multiplied */
    snprintf(types, sizeof types, "[%s, %s, \"\", \"Scalar\"]", BF, BF);
    CHECK(parse("_C::rms_norm", "[[4, 4096], [4, 4096], [], []]", types, NULL, NULL, &d) == JV_OK);
    p = model(&d);
    CHECK(!jv_norm_of(&d)->has_weight && jv_norm_of(&d)->size == 4096);
    CHECK_NEAR(p.flops, 3.0 * 16384 + 8);
    CHECK_NEAR(p.bytes, 65536.0);
    /* a residual that does not match the input */
    snprintf(types, sizeof types, "[%s, %s, %s, \"Scalar\"]", BF, BF, BF);
    CHECK(parse("_C::fused_add_rms_norm", "[[4, 4096], [2, 4096], [4096], []]", types, NULL, NULL, &d) ==
          JV_ERR_FORMAT);
    CHECK(jv_norm_family.match("_C::rms_norm") == JV_MATCH_STRONG &&
          jv_norm_family.match("aiter::rmsnorm") == JV_MATCH_STRONG);
}

int main(void) {
    test_layer_norm();
    test_serving_rms_norm();
    test_layer_norm_backward();
    test_group_norm();
    test_rms_norm();
    test_instance_norm();
    test_params_and_match();
    test_hostile();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

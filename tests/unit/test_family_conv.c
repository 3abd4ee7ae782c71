/* Unit tests of the conv family: parse, model and params of aten::convolution,
 * aten::convolution_backward and the composite / backend conv ops, checked
 * against hand-computed values (arithmetic in the comments), the deliberate
 * fixes of TraceLens' rows among them, and hostile calls. The helpers:
 * test_family_conv.h; every row of the TraceLens CONV sheets:
 * test_family_conv_tracelens.c. */
#include "test_family_conv.h"
/* resnet18 CONV_bwd row 1 (mask [True, True, False]) spelled out:
 * out = x = 512x64x56x56 = 102760448; prod(w[1:]) = 576; |w| = 36864.
 * F = 2*576*102760448 = 118380036096; two grads = 236760072192 (TraceLens 236.760072192 GFLOPS).
 * bytes = 2 * (102760448 + 36864 + 102760448) * 2 = 822231040 (784.140625 MiB). */
static void test_resnet_bwd_by_hand(void) {
    jv_desc d;
    const char *dims = "[[512, 64, 56, 56], [512, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], [], []]";
    const char *types = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", "
                        "\"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]";
    CHECK(parse("aten::convolution_backward", dims, types, NULL,
                "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
                "\"[True, True, False]\"]",
                &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(p.flops == 236760072192.0);
    CHECK(p.bytes == 822231040.0);
    CHECK(p.flops / 1e9 == 236.760072192 || fabs(p.flops / 1e9 - 236.760072192) < 1e-9);
    CHECK(p.bytes / 1048576.0 == 784.140625);
    const jv_conv_desc *g = jv_conv_of(&d);
    CHECK(g->has_grad_out && g->output_mask[0] && g->output_mask[1] && !g->output_mask[2] && !g->has_bias);
    CHECK(g->out[0] == 512 && g->out[1] == 64 && g->out[2] == 56 && g->out[3] == 56);
    CHECK(g->c_in == 64 && g->c_out == 64 && g->groups == 1 && g->nd == 2 && !g->transposed);
    CHECK(g->layout == JV_LAYOUT_CONTIGUOUS && g->dtype == JV_DT_BF16);

    /* Deliberate fix: mask [True, True, True] adds grad_bias:
     * flops += |out| = 102760448 -> 236862832640;
     * bytes += (|out| + C_out) * 2 = (102760448 + 64) * 2 = 205521024 -> 1027752064. */
    CHECK(parse("aten::convolution_backward", dims, types, NULL,
                "[\"\", \"\", \"\", \"[64]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
                "\"[True, True, True]\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 236862832640.0);
    CHECK(p.bytes == 1027752064.0);
    char buf[64];
    EXPECT_STR(param(&d, "bias", buf, sizeof buf), "True");

    /* mask [True, False, False]: grad_input only = F = 118380036096, bytes 411115520 */
    CHECK(parse("aten::convolution_backward", dims, types, NULL,
                "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
                "\"[True, False, False]\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 118380036096.0 && p.bytes == 411115520.0);

    /* mask [False, False, True]: grad_bias only = 102760448 flops, 205521024 bytes */
    CHECK(parse("aten::convolution_backward", dims, types, NULL,
                "[\"\", \"\", \"\", \"[64]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
                "\"[False, False, True]\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 102760448.0 && p.bytes == 205521024.0);

    /* mask not traced: grad_input + grad_weight, plus grad_bias since bias_sizes = [64] */
    CHECK(parse("aten::convolution_backward", dims, types, NULL,
                "[\"\", \"\", \"\", \"[64]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 236862832640.0 && p.bytes == 1027752064.0);
    /* ... and bias_sizes [0]: no grad_bias */
    CHECK(parse("aten::convolution_backward", dims, types, NULL,
                "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 236760072192.0 && p.bytes == 822231040.0);
}

/* First resnet layer backward, mask [False, True, False] (no grad of the image):
 * x 512x3x224x224 = 77070336, w 64x3x7x7 = 9408 (prod(w[1:]) = 147),
 * out 512x64x112x112 = 411041792.
 * grad_weight F = 2*147*411041792 = 120846286848 (TraceLens counts it twice: 241.692573696 GFLOPS);
 * bytes = (411041792 + 77070336 + 9408) * 2 = 976243072 (TraceLens 1862.035888671875 MiB = 2x). */
static void test_first_layer_bwd(void) {
    jv_desc d;
    CHECK(parse("aten::convolution_backward",
                "[[512, 64, 112, 112], [512, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], [], []]",
                "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", "
                "\"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
                NULL,
                "[\"\", \"\", \"\", \"[0]\", \"[2, 2]\", \"[3, 3]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
                "\"[False, True, False]\"]",
                &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(p.flops == 120846286848.0);
    CHECK(p.bytes == 976243072.0);
    CHECK(p.flops * 2 == 241.692573696e9 || fabs(p.flops * 2 - 241.692573696e9) < 1e-3);
    CHECK(p.bytes * 2 == 1862.035888671875 * 1048576.0);
}

/* nsfw ViT patch embedding, which has a bias [768] that TraceLens omits:
 * x 4x3x224x224 = 602112, w 768x3x16x16 = 589824 (prod(w[1:]) = 768), stride 16, pad 0:
 * o = (224 - 15 - 1)/16 + 1 = 14, out 4x768x14x14 = 602112.
 * TraceLens: flops 2*768*602112 = 924844032, bytes (602112 + 589824 + 602112)*2 = 3588096.
 * Here + bias: flops 924844032 + 602112 = 925446144; bytes 3588096 + 768*2 = 3589632. */
static void test_nsfw_bias(void) {
    const char *dims = "[[4, 3, 224, 224], [768, 3, 16, 16], [768], [], [], [], [], [], []]";
    const char *types = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", "
                        "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"]";
    const char *strides = "[[150528, 50176, 224, 1], [768, 256, 16, 1], [1], [], [], [], [], [], []]";
    jv_desc d;
    CHECK(parse("aten::convolution", dims, types, strides,
                "[\"\", \"\", \"\", \"[16, 16]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    double tl_flops = 0.924844032 * 1e9, tl_bytes = 3.421875 * 1048576.0;
    EXPECT_NUM(tl_flops, 924844032.0);
    CHECK(tl_bytes == 3588096.0);
    EXPECT_NUM(p.flops, tl_flops + 602112.0);
    CHECK(p.flops == 925446144.0);
    CHECK(p.bytes == tl_bytes + 768.0 * 2);
    CHECK(p.bytes == 3589632.0);
    const jv_conv_desc *g = jv_conv_of(&d);
    CHECK(g->has_bias && g->bias.ndim == 1 && g->bias.shape[0] == 768 && g->out[2] == 14 && g->out[3] == 14);
    char buf[64];
    EXPECT_STR(param(&d, "bias", buf, sizeof buf), "True");

    /* aten::_convolution of the same call (weak): same numbers, backend flags read */
    CHECK(jv_conv_family.match("aten::_convolution") == JV_MATCH_WEAK);
    CHECK(
        parse("aten::_convolution",
              "[[4, 3, 224, 224], [768, 3, 16, 16], [768], [], [], [], [], [], [], [], [], [], []]",
              "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", "
              "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
              NULL,
              "[\"\", \"\", \"\", \"[16, 16]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", \"False\", "
              "\"False\", \"True\", \"True\"]",
              &d) == JV_OK);
    p = model(&d);
    g = jv_conv_of(&d);
    CHECK(p.flops == 925446144.0 && p.bytes == 3589632.0 && !d.bwd);
    CHECK(g->benchmark == 0 && g->deterministic == 0 && g->allow_tf32 == 1);

    /* aten::conv2d (weak): input, weight, bias, stride, padding, dilation, groups */
    CHECK(parse("aten::conv2d", "[[4, 3, 224, 224], [768, 3, 16, 16], [768], [], [], [], []]",
                "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", "
                "\"ScalarList\", \"Scalar\"]",
                NULL, "[\"\", \"\", \"\", \"[16, 16]\", \"[0, 0]\", \"[1, 1]\", \"1\"]", &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 925446144.0 && p.bytes == 3589632.0);

    /* aten::cudnn_convolution (weak, no bias): self, weight, padding, stride, dilation, groups,
     * benchmark, deterministic, allow_tf32 -> TraceLens' numbers exactly */
    CHECK(parse("aten::cudnn_convolution", "[[4, 3, 224, 224], [768, 3, 16, 16], [], [], [], [], [], [], []]",
                "[\"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                "\"Scalar\", \"Scalar\", \"Scalar\"]",
                NULL, "[\"\", \"\", \"[0, 0]\", \"[16, 16]\", \"[1, 1]\", \"1\", \"False\", \"False\", \"True\"]",
                &d) == JV_OK);
    p = model(&d);
    g = jv_conv_of(&d);
    CHECK(p.flops == 924844032.0 && p.bytes == 3588096.0);
    CHECK(g->stride[0] == 16 && g->padding[0] == 0 && !g->has_bias && g->allow_tf32 == 1);

    /* aten::miopen_convolution (weak): self, weight, bias, padding, stride, dilation, groups, benchmark,
     * deterministic (resnet18's first layer: TraceLens 120.846286848 GFLOPS, 931.0179443359375 MiB) */
    CHECK(parse("aten::miopen_convolution", "[[512, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
                "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
                "\"Scalar\", \"Scalar\", \"Scalar\"]",
                NULL, "[\"\", \"\", \"\", \"[3, 3]\", \"[2, 2]\", \"[1, 1]\", \"1\", \"False\", \"False\"]",
                &d) == JV_OK);
    p = model(&d);
    EXPECT_NUM(p.flops, 120.846286848e9);
    CHECK(p.bytes == 931.0179443359375 * 1048576.0);
}

/* channels_last: x [8, 32, 16, 16] NHWC strides, w [64, 32, 3, 3] NHWC, stride 1, pad 1, fp16.
 * out 8x64x16x16 = 131072; F = 2*288*131072 = 75497472;
 * bytes = (65536 + 18432 + 131072) * 2 = 430080. */
static void test_channels_last(void) {
    jv_desc d;
    CHECK(parse("aten::convolution", "[[8, 32, 16, 16], [64, 32, 3, 3], [], [], [], [], [], [], []]",
                "[\"c10::Half\", \"c10::Half\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                "\"ScalarList\", \"Scalar\"]",
                "[[8192, 1, 512, 32], [288, 1, 96, 32], [], [], [], [], [], [], []]",
                "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]", &d) == JV_OK);
    const jv_conv_desc *g = jv_conv_of(&d);
    jv_perf p = model(&d);
    CHECK(g->layout == JV_LAYOUT_CHANNELS_LAST && g->w_layout == JV_LAYOUT_CHANNELS_LAST);
    CHECK(g->dtype == JV_DT_F16 && p.dtype == JV_DT_F16);
    CHECK(p.flops == 75497472.0 && p.bytes == 430080.0);
    char buf[64];
    EXPECT_STR(param(&d, "input_stride", buf, sizeof buf), "(8192, 1, 512, 32)");
    EXPECT_STR(param(&d, "dtype_input_weight", buf, sizeof buf), "('c10::Half', 'c10::Half')");
}

/* grouped + dilated, fp32, groups 4: x [2, 64, 32, 32], w [128, 16, 3, 3], pad 2, dilation 2, stride 1:
 * o = (32 + 4 - 2*2 - 1)/1 + 1 = 32; out 2x128x32x32 = 262144; F = 2*144*262144 = 75497472;
 * bytes = (131072 + 18432 + 262144) * 4 = 1646592.
 * Per-dim params: x [2, 64, 33, 20], stride [2, 3], pad [1, 0], dilation [3, 1]:
 * o0 = (33 + 2 - 6 - 1)/2 + 1 = 15, o1 = (20 - 2 - 1)/3 + 1 = 6 (floor of 17/3 = 5);
 * out 2x128x15x6 = 23040; F = 2*144*23040 = 6635520; bytes = (84480 + 18432 + 23040) * 4 = 503808. */
static void test_grouped_dilated(void) {
    const char *types = "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                        "\"ScalarList\", \"Scalar\"]";
    jv_desc d;
    CHECK(parse("aten::convolution", "[[2, 64, 32, 32], [128, 16, 3, 3], [], [], [], [], [], [], []]", types, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[2, 2]\", \"[2, 2]\", \"False\", \"[0, 0]\", \"4\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    const jv_conv_desc *g = jv_conv_of(&d);
    CHECK(g->groups == 4 && g->c_in == 64 && g->c_out == 128 && g->out[2] == 32 && g->out[3] == 32);
    CHECK(p.flops == 75497472.0 && p.bytes == 1646592.0 && p.dtype == JV_DT_F32);
    char buf[64];
    EXPECT_STR(param(&d, "groups", buf, sizeof buf), "4");
    EXPECT_STR(param(&d, "dilation", buf, sizeof buf), "(2, 2)");
    EXPECT_STR(param(&d, "input_stride", buf, sizeof buf), "None");

    CHECK(parse("aten::convolution", "[[2, 64, 33, 20], [128, 16, 3, 3], [], [], [], [], [], [], []]", types, NULL,
                "[\"\", \"\", \"\", \"[2, 3]\", \"[1, 0]\", \"[3, 1]\", \"False\", \"[0, 0]\", \"4\"]", &d) == JV_OK);
    p = model(&d);
    g = jv_conv_of(&d);
    CHECK(g->out[2] == 15 && g->out[3] == 6);
    CHECK(p.flops == 6635520.0 && p.bytes == 503808.0);
    EXPECT_STR(param(&d, "stride", buf, sizeof buf), "(2, 3)");

    /* groups not traced: inferred as C_in / w[1] = 4 */
    CHECK(parse("aten::convolution", "[[2, 64, 32, 32], [128, 16, 3, 3], [], [], [], [], [], [], []]", types, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[2, 2]\", \"[2, 2]\", \"False\", \"[0, 0]\", \"\"]", &d) == JV_OK);
    CHECK(jv_conv_of(&d)->groups == 4 && model(&d).flops == 75497472.0);

    /* depthwise on MIOpen: x [1, 32, 8, 8], w [32, 1, 3, 3], groups 32, pad 1:
     * out 1x32x8x8 = 2048; F = 2*9*2048 = 36864; bytes = (2048 + 288 + 2048) * 4 = 17536 */
    CHECK(parse("aten::miopen_depthwise_convolution", "[[1, 32, 8, 8], [32, 1, 3, 3], [], [], [], [], [], [], []]",
                "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", \"Scalar\", "
                "\"Scalar\"]",
                NULL, "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"32\", \"False\", \"False\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 36864.0 && p.bytes == 17536.0);
}

/* conv1d (weak) with bias, bf16: x [4, 16, 100], w [32, 16, 5], bias [32], stride 2, pad 2:
 * o = (100 + 4 - 4 - 1)/2 + 1 = 50; out 4x32x50 = 6400; F = 2*80*6400 = 1024000; + bias 6400 = 1030400;
 * bytes = (6400 + 2560 + 6400 + 32) * 2 = 30784.
 * Unbatched x [16, 100]: N = 1, out 1x32x50 = 1600; flops 2*80*1600 + 1600 = 257600;
 * bytes = (1600 + 2560 + 1600 + 32) * 2 = 11584. */
static void test_conv1d(void) {
    const char *types = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", "
                        "\"ScalarList\", \"Scalar\"]";
    const char *conc = "[\"\", \"\", \"\", \"[2]\", \"[2]\", \"[1]\", \"1\"]";
    jv_desc d;
    char buf[64];
    CHECK(jv_conv_family.match("aten::conv1d") == JV_MATCH_WEAK);
    CHECK(parse("aten::conv1d", "[[4, 16, 100], [32, 16, 5], [32], [], [], [], []]", types, NULL, conc, &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(p.flops == 1030400.0 && p.bytes == 30784.0);
    EXPECT_STR(param(&d, "convNd", buf, sizeof buf), "conv1d");
    EXPECT_STR(param(&d, "stride", buf, sizeof buf), "(2,)");
    EXPECT_STR(param(&d, "output_padding", buf, sizeof buf), "(0,)");
    EXPECT_STR(param(&d, "transposed_conv", buf, sizeof buf), "False");

    CHECK(parse("aten::conv1d", "[[16, 100], [32, 16, 5], [32], [], [], [], []]", types, "[[100, 1], [80, 5, 1], [1]]",
                conc, &d) == JV_OK);
    p = model(&d);
    const jv_conv_desc *g = jv_conv_of(&d);
    CHECK(g->unbatched && g->x.ndim == 3 && g->n == 1 && g->out[2] == 50);
    CHECK(p.flops == 257600.0 && p.bytes == 11584.0);
    EXPECT_STR(param(&d, "input_shape", buf, sizeof buf), "(16, 100)");
    EXPECT_STR(param(&d, "input_stride", buf, sizeof buf), "(100, 1)");
    /* aten::convolution never sees an unbatched input: a 2-d x is refused */
    CHECK(parse("aten::convolution", "[[16, 100], [32, 16, 5], [], [], [], [], [], [], []]",
                "[\"c10::BFloat16\", \"c10::BFloat16\"]", NULL, NULL, &d) == JV_ERR_FORMAT);
}

/* conv3d through aten::convolution, fp32: x [2, 4, 8, 16, 16], w [8, 4, 3, 3, 3], stride [1, 2, 2], pad 1:
 * o = (8 + 2 - 2 - 1)/1 + 1 = 8, (16 + 2 - 2 - 1)/2 + 1 = 8, 8; out 2x8x8x8x8 = 8192;
 * F = 2*108*8192 = 1769472; bytes = (16384 + 864 + 8192) * 4 = 101760. */
static void test_conv3d(void) {
    jv_desc d;
    char buf[64];
    CHECK(parse("aten::convolution", "[[2, 4, 8, 16, 16], [8, 4, 3, 3, 3], [], [], [], [], [], [], []]",
                "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                "\"ScalarList\", \"Scalar\"]",
                NULL,
                "[\"\", \"\", \"\", \"[1, 2, 2]\", \"[1, 1, 1]\", \"[1, 1, 1]\", \"False\", \"[0, 0, 0]\", \"1\"]",
                &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(jv_conv_of(&d)->nd == 3);
    CHECK(p.flops == 1769472.0 && p.bytes == 101760.0);
    EXPECT_STR(param(&d, "convNd", buf, sizeof buf), "conv3d");
    EXPECT_STR(param(&d, "stride", buf, sizeof buf), "(1, 2, 2)");
    /* aten::conv3d (weak) with a single-int stride "2" repeated to all dims:
     * o = (8+2-3)/2+1 = 4, (16+2-3)/2+1 = 8 -> out 2x8x4x8x8 = 4096; F = 2*108*4096 = 884736 */
    CHECK(parse("aten::conv3d", "[[2, 4, 8, 16, 16], [8, 4, 3, 3, 3], [], [], [], [], []]",
                "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"2\", \"[1]\", \"1\", \"1\"]", &d) == JV_OK);
    CHECK(jv_conv_of(&d)->out[2] == 4 && model(&d).flops == 884736.0);
}

/* transposed, fp16, groups 2: x [2, 16, 8, 8], w [16, 8, 4, 4] (C_in, C_out/groups, k), bias [16],
 * stride 2, pad 1, output_padding 1: o = (8-1)*2 - 2 + 3 + 1 + 1 = 17; C_out = 8*2 = 16;
 * out 2x16x17x17 = 9248. F = 2*prod(w[1:])*prod(x) = 2*128*2048 = 524288 (TraceLens' formula);
 * flops = 524288 + 9248 = 533536; bytes = (2048 + 2048 + 9248 + 16) * 2 = 26720.
 * Backward, mask [True, True, True]: 2*524288 + 9248 = 1057824 flops;
 * bytes = 2 * (9248 + 2048 + 2048) * 2 + (9248 + 16) * 2 = 53376 + 18528 = 71904. */
static void test_transposed(void) {
    jv_desc d;
    char buf[64];
    const char *t9 = "[\"c10::Half\", \"c10::Half\", \"c10::Half\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
                     "\"Scalar\", \"ScalarList\", \"Scalar\"]";
    CHECK(parse("aten::convolution", "[[2, 16, 8, 8], [16, 8, 4, 4], [16], [], [], [], [], [], []]", t9, NULL,
                "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"True\", \"[1, 1]\", \"2\"]", &d) == JV_OK);
    const jv_conv_desc *g = jv_conv_of(&d);
    jv_perf p = model(&d);
    CHECK(g->transposed && g->c_out == 16 && g->out[1] == 16 && g->out[2] == 17 && g->out[3] == 17);
    CHECK(p.flops == 533536.0 && p.bytes == 26720.0);
    EXPECT_STR(param(&d, "transposed_conv", buf, sizeof buf), "True");
    EXPECT_STR(param(&d, "output_padding", buf, sizeof buf), "(1, 1)");

    /* aten::conv_transpose2d (weak): input, weight, bias, stride, padding, output_padding, groups, dilation */
    CHECK(parse("aten::conv_transpose2d", "[[2, 16, 8, 8], [16, 8, 4, 4], [16], [], [], [], [], []]",
                "[\"c10::Half\", \"c10::Half\", \"c10::Half\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
                "\"Scalar\", \"ScalarList\"]",
                NULL, "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"2\", \"[1, 1]\"]", &d) == JV_OK);
    p = model(&d);
    CHECK(jv_conv_of(&d)->transposed && p.flops == 533536.0 && p.bytes == 26720.0);

    /* aten::cudnn_convolution_transpose (weak, no bias): self, weight, padding, output_padding, stride,
     * dilation, groups, benchmark, deterministic, allow_tf32: flops 524288, bytes 26688 */
    CHECK(parse("aten::cudnn_convolution_transpose", "[[2, 16, 8, 8], [16, 8, 4, 4], [], [], [], [], [], [], [], []]",
                "[\"c10::Half\", \"c10::Half\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
                "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                NULL,
                "[\"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[2, 2]\", \"[1, 1]\", \"2\", \"False\", \"False\", \"True\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK(jv_conv_of(&d)->out[2] == 17 && p.flops == 524288.0 && p.bytes == 26688.0);

    CHECK(parse("aten::convolution_backward",
                "[[2, 16, 17, 17], [2, 16, 8, 8], [16, 8, 4, 4], [], [], [], [], [], [], [], []]",
                "[\"c10::Half\", \"c10::Half\", \"c10::Half\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
                "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
                NULL,
                "[\"\", \"\", \"\", \"[16]\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"True\", \"[1, 1]\", \"2\", "
                "\"[True, True, True]\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK(d.bwd == 1 && p.flops == 1057824.0 && p.bytes == 71904.0);

    /* output_padding must be smaller than stride or dilation */
    CHECK(parse("aten::convolution", "[[2, 16, 8, 8], [16, 8, 4, 4], [16], [], [], [], [], [], []]", t9, NULL,
                "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"True\", \"[2, 2]\", \"2\"]",
                &d) == JV_ERR_FORMAT);
    /* transposed weight[0] must equal C_in */
    CHECK(parse("aten::convolution", "[[2, 16, 8, 8], [8, 16, 4, 4], [], [], [], [], [], [], []]", t9, NULL,
                "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"True\", \"[0, 0]\", \"1\"]",
                &d) == JV_ERR_FORMAT);
}

/* String padding (conv2d.padding / _convolution_mode), fp32:
 * "same": x [1, 8, 10, 10], w [8, 8, 4, 4]: d*(k-1) = 3, left pad 1, out = in = 10x10;
 *   F = 2*128*800 = 204800; bytes = (800 + 1024 + 800) * 4 = 10496.
 * "valid": w [8, 8, 3, 3]: out 8x8 = 512 per channel; F = 2*72*512 = 73728. */
static void test_string_padding(void) {
    const char *types = "[\"float\", \"float\", \"\", \"ScalarList\", \"String\", \"ScalarList\", \"Scalar\"]";
    jv_desc d;
    char buf[64];
    CHECK(parse("aten::conv2d", "[[1, 8, 10, 10], [8, 8, 4, 4], [], [], [], [], []]", types, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"same\", \"[1, 1]\", \"1\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(jv_conv_of(&d)->pad_mode == JV_CONV_PAD_SAME && jv_conv_of(&d)->out[3] == 10);
    CHECK(p.flops == 204800.0 && p.bytes == 10496.0);
    EXPECT_STR(param(&d, "padding", buf, sizeof buf), "(1, 1)");
    CHECK(parse("aten::_convolution_mode", "[[1, 8, 10, 10], [8, 8, 3, 3], [], [], [], [], []]", types, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"'valid'\", \"[1, 1]\", \"1\"]", &d) == JV_OK);
    CHECK(jv_conv_of(&d)->out[2] == 8 && model(&d).flops == 73728.0);
    /* "same" with a stride is refused (PyTorch refuses it too) */
    CHECK(parse("aten::conv2d", "[[1, 8, 10, 10], [8, 8, 4, 4], [], [], [], [], []]", types, NULL,
                "[\"\", \"\", \"\", \"[2, 2]\", \"same\", \"[1, 1]\", \"1\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::conv2d", "[[1, 8, 10, 10], [8, 8, 4, 4], [], [], [], [], []]", types, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"sometimes\", \"[1, 1]\", \"1\"]", &d) == JV_ERR_FORMAT);
}

/* Unknown dtypes give NaN bytes but keep flops; mixed dtypes count each tensor at its size:
 * x fp32 [1, 4, 4, 4], w bf16 [4, 4, 1, 1]: out 1x4x4x4 = 64; F = 2*4*64 = 512;
 * bytes = 64*4 + 16*2 + 64*4 = 544. */
static void test_dtypes(void) {
    jv_desc d;
    char buf[96];
    CHECK(parse("aten::convolution", "[[1, 4, 4, 4], [4, 4, 1, 1], [], [], [], [], [], [], []]",
                "[\"float\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                "\"ScalarList\", \"Scalar\"]",
                NULL, "[\"\", \"\", \"\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
                &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(p.flops == 512.0 && p.bytes == 544.0 && p.dtype == JV_DT_F32);
    EXPECT_STR(param(&d, "dtype_input_weight", buf, sizeof buf), "('float', 'c10::BFloat16')");
    CHECK(parse("aten::convolution", "[[1, 4, 4, 4], [4, 4, 1, 1], [], [], [], [], [], [], []]",
                "[\"mystery\", \"mystery\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                "\"ScalarList\", \"Scalar\"]",
                NULL, "[\"\", \"\", \"\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK(p.flops == 512.0 && isnan(p.bytes));
    EXPECT_STR(param(&d, "dtype_input_weight", buf, sizeof buf), "(None, None)");
}

static void test_match(void) {
    CHECK(jv_conv_family.match("aten::convolution") == JV_MATCH_STRONG);
    CHECK(jv_conv_family.match("aten::convolution_backward") == JV_MATCH_STRONG);
    CHECK(jv_conv_family.match("aten::conv2d") == JV_MATCH_WEAK);
    CHECK(jv_conv_family.match("aten::conv_transpose3d") == JV_MATCH_WEAK);
    CHECK(jv_conv_family.match("aten::cudnn_convolution") == JV_MATCH_WEAK);
    CHECK(jv_conv_family.match("aten::miopen_convolution") == JV_MATCH_WEAK);
    CHECK(jv_conv_family.match("aten::cudnn_convolution_backward") == JV_MATCH_NONE);
    CHECK(jv_conv_family.match("aten::mm") == JV_MATCH_NONE);
    CHECK(jv_conv_family.match("") == JV_MATCH_NONE);
    CHECK(jv_conv_family.split == 1 && !strcmp(jv_conv_family.sheet, "CONV") &&
          !strcmp(jv_conv_family.category, "CONV"));
}

/* Hostile calls: JV_ERR_FORMAT (or NOTFOUND for a foreign name), never a crash. */
static void test_hostile(void) {
    const char *t9 = "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                     "\"ScalarList\", \"Scalar\"]";
    const char *ok_c = "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]";
    const char *d_ok = "[[2, 4, 8, 8], [8, 4, 3, 3], [], [], [], [], [], [], []]";
    jv_desc d;
    CHECK(parse("aten::convolution", d_ok, t9, NULL, ok_c, &d) == JV_OK);
    /* missing args */
    CHECK(parse("aten::convolution", NULL, NULL, NULL, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", "[]", "[]", "[]", "[]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", "[[2, 4, 8, 8]]", "[\"float\"]", NULL, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution_backward", "[[2, 8, 8, 8]]", "[\"float\"]", NULL, NULL, &d) == JV_ERR_FORMAT);
    /* weight recorded as a scalar, input as a tensor list */
    CHECK(parse("aten::convolution", "[[2, 4, 8, 8], [], [], [], [], [], [], [], []]",
                "[\"float\", \"Scalar\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                "\"ScalarList\", \"Scalar\"]",
                NULL, ok_c, &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", "[[[2, 4, 8, 8]], [8, 4, 3, 3], [], [], [], [], [], [], []]",
                "[\"TensorList\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                "\"ScalarList\", \"Scalar\"]",
                NULL, ok_c, &d) == JV_ERR_FORMAT);
    /* negative and absurd dims */
    CHECK(parse("aten::convolution", "[[-2, 4, 8, 8], [8, 4, 3, 3], [], [], [], [], [], [], []]", t9, NULL, ok_c, &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", "[[2, 4, 8, 8], [8, 4, -3, 3], [], [], [], [], [], [], []]", t9, NULL, ok_c, &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", "[[2, 4, 1e18, 8], [8, 4, 3, 3], [], [], [], [], [], [], []]", t9, NULL, ok_c,
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", "[[2, 4, 8, 8], [8, 4, 0, 3], [], [], [], [], [], [], []]", t9, NULL, ok_c, &d) ==
          JV_ERR_FORMAT);
    /* ranks: 2-d, 6-d, mismatched */
    CHECK(parse("aten::convolution", "[[2, 4], [8, 4], [], [], [], [], [], [], []]", t9, NULL, ok_c, &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", "[[2, 4, 8, 8, 8, 8], [8, 4, 3, 3, 3, 3], [], [], [], [], [], [], []]", t9, NULL,
                "[\"\", \"\", \"\", \"[1]\", \"[1]\", \"[1]\", \"False\", \"[0]\", \"1\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", "[[2, 4, 8, 8], [8, 4, 3], [], [], [], [], [], [], []]", t9, NULL, ok_c, &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::conv3d", "[[2, 4, 8, 8], [8, 4, 3, 3], [], [], [], [], []]", t9, NULL, NULL, &d) ==
          JV_ERR_FORMAT);
    /* channels and groups */
    CHECK(parse("aten::convolution", "[[2, 5, 8, 8], [8, 4, 3, 3], [], [], [], [], [], [], []]", t9, NULL, ok_c, &d) ==
          JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", d_ok, t9, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"0\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", d_ok, t9, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"-4\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", d_ok, t9, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"two\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", "[[2, 8, 8, 8], [6, 4, 3, 3], [], [], [], [], [], [], []]", t9, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"2\"]", &d) == JV_OK);
    CHECK(parse("aten::convolution", "[[2, 12, 8, 8], [8, 4, 3, 3], [], [], [], [], [], [], []]", t9, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"3\"]",
                &d) == JV_ERR_FORMAT); /* C_out 8 not divisible by groups 3 */
    /* stride, dilation, padding */
    CHECK(parse("aten::convolution", d_ok, t9, NULL,
                "[\"\", \"\", \"\", \"[0, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", d_ok, t9, NULL,
                "[\"\", \"\", \"\", \"[-1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", d_ok, t9, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[0, 1]\", \"False\", \"[0, 0]\", \"1\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", d_ok, t9, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[-1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", d_ok, t9, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", d_ok, t9, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[1, x]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", d_ok, t9, NULL,
                "[\"\", \"\", \"\", \"[1000000000000000, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(
        parse("aten::convolution", d_ok, t9, NULL,
              "[\"\", \"\", \"\", \"[1, 1]\", \"[9223372036854775807, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
              &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution", d_ok, t9, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"maybe\", \"[0, 0]\", \"1\"]",
                &d) == JV_ERR_FORMAT);
    /* kernel larger than the padded input (TraceLens would report an output of 1) */
    CHECK(parse("aten::convolution", "[[1, 1, 2, 2], [1, 1, 5, 5], [], [], [], [], [], [], []]", t9, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
                &d) == JV_ERR_FORMAT);
    /* transposed with an empty input gives an output below 1 */
    CHECK(parse("aten::convolution", "[[1, 1, 0, 2], [1, 1, 1, 1], [], [], [], [], [], [], []]", t9, NULL,
                "[\"\", \"\", \"\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"True\", \"[0, 0]\", \"1\"]",
                &d) == JV_ERR_FORMAT);
    /* bias of the wrong size */
    CHECK(parse("aten::convolution", "[[2, 4, 8, 8], [8, 4, 3, 3], [7], [], [], [], [], [], []]",
                "[\"float\", \"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                "\"ScalarList\", \"Scalar\"]",
                NULL, ok_c, &d) == JV_ERR_FORMAT);
    /* backward: grad_out of the wrong shape, bad output_mask */
    const char *tb = "[\"float\", \"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
                     "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]";
    CHECK(parse("aten::convolution_backward",
                "[[2, 8, 8, 8], [2, 4, 8, 8], [8, 4, 3, 3], [], [], [], [], [], [], [], []]", tb, NULL,
                "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
                "\"[True, True, False]\"]",
                &d) == JV_OK);
    CHECK(parse("aten::convolution_backward",
                "[[2, 8, 7, 8], [2, 4, 8, 8], [8, 4, 3, 3], [], [], [], [], [], [], [], []]", tb, NULL,
                "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
                "\"[True, True, False]\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution_backward",
                "[[2, 8, 8, 8], [2, 4, 8, 8], [8, 4, 3, 3], [], [], [], [], [], [], [], []]", tb, NULL,
                "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
                "\"[True]\"]",
                &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::convolution_backward",
                "[[2, 8, 8, 8], [2, 4, 8, 8], [8, 4, 3, 3], [], [], [], [], [], [], [], []]", tb, NULL,
                "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
                "\"[True, yes, False]\"]",
                &d) == JV_ERR_FORMAT);
    /* backward without grad_out still models from x, w and the params (mask [T, T, F]):
     * out 2x8x8x8 = 1024; F = 2*36*1024 = 73728; 2F = 147456; bytes 2*(1024 + 288 + 512)*4 = 14592 */
    CHECK(parse("aten::convolution_backward", "[[], [2, 4, 8, 8], [8, 4, 3, 3], [], [], [], [], [], [], [], []]",
                "[\"\", \"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
                "\"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
                NULL,
                "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
                "\"[True, True, False]\"]",
                &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(!jv_conv_of(&d)->has_grad_out && p.flops == 147456.0 && p.bytes == 14592.0);
    /* bad backend flag */
    CHECK(parse("aten::cudnn_convolution", "[[2, 4, 8, 8], [8, 4, 3, 3], [], [], [], [], [], [], []]",
                "[\"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", \"Scalar\", "
                "\"Scalar\", \"Scalar\"]",
                NULL, "[\"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"1\", \"False\", \"False\", \"perhaps\"]",
                &d) == JV_ERR_FORMAT);
    /* unbatched conv1d with absurd strides: no overflow */
    CHECK(parse("aten::conv1d", "[[16, 100], [32, 16, 5], [], [], [], [], []]", "[\"float\", \"float\"]",
                "[[9000000000000000000, 9000000000000000000], [80, 5, 1]]", NULL, &d) == JV_OK);
    CHECK(jv_conv_of(&d)->unbatched && jv_conv_of(&d)->x.strides[0] == 1);
    /* not a conv */
    CHECK(parse("aten::mm", d_ok, t9, NULL, ok_c, &d) == JV_ERR_NOTFOUND);
    /* a zero batch is a valid (empty) conv: flops 0, bytes = weight only = 288*4 */
    CHECK(parse("aten::convolution", "[[0, 4, 8, 8], [8, 4, 3, 3], [], [], [], [], [], [], []]", t9, NULL, ok_c, &d) ==
          JV_OK);
    p = model(&d);
    CHECK(p.flops == 0.0 && p.bytes == 1152.0);
}
int main(void) {
    test_resnet_bwd_by_hand();
    test_first_layer_bwd();
    test_nsfw_bias();
    test_channels_last();
    test_grouped_dilated();
    test_conv1d();
    test_conv3d();
    test_transposed();
    test_string_padding();
    test_dtypes();
    test_match();
    test_hostile();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

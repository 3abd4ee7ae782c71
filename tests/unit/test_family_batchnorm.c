/* Unit tests of the batchnorm family: hand-computed FLOPs/bytes for calls
 * as traces record them (rows of the TraceLens reference CSVs
 * amd_mi300x_resnet18_train and amd_mi300x_normalization_layers), eval vs
 * training, the output mask, channels_last detection, params, hostile calls. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "batchnorm/batchnorm.h"

#define JV_TEST_FAMILY     jv_batchnorm_family
#define JV_TEST_NEAR_FLOOR 1.0
#include "jv_test_family.h"

/* resnet18 (512, 64, 56, 56) bf16, NCHW */
#define R18_FWD_DIMS "[[512, 64, 56, 56], [64], [64], [64], [64], [], [], []]"
#define R18_FWD_TYPES                                                                                                  \
    "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", "     \
    "\"Scalar\", \"Scalar\"]"
#define R18_FWD_STRIDES "[[200704, 3136, 56, 1], [1], [1], [1], [1], [], [], []]"
#define R18_N           102760448.0 /* 512*64*56*56 */

static void test_resnet18_forward(void) {
    jv_desc d;
    /* resnet18 aten::native_batch_norm row, training "True" */
    CHECK(parse("aten::native_batch_norm", R18_FWD_DIMS, R18_FWD_TYPES, R18_FWD_STRIDES,
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.10000000000000001\", \"1.0000000000000001e-05\"]",
                &d) == JV_OK);
    const jv_batchnorm_desc *g = jv_batchnorm_of(&d);
    CHECK(d.bwd == 0);
    CHECK(g->op == JV_BN_NATIVE && g->impl == JV_BN_IMPL_NATIVE);
    CHECK(g->c == 64 && g->n == 102760448);
    CHECK(g->training == 1);
    CHECK_NEAR(g->momentum, 0.1);
    CHECK_NEAR(g->eps, 1e-5);
    CHECK(g->has_weight && g->has_bias && g->has_running);
    CHECK(g->param_dtype == JV_DT_BF16 && g->stat_dtype == JV_DT_F32);
    CHECK(g->layout == JV_LAYOUT_CONTIGUOUS);
    jv_perf p = model(&d);
    /* flops = 5N + 6C = 513802240 + 384 = 513802624 (TraceLens GFLOPS_first 0.513802624: same) */
    CHECK_NEAR(p.flops, 5 * R18_N + 6 * 64);
    CHECK_NEAR(p.flops, 513802624.0);
    /* bytes = 3N*2 + weight 64*2 + bias 64*2 + running 4*64*2 + saved 2*64*4
     *       = 616562688 + 128 + 128 + 512 + 512 = 616563968
     * (TraceLens 392.000732421875 MiB = 411042560: 2N*2 + 6*64*2, no statistics pass) */
    CHECK_NEAR(p.bytes, 616563968.0);
    CHECK(p.dtype == JV_DT_BF16 && p.matrix == 0);
    CHECK(!strcmp(param(&d, "op_shape"), "(512, 64, 56, 56)"));
    CHECK(!strcmp(param(&d, "dtype_in_out"), "('c10::BFloat16', None)"));
    CHECK(!strcmp(param(&d, "stride_input"), "(200704, 3136, 56, 1)"));
    CHECK(!strcmp(param(&d, "stride_output"), "None"));
    CHECK(!strcmp(param(&d, "num_channels"), "64"));
    CHECK(!strcmp(param(&d, "has_bias"), "True"));
    CHECK(!strcmp(param(&d, "is_affine"), "True"));
    CHECK(!strcmp(param(&d, "is_training"), "True"));
    CHECK(!strcmp(param(&d, "output_mask"), "None")); /* TraceLens: nan */

    /* the outer aten::batch_norm row (9 args, cudnn_enabled last): same model */
    CHECK(parse("aten::batch_norm", "[[512, 64, 56, 56], [64], [64], [64], [64], [], [], [], []]",
                "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
                "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[200704, 3136, 56, 1], [1], [1], [1], [1], [], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.10000000000000001\", \"1.0000000000000001e-05\", "
                "\"True\"]",
                &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->impl == JV_BN_IMPL_ANY);
    p = model(&d);
    CHECK_NEAR(p.flops, 513802624.0);
    CHECK_NEAR(p.bytes, 616563968.0);

    /* resnet18 aten::batch_norm (512, 128, 28, 28): N = 51380224, C = 128
     * flops = 5N + 6C = 256901120 + 768 = 256901888 (TraceLens 0.256901888 GFLOPS: same)
     * bytes = 3N*2 + 128*2*2 + 4*128*2 + 2*128*4 = 308281344 + 512 + 1024 + 1024 = 308283904
     * (TraceLens 196.00146484375 MiB = 205522432) */
    CHECK(parse("aten::batch_norm", "[[512, 128, 28, 28], [128], [128], [128], [128], [], [], [], []]",
                "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
                "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[100352, 784, 28, 1], [1], [1], [1], [1], [], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.10000000000000001\", \"1.0000000000000001e-05\", "
                "\"True\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 256901888.0);
    CHECK_NEAR(p.bytes, 308283904.0);
}

static void test_eval_vs_training(void) {
    jv_desc d;
    /* the resnet18 row with training "False" (TraceLens reads bool("False") = True and would give the
     * training numbers 0.513802624 GFLOPS, 392.000732421875 MiB) */
    CHECK(parse("aten::native_batch_norm", R18_FWD_DIMS, R18_FWD_TYPES, R18_FWD_STRIDES,
                "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.10000000000000001\", \"1.0000000000000001e-05\"]",
                &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->training == 0);
    CHECK(!strcmp(param(&d, "is_training"), "False"));
    jv_perf p = model(&d);
    /* flops = 2N + 6C = 205520896 + 384 = 205521280 */
    CHECK_NEAR(p.flops, 205521280.0);
    /* bytes = 2N*2 + 64*2 + 64*2 + running read 2*64*2 = 411041792 + 128 + 128 + 256 = 411042304 */
    CHECK_NEAR(p.bytes, 411042304.0);

    /* _native_batch_norm_legit_no_training (x, w, b, rm, rv, momentum, eps) is eval by name:
     * (8,16,32,32) fp32, N = 131072, C = 16: bytes = 2N*4 + 16*4 + 16*4 + 2*16*4 = 1048576 + 256 = 1048832,
     * flops = 2N + 96 = 262240 */
    CHECK(parse("aten::_native_batch_norm_legit_no_training", "[[8, 16, 32, 32], [16], [16], [16], [16], [], []]",
                "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]",
                "[[16384, 1024, 32, 1], [1], [1], [1], [1], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"0.10000000000000001\", \"1.0000000000000001e-05\"]", &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->training == 0);
    p = model(&d);
    CHECK_NEAR(p.bytes, 1048832.0);
    CHECK_NEAR(p.flops, 262240.0);

    /* _native_batch_norm_legit, no_stats overload (x, w, b, training, momentum, eps): training without running
     * statistics: bytes = 3N*4 + 64 + 64 + saved 2*16*4 = 1572864 + 256 = 1573120; flops = 5N + 96 = 655456 */
    CHECK(parse("aten::_native_batch_norm_legit", "[[8, 16, 32, 32], [16], [16], [], [], []]",
                "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[16384, 1024, 32, 1], [1], [1], [], [], []]", "[\"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]",
                &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->training == 1 && !jv_batchnorm_of(&d)->has_running);
    CHECK_NEAR(jv_batchnorm_of(&d)->momentum, 0.1);
    p = model(&d);
    CHECK_NEAR(p.bytes, 1573120.0);
    CHECK_NEAR(p.flops, 655456.0);

    /* _native_batch_norm_legit with running stats (8 args), training: as native_batch_norm */
    CHECK(parse("aten::_native_batch_norm_legit", "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], []]",
                "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[16384, 1024, 32, 1], [1], [1], [1], [1], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]", &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->has_running);
    p = model(&d);
    /* 1572864 + 64 + 64 + 4*16*4 + 2*16*4 = 1573376 */
    CHECK_NEAR(p.bytes, 1573376.0);

    /* _batch_norm_with_update (x, w, b, rm, rv, momentum, eps) is training, _batch_norm_no_update eval:
     * the numbers of the two native_batch_norm calls above (1573376 and 1048832 bytes) */
    const char *upd_dims = "[[8, 16, 32, 32], [16], [16], [16], [16], [], []]";
    const char *upd_types = "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]";
    CHECK(parse("aten::_batch_norm_with_update", upd_dims, upd_types, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"0.1\", \"1e-05\"]", &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->training == 1 && jv_batchnorm_of(&d)->op == JV_BN_WITH_UPDATE);
    CHECK_NEAR(model(&d).bytes, 1573376.0);
    CHECK(parse("aten::_batch_norm_no_update", upd_dims, upd_types, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"0.1\", \"1e-05\"]", &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->training == 0);
    CHECK_NEAR(model(&d).bytes, 1048832.0);
    CHECK_NEAR(model(&d).flops, 262240.0);

    /* cudnn_batch_norm eval, fp16 x with fp32 parameters (32, 256, 14, 14): N = 1605632, C = 256
     * bytes = 2N*2 + 256*4 + 256*4 + 2*256*4 = 6422528 + 1024 + 1024 + 2048 = 6426624
     * flops = 2N + 6C = 3211264 + 1536 = 3212800 */
    CHECK(parse("aten::cudnn_batch_norm", "[[32, 256, 14, 14], [256], [256], [256], [256], [], [], []]",
                "[\"c10::Half\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[50176, 196, 14, 1], [1], [1], [1], [1], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]", &d) == JV_OK);
    const jv_batchnorm_desc *g = jv_batchnorm_of(&d);
    CHECK(g->impl == JV_BN_IMPL_CUDNN && g->param_dtype == JV_DT_F32 && g->x.dtype == JV_DT_F16);
    p = model(&d);
    CHECK_NEAR(p.bytes, 6426624.0);
    CHECK_NEAR(p.flops, 3212800.0);
    CHECK(p.dtype == JV_DT_F16);
}

static void test_normalization_layers_forward(void) {
    jv_desc d;
    /* amd_mi300x_normalization_layers aten::batch_norm (8,16,32,32) fp32 training, all params:
     * N = 131072, C = 16. flops = 5N + 6C = 655360 + 96 = 655456 (TraceLens 0.000655456 GFLOPS: same)
     * bytes = 3N*4 + 16*4 + 16*4 + 4*16*4 + 2*16*4 = 1572864 + 64 + 64 + 256 + 128 = 1573376
     * (TraceLens 1.0003662109375 MiB = 1048960) */
    CHECK(parse("aten::batch_norm", "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], [], []]",
                "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\", "
                "\"Scalar\"]",
                "[[16384, 1024, 32, 1], [1], [1], [1], [1], [], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.10000000000000001\", \"1.0000000000000001e-05\", "
                "\"True\"]",
                &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 655456.0);
    CHECK_NEAR(p.bytes, 1573376.0);
    CHECK(!strcmp(param(&d, "dtype_in_out"), "('float', None)"));

    /* aten::native_batch_norm (1,128,32,32) fp32 with no weight, bias or running stats (affine False):
     * N = 131072, C = 128. flops = 5N + 6C = 655360 + 768 = 656128 (TraceLens 0.000656128: same)
     * bytes = 3N*4 + saved 2*128*4 = 1572864 + 1024 = 1573888 (TraceLens 1.0029296875 MiB = 1051648) */
    CHECK(parse("aten::native_batch_norm", "[[1, 128, 32, 32], [], [], [], [], [], [], []]",
                "[\"float\", \"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[131072, 1024, 32, 1], [], [], [], [], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.10000000000000001\", \"1.0000000000000001e-05\"]",
                &d) == JV_OK);
    const jv_batchnorm_desc *g = jv_batchnorm_of(&d);
    CHECK(!g->has_weight && !g->has_bias && !g->has_running);
    CHECK(g->param_dtype == JV_DT_F32);
    p = model(&d);
    CHECK_NEAR(p.flops, 656128.0);
    CHECK_NEAR(p.bytes, 1573888.0);
    CHECK(!strcmp(param(&d, "is_affine"), "False")); /* TraceLens: True */
    CHECK(!strcmp(param(&d, "has_bias"), "False"));  /* TraceLens: True */
    CHECK(!strcmp(param(&d, "num_channels"), "128"));

    /* aten::miopen_batch_norm (1,128,32,32) fp32, weight and bias but no running stats:
     * bytes = 1572864 + 128*4 + 128*4 + 1024 = 1574912; flops 656128 (TraceLens 0.000656128) */
    CHECK(parse("aten::miopen_batch_norm", "[[1, 128, 32, 32], [128], [128], [], [], [], [], []]",
                "[\"float\", \"float\", \"float\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[131072, 1024, 32, 1], [1], [1], [], [], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.10000000000000001\", \"1.0000000000000001e-05\"]",
                &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->impl == JV_BN_IMPL_MIOPEN);
    p = model(&d);
    CHECK_NEAR(p.bytes, 1574912.0);
    CHECK_NEAR(p.flops, 656128.0);
}

static void test_backward(void) {
    jv_desc d;
    /* resnet18 aten::native_batch_norm_backward (512,64,56,56) bf16, training, mask [True, True, True];
     * weight/running bf16, save_mean/save_invstd float.
     * flops = 4N + 5N = 9N = 924844032 (TraceLens 0.924844032 GFLOPS: same)
     * bytes = 2N*(2+2) + N*2 = 10N = 1027604480, + weight 64*2 + saved 2*64*4 + grads 2*64*2
     *       = 1027604480 + 128 + 512 + 256 = 1027605376 (TraceLens 588.00048828125 MiB = 616563200) */
    CHECK(parse("aten::native_batch_norm_backward",
                "[[512, 64, 56, 56], [512, 64, 56, 56], [64], [64], [64], [64], [64], [], [], []]",
                "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
                "\"float\", \"float\", \"Scalar\", \"Scalar\", \"ScalarList\"]",
                "[[200704, 3136, 56, 1], [200704, 3136, 56, 1], [1], [1], [1], [1], [1], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1.0000000000000001e-05\", "
                "\"[True, True, True]\"]",
                &d) == JV_OK);
    const jv_batchnorm_desc *g = jv_batchnorm_of(&d);
    CHECK(d.bwd == 1 && g->bwd == 1);
    CHECK(g->training && g->has_saved && g->stat_dtype == JV_DT_F32 && g->param_dtype == JV_DT_BF16);
    CHECK(g->output_mask[0] && g->output_mask[1] && g->output_mask[2]);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 924844032.0);
    CHECK_NEAR(p.bytes, 1027605376.0);
    CHECK(!strcmp(param(&d, "output_mask"), "[True, True, True]")); /* TraceLens: [True] */
    CHECK(!strcmp(param(&d, "has_bias"), "True"));
    CHECK(!strcmp(param(&d, "is_training"), "True"));

    /* normalization_layers native_batch_norm_backward (8,16,32,32) fp32, no weight, mask [True, False, False]:
     * flops = 9N = 1179648 (TraceLens 0.001179648: same)
     * bytes = 2N*8 + N*4 = 20N = 2621440 + saved 2*16*4 = 2621568 (TraceLens 1.500244140625 MiB = 1573120) */
    CHECK(parse("aten::native_batch_norm_backward",
                "[[8, 16, 32, 32], [8, 16, 32, 32], [], [16], [16], [16], [16], [], [], []]",
                "[\"float\", \"float\", \"\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", "
                "\"ScalarList\"]",
                "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [], [1], [1], [1], [1], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1.0000000000000001e-05\", "
                "\"[True, False, False]\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 1179648.0);
    CHECK_NEAR(p.bytes, 2621568.0);
    CHECK(!strcmp(param(&d, "output_mask"), "[True, False, False]"));
    CHECK(!strcmp(param(&d, "is_affine"), "False"));
    CHECK(!strcmp(param(&d, "has_bias"), "False"));

    /* normalization_layers miopen_batch_norm_backward (8,16,32,32) fp32 (input, grad_output, weight, rm, rv,
     * save_mean, save_var, eps): a training op with all three grads.
     * flops = 9N = 1179648 (TraceLens models it as eval: 0.000524336 GFLOPS = 4N + 3C)
     * bytes = 20N + weight 64 + saved 128 + grads 2*64 = 2621440 + 320 = 2621760
     * (TraceLens 1.00006103515625 MiB = 1048640) */
    CHECK(parse("aten::miopen_batch_norm_backward",
                "[[8, 16, 32, 32], [8, 16, 32, 32], [16], [16], [16], [16], [16], []]",
                "[\"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\"]",
                "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [1], [1], [1], [1], [1], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1.0000000000000001e-05\"]", &d) == JV_OK);
    g = jv_batchnorm_of(&d);
    CHECK(g->training == 1 && g->impl == JV_BN_IMPL_MIOPEN && d.bwd == 1);
    CHECK_NEAR(g->eps, 1e-5);
    p = model(&d);
    CHECK_NEAR(p.flops, 1179648.0);
    CHECK_NEAR(p.bytes, 2621760.0);
    CHECK(!strcmp(param(&d, "is_training"), "True")); /* TraceLens: False */
    CHECK(!strcmp(param(&d, "output_mask"), "[True, True, True]"));

    /* cudnn_batch_norm_backward, same layout plus reserveSpace: same numbers */
    CHECK(parse("aten::cudnn_batch_norm_backward",
                "[[8, 16, 32, 32], [8, 16, 32, 32], [16], [16], [16], [16], [16], [], [0]]",
                "[\"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", "
                "\"unsigned char\"]",
                "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [1], [1], [1], [1], [1], [], [1]]",
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1.0000000000000001e-05\", \"\"]", &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->impl == JV_BN_IMPL_CUDNN);
    p = model(&d);
    CHECK_NEAR(p.bytes, 2621760.0);

    /* batch_norm_backward eval (update False), (8,16,32,32) fp32, mask [True, True, True]:
     * one pass: dy read N*4, x read N*4 (grad_weight), dx written N*4 = 12N = 1572864,
     * + weight 64 + running read 2*16*4 = 128 + grads 2*16*4 = 128 -> 1573184
     * flops = 4N (reductions) + 1N (dx = dy*scale) = 655360 */
    const char *bwd_dims = "[[8, 16, 32, 32], [8, 16, 32, 32], [16], [16], [16], [16], [16], [], [], [], [0]]";
    const char *bwd_types = "[\"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", "
                            "\"Scalar\", \"ScalarList\", \"unsigned char\"]";
    CHECK(parse("aten::batch_norm_backward", bwd_dims, bwd_types, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"False\", \"1e-05\", \"[True, True, True]\", \"\"]",
                &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->training == 0 && jv_batchnorm_of(&d)->impl == JV_BN_IMPL_ANY);
    p = model(&d);
    CHECK_NEAR(p.bytes, 1573184.0);
    CHECK_NEAR(p.flops, 655360.0);
    CHECK(!strcmp(param(&d, "stride_input"), "None")); /* no strides recorded */

    /* eval, mask [True, False, False]: dy read + dx written = 8N = 1048576, + weight 64 + running 128 = 1048768;
     * flops = N = 131072 */
    CHECK(parse("aten::batch_norm_backward", bwd_dims, bwd_types, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"False\", \"1e-05\", \"[True, False, False]\", \"\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.bytes, 1048768.0);
    CHECK_NEAR(p.flops, 131072.0);

    /* training, mask [False, True, True] (no grad_input): x and dy read once = 8N = 1048576,
     * + saved 128 + grads 128 = 1048832; flops = 4N = 524288 */
    CHECK(parse("aten::batch_norm_backward", bwd_dims, bwd_types, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[False, True, True]\", \"\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.bytes, 1048832.0);
    CHECK_NEAR(p.flops, 524288.0);

    /* training, mask [False, False, True]: dy read = 4N = 524288 + saved 128 + grad_bias 64 = 524480; flops N */
    CHECK(parse("aten::batch_norm_backward", bwd_dims, bwd_types, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[False, False, True]\", \"\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.bytes, 524480.0);
    CHECK_NEAR(p.flops, 131072.0);

    /* the output_mask absent: all three grads */
    CHECK(parse("aten::native_batch_norm_backward", bwd_dims, bwd_types, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\"]", &d) == JV_OK);
    g = jv_batchnorm_of(&d);
    CHECK(g->output_mask[0] && g->output_mask[1] && g->output_mask[2]);
}

static void test_layout(void) {
    jv_desc d;
    /* channels_last (512, 64, 56, 56): strides (H*W*C, 1, W*C, C) = (200704, 1, 3584, 64) */
    CHECK(parse("aten::native_batch_norm", R18_FWD_DIMS, R18_FWD_TYPES,
                "[[200704, 1, 3584, 64], [1], [1], [1], [1], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]", &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->layout == JV_LAYOUT_CHANNELS_LAST);
    CHECK(!strcmp(param(&d, "stride_input"), "(200704, 1, 3584, 64)"));
    /* the model does not depend on the layout */
    CHECK_NEAR(model(&d).bytes, 616563968.0);
    /* (N, C) BatchNorm1d input: C = shape[1] */
    CHECK(parse("aten::native_batch_norm", "[[256, 1024], [1024], [1024], [1024], [1024], [], [], []]",
                "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[1024, 1], [1], [1], [1], [1], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]", &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->c == 1024 && jv_batchnorm_of(&d)->layout == JV_LAYOUT_CONTIGUOUS);
}

static void test_params_same_names(void) {
    jv_desc f, b;
    CHECK(parse("aten::native_batch_norm", R18_FWD_DIMS, R18_FWD_TYPES, R18_FWD_STRIDES,
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]", &f) == JV_OK);
    CHECK(parse("aten::miopen_batch_norm_backward",
                "[[8, 16, 32, 32], [8, 16, 32, 32], [16], [16], [16], [16], [16], []]",
                "[\"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1e-05\"]", &b) == JV_OK);
    jv_params pf = {0}, pb = {0};
    jv_batchnorm_family.params(&f, &pf);
    jv_batchnorm_family.params(&b, &pb);
    static const char *const NAMES[] = {"op_shape", "dtype_in_out", "stride_input", "stride_output", "num_channels",
                                        "has_bias", "is_affine",    "is_training",  "output_mask"};
    CHECK(pf.n == 9 && pb.n == 9);
    for (int i = 0; i < 9 && i < pf.n && i < pb.n; i++) {
        CHECK(!strcmp(pf.p[i].name, NAMES[i]));
        CHECK(!strcmp(pb.p[i].name, NAMES[i]));
    }
    CHECK(pf.p[4].is_num && pf.p[4].num == 64);
}

static void test_match(void) {
    static const char *const STRONG[] = {"aten::batch_norm",
                                         "aten::_batch_norm_impl_index",
                                         "aten::native_batch_norm",
                                         "aten::cudnn_batch_norm",
                                         "aten::miopen_batch_norm",
                                         "aten::_native_batch_norm_legit",
                                         "aten::_native_batch_norm_legit_no_training",
                                         "aten::_batch_norm_with_update",
                                         "aten::_batch_norm_no_update",
                                         "aten::native_batch_norm_backward",
                                         "aten::batch_norm_backward",
                                         "aten::cudnn_batch_norm_backward",
                                         "aten::miopen_batch_norm_backward"};
    for (size_t i = 0; i < sizeof STRONG / sizeof STRONG[0]; i++)
        CHECK(jv_batchnorm_family.match(STRONG[i]) == JV_MATCH_STRONG);
    CHECK(jv_batchnorm_family.match("aten::layer_norm") == JV_MATCH_NONE);
    CHECK(jv_batchnorm_family.match("aten::batch_norm_") == JV_MATCH_NONE);
    CHECK(jv_batchnorm_family.match("") == JV_MATCH_NONE);
    CHECK(!strcmp(jv_batchnorm_family.sheet, "Normalization") && jv_batchnorm_family.split == 0);
    CHECK(!strcmp(jv_batchnorm_family.category, "NORM"));
}

static void test_hostile(void) {
    jv_desc d;
    const char *ok_types =
        "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\"]";
    const char *ok_conc = "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]";
    /* no args at all */
    CHECK(parse("aten::native_batch_norm", NULL, NULL, NULL, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_batch_norm", "[]", "[]", "[]", "[]", &d) == JV_ERR_FORMAT);
    /* input is not a tensor */
    CHECK(parse("aten::native_batch_norm", "[[], [16]]", "[\"Scalar\", \"float\"]", NULL, "[\"3\", \"\"]", &d) ==
          JV_ERR_FORMAT);
    /* no channel dim */
    CHECK(parse("aten::native_batch_norm", "[[16], [16], [16], [16], [16], [], [], []]", ok_types, NULL, ok_conc, &d) ==
          JV_ERR_FORMAT);
    /* negative dim */
    CHECK(parse("aten::native_batch_norm", "[[8, -16, 32, 32], [16], [16], [16], [16], [], [], []]", ok_types, NULL,
                ok_conc, &d) == JV_ERR_FORMAT);
    /* element count overflows int64 */
    CHECK(parse("aten::native_batch_norm",
                "[[4611686018427387904, 16, 4611686018427387904, 32], [16], [16], [16], [16], [], [], []]", ok_types,
                NULL, ok_conc, &d) == JV_ERR_FORMAT);
    /* weight with the wrong number of channels */
    CHECK(parse("aten::native_batch_norm", "[[8, 16, 32, 32], [17], [16], [16], [16], [], [], []]", ok_types, NULL,
                ok_conc, &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_batch_norm", "[[8, 16, 32, 32], [16], [16], [-16], [16], [], [], []]", ok_types, NULL,
                ok_conc, &d) == JV_ERR_FORMAT);
    /* training flag not a bool */
    CHECK(parse("aten::native_batch_norm", "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], []]", ok_types, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"maybe\", \"0.1\", \"1e-05\"]", &d) == JV_ERR_FORMAT);
    /* eps not a number */
    CHECK(parse("aten::native_batch_norm", "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], []]", ok_types, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"eps\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_batch_norm", "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], []]", ok_types, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"True\", \"nan\", \"1e-05\"]", &d) == JV_ERR_FORMAT);
    /* no Concrete Inputs at all: defaults (training, momentum 0.1, eps 1e-5) */
    CHECK(parse("aten::native_batch_norm", "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], []]", ok_types, NULL,
                NULL, &d) == JV_OK);
    CHECK(jv_batchnorm_of(&d)->training == 1 && near(jv_batchnorm_of(&d)->eps, 1e-5));
    /* backward: output mask of the wrong length or text */
    const char *bdims = "[[8, 16, 32, 32], [8, 16, 32, 32], [16], [16], [16], [16], [16], [], [], []]";
    const char *btypes = "[\"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", "
                         "\"Scalar\", \"ScalarList\"]";
    CHECK(parse("aten::native_batch_norm_backward", bdims, btypes, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[True]\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_batch_norm_backward", bdims, btypes, NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[yes, no, 2]\"]",
                &d) == JV_ERR_FORMAT);
    /* backward: grad_output missing or of another size */
    CHECK(parse("aten::native_batch_norm_backward", "[[], [8, 16, 32, 32], [16]]", "[\"\", \"float\", \"float\"]", NULL,
                NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse("aten::native_batch_norm_backward", "[[8, 16, 32], [8, 16, 32, 32], [16]]",
                "[\"float\", \"float\", \"float\"]", NULL, NULL, &d) == JV_ERR_FORMAT);
    /* a name of another family */
    CHECK(parse("aten::layer_norm", "[[8, 16]]", "[\"float\"]", NULL, NULL, &d) == JV_ERR_NOTFOUND);
    /* unknown dtype: bytes NaN, flops still known */
    CHECK(parse("aten::native_batch_norm", "[[8, 16, 32, 32], [], [], [], [], [], [], []]",
                "[\"c10::Float8_e8m0fnu\", \"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL, ok_conc,
                &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(isnan(p.bytes));
    CHECK_NEAR(p.flops, 5 * 131072.0 + 96);
    /* zero-size batch: zero element traffic, no crash */
    CHECK(parse("aten::native_batch_norm", "[[0, 16, 32, 32], [16], [16], [16], [16], [], [], []]", ok_types, NULL,
                ok_conc, &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.bytes, 64 + 64 + 256 + 128.0);
    /* a tensor list where the input should be */
    CHECK(parse("aten::native_batch_norm", "[[[8, 16], [8, 16]], [16]]", "[\"TensorList\", \"float\"]", NULL, NULL,
                &d) == JV_ERR_FORMAT);
}

int main(void) {
    test_resnet18_forward();
    test_eval_vs_training();
    test_normalization_layers_forward();
    test_backward();
    test_layout();
    test_params_same_names();
    test_match();
    test_hostile();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

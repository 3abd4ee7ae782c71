/* test_cpu_conv: the CPU backend's oneDNN convolution plans (backends/cpu/jv_cpu_conv.c) against the conv
 * family's double-precision reference (kernels/conv/conv_ref.c). Each case is a call in trace form (as
 * tests/kernels/test_gpu_replay.c spells them): parsed, its replay operands filled (jv_fill_host), planned and
 * run through oneDNN, run through jv_desc_reference into separate outputs, and every output compared with
 * jv_verify_output. Forward NCHW and channels_last, bias, stride, padding, dilation, groups, depthwise, 1d and
 * 3d, transposed; backward with all grads and with some; fp32 and bf16. Deliberately damaged outputs must fail
 * verification; fp64 must be refused (JV_ERR_NOTFOUND). Prints one line per case, and the time of one
 * ResNet-like conv (N 8, 64 -> 64, 56x56, 3x3, fp32) in NCHW and channels_last. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jv_cpu_dnnl.h"
#include "jv_opcall.h"
#include "jv_runner.h"

#include "jv_check.h"
#include "jv_progress.h" /* jv_now */
#include "jv_test_calls.h"
#include "jv_test_cpu.h"

typedef jv_cpu_case ccase; /* jv_test_cpu.h */

static const ccase CASES[] = {
    {"fwd fp32 NCHW", "aten::convolution", "[[2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], []]",
     CONV_TYPES(FL, "\"\""), NULL, CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"fwd fp32 NCHW bias stride 2", "aten::convolution",
     "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]", CONV_TYPES(FL, FL), NULL,
     CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"fwd fp32 channels_last", "aten::convolution", "[[2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], []]",
     CONV_TYPES(FL, "\"\""), "[" X8_CL ", " W8_CL ", [], [], [], [], [], [], []]",
     CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"fwd fp32 channels_last bias s2", "aten::convolution",
     "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]", CONV_TYPES(FL, FL),
     "[" X8_CL ", " W8_CL ", [1], [], [], [], [], [], []]",
     CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"fwd fp32 dilation 2 pad 2", "aten::convolution", "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]",
     CONV_TYPES(FL, FL), NULL, CONV_FWD_ARGS("1, 1", "2, 2", "2, 2", "False", "0, 0", "1")},
    {"fwd fp32 no pad 5x3 stride 2x1", "aten::convolution",
     "[[2, 8, 12, 12], [16, 8, 5, 3], [], [], [], [], [], [], []]", CONV_TYPES(FL, "\"\""), NULL,
     CONV_FWD_ARGS("2, 1", "0, 0", "1, 1", "False", "0, 0", "1")},
    {"fwd fp32 groups 2", "aten::convolution", "[[2, 16, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]",
     CONV_TYPES(FL, FL), NULL, CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "2")},
    {"fwd fp32 depthwise channels_last", "aten::convolution",
     "[[2, 16, 12, 12], [16, 1, 3, 3], [16], [], [], [], [], [], []]", CONV_TYPES(FL, FL),
     "[" X16_CL ", [9, 1, 3, 1], [1], [], [], [], [], [], []]",
     CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "16")},
    {"fwd fp32 depthwise NCHW s2", "aten::convolution", "[[2, 16, 12, 12], [16, 1, 3, 3], [], [], [], [], [], [], []]",
     CONV_TYPES(FL, "\"\""), NULL, CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "False", "0, 0", "16")},
    {"fwd fp32 conv1d", "aten::convolution", "[[2, 8, 20], [16, 8, 3], [16], [], [], [], [], [], []]",
     CONV_TYPES(FL, FL), NULL, CONV_FWD_ARGS("1", "1", "1", "False", "0", "1")},
    {"fwd fp32 conv3d", "aten::convolution", "[[2, 4, 6, 6, 6], [8, 4, 3, 3, 3], [8], [], [], [], [], [], []]",
     CONV_TYPES(FL, FL), NULL, CONV_FWD_ARGS("1, 1, 1", "1, 1, 1", "1, 1, 1", "False", "0, 0, 0", "1")},
    {"fwd fp32 transposed bias s2", "aten::convolution", "[[2, 16, 6, 6], [16, 8, 3, 3], [8], [], [], [], [], [], []]",
     CONV_TYPES(FL, FL), NULL, CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "True", "1, 1", "1")},
    {"fwd fp32 conv2d padding same 4x4", "aten::conv2d", "[[2, 8, 10, 10], [16, 8, 4, 4], [16], [], [], [], []]",
     "[" FL ", " FL ", " FL ", \"ScalarList\", \"String\", \"ScalarList\", \"Scalar\"]", NULL,
     "[\"\", \"\", \"\", \"[1, 1]\", \"same\", \"[1, 1]\", \"1\"]"},
    {"fwd fp32 conv2d padding valid", "aten::conv2d", "[[2, 8, 10, 10], [16, 8, 3, 3], [], [], [], [], []]",
     "[" FL ", " FL ", \"\", \"ScalarList\", \"String\", \"ScalarList\", \"Scalar\"]", NULL,
     "[\"\", \"\", \"\", \"[1, 1]\", \"valid\", \"[1, 1]\", \"1\"]"},
    {"fwd bf16 NCHW bias", "aten::convolution", "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]",
     CONV_TYPES(BF, BF), NULL, CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"fwd bf16 channels_last groups 2 s2", "aten::convolution",
     "[[2, 16, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], []]", CONV_TYPES(BF, "\"\""),
     "[" X16_CL ", " W8_CL ", [], [], [], [], [], [], []]",
     CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "False", "0, 0", "2")},
    {"fwd bf16 depthwise dilation 2", "aten::convolution",
     "[[2, 16, 12, 12], [16, 1, 3, 3], [16], [], [], [], [], [], []]", CONV_TYPES(BF, BF), NULL,
     CONV_FWD_ARGS("1, 1", "2, 2", "2, 2", "False", "0, 0", "16")},
    {"bwd fp32 all grads", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("16", "1, 1", "1, 1", "1, 1", "False", "0, 0", "1", "True, True, True")},
    {"bwd fp32 grad_input only s2", "aten::convolution_backward",
     "[[2, 16, 6, 6], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("0", "2, 2", "1, 1", "1, 1", "False", "0, 0", "1", "True, False, False")},
    {"bwd fp32 grad_weight only dil 2", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("0", "1, 1", "2, 2", "2, 2", "False", "0, 0", "1", "False, True, False")},
    {"bwd fp32 grad_bias only", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("16", "1, 1", "1, 1", "1, 1", "False", "0, 0", "1", "False, False, True")},
    {"bwd fp32 channels_last groups 2", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 16, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL),
     "[" X16_CL ", " X16_CL ", " W8_CL ", [], [], [], [], [], [], [], []]",
     CONV_BWD_ARGS("16", "1, 1", "1, 1", "1, 1", "False", "0, 0", "2", "True, True, True")},
    {"bwd fp32 depthwise s2", "aten::convolution_backward",
     "[[2, 16, 6, 6], [2, 16, 12, 12], [16, 1, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("16", "2, 2", "1, 1", "1, 1", "False", "0, 0", "16", "True, True, True")},
    {"bwd fp32 conv3d", "aten::convolution_backward",
     "[[2, 8, 6, 6, 6], [2, 4, 6, 6, 6], [8, 4, 3, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("8", "1, 1, 1", "1, 1, 1", "1, 1, 1", "False", "0, 0, 0", "1", "True, True, True")},
    {"bwd fp32 transposed s2", "aten::convolution_backward",
     "[[2, 8, 12, 12], [2, 16, 6, 6], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("8", "2, 2", "1, 1", "1, 1", "True", "1, 1", "1", "True, True, True")},
    {"bwd bf16 all grads", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(BF), NULL,
     CONV_BWD_ARGS("16", "1, 1", "1, 1", "1, 1", "False", "0, 0", "1", "True, True, True")},
    {"bwd bf16 grad_input only", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(BF), NULL,
     CONV_BWD_ARGS("0", "1, 1", "1, 1", "1, 1", "False", "0, 0", "1", "True, False, False")},
    {"bwd bf16 channels_last groups 2", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 16, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(BF),
     "[" X16_CL ", " X16_CL ", " W8_CL ", [], [], [], [], [], [], [], []]",
     CONV_BWD_ARGS("16", "1, 1", "1, 1", "1, 1", "False", "0, 0", "2", "True, True, True")},
};
#define NCASES ((int)(sizeof CASES / sizeof CASES[0]))

/* the path under test: oneDNN convolution */
static jv_status conv_plan(void *x, const setup *s, void **plan, jv_err *err) {
    jv_cpu_conv *p = NULL;
    jv_status st = jv_cpu_conv_plan(x, &s->d, &s->ops, &p, err);
    *plan = p;
    return st;
}
static jv_status conv_run(void *x, void *plan, const setup *s, jv_err *err) {
    return jv_cpu_conv_run(x, plan, s->dev, err);
}
static void conv_release(void *plan) {
    jv_cpu_conv_free(plan);
}

static const ccase *case_named(const char *what) {
    for (int i = 0; i < NCASES; i++)
        if (!strcmp(CASES[i].what, what)) return &CASES[i];
    return NULL;
}

/* the ResNet-like conv: best of 5 runs */
static void time_case(const jv_cpu_path *p, const ccase *c) {
    double best = cpu_time_case(p, c, 6), flops = 2.0 * 8 * 64 * 64 * 9 * 56 * 56;
    if (best > 0) printf("%-36s %.2f ms (%.1f GFLOP/s)\n", c->what, best * 1e3, flops / best * 1e-9);
}

int main(void) {
    jv_cpu_dnnl x;
    jv_err err;
    jv_err_clear(&err);
    if (jv_cpu_dnnl_open(&x, &err) != JV_OK) {
        fprintf(stderr, "oneDNN: %s\n", err.msg);
        return 1;
    }
    const jv_cpu_path path = {.ctx = &x, .width = 36, .plan = conv_plan, .run = conv_run, .release = conv_release};
    for (int i = 0; i < NCASES; i++)
        cpu_run_case(&path, &CASES[i]);

    /* the checks can fail: damaged outputs are caught */
    cpu_wrong_case(&path, case_named("fwd fp32 NCHW"), "out", 1);
    cpu_wrong_case(&path, case_named("fwd bf16 NCHW bias"), "out", 0);
    cpu_wrong_case(&path, case_named("bwd fp32 all grads"), "grad_weight", 1);
    cpu_wrong_case(&path, case_named("bwd fp32 all grads"), "grad_bias", 0);

    /* fp64: oneDNN has no CPU fp64 convolution; fp16: only on CPUs with avx512_fp16 */
    static const ccase f64 = {"fwd fp64 (refused)",
                              "aten::convolution",
                              "[[2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], []]",
                              CONV_TYPES(DB, "\"\""),
                              NULL,
                              CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")};
    static const ccase f16 = {"fwd fp16",
                              "aten::convolution",
                              "[[2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], []]",
                              CONV_TYPES(HF, "\"\""),
                              NULL,
                              CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")};
    cpu_refused_case(&path, &f64, 1);
    cpu_refused_case(&path, &f16, 0);

    static const ccase rn = {"time resnet conv fp32 NCHW",
                             "aten::convolution",
                             "[[8, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], []]",
                             CONV_TYPES(FL, "\"\""),
                             NULL,
                             CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")};
    static const ccase rn_cl = {"time resnet conv fp32 channels_last",
                                "aten::convolution",
                                "[[8, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], []]",
                                CONV_TYPES(FL, "\"\""),
                                "[[200704, 1, 3584, 64], [576, 1, 192, 64], [], [], [], [], [], [], []]",
                                CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")};
    static const ccase rn_bwd = {
        "time resnet conv bwd fp32 NCHW",
        "aten::convolution_backward",
        "[[8, 64, 56, 56], [8, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], [], []]",
        CONV_BWD_TYPES(FL),
        NULL,
        CONV_BWD_ARGS("64", "1, 1", "1, 1", "1, 1", "False", "0, 0", "1", "True, True, False")};
    time_case(&path, &rn);
    time_case(&path, &rn_cl);
    time_case(&path, &rn_bwd);

    jv_cpu_dnnl_close(&x);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

/* test_cpu_bn: the CPU backend's oneDNN batch-norm plans
 * (backends/cpu/jv_cpu_bn.c) against the batch-norm family's double-precision
 * reference (kernels/batchnorm/batchnorm_ref.c). Each case is a call in trace
 * form: parsed, its replay operands filled (jv_fill_host with each operand's
 * init; INOUT running statistics start from the same values on both sides),
 * planned and run through oneDNN, run through jv_desc_reference into separate
 * outputs, and every OUT and INOUT operand compared with jv_verify_output.
 * Training and eval forward, NCHW and channels_last, fp32 and bf16 with fp32
 * parameters, with and without affine, a non-dense input; training backward
 * with all grads, grad_input only, parameter grads only, without weight, a
 * grad_out laid out otherwise than the input; eval backward. Deliberately
 * damaged outputs must fail verification; fp64 must be refused
 * (JV_ERR_NOTFOUND). Prints one line per case, and the time of one ResNet-like
 * training batch norm (N 8, C 64, 56x56, fp32, channels_last). */
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
#include "jv_test_cpu.h"

typedef jv_cpu_case bcase; /* jv_test_cpu.h */

#define BF "\"c10::BFloat16\""
#define HF "\"c10::Half\""
#define FL "\"float\""
#define DB "\"double\""
#define NO "\"\""
#define SC "\"Scalar\""
/* native_batch_norm: input, weight, bias, running_mean, running_var, training,
 * momentum, eps */
#define FWD_TYPES(X, W, R) "[" X ", " W ", " W ", " R ", " R ", " SC ", " SC ", " SC "]"
#define FWD_DIMS(C, W, R)  "[[4, " C ", 10, 10], [" W "], [" W "], [" R "], [" R "], [], [], []]"
#define TRAIN              "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"
#define EVAL               "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]"
/* native_batch_norm_backward: grad_out, input, weight, running_mean,
 * running_var, save_mean, save_invstd, train, eps, output_mask */
#define BWD_TYPES(X, W, R, S) "[" X ", " X ", " W ", " R ", " R ", " S ", " S ", " SC ", " SC ", \"ScalarList\"]"
#define BWD_DIMS(W, R, S)     "[[4, 16, 10, 10], [4, 16, 10, 10], [" W "], [" R "], [" R "], [" S "], [" S "], [], [], []]"
#define BWD(T, M)             "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"" T "\", \"1e-05\", \"[" M "]\"]"
#define CL16                  "[1600, 1, 160, 16]"
#define CL8                   "[800, 1, 80, 8]"
#define NCHW16                "[1600, 100, 10, 1]"

static const bcase CASES[] = {
    {"fwd train fp32 NCHW", "aten::native_batch_norm", FWD_DIMS("16", "16", "16"), FWD_TYPES(FL, FL, FL), NULL, TRAIN},
    {"fwd train fp32 channels_last", "aten::native_batch_norm", FWD_DIMS("16", "16", "16"), FWD_TYPES(FL, FL, FL),
     "[" CL16 ", [1], [1], [1], [1], [], [], []]", TRAIN},
    {"fwd train fp32 NCHW no affine", "aten::native_batch_norm", FWD_DIMS("16", "", "16"), FWD_TYPES(FL, NO, FL), NULL,
     TRAIN},
    {"fwd train fp32 CL no affine C 8", "aten::native_batch_norm", FWD_DIMS("8", "", "8"), FWD_TYPES(FL, NO, FL),
     "[" CL8 ", [], [], [1], [1], [], [], []]", TRAIN},
    {"fwd train bf16 NCHW fp32 params", "aten::native_batch_norm", FWD_DIMS("16", "16", "16"), FWD_TYPES(BF, FL, FL),
     NULL, TRAIN},
    {"fwd train bf16 CL fp32 params", "aten::native_batch_norm", FWD_DIMS("16", "16", "16"), FWD_TYPES(BF, FL, FL),
     "[" CL16 ", [1], [1], [1], [1], [], [], []]", TRAIN},
    {"fwd train bf16 CL no affine", "aten::native_batch_norm", FWD_DIMS("16", "", "16"), FWD_TYPES(BF, NO, FL),
     "[" CL16 ", [], [], [1], [1], [], [], []]", TRAIN},
    {"fwd train fp32 no running stats", "aten::native_batch_norm", FWD_DIMS("16", "16", ""), FWD_TYPES(FL, FL, NO),
     NULL, TRAIN},
    {"fwd train fp32 non-dense input", "aten::native_batch_norm", FWD_DIMS("8", "8", "8"), FWD_TYPES(FL, FL, FL),
     "[" NCHW16 ", [1], [1], [1], [1], [], [], []]", TRAIN},
    {"fwd train bf16 all-bf16 params", "aten::native_batch_norm", FWD_DIMS("16", "16", "16"), FWD_TYPES(BF, BF, BF),
     NULL, TRAIN},
    {"aten::batch_norm train fp32 CL", "aten::batch_norm", "[[4, 16, 10, 10], [16], [16], [16], [16], [], [], [], []]",
     "[" FL ", " FL ", " FL ", " FL ", " FL ", " SC ", " SC ", " SC ", " SC "]",
     "[" CL16 ", [1], [1], [1], [1], [], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\", \"True\"]"},
    {"fwd eval fp32 NCHW", "aten::native_batch_norm", FWD_DIMS("16", "16", "16"), FWD_TYPES(FL, FL, FL), NULL, EVAL},
    {"fwd eval fp32 channels_last", "aten::native_batch_norm", FWD_DIMS("16", "16", "16"), FWD_TYPES(FL, FL, FL),
     "[" CL16 ", [1], [1], [1], [1], [], [], []]", EVAL},
    {"fwd eval fp32 NCHW no affine", "aten::native_batch_norm", FWD_DIMS("16", "", "16"), FWD_TYPES(FL, NO, FL), NULL,
     EVAL},
    {"fwd eval bf16 NCHW fp32 params", "aten::native_batch_norm", FWD_DIMS("16", "16", "16"), FWD_TYPES(BF, FL, FL),
     NULL, EVAL},
    {"fwd eval bf16 CL fp32 params", "aten::native_batch_norm", FWD_DIMS("16", "16", "16"), FWD_TYPES(BF, FL, FL),
     "[" CL16 ", [1], [1], [1], [1], [], [], []]", EVAL},
    {"fwd eval bf16 CL no affine", "aten::native_batch_norm", FWD_DIMS("16", "", "16"), FWD_TYPES(BF, NO, FL),
     "[" CL16 ", [], [], [1], [1], [], [], []]", EVAL},
    {"bwd train fp32 NCHW all grads", "aten::native_batch_norm_backward", BWD_DIMS("16", "16", "16"),
     BWD_TYPES(FL, FL, FL, FL), NULL, BWD("True", "True, True, True")},
    {"bwd train fp32 CL all grads", "aten::native_batch_norm_backward", BWD_DIMS("16", "16", "16"),
     BWD_TYPES(FL, FL, FL, FL), "[" CL16 ", " CL16 ", [1], [1], [1], [1], [1], [], [], []]",
     BWD("True", "True, True, True")},
    {"bwd train fp32 grad_input only", "aten::native_batch_norm_backward", BWD_DIMS("16", "16", "16"),
     BWD_TYPES(FL, FL, FL, FL), NULL, BWD("True", "True, False, False")},
    {"bwd train fp32 CL grad_input only", "aten::native_batch_norm_backward", BWD_DIMS("16", "16", "16"),
     BWD_TYPES(FL, FL, FL, FL), "[" CL16 ", " CL16 ", [1], [1], [1], [1], [1], [], [], []]",
     BWD("True", "True, False, False")},
    {"bwd train fp32 grad_weight/bias only", "aten::native_batch_norm_backward", BWD_DIMS("16", "16", "16"),
     BWD_TYPES(FL, FL, FL, FL), NULL, BWD("True", "False, True, True")},
    {"bwd train fp32 no weight all grads", "aten::native_batch_norm_backward", BWD_DIMS("", "", "16"),
     BWD_TYPES(FL, NO, NO, FL), NULL, BWD("True", "True, True, True")},
    {"bwd train fp32 CL x, NCHW grad_out", "aten::native_batch_norm_backward", BWD_DIMS("16", "16", "16"),
     BWD_TYPES(FL, FL, FL, FL), "[" NCHW16 ", " CL16 ", [1], [1], [1], [1], [1], [], [], []]",
     BWD("True", "True, True, True")},
    {"bwd train bf16 NCHW all grads", "aten::native_batch_norm_backward", BWD_DIMS("16", "16", "16"),
     BWD_TYPES(BF, FL, FL, FL), NULL, BWD("True", "True, True, True")},
    {"bwd train bf16 CL all grads", "aten::native_batch_norm_backward", BWD_DIMS("16", "16", "16"),
     BWD_TYPES(BF, FL, FL, FL), "[" CL16 ", " CL16 ", [1], [1], [1], [1], [1], [], [], []]",
     BWD("True", "True, True, True")},
    {"bwd train bf16 grad_input only", "aten::native_batch_norm_backward", BWD_DIMS("16", "16", "16"),
     BWD_TYPES(BF, FL, FL, FL), NULL, BWD("True", "True, False, False")},
    {"bwd eval fp32 NCHW all grads", "aten::native_batch_norm_backward", BWD_DIMS("16", "16", "16"),
     BWD_TYPES(FL, FL, FL, FL), NULL, BWD("False", "True, True, True")},
    {"bwd eval fp32 CL grad_input only", "aten::native_batch_norm_backward", BWD_DIMS("16", "16", "16"),
     BWD_TYPES(FL, FL, FL, FL), "[" CL16 ", " CL16 ", [1], [1], [1], [1], [1], [], [], []]",
     BWD("False", "True, False, False")},
    {"bwd eval bf16 CL all grads", "aten::native_batch_norm_backward", BWD_DIMS("16", "16", "16"),
     BWD_TYPES(BF, FL, FL, FL), "[" CL16 ", " CL16 ", [1], [1], [1], [1], [1], [], [], []]",
     BWD("False", "True, True, True")},
};
#define NCASES ((int)(sizeof CASES / sizeof CASES[0]))

/* the path under test: oneDNN batch normalization */
static jv_status bn_plan(void *x, const setup *s, void **plan, jv_err *err) {
    jv_cpu_bn *p = NULL;
    jv_status st = jv_cpu_bn_plan(x, &s->d, &s->ops, &p, err);
    *plan = p;
    return st;
}
static jv_status bn_run(void *x, void *plan, const setup *s, jv_err *err) {
    return jv_cpu_bn_run(x, plan, s->dev, err);
}
static void bn_release(void *plan) {
    jv_cpu_bn_free(plan);
}

static const bcase *case_named(const char *what) {
    for (int i = 0; i < NCASES; i++)
        if (!strcmp(CASES[i].what, what)) return &CASES[i];
    return NULL;
}

/* the ResNet-like batch norm: best of 10 runs (the running statistics drift; no matter) */
static void time_case(const jv_cpu_path *p, const bcase *c, double bytes) {
    double best = cpu_time_case(p, c, 11);
    if (best > 0) printf("%-38s %.3f ms (%.1f GB/s of minimal bytes)\n", c->what, best * 1e3, bytes / best * 1e-9);
}

int main(void) {
    jv_cpu_dnnl x;
    jv_err err;
    jv_err_clear(&err);
    if (jv_cpu_dnnl_open(&x, &err) != JV_OK) {
        fprintf(stderr, "oneDNN: %s\n", err.msg);
        return 1;
    }
    const jv_cpu_path path = {.ctx = &x, .width = 38, .plan = bn_plan, .run = bn_run, .release = bn_release};
    for (int i = 0; i < NCASES; i++)
        cpu_run_case(&path, &CASES[i]);

    /* the checks can fail: damaged outputs are caught */
    cpu_wrong_case(&path, case_named("fwd train fp32 NCHW"), "out", 1);
    cpu_wrong_case(&path, case_named("fwd train fp32 NCHW"), "running_var", 0);
    cpu_wrong_case(&path, case_named("fwd train bf16 CL fp32 params"), "save_invstd", 0);
    cpu_wrong_case(&path, case_named("bwd train fp32 NCHW all grads"), "grad_weight", 1);
    cpu_wrong_case(&path, case_named("bwd eval bf16 CL all grads"), "grad_input", 0);

    /* fp64: oneDNN has no CPU fp64 batch normalization; fp16: only where oneDNN
     * implements it on this CPU */
    static const bcase f64 = {"fwd train fp64 (refused)",
                              "aten::native_batch_norm",
                              FWD_DIMS("16", "16", "16"),
                              FWD_TYPES(DB, DB, DB),
                              NULL,
                              TRAIN};
    static const bcase f16 = {
        "fwd train fp16", "aten::native_batch_norm", FWD_DIMS("16", "16", "16"), FWD_TYPES(HF, FL, FL), NULL, TRAIN};
    static const bcase f16b = {"bwd train fp16",
                               "aten::native_batch_norm_backward",
                               BWD_DIMS("16", "16", "16"),
                               BWD_TYPES(HF, FL, FL, FL),
                               NULL,
                               BWD("True", "True, True, True")};
    cpu_refused_case(&path, &f64, 1);
    cpu_refused_case(&path, &f16, 0);
    cpu_refused_case(&path, &f16b, 0);

    static const bcase rn = {"time resnet bn train fp32 CL",
                             "aten::native_batch_norm",
                             "[[8, 64, 56, 56], [64], [64], [64], [64], [], [], []]",
                             FWD_TYPES(FL, FL, FL),
                             "[[200704, 1, 3584, 64], [1], [1], [1], [1], [], [], []]",
                             TRAIN};
    time_case(&path, &rn, 3.0 * 8 * 64 * 56 * 56 * 4);

    jv_cpu_dnnl_close(&x);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

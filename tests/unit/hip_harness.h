/* hip_harness: the HIP vendor tests' harness over jv_test_cpu.h (plan a case on
 * a path of the fakes, run it, compare every output with the family's CPU
 * reference) and their cases. Static, for the test program's own CHECK
 * counters: include once per program. */
#ifndef HIP_HARNESS_H
#define HIP_HARNESS_H

#include "hip_fakes.h"
#include "jv_check.h"
#include "jv_test_calls.h"
#include "jv_test_cpu.h"

#include "gemm_cases.h"

/* ---- the paths under test, over jv_test_cpu.h's harness ---- */

typedef enum { K_GEMM, K_CONV, K_CONV_GEMM, K_BN } kind;
typedef struct {
    jv_hipv *v;
    kind k;
    char impl[192]; /* as jv_result.impl */
} pctx;
typedef struct {
    const jv_hipv *v;
    kind k;
    void *p;
    void *ws;
} pplan;

static __attribute__((unused)) jv_status p_plan(void *x, const setup *s, void **plan, jv_err *err) {
    pctx *c = x;
    pplan *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "out of memory");
    p->v = c->v, p->k = c->k;
    p->ws = calloc(1, FAKE_WS);
    *plan = p;
    memset(F.compiled, 0, sizeof F.compiled);
    switch (c->k) {
    case K_GEMM:
        return jv_hipv_gemm_plan(c->v, &s->d, &s->ops, FAKE_WS, (jv_hipv_gemm **)&p->p, c->impl, sizeof c->impl, err);
    case K_CONV:
    case K_CONV_GEMM:
        return jv_hipv_conv_plan(c->v, &s->d, &s->ops, c->k == K_CONV_GEMM, FAKE_WS, (jv_hipv_conv **)&p->p, c->impl,
                                 sizeof c->impl, err);
    case K_BN:
        snprintf(c->impl, sizeof c->impl, "MIOpen batch norm");
        return jv_hipv_bn_plan(c->v, &s->d, &s->ops, FAKE_WS, (jv_hipv_bn **)&p->p, err);
    }
    return JV_OK;
}
static __attribute__((unused)) jv_status p_run(void *x, void *plan, const setup *s, jv_err *err) {
    (void)x;
    pplan *p = plan;
    void *const *b = (void *const *)s->dev;
    switch (p->k) {
    case K_GEMM: return jv_hipv_gemm_run(p->v, p->p, b, p->ws, FAKE_WS, err);
    case K_CONV:
    case K_CONV_GEMM: return jv_hipv_conv_run(p->v, p->p, b, p->ws, FAKE_WS, err);
    case K_BN: return jv_hipv_bn_run(p->v, p->p, b, p->ws, FAKE_WS, err);
    }
    return JV_OK;
}
static __attribute__((unused)) void p_release(void *plan) {
    pplan *p = plan;
    if (!p) return;
    if (p->k == K_GEMM) jv_hipv_gemm_free(p->v, p->p);
    if (p->k == K_CONV || p->k == K_CONV_GEMM) jv_hipv_conv_free(p->v, p->p);
    if (p->k == K_BN) jv_hipv_bn_free(p->v, p->p);
    free(p->ws);
    free(p);
}

/* Runs c on a path and returns whether every output matched the reference (0 also when it did not run). */
static __attribute__((unused)) int run_quiet(pctx *pc, const jv_cpu_case *c, char *msg, size_t cap) {
    setup s;
    msg[0] = 0;
    if (!setup_case(c, &s, 1)) {
        setup_free(&s);
        return 0;
    }
    jv_err err;
    jv_err_clear(&err);
    void *plan = NULL;
    jv_status st = p_plan(pc, &s, &plan, &err);
    if (st == JV_OK) st = p_run(pc, plan, &s, &err);
    int ok = 0;
    if (st == JV_OK) {
        jv_verify v;
        ok = verify_all(&s, &v);
        snprintf(msg, cap, "rel_l2 %.3g worst '%s'", v.rel_l2, v.worst);
    } else {
        snprintf(msg, cap, "%s", err.msg);
    }
    p_release(plan);
    setup_free(&s);
    return ok;
}

/* ---- the cases ---- */

#define NO "\"\""

static const jv_cpu_case MM_F64
    __attribute__((unused)) = {"mm fp64", "aten::mm", "[[64, 96], [96, 80]]", "[" DB ", " DB "]", NULL, NULL};

static const jv_cpu_case CONVS[] __attribute__((unused)) = {
    {"conv fwd fp32 NCHW", "aten::convolution", "[[2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], []]",
     CONV_TYPES(FL, NO), NULL, CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"conv fwd fp32 NCHW bias stride 2", "aten::convolution",
     "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]", CONV_TYPES(FL, FL), NULL,
     CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"conv fwd fp32 channels_last bias s2", "aten::convolution",
     "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]", CONV_TYPES(FL, FL),
     "[" X8_CL ", " W8_CL ", [1], [], [], [], [], [], []]",
     CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"conv fwd fp32 dilation 2 pad 2", "aten::convolution",
     "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]", CONV_TYPES(FL, FL), NULL,
     CONV_FWD_ARGS("1, 1", "2, 2", "2, 2", "False", "0, 0", "1")},
    {"conv fwd fp32 no pad 5x3 stride 2x1", "aten::convolution",
     "[[2, 8, 12, 12], [16, 8, 5, 3], [], [], [], [], [], [], []]", CONV_TYPES(FL, NO), NULL,
     CONV_FWD_ARGS("2, 1", "0, 0", "1, 1", "False", "0, 0", "1")},
    {"conv fwd fp32 groups 2", "aten::convolution", "[[2, 16, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]",
     CONV_TYPES(FL, FL), NULL, CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "2")},
    {"conv fwd fp32 depthwise channels_last", "aten::convolution",
     "[[2, 16, 12, 12], [16, 1, 3, 3], [16], [], [], [], [], [], []]", CONV_TYPES(FL, FL),
     "[" X16_CL ", [9, 1, 3, 1], [1], [], [], [], [], [], []]",
     CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "16")},
    {"conv fwd fp32 conv1d", "aten::convolution", "[[2, 8, 20], [16, 8, 3], [16], [], [], [], [], [], []]",
     CONV_TYPES(FL, FL), NULL, CONV_FWD_ARGS("1", "1", "1", "False", "0", "1")},
    {"conv fwd fp32 conv3d", "aten::convolution", "[[2, 4, 6, 6, 6], [8, 4, 3, 3, 3], [8], [], [], [], [], [], []]",
     CONV_TYPES(FL, FL), NULL, CONV_FWD_ARGS("1, 1, 1", "1, 1, 1", "1, 1, 1", "False", "0, 0, 0", "1")},
    {"conv fwd fp32 transposed bias s2", "aten::convolution",
     "[[2, 16, 6, 6], [16, 8, 3, 3], [8], [], [], [], [], [], []]", CONV_TYPES(FL, FL), NULL,
     CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "True", "1, 1", "1")},
    {"conv fwd fp16 NCHW bias", "aten::convolution", "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]",
     CONV_TYPES(HF, HF), NULL, CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")},
    {"conv fwd bf16 channels_last groups 2 s2", "aten::convolution",
     "[[2, 16, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], []]", CONV_TYPES(BF, NO),
     "[" X16_CL ", " W8_CL ", [], [], [], [], [], [], []]",
     CONV_FWD_ARGS("2, 2", "1, 1", "1, 1", "False", "0, 0", "2")},
    {"conv bwd fp32 all grads", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("16", "1, 1", "1, 1", "1, 1", "False", "0, 0", "1", "True, True, True")},
    {"conv bwd fp32 grad_input only s2", "aten::convolution_backward",
     "[[2, 16, 6, 6], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("0", "2, 2", "1, 1", "1, 1", "False", "0, 0", "1", "True, False, False")},
    {"conv bwd fp32 grad_weight only dil 2", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("0", "1, 1", "2, 2", "2, 2", "False", "0, 0", "1", "False, True, False")},
    {"conv bwd fp32 channels_last groups 2", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 16, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL),
     "[" X16_CL ", " X16_CL ", " W8_CL ", [], [], [], [], [], [], [], []]",
     CONV_BWD_ARGS("16", "1, 1", "1, 1", "1, 1", "False", "0, 0", "2", "True, True, True")},
    {"conv bwd fp32 depthwise s2", "aten::convolution_backward",
     "[[2, 16, 6, 6], [2, 16, 12, 12], [16, 1, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("16", "2, 2", "1, 1", "1, 1", "False", "0, 0", "16", "True, True, True")},
    {"conv bwd fp32 conv3d", "aten::convolution_backward",
     "[[2, 8, 6, 6, 6], [2, 4, 6, 6, 6], [8, 4, 3, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("8", "1, 1, 1", "1, 1, 1", "1, 1, 1", "False", "0, 0, 0", "1", "True, True, True")},
    {"conv bwd fp32 transposed s2", "aten::convolution_backward",
     "[[2, 8, 12, 12], [2, 16, 6, 6], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(FL), NULL,
     CONV_BWD_ARGS("8", "2, 2", "1, 1", "1, 1", "True", "1, 1", "1", "True, True, True")},
    {"conv bwd bf16 grad_input, grad_weight", "aten::convolution_backward",
     "[[2, 16, 12, 12], [2, 8, 12, 12], [16, 8, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(BF), NULL,
     CONV_BWD_ARGS("0", "1, 1", "1, 1", "1, 1", "False", "0, 0", "1", "True, True, False")},
};
#define NCONVS ((int)(sizeof CONVS / sizeof CONVS[0]))

/* 1x1, stride 1, no pad, channels_last fp16 / bf16: jv_conv_as_gemm's pointwise convolution */
#define X32_CL "[32768, 1, 1024, 32]"
#define G64_CL "[65536, 1, 2048, 64]"
static const jv_cpu_case CONV_GEMMS[] __attribute__((unused)) = {
    {"1x1 conv fwd bf16 CL as GEMM", "aten::convolution",
     "[[2, 32, 32, 32], [64, 32, 1, 1], [], [], [], [], [], [], []]", CONV_TYPES(BF, NO),
     "[" X32_CL ", [32, 1, 32, 32], [], [], [], [], [], [], []]",
     CONV_FWD_ARGS("1, 1", "0, 0", "1, 1", "False", "0, 0", "1")},
    {"1x1 conv bwd fp16 CL as GEMMs", "aten::convolution_backward",
     "[[2, 64, 32, 32], [2, 32, 32, 32], [64, 32, 1, 1], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(HF),
     "[" G64_CL ", " X32_CL ", [32, 1, 32, 32], [], [], [], [], [], [], [], []]",
     CONV_BWD_ARGS("0", "1, 1", "0, 0", "1, 1", "False", "0, 0", "1", "True, True, False")},
};
#define NCONV_GEMMS           ((int)(sizeof CONV_GEMMS / sizeof CONV_GEMMS[0]))

#define BN_FWD_TYPES(X, W, R) "[" X ", " W ", " W ", " R ", " R ", " SC ", " SC ", " SC "]"
#define BN_FWD_DIMS           "[[4, 16, 10, 10], [16], [16], [16], [16], [], [], []]"
#define TRAIN                 "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"
#define EVAL                  "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]"
#define BN_BWD_TYPES(X)       "[" X ", " X ", " FL ", " FL ", " FL ", " FL ", " FL ", " SC ", " SC ", \"ScalarList\"]"
#define BN_BWD_DIMS           "[[4, 16, 10, 10], [4, 16, 10, 10], [16], [16], [16], [16], [16], [], [], []]"
#define BN_BWD(M)             "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[" M "]\"]"
#define CL16                  "[1600, 1, 160, 16]"

static const jv_cpu_case BNS[] __attribute__((unused)) = {
    {"bn fwd train fp32 NCHW", "aten::native_batch_norm", BN_FWD_DIMS, BN_FWD_TYPES(FL, FL, FL), NULL, TRAIN},
    {"bn fwd train fp32 channels_last", "aten::native_batch_norm", BN_FWD_DIMS, BN_FWD_TYPES(FL, FL, FL),
     "[" CL16 ", [1], [1], [1], [1], [], [], []]", TRAIN},
    {"bn fwd train bf16 CL fp32 params", "aten::native_batch_norm", BN_FWD_DIMS, BN_FWD_TYPES(BF, FL, FL),
     "[" CL16 ", [1], [1], [1], [1], [], [], []]", TRAIN},
    {"bn fwd train fp16 NCHW fp32 params", "aten::native_batch_norm", BN_FWD_DIMS, BN_FWD_TYPES(HF, FL, FL), NULL,
     TRAIN},
    {"bn fwd eval fp32 NCHW", "aten::native_batch_norm", BN_FWD_DIMS, BN_FWD_TYPES(FL, FL, FL), NULL, EVAL},
    {"bn fwd eval bf16 CL fp32 params", "aten::native_batch_norm", BN_FWD_DIMS, BN_FWD_TYPES(BF, FL, FL),
     "[" CL16 ", [1], [1], [1], [1], [], [], []]", EVAL},
    {"bn bwd train fp32 NCHW all grads", "aten::native_batch_norm_backward", BN_BWD_DIMS, BN_BWD_TYPES(FL), NULL,
     BN_BWD("True, True, True")},
    {"bn bwd train fp32 CL grad_input only", "aten::native_batch_norm_backward", BN_BWD_DIMS, BN_BWD_TYPES(FL),
     "[" CL16 ", " CL16 ", [1], [1], [1], [1], [1], [], [], []]", BN_BWD("True, False, False")},
    {"bn bwd train bf16 NCHW weight/bias grads", "aten::native_batch_norm_backward", BN_BWD_DIMS, BN_BWD_TYPES(BF),
     NULL, BN_BWD("False, True, True")},
};
#define NBNS ((int)(sizeof BNS / sizeof BNS[0]))

static const jv_cpu_case *find_case(const jv_cpu_case *t, int n, const char *what) {
    for (int i = 0; i < n; i++)
        if (!strcmp(t[i].what, what)) return &t[i];
    return NULL;
}

/* runs every case of t on path kind k over v; each must match the reference; impl must name want */
static __attribute__((unused)) void run_all(jv_hipv *v, kind k, const jv_cpu_case *t, int n, const char *want,
                                            const char *label) {
    for (int i = 0; i < n; i++) {
        pctx pc = {v, k, ""};
        char msg[600];
        int ok = run_quiet(&pc, &t[i], msg, sizeof msg);
        CHECK_MSG(ok, "%s: %s: %s", label, t[i].what, msg);
        CHECK_MSG(!ok || strstr(pc.impl, want), "%s: %s: impl '%s' does not name %s", label, t[i].what, pc.impl, want);
        printf("%-10s %-48s %-5s %s [%s]\n", label, t[i].what, ok ? "OK" : "WRONG", msg, pc.impl);
    }
}

/* a fault in the mapping must fail the comparison (or the call) */
static __attribute__((unused)) void wrong_case(jv_hipv *v, kind k, const jv_cpu_case *c, int *flag, const char *what) {
    CHECK(c != NULL);
    if (!c) return;
    pctx pc = {v, k, ""};
    char msg[600];
    *flag = 1;
    int ok = run_quiet(&pc, c, msg, sizeof msg);
    *flag = 0;
    CHECK_MSG(!ok, "%s: %s passed with the fault in place", what, c->what);
    printf("%-10s %-48s %-5s %s\n", "fault", what, ok ? "MISSED" : "CAUGHT", msg);
    int again = run_quiet(&pc, c, msg, sizeof msg); /* and right again without it */
    CHECK_MSG(again, "%s: %s wrong after the fault was removed: %s", what, c->what, msg);
}

static __attribute__((unused)) void refused(jv_hipv *v, kind k, const jv_cpu_case *c, const char *want) {
    pctx pc = {v, k, ""};
    char msg[600];
    int ok = run_quiet(&pc, c, msg, sizeof msg);
    CHECK_MSG(!ok && strstr(msg, want), "%s: expected a refusal naming '%s', got: %s", c->what, want, msg);
    printf("%-10s %-48s %s\n", "refused", c->what, msg);
}

#endif

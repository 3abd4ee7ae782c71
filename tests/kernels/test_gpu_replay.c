/* test_gpu_replay: a GPU backend end to end (label gpu; `test_gpu_replay [cuda|hip] [--may-skip FAMILY]...`,
 * default cuda). Every case is a
 * call in trace form (as tests/unit/test_family_*.c spell them), small and at a
 * traced size, for gemm (mm bf16 with a transposed operand, addmm fp32 with
 * the epilogue bias, an [M, 1] bias and beta/alpha, bmm fp16), conv (fp16 NCHW, fp16
 * channels_last grouped and strided, convolution_backward bf16), batch norm
 * (training and eval fp32 NCHW, bf16 channels_last, backward) and
 * elementwise ops (add, mul by a Scalar, relu_, copy_ fp32->bf16,
 * threshold_backward), vLLM's gated activations (silu_and_mul, gelu_tanh_and_mul, mul_and_silu, gelu_and_mul)
 * and RMS norms (rms_norm, fused_add_rms_norm, aten::rms_norm; vector and scalar kernels), rotary_embedding (neox,
 * gptj; the row-layout and the generic kernel). The calls are parsed first (that part runs anywhere); then, when device
 * 0 of the backend opens, each is replayed with jv_run_op on every variant the backend offers and must verify against
 * the CPU reference, and the baseline suite (256 MiB arrays plus a GEMM) must verify. A family named by --may-skip may
 * be refused by the backend (the HIP backend without hipBLASLt or MIOpen: gemm, conv), with its reason printed; what
 * runs must verify all the same. The algorithm searches
 * (--conv-algo, --gemm-algo) run where the backend has options. Exits 77 (skipped) when the backend has no device 0, or
 * is not built into this program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "jv_backends.h"
#include "jv_baseline.h"
#include "jv_family.h"
#include "jv_ir.h"
#include "jv_runner.h"

#include "jv_check.h"

typedef struct {
    const char *what;
    const char *op, *dims, *types, *strides, *conc;
} gcase;

#define BF "\"c10::BFloat16\""
#define HF "\"c10::Half\""
#define FL "\"float\""
#define CONV_TYPES(T)                                                                                                  \
    "[" T ", " T ", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"]"
#define CONV_BWD_TYPES(T)                                                                                              \
    "[" T ", " T ", " T ", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "               \
    "\"ScalarList\", \"Scalar\", \"ScalarList\"]"
#define BN_TYPES(X, P) "[" X ", " P ", " P ", " P ", " P ", \"Scalar\", \"Scalar\", \"Scalar\"]"
#define BN_BWD_TYPES(X, P)                                                                                             \
    "[" X ", " X ", " P ", " P ", " P ", \"float\", \"float\", \"Scalar\", \"Scalar\", \"ScalarList\"]"

static const gcase CASES[] = {
    /* ---- gemm ---- */
    {"mm bf16, A transposed (small)", "aten::mm", "[[64, 32], [32, 48]]", "[" BF ", " BF "]", "[[1, 64], [48, 1]]",
     "[\"\", \"\"]"},
    {"mm bf16, A transposed (traced)", "aten::mm", "[[1000, 512], [512, 512]]", "[" BF ", " BF "]",
     "[[1, 1000], [512, 1]]", "[\"\", \"\"]"},
    {"addmm fp32, [N] bias, B transposed (small)", "aten::addmm", "[[48], [64, 32], [32, 48], [], []]",
     "[" FL ", " FL ", " FL ", \"Scalar\", \"Scalar\"]", "[[1], [32, 1], [1, 32], [], []]",
     "[\"\", \"\", \"\", \"1\", \"1\"]"},
    {"addmm fp32, beta 0.5 alpha 2 (small)", "aten::addmm", "[[48], [64, 32], [32, 48], [], []]",
     "[" FL ", " FL ", " FL ", \"Scalar\", \"Scalar\"]", "[[1], [32, 1], [48, 1], [], []]",
     "[\"\", \"\", \"\", \"0.5\", \"2\"]"},
    {"addmm fp32, [M, N] bias (small)", "aten::addmm", "[[64, 48], [64, 32], [32, 48], [], []]",
     "[" FL ", " FL ", " FL ", \"Scalar\", \"Scalar\"]", "[[48, 1], [32, 1], [48, 1], [], []]",
     "[\"\", \"\", \"\", \"1\", \"1\"]"},
    {"addmm fp32, [M, 1] bias (small; the bias column doubled along N)", "aten::addmm",
     "[[64, 1], [64, 32], [32, 48], [], []]", "[" FL ", " FL ", " FL ", \"Scalar\", \"Scalar\"]",
     "[[1, 1], [32, 1], [48, 1], [], []]", "[\"\", \"\", \"\", \"1\", \"1\"]"},
    {"addmm fp32 (traced resnet fc)", "aten::addmm", "[[1000], [512, 512], [512, 1000], [], []]",
     "[" FL ", " FL ", " FL ", \"Scalar\", \"Scalar\"]", "[[1], [512, 1], [1, 512], [], []]",
     "[\"\", \"\", \"\", \"1\", \"1\"]"},
    {"bmm fp16 (small)", "aten::bmm", "[[4, 33, 16], [4, 16, 40]]", "[" HF ", " HF "]", NULL, NULL},
    {"bmm fp16 (traced)", "aten::bmm", "[[96, 197, 64], [96, 64, 197]]", "[" HF ", " HF "]", NULL, NULL},
    /* ---- conv ---- */
    {"conv2d fp16 NCHW stride 2 (small)", "aten::convolution",
     "[[2, 8, 9, 9], [16, 8, 3, 3], [], [], [], [], [], [], []]", CONV_TYPES(HF), NULL,
     "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]"},
    {"conv2d fp16 NCHW (traced)", "aten::convolution", "[[32, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], []]",
     CONV_TYPES(HF), NULL, "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]"},
    {"conv2d fp16 channels_last groups 4 stride 2", "aten::convolution",
     "[[8, 32, 16, 16], [64, 8, 3, 3], [], [], [], [], [], [], []]", CONV_TYPES(HF),
     "[[8192, 1, 512, 32], [72, 1, 24, 8], [], [], [], [], [], [], []]",
     "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"4\"]"},
    {"convolution_backward bf16, all grads (small)", "aten::convolution_backward",
     "[[4, 16, 8, 8], [4, 16, 8, 8], [16, 16, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(BF), NULL,
     "[\"\", \"\", \"\", \"[16]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
     "\"[True, True, True]\"]"},
    {"convolution_backward bf16 (traced)", "aten::convolution_backward",
     "[[64, 64, 56, 56], [64, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], [], []]", CONV_BWD_TYPES(BF), NULL,
     "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
     "\"[True, True, False]\"]"},
    /* ---- batch norm ---- */
    {"native_batch_norm fp32 NCHW training", "aten::native_batch_norm",
     "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], []]", BN_TYPES(FL, FL),
     "[[16384, 1024, 32, 1], [1], [1], [1], [1], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"},
    {"native_batch_norm fp32 NCHW eval", "aten::native_batch_norm",
     "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], []]", BN_TYPES(FL, FL),
     "[[16384, 1024, 32, 1], [1], [1], [1], [1], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]"},
    {"native_batch_norm bf16 channels_last training", "aten::native_batch_norm",
     "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], []]", BN_TYPES(BF, BF),
     "[[16384, 1, 512, 16], [1], [1], [1], [1], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"},
    {"native_batch_norm bf16 channels_last eval", "aten::native_batch_norm",
     "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], []]", BN_TYPES(BF, BF),
     "[[16384, 1, 512, 16], [1], [1], [1], [1], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]"},
    {"native_batch_norm bf16 training (traced resnet18)", "aten::native_batch_norm",
     "[[128, 64, 56, 56], [64], [64], [64], [64], [], [], []]", BN_TYPES(BF, BF),
     "[[200704, 3136, 56, 1], [1], [1], [1], [1], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"},
    {"native_batch_norm fp32 channels_last training (traced)", "aten::native_batch_norm",
     "[[64, 64, 56, 56], [64], [64], [64], [64], [], [], []]", BN_TYPES(FL, FL),
     "[[200704, 1, 3584, 64], [1], [1], [1], [1], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"},
    {"native_batch_norm_backward fp32 training", "aten::native_batch_norm_backward",
     "[[8, 16, 32, 32], [8, 16, 32, 32], [16], [16], [16], [16], [16], [], [], []]", BN_BWD_TYPES(FL, FL),
     "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [1], [1], [1], [1], [1], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[True, True, True]\"]"},
    {"native_batch_norm_backward fp32 training, grad_input only", "aten::native_batch_norm_backward",
     "[[8, 16, 32, 32], [8, 16, 32, 32], [16], [16], [16], [16], [16], [], [], []]", BN_BWD_TYPES(FL, FL),
     "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [1], [1], [1], [1], [1], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[True, False, False]\"]"},
    {"native_batch_norm_backward bf16 channels_last training", "aten::native_batch_norm_backward",
     "[[8, 16, 32, 32], [8, 16, 32, 32], [16], [16], [16], [16], [16], [], [], []]", BN_BWD_TYPES(BF, BF),
     "[[16384, 1, 512, 16], [16384, 1, 512, 16], [1], [1], [1], [1], [1], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[True, True, True]\"]"},
    {"cudnn_batch_norm fp16 eval (traced)", "aten::cudnn_batch_norm",
     "[[32, 256, 14, 14], [256], [256], [256], [256], [], [], []]", BN_TYPES(HF, FL),
     "[[50176, 196, 14, 1], [1], [1], [1], [1], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]"},
    {"cudnn_batch_norm fp16 channels_last training", "aten::cudnn_batch_norm",
     "[[32, 256, 14, 14], [256], [256], [256], [256], [], [], []]", BN_TYPES(HF, FL),
     "[[50176, 1, 3584, 256], [1], [1], [1], [1], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"},
    {"batch_norm fp32 training (dispatcher's choice)", "aten::batch_norm",
     "[[8, 16, 32, 32], [16], [16], [16], [16], [], [], [], []]",
     "[" FL ", " FL ", " FL ", " FL ", " FL ", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
     "[[16384, 1024, 32, 1], [1], [1], [1], [1], [], [], [], []]",
     "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\", \"True\"]"},
    {"cudnn_batch_norm_backward fp32", "aten::cudnn_batch_norm_backward",
     "[[8, 16, 32, 32], [8, 16, 32, 32], [16], [16], [16], [16], [16], [], [0]]",
     "[" FL ", " FL ", " FL ", " FL ", " FL ", " FL ", " FL ", \"Scalar\", \"unsigned char\"]",
     "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [1], [1], [1], [1], [1], [], [1]]",
     "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1e-05\", \"\"]"},
    /* ---- elementwise ---- */
    {"add fp32 (traced)", "aten::add", "[[16, 559, 1024], [16, 559, 1024], []]", "[" FL ", " FL ", \"Scalar\"]",
     "[[572416, 1024, 1], [572416, 1024, 1], []]", "[\"\", \"\", \"1\"]"},
    {"add bf16, a transposed operand", "aten::add", "[[4, 16, 33, 64], [4, 16, 33, 64], []]",
     "[" BF ", " BF ", \"Scalar\"]", "[[33792, 64, 1024, 1], [33792, 2112, 64, 1], []]", "[\"\", \"\", \"1\"]"},
    {"mul bf16 by a Scalar", "aten::mul", "[[16, 559, 1024], []]", "[" BF ", \"Scalar\"]", "[[572416, 1024, 1], []]",
     "[\"\", \"0.125\"]"},
    {"relu_ bf16", "aten::relu_", "[[64, 64, 56, 56]]", "[" BF "]", "[[200704, 3136, 56, 1]]", "[\"\"]"},
    {"copy_ fp32 -> bf16", "aten::copy_", "[[1, 559, 64], [1, 559, 64], []]", "[" BF ", " FL ", \"Scalar\"]",
     "[[35776, 64, 1], [35776, 64, 1], []]", "[\"\", \"\", \"False\"]"},
    /* the light one-input kernel (ew_dense1_kernel): pow's special exponents, a fill, clamps with a tail */
    {"pow fp32 ^ 1.0 (traced)", "aten::pow", "[[32, 512, 1024], []]", "[" FL ", \"Scalar\"]", "[[524288, 1024, 1], []]",
     "[\"\", \"1.0\"]"},
    {"pow fp32 ^ 3, a tail", "aten::pow", "[[3, 1001], []]", "[" FL ", \"Scalar\"]", "[[1001, 1], []]",
     "[\"\", \"3\"]"},
    {"pow bf16 ^ 0.5", "aten::pow", "[[64, 1000], []]", "[" BF ", \"Scalar\"]", "[[1000, 1], []]", "[\"\", \"0.5\"]"},
    {"pow fp32 ^ -2", "aten::pow", "[[64, 1000], []]", "[" FL ", \"Scalar\"]", "[[1000, 1], []]", "[\"\", \"-2\"]"},
    {"pow fp32 ^ 1.5 (powf)", "aten::pow", "[[64, 1000], []]", "[" FL ", \"Scalar\"]", "[[1000, 1], []]",
     "[\"\", \"1.5\"]"},
    {"fill_ bf16, a tail", "aten::fill_", "[[3, 511, 1027], []]", "[" BF ", \"Scalar\"]", "[[524797, 1027, 1], []]",
     "[\"\", \"0\"]"},
    {"clamp_min bf16 (traced), a tail", "aten::clamp_min", "[[64, 257, 3, 5], []]", "[" BF ", \"Scalar\"]",
     "[[3855, 15, 5, 1], []]", "[\"\", \"0\"]"},
    {"threshold_backward bf16 (traced)", "aten::threshold_backward", "[[64, 64, 112, 112], [64, 64, 112, 112], []]",
     "[" BF ", " BF ", \"Scalar\"]", "[[802816, 12544, 112, 1], [802816, 12544, 112, 1], []]", "[\"\", \"\", \"0\"]"},
    /* ---- serving stacks' gated activations (vector path; the scalar one: a strided input) and RMS norms ---- */
    {"silu_and_mul bf16 (vector)", "_C::silu_and_mul", "[[512, 11008], [512, 22016]]", "[" BF ", " BF "]", NULL, NULL},
    {"gelu_tanh_and_mul fp16 (vector)", "_C::gelu_tanh_and_mul", "[[64, 4096], [64, 8192]]", "[" HF ", " HF "]", NULL,
     NULL},
    {"mul_and_silu fp32, strided input", "_C::mul_and_silu", "[[64, 1000], [64, 2000]]", "[" FL ", " FL "]",
     "[[1000, 1], [3000, 1]]", NULL},
    {"gelu_and_mul bf16, d 1001 (scalar)", "_C::gelu_and_mul", "[[33, 1001], [33, 2002]]", "[" BF ", " BF "]", NULL,
     NULL},
    {"rms_norm bf16 (vLLM)", "_C::rms_norm", "[[512, 4096], [512, 4096], [4096], []]",
     "[" BF ", " BF ", " BF ", \"Scalar\"]", NULL, "[\"\", \"\", \"\", \"1e-06\"]"},
    {"fused_add_rms_norm fp16 (vLLM)", "_C::fused_add_rms_norm", "[[77, 5120], [77, 5120], [5120], []]",
     "[" HF ", " HF ", " HF ", \"Scalar\"]", NULL, "[\"\", \"\", \"\", \"1e-05\"]"},
    {"aten::rms_norm fp32, no weight", "aten::rms_norm", "[[8, 300], [], [], []]",
     "[" FL ", \"ScalarList\", \"\", \"Scalar\"]", NULL, "[\"\", \"[300]\", \"\", \"\"]"},
    /* the cases above run the 16-byte vector kernel; a weight of another dtype runs the scalar one */
    {"rms_norm bf16, fp32 weight (scalar kernel)", "_C::rms_norm", "[[64, 1024], [64, 1024], [1024], []]",
     "[" BF ", " BF ", " FL ", \"Scalar\"]", NULL, "[\"\", \"\", \"\", \"1e-06\"]"},
    {"rotary_embedding bf16 neox (vLLM)", "_C::rotary_embedding",
     "[[512], [512, 4096], [512, 1024], [], [4096, 128], []]",
     "[\"long int\", " BF ", " BF ", \"Scalar\", " BF ", \"Scalar\"]", NULL,
     "[\"\", \"\", \"\", \"128\", \"\", \"True\"]"},
    {"rotary_embedding fp16 gptj, no key, fp32 cache", "_C::rotary_embedding",
     "[[77], [77, 16, 64], [], [], [2048, 32], []]", "[\"long int\", " HF ", \"\", \"Scalar\", " FL ", \"Scalar\"]",
     NULL, "[\"\", \"\", \"\", \"64\", \"\", \"False\"]"},
    /* positions [1, T] and a query with padded rows: the generic kernel (rp_kernel), not the row layout's */
    {"rotary_embedding bf16 gptj, positions [1, T], padded query rows", "_C::rotary_embedding",
     "[[1, 16], [16, 256], [16, 128], [], [64, 64], []]",
     "[\"long int\", " BF ", " BF ", \"Scalar\", " BF ", \"Scalar\"]", "[[16, 1], [768, 1], [128, 1], [], [64, 1], []]",
     "[\"\", \"\", \"\", \"64\", \"\", \"False\"]"},
};
#define NCASES ((int)(sizeof CASES / sizeof CASES[0]))

/* ---- a backend that runs implementation `variant` of the backend under test as variant 0 ---- */
typedef struct {
    const jv_backend *be; /* the backend under test */
    void *inner;          /* its context */
    int variant;
} var_ctx;

#define VBE(c) (((var_ctx *)(c))->be)
static jv_status v_open(int device, void **ctx, jv_err *err) {
    (void)device, (void)ctx;
    JV_FAIL(err, JV_ERR_INTERNAL, "variant backend: not opened this way");
}
static void v_close(void *ctx) {
    (void)ctx;
}
static jv_status v_props(void *c, jv_device_props *p, jv_err *e) {
    return VBE(c)->props(((var_ctx *)c)->inner, p, e);
}
static jv_status v_alloc(void *c, size_t n, void **d, jv_err *e) {
    return VBE(c)->alloc(((var_ctx *)c)->inner, n, d, e);
}
static void v_free(void *c, void *d) {
    VBE(c)->free(((var_ctx *)c)->inner, d);
}
static jv_status v_upload(void *c, void *d, const void *s, size_t n, jv_err *e) {
    return VBE(c)->upload(((var_ctx *)c)->inner, d, s, n, e);
}
static jv_status v_download(void *c, void *d, const void *s, size_t n, jv_err *e) {
    return VBE(c)->download(((var_ctx *)c)->inner, d, s, n, e);
}
static jv_status v_fill(void *c, void *d, int b, size_t n, jv_err *e) {
    return VBE(c)->fill(((var_ctx *)c)->inner, d, b, n, e);
}
static jv_status v_sync(void *c, jv_err *e) {
    return VBE(c)->sync(((var_ctx *)c)->inner, e);
}
static jv_status v_tstart(void *c, jv_err *e) {
    return VBE(c)->timer_start(((var_ctx *)c)->inner, e);
}
static jv_status v_tstop(void *c, double *s, jv_err *e) {
    return VBE(c)->timer_stop(((var_ctx *)c)->inner, s, e);
}
static jv_status v_prepare(void *c, const jv_desc *d, const jv_operands *o, int variant, void **plan, char *impl,
                           size_t cap, jv_err *e) {
    var_ctx *v = c;
    if (variant != 0) JV_FAIL(e, JV_ERR_NOTFOUND, "variant backend: one implementation per op");
    return VBE(c)->prepare(v->inner, d, o, v->variant, plan, impl, cap, e);
}
static jv_status v_launch(void *c, void *plan, const jv_desc *d, const jv_operands *o, void *const *b, jv_err *e) {
    return VBE(c)->launch(((var_ctx *)c)->inner, plan, d, o, b, e);
}
static void v_release(void *c, void *plan) {
    VBE(c)->release(((var_ctx *)c)->inner, plan);
}
static jv_status v_baseline(void *c, jv_base_kernel k, const float *a, const float *b, float *o, int64_t n, float s,
                            jv_err *e) {
    return VBE(c)->baseline(((var_ctx *)c)->inner, k, a, b, o, n, s, e);
}

static jv_status v_graph(void *c, jv_be_run_fn fn, void *arg, int runs, int reps, double *per, jv_err *e) {
    return VBE(c)->graph_time(((var_ctx *)c)->inner, fn, arg, runs, reps, per, e);
}
static jv_status v_clocks(void *c, jv_clocks *k, jv_err *e) {
    return VBE(c)->clocks(((var_ctx *)c)->inner, k, e);
}

/* the wrapper over backend be (its optional entries where be has them) */
static jv_backend variant_backend(const jv_backend *be) {
    jv_backend w = {
        .name = be->name,
        .open = v_open,
        .close = v_close,
        .props = v_props,
        .alloc = v_alloc,
        .free = v_free,
        .upload = v_upload,
        .download = v_download,
        .fill = v_fill,
        .sync = v_sync,
        .timer_start = v_tstart,
        .timer_stop = v_tstop,
        .prepare = v_prepare,
        .launch = v_launch,
        .release = v_release,
        .baseline = v_baseline,
        .range_push = NULL,
        .range_pop = NULL,
        .graph_time = be->graph_time ? v_graph : NULL,
        .clocks = be->clocks ? v_clocks : NULL,
    };
    return w;
}

/* the run under test: the backend, its context, the wrapper over it, the families it may refuse */
typedef struct {
    const jv_backend *be;
    void *ctx;
    jv_backend vbe;
    int may_skip[JV_FAM_COUNT];
    int cuda; /* the CUDA backend: its library names (cuBLASLt, cuDNN) in the impl texts are checked too */
} gpu_run;

/* Parses every case (runs anywhere): the texts must be calls the families model and replay. */
static int parse_cases(jv_opcall *calls) {
    int ok = 1;
    for (int i = 0; i < NCASES; i++) {
        const gcase *g = &CASES[i];
        jv_err err;
        jv_err_clear(&err);
        jv_desc d;
        jv_operands ops;
        memset(&d, 0, sizeof d);
        jv_status st = jv_opcall_from_trace(&calls[i], g->op, g->dims, g->types, g->strides, g->conc, &err);
        if (st == JV_OK) st = jv_desc_parse(&calls[i], &d, &err);
        if (st == JV_OK) st = jv_desc_operands(&d, &ops, &err);
        if (st != JV_OK) fprintf(stderr, "case '%s': %s: %s\n", g->what, jv_status_str(st), err.msg);
        CHECK(st == JV_OK);
        if (st != JV_OK) ok = 0;
    }
    return ok;
}

/* every case on every variant; only >= 0: the cases of that family alone (the convolutions after conv-algo
 * best, the GEMMs after gemm-algo best) */
static void run_cases(gpu_run *g, const jv_device_props *p, jv_opcall *calls, int only) {
    jv_run_opts o;
    jv_run_opts_default(&o, p);
    o.timing.max_time_s = 0.02;
    o.quiet = 1;
    for (int i = 0; i < NCASES; i++) {
        const gcase *gc = &CASES[i];
        jv_ir_op op;
        memset(&op, 0, sizeof op);
        op.op_name = (char *)(uintptr_t)gc->op; /* read only by the runner */
        op.call = calls[i];
        op.index = i;
        jv_desc d;
        jv_operands ops;
        jv_err err;
        jv_err_clear(&err);
        memset(&d, 0, sizeof d);
        if (jv_desc_parse(&calls[i], &d, &err) != JV_OK || jv_desc_operands(&d, &ops, &err) != JV_OK) continue;
        if (only >= 0 && d.family != only) continue;
        for (int v = 0; v < 4; v++) {
            /* does the backend offer variant v? */
            void *plan = NULL;
            char impl[192] = "";
            jv_err_clear(&err);
            jv_status st = g->be->prepare(g->ctx, &d, &ops, v, &plan, impl, sizeof impl, &err);
            if (st == JV_OK) g->be->release(g->ctx, plan);
            if (st == JV_ERR_NOTFOUND && v > 0) break;
            if (st == JV_ERR_NOTFOUND && d.family < JV_FAM_COUNT && g->may_skip[d.family]) {
                printf("%-58s skipped (may be): %s\n", gc->what, err.msg);
                CHECK(err.msg[0] != 0); /* a refusal says why */
                break;
            }
            if (st != JV_OK) {
                printf("%-58s v%d  prepare: %s\n", gc->what, v, err.msg);
                CHECK(st == JV_OK);
                break;
            }
            var_ctx vc = {g->be, g->ctx, v};
            jv_op_result r;
            jv_err_clear(&err);
            st = jv_run_op(&g->vbe, &vc, p, &o, &op, &r, &err);
            CHECK(st == JV_OK);
            CHECK(r.status == JV_RES_OK);
            if (g->cuda && only == JV_FAM_CONV) CHECK(!strncmp(r.impl, "cuDNN searched:", 15));
            /* the chosen cuBLASLt algorithm, and after a search how it went */
            if (g->cuda && d.family == JV_FAM_GEMM) CHECK(!strncmp(r.impl, "cuBLASLt algo ", 14));
            if (g->cuda && d.family == JV_FAM_GEMM)
                CHECK((only == JV_FAM_GEMM) == (strstr(r.impl, ", searched ") != NULL));
            /* ops whose measured launch overhead counts are also timed in a device graph (or the capture is
             * refused, with the reason) */
            if (r.graph_why[0]) {
                CHECK(r.graph_s > 0 || r.graph_note[0]);
                if (r.graph_s > 0) CHECK(r.graph_s < 1.5 * r.hot.median_s);
                printf("    graph: %.2f us per run (%d runs) vs hot median %.2f us%s%s\n", r.graph_s * 1e6,
                       r.graph_runs, r.hot.median_s * 1e6, r.graph_note[0] ? ": " : "", r.graph_note);
            }
            if (r.clk_load.known)
                printf("    clocks: SM %.0f MHz idle, %.0f MHz lowest under load (max %.0f), %.0f W at most%s%s\n",
                       r.clk_start.sm_mhz, r.clk_load.sm_mhz, r.clk_load.sm_max_mhz, r.clk_load.power_w,
                       r.throttled ? ": THROTTLED " : "", r.throttle);
            printf("%-58s v%d  %-14s %-7s rel_l2 %.2e (tol %.1e)%s  %.2f us%s%s\n", gc->what, v, r.impl,
                   jv_res_status_str(r.status), r.verify.rel_l2, r.verify.tol, r.verify.sampled ? " sampled" : "",
                   r.hot.samples ? r.hot.median_s * 1e6 : 0.0, r.status == JV_RES_OK ? "" : "  ",
                   r.status == JV_RES_OK ? "" : r.reason);
            if (st != JV_OK) printf("    backend error: %s\n", err.msg);
        }
    }
}

static void run_baseline(gpu_run *g, const jv_device_props *p) {
    jv_run_opts o;
    jv_run_opts_default(&o, p);
    o.timing.max_time_s = 0.05;
    o.quiet = 1;
    static jv_baseline b;
    jv_err err;
    jv_err_clear(&err);
    jv_status st = jv_baseline_run(g->be, g->ctx, p, &o, (int64_t)256 << 20, 4096, JV_DT_BF16, &b, &err);
    if (st != JV_OK) printf("baseline: %s\n", err.msg);
    CHECK(st == JV_OK);
    CHECK(b.done && b.n == ((int64_t)256 << 20) / 4);
    for (int k = 0; k < JV_BASE_COUNT; k++) {
        printf("baseline %-6s %s  %.1f GB/s\n", jv_base_name((jv_base_kernel)k), b.verified[k] ? "verified" : "WRONG",
               b.bw[k] / 1e9);
        CHECK(b.verified[k] && b.bw[k] > 0);
    }
    if (!b.gemm_done && g->may_skip[JV_FAM_GEMM]) {
        printf("baseline gemm: skipped (may be): %s\n", b.gemm.reason);
        return;
    }
    CHECK(b.gemm_done && b.gemm.status == JV_RES_OK && b.flops_ceiling > 0);
    printf("baseline gemm %lld^3 %s: %s, %.1f TFLOP/s\n", (long long)b.gemm_n, b.gemm.impl,
           jv_res_status_str(b.gemm.status), b.flops_ceiling / 1e12);
}

/* an algorithm search option (--conv-algo / --gemm-algo best), then the cases of its family again; a backend
 * may refuse one it does not implement (without its vendor library), naming it */
static void run_search(gpu_run *g, const jv_device_props *p, jv_opcall *calls, const char *key, int family) {
    jv_err err;
    jv_err_clear(&err);
    jv_status st = g->be->set_option(g->ctx, key, "best", &err);
    if (st == JV_ERR_NOTFOUND && !g->cuda) {
        CHECK(strstr(err.msg, key) != NULL);
        printf("%s best: not on this backend: %s\n", key, err.msg);
        return;
    }
    CHECK(st == JV_OK);
    CHECK(g->be->set_option(g->ctx, key, "fastest", &err) == JV_ERR_NOTFOUND);
    run_cases(g, p, calls, family);
    CHECK(g->be->set_option(g->ctx, key, "heuristic", &err) == JV_OK);
}

/* usage: test_gpu_replay [BACKEND] [--may-skip FAMILY]... (default cuda) */
int main(int argc, char **argv) {
    gpu_run g;
    memset(&g, 0, sizeof g);
    const char *name = "cuda";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--may-skip") && i + 1 < argc) {
            int f = 0;
            while (f < JV_FAM_COUNT && strcmp(jv_family_get(f)->name, argv[i + 1]) != 0)
                f++;
            if (f == JV_FAM_COUNT) {
                fprintf(stderr, "test_gpu_replay: no family '%s'\n", argv[i + 1]);
                return 2;
            }
            g.may_skip[f] = 1;
            i++;
        } else if (argv[i][0] != '-') {
            name = argv[i];
        } else {
            fprintf(stderr, "usage: test_gpu_replay [BACKEND] [--may-skip FAMILY]...\n");
            return 2;
        }
    }
    const jv_backend_entry *e = jv_backends_find(name);
    if (!e || !e->be) {
        printf("skipped: no %s backend in this build\n", name);
        return e ? 77 : 2;
    }
    g.be = e->be;
    g.vbe = variant_backend(g.be);
    g.cuda = !strcmp(name, "cuda");
    static jv_opcall calls[NCASES];
    int parsed = parse_cases(calls);
    jv_err err;
    jv_err_clear(&err);
    jv_status st = g.be->open(0, &g.ctx, &err);
    if (st == JV_ERR_NOTFOUND) {
        printf("skipped: %s (%d cases parsed, %d checks passed)\n", err.msg, NCASES, passed);
        for (int i = 0; i < NCASES; i++)
            jv_opcall_free(&calls[i]);
        return failed ? 1 : 77;
    }
    CHECK(st == JV_OK);
    if (st == JV_OK) {
        jv_device_props p;
        CHECK(g.be->props(g.ctx, &p, &err) == JV_OK);
        printf("device: %s (%s, %s, %d SMs, last-level cache %lld bytes, %.0f MHz)\n", p.name, p.arch, p.driver,
               p.compute_units, (long long)p.llc_bytes, p.clock_mhz);
        CHECK(p.is_gpu && !strcmp(p.backend, name) && p.memory_bytes > 0 && p.compute_units > 0);
        if (parsed) run_cases(&g, &p, calls, -1);
        if (g.be->set_option && parsed) {
            /* --conv-algo best: the library's algorithms run and ranked by time; --gemm-algo best: the
             * library's first 16 heuristic picks timed, the fastest kept */
            run_search(&g, &p, calls, "conv-algo", JV_FAM_CONV);
            run_search(&g, &p, calls, "gemm-algo", JV_FAM_GEMM);
        }
        run_baseline(&g, &p);
        g.be->close(g.ctx);
    } else {
        printf("open: %s\n", err.msg);
    }
    for (int i = 0; i < NCASES; i++)
        jv_opcall_free(&calls[i]);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

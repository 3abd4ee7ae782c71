/* Unit tests of the unary and binary elementwise families: hand-computed
 * FLOPs/bytes, rows of TraceLens' UnaryElementwise/BinaryElementwise sheets
 * where TraceLens is right, the deliberate fixes (Scalar operands move no
 * bytes, bool is 1 byte, type promotion), descriptor fields, params, and
 * hostile calls. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "elementwise/elementwise.h"

#include "jv_check.h"

static int near(double a, double b) {
    return fabs(a - b) <= 1e-6 * fmax(1.0, fabs(b));
}

/* one parsed call with its model numbers and params */
typedef struct {
    jv_status st;
    jv_err err;
    jv_desc d;
    jv_perf p;
    jv_params ps;
} result;

static result R; /* reused: jv_desc is large */

static const jv_elementwise_desc *run(const jv_family *f, const char *name, const char *dims, const char *types,
                                      const char *strides, const char *concrete) {
    jv_opcall c;
    memset(&R, 0, sizeof R);
    jv_status s = jv_opcall_from_trace(&c, name, dims, types, strides, concrete, &R.err);
    if (s == JV_OK) {
        s = f->parse(&c, &R.d, &R.err);
        if (s == JV_OK) {
            R.p.bytes = NAN;
            f->model(&R.d, &R.p);
            f->params(&R.d, &R.ps);
        }
    }
    jv_opcall_free(&c);
    R.st = s;
    return s == JV_OK ? jv_elementwise_of(&R.d) : NULL;
}

static const char *param(const char *name) {
    for (int i = 0; i < R.ps.n; i++)
        if (!strcmp(R.ps.p[i].name, name)) return R.ps.p[i].text;
    return "<missing>";
}

/* TraceLens' numbers for a row: flops = GFLOPS_first*1e9, bytes = MB_first*2^20 */
static void expect_tl(const char *what, double gflops, double mb, double bytes_delta) {
    CHECK_MSG(R.st == JV_OK, "%s: parse failed: %s", what, R.err.msg);
    if (R.st != JV_OK) return;
    CHECK_MSG(near(R.p.flops, gflops * 1e9), "%s: flops %.17g, TraceLens %.17g", what, R.p.flops, gflops * 1e9);
    CHECK_MSG(near(R.p.bytes, mb * 1048576.0 + bytes_delta), "%s: bytes %.17g, expected %.17g", what, R.p.bytes,
              mb * 1048576.0 + bytes_delta);
}

static void expect_param(const char *name, const char *text) {
    const char *got = param(name);
    CHECK_MSG(!strcmp(got, text), "param %s = \"%s\", expected \"%s\"", name, got, text);
}

/* ---- rows from the TraceLens sheets ---- */

static void test_tracelens_binary_rows(void) {
    const jv_family *B = &jv_binary_family;
    /* amd_mi300x_resnet18_train/BinaryElementwise.csv: add_ (512,64,56,56) bf16 + bf16, alpha 1.
     * n = 102760448; bytes = 3*n*2 = 616562688 = 588.0 MiB */
    const jv_elementwise_desc *g = run(B, "aten::add_", "[[512, 64, 56, 56], [512, 64, 56, 56], []]",
                                       "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
                                       "[[200704, 3136, 56, 1], [200704, 3136, 56, 1], []]", "[\"\", \"\", \"1\"]");
    expect_tl("resnet add_", 0.102760448, 588.0, 0);
    if (g) {
        CHECK_MSG(g->inplace && !g->write_only && g->arity == 2 && g->op == JV_EW_ADD, "add_ desc flags");
        CHECK_MSG(g->alpha == 1 && g->out_arg == 0 && g->out.dtype == JV_DT_BF16, "add_ alpha/out");
        CHECK_MSG(R.p.dtype == JV_DT_BF16 && R.p.matrix == 0, "add_ compute dtype bf16, vector");
        expect_param("shape_in1", "(512, 64, 56, 56)");
        expect_param("shape_in2", "(512, 64, 56, 56)");
        expect_param("dtype_in1_in2_out", "('c10::BFloat16', 'c10::BFloat16', None)");
        expect_param("stride_input1", "(200704, 3136, 56, 1)");
        expect_param("stride_input2", "(200704, 3136, 56, 1)");
        expect_param("stride_output", "None");
    }
    /* threshold_backward (512,64,112,112) bf16: n = 411041792; bytes = 6n = 2352.0 MiB */
    g = run(B, "aten::threshold_backward", "[[512, 64, 112, 112], [512, 64, 112, 112], []]",
            "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
            "[[802816, 12544, 112, 1], [802816, 12544, 112, 1], []]", "[\"\", \"\", \"0\"]");
    expect_tl("resnet threshold_backward", 0.411041792, 2352.0, 0);
    if (g) CHECK_MSG(g->threshold == 0 && R.d.bwd == 1 && g->arity == 2, "threshold_backward: threshold 0, bwd");
    /* add_ of two 0-d long tensors (num_batches_tracked += 1): 8 + 8 + 8 = 24 bytes */
    g = run(B, "aten::add_", "[[], [], []]", "[\"long int\", \"long int\", \"Scalar\"]", "[[], [], []]",
            "[\"\", \"\", \"1\"]");
    expect_tl("resnet add_ 0-d long", 1e-09, 2.288818359375e-05, 0);
    if (g) {
        CHECK_MSG(R.p.bytes == 24 && R.p.dtype == JV_DT_I64, "0-d add_: 24 bytes, int64");
        expect_param("shape_in1", "()");
        expect_param("dtype_in1_in2_out", "('long int', 'long int', None)");
        expect_param("stride_input2", "()");
    }
    /* div (512,512,7,7) bf16 by a 0-d long tensor: 2n + 8 + 2n (the output stays bf16):
     * 4*12845056 + 8 = 51380232 = 49.00000762939453 MiB; TraceLens agrees */
    g = run(B, "aten::div", "[[512, 512, 7, 7], []]", "[\"c10::BFloat16\", \"long int\"]", "[[512, 1, 0, 0], []]",
            "[\"\", \"\"]");
    expect_tl("resnet div by 0-d long", 0.012845056, 49.00000762939453, 0);
    if (g) {
        CHECK_MSG(g->out.dtype == JV_DT_BF16, "bf16 / 0-d long -> bf16");
        CHECK_MSG(g->in[0].layout == JV_LAYOUT_BROADCAST, "expanded input has broadcast layout");
        expect_param("dtype_in1_in2_out", "('c10::BFloat16', 'long int', None)");
        expect_param("stride_input1", "(512, 1, 0, 0)");
    }
    /* div by Scalar 49: TraceLens 2n + 4 + 2n = 49.000003814697266 MiB; a Scalar moves no bytes: TraceLens - 4 */
    g = run(B, "aten::div", "[[512, 512, 7, 7], []]", "[\"c10::BFloat16\", \"Scalar\"]", "[[512, 1, 0, 0], []]",
            "[\"\", \"49\"]");
    expect_tl("resnet div by Scalar (fix: -4 bytes)", 0.012845056, 49.000003814697266, -4);
    if (g) {
        CHECK_MSG(R.p.bytes == 4.0 * 12845056, "div by Scalar: 4n bytes");
        CHECK_MSG(g->in[1].kind == JV_EW_SCALAR && g->in[1].has_value && g->in[1].value == 49, "Scalar operand 49");
        expect_param("shape_in2", "()");
        expect_param("dtype_in1_in2_out", "('c10::BFloat16', 'Scalar', None)");
        expect_param("stride_input2", "()");
    }

    /* nv_h100_qwen15_05b_infer/BinaryElementwise.csv */
    /* add (16,16,559,64) bf16, one input a transposed view: 6 * 9158656 = 52.40625 MiB */
    run(B, "aten::add", "[[16, 16, 559, 64], [16, 16, 559, 64], []]",
        "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]", "[[572416, 64, 1024, 1], [572416, 35776, 64, 1], []]",
        "[\"\", \"\", \"1\"]");
    expect_tl("qwen add", 0.009158656, 52.40625, 0);
    expect_param("stride_input1", "(572416, 64, 1024, 1)");
    /* mul (16,559,1024) * (16,559,1) fp32, broadcast: 9158656*4 + 8944*4 + 9158656*4 = 73305024 */
    g = run(B, "aten::mul", "[[16, 559, 1024], [16, 559, 1]]", "[\"float\", \"float\"]",
            "[[572416, 1024, 1], [559, 1, 1]]", "[\"\", \"\"]");
    expect_tl("qwen mul broadcast", 0.009158656, 69.90911865234375, 0);
    if (g) CHECK_MSG(R.p.bytes == 73305024.0 && g->n_out == 9158656, "mul broadcast bytes by hand");
    /* mul (16,16,559,64) * (1,1,559,64) bf16: 2n + 35776*2 + 2n */
    run(B, "aten::mul", "[[16, 16, 559, 64], [1, 1, 559, 64]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
        "[[572416, 64, 1024, 1], [35776, 35776, 64, 1]]", "[\"\", \"\"]");
    expect_tl("qwen mul rope", 0.009158656, 35.0057373046875, 0);
    /* mul (1024,) * (16,559,1024) bf16: 2048 + 4n */
    run(B, "aten::mul", "[[1024], [16, 559, 1024]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
        "[[1], [572416, 1024, 1]]", "[\"\", \"\"]");
    expect_tl("qwen mul weight", 0.009158656, 34.939453125, 0);
    expect_param("shape_in1", "(1024,)");
    expect_param("stride_input1", "(1,)");
    /* mul (16,559,2816) bf16 x2 */
    run(B, "aten::mul", "[[16, 559, 2816], [16, 559, 2816]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
        "[[1574144, 2816, 1], [1574144, 2816, 1]]", "[\"\", \"\"]");
    expect_tl("qwen mul mlp", 0.025186304, 144.1171875, 0);
    run(B, "aten::add", "[[16, 559, 1024], [16, 559, 1024], []]", "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
        "[[572416, 1024, 1], [572416, 1024, 1], []]", "[\"\", \"\", \"1\"]");
    expect_tl("qwen add residual", 0.009158656, 52.40625, 0);
    /* add (16,559,1) fp32 + 0-d double: the output stays fp32: 8944*4 + 8 + 8944*4 = 71560 */
    g = run(B, "aten::add", "[[16, 559, 1], [], []]", "[\"float\", \"double\", \"Scalar\"]", "[[559, 1, 1], [], []]",
            "[\"\", \"\", \"1\"]");
    expect_tl("qwen add eps", 8.944e-06, 0.06824493408203125, 0);
    if (g) CHECK_MSG(g->out.dtype == JV_DT_F32 && R.p.bytes == 71560, "f32 + 0-d f64 -> f32, 71560 bytes");
    /* mul (1,559,64) fp32 * 0-d double: 35776*8 + 8 = 286216 */
    run(B, "aten::mul", "[[1, 559, 64], []]", "[\"float\", \"double\"]", "[[35776, 64, 1], []]", "[\"\", \"\"]");
    expect_tl("qwen mul scale", 3.5776e-05, 0.27295684814453125, 0);
    expect_param("dtype_in1_in2_out", "('float', 'double', None)");
}

static void test_tracelens_unary_rows(void) {
    const jv_family *U = &jv_unary_family;
    /* amd_mi300x_resnet18_train/UnaryElementwise.csv: clamp_min_ bf16 (relu_): 2n*2 bytes */
    static const struct {
        const char *dims, *strides;
        double gflops, mb;
    } CM[] = {
        {"[[512, 64, 56, 56], []]", "[[200704, 3136, 56, 1], []]", 0.102760448, 392.0},
        {"[[512, 64, 112, 112], []]", "[[802816, 12544, 112, 1], []]", 0.411041792, 1568.0},
        {"[[512, 128, 28, 28], []]", "[[100352, 784, 28, 1], []]", 0.051380224, 196.0},
        {"[[512, 256, 14, 14], []]", "[[50176, 196, 14, 1], []]", 0.025690112, 98.0},
        {"[[512, 512, 7, 7], []]", "[[25088, 49, 7, 1], []]", 0.012845056, 49.0},
    };
    for (size_t i = 0; i < sizeof CM / sizeof CM[0]; i++) {
        const jv_elementwise_desc *g =
            run(U, "aten::clamp_min_", CM[i].dims, "[\"c10::BFloat16\", \"Scalar\"]", CM[i].strides, "[\"\", \"0\"]");
        expect_tl("resnet clamp_min_", CM[i].gflops, CM[i].mb, 0);
        if (g && i == 0) {
            CHECK_MSG(g->has_min && g->min == 0 && !g->has_max && g->inplace, "clamp_min_ bound 0");
            expect_param("op_shape", "(512, 64, 56, 56)");
            expect_param("dtype_in_out", "('c10::BFloat16', None)");
            expect_param("stride_input", "(200704, 3136, 56, 1)");
            expect_param("stride_output", "None");
            expect_param("input_shape", "nan");
            expect_param("output_shape", "nan");
        }
    }
    /* nv_h100_qwen15_05b_infer/UnaryElementwise.csv */
    /* cast copy_ fp32 dst <- bf16 src: n*4 + n*2 = 6 * 9158656 = 52.40625 MiB */
    const jv_elementwise_desc *g =
        run(U, "aten::copy_", "[[16, 559, 1024], [16, 559, 1024], []]", "[\"float\", \"c10::BFloat16\", \"Scalar\"]",
            "[[572416, 1024, 1], [572416, 1024, 1], []]", "[\"\", \"\", \"False\"]");
    expect_tl("qwen copy_ bf16->fp32", 0.009158656, 52.40625, 0);
    if (g) {
        CHECK_MSG(g->out.dtype == JV_DT_F32 && g->in[0].t.dtype == JV_DT_BF16 && g->in[0].arg == 1, "copy_ dst/src");
        CHECK_MSG(R.p.dtype == JV_DT_F32, "copy_ compute dtype = dst (TraceLens vector_fp32)");
        expect_param("dtype_in_out", "('float', 'c10::BFloat16')");
        expect_param("stride_output", "(572416, 1024, 1)");
    }
    /* cast copy_ bf16 dst <- fp32 src (the fp32 -> bf16 cast): n*2 + n*4 */
    g = run(U, "aten::copy_", "[[1, 559, 64], [1, 559, 64], []]", "[\"c10::BFloat16\", \"float\", \"Scalar\"]",
            "[[35776, 64, 1], [35776, 64, 1], []]", "[\"\", \"\", \"False\"]");
    expect_tl("qwen copy_ fp32->bf16", 3.5776e-05, 0.2047119140625, 0);
    if (g) CHECK_MSG(R.p.bytes == 35776.0 * 6 && R.p.dtype == JV_DT_BF16, "fp32->bf16 copy_: 6 bytes/elem");
    /* transposing copy_ bf16: 4n */
    run(U, "aten::copy_", "[[16, 559, 16, 64], [16, 559, 16, 64], []]",
        "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]", "[[572416, 1024, 64, 1], [572416, 64, 35776, 1], []]",
        "[\"\", \"\", \"False\"]");
    expect_tl("qwen copy_ transpose", 0.009158656, 34.9375, 0);
    expect_param("stride_output", "(572416, 64, 35776, 1)");
    /* copy_ long -> float: 559*4 + 559*8 */
    run(U, "aten::copy_", "[[1, 1, 559], [1, 1, 559], []]", "[\"float\", \"long int\", \"Scalar\"]",
        "[[559, 559, 1], [559, 559, 1], []]", "[\"\", \"\", \"False\"]");
    expect_tl("qwen copy_ long->float", 5.59e-07, 0.006397247314453125, 0);
    /* pow(x, 2) fp32: 2n*4 */
    g = run(U, "aten::pow", "[[16, 559, 1024], []]", "[\"float\", \"Scalar\"]", "[[572416, 1024, 1], []]",
            "[\"\", \"2\"]");
    expect_tl("qwen pow", 0.009158656, 69.875, 0);
    if (g) {
        CHECK_MSG(g->has_exponent && g->exponent == 2 && g->arity == 2, "pow exponent 2");
        expect_param("dtype_in_out", "('float', None)");
    }
    run(U, "aten::silu", "[[16, 559, 2816]]", "[\"c10::BFloat16\"]", "[[1574144, 2816, 1]]", "[\"\"]");
    expect_tl("qwen silu", 0.025186304, 96.078125, 0);
    run(U, "aten::neg", "[[16, 16, 559, 32]]", "[\"c10::BFloat16\"]", "[[572416, 64, 1024, 1]]", "[\"\"]");
    expect_tl("qwen neg", 0.004579328, 17.46875, 0);
    run(U, "aten::rsqrt", "[[16, 559, 1]]", "[\"float\"]", "[[559, 1, 1]]", "[\"\"]");
    expect_tl("qwen rsqrt", 8.944e-06, 0.0682373046875, 0);
    /* amd_mi250_minitoy_train: clamp_min (not in place) fp32 (5,128) and copy_ */
    run(U, "aten::clamp_min", "[[5, 128], []]", "[\"float\", \"Scalar\"]", "[[128, 1], []]", "[\"\", \"0\"]");
    expect_tl("minitoy clamp_min", 6.4e-07, 0.0048828125, 0);
    run(U, "aten::copy_", "[[5, 128], [5, 128], []]", "[\"float\", \"float\", \"Scalar\"]", "[[128, 1], [128, 1], []]",
        "[\"\", \"\", \"False\"]");
    expect_tl("minitoy copy_", 6.4e-07, 0.0048828125, 0);
    expect_param("op_shape", "(5, 128)");
    expect_param("dtype_in_out", "('float', 'float')");
    expect_param("stride_input", "(128, 1)");
    expect_param("stride_output", "(128, 1)");
    /* nv_h100_timesformer_infer: upsample_nearest1d (1,768,8) -> (1,768,128) bf16:
     * flops = 98304; bytes = (6144 + 98304)*2 = 208896 = 0.19921875 MiB */
    g = run(U, "aten::upsample_nearest1d", "[[1, 768, 8], [], []]", "[\"c10::BFloat16\", \"ScalarList\", \"\"]",
            "[[6144, 1, 768], [], []]", "[\"\", \"[128]\", \"\"]");
    expect_tl("timesformer upsample_nearest1d", 9.8304e-05, 0.19921875, 0);
    if (g) {
        CHECK_MSG(g->spatial == 1 && g->out.shape[2] == 128 && g->out.dtype == JV_DT_BF16 && g->scales[0] == 0,
                  "upsample1d desc");
        expect_param("op_shape", "(1, 768, 128)");
        expect_param("dtype_in_out", "('c10::BFloat16', 'c10::BFloat16')");
        expect_param("stride_input", "(6144, 1, 768)");
        expect_param("stride_output", "None");
        expect_param("input_shape", "(1, 768, 8)");
        expect_param("output_shape", "(1, 768, 128)");
    }
    /* amd_mi300x_vllm_gptoss_decode_graph: copy_ int32 <- int64 (32): 32*8 + 32*4 = 384 bytes */
    run(U, "aten::copy_", "[[32], [32], []]", "[\"long int\", \"int\", \"Scalar\"]", "[[1], [1], []]",
        "[\"\", \"\", \"False\"]");
    expect_tl("gptoss copy_ int->long", 3.2e-08, 0.0003662109375, 0);
    /* bool copy_: TraceLens has no bool size (empty Data Moved); here 32 + 32 bytes */
    run(U, "aten::copy_", "[[32], [32], []]", "[\"bool\", \"bool\", \"Scalar\"]", "[[1], [1], []]",
        "[\"\", \"\", \"True\"]");
    CHECK_MSG(R.st == JV_OK && R.p.flops == 32 && R.p.bytes == 64, "bool copy_: 64 bytes (TraceLens NaN)");
}

/* ---- hand-computed cases ---- */

static void test_broadcast_and_promotion(void) {
    const jv_family *B = &jv_binary_family;
    /* [4,1,8] fp32 + [3,1] fp32 -> [4,3,8]: flops 96; bytes 32*4 + 3*4 + 96*4 = 524 */
    const jv_elementwise_desc *g = run(B, "aten::add", "[[4, 1, 8], [3, 1], []]", "[\"float\", \"float\", \"Scalar\"]",
                                       "[[8, 8, 1], [1, 1], []]", "[\"\", \"\", \"2.5\"]");
    CHECK_MSG(g && R.p.flops == 96 && R.p.bytes == 524, "broadcast add: 96 flops, 524 bytes (got %g, %g)", R.p.flops,
              R.p.bytes);
    if (g) {
        CHECK_MSG(g->out.ndim == 3 && g->out.shape[0] == 4 && g->out.shape[1] == 3 && g->out.shape[2] == 8,
                  "broadcast shape");
        CHECK_MSG(g->alpha == 2.5, "alpha parsed");
        CHECK_MSG(g->out.strides[0] == 24 && g->out.strides[1] == 8 && g->out.strides[2] == 1, "contiguous output");
    }
    /* not broadcastable: [4,3] + [5] */
    run(B, "aten::add", "[[4, 3], [5], []]", "[\"float\", \"float\", \"Scalar\"]", "[[3, 1], [1], []]",
        "[\"\", \"\", \"1\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "[4,3] + [5] does not broadcast");
    /* in place: other [4,5] does not fit self [4,1] */
    run(B, "aten::add_", "[[4, 1], [4, 5], []]", "[\"float\", \"float\", \"Scalar\"]", "[[1, 1], [5, 1], []]",
        "[\"\", \"\", \"1\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "add_ cannot grow self");
    /* scalar add: bf16 [1024] + 2 (alpha 1). TraceLens: 2048 + 4 + 2048 = 4100; here 4096 = TraceLens - 4 */
    g = run(B, "aten::add", "[[1024], [], []]", "[\"c10::BFloat16\", \"Scalar\", \"Scalar\"]", "[[1], [], []]",
            "[\"\", \"2\", \"1\"]");
    CHECK_MSG(g && R.p.bytes == 4100 - 4 && R.p.flops == 1024, "scalar add: TraceLens bytes - 4");
    if (g) CHECK_MSG(g->out.dtype == JV_DT_BF16 && g->in[1].t.dtype == JV_DT_I64, "int Scalar keeps bf16");
    /* int32 tensor + float Scalar -> float32: 16*4 + 16*4 = 128 */
    g = run(B, "aten::mul", "[[16], []]", "[\"int\", \"Scalar\"]", "[[1], []]", "[\"\", \"0.5\"]");
    CHECK_MSG(g && g->out.dtype == JV_DT_F32 && R.p.bytes == 128, "int32 * 0.5 -> fp32");
    /* int32 [32] - 0-d int64 -> int32 (vllm trace): 32*4 + 8 + 32*4 = 264 */
    g = run(B, "aten::sub", "[[32], [], []]", "[\"int\", \"long int\", \"Scalar\"]", "[[1], [], []]",
            "[\"\", \"\", \"1\"]");
    CHECK_MSG(g && g->out.dtype == JV_DT_I32 && R.p.bytes == 264, "int32 - 0-d int64 -> int32, 264 bytes");
    /* fp16 [8] + bf16 [8] -> fp32: 16 + 16 + 32 = 64 (TraceLens: max bpe 2 -> 48) */
    g = run(B, "aten::add", "[[8], [8], []]", "[\"c10::Half\", \"c10::BFloat16\", \"Scalar\"]", "[[1], [1], []]",
            "[\"\", \"\", \"1\"]");
    CHECK_MSG(g && g->out.dtype == JV_DT_F32 && R.p.bytes == 64, "fp16 + bf16 -> fp32");
    /* int64 / int64 true division -> fp32: 8*8 + 8*8 + 8*4 = 160; floor division keeps int64: 192 */
    g = run(B, "aten::div", "[[8], [8]]", "[\"long int\", \"long int\"]", "[[1], [1]]", "[\"\", \"\"]");
    CHECK_MSG(g && g->out.dtype == JV_DT_F32 && R.p.bytes == 160 && g->rounding == 0, "int64 / int64 -> fp32");
    g = run(B, "aten::div", "[[8], [8], []]", "[\"long int\", \"long int\", \"\"]", "[[1], [1], []]",
            "[\"\", \"\", \"floor\"]");
    CHECK_MSG(g && g->out.dtype == JV_DT_I64 && R.p.bytes == 192 && g->rounding == 2, "floor division keeps int64");
    /* 0-d float tensor with a dimensioned int tensor: the float category wins -> fp32 */
    g = run(B, "aten::mul", "[[10], []]", "[\"long int\", \"double\"]", "[[1], []]", "[\"\", \"\"]");
    CHECK_MSG(g && g->out.dtype == JV_DT_F64, "int64 [10] * 0-d double -> double (higher category)");
    /* channels-last input keeps its layout in the output */
    g = run(B, "aten::mul", "[[2, 3, 4, 5], [2, 3, 4, 5]]", "[\"float\", \"float\"]",
            "[[60, 1, 15, 3], [60, 1, 15, 3]]", "[\"\", \"\"]");
    CHECK_MSG(g && g->in[0].layout == JV_LAYOUT_CHANNELS_LAST && g->out_layout == JV_LAYOUT_CHANNELS_LAST,
              "channels_last output");
}

static void test_comparisons_and_ternary(void) {
    const jv_family *B = &jv_binary_family;
    /* eq(fp32 [10,20], Scalar 1): out bool 1 byte: 200*4 + 200*1 = 1000 */
    const jv_elementwise_desc *g =
        run(B, "aten::eq", "[[10, 20], []]", "[\"float\", \"Scalar\"]", "[[20, 1], []]", "[\"\", \"1\"]");
    CHECK_MSG(g && g->out.dtype == JV_DT_BOOL && R.p.bytes == 1000 && R.p.flops == 200, "eq -> bool, 1000 bytes");
    if (g) CHECK_MSG(R.p.dtype == JV_DT_F32, "compute dtype of eq = input");
    /* lt(fp16 [8], fp16 [8]): 16 + 16 + 8 = 40 */
    g = run(B, "aten::lt", "[[8], [8]]", "[\"c10::Half\", \"c10::Half\"]", "[[1], [1]]", "[\"\", \"\"]");
    CHECK_MSG(g && R.p.bytes == 40, "lt: 40 bytes");
    /* ge_ in place keeps self's dtype: 8*2*3 = 48 */
    g = run(B, "aten::ge_", "[[8], [8]]", "[\"c10::Half\", \"c10::Half\"]", "[[1], [1]]", "[\"\", \"\"]");
    CHECK_MSG(g && g->out.dtype == JV_DT_F16 && R.p.bytes == 48, "ge_ in place: fp16 out");
    /* where(bool [64,1], fp32 [64,32], fp32 [32]) -> [64,32] fp32: 64 + 2048*4 + 32*4 + 2048*4 = 16576 */
    g = run(B, "aten::where", "[[64, 1], [64, 32], [32]]", "[\"bool\", \"float\", \"float\"]", "[[1, 1], [32, 1], [1]]",
            "[\"\", \"\", \"\"]");
    CHECK_MSG(g && g->arity == 3 && R.p.flops == 2048 && R.p.bytes == 16576, "where ternary: 16576 bytes (got %g)",
              R.p.bytes);
    if (g) {
        CHECK_MSG(g->out.dtype == JV_DT_F32, "where out fp32 (cond excluded from promotion)");
        expect_param("dtype_in1_in2_out", "('bool', 'float', 'float')"); /* TraceLens reads Dims[2] as the out */
        expect_param("stride_output", "(1,)");
    }
    /* where(cond, x, Scalar 0.): 2048*1 + 2048*4 + 0 + 2048*4 */
    g = run(B, "aten::where", "[[2048], [2048], []]", "[\"bool\", \"float\", \"Scalar\"]", "[[1], [1], []]",
            "[\"\", \"\", \"0.\"]");
    CHECK_MSG(g && R.p.bytes == 2048.0 * 9 && g->out.dtype == JV_DT_F32, "where with a Scalar other");
    /* where(cond, Scalar, Scalar) with no concrete values: dtype unknown -> bytes NaN */
    run(B, "aten::where", "[[2048], [], []]", "[\"bool\", \"Scalar\", \"Scalar\"]", "[[1], [], []]", NULL);
    CHECK_MSG(R.st == JV_OK && isnan(R.p.bytes) && R.p.flops == 2048, "where of unknown Scalars: bytes NaN");
    /* masked_fill_(fp32 [2048], bool [2048], Scalar -inf): 2048*4 + 2048 + 2048*4 = 18432 */
    g = run(B, "aten::masked_fill_", "[[2048], [2048], []]", "[\"float\", \"bool\", \"Scalar\"]", "[[1], [1], []]",
            "[\"\", \"\", \"-inf\"]");
    CHECK_MSG(g && R.p.bytes == 18432 && g->has_fill && isinf(g->fill) && g->fill < 0,
              "masked_fill_: 18432 bytes, -inf");
    /* addcmul_(fp32 [512,8192] x3, value 0.5): 4 * n * 4 bytes */
    g = run(B, "aten::addcmul_", "[[512, 8192], [512, 8192], [512, 8192], []]",
            "[\"float\", \"float\", \"float\", \"Scalar\"]", "[[8192, 1], [8192, 1], [8192, 1], []]",
            "[\"\", \"\", \"\", \"0.5\"]");
    CHECK_MSG(g && R.p.bytes == 4.0 * 4194304 * 4 && g->value == 0.5 && g->arity == 3, "addcmul_: 4 tensors");
    /* lerp(bf16 [100], bf16 [100], Scalar 0.1): 200 + 200 + 200 */
    g = run(B, "aten::lerp", "[[100], [100], []]", "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
            "[[1], [1], []]", "[\"\", \"\", \"0.1\"]");
    CHECK_MSG(g && R.p.bytes == 600 && g->has_weight && g->weight == 0.1, "lerp Scalar weight");
    /* backward ops: sigmoid_backward (TraceLens models it), gelu_backward approximate tanh */
    g = run(B, "aten::sigmoid_backward", "[[2048, 1], [2048, 1]]", "[\"float\", \"float\"]", "[[1, 1], [1, 1]]", NULL);
    CHECK_MSG(g && R.p.bytes == 2048.0 * 12 && R.d.bwd, "sigmoid_backward: 3n*4");
    g = run(B, "aten::gelu_backward", "[[4, 8], [4, 8], []]", "[\"c10::BFloat16\", \"c10::BFloat16\", \"\"]",
            "[[8, 1], [8, 1], []]", "[\"\", \"\", \"tanh\"]");
    CHECK_MSG(g && g->gelu_tanh && R.p.bytes == 32.0 * 6, "gelu_backward tanh");
    /* out= variant: mul(a, b, out=c) writes c's dtype */
    g = run(B, "aten::mul", "[[8], [8], [8]]", "[\"c10::BFloat16\", \"c10::BFloat16\", \"float\"]", "[[1], [1], [1]]",
            NULL);
    CHECK_MSG(g && g->out_arg == 2 && g->out.dtype == JV_DT_F32 && R.p.bytes == 16 + 16 + 32, "mul out=: fp32 out");
    if (g) expect_param("dtype_in1_in2_out", "('c10::BFloat16', 'c10::BFloat16', 'float')");
}

static void test_unary_cases(void) {
    const jv_family *U = &jv_unary_family;
    /* fill_(bf16 [512,1000], 0): write only, 512000*2 bytes */
    const jv_elementwise_desc *g = run(U, "aten::fill_", "[[512, 1000], []]", "[\"c10::BFloat16\", \"Scalar\"]",
                                       "[[1000, 1], []]", "[\"\", \"0\"]");
    CHECK_MSG(g && R.p.bytes == 1024000 && R.p.flops == 512000, "fill_: write only");
    if (g) {
        CHECK_MSG(g->write_only && g->inplace && g->has_fill && g->fill == 0 && g->in[0].kind == JV_EW_SCALAR,
                  "fill_ desc");
        expect_param("op_shape", "(512, 1000)");
        expect_param("dtype_in_out", "('c10::BFloat16', None)");
        expect_param("stride_input", "(1000, 1)");
    }
    /* fill_ of a 0-d bf16 with 1.: 2 bytes */
    g = run(U, "aten::fill_", "[[], []]", "[\"c10::BFloat16\", \"Scalar\"]", "[[], []]", "[\"\", \"1.\"]");
    CHECK_MSG(g && R.p.bytes == 2 && g->fill == 1, "fill_ 0-d");
    /* fill_ with a 0-d tensor value reads its one element: 10*4 + 4 */
    g = run(U, "aten::fill_", "[[10], []]", "[\"float\", \"float\"]", "[[1], []]", NULL);
    CHECK_MSG(g && R.p.bytes == 44 && !g->has_fill, "fill_ with a 0-d tensor value");
    /* zero_: weak, write only */
    g = run(U, "aten::zero_", "[[5, 128]]", "[\"float\"]", "[[128, 1]]", "[\"\"]");
    CHECK_MSG(g && R.p.bytes == 2560 && g->write_only && g->fill == 0 && g->has_fill, "zero_: 640*4 bytes");
    /* relu fp32 [5,128]: 2*640*4 = 5120 */
    g = run(U, "aten::relu", "[[5, 128]]", "[\"float\"]", "[[128, 1]]", "[\"\"]");
    CHECK_MSG(g && R.p.bytes == 5120 && R.p.flops == 640 && g->op == JV_EW_RELU, "relu");
    /* gelu tanh bf16 [1,141,2048] */
    g = run(U, "aten::gelu", "[[1, 141, 2048], []]", "[\"c10::BFloat16\", \"\"]", "[[288768, 2048, 1], []]",
            "[\"\", \"tanh\"]");
    CHECK_MSG(g && g->gelu_tanh && R.p.bytes == 288768.0 * 4, "gelu tanh");
    /* sigmoid of int64 -> fp32 out: 8*8 + 8*4 */
    g = run(U, "aten::sigmoid", "[[8]]", "[\"long int\"]", "[[1]]", NULL);
    CHECK_MSG(g && g->out.dtype == JV_DT_F32 && R.p.bytes == 96, "sigmoid(int64) -> fp32");
    /* clamp(fp32, -1., 6.) */
    g = run(U, "aten::clamp", "[[2048, 72], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", "[[72, 1], [], []]",
            "[\"\", \"-1.\", \"6.\"]");
    CHECK_MSG(g && g->has_min && g->has_max && g->min == -1 && g->max == 6 && R.p.bytes == 2048.0 * 72 * 8,
              "clamp scalars");
    /* clamp(x, None, max tensor [72]): 2048*72*4 + 72*4 + 2048*72*4 */
    g = run(U, "aten::clamp", "[[2048, 72], [], [72]]", "[\"float\", \"\", \"float\"]", "[[72, 1], [], [1]]", NULL);
    CHECK_MSG(g && g->in[1].kind == JV_EW_ABSENT && g->in[2].kind == JV_EW_TENSOR && R.p.bytes == 2048.0 * 72 * 8 + 288,
              "clamp with a tensor max");
    /* hardtanh defaults and values */
    g = run(U, "aten::hardtanh_", "[[10], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", "[[1], [], []]",
            "[\"\", \"0.\", \"6.\"]");
    CHECK_MSG(g && g->min == 0 && g->max == 6 && R.p.bytes == 80, "hardtanh_ (relu6)");
    g = run(U, "aten::leaky_relu", "[[10], []]", "[\"float\", \"Scalar\"]", "[[1], []]", "[\"\", \"0.2\"]");
    CHECK_MSG(g && g->slope == 0.2, "leaky_relu slope");
    /* nan_to_num.out (a trailing out tensor) */
    g = run(U, "aten::nan_to_num", "[[2048, 96], [], [], [], [2048, 96]]",
            "[\"float\", \"Scalar\", \"\", \"\", \"float\"]", "[[96, 1], [], [], [], [96, 1]]",
            "[\"\", \"0.\", \"\", \"\", \"\"]");
    CHECK_MSG(g && g->out_arg == 4 && R.p.bytes == 2048.0 * 96 * 8 && !g->has_posinf, "nan_to_num out=");
    /* _to_copy bf16 -> fp32 (ScalarType 6): n*2 + n*4 */
    g = run(U, "aten::_to_copy", "[[16, 559, 1024], [], [], [], [], [], []]",
            "[\"c10::BFloat16\", \"Scalar\", \"\", \"\", \"\", \"Scalar\", \"\"]",
            "[[572416, 1024, 1], [], [], [], [], [], []]", "[\"\", \"6\", \"\", \"\", \"\", \"False\", \"\"]");
    CHECK_MSG(g && g->out.dtype == JV_DT_F32 && R.p.bytes == 9158656.0 * 6, "_to_copy to fp32");
    /* aten::to.dtype (5 args) to bf16 (15) */
    g = run(U, "aten::to", "[[4, 4], [], [], [], []]", "[\"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]",
            "[[4, 1], [], [], [], []]", "[\"\", \"15\", \"False\", \"False\", \"\"]");
    CHECK_MSG(g && g->out.dtype == JV_DT_BF16 && R.p.bytes == 16 * 6, "to(bf16)");
    /* to with an unrecorded dtype: bytes NaN */
    run(U, "aten::_to_copy", "[[8], [], [], [], [], [], []]",
        "[\"bool\", \"Scalar\", \"\", \"\", \"\", \"Scalar\", \"\"]", "[[1], [], [], [], [], [], []]", NULL);
    CHECK_MSG(R.st == JV_OK && isnan(R.p.bytes), "to with unknown dtype: NaN bytes");
    /* copy_ with a broadcast src: dst fp32 [4,8], src bf16 [8]: 32*4 + 8*2 = 144 */
    g = run(U, "aten::copy_", "[[4, 8], [8], []]", "[\"float\", \"c10::BFloat16\", \"Scalar\"]", "[[8, 1], [1], []]",
            "[\"\", \"\", \"False\"]");
    CHECK_MSG(g && R.p.bytes == 144 && R.p.flops == 32, "copy_ broadcast src: 144 bytes");
    /* copy_ src that does not fit dst */
    run(U, "aten::copy_", "[[8], [4, 8], []]", "[\"float\", \"float\", \"Scalar\"]", "[[1], [8, 1], []]", NULL);
    CHECK_MSG(R.st == JV_ERR_FORMAT, "copy_ src larger than dst");
    /* aten::copy (functional): a new tensor like self */
    g = run(U, "aten::copy", "[[4, 8], [4, 8], []]", "[\"c10::BFloat16\", \"float\", \"Scalar\"]",
            "[[1, 4], [8, 1], []]", NULL);
    CHECK_MSG(g && !g->inplace && g->out_arg == 0 && g->out.strides[0] == 1 && R.p.bytes == 32 * 6, "aten::copy");
    /* clone keeps a transposed layout; contiguous makes it row-major */
    g = run(U, "aten::clone", "[[4, 8], []]", "[\"float\", \"Scalar\"]", "[[1, 4], []]", "[\"\", \"\"]");
    CHECK_MSG(g && g->out_layout == JV_LAYOUT_TRANSPOSED && R.p.bytes == 256, "clone preserves layout");
    g = run(U, "aten::contiguous", "[[4, 8], []]", "[\"float\", \"Scalar\"]", "[[1, 4], []]", "[\"\", \"0\"]");
    CHECK_MSG(g && g->out_layout == JV_LAYOUT_CONTIGUOUS, "contiguous output");
    /* pow Tensor^Tensor (unary family owns aten::pow): 3 tensors */
    g = run(U, "aten::pow", "[[8], [8]]", "[\"float\", \"float\"]", "[[1], [1]]", NULL);
    CHECK_MSG(g && R.p.bytes == 96 && !g->has_exponent, "pow tensor^tensor");
    if (g) expect_param("dtype_in_out", "('float', 'float')");
    /* pow Scalar^Tensor: compute dtype from the tensor */
    g = run(U, "aten::pow", "[[], [8]]", "[\"Scalar\", \"c10::BFloat16\"]", "[[], [1]]", "[\"2\", \"\"]");
    CHECK_MSG(g && R.p.bytes == 32 && R.p.dtype == JV_DT_BF16, "pow scalar^tensor");
    if (g) {
        expect_param("op_shape", "()");
        expect_param("dtype_in_out", "('Scalar', 'c10::BFloat16')");
    }
    /* pow(int tensor, 0.5) -> fp32 */
    g = run(U, "aten::pow", "[[8], []]", "[\"int\", \"Scalar\"]", "[[1], []]", "[\"\", \"0.5\"]");
    CHECK_MSG(g && g->out.dtype == JV_DT_F32 && R.p.bytes == 64, "int ** 0.5 -> fp32");
    /* upsample_nearest2d.vec with scale factors, channels_last input: (1,3,4,4) -> (1,3,8,8) fp32 (48+192)*4 */
    g = run(U, "aten::upsample_nearest2d", "[[1, 3, 4, 4], [], []]", "[\"float\", \"\", \"ScalarList\"]",
            "[[48, 1, 12, 3], [], []]", "[\"\", \"\", \"[2., 2.]\"]");
    CHECK_MSG(g && R.p.bytes == 960 && R.p.flops == 192 && g->scales[0] == 2 &&
                  g->out_layout == JV_LAYOUT_CHANNELS_LAST,
              "upsample2d by scale factors");
    /* upsample_nearest3d with sizes */
    g = run(U, "aten::upsample_nearest3d", "[[2, 4, 2, 3, 3], [], [], [], []]",
            "[\"c10::Half\", \"ScalarList\", \"\", \"\", \"\"]", "[[72, 18, 9, 3, 1], [], [], [], []]",
            "[\"\", \"[4, 6, 6]\", \"\", \"\", \"\"]");
    CHECK_MSG(g && R.p.flops == 2.0 * 4 * 144 && R.p.bytes == (144.0 + 1152) * 2, "upsample3d sizes");
}

static void test_match_and_params_shape(void) {
    const jv_family *U = &jv_unary_family, *B = &jv_binary_family;
    CHECK_MSG(U->match("aten::copy_") == JV_MATCH_STRONG && U->match("aten::clone") == JV_MATCH_WEAK, "copy_/clone");
    CHECK_MSG(U->match("aten::relu_") == JV_MATCH_WEAK && U->match("aten::zero_") == JV_MATCH_WEAK, "relu_/zero_ weak");
    CHECK_MSG(U->match("aten::_to_copy") == JV_MATCH_WEAK && U->match("aten::contiguous") == JV_MATCH_WEAK, "to weak");
    CHECK_MSG(U->match("aten::fill_") == JV_MATCH_STRONG && U->match("aten::upsample_nearest2d") == JV_MATCH_STRONG,
              "strong");
    CHECK_MSG(U->match("aten::pow") == JV_MATCH_STRONG && B->match("aten::pow") == JV_MATCH_NONE, "pow: unary only");
    CHECK_MSG(B->match("aten::add") == JV_MATCH_STRONG && U->match("aten::add") == JV_MATCH_NONE, "add: binary");
    CHECK_MSG(B->match("aten::masked_fill") == JV_MATCH_WEAK && B->match("aten::masked_fill_") == JV_MATCH_STRONG,
              "masked_fill");
    CHECK_MSG(B->match("aten::mm") == JV_MATCH_NONE && U->match("") == JV_MATCH_NONE, "others");
    CHECK_MSG(!strcmp(U->sheet, "UnaryElementwise") && !strcmp(B->sheet, "BinaryElementwise") && !U->split &&
                  !B->split && !strcmp(U->category, "elementwise") && !strcmp(U->name, "unary") &&
                  !strcmp(B->name, "binary"),
              "family objects");
    /* every call emits the same param names in the same order */
    static const char *const UN[] = {"op_shape",      "dtype_in_out", "stride_input",
                                     "stride_output", "input_shape",  "output_shape"};
    static const char *const BN[] = {"shape_in1",     "shape_in2",     "dtype_in1_in2_out",
                                     "stride_input1", "stride_input2", "stride_output"};
    const char *calls[][5] = {
        {"aten::relu", "[[3]]", "[\"float\"]", "[[1]]", NULL},
        {"aten::zero_", "[[3]]", "[\"float\"]", NULL, NULL},
        {"aten::copy_", "[[3], [3], []]", "[\"float\", \"float\", \"Scalar\"]", "[[1], [1], []]", NULL},
        {"aten::upsample_nearest1d", "[[1, 2, 3], [], []]", "[\"float\", \"ScalarList\", \"\"]", NULL,
         "[\"\", \"[6]\", \"\"]"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        run(U, calls[i][0], calls[i][1], calls[i][2], calls[i][3], calls[i][4]);
        int ok = R.st == JV_OK && R.ps.n == 6;
        for (int k = 0; ok && k < 6; k++)
            ok = !strcmp(R.ps.p[k].name, UN[k]);
        CHECK_MSG(ok, "unary params of %s", calls[i][0]);
    }
    run(U, "aten::relu", "[[3]]", "[\"float\"]", NULL, NULL);
    expect_param("stride_input", "None"); /* no strides recorded */
    const char *bcalls[][4] = {
        {"aten::add", "[[3], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", "[[1], [], []]"},
        {"aten::where", "[[3], [3], [3]]", "[\"bool\", \"float\", \"float\"]", "[[1], [1], [1]]"},
        {"aten::addcdiv", "[[3], [3], [3], []]", "[\"float\", \"float\", \"float\", \"Scalar\"]", NULL},
    };
    for (size_t i = 0; i < sizeof bcalls / sizeof bcalls[0]; i++) {
        run(B, bcalls[i][0], bcalls[i][1], bcalls[i][2], bcalls[i][3], NULL);
        int ok = R.st == JV_OK && R.ps.n == 6;
        for (int k = 0; ok && k < 6; k++)
            ok = !strcmp(R.ps.p[k].name, BN[k]);
        CHECK_MSG(ok, "binary params of %s", bcalls[i][0]);
    }
}

static void test_hostile(void) {
    const jv_family *U = &jv_unary_family, *B = &jv_binary_family;
    /* no shapes at all */
    run(B, "aten::add", NULL, NULL, NULL, NULL);
    CHECK_MSG(R.st == JV_ERR_FORMAT, "add without args");
    run(U, "aten::relu", "[]", "[]", "[]", "[]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "relu with empty lists");
    /* missing second operand */
    run(B, "aten::mul", "[[4]]", "[\"float\"]", "[[1]]", NULL);
    CHECK_MSG(R.st == JV_ERR_FORMAT, "mul with one arg");
    /* negative dims */
    run(B, "aten::add", "[[-4, 2], [2], []]", "[\"float\", \"float\", \"Scalar\"]", NULL, NULL);
    CHECK_MSG(R.st == JV_ERR_FORMAT, "negative dim");
    run(U, "aten::fill_", "[[-1], []]", "[\"float\", \"Scalar\"]", NULL, "[\"\", \"0\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "fill_ negative dim");
    /* element count overflow */
    run(U, "aten::neg", "[[4000000000, 4000000000, 4000000000]]", "[\"float\"]", NULL, NULL);
    CHECK_MSG(R.st == JV_ERR_FORMAT, "numel overflow");
    run(B, "aten::mul", "[[3037000500, 1], [1, 3037000500]]", "[\"float\", \"float\"]", NULL, NULL);
    CHECK_MSG(R.st == JV_ERR_FORMAT, "broadcast numel overflow");
    /* wrong kinds */
    run(U, "aten::relu", "[[]]", "[\"Scalar\"]", NULL, "[\"3\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "relu of a Scalar");
    run(U, "aten::copy_", "[[4], []]", "[\"float\", \"Scalar\"]", NULL, "[\"\", \"1\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "copy_ from a Scalar");
    run(B, "aten::add", "[[[2], [3]], [2], []]", "[\"TensorList\", \"float\", \"Scalar\"]", NULL, NULL);
    CHECK_MSG(R.st == JV_ERR_FORMAT, "tensor list operand");
    run(B, "aten::eq", "[[], [], [], []]", "[\"Scalar\", \"Scalar\", \"int\", \"Scalar\"]", NULL, NULL);
    CHECK_MSG(R.st == JV_ERR_FORMAT, "eq with 4 args");
    run(B, "aten::eq", "[[], []]", "[\"Scalar\", \"Scalar\"]", NULL, "[\"1\", \"2\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "eq of two Scalars");
    run(B, "aten::add", "[[4], [], []]", "[\"float\", \"ScalarList\", \"Scalar\"]", NULL, "[\"\", \"[1, 2]\", \"1\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "add of a list");
    /* too many args (a mislabelled event) */
    run(U, "aten::pow", "[[512, 2842], [512], [2048, 1421], [2048, 1421], []]",
        "[\"float\", \"float\", \"float\", \"float\", \"Scalar\"]", NULL, NULL);
    CHECK_MSG(R.st == JV_ERR_FORMAT, "pow with 5 args");
    run(B, "aten::where", "[[4]]", "[\"bool\"]", NULL, NULL);
    CHECK_MSG(R.st == JV_ERR_FORMAT, "where(cond) is nonzero");
    run(U, "aten::clamp", "[[4], [], []]", "[\"float\", \"\", \"\"]", NULL, NULL);
    CHECK_MSG(R.st == JV_ERR_FORMAT, "clamp without bounds");
    /* upsample: bad sizes */
    run(U, "aten::upsample_nearest2d", "[[1, 3, 4, 4], [], [], []]", "[\"float\", \"ScalarList\", \"\", \"\"]", NULL,
        "[\"\", \"[8]\", \"\", \"\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "upsample2d with one size");
    run(U, "aten::upsample_nearest2d", "[[1, 3, 4, 4], [], [], []]", "[\"float\", \"ScalarList\", \"\", \"\"]", NULL,
        "[\"\", \"[-8, 8]\", \"\", \"\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "upsample negative size");
    run(U, "aten::upsample_nearest2d", "[[1, 3, 4, 4], [], [], []]", "[\"float\", \"ScalarList\", \"\", \"\"]", NULL,
        "[\"\", \"[abc]\", \"\", \"\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "upsample garbage size");
    run(U, "aten::upsample_nearest2d", "[[1, 3, 4, 4], [], []]", "[\"float\", \"\", \"ScalarList\"]", NULL,
        "[\"\", \"\", \"[1e300, 1e300]\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "upsample absurd scale");
    run(U, "aten::upsample_nearest1d", "[[4, 4], [], []]", "[\"float\", \"ScalarList\", \"\"]", NULL,
        "[\"\", \"[8]\", \"\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "upsample1d of a 2-d input");
    run(U, "aten::upsample_nearest1d", "[[1, 2, 4], [], []]", "[\"float\", \"ScalarList\", \"\"]", NULL,
        "[\"\", \"[5000000000000000000]\", \"\"]");
    CHECK_MSG(R.st == JV_ERR_FORMAT, "upsample huge output");
    /* not ours */
    run(B, "aten::relu", "[[4]]", "[\"float\"]", NULL, NULL);
    CHECK_MSG(R.st == JV_ERR_NOTFOUND, "relu is not binary");
    run(U, "aten::mm", "[[4, 4], [4, 4]]", "[\"float\", \"float\"]", NULL, NULL);
    CHECK_MSG(R.st == JV_ERR_NOTFOUND, "mm is not unary");
    /* unknown dtype: parses, bytes NaN */
    run(U, "aten::neg", "[[4]]", "[\"c10::Float4_e2m1fn_x2\"]", "[[1]]", NULL);
    CHECK_MSG(R.st == JV_OK && isnan(R.p.bytes) && R.p.flops == 4, "unknown dtype: NaN bytes");
    if (R.st == JV_OK) expect_param("dtype_in_out", "('c10::Float4_e2m1fn_x2', None)");
    /* garbage concrete values do not crash and keep defaults */
    const jv_elementwise_desc *g =
        run(B, "aten::add", "[[4], [4], []]", "[\"float\", \"float\", \"Scalar\"]", NULL, "[\"\", \"\", \"zzz\"]");
    CHECK_MSG(g && g->alpha == 1 && R.p.bytes == 48, "garbage alpha keeps 1");
    /* a zero-size tensor */
    run(B, "aten::add", "[[0, 4], [4], []]", "[\"float\", \"float\", \"Scalar\"]", NULL, NULL);
    CHECK_MSG(R.st == JV_OK && R.p.flops == 0 && R.p.bytes == 16, "zero-size operand");
    /* JSON that is not a list */
    run(B, "aten::add", "{\"a\": 1}", "[]", NULL, NULL);
    CHECK_MSG(R.st == JV_ERR_FORMAT, "dims not a list");
}

int main(void) {
    test_tracelens_binary_rows();
    test_tracelens_unary_rows();
    test_broadcast_and_promotion();
    test_comparisons_and_ternary();
    test_unary_cases();
    test_match_and_params_shape();
    test_hostile();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/* test_cpu_eltwise: the CPU backend's own elementwise kernels (kernels/elementwise/elementwise_cpu.c,
 * elementwise_cpu_int.c) against the elementwise families' CPU reference. First the kernels' storage conversions
 * against the core's, bit for bit (every fp16 and bf16 value; a sweep of float bit patterns, every fp16/bf16 halfway
 * point and its neighbours). Then each case, a call in trace form (as tests/kernels/test_gpu_replay.c spells them):
 * inputs filled as a replay fills them (seeded), the plan runs over them, the reference runs into a separate output,
 * and jv_verify_output must pass within the dtype's tolerance; the path (dense or strided) must be the one the case
 * expects. Ops: add with alpha, sub, rsub, mul by a Scalar and by a 0-d tensor, div in each rounding mode,
 * where, threshold_backward, gelu and gelu_backward in both forms, silu, sigmoid, tanh and their backwards,
 * pow with special and general exponents and a tensor exponent, the clamp family, copy_ across dtypes, to(),
 * _to_copy, fill_, zero_, masked_fill, comparisons to bool, nan_to_num, maximum/minimum, addcmul, addcdiv,
 * lerp, the unary math; dense, transposed, permuted and broadcast operands, in place; fp32, bf16 and fp16;
 * odd sizes (tails). Integers (int64, int32, int16, int8, uint8; computed in int64, verified exactly: the
 * tolerance of an integer or bool output is 0 and the largest difference must be 0): add_ of a 0-d int64 self
 * (num_batches_tracked), add/sub/rsub/mul with integer Scalars and alpha, floor and trunc division (x / 0 as the
 * reference stores it), maximum/minimum, the clamp family, neg, abs, relu, comparisons of integers and of an
 * integer with a float (in float) or an fp64 (in double), where, masked_fill, copies and casts between integers,
 * floats and bool (float -> int truncates toward zero: checked element by element), fill_, zero_, uint8
 * outputs, float ops of integers (promoted). fp64 (computed in double). upsample_nearest1d/2d/3d by scale and by
 * output size, NCHW and channels-last, fp32, bf16, fp16. Each case also names what it computes in (float,
 * int64, double, gather). Then the refusals (an integer output of an op not defined on integers, a uint8 output
 * of a signed value: JV_ERR_NOTFOUND with the reason), the backend's impl strings and refusals, and the proof
 * that the check can fail: add's output compared with mul's reference, add with alpha 2 compared with alpha 1,
 * an int64 result off by one, and upsample by one nearest rule compared with another must all fail
 * verification. Last, the time of a few big ops (for information). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "elementwise/elementwise_cpu.h"
#include "jv_dtype.h"
#include "jv_progress.h"

#include "jv_check.h"
#include "jv_test_cpu.h"

#define FL  "\"float\""
#define BF  "\"c10::BFloat16\""
#define HF  "\"c10::Half\""
#define BO  "\"bool\""
#define SC  "\"Scalar\""
#define NO  "\"\""
#define I64 "\"long int\""
#define I32 "\"int\""
#define I16 "\"short int\""
#define I8  "\"signed char\""
#define U8  "\"unsigned char\""
#define DB  "\"double\""

/* 33 x 1031 = 34023 elements: past the parallel threshold, with tails in every block size */
#define D2        "[33, 1031]"
#define C2        "[1031, 1]" /* contiguous */
#define T2        "[1, 33]"   /* transposed */
#define ROW       "[1031]"    /* broadcast along the rows */
#define D4        "[4, 13, 17, 37]"
#define C4        "[8177, 629, 37, 1]"
#define CL4       "[8177, 1, 481, 13]" /* channels last */
#define CONC(...) "[" __VA_ARGS__ "]"

typedef struct {
    jv_cpu_case c;
    char path;    /* 'd' dense, 's' strided, 'g' upsample's gather */
    char compute; /* 'i' int64, 'd' double, 'g' gather; 0: float */
} ecase;

/* upsample shapes: NCHW [2, 8, 9, 11] and its channels-last strides */
#define UP_IN    "[2, 8, 9, 11]"
#define UP_C     "[792, 99, 11, 1]"
#define UP_CL    "[792, 1, 88, 8]"
#define UPARGS2  "[" UP_IN ", [], []]"
#define UPTYPES2 "[" FL ", " NO ", \"ScalarList\"]"

static const ecase CASES[] = {
    /* add / sub / rsub / mul / div */
    {{"add fp32 alpha 0.5", "aten::add", "[" D2 ", " D2 ", []]", "[" FL ", " FL ", " SC "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"0.5\"")},
     'd',
     0},
    {{"add bf16 alpha 2, other transposed", "aten::add", "[" D2 ", " D2 ", []]", "[" BF ", " BF ", " SC "]",
      "[" C2 ", " T2 ", []]", CONC(NO ", " NO ", \"2\"")},
     's',
     0},
    {{"add_ fp16 in place, a broadcast row", "aten::add_", "[" D2 ", " ROW ", []]", "[" HF ", " HF ", " SC "]",
      "[" C2 ", [1], []]", CONC(NO ", " NO ", \"1\"")},
     's',
     0},
    {{"add fp32 channels-last + contiguous", "aten::add", "[" D4 ", " D4 ", []]", "[" FL ", " FL ", " SC "]",
      "[" CL4 ", " C4 ", []]", CONC(NO ", " NO ", \"1\"")},
     's',
     0},
    {{"add bf16 + fp32 (mixed dtypes)", "aten::add", "[" D2 ", " D2 ", []]", "[" BF ", " FL ", " SC "]",
      "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"1\"")},
     'd',
     0},
    {{"sub fp32 alpha 3", "aten::sub", "[" D2 ", " D2 ", []]", "[" FL ", " FL ", " SC "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"3\"")},
     'd',
     0},
    {{"rsub bf16 by a Scalar", "aten::rsub", "[" D2 ", [], []]", "[" BF ", " SC ", " SC "]", "[" C2 ", [], []]",
      CONC(NO ", \"1\", \"1\"")},
     'd',
     0},
    {{"mul fp32 by a Scalar", "aten::mul", "[" D2 ", []]", "[" FL ", " SC "]", "[" C2 ", []]", CONC(NO ", \"0.125\"")},
     'd',
     0},
    {{"mul bf16 by a Scalar, transposed", "aten::mul", "[" D2 ", []]", "[" BF ", " SC "]", "[" T2 ", []]",
      CONC(NO ", \"-3\"")},
     'd',
     0},
    {{"mul fp16 by a 0-d fp32 tensor", "aten::mul", "[" D2 ", []]", "[" HF ", " FL "]", "[" C2 ", []]", NULL}, 'd', 0},
    {{"mul_ bf16 in place", "aten::mul_", "[" D2 ", " D2 "]", "[" BF ", " BF "]", "[" C2 ", " C2 "]", NULL}, 'd', 0},
    {{"div fp32", "aten::div", "[" D2 ", " D2 "]", "[" FL ", " FL "]", "[" C2 ", " C2 "]", NULL}, 'd', 0},
    {{"div fp32 trunc", "aten::div", "[" D2 ", " D2 ", []]", "[" FL ", " FL ", " NO "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"trunc\"")},
     'd',
     0},
    {{"div fp32 floor, other transposed", "aten::div", "[" D2 ", " D2 ", []]", "[" FL ", " FL ", " NO "]",
      "[" C2 ", " T2 ", []]", CONC(NO ", " NO ", \"floor\"")},
     's',
     0},
    {{"div bf16 floor", "aten::div", "[" D2 ", " D2 ", []]", "[" BF ", " BF ", " NO "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"floor\"")},
     'd',
     0},
    {{"div fp16 by a Scalar", "aten::div", "[" D2 ", []]", "[" HF ", " SC "]", "[" C2 ", []]", CONC(NO ", \"7\"")},
     'd',
     0},
    /* where, masks, comparisons */
    {{"where fp32, a broadcast row", "aten::where", "[" D2 ", " D2 ", " ROW "]", "[" BO ", " FL ", " FL "]",
      "[" C2 ", " C2 ", [1]]", NULL},
     's',
     0},
    {{"where bf16, dense", "aten::where", "[" D2 ", " D2 ", " D2 "]", "[" BO ", " BF ", " BF "]",
      "[" C2 ", " C2 ", " C2 "]", NULL},
     'd',
     0},
    {{"masked_fill fp32, a broadcast mask, -inf", "aten::masked_fill", "[" D2 ", " ROW ", []]",
      "[" FL ", " BO ", " SC "]", "[" C2 ", [1], []]", CONC(NO ", " NO ", \"-inf\"")},
     's',
     0},
    {{"masked_fill_ bf16 in place", "aten::masked_fill_", "[" D2 ", " D2 ", []]", "[" BF ", " BO ", " SC "]",
      "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"-10000.0\"")},
     'd',
     0},
    {{"gt fp32 > a Scalar -> bool", "aten::gt", "[" D2 ", []]", "[" FL ", " SC "]", "[" C2 ", []]",
      CONC(NO ", \"0.1\"")},
     'd',
     0},
    {{"eq bf16 tensors -> bool", "aten::eq", "[" D2 ", " D2 "]", "[" BF ", " BF "]", "[" C2 ", " C2 "]", NULL}, 'd', 0},
    {{"lt fp16, other transposed -> bool", "aten::lt", "[" D2 ", " D2 "]", "[" HF ", " HF "]", "[" C2 ", " T2 "]",
      NULL},
     's',
     0},
    {{"ge fp32, a broadcast row -> bool", "aten::ge", "[" D2 ", " ROW "]", "[" FL ", " FL "]", "[" C2 ", [1]]", NULL},
     's',
     0},
    {{"le bf16 <= 0 -> bool", "aten::le", "[" D2 ", []]", "[" BF ", " SC "]", "[" C2 ", []]", CONC(NO ", \"0\"")},
     'd',
     0},
    {{"ne fp32 tensors -> bool", "aten::ne", "[" D2 ", " D2 "]", "[" FL ", " FL "]", "[" C2 ", " C2 "]", NULL}, 'd', 0},
    /* backwards */
    {{"threshold_backward bf16", "aten::threshold_backward", "[" D2 ", " D2 ", []]", "[" BF ", " BF ", " SC "]",
      "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"0\"")},
     'd',
     0},
    {{"threshold_backward fp32 thr 0.1, permuted", "aten::threshold_backward", "[" D4 ", " D4 ", []]",
      "[" FL ", " FL ", " SC "]", "[" CL4 ", " C4 ", []]", CONC(NO ", " NO ", \"0.1\"")},
     's',
     0},
    {{"gelu_backward fp32 none", "aten::gelu_backward", "[" D2 ", " D2 ", []]", "[" FL ", " FL ", " NO "]",
      "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"none\"")},
     'd',
     0},
    {{"gelu_backward bf16 tanh", "aten::gelu_backward", "[" D2 ", " D2 ", []]", "[" BF ", " BF ", " NO "]",
      "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"tanh\"")},
     'd',
     0},
    {{"silu_backward fp16", "aten::silu_backward", "[" D2 ", " D2 "]", "[" HF ", " HF "]", "[" C2 ", " C2 "]", NULL},
     'd',
     0},
    {{"sigmoid_backward fp32", "aten::sigmoid_backward", "[" D2 ", " D2 "]", "[" FL ", " FL "]", "[" C2 ", " C2 "]",
      NULL},
     'd',
     0},
    {{"tanh_backward bf16, transposed", "aten::tanh_backward", "[" D2 ", " D2 "]", "[" BF ", " BF "]",
      "[" T2 ", " C2 "]", NULL},
     's',
     0},
    /* activations and unary math */
    {{"gelu fp32 none", "aten::gelu", "[" D2 ", []]", "[" FL ", " NO "]", "[" C2 ", []]", CONC(NO ", \"none\"")},
     'd',
     0},
    {{"gelu bf16 tanh", "aten::gelu", "[" D2 ", []]", "[" BF ", " NO "]", "[" C2 ", []]", CONC(NO ", \"tanh\"")},
     'd',
     0},
    {{"silu fp32", "aten::silu", "[" D2 "]", "[" FL "]", "[" C2 "]", NULL}, 'd', 0},
    {{"silu_ bf16 in place", "aten::silu_", "[" D2 "]", "[" BF "]", "[" C2 "]", NULL}, 'd', 0},
    {{"sigmoid fp16", "aten::sigmoid", "[" D2 "]", "[" HF "]", "[" C2 "]", NULL}, 'd', 0},
    {{"tanh bf16 channels-last", "aten::tanh", "[" D4 "]", "[" BF "]", "[" CL4 "]", NULL}, 'd', 0},
    {{"relu bf16", "aten::relu", "[" D2 "]", "[" BF "]", "[" C2 "]", NULL}, 'd', 0},
    {{"relu_ fp32 in place, transposed", "aten::relu_", "[" D2 "]", "[" FL "]", "[" T2 "]", NULL}, 'd', 0},
    {{"leaky_relu fp32 0.2", "aten::leaky_relu", "[" D2 ", []]", "[" FL ", " SC "]", "[" C2 ", []]",
      CONC(NO ", \"0.2\"")},
     'd',
     0},
    {{"hardtanh bf16 (relu6)", "aten::hardtanh", "[" D2 ", [], []]", "[" BF ", " SC ", " SC "]", "[" C2 ", [], []]",
      CONC(NO ", \"0\", \"6\"")},
     'd',
     0},
    {{"neg fp16", "aten::neg", "[" D2 "]", "[" HF "]", "[" C2 "]", NULL}, 'd', 0},
    {{"abs fp32", "aten::abs", "[" D2 "]", "[" FL "]", "[" C2 "]", NULL}, 'd', 0},
    {{"exp bf16", "aten::exp", "[" D2 "]", "[" BF "]", "[" C2 "]", NULL}, 'd', 0},
    {{"log fp32", "aten::log", "[" D2 "]", "[" FL "]", "[" C2 "]", NULL}, 'd', 0},
    {{"sqrt fp32", "aten::sqrt", "[" D2 "]", "[" FL "]", "[" C2 "]", NULL}, 'd', 0},
    {{"rsqrt bf16", "aten::rsqrt", "[" D2 "]", "[" BF "]", "[" C2 "]", NULL}, 'd', 0},
    {{"reciprocal fp32", "aten::reciprocal", "[" D2 "]", "[" FL "]", "[" C2 "]", NULL}, 'd', 0},
    {{"erf fp32", "aten::erf", "[" D2 "]", "[" FL "]", "[" C2 "]", NULL}, 'd', 0},
    {{"sin fp16", "aten::sin", "[" D2 "]", "[" HF "]", "[" C2 "]", NULL}, 'd', 0},
    {{"cos fp32", "aten::cos", "[" D2 "]", "[" FL "]", "[" C2 "]", NULL}, 'd', 0},
    {{"nan_to_num fp32 defaults", "aten::nan_to_num", "[" D2 ", [], [], []]", "[" FL ", " SC ", " SC ", " SC "]",
      "[" C2 ", [], [], []]", CONC(NO ", " NO ", " NO ", " NO)},
     'd',
     0},
    {{"nan_to_num bf16 1.5 100", "aten::nan_to_num", "[" D2 ", [], [], []]", "[" BF ", " SC ", " SC ", " SC "]",
      "[" C2 ", [], [], []]", CONC(NO ", \"1.5\", \"100.\", " NO)},
     'd',
     0},
    /* pow */
    {{"pow fp32 ^ 2", "aten::pow", "[" D2 ", []]", "[" FL ", " SC "]", "[" C2 ", []]", CONC(NO ", \"2\"")}, 'd', 0},
    {{"pow bf16 ^ 3", "aten::pow", "[" D2 ", []]", "[" BF ", " SC "]", "[" C2 ", []]", CONC(NO ", \"3\"")}, 'd', 0},
    {{"pow fp32 ^ 0.5", "aten::pow", "[" D2 ", []]", "[" FL ", " SC "]", "[" C2 ", []]", CONC(NO ", \"0.5\"")}, 'd', 0},
    {{"pow fp16 ^ -0.5", "aten::pow", "[" D2 ", []]", "[" HF ", " SC "]", "[" C2 ", []]", CONC(NO ", \"-0.5\"")},
     'd',
     0},
    {{"pow fp32 ^ -1", "aten::pow", "[" D2 ", []]", "[" FL ", " SC "]", "[" C2 ", []]", CONC(NO ", \"-1\"")}, 'd', 0},
    {{"pow fp32 ^ -2", "aten::pow", "[" D2 ", []]", "[" FL ", " SC "]", "[" C2 ", []]", CONC(NO ", \"-2\"")}, 'd', 0},
    {{"pow fp32 ^ 1.0", "aten::pow", "[" D2 ", []]", "[" FL ", " SC "]", "[" C2 ", []]", CONC(NO ", \"1.0\"")}, 'd', 0},
    {{"pow bf16 ^ 0", "aten::pow", "[" D2 ", []]", "[" BF ", " SC "]", "[" C2 ", []]", CONC(NO ", \"0\"")}, 'd', 0},
    {{"pow fp32 ^ 1.5 (powf)", "aten::pow", "[" D2 ", []]", "[" FL ", " SC "]", "[" C2 ", []]", CONC(NO ", \"1.5\"")},
     'd',
     0},
    {{"pow_ bf16 ^ 2 in place", "aten::pow_", "[" D2 ", []]", "[" BF ", " SC "]", "[" C2 ", []]", CONC(NO ", \"2\"")},
     'd',
     0},
    {{"pow fp32 tensor ^ tensor", "aten::pow", "[" D2 ", " D2 "]", "[" FL ", " FL "]", "[" C2 ", " C2 "]", NULL},
     'd',
     0},
    /* clamp family */
    {{"clamp fp32 [-0.5, 0.5]", "aten::clamp", "[" D2 ", [], []]", "[" FL ", " SC ", " SC "]", "[" C2 ", [], []]",
      CONC(NO ", \"-0.5\", \"0.5\"")},
     'd',
     0},
    {{"clamp bf16, max only", "aten::clamp", "[" D2 ", [], []]", "[" BF ", " NO ", " SC "]", "[" C2 ", [], []]",
      CONC(NO ", " NO ", \"0.25\"")},
     'd',
     0},
    {{"clamp fp32, a tensor max row", "aten::clamp", "[" D2 ", [], " ROW "]", "[" FL ", " NO ", " FL "]",
      "[" C2 ", [], [1]]", NULL},
     's',
     0},
    {{"clamp_min bf16 0", "aten::clamp_min", "[" D2 ", []]", "[" BF ", " SC "]", "[" C2 ", []]", CONC(NO ", \"0\"")},
     'd',
     0},
    {{"clamp_max fp16 0.3", "aten::clamp_max", "[" D2 ", []]", "[" HF ", " SC "]", "[" C2 ", []]",
      CONC(NO ", \"0.3\"")},
     'd',
     0},
    /* maximum, minimum, addcmul, addcdiv, lerp */
    {{"maximum fp32, a broadcast row", "aten::maximum", "[" D2 ", " ROW "]", "[" FL ", " FL "]", "[" C2 ", [1]]", NULL},
     's',
     0},
    {{"minimum bf16", "aten::minimum", "[" D2 ", " D2 "]", "[" BF ", " BF "]", "[" C2 ", " C2 "]", NULL}, 'd', 0},
    {{"addcmul fp32 value 0.5", "aten::addcmul", "[" D2 ", " D2 ", " D2 ", []]", "[" FL ", " FL ", " FL ", " SC "]",
      "[" C2 ", " C2 ", " C2 ", []]", CONC(NO ", " NO ", " NO ", \"0.5\"")},
     'd',
     0},
    {{"addcdiv_ bf16 in place", "aten::addcdiv_", "[" D2 ", " D2 ", " D2 ", []]", "[" BF ", " BF ", " BF ", " SC "]",
      "[" C2 ", " C2 ", " C2 ", []]", CONC(NO ", " NO ", " NO ", \"-0.01\"")},
     'd',
     0},
    {{"lerp fp32, a Scalar weight 0.3", "aten::lerp", "[" D2 ", " D2 ", []]", "[" FL ", " FL ", " SC "]",
      "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"0.3\"")},
     'd',
     0},
    {{"lerp fp32, a tensor weight", "aten::lerp", "[" D2 ", " D2 ", " D2 "]", "[" FL ", " FL ", " FL "]",
      "[" C2 ", " C2 ", " C2 "]", NULL},
     'd',
     0},
    /* copies, conversions, fills */
    {{"copy_ fp32 -> bf16", "aten::copy_", "[" D2 ", " D2 ", []]", "[" BF ", " FL ", " SC "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"False\"")},
     'd',
     0},
    {{"copy_ fp32 -> bf16, src transposed", "aten::copy_", "[" D2 ", " D2 ", []]", "[" BF ", " FL ", " SC "]",
      "[" C2 ", " T2 ", []]", CONC(NO ", " NO ", \"False\"")},
     's',
     0},
    {{"copy_ bf16 -> fp32, channels-last dst", "aten::copy_", "[" D4 ", " D4 ", []]", "[" FL ", " BF ", " SC "]",
      "[" CL4 ", " C4 ", []]", CONC(NO ", " NO ", \"False\"")},
     's',
     0},
    {{"copy_ fp16 -> fp16", "aten::copy_", "[" D2 ", " D2 ", []]", "[" HF ", " HF ", " SC "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"False\"")},
     'd',
     0},
    {{"copy_ bool -> fp32", "aten::copy_", "[" D2 ", " D2 ", []]", "[" FL ", " BO ", " SC "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"False\"")},
     'd',
     0},
    {{"to fp32 -> bf16", "aten::to", "[" D2 ", [], [], [], []]", "[" FL ", " SC ", " SC ", " SC ", " NO "]",
      "[" C2 ", [], [], [], []]", CONC(NO ", \"15\", \"False\", \"False\", " NO)},
     'd',
     0},
    {{"_to_copy fp32 -> fp16", "aten::_to_copy", "[" D2 ", [], [], [], [], [], []]",
      "[" FL ", " SC ", " NO ", " NO ", " NO ", " SC ", " NO "]", "[" C2 ", [], [], [], [], [], []]",
      CONC(NO ", \"5\", " NO ", " NO ", " NO ", \"False\", " NO)},
     'd',
     0},
    {{"clone bf16", "aten::clone", "[" D2 ", []]", "[" BF ", " NO "]", "[" C2 ", []]", CONC(NO ", " NO)}, 'd', 0},
    {{"fill_ bf16 with a Scalar", "aten::fill_", "[" D2 ", []]", "[" BF ", " SC "]", "[" C2 ", []]",
      CONC(NO ", \"0.7\"")},
     'd',
     0},
    {{"fill_ fp32 with a 0-d tensor", "aten::fill_", "[" D2 ", []]", "[" FL ", " FL "]", "[" C2 ", []]", NULL}, 'd', 0},
    {{"zero_ fp16", "aten::zero_", "[" D2 "]", "[" HF "]", "[" C2 "]", NULL}, 'd', 0},
    /* small and odd: one element, a tail of 7 */
    {{"add fp32 1 element", "aten::add", "[[1], [1], []]", "[" FL ", " FL ", " SC "]", "[[1], [1], []]",
      CONC(NO ", " NO ", \"1\"")},
     'd',
     0},
    {{"mul bf16 7 elements, transposed", "aten::mul", "[[7, 1], [7, 1]]", "[" BF ", " BF "]", "[[1, 7], [1, 1]]", NULL},
     'd',
     0},
    {{"sub fp16 [3, 5, 7] permuted", "aten::sub", "[[3, 5, 7], [3, 5, 7], []]", "[" HF ", " HF ", " SC "]",
      "[[1, 21, 3], [35, 7, 1], []]", CONC(NO ", " NO ", \"1\"")},
     's',
     0},
    /* integers */
    {{"add_ int64 0-d self + 0-d int64 (num_batches)", "aten::add_", "[[], [], []]", "[" I64 ", " I64 ", " SC "]",
      "[[], [], []]", CONC(NO ", " NO ", \"1\"")},
     'd',
     'i'},
    {{"add_ int64 0-d self + Scalar 1", "aten::add_", "[[], [], []]", "[" I64 ", " SC ", " SC "]", "[[], [], []]",
      CONC(NO ", \"1\", \"1\"")},
     'd',
     'i'},
    {{"add int64 alpha 3, other transposed", "aten::add", "[" D2 ", " D2 ", []]", "[" I64 ", " I64 ", " SC "]",
      "[" C2 ", " T2 ", []]", CONC(NO ", " NO ", \"3\"")},
     's',
     'i'},
    {{"sub int32 - int64 alpha 2 (-> int64)", "aten::sub", "[" D2 ", " D2 ", []]", "[" I32 ", " I64 ", " SC "]",
      "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"2\"")},
     'd',
     'i'},
    {{"rsub int8 by a Scalar, alpha 2", "aten::rsub", "[" D2 ", [], []]", "[" I8 ", " SC ", " SC "]",
      "[" C2 ", [], []]", CONC(NO ", \"5\", \"2\"")},
     'd',
     'i'},
    {{"mul int16 by a Scalar -7", "aten::mul", "[" D2 ", []]", "[" I16 ", " SC "]", "[" C2 ", []]",
      CONC(NO ", \"-7\"")},
     'd',
     'i'},
    {{"mul_ int64 in place, a broadcast row", "aten::mul_", "[" D2 ", " ROW "]", "[" I64 ", " I64 "]", "[" C2 ", [1]]",
      NULL},
     's',
     'i'},
    {{"div int64 floor (x / 0 as the reference)", "aten::div", "[" D2 ", " D2 ", []]", "[" I64 ", " I64 ", " NO "]",
      "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"floor\"")},
     'd',
     'i'},
    {{"div int32 trunc, other transposed", "aten::div", "[" D2 ", " D2 ", []]", "[" I32 ", " I32 ", " NO "]",
      "[" C2 ", " T2 ", []]", CONC(NO ", " NO ", \"trunc\"")},
     's',
     'i'},
    {{"div int64 / int64 -> fp32 (true division)", "aten::div", "[" D2 ", " D2 "]", "[" I64 ", " I64 "]",
      "[" C2 ", " C2 "]", NULL},
     'd',
     0},
    {{"maximum int64, a broadcast row", "aten::maximum", "[" D2 ", " ROW "]", "[" I64 ", " I64 "]", "[" C2 ", [1]]",
      NULL},
     's',
     'i'},
    {{"minimum int32", "aten::minimum", "[" D2 ", " D2 "]", "[" I32 ", " I32 "]", "[" C2 ", " C2 "]", NULL}, 'd', 'i'},
    {{"clamp int64 [-1, 1]", "aten::clamp", "[" D2 ", [], []]", "[" I64 ", " SC ", " SC "]", "[" C2 ", [], []]",
      CONC(NO ", \"-1\", \"1\"")},
     'd',
     'i'},
    {{"clamp int32, max only", "aten::clamp", "[" D2 ", [], []]", "[" I32 ", " NO ", " SC "]", "[" C2 ", [], []]",
      CONC(NO ", " NO ", \"0\"")},
     'd',
     'i'},
    {{"clamp_min_ int32 0 in place", "aten::clamp_min_", "[" D2 ", []]", "[" I32 ", " SC "]", "[" C2 ", []]",
      CONC(NO ", \"0\"")},
     'd',
     'i'},
    {{"clamp_max int16 1", "aten::clamp_max", "[" D2 ", []]", "[" I16 ", " SC "]", "[" C2 ", []]", CONC(NO ", \"1\"")},
     'd',
     'i'},
    {{"neg int64", "aten::neg", "[" D2 "]", "[" I64 "]", "[" C2 "]", NULL}, 'd', 'i'},
    {{"abs int32, transposed", "aten::abs", "[" D2 "]", "[" I32 "]", "[" T2 "]", NULL}, 'd', 'i'},
    {{"relu int8", "aten::relu", "[" D2 "]", "[" I8 "]", "[" C2 "]", NULL}, 'd', 'i'},
    {{"eq int64 [1, 141] == Scalar 0 -> bool", "aten::eq", "[[1, 141], []]", "[" I64 ", " SC "]", "[[141, 1], []]",
      CONC(NO ", \"0\"")},
     'd',
     'i'},
    {{"ne int64 tensors -> bool", "aten::ne", "[" D2 ", " D2 "]", "[" I64 ", " I64 "]", "[" C2 ", " C2 "]", NULL},
     'd',
     'i'},
    {{"ge int32 >= int64 transposed -> bool", "aten::ge", "[" D2 ", " D2 "]", "[" I32 ", " I64 "]", "[" C2 ", " T2 "]",
      NULL},
     's',
     'i'},
    {{"lt int32 < fp32 tensor -> bool (in float)", "aten::lt", "[" D2 ", " D2 "]", "[" I32 ", " FL "]",
      "[" C2 ", " C2 "]", NULL},
     'd',
     0},
    {{"gt int64 > 0.5 -> bool (in float)", "aten::gt", "[" D2 ", []]", "[" I64 ", " SC "]", "[" C2 ", []]",
      CONC(NO ", \"0.5\"")},
     'd',
     0},
    {{"le int64 <= fp64 tensor -> bool (in double)", "aten::le", "[" D2 ", " D2 "]", "[" I64 ", " DB "]",
      "[" C2 ", " C2 "]", NULL},
     'd',
     'd'},
    {{"where int64, a broadcast row", "aten::where", "[" D2 ", " D2 ", " ROW "]", "[" BO ", " I64 ", " I64 "]",
      "[" C2 ", " C2 ", [1]]", NULL},
     's',
     'i'},
    {{"where int64 / fp32 -> fp32 (promoted)", "aten::where", "[" D2 ", " D2 ", " D2 "]", "[" BO ", " I64 ", " FL "]",
      "[" C2 ", " C2 ", " C2 "]", NULL},
     'd',
     0},
    {{"masked_fill int64 with -1", "aten::masked_fill", "[" D2 ", " D2 ", []]", "[" I64 ", " BO ", " SC "]",
      "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"-1\"")},
     'd',
     'i'},
    {{"masked_fill_ int32 in place, a broadcast mask", "aten::masked_fill_", "[" D2 ", " ROW ", []]",
      "[" I32 ", " BO ", " SC "]", "[" C2 ", [1], []]", CONC(NO ", " NO ", \"7\"")},
     's',
     'i'},
    {{"copy_ int64 -> fp32", "aten::copy_", "[" D2 ", " D2 ", []]", "[" FL ", " I64 ", " SC "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"False\"")},
     'd',
     0},
    {{"copy_ fp32 -> int32 (truncation)", "aten::copy_", "[" D2 ", " D2 ", []]", "[" I32 ", " FL ", " SC "]",
      "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"False\"")},
     'd',
     'd'},
    {{"copy_ bf16 -> int64, src transposed", "aten::copy_", "[" D2 ", " D2 ", []]", "[" I64 ", " BF ", " SC "]",
      "[" C2 ", " T2 ", []]", CONC(NO ", " NO ", \"False\"")},
     's',
     'd'},
    {{"copy_ int64 -> int32", "aten::copy_", "[" D2 ", " D2 ", []]", "[" I32 ", " I64 ", " SC "]",
      "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"False\"")},
     'd',
     'i'},
    {{"copy_ int64 -> bool", "aten::copy_", "[" D2 ", " D2 ", []]", "[" BO ", " I64 ", " SC "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"False\"")},
     'd',
     'i'},
    {{"copy_ bool -> int64", "aten::copy_", "[" D2 ", " D2 ", []]", "[" I64 ", " BO ", " SC "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"False\"")},
     'd',
     'i'},
    {{"to int64 -> fp32", "aten::to", "[" D2 ", [], [], [], []]", "[" I64 ", " SC ", " SC ", " SC ", " NO "]",
      "[" C2 ", [], [], [], []]", CONC(NO ", \"6\", \"False\", \"False\", " NO)},
     'd',
     0},
    {{"to fp32 -> int64", "aten::to", "[" D2 ", [], [], [], []]", "[" FL ", " SC ", " SC ", " SC ", " NO "]",
      "[" C2 ", [], [], [], []]", CONC(NO ", \"4\", \"False\", \"False\", " NO)},
     'd',
     'd'},
    {{"clone int64", "aten::clone", "[" D2 ", []]", "[" I64 ", " NO "]", "[" C2 ", []]", CONC(NO ", " NO)}, 'd', 'i'},
    {{"fill_ int64 with a Scalar 3", "aten::fill_", "[" D2 ", []]", "[" I64 ", " SC "]", "[" C2 ", []]",
      CONC(NO ", \"3\"")},
     'd',
     'i'},
    {{"zero_ int32", "aten::zero_", "[" D2 "]", "[" I32 "]", "[" C2 "]", NULL}, 'd', 'i'},
    {{"add uint8 + uint8 -> uint8", "aten::add", "[" D2 ", " D2 ", []]", "[" U8 ", " U8 ", " SC "]",
      "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"1\"")},
     'd',
     'i'},
    {{"copy_ bool -> uint8", "aten::copy_", "[" D2 ", " D2 ", []]", "[" U8 ", " BO ", " SC "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"False\"")},
     'd',
     'i'},
    {{"maximum uint8, transposed", "aten::maximum", "[" D2 ", " D2 "]", "[" U8 ", " U8 "]", "[" C2 ", " T2 "]", NULL},
     's',
     'i'},
    {{"exp int64 -> fp32 (promoted)", "aten::exp", "[" D2 "]", "[" I64 "]", "[" C2 "]", NULL}, 'd', 0},
    /* fp64 */
    {{"mul fp64", "aten::mul", "[" D2 ", " D2 "]", "[" DB ", " DB "]", "[" C2 ", " C2 "]", NULL}, 'd', 'd'},
    {{"add fp64 + fp32, other transposed", "aten::add", "[" D2 ", " D2 ", []]", "[" DB ", " FL ", " SC "]",
      "[" C2 ", " T2 ", []]", CONC(NO ", " NO ", \"0.5\"")},
     's',
     'd'},
    {{"div fp64 floor", "aten::div", "[" D2 ", " D2 ", []]", "[" DB ", " DB ", " NO "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"floor\"")},
     'd',
     'd'},
    {{"gelu fp64 tanh", "aten::gelu", "[" D2 ", []]", "[" DB ", " NO "]", "[" C2 ", []]", CONC(NO ", \"tanh\"")},
     'd',
     'd'},
    {{"exp fp64", "aten::exp", "[" D2 "]", "[" DB "]", "[" C2 "]", NULL}, 'd', 'd'},
    {{"sigmoid_backward fp64", "aten::sigmoid_backward", "[" D2 ", " D2 "]", "[" DB ", " DB "]", "[" C2 ", " C2 "]",
      NULL},
     'd',
     'd'},
    {{"copy_ fp64 -> bf16", "aten::copy_", "[" D2 ", " D2 ", []]", "[" BF ", " DB ", " SC "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"False\"")},
     'd',
     'd'},
    {{"mul fp32 by a 0-d fp64 tensor (in float)", "aten::mul", "[" D2 ", []]", "[" FL ", " DB "]", "[" C2 ", []]",
      NULL},
     'd',
     0},
    {{"mul_ bf16 by a 0-d fp64 tensor, transposed", "aten::mul_", "[" D2 ", []]", "[" BF ", " DB "]", "[" T2 ", []]",
      NULL},
     'd',
     0},
    {{"copy_ fp32 -> fp64", "aten::copy_", "[" D2 ", " D2 ", []]", "[" DB ", " FL ", " SC "]", "[" C2 ", " C2 ", []]",
      CONC(NO ", " NO ", \"False\"")},
     'd',
     'd'},
    /* upsample_nearest */
    {{"upsample_nearest2d fp32 NCHW, scale 2", "aten::upsample_nearest2d", UPARGS2, UPTYPES2, "[" UP_C ", [], []]",
      CONC(NO ", " NO ", \"[2.0, 2.0]\"")},
     'g',
     'g'},
    {{"upsample_nearest2d fp32 channels-last, scale 2", "aten::upsample_nearest2d", UPARGS2, UPTYPES2,
      "[" UP_CL ", [], []]", CONC(NO ", " NO ", \"[2.0, 2.0]\"")},
     'g',
     'g'},
    {{"upsample_nearest2d bf16 NCHW, size [17, 23]", "aten::upsample_nearest2d", UPARGS2,
      "[" BF ", \"ScalarList\", " NO "]", "[" UP_C ", [], []]", CONC("" NO ", \"[17, 23]\", " NO)},
     'g',
     'g'},
    {{"upsample_nearest2d bf16 channels-last, size [17, 23]", "aten::upsample_nearest2d", UPARGS2,
      "[" BF ", \"ScalarList\", " NO "]", "[" UP_CL ", [], []]", CONC("" NO ", \"[17, 23]\", " NO)},
     'g',
     'g'},
    {{"upsample_nearest2d fp32, scale 0.5 (down)", "aten::upsample_nearest2d", UPARGS2, UPTYPES2, "[" UP_C ", [], []]",
      CONC(NO ", " NO ", \"[0.5, 0.5]\"")},
     'g',
     'g'},
    {{"upsample_nearest1d fp16, size 20", "aten::upsample_nearest1d", "[[2, 5, 7], [], []]",
      "[" HF ", \"ScalarList\", " NO "]", "[[35, 7, 1], [], []]", CONC(NO ", \"[20]\", " NO)},
     'g',
     'g'},
    {{"upsample_nearest3d fp32 NCDHW, scale 2", "aten::upsample_nearest3d", "[[1, 4, 3, 5, 6], [], []]",
      "[" FL ", " NO ", \"ScalarList\"]", "[[360, 90, 30, 6, 1], [], []]", CONC(NO ", " NO ", \"[2.0, 2.0, 2.0]\"")},
     'g',
     'g'},
    {{"upsample_nearest3d bf16 channels-last, size", "aten::upsample_nearest3d", "[[1, 4, 3, 5, 6], [], []]",
      "[" BF ", \"ScalarList\", " NO "]", "[[360, 1, 120, 24, 4], [], []]", CONC(NO ", \"[5, 9, 13]\", " NO)},
     'g',
     'g'},
};
#define NCASES ((int)(sizeof CASES / sizeof CASES[0]))

/* ---- the conversions, bit for bit ---- */

static int same_float_bits(float a, float b) {
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y;
}

static void test_conversions(void) {
    int64_t bad16 = 0, badbf = 0, bads16 = 0, badsbf = 0, n = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        bad16 += !same_float_bits(jv_elementwise_cpu_f16_to_f32((uint16_t)h), jv_f16_to_f32((uint16_t)h));
        badbf += !same_float_bits(jv_elementwise_cpu_bf16_to_f32((uint16_t)h), jv_bf16_to_f32((uint16_t)h));
    }
    /* stores: a sweep of bit patterns, and around every fp16 / bf16 value: the value, the halfway point to the
     * next one, and one float ulp either side of it */
    for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, 4);
        bads16 += jv_elementwise_cpu_f32_to_f16(f) != jv_f32_to_f16(f);
        badsbf += jv_elementwise_cpu_f32_to_bf16(f) != jv_f32_to_bf16(f);
        n++;
    }
    for (uint32_t h = 0; h < 65536; h++) {
        float lo16 = jv_f16_to_f32((uint16_t)h), hi16 = jv_f16_to_f32((uint16_t)(h + 1));
        float lobf = jv_bf16_to_f32((uint16_t)h), hibf = jv_bf16_to_f32((uint16_t)(h + 1));
        float pts[8] = {lo16, 0.5f * lo16 + 0.5f * hi16, lobf, 0.5f * lobf + 0.5f * hibf};
        pts[4] = nextafterf(pts[1], -INFINITY), pts[5] = nextafterf(pts[1], INFINITY);
        pts[6] = nextafterf(pts[3], -INFINITY), pts[7] = nextafterf(pts[3], INFINITY);
        for (int k = 0; k < 8; k++) {
            bads16 += jv_elementwise_cpu_f32_to_f16(pts[k]) != jv_f32_to_f16(pts[k]);
            badsbf += jv_elementwise_cpu_f32_to_bf16(pts[k]) != jv_f32_to_bf16(pts[k]);
            n++;
        }
    }
    CHECK_MSG(bad16 == 0 && badbf == 0, "loads: %lld fp16 and %lld bf16 values differ from the core's",
              (long long)bad16, (long long)badbf);
    CHECK_MSG(bads16 == 0 && badsbf == 0, "stores: %lld fp16 and %lld bf16 roundings of %lld floats differ",
              (long long)bads16, (long long)badsbf, (long long)n);
    printf("%-48s %-4s all 65536 fp16 and bf16 loads; %lld float stores to each\n", "conversions vs the core's",
           bad16 + badbf + bads16 + badsbf == 0 ? "OK" : "FAIL", (long long)n);
}

/* ---- the cases ---- */

/* plans and runs s's call on the kernels (dev buffers); returns the path ('d', 's', 'g') or 0 with err set, and
 * what it computed in (compute: 'i', 'd', 'g' or 0 for float) */
static char run_kernel(setup *s, char *compute, jv_err *err) {
    jv_elementwise_cpu *p = NULL;
    if (jv_elementwise_cpu_plan(&s->d, &s->ops, &p, err) != JV_OK) return 0;
    const char *c = jv_elementwise_cpu_compute(p);
    *compute = !strcmp(c, "int64") ? 'i' : !strcmp(c, "double") ? 'd' : !strcmp(c, "gather") ? 'g' : 0;
    char path = *compute == 'g' ? 'g' : jv_elementwise_cpu_is_dense(p) ? 'd' : 's';
    jv_status st = jv_elementwise_cpu_run(p, s->dev, err);
    jv_elementwise_cpu_free(p);
    return st == JV_OK ? path : 0;
}

static void run_case(const ecase *k) {
    setup s;
    if (!setup_case(&k->c, &s, 1)) {
        setup_free(&s);
        return;
    }
    jv_err err;
    jv_err_clear(&err);
    char compute = 0;
    char path = run_kernel(&s, &compute, &err);
    CHECK_MSG(path != 0, "%s: %s", k->c.what, err.msg);
    jv_verify v;
    int ok = path && verify_all(&s, &v);
    /* an integer or bool output is verified exactly: tolerance 0, no difference at all */
    jv_dtype odt = JV_DT_F32;
    for (int i = 0; i < s.ops.n; i++)
        if (s.ops.o[i].role != JV_ROLE_IN) odt = s.ops.o[i].t.dtype;
    if (path && !jv_dtype_is_float(odt))
        CHECK_MSG(v.tol == 0 && v.max_abs == 0, "%s: an integer output verified with tolerance %g (max |d| %g)",
                  k->c.what, v.tol, v.max_abs);
    CHECK_MSG(!path || compute == k->compute, "%s: computed in '%c', expected '%c'", k->c.what, compute ? compute : 'f',
              k->compute ? k->compute : 'f');
    CHECK_MSG(!path || ok, "%s: does not verify: '%s' rel_l2 %.3g (tol %.3g), %lld bad elements, %lld NaN", k->c.what,
              v.worst, v.rel_l2, v.tol, (long long)v.elem_bad, (long long)v.nan);
    CHECK_MSG(!path || path == k->path, "%s: ran the '%c' path, expected '%c'", k->c.what, path, k->path);
    printf("%-48s %-4s %-7s %-6s rel_l2 %.3g (tol %.3g) max_elem %.3g%s%s\n", k->c.what, ok ? "OK" : "FAIL",
           path == 'd'   ? "dense"
           : path == 's' ? "strided"
           : path == 'g' ? "gather"
                         : "-",
           compute == 'i'   ? "int64"
           : compute == 'd' ? "double"
           : compute == 'g' ? "-"
                            : "float",
           v.rel_l2, v.tol, v.max_elem, path ? "" : ": ", path ? "" : err.msg);
    setup_free(&s);
}

/* ---- refusals ---- */

static const struct {
    jv_cpu_case c;
    const char *reason; /* a part of the message */
} REFUSED[] = {
    {{"exp_ int64 in place", "aten::exp_", "[[64]]", "[" I64 "]", "[[1]]", NULL}, "not defined on integers"},
    {{"copy_ fp32 -> uint8", "aten::copy_", "[[64], [64], []]", "[" U8 ", " FL ", " SC "]", "[[1], [1], []]",
      CONC(NO ", " NO ", \"False\"")},
     "uint8 of a signed value"},
    {{"sub uint8 - uint8 -> uint8", "aten::sub", "[[64], [64], []]", "[" U8 ", " U8 ", " SC "]", "[[1], [1], []]",
      CONC(NO ", " NO ", \"1\"")},
     "uint8 of a signed value"},
    {{"div_ int32 true division in place", "aten::div_", "[[64], [64]]", "[" I32 ", " I32 "]", "[[1], [1]]", NULL},
     "int32: the op is not defined on integers"},
};

static void run_refusals(void) {
    for (size_t i = 0; i < sizeof REFUSED / sizeof REFUSED[0]; i++) {
        setup s;
        if (!setup_case(&REFUSED[i].c, &s, 0)) {
            setup_free(&s);
            continue;
        }
        jv_err err;
        jv_err_clear(&err);
        jv_elementwise_cpu *p = NULL;
        jv_status st = jv_elementwise_cpu_plan(&s.d, &s.ops, &p, &err);
        CHECK_MSG(st == JV_ERR_NOTFOUND && !p && strstr(err.msg, REFUSED[i].reason),
                  "%s: expected a refusal naming '%s', got %d: %s", REFUSED[i].c.what, REFUSED[i].reason, (int)st,
                  err.msg);
        printf("%-48s %-4s %s\n", REFUSED[i].c.what, st == JV_ERR_NOTFOUND ? "REFUSED" : "??", err.msg);
        jv_elementwise_cpu_free(p);
        setup_free(&s);
    }
}

/* ---- through the backend: impl strings, refusals ---- */

static void backend_case(void *cpu, const jv_cpu_case *c, const char *want_impl) {
    setup s;
    if (!setup_case(c, &s, 1)) {
        setup_free(&s);
        return;
    }
    jv_err err;
    jv_err_clear(&err);
    char impl[192] = "";
    void *plan = NULL;
    jv_status st = jv_cpu_backend.prepare(cpu, &s.d, &s.ops, 0, &plan, impl, sizeof impl, &err);
    CHECK_MSG(st == JV_OK, "%s: prepare: %s", c->what, err.msg);
    if (st == JV_OK) st = jv_cpu_backend.launch(cpu, plan, &s.d, &s.ops, s.dev, &err);
    CHECK_MSG(st == JV_OK, "%s: launch: %s", c->what, err.msg);
    jv_cpu_backend.release(cpu, plan);
    jv_verify v;
    int ok = st == JV_OK && verify_all(&s, &v);
    CHECK_MSG(ok, "%s: through the backend: does not verify", c->what);
    CHECK_MSG(!strncmp(impl, want_impl, strlen(want_impl)), "%s: impl \"%s\", expected \"%s...\"", c->what, impl,
              want_impl);
    printf("%-48s %-4s impl \"%s\"\n", c->what, ok ? "OK" : "FAIL", impl);
    setup_free(&s);
}

/* a call the kernel refuses is refused by the backend too (never run on the reference), naming the reason */
static void backend_refusal(void *cpu, const jv_cpu_case *c, const char *want_msg) {
    setup s;
    if (!setup_case(c, &s, 1)) {
        setup_free(&s);
        return;
    }
    jv_err err;
    jv_err_clear(&err);
    char impl[192] = "";
    void *plan = NULL;
    jv_status st = jv_cpu_backend.prepare(cpu, &s.d, &s.ops, 0, &plan, impl, sizeof impl, &err);
    CHECK_MSG(st == JV_ERR_NOTFOUND && !plan && strstr(err.msg, want_msg), "%s: expected a refusal naming '%s': %d %s",
              c->what, want_msg, (int)st, err.msg);
    jv_cpu_backend.release(cpu, plan);
    printf("%-48s %-4s %s\n", c->what, st == JV_ERR_NOTFOUND ? "REFUSED" : "??", err.msg);
    setup_free(&s);
}

static void run_backend(void) {
    void *cpu = NULL;
    jv_err err;
    jv_err_clear(&err);
    CHECK_MSG(jv_cpu_backend.open(0, &cpu, &err) == JV_OK, "cpu backend: %s", err.msg);
    if (!cpu) return;
    backend_case(cpu, &CASES[0].c, "OpenMP elementwise (dense)");
    backend_case(cpu, &CASES[1].c, "OpenMP elementwise (strided)");
    for (int i = 0; i < NCASES; i++) { /* the first of each computation through the backend */
        static const char *const IMPL[] = {"OpenMP elementwise (dense, int64)", "OpenMP elementwise (dense, double)",
                                           "OpenMP elementwise (gather)"};
        static const char KIND[] = {'i', 'd', 'g'};
        for (int j = 0; j < 3; j++)
            if (CASES[i].compute == KIND[j] && CASES[i].path != 's') {
                int first = 1;
                for (int m = 0; m < i; m++)
                    first &= CASES[m].compute != KIND[j] || CASES[m].path == 's';
                if (first) backend_case(cpu, &CASES[i].c, IMPL[j]);
            }
    }
    backend_refusal(cpu, &REFUSED[0].c, "cpu backend: no CPU kernel: aten::exp_: output dtype int64");
    backend_refusal(cpu, &REFUSED[1].c, "cpu backend: no CPU kernel: aten::copy_: output dtype uint8");
    jv_cpu_backend.close(cpu);
}

/* ---- the check can fail ---- */

/* runs call `run`'s kernel over the buffers of call `ref` (same operand layout) and verifies against ref's
 * reference: returns 1 when it passes */
static int cross_check(const jv_cpu_case *run, const jv_cpu_case *ref, jv_verify *v) {
    setup a, b;
    int ok = -1;
    if (setup_case(run, &a, 0) && setup_case(ref, &b, 1)) {
        jv_err err;
        jv_err_clear(&err);
        jv_elementwise_cpu *p = NULL;
        CHECK_MSG(a.ops.n == b.ops.n, "%s vs %s: operand lists differ", run->what, ref->what);
        if (a.ops.n == b.ops.n && jv_elementwise_cpu_plan(&a.d, &a.ops, &p, &err) == JV_OK &&
            jv_elementwise_cpu_run(p, b.dev, &err) == JV_OK)
            ok = verify_all(&b, v);
        CHECK_MSG(ok >= 0, "%s vs %s: %s", run->what, ref->what, err.msg);
        jv_elementwise_cpu_free(p);
    }
    setup_free(&a);
    setup_free(&b);
    return ok;
}

static void run_wrong(void) {
    static const jv_cpu_case ADD = {"add fp32",
                                    "aten::add",
                                    "[" D2 ", " D2 ", []]",
                                    "[" FL ", " FL ", " SC "]",
                                    "[" C2 ", " C2 ", []]",
                                    CONC(NO ", " NO ", \"1\"")};
    static const jv_cpu_case ADD2 = {"add fp32 alpha 2",     "aten::add",
                                     "[" D2 ", " D2 ", []]", "[" FL ", " FL ", " SC "]",
                                     "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"2\"")};
    static const jv_cpu_case MUL = {"mul fp32",         "aten::mul",        "[" D2 ", " D2 "]",
                                    "[" FL ", " FL "]", "[" C2 ", " C2 "]", NULL};
    jv_verify v;
    int ok = cross_check(&ADD, &MUL, &v);
    CHECK_MSG(ok == 0, "add's output verified against mul's reference (%d): the check cannot fail", ok);
    printf("%-48s %-4s rel_l2 %.3g (tol %.3g): expected to fail\n", "add's output vs mul's reference (wrong)",
           ok == 0 ? "FAIL" : "OK?!", v.rel_l2, v.tol);
    ok = cross_check(&ADD2, &ADD, &v);
    CHECK_MSG(ok == 0, "add alpha 2 verified against alpha 1 (%d): the check cannot fail", ok);
    printf("%-48s %-4s rel_l2 %.3g (tol %.3g): expected to fail\n", "add alpha 2 vs add alpha 1 (wrong)",
           ok == 0 ? "FAIL" : "OK?!", v.rel_l2, v.tol);

    /* upsample: the source index by in / out (0.5 per dim) against the reference by the call's scales 1.5 and 2
     * (1 / 1.5 for the rows): the same shapes, other source rows */
    static const jv_cpu_case UPS = {"upsample_nearest2d by size", "aten::upsample_nearest2d",
                                    "[" UP_IN ", [], [], []]",    "[" FL ", \"ScalarList\", " NO ", " NO "]",
                                    "[" UP_C ", [], [], []]",     CONC(NO ", \"[18, 22]\", " NO ", " NO)};
    static const jv_cpu_case UPS15 = {"upsample_nearest2d by scales 1.5, 2",
                                      "aten::upsample_nearest2d",
                                      "[" UP_IN ", [], [], []]",
                                      "[" FL ", \"ScalarList\", " SC ", " SC "]",
                                      "[" UP_C ", [], [], []]",
                                      CONC(NO ", \"[18, 22]\", \"1.5\", \"2.0\"")};
    ok = cross_check(&UPS15, &UPS15, &v);
    CHECK_MSG(ok == 1, "upsample by scales 1.5, 2 does not verify against its own reference (%d)", ok);
    ok = cross_check(&UPS, &UPS15, &v);
    CHECK_MSG(ok == 0, "upsample by in/out verified against the reference by scale 1.5 (%d): the check cannot fail",
              ok);
    printf("%-48s %-4s rel_l2 %.3g (tol %.3g): expected to fail\n", "upsample index in/out vs 1/1.5 (wrong)",
           ok == 0 ? "FAIL" : "OK?!", v.rel_l2, v.tol);

    /* an int64 result off by one in one element */
    static const jv_cpu_case IADD = {"add int64",
                                     "aten::add",
                                     "[" D2 ", " D2 ", []]",
                                     "[" I64 ", " I64 ", " SC "]",
                                     "[" C2 ", " C2 ", []]",
                                     CONC(NO ", " NO ", \"1\"")};
    setup s;
    if (setup_case(&IADD, &s, 1)) {
        jv_err err;
        jv_err_clear(&err);
        char compute = 0;
        ok = run_kernel(&s, &compute, &err) != 0 && verify_all(&s, &v);
        CHECK_MSG(ok == 1, "add int64 does not verify before the damage: %s", err.msg);
        ((int64_t *)s.dev[s.ops.n - 1])[12345] += 1;
        ok = verify_all(&s, &v);
        CHECK_MSG(ok == 0, "an int64 result off by one verified: the check cannot fail");
        printf("%-48s %-4s max |d| %g (tol %.3g): expected to fail\n", "add int64, one element off by one (wrong)",
               ok == 0 ? "FAIL" : "OK?!", v.max_abs, v.tol);
    }
    setup_free(&s);
}

/* ---- float -> int truncates toward zero ---- */

static void test_truncation(void) {
    static const jv_cpu_case C = {"copy_ fp32 -> int32",       "aten::copy_",          "[" D2 ", " D2 ", []]",
                                  "[" I32 ", " FL ", " SC "]", "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"False\"")};
    setup s;
    if (setup_case(&C, &s, 0)) {
        jv_err err;
        jv_err_clear(&err);
        char compute = 0;
        CHECK_MSG(run_kernel(&s, &compute, &err) != 0, "copy_ fp32 -> int32: %s", err.msg);
        const int32_t *o = s.dev[0];
        const float *x = s.dev[1];
        int64_t n = jv_tensor_numel(&s.ops.o[0].t), bad = 0, neg = 0;
        for (int64_t i = 0; i < n; i++) {
            bad += o[i] != (int32_t)truncf(x[i]);
            neg += x[i] < -1.0f && x[i] > -2.0f && o[i] == -1; /* floor would give -2 */
        }
        CHECK_MSG(bad == 0 && neg > 0, "copy_ fp32 -> int32: %lld elements not truncated toward zero, %lld in (-2, -1)",
                  (long long)bad, (long long)neg);
        printf("%-48s %-4s %lld elements, %lld of them in (-2, -1) -> -1\n", "copy_ fp32 -> int32 truncates",
               bad == 0 && neg > 0 ? "OK" : "FAIL", (long long)n, (long long)neg);
    }
    setup_free(&s);
}

/* ---- timing (information only) ---- */

static void run_timing(const char *what, const char *op, const char *dims, const char *types, const char *conc,
                       double bytes_per_elem) {
    const jv_cpu_case c = {what, op, dims, types, NULL, conc};
    setup s;
    if (!setup_case(&c, &s, 0)) {
        setup_free(&s);
        return;
    }
    jv_err err;
    jv_err_clear(&err);
    jv_elementwise_cpu *p = NULL;
    if (jv_elementwise_cpu_plan(&s.d, &s.ops, &p, &err) == JV_OK) {
        double best = 0;
        (void)jv_elementwise_cpu_run(p, s.dev, &err); /* warm-up: pages touched */
        for (int r = 0; r < 5; r++) {
            double t0 = jv_now();
            (void)jv_elementwise_cpu_run(p, s.dev, &err);
            double t = jv_now() - t0;
            if (r == 0 || t < best) best = t;
        }
        int64_t n = jv_tensor_numel(&s.ops.o[s.ops.n - 1].t);
        printf("%-48s %8.3f ms  %6.2f GB/s\n", what, best * 1e3,
               best > 0 ? bytes_per_elem * (double)n / best / 1e9 : 0);
    }
    jv_elementwise_cpu_free(p);
    setup_free(&s);
}

int main(void) {
    test_conversions();
    for (int i = 0; i < NCASES; i++)
        run_case(&CASES[i]);
    run_refusals();
    run_backend();
    run_wrong();
    test_truncation();
    printf("\ntimes (best of 5, 16M elements; information only):\n");
    run_timing("add fp32", "aten::add", "[[4096, 4096], [4096, 4096], []]", "[" FL ", " FL ", " SC "]",
               CONC(NO ", " NO ", \"1\""), 12);
    run_timing("add bf16", "aten::add", "[[4096, 4096], [4096, 4096], []]", "[" BF ", " BF ", " SC "]",
               CONC(NO ", " NO ", \"1\""), 6);
    run_timing("mul fp16 by a Scalar", "aten::mul", "[[4096, 4096], []]", "[" HF ", " SC "]", CONC(NO ", \"0.5\""), 4);
    run_timing("copy_ fp32 -> bf16", "aten::copy_", "[[4096, 4096], [4096, 4096], []]", "[" BF ", " FL ", " SC "]",
               CONC(NO ", " NO ", \"False\""), 6);
    run_timing("threshold_backward bf16", "aten::threshold_backward", "[[4096, 4096], [4096, 4096], []]",
               "[" BF ", " BF ", " SC "]", CONC(NO ", " NO ", \"0\""), 6);
    run_timing("add int64 (4M elements)", "aten::add", "[[2048, 2048], [2048, 2048], []]", "[" I64 ", " I64 ", " SC "]",
               CONC(NO ", " NO ", \"1\""), 24);
    run_timing("upsample_nearest2d bf16 x2 (4M out)", "aten::upsample_nearest2d", "[[4, 64, 64, 64], [], []]",
               "[" BF ", " NO ", \"ScalarList\"]", CONC(NO ", " NO ", \"[2.0, 2.0]\""), 2.5);
    run_timing("gelu bf16", "aten::gelu", "[[4096, 4096], []]", "[" BF ", " NO "]", CONC(NO ", \"none\""), 4);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

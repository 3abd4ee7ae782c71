/* jv_test_calls: the trace texts of the CPU and vendor-path tests' generated calls (Input type spellings and the
 * Concrete Inputs of GEMM and convolution calls), one copy for test_cpu_gemm, test_cpu_conv, test_cpu_eltwise and
 * test_hip_vendor. */
#ifndef JV_TEST_CALLS_H
#define JV_TEST_CALLS_H

/* Input type spellings */
#define BF  "\"c10::BFloat16\""
#define HF  "\"c10::Half\""
#define FL  "\"float\""
#define DB  "\"double\""
#define SC  "\"Scalar\""
#define BO  "\"bool\""
#define NO  "\"\"" /* no type: an argument recorded without one (None, a list) */
#define I64 "\"long int\""
#define I32 "\"int\""
#define I16 "\"short int\""
#define I8  "\"signed char\""
#define U8  "\"unsigned char\""

/* addmm: types of (self, mat1, mat2, beta, alpha) and the concrete beta and alpha */
#define ADD_TYPES(T)    "[" T ", " T ", " T ", " SC ", " SC "]"
#define BA(beta, alpha) "[\"\", \"\", \"\", \"" beta "\", \"" alpha "\"]"

/* aten::convolution: types (input, weight, bias B) and concrete stride, padding, dilation, transposed,
 * output_padding, groups */
#define CONV_TYPES(T, B)                                                                                               \
    "[" T ", " T ", " B ", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"]"
#define CONV_FWD_ARGS(S, P, D, TR, OP, G)                                                                              \
    "[\"\", \"\", \"\", \"[" S "]\", \"[" P "]\", \"[" D "]\", \"" TR "\", \"[" OP "]\", \"" G "\"]"
/* aten::convolution_backward: types, and concrete bias_sizes, stride, padding, dilation, transposed, output_padding,
 * groups, output_mask */
#define CONV_BWD_TYPES(T)                                                                                              \
    "[" T ", " T ", " T ", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "               \
    "\"ScalarList\", \"Scalar\", \"ScalarList\"]"
#define CONV_BWD_ARGS(B, S, P, D, TR, OP, G, M)                                                                        \
    "[\"\", \"\", \"\", \"[" B "]\", \"[" S "]\", \"[" P "]\", \"[" D "]\", \"" TR "\", \"[" OP "]\", \"" G            \
    "\", \"[" M "]\"]"

/* channels_last strides of x [2, 8, 12, 12], y [2, 16, 12, 12] and weight [16, 8, 3, 3] */
#define X8_CL  "[1152, 1, 96, 8]"
#define X16_CL "[2304, 1, 192, 16]"
#define W8_CL  "[72, 1, 24, 8]"

#endif

/* gemm_cases: the GEMM calls (trace form) that the CPU backend's test (test_cpu_gemm.c) and the HIP vendor
 * tests (hip_harness.h) both replay and verify against the GEMM family's reference: mm, addmm (a [N], [M, N],
 * [M, 1] and 0-d bias; beta/alpha; beta 0), bmm, baddbmm and linear, with transposed and strided operands, in
 * fp32, bf16 and fp16 (64 x 96 x 80, a batch of 3). "mm fp32" stays first: the HIP tests run GEMM_CASES[0]
 * alone. jv_cpu_case comes from jv_test_cpu.h, included first. */
#ifndef GEMM_CASES_H
#define GEMM_CASES_H

#include "jv_test_calls.h"

static const jv_cpu_case GEMM_CASES[] __attribute__((unused)) = {
    {"mm fp32", "aten::mm", "[[64, 96], [96, 80]]", "[" FL ", " FL "]", NULL, NULL},
    {"mm fp32, A transposed", "aten::mm", "[[64, 96], [96, 80]]", "[" FL ", " FL "]", "[[1, 64], [80, 1]]", NULL},
    {"mm fp32 square, A transposed", "aten::mm", "[[64, 64], [64, 64]]", "[" FL ", " FL "]", "[[1, 64], [64, 1]]",
     NULL},
    {"mm fp32, both transposed", "aten::mm", "[[64, 96], [96, 80]]", "[" FL ", " FL "]", "[[1, 64], [1, 96]]", NULL},
    {"mm bf16, B transposed", "aten::mm", "[[64, 96], [96, 80]]", "[" BF ", " BF "]", "[[96, 1], [1, 96]]", NULL},
    {"mm fp16", "aten::mm", "[[64, 96], [96, 80]]", "[" HF ", " HF "]", NULL, NULL},
    {"mm fp32, A row stride 128", "aten::mm", "[[64, 96], [96, 80]]", "[" FL ", " FL "]", "[[128, 1], [80, 1]]", NULL},
    {"addmm fp32, [N] bias, B transposed", "aten::addmm", "[[80], [64, 96], [96, 80], [], []]", ADD_TYPES(FL),
     "[[1], [96, 1], [1, 96], [], []]", BA("1", "1")},
    {"addmm fp32, [M, N] bias, beta 0.5 alpha 2", "aten::addmm", "[[64, 80], [64, 96], [96, 80], [], []]",
     ADD_TYPES(FL), "[[80, 1], [1, 64], [80, 1], [], []]", BA("0.5", "2")},
    {"addmm fp32, [N] bias, beta 1 alpha 0.25", "aten::addmm", "[[80], [64, 96], [96, 80], [], []]", ADD_TYPES(FL),
     "[[1], [96, 1], [80, 1], [], []]", BA("1", "0.25")},
    {"addmm fp32, 0-d bias beta 2", "aten::addmm", "[[], [64, 96], [96, 80], [], []]", ADD_TYPES(FL),
     "[[], [96, 1], [80, 1], [], []]", BA("2", "1")},
    {"addmm bf16, [N] bias, A transposed", "aten::addmm", "[[80], [64, 96], [96, 80], [], []]", ADD_TYPES(BF),
     "[[1], [1, 64], [80, 1], [], []]", BA("1", "1")},
    {"addmm fp16, [M, N] bias beta 0.5", "aten::addmm", "[[64, 80], [64, 96], [96, 80], [], []]", ADD_TYPES(HF),
     "[[80, 1], [96, 1], [1, 96], [], []]", BA("0.5", "2")},
    {"addmm fp32, beta 0 alpha 1.5", "aten::addmm", "[[80], [64, 96], [96, 80], [], []]", ADD_TYPES(FL),
     "[[1], [96, 1], [80, 1], [], []]", BA("0", "1.5")},
    {"addmm bf16, [M, N] bias, beta 0.5 alpha 2", "aten::addmm", "[[64, 80], [64, 96], [96, 80], [], []]",
     ADD_TYPES(BF), "[[80, 1], [96, 1], [1, 96], [], []]", BA("0.5", "2")},
    {"addmm fp32, [M, 1] bias", "aten::addmm", "[[64, 1], [64, 96], [96, 80], [], []]", ADD_TYPES(FL),
     "[[1, 1], [96, 1], [80, 1], [], []]", BA("1", "1")},
    {"bmm fp32, A transposed", "aten::bmm", "[[3, 64, 96], [3, 96, 80]]", "[" FL ", " FL "]",
     "[[6144, 1, 64], [7680, 80, 1]]", NULL},
    {"bmm bf16, B transposed", "aten::bmm", "[[3, 64, 96], [3, 96, 80]]", "[" BF ", " BF "]",
     "[[6144, 96, 1], [7680, 1, 96]]", NULL},
    {"baddbmm fp32, [B, M, N] self, beta 0.5 alpha 2", "aten::baddbmm",
     "[[3, 64, 80], [3, 64, 96], [3, 96, 80], [], []]", ADD_TYPES(FL),
     "[[5120, 80, 1], [6144, 96, 1], [7680, 1, 96], [], []]", BA("0.5", "2")},
    {"baddbmm bf16, [N] self", "aten::baddbmm", "[[80], [3, 64, 96], [3, 96, 80], [], []]", ADD_TYPES(BF),
     "[[1], [6144, 1, 64], [7680, 80, 1], [], []]", BA("1", "1")},
    {"linear fp32, [B, M, K] input, bias", "aten::linear", "[[3, 64, 96], [80, 96], [80]]", "[" FL ", " FL ", " FL "]",
     NULL, NULL},
    {"linear bf16, no bias", "aten::linear", "[[64, 96], [80, 96], []]", "[" BF ", " BF ", " BF "]", NULL, NULL},
};
#define NGEMM_CASES ((int)(sizeof GEMM_CASES / sizeof GEMM_CASES[0]))

#endif

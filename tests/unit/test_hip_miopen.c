/* test_hip_miopen: the HIP backend's MIOpen paths (backends/hip/jv_hip_miopen.c)
 * against the fake MIOpen of hip_fakes_miopen.c, which runs on host memory.
 * Every case's outputs are compared with the family's CPU reference:
 * convolution (NCHW and channels_last, stride, pad, dilation, groups,
 * depthwise, 1-D / 3-D, transposed, forward, backward data / weights / bias;
 * fp32, fp16, bf16), the 1x1 convolution as GEMMs on the fake hipBLASLt,
 * batch norm (training and eval forward, training backward with masked
 * grads). Wrong mappings must fail: the fake ignoring the dilation or
 * dropping the strides (so channels_last reads as NCHW) makes the comparison
 * fail. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hip_harness.h"
#include "jv_check.h"
#include "jv_hip_vendor.h"
#include "jv_test_calls.h"
#include "jv_test_cpu.h"

int main(void) {
    jv_hipv v;

    /* convolution on MIOpen; 1x1 convolutions as GEMMs on hipBLASLt */
    fake_vendor(&v, 1, 0, 1);
    F.mi_calls = 0;
    run_all(&v, K_CONV, CONVS, NCONVS, "MIOpen immediate", "MIOpen");
    CHECK(F.mi_calls >= NCONVS);
    run_all(&v, K_CONV_GEMM, CONV_GEMMS, NCONV_GEMMS, "hipBLASLt 1x1 conv GEMM", "conv GEMM");
    refused(&v, K_CONV_GEMM, &CONVS[0], "not a pointwise convolution");
    wrong_case(&v, K_CONV, find_case(CONVS, NCONVS, "conv fwd fp32 dilation 2 pad 2"), &F.ignore_dilation,
               "MIOpen dilation dropped");
    wrong_case(&v, K_CONV, find_case(CONVS, NCONVS, "conv bwd fp32 grad_weight only dil 2"), &F.ignore_dilation,
               "MIOpen dilation dropped (bwd weights)");
    wrong_case(&v, K_CONV, find_case(CONVS, NCONVS, "conv fwd fp32 channels_last bias s2"), &F.drop_strides,
               "MIOpen strides dropped (channels_last)");
    wrong_case(&v, K_CONV_GEMM, &CONV_GEMMS[1], &F.flip_transa, "hipBLASLt TRANSA flipped (1x1 conv bwd)");
    /* bf16 bias: MIOpen's bias calls refuse bf16, so the plan refuses it, named */
    static const jv_cpu_case BF_BIAS = {"conv fwd bf16 NCHW bias",
                                        "aten::convolution",
                                        "[[2, 8, 12, 12], [16, 8, 3, 3], [16], [], [], [], [], [], []]",
                                        CONV_TYPES(BF, BF),
                                        NULL,
                                        CONV_FWD_ARGS("1, 1", "1, 1", "1, 1", "False", "0, 0", "1")};
    refused(&v, K_CONV, &BF_BIAS, "refuses bf16");

    /* batch norm on MIOpen */
    run_all(&v, K_BN, BNS, NBNS, "MIOpen", "MIOpen BN");
    wrong_case(&v, K_BN, find_case(BNS, NBNS, "bn fwd train fp32 channels_last"), &F.drop_strides,
               "MIOpen strides dropped (BN channels_last)");
    {
        setup s;
        if (setup_case(&BNS[0], &s, 0)) {
            char why[200];
            CHECK(jv_hipv_bn_possible(&v, &s.d, &s.ops, why, sizeof why));
            jv_hipv nomi;
            fake_vendor(&nomi, 1, 0, 0);
            CHECK(!jv_hipv_bn_possible(&nomi, &s.d, &s.ops, why, sizeof why) && strstr(why, "absent"));
            jv_hipv_close(&nomi);
        }
        setup_free(&s);
    }
    jv_hipv_close(&v);

    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

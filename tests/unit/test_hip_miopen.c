/* test_hip_miopen: the HIP backend's MIOpen paths (backends/hip/jv_hip_miopen.c)
 * against the fake MIOpen of hip_fakes_miopen.c, which runs on host memory.
 * Every case's outputs are compared with the family's CPU reference:
 * convolution (NCHW and channels_last, stride, pad, dilation, groups,
 * depthwise, 1-D / 3-D, transposed, forward, backward data / weights / bias;
 * fp32, fp16, bf16), the 1x1 convolution as GEMMs on the fake hipBLASLt,
 * batch norm (training and eval forward, training backward with masked
 * grads). Wrong mappings must fail: the fake ignoring the dilation or
 * dropping the strides (so channels_last reads as NCHW) makes the comparison
 * fail. The cases run in immediate mode (conv-algo immediate), then through
 * MIOpen's Find over a fake offering four algorithms of different simulated
 * times (one over the workspace): conv-algo best (exhaustive) runs each that
 * fits and keeps the fastest, named in impl and run, the cache sparing a
 * second search; the default (conv-algo heuristic) must call Find as PyTorch
 * does with benchmark off (exhaustiveSearch false, 1 result asked, never
 * GetSolution) and run the algorithm it returns; every convolution case
 * verifies through each path. */
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
    CHECK(v.conv_mode == JV_HIPV_CONV_FIND); /* the default: a zeroed jv_hipv, as the backend sets it */
    v.conv_mode = JV_HIPV_CONV_IMMEDIATE;
    F.mi_calls = 0;
    run_all(&v, K_CONV, CONVS, NCONVS, "MIOpen immediate", "MIOpen");
    CHECK(F.get_solutions[0] > 0 && F.get_solutions[1] > 0 && F.get_solutions[2] > 0 && F.find_calls[0] == 0);
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

    /* conv-algo best: MIOpen's Find (exhaustive) per direction on scratch operands offers GEMM 30 us, Direct 25 us,
     * Winograd 12 us and ImplicitGEMM 8 us over the workspace: the three that fit are each run, Winograd is kept,
     * named in impl and run by miopenConvolution*; the same configuration is not searched again; every case still
     * verifies through the algorithm found */
    {
        fake_vendor(&v, 0, 0, 1);
        jv_gpu_cache cache;
        memset(&cache, 0, sizeof cache);
        void *dev_ws = calloc(1, FAKE_WS);
        CHECK(dev_ws != NULL);
        v.conv_mode = JV_HIPV_CONV_BEST, v.ws = dev_ws, v.conv_cache = &cache;
        const double ms[4] = {0.030, 0.025, 0.012, 0.008};
        const size_t ws[4] = {0, 4096, 4096, 2 * FAKE_WS};
        F.find_n = 4;
        memcpy(F.find_ms, ms, sizeof ms);
        memcpy(F.find_ws, ws, sizeof ws);
        memset(F.find_tried, 0, sizeof F.find_tried);
        memset(F.find_calls, 0, sizeof F.find_calls);
        memset(F.run_algo, 0xff, sizeof F.run_algo);
        const jv_cpu_case *fwd = find_case(CONVS, NCONVS, "conv fwd fp32 NCHW");
        pctx pc = {&v, K_CONV, ""};
        char msg[600];
        int ok = fwd && run_quiet(&pc, fwd, msg, sizeof msg);
        CHECK_MSG(ok, "searched conv fwd fp32 NCHW: %s", msg);
        printf("%-10s %-48s %-5s [%s]\n", "find", "conv fwd fp32 NCHW", ok ? "OK" : "WRONG", pc.impl);
        CHECK_MSG(strstr(pc.impl, "MIOpen Find exhaustive: fwd Winograd ws 4096, searched 3, best of 3: 12.0 us "
                                  "(Direct 25.0)") != NULL,
                  "impl: %s", pc.impl);
        CHECK_MSG(F.find_calls[0] == 1 && F.find_exhaustive == 1 && F.find_req == 8 && F.find_tried[0][0] == 1 &&
                      F.find_tried[0][1] == 1 && F.find_tried[0][2] == 1 && F.find_tried[0][3] == 0,
                  "Find calls %d, exhaustive %d, tried %d %d %d %d", F.find_calls[0], F.find_exhaustive,
                  F.find_tried[0][0], F.find_tried[0][1], F.find_tried[0][2], F.find_tried[0][3]);
        CHECK_MSG(F.run_algo[0] == 3, "the replay ran forward algorithm %d, not Winograd (3)", F.run_algo[0]);
        ok = fwd && run_quiet(&pc, fwd, msg, sizeof msg); /* the same configuration: from the cache */
        CHECK_MSG(ok && F.find_calls[0] == 1 && cache.n == 1 && strstr(pc.impl, "best of 3: 12.0 us") != NULL,
                  "cached: ok %d, Find calls %d, cache %d, impl %s", ok, F.find_calls[0], cache.n, pc.impl);
        /* a backward with all grads: both directions searched and run with Winograd (a cheaper GEMM for the data
         * gradient: Find sorts, GEMM is kept there) */
        F.find_ms[0] = 0.005;
        const jv_cpu_case *bwd = find_case(CONVS, NCONVS, "conv bwd fp32 all grads");
        ok = bwd && run_quiet(&pc, bwd, msg, sizeof msg);
        CHECK_MSG(ok, "searched conv bwd fp32 all grads: %s", msg);
        printf("%-10s %-48s %-5s [%s]\n", "find", "conv bwd fp32 all grads", ok ? "OK" : "WRONG", pc.impl);
        CHECK_MSG(strstr(pc.impl, "bwd data GEMM ws 0, searched 3, best of 3: 5.0 us (Winograd 12.0)") &&
                      strstr(pc.impl, "bwd weights GEMM ws 0, searched 3, best of 3: 5.0 us"),
                  "impl: %s", pc.impl);
        CHECK(F.find_calls[1] == 1 && F.find_calls[2] == 1 && F.run_algo[1] == 0 && F.run_algo[2] == 0);
        F.find_ms[0] = 0.030;
        jv_gpu_cache_clear(&cache);
        run_all(&v, K_CONV, CONVS, NCONVS, "MIOpen Find exhaustive:", "find");
        CHECK(F.find_tried[0][3] == 0 && F.run_algo[0] == 3 && cache.n > 3);
        /* nothing fits the workspace: refused, named */
        jv_gpu_cache_clear(&cache);
        for (int k = 0; k < 4; k++)
            F.find_ws[k] = 2 * FAKE_WS;
        refused(&v, K_CONV, fwd, "conv-algo best: MIOpen's Find returned no Forward algorithm within the 1 MiB");
        /* the default (conv-algo heuristic), as PyTorch's chooseAlgorithm with benchmark off: Find, not
         * exhaustive, 1 result asked, the one returned run by miopenConvolution*; no GetSolution (immediate mode) */
        memcpy(F.find_ws, ws, sizeof ws);
        jv_gpu_cache_clear(&cache);
        v.conv_mode = JV_HIPV_CONV_FIND;
        memset(F.find_calls, 0, sizeof F.find_calls);
        memset(F.get_solutions, 0, sizeof F.get_solutions);
        memset(F.run_algo, 0xff, sizeof F.run_algo);
        F.find_exhaustive = -1, F.find_req = 0;
        ok = fwd && run_quiet(&pc, fwd, msg, sizeof msg);
        CHECK_MSG(ok, "default conv fwd fp32 NCHW: %s", msg);
        printf("%-10s %-48s %-5s [%s]\n", "default", "conv fwd fp32 NCHW", ok ? "OK" : "WRONG", pc.impl);
        CHECK_MSG(F.find_calls[0] == 1 && F.find_exhaustive == 0 && F.find_req == 1 && F.get_solutions[0] == 0,
                  "default: Find calls %d, exhaustive %d, asked %d, GetSolution calls %d", F.find_calls[0],
                  F.find_exhaustive, F.find_req, F.get_solutions[0]);
        CHECK_MSG(F.run_algo[0] == 3 && strstr(pc.impl, "MIOpen Find: fwd Winograd ws 4096: 12.0 us") != NULL,
                  "default: ran algorithm %d, impl %s", F.run_algo[0], pc.impl);
        ok = bwd && run_quiet(&pc, bwd, msg, sizeof msg);
        CHECK_MSG(ok && F.find_calls[1] == 1 && F.find_calls[2] == 1 && F.find_exhaustive == 0 &&
                      F.get_solutions[1] == 0 && F.get_solutions[2] == 0 && F.run_algo[1] == 3 && F.run_algo[2] == 3,
                  "default bwd: %s; Find calls %d %d, GetSolution %d %d, ran %d %d", msg, F.find_calls[1],
                  F.find_calls[2], F.get_solutions[1], F.get_solutions[2], F.run_algo[1], F.run_algo[2]);
        run_all(&v, K_CONV, CONVS, NCONVS, "MIOpen Find:", "default");
        CHECK(F.find_exhaustive == 0 && F.get_solutions[0] == 0 && F.get_solutions[1] == 0 && F.get_solutions[2] == 0);
        /* nothing within the workspace: refused, named for the option in force */
        jv_gpu_cache_clear(&cache);
        for (int k = 0; k < 4; k++)
            F.find_ws[k] = 2 * FAKE_WS;
        refused(&v, K_CONV, fwd, "conv-algo heuristic: MIOpen's Find returned no Forward algorithm within the 1 MiB");
        /* conv-algo immediate: no Find */
        v.conv_mode = JV_HIPV_CONV_IMMEDIATE;
        int calls = F.find_calls[0];
        run_all(&v, K_CONV, fwd, 1, "MIOpen immediate", "immediate");
        CHECK(F.find_calls[0] == calls && F.get_solutions[0] > 0);
        F.find_n = 0;
        jv_gpu_cache_clear(&cache);
        free(dev_ws);
        jv_hipv_close(&v);
    }

    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

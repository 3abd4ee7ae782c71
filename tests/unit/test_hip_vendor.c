/* test_hip_vendor: the HIP backend's GEMM call building and library loading
 * (backends/hip/jv_hip_vendor.c, jv_hip_blas.c) against the fake hipBLASLt
 * and rocBLAS of hip_fakes.c, which run on host memory. Every case's outputs
 * are compared with the family's CPU reference (jv_desc_reference, through
 * tests/jv_test_cpu.h): mm, addmm with bias, bmm, baddbmm, linear, transposed
 * views, fp32 / fp16 / bf16, on hipBLASLt and on rocBLAS alone; gemm-algo
 * best's search over the fake heuristic's candidates on a simulated clock.
 * Wrong mappings must fail: the fake flipping the TRANSA it is given makes the
 * comparison fail. Last, the real loader on this machine (no ROCm libraries):
 * a start-up line naming what was tried, and each family refused with "not
 * replayed" and its reason. The MIOpen paths are test_hip_miopen.c's. */
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

int main(int argc, char **argv) {
    jv_hipv v;
    const char *fake_rocm = argc > 1 ? argv[1] : NULL; /* a ROCm tree whose libhipblaslt.so lacks all but one symbol */
    unsetenv("ROCM_PATH");

    /* GEMM on hipBLASLt (rocBLAS present too: hipBLASLt comes first), then on rocBLAS alone */
    fake_vendor(&v, 1, 1, 0);
    char line[1024];
    jv_hipv_describe(&v, line, sizeof line);
    printf("vendor line (fakes): %s\n", line);
    CHECK(strstr(line, "hipBLASLt fake-hipblaslt (version 0.10.0)") != NULL);
    CHECK(strstr(line, "rocBLAS fake-rocblas (version 4.4.0-fake)") != NULL);
    CHECK(strstr(line, "MIOpen absent in this test") != NULL);
    F.lt_calls = F.rb_calls = 0;
    run_all(&v, K_GEMM, GEMM_CASES, NGEMM_CASES, "hipBLASLt", "hipBLASLt");
    CHECK(F.lt_calls == NGEMM_CASES && F.rb_calls == 0);
    /* fp64: hipBLASLt has none, rocBLAS takes it */
    run_all(&v, K_GEMM, &MM_F64, 1, "rocBLAS", "fallback");
    /* a swapped transpose fails (hipBLASLt's TRANSA flipped on the way in) */
    /* square: the flipped operand still fits, the numbers are wrong */
    wrong_case(&v, K_GEMM, find_case(GEMM_CASES, NGEMM_CASES, "mm fp32 square, A transposed"), &F.flip_transa,
               "hipBLASLt TRANSA flipped (square)");
    wrong_case(&v, K_GEMM, find_case(GEMM_CASES, NGEMM_CASES, "mm fp32, A transposed"), &F.flip_transa,
               "hipBLASLt TRANSA flipped");
    wrong_case(&v, K_GEMM, find_case(GEMM_CASES, NGEMM_CASES, "bmm bf16, B transposed"), &F.flip_transa,
               "hipBLASLt TRANSA flipped (bmm)");
    jv_hipv_close(&v);

    /* gemm-algo best: hipBLASLt's candidates each run 2 + 5 times, timed on the (simulated) device clock, the fastest
     * kept and named in impl; one that does not launch and one wanting too much workspace are skipped; the choice
     * is reused for the same configuration; every GEMM still verifies through the chosen algorithm */
    {
        fake_vendor(&v, 1, 1, 0);
        jv_gpu_gemm_cache cache;
        memset(&cache, 0, sizeof cache);
        void *dev_ws = calloc(1, FAKE_WS);
        CHECK(dev_ws != NULL);
        v.gemm_search = 1, v.ws = dev_ws, v.gemm_cache = &cache;
        const double cost[5] = {0.030, 0.012, 0.005, 0.008, 0.020}; /* ms: #3 refuses, #4 wants too much workspace */
        F.lt_algos = 5, F.lt_refuse = 3, F.lt_big_ws = 4;
        memcpy(F.lt_cost, cost, sizeof cost);
        memset(F.lt_runs, 0, sizeof F.lt_runs);
        const jv_cpu_case *mm = find_case(GEMM_CASES, NGEMM_CASES, "mm fp32");
        pctx pc = {&v, K_GEMM, ""};
        char msg[600];
        int ok = mm && run_quiet(&pc, mm, msg, sizeof msg);
        CHECK_MSG(ok, "searched mm fp32: %s", msg);
        printf("%-10s %-48s %-5s [%s]\n", "search", "mm fp32", ok ? "OK" : "WRONG", pc.impl);
        CHECK_MSG(strstr(pc.impl, "searched 5, best of 3: heuristic's #2 12.0 us (#1 30.0 us)") != NULL, "impl: %s",
                  pc.impl);
        CHECK_MSG(F.lt_runs[0] == 7 && F.lt_runs[2] == 1 && F.lt_runs[3] == 0 && F.lt_runs[4] == 7,
                  "launches per candidate %d %d %d %d %d", F.lt_runs[0], F.lt_runs[1], F.lt_runs[2], F.lt_runs[3],
                  F.lt_runs[4]);
        CHECK(F.lt_runs[1] > 7 && F.lt_last == 1); /* the replay's own runs used the chosen one */
        int runs0 = F.lt_runs[0];
        ok = mm && run_quiet(&pc, mm, msg, sizeof msg); /* the same configuration: from the cache */
        CHECK(ok && F.lt_runs[0] == runs0 && cache.n == 1 && strstr(pc.impl, "heuristic's #2 12.0 us") != NULL);
        run_all(&v, K_GEMM, GEMM_CASES, NGEMM_CASES, "searched", "search");
        CHECK(F.lt_runs[3] == 0 && F.lt_last == 1);
        /* no candidate launches: rocBLAS runs it; without rocBLAS it is refused, naming the search */
        jv_gpu_cache_clear(&cache);
        F.lt_refuse = -1;
        run_all(&v, K_GEMM, mm, 1, "rocBLAS", "search");
        jv_hipv_close(&v);
        fake_vendor(&v, 1, 0, 0);
        v.gemm_search = 1, v.ws = dev_ws, v.gemm_cache = &cache;
        refused(&v, K_GEMM, mm, "gemm-algo best: none of hipBLASLt's 5 candidates ran");
        /* the heuristic (the default): its first pick only, nothing timed */
        F.lt_refuse = 0;
        memset(F.lt_runs, 0, sizeof F.lt_runs);
        v.gemm_search = 0;
        run_all(&v, K_GEMM, mm, 1, "hipBLASLt heuristic algo", "heuristic");
        CHECK(F.lt_runs[1] == 0 && F.lt_runs[4] == 0 && F.lt_runs[0] > 0);
        F.lt_algos = F.lt_big_ws = 0;
        jv_gpu_cache_clear(&cache);
        free(dev_ws);
        jv_hipv_close(&v);
    }

    /* a hipBLASLt older than 0.10 (enum values not checked) is not used: rocBLAS runs the GEMMs, the line says why */
    F.lt_version = 700;
    fake_vendor(&v, 1, 1, 0);
    F.lt_version = 0;
    jv_hipv_describe(&v, line, sizeof line);
    CHECK(strstr(line, "hipBLASLt fake-hipblaslt version 0.7.0 is older than hipBLASLt 0.10") != NULL);
    run_all(&v, K_GEMM, GEMM_CASES, 1, "rocBLAS", "old LT");
    jv_hipv_close(&v);

    fake_vendor(&v, 0, 1, 0);
    run_all(&v, K_GEMM, GEMM_CASES, NGEMM_CASES, "rocBLAS", "rocBLAS");
    CHECK(F.rb_calls >= NGEMM_CASES);
    jv_hipv_close(&v);

    fake_vendor(&v, 1, 0, 0);
    refused(&v, K_GEMM, &MM_F64, "hipBLASLt has no fp64 GEMM");
    refused(&v, K_CONV, &CONVS[0], "not replayed: no MIOpen (absent in this test)");
    jv_hipv_close(&v);

    /* the real loader here: no ROCm libraries on this machine (or, where they are, a line naming them) */
    jv_hipv_load(&v);
    int lt_here = v.lt_lib.found;
    jv_hipv_describe(&v, line, sizeof line);
    printf("vendor line (dlopen here): %s\n", line);
    CHECK(strstr(line, "hipBLASLt ") == line && strstr(line, "; rocBLAS ") && strstr(line, "; MIOpen "));
    if (!v.lt_lib.found && !v.rb_lib.found && !v.mi_lib.found) {
        CHECK(strstr(line, "hipBLASLt not found (tried libhipblaslt.so, libhipblaslt.so.1, libhipblaslt.so.0") != NULL);
        CHECK(strstr(line, "MIOpen not found (tried libMIOpen.so, libMIOpen.so.1") != NULL);
        jv_hipv_open(&v, FAKE_STREAM, NULL); /* nothing to open: still no failure */
        refused(&v, K_GEMM, &GEMM_CASES[0], "not replayed: no GEMM library (hipBLASLt: not found");
        refused(&v, K_CONV, &CONVS[0], "not replayed: no MIOpen (not found");
        refused(&v, K_BN, &BNS[0], "batch norm not on MIOpen: not found");
    }
    jv_hipv_close(&v);

    /* a library found under $ROCM_PATH/lib that lacks a function used: not used, the line names the function */
    if (fake_rocm && !lt_here) { /* (a hipBLASLt in the search path would be found first) */
        setenv("ROCM_PATH", fake_rocm, 1);
        jv_hipv_load(&v);
        jv_hipv_describe(&v, line, sizeof line);
        printf("vendor line (ROCM_PATH=%s): %s\n", fake_rocm, line);
        CHECK(!v.lt_lib.found && strstr(v.lt_lib.why, "fake_rocm/lib/libhipblaslt.so lacks hipblasLtDestroy"));
        jv_hipv_open(&v, FAKE_STREAM, NULL);
        refused(&v, K_GEMM, &GEMM_CASES[0], "lacks hipblasLtDestroy (an older API): not used");
        jv_hipv_close(&v);
        unsetenv("ROCM_PATH");
    }

    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

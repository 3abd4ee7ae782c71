/* test_cuda_unit: the CUDA backend's decisions that need no device
 * (jv_cuda_pure): which runtime errors are sticky, the workspace size for a
 * device's free memory, PyTorch's cuDNN batch-norm mode, the cuDNN
 * algorithm cache, the cuBLASLt search's median, ranking and cache, and the
 * batch-norm kernels' workspace for every tuning. Runs anywhere the backend
 * builds (label unit).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "batchnorm/batchnorm_gpu.h"
#include "jv_check.h"
#include "jv_cuda_pure.h"
#include "jv_gpu_common.h"
#include "jv_opcall.h"

static void test_sticky(void) {
    const char *name = "x";
    /* sticky: the documented "process must be relaunched" errors */
    CHECK(jv_cuda_error_sticky(700, &name) && name && !strcmp(name, "cudaErrorIllegalAddress"));
    CHECK(jv_cuda_error_sticky(719, &name) && !strcmp(name, "cudaErrorLaunchFailure"));
    CHECK(jv_cuda_error_sticky(715, NULL)); /* illegal instruction */
    CHECK(jv_cuda_error_sticky(716, NULL)); /* misaligned address */
    CHECK(jv_cuda_error_sticky(717, NULL)); /* invalid address space */
    CHECK(jv_cuda_error_sticky(718, NULL)); /* invalid PC */
    CHECK(jv_cuda_error_sticky(714, NULL)); /* hardware stack error */
    CHECK(jv_cuda_error_sticky(710, NULL)); /* device assert */
    CHECK(jv_cuda_error_sticky(214, NULL)); /* ECC uncorrectable */
    CHECK(jv_cuda_error_sticky(702, NULL)); /* launch timeout */
    /* not sticky: success, out of memory, invalid value, launch out of resources, not ready, capture errors */
    CHECK(!jv_cuda_error_sticky(0, &name) && name == NULL);
    CHECK(!jv_cuda_error_sticky(2, NULL));
    CHECK(!jv_cuda_error_sticky(1, NULL));
    CHECK(!jv_cuda_error_sticky(701, NULL));
    CHECK(!jv_cuda_error_sticky(600, NULL));
    CHECK(!jv_cuda_error_sticky(900, NULL));
    CHECK(!jv_cuda_error_sticky(999, NULL));
}

static void test_workspace(void) {
    const size_t MiB = (size_t)1 << 20;
    CHECK(jv_cuda_workspace_bytes((size_t)80 << 30) == JV_CUDA_DNN_WORKSPACE); /* an H100: the full 256 MiB */
    CHECK(jv_cuda_workspace_bytes((size_t)4 << 30) == JV_CUDA_DNN_WORKSPACE);  /* exactly 1/16 */
    CHECK(jv_cuda_workspace_bytes((size_t)2 << 30) == 128 * MiB);              /* reduced to 1/16 */
    CHECK(jv_cuda_workspace_bytes((size_t)1000 * MiB + 12345) == 62 * MiB);    /* rounded down to a MiB */
    CHECK(jv_cuda_workspace_bytes(100 * MiB) == JV_CUDA_LT_WORKSPACE);         /* never below cuBLASLt's 32 MiB */
    CHECK(jv_cuda_workspace_bytes(0) == JV_CUDA_LT_WORKSPACE);
    CHECK(JV_CUDA_LT_WORKSPACE == 32 * MiB && JV_CUDA_DNN_WORKSPACE == 256 * MiB);
}

static void test_bn_mode(void) {
    /* cudnnBatchNormMode_t: 0 PER_ACTIVATION, 1 SPATIAL, 2 SPATIAL_PERSISTENT */
    CHECK(jv_cuda_bn_mode(1, 0, 2) == 0 && jv_cuda_bn_mode(0, 1, 2) == 0);
    CHECK(jv_cuda_bn_mode(1, 1, 4) == 2); /* training channels_last */
    CHECK(jv_cuda_bn_mode(1, 1, 5) == 2); /* training channels_last_3d */
    CHECK(jv_cuda_bn_mode(1, 0, 4) == 1 && jv_cuda_bn_mode(1, 0, 3) == 1 && jv_cuda_bn_mode(1, 0, 5) == 1);
    CHECK(jv_cuda_bn_mode(0, 1, 4) == 1); /* eval: never persistent */
}

static jv_gpu_key key_of(int64_t a, int64_t b, int n) {
    jv_gpu_key k;
    memset(&k, 0, sizeof k);
    jv_gpu_key_add(&k, a);
    jv_gpu_key_add(&k, b);
    for (int i = 2; i < n; i++)
        jv_gpu_key_add(&k, i);
    return k;
}

static void test_cache(void) {
    jv_cuda_conv_cache c;
    memset(&c, 0, sizeof c);
    jv_err err;
    jv_err_clear(&err);
    jv_gpu_key k1 = key_of(1, 64, 10), k2 = key_of(1, 65, 10), k3 = key_of(1, 64, 11);
    CHECK(jv_cuda_conv_cache_find(&c, &k1) == NULL);
    jv_cuda_conv_choice v1 = {6, 1, 4096}, v2 = {1, 2, 0};
    CHECK(jv_cuda_conv_cache_put(&c, &k1, &v1, &err) == JV_OK);
    const jv_cuda_conv_choice *h = jv_cuda_conv_cache_find(&c, &k1);
    CHECK(h && h->algo == 6 && h->math == 1 && h->ws == 4096);
    CHECK(jv_cuda_conv_cache_find(&c, &k2) == NULL); /* one value differs */
    CHECK(jv_cuda_conv_cache_find(&c, &k3) == NULL); /* one more word */
    CHECK(jv_cuda_conv_cache_put(&c, &k2, &v2, &err) == JV_OK && c.n == 2);
    CHECK(jv_cuda_conv_cache_put(&c, &k1, &v2, &err) == JV_OK && c.n == 2); /* replaced, not added */
    h = jv_cuda_conv_cache_find(&c, &k1);
    CHECK(h && h->algo == 1);
    for (int i = 0; i < 100; i++) { /* growth */
        jv_gpu_key k = key_of(2, i, 5);
        jv_cuda_conv_choice v = {i, 0, (size_t)i};
        CHECK(jv_cuda_conv_cache_put(&c, &k, &v, &err) == JV_OK);
    }
    jv_gpu_key k50 = key_of(2, 50, 5);
    h = jv_cuda_conv_cache_find(&c, &k50);
    CHECK(c.n == 102 && h && h->algo == 50);
    /* an overflowed key is never stored nor found */
    jv_gpu_key big = key_of(3, 3, JV_GPU_KEY_WORDS + 1);
    CHECK(big.overflow);
    CHECK(jv_cuda_conv_cache_put(&c, &big, &v1, &err) == JV_OK && c.n == 102);
    CHECK(jv_cuda_conv_cache_find(&c, &big) == NULL);
    jv_gpu_cache_clear(&c);
    CHECK(c.n == 0 && c.keys == NULL && jv_cuda_conv_cache_find(&c, &k1) == NULL);
}

static void test_gemm_search(void) {
    /* the fastest candidate: the smallest positive time; 0 (skipped) and NaN never win; ties to the heuristic's order
     */
    double t1[] = {0.9, 0.7, 0, 0.8}, t2[] = {0, 0, 0}, t3[] = {0.5, 0.5, 0.6}, t4[] = {NAN, 0.4, -1};
    CHECK(jv_gpu_fastest(t1, 4) == 1);
    CHECK(jv_gpu_fastest(t1, 1) == 0); /* the heuristic's first alone */
    CHECK(jv_gpu_fastest(t2, 3) == -1 && jv_gpu_fastest(t2, 0) == -1);
    CHECK(jv_gpu_fastest(t3, 3) == 0);
    CHECK(jv_gpu_fastest(t4, 3) == 1);
    CHECK(JV_GPU_GEMM_CANDIDATES == 16 && JV_GPU_GEMM_WARMUP == 2 && JV_GPU_GEMM_REPS == 5);
    /* the cache of search results */
    jv_gpu_gemm_cache c;
    memset(&c, 0, sizeof c);
    jv_err err;
    jv_err_clear(&err);
    jv_gpu_key k1 = key_of(7, 16384, 22), k2 = key_of(7, 4096, 22);
    CHECK(jv_gpu_gemm_cache_find(&c, &k1) == NULL);
    jv_gpu_gemm_choice v1 = {{66, 1, 2, 3, 4, 5, 6, 7}, 1 << 20, 16, 14, 3, 0.812, 0.845};
    jv_gpu_gemm_choice v2 = {{21}, 0, 8, 8, 0, 0.5, 0.5};
    CHECK(jv_gpu_gemm_cache_put(&c, &k1, &v1, &err) == JV_OK);
    const jv_gpu_gemm_choice *h = jv_gpu_gemm_cache_find(&c, &k1);
    CHECK(h && h->algo[0] == 66 && h->algo[7] == 7 && h->ws == (1 << 20) && h->offered == 16 && h->timed == 14 &&
          h->rank == 3 && h->ms == 0.812 && h->first_ms == 0.845);
    CHECK(jv_gpu_gemm_cache_find(&c, &k2) == NULL);
    CHECK(jv_gpu_gemm_cache_put(&c, &k2, &v2, &err) == JV_OK && c.n == 2);
    CHECK(jv_gpu_gemm_cache_put(&c, &k1, &v2, &err) == JV_OK && c.n == 2); /* replaced, not added */
    h = jv_gpu_gemm_cache_find(&c, &k1);
    CHECK(h && h->algo[0] == 21 && h->rank == 0);
    for (int i = 0; i < 40; i++) { /* growth */
        jv_gpu_key k = key_of(8, i, 5);
        jv_gpu_gemm_choice v = {{(uint64_t)i}, (size_t)i, 1, 1, 0, 1, 1};
        CHECK(jv_gpu_gemm_cache_put(&c, &k, &v, &err) == JV_OK);
    }
    jv_gpu_key k30 = key_of(8, 30, 5);
    h = jv_gpu_gemm_cache_find(&c, &k30);
    CHECK(c.n == 42 && h && h->algo[0] == 30);
    jv_gpu_key big = key_of(3, 3, JV_GPU_KEY_WORDS + 1);
    CHECK(jv_gpu_gemm_cache_put(&c, &big, &v1, &err) == JV_OK && c.n == 42);
    CHECK(jv_gpu_gemm_cache_find(&c, &big) == NULL);
    jv_gpu_cache_clear(&c);
    CHECK(c.n == 0 && c.keys == NULL && jv_gpu_gemm_cache_find(&c, &k1) == NULL);
}

/* the batch-norm plan's workspace holds the partials of the wide geometry too: [64,512,28,28] bf16
 * channels_last on 132 SMs: 64 channel vectors of 8; 32 per block: 2 channel blocks x 264 groups, wide: 1 x 528;
 * partials 3 floats per (channel, group): 512 * 528 * 12 = 3244032 bytes, plus 512 * 4 floats of coefficients */
static void test_bn_workspace(void) {
    jv_opcall c;
    jv_desc d;
    jv_operands ops;
    jv_err err;
    jv_err_clear(&err);
    memset(&d, 0, sizeof d);
    const char *BF = "\"c10::BFloat16\"", *FL = "\"float\"";
    char types[256];
    snprintf(types, sizeof types, "[%s, %s, %s, %s, %s, \"Scalar\", \"Scalar\", \"Scalar\"]", BF, FL, FL, FL, FL);
    CHECK(jv_opcall_from_trace(&c, "aten::native_batch_norm",
                               "[[64, 512, 28, 28], [512], [512], [512], [512], [], [], []]", types,
                               "[[401408, 1, 14336, 512], [1], [1], [1], [1], [], [], []]",
                               "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]", &err) == JV_OK);
    CHECK(jv_desc_parse(&c, &d, &err) == JV_OK && jv_desc_operands(&d, &ops, &err) == JV_OK);
    jv_gpu_batchnorm_plan *pl = NULL;
    size_t ws = 0;
    CHECK(jv_gpu_batchnorm_plan_create(&d, &ops, 132, &pl, &ws, &err) == JV_OK);
    CHECK(ws >= (size_t)512 * 528 * 3 * 4 + 512 * 4 * 4);
    jv_gpu_batchnorm_tuning t = jv_gpu_batchnorm_tuning_default();
    CHECK(t.lean == 1 && t.wide == 0);
    t.wide = 1;
    jv_gpu_batchnorm_plan_tune(pl, &t); /* the geometry changes; the workspace it was sized with still holds it */
    jv_gpu_batchnorm_plan_tune(pl, NULL);
    jv_gpu_batchnorm_plan_free(pl);
    jv_opcall_free(&c);
}

int main(void) {
    test_sticky();
    test_workspace();
    test_bn_mode();
    test_cache();
    test_gemm_search();
    test_bn_workspace();
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

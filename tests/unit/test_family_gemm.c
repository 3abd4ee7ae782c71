/* GEMM family: descriptors and FLOPs/bytes from calls as traces record them,
 * against hand-computed values (TraceLens' where its model is right). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gemm/gemm.h"

#include "jv_check.h"

/* parses a call; returns the status and fills d and p */
static jv_status run(const char *op, const char *dims, const char *types, const char *strides, const char *conc,
                     jv_desc *d, jv_perf *p) {
    jv_opcall c;
    jv_err err;
    jv_err_clear(&err);
    jv_status s = jv_opcall_from_trace(&c, op, dims, types, strides, conc, &err);
    if (s == JV_OK) {
        memset(d, 0, sizeof *d);
        s = jv_gemm_family.parse(&c, d, &err);
        if (s == JV_OK) {
            memset(p, 0, sizeof *p);
            jv_gemm_family.model(d, p);
        }
    }
    jv_opcall_free(&c);
    return s;
}

int main(void) {
    jv_desc d;
    jv_perf p;
    /* addmm from amd_mi300x_resnet18_train GEMM.csv: M=512 N=1000 K=512 bf16 with a [1000] bias.
     * flops = 2*512*1000*512 + 512*1000 = 524800000 (TraceLens 0.5248 GFLOPS)
     * bytes = (512*512 + 512*1000 + 512*1000 + 1000)*2 = 2574288 (TraceLens 2.4550323486328125 MB) */
    CHECK(run("aten::addmm", "[[1000], [512, 512], [512, 1000], [], []]",
              "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
              "[[1], [512, 1], [1, 512], [], []]", "[\"\", \"\", \"\", \"1\", \"1\"]", &d, &p) == JV_OK);
    CHECK(p.flops == 524800000.0 && p.bytes == 2574288.0 && p.matrix && p.dtype == JV_DT_BF16);
    const jv_gemm_desc *g = jv_gemm_of(&d);
    CHECK(g->m == 512 && g->n == 1000 && g->k == 512 && g->batch == 1 && g->has_bias);
    CHECK(!g->trans_a && g->trans_b); /* B strides (1, 512): a transposed view of W */
    /* mm with a transposed A: strides (1, 1000) */
    CHECK(run("aten::mm", "[[1000, 512], [512, 512]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
              "[[1, 1000], [512, 1]]", "[\"\", \"\"]", &d, &p) == JV_OK);
    CHECK(jv_gemm_of(&d)->trans_a && !jv_gemm_of(&d)->trans_b);
    CHECK(p.flops == 2.0 * 1000 * 512 * 512 && p.bytes == (1000.0 * 512 + 512 * 512 + 1000 * 512) * 2);
    /* bmm fp32: B=96 M=N=3137 K=64 -> flops 2*96*3137*3137*64, bytes 96*(3137*64*2 + 3137*3137)*4 */
    CHECK(run("aten::bmm", "[[96, 3137, 64], [96, 64, 3137]]", "[\"float\", \"float\"]", NULL, NULL, &d, &p) == JV_OK);
    CHECK(p.flops == 2.0 * 96 * 3137 * 3137 * 64 && p.bytes == 96.0 * (3137 * 64 * 2 + 3137.0 * 3137) * 4);
    /* baddbmm with a full [B,M,N] input: its bytes are counted in full (TraceLens counts B*N) */
    CHECK(run("aten::baddbmm", "[[8, 128, 256], [8, 128, 64], [8, 64, 256], [], []]",
              "[\"c10::Half\", \"c10::Half\", \"c10::Half\", \"Scalar\", \"Scalar\"]", NULL,
              "[\"\", \"\", \"\", \"0\", \"0.125\"]", &d, &p) == JV_OK);
    CHECK(p.flops == 8.0 * (2.0 * 128 * 256 * 64 + 128 * 256));
    CHECK(p.bytes == (8.0 * 128 * 64 + 8.0 * 64 * 256 + 8.0 * 128 * 256 + 8.0 * 128 * 256) * 2);
    CHECK(jv_gemm_of(&d)->beta == 0 && jv_gemm_of(&d)->alpha == 0.125);
    /* linear x[4,197,768] W[3072,768] b[3072]: M = 4*197 */
    CHECK(run("aten::linear", "[[4, 197, 768], [3072, 768], [3072]]",
              "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]", NULL, NULL, &d, &p) == JV_OK);
    CHECK(jv_gemm_of(&d)->m == 788 && jv_gemm_of(&d)->n == 3072 && jv_gemm_of(&d)->k == 768);
    CHECK(p.flops == 2.0 * 788 * 3072 * 768 + 788.0 * 3072);
    CHECK(p.bytes == (788.0 * 768 + 3072.0 * 768 + 788.0 * 3072 + 3072) * 2);
    CHECK(jv_gemm_family.match("aten::linear") == JV_MATCH_WEAK && jv_gemm_family.match("aten::mm") == JV_MATCH_STRONG);
    /* matmul with broadcast batch: [2,1,64,32] x [3,32,16] -> batch 2*3 */
    CHECK(run("aten::matmul", "[[2, 1, 64, 32], [3, 32, 16]]", "[\"float\", \"float\"]", NULL, NULL, &d, &p) == JV_OK);
    CHECK(jv_gemm_of(&d)->batch == 6 && jv_gemm_of(&d)->m == 64 && p.flops == 6.0 * 2 * 64 * 16 * 32);
    /* _scaled_mm fp8 -> bf16 output (ScalarType 15), per-tensor (0-d) fp32 scales: 4 bytes each */
    CHECK(run("aten::_scaled_mm", "[[256, 512], [512, 128], [], [], [], [], [], []]",
              "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\", \"\", \"\", \"ScalarType\", "
              "\"Bool\"]",
              NULL, "[\"\", \"\", \"\", \"\", \"\", \"\", \"15\", \"False\"]", &d, &p) == JV_OK);
    CHECK(jv_gemm_of(&d)->out_dtype == JV_DT_BF16 && p.bytes == 256.0 * 512 + 512.0 * 128 + 256.0 * 128 * 2 + 8);
    /* vLLM's _C::cutlass_scaled_mm(out, a, b, a_scales, b_scales, bias): fp8 [32,4096] x [4096,1024]
     * (column-major b), per-token and per-channel fp32 scales, bf16 out [32,1024] and a bf16 bias [1024]:
     * flops = 2*32*1024*4096 + 32*1024 = 268468224;
     * bytes = 32*4096*1 + 4096*1024*1 + 32*1024*2 + 1024*2 + (32 + 1024)*4 (scales)
     *       = 131072 + 4194304 + 65536 + 2048 + 4224 = 4397184 */
    CHECK(run("_C::cutlass_scaled_mm", "[[32, 1024], [32, 4096], [4096, 1024], [32, 1], [1, 1024], [1024]]",
              "[\"c10::BFloat16\", \"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\", "
              "\"c10::BFloat16\"]",
              "[[1024, 1], [4096, 1], [1, 4096], [1, 1], [1024, 1], [1]]", NULL, &d, &p) == JV_OK);
    g = jv_gemm_of(&d);
    CHECK(g->m == 32 && g->n == 1024 && g->k == 4096 && g->has_bias && g->trans_b && g->out_dtype == JV_DT_BF16);
    CHECK(p.flops == 268468224.0 && p.bytes == 4397184.0 && p.dtype == JV_DT_F8E4M3 && p.matrix);
    /* int8 without a bias, fp16 out: flops = 2*16*256*512 = 4194304;
     * bytes = 16*512 + 512*256 + 16*256*2 + (16 + 256)*4 (scales) */
    CHECK(run("_C::cutlass_scaled_mm", "[[16, 256], [16, 512], [512, 256], [16, 1], [1, 256], []]",
              "[\"c10::Half\", \"signed char\", \"signed char\", \"float\", \"float\", \"\"]", NULL, NULL, &d,
              &p) == JV_OK);
    CHECK(!jv_gemm_of(&d)->has_bias && p.flops == 4194304.0 && p.bytes == 8192.0 + 131072.0 + 8192.0 + 1088.0);
    {
        jv_operands ops;
        jv_err e;
        jv_err_clear(&e);
        CHECK(jv_gemm_operands(&d, &ops, &e) == JV_ERR_FORMAT && strstr(e.msg, "_C::cutlass_scaled_mm: a scaled"));
    }
    /* AITER's aiter::gemm_a8w8(XQ [M,K], WQ [N,K], x_scale [M,1], w_scale [1,N], bias, dtype, splitK): int8
     * [64,2048] x [1024,2048]^T, bf16 out (ScalarType 15): flops = 2*64*1024*2048 = 268435456;
     * bytes = 64*2048 + 1024*2048 + 64*1024*2 + (64 + 1024)*4 = 131072 + 2097152 + 131072 + 4352 = 2363648 */
    CHECK(run("aiter::gemm_a8w8", "[[64, 2048], [1024, 2048], [64, 1], [1, 1024], [], [], []]",
              "[\"signed char\", \"signed char\", \"float\", \"float\", \"\", \"ScalarType\", \"Scalar\"]",
              "[[2048, 1], [2048, 1], [1, 1], [1024, 1], [], [], []]", "[\"\", \"\", \"\", \"\", \"\", \"15\", \"0\"]",
              &d, &p) == JV_OK);
    g = jv_gemm_of(&d);
    CHECK(g->m == 64 && g->n == 1024 && g->k == 2048 && g->trans_b && !g->has_bias && g->out_dtype == JV_DT_BF16);
    CHECK(p.flops == 268435456.0 && p.bytes == 2363648.0 && p.dtype == JV_DT_I8);
    /* its block-scale variant, the CK entry point with the output as argument 4: fp8 [32,7168] x [1536,7168]^T,
     * x_scale [32, 56] (blocks of 128 along K), w_scale [12, 56] (128 x 128 blocks), fp16 out [32,1536]:
     * flops = 2*32*1536*7168 = 704643072;
     * bytes = 32*7168 + 1536*7168 + 32*1536*2 + (32*56 + 12*56)*4 = 229376 + 11010048 + 98304 + 9856 = 11347584 */
    CHECK(run("aiter::gemm_a8w8_blockscale_ck", "[[32, 7168], [1536, 7168], [32, 56], [12, 56], [32, 1536]]",
              "[\"c10::Float8_e4m3fnuz\", \"c10::Float8_e4m3fnuz\", \"float\", \"float\", \"c10::Half\"]", NULL, NULL,
              &d, &p) == JV_OK);
    CHECK(jv_gemm_of(&d)->n == 1536 && jv_gemm_of(&d)->out_dtype == JV_DT_F16 && !jv_gemm_of(&d)->has_bias);
    CHECK(p.flops == 704643072.0 && p.bytes == 11347584.0);
    /* vLLM's wrapper rocm_aiter_gemm_a8w8(A, B, As, Bs, bias [N], output_dtype): the bias counted (flops + M*N,
     * bytes + N*2), per-tensor scales [1]: flops = 2*8*256*512 + 8*256 = 2099200;
     * bytes = 8*512 + 256*512 + 8*256*2 + 256*2 + 4 + 4 = 4096 + 131072 + 4096 + 512 + 8 = 139784 */
    CHECK(run("vllm::rocm_aiter_gemm_a8w8", "[[8, 512], [256, 512], [1], [1], [256], []]",
              "[\"c10::Float8_e4m3fnuz\", \"c10::Float8_e4m3fnuz\", \"float\", \"float\", \"c10::BFloat16\", "
              "\"ScalarType\"]",
              NULL, "[\"\", \"\", \"\", \"\", \"\", \"15\"]", &d, &p) == JV_OK);
    CHECK(jv_gemm_of(&d)->has_bias && jv_gemm_of(&d)->out_dtype == JV_DT_BF16);
    CHECK(p.flops == 2099200.0 && p.bytes == 139784.0);
    /* a8w8 operands that do not multiply ([M,K] x [N,K'] with K' != K): refused */
    CHECK(run("aiter::gemm_a8w8", "[[64, 2048], [1024, 1024], [64, 1], [1, 1024]]",
              "[\"signed char\", \"signed char\", \"float\", \"float\"]", NULL, NULL, &d, &p) == JV_ERR_FORMAT);
    /* operands that do not multiply */
    CHECK(run("_C::cutlass_scaled_mm", "[[16, 256], [16, 512], [256, 256], [16, 1], [1, 256], []]",
              "[\"c10::Half\", \"signed char\", \"signed char\", \"float\", \"float\", \"\"]", NULL, NULL, &d,
              &p) == JV_ERR_FORMAT);
    /* unknown dtype: bytes NaN, flops known */
    CHECK(run("aten::mm", "[[4, 4], [4, 4]]", "[\"c10::Weird\", \"c10::Weird\"]", NULL, NULL, &d, &p) == JV_OK);
    CHECK(isnan(p.bytes) && p.flops == 128);
    /* "Concrete Inputs": null (some exporters) reads as absent */
    CHECK(run("aten::mm", "[[4, 4], [4, 4]]", "[\"float\", \"float\"]", "null", "null", &d, &p) == JV_OK);
    CHECK(p.flops == 128 && p.bytes == 192);
    /* hostile */
    CHECK(run("aten::mm", "[[4, 5], [4, 4]]", "[\"float\", \"float\"]", NULL, NULL, &d, &p) == JV_ERR_FORMAT);
    CHECK(run("aten::mm", "[[4, 4]]", "[\"float\"]", NULL, NULL, &d, &p) == JV_ERR_FORMAT);
    CHECK(run("aten::bmm", "[[2, -4, 4], [2, 4, 4]]", "[\"float\", \"float\"]", NULL, NULL, &d, &p) == JV_ERR_FORMAT);
    CHECK(run("aten::mm", "[[4, 4], [4, 4]", "[\"float\", \"float\"]", NULL, NULL, &d, &p) == JV_ERR_FORMAT);
    CHECK(run("aten::matmul", "[[], []]", "[\"float\", \"float\"]", NULL, NULL, &d, &p) == JV_ERR_FORMAT);
    /* params */
    jv_params ps = {0};
    CHECK(run("aten::mm", "[[8, 4], [4, 2]]", "[\"float\", \"float\"]", "[[4, 1], [2, 1]]", NULL, &d, &p) == JV_OK);
    jv_gemm_family.params(&d, &ps);
    CHECK(ps.n == 9 && !strcmp(ps.p[0].name, "M") && !strcmp(ps.p[4].text, "(4, 1)") &&
          !strcmp(ps.p[6].text, "('float', 'float')") && !strcmp(ps.p[8].text, "(False, False)"));
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}

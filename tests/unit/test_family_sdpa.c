/* test_family_sdpa: the attention family's parsing, params and FLOPs/bytes
 * model against hand-computed values and TraceLens' SDPA_fwd rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sdpa/sdpa.h"

#define JV_TEST_FAMILY jv_sdpa_family
#include "jv_test_family.h"

#define BF3 "\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\""

static void test_match(void) {
    CHECK(jv_sdpa_family.match("aten::_scaled_dot_product_flash_attention") == JV_MATCH_STRONG);
    CHECK(jv_sdpa_family.match("aten::_scaled_dot_product_efficient_attention") == JV_MATCH_STRONG);
    CHECK(jv_sdpa_family.match("aten::_scaled_dot_product_cudnn_attention") == JV_MATCH_STRONG);
    CHECK(jv_sdpa_family.match("aten::scaled_dot_product_attention") == JV_MATCH_WEAK);
    CHECK(jv_sdpa_family.match("aten::_scaled_dot_product_flash_attention_backward") == JV_MATCH_STRONG);
    CHECK(jv_sdpa_family.match("aten::_scaled_dot_product_efficient_attention_backward") == JV_MATCH_STRONG);
    CHECK(jv_sdpa_family.match("aten::_scaled_dot_product_cudnn_attention_backward") == JV_MATCH_STRONG);
    CHECK(jv_sdpa_family.match("flash_attn::_flash_attn_forward") == JV_MATCH_STRONG);
    CHECK(jv_sdpa_family.match("FlashAttnFunc") == JV_MATCH_STRONG);
    CHECK(jv_sdpa_family.match("flash_attn::_flash_attn_backward") == JV_MATCH_STRONG);
    CHECK(jv_sdpa_family.match("aten::_flash_attention_forward") == JV_MATCH_NONE);
    CHECK(jv_sdpa_family.match("aten::mm") == JV_MATCH_NONE);
    CHECK(!strcmp(jv_sdpa_family.sheet, "SDPA") && jv_sdpa_family.split == 1);
}

/* TraceLens rows (nv_h100_bert_small_infer, nv_h100_qwen15_05b_infer,
 * amd_mi300x_sdpa_rocprofsdk SDPA_fwd.csv): GFLOPS_first*1e9 and
 * Data Moved (MB)_first*2^20 */
static void test_tracelens_rows(void) {
    jv_desc d;
    /* bert: B=1 H=8 N=141 d=64 bf16, not causal.
     * flops = 2*1*8*141*141*(64+64) = 40716288 (GFLOPS 0.040716288)
     * bytes = 4 * (1*8*141*64) * 2 = 577536 (0.55078125 MB) */
    CHECK(parse("aten::_scaled_dot_product_flash_attention",
                "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [], [], [], []]",
                "[" BF3 ", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[72192, 64, 512, 1], [72192, 64, 512, 1], [72192, 64, 512, 1], [], [], [], []]",
                "[\"\", \"\", \"\", \"0.\", \"False\", \"False\", \"0.125\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 0.040716288 * 1e9);
    CHECK_NEAR(p.bytes, 0.55078125 * 1048576);
    CHECK(p.matrix == 1 && p.dtype == JV_DT_BF16 && d.bwd == 0);
    CHECK(!strcmp(param(&d, "B"), "1"));
    CHECK(!strcmp(param(&d, "N_Q"), "141"));
    CHECK(!strcmp(param(&d, "H_Q"), "8"));
    CHECK(!strcmp(param(&d, "N_KV"), "141"));
    CHECK(!strcmp(param(&d, "H_KV"), "8"));
    CHECK(!strcmp(param(&d, "d_h_qk"), "64"));
    CHECK(!strcmp(param(&d, "d_h_v"), "64"));
    CHECK(!strcmp(param(&d, "dropout"), "0.0"));
    CHECK(!strcmp(param(&d, "causal"), "False"));
    CHECK(!strcmp(param(&d, "flash_impl"), "True"));
    CHECK(!strcmp(param(&d, "dtype_A_B"), "('c10::BFloat16', 'c10::BFloat16')"));
    /* the param names, in TraceLens' order */
    jv_params ps = {0};
    jv_sdpa_family.params(&d, &ps);
    static const char *const NAMES[] = {"B",     "N_Q",     "H_Q",    "N_KV",       "H_KV",     "d_h_qk",
                                        "d_h_v", "dropout", "causal", "flash_impl", "dtype_A_B"};
    CHECK(ps.n == 11);
    for (int i = 0; i < ps.n && i < 11; i++)
        CHECK(!strcmp(ps.p[i].name, NAMES[i]));

    /* qwen: B=16 H=16 N=559 d=64 bf16, causal (N_Q == N_KV: halved).
     * flops = 2*16*16*559*559*128 / 2 = 10239377408 (GFLOPS 10.239377408)
     * bytes = 4 * (16*16*559*64) * 2 = 73269248 (69.875 MB) */
    CHECK(parse("aten::_scaled_dot_product_flash_attention",
                "[[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64], [], [], [], []]",
                "[" BF3 ", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[572416, 35776, 64, 1], [572416, 35776, 64, 1], [572416, 35776, 64, 1], [], [], [], []]",
                "[\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"0.125\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 10.239377408 * 1e9);
    CHECK_NEAR(p.bytes, 69.875 * 1048576);
    CHECK(!strcmp(param(&d, "causal"), "True"));

    /* mi300x: B=1 H=32 N=32768 d=128 bf16.
     * flops = 2*32*32768^2*256 = 17592186044416 (GFLOPS 17592.186044416)
     * bytes = 4 * (32*32768*128) * 2 = 1073741824 (1024.0 MB) */
    CHECK(parse("aten::_scaled_dot_product_flash_attention",
                "[[1, 32, 32768, 128], [1, 32, 32768, 128], [1, 32, 32768, 128], [], [], [], []]",
                "[" BF3 ", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                "[[134217728, 4194304, 128, 1], [134217728, 4194304, 128, 1], [134217728, 4194304, 128, 1], [], [], "
                "[], []]",
                "[\"\", \"\", \"\", \"0.\", \"False\", \"False\", \"0.088388347648318433\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 17592.186044416 * 1e9);
    CHECK_NEAR(p.bytes, 1024.0 * 1048576);

    /* the weak parent of the same call (aten::scaled_dot_product_attention,
     * q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa): same numbers */
    CHECK(parse("aten::scaled_dot_product_attention",
                "[[1, 32, 32768, 128], [1, 32, 32768, 128], [1, 32, 32768, 128], [], [], [], [], []]",
                "[" BF3 ", \"\", \"Scalar\", \"Scalar\", \"\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"\", \"0.\", \"False\", \"\", \"False\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 17592.186044416 * 1e9);
    CHECK_NEAR(p.bytes, 1024.0 * 1048576);
    CHECK(!strcmp(param(&d, "flash_impl"), "False"));
}

/* bytes use the real dtype size (TraceLens always uses 2) */
static void test_real_dtype(void) {
    jv_desc d;
    /* bert shape in fp32: bytes = 4 * 72192 * 4 = 1155072 (TraceLens: 577536) */
    CHECK(parse("aten::_scaled_dot_product_efficient_attention",
                "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [], [], [], [], []]",
                "[\"float\", \"float\", \"float\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]", NULL,
                "[\"\", \"\", \"\", \"\", \"False\", \"0.\", \"False\", \"\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK_NEAR(p.bytes, 1155072.0);
    CHECK_NEAR(p.flops, 40716288.0);
    CHECK(p.dtype == JV_DT_F32);
    CHECK(!strcmp(param(&d, "flash_impl"), "False"));
    CHECK(!strcmp(param(&d, "dtype_A_B"), "('float', 'float')"));
    /* fp16 equals TraceLens' 2 bytes */
    CHECK(parse("aten::_scaled_dot_product_cudnn_attention",
                "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [], [], [], [], [], []]",
                "[\"c10::Half\", \"c10::Half\", \"c10::Half\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
                "\"Scalar\"]",
                NULL, "[\"\", \"\", \"\", \"\", \"False\", \"0.1\", \"False\", \"False\", \"0.125\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.bytes, 577536.0);
    CHECK(!strcmp(param(&d, "dropout"), "0.1"));
    /* an unknown dtype: bytes NaN, flops still known */
    CHECK(parse("aten::_scaled_dot_product_flash_attention", "[[1, 1, 4, 8], [1, 1, 4, 8], [1, 1, 4, 8]]",
                "[\"c10::Weird\", \"c10::Weird\", \"c10::Weird\"]", NULL, NULL, &d) == JV_OK);
    p = model(&d);
    CHECK(isnan(p.bytes));
    CHECK_NEAR(p.flops, 2.0 * 4 * 4 * 16); /* 2*B*H*N_Q*N_KV*(d_qk+d_v) = 512 */
    CHECK(!strcmp(param(&d, "dtype_A_B"), "(None, None)"));
}

/* an attn_bias is read once per distinct element: bias [1, 8, 141, 141] bf16
 * broadcast over heads (stride 0) holds 141*141 = 19881 elements:
 * bytes = 577536 + 19881*2 = 617298 */
static void test_bias(void) {
    jv_desc d;
    CHECK(parse("aten::_scaled_dot_product_efficient_attention",
                "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 141], [], [], [], []]",
                "[" BF3 ", \"c10::BFloat16\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]",
                "[[72192, 64, 512, 1], [72192, 64, 512, 1], [72192, 64, 512, 1], [19881, 0, 141, 1], [], [], [], []]",
                "[\"\", \"\", \"\", \"\", \"False\", \"0.\", \"False\", \"\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK_NEAR(p.bytes, 617298.0);
    CHECK_NEAR(p.flops, 40716288.0);
}

/* causal with N_Q != N_KV: exact counts (TraceLens drops the row) */
static void test_causal_counts(void) {
    /* top-left (PyTorch is_causal), N_Q=4, N_KV=6: sum_i min(i+1, 6) = 1+2+3+4 = 10 */
    CHECK(jv_sdpa_pairs(4, 6, 1, JV_SDPA_TOP_LEFT, -1, -1) == 10);
    /* bottom-right (flash_attn): sum_i clamp(i+1+6-4, 0, 6) = 3+4+5+6 = 18 */
    CHECK(jv_sdpa_pairs(4, 6, 1, JV_SDPA_BOTTOM_RIGHT, -1, -1) == 18);
    /* N_Q=6, N_KV=4: top-left 1+2+3+4+4+4 = 18; bottom-right 0+0+1+2+3+4 = 10 */
    CHECK(jv_sdpa_pairs(6, 4, 1, JV_SDPA_TOP_LEFT, -1, -1) == 18);
    CHECK(jv_sdpa_pairs(6, 4, 1, JV_SDPA_BOTTOM_RIGHT, -1, -1) == 10);
    /* not causal: all pairs */
    CHECK(jv_sdpa_pairs(6, 4, 0, JV_SDPA_TOP_LEFT, -1, -1) == 24);
    /* sliding window, causal, N=5, left 1: rows see [i-1, i]: 1+2+2+2+2 = 9 */
    CHECK(jv_sdpa_pairs(5, 5, 1, JV_SDPA_BOTTOM_RIGHT, 1, -1) == 9);
    /* brute force over small sizes and windows */
    int bad = 0;
    for (int L = 0; L <= 9; L++)
        for (int S = 0; S <= 9; S++)
            for (int causal = 0; causal <= 1; causal++)
                for (int al = 0; al <= 1; al++)
                    for (int wl = -1; wl <= 4; wl++)
                        for (int wr = -1; wr <= 4; wr++) {
                            long long want = 0;
                            int off = al ? S - L : 0;
                            for (int i = 0; i < L; i++)
                                for (int j = 0; j < S; j++) {
                                    int hi_ok = causal ? j <= i + off : (wr < 0 || j <= i + off + wr);
                                    int lo_ok = wl < 0 || j >= i + off - wl;
                                    want += hi_ok && lo_ok;
                                }
                            double got =
                                jv_sdpa_pairs(L, S, causal, al ? JV_SDPA_BOTTOM_RIGHT : JV_SDPA_TOP_LEFT, wl, wr);
                            if (got != (double)want) {
                                if (bad < 5)
                                    printf("  pairs(%d,%d,c%d,a%d,%d,%d) = %g want %lld\n", L, S, causal, al, wl, wr,
                                           got, want);
                                bad++;
                            }
                        }
    CHECK(bad == 0);

    jv_desc d;
    /* aten flash, B=1 H=2 N_Q=4 N_KV=6 d=8 causal: flops = 2*1*2*10*(8+8) = 640 */
    CHECK(parse("aten::_scaled_dot_product_flash_attention",
                "[[1, 2, 4, 8], [1, 2, 6, 8], [1, 2, 6, 8], [], [], [], []]",
                "[" BF3 ", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"\"]", &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 640.0);
    /* bytes = (|q| 64 + |k| 96 + |v| 96 + |o| 64) * 2 = 640 */
    CHECK_NEAR(p.bytes, 640.0);
    /* flash_attn forward (BNHD, bottom-right): q [1, 4, 2, 8], k/v [1, 6, 2, 8]:
     * flops = 2*1*2*18*16 = 1152 */
    CHECK(parse("flash_attn::_flash_attn_forward",
                "[[1, 4, 2, 8], [1, 6, 2, 8], [1, 6, 2, 8], [], [], [], [], [], [], [], []]",
                "[" BF3 ", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"\", \"Scalar\"]",
                NULL, "[\"\", \"\", \"\", \"0.0\", \"0.35\", \"True\", \"-1\", \"-1\", \"0.0\", \"\", \"False\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 1152.0);
    CHECK_NEAR(p.bytes, 640.0);
    CHECK(!strcmp(param(&d, "N_Q"), "4") && !strcmp(param(&d, "N_KV"), "6") && !strcmp(param(&d, "H_Q"), "2"));
    /* sliding window left 1 with N_Q == N_KV = 5, causal: pairs 9, not N^2/2:
     * B=1 H=1 d=4: flops = 2*9*8 = 144 */
    CHECK(parse("flash_attn::_flash_attn_forward", "[[1, 5, 1, 4], [1, 5, 1, 4], [1, 5, 1, 4], [], [], [], [], []]",
                "[" BF3 ", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"0.0\", \"0.5\", \"True\", \"1\", \"0\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 144.0);
    /* FlashAttnFunc with a (left, right) list, not causal, window (1, 1) on N=5:
     * rows see [i-1, i+1]: 2+3+3+3+2 = 13 pairs; flops = 2*13*8 = 208 */
    CHECK(parse("FlashAttnFunc", "[[1, 5, 1, 4], [1, 5, 1, 4], [1, 5, 1, 4], [], [], [], []]",
                "[" BF3 ", \"Scalar\", \"Scalar\", \"Scalar\", \"ScalarList\"]", NULL,
                "[\"\", \"\", \"\", \"0.0\", \"0.5\", \"False\", \"[1, 1]\"]", &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 208.0);
}

/* backward ops (TraceLens has no model for the aten ones) */
static void test_backward(void) {
    jv_desc d;
    /* aten flash backward, bert shape (B=1 H=8 N=141 d=64 bf16), not causal, flash_impl:
     * flops = 2*8*141*141*((2+1)*64 + 2*64) = 2*8*19881*320 = 101790720
     *       (= recompute + dV + dP + dQ + dK, 5 * 20358144)
     * bytes = (q + k + v + o + dO) read + (dq + dk + dv) written = 8 * 72192 * 2 = 1155072 */
    CHECK(parse("aten::_scaled_dot_product_flash_attention_backward",
                "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141], "
                "[], [], [], [], [], [], [], [], []]",
                "[" BF3 ", \"c10::BFloat16\", \"c10::BFloat16\", \"float\", \"\", \"\", \"Scalar\", \"Scalar\", "
                "\"Scalar\", \"Scalar\", \"long int\", \"long int\", \"Scalar\"]",
                NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"141\", \"141\", \"0.\", \"False\", \"\", \"\", "
                "\"0.125\"]",
                &d) == JV_OK);
    CHECK(d.bwd == 1);
    jv_perf p = model(&d);
    CHECK_NEAR(p.flops, 101790720.0);
    CHECK_NEAR(p.bytes, 1155072.0);
    CHECK(!strcmp(param(&d, "flash_impl"), "True"));
    /* efficient backward, causal, no recompute (flash_impl False), N=141:
     * pairs = 141*141/2 = 9940.5; flops = 2*8*9940.5*(2*64 + 2*64) = 40716288 */
    CHECK(parse("aten::_scaled_dot_product_efficient_attention_backward",
                "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [], [1, 8, 141, 64], "
                "[1, 8, 160], [], [], [], [], [], []]",
                "[" BF3 ", \"c10::BFloat16\", \"\", \"c10::BFloat16\", \"float\", \"long int\", \"long int\", "
                "\"Scalar\", \"ScalarList\", \"Scalar\", \"Scalar\"]",
                NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.\", \"[True, True, True, False]\", "
                "\"True\", \"0.125\"]",
                &d) == JV_OK);
    CHECK(d.bwd == 1);
    p = model(&d);
    CHECK_NEAR(p.flops, 40716288.0);
    CHECK_NEAR(p.bytes, 1155072.0);
    CHECK(!strcmp(param(&d, "causal"), "True") && !strcmp(param(&d, "flash_impl"), "False"));
    /* cudnn backward: grad_out, q, k, v, out, logsumexp, philox_seed, philox_offset, attn_bias, cum_seq_q,
     * cum_seq_k, max_q, max_k, dropout_p, is_causal, scale; not causal: flops = 2*8*19881*256 = 81432576 */
    CHECK(parse("aten::_scaled_dot_product_cudnn_attention_backward",
                "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141], "
                "[], [], [], [], [], [], [], [], [], []]",
                "[" BF3 ", \"c10::BFloat16\", \"c10::BFloat16\", \"float\", \"long int\", \"long int\", \"\", \"\", "
                "\"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"141\", \"141\", \"0.\", "
                "\"False\", \"0.125\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 81432576.0);
    CHECK_NEAR(p.bytes, 1155072.0);
    /* flash_attn backward (BNHD) with GQA: q [2, 16, 8, 32], k/v [2, 16, 2, 32], causal (N_Q == N_KV: halved):
     * pairs = 16*16/2 = 128
     * flops = 2*2*8*128*(3*32 + 2*32) + 2*2*16*(32+32)*(8/2 - 1) = 655360 + 12288 = 667648
     * bytes: |q| = |o| = 8192, |k| = |v| = 2048;
     *        read q+k+v+o+dO = 28672, written dq+dk+dv = 12288; (28672 + 12288)*2 = 81920 */
    CHECK(parse("flash_attn::_flash_attn_backward",
                "[[2, 16, 8, 32], [2, 16, 8, 32], [2, 16, 2, 32], [2, 16, 2, 32], [2, 16, 8, 32], [2, 8, 16], "
                "[2, 16, 8, 32], [2, 16, 2, 32], [2, 16, 2, 32], [], [], [], [], [], [], [], [], [2]]",
                "[" BF3 ", \"c10::BFloat16\", \"c10::BFloat16\", \"float\", " BF3 ", \"Scalar\", \"Scalar\", "
                "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"\", \"Scalar\", \"long int\"]",
                NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.0\", \"0.17677669529663687\", \"True\", "
                "\"-1\", \"-1\", \"0.0\", \"\", \"False\", \"\"]",
                &d) == JV_OK);
    CHECK(d.bwd == 1);
    p = model(&d);
    CHECK_NEAR(p.flops, 667648.0);
    CHECK_NEAR(p.bytes, 81920.0);
    CHECK(!strcmp(param(&d, "H_Q"), "8") && !strcmp(param(&d, "H_KV"), "2") && !strcmp(param(&d, "N_Q"), "16"));
    /* the same call with causal False at index 11 (TraceLens reads C[10], the
     * softmax scale, and calls it causal): pairs = 256,
     * flops = 2*2*8*256*160 + 12288 = 1310720 + 12288 = 1323008 */
    CHECK(parse("flash_attn::_flash_attn_backward",
                "[[2, 16, 8, 32], [2, 16, 8, 32], [2, 16, 2, 32], [2, 16, 2, 32], [2, 16, 8, 32], [2, 8, 16], "
                "[2, 16, 8, 32], [2, 16, 2, 32], [2, 16, 2, 32], [], [], [], [], [], [], [], [], [2]]",
                "[" BF3 ", \"c10::BFloat16\", \"c10::BFloat16\", \"float\", " BF3 ", \"Scalar\", \"Scalar\", "
                "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"\", \"Scalar\", \"long int\"]",
                NULL,
                "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.0\", \"0.17677669529663687\", \"False\", "
                "\"-1\", \"-1\", \"0.0\", \"\", \"False\", \"\"]",
                &d) == JV_OK);
    p = model(&d);
    CHECK_NEAR(p.flops, 1323008.0);
    CHECK(!strcmp(param(&d, "causal"), "False"));
}

static void test_hostile(void) {
    jv_desc d;
    const char *fl = "aten::_scaled_dot_product_flash_attention";
    /* no args at all, no shapes */
    CHECK(parse(fl, NULL, NULL, NULL, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse(fl, "[]", "[]", "[]", "[]", &d) == JV_ERR_FORMAT);
    /* only q */
    CHECK(parse(fl, "[[1, 8, 141, 64]]", "[\"c10::BFloat16\"]", NULL, NULL, &d) == JV_ERR_FORMAT);
    /* a negative dim */
    CHECK(parse(fl, "[[1, 8, -141, 64], [1, 8, 141, 64], [1, 8, 141, 64]]", "[" BF3 "]", NULL, NULL, &d) ==
          JV_ERR_FORMAT);
    /* batch mismatch, key/value mismatch, head size mismatch */
    CHECK(parse(fl, "[[2, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64]]", "[" BF3 "]", NULL, NULL, &d) ==
          JV_ERR_FORMAT);
    CHECK(parse(fl, "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 140, 64]]", "[" BF3 "]", NULL, NULL, &d) ==
          JV_ERR_FORMAT);
    CHECK(parse(fl, "[[1, 8, 141, 64], [1, 8, 141, 32], [1, 8, 141, 64]]", "[" BF3 "]", NULL, NULL, &d) ==
          JV_ERR_FORMAT);
    /* query heads not a multiple of key heads; zero key heads */
    CHECK(parse(fl, "[[1, 8, 141, 64], [1, 3, 141, 64], [1, 3, 141, 64]]", "[" BF3 "]", NULL, NULL, &d) ==
          JV_ERR_FORMAT);
    CHECK(parse(fl, "[[1, 8, 141, 64], [1, 0, 141, 64], [1, 0, 141, 64]]", "[" BF3 "]", NULL, NULL, &d) ==
          JV_ERR_FORMAT);
    /* 1-d tensors; an absurd size */
    CHECK(parse(fl, "[[64], [64], [64]]", "[" BF3 "]", NULL, NULL, &d) == JV_ERR_FORMAT);
    CHECK(parse(fl, "[[1, 8, 1000000000000000, 64], [1, 8, 141, 64], [1, 8, 141, 64]]", "[" BF3 "]", NULL, NULL, &d) ==
          JV_ERR_FORMAT);
    /* BNHD ops need 4-d tensors */
    CHECK(parse("flash_attn::_flash_attn_forward", "[[141, 8, 64], [141, 8, 64], [141, 8, 64]]", "[" BF3 "]", NULL,
                NULL, &d) == JV_ERR_FORMAT);
    /* bad is_causal / dropout text */
    CHECK(parse(fl, "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [], [], [], []]",
                "[" BF3 ", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"0.\", \"maybe\", \"False\", \"0.125\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse(fl, "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [], [], [], []]",
                "[" BF3 ", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"lots\", \"False\", \"False\", \"0.125\"]", &d) == JV_ERR_FORMAT);
    /* a backward op without grad_out */
    CHECK(parse("aten::_scaled_dot_product_flash_attention_backward",
                "[[], [1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64]]", "[\"\", " BF3 "]", NULL, NULL,
                &d) == JV_ERR_FORMAT);
    /* q given as a value, a tensor list in place of q */
    CHECK(parse(fl, "[[], [1, 8, 141, 64], [1, 8, 141, 64]]", "[\"Scalar\", \"c10::BFloat16\", \"c10::BFloat16\"]",
                NULL, "[\"3\", \"\", \"\"]", &d) == JV_ERR_FORMAT);
    CHECK(parse(fl, "[[[1, 2]], [1, 8, 141, 64], [1, 8, 141, 64]]",
                "[\"TensorList\", \"c10::BFloat16\", "
                "\"c10::BFloat16\"]",
                NULL, NULL, &d) == JV_ERR_FORMAT);
    /* absurd window values do not crash and leave the count sane */
    CHECK(parse("flash_attn::_flash_attn_forward", "[[1, 5, 1, 4], [1, 5, 1, 4], [1, 5, 1, 4], [], [], [], [], []]",
                "[" BF3 ", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"0.0\", \"0.5\", \"False\", \"9223372036854775807\", \"-9223372036854775807\"]",
                &d) == JV_OK);
    jv_perf p = model(&d);
    CHECK(p.flops >= 0 && p.flops <= 2.0 * 25 * 8);
    /* a missing Concrete Inputs list: defaults (not causal, dropout 0) */
    CHECK(parse(fl, "[[1, 1, 4, 8], [1, 1, 4, 8], [1, 1, 4, 8], [], [], [], []]",
                "[" BF3 ", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]", NULL, NULL, &d) == JV_OK);
    CHECK(!strcmp(param(&d, "causal"), "False") && !strcmp(param(&d, "dropout"), "0.0"));
}

int main(void) {
    test_match();
    test_tracelens_rows();
    test_real_dtype();
    test_bias();
    test_causal_counts();
    test_backward();
    test_hostile();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

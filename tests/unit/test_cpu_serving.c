/* test_cpu_serving: the CPU backend's own kernels of the serving stacks' op families against the families'
 * double-precision references: kernels/actmul (vLLM's and AITER's gated activations), the RMS norm forwards
 * of kernels/norm (aten::rms_norm, vLLM's rms_norm and fused_add_rms_norm) and kernels/rope (vLLM's
 * rotary_embedding, positions 0..T-1). Each case is a call in trace form: parsed, its replay operands filled
 * as the runner fills them, planned and run through the family's CPU kernel (jv_cpu_kernel_of), run through
 * jv_desc_reference into separate outputs, and every output compared with jv_verify_output (jv_test_cpu.h).
 * fp32, fp16, bf16, mixed dtypes, 3-D, strided inputs and a transposed output. Ten calls are also written to
 * replay IR, read back, replayed by the runner on the CPU backend and given their PyTorch reproducer. The
 * checks can fail: damaged outputs are caught, and so are wrong kernels (the kernel planned for a changed call
 * and verified against the call's reference: another activation, the halves swapped, eps 1, the residual not
 * added, neox pairs for gptj and back); fp64 and a rotary embedding with more tokens than cache rows are
 * refused. Prints one line per case and the time of a Llama-7B-like silu_and_mul (512 tokens, d 11008, bf16)
 * beside memcpy of the same bytes. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "actmul/actmul.h"
#include "backend.h"
#include "jv_cpu_kernel.h"
#include "jv_ir.h"
#include "jv_opcall.h"
#include "jv_repro.h"
#include "jv_runner.h"
#include "jv_strbuf.h"
#include "norm/norm.h"
#include "rope/rope.h"

#include "jv_check.h"
#include "jv_progress.h" /* jv_now */
#include "jv_test_cpu.h"
#include "jv_test_opts.h"

#define BF             "\"c10::BFloat16\""
#define HF             "\"c10::Half\""
#define FL             "\"float\""
#define DB             "\"double\""
#define T2(X)          "[" X ", " X "]"
#define RMS_T(X, W)    "[" X ", \"ScalarList\", " W ", \"Scalar\"]"
#define RMS_C(NS, E)   "[\"\", \"[" NS "]\", \"\", \"" E "\"]"
#define V4(X, W)       "[" X ", " X ", " W ", \"Scalar\"]"
#define RP_T(Q, K, C)  "[\"long int\", " Q ", " K ", \"Scalar\", " C ", \"Scalar\"]"
#define RP_C(HS, NEOX) "[\"\", \"\", \"\", \"" HS "\", \"\", \"" NEOX "\"]"
#define VC             "[\"\", \"\", \"\", \"1e-06\"]"

static const jv_cpu_case CASES[] = {
    {"silu_and_mul fp32", "_C::silu_and_mul", "[[64, 200], [64, 400]]", T2(FL), NULL, NULL},
    {"silu_and_mul bf16", "_C::silu_and_mul", "[[64, 1000], [64, 2000]]", T2(BF), NULL, NULL},
    {"silu_and_mul fp16 3-D", "_C::silu_and_mul", "[[2, 33, 72], [2, 33, 144]]", T2(HF), NULL, NULL},
    {"mul_and_silu bf16", "_C::mul_and_silu", "[[64, 1000], [64, 2000]]", T2(BF), NULL, NULL},
    {"mul_and_silu fp32", "_C::mul_and_silu", "[[17, 300], [17, 600]]", T2(FL), NULL, NULL},
    {"gelu_and_mul fp32", "_C::gelu_and_mul", "[[64, 200], [64, 400]]", T2(FL), NULL, NULL},
    {"gelu_and_mul fp16", "_C::gelu_and_mul", "[[64, 1000], [64, 2000]]", T2(HF), NULL, NULL},
    {"gelu_tanh_and_mul bf16", "_C::gelu_tanh_and_mul", "[[64, 1000], [64, 2000]]", T2(BF), NULL, NULL},
    {"gelu_tanh_and_mul fp32", "_C::gelu_tanh_and_mul", "[[5, 3000], [5, 6000]]", T2(FL), NULL, NULL},
    {"aiter silu_and_mul bf16", "aiter::silu_and_mul", "[[64, 1000], [64, 2000]]", T2(BF), NULL, NULL},
    {"silu_and_mul bf16 -> fp32 out", "_C::silu_and_mul", "[[64, 1000], [64, 2000]]", "[" FL ", " BF "]", NULL, NULL},
    /* the input a column slice of a [64, 3000] tensor; the output transposed ([d, T] storage) */
    {"silu_and_mul fp32 strided input", "_C::silu_and_mul", "[[64, 1000], [64, 2000]]", T2(FL),
     "[[1000, 1], [3000, 1]]", NULL},
    {"silu_and_mul bf16 transposed out", "_C::silu_and_mul", "[[64, 100], [64, 200]]", T2(BF), "[[1, 64], [200, 1]]",
     NULL},
    /* RMS norm: aten::rms_norm(input, normalized_shape, weight, eps), vLLM's rms_norm(result, input, weight,
     * epsilon) and fused_add_rms_norm(input, residual, weight, epsilon) */
    {"aten::rms_norm bf16", "aten::rms_norm", "[[4, 64, 512], [], [512], []]", RMS_T(BF, BF), NULL,
     RMS_C("512", "1e-06")},
    {"aten::rms_norm fp32 eps None", "aten::rms_norm", "[[64, 300], [], [300], []]", RMS_T(FL, FL), NULL,
     RMS_C("300", "")},
    {"aten::rms_norm fp16 no weight", "aten::rms_norm", "[[64, 300], [], [], []]",
     "[" HF ", \"ScalarList\", \"\", "
     "\"Scalar\"]",
     NULL, RMS_C("300", "1e-05")},
    {"aten::rms_norm fp32 [8, 64] dims", "aten::rms_norm", "[[3, 8, 64], [], [8, 64], []]", RMS_T(FL, FL), NULL,
     "[\"\", \"[8, 64]\", \"\", \"1e-06\"]"},
    {"_C::rms_norm bf16", "_C::rms_norm", "[[128, 2048], [128, 2048], [2048], []]", V4(BF, BF), NULL, VC},
    {"_C::rms_norm fp16", "_C::rms_norm", "[[33, 4096], [33, 4096], [4096], []]", V4(HF, HF), NULL, VC},
    {"_C::rms_norm fp32 strided input", "_C::rms_norm", "[[16, 1000], [16, 1000], [1000], []]", V4(FL, FL),
     "[[1000, 1], [3000, 1], [1], []]", VC},
    {"_C::rms_norm bf16 fp32 weight", "_C::rms_norm", "[[64, 1024], [64, 1024], [1024], []]", V4(BF, FL), NULL, VC},
    {"_C::fused_add_rms_norm bf16", "_C::fused_add_rms_norm", "[[128, 2048], [128, 2048], [2048], []]", V4(BF, BF),
     NULL, VC},
    {"_C::fused_add_rms_norm fp32", "_C::fused_add_rms_norm", "[[17, 3000], [17, 3000], [3000], []]", V4(FL, FL), NULL,
     VC},
    {"_C::fused_add_rms_norm fp16", "_C::fused_add_rms_norm", "[[64, 512], [64, 512], [512], []]", V4(HF, HF), NULL,
     VC},
    /* vLLM's rotary_embedding(positions, query, key, head_size, cos_sin_cache, is_neox), positions 0..T-1 */
    {"rope bf16 neox", "_C::rotary_embedding", "[[64], [64, 4096], [64, 1024], [], [4096, 128], []]", RP_T(BF, BF, BF),
     NULL, RP_C("128", "True")},
    {"rope fp32 gptj, half rotated, no key", "_C::rotary_embedding", "[[17], [17, 4, 64], [], [], [100, 32], []]",
     RP_T(FL, "\"\"", FL), NULL, RP_C("64", "False")},
    {"rope fp16 neox, fp32 cache", "_C::rotary_embedding", "[[33], [33, 512], [33, 128], [], [2048, 64], []]",
     RP_T(HF, HF, FL), NULL, RP_C("64", "True")},
    {"rope bf16 gptj, strided query", "_C::rotary_embedding", "[[16], [16, 256], [16, 128], [], [64, 64], []]",
     RP_T(BF, BF, BF), "[[1], [768, 1], [128, 1], [], [64, 1], []]", RP_C("64", "False")},
    {"rope bf16 gptj, positions [1, T]", "_C::rotary_embedding", "[[1, 16], [16, 256], [16, 128], [], [64, 64], []]",
     RP_T(BF, BF, BF), "[[16, 1], [768, 1], [128, 1], [], [64, 1], []]", RP_C("64", "False")},
};
#define NCASES ((int)(sizeof CASES / sizeof CASES[0]))

/* the path under test: the family's own CPU kernel (its plan kept beside it) */
typedef struct {
    const jv_cpu_kernel *k;
    void *plan;
} own;
static jv_status own_plan(void *x, const setup *s, void **plan, jv_err *err) {
    (void)x;
    *plan = NULL;
    own *o = calloc(1, sizeof *o);
    if (!o) JV_FAIL(err, JV_ERR_NOMEM, "out of memory");
    *plan = o;
    o->k = jv_cpu_kernel_of(s->d.family);
    if (!o->k) JV_FAIL(err, JV_ERR_NOTFOUND, "family %d has no CPU kernel", s->d.family);
    char impl[80];
    return o->k->plan(&s->d, &s->ops, &o->plan, impl, sizeof impl, err);
}
static jv_status own_run(void *x, void *plan, const setup *s, jv_err *err) {
    (void)x;
    const own *o = plan;
    return o->k->run(o->plan, s->dev, err);
}
static void own_release(void *plan) {
    own *o = plan;
    if (o && o->k) o->k->release(o->plan);
    free(o);
}

static const jv_cpu_case *case_named(const char *what) {
    for (int i = 0; i < NCASES; i++)
        if (!strcmp(CASES[i].what, what)) return &CASES[i];
    return NULL;
}

/* A wrong kernel must fail: case c's reference, then its kernel planned for a changed call (mutate applied
 * to the descriptor after the reference ran) over the same operands: verification must fail. */
static void wrong_kernel(const jv_cpu_case *c, const char *how, void (*mutate)(jv_desc *d)) {
    CHECK(c != NULL);
    setup s;
    if (!c || !setup_case(c, &s, 1)) {
        setup_free(&s);
        return;
    }
    mutate(&s.d);
    jv_err err;
    jv_err_clear(&err);
    void *plan = NULL;
    jv_status st = own_plan(NULL, &s, &plan, &err);
    if (st == JV_OK) st = own_run(NULL, plan, &s, &err);
    CHECK_MSG(st == JV_OK, "%s: %s", c->what, err.msg);
    jv_verify v;
    int ok = st == JV_OK && verify_all(&s, &v);
    CHECK_MSG(st == JV_OK && !ok, "%s: the kernel with %s passed verification", c->what, how);
    printf("%-38s %-6s the kernel with %s: rel_l2 %.3g\n", c->what, ok ? "MISSED" : "CAUGHT", how,
           st == JV_OK ? v.rel_l2 : -1.0);
    own_release(plan);
    setup_free(&s);
}

static void to_gelu(jv_desc *d) {
    ((jv_actmul_desc *)(void *)d->data)->act = JV_ACTMUL_GELU;
}
static void swap_halves(jv_desc *d) {
    jv_actmul_desc *g = (jv_actmul_desc *)(void *)d->data;
    g->act_second = !g->act_second;
}

/* Case c end to end: written to replay IR from the family's schemas (with `arg` among its argument names),
 * read back, replayed and verified by the runner on the CPU backend (every output element checked), and its
 * reproducer holding `repro`. */
static void ir_case(const jv_cpu_case *c, const char *arg, const char *repro) {
    CHECK(c != NULL);
    if (!c) return;
    jv_err err;
    jv_err_clear(&err);
    jv_opcall call;
    CHECK(jv_opcall_from_trace(&call, c->op, c->dims, c->types, c->strides, c->conc, &err) == JV_OK);
    void *entry = NULL;
    jv_status st = jv_ir_entry(&call, &entry, &err);
    CHECK_MSG(st == JV_OK && entry, "%s: no IR entry: %s", c->what, err.msg);
    cJSON *arr = cJSON_CreateArray();
    if (entry) cJSON_AddItemToArray(arr, entry);
    char *text = cJSON_PrintUnformatted(arr);
    char want[64];
    snprintf(want, sizeof want, "\"arg_name\":\"%s\"", arg);
    CHECK_MSG(text && strstr(text, want), "%s: IR without %s: %s", c->what, want, text ? text : "(none)");
    jv_ir ir;
    memset(&ir, 0, sizeof ir);
    st = text ? jv_ir_parse(text, strlen(text), "serving.json", &ir, &err) : JV_ERR_NOMEM;
    CHECK_MSG(st == JV_OK && ir.n == 1, "%s: IR read back: %s", c->what, err.msg);
    if (st == JV_OK && ir.n == 1) {
        const jv_backend *be = &jv_cpu_backend;
        void *ctx = NULL;
        CHECK(be->open(0, &ctx, &err) == JV_OK);
        jv_device_props props;
        CHECK(be->props(ctx, &props, &err) == JV_OK);
        jv_run_opts o;
        jv_test_fast_opts(&o, &props);
        o.cache_cold = 0;
        o.quiet = 1;
        jv_op_result r;
        st = jv_run_op(be, ctx, &props, &o, &ir.ops[0], &r, &err);
        CHECK_MSG(st == JV_OK && r.status == JV_RES_OK && r.verify.done && !r.verify.sampled && r.verify.unwritten == 0,
                  "%s: replay: %s %s", c->what, err.msg, r.reason);
        printf("%-38s replayed from IR: %s, rel_l2 %.3g, %lld checked, %.1f us\n", c->what, r.impl, r.verify.rel_l2,
               (long long)r.verify.checked, r.hot.median_s * 1e6);
        be->close(ctx);
        jv_repro_opts ro;
        jv_repro_opts_default(&ro);
        jv_strbuf b = JV_STRBUF_INIT;
        st = jv_repro_op(&ir.ops[0], &ro, &b, &err);
        CHECK_MSG(st == JV_OK && b.buf && strstr(b.buf, repro) && strstr(b.buf, "AMD (ROCm): no AMD vendor tool"),
                  "%s: reproducer: %s", c->what, st == JV_OK && b.buf ? b.buf : err.msg);
        jv_sb_free(&b);
    }
    jv_ir_free(&ir);
    free(text);
    cJSON_Delete(arr);
    jv_opcall_free(&call);
}

static void eps_one(jv_desc *d) {
    ((jv_norm_desc *)(void *)d->data)->eps = 1.0;
}
static void no_residual(jv_desc *d) { /* fused_add_rms_norm run as rms_norm(input <- residual): no add */
    ((jv_norm_desc *)(void *)d->data)->op = JV_NORM_SERVING_RMS_NORM;
}

static void flip_neox(jv_desc *d) {
    jv_rope_desc *g = (jv_rope_desc *)(void *)d->data;
    g->neox = !g->neox;
}

int main(void) {
    const jv_cpu_path path = {.ctx = NULL, .width = 38, .plan = own_plan, .run = own_run, .release = own_release};
    for (int i = 0; i < NCASES; i++)
        cpu_run_case(&path, &CASES[i]);

    /* the checks can fail: damaged outputs and wrong kernels are caught */
    cpu_wrong_case(&path, case_named("silu_and_mul fp32"), "result", 1);
    cpu_wrong_case(&path, case_named("gelu_and_mul fp16"), "out", 0);
    cpu_wrong_case(&path, case_named("silu_and_mul bf16 transposed out"), "result", 0);
    wrong_kernel(case_named("silu_and_mul bf16"), "gelu for silu", to_gelu);
    wrong_kernel(case_named("mul_and_silu bf16"), "the halves swapped", swap_halves);
    wrong_kernel(case_named("silu_and_mul fp32 strided input"), "the halves swapped", swap_halves);
    wrong_kernel(case_named("gelu_tanh_and_mul fp32"), "erf gelu for tanh gelu", to_gelu);
    cpu_wrong_case(&path, case_named("_C::rms_norm bf16"), "result", 0);
    cpu_wrong_case(&path, case_named("_C::fused_add_rms_norm bf16"), "residual", 1);
    cpu_wrong_case(&path, case_named("_C::fused_add_rms_norm fp32"), "input", 0);
    wrong_kernel(case_named("_C::rms_norm bf16"), "eps 1 for 1e-6", eps_one);
    wrong_kernel(case_named("aten::rms_norm fp32 eps None"), "eps 1 for the dtype's", eps_one);
    wrong_kernel(case_named("_C::fused_add_rms_norm fp32"), "the residual not added", no_residual);
    cpu_wrong_case(&path, case_named("rope bf16 neox"), "key", 1);
    cpu_wrong_case(&path, case_named("rope fp32 gptj, half rotated, no key"), "query", 0);
    wrong_kernel(case_named("rope bf16 neox"), "gptj pairs for neox", flip_neox);
    wrong_kernel(case_named("rope fp32 gptj, half rotated, no key"), "neox pairs for gptj", flip_neox);

    /* written to replay IR, read back, replayed by the runner, reproduced in PyTorch */
    ir_case(case_named("silu_and_mul bf16"), "result",
            "r = (torch.nn.functional.silu(input[..., :1000]) * input[..., 1000:])");
    ir_case(case_named("mul_and_silu fp32"), "out",
            "r = (input[..., :300] * torch.nn.functional.silu(input[..., 300:]))");
    ir_case(case_named("gelu_tanh_and_mul bf16"), "out",
            "r = (torch.nn.functional.gelu(input[..., :1000], approximate='tanh') * input[..., 1000:])");
    ir_case(case_named("aiter silu_and_mul bf16"), "out", "torch.nn.functional.silu(input[..., :1000])");
    ir_case(case_named("silu_and_mul fp32 strided input"), "input", "torch.nn.functional.silu(input[..., :1000])");

    ir_case(case_named("_C::rms_norm bf16"), "result",
            "r = torch.nn.functional.rms_norm(input, [2048], weight, 1e-06)");
    ir_case(case_named("_C::fused_add_rms_norm bf16"), "residual",
            "residual.add_(input)\n    input.copy_(torch.nn.functional.rms_norm(residual, [2048], weight, 1e-06))");
    ir_case(case_named("aten::rms_norm bf16"), "normalized_shape",
            "r = torch.nn.functional.rms_norm(input, [512], weight, 1e-06)");
    ir_case(case_named("aten::rms_norm fp32 eps None"), "eps",
            "r = torch.nn.functional.rms_norm(input, [300], weight, None)");
    ir_case(case_named("aten::rms_norm fp32 [8, 64] dims"), "weight",
            "r = torch.nn.functional.rms_norm(input, [8, 64], weight, 1e-06)");

    ir_case(case_named("rope bf16 neox"), "cos_sin_cache", "tx, ty = th[..., :64], th[..., 64:128]");
    ir_case(case_named("rope fp32 gptj, half rotated, no key"), "positions",
            "positions.copy_(torch.arange(positions.numel(), device=positions.device).view_as(positions))");
    {
        /* aten::rms_norm with a weight of another dtype: the output's dtype depends on PyTorch's version */
        jv_err e;
        jv_err_clear(&e);
        jv_opcall c;
        jv_desc d;
        jv_operands ops;
        CHECK(jv_opcall_from_trace(&c, "aten::rms_norm", "[[4, 512], [], [512], []]", RMS_T(BF, FL), NULL,
                                   RMS_C("512", "1e-06"), &e) == JV_OK);
        CHECK(jv_desc_parse(&c, &d, &e) == JV_OK);
        CHECK(jv_desc_operands(&d, &ops, &e) == JV_ERR_FORMAT && strstr(e.msg, "depends on the PyTorch version"));
        printf("%-38s refused: %s\n", "aten::rms_norm bf16, fp32 weight", e.msg);
        jv_opcall_free(&c);
    }
    {
        /* more tokens than cos_sin_cache rows: positions 0..T-1 would leave it, so no replay */
        jv_err e;
        jv_err_clear(&e);
        jv_opcall c;
        jv_desc d;
        jv_operands ops;
        CHECK(jv_opcall_from_trace(&c, "_C::rotary_embedding", "[[64], [64, 256], [64, 128], [], [32, 64], []]",
                                   RP_T(BF, BF, BF), NULL, RP_C("64", "True"), &e) == JV_OK);
        CHECK(jv_desc_parse(&c, &d, &e) == JV_OK);
        CHECK(jv_desc_operands(&d, &ops, &e) == JV_ERR_FORMAT && strstr(e.msg, "32 cos_sin_cache rows"));
        printf("%-38s refused: %s\n", "rope 64 tokens, 32 cache rows", e.msg);
        jv_opcall_free(&c);
    }

    /* fp64: the CPU kernel runs fp32, fp16 and bf16 */
    static const jv_cpu_case f64 = {
        "silu_and_mul fp64 (refused)", "_C::silu_and_mul", "[[4, 8], [4, 16]]", T2(DB), NULL, NULL};
    cpu_refused_case(&path, &f64, 1);

    /* timing: a Llama-7B-like MLP gate of 512 tokens (d 11008, bf16): 3 * 512 * 11008 * 2 bytes, beside
     * memcpy of the same bytes (read 2/3, write 1/3 of them) */
    static const jv_cpu_case big = {
        "time silu_and_mul bf16 512x11008", "_C::silu_and_mul", "[[512, 11008], [512, 22016]]", T2(BF), NULL, NULL};
    const double bytes = 3.0 * 512 * 11008 * 2;
    double best = cpu_time_case(&path, &big, 11);
    size_t cb = (size_t)(512 * 11008 * 2);
    char *src = malloc(2 * cb), *dst = malloc(2 * cb);
    CHECK(src && dst);
    double copy = 1e30;
    if (src && dst) {
        memset(src, 1, 2 * cb);
        memset(dst, 0, 2 * cb);
        for (int r = 0; r < 11; r++) {
            double t0 = jv_now();
            memcpy(dst, src, (size_t)(1.5 * (double)cb)); /* 1.5 cb read + 1.5 cb written = the op's bytes */
            double t = jv_now() - t0;
            if (r > 0 && t < copy) copy = t;
        }
    }
    if (best > 0)
        printf("%-38s %.3f ms (%.1f GB/s of minimal bytes); memcpy of the same bytes %.3f ms: ratio %.2f\n", big.what,
               best * 1e3, bytes / best * 1e-9, copy * 1e3, best / copy);
    free(src);
    free(dst);

    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

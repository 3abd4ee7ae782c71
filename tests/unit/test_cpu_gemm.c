/* test_cpu_gemm: the CPU backend's GEMM path on oneDNN matmul (backends/cpu/jv_cpu_gemm.c) against the GEMM
 * family's CPU reference. The cases are gemm_cases.h's (shared with the HIP vendor tests) and matmul's, each
 * a call in trace form (as tests/kernels/test_gpu_replay.c spells them). Inputs are filled as a replay fills
 * them, the plan runs over them, the reference runs into a separate output, and jv_verify_output must pass.
 * fp16 must either pass or be refused with "unsupported dtype", fp64 must be refused; a square mm run with
 * its operands swapped must fail verification (the test can fail). Last, the time of one 1024^3 matmul in
 * fp32 and bf16. Prints one line per case. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_cpu_dnnl.h"
#include "jv_opcall.h"
#include "jv_progress.h"
#include "jv_runner.h"

#include "jv_check.h"
#include "jv_test_calls.h"
#include "jv_test_cpu.h"

#include "gemm_cases.h"

/* beside gemm_cases.h's table: matmul, which the HIP tests do not replay */
static const jv_cpu_case CPU_ONLY[] = {
    {"matmul fp32, [B, M, K] @ [K, N]", "aten::matmul", "[[3, 64, 96], [96, 80]]", "[" FL ", " FL "]", NULL, NULL},
    {"matmul fp32, [K] @ [B, K, N]", "aten::matmul", "[[96], [3, 96, 80]]", "[" FL ", " FL "]", NULL, NULL},
};
#define NCPU_ONLY ((int)(sizeof CPU_ONLY / sizeof CPU_ONLY[0]))

/* A parsed call, its operands and buffers (bufs: the plan's; ref: the same with out's own). */
typedef struct {
    jv_opcall call;
    jv_desc d;
    jv_operands ops;
    void *bufs[JV_MAX_OPERANDS], *ref[JV_MAX_OPERANDS];
    int io;
} gcall;

static void gcall_free(gcall *c) {
    for (int i = 0; i < c->ops.n; i++) {
        if (c->ref[i] != c->bufs[i]) free(c->ref[i]);
        free(c->bufs[i]);
    }
    jv_opcall_free(&c->call);
    memset(c, 0, sizeof *c);
}

/* Parses and allocates one call; inputs filled, out poisoned. */
static jv_status gcall_make(gcall *c, const char *op, const char *dims, const char *types, const char *strides,
                            const char *conc, jv_err *err) {
    memset(c, 0, sizeof *c);
    c->io = -1;
    JV_CHECK(jv_opcall_from_trace(&c->call, op, dims, types, strides, conc, err));
    JV_CHECK(jv_desc_parse(&c->call, &c->d, err));
    JV_CHECK(jv_desc_operands(&c->d, &c->ops, err));
    for (int i = 0; i < c->ops.n; i++) {
        const jv_operand *o = &c->ops.o[i];
        int64_t ext = jv_tensor_extent(&o->t);
        size_t bytes = (size_t)(ext > 0 ? ext : 1) * jv_dtype_size(o->t.dtype);
        c->bufs[i] = malloc(bytes);
        c->ref[i] = c->bufs[i];
        if (!c->bufs[i]) JV_FAIL(err, JV_ERR_NOMEM, "out of memory");
        if (o->role == JV_ROLE_OUT) {
            c->io = i;
            memset(c->bufs[i], 0xFF, bytes);
            c->ref[i] = malloc(bytes);
            if (!c->ref[i]) JV_FAIL(err, JV_ERR_NOMEM, "out of memory");
            memset(c->ref[i], 0xFF, bytes);
        } else {
            jv_fill_host(c->bufs[i], o->t.dtype, ext, o->init, 1000 + (uint64_t)i);
        }
    }
    if (c->io < 0) JV_FAIL(err, JV_ERR_FORMAT, "no out operand");
    return JV_OK;
}

/* Runs c's plan on x and the reference; returns 1 when out verifies, fills v. -1 when the plan is refused. */
static int run_and_verify(const jv_cpu_dnnl *x, gcall *c, void **swap, jv_verify *v, jv_err *err) {
    jv_cpu_gemm *p = NULL;
    memset(v, 0, sizeof *v);
    jv_status st = jv_cpu_gemm_plan(x, &c->d, &c->ops, &p, err);
    if (st != JV_OK) return -1;
    void *bufs[JV_MAX_OPERANDS];
    memcpy(bufs, c->bufs, sizeof bufs);
    if (swap) { /* the deliberately wrong run: operands 0 and 1 exchanged */
        bufs[0] = c->bufs[1];
        bufs[1] = c->bufs[0];
    }
    st = jv_cpu_gemm_run(x, p, bufs, err);
    jv_cpu_gemm_free(p);
    if (st != JV_OK) return 0;
    st = jv_desc_reference(&c->d, &c->ops, c->ref, NULL, err);
    if (st != JV_OK) return 0;
    return jv_verify_output(&c->ops.o[c->io], c->bufs[c->io], c->ref[c->io], NULL, 0, v);
}

/* Runs case k and verifies it; an fp16 case may instead be refused as an unsupported dtype (oneDNN builds
 * without fp16 matmul). */
static void run_case(const jv_cpu_dnnl *x, const jv_cpu_case *k) {
    jv_err err;
    jv_err_clear(&err);
    gcall c;
    jv_status st = gcall_make(&c, k->op, k->dims, k->types, k->strides, k->conc, &err);
    CHECK_MSG(st == JV_OK, "%s: %s", k->what, err.msg);
    if (st == JV_OK) {
        jv_verify v;
        int ok = run_and_verify(x, &c, NULL, &v, &err);
        int refused_fp16 =
            ok < 0 && strstr(k->types, HF) && err.code == JV_ERR_NOTFOUND && strstr(err.msg, "unsupported dtype fp16");
        CHECK_MSG(ok == 1 || refused_fp16, "%s: %s", k->what, ok < 0 ? err.msg : "does not verify");
        if (refused_fp16)
            printf("%-48s %-4s %s\n", k->what, "NOTFOUND", err.msg);
        else
            printf("%-48s %-4s rel_l2 %.3g (tol %.3g) max_elem %.3g%s%s\n", k->what, ok == 1 ? "OK" : "FAIL", v.rel_l2,
                   v.tol, v.max_elem, ok < 0 ? ": " : "", ok < 0 ? err.msg : "");
    }
    gcall_free(&c);
}

/* fp16 passes or is refused as an unsupported dtype; fp64 is refused. */
static void run_refusals(const jv_cpu_dnnl *x) {
    jv_err err;
    jv_err_clear(&err);
    gcall c;
    jv_verify v;
    CHECK(gcall_make(&c, "aten::mm", "[[64, 96], [96, 80]]", "[" HF ", " HF "]", "[[1, 64], [80, 1]]", NULL, &err) ==
          JV_OK);
    int ok = run_and_verify(x, &c, NULL, &v, &err);
    CHECK_MSG(ok == 1 || (ok < 0 && err.code == JV_ERR_NOTFOUND && strstr(err.msg, "unsupported dtype fp16")),
              "mm fp16: %d %s", ok, err.msg);
    printf("%-48s %-4s %s\n", "mm fp16, A transposed",
           ok == 1  ? "OK"
           : ok < 0 ? "NOTFOUND"
                    : "FAIL",
           ok < 0 ? err.msg : "");
    gcall_free(&c);
    jv_err_clear(&err);
    CHECK(gcall_make(&c, "aten::mm", "[[64, 96], [96, 80]]", "[" DB ", " DB "]", NULL, NULL, &err) == JV_OK);
    ok = run_and_verify(x, &c, NULL, &v, &err);
    CHECK_MSG(ok < 0 && err.code == JV_ERR_NOTFOUND && strstr(err.msg, "unsupported dtype"), "mm fp64: %d %s", ok,
              err.msg);
    printf("%-48s %-4s %s\n", "mm fp64 (refused)", ok < 0 ? "NOTFOUND" : "??", err.msg);
    gcall_free(&c);
}

/* A square mm with its operands swapped computes B @ A: verification must fail. */
static void run_wrong(const jv_cpu_dnnl *x) {
    jv_err err;
    jv_err_clear(&err);
    gcall c;
    jv_verify v;
    CHECK(gcall_make(&c, "aten::mm", "[[64, 64], [64, 64]]", "[" FL ", " FL "]", NULL, NULL, &err) == JV_OK);
    int ok = run_and_verify(x, &c, (void **)1, &v, &err);
    CHECK_MSG(ok == 0, "mm fp32 with swapped operands verified (%d): the check cannot fail", ok);
    printf("%-48s %-4s rel_l2 %.3g (tol %.3g): expected to fail\n", "mm fp32 64^3, operands swapped (wrong)",
           ok == 0 ? "FAIL" : "OK?!", v.rel_l2, v.tol);
    gcall_free(&c);
}

/* The time of one 1024^3 matmul (best of 5 after a warm-up), verified. */
static void run_timing(const jv_cpu_dnnl *x, const char *what, const char *types) {
    jv_err err;
    jv_err_clear(&err);
    gcall c;
    jv_cpu_gemm *p = NULL;
    CHECK(gcall_make(&c, "aten::mm", "[[1024, 1024], [1024, 1024]]", types, NULL, NULL, &err) == JV_OK);
    if (jv_cpu_gemm_plan(x, &c.d, &c.ops, &p, &err) != JV_OK) {
        CHECK_MSG(0, "%s: %s", what, err.msg);
        gcall_free(&c);
        return;
    }
    double best = 1e30;
    for (int i = 0; i < 6; i++) {
        double t0 = jv_now();
        CHECK(jv_cpu_gemm_run(x, p, c.bufs, &err) == JV_OK);
        double t = jv_now() - t0;
        if (i > 0 && t < best) best = t;
    }
    jv_cpu_gemm_free(p);
    jv_verify v;
    memset(&v, 0, sizeof v);
    CHECK(jv_desc_reference(&c.d, &c.ops, c.ref, NULL, &err) == JV_OK);
    int ok = jv_verify_output(&c.ops.o[c.io], c.bufs[c.io], c.ref[c.io], NULL, 0, &v);
    CHECK_MSG(ok, "%s: does not verify", what);
    printf("%-48s %-4s %.2f ms, %.1f GFLOP/s, rel_l2 %.3g\n", what, ok ? "OK" : "FAIL", best * 1e3,
           2.0 * 1024 * 1024 * 1024 / best * 1e-9, v.rel_l2);
    gcall_free(&c);
}

int main(void) {
    jv_cpu_dnnl x;
    jv_err err;
    jv_err_clear(&err);
    if (jv_cpu_dnnl_open(&x, &err) != JV_OK) {
        fprintf(stderr, "skipped: %s\n", err.msg);
        return 77;
    }
    for (int i = 0; i < NGEMM_CASES; i++)
        run_case(&x, &GEMM_CASES[i]);
    for (int i = 0; i < NCPU_ONLY; i++)
        run_case(&x, &CPU_ONLY[i]);
    run_refusals(&x);
    run_wrong(&x);
    run_timing(&x, "mm fp32 1024^3 (timing)", "[" FL ", " FL "]");
    run_timing(&x, "mm bf16 1024^3 (timing)", "[" BF ", " BF "]");
    jv_cpu_dnnl_close(&x);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

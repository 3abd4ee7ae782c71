/* test_cpu_eltwise: the CPU backend's own elementwise kernels (kernels/elementwise/elementwise_cpu.c,
 * elementwise_cpu_int.c) against the elementwise families' CPU reference. First the kernels' storage conversions
 * against the core's, bit for bit (every fp16 and bf16 value; a sweep of float bit patterns, every fp16/bf16 halfway
 * point and its neighbours). Then each case, a call in trace form (as tests/kernels/test_gpu_replay.c spells them):
 * inputs filled as a replay fills them (seeded), the plan runs over them, the reference runs into a separate output,
 * and jv_verify_output must pass within the dtype's tolerance; the path (dense or strided) must be the one the case
 * expects. Ops: add with alpha, sub, rsub, mul by a Scalar and by a 0-d tensor, div in each rounding mode,
 * where, threshold_backward, gelu and gelu_backward in both forms, silu, sigmoid, tanh and their backwards,
 * pow with special and general exponents and a tensor exponent, the clamp family, copy_ across dtypes, to(),
 * _to_copy, fill_, zero_, masked_fill, comparisons to bool, nan_to_num, maximum/minimum, addcmul, addcdiv,
 * lerp, the unary math; dense, transposed, permuted and broadcast operands, in place; fp32, bf16 and fp16;
 * odd sizes (tails). Integers (int64, int32, int16, int8, uint8; computed in int64, verified exactly: the
 * tolerance of an integer or bool output is 0 and the largest difference must be 0): add_ of a 0-d int64 self
 * (num_batches_tracked), add/sub/rsub/mul with integer Scalars and alpha, floor and trunc division (x / 0 as the
 * reference stores it), maximum/minimum, the clamp family, neg, abs, relu, comparisons of integers and of an
 * integer with a float (in float) or an fp64 (in double), where, masked_fill, copies and casts between integers,
 * floats and bool (float -> int truncates toward zero: checked element by element), fill_, zero_, uint8
 * outputs, float ops of integers (promoted). fp64 (computed in double). upsample_nearest1d/2d/3d by scale and by
 * output size, NCHW and channels-last, fp32, bf16, fp16. Each case also names what it computes in (float,
 * int64, double, gather). Then the refusals (an integer output of an op not defined on integers, a uint8 output
 * of a signed value: JV_ERR_NOTFOUND with the reason), the backend's impl strings and refusals, and the proof
 * that the check can fail: add's output compared with mul's reference, add with alpha 2 compared with alpha 1,
 * an int64 result off by one, and upsample by one nearest rule compared with another must all fail
 * verification. Last, the time of a few big ops (for information). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "elementwise/elementwise_cpu.h"
#include "jv_dtype.h"
#include "jv_progress.h"

#include "jv_check.h"
#include "jv_test_cpu.h"

#include "cpu_eltwise_cases.h" /* after jv_test_cpu.h: its table is of jv_cpu_case */

/* ---- the conversions, bit for bit ---- */

static int same_float_bits(float a, float b) {
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y;
}

static void test_conversions(void) {
    int64_t bad16 = 0, badbf = 0, bads16 = 0, badsbf = 0, n = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        bad16 += !same_float_bits(jv_elementwise_cpu_f16_to_f32((uint16_t)h), jv_f16_to_f32((uint16_t)h));
        badbf += !same_float_bits(jv_elementwise_cpu_bf16_to_f32((uint16_t)h), jv_bf16_to_f32((uint16_t)h));
    }
    /* stores: a sweep of bit patterns, and around every fp16 / bf16 value: the value, the halfway point to the
     * next one, and one float ulp either side of it */
    for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, 4);
        bads16 += jv_elementwise_cpu_f32_to_f16(f) != jv_f32_to_f16(f);
        badsbf += jv_elementwise_cpu_f32_to_bf16(f) != jv_f32_to_bf16(f);
        n++;
    }
    for (uint32_t h = 0; h < 65536; h++) {
        float lo16 = jv_f16_to_f32((uint16_t)h), hi16 = jv_f16_to_f32((uint16_t)(h + 1));
        float lobf = jv_bf16_to_f32((uint16_t)h), hibf = jv_bf16_to_f32((uint16_t)(h + 1));
        float pts[8] = {lo16, 0.5f * lo16 + 0.5f * hi16, lobf, 0.5f * lobf + 0.5f * hibf};
        pts[4] = nextafterf(pts[1], -INFINITY), pts[5] = nextafterf(pts[1], INFINITY);
        pts[6] = nextafterf(pts[3], -INFINITY), pts[7] = nextafterf(pts[3], INFINITY);
        for (int k = 0; k < 8; k++) {
            bads16 += jv_elementwise_cpu_f32_to_f16(pts[k]) != jv_f32_to_f16(pts[k]);
            badsbf += jv_elementwise_cpu_f32_to_bf16(pts[k]) != jv_f32_to_bf16(pts[k]);
            n++;
        }
    }
    CHECK_MSG(bad16 == 0 && badbf == 0, "loads: %lld fp16 and %lld bf16 values differ from the core's",
              (long long)bad16, (long long)badbf);
    CHECK_MSG(bads16 == 0 && badsbf == 0, "stores: %lld fp16 and %lld bf16 roundings of %lld floats differ",
              (long long)bads16, (long long)badsbf, (long long)n);
    printf("%-48s %-4s all 65536 fp16 and bf16 loads; %lld float stores to each\n", "conversions vs the core's",
           bad16 + badbf + bads16 + badsbf == 0 ? "OK" : "FAIL", (long long)n);
}

/* ---- the cases ---- */

/* plans and runs s's call on the kernels (dev buffers); returns the path ('d', 's', 'g') or 0 with err set, and
 * what it computed in (compute: 'i', 'd', 'g' or 0 for float) */
static char run_kernel(setup *s, char *compute, jv_err *err) {
    jv_elementwise_cpu *p = NULL;
    if (jv_elementwise_cpu_plan(&s->d, &s->ops, &p, err) != JV_OK) return 0;
    const char *c = jv_elementwise_cpu_compute(p);
    *compute = !strcmp(c, "int64") ? 'i' : !strcmp(c, "double") ? 'd' : !strcmp(c, "gather") ? 'g' : 0;
    char path = *compute == 'g' ? 'g' : jv_elementwise_cpu_is_dense(p) ? 'd' : 's';
    jv_status st = jv_elementwise_cpu_run(p, s->dev, err);
    jv_elementwise_cpu_free(p);
    return st == JV_OK ? path : 0;
}

static void run_case(const ecase *k) {
    setup s;
    if (!setup_case(&k->c, &s, 1)) {
        setup_free(&s);
        return;
    }
    jv_err err;
    jv_err_clear(&err);
    char compute = 0;
    char path = run_kernel(&s, &compute, &err);
    CHECK_MSG(path != 0, "%s: %s", k->c.what, err.msg);
    jv_verify v;
    int ok = path && verify_all(&s, &v);
    /* an integer or bool output is verified exactly: tolerance 0, no difference at all */
    jv_dtype odt = JV_DT_F32;
    for (int i = 0; i < s.ops.n; i++)
        if (s.ops.o[i].role != JV_ROLE_IN) odt = s.ops.o[i].t.dtype;
    if (path && !jv_dtype_is_float(odt))
        CHECK_MSG(v.tol == 0 && v.max_abs == 0, "%s: an integer output verified with tolerance %g (max |d| %g)",
                  k->c.what, v.tol, v.max_abs);
    CHECK_MSG(!path || compute == k->compute, "%s: computed in '%c', expected '%c'", k->c.what, compute ? compute : 'f',
              k->compute ? k->compute : 'f');
    CHECK_MSG(!path || ok, "%s: does not verify: '%s' rel_l2 %.3g (tol %.3g), %lld bad elements, %lld NaN", k->c.what,
              v.worst, v.rel_l2, v.tol, (long long)v.elem_bad, (long long)v.nan);
    CHECK_MSG(!path || path == k->path, "%s: ran the '%c' path, expected '%c'", k->c.what, path, k->path);
    printf("%-48s %-4s %-7s %-6s rel_l2 %.3g (tol %.3g) max_elem %.3g%s%s\n", k->c.what, ok ? "OK" : "FAIL",
           path == 'd'   ? "dense"
           : path == 's' ? "strided"
           : path == 'g' ? "gather"
                         : "-",
           compute == 'i'   ? "int64"
           : compute == 'd' ? "double"
           : compute == 'g' ? "-"
                            : "float",
           v.rel_l2, v.tol, v.max_elem, path ? "" : ": ", path ? "" : err.msg);
    setup_free(&s);
}

/* ---- refusals ---- */

static const struct {
    jv_cpu_case c;
    const char *reason; /* a part of the message */
} REFUSED[] = {
    {{"exp_ int64 in place", "aten::exp_", "[[64]]", "[" I64 "]", "[[1]]", NULL}, "not defined on integers"},
    {{"copy_ fp32 -> uint8", "aten::copy_", "[[64], [64], []]", "[" U8 ", " FL ", " SC "]", "[[1], [1], []]",
      CONC(NO ", " NO ", \"False\"")},
     "uint8 of a signed value"},
    {{"sub uint8 - uint8 -> uint8", "aten::sub", "[[64], [64], []]", "[" U8 ", " U8 ", " SC "]", "[[1], [1], []]",
      CONC(NO ", " NO ", \"1\"")},
     "uint8 of a signed value"},
    {{"div_ int32 true division in place", "aten::div_", "[[64], [64]]", "[" I32 ", " I32 "]", "[[1], [1]]", NULL},
     "int32: the op is not defined on integers"},
};

static void run_refusals(void) {
    for (size_t i = 0; i < sizeof REFUSED / sizeof REFUSED[0]; i++) {
        setup s;
        if (!setup_case(&REFUSED[i].c, &s, 0)) {
            setup_free(&s);
            continue;
        }
        jv_err err;
        jv_err_clear(&err);
        jv_elementwise_cpu *p = NULL;
        jv_status st = jv_elementwise_cpu_plan(&s.d, &s.ops, &p, &err);
        CHECK_MSG(st == JV_ERR_NOTFOUND && !p && strstr(err.msg, REFUSED[i].reason),
                  "%s: expected a refusal naming '%s', got %d: %s", REFUSED[i].c.what, REFUSED[i].reason, (int)st,
                  err.msg);
        printf("%-48s %-4s %s\n", REFUSED[i].c.what, st == JV_ERR_NOTFOUND ? "REFUSED" : "??", err.msg);
        jv_elementwise_cpu_free(p);
        setup_free(&s);
    }
}

/* ---- through the backend: impl strings, refusals ---- */

static void backend_case(void *cpu, const jv_cpu_case *c, const char *want_impl) {
    setup s;
    if (!setup_case(c, &s, 1)) {
        setup_free(&s);
        return;
    }
    jv_err err;
    jv_err_clear(&err);
    char impl[192] = "";
    void *plan = NULL;
    jv_status st = jv_cpu_backend.prepare(cpu, &s.d, &s.ops, 0, &plan, impl, sizeof impl, &err);
    CHECK_MSG(st == JV_OK, "%s: prepare: %s", c->what, err.msg);
    if (st == JV_OK) st = jv_cpu_backend.launch(cpu, plan, &s.d, &s.ops, s.dev, &err);
    CHECK_MSG(st == JV_OK, "%s: launch: %s", c->what, err.msg);
    jv_cpu_backend.release(cpu, plan);
    jv_verify v;
    int ok = st == JV_OK && verify_all(&s, &v);
    CHECK_MSG(ok, "%s: through the backend: does not verify", c->what);
    CHECK_MSG(!strncmp(impl, want_impl, strlen(want_impl)), "%s: impl \"%s\", expected \"%s...\"", c->what, impl,
              want_impl);
    printf("%-48s %-4s impl \"%s\"\n", c->what, ok ? "OK" : "FAIL", impl);
    setup_free(&s);
}

/* a call the kernel refuses is refused by the backend too (never run on the reference), naming the reason */
static void backend_refusal(void *cpu, const jv_cpu_case *c, const char *want_msg) {
    setup s;
    if (!setup_case(c, &s, 1)) {
        setup_free(&s);
        return;
    }
    jv_err err;
    jv_err_clear(&err);
    char impl[192] = "";
    void *plan = NULL;
    jv_status st = jv_cpu_backend.prepare(cpu, &s.d, &s.ops, 0, &plan, impl, sizeof impl, &err);
    CHECK_MSG(st == JV_ERR_NOTFOUND && !plan && strstr(err.msg, want_msg), "%s: expected a refusal naming '%s': %d %s",
              c->what, want_msg, (int)st, err.msg);
    jv_cpu_backend.release(cpu, plan);
    printf("%-48s %-4s %s\n", c->what, st == JV_ERR_NOTFOUND ? "REFUSED" : "??", err.msg);
    setup_free(&s);
}

static void run_backend(void) {
    void *cpu = NULL;
    jv_err err;
    jv_err_clear(&err);
    CHECK_MSG(jv_cpu_backend.open(0, &cpu, &err) == JV_OK, "cpu backend: %s", err.msg);
    if (!cpu) return;
    backend_case(cpu, &CASES[0].c, "OpenMP elementwise (dense)");
    backend_case(cpu, &CASES[1].c, "OpenMP elementwise (strided)");
    for (int i = 0; i < NCASES; i++) { /* the first of each computation through the backend */
        static const char *const IMPL[] = {"OpenMP elementwise (dense, int64)", "OpenMP elementwise (dense, double)",
                                           "OpenMP elementwise (gather)"};
        static const char KIND[] = {'i', 'd', 'g'};
        for (int j = 0; j < 3; j++)
            if (CASES[i].compute == KIND[j] && CASES[i].path != 's') {
                int first = 1;
                for (int m = 0; m < i; m++)
                    first &= CASES[m].compute != KIND[j] || CASES[m].path == 's';
                if (first) backend_case(cpu, &CASES[i].c, IMPL[j]);
            }
    }
    backend_refusal(cpu, &REFUSED[0].c, "cpu backend: no CPU kernel: aten::exp_: output dtype int64");
    backend_refusal(cpu, &REFUSED[1].c, "cpu backend: no CPU kernel: aten::copy_: output dtype uint8");
    jv_cpu_backend.close(cpu);
}

/* ---- the check can fail ---- */

/* runs call `run`'s kernel over the buffers of call `ref` (same operand layout) and verifies against ref's
 * reference: returns 1 when it passes */
static int cross_check(const jv_cpu_case *run, const jv_cpu_case *ref, jv_verify *v) {
    setup a, b;
    int ok = -1;
    if (setup_case(run, &a, 0) && setup_case(ref, &b, 1)) {
        jv_err err;
        jv_err_clear(&err);
        jv_elementwise_cpu *p = NULL;
        CHECK_MSG(a.ops.n == b.ops.n, "%s vs %s: operand lists differ", run->what, ref->what);
        if (a.ops.n == b.ops.n && jv_elementwise_cpu_plan(&a.d, &a.ops, &p, &err) == JV_OK &&
            jv_elementwise_cpu_run(p, b.dev, &err) == JV_OK)
            ok = verify_all(&b, v);
        CHECK_MSG(ok >= 0, "%s vs %s: %s", run->what, ref->what, err.msg);
        jv_elementwise_cpu_free(p);
    }
    setup_free(&a);
    setup_free(&b);
    return ok;
}

static void run_wrong(void) {
    static const jv_cpu_case ADD = {"add fp32",
                                    "aten::add",
                                    "[" D2 ", " D2 ", []]",
                                    "[" FL ", " FL ", " SC "]",
                                    "[" C2 ", " C2 ", []]",
                                    CONC(NO ", " NO ", \"1\"")};
    static const jv_cpu_case ADD2 = {"add fp32 alpha 2",     "aten::add",
                                     "[" D2 ", " D2 ", []]", "[" FL ", " FL ", " SC "]",
                                     "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"2\"")};
    static const jv_cpu_case MUL = {"mul fp32",         "aten::mul",        "[" D2 ", " D2 "]",
                                    "[" FL ", " FL "]", "[" C2 ", " C2 "]", NULL};
    jv_verify v;
    int ok = cross_check(&ADD, &MUL, &v);
    CHECK_MSG(ok == 0, "add's output verified against mul's reference (%d): the check cannot fail", ok);
    printf("%-48s %-4s rel_l2 %.3g (tol %.3g): expected to fail\n", "add's output vs mul's reference (wrong)",
           ok == 0 ? "FAIL" : "OK?!", v.rel_l2, v.tol);
    ok = cross_check(&ADD2, &ADD, &v);
    CHECK_MSG(ok == 0, "add alpha 2 verified against alpha 1 (%d): the check cannot fail", ok);
    printf("%-48s %-4s rel_l2 %.3g (tol %.3g): expected to fail\n", "add alpha 2 vs add alpha 1 (wrong)",
           ok == 0 ? "FAIL" : "OK?!", v.rel_l2, v.tol);

    /* upsample: the source index by in / out (0.5 per dim) against the reference by the call's scales 1.5 and 2
     * (1 / 1.5 for the rows): the same shapes, other source rows */
    static const jv_cpu_case UPS = {"upsample_nearest2d by size", "aten::upsample_nearest2d",
                                    "[" UP_IN ", [], [], []]",    "[" FL ", \"ScalarList\", " NO ", " NO "]",
                                    "[" UP_C ", [], [], []]",     CONC(NO ", \"[18, 22]\", " NO ", " NO)};
    static const jv_cpu_case UPS15 = {"upsample_nearest2d by scales 1.5, 2",
                                      "aten::upsample_nearest2d",
                                      "[" UP_IN ", [], [], []]",
                                      "[" FL ", \"ScalarList\", " SC ", " SC "]",
                                      "[" UP_C ", [], [], []]",
                                      CONC(NO ", \"[18, 22]\", \"1.5\", \"2.0\"")};
    ok = cross_check(&UPS15, &UPS15, &v);
    CHECK_MSG(ok == 1, "upsample by scales 1.5, 2 does not verify against its own reference (%d)", ok);
    ok = cross_check(&UPS, &UPS15, &v);
    CHECK_MSG(ok == 0, "upsample by in/out verified against the reference by scale 1.5 (%d): the check cannot fail",
              ok);
    printf("%-48s %-4s rel_l2 %.3g (tol %.3g): expected to fail\n", "upsample index in/out vs 1/1.5 (wrong)",
           ok == 0 ? "FAIL" : "OK?!", v.rel_l2, v.tol);

    /* an int64 result off by one in one element */
    static const jv_cpu_case IADD = {"add int64",
                                     "aten::add",
                                     "[" D2 ", " D2 ", []]",
                                     "[" I64 ", " I64 ", " SC "]",
                                     "[" C2 ", " C2 ", []]",
                                     CONC(NO ", " NO ", \"1\"")};
    setup s;
    if (setup_case(&IADD, &s, 1)) {
        jv_err err;
        jv_err_clear(&err);
        char compute = 0;
        ok = run_kernel(&s, &compute, &err) != 0 && verify_all(&s, &v);
        CHECK_MSG(ok == 1, "add int64 does not verify before the damage: %s", err.msg);
        ((int64_t *)s.dev[s.ops.n - 1])[12345] += 1;
        ok = verify_all(&s, &v);
        CHECK_MSG(ok == 0, "an int64 result off by one verified: the check cannot fail");
        printf("%-48s %-4s max |d| %g (tol %.3g): expected to fail\n", "add int64, one element off by one (wrong)",
               ok == 0 ? "FAIL" : "OK?!", v.max_abs, v.tol);
    }
    setup_free(&s);
}

/* ---- float -> int truncates toward zero ---- */

static void test_truncation(void) {
    static const jv_cpu_case C = {"copy_ fp32 -> int32",       "aten::copy_",          "[" D2 ", " D2 ", []]",
                                  "[" I32 ", " FL ", " SC "]", "[" C2 ", " C2 ", []]", CONC(NO ", " NO ", \"False\"")};
    setup s;
    if (setup_case(&C, &s, 0)) {
        jv_err err;
        jv_err_clear(&err);
        char compute = 0;
        CHECK_MSG(run_kernel(&s, &compute, &err) != 0, "copy_ fp32 -> int32: %s", err.msg);
        const int32_t *o = s.dev[0];
        const float *x = s.dev[1];
        int64_t n = jv_tensor_numel(&s.ops.o[0].t), bad = 0, neg = 0;
        for (int64_t i = 0; i < n; i++) {
            bad += o[i] != (int32_t)truncf(x[i]);
            neg += x[i] < -1.0f && x[i] > -2.0f && o[i] == -1; /* floor would give -2 */
        }
        CHECK_MSG(bad == 0 && neg > 0, "copy_ fp32 -> int32: %lld elements not truncated toward zero, %lld in (-2, -1)",
                  (long long)bad, (long long)neg);
        printf("%-48s %-4s %lld elements, %lld of them in (-2, -1) -> -1\n", "copy_ fp32 -> int32 truncates",
               bad == 0 && neg > 0 ? "OK" : "FAIL", (long long)n, (long long)neg);
    }
    setup_free(&s);
}

/* ---- timing (information only) ---- */

static void run_timing(const char *what, const char *op, const char *dims, const char *types, const char *conc,
                       double bytes_per_elem) {
    const jv_cpu_case c = {what, op, dims, types, NULL, conc};
    setup s;
    if (!setup_case(&c, &s, 0)) {
        setup_free(&s);
        return;
    }
    jv_err err;
    jv_err_clear(&err);
    jv_elementwise_cpu *p = NULL;
    if (jv_elementwise_cpu_plan(&s.d, &s.ops, &p, &err) == JV_OK) {
        double best = 0;
        (void)jv_elementwise_cpu_run(p, s.dev, &err); /* warm-up: pages touched */
        for (int r = 0; r < 5; r++) {
            double t0 = jv_now();
            (void)jv_elementwise_cpu_run(p, s.dev, &err);
            double t = jv_now() - t0;
            if (r == 0 || t < best) best = t;
        }
        int64_t n = jv_tensor_numel(&s.ops.o[s.ops.n - 1].t);
        printf("%-48s %8.3f ms  %6.2f GB/s\n", what, best * 1e3,
               best > 0 ? bytes_per_elem * (double)n / best / 1e9 : 0);
    }
    jv_elementwise_cpu_free(p);
    setup_free(&s);
}

int main(void) {
    test_conversions();
    for (int i = 0; i < NCASES; i++)
        run_case(&CASES[i]);
    run_refusals();
    run_backend();
    run_wrong();
    test_truncation();
    printf("\ntimes (best of 5, 16M elements; information only):\n");
    run_timing("add fp32", "aten::add", "[[4096, 4096], [4096, 4096], []]", "[" FL ", " FL ", " SC "]",
               CONC(NO ", " NO ", \"1\""), 12);
    run_timing("add bf16", "aten::add", "[[4096, 4096], [4096, 4096], []]", "[" BF ", " BF ", " SC "]",
               CONC(NO ", " NO ", \"1\""), 6);
    run_timing("mul fp16 by a Scalar", "aten::mul", "[[4096, 4096], []]", "[" HF ", " SC "]", CONC(NO ", \"0.5\""), 4);
    run_timing("copy_ fp32 -> bf16", "aten::copy_", "[[4096, 4096], [4096, 4096], []]", "[" BF ", " FL ", " SC "]",
               CONC(NO ", " NO ", \"False\""), 6);
    run_timing("threshold_backward bf16", "aten::threshold_backward", "[[4096, 4096], [4096, 4096], []]",
               "[" BF ", " BF ", " SC "]", CONC(NO ", " NO ", \"0\""), 6);
    run_timing("add int64 (4M elements)", "aten::add", "[[2048, 2048], [2048, 2048], []]", "[" I64 ", " I64 ", " SC "]",
               CONC(NO ", " NO ", \"1\""), 24);
    run_timing("upsample_nearest2d bf16 x2 (4M out)", "aten::upsample_nearest2d", "[[4, 64, 64, 64], [], []]",
               "[" BF ", " NO ", \"ScalarList\"]", CONC(NO ", " NO ", \"[2.0, 2.0]\""), 2.5);
    run_timing("gelu bf16", "aten::gelu", "[[4096, 4096], []]", "[" BF ", " NO "]", CONC(NO ", \"none\""), 4);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

/* test_faults: fault injection into jarvis-replay's verification (issue 15, item 4).
 * Each case is a call in trace form (as tests/kernels/test_gpu_replay.c spells them) of a family the CPU
 * backend replays (GEMM, convolution, batch norm, elementwise unary and binary, vLLM's gated activations and RMS
 * norms, and two in-place ops: fused_add_rms_norm and rotary_embedding, whose INOUT outputs are checked again on a
 * launch from their restored inputs after the timed ones), in fp32 and bf16, with an output of 2^19 elements: big
 * enough that one damaged 8x8 tile or element is a small part of it (rel L2 of a zeroed tile ~0.011), small enough to
 * verify in full. Each case runs once on the plain CPU backend (must verify: the op is right when nothing damages it),
 * once through the wrapper with no fault (the wrapper forwards faithfully), then once per fault mode of
 * tests/backends/faulty/ (a zeroed tile, one element off by 8x the RMS, one element left unwritten, transposed, shifted
 * by one, launches after the first doing nothing): each must end JV_RES_WRONG with a reason naming the damaged operand.
 * Then all again on the sampled path (verify_max_flops 0: every op but batch norm, whose reference is full anyway,
 * checks a sample of its output; jv_sampling.h): unwritten, transposed, shifted and stale outputs must be caught there
 * too; a zeroed 8x8 tile and one element off by 8x the RMS are caught only when sampled, so their catch rate over seeds
 * is measured and held to the bound the README states, 1 - exp(-k s / N) for k damaged elements, s elements over the
 * blocks of an N-element output (three standard deviations of slack; the complete rows and columns only add). Prints
 * the matrices of mode x case, one line per run. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "jv_backends.h"
#include "jv_faulty_backend.h"
#include "jv_ir.h"
#include "jv_opcall.h"
#include "jv_runner.h"

#include "jv_check.h"
#include "jv_test_opts.h"

typedef struct {
    const char *what;
    const char *op, *dims, *types, *strides, *conc;
} fcase;

#define BF "\"c10::BFloat16\""
#define FL "\"float\""
#define CONV_TYPES(T)                                                                                                  \
    "[" T ", " T ", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"]"
#define BN_TYPES(X, P) "[" X ", " P ", " P ", " P ", " P ", \"Scalar\", \"Scalar\", \"Scalar\"]"
#define CONV_CONC      "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]"
#define BN_CONC        "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"

/* every output: 2^19 elements */
static const fcase CASES[] = {
    {"gemm mm fp32", "aten::mm", "[[512, 32], [32, 1024]]", "[" FL ", " FL "]", NULL, NULL},
    {"gemm mm bf16", "aten::mm", "[[512, 32], [32, 1024]]", "[" BF ", " BF "]", NULL, NULL},
    {"conv fp32", "aten::convolution", "[[2, 2, 128, 128], [16, 2, 3, 3], [], [], [], [], [], [], []]", CONV_TYPES(FL),
     NULL, CONV_CONC},
    {"conv bf16", "aten::convolution", "[[2, 2, 128, 128], [16, 2, 3, 3], [], [], [], [], [], [], []]", CONV_TYPES(BF),
     NULL, CONV_CONC},
    {"batchnorm train fp32", "aten::native_batch_norm", "[[4, 32, 64, 64], [32], [32], [32], [32], [], [], []]",
     BN_TYPES(FL, FL), NULL, BN_CONC},
    {"batchnorm train bf16", "aten::native_batch_norm", "[[4, 32, 64, 64], [32], [32], [32], [32], [], [], []]",
     BN_TYPES(BF, BF), NULL, BN_CONC},
    {"relu fp32", "aten::relu", "[[512, 1024]]", "[" FL "]", NULL, NULL},
    {"relu bf16", "aten::relu", "[[512, 1024]]", "[" BF "]", NULL, NULL},
    {"add fp32", "aten::add", "[[512, 1024], [512, 1024], []]", "[" FL ", " FL ", \"Scalar\"]", NULL,
     "[\"\", \"\", \"1\"]"},
    {"add bf16", "aten::add", "[[512, 1024], [512, 1024], []]", "[" BF ", " BF ", \"Scalar\"]", NULL,
     "[\"\", \"\", \"1\"]"},
    {"silu_and_mul fp32", "_C::silu_and_mul", "[[512, 1024], [512, 2048]]", "[" FL ", " FL "]", NULL, NULL},
    {"gelu_tanh_and_mul bf16", "_C::gelu_tanh_and_mul", "[[512, 1024], [512, 2048]]", "[" BF ", " BF "]", NULL, NULL},
    {"rms_norm fp32", "_C::rms_norm", "[[512, 1024], [512, 1024], [1024], []]", "[" FL ", " FL ", " FL ", \"Scalar\"]",
     NULL, "[\"\", \"\", \"\", \"1e-06\"]"},
    /* in place (INOUT outputs): fused_add_rms_norm(input, residual, weight, epsilon) and rotary_embedding(positions,
     * query, key (None), head_size, cos_sin_cache, is_neox) */
    {"fused_add_rms_norm fp32", "_C::fused_add_rms_norm", "[[512, 1024], [512, 1024], [1024], []]",
     "[" FL ", " FL ", " FL ", \"Scalar\"]", NULL, "[\"\", \"\", \"\", \"1e-06\"]"},
    {"rotary_embedding bf16", "_C::rotary_embedding", "[[512], [512, 1024], [], [], [4096, 128], []]",
     "[\"long int\", " BF ", \"\", \"Scalar\", " BF ", \"Scalar\"]", NULL,
     "[\"\", \"\", \"\", \"128\", \"\", \"True\"]"},
    {"aten::rms_norm bf16", "aten::rms_norm", "[[512, 1024], [], [1024], []]",
     "[" BF ", \"ScalarList\", " BF ", \"Scalar\"]", NULL, "[\"\", \"[1024]\", \"\", \"1e-06\"]"},
};
#define NCASES ((int)(sizeof CASES / sizeof CASES[0]))

static void fast_opts(jv_run_opts *o, const jv_device_props *p) {
    jv_test_fast_opts(o, p);
    o->timing.min_samples = 2;
    o->quiet = 1;
}

/* 1 when the reason names operand `name` (quoted, as the runner writes it) */
static int names_operand(const char *reason, const char *name) {
    char q[40];
    snprintf(q, sizeof q, "'%s'", name);
    return name[0] && strstr(reason, q) != NULL;
}

/* the caught / missed matrices: [sampled][case][mode] */
static int caught[2][NCASES][JV_FAULT_COUNT];

/* 1 when a mode is caught on the sampled path only when the sample meets the damage */
static int probabilistic(jv_fault m) {
    return m == JV_FAULT_TILE_ZERO || m == JV_FAULT_SPIKE;
}

/* one run of case c through the wrapper with fault m; returns the result status (JV_RES_ERROR when the run
 * failed), the wrapper's record in *s */
static jv_res_status run_fault(const jv_backend *be, const jv_ir_op *op, void *cpu, const jv_device_props *p,
                               const jv_run_opts *o, jv_fault m, jv_op_result *r, jv_faulty_stats *s) {
    jv_backend fb;
    void *fctx = NULL;
    jv_err err;
    jv_err_clear(&err);
    memset(s, 0, sizeof *s);
    if (jv_faulty_wrap(&fb, be, cpu, m, &fctx, &err) != JV_OK || !fctx) return JV_RES_ERROR;
    jv_status st = jv_run_op(&fb, fctx, p, o, op, r, &err);
    jv_faulty_get_stats(fctx, s);
    fb.close(fctx);
    return st == JV_OK ? r->status : JV_RES_ERROR;
}

/* 1 when a noise fault (JV_FAULT_NOISE, TF32-level error) must be caught on op call c: its damaged output is
 * fp32 and its family allows fp32 no reduced precision (jv_family.fp32_tol 0: the tolerance follows the
 * accumulation length). A bf16 output rounds the noise away; a TF32 convolution may have it legitimately. */
static int noise_caught(const jv_opcall *c) {
    jv_desc d;
    jv_operands ops;
    jv_err err;
    jv_err_clear(&err);
    memset(&d, 0, sizeof d);
    if (jv_desc_parse(c, &d, &err) != JV_OK || jv_desc_operands(&d, &ops, &err) != JV_OK) return -1;
    const jv_family *fam = jv_family_get(d.family);
    int t = -1;
    for (int i = 0; i < ops.n && t < 0; i++)
        if (ops.o[i].role == JV_ROLE_OUT) t = i;
    for (int i = 0; i < ops.n && t < 0; i++)
        if (ops.o[i].role == JV_ROLE_INOUT) t = i;
    return t >= 0 && ops.o[t].t.dtype == JV_DT_F32 && fam && fam->fp32_tol == 0;
}

static void run_case(const jv_backend *be, int ci, void *cpu, const jv_device_props *p, const jv_run_opts *o,
                     int sampled) {
    const fcase *c = &CASES[ci];
    jv_err err;
    jv_err_clear(&err);
    jv_ir_op op;
    memset(&op, 0, sizeof op);
    op.op_name = (char *)(uintptr_t)c->op; /* read only by the runner */
    op.index = ci;
    jv_status st = jv_opcall_from_trace(&op.call, c->op, c->dims, c->types, c->strides, c->conc, &err);
    CHECK_MSG(st == JV_OK, "%s: %s", c->what, err.msg);
    if (st != JV_OK) return;
    jv_op_result r;
    /* the plain CPU backend: the op verifies (sampled where asked, but for a family whose reference is full) */
    st = jv_run_op(be, cpu, p, o, &op, &r, &err);
    CHECK_MSG(st == JV_OK && r.status == JV_RES_OK, "%s: plain CPU backend: %s %s", c->what,
              jv_res_status_str(r.status), r.reason);
    const jv_family *fam = jv_family_get(r.family);
    CHECK_MSG(r.verify.sampled == (sampled && fam && !fam->reference_full), "%s: sampled %d", c->what,
              r.verify.sampled);
    printf("%-22s %-11s %-7s rel_l2 %.3g (tol %.3g), %lld checked%s", c->what, "(plain)", jv_res_status_str(r.status),
           r.verify.rel_l2, r.verify.tol, (long long)r.verify.checked, r.verify.sampled ? ", sampled:" : "\n");
    if (r.verify.sampled)
        printf(" blocks %lld x %lld%s, %lld full rows, %lld full columns\n", (long long)r.verify.block_rows,
               (long long)r.verify.block_cols, r.verify.all_blocks ? " (every one)" : " (diagonals)",
               (long long)r.verify.full_rows, (long long)r.verify.full_cols);
    for (int m = 0; m < JV_FAULT_COUNT; m++) {
        jv_backend fb;
        void *fctx = NULL;
        CHECK(jv_faulty_wrap(&fb, be, cpu, (jv_fault)m, &fctx, &err) == JV_OK);
        if (!fctx) continue;
        st = jv_run_op(&fb, fctx, p, o, &op, &r, &err);
        CHECK_MSG(st == JV_OK, "%s / %s: %s", c->what, jv_fault_name((jv_fault)m), err.msg);
        jv_faulty_stats s;
        jv_faulty_get_stats(fctx, &s);
        fb.close(fctx);
        if (m == JV_FAULT_NONE) {
            CHECK_MSG(r.status == JV_RES_OK, "%s: through the wrapper, no fault: %s %s", c->what,
                      jv_res_status_str(r.status), r.reason);
            printf("%-22s %-11s %-7s rel_l2 %.3g\n", c->what, "(wrapped)", jv_res_status_str(r.status),
                   r.verify.rel_l2);
            continue;
        }
        if (m == JV_FAULT_NOISE) { /* caught exactly where the derived tolerance says so */
            const int want = noise_caught(&op.call), ok = r.status == JV_RES_WRONG;
            caught[sampled][ci][m] = ok;
            CHECK_MSG(want >= 0 && ok == want, "%s / noise%s: %s (want %s): rel_l2 %.3g, tol %.3g", c->what,
                      sampled ? " (sampled)" : "", jv_res_status_str(r.status), want ? "caught" : "passed",
                      r.verify.rel_l2, r.verify.tol);
            printf("%-22s %-11s %-7s %-6s rel_l2 %.3g (tol %.3g)\n", c->what, jv_fault_name((jv_fault)m),
                   jv_res_status_str(r.status), ok ? "CAUGHT" : "passed", r.verify.rel_l2, r.verify.tol);
            continue;
        }
        /* the wrapper did damage the output (else a miss would be the wrapper's fault, not verification's) */
        if (m == JV_FAULT_STALE)
            CHECK_MSG(s.skipped >= 1, "%s / stale: no launch was skipped", c->what);
        else
            CHECK_MSG(s.corrupted >= 1 && s.changed > 0, "%s / %s: the wrapper changed nothing", c->what,
                      jv_fault_name((jv_fault)m));
        int ok = r.status == JV_RES_WRONG && names_operand(r.reason, s.target);
        caught[sampled][ci][m] = ok;
        if (!r.verify.sampled || !probabilistic((jv_fault)m)) /* else measured over seeds (catch_rates) */
            CHECK_MSG(ok, "%s / %s%s: not caught: %s, reason \"%s\" (damaged '%s')", c->what,
                      jv_fault_name((jv_fault)m), sampled ? " (sampled)" : "", jv_res_status_str(r.status), r.reason,
                      s.target);
        else
            CHECK_MSG(ok || r.status == JV_RES_OK, "%s / %s (sampled): %s %s", c->what, jv_fault_name((jv_fault)m),
                      jv_res_status_str(r.status), r.reason);
        printf("%-22s %-11s %-7s %-6s target '%s', %lld changed, %lld skipped, rel_l2 %.3g (tol %.3g)%s%s\n", c->what,
               jv_fault_name((jv_fault)m), jv_res_status_str(r.status), ok ? "CAUGHT" : "MISSED", s.target,
               (long long)s.changed, (long long)s.skipped, r.verify.rel_l2, r.verify.tol, r.reason[0] ? ": " : "",
               r.reason);
    }
    jv_opcall_free(&op.call);
}

/* the catch rate of the probabilistic modes on the sampled path over `seeds` seeds (data and sample) per case,
 * timing off: a zeroed tile with the default sample, one element off with a quarter of the output sampled (at
 * the default 4096 of 2^19 its rate, about 1.4 %, would take thousands of runs to measure) */
static void catch_rates(const jv_backend *be, void *cpu, const jv_device_props *p, const jv_run_opts *base, int seeds) {
    printf("\ncatch rate on the sampled path over %d seeds (bound 1 - exp(-k s / N), k the elements changed)\n", seeds);
    for (int m = 1; m < JV_FAULT_COUNT; m++) {
        if (!probabilistic((jv_fault)m)) continue;
        for (int ci = 0; ci < NCASES; ci++) {
            const fcase *c = &CASES[ci];
            jv_err err;
            jv_err_clear(&err);
            jv_ir_op op;
            memset(&op, 0, sizeof op);
            op.op_name = (char *)(uintptr_t)c->op;
            op.index = ci;
            if (jv_opcall_from_trace(&op.call, c->op, c->dims, c->types, c->strides, c->conc, &err) != JV_OK) continue;
            jv_run_opts o = *base;
            o.cache_hot = o.cache_cold = 0;
            o.verify_max_flops = 0;
            /* every output: 2^19 elements */
            const double numel = (double)(1 << 19);
            o.verify_samples = m == JV_FAULT_SPIKE ? (1 << 19) / 4 : base->verify_samples;
            int n = 0, got = 0;
            double k = 0, svals = 0;
            for (int sd = 0; sd < seeds; sd++) {
                o.seed = 0x5eed0000u + (uint64_t)sd * 7919;
                jv_op_result r;
                jv_faulty_stats fs;
                jv_res_status rs = run_fault(be, &op, cpu, p, &o, (jv_fault)m, &r, &fs);
                if (!r.verify.sampled) break; /* a family whose reference is full: not sampled */
                CHECK_MSG(rs == JV_RES_OK || rs == JV_RES_WRONG, "%s / %s seed %d: %s", c->what,
                          jv_fault_name((jv_fault)m), sd, r.reason);
                n++;
                got += rs == JV_RES_WRONG;
                k += (double)fs.changed;
                svals += (double)r.verify.samples; /* fewer than asked where the reference is costly */
            }
            jv_opcall_free(&op.call);
            if (n == 0) continue;
            k /= n;
            svals /= n;
            double b = 1 - exp(-k * svals / numel), need = n * b - 3 * sqrt(n * b * (1 - b));
            printf("%-22s %-11s s %-7.0f k %-5.1f caught %3d of %3d = %5.1f %% (bound %5.1f %%)\n", c->what,
                   jv_fault_name((jv_fault)m), svals, k, got, n, 100.0 * got / n, 100 * b);
            CHECK_MSG(got >= need, "%s / %s: caught %d of %d on the sampled path, under the bound %.1f %% (%.1f)",
                      c->what, jv_fault_name((jv_fault)m), got, n, 100 * b, need);
        }
    }
}

/* usage: test_faults [BACKEND] (default cpu; a GPU backend runs on device 0, exit 77 when it has none) */
int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "cpu";
    const jv_backend_entry *e = jv_backends_find(name);
    if (!e || !e->be) {
        fprintf(stderr, "test_faults: no %s backend in this build\n", name);
        return e ? 77 : 2;
    }
    const jv_backend *be = e->be;
    void *cpu = NULL; /* the wrapped backend's context */
    jv_err err;
    jv_err_clear(&err);
    if (be->open(0, &cpu, &err) != JV_OK) {
        fprintf(stderr, "test_faults: %s backend: %s\n", name, err.msg);
        return e->kind == JV_BACKEND_GPU ? 77 : 1;
    }
    jv_device_props p;
    CHECK(be->props(cpu, &p, &err) == JV_OK);
    jv_run_opts o;
    fast_opts(&o, &p);

    /* the wrapper refuses a mode out of range and cannot be opened by itself */
    jv_backend fb;
    void *fctx = NULL;
    CHECK(jv_faulty_wrap(&fb, be, cpu, JV_FAULT_COUNT, &fctx, &err) == JV_ERR_USAGE && !fctx);
    jv_err_clear(&err);
    CHECK(jv_faulty_wrap(&fb, be, cpu, JV_FAULT_SPIKE, &fctx, &err) == JV_OK && fctx);
    void *other = NULL;
    CHECK(fb.open(0, &other, &err) == JV_ERR_NOTFOUND && !other && fb.graph_time == NULL);
    fb.close(fctx);

    for (int i = 0; i < NCASES; i++)
        run_case(be, i, cpu, &p, &o, 0);
    /* the sampled path: every output but batch norm's checked on a sample (jv_sampling.h) */
    jv_run_opts so = o;
    so.verify_max_flops = 0;
    printf("\nsampled verification\n");
    for (int i = 0; i < NCASES; i++)
        run_case(be, i, cpu, &p, &so, 1);
    catch_rates(be, cpu, &p, &o, 31);
    be->close(cpu);

    for (int sp = 0; sp < 2; sp++) {
        printf("\ncaught (1) / missed (0)%s: case x mode\n%-22s", sp ? ", sampled (tile-zero, spike: one seed)" : "",
               "");
        for (int m = 1; m < JV_FAULT_COUNT; m++)
            printf(" %-11s", jv_fault_name((jv_fault)m));
        printf("\n");
        for (int i = 0; i < NCASES; i++) {
            printf("%-22s", CASES[i].what);
            for (int m = 1; m < JV_FAULT_COUNT; m++)
                printf(" %-11d", caught[sp][i][m]);
            printf("\n");
        }
    }
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

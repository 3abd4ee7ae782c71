/* test_replay_runner: the replay runner on the CPU backend: verification
 * catches wrong, unwritten and NaN outputs (a test backend corrupts the CPU
 * backend's results), sampled verification, size refusals, timing
 * statistics, the baseline suite, verdicts, and the Google Benchmark JSON.
 * Timing against a fake device (cold flushes, graph rule, clocks under load,
 * sticky errors): test_replay_timing.c. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "jv_baseline.h"
#include "jv_ir.h"
#include "jv_replay_out.h"
#include "jv_runner.h"
#include "jv_verdict.h"

#include "jv_check.h"
#include "jv_test_opts.h"

/* ---- test backends: the CPU backend with a fault after each run ---- */
typedef enum { FAULT_NONE, FAULT_VALUE, FAULT_UNWRITTEN, FAULT_NAN } fault;

static jv_status launch_fault(const jv_desc *d, const jv_operands *ops, void *const *bufs, jv_err *err, fault f) {
    JV_CHECK(jv_desc_reference(d, ops, bufs, NULL, err));
    for (int i = 0; i < ops->n; i++) {
        if (ops->o[i].role == JV_ROLE_IN) continue;
        int64_t off = jv_tensor_offset_at(&ops->o[i].t, jv_tensor_numel(&ops->o[i].t) / 2);
        size_t es = jv_dtype_size(ops->o[i].t.dtype);
        if (f == FAULT_VALUE)
            jv_dtype_store(ops->o[i].t.dtype, bufs[i], off, jv_dtype_load(ops->o[i].t.dtype, bufs[i], off) + 1.0);
        if (f == FAULT_UNWRITTEN) memset((char *)bufs[i] + (size_t)off * es, 0xFF, es);
        if (f == FAULT_NAN) jv_dtype_store(ops->o[i].t.dtype, bufs[i], off, NAN);
        break;
    }
    return JV_OK;
}
static jv_status launch_value(void *c, void *p, const jv_desc *d, const jv_operands *o, void *const *b, jv_err *e) {
    (void)c, (void)p;
    return launch_fault(d, o, b, e, FAULT_VALUE);
}
static jv_status launch_unwritten(void *c, void *p, const jv_desc *d, const jv_operands *o, void *const *b, jv_err *e) {
    (void)c, (void)p;
    return launch_fault(d, o, b, e, FAULT_UNWRITTEN);
}
static jv_status launch_nan(void *c, void *p, const jv_desc *d, const jv_operands *o, void *const *b, jv_err *e) {
    (void)c, (void)p;
    return launch_fault(d, o, b, e, FAULT_NAN);
}
/* the CPU reference as a test backend's launch (the CPU backend never times it) */
static jv_status launch_reference(void *c, void *p, const jv_desc *d, const jv_operands *o, void *const *b, jv_err *e) {
    (void)c, (void)p;
    return launch_fault(d, o, b, e, FAULT_NONE);
}
#ifndef JV_HAVE_DNNL
/* without oneDNN the CPU backend refuses mm: one implementation, the reference, stands in */
static jv_status prepare_reference(void *ctx, const jv_desc *d, const jv_operands *ops, int variant, void **plan,
                                   char *impl, size_t cap, jv_err *err) {
    (void)ctx, (void)d, (void)ops;
    *plan = NULL;
    if (variant > 0) JV_FAIL(err, JV_ERR_NOTFOUND, "no variant %d", variant);
    snprintf(impl, cap, "test reference");
    return JV_OK;
}
#endif

/* a backend offering two implementations of every op (both the CPU reference) */
static jv_status prepare_two(void *ctx, const jv_desc *d, const jv_operands *ops, int variant, void **plan, char *impl,
                             size_t cap, jv_err *err) {
    (void)ctx, (void)d, (void)ops;
    *plan = NULL;
    if (variant > 1) JV_FAIL(err, JV_ERR_NOTFOUND, "no variant %d", variant);
    snprintf(impl, cap, "impl %d", variant);
    return JV_OK;
}

static const char MM_IR[] =
    "[{\"op_name\": \"aten::mm\", \"replay_ir\": {\"list_pos_args\": ["
    "{\"arg_name\": \"self\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [16, 8], \"dtype\": \"float\", "
    "\"strides\": [8, 1], \"init\": \"normal\"}},"
    "{\"arg_name\": \"mat2\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [8, 4], \"dtype\": \"float\", "
    "\"strides\": [1, 8], \"init\": \"normal\"}}], \"list_kwargs\": []},"
    " \"jarvis\": {\"count\": 3, \"kernel_time_median_us\": 5.0, \"kernel_time_total_us\": 15.0,"
    " \"kernels\": [\"Cijk_gemm\", \"batched_transpose_32x32\"], \"category\": \"GEMM\", \"ex_uid\": 42}},"
    " {\"op_name\": \"aten::add\", \"replay_ir\": {\"list_pos_args\": ["
    "{\"arg_name\": \"self\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [1048576, 1048576], \"dtype\": "
    "\"float\", \"strides\": [1048576, 1], \"init\": \"normal\"}},"
    "{\"arg_name\": \"other\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [1048576, 1048576], \"dtype\": "
    "\"float\", \"strides\": [1048576, 1], \"init\": \"normal\"}}],"
    " \"list_kwargs\": [{\"arg_name\": \"alpha\", \"arg_type\": \"Scalar\", \"value\": 1}]}}]";

static void test_runner(const jv_ir *ir) {
    jv_backend base = jv_cpu_backend;
#ifndef JV_HAVE_DNNL
    base.prepare = prepare_reference;
    base.launch = launch_reference;
#endif
    const jv_backend *be = &base;
    void *ctx;
    jv_err err = {0};
    CHECK(be->open(0, &ctx, &err) == JV_OK);
    jv_device_props p;
    CHECK(be->props(ctx, &p, &err) == JV_OK && !strcmp(p.backend, "cpu") && p.memory_bytes > 0);
    /* the launch cost is measured at open: a call through a function pointer, well under a microsecond */
    CHECK(p.launch_us > 0 && p.launch_us < 1 && p.host_launch_us == p.launch_us && p.launch_us != 0.05);
    CHECK(be->flush_cache && be->flush_cache(ctx, &err) == JV_OK);
    jv_run_opts o;
    jv_test_fast_opts(&o, &p);
    jv_op_result r;
    CHECK(jv_run_op(be, ctx, &p, &o, &ir->ops[0], &r, &err) == JV_OK);
    CHECK(r.status == JV_RES_OK && r.verify.done && !r.verify.sampled && r.verify.checked == 64);
    /* the op ran on oneDNN (where built with it): an independent implementation, checked within fp32's bound */
    CHECK(r.verify.rel_l2 <= jv_verify_tol(JV_DT_F32) && r.verify.unwritten == 0 && r.verify.sum_abs_dev > 0 &&
          fabs(r.verify.sum_abs_dev - r.verify.sum_abs_ref) <= 1e-3 * r.verify.sum_abs_ref);
    CHECK(r.hot.samples >= 1 && r.hot.median_s > 0 && r.hot.min_s <= r.hot.median_s && r.hot.median_s <= r.hot.max_s);
    CHECK(r.cold.samples >= 1 && r.cold.sets >= 2 && r.cold.cold && !r.hot.cold);
    CHECK(r.cold.flushed && r.cold.note[0] == 0 && r.cold.max_runs_per_sample <= r.cold.sets); /* flushed */
    CHECK(r.hot.host_s > 0 && r.graph_s == 0 && r.graph_why[0] == 0); /* no graphs on the CPU */
    CHECK(r.perf.flops == 2.0 * 16 * 8 * 4 && r.traced_count == 3 && r.traced_median_us == 5.0 && r.ex_uid == 42);
    CHECK(strstr(r.label, "aten::mm fp32[16,8] fp32[8,4]T") == r.label);
#ifdef JV_HAVE_DNNL
    CHECK(!strcmp(r.impl, "oneDNN matmul") && r.verify.rel_l2 > 0);
#else
    CHECK(!strcmp(r.impl, "test reference"));
#endif

    /* sampled verification */
    jv_run_opts so = o;
    so.verify_max_flops = 0;
    so.verify_samples = 10;
    so.verify_lines = 0; /* 10 over the blocks, the first and the last element (jv_sampling.h) */
    CHECK(jv_run_op(be, ctx, &p, &so, &ir->ops[0], &r, &err) == JV_OK);
    CHECK(r.status == JV_RES_OK && r.verify.sampled && r.verify.checked >= 10 && r.verify.checked <= 12);

    /* --max-bytes and a device too small */
    jv_run_opts mo = o;
    mo.max_bytes = 256;
    CHECK(jv_run_op(be, ctx, &p, &mo, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_SKIPPED &&
          strstr(r.reason, "--max-bytes"));
    CHECK(jv_run_op(be, ctx, &p, &o, &ir->ops[1], &r, &err) == JV_OK && r.status == JV_RES_REFUSED &&
          strstr(r.reason, "free"));

    /* --iterations: exactly K launches */
    jv_run_opts io = o;
    io.timing.iterations = 3;
    io.cache_cold = 0;
    CHECK(jv_run_op(be, ctx, &p, &io, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_OK);
    CHECK(r.hot.runs == 3 && r.hot.samples == 3 && r.cold.samples == 0);

    /* implementations: one on the CPU, two on a backend that offers two; the result names the one that ran */
    CHECK(jv_op_variants(be, ctx, &ir->ops[0]) == 1);
    jv_backend two = *be;
    two.prepare = prepare_two;
    two.launch = launch_reference;
    CHECK(jv_op_variants(&two, ctx, &ir->ops[0]) == 2);
    jv_run_opts vo = o;
    vo.variant = 1;
    CHECK(jv_run_op(&two, ctx, &p, &vo, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_OK && r.variant == 1 &&
          !strcmp(r.impl, "impl 1"));
    vo.variant = 2;
    CHECK(jv_run_op(&two, ctx, &p, &vo, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_SKIPPED &&
          strstr(r.reason, "no variant 2"));

    /* faults are caught */
    jv_backend bad = *be;
    bad.launch = launch_value;
    CHECK(jv_run_op(&bad, ctx, &p, &o, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_WRONG);
    CHECK(r.verify.rel_l2 > r.verify.tol && strstr(r.reason, "rel L2"));
    bad.launch = launch_unwritten;
    CHECK(jv_run_op(&bad, ctx, &p, &o, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_WRONG);
    CHECK(r.verify.unwritten == 1);
    bad.launch = launch_nan;
    CHECK(jv_run_op(&bad, ctx, &p, &o, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_WRONG);
    CHECK(r.verify.nan == 1);
    be->close(ctx);
}

static void test_verify(void) {
    jv_operand o;
    memset(&o, 0, sizeof o);
    snprintf(o.name, sizeof o.name, "out");
    o.t.ndim = 1;
    o.t.shape[0] = 4;
    o.t.strides[0] = 2; /* every other element */
    o.t.has_strides = 1;
    o.t.dtype = JV_DT_BF16;
    uint16_t ref[8], dev[8];
    memset(dev, 0xFF, sizeof dev);
    for (int i = 0; i < 8; i++)
        ref[i] = jv_f32_to_bf16((float)(i + 1));
    for (int i = 0; i < 8; i += 2)
        dev[i] = ref[i];
    jv_verify v;
    memset(&v, 0, sizeof v);
    CHECK(jv_verify_output(&o, dev, ref, NULL, 0, &v) && v.checked == 4 && v.rel_l2 == 0); /* gaps not checked */
    CHECK(v.sum_abs_ref == 1 + 3 + 5 + 7);
    dev[2] = jv_f32_to_bf16(3.0f * 1.0078125f); /* one bf16 ulp off on one element: within tolerance */
    memset(&v, 0, sizeof v);
    CHECK(jv_verify_output(&o, dev, ref, NULL, 0, &v) && v.rel_l2 > 0 && v.rel_l2 < jv_verify_tol(JV_DT_BF16));
    dev[2] = jv_f32_to_bf16(4.0f);
    memset(&v, 0, sizeof v);
    CHECK(!jv_verify_output(&o, dev, ref, NULL, 0, &v) && fabs(v.max_abs - 1.0) < 1e-12);
    int64_t idx[2] = {0, 3};
    memset(&v, 0, sizeof v);
    CHECK(jv_verify_output(&o, dev, ref, idx, 2, &v) && v.checked == 2); /* the wrong element is not sampled */
    CHECK(jv_verify_tol(JV_DT_F32) < jv_verify_tol(JV_DT_F16) && jv_verify_tol(JV_DT_F16) < jv_verify_tol(JV_DT_BF16));
    CHECK(jv_verify_tol(JV_DT_BOOL) == 0);
    /* derived from the accumulation length: 8 ulps of the accumulation type times sqrt(K), over the floors */
    CHECK(jv_verify_tol_for(JV_DT_F32, 1, 0) == 1e-5 && jv_verify_tol_for(JV_DT_F32, 0, 0) == 1e-5);
    CHECK(fabs(jv_verify_tol_for(JV_DT_F32, 1 << 20, 0) - 8 * 0x1p-24 * 1024) < 1e-12); /* 4.9e-4 */
    CHECK(jv_verify_tol_for(JV_DT_F32, 1 << 20, 1e-3) == 1e-3); /* a family's allowance (TF32) is used as is */
    CHECK(jv_verify_tol_for(JV_DT_BF16, 4096, 0) == jv_verify_tol(JV_DT_BF16)); /* output rounding dominates */
    CHECK(jv_verify_tol_for(JV_DT_F16, 1e12, 0) > jv_verify_tol(JV_DT_F16));
    CHECK(jv_verify_tol_for(JV_DT_BOOL, 4096, 0) == 0);
}

/* One 1024x1024 output with realistic device noise passes; each corruption fails, even those whose relative
 * L2 error over the whole output stays within the dtype's tolerance (bf16: a zeroed 8x8 tile, one element off
 * by 8x the RMS), and a transposed, shifted or partly unwritten output. */
static void test_verify_faults(void) {
    const int R = 1024, C = 1024, N = R * C;
    jv_dtype dts[2] = {JV_DT_BF16, JV_DT_F32};
    for (int q = 0; q < 2; q++) {
        jv_dtype dt = dts[q];
        size_t es = jv_dtype_size(dt);
        jv_operand o;
        memset(&o, 0, sizeof o);
        snprintf(o.name, sizeof o.name, "out");
        o.t.ndim = 2;
        o.t.shape[0] = R, o.t.shape[1] = C;
        o.t.strides[0] = C, o.t.strides[1] = 1;
        o.t.has_strides = 1;
        o.t.dtype = dt;
        unsigned char *ref = malloc((size_t)N * es), *good = malloc((size_t)N * es), *dev = malloc((size_t)N * es);
        double *noise = malloc((size_t)N * sizeof *noise);
        CHECK(ref && good && dev && noise);
        if (!ref || !good || !dev || !noise) goto next;
        jv_fill_host(ref, dt, N, JV_INIT_NORMAL, 11);
        jv_fill_host(noise, JV_DT_F64, N, JV_INIT_NORMAL, 12);
        double tol = jv_verify_tol_for(dt, 1, 0); /* no accumulation, no family allowance */
        for (int i = 0; i < N; i++)               /* a device result: the reference with a relative error of tol / 8 */
            jv_dtype_store(dt, good, i, jv_dtype_load(dt, ref, i) * (1 + tol / 8 * noise[i]));
        jv_verify v;
        memset(&v, 0, sizeof v);
        CHECK(jv_verify_output(&o, good, ref, NULL, 0, &v) && v.rel_l2 > 0 && v.elem_bad == 0 && v.block_bad == 0);
        double rms = 0;
        for (int i = 0; i < N; i++)
            rms += jv_dtype_load(dt, ref, i) * jv_dtype_load(dt, ref, i);
        rms = sqrt(rms / N);
        for (int f = 0; f < 5; f++) {
            memcpy(dev, good, (size_t)N * es);
            if (f == 0) { /* an 8x8 tile zeroed */
                for (int r = 40; r < 48; r++)
                    for (int c = 40; c < 48; c++)
                        jv_dtype_store(dt, dev, r * C + c, 0);
            } else if (f == 1) { /* one element off by 8x the RMS */
                jv_dtype_store(dt, dev, 777, jv_dtype_load(dt, good, 777) + 8 * rms);
            } else if (f == 2) { /* one element unwritten */
                memset(dev + 4321 * es, 0xFF, es);
            } else if (f == 3) { /* transposed */
                for (int r = 0; r < R; r++)
                    for (int c = 0; c < C; c++)
                        jv_dtype_store(dt, dev, r * C + c, jv_dtype_load(dt, good, c * C + r));
            } else { /* shifted by one element */
                for (int i = 0; i < N; i++)
                    jv_dtype_store(dt, dev, i, jv_dtype_load(dt, good, (i + 1) % N));
            }
            memset(&v, 0, sizeof v);
            int ok = jv_verify_output(&o, dev, ref, NULL, 0, &v);
            CHECK(!ok && v.failed_output && !strcmp(v.worst, "out"));
            if (ok) printf("  fault %d on %s passed verification\n", f, jv_dtype_short(dt));
            if (f <= 1 && dt == JV_DT_BF16) /* the relative L2 error alone would have let these through */
                CHECK(v.rel_l2 <= tol && (v.elem_bad > 0 || v.block_bad > 0));
        }
    next:
        free(ref);
        free(good);
        free(dev);
        free(noise);
    }
}

static void test_stats(void) {
    double s[5] = {5, 1, 4, 2, 3}, med, mean, rsd;
    jv_timing_stats(s, 5, &med, &mean, &rsd);
    CHECK(med == 3 && mean == 3 && fabs(rsd - sqrt(2.5) / 3) < 1e-12 && s[0] == 1 && s[4] == 5);
    double e[4] = {2, 2, 4, 4};
    jv_timing_stats(e, 4, &med, &mean, &rsd);
    CHECK(med == 3 && mean == 3);
    /* the same seed fills the same values; normal data has mean ~0 and variance ~1 */
    float a[4096], b[4096];
    jv_fill_host(a, JV_DT_F32, 4096, JV_INIT_NORMAL, 7);
    jv_fill_host(b, JV_DT_F32, 4096, JV_INIT_NORMAL, 7);
    CHECK(!memcmp(a, b, sizeof a));
    double m = 0, q = 0;
    for (int i = 0; i < 4096; i++)
        m += a[i], q += (double)a[i] * a[i];
    m /= 4096, q = q / 4096 - m * m;
    CHECK(fabs(m) < 0.06 && fabs(q - 1) < 0.08);
    jv_fill_host(b, JV_DT_F32, 4096, JV_INIT_POSITIVE, 8);
    int in = 1;
    for (int i = 0; i < 4096; i++)
        in &= b[i] >= 0.5f && b[i] <= 1.5f;
    CHECK(in);
}

static uint64_t fnv1a(const void *p, size_t n) {
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* The fill is split into chunks that may run in parallel: the values must be those of the serial generator
 * that came before it (the digests were taken from that serial loop, 2026-11-26), across chunk seams and an
 * odd tail, for every init pattern. */
static void test_fill_chunks(void) {
    const int64_t n = 3 * 1048576 + 12345;
    float *f = malloc((size_t)n * 4);
    uint16_t *h = malloc((size_t)n * 2);
    uint8_t *m = malloc((size_t)n);
    CHECK(f && h && m);
    if (!f || !h || !m) goto done;
    jv_fill_host(f, JV_DT_F32, n, JV_INIT_NORMAL, 20261121);
    CHECK(fnv1a(f, (size_t)n * 4) == 0x7197522e0c0bbf71ull);
    jv_fill_host(h, JV_DT_BF16, n, JV_INIT_NORMAL, 99);
    CHECK(fnv1a(h, (size_t)n * 2) == 0x6b8d37e7427b6faaull);
    jv_fill_host(f, JV_DT_F32, n, JV_INIT_POSITIVE, 5);
    CHECK(fnv1a(f, (size_t)n * 4) == 0xc03d9211d682f2e4ull);
    jv_fill_host(m, JV_DT_BOOL, n, JV_INIT_MASK, 6);
    CHECK(fnv1a(m, (size_t)n) == 0xa13775b7a0eb0abbull);
done:
    free(f);
    free(h);
    free(m);
}

static void test_baseline_and_verdict(const jv_ir *ir) {
    const jv_backend *be = &jv_cpu_backend;
    void *ctx;
    jv_err err = {0};
    void *none = NULL;
    CHECK(be->open(1, &none, &err) == JV_ERR_NOTFOUND && strstr(err.msg, "device 1") && !none);
    CHECK(be->open(0, &ctx, &err) == JV_OK);
    jv_device_props p;
    be->props(ctx, &p, &err);
    jv_run_opts o;
    jv_test_fast_opts(&o, &p);
    static jv_baseline b;
    CHECK(jv_baseline_run(be, ctx, &p, &o, 4 << 20, 32, JV_DT_F32, &b, &err) == JV_OK);
    CHECK(b.done && b.n == (4 << 20) / 4);
    double best = 0;
    for (int k = 0; k < JV_BASE_COUNT; k++) {
        CHECK(b.verified[k] && b.bw[k] > 0 && b.t[k].samples > 0);
        if (k != JV_BASE_DOT && b.bw[k] > best) best = b.bw[k];
    }
    CHECK(b.bw_ceiling == best && b.bytes[JV_BASE_TRIAD] == 3.0 * 4 * b.n && b.bytes[JV_BASE_COPY] == 2.0 * 4 * b.n);
    CHECK(b.gemm_done && b.gemm.status == JV_RES_OK && b.flops_ceiling > 0 && b.gemm.perf.flops == 2.0 * 32 * 32 * 32);

    /* verdicts on a synthetic result against these ceilings */
    jv_op_result r;
    memset(&r, 0, sizeof r);
    r.status = JV_RES_OK;
    r.perf.bytes = 1e9;
    r.perf.flops = 1; /* memory-bound whatever the measured GEMM ceiling (tiny, on a loaded machine) */
    r.perf.dtype = JV_DT_F32;
    r.hot.samples = 3;
    r.hot.median_s = r.perf.bytes / b.bw_ceiling / 0.8; /* 80 % of the ceiling */
    jv_verdict v;
    jv_verdict_of(&r, &b, NULL, &p, &v);
    CHECK(v.kind == JV_JUDGE_NEAR && fabs(v.eff - 0.8) < 1e-9 && !strcmp(v.limiter, "memory"));
    r.hot.median_s *= 8; /* 10 % */
    jv_verdict_of(&r, &b, NULL, &p, &v);
    CHECK(v.kind == JV_JUDGE_KERNEL && fabs(v.eff - 0.1) < 1e-9);
    r.hot.median_s /= 4; /* 40 %: below peak (was kernel issue before one rule set served analysis and replay) */
    jv_verdict_of(&r, &b, NULL, &p, &v);
    CHECK(v.kind == JV_JUDGE_BELOW && fabs(v.eff - 0.4) < 1e-9);
    r.hot.median_s *= 4;
    snprintf(r.traced_kernels, sizeof r.traced_kernels, "Cijk_conv; batched_transpose_32x32");
    jv_verdict_of(&r, &b, NULL, &p, &v);
    CHECK(v.kind == JV_JUDGE_LAYOUT);
    r.perf.bytes = 8;
    r.perf.flops = 1;
    r.hot.median_s = 1e-6; /* 1 us for 8 bytes on a device whose launch costs 2 us: launch-bound */
    jv_device_props lp = p;
    lp.launch_us = 2.0;
    jv_verdict_of(&r, &b, NULL, &lp, &v);
    CHECK(v.kind == JV_JUDGE_LAUNCH && strstr(v.why, "(2.00 us)"));
    jv_verdict_of(&r, &b, NULL, &p, &v); /* the CPU's measured call cost is far below 1 us: not launch-bound */
    CHECK(v.kind != JV_JUDGE_LAUNCH);
    r.status = JV_RES_WRONG;
    jv_verdict_of(&r, &b, NULL, &p, &v);
    CHECK(v.kind == JV_JUDGE_NONE);

    /* Google Benchmark JSON of a run: context and one entry per kernel and op / cache mode */
    jv_op_result res[2];
    jv_verdict ver[2];
    CHECK(jv_run_op(be, ctx, &p, &o, &ir->ops[0], &res[0], &err) == JV_OK);
    CHECK(jv_run_op(be, ctx, &p, &o, &ir->ops[1], &res[1], &err) == JV_OK);
    for (int i = 0; i < 2; i++)
        jv_verdict_of(&res[i], &b, NULL, &p, &ver[i]);
    jv_replay_run run;
    memset(&run, 0, sizeof run);
    run.package = "test.json";
    run.executable = "test_replay_runner";
    run.props = p;
    run.base = &b;
    run.res = res;
    run.ver = ver;
    run.n = 2;
    run.opts = &o;
    snprintf(run.date, sizeof run.date, "2026-11-21T00:00:00+0000");
    char dir[] = "/tmp/jv_runner_XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/b.json", dir);
    CHECK(jv_out_gbench(path, 0, &run, &err) == JV_OK);
    FILE *f = fopen(path, "rb");
    char *text = calloc(1, 1 << 20);
    size_t n = f ? fread(text, 1, (1 << 20) - 1, f) : 0;
    if (f) fclose(f);
    cJSON *doc = cJSON_Parse(text);
    CHECK(doc && n > 0);
    const cJSON *ctxj = cJSON_GetObjectItem(doc, "context");
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(ctxj, "backend")), "cpu"));
    /* the measured launch costs, not a constant */
    const cJSON *lj = cJSON_GetObjectItem(ctxj, "launch_us"), *hj = cJSON_GetObjectItem(ctxj, "host_launch_us");
    CHECK(lj && fabs(lj->valuedouble - p.launch_us) <= 1e-12 * p.launch_us); /* 15 significant digits */
    CHECK(hj && fabs(hj->valuedouble - p.host_launch_us) <= 1e-12 * p.host_launch_us);
    const cJSON *bm = cJSON_GetObjectItem(doc, "benchmarks");
    /* 5 kernels, the GEMM ceiling (and the measured bf16 one where oneDNN ran both), mm hot + cold, the refused
     * add */
    const int alt = b.gemm_alt_done;
    CHECK(cJSON_GetArraySize(bm) == JV_BASE_COUNT + 1 + alt + 2 + 1);
    if (alt)
        CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(bm, JV_BASE_COUNT + 1), "name")),
                      "baseline/gemm/bf16/32"));
    const cJSON *gemm = cJSON_GetArrayItem(bm, JV_BASE_COUNT);
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(gemm, "name")), "baseline/gemm/fp32/32") &&
          cJSON_GetObjectItem(gemm, "verified")->valuedouble == 1 &&
          fabs(cJSON_GetObjectItem(gemm, "items_per_second")->valuedouble - b.flops_ceiling) < 1e-6 * b.flops_ceiling);
    const cJSON *mmhot = cJSON_GetArrayItem(bm, JV_BASE_COUNT + 1 + alt);
    CHECK(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(mmhot, "name")), "/hot") != NULL);
    /* the verdict judged the cold figure: the cold entry says so, the hot one does not */
    const cJSON *mmcold = cJSON_GetArrayItem(bm, JV_BASE_COUNT + 2 + alt);
    CHECK(!cJSON_GetObjectItem(mmhot, "judged_figure") &&
          !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(mmcold, "judged_figure")), "cold") &&
          cJSON_GetObjectItem(mmcold, "cache_flushed")->valuedouble == 1);
    CHECK(cJSON_GetObjectItem(mmhot, "real_time")->valuedouble > 0 &&
          cJSON_GetObjectItem(mmhot, "verified")->valuedouble == 1 &&
          cJSON_GetObjectItem(mmhot, "traced_us")->valuedouble == 5.0);
    CHECK(fabs(cJSON_GetObjectItem(mmhot, "items_per_second")->valuedouble -
               1024.0 / (cJSON_GetObjectItem(mmhot, "real_time")->valuedouble * 1e-6)) <
          1e-6 * 1024.0 / (cJSON_GetObjectItem(mmhot, "real_time")->valuedouble * 1e-6));
    const cJSON *refused = cJSON_GetArrayItem(bm, JV_BASE_COUNT + 3 + alt);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(refused, "error_occurred")) &&
          cJSON_GetObjectItem(refused, "iterations")->valuedouble == 0 &&
          cJSON_GetObjectItem(refused, "real_time")->valuedouble == 0);
    cJSON_Delete(doc);
    free(text);
    unlink(path);
    rmdir(dir);
    be->close(ctx);
}

int main(void) {
    jv_ir ir = {0};
    jv_err err = {0};
    if (jv_ir_parse(MM_IR, strlen(MM_IR), "test", &ir, &err) != JV_OK) {
        fprintf(stderr, "IR: %s\n", err.msg);
        return 1;
    }
    test_verify();
    test_verify_faults();
    test_stats();
    test_fill_chunks();
    test_runner(&ir);
    test_baseline_and_verdict(&ir);
    jv_ir_free(&ir);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

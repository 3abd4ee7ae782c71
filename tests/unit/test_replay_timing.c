/* test_replay_timing: how the runner measures, against a fake device: the
 * CPU backend's memory and references behind a device whose timer reports a
 * configured time per run, whose launch cost is configured, which counts
 * cache flushes, runs per timed sample and clock reads under load, and which
 * can turn unusable (JV_ERR_DEVICE) at its k-th launch. Checks: a flush before
 * every cold sample and never inside a timed region, a hold after it where the
 * backend has one (a host-bound op's cold samples then time the device), at most one run per
 * operand set in a flushed sample, the note without flush_cache, the graph
 * rule, the verdict's figure and where it is shown, throttling judged under
 * load, and a sticky device error stopping the op loop (jv_session). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "jv_ir.h"
#include "jv_progress.h"
#include "jv_replay_out.h"
#include "jv_runner.h"
#include "jv_session.h"
#include "jv_verdict.h"

#include "jv_check.h"
#include "jv_test_opts.h"

/* ---- the fake device ---- */

typedef struct {
    void *cpu; /* the CPU backend's context: memory and the references */
    /* configuration */
    double dev_s;     /* device seconds per run its timer reports (at least the real elapsed time) */
    double host_us;   /* host time a timed launch spends queueing (a spin) */
    double launch_us; /* the launch cost props report */
    int fail_at;      /* > 0: launch number fail_at (1-based) makes the context unusable */
    int dead;         /* 1: unusable: every call returns JV_ERR_DEVICE */
    double sm_idle, sm_load, sm_max;
    unsigned reasons_load, reasons_idle;
    /* counters */
    int launches, calls_dead;     /* calls while dead (after the one that failed) */
    int timing, in_graph, queued; /* queued: runs since the last synchronization */
    int64_t runs_in_region;
    double t0;
    int flushes, flush_in_region, fresh; /* fresh: flushed since the last timer_stop */
    int flushed_samples, max_runs_flushed, dup_sets;
    const void *seen[512];
    int nseen;
    int clocks_busy, clocks_idle, graph_calls;
    double held_s;                                 /* hold seconds queued since the last timer_stop */
    int holds, holds_after_flush, holds_in_region; /* hold calls; after a flush (before its timer); inside one */
} fake;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define DEAD_CHECK(f, err)                                                                                             \
    do {                                                                                                               \
        if ((f)->dead) {                                                                                               \
            (f)->calls_dead++;                                                                                         \
            JV_FAIL(err, JV_ERR_DEVICE, "fake device: unusable after an illegal memory access");                       \
        }                                                                                                              \
    } while (0)

static jv_status f_open(int device, void **ctx, jv_err *err) {
    fake *f = calloc(1, sizeof *f);
    if (!f) JV_FAIL(err, JV_ERR_NOMEM, "fake: out of memory");
    jv_status st = jv_cpu_backend.open(device, &f->cpu, err);
    if (st != JV_OK)
        free(f);
    else
        *ctx = f;
    return st;
}
static void f_close(void *ctx) {
    fake *f = ctx;
    if (f) jv_cpu_backend.close(f->cpu);
    free(f);
}
static jv_status f_props(void *ctx, jv_device_props *p, jv_err *err) {
    fake *f = ctx;
    JV_CHECK(jv_cpu_backend.props(f->cpu, p, err));
    snprintf(p->name, sizeof p->name, "fake GPU");
    p->launch_us = p->host_launch_us = f->launch_us;
    return JV_OK;
}
static jv_status f_alloc(void *ctx, size_t bytes, void **dptr, jv_err *err) {
    fake *f = ctx;
    DEAD_CHECK(f, err);
    return jv_cpu_backend.alloc(f->cpu, bytes, dptr, err);
}
static void f_free(void *ctx, void *dptr) {
    jv_cpu_backend.free(((fake *)ctx)->cpu, dptr);
}
static jv_status f_copy(void *ctx, void *dst, const void *src, size_t bytes, jv_err *err) {
    fake *f = ctx;
    DEAD_CHECK(f, err);
    return jv_cpu_backend.upload(f->cpu, dst, src, bytes, err);
}
static jv_status f_fill(void *ctx, void *dptr, int byte, size_t bytes, jv_err *err) {
    fake *f = ctx;
    DEAD_CHECK(f, err);
    return jv_cpu_backend.fill(f->cpu, dptr, byte, bytes, err);
}
static jv_status f_sync(void *ctx, jv_err *err) {
    fake *f = ctx;
    DEAD_CHECK(f, err);
    f->queued = 0;
    return JV_OK;
}
static jv_status f_timer_start(void *ctx, jv_err *err) {
    fake *f = ctx;
    DEAD_CHECK(f, err);
    f->timing = 1;
    f->runs_in_region = 0;
    f->nseen = 0;
    f->t0 = now_s();
    if (f->fresh) f->flushed_samples++;
    return JV_OK;
}
static jv_status f_timer_stop(void *ctx, double *seconds, jv_err *err) {
    fake *f = ctx;
    DEAD_CHECK(f, err);
    double real = now_s() - f->t0, dev = f->dev_s * (double)f->runs_in_region;
    /* a device that starves runs no faster than the host queues, less what a hold let the host queue first */
    double starved = real - f->held_s;
    *seconds = dev > starved ? dev : starved;
    f->held_s = 0;
    if (f->fresh && f->runs_in_region > f->max_runs_flushed) f->max_runs_flushed = (int)f->runs_in_region;
    f->fresh = 0;
    f->timing = 0;
    f->queued = 0;
    return JV_OK;
}
static jv_status f_prepare(void *ctx, const jv_desc *d, const jv_operands *ops, int variant, void **plan, char *impl,
                           size_t cap, jv_err *err) {
    fake *f = ctx;
    DEAD_CHECK(f, err);
    return jv_cpu_backend.prepare(f->cpu, d, ops, variant, plan, impl, cap, err);
}
static jv_status f_launch(void *ctx, void *plan, const jv_desc *d, const jv_operands *ops, void *const *bufs,
                          jv_err *err) {
    fake *f = ctx;
    (void)plan;
    DEAD_CHECK(f, err);
    f->launches++;
    if (f->fail_at > 0 && f->launches >= f->fail_at) {
        f->dead = 1;
        JV_FAIL(err, JV_ERR_DEVICE, "fake device: an illegal memory access was encountered (launch %d)", f->launches);
    }
    f->queued++;
    /* the verified run computes; timed runs only count, so that the fake's time stays simulated (the rig turns
     * the check after the timed launches off: test_faults covers it) */
    if (!f->timing) return jv_desc_reference(d, ops, bufs, NULL, err);
    f->runs_in_region++;
    if (f->fresh) { /* a flushed sample: every run on operands not touched since the flush */
        for (int i = 0; i < f->nseen; i++)
            if (f->seen[i] == bufs[0]) f->dup_sets++;
        if (f->nseen < 512) f->seen[f->nseen++] = bufs[0];
    }
    if (!f->in_graph && f->host_us > 0)
        for (double end = now_s() + f->host_us * 1e-6; now_s() < end;) {
        }
    return JV_OK;
}
static void f_release(void *ctx, void *plan) {
    jv_cpu_backend.release(((fake *)ctx)->cpu, plan);
}
static jv_status f_baseline(void *ctx, jv_base_kernel k, const float *a, const float *b, float *c, int64_t n, float s,
                            jv_err *err) {
    fake *f = ctx;
    DEAD_CHECK(f, err);
    return jv_cpu_backend.baseline(f->cpu, k, a, b, c, n, s, err);
}
static jv_status f_flush(void *ctx, jv_err *err) {
    fake *f = ctx;
    DEAD_CHECK(f, err);
    f->flushes++;
    if (f->timing) f->flush_in_region++;
    f->fresh = 1;
    return JV_OK;
}
static jv_status f_hold(void *ctx, double seconds, jv_err *err) {
    fake *f = ctx;
    DEAD_CHECK(f, err);
    f->holds++;
    if (f->timing) f->holds_in_region++;
    if (f->fresh) f->holds_after_flush++;
    f->held_s += seconds;
    return JV_OK;
}
static jv_status f_flush_nomem(void *ctx, jv_err *err) {
    (void)ctx;
    JV_FAIL(err, JV_ERR_NOMEM, "fake device: no memory for the flush buffer");
}
static jv_status f_clocks(void *ctx, jv_clocks *c, jv_err *err) {
    fake *f = ctx;
    DEAD_CHECK(f, err);
    memset(c, 0, sizeof *c);
    c->known = 1;
    c->sm_max_mhz = f->sm_max;
    int busy = f->queued > 0;
    f->clocks_busy += busy;
    f->clocks_idle += !busy;
    c->sm_mhz = busy ? f->sm_load : f->sm_idle;
    c->reasons = busy ? f->reasons_load : f->reasons_idle;
    return JV_OK;
}
/* a graph of `runs` runs replayed `reps` times: the configured device time per run, no host cost */
static jv_status f_graph(void *ctx, jv_be_run_fn fn, void *arg, int runs, int reps, double *per_run_s, jv_err *err) {
    fake *f = ctx;
    DEAD_CHECK(f, err);
    f->graph_calls++;
    f->in_graph = f->timing = 1;
    for (int k = 0; k < reps; k++)
        for (int i = 0; i < runs; i++)
            JV_CHECK(fn(arg, 0, err));
    f->in_graph = f->timing = 0;
    f->queued = 0;
    *per_run_s = f->dev_s;
    return JV_OK;
}

static const jv_backend FAKE = {
    .name = "fake",
    .open = f_open,
    .close = f_close,
    .props = f_props,
    .alloc = f_alloc,
    .free = f_free,
    .upload = f_copy,
    .download = f_copy,
    .fill = f_fill,
    .sync = f_sync,
    .timer_start = f_timer_start,
    .timer_stop = f_timer_stop,
    .prepare = f_prepare,
    .launch = f_launch,
    .release = f_release,
    .baseline = f_baseline,
    .graph_time = f_graph,
    .clocks = f_clocks,
    .flush_cache = f_flush,
};

/* three small matrix multiplies */
#define MM_ENTRY                                                                                                       \
    "{\"op_name\": \"aten::mm\", \"replay_ir\": {\"list_pos_args\": ["                                                 \
    "{\"arg_name\": \"self\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [16, 8], \"dtype\": \"float\", "        \
    "\"strides\": [8, 1], \"init\": \"normal\"}},"                                                                     \
    "{\"arg_name\": \"mat2\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [8, 4], \"dtype\": \"float\", "         \
    "\"strides\": [4, 1], \"init\": \"normal\"}}], \"list_kwargs\": []}}"
static const char IR3[] = "[" MM_ENTRY ", " MM_ENTRY ", " MM_ENTRY "]";

typedef struct {
    void *ctx;
    fake *f;
    jv_device_props p;
    jv_run_opts o;
} rig;

/* a fresh fake device: dev_us per run, launch_us, host_us per queued run */
static void rig_open(rig *g, double dev_us, double launch_us, double host_us) {
    jv_err err = {0};
    if (FAKE.open(0, &g->ctx, &err) != JV_OK) {
        fprintf(stderr, "fake open: %s\n", err.msg);
        exit(1);
    }
    g->f = g->ctx;
    g->f->dev_s = dev_us * 1e-6;
    g->f->launch_us = launch_us;
    g->f->host_us = host_us;
    g->f->sm_idle = g->f->sm_load = g->f->sm_max = 1980;
    FAKE.props(g->ctx, &g->p, &err);
    jv_test_fast_opts(&g->o, &g->p);
    g->o.timing.warmup_s = 1e-4;
    g->o.verify_last = 0; /* the fake computes in its verified run only */
}

static void rig_close(rig *g) {
    FAKE.close(g->ctx);
}

/* cold samples: a flush before each, outside the timer; at most one run per set; the note without a flush */
static void test_cold(const jv_ir *ir) {
    rig g;
    rig_open(&g, 0.05, 0.001, 0);
    g.o.timing.min_sample_s = 1e-3; /* thousands of runs per hot sample: more than the operand sets */
    jv_op_result r;
    jv_err err = {0};
    CHECK(jv_run_op(&FAKE, g.ctx, &g.p, &g.o, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_OK);
    CHECK(r.cold.samples >= 5 && r.cold.flushed && r.cold.note[0] == 0);
    CHECK(g.f->flushes == r.cold.samples);          /* one flush per cold sample, none for hot or warm-up */
    CHECK(g.f->flushed_samples == r.cold.samples);  /* every cold sample's timer starts after a flush */
    CHECK(g.f->flush_in_region == 0);               /* never inside a timed region */
    CHECK(r.hot.max_runs_per_sample > r.cold.sets); /* the cap below bites */
    CHECK(g.f->max_runs_flushed <= r.cold.sets && r.cold.max_runs_per_sample <= r.cold.sets);
    CHECK(g.f->dup_sets == 0); /* each run of a flushed sample on its own operand set */
    rig_close(&g);

    /* no flush_cache: the sets rotate as before, and the result says so */
    jv_backend nf = FAKE;
    nf.flush_cache = NULL;
    rig_open(&g, 0.05, 0.001, 0);
    g.o.timing.min_sample_s = 1e-3;
    CHECK(jv_run_op(&nf, g.ctx, &g.p, &g.o, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_OK);
    CHECK(r.cold.samples > 0 && !r.cold.flushed && g.f->flushes == 0);
    CHECK(strstr(r.cold.note, "cannot flush") && strstr(r.cold.note, "rotate"));
    CHECK(r.hot.note[0] == 0);
    rig_close(&g);

    /* a flush that cannot run (no buffer): the same fall-back, with the backend's reason */
    nf.flush_cache = f_flush_nomem;
    rig_open(&g, 0.05, 0.001, 0);
    CHECK(jv_run_op(&nf, g.ctx, &g.p, &g.o, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_OK);
    CHECK(!r.cold.flushed && strstr(r.cold.note, "no memory for the flush buffer"));
    rig_close(&g);
}

/* the duty cycle: the gap after each sample, and a run that waits it (the fake's device time is simulated, so
 * without the gaps the wall time stays far under the sampled time) */
static void test_duty(const jv_ir *ir) {
    CHECK(jv_duty_gap(1e-3, 0.5) == 1e-3);
    CHECK(fabs(jv_duty_gap(1e-3, 0.25) - 3e-3) < 1e-12);
    CHECK(jv_duty_gap(1.0, 0.5) == JV_DUTY_MAX_GAP_S); /* capped */
    CHECK(jv_duty_gap(1e-3, 1) == 0 && jv_duty_gap(1e-3, 0) == 0 && jv_duty_gap(1e-3, 1.5) == 0);
    CHECK(jv_duty_gap(0, 0.5) == 0 && jv_duty_gap(NAN, 0.5) == 0);

    rig g;
    rig_open(&g, 500, 0.001, 0); /* 0.5 ms per run */
    g.o.timing.max_time_s = 0.02;
    g.o.timing.min_sample_s = 1e-3;
    g.o.timing.duty = 0.5;
    jv_op_result r;
    jv_err err = {0};
    double t0 = now_s();
    CHECK(jv_run_op(&FAKE, g.ctx, &g.p, &g.o, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_OK);
    double wall = now_s() - t0;
    double sampled = (double)(r.hot.runs + r.cold.runs) * 500e-6; /* the gaps: as long as the samples */
    CHECK(r.hot.samples > 0 && r.cold.samples > 0);
    CHECK(wall >= 0.9 * sampled);
    if (wall < 0.9 * sampled) fprintf(stderr, "duty 0.5: %.4f s of wall time for %.4f s sampled\n", wall, sampled);
    rig_close(&g);
}

/* the graph rule: from the measured launch cost and host time, not from the op's absolute time */
static void test_graph_rule(const jv_ir *ir) {
    struct {
        double dev_us, launch_us, host_us;
        int want;
        const char *why;
    } cs[] = {
        {1000, 100, 0, 1, "launch cost"},    /* a long op whose launch is 10 % of it */
        {10, 0.001, 0, 0, ""},               /* a short op with a negligible launch: no graph */
        {5000, 0.001, 0, 0, ""},             /* a long one: no graph either */
        {1, 0.001, 20, 1, "queueing a run"}, /* the host queues slower than the device runs: it starves */
    };
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        rig g;
        rig_open(&g, cs[k].dev_us, cs[k].launch_us, cs[k].host_us);
        jv_op_result r;
        jv_err err = {0};
        CHECK(jv_run_op(&FAKE, g.ctx, &g.p, &g.o, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_OK);
        CHECK(g.f->graph_calls == cs[k].want && (r.graph_s > 0) == cs[k].want);
        CHECK(cs[k].want ? strstr(r.graph_why, cs[k].why) != NULL : r.graph_why[0] == 0);
        if (cs[k].host_us > 0)
            CHECK(r.hot.host_s >= 0.5 * r.hot.median_s && r.hot.host_s >= 15e-6);
        else
            CHECK(r.hot.host_s < 0.5 * r.hot.median_s);
        if (k == 0) {
            /* --no-graph: never */
            g.o.graph = 0;
            g.f->graph_calls = 0;
            CHECK(jv_run_op(&FAKE, g.ctx, &g.p, &g.o, &ir->ops[0], &r, &err) == JV_OK && g.f->graph_calls == 0 &&
                  r.graph_s == 0);
        }
        rig_close(&g);
    }
    /* the rule itself, on the thresholds */
    jv_timing t;
    memset(&t, 0, sizeof t);
    t.samples = 3;
    t.median_s = 100e-6;
    jv_device_props p;
    memset(&p, 0, sizeof p);
    char why[160];
    p.launch_us = 5.01;
    CHECK(jv_graph_wanted(&t, &p, why, sizeof why) && strstr(why, "5 %"));
    p.launch_us = 4.9;
    CHECK(!jv_graph_wanted(&t, &p, why, sizeof why) && why[0] == 0);
    t.host_s = 50.1e-6;
    CHECK(jv_graph_wanted(&t, &p, why, sizeof why) && strstr(why, "50 %"));
    t.host_s = 49e-6;
    CHECK(!jv_graph_wanted(&t, &p, why, sizeof why));
    t.samples = 0;
    p.launch_us = 1000;
    CHECK(!jv_graph_wanted(&t, &p, why, sizeof why)); /* hot not measured */
}

/* a result with the given medians (us; 0: not measured) */
static void timed(jv_op_result *r, double hot_us, double cold_us, double graph_us) {
    memset(r, 0, sizeof *r);
    r->status = JV_RES_OK;
    r->perf.bytes = 1e6;
    r->perf.flops = 1e6;
    r->perf.dtype = JV_DT_F32;
    snprintf(r->label, sizeof r->label, "aten::mm test");
    snprintf(r->impl, sizeof r->impl, "fake");
    if (hot_us > 0) r->hot.samples = 5, r->hot.median_s = r->hot.min_s = r->hot.max_s = hot_us * 1e-6;
    if (cold_us > 0) r->cold.samples = 5, r->cold.median_s = r->cold.min_s = r->cold.max_s = cold_us * 1e-6;
    r->graph_s = graph_us * 1e-6;
    if (graph_us > 0) r->graph_runs = 100;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    char *t = calloc(1, 1 << 20);
    if (f && t) (void)fread(t, 1, (1 << 20) - 1, f);
    if (f) fclose(f);
    return t;
}

/* a host-bound op (300 us to queue a run the device does in 10 us): without a hold its cold samples time the
 * host; with one, each flushed sample's runs are queued behind it and the samples time the device alone, and
 * the verdict takes the cold median as it is (no launch gap left to remove) */
static void test_hold(const jv_ir *ir) {
    jv_backend hb = FAKE;
    hb.hold = f_hold;
    for (int with = 0; with < 2; with++) {
        rig g;
        rig_open(&g, 10, 2, 300);
        jv_op_result r;
        jv_err err = {0};
        CHECK(jv_run_op(with ? &hb : &FAKE, g.ctx, &g.p, &g.o, &ir->ops[0], &r, &err) == JV_OK &&
              r.status == JV_RES_OK);
        CHECK(r.cold.samples > 0 && r.cold.flushed);
        if (with) {
            CHECK(r.cold.held && g.f->holds == r.cold.samples); /* one hold per cold sample */
            CHECK(g.f->holds_after_flush == g.f->holds);        /* after the sample's flush ... */
            CHECK(g.f->holds_in_region == 0);                   /* ... and before its timer */
            CHECK_MSG(r.cold.median_s < 50e-6, "held cold median %.1f us", r.cold.median_s * 1e6); /* ~10 us */
            jv_verdict v;
            jv_verdict_of(&r, NULL, NULL, &g.p, &v);
            CHECK(v.figure == JV_FIG_COLD && v.time_s == r.cold.median_s);
        } else {
            CHECK(!r.cold.held && g.f->holds == 0);
            CHECK_MSG(r.cold.median_s > 250e-6, "unheld cold median %.1f us", r.cold.median_s * 1e6); /* the host's */
        }
        rig_close(&g);
    }
}

/* the verdict's figure, case by case, and where it is shown */
static void test_figure(void) {
    jv_device_props p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "fake GPU");
    p.launch_us = 2.0;
    p.host_launch_us = 3.0;
    struct {
        double hot, cold, graph;
        jv_figure fig;
        double want_us;
        const char *cache;
    } cs[] = {
        {8, 10, 5, JV_FIG_COLD_NO_GAP, 7, "cold"}, /* cold less the 3 us launch gap */
        {8, 6, 5, JV_FIG_COLD_NO_GAP, 5, "cold"},  /* never below the graph time */
        {5, 10, 5.5, JV_FIG_COLD, 10, "cold"},     /* graph slower than hot: no gap to remove */
        {8, 10, 0, JV_FIG_COLD, 10, "cold"},       /* no graph: the cold median */
        {8, 0, 5, JV_FIG_GRAPH, 5, "hot"},         /* only hot, graphed: the graph time */
        {8, 0, 0, JV_FIG_HOT, 8, "hot"},           /* only hot */
        {0, 10, 0, JV_FIG_COLD, 10, "cold"},       /* only cold */
    };
    jv_op_result rs[7];
    jv_verdict vs[7];
    for (int k = 0; k < 7; k++) {
        timed(&rs[k], cs[k].hot, cs[k].cold, cs[k].graph);
        rs[k].index = k;
        jv_verdict_of(&rs[k], NULL, NULL, &p, &vs[k]);
        CHECK(vs[k].figure == cs[k].fig && fabs(vs[k].time_s - cs[k].want_us * 1e-6) < 1e-12 &&
              !strcmp(vs[k].cache, cs[k].cache));
    }
    CHECK(!strcmp(jv_figure_str(JV_FIG_COLD_NO_GAP), "cold, launch gap removed") &&
          !strcmp(jv_figure_short(JV_FIG_COLD_NO_GAP), "cold-gap") && !strcmp(jv_figure_str(JV_FIG_GRAPH), "graph"));
    jv_op_result nt;
    jv_verdict nv;
    timed(&nt, 0, 0, 0);
    jv_verdict_of(&nt, NULL, NULL, &p, &nv);
    CHECK(nv.figure == JV_FIG_NONE && nv.cache == NULL);

    /* shown in the console table, the Google Benchmark JSON and the report */
    jv_run_opts o;
    jv_run_opts_default(&o, &p);
    jv_replay_run run;
    memset(&run, 0, sizeof run);
    run.package = "test.json";
    run.executable = "test_replay_timing";
    run.props = p;
    run.res = rs;
    run.ver = vs;
    run.n = 7;
    run.opts = &o;
    char dir[] = "/tmp/jv_timing_XXXXXX", path[64], md[64], con[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/b.json", dir);
    snprintf(md, sizeof md, "%s/r.md", dir);
    snprintf(con, sizeof con, "%s/c.txt", dir);
    jv_err err = {0};
    CHECK(jv_out_gbench(path, 0, &run, &err) == JV_OK && jv_out_markdown(md, &run, &err) == JV_OK);
    FILE *cf = fopen(con, "w");
    if (cf) {
        jv_out_console(cf, &run);
        fclose(cf);
    }
    char *tj = slurp(path), *tm = slurp(md), *tc = slurp(con);
    cJSON *doc = cJSON_Parse(tj);
    const cJSON *bm = cJSON_GetObjectItem(doc, "benchmarks");
    int judged = 0, gap_ok = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, bm) {
        const char *fig = cJSON_GetStringValue(cJSON_GetObjectItem(e, "judged_figure"));
        if (!fig) continue;
        judged++;
        if (!strncmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "name")), "op0/", 4) &&
            !strcmp(fig, "cold, launch gap removed") &&
            fabs(cJSON_GetObjectItem(e, "judged_us")->valuedouble - 7) < 1e-9)
            gap_ok = 1;
    }
    CHECK(judged == 7 && gap_ok); /* one judged entry per op */
    const cJSON *ctxj = cJSON_GetObjectItem(doc, "context");
    CHECK(cJSON_GetObjectItem(ctxj, "launch_us")->valuedouble == 2.0 &&
          cJSON_GetObjectItem(ctxj, "host_launch_us")->valuedouble == 3.0);
    CHECK(tm && strstr(tm, "| cold, launch gap removed | 7.00 |") && strstr(tm, "| graph | 5.00 |") &&
          strstr(tm, "2.000 us, measured"));
    CHECK(tc && strstr(tc, "cold-gap") && strstr(tc, "judged_us") && strstr(tc, "launch gap 3.00 us"));
    cJSON_Delete(doc);
    free(tj);
    free(tm);
    free(tc);
    unlink(path);
    unlink(md);
    unlink(con);
    rmdir(dir);
}

/* throttling is judged on the clocks read under load, not at idle */
static void test_clocks(const jv_ir *ir) {
    struct {
        double sm_load;
        unsigned load, idle;
        int throttled;
        const char *what;
    } cs[] = {
        {1980, 0, 0, 0, ""},
        {1500, 0, 0, 1, "under load 1500 MHz"}, /* a 24 % drop under the allowed maximum */
        {1900, 0, 0, 0, ""},                    /* a 4 % dip: not throttling */
        {1980, JV_THROTTLE_POWER, 0, 1, "power cap"},
        {1980, JV_THROTTLE_THERMAL, 0, 1, "thermal"},
        {1980, 0, JV_THROTTLE_POWER, 0, ""}, /* a reason at idle only */
        {1980, JV_THROTTLE_OTHER, 0, 0, ""}, /* not a slowdown */
    };
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        rig g;
        rig_open(&g, 100, 0.001, 0); /* long runs: the clocks are read inside the samples */
        g.f->sm_load = cs[k].sm_load;
        g.f->reasons_load = cs[k].load;
        g.f->reasons_idle = cs[k].idle;
        jv_op_result r;
        jv_err err = {0};
        CHECK(jv_run_op(&FAKE, g.ctx, &g.p, &g.o, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_OK);
        CHECK(g.f->clocks_busy >= r.hot.samples + r.cold.samples); /* one read per sample, under load */
        CHECK(r.clk_load.known && r.clk_load.sm_mhz == cs[k].sm_load && r.clk_start.known);
        CHECK(r.throttled == cs[k].throttled && (!cs[k].throttled || strstr(r.throttle, cs[k].what)));
        rig_close(&g);
    }
    /* a host-bound op: no sample can read while the device works; one untimed batch reads under load */
    rig g;
    rig_open(&g, 1, 0.001, 20);
    g.f->sm_load = 1500;
    jv_op_result r;
    jv_err err = {0};
    CHECK(jv_run_op(&FAKE, g.ctx, &g.p, &g.o, &ir->ops[0], &r, &err) == JV_OK && r.status == JV_RES_OK);
    CHECK(g.f->clocks_busy == 2 && r.clk_load.sm_mhz == 1500 && r.throttled); /* hot and cold: one each */
    if (g.f->clocks_busy != 2) fprintf(stderr, "clocks under load: %d\n", g.f->clocks_busy);
    rig_close(&g);
}

/* a sticky device error: the op loop stops after that op, nothing more reaches the device */
static void test_sticky(const jv_ir *ir) {
    rig g;
    rig_open(&g, 10, 0.001, 0);
    jv_op_result r;
    jv_err err = {0};
    CHECK(jv_run_op(&FAKE, g.ctx, &g.p, &g.o, &ir->ops[0], &r, &err) == JV_OK);
    int per_op = g.f->launches; /* launches of one op (each op of IR3 is the same) */
    rig_close(&g);
    CHECK(per_op > 10);
    /* k-th launch: op 1's verified run (its first launch), then in the middle of op 0's timing */
    int at[2] = {per_op + 1, per_op / 2}, op_at[2] = {1, 0};
    for (int c = 0; c < 2; c++) {
        rig_open(&g, 10, 0.001, 0);
        g.f->fail_at = at[c];
        jv_session s;
        memset(&s, 0, sizeof s);
        jv_session_cfg sc = {&FAKE, g.ctx, &g.p, &g.o, NULL, NULL, NULL, 0};
        CHECK(jv_session_ops(&s, &sc, ir, NULL, &err) == JV_OK);
        CHECK(s.stopped && s.failed && s.stop_op == op_at[c] && s.n == 3 && s.not_run == 2 - op_at[c]);
        CHECK(g.f->launches == at[c] && g.f->calls_dead == 0); /* no call after the failing launch */
        for (int i = 0; i < 3; i++) {
            jv_res_status want = i < op_at[c] ? JV_RES_OK : i == op_at[c] ? JV_RES_ERROR : JV_RES_NOT_RUN;
            CHECK(s.res[i].status == want && s.res[i].index == i);
        }
        CHECK(strstr(s.res[op_at[c]].reason, "illegal memory access"));
        CHECK(op_at[c] == 1 ? strstr(s.res[2].reason, "not run") && strstr(s.res[2].label, "aten::mm") : 1);
        char msg[1024];
        jv_session_stop_message(&s, g.p.name, "b.json", msg, sizeof msg);
        char want[64];
        snprintf(want, sizeof want, "after op %d (aten::mm", op_at[c]);
        CHECK(strstr(msg, "device context is unusable") && strstr(msg, want) && strstr(msg, "on fake GPU") &&
              strstr(msg, "illegal memory access") && strstr(msg, op_at[c] ? "1 op not run" : "2 ops not run") &&
              strstr(msg, "results so far written to b.json"));
        jv_session_free(&s);
        rig_close(&g);
    }
    /* any other failure is that op's error; the run goes on */
    rig_open(&g, 10, 0.001, 0);
    jv_backend soft = FAKE;
    soft.sync = f_sync; /* unchanged */
    g.f->fail_at = 0;
    jv_session s;
    memset(&s, 0, sizeof s);
    jv_session_cfg sc = {&soft, g.ctx, &g.p, &g.o, NULL, NULL, NULL, 0};
    g.o.max_bytes = 1; /* every op skipped: the loop visits all */
    CHECK(jv_session_ops(&s, &sc, ir, NULL, &err) == JV_OK && !s.stopped && s.n == 3 && !s.failed);
    jv_session_free(&s);
    /* --deadline: one in the past starts nothing (every op not run, the session failed); a far one changes
     * nothing; neither is a device stop */
    g.o.max_bytes = 0;
    sc.deadline = jv_now() - 1;
    int before = g.f->launches;
    CHECK(jv_session_ops(&s, &sc, ir, NULL, &err) == JV_OK && s.late && s.failed && !s.stopped && s.n == 3 &&
          s.not_run == 3 && g.f->launches == before);
    for (int i = 0; i < 3; i++)
        CHECK(s.res[i].status == JV_RES_NOT_RUN && strstr(s.res[i].reason, "--deadline") && s.res[i].index == i);
    jv_session_free(&s);
    sc.deadline = jv_now() + 3600;
    CHECK(jv_session_ops(&s, &sc, ir, NULL, &err) == JV_OK && !s.late && !s.failed && s.n == 3 && s.not_run == 0 &&
          s.res[2].status == JV_RES_OK);
    jv_session_free(&s);
    g.o.max_bytes = 1;
    /* dead before the ops (in the baseline): every op not run */
    g.f->dead = 1;
    static jv_baseline b;
    jv_err be = {0};
    g.o.max_bytes = 0;
    CHECK(jv_baseline_run(&FAKE, g.ctx, &g.p, &g.o, 1 << 20, 0, JV_DT_F32, &b, &be) == JV_ERR_DEVICE);
    CHECK(jv_session_stop(&s, ir, NULL, 0, -1, NULL, &be, &err) == JV_OK && s.n == 3 && s.not_run == 3 &&
          s.res[0].status == JV_RES_NOT_RUN);
    char msg[1024];
    jv_session_stop_message(&s, g.p.name, "r.md", msg, sizeof msg);
    CHECK(strstr(msg, "after the baseline on fake GPU") && strstr(msg, "3 ops not run"));
    jv_session_free(&s);
    rig_close(&g);
}

/* --op LIST: jv_opsel_parse / has / max, and a session over a selection (only those ops replayed, and under a
 * passed deadline only those reported not run) */
static void test_opsel(const jv_ir *ir) {
    jv_opsel sel = {0};
    jv_err err = {0};
    CHECK(jv_opsel_max(&sel) == -1 && jv_opsel_has(&sel, 0) && jv_opsel_has(&sel, 99) && jv_opsel_has(NULL, 5));
    CHECK(jv_opsel_parse(&sel, "3,7,10-12", &err) == JV_OK && sel.n == 3 && jv_opsel_max(&sel) == 12);
    int want[14] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0};
    int same = 1;
    for (int i = 0; i < 14; i++)
        same &= jv_opsel_has(&sel, i) == want[i];
    CHECK(same);
    CHECK(jv_opsel_parse(&sel, "0", &err) == JV_OK && sel.n == 4 && jv_opsel_has(&sel, 0) && !jv_opsel_has(&sel, 1));
    const char *bad[] = {"", ",", "1,,2", "3-1", "a", "1-", "-1", "1-2-3", "+1", "1.5", "100000001", "2,x"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        jv_opsel t = sel;
        jv_err e = {0};
        CHECK(jv_opsel_parse(&t, bad[k], &e) == JV_ERR_USAGE && strstr(e.msg, "--op") && t.n == sel.n);
    }
    jv_opsel full = {0};
    char many[512] = "";
    for (int k = 0; k < JV_OPSEL_MAX; k++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s%d", k ? "," : "", k);
    CHECK(jv_opsel_parse(&full, many, &err) == JV_OK && full.n == JV_OPSEL_MAX);
    CHECK(jv_opsel_parse(&full, "70", &err) == JV_ERR_USAGE && full.n == JV_OPSEL_MAX);

    rig g;
    rig_open(&g, 10, 0.001, 0);
    jv_opsel two = {0};
    CHECK(jv_opsel_parse(&two, "0,2", &err) == JV_OK);
    jv_session s;
    memset(&s, 0, sizeof s);
    jv_session_cfg sc = {&FAKE, g.ctx, &g.p, &g.o, NULL, NULL, NULL, 0};
    CHECK(jv_session_ops(&s, &sc, ir, &two, &err) == JV_OK && s.n == 2 && !s.failed && s.res[0].index == 0 &&
          s.res[1].index == 2 && s.res[1].status == JV_RES_OK);
    jv_session_free(&s);
    jv_opsel mid = {0};
    CHECK(jv_opsel_parse(&mid, "1-1", &err) == JV_OK);
    sc.deadline = jv_now() - 1;
    CHECK(jv_session_ops(&s, &sc, ir, &mid, &err) == JV_OK && s.late && s.n == 1 && s.not_run == 1 &&
          s.res[0].index == 1 && s.res[0].status == JV_RES_NOT_RUN);
    jv_session_free(&s);
    rig_close(&g);
}

int main(void) {
    jv_ir ir = {0};
    jv_err err = {0};
    if (jv_ir_parse(IR3, strlen(IR3), "test", &ir, &err) != JV_OK) {
        fprintf(stderr, "IR: %s\n", err.msg);
        return 1;
    }
    test_cold(&ir);
    test_graph_rule(&ir);
    test_duty(&ir);
    test_figure();
    test_hold(&ir);
    test_clocks(&ir);
    test_sticky(&ir);
    test_opsel(&ir);
    jv_ir_free(&ir);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

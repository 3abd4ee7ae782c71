/* test_replay_fleet: the fleet statistics of replay/jv_fleet.c against hand-computed figures (median, MAD,
 * the band of ratios median * exp(+-max(k * MAD(ln), ln(1 + min_band))), a 20x slow rate flagged in a noisy fleet
 * where a band of differences could not flag it, slow and fast flags on times and rates, the per-rank score, ranks
 * that failed or are missing left out, too few ranks: no band, the median or the fastest sample, a node whose
 * every rank is flagged), the launcher's size from the environment, the CPU slice of a local rank, the
 * fleet JSON read back, and the test hook jv_timing_opts.extra_runs doing the work k extra times. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <cjson/cJSON.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jv_fleet.h"
#include "jv_timing.h"

#include "jv_check.h"

#define NR 5

static int near(double a, double b) {
    return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

/* five ranks on two hosts; op 0 times (us) 100 101 99 100 250: rank 4 slow; bandwidth copy (GB/s)
 * 10 10.2 9.8 3 10: rank 3 slow; triad 10 10 10 10 20: rank 4 fast */
static void fill(jv_fleet_rank *r, jv_fleet_op ops[NR][2]) {
    static const double t0[NR] = {100, 101, 99, 100, 250}, t1[NR] = {50, 50, 50, 50, 50};
    static const double copy[NR] = {10, 10.2, 9.8, 3, 10}, triad[NR] = {10, 10, 10, 10, 20};
    memset(r, 0, NR * sizeof *r);
    memset(ops, 0, NR * sizeof ops[0]);
    for (int i = 0; i < NR; i++) {
        r[i].rank = i;
        r[i].size = NR;
        snprintf(r[i].host, sizeof r[i].host, "%s", i < 3 ? "node-a" : "node-b");
        r[i].state = JV_FLEET_OK;
        r[i].base_done = 1;
        for (int k = 0; k < JV_BASE_COUNT; k++) {
            r[i].bw[k] = 10e9;
            r[i].bw_best[k] = 12e9;
            r[i].base_verified[k] = 1;
        }
        r[i].bw[JV_BASE_COPY] = copy[i] * 1e9;
        r[i].bw[JV_BASE_TRIAD] = triad[i] * 1e9;
        r[i].gemm_done = 1;
        r[i].gemm_flops = r[i].gemm_flops_best = 1e12;
        snprintf(r[i].gemm_dtype, sizeof r[i].gemm_dtype, "fp32");
        r[i].gemm_n = 512;
        r[i].n_ops = 2;
        for (int j = 0; j < 2; j++) {
            ops[i][j].index = j;
            ops[i][j].status = JV_RES_OK;
            snprintf(ops[i][j].label, sizeof ops[i][j].label, "aten::op%d", j);
            ops[i][j].hot_s = (j ? t1[i] : t0[i]) * 1e-6;
            ops[i][j].hot_min_s = 40e-6; /* the fastest samples: all alike */
        }
    }
}

static const jv_fleet_metric *metric(const jv_fleet *f, const char *prefix) {
    for (int i = 0; i < f->nmetrics; i++)
        if (!strncmp(f->m[i].name, prefix, strlen(prefix))) return &f->m[i];
    return NULL;
}

static void test_stats(void) {
    jv_fleet_rank r[NR];
    jv_fleet_op ops[NR][2];
    const jv_fleet_op *po[NR];
    fill(r, ops);
    for (int i = 0; i < NR; i++)
        po[i] = ops[i];
    jv_fleet f;
    jv_err err = {0};
    CHECK(jv_fleet_analyze(&f, r, po, NR, 3, 0.05, 0, &err) == JV_OK);
    CHECK(f.nmetrics == JV_BASE_COUNT + 1 + 2);
    const jv_fleet_metric *op0 = metric(&f, "op 0 aten::op0 (hot)"), *copy = metric(&f, "baseline copy"),
                          *triad = metric(&f, "baseline triad"), *gemm = metric(&f, "GEMM fp32 512^3");
    CHECK(op0 && copy && triad && gemm);
    if (!op0 || !copy || !triad || !gemm) return;
    /* op 0: sorted 99 100 100 101 250: median 100; |ln(x / 100)| 0.01005 0 0 0.00995 0.916 -> sorted
     * 0 0 0.00995 0.01005 0.916: MAD(ln) ln 1.01 = 0.00995; h = max(3 * 0.00995, ln 1.05 = 0.0488) = ln 1.05:
     * band [100 / 1.05, 105] = [95.238, 105]: rank 4 (250) slow */
    CHECK_MSG(near(op0->median, 100e-6) && near(op0->mad_ln, log(1.01)), "op0 median %g MAD(ln) %g", op0->median,
              op0->mad_ln);
    CHECK(near(op0->lo, 100e-6 / 1.05) && near(op0->hi, 105e-6));
    CHECK(op0->flag[4] == 1 && op0->flag[0] == 0 && op0->flag[1] == 0 && op0->flag[2] == 0 && op0->flag[3] == 0);
    /* copy: 3 9.8 10 10 10.2 -> median 10; |ln(x / 10)| 1.204 0.0202 0 0 0.0198 -> 0 0 0.0198 0.0202 1.204:
     * MAD(ln) ln 1.02; h = max(3 ln 1.02 = 0.0594, 0.0488) = 3 ln 1.02: [10 / 1.02^3, 10 * 1.02^3] =
     * [9.4232, 10.6121]: rank 3 (3 GB/s) slow (a low rate), 10.2 and 9.8 inside */
    CHECK_MSG(near(copy->median, 10e9) && near(copy->mad_ln, log(1.02)), "copy median %g MAD(ln) %g", copy->median,
              copy->mad_ln);
    CHECK(near(copy->lo, 10e9 / pow(1.02, 3)) && near(copy->hi, 10e9 * pow(1.02, 3)));
    CHECK(copy->flag[3] == 1 && copy->flag[4] == 0 && copy->flag[1] == 0 && copy->flag[2] == 0);
    /* triad: 10 10 10 10 20: MAD 0; h = ln 1.05; rank 4 (a high rate) fast */
    CHECK(near(triad->mad_ln, 0) && near(triad->hi, 10.5e9) && triad->flag[4] == -1);
    CHECK(gemm->n == NR && gemm->flag[0] == 0 && near(gemm->lo, 1e12 / 1.05));
    CHECK(f.slow[4] == 1 && f.fast[4] == 1 && f.slow[3] == 1 && f.fast[3] == 0 && f.slow[0] == 0);
    CHECK(f.flagged == 2 && f.failed == 0);
    /* score of rank 4: geometric mean of 250/100 and 50/50 = sqrt(2.5) */
    CHECK_MSG(near(f.score[4], sqrt(2.5)) && near(f.score[0], 1), "score %g", f.score[4]);
    /* nodes: a (ranks 0-2, none flagged), b (ranks 3, 4, both flagged) */
    CHECK(f.nnodes == 2 && f.node[0] == 0 && f.node[4] == 1 && f.node_flagged[0] == 0 && f.node_flagged[1] == 1);
    CHECK(f.same_gpu[0] == -1 && f.same_gpu[4] == -1);

    /* the JSON read back */
    char path[] = "/tmp/jv_test_fleet_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    jv_fleet_meta meta = {"pkg.zip", "2026-11-26", 0, 60, "OUT/rank<k>/", "OMPI_COMM_WORLD_SIZE"};
    CHECK(jv_fleet_write_json(path, &f, &meta, &err) == JV_OK);
    FILE *in = fopen(path, "r");
    char *buf = calloc(1, 1 << 20);
    size_t n = in && buf ? fread(buf, 1, (1 << 20) - 1, in) : 0;
    if (in) fclose(in);
    cJSON *doc = n ? cJSON_Parse(buf) : NULL;
    CHECK(doc != NULL);
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(sum, "flagged");
    CHECK(cJSON_GetArraySize(fl) == 2 && cJSON_GetArrayItem(fl, 0)->valueint == 3 &&
          cJSON_GetArrayItem(fl, 1)->valueint == 4);
    const cJSON *r4 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "ranks"), 4);
    const cJSON *slow = cJSON_GetObjectItemCaseSensitive(r4, "slow_on");
    CHECK(cJSON_GetArraySize(slow) == 1 && !strcmp(cJSON_GetArrayItem(slow, 0)->valuestring, "op 0 aten::op0 (hot)"));
    const cJSON *m0 = NULL, *ms = cJSON_GetObjectItemCaseSensitive(doc, "metrics");
    cJSON_ArrayForEach(m0, ms) if (!strcmp(cJSON_GetObjectItemCaseSensitive(m0, "name")->valuestring, op0->name)) break;
    CHECK(m0 && near(cJSON_GetObjectItemCaseSensitive(m0, "median")->valuedouble, 100) &&
          near(cJSON_GetObjectItemCaseSensitive(m0, "band_hi")->valuedouble, 105));
    const cJSON *out = m0 ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(m0, "outside"), 0) : NULL;
    CHECK(out && cJSON_GetObjectItemCaseSensitive(out, "rank")->valueint == 4 &&
          near(cJSON_GetObjectItemCaseSensitive(out, "times_slower")->valuedouble, 2.5));
    cJSON_Delete(doc);
    free(buf);
    CHECK(jv_fleet_write_md(path, &f, &meta, &err) == JV_OK);
    unlink(path);
    jv_fleet_free(&f);

    /* the fastest samples: all alike, nobody flagged on the ops */
    CHECK(jv_fleet_analyze(&f, r, po, NR, 3, 0.05, 1, &err) == JV_OK);
    op0 = metric(&f, "op 0");
    CHECK(op0 && near(op0->median, 40e-6) && op0->flag[4] == 0 && f.best == 1);
    CHECK(near(metric(&f, "baseline copy")->median, 12e9));
    jv_fleet_free(&f);

    /* two ranks on one GPU: the same UUID on one host (rank 0, 1), the same PCI address on two hosts (2, 3:
     * different GPUs); a wide band: min_band 2 -> ratios of 3, [33.3, 300]: 250 inside */
    snprintf(r[0].uuid, sizeof r[0].uuid, "GPU-1");
    snprintf(r[1].uuid, sizeof r[1].uuid, "GPU-1");
    snprintf(r[2].pci, sizeof r[2].pci, "0000:17:00.0");
    snprintf(r[3].pci, sizeof r[3].pci, "0000:17:00.0");
    CHECK(jv_fleet_analyze(&f, r, po, NR, 3, 2.0, 0, &err) == JV_OK);
    CHECK(f.same_gpu[0] == 1 && f.same_gpu[1] == 0 && f.same_gpu[2] == -1 && f.same_gpu[3] == -1);
    op0 = metric(&f, "op 0");
    CHECK(op0 && near(op0->lo, 100e-6 / 3) && near(op0->hi, 300e-6) && op0->flag[4] == 0);
    jv_fleet_free(&f);

    /* rank 4 failed, rank 3 missing: their values are left out; with 3 ranks left op 0 has a band, with
     * 2 it has none */
    r[4].state = JV_FLEET_FAILED;
    r[3].state = JV_FLEET_MISSING;
    CHECK(jv_fleet_analyze(&f, r, po, NR, 3, 0.05, 0, &err) == JV_OK);
    op0 = metric(&f, "op 0");
    CHECK(op0 && op0->n == 3 && near(op0->median, 100e-6) && !isnan(op0->lo) && op0->flag[4] == 0);
    CHECK(f.failed == 2 && f.flagged == 0 && f.node[3] == -1);
    jv_fleet_free(&f);
    r[2].state = JV_FLEET_FAILED;
    CHECK(jv_fleet_analyze(&f, r, po, NR, 3, 0.05, 0, &err) == JV_OK);
    op0 = metric(&f, "op 0");
    CHECK(op0 && op0->n == 2 && isnan(op0->lo) && f.flagged == 0);
    jv_fleet_free(&f);
    /* an op that failed on a rank gives no value there */
    fill(r, ops);
    ops[1][0].status = JV_RES_WRONG;
    r[1].state = JV_FLEET_FAILED_OPS;
    CHECK(jv_fleet_analyze(&f, r, po, NR, 3, 0.05, 0, &err) == JV_OK);
    op0 = metric(&f, "op 0");
    CHECK(op0 && op0->n == 4 && isnan(op0->value[1]) && f.failed == 1);
    jv_fleet_free(&f);
    /* a noisy fleet (ranks 1 and 3 2x off the others) and rank 4 20x slow: copy 20 10 20 40 1 GB/s; median 20,
     * |ln(x / 20)| 0 ln2 0 ln2 ln20 -> MAD(ln) ln 2, h = 3 ln 2: band [2.5, 160]: rank 4 (1) slow, the 2x ones
     * inside. A band of differences (MAD 10, median +- 30) would start at 0 and flag no rate however low. */
    fill(r, ops);
    static const double noisy[NR] = {20, 10, 20, 40, 1};
    for (int i = 0; i < NR; i++)
        r[i].bw[JV_BASE_COPY] = noisy[i] * 1e9;
    CHECK(jv_fleet_analyze(&f, r, po, NR, 3, 0.05, 0, &err) == JV_OK);
    copy = metric(&f, "baseline copy");
    CHECK_MSG(copy && near(copy->mad_ln, log(2)) && near(copy->lo, 2.5e9) && near(copy->hi, 160e9),
              "noisy copy: MAD(ln) %g band %g %g", copy ? copy->mad_ln : 0, copy ? copy->lo : 0, copy ? copy->hi : 0);
    CHECK(copy && copy->flag[4] == 1 && copy->flag[1] == 0 && copy->flag[3] == 0 && f.slow[4] >= 1);
    jv_fleet_free(&f);
}

static void test_launch(void) {
    char var[32];
    int certain = 0;
    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("PMI_SIZE");
    unsetenv("SLURM_STEP_NUM_TASKS");
    unsetenv("SLURM_NTASKS");
    CHECK(jv_fleet_launch_size(var, sizeof var, &certain) == 0 && var[0] == 0);
    setenv("SLURM_NTASKS", "8", 1);
    CHECK(jv_fleet_launch_size(var, sizeof var, &certain) == 8 && !certain && !strcmp(var, "SLURM_NTASKS"));
    setenv("SLURM_STEP_NUM_TASKS", "16", 1);
    CHECK(jv_fleet_launch_size(var, sizeof var, &certain) == 16 && certain);
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    CHECK(jv_fleet_launch_size(var, sizeof var, &certain) == 4 && certain && !strcmp(var, "OMPI_COMM_WORLD_SIZE"));
    setenv("OMPI_COMM_WORLD_SIZE", "x", 1);
    CHECK(jv_fleet_launch_size(var, sizeof var, &certain) == 16); /* not a number: the next one */
    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("SLURM_STEP_NUM_TASKS");
    unsetenv("SLURM_NTASKS");
}

static void test_pin(void) {
    cpu_set_t before, after;
    CHECK(sched_getaffinity(0, sizeof before, &before) == 0);
    int n = CPU_COUNT(&before), shared = -1;
    char desc[96];
    jv_err err = {0};
    /* local rank 1 of n + 1 ranks: more ranks than CPUs, one CPU kept, shared */
    CHECK(jv_fleet_pin(1, n + 1, 1, &shared, desc, sizeof desc, &err) == JV_OK);
    CHECK(sched_getaffinity(0, sizeof after, &after) == 0);
    CHECK_MSG(CPU_COUNT(&after) == 1 && shared == 1 && strstr(desc, "1 thread"), "%s", desc);
    CPU_AND(&after, &after, &before);
    CHECK(CPU_COUNT(&after) == 1); /* a CPU of the mask it had */
    CHECK(sched_setaffinity(0, sizeof before, &before) == 0);
    /* split 0 (bound by the launcher): the mask stays */
    CHECK(jv_fleet_pin(0, 2, 0, &shared, desc, sizeof desc, &err) == JV_OK && shared == 0);
    CHECK(sched_getaffinity(0, sizeof after, &after) == 0 && CPU_EQUAL(&after, &before));
    CHECK(strstr(desc, "bound by the launcher") != NULL);
}

/* ---- extra_runs: a fake device whose timer counts the runs queued ---- */

typedef struct {
    int calls;
    int at_start;
} fake;

static jv_status f_timer_start(void *ctx, jv_err *err) {
    (void)err;
    ((fake *)ctx)->at_start = ((fake *)ctx)->calls;
    return JV_OK;
}

static jv_status f_timer_stop(void *ctx, double *s, jv_err *err) {
    (void)err;
    *s = 1e-3 * (((fake *)ctx)->calls - ((fake *)ctx)->at_start); /* 1 ms of device work per call */
    return JV_OK;
}

static jv_status f_sync(void *ctx, jv_err *err) {
    (void)ctx;
    (void)err;
    return JV_OK;
}

static jv_status f_run(void *arg, int set, jv_err *err) {
    (void)set;
    (void)err;
    ((fake *)arg)->calls++;
    return JV_OK;
}

static void test_extra_runs(void) {
    jv_backend be;
    memset(&be, 0, sizeof be);
    be.name = "fake";
    be.timer_start = f_timer_start;
    be.timer_stop = f_timer_stop;
    be.sync = f_sync;
    jv_timing_opts o = {0};
    o.min_sample_s = 1e-3;
    o.max_time_s = 0.05;
    o.min_samples = 3;
    o.max_samples = 50;
    o.target_rsd = 0.005;
    for (int extra = 0; extra <= 3; extra += 3) {
        fake fk = {0, 0};
        jv_timing t;
        jv_err err = {0};
        o.extra_runs = extra;
        CHECK(jv_time(&be, &fk, &o, f_run, &fk, 1, 0, &t, &err) == JV_OK);
        /* each counted run queued the work 1 + extra times: (1 + extra) ms per run */
        CHECK_MSG(near(t.median_s, (1 + extra) * 1e-3), "extra %d: median %g", extra, t.median_s);
        CHECK(fk.calls >= (1 + extra) * t.runs);
    }
}

int main(void) {
    test_stats();
    test_launch();
    test_pin();
    test_extra_runs();
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}

/* jv_timing: adaptive sampling of device time (see jv_timing.h). */
#include "jv_timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void jv_timing_stats(double *s, int n, double *median, double *mean, double *rsd) {
    *median = *mean = *rsd = 0;
    if (n <= 0) return;
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    *median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += s[i];
    *mean = sum / n;
    if (n < 2 || *mean <= 0) return;
    double ss = 0;
    for (int i = 0; i < n; i++) ss += (s[i] - *mean) * (s[i] - *mean);
    *rsd = sqrt(ss / (n - 1)) / *mean;
}

/* times `runs` runs starting at set *next; seconds per run in *per */
static jv_status batch(const jv_backend *be, void *ctx, jv_run_fn fn, void *arg, int nsets, int *next, int64_t runs,
                       double *per, jv_err *err) {
    double t = 0;
    JV_CHECK(be->timer_start(ctx, err));
    for (int64_t i = 0; i < runs; i++) {
        JV_CHECK(fn(arg, *next, err));
        *next = (*next + 1) % nsets;
    }
    JV_CHECK(be->timer_stop(ctx, &t, err));
    *per = t / (double)runs;
    return JV_OK;
}

jv_status jv_time(const jv_backend *be, void *ctx, const jv_timing_opts *o, jv_run_fn fn, void *arg, int nsets,
                  jv_timing *out, jv_err *err) {
    memset(out, 0, sizeof *out);
    if (nsets < 1) nsets = 1;
    out->sets = nsets;
    int next = 0;
    int cap = o->iterations > 0 ? o->iterations : (o->max_samples > 0 ? o->max_samples : 1000);
    double *s = malloc((size_t)cap * sizeof *s);
    if (!s) JV_FAIL(err, JV_ERR_NOMEM, "out of memory for %d timing samples", cap);
    jv_status st = JV_OK;
    int n = 0;
    if (o->iterations > 0) { /* a profiler run: exactly K runs, each timed */
        for (; n < o->iterations; n++) {
            JV_CHECK_GOTO(batch(be, ctx, fn, arg, nsets, &next, 1, &s[n], err), st, done);
            out->runs++;
        }
    } else {
        /* warm-up: growing batches until warmup_s has passed (one run at least) */
        double per = 0, spent = 0;
        int64_t w = 1;
        for (int round = 0; round < 40; round++) {
            JV_CHECK_GOTO(batch(be, ctx, fn, arg, nsets, &next, w, &per, err), st, done);
            spent += per * (double)w;
            if (spent >= o->warmup_s) break;
            w *= 2;
        }
        /* runs per sample: enough to last min_sample_s; sets keep rotating across
         * samples, so consecutive runs never share operands when nsets > 1 */
        int64_t reps = per > 0 ? (int64_t)ceil(o->min_sample_s / per) : 1;
        if (reps < 1) reps = 1;
        if (reps > 1000000) reps = 1000000;
        double measured = 0;
        while (n < cap) {
            JV_CHECK_GOTO(batch(be, ctx, fn, arg, nsets, &next, reps, &s[n], err), st, done);
            measured += s[n] * (double)reps;
            out->runs += reps;
            n++;
            if (n >= o->min_samples) {
                double med, mean, rsd;
                double *tmp = malloc((size_t)n * sizeof *tmp);
                if (!tmp) {
                    st = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "out of memory");
                    goto done;
                }
                memcpy(tmp, s, (size_t)n * sizeof *tmp);
                jv_timing_stats(tmp, n, &med, &mean, &rsd);
                free(tmp);
                if (rsd <= o->target_rsd) {
                    out->converged = 1;
                    break;
                }
            }
            if (measured >= o->max_time_s) break;
        }
    }
    out->samples = n;
    if (n > 0) {
        double med, mean, rsd;
        jv_timing_stats(s, n, &med, &mean, &rsd);
        out->min_s = s[0];
        out->max_s = s[n - 1];
        out->median_s = med;
        out->mean_s = mean;
        out->rsd = n >= 2 ? rsd : NAN; /* one sample has no spread */
        if (o->iterations > 0) out->converged = 0;
    }
done:
    free(s);
    return st;
}

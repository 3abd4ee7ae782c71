/* jv_timing: adaptive sampling of device time (see jv_timing.h). */
#include "jv_timing.h"
#include "jv_progress.h" /* jv_now */
#include "jv_sort.h"     /* jv_median_sort */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void jv_timing_stats(double *s, int n, double *median, double *mean, double *rsd) {
    *median = *mean = *rsd = 0;
    if (n <= 0) return;
    *median = jv_median_sort(s, (size_t)n);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += s[i];
    *mean = sum / n;
    if (n < 2 || *mean <= 0) return;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (s[i] - *mean) * (s[i] - *mean);
    *rsd = sqrt(ss / (n - 1)) / *mean;
}

void jv_clocks_merge_load(jv_clocks *acc, const jv_clocks *c) {
    if (!c->known) return;
    if (!acc->known || c->sm_mhz < acc->sm_mhz) acc->sm_mhz = c->sm_mhz;
    if (!acc->known || c->mem_mhz < acc->mem_mhz) acc->mem_mhz = c->mem_mhz;
    if (c->sm_max_mhz > acc->sm_max_mhz) acc->sm_max_mhz = c->sm_max_mhz;
    if (c->power_w > acc->power_w) acc->power_w = c->power_w; /* the highest draw under load */
    if (c->temp_c > acc->temp_c) acc->temp_c = c->temp_c;     /* the hottest */
    acc->reasons |= c->reasons;
    acc->known = 1;
}

/* one measurement in progress */
typedef struct {
    const jv_backend *be;
    void *ctx;
    jv_run_fn fn;
    void *arg;
    int nsets, next;
    jv_timing *out;
    double clk_cost;          /* host seconds one clock read takes; < 0: the backend cannot read clocks */
    double dev_per, host_per; /* the last batch's device and host seconds per run (estimates for the next) */
    int extra;                /* jv_timing_opts.extra_runs */
} meas;

/* reads the clocks into the under-load record; a failed or unknown read stops further reads */
static void read_load(meas *m) {
    jv_clocks c;
    jv_err e = {0};
    double t0 = jv_now();
    memset(&c, 0, sizeof c);
    if (m->be->clocks(m->ctx, &c, &e) != JV_OK || !c.known) {
        m->clk_cost = -1;
        return;
    }
    m->clk_cost = jv_now() - t0;
    jv_clocks_merge_load(&m->out->load, &c);
}

/* 1 when a clock read after queueing `runs` runs ends while the device still works on them (a read that
 * outlasted the queue would leave an idle gap inside the timed region): the device is clearly the
 * bottleneck (its time per run at least 1.5x the host's: a starving device times about the host's) and
 * the backlog it builds, (device - host) time per run over the runs, exceeds twice the cost of a read */
static int read_fits(const meas *m, int64_t runs) {
    if (m->clk_cost < 0 || m->dev_per <= 0 || m->dev_per < 1.5 * m->host_per) return 0;
    return (m->dev_per - m->host_per) * (double)runs > 2 * m->clk_cost;
}

/* times `runs` runs on consecutive sets from m->next; device and host seconds per run in *per, *host */
static jv_status batch(meas *m, int64_t runs, int read_clk, double *per, double *host, jv_err *err) {
    double t = 0;
    JV_CHECK(m->be->timer_start(m->ctx, err));
    double h0 = jv_now();
    for (int64_t i = 0; i < runs; i++) {
        for (int x = 0; x <= m->extra; x++) /* extra: test only (jv_timing_opts.extra_runs) */
            JV_CHECK(m->fn(m->arg, m->next, err));
        m->next = (m->next + 1) % m->nsets;
    }
    double h1 = jv_now();
    if (read_clk) read_load(m); /* the device is still busy with the queued runs */
    JV_CHECK(m->be->timer_stop(m->ctx, &t, err));
    *per = t / (double)runs;
    *host = (h1 - h0) / (double)runs;
    m->dev_per = *per;
    m->host_per = *host;
    if (runs > m->out->max_runs_per_sample) m->out->max_runs_per_sample = (int)(runs < 1 << 30 ? runs : 1 << 30);
    return JV_OK;
}

/* cold: evicts the cache before a sample (untimed); 0 when the backend cannot (note set), -1 on a device error */
static int flush(meas *m, jv_status *st, jv_err *err) {
    jv_err fe = {0};
    jv_status s = m->be->flush_cache(m->ctx, &fe);
    if (s == JV_OK) return 1;
    if (s == JV_ERR_DEVICE) {
        *st = jv_err_set(err, s, fe.file, fe.line, "%s", fe.msg);
        return -1;
    }
    snprintf(m->out->note, sizeof m->out->note, "cache flush failed (%.120s): cold runs rotate over %d operand sets",
             fe.msg, m->nsets);
    return 0;
}

/* the samples' statistics into out */
static void summarize(jv_timing *out, double *s, double *h, int n, int profiler) {
    out->samples = n;
    if (n <= 0) return;
    double med, mean, rsd;
    jv_timing_stats(h, n, &med, &mean, &rsd);
    out->host_s = med;
    jv_timing_stats(s, n, &med, &mean, &rsd);
    out->min_s = s[0];
    out->max_s = s[n - 1];
    out->median_s = med;
    out->mean_s = mean;
    out->rsd = n >= 2 ? rsd : NAN; /* one sample has no spread */
    if (profiler) out->converged = 0;
}

/* 1 when the relative std dev of the first n samples is at most target */
static int converged(const double *s, int n, double target, double *tmp) {
    double med, mean, rsd;
    memcpy(tmp, s, (size_t)n * sizeof *tmp);
    jv_timing_stats(tmp, n, &med, &mean, &rsd);
    return rsd <= target;
}

double jv_duty_gap(double sample_s, double duty) {
    if (!(duty > 0 && duty < 1) || !(sample_s > 0)) return 0;
    double g = sample_s * (1 - duty) / duty;
    return g < JV_DUTY_MAX_GAP_S ? g : JV_DUTY_MAX_GAP_S;
}

/* waits s seconds (the device idle: the sample before was synchronized) */
static void idle_wait(double s) {
    if (!(s > 0)) return;
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

jv_status jv_time(const jv_backend *be, void *ctx, const jv_timing_opts *o, jv_run_fn fn, void *arg, int nsets,
                  int cold, jv_timing *out, jv_err *err) {
    memset(out, 0, sizeof *out);
    if (nsets < 1) nsets = 1;
    out->sets = nsets;
    out->cold = cold;
    meas m = {be, ctx, fn, arg, nsets, 0, out, be->clocks ? 0 : -1, 0, 0, o->extra_runs > 0 ? o->extra_runs : 0};
    int flushing = cold && be->flush_cache;
    if (cold && !be->flush_cache)
        snprintf(out->note, sizeof out->note,
                 "the %s backend cannot flush the last-level cache: cold runs rotate over %d operand sets", be->name,
                 nsets);
    int cap = o->iterations > 0 ? o->iterations : (o->max_samples > 0 ? o->max_samples : 1000);
    double *s = malloc((size_t)cap * sizeof *s), *h = malloc((size_t)cap * sizeof *h),
           *tmp = malloc((size_t)cap * sizeof *tmp);
    jv_status st = JV_OK;
    int n = 0;
    double per = 0, host = 0;
    int64_t reps = 1;
    if (!s || !h || !tmp) {
        st = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "out of memory for %d timing samples", cap);
        goto done;
    }
    if (be->clocks) { /* an idle read first: what one read costs */
        jv_clocks idle;
        jv_err e = {0};
        double t0 = jv_now();
        m.clk_cost = be->clocks(ctx, &idle, &e) == JV_OK && idle.known ? jv_now() - t0 : -1;
    }
    if (o->iterations > 0) { /* a profiler run: exactly K runs, each timed */
        for (; n < o->iterations; n++) {
            JV_CHECK_GOTO(batch(&m, 1, read_fits(&m, 1), &s[n], &h[n], err), st, done);
            out->runs++;
        }
    } else {
        /* warm-up: growing batches until warmup_s has passed (one run at least) */
        double spent = 0;
        int64_t w = 1;
        for (int round = 0; round < 40; round++) {
            JV_CHECK_GOTO(batch(&m, w, 0, &per, &host, err), st, done);
            spent += per * (double)w;
            if (spent >= o->warmup_s) break;
            w *= 2;
        }
        /* runs per sample: enough to last min_sample_s; hot and rotating sets keep rotating across samples,
         * so consecutive runs never share operands when nsets > 1; a flushed cold sample starts at set 0 and
         * queues at most one run per set */
        reps = per > 0 ? (int64_t)ceil(o->min_sample_s / per) : 1;
        if (reps < 1) reps = 1;
        if (reps > 1000000) reps = 1000000;
        double measured = 0, t0 = jv_now(), idled = 0;
        out->max_runs_per_sample = 0; /* samples only from here */
        while (n < cap) {
            int64_t r = reps;
            if (flushing) {
                int f = flush(&m, &st, err);
                if (f < 0) goto done;
                flushing = f;
                if (f) {
                    m.next = 0;
                    if (r > nsets) r = nsets;
                }
            }
            if (flushing && be->hold) { /* the runs are all queued before the device starts them */
                double hold = 2 * m.host_per * (double)r + JV_HOLD_MIN_S;
                JV_CHECK_GOTO(be->hold(ctx, hold < JV_HOLD_MAX_S ? hold : JV_HOLD_MAX_S, err), st, done);
            }
            JV_CHECK_GOTO(batch(&m, r, read_fits(&m, r), &s[n], &h[n], err), st, done);
            measured += s[n] * (double)r;
            out->runs += r;
            const double gap = jv_duty_gap(s[n] * (double)r, o->duty);
            idle_wait(gap);
            idled += gap;
            n++;
            if (n >= o->min_samples && converged(s, n, o->target_rsd, tmp)) {
                out->converged = 1;
                break;
            }
            if (measured >= o->max_time_s) break;
            if (n >= o->min_samples && jv_now() - t0 - idled >= 4 * o->max_time_s)
                break; /* flushes and host time count, the duty cycle's idle gaps do not */
        }
        out->flushed = cold && flushing;
        out->held = out->flushed && be->hold != NULL;
    }
    if (m.clk_cost >= 0 && !out->load.known && n > 0) {
        /* no sample could read the clocks while the device worked (the host queues no faster than the
         * device runs): one untimed batch, read while it is queued */
        for (int64_t i = 0; i < reps; i++) {
            JV_CHECK_GOTO(fn(arg, m.next, err), st, done);
            m.next = (m.next + 1) % nsets;
        }
        read_load(&m);
        JV_CHECK_GOTO(be->sync(ctx, err), st, done);
    }
    summarize(out, s, h, n, o->iterations > 0);
done:
    free(s);
    free(h);
    free(tmp);
    return st;
}

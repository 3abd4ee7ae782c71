/* jv_timing: how a replay measures (REFERENCE.md section 6): device timers
 * around batches of back-to-back runs, warm-up first, samples until the
 * relative standard deviation is under a threshold or a time limit passes;
 * min, median and max per run, and the host time spent queueing a run.
 *
 * Cold cache (nvbench's way): before every sample, outside the timed region,
 * the backend's flush_cache evicts the last-level cache, and a sample queues
 * at most one run per operand set, so every run of a sample finds its
 * operands uncached. A backend without flush_cache falls back to rotating
 * over operand sets whose total exceeds the cache, and the result says so
 * (note). Clocks are read under load: inside each sample, after its runs
 * are queued and before the timer synchronizes. */
#ifndef JV_TIMING_H
#define JV_TIMING_H

#include <stdint.h>

#include "backend.h"

typedef struct {
    double warmup_s;     /* warm-up time (at least one run) */
    double min_sample_s; /* a sample batches runs until it lasts this long (cold: at most one run per set) */
    double max_time_s;   /* stop sampling after this much measured time, or (after min_samples) after 4x this
                          * much wall time: cache flushes and host queueing count there */
    double target_rsd;   /* stop when the relative std dev of samples is below this ... */
    int min_samples;     /* ... after at least this many samples */
    int max_samples;
    int iterations; /* > 0: exactly this many runs, each its own sample, no warm-up */
    double duty;    /* share of the sampling time the device works: after each sample lasting t the host waits
                     * t * (1 - duty) / duty with the device idle (at most JV_DUTY_MAX_GAP_S). 0 or 1: samples
                     * back to back. Below 1 a power-capped GPU (an H100 or H200 running large GEMMs back to
                     * back) keeps the clock it has inside a training step, where lighter ops run between them */
    int extra_runs; /* test only (jarvis-replay under MPI, JV_FLEET_TEST_SLOW): each timed run queues the measured
                     * thing 1 + extra_runs times, counted as one run: a device really slower by that factor (the
                     * work is done in the timed region), not a multiplied number. 0 in every real run */
} jv_timing_opts;

#define JV_DUTY_MAX_GAP_S 0.05 /* the longest idle gap after one sample */

/* A cold sample's hold: twice the host's measured time to queue its runs, plus JV_HOLD_MIN_S for the timer's
 * own call; at most JV_HOLD_MAX_S. */
#define JV_HOLD_MIN_S 50e-6
#define JV_HOLD_MAX_S 0.05

/* Seconds the device idles after a sample of `sample_s` seconds at duty cycle `duty` (0 when duty is 0 or 1
 * or out of (0, 1); at most JV_DUTY_MAX_GAP_S). */
double jv_duty_gap(double sample_s, double duty);

/* Per-run times of one op in one cache mode (seconds). */
typedef struct {
    int samples;  /* 0: not measured */
    int64_t runs; /* timed runs in all */
    double min_s, median_s, max_s, mean_s;
    double rsd;              /* relative standard deviation of the samples (NAN with one sample) */
    int converged;           /* rsd reached target_rsd */
    int sets;                /* operand sets rotated (1: hot) */
    int cold;                /* 1: timed in cold mode */
    int flushed;             /* cold: 1 when the last-level cache was flushed before every sample */
    int held;                /* cold: 1 when the backend held the stream (backend.h, hold) while each flushed
                              * sample's runs were queued: the samples are device time alone */
    int max_runs_per_sample; /* the most runs one sample queued */
    double host_s;           /* host time to queue one run: median over samples of (CLOCK_MONOTONIC around
                              * the sample's run calls) / runs; near or above median_s: the device starves */
    jv_clocks load;          /* clocks under load: .sm_mhz the lowest SM clock seen, .sm_max_mhz the highest
                              * allowed, .reasons the union of the reasons seen (.known 0: none read) */
    char note[200];          /* how cold was made when not by a flush ("" otherwise) */
} jv_timing;

/* Queues one run of the measured thing on operand set `set`. */
typedef jv_be_run_fn jv_run_fn;

/* Measures fn: hot (cold 0): runs are queued on sets 0, 1, ..., nsets-1, 0,
 * ... across warm-up and samples. Cold (cold 1): as hot for the warm-up; then
 * each sample is preceded by be->flush_cache (untimed) and queues at most
 * nsets runs, each on a distinct set; without flush_cache (or when it fails
 * short of JV_ERR_DEVICE) the sets rotate as in hot mode and out->note says
 * so. Returns the backend's error on a failed run, timer or flush. */
jv_status jv_time(const jv_backend *be, void *ctx, const jv_timing_opts *o, jv_run_fn fn, void *arg, int nsets,
                  int cold, jv_timing *out, jv_err *err);

/* Median, mean and relative std dev of n samples (sorted in place). */
void jv_timing_stats(double *s, int n, double *median, double *mean, double *rsd);

/* Merges the clocks c, read under load, into acc: lowest SM and memory clock, highest allowed SM clock,
 * highest power, union of the slowdown reasons; a c that is not known leaves acc as it was. */
void jv_clocks_merge_load(jv_clocks *acc, const jv_clocks *c);

#endif

/* jv_timing: how a replay measures (REFERENCE.md section 6): device timers
 * around batches of back-to-back runs, warm-up first, samples until the
 * relative standard deviation is under a threshold or a time limit passes;
 * min, median and max per run. Cold-cache runs rotate over operand sets whose
 * total exceeds the last-level cache, so no run finds its data cached. */
#ifndef JV_TIMING_H
#define JV_TIMING_H

#include <stdint.h>

#include "backend.h"

typedef struct {
    double warmup_s;     /* warm-up time (at least one run) */
    double min_sample_s; /* a sample batches runs until it lasts this long */
    double max_time_s;   /* stop sampling after this much measured time */
    double target_rsd;   /* stop when the relative std dev of samples is below this ... */
    int min_samples;     /* ... after at least this many samples */
    int max_samples;
    int iterations;      /* > 0: exactly this many runs, each its own sample, no warm-up */
} jv_timing_opts;

/* Per-run times of one op in one cache mode (seconds). */
typedef struct {
    int samples;         /* 0: not measured */
    int64_t runs;        /* timed runs in all */
    double min_s, median_s, max_s, mean_s;
    double rsd;          /* relative standard deviation of the samples (NAN with one sample) */
    int converged;       /* rsd reached target_rsd */
    int sets;            /* operand sets rotated (1: hot) */
} jv_timing;

/* Queues one run of the measured thing on operand set `set`. */
typedef jv_be_run_fn jv_run_fn;

/* Measures fn: runs are queued on sets 0, 1, ..., nsets-1, 0, ... across warm-up and samples (nsets 1:
 * hot cache). Returns the backend's error on a failed run or timer. */
jv_status jv_time(const jv_backend *be, void *ctx, const jv_timing_opts *o, jv_run_fn fn, void *arg, int nsets,
                  jv_timing *out, jv_err *err);

/* Median, mean and relative std dev of n samples (sorted in place). */
void jv_timing_stats(double *s, int n, double *median, double *mean, double *rsd);

#endif

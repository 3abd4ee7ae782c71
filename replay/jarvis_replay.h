/* jarvis_replay.h: the jarvis-replay program's own interface between its two files: jarvis_replay.c (the
 * options, one replay on one device) and jarvis_replay_fleet.c (the fleet under MPI, built with JV_MPI only).
 * Not a library header: nothing outside the program includes it. */
#ifndef JARVIS_REPLAY_H
#define JARVIS_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "jv_fleet.h"
#include "jv_session.h"

/* The command line. */
typedef struct {
    const char *package;
    int device;
    const char *backend; /* "auto" or a name of backends/backends.def */
    int list, peak, no_baseline, quiet;
    jv_opsel ops; /* --op LIST (repeatable): the ops replayed; none named: all */
    int iterations;
    const char *cache; /* hot, cold, both */
    int64_t baseline_bytes, max_bytes;
    long long peak_gemm; /* -1: default for the device */
    double time_limit;   /* <= 0: default */
    double duty;         /* 0: back to back */
    double deadline;     /* --deadline: wall seconds from the start after which no op starts (0: none) */
    unsigned long long seed;
    int has_seed;
    const char *bench_out, *bench_fmt, *report, *gpu_arch;
    const char *conv_algo;                         /* heuristic (default), immediate (HIP), best */
    const char *gemm_algo;                         /* heuristic (default), best */
    int no_graph;                                  /* --no-graph: no graph timing of short ops */
    int device_given;                              /* --device was on the command line */
    const char *out;                               /* -o OUT: a folder for the outputs (and the fleet report) */
    double fleet_k, fleet_min_band, fleet_timeout; /* the band and rank 0's wait (fleet mode) */
    int fleet_best;                                /* --fleet-stat best */
    int print_repro; /* --print-repro: print reproducer commands (of the --op ops, else all) and exit */
} jv_replay_cli;

/* Where one replay runs and what it also records (fleet mode). */
typedef struct {
    const char *who;     /* message prefix: "jarvis-replay" or "jarvis-replay: rank 3" */
    int gpu_device;      /* device index on a GPU backend */
    int host_device;     /* ... on the host backend */
    int extra_runs;      /* test only: jv_timing_opts.extra_runs */
    double min_sample_s; /* > 0: the shortest timed sample (ranks sharing a CPU: JV_FLEET_SHARED_SAMPLE_S) */
    int full_sampling;   /* 1: sample for the whole time limit, no early stop on a small spread (--fleet-stat best) */
    jv_fleet_rank *rec;  /* fleet mode: filled with the device, ceilings and state (NULL: single run) */
    jv_fleet_op **ops;   /* fleet mode: *ops gets the op records (malloc'd) */
} jv_replay_env;

/* One replay of c's package (or --peak) on one device: the measured ceilings, the ops, the outputs c names;
 * in fleet mode env->rec and env->ops are filled. Returns the exit status (0, 1). */
int jv_replay_one(const jv_replay_cli *c, const char *argv0, const jv_replay_env *env);

/* The fleet (a build with MPI, started by a launcher): every rank replays on its local device into
 * OUT/rank<k>/, rank 0 gathers the records (polled against a deadline) and writes OUT/fleet.json, OUT/fleet.md
 * and the console summary. Returns the exit status; a rank that cannot go on ends the job with MPI_Abort. */
int jv_replay_fleet(jv_replay_cli *c, const char *argv0, int *argc, char ***argv, const char *launcher);

#endif

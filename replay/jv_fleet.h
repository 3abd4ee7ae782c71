/* jv_fleet: fleet replay (jarvis-replay under mpirun or srun, one rank per GPU): the typed records a rank
 * sends to rank 0 (one fixed struct per rank, one per op: no text round trip), the fleet statistics (per
 * metric the median and the MAD of the logarithms over the ranks, the band median * exp(+-h) with
 * h = max(k * MAD(ln), ln(1 + min_band)), the
 * GPUs and nodes outside it with the metrics where they are slow), and what needs no MPI: which launcher
 * started this process and with how many ranks, and the CPU slice a rank keeps for its threads. The MPI
 * transport is jv_fleet_mpi.c (built with JV_MPI only); the writers are jv_fleet_out.c. */
#ifndef JV_FLEET_H
#define JV_FLEET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "jv_baseline.h"
#include "jv_runner.h"

#define JV_FLEET_MAX_OPS 1000000 /* a record announcing more ops is refused as damaged */

/* What became of a rank. */
typedef enum {
    JV_FLEET_OK = 0,     /* replayed; every op verified (or skipped on request) */
    JV_FLEET_FAILED_OPS, /* replayed; some op WRONG, an error, refused or not run (its ops say which) */
    JV_FLEET_FAILED,     /* could not replay at all (package, device, baseline): the message says why */
    JV_FLEET_MISSING     /* no record reached rank 0 before the deadline (hung, crashed or too slow) */
} jv_fleet_state;

/* Short name of a state ("ok", "failed ops", "FAILED", "MISSING"). */
const char *jv_fleet_state_str(jv_fleet_state s);

/* One replayed op as a rank measured it. */
typedef struct {
    int index, variant;           /* entry index in the IR, the backend's implementation */
    int status;                   /* jv_res_status */
    double hot_s, cold_s;         /* per-run medians over the samples (0: not measured) */
    double hot_min_s, cold_min_s; /* per-run times of the fastest sample (0: not measured) */
    double flops, bytes;          /* the model's numbers */
    char label[200];
} jv_fleet_op;

/* One rank: where it ran, what it is, its measured ceilings, how it ended. */
typedef struct {
    int rank, size, local_rank, local_size;
    char host[64];
    int device; /* device index it opened */
    char device_name[128], backend[16], driver[64], arch[32];
    int is_gpu, compute_units;
    char uuid[48], pci[24]; /* where the backend knows them ("" elsewhere: the CPU) */
    char cpus[96];          /* the CPU slice its threads keep ("cpus 0-3, 4 threads"), "" when not pinned */
    int state;              /* jv_fleet_state */
    int rc;                 /* exit status of this rank's replay alone (0, 1) */
    char error[512];
    double wall_s; /* seconds its replay took */
    int base_done;
    double bw[JV_BASE_COUNT];      /* baseline bytes/s per kernel, median sample (0: not measured) */
    double bw_best[JV_BASE_COUNT]; /* ... fastest sample */
    int base_verified[JV_BASE_COUNT];
    int gemm_done;
    double gemm_flops, gemm_flops_best; /* FLOP/s of the compute-ceiling GEMM: median and fastest sample */
    char gemm_dtype[12];
    long long gemm_n;
    int n_ops;      /* entries of jv_fleet_op that follow */
    int test_extra; /* test only: JV_FLEET_TEST_SLOW's extra runs per timed run on this rank (0 in real runs) */
} jv_fleet_rank;

/* How many processes the launcher that started this one says the job has: the first of
 * OMPI_COMM_WORLD_SIZE (mpirun), PMI_SIZE (srun --mpi=pmi2, MPICH), SLURM_STEP_NUM_TASKS (srun) that is set,
 * its name in var; these are set for a process a launcher started, so *certain is 1. Else SLURM_NTASKS (set
 * in a whole Slurm allocation, a batch script's single process included) with *certain 0. Returns 0 (var
 * "") when none is set or the value is not a positive integer. */
int jv_fleet_launch_size(char *var, size_t cap, int *certain);

/* A hash of this process's CPU affinity mask (0 when it cannot be read): equal on every local rank when the
 * launcher did not bind them. */
uint64_t jv_fleet_mask_hash(void);

/* Keeps this process's threads to its share of the CPU affinity mask it has, local rank lr of ls on the
 * node: CPUs [lr*n/ls, (lr+1)*n/ls) of its n allowed CPUs, or CPU lr % n alone when ls > n (oversubscribed:
 * *shared 1); then sets the OpenMP thread count (oneDNN and the CPU kernels use it) to the CPUs kept. With
 * split 0 (the launcher bound the ranks already: their masks differ) the mask stays and only the thread
 * count follows it. desc gets what was done. JV_ERR_IO when the mask cannot be read or set. */
jv_status jv_fleet_pin(int lr, int ls, int split, int *shared, char *desc, size_t cap, jv_err *err);

/* The shortest timed sample on a CPU that ranks share (oversubscribed): several scheduler time slices, so
 * that every sample sees the same share of the CPU instead of all of it or a slice less. */
#define JV_FLEET_SHARED_SAMPLE_S 0.02

/* Fills r's device, ceilings and state from a finished replay (props NULL: the device never opened; base
 * NULL or not done: no ceilings), rc its exit status alone, error its message or NULL, the ops' results. */
void jv_fleet_rank_fill(jv_fleet_rank *r, const jv_device_props *props, const jv_baseline *base, int rc,
                        const char *error, int n_ops);

/* Copies n results into n op records. */
void jv_fleet_ops_fill(jv_fleet_op *ops, const jv_op_result *res, int n);

/* How a metric reads: a rate (higher is better) or a time (lower is better). */
typedef enum { JV_FM_BW = 0, JV_FM_FLOPS, JV_FM_TIME } jv_fleet_kind;

/* One metric across the fleet. */
typedef struct {
    char name[240];    /* "baseline triad", "GEMM fp32 512^3", "op 3 aten::mm ... (hot)" */
    int kind;          /* jv_fleet_kind */
    int op;            /* the op (index into jv_fleet.ref) or -1 */
    int n;             /* ranks with a value */
    double median;     /* over the ranks with a value */
    double mad_ln;     /* median |ln(value / median)|: the spread as a ratio (0.1: about 10 %) */
    double lo, hi;     /* the band [lo, hi]; NAN when n < JV_FLEET_MIN_RANKS */
    double *value;     /* per rank (NAN: none) */
    signed char *flag; /* per rank: +1 slow, -1 fast (outside the band), 0 inside or no value */
} jv_fleet_metric;

#define JV_FLEET_MIN_RANKS 3 /* fewer values than this: no band (a median of two says nothing) */

/* The fleet: its ranks, their ops (not owned), the statistics (owned). */
typedef struct {
    int nranks;
    const jv_fleet_rank *ranks;    /* by rank */
    const jv_fleet_op *const *ops; /* ops[r]: ranks[r].n_ops records (NULL: none) */
    double k, min_band;
    int best; /* 1: the metrics are the fastest samples' (--fleet-stat best), 0: the medians */
    int ref;  /* the rank whose op list names the op metrics (-1: none ran) */
    int nmetrics;
    jv_fleet_metric *m;
    int *slow, *fast;  /* per rank: metrics outside the band, slow side and fast side */
    double *score;     /* per rank: geometric mean over the op metrics of value / median (NAN: none) */
    int flagged;       /* ranks with a slow or fast metric */
    int nnodes;        /* distinct hosts (of the ranks that sent a record) */
    int *node;         /* per rank: its node, numbered in order of first appearance (-1: missing) */
    int *node_flagged; /* per node: 1 when the fleet has several nodes and every rank of this one is flagged */
    int *same_gpu;     /* per rank: the first other rank on the same host with the same GPU UUID or PCI address
                        * (two ranks sharing one GPU: their numbers mean little), -1 none */
    int failed;        /* ranks not OK (failed ops, failed, missing) */
} jv_fleet;

/* Computes the statistics of nranks ranks (ops[r] their op records) into f (zeroed by the caller): a
 * metric per baseline kernel, the GEMM and each op (hot, else cold) that at least one rank ran; a value per
 * rank that measured it (a verified result only): the median sample's, or with best the fastest sample's
 * (STREAM's figure). A rank is flagged on a metric when n >= JV_FLEET_MIN_RANKS and
 * |ln(value / median)| > max(k * MAD(ln), ln(1 + min_band)), MAD(ln) the median of |ln(value / median)|
 * over the ranks with a value. JV_ERR_NOMEM. */
jv_status jv_fleet_analyze(jv_fleet *f, const jv_fleet_rank *ranks, const jv_fleet_op *const *ops, int nranks, double k,
                           double min_band, int best, jv_err *err);

/* Frees the statistics and zeroes f. */
void jv_fleet_free(jv_fleet *f);

/* What the fleet report says of the run. */
typedef struct {
    const char *package; /* or "(none: --peak)" */
    const char *date;
    int peak;             /* --peak: hardware validation */
    double timeout_s;     /* how long rank 0 waited for the others */
    const char *per_rank; /* where each rank's own outputs are ("OUT/rank<k>/") */
    const char *launcher; /* the variable that told the size ("OMPI_COMM_WORLD_SIZE") */
} jv_fleet_meta;

/* Writes the fleet JSON (jv_fleet_out.c): the run, every rank with its ceilings, ops and flags, every
 * metric with its median, MAD, band and outliers, the nodes. */
jv_status jv_fleet_write_json(const char *path, const jv_fleet *f, const jv_fleet_meta *meta, jv_err *err);

/* Writes the fleet markdown report. */
jv_status jv_fleet_write_md(const char *path, const jv_fleet *f, const jv_fleet_meta *meta, jv_err *err);

/* Prints the fleet summary ('#' header and footer lines, one line per rank, the flagged GPUs). */
void jv_fleet_console(FILE *out, const jv_fleet *f, const jv_fleet_meta *meta);

#endif

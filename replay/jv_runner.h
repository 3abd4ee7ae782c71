/* jv_runner: replays one op of a replay IR on a backend: allocates each tensor
 * with its traced shape, strides and dtype, fills it with seeded random data,
 * runs the op once and verifies it against the CPU reference (relative L2
 * error per dtype, max abs error, sum(|x|) checksums, poisoned outputs fully
 * written, no NaN), then times it hot and/or cold (jv_timing), and inside a
 * device graph when launching is a noticeable part of its time. */
#ifndef JV_RUNNER_H
#define JV_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "jv_family.h"
#include "jv_ir.h"
#include "jv_timing.h"
#include "jv_verify.h"

/* What became of an op. */
typedef enum {
    JV_RES_OK = 0,  /* ran, verified */
    JV_RES_WRONG,   /* ran, verification failed */
    JV_RES_SKIPPED, /* left out on request (--max-bytes), or the backend has no kernel for it (the reason says) */
    JV_RES_REFUSED, /* could not run: not replayable, too large for the device, out of memory */
    JV_RES_ERROR,   /* a backend call failed */
    JV_RES_NOT_RUN  /* not attempted: the run stopped before it (the device context became unusable) */
} jv_res_status;

/* Short name of a result status ("ok", "WRONG", "skipped", "refused", "error", "not run"). */
const char *jv_res_status_str(jv_res_status s);

/* Everything measured for one op. */
typedef struct {
    int index;       /* entry index in the IR */
    char op[96];     /* op name */
    char label[200]; /* op name with a shape summary, unique in a package */
    jv_res_status status;
    char reason[640]; /* why not OK */
    char impl[192];   /* implementation that ran ("oneDNN matmul", "cuBLASLt algo 66 tile id 24 ...") */
    int variant;      /* the backend's implementation index (0: what the framework runs) */
    int family;       /* registry index, -1 unknown */
    char family_name[24];
    jv_perf perf;        /* the model's FLOPs and bytes */
    int64_t alloc_bytes; /* bytes of one set of operands */
    jv_verify verify;
    jv_timing hot, cold;          /* valid when .samples > 0 */
    char graph_why[160];          /* why launching counts for this op (jv_graph_wanted), "" when it does not */
    double graph_s;               /* per run inside a device graph (ops with graph_why); 0: not measured */
    int graph_runs;               /* runs captured in the graph */
    char graph_note[160];         /* why the graph was not measured (capture refused), "" otherwise */
    jv_clocks clk_start, clk_end; /* device clocks at idle before and after timing: context only (.known 0) */
    jv_clocks clk_load;           /* under load, over hot and cold timing: lowest SM clock, highest power, union of
                                   * reasons */
    int throttled;                /* 1: under load, the SM clock fell > 10 % under the allowed maximum, or a power,
                                   * thermal or hardware-slowdown reason was in force */
    char throttle[160];           /* what was seen */
    /* from the package (our "jarvis" keys; zero / empty for a TraceLens file) */
    int64_t traced_count;
    double traced_median_us, traced_total_us;
    char traced_kernels[512]; /* "; "-joined */
    char category[32];
    int64_t ex_uid;   /* -1 unknown */
    jv_layout layout; /* layout of the first tensor operand */
} jv_op_result;

/* Options of a replay run. */
typedef struct {
    int cache_hot, cache_cold; /* which cache modes to time */
    jv_timing_opts timing;
    uint64_t seed;
    int64_t max_bytes;       /* 0: no cap; else ops whose operands need more are skipped */
    double verify_max_flops; /* above this the reference checks a sample of outputs */
    int verify_last;         /* 1 (default): verify the OUT outputs again after the timed launches, and the INOUT
                              * ones after one more launch from their restored inputs */
    int64_t verify_samples;  /* elements per output in a sampled verification (at most; fewer, >= 256, where
                              * one element's reference is costly), spread over its blocks (jv_sampling.h) */
    int64_t verify_lines;    /* complete rows and as many complete columns a sampled output adds (default 2;
                              * fewer where they cost over 0.5 s of reference) */
    int64_t cold_bytes;      /* rotate operand sets until they span this many bytes (0: 2x the LLC) */
    int variant;             /* the backend implementation to run (0: what the framework runs) */
    int graph;               /* 1: also time inside a device graph the ops jv_graph_wanted picks (--no-graph: 0) */
    int quiet;
} jv_run_opts;

/* The graph rule: an op is also timed inside a device graph (its device time without the cost of
 * launching it) when launching is a noticeable part of its time: the device's measured launch cost is
 * at least JV_GRAPH_LAUNCH_FRAC of the hot median, or the host's measured time to queue one run is at
 * least JV_GRAPH_HOST_FRAC of it (the device then starves between runs). */
#define JV_GRAPH_LAUNCH_FRAC 0.05
#define JV_GRAPH_HOST_FRAC   0.5

/* Applies the graph rule to a hot timing on device p: 1 (with the numbers behind it in why) when the op
 * should be graph-timed, 0 (why "") otherwise or when hot was not measured. */
int jv_graph_wanted(const jv_timing *hot, const jv_device_props *p, char *why, size_t cap);

/* Defaults for a backend's device (time limits shorter on a CPU). */
void jv_run_opts_default(jv_run_opts *o, const jv_device_props *p);

/* Parses op into d and its replay operands into ops, and fills r's
 * identity (index, op, label, family, model numbers, traced numbers from the
 * entry's "jarvis" keys). Returns 1 when the op can be replayed; 0 with
 * r->status JV_RES_REFUSED and r->reason otherwise. */
int jv_describe_op(const jv_ir_op *op, jv_op_result *r, jv_desc *d, jv_operands *ops);

/* Number of implementations the backend offers for op (0 when it cannot
 * run it, or the op is not replayable): each is prepared and released. */
int jv_op_variants(const jv_backend *be, void *ctx, const jv_ir_op *op);

/* Replays op `op` (implementation o->variant) on an open backend: fills r completely. Returns JV_OK when
 * the op was handled, whatever r->status says (a failed backend call: JV_RES_ERROR with the message in
 * r->reason); JV_ERR_DEVICE (r->status JV_RES_ERROR, the message in err) when a backend call reported
 * the context unusable: the caller must stop using it. */
jv_status jv_run_op(const jv_backend *be, void *ctx, const jv_device_props *props, const jv_run_opts *o,
                    const jv_ir_op *op, jv_op_result *r, jv_err *err);

/* Fills n elements of a host buffer of dtype dt with the init pattern, from
 * a seeded counter-based generator: same seed, same values, whatever the
 * thread count (chunks run in parallel where built with OpenMP). */
void jv_fill_host(void *buf, jv_dtype dt, int64_t n, jv_init init, uint64_t seed);

#endif

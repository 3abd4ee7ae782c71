/* jv_replay_pkg: the replay package jarvis-analyze writes
 * (OUTDIR/replay_package.zip): one replay IR entry per distinct (op, shapes,
 * strides, dtypes, scalar args) of the replayed families (GEMM, convolution,
 * batch norm, elementwise), ordered by traced GPU time, with our keys (traced
 * count, kernel names and times, device, category, model FLOPs and bytes,
 * ex_UID); a manifest (trace name, SHA-256 and size, device properties,
 * jarvis version, creation time, the selection, and the ops not replayed with
 * the reason); a README for a kernel engineer; and reproduce.md (ir/jv_repro: per op the AMD vendor tool
 * line and a PyTorch snippet). */
#ifndef JV_REPLAY_PKG_H
#define JV_REPLAY_PKG_H

#include "jv_perf.h"
#include "jv_trace.h"

typedef struct {
    int top;            /* at most this many ops (0: no limit) */
    double min_percent; /* only ops with at least this share of GPU kernel time */
    const char *trace;  /* the trace path (named and hashed in the manifest) */
} jv_replay_pkg_opts;

typedef struct {
    int ops;            /* entries written */
    int not_replayed;   /* distinct ops listed as not replayable */
    double replayed_us; /* traced kernel time of the entries */
    double total_us;    /* all GPU kernel time owned by op instances */
} jv_replay_pkg_summary;

/* The package's texts, built while the perf table exists and written after
 * it is freed (libzip's buffers then reuse its memory: the peak stays). */
typedef struct {
    char *ir_text;       /* replay_ir.json */
    char *manifest_text; /* manifest.json */
    char *repro_text;    /* reproduce.md */
    jv_replay_pkg_summary sum;
    int32_t *op_of_model; /* per perf model: its index in replay_ir.json (jarvis-replay --op N), -1 when left out */
    size_t nmodels;
} jv_replay_pkg;

/* Chooses the ops and builds replay_ir.json, reproduce.md and manifest.json (the trace
 * file is hashed here). JV_ERR_IO naming the trace when it cannot be read
 * again; JV_ERR_NOMEM. On success release with jv_replay_pkg_free. */
jv_status jv_replay_pkg_build(const jv_trace *tr, const jv_perf_table *pt, const jv_replay_pkg_opts *o,
                              jv_replay_pkg *pkg, jv_err *err);

/* Writes OUTDIR/replay_package.zip with the three texts and the README
 * (temporary name, renamed when complete). */
jv_status jv_replay_pkg_commit(const jv_replay_pkg *pkg, const char *outdir, jv_err *err);

/* Releases the texts (safe on a zeroed pkg). */
void jv_replay_pkg_free(jv_replay_pkg *pkg);

#endif

/* jv_replay_pkg: the replay package jarvis-analyze writes
 * (OUTDIR/replay_package.zip): one replay IR entry per distinct (op, shapes,
 * strides, dtypes, scalar args) of the replayed families (GEMM, convolution,
 * batch norm, elementwise), ordered by traced GPU time, with our keys (traced
 * count, kernel names and times, device, category, model FLOPs and bytes,
 * ex_UID); a manifest (trace name, SHA-256 and size, device properties,
 * jarvis version, creation time, the selection, and the ops not replayed with
 * the reason); and a README for a kernel engineer. */
#ifndef JV_REPLAY_PKG_H
#define JV_REPLAY_PKG_H

#include "jv_perf.h"
#include "jv_trace.h"

typedef struct {
    int top;             /* at most this many ops (0: no limit) */
    double min_percent;  /* only ops with at least this share of GPU kernel time */
    const char *trace;   /* the trace path (named and hashed in the manifest) */
} jv_replay_pkg_opts;

typedef struct {
    int ops;             /* entries written */
    int not_replayed;    /* distinct ops listed as not replayable */
    double replayed_us;  /* traced kernel time of the entries */
    double total_us;     /* all GPU kernel time owned by op instances */
} jv_replay_pkg_summary;

/* Writes OUTDIR/replay_package.zip (temporary name, renamed when complete). */
jv_status jv_replay_pkg_write(const jv_trace *tr, const jv_perf_table *pt, const jv_replay_pkg_opts *o,
                              const char *outdir, jv_replay_pkg_summary *sum, jv_err *err);

#endif

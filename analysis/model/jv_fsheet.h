/* jv_fsheet: TraceLens' family sheets (GEMM, CONV_fwd, CONV_bwd, ...) of a
 * perf table as typed rows: the instances of the families that write one
 * sheet, grouped by op name and params, each group's metrics, statistics,
 * kernels and recorded args computed here once. report/jv_perf_sheet.c
 * prints them, reading only. */
#ifndef JV_FSHEET_H
#define JV_FSHEET_H

#include <stddef.h>
#include <stdint.h>

#include "jv_enclose.h"
#include "jv_hw.h"
#include "jv_perf.h"
#include "jv_pgroup.h"
#include "jv_stats.h"
#include "jv_trace.h"

/* One row: a group of instances with the same op name and params. */
typedef struct {
    const char *name;        /* the op (a trace string) */
    const jv_params *params; /* the group's params (the set's per-model params, jv_fsheet_params) */
    jv_inst_metrics m;       /* of the group's first instance (smallest UID) */
    jv_stats tbs, tfl;       /* TB/s and TFLOPS/s over the instances */
    jv_stats pct;            /* Pct Roofline over the instances (TraceLens' column: hw's peaks); NaN without a GPU */
    double band_pct;         /* mean % of the roofline under the peak policy (judge_hw), for the Efficiency Band */
    jv_stats kt;             /* Kernel Time (µs) over the instances */
    const char *process_name, *process_label, *thread_name; /* of the first instance, "Unknown" when none */
    const char *region;   /* the torch.compile region that launched the first instance (jv_fsheet_regions), NULL
                           * when none */
    char *kfull, *ktrunc; /* kernel_details summaries (malloc'd; NULL when they could not be made) */
    char *args[4];        /* Input Dims, Input type, Input Strides, Concrete Inputs of the first instance in
                           * Python form (malloc'd; NULL when not recorded) */
    uint32_t count;       /* instances */
    uint32_t uid;         /* UID of the first instance */
} jv_frow;

/* One sheet. */
typedef struct {
    char name[64];                   /* "GEMM", "CONV_fwd", ... */
    int ncols;                       /* param columns, in header order: the first row's params less those */
    const char *cols[JV_MAX_PARAMS]; /* that are nan in every row (names are the family's) */
    int has_region;                  /* 1 when a row has a region */
    size_t nrows;
    jv_frow *rows; /* by Kernel Time sum, largest first, then UID */
} jv_fsheet;

/* The params of every model of pt, indexed by model (malloc'd array of pt->nmodels, empty for a model that
 * failed); NULL when out of memory. */
jv_params *jv_fsheet_params(const jv_trace *tr, const jv_perf_table *pt);

/* The torch.compile regions of tr ("Torch-Compiled Region: <frame>/<compile>" cpu_ops, which Dynamo records
 * around each call of a compiled frame, holding the kernels it launches: Triton's and library calls alike), for
 * jv_fsheet_build. JV_ERR_NOMEM (out left empty). */
jv_status jv_fsheet_regions(const jv_trace *tr, jv_enclose *out);

/* The sheet called `sheet` of the instances whose model's family writes sheet `base` (bwd: -1 any, 0 forward,
 * 1 backward), with ps from jv_fsheet_params; hw: the sheet GPU (TraceLens' peaks, for TraceLens' roofline
 * columns), judge_hw: the same GPU with the peak policy's peaks (jv_digest.hw, for band_pct); both NULL: no
 * roofline; regions from jv_fsheet_regions (each row's region). out->nrows is 0 when no instance belongs.
 * JV_ERR_NOMEM (out left empty). */
jv_status jv_fsheet_build(const jv_trace *tr, const jv_perf_table *pt, const jv_hw *hw, const jv_hw *judge_hw,
                          const jv_params *ps, const jv_enclose *regions, const char *base, const char *sheet, int bwd,
                          jv_fsheet *out, jv_err *err);

/* Frees the rows of s and empties it. */
void jv_fsheet_free(jv_fsheet *s);

#endif

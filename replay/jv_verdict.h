/* jv_verdict: what a replayed op's numbers mean (DESIGN.md, "Replay"): its
 * achieved bandwidth and FLOP rate, its roofline time on the ceilings this
 * device measured (jv_baseline) and on the datasheet, and one of: near the
 * hardware limit, kernel issue, launch-bound, layout overhead. Efficiency is
 * a fraction of the measured ceiling, so a trace from one GPU can be judged
 * on another. The rules are hw/jv_judge.h's, shared with analysis; this file
 * chooses what they judge: the figure, the measured ceilings, the launch cost
 * measured at open, the layout kernels of the trace. */
#ifndef JV_VERDICT_H
#define JV_VERDICT_H

#include "jv_baseline.h"
#include "jv_hw.h"
#include "jv_judge.h"
#include "jv_runner.h"

/* The figure a verdict judges: the best honest per-run time of the op.
 * - COLD_NO_GAP: cold was measured and so was the graph: the cold median less the launch gap
 *   (hot median - graph per-run time, >= 0), never below the graph time: the device time of a
 *   cold run without the cost of launching it ("cold, launch gap removed");
 * - COLD: cold measured, no graph: the cold median;
 * - GRAPH: only hot measured, and the graph: the graph's per-run time;
 * - HOT: else the hot median. */
typedef enum { JV_FIG_NONE = 0, JV_FIG_HOT, JV_FIG_GRAPH, JV_FIG_COLD, JV_FIG_COLD_NO_GAP } jv_figure;

/* Name of a figure ("hot", "graph", "cold", "cold, launch gap removed", "-"). */
const char *jv_figure_str(jv_figure f);

/* Short name for the console table ("hot", "graph", "cold", "cold-gap", "-"). */
const char *jv_figure_short(jv_figure f);

/* The launch gap of a graph-timed op: hot median - graph per-run time, >= 0 (0 when not graph-timed). */
double jv_launch_gap_s(const jv_op_result *r);

/* The figure and its per-run seconds (*time_s) for a result; JV_FIG_NONE (time 0) when nothing was timed. */
jv_figure jv_figure_of(const jv_op_result *r, double *time_s);

typedef struct {
    jv_judgement kind;         /* the verdict (hw/jv_judge.h's rules); JV_JUDGE_NONE: not judged */
    jv_figure figure;          /* the figure judged (jv_figure_of) */
    const char *cache;         /* the cache mode of that figure: "cold" or "hot" (NULL: not judged) */
    double time_s;             /* its per-run seconds */
    double achieved_bw;        /* bytes/s (NAN when the model has no bytes) */
    double achieved_flops;     /* FLOP/s */
    double bw_ceiling;         /* measured, bytes/s (0 unknown) */
    double flops_ceiling;      /* measured for the op's compute dtype, FLOP/s (0 unknown) */
    double bound_s;            /* roofline time on the measured ceilings (0 unknown) */
    double eff;                /* bound_s / time_s (NAN unknown) */
    double eff_datasheet;      /* datasheet roofline time / time_s (NAN without a datasheet) */
    const char *limiter;       /* "memory" or "compute" */
    double traced_over_replay; /* traced median kernel time / replay time (NAN unknown) */
    char why[320];             /* one sentence with the numbers behind the verdict */
} jv_verdict;

/* Judges a measured op. ds: the device's datasheet entry, or NULL. */
void jv_verdict_of(const jv_op_result *r, const jv_baseline *b, const jv_hw *ds, const jv_device_props *p,
                   jv_verdict *v);

#endif

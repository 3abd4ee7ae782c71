/* jv_row_eval: what the category findings and the standalone reports share,
 * below both: the finding records, the evaluation of a digest row against the
 * roofline and the trace's elementwise baseline, and the markdown helpers for
 * kernel names and durations. */
#ifndef JV_ROW_EVAL_H
#define JV_ROW_EVAL_H

#include <stddef.h>

#include "jv_digest.h"

/* One recommendation: an issue found in a category, the action, and its
 * estimated saving; the detail lives in category_findings/<cat>_findings.md#anchor. */
typedef struct {
    jv_dcat cat;
    char anchor[48];
    char title[96]; /* a short heading ("Layout conversions around convolutions") */
    char issue[512];
    char action[640];
    char impact[384];
    double time_us; /* the GPU time the issue concerns */
    double gain_us; /* estimated saving (the ranking key); its basis is stated in impact */
} jv_finding;

typedef struct {
    jv_finding *v;
    size_t n, cap;
} jv_finding_list;

/* The efficiency of one row against the roofline and the trace's elementwise baseline. */
typedef struct {
    int has_roof; /* roofline time and peak known */
    int memory_bound;
    double peak;            /* TB/s (memory-bound) or TFLOPS/s (compute-bound); NaN without roofline */
    double achieved;        /* mean achieved TB/s or TFLOPS/s */
    double pct;             /* Pct Roofline_mean (%) */
    double eff;             /* aggregate efficiency (%): count * roofline time / kernel time */
    double vs_base;         /* achieved TB/s / the trace's elementwise baseline TB/s (memory-bound rows), else NaN */
    const char *band;       /* excellent / good / acceptable / investigate, "" without roofline */
    jv_judgement judgement; /* the verdict (hw/jv_judge.h); JV_JUDGE_NONE for no model / no roofline */
    const char *verdict;    /* its name (jv_judge_str), or "no model", "no roofline" */
} jv_row_eval;

/* Evaluates row r of digest d: no model / no roofline, else the verdict of hw/jv_judge.h's rules on the
 * median kernel time, the roofline time of one call, Pct Roofline_mean, the nominal launch cost, the
 * share of layout-conversion kernels and (memory-bound rows) the trace's elementwise baseline as the
 * measured ceiling. */
void jv_row_evaluate(const jv_digest *d, const jv_drow *r, jv_row_eval *e);

/* The trace's elementwise baseline as % of the roofline GPU's HBM bandwidth; NaN when unknown. */
double jv_baseline_pct_of_hbm(const jv_digest *d);

/* Markdown helpers shared by the reports (the escapers are core/jv_escape.h's jv_md_code and jv_md_text). */
/* A kernel name without "void ", template arguments and parameter list, e.g. "at::native::foo_kernel<...>". */
const char *jv_md_kernel_short(const char *name, char *buf, size_t cap);
/* A duration in µs as "12.34 ms" (>= 1 ms) or "812.3 µs". Returns buf (cap >= 32). */
const char *jv_md_time(char *buf, size_t cap, double us);

#endif

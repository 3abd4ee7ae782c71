/* jv_multirank_report: the cross-rank outputs of a job (jv_job) in OUTDIR: the sheets (csv + one xlsx),
 * multirank_report.md and report.html with the per-rank timeline picture. They print jv_job read-only. */
#ifndef JV_MULTIRANK_REPORT_H
#define JV_MULTIRANK_REPORT_H

#include "jv_multirank.h"

/* Writes into outdir: perf_report_csvs/{coll_analysis, nccl_implicit_sync, straggler_summary, rank_summary,
 * idle_time_breakdown}.csv and perf_report.xlsx (the same sheets). Every file under a temporary name, renamed on
 * success. */
jv_status jv_multirank_sheets(const jv_job *job, const char *outdir, jv_err *err);

/* Writes outdir/multirank_report.md: the communication advice (the measured waits for the last rank against the
 * transfers after it); per rank the GPU time, overlap and idle breakdown; the collectives per
 * message size; the straggler summary; the most skewed collectives. rank_dirs[r] (job order): the folder of
 * rank r's own outputs, relative to outdir (linked). */
jv_status jv_multirank_md(const jv_job *job, const char *const *rank_dirs, const char *outdir, jv_err *err);

/* Writes outdir/report.html: the same (the advice on the first screen), with one row per rank on a common time axis
 * (computation above, communication below, idle blank) as inline SVG. */
jv_status jv_multirank_html(const jv_job *job, const char *const *rank_dirs, const char *outdir, jv_err *err);

#endif

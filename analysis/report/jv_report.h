/* jv_report: writes the part-1 perf report sheets into a jv_book (CSV files
 * and xlsx worksheets) with TraceLens' sheet and column names:
 * gpu_timeline (+ gpu_timeline_by_device with several GPUs), ops_summary,
 * ops_summary_by_category, ops_unique_args, kernel_summary. */
#ifndef JV_REPORT_H
#define JV_REPORT_H

#include "jv_ops.h"
#include "jv_sheet.h"
#include "jv_timeline.h"

typedef struct {
    jv_book *book; /* where sheets go */
    jv_timeline_opts timeline;
} jv_report_opts;

/* Writes gpu_timeline (+ gpu_timeline_by_device), ops_summary,
 * ops_summary_by_category and ops_unique_args. Each CSV file is written under
 * a temporary name and renamed, so a failure leaves no half-written sheet. */
jv_status jv_report_write_ops(const jv_trace *tr, const jv_tree *t, const jv_launchers *l, const jv_report_opts *o,
                              jv_err *err);

/* Writes kernel_summary (after the perf sheets, as TraceLens orders them). */
jv_status jv_report_write_kernels(const jv_trace *tr, const jv_tree *t, const jv_launchers *l, const jv_report_opts *o,
                                  jv_err *err);

#endif

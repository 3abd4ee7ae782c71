/* jv_perf_sheet: TraceLens' unified_perf_summary and the per-family sheets
 * (GEMM, CONV_fwd, ...) of a perf table (jv_perf), with roofline columns when
 * a GPU is known. */
#ifndef JV_PERF_SHEET_H
#define JV_PERF_SHEET_H

#include "jv_digest.h"
#include "jv_hw.h"
#include "jv_perf.h"
#include "jv_sheet.h"
#include "jv_trace.h"

/* Writes unified_perf_summary (the rows of dg, built by jv_digest_build and
 * completed by jv_digest_finish from the same tr and pt; read only) and
 * the family sheets into book; no roofline columns when dg has no GPU. TraceLens' own
 * roofline columns use dg's sheet GPU (TraceLens' peaks), the Efficiency Band the peak policy's. */
jv_status jv_perf_write(const jv_trace *tr, const jv_perf_table *pt, jv_book *book, const jv_digest *dg, jv_err *err);

#endif

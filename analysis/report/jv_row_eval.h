/* jv_row_eval: what the category findings and the standalone reports share,
 * below both: the markdown helpers for kernel names and durations. (Each row's
 * evaluation against the roofline and the trace's elementwise baseline is the
 * model's: jv_drow.eval, model/jv_digest.h; the findings too:
 * model/jv_findings_model.h.) */
#ifndef JV_ROW_EVAL_H
#define JV_ROW_EVAL_H

#include <stddef.h>
#include <stdio.h>

#include "jv_digest.h"

/* Markdown helpers shared by the reports (the escapers are core/jv_escape.h's jv_md_code and jv_md_text). */
/* A kernel name without "void ", template arguments and parameter list, e.g. "at::native::foo_kernel<...>". */
const char *jv_md_kernel_short(const char *name, char *buf, size_t cap);
/* A duration in µs as "12.34 ms" (>= 1 ms) or "812.3 µs". Returns buf (cap >= 32). */
const char *jv_md_time(char *buf, size_t cap, double us);
/* Why trace d has no elementwise baseline (d->baseline.state is not JV_BASE_OK), as one plain-text sentence
 * without markup (markdown and HTML alike), starting "no baseline: ", without a final period. */
void jv_print_no_baseline(FILE *f, const jv_digest *d);
/* The add/mul/copy_ rows left out of the baseline as memcpy/memset, as "; N copy rows run as memcpy/memset (T)
 * left out" (nothing when none). */
void jv_print_baseline_transfers(FILE *f, const jv_digest *d);

/* The peak policy line of every report (hw/jv_hw.h: jv_hw_policy), as plain text without markup (markdown and
 * HTML escape it), starting "Peak policy: ", into buf: which peaks jarvis' judgments use on each side (with the
 * top compute spec's peak and the HBM bandwidth), and which perf_report columns follow TraceLens' peaks instead.
 * R: the reference of a comparison, NULL for one trace. Returns buf. */
const char *jv_peak_policy_text(char *buf, size_t cap, const jv_digest *T, const jv_digest *R);

#endif

/* jv_standalone: the standalone reports of one trace (REFERENCE.md section 8,
 * "Reports"): standalone_analysis_fair.md (executive summary, prioritised
 * recommendations linking to the category findings, appendix) and
 * standalone_analysis_rough.md (the working notes: raw tables, calculations,
 * call stacks to look at, gaps, open questions). */
#ifndef JV_STANDALONE_H
#define JV_STANDALONE_H

#include "jv_digest.h"
#include "jv_row_eval.h"

/* Writes OUTDIR/standalone_analysis_fair.md and OUTDIR/standalone_analysis_rough.md
 * from digest d and the findings f of its categories (jv_findings_write collects
 * them while writing OUTDIR/category_findings/, which the reports link to). Each
 * file is written under a temporary name and renamed. */
jv_status jv_standalone_write(const jv_digest *d, const jv_finding_list *f, const char *outdir, jv_err *err);

#endif

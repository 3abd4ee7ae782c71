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
 * from digest d (finished: jv_digest_finish) and its findings (jv_digest_findings),
 * ranked by projected saving; the reports link to OUTDIR/category_findings/
 * (jv_findings_write). Each file is written under a temporary name and renamed. */
jv_status jv_standalone_write(const jv_digest *d, const char *outdir, jv_err *err);
/* One recommendation of the fair report as it states it (markdown: `code` spans), for other pages. */
typedef struct {
    char title[96];
    char issue[1024], action[768], impact[384];
    char link[160]; /* relative link target of its detail */
    char link_text[96];
    char confidence[320]; /* "high: ...": its level (jv_confidence_name) and the evidence it rests on */
    double gain_us;       /* the projected saving */
} jv_rec_text;
/* The fair report's recommendations, in its order, into out (at most max). Returns how many. */
int jv_standalone_recs(const jv_digest *d, jv_rec_text *out, int max);
/* What covers the i-th op with >= JV_FIND_LARGE_PCT of kernel time (jv_dfindings.large[i]), as markdown after
 * "- op (time): ": a link to its recommendation in the fair report (fair: "" from the fair report itself, else its
 * path, e.g. "standalone_analysis_fair.md"), or why there is none ("no action: at the hardware limit ..."). */
void jv_print_large_cover(FILE *f, const jv_digest *d, int i, const char *fair);

#endif

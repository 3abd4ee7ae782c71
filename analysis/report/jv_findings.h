/* jv_findings: the findings files of each category (REFERENCE.md section 8)
 * and the standalone reports built on them, printed from the digest and the
 * findings its model decided (model/jv_findings_model.h). */
#ifndef JV_FINDINGS_H
#define JV_FINDINGS_H

#include <stdio.h>

#include "jv_digest.h"
#include "jv_escape.h"
#include "jv_row_eval.h"

/* Writes OUTDIR/category_findings/<cat>_findings.md for gemm, convolution,
 * batchnorm and elementwise, and OUTDIR/standalone_analysis_fair.md and
 * OUTDIR/standalone_analysis_rough.md, from the digest alone (d finished:
 * jv_digest_finish). Each file is written under a temporary name and renamed.
 * The category findings link to the category data (jv_catdata_write must have
 * run for the same OUTDIR). */
jv_status jv_findings_write(const jv_digest *d, const char *outdir, jv_err *err);

#endif

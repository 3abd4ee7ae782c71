/* jv_findings: the findings of each category (REFERENCE.md section 8) and
 * the standalone reports built on them. */
#ifndef JV_FINDINGS_H
#define JV_FINDINGS_H

#include "jv_digest.h"

/* Writes OUTDIR/category_findings/<cat>_findings.md for gemm, convolution,
 * batchnorm and elementwise, and OUTDIR/standalone_analysis_fair.md and
 * OUTDIR/standalone_analysis_rough.md, from the digest alone. Each file is
 * written under a temporary name and renamed. */
jv_status jv_findings_write(const jv_digest *d, const char *outdir, jv_err *err);

#endif

/* jv_catdata: the category data of REFERENCE.md section 8 for gemm,
 * convolution, batchnorm and elementwise: the inputs a category analyst (or
 * an analysis skill) works from. */
#ifndef JV_CATDATA_H
#define JV_CATDATA_H

#include "jv_digest.h"
#include "jv_trace.h"
#include "jv_tree.h"

/* Writes, for each of the four categories, whether or not the trace has such ops:
 *   OUTDIR/category_data/<cat>_ops.csv        the digest rows of that category (unified_perf_summary
 *                                             columns, plus the category's own columns)
 *   OUTDIR/category_data/<cat>_tree_data.json for each row's example op (ex_UID): its parent chain and
 *                                             its subtree, ops with shapes and kernels with durations
 *   OUTDIR/metadata/<cat>_metadata.json       platform, the peak numbers used, the category's totals and
 *                                             share of GPU time, the trace name
 * Each file is written under a temporary name and renamed. The trace and tree
 * must be those the digest was made from. */
jv_status jv_catdata_write(const jv_digest *d, const jv_trace *tr, const jv_tree *t, const char *outdir, jv_err *err);

#endif

/* jv_compare: the comparative analysis of a target trace against a
 * reference trace (REFERENCE.md section 8): ops matched across platforms,
 * deltas, and the delta the hardware ratio leads one to expect. */
#ifndef JV_COMPARE_H
#define JV_COMPARE_H

#include "jv_digest.h"
#include "jv_sheet.h"

/* Writes the "comparison" sheet (CSV and workbook) of target vs ref into book. */
jv_status jv_compare_sheet(const jv_digest *target, const jv_digest *ref, jv_book *book, jv_err *err);

/* Writes OUTDIR/comparative_analysis_fair.md and OUTDIR/comparative_analysis_rough.md
 * (temporary names, renamed). */
jv_status jv_compare_write(const jv_digest *target, const jv_digest *ref, const char *outdir, jv_err *err);

#endif

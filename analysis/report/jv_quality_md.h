/* jv_quality_md: the "Trace quality" section of the standalone reports and the trace-quality line of
 * report.html, printed from the digest's jv_trace_quality (model/jv_quality.h): each nonzero count with its
 * GPU time and what it means for the conclusions. */
#ifndef JV_QUALITY_MD_H
#define JV_QUALITY_MD_H

#include <stdio.h>

#include "jv_digest.h"

/* One line of the section: a nonzero count. */
typedef struct {
    const char *what;  /* "Op rows without input shapes", ... */
    uint64_t n, of;    /* count, out of (0: no total) */
    double us;         /* their GPU time (µs); NaN when the line has none */
    const char *means; /* what it means for the conclusions */
} jv_qline;

enum { JV_QLINES_MAX = 16 };

/* The nonzero lines of d's trace quality, in a fixed order; returns their number (0: no issue found). */
int jv_quality_lines(const jv_digest *d, jv_qline out[JV_QLINES_MAX]);

/* Writes a "## <title>" section (anchor id): the modelled share, then the table of nonzero lines or "No issue
 * found."; rough: also the graph launches and the largest rows that are not modelled, each with its reason. The
 * standalone reports use id "trace-quality", title "Trace quality"; the comparative ones one section per trace. */
void jv_quality_md(FILE *f, const jv_digest *d, const char *id, const char *title, int rough);

#endif

/* jv_html: OUTDIR/report.html, one self-contained page (inline SVG and CSS,
 * no script from the network, opens from disk): GPU timeline breakdown, top
 * ops by time, a roofline of the top ops, per-category tables. */
#ifndef JV_HTML_H
#define JV_HTML_H

#include "jv_digest.h"

/* Writes OUTDIR/report.html for d; ref (NULL: none) adds the reference
 * trace's numbers beside the target's. Temporary name, renamed. */
jv_status jv_html_write(const jv_digest *d, const jv_digest *ref, const char *outdir, jv_err *err);

#endif

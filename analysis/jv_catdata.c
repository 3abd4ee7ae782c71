/* PLACEHOLDER: being written */
#include "jv_catdata.h"
jv_status jv_catdata_write(const jv_digest *d, const jv_trace *tr, const jv_tree *t, const char *outdir, jv_err *err) {
    (void)d; (void)tr; (void)t; (void)outdir; (void)err;
    return JV_OK;
}

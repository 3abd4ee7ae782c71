/* PLACEHOLDER: being written */
#include "jv_compare.h"
jv_status jv_compare_sheet(const jv_digest *target, const jv_digest *ref, jv_book *book, jv_err *err) {
    (void)target; (void)ref; (void)book; (void)err;
    return JV_OK;
}
jv_status jv_compare_write(const jv_digest *target, const jv_digest *ref, const char *outdir, jv_err *err) {
    (void)target; (void)ref; (void)outdir; (void)err;
    return JV_OK;
}

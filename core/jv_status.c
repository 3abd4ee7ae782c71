/* jv_status: status names and error recording. */
#include "jv_status.h"

#include <stdio.h>
#include <string.h>

const char *jv_status_str(jv_status s) {
    switch (s) {
    case JV_OK: return "ok";
    case JV_ERR_USAGE: return "usage error";
    case JV_ERR_IO: return "i/o error";
    case JV_ERR_NOMEM: return "out of memory";
    case JV_ERR_FORMAT: return "malformed input";
    case JV_ERR_TRUNCATED: return "truncated input";
    case JV_ERR_LIMIT: return "limit exceeded";
    case JV_ERR_NOTFOUND: return "not found";
    case JV_ERR_INTERNAL: return "internal error";
    case JV_ERR_DEVICE: return "device unusable";
    }
    return "unknown status";
}

jv_status jv_err_set(jv_err *err, jv_status code, const char *file, int line, const char *fmt, ...) {
    if (err && err->code == JV_OK) {
        err->code = code;
        err->file = file;
        err->line = line;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void jv_err_clear(jv_err *err) {
    if (!err) return;
    err->code = JV_OK;
    err->file = NULL;
    err->line = 0;
    err->msg[0] = '\0';
}

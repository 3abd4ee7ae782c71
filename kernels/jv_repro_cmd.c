/* jv_repro_cmd: building a family's reproducer lines (see jv_repro_cmd.h). */
#include "jv_repro_cmd.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jv_output.h"

jv_repro_cmd *jv_repro_cmd_add(jv_repro *r, const char *tool, const char *sub, const char *title) {
    if (r->ncmd >= JV_REPRO_MAX_CMDS) {
        r->overflow = 1;
        return NULL;
    }
    jv_repro_cmd *c = &r->cmd[r->ncmd++];
    memset(c, 0, sizeof *c);
    if ((size_t)snprintf(c->tool, sizeof c->tool, "%s", tool) >= sizeof c->tool ||
        (size_t)snprintf(c->sub, sizeof c->sub, "%s", sub ? sub : "") >= sizeof c->sub ||
        (size_t)snprintf(c->title, sizeof c->title, "%s", title ? title : "") >= sizeof c->title)
        r->overflow = 1;
    return c;
}

void jv_repro_opt(jv_repro *r, jv_repro_cmd *c, const char *opt, const char *fmt, ...) {
    if (!c) return;
    if (c->nargs >= JV_REPRO_MAX_ARGS) {
        r->overflow = 1;
        return;
    }
    jv_repro_arg *a = &c->arg[c->nargs++];
    if ((size_t)snprintf(a->opt, sizeof a->opt, "%s", opt) >= sizeof a->opt) r->overflow = 1;
    a->val[0] = 0;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(a->val, sizeof a->val, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t)n >= sizeof a->val) r->overflow = 1;
    }
}

void jv_repro_py(jv_repro *r, const char *fmt, ...) {
    size_t len = strlen(r->torch), cap = sizeof r->torch - len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(r->torch + len, cap, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n + 1 >= cap) {
        r->torch[len] = 0;
        r->overflow = 1;
        return;
    }
    r->torch[len + (size_t)n] = '\n';
    r->torch[len + (size_t)n + 1] = 0;
}

void jv_repro_no_amd(jv_repro *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->amd_none, sizeof r->amd_none, fmt, ap);
    va_end(ap);
}

const char *jv_repro_torch_dtype(jv_dtype d) {
    switch (d) {
    case JV_DT_F64: return "torch.float64";
    case JV_DT_F32: return "torch.float32";
    case JV_DT_F16: return "torch.float16";
    case JV_DT_BF16: return "torch.bfloat16";
    case JV_DT_F8E4M3: return "torch.float8_e4m3fn";
    case JV_DT_F8E5M2: return "torch.float8_e5m2";
    case JV_DT_F8E4M3FNUZ: return "torch.float8_e4m3fnuz";
    case JV_DT_F8E5M2FNUZ: return "torch.float8_e5m2fnuz";
    case JV_DT_I64: return "torch.int64";
    case JV_DT_I32: return "torch.int32";
    case JV_DT_I16: return "torch.int16";
    case JV_DT_I8: return "torch.int8";
    case JV_DT_U8: return "torch.uint8";
    case JV_DT_BOOL: return "torch.bool";
    case JV_DT_C64: return "torch.complex64";
    case JV_DT_C128: return "torch.complex128";
    default: return NULL;
    }
}

const char *jv_repro_pyfloat(char *buf, size_t cap, double v) {
    if (isnan(v))
        snprintf(buf, cap, "float('nan')");
    else if (isinf(v))
        snprintf(buf, cap, "float('%sinf')", v < 0 ? "-" : "");
    else
        jv_fmt_pyfloat(buf, cap, v);
    return buf;
}

const char *jv_repro_miopen_suffix(jv_dtype d) {
    switch (d) {
    case JV_DT_F32: return "";
    case JV_DT_F16: return "fp16";
    case JV_DT_BF16: return "bfp16";
    default: return NULL;
    }
}

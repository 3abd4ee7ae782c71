/* jv_registry: lookups over the op families (the table is jv_families.c,
 * from families.def) and the helpers they share for params and sizes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jv_family.h"
#include "jv_output.h"

int jv_family_find(const char *op, jv_match *how) {
    for (int i = 0; i < jv_family_count(); i++) {
        jv_match m = jv_family_get(i)->match(op);
        if (m != JV_MATCH_NONE) {
            if (how) *how = m;
            return i;
        }
    }
    if (how) *how = JV_MATCH_NONE;
    return -1;
}

jv_status jv_desc_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    int f = jv_family_find(c->name, NULL);
    memset(d, 0, sizeof *d);
    d->family = f;
    if (f < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: no perf model", c->name);
    return jv_family_get(f)->parse(c, d, err);
}

void jv_desc_model(const jv_desc *d, jv_perf *p) {
    memset(p, 0, sizeof *p);
    p->bytes = NAN;
    jv_family_get(d->family)->model(d, p);
}

const char *jv_perf_compute_spec(const jv_perf *p, char *buf, size_t cap) {
    jv_dtype d = p->dtype;
    const char *prec = NULL;
    if (jv_dtype_is_float(d) && d != JV_DT_C64 && d != JV_DT_C128)
        prec = jv_dtype_short(d);
    else if (p->matrix && (d == JV_DT_I8 || d == JV_DT_U8))
        prec = "int8";
    if (!prec) {
        buf[0] = 0;
        return buf;
    }
    snprintf(buf, cap, "%s_%s", p->matrix ? "matrix" : "vector", prec);
    return buf;
}

jv_status jv_desc_operands(const jv_desc *d, jv_operands *out, jv_err *err) {
    const jv_family *f = jv_family_get(d->family);
    out->n = 0;
    if (!f || !f->operands || !f->reference)
        JV_FAIL(err, JV_ERR_NOTFOUND, "the %s family has no replay", f ? f->name : "unknown");
    return f->operands(d, out, err);
}

jv_status jv_desc_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                            jv_err *err) {
    const jv_family *f = jv_family_get(d->family);
    if (!f || !f->reference) JV_FAIL(err, JV_ERR_NOTFOUND, "the %s family has no replay", f ? f->name : "unknown");
    return f->reference(d, ops, bufs, s, err);
}

int jv_operands_find(const jv_operands *ops, const char *name) {
    for (int i = 0; i < ops->n; i++)
        if (!strcmp(ops->o[i].name, name)) return i;
    return -1;
}

jv_status jv_operands_add(jv_operands *ops, const char *name, const jv_tensor *t, jv_role role, jv_init init,
                          jv_err *err) {
    if (ops->n >= JV_MAX_OPERANDS) JV_FAIL(err, JV_ERR_LIMIT, "more than %d operands", JV_MAX_OPERANDS);
    if (!jv_dtype_is_numeric(t->dtype))
        JV_FAIL(err, JV_ERR_FORMAT, "operand '%s' has dtype '%s', which replay does not support", name,
                t->dtype == JV_DT_UNKNOWN ? "unknown" : jv_dtype_trace_name(t->dtype));
    if (t->ndim < 0 || t->ndim > JV_MAX_DIMS) JV_FAIL(err, JV_ERR_FORMAT, "operand '%s' has %d dims", name, t->ndim);
    jv_operand *o = &ops->o[ops->n];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", name);
    o->t = *t;
    if (!o->t.has_strides) {
        jv_tensor_set_contiguous(&o->t);
        o->t.has_strides = 1;
    }
    for (int i = 0; i < o->t.ndim; i++) {
        if (o->t.shape[i] < 0 || o->t.strides[i] < 0)
            JV_FAIL(err, JV_ERR_FORMAT, "operand '%s' has a negative dim or stride", name);
        if (role != JV_ROLE_IN && o->t.shape[i] > 1 && o->t.strides[i] == 0)
            JV_FAIL(err, JV_ERR_FORMAT, "output '%s' is an expanded view (stride 0 on dim %d)", name, i);
    }
    if (jv_tensor_numel(&o->t) < 0 || jv_tensor_extent(&o->t) < 0)
        JV_FAIL(err, JV_ERR_FORMAT, "operand '%s' has more elements than int64 holds", name);
    o->role = role;
    o->init = init;
    ops->n++;
    return JV_OK;
}

void jv_desc_params(const jv_desc *d, jv_params *out) {
    out->n = 0;
    jv_family_get(d->family)->params(d, out);
}

void jv_desc_facts(const jv_desc *d, jv_family_facts *out) {
    *out = (jv_family_facts){.training = -1, .m = NAN, .n = NAN, .k = NAN, .batch = NAN};
    const jv_family *f = d ? jv_family_get(d->family) : NULL;
    if (f && f->findings.facts) f->findings.facts(d, out);
}

double jv_numel_d(const jv_tensor *t) {
    double n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->shape[i] > 0 ? (double)t->shape[i] : 0;
    return n;
}

double jv_bpe(jv_dtype d) {
    size_t s = jv_dtype_size(d);
    return s ? (double)s : NAN;
}

static jv_param *next_param(jv_params *ps, const char *name) {
    if (ps->n >= JV_MAX_PARAMS) return NULL;
    jv_param *p = &ps->p[ps->n++];
    memset(p, 0, sizeof *p);
    p->name = name;
    return p;
}

void jv_param_text(jv_params *ps, const char *name, const char *fmt, ...) {
    jv_param *p = next_param(ps, name);
    if (!p) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->text, sizeof p->text, fmt, ap);
    va_end(ap);
}

void jv_param_int(jv_params *ps, const char *name, long long v) {
    jv_param *p = next_param(ps, name);
    if (!p) return;
    p->is_num = 1;
    p->num = (double)v;
    snprintf(p->text, sizeof p->text, "%lld", v);
}

void jv_param_float(jv_params *ps, const char *name, double v) {
    jv_param *p = next_param(ps, name);
    if (!p) return;
    p->is_num = 1;
    p->num = v;
    jv_fmt_pyfloat(p->text, sizeof p->text, v);
}

void jv_param_bool(jv_params *ps, const char *name, int v) {
    jv_param_text(ps, name, "%s", v ? "True" : "False");
}

void jv_fmt_tuple(char *buf, size_t cap, const int64_t *v, int n) {
    if (!v) {
        snprintf(buf, cap, "None");
        return;
    }
    size_t len = 0;
    buf[0] = 0;
    len += (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (len < cap) snprintf(buf + len, cap - len, n == 1 ? ",)" : ")");
}

void jv_param_tuple(jv_params *ps, const char *name, const int64_t *v, int n) {
    jv_param *p = next_param(ps, name);
    if (p) jv_fmt_tuple(p->text, sizeof p->text, v, n);
}

void jv_param_dtypes(jv_params *ps, const char *name, const char *const *names, int n) {
    jv_param *p = next_param(ps, name);
    if (!p) return;
    size_t len = (size_t)snprintf(p->text, sizeof p->text, "(");
    for (int i = 0; i < n && len < sizeof p->text; i++) {
        if (names[i])
            len += (size_t)snprintf(p->text + len, sizeof p->text - len, "%s'%s'", i ? ", " : "", names[i]);
        else
            len += (size_t)snprintf(p->text + len, sizeof p->text - len, "%sNone", i ? ", " : "");
    }
    if (len < sizeof p->text) snprintf(p->text + len, sizeof p->text - len, n == 1 ? ",)" : ")");
}

void jv_params_normalization(jv_params *ps, const jv_tensor *x, long long channels, int has_bias, int affine,
                             int training, const int *mask, int mask_len) {
    jv_param_tuple(ps, "op_shape", x->shape, x->ndim);
    const char *dt[2] = {jv_dtype_trace_name(x->dtype), NULL};
    jv_param_dtypes(ps, "dtype_in_out", dt, 2);
    jv_param_tuple(ps, "stride_input", x->has_strides ? x->strides : NULL, x->ndim);
    jv_param_text(ps, "stride_output", "None");
    jv_param_int(ps, "num_channels", channels);
    jv_param_bool(ps, "has_bias", has_bias);
    jv_param_bool(ps, "is_affine", affine);
    jv_param_bool(ps, "is_training", training);
    if (!mask) {
        jv_param_text(ps, "output_mask", "None");
        return;
    }
    char buf[64];
    size_t len = (size_t)snprintf(buf, sizeof buf, "[");
    for (int i = 0; i < mask_len && i < 3; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? ", " : "", mask[i] ? "True" : "False");
    snprintf(buf + len, sizeof buf - len, "]");
    jv_param_text(ps, "output_mask", "%s", buf);
}

int jv_parse_spatial(const char *s, int nd, long long def, long long *out) {
    for (int i = 0; i < nd; i++)
        out[i] = def;
    if (!s || !*s) return 1;
    long long v[JV_MAX_DIMS];
    int n = jv_parse_ints(s, v, JV_MAX_DIMS);
    if (n < 0) return 0;
    if (n == 0) return 1;
    if (n == 1) {
        for (int i = 0; i < nd; i++)
            out[i] = v[0];
        return 1;
    }
    if (n != nd) return 0;
    for (int i = 0; i < nd; i++)
        out[i] = v[i];
    return 1;
}

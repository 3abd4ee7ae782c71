/* jv_opcall: argument lists from profiler args (parsed with cJSON: these are
 * small documents, one per distinct signature). */
#include "jv_opcall.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* type texts that describe a non-tensor argument */
static int is_value_type(const char *t) {
    static const char *const V[] = {"Scalar",       "ScalarList", "GenericList", "Int",     "Bool",
                                    "Double",       "Float",      "String",      "Device",  "Layout",
                                    "MemoryFormat", "ScalarType", "SymInt",      "IntList", "int[]",
                                    "Generator",    "Storage",    "Stream",      NULL};
    for (int i = 0; V[i]; i++) {
        if (!strcmp(t, V[i])) return 1;
    }
    return 0;
}

static jv_status parse_list(const char *text, const char *what, const char *op, cJSON **out, jv_err *err) {
    *out = NULL;
    if (!text || !*text) return JV_OK;
    cJSON *d = cJSON_Parse(text);
    if (!d) {
        if (strlen(text) > 0 && !cJSON_GetErrorPtr()) return JV_ERR_NOMEM;
        JV_FAIL(err, JV_ERR_FORMAT, "%s: %s is not valid JSON", op, what);
    }
    if (cJSON_IsNull(d)) { /* recorded as null: absent */
        cJSON_Delete(d);
        return JV_OK;
    }
    if (!cJSON_IsArray(d)) {
        cJSON_Delete(d);
        JV_FAIL(err, JV_ERR_FORMAT, "%s: %s is not a list", op, what);
    }
    *out = d;
    return JV_OK;
}

/* 1 when j is a list of numbers (a shape); fills dims */
static int read_shape(const cJSON *j, int64_t *dims, int *nd) {
    if (!cJSON_IsArray(j)) return 0;
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, j) {
        if (!cJSON_IsNumber(e)) return 0;
        if (n >= JV_MAX_DIMS) return 0;
        double v = e->valuedouble;
        if (v != v || v < -9.2e18 || v > 9.2e18) return 0;
        dims[n++] = (int64_t)v;
    }
    *nd = n;
    return 1;
}

jv_status jv_opcall_from_trace(jv_opcall *c, const char *name, const char *dims, const char *types, const char *strides,
                               const char *concrete, jv_err *err) {
    memset(c, 0, sizeof *c);
    c->name = name;
    cJSON *jd, *jt, *js, *jc;
    const char *op = name ? name : "op";
    JV_CHECK(parse_list(dims, "Input Dims", op, &jd, err));
    c->docs[0] = jd;
    JV_CHECK(parse_list(types, "Input type", op, &jt, err));
    c->docs[1] = jt;
    JV_CHECK(parse_list(strides, "Input Strides", op, &js, err));
    c->docs[2] = js;
    JV_CHECK(parse_list(concrete, "Concrete Inputs", op, &jc, err));
    c->docs[3] = jc;
    int n = 0;
    if (jd) n = cJSON_GetArraySize(jd);
    if (jt && cJSON_GetArraySize(jt) > n) n = cJSON_GetArraySize(jt);
    if (jc && cJSON_GetArraySize(jc) > n) n = cJSON_GetArraySize(jc);
    if (n > JV_MAX_ARGS) n = JV_MAX_ARGS;
    c->nargs = n;
    for (int i = 0; i < n; i++) {
        jv_arg *a = &c->args[i];
        const cJSON *d = jd ? cJSON_GetArrayItem(jd, i) : NULL;
        const cJSON *t = jt ? cJSON_GetArrayItem(jt, i) : NULL;
        const cJSON *s = js ? cJSON_GetArrayItem(js, i) : NULL;
        const cJSON *v = jc ? cJSON_GetArrayItem(jc, i) : NULL;
        a->type = cJSON_IsString(t) ? t->valuestring : "";
        a->value = cJSON_IsString(v) ? v->valuestring : "";
        int nd = 0;
        int64_t shape[JV_MAX_DIMS];
        int shape_ok = d && read_shape(d, shape, &nd);
        if (is_value_type(a->type) || !strcmp(a->type, "TensorList")) {
            a->kind = strcmp(a->type, "TensorList") ? JV_ARG_VALUE : JV_ARG_TENSORLIST;
        } else if (d && cJSON_IsArray(d) && cJSON_GetArraySize(d) > 0 && cJSON_IsArray(cJSON_GetArrayItem(d, 0))) {
            a->kind = JV_ARG_TENSORLIST;
        } else if (!*a->type) {
            a->kind = *a->value ? JV_ARG_VALUE : JV_ARG_NONE;
        } else if (shape_ok) {
            a->kind = JV_ARG_TENSOR;
            a->t.ndim = nd;
            memcpy(a->t.shape, shape, (size_t)nd * sizeof shape[0]);
            a->t.dtype = jv_dtype_parse(a->type);
            int64_t st[JV_MAX_DIMS];
            int ns = 0;
            if (s && read_shape(s, st, &ns) && ns == nd) {
                memcpy(a->t.strides, st, (size_t)nd * sizeof st[0]);
                a->t.has_strides = 1;
            } else {
                jv_tensor_set_contiguous(&a->t);
                a->t.has_strides = 0;
            }
        } else {
            a->kind = *a->value ? JV_ARG_VALUE : JV_ARG_NONE;
        }
    }
    return JV_OK;
}

void jv_opcall_free(jv_opcall *c) {
    for (int i = 0; i < 4; i++) {
        cJSON_Delete(c->docs[i]);
        c->docs[i] = NULL;
    }
}

const jv_tensor *jv_opcall_tensor(const jv_opcall *c, int i) {
    if (i < 0 || i >= c->nargs || c->args[i].kind != JV_ARG_TENSOR) return NULL;
    return &c->args[i].t;
}

const jv_tensor *jv_opcall_opt_tensor(const jv_opcall *c, int i) {
    const jv_tensor *t = jv_opcall_tensor(c, i);
    return t && t->ndim > 0 ? t : NULL;
}

const char *jv_opcall_value(const jv_opcall *c, int i) {
    if (i < 0 || i >= c->nargs || !*c->args[i].value) return NULL;
    return c->args[i].value;
}

static const char *skip_ws(const char *s) {
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

int jv_parse_ints(const char *s, long long *out, int max) {
    if (!s) return -1;
    s = skip_ws(s);
    char close = 0;
    if (*s == '[')
        close = ']';
    else if (*s == '(')
        close = ')';
    if (close) s = skip_ws(s + 1);
    int n = 0;
    if (close && *s == close) return 0;
    for (;;) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || errno) return -1;
        if (n < max) out[n] = v;
        n++;
        s = skip_ws(end);
        if (*s == ',') {
            s = skip_ws(s + 1);
            if (close && *s == close) break; /* "(2,)" */
            continue;
        }
        break;
    }
    if (close) {
        if (*s != close) return -1;
        s = skip_ws(s + 1);
    }
    if (*s) return -1;
    return n > max ? -1 : n;
}

jv_dtype jv_parse_scalar_type(const char *s) {
    long long v;
    if (!s || jv_parse_ints(s, &v, 1) != 1) return JV_DT_UNKNOWN;
    return jv_dtype_of_scalar_type(v);
}

int jv_parse_bool(const char *s, int *v) {
    if (!s) return 0;
    if (!strcmp(s, "True") || !strcmp(s, "true") || !strcmp(s, "1")) return *v = 1, 1;
    if (!strcmp(s, "False") || !strcmp(s, "false") || !strcmp(s, "0")) return *v = 0, 1;
    return 0;
}

int jv_parse_bools(const char *s, int *out, int max) {
    if (!s) return -1;
    s = skip_ws(s);
    if (*s != '[' && *s != '(') return -1;
    char close = *s == '[' ? ']' : ')';
    s = skip_ws(s + 1);
    int n = 0;
    while (*s && *s != close) {
        const char *e = s;
        while (*e && *e != ',' && *e != close && !isspace((unsigned char)*e))
            e++;
        char w[8];
        size_t len = (size_t)(e - s);
        if (len == 0 || len >= sizeof w) return -1;
        memcpy(w, s, len);
        w[len] = 0;
        int b;
        if (!jv_parse_bool(w, &b) || n >= max) return -1;
        out[n++] = b;
        s = skip_ws(e);
        if (*s == ',') s = skip_ws(s + 1);
    }
    if (*s != close) return -1;
    return *skip_ws(s + 1) ? -1 : n;
}

int jv_parse_double(const char *s, double *v) {
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || *skip_ws(end)) return 0;
    *v = d;
    return 1;
}

/* the value of optional argument i, or NULL when the default applies */
static const char *opt_value(const jv_opcall *c, int i, int none_ok) {
    const char *s = i >= 0 ? jv_opcall_value(c, i) : NULL;
    return s && none_ok && !strcmp(s, "None") ? NULL : s;
}

int jv_opcall_bool(const jv_opcall *c, int i, int def, int none_ok, int *out) {
    const char *s = opt_value(c, i, none_ok);
    *out = def;
    return !s || jv_parse_bool(s, out);
}

int jv_opcall_double(const jv_opcall *c, int i, double def, int none_ok, double *out) {
    const char *s = opt_value(c, i, none_ok);
    *out = def;
    return !s || (jv_parse_double(s, out) && isfinite(*out));
}

/* jv_ir_write: a call's replay IR entry (TraceLens' EventReplay form).
 *
 * Writing fits a call to one overload of its op from the ATen schemas the op
 * families carry (jv_family.schemas: the func: lines of native_functions.yaml)
 * and names and types every argument from it. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_family.h"
#include "jv_ir.h"
#include "jv_ir_args.h"
#include "jv_output.h"

static int is_tensorish(akind k) {
    return k == K_TENSOR || k == K_TENSORLIST;
}

/* ------------------------------------------------------------------------ */
/* Schema parsing */

#define NAME_CAP 40
#define TYPE_CAP 40

typedef struct {
    char name[NAME_CAP];
    char type[TYPE_CAP];
    int kwonly;
    int has_default;
} sch_arg;

typedef struct {
    char op[64]; /* "aten::add" */
    char overload[NAME_CAP];
    int n;
    sch_arg a[JV_MAX_ARGS];
} schema;

/* copies [b, e) trimmed into dst (cap bytes); 0 when it does not fit */
static int copy_trim(char *dst, size_t cap, const char *b, const char *e) {
    while (b < e && isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    size_t n = (size_t)(e - b);
    if (n >= cap) return 0;
    memcpy(dst, b, n);
    dst[n] = 0;
    return 1;
}

/* Parses one schema line. 0 on a malformed line (a bug in its family's table). */
static int schema_parse(const char *s, schema *o) {
    memset(o, 0, sizeof *o);
    const char *lp = strchr(s, '(');
    if (!lp) return 0;
    char full[NAME_CAP + 8];
    if (!copy_trim(full, sizeof full, s, lp)) return 0;
    char *dot = strchr(full, '.');
    if (dot) {
        if (!copy_trim(o->overload, sizeof o->overload, dot + 1, dot + 1 + strlen(dot + 1))) return 0;
        *dot = 0;
    }
    const char *ns = strstr(full, "::") ? "" : "aten::";
    size_t ln = strlen(ns), lf = strlen(full);
    if (ln + lf >= sizeof o->op) return 0;
    memcpy(o->op, ns, ln);
    memcpy(o->op + ln, full, lf + 1);
    /* the argument list: up to the ')' that closes lp */
    int depth = 0, kw = 0;
    const char *p = lp + 1, *start = p;
    char quote = 0;
    for (;; p++) {
        char c = *p;
        if (!c) return 0;
        if (quote) {
            if (c == quote) quote = 0;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            continue;
        }
        if (c == '(' || c == '[')
            depth++;
        else if ((c == ')' || c == ']') && depth > 0)
            depth--;
        else if ((c == ',' || c == ')') && depth == 0) {
            char piece[128];
            if (!copy_trim(piece, sizeof piece, start, p)) return 0;
            if (!strcmp(piece, "*")) {
                kw = 1;
            } else if (piece[0]) {
                if (o->n >= JV_MAX_ARGS) return 0;
                sch_arg *a = &o->a[o->n];
                char *sp = strchr(piece, ' ');
                if (!sp) return 0;
                if (!copy_trim(a->type, sizeof a->type, piece, sp)) return 0;
                char *eq = strchr(sp, '=');
                if (!copy_trim(a->name, sizeof a->name, sp, eq ? eq : sp + strlen(sp))) return 0;
                a->has_default = eq != NULL;
                a->kwonly = kw;
                if (!a->name[0] || !a->type[0]) return 0;
                o->n++;
            }
            start = p + 1;
            if (c == ')') break;
        }
    }
    return 1;
}

/* The schema lines of every family, in registry order; *f and *k (both 0 at
 * the start) are the cursor. NULL after the last. */
static const char *next_schema(int *f, int *k) {
    for (; *f < jv_family_count(); (*f)++, *k = 0) {
        const char *const *lines = jv_family_get(*f)->schemas;
        if (lines && lines[*k]) return lines[(*k)++];
    }
    return NULL;
}

int jv_ir_has_schema(const char *op) {
    if (!op) return 0;
    schema s;
    const char *line;
    for (int f = 0, k = 0; (line = next_schema(&f, &k));)
        if (schema_parse(line, &s) && !strcmp(s.op, op)) return 1;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Value texts of traced calls */

static const char *skip_ws(const char *s) {
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

/* 1 when s is one integer ("3", "-1"), not a list */
static int text_int(const char *s, long long *v) {
    s = skip_ws(s);
    if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+')) return 0;
    return jv_parse_ints(s, v, 1) == 1;
}

/* 1 when s is a Python bool ("True", "False"; also lower case) */
static int text_bool(const char *s, int *v) {
    if (!strcmp(s, "True") || !strcmp(s, "true")) return *v = 1, 1;
    if (!strcmp(s, "False") || !strcmp(s, "false")) return *v = 0, 1;
    return 0;
}

/* 1 when s is one number (not a list, not a bool) */
static int text_num(const char *s, double *v) {
    s = skip_ws(s);
    if (!*s || *s == '[' || *s == '(') return 0;
    return jv_parse_double(s, v);
}

static int text_is_list(const char *s) {
    s = skip_ws(s);
    return *s == '[' || *s == '(';
}

/* Parses a number list "[2.0, 2.0]" / "(1, 2)" into out (at most max). Returns the count, or -1. */
static int text_doubles(const char *s, double *out, int max) {
    s = skip_ws(s);
    if (*s != '[' && *s != '(') return -1;
    char close = *s == '[' ? ']' : ')';
    s = skip_ws(s + 1);
    int n = 0;
    while (*s != close) {
        const char *e = s;
        while (*e && *e != ',' && *e != close)
            e++;
        char buf[64];
        if (!copy_trim(buf, sizeof buf, s, e) || !buf[0] || n >= max) return -1;
        if (!jv_parse_double(buf, &out[n])) return -1;
        n++;
        s = *e == ',' ? skip_ws(e + 1) : e;
        if (!*s) return -1;
    }
    return *skip_ws(s + 1) ? -1 : n;
}

/* 1 when traced argument a can be written as schema type t (lenient: an
 * absent or unrecorded value fits any position, written as null). */
static int arg_fits(const jv_arg *a, const atype *t, int lenient) {
    long long iv[LIST_MAX];
    int bv[LIST_MAX];
    double dv[LIST_MAX];
    if (a->kind == JV_ARG_NONE) return t->optional || lenient || t->k == K_GENERATOR;
    if (a->kind == JV_ARG_TENSORLIST) return 0; /* shapes are not kept: no IR form */
    if (a->kind == JV_ARG_TENSOR) return t->k == K_TENSOR;
    /* a value */
    const char *v = a->value;
    if (!*v) return lenient && !is_tensorish(t->k);
    switch (t->k) {
    case K_TENSOR:
    case K_TENSORLIST:
    case K_GENERATOR: return 0;
    case K_SCALARTYPE: return text_int(v, iv) || jv_dtype_parse(v) != JV_DT_UNKNOWN;
    case K_INT:
    case K_LAYOUT:
    case K_MEMFMT: return text_int(v, iv);
    case K_FLOAT: return text_num(v, dv);
    case K_BOOL: return text_bool(v, bv);
    case K_SCALAR: return text_num(v, dv) || text_bool(v, bv);
    case K_INTLIST: return jv_parse_ints(v, iv, LIST_MAX) >= 0;
    case K_BOOLLIST: return jv_parse_bools(v, bv, LIST_MAX) >= 0;
    case K_FLOATLIST:
    case K_SCALARLIST: return text_doubles(v, dv, LIST_MAX) >= 0;
    case K_STR: return !text_num(v, dv) && !text_bool(v, bv) && !text_is_list(v);
    case K_DEVICE:
    case K_OTHER: return 1;
    }
    return 0;
}

/* How well schema s fits call c: 0 no; else the pass that accepts it (1 best). */
static int schema_fits(const schema *s, const jv_opcall *c, int pass) {
    int exact = pass <= 2, lenient = pass == 2 || pass == 4;
    if (c->nargs > s->n || (exact && c->nargs != s->n)) return 0;
    for (int i = c->nargs; i < s->n; i++)
        if (!s->a[i].has_default) return 0;
    for (int i = 0; i < c->nargs; i++) {
        atype t;
        jv_ir_type_parse(s->a[i].type, &t);
        if (!arg_fits(&c->args[i], &t, lenient)) return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Writer */

/* An integer as a JSON number that prints exactly (cJSON prints doubles past
 * 1e15 with an exponent). */
static cJSON *json_int(long long v) {
    if (v > -1000000000000000LL && v < 1000000000000000LL) return cJSON_CreateNumber((double)v);
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return cJSON_CreateRaw(buf);
}

/* A float that reads back as a float ("2.0", not "2"): Python's repr, raw.
 * Non-finite values (no JSON form) are written as the strings "inf", "-inf",
 * "nan", which the reader accepts for float arguments. */
static cJSON *json_float(double v) {
    char buf[40];
    jv_fmt_pyfloat(buf, sizeof buf, v);
    if (!isfinite(v)) return cJSON_CreateString(buf);
    return cJSON_CreateRaw(buf);
}

static cJSON *json_int_list(const long long *v, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) {
        cJSON *e = json_int(v[i]);
        if (!e || !cJSON_AddItemToArray(a, e)) {
            cJSON_Delete(e);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static cJSON *json_i64_list(const int64_t *v, int n) {
    long long tmp[JV_MAX_DIMS];
    for (int i = 0; i < n && i < JV_MAX_DIMS; i++)
        tmp[i] = v[i];
    return json_int_list(tmp, n);
}

/* A traced tensor as {"shape", "dtype", "strides", "init"}; NULL on allocation failure. */
static cJSON *tensor_json(const jv_arg *a, int write_only) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    jv_tensor t = a->t;
    if (!t.has_strides) jv_tensor_set_contiguous(&t); /* replay needs strides: a trace without them is dense */
    jv_dtype dt = jv_dtype_parse(a->type);
    const char *init = write_only ? NULL : (jv_dtype_is_float(dt) ? "normal" : "zeros");
    cJSON *shape = json_i64_list(t.shape, t.ndim), *strides = json_i64_list(t.strides, t.ndim);
    cJSON *in = init ? cJSON_CreateString(init) : cJSON_CreateNull();
    if (!shape || !strides || !in || !cJSON_AddItemToObject(o, "shape", shape)) goto fail;
    shape = NULL;
    if (!cJSON_AddStringToObject(o, "dtype", a->type) || !cJSON_AddItemToObject(o, "strides", strides)) goto fail;
    strides = NULL;
    if (!cJSON_AddItemToObject(o, "init", in)) goto fail;
    return o;
fail:
    cJSON_Delete(shape);
    cJSON_Delete(strides);
    cJSON_Delete(in);
    cJSON_Delete(o);
    return NULL;
}

static cJSON *string_json(const char *v);

/* The JSON value of traced argument a as type t; NULL on allocation failure
 * (callers check arg_fits first, so every text parses). */
static cJSON *value_json(const jv_arg *a, const atype *t, int write_only) {
    if (a->kind == JV_ARG_NONE || (a->kind == JV_ARG_VALUE && !a->value[0])) return cJSON_CreateNull();
    if (a->kind == JV_ARG_TENSOR) return tensor_json(a, write_only);
    const char *v = a->value;
    long long iv[LIST_MAX];
    int bv[LIST_MAX];
    double dv[LIST_MAX];
    int n;
    switch (t->k) {
    case K_SCALARTYPE:
        if (!text_int(v, iv)) { /* a dtype name: its ScalarType code */
            jv_dtype dt = jv_dtype_parse(v);
            for (long long code = 0; code < 64; code++)
                if (dt != JV_DT_UNKNOWN && jv_dtype_of_scalar_type(code) == dt) return json_int(code);
        }
        /* fall through */
    case K_INT:
    case K_LAYOUT:
    case K_MEMFMT:
        if (text_int(v, iv)) return json_int(iv[0]);
        break;
    case K_FLOAT:
        if (text_num(v, dv)) return json_float(dv[0]);
        break;
    case K_BOOL:
        if (text_bool(v, bv)) return cJSON_CreateBool(bv[0]);
        break;
    case K_INTLIST:
        n = jv_parse_ints(v, iv, LIST_MAX);
        if (n >= 0) return json_int_list(iv, n);
        break;
    case K_BOOLLIST: {
        n = jv_parse_bools(v, bv, LIST_MAX);
        if (n < 0) break;
        cJSON *l = cJSON_CreateArray();
        for (int i = 0; l && i < n; i++) {
            cJSON *e = cJSON_CreateBool(bv[i]);
            if (!e || !cJSON_AddItemToArray(l, e)) {
                cJSON_Delete(e);
                cJSON_Delete(l);
                return NULL;
            }
        }
        return l;
    }
    case K_FLOATLIST:
    case K_SCALARLIST: {
        n = text_doubles(v, dv, LIST_MAX);
        if (n < 0) break;
        cJSON *l = cJSON_CreateArray();
        for (int i = 0; l && i < n; i++) {
            cJSON *e = json_float(dv[i]);
            if (!e || !cJSON_AddItemToArray(l, e)) {
                cJSON_Delete(e);
                cJSON_Delete(l);
                return NULL;
            }
        }
        return l;
    }
    case K_DEVICE: /* an index, or a name such as "cuda:0": never a bool or a float, which it would not read back as */
        if (text_int(v, iv)) return json_int(iv[0]);
        return string_json(v);
    case K_STR: return string_json(v); /* always a string, whatever it looks like ("1", "False") */
    default: break;
    }
    /* Scalar and anything else: by the text's own form */
    if (text_bool(v, bv)) return cJSON_CreateBool(bv[0]);
    if (text_int(v, iv)) return json_int(iv[0]);
    if (text_num(v, dv)) return json_float(dv[0]);
    return string_json(v);
}

/* Text v as a JSON string, without the quotes of a traced Python str. */
static cJSON *string_json(const char *v) {
    size_t len = strlen(v);
    if (len >= 2 && (v[0] == '\'' || v[0] == '"') && v[len - 1] == v[0]) { /* a quoted str */
        char *s = malloc(len - 1);
        if (!s) return NULL;
        memcpy(s, v + 1, len - 2);
        s[len - 2] = 0;
        cJSON *r = cJSON_CreateString(s);
        free(s);
        return r;
    }
    return cJSON_CreateString(v);
}

/* 1 when argument i of op (base name after "::") is only written by it */
static int write_only_arg(const char *base, int i, const sch_arg *sa, const atype *t) {
    if (i == 0 && (!strcmp(base, "copy_") || !strcmp(base, "fill_") || !strcmp(base, "zero_"))) return 1;
    return sa->kwonly && t->writes; /* out=, grad_input=, save_mean= ... */
}

jv_status jv_ir_entry(const jv_opcall *c, void **entry, jv_err *err) {
    *entry = NULL;
    const char *op = c->name ? c->name : "";
    schema s, best;
    int found = 0, fit = 0;
    for (int pass = 1; pass <= 4 && !fit; pass++) {
        const char *line;
        for (int f = 0, k = 0; (line = next_schema(&f, &k));) {
            if (!schema_parse(line, &s) || strcmp(s.op, op)) continue;
            found = 1;
            if (schema_fits(&s, c, pass)) {
                best = s;
                fit = 1;
                break;
            }
        }
        if (!found) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: no ATen schema in the replay IR table", op);
    }
    if (!fit) {
        /* say what the call was, for the log */
        char sig[256];
        size_t len = 0;
        sig[0] = 0;
        for (int i = 0; i < c->nargs && len < sizeof sig; i++) {
            const jv_arg *a = &c->args[i];
            const char *k = a->kind == JV_ARG_TENSOR       ? "Tensor"
                            : a->kind == JV_ARG_TENSORLIST ? "TensorList"
                            : a->kind == JV_ARG_NONE       ? "None"
                                                           : a->value;
            len += (size_t)snprintf(sig + len, sizeof sig - len, "%s%.24s", i ? ", " : "", k);
        }
        JV_FAIL(err, JV_ERR_FORMAT, "%s: the call (%s) fits none of the op's ATen overloads", op, sig);
    }
    const char *base = strstr(op, "::");
    base = base ? base + 2 : op;

    /* a tensor the reader would refuse is refused here */
    for (int i = 0; i < c->nargs; i++) {
        if (c->args[i].kind != JV_ARG_TENSOR) continue;
        if (jv_dtype_parse(c->args[i].type) == JV_DT_UNKNOWN)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: argument '%s' has dtype '%s', which the replay IR does not know", op,
                    best.a[i].name, c->args[i].type);
        jv_tensor t = c->args[i].t;
        const char *why = jv_ir_tensor_problem(&t);
        if (why) JV_FAIL(err, JV_ERR_FORMAT, "%s: argument '%s' is %s", op, best.a[i].name, why);
    }

    cJSON *root = cJSON_CreateObject();
    if (!root || !cJSON_AddStringToObject(root, "op_name", op)) goto oom;
    cJSON *ir = cJSON_AddObjectToObject(root, "replay_ir");
    cJSON *pos = ir ? cJSON_AddArrayToObject(ir, "list_pos_args") : NULL;
    cJSON *kw = ir ? cJSON_AddArrayToObject(ir, "list_kwargs") : NULL;
    if (!pos || !kw) goto oom;
    for (int i = 0; i < c->nargs; i++) {
        const sch_arg *sa = &best.a[i];
        atype t;
        jv_ir_type_parse(sa->type, &t);
        cJSON *v = value_json(&c->args[i], &t, write_only_arg(base, i, sa, &t));
        if (!v) goto oom;
        cJSON *a = cJSON_CreateObject();
        if (!a || !cJSON_AddItemToArray(sa->kwonly ? kw : pos, a)) { /* from here a belongs to root */
            cJSON_Delete(a);
            cJSON_Delete(v);
            goto oom;
        }
        if (!cJSON_AddStringToObject(a, "arg_name", sa->name) || !cJSON_AddStringToObject(a, "arg_type", sa->type) ||
            !cJSON_AddItemToObject(a, "value", v)) {
            cJSON_Delete(v);
            goto oom;
        }
    }
    *entry = root;
    return JV_OK;
oom:
    cJSON_Delete(root);
    JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory writing its replay IR entry", op);
}

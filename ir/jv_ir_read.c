/* jv_ir_read: the replay IR (TraceLens' EventReplay form) read back into
 * jv_opcall.
 *
 * Reading needs no schema table: the entry's own arg_type and value give back
 * the four trace texts (Input Dims, Input type, Input Strides, Concrete
 * Inputs), which go through jv_opcall_from_trace, the one parser of traced
 * calls, so a replayed op is seen by the families exactly as a traced one.
 * cJSON keeps no number text, so the reader scans each entry's text for which
 * numbers were written as floats ("2.0" vs "2"): a Scalar keeps its Python
 * type, which decides type promotion. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_arena.h"
#include "jv_ir.h"
#include "jv_ir_args.h"
#include "jv_output.h"
#include "jv_strbuf.h"

/* ------------------------------------------------------------------------ */
/* Reader */

/* s as a JSON string literal */
static void sb_json_str(jv_strbuf *b, const char *s) {
    jv_sb_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            jv_sb_append(b, e, 2);
        } else if (*p < 0x20) {
            jv_sb_printf(b, "\\u%04x", *p);
        } else {
            jv_sb_append(b, (const char *)p, 1);
        }
    }
    jv_sb_puts(b, "\"");
}

/* Which numbers of the document were written as floats: cJSON keeps only the
 * value, so the text is scanned for number tokens (outside strings), in the
 * order a depth-first walk of the tree meets the number nodes. */
typedef struct {
    const cJSON *node;
    int is_float;
} numflag;

typedef struct {
    numflag *v; /* sorted by node; NULL when unknown (then integral values read as ints) */
    size_t n;
} numflags;

static void count_numbers(const cJSON *j, size_t *n) {
    for (; j; j = j->next) {
        if (cJSON_IsNumber(j)) (*n)++;
        if (j->child) count_numbers(j->child, n);
    }
}

static void collect_numbers(const cJSON *j, numflag *v, size_t *n) {
    for (; j; j = j->next) {
        if (cJSON_IsNumber(j)) v[(*n)++].node = j;
        if (j->child) collect_numbers(j->child, v, n);
    }
}

static int numflag_cmp(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const numflag *)a)->node, y = (uintptr_t)((const numflag *)b)->node;
    return x < y ? -1 : x > y;
}

/* 0 on allocation failure */
static int numflags_build(numflags *f, const cJSON *root, const char *text, size_t len) {
    f->v = NULL;
    f->n = 0;
    size_t n = 0;
    count_numbers(root, &n);
    if (n == 0) return 1;
    numflag *v = calloc(n, sizeof *v);
    if (!v) return 0;
    size_t k = 0;
    collect_numbers(root, v, &k);
    size_t t = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '"') {
            for (i++; i < len && text[i] != '"'; i++)
                if (text[i] == '\\') i++;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            int flt = 0;
            while (i < len && text[i] && strchr("0123456789+-.eE", text[i])) {
                if (text[i] == '.' || text[i] == 'e' || text[i] == 'E') flt = 1;
                i++;
            }
            i--;
            if (t < n) v[t].is_float = flt;
            t++;
        }
    }
    if (t != n) { /* not the tokens cJSON saw: fall back to the values */
        free(v);
        return 1;
    }
    qsort(v, n, sizeof *v, numflag_cmp);
    f->v = v;
    f->n = n;
    return 1;
}

/* 1 when number node j was written as a float; without flags, when it is not integral */
static int num_is_float(const numflags *f, const cJSON *j) {
    if (f->v) {
        numflag key = {j, 0};
        const numflag *r = bsearch(&key, f->v, f->n, sizeof *f->v, numflag_cmp);
        if (r) return r->is_float;
    }
    double d = j->valuedouble;
    return !(d == floor(d) && fabs(d) < 9e15);
}

/* Where a reader error is. */
typedef struct {
    const char *src;
    int entry;
    const char *op;  /* NULL before op_name is known */
    const char *arg; /* NULL outside an argument */
    jv_err *err;
} rctx;

static jv_status rfail(const rctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static jv_status rfail(const rctx *x, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char where[200];
    if (x->entry < 0)
        snprintf(where, sizeof where, "%s", x->src);
    else if (!x->op)
        snprintf(where, sizeof where, "%s: entry %d", x->src, x->entry);
    else if (!x->arg)
        snprintf(where, sizeof where, "%s: entry %d (%.80s)", x->src, x->entry, x->op);
    else
        snprintf(where, sizeof where, "%s: entry %d (%.80s): argument '%.40s'", x->src, x->entry, x->op, x->arg);
    return jv_err_set(x->err, JV_ERR_FORMAT, __FILE__, __LINE__, "%s: %s", where, msg);
}

/* dtype spellings of trace files and of TraceLens' IR (its build_tensor keys) */
static jv_dtype ir_dtype(const char *s) {
    jv_dtype d = jv_dtype_parse(s);
    if (d != JV_DT_UNKNOWN) return d;
    static const struct {
        const char *name;
        jv_dtype dt;
    } A[] = {
        {"char", JV_DT_I8},
        {"torch.float", JV_DT_F32},
        {"torch.half", JV_DT_F16},
        {"torch.double", JV_DT_F64},
        {"torch.long", JV_DT_I64},
        {"torch.int", JV_DT_I32},
        {"torch.short", JV_DT_I16},
        {"torch.int16", JV_DT_I16},
        {"torch.complex64", JV_DT_C64},
        {"torch.complex128", JV_DT_C128},
        {"torch.float8_e4m3fn", JV_DT_F8E4M3},
        {"torch.float8_e5m2", JV_DT_F8E5M2},
        {"torch.float8_e4m3fnuz", JV_DT_F8E4M3FNUZ},
        {"torch.float8_e5m2fnuz", JV_DT_F8E5M2FNUZ},
        {"Float", JV_DT_F32},
        {"Double", JV_DT_F64},
        {"Half", JV_DT_F16},
        {"BFloat16", JV_DT_BF16},
        {"Long", JV_DT_I64},
        {"Int", JV_DT_I32},
        {"Bool", JV_DT_BOOL},
    };
    for (size_t i = 0; i < sizeof A / sizeof A[0]; i++)
        if (!strcmp(s, A[i].name)) return A[i].dt;
    return JV_DT_UNKNOWN;
}

/* an integral JSON number in [lo, 2^62] */
static int json_i64(const cJSON *j, double lo, long long *v) {
    if (!cJSON_IsNumber(j)) return 0;
    double d = j->valuedouble;
    if (!(d >= lo && d <= IR_MAX_DIM) || d != floor(d)) return 0;
    *v = (long long)d;
    return 1;
}

/* Reads a tensor object into t and dtype; appends its dims and strides text. */
static jv_status read_tensor(const rctx *x, const cJSON *o, jv_tensor *t) {
    memset(t, 0, sizeof *t);
    if (!cJSON_IsObject(o)) return rfail(x, "not a tensor object ({\"shape\", \"dtype\", \"strides\"})");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(o, "shape");
    const cJSON *strides = cJSON_GetObjectItemCaseSensitive(o, "strides");
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(o, "dtype");
    const cJSON *init = cJSON_GetObjectItemCaseSensitive(o, "init");
    if (!cJSON_IsArray(shape)) return rfail(x, "tensor without a shape list");
    int nd = cJSON_GetArraySize(shape);
    if (nd > JV_MAX_DIMS) return rfail(x, "tensor with %d dims (at most %d)", nd, JV_MAX_DIMS);
    t->ndim = nd;
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, shape) {
        long long v;
        if (!json_i64(e, 0, &v)) return rfail(x, "dim %d is not a non-negative integer below 2^62", i);
        t->shape[i++] = v;
    }
    if (strides && !cJSON_IsNull(strides)) {
        if (!cJSON_IsArray(strides)) return rfail(x, "strides is not a list");
        int ns = cJSON_GetArraySize(strides);
        if (ns != nd) return rfail(x, "%d strides for %d dims", ns, nd);
        i = 0;
        cJSON_ArrayForEach(e, strides) {
            long long v;
            if (!json_i64(e, 0, &v)) return rfail(x, "stride %d is not a non-negative integer below 2^62", i);
            t->strides[i++] = v;
        }
        t->has_strides = 1;
    }
    if (!cJSON_IsString(dtype)) return rfail(x, "tensor without a dtype");
    t->dtype = ir_dtype(dtype->valuestring);
    if (t->dtype == JV_DT_UNKNOWN) return rfail(x, "unknown dtype '%.40s'", dtype->valuestring);
    if (init && !cJSON_IsNull(init) && !cJSON_IsString(init)) return rfail(x, "init is neither a string nor null");
    const char *why = jv_ir_tensor_problem(t);
    if (why) return rfail(x, "%s", why);
    return JV_OK;
}

static void sb_dims(jv_strbuf *b, const int64_t *v, int n) {
    jv_sb_puts(b, "[");
    for (int i = 0; i < n; i++)
        jv_sb_printf(b, "%s%lld", i ? ", " : "", (long long)v[i]);
    jv_sb_puts(b, "]");
}

/* A float value text that reads back as a float ("2.0", "1e-05", "inf"). */
static void sb_float(jv_strbuf *b, double v) {
    char buf[40];
    jv_sb_puts(b, jv_fmt_pyfloat(buf, sizeof buf, v));
}

/* The four trace texts of one call, built argument by argument. */
typedef struct {
    jv_strbuf dims, types, strides, conc;
    int n;
} texts;

static void texts_next(texts *T) {
    if (T->n++) {
        jv_sb_puts(&T->dims, ", ");
        jv_sb_puts(&T->types, ", ");
        jv_sb_puts(&T->strides, ", ");
        jv_sb_puts(&T->conc, ", ");
    }
}

static void texts_free(texts *T) {
    jv_sb_free(&T->dims);
    jv_sb_free(&T->types);
    jv_sb_free(&T->strides);
    jv_sb_free(&T->conc);
}

/* Appends argument j's value text for a non-tensor type k (into v) and its
 * trace type text (into type). */
static jv_status value_text(const rctx *x, const cJSON *j, akind k, const numflags *nf, jv_strbuf *v,
                            const char **type) {
    long long iv;
    *type = "Scalar";
    if (cJSON_IsBool(j)) {
        if (k != K_BOOL && k != K_SCALAR && k != K_OTHER) return rfail(x, "a bool where its type says otherwise");
        jv_sb_puts(v, cJSON_IsTrue(j) ? "True" : "False");
        return JV_OK;
    }
    if (cJSON_IsNumber(j)) {
        int flt = num_is_float(nf, j);
        switch (k) {
        case K_INT:
        case K_SCALARTYPE:
        case K_LAYOUT:
        case K_MEMFMT:
        case K_DEVICE:
        case K_INTLIST: /* a single int for an int[N] (repeated) */
            if (!json_i64(j, -IR_MAX_DIM, &iv)) return rfail(x, "not an integer");
            jv_sb_printf(v, "%lld", iv);
            return JV_OK;
        case K_FLOAT: sb_float(v, j->valuedouble); return JV_OK;
        case K_SCALAR:
        case K_OTHER:
            if (!flt && json_i64(j, -IR_MAX_DIM, &iv))
                jv_sb_printf(v, "%lld", iv);
            else
                sb_float(v, j->valuedouble);
            return JV_OK;
        default: return rfail(x, "a number where its type says otherwise");
        }
    }
    if (cJSON_IsString(j)) {
        const char *s = j->valuestring;
        int special = !strcmp(s, "inf") || !strcmp(s, "-inf") || !strcmp(s, "nan");
        if ((k == K_FLOAT || k == K_SCALAR) && special) {
            jv_sb_puts(v, s);
            return JV_OK;
        }
        if (k != K_STR && k != K_DEVICE && k != K_OTHER && k != K_SCALAR)
            return rfail(x, "a string where its type says otherwise");
        *type = "";
        if (k == K_SCALAR) *type = "Scalar"; /* a complex "(1+2j)" */
        jv_sb_puts(v, s);
        return JV_OK;
    }
    if (cJSON_IsArray(j)) {
        if (k != K_INTLIST && k != K_BOOLLIST && k != K_FLOATLIST && k != K_SCALARLIST && k != K_OTHER)
            return rfail(x, "a list where its type says otherwise");
        if (cJSON_GetArraySize(j) > LIST_MAX) return rfail(x, "a list of more than %d values", LIST_MAX);
        *type = "ScalarList";
        jv_sb_puts(v, "[");
        int i = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, j) {
            if (i++) jv_sb_puts(v, ", ");
            if (cJSON_IsBool(e) && (k == K_BOOLLIST || k == K_SCALARLIST || k == K_OTHER)) {
                jv_sb_puts(v, cJSON_IsTrue(e) ? "True" : "False");
            } else if (cJSON_IsNumber(e) && k != K_BOOLLIST) {
                int flt = num_is_float(nf, e);
                if (k == K_INTLIST) {
                    if (!json_i64(e, -IR_MAX_DIM, &iv)) return rfail(x, "list element %d is not an integer", i - 1);
                    jv_sb_printf(v, "%lld", iv);
                } else if (k == K_FLOATLIST || flt || !json_i64(e, -IR_MAX_DIM, &iv)) {
                    sb_float(v, e->valuedouble);
                } else {
                    jv_sb_printf(v, "%lld", iv);
                }
            } else {
                return rfail(x, "list element %d is not what the type says", i - 1);
            }
        }
        jv_sb_puts(v, "]");
        return JV_OK;
    }
    return rfail(x, "a value of no argument form (an object?)");
}

/* Appends one IR argument to the trace texts. */
static jv_status read_arg(rctx *x, const cJSON *a, const numflags *nf, texts *T) {
    x->arg = NULL;
    if (!cJSON_IsObject(a)) return rfail(x, "argument %d is not an object", T->n);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(a, "arg_name");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(a, "arg_type");
    char nbuf[16];
    snprintf(nbuf, sizeof nbuf, "#%d", T->n);
    x->arg = cJSON_IsString(name) && name->valuestring[0] ? name->valuestring : nbuf;
    if (!cJSON_IsString(type)) return rfail(x, "no arg_type");
    if (!cJSON_HasObjectItem(a, "value")) return rfail(x, "no value");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, "value");
    atype t;
    jv_ir_type_parse(type->valuestring, &t);
    texts_next(T);
    if (cJSON_IsNull(v)) { /* None */
        jv_sb_puts(&T->dims, "[]");
        jv_sb_puts(&T->types, "\"\"");
        jv_sb_puts(&T->strides, "[]");
        jv_sb_puts(&T->conc, "\"\"");
        return JV_OK;
    }
    if (t.k == K_TENSOR) {
        jv_tensor tn;
        JV_CHECK(read_tensor(x, v, &tn));
        sb_dims(&T->dims, tn.shape, tn.ndim);
        sb_json_str(&T->types, jv_dtype_trace_name(tn.dtype));
        sb_dims(&T->strides, tn.strides, tn.ndim);
        jv_sb_puts(&T->conc, "\"\"");
        return JV_OK;
    }
    if (t.k == K_TENSORLIST) {
        if (!cJSON_IsArray(v)) return rfail(x, "a tensor list that is not a list");
        jv_sb_puts(&T->dims, "[");
        jv_sb_puts(&T->strides, "[");
        int i = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, v) {
            if (i++) {
                jv_sb_puts(&T->dims, ", ");
                jv_sb_puts(&T->strides, ", ");
            }
            if (cJSON_IsNull(e)) {
                jv_sb_puts(&T->dims, "[]");
                jv_sb_puts(&T->strides, "[]");
                continue;
            }
            jv_tensor tn;
            JV_CHECK(read_tensor(x, e, &tn));
            sb_dims(&T->dims, tn.shape, tn.ndim);
            sb_dims(&T->strides, tn.strides, tn.ndim);
        }
        jv_sb_puts(&T->dims, "]");
        jv_sb_puts(&T->strides, "]");
        jv_sb_puts(&T->types, "\"TensorList\"");
        jv_sb_puts(&T->conc, "\"\"");
        return JV_OK;
    }
    if (t.k == K_GENERATOR) return rfail(x, "a Generator other than None");
    jv_strbuf val = JV_STRBUF_INIT;
    const char *tt = "";
    jv_status st = value_text(x, v, t.k, nf, &val, &tt);
    if (st == JV_OK && val.bad) st = JV_ERR_NOMEM;
    if (st == JV_OK) {
        jv_sb_puts(&T->dims, "[]");
        sb_json_str(&T->types, tt);
        jv_sb_puts(&T->strides, "[]");
        sb_json_str(&T->conc, val.buf ? val.buf : "");
    }
    jv_sb_free(&val);
    return st;
}

/* our "jarvis" keys of an entry (x: its object, or NULL), typed */
static void read_traced(const cJSON *x, jv_ir_traced *t) {
    memset(t, 0, sizeof *t);
    t->ex_uid = -1;
    if (!cJSON_IsObject(x)) return;
    t->present = 1;
    const cJSON *v;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(x, "count"))) t->count = (int64_t)v->valuedouble;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(x, "kernel_time_median_us"))) t->median_us = v->valuedouble;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(x, "kernel_time_total_us"))) t->total_us = v->valuedouble;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(x, "ex_uid"))) t->ex_uid = (int64_t)v->valuedouble;
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(x, "category")))
        snprintf(t->category, sizeof t->category, "%s", v->valuestring);
    size_t l = 0;
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(x, "kernels")) {
        if (!cJSON_IsString(k) || l + strlen(k->valuestring) + 3 >= sizeof t->kernels) continue;
        l += (size_t)snprintf(t->kernels + l, sizeof t->kernels - l, "%s%s", l ? "; " : "", k->valuestring);
    }
}

/* Fills op from entry e. On failure op may hold a name and a partial call (freed by the caller). */
static jv_status read_entry(rctx *x, const cJSON *e, const numflags *nf, jv_ir_op *op) {
    if (!cJSON_IsObject(e)) return rfail(x, "not an object");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "op_name");
    if (!cJSON_IsString(name) || !name->valuestring[0]) return rfail(x, "no op_name");
    op->op_name = strdup(name->valuestring);
    if (!op->op_name) JV_FAIL(x->err, JV_ERR_NOMEM, "%s: out of memory", x->src);
    x->op = op->op_name;
    const cJSON *ir = cJSON_GetObjectItemCaseSensitive(e, "replay_ir");
    if (!ir) { /* {"repro_ir": {"op_name", "replay_ir"}} wrappers */
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "repro_ir");
        if (cJSON_IsObject(r)) ir = cJSON_GetObjectItemCaseSensitive(r, "replay_ir");
    }
    if (!cJSON_IsObject(ir)) return rfail(x, "no replay_ir object");
    const cJSON *pos = cJSON_GetObjectItemCaseSensitive(ir, "list_pos_args");
    const cJSON *kw = cJSON_GetObjectItemCaseSensitive(ir, "list_kwargs");
    if (!cJSON_IsArray(pos)) return rfail(x, "replay_ir has no list_pos_args list");
    if (kw && !cJSON_IsNull(kw) && !cJSON_IsArray(kw)) return rfail(x, "list_kwargs is not a list");
    int n = cJSON_GetArraySize(pos) + (cJSON_IsArray(kw) ? cJSON_GetArraySize(kw) : 0);
    if (n > JV_MAX_ARGS) return rfail(x, "%d arguments (at most %d)", n, JV_MAX_ARGS);
    read_traced(cJSON_GetObjectItemCaseSensitive(e, "jarvis"), &op->traced);

    texts T;
    memset(&T, 0, sizeof T);
    jv_sb_puts(&T.dims, "[");
    jv_sb_puts(&T.types, "[");
    jv_sb_puts(&T.strides, "[");
    jv_sb_puts(&T.conc, "[");
    jv_status st = JV_OK;
    const cJSON *a;
    cJSON_ArrayForEach(a, pos) {
        st = read_arg(x, a, nf, &T);
        if (st != JV_OK) break;
    }
    if (st == JV_OK && cJSON_IsArray(kw)) {
        cJSON_ArrayForEach(a, kw) {
            st = read_arg(x, a, nf, &T);
            if (st != JV_OK) break;
        }
    }
    x->arg = NULL;
    jv_sb_puts(&T.dims, "]");
    jv_sb_puts(&T.types, "]");
    jv_sb_puts(&T.strides, "]");
    jv_sb_puts(&T.conc, "]");
    if (st == JV_OK && (T.dims.bad || T.types.bad || T.strides.bad || T.conc.bad)) st = JV_ERR_NOMEM;
    if (st == JV_ERR_NOMEM) jv_err_set(x->err, JV_ERR_NOMEM, __FILE__, __LINE__, "%s: out of memory", x->src);
    if (st == JV_OK) {
        jv_err e2;
        jv_err_clear(&e2);
        st = jv_opcall_from_trace(&op->call, op->op_name, T.dims.buf, T.types.buf, T.strides.buf, T.conc.buf, &e2);
        if (st == JV_ERR_NOMEM)
            jv_err_set(x->err, st, __FILE__, __LINE__, "%s: out of memory", x->src);
        else if (st != JV_OK)
            rfail(x, "%s", e2.msg); /* never: the texts are built well-formed */
    }
    texts_free(&T);
    return st;
}

/* The document is split into its top-level values without a tree: cJSON takes ~50 bytes of memory per byte of
 * number-dense JSON, so only one entry (or one other member) at a time is parsed by it, and an entry's tree is
 * freed once the entry is read (its "jarvis" object is detached and kept). Peak memory is then the text, the
 * read calls, and one value's tree, bounded by JV_IR_VALUE_LIMIT. */
enum { JV_IR_VALUE_LIMIT = 1 << 20 };

typedef struct {
    size_t at, len; /* a value's span in the text */
} span;

typedef struct {
    span *v;
    size_t n, cap;
} spans;

static size_t skip_ws(const char *t, size_t len, size_t i) {
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    return i;
}

/* The end of the value at i: past its closing bracket for an object or array, past the closing quote for a
 * string, at the next structural character for a number or literal. Brackets are only counted (cJSON checks
 * each value's grammar when it is parsed); 0 when the text ends first. */
static int value_end(const char *t, size_t len, size_t i, size_t *end) {
    if (i >= len) return 0;
    if (t[i] == '"') {
        for (i++; i < len && t[i] != '"'; i++)
            if (t[i] == '\\') i++;
        if (i >= len) return 0;
        *end = i + 1;
        return 1;
    }
    if (t[i] != '{' && t[i] != '[') {
        while (i < len && !strchr(",]}: \t\r\n\"[{", t[i]) && t[i])
            i++;
        *end = i;
        return 1;
    }
    size_t depth = 0;
    for (; i < len; i++) {
        char c = t[i];
        if (c == '"') {
            for (i++; i < len && t[i] != '"'; i++)
                if (t[i] == '\\') i++;
            if (i >= len) return 0;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) {
                *end = i + 1;
                return 1;
            }
        }
    }
    return 0;
}

/* The values of the array or object whose opening bracket is at i (objects: keys in *keys, values in *vals);
 * *end past its closing bracket. 0 with *bad at the first byte that does not fit. */
static jv_status split(const char *t, size_t len, size_t i, spans *keys, spans *vals, size_t *end, size_t *bad,
                       int *ok) {
    char close = t[i] == '{' ? '}' : ']';
    *ok = 0;
    i = skip_ws(t, len, i + 1);
    if (i < len && t[i] == close) {
        *end = i + 1;
        *ok = 1;
        return JV_OK;
    }
    for (;;) {
        if (close == '}') {
            size_t ke;
            if (i >= len || t[i] != '"' || !value_end(t, len, i, &ke)) break;
            JV_CHECK(JV_RESERVE(keys->v, keys->cap, keys->n + 1));
            keys->v[keys->n++] = (span){i, ke - i};
            i = skip_ws(t, len, ke);
            if (i >= len || t[i] != ':') break;
            i = skip_ws(t, len, i + 1);
        }
        size_t ve;
        if (i >= len || !value_end(t, len, i, &ve) || ve == i) break;
        JV_CHECK(JV_RESERVE(vals->v, vals->cap, vals->n + 1));
        vals->v[vals->n++] = (span){i, ve - i};
        i = skip_ws(t, len, ve);
        if (i < len && t[i] == close) {
            *end = i + 1;
            *ok = 1;
            return JV_OK;
        }
        if (i >= len || t[i] != ',') break;
        i = skip_ws(t, len, i + 1);
    }
    *bad = i;
    return JV_OK;
}

/* cJSON's tree of value v (its whole span, nothing after it), or NULL with *at where it is not JSON */
static cJSON *parse_value(const char *t, span v, size_t *at) {
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(t + v.at, v.len, &end, 0);
    if (!j || !end || end != t + v.at + v.len) {
        const char *ep = cJSON_GetErrorPtr();
        *at = v.at;
        if (j && end && end >= t + v.at && end <= t + v.at + v.len)
            *at = (size_t)(end - t);
        else if (ep && ep >= t + v.at && ep <= t + v.at + v.len)
            *at = (size_t)(ep - t);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static int key_is(const char *t, span k, const char *name) {
    size_t n = strlen(name);
    return k.len == n + 2 && !memcmp(t + k.at + 1, name, n);
}

/* 1 when the value at v is an object with an "op_name" member (parsed to find out; NULL on error) */
static jv_status has_op_name(const char *t, span v, int *yes, size_t *bad, int *ok) {
    spans k = {0}, w = {0};
    size_t end;
    *yes = 0;
    *ok = 1;
    if (t[v.at] != '{') return JV_OK;
    jv_status s = split(t, v.at + v.len, v.at, &k, &w, &end, bad, ok);
    for (size_t i = 0; s == JV_OK && *ok && i < k.n && !*yes; i++)
        *yes = key_is(t, k.v[i], "op_name");
    free(k.v);
    free(w.v);
    return s;
}

/* The entries of a document: an array; an object wrapping one (the first array member whose first element has
 * an op_name, else the first array member); or a single entry object (*single). The other members are checked
 * for JSON grammar one at a time. *bad_at (not JSON) or *not_ir set on failure. */
static jv_status entry_spans(const rctx *x, const char *t, size_t len, spans *out, size_t *at_end, int *single) {
    spans keys = {0}, vals = {0};
    size_t i = skip_ws(t, len, 0), end = 0, bad = 0;
    int ok = 0;
    jv_status s = JV_OK;
    *single = 0;
    if (i >= len || (t[i] != '[' && t[i] != '{')) {
        size_t ve;
        if (i < len && value_end(t, len, i, &ve) && ve > i) {
            size_t at;
            cJSON *j = parse_value(t, (span){i, ve - i}, &at);
            int json = j != NULL && skip_ws(t, len, ve) >= len;
            cJSON_Delete(j);
            if (json) return rfail(x, "not a replay IR (a JSON array of {\"op_name\", \"replay_ir\"} entries)");
            return rfail(x, "not valid JSON (near byte %zu)", j ? ve : at);
        }
        return rfail(x, "not valid JSON (near byte %zu)", i);
    }
    if ((s = split(t, len, i, &keys, &vals, &end, &bad, &ok)) != JV_OK) goto done;
    if (!ok) {
        s = rfail(x, "not valid JSON (near byte %zu)", bad);
        goto done;
    }
    *at_end = end;
    if (t[i] == '[') {
        *out = vals;
        vals = (spans){0};
        goto done;
    }
    for (size_t k = 0; k < keys.n; k++)
        if (key_is(t, keys.v[k], "op_name")) *single = 1;
    if (*single) {
        JV_CHECK_GOTO(JV_RESERVE(out->v, out->cap, 1), s, done);
        out->v[0] = (span){i, end - i};
        out->n = 1;
        goto done;
    }
    long list = -1, first = -1;
    for (size_t k = 0; k < vals.n && list < 0; k++) {
        if (t[vals.v[k].at] != '[') continue;
        if (first < 0) first = (long)k;
        spans e = {0}, none = {0};
        size_t ee;
        s = split(t, len, vals.v[k].at, &none, &e, &ee, &bad, &ok);
        int yes = 0;
        if (s == JV_OK && ok && e.n) s = has_op_name(t, e.v[0], &yes, &bad, &ok);
        free(none.v);
        if (s != JV_OK || !ok) {
            free(e.v);
            if (s == JV_OK) s = rfail(x, "not valid JSON (near byte %zu)", bad);
            goto done;
        }
        if (yes) {
            list = (long)k;
            *out = e;
        } else {
            free(e.v);
        }
    }
    if (list < 0 && first >= 0) {
        spans none = {0};
        size_t ee;
        s = split(t, len, vals.v[first].at, &none, out, &ee, &bad, &ok);
        free(none.v);
        list = first;
    }
    for (size_t k = 0; k < vals.n && s == JV_OK; k++) { /* the members not read as entries: JSON, one at a time */
        if ((long)k == list) continue;
        size_t at;
        if (vals.v[k].len > JV_IR_VALUE_LIMIT) {
            s = rfail(x, "a member of more than %d bytes at byte %zu (the limit of one value)", JV_IR_VALUE_LIMIT,
                      vals.v[k].at);
            break;
        }
        cJSON *j = parse_value(t, vals.v[k], &at);
        if (!j) s = rfail(x, "not valid JSON (near byte %zu)", at);
        cJSON_Delete(j);
    }
    if (s == JV_OK && list < 0) s = rfail(x, "not a replay IR (a JSON array of {\"op_name\", \"replay_ir\"} entries)");
done:
    free(keys.v);
    free(vals.v);
    if (s != JV_OK) {
        free(out->v);
        *out = (spans){0};
    }
    return s;
}

jv_status jv_ir_parse(const char *text, size_t len, const char *source, jv_ir *ir, jv_err *err) {
    memset(ir, 0, sizeof *ir);
    rctx x = {source ? source : "replay IR", -1, NULL, NULL, err};
    spans es = {0};
    size_t end = 0;
    int single;
    JV_CHECK(entry_spans(&x, text, len, &es, &end, &single));
    for (size_t i = end; i < len; i++) {
        if (!isspace((unsigned char)text[i]) && text[i] != 0) {
            free(es.v);
            return rfail(&x, "not valid JSON (text after the document at byte %zu)", i);
        }
    }
    jv_status st = JV_OK;
    if (es.n > (size_t)INT32_MAX) st = rfail(&x, "more than %d entries", INT32_MAX);
    if (st == JV_OK && es.n > 0) {
        ir->ops = calloc(es.n, sizeof *ir->ops);
        if (!ir->ops) st = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "%s: out of memory", x.src);
    }
    for (size_t i = 0; i < es.n && st == JV_OK; i++) {
        jv_ir_op *op = &ir->ops[i];
        span v = es.v[i];
        size_t at;
        x.entry = (int)i;
        x.op = NULL;
        x.arg = NULL;
        op->index = (int)i;
        ir->n = (int)i + 1; /* a failed entry's partial call and name are freed with the rest */
        if (v.len > JV_IR_VALUE_LIMIT) {
            st = rfail(&x, "more than %d bytes (the limit of one entry)", JV_IR_VALUE_LIMIT);
            break;
        }
        cJSON *e = parse_value(text, v, &at);
        if (!e) {
            x.entry = -1;
            st = rfail(&x, "not valid JSON (near byte %zu)", at);
            break;
        }
        numflags nf;
        if (!numflags_build(&nf, e, text + v.at, v.len)) {
            cJSON_Delete(e);
            st = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "%s: out of memory", x.src);
            break;
        }
        st = read_entry(&x, e, &nf, op);
        free(nf.v);
        cJSON_Delete(e);
    }
    free(es.v);
    if (st != JV_OK) jv_ir_free(ir);
    return st;
}

void jv_ir_free(jv_ir *ir) {
    if (!ir) return;
    for (int i = 0; i < ir->n; i++) {
        jv_opcall_free(&ir->ops[i].call);
        free(ir->ops[i].op_name);
    }
    free(ir->ops);
    memset(ir, 0, sizeof *ir);
}

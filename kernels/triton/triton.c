/* triton: descriptor parsing and the FLOPs/bytes model of torch.compile's
 * Triton kernels (triton.h for the model and where it comes from). */
#include "triton.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(jv_triton_desc) <= JV_DESC_BYTES, "triton descriptor too large");

static const struct {
    const char *prefix;
    jv_triton_kind kind;
} KINDS[] = {
    {"triton_poi_", JV_TRITON_POINTWISE},
    {"triton_red_", JV_TRITON_REDUCTION},
    {"triton_per_", JV_TRITON_PERSISTENT},
    {"triton_tem_", JV_TRITON_TEMPLATE_GEMM}, /* the template's kind is read from its name (template_kind) */
};

static const struct {
    const char *word;
    int flops;
} OPS[] = {
    {"add", 1}, {"sub", 1},        {"mul", 1}, {"div", 1}, {"relu", 1},    {"mean", 1}, {"sum", 1},  {"abs", 1},
    {"neg", 1}, {"eq", 1},         {"ne", 1},  {"lt", 1},  {"gt", 1},      {"pow", 2},  {"sqrt", 2}, {"rsqrt", 2},
    {"var", 2}, {"reciprocal", 2}, {"exp", 4}, {"log", 4}, {"sigmoid", 4}, {"tanh", 4}, {"silu", 4}, {"gelu", 8},
};

int jv_triton_op_flops(const char *word) {
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcmp(word, OPS[i].word)) return OPS[i].flops;
    return 0;
}

static int kind_of(const char *op) {
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
        if (!strncmp(op, KINDS[i].prefix, strlen(KINDS[i].prefix))) return (int)i;
    return -1;
}

static jv_match triton_match(const char *op) {
    return kind_of(op) < 0 ? JV_MATCH_NONE : JV_MATCH_STRONG;
}

/* the fused-op words of the name: after "triton_xxx_" and "fused_", up to a trailing "_<digits>" (the
 * kernel's index), split at '_'; each word with FLOPs is added to t */
static void name_ops(const char *name, jv_triton_desc *t) {
    const char *s = name + strlen(KINDS[t->kind].prefix);
    if (!strncmp(s, "fused_", 6)) s += 6;
    size_t len = strlen(s);
    size_t end = len;
    while (end > 0 && s[end - 1] >= '0' && s[end - 1] <= '9')
        end--;
    if (end < len && end > 0 && s[end - 1] == '_') len = end - 1; /* "..._2": the index */
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && s[j] != '_')
            j++;
        char w[16];
        size_t wl = j - i;
        if (wl > 0 && wl < sizeof w) {
            memcpy(w, s + i, wl);
            w[wl] = 0;
            int f = jv_triton_op_flops(w);
            if (f > 0) {
                t->flops_per_el += f;
                if (t->nops < JV_TRITON_MAX_OPS) {
                    memcpy(t->ops[t->nops], w, wl + 1);
                    t->nops++;
                }
            }
        }
        i = j + 1;
    }
}

/* 1 when the name of a template kernel, after "triton_tem_", holds word w ("_"-delimited) */
static int has_word(const char *name, const char *w) {
    size_t n = strlen(w);
    for (const char *s = name + 11; (s = strstr(s, w)) != NULL; s++)
        if (s[-1] == '_' && (s[n] == '_' || s[n] == 0)) return 1;
    return 0;
}

/* a template's kind from its name: GEMM, convolution, or -1 (fused attention, other: no model) */
static int template_kind(const char *name) {
    if (has_word(name, "attention")) return -1;
    if (has_word(name, "convolution")) return JV_TRITON_TEMPLATE_CONV;
    if (has_word(name, "mm") || has_word(name, "addmm") || has_word(name, "bmm") || has_word(name, "baddbmm"))
        return JV_TRITON_TEMPLATE_GEMM;
    return -1;
}

/* a template of a kind with no model here (fused attention, other): generated code sets its work */
static jv_unsized triton_unsized(const char *op) {
    return !strncmp(op, "triton_tem_", 11) && template_kind(op) < 0 ? JV_UNSIZED_GENERATED : JV_UNSIZED_NO;
}

/* 1 when a and b (distinct from each other and from skip) are rank-r tensors with equal leading dims (batch) */
static int same_batch(const jv_tensor *a, const jv_tensor *b, int r) {
    if (a->ndim != r || b->ndim != r) return 0;
    for (int d = 0; d < r - 2; d++)
        if (a->shape[d] != b->shape[d]) return 0;
    return 1;
}

/* the GEMM operands among c's tensors: A [.., M, K], B [.., K, N] (the first such pair in argument order, rank
 * 2 or 3, equal batch) with an output [.., M, N] among the other arguments */
static int find_gemm(const jv_opcall *c, jv_triton_desc *t) {
    for (int i = 0; i < c->nargs; i++) {
        const jv_tensor *a = jv_opcall_tensor(c, i);
        if (!a || a->ndim < 2 || a->ndim > 3) continue;
        int r = a->ndim;
        for (int j = i + 1; j < c->nargs; j++) {
            const jv_tensor *b = jv_opcall_tensor(c, j);
            if (!b || !same_batch(a, b, r) || a->shape[r - 1] != b->shape[r - 2]) continue;
            for (int o = 0; o < c->nargs; o++) {
                const jv_tensor *y = jv_opcall_tensor(c, o);
                if (o == i || o == j || !y || !same_batch(a, y, r) || y->shape[r - 2] != a->shape[r - 2] ||
                    y->shape[r - 1] != b->shape[r - 1])
                    continue;
                t->gb = r == 3 ? a->shape[0] : 1;
                t->gm = a->shape[r - 2], t->gk = a->shape[r - 1], t->gn = b->shape[r - 1];
                return t->gb > 0 && t->gm > 0 && t->gn > 0 && t->gk > 0;
            }
        }
    }
    return 0;
}

/* the convolution among c's tensors: x [N, C, ...], w [Co, C/g, ...], out [N, Co, ...] of one rank >= 3 */
static int find_conv(const jv_opcall *c, jv_triton_desc *t) {
    for (int xi = 0; xi < c->nargs; xi++) {
        const jv_tensor *x = jv_opcall_tensor(c, xi);
        if (!x || x->ndim < 3) continue;
        for (int wi = 0; wi < c->nargs; wi++) {
            const jv_tensor *w = jv_opcall_tensor(c, wi);
            if (wi == xi || !w || w->ndim != x->ndim || w->shape[1] <= 0 || x->shape[1] % w->shape[1]) continue;
            for (int oi = 0; oi < c->nargs; oi++) {
                const jv_tensor *y = jv_opcall_tensor(c, oi);
                if (oi == xi || oi == wi || !y || y->ndim != x->ndim || y->shape[0] != x->shape[0] ||
                    y->shape[1] != w->shape[0] || w->shape[0] <= 0)
                    continue;
                t->conv_macs = jv_numel_d(y) * (jv_numel_d(w) / (double)w->shape[0]);
                return t->conv_macs > 0;
            }
        }
    }
    return 0;
}

static jv_status triton_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    jv_triton_desc *t = (jv_triton_desc *)(void *)d->data;
    memset(t, 0, sizeof *t);
    int k = kind_of(c->name);
    if (k < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not a Triton kernel of torch.compile", c->name);
    t->kind = KINDS[k].kind;
    t->n = -1;
    for (int i = 0; i < c->nargs; i++) {
        const jv_tensor *x = jv_opcall_tensor(c, i);
        if (!x) continue;
        int64_t n = jv_tensor_numel(x);
        if (n < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: argument %d has a negative or overflowing shape", c->name, i);
        if (x->dtype == JV_DT_UNKNOWN || !jv_dtype_is_numeric(x->dtype))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: argument %d has no known numeric dtype", c->name, i);
        if (t->n < 0) {
            t->n = n;
            t->dtype = x->dtype;
        }
        t->ntensors++;
        t->in_bytes += (double)n * jv_bpe(x->dtype);
    }
    if (t->ntensors == 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: no tensor arguments recorded", c->name);
    name_ops(c->name, t);
    d->bwd = 0;
    if (t->kind != JV_TRITON_TEMPLATE_GEMM) return JV_OK;
    int tk = template_kind(c->name);
    if (tk < 0)
        JV_FAIL(err, JV_ERR_FORMAT,
                "%s: a template (fused attention or other) whose work generated code sets, not its arguments", c->name);
    t->kind = (jv_triton_kind)tk;
    if (tk == JV_TRITON_TEMPLATE_GEMM ? !find_gemm(c, t) : !find_conv(c, t))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: no operands and output of the template's %s among its tensor arguments",
                c->name, tk == JV_TRITON_TEMPLATE_GEMM ? "GEMM" : "convolution");
    return JV_OK;
}

static void triton_model(const jv_desc *d, jv_perf *p) {
    const jv_triton_desc *t = jv_triton_of(d);
    double n = (double)t->n;
    p->flops = n * t->flops_per_el;
    p->bytes = t->in_bytes + (t->kind == JV_TRITON_POINTWISE ? n * jv_bpe(t->dtype) : 0);
    p->dtype = t->dtype;
    p->matrix = 0;
    if (t->kind == JV_TRITON_TEMPLATE_GEMM || t->kind == JV_TRITON_TEMPLATE_CONV) {
        p->flops = t->kind == JV_TRITON_TEMPLATE_GEMM
                       ? 2.0 * (double)t->gb * (double)t->gm * (double)t->gn * (double)t->gk
                       : 2.0 * t->conv_macs;
        p->matrix = 1;
    }
}

static void triton_params(const jv_desc *d, jv_params *ps) {
    const jv_triton_desc *t = jv_triton_of(d);
    static const char *const kind[] = {"pointwise", "reduction", "persistent reduction", "template GEMM",
                                       "template convolution"};
    jv_param_text(ps, "kernel_kind", "%s", kind[t->kind]);
    char ops[JV_TRITON_MAX_OPS * 14] = "";
    size_t o = 0;
    for (int i = 0; i < t->nops && o + 14 < sizeof ops; i++)
        o += (size_t)snprintf(ops + o, sizeof ops - o, "%s%s", i ? ", " : "", t->ops[i]);
    jv_param_text(ps, "fused_ops", "%s", o ? ops : "None");
    jv_param_int(ps, "flops_per_element", t->flops_per_el);
    jv_param_int(ps, "elements", t->n);
    jv_param_int(ps, "tensor_args", t->ntensors);
    const char *dt[1] = {jv_dtype_trace_name(t->dtype)};
    jv_param_dtypes(ps, "dtype", dt, 1);
    /* a template GEMM's dims (nan elsewhere: the sheet drops a column nan in every row) */
    int g = t->kind == JV_TRITON_TEMPLATE_GEMM;
    const char *const dn[4] = {"B", "M", "N", "K"};
    const int64_t dv[4] = {t->gb, t->gm, t->gn, t->gk};
    for (int i = 0; i < 4; i++)
        if (g)
            jv_param_int(ps, dn[i], dv[i]);
        else
            jv_param_float(ps, dn[i], NAN);
}

const jv_family jv_triton_family = {
    .name = "triton",
    .sheet = "Triton",
    .category = "triton",
    .match = triton_match,
    .unsized = triton_unsized,
    .parse = triton_parse,
    .model = triton_model,
    .params = triton_params,
    .no_replay = "not replayed: a kernel torch.compile generated, whose source the trace does not hold",
};

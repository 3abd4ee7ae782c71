/* triton: descriptor parsing and the FLOPs/bytes model of torch.compile's
 * Triton kernels (triton.h for the model and where it comes from). */
#include "triton.h"

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
    return JV_OK;
}

static void triton_model(const jv_desc *d, jv_perf *p) {
    const jv_triton_desc *t = jv_triton_of(d);
    double n = (double)t->n;
    p->flops = n * t->flops_per_el;
    p->bytes = t->in_bytes + (t->kind == JV_TRITON_POINTWISE ? n * jv_bpe(t->dtype) : 0);
    p->dtype = t->dtype;
    p->matrix = 0;
}

static void triton_params(const jv_desc *d, jv_params *ps) {
    const jv_triton_desc *t = jv_triton_of(d);
    static const char *const kind[] = {"pointwise", "reduction", "persistent reduction"};
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
}

const jv_family jv_triton_family = {
    .name = "triton",
    .sheet = "Triton",
    .category = "triton",
    .match = triton_match,
    .parse = triton_parse,
    .model = triton_model,
    .params = triton_params,
    .no_replay = "not replayed: a kernel torch.compile generated, whose source the trace does not hold",
};

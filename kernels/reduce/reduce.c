/* reduce: descriptor parsing and the FLOPs/bytes model of reductions.
 *
 * flops = num_input_elems (one combine per input element, as TraceLens);
 * bytes = n_in*bpe_in + n_out*bpe_out (+ n_out*bpe of a second output:
 * max/min.dim's int64 indices, var_mean/std_mean's mean).
 *
 * Deliberate differences from TraceLens:
 * - the reduced dims and keepdim are read from Concrete Inputs (TraceLens never
 *   parses them and reports 1 output element: defect fixed), so n_out is the
 *   product of the kept dims; unknown dims ("" in traces without Concrete
 *   Inputs, "None", []) mean a full reduction, TraceLens' count;
 * - the output dtype is the dtype argument (a ScalarType code) when given,
 *   else int64 for sum/prod/cumsum/cumprod of integral or bool input (what
 *   PyTorch returns), int64 for argmax/argmin, bool for any/all, else the
 *   input dtype (TraceLens always uses the input dtype);
 * - bool has 1 byte (TraceLens: unknown);
 * - the second outputs above are counted (TraceLens ignores them);
 * - binary aten::max/min(self, other) is modelled as elementwise:
 *   flops = |out|, bytes = |self|*bpe + |other|*bpe + |out|*bpe_out;
 * - aten::topk(self, k, dim=-1, largest, sorted), which TraceLens leaves
 *   unmodelled: a selection along dim, flops = |self| (one compare per
 *   element), bytes = |self|*bpe + |out|*bpe + |out|*8 (values and int64
 *   indices), |out| = |self| / size(dim) * k.
 * reduce_type follows TraceLens: the first of "mean", "max", "min", "norm"
 * found in the op name, else "sum". */
#include "reduce.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(jv_reduce_desc) <= JV_DESC_BYTES, "reduce descriptor too large");

/* How an op's arguments are laid out. */
typedef enum {
    L_SUM,    /* (self, dtype) | (self, dim[], keepdim, dtype[, out]) */
    L_MAXMIN, /* (self) | (self, other) | (self, dim, keepdim[, out...]) */
    L_DIMS,   /* (self, dim[], keepdim): amax, amin, logsumexp */
    L_NORM,   /* (self, p) | (self, p, dtype) | (self, p, dim[], keepdim[, dtype]) */
    L_VNORM,  /* (self, ord, dim[]?, keepdim, dtype) */
    L_VAR,    /* (self, unbiased) | (self, dim[]?, unbiased|correction, keepdim) */
    L_SCAN,   /* (self, dim, dtype) */
    L_ARG,    /* (self, dim?, keepdim) */
    L_ANY,    /* (self) | (self, dim | dim[]?, keepdim) */
    L_TOPK    /* (self, k, dim, largest, sorted) */
} arg_layout;

static const struct {
    const char *name;
    jv_reduce_op op;
    arg_layout layout;
    jv_match how;
} OPS[] = {
    {"aten::sum", JV_REDUCE_SUM, L_SUM, JV_MATCH_STRONG},
    {"aten::mean", JV_REDUCE_MEAN, L_SUM, JV_MATCH_STRONG},
    {"aten::max", JV_REDUCE_MAX, L_MAXMIN, JV_MATCH_STRONG},
    {"aten::min", JV_REDUCE_MIN, L_MAXMIN, JV_MATCH_STRONG},
    {"aten::amax", JV_REDUCE_AMAX, L_DIMS, JV_MATCH_STRONG},
    {"aten::amin", JV_REDUCE_AMIN, L_DIMS, JV_MATCH_STRONG},
    {"aten::prod", JV_REDUCE_PROD, L_SUM, JV_MATCH_STRONG},
    {"aten::norm", JV_REDUCE_NORM, L_NORM, JV_MATCH_STRONG},
    {"aten::linalg_vector_norm", JV_REDUCE_LINALG_VECTOR_NORM, L_VNORM, JV_MATCH_STRONG},
    {"aten::linalg_norm", JV_REDUCE_LINALG_NORM, L_VNORM, JV_MATCH_WEAK},
    {"aten::std", JV_REDUCE_STD, L_VAR, JV_MATCH_STRONG},
    {"aten::var", JV_REDUCE_VAR, L_VAR, JV_MATCH_STRONG},
    {"aten::var_mean", JV_REDUCE_VAR_MEAN, L_VAR, JV_MATCH_STRONG},
    {"aten::std_mean", JV_REDUCE_STD_MEAN, L_VAR, JV_MATCH_STRONG},
    {"aten::logsumexp", JV_REDUCE_LOGSUMEXP, L_DIMS, JV_MATCH_STRONG},
    {"aten::cumsum", JV_REDUCE_CUMSUM, L_SCAN, JV_MATCH_STRONG},
    {"aten::cumprod", JV_REDUCE_CUMPROD, L_SCAN, JV_MATCH_STRONG},
    {"aten::argmax", JV_REDUCE_ARGMAX, L_ARG, JV_MATCH_STRONG},
    {"aten::argmin", JV_REDUCE_ARGMIN, L_ARG, JV_MATCH_STRONG},
    {"aten::any", JV_REDUCE_ANY, L_ANY, JV_MATCH_STRONG},
    {"aten::all", JV_REDUCE_ALL, L_ANY, JV_MATCH_STRONG},
    {"aten::topk", JV_REDUCE_TOPK, L_TOPK, JV_MATCH_STRONG},
};

static int find_op(const char *name) {
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcmp(name, OPS[i].name)) return (int)i;
    return -1;
}

static jv_match reduce_match(const char *op) {
    int i = find_op(op);
    return i < 0 ? JV_MATCH_NONE : OPS[i].how;
}

static int is_integral(jv_dtype t) {
    return t == JV_DT_I64 || t == JV_DT_I32 || t == JV_DT_I16 || t == JV_DT_I8 || t == JV_DT_U8 || t == JV_DT_BOOL;
}

/* 1 when the text of arg i looks like a dim list ("[...]") */
static int is_list_text(const jv_opcall *c, int i) {
    const char *s = jv_opcall_value(c, i);
    return s && (s[0] == '[' || s[0] == '(');
}

/* Marks the dims named by arg i of c in r (absent, "None", "" and [] leave
 * r->full set). Returns 0 on a malformed or out-of-range dim. */
static int read_dims(const jv_opcall *c, int i, jv_reduce_desc *r) {
    const char *s = jv_opcall_value(c, i);
    r->full = 1;
    r->reduced = 0;
    if (i < 0 || !s || !strcmp(s, "None")) return 1;
    long long dims[JV_MAX_DIMS];
    int n = jv_parse_ints(s, dims, JV_MAX_DIMS);
    if (n < 0) return 0;
    if (n == 0) return 1;
    int nd = r->in.ndim;
    int lim = nd > 0 ? nd : 1; /* a 0-d tensor takes dim 0 or -1 */
    for (int k = 0; k < n; k++) {
        long long v = dims[k];
        if (v < -lim || v >= lim) return 0;
        if (v < 0) v += lim;
        if (nd > 0) r->reduced |= 1u << v;
    }
    r->full = 0;
    return 1;
}

/* aten::topk(self, k, dim=-1, largest=True, sorted=True): values and int64 indices of k along dim */
static jv_status parse_topk(const jv_opcall *c, jv_desc *d, jv_reduce_desc *r, jv_err *err) {
    const jv_tensor *in = &r->in;
    long long k, dim = -1;
    if (jv_parse_ints(jv_opcall_value(c, 1), &k, 1) != 1 || k < 0)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: k not recorded or negative", c->name);
    const char *ds = jv_opcall_value(c, 2);
    if (ds && strcmp(ds, "None") && jv_parse_ints(ds, &dim, 1) != 1)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: bad dim", c->name);
    int lim = in->ndim > 0 ? in->ndim : 1;
    if (dim < -lim || dim >= lim) JV_FAIL(err, JV_ERR_FORMAT, "%s: dim out of range", c->name);
    if (dim < 0) dim += lim;
    long long size = in->ndim > 0 ? in->shape[dim] : 1;
    if (k > size) JV_FAIL(err, JV_ERR_FORMAT, "%s: k = %lld exceeds the dim's size %lld", c->name, k, size);
    r->out = *in;
    r->out.has_strides = 0;
    if (in->ndim > 0) r->out.shape[dim] = k;
    r->n_out = jv_tensor_numel(&r->out);
    r->full = 0;
    r->reduced = in->ndim > 0 ? 1u << dim : 0;
    r->n_outputs = 2;
    r->out2_dtype = JV_DT_I64;
    d->bwd = 0;
    return JV_OK;
}

static jv_status reduce_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    jv_reduce_desc *r = (jv_reduce_desc *)(void *)d->data;
    memset(r, 0, sizeof *r);
    int oi = find_op(c->name);
    if (oi < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not a reduction", c->name);
    r->op = OPS[oi].op;
    const jv_tensor *in = jv_opcall_tensor(c, 0);
    if (!in) JV_FAIL(err, JV_ERR_FORMAT, "%s: input shape missing", c->name);
    r->in = *in;
    r->n_in = jv_tensor_numel(in);
    if (r->n_in < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: negative or overflowing input shape", c->name);
    snprintf(r->in_type, sizeof r->in_type, "%s", c->args[0].type);
    r->n_outputs = 1;
    int n = c->nargs, idim = -1, ikeep = -1, idtype = -1;
    switch (OPS[oi].layout) {
    case L_SUM:
        if (n <= 2)
            idtype = 1;
        else
            idim = 1, ikeep = 2, idtype = 3;
        break;
    case L_MAXMIN:
        if (n == 2 && jv_opcall_tensor(c, 1))
            r->binary = 1;
        else if (n >= 2)
            idim = 1, ikeep = 2, r->n_outputs = 2, r->out2_dtype = JV_DT_I64;
        break;
    case L_DIMS:
    case L_ARG:
    case L_ANY: idim = 1, ikeep = 2; break;
    case L_NORM:
        if (n == 3 && !is_list_text(c, 2))
            idtype = 2;
        else if (n >= 3)
            idim = 2, ikeep = 3, idtype = 4;
        break;
    case L_VNORM: idim = 2, ikeep = 3, idtype = 4; break;
    case L_VAR:
        if (n >= 3) idim = 1, ikeep = 3;
        if (r->op == JV_REDUCE_VAR_MEAN || r->op == JV_REDUCE_STD_MEAN) r->n_outputs = 2;
        break;
    case L_SCAN: r->scan = 1, idim = 1, idtype = 2; break;
    case L_TOPK: return parse_topk(c, d, r, err);
    }
    if (r->binary) {
        const jv_tensor *o = jv_opcall_tensor(c, 1);
        r->other = *o;
        if (jv_tensor_numel(o) < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: negative or overflowing shape", c->name);
        if (!jv_tensor_broadcast(in, o, &r->out))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: operand shapes do not broadcast", c->name);
        r->n_in = r->n_out = jv_tensor_numel(&r->out);
        if (r->n_in < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: overflowing output shape", c->name);
        r->out.dtype = in->dtype;
        d->bwd = 0;
        return JV_OK;
    }
    if (!read_dims(c, idim, r)) JV_FAIL(err, JV_ERR_FORMAT, "%s: bad or out-of-range dim", c->name);
    if (!jv_opcall_bool(c, ikeep, 0, 1, &r->keepdim)) JV_FAIL(err, JV_ERR_FORMAT, "%s: bad keepdim", c->name);
    /* the output shape */
    if (r->scan) {
        r->out = *in;
        r->out.has_strides = 0;
        r->n_out = r->n_in;
    } else {
        jv_tensor o = {0};
        for (int i = 0; i < in->ndim; i++) {
            int red = r->full || (r->reduced >> i & 1u);
            if (!red)
                o.shape[o.ndim++] = in->shape[i];
            else if (r->keepdim)
                o.shape[o.ndim++] = 1;
        }
        r->out = o;
        r->n_out = jv_tensor_numel(&o);
    }
    /* the output dtype */
    jv_dtype od = jv_parse_scalar_type(jv_opcall_value(c, idtype));
    if (od == JV_DT_UNKNOWN) {
        od = in->dtype;
        switch (r->op) {
        case JV_REDUCE_SUM:
        case JV_REDUCE_PROD:
        case JV_REDUCE_CUMSUM:
        case JV_REDUCE_CUMPROD:
            if (is_integral(od)) od = JV_DT_I64;
            break;
        case JV_REDUCE_ARGMAX:
        case JV_REDUCE_ARGMIN: od = JV_DT_I64; break;
        case JV_REDUCE_ANY:
        case JV_REDUCE_ALL:
            if (od != JV_DT_U8) od = JV_DT_BOOL;
            break;
        default: break;
        }
    }
    r->out.dtype = od;
    if (r->n_outputs == 2 && r->out2_dtype == JV_DT_UNKNOWN) r->out2_dtype = od;
    d->bwd = 0;
    return JV_OK;
}

static void reduce_model(const jv_desc *d, jv_perf *p) {
    const jv_reduce_desc *r = jv_reduce_of(d);
    double n_in = (double)r->n_in, n_out = (double)r->n_out;
    p->flops = n_in;
    if (r->binary)
        p->bytes = jv_numel_d(&r->in) * jv_bpe(r->in.dtype) + jv_numel_d(&r->other) * jv_bpe(r->other.dtype) +
                   n_out * jv_bpe(r->out.dtype);
    else
        p->bytes = n_in * jv_bpe(r->in.dtype) + n_out * jv_bpe(r->out.dtype) +
                   (r->n_outputs == 2 ? n_out * jv_bpe(r->out2_dtype) : 0);
    p->dtype = r->in.dtype;
    p->matrix = 0;
}

static const char *reduce_type(const char *name) {
    static const char *const T[] = {"mean", "max", "min", "norm"};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (strstr(name, T[i])) return T[i];
    return "sum";
}

static void reduce_params(const jv_desc *d, jv_params *ps) {
    const jv_reduce_desc *r = jv_reduce_of(d);
    jv_param_int(ps, "num_input_elems", r->n_in);
    jv_param_int(ps, "num_output_elems", r->n_out);
    /* TraceLens prints (input type, None): it never knows the output dtype */
    const char *dt[2] = {
        r->in.dtype != JV_DT_UNKNOWN ? jv_dtype_trace_name(r->in.dtype) : (r->in_type[0] ? r->in_type : NULL), NULL};
    jv_param_dtypes(ps, "dtype_in_out", dt, 2);
    int oi = -1;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (OPS[i].op == r->op) oi = (int)i;
    jv_param_text(ps, "reduce_type", "%s", r->op == JV_REDUCE_TOPK ? "topk" : reduce_type(oi >= 0 ? OPS[oi].name : ""));
}

const jv_family jv_reduce_family = {
    .name = "reduce",
    .sheet = "Reduce",
    .split = 1,
    .category = "reduce",
    .match = reduce_match,
    .parse = reduce_parse,
    .model = reduce_model,
    .params = reduce_params,
};

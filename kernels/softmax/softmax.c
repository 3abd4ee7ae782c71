/* softmax: descriptor parsing and the FLOPs/bytes model of (log-)softmax.
 * TraceLens has no softmax model (defect fixed). n = elements of the input.
 * forward:  flops = 5*n (max, subtract, exp, sum, divide; log_softmax: max,
 *           subtract, exp, sum, subtract the log-sum), bytes = n*bpe_in +
 *           n*bpe_out, the output fp32 when half_to_float is True (or the
 *           dtype argument of aten::softmax / log_softmax);
 * backward: flops = 3*n (per element a multiply, a reduce-add and a
 *           subtract/multiply), bytes = n*bpe(grad_output) + n*bpe(output)
 *           read + n*bpe(input_dtype) written. */
#include "softmax.h"

#include <math.h>
#include <string.h>

_Static_assert(sizeof(jv_softmax_desc) <= JV_DESC_BYTES, "softmax descriptor too large");

static const struct {
    const char *name;
    jv_softmax_kind kind;
    int log;
    jv_match how;
} OPS[] = {
    {"aten::_softmax", JV_SOFTMAX_FWD, 0, JV_MATCH_STRONG},
    {"aten::softmax", JV_SOFTMAX_WEAK, 0, JV_MATCH_WEAK},
    {"aten::_log_softmax", JV_SOFTMAX_FWD, 1, JV_MATCH_STRONG},
    {"aten::log_softmax", JV_SOFTMAX_WEAK, 1, JV_MATCH_WEAK},
    {"aten::_softmax_backward_data", JV_SOFTMAX_BWD, 0, JV_MATCH_STRONG},
    {"aten::_log_softmax_backward_data", JV_SOFTMAX_BWD, 1, JV_MATCH_STRONG},
};

static int find_op(const char *name) {
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcmp(name, OPS[i].name)) return (int)i;
    return -1;
}

static jv_match softmax_match(const char *op) {
    int i = find_op(op);
    return i < 0 ? JV_MATCH_NONE : OPS[i].how;
}

static jv_status softmax_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    jv_softmax_desc *s = (jv_softmax_desc *)(void *)d->data;
    memset(s, 0, sizeof *s);
    int oi = find_op(c->name);
    if (oi < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not a softmax", c->name);
    s->kind = OPS[oi].kind;
    s->log = OPS[oi].log;
    s->bwd = s->kind == JV_SOFTMAX_BWD;
    const jv_tensor *in = jv_opcall_tensor(c, 0);
    if (!in) JV_FAIL(err, JV_ERR_FORMAT, "%s: input shape missing", c->name);
    s->in = *in;
    s->n = jv_tensor_numel(in);
    if (s->n < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: negative or overflowing shape", c->name);
    int idim = 1;
    if (s->bwd) {
        /* _softmax_backward_data(grad_output, output, dim, input_dtype) */
        const jv_tensor *o = jv_opcall_tensor(c, 1);
        if (!o) JV_FAIL(err, JV_ERR_FORMAT, "%s: output shape missing", c->name);
        if (o->ndim != in->ndim || memcmp(o->shape, in->shape, (size_t)in->ndim * sizeof in->shape[0]))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: grad_output and output shapes differ", c->name);
        s->saved = *o;
        idim = 2;
    }
    const char *ds = jv_opcall_value(c, idim);
    if (ds && strcmp(ds, "None")) {
        long long v;
        int lim = in->ndim > 0 ? in->ndim : 1; /* a 0-d tensor takes dim 0 or -1 */
        if (jv_parse_ints(ds, &v, 1) != 1 || v < -lim || v >= lim)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: bad or out-of-range dim", c->name);
        s->has_dim = 1;
        s->dim = (int)(v < 0 ? v + lim : v);
    }
    s->out_dtype = in->dtype;
    const char *x = jv_opcall_value(c, idim + 1);
    if (s->kind == JV_SOFTMAX_FWD) {
        /* _softmax(self, dim, half_to_float) */
        int h = 0;
        if (x && strcmp(x, "None") && !jv_parse_bool(x, &h))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: bad half_to_float", c->name);
        if (h) s->out_dtype = JV_DT_F32;
    } else {
        /* softmax(self, dim, dtype); _softmax_backward_data(..., input_dtype) */
        jv_dtype t = jv_parse_scalar_type(x); /* a floating dtype only */
        if (t == JV_DT_F16 || t == JV_DT_F32 || t == JV_DT_F64 || t == JV_DT_BF16) s->out_dtype = t;
    }
    d->bwd = s->bwd;
    return JV_OK;
}

static void softmax_model(const jv_desc *d, jv_perf *p) {
    const jv_softmax_desc *s = jv_softmax_of(d);
    double n = (double)s->n;
    if (!s->bwd) {
        p->flops = 5 * n;
        p->bytes = n * jv_bpe(s->in.dtype) + n * jv_bpe(s->out_dtype);
    } else {
        p->flops = 3 * n;
        p->bytes = n * jv_bpe(s->in.dtype) + n * jv_bpe(s->saved.dtype) + n * jv_bpe(s->out_dtype);
    }
    p->dtype = s->in.dtype;
    p->matrix = 0;
}

/* a dtype's trace name, or NULL (printed None) when unknown */
static const char *dtype_name(jv_dtype t) {
    return t == JV_DT_UNKNOWN ? NULL : jv_dtype_trace_name(t);
}

static void softmax_params(const jv_desc *d, jv_params *ps) {
    const jv_softmax_desc *s = jv_softmax_of(d);
    jv_param_tuple(ps, "op_shape", s->in.shape, s->in.ndim);
    const char *dt[2] = {dtype_name(s->in.dtype), dtype_name(s->out_dtype)};
    jv_param_dtypes(ps, "dtype_in_out", dt, 2);
    jv_param_tuple(ps, "stride_input", s->in.has_strides ? s->in.strides : NULL, s->in.ndim);
    if (s->has_dim)
        jv_param_int(ps, "dim", s->dim);
    else
        jv_param_text(ps, "dim", "None");
}

const jv_family jv_softmax_family = {
    .name = "softmax",
    .sheet = "Softmax",
    .split = 1,
    .category = "softmax",
    .match = softmax_match,
    .parse = softmax_parse,
    .model = softmax_model,
    .params = softmax_params,
};

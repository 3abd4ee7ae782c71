/* actmul: descriptor parsing, the FLOPs/bytes model and the replay operands of the serving stacks' gated
 * activations (actmul.h). */
#include "actmul.h"

#include <string.h>

_Static_assert(sizeof(jv_actmul_desc) <= JV_DESC_BYTES, "actmul descriptor too large");

static const struct {
    const char *name;
    jv_actmul_act act;
    int act_second;
} OPS[] = {
    {"_C::silu_and_mul", JV_ACTMUL_SILU, 0},
    {"_C::mul_and_silu", JV_ACTMUL_SILU, 1},
    {"_C::gelu_and_mul", JV_ACTMUL_GELU, 0},
    {"_C::gelu_tanh_and_mul", JV_ACTMUL_GELU_TANH, 0},
    {"aiter::silu_and_mul", JV_ACTMUL_SILU, 0},
    {"aiter::gelu_and_mul", JV_ACTMUL_GELU, 0},
    {"aiter::gelu_tanh_and_mul", JV_ACTMUL_GELU_TANH, 0},
};

/* FLOPs per element of each activation (TraceLens' fused-kernel table: silu 4, gelu 8) */
static const int ACT_FLOPS[] = {4, 8, 8};
static const char *const ACT_NAME[] = {"silu", "gelu", "gelu_tanh"};

static int find_op(const char *name) {
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcmp(name, OPS[i].name)) return (int)i;
    return -1;
}

static jv_match actmul_match(const char *op) {
    return find_op(op) < 0 ? JV_MATCH_NONE : JV_MATCH_STRONG;
}

static jv_status actmul_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    jv_actmul_desc *g = (jv_actmul_desc *)(void *)d->data;
    memset(g, 0, sizeof *g);
    int oi = find_op(c->name);
    if (oi < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not a gated activation", c->name);
    g->act = OPS[oi].act;
    g->act_second = OPS[oi].act_second;
    g->name = OPS[oi].name;
    g->vllm = !strncmp(g->name, "_C::", 4);
    const jv_tensor *out = jv_opcall_tensor(c, 0), *in = jv_opcall_tensor(c, 1);
    if (!out || !in) JV_FAIL(err, JV_ERR_FORMAT, "%s: out and input shapes missing", c->name);
    if (in->ndim < 1 || out->ndim != in->ndim) JV_FAIL(err, JV_ERR_FORMAT, "%s: out and input ranks differ", c->name);
    for (int i = 0; i + 1 < in->ndim; i++)
        if (in->shape[i] != out->shape[i]) JV_FAIL(err, JV_ERR_FORMAT, "%s: out and input shapes differ", c->name);
    if (in->shape[in->ndim - 1] != 2 * out->shape[out->ndim - 1])
        JV_FAIL(err, JV_ERR_FORMAT, "%s: the input's last dim is not twice the output's", c->name);
    g->n = jv_tensor_numel(out);
    if (g->n < 0 || jv_tensor_numel(in) < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: negative or overflowing shape", c->name);
    if (!jv_dtype_is_numeric(in->dtype) || !jv_dtype_is_numeric(out->dtype))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: no known dtype", c->name);
    g->in = *in;
    g->out = *out;
    g->width = out->shape[out->ndim - 1];
    d->bwd = 0;
    return JV_OK;
}

static void actmul_model(const jv_desc *d, jv_perf *p) {
    const jv_actmul_desc *g = jv_actmul_of(d);
    double n = (double)g->n;
    p->flops = n * (ACT_FLOPS[g->act] + 1);
    p->bytes = 2.0 * n * jv_bpe(g->in.dtype) + n * jv_bpe(g->out.dtype);
    p->dtype = g->in.dtype;
    p->matrix = 0;
}

static void actmul_params(const jv_desc *d, jv_params *ps) {
    const jv_actmul_desc *g = jv_actmul_of(d);
    jv_param_text(ps, "activation", "%s", ACT_NAME[g->act]);
    jv_param_tuple(ps, "op_shape", g->in.shape, g->in.ndim);
    const char *dt[2] = {jv_dtype_trace_name(g->in.dtype), jv_dtype_trace_name(g->out.dtype)};
    jv_param_dtypes(ps, "dtype_in_out", dt, 2);
}

const jv_family jv_actmul_family = {
    .name = "actmul",
    .sheet = "GatedActivation",
    .category = "elementwise",
    .match = actmul_match,
    .parse = actmul_parse,
    .model = actmul_model,
    .params = actmul_params,
    .operands = jv_actmul_operands,
    .reference = jv_actmul_reference,
    .schemas = jv_actmul_schemas,
    .repro = jv_actmul_repro,
};

jv_status jv_actmul_operands(const jv_desc *d, jv_operands *out, jv_err *err) {
    const jv_actmul_desc *g = jv_actmul_of(d);
    out->n = 0;
    /* vLLM names silu_and_mul's output "result", its other gated activations' (and AITER's) "out" */
    const char *oname = g->vllm && g->act == JV_ACTMUL_SILU && !g->act_second ? "result" : "out";
    JV_CHECK(jv_operands_add(out, oname, &g->out, JV_ROLE_OUT, JV_INIT_NONE, err));
    return jv_operands_add(out, "input", &g->in, JV_ROLE_IN, JV_INIT_NORMAL, err);
}

/* elementwise_model: the FLOPs/bytes model and the TraceLens params of the
 * unary and binary families, and their family tables (parsing: elementwise.c).
 * flops = |out|;
 * bytes = sum over tensor operands |in_i|*bpe_i + |out|*bpe_out, where a Scalar
 *         operand (a Python number) moves no bytes and a 0-d tensor one element;
 *         copy_ reads src and writes dst (a cast reads one dtype and writes
 *         another); fill_/zero_ only write; an in-place op reads self and writes it.
 * Deliberate differences from TraceLens (its numbers agree everywhere else):
 *  - TraceLens charges a Scalar operand 4 bytes ("Scalar" in its bpe table): here 0.
 *  - TraceLens has no size for bool (bytes NaN): here 1 byte (comparisons, masks, bool copies).
 *  - TraceLens sizes a binary output by max(bpe_a, bpe_b) (bpe_a when an operand is 0-d);
 *    here the output dtype follows PyTorch type promotion (bool for comparisons,
 *    float for true division of integers, a 0-d tensor or Scalar does not promote a
 *    dimensioned tensor of the same category).
 *  - TraceLens' unary model takes Dims[1] as the output (right for copy_(dst, src)); for
 *    an op whose second argument is a tensor operand (pow Tensor^Tensor, clamp with tensor
 *    bounds) the bytes here are those of every input plus the output.
 *  - TraceLens has no model for relu, gelu, tanh, exp, fill_, zero_, where, comparisons,
 *    *_backward other than sigmoid/threshold, addcmul, lerp, ...: added here.
 *  - copy_ with a broadcast src (fewer elements than dst): |src| elements are read
 *    (TraceLens: |dst|). Expanded (stride-0) views still count their numel, as TraceLens does. */
#include "elementwise.h"
#include "elementwise_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- model ---- */

static void ew_model(const jv_desc *d, jv_perf *p) {
    const jv_elementwise_desc *g = jv_elementwise_of(d);
    double bytes = 0;
    for (int k = 0; k < g->arity; k++)
        if (g->in[k].kind == JV_EW_TENSOR) bytes += jv_numel_d(&g->in[k].t) * jv_bpe(g->in[k].t.dtype);
    double n = jv_numel_d(&g->out);
    bytes += n * jv_bpe(g->out.dtype);
    p->flops = n;
    p->bytes = bytes;
    p->dtype = g->compute;
    p->matrix = 0;
}

/* ---- params (TraceLens reads them positionally: Dims[k], Input type[k], Input Strides[k]) ---- */

typedef struct {
    int present; /* an operand or the output sits at this argument */
    int scalar;  /* a Scalar: shape () and strides () */
    const jv_tensor *t;
    const char *type; /* dtype text */
} argview;

static argview view_arg(const jv_elementwise_desc *g, int k) {
    argview v = {0, 0, NULL, NULL};
    for (int i = 0; i < g->arity; i++) {
        const jv_ew_operand *o = &g->in[i];
        if (o->arg != k || o->kind == JV_EW_ABSENT) continue;
        v.present = 1;
        v.scalar = o->kind == JV_EW_SCALAR;
        v.t = &o->t;
        v.type = o->kind == JV_EW_SCALAR || o->t.dtype == JV_DT_UNKNOWN ? o->type : jv_dtype_trace_name(o->t.dtype);
        return v;
    }
    if (g->out_arg == k) {
        v.present = 1;
        v.t = &g->out;
        v.type = jv_dtype_trace_name(g->out.dtype);
    }
    return v;
}

static void tuple_of(jv_params *ps, const char *name, const argview *v, int strides) {
    if (!v->present || v->scalar) {
        static const int64_t none[1] = {0};
        jv_param_tuple(ps, name, none, 0); /* () */
        return;
    }
    if (strides)
        jv_param_tuple(ps, name, v->t->has_strides ? v->t->strides : NULL, v->t->ndim);
    else
        jv_param_tuple(ps, name, v->t->shape, v->t->ndim);
}

/* a tensor with dims at argument k (TraceLens: "Dims[k] is non-empty") */
static int has_dims(const argview *v) {
    return v->present && !v->scalar && v->t->ndim > 0;
}

static void unary_params(const jv_desc *d, jv_params *ps) {
    const jv_elementwise_desc *g = jv_elementwise_of(d);
    argview a0 = view_arg(g, 0), a1 = view_arg(g, 1);
    int up = g->spatial > 0;
    if (up)
        jv_param_tuple(ps, "op_shape", g->out.shape, g->out.ndim);
    else
        tuple_of(ps, "op_shape", &a0, 0);
    const char *dt[2] = {a0.present ? a0.type : NULL, up ? a0.type : has_dims(&a1) ? a1.type : NULL};
    jv_param_dtypes(ps, "dtype_in_out", dt, 2);
    tuple_of(ps, "stride_input", &a0, 1);
    if (!up && has_dims(&a1))
        tuple_of(ps, "stride_output", &a1, 1);
    else
        jv_param_text(ps, "stride_output", "None");
    /* upsample's own columns; TraceLens leaves them missing (nan) for the other ops */
    if (up) {
        jv_param_tuple(ps, "input_shape", g->in[0].t.shape, g->in[0].t.ndim);
        jv_param_tuple(ps, "output_shape", g->out.shape, g->out.ndim);
    } else {
        jv_param_float(ps, "input_shape", NAN);
        jv_param_float(ps, "output_shape", NAN);
    }
}

static void binary_params(const jv_desc *d, jv_params *ps) {
    const jv_elementwise_desc *g = jv_elementwise_of(d);
    argview a0 = view_arg(g, 0), a1 = view_arg(g, 1), a2 = view_arg(g, 2);
    tuple_of(ps, "shape_in1", &a0, 0);
    tuple_of(ps, "shape_in2", &a1, 0);
    const char *dt[3] = {a0.present ? a0.type : NULL, a1.present ? a1.type : NULL, has_dims(&a2) ? a2.type : NULL};
    jv_param_dtypes(ps, "dtype_in1_in2_out", dt, 3);
    tuple_of(ps, "stride_input1", &a0, 1);
    tuple_of(ps, "stride_input2", &a1, 1);
    if (has_dims(&a2))
        tuple_of(ps, "stride_output", &a2, 1);
    else
        jv_param_text(ps, "stride_output", "None");
}

const jv_family jv_unary_family = {
    .name = "unary",
    .sheet = "UnaryElementwise",
    .category = "elementwise",
    .match = jv_ew_unary_match,
    .parse = jv_ew_unary_parse,
    .model = ew_model,
    .params = unary_params,
    .operands = jv_elementwise_operands,
    .reference = jv_elementwise_reference,
    .schemas = jv_unary_schemas,
    .report = JV_REPORT_ELEMENTWISE,
    .repro = jv_elementwise_repro,
};
const jv_family jv_binary_family = {
    .name = "binary",
    .sheet = "BinaryElementwise",
    .category = "elementwise",
    .match = jv_ew_binary_match,
    .parse = jv_ew_binary_parse,
    .model = ew_model,
    .params = binary_params,
    .operands = jv_elementwise_operands,
    .reference = jv_elementwise_reference,
    .schemas = jv_binary_schemas,
    .report = JV_REPORT_ELEMENTWISE,
    .repro = jv_elementwise_repro,
};

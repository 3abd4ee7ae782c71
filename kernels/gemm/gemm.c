/* gemm: descriptor parsing and the FLOPs/bytes model.
 * flops = batch * 2*M*N*K (+ batch*M*N with a bias);
 * bytes = |A|*bpe_A + |B|*bpe_B + batch*M*N*bpe_out + |bias|*bpe_bias (+ |scale_a|*bpe + |scale_b|*bpe, scaled). */
#include "gemm.h"

#include <math.h>
#include <string.h>

_Static_assert(sizeof(jv_gemm_desc) <= JV_DESC_BYTES, "gemm descriptor too large");

static const struct {
    const char *name;
    jv_gemm_op op;
    jv_match how;
    int out_first; /* 1: the output is argument 0 and the operands follow (vLLM's out-first custom ops) */
    int a8w8;      /* 1: AITER's a8w8 layout: (a [M,K], b [N,K], a_scale, b_scale, then out [M,N] or bias [N]) */
} OPS[] = {
    {"aten::mm", JV_GEMM_MM, JV_MATCH_STRONG, 0, 0},
    {"aten::addmm", JV_GEMM_ADDMM, JV_MATCH_STRONG, 0, 0},
    {"aten::bmm", JV_GEMM_BMM, JV_MATCH_STRONG, 0, 0},
    {"aten::baddbmm", JV_GEMM_BADDBMM, JV_MATCH_STRONG, 0, 0},
    {"aten::_scaled_mm", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 0, 0},
    {"aten::linear", JV_GEMM_LINEAR, JV_MATCH_WEAK, 0, 0},
    {"aten::matmul", JV_GEMM_MATMUL, JV_MATCH_WEAK, 0, 0},
    /* vLLM's ROCm GEMM: linear(x, W[N,K], bias) that launches hipBLASLt itself */
    {"vllm::rocm_unquantized_gemm", JV_GEMM_LINEAR, JV_MATCH_STRONG, 0, 0},
    /* vLLM's fp8 / int8 GEMM: cutlass_scaled_mm(out [M,N], a [M,K], b [K,N], a_scales, b_scales, bias?) */
    {"_C::cutlass_scaled_mm", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 1, 0},
    /* AITER's int8 / fp8 GEMMs (per-token / per-channel or per-tensor scales; blockscale: [M, K/128] and
     * [N/128, K/128]), as AITER registers them and as vLLM's ROCm path wraps them */
    {"aiter::gemm_a8w8", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 0, 1},
    {"aiter::gemm_a8w8_CK", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 0, 1},
    {"aiter::gemm_a8w8_ck", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 0, 1},
    {"aiter::gemm_a8w8_bpreshuffle", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 0, 1},
    {"aiter::gemm_a8w8_bpreshuffle_ck", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 0, 1},
    {"aiter::gemm_a8w8_blockscale", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 0, 1},
    {"aiter::gemm_a8w8_blockscale_ck", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 0, 1},
    {"aiter::gemm_a8w8_blockscale_bpreshuffle", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 0, 1},
    {"vllm::rocm_aiter_gemm_a8w8", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 0, 1},
    {"vllm::rocm_aiter_gemm_a8w8_blockscale", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 0, 1},
    {"vllm::rocm_aiter_triton_gemm_a8w8_blockscale", JV_GEMM_SCALED_MM, JV_MATCH_STRONG, 0, 1},
};

static int find_op(const char *name) {
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcmp(name, OPS[i].name)) return (int)i;
    return -1;
}

static jv_match gemm_match(const char *op) {
    int i = find_op(op);
    return i < 0 ? JV_MATCH_NONE : OPS[i].how;
}

/* 1 when the last two dims of t are stored column-major */
static int is_transposed(const jv_tensor *t) {
    if (!t->has_strides || t->ndim < 2) return 0;
    int r = t->ndim - 2, c = t->ndim - 1;
    if (t->shape[r] <= 1 || t->shape[c] <= 1) return 0;
    return t->strides[r] == 1 && t->strides[c] != 1;
}

static int64_t prod_dims(const jv_tensor *t, int from, int to) {
    int64_t p = 1;
    for (int i = from; i < to; i++)
        p *= t->shape[i];
    return p;
}

static jv_status gemm_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    jv_gemm_desc *g = (jv_gemm_desc *)(void *)d->data;
    memset(g, 0, sizeof *g);
    int oi = find_op(c->name);
    if (oi < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not a GEMM", c->name);
    g->op = OPS[oi].op;
    g->op_name = OPS[oi].name;
    g->alpha = 1;
    g->beta = 1;
    int ia = 0, ib = 1, ibias = -1;
    switch (g->op) {
    case JV_GEMM_ADDMM:
    case JV_GEMM_BADDBMM: ia = 1, ib = 2, ibias = 0; break;
    case JV_GEMM_SCALED_MM: ibias = OPS[oi].a8w8 ? -1 : 4; break;
    case JV_GEMM_LINEAR: ibias = 2; break;
    default: break;
    }
    if (OPS[oi].out_first) ia++, ib++, ibias++;
    const jv_tensor *a = jv_opcall_tensor(c, ia), *b = jv_opcall_tensor(c, ib);
    if (!a || !b) JV_FAIL(err, JV_ERR_FORMAT, "%s: operand shapes missing", c->name);
    g->a = *a;
    g->b = *b;
    /* a8w8: argument 4 is the output [M,N] (the _ck / _CK entry points) or a bias [N] */
    const jv_tensor *a4 = OPS[oi].a8w8 ? jv_opcall_opt_tensor(c, 4) : NULL;
    const jv_tensor *bias = ibias >= 0 ? jv_opcall_tensor(c, ibias) : a4 && a4->ndim == 1 ? a4 : NULL;
    if (bias && bias->ndim > 0) {
        g->has_bias = 1;
        g->bias = *bias;
    }
    int na = a->ndim, nb = b->ndim;
    switch (g->op) {
    case JV_GEMM_SCALED_MM:
        if (OPS[oi].a8w8) {
            if (na != 2 || nb != 2 || a->shape[1] != b->shape[1])
                JV_FAIL(err, JV_ERR_FORMAT, "%s: operands are not [M,K] x [N,K]", c->name);
            g->batch = 1, g->m = a->shape[0], g->k = a->shape[1], g->n = b->shape[0];
            break;
        }
        /* fallthrough */
    case JV_GEMM_MM:
    case JV_GEMM_ADDMM:
        if (na != 2 || nb != 2 || a->shape[1] != b->shape[0])
            JV_FAIL(err, JV_ERR_FORMAT, "%s: operands are not [M,K] x [K,N]", c->name);
        g->batch = 1, g->m = a->shape[0], g->k = a->shape[1], g->n = b->shape[1];
        break;
    case JV_GEMM_BMM:
    case JV_GEMM_BADDBMM:
        if (na != 3 || nb != 3 || a->shape[2] != b->shape[1] || a->shape[0] != b->shape[0])
            JV_FAIL(err, JV_ERR_FORMAT, "%s: operands are not [B,M,K] x [B,K,N]", c->name);
        g->batch = a->shape[0], g->m = a->shape[1], g->k = a->shape[2], g->n = b->shape[2];
        break;
    case JV_GEMM_LINEAR:
        if (na < 1 || nb != 2 || a->shape[na - 1] != b->shape[1])
            JV_FAIL(err, JV_ERR_FORMAT, "%s: operands are not [...,K] x [N,K]", c->name);
        g->batch = 1, g->m = prod_dims(a, 0, na - 1), g->k = a->shape[na - 1], g->n = b->shape[0];
        break;
    case JV_GEMM_MATMUL:
        if (na < 1 || nb < 1) JV_FAIL(err, JV_ERR_FORMAT, "%s: operand shapes missing", c->name);
        g->k = a->shape[na - 1];
        if ((nb == 1 ? b->shape[0] : b->shape[nb - 2]) != g->k)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: inner dimensions differ", c->name);
        g->n = nb == 1 ? 1 : b->shape[nb - 1];
        if (nb <= 2) {
            g->batch = 1, g->m = na == 1 ? 1 : prod_dims(a, 0, na - 1);
        } else {
            g->m = na == 1 ? 1 : a->shape[na - 2];
            /* batch dims broadcast */
            jv_tensor ba = {0}, bb = {0}, bo;
            ba.ndim = na > 2 ? na - 2 : 0;
            for (int i = 0; i < ba.ndim; i++)
                ba.shape[i] = a->shape[i];
            bb.ndim = nb - 2;
            for (int i = 0; i < bb.ndim; i++)
                bb.shape[i] = b->shape[i];
            if (!jv_tensor_broadcast(&ba, &bb, &bo))
                JV_FAIL(err, JV_ERR_FORMAT, "%s: batch dimensions do not broadcast", c->name);
            g->batch = prod_dims(&bo, 0, bo.ndim);
        }
        break;
    }
    if (g->m < 0 || g->n < 0 || g->k < 0 || g->batch < 0)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: negative dimension", c->name);
    g->trans_a = is_transposed(a);
    /* linear's weight [N,K] row-major is B = W^T stored column-major */
    g->trans_b = g->op == JV_GEMM_LINEAR || OPS[oi].a8w8 ? !is_transposed(b) : is_transposed(b);
    g->out_dtype = a->dtype;
    if (g->op == JV_GEMM_SCALED_MM) { /* the scales (absent ones, None, count nothing) */
        const jv_tensor *sa = jv_opcall_tensor(c, ia + 2), *sb = jv_opcall_tensor(c, ia + 3);
        if (sa) g->scale_a = *sa, g->has_scale_a = 1;
        if (sb) g->scale_b = *sb, g->has_scale_b = 1;
    }
    const jv_tensor *out = OPS[oi].out_first ? jv_opcall_tensor(c, 0) : a4 && a4->ndim == 2 ? a4 : NULL;
    if (out && jv_dtype_size(out->dtype)) {
        g->out_dtype = out->dtype;
    } else if (g->op == JV_GEMM_SCALED_MM) {
        /* _scaled_mm's out_dtype (argument 6); AITER's dtype, after the scales (and vLLM's bias) */
        jv_dtype od = JV_DT_UNKNOWN;
        for (int i = OPS[oi].a8w8 ? 4 : 6; i <= 6 && od == JV_DT_UNKNOWN; i++)
            od = jv_parse_scalar_type(jv_opcall_value(c, i));
        if (!jv_dtype_is_float(od) || od == JV_DT_C64 || od == JV_DT_C128)
            od = jv_dtype_size(a->dtype) == 1 ? JV_DT_BF16 : a->dtype;
        g->out_dtype = od;
    }
    if (g->op == JV_GEMM_ADDMM || g->op == JV_GEMM_BADDBMM) {
        double v;
        if (jv_parse_double(jv_opcall_value(c, 3), &v)) g->beta = v;
        if (jv_parse_double(jv_opcall_value(c, 4), &v)) g->alpha = v;
    }
    d->bwd = 0;
    return JV_OK;
}

jv_status jv_gemm_desc_mm(jv_desc *d, const jv_tensor *a, const jv_tensor *b, jv_err *err) {
    memset(d, 0, sizeof *d);
    d->family = JV_FAM_GEMM;
    if (a->ndim != 2 || b->ndim != 2 || a->shape[1] != b->shape[0])
        JV_FAIL(err, JV_ERR_FORMAT, "aten::mm: operands are not [M,K] x [K,N]");
    if (a->dtype != b->dtype) JV_FAIL(err, JV_ERR_FORMAT, "aten::mm: operand dtypes differ");
    jv_gemm_desc *g = (jv_gemm_desc *)(void *)d->data;
    g->op = JV_GEMM_MM;
    g->op_name = "aten::mm";
    g->a = *a;
    g->b = *b;
    g->batch = 1, g->m = a->shape[0], g->k = a->shape[1], g->n = b->shape[1];
    g->trans_a = is_transposed(a);
    g->trans_b = is_transposed(b);
    g->out_dtype = a->dtype;
    g->alpha = 1;
    g->beta = 1;
    return JV_OK;
}

static void gemm_model(const jv_desc *d, jv_perf *p) {
    const jv_gemm_desc *g = jv_gemm_of(d);
    double mn = (double)g->batch * (double)g->m * (double)g->n;
    p->flops = 2.0 * mn * (double)g->k + (g->has_bias ? mn : 0);
    p->bytes = jv_numel_d(&g->a) * jv_bpe(g->a.dtype) + jv_numel_d(&g->b) * jv_bpe(g->b.dtype) +
               mn * jv_bpe(g->out_dtype) + (g->has_bias ? jv_numel_d(&g->bias) * jv_bpe(g->bias.dtype) : 0) +
               (g->has_scale_a ? jv_numel_d(&g->scale_a) * jv_bpe(g->scale_a.dtype) : 0) +
               (g->has_scale_b ? jv_numel_d(&g->scale_b) * jv_bpe(g->scale_b.dtype) : 0);
    p->dtype = g->a.dtype;
    p->matrix = 1;
}

static void gemm_params(const jv_desc *d, jv_params *ps) {
    const jv_gemm_desc *g = jv_gemm_of(d);
    jv_param_int(ps, "M", g->m);
    jv_param_int(ps, "N", g->n);
    jv_param_int(ps, "K", g->k);
    jv_param_bool(ps, "bias", g->has_bias);
    jv_param_tuple(ps, "stride_A", g->a.has_strides ? g->a.strides : NULL, g->a.ndim);
    jv_param_tuple(ps, "stride_B", g->b.has_strides ? g->b.strides : NULL, g->b.ndim);
    const char *dt[2] = {jv_dtype_trace_name(g->a.dtype), jv_dtype_trace_name(g->b.dtype)};
    jv_param_dtypes(ps, "dtype_A_B", dt, 2);
    jv_param_int(ps, "B", g->batch);
    jv_param_text(ps, "transpose", "(%s, %s)", g->trans_a ? "True" : "False", g->trans_b ? "True" : "False");
}

/* the findings facts: the GEMM's dims */
static void gemm_facts(const jv_desc *d, jv_family_facts *out) {
    const jv_gemm_desc *g = jv_gemm_of(d);
    out->m = (double)g->m;
    out->n = (double)g->n;
    out->k = (double)g->k;
    out->batch = (double)g->batch;
}

const jv_family jv_gemm_family = {
    .name = "gemm",
    .sheet = "GEMM",
    .category = "GEMM",
    .match = gemm_match,
    .parse = gemm_parse,
    .model = gemm_model,
    .params = gemm_params,
    .operands = jv_gemm_operands,
    .reference = jv_gemm_reference,
    .schemas = jv_gemm_schemas,
    .report = JV_REPORT_GEMM,
    .findings = {.facts = gemm_facts},
    .repro = jv_gemm_repro,
};

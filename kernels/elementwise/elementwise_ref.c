/* elementwise_ref: the replay operands and the CPU reference of the unary and
 * binary elementwise families (one implementation for both).
 * The reference walks the output once: its dims are reordered by the
 * output's strides (memory order), size-1 dims dropped and dims that are
 * contiguous for every operand merged; each row of the innermost dim is done
 * in chunks: the inputs are gathered into double buffers (one loop per dtype),
 * the op runs over the chunk (one switch per chunk), and the result is stored
 * rounded to the output dtype. Offsets are updated incrementally: no division
 * per element. PyTorch details followed where a double computation would give
 * a different answer: comparisons and rounding divisions of fp32/fp16/bf16
 * data run in float (PyTorch's opmath), upsample_nearest computes its source
 * index in float as PyTorch's kernels do. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "elementwise.h"
#include "elementwise_double.h"
#include "elementwise_scalars.h"

#define EW_CHUNK 512

static const double SQRT1_2 = 0.70710678118654752440;      /* 1/sqrt(2) */
static const double INV_SQRT_2PI = 0.39894228040143267794; /* 1/sqrt(2*pi) */
static const double SQRT_2_PI = 0.79788456080286535588;    /* sqrt(2/pi) */
static const double GELU_K = 0.044715;

/* ---- operands ---- */

/* Where each operand slot comes from and which operand is written. */
typedef struct {
    int slot[3]; /* operand index of in[k] when it is a tensor, else -1 */
    int out;     /* operand index of the output */
} ew_plan;

static int is_upsample(jv_ew_op op) {
    return op >= JV_EW_UPSAMPLE_NEAREST1D && op <= JV_EW_UPSAMPLE_NEAREST3D;
}

/* The ATen argument name of operand slot k. */
static const char *slot_name(const jv_elementwise_desc *g, int k) {
    switch (g->op) {
    case JV_EW_WHERE: return k == 0 ? "condition" : k == 1 ? "self" : "other";
    case JV_EW_THRESHOLD_BACKWARD:
    case JV_EW_GELU_BACKWARD:
    case JV_EW_SILU_BACKWARD: return k == 0 ? "grad_output" : "self";
    case JV_EW_SIGMOID_BACKWARD:
    case JV_EW_TANH_BACKWARD: return k == 0 ? "grad_output" : "output";
    case JV_EW_MASKED_FILL: return k == 0 ? "self" : k == 1 ? "mask" : "value";
    case JV_EW_ADDCMUL:
    case JV_EW_ADDCDIV: return k == 0 ? "self" : k == 1 ? "tensor1" : "tensor2";
    case JV_EW_LERP: return k == 0 ? "self" : k == 1 ? "end" : "weight";
    case JV_EW_POW: return k == 0 ? "self" : "exponent";
    case JV_EW_COPY: return "src";
    case JV_EW_FILL: return "value";
    case JV_EW_CLAMP: return k == 0 ? "self" : k == 1 ? "min" : "max";
    case JV_EW_CLAMP_MIN: return k == 0 ? "self" : "min";
    case JV_EW_CLAMP_MAX: return k == 0 ? "self" : "max";
    default: return k == 0 ? "self" : "other";
    }
}

/* How a replay fills operand slot k (a tensor of dtype dt). */
static jv_init slot_init(const jv_elementwise_desc *g, int k, jv_dtype dt) {
    if (dt == JV_DT_BOOL) return JV_INIT_MASK;
    if ((g->op == JV_EW_WHERE && k == 0) || (g->op == JV_EW_MASKED_FILL && k == 1)) return JV_INIT_MASK;
    /* keep random data inside the domain: sqrt/rsqrt/log of a negative, or a
     * negative base to a fractional power, would be NaN */
    if (k == 0 && (g->op == JV_EW_SQRT || g->op == JV_EW_RSQRT || g->op == JV_EW_LOG)) return JV_INIT_POSITIVE;
    if (k == 0 && g->op == JV_EW_POW && !(g->has_exponent && g->exponent == floor(g->exponent)))
        return JV_INIT_POSITIVE;
    return JV_INIT_NORMAL;
}

/* jv_operands_add with the op name in front of its message */
static jv_status add_operand(jv_operands *ops, const jv_elementwise_desc *g, const char *name, const jv_tensor *t,
                             jv_role role, jv_init init, jv_err *err) {
    jv_err e;
    jv_err_clear(&e);
    jv_status st = jv_operands_add(ops, name, t, role, init, &e);
    if (st != JV_OK) return jv_err_set(err, st, __FILE__, __LINE__, "%s: %s", g->name, e.msg);
    return JV_OK;
}

/* Lists the operands of call g into ops and where each slot and the output are. */
static jv_status plan_build(const jv_elementwise_desc *g, jv_operands *ops, ew_plan *p, jv_err *err) {
    const char *name = g->name ? g->name : "elementwise";
    ops->n = 0;
    p->slot[0] = p->slot[1] = p->slot[2] = -1;
    p->out = -1;
    if (g->arity < 0 || g->arity > 3 || (unsigned)g->op >= JV_EW_OP_COUNT)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: not a parsed elementwise call", name);
    for (int k = 0; k < g->arity; k++) {
        const jv_ew_operand *o = &g->in[k];
        if (o->kind == JV_EW_SCALAR && !o->has_value) {
            if (o->t.dtype == JV_DT_C128)
                JV_FAIL(err, JV_ERR_FORMAT, "%s: argument %d is a complex Scalar, which replay does not support", name,
                        o->arg);
            JV_FAIL(err, JV_ERR_FORMAT, "%s: the value of Scalar argument %d ('%s') is not recorded in the trace", name,
                    o->arg, slot_name(g, k));
        }
        if (o->kind == JV_EW_TENSOR && !jv_dtype_is_numeric(o->t.dtype))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: operand '%s' has dtype '%s', which replay does not support", name,
                    slot_name(g, k), o->t.dtype == JV_DT_UNKNOWN ? o->type : jv_dtype_trace_name(o->t.dtype));
    }
    if (g->out.dtype == JV_DT_UNKNOWN)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: the output dtype is unknown (not recorded in the trace)", name);
    if (!jv_dtype_is_numeric(g->out.dtype))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: the output has dtype '%s', which replay does not support", name,
                jv_dtype_trace_name(g->out.dtype));
    if (g->out.ndim < 0 || g->out.ndim > JV_MAX_DIMS || jv_tensor_numel(&g->out) < 0)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: the output shape is unknown", name);

    int self_written = g->op == JV_EW_COPY || g->op == JV_EW_FILL || g->op == JV_EW_ZERO;
    if (self_written && g->inplace) {
        /* copy_(self, src), fill_(self, value), zero_(self): self is only written */
        JV_CHECK(add_operand(ops, g, "self", &g->out, JV_ROLE_OUT, JV_INIT_NONE, err));
        p->out = 0;
    } else if (g->op == JV_EW_COPY) {
        /* aten::copy(self, src): a new tensor like self with src's values */
        JV_CHECK(add_operand(ops, g, "self", &g->out, JV_ROLE_IN, JV_INIT_NORMAL, err));
    } else if (g->inplace) {
        if (g->arity < 1 || g->in[0].kind != JV_EW_TENSOR || g->in[0].arg != 0)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: in-place op without a tensor self", name);
        JV_CHECK(add_operand(ops, g, "self", &g->out, JV_ROLE_INOUT, slot_init(g, 0, g->out.dtype), err));
        p->out = 0;
        p->slot[0] = 0;
    }
    for (int k = 0; k < g->arity; k++) {
        if (g->in[k].kind != JV_EW_TENSOR || p->slot[k] >= 0) continue;
        p->slot[k] = ops->n;
        JV_CHECK(add_operand(ops, g, slot_name(g, k), &g->in[k].t, JV_ROLE_IN, slot_init(g, k, g->in[k].t.dtype), err));
    }
    if (p->out < 0) {
        p->out = ops->n;
        JV_CHECK(add_operand(ops, g, "out", &g->out, JV_ROLE_OUT, JV_INIT_NONE, err));
    }
    return JV_OK;
}

jv_status jv_elementwise_operands(const jv_desc *d, jv_operands *out, jv_err *err) {
    ew_plan p;
    return plan_build(jv_elementwise_of(d), out, &p, err);
}

jv_status jv_elementwise_slots(const jv_desc *d, int slot[3], int *out, jv_operands *ops, jv_err *err) {
    ew_plan p;
    JV_CHECK(plan_build(jv_elementwise_of(d), ops, &p, err));
    for (int k = 0; k < 3; k++)
        slot[k] = p.slot[k];
    *out = p.out;
    return JV_OK;
}

/* ---- the math ---- */

typedef jv_ew_dmath ew_ctx;

static double max_nan(double a, double b) {
    return (a != a || b != b) ? NAN : a > b ? a : b;
}
static double min_nan(double a, double b) {
    return (a != a || b != b) ? NAN : a < b ? a : b;
}
static double sigmoid(double x) {
    return 1.0 / (1.0 + exp(-x));
}

static double gelu(double x, int tanh_form) {
    if (tanh_form) return 0.5 * x * (1.0 + tanh(SQRT_2_PI * (x + GELU_K * x * x * x)));
    return 0.5 * x * (1.0 + erf(x * SQRT1_2));
}

/* d gelu(x) / dx, exact for each form */
static double gelu_grad(double x, int tanh_form) {
    if (tanh_form) {
        double t = tanh(SQRT_2_PI * (x + GELU_K * x * x * x));
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * SQRT_2_PI * (1.0 + 3.0 * GELU_K * x * x);
    }
    return 0.5 * (1.0 + erf(x * SQRT1_2)) + x * INV_SQRT_2PI * exp(-0.5 * x * x);
}

/* floor division as PyTorch's div_floor_floating does it (fmod-based, so that
 * a quotient just below an integer is not rounded up), in double and float */
static double div_floor_d(double a, double b) {
    if (b == 0) return a / b;
    double mod = fmod(a, b);
    double q = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) q -= 1;
    if (q == 0) return copysign(0.0, a / b);
    double f = floor(q);
    return q - f > 0.5 ? f + 1 : f;
}

static double div_floor_f(double da, double db) {
    float a = (float)da, b = (float)db;
    if (b == 0) return a / b;
    float mod = fmodf(a, b);
    float q = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) q -= 1;
    if (q == 0) return copysignf(0.0f, a / b);
    float f = floorf(q);
    return q - f > 0.5f ? f + 1 : f;
}

#define EW_LOOP(expr)                                                                                                  \
    do {                                                                                                               \
        for (int64_t i = 0; i < n; i++)                                                                                \
            o[i] = (expr);                                                                                             \
    } while (0)

void jv_elementwise_apply_double(const jv_ew_dmath *x, int64_t n, const double *a, const double *b, const double *c,
                                 double *o) {
    const double alpha = x->alpha, lo = x->lo, hi = x->hi;
    switch (x->op) {
    case JV_EW_ADD: EW_LOOP(a[i] + alpha * b[i]); break;
    case JV_EW_SUB: EW_LOOP(a[i] - alpha * b[i]); break;
    case JV_EW_RSUB: EW_LOOP(b[i] - alpha * a[i]); break;
    case JV_EW_MUL: EW_LOOP(a[i] * b[i]); break;
    case JV_EW_DIV:
        if (x->rounding == 0)
            EW_LOOP(a[i] / b[i]);
        else if (x->rounding == 1 && x->lowp)
            EW_LOOP((double)truncf((float)a[i] / (float)b[i]));
        else if (x->rounding == 1)
            EW_LOOP(trunc(a[i] / b[i]));
        else if (x->lowp)
            EW_LOOP(div_floor_f(a[i], b[i]));
        else
            EW_LOOP(div_floor_d(a[i], b[i]));
        break;
    case JV_EW_WHERE: EW_LOOP(a[i] != 0 ? b[i] : c[i]); break;
    case JV_EW_THRESHOLD_BACKWARD: EW_LOOP(b[i] <= x->thr ? 0.0 : a[i]); break;
    case JV_EW_SIGMOID_BACKWARD: EW_LOOP(a[i] * (1.0 - b[i]) * b[i]); break;
    case JV_EW_TANH_BACKWARD: EW_LOOP(a[i] * (1.0 - b[i] * b[i])); break;
    case JV_EW_GELU_BACKWARD: EW_LOOP(a[i] * gelu_grad(b[i], x->gelu_tanh)); break;
    case JV_EW_SILU_BACKWARD:
        for (int64_t i = 0; i < n; i++) {
            double s = sigmoid(b[i]);
            o[i] = a[i] * s * (1.0 + b[i] * (1.0 - s));
        }
        break;
    case JV_EW_MAXIMUM: EW_LOOP(max_nan(a[i], b[i])); break;
    case JV_EW_MINIMUM: EW_LOOP(min_nan(a[i], b[i])); break;
    case JV_EW_EQ:
        if (x->lowp)
            EW_LOOP((float)a[i] == (float)b[i]);
        else
            EW_LOOP(a[i] == b[i]);
        break;
    case JV_EW_NE:
        if (x->lowp)
            EW_LOOP((float)a[i] != (float)b[i]);
        else
            EW_LOOP(a[i] != b[i]);
        break;
    case JV_EW_LT:
        if (x->lowp)
            EW_LOOP((float)a[i] < (float)b[i]);
        else
            EW_LOOP(a[i] < b[i]);
        break;
    case JV_EW_LE:
        if (x->lowp)
            EW_LOOP((float)a[i] <= (float)b[i]);
        else
            EW_LOOP(a[i] <= b[i]);
        break;
    case JV_EW_GT:
        if (x->lowp)
            EW_LOOP((float)a[i] > (float)b[i]);
        else
            EW_LOOP(a[i] > b[i]);
        break;
    case JV_EW_GE:
        if (x->lowp)
            EW_LOOP((float)a[i] >= (float)b[i]);
        else
            EW_LOOP(a[i] >= b[i]);
        break;
    case JV_EW_MASKED_FILL: EW_LOOP(b[i] != 0 ? c[i] : a[i]); break;
    case JV_EW_ADDCMUL: EW_LOOP(a[i] + x->value * b[i] * c[i]); break;
    case JV_EW_ADDCDIV: EW_LOOP(a[i] + x->value * (b[i] / c[i])); break;
    case JV_EW_LERP: /* PyTorch's two-sided form (exact at both ends) */
        EW_LOOP(fabs(c[i]) < 0.5 ? a[i] + c[i] * (b[i] - a[i]) : b[i] - (b[i] - a[i]) * (1.0 - c[i]));
        break;
    case JV_EW_POW: EW_LOOP(pow(a[i], b[i])); break;
    case JV_EW_COPY:
    case JV_EW_CLONE:
    case JV_EW_CONTIGUOUS:
    case JV_EW_TO:
    case JV_EW_FILL:
    case JV_EW_ZERO:
    case JV_EW_UPSAMPLE_NEAREST1D:
    case JV_EW_UPSAMPLE_NEAREST2D:
    case JV_EW_UPSAMPLE_NEAREST3D:
        if (o != a) memcpy(o, a, (size_t)n * sizeof *o);
        break;
    case JV_EW_RELU: EW_LOOP(a[i] != a[i] ? a[i] : a[i] > 0 ? a[i] : 0.0); break;
    case JV_EW_GELU: EW_LOOP(gelu(a[i], x->gelu_tanh)); break;
    case JV_EW_SILU: EW_LOOP(a[i] * sigmoid(a[i])); break;
    case JV_EW_SIGMOID: EW_LOOP(sigmoid(a[i])); break;
    case JV_EW_TANH: EW_LOOP(tanh(a[i])); break;
    case JV_EW_NEG: EW_LOOP(-a[i]); break;
    case JV_EW_RSQRT: EW_LOOP(1.0 / sqrt(a[i])); break;
    case JV_EW_SQRT: EW_LOOP(sqrt(a[i])); break;
    case JV_EW_EXP: EW_LOOP(exp(a[i])); break;
    case JV_EW_LOG: EW_LOOP(log(a[i])); break;
    case JV_EW_ABS: EW_LOOP(fabs(a[i])); break;
    case JV_EW_RECIPROCAL: EW_LOOP(1.0 / a[i]); break;
    case JV_EW_CLAMP: EW_LOOP(a[i] != a[i] ? a[i] : min_nan(max_nan(a[i], b[i]), c[i])); break;
    case JV_EW_CLAMP_MIN: EW_LOOP(a[i] != a[i] ? a[i] : max_nan(a[i], b[i])); break;
    case JV_EW_CLAMP_MAX: EW_LOOP(a[i] != a[i] ? a[i] : min_nan(a[i], b[i])); break;
    case JV_EW_HARDTANH: EW_LOOP(a[i] != a[i] ? a[i] : min_nan(max_nan(a[i], lo), hi)); break;
    case JV_EW_LEAKY_RELU: EW_LOOP(a[i] > 0 ? a[i] : a[i] * x->slope); break;
    case JV_EW_ERF: EW_LOOP(erf(a[i])); break;
    case JV_EW_SIN: EW_LOOP(sin(a[i])); break;
    case JV_EW_COS: EW_LOOP(cos(a[i])); break;
    case JV_EW_NAN_TO_NUM:
        EW_LOOP(a[i] != a[i] ? x->nan : a[i] == INFINITY ? x->posinf : a[i] == -INFINITY ? x->neginf : a[i]);
        break;
    case JV_EW_OP_COUNT: break;
    }
}

#undef EW_LOOP

/* the largest finite value of a float dtype (nan_to_num's default) */
static double dtype_max(jv_dtype d) {
    switch (d) {
    case JV_DT_F16: return 65504.0;
    case JV_DT_BF16: return 3.3895313892515355e38;
    case JV_DT_F32: return FLT_MAX;
    default: return DBL_MAX;
    }
}

static int is_lowp_float(jv_dtype d) {
    return d == JV_DT_F32 || d == JV_DT_F16 || d == JV_DT_BF16;
}
static int is_int_or_bool(jv_dtype d) {
    return d >= JV_DT_I64 && d <= JV_DT_BOOL;
}

/* comparisons run in float unless a double takes part (a dimensioned one, or
 * any when all tensors are 0-d) or every operand is an integer or bool */
static int compare_lowp(const jv_elementwise_desc *g, const jv_operands *ops, const ew_plan *p) {
    int any_dim = 0, f64_dim = 0, f64_any = 0, all_int = 1;
    for (int k = 0; k < g->arity; k++) {
        const jv_ew_operand *o = &g->in[k];
        if (o->kind == JV_EW_TENSOR) {
            const jv_tensor *t = &ops->o[p->slot[k]].t;
            if (t->ndim > 0) any_dim = 1;
            if (t->dtype == JV_DT_F64) f64_any = 1, f64_dim |= t->ndim > 0;
            if (!is_int_or_bool(t->dtype)) all_int = 0;
        } else if (o->kind == JV_EW_SCALAR && !is_int_or_bool(o->t.dtype)) {
            all_int = 0;
        }
    }
    if (all_int) return 0;
    return any_dim ? !f64_dim : !f64_any;
}

static void ctx_init(ew_ctx *x, const jv_elementwise_desc *g, const jv_operands *ops, const ew_plan *p,
                     jv_dtype out_dt) {
    memset(x, 0, sizeof *x);
    x->op = g->op;
    x->alpha = g->alpha;
    x->thr = g->threshold;
    x->lo = g->min;
    x->hi = g->max;
    x->slope = g->slope;
    x->value = g->value;
    x->nan = g->nan;
    x->posinf = g->has_posinf ? g->posinf : dtype_max(out_dt);
    x->neginf = g->has_neginf ? g->neginf : -dtype_max(out_dt);
    x->gelu_tanh = g->gelu_tanh;
    x->rounding = g->rounding;
    if (g->op == JV_EW_DIV)
        x->lowp = is_lowp_float(out_dt);
    else if (g->op >= JV_EW_EQ && g->op <= JV_EW_GE)
        x->lowp = compare_lowp(g, ops, p);
}

/* ---- loads and stores of strided runs ---- */

/* dst[j] = element off + j*st of a buffer of dtype dt, j < n */
static void gather(jv_dtype dt, const void *base, int64_t off, int64_t st, int64_t n, double *restrict dst) {
    if (st == 0) {
        double v = jv_dtype_load(dt, base, off);
        for (int64_t j = 0; j < n; j++)
            dst[j] = v;
        return;
    }
    switch (dt) {
    case JV_DT_F32: {
        const float *src = (const float *)base + off;
        if (st == 1)
            for (int64_t j = 0; j < n; j++)
                dst[j] = src[j];
        else
            for (int64_t j = 0; j < n; j++)
                dst[j] = src[j * st];
        break;
    }
    case JV_DT_F64: {
        const double *src = (const double *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = src[j * st];
        break;
    }
    case JV_DT_BF16: {
        const uint16_t *src = (const uint16_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_bf16_to_f32(src[j * st]);
        break;
    }
    case JV_DT_F16: {
        const uint16_t *src = (const uint16_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_f16_to_f32(src[j * st]);
        break;
    }
    default:
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_dtype_load(dt, base, off + j * st);
        break;
    }
}

/* element off + j*st of a buffer of dtype dt = v[j] rounded, j < n */
static void scatter(jv_dtype dt, void *base, int64_t off, int64_t st, int64_t n, const double *restrict v) {
    switch (dt) {
    case JV_DT_F32: {
        float *dst = (float *)base + off;
        if (st == 1)
            for (int64_t j = 0; j < n; j++)
                dst[j] = (float)v[j];
        else
            for (int64_t j = 0; j < n; j++)
                dst[j * st] = (float)v[j];
        break;
    }
    case JV_DT_F64: {
        double *dst = (double *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j * st] = v[j];
        break;
    }
    default:
        for (int64_t j = 0; j < n; j++)
            jv_dtype_store(dt, base, off + j * st, v[j]);
        break;
    }
}

/* ---- the walk ---- */

/* Stream 0 is the output (written through its own pointer), streams 1..3 the
 * operand slots (tensor or constant). */
typedef struct {
    int is_tensor;
    jv_dtype dt;
    const void *base;
    double cval;
    int64_t bst[JV_MAX_DIMS]; /* stride per output dim (0 where broadcast) */
} ew_stream;

int jv_elementwise_broadcast_strides(const jv_tensor *t, const jv_tensor *out, int64_t *bst) {
    if (t->ndim > out->ndim) return 0;
    int lead = out->ndim - t->ndim;
    for (int dd = 0; dd < out->ndim; dd++) {
        int e = dd - lead;
        if (e < 0 || t->shape[e] == 1) {
            bst[dd] = 0;
        } else {
            if (t->shape[e] != out->shape[dd]) return 0;
            bst[dd] = t->strides[e];
        }
    }
    return 1;
}

int jv_elementwise_merge_dims(const jv_tensor *out, int nstream, const int64_t (*bst)[JV_MAX_DIMS], int64_t *shape,
                              int64_t (*st)[JV_MAX_DIMS]) {
    int order[JV_MAX_DIMS], m = 0;
    for (int dd = 0; dd < out->ndim; dd++)
        if (out->shape[dd] > 1) order[m++] = dd;
    for (int i = 1; i < m; i++) /* by the output's stride, descending; stable */
        for (int j = i; j > 0 && out->strides[order[j - 1]] < out->strides[order[j]]; j--) {
            int v = order[j];
            order[j] = order[j - 1];
            order[j - 1] = v;
        }
    int nd = 0;
    for (int i = m - 1; i >= 0; i--) { /* innermost first, reversed below */
        const int dd = order[i];
        int merge = nd > 0;
        for (int s = 0; s < nstream && merge; s++)
            if (bst[s][dd] != st[s][nd - 1] * shape[nd - 1]) merge = 0;
        if (merge) {
            shape[nd - 1] *= out->shape[dd];
        } else {
            shape[nd] = out->shape[dd];
            for (int s = 0; s < nstream; s++)
                st[s][nd] = bst[s][dd];
            nd++;
        }
    }
    if (nd == 0) {
        shape[0] = 1;
        for (int s = 0; s < nstream; s++)
            st[s][0] = 0;
        nd = 1;
    }
    for (int i = 0; i < nd / 2; i++) { /* to outermost first */
        const int j = nd - 1 - i;
        int64_t t = shape[i];
        shape[i] = shape[j], shape[j] = t;
        for (int s = 0; s < nstream; s++)
            t = st[s][i], st[s][i] = st[s][j], st[s][j] = t;
    }
    return nd;
}

/* Every element of the output, in memory order of the output. */
static void walk_full(const ew_ctx *x, const jv_tensor *out, void *obase, const ew_stream *sm, int nstream) {
    int64_t bst[4][JV_MAX_DIMS], shape[JV_MAX_DIMS], st[4][JV_MAX_DIMS];
    for (int s = 0; s < nstream; s++)
        memcpy(bst[s], sm[s].bst, sizeof bst[s]);
    const int nd = jv_elementwise_merge_dims(out, nstream, (const int64_t(*)[JV_MAX_DIMS])bst, shape, st);

    double buf[4][EW_CHUNK];
    for (int s = 1; s < nstream; s++)
        if (!sm[s].is_tensor)
            for (int j = 0; j < EW_CHUNK; j++)
                buf[s][j] = sm[s].cval;
    const double *in1 = buf[1], *in2 = nstream > 2 ? buf[2] : buf[1], *in3 = nstream > 3 ? buf[3] : buf[1];

    int64_t idx[JV_MAX_DIMS] = {0}, off[4] = {0, 0, 0, 0};
    int64_t inner = shape[nd - 1];
    for (;;) {
        for (int64_t j0 = 0; j0 < inner; j0 += EW_CHUNK) {
            int64_t len = inner - j0 < EW_CHUNK ? inner - j0 : EW_CHUNK;
            for (int s = 1; s < nstream; s++)
                if (sm[s].is_tensor)
                    gather(sm[s].dt, sm[s].base, off[s] + j0 * st[s][nd - 1], st[s][nd - 1], len, buf[s]);
            jv_elementwise_apply_double(x, len, in1, in2, in3, buf[0]);
            scatter(sm[0].dt, obase, off[0] + j0 * st[0][nd - 1], st[0][nd - 1], len, buf[0]);
        }
        int dd = nd - 2;
        for (; dd >= 0; dd--) {
            idx[dd]++;
            for (int s = 0; s < nstream; s++)
                off[s] += st[s][dd];
            if (idx[dd] < shape[dd]) break;
            for (int s = 0; s < nstream; s++)
                off[s] -= st[s][dd] * shape[dd];
            idx[dd] = 0;
        }
        if (dd < 0) break;
    }
}

/* Only the listed logical output elements. */
static void walk_sample(const ew_ctx *x, const jv_tensor *out, void *obase, const ew_stream *sm, int nstream,
                        const jv_sample *s) {
    double v[4];
    for (int k = 1; k < nstream; k++)
        v[k] = sm[k].cval;
    int64_t idx[JV_MAX_DIMS];
    for (int64_t i = 0; i < s->n; i++) {
        jv_tensor_unravel(out, s->idx[i], idx);
        for (int k = 1; k < nstream; k++) {
            if (!sm[k].is_tensor) continue;
            int64_t off = 0;
            for (int dd = 0; dd < out->ndim; dd++)
                off += idx[dd] * sm[k].bst[dd];
            v[k] = jv_dtype_load(sm[k].dt, sm[k].base, off);
        }
        jv_elementwise_apply_double(x, 1, &v[1], &v[nstream > 2 ? 2 : 1], &v[nstream > 3 ? 3 : 1], &v[0]);
        jv_dtype_store(sm[0].dt, obase, jv_tensor_offset(out, idx), v[0]);
    }
}

/* ---- upsample_nearest ---- */

typedef struct {
    int nd;
    float scale[JV_MAX_DIMS]; /* per resized dim; unused for dims 0 and 1 */
    int64_t in_size[JV_MAX_DIMS];
} ew_resize;

/* PyTorch's legacy nearest source index: min(floor(dst * scale), in - 1) in float */
static int64_t src_index(const ew_resize *r, int dd, int64_t dst) {
    if (dd < 2) return dst;
    int64_t v = (int64_t)floorf((float)dst * r->scale[dd]);
    return v < r->in_size[dd] - 1 ? v : r->in_size[dd] - 1;
}

static void resize_init(ew_resize *r, const jv_elementwise_desc *g, const jv_tensor *in, const jv_tensor *out) {
    r->nd = out->ndim;
    for (int dd = 0; dd < out->ndim; dd++) {
        r->in_size[dd] = in->shape[dd];
        r->scale[dd] = 1;
        if (dd < 2) continue;
        double sc = g->scales[dd - 2];
        r->scale[dd] = sc > 0 ? (float)(1.0 / sc) : (float)in->shape[dd] / (float)out->shape[dd];
    }
}

static void upsample_full(const ew_resize *r, const jv_tensor *in, const void *ibase, const jv_tensor *out,
                          void *obase) {
    int nd = out->ndim;
    int64_t idx[JV_MAX_DIMS] = {0};
    int64_t inner = out->shape[nd - 1], ist = in->strides[nd - 1], ost = out->strides[nd - 1];
    double buf[EW_CHUNK];
    for (;;) {
        int64_t ioff = 0, ooff = 0;
        for (int dd = 0; dd < nd - 1; dd++) {
            ioff += src_index(r, dd, idx[dd]) * in->strides[dd];
            ooff += idx[dd] * out->strides[dd];
        }
        for (int64_t j0 = 0; j0 < inner; j0 += EW_CHUNK) {
            int64_t len = inner - j0 < EW_CHUNK ? inner - j0 : EW_CHUNK;
            if (in->dtype == JV_DT_F32) {
                const float *src = (const float *)ibase + ioff;
                for (int64_t j = 0; j < len; j++)
                    buf[j] = src[src_index(r, nd - 1, j0 + j) * ist];
            } else {
                for (int64_t j = 0; j < len; j++)
                    buf[j] = jv_dtype_load(in->dtype, ibase, ioff + src_index(r, nd - 1, j0 + j) * ist);
            }
            scatter(out->dtype, obase, ooff + j0 * ost, ost, len, buf);
        }
        int dd = nd - 2;
        for (; dd >= 0; dd--) {
            if (++idx[dd] < out->shape[dd]) break;
            idx[dd] = 0;
        }
        if (dd < 0) break;
    }
}

static void upsample_sample(const ew_resize *r, const jv_tensor *in, const void *ibase, const jv_tensor *out,
                            void *obase, const jv_sample *s) {
    int64_t idx[JV_MAX_DIMS];
    for (int64_t i = 0; i < s->n; i++) {
        jv_tensor_unravel(out, s->idx[i], idx);
        int64_t ioff = 0;
        for (int dd = 0; dd < out->ndim; dd++)
            ioff += src_index(r, dd, idx[dd]) * in->strides[dd];
        jv_dtype_store(out->dtype, obase, jv_tensor_offset(out, idx), jv_dtype_load(in->dtype, ibase, ioff));
    }
}

/* ---- the reference ---- */

jv_status jv_elementwise_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                                   jv_err *err) {
    const jv_elementwise_desc *g = jv_elementwise_of(d);
    jv_operands want;
    ew_plan p;
    JV_CHECK(plan_build(g, &want, &p, err));
    if (!ops || ops->n != want.n)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: %d operands given, %d expected", g->name, ops ? ops->n : 0, want.n);
    for (int i = 0; i < ops->n; i++) {
        const jv_tensor *t = &ops->o[i].t;
        if (!jv_tensor_same_shape(t, &want.o[i].t))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: operand %d ('%s') does not have the call's shape", g->name, i,
                    want.o[i].name);
        if (!jv_dtype_is_numeric(t->dtype))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: operand %d ('%s') has a dtype replay does not support", g->name, i,
                    want.o[i].name);
        if (!t->has_strides)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: operand %d ('%s') has no strides", g->name, i, want.o[i].name);
        if (!bufs || (!bufs[i] && jv_tensor_numel(t) > 0))
            JV_FAIL(err, JV_ERR_INTERNAL, "%s: operand %d ('%s') has no buffer", g->name, i, want.o[i].name);
    }
    const jv_tensor *out = &ops->o[p.out].t;
    int64_t n_out = jv_tensor_numel(out);
    const jv_sample *samp = s && s->operand == p.out ? s : NULL;
    if (samp) {
        if (samp->n > 0 && !samp->idx) JV_FAIL(err, JV_ERR_INTERNAL, "%s: sample without indices", g->name);
        for (int64_t i = 0; i < samp->n; i++)
            if (samp->idx[i] < 0 || samp->idx[i] >= n_out)
                JV_FAIL(err, JV_ERR_INTERNAL, "%s: sample index %lld outside the output's %lld elements", g->name,
                        (long long)samp->idx[i], (long long)n_out);
    }
    if (n_out == 0) return JV_OK;

    if (is_upsample(g->op)) {
        const jv_tensor *in = &ops->o[p.slot[0]].t;
        if (in->ndim != out->ndim || in->ndim < 3 || in->shape[0] != out->shape[0] || in->shape[1] != out->shape[1])
            JV_FAIL(err, JV_ERR_FORMAT, "%s: input and output shapes do not match", g->name);
        for (int dd = 2; dd < in->ndim; dd++)
            if (in->shape[dd] <= 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: empty input with a non-empty output", g->name);
        ew_resize r;
        resize_init(&r, g, in, out);
        if (samp)
            upsample_sample(&r, in, bufs[p.slot[0]], out, bufs[p.out], samp);
        else
            upsample_full(&r, in, bufs[p.slot[0]], out, bufs[p.out]);
        return JV_OK;
    }

    ew_stream sm[4];
    memset(sm, 0, sizeof sm);
    int nstream = 1 + (g->arity > 0 ? g->arity : 1);
    sm[0].is_tensor = 1;
    sm[0].dt = out->dtype;
    sm[0].base = bufs[p.out];
    for (int dd = 0; dd < out->ndim; dd++)
        sm[0].bst[dd] = out->strides[dd];
    for (int k = 0; k < nstream - 1; k++) {
        ew_stream *t = &sm[k + 1];
        if (k < g->arity && p.slot[k] >= 0) {
            const jv_tensor *ot = &ops->o[p.slot[k]].t;
            if (!jv_elementwise_broadcast_strides(ot, out, t->bst))
                JV_FAIL(err, JV_ERR_FORMAT, "%s: operand '%s' does not broadcast to the output", g->name,
                        ops->o[p.slot[k]].name);
            t->is_tensor = 1;
            t->dt = ot->dtype;
            t->base = bufs[p.slot[k]];
        } else {
            t->cval = jv_elementwise_slot_const(g, k);
        }
    }
    ew_ctx x;
    ctx_init(&x, g, ops, &p, out->dtype);
    if (samp)
        walk_sample(&x, out, bufs[p.out], sm, nstream, samp);
    else
        walk_full(&x, out, bufs[p.out], sm, nstream);
    return JV_OK;
}

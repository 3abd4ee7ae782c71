/* elementwise_scalars: see elementwise_scalars.h. */
#include "elementwise_scalars.h"

#include <math.h>

int jv_elementwise_storage(jv_dtype d) {
    switch (d) {
    case JV_DT_F32: return JV_EW_ST_F32;
    case JV_DT_F16: return JV_EW_ST_F16;
    case JV_DT_BF16: return JV_EW_ST_BF16;
    case JV_DT_BOOL: return JV_EW_ST_BOOL;
    case JV_DT_U8: return JV_EW_ST_U8;
    default: return -1;
    }
}

double jv_elementwise_slot_const(const jv_elementwise_desc *g, int k) {
    if (k < 0 || k >= g->arity) return 0;
    const jv_ew_operand *o = &g->in[k];
    if (o->kind == JV_EW_SCALAR) return o->value;
    if (g->op == JV_EW_CLAMP) return k == 1 ? -INFINITY : INFINITY;
    return 0;
}

/* the special case of a constant exponent e (JV_EW_POWK_ANY: none) */
static int pow_kind(double e) {
    static const struct {
        double e;
        jv_ew_powk k;
    } cases[] = {{2, JV_EW_POWK_2},   {3, JV_EW_POWK_3},   {0.5, JV_EW_POWK_HALF}, {-0.5, JV_EW_POWK_MHALF},
                 {-1, JV_EW_POWK_M1}, {-2, JV_EW_POWK_M2}, {1, JV_EW_POWK_1},      {0, JV_EW_POWK_0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (e == cases[i].e) return (int)cases[i].k;
    return JV_EW_POWK_ANY;
}

/* nan_to_num's default bounds: the largest finite value of dtype dt (fp32's for the others) */
static float dtype_max(jv_dtype dt) {
    switch (dt) {
    case JV_DT_F16: return 65504.0f;
    case JV_DT_BF16: return 3.3895313892515355e38f;
    default: return 3.40282346638528859812e38f; /* FLT_MAX */
    }
}

/* the largest float <= t, so that (float)x <= it exactly when (double)x <= t */
static float float_at_or_below(double t) {
    float f = (float)t;
    if (f == f && (double)f > t) f = nextafterf(f, -INFINITY);
    return f;
}

void jv_elementwise_scalars(const jv_elementwise_desc *g, jv_dtype out, int exponent_is_tensor, jv_ew_scalars *s) {
    s->op = (int)g->op;
    s->alpha = (float)g->alpha;
    s->lo = (float)g->min;
    s->hi = (float)g->max;
    s->slope = (float)g->slope;
    s->value = (float)g->value;
    s->nanv = (float)g->nan;
    s->posinf = g->has_posinf ? (float)g->posinf : dtype_max(out);
    s->neginf = g->has_neginf ? (float)g->neginf : -dtype_max(out);
    s->thr = float_at_or_below(g->threshold);
    s->gelu_tanh = g->gelu_tanh;
    s->rounding = g->rounding;
    s->powk = g->op == JV_EW_POW && !exponent_is_tensor ? pow_kind(jv_elementwise_slot_const(g, 1)) : JV_EW_POWK_ANY;
    for (int k = 0; k < 3; k++)
        s->cval[k] = (float)jv_elementwise_slot_const(g, k);
}

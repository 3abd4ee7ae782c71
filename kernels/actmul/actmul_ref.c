/* actmul_ref.c: the CPU reference of the gated activations (actmul.h): each output element in double from
 * the input's stored values (erf, tanh and exp of libm's double functions), rounded once to out's dtype.
 * Written from the definitions, independently of the kernels' float math (actmul_math.h). */
#include <math.h>

#include "actmul.h"

static double act_d(jv_actmul_act act, double x) {
    switch (act) {
    case JV_ACTMUL_SILU: return x / (1.0 + exp(-x));
    case JV_ACTMUL_GELU: return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    default: return 0.5 * x * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    }
}

jv_status jv_actmul_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                              jv_err *err) {
    const jv_actmul_desc *g = jv_actmul_of(d);
    if (ops->n != 2) JV_FAIL(err, JV_ERR_FORMAT, "%s: reference: expected 2 operands, got %d", g->name, ops->n);
    const jv_tensor *o = &ops->o[JV_ACTMUL_OUT].t, *x = &ops->o[JV_ACTMUL_IN].t;
    const int nd = o->ndim;
    const int64_t w = g->width;
    if (nd < 1 || x->ndim != nd || x->shape[nd - 1] != 2 * w || o->shape[nd - 1] != w)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: reference: operands do not match the call", g->name);
    const int sampled = s && s->operand == JV_ACTMUL_OUT;
    const int64_t n = sampled ? s->n : jv_tensor_numel(o);
    for (int64_t k = 0; k < n; k++) {
        int64_t i = sampled ? s->idx[k] : k;
        /* the multi-index of out's logical element i; the input's two elements share its leading dims */
        int64_t idx[JV_MAX_DIMS];
        for (int dd = nd - 1; dd >= 0; dd--) {
            int64_t sz = o->shape[dd] > 0 ? o->shape[dd] : 1;
            idx[dd] = i % sz;
            i /= sz;
        }
        double a = jv_dtype_load(x->dtype, bufs[JV_ACTMUL_IN], jv_tensor_offset(x, idx));
        idx[nd - 1] += w;
        double b = jv_dtype_load(x->dtype, bufs[JV_ACTMUL_IN], jv_tensor_offset(x, idx));
        idx[nd - 1] -= w;
        double v = g->act_second ? a * act_d(g->act, b) : act_d(g->act, a) * b;
        jv_dtype_store(o->dtype, bufs[JV_ACTMUL_OUT], jv_tensor_offset(o, idx), v);
    }
    return JV_OK;
}

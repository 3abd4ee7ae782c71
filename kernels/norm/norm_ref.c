/* norm_ref.c: the replay of the RMS norm forwards (norm.h): which calls are replayed, their operands, and
 * the CPU reference: per row the sum of squares in double of the stored input (fused_add_rms_norm: of the
 * residual as stored after residual = input + residual), y = x / sqrt(ss / size + eps) * weight rounded once
 * to the output's dtype. Written from the definitions, independently of the kernels. */
#include <math.h>
#include <string.h>

#include "norm.h"

int jv_norm_replayable(const jv_norm_desc *g) {
    return g->op == JV_NORM_RMS_NORM || (g->vllm && g->op == JV_NORM_SERVING_RMS_NORM && g->has_weight) ||
           (g->vllm && g->op == JV_NORM_SERVING_ADD_RMS_NORM && g->has_weight);
}

double jv_norm_rms_eps(const jv_norm_desc *g) {
    if (g->eps > 0 || g->op != JV_NORM_RMS_NORM) return g->eps;
    switch (g->x.dtype) { /* torch.finfo(dtype).eps */
    case JV_DT_F64: return 2.220446049250313e-16;
    case JV_DT_F16: return 0.0009765625;
    case JV_DT_BF16: return 0.0078125;
    default: return 1.1920928955078125e-07;
    }
}

jv_norm_slots jv_norm_slots_of(const jv_norm_desc *g) {
    jv_norm_slots s = {-1, -1, -1, -1};
    if (g->op == JV_NORM_SERVING_RMS_NORM) { /* result, input, weight */
        s.y = 0, s.x = 1, s.w = 2;
    } else if (g->op == JV_NORM_SERVING_ADD_RMS_NORM) { /* input, residual, weight */
        s.x = 0, s.y = 0, s.res = 1, s.w = 2;
    } else { /* aten::rms_norm: input, weight, out */
        s.x = 0;
        s.w = g->has_weight ? 1 : -1;
        s.y = g->has_weight ? 2 : 1;
    }
    return s;
}

jv_status jv_norm_operands(const jv_desc *d, jv_operands *out, jv_err *err) {
    const jv_norm_desc *g = jv_norm_of(d);
    out->n = 0;
    if (!jv_norm_replayable(g)) JV_FAIL(err, JV_ERR_FORMAT, "the norm family has no replay yet");
    jv_tensor y = g->has_y ? g->y : g->x;
    if (!g->has_y) y.has_strides = 0; /* a new tensor: dense */
    if (g->op == JV_NORM_SERVING_RMS_NORM) {
        JV_CHECK(jv_operands_add(out, "result", &y, JV_ROLE_OUT, JV_INIT_NONE, err));
        JV_CHECK(jv_operands_add(out, "input", &g->x, JV_ROLE_IN, JV_INIT_NORMAL, err));
        return jv_operands_add(out, "weight", &g->wt, JV_ROLE_IN, JV_INIT_NORMAL, err);
    }
    if (g->op == JV_NORM_SERVING_ADD_RMS_NORM) {
        JV_CHECK(jv_operands_add(out, "input", &g->x, JV_ROLE_INOUT, JV_INIT_NORMAL, err));
        JV_CHECK(jv_operands_add(out, "residual", &g->res, JV_ROLE_INOUT, JV_INIT_NORMAL, err));
        return jv_operands_add(out, "weight", &g->wt, JV_ROLE_IN, JV_INIT_NORMAL, err);
    }
    if (g->has_weight && g->wt.dtype != g->x.dtype) /* the output is x's or the promoted dtype, by version */
        JV_FAIL(err, JV_ERR_FORMAT,
                "aten::rms_norm: weight %s, input %s: its output dtype depends on the PyTorch "
                "version: not replayed",
                jv_dtype_short(g->wt.dtype), jv_dtype_short(g->x.dtype));
    JV_CHECK(jv_operands_add(out, "input", &g->x, JV_ROLE_IN, JV_INIT_NORMAL, err));
    if (g->has_weight) JV_CHECK(jv_operands_add(out, "weight", &g->wt, JV_ROLE_IN, JV_INIT_NORMAL, err));
    return jv_operands_add(out, "out", &y, JV_ROLE_OUT, JV_INIT_NONE, err);
}

jv_status jv_norm_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                            jv_err *err) {
    (void)s; /* reference_full: every output */
    const jv_norm_desc *g = jv_norm_of(d);
    if (!jv_norm_replayable(g)) JV_FAIL(err, JV_ERR_FORMAT, "the norm family has no replay yet");
    const jv_norm_slots sl = jv_norm_slots_of(g);
    const int need = sl.res >= 0 || sl.w >= 0 ? 3 : 2;
    if (ops->n != need) JV_FAIL(err, JV_ERR_FORMAT, "rms norm reference: expected %d operands, got %d", need, ops->n);
    const jv_tensor *x = &ops->o[sl.x].t, *y = &ops->o[sl.y].t;
    const jv_tensor *w = sl.w >= 0 ? &ops->o[sl.w].t : NULL, *res = sl.res >= 0 ? &ops->o[sl.res].t : NULL;
    const int64_t size = g->size, rows = g->rows;
    const double eps = jv_norm_rms_eps(g);
    for (int64_t r = 0; r < rows; r++) {
        double ss = 0;
        for (int64_t j = 0; j < size; j++) {
            const int64_t i = r * size + j;
            double v = jv_dtype_load(x->dtype, bufs[sl.x], jv_tensor_offset_at(x, i));
            if (res) { /* residual = input + residual, stored; the norm reads the stored value */
                const int64_t ro = jv_tensor_offset_at(res, i);
                jv_dtype_store(res->dtype, bufs[sl.res], ro, v + jv_dtype_load(res->dtype, bufs[sl.res], ro));
                v = jv_dtype_load(res->dtype, bufs[sl.res], ro);
            }
            ss += v * v;
        }
        const double rstd = 1.0 / sqrt(ss / (double)(size > 0 ? size : 1) + eps);
        for (int64_t j = 0; j < size; j++) {
            const int64_t i = r * size + j;
            const double v = res ? jv_dtype_load(res->dtype, bufs[sl.res], jv_tensor_offset_at(res, i))
                                 : jv_dtype_load(x->dtype, bufs[sl.x], jv_tensor_offset_at(x, i));
            const double wv = w ? jv_dtype_load(w->dtype, bufs[sl.w], jv_tensor_offset_at(w, j)) : 1.0;
            jv_dtype_store(y->dtype, bufs[sl.y], jv_tensor_offset_at(y, i), v * rstd * wv);
        }
    }
    return JV_OK;
}

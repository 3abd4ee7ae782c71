/* batchnorm_ref: the batch-norm family's replay operands and CPU reference.
 * x is [N, C, *]; every pass walks x in logical order with an odometer over
 * its strides (and those of dy / out), the channel being idx[1]. Statistics
 * are per channel in double: two passes for the variance (mean first), so the
 * reference does not lose digits to a one-pass sum of squares. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "batchnorm.h"

static const char *op_name(jv_batchnorm_op op) {
    switch (op) {
    case JV_BN_BATCH_NORM: return "aten::batch_norm";
    case JV_BN_IMPL_INDEX: return "aten::_batch_norm_impl_index";
    case JV_BN_NATIVE: return "aten::native_batch_norm";
    case JV_BN_CUDNN: return "aten::cudnn_batch_norm";
    case JV_BN_MIOPEN: return "aten::miopen_batch_norm";
    case JV_BN_LEGIT: return "aten::_native_batch_norm_legit";
    case JV_BN_LEGIT_NO_TRAINING: return "aten::_native_batch_norm_legit_no_training";
    case JV_BN_WITH_UPDATE: return "aten::_batch_norm_with_update";
    case JV_BN_NO_UPDATE: return "aten::_batch_norm_no_update";
    case JV_BN_NATIVE_BWD: return "aten::native_batch_norm_backward";
    case JV_BN_BWD: return "aten::batch_norm_backward";
    case JV_BN_CUDNN_BWD: return "aten::cudnn_batch_norm_backward";
    case JV_BN_MIOPEN_BWD: return "aten::miopen_batch_norm_backward";
    }
    return "batch norm";
}

static int float_storage(jv_dtype t) {
    return t == JV_DT_F64 || t == JV_DT_F32 || t == JV_DT_F16 || t == JV_DT_BF16;
}

static jv_status check_dtype(const char *nm, const char *what, jv_dtype t, jv_err *err) {
    if (!float_storage(t))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: %s has dtype '%s'; the batch-norm replay supports fp64, fp32, fp16 and bf16",
                nm, what, t == JV_DT_UNKNOWN ? "unknown" : jv_dtype_trace_name(t));
    return JV_OK;
}

/* An output laid out like x, as empty_like does: x's strides when they are
 * dense, else channels_last when x suggests it, else contiguous. */
static jv_tensor output_like(const jv_tensor *x) {
    jv_tensor y = *x;
    if (!y.has_strides) {
        jv_tensor_set_contiguous(&y);
        y.has_strides = 1;
        return y;
    }
    if (jv_tensor_dense(&y)) return y;
    if ((y.ndim == 4 || y.ndim == 5) && jv_tensor_layout(&y) == JV_LAYOUT_CHANNELS_LAST) {
        /* innermost C, then the spatial dims from the last, then N */
        int64_t s = 1;
        y.strides[1] = s, s *= y.shape[1];
        for (int d = y.ndim - 1; d >= 2; d--)
            y.strides[d] = s, s *= y.shape[d];
        y.strides[0] = s;
        return y;
    }
    jv_tensor_set_contiguous(&y);
    return y;
}

static jv_tensor vec(int64_t c, jv_dtype t) {
    jv_tensor v = {0};
    v.ndim = 1;
    v.shape[0] = c;
    v.strides[0] = 1;
    v.has_strides = 1;
    v.dtype = t;
    return v;
}

/* 1 when a training forward of op returns save_mean / save_invstd */
static int returns_stats(jv_batchnorm_op op) {
    return op != JV_BN_BATCH_NORM;
}

jv_status jv_batchnorm_operands(const jv_desc *d, jv_operands *out, jv_err *err) {
    const jv_batchnorm_desc *g = jv_batchnorm_of(d);
    const char *nm = op_name(g->op);
    out->n = 0;
    JV_CHECK(check_dtype(nm, "input", g->x.dtype, err));
    if (g->has_weight) JV_CHECK(check_dtype(nm, "weight", g->weight_dtype, err));
    if (g->has_running) JV_CHECK(check_dtype(nm, "running_mean", g->running_dtype, err));
    jv_tensor x = g->x;
    if (!x.has_strides) {
        jv_tensor_set_contiguous(&x);
        x.has_strides = 1;
    }
    jv_tensor y = output_like(&x);
    int64_t count = g->c > 0 ? g->n / g->c : 0;
    if (!g->bwd) {
        if (g->has_bias) JV_CHECK(check_dtype(nm, "bias", g->bias_dtype, err));
        if (!g->training && !g->has_running)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: eval batch norm without running_mean / running_var", nm);
        if (g->training && count == 0 && g->c > 0)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: training batch norm over an empty batch", nm);
        if (g->training && g->has_running && count == 1)
            JV_FAIL(err, JV_ERR_FORMAT,
                    "%s: training with one value per channel (no unbiased variance for the running statistics)", nm);
        JV_CHECK(check_dtype(nm, "save_mean", g->stat_dtype, err));
        jv_role rrole = g->training ? JV_ROLE_INOUT : JV_ROLE_IN;
        JV_CHECK(jv_operands_add(out, "input", &x, JV_ROLE_IN, JV_INIT_NORMAL, err));
        jv_tensor v;
        if (g->has_weight) {
            v = vec(g->c, g->weight_dtype);
            JV_CHECK(jv_operands_add(out, "weight", &v, JV_ROLE_IN, JV_INIT_NORMAL, err));
        }
        if (g->has_bias) {
            v = vec(g->c, g->bias_dtype);
            JV_CHECK(jv_operands_add(out, "bias", &v, JV_ROLE_IN, JV_INIT_NORMAL, err));
        }
        if (g->has_running) {
            v = vec(g->c, g->running_dtype);
            JV_CHECK(jv_operands_add(out, "running_mean", &v, rrole, JV_INIT_NORMAL, err));
            JV_CHECK(jv_operands_add(out, "running_var", &v, rrole, JV_INIT_POSITIVE, err));
        }
        JV_CHECK(jv_operands_add(out, "out", &y, JV_ROLE_OUT, JV_INIT_NONE, err));
        if (g->training && returns_stats(g->op)) {
            v = vec(g->c, g->stat_dtype);
            JV_CHECK(jv_operands_add(out, "save_mean", &v, JV_ROLE_OUT, JV_INIT_NONE, err));
            JV_CHECK(jv_operands_add(out, "save_invstd", &v, JV_ROLE_OUT, JV_INIT_NONE, err));
        }
        return JV_OK;
    }
    jv_tensor dy = g->dy;
    if (!dy.has_strides) {
        jv_tensor_set_contiguous(&dy);
        dy.has_strides = 1;
    }
    JV_CHECK(check_dtype(nm, "grad_out", dy.dtype, err));
    int same = dy.ndim == x.ndim;
    for (int i = 0; same && i < x.ndim; i++)
        same = dy.shape[i] == x.shape[i];
    if (!same) JV_FAIL(err, JV_ERR_FORMAT, "%s: grad_out's shape is not the input's", nm);
    if (g->training && !g->has_saved)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: training backward without save_mean / save_invstd", nm);
    if (!g->training && !g->has_running)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: eval backward without running_mean / running_var", nm);
    if (g->has_saved) JV_CHECK(check_dtype(nm, "save_mean", g->stat_dtype, err));
    if (g->output_mask[1] || g->output_mask[2]) JV_CHECK(check_dtype(nm, "grad_weight", g->param_dtype, err));
    JV_CHECK(jv_operands_add(out, "grad_out", &dy, JV_ROLE_IN, JV_INIT_NORMAL, err));
    JV_CHECK(jv_operands_add(out, "input", &x, JV_ROLE_IN, JV_INIT_NORMAL, err));
    jv_tensor v;
    if (g->has_weight) {
        v = vec(g->c, g->weight_dtype);
        JV_CHECK(jv_operands_add(out, "weight", &v, JV_ROLE_IN, JV_INIT_NORMAL, err));
    }
    if (g->has_running) {
        v = vec(g->c, g->running_dtype);
        JV_CHECK(jv_operands_add(out, "running_mean", &v, JV_ROLE_IN, JV_INIT_NORMAL, err));
        JV_CHECK(jv_operands_add(out, "running_var", &v, JV_ROLE_IN, JV_INIT_POSITIVE, err));
    }
    if (g->has_saved) {
        v = vec(g->c, g->stat_dtype);
        JV_CHECK(jv_operands_add(out, "save_mean", &v, JV_ROLE_IN, JV_INIT_NORMAL, err));
        JV_CHECK(jv_operands_add(out, "save_invstd", &v, JV_ROLE_IN, JV_INIT_POSITIVE, err));
    }
    if (g->output_mask[0]) JV_CHECK(jv_operands_add(out, "grad_input", &y, JV_ROLE_OUT, JV_INIT_NONE, err));
    v = vec(g->c, g->param_dtype);
    if (g->output_mask[1]) JV_CHECK(jv_operands_add(out, "grad_weight", &v, JV_ROLE_OUT, JV_INIT_NONE, err));
    if (g->output_mask[2]) JV_CHECK(jv_operands_add(out, "grad_bias", &v, JV_ROLE_OUT, JV_INIT_NONE, err));
    return JV_OK;
}

/* ---- the reference ---- */

/* Walks a shape in logical order, keeping the storage offsets of up to three
 * tensors of that shape. */
typedef struct {
    int nd, nt;
    int64_t shape[JV_MAX_DIMS], idx[JV_MAX_DIMS];
    const int64_t *st[3];
    int64_t off[3];
} bn_iter;

static void it_start(bn_iter *it, const jv_tensor *shape, const jv_tensor *t0, const jv_tensor *t1,
                     const jv_tensor *t2) {
    memset(it, 0, sizeof *it);
    it->nd = shape->ndim;
    memcpy(it->shape, shape->shape, sizeof it->shape);
    const jv_tensor *ts[3] = {t0, t1, t2};
    for (int i = 0; i < 3 && ts[i]; i++)
        it->st[it->nt++] = ts[i]->strides;
}

static void it_next(bn_iter *it) {
    for (int d = it->nd - 1; d >= 0; d--) {
        if (++it->idx[d] < it->shape[d]) {
            for (int t = 0; t < it->nt; t++)
                it->off[t] += it->st[t][d];
            return;
        }
        for (int t = 0; t < it->nt; t++)
            it->off[t] -= (it->shape[d] - 1) * it->st[t][d];
        it->idx[d] = 0;
    }
}

/* One operand found by name: its tensor and buffer (t NULL when absent). */
typedef struct {
    const jv_tensor *t;
    void *buf;
} bn_arg;

static bn_arg arg(const jv_operands *ops, void *const *bufs, const char *name) {
    bn_arg a = {NULL, NULL};
    for (int i = 0; i < ops->n; i++)
        if (!strcmp(ops->o[i].name, name)) {
            a.t = &ops->o[i].t;
            a.buf = bufs[i];
        }
    return a;
}

static double ld(const bn_arg *a, int64_t off) {
    return jv_dtype_load(a->t->dtype, a->buf, off);
}
static void st(const bn_arg *a, int64_t off, double v) {
    jv_dtype_store(a->t->dtype, a->buf, off, v);
}

/* element c of a per-channel operand, or def when absent */
static double ch(const bn_arg *a, int64_t c, double def) {
    return a->t ? ld(a, c * a->t->strides[0]) : def;
}
static void ch_set(const bn_arg *a, int64_t c, double v) {
    if (a->t) st(a, c * a->t->strides[0], v);
}

/* per-channel scratch: k arrays of c doubles */
static double *scratch(int64_t c, int k) {
    return calloc((size_t)(c > 0 ? c : 1) * (size_t)k, sizeof(double));
}

jv_status jv_batchnorm_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                                 jv_err *err) {
    (void)s; /* batch norm computes every output */
    const jv_batchnorm_desc *g = jv_batchnorm_of(d);
    const char *nm = op_name(g->op);
    bn_arg x = arg(ops, bufs, "input"), w = arg(ops, bufs, "weight"), b = arg(ops, bufs, "bias");
    bn_arg rm = arg(ops, bufs, "running_mean"), rv = arg(ops, bufs, "running_var");
    bn_arg sm = arg(ops, bufs, "save_mean"), sv = arg(ops, bufs, "save_invstd");
    if (!x.t || x.t->ndim < 2) JV_FAIL(err, JV_ERR_FORMAT, "%s: no 'input' of 2 or more dims among the operands", nm);
    int64_t c = x.t->shape[1], n = jv_tensor_numel(x.t), cnt = c > 0 ? n / c : 0;
    const bn_arg *vecs[] = {&w, &b, &rm, &rv, &sm, &sv};
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
        if (vecs[i]->t && (vecs[i]->t->ndim != 1 || vecs[i]->t->shape[0] != c))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: a per-channel operand does not hold C = %lld elements", nm, (long long)c);
    if (!!rm.t != !!rv.t) JV_FAIL(err, JV_ERR_FORMAT, "%s: running_mean and running_var come together", nm);
    if (!g->bwd) {
        bn_arg y = arg(ops, bufs, "out");
        if (!y.t || !jv_tensor_same_shape(y.t, x.t))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: no 'out' of the input's shape", nm);
        if (!g->training && !rm.t) JV_FAIL(err, JV_ERR_FORMAT, "%s: eval batch norm without running statistics", nm);
        double *mean = scratch(c, 2), *invstd;
        if (!mean) JV_FAIL(err, JV_ERR_NOMEM, "%s: no memory for %lld channels", nm, (long long)c);
        invstd = mean + c;
        bn_iter it;
        if (g->training) {
            if (cnt == 0 && c > 0) {
                free(mean);
                JV_FAIL(err, JV_ERR_FORMAT, "%s: training batch norm over an empty batch", nm);
            }
            it_start(&it, x.t, x.t, NULL, NULL);
            for (int64_t l = 0; l < n; l++, it_next(&it))
                mean[it.idx[1]] += ld(&x, it.off[0]);
            for (int64_t k = 0; k < c; k++)
                mean[k] /= (double)cnt;
            it_start(&it, x.t, x.t, NULL, NULL);
            for (int64_t l = 0; l < n; l++, it_next(&it)) {
                double v = ld(&x, it.off[0]) - mean[it.idx[1]];
                invstd[it.idx[1]] += v * v; /* the sum of squares, for now */
            }
            for (int64_t k = 0; k < c; k++) {
                double var = invstd[k] / (double)cnt;
                invstd[k] = 1.0 / sqrt(var + g->eps);
                ch_set(&sm, k, mean[k]);
                ch_set(&sv, k, invstd[k]);
                if (rm.t) {
                    double m = g->momentum;
                    double unbiased = cnt > 1 ? var * (double)cnt / (double)(cnt - 1) : NAN;
                    ch_set(&rm, k, (1 - m) * ch(&rm, k, 0) + m * mean[k]);
                    ch_set(&rv, k, (1 - m) * ch(&rv, k, 0) + m * unbiased);
                }
            }
        } else {
            for (int64_t k = 0; k < c; k++) {
                mean[k] = ch(&rm, k, 0);
                invstd[k] = 1.0 / sqrt(ch(&rv, k, 1) + g->eps);
            }
        }
        it_start(&it, x.t, x.t, y.t, NULL);
        for (int64_t l = 0; l < n; l++, it_next(&it)) {
            int64_t k = it.idx[1];
            st(&y, it.off[1], (ld(&x, it.off[0]) - mean[k]) * invstd[k] * ch(&w, k, 1) + ch(&b, k, 0));
        }
        free(mean);
        return JV_OK;
    }
    /* backward */
    bn_arg dy = arg(ops, bufs, "grad_out"), dx = arg(ops, bufs, "grad_input");
    bn_arg dw = arg(ops, bufs, "grad_weight"), db = arg(ops, bufs, "grad_bias");
    if (!dy.t || !jv_tensor_same_shape(dy.t, x.t))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: no 'grad_out' of the input's shape", nm);
    if (dx.t && !jv_tensor_same_shape(dx.t, x.t))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: 'grad_input' is not of the input's shape", nm);
    if ((dw.t && (dw.t->ndim != 1 || dw.t->shape[0] != c)) || (db.t && (db.t->ndim != 1 || db.t->shape[0] != c)))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: grad_weight / grad_bias do not hold C elements", nm);
    if (g->training && (!sm.t || !sv.t))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: training backward without save_mean / save_invstd", nm);
    if (!g->training && !rm.t) JV_FAIL(err, JV_ERR_FORMAT, "%s: eval backward without running statistics", nm);
    double *mean = scratch(c, 4);
    if (!mean) JV_FAIL(err, JV_ERR_NOMEM, "%s: no memory for %lld channels", nm, (long long)c);
    double *invstd = mean + c, *sum_dy = mean + 2 * c, *sum_dyxm = mean + 3 * c;
    for (int64_t k = 0; k < c; k++) {
        if (g->training) {
            mean[k] = ch(&sm, k, 0);
            invstd[k] = ch(&sv, k, 1);
        } else {
            mean[k] = ch(&rm, k, 0);
            invstd[k] = 1.0 / sqrt(ch(&rv, k, 1) + g->eps);
        }
    }
    bn_iter it;
    if ((dx.t && g->training) || dw.t || db.t) {
        it_start(&it, x.t, x.t, dy.t, NULL);
        for (int64_t l = 0; l < n; l++, it_next(&it)) {
            int64_t k = it.idx[1];
            double gv = ld(&dy, it.off[1]);
            sum_dy[k] += gv;
            sum_dyxm[k] += gv * (ld(&x, it.off[0]) - mean[k]);
        }
    }
    if (dx.t) {
        it_start(&it, x.t, x.t, dy.t, dx.t);
        for (int64_t l = 0; l < n; l++, it_next(&it)) {
            int64_t k = it.idx[1];
            double gv = ld(&dy, it.off[1]), scale = ch(&w, k, 1) * invstd[k], v;
            if (g->training) {
                double xm = ld(&x, it.off[0]) - mean[k];
                v = scale * (gv - sum_dy[k] / (double)cnt - xm * invstd[k] * invstd[k] * sum_dyxm[k] / (double)cnt);
            } else {
                v = gv * scale;
            }
            st(&dx, it.off[2], v);
        }
    }
    for (int64_t k = 0; k < c; k++) {
        ch_set(&dw, k, sum_dyxm[k] * invstd[k]);
        ch_set(&db, k, sum_dy[k]);
    }
    free(mean);
    return JV_OK;
}

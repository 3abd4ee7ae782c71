/* norm: descriptor parsing and the FLOPs/bytes model of layer, group, RMS
 * and instance norm.
 *
 * n = elements of x, R = rows (independent normalizations), P = elements of
 * weight/bias (normalized size for layer/RMS norm, C for group/instance norm),
 * bx / bd = bytes per element of x / dy, bw, bb, br = of weight, bias,
 * running stats, bs = of mean/rstd (fp32; fp64 for double), bp = of param_dtype.
 * One normalization (a row, a (sample, group), a (sample, channel)) is small
 * enough to stay on chip, so the minimal traffic reads x once and writes y
 * once (REFERENCE.md section 2: "forward bytes 2*N*bpe + parameters").
 *
 * Forward:
 *   bytes = 2*n*bx                               (read x, write y)
 *         + P*bw + P*bb                          (weight, bias read, when given)
 *         + 2*R*bs                               (layer/group norm, instance norm with input stats: mean and rstd
 *                                                 written; RMS norm: R*bs, rstd only)
 *         + instance norm with running stats: 4*C*br with input stats (read and update), 2*C*br without (read)
 *   flops, layer/group/instance norm with input stats:
 *           3*n (statistics: sum 1 add + sum of squares 1 FMA)
 *         + 5*R (finish: mean and mean square divisions 2, var = ms - mean^2 as an FMA 2, + eps 1; rsqrt not counted)
 *         + 2*n (normalize: x*rstd - mean*rstd, one FMA)
 *         + affine: 2*n with weight and bias (one FMA), n with one of them, 0 without
 *     instance norm with running stats: C (var + eps) + 2*n + affine
 *     RMS norm: 2*n (sum of squares, FMA) + 2*R (division, + eps) + n (x*rstd) + (n with a weight): TraceLens' count.
 * Backward (m0, m1, m2 = output_mask: grad_input, grad_weight, grad_bias; RMS norm has no m2):
 *   bytes = m0: n*bd + 2*n*bx                    (read dy and x, write dx: the row reductions stay on chip)
 *           !m0: n*(bd + bx) with m1, n*bd with only m2, 0 with none
 *         + P*bw                                 (weight read, m0 with a weight)
 *         + 2*R*bs (RMS: R*bs)                   (mean/rstd read, m0 or m1)
 *         + P*bp with m1 + P*bp with m2          (grad_weight, grad_bias written)
 *   flops, layer/group norm:
 *           m0: 2*n (xhat = (x - mean)*rstd) + n (g = dy*weight, with a weight) + n (sum g) + 2*n (sum g*xhat)
 *               + 4*n (dx = rstd*(g - c1 - xhat*c2): sub 1, FMA 2, mul 1)  = 10*n (9*n without a weight)
 *           m1: 2*n (sum dy*xhat, FMA) + 2*n for xhat when !m0;  m2: n (sum dy)
 *     RMS norm:
 *           m0: n (xhat = x*rstd) + n (g = dy*weight, with a weight) + 2*n (sum g*xhat) + 3*n (dx = rstd*(g - xhat*c):
 *               FMA 2, mul 1) = 7*n (6*n without a weight)
 *           m1: 2*n (sum dy*xhat) + n for xhat when !m0
 *
 * Deliberate differences from TraceLens (/tmp/tl_perf_models.md 6.2-6.4):
 *  - TraceLens charges every norm like a batch norm over C = the normalized size: 6*C parameter-sized tensors
 *    in the forward (2 of them "running stats" that layer/group/RMS norm do not have), none of the per-row
 *    mean/rstd, and no affine flops (layer/group/instance norm: flops = 5*n + 6*C). Here the weight and bias
 *    are read once at their own dtype and the R-sized statistics are written (forward) or read (backward).
 *  - backward bytes honour the output mask (TraceLens: n*bx + 2*n*bx for every mask) and the flops count the
 *    weight/bias gradients.
 *  - group norm backward: num_channels is C (TraceLens prints C/groups as a float, which turns the whole
 *    column into floats); instance norm reads use_input_stats from "True"/"False" (TraceLens: bool("False")).
 *  - weight/bias presence comes from the call (TraceLens: always True except for layer norm backward);
 *    forward rows print output_mask None (TraceLens nan).
 *  - aten::layer_norm, group_norm, rms_norm and instance_norm are strong like the native ops they call: the
 *    analysis attributes the kernels to the outermost one only (TraceLens counts both).
 *  - aten::rms_norm is modelled (TraceLens has no model for it); where it runs as a composite of pow, mean,
 *    add, rsqrt and mul kernels, its kernel time is compared with the minimal fused traffic. */
#include "norm.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(jv_norm_desc) <= JV_DESC_BYTES, "norm descriptor too large");

/* Argument positions of one op (-1: not an argument of it). */
typedef struct {
    signed char x, dy, ns, mean, rstd, w, b, rm, rv, groups, nchw, train, mom, eps, mask, res;
} norm_layout;

/* clang-format off */
static const struct {
    const char *name;
    jv_norm_op op;
    jv_norm_kind kind;
    int bwd;
    norm_layout at;
    jv_match how;
} OPS[] = {
    /* name, op, kind, bwd, {x, dy, ns, mean, rstd, w, b, rm, rv, groups, nchw, train, mom, eps, mask, res}, how */
    {"aten::layer_norm", JV_NORM_LAYER_NORM, JV_NORM_KIND_LAYER, 0,
     {0, -1,  1, -1, -1, 2,  3, -1, -1, -1, -1, -1, -1,  4, -1, -1}, JV_MATCH_STRONG},
    {"aten::native_layer_norm", JV_NORM_NATIVE_LAYER_NORM, JV_NORM_KIND_LAYER, 0,
     {0, -1,  1, -1, -1, 2,  3, -1, -1, -1, -1, -1, -1,  4, -1, -1}, JV_MATCH_STRONG},
    {"aten::native_layer_norm_backward", JV_NORM_NATIVE_LAYER_NORM_BWD, JV_NORM_KIND_LAYER, 1,
     {1,  0,  2,  3,  4, 5,  6, -1, -1, -1, -1, -1, -1, -1,  7, -1}, JV_MATCH_STRONG},
    {"aten::group_norm", JV_NORM_GROUP_NORM, JV_NORM_KIND_GROUP, 0,
     {0, -1, -1, -1, -1, 2,  3, -1, -1,  1, -1, -1, -1,  4, -1, -1}, JV_MATCH_STRONG},
    {"aten::native_group_norm", JV_NORM_NATIVE_GROUP_NORM, JV_NORM_KIND_GROUP, 0,
     {0, -1, -1, -1, -1, 1,  2, -1, -1,  6,  3, -1, -1,  7, -1, -1}, JV_MATCH_STRONG},
    {"aten::native_group_norm_backward", JV_NORM_NATIVE_GROUP_NORM_BWD, JV_NORM_KIND_GROUP, 1,
     {1,  0, -1,  2,  3, 4, -1, -1, -1,  8,  5, -1, -1, -1,  9, -1}, JV_MATCH_STRONG},
    {"aten::rms_norm", JV_NORM_RMS_NORM, JV_NORM_KIND_RMS, 0,
     {0, -1,  1, -1, -1, 2, -1, -1, -1, -1, -1, -1, -1,  3, -1, -1}, JV_MATCH_STRONG},
    {"aten::_fused_rms_norm", JV_NORM_FUSED_RMS_NORM, JV_NORM_KIND_RMS, 0,
     {0, -1,  1, -1, -1, 2, -1, -1, -1, -1, -1, -1, -1,  3, -1, -1}, JV_MATCH_STRONG},
    {"aten::_fused_rms_norm_backward", JV_NORM_FUSED_RMS_NORM_BWD, JV_NORM_KIND_RMS, 1,
     {1,  0,  2, -1,  3, 4, -1, -1, -1, -1, -1, -1, -1, -1,  5, -1}, JV_MATCH_STRONG},
    /* serving stacks' RMS norm kernels (no statistics written): vLLM's rms_norm(result, input, weight, epsilon) and
     * fused_add_rms_norm(input!, residual!, weight, epsilon), AITER's rms_norm(x, weight, eps) and
     * rmsnorm(out, input, weight, eps) */
    {"_C::rms_norm", JV_NORM_SERVING_RMS_NORM, JV_NORM_KIND_RMS, 0,
     {1, -1, -1, -1, -1, 2, -1, -1, -1, -1, -1, -1, -1,  3, -1, -1}, JV_MATCH_STRONG},
    {"_C::fused_add_rms_norm", JV_NORM_SERVING_ADD_RMS_NORM, JV_NORM_KIND_RMS, 0,
     {0, -1, -1, -1, -1, 2, -1, -1, -1, -1, -1, -1, -1,  3, -1,  1}, JV_MATCH_STRONG},
    {"aiter::rms_norm", JV_NORM_SERVING_RMS_NORM, JV_NORM_KIND_RMS, 0,
     {0, -1, -1, -1, -1, 1, -1, -1, -1, -1, -1, -1, -1,  2, -1, -1}, JV_MATCH_STRONG},
    {"aiter::rmsnorm", JV_NORM_SERVING_RMS_NORM, JV_NORM_KIND_RMS, 0,
     {1, -1, -1, -1, -1, 2, -1, -1, -1, -1, -1, -1, -1,  3, -1, -1}, JV_MATCH_STRONG},
    {"aten::instance_norm", JV_NORM_INSTANCE_NORM, JV_NORM_KIND_INSTANCE, 0,
     {0, -1, -1, -1, -1, 1,  2,  3,  4, -1, -1,  5,  6,  7, -1, -1}, JV_MATCH_STRONG},
};
/* clang-format on */

static int find_op(const char *name) {
    if (!name) return -1;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcmp(name, OPS[i].name)) return (int)i;
    return -1;
}

static jv_match norm_match(const char *op) {
    int i = find_op(op);
    return i < 0 ? JV_MATCH_NONE : OPS[i].how;
}

/* product of t's dims [from, to) (dims already checked non-negative), or -1 when it overflows int64
 * (a zero dim elsewhere keeps the element count small) */
static int64_t prod_dims(const jv_tensor *t, int from, int to) {
    int64_t p = 1;
    for (int i = from; i < to; i++) {
        int64_t v = t->shape[i];
        if (v && p > INT64_MAX / v) return -1;
        p *= v;
    }
    return p;
}

/* int argument i into *out: 1 when given and parsed, 0 when absent, -1 when malformed */
static int get_int(const jv_opcall *c, int i, long long *out) {
    const char *s = i >= 0 ? jv_opcall_value(c, i) : NULL;
    if (!s) return 0;
    const char *p = s;
    while (*p == ' ')
        p++;
    if (*p == '[' || *p == '(') return -1;
    return jv_parse_ints(s, out, 1) == 1 ? 1 : -1;
}

/* The normalized shape of a layer/RMS norm: the value of argument i ("[16, 32, 32]"; a plain int k is the
 * normalized_shape_ndim of older _fused_rms_norm: the last k dims of x), else the weight's shape. */
static jv_status parse_normalized(const jv_opcall *c, int i, const jv_tensor *x, const jv_tensor *w, jv_norm_desc *g,
                                  jv_err *err) {
    const char *s = i >= 0 ? jv_opcall_value(c, i) : NULL;
    long long v[JV_MAX_DIMS];
    int k;
    if (s) {
        const char *p = s;
        while (*p == ' ')
            p++;
        if (*p == '[' || *p == '(') {
            k = jv_parse_ints(s, v, JV_MAX_DIMS);
            if (k < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: normalized_shape is not an int list", c->name);
        } else {
            long long nd;
            if (jv_parse_ints(s, &nd, 1) != 1 || nd < 1 || nd > x->ndim)
                JV_FAIL(err, JV_ERR_FORMAT, "%s: normalized_shape is not an int list", c->name);
            k = (int)nd;
            for (int j = 0; j < k; j++)
                v[j] = x->shape[x->ndim - k + j];
        }
    } else if (w) {
        k = w->ndim;
        for (int j = 0; j < k; j++)
            v[j] = w->shape[j];
    } else if (i < 0) { /* an op without normalized_shape and without a weight: the last dim */
        k = 1;
        v[0] = x->shape[x->ndim - 1];
    } else {
        JV_FAIL(err, JV_ERR_FORMAT, "%s: normalized_shape missing", c->name);
    }
    if (k < 1 || k > x->ndim)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: normalized_shape has %d dims, input %d", c->name, k, x->ndim);
    for (int j = 0; j < k; j++) {
        if (v[j] != x->shape[x->ndim - k + j])
            JV_FAIL(err, JV_ERR_FORMAT, "%s: normalized_shape does not match the input's trailing dims", c->name);
        g->normalized_shape[j] = v[j];
    }
    g->normalized_ndim = k;
    g->rows = prod_dims(x, 0, x->ndim - k);
    g->size = prod_dims(x, x->ndim - k, x->ndim);
    if (g->rows < 0 || g->size < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: dims overflow", c->name);
    g->channels = g->size;
    g->param_numel = g->size;
    return JV_OK;
}

static jv_status norm_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    jv_norm_desc *g = (jv_norm_desc *)(void *)d->data;
    memset(g, 0, sizeof *g);
    int oi = find_op(c->name);
    if (oi < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not a layer/group/RMS/instance norm", c->name ? c->name : "op");
    g->op = OPS[oi].op;
    g->kind = OPS[oi].kind;
    g->bwd = OPS[oi].bwd;
    norm_layout at = OPS[oi].at;

    const jv_tensor *x = jv_opcall_tensor(c, at.x);
    if (!x) JV_FAIL(err, JV_ERR_FORMAT, "%s: input shape missing", c->name);
    if (x->ndim < 1) JV_FAIL(err, JV_ERR_FORMAT, "%s: input is a scalar", c->name);
    if (jv_tensor_numel(x) < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: negative or overflowing input shape", c->name);
    g->x = *x;
    g->n = jv_tensor_numel(x);
    g->layout = jv_tensor_layout(x);
    g->serving = OPS[oi].op == JV_NORM_SERVING_RMS_NORM || OPS[oi].op == JV_NORM_SERVING_ADD_RMS_NORM;
    g->vllm = !strncmp(OPS[oi].name, "_C::", 4);
    if (at.res >= 0) {
        const jv_tensor *res = jv_opcall_tensor(c, at.res);
        if (!res || jv_tensor_numel(res) != g->n)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: residual missing or not of the input's size", c->name);
        g->has_residual = 1;
        g->residual_dtype = res->dtype;
        g->res = *res;
    }
    if (g->vllm && OPS[oi].op == JV_NORM_SERVING_RMS_NORM && at.x == 1) { /* rms_norm(result, input, ...) */
        const jv_tensor *y = jv_opcall_tensor(c, 0);
        if (y && y->ndim == x->ndim && !memcmp(y->shape, x->shape, sizeof x->shape[0] * (size_t)x->ndim)) {
            g->y = *y;
            g->has_y = 1;
        }
    }
    if (at.dy >= 0) {
        const jv_tensor *dy = jv_opcall_tensor(c, at.dy);
        if (!dy) JV_FAIL(err, JV_ERR_FORMAT, "%s: grad_output shape missing", c->name);
        if (jv_tensor_numel(dy) != g->n)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: grad_output does not match the input", c->name);
        g->dy = *dy;
    }
    const jv_tensor *w = jv_opcall_opt_tensor(c, at.w), *b = jv_opcall_opt_tensor(c, at.b);
    if ((w && jv_tensor_numel(w) < 0) || (b && jv_tensor_numel(b) < 0))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: negative weight or bias shape", c->name);

    if (g->kind == JV_NORM_KIND_LAYER || g->kind == JV_NORM_KIND_RMS) {
        JV_CHECK(parse_normalized(c, at.ns, x, w, g, err));
    } else {
        if (x->ndim < 2) JV_FAIL(err, JV_ERR_FORMAT, "%s: input has no channel dimension", c->name);
        int64_t nb = x->shape[0], ch = x->shape[1], hw = prod_dims(x, 2, x->ndim);
        if (hw < 0 || (ch && nb > INT64_MAX / ch) || (ch && hw > INT64_MAX / ch))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: dims overflow", c->name);
        long long grp = ch;
        if (g->kind == JV_NORM_KIND_GROUP) {
            int r = get_int(c, at.groups, &grp);
            if (r < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: groups is not an int", c->name);
            if (r == 0) {
                /* backward without the value: the groups from mean's [N, group] shape */
                const jv_tensor *m = jv_opcall_opt_tensor(c, at.mean);
                if (!m || m->ndim != 2) JV_FAIL(err, JV_ERR_FORMAT, "%s: groups missing", c->name);
                grp = m->shape[1];
            }
            if (grp <= 0 || grp > ch || ch % grp)
                JV_FAIL(err, JV_ERR_FORMAT, "%s: %lld groups do not divide %lld channels", c->name, grp, (long long)ch);
            /* native ops repeat N, C, HxW: they must agree with the input */
            for (int j = 0; at.nchw >= 0 && j < 3; j++) {
                long long v;
                int r2 = get_int(c, at.nchw + j, &v);
                int64_t want = j == 0 ? nb : j == 1 ? ch : hw;
                if (r2 < 0 || (r2 > 0 && v != want))
                    JV_FAIL(err, JV_ERR_FORMAT, "%s: N, C, HxW do not match the input", c->name);
            }
        }
        g->groups = grp;
        g->rows = nb * grp;
        g->size = grp > 0 ? ch / grp * hw : hw; /* instance norm: grp = C (0 only for an empty input) */
        g->channels = ch;
        g->param_numel = ch;
    }
    if ((w && jv_tensor_numel(w) != g->param_numel) || (b && jv_tensor_numel(b) != g->param_numel))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: weight or bias does not hold %lld elements", c->name,
                (long long)g->param_numel);
    g->has_weight = w != NULL;
    if (w) g->wt = *w;
    g->weight_dtype = w ? w->dtype : JV_DT_UNKNOWN;
    g->has_bias = b != NULL;
    g->bias_dtype = b ? b->dtype : JV_DT_UNKNOWN;
    g->param_dtype = w ? w->dtype : b ? b->dtype : x->dtype;
    const jv_tensor *st = jv_opcall_opt_tensor(c, at.mean >= 0 ? at.mean : at.rstd);
    if (st && jv_tensor_numel(st) < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: negative mean/rstd shape", c->name);
    g->stat_dtype = st ? st->dtype : x->dtype == JV_DT_F64 ? JV_DT_F64 : JV_DT_F32;

    if (g->kind == JV_NORM_KIND_INSTANCE) {
        const jv_tensor *rm = jv_opcall_opt_tensor(c, at.rm), *rv = jv_opcall_opt_tensor(c, at.rv);
        if ((rm && jv_tensor_numel(rm) != g->channels) || (rv && jv_tensor_numel(rv) != g->channels))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: running stats do not hold C elements", c->name);
        g->has_running = rm && rv;
        g->running_dtype = rm ? rm->dtype : rv ? rv->dtype : JV_DT_UNKNOWN;
        if (!jv_opcall_bool(c, at.train, 1, 0, &g->training))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: use_input_stats is not True/False", c->name);
    } else {
        /* layer and group norm always normalize with the input's statistics; RMS norm prints False as TraceLens */
        g->training = g->kind != JV_NORM_KIND_RMS;
    }
    if (!jv_opcall_double(c, at.eps, g->kind == JV_NORM_KIND_RMS ? 0.0 : 1e-5, 1, &g->eps) ||
        !jv_opcall_double(c, at.mom, 0.1, 1, &g->momentum))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: eps or momentum is not a number", c->name);

    g->mask_len = g->kind == JV_NORM_KIND_RMS ? 2 : 3;
    for (int i = 0; i < 3; i++)
        g->output_mask[i] = i < g->mask_len;
    if (at.mask >= 0 && jv_opcall_value(c, at.mask)) {
        int m[3] = {0, 0, 0};
        if (jv_parse_bools(jv_opcall_value(c, at.mask), m, 3) != g->mask_len)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: output_mask is not %d bools", c->name, g->mask_len);
        memcpy(g->output_mask, m, sizeof m);
    }
    /* backward: the bias column says whether grad_bias is computed */
    if (g->bwd) g->has_bias = g->output_mask[2];
    d->bwd = g->bwd;
    return JV_OK;
}

static void norm_model(const jv_desc *d, jv_perf *p) {
    const jv_norm_desc *g = jv_norm_of(d);
    double n = (double)g->n, r = (double)g->rows, pn = (double)g->param_numel;
    double bx = jv_bpe(g->x.dtype), bs = jv_bpe(g->stat_dtype);
    int rms = g->kind == JV_NORM_KIND_RMS;
    double bytes = 0, flops = 0;
    if (!g->bwd) {
        bytes = 2.0 * n * bx;
        if (g->has_weight) bytes += pn * jv_bpe(g->weight_dtype);
        if (g->has_bias) bytes += pn * jv_bpe(g->bias_dtype);
        if (rms) {
            if (!g->serving) bytes += r * bs; /* rstd (the serving kernels keep none) */
            flops = 2.0 * n + 2.0 * r + n + (g->has_weight ? n : 0);
            if (g->has_residual) { /* residual += x read and written, then normalized: one add per element */
                bytes += 2.0 * n * jv_bpe(g->residual_dtype);
                flops += n;
            }
        } else {
            if (g->training) bytes += 2.0 * r * bs;
            if (g->has_running) bytes += (g->training ? 4.0 : 2.0) * (double)g->channels * jv_bpe(g->running_dtype);
            flops = g->training ? 3.0 * n + 5.0 * r : (double)g->channels;
            flops += 2.0 * n + (g->has_weight && g->has_bias ? 2.0 * n : g->has_weight || g->has_bias ? n : 0);
        }
    } else {
        int m0 = g->output_mask[0], m1 = g->output_mask[1], m2 = g->output_mask[2];
        double bd = jv_bpe(g->dy.dtype);
        if (m0)
            bytes = n * bd + 2.0 * n * bx;
        else if (m1)
            bytes = n * (bd + bx);
        else if (m2)
            bytes = n * bd;
        if (m0 && g->has_weight) bytes += pn * jv_bpe(g->weight_dtype);
        if (m0 || m1) bytes += (rms ? 1.0 : 2.0) * r * bs;
        if (m1) bytes += pn * jv_bpe(g->param_dtype);
        if (m2) bytes += pn * jv_bpe(g->param_dtype);
        double xhat = rms ? n : 2.0 * n;
        if (m0) flops += xhat + (g->has_weight ? n : 0) + (rms ? 0 : n) + 2.0 * n + (rms ? 3.0 : 4.0) * n;
        if (m1) flops += 2.0 * n + (m0 ? 0 : xhat);
        if (m2) flops += n;
    }
    p->flops = flops;
    p->bytes = bytes;
    p->dtype = g->x.dtype;
    p->matrix = 0;
}

static void norm_params(const jv_desc *d, jv_params *ps) {
    const jv_norm_desc *g = jv_norm_of(d);
    jv_params_normalization(ps, &g->x, g->channels, g->has_bias, g->has_weight, g->training,
                            g->bwd ? g->output_mask : NULL, g->mask_len);
}

const jv_family jv_norm_family = {
    .name = "norm",
    .sheet = "Normalization",
    .category = "NORM",
    .match = norm_match,
    .parse = norm_parse,
    .model = norm_model,
    .params = norm_params,
    .operands = jv_norm_operands,
    .reference = jv_norm_reference,
    .reference_full = 1,
    .schemas = jv_norm_schemas,
    .repro = jv_norm_repro,
};

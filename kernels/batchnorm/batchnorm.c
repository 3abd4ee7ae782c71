/* batchnorm: descriptor parsing and the FLOPs/bytes model.
 *
 * N = elements of x, C = channels, bx / bd = bytes per element of x / dy,
 * bw, bb, br, bs = of weight, bias, running stats, saved stats (fp32; fp64
 * for a double input), bp = of param_dtype.
 *
 * Forward (minimal bytes, REFERENCE.md section 2):
 *   eval:      bytes = 2*N*bx                     (read x, write y)
 *                    + C*bw + C*bb                (weight, bias read, when given)
 *                    + 2*C*br                     (running mean/var read, when given)
 *   training:  bytes = 3*N*bx                     (one-pass statistics read of x; normalize read x, write y)
 *                    + C*bw + C*bb
 *                    + 4*C*br                     (running mean/var read and updated, when given)
 *                    + 2*C*bs                     (save_mean, save_invstd written)
 *   flops:     eval 2*N + 6*C, training 5*N + 6*C:
 *              statistics 3*N (sum: 1 add, sum of squares: 1 FMA = 2),
 *              normalize 2*N (one FMA with the per-channel folded scale = weight*invstd, shift = bias - mean*scale),
 *              6 per channel (finishing mean/var/invstd and folding scale/shift), TraceLens' count.
 * Backward (m0, m1, m2 = output_mask: grad_input, grad_weight, grad_bias):
 *   training:  m0: bytes = 2*N*(bx + bd) + N*bx   (reductions read x and dy; dx pass reads them again, writes dx)
 *              !m0: N*(bx + bd) with m1 (sum dy*xhat), N*bd with only m2 (sum dy), 0 with none
 *   eval:      one pass (dx = dy*weight*invstd needs no reduction): N*bd when any mask bit is set,
 *              + N*bx with m1 (x read for sum dy*xhat), + N*bx with m0 (dx written)
 *   params:    + C*bw (weight read, m0 with a weight)
 *              + 2*C*bs (training: save_mean/save_invstd read) or 2*C*br (eval: running mean/var read), when any
 *                mask bit is set and the tensors are given
 *              + C*bp with m1 (grad_weight written) + C*bp with m2 (grad_bias written)
 *   flops:     reductions 4*N (sum dy: 1; sum dy*(x - mean): 3) with m0 in training or with m1; 1*N with only m2;
 *              dx: training 5*N ((x - mean)*k: 2, dy - mean_dy: 1, minus: 1, times weight*invstd: 1),
 *                  eval 1*N (dy times the folded scale).
 *              So a full training backward is 9*N, as TraceLens counts.
 *
 * Deliberate differences from TraceLens (/tmp/tl_perf_models.md, 6.2-6.4):
 *  - training is read from the "True"/"False" text (TraceLens' bool("False") is True), and cudnn/miopen
 *    backward ops are training ops (TraceLens models them as eval).
 *  - forward bytes: 3*N*bx in training (TraceLens 2*N*bx for every forward) and each parameter at its own dtype
 *    (TraceLens: every O(C) tensor at x's dtype; saved statistics are fp32).
 *  - backward bytes honour the output mask (TraceLens ignores it and always charges 2*N*bx + N*bx).
 *  - weight/bias presence is read from the call (TraceLens: always True), and the output_mask column prints
 *    the call's mask (TraceLens prints [True]; forward rows print None, TraceLens nan).
 *  - every nested op (batch_norm > _batch_norm_impl_index > native/cudnn/miopen) is strong: the analysis
 *    attributes the kernels to the outermost one only, so they are not counted twice as in TraceLens. */
#include "batchnorm.h"

#include <math.h>
#include <string.h>

_Static_assert(sizeof(jv_batchnorm_desc) <= JV_DESC_BYTES, "batchnorm descriptor too large");

/* Argument positions of one op (-1: not an argument of it). */
typedef struct {
    signed char x, dy, w, b, rm, rv, sm, sv, train, mom, eps, mask;
    signed char fixed_training; /* -1: read from train; 0 / 1: implied by the op */
} bn_layout;

/* clang-format off */
static const struct {
    const char *name;
    jv_batchnorm_op op;
    jv_batchnorm_impl impl;
    int bwd;
    bn_layout at;
    jv_match how;
} OPS[] = {
    /* name, op, impl, bwd, {x, dy, w, b, rm, rv, sm, sv, train, mom, eps, mask, fixed_training}, how */
    {"aten::batch_norm", JV_BN_BATCH_NORM, JV_BN_IMPL_ANY, 0,
     {0, -1, 1,  2,  3,  4, -1, -1,  5,  6, 7, -1, -1}, JV_MATCH_STRONG},
    {"aten::_batch_norm_impl_index", JV_BN_IMPL_INDEX, JV_BN_IMPL_ANY, 0,
     {0, -1, 1,  2,  3,  4, -1, -1,  5,  6, 7, -1, -1}, JV_MATCH_STRONG},
    {"aten::native_batch_norm", JV_BN_NATIVE, JV_BN_IMPL_NATIVE, 0,
     {0, -1, 1,  2,  3,  4, -1, -1,  5,  6, 7, -1, -1}, JV_MATCH_STRONG},
    {"aten::cudnn_batch_norm", JV_BN_CUDNN, JV_BN_IMPL_CUDNN, 0,
     {0, -1, 1,  2,  3,  4, -1, -1,  5,  6, 7, -1, -1}, JV_MATCH_STRONG},
    {"aten::miopen_batch_norm", JV_BN_MIOPEN, JV_BN_IMPL_MIOPEN, 0,
     {0, -1, 1,  2,  3,  4, -1, -1,  5,  6, 7, -1, -1}, JV_MATCH_STRONG},
    {"aten::_native_batch_norm_legit", JV_BN_LEGIT, JV_BN_IMPL_NATIVE, 0,
     {0, -1, 1,  2,  3,  4, -1, -1,  5,  6, 7, -1, -1}, JV_MATCH_STRONG},
    {"aten::_native_batch_norm_legit_no_training", JV_BN_LEGIT_NO_TRAINING, JV_BN_IMPL_NATIVE, 0,
     {0, -1, 1,  2,  3,  4, -1, -1, -1,  5, 6, -1,  0}, JV_MATCH_STRONG},
    {"aten::_batch_norm_with_update", JV_BN_WITH_UPDATE, JV_BN_IMPL_ANY, 0,
     {0, -1, 1,  2,  3,  4, -1, -1, -1,  5, 6, -1,  1}, JV_MATCH_STRONG},
    {"aten::_batch_norm_no_update", JV_BN_NO_UPDATE, JV_BN_IMPL_ANY, 0,
     {0, -1, 1,  2,  3,  4, -1, -1, -1,  5, 6, -1,  0}, JV_MATCH_STRONG},
    {"aten::native_batch_norm_backward", JV_BN_NATIVE_BWD, JV_BN_IMPL_NATIVE, 1,
     {1,  0, 2, -1,  3,  4,  5,  6,  7, -1, 8,  9, -1}, JV_MATCH_STRONG},
    {"aten::batch_norm_backward", JV_BN_BWD, JV_BN_IMPL_ANY, 1,
     {1,  0, 2, -1,  3,  4,  5,  6,  7, -1, 8,  9, -1}, JV_MATCH_STRONG},
    {"aten::cudnn_batch_norm_backward", JV_BN_CUDNN_BWD, JV_BN_IMPL_CUDNN, 1,
     {0,  1, 2, -1,  3,  4,  5,  6, -1, -1, 7, -1,  1}, JV_MATCH_STRONG},
    {"aten::miopen_batch_norm_backward", JV_BN_MIOPEN_BWD, JV_BN_IMPL_MIOPEN, 1,
     {0,  1, 2, -1,  3,  4,  5,  6, -1, -1, 7, -1,  1}, JV_MATCH_STRONG},
};
/* clang-format on */

/* the no_stats overload of _native_batch_norm_legit: (input, weight, bias, training, momentum, eps) */
static const bn_layout LEGIT_NO_STATS = {0, -1, 1, 2, -1, -1, -1, -1, 3, 4, 5, -1, -1};

static int find_op(const char *name) {
    if (!name) return -1;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcmp(name, OPS[i].name)) return (int)i;
    return -1;
}

static jv_match bn_match(const char *op) {
    int i = find_op(op);
    return i < 0 ? JV_MATCH_NONE : OPS[i].how;
}

/* A per-channel tensor must hold C elements. */
static int bad_param(const jv_tensor *t, int64_t c) {
    return t && jv_tensor_numel(t) != c; /* also refuses negative or overflowing shapes (-1) */
}

static jv_status bn_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    jv_batchnorm_desc *g = (jv_batchnorm_desc *)(void *)d->data;
    memset(g, 0, sizeof *g);
    int oi = find_op(c->name);
    if (oi < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not a batch norm", c->name ? c->name : "op");
    g->op = OPS[oi].op;
    g->impl = OPS[oi].impl;
    g->bwd = OPS[oi].bwd;
    bn_layout at = OPS[oi].at;
    if (g->op == JV_BN_LEGIT && c->nargs <= 6) {
        int b;
        if (jv_opcall_bool(c, 3, 0, 0, &b) && jv_opcall_value(c, 3)) at = LEGIT_NO_STATS;
    }

    const jv_tensor *x = jv_opcall_tensor(c, at.x);
    if (!x) JV_FAIL(err, JV_ERR_FORMAT, "%s: input shape missing", c->name);
    if (x->ndim < 2) JV_FAIL(err, JV_ERR_FORMAT, "%s: input has no channel dimension", c->name);
    if (jv_tensor_numel(x) < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: negative or overflowing input shape", c->name);
    g->x = *x;
    g->c = x->shape[1];
    g->n = jv_tensor_numel(x);
    g->layout = jv_tensor_layout(x);
    if (at.dy >= 0) {
        const jv_tensor *dy = jv_opcall_tensor(c, at.dy);
        if (!dy) JV_FAIL(err, JV_ERR_FORMAT, "%s: grad_output shape missing", c->name);
        if (jv_tensor_numel(dy) != g->n)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: grad_output does not match the input", c->name);
        g->dy = *dy;
    }

    const jv_tensor *w = jv_opcall_opt_tensor(c, at.w), *b = jv_opcall_opt_tensor(c, at.b);
    const jv_tensor *rm = jv_opcall_opt_tensor(c, at.rm), *rv = jv_opcall_opt_tensor(c, at.rv);
    const jv_tensor *sm = jv_opcall_opt_tensor(c, at.sm), *sv = jv_opcall_opt_tensor(c, at.sv);
    if (bad_param(w, g->c) || bad_param(b, g->c) || bad_param(rm, g->c) || bad_param(rv, g->c))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: a parameter does not hold C = %lld elements", c->name, (long long)g->c);
    if ((sm && jv_tensor_numel(sm) < 0) || (sv && jv_tensor_numel(sv) < 0))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: negative saved-statistics shape", c->name);
    g->has_weight = w != NULL;
    g->weight_dtype = w ? w->dtype : JV_DT_UNKNOWN;
    g->has_bias = b != NULL;
    g->bias_dtype = b ? b->dtype : JV_DT_UNKNOWN;
    g->has_running = rm && rv;
    g->running_dtype = rm ? rm->dtype : rv ? rv->dtype : JV_DT_UNKNOWN;
    g->has_saved = sm && sv;
    /* saved statistics are at the accumulate type (fp32; fp64 for double) unless the call shows them */
    g->stat_dtype = sm ? sm->dtype : x->dtype == JV_DT_F64 ? JV_DT_F64 : JV_DT_F32;
    g->param_dtype = w ? w->dtype : b ? b->dtype : rm ? rm->dtype : x->dtype;

    if (at.fixed_training >= 0)
        g->training = at.fixed_training;
    else if (!jv_opcall_bool(c, at.train, 1, 0, &g->training))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: training flag is not True/False", c->name);
    if (!jv_opcall_double(c, at.mom, 0.1, 0, &g->momentum) || !jv_opcall_double(c, at.eps, 1e-5, 0, &g->eps))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: momentum or eps is not a number", c->name);
    for (int i = 0; i < 3; i++)
        g->output_mask[i] = 1;
    if (at.mask >= 0 && jv_opcall_value(c, at.mask)) {
        int m[3];
        if (jv_parse_bools(jv_opcall_value(c, at.mask), m, 3) != 3)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: output_mask is not three bools", c->name);
        memcpy(g->output_mask, m, sizeof m);
    }
    /* backward has no bias argument: the bias column says whether grad_bias is computed */
    if (g->bwd) g->has_bias = g->output_mask[2];
    d->bwd = g->bwd;
    return JV_OK;
}

static void bn_model(const jv_desc *d, jv_perf *p) {
    const jv_batchnorm_desc *g = jv_batchnorm_of(d);
    double n = (double)g->n, c = (double)g->c;
    double bx = jv_bpe(g->x.dtype);
    double bytes = 0, flops = 0;
    if (!g->bwd) {
        bytes = (g->training ? 3.0 : 2.0) * n * bx;
        if (g->has_weight) bytes += c * jv_bpe(g->weight_dtype);
        if (g->has_bias) bytes += c * jv_bpe(g->bias_dtype);
        if (g->has_running) bytes += (g->training ? 4.0 : 2.0) * c * jv_bpe(g->running_dtype);
        if (g->training) bytes += 2.0 * c * jv_bpe(g->stat_dtype);
        flops = (g->training ? 5.0 : 2.0) * n + 6.0 * c;
    } else {
        int m0 = g->output_mask[0], m1 = g->output_mask[1], m2 = g->output_mask[2];
        double bd = jv_bpe(g->dy.dtype);
        if (g->training) {
            if (m0)
                bytes = 2.0 * n * (bx + bd) + n * bx;
            else if (m1)
                bytes = n * (bx + bd);
            else if (m2)
                bytes = n * bd;
        } else {
            if (m0 || m1 || m2) bytes = n * bd;
            if (m1) bytes += n * bx;
            if (m0) bytes += n * bx;
        }
        if (m0 && g->has_weight) bytes += c * jv_bpe(g->weight_dtype);
        if (m0 || m1 || m2) {
            if (g->training && g->has_saved) bytes += 2.0 * c * jv_bpe(g->stat_dtype);
            if (!g->training && g->has_running) bytes += 2.0 * c * jv_bpe(g->running_dtype);
        }
        if (m1) bytes += c * jv_bpe(g->param_dtype);
        if (m2) bytes += c * jv_bpe(g->param_dtype);
        if ((m0 && g->training) || m1)
            flops += 4.0 * n;
        else if (m2)
            flops += n;
        if (m0) flops += (g->training ? 5.0 : 1.0) * n;
    }
    p->flops = flops;
    p->bytes = bytes;
    p->dtype = g->x.dtype;
    p->matrix = 0;
}

static void bn_params(const jv_desc *d, jv_params *ps) {
    const jv_batchnorm_desc *g = jv_batchnorm_of(d);
    jv_params_normalization(ps, &g->x, g->c, g->has_bias, g->has_weight, g->training, g->bwd ? g->output_mask : NULL,
                            3);
}

/* the findings hook: cuDNN or MIOpen by the op's name, else by the first kernel that names a library or PyTorch's
 * native batch norm, else native by the op's name */
static jv_impl_info bn_impl(const char *op, const char *const *kernels, int n) {
    jv_impl_info r = {JV_IMPL_UNKNOWN, 0};
    if (strstr(op, "cudnn_batch_norm")) {
        r.impl = JV_IMPL_CUDNN;
        return r;
    }
    if (strstr(op, "miopen_batch_norm")) {
        r.impl = JV_IMPL_MIOPEN;
        return r;
    }
    for (int k = 0; k < n; k++) {
        const char *s = kernels[k];
        if (strstr(s, "MIOpenBatchNorm") || strstr(s, "miopen")) {
            r.impl = JV_IMPL_MIOPEN;
            return r;
        }
        if (strstr(s, "cudnn") || strstr(s, "bn_fw") || strstr(s, "bn_bw")) {
            r.impl = JV_IMPL_CUDNN;
            return r;
        }
        if (strstr(s, "at::native") && strstr(s, "batch_norm")) {
            r.impl = JV_IMPL_NATIVE;
            return r;
        }
    }
    if (strstr(op, "native_batch_norm")) r.impl = JV_IMPL_NATIVE;
    return r;
}

/* the findings facts: the training flag and whether an affine weight is passed */
static void bn_facts(const jv_desc *d, jv_family_facts *out) {
    const jv_batchnorm_desc *g = jv_batchnorm_of(d);
    out->training = g->training != 0;
    out->no_affine = !g->has_weight;
}

const jv_family jv_batchnorm_family = {
    .name = "batchnorm",
    .sheet = "Normalization",
    .category = "NORM",
    .match = bn_match,
    .parse = bn_parse,
    .model = bn_model,
    .params = bn_params,
    .operands = jv_batchnorm_operands,
    .reference = jv_batchnorm_reference,
    .reference_full = 1,
    .fp32_tol = 1e-3, /* the statistics reduce N x H x W elements in fp32 */
    .schemas = jv_batchnorm_schemas,
    .report = JV_REPORT_BATCHNORM,
    .findings = {.impl = bn_impl, .facts = bn_facts},
    .repro = jv_batchnorm_repro,
};

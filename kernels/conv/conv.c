/* conv: descriptor parsing and the FLOPs/bytes model.
 * F = 2 * prod(w[1:]) * prod(out)   (transposed: 2 * prod(w[1:]) * prod(x))
 *     (one multiply-add per weight element per output element of a group;
 *     C_in/groups is already in w[1], so groups needs no factor).
 * forward:  flops = F (+ prod(out) with a bias);
 *           bytes = |x|*bpe_x + |w|*bpe_w + |out|*bpe_x (+ C_out*bpe_bias with a bias).
 * backward (aten::convolution_backward), per output_mask bit:
 *   grad_input  (mask[0]): F flops, (|grad_out| + |w| + |x|) bytes
 *   grad_weight (mask[1]): F flops, (|grad_out| + |x| + |w|) bytes
 *   grad_bias   (mask[2]): prod(out) flops, (|grad_out| + C_out) bytes
 *   (each tensor at its own bpe; grad_input has x's dtype, grad_weight w's,
 *   grad_bias grad_out's).
 * TraceLens defects fixed here (see /tmp/tl_perf_models.md 4.2, 4.3, 13.1):
 *   - aten::convolution's bias is never counted there (bias = len(Dims)==3);
 *     it is counted here whenever a bias tensor is passed.
 *   - convolution_backward ignores output_mask there (always grad_input +
 *     grad_weight, never grad_bias, and prints bias as "[]"); here every grad
 *     is counted only when its mask bit is set, and param bias prints
 *     output_mask[2] as True/False.
 *   - TraceLens truncates (in + 2p - d(k-1) - 1)/s toward zero, so a kernel
 *     larger than the padded input gives out = 1 there; such a call is an
 *     error in PyTorch and is refused here.
 *   - TraceLens drops a row whose input and weight dtypes differ; here each
 *     tensor is counted at its own size. */
#include "conv.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(jv_conv_desc) <= JV_DESC_BYTES, "conv descriptor too large");

/* Sanity bounds: larger values are refused as malformed (they also keep the
 * int64 arithmetic below from overflowing: d*(k-1) < 2^60, (s-1)*stride < 2^60). */
#define CONV_DIM_MAX   ((int64_t)1 << 40) /* any tensor dim */
#define CONV_PARAM_MAX ((int64_t)1 << 20) /* stride, padding, dilation, output_padding */

/* Where a call's arguments sit (-1: not an argument of the op). */
typedef struct {
    int x, w, bias, stride, padding, dilation, transposed, output_padding, groups;
    int benchmark, deterministic, allow_tf32;
    int fixed_transposed; /* -1: read from the transposed arg; else 0 or 1 */
} arg_map;

/* {x, w, bias, stride, padding, dilation, transposed, output_padding, groups,
 *  benchmark, deterministic, allow_tf32, fixed_transposed} */
static const arg_map MAP_CONVOLUTION = {0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -1, -1, -1};
static const arg_map MAP__CONVOLUTION = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, -1};
static const arg_map MAP_CONVND = {0, 1, 2, 3, 4, 5, -1, -1, 6, -1, -1, -1, 0};
static const arg_map MAP_CONV_TRANSPOSEND = {0, 1, 2, 3, 4, 7, -1, 5, 6, -1, -1, -1, 1};
static const arg_map MAP_CUDNN = {0, 1, -1, 3, 2, 4, -1, -1, 5, 6, 7, 8, 0};
static const arg_map MAP_CUDNN_TRANSPOSE = {0, 1, -1, 4, 2, 5, -1, 3, 6, 7, 8, 9, 1};
static const arg_map MAP_MIOPEN = {0, 1, 2, 4, 3, 5, -1, -1, 6, 7, 8, -1, 0};
static const arg_map MAP_MIOPEN_TRANSPOSE = {0, 1, 2, 5, 3, 6, -1, 4, 7, 8, 9, -1, 1};
/* convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
 * dilation, transposed, output_padding, groups, output_mask) */
static const arg_map MAP_BACKWARD = {1, 2, -1, 4, 5, 6, 7, 8, 9, -1, -1, -1, -1};

static const struct {
    const char *name;
    jv_conv_op op;
    jv_match how;
    int nd; /* spatial dims fixed by the name; 0: from the input */
    const arg_map *map;
} OPS[] = {
    {"aten::convolution", JV_CONV_CONVOLUTION, JV_MATCH_STRONG, 0, &MAP_CONVOLUTION},
    {"aten::convolution_backward", JV_CONV_BACKWARD, JV_MATCH_STRONG, 0, &MAP_BACKWARD},
    {"aten::_convolution", JV_CONV__CONVOLUTION, JV_MATCH_WEAK, 0, &MAP__CONVOLUTION},
    {"aten::conv1d", JV_CONV_CONVND, JV_MATCH_WEAK, 1, &MAP_CONVND},
    {"aten::conv2d", JV_CONV_CONVND, JV_MATCH_WEAK, 2, &MAP_CONVND},
    {"aten::conv3d", JV_CONV_CONVND, JV_MATCH_WEAK, 3, &MAP_CONVND},
    {"aten::conv_transpose1d", JV_CONV_CONV_TRANSPOSEND, JV_MATCH_WEAK, 1, &MAP_CONV_TRANSPOSEND},
    {"aten::conv_transpose2d", JV_CONV_CONV_TRANSPOSEND, JV_MATCH_WEAK, 2, &MAP_CONV_TRANSPOSEND},
    {"aten::conv_transpose3d", JV_CONV_CONV_TRANSPOSEND, JV_MATCH_WEAK, 3, &MAP_CONV_TRANSPOSEND},
    {"aten::_convolution_mode", JV_CONV_CONVOLUTION_MODE, JV_MATCH_WEAK, 0, &MAP_CONVND},
    {"aten::cudnn_convolution", JV_CONV_CUDNN, JV_MATCH_WEAK, 0, &MAP_CUDNN},
    {"aten::cudnn_convolution_transpose", JV_CONV_CUDNN_TRANSPOSE, JV_MATCH_WEAK, 0, &MAP_CUDNN_TRANSPOSE},
    {"aten::miopen_convolution", JV_CONV_MIOPEN, JV_MATCH_WEAK, 0, &MAP_MIOPEN},
    {"aten::miopen_depthwise_convolution", JV_CONV_MIOPEN, JV_MATCH_WEAK, 0, &MAP_MIOPEN},
    {"aten::miopen_convolution_transpose", JV_CONV_MIOPEN_TRANSPOSE, JV_MATCH_WEAK, 0, &MAP_MIOPEN_TRANSPOSE},
};
_Static_assert(sizeof OPS / sizeof OPS[0] == 15, "conv OPS table size");

static int find_op(const char *name) {
    if (!name) return -1;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcmp(name, OPS[i].name)) return (int)i;
    return -1;
}

static jv_match conv_match(const char *op) {
    int i = find_op(op);
    return i < 0 ? JV_MATCH_NONE : OPS[i].how;
}

/* The string padding modes ("valid", "same", with or without quotes); -1 otherwise. */
static int pad_mode_of(const char *s) {
    if (!s) return -1;
    size_t n = strlen(s);
    if (n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n - 1] == s[0]) s++, n -= 2;
    if (n == 5 && !strncmp(s, "valid", 5)) return JV_CONV_PAD_VALID;
    if (n == 4 && !strncmp(s, "same", 4)) return JV_CONV_PAD_SAME;
    return -1;
}

/* Inserts a leading batch dim of size 1 (an unbatched conv1d/2d/3d input). */
static void add_batch_dim(jv_tensor *t) {
    for (int i = t->ndim; i > 0; i--) {
        t->shape[i] = t->shape[i - 1];
        t->strides[i] = t->strides[i - 1];
    }
    /* the new dim has size 1, so its stride is free: the old outer extent when it fits */
    int64_t s = 1;
    if (t->ndim > 0 && t->strides[1] > 0 && t->shape[1] > 0 && t->strides[1] <= INT64_MAX / t->shape[1])
        s = t->shape[1] * t->strides[1];
    t->shape[0] = 1;
    t->strides[0] = s;
    t->ndim++;
}

/* 1 when every dim of t lies in [0, CONV_DIM_MAX] */
static int dims_ok(const jv_tensor *t) {
    for (int i = 0; i < t->ndim; i++)
        if (t->shape[i] < 0 || t->shape[i] > CONV_DIM_MAX) return 0;
    return 1;
}

static int all_in(const int64_t *v, int n, int64_t lo, int64_t hi) {
    for (int i = 0; i < n; i++)
        if (v[i] < lo || v[i] > hi) return 0;
    return 1;
}

/* Parses a spatial list param at index i (default def) into out[nd]. 0 when malformed. */
static int read_spatial(const jv_opcall *c, int i, int nd, long long def, int64_t *out) {
    long long v[JV_CONV_MAX_SPATIAL];
    const char *s = i >= 0 ? jv_opcall_value(c, i) : NULL;
    if (!jv_parse_spatial(s, nd, def, v)) return 0;
    for (int k = 0; k < nd; k++)
        out[k] = v[k];
    return 1;
}

static jv_status conv_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    jv_conv_desc *g = (jv_conv_desc *)(void *)d->data;
    memset(g, 0, sizeof *g);
    int oi = find_op(c->name);
    if (oi < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not a convolution", c->name ? c->name : "op");
    const arg_map *m = OPS[oi].map;
    g->op = OPS[oi].op;
    int bwd = g->op == JV_CONV_BACKWARD;

    const jv_tensor *x = jv_opcall_tensor(c, m->x), *w = jv_opcall_tensor(c, m->w);
    if (!x || !w) JV_FAIL(err, JV_ERR_FORMAT, "%s: input or weight shape missing", c->name);
    g->x = *x;
    g->w = *w;
    if (!dims_ok(&g->x) || !dims_ok(&g->w))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: negative or absurd tensor dimension", c->name);
    int nd = OPS[oi].nd;
    if (nd) {
        if (g->x.ndim == nd + 1) {
            g->unbatched = 1;
            add_batch_dim(&g->x);
        }
    } else {
        nd = g->x.ndim - 2;
    }
    if (nd < 1 || nd > JV_CONV_MAX_SPATIAL || g->x.ndim != nd + 2 || g->w.ndim != nd + 2)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: input and weight must both have 3 to 5 dims (got %d and %d)", c->name,
                g->x.ndim, g->w.ndim);
    g->nd = nd;
    for (int i = 0; i < nd; i++)
        if (g->w.shape[2 + i] < 1) JV_FAIL(err, JV_ERR_FORMAT, "%s: empty kernel", c->name);

    /* transposed */
    if (m->fixed_transposed >= 0) {
        g->transposed = m->fixed_transposed;
    } else {
        const char *s = jv_opcall_value(c, m->transposed);
        if (s && !jv_parse_bool(s, &g->transposed))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: transposed is not a bool", c->name);
    }

    /* stride, padding, dilation, output_padding */
    if (!read_spatial(c, m->stride, nd, 1, g->stride) || !read_spatial(c, m->dilation, nd, 1, g->dilation) ||
        !read_spatial(c, m->output_padding, nd, 0, g->output_padding))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: malformed stride, dilation or output_padding", c->name);
    const char *ps = m->padding >= 0 ? jv_opcall_value(c, m->padding) : NULL;
    int pm = pad_mode_of(ps);
    if (pm >= 0) {
        if (g->transposed) JV_FAIL(err, JV_ERR_FORMAT, "%s: string padding on a transposed conv", c->name);
        g->pad_mode = (jv_conv_pad_mode)pm;
        for (int i = 0; i < nd; i++)
            g->padding[i] = 0;
    } else if (!read_spatial(c, m->padding, nd, 0, g->padding)) {
        JV_FAIL(err, JV_ERR_FORMAT, "%s: malformed padding", c->name);
    }
    if (!all_in(g->stride, nd, 1, CONV_PARAM_MAX) || !all_in(g->dilation, nd, 1, CONV_PARAM_MAX))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: stride and dilation must be positive", c->name);
    if (!all_in(g->padding, nd, 0, CONV_PARAM_MAX) || !all_in(g->output_padding, nd, 0, CONV_PARAM_MAX))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: negative or absurd padding", c->name);

    /* groups and channels */
    g->n = g->x.shape[0];
    g->c_in = g->x.shape[1];
    const char *gs = jv_opcall_value(c, m->groups);
    if (gs) {
        long long gv;
        if (jv_parse_ints(gs, &gv, 1) != 1) JV_FAIL(err, JV_ERR_FORMAT, "%s: groups is not an int", c->name);
        g->groups = gv;
    } else if (!g->transposed && g->w.shape[1] > 0 && g->c_in % g->w.shape[1] == 0) {
        g->groups = g->c_in / g->w.shape[1]; /* not traced: the only value that fits the shapes */
    } else {
        g->groups = 1;
    }
    if (g->groups < 1 || g->groups > CONV_DIM_MAX) JV_FAIL(err, JV_ERR_FORMAT, "%s: groups must be >= 1", c->name);
    if (!g->transposed) {
        if (g->c_in % g->groups || g->c_in / g->groups != g->w.shape[1])
            JV_FAIL(err, JV_ERR_FORMAT, "%s: input channels %lld != weight[1] %lld * groups %lld", c->name,
                    (long long)g->c_in, (long long)g->w.shape[1], (long long)g->groups);
        if (g->w.shape[0] % g->groups)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: output channels not divisible by groups", c->name);
        g->c_out = g->w.shape[0];
    } else {
        if (g->w.shape[0] != g->c_in || g->c_in % g->groups)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: transposed weight[0] %lld != input channels %lld (groups %lld)", c->name,
                    (long long)g->w.shape[0], (long long)g->c_in, (long long)g->groups);
        if (g->w.shape[1] > CONV_DIM_MAX / g->groups)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: absurd output channels", c->name);
        g->c_out = g->w.shape[1] * g->groups;
    }

    /* output shape */
    g->out[0] = g->n;
    g->out[1] = g->c_out;
    for (int i = 0; i < nd; i++) {
        int64_t in = g->x.shape[2 + i], k = g->w.shape[2 + i], s = g->stride[i], p = g->padding[i];
        int64_t dk = g->dilation[i] * (k - 1), o;
        if (g->transposed) {
            if (g->output_padding[i] >= s && g->output_padding[i] >= g->dilation[i])
                JV_FAIL(err, JV_ERR_FORMAT, "%s: output_padding must be smaller than stride or dilation", c->name);
            o = (in - 1) * s - 2 * p + dk + g->output_padding[i] + 1;
        } else if (g->pad_mode == JV_CONV_PAD_SAME) {
            if (s != 1) JV_FAIL(err, JV_ERR_FORMAT, "%s: padding='same' needs stride 1", c->name);
            g->padding[i] = dk / 2;
            o = in;
        } else {
            int64_t num = in + 2 * p - dk - 1;
            if (num < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: kernel larger than the padded input", c->name);
            o = num / s + 1;
        }
        if (o < 1) JV_FAIL(err, JV_ERR_FORMAT, "%s: output size %lld < 1", c->name, (long long)o);
        g->out[2 + i] = o;
    }

    /* bias, grad_out, output_mask */
    if (!bwd) {
        const jv_tensor *b = jv_opcall_tensor(c, m->bias);
        if (b && b->ndim > 0) {
            if (b->ndim != 1 || b->shape[0] != g->c_out)
                JV_FAIL(err, JV_ERR_FORMAT, "%s: bias is not [C_out = %lld]", c->name, (long long)g->c_out);
            g->has_bias = 1;
            g->bias = *b;
        }
    } else {
        const jv_tensor *go = jv_opcall_tensor(c, 0);
        if (go) {
            if (go->ndim != nd + 2) JV_FAIL(err, JV_ERR_FORMAT, "%s: grad_output rank differs", c->name);
            for (int i = 0; i < nd + 2; i++)
                if (go->shape[i] != g->out[i])
                    JV_FAIL(err, JV_ERR_FORMAT, "%s: grad_output shape differs from the conv output", c->name);
            g->has_grad_out = 1;
            g->grad_out = *go;
        }
        const char *ms = jv_opcall_value(c, 10);
        if (ms) {
            if (jv_parse_bools(ms, g->output_mask, 3) != 3)
                JV_FAIL(err, JV_ERR_FORMAT, "%s: output_mask is not 3 bools", c->name);
        } else {
            /* not traced: grad_input and grad_weight, and grad_bias when bias_sizes names a bias */
            long long bs[2];
            g->output_mask[0] = g->output_mask[1] = 1;
            g->output_mask[2] = jv_parse_ints(jv_opcall_value(c, 3), bs, 2) == 1 && bs[0] > 0;
        }
        g->has_bias = g->output_mask[2];
    }

    if (!jv_opcall_bool(c, m->benchmark, -1, 0, &g->benchmark) ||
        !jv_opcall_bool(c, m->deterministic, -1, 0, &g->deterministic) ||
        !jv_opcall_bool(c, m->allow_tf32, -1, 0, &g->allow_tf32))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: backend flag is not a bool", c->name);
    g->layout = jv_tensor_layout(&g->x);
    g->w_layout = jv_tensor_layout(&g->w);
    g->dtype = g->x.dtype;
    d->bwd = bwd;
    return JV_OK;
}

static double prod_from(const int64_t *v, int from, int to) {
    double p = 1;
    for (int i = from; i < to; i++)
        p *= (double)v[i];
    return p;
}

static void conv_model(const jv_desc *d, jv_perf *p) {
    const jv_conv_desc *g = jv_conv_of(d);
    int r = g->nd + 2;
    double nx = jv_numel_d(&g->x), nw = jv_numel_d(&g->w), no = prod_from(g->out, 0, r);
    double bx = jv_bpe(g->x.dtype), bw = jv_bpe(g->w.dtype);
    double f = 2.0 * prod_from(g->w.shape, 1, r) * (g->transposed ? nx : no);
    if (d->bwd) {
        double bgo = g->has_grad_out ? jv_bpe(g->grad_out.dtype) : bx;
        double flops = 0, bytes = 0;
        for (int i = 0; i < 2; i++) /* grad_input, grad_weight: each reads two of go/x/w and writes the third */
            if (g->output_mask[i]) flops += f, bytes += no * bgo + nw * bw + nx * bx;
        if (g->output_mask[2]) flops += no, bytes += (no + (double)g->c_out) * bgo;
        p->flops = flops;
        p->bytes = bytes;
    } else {
        p->flops = f + (g->has_bias ? no : 0);
        p->bytes = nx * bx + nw * bw + no * bx + (g->has_bias ? (double)g->c_out * jv_bpe(g->bias.dtype) : 0);
    }
    p->dtype = g->dtype;
    p->matrix = 1;
}

static void conv_params(const jv_desc *d, jv_params *ps) {
    const jv_conv_desc *g = jv_conv_of(d);
    int u = g->unbatched; /* print the input as traced, without the batch dim added here */
    jv_param_text(ps, "convNd", "conv%dd", g->nd);
    jv_param_tuple(ps, "input_shape", g->x.shape + u, g->x.ndim - u);
    jv_param_tuple(ps, "filter_shape", g->w.shape, g->w.ndim);
    const char *xt = jv_dtype_trace_name(g->x.dtype), *wt = jv_dtype_trace_name(g->w.dtype);
    const char *dt[2] = {*xt ? xt : NULL, *wt ? wt : NULL};
    jv_param_dtypes(ps, "dtype_input_weight", dt, 2);
    jv_param_tuple(ps, "input_stride", g->x.has_strides ? g->x.strides + u : NULL, g->x.ndim - u);
    jv_param_tuple(ps, "weight_stride", g->w.has_strides ? g->w.strides : NULL, g->w.ndim);
    jv_param_bool(ps, "bias", g->has_bias);
    jv_param_tuple(ps, "stride", g->stride, g->nd);
    jv_param_tuple(ps, "padding", g->padding, g->nd);
    jv_param_tuple(ps, "dilation", g->dilation, g->nd);
    jv_param_bool(ps, "transposed_conv", g->transposed);
    jv_param_tuple(ps, "output_padding", g->output_padding, g->nd);
    jv_param_int(ps, "groups", g->groups);
}

/* hay contains needle, ASCII letters matched without case */
static int contains_nocase(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && (hay[i] | 0x20) == (needle[i] | 0x20))
            i++;
        if (i == n) return 1;
    }
    return 0;
}

/* the findings hook: the convolution kernels themselves (not the layout conversions) run NHWC when a name says so */
static jv_impl_info conv_impl(const char *op, const char *const *kernels, int n) {
    (void)op;
    jv_impl_info r = {JV_IMPL_UNKNOWN, 0};
    for (int k = 0; k < n && !r.nhwc; k++)
        r.nhwc = !jv_is_layout_kernel(kernels[k]) && contains_nocase(kernels[k], "nhwc");
    return r;
}

/* the findings facts: the weight's kernel size */
static void conv_facts(const jv_desc *d, jv_family_facts *out) {
    const jv_tensor *w = &jv_conv_of(d)->w;
    if (w->ndim < 3) return;
    out->kh = (int)w->shape[2];
    out->kw = w->ndim >= 4 ? (int)w->shape[3] : 1;
}

const jv_family jv_conv_family = {
    .name = "conv",
    .sheet = "CONV",
    .split = 1,
    .category = "CONV",
    .match = conv_match,
    .parse = conv_parse,
    .model = conv_model,
    .params = conv_params,
    .operands = jv_conv_operands,
    .reference = jv_conv_reference,
    .fp32_tol = 1e-3, /* cuDNN runs fp32 convolutions in TF32 by default (torch.backends.cudnn.allow_tf32) */
    .schemas = jv_conv_schemas,
    .report = JV_REPORT_CONV,
    .findings = {.impl = conv_impl, .facts = conv_facts},
    .repro = jv_conv_repro,
};

int jv_is_layout_kernel(const char *name) {
    static const char *const P[] = {"batched_transpose", "nchwToNhwc", "nhwcToNchw", "transpose_",
                                    "Transpose",         "nchw2nhwc",  "nhwc2nchw",  NULL};
    for (int i = 0; P[i]; i++)
        if (strstr(name, P[i])) return 1;
    return 0;
}

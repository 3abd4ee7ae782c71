/* jv_cpu_conv: the convolution family on oneDNN (see jv_cpu_dnnl.h).
 * As the cuDNN path (backends/cuda/jv_cuda_dnn.c): a normal convolution maps
 * its input to oneDNN's src and its output to dst; a transposed one runs as
 * the data gradient of the normal convolution from its output to its input.
 * Every activation is described by its traced dims and strides (no copy:
 * NCHW and channels_last alike); a grouped weight [C_out, C_in/G, k...] is
 * viewed as oneDNN's [G, C_out/G, C_in/G, k...] over the same bytes. When
 * the traced weight layout leaves oneDNN only its reference implementation
 * (channels_last weights [O, k..., I]), the weights alone go through a
 * reorder into (or, for grad_weight, out of) the layout oneDNN picks.
 *   forward:        convolution forward (bias fused), or backward data when
 *                   transposed (its bias then added by a binary add in place);
 *   grad_input:     convolution backward data (forward when transposed);
 *   grad_weight:    convolution backward weights, with grad_bias fused when
 *                   both are asked for on a normal convolution;
 *   grad_bias alone (or of a transposed convolution): a sum reduction of
 *                   grad_output to [1, C_out, 1...].
 * fp32 runs with strict fp32 math; bf16 / fp16 where oneDNN implements them
 * on this CPU (else JV_ERR_NOTFOUND "unsupported dtype"), fp64 never.
 * Scratchpads are oneDNN's own (library mode). A plan's memories take each
 * run's buffers: one run of a plan at a time. */
#include "jv_cpu_dnnl.h"

#ifdef JV_HAVE_DNNL
#include <stdlib.h>
#include <string.h>

#include "conv/conv.h"

#define ARGS_MAX  5
#define STEPS_MAX 16 /* all three gradients on oneDNN's layouts: 2 x (2 reorders in, the step, 1 out), a bias */

typedef jv_cpu_dnnl_step step; /* the handles of operand memories are set per run */
typedef jv_cpu_dnnl_arg step_arg;

struct jv_cpu_conv {
    const char *name;
    int nsteps;
    step s[STEPS_MAX];
    int ntmp;
    dnnl_memory_t tmp[STEPS_MAX]; /* operands in oneDNN's layouts (allocated by oneDNN) */
};

void jv_cpu_conv_free(jv_cpu_conv *p) {
    if (!p) return;
    for (int i = 0; i < p->nsteps; i++) {
        if (p->s[i].prim) dnnl_primitive_destroy(p->s[i].prim);
        for (int k = 0; k < p->s[i].nargs; k++)
            if (p->s[i].a[k].mem && p->s[i].a[k].op >= 0) dnnl_memory_destroy(p->s[i].a[k].mem);
    }
    for (int i = 0; i < p->ntmp; i++)
        dnnl_memory_destroy(p->tmp[i]);
    free(p);
}

/* t's dims and strides as a oneDNN descriptor; groups > 1 on a weight: the [G,
 * O/G, I/G, k...] view */
static jv_status md_of(const jv_tensor *t, int64_t groups, dnnl_memory_desc_t *md, const char *what, jv_err *err) {
    if (groups <= 1) return jv_cpu_dnnl_md(t, md, what, err);
    dnnl_data_type_t dt;
    if (!jv_cpu_dnnl_type(t->dtype, &dt))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: unsupported dtype %s on this CPU", what,
                jv_dtype_short(t->dtype));
    if (t->ndim < 3 || t->shape[0] % groups)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: a grouped weight oneDNN cannot view", what);
    dnnl_dims_t dims, strides;
    int nd = 0;
    dims[nd] = groups, strides[nd++] = t->shape[0] / groups * t->strides[0];
    dims[nd] = t->shape[0] / groups, strides[nd++] = t->strides[0];
    for (int i = 1; i < t->ndim; i++)
        dims[nd] = t->shape[i], strides[nd++] = t->strides[i];
    JV_DNNL_CALL(err, what, dnnl_memory_desc_init_by_strides(md, nd, dims, dt, strides));
    return JV_OK;
}

/* a [C] vector (stride s) as [1, C, 1...] of rank nr (bias broadcast, bias
 * gradient) */
static jv_status md_chan(const jv_tensor *t, int nr, dnnl_memory_desc_t *md, const char *what, jv_err *err) {
    dnnl_data_type_t dt;
    if (!jv_cpu_dnnl_type(t->dtype, &dt))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: unsupported dtype %s on this CPU", what,
                jv_dtype_short(t->dtype));
    dnnl_dims_t dims, strides;
    for (int i = 0; i < nr; i++)
        dims[i] = 1, strides[i] = t->shape[0] * t->strides[0];
    dims[1] = t->shape[0], strides[1] = t->strides[0];
    JV_DNNL_CALL(err, what, dnnl_memory_desc_init_by_strides(md, nr, dims, dt, strides));
    return JV_OK;
}

typedef struct {
    const char *what;
    jv_dtype dt;
    dnnl_primitive_attr_t attr;
} plan_ctx;

/* JV_OK when an op desc init succeeded, else JV_ERR_INTERNAL naming it. */
static jv_status desc_ok(dnnl_status_t s, const char *what, const char *prim, jv_err *err) {
    if (s != dnnl_success)
        JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: %s: oneDNN %s desc: %s", what, prim, jv_cpu_dnnl_status_str(s));
    return JV_OK;
}

/* Creates the primitive desc of op desc od; unimplemented: NOTFOUND (the dtype
 * named for bf16 / fp16). */
static jv_status pd_create(const jv_cpu_dnnl *x, const plan_ctx *c, const void *od, const_dnnl_primitive_desc_t hint,
                           const char *prim, dnnl_primitive_desc_t *pd, jv_err *err) {
    dnnl_status_t s = dnnl_primitive_desc_create(pd, od, c->attr, x->eng, hint);
    if (s == dnnl_success) return JV_OK;
    *pd = NULL;
    if (s == dnnl_unimplemented && c->dt != JV_DT_F32)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: unsupported dtype %s on this CPU (oneDNN %s)", c->what,
                jv_dtype_short(c->dt), prim);
    if (s == dnnl_unimplemented)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: oneDNN has no %s for these shapes and strides", c->what, prim);
    JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: %s: oneDNN %s: %s", c->what, prim, jv_cpu_dnnl_status_str(s));
}

/* Makes step p->s[p->nsteps] from pd (consumed) with its args (DNNL_ARG_*,
 * operand or -1: the plan's memory tmp[i], descriptor). */
static jv_status add_step(const jv_cpu_dnnl *x, jv_cpu_conv *p, dnnl_primitive_desc_t pd, int nargs, const int *arg,
                          const int *op, const dnnl_memory_desc_t *const *md, const dnnl_memory_t *tmp, jv_err *err) {
    if (p->nsteps >= STEPS_MAX) {
        dnnl_primitive_desc_destroy(pd);
        JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: %s: more than %d oneDNN steps", p->name, STEPS_MAX);
    }
    step *s = &p->s[p->nsteps++];
    JV_CHECK(jv_cpu_dnnl_primitive(pd, &s->prim, p->name, err));
    for (int i = 0; i < nargs; i++) {
        s->a[i].arg = arg[i], s->a[i].op = op[i];
        if (op[i] < 0)
            s->a[i].mem = tmp[i];
        else
            JV_DNNL_CALL(err, p->name, dnnl_memory_create(&s->a[i].mem, md[i], x->eng, DNNL_MEMORY_NONE));
        s->nargs = i + 1;
    }
    return JV_OK;
}

/* The geometry of the conv steps. */
typedef struct {
    dnnl_dims_t str, dil, pl, pr;
} geo;

typedef enum { K_FWD, K_BWD_DATA, K_BWD_W } conv_kind;

static const char *const KIND_NAME[] = {"convolution forward", "convolution backward data",
                                        "convolution backward weights"};

/* The op desc of a conv step: src side a, weights w, bias b (NULL: none), dst side z. */
static dnnl_status_t conv_desc(conv_kind k, dnnl_prop_kind_t prop, const geo *q, const dnnl_memory_desc_t *a,
                               const dnnl_memory_desc_t *w, const dnnl_memory_desc_t *b, const dnnl_memory_desc_t *z,
                               dnnl_convolution_desc_t *cd) {
    const dnnl_alg_kind_t alg = dnnl_convolution_direct;
    switch (k) {
    case K_FWD:
        return dnnl_dilated_convolution_forward_desc_init(cd, prop, alg, a, w, b, z, q->str, q->dil, q->pl, q->pr);
    case K_BWD_DATA:
        return dnnl_dilated_convolution_backward_data_desc_init(cd, alg, a, w, z, q->str, q->dil, q->pl, q->pr);
    default:
        return dnnl_dilated_convolution_backward_weights_desc_init(cd, alg, a, w, b, z, q->str, q->dil, q->pl, q->pr);
    }
}

/* The primitive desc of a conv step with weights descriptor w (a backward one with its forward hint). */
static jv_status conv_pd(const jv_cpu_dnnl *x, const plan_ctx *c, conv_kind k, const geo *q,
                         const dnnl_memory_desc_t *a, const dnnl_memory_desc_t *w, const dnnl_memory_desc_t *b,
                         const dnnl_memory_desc_t *z, dnnl_primitive_desc_t *pd, jv_err *err) {
    dnnl_convolution_desc_t cd, hd;
    *pd = NULL;
    JV_CHECK(desc_ok(conv_desc(k, dnnl_forward_inference, q, a, w, b, z, &cd), c->what, KIND_NAME[k], err));
    if (k == K_FWD) return pd_create(x, c, &cd, NULL, KIND_NAME[k], pd, err);
    dnnl_primitive_desc_t hint = NULL;
    JV_CHECK(desc_ok(conv_desc(K_FWD, dnnl_forward_training, q, a, w, b, z, &hd), c->what, "forward hint", err));
    JV_CHECK(pd_create(x, c, &hd, NULL, "convolution forward (hint)", &hint, err));
    jv_status st = pd_create(x, c, &cd, hint, KIND_NAME[k], pd, err);
    dnnl_primitive_desc_destroy(hint);
    return st;
}

/* Adds a reorder step src -> dst (operand index or -1: the plan's memory m). */
static jv_status add_reorder(const jv_cpu_dnnl *x, jv_cpu_conv *p, const dnnl_memory_desc_t *smd, int sop,
                             const dnnl_memory_desc_t *dmd, int dop, dnnl_memory_t m, jv_err *err) {
    dnnl_primitive_desc_t pd = NULL;
    JV_DNNL_CALL(err, p->name, dnnl_reorder_primitive_desc_create(&pd, smd, x->eng, dmd, x->eng, NULL));
    int arg[2] = {DNNL_ARG_FROM, DNNL_ARG_TO}, op[2] = {sop, dop};
    const dnnl_memory_desc_t *md[2] = {smd, dmd};
    const dnnl_memory_t tmp[2] = {m, m};
    return add_step(x, p, pd, 2, arg, op, md, tmp, err);
}

/* 1 when md is a plain row-major (NCHW / NCDHW) activation of 4 or 5 dims */
static int plain_nchw(const dnnl_memory_desc_t *md) {
    if (md->ndims != 4 && md->ndims != 5) return 0;
    dnnl_memory_desc_t t;
    return dnnl_memory_desc_init_by_tag(&t, md->ndims, md->dims, md->data_type,
                                        md->ndims == 4 ? dnnl_abcd : dnnl_abcde) == dnnl_success &&
           dnnl_memory_desc_equal(&t, md);
}

/* A plan memory of oneDNN's layout md (allocated by oneDNN): its index in p->tmp. */
static jv_status add_tmp(const jv_cpu_dnnl *x, jv_cpu_conv *p, const dnnl_memory_desc_t *md, int *ti, jv_err *err) {
    if (p->ntmp >= STEPS_MAX) JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: %s: too many plan memories", p->name);
    dnnl_status_t s = dnnl_memory_create(&p->tmp[p->ntmp], md, x->eng, DNNL_MEMORY_ALLOCATE);
    if (s != dnnl_success)
        JV_FAIL(err, s == dnnl_out_of_memory ? JV_ERR_NOMEM : JV_ERR_INTERNAL, "cpu backend: %s: oneDNN memory: %s",
                p->name, jv_cpu_dnnl_status_str(s));
    *ti = p->ntmp++;
    return JV_OK;
}

/* One convolution step over operands ia (src side), iw (weights), ib (bias, -1: none), iz (dst side).
 * Where oneDNN's choice of layouts pays, as PyTorch's CPU path (ideep) lets it choose, the step runs on
 * oneDNN's layouts with reorders from and to the traced ones, inside the timed run as in PyTorch:
 *  - a step over plain NCHW activations (forward, data or weights gradient): activations and weights in
 *    the layouts oneDNN picks (its NCHW kernels are im2col + GEMM; PyTorch reorders into blocked layouts),
 *    when that is not oneDNN's reference implementation;
 *  - otherwise the traced layouts, except that when oneDNN then has only its reference implementation
 *    (PyTorch's channels_last [O, kh, kw, I] weights, which its fast kernels do not take), the weights' format
 *    is left to oneDNN and a reorder moves the (small) weights between the traced layout and oneDNN's. */
static jv_status conv_step(const jv_cpu_dnnl *x, jv_cpu_conv *p, const plan_ctx *c, conv_kind k, const geo *q,
                           const dnnl_memory_desc_t *md, int ia, int iw, int ib, int iz, jv_err *err) {
    const dnnl_memory_desc_t *b = ib >= 0 ? &md[ib] : NULL;
    dnnl_primitive_desc_t pd = NULL, pd2 = NULL;
    int free_a = 0; /* 1: src and dst in oneDNN's layouts too */
    JV_CHECK(conv_pd(x, c, k, q, &md[ia], &md[iw], b, &md[iz], &pd, err));
    dnnl_memory_desc_t any_a, any_w, any_z;
    jv_err e2;
    jv_err_clear(&e2);
    const int w_any = dnnl_memory_desc_init_by_tag(&any_w, md[iw].ndims, md[iw].dims, md[iw].data_type,
                                                   dnnl_format_tag_any) == dnnl_success;
    if (w_any && plain_nchw(&md[ia]) && plain_nchw(&md[iz]) &&
        dnnl_memory_desc_init_by_tag(&any_a, md[ia].ndims, md[ia].dims, md[ia].data_type, dnnl_format_tag_any) ==
            dnnl_success &&
        dnnl_memory_desc_init_by_tag(&any_z, md[iz].ndims, md[iz].dims, md[iz].data_type, dnnl_format_tag_any) ==
            dnnl_success &&
        conv_pd(x, c, k, q, &any_a, &any_w, b, &any_z, &pd2, &e2) == JV_OK) {
        if (jv_cpu_dnnl_is_ref(pd2)) {
            dnnl_primitive_desc_destroy(pd2);
            pd2 = NULL;
        } else {
            free_a = 1;
        }
    }
    if (!pd2 && jv_cpu_dnnl_is_ref(pd) && w_any &&
        conv_pd(x, c, k, q, &md[ia], &any_w, b, &md[iz], &pd2, &e2) == JV_OK && jv_cpu_dnnl_is_ref(pd2)) {
        dnnl_primitive_desc_destroy(pd2);
        pd2 = NULL;
    }
    /* the step's memories: the operand (ti -1) or a plan memory of oneDNN's layout (p->tmp[ti]) */
    const int which[3] = {ia, iw, iz};
    dnnl_memory_desc_t lmd[3] = {md[ia], md[iw], md[iz]};
    int ti[3] = {-1, -1, -1};
    if (pd2) {
        dnnl_primitive_desc_destroy(pd);
        pd = pd2;
        const dnnl_query_t qa = k == K_BWD_DATA ? dnnl_query_diff_src_md : dnnl_query_src_md;
        const dnnl_query_t qw = k == K_BWD_W ? dnnl_query_diff_weights_md : dnnl_query_weights_md;
        const dnnl_query_t qz = k == K_FWD ? dnnl_query_dst_md : dnnl_query_diff_dst_md;
        const dnnl_query_t qs[3] = {qa, qw, qz};
        for (int i = 0; i < 3; i++) {
            if (i != 1 && !free_a) continue;
            lmd[i] = *dnnl_primitive_desc_query_md(pd, qs[i], 0);
            if (dnnl_memory_desc_equal(&lmd[i], &md[which[i]])) continue;
            jv_status st = add_tmp(x, p, &lmd[i], &ti[i], err);
            if (st != JV_OK) {
                dnnl_primitive_desc_destroy(pd);
                return st;
            }
        }
    }
    /* reorders in: the step's inputs (src and weights forward; weights for the data gradient; src for the
     * weights gradient) */
    const int input[3] = {k != K_BWD_DATA, k != K_BWD_W, k != K_FWD};
    for (int i = 0; i < 3; i++) {
        if (ti[i] < 0 || !input[i]) continue;
        jv_status st = add_reorder(x, p, &md[which[i]], which[i], &lmd[i], -1, p->tmp[ti[i]], err);
        if (st != JV_OK) {
            dnnl_primitive_desc_destroy(pd);
            return st;
        }
    }
    int arg[4], op[4] = {ti[0] >= 0 ? -1 : ia, ti[1] >= 0 ? -1 : iw, ti[2] >= 0 ? -1 : iz, ib};
    const dnnl_memory_desc_t *m[4] = {&lmd[0], &lmd[1], &lmd[2], b};
    const dnnl_memory_t tmp[4] = {ti[0] >= 0 ? p->tmp[ti[0]] : NULL, ti[1] >= 0 ? p->tmp[ti[1]] : NULL,
                                  ti[2] >= 0 ? p->tmp[ti[2]] : NULL, NULL};
    switch (k) {
    case K_FWD: arg[0] = DNNL_ARG_SRC, arg[1] = DNNL_ARG_WEIGHTS, arg[2] = DNNL_ARG_DST, arg[3] = DNNL_ARG_BIAS; break;
    case K_BWD_DATA: arg[0] = DNNL_ARG_DIFF_SRC, arg[1] = DNNL_ARG_WEIGHTS, arg[2] = DNNL_ARG_DIFF_DST; break;
    default:
        arg[0] = DNNL_ARG_SRC, arg[1] = DNNL_ARG_DIFF_WEIGHTS, arg[2] = DNNL_ARG_DIFF_DST, arg[3] = DNNL_ARG_DIFF_BIAS;
    }
    JV_CHECK(add_step(x, p, pd, b ? 4 : 3, arg, op, m, tmp, err));
    /* reorders out: the step's outputs back into the traced layouts */
    for (int i = 0; i < 3; i++)
        if (ti[i] >= 0 && !input[i])
            JV_CHECK(add_reorder(x, p, &lmd[i], -1, &md[which[i]], which[i], p->tmp[ti[i]], err));
    return JV_OK;
}

static jv_status plan_body(const jv_cpu_dnnl *x, const jv_conv_desc *g, const jv_operands *ops, jv_cpu_conv *p,
                           plan_ctx *c, jv_err *err) {
    const char *what = p->name;
    if (g->nd < 1 || g->nd > JV_CONV_MAX_SPATIAL)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: %d spatial dims", what, g->nd);
    if (g->groups < 1) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: groups %lld", what, (long long)g->groups);
    dnnl_data_type_t dt;
    if (!jv_cpu_dnnl_type(g->dtype, &dt))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: unsupported dtype %s on this CPU", what,
                jv_dtype_short(g->dtype));
    int nr = g->nd + 2;
    for (int i = 0; i < ops->n; i++) {
        const jv_tensor *t = &ops->o[i].t;
        int want = t->ndim == 1 ? 1 : nr;
        if (t->ndim != want || (t->ndim == 1 && strcmp(ops->o[i].name, "bias") && strcmp(ops->o[i].name, "grad_bias")))
            JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: operand '%s' has %d dims, expected %d", what,
                    ops->o[i].name, t->ndim, nr);
        if (jv_tensor_numel(t) == 0)
            JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: operand '%s' is empty", what, ops->o[i].name);
    }
    /* geometry: oneDNN's dilation is PyTorch's minus one; the right padding is the left one, but for
     * padding='same' with an odd extent d*(k-1) (PyTorch pads one more on the right) */
    geo q;
    for (int i = 0; i < g->nd; i++) {
        int64_t ext = g->dilation[i] * (g->w.shape[2 + i] - 1);
        q.str[i] = g->stride[i], q.dil[i] = g->dilation[i] - 1, q.pl[i] = g->padding[i], q.pr[i] = g->padding[i];
        if (g->pad_mode == JV_CONV_PAD_VALID) q.pl[i] = q.pr[i] = 0;
        if (g->pad_mode == JV_CONV_PAD_SAME) q.pr[i] = ext - q.pl[i];
    }
    int ix = jv_operands_find(ops, "input"), iw = jv_operands_find(ops, "weight"), ib = jv_operands_find(ops, "bias"),
        io = jv_operands_find(ops, "out");
    int igo = jv_operands_find(ops, "grad_output"), igi = jv_operands_find(ops, "grad_input"),
        igw = jv_operands_find(ops, "grad_weight");
    int igb = jv_operands_find(ops, "grad_bias");
    if (ix < 0 || iw < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: operands missing", what);
    dnnl_memory_desc_t md[JV_MAX_OPERANDS];
    for (int i = 0; i < ops->n; i++) {
        int wt = !strcmp(ops->o[i].name, "weight") || !strcmp(ops->o[i].name, "grad_weight");
        JV_CHECK(md_of(&ops->o[i].t, wt ? g->groups : 1, &md[i], what, err));
    }
    int chan_bias = -1, chan_src = -1; /* a [C] bias added to (or reduced from) operand chan_src */
    if (g->op != JV_CONV_BACKWARD) {
        if (io < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: operands missing", what);
        if (!g->transposed) {
            JV_CHECK(conv_step(x, p, c, K_FWD, &q, md, ix, iw, ib, io, err));
        } else {
            /* the data gradient of the normal conv from out to input; its bias added after */
            JV_CHECK(conv_step(x, p, c, K_BWD_DATA, &q, md, io, iw, -1, ix, err));
            chan_bias = ib, chan_src = io;
        }
    } else {
        if (igo < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: operands missing", what);
        int a = g->transposed ? igo : ix, b = g->transposed ? ix : igo;
        int fuse_bias = !g->transposed && igb >= 0 && igw >= 0;
        if (igi >= 0) {
            if (!g->transposed)
                JV_CHECK(conv_step(x, p, c, K_BWD_DATA, &q, md, igi, iw, -1, igo, err));
            else
                JV_CHECK(conv_step(x, p, c, K_FWD, &q, md, igo, iw, -1, igi, err));
        }
        if (igw >= 0) JV_CHECK(conv_step(x, p, c, K_BWD_W, &q, md, a, igw, fuse_bias ? igb : -1, b, err));
        if (igb >= 0 && !fuse_bias) chan_bias = igb, chan_src = igo;
    }
    if (chan_bias < 0) return JV_OK;
    dnnl_memory_desc_t bm;
    dnnl_primitive_desc_t pd = NULL;
    JV_CHECK(md_chan(&ops->o[chan_bias].t, nr, &bm, what, err));
    if (g->op != JV_CONV_BACKWARD) {
        /* out += bias, broadcast over [1, C, 1...], in place */
        dnnl_binary_desc_t bd;
        JV_DNNL_CALL(err, what, dnnl_binary_desc_init(&bd, dnnl_binary_add, &md[chan_src], &bm, &md[chan_src]));
        JV_CHECK(pd_create(x, c, &bd, NULL, "binary add (bias)", &pd, err));
        int arg[3] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST}, op[3] = {chan_src, chan_bias, chan_src};
        const dnnl_memory_desc_t *m[3] = {&md[chan_src], &bm, &md[chan_src]};
        return add_step(x, p, pd, 3, arg, op, m, NULL, err);
    }
    /* grad_bias = grad_output summed over all but the channel dim */
    dnnl_reduction_desc_t rd;
    JV_DNNL_CALL(err, what, dnnl_reduction_desc_init(&rd, dnnl_reduction_sum, &md[chan_src], &bm, 0.f, 0.f));
    JV_CHECK(pd_create(x, c, &rd, NULL, "reduction (bias gradient)", &pd, err));
    int arg[2] = {DNNL_ARG_SRC, DNNL_ARG_DST}, op[2] = {chan_src, chan_bias};
    const dnnl_memory_desc_t *m[2] = {&md[chan_src], &bm};
    return add_step(x, p, pd, 2, arg, op, m, NULL, err);
}

jv_status jv_cpu_conv_plan(const jv_cpu_dnnl *x, const jv_desc *d, const jv_operands *ops, jv_cpu_conv **out,
                           jv_err *err) {
    const jv_conv_desc *g = jv_conv_of(d);
    *out = NULL;
    jv_cpu_conv *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "cpu backend: conv plan: out of memory");
    p->name = g->op == JV_CONV_BACKWARD ? "aten::convolution_backward"
              : g->transposed           ? "transposed convolution"
                                        : "aten::convolution";
    plan_ctx c = {p->name, g->dtype, NULL};
    jv_status st = JV_OK;
    dnnl_status_t s = dnnl_primitive_attr_create(&c.attr);
    if (s != dnnl_success) {
        c.attr = NULL;
        st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__, "cpu backend: %s: oneDNN attr: %s", p->name,
                        jv_cpu_dnnl_status_str(s));
    }
    if (st == JV_OK &&
        ((s = dnnl_primitive_attr_set_scratchpad_mode(c.attr, dnnl_scratchpad_mode_library)) != dnnl_success ||
         (s = dnnl_primitive_attr_set_fpmath_mode(c.attr, dnnl_fpmath_mode_strict)) != dnnl_success))
        st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__, "cpu backend: %s: oneDNN attr: %s", p->name,
                        jv_cpu_dnnl_status_str(s));
    if (st == JV_OK) st = plan_body(x, g, ops, p, &c, err);
    if (c.attr) dnnl_primitive_attr_destroy(c.attr);
    if (st != JV_OK) {
        jv_cpu_conv_free(p);
        return st;
    }
    *out = p;
    return JV_OK;
}

/* The plan's memories take this run's buffers: one run of a plan at a time. */
jv_status jv_cpu_conv_run(const jv_cpu_dnnl *x, const jv_cpu_conv *p, void *const *bufs, jv_err *err) {
    return jv_cpu_dnnl_exec(x, p->s, p->nsteps, bufs, p->name, err);
}
#endif

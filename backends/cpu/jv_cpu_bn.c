/* jv_cpu_bn: the batch-norm family on oneDNN batch normalization (see jv_cpu_dnnl.h).
 *   training forward: forward_training with the batch statistics; oneDNN's mean (into save_mean when that is
 *                     fp32, else a plan buffer) and biased variance (a plan buffer) then give, in a loop over the
 *                     channels, save_invstd = 1/sqrt(var + eps) and PyTorch's running update
 *                     r = (1 - m) r + m s (the unbiased variance var n/(n-1) for running_var);
 *   eval forward:     forward_inference with use_global_stats over running_mean / running_var;
 *   backward:         backward with use_scale | use_shift (the parameter gradients not asked for into plan
 *                     buffers) when a weight is given or grad_weight / grad_bias asked (oneDNN 2.6 has no
 *                     backward_data with a scale), else backward_data; training over save_mean and the variance
 *                     1/save_invstd^2 (a plan buffer per run, with the descriptor's eps 0, so that oneDNN's
 *                     1/sqrt(var + eps) gives back save_invstd without the cancellation of 1/invstd^2 - eps);
 *                     eval with use_global_stats over the running statistics (dx = dy w invstd). A grad_input
 *                     not asked for goes to a plan-owned memory (oneDNN always writes diff_src).
 * Activations are described by their traced dims and strides (NCHW, channels_last, ...). oneDNN takes one
 * layout for src and dst (diff_dst and diff_src): an operand laid out otherwise than the output (a non-dense
 * input, a grad_out whose strides are not grad_input's) is reordered into a plan-owned memory first.
 * Per-channel operands go to oneDNN directly when fp32; other dtypes go through plan-owned fp32 buffers
 * (converted in before, out after the primitive). No weight: scale 1 / shift 0 (plan buffers) where oneDNN
 * needs them (the backward's parameter gradients); the forward without weight or bias omits use_scale /
 * use_shift. Data: fp32 (strict fp32 math), bf16 and fp16 where oneDNN implements them on this CPU (else
 * JV_ERR_NOTFOUND "unsupported dtype"), fp64 never. Scratchpads are oneDNN's own (library mode). A plan's
 * memories and buffers take each run's data: one run of a plan at a time. */
#include "jv_cpu_dnnl.h"

#ifdef JV_HAVE_DNNL
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "batchnorm/batchnorm.h"

#define ARGS_MAX  10
#define STEPS_MAX 3
#define XFER_MAX  6

/* the plan's fp32 per-channel buffers */
enum { S_SCALE, S_SHIFT, S_MEAN, S_VAR, S_DSCALE, S_DSHIFT, NSLOTS };

typedef jv_cpu_dnnl_step step; /* memories over an operand's storage, a plan buffer or a plan memory */
typedef jv_cpu_dnnl_arg step_arg;

/* a per-channel operand converted into (before the primitive) or out of (after
 * it) a plan slot */
typedef struct {
    int op, slot;
} xfer;

typedef enum { M_FWD_TRAIN, M_FWD_EVAL, M_BWD } bn_mode;

struct jv_cpu_bn {
    const char *name;
    bn_mode mode;
    int64_t c, cnt; /* channels; values per channel */
    double eps, momentum;
    float *buf; /* NSLOTS x c */
    int nsteps;
    step s[STEPS_MAX];
    int ntmp;
    dnnl_memory_t tmp[3]; /* reordered activations, an unasked diff_src (allocated
                             by oneDNN) */
    int npre, npost;
    xfer pre[XFER_MAX], post[XFER_MAX];
    int inv_op;                           /* backward training: save_invstd, turned into S_VAR per run */
    int mean_op;                          /* training forward: fp32 save_mean oneDNN writes (else S_MEAN)
                                           */
    int i_sm, i_sv, i_rm, i_rv, i_w, i_b; /* operands (-1: absent) */
    jv_dtype odt[JV_MAX_OPERANDS];        /* the operands' dtypes */
};

void jv_cpu_bn_free(jv_cpu_bn *p) {
    if (!p) return;
    for (int i = 0; i < p->nsteps; i++) {
        if (p->s[i].prim) dnnl_primitive_destroy(p->s[i].prim);
        for (int k = 0; k < p->s[i].nargs; k++)
            if (p->s[i].a[k].own && p->s[i].a[k].mem) dnnl_memory_destroy(p->s[i].a[k].mem);
    }
    for (int i = 0; i < p->ntmp; i++)
        dnnl_memory_destroy(p->tmp[i]);
    free(p->buf);
    free(p);
}

/* Creates the primitive desc of op desc od; unimplemented: NOTFOUND (the dtype
 * named for bf16 / fp16). */
static jv_status pd_create(const jv_cpu_dnnl *x, const char *what, jv_dtype dt, dnnl_primitive_attr_t attr,
                           const void *od, const_dnnl_primitive_desc_t hint, const char *prim,
                           dnnl_primitive_desc_t *pd, jv_err *err) {
    dnnl_status_t s = dnnl_primitive_desc_create(pd, od, attr, x->eng, hint);
    if (s == dnnl_success) return JV_OK;
    *pd = NULL;
    if (s == dnnl_unimplemented && dt != JV_DT_F32)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: unsupported dtype %s on this CPU (oneDNN %s)", what,
                jv_dtype_short(dt), prim);
    if (s == dnnl_unimplemented)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: oneDNN has no %s for these shapes and strides", what, prim);
    JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: %s: oneDNN %s: %s", what, prim, jv_cpu_dnnl_status_str(s));
}

/* One argument of a step: operand op (its handle set per run), or op -1 with
 * mem (a plan memory, not owned) or handle (a plan buffer under a memory the
 * step owns). */
typedef struct {
    int arg, op;
    const dnnl_memory_desc_t *md;
    dnnl_memory_t mem;
    void *handle;
} arg_spec;

/* Makes step p->s[p->nsteps] from pd (consumed) with its args. */
static jv_status add_step(const jv_cpu_dnnl *x, jv_cpu_bn *p, dnnl_primitive_desc_t pd, int nargs, const arg_spec *as,
                          jv_err *err) {
    step *s = &p->s[p->nsteps++];
    JV_CHECK(jv_cpu_dnnl_primitive(pd, &s->prim, p->name, err));
    for (int i = 0; i < nargs; i++) {
        step_arg *a = &s->a[i];
        a->arg = as[i].arg, a->op = as[i].op;
        s->nargs = i + 1;
        if (as[i].op < 0 && as[i].mem) {
            a->mem = as[i].mem;
            continue;
        }
        a->own = 1;
        JV_DNNL_CALL(err, p->name,
                     dnnl_memory_create(&a->mem, as[i].md, x->eng, as[i].op < 0 ? as[i].handle : DNNL_MEMORY_NONE));
    }
    return JV_OK;
}

/* A plan memory of descriptor md (allocated by oneDNN): p->tmp[returned index].
 */
static jv_status add_tmp(const jv_cpu_dnnl *x, jv_cpu_bn *p, const dnnl_memory_desc_t *md, dnnl_memory_t *m,
                         jv_err *err) {
    dnnl_status_t s = dnnl_memory_create(&p->tmp[p->ntmp], md, x->eng, DNNL_MEMORY_ALLOCATE);
    if (s != dnnl_success)
        JV_FAIL(err, s == dnnl_out_of_memory ? JV_ERR_NOMEM : JV_ERR_INTERNAL, "cpu backend: %s: oneDNN memory: %s",
                p->name, jv_cpu_dnnl_status_str(s));
    *m = p->tmp[p->ntmp++];
    return JV_OK;
}

/* Operand op as described by want: itself when its descriptor is want, else a
 * reorder step into a plan memory
 * (*m, set; *m NULL when the operand is used directly). */
static jv_status as_layout(const jv_cpu_dnnl *x, jv_cpu_bn *p, const dnnl_memory_desc_t *have, int op,
                           const dnnl_memory_desc_t *want, dnnl_memory_t *m, jv_err *err) {
    *m = NULL;
    if (dnnl_memory_desc_equal(have, want)) return JV_OK;
    JV_CHECK(add_tmp(x, p, want, m, err));
    dnnl_primitive_desc_t pd = NULL;
    JV_DNNL_CALL(err, p->name, dnnl_reorder_primitive_desc_create(&pd, have, x->eng, want, x->eng, NULL));
    arg_spec as[2] = {{DNNL_ARG_FROM, op, have, NULL, NULL}, {DNNL_ARG_TO, -1, want, *m, NULL}};
    return add_step(x, p, pd, 2, as, err);
}

/* The oneDNN argument of per-channel operand op (-1: absent, the plan's slot as
 * it is): the operand itself when fp32, else slot (converted in when in, out
 * when !in). */
static arg_spec chan_arg(jv_cpu_bn *p, const jv_operands *ops, int arg, int op, int slot, int in,
                         const dnnl_memory_desc_t *cmd) {
    arg_spec a = {arg, -1, cmd, NULL, p->buf + (size_t)slot * (size_t)p->c};
    if (op >= 0 && ops->o[op].t.dtype == JV_DT_F32 && ops->o[op].t.strides[0] == 1) {
        a.op = op;
    } else if (op >= 0) {
        xfer *t = in ? &p->pre[p->npre++] : &p->post[p->npost++];
        t->op = op, t->slot = slot;
    }
    return a;
}

static jv_status plan_body(const jv_cpu_dnnl *x, const jv_batchnorm_desc *g, const jv_operands *ops, jv_cpu_bn *p,
                           dnnl_primitive_attr_t attr, jv_err *err) {
    const char *what = p->name;
    int ix = jv_operands_find(ops, "input"), io = jv_operands_find(ops, "out"), igo = jv_operands_find(ops, "grad_out");
    int igi = jv_operands_find(ops, "grad_input"), igw = jv_operands_find(ops, "grad_weight"),
        igb = jv_operands_find(ops, "grad_bias");
    p->i_w = jv_operands_find(ops, "weight"), p->i_b = jv_operands_find(ops, "bias");
    p->i_rm = jv_operands_find(ops, "running_mean"), p->i_rv = jv_operands_find(ops, "running_var");
    p->i_sm = jv_operands_find(ops, "save_mean"), p->i_sv = jv_operands_find(ops, "save_invstd");
    p->inv_op = p->mean_op = -1;
    for (int i = 0; i < ops->n && i < JV_MAX_OPERANDS; i++)
        p->odt[i] = ops->o[i].t.dtype;
    if (ix < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: no input operand", what);
    const jv_tensor *xt = &ops->o[ix].t;
    dnnl_data_type_t ddt;
    if (!jv_cpu_dnnl_type(xt->dtype, &ddt))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: unsupported dtype %s on this CPU", what,
                jv_dtype_short(xt->dtype));
    if (xt->ndim < 2 || xt->ndim > 5)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: input of %d dims (oneDNN takes 2 to 5)", what, xt->ndim);
    int64_t n = jv_tensor_numel(xt);
    p->c = xt->shape[1];
    if (n <= 0 || p->c <= 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: empty input", what);
    p->cnt = n / p->c;
    p->eps = g->eps, p->momentum = g->momentum;
    for (int i = 0; i < ops->n; i++) {
        const jv_tensor *t = &ops->o[i].t;
        if (t->ndim == 1 && (t->shape[0] != p->c || (p->c > 1 && t->strides[0] != 1) || !jv_dtype_is_numeric(t->dtype)))
            JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: per-channel operand '%s' is not %lld dense numbers", what,
                    ops->o[i].name, (long long)p->c);
    }
    p->buf = calloc((size_t)p->c * NSLOTS, sizeof(float));
    if (!p->buf) JV_FAIL(err, JV_ERR_NOMEM, "cpu backend: %s: out of memory", what);
    for (int64_t k = 0; k < p->c; k++)
        p->buf[S_SCALE * p->c + k] = 1.f; /* scale 1, shift 0 when absent */
    dnnl_memory_desc_t cmd;
    dnnl_dims_t cdim = {p->c};
    JV_DNNL_CALL(err, what, dnnl_memory_desc_init_by_tag(&cmd, 1, cdim, dnnl_f32, dnnl_a));

    dnnl_memory_desc_t xmd;
    JV_CHECK(jv_cpu_dnnl_md(xt, &xmd, what, err));
    dnnl_batch_normalization_desc_t bd;
    dnnl_primitive_desc_t pd = NULL;
    arg_spec as[ARGS_MAX];
    int na = 0;
    dnnl_memory_t m;

    if (!g->bwd) {
        if (io < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: no out operand", what);
        p->mode = g->training ? M_FWD_TRAIN : M_FWD_EVAL;
        if (!g->training && (p->i_rm < 0 || p->i_rv < 0))
            JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: eval without running statistics", what);
        dnnl_memory_desc_t omd;
        JV_CHECK(jv_cpu_dnnl_md(&ops->o[io].t, &omd, what, err));
        unsigned flags = (p->i_w >= 0 ? dnnl_use_scale : 0u) | (p->i_b >= 0 ? dnnl_use_shift : 0u);
        if (!g->training) flags |= dnnl_use_global_stats;
        dnnl_status_t s = dnnl_batch_normalization_forward_desc_init(
            &bd, g->training ? dnnl_forward_training : dnnl_forward_inference, &omd, (float)g->eps, flags);
        if (s != dnnl_success)
            JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: oneDNN batch normalization desc: %s", what,
                    jv_cpu_dnnl_status_str(s));
        JV_CHECK(pd_create(x, what, xt->dtype, attr, &bd, NULL, "batch normalization forward", &pd, err));
        jv_status st = as_layout(x, p, &xmd, ix, &omd, &m, err);
        if (st != JV_OK) {
            dnnl_primitive_desc_destroy(pd);
            return st;
        }
        as[na++] = (arg_spec){DNNL_ARG_SRC, m ? -1 : ix, &omd, m, NULL};
        as[na++] = (arg_spec){DNNL_ARG_DST, io, &omd, NULL, NULL};
        if (p->i_w >= 0) as[na++] = chan_arg(p, ops, DNNL_ARG_SCALE, p->i_w, S_SCALE, 1, &cmd);
        if (p->i_b >= 0) as[na++] = chan_arg(p, ops, DNNL_ARG_SHIFT, p->i_b, S_SHIFT, 1, &cmd);
        if (g->training) {
            /* the mean straight into an fp32 save_mean; the rest by the loop after
             * the primitive */
            int direct = p->i_sm >= 0 && ops->o[p->i_sm].t.dtype == JV_DT_F32;
            as[na++] = (arg_spec){DNNL_ARG_MEAN, direct ? p->i_sm : -1, &cmd, NULL, p->buf + S_MEAN * p->c};
            as[na++] = (arg_spec){DNNL_ARG_VARIANCE, -1, &cmd, NULL, p->buf + S_VAR * p->c};
            if (direct) p->mean_op = p->i_sm;
        } else {
            as[na++] = chan_arg(p, ops, DNNL_ARG_MEAN, p->i_rm, S_MEAN, 1, &cmd);
            as[na++] = chan_arg(p, ops, DNNL_ARG_VARIANCE, p->i_rv, S_VAR, 1, &cmd);
        }
        return add_step(x, p, pd, na, as, err);
    }

    /* backward */
    p->mode = M_BWD;
    if (igo < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: no grad_out operand", what);
    if (igi < 0 && igw < 0 && igb < 0) return JV_OK; /* nothing asked */
    if (g->training && (p->i_sm < 0 || p->i_sv < 0))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: training backward without save_mean / save_invstd", what);
    if (!g->training && (p->i_rm < 0 || p->i_rv < 0))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: eval backward without running statistics", what);
    dnnl_memory_desc_t dmd, gomd; /* diff_src's (and so diff_dst's) layout:
                                     grad_input's, else the input's */
    JV_CHECK(jv_cpu_dnnl_md(&ops->o[igo].t, &gomd, what, err));
    if (igi >= 0)
        JV_CHECK(jv_cpu_dnnl_md(&ops->o[igi].t, &dmd, what, err));
    else
        dmd = xmd;
    if (dmd.data_type != xmd.data_type) /* oneDNN's diff data is at the data's dtype */
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: grad_input's dtype is not the input's", what);
    /* oneDNN 2.6 has no backward_data with a scale: with a weight, the full backward */
    int full = igw >= 0 || igb >= 0 || p->i_w >= 0;
    unsigned flags = full ? dnnl_use_scale | dnnl_use_shift : 0u;
    if (!g->training) flags |= dnnl_use_global_stats;
    /* training: the variance 1/invstd^2 with eps 0 gives back invstd */
    float eps = g->training ? 0.f : (float)g->eps;
    dnnl_batch_normalization_desc_t hd;
    dnnl_status_t s = dnnl_batch_normalization_backward_desc_init(&bd, full ? dnnl_backward : dnnl_backward_data, &dmd,
                                                                  &dmd, eps, flags);
    if (s == dnnl_success)
        s = dnnl_batch_normalization_forward_desc_init(
            &hd, dnnl_forward_training, &dmd, eps, flags & (dnnl_use_scale | dnnl_use_shift | dnnl_use_global_stats));
    if (s != dnnl_success)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: oneDNN batch normalization desc: %s", what,
                jv_cpu_dnnl_status_str(s));
    dnnl_primitive_desc_t hint = NULL;
    JV_CHECK(pd_create(x, what, xt->dtype, attr, &hd, NULL, "batch normalization forward (hint)", &hint, err));
    jv_status st = pd_create(x, what, xt->dtype, attr, &bd, hint, "batch normalization backward", &pd, err);
    dnnl_primitive_desc_destroy(hint);
    JV_CHECK(st);
    dnnl_memory_t mx = NULL, mgo = NULL, mgi = NULL;
    st = as_layout(x, p, &xmd, ix, &dmd, &mx, err);
    if (st == JV_OK) st = as_layout(x, p, &gomd, igo, &dmd, &mgo, err);
    if (st == JV_OK && igi < 0) st = add_tmp(x, p, &dmd, &mgi, err);
    if (st != JV_OK) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    as[na++] = (arg_spec){DNNL_ARG_SRC, mx ? -1 : ix, &dmd, mx, NULL};
    as[na++] = (arg_spec){DNNL_ARG_DIFF_DST, mgo ? -1 : igo, &dmd, mgo, NULL};
    as[na++] = (arg_spec){DNNL_ARG_DIFF_SRC, mgi ? -1 : igi, &dmd, mgi, NULL};
    if (g->training) {
        as[na++] = chan_arg(p, ops, DNNL_ARG_MEAN, p->i_sm, S_MEAN, 1, &cmd);
        as[na++] = (arg_spec){DNNL_ARG_VARIANCE, -1, &cmd, NULL, p->buf + S_VAR * p->c};
        p->inv_op = p->i_sv;
    } else {
        as[na++] = chan_arg(p, ops, DNNL_ARG_MEAN, p->i_rm, S_MEAN, 1, &cmd);
        as[na++] = chan_arg(p, ops, DNNL_ARG_VARIANCE, p->i_rv, S_VAR, 1, &cmd);
    }
    if (flags & dnnl_use_scale) as[na++] = chan_arg(p, ops, DNNL_ARG_SCALE, p->i_w, S_SCALE, 1, &cmd);
    if (full) {
        as[na++] = chan_arg(p, ops, DNNL_ARG_SHIFT, -1, S_SHIFT, 1, &cmd);
        as[na++] = chan_arg(p, ops, DNNL_ARG_DIFF_SCALE, igw, S_DSCALE, 0, &cmd);
        as[na++] = chan_arg(p, ops, DNNL_ARG_DIFF_SHIFT, igb, S_DSHIFT, 0, &cmd);
    }
    return add_step(x, p, pd, na, as, err);
}

jv_status jv_cpu_bn_plan(const jv_cpu_dnnl *x, const jv_desc *d, const jv_operands *ops, jv_cpu_bn **out, jv_err *err) {
    const jv_batchnorm_desc *g = jv_batchnorm_of(d);
    *out = NULL;
    jv_cpu_bn *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "cpu backend: batch norm plan: out of memory");
    p->name = g->bwd ? "batch norm backward" : g->training ? "batch norm (training)" : "batch norm (eval)";
    dnnl_primitive_attr_t attr = NULL;
    jv_status st = JV_OK;
    dnnl_status_t s = dnnl_primitive_attr_create(&attr);
    if (s != dnnl_success) {
        attr = NULL;
        st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__, "cpu backend: %s: oneDNN attr: %s", p->name,
                        jv_cpu_dnnl_status_str(s));
    }
    if (st == JV_OK &&
        ((s = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_library)) != dnnl_success ||
         (s = dnnl_primitive_attr_set_fpmath_mode(attr, dnnl_fpmath_mode_strict)) != dnnl_success))
        st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__, "cpu backend: %s: oneDNN attr: %s", p->name,
                        jv_cpu_dnnl_status_str(s));
    if (st == JV_OK) st = plan_body(x, g, ops, p, attr, err);
    if (attr) dnnl_primitive_attr_destroy(attr);
    if (st != JV_OK) {
        jv_cpu_bn_free(p);
        return st;
    }
    *out = p;
    return JV_OK;
}

/* The plan's memories and buffers take this run's data: one run of a plan at a
 * time. Per-channel operands are [C] with stride 1, as jv_batchnorm_operands
 * lays them out (checked at plan time). */
jv_status jv_cpu_bn_run(const jv_cpu_dnnl *x, const jv_cpu_bn *p, void *const *bufs, jv_err *err) {
    const int64_t c = p->c;
    float *buf = p->buf;
    for (int i = 0; i < p->npre; i++) {
        const xfer *t = &p->pre[i];
        for (int64_t k = 0; k < c; k++)
            buf[t->slot * c + k] = (float)jv_dtype_load(p->odt[t->op], bufs[t->op], k);
    }
    if (p->inv_op >= 0) /* training backward: oneDNN's variance (eps 0) from save_invstd */
        for (int64_t k = 0; k < c; k++) {
            double iv = jv_dtype_load(p->odt[p->inv_op], bufs[p->inv_op], k);
            buf[S_VAR * c + k] = (float)(1.0 / (iv * iv));
        }
    JV_CHECK(jv_cpu_dnnl_exec(x, p->s, p->nsteps, bufs, p->name, err));
    for (int i = 0; i < p->npost; i++) {
        const xfer *t = &p->post[i];
        for (int64_t k = 0; k < c; k++)
            jv_dtype_store(p->odt[t->op], bufs[t->op], k, buf[t->slot * c + k]);
    }
    if (p->mode != M_FWD_TRAIN) return JV_OK;
    /* training forward: save_mean, save_invstd and the running statistics from
     * oneDNN's mean and biased variance */
    const float *mean = p->mean_op >= 0 ? (const float *)bufs[p->mean_op] : buf + S_MEAN * c;
    const double m = p->momentum, unb = p->cnt > 1 ? (double)p->cnt / (double)(p->cnt - 1) : NAN;
    for (int64_t k = 0; k < c; k++) {
        double mu = mean[k], var = buf[S_VAR * c + k];
        if (p->i_sm >= 0 && p->mean_op < 0) jv_dtype_store(p->odt[p->i_sm], bufs[p->i_sm], k, mu);
        if (p->i_sv >= 0) jv_dtype_store(p->odt[p->i_sv], bufs[p->i_sv], k, 1.0 / sqrt(var + p->eps));
        if (p->i_rm >= 0 && p->i_rv >= 0) {
            double rm = jv_dtype_load(p->odt[p->i_rm], bufs[p->i_rm], k);
            double rv = jv_dtype_load(p->odt[p->i_rv], bufs[p->i_rv], k);
            jv_dtype_store(p->odt[p->i_rm], bufs[p->i_rm], k, (1 - m) * rm + m * mu);
            jv_dtype_store(p->odt[p->i_rv], bufs[p->i_rv], k, (1 - m) * rv + m * var * unb);
        }
    }
    return JV_OK;
}
#endif

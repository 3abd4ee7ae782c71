/* jv_cpu_gemm: the GEMM family on oneDNN matmul (see jv_cpu_dnnl.h).
 * Every call is seen as the reference sees it (kernels/gemm/gemm_ref.c): a
 * product over right-aligned, broadcast batch dims, batch x [M, K] @ [K, N],
 * each operand described to oneDNN by its traced shape and strides
 * (dnnl_memory_desc_init_by_strides: transposed and strided views run without
 * a copy; a 1-D operand becomes a [1, K] or [K, 1] matrix, linear's weight
 * [N, K] the transposed view B = W^T). alpha and beta as cuBLASLt gets them
 * (mm, bmm, matmul: 1 and no bias; linear: 1 and 1 with its bias): with
 * alpha = beta = 1 the bias is matmul's bias memory (fused, broadcast by its
 * dims of size 1); otherwise out = beta * ((alpha / beta) * A @ B + bias)
 * through an output scale, a binary-add post-op reading the bias and an
 * eltwise-linear post-op (beta == 0 ignores the bias, as the reference does).
 * fp32 math is strict (no bf16 down-conversion); bf16 and fp16 run where
 * oneDNN implements them on this CPU, accumulating in fp32. The memories are
 * made once per plan, with no buffer; a run points them at the buffers. */
#include "jv_cpu_dnnl.h"

#ifdef JV_HAVE_DNNL
#include <stdlib.h>
#include <string.h>

#include "gemm/gemm.h"

/* The oneDNN arguments of one run: matmul's src, weights, dst, then the bias or the post-op's bias. */
#define GEMM_MAX_ARGS 4

struct jv_cpu_gemm {
    dnnl_primitive_t prim;
    int nargs;
    int arg[GEMM_MAX_ARGS];           /* DNNL_ARG_* */
    int opnd[GEMM_MAX_ARGS];          /* operand index in ops */
    dnnl_memory_t mem[GEMM_MAX_ARGS]; /* made without a buffer */
    const char *name;                 /* op name for messages */
};

/* One operand as oneDNN sees it: nd dims, right-aligned like out's [batch..., M, N]. */
typedef struct {
    dnnl_dims_t dims, strides;
} gemm_md;

/* Gives the dims of size 1 (whose strides are never used) the stride a dense layout would give them, so that
 * oneDNN recognizes a plain layout: the span of the dims inside them. */
static void tidy_unit_dims(int nd, gemm_md *m) {
    for (int i = 0; i < nd; i++) {
        if (m->dims[i] != 1) continue;
        int64_t span = 1;
        for (int j = i + 1; j < nd; j++)
            if (m->dims[j] > 1 && m->strides[j] * m->dims[j] > span) span = m->strides[j] * m->dims[j];
        m->strides[i] = span;
    }
}

void jv_cpu_gemm_free(jv_cpu_gemm *p) {
    if (!p) return;
    for (int i = 0; i < p->nargs; i++)
        if (p->mem[i]) dnnl_memory_destroy(p->mem[i]);
    if (p->prim) dnnl_primitive_destroy(p->prim);
    free(p);
}

/* How the bias reaches out. */
typedef enum { BIAS_NONE = 0, BIAS_MEMORY, BIAS_POSTOP } bias_mode;

/* Makes the primitive descriptor of the product with the bias reaching out by mode; oneDNN's status. */
static dnnl_status_t make_pd(const jv_cpu_dnnl *x, const dnnl_memory_desc_t *a, const dnnl_memory_desc_t *b,
                             const dnnl_memory_desc_t *c, const dnnl_memory_desc_t *o, bias_mode mode, double alpha,
                             double beta, dnnl_primitive_desc_t *pd) {
    dnnl_matmul_desc_t md;
    dnnl_status_t s = dnnl_matmul_desc_init(&md, a, b, mode == BIAS_MEMORY ? c : NULL, o);
    if (s != dnnl_success) return s;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    s = dnnl_primitive_attr_create(&attr);
    if (s == dnnl_success) s = dnnl_primitive_attr_set_fpmath_mode(attr, dnnl_fpmath_mode_strict);
    if (s == dnnl_success) s = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_library);
    float scale = (float)(mode == BIAS_POSTOP ? alpha / beta : alpha);
    if (s == dnnl_success && scale != 1.0f) s = dnnl_primitive_attr_set_output_scales(attr, 1, 0, &scale);
    if (s == dnnl_success && mode == BIAS_POSTOP) {
        s = dnnl_post_ops_create(&po);
        if (s == dnnl_success) s = dnnl_post_ops_append_binary(po, dnnl_binary_add, c);
        if (s == dnnl_success && beta != 1)
            s = dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_linear, (float)beta, 0.0f);
        if (s == dnnl_success) s = dnnl_primitive_attr_set_post_ops(attr, po);
    }
    if (s == dnnl_success) s = dnnl_primitive_desc_create(pd, &md, attr, x->eng, NULL);
    if (po) dnnl_post_ops_destroy(po);
    if (attr) dnnl_primitive_attr_destroy(attr);
    return s;
}

jv_status jv_cpu_gemm_plan(const jv_cpu_dnnl *x, const jv_desc *d, const jv_operands *ops, jv_cpu_gemm **out,
                           jv_err *err) {
    const jv_gemm_desc *g = jv_gemm_of(d);
    *out = NULL;
    jv_gemm_roles ro;
    jv_err re = {0};
    if (jv_gemm_roles_of(d, ops, &ro, &re) != JV_OK) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s", re.msg);
    const char *name = ro.name;
    int ia = ro.a, ib = ro.b, io = ro.out, ic = ro.c;
    const jv_tensor *ta = &ops->o[ia].t, *tb = &ops->o[ib].t, *to = &ops->o[io].t;
    const jv_tensor *tc = ic >= 0 ? &ops->o[ic].t : NULL;

    /* dtypes: oneDNN has fp32, bf16 and fp16 matmuls (the last two where the CPU has them) */
    const jv_dtype dts[4] = {ta->dtype, tb->dtype, to->dtype, tc ? tc->dtype : ta->dtype};
    dnnl_data_type_t dt[4];
    for (int i = 0; i < 4; i++)
        if (!jv_cpu_dnnl_type(dts[i], &dt[i]))
            JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: unsupported dtype %s on this CPU", name,
                    jv_dtype_short(dts[i]));
    if (dts[0] != dts[1] || dts[0] != dts[2])
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: no oneDNN matmul for dtypes %s x %s -> %s", name,
                jv_dtype_short(dts[0]), jv_dtype_short(dts[1]), jv_dtype_short(dts[2]));

    /* the product's dims: batch dims (right-aligned, broadcast), then M, K, N */
    int lin = g->op == JV_GEMM_LINEAR, na_ = ta->ndim, nb_ = tb->ndim;
    if (na_ < 1 || nb_ < 1) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: a 0-d operand", name);
    int a_vec = na_ == 1, b_vec = !lin && nb_ == 1;
    int nab = a_vec ? 0 : na_ - 2, nbb = lin || b_vec ? 0 : nb_ - 2;
    int nbd = nab > nbb ? nab : nbb, nd = nbd + 2;
    if (nd > DNNL_MAX_NDIMS)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: %d dims exceed oneDNN's %d", name, nd, DNNL_MAX_NDIMS);
    gemm_md ma, mb, mo, mc;
    memset(&ma, 0, sizeof ma), memset(&mb, 0, sizeof mb), memset(&mo, 0, sizeof mo), memset(&mc, 0, sizeof mc);
    int64_t m, k, n, kb;
    /* A: [..., M, K] */
    if (a_vec) {
        m = 1, k = ta->shape[0];
        ma.strides[nd - 1] = ta->strides[0];
    } else {
        m = ta->shape[na_ - 2], k = ta->shape[na_ - 1];
        ma.strides[nd - 2] = ta->strides[na_ - 2], ma.strides[nd - 1] = ta->strides[na_ - 1];
    }
    ma.dims[nd - 2] = m, ma.dims[nd - 1] = k;
    /* B: [..., K, N]; linear's weight [N, K] read transposed */
    if (lin) {
        if (nb_ != 2) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: the weight is not 2-D", name);
        n = tb->shape[0], kb = tb->shape[1];
        mb.strides[nd - 2] = tb->strides[1], mb.strides[nd - 1] = tb->strides[0];
    } else if (b_vec) {
        kb = tb->shape[0], n = 1;
        mb.strides[nd - 2] = tb->strides[0];
    } else {
        kb = tb->shape[nb_ - 2], n = tb->shape[nb_ - 1];
        mb.strides[nd - 2] = tb->strides[nb_ - 2], mb.strides[nd - 1] = tb->strides[nb_ - 1];
    }
    mb.dims[nd - 2] = kb, mb.dims[nd - 1] = n;
    if (kb != k)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: inner dimensions differ (%lld vs %lld)", name, (long long)k,
                (long long)kb);
    int64_t nbatch = 1;
    for (int e = 0; e < nbd; e++) {
        int i_a = e - (nbd - nab), i_b = e - (nbd - nbb);
        int64_t da = i_a >= 0 ? ta->shape[i_a] : 1, db = i_b >= 0 ? tb->shape[i_b] : 1;
        if (da != db && da != 1 && db != 1)
            JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: batch dimensions do not broadcast", name);
        ma.dims[e] = da, ma.strides[e] = i_a >= 0 ? ta->strides[i_a] : 0;
        mb.dims[e] = db, mb.strides[e] = i_b >= 0 ? tb->strides[i_b] : 0;
        mo.dims[e] = da > db ? da : db;
        if (da == 0 || db == 0) mo.dims[e] = 0;
        nbatch *= mo.dims[e];
    }
    mo.dims[nd - 2] = m, mo.dims[nd - 1] = n;
    if (m == 0 || n == 0 || k == 0 || nbatch == 0)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: an empty GEMM (batch %lld M %lld N %lld K %lld)", name,
                (long long)nbatch, (long long)m, (long long)n, (long long)k);
    /* out: the batch dims, then M unless A is a vector, then N unless B is one */
    int role[DNNL_MAX_NDIMS]; /* dim of out -> dim of the nd-dim product */
    int no = 0;
    for (int e = 0; e < nbd; e++)
        role[no++] = e;
    if (!a_vec) role[no++] = nd - 2;
    if (!b_vec) role[no++] = nd - 1;
    if (to->ndim != no)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: out has %d dims, the product %d", name, to->ndim, no);
    for (int e = 0; e < no; e++) {
        if (to->shape[e] != mo.dims[role[e]])
            JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: out does not have the product's shape", name);
        mo.strides[role[e]] = to->strides[e];
    }
    /* bias: right-aligned on out's dims, size 1 where it broadcasts */
    double alpha = g->alpha, beta = g->beta;
    if (g->op == JV_GEMM_MM || g->op == JV_GEMM_BMM || g->op == JV_GEMM_MATMUL || lin) alpha = 1, beta = 1;
    bias_mode mode = tc && beta != 0 ? BIAS_MEMORY : BIAS_NONE;
    if (mode != BIAS_NONE) {
        if (tc->ndim > no) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: the bias has more dims than out", name);
        for (int e = 0; e < nd; e++)
            mc.dims[e] = 1;
        for (int e = no - tc->ndim; e < no; e++) {
            int i = e - (no - tc->ndim);
            if (tc->shape[i] != 1 && tc->shape[i] != to->shape[e])
                JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: the bias does not broadcast to out", name);
            mc.dims[role[e]] = tc->shape[i];
            mc.strides[role[e]] = tc->strides[i];
        }
        if (alpha != 1 || beta != 1) mode = BIAS_POSTOP;
    }
    tidy_unit_dims(nd, &ma), tidy_unit_dims(nd, &mb), tidy_unit_dims(nd, &mo), tidy_unit_dims(nd, &mc);

    dnnl_memory_desc_t da, db, dout, dc;
    JV_DNNL_CALL(err, name, dnnl_memory_desc_init_by_strides(&da, nd, ma.dims, dt[0], ma.strides));
    JV_DNNL_CALL(err, name, dnnl_memory_desc_init_by_strides(&db, nd, mb.dims, dt[1], mb.strides));
    JV_DNNL_CALL(err, name, dnnl_memory_desc_init_by_strides(&dout, nd, mo.dims, dt[2], mo.strides));
    if (mode != BIAS_NONE)
        JV_DNNL_CALL(err, name, dnnl_memory_desc_init_by_strides(&dc, nd, mc.dims, dt[3], mc.strides));
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t s = make_pd(x, &da, &db, &dc, &dout, mode, alpha, beta, &pd);
    if (s == dnnl_unimplemented && mode == BIAS_MEMORY) { /* a bias oneDNN does not fuse: the post-op */
        mode = BIAS_POSTOP;
        s = make_pd(x, &da, &db, &dc, &dout, mode, alpha, beta, &pd);
    } else if (s == dnnl_success && mode == BIAS_MEMORY && jv_cpu_dnnl_is_ref(pd)) {
        /* a bias only the reference matmul takes (one per row, say): the post-op, when a fast kernel takes it */
        dnnl_primitive_desc_t pd2 = NULL;
        if (make_pd(x, &da, &db, &dc, &dout, BIAS_POSTOP, alpha, beta, &pd2) == dnnl_success) {
            if (!jv_cpu_dnnl_is_ref(pd2)) {
                dnnl_primitive_desc_destroy(pd);
                pd = pd2, mode = BIAS_POSTOP;
            } else {
                dnnl_primitive_desc_destroy(pd2);
            }
        }
    }
    if (s == dnnl_unimplemented && dts[0] != JV_DT_F32)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: unsupported dtype %s on this CPU (oneDNN has no matmul for it)",
                name, jv_dtype_short(dts[0]));
    if (s == dnnl_unimplemented)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: oneDNN has no matmul for batch %lld M %lld N %lld K %lld (%s)",
                name, (long long)nbatch, (long long)m, (long long)n, (long long)k, jv_dtype_short(dts[0]));
    if (s != dnnl_success)
        JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: %s: oneDNN matmul primitive descriptor: %s", name,
                jv_cpu_dnnl_status_str(s));

    jv_cpu_gemm *p = calloc(1, sizeof *p);
    if (!p) {
        dnnl_primitive_desc_destroy(pd);
        JV_FAIL(err, JV_ERR_NOMEM, "cpu backend: %s: out of memory", name);
    }
    p->name = name;
    jv_status st = jv_cpu_dnnl_primitive(pd, &p->prim, name, err);
    if (st != JV_OK) goto fail;
    const struct {
        int arg, opnd;
        const dnnl_memory_desc_t *md;
    } args[GEMM_MAX_ARGS] = {
        {DNNL_ARG_SRC, ia, &da},
        {DNNL_ARG_WEIGHTS, ib, &db},
        {DNNL_ARG_DST, io, &dout},
        {mode == BIAS_MEMORY ? DNNL_ARG_BIAS : DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, ic, &dc},
    };
    int nargs = mode == BIAS_NONE ? 3 : 4;
    for (int i = 0; i < nargs; i++) {
        s = dnnl_memory_create(&p->mem[i], args[i].md, x->eng, DNNL_MEMORY_NONE);
        if (s != dnnl_success) {
            st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__, "cpu backend: %s: oneDNN memory: %s", name,
                            jv_cpu_dnnl_status_str(s));
            goto fail;
        }
        p->arg[i] = args[i].arg, p->opnd[i] = args[i].opnd;
        p->nargs = i + 1;
    }
    *out = p;
    return JV_OK;
fail:
    jv_cpu_gemm_free(p);
    return st;
}

jv_status jv_cpu_gemm_run(const jv_cpu_dnnl *x, const jv_cpu_gemm *p, void *const *bufs, jv_err *err) {
    dnnl_exec_arg_t a[GEMM_MAX_ARGS];
    for (int i = 0; i < p->nargs; i++) {
        JV_DNNL_CALL(err, p->name, dnnl_memory_set_data_handle(p->mem[i], bufs[p->opnd[i]]));
        a[i].arg = p->arg[i];
        a[i].memory = p->mem[i];
    }
    JV_DNNL_CALL(err, p->name, dnnl_primitive_execute(p->prim, x->stream, p->nargs, a));
    JV_DNNL_CALL(err, p->name, dnnl_stream_wait(x->stream));
    return JV_OK;
}
#endif

/* gemm_ref: the GEMM family's replay operands and CPU reference.
 * Every call is seen as a batched product over broadcast batch dims:
 * out[b, i, j] = beta * bias[b, i, j] + alpha * sum_k A[b, i, k] * B[b, k, j],
 * each operand addressed through its own strides (0 on a broadcast dim).
 * Napkin math: a full 512^3 product is 2.7e8 flops over gathered double rows
 * (2x2 register tiles: measured 0.065 s, about 4 GFLOP/s, on one Xeon core at
 * -O3); a sampled check reads 2*K elements per sampled output, in k blocks so
 * that rows and columns are streamed rather than fetched one cache line per
 * element (4096 samples of an 8192^3 fp32 product: about 0.19 s). */
#include <stdlib.h>
#include <string.h>

#include "gemm.h"

/* A product seen as batch dims x [M, K] @ [K, N]; strides in elements. */
typedef struct {
    int nbd; /* batch dims of out */
    int64_t bshape[JV_MAX_DIMS];
    int64_t nbatch;
    int64_t m, n, k;
    int64_t sa_b[JV_MAX_DIMS], sa_m, sa_k;
    int64_t sb_b[JV_MAX_DIMS], sb_k, sb_n;
    int has_bias;
    int64_t sc_b[JV_MAX_DIMS], sc_m, sc_n;
    int64_t so_b[JV_MAX_DIMS], so_m, so_n;
    jv_tensor out; /* shape of out (contiguous strides unless given) */
} gemm_plan;

/* Operand names of one op: A, B, bias ("" when the op has none). */
typedef struct {
    const char *a, *b, *bias;
} gemm_names;

static gemm_names names_of(jv_gemm_op op) {
    switch (op) {
    case JV_GEMM_MM: return (gemm_names){"self", "mat2", ""};
    case JV_GEMM_ADDMM: return (gemm_names){"mat1", "mat2", "self"};
    case JV_GEMM_BMM: return (gemm_names){"self", "mat2", ""};
    case JV_GEMM_BADDBMM: return (gemm_names){"batch1", "batch2", "self"};
    case JV_GEMM_LINEAR: return (gemm_names){"input", "weight", "bias"};
    case JV_GEMM_MATMUL: return (gemm_names){"self", "other", ""};
    default: return (gemm_names){"", "", ""};
    }
}

static const char *op_name(jv_gemm_op op) {
    switch (op) {
    case JV_GEMM_MM: return "aten::mm";
    case JV_GEMM_ADDMM: return "aten::addmm";
    case JV_GEMM_BMM: return "aten::bmm";
    case JV_GEMM_BADDBMM: return "aten::baddbmm";
    case JV_GEMM_SCALED_MM: return "aten::_scaled_mm";
    case JV_GEMM_LINEAR: return "aten::linear";
    case JV_GEMM_MATMUL: return "aten::matmul";
    }
    return "gemm";
}

static int float_storage(jv_dtype t) {
    return t == JV_DT_F64 || t == JV_DT_F32 || t == JV_DT_F16 || t == JV_DT_BF16;
}

static jv_status check_dtype(jv_gemm_op op, const char *what, jv_dtype t, jv_err *err) {
    if (!float_storage(t))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: %s has dtype '%s'; the GEMM replay supports fp64, fp32, fp16 and bf16",
                op_name(op), what, t == JV_DT_UNKNOWN ? "unknown" : jv_dtype_trace_name(t));
    return JV_OK;
}

/* t with row-major strides filled when it has none */
static jv_tensor with_strides(const jv_tensor *t) {
    jv_tensor r = *t;
    if (!r.has_strides) {
        jv_tensor_set_contiguous(&r);
        r.has_strides = 1;
    }
    return r;
}

enum { ROLE_M = -1, ROLE_N = -2 };

/* Builds the plan of op over A a, B b (and bias, NULL when none). out NULL:
 * out's shape is derived (contiguous, dtype odt); else out must have that
 * shape and its strides are used. */
static jv_status plan_build(jv_gemm_op op, const jv_tensor *a_in, const jv_tensor *b_in, const jv_tensor *bias_in,
                            const jv_tensor *out, jv_dtype odt, gemm_plan *p, jv_err *err) {
    const char *nm = op_name(op);
    memset(p, 0, sizeof *p);
    jv_tensor a = with_strides(a_in), b = with_strides(b_in);
    int na = a.ndim, nb = b.ndim;
    switch (op) {
    case JV_GEMM_MM:
    case JV_GEMM_ADDMM:
        if (na != 2 || nb != 2) JV_FAIL(err, JV_ERR_FORMAT, "%s: operands are not 2-D", nm);
        break;
    case JV_GEMM_BMM:
    case JV_GEMM_BADDBMM:
        if (na != 3 || nb != 3 || a.shape[0] != b.shape[0])
            JV_FAIL(err, JV_ERR_FORMAT, "%s: operands are not [B,M,K] x [B,K,N]", nm);
        break;
    case JV_GEMM_LINEAR:
        if (na < 1 || nb != 2) JV_FAIL(err, JV_ERR_FORMAT, "%s: operands are not [...,K] x [N,K]", nm);
        break;
    case JV_GEMM_MATMUL:
        if (na < 1 || nb < 1) JV_FAIL(err, JV_ERR_FORMAT, "%s: a 0-d operand", nm);
        break;
    default: JV_FAIL(err, JV_ERR_FORMAT, "%s: not replayed", nm);
    }
    int a_vec = na == 1, b_vec = op != JV_GEMM_LINEAR && nb == 1;
    int64_t kb;
    int nab = 0, nbb = 0; /* batch dims of A and B */
    if (a_vec) {
        p->m = 1, p->k = a.shape[0], p->sa_m = 0, p->sa_k = a.strides[0];
    } else {
        p->m = a.shape[na - 2], p->k = a.shape[na - 1], p->sa_m = a.strides[na - 2], p->sa_k = a.strides[na - 1];
        nab = na - 2;
    }
    if (op == JV_GEMM_LINEAR) {
        p->n = b.shape[0], kb = b.shape[1], p->sb_n = b.strides[0], p->sb_k = b.strides[1];
    } else if (b_vec) {
        p->n = 1, kb = b.shape[0], p->sb_n = 0, p->sb_k = b.strides[0];
    } else {
        kb = b.shape[nb - 2], p->n = b.shape[nb - 1], p->sb_k = b.strides[nb - 2], p->sb_n = b.strides[nb - 1];
        nbb = nb - 2;
    }
    if (kb != p->k)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: inner dimensions differ (%lld vs %lld)", nm, (long long)p->k, (long long)kb);
    /* batch dims, right-aligned and broadcast */
    p->nbd = nab > nbb ? nab : nbb;
    p->nbatch = 1;
    for (int d = 0; d < p->nbd; d++) {
        int ia = d - (p->nbd - nab), ib = d - (p->nbd - nbb);
        int64_t da = ia >= 0 ? a.shape[ia] : 1, db = ib >= 0 ? b.shape[ib] : 1;
        if (da != db && da != 1 && db != 1)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: batch dimensions do not broadcast (%lld vs %lld)", nm, (long long)da,
                    (long long)db);
        p->bshape[d] = da > db ? da : db;
        if (da == 0 || db == 0) p->bshape[d] = 0;
        p->sa_b[d] = ia >= 0 && da > 1 ? a.strides[ia] : 0;
        p->sb_b[d] = ib >= 0 && db > 1 ? b.strides[ib] : 0;
        p->nbatch *= p->bshape[d];
    }
    /* out's shape, and the role of each of its dims */
    int role[JV_MAX_DIMS];
    jv_tensor o = {0};
    for (int d = 0; d < p->nbd; d++)
        role[o.ndim] = d, o.shape[o.ndim++] = p->bshape[d];
    if (!a_vec) role[o.ndim] = ROLE_M, o.shape[o.ndim++] = p->m;
    if (!b_vec) role[o.ndim] = ROLE_N, o.shape[o.ndim++] = p->n;
    o.dtype = odt;
    jv_tensor_set_contiguous(&o);
    o.has_strides = 1;
    if (out) {
        jv_tensor ot = with_strides(out);
        int same = ot.ndim == o.ndim;
        for (int d = 0; same && d < o.ndim; d++)
            same = ot.shape[d] == o.shape[d];
        if (!same) JV_FAIL(err, JV_ERR_FORMAT, "%s: out does not have the product's shape", nm);
        o = ot;
    }
    p->out = o;
    for (int e = 0; e < o.ndim; e++) {
        if (role[e] == ROLE_M)
            p->so_m = o.strides[e];
        else if (role[e] == ROLE_N)
            p->so_n = o.strides[e];
        else
            p->so_b[role[e]] = o.strides[e];
    }
    if (bias_in) {
        jv_tensor c = with_strides(bias_in);
        if (c.ndim > o.ndim) JV_FAIL(err, JV_ERR_FORMAT, "%s: bias has more dims than the output", nm);
        p->has_bias = 1;
        for (int e = o.ndim - c.ndim; e < o.ndim; e++) {
            int ic = e - (o.ndim - c.ndim);
            if (c.shape[ic] != 1 && c.shape[ic] != o.shape[e])
                JV_FAIL(err, JV_ERR_FORMAT, "%s: bias does not broadcast to the output", nm);
            int64_t st = c.shape[ic] > 1 ? c.strides[ic] : 0;
            if (role[e] == ROLE_M)
                p->sc_m = st;
            else if (role[e] == ROLE_N)
                p->sc_n = st;
            else
                p->sc_b[role[e]] = st;
        }
    }
    return JV_OK;
}

jv_status jv_gemm_operands(const jv_desc *d, jv_operands *out, jv_err *err) {
    const jv_gemm_desc *g = jv_gemm_of(d);
    out->n = 0;
    if (g->op == JV_GEMM_SCALED_MM)
        JV_FAIL(err, JV_ERR_FORMAT,
                "%s: a scaled (fp8 / int8) GEMM is not replayed (operands '%s' x '%s' with scale tensors; the "
                "replay stores and checks only fp64, fp32, fp16 and bf16)",
                g->op_name ? g->op_name : "aten::_scaled_mm", jv_dtype_trace_name(g->a.dtype),
                jv_dtype_trace_name(g->b.dtype));
    gemm_names nm = names_of(g->op);
    JV_CHECK(check_dtype(g->op, nm.a, g->a.dtype, err));
    JV_CHECK(check_dtype(g->op, nm.b, g->b.dtype, err));
    JV_CHECK(check_dtype(g->op, "out", g->out_dtype, err));
    jv_tensor bias = {0};
    const jv_tensor *pbias = NULL;
    if (g->op == JV_GEMM_ADDMM || g->op == JV_GEMM_BADDBMM) {
        if (g->has_bias) {
            bias = g->bias;
        } else { /* traced 0-d: a scalar tensor */
            bias.ndim = 0;
            bias.dtype = g->a.dtype;
        }
        pbias = &bias;
    } else if (g->op == JV_GEMM_LINEAR && g->has_bias) {
        bias = g->bias;
        pbias = &bias;
    }
    if (pbias) JV_CHECK(check_dtype(g->op, nm.bias, pbias->dtype, err));
    gemm_plan p;
    JV_CHECK(plan_build(g->op, &g->a, &g->b, pbias, NULL, g->out_dtype, &p, err));
    if (g->op == JV_GEMM_ADDMM || g->op == JV_GEMM_BADDBMM)
        JV_CHECK(jv_operands_add(out, "self", &bias, JV_ROLE_IN, JV_INIT_NORMAL, err));
    JV_CHECK(jv_operands_add(out, nm.a, &g->a, JV_ROLE_IN, JV_INIT_NORMAL, err));
    JV_CHECK(jv_operands_add(out, nm.b, &g->b, JV_ROLE_IN, JV_INIT_NORMAL, err));
    if (g->op == JV_GEMM_LINEAR && pbias)
        JV_CHECK(jv_operands_add(out, "bias", &bias, JV_ROLE_IN, JV_INIT_NORMAL, err));
    JV_CHECK(jv_operands_add(out, "out", &p.out, JV_ROLE_OUT, JV_INIT_NONE, err));
    return JV_OK;
}

/* ---- the arithmetic ---- */

/* dst[i] = element off + i*stride of a buffer of dtype t, i < n */
static void load_vec(jv_dtype t, const void *base, int64_t off, int64_t stride, int64_t n, double *dst) {
    switch (t) {
    case JV_DT_F64: {
        const double *q = (const double *)base + off;
        for (int64_t i = 0; i < n; i++)
            dst[i] = q[i * stride];
        break;
    }
    case JV_DT_F32: {
        const float *q = (const float *)base + off;
        for (int64_t i = 0; i < n; i++)
            dst[i] = q[i * stride];
        break;
    }
    case JV_DT_F16: {
        const uint16_t *q = (const uint16_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            dst[i] = jv_f16_to_f32(q[i * stride]);
        break;
    }
    case JV_DT_BF16: {
        const uint16_t *q = (const uint16_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            dst[i] = jv_bf16_to_f32(q[i * stride]);
        break;
    }
    default:
        for (int64_t i = 0; i < n; i++)
            dst[i] = jv_dtype_load(t, base, off + i * stride);
        break;
    }
}

/* acc + sum a[k]*b[k], k = 0..n-1 in order (one chain: the order every path uses) */
static double dot_acc(double acc, const double *a, const double *b, int64_t n) {
    for (int64_t k = 0; k < n; k++)
        acc += a[k] * b[k];
    return acc;
}

/* Buffers and dtypes of one product. */
typedef struct {
    const gemm_plan *p;
    jv_dtype ta, tb, tc, to;
    const void *a, *b, *c;
    void *o;
    double alpha, beta;
} gemm_run;

/* Storage offsets of batch element bflat in A, B, bias, out. */
static void batch_offsets(const gemm_plan *p, int64_t bflat, int64_t *oa, int64_t *ob, int64_t *oc, int64_t *oo) {
    *oa = *ob = *oc = *oo = 0;
    for (int d = p->nbd - 1; d >= 0; d--) {
        int64_t n = p->bshape[d] > 0 ? p->bshape[d] : 1, i = bflat % n;
        bflat /= n;
        *oa += i * p->sa_b[d];
        *ob += i * p->sb_b[d];
        *oc += i * p->sc_b[d];
        *oo += i * p->so_b[d];
    }
}

/* Writes out element (i, j) of a batch element from its dot product. */
static void finish(const gemm_run *r, int64_t oc, int64_t oo, int64_t i, int64_t j, double acc) {
    const gemm_plan *p = r->p;
    double v = r->alpha * acc;
    if (p->has_bias && r->beta != 0) v += r->beta * jv_dtype_load(r->tc, r->c, oc + i * p->sc_m + j * p->sc_n);
    jv_dtype_store(r->to, r->o, oo + i * p->so_m + j * p->so_n, v);
}

/* rows of a gathered block: about 2 MiB of doubles, 2..256 rows */
static int64_t block_rows(int64_t k) {
    int64_t r = k > 0 ? ((int64_t)1 << 18) / k : 256;
    if (r > 256) r = 256;
    if (r < 2) r = 2;
    return r;
}

static jv_status run_full(const gemm_run *r, jv_err *err) {
    const gemm_plan *p = r->p;
    int64_t m = p->m, n = p->n, k = p->k;
    if (m == 0 || n == 0 || p->nbatch == 0) return JV_OK;
    int64_t rows = block_rows(k);
    size_t cap = (size_t)(rows * (k > 0 ? k : 1));
    double *ga = malloc(cap * sizeof(double)), *gb = malloc(cap * sizeof(double));
    if (!ga || !gb) {
        free(ga);
        free(gb);
        JV_FAIL(err, JV_ERR_NOMEM, "gemm reference: no memory for %lld-row blocks of K = %lld", (long long)rows,
                (long long)k);
    }
    for (int64_t bi = 0; bi < p->nbatch; bi++) {
        int64_t oa, ob, oc, oo;
        batch_offsets(p, bi, &oa, &ob, &oc, &oo);
        for (int64_t j0 = 0; j0 < n; j0 += rows) {
            int64_t nj = n - j0 < rows ? n - j0 : rows;
            for (int64_t jj = 0; jj < nj; jj++)
                load_vec(r->tb, r->b, ob + (j0 + jj) * p->sb_n, p->sb_k, k, gb + jj * k);
            for (int64_t i0 = 0; i0 < m; i0 += rows) {
                int64_t ni = m - i0 < rows ? m - i0 : rows;
                for (int64_t ii = 0; ii < ni; ii++)
                    load_vec(r->ta, r->a, oa + (i0 + ii) * p->sa_m, p->sa_k, k, ga + ii * k);
                int64_t ii = 0;
                for (; ii + 1 < ni; ii += 2) {
                    const double *a0 = ga + ii * k, *a1 = a0 + k;
                    int64_t jj = 0;
                    for (; jj + 1 < nj; jj += 2) {
                        const double *b0 = gb + jj * k, *b1 = b0 + k;
                        double c00 = 0, c01 = 0, c10 = 0, c11 = 0;
                        for (int64_t q = 0; q < k; q++) {
                            c00 += a0[q] * b0[q];
                            c01 += a0[q] * b1[q];
                            c10 += a1[q] * b0[q];
                            c11 += a1[q] * b1[q];
                        }
                        finish(r, oc, oo, i0 + ii, j0 + jj, c00);
                        finish(r, oc, oo, i0 + ii, j0 + jj + 1, c01);
                        finish(r, oc, oo, i0 + ii + 1, j0 + jj, c10);
                        finish(r, oc, oo, i0 + ii + 1, j0 + jj + 1, c11);
                    }
                    for (; jj < nj; jj++) {
                        const double *b0 = gb + jj * k;
                        finish(r, oc, oo, i0 + ii, j0 + jj, dot_acc(0, a0, b0, k));
                        finish(r, oc, oo, i0 + ii + 1, j0 + jj, dot_acc(0, a1, b0, k));
                    }
                }
                for (; ii < ni; ii++)
                    for (int64_t jj = 0; jj < nj; jj++)
                        finish(r, oc, oo, i0 + ii, j0 + jj, dot_acc(0, ga + ii * k, gb + jj * k, k));
            }
        }
    }
    free(ga);
    free(gb);
    return JV_OK;
}

/* k elements per step of a sampled run: a cache line or two of every row and column in use */
#define SAMPLE_KB 32

/* Only the sampled out elements. For each k block, every sample reads its
 * piece of row and column: row-major rows and column-major columns are read
 * a line at a time, and k-major operands a few rows at a time, so big
 * operands stream instead of missing the cache on every element. */
static jv_status run_sampled(const gemm_run *r, const jv_sample *s, jv_err *err) {
    const gemm_plan *p = r->p;
    int64_t ns = s->n, numel = jv_tensor_numel(&p->out);
    if (ns <= 0) return JV_OK;
    if (!s->idx)
        JV_FAIL(err, JV_ERR_FORMAT, "gemm reference: a sample of %lld elements without indices", (long long)ns);
    for (int64_t t = 0; t < ns; t++)
        if (s->idx[t] < 0 || s->idx[t] >= numel)
            JV_FAIL(err, JV_ERR_FORMAT, "gemm reference: sample index %lld outside out's %lld elements",
                    (long long)s->idx[t], (long long)numel);
    /* per sample: row start in A, column start in B, bias and out offsets, the accumulator */
    int64_t *offs = malloc((size_t)ns * 4 * sizeof(int64_t));
    double *acc = malloc((size_t)ns * sizeof(double));
    if (!offs || !acc) {
        free(offs);
        free(acc);
        JV_FAIL(err, JV_ERR_NOMEM, "gemm reference: no memory for %lld samples", (long long)ns);
    }
    for (int64_t t = 0; t < ns; t++) {
        int64_t l = s->idx[t], j = l % p->n, i = (l / p->n) % p->m, bi = l / (p->n * p->m);
        int64_t oa, ob, oc, oo;
        batch_offsets(p, bi, &oa, &ob, &oc, &oo);
        offs[4 * t] = oa + i * p->sa_m;
        offs[4 * t + 1] = ob + j * p->sb_n;
        offs[4 * t + 2] = oc + i * p->sc_m + j * p->sc_n;
        offs[4 * t + 3] = oo + i * p->so_m + j * p->so_n;
        acc[t] = 0;
    }
    double va[SAMPLE_KB], vb[SAMPLE_KB];
    for (int64_t k0 = 0; k0 < p->k; k0 += SAMPLE_KB) {
        int64_t nk = p->k - k0 < SAMPLE_KB ? p->k - k0 : SAMPLE_KB;
        for (int64_t t = 0; t < ns; t++) {
            load_vec(r->ta, r->a, offs[4 * t] + k0 * p->sa_k, p->sa_k, nk, va);
            load_vec(r->tb, r->b, offs[4 * t + 1] + k0 * p->sb_k, p->sb_k, nk, vb);
            acc[t] = dot_acc(acc[t], va, vb, nk);
        }
    }
    for (int64_t t = 0; t < ns; t++) {
        double v = r->alpha * acc[t];
        if (p->has_bias && r->beta != 0) v += r->beta * jv_dtype_load(r->tc, r->c, offs[4 * t + 2]);
        jv_dtype_store(r->to, r->o, offs[4 * t + 3], v);
    }
    free(offs);
    free(acc);
    return JV_OK;
}

jv_status jv_gemm_roles_of(const jv_desc *d, const jv_operands *ops, jv_gemm_roles *r, jv_err *err) {
    const jv_gemm_desc *g = jv_gemm_of(d);
    const char *nm = op_name(g->op);
    r->name = nm;
    if (g->op == JV_GEMM_SCALED_MM) JV_FAIL(err, JV_ERR_FORMAT, "%s: fp8 scaled GEMM is not replayed", nm);
    gemm_names names = names_of(g->op);
    r->a = jv_operands_find(ops, names.a);
    r->b = jv_operands_find(ops, names.b);
    r->out = jv_operands_find(ops, "out");
    r->c = names.bias[0] ? jv_operands_find(ops, names.bias) : -1;
    if (r->a < 0 || r->b < 0 || r->out < 0 || (r->c < 0 && g->op != JV_GEMM_LINEAR && names.bias[0]))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: operands '%s', '%s'%s%s%s and 'out' expected (see jv_gemm_operands)", nm,
                names.a, names.b, names.bias[0] ? ", '" : "", names.bias, names.bias[0] ? "'" : "");
    if (ops->o[r->out].role == JV_ROLE_IN) JV_FAIL(err, JV_ERR_FORMAT, "%s: 'out' is not an output", nm);
    return JV_OK;
}

jv_status jv_gemm_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                            jv_err *err) {
    const jv_gemm_desc *g = jv_gemm_of(d);
    gemm_names names = names_of(g->op);
    jv_gemm_roles ro;
    JV_CHECK(jv_gemm_roles_of(d, ops, &ro, err));
    int ia = ro.a, ib = ro.b, io = ro.out, ic = ro.c;
    gemm_run r = {0};
    r.ta = ops->o[ia].t.dtype;
    r.tb = ops->o[ib].t.dtype;
    r.to = ops->o[io].t.dtype;
    r.tc = ic >= 0 ? ops->o[ic].t.dtype : JV_DT_F32;
    JV_CHECK(check_dtype(g->op, names.a, r.ta, err));
    JV_CHECK(check_dtype(g->op, names.b, r.tb, err));
    JV_CHECK(check_dtype(g->op, "out", r.to, err));
    if (ic >= 0) JV_CHECK(check_dtype(g->op, names.bias, r.tc, err));
    gemm_plan p;
    JV_CHECK(
        plan_build(g->op, &ops->o[ia].t, &ops->o[ib].t, ic >= 0 ? &ops->o[ic].t : NULL, &ops->o[io].t, r.to, &p, err));
    r.p = &p;
    r.a = bufs[ia];
    r.b = bufs[ib];
    r.c = ic >= 0 ? bufs[ic] : NULL;
    r.o = bufs[io];
    r.alpha = g->alpha;
    r.beta = g->beta;
    if (s && s->operand == io) return run_sampled(&r, s, err);
    return run_full(&r, err);
}

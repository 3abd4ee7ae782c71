/* gemm: the reproducer hook (jv_family.repro): hipblaslt-bench and rocblas-bench lines and the PyTorch call.
 *
 * PyTorch's row-major out[M, N] = A[M, K] @ B[K, N] is, seen column-major as the BLAS libraries see it,
 * out^T[N, M] = B^T[N, K] @ A^T[K, M]; PyTorch calls hipBLASLt / rocBLAS that way (at::cuda::blas::gemm with
 * its operands swapped), so the tools get m = N, n = M, k = K, their "A" is PyTorch's B and their "B" is
 * PyTorch's A. A row-major operand (last stride 1) is the tool's untransposed column-major matrix with the
 * leading dimension its row stride; a column-major one (a transposed view: first stride 1) is the transposed
 * one with the leading dimension its column stride. Options are those the tools document (hipBLASLt's
 * clients/benchmarks/client.cpp and "hipBLASLt clients" page; rocBLAS' rocblas-bench, whose GEMM options
 * hipblaslt-bench mirrors, --transposeA/B for --transA/B). */
#include <stdio.h>
#include <string.h>

#include "gemm.h"

/* one matrix operand as a BLAS library reads it */
typedef struct {
    int64_t rows, cols; /* PyTorch's logical [rows, cols] */
    int trans;          /* 1: column-major (a transposed view) */
    int64_t ld;         /* leading dimension */
    int64_t batch_stride;
    int copied; /* 1: neither dim has stride 1: PyTorch copies it contiguous first (ld from that copy) */
} blas_mat;

/* The last two dims of t (batch dims before them: one batch stride when there is exactly one, else 0) */
static void mat_of(const jv_tensor *t, int swap, blas_mat *m) {
    memset(m, 0, sizeof *m);
    int nd = t->ndim;
    int64_t r = nd >= 2 ? t->shape[nd - 2] : 1, c = nd >= 1 ? t->shape[nd - 1] : 1;
    int64_t sr = nd >= 2 ? t->strides[nd - 2] : c, sc = nd >= 1 ? t->strides[nd - 1] : 1;
    if (swap) { /* linear's weight [N, K] read as B = W^T [K, N] */
        int64_t x = r;
        r = c, c = x, x = sr, sr = sc, sc = x;
    }
    m->rows = r, m->cols = c;
    m->batch_stride = nd == 3 && t->shape[0] > 1 ? t->strides[0] : 0; /* one matrix for every batch: 0 */
    if (sc == 1 || c == 1) {
        m->trans = 0, m->ld = r > 1 && sr > c ? sr : c;
    } else if (sr == 1 || r == 1) {
        m->trans = 1, m->ld = c > 1 && sc > r ? sc : r;
    } else {
        m->trans = 0, m->ld = c, m->copied = 1, m->batch_stride = r * c;
    }
    if (m->ld < 1) m->ld = 1;
}

/* hipBLASLt / rocBLAS spelling of a dtype; NULL: not a dtype of these tools' GEMM */
static const char *blas_type(jv_dtype d) {
    switch (d) {
    case JV_DT_F64: return "f64_r";
    case JV_DT_F32: return "f32_r";
    case JV_DT_F16: return "f16_r";
    case JV_DT_BF16: return "bf16_r";
    default: return NULL;
    }
}

/* The PyTorch call. */
static void torch_call(const jv_gemm_desc *g, const jv_operands *ops, const jv_gemm_roles *ro, jv_repro *r) {
    const char *a = ops->o[ro->a].name, *b = ops->o[ro->b].name, *c = ro->c >= 0 ? ops->o[ro->c].name : NULL;
    char al[40], be[40];
    jv_repro_pyfloat(al, sizeof al, g->alpha);
    jv_repro_pyfloat(be, sizeof be, g->beta);
    switch (g->op) {
    case JV_GEMM_MM: jv_repro_py(r, "r = torch.mm(%s, %s)", a, b); break;
    case JV_GEMM_BMM: jv_repro_py(r, "r = torch.bmm(%s, %s)", a, b); break;
    case JV_GEMM_ADDMM: jv_repro_py(r, "r = torch.addmm(%s, %s, %s, beta=%s, alpha=%s)", c, a, b, be, al); break;
    case JV_GEMM_BADDBMM: jv_repro_py(r, "r = torch.baddbmm(%s, %s, %s, beta=%s, alpha=%s)", c, a, b, be, al); break;
    case JV_GEMM_LINEAR:
        jv_repro_py(r, "r = torch.nn.functional.linear(%s, %s%s%s)", a, b, c ? ", " : "", c ? c : "");
        break;
    default: jv_repro_py(r, "r = torch.matmul(%s, %s)", a, b); break;
    }
}

void jv_gemm_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r) {
    const jv_gemm_desc *g = jv_gemm_of(d);
    jv_gemm_roles ro;
    jv_err e = {0};
    if (jv_gemm_roles_of(d, ops, &ro, &e) != JV_OK) {
        r->overflow = 1;
        return;
    }
    torch_call(g, ops, &ro, r);

    const jv_tensor *ta = &ops->o[ro.a].t, *tb = &ops->o[ro.b].t, *to = &ops->o[ro.out].t;
    const jv_tensor *tc = ro.c >= 0 ? &ops->o[ro.c].t : NULL;
    /* one strided-batched GEMM: 2-D operands (leading dims of A flattened when they merge), or 3-D of one batch */
    jv_tensor a2 = *ta;
    if (a2.ndim > 2 && tb->ndim == 2) { /* [..., M, K] @ [K, N]: the leading dims merge into M when dense */
        int nd = a2.ndim, ok = 1;
        for (int i = 0; i < nd - 2; i++)
            ok &= a2.shape[i] == 1 || a2.strides[i] == a2.strides[i + 1] * a2.shape[i + 1];
        if (!ok) {
            jv_repro_no_amd(r, "no single GEMM line: the input's leading dims do not merge into one M dim");
            return;
        }
        a2.ndim = 2;
        a2.shape[0] = g->m, a2.shape[1] = ta->shape[nd - 1];
        a2.strides[0] = ta->strides[nd - 2], a2.strides[1] = ta->strides[nd - 1];
    }
    if (a2.ndim < 2 || tb->ndim < 2 || a2.ndim > 3 || tb->ndim > 3 || (a2.ndim == 3) != (tb->ndim == 3)) {
        jv_repro_no_amd(r, "no single GEMM line: operands of %d and %d dims (matrix-vector or broadcast batch dims)",
                        ta->ndim, tb->ndim);
        return;
    }
    const char *ty = blas_type(ta->dtype);
    if (!ty || tb->dtype != ta->dtype || blas_type(to->dtype) == NULL) {
        jv_repro_no_amd(r, "no GEMM line: %s operands (hipBLASLt and rocBLAS take fp64, fp32, fp16, bf16 of one type)",
                        jv_dtype_short(ta->dtype));
        return;
    }
    blas_mat A, B;
    mat_of(&a2, 0, &A);
    mat_of(tb, g->op == JV_GEMM_LINEAR, &B);
    const char *tyo = blas_type(to->dtype), *compute = ta->dtype == JV_DT_F64 ? "f64_r" : "f32_r";
    int64_t ldo = to->ndim >= 2 ? to->strides[to->ndim - 2] : g->n;
    if (ldo < g->n) ldo = g->n;
    int64_t batch = g->batch, mn = g->m * g->n;
    /* PyTorch's cuBLASLt / hipBLASLt path for addmm (and linear with a bias): a 1-D bias over N, beta 1,
     * fp32/fp16/bf16, all dims > 1: the bias is the GEMM's epilogue; otherwise the bias is C (beta * C) */
    int epilogue = tc && (g->op == JV_GEMM_ADDMM || g->op == JV_GEMM_LINEAR) && tc->ndim == 1 && tc->shape[0] == g->n &&
                   g->beta == 1 && ta->dtype != JV_DT_F64 && g->m > 1 && g->n > 1 && g->k > 1 && tc->dtype == to->dtype;
    double beta = tc && !epilogue ? (g->op == JV_GEMM_LINEAR ? 1 : g->beta) : 0;
    char al[40], be[40];
    jv_repro_pyfloat(al, sizeof al, g->alpha);
    jv_repro_pyfloat(be, sizeof be, beta);
    char title[160];
    char bt[32] = "";
    if (batch > 1) snprintf(bt, sizeof bt, "%lld x ", (long long)batch);
    snprintf(title, sizeof title,
             "%s: %sout[%lld, %lld] = A[%lld, %lld] @ B[%lld, %lld]%s, as PyTorch calls it (m = N, n = M)", ro.name, bt,
             (long long)g->m, (long long)g->n, (long long)g->m, (long long)g->k, (long long)g->k, (long long)g->n,
             epilogue ? " + bias (epilogue)"
             : tc     ? " + beta * C"
                      : "");
    if (A.copied || B.copied)
        strncat(title, "; an operand with no unit stride is copied contiguous first", sizeof title - strlen(title) - 1);

    for (int tool = 0; tool < 2; tool++) {
        if (tool == 0 && ta->dtype == JV_DT_F64) continue; /* hipBLASLt has no fp64 GEMM: rocBLAS runs it */
        jv_repro_cmd *c = jv_repro_cmd_add(
            r, tool == 0 ? "hipblaslt-bench" : "rocblas-bench", "",
            tool == 0 || r->ncmd == 0 ? title
            : epilogue ? "the same GEMM through rocBLAS (no bias epilogue there: the bias as a full C, beta 1)"
                       : "the same GEMM through rocBLAS");
        if (tool == 1) jv_repro_opt(r, c, "-f", batch > 1 ? "gemm_strided_batched_ex" : "gemm_ex");
        jv_repro_opt(r, c, tool == 0 ? "--transA" : "--transposeA", "%s", B.trans ? "T" : "N");
        jv_repro_opt(r, c, tool == 0 ? "--transB" : "--transposeB", "%s", A.trans ? "T" : "N");
        jv_repro_opt(r, c, "-m", "%lld", (long long)g->n);
        jv_repro_opt(r, c, "-n", "%lld", (long long)g->m);
        jv_repro_opt(r, c, "-k", "%lld", (long long)g->k);
        jv_repro_opt(r, c, "--alpha", "%s", al);
        jv_repro_opt(r, c, "--beta", "%s", tool == 1 && epilogue ? "1.0" : be);
        jv_repro_opt(r, c, "--a_type", "%s", ty);
        jv_repro_opt(r, c, "--lda", "%lld", (long long)B.ld);
        jv_repro_opt(r, c, "--b_type", "%s", ty);
        jv_repro_opt(r, c, "--ldb", "%lld", (long long)A.ld);
        jv_repro_opt(r, c, "--c_type", "%s", tyo);
        jv_repro_opt(r, c, "--ldc", "%lld", (long long)ldo);
        jv_repro_opt(r, c, "--d_type", "%s", tyo);
        jv_repro_opt(r, c, "--ldd", "%lld", (long long)ldo);
        jv_repro_opt(r, c, "--compute_type", "%s", compute);
        jv_repro_opt(r, c, "--batch_count", "%lld", (long long)batch);
        if (batch > 1) {
            jv_repro_opt(r, c, "--stride_a", "%lld", (long long)B.batch_stride);
            jv_repro_opt(r, c, "--stride_b", "%lld", (long long)A.batch_stride);
            jv_repro_opt(r, c, "--stride_c", "%lld", (long long)mn);
            jv_repro_opt(r, c, "--stride_d", "%lld", (long long)mn);
        }
        if (tool == 0 && epilogue) {
            jv_repro_opt(r, c, "--bias_vector", NULL);
            jv_repro_opt(r, c, "--bias_type", "%s", blas_type(tc->dtype));
        }
        jv_repro_opt(r, c, "--iters", "%d", o->iters);
        jv_repro_opt(r, c, "--cold_iters", "%d", o->cold_iters);
    }
}

/* norm_cpu.c: the CPU backend's own kernel of the replayed RMS norms (norm.h): aten::rms_norm, vLLM's
 * _C::rms_norm and _C::fused_add_rms_norm, rows in parallel with OpenMP. Each row in blocks of up to 1024
 * elements: pass 1 loads the input to float (fused_add_rms_norm: adds the residual, stores the sum rounded to
 * the residual's dtype and keeps the rounded value) and sums the squares in float (an `omp simd` reduction);
 * pass 2 writes x * rstd * weight rounded to nearest even, rstd = 1 / sqrt(ss / size + eps). fp32, fp16 and
 * bf16 tensors (the weight of its own dtype); the normalized dims dense in every tensor (vLLM's kernels ask
 * the same), the rows at any strides. Other calls are refused at plan time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#define RN_SIMD_SUM _Pragma("omp simd reduction(+ : ss)")
#else
#define RN_SIMD_SUM
#endif

#include "jv_cpu_convert.h"
#include "jv_cpu_kernel.h"
#include "norm.h"

enum { RN_BLK = 1024 };      /* elements per block */
enum { RN_PAR_MIN = 32768 }; /* fewer elements run on the calling thread */

typedef struct {
    jv_norm_desc g; /* the call (its tensors as the operands lay them out) */
    jv_norm_slots sl;
    jv_tensor x, y, w, res;
    int has_w, has_res;
    int64_t rows, size;
    float eps;
} rn_plan;

static int dt_ok(jv_dtype d) {
    return d == JV_DT_F32 || d == JV_DT_F16 || d == JV_DT_BF16;
}

static jv_status rn_plan_create(const jv_desc *d, const jv_operands *ops, void **plan, char *impl, size_t cap,
                                jv_err *err) {
    *plan = NULL;
    const jv_norm_desc *g = jv_norm_of(d);
    if (!jv_norm_replayable(g)) JV_FAIL(err, JV_ERR_NOTFOUND, "norm: only the RMS norm forwards have a CPU kernel");
    const jv_norm_slots sl = jv_norm_slots_of(g);
    rn_plan *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "rms norm: out of memory");
    p->g = *g;
    p->sl = sl;
    p->x = ops->o[sl.x].t;
    p->y = ops->o[sl.y].t;
    p->has_w = sl.w >= 0;
    p->has_res = sl.res >= 0;
    if (p->has_w) p->w = ops->o[sl.w].t;
    if (p->has_res) p->res = ops->o[sl.res].t;
    p->rows = g->rows;
    p->size = g->size;
    p->eps = (float)jv_norm_rms_eps(g);
    const int k = g->normalized_ndim;
    const char *bad = NULL;
    if (!dt_ok(p->x.dtype) || !dt_ok(p->y.dtype) || (p->has_w && !dt_ok(p->w.dtype)) ||
        (p->has_res && !dt_ok(p->res.dtype)))
        bad = "unsupported dtype (the CPU kernel runs fp32, fp16 and bf16)";
    else if (!jv_tensor_tail_dense(&p->x, k) || !jv_tensor_tail_dense(&p->y, k) ||
             (p->has_res && !jv_tensor_tail_dense(&p->res, k)) || (p->has_w && !jv_tensor_tail_dense(&p->w, p->w.ndim)))
        bad = "the CPU kernel needs the normalized dims dense";
    if (bad) {
        free(p);
        JV_FAIL(err, JV_ERR_NOTFOUND, "rms norm: %s", bad);
    }
    snprintf(impl, cap, "OpenMP RMS norm");
    *plan = p;
    return JV_OK;
}

static void run_row(const rn_plan *p, void *const *bufs, int64_t r) {
    const int64_t i0 = r * p->size;
    const int64_t xo = jv_tensor_offset_at(&p->x, i0), yo = jv_tensor_offset_at(&p->y, i0);
    const int64_t ro = p->has_res ? jv_tensor_offset_at(&p->res, i0) : 0;
    void *xb = bufs[p->sl.x], *yb = bufs[p->sl.y], *rb = p->has_res ? bufs[p->sl.res] : NULL;
    const void *wb = p->has_w ? bufs[p->sl.w] : NULL;
    float a[RN_BLK], b[RN_BLK];
    float ss = 0.0f;
    for (int64_t j0 = 0; j0 < p->size; j0 += RN_BLK) {
        const int64_t n = p->size - j0 < RN_BLK ? p->size - j0 : RN_BLK;
        jv_cpu_load_f32(p->x.dtype, xb, xo + j0, 1, n, a);
        if (rb) {
            jv_cpu_load_f32(p->res.dtype, rb, ro + j0, 1, n, b);
            JV_CPU_SIMD
            for (int64_t j = 0; j < n; j++)
                a[j] += b[j];
            jv_cpu_store_f32(p->res.dtype, rb, ro + j0, 1, n, a);
            jv_cpu_round_f32(p->res.dtype, n, a);
        }
        RN_SIMD_SUM
        for (int64_t j = 0; j < n; j++)
            ss += a[j] * a[j];
    }
    const float rstd = 1.0f / sqrtf(ss / (float)(p->size > 0 ? p->size : 1) + p->eps);
    for (int64_t j0 = 0; j0 < p->size; j0 += RN_BLK) {
        const int64_t n = p->size - j0 < RN_BLK ? p->size - j0 : RN_BLK;
        if (rb)
            jv_cpu_load_f32(p->res.dtype, rb, ro + j0, 1, n, a);
        else
            jv_cpu_load_f32(p->x.dtype, xb, xo + j0, 1, n, a);
        if (wb) {
            jv_cpu_load_f32(p->w.dtype, wb, j0, 1, n, b);
            JV_CPU_SIMD
            for (int64_t j = 0; j < n; j++)
                a[j] = a[j] * rstd * b[j];
        } else {
            JV_CPU_SIMD
            for (int64_t j = 0; j < n; j++)
                a[j] *= rstd;
        }
        jv_cpu_store_f32(p->y.dtype, yb, yo + j0, 1, n, a);
    }
}

static jv_status rn_run(const void *plan, void *const *bufs, jv_err *err) {
    const rn_plan *p = plan;
    if (p->rows == 0 || p->size == 0) return JV_OK;
    if (!bufs[p->sl.x] || !bufs[p->sl.y] || (p->has_w && !bufs[p->sl.w]) || (p->has_res && !bufs[p->sl.res]))
        JV_FAIL(err, JV_ERR_INTERNAL, "rms norm cpu: a NULL buffer");
    const int64_t rows = p->rows;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (rows * p->size >= RN_PAR_MIN)
#endif
    for (int64_t r = 0; r < rows; r++)
        run_row(p, bufs, r);
    return JV_OK;
}

static void rn_release(void *plan) {
    free(plan);
}

const jv_cpu_kernel jv_norm_cpu_kernel = {"norm", rn_plan_create, rn_run, rn_release};

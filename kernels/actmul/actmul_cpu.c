/* actmul_cpu.c: the CPU backend's own kernel of the gated activations (actmul.h): out = act(a) * b (or
 * a * act(b)) with a, b the input's two halves of each row, on every core with OpenMP. Rows are the output's
 * leading dims (any strides, walked by an index per row); each row runs in blocks of up to 1024 elements:
 * both halves loaded to float (fp32 rows with a unit stride read in place), the activation as one `omp
 * simd` loop over the block with the activation fixed outside it, the result stored rounded to out's dtype
 * (round to nearest even). fp32, fp16 and bf16, input and out independently; other dtypes are refused at
 * plan time. The math is actmul_math.h's (the device kernel's); the reference (actmul_ref.c) is separate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "actmul.h"
#include "actmul_math.h"
#include "jv_cpu_convert.h"
#include "jv_cpu_kernel.h"

enum { AM_BLK = 1024 };      /* elements per block */
enum { AM_PAR_MIN = 32768 }; /* fewer output elements run on the calling thread */

typedef struct {
    int act, act_second;
    jv_dtype in_dt, out_dt;
    int nd;                     /* leading dims (out's dims but the last) */
    int64_t shape[JV_MAX_DIMS]; /* leading dims' sizes */
    int64_t ist[JV_MAX_DIMS], ost[JV_MAX_DIMS];
    int64_t rows, w;      /* rows and d */
    int64_t ilast, olast; /* the last dim's strides */
    int64_t half;         /* the second half's offset from the first: w * ilast */
} am_plan;

static int dt_ok(jv_dtype d) {
    return d == JV_DT_F32 || d == JV_DT_F16 || d == JV_DT_BF16;
}

static jv_status am_plan_create(const jv_desc *d, const jv_operands *ops, void **plan, char *impl, size_t cap,
                                jv_err *err) {
    *plan = NULL;
    const jv_actmul_desc *g = jv_actmul_of(d);
    if (ops->n != 2) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not the family's operands", g->name);
    const jv_tensor *o = &ops->o[JV_ACTMUL_OUT].t, *x = &ops->o[JV_ACTMUL_IN].t;
    if (!dt_ok(o->dtype) || !dt_ok(x->dtype))
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s: unsupported dtype %s -> %s (the CPU kernel runs fp32, fp16 and bf16)",
                g->name, jv_dtype_short(x->dtype), jv_dtype_short(o->dtype));
    am_plan *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", g->name);
    p->act = (int)g->act;
    p->act_second = g->act_second;
    p->in_dt = x->dtype;
    p->out_dt = o->dtype;
    p->nd = o->ndim - 1;
    p->rows = 1;
    for (int i = 0; i < p->nd; i++) {
        p->shape[i] = o->shape[i];
        p->ist[i] = x->strides[i];
        p->ost[i] = o->strides[i];
        p->rows *= o->shape[i];
    }
    p->w = g->width;
    p->ilast = x->strides[o->ndim - 1];
    p->olast = o->strides[o->ndim - 1];
    p->half = p->w * p->ilast;
    snprintf(impl, cap, "OpenMP gated activation");
    *plan = p;
    return JV_OK;
}

/* o[j] = gate(a[j], b[j]) for j < n, the activation a constant of each loop (so that it inlines and
 * vectorizes) */
static void gate_block(int act, int second, int64_t n, const float *restrict a, const float *restrict b,
                       float *restrict o) {
#define AM_LOOP(ACT, SECOND)                                                                                           \
    do {                                                                                                               \
        JV_CPU_SIMD                                                                                                    \
        for (int64_t j = 0; j < n; j++)                                                                                \
            o[j] = jv_am_gate(ACT, SECOND, a[j], b[j]);                                                                \
    } while (0)
    if (second) {
        if (act == JV_ACTMUL_SILU)
            AM_LOOP(0, 1);
        else if (act == JV_ACTMUL_GELU)
            AM_LOOP(1, 1);
        else
            AM_LOOP(2, 1);
    } else {
        if (act == JV_ACTMUL_SILU)
            AM_LOOP(0, 0);
        else if (act == JV_ACTMUL_GELU)
            AM_LOOP(1, 0);
        else
            AM_LOOP(2, 0);
    }
#undef AM_LOOP
}

/* one row r of plan p */
static void run_row(const am_plan *p, const void *in, void *out, int64_t r) {
    int64_t io = 0, oo = 0;
    for (int i = p->nd - 1; i >= 0; i--) {
        const int64_t k = r % p->shape[i];
        r /= p->shape[i];
        io += k * p->ist[i];
        oo += k * p->ost[i];
    }
    float a[AM_BLK], b[AM_BLK], o[AM_BLK];
    for (int64_t j0 = 0; j0 < p->w; j0 += AM_BLK) {
        const int64_t n = p->w - j0 < AM_BLK ? p->w - j0 : AM_BLK;
        jv_cpu_load_f32(p->in_dt, in, io + j0 * p->ilast, p->ilast, n, a);
        jv_cpu_load_f32(p->in_dt, in, io + p->half + j0 * p->ilast, p->ilast, n, b);
        gate_block(p->act, p->act_second, n, a, b, o);
        jv_cpu_store_f32(p->out_dt, out, oo + j0 * p->olast, p->olast, n, o);
    }
}

static jv_status am_run(const void *plan, void *const *bufs, jv_err *err) {
    const am_plan *p = plan;
    if (p->rows == 0 || p->w == 0) return JV_OK;
    const void *in = bufs[JV_ACTMUL_IN];
    void *out = bufs[JV_ACTMUL_OUT];
    if (!in || !out) JV_FAIL(err, JV_ERR_INTERNAL, "actmul cpu: a NULL buffer");
    const int64_t rows = p->rows;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (rows * p->w >= AM_PAR_MIN)
#endif
    for (int64_t r = 0; r < rows; r++)
        run_row(p, in, out, r);
    return JV_OK;
}

static void am_release(void *plan) {
    free(plan);
}

const jv_cpu_kernel jv_actmul_cpu_kernel = {"actmul", am_plan_create, am_run, am_release};

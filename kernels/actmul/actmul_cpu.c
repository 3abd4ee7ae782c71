/* actmul_cpu.c: the CPU backend's own kernel of the gated activations (actmul.h): out = act(a) * b (or
 * a * act(b)) with a, b the input's two halves of each row, on every core with OpenMP. Rows are the output's
 * leading dims (any strides, walked by an index per row); each row runs in blocks of up to 1024 elements:
 * both halves loaded to float (fp32 rows with a unit stride read in place), the activation as one `omp
 * simd` loop over the block with the activation fixed outside it, the result stored rounded to out's dtype
 * (round to nearest even). fp32, fp16 and bf16, input and out independently; other dtypes are refused at
 * plan time. The activations are actmul_math.h's formulas (the device kernel's) with e^x computed here in
 * branch-free float arithmetic (am_exp: 2^n times a degree-6 polynomial, within 2 ulp) so that the loops
 * vectorize (libm's expf, erff and tanhf are scalar calls): tanh(u) = 1 - 2 / (e^2u + 1), and erf by
 * Abramowitz and Stegun 7.1.26 (absolute error 1.5e-7). The reference (actmul_ref.c) is separate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#define AM_SIMD _Pragma("omp simd")
#else
#define AM_SIMD
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

/* dst[j] = element off + j*st of a buffer of dtype dt, j < n (st 1: a loop of its own, which vectorizes) */
static void load(jv_dtype dt, const void *base, int64_t off, int64_t st, int64_t n, float *restrict dst) {
    if (dt == JV_DT_F32) {
        const float *restrict s = (const float *)base + off;
        if (st == 1)
            memcpy(dst, s, (size_t)n * sizeof *dst);
        else
            for (int64_t j = 0; j < n; j++)
                dst[j] = s[j * st];
        return;
    }
    const uint16_t *restrict s = (const uint16_t *)base + off;
    if (dt == JV_DT_F16 && st == 1) {
        AM_SIMD
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_cpu_f16_to_f32(s[j]);
    } else if (dt == JV_DT_F16) {
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_cpu_f16_to_f32(s[j * st]);
    } else if (st == 1) {
        AM_SIMD
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_cpu_bf16_to_f32(s[j]);
    } else {
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_cpu_bf16_to_f32(s[j * st]);
    }
}

/* element off + j*st of a buffer of dtype dt = src[j], j < n, rounded to nearest even (st 1: a loop of its own) */
static void store(jv_dtype dt, void *base, int64_t off, int64_t st, int64_t n, const float *restrict src) {
    if (dt == JV_DT_F32) {
        float *restrict s = (float *)base + off;
        if (st == 1)
            memcpy(s, src, (size_t)n * sizeof *src);
        else
            for (int64_t j = 0; j < n; j++)
                s[j * st] = src[j];
        return;
    }
    uint16_t *restrict s = (uint16_t *)base + off;
    if (dt == JV_DT_F16 && st == 1) {
        AM_SIMD
        for (int64_t j = 0; j < n; j++)
            s[j] = jv_cpu_f32_to_f16(src[j]);
    } else if (dt == JV_DT_F16) {
        for (int64_t j = 0; j < n; j++)
            s[j * st] = jv_cpu_f32_to_f16(src[j]);
    } else if (st == 1) {
        AM_SIMD
        for (int64_t j = 0; j < n; j++)
            s[j] = jv_cpu_f32_to_bf16(src[j]);
    } else {
        for (int64_t j = 0; j < n; j++)
            s[j * st] = jv_cpu_f32_to_bf16(src[j]);
    }
}

/* e^x in float without a branch or a call (vectorizable): x clamped to [-87.3, 88.7], x = n ln2 + r with
 * |r| <= ln2 / 2 (ln2 in two parts), e^r by its Taylor polynomial to degree 6 (Horner), times 2^n built in
 * the exponent bits; within 2 ulp of e^x over the range */
static inline float am_exp(float x) {
    x = x < -87.3f ? -87.3f : x > 88.7f ? 88.7f : x;
    const float n = (float)(int)(x * 1.44269504088896341f + (x < 0 ? -0.5f : 0.5f)); /* round(x / ln2) */
    const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f; /* ln2 = 0.693359375 - 2.12194440e-4 */
    float p = 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    return p * jv_cpu_float_of((uint32_t)((int32_t)n + 127) << 23);
}

/* the activations with am_exp (see above) */
static inline float am_act(int act, float x) {
    if (act == JV_ACTMUL_SILU) return x / (1.0f + am_exp(-x));
    if (act == JV_ACTMUL_GELU) { /* erf(|z|) = 1 - poly(t) e^(-z^2), t = 1 / (1 + p |z|) (A&S 7.1.26) */
        const float z = x * JV_AM_SQRT1_2, az = z < 0 ? -z : z;
        const float t = 1.0f / (1.0f + 0.3275911f * az);
        const float poly =
            t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
        const float e = 1.0f - poly * am_exp(-az * az);
        return 0.5f * x * (1.0f + (z < 0 ? -e : e));
    }
    const float u = JV_AM_SQRT_2_PI * (x + JV_AM_GELU_K * x * x * x);
    return 0.5f * x * (2.0f - 2.0f / (am_exp(2.0f * u) + 1.0f)); /* 1 + tanh(u) */
}

/* o[j] = gate(a[j], b[j]) for j < n, the activation a constant of each loop (so that it inlines and
 * vectorizes) */
static void gate_block(int act, int second, int64_t n, const float *restrict a, const float *restrict b,
                       float *restrict o) {
#define AM_LOOP(ACT, SECOND)                                                                                           \
    do {                                                                                                               \
        AM_SIMD                                                                                                        \
        for (int64_t j = 0; j < n; j++)                                                                                \
            o[j] = (SECOND) ? a[j] * am_act(ACT, b[j]) : am_act(ACT, a[j]) * b[j];                                     \
    } while (0)
    if (second) {
        if (act == JV_ACTMUL_SILU)
            AM_LOOP(JV_ACTMUL_SILU, 1);
        else if (act == JV_ACTMUL_GELU)
            AM_LOOP(JV_ACTMUL_GELU, 1);
        else
            AM_LOOP(JV_ACTMUL_GELU_TANH, 1);
    } else {
        if (act == JV_ACTMUL_SILU)
            AM_LOOP(JV_ACTMUL_SILU, 0);
        else if (act == JV_ACTMUL_GELU)
            AM_LOOP(JV_ACTMUL_GELU, 0);
        else
            AM_LOOP(JV_ACTMUL_GELU_TANH, 0);
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
        load(p->in_dt, in, io + j0 * p->ilast, p->ilast, n, a);
        load(p->in_dt, in, io + p->half + j0 * p->ilast, p->ilast, n, b);
        gate_block(p->act, p->act_second, n, a, b, o);
        store(p->out_dt, out, oo + j0 * p->olast, p->olast, n, o);
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

/* jv_elementwise_cpu: the CPU backend's elementwise kernels (see elementwise_cpu.h): the planning, the two
 * paths' walks on every core, the float computation and upsample_nearest's gather (the int64 and double
 * computations are elementwise_cpu_int.c's).
 * The op list and its float semantics follow ew_apply / ew_apply_light of
 * kernels/elementwise/elementwise.cu (keep in step); the operand slots come
 * from jv_elementwise_slots and the broadcast strides from
 * jv_elementwise_broadcast_strides, as the reference and the GPU planning
 * read them. The op loops carry `omp simd` rather than restrict: an in-place
 * self is read and written at the same address in the same iteration, which
 * OpenMP's simd allows and restrict would not. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#define EW_SIMD _Pragma("omp simd")
#else
#define EW_SIMD
#endif

#include "elementwise/elementwise.h"
#include "elementwise_cpu.h"
#include "elementwise_math.h"
#include "jv_cpu_convert.h"
#include "jv_cpu_kernel.h"

enum { EW_BLK = 1024 };      /* elements per block: the float buffers of one block stay in L1 */
enum { EW_TILE = 16384 };    /* strided path: elements per thread chunk (one odometer start each) */
enum { EW_PAR_MIN = 16384 }; /* fewer output elements run on the calling thread only */

/* storage types */
enum {
    ST_F32 = JV_EW_ST_F32,
    ST_F16 = JV_EW_ST_F16,
    ST_BF16 = JV_EW_ST_BF16,
    ST_BOOL = JV_EW_ST_BOOL,
    ST_U8 = JV_EW_ST_U8,
    ST_I8 = 16, /* the float computation's loads of the other integer types (not the device kernels') */
    ST_I16,
    ST_I32,
    ST_I64,
    ST_F64 /* a 0-d fp64 tensor of a float output: PyTorch computes in float */
};

/* the storage type of dtype d for the float computation, -1 when it is not one */
static int storage_of(jv_dtype d) {
    switch (d) {
    case JV_DT_I8: return ST_I8;
    case JV_DT_I16: return ST_I16;
    case JV_DT_I32: return ST_I32;
    case JV_DT_I64: return ST_I64;
    case JV_DT_F64: return ST_F64;
    default: return jv_elementwise_storage(d);
    }
}

typedef jv_ew_scalars ew_prm; /* the op and its scalar parameters, in float */

/* upsample_nearest's gather: the output's dims in memory order (outermost first), per dim a table of the
 * input offsets of its output indices */
typedef struct {
    int nd;
    size_t es; /* element size (input and output have one dtype) */
    int64_t shape[JV_MAX_DIMS], ost[JV_MAX_DIMS];
    int64_t *tab[JV_MAX_DIMS]; /* into tabs */
    int64_t *tabs;
} ew_up;

struct jv_elementwise_cpu {
    int mode;         /* jv_ew_cpu_mode */
    int up;           /* upsample_nearest: the gather (g) instead of the paths */
    jv_ew_cpu_wide w; /* int64 and double: the op in their terms */
    ew_up g;
    ew_prm prm;
    int out_op, out_dt;
    int slot_op[3]; /* operand index of slot k, -1 for a constant */
    int slot_dt[3];
    int64_t n; /* output elements */
    int dense; /* the dense path (else strided) */
    int nd;    /* strided: merged dims, outermost first */
    int64_t shape[JV_MAX_DIMS];
    int64_t st[4][JV_MAX_DIMS]; /* strided: per stream (0 the output, 1..3 the slots) and dim; dense: st[s][0] */
    float cbuf[3][EW_BLK];      /* a constant slot's value, a block's worth */
};

float jv_elementwise_cpu_f16_to_f32(uint16_t h) {
    return jv_cpu_f16_to_f32(h);
}
uint16_t jv_elementwise_cpu_f32_to_f16(float f) {
    return jv_cpu_f32_to_f16(f);
}
float jv_elementwise_cpu_bf16_to_f32(uint16_t b) {
    return jv_cpu_bf16_to_f32(b);
}
uint16_t jv_elementwise_cpu_f32_to_bf16(float f) {
    return jv_cpu_f32_to_bf16(f);
}

/* dst[j] = element off + j*st of a buffer of storage type dt, j < n (st 0: one element, repeated) */
static void gather(int dt, const void *base, int64_t off, int64_t st, int64_t n, float *restrict dst) {
    if (st == 0) {
        float v;
        switch (dt) {
        case ST_F32: v = ((const float *)base)[off]; break;
        case ST_F16: v = jv_cpu_f16_to_f32(((const uint16_t *)base)[off]); break;
        case ST_BF16: v = jv_cpu_bf16_to_f32(((const uint16_t *)base)[off]); break;
        case ST_BOOL: v = ((const uint8_t *)base)[off] != 0 ? 1.0f : 0.0f; break;
        case ST_I8: v = (float)((const int8_t *)base)[off]; break;
        case ST_I16: v = (float)((const int16_t *)base)[off]; break;
        case ST_I32: v = (float)((const int32_t *)base)[off]; break;
        case ST_I64: v = (float)((const int64_t *)base)[off]; break;
        case ST_F64: v = (float)((const double *)base)[off]; break;
        default: v = (float)((const uint8_t *)base)[off]; break;
        }
        for (int64_t j = 0; j < n; j++)
            dst[j] = v;
        return;
    }
    switch (dt) {
    case ST_F32: {
        const float *restrict s = (const float *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = s[j * st];
        break;
    }
    case ST_F16: {
        const uint16_t *restrict s = (const uint16_t *)base + off;
        if (st == 1)
            for (int64_t j = 0; j < n; j++)
                dst[j] = jv_cpu_f16_to_f32(s[j]);
        else
            for (int64_t j = 0; j < n; j++)
                dst[j] = jv_cpu_f16_to_f32(s[j * st]);
        break;
    }
    case ST_BF16: {
        const uint16_t *restrict s = (const uint16_t *)base + off;
        if (st == 1)
            for (int64_t j = 0; j < n; j++)
                dst[j] = jv_cpu_bf16_to_f32(s[j]);
        else
            for (int64_t j = 0; j < n; j++)
                dst[j] = jv_cpu_bf16_to_f32(s[j * st]);
        break;
    }
    case ST_BOOL: {
        const uint8_t *restrict s = (const uint8_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = s[j * st] != 0 ? 1.0f : 0.0f;
        break;
    }
    case ST_I8: {
        const int8_t *restrict s = (const int8_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = (float)s[j * st];
        break;
    }
    case ST_I16: {
        const int16_t *restrict s = (const int16_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = (float)s[j * st];
        break;
    }
    case ST_I32: {
        const int32_t *restrict s = (const int32_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = (float)s[j * st];
        break;
    }
    case ST_I64: {
        const int64_t *restrict s = (const int64_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = (float)s[j * st];
        break;
    }
    case ST_F64: {
        const double *restrict s = (const double *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = (float)s[j * st];
        break;
    }
    default: {
        const uint8_t *restrict s = (const uint8_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = (float)s[j * st];
        break;
    }
    }
}

/* element off + j*st of a buffer of storage type dt (an output type) = v[j] rounded, j < n */
static void scatter(int dt, void *base, int64_t off, int64_t st, int64_t n, const float *restrict v) {
    switch (dt) {
    case ST_F32: {
        float *restrict d = (float *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = v[j];
        break;
    }
    case ST_F16: {
        uint16_t *restrict d = (uint16_t *)base + off;
        if (st == 1)
            for (int64_t j = 0; j < n; j++)
                d[j] = jv_cpu_f32_to_f16(v[j]);
        else
            for (int64_t j = 0; j < n; j++)
                d[j * st] = jv_cpu_f32_to_f16(v[j]);
        break;
    }
    case ST_BF16: {
        uint16_t *restrict d = (uint16_t *)base + off;
        if (st == 1)
            for (int64_t j = 0; j < n; j++)
                d[j] = jv_cpu_f32_to_bf16(v[j]);
        else
            for (int64_t j = 0; j < n; j++)
                d[j * st] = jv_cpu_f32_to_bf16(v[j]);
        break;
    }
    default: { /* bool; NaN is true */
        uint8_t *restrict d = (uint8_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = v[j] != 0.0f ? 1 : 0;
        break;
    }
    }
}

/* ---- the math (elementwise.cu's, in float) ---- */

#define EW_LOOP(expr)                                                                                                  \
    do {                                                                                                               \
        EW_SIMD for (int64_t i = 0; i < n; i++) o[i] = (expr);                                                         \
    } while (0)

/* o[i] = cond ? x : y with x and y computed (and loaded) unconditionally: a conditional load or a conditional
 * float operation (it may trap: -ftrapping-math) keeps the compiler from vectorizing a select, and a branch on
 * random data is mispredicted every other element */
#define EW_SEL(cond, x, y)                                                                                             \
    do {                                                                                                               \
        EW_SIMD for (int64_t i = 0; i < n; i++) {                                                                      \
            const float x_ = (x), y_ = (y);                                                                            \
            o[i] = (cond) ? x_ : y_;                                                                                   \
        }                                                                                                              \
    } while (0)

/* o[i] = op(a[i], b[i], c[i]) for i < n. o may be a (an in-place self); b and c are inputs only. */
static void ew_apply(const ew_prm *p, int64_t n, const float *a, const float *b, const float *c, float *o) {
    const float alpha = p->alpha, lo = p->lo, hi = p->hi, slope = p->slope, value = p->value, thr = p->thr;
    const float nanv = p->nanv, posinf = p->posinf, neginf = p->neginf;
    const int gt = p->gelu_tanh;
    switch (p->op) {
    case JV_EW_ADD: EW_LOOP(a[i] + alpha * b[i]); break;
    case JV_EW_SUB: EW_LOOP(a[i] - alpha * b[i]); break;
    case JV_EW_RSUB: EW_LOOP(b[i] - alpha * a[i]); break;
    case JV_EW_MUL: EW_LOOP(a[i] * b[i]); break;
    case JV_EW_DIV:
        if (p->rounding == 0)
            EW_LOOP(a[i] / b[i]);
        else if (p->rounding == 1)
            EW_LOOP(truncf(a[i] / b[i]));
        else
            EW_LOOP(jv_ew_div_floor(a[i], b[i]));
        break;
    case JV_EW_WHERE: EW_SEL(a[i] != 0.0f, b[i], c[i]); break;
    case JV_EW_THRESHOLD_BACKWARD: EW_SEL(b[i] <= thr, 0.0f, a[i]); break;
    case JV_EW_SIGMOID_BACKWARD: EW_LOOP(a[i] * (1.0f - b[i]) * b[i]); break;
    case JV_EW_TANH_BACKWARD: EW_LOOP(a[i] * (1.0f - b[i] * b[i])); break;
    case JV_EW_GELU_BACKWARD: EW_LOOP(a[i] * jv_ew_gelu_grad(b[i], gt)); break;
    case JV_EW_SILU_BACKWARD:
        EW_SIMD for (int64_t i = 0; i < n; i++) {
            const float s = jv_ew_sigmoid(b[i]);
            o[i] = a[i] * s * (1.0f + b[i] * (1.0f - s));
        }
        break;
    case JV_EW_MAXIMUM: EW_LOOP(jv_ew_max_nan(a[i], b[i])); break;
    case JV_EW_MINIMUM: EW_LOOP(jv_ew_min_nan(a[i], b[i])); break;
    case JV_EW_EQ: EW_LOOP(a[i] == b[i] ? 1.0f : 0.0f); break;
    case JV_EW_NE: EW_LOOP(a[i] != b[i] ? 1.0f : 0.0f); break;
    case JV_EW_LT: EW_LOOP(a[i] < b[i] ? 1.0f : 0.0f); break;
    case JV_EW_LE: EW_LOOP(a[i] <= b[i] ? 1.0f : 0.0f); break;
    case JV_EW_GT: EW_LOOP(a[i] > b[i] ? 1.0f : 0.0f); break;
    case JV_EW_GE: EW_LOOP(a[i] >= b[i] ? 1.0f : 0.0f); break;
    case JV_EW_MASKED_FILL: EW_SEL(b[i] != 0.0f, c[i], a[i]); break;
    case JV_EW_ADDCMUL: EW_LOOP(a[i] + value * b[i] * c[i]); break;
    case JV_EW_ADDCDIV: EW_LOOP(a[i] + value * (b[i] / c[i])); break;
    case JV_EW_LERP: /* PyTorch's two-sided form */
        EW_SEL(fabsf(c[i]) < 0.5f, a[i] + c[i] * (b[i] - a[i]), b[i] - (b[i] - a[i]) * (1.0f - c[i]));
        break;
    case JV_EW_POW:
        if (p->powk == JV_EW_POWK_ANY)
            EW_LOOP(powf(a[i], b[i]));
        else
            EW_LOOP(jv_ew_pow_special(p->powk, a[i])); /* the switch is loop-invariant: unswitched */
        break;
    case JV_EW_RELU: EW_LOOP(a[i] != a[i] ? a[i] : a[i] > 0.0f ? a[i] : 0.0f); break;
    case JV_EW_GELU: EW_LOOP(jv_ew_gelu(a[i], gt)); break;
    case JV_EW_SILU: EW_LOOP(a[i] * jv_ew_sigmoid(a[i])); break;
    case JV_EW_SIGMOID: EW_LOOP(jv_ew_sigmoid(a[i])); break;
    case JV_EW_TANH: EW_LOOP(tanhf(a[i])); break;
    case JV_EW_NEG: EW_LOOP(-a[i]); break;
    case JV_EW_RSQRT: EW_LOOP(1.0f / sqrtf(a[i])); break;
    case JV_EW_SQRT: EW_LOOP(sqrtf(a[i])); break;
    case JV_EW_EXP: EW_LOOP(expf(a[i])); break;
    case JV_EW_LOG: EW_LOOP(logf(a[i])); break;
    case JV_EW_ABS: EW_LOOP(fabsf(a[i])); break;
    case JV_EW_RECIPROCAL: EW_LOOP(1.0f / a[i]); break;
    case JV_EW_CLAMP: EW_SEL(a[i] != a[i], a[i], jv_ew_clamp_nan(a[i], b[i], c[i])); break;
    case JV_EW_CLAMP_MIN: EW_SEL(a[i] != a[i], a[i], jv_ew_max_nan(a[i], b[i])); break;
    case JV_EW_CLAMP_MAX: EW_SEL(a[i] != a[i], a[i], jv_ew_min_nan(a[i], b[i])); break;
    case JV_EW_HARDTANH: EW_SEL(a[i] != a[i], a[i], jv_ew_clamp_nan(a[i], lo, hi)); break;
    case JV_EW_LEAKY_RELU: EW_SEL(a[i] > 0.0f, a[i], a[i] * slope); break;
    case JV_EW_ERF: EW_LOOP(erff(a[i])); break;
    case JV_EW_SIN: EW_LOOP(sinf(a[i])); break;
    case JV_EW_COS: EW_LOOP(cosf(a[i])); break;
    case JV_EW_NAN_TO_NUM: EW_LOOP(a[i] != a[i] ? nanv : isinf(a[i]) ? (a[i] > 0.0f ? posinf : neginf) : a[i]); break;
    default: /* copy, clone, contiguous, to, fill_, zero_: the value of slot 0 */
        if (o != a) memcpy(o, a, (size_t)n * sizeof *o);
        break;
    }
}

#undef EW_LOOP
#undef EW_SEL

/* ---- one block ---- */

/* per-thread buffers of one block */
typedef struct {
    float in[3][EW_BLK];
    float out[EW_BLK];
} ew_scratch;

/* len (<= EW_BLK) elements: the output from offset off[0] with stride st[0], slot k from off[k+1], st[k+1] */
static void ew_block(const jv_elementwise_cpu *p, void *const *bufs, int64_t len, const int64_t *off, const int64_t *st,
                     ew_scratch *s) {
    if (p->mode != JV_EW_CPU_FLOAT) { /* once per block: the float loops are not touched */
        jv_elementwise_cpu_wide_block(&p->w, bufs, p->out_op, p->slot_op, len, off, st);
        return;
    }
    const float *in[3];
    for (int k = 0; k < 3; k++) {
        const int op = p->slot_op[k];
        if (op < 0) {
            in[k] = p->cbuf[k];
        } else if (p->slot_dt[k] == ST_F32 && st[k + 1] == 1) {
            in[k] = (const float *)bufs[op] + off[k + 1]; /* in place: no copy */
        } else {
            gather(p->slot_dt[k], bufs[op], off[k + 1], st[k + 1], len, s->in[k]);
            in[k] = s->in[k];
        }
    }
    void *obase = bufs[p->out_op];
    const int direct = p->out_dt == ST_F32 && st[0] == 1;
    float *o = direct ? (float *)obase + off[0] : s->out;
    ew_apply(&p->prm, len, in[0], in[1], in[2], o);
    if (!direct) scatter(p->out_dt, obase, off[0], st[0], len, s->out);
}

/* ---- the two paths ---- */

static void run_dense(const jv_elementwise_cpu *p, void *const *bufs) {
    const int64_t n = p->n, nb = (n + EW_BLK - 1) / EW_BLK;
    int64_t st[4];
    for (int s = 0; s < 4; s++)
        st[s] = p->st[s][0];
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n >= EW_PAR_MIN)
#endif
    for (int64_t b = 0; b < nb; b++) {
        ew_scratch s;
        const int64_t i = b * EW_BLK, len = n - i < EW_BLK ? n - i : EW_BLK;
        int64_t off[4];
        for (int k = 0; k < 4; k++)
            off[k] = i * st[k]; /* stride 1, or 0 for a single element */
        ew_block(p, bufs, len, off, st, &s);
    }
}

/* elements [lo, hi) of the output in its memory order (the merged dims' row-major order) */
static void run_range(const jv_elementwise_cpu *p, void *const *bufs, int64_t lo, int64_t hi, ew_scratch *s) {
    const int nd = p->nd, in = nd - 1;
    int64_t idx[JV_MAX_DIMS], row[4] = {0, 0, 0, 0}, rem = lo;
    for (int dd = nd - 1; dd >= 0; dd--) { /* the odometer's start: one division per dim */
        idx[dd] = rem % p->shape[dd];
        rem /= p->shape[dd];
        if (dd < in)
            for (int k = 0; k < 4; k++)
                row[k] += idx[dd] * p->st[k][dd];
    }
    int64_t ist[4];
    for (int k = 0; k < 4; k++)
        ist[k] = p->st[k][in];
    const int64_t inner = p->shape[in];
    for (int64_t at = lo; at < hi;) {
        int64_t j = idx[in], len = inner - j;
        if (len > hi - at) len = hi - at;
        if (len > EW_BLK) len = EW_BLK;
        int64_t off[4];
        for (int k = 0; k < 4; k++)
            off[k] = row[k] + j * ist[k];
        ew_block(p, bufs, len, off, ist, s);
        at += len;
        idx[in] += len;
        if (idx[in] < inner) continue;
        idx[in] = 0;
        for (int dd = in - 1; dd >= 0; dd--) { /* carry */
            for (int k = 0; k < 4; k++)
                row[k] += p->st[k][dd];
            if (++idx[dd] < p->shape[dd]) break;
            for (int k = 0; k < 4; k++)
                row[k] -= p->st[k][dd] * p->shape[dd];
            idx[dd] = 0;
        }
    }
}

static void run_strided(const jv_elementwise_cpu *p, void *const *bufs) {
    const int64_t n = p->n, nt = (n + EW_TILE - 1) / EW_TILE;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n >= EW_PAR_MIN)
#endif
    for (int64_t t = 0; t < nt; t++) {
        ew_scratch s;
        const int64_t lo = t * EW_TILE, hi = n - lo < EW_TILE ? n : lo + EW_TILE;
        run_range(p, bufs, lo, hi, &s);
    }
}

/* ---- upsample_nearest: a gather ---- */

/* output rows [r0, r1) (a row: the innermost dim in memory order) of the gather, element type T */
#define EW_UP_ROWS(T)                                                                                                  \
    do {                                                                                                               \
        const T *restrict src = (const T *)in;                                                                         \
        T *restrict dst = (T *)out;                                                                                    \
        for (int64_t r = r0; r < r1; r++) {                                                                            \
            int64_t ioff = 0, ooff = 0;                                                                                \
            for (int q = 0; q < in_; q++)                                                                              \
                ioff += g->tab[q][idx[q]], ooff += idx[q] * g->ost[q];                                                 \
            for (int64_t j = 0; j < inner; j++)                                                                        \
                dst[ooff + j * ost] = src[ioff + itab[j]];                                                             \
            for (int q = in_ - 1; q >= 0; q--) { /* the odometer */                                                    \
                if (++idx[q] < g->shape[q]) break;                                                                     \
                idx[q] = 0;                                                                                            \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

static void up_rows(const ew_up *g, const void *in, void *out, int64_t r0, int64_t r1) {
    const int in_ = g->nd - 1;
    const int64_t inner = g->shape[in_], ost = g->ost[in_], *itab = g->tab[in_];
    int64_t idx[JV_MAX_DIMS], rem = r0;
    for (int q = in_ - 1; q >= 0; q--) {
        idx[q] = rem % g->shape[q];
        rem /= g->shape[q];
    }
    switch (g->es) {
    case 1: EW_UP_ROWS(uint8_t); break;
    case 2: EW_UP_ROWS(uint16_t); break;
    case 4: EW_UP_ROWS(uint32_t); break;
    default: EW_UP_ROWS(uint64_t); break;
    }
}

#undef EW_UP_ROWS

static void run_upsample(const jv_elementwise_cpu *p, void *const *bufs) {
    const ew_up *g = &p->g;
    const int64_t inner = g->shape[g->nd - 1], rows = p->n / inner;
    const int64_t per = inner >= EW_TILE ? 1 : EW_TILE / inner, nt = (rows + per - 1) / per;
    const void *in = bufs[p->slot_op[0]];
    void *out = bufs[p->out_op];
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (p->n >= EW_PAR_MIN)
#endif
    for (int64_t t = 0; t < nt; t++)
        up_rows(g, in, out, t * per, rows - t * per < per ? rows : (t + 1) * per);
}

jv_status jv_elementwise_cpu_run(const jv_elementwise_cpu *p, void *const *bufs, jv_err *err) {
    if (!p) JV_FAIL(err, JV_ERR_INTERNAL, "cpu elementwise: no plan");
    if (p->n == 0) return JV_OK;
    if (!bufs || !bufs[p->out_op]) JV_FAIL(err, JV_ERR_INTERNAL, "cpu elementwise: the output has no buffer");
    for (int k = 0; k < 3; k++)
        if (p->slot_op[k] >= 0 && !bufs[p->slot_op[k]])
            JV_FAIL(err, JV_ERR_INTERNAL, "cpu elementwise: operand %d has no buffer", p->slot_op[k]);
    if (p->up)
        run_upsample(p, bufs);
    else if (p->dense)
        run_dense(p, bufs);
    else
        run_strided(p, bufs);
    return JV_OK;
}

int jv_elementwise_cpu_is_dense(const jv_elementwise_cpu *p) {
    return p && p->dense && !p->up;
}

const char *jv_elementwise_cpu_compute(const jv_elementwise_cpu *p) {
    if (!p) return "";
    if (p->up) return "gather";
    return p->mode == JV_EW_CPU_INT64 ? "int64" : p->mode == JV_EW_CPU_DOUBLE ? "double" : "float";
}

void jv_elementwise_cpu_free(jv_elementwise_cpu *p) {
    if (p) free(p->g.tabs);
    free(p);
}

/* ---- planning ---- */

static jv_status refuse(jv_err *err, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static jv_status refuse(jv_err *err, int line, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return jv_err_set(err, JV_ERR_NOTFOUND, __FILE__, line, "%s", msg);
}

/* the strided geometry: the output's dims of size > 1 in its memory order (outermost first), merged where every
 * stream is contiguous across them (bst: per stream strides over the output's dims) */
static void plan_strided(jv_elementwise_cpu *p, const jv_tensor *out, int64_t (*bst)[JV_MAX_DIMS]) {
    p->nd = jv_elementwise_merge_dims(out, 4, (const int64_t(*)[JV_MAX_DIMS])bst, p->shape, p->st);
}

/* upsample_nearest{1,2,3}d of in into out (operands ii, oi): per output dim, the input offset of each output
 * index by PyTorch's nearest rule as the reference computes it: src = min(floor(dst * scale), in - 1) in float,
 * scale = 1 / scales[k] when the call gives it, else in / out (N and C: src = dst) */
static jv_status plan_upsample(const jv_elementwise_desc *g, const jv_tensor *in, const jv_tensor *out, int ii, int oi,
                               jv_elementwise_cpu **pp, jv_err *err) {
    const char *name = g->name ? g->name : "upsample_nearest";
    const size_t es = jv_dtype_size(out->dtype);
    if (in->ndim != out->ndim || in->ndim < 3 || in->shape[0] != out->shape[0] || in->shape[1] != out->shape[1])
        return refuse(err, __LINE__, "%s: input and output shapes do not match", name);
    if (in->dtype != out->dtype || !jv_dtype_is_numeric(out->dtype) || (es != 1 && es != 2 && es != 4 && es != 8))
        return refuse(err, __LINE__, "%s: input dtype %s, output dtype %s: no CPU gather", name,
                      jv_dtype_short(in->dtype), jv_dtype_short(out->dtype));
    for (int dd = 2; dd < in->ndim; dd++)
        if (in->shape[dd] <= 0) return refuse(err, __LINE__, "%s: an empty input with a non-empty output", name);
    const int64_t n = jv_tensor_numel(out);
    if (n < 0) return refuse(err, __LINE__, "%s: the output size overflows", name);
    int order[JV_MAX_DIMS], m = 0;
    int64_t total = 0;
    for (int dd = 0; dd < out->ndim; dd++)
        if (out->shape[dd] > 1) order[m++] = dd, total += out->shape[dd];
    for (int i = 1; i < m; i++) /* the output's memory order: by stride, descending; stable */
        for (int j = i; j > 0 && out->strides[order[j - 1]] < out->strides[order[j]]; j--) {
            const int v = order[j];
            order[j] = order[j - 1], order[j - 1] = v;
        }
    jv_elementwise_cpu *p = calloc(1, sizeof *p);
    if (p) p->g.tabs = malloc((size_t)(total > 0 ? total : 1) * sizeof *p->g.tabs);
    if (!p || !p->g.tabs) {
        jv_elementwise_cpu_free(p);
        JV_FAIL(err, JV_ERR_NOMEM, "cpu elementwise: out of memory for a plan");
    }
    ew_up *u = &p->g;
    u->es = es;
    u->nd = m > 0 ? m : 1;
    if (m == 0) { /* one element */
        u->shape[0] = 1, u->ost[0] = 0, u->tab[0] = u->tabs, u->tabs[0] = 0;
    }
    int64_t *t = u->tabs;
    for (int q = 0; q < m; q++) {
        const int dd = order[q];
        const double sc = dd >= 2 ? g->scales[dd - 2] : 0;
        const float scale = sc > 0 ? (float)(1.0 / sc) : (float)in->shape[dd] / (float)out->shape[dd];
        u->shape[q] = out->shape[dd];
        u->ost[q] = out->strides[dd];
        u->tab[q] = t;
        for (int64_t i = 0; i < out->shape[dd]; i++) {
            int64_t src = i;
            if (dd >= 2) {
                src = (int64_t)floorf((float)i * scale);
                if (src > in->shape[dd] - 1) src = in->shape[dd] - 1;
            }
            t[i] = src * in->strides[dd];
        }
        t += out->shape[dd];
    }
    p->up = 1;
    p->n = n;
    p->out_op = oi;
    p->slot_op[0] = ii, p->slot_op[1] = p->slot_op[2] = -1;
    *pp = p;
    return JV_OK;
}

jv_status jv_elementwise_cpu_plan(const jv_desc *d, const jv_operands *ops, jv_elementwise_cpu **out, jv_err *err) {
    *out = NULL;
    if (!d || (d->family != (int)JV_FAM_UNARY && d->family != (int)JV_FAM_BINARY))
        return refuse(err, __LINE__, "cpu elementwise: not an elementwise call");
    const jv_elementwise_desc *g = jv_elementwise_of(d);
    const char *name = g->name ? g->name : "elementwise";
    if ((unsigned)g->op >= (unsigned)JV_EW_OP_COUNT || g->arity < 0 || g->arity > 3)
        return refuse(err, __LINE__, "%s: not a parsed elementwise call", name);
    int slot[3], oi;
    jv_operands want;
    jv_err e;
    jv_err_clear(&e);
    if (jv_elementwise_slots(d, slot, &oi, &want, &e) != JV_OK) return refuse(err, __LINE__, "%s", e.msg);
    if (!ops || ops->n != want.n)
        return refuse(err, __LINE__, "%s: %d operands given, %d expected", name, ops ? ops->n : 0, want.n);
    for (int i = 0; i < ops->n; i++) {
        const jv_tensor *t = &ops->o[i].t;
        if (!jv_tensor_same_shape(t, &want.o[i].t) || !t->has_strides || t->ndim > JV_MAX_DIMS)
            return refuse(err, __LINE__, "%s: operand %d ('%s') does not have the call's shape or has no strides", name,
                          i, want.o[i].name);
        for (int dd = 0; dd < t->ndim; dd++)
            if (t->strides[dd] < 0)
                return refuse(err, __LINE__, "%s: operand '%s' has a negative stride", name, want.o[i].name);
    }
    const jv_tensor *ot = &ops->o[oi].t;
    const int64_t n = jv_tensor_numel(ot);
    if (n < 0) return refuse(err, __LINE__, "%s: the output size overflows", name);
    for (int dd = 0; dd < ot->ndim; dd++)
        if (ot->shape[dd] > 1 && ot->strides[dd] == 0)
            return refuse(err, __LINE__, "%s: the output has a zero stride (overlapping writes)", name);

    if (g->op >= JV_EW_UPSAMPLE_NEAREST1D && g->op <= JV_EW_UPSAMPLE_NEAREST3D)
        return plan_upsample(g, &ops->o[slot[0]].t, ot, slot[0], oi, out, err);

    /* what it computes in; per stream (0: the output, 1..3: the slots) strides over the output's dims */
    jv_ew_cpu_wide w;
    jv_dtype sdts[3] = {JV_DT_F32, JV_DT_F32, JV_DT_F32};
    for (int k = 0; k < 3; k++)
        if (slot[k] >= 0) sdts[k] = ops->o[slot[k]].t.dtype;
    JV_CHECK(jv_elementwise_cpu_wide_plan(d, slot, ot->dtype, sdts, &w, err));
    int64_t bst[4][JV_MAX_DIMS];
    memset(bst, 0, sizeof bst);
    for (int dd = 0; dd < ot->ndim; dd++)
        bst[0][dd] = ot->strides[dd];
    int sdt[3] = {ST_F32, ST_F32, ST_F32};
    for (int k = 0; k < 3; k++) {
        if (slot[k] < 0) continue;
        const jv_operand *o = &ops->o[slot[k]];
        sdt[k] = storage_of(o->t.dtype);
        if (!jv_elementwise_broadcast_strides(&o->t, ot, bst[k + 1]))
            return refuse(err, __LINE__, "%s: operand '%s' does not broadcast to the output", name, o->name);
    }

    jv_elementwise_cpu *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "cpu elementwise: out of memory for a plan");
    jv_elementwise_scalars(g, ot->dtype, slot[1] >= 0, &p->prm);
    p->mode = w.mode;
    p->w = w;
    p->out_op = oi;
    p->out_dt = storage_of(ot->dtype); /* the float computation: fp32, fp16, bf16 or bool */
    p->n = n;
    for (int k = 0; k < 3; k++) {
        p->slot_op[k] = slot[k];
        p->slot_dt[k] = sdt[k];
        if (slot[k] >= 0) continue;
        for (int j = 0; j < EW_BLK; j++)
            p->cbuf[k][j] = p->prm.cval[k];
    }

    /* dense: a dense output, each tensor slot with its strides (any dtype) or a single element */
    int dense = jv_tensor_dense(ot);
    int64_t dst[4] = {1, 0, 0, 0};
    for (int k = 0; k < 3 && dense; k++) {
        if (slot[k] < 0) continue;
        int same = 1, single = 1;
        for (int dd = 0; dd < ot->ndim; dd++) {
            if (ot->shape[dd] <= 1) continue;
            if (bst[k + 1][dd] != ot->strides[dd]) same = 0;
            if (bst[k + 1][dd] != 0) single = 0;
        }
        if (same)
            dst[k + 1] = 1;
        else if (!single)
            dense = 0;
    }
    p->dense = dense;
    if (dense) {
        p->nd = 1;
        p->shape[0] = n;
        for (int s = 0; s < 4; s++)
            p->st[s][0] = dst[s];
    } else {
        plan_strided(p, ot, bst);
    }
    *out = p;
    return JV_OK;
}

/* ---- the families' CPU-kernel entry (jv_cpu_kernel.h) ---- */

static jv_status ew_cpu_plan(const jv_desc *d, const jv_operands *ops, void **plan, char *impl, size_t impl_cap,
                             jv_err *err) {
    jv_elementwise_cpu *p = NULL;
    *plan = NULL;
    JV_CHECK(jv_elementwise_cpu_plan(d, ops, &p, err));
    if (p->up)
        snprintf(impl, impl_cap, "OpenMP elementwise (gather)");
    else if (p->mode == JV_EW_CPU_FLOAT)
        snprintf(impl, impl_cap, "OpenMP elementwise (%s)", p->dense ? "dense" : "strided");
    else
        snprintf(impl, impl_cap, "OpenMP elementwise (%s, %s)", p->dense ? "dense" : "strided",
                 jv_elementwise_cpu_compute(p));
    *plan = p;
    return JV_OK;
}

static jv_status ew_cpu_run(const void *plan, void *const *bufs, jv_err *err) {
    return jv_elementwise_cpu_run(plan, bufs, err);
}

static void ew_cpu_release(void *plan) {
    jv_elementwise_cpu_free(plan);
}

const jv_cpu_kernel jv_elementwise_cpu_kernel = {"elementwise", ew_cpu_plan, ew_cpu_run, ew_cpu_release};

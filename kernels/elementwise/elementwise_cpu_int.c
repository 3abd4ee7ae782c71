/* elementwise_cpu_int: the int64 and double computations of the CPU backend's elementwise kernels (see
 * elementwise_cpu.h; the geometry, the threads and the float computation are elementwise_cpu.c's).
 * Contract: jv_elementwise_cpu_wide_plan decides, from the call and its operands' dtypes, whether a call
 * computes in float (elementwise_cpu.c), int64 or double, and refuses what neither runs;
 * jv_elementwise_cpu_wide_block runs one block of up to 1024 elements of an int64 or double plan: the inputs
 * loaded into int64 or double buffers, the op as one loop, the result stored to the output's dtype.
 * int64 follows PyTorch's integer kernels: two's complement wrap-around (the arithmetic is done in uint64, so
 * there is no C undefined behaviour), integer division truncating or flooring, integer bounds; a division by
 * zero (PyTorch raises) gives what the reference stores for it (x / 0 saturated: the output type's largest
 * value for x > 0, its smallest for x < 0, 0 for 0 / 0; true for a bool output). double follows the reference
 * (kernels/elementwise/elementwise_ref.c) op for op, and stores into an integer output as it does: truncated
 * toward zero, saturated, NaN as 0. */
#include <float.h>
#include <math.h>
#include <string.h>

#ifdef _OPENMP
#define EW_SIMD _Pragma("omp simd")
#else
#define EW_SIMD
#endif

#include "elementwise/elementwise.h"
#include "elementwise_cpu.h"
#include "elementwise_double.h"
#include "elementwise_scalars.h"

enum { EW_BLK = 1024 }; /* as elementwise_cpu.c's block */

/* ---- dtypes ---- */

static int is_int(jv_dtype d) {
    return d == JV_DT_I64 || d == JV_DT_I32 || d == JV_DT_I16 || d == JV_DT_I8 || d == JV_DT_U8;
}
static int is_intb(jv_dtype d) {
    return is_int(d) || d == JV_DT_BOOL;
}
static int is_lowp_float(jv_dtype d) {
    return d == JV_DT_F32 || d == JV_DT_F16 || d == JV_DT_BF16;
}
static int supported(jv_dtype d) {
    return d == JV_DT_F64 || is_lowp_float(d) || is_intb(d);
}

/* the ops PyTorch computes in the integer type for integer operands */
static int int_op(jv_ew_op op, int rounding) {
    switch (op) {
    case JV_EW_ADD:
    case JV_EW_SUB:
    case JV_EW_RSUB:
    case JV_EW_MUL:
    case JV_EW_MAXIMUM:
    case JV_EW_MINIMUM:
    case JV_EW_CLAMP:
    case JV_EW_CLAMP_MIN:
    case JV_EW_CLAMP_MAX:
    case JV_EW_NEG:
    case JV_EW_ABS:
    case JV_EW_RELU:
    case JV_EW_EQ:
    case JV_EW_NE:
    case JV_EW_LT:
    case JV_EW_LE:
    case JV_EW_GT:
    case JV_EW_GE:
    case JV_EW_WHERE:
    case JV_EW_MASKED_FILL:
    case JV_EW_COPY:
    case JV_EW_CLONE:
    case JV_EW_CONTIGUOUS:
    case JV_EW_TO:
    case JV_EW_FILL:
    case JV_EW_ZERO:
    case JV_EW_NAN_TO_NUM: return 1; /* nan_to_num of integers: a copy */
    case JV_EW_DIV: return rounding != 0;
    default: return 0;
    }
}

static int is_compare(jv_ew_op op) {
    return op >= JV_EW_EQ && op <= JV_EW_GE;
}

/* a double that is an int64 exactly */
static int integral(double v) {
    return v == floor(v) && v >= -9223372036854775808.0 && v < 9223372036854775808.0;
}

/* the saturated limits of an integer dtype, as jv_dtype_store clamps */
static void int_limits(jv_dtype d, double *lo, double *hi) {
    switch (d) {
    case JV_DT_I32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    case JV_DT_I16: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case JV_DT_I8: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case JV_DT_U8: *lo = 0, *hi = UINT8_MAX; break;
    default: *lo = -9223372036854775808.0, *hi = 9223372036854774784.0; break; /* the largest double < 2^63 */
    }
}

/* nan_to_num's default bounds: the largest finite value of the output dtype (the reference's) */
static double dtype_max(jv_dtype d) {
    switch (d) {
    case JV_DT_F16: return 65504.0;
    case JV_DT_BF16: return 3.3895313892515355e38;
    case JV_DT_F32: return FLT_MAX;
    default: return DBL_MAX;
    }
}

/* the reference's choice of float comparisons: not all integers, and no dimensioned fp64 tensor (no fp64 at
 * all when every tensor is 0-d) */
static int compare_lowp(const jv_elementwise_desc *g, const jv_dtype slot_dt[3], const int slot[3]) {
    int any_dim = 0, f64_dim = 0, f64_any = 0, all_int = 1;
    for (int k = 0; k < g->arity; k++) {
        const jv_ew_operand *o = &g->in[k];
        if (o->kind == JV_EW_TENSOR && slot[k] >= 0) {
            if (o->t.ndim > 0) any_dim = 1;
            if (slot_dt[k] == JV_DT_F64) f64_any = 1, f64_dim |= o->t.ndim > 0;
            if (!is_intb(slot_dt[k])) all_int = 0;
        } else if (o->kind == JV_EW_SCALAR && !is_intb(o->t.dtype)) {
            all_int = 0;
        }
    }
    if (all_int) return 0;
    return any_dim ? !f64_dim : !f64_any;
}

/* a uint8 output that may receive a negative value: a signed or float operand among the values (where's
 * condition and masked_fill's mask are not values), a negative Scalar, a subtraction or a negation */
static int signed_into_u8(const jv_elementwise_desc *g, const int slot[3], const jv_dtype slot_dt[3]) {
    if (g->op == JV_EW_SUB || g->op == JV_EW_RSUB || g->op == JV_EW_NEG) return 1;
    if ((g->op == JV_EW_ADD) && g->alpha < 0) return 1;
    for (int k = 0; k < g->arity && k < 3; k++) {
        if ((g->op == JV_EW_WHERE && k == 0) || (g->op == JV_EW_MASKED_FILL && k == 1)) continue;
        if (slot[k] >= 0 && slot_dt[k] != JV_DT_U8 && slot_dt[k] != JV_DT_BOOL) return 1;
        if (slot[k] < 0 && g->in[k].kind == JV_EW_SCALAR && g->in[k].value < 0) return 1;
    }
    return 0;
}

jv_status jv_elementwise_cpu_wide_plan(const jv_desc *d, const int slot[3], jv_dtype out_dt, const jv_dtype slot_dt[3],
                                       jv_ew_cpu_wide *w, jv_err *err) {
    const jv_elementwise_desc *g = jv_elementwise_of(d);
    const char *name = g->name ? g->name : "elementwise";
    memset(w, 0, sizeof *w);
    if (!supported(out_dt))
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s: output dtype %s has no CPU kernel", name, jv_dtype_short(out_dt));
    int any_f64 = out_dt == JV_DT_F64, all_int = 1, wide_int = 0;
    for (int k = 0; k < 3; k++) {
        if (slot[k] < 0) {
            if (k >= g->arity || g->in[k].kind != JV_EW_SCALAR) continue;
            /* a Scalar: an integer one, or an integral float one cast to an integer output (masked_fill_, fill_) */
            const jv_ew_operand *o = &g->in[k];
            if (!(is_intb(o->t.dtype) || (is_int(out_dt) && integral(o->value)))) all_int = 0;
            continue;
        }
        if (!supported(slot_dt[k]))
            JV_FAIL(err, JV_ERR_NOTFOUND, "%s: operand %d dtype %s has no CPU kernel", name, k,
                    jv_dtype_short(slot_dt[k]));
        /* a 0-d fp64 tensor beside a float output (x * torch.tensor(0.125, dtype=torch.float64)) does not take
         * part in PyTorch's promotion: computed in float then, as PyTorch does */
        if (slot_dt[k] == JV_DT_F64 && (g->in[k].t.ndim > 0 || !is_lowp_float(out_dt))) any_f64 = 1;
        if (!is_intb(slot_dt[k])) all_int = 0;
        if (is_int(slot_dt[k]) && slot_dt[k] != JV_DT_U8) wide_int = 1;
    }
    if ((g->op == JV_EW_ADD || g->op == JV_EW_SUB || g->op == JV_EW_RSUB) && !integral(g->alpha)) all_int = 0;
    const int iop = int_op(g->op, g->rounding);
    if (is_int(out_dt) && !iop)
        JV_FAIL(err, JV_ERR_NOTFOUND,
                "%s: output dtype %s: the op is not defined on integers (PyTorch computes it in floating point, and "
                "refuses an integer output of it)",
                name, jv_dtype_short(out_dt));
    if (out_dt == JV_DT_U8 && signed_into_u8(g, slot, slot_dt))
        JV_FAIL(err, JV_ERR_NOTFOUND,
                "%s: output dtype uint8 of a signed value: PyTorch wraps a negative one (-1 -> 255), the reference "
                "saturates it (0); no CPU kernel until they agree",
                name);
    if (is_int(out_dt))
        w->mode = all_int ? JV_EW_CPU_INT64 : JV_EW_CPU_DOUBLE;
    else if (any_f64)
        w->mode = JV_EW_CPU_DOUBLE;
    else if (out_dt == JV_DT_BOOL && all_int && iop && wide_int)
        w->mode = JV_EW_CPU_INT64; /* comparisons (and copies) of integers: exact */
    else
        w->mode = JV_EW_CPU_FLOAT;
    if (w->mode == JV_EW_CPU_FLOAT) return JV_OK;

    w->op = (int)g->op;
    w->rounding = g->rounding;
    w->gelu_tanh = g->gelu_tanh;
    w->out_dt = out_dt;
    for (int k = 0; k < 3; k++)
        w->slot_dt[k] = slot[k] >= 0 ? slot_dt[k] : JV_DT_F64;
    if (g->op == JV_EW_DIV)
        w->lowp = is_lowp_float(out_dt);
    else if (is_compare(g->op))
        w->lowp = compare_lowp(g, slot_dt, slot);
    w->alpha = g->alpha;
    w->lo = g->min;
    w->hi = g->max;
    w->slope = g->slope;
    w->value = g->value;
    w->thr = g->threshold;
    w->nanv = g->nan;
    w->posinf = g->has_posinf ? g->posinf : dtype_max(out_dt);
    w->neginf = g->has_neginf ? g->neginf : -dtype_max(out_dt);
    for (int k = 0; k < 3; k++) {
        const double c = jv_elementwise_slot_const(g, k);
        w->c[k] = c;
        w->ic[k] = c == -INFINITY ? INT64_MIN : c == INFINITY ? INT64_MAX : integral(c) ? (int64_t)c : 0;
    }
    w->ialpha = integral(g->alpha) ? (int64_t)g->alpha : 0;
    double lo, hi;
    int_limits(out_dt, &lo, &hi);
    w->div0_pos = out_dt == JV_DT_BOOL ? 1 : (int64_t)hi;
    w->div0_neg = out_dt == JV_DT_BOOL ? 1 : (int64_t)lo;
    w->div0_zero = out_dt == JV_DT_BOOL ? 1 : 0; /* NaN: 0 in an integer, true in a bool */
    return JV_OK;
}

/* ---- int64 ---- */

/* dst[j] = element off + j*st of an integer or bool buffer of dtype dt, j < n */
static void load_i(jv_dtype dt, const void *base, int64_t off, int64_t st, int64_t n, int64_t *restrict dst) {
    switch (dt) {
    case JV_DT_I64: {
        const int64_t *s = (const int64_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = s[j * st];
        break;
    }
    case JV_DT_I32: {
        const int32_t *s = (const int32_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = s[j * st];
        break;
    }
    case JV_DT_I16: {
        const int16_t *s = (const int16_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = s[j * st];
        break;
    }
    case JV_DT_I8: {
        const int8_t *s = (const int8_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = s[j * st];
        break;
    }
    case JV_DT_U8: {
        const uint8_t *s = (const uint8_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = s[j * st];
        break;
    }
    default: { /* bool */
        const uint8_t *s = (const uint8_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = s[j * st] != 0;
        break;
    }
    }
}

/* element off + j*st of an integer or bool output = v[j], wrapped to its width (bool: != 0), j < n */
static void store_i(jv_dtype dt, void *base, int64_t off, int64_t st, int64_t n, const int64_t *restrict v) {
    switch (dt) {
    case JV_DT_I64: {
        int64_t *d = (int64_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = v[j];
        break;
    }
    case JV_DT_I32: {
        int32_t *d = (int32_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = (int32_t)(uint32_t)(uint64_t)v[j]; /* modulo 2^32 (GCC, Clang: two's complement) */
        break;
    }
    case JV_DT_I16: {
        int16_t *d = (int16_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = (int16_t)(uint16_t)(uint64_t)v[j];
        break;
    }
    case JV_DT_I8: {
        int8_t *d = (int8_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = (int8_t)(uint8_t)(uint64_t)v[j];
        break;
    }
    case JV_DT_U8: {
        uint8_t *d = (uint8_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = (uint8_t)(uint64_t)v[j];
        break;
    }
    default: { /* bool */
        uint8_t *d = (uint8_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = v[j] != 0;
        break;
    }
    }
}

/* wrapping arithmetic: in uint64, converted back (modulo 2^64) */
static inline int64_t w_add(int64_t a, int64_t b) {
    return (int64_t)((uint64_t)a + (uint64_t)b);
}
static inline int64_t w_sub(int64_t a, int64_t b) {
    return (int64_t)((uint64_t)a - (uint64_t)b);
}
static inline int64_t w_mul(int64_t a, int64_t b) {
    return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* a / b rounded toward zero (floor: toward -inf); b != 0; INT64_MIN / -1 wraps to INT64_MIN */
static inline int64_t i_div(int64_t a, int64_t b, int floor_mode) {
    if (b == -1) return w_sub(0, a);
    int64_t q = a / b;
    if (floor_mode && a % b != 0 && ((a < 0) != (b < 0))) q--;
    return q;
}

#define EW_LOOP(expr)                                                                                                  \
    do {                                                                                                               \
        EW_SIMD for (int64_t i = 0; i < n; i++) o[i] = (expr);                                                         \
    } while (0)

/* o[i] = op(a[i], b[i], c[i]) in int64, i < n; o may be a */
static void apply_i(const jv_ew_cpu_wide *w, int64_t n, const int64_t *a, const int64_t *b, const int64_t *c,
                    int64_t *o) {
    const int64_t alpha = w->ialpha;
    switch (w->op) {
    case JV_EW_ADD: EW_LOOP(w_add(a[i], w_mul(alpha, b[i]))); break;
    case JV_EW_SUB: EW_LOOP(w_sub(a[i], w_mul(alpha, b[i]))); break;
    case JV_EW_RSUB: EW_LOOP(w_sub(b[i], w_mul(alpha, a[i]))); break;
    case JV_EW_MUL: EW_LOOP(w_mul(a[i], b[i])); break;
    case JV_EW_DIV: {
        const int fl = w->rounding == 2;
        for (int64_t i = 0; i < n; i++)
            o[i] = b[i] != 0 ? i_div(a[i], b[i], fl) : a[i] > 0 ? w->div0_pos : a[i] < 0 ? w->div0_neg : w->div0_zero;
        break;
    }
    case JV_EW_MAXIMUM: EW_LOOP(a[i] > b[i] ? a[i] : b[i]); break;
    case JV_EW_MINIMUM: EW_LOOP(a[i] < b[i] ? a[i] : b[i]); break;
    case JV_EW_CLAMP:
        EW_SIMD for (int64_t i = 0; i < n; i++) {
            const int64_t m = a[i] > b[i] ? a[i] : b[i];
            o[i] = m < c[i] ? m : c[i];
        }
        break;
    case JV_EW_CLAMP_MIN: EW_LOOP(a[i] > b[i] ? a[i] : b[i]); break;
    case JV_EW_CLAMP_MAX: EW_LOOP(a[i] < b[i] ? a[i] : b[i]); break;
    case JV_EW_NEG: EW_LOOP(w_sub(0, a[i])); break;
    case JV_EW_ABS: EW_LOOP(a[i] < 0 ? w_sub(0, a[i]) : a[i]); break;
    case JV_EW_RELU: EW_LOOP(a[i] > 0 ? a[i] : 0); break;
    case JV_EW_EQ: EW_LOOP(a[i] == b[i]); break;
    case JV_EW_NE: EW_LOOP(a[i] != b[i]); break;
    case JV_EW_LT: EW_LOOP(a[i] < b[i]); break;
    case JV_EW_LE: EW_LOOP(a[i] <= b[i]); break;
    case JV_EW_GT: EW_LOOP(a[i] > b[i]); break;
    case JV_EW_GE: EW_LOOP(a[i] >= b[i]); break;
    case JV_EW_WHERE: EW_LOOP(a[i] != 0 ? b[i] : c[i]); break;
    case JV_EW_MASKED_FILL: EW_LOOP(b[i] != 0 ? c[i] : a[i]); break;
    default: /* copy, clone, contiguous, to, fill_, zero_, nan_to_num: the value of slot 0 */
        if (o != a) memcpy(o, a, (size_t)n * sizeof *o);
        break;
    }
}

/* ---- double ---- */

/* dst[j] = element off + j*st of a buffer of dtype dt, as a double, j < n */
static void load_d(jv_dtype dt, const void *base, int64_t off, int64_t st, int64_t n, double *restrict dst) {
    switch (dt) {
    case JV_DT_F64: {
        const double *s = (const double *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = s[j * st];
        break;
    }
    case JV_DT_F32: {
        const float *s = (const float *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = s[j * st];
        break;
    }
    case JV_DT_F16: {
        const uint16_t *s = (const uint16_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_f16_to_f32(s[j * st]);
        break;
    }
    case JV_DT_BF16: {
        const uint16_t *s = (const uint16_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_bf16_to_f32(s[j * st]);
        break;
    }
    default: { /* integers and bool: through int64 */
        int64_t iv[EW_BLK];
        load_i(dt, base, off, st, n, iv);
        for (int64_t j = 0; j < n; j++)
            dst[j] = (double)iv[j];
        break;
    }
    }
}

/* v truncated toward zero and clamped to [lo, hi]; NaN gives 0 (jv_dtype_store's) */
static inline double sat(double v, double lo, double hi) {
    if (v != v) return 0;
    v = trunc(v);
    return v < lo ? lo : v > hi ? hi : v;
}

/* element off + j*st of an output of dtype dt = v[j] rounded (an integer: truncated and saturated), j < n */
static void store_d(jv_dtype dt, void *base, int64_t off, int64_t st, int64_t n, const double *restrict v) {
    switch (dt) {
    case JV_DT_F64: {
        double *d = (double *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = v[j];
        break;
    }
    case JV_DT_F32: {
        float *d = (float *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = (float)v[j];
        break;
    }
    case JV_DT_F16: {
        uint16_t *d = (uint16_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = jv_f32_to_f16((float)v[j]);
        break;
    }
    case JV_DT_BF16: {
        uint16_t *d = (uint16_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = jv_f32_to_bf16((float)v[j]);
        break;
    }
    case JV_DT_BOOL: {
        uint8_t *d = (uint8_t *)base + off;
        for (int64_t j = 0; j < n; j++)
            d[j * st] = v[j] != 0; /* NaN is true */
        break;
    }
    default: { /* integers: saturated into range, then stored (no wrap-around) */
        double lo, hi;
        int_limits(dt, &lo, &hi);
        int64_t iv[EW_BLK];
        for (int64_t j = 0; j < n; j++)
            iv[j] = (int64_t)sat(v[j], lo, hi);
        store_i(dt, base, off, st, n, iv);
        break;
    }
    }
}

/* o[i] = op(a[i], b[i], c[i]) in double, i < n; o may be a: the reference's math (elementwise_double.h) */
static void apply_d(const jv_ew_cpu_wide *w, int64_t n, const double *a, const double *b, const double *c, double *o) {
    const jv_ew_dmath x = {.op = (jv_ew_op)w->op,
                           .alpha = w->alpha,
                           .thr = w->thr,
                           .lo = w->lo,
                           .hi = w->hi,
                           .slope = w->slope,
                           .value = w->value,
                           .nan = w->nanv,
                           .posinf = w->posinf,
                           .neginf = w->neginf,
                           .gelu_tanh = w->gelu_tanh,
                           .rounding = w->rounding,
                           .lowp = w->lowp};
    jv_elementwise_apply_double(&x, n, a, b, c, o);
}

#undef EW_CMP
#undef EW_LOOP

/* ---- one block ---- */

void jv_elementwise_cpu_wide_block(const jv_ew_cpu_wide *w, void *const *bufs, int out_op, const int slot_op[3],
                                   int64_t len, const int64_t *off, const int64_t *st) {
    if (w->mode == JV_EW_CPU_INT64) {
        int64_t in[3][EW_BLK], out[EW_BLK];
        for (int k = 0; k < 3; k++) {
            if (slot_op[k] >= 0)
                load_i(w->slot_dt[k], bufs[slot_op[k]], off[k + 1], st[k + 1], len, in[k]);
            else
                for (int64_t j = 0; j < len; j++)
                    in[k][j] = w->ic[k];
        }
        apply_i(w, len, in[0], in[1], in[2], out);
        store_i(w->out_dt, bufs[out_op], off[0], st[0], len, out);
        return;
    }
    double in[3][EW_BLK], out[EW_BLK];
    for (int k = 0; k < 3; k++) {
        if (slot_op[k] >= 0)
            load_d(w->slot_dt[k], bufs[slot_op[k]], off[k + 1], st[k + 1], len, in[k]);
        else
            for (int64_t j = 0; j < len; j++)
                in[k][j] = w->c[k];
    }
    apply_d(w, len, in[0], in[1], in[2], out);
    store_d(w->out_dt, bufs[out_op], off[0], st[0], len, out);
}

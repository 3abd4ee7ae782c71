/* elementwise: descriptor parsing of the unary and binary families (one
 * descriptor; the families differ in their op lists): the op tables, PyTorch
 * type promotion, the operand readers and the parse entry points. The
 * FLOPs/bytes model, the TraceLens params and the family tables are in
 * elementwise_model.c. */
#include "elementwise.h"
#include "elementwise_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(jv_elementwise_desc) <= JV_DESC_BYTES, "elementwise descriptor too large");

/* ---- op tables ---- */

static const struct {
    const char *name;
    jv_ew_op op;
    jv_match how;
} UNARY_OPS[] = {
    {"aten::copy_", JV_EW_COPY, JV_MATCH_STRONG},
    {"aten::copy", JV_EW_COPY, JV_MATCH_WEAK},   /* empty_strided + copy_ */
    {"aten::clone", JV_EW_CLONE, JV_MATCH_WEAK}, /* runs copy_ */
    {"aten::contiguous", JV_EW_CONTIGUOUS, JV_MATCH_WEAK},
    {"aten::to", JV_EW_TO, JV_MATCH_WEAK},
    {"aten::_to_copy", JV_EW_TO, JV_MATCH_WEAK},
    {"aten::relu", JV_EW_RELU, JV_MATCH_WEAK},  /* runs clamp_min */
    {"aten::relu_", JV_EW_RELU, JV_MATCH_WEAK}, /* runs clamp_min_ */
    {"aten::gelu", JV_EW_GELU, JV_MATCH_STRONG},
    {"aten::gelu_", JV_EW_GELU, JV_MATCH_STRONG},
    {"aten::silu", JV_EW_SILU, JV_MATCH_STRONG},
    {"aten::silu_", JV_EW_SILU, JV_MATCH_STRONG},
    {"aten::sigmoid", JV_EW_SIGMOID, JV_MATCH_STRONG},
    {"aten::sigmoid_", JV_EW_SIGMOID, JV_MATCH_STRONG},
    {"aten::tanh", JV_EW_TANH, JV_MATCH_STRONG},
    {"aten::tanh_", JV_EW_TANH, JV_MATCH_STRONG},
    {"aten::neg", JV_EW_NEG, JV_MATCH_STRONG},
    {"aten::neg_", JV_EW_NEG, JV_MATCH_STRONG},
    {"aten::rsqrt", JV_EW_RSQRT, JV_MATCH_STRONG},
    {"aten::rsqrt_", JV_EW_RSQRT, JV_MATCH_STRONG},
    {"aten::sqrt", JV_EW_SQRT, JV_MATCH_STRONG},
    {"aten::sqrt_", JV_EW_SQRT, JV_MATCH_STRONG},
    {"aten::exp", JV_EW_EXP, JV_MATCH_STRONG},
    {"aten::exp_", JV_EW_EXP, JV_MATCH_STRONG},
    {"aten::log", JV_EW_LOG, JV_MATCH_STRONG},
    {"aten::log_", JV_EW_LOG, JV_MATCH_STRONG},
    {"aten::abs", JV_EW_ABS, JV_MATCH_STRONG},
    {"aten::abs_", JV_EW_ABS, JV_MATCH_STRONG},
    {"aten::reciprocal", JV_EW_RECIPROCAL, JV_MATCH_STRONG},
    {"aten::reciprocal_", JV_EW_RECIPROCAL, JV_MATCH_STRONG},
    {"aten::pow", JV_EW_POW, JV_MATCH_STRONG},
    {"aten::pow_", JV_EW_POW, JV_MATCH_STRONG},
    {"aten::clamp", JV_EW_CLAMP, JV_MATCH_STRONG},
    {"aten::clamp_", JV_EW_CLAMP, JV_MATCH_STRONG},
    {"aten::clamp_min", JV_EW_CLAMP_MIN, JV_MATCH_STRONG},
    {"aten::clamp_min_", JV_EW_CLAMP_MIN, JV_MATCH_STRONG},
    {"aten::clamp_max", JV_EW_CLAMP_MAX, JV_MATCH_STRONG},
    {"aten::clamp_max_", JV_EW_CLAMP_MAX, JV_MATCH_STRONG},
    {"aten::fill_", JV_EW_FILL, JV_MATCH_STRONG},
    {"aten::zero_", JV_EW_ZERO, JV_MATCH_WEAK},        /* runs fill_ */
    {"aten::hardtanh", JV_EW_HARDTANH, JV_MATCH_WEAK}, /* runs clamp */
    {"aten::hardtanh_", JV_EW_HARDTANH, JV_MATCH_WEAK},
    {"aten::leaky_relu", JV_EW_LEAKY_RELU, JV_MATCH_STRONG},
    {"aten::leaky_relu_", JV_EW_LEAKY_RELU, JV_MATCH_STRONG},
    {"aten::erf", JV_EW_ERF, JV_MATCH_STRONG},
    {"aten::erf_", JV_EW_ERF, JV_MATCH_STRONG},
    {"aten::sin", JV_EW_SIN, JV_MATCH_STRONG},
    {"aten::sin_", JV_EW_SIN, JV_MATCH_STRONG},
    {"aten::cos", JV_EW_COS, JV_MATCH_STRONG},
    {"aten::cos_", JV_EW_COS, JV_MATCH_STRONG},
    {"aten::nan_to_num", JV_EW_NAN_TO_NUM, JV_MATCH_STRONG},
    {"aten::nan_to_num_", JV_EW_NAN_TO_NUM, JV_MATCH_STRONG},
    {"aten::upsample_nearest1d", JV_EW_UPSAMPLE_NEAREST1D, JV_MATCH_STRONG},
    {"aten::upsample_nearest2d", JV_EW_UPSAMPLE_NEAREST2D, JV_MATCH_STRONG},
    {"aten::upsample_nearest3d", JV_EW_UPSAMPLE_NEAREST3D, JV_MATCH_STRONG},
};

/* aten::pow is only in the unary list: a name has one family, and TraceLens
 * puts every pow in UnaryElementwise. The unary parse handles Tensor^Scalar,
 * Tensor^Tensor and Scalar^Tensor with the same model. */
static const struct {
    const char *name;
    jv_ew_op op;
    jv_match how;
} BINARY_OPS[] = {
    {"aten::add", JV_EW_ADD, JV_MATCH_STRONG},
    {"aten::add_", JV_EW_ADD, JV_MATCH_STRONG},
    {"aten::sub", JV_EW_SUB, JV_MATCH_STRONG},
    {"aten::sub_", JV_EW_SUB, JV_MATCH_STRONG},
    {"aten::rsub", JV_EW_RSUB, JV_MATCH_WEAK}, /* runs sub */
    {"aten::mul", JV_EW_MUL, JV_MATCH_STRONG},
    {"aten::mul_", JV_EW_MUL, JV_MATCH_STRONG},
    {"aten::div", JV_EW_DIV, JV_MATCH_STRONG},
    {"aten::div_", JV_EW_DIV, JV_MATCH_STRONG},
    {"aten::where", JV_EW_WHERE, JV_MATCH_STRONG},
    {"aten::threshold_backward", JV_EW_THRESHOLD_BACKWARD, JV_MATCH_STRONG},
    {"aten::sigmoid_backward", JV_EW_SIGMOID_BACKWARD, JV_MATCH_STRONG},
    {"aten::tanh_backward", JV_EW_TANH_BACKWARD, JV_MATCH_STRONG},
    {"aten::gelu_backward", JV_EW_GELU_BACKWARD, JV_MATCH_STRONG},
    {"aten::silu_backward", JV_EW_SILU_BACKWARD, JV_MATCH_STRONG},
    {"aten::maximum", JV_EW_MAXIMUM, JV_MATCH_STRONG},
    {"aten::minimum", JV_EW_MINIMUM, JV_MATCH_STRONG},
    {"aten::eq", JV_EW_EQ, JV_MATCH_STRONG},
    {"aten::eq_", JV_EW_EQ, JV_MATCH_STRONG},
    {"aten::ne", JV_EW_NE, JV_MATCH_STRONG},
    {"aten::ne_", JV_EW_NE, JV_MATCH_STRONG},
    {"aten::lt", JV_EW_LT, JV_MATCH_STRONG},
    {"aten::lt_", JV_EW_LT, JV_MATCH_STRONG},
    {"aten::le", JV_EW_LE, JV_MATCH_STRONG},
    {"aten::le_", JV_EW_LE, JV_MATCH_STRONG},
    {"aten::gt", JV_EW_GT, JV_MATCH_STRONG},
    {"aten::gt_", JV_EW_GT, JV_MATCH_STRONG},
    {"aten::ge", JV_EW_GE, JV_MATCH_STRONG},
    {"aten::ge_", JV_EW_GE, JV_MATCH_STRONG},
    {"aten::masked_fill", JV_EW_MASKED_FILL, JV_MATCH_WEAK}, /* clone + masked_fill_ */
    {"aten::masked_fill_", JV_EW_MASKED_FILL, JV_MATCH_STRONG},
    {"aten::addcmul", JV_EW_ADDCMUL, JV_MATCH_STRONG},
    {"aten::addcmul_", JV_EW_ADDCMUL, JV_MATCH_STRONG},
    {"aten::addcdiv", JV_EW_ADDCDIV, JV_MATCH_STRONG},
    {"aten::addcdiv_", JV_EW_ADDCDIV, JV_MATCH_STRONG},
    {"aten::lerp", JV_EW_LERP, JV_MATCH_STRONG},
    {"aten::lerp_", JV_EW_LERP, JV_MATCH_STRONG},
};

/* operand slot kinds */
enum { SLOT_NONE = 0, SLOT_T /* tensor */, SLOT_TS /* tensor or Scalar */, SLOT_TSO /* tensor, Scalar or None */ };

/* output dtype rules */
enum {
    OUT_PROMOTE,  /* PyTorch result_type of the operands */
    OUT_FLOAT,    /* result_type, integers and bool -> the default float (float32) */
    OUT_BOOL,     /* comparisons */
    OUT_SELF,     /* in[0]'s dtype (copy_: dst's) */
    OUT_CAST,     /* aten::to / _to_copy: the dtype argument */
    OUT_ABS,      /* complex -> its real type, else in[0]'s */
    OUT_WHERE,    /* result_type of in[1], in[2] (the condition does not take part) */
    OUT_PROMOTE01 /* result_type of in[0], in[1] (lerp's weight, masked values excluded) */
};

/* where self (argument 0) goes */
enum {
    SELF_OPERAND, /* self is in[0] (read) */
    SELF_DST      /* copy_/fill_/zero_: self is only the output */
};

typedef struct {
    signed char slot_arg[3]; /* argument index of each operand slot, -1 none */
    unsigned char slot[3];   /* SLOT_* */
    unsigned char out_rule;  /* OUT_* */
    unsigned char self_role; /* SELF_* */
    unsigned char max_args;  /* positional arguments of the widest overload (without out=) */
    unsigned char outable;   /* an out= overload exists (a trailing tensor) */
    unsigned char bwd;
} op_info;

#define U1(rule)                                                                                                       \
    { {0, -1, -1}, {SLOT_T, 0, 0}, rule, SELF_OPERAND, 1, 1, 0 }
#define B2(rule, maxa)                                                                                                 \
    { {0, 1, -1}, {SLOT_TS, SLOT_TS, 0}, rule, SELF_OPERAND, maxa, 1, 0 }
#define BWD2(maxa)                                                                                                     \
    { {0, 1, -1}, {SLOT_T, SLOT_T, 0}, OUT_PROMOTE, SELF_OPERAND, maxa, 1, 1 }

static const op_info INFO[JV_EW_OP_COUNT] = {
    [JV_EW_ADD] = B2(OUT_PROMOTE, 3),
    [JV_EW_SUB] = B2(OUT_PROMOTE, 3),
    [JV_EW_RSUB] = B2(OUT_PROMOTE, 3),
    [JV_EW_MUL] = B2(OUT_PROMOTE, 2),
    [JV_EW_DIV] = B2(OUT_FLOAT, 3),
    [JV_EW_MAXIMUM] = B2(OUT_PROMOTE, 2),
    [JV_EW_MINIMUM] = B2(OUT_PROMOTE, 2),
    [JV_EW_EQ] = B2(OUT_BOOL, 2),
    [JV_EW_NE] = B2(OUT_BOOL, 2),
    [JV_EW_LT] = B2(OUT_BOOL, 2),
    [JV_EW_LE] = B2(OUT_BOOL, 2),
    [JV_EW_GT] = B2(OUT_BOOL, 2),
    [JV_EW_GE] = B2(OUT_BOOL, 2),
    [JV_EW_POW] = B2(OUT_PROMOTE, 2),
    [JV_EW_WHERE] = {{0, 1, 2}, {SLOT_T, SLOT_TS, SLOT_TS}, OUT_WHERE, SELF_OPERAND, 3, 1, 0},
    [JV_EW_THRESHOLD_BACKWARD] = BWD2(3),
    [JV_EW_SIGMOID_BACKWARD] = BWD2(2),
    [JV_EW_TANH_BACKWARD] = BWD2(2),
    [JV_EW_GELU_BACKWARD] = BWD2(3),
    [JV_EW_SILU_BACKWARD] = BWD2(2),
    [JV_EW_MASKED_FILL] = {{0, 1, 2}, {SLOT_T, SLOT_T, SLOT_TS}, OUT_SELF, SELF_OPERAND, 3, 1, 0},
    [JV_EW_ADDCMUL] = {{0, 1, 2}, {SLOT_T, SLOT_T, SLOT_T}, OUT_PROMOTE, SELF_OPERAND, 4, 1, 0},
    [JV_EW_ADDCDIV] = {{0, 1, 2}, {SLOT_T, SLOT_T, SLOT_T}, OUT_PROMOTE, SELF_OPERAND, 4, 1, 0},
    [JV_EW_LERP] = {{0, 1, 2}, {SLOT_T, SLOT_T, SLOT_TS}, OUT_PROMOTE01, SELF_OPERAND, 3, 1, 0},
    [JV_EW_COPY] = {{1, -1, -1}, {SLOT_T, 0, 0}, OUT_SELF, SELF_DST, 3, 0, 0},
    [JV_EW_CLONE] = {{0, -1, -1}, {SLOT_T, 0, 0}, OUT_SELF, SELF_OPERAND, 2, 0, 0},
    [JV_EW_CONTIGUOUS] = {{0, -1, -1}, {SLOT_T, 0, 0}, OUT_SELF, SELF_OPERAND, 2, 0, 0},
    [JV_EW_TO] = {{0, -1, -1}, {SLOT_T, 0, 0}, OUT_CAST, SELF_OPERAND, 8, 0, 0},
    [JV_EW_RELU] = U1(OUT_SELF),
    [JV_EW_GELU] = {{0, -1, -1}, {SLOT_T, 0, 0}, OUT_FLOAT, SELF_OPERAND, 2, 1, 0},
    [JV_EW_SILU] = U1(OUT_FLOAT),
    [JV_EW_SIGMOID] = U1(OUT_FLOAT),
    [JV_EW_TANH] = U1(OUT_FLOAT),
    [JV_EW_NEG] = U1(OUT_SELF),
    [JV_EW_RSQRT] = U1(OUT_FLOAT),
    [JV_EW_SQRT] = U1(OUT_FLOAT),
    [JV_EW_EXP] = U1(OUT_FLOAT),
    [JV_EW_LOG] = U1(OUT_FLOAT),
    [JV_EW_ABS] = U1(OUT_ABS),
    [JV_EW_RECIPROCAL] = U1(OUT_FLOAT),
    [JV_EW_ERF] = U1(OUT_FLOAT),
    [JV_EW_SIN] = U1(OUT_FLOAT),
    [JV_EW_COS] = U1(OUT_FLOAT),
    [JV_EW_CLAMP] = {{0, 1, 2}, {SLOT_T, SLOT_TSO, SLOT_TSO}, OUT_PROMOTE, SELF_OPERAND, 3, 1, 0},
    [JV_EW_CLAMP_MIN] = {{0, 1, -1}, {SLOT_T, SLOT_TS, 0}, OUT_PROMOTE, SELF_OPERAND, 2, 1, 0},
    [JV_EW_CLAMP_MAX] = {{0, 1, -1}, {SLOT_T, SLOT_TS, 0}, OUT_PROMOTE, SELF_OPERAND, 2, 1, 0},
    [JV_EW_FILL] = {{1, -1, -1}, {SLOT_TS, 0, 0}, OUT_SELF, SELF_DST, 2, 0, 0},
    [JV_EW_ZERO] = {{-1, -1, -1}, {0, 0, 0}, OUT_SELF, SELF_DST, 1, 0, 0},
    [JV_EW_HARDTANH] = {{0, -1, -1}, {SLOT_T, 0, 0}, OUT_SELF, SELF_OPERAND, 3, 1, 0},
    [JV_EW_LEAKY_RELU] = {{0, -1, -1}, {SLOT_T, 0, 0}, OUT_SELF, SELF_OPERAND, 2, 1, 0},
    [JV_EW_NAN_TO_NUM] = {{0, -1, -1}, {SLOT_T, 0, 0}, OUT_SELF, SELF_OPERAND, 4, 1, 0},
    [JV_EW_UPSAMPLE_NEAREST1D] = {{0, -1, -1}, {SLOT_T, 0, 0}, OUT_SELF, SELF_OPERAND, 3, 1, 0},
    [JV_EW_UPSAMPLE_NEAREST2D] = {{0, -1, -1}, {SLOT_T, 0, 0}, OUT_SELF, SELF_OPERAND, 4, 1, 0},
    [JV_EW_UPSAMPLE_NEAREST3D] = {{0, -1, -1}, {SLOT_T, 0, 0}, OUT_SELF, SELF_OPERAND, 5, 1, 0},
};

static int find_unary(const char *name) {
    for (size_t i = 0; name && i < sizeof UNARY_OPS / sizeof UNARY_OPS[0]; i++)
        if (!strcmp(name, UNARY_OPS[i].name)) return (int)i;
    return -1;
}

static int find_binary(const char *name) {
    for (size_t i = 0; name && i < sizeof BINARY_OPS / sizeof BINARY_OPS[0]; i++)
        if (!strcmp(name, BINARY_OPS[i].name)) return (int)i;
    return -1;
}

jv_match jv_ew_unary_match(const char *op) {
    int i = find_unary(op);
    return i < 0 ? JV_MATCH_NONE : UNARY_OPS[i].how;
}

jv_match jv_ew_binary_match(const char *op) {
    int i = find_binary(op);
    return i < 0 ? JV_MATCH_NONE : BINARY_OPS[i].how;
}

/* ---- PyTorch type promotion (c10::promoteTypes, at::native::result_type) ---- */

static int is_fp8(jv_dtype d) {
    return d >= JV_DT_F8E4M3 && d <= JV_DT_F8E5M2FNUZ;
}
static int is_complex(jv_dtype d) {
    return d == JV_DT_C64 || d == JV_DT_C128;
}
static int is_floating(jv_dtype d) {
    return jv_dtype_is_float(d) && !is_complex(d);
}
static int is_integral(jv_dtype d) {
    return d >= JV_DT_I64 && d <= JV_DT_U8;
}

static int int_bits(jv_dtype d) {
    switch (d) {
    case JV_DT_I64: return 64;
    case JV_DT_I32: return 32;
    case JV_DT_I16: return 16;
    default: return 8;
    }
}

static jv_dtype int_of_bits(int bits) {
    return bits >= 64 ? JV_DT_I64 : bits >= 32 ? JV_DT_I32 : bits >= 16 ? JV_DT_I16 : JV_DT_I8;
}

/* promoteTypes(a, b); JV_DT_UNKNOWN stands for "undefined" and is skipped.
 * Returns JV_DT_UNKNOWN where PyTorch refuses (two different fp8 types). */
static jv_dtype promote2(jv_dtype a, jv_dtype b) {
    if (a == JV_DT_UNKNOWN) return b;
    if (b == JV_DT_UNKNOWN || a == b) return a;
    if (a == JV_DT_BOOL) return b;
    if (b == JV_DT_BOOL) return a;
    if (is_complex(a) || is_complex(b)) {
        if (a == JV_DT_C128 || b == JV_DT_C128 || a == JV_DT_F64 || b == JV_DT_F64) return JV_DT_C128;
        return JV_DT_C64;
    }
    if (is_fp8(a) || is_fp8(b)) {
        if (is_integral(a)) return b;
        if (is_integral(b)) return a;
        return JV_DT_UNKNOWN;
    }
    if (is_floating(a) && is_floating(b)) {
        if (a == JV_DT_F64 || b == JV_DT_F64) return JV_DT_F64;
        return JV_DT_F32; /* f32 with f16/bf16, or f16 with bf16 */
    }
    if (is_floating(a)) return a;
    if (is_floating(b)) return b;
    /* two integer types */
    if (a == JV_DT_U8 || b == JV_DT_U8) {
        jv_dtype s = a == JV_DT_U8 ? b : a;
        return int_bits(s) >= 16 ? s : JV_DT_I16; /* u8 with i8 -> i16 */
    }
    return int_of_bits(int_bits(a) > int_bits(b) ? int_bits(a) : int_bits(b));
}

static jv_dtype to_complex(jv_dtype d) {
    return d == JV_DT_F64 ? JV_DT_C128 : JV_DT_C64;
}

/* c10 combine_categories(higher, lower) */
static jv_dtype combine_categories(jv_dtype higher, jv_dtype lower) {
    if (is_complex(higher)) return higher;
    if (is_complex(lower)) return is_floating(higher) ? to_complex(higher) : lower;
    if (is_floating(higher)) return higher;
    if (higher == JV_DT_BOOL || is_floating(lower)) return promote2(higher, lower);
    if (higher != JV_DT_UNKNOWN) return higher;
    return lower;
}

typedef struct {
    jv_dtype dim, zero, wrapped;
    int unknown; /* a tensor operand of unknown dtype */
} promo;

static void promo_add(promo *s, const jv_ew_operand *o) {
    if (o->kind == JV_EW_TENSOR) {
        if (o->t.dtype == JV_DT_UNKNOWN)
            s->unknown = 1;
        else if (o->t.ndim > 0)
            s->dim = promote2(s->dim, o->t.dtype);
        else
            s->zero = promote2(s->zero, o->t.dtype);
    } else if (o->kind == JV_EW_SCALAR && o->t.dtype != JV_DT_UNKNOWN) {
        /* a wrapped Python number: float -> the default dtype, complex -> the default complex */
        jv_dtype w = o->t.dtype == JV_DT_F64 ? JV_DT_F32 : o->t.dtype == JV_DT_C128 ? JV_DT_C64 : o->t.dtype;
        s->wrapped = promote2(s->wrapped, w);
    }
    /* a Scalar whose value the trace did not record cannot be classified: left out */
}

static jv_dtype promo_result(const promo *s) {
    if (s->unknown) return JV_DT_UNKNOWN;
    return combine_categories(s->dim, combine_categories(s->zero, s->wrapped));
}

/* ---- argument helpers ---- */

/* 1 when s is a single integer literal ("3", "-1") */
static int parse_int1(const char *s, long long *v) {
    if (!s) return 0;
    while (*s == ' ')
        s++;
    if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+')) return 0;
    return jv_parse_ints(s, v, 1) == 1;
}

/* Classifies a Scalar operand from its concrete text. */
static void set_scalar(jv_ew_operand *o, const char *text) {
    o->kind = JV_EW_SCALAR;
    memset(&o->t, 0, sizeof o->t);
    o->t.has_strides = 1;
    o->t.dtype = JV_DT_UNKNOWN;
    o->layout = JV_LAYOUT_CONTIGUOUS;
    o->has_value = 0;
    o->value = 0;
    if (!text || !*text) return;
    long long iv;
    double dv;
    int b;
    if (jv_parse_bool(text, &b) && (text[0] == 'T' || text[0] == 'F' || text[0] == 't' || text[0] == 'f')) {
        o->t.dtype = JV_DT_BOOL, o->has_value = 1, o->value = b;
    } else if (parse_int1(text, &iv)) {
        o->t.dtype = JV_DT_I64, o->has_value = 1, o->value = (double)iv;
    } else if (jv_parse_double(text, &dv)) {
        o->t.dtype = JV_DT_F64, o->has_value = 1, o->value = dv;
    } else if (strchr(text, 'j')) {
        o->t.dtype = JV_DT_C128; /* Python complex "(1+2j)": value not kept */
    }
}

/* 1 when every dim is >= 0 and the element count fits int64 */
static int tensor_ok(const jv_tensor *t) {
    if (t->ndim < 0 || t->ndim > JV_MAX_DIMS) return 0;
    for (int i = 0; i < t->ndim; i++)
        if (t->shape[i] < 0) return 0;
    return jv_tensor_numel(t) >= 0;
}

/* Fills operand o from argument i as slot kind k. Returns 0 when the
 * argument is not what the slot accepts. */
static int read_operand(const jv_opcall *c, int i, int k, jv_ew_operand *o) {
    memset(o, 0, sizeof *o);
    o->arg = i;
    if (i < 0 || i >= c->nargs) return 0;
    const jv_arg *a = &c->args[i];
    snprintf(o->type, sizeof o->type, "%s", a->type);
    if (a->kind == JV_ARG_TENSOR) {
        o->kind = JV_EW_TENSOR;
        o->t = a->t;
        o->layout = jv_tensor_layout(&o->t);
        return 1;
    }
    if (k == SLOT_T) return 0;
    if (a->kind == JV_ARG_VALUE) {
        /* a number, not a list */
        if (strstr(a->type, "List") || a->value[0] == '[' || !strcmp(a->type, "String")) return 0;
        set_scalar(o, a->value);
        return 1;
    }
    if (a->kind == JV_ARG_NONE && k == SLOT_TSO) {
        o->kind = JV_EW_ABSENT;
        return 1;
    }
    return 0;
}

/* the numeric concrete value of argument i */
static int arg_double(const jv_opcall *c, int i, double *v) {
    return jv_parse_double(jv_opcall_value(c, i), v);
}

/* Parses "[2.0, 2.0]", "(2., 3.)" or "2.0" into out (at most max). Returns the count, or -1. */
static int parse_doubles(const char *s, double *out, int max) {
    if (!s) return -1;
    while (*s == ' ')
        s++;
    if (*s != '[' && *s != '(') return jv_parse_double(s, out) ? 1 : -1;
    char close = *s == '[' ? ']' : ')';
    s++;
    int n = 0;
    for (;;) {
        while (*s == ' ')
            s++;
        if (*s == close) break;
        char buf[64];
        size_t len = 0;
        while (s[len] && s[len] != ',' && s[len] != close)
            len++;
        if (len == 0 || len >= sizeof buf || n >= max) return -1;
        memcpy(buf, s, len);
        buf[len] = 0;
        if (!jv_parse_double(buf, &out[n])) return -1;
        n++;
        s += len;
        if (*s == ',') s++;
    }
    s++;
    while (*s == ' ')
        s++;
    return *s ? -1 : n;
}

/* 1 when t is dense and non-overlapping (its strides are a permutation of a
 * contiguous layout): an output created from it keeps that layout */
static int dense_layout(const jv_tensor *t) {
    return t->has_strides && jv_tensor_numel(t) > 0 && jv_tensor_dense(t);
}

/* channels-last strides for a 4-d or 5-d shape */
static void set_channels_last(jv_tensor *t) {
    int64_t s = 1;
    t->strides[1] = s;
    s *= t->shape[1] > 1 ? t->shape[1] : 1;
    for (int i = t->ndim - 1; i >= 2; i--) {
        t->strides[i] = s;
        s *= t->shape[i] > 1 ? t->shape[i] : 1;
    }
    t->strides[0] = s;
    t->has_strides = 1;
}

/* ---- parse ---- */

/* output sizes of upsample_nearest{1,2,3}d; fills d->out.shape */
static jv_status parse_upsample(const jv_opcall *c, jv_elementwise_desc *g, jv_err *err) {
    const jv_tensor *x = &g->in[0].t;
    int sp = g->spatial;
    if (x->ndim != sp + 2) JV_FAIL(err, JV_ERR_FORMAT, "%s: input is not %d-d", c->name, sp + 2);
    long long size[3];
    double sc[3] = {0, 0, 0};
    int nsize = jv_parse_ints(jv_opcall_value(c, 1), size, 3);
    /* scales: the .vec overload's scale_factors list in argument 2, or one scale per
     * dim in arguments 2.. */
    const char *v2 = jv_opcall_value(c, 2);
    int nsc = 0;
    if (v2 && (v2[0] == '[' || v2[0] == '(')) {
        nsc = parse_doubles(v2, sc, 3);
        if (nsc != sp && nsc != 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: scale_factors do not match the input", c->name);
    } else {
        for (int i = 0; i < sp; i++) {
            if (arg_double(c, 2 + i, &sc[i]))
                nsc++;
            else
                sc[i] = 0;
        }
    }
    for (int i = 0; i < sp; i++) {
        if (!(sc[i] >= 0 && sc[i] < 1e12)) JV_FAIL(err, JV_ERR_FORMAT, "%s: bad scale", c->name);
        g->scales[i] = sc[i];
    }
    g->out = *x;
    if (nsize == sp) {
        for (int i = 0; i < sp; i++)
            g->out.shape[2 + i] = size[i];
    } else if (nsize <= 0 && nsc == sp) {
        for (int i = 0; i < sp; i++) {
            double o = floor((double)x->shape[2 + i] * sc[i]);
            if (!(o < 9e15)) JV_FAIL(err, JV_ERR_FORMAT, "%s: output size overflows", c->name);
            g->out.shape[2 + i] = (int64_t)o;
        }
    } else {
        JV_FAIL(err, JV_ERR_FORMAT, "%s: output size missing or not %d ints", c->name, sp);
    }
    for (int i = 0; i < sp; i++)
        if (g->out.shape[2 + i] <= 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: output size must be positive", c->name);
    if (jv_tensor_numel(&g->out) < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: output size overflows", c->name);
    if (x->has_strides && jv_tensor_layout(x) == JV_LAYOUT_CHANNELS_LAST)
        set_channels_last(&g->out);
    else
        jv_tensor_set_contiguous(&g->out);
    g->out.has_strides = 1;
    return JV_OK;
}

/* the dtype argument of aten::to / _to_copy: *dt, or 0 when it is unknown */
static int cast_dtype(const jv_opcall *c, const jv_tensor *self, jv_dtype *dt) {
    const jv_tensor *other = jv_opcall_tensor(c, 1);
    if (other) { /* to(self, other, ...) */
        *dt = other->dtype;
        return *dt != JV_DT_UNKNOWN;
    }
    /* to.device(self, device, dtype, non_blocking, copy, memory_format) has 6
     * arguments; to.dtype (5), to.dtype_layout (8) and _to_copy (7) take dtype first */
    int i = (!strcmp(c->name, "aten::to") && c->nargs == 6) ? 2 : 1;
    if (i >= c->nargs || c->args[i].kind == JV_ARG_NONE) { /* dtype=None: a device or layout copy */
        *dt = self->dtype;
        return *dt != JV_DT_UNKNOWN;
    }
    const char *v = jv_opcall_value(c, i);
    long long code;
    if (parse_int1(v, &code))
        *dt = jv_dtype_of_scalar_type(code);
    else
        *dt = jv_dtype_parse(v);
    return *dt != JV_DT_UNKNOWN;
}

static jv_status ew_parse(const jv_opcall *c, jv_desc *d, jv_err *err, int binary) {
    jv_elementwise_desc *g = (jv_elementwise_desc *)(void *)d->data;
    memset(g, 0, sizeof *g);
    const char *name = c->name ? c->name : "";
    int oi = binary ? find_binary(name) : find_unary(name);
    if (oi < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: not a %s elementwise op", name, binary ? "binary" : "unary");
    g->op = binary ? BINARY_OPS[oi].op : UNARY_OPS[oi].op;
    g->name = binary ? BINARY_OPS[oi].name : UNARY_OPS[oi].name;
    g->binary = binary;
    const op_info *inf = &INFO[g->op];
    size_t len = strlen(g->name);
    g->inplace = len > 0 && g->name[len - 1] == '_';
    g->write_only = g->op == JV_EW_FILL || g->op == JV_EW_ZERO;
    g->out_arg = -1;
    g->alpha = 1, g->value = 1, g->slope = 0.01, g->min = -1, g->max = 1;
    d->bwd = inf->bwd;
    if (c->nargs <= 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: no arguments (trace without shapes)", name);

    /* out= : a trailing tensor past the operand slots */
    int last_slot = g->op == JV_EW_COPY || g->op == JV_EW_FILL || g->op == JV_EW_ZERO ? 0 : -1;
    for (int k = 0; k < 3; k++)
        if (inf->slot[k] && inf->slot_arg[k] > last_slot) last_slot = inf->slot_arg[k];
    int nargs = c->nargs;
    if (inf->outable && !g->inplace && nargs - 1 > last_slot && c->args[nargs - 1].kind == JV_ARG_TENSOR) {
        g->out_arg = nargs - 1;
        nargs--;
    }
    if (nargs > inf->max_args)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: %d arguments, at most %d expected", name, c->nargs, inf->max_args);

    /* operands */
    for (int k = 0; k < 3; k++) {
        if (!inf->slot[k]) break;
        if (!read_operand(c, inf->slot_arg[k], inf->slot[k], &g->in[k]))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: argument %d is not a %s", name, inf->slot_arg[k],
                    inf->slot[k] == SLOT_T ? "tensor" : "tensor or scalar");
        g->arity = k + 1;
    }
    if (g->op == JV_EW_ZERO) { /* zero_ = fill_(0) */
        set_scalar(&g->in[0], "0");
        g->in[0].arg = -1;
        snprintf(g->in[0].type, sizeof g->in[0].type, "Scalar");
        g->arity = 1;
    }
    if (g->op == JV_EW_WHERE && c->nargs < 3)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: where(condition) is nonzero, not elementwise", name);
    if (g->op == JV_EW_CLAMP && g->in[1].kind == JV_EW_ABSENT && g->in[2].kind == JV_EW_ABSENT)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: neither min nor max given", name);

    int ntensor = 0;
    for (int k = 0; k < g->arity; k++) {
        if (g->in[k].kind != JV_EW_TENSOR) continue;
        ntensor++;
        if (!tensor_ok(&g->in[k].t))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: argument %d has a negative or huge shape", name, g->in[k].arg);
    }

    /* self as the output: in-place ops, copy_/fill_/zero_, and aten::copy (a new
     * tensor with self's shape, strides and dtype); out= tensor */
    const jv_tensor *self = NULL;
    if (inf->self_role == SELF_DST || (g->inplace && g->in[0].kind == JV_EW_TENSOR && g->in[0].arg == 0)) {
        self = jv_opcall_tensor(c, 0);
        if (!self) JV_FAIL(err, JV_ERR_FORMAT, "%s: self is not a tensor", name);
        if (!tensor_ok(self)) JV_FAIL(err, JV_ERR_FORMAT, "%s: self has a negative or huge shape", name);
        ntensor++;
    } else if (g->inplace) {
        JV_FAIL(err, JV_ERR_FORMAT, "%s: in-place op without a tensor self", name);
    }
    if (ntensor == 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: no tensor operand", name);
    const jv_tensor *outt = g->out_arg >= 0 ? jv_opcall_tensor(c, g->out_arg) : NULL;
    if (outt && !tensor_ok(outt)) JV_FAIL(err, JV_ERR_FORMAT, "%s: out has a negative or huge shape", name);

    /* output shape: broadcast of the tensor operands (and self) */
    jv_tensor bs;
    memset(&bs, 0, sizeof bs);
    if (self) bs.ndim = self->ndim, memcpy(bs.shape, self->shape, sizeof bs.shape);
    for (int k = 0; k < g->arity; k++) {
        if (g->in[k].kind != JV_EW_TENSOR) continue;
        if (!jv_tensor_broadcast(&bs, &g->in[k].t, &bs))
            JV_FAIL(err, JV_ERR_FORMAT, "%s: operand shapes do not broadcast", name);
    }
    if (self && !jv_tensor_same_shape(&bs, self))
        JV_FAIL(err, JV_ERR_FORMAT, "%s: operands do not broadcast to self's shape", name);
    if (jv_tensor_numel(&bs) < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: output size overflows", name);

    /* output tensor */
    if (g->op >= JV_EW_UPSAMPLE_NEAREST1D && g->op <= JV_EW_UPSAMPLE_NEAREST3D) {
        g->spatial = 1 + (int)(g->op - JV_EW_UPSAMPLE_NEAREST1D);
        JV_CHECK(parse_upsample(c, g, err));
        g->out.dtype = g->in[0].t.dtype;
    } else if (self) {
        g->out = *self;
        g->out_arg = 0;
        if (!g->out.has_strides) jv_tensor_set_contiguous(&g->out);
    } else {
        g->out = bs;
        jv_tensor_set_contiguous(&g->out);
        if (g->op != JV_EW_CONTIGUOUS) {
            for (int k = 0; k < g->arity; k++) {
                const jv_tensor *t = &g->in[k].t;
                if (g->in[k].kind == JV_EW_TENSOR && jv_tensor_same_shape(t, &bs) && dense_layout(t)) {
                    memcpy(g->out.strides, t->strides, sizeof g->out.strides);
                    break;
                }
            }
        }
    }
    if (outt && g->out_arg != 0) {
        if (jv_tensor_same_shape(outt, &g->out) && outt->has_strides)
            memcpy(g->out.strides, outt->strides, sizeof g->out.strides);
    }

    /* output dtype */
    int rule = inf->out_rule;
    if (g->op == JV_EW_DIV) {
        const char *rm = jv_opcall_value(c, 2);
        if (rm && strstr(rm, "trunc"))
            g->rounding = 1;
        else if (rm && strstr(rm, "floor"))
            g->rounding = 2;
        if (g->rounding) rule = OUT_PROMOTE; /* floor/trunc division keeps integers */
    }
    promo pr = {JV_DT_UNKNOWN, JV_DT_UNKNOWN, JV_DT_UNKNOWN, 0};
    jv_dtype od = JV_DT_UNKNOWN;
    switch (rule) {
    case OUT_PROMOTE:
    case OUT_FLOAT:
        for (int k = 0; k < g->arity; k++)
            promo_add(&pr, &g->in[k]);
        od = promo_result(&pr);
        if (rule == OUT_FLOAT && (is_integral(od) || od == JV_DT_BOOL)) od = JV_DT_F32;
        break;
    case OUT_PROMOTE01:
        promo_add(&pr, &g->in[0]);
        promo_add(&pr, &g->in[1]);
        od = promo_result(&pr);
        break;
    case OUT_WHERE:
        promo_add(&pr, &g->in[1]);
        promo_add(&pr, &g->in[2]);
        od = promo_result(&pr);
        break;
    case OUT_BOOL: od = JV_DT_BOOL; break;
    case OUT_ABS:
        od = g->in[0].t.dtype == JV_DT_C64 ? JV_DT_F32 : g->in[0].t.dtype == JV_DT_C128 ? JV_DT_F64 : g->in[0].t.dtype;
        break;
    case OUT_CAST:
        if (!cast_dtype(c, &g->in[0].t, &od)) od = JV_DT_UNKNOWN;
        break;
    default: od = self ? self->dtype : g->in[0].t.dtype; break;
    }
    if (self) od = self->dtype;                    /* in-place, copy_, fill_, copy: the destination's dtype */
    if (outt && g->out_arg != 0) od = outt->dtype; /* out=: its dtype */
    g->out.dtype = od;
    g->out_layout = jv_tensor_layout(&g->out);
    g->n_out = jv_tensor_numel(&g->out);
    if (g->n_out < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: output size overflows", name);

    /* compute dtype: the first tensor argument (TraceLens: Input type[0]) */
    int best = 1 << 30;
    g->compute = JV_DT_UNKNOWN;
    if (g->out_arg == 0) best = 0, g->compute = g->out.dtype;
    for (int k = 0; k < g->arity; k++)
        if (g->in[k].kind == JV_EW_TENSOR && g->in[k].arg >= 0 && g->in[k].arg < best)
            best = g->in[k].arg, g->compute = g->in[k].t.dtype;

    /* scalar arguments */
    double v;
    const char *s;
    switch (g->op) {
    case JV_EW_ADD:
    case JV_EW_SUB:
    case JV_EW_RSUB:
        if (arg_double(c, 2, &v)) g->alpha = v;
        break;
    case JV_EW_THRESHOLD_BACKWARD:
        if (arg_double(c, 2, &v)) g->threshold = v;
        break;
    case JV_EW_GELU:
    case JV_EW_GELU_BACKWARD:
        s = jv_opcall_value(c, g->op == JV_EW_GELU ? 1 : 2);
        g->gelu_tanh = s && strstr(s, "tanh") != NULL;
        break;
    case JV_EW_CLAMP:
    case JV_EW_CLAMP_MIN:
    case JV_EW_CLAMP_MAX: {
        const jv_ew_operand *lo = g->op == JV_EW_CLAMP_MAX ? NULL : &g->in[1];
        const jv_ew_operand *hi = g->op == JV_EW_CLAMP ? &g->in[2] : g->op == JV_EW_CLAMP_MAX ? &g->in[1] : NULL;
        if (lo && lo->kind == JV_EW_SCALAR && lo->has_value) g->has_min = 1, g->min = lo->value;
        if (hi && hi->kind == JV_EW_SCALAR && hi->has_value) g->has_max = 1, g->max = hi->value;
        if (!g->has_min) g->min = 0;
        if (!g->has_max) g->max = 0;
        break;
    }
    case JV_EW_HARDTANH:
        g->has_min = g->has_max = 1;
        if (arg_double(c, 1, &v)) g->min = v;
        if (arg_double(c, 2, &v)) g->max = v;
        break;
    case JV_EW_LEAKY_RELU:
        if (arg_double(c, 1, &v)) g->slope = v;
        break;
    case JV_EW_FILL:
    case JV_EW_ZERO:
    case JV_EW_MASKED_FILL: {
        const jv_ew_operand *f = &g->in[g->op == JV_EW_MASKED_FILL ? 2 : 0];
        if (f->kind == JV_EW_SCALAR && f->has_value) g->has_fill = 1, g->fill = f->value;
        break;
    }
    case JV_EW_ADDCMUL:
    case JV_EW_ADDCDIV:
        if (arg_double(c, 3, &v)) g->value = v;
        break;
    case JV_EW_POW:
        if (g->in[1].kind == JV_EW_SCALAR && g->in[1].has_value) g->has_exponent = 1, g->exponent = g->in[1].value;
        break;
    case JV_EW_LERP:
        if (g->in[2].kind == JV_EW_SCALAR && g->in[2].has_value) g->has_weight = 1, g->weight = g->in[2].value;
        break;
    case JV_EW_NAN_TO_NUM:
        if (arg_double(c, 1, &v)) g->nan = v;
        if (arg_double(c, 2, &v)) g->has_posinf = 1, g->posinf = v;
        if (arg_double(c, 3, &v)) g->has_neginf = 1, g->neginf = v;
        break;
    default: break;
    }
    return JV_OK;
}

jv_status jv_ew_unary_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    return ew_parse(c, d, err, 0);
}

jv_status jv_ew_binary_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    return ew_parse(c, d, err, 1);
}

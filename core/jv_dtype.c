/* jv_dtype: the table of element types and the half-precision conversions. */
#include "jv_dtype.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    const char *trace; /* canonical trace name */
    const char *shortn;
    size_t size;
    int is_float;
} dt_info;

static const dt_info INFO[JV_DT_COUNT] = {
    [JV_DT_UNKNOWN] = {"", "unknown", 0, 0},
    [JV_DT_F64] = {"double", "fp64", 8, 1},
    [JV_DT_F32] = {"float", "fp32", 4, 1},
    [JV_DT_F16] = {"c10::Half", "fp16", 2, 1},
    [JV_DT_BF16] = {"c10::BFloat16", "bf16", 2, 1},
    [JV_DT_F8E4M3] = {"c10::Float8_e4m3fn", "fp8", 1, 1},
    [JV_DT_F8E5M2] = {"c10::Float8_e5m2", "fp8", 1, 1},
    [JV_DT_F8E4M3FNUZ] = {"c10::Float8_e4m3fnuz", "fp8", 1, 1},
    [JV_DT_F8E5M2FNUZ] = {"c10::Float8_e5m2fnuz", "fp8", 1, 1},
    [JV_DT_I64] = {"long int", "int64", 8, 0},
    [JV_DT_I32] = {"int", "int32", 4, 0},
    [JV_DT_I16] = {"short int", "int16", 2, 0},
    [JV_DT_I8] = {"signed char", "int8", 1, 0},
    [JV_DT_U8] = {"unsigned char", "uint8", 1, 0},
    [JV_DT_BOOL] = {"bool", "bool", 1, 0},
    [JV_DT_C64] = {"c10::complex<float>", "complex64", 8, 1},
    [JV_DT_C128] = {"c10::complex<double>", "complex128", 16, 1},
};

/* other spellings seen in traces and IR files */
static const struct {
    const char *name;
    jv_dtype dt;
} ALIASES[] = {
    {"long", JV_DT_I64},
    {"int64_t", JV_DT_I64},
    {"int32_t", JV_DT_I32},
    {"short", JV_DT_I16},
    {"int8_t", JV_DT_I8},
    {"uint8_t", JV_DT_U8},
    {"float32", JV_DT_F32},
    {"float16", JV_DT_F16},
    {"half", JV_DT_F16},
    {"bfloat16", JV_DT_BF16},
    {"float64", JV_DT_F64},
    {"int64", JV_DT_I64},
    {"int32", JV_DT_I32},
    {"int16", JV_DT_I16},
    {"int8", JV_DT_I8},
    {"uint8", JV_DT_U8},
    {"torch.float32", JV_DT_F32},
    {"torch.float16", JV_DT_F16},
    {"torch.bfloat16", JV_DT_BF16},
    {"torch.float64", JV_DT_F64},
    {"torch.int64", JV_DT_I64},
    {"torch.int32", JV_DT_I32},
    {"torch.bool", JV_DT_BOOL},
    {"torch.uint8", JV_DT_U8},
    {"torch.int8", JV_DT_I8},
};

jv_dtype jv_dtype_parse(const char *s) {
    if (!s || !*s) return JV_DT_UNKNOWN;
    for (int d = 1; d < JV_DT_COUNT; d++) {
        if (!strcmp(s, INFO[d].trace)) return (jv_dtype)d;
    }
    for (int d = 1; d < JV_DT_COUNT; d++) {
        /* short names, except the shared "fp8" */
        if (d < JV_DT_F8E4M3 || d > JV_DT_F8E5M2FNUZ) {
            if (!strcmp(s, INFO[d].shortn)) return (jv_dtype)d;
        }
    }
    for (size_t i = 0; i < sizeof ALIASES / sizeof ALIASES[0]; i++) {
        if (!strcmp(s, ALIASES[i].name)) return ALIASES[i].dt;
    }
    return JV_DT_UNKNOWN;
}

jv_dtype jv_dtype_of_scalar_type(long long code) {
    switch (code) {
    case 0: return JV_DT_U8;
    case 1: return JV_DT_I8;
    case 2: return JV_DT_I16;
    case 3: return JV_DT_I32;
    case 4: return JV_DT_I64;
    case 5: return JV_DT_F16;
    case 6: return JV_DT_F32;
    case 7: return JV_DT_F64;
    case 9: return JV_DT_C64;
    case 10: return JV_DT_C128;
    case 11: return JV_DT_BOOL;
    case 15: return JV_DT_BF16;
    case 23: return JV_DT_F8E5M2;
    case 24: return JV_DT_F8E4M3;
    case 25: return JV_DT_F8E5M2FNUZ;
    case 26: return JV_DT_F8E4M3FNUZ;
    default: return JV_DT_UNKNOWN;
    }
}

size_t jv_dtype_size(jv_dtype d) {
    return (unsigned)d < JV_DT_COUNT ? INFO[d].size : 0;
}

const char *jv_dtype_trace_name(jv_dtype d) {
    return (unsigned)d < JV_DT_COUNT ? INFO[d].trace : "";
}

const char *jv_dtype_short(jv_dtype d) {
    return (unsigned)d < JV_DT_COUNT ? INFO[d].shortn : "unknown";
}

int jv_dtype_is_float(jv_dtype d) {
    return (unsigned)d < JV_DT_COUNT && INFO[d].is_float;
}

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float float_of(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float jv_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    if (exp == 0x1f) return float_of(sign | 0x7f800000u | (man << 13)); /* inf / NaN */
    if (exp == 0) {
        if (!man) return float_of(sign);
        /* subnormal: value = man * 2^-24 */
        float v = (float)man * 0x1p-24f;
        return sign ? -v : v;
    }
    return float_of(sign | ((exp + 112u) << 23) | (man << 13));
}

uint16_t jv_f32_to_f16(float f) {
    uint32_t u = bits_of(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t exp = (u >> 23) & 0xffu, man = u & 0x7fffffu;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0)); /* inf / NaN */
    int e = (int)exp - 127 + 15;
    if (e >= 0x1f) return (uint16_t)(sign | 0x7c00u); /* overflow -> inf */
    if (e <= 0) {
        /* subnormal or zero: shift the full mantissa, round to nearest even */
        if (e < -10) return sign;
        uint32_t m = man | 0x800000u;
        int shift = 14 - e;
        uint32_t half = 1u << (shift - 1);
        uint32_t r = m >> shift, rem = m & ((1u << shift) - 1);
        if (rem > half || (rem == half && (r & 1))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) r++; /* may carry into the exponent: correct */
    return (uint16_t)(sign | r);
}

float jv_bf16_to_f32(uint16_t b) {
    return float_of((uint32_t)b << 16);
}

uint16_t jv_f32_to_bf16(float f) {
    uint32_t u = bits_of(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

int jv_dtype_is_numeric(jv_dtype d) {
    switch (d) {
    case JV_DT_F64:
    case JV_DT_F32:
    case JV_DT_F16:
    case JV_DT_BF16:
    case JV_DT_I64:
    case JV_DT_I32:
    case JV_DT_I16:
    case JV_DT_I8:
    case JV_DT_U8:
    case JV_DT_BOOL: return 1;
    default: return 0;
    }
}

double jv_dtype_load(jv_dtype d, const void *base, int64_t off) {
    switch (d) {
    case JV_DT_F64: return ((const double *)base)[off];
    case JV_DT_F32: return ((const float *)base)[off];
    case JV_DT_F16: return jv_f16_to_f32(((const uint16_t *)base)[off]);
    case JV_DT_BF16: return jv_bf16_to_f32(((const uint16_t *)base)[off]);
    case JV_DT_I64: return (double)((const int64_t *)base)[off];
    case JV_DT_I32: return ((const int32_t *)base)[off];
    case JV_DT_I16: return ((const int16_t *)base)[off];
    case JV_DT_I8: return ((const int8_t *)base)[off];
    case JV_DT_U8: return ((const uint8_t *)base)[off];
    case JV_DT_BOOL: return ((const uint8_t *)base)[off] != 0;
    default: return NAN;
    }
}

/* v truncated toward zero and clamped to [lo, hi]; NaN gives 0. */
static double sat(double v, double lo, double hi) {
    if (v != v) return 0;
    v = trunc(v);
    return v < lo ? lo : v > hi ? hi : v;
}

void jv_dtype_store(jv_dtype d, void *base, int64_t off, double v) {
    switch (d) {
    case JV_DT_F64: ((double *)base)[off] = v; break;
    case JV_DT_F32: ((float *)base)[off] = (float)v; break;
    case JV_DT_F16: ((uint16_t *)base)[off] = jv_f32_to_f16((float)v); break;
    case JV_DT_BF16: ((uint16_t *)base)[off] = jv_f32_to_bf16((float)v); break;
    case JV_DT_I64: ((int64_t *)base)[off] = (int64_t)sat(v, -9223372036854775808.0, 9223372036854774784.0); break;
    case JV_DT_I32: ((int32_t *)base)[off] = (int32_t)sat(v, INT32_MIN, INT32_MAX); break;
    case JV_DT_I16: ((int16_t *)base)[off] = (int16_t)sat(v, INT16_MIN, INT16_MAX); break;
    case JV_DT_I8: ((int8_t *)base)[off] = (int8_t)sat(v, INT8_MIN, INT8_MAX); break;
    case JV_DT_U8: ((uint8_t *)base)[off] = (uint8_t)sat(v, 0, UINT8_MAX); break;
    case JV_DT_BOOL: ((uint8_t *)base)[off] = v != 0; break;
    default: break;
    }
}

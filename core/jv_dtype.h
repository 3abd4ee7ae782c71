/* jv_dtype: element types as PyTorch traces name them, their sizes, the short
 * names used in compute specs, and fp16/bf16 <-> fp32 conversion. */
#ifndef JV_DTYPE_H
#define JV_DTYPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    JV_DT_UNKNOWN = 0, /* not a tensor type we know: size 0 */
    JV_DT_F64,
    JV_DT_F32,
    JV_DT_F16,
    JV_DT_BF16,
    JV_DT_F8E4M3,     /* c10::Float8_e4m3fn */
    JV_DT_F8E5M2,     /* c10::Float8_e5m2 */
    JV_DT_F8E4M3FNUZ, /* c10::Float8_e4m3fnuz (AMD) */
    JV_DT_F8E5M2FNUZ, /* c10::Float8_e5m2fnuz (AMD) */
    JV_DT_I64,
    JV_DT_I32,
    JV_DT_I16,
    JV_DT_I8,
    JV_DT_U8,
    JV_DT_BOOL,
    JV_DT_C64,  /* c10::complex<float> */
    JV_DT_C128, /* c10::complex<double> */
    JV_DT_COUNT
} jv_dtype;

/* Parses a trace "Input type" entry ("float", "c10::BFloat16", "long int",
 * "bool", ...) or a short name ("fp32", "bf16", "int64", ...).
 * Returns JV_DT_UNKNOWN for anything else, including "Scalar" and "". */
jv_dtype jv_dtype_parse(const char *s);

/* The dtype of a PyTorch ScalarType code (c10/core/ScalarType.h: 5 half,
 * 6 float, 15 bfloat16, ...), as traces record dtype arguments; JV_DT_UNKNOWN
 * for codes without a jv_dtype. */
jv_dtype jv_dtype_of_scalar_type(long long code);

/* Bytes per element; 0 for JV_DT_UNKNOWN. bool is 1 byte. */
size_t jv_dtype_size(jv_dtype d);

/* The name PyTorch traces use ("c10::BFloat16"); "" for JV_DT_UNKNOWN. */
const char *jv_dtype_trace_name(jv_dtype d);

/* A short name ("bf16", "fp32", "fp8", "int64", "bool"); "unknown" for JV_DT_UNKNOWN. */
const char *jv_dtype_short(jv_dtype d);

/* 1 for floating-point types (including fp8 and complex). */
int jv_dtype_is_float(jv_dtype d);

/* IEEE half <-> float, round to nearest even; NaN and infinities preserved. */
float jv_f16_to_f32(uint16_t h);
uint16_t jv_f32_to_f16(float f);

/* bfloat16 <-> float, round to nearest even; NaN stays NaN. */
float jv_bf16_to_f32(uint16_t b);
uint16_t jv_f32_to_bf16(float f);

/* 1 when elements of d can be read and written as numbers by jv_dtype_load /
 * jv_dtype_store: fp64, fp32, fp16, bf16, the integer types and bool (not fp8
 * or complex). */
int jv_dtype_is_numeric(jv_dtype d);

/* Element off (in elements) of a buffer of dtype d, as a double. NAN for a
 * dtype that is not numeric. */
double jv_dtype_load(jv_dtype d, const void *base, int64_t off);

/* Stores v into element off of a buffer of dtype d, rounded to nearest even
 * for the float types; integers take v truncated toward zero and saturated
 * (NaN stores 0); bool stores v != 0. Nothing for a dtype that is not numeric. */
void jv_dtype_store(jv_dtype d, void *base, int64_t off, double v);

#endif

/* jv_cpu_convert.h: the CPU kernels' storage conversions of fp16 and bf16 (inline, branch-free so that the
 * loops around them vectorize), and the block loads and stores of fp32 / fp16 / bf16 buffers built on them, one
 * copy for every family's own CPU kernels (kernels/<family>/<family>_cpu.c).
 * Bit for bit the core's jv_f16_to_f32 / jv_f32_to_f16 / jv_bf16_to_f32 / jv_f32_to_bf16 (round to nearest
 * even; NaN and infinities preserved; tests/unit/test_cpu_eltwise compares them over every 16-bit pattern). */
#ifndef JV_CPU_CONVERT_H
#define JV_CPU_CONVERT_H

#include <stdint.h>
#include <string.h>

#include "jv_dtype.h"

#ifdef _OPENMP
#define JV_CPU_SIMD _Pragma("omp simd")
#else
#define JV_CPU_SIMD
#endif

static inline uint32_t jv_cpu_bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float jv_cpu_float_of(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* c ? a : b as a mask (no branch, so that the loops around it vectorize) */
static inline uint32_t jv_cpu_sel(int c, uint32_t a, uint32_t b) {
    const uint32_t m = 0u - (uint32_t)(c != 0);
    return (a & m) | (b & ~m);
}

static inline float jv_cpu_f16_to_f32(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = h & 0x7c00u;
    uint32_t o = ((uint32_t)(h & 0x7fffu) << 13) + ((127u - 15u) << 23); /* a normal number */
    o += jv_cpu_sel(e == 0x7c00u, (128u - 16u) << 23, 0u);               /* inf / NaN */
    const uint32_t sub =
        jv_cpu_bits_of(jv_cpu_float_of(o + (1u << 23)) - jv_cpu_float_of(113u << 23)); /* zero / subnormal: exact */
    return jv_cpu_float_of(jv_cpu_sel(e == 0, sub, o) | sign);
}

static inline uint16_t jv_cpu_f32_to_f16(float x) {
    const uint32_t all = jv_cpu_bits_of(x), sign = (all >> 16) & 0x8000u, u = all & 0x7fffffffu;
    const uint32_t magic = 126u << 23;
    const uint32_t nan = 0x7e00u | ((u & 0x7fffffu) >> 13); /* quiet, the payload's top bits kept */
    const uint32_t sub =
        jv_cpu_bits_of(jv_cpu_float_of(u) + jv_cpu_float_of(magic)) - magic; /* below 2^-14: the add rounds (RNE) */
    const uint32_t norm = (u + ((uint32_t)(15 - 127) << 23) + 0xfffu + ((u >> 13) & 1u)) >> 13;
    uint32_t r = jv_cpu_sel(u < (113u << 23), sub, norm);
    r = jv_cpu_sel(u >= (143u << 23), 0x7c00u, r);
    r = jv_cpu_sel(u > 0x7f800000u, nan, r);
    return (uint16_t)(r | sign);
}

static inline float jv_cpu_bf16_to_f32(uint16_t b) {
    return jv_cpu_float_of((uint32_t)b << 16);
}

static inline uint16_t jv_cpu_f32_to_bf16(float x) {
    const uint32_t u = jv_cpu_bits_of(x);
    const uint32_t rne = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const uint32_t nan = (u >> 16) | 0x40u;
    return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? nan : rne);
}

/* dst[j] = element off + j*st of a buffer of dtype dt (fp32, fp16 or bf16), j < n (st 1: a loop of its own,
 * which vectorizes) */
static inline void jv_cpu_load_f32(jv_dtype dt, const void *base, int64_t off, int64_t st, int64_t n,
                                   float *restrict dst) {
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
        JV_CPU_SIMD
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_cpu_f16_to_f32(s[j]);
    } else if (dt == JV_DT_F16) {
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_cpu_f16_to_f32(s[j * st]);
    } else if (st == 1) {
        JV_CPU_SIMD
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_cpu_bf16_to_f32(s[j]);
    } else {
        for (int64_t j = 0; j < n; j++)
            dst[j] = jv_cpu_bf16_to_f32(s[j * st]);
    }
}

/* element off + j*st of a buffer of dtype dt = src[j], j < n, rounded to nearest even (st 1: a loop of its own) */
static inline void jv_cpu_store_f32(jv_dtype dt, void *base, int64_t off, int64_t st, int64_t n,
                                    const float *restrict src) {
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
        JV_CPU_SIMD
        for (int64_t j = 0; j < n; j++)
            s[j] = jv_cpu_f32_to_f16(src[j]);
    } else if (dt == JV_DT_F16) {
        for (int64_t j = 0; j < n; j++)
            s[j * st] = jv_cpu_f32_to_f16(src[j]);
    } else if (st == 1) {
        JV_CPU_SIMD
        for (int64_t j = 0; j < n; j++)
            s[j] = jv_cpu_f32_to_bf16(src[j]);
    } else {
        for (int64_t j = 0; j < n; j++)
            s[j * st] = jv_cpu_f32_to_bf16(src[j]);
    }
}

/* v[j], j < n, rounded to dtype dt and back (what a store then a load gives); fp32 unchanged */
static inline void jv_cpu_round_f32(jv_dtype dt, int64_t n, float *restrict v) {
    if (dt == JV_DT_F16) {
        JV_CPU_SIMD
        for (int64_t j = 0; j < n; j++)
            v[j] = jv_cpu_f16_to_f32(jv_cpu_f32_to_f16(v[j]));
    } else if (dt == JV_DT_BF16) {
        JV_CPU_SIMD
        for (int64_t j = 0; j < n; j++)
            v[j] = jv_cpu_bf16_to_f32(jv_cpu_f32_to_bf16(v[j]));
    }
}

#endif

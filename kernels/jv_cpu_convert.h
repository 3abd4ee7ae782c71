/* jv_cpu_convert.h: the CPU kernels' storage conversions of fp16 and bf16 (inline, branch-free so that the
 * loops around them vectorize), one copy for every family's own CPU kernels (kernels/<family>/<family>_cpu.c).
 * Bit for bit the core's jv_f16_to_f32 / jv_f32_to_f16 / jv_bf16_to_f32 / jv_f32_to_bf16 (round to nearest
 * even; NaN and infinities preserved; tests/unit/test_cpu_eltwise compares them over every 16-bit pattern). */
#ifndef JV_CPU_CONVERT_H
#define JV_CPU_CONVERT_H

#include <stdint.h>
#include <string.h>

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

#endif

/* elementwise_math.h: the scalar math of the elementwise ops in float
 * (PyTorch's opmath), one copy for the CPU kernels (elementwise_cpu.c, C11)
 * and the device kernels (elementwise.cu, CUDA or HIP): NaN-propagating
 * max/min, sigmoid, gelu and its gradient in both forms, floor division,
 * pow's special-cased exponents. Header-only: every function is inline and,
 * under a GPU compiler, callable on host and device. The selects are written
 * without branches so that the CPU loops around them vectorize. */
#ifndef JV_ELEMENTWISE_MATH_H
#define JV_ELEMENTWISE_MATH_H

#include <math.h>

#include "elementwise_scalars.h" /* jv_ew_powk */

#if defined(__CUDACC__) || defined(__HIPCC__)
#define JV_EW_FN static __host__ __device__ __forceinline__
#else
#define JV_EW_FN static inline
#endif

#define JV_EW_SQRT1_2      0.70710678118654752440f /* 1/sqrt(2) */
#define JV_EW_INV_SQRT_2PI 0.39894228040143267794f /* 1/sqrt(2*pi) */
#define JV_EW_SQRT_2_PI    0.79788456080286535588f /* sqrt(2/pi) */
#define JV_EW_GELU_K       0.044715f

/* max(a, b), NaN when either is NaN */
JV_EW_FN float jv_ew_max_nan(float a, float b) {
    const float m = a > b ? a : b;
    const int un = (a != a) | (b != b);
    return un ? NAN : m;
}

/* min(a, b), NaN when either is NaN */
JV_EW_FN float jv_ew_min_nan(float a, float b) {
    const float m = a < b ? a : b;
    const int un = (a != a) | (b != b);
    return un ? NAN : m;
}

/* jv_ew_min_nan(jv_ew_max_nan(x, l), h) for x not NaN, in fewer selects */
JV_EW_FN float jv_ew_clamp_nan(float x, float l, float h) {
    const float m0 = x > l ? x : l;
    const float m = m0 < h ? m0 : h;
    const int bad = (l != l) | (h != h);
    return bad ? NAN : m;
}

JV_EW_FN float jv_ew_sigmoid(float x) {
    return 1.0f / (1.0f + expf(-x));
}

JV_EW_FN float jv_ew_gelu(float x, int tanh_form) {
    if (tanh_form) return 0.5f * x * (1.0f + tanhf(JV_EW_SQRT_2_PI * (x + JV_EW_GELU_K * x * x * x)));
    return 0.5f * x * (1.0f + erff(x * JV_EW_SQRT1_2));
}

JV_EW_FN float jv_ew_gelu_grad(float x, int tanh_form) {
    if (tanh_form) {
        const float t = tanhf(JV_EW_SQRT_2_PI * (x + JV_EW_GELU_K * x * x * x));
        return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * JV_EW_SQRT_2_PI * (1.0f + 3.0f * JV_EW_GELU_K * x * x);
    }
    return 0.5f * (1.0f + erff(x * JV_EW_SQRT1_2)) + x * JV_EW_INV_SQRT_2PI * expf(-0.5f * x * x);
}

/* PyTorch's div_floor_floating in float (as elementwise_ref.c's div_floor_f in double) */
JV_EW_FN float jv_ew_div_floor(float a, float b) {
    if (b == 0.0f) return a / b;
    const float mod = fmodf(a, b);
    float q = (a - mod) / b;
    if (mod != 0.0f && (b < 0.0f) != (mod < 0.0f)) q -= 1.0f;
    if (q == 0.0f) return copysignf(0.0f, a / b);
    const float f = floorf(q);
    return q - f > 0.5f ? f + 1.0f : f;
}

/* x to a special-cased constant exponent k (jv_ew_powk other than ANY) */
JV_EW_FN float jv_ew_pow_special(int k, float x) {
    switch (k) {
    case JV_EW_POWK_2: return x * x;
    case JV_EW_POWK_3: return x * x * x;
    case JV_EW_POWK_HALF: return sqrtf(x);
    case JV_EW_POWK_MHALF: return 1.0f / sqrtf(x);
    case JV_EW_POWK_M1: return 1.0f / x;
    case JV_EW_POWK_M2: return 1.0f / (x * x);
    case JV_EW_POWK_1: return x;
    default: return 1.0f; /* JV_EW_POWK_0: 1 for every base, NaN too */
    }
}

#endif

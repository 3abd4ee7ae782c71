/* actmul_math.h: the gated activations' scalar math in float, one copy for the CPU kernel (actmul_cpu.c,
 * C11) and the device kernel (actmul.cu, CUDA or HIP): silu, gelu (erf) and gelu_tanh, and the gated
 * product of one element pair. Header-only, inline; under a GPU compiler callable on host and device. */
#ifndef JV_ACTMUL_MATH_H
#define JV_ACTMUL_MATH_H

#include <math.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define JV_AM_FN static __host__ __device__ __forceinline__
#else
#define JV_AM_FN static inline
#endif

#define JV_AM_SQRT1_2   0.70710678118654752440f /* 1/sqrt(2) */
#define JV_AM_SQRT_2_PI 0.79788456080286535588f /* sqrt(2/pi) */
#define JV_AM_GELU_K    0.044715f

/* act (jv_actmul_act: 0 silu, 1 gelu, 2 gelu_tanh) of x */
JV_AM_FN float jv_am_act(int act, float x) {
    if (act == 0) return x / (1.0f + expf(-x));
    if (act == 1) return 0.5f * x * (1.0f + erff(x * JV_AM_SQRT1_2));
    return 0.5f * x * (1.0f + tanhf(JV_AM_SQRT_2_PI * (x + JV_AM_GELU_K * x * x * x)));
}

/* the gated product of a (the first half's element) and b (the second half's): act(a) * b, or
 * a * act(b) when act_second */
JV_AM_FN float jv_am_gate(int act, int act_second, float a, float b) {
    return act_second ? a * jv_am_act(act, b) : jv_am_act(act, a) * b;
}

#endif

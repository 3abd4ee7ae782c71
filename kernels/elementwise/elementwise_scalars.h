/* elementwise_scalars: an elementwise call's scalar parameters in float (its
 * Scalars, clamp's bounds, nan_to_num's defaults, threshold_backward's
 * threshold, pow's special-cased exponent), computed once from the parsed
 * call for every implementation: the CPU kernels (elementwise_cpu.c), the
 * device kernels' planning (elementwise_plan.cu) and the CPU reference's
 * constants (elementwise_ref.c). */
#ifndef JV_ELEMENTWISE_SCALARS_H
#define JV_ELEMENTWISE_SCALARS_H

#include "elementwise.h"

/* The storage types the elementwise kernels (CPU and device alike) load, and store but u8. */
typedef enum { JV_EW_ST_F32 = 0, JV_EW_ST_F16, JV_EW_ST_BF16, JV_EW_ST_BOOL, JV_EW_ST_U8 } jv_ew_storage;

/* The storage type of dtype d, or -1 when the kernels do not load it. */
int jv_elementwise_storage(jv_dtype d);

/* pow with a constant exponent that PyTorch computes without powf
 * (pow_tensor_scalar_optimized_kernel, and pow_out's copy_ and fill_ for 1
 * and 0); JV_EW_POWK_ANY: powf. */
typedef enum {
    JV_EW_POWK_ANY = 0,
    JV_EW_POWK_2,
    JV_EW_POWK_3,
    JV_EW_POWK_HALF,
    JV_EW_POWK_MHALF,
    JV_EW_POWK_M1,
    JV_EW_POWK_M2,
    JV_EW_POWK_1,
    JV_EW_POWK_0
} jv_ew_powk;

/* An elementwise call's scalar parameters in float, as every kernel (the CPU
 * kernels and the device kernels) computes with them. */
typedef struct {
    int op; /* jv_ew_op */
    float alpha, lo, hi, slope, value, nanv, posinf, neginf;
    float thr;     /* threshold_backward: the largest float <= the threshold (the same test as in double) */
    int gelu_tanh; /* gelu's approximate='tanh' */
    int rounding;  /* div's rounding_mode: 0 none, 1 trunc, 2 floor */
    int powk;      /* jv_ew_powk: pow's constant exponent, special-cased */
    float cval[3]; /* jv_elementwise_slot_const of each slot (used where the slot is not a tensor) */
} jv_ew_scalars;

/* The constant of operand slot k when it is not a tensor: a Scalar's value, clamp's absent bound (-inf for
 * min, +inf for max), else 0 (also for k beyond the op's arity). */
double jv_elementwise_slot_const(const jv_elementwise_desc *g, int k);

/* Fills s for call g whose output has dtype out; exponent_is_tensor: pow's exponent is a tensor operand (so no
 * special case). nan_to_num's absent bounds are out's largest finite values. */
void jv_elementwise_scalars(const jv_elementwise_desc *g, jv_dtype out, int exponent_is_tensor, jv_ew_scalars *s);

#endif

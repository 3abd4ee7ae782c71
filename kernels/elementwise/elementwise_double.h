/* elementwise_double: an elementwise op's math in double, the one copy that
 * the families' CPU reference (elementwise_ref.c) and the CPU kernels' double
 * computation (elementwise_cpu_int.c) both run; they differ in how they load,
 * walk and store, not in the math. */
#ifndef JV_ELEMENTWISE_DOUBLE_H
#define JV_ELEMENTWISE_DOUBLE_H

#include <stdint.h>

#include "elementwise.h"

/* An elementwise call's op and scalar parameters, in double. */
typedef struct {
    jv_ew_op op;
    double alpha, thr, lo, hi, slope, value, nan, posinf, neginf;
    int gelu_tanh;
    int rounding; /* div: 0 true, 1 trunc, 2 floor */
    int lowp;     /* comparisons and rounding divisions run in float (PyTorch's opmath for fp32/fp16/bf16) */
} jv_ew_dmath;

/* o[i] = op(a[i], b[i], c[i]) for i < n, in double (copy, fill_, upsample and the like: a[i]). o may be a (an
 * in-place self: each element is read before it is written); b and c are inputs only. */
void jv_elementwise_apply_double(const jv_ew_dmath *x, int64_t n, const double *a, const double *b, const double *c,
                                 double *o);

#endif

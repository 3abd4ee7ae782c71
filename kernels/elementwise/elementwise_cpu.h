/* jv_elementwise_cpu: the CPU backend's own kernels of the elementwise families
 * (unary and binary: add, mul, where, comparisons, *_backward, copy_, fill_,
 * clamp, gelu, pow, nan_to_num, upsample_nearest, ...), on every core with
 * OpenMP. They are an independent implementation of the semantics of the
 * families' CPU reference (kernels/elementwise/elementwise_ref.c), computed as
 * PyTorch computes (opmath). Three computations, decided at plan time:
 *  - float (the GPU kernels' of kernels/elementwise/elementwise.cu, op for
 *    op): load fp32, fp16, bf16, bool, an integer type or a 0-d fp64, compute
 *    in float, store fp32, fp16, bf16 (round to nearest even) or bool;
 *  - int64 (elementwise_cpu_int.c): an integer output of an op PyTorch defines
 *    on integers, or a comparison of integers, with integer operands: computed
 *    in int64 with two's complement wrap-around, stored wrapped to the
 *    output's type (bool: != 0);
 *  - double (elementwise_cpu_int.c): an fp64 operand or output (but a 0-d
 *    fp64 operand of an fp32/fp16/bf16 output: float, as PyTorch), or a float
 *    operand of an integer output (copy_ fp32 -> int64): computed in double,
 *    stored rounded, or truncated toward zero and saturated for an integer
 *    output as the reference stores it.
 * upsample_nearest{1,2,3}d is a gather of the input's elements (any dtype) by
 * PyTorch's nearest source index, per dim a table. The elementwise ops run one
 * of two paths, decided at plan time:
 *  - dense: the output is dense (a permutation of a contiguous layout) and
 *    every tensor operand has the output's strides (any dtype) or holds one
 *    element (0-d or broadcast on every dim): one flat loop over memory;
 *  - strided: anything else (transposed, permuted, broadcast operands): the
 *    output is walked in its memory order over dims merged where every
 *    operand is contiguous, each thread's chunk with an index odometer.
 * Both run blocks of up to 1024 elements: inputs converted to float (or read
 * in place for fp32 rows), the op as one vectorizable loop, the result stored
 * rounded to the output's dtype. A call these kernels do not run is refused
 * at plan time with the reason (the backend reports the op skipped). */
#ifndef JV_ELEMENTWISE_CPU_H
#define JV_ELEMENTWISE_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "jv_family.h"
#include "jv_status.h"

typedef struct jv_elementwise_cpu jv_elementwise_cpu;

/* Plans parsed elementwise call d (unary or binary family) over ops (jv_desc_operands order, traced strides
 * and dtypes). JV_ERR_NOTFOUND with the reason (beginning with the op's name) when these kernels do not run
 * it: another family, an operand or output dtype that is not numeric (fp8, complex), an integer output of an
 * op PyTorch does not define on integers (exp, sigmoid, true division, pow, ...), a uint8 output of a signed or
 * float value (PyTorch wraps a negative one, the reference saturates it), upsample_nearest whose input
 * and output dtypes differ, a negative stride, an output with a zero stride (overlapping writes), an operand
 * that does not broadcast, a size that overflows. JV_ERR_NOMEM. *out NULL on failure. */
jv_status jv_elementwise_cpu_plan(const jv_desc *d, const jv_operands *ops, jv_elementwise_cpu **out, jv_err *err);

/* Runs plan p over host buffers bufs[i] (storage bases of ops->o[i] as planned) on every OpenMP thread; returns
 * when the output is written. An in-place self (the output is also slot 0) is read before it is written,
 * element by element. JV_ERR_INTERNAL for a NULL buffer of a non-empty operand. */
jv_status jv_elementwise_cpu_run(const jv_elementwise_cpu *p, void *const *bufs, jv_err *err);

/* 1 when p runs the dense path, 0 when the strided one or upsample's gather. */
int jv_elementwise_cpu_is_dense(const jv_elementwise_cpu *p);

/* What p computes in: "float", "int64", "double", or "gather" (upsample_nearest). */
const char *jv_elementwise_cpu_compute(const jv_elementwise_cpu *p);

/* Frees a plan (safe on NULL). */
void jv_elementwise_cpu_free(jv_elementwise_cpu *p);

/* The storage conversions the kernels use (inline, vectorizable), exported so that tests can compare them with
 * the core's jv_f16_to_f32 / jv_f32_to_f16 / jv_bf16_to_f32 / jv_f32_to_bf16 bit for bit (same contracts:
 * round to nearest even, NaN and infinities preserved). */
float jv_elementwise_cpu_f16_to_f32(uint16_t h);
uint16_t jv_elementwise_cpu_f32_to_f16(float f);
float jv_elementwise_cpu_bf16_to_f32(uint16_t b);
uint16_t jv_elementwise_cpu_f32_to_bf16(float f);

/* ---- the int64 and double computations (elementwise_cpu_int.c; internal to the two sources) ---- */

/* What a plan computes in. */
typedef enum { JV_EW_CPU_FLOAT = 0, JV_EW_CPU_INT64, JV_EW_CPU_DOUBLE } jv_ew_cpu_mode;

/* The op and its parameters as the int64 and double computations use them. */
typedef struct {
    int mode; /* jv_ew_cpu_mode */
    int op, rounding, gelu_tanh;
    int lowp;              /* double: comparisons and rounding divisions in float (as the reference decides) */
    jv_dtype out_dt;       /* the output's dtype */
    jv_dtype slot_dt[3];   /* a tensor slot's dtype */
    int64_t ialpha, ic[3]; /* int64: alpha; a constant slot's value (clamp's absent bounds: INT64_MIN / MAX) */
    int64_t div0_pos, div0_neg, div0_zero; /* int64: x / 0 for x > 0, x < 0, x == 0 (the reference's) */
    double alpha, lo, hi, slope, value, thr, nanv, posinf, neginf, c[3]; /* double */
} jv_ew_cpu_wide;

/* Decides what call d computes in (slot[k]: the operand index of slot k, -1 when not a tensor; out_dt, slot_dt:
 * the operands' dtypes as given) and, for int64 and double, fills w. JV_ERR_NOTFOUND with the reason (the op's
 * name first) for a dtype that is not numeric, an integer output of an op not defined on integers, a uint8
 * output of a signed or float value. */
jv_status jv_elementwise_cpu_wide_plan(const jv_desc *d, const int slot[3], jv_dtype out_dt, const jv_dtype slot_dt[3],
                                       jv_ew_cpu_wide *w, jv_err *err);

/* One block of len (<= 1024) output elements of an int64 or double plan: the output from element off[0] with
 * stride st[0] of bufs[out_op], slot k from off[k+1], st[k+1] of bufs[slot_op[k]] (slot_op[k] < 0: w's
 * constant). An in-place self is read before it is written. */
void jv_elementwise_cpu_wide_block(const jv_ew_cpu_wide *w, void *const *bufs, int out_op, const int slot_op[3],
                                   int64_t len, const int64_t *off, const int64_t *st);

#endif

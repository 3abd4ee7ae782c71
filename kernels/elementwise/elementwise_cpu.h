/* jv_elementwise_cpu: the CPU backend's own kernels of the elementwise families
 * (unary and binary: add, mul, where, comparisons, *_backward, copy_, fill_,
 * clamp, gelu, pow, nan_to_num, ...), on every core with OpenMP. They are an
 * independent implementation of the semantics of the families' CPU reference
 * (kernels/elementwise/elementwise_ref.c), written in float as PyTorch's CPU
 * and GPU kernels compute (opmath) and as the GPU kernels of
 * kernels/elementwise/elementwise.cu do, op for op: load fp32, fp16, bf16,
 * bool or uint8, compute in float, store fp32, fp16, bf16 (round to nearest
 * even) or bool. Two paths, decided at plan time:
 *  - dense: the output is dense (a permutation of a contiguous layout) and
 *    every tensor operand has the output's strides (any dtype) or holds one
 *    element (0-d or broadcast on every dim): one flat loop over memory;
 *  - strided: anything else (transposed, permuted, broadcast operands): the
 *    output is walked in its memory order over dims merged where every
 *    operand is contiguous, each thread's chunk with an index odometer.
 * Both run blocks of up to 1024 elements: inputs converted to float (or read
 * in place for fp32 rows), the op as one vectorizable loop, the result stored
 * rounded to the output's dtype. A call these kernels do not run is refused
 * at plan time with the reason (the backend runs the reference then). */
#ifndef JV_ELEMENTWISE_CPU_H
#define JV_ELEMENTWISE_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "jv_family.h"
#include "jv_status.h"

typedef struct jv_elementwise_cpu jv_elementwise_cpu;

/* Plans parsed elementwise call d (unary or binary family) over ops (jv_desc_operands order, traced strides
 * and dtypes). JV_ERR_NOTFOUND with the reason (beginning with the op's name) when these kernels do not run
 * it: another family, upsample_nearest, an operand dtype other than fp32/fp16/bf16/bool/uint8, an output dtype
 * other than fp32/fp16/bf16/bool, a negative stride, an output with a zero stride (overlapping writes), an
 * operand that does not broadcast, a size that overflows. JV_ERR_NOMEM. *out NULL on failure. */
jv_status jv_elementwise_cpu_plan(const jv_desc *d, const jv_operands *ops, jv_elementwise_cpu **out, jv_err *err);

/* Runs plan p over host buffers bufs[i] (storage bases of ops->o[i] as planned) on every OpenMP thread; returns
 * when the output is written. An in-place self (the output is also slot 0) is read before it is written,
 * element by element. JV_ERR_INTERNAL for a NULL buffer of a non-empty operand. */
jv_status jv_elementwise_cpu_run(const jv_elementwise_cpu *p, void *const *bufs, jv_err *err);

/* 1 when p runs the dense path, 0 when the strided one. */
int jv_elementwise_cpu_is_dense(const jv_elementwise_cpu *p);

/* Frees a plan (safe on NULL). */
void jv_elementwise_cpu_free(jv_elementwise_cpu *p);

/* The storage conversions the kernels use (inline, vectorizable), exported so that tests can compare them with
 * the core's jv_f16_to_f32 / jv_f32_to_f16 / jv_bf16_to_f32 / jv_f32_to_bf16 bit for bit (same contracts:
 * round to nearest even, NaN and infinities preserved). */
float jv_elementwise_cpu_f16_to_f32(uint16_t h);
uint16_t jv_elementwise_cpu_f32_to_f16(float f);
float jv_elementwise_cpu_bf16_to_f32(uint16_t b);
uint16_t jv_elementwise_cpu_f32_to_bf16(float f);

#endif

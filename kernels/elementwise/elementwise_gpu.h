/* elementwise_gpu: C entry points of the elementwise device kernels
 * (elementwise.cu) and of the baseline kernels and launch probes
 * (elementwise_baseline.cu), compiled as CUDA or HIP. Each run entry point
 * queues work on `stream` (a cudaStream_t / hipStream_t as void *, NULL for
 * the default stream) and returns 0 or the runtime's error code of the
 * launch. */
#ifndef JV_ELEMENTWISE_GPU_H
#define JV_ELEMENTWISE_GPU_H

#include <stdint.h>

#include "jv_family.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The baseline kernels over fp32 device arrays of n elements (backend.h's
 * jv_base_kernel order: 0 copy c = a, 1 scale c = s*a, 2 add c = a + b,
 * 3 triad c = a + s*b, 4 dot c[0] = sum(a*b)). 16-byte vector loads and
 * stores with a grid-stride loop; dot reduces per block then atomically
 * (c[0] is zeroed first by the entry point, on the stream). sms:
 * multiprocessors, to size the grid (8 blocks of 256 per SM). An unknown
 * kernel, n < 0 or a NULL array it needs returns the runtime's invalid-value
 * error. */
int jv_gpu_baseline(int kernel, const float *a, const float *b, float *c, int64_t n, float s, int sms, void *stream);

/* 1 when jv_gpu_elementwise_plan_create accepts this parsed call (an elementwise desc whose
 * operands are fp32/fp16/bf16 (bool for masks and comparison outputs) and at
 * most JV_MAX_DIMS dims); 0 with a reason in why otherwise. */
int jv_gpu_elementwise_supported(const jv_desc *d, const jv_operands *ops, char *why, size_t cap);

/* An elementwise call planned once: everything derivable from the call, its
 * operands and the device (path, per-operand access, geometry, grids). */
typedef struct jv_gpu_elementwise_plan jv_gpu_elementwise_plan;

/* Plans a parsed unary/binary elementwise call over ops (laid out as the CPU
 * reference reads them: broadcasting and casts as there) for a device of sms
 * multiprocessors: a vectorized path when every operand is dense and has the
 * output's shape, a strided path otherwise. JV_ERR_NOTFOUND with the reason
 * when jv_gpu_elementwise_supported refuses the call, JV_ERR_NOMEM. On
 * success free *out with jv_gpu_elementwise_plan_free. Launches nothing. */
jv_status jv_gpu_elementwise_plan_create(const jv_desc *d, const jv_operands *ops, int sms,
                                         jv_gpu_elementwise_plan **out, jv_err *err);

/* Queues the planned call over device buffers bufs[i] (storage bases of the
 * planned ops->o[i]); only the 16-byte alignment of the buffers is decided
 * here. A NULL plan, or a NULL buffer of a non-empty operand, returns the
 * runtime's invalid-value error without launching. */
int jv_gpu_elementwise_run(const jv_gpu_elementwise_plan *p, void *const *bufs, void *stream);

/* Sets the 16-byte vectors per thread (2, 4 or 8; default EW_LIGHT_UNROLL) of the dense kernel of
 * light one-input ops (copies, fills, clamps, an op with a scalar); nothing for a plan on another
 * path. The alternatives exist for bench/gpu_kernel_sweep.c, which times them. Safe on NULL. */
void jv_gpu_elementwise_plan_tune(jv_gpu_elementwise_plan *p, int light_unroll);

/* Releases a plan (safe on NULL). */
void jv_gpu_elementwise_plan_free(jv_gpu_elementwise_plan *p);

/* Queues one empty kernel (1 thread): the launch-overhead probe. */
int jv_gpu_noop(void *stream);

/* Queues one single-thread kernel that spins for `cycles` device clock
 * cycles, holding the stream while the host queues launches behind it
 * (cycles < 0: invalid-value error). */
int jv_gpu_spin(int64_t cycles, void *stream);

#ifdef __cplusplus
}
#endif

#endif

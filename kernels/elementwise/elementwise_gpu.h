/* elementwise_gpu: C entry points of the elementwise device kernels
 * (elementwise.cu, compiled as CUDA or HIP). Each queues work on `stream`
 * (a cudaStream_t / hipStream_t as void *, NULL for the default stream) and
 * returns 0 or the runtime's error code of the launch. */
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

/* 1 when jv_gpu_elementwise runs this parsed call (an elementwise desc whose
 * operands are fp32/fp16/bf16 (bool for masks and comparison outputs) and at
 * most JV_MAX_DIMS dims); 0 with a reason in why otherwise. */
int jv_gpu_elementwise_supported(const jv_desc *d, const jv_operands *ops, char *why, size_t cap);

/* Runs a parsed unary/binary elementwise call on device buffers laid out as
 * the CPU reference reads them (jv_family.reference): broadcasting and
 * casts as there; a vectorized path when every operand is dense and has the
 * output's shape, a strided path otherwise. A call that
 * jv_gpu_elementwise_supported refuses, or a NULL buffer of a non-empty
 * operand, returns the runtime's invalid-value error without launching. */
int jv_gpu_elementwise(const jv_desc *d, const jv_operands *ops, void *const *bufs, int sms, void *stream);

#ifdef __cplusplus
}
#endif

#endif

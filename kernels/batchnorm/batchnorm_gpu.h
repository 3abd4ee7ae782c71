/* batchnorm_gpu: C entry points of our batch-norm device kernels
 * (batchnorm.cu, compiled as CUDA or HIP): training forward (batch
 * statistics, running-stat update), eval forward and backward, NCHW and
 * channels_last, fp32/fp16/bf16 data with fp32 (or the data's dtype)
 * parameters. They are the measure of what the hardware can do for the op:
 * the minimal-bytes model of REFERENCE.md section 2 (training forward one
 * statistics read plus one normalize read/write; backward reads x and dy
 * twice at most). Each queues work on `stream` and returns 0 or the runtime's
 * error code. */
#ifndef JV_BATCHNORM_GPU_H
#define JV_BATCHNORM_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "jv_family.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when jv_gpu_batchnorm runs this parsed call; 0 with a reason in why. */
int jv_gpu_batchnorm_supported(const jv_desc *d, const jv_operands *ops, char *why, size_t cap);

/* Bytes of device workspace jv_gpu_batchnorm needs for this call (partial
 * sums per channel and block). */
size_t jv_gpu_batchnorm_workspace(const jv_desc *d, const jv_operands *ops, int sms);

/* Runs the call on device buffers laid out as the CPU reference reads them;
 * workspace holds jv_gpu_batchnorm_workspace bytes. */
int jv_gpu_batchnorm(const jv_desc *d, const jv_operands *ops, void *const *bufs, void *workspace, int sms,
                     void *stream);

#ifdef __cplusplus
}
#endif

#endif

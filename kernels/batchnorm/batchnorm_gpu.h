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

/* 1 when jv_gpu_batchnorm_plan_create accepts this parsed call; 0 with a
 * reason in why. */
int jv_gpu_batchnorm_supported(const jv_desc *d, const jv_operands *ops, char *why, size_t cap);

/* A batch-norm call planned once: layout, vector width, grid and workspace
 * split, for aligned buffers and for unaligned ones. */
typedef struct jv_gpu_batchnorm_plan jv_gpu_batchnorm_plan;

/* Plans a parsed batch-norm call over ops (laid out as the CPU reference reads
 * them) for a device of sms multiprocessors; *ws_bytes receives the device
 * workspace every run needs (partial sums per channel and block).
 * JV_ERR_NOTFOUND with the reason when jv_gpu_batchnorm_supported refuses
 * the call, JV_ERR_NOMEM. On success free *out with
 * jv_gpu_batchnorm_plan_free. Launches nothing. */
jv_status jv_gpu_batchnorm_plan_create(const jv_desc *d, const jv_operands *ops, int sms, jv_gpu_batchnorm_plan **out,
                                       size_t *ws_bytes, jv_err *err);

/* Queues the planned call over device buffers bufs[i] (storage bases of the
 * planned ops->o[i]); workspace holds *ws_bytes of the plan. Returns 0 or the
 * runtime's error code (invalid value for a NULL plan, buffers or workspace). */
int jv_gpu_batchnorm_run(const jv_gpu_batchnorm_plan *p, void *const *bufs, void *workspace, void *stream);

/* The tuning alternatives of a plan; jv_gpu_batchnorm_tuning_default gives what a plan starts with.
 * They exist for bench/gpu_kernel_sweep.c, which times each on the same shapes; all compute the same
 * result within rounding. */
typedef struct {
    int lean; /* the backward's per-channel work: its mean read by the reduction itself (no prep kernel) and
                 one warp per channel in its finalize; 0: a prep kernel and a block per channel. (The
                 forward's finalize is a block per channel either way.) */
    int wide; /* channels_last blocks span up to 64 channel vectors (two warps along a row: a block reads
                 1 KiB of each row of 512 bf16 channels) instead of 32 */
} jv_gpu_batchnorm_tuning;

/* The tuning every plan starts with. */
jv_gpu_batchnorm_tuning jv_gpu_batchnorm_tuning_default(void);

/* Sets a plan's tuning (NULL t: the default). Safe on a NULL plan. */
void jv_gpu_batchnorm_plan_tune(jv_gpu_batchnorm_plan *p, const jv_gpu_batchnorm_tuning *t);

/* Releases a plan (safe on NULL). */
void jv_gpu_batchnorm_plan_free(jv_gpu_batchnorm_plan *p);

#ifdef __cplusplus
}
#endif

#endif

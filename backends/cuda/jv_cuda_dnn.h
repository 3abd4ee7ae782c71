/* jv_cuda_dnn: the conv and batch-norm families on cuDNN 9 (legacy API).
 * Plans hold tensor, filter and convolution descriptors and the heuristic's
 * algorithms for one parsed call over its replay operands. */
#ifndef JV_CUDA_DNN_H
#define JV_CUDA_DNN_H

#include <stddef.h>

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "jv_cuda_pure.h"
#include "jv_family.h"
#include "jv_status.h"

typedef struct jv_cuda_conv jv_cuda_conv;
typedef struct jv_cuda_bn jv_cuda_bn;

/* Plans a parsed conv call (forward, transposed, convolution_backward) over
 * ops: descriptors from the operands' dims and strides (size-1 strides made
 * canonical in the conv's memory format, PyTorch's
 * cudnn_conv_suggest_memory_format), groups, math type (tensor ops for
 * fp16/bf16; fp32 TF32 unless the desc says allow_tf32 0), algorithms from
 * cudnnGet*Algorithm_v7 (PyTorch's default, benchmark off) or, with search,
 * from cudnnFind*Algorithm (every algorithm run and timed:
 * torch.backends.cudnn.benchmark), the first that needs at most ws_limit
 * bytes of workspace. Choices are looked up in and added to cache (NULL: no
 * cache) under the step's full configuration, so each distinct convolution is
 * ranked once per cache. The bias gradient runs on our kernel
 * (conv/conv_gpu.h: cuDNN's cudnnConvolutionBackwardBias refuses bf16), over
 * grad_output's own strides. JV_ERR_NOTFOUND (reason in err) when cuDNN
 * cannot run the call or no algorithm fits ws_limit. */
jv_status jv_cuda_conv_plan(cudnnHandle_t h, const jv_desc *d, const jv_operands *ops, int search, size_t ws_limit,
                            jv_cuda_conv_cache *cache, jv_cuda_conv **out, jv_err *err);

/* Queues a planned conv on the handle's stream; ws holds ws_bytes (at least
 * the plan's ws_limit). */
jv_status jv_cuda_conv_run(cudnnHandle_t h, const jv_cuda_conv *p, void *const *bufs, void *ws, size_t ws_bytes,
                           jv_err *err);

void jv_cuda_conv_free(jv_cuda_conv *p);

/* Writes what p runs into buf (cap bytes, always terminated): "cuDNN" or "cuDNN searched", then per cuDNN step
 * its algorithm, math type and workspace, e.g. "cuDNN: bwd data algo 1 tensor op ws 0, bwd filter algo 3 tensor
 * op ws 4096". */
void jv_cuda_conv_describe(const jv_cuda_conv *p, char *buf, size_t cap);

/* 1 when cuDNN's batch norm can run this call as PyTorch would call it
 * (REFERENCE.md section 2: not bf16, parameters and statistics in fp32 (fp64
 * for double), weight and bias given, 3 to 5 dims, batch limits, dense NCHW
 * or NHWC input with grad_out in the same strides, training backward only);
 * 0 with the reason in why. */
int jv_cuda_bn_possible(const jv_desc *d, const jv_operands *ops, char *why, size_t cap);

/* 1 when PyTorch would pick cuDNN for this call: possible, and not traced on
 * the native kernels (desc impl); 0 with the reason in why. */
int jv_cuda_bn_supported(const jv_desc *d, const jv_operands *ops, char *why, size_t cap);

/* Plans a possible batch-norm call on cuDNN: mode as PyTorch's
 * getCudnnBatchNormMode, descriptors with canonical size-1 strides. The
 * grads output_mask leaves out go to scratch in the workspace: JV_ERR_NOTFOUND
 * when they need more than ws_limit bytes, or when the call is not supported. */
jv_status jv_cuda_bn_plan(const jv_desc *d, const jv_operands *ops, size_t ws_limit, jv_cuda_bn **out, jv_err *err);

/* Queues a planned batch norm on the handle's stream. */
jv_status jv_cuda_bn_run(cudnnHandle_t h, const jv_cuda_bn *p, void *const *bufs, void *ws, size_t ws_bytes,
                         jv_err *err);

void jv_cuda_bn_free(jv_cuda_bn *p);

#endif

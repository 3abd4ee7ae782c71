/* jv_cuda_dnn: the conv and batch-norm families on cuDNN 9 (legacy API).
 * Plans hold tensor, filter and convolution descriptors and the heuristic's
 * algorithms for one parsed call over its replay operands. */
#ifndef JV_CUDA_DNN_H
#define JV_CUDA_DNN_H

#include <stddef.h>

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "jv_family.h"
#include "jv_status.h"

typedef struct jv_cuda_conv jv_cuda_conv;
typedef struct jv_cuda_bn jv_cuda_bn;

/* Plans a parsed conv call (forward, transposed, convolution_backward) over
 * ops: descriptors from the operands' dims and strides, groups, math type
 * (tensor ops for fp16/bf16; fp32 TF32 unless the desc says allow_tf32 0),
 * algorithms from cudnnGet*Algorithm_v7 (PyTorch's default, benchmark off)
 * or, with search, from cudnnFind*Algorithm (every algorithm run and timed:
 * torch.backends.cudnn.benchmark). *ws_need receives the workspace bytes.
 * JV_ERR_NOTFOUND (reason in err) when cuDNN cannot run the call. */
jv_status jv_cuda_conv_plan(cudnnHandle_t h, const jv_desc *d, const jv_operands *ops, int search, jv_cuda_conv **out,
                            size_t *ws_need, jv_err *err);

/* Queues a planned conv on the handle's stream; ws holds ws_bytes. */
jv_status jv_cuda_conv_run(cudnnHandle_t h, const jv_cuda_conv *p, void *const *bufs, void *ws, size_t ws_bytes,
                           jv_err *err);

void jv_cuda_conv_free(jv_cuda_conv *p);

/* 1 when cuDNN's batch norm can run this call as PyTorch would call it
 * (REFERENCE.md section 2: not bf16, parameters and statistics in fp32 (fp64
 * for double), weight and bias given, 3 to 5 dims, batch limits, dense NCHW
 * or NHWC input with grad_out in the same strides, training backward only);
 * 0 with the reason in why. */
int jv_cuda_bn_possible(const jv_desc *d, const jv_operands *ops, char *why, size_t cap);

/* 1 when PyTorch would pick cuDNN for this call: possible, and not traced on
 * the native kernels (desc impl); 0 with the reason in why. */
int jv_cuda_bn_supported(const jv_desc *d, const jv_operands *ops, char *why, size_t cap);

/* Plans a possible batch-norm call on cuDNN; *ws_need receives the scratch bytes
 * (grads output_mask leaves out). JV_ERR_NOTFOUND when not supported. */
jv_status jv_cuda_bn_plan(const jv_desc *d, const jv_operands *ops, jv_cuda_bn **out, size_t *ws_need, jv_err *err);

/* Queues a planned batch norm on the handle's stream. */
jv_status jv_cuda_bn_run(cudnnHandle_t h, const jv_cuda_bn *p, void *const *bufs, void *ws, size_t ws_bytes,
                         jv_err *err);

void jv_cuda_bn_free(jv_cuda_bn *p);

#endif

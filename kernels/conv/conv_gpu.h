/* conv_gpu: C entry points of the conv family's device kernels (conv_bias.cu,
 * compiled as CUDA or HIP). The convolutions themselves run on the vendor
 * library; what it cannot do for every dtype (cuDNN's
 * cudnnConvolutionBackwardBias refuses bf16) runs here, one code path for
 * every dtype. Each entry point queues work on `stream` (a cudaStream_t /
 * hipStream_t as void *, NULL for the default stream) and returns 0 or the
 * runtime's error code. */
#ifndef JV_CONV_GPU_H
#define JV_CONV_GPU_H

#include <stdint.h>

#include "jv_dtype.h"

/* The most dims jv_gpu_conv_bias_grad takes (JV_MAX_DIMS of jv_tensor.h). */
#define JV_GPU_CONV_MAX_DIMS 8

#ifdef __cplusplus
extern "C" {
#endif

/* The bias gradient of a convolution: db[c] = sum of dy[i0, c, i2, ...] over
 * every index of dy but dim 1 (the channel dim), for c in 0 .. shape[1]-1.
 * dy: device storage base of a tensor of ndim (2 .. JV_GPU_CONV_MAX_DIMS) dims with
 * shape[] and strides[] in elements (any non-negative strides: NCHW,
 * channels_last, broadcast or padded views). db: device array of shape[1]
 * contiguous elements, written whole (0 for a channel with no elements). Both
 * of dtype (JV_DT_F32, JV_DT_F16, JV_DT_BF16, JV_DT_F64): accumulated in
 * float (double for JV_DT_F64), written rounded to nearest even. shape and
 * strides are read on the host before the call returns. An unsupported dtype,
 * ndim out of range, a negative dim or stride, more than 2^31-1 channels or a
 * NULL buffer of a non-empty tensor returns the runtime's invalid-value error
 * without launching; shape[1] == 0 launches nothing and returns 0. */
int jv_gpu_conv_bias_grad(jv_dtype dtype, const void *dy, int ndim, const int64_t *shape, const int64_t *strides,
                          void *db, void *stream);

#ifdef __cplusplus
}
#endif

#endif

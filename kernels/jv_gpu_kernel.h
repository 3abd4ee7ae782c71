/* jv_gpu_kernel: the device-kernel entry of a family (its own CUDA/HIP
 * kernels in kernels/<family>/<family>.cu), as a GPU backend calls it, in C: every
 * GPU backend reaches a family's own kernel through jv_gpu_kernel_of, with
 * no per-family code. A family with own device kernels adds one line to
 * kernels/gpu_kernels.def and defines jv_<name>_gpu_kernel in its .cu.
 * (Library implementations, such as cuBLASLt GEMM or cuDNN convolutions, are
 * the backend's own business, in its folder.) Compiled into the GPU kernel
 * library (backends/cuda: jv_gpu_kernels), never into the C-only build. */
#ifndef JV_GPU_KERNEL_H
#define JV_GPU_KERNEL_H

#include <stddef.h>

#include "jv_family.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *name; /* "elementwise", "batchnorm": for messages ("jarvis kernel (elementwise)") */
    /* 1 when plan accepts this parsed call; 0 with the reason in why. */
    int (*supported)(const jv_desc *d, const jv_operands *ops, char *why, size_t cap);
    /* Plans the call for a device of sms multiprocessors: *plan for run, *ws_bytes of device workspace every
     * run needs (0: none). JV_ERR_NOTFOUND with the reason when not supported, JV_ERR_NOMEM. Launches nothing. */
    jv_status (*plan)(const jv_desc *d, const jv_operands *ops, int sms, void **plan, size_t *ws_bytes, jv_err *err);
    /* Queues the planned call over device buffers bufs[i] (storage bases of ops->o[i]) with a workspace of at
     * least *ws_bytes; 0 or the runtime's error code of the launch. */
    int (*run)(const void *plan, void *const *bufs, void *workspace, void *stream);
    /* Releases a plan (safe on NULL). */
    void (*release)(void *plan);
} jv_gpu_kernel;

/* The own device kernel of family `family` (a registry index), or NULL when it has none. */
const jv_gpu_kernel *jv_gpu_kernel_of(int family);

#ifdef __cplusplus
}
#endif

#endif

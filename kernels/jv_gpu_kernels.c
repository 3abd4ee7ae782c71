/* jv_gpu_kernels: the table of gpu_kernels.def (see jv_gpu_kernel.h). */
#include "jv_gpu_kernel.h"

#define JV_GPU_KERNEL(ID, name) extern const jv_gpu_kernel jv_##name##_gpu_kernel;
#include "gpu_kernels.def"
#undef JV_GPU_KERNEL

const jv_gpu_kernel *jv_gpu_kernel_of(int family) {
#define JV_GPU_KERNEL(ID, name)                                                                                        \
    if (family == (int)JV_FAM_##ID) return &jv_##name##_gpu_kernel;
#include "gpu_kernels.def"
#undef JV_GPU_KERNEL
    return NULL;
}

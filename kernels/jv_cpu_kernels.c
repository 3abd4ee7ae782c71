/* jv_cpu_kernels: the table of cpu_kernels.def (see jv_cpu_kernel.h). */
#include "jv_cpu_kernel.h"

#define JV_CPU_KERNEL(ID, name) extern const jv_cpu_kernel jv_##name##_cpu_kernel;
#include "cpu_kernels.def"
#undef JV_CPU_KERNEL

const jv_cpu_kernel *jv_cpu_kernel_of(int family) {
#define JV_CPU_KERNEL(ID, name)                                                                                        \
    if (family == (int)JV_FAM_##ID) return &jv_##name##_cpu_kernel;
#include "cpu_kernels.def"
#undef JV_CPU_KERNEL
    return NULL;
}

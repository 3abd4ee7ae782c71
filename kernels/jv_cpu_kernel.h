/* jv_cpu_kernel: the CPU-kernel entry of a family (its own multi-threaded C
 * kernels in kernels/<family>/<family>_cpu.c), as the CPU backend calls it:
 * the backend reaches a family's own CPU kernel through jv_cpu_kernel_of, with
 * no per-family code. A family with own CPU kernels adds one line to
 * kernels/cpu_kernels.def and defines jv_<name>_cpu_kernel. (Library
 * implementations, such as oneDNN's matmul, are the backend's own business,
 * in its folder.) These kernels are what the backend times; the families' CPU
 * references are never timed as a backend. */
#ifndef JV_CPU_KERNEL_H
#define JV_CPU_KERNEL_H

#include <stddef.h>

#include "jv_family.h"

typedef struct {
    const char *name; /* "elementwise": for messages */
    /* Plans the call: *plan for run, and what runs it in impl (impl_cap bytes, e.g. "OpenMP elementwise
     * (dense)"). JV_ERR_NOTFOUND with the reason (beginning with the op's name) when the kernel does not run
     * this call; JV_ERR_NOMEM. *plan NULL on failure. */
    jv_status (*plan)(const jv_desc *d, const jv_operands *ops, void **plan, char *impl, size_t impl_cap, jv_err *err);
    /* Runs the planned call over host buffers bufs[i] (storage bases of ops->o[i]); returns when the outputs
     * are written. */
    jv_status (*run)(const void *plan, void *const *bufs, jv_err *err);
    /* Releases a plan (safe on NULL). */
    void (*release)(void *plan);
} jv_cpu_kernel;

/* The own CPU kernel of family `family` (a registry index), or NULL when it has none. */
const jv_cpu_kernel *jv_cpu_kernel_of(int family);

#endif

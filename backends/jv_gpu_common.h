/* jv_gpu_common: the GPU backends' vendor-neutral logic, one copy for cuda/
 * and hip/ (each backend keeps only its runtime's calls): the table lookup of
 * the runtime error codes that leave a context unusable and the message that
 * marks it so, the median of timing samples, the sizing of the one workspace
 * and of the cache-flush buffer, and the planning of a family's own device
 * kernel (jv_gpu_kernel.h). The kernel entry is passed in, never looked up
 * here: each GPU backend links its own copy of the device kernels
 * (README.md, "HIP / ROCm"). Needs no device. */
#ifndef JV_GPU_COMMON_H
#define JV_GPU_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "jv_family.h"
#include "jv_gpu_kernel.h"
#include "jv_status.h"

/* A runtime error code and its enum name. */
typedef struct {
    int code;
    const char *name;
} jv_gpu_code_name;

/* 1 when code is in table[0, n); *name (may be NULL) receives its name, or
 * NULL when it is not there. */
int jv_gpu_code_find(const jv_gpu_code_name *table, size_t n, int code, const char **name);

/* Marks a context unusable after a sticky error: writes into msg (cap bytes)
 * "<backend> backend: device D (DEV) is unusable after ERRNAME (ERRTEXT),
 * first seen as: <err's message>; nothing more can run on it in this
 * process", clears err and returns JV_ERR_DEVICE with msg in it. */
jv_status jv_gpu_mark_broken(char *msg, size_t cap, const char *backend, int device, const char *dev_name,
                             const char *errname, const char *errtext, jv_err *err);

/* The one workspace allocated at open on a device with free_bytes free:
 * want when that is at most 1/16 of free memory, else free/16 rounded down to
 * a MiB, never below floor. */
size_t jv_gpu_workspace_bytes(size_t free_bytes, size_t want, size_t floor);

/* The cache-flush buffer for a last-level cache of llc_bytes: twice its size;
 * 0 when the size is unknown (llc_bytes <= 0). */
size_t jv_gpu_flush_bytes(long long llc_bytes);

/* Plans family kernel k (the backend's own copy; NULL: the family has none)
 * for parsed call d over ops on a device of sms multiprocessors whose
 * workspace holds ws_bytes: *own_plan for k->run, impl "jarvis kernel".
 * JV_ERR_NOTFOUND, its message starting "<backend> backend: <family>: ", when
 * there is no kernel, variant is not 0, k refuses the call or needs more
 * workspace; JV_ERR_NOMEM. */
jv_status jv_gpu_own_prepare(const char *backend, const jv_gpu_kernel *k, const jv_desc *d, const jv_operands *ops,
                             int variant, int sms, size_t ws_bytes, void **own_plan, char *impl, size_t impl_cap,
                             jv_err *err);

/* What jv_gpu_measure_launch needs of a backend: its stream, two events and
 * the probe kernels of its own copy of kernels/elementwise (jv_gpu_noop,
 * jv_gpu_spin). Each returns JV_OK or the failure, named. */
typedef struct {
    void *ctx;
    jv_status (*noop)(void *ctx, jv_err *err);                 /* queues one empty kernel */
    jv_status (*spin)(void *ctx, int64_t cycles, jv_err *err); /* queues a kernel spinning for cycles */
    jv_status (*sync)(void *ctx, jv_err *err);                 /* waits for the stream */
    jv_status (*start)(void *ctx, jv_err *err);                /* records the start event */
    jv_status (*started)(void *ctx, int *done, jv_err *err);   /* *done: the start event has passed (no wait) */
    jv_status (*stop)(void *ctx, double *ms, jv_err *err);     /* records the stop event, waits, ms since start */
} jv_gpu_launch_probe;

/* Measures the launch overhead on a device clocked at clock_khz (<= 0:
 * unknown, 2 GHz assumed; it only sizes the spin): a spin kernel holds the
 * stream while 1000 empty kernels queue behind it, so the events around them
 * time the device's gap per launch alone (*launch_us) and the host clock the
 * cost of queueing one (*host_launch_us); the median of 5 samples, after 100
 * warm-up launches. A sample whose spin ended before the host finished
 * queueing is retaken (up to 6 times) with half the launches and twice the
 * spin. */
jv_status jv_gpu_measure_launch(const jv_gpu_launch_probe *p, int64_t clock_khz, double *launch_us,
                                double *host_launch_us, jv_err *err);

#endif

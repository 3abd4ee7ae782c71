/* backend.h: the interface every replay backend implements (DESIGN.md,
 * "Replay"): a table of function pointers over one device. cpu/ is always
 * built; cuda/ and hip/ plug in the same way. Backends hold no op math: the
 * CPU backend runs the families' CPU references, the GPU backends call vendor
 * libraries and the kernels in kernels/<family>/<family>.cu. Every function
 * returns a jv_status and records a message naming the device and the failing
 * call in err. A backend context is not thread-safe.
 *
 * Sticky errors: when a device call fails in a way that leaves the context
 * unusable (CUDA/HIP: illegal address, launch failure, ECC, ... every later
 * call fails too), every function returns JV_ERR_DEVICE with a message that
 * names the first error; the caller stops using the context (close is still
 * safe). Any other failure keeps the context usable. */
#ifndef JV_BACKEND_H
#define JV_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "jv_family.h"
#include "jv_status.h"

/* What a device is. Sizes in bytes; 0 where unknown. */
typedef struct {
    char name[128];   /* "NVIDIA H100 80GB HBM3", "CPU: AMD EPYC 7B13" */
    char backend[16]; /* "cpu", "cuda", "hip" */
    char driver[64];  /* driver and runtime versions */
    char arch[32];    /* "sm_90", "gfx942", "x86_64" */
    int is_gpu;
    int64_t memory_bytes;   /* device memory (CPU: physical memory) */
    int64_t free_bytes;     /* free at open time */
    int64_t llc_bytes;      /* last-level cache: L2 (+ Infinity Cache on AMD), L3 on a CPU */
    int compute_units;      /* SMs, CUs, or CPU cores used */
    int cc_major, cc_minor; /* CUDA compute capability (0 elsewhere) */
    double clock_mhz;       /* core clock at open time (0 unknown) */
    double launch_us;       /* measured at open: device time per launch of an empty kernel queued back to back
                             * (the gap one launch costs on the device); ops near it are launch-bound. 0 unknown */
    double host_launch_us;  /* measured at open: host time to queue one empty launch (0 unknown) */
    char uuid[48];          /* the GPU's UUID ("GPU-8c6f...", NVIDIA's form), "" where unknown */
    char pci[24];           /* its PCI address ("0000:17:00.0"), "" where unknown (the CPU) */
    char clocks_from[24];   /* what the clocks hook reads: "NVML", "AMD SMI", "ROCm SMI", "sysfs"; "" none */
} jv_device_props;

/* The elementwise baseline kernels, over fp32 arrays of n elements:
 * copy c = a; scale c = s * a; add c = a + b; triad c = a + s * b;
 * dot c[0] = sum(a * b) (a read-only reduction). */
typedef enum { JV_BASE_COPY = 0, JV_BASE_SCALE, JV_BASE_ADD, JV_BASE_TRIAD, JV_BASE_DOT, JV_BASE_COUNT } jv_base_kernel;

/* Clocks of the device now (for throttling notes). */
typedef struct {
    int known;              /* 0: the backend cannot read clocks (no NVML / ROCm SMI / sysfs) */
    double sm_mhz, mem_mhz; /* current clocks */
    double sm_max_mhz;      /* the highest SM clock the device allows now (0 unknown) */
    double power_w;         /* board power now, watts (0 unknown) */
    double temp_c;    /* GPU temperature now (AMD: junction, else edge; NVIDIA: the GPU sensor), deg C (0 unknown) */
    unsigned reasons; /* JV_THROTTLE_* bits in force */
} jv_clocks;

/* Why clocks are held down (from NVML's clock event reasons). */
enum {
    JV_THROTTLE_POWER = 1u,       /* software power cap */
    JV_THROTTLE_THERMAL = 2u,     /* software or hardware thermal slowdown */
    JV_THROTTLE_HW_SLOWDOWN = 4u, /* hardware slowdown (power brake, ...) */
    JV_THROTTLE_OTHER = 8u        /* sync boost, applications clocks setting, display ... */
};

/* Queues one run of the measured thing on operand set `set` (see jv_timing.h). */
typedef jv_status (*jv_be_run_fn)(void *arg, int set, jv_err *err);

typedef struct jv_backend {
    const char *name; /* its name in backends.def: "cpu", "cuda", "hip" */
    /* Opens device index `device` into *ctx. JV_ERR_NOTFOUND when there is no
     * such device or no driver (the message says which). */
    jv_status (*open)(int device, void **ctx, jv_err *err);
    /* Releases everything the context holds. Safe on NULL. */
    void (*close)(void *ctx);
    /* Properties of the open device. */
    jv_status (*props)(void *ctx, jv_device_props *p, jv_err *err);
    /* Device memory: JV_ERR_NOMEM when the device is out of memory. */
    jv_status (*alloc)(void *ctx, size_t bytes, void **dptr, jv_err *err);
    void (*free)(void *ctx, void *dptr);
    /* Host <-> device copies of bytes (synchronous). */
    jv_status (*upload)(void *ctx, void *dst, const void *src, size_t bytes, jv_err *err);
    jv_status (*download)(void *ctx, void *dst, const void *src, size_t bytes, jv_err *err);
    /* Sets bytes of device memory to byte (poisoning outputs). */
    jv_status (*fill)(void *ctx, void *dptr, int byte, size_t bytes, jv_err *err);
    /* Waits for all work queued on the device. */
    jv_status (*sync)(void *ctx, jv_err *err);
    /* Device-side timing: timer_stop returns the seconds of device work
     * between the matching timer_start and now (it synchronizes). */
    jv_status (*timer_start)(void *ctx, jv_err *err);
    jv_status (*timer_stop)(void *ctx, double *seconds, jv_err *err);
    /* Prepares implementation `variant` (0, 1, ...) of a parsed op over its
     * operands: handles, plans, algorithm choice, workspace, all outside the
     * timed region. impl receives its name ("oneDNN matmul", "cuBLASLt",
     * "cuDNN", "jarvis kernel"). JV_ERR_NOTFOUND when the backend has no
     * such variant for this op (variant 0: the op is not supported; the
     * message says why). *plan is released with release. */
    jv_status (*prepare)(void *ctx, const jv_desc *d, const jv_operands *ops, int variant, void **plan, char *impl,
                         size_t impl_cap, jv_err *err);
    /* Queues one run of a prepared op on device buffers bufs[i] (storage
     * bases of ops->o[i], laid out as jv_family.reference reads them). */
    jv_status (*launch)(void *ctx, void *plan, const jv_desc *d, const jv_operands *ops, void *const *bufs,
                        jv_err *err);
    void (*release)(void *ctx, void *plan);
    /* Queues one baseline kernel over device fp32 arrays of n elements. */
    jv_status (*baseline)(void *ctx, jv_base_kernel k, const float *a, const float *b, float *c, int64_t n, float s,
                          jv_err *err);
    /* Opens / closes a profiler range named after an op (NVTX, roctx); NULL
     * when the backend has none. */
    void (*range_push)(void *ctx, const char *name);
    void (*range_pop)(void *ctx);
    /* Optional (NULL: none). Captures `runs` back-to-back runs of fn on
     * operand set 0 into one device graph, replays it once to warm up, then
     * `reps` times, each timed alone; *per_run_s = the median replay time /
     * runs: the op's device time without the cost of launching it. */
    jv_status (*graph_time)(void *ctx, jv_be_run_fn fn, void *arg, int runs, int reps, double *per_run_s, jv_err *err);
    /* Optional (NULL: none): the device clocks now; c->known 0 when they cannot be read. */
    jv_status (*clocks)(void *ctx, jv_clocks *c, jv_err *err);
    /* Optional (NULL: the backend has no options): sets option key to value
     * before ops are prepared ("conv-algo", "gemm-algo" = "heuristic" | "best"; HIP's
     * conv-algo also "immediate").
     * JV_ERR_NOTFOUND names an unknown key or value. */
    jv_status (*set_option)(void *ctx, const char *key, const char *value, jv_err *err);
    /* Optional (NULL: the backend cannot). Evicts the last-level cache: queues a
     * write over a device buffer of twice props.llc_bytes (allocated at open),
     * so that the next run finds none of its operands cached. Not timed: the
     * runner calls it before every cold-cache sample, outside timer_start /
     * timer_stop. */
    jv_status (*flush_cache)(void *ctx, jv_err *err);
    /* Optional (NULL: none): queues device work that keeps the stream busy
     * for at least `seconds` (a spinning kernel), so that what is queued
     * behind it starts only once the host has had that long to queue it. The
     * runner calls it after a cold sample's flush and before timer_start: the
     * sample then times the device's work alone, however slowly the host
     * queues (a library call that costs the host more than the device). */
    jv_status (*hold)(void *ctx, double seconds, jv_err *err);
} jv_backend;

/* Programs find the backends through the registry (jv_backends.h, over
 * backends.def); backends/<name>/ defines jv_<name>_backend. The two below are
 * declared here only for the tests that use them directly: a new backend is
 * not added here. */
extern const jv_backend jv_cpu_backend;  /* backends/cpu/ (always built) */
extern const jv_backend jv_cuda_backend; /* backends/cuda/ (built when CUDA is found) */

#endif

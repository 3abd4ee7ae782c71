/* jv_hip_backend: the HIP backend (backend.h) on AMD GPUs through the HIP
 * runtime: one device, one non-blocking stream every call queues on, two
 * events for device timing. Sized once at open: one workspace for our
 * kernels (jv_gpu_workspace_bytes: 256 MiB, less on a device short of
 * memory) and a cache-flush buffer of twice the last-level cache (the L2, or
 * the Infinity Cache where the architecture has one: jv_amdgpu_llc_bytes). Elementwise ops and batch
 * norm run on the plans of kernels/<family>/<file>.cu, compiled as HIP into this
 * backend's own copy (backends/hip/CMakeLists.txt); GEMM runs on hipBLASLt
 * (else rocBLAS), convolution and batch norm on MIOpen, loaded at open with
 * dlopen where the install has them (jv_hip_vendor: one binary for every
 * install; a missing library is a line at open and, per op, a refusal that
 * names it; batch norm then runs on our kernel). A sticky device error
 * (hipErrorIllegalAddress, ...) marks the context broken: from then on every
 * call returns JV_ERR_DEVICE without touching HIP. The launch overhead is
 * measured at open (jv_gpu_measure_launch); clocks, power and temperature
 * are read through AMD SMI (jv_amd_smi, libamd_smi of ABI 26 loaded at open)
 * where it is installed, else ROCm SMI (jv_rocm_smi, librocm_smi64), else
 * the amdgpu driver's sysfs files (jv_amdgpu). Graph
 * timing captures the runs into a HIP graph; a cold sample is held by a
 * spinning kernel as on CUDA; op ranges go to roctx when libroctx64 can be
 * loaded at open (dlopen: no build dependency). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "backend.h"
#include "batchnorm/batchnorm.h"         /* which implementation a traced batch norm names */
#include "conv/conv.h"                   /* a pointwise convolution as GEMMs */
#include "elementwise/elementwise_gpu.h" /* the baseline kernels */
#include "jv_amd_smi.h"
#include "jv_amdgpu.h"
#include "jv_gpu_common.h"
#include "jv_gpu_kernel.h"
#include "jv_hip_vendor.h"
#include "jv_rocm_smi.h"
#include "jv_sort.h"

#define HIP_WORKSPACE       ((size_t)256 << 20) /* the most our kernels are offered */
#define HIP_WORKSPACE_FLOOR ((size_t)32 << 20)

typedef struct {
    int device;
    char dev_name[128];
    hipStream_t stream;
    hipEvent_t ev0, ev1;
    int timing;
    double launch_us, host_launch_us; /* measured at open */
    int sms;
    int64_t l2_bytes, llc_bytes; /* the L2 the device reports; the last-level cache (jv_amdgpu_llc_bytes) */
    jv_amd_smi asmi;             /* clocks, power, temperature through AMD SMI (.lib NULL: absent, .why says why) */
    jv_rocm_smi rsmi;            /* else through ROCm SMI (.lib NULL: absent or not tried, .why says why) */
    jv_amdgpu smi;               /* else clocks, power, temperature from sysfs (.dev "" when unreadable) */
    void *ws;                    /* the one workspace, allocated at open */
    size_t ws_bytes;
    void *flush; /* 2 x the last-level cache (NULL: flush_why says why not) */
    size_t flush_bytes;
    int flush_byte;
    char flush_why[160];
    int clock_khz; /* the highest shader clock (hipDeviceProp_t.clockRate; 0 unknown): sizes a hold's spin */
    int capturing; /* inside a graph capture on the stream: no device-wide synchronization */
    void *roctx;   /* libroctx64 (dlopen), NULL when absent; its two range calls */
    int (*roctx_push)(const char *);
    int (*roctx_pop)(void);
    jv_hipv vendor;               /* hipBLASLt, rocBLAS, MIOpen where found (dlopen) and their handles on the stream */
    jv_gpu_gemm_cache gemm_cache; /* --gemm-algo best: hipBLASLt search results per GEMM configuration */
    jv_gpu_cache conv_cache;      /* MIOpen Find's choices per convolution configuration (not --conv-algo immediate) */
    int broken;                   /* a sticky error: the context is unusable */
    char broken_msg[480];
} hip_ctx;

/* PLAN_OURS: the family's own device kernel (jv_gpu_kernel_of); the others: a vendor library (jv_hip_vendor;
 * PLAN_CONV also a pointwise convolution as GEMMs) */
typedef enum { PLAN_OURS, PLAN_GEMM, PLAN_CONV, PLAN_BN } plan_kind;

typedef struct {
    plan_kind kind;
    const jv_gpu_kernel *own;
    void *own_plan;
    jv_hipv_gemm *gemm;
    jv_hipv_conv *conv;
    jv_hipv_bn *bn;
    const char *op;
} hip_plan;

/* hipError_t values after which the process must be relaunched (every later call fails) */
static const jv_gpu_code_name STICKY[] = {
    {hipErrorECCNotCorrectable, "hipErrorECCNotCorrectable"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure"},
    {hipErrorLaunchTimeOut, "hipErrorLaunchTimeOut"},
    {hipErrorAssert, "hipErrorAssert"},
};

/* A failed HIP call e (in `what`, the call's text): records the failure and,
 * when e or an asynchronous fault the device now reports is sticky, marks the
 * context broken (JV_ERR_DEVICE); otherwise clears the error and returns
 * JV_ERR_NOMEM for an allocation, JV_ERR_INTERNAL else. */
static jv_status hip_fail(hip_ctx *c, hipError_t e, const char *what, const char *call, jv_err *err) {
    jv_status st = jv_err_set(err, e == hipErrorOutOfMemory ? JV_ERR_NOMEM : JV_ERR_INTERNAL, __FILE__, __LINE__,
                              "hip backend: %s: %s failed: %s", what, call, hipGetErrorName(e));
    const char *name = NULL;
    hipError_t s = e;
    if (!jv_gpu_code_find(STICKY, sizeof STICKY / sizeof STICKY[0], (int)e, &name) && !c->capturing) {
        s = hipDeviceSynchronize(); /* surfaces an asynchronous fault */
        jv_gpu_code_find(STICKY, sizeof STICKY / sizeof STICKY[0], (int)s, &name);
    }
    if (!name) {
        (void)hipGetLastError(); /* not sticky: nothing stays behind for the next call */
        return st;
    }
    c->broken = 1;
    return jv_gpu_mark_broken(c->broken_msg, sizeof c->broken_msg, "hip", c->device, c->dev_name, name,
                              hipGetErrorString(s), err);
}

#define HIP_CALL(c, err, what, call)                                                                                   \
    do {                                                                                                               \
        hipError_t hip_e_ = (call);                                                                                    \
        if (hip_e_ != hipSuccess) return hip_fail((c), hip_e_, (what), #call, (err));                                  \
    } while (0)

/* Returns JV_ERR_DEVICE at once when the context is broken. */
#define ALIVE(c, err)                                                                                                  \
    do {                                                                                                               \
        if ((c)->broken) JV_FAIL(err, JV_ERR_DEVICE, "%s", (c)->broken_msg);                                           \
    } while (0)

/* Records ev1 on the stream, waits for it, *ms = the time from ev0 to it. */
static jv_status events_ms(hip_ctx *c, const char *what, double *ms, jv_err *err) {
    float f = 0;
    HIP_CALL(c, err, what, hipEventRecord(c->ev1, c->stream));
    HIP_CALL(c, err, what, hipEventSynchronize(c->ev1));
    HIP_CALL(c, err, what, hipEventElapsedTime(&f, c->ev0, c->ev1));
    *ms = f;
    return JV_OK;
}

static void hip_close(void *ctx) {
    hip_ctx *c = ctx;
    if (!c) return;
    if (c->stream && !c->broken) (void)hipStreamSynchronize(c->stream);
    if (!c->broken) jv_hipv_close(&c->vendor); /* before the stream their handles are bound to */
    if (c->ws) (void)hipFree(c->ws);
    if (c->flush) (void)hipFree(c->flush);
    if (c->ev0) (void)hipEventDestroy(c->ev0);
    if (c->ev1) (void)hipEventDestroy(c->ev1);
    if (c->stream) (void)hipStreamDestroy(c->stream);
    if (c->roctx) dlclose(c->roctx);
    jv_amd_smi_close(&c->asmi);
    jv_rocm_smi_close(&c->rsmi);
    jv_gpu_cache_clear(&c->gemm_cache);
    jv_gpu_cache_clear(&c->conv_cache);
    free(c);
}

/* roctx's range calls from libroctx64 when the install has it (ROCm's tracer library; not a build dependency) */
static void load_roctx(hip_ctx *c) {
    const char *names[] = {"libroctx64.so", "libroctx64.so.4", "libroctx64.so.1"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !c->roctx; i++)
        c->roctx = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
    if (!c->roctx) return;
    *(void **)&c->roctx_push = dlsym(c->roctx, "roctxRangePushA");
    *(void **)&c->roctx_pop = dlsym(c->roctx, "roctxRangePop");
    if (!c->roctx_push || !c->roctx_pop) {
        dlclose(c->roctx);
        c->roctx = NULL;
        c->roctx_push = NULL;
        c->roctx_pop = NULL;
    }
}

/* what the device and the install offer: one line at open (a missing library is said here, not a failure) */
static void say_libraries(const hip_ctx *c) {
    char clk[1400], libs[1400];
    if (c->asmi.lib)
        snprintf(clk, sizeof clk, "clocks, power and temperature from AMD SMI %s (version %s)", c->asmi.path,
                 c->asmi.version);
    else if (c->rsmi.lib)
        snprintf(clk, sizeof clk, "AMD SMI %s; clocks, power and temperature from ROCm SMI %s (SMI device %u%s%s)",
                 c->asmi.why, c->rsmi.path, (unsigned)c->rsmi.index, c->rsmi.name[0] ? ": " : "", c->rsmi.name);
    else if (c->smi.dev[0])
        snprintf(clk, sizeof clk, "AMD SMI %s; ROCm SMI %s; clocks%s%s from %s", c->asmi.why, c->rsmi.why,
                 c->smi.power[0] ? ", power" : "", c->smi.temp[0] ? ", temperature" : "", c->smi.dev);
    else
        snprintf(clk, sizeof clk,
                 "AMD SMI %s; ROCm SMI %s; clocks unknown (no readable pp_dpm_sclk under /sys/bus/pci/devices)",
                 c->asmi.why, c->rsmi.why);
    jv_hipv_describe(&c->vendor, libs, sizeof libs);
    fprintf(stderr,
            "hip backend: device %d (%s): vendor libraries (dlopen): %s; last-level cache %lld MiB (L2 %lld MiB), "
            "flushed with %zu MiB; %s; roctx ranges %s\n",
            c->device, c->dev_name, libs, (long long)(c->llc_bytes >> 20), (long long)(c->l2_bytes >> 20),
            c->flush ? c->flush_bytes >> 20 : 0, clk, c->roctx ? "on (libroctx64)" : "off (no libroctx64)");
}

/* the vendor paths' device copy (a GEMM's bias into its output): hipMemcpy2DAsync on the stream */
static int vendor_copy2d(void *ctx, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, void *stream) {
    (void)ctx;
    return (int)hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, hipMemcpyDeviceToDevice, (hipStream_t)stream);
}

/* the GEMM algorithm search's runtime (jv_hipv_runtime): scratch memory, copies and the context's two events */
static int vendor_alloc(void *ctx, void **dptr, size_t bytes) {
    (void)ctx;
    hipError_t e = hipMalloc(dptr, bytes);
    if (e != hipSuccess) (void)hipGetLastError(); /* an allocation failure is reported, not kept */
    return (int)e;
}

static void vendor_free(void *ctx, void *dptr) {
    (void)ctx;
    (void)hipFree(dptr);
}

static int vendor_upload(void *ctx, void *dst, const void *src, size_t bytes, void *stream) {
    (void)ctx;
    hipError_t e = hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice, (hipStream_t)stream);
    if (e == hipSuccess) e = hipStreamSynchronize((hipStream_t)stream); /* src is the caller's until it ends */
    return (int)e;
}

static int vendor_zero(void *ctx, void *dst, size_t bytes, void *stream) {
    (void)ctx;
    return (int)hipMemsetAsync(dst, 0, bytes, (hipStream_t)stream);
}

static int vendor_timer_start(void *ctx, void *stream) {
    return (int)hipEventRecord(((hip_ctx *)ctx)->ev0, (hipStream_t)stream);
}

static int vendor_timer_stop(void *ctx, void *stream, double *ms) {
    hip_ctx *c = ctx;
    float f = 0;
    hipError_t e = hipEventRecord(c->ev1, (hipStream_t)stream);
    if (e == hipSuccess) e = hipEventSynchronize(c->ev1);
    if (e == hipSuccess) e = hipEventElapsedTime(&f, c->ev0, c->ev1);
    *ms = f;
    return (int)e;
}

static int vendor_sync(void *ctx, void *stream) {
    (void)ctx;
    return (int)hipStreamSynchronize((hipStream_t)stream);
}

/* the launch-overhead probe (jv_gpu_measure_launch): our stream and events, our copy of the probe kernels */
static jv_status probe_kernel(hip_ctx *c, int e, const char *call, jv_err *err) {
    return e ? hip_fail(c, (hipError_t)e, "open: launch overhead", call, err) : JV_OK;
}

static jv_status probe_noop(void *ctx, jv_err *err) {
    return probe_kernel(ctx, jv_gpu_noop(((hip_ctx *)ctx)->stream), "jv_gpu_noop", err);
}

static jv_status probe_spin(void *ctx, int64_t cycles, jv_err *err) {
    return probe_kernel(ctx, jv_gpu_spin(cycles, ((hip_ctx *)ctx)->stream), "jv_gpu_spin", err);
}

static jv_status probe_sync(void *ctx, jv_err *err) {
    hip_ctx *c = ctx;
    HIP_CALL(c, err, "open: launch overhead", hipStreamSynchronize(c->stream));
    return JV_OK;
}

static jv_status probe_start(void *ctx, jv_err *err) {
    hip_ctx *c = ctx;
    HIP_CALL(c, err, "open: launch overhead", hipEventRecord(c->ev0, c->stream));
    return JV_OK;
}

static jv_status probe_started(void *ctx, int *done, jv_err *err) {
    hip_ctx *c = ctx;
    hipError_t q = hipEventQuery(c->ev0); /* not ready: the spin still holds the stream */
    *done = q == hipSuccess;
    if (q == hipErrorNotReady) (void)hipGetLastError();
    if (q != hipSuccess && q != hipErrorNotReady) return hip_fail(c, q, "open: launch overhead", "hipEventQuery", err);
    return JV_OK;
}

static jv_status probe_stop(void *ctx, double *ms, jv_err *err) {
    return events_ms(ctx, "open: launch overhead", ms, err);
}

static jv_status open_device(hip_ctx *c, int device, jv_err *err) {
    int count = 0;
    hipError_t e = hipGetDeviceCount(&count);
    if (e != hipSuccess || count == 0) {
        (void)hipGetLastError();
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: no HIP device %d: %s (no AMD GPU or ROCm driver found)", device,
                e != hipSuccess ? hipGetErrorName(e) : "0 devices present");
    }
    if (device < 0 || device >= count)
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: no HIP device %d: %d device%s present", device, count,
                count == 1 ? "" : "s");
    c->device = device;
    snprintf(c->dev_name, sizeof c->dev_name, "?");
    HIP_CALL(c, err, "open", hipSetDevice(device));
    hipDeviceProp_t dp;
    HIP_CALL(c, err, "open", hipGetDeviceProperties(&dp, device));
    snprintf(c->dev_name, sizeof c->dev_name, "%.127s", dp.name);
    c->sms = dp.multiProcessorCount;
    c->clock_khz = dp.clockRate;
    c->l2_bytes = dp.l2CacheSize;
    c->llc_bytes = jv_amdgpu_llc_bytes(dp.gcnArchName, c->l2_bytes);
    char bus[64] = "";
    if (hipDeviceGetPCIBusId(bus, (int)sizeof bus, device) != hipSuccess) {
        (void)hipGetLastError();
        bus[0] = 0;
    }
    jv_amd_smi_open(&c->asmi, NULL, bus); /* AMD SMI, else ROCm SMI, else sysfs */
    if (!c->asmi.lib) jv_rocm_smi_open(&c->rsmi, NULL, bus);
    if (!c->asmi.lib && !c->rsmi.lib) jv_amdgpu_open(&c->smi, "/sys", bus);
    HIP_CALL(c, err, "open", hipStreamCreateWithFlags(&c->stream, hipStreamNonBlocking));
    HIP_CALL(c, err, "open", hipEventCreate(&c->ev0));
    HIP_CALL(c, err, "open", hipEventCreate(&c->ev1));
    size_t fr = 0, tot = 0;
    HIP_CALL(c, err, "open", hipMemGetInfo(&fr, &tot));
    c->ws_bytes = jv_gpu_workspace_bytes(fr, HIP_WORKSPACE, HIP_WORKSPACE_FLOOR);
    HIP_CALL(c, err, "open: the workspace", hipMalloc(&c->ws, c->ws_bytes));
    c->flush_bytes = jv_gpu_flush_bytes(c->llc_bytes);
    if (!c->flush_bytes) {
        snprintf(c->flush_why, sizeof c->flush_why, "the device reports no L2 size");
    } else if ((e = hipMalloc(&c->flush, c->flush_bytes)) != hipSuccess) {
        (void)hipGetLastError();
        c->flush = NULL;
        snprintf(c->flush_why, sizeof c->flush_why,
                 "cannot allocate the %zu MiB flush buffer (2 x the last-level cache): %s", c->flush_bytes >> 20,
                 hipGetErrorName(e));
    }
    const jv_gpu_launch_probe probe = {c, probe_noop, probe_spin, probe_sync, probe_start, probe_started, probe_stop};
    JV_CHECK(jv_gpu_measure_launch(&probe, dp.clockRate, &c->launch_us, &c->host_launch_us, err));
    load_roctx(c);
    jv_hipv_load(&c->vendor);
    const jv_hipv_runtime rt = {c,           vendor_copy2d,      vendor_alloc,      vendor_free, vendor_upload,
                                vendor_zero, vendor_timer_start, vendor_timer_stop, vendor_sync};
    jv_hipv_open(&c->vendor, c->stream, &rt);
    c->vendor.ws = c->ws;
    c->vendor.gemm_cache = &c->gemm_cache;
    c->vendor.conv_cache = &c->conv_cache;
    c->vendor.conv_mode = JV_HIPV_CONV_FIND; /* PyTorch's default (jv_hip_vendor.h) */
    say_libraries(c);
    return JV_OK;
}

static jv_status hip_open(int device, void **ctx, jv_err *err) {
    *ctx = NULL;
    hip_ctx *c = calloc(1, sizeof *c);
    if (!c) JV_FAIL(err, JV_ERR_NOMEM, "hip backend: out of memory");
    jv_status st = open_device(c, device, err);
    if (st != JV_OK) {
        hip_close(c);
        return st;
    }
    *ctx = c;
    return JV_OK;
}

static jv_status hip_props(void *ctx, jv_device_props *p, jv_err *err) {
    hip_ctx *c = ctx;
    memset(p, 0, sizeof *p);
    ALIVE(c, err);
    hipDeviceProp_t dp;
    HIP_CALL(c, err, "props", hipGetDeviceProperties(&dp, c->device));
    int drv = 0, rt = 0;
    HIP_CALL(c, err, "props", hipDriverGetVersion(&drv));
    HIP_CALL(c, err, "props", hipRuntimeGetVersion(&rt));
    size_t fr = 0, tot = 0;
    HIP_CALL(c, err, "props", hipMemGetInfo(&fr, &tot));
    /* an old runtime may leave the marketing name empty: ROCm SMI's then */
    snprintf(p->name, sizeof p->name, "%.127s", dp.name[0] || !c->rsmi.name[0] ? dp.name : c->rsmi.name);
    snprintf(p->backend, sizeof p->backend, "hip");
    snprintf(p->clocks_from, sizeof p->clocks_from, "%s",
             c->asmi.lib     ? "AMD SMI"
             : c->rsmi.lib   ? "ROCm SMI"
             : c->smi.dev[0] ? "sysfs"
                             : "");
    /* the memory clock and bus width give the datasheet bandwidth: named here until jv_device_props has fields */
    snprintf(p->driver, sizeof p->driver, "driver %d runtime %d; HBM %d MHz x %d bit", drv, rt,
             dp.memoryClockRate / 1000, dp.memoryBusWidth);
    /* "gfx942:sramecc+:xnack-": the processor, without its features */
    snprintf(p->arch, sizeof p->arch, "%.*s", (int)strcspn(dp.gcnArchName, ":"), dp.gcnArchName);
    p->is_gpu = 1;
    p->memory_bytes = (int64_t)dp.totalGlobalMem;
    p->free_bytes = (int64_t)fr;
    p->llc_bytes = c->llc_bytes;
    p->compute_units = dp.multiProcessorCount;
    p->clock_mhz = dp.clockRate > 0 ? dp.clockRate / 1000.0 : 0;
    p->launch_us = c->launch_us;
    p->host_launch_us = c->host_launch_us;
    snprintf(p->pci, sizeof p->pci, "%04x:%02x:%02x.0", (unsigned)dp.pciDomainID & 0xffffu,
             (unsigned)dp.pciBusID & 0xffu, (unsigned)dp.pciDeviceID & 0xffu);
    return JV_OK;
}

static jv_status hip_alloc(void *ctx, size_t bytes, void **dptr, jv_err *err) {
    hip_ctx *c = ctx;
    *dptr = NULL;
    ALIVE(c, err);
    if (!bytes) return JV_OK;
    hipError_t e = hipMalloc(dptr, bytes);
    if (e == hipSuccess) return JV_OK;
    *dptr = NULL;
    return hip_fail(c, e, "alloc", "hipMalloc", err);
}

static void hip_free(void *ctx, void *dptr) {
    hip_ctx *c = ctx;
    if (dptr && c && !c->broken) (void)hipFree(dptr);
}

/* a copy on our stream, then its end: a pageable copy may return before its DMA ends */
static jv_status hip_copy(hip_ctx *c, void *dst, const void *src, size_t bytes, hipMemcpyKind kind, const char *what,
                          jv_err *err) {
    ALIVE(c, err);
    if (!bytes) return JV_OK;
    HIP_CALL(c, err, what, hipMemcpyAsync(dst, src, bytes, kind, c->stream));
    HIP_CALL(c, err, what, hipStreamSynchronize(c->stream));
    return JV_OK;
}

static jv_status hip_upload(void *ctx, void *dst, const void *src, size_t bytes, jv_err *err) {
    return hip_copy(ctx, dst, src, bytes, hipMemcpyHostToDevice, "upload", err);
}

static jv_status hip_download(void *ctx, void *dst, const void *src, size_t bytes, jv_err *err) {
    return hip_copy(ctx, dst, src, bytes, hipMemcpyDeviceToHost, "download", err);
}

static jv_status hip_fill(void *ctx, void *dptr, int byte, size_t bytes, jv_err *err) {
    hip_ctx *c = ctx;
    ALIVE(c, err);
    if (!bytes) return JV_OK;
    HIP_CALL(c, err, "fill", hipMemsetAsync(dptr, byte, bytes, c->stream));
    HIP_CALL(c, err, "fill", hipStreamSynchronize(c->stream));
    return JV_OK;
}

static jv_status hip_sync(void *ctx, jv_err *err) {
    hip_ctx *c = ctx;
    ALIVE(c, err);
    HIP_CALL(c, err, "sync", hipStreamSynchronize(c->stream));
    return JV_OK;
}

static jv_status hip_timer_start(void *ctx, jv_err *err) {
    hip_ctx *c = ctx;
    ALIVE(c, err);
    HIP_CALL(c, err, "timer_start", hipEventRecord(c->ev0, c->stream));
    c->timing = 1;
    return JV_OK;
}

static jv_status hip_timer_stop(void *ctx, double *seconds, jv_err *err) {
    hip_ctx *c = ctx;
    *seconds = 0;
    ALIVE(c, err);
    if (!c->timing) JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: timer stopped without a start");
    c->timing = 0;
    double ms = 0;
    JV_CHECK(events_ms(c, "timer_stop", &ms, err));
    *seconds = ms * 1e-3;
    return JV_OK;
}

static void hip_release(void *ctx, void *plan) {
    hip_ctx *c = ctx; /* host objects only (descriptors): safe on a broken context */
    hip_plan *p = plan;
    if (!p) return;
    if (p->own) p->own->release(p->own_plan);
    jv_hipv_gemm_free(&c->vendor, p->gemm);
    jv_hipv_conv_free(&c->vendor, p->conv);
    jv_hipv_bn_free(&c->vendor, p->bn);
    free(p);
}

/* After a vendor call that returned st: when it failed, finds out whether the context is broken (a device-wide
 * synchronization surfaces an asynchronous fault; not while capturing) and if so marks it. */
static jv_status settle(hip_ctx *c, jv_status st, jv_err *err) {
    if (st == JV_OK || c->broken) return st;
    const char *name = NULL;
    hipError_t e = hipGetLastError();
    if (!jv_gpu_code_find(STICKY, sizeof STICKY / sizeof STICKY[0], (int)e, &name) && !c->capturing) {
        hipError_t s = hipDeviceSynchronize();
        if (jv_gpu_code_find(STICKY, sizeof STICKY / sizeof STICKY[0], (int)s, &name)) e = s;
    }
    if (!name) {
        (void)hipGetLastError(); /* not sticky: nothing stays behind for the next call */
        return st;
    }
    c->broken = 1;
    return jv_gpu_mark_broken(c->broken_msg, sizeof c->broken_msg, "hip", c->device, c->dev_name, name,
                              hipGetErrorString(e), err);
}

/* batch norm: MIOpen when PyTorch would pick it (not traced on the native kernels), our kernel otherwise; the
 * other one as variant 1 */
static jv_status prepare_bn(hip_ctx *c, const jv_desc *d, const jv_operands *ops, int variant, hip_plan *p, char *impl,
                            size_t impl_cap, jv_err *err) {
    char why[200], why2[200] = "no own kernel";
    const jv_gpu_kernel *k = jv_gpu_kernel_of(d->family);
    int possible = jv_hipv_bn_possible(&c->vendor, d, ops, why, sizeof why);
    int picks = possible && jv_batchnorm_of(d)->impl != JV_BN_IMPL_NATIVE;
    int ours = k && k->supported(d, ops, why2, sizeof why2);
    plan_kind order[2];
    int n = 0;
    if (picks) order[n++] = PLAN_BN;
    if (ours) order[n++] = PLAN_OURS;
    if (!picks && possible) order[n++] = PLAN_BN;
    if (variant < 0 || variant >= n) {
        if (variant == 0)
            JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: batchnorm: not on MIOpen (%s) nor our kernel (%s)", why, why2);
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: batchnorm: no such variant %d", variant);
    }
    if (order[variant] == PLAN_BN) {
        JV_CHECK(jv_hipv_bn_plan(&c->vendor, d, ops, c->ws_bytes, &p->bn, err));
        p->kind = PLAN_BN;
        snprintf(impl, impl_cap, "MIOpen batch norm");
        return JV_OK;
    }
    JV_CHECK(jv_gpu_own_prepare("hip", k, d, ops, 0, c->sms, c->ws_bytes, &p->own_plan, impl, impl_cap, err));
    p->own = k;
    p->kind = PLAN_OURS;
    return JV_OK;
}

/* What runs where: GEMM on hipBLASLt / rocBLAS, convolution on MIOpen (a pointwise one, variant 0, as GEMMs, as
 * PyTorch's MIOpen and cuDNN GEMM engines run it), batch norm on MIOpen or our kernel (prepare_bn); every other
 * family on its own device kernel (kernels/gpu_kernels.def), with no code here. impl names the path that ran. */
static jv_status prepare_body(hip_ctx *c, const jv_desc *d, const jv_operands *ops, int variant, hip_plan *p,
                              char *impl, size_t impl_cap, jv_err *err) {
    p->op = jv_family_get(d->family)->name;
    switch ((jv_family_id)d->family) {
    case JV_FAM_GEMM:
        if (variant != 0) JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: gemm: no such variant %d", variant);
        p->kind = PLAN_GEMM;
        return jv_hipv_gemm_plan(&c->vendor, d, ops, c->ws_bytes, &p->gemm, impl, impl_cap, err);
    case JV_FAM_CONV: {
        jv_conv_gemm cg;
        char why[160];
        int as_gemm = jv_conv_as_gemm(d, ops, &cg, why, sizeof why);
        if (variant != 0 && variant != (as_gemm ? 1 : 0))
            JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: conv: no such variant %d", variant);
        p->kind = PLAN_CONV;
        return jv_hipv_conv_plan(&c->vendor, d, ops, as_gemm && variant == 0, c->ws_bytes, &p->conv, impl, impl_cap,
                                 err);
    }
    case JV_FAM_BATCHNORM: return prepare_bn(c, d, ops, variant, p, impl, impl_cap, err);
    default: break;
    }
    const jv_gpu_kernel *k = jv_gpu_kernel_of(d->family); /* this backend's own copy of the kernels */
    JV_CHECK(jv_gpu_own_prepare("hip", k, d, ops, variant, c->sms, c->ws_bytes, &p->own_plan, impl, impl_cap, err));
    p->own = k;
    p->kind = PLAN_OURS;
    return JV_OK;
}

static jv_status hip_prepare(void *ctx, const jv_desc *d, const jv_operands *ops, int variant, void **plan, char *impl,
                             size_t impl_cap, jv_err *err) {
    hip_ctx *c = ctx;
    *plan = NULL;
    if (impl_cap) impl[0] = 0;
    ALIVE(c, err);
    if (d->family < 0 || d->family >= jv_family_count())
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: descriptor of unknown family %d", d->family);
    hip_plan *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "hip backend: out of memory");
    jv_status st = settle(c, prepare_body(c, d, ops, variant, p, impl, impl_cap, err), err);
    if (st != JV_OK) {
        hip_release(c, p);
        return st;
    }
    *plan = p;
    return JV_OK;
}

static jv_status hip_launch(void *ctx, void *plan, const jv_desc *d, const jv_operands *ops, void *const *bufs,
                            jv_err *err) {
    hip_ctx *c = ctx;
    hip_plan *p = plan;
    (void)d, (void)ops; /* everything the launch needs is in the plan */
    ALIVE(c, err);
    if (!p) JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: launch without a plan");
    switch (p->kind) {
    case PLAN_GEMM: return settle(c, jv_hipv_gemm_run(&c->vendor, p->gemm, bufs, c->ws, c->ws_bytes, err), err);
    case PLAN_CONV: return settle(c, jv_hipv_conv_run(&c->vendor, p->conv, bufs, c->ws, c->ws_bytes, err), err);
    case PLAN_BN: return settle(c, jv_hipv_bn_run(&c->vendor, p->bn, bufs, c->ws, c->ws_bytes, err), err);
    case PLAN_OURS: break;
    }
    int e = p->own->run(p->own_plan, bufs, c->ws, c->stream);
    if (e) return hip_fail(c, (hipError_t)e, p->op, p->own->name, err);
    return JV_OK;
}

static jv_status hip_baseline(void *ctx, jv_base_kernel k, const float *a, const float *b, float *cc, int64_t n,
                              float s, jv_err *err) {
    hip_ctx *c = ctx;
    ALIVE(c, err);
    if ((int)k < 0 || k >= JV_BASE_COUNT)
        JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: unknown baseline kernel %d", (int)k);
    int e = jv_gpu_baseline((int)k, a, b, cc, n, s, c->sms, c->stream);
    if (e) return hip_fail(c, (hipError_t)e, "baseline", "jv_gpu_baseline", err);
    return JV_OK;
}

/* gemm-algo heuristic | best (jv_hipv.gemm_search); conv-algo (jv_hipv.conv_mode) heuristic (MIOpen's Find, not
 * exhaustive: PyTorch's default) | immediate (immediate mode's first solution: torch.backends.miopen.immediate) |
 * best (Find, exhaustive: PyTorch's benchmark mode) */
static jv_status hip_set_option(void *ctx, const char *key, const char *value, jv_err *err) {
    hip_ctx *c = ctx;
    ALIVE(c, err);
    if (!strcmp(key, "gemm-algo")) {
        if (!strcmp(value, "heuristic"))
            c->vendor.gemm_search = 0;
        else if (!strcmp(value, "best"))
            c->vendor.gemm_search = 1;
        else
            JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: gemm-algo is heuristic or best, not '%s'", value);
        return JV_OK;
    }
    if (!strcmp(key, "conv-algo")) {
        if (!strcmp(value, "heuristic"))
            c->vendor.conv_mode = JV_HIPV_CONV_FIND;
        else if (!strcmp(value, "immediate"))
            c->vendor.conv_mode = JV_HIPV_CONV_IMMEDIATE;
        else if (!strcmp(value, "best"))
            c->vendor.conv_mode = JV_HIPV_CONV_BEST;
        else
            JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: conv-algo is heuristic, immediate or best, not '%s'", value);
        return JV_OK;
    }
    JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: no option '%s'", key);
}

static jv_status hip_clocks(void *ctx, jv_clocks *out, jv_err *err) {
    hip_ctx *c = ctx;
    memset(out, 0, sizeof *out);
    ALIVE(c, err);
    if (c->asmi.lib)
        jv_amd_smi_clocks(&c->asmi, out);
    else if (c->rsmi.lib)
        jv_rocm_smi_clocks(&c->rsmi, out);
    else
        jv_amdgpu_clocks(&c->smi, out);
    return JV_OK;
}

static jv_status hip_flush_cache(void *ctx, jv_err *err) {
    hip_ctx *c = ctx;
    ALIVE(c, err);
    if (!c->flush) JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: no cache flush: %s", c->flush_why);
    c->flush_byte ^= 0xff; /* a new value each time: no write can be elided as unchanged */
    HIP_CALL(c, err, "flush_cache", hipMemsetAsync(c->flush, c->flush_byte, c->flush_bytes, c->stream));
    return JV_OK;
}

static void hip_range_push(void *ctx, const char *name) {
    hip_ctx *c = ctx;
    if (c && c->roctx_push) (void)c->roctx_push(name);
}

static void hip_range_pop(void *ctx) {
    hip_ctx *c = ctx;
    if (c && c->roctx_pop) (void)c->roctx_pop();
}

/* replays the instantiated graph once to warm up, then reps times, each timed alone */
static jv_status graph_body(hip_ctx *c, hipGraphExec_t ge, int runs, int reps, double *per_run_s, jv_err *err) {
    HIP_CALL(c, err, "graph", hipGraphLaunch(ge, c->stream)); /* warm-up */
    HIP_CALL(c, err, "graph", hipStreamSynchronize(c->stream));
    double t[64];
    if (reps > 64) reps = 64;
    for (int i = 0; i < reps; i++) {
        double ms = 0;
        HIP_CALL(c, err, "graph", hipEventRecord(c->ev0, c->stream));
        HIP_CALL(c, err, "graph", hipGraphLaunch(ge, c->stream));
        JV_CHECK(events_ms(c, "graph", &ms, err));
        t[i] = ms * 1e-3;
    }
    *per_run_s = jv_median_sort(t, (size_t)reps) / runs;
    return JV_OK;
}

static jv_status graph_time_body(hip_ctx *c, jv_be_run_fn fn, void *arg, int runs, int reps, double *per_run_s,
                                 jv_err *err) {
    HIP_CALL(c, err, "graph", hipStreamSynchronize(c->stream));
    HIP_CALL(c, err, "graph", hipStreamBeginCapture(c->stream, hipStreamCaptureModeThreadLocal));
    c->capturing = 1;
    jv_err fe = {0};
    jv_status st = JV_OK;
    for (int i = 0; i < runs && st == JV_OK; i++)
        st = fn(arg, 0, &fe);
    hipGraph_t g = NULL;
    hipError_t he = hipStreamEndCapture(c->stream, &g);
    c->capturing = 0;
    if (st == JV_ERR_DEVICE || c->broken) { /* the context broke inside the capture */
        if (g) (void)hipGraphDestroy(g);
        JV_FAIL(err, JV_ERR_DEVICE, "%s", c->broken ? c->broken_msg : fe.msg);
    }
    if (st != JV_OK || he != hipSuccess || !g) {
        if (g) (void)hipGraphDestroy(g);
        (void)hipGetLastError(); /* a capture error is not sticky */
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: the op cannot be captured in a HIP graph: %s",
                st != JV_OK ? fe.msg : hipGetErrorName(he));
    }
    hipGraphExec_t ge = NULL;
    he = hipGraphInstantiate(&ge, g, NULL, NULL, 0);
    (void)hipGraphDestroy(g);
    if (he != hipSuccess) {
        (void)hipGetLastError();
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: hipGraphInstantiate failed: %s", hipGetErrorName(he));
    }
    st = graph_body(c, ge, runs, reps, per_run_s, err);
    (void)hipGraphExecDestroy(ge);
    return st;
}

static jv_status hip_graph_time(void *ctx, jv_be_run_fn fn, void *arg, int runs, int reps, double *per_run_s,
                                jv_err *err) {
    hip_ctx *c = ctx;
    *per_run_s = 0;
    ALIVE(c, err);
    if (runs < 1 || reps < 1) JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: graph: %d runs, %d reps", runs, reps);
    return graph_time_body(c, fn, arg, runs, reps, per_run_s, err);
}

/* the spin counts shader cycles: at the highest clock it lasts `seconds`, at any lower one longer */
static jv_status hip_hold(void *ctx, double seconds, jv_err *err) {
    hip_ctx *c = ctx;
    ALIVE(c, err);
    double khz = c->clock_khz > 0 ? c->clock_khz : 2.5e6; /* unknown: a clock no GPU exceeds */
    int64_t cycles = (int64_t)(seconds * khz * 1e3);
    int e = jv_gpu_spin(cycles > 0 ? cycles : 0, c->stream);
    if (e) return hip_fail(c, (hipError_t)e, "hold", "jv_gpu_spin", err);
    return JV_OK;
}

const jv_backend jv_hip_backend = {
    .name = "hip",
    .open = hip_open,
    .close = hip_close,
    .props = hip_props,
    .alloc = hip_alloc,
    .free = hip_free,
    .upload = hip_upload,
    .download = hip_download,
    .fill = hip_fill,
    .sync = hip_sync,
    .timer_start = hip_timer_start,
    .timer_stop = hip_timer_stop,
    .prepare = hip_prepare,
    .launch = hip_launch,
    .release = hip_release,
    .baseline = hip_baseline,
    .range_push = hip_range_push,
    .range_pop = hip_range_pop,
    .graph_time = hip_graph_time,
    .clocks = hip_clocks,
    .set_option = hip_set_option,
    .flush_cache = hip_flush_cache,
    .hold = hip_hold,
};

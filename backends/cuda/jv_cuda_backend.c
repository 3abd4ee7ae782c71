/* jv_cuda_backend: the CUDA backend (backend.h): one device, one
 * non-blocking stream that every call queues on, a cuBLASLt and a cuDNN
 * handle bound to it. Everything sized once at open: one workspace
 * (jv_cuda_workspace_bytes: 256 MiB, less on a device short of memory; the
 * cuBLASLt limit within it is a fixed 32 MiB, all of it with gemm-algo
 * best), a cache-flush buffer of twice
 * the L2, and the measured launch overhead. GEMMs run on cuBLASLt
 * (jv_cuda_blas), convolutions and batch norm on cuDNN (jv_cuda_dnn),
 * elementwise ops and our batch norm on the plans of
 * kernels/<family>/<family>.cu. A sticky device error (jv_cuda_error_sticky)
 * marks the context broken: from then on every call returns JV_ERR_DEVICE
 * without touching CUDA. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#if defined(__has_include)
#if __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define JV_HAVE_NVTX 1
#endif
#endif

#include "backend.h"
#include "conv/conv.h"                   /* a pointwise convolution as GEMMs */
#include "elementwise/elementwise_gpu.h" /* the baseline kernels and the launch probes */
#include "gemm/gemm.h"                   /* ... made aten::mm calls */
#include "jv_cuda_blas.h"
#include "jv_cuda_dnn.h"
#include "jv_cuda_pure.h"
#include "jv_gpu_common.h"
#include "jv_gpu_kernel.h"
#include "jv_nvml.h"
#include "jv_sort.h"

typedef struct {
    int device;
    char dev_name[128];
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
    int timing;
    int capturing; /* inside a graph capture on the stream: no device-wide synchronization */
    cublasLtHandle_t lt;
    cudnnHandle_t dnn;
    void *ws; /* the one workspace, allocated at open, never grown or freed before close */
    size_t ws_bytes;
    size_t free_at_open;
    void *flush; /* 2 x L2, written by flush_cache (NULL: flush_why says why not) */
    size_t flush_bytes;
    int flush_byte;
    char flush_why[160];
    int sms;
    int clock_khz; /* the highest SM clock (cudaDevAttrClockRate; 0 unknown): sizes a hold's spin */
    int64_t l2_bytes;
    double launch_us, host_launch_us;
    int conv_search;               /* --conv-algo best */
    jv_cuda_conv_cache conv_cache; /* cuDNN algorithm choices per convolution configuration */
    int gemm_search;               /* --gemm-algo best */
    jv_gpu_gemm_cache gemm_cache;  /* cuBLASLt search results per GEMM configuration */
    jv_nvml nvml;                  /* clocks (NVML loaded at run time; .lib NULL when absent) */
    int broken;                    /* a sticky error: the context is unusable */
    char broken_msg[480];
} cuda_ctx;

/* PLAN_OURS: the family's own device kernel (jv_gpu_kernel_of); the others: a library (PLAN_CONV_GEMM: a
 * pointwise convolution as cuBLASLt GEMMs, jv_conv_as_gemm) */
typedef enum { PLAN_OURS, PLAN_BN_CUDNN, PLAN_CONV, PLAN_GEMM, PLAN_CONV_GEMM } plan_kind;

typedef struct {
    plan_kind kind;
    const char *op; /* family name, for messages */
    jv_cuda_gemm *gemm;
    int cg_n; /* PLAN_CONV_GEMM: its GEMMs, and the conv operand of each one's self, mat2, out */
    jv_cuda_gemm *cg[2];
    int cg_src[2][3];
    jv_cuda_conv *conv;
    jv_cuda_bn *bn;
    const jv_gpu_kernel *own; /* PLAN_OURS: the kernel and its plan */
    void *own_plan;
} cuda_plan;

#define CU_CALL(err, what, call)                                                                                       \
    do {                                                                                                               \
        cudaError_t cu_s_ = (call);                                                                                    \
        if (cu_s_ != cudaSuccess)                                                                                      \
            JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: %s: %s failed: %s", what, #call, cudaGetErrorString(cu_s_));  \
    } while (0)

/* Returns JV_ERR_DEVICE at once when the context is broken. */
#define ALIVE(c, err)                                                                                                  \
    do {                                                                                                               \
        if ((c)->broken) JV_FAIL(err, JV_ERR_DEVICE, "%s", (c)->broken_msg);                                           \
    } while (0)

/* After a call that returned st: when it failed, finds out whether the
 * context is broken (the last error, then a device-wide synchronization that
 * surfaces asynchronous faults; not while capturing a graph) and if so marks
 * it and turns st into JV_ERR_DEVICE naming the device and the error; a
 * failure that is not sticky is cleared and returned as it is. */
static jv_status settle(cuda_ctx *c, jv_status st, jv_err *err) {
    if (st == JV_OK || c->broken) return st;
    const char *name = NULL;
    cudaError_t e = cudaPeekAtLastError();
    if (!jv_cuda_error_sticky((int)e, &name) && !c->capturing) {
        cudaError_t s = cudaDeviceSynchronize();
        if (jv_cuda_error_sticky((int)s, &name)) e = s;
    }
    if (!name) {
        (void)cudaGetLastError(); /* not sticky: nothing stays behind for the next call */
        return st;
    }
    c->broken = 1;
    return jv_gpu_mark_broken(c->broken_msg, sizeof c->broken_msg, "cuda", c->device, c->dev_name, name,
                              cudaGetErrorString(e), err);
}

static jv_status kernel_status(int code, const char *op, const char *call, jv_err *err) {
    if (code == 0) return JV_OK;
    JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: %s: %s failed: %s", op, call, cudaGetErrorString((cudaError_t)code));
}

static void cuda_close(void *ctx) {
    cuda_ctx *c = ctx;
    if (!c) return;
    /* after a sticky error these calls fail harmlessly: they only release */
    if (c->stream && !c->broken) cudaStreamSynchronize(c->stream);
    if (c->ws) cudaFree(c->ws);
    if (c->flush) cudaFree(c->flush);
    if (c->dnn) cudnnDestroy(c->dnn);
    if (c->lt) cublasLtDestroy(c->lt);
    if (c->ev0) cudaEventDestroy(c->ev0);
    if (c->ev1) cudaEventDestroy(c->ev1);
    if (c->stream) cudaStreamDestroy(c->stream);
    jv_gpu_cache_clear(&c->conv_cache);
    jv_gpu_cache_clear(&c->gemm_cache);
    jv_nvml_close(&c->nvml);
    free(c);
}

/* the launch-overhead probe (jv_gpu_measure_launch) on our stream and events */
static jv_status probe_noop(void *ctx, jv_err *err) {
    return kernel_status(jv_gpu_noop(((cuda_ctx *)ctx)->stream), "open", "jv_gpu_noop", err);
}

static jv_status probe_spin(void *ctx, int64_t cycles, jv_err *err) {
    return kernel_status(jv_gpu_spin(cycles, ((cuda_ctx *)ctx)->stream), "open", "jv_gpu_spin", err);
}

static jv_status probe_sync(void *ctx, jv_err *err) {
    CU_CALL(err, "open: launch overhead", cudaStreamSynchronize(((cuda_ctx *)ctx)->stream));
    return JV_OK;
}

static jv_status probe_start(void *ctx, jv_err *err) {
    cuda_ctx *c = ctx;
    CU_CALL(err, "open: launch overhead", cudaEventRecord(c->ev0, c->stream));
    return JV_OK;
}

static jv_status probe_started(void *ctx, int *done, jv_err *err) {
    cudaError_t q = cudaEventQuery(((cuda_ctx *)ctx)->ev0); /* not ready: the spin still holds the stream */
    *done = q == cudaSuccess;
    if (q == cudaErrorNotReady)
        (void)cudaGetLastError();
    else if (q != cudaSuccess)
        CU_CALL(err, "open: launch overhead", q);
    return JV_OK;
}

static jv_status probe_stop(void *ctx, double *ms, jv_err *err) {
    cuda_ctx *c = ctx;
    float f = 0;
    CU_CALL(err, "open: launch overhead", cudaEventRecord(c->ev1, c->stream));
    CU_CALL(err, "open: launch overhead", cudaEventSynchronize(c->ev1));
    CU_CALL(err, "open: launch overhead", cudaEventElapsedTime(&f, c->ev0, c->ev1));
    *ms = f;
    return JV_OK;
}

static jv_status measure_launch(cuda_ctx *c, jv_err *err) {
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, c->device) != cudaSuccess || khz <= 0) {
        (void)cudaGetLastError();
        khz = 0; /* unknown: jv_gpu_measure_launch assumes 2 GHz */
    }
    c->clock_khz = khz;
    const jv_gpu_launch_probe probe = {c, probe_noop, probe_spin, probe_sync, probe_start, probe_started, probe_stop};
    return jv_gpu_measure_launch(&probe, khz, &c->launch_us, &c->host_launch_us, err);
}

static jv_status open_body(cuda_ctx *c, int device, jv_err *err) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: no CUDA device %d: %s", device, cudaGetErrorString(e));
    if (device < 0 || device >= count)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: no CUDA device %d: %d device%s present", device, count,
                count == 1 ? "" : "s");
    c->device = device;
    snprintf(c->dev_name, sizeof c->dev_name, "?");
    CU_CALL(err, "open", cudaSetDevice(device));
    struct cudaDeviceProp dp;
    CU_CALL(err, "open", cudaGetDeviceProperties(&dp, device));
    snprintf(c->dev_name, sizeof c->dev_name, "%.127s", dp.name);
    c->sms = dp.multiProcessorCount;
    c->l2_bytes = dp.l2CacheSize;
    CU_CALL(err, "open", cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    CU_CALL(err, "open", cudaEventCreate(&c->ev0));
    CU_CALL(err, "open", cudaEventCreate(&c->ev1));
    cublasStatus_t ls = cublasLtCreate(&c->lt);
    if (ls != CUBLAS_STATUS_SUCCESS)
        JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: open: cublasLtCreate failed: %s", cublasLtGetStatusString(ls));
    cudnnStatus_t ds = cudnnCreate(&c->dnn);
    if (ds == CUDNN_STATUS_SUCCESS) ds = cudnnSetStream(c->dnn, c->stream);
    if (ds != CUDNN_STATUS_SUCCESS)
        JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: open: cudnnCreate / cudnnSetStream failed: %s",
                cudnnGetErrorString(ds));

    /* the workspace, once, the same for every op */
    size_t fr = 0, tot = 0;
    CU_CALL(err, "open", cudaMemGetInfo(&fr, &tot));
    c->free_at_open = fr;
    c->ws_bytes = jv_cuda_workspace_bytes(fr);
    e = cudaMalloc(&c->ws, c->ws_bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        c->ws = NULL;
        JV_FAIL(err, e == cudaErrorMemoryAllocation ? JV_ERR_NOMEM : JV_ERR_INTERNAL,
                "cuda backend: open: device %d (%s): cannot allocate the %zu MiB workspace (%zu of %zu MiB free): %s",
                device, c->dev_name, c->ws_bytes >> 20, fr >> 20, tot >> 20, cudaGetErrorString(e));
    }

    /* the cache-flush buffer: optional */
    c->flush_bytes = jv_gpu_flush_bytes(c->l2_bytes);
    if (!c->flush_bytes) {
        snprintf(c->flush_why, sizeof c->flush_why, "the device reports no L2 size");
    } else if ((e = cudaMalloc(&c->flush, c->flush_bytes)) != cudaSuccess) {
        (void)cudaGetLastError();
        c->flush = NULL;
        snprintf(c->flush_why, sizeof c->flush_why, "cannot allocate the %zu MiB flush buffer (2 x L2): %s",
                 c->flush_bytes >> 20, cudaGetErrorString(e));
    }

    JV_CHECK(measure_launch(c, err));
    char bus[32];
    if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, device) == cudaSuccess)
        jv_nvml_open(&c->nvml, bus);
    else
        (void)cudaGetLastError();
    return JV_OK;
}

static jv_status cuda_open(int device, void **ctx, jv_err *err) {
    *ctx = NULL;
    cuda_ctx *c = calloc(1, sizeof *c);
    if (!c) JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: out of memory");
    jv_status st = settle(c, open_body(c, device, err), err);
    if (st != JV_OK) {
        cuda_close(c);
        return st;
    }
    *ctx = c;
    return JV_OK;
}

static jv_status props_body(cuda_ctx *c, jv_device_props *p, jv_err *err) {
    struct cudaDeviceProp dp;
    CU_CALL(err, "props", cudaGetDeviceProperties(&dp, c->device));
    snprintf(p->name, sizeof p->name, "%.127s", dp.name);
    snprintf(p->backend, sizeof p->backend, "cuda");
    int drv = 0, rt = 0;
    CU_CALL(err, "props", cudaDriverGetVersion(&drv));
    CU_CALL(err, "props", cudaRuntimeGetVersion(&rt));
    snprintf(p->driver, sizeof p->driver, "driver %d runtime %d", drv, rt);
    snprintf(p->arch, sizeof p->arch, "sm_%d%d", dp.major, dp.minor);
    p->is_gpu = 1;
    p->memory_bytes = (int64_t)dp.totalGlobalMem;
    size_t fr = 0, tot = 0;
    CU_CALL(err, "props", cudaMemGetInfo(&fr, &tot));
    p->free_bytes = (int64_t)fr;
    p->llc_bytes = dp.l2CacheSize;
    p->compute_units = dp.multiProcessorCount;
    p->cc_major = dp.major, p->cc_minor = dp.minor;
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, c->device) == cudaSuccess && khz > 0)
        p->clock_mhz = khz / 1000.0;
    else
        (void)cudaGetLastError(); /* clear a refused attribute */
    p->launch_us = c->launch_us;
    p->host_launch_us = c->host_launch_us;
    if (c->nvml.lib) snprintf(p->clocks_from, sizeof p->clocks_from, "NVML");
    const unsigned char *u = (const unsigned char *)dp.uuid.bytes; /* nvidia-smi's form */
    snprintf(p->uuid, sizeof p->uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
             u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    snprintf(p->pci, sizeof p->pci, "%04x:%02x:%02x.0", (unsigned)dp.pciDomainID & 0xffffu,
             (unsigned)dp.pciBusID & 0xffu, (unsigned)dp.pciDeviceID & 0xffu);
    return JV_OK;
}

static jv_status cuda_props(void *ctx, jv_device_props *p, jv_err *err) {
    cuda_ctx *c = ctx;
    memset(p, 0, sizeof *p);
    ALIVE(c, err);
    return settle(c, props_body(c, p, err), err);
}

static jv_status alloc_body(cuda_ctx *c, size_t bytes, void **dptr, jv_err *err) {
    (void)c;
    cudaError_t e = cudaMalloc(dptr, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        size_t fr = 0, tot = 0;
        if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) (void)cudaGetLastError();
        *dptr = NULL;
        JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: cannot allocate %zu bytes (%zu of %zu free)", bytes, fr, tot);
    }
    if (e != cudaSuccess) {
        *dptr = NULL;
        JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: cudaMalloc(%zu) failed: %s", bytes, cudaGetErrorString(e));
    }
    return JV_OK;
}

static jv_status cuda_alloc(void *ctx, size_t bytes, void **dptr, jv_err *err) {
    cuda_ctx *c = ctx;
    *dptr = NULL;
    ALIVE(c, err);
    if (!bytes) return JV_OK;
    return settle(c, alloc_body(c, bytes, dptr, err), err);
}

static void cuda_free(void *ctx, void *dptr) {
    cuda_ctx *c = ctx;
    if (dptr && c && !c->broken) cudaFree(dptr);
}

static jv_status copy_body(cuda_ctx *c, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                           const char *what, jv_err *err) {
    /* on our stream, then a sync: a pageable cudaMemcpy may return before its DMA ends, and the
     * non-blocking stream would not wait for it */
    CU_CALL(err, what, cudaMemcpyAsync(dst, src, bytes, kind, c->stream));
    CU_CALL(err, what, cudaStreamSynchronize(c->stream));
    return JV_OK;
}

static jv_status cuda_upload(void *ctx, void *dst, const void *src, size_t bytes, jv_err *err) {
    cuda_ctx *c = ctx;
    ALIVE(c, err);
    if (!bytes) return JV_OK;
    return settle(c, copy_body(c, dst, src, bytes, cudaMemcpyHostToDevice, "upload", err), err);
}

static jv_status cuda_download(void *ctx, void *dst, const void *src, size_t bytes, jv_err *err) {
    cuda_ctx *c = ctx;
    ALIVE(c, err);
    if (!bytes) return JV_OK;
    return settle(c, copy_body(c, dst, src, bytes, cudaMemcpyDeviceToHost, "download", err), err);
}

static jv_status fill_body(cuda_ctx *c, void *dptr, int byte, size_t bytes, jv_err *err) {
    CU_CALL(err, "fill", cudaMemsetAsync(dptr, byte, bytes, c->stream));
    CU_CALL(err, "fill", cudaStreamSynchronize(c->stream));
    return JV_OK;
}

static jv_status cuda_fill(void *ctx, void *dptr, int byte, size_t bytes, jv_err *err) {
    cuda_ctx *c = ctx;
    ALIVE(c, err);
    if (!bytes) return JV_OK;
    return settle(c, fill_body(c, dptr, byte, bytes, err), err);
}

static jv_status sync_body(cuda_ctx *c, jv_err *err) {
    CU_CALL(err, "sync", cudaStreamSynchronize(c->stream));
    return JV_OK;
}

static jv_status cuda_sync(void *ctx, jv_err *err) {
    cuda_ctx *c = ctx;
    ALIVE(c, err);
    return settle(c, sync_body(c, err), err);
}

static jv_status timer_start_body(cuda_ctx *c, jv_err *err) {
    CU_CALL(err, "timer_start", cudaEventRecord(c->ev0, c->stream));
    c->timing = 1;
    return JV_OK;
}

static jv_status cuda_timer_start(void *ctx, jv_err *err) {
    cuda_ctx *c = ctx;
    ALIVE(c, err);
    return settle(c, timer_start_body(c, err), err);
}

static jv_status timer_stop_body(cuda_ctx *c, double *seconds, jv_err *err) {
    if (!c->timing) JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: timer stopped without a start");
    c->timing = 0;
    float ms = 0;
    CU_CALL(err, "timer_stop", cudaEventRecord(c->ev1, c->stream));
    CU_CALL(err, "timer_stop", cudaEventSynchronize(c->ev1));
    CU_CALL(err, "timer_stop", cudaEventElapsedTime(&ms, c->ev0, c->ev1));
    *seconds = ms * 1e-3;
    return JV_OK;
}

static jv_status cuda_timer_stop(void *ctx, double *seconds, jv_err *err) {
    cuda_ctx *c = ctx;
    *seconds = 0;
    ALIVE(c, err);
    return settle(c, timer_stop_body(c, seconds, err), err);
}

static void cuda_release(void *ctx, void *plan) {
    (void)ctx; /* host objects and cuDNN / cuBLASLt descriptors only: safe on a broken context */
    cuda_plan *p = plan;
    if (!p) return;
    jv_cuda_gemm_free(p->gemm);
    for (int i = 0; i < p->cg_n; i++)
        jv_cuda_gemm_free(p->cg[i]);
    jv_cuda_conv_free(p->conv);
    jv_cuda_bn_free(p->bn);
    if (p->own) p->own->release(p->own_plan);
    free(p);
}

/* Appends why the workspace is below JV_CUDA_DNN_WORKSPACE to a refusal that names it. */
static void note_small_ws(const cuda_ctx *c, jv_err *err) {
    if (!err || c->ws_bytes >= JV_CUDA_DNN_WORKSPACE || !strstr(err->msg, "workspace")) return;
    size_t len = strlen(err->msg);
    snprintf(err->msg + len, sizeof err->msg - len, " (workspace reduced from %zu MiB: %zu MiB free at open)",
             JV_CUDA_DNN_WORKSPACE >> 20, c->free_at_open >> 20);
}

/* the family's own device kernel (jv_gpu_kernel_of) for parsed call d: its plan and workspace */
static jv_status prepare_own(cuda_ctx *c, const jv_gpu_kernel *k, const jv_desc *d, const jv_operands *ops,
                             cuda_plan *p, char *impl, size_t impl_cap, jv_err *err) {
    JV_CHECK(jv_gpu_own_prepare("cuda", k, d, ops, 0, c->sms, c->ws_bytes, &p->own_plan, impl, impl_cap, err));
    p->own = k;
    p->kind = PLAN_OURS;
    return JV_OK;
}

static jv_status prepare_bn(cuda_ctx *c, const jv_desc *d, const jv_operands *ops, int variant, cuda_plan *p,
                            char *impl, size_t impl_cap, jv_err *err) {
    /* cuDNN when PyTorch would pick it (and not traced on the native kernels), our kernel otherwise */
    char why[200], why2[200] = "no own kernel";
    const jv_gpu_kernel *k = jv_gpu_kernel_of(d->family);
    int possible = jv_cuda_bn_possible(d, ops, why, sizeof why);
    int picks = possible && jv_cuda_bn_supported(d, ops, why, sizeof why);
    int ours = k && k->supported(d, ops, why2, sizeof why2);
    /* the implementations on offer, PyTorch's choice first */
    plan_kind order[2];
    int n = 0;
    if (picks) order[n++] = PLAN_BN_CUDNN;
    if (ours) order[n++] = PLAN_OURS;
    if (!picks && possible) order[n++] = PLAN_BN_CUDNN;
    if (variant < 0 || variant >= n) {
        if (variant == 0)
            JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: batchnorm: not on cuDNN (%s) nor our kernel (%s)", why, why2);
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: batchnorm: no such variant %d", variant);
    }
    if (order[variant] == PLAN_BN_CUDNN) {
        JV_CHECK(jv_cuda_bn_plan(d, ops, c->ws_bytes, &p->bn, err));
        p->kind = PLAN_BN_CUDNN;
        snprintf(impl, impl_cap, "cuDNN");
        return JV_OK;
    }
    return prepare_own(c, k, d, ops, p, impl, impl_cap, err);
}

/* A pointwise convolution as the cuBLASLt GEMMs of cg (jv_conv_as_gemm), each planned as the GEMM family's
 * calls are; impl names them: "cuBLASLt 1x1 conv GEMM: <first GEMM's algorithm>". */
static jv_status prepare_conv_gemm(cuda_ctx *c, const jv_conv_gemm *cg, cuda_plan *p, char *impl, size_t impl_cap,
                                   jv_err *err) {
    jv_cuda_gemm_pick pick = {c->gemm_search, c->ws_bytes, c->ws, c->stream, &c->gemm_cache};
    p->kind = PLAN_CONV_GEMM;
    for (int i = 0; i < cg->n; i++) {
        jv_desc md;
        jv_operands mops;
        JV_CHECK(jv_gemm_desc_mm(&md, &cg->step[i].a, &cg->step[i].b, err));
        JV_CHECK(jv_gemm_operands(&md, &mops, err));
        JV_CHECK(jv_cuda_gemm_plan(c->lt, &md, &mops, &pick, &p->cg[i], err));
        p->cg_n = i + 1;
        memcpy(p->cg_src[i], cg->step[i].src, sizeof p->cg_src[i]);
    }
    char first[160];
    jv_cuda_gemm_describe(p->cg[0], first, sizeof first);
    snprintf(impl, impl_cap, "cuBLASLt 1x1 conv GEMM: %s", first);
    return JV_OK;
}

/* Library implementations by family (cuBLASLt, cuDNN: this backend's own business); every other family runs
 * on its own device kernel when it has one (kernels/gpu_kernels.def), with no code here. */
static jv_status prepare_body(cuda_ctx *c, const jv_desc *d, const jv_operands *ops, int variant, cuda_plan *p,
                              char *impl, size_t impl_cap, jv_err *err) {
    const char *fam = jv_family_get(d->family)->name;
    p->op = fam;
    switch ((jv_family_id)d->family) {
    case JV_FAM_BATCHNORM: {
        jv_status st = prepare_bn(c, d, ops, variant, p, impl, impl_cap, err);
        if (st == JV_ERR_NOTFOUND) note_small_ws(c, err);
        return st;
    }
    case JV_FAM_CONV: {
        /* a pointwise convolution: variant 0 on cuBLASLt, as cuDNN's GEMM engines run it under PyTorch, variant
         * 1 on cuDNN's convolution API; any other: variant 0 on cuDNN */
        jv_conv_gemm cg;
        char why[160];
        int as_gemm = jv_conv_as_gemm(d, ops, &cg, why, sizeof why);
        if (as_gemm && variant == 0) return prepare_conv_gemm(c, &cg, p, impl, impl_cap, err);
        if (variant != (as_gemm ? 1 : 0))
            JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: conv: no such variant %d", variant);
        jv_status st = jv_cuda_conv_plan(c->dnn, d, ops, c->conv_search, c->ws_bytes, &c->conv_cache, &p->conv, err);
        if (st == JV_ERR_NOTFOUND) note_small_ws(c, err);
        JV_CHECK(st);
        p->kind = PLAN_CONV;
        jv_cuda_conv_describe(p->conv, impl, impl_cap);
        return JV_OK;
    }
    case JV_FAM_GEMM: {
        if (variant != 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: gemm: no such variant %d", variant);
        jv_cuda_gemm_pick pick = {c->gemm_search, c->ws_bytes, c->ws, c->stream, &c->gemm_cache};
        JV_CHECK(jv_cuda_gemm_plan(c->lt, d, ops, &pick, &p->gemm, err));
        p->kind = PLAN_GEMM;
        jv_cuda_gemm_describe(p->gemm, impl, impl_cap);
        return JV_OK;
    }
    default: break;
    }
    const jv_gpu_kernel *k = jv_gpu_kernel_of(d->family);
    if (!k) JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: family '%s' is not replayed on CUDA", fam);
    if (variant != 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: no such variant %d", fam, variant);
    return prepare_own(c, k, d, ops, p, impl, impl_cap, err);
}

static jv_status cuda_prepare(void *ctx, const jv_desc *d, const jv_operands *ops, int variant, void **plan, char *impl,
                              size_t impl_cap, jv_err *err) {
    cuda_ctx *c = ctx;
    *plan = NULL;
    if (impl_cap) impl[0] = 0;
    ALIVE(c, err);
    if (d->family < 0 || d->family >= jv_family_count())
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: descriptor of unknown family %d", d->family);
    cuda_plan *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: out of memory");
    jv_status st = settle(c, prepare_body(c, d, ops, variant, p, impl, impl_cap, err), err);
    if (st != JV_OK) {
        cuda_release(c, p);
        return st;
    }
    *plan = p;
    return JV_OK;
}

static jv_status launch_body(cuda_ctx *c, cuda_plan *p, void *const *bufs, jv_err *err) {
    switch (p->kind) {
    case PLAN_OURS: {
        char what[64];
        snprintf(what, sizeof what, "jarvis kernel (%s)", p->own->name);
        return kernel_status(p->own->run(p->own_plan, bufs, c->ws, c->stream), p->op, what, err);
    }
    case PLAN_BN_CUDNN: return jv_cuda_bn_run(c->dnn, p->bn, bufs, c->ws, c->ws_bytes, err);
    case PLAN_CONV: return jv_cuda_conv_run(c->dnn, p->conv, bufs, c->ws, c->ws_bytes, err);
    case PLAN_GEMM: return jv_cuda_gemm_run(c->lt, p->gemm, bufs, c->ws, c->ws_bytes, c->stream, err);
    case PLAN_CONV_GEMM:
        for (int i = 0; i < p->cg_n; i++) {
            void *b[3] = {bufs[p->cg_src[i][0]], bufs[p->cg_src[i][1]], bufs[p->cg_src[i][2]]};
            JV_CHECK(jv_cuda_gemm_run(c->lt, p->cg[i], b, c->ws, c->ws_bytes, c->stream, err));
        }
        return JV_OK;
    }
    JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: unknown plan kind %d", (int)p->kind);
}

static jv_status cuda_launch(void *ctx, void *plan, const jv_desc *d, const jv_operands *ops, void *const *bufs,
                             jv_err *err) {
    cuda_ctx *c = ctx;
    (void)d, (void)ops; /* everything the launch needs is in the plan */
    ALIVE(c, err);
    if (!plan) JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: launch without a plan");
    return settle(c, launch_body(c, plan, bufs, err), err);
}

static jv_status cuda_baseline(void *ctx, jv_base_kernel k, const float *a, const float *b, float *cc, int64_t n,
                               float s, jv_err *err) {
    cuda_ctx *c = ctx;
    ALIVE(c, err);
    if ((int)k < 0 || k >= JV_BASE_COUNT)
        JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: unknown baseline kernel %d", (int)k);
    return settle(
        c,
        kernel_status(jv_gpu_baseline((int)k, a, b, cc, n, s, c->sms, c->stream), "baseline", "jv_gpu_baseline", err),
        err);
}

#ifdef JV_HAVE_NVTX
static void cuda_range_push(void *ctx, const char *name) {
    (void)ctx;
    nvtxRangePushA(name);
}

static void cuda_range_pop(void *ctx) {
    (void)ctx;
    nvtxRangePop();
}
#endif

/* short ops: back-to-back runs captured once into a CUDA graph, the graph replayed and timed alone */
static jv_status graph_body(cuda_ctx *c, cudaGraphExec_t ge, int runs, int reps, double *per_run_s, jv_err *err) {
    CU_CALL(err, "graph", cudaGraphLaunch(ge, c->stream)); /* warm-up */
    CU_CALL(err, "graph", cudaStreamSynchronize(c->stream));
    double t[64];
    if (reps > 64) reps = 64;
    for (int i = 0; i < reps; i++) {
        float ms = 0;
        CU_CALL(err, "graph", cudaEventRecord(c->ev0, c->stream));
        CU_CALL(err, "graph", cudaGraphLaunch(ge, c->stream));
        CU_CALL(err, "graph", cudaEventRecord(c->ev1, c->stream));
        CU_CALL(err, "graph", cudaEventSynchronize(c->ev1));
        CU_CALL(err, "graph", cudaEventElapsedTime(&ms, c->ev0, c->ev1));
        t[i] = ms * 1e-3;
    }
    *per_run_s = jv_median_sort(t, (size_t)reps) / runs;
    return JV_OK;
}

static jv_status graph_time_body(cuda_ctx *c, jv_be_run_fn fn, void *arg, int runs, int reps, double *per_run_s,
                                 jv_err *err) {
    CU_CALL(err, "graph", cudaStreamSynchronize(c->stream));
    CU_CALL(err, "graph", cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeThreadLocal));
    c->capturing = 1;
    jv_err fe = {0};
    jv_status st = JV_OK;
    for (int i = 0; i < runs && st == JV_OK; i++)
        st = fn(arg, 0, &fe);
    cudaGraph_t g = NULL;
    cudaError_t ce = cudaStreamEndCapture(c->stream, &g);
    c->capturing = 0;
    if (st == JV_ERR_DEVICE || c->broken) { /* the context broke inside the capture */
        if (g) cudaGraphDestroy(g);
        JV_FAIL(err, JV_ERR_DEVICE, "%s", c->broken ? c->broken_msg : fe.msg);
    }
    if (st != JV_OK || ce != cudaSuccess || !g) {
        /* a capture error is not sticky; settle clears it (and would see a fault that is) */
        if (g) cudaGraphDestroy(g);
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: the op cannot be captured in a CUDA graph: %s",
                st != JV_OK ? fe.msg : cudaGetErrorString(ce));
    }
    cudaGraphExec_t ge = NULL;
    ce = cudaGraphInstantiate(&ge, g, 0);
    cudaGraphDestroy(g);
    if (ce != cudaSuccess)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: cudaGraphInstantiate failed: %s", cudaGetErrorString(ce));
    st = graph_body(c, ge, runs, reps, per_run_s, err);
    cudaGraphExecDestroy(ge);
    return st;
}

static jv_status cuda_graph_time(void *ctx, jv_be_run_fn fn, void *arg, int runs, int reps, double *per_run_s,
                                 jv_err *err) {
    cuda_ctx *c = ctx;
    *per_run_s = 0;
    ALIVE(c, err);
    if (runs < 1 || reps < 1) JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: graph: %d runs, %d reps", runs, reps);
    return settle(c, graph_time_body(c, fn, arg, runs, reps, per_run_s, err), err);
}

/* the spin counts SM cycles: at the highest clock it lasts `seconds`, at any lower one longer */
static jv_status cuda_hold(void *ctx, double seconds, jv_err *err) {
    cuda_ctx *c = ctx;
    ALIVE(c, err);
    double khz = c->clock_khz > 0 ? c->clock_khz : 2.5e6; /* unknown: a clock no GPU exceeds */
    int64_t cycles = (int64_t)(seconds * khz * 1e3);
    return settle(c, kernel_status(jv_gpu_spin(cycles > 0 ? cycles : 0, c->stream), "hold", "jv_gpu_spin", err), err);
}

static jv_status cuda_clocks(void *ctx, jv_clocks *out, jv_err *err) {
    cuda_ctx *c = ctx;
    memset(out, 0, sizeof *out);
    ALIVE(c, err);
    jv_nvml_clocks(&c->nvml, out);
    return JV_OK;
}

static jv_status cuda_set_option(void *ctx, const char *key, const char *value, jv_err *err) {
    cuda_ctx *c = ctx;
    ALIVE(c, err);
    if (!strcmp(key, "conv-algo")) {
        if (!strcmp(value, "heuristic"))
            c->conv_search = 0;
        else if (!strcmp(value, "best"))
            c->conv_search = 1;
        else
            JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: conv-algo is heuristic or best, not '%s'", value);
        return JV_OK;
    }
    if (!strcmp(key, "gemm-algo")) {
        if (!strcmp(value, "heuristic"))
            c->gemm_search = 0;
        else if (!strcmp(value, "best"))
            c->gemm_search = 1;
        else
            JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: gemm-algo is heuristic or best, not '%s'", value);
        return JV_OK;
    }
    JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: no option '%s'", key);
}

static jv_status flush_body(cuda_ctx *c, jv_err *err) {
    if (!c->flush) JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: no cache flush: %s", c->flush_why);
    c->flush_byte ^= 0xff; /* a new value each time: no write can be elided as unchanged */
    CU_CALL(err, "flush_cache", cudaMemsetAsync(c->flush, c->flush_byte, c->flush_bytes, c->stream));
    return JV_OK;
}

static jv_status cuda_flush_cache(void *ctx, jv_err *err) {
    cuda_ctx *c = ctx;
    ALIVE(c, err);
    return settle(c, flush_body(c, err), err);
}

const jv_backend jv_cuda_backend = {
    .name = "cuda",
    .open = cuda_open,
    .close = cuda_close,
    .props = cuda_props,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .upload = cuda_upload,
    .download = cuda_download,
    .fill = cuda_fill,
    .sync = cuda_sync,
    .timer_start = cuda_timer_start,
    .timer_stop = cuda_timer_stop,
    .prepare = cuda_prepare,
    .launch = cuda_launch,
    .release = cuda_release,
    .baseline = cuda_baseline,
#ifdef JV_HAVE_NVTX
    .range_push = cuda_range_push,
    .range_pop = cuda_range_pop,
#else
    .range_push = NULL,
    .range_pop = NULL,
#endif
    .graph_time = cuda_graph_time,
    .clocks = cuda_clocks,
    .hold = cuda_hold,
    .set_option = cuda_set_option,
    .flush_cache = cuda_flush_cache,
};

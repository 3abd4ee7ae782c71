/* jv_cuda_backend: the CUDA backend (backend.h): one device, one
 * non-blocking stream that every call queues on, a cuBLASLt and a cuDNN
 * handle bound to it, a workspace grown on demand at prepare time. GEMMs run
 * on cuBLASLt (jv_cuda_blas), convolutions and batch norm on cuDNN
 * (jv_cuda_dnn), elementwise ops and our batch norm on the kernels of
 * kernels/<family>/<family>.cu through their C entry points. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#if defined(__has_include)
#if __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define JV_HAVE_NVTX 1
#endif
#endif

#include "backend.h"
#include "batchnorm/batchnorm_gpu.h"
#include "elementwise/elementwise_gpu.h"
#include "jv_cuda_blas.h"
#include "jv_cuda_dnn.h"
#include "jv_nvml.h"

#define WS_INITIAL ((size_t)64 << 20)

typedef struct {
    int device;
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
    int timing;
    cublasLtHandle_t lt;
    cudnnHandle_t dnn;
    void *ws;
    size_t ws_bytes;
    int sms;
    int conv_search;  /* --conv-algo best */
    jv_nvml nvml;     /* clocks (NVML loaded at run time; .lib NULL when absent) */
} cuda_ctx;

typedef enum { PLAN_ELEMENTWISE, PLAN_BN_OURS, PLAN_BN_CUDNN, PLAN_CONV, PLAN_GEMM } plan_kind;

typedef struct {
    plan_kind kind;
    const char *op; /* family name, for messages */
    jv_cuda_gemm *gemm;
    jv_cuda_conv *conv;
    jv_cuda_bn *bn;
} cuda_plan;

#define CU_CALL(err, what, call)                                                                          \
    do {                                                                                                  \
        cudaError_t cu_s_ = (call);                                                                       \
        if (cu_s_ != cudaSuccess)                                                                         \
            JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: %s: %s failed: %s", what, #call,                 \
                    cudaGetErrorString(cu_s_));                                                           \
    } while (0)

static void cuda_close(void *ctx) {
    cuda_ctx *c = ctx;
    if (!c) return;
    if (c->stream) cudaStreamSynchronize(c->stream);
    if (c->ws) cudaFree(c->ws);
    if (c->dnn) cudnnDestroy(c->dnn);
    if (c->lt) cublasLtDestroy(c->lt);
    if (c->ev0) cudaEventDestroy(c->ev0);
    if (c->ev1) cudaEventDestroy(c->ev1);
    if (c->stream) cudaStreamDestroy(c->stream);
    jv_nvml_close(&c->nvml);
    free(c);
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
    CU_CALL(err, "open", cudaSetDevice(device));
    CU_CALL(err, "open", cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    CU_CALL(err, "open", cudaEventCreate(&c->ev0));
    CU_CALL(err, "open", cudaEventCreate(&c->ev1));
    CU_CALL(err, "open", cudaDeviceGetAttribute(&c->sms, cudaDevAttrMultiProcessorCount, device));
    cublasStatus_t ls = cublasLtCreate(&c->lt);
    if (ls != CUBLAS_STATUS_SUCCESS)
        JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: open: cublasLtCreate failed: %s", cublasLtGetStatusString(ls));
    cudnnStatus_t ds = cudnnCreate(&c->dnn);
    if (ds == CUDNN_STATUS_SUCCESS) ds = cudnnSetStream(c->dnn, c->stream);
    if (ds != CUDNN_STATUS_SUCCESS)
        JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: open: cudnnCreate / cudnnSetStream failed: %s",
                cudnnGetErrorString(ds));
    e = cudaMalloc(&c->ws, WS_INITIAL);
    if (e != cudaSuccess)
        JV_FAIL(err, e == cudaErrorMemoryAllocation ? JV_ERR_NOMEM : JV_ERR_INTERNAL,
                "cuda backend: open: cudaMalloc of the %zu-byte workspace failed: %s", WS_INITIAL,
                cudaGetErrorString(e));
    c->ws_bytes = WS_INITIAL;
    char bus[32];
    if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, device) == cudaSuccess) jv_nvml_open(&c->nvml, bus);
    return JV_OK;
}

static jv_status cuda_open(int device, void **ctx, jv_err *err) {
    *ctx = NULL;
    cuda_ctx *c = calloc(1, sizeof *c);
    if (!c) JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: out of memory");
    jv_status st = open_body(c, device, err);
    if (st != JV_OK) {
        cuda_close(c);
        return st;
    }
    *ctx = c;
    return JV_OK;
}

static jv_status cuda_props(void *ctx, jv_device_props *p, jv_err *err) {
    cuda_ctx *c = ctx;
    memset(p, 0, sizeof *p);
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
        cudaGetLastError(); /* clear a refused attribute */
    p->launch_us = 2.5;
    return JV_OK;
}

static jv_status cuda_alloc(void *ctx, size_t bytes, void **dptr, jv_err *err) {
    (void)ctx;
    *dptr = NULL;
    if (!bytes) return JV_OK;
    cudaError_t e = cudaMalloc(dptr, bytes);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        size_t fr = 0, tot = 0;
        cudaMemGetInfo(&fr, &tot);
        *dptr = NULL;
        JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: cannot allocate %zu bytes (%zu of %zu free)", bytes, fr, tot);
    }
    if (e != cudaSuccess) {
        *dptr = NULL;
        JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: cudaMalloc(%zu) failed: %s", bytes, cudaGetErrorString(e));
    }
    return JV_OK;
}

static void cuda_free(void *ctx, void *dptr) {
    (void)ctx;
    if (dptr) cudaFree(dptr);
}

static jv_status cuda_upload(void *ctx, void *dst, const void *src, size_t bytes, jv_err *err) {
    cuda_ctx *c = ctx;
    if (!bytes) return JV_OK;
    /* on our stream, then a sync: a pageable cudaMemcpy may return before its DMA ends, and the
     * non-blocking stream would not wait for it */
    CU_CALL(err, "upload", cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, c->stream));
    CU_CALL(err, "upload", cudaStreamSynchronize(c->stream));
    return JV_OK;
}

static jv_status cuda_download(void *ctx, void *dst, const void *src, size_t bytes, jv_err *err) {
    cuda_ctx *c = ctx;
    if (!bytes) return JV_OK;
    CU_CALL(err, "download", cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, c->stream));
    CU_CALL(err, "download", cudaStreamSynchronize(c->stream));
    return JV_OK;
}

static jv_status cuda_fill(void *ctx, void *dptr, int byte, size_t bytes, jv_err *err) {
    cuda_ctx *c = ctx;
    if (!bytes) return JV_OK;
    CU_CALL(err, "fill", cudaMemsetAsync(dptr, byte, bytes, c->stream));
    CU_CALL(err, "fill", cudaStreamSynchronize(c->stream));
    return JV_OK;
}

static jv_status cuda_sync(void *ctx, jv_err *err) {
    cuda_ctx *c = ctx;
    CU_CALL(err, "sync", cudaStreamSynchronize(c->stream));
    return JV_OK;
}

static jv_status cuda_timer_start(void *ctx, jv_err *err) {
    cuda_ctx *c = ctx;
    CU_CALL(err, "timer_start", cudaEventRecord(c->ev0, c->stream));
    c->timing = 1;
    return JV_OK;
}

static jv_status cuda_timer_stop(void *ctx, double *seconds, jv_err *err) {
    cuda_ctx *c = ctx;
    if (!c->timing) JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: timer stopped without a start");
    c->timing = 0;
    float ms = 0;
    CU_CALL(err, "timer_stop", cudaEventRecord(c->ev1, c->stream));
    CU_CALL(err, "timer_stop", cudaEventSynchronize(c->ev1));
    CU_CALL(err, "timer_stop", cudaEventElapsedTime(&ms, c->ev0, c->ev1));
    *seconds = ms * 1e-3;
    return JV_OK;
}

/* Grows the workspace to at least need bytes (outside any timed region). */
static jv_status grow_ws(cuda_ctx *c, size_t need, jv_err *err) {
    if (need <= c->ws_bytes) return JV_OK;
    CU_CALL(err, "workspace", cudaStreamSynchronize(c->stream));
    if (c->ws) cudaFree(c->ws);
    c->ws = NULL;
    c->ws_bytes = 0;
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, need);
    if (e != cudaSuccess) {
        cudaGetLastError();
        JV_FAIL(err, e == cudaErrorMemoryAllocation ? JV_ERR_NOMEM : JV_ERR_INTERNAL,
                "cuda backend: cannot allocate a %zu-byte workspace: %s", need, cudaGetErrorString(e));
    }
    c->ws = p;
    c->ws_bytes = need;
    return JV_OK;
}

static void cuda_release(void *ctx, void *plan) {
    (void)ctx;
    cuda_plan *p = plan;
    if (!p) return;
    jv_cuda_gemm_free(p->gemm);
    jv_cuda_conv_free(p->conv);
    jv_cuda_bn_free(p->bn);
    free(p);
}

static jv_status prepare_body(cuda_ctx *c, const jv_desc *d, const jv_operands *ops, int variant, cuda_plan *p,
                              char *impl, size_t impl_cap, jv_err *err) {
    const char *fam = jv_family_get(d->family)->name;
    char why[200];
    p->op = fam;
    if (!strcmp(fam, "unary") || !strcmp(fam, "binary")) {
        if (variant != 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: no such variant %d", fam, variant);
        if (!jv_gpu_elementwise_supported(d, ops, why, sizeof why))
            JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: not supported by our kernel: %s", fam, why);
        p->kind = PLAN_ELEMENTWISE;
        snprintf(impl, impl_cap, "jarvis kernel");
        return JV_OK;
    }
    if (!strcmp(fam, "batchnorm")) {
        /* cuDNN when PyTorch would pick it (and not traced on the native kernels), our kernel otherwise */
        int possible = jv_cuda_bn_possible(d, ops, why, sizeof why);
        int picks = possible && jv_cuda_bn_supported(d, ops, why, sizeof why);
        char why2[200];
        int ours = jv_gpu_batchnorm_supported(d, ops, why2, sizeof why2);
        /* the implementations on offer, PyTorch's choice first */
        plan_kind order[2];
        int n = 0;
        if (picks) order[n++] = PLAN_BN_CUDNN;
        if (ours) order[n++] = PLAN_BN_OURS;
        if (!picks && possible) order[n++] = PLAN_BN_CUDNN;
        if (variant < 0 || variant >= n) {
            if (variant == 0)
                JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: batchnorm: not on cuDNN (%s) nor our kernel (%s)", why,
                        why2);
            JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: batchnorm: no such variant %d", variant);
        }
        if (order[variant] == PLAN_BN_CUDNN) {
            size_t need = 0;
            JV_CHECK(jv_cuda_bn_plan(d, ops, &p->bn, &need, err));
            JV_CHECK(grow_ws(c, need, err));
            p->kind = PLAN_BN_CUDNN;
            snprintf(impl, impl_cap, "cuDNN");
            return JV_OK;
        }
        JV_CHECK(grow_ws(c, jv_gpu_batchnorm_workspace(d, ops, c->sms), err));
        p->kind = PLAN_BN_OURS;
        snprintf(impl, impl_cap, "jarvis kernel");
        return JV_OK;
    }
    if (!strcmp(fam, "conv")) {
        if (variant != 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: conv: no such variant %d", variant);
        size_t need = 0;
        JV_CHECK(jv_cuda_conv_plan(c->dnn, d, ops, c->conv_search, &p->conv, &need, err));
        JV_CHECK(grow_ws(c, need, err));
        p->kind = PLAN_CONV;
        snprintf(impl, impl_cap, c->conv_search ? "cuDNN searched" : "cuDNN");
        return JV_OK;
    }
    if (!strcmp(fam, "gemm")) {
        if (variant != 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: gemm: no such variant %d", variant);
        JV_CHECK(jv_cuda_gemm_plan(c->lt, d, ops, c->ws_bytes, &p->gemm, err));
        p->kind = PLAN_GEMM;
        snprintf(impl, impl_cap, "cuBLASLt");
        return JV_OK;
    }
    JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: family '%s' is not replayed on CUDA", fam);
}

static jv_status cuda_prepare(void *ctx, const jv_desc *d, const jv_operands *ops, int variant, void **plan, char *impl,
                              size_t impl_cap, jv_err *err) {
    cuda_ctx *c = ctx;
    *plan = NULL;
    if (impl_cap) impl[0] = 0;
    if (d->family < 0 || d->family >= jv_family_count())
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: descriptor of unknown family %d", d->family);
    cuda_plan *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: out of memory");
    jv_status st = prepare_body(c, d, ops, variant, p, impl, impl_cap, err);
    if (st != JV_OK) {
        cuda_release(c, p);
        return st;
    }
    *plan = p;
    return JV_OK;
}

static jv_status kernel_status(int code, const char *op, const char *call, jv_err *err) {
    if (code == 0) return JV_OK;
    JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: %s: %s failed: %s", op, call, cudaGetErrorString((cudaError_t)code));
}

static jv_status cuda_launch(void *ctx, void *plan, const jv_desc *d, const jv_operands *ops, void *const *bufs,
                             jv_err *err) {
    cuda_ctx *c = ctx;
    cuda_plan *p = plan;
    if (!p) JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: launch without a plan");
    switch (p->kind) {
    case PLAN_ELEMENTWISE:
        return kernel_status(jv_gpu_elementwise(d, ops, bufs, c->sms, c->stream), p->op, "jv_gpu_elementwise", err);
    case PLAN_BN_OURS:
        return kernel_status(jv_gpu_batchnorm(d, ops, bufs, c->ws, c->sms, c->stream), p->op, "jv_gpu_batchnorm",
                             err);
    case PLAN_BN_CUDNN: return jv_cuda_bn_run(c->dnn, p->bn, bufs, c->ws, c->ws_bytes, err);
    case PLAN_CONV: return jv_cuda_conv_run(c->dnn, p->conv, bufs, c->ws, c->ws_bytes, err);
    case PLAN_GEMM: return jv_cuda_gemm_run(c->lt, p->gemm, bufs, c->ws, c->ws_bytes, c->stream, err);
    }
    JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: unknown plan kind %d", (int)p->kind);
}

static jv_status cuda_baseline(void *ctx, jv_base_kernel k, const float *a, const float *b, float *cc, int64_t n,
                               float s, jv_err *err) {
    cuda_ctx *c = ctx;
    if ((int)k < 0 || k >= JV_BASE_COUNT) JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: unknown baseline kernel %d", (int)k);
    return kernel_status(jv_gpu_baseline((int)k, a, b, cc, n, s, c->sms, c->stream), "baseline", "jv_gpu_baseline",
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
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) { /* insertion sort: median below */
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    }
    double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    *per_run_s = med / runs;
    return JV_OK;
}

static jv_status cuda_graph_time(void *ctx, jv_be_run_fn fn, void *arg, int runs, int reps, double *per_run_s,
                                 jv_err *err) {
    cuda_ctx *c = ctx;
    *per_run_s = 0;
    if (runs < 1 || reps < 1) JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: graph: %d runs, %d reps", runs, reps);
    CU_CALL(err, "graph", cudaStreamSynchronize(c->stream));
    CU_CALL(err, "graph", cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeThreadLocal));
    jv_err fe = {0};
    jv_status st = JV_OK;
    for (int i = 0; i < runs && st == JV_OK; i++) st = fn(arg, 0, &fe);
    cudaGraph_t g = NULL;
    cudaError_t ce = cudaStreamEndCapture(c->stream, &g);
    if (st != JV_OK || ce != cudaSuccess || !g) {
        (void)cudaGetLastError(); /* capture errors are not sticky: clear the last error */
        if (g) cudaGraphDestroy(g);
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: the op cannot be captured in a CUDA graph: %s",
                st != JV_OK ? fe.msg : cudaGetErrorString(ce));
    }
    cudaGraphExec_t ge = NULL;
    ce = cudaGraphInstantiate(&ge, g, 0);
    cudaGraphDestroy(g);
    if (ce != cudaSuccess) {
        (void)cudaGetLastError();
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: cudaGraphInstantiate failed: %s", cudaGetErrorString(ce));
    }
    st = graph_body(c, ge, runs, reps, per_run_s, err);
    cudaGraphExecDestroy(ge);
    return st;
}

static jv_status cuda_clocks(void *ctx, jv_clocks *out, jv_err *err) {
    cuda_ctx *c = ctx;
    (void)err;
    jv_nvml_clocks(&c->nvml, out);
    return JV_OK;
}

static jv_status cuda_set_option(void *ctx, const char *key, const char *value, jv_err *err) {
    cuda_ctx *c = ctx;
    if (!strcmp(key, "conv-algo")) {
        if (!strcmp(value, "heuristic")) c->conv_search = 0;
        else if (!strcmp(value, "best")) c->conv_search = 1;
        else JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: conv-algo is heuristic or best, not '%s'", value);
        return JV_OK;
    }
    JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: no option '%s'", key);
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
    .set_option = cuda_set_option,
};

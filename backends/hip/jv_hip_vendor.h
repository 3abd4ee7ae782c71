/* jv_hip_vendor: the HIP backend's vendor-library paths, plain C with no HIP
 * header, so that the call building runs and is tested anywhere: hipBLASLt
 * (else rocBLAS) for the GEMM family and for a pointwise convolution as
 * GEMMs (jv_conv_as_gemm), MIOpen for convolution and batch norm. The
 * libraries are loaded at run time (dlopen, never a link dependency), so one
 * binary uses them where the install has them; what was found is one line at
 * open (jv_hipv_describe), a missing library is not a failure. Every call
 * goes through the tables of jv_hip_vendor_api.h, which a test fills with
 * fakes that run on host memory (tests/unit/test_hip_vendor.c).
 *
 * GEMM mapping (as jv_cuda_blas does with cuBLASLt): out [M, N] row-major is
 * the column-major N x M matrix out^T, so the library computes out^T = op(B')
 * op(A') with its A holding our B and its B our A, each in the layout its
 * traced strides give (a transposed view is the other operation on the same
 * bytes); batches use strided batch offsets; an addmm bias is hipBLASLt's
 * epilogue bias when it is a [N] vector with beta 1 and batch 1, else it is
 * copied into out (jv_hipv_runtime.memcpy2d) and scaled by beta. */
#ifndef JV_HIP_VENDOR_H
#define JV_HIP_VENDOR_H

#include <stddef.h>
#include <stdint.h>

#include "jv_family.h"
#include "jv_gpu_search.h"
#include "jv_hip_vendor_api.h"
#include "jv_status.h"

/* hipBLASLt's workspace limit: 32 MiB, PyTorch's default for hipBLASLt on gfx942 (its cuBLASLt limit too, as
 * JV_CUDA_LT_WORKSPACE), so that the heuristic sees what PyTorch's sees. */
#define JV_HIPV_LT_WORKSPACE ((size_t)32 << 20)

/* One library as loaded: found, where, which version, or why not. */
typedef struct {
    int found;
    char path[256];   /* the file dlopen took (its name as asked when dladdr cannot say) */
    char version[64]; /* "" when the library does not say before a handle exists */
    char why[256];    /* not found: the names tried, or the symbol missing */
    void *dl;         /* dlopen handle (NULL for a test's fakes) */
} jv_hipv_lib;

/* What the backend gives the vendor paths of the HIP runtime (or a test, on host memory). Each returns 0 or the
 * runtime's error code. */
typedef struct {
    void *ctx;
    /* hipMemcpy2DAsync device to device on stream */
    int (*memcpy2d)(void *ctx, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                    void *stream);
    /* the GEMM algorithm search (gemm-algo best; NULL: no search possible): scratch device memory (hipMalloc,
     * hipFree), a host-to-device copy that has ended on return, zeroing on the stream, the device events around
     * the timed runs (start: record on the stream; stop: record, wait, ms since start) and a stream sync */
    int (*alloc)(void *ctx, void **dptr, size_t bytes);
    void (*free)(void *ctx, void *dptr);
    int (*upload)(void *ctx, void *dst, const void *src, size_t bytes, void *stream);
    int (*zero)(void *ctx, void *dst, size_t bytes, void *stream);
    int (*timer_start)(void *ctx, void *stream);
    int (*timer_stop)(void *ctx, void *stream, double *ms);
    int (*sync)(void *ctx, void *stream);
} jv_hipv_runtime;

/* How a convolution's MIOpen algorithm is chosen, as PyTorch's aten/src/ATen/native/miopen/Conv_miopen.cpp
 * (raw_miopen_convolution_*_out) chooses it:
 * FIND: PyTorch's default (since pytorch#145294, 2025-02; torch.backends.miopen.immediate False and
 *   cudnn.benchmark False): chooseAlgorithm -> miopenFindConvolution*Algorithm with exhaustiveSearch false and
 *   1 result requested, run by miopenConvolution{Forward,BackwardData,BackwardWeights};
 * IMMEDIATE: torch.backends.miopen.immediate True (before pytorch#158951: deterministic True): chooseSolution ->
 *   the first solution miopenConvolution*GetSolution offers, compiled, run by miopenConvolution*Immediate;
 * BEST: cudnn.benchmark True: Find with exhaustiveSearch true. */
typedef enum { JV_HIPV_CONV_FIND = 0, JV_HIPV_CONV_IMMEDIATE = 1, JV_HIPV_CONV_BEST = 2 } jv_hipv_conv_mode;

/* The three libraries and their handles on one stream. */
typedef struct {
    jv_hipv_lib lt_lib, rb_lib, mi_lib;
    jv_hipblaslt_api lt;
    jv_rocblas_api rb;
    jv_miopen_api mi;
    void *lt_h, *rb_h, *mi_h; /* handles (NULL: that library is not usable; *_lib.why says why) */
    jv_hipv_runtime rt;
    void *stream;
    /* GEMM algorithm choice (set by the backend's gemm-algo option; 0 / NULL: the heuristic's first pick) */
    int gemm_search;               /* 1: hipBLASLt's first JV_GPU_GEMM_CANDIDATES within the whole workspace, each
                                    * timed on scratch operands (jv_gpu_search), the fastest kept */
    void *ws;                      /* search: the device workspace the candidates run with */
    jv_gpu_gemm_cache *gemm_cache; /* search: the choices per configuration, reused (the backend's; NULL: none) */
    /* convolution algorithm choice (the backend's conv-algo option; JV_HIPV_CONV_FIND, 0, by default) */
    jv_hipv_conv_mode conv_mode;
    jv_gpu_cache *conv_cache; /* Find's choice per configuration, mode and direction (the backend's; NULL: none) */
} jv_hipv;

/* Loads whichever of hipBLASLt, rocBLAS and MIOpen dlopen finds (the plain names, their SONAME versions, and the
 * same under $ROCM_PATH/lib, /opt/rocm/lib), resolving every symbol of jv_hip_vendor_api.h; a library short of one
 * is not used (why names the symbol). Never fails: v->*_lib say what was found. */
void jv_hipv_load(jv_hipv *v);

/* Creates the handles of the loaded libraries on stream (hipBLASLt: stream passed per call; rocBLAS and MIOpen:
 * bound to it) and reads the versions the APIs give. A handle that cannot be made leaves that library unused,
 * with the reason in its why. Never fails. */
void jv_hipv_open(jv_hipv *v, void *stream, const jv_hipv_runtime *rt);

/* Destroys the handles and closes the libraries (safe twice, and on a zeroed v). */
void jv_hipv_close(jv_hipv *v);

/* The start-up line's part about the libraries: "hipBLASLt <path> (version V), rocBLAS not found (tried ...),
 * MIOpen ...". */
void jv_hipv_describe(const jv_hipv *v, char *buf, size_t cap);

/* A search's scratch copy of operand i of ops on the device (v->rt.alloc, of the operand's extent): zeroed (an
 * output) when zeroed is set, else filled with jv_gpu_search_pattern. Errors name the op (name) and the search
 * ("gemm-algo best"). The caller frees it with v->rt.free. */
jv_status jv_hipv_scratch(const jv_hipv *v, const char *name, const char *search, const jv_operands *ops, int i,
                          int zeroed, void **buf, jv_err *err);

/* ---- GEMM ---- */

typedef struct jv_hipv_gemm jv_hipv_gemm;

/* Plans a parsed GEMM call (d of the gemm family) over ops on hipBLASLt (its heuristic's first algorithm within
 * min(ws_limit, JV_HIPV_LT_WORKSPACE); with v->gemm_search the fastest of its first JV_GPU_GEMM_CANDIDATES within
 * ws_limit, timed on scratch operands of the op's shapes, strides and dtypes through v->rt, as cuBLASLt's search
 * does; a configuration found in v->gemm_cache is not searched again), or on rocBLAS gemm_strided_batched_ex when
 * hipBLASLt is absent or has no algorithm or dtype for it (or no candidate of the search ran). impl receives the
 * path ("hipBLASLt heuristic algo ws B B", "hipBLASLt algo ws B B, searched N, best of R: heuristic's #I X us (#1
 * Y us)", "rocBLAS gemm_strided_batched_ex").
 * JV_ERR_NOTFOUND with the reason when neither runs it ("not replayed: no GEMM library (hipBLASLt: ...; rocBLAS:
 * ...)", strides no BLAS layout expresses, ...). Free with jv_hipv_gemm_free. */
jv_status jv_hipv_gemm_plan(const jv_hipv *v, const jv_desc *d, const jv_operands *ops, size_t ws_limit,
                            jv_hipv_gemm **out, char *impl, size_t impl_cap, jv_err *err);

/* The library plan p runs on: "hipBLASLt" or "rocBLAS". */
const char *jv_hipv_gemm_lib(const jv_hipv_gemm *p);

/* Queues a planned GEMM on v's stream over device buffers bufs (as jv_family.reference reads them); ws holds
 * ws_bytes. */
jv_status jv_hipv_gemm_run(const jv_hipv *v, const jv_hipv_gemm *p, void *const *bufs, void *ws, size_t ws_bytes,
                           jv_err *err);

void jv_hipv_gemm_free(const jv_hipv *v, jv_hipv_gemm *p);

/* ---- convolution (MIOpen; a pointwise one as GEMMs) ---- */

typedef struct jv_hipv_conv jv_hipv_conv;

/* Plans a parsed conv call over ops. as_gemm 1: the pointwise convolution as the GEMMs of jv_conv_as_gemm on
 * hipBLASLt / rocBLAS (JV_ERR_NOTFOUND naming why when the call is not one); 0: on MIOpen, per direction as
 * v->conv_mode says: FIND (the default) the algorithm MIOpen's Find returns first with exhaustiveSearch false
 * (1 result asked, as PyTorch asks), BEST the fastest of up to 8 results of an exhaustive Find, both within
 * ws_limit, on scratch operands of the op's extents and v->ws (a configuration in v->conv_cache is not searched
 * again); IMMEDIATE the first solution GetSolution offers that fits ws_limit, compiled here. Bias added by
 * miopenConvolutionForwardBias, grad_bias by miopenConvolutionBackwardBias. impl names the path and choices
 * ("MIOpen Find: fwd Winograd ws B: X us", "MIOpen Find exhaustive: fwd Winograd ws B, searched N, best of R: X us
 * (Direct Y)", "MIOpen immediate: fwd solution S algo A ws B").
 * JV_ERR_NOTFOUND with the reason when MIOpen is absent ("not replayed: no MIOpen (...)") or refuses. */
jv_status jv_hipv_conv_plan(const jv_hipv *v, const jv_desc *d, const jv_operands *ops, int as_gemm, size_t ws_limit,
                            jv_hipv_conv **out, char *impl, size_t impl_cap, jv_err *err);

jv_status jv_hipv_conv_run(const jv_hipv *v, const jv_hipv_conv *p, void *const *bufs, void *ws, size_t ws_bytes,
                           jv_err *err);

void jv_hipv_conv_free(const jv_hipv *v, jv_hipv_conv *p);

/* ---- batch norm (MIOpen) ---- */

typedef struct jv_hipv_bn jv_hipv_bn;

/* 1 when MIOpen can run this batch-norm call as PyTorch's miopen_batch_norm would (MIOpen loaded; fp32, fp16 or
 * bf16 input with fp32 weight, bias and statistics; 3 to 5 dims; a dense NCHW or channels_last input, grad_out in
 * the same strides; training backward only); 0 with the reason in why. */
int jv_hipv_bn_possible(const jv_hipv *v, const jv_desc *d, const jv_operands *ops, char *why, size_t cap);

/* Plans a possible batch norm on MIOpen (mode spatial; per activation for a 2-d input). Grads output_mask leaves
 * out go to scratch in the workspace (JV_ERR_NOTFOUND when that exceeds ws_limit). */
jv_status jv_hipv_bn_plan(const jv_hipv *v, const jv_desc *d, const jv_operands *ops, size_t ws_limit, jv_hipv_bn **out,
                          jv_err *err);

jv_status jv_hipv_bn_run(const jv_hipv *v, const jv_hipv_bn *p, void *const *bufs, void *ws, size_t ws_bytes,
                         jv_err *err);

void jv_hipv_bn_free(const jv_hipv *v, jv_hipv_bn *p);

#endif

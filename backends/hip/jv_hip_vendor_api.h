/* jv_hip_vendor_api: the subset of hipBLASLt, rocBLAS and MIOpen that the HIP
 * backend calls, declared here because they are loaded at run time (dlopen,
 * jv_hip_vendor.c) and never needed to build: their enum values and struct
 * layouts, and one table of function pointers per library (filled by dlsym,
 * or by a test with fakes that run on host memory). Private to backends/hip/
 * and its tests.
 *
 * Sources of every value (the libraries' own headers, ROCm 6.x):
 *   hipBLASLt  library/include/hipblaslt.h (ROCm/hipBLASLt at 007c1b5, a 0.10+ header including
 *              hipblas-common.h; older ones are not used, JV_HIPBLASLT_MIN_VERSION): hipblasLtEpilogue_t,
 *              hipblasLtMatrixLayoutAttribute_t, hipblasLtMatmulDescAttributes_t,
 *              hipblasLtMatmulPreferenceAttributes_t, hipblasLtMatmulAlgo_t { uint8_t data[16]; size_t
 *              max_workspace_bytes; }, hipblasLtMatmulHeuristicResult_t { algo; size_t workspaceSize;
 *              hipblasStatus_t state; float wavesCount; int reserved[4]; }, and the prototypes.
 *   hipblas-common.h (hipblas-common, ROCm 6.3+; hipblas.h before): hipblasStatus_t (SUCCESS 0 ..
 *              NOT_SUPPORTED 7), hipblasOperation_t (N 111, T 112), hipblasComputeType_t (32F 2, 64F 7; these
 *              numbers since ROCm 6.0, when hipBLASLt dropped its own hipblasLtComputeType_t).
 *   hip/library_types.h (HIP 6.x): hipDataType HIP_R_32F 0, HIP_R_64F 1, HIP_R_16F 2, HIP_R_16BF 14 (Debian's HIP
 *              5.2 header lacks HIP_R_16BF).
 *   rocBLAS    library/include/internal/rocblas-types.h and rocblas-functions.h (ROCm/rocBLAS 4.x, ROCm 6.x):
 *              rocblas_operation (none 111, transpose 112), rocblas_datatype (f16_r 150, f32_r 151, f64_r 152,
 *              bf16_r 168), rocblas_gemm_algo_standard 0, rocblas_status_success 0, rocblas_int int32_t,
 *              rocblas_stride int64_t, rocblas_gemm_strided_batched_ex's prototype.
 *   MIOpen     include/miopen/miopen.h (ROCm/MIOpen 3.x, ROCm 6.x): miopenStatus_t (Success 0),
 *              miopenDataType_t (Half 0, Float 1, BFloat16 5, Double 6), miopenConvolutionMode_t (Convolution 0,
 *              Transpose 1), miopenBatchNormMode_t (PerActivation 0, Spatial 1), miopenConvSolution_t { float
 *              time; size_t workspace_size; uint64_t solution_id; miopenConvAlgorithm_t algorithm; }, and the
 *              prototypes of the immediate-mode convolution API (GetSolution / CompileSolution / Immediate),
 *              miopenConvAlgoPerf_t { union { fwd_algo; bwd_weights_algo; bwd_data_algo } (the int enums
 *              miopenConvFwdAlgorithm_t GEMM 0, Direct 1, FFT 2, WinoGrad 3, ImplicitGEMM 5;
 *              miopenConvBwdDataAlgorithm_t the same and TransposeGEMM 4; miopenConvBwdWeightsAlgorithm_t GEMM 0,
 *              Direct 1, WinoGrad 3, ImplicitGEMM 5); float time; size_t memory; } and the Find API's prototypes
 *              (miopenFindConvolution{Forward,BackwardData,BackwardWeights}Algorithm, whose results come sorted,
 *              fastest first, and miopenConvolution{Forward,BackwardData,BackwardWeights} that run the algorithm
 *              found, alpha 1 beta 0 only), miopenConvolutionForwardBias (y = alpha*y + alpha*b + beta*y: OpTensor(Add,
 * alpha, y, alpha, b, beta, y); only alpha 1, beta 0 supported; bf16 refused), miopenConvolutionBackwardBias and the
 *              batch-norm calls. A tensor's layout (NCHW / NHWC) is read from its strides.
 * Every enum parameter is passed as an int (the platform ABI of these C enums), exhaustiveSearch as the bool
 * miopen.h declares (stdbool.h); handles and descriptors are opaque pointers. */
#ifndef JV_HIP_VENDOR_API_H
#define JV_HIP_VENDOR_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- shared HIP / hipBLAS values ---- */
enum {
    JV_HIP_R_32F = 0,
    JV_HIP_R_64F = 1,
    JV_HIP_R_16F = 2,
    JV_HIP_R_16BF = 14,
    JV_HIPBLAS_STATUS_SUCCESS = 0,
    JV_HIPBLAS_STATUS_NOT_SUPPORTED = 7,
    JV_HIPBLAS_OP_N = 111,
    JV_HIPBLAS_OP_T = 112,
    JV_HIPBLAS_COMPUTE_32F = 2,
    JV_HIPBLAS_COMPUTE_64F = 7
};

/* ---- hipBLASLt ---- */
/* The oldest hipBLASLt taken (hipblasLtGetVersion): 0.10.0 (ROCm 6.3), the first whose header includes
 * hipblas-common.h, as the header these values were read from does. Before 0.6 hipblaslt.h had its own compute
 * type (HIPBLASLT_COMPUTE_F32 = 300), data types, layout attributes (TYPE 0, BATCH_COUNT 1, STRIDED_BATCH_OFFSET
 * 2) and algo struct (CHANGELOG: 0.6 "Replaced hipblasLtComputeType_t with hipblasComputeType_t"); 0.6 to 0.8 are
 * not checked here, so they are not used either (rocBLAS runs the GEMMs). */
#define JV_HIPBLASLT_MIN_VERSION 1000
enum {
    JV_HIPBLASLT_EPILOGUE_DEFAULT = 1,
    JV_HIPBLASLT_EPILOGUE_BIAS = 4,
    JV_HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 0,          /* int32_t */
    JV_HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 1, /* int64_t */
    JV_HIPBLASLT_MATMUL_DESC_TRANSA = 0,                 /* int32_t (hipblasOperation_t) */
    JV_HIPBLASLT_MATMUL_DESC_TRANSB = 1,                 /* int32_t */
    JV_HIPBLASLT_MATMUL_DESC_EPILOGUE = 2,               /* uint32_t (hipblasLtEpilogue_t) */
    JV_HIPBLASLT_MATMUL_DESC_BIAS_POINTER = 3,           /* const void * */
    JV_HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 4,         /* int32_t (hipDataType) */
    JV_HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1     /* uint64_t */
};

typedef struct {
    uint8_t data[16];
    size_t max_workspace_bytes;
} jv_hipblaslt_algo; /* hipblasLtMatmulAlgo_t */

typedef struct {
    jv_hipblaslt_algo algo;
    size_t workspace_size;
    int32_t state; /* hipblasStatus_t */
    float waves_count;
    int reserved[4];
} jv_hipblaslt_heuristic; /* hipblasLtMatmulHeuristicResult_t */

_Static_assert(sizeof(jv_hipblaslt_algo) == 24, "hipblasLtMatmulAlgo_t is 24 bytes on LP64");
_Static_assert(sizeof(jv_hipblaslt_heuristic) == 56, "hipblasLtMatmulHeuristicResult_t is 56 bytes on LP64");
_Static_assert(offsetof(jv_hipblaslt_heuristic, workspace_size) == 24, "workspaceSize follows the algo");
_Static_assert(offsetof(jv_hipblaslt_heuristic, state) == 32, "state follows workspaceSize");

typedef struct {
    int (*create)(void **handle);                                         /* hipblasLtCreate */
    int (*destroy)(void *handle);                                         /* hipblasLtDestroy */
    int (*get_version)(void *handle, int *version);                       /* hipblasLtGetVersion */
    int (*desc_create)(void **desc, int compute_type, int scale_type);    /* hipblasLtMatmulDescCreate */
    int (*desc_destroy)(void *desc);                                      /* hipblasLtMatmulDescDestroy */
    int (*desc_set)(void *desc, int attr, const void *buf, size_t bytes); /* ..DescSetAttribute */
    int (*layout_create)(void **layout, int type, uint64_t rows, uint64_t cols, int64_t ld); /* ..LayoutCreate */
    int (*layout_destroy)(void *layout);                                      /* hipblasLtMatrixLayoutDestroy */
    int (*layout_set)(void *layout, int attr, const void *buf, size_t bytes); /* ..LayoutSetAttribute */
    int (*pref_create)(void **pref);                                          /* hipblasLtMatmulPreferenceCreate */
    int (*pref_destroy)(void *pref);                                          /* ..PreferenceDestroy */
    int (*pref_set)(void *pref, int attr, const void *buf, size_t bytes);     /* ..PreferenceSetAttribute */
    int (*heuristic)(void *handle, void *desc, void *a, void *b, void *c, void *d, void *pref, int requested,
                     jv_hipblaslt_heuristic *results, int *returned); /* hipblasLtMatmulAlgoGetHeuristic */
    int (*matmul)(void *handle, void *desc, const void *alpha, const void *A, void *a_layout, const void *B,
                  void *b_layout, const void *beta, const void *C, void *c_layout, void *D, void *d_layout,
                  const jv_hipblaslt_algo *algo, void *ws, size_t ws_bytes, void *stream); /* hipblasLtMatmul */
} jv_hipblaslt_api;

/* ---- rocBLAS ---- */
enum {
    JV_ROCBLAS_STATUS_SUCCESS = 0,
    JV_ROCBLAS_OP_NONE = 111,
    JV_ROCBLAS_OP_TRANSPOSE = 112,
    JV_ROCBLAS_F16_R = 150,
    JV_ROCBLAS_F32_R = 151,
    JV_ROCBLAS_F64_R = 152,
    JV_ROCBLAS_BF16_R = 168,
    JV_ROCBLAS_GEMM_ALGO_STANDARD = 0
};

typedef struct {
    int (*create)(void **handle);                  /* rocblas_create_handle */
    int (*destroy)(void *handle);                  /* rocblas_destroy_handle */
    int (*set_stream)(void *handle, void *stream); /* rocblas_set_stream */
    int (*version)(char *buf, size_t cap);         /* rocblas_get_version_string */
    int (*gemm_strided_batched_ex)(void *handle, int trans_a, int trans_b, int32_t m, int32_t n, int32_t k,
                                   const void *alpha, const void *a, int a_type, int32_t lda, int64_t stride_a,
                                   const void *b, int b_type, int32_t ldb, int64_t stride_b, const void *beta,
                                   const void *c, int c_type, int32_t ldc, int64_t stride_c, void *d, int d_type,
                                   int32_t ldd, int64_t stride_d, int32_t batch_count, int compute_type, int algo,
                                   int32_t solution_index, uint32_t flags); /* rocblas_gemm_strided_batched_ex */
} jv_rocblas_api;

/* ---- MIOpen ---- */
enum {
    JV_MIOPEN_STATUS_SUCCESS = 0,
    JV_MIOPEN_HALF = 0,
    JV_MIOPEN_FLOAT = 1,
    JV_MIOPEN_BFLOAT16 = 5,
    JV_MIOPEN_DOUBLE = 6,
    JV_MIOPEN_CONVOLUTION = 0, /* cross-correlation, as PyTorch's convolutions */
    JV_MIOPEN_TRANSPOSE = 1,
    JV_MIOPEN_BN_PER_ACTIVATION = 0,
    JV_MIOPEN_BN_SPATIAL = 1
};

typedef struct {
    float time;
    size_t workspace_size;
    uint64_t solution_id;
    int algorithm;    /* miopenConvAlgorithm_t */
} jv_miopen_solution; /* miopenConvSolution_t */

_Static_assert(sizeof(jv_miopen_solution) == 32, "miopenConvSolution_t is 32 bytes on LP64");
_Static_assert(offsetof(jv_miopen_solution, solution_id) == 16, "solution_id at byte 16");

typedef struct {
    int algo;      /* the union of the three algorithm enums */
    float time;    /* ms, MIOpen's own measurement */
    size_t memory; /* workspace bytes the algorithm runs with */
} jv_miopen_perf;  /* miopenConvAlgoPerf_t */

_Static_assert(sizeof(jv_miopen_perf) == 16, "miopenConvAlgoPerf_t is 16 bytes on LP64");
_Static_assert(offsetof(jv_miopen_perf, time) == 4, "time at byte 4");
_Static_assert(offsetof(jv_miopen_perf, memory) == 8, "memory at byte 8");

/* Immediate-mode solution queries, one shape for the three directions: (handle, the two input descriptors and
 * the output's in each call's own order, max, *count, solutions). */
typedef int (*jv_miopen_get_solution_fn)(void *handle, void *d0, void *d1, void *conv, void *d2, size_t max,
                                         size_t *count, jv_miopen_solution *solutions);
typedef int (*jv_miopen_compile_fn)(void *handle, void *d0, void *d1, void *conv, void *d2, uint64_t id);
/* Find, one shape for the three directions: (handle, d0, p0, d1, p1, conv, d2, p2 (written), requestAlgoCount,
 * *returnedAlgoCount, perfResults, workSpace, workSpaceSize, exhaustiveSearch); forward (x, w, y), backward data
 * (dy, w, dx), backward weights (dy, x, dw). */
typedef int (*jv_miopen_find_fn)(void *handle, void *d0, const void *p0, void *d1, const void *p1, void *conv, void *d2,
                                 void *p2, int request, int *returned, jv_miopen_perf *perf, void *ws, size_t ws_bytes,
                                 bool exhaustive);
/* The found algorithm's run: (handle, alpha, d0, p0, d1, p1, conv, algo, beta, d2, p2, workSpace, workSpaceSize),
 * the operands in Find's order. */
typedef int (*jv_miopen_run_fn)(void *handle, const void *alpha, void *d0, const void *p0, void *d1, const void *p1,
                                void *conv, int algo, const void *beta, void *d2, void *p2, void *ws, size_t ws_bytes);
typedef int (*jv_miopen_immediate_fn)(void *handle, void *d0, const void *p0, void *d1, const void *p1, void *conv,
                                      void *d2, void *p2, void *ws, size_t ws_bytes, uint64_t id);

typedef struct {
    int (*create_with_stream)(void **handle, void *stream);          /* miopenCreateWithStream */
    int (*destroy)(void *handle);                                    /* miopenDestroy */
    int (*set_stream)(void *handle, void *stream);                   /* miopenSetStream */
    int (*get_version)(size_t *major, size_t *minor, size_t *patch); /* miopenGetVersion */
    int (*tensor_create)(void **desc);                               /* miopenCreateTensorDescriptor */
    int (*tensor_set)(void *desc, int dtype, int nd, const int *dims,
                      const int *strides); /* miopenSetTensorDescriptor */
    int (*tensor_destroy)(void *desc);     /* miopenDestroyTensorDescriptor */
    int (*conv_create)(void **desc);       /* miopenCreateConvolutionDescriptor */
    int (*conv_init_nd)(void *desc, int spatial, const int *pad, const int *stride, const int *dilation,
                        int mode);                  /* miopenInitConvolutionNdDescriptor */
    int (*conv_set_groups)(void *desc, int groups); /* miopenSetConvolutionGroupCount */
    int (*conv_destroy)(void *desc);                /* miopenDestroyConvolutionDescriptor */
    /* forward: (handle, w, x, conv, y) / Immediate (handle, w, w_ptr, x, x_ptr, conv, y, y_ptr, ...) */
    jv_miopen_get_solution_fn fwd_get_solution; /* miopenConvolutionForwardGetSolution */
    jv_miopen_compile_fn fwd_compile;           /* miopenConvolutionForwardCompileSolution */
    jv_miopen_immediate_fn fwd_immediate;       /* miopenConvolutionForwardImmediate */
    /* backward data: (handle, dy, w, conv, dx) / Immediate (handle, dy, dy_ptr, w, w_ptr, conv, dx, dx_ptr, ...) */
    jv_miopen_get_solution_fn bwd_data_get_solution; /* miopenConvolutionBackwardDataGetSolution */
    jv_miopen_compile_fn bwd_data_compile;           /* miopenConvolutionBackwardDataCompileSolution */
    jv_miopen_immediate_fn bwd_data_immediate;       /* miopenConvolutionBackwardDataImmediate */
    /* backward weights: (handle, dy, x, conv, dw) / Immediate (handle, dy, dy_ptr, x, x_ptr, conv, dw, dw_ptr, ...) */
    jv_miopen_get_solution_fn bwd_w_get_solution; /* miopenConvolutionBackwardWeightsGetSolution */
    jv_miopen_compile_fn bwd_w_compile;           /* miopenConvolutionBackwardWeightsCompileSolution */
    jv_miopen_immediate_fn bwd_w_immediate;       /* miopenConvolutionBackwardWeightsImmediate */
    int (*fwd_bias)(void *handle, const void *alpha, void *b_desc, const void *b, const void *beta, void *y_desc,
                    void *y); /* miopenConvolutionForwardBias */
    int (*bwd_bias)(void *handle, const void *alpha, void *dy_desc, const void *dy, const void *beta, void *db_desc,
                    void *db);                               /* miopenConvolutionBackwardBias */
    int (*bn_derive)(void *bn_desc, void *x_desc, int mode); /* miopenDeriveBNTensorDescriptor */
    int (*bn_fwd_train)(void *handle, int mode, void *alpha, void *beta, void *x_desc, const void *x, void *y_desc,
                        void *y, void *bn_desc, void *scale, void *bias, double momentum, void *running_mean,
                        void *running_var, double eps, void *save_mean,
                        void *save_inv_var); /* miopenBatchNormalizationForwardTraining */
    int (*bn_fwd_infer)(void *handle, int mode, void *alpha, void *beta, void *x_desc, const void *x, void *y_desc,
                        void *y, void *bn_desc, void *scale, void *bias, void *mean, void *var,
                        double eps); /* miopenBatchNormalizationForwardInference */
    int (*bn_bwd)(void *handle, int mode, const void *alpha_data, const void *beta_data, const void *alpha_param,
                  const void *beta_param, void *x_desc, const void *x, void *dy_desc, const void *dy, void *dx_desc,
                  void *dx, void *bn_desc, const void *scale, void *dscale, void *dbias, double eps,
                  const void *save_mean, const void *save_inv_var); /* miopenBatchNormalizationBackward */
    /* the Find API (conv-algo best) */
    jv_miopen_find_fn fwd_find;      /* miopenFindConvolutionForwardAlgorithm */
    jv_miopen_run_fn fwd_run;        /* miopenConvolutionForward */
    jv_miopen_find_fn bwd_data_find; /* miopenFindConvolutionBackwardDataAlgorithm */
    jv_miopen_run_fn bwd_data_run;   /* miopenConvolutionBackwardData */
    jv_miopen_find_fn bwd_w_find;    /* miopenFindConvolutionBackwardWeightsAlgorithm */
    jv_miopen_run_fn bwd_w_run;      /* miopenConvolutionBackwardWeights */
} jv_miopen_api;

#endif

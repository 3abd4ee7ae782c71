/* jv_hip_vendor: loading hipBLASLt, rocBLAS and MIOpen at run time for the HIP backend, and the start-up line
 * (see jv_hip_vendor.h); their GEMMs are in jv_hip_blas.c, convolution and batch norm in jv_hip_miopen.c. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batchnorm/batchnorm.h"
#include "conv/conv.h"
#include "gemm/gemm.h"
#include "jv_gpu_lib.h"
#include "jv_hip_vendor.h"
#include "jv_tensor.h"

/* ---- loading ---- */

typedef struct {
    const char *name;
    size_t off; /* offset of the function pointer in its table */
} sym;

#define SYM(T, f, n)                                                                                                   \
    { n, offsetof(T, f) }

static const sym LT_SYMS[] = {
    SYM(jv_hipblaslt_api, create, "hipblasLtCreate"),
    SYM(jv_hipblaslt_api, destroy, "hipblasLtDestroy"),
    SYM(jv_hipblaslt_api, get_version, "hipblasLtGetVersion"),
    SYM(jv_hipblaslt_api, desc_create, "hipblasLtMatmulDescCreate"),
    SYM(jv_hipblaslt_api, desc_destroy, "hipblasLtMatmulDescDestroy"),
    SYM(jv_hipblaslt_api, desc_set, "hipblasLtMatmulDescSetAttribute"),
    SYM(jv_hipblaslt_api, layout_create, "hipblasLtMatrixLayoutCreate"),
    SYM(jv_hipblaslt_api, layout_destroy, "hipblasLtMatrixLayoutDestroy"),
    SYM(jv_hipblaslt_api, layout_set, "hipblasLtMatrixLayoutSetAttribute"),
    SYM(jv_hipblaslt_api, pref_create, "hipblasLtMatmulPreferenceCreate"),
    SYM(jv_hipblaslt_api, pref_destroy, "hipblasLtMatmulPreferenceDestroy"),
    SYM(jv_hipblaslt_api, pref_set, "hipblasLtMatmulPreferenceSetAttribute"),
    SYM(jv_hipblaslt_api, heuristic, "hipblasLtMatmulAlgoGetHeuristic"),
    SYM(jv_hipblaslt_api, matmul, "hipblasLtMatmul"),
};

static const sym RB_SYMS[] = {
    SYM(jv_rocblas_api, create, "rocblas_create_handle"),
    SYM(jv_rocblas_api, destroy, "rocblas_destroy_handle"),
    SYM(jv_rocblas_api, set_stream, "rocblas_set_stream"),
    SYM(jv_rocblas_api, version, "rocblas_get_version_string"),
    SYM(jv_rocblas_api, gemm_strided_batched_ex, "rocblas_gemm_strided_batched_ex"),
};

static const sym MI_SYMS[] = {
    SYM(jv_miopen_api, create_with_stream, "miopenCreateWithStream"),
    SYM(jv_miopen_api, destroy, "miopenDestroy"),
    SYM(jv_miopen_api, set_stream, "miopenSetStream"),
    SYM(jv_miopen_api, get_version, "miopenGetVersion"),
    SYM(jv_miopen_api, tensor_create, "miopenCreateTensorDescriptor"),
    SYM(jv_miopen_api, tensor_set, "miopenSetTensorDescriptor"),
    SYM(jv_miopen_api, tensor_destroy, "miopenDestroyTensorDescriptor"),
    SYM(jv_miopen_api, conv_create, "miopenCreateConvolutionDescriptor"),
    SYM(jv_miopen_api, conv_init_nd, "miopenInitConvolutionNdDescriptor"),
    SYM(jv_miopen_api, conv_set_groups, "miopenSetConvolutionGroupCount"),
    SYM(jv_miopen_api, conv_destroy, "miopenDestroyConvolutionDescriptor"),
    SYM(jv_miopen_api, fwd_get_solution, "miopenConvolutionForwardGetSolution"),
    SYM(jv_miopen_api, fwd_compile, "miopenConvolutionForwardCompileSolution"),
    SYM(jv_miopen_api, fwd_immediate, "miopenConvolutionForwardImmediate"),
    SYM(jv_miopen_api, bwd_data_get_solution, "miopenConvolutionBackwardDataGetSolution"),
    SYM(jv_miopen_api, bwd_data_compile, "miopenConvolutionBackwardDataCompileSolution"),
    SYM(jv_miopen_api, bwd_data_immediate, "miopenConvolutionBackwardDataImmediate"),
    SYM(jv_miopen_api, bwd_w_get_solution, "miopenConvolutionBackwardWeightsGetSolution"),
    SYM(jv_miopen_api, bwd_w_compile, "miopenConvolutionBackwardWeightsCompileSolution"),
    SYM(jv_miopen_api, bwd_w_immediate, "miopenConvolutionBackwardWeightsImmediate"),
    SYM(jv_miopen_api, fwd_bias, "miopenConvolutionForwardBias"),
    SYM(jv_miopen_api, bwd_bias, "miopenConvolutionBackwardBias"),
    SYM(jv_miopen_api, bn_derive, "miopenDeriveBNTensorDescriptor"),
    SYM(jv_miopen_api, bn_fwd_train, "miopenBatchNormalizationForwardTraining"),
    SYM(jv_miopen_api, bn_fwd_infer, "miopenBatchNormalizationForwardInference"),
    SYM(jv_miopen_api, bn_bwd, "miopenBatchNormalizationBackward"),
    SYM(jv_miopen_api, fwd_find, "miopenFindConvolutionForwardAlgorithm"),
    SYM(jv_miopen_api, fwd_run, "miopenConvolutionForward"),
    SYM(jv_miopen_api, bwd_data_find, "miopenFindConvolutionBackwardDataAlgorithm"),
    SYM(jv_miopen_api, bwd_data_run, "miopenConvolutionBackwardData"),
    SYM(jv_miopen_api, bwd_w_find, "miopenFindConvolutionBackwardWeightsAlgorithm"),
    SYM(jv_miopen_api, bwd_w_run, "miopenConvolutionBackwardWeights"),
};

/* dlopens the first of names found in the default search path, then under $ROCM_PATH/lib and /opt/rocm/lib;
 * resolves syms into table. */
static void load_lib(jv_hipv_lib *lib, const char *const *names, int nnames, const sym *syms, int nsyms, void *table) {
    memset(lib, 0, sizeof *lib);
    const char *rocm = getenv("ROCM_PATH");
    const char *dirs[] = {"", rocm && rocm[0] ? rocm : NULL, "/opt/rocm"};
    size_t wl = 0;
    for (int d = 0; d < 3 && !lib->dl; d++) {
        if (!dirs[d]) continue;
        for (int i = 0; i < nnames && !lib->dl; i++) {
            char path[256];
            if (dirs[d][0])
                snprintf(path, sizeof path, "%s/lib/%s", dirs[d], names[i]);
            else
                snprintf(path, sizeof path, "%s", names[i]);
            lib->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (lib->dl) snprintf(lib->path, sizeof lib->path, "%s", path);
        }
    }
    if (!lib->dl) {
        wl = (size_t)snprintf(lib->why, sizeof lib->why, "not found (tried");
        for (int i = 0; i < nnames && wl < sizeof lib->why; i++)
            wl += (size_t)snprintf(lib->why + wl, sizeof lib->why - wl, "%s%s", i ? ", " : " ", names[i]);
        if (wl < sizeof lib->why)
            snprintf(lib->why + wl, sizeof lib->why - wl, "; also under $ROCM_PATH/lib, /opt/rocm/lib)");
        return;
    }
    for (int i = 0; i < nsyms; i++) {
        void *f = dlsym(lib->dl, syms[i].name);
        if (!f) {
            snprintf(lib->why, sizeof lib->why, "%.160s lacks %.60s (an older API): not used", lib->path, syms[i].name);
            dlclose(lib->dl);
            lib->dl = NULL;
            memset(table, 0,
                   syms == LT_SYMS   ? sizeof(jv_hipblaslt_api)
                   : syms == RB_SYMS ? sizeof(jv_rocblas_api)
                                     : sizeof(jv_miopen_api));
            return;
        }
        memcpy((char *)table + syms[i].off, &f, sizeof f);
    }
    Dl_info info;
    void *first;
    memcpy(&first, (char *)table + syms[0].off, sizeof first);
    if (dladdr(first, &info) && info.dli_fname) snprintf(lib->path, sizeof lib->path, "%s", info.dli_fname);
    lib->found = 1;
}

void jv_hipv_load(jv_hipv *v) {
    memset(v, 0, sizeof *v);
    /* SONAMEs: hipBLASLt .so.0 (ROCm 6.x), .so.1 (ROCm 7); rocBLAS .so.4 (ROCm 6.x), .so.5 (ROCm 7); MIOpen .so.1 */
    static const char *const LT[] = {"libhipblaslt.so", "libhipblaslt.so.1", "libhipblaslt.so.0"};
    static const char *const RB[] = {"librocblas.so", "librocblas.so.5", "librocblas.so.4"};
    static const char *const MI[] = {"libMIOpen.so", "libMIOpen.so.1"};
    load_lib(&v->lt_lib, LT, 3, LT_SYMS, (int)(sizeof LT_SYMS / sizeof LT_SYMS[0]), &v->lt);
    load_lib(&v->rb_lib, RB, 3, RB_SYMS, (int)(sizeof RB_SYMS / sizeof RB_SYMS[0]), &v->rb);
    load_lib(&v->mi_lib, MI, 2, MI_SYMS, (int)(sizeof MI_SYMS / sizeof MI_SYMS[0]), &v->mi);
}

void jv_hipv_open(jv_hipv *v, void *stream, const jv_hipv_runtime *rt) {
    v->stream = stream;
    if (rt) v->rt = *rt;
    if (v->lt_lib.found) {
        int s = v->lt.create(&v->lt_h);
        if (s != JV_HIPBLAS_STATUS_SUCCESS) {
            v->lt_h = NULL;
            snprintf(v->lt_lib.why, sizeof v->lt_lib.why, "hipblasLtCreate failed (status %d): not used", s);
        } else {
            /* the version: major * 100000 + minor * 100 + patch (hipblaslt-version.h) */
            int ver = 0;
            if (v->lt.get_version(v->lt_h, &ver) == JV_HIPBLAS_STATUS_SUCCESS && ver > 0)
                snprintf(v->lt_lib.version, sizeof v->lt_lib.version, "%d.%d.%d", ver / 100000, ver / 100 % 1000,
                         ver % 100);
            if (ver < JV_HIPBLASLT_MIN_VERSION) {
                v->lt.destroy(v->lt_h);
                v->lt_h = NULL;
                snprintf(v->lt_lib.why, sizeof v->lt_lib.why,
                         "%.100s version %.20s is older than hipBLASLt 0.10 (ROCm 6.3), whose enum values this build "
                         "passes: not used",
                         v->lt_lib.path, v->lt_lib.version[0] ? v->lt_lib.version : "unknown");
            }
        }
    }
    if (v->rb_lib.found) {
        char ver[64] = "";
        if (v->rb.version(ver, sizeof ver) == JV_ROCBLAS_STATUS_SUCCESS)
            snprintf(v->rb_lib.version, sizeof v->rb_lib.version, "%s", ver);
        int s = v->rb.create(&v->rb_h);
        if (s == JV_ROCBLAS_STATUS_SUCCESS) s = v->rb.set_stream(v->rb_h, stream);
        if (s != JV_ROCBLAS_STATUS_SUCCESS) {
            if (v->rb_h) v->rb.destroy(v->rb_h);
            v->rb_h = NULL;
            snprintf(v->rb_lib.why, sizeof v->rb_lib.why, "rocblas_create_handle / set_stream failed (status %d)", s);
        }
    }
    if (v->mi_lib.found) {
        size_t ma = 0, mi = 0, pa = 0;
        if (v->mi.get_version(&ma, &mi, &pa) == JV_MIOPEN_STATUS_SUCCESS)
            snprintf(v->mi_lib.version, sizeof v->mi_lib.version, "%zu.%zu.%zu", ma, mi, pa);
        int s = v->mi.create_with_stream(&v->mi_h, stream);
        if (s != JV_MIOPEN_STATUS_SUCCESS) {
            v->mi_h = NULL;
            snprintf(v->mi_lib.why, sizeof v->mi_lib.why, "miopenCreateWithStream failed (status %d)", s);
        }
    }
}

void jv_hipv_close(jv_hipv *v) {
    if (v->lt_h) v->lt.destroy(v->lt_h);
    if (v->rb_h) v->rb.destroy(v->rb_h);
    if (v->mi_h) v->mi.destroy(v->mi_h);
    v->lt_h = v->rb_h = v->mi_h = NULL;
    jv_hipv_lib *libs[] = {&v->lt_lib, &v->rb_lib, &v->mi_lib};
    for (int i = 0; i < 3; i++) {
        if (libs[i]->dl) dlclose(libs[i]->dl);
        libs[i]->dl = NULL;
        libs[i]->found = 0;
    }
}

static size_t say_lib(char *buf, size_t cap, size_t n, const char *name, const jv_hipv_lib *lib, int usable) {
    if (n >= cap) return n;
    if (usable)
        n += (size_t)snprintf(buf + n, cap - n, "%s %s%s%s%s", name, lib->path, lib->version[0] ? " (version " : "",
                              lib->version, lib->version[0] ? ")" : "");
    else
        n += (size_t)snprintf(buf + n, cap - n, "%s %s", name, lib->why[0] ? lib->why : "not found");
    return n;
}

void jv_hipv_describe(const jv_hipv *v, char *buf, size_t cap) {
    if (!cap) return;
    buf[0] = 0;
    size_t n = say_lib(buf, cap, 0, "hipBLASLt", &v->lt_lib, v->lt_lib.found && (v->lt_h || !v->stream));
    if (n < cap) n += (size_t)snprintf(buf + n, cap - n, "; ");
    n = say_lib(buf, cap, n, "rocBLAS", &v->rb_lib, v->rb_lib.found && (v->rb_h || !v->stream));
    if (n < cap) n += (size_t)snprintf(buf + n, cap - n, "; ");
    say_lib(buf, cap, n, "MIOpen", &v->mi_lib, v->mi_lib.found && (v->mi_h || !v->stream));
}

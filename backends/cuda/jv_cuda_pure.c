/* jv_cuda_pure: sticky-error classification, workspace sizing, the cuDNN
 * algorithm cache and the cuBLASLt search's ranking and cache of the CUDA
 * backend (see jv_cuda_pure.h). Numeric codes,
 * so that the table builds with any CUDA 12 or 13 toolkit header. */
#include "jv_cuda_pure.h"

#include "jv_gpu_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* cudaError_t values whose documentation says the process must be relaunched */
static const jv_gpu_code_name STICKY[] = {
    {214, "cudaErrorECCUncorrectable"},    {220, "cudaErrorNvlinkUncorrectable"}, {226, "cudaErrorContained"},
    {700, "cudaErrorIllegalAddress"},      {702, "cudaErrorLaunchTimeout"},       {710, "cudaErrorAssert"},
    {714, "cudaErrorHardwareStackError"},  {715, "cudaErrorIllegalInstruction"},  {716, "cudaErrorMisalignedAddress"},
    {717, "cudaErrorInvalidAddressSpace"}, {718, "cudaErrorInvalidPc"},           {719, "cudaErrorLaunchFailure"},
    {721, "cudaErrorTensorMemoryLeak"},    {810, "cudaErrorMpsClientTerminated"}, {911, "cudaErrorExternalDevice"},
};

int jv_cuda_error_sticky(int code, const char **name) {
    return jv_gpu_code_find(STICKY, sizeof STICKY / sizeof STICKY[0], code, name);
}

size_t jv_cuda_workspace_bytes(size_t free_bytes) {
    return jv_gpu_workspace_bytes(free_bytes, JV_CUDA_DNN_WORKSPACE, JV_CUDA_LT_WORKSPACE);
}

int jv_cuda_bn_mode(int training, int channels_last, int ndim) {
    if (ndim == 2) return 0;                 /* CUDNN_BATCHNORM_PER_ACTIVATION */
    if (training && channels_last) return 2; /* CUDNN_BATCHNORM_SPATIAL_PERSISTENT */
    return 1;                                /* CUDNN_BATCHNORM_SPATIAL */
}

void jv_cuda_conv_key_add(jv_cuda_conv_key *k, int64_t v) {
    if (k->n >= JV_CUDA_CONV_KEY_WORDS) {
        k->overflow = 1;
        return;
    }
    k->w[k->n++] = v;
}

static int key_eq(const jv_cuda_conv_key *a, const jv_cuda_conv_key *b) {
    return a->n == b->n && !memcmp(a->w, b->w, sizeof(int64_t) * (size_t)a->n);
}

const void *jv_cuda_cache_find(const jv_cuda_cache *c, const jv_cuda_conv_key *k) {
    if (k->overflow) return NULL;
    for (int i = 0; i < c->n; i++)
        if (key_eq(&c->keys[i], k)) return c->vals + (size_t)i * c->val_size;
    return NULL;
}

jv_status jv_cuda_cache_put(jv_cuda_cache *c, const jv_cuda_conv_key *k, const void *v, size_t size, jv_err *err) {
    if (k->overflow) return JV_OK;
    if (c->n > 0 && size != c->val_size)
        JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: a cache of %zu-byte values given %zu bytes", c->val_size, size);
    c->val_size = size;
    for (int i = 0; i < c->n; i++)
        if (key_eq(&c->keys[i], k)) {
            memcpy(c->vals + (size_t)i * size, v, size);
            return JV_OK;
        }
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        jv_cuda_conv_key *nk = realloc(c->keys, sizeof *nk * (size_t)cap);
        if (!nk) JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: out of memory for the algorithm cache");
        c->keys = nk;
        unsigned char *nv = realloc(c->vals, size * (size_t)cap);
        if (!nv) JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: out of memory for the algorithm cache");
        c->vals = nv;
        c->cap = cap;
    }
    c->keys[c->n] = *k;
    memcpy(c->vals + (size_t)c->n * size, v, size);
    c->n++;
    return JV_OK;
}

void jv_cuda_cache_clear(jv_cuda_cache *c) {
    free(c->keys);
    free(c->vals);
    memset(c, 0, sizeof *c);
}

double jv_cuda_median(double *v, int n) {
    return jv_gpu_median(v, n);
}

int jv_cuda_fastest(const double *t, int n) {
    int best = -1;
    for (int i = 0; i < n; i++)
        if (t[i] > 0 && !isnan(t[i]) && (best < 0 || t[i] < t[best])) best = i;
    return best;
}

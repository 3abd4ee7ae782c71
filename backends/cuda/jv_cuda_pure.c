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

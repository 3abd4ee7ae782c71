/* jv_ir: the replay IR (TraceLens' EventReplay form), written from and read
 * back into jv_opcall.
 *
 * Writing fits a call to one overload of its op from a built-in table of ATen
 * schemas (the func: lines of native_functions.yaml) and names and types every
 * argument from it. Reading needs no table: the entry's own arg_type and value
 * give back the four trace texts (Input Dims, Input type, Input Strides,
 * Concrete Inputs), which go through jv_opcall_from_trace, the one parser of
 * traced calls, so a replayed op is seen by the families exactly as a traced
 * one. cJSON keeps no number text, so the reader scans the document once for
 * which numbers were written as floats ("2.0" vs "2"): a Scalar keeps its
 * Python type, which decides type promotion. */
#include "jv_ir.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_output.h"

/* ------------------------------------------------------------------------ */
/* The schema table: func lines of aten/src/ATen/native/native_functions.yaml
 * (the .out overloads marked autogen there are written as torch registers
 * them). Without a namespace the op is aten::. Every op of the gemm, conv,
 * batchnorm and unary/binary elementwise families has its overloads here. */

/* clang-format off */
static const char *const SCHEMAS[] = {
    /* gemm */
    "mm(Tensor self, Tensor mat2) -> Tensor",
    "mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
    "mm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor",
    "mm.dtype_out(Tensor self, Tensor mat2, ScalarType out_dtype, *, Tensor(a!) out) -> Tensor(a!)",
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "addmm.dtype(Tensor self, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "addmm.dtype_out(Tensor self, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)",
    "bmm(Tensor self, Tensor mat2) -> Tensor",
    "bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
    "bmm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor",
    "bmm.dtype_out(Tensor self, Tensor mat2, ScalarType out_dtype, *, Tensor(a!) out) -> Tensor(a!)",
    "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "baddbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> "
    "Tensor(a!)",
    "baddbmm.dtype(Tensor self, Tensor batch1, Tensor batch2, ScalarType out_dtype, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor",
    "baddbmm.dtype_out(Tensor self, Tensor batch1, Tensor batch2, ScalarType out_dtype, *, Scalar beta=1, "
    "Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "_scaled_mm(Tensor self, Tensor mat2, Tensor scale_a, Tensor scale_b, Tensor? bias=None, Tensor? scale_result=None, "
    "ScalarType? out_dtype=None, bool use_fast_accum=False) -> Tensor",
    "_scaled_mm.out(Tensor self, Tensor mat2, Tensor scale_a, Tensor scale_b, Tensor? bias=None, "
    "Tensor? scale_result=None, ScalarType? out_dtype=None, bool use_fast_accum=False, *, Tensor(a!) out) -> Tensor(a!)",
    "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
    "linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out) -> Tensor(a!)",
    "matmul(Tensor self, Tensor other) -> Tensor",
    "matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    /* vLLM's ROCm GEMM (a custom op; schema inferred from its Python signature) */
    "vllm::rocm_unquantized_gemm(Tensor x, Tensor weight, Tensor? bias=None) -> Tensor",

    /* conv */
    "convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, "
    "bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor",
    "convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, "
    "bool transposed, SymInt[] output_padding, SymInt groups, *, Tensor(a!) out) -> Tensor(a!)",
    "convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, SymInt[] stride, "
    "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, "
    "bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
    "convolution_backward.out(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, SymInt[] stride, "
    "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, "
    "bool[3] output_mask, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))",
    "_convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, "
    "bool transposed, SymInt[] output_padding, SymInt groups, bool benchmark, bool deterministic, bool cudnn_enabled, "
    "bool allow_tf32) -> Tensor",
    "_convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
    "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, bool benchmark, bool deterministic, "
    "bool cudnn_enabled, bool allow_tf32, *, Tensor(a!) out) -> Tensor(a!)",
    "_convolution.deprecated(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
    "SymInt[] dilation, bool transposed, int[] output_padding, SymInt groups, bool benchmark, bool deterministic, "
    "bool cudnn_enabled) -> Tensor",
    "_convolution_mode(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, str padding, SymInt[] dilation, "
    "SymInt groups) -> Tensor",
    "conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, "
    "SymInt[1] dilation=1, SymInt groups=1) -> Tensor",
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, "
    "SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
    "conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, SymInt[3] padding=0, "
    "SymInt[3] dilation=1, SymInt groups=1) -> Tensor",
    "conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, str padding=\"valid\", "
    "SymInt[1] dilation=1, SymInt groups=1) -> Tensor",
    "conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, str padding=\"valid\", "
    "SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
    "conv3d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, str padding=\"valid\", "
    "SymInt[3] dilation=1, SymInt groups=1) -> Tensor",
    "conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, "
    "SymInt[1] output_padding=0, SymInt groups=1, SymInt[1] dilation=1) -> Tensor",
    "conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, "
    "SymInt[2] output_padding=0, SymInt groups=1, SymInt[2] dilation=1) -> Tensor",
    "conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, SymInt[3] padding=0, "
    "SymInt[3] output_padding=0, SymInt groups=1, SymInt[3] dilation=1) -> Tensor",
    "cudnn_convolution(Tensor self, Tensor weight, SymInt[] padding, SymInt[] stride, SymInt[] dilation, "
    "SymInt groups, bool benchmark, bool deterministic, bool allow_tf32) -> Tensor",
    "cudnn_convolution.out(Tensor self, Tensor weight, SymInt[] padding, SymInt[] stride, SymInt[] dilation, "
    "SymInt groups, bool benchmark, bool deterministic, bool allow_tf32, *, Tensor(a!) out) -> Tensor(a!)",
    "cudnn_convolution_transpose(Tensor self, Tensor weight, SymInt[] padding, SymInt[] output_padding, "
    "SymInt[] stride, SymInt[] dilation, SymInt groups, bool benchmark, bool deterministic, bool allow_tf32) -> Tensor",
    "miopen_convolution(Tensor self, Tensor weight, Tensor? bias, SymInt[] padding, SymInt[] stride, "
    "SymInt[] dilation, SymInt groups, bool benchmark, bool deterministic) -> Tensor",
    "miopen_convolution_transpose(Tensor self, Tensor weight, Tensor? bias, SymInt[] padding, "
    "SymInt[] output_padding, SymInt[] stride, SymInt[] dilation, SymInt groups, bool benchmark, bool deterministic) "
    "-> Tensor",
    "miopen_depthwise_convolution(Tensor self, Tensor weight, Tensor? bias, SymInt[] padding, SymInt[] stride, "
    "SymInt[] dilation, SymInt groups, bool benchmark, bool deterministic) -> Tensor",

    /* batchnorm */
    "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, "
    "float momentum, float eps, bool cudnn_enabled) -> Tensor",
    "_batch_norm_impl_index(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool training, float momentum, float eps, bool cudnn_enabled) -> (Tensor, Tensor, Tensor, Tensor, int)",
    "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    "native_batch_norm.out(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean, Tensor(c!) save_invstd) -> "
    "(Tensor(a!), Tensor(b!), Tensor(c!))",
    "cudnn_batch_norm(Tensor input, Tensor weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool training, float exponential_average_factor, float epsilon) -> (Tensor, Tensor, Tensor, Tensor)",
    "cudnn_batch_norm.out(Tensor input, Tensor weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool training, float exponential_average_factor, float epsilon, *, Tensor(a!) out0, Tensor(b!) out1, "
    "Tensor(c!) out2, Tensor(d!) out3) -> (Tensor(a!), Tensor(b!), Tensor(c!), Tensor(d!))",
    "miopen_batch_norm(Tensor input, Tensor weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool training, float exponential_average_factor, float epsilon) -> (Tensor, Tensor, Tensor)",
    "_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
    "Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    "_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, bool training, float momentum, "
    "float eps) -> (Tensor, Tensor, Tensor)",
    "_native_batch_norm_legit.out(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
    "Tensor(b!) running_var, bool training, float momentum, float eps, *, Tensor(d!) out, Tensor(e!) save_mean, "
    "Tensor(f!) save_invstd) -> (Tensor(d!), Tensor(e!), Tensor(f!))",
    "_native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias, bool training, "
    "float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean, Tensor(c!) save_invstd) -> "
    "(Tensor(a!), Tensor(b!), Tensor(c!))",
    "_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, "
    "Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    "_batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
    "Tensor(b!) running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)",
    "_batch_norm_with_update.out(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
    "Tensor(b!) running_var, float momentum, float eps, *, Tensor(d!) out, Tensor(e!) save_mean, "
    "Tensor(f!) save_invstd, Tensor(g!) reserve) -> (Tensor(d!), Tensor(e!), Tensor(f!), Tensor(g!))",
    "_batch_norm_no_update(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)",
    "native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, "
    "Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, bool[3] output_mask) -> "
    "(Tensor, Tensor, Tensor)",
    "native_batch_norm_backward.out(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, "
    "Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, bool[3] output_mask, *, "
    "Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))",
    "batch_norm_backward(Tensor grad_out, Tensor input, Tensor weight, Tensor? running_mean, Tensor? running_var, "
    "Tensor? save_mean, Tensor? save_var, bool update, float eps, bool[3] output_mask, Tensor reserve) -> "
    "(Tensor, Tensor, Tensor)",
    "cudnn_batch_norm_backward(Tensor input, Tensor grad_output, Tensor weight, Tensor? running_mean, "
    "Tensor? running_var, Tensor? save_mean, Tensor? save_var, float epsilon, Tensor reserveSpace) -> "
    "(Tensor, Tensor, Tensor)",
    "miopen_batch_norm_backward(Tensor input, Tensor grad_output, Tensor weight, Tensor? running_mean, "
    "Tensor? running_var, Tensor? save_mean, Tensor? save_var, float epsilon) -> (Tensor, Tensor, Tensor)",

    /* unary elementwise */
    "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    "copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor",
    "copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out) -> Tensor(a!)",
    "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
    "clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)",
    "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
    "to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
    "to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)",
    "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)",
    "to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)",
    "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
    "_to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None, Tensor(a!) out) -> "
    "Tensor(a!)",
    "relu(Tensor self) -> Tensor",
    "relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "relu_(Tensor(a!) self) -> Tensor(a!)",
    "gelu(Tensor self, *, str approximate='none') -> Tensor",
    "gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> Tensor(a!)",
    "gelu_(Tensor(a!) self, *, str approximate='none') -> Tensor(a!)",
    "silu(Tensor self) -> Tensor",
    "silu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "silu_(Tensor(a!) self) -> Tensor(a!)",
    "sigmoid(Tensor self) -> Tensor",
    "sigmoid.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "sigmoid_(Tensor(a!) self) -> Tensor(a!)",
    "tanh(Tensor self) -> Tensor",
    "tanh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "tanh_(Tensor(a!) self) -> Tensor(a!)",
    "neg(Tensor self) -> Tensor",
    "neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "neg_(Tensor(a!) self) -> Tensor(a!)",
    "rsqrt(Tensor self) -> Tensor",
    "rsqrt.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "rsqrt_(Tensor(a!) self) -> Tensor(a!)",
    "sqrt(Tensor self) -> Tensor",
    "sqrt.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "sqrt_(Tensor(a!) self) -> Tensor(a!)",
    "exp(Tensor self) -> Tensor",
    "exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "exp_(Tensor(a!) self) -> Tensor(a!)",
    "log(Tensor self) -> Tensor",
    "log.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "log_(Tensor(a!) self) -> Tensor(a!)",
    "abs(Tensor self) -> Tensor",
    "abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "abs_(Tensor(a!) self) -> Tensor(a!)",
    "reciprocal(Tensor self) -> Tensor",
    "reciprocal.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "reciprocal_(Tensor(a!) self) -> Tensor(a!)",
    "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    "pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)",
    "pow.Scalar(Scalar self, Tensor exponent) -> Tensor",
    "pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)",
    "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    "pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)",
    "pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)",
    "pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)",
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
    "clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)",
    "clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) -> Tensor(a!)",
    "clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
    "clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)",
    "clamp_min(Tensor self, Scalar min) -> Tensor",
    "clamp_min.Tensor(Tensor self, Tensor min) -> Tensor",
    "clamp_min.out(Tensor self, Scalar min, *, Tensor(a!) out) -> Tensor(a!)",
    "clamp_min.Tensor_out(Tensor self, Tensor min, *, Tensor(a!) out) -> Tensor(a!)",
    "clamp_min_(Tensor(a!) self, Scalar min) -> Tensor(a!)",
    "clamp_min_.Tensor(Tensor(a!) self, Tensor min) -> Tensor(a!)",
    "clamp_max(Tensor self, Scalar max) -> Tensor",
    "clamp_max.Tensor(Tensor self, Tensor max) -> Tensor",
    "clamp_max.out(Tensor self, Scalar max, *, Tensor(a!) out) -> Tensor(a!)",
    "clamp_max.Tensor_out(Tensor self, Tensor max, *, Tensor(a!) out) -> Tensor(a!)",
    "clamp_max_(Tensor(a!) self, Scalar max) -> Tensor(a!)",
    "clamp_max_.Tensor(Tensor(a!) self, Tensor max) -> Tensor(a!)",
    "fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    "fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)",
    "zero_(Tensor(a!) self) -> Tensor(a!)",
    "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
    "hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> Tensor(a!)",
    "hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)",
    "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    "leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out) -> Tensor(a!)",
    "leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)",
    "erf(Tensor self) -> Tensor",
    "erf.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "erf_(Tensor(a!) self) -> Tensor(a!)",
    "sin(Tensor self) -> Tensor",
    "sin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "sin_(Tensor(a!) self) -> Tensor(a!)",
    "cos(Tensor self) -> Tensor",
    "cos.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "cos_(Tensor(a!) self) -> Tensor(a!)",
    "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
    "nan_to_num.out(Tensor self, float? nan=None, float? posinf=None, float? neginf=None, *, Tensor(a!) out) -> "
    "Tensor(a!)",
    "nan_to_num_(Tensor(a!) self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor(a!)",
    "upsample_nearest1d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor",
    "upsample_nearest1d(Tensor self, SymInt[1] output_size, float? scales=None) -> Tensor",
    "upsample_nearest1d.out(Tensor self, SymInt[1] output_size, float? scales=None, *, Tensor(a!) out) -> Tensor(a!)",
    "upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor",
    "upsample_nearest2d(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor",
    "upsample_nearest2d.out(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    "upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors, *, Tensor(a!) out) -> "
    "Tensor(a!)",
    "upsample_nearest3d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor",
    "upsample_nearest3d(Tensor self, SymInt[3] output_size, float? scales_d=None, float? scales_h=None, "
    "float? scales_w=None) -> Tensor",
    "upsample_nearest3d.out(Tensor self, SymInt[3] output_size, float? scales_d=None, float? scales_h=None, "
    "float? scales_w=None, *, Tensor(a!) out) -> Tensor(a!)",

    /* binary elementwise */
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
    "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)",
    "sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
    "rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "rsub.Tensor_out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)",
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    "mul.Scalar(Tensor self, Scalar other) -> Tensor",
    "mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    "mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "div.Tensor(Tensor self, Tensor other) -> Tensor",
    "div.Scalar(Tensor self, Scalar other) -> Tensor",
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",
    "div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)",
    "div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    "div.Scalar_mode_out(Tensor self, Scalar other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)",
    "div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)",
    "div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "div_.Scalar_mode(Tensor(a!) self, Scalar other, *, str? rounding_mode) -> Tensor(a!)",
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
    "where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
    "where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor",
    "where(Tensor condition) -> Tensor[]",
    "threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
    "threshold_backward.grad_input(Tensor grad_output, Tensor self, Scalar threshold, *, Tensor(a!) grad_input) -> "
    "Tensor(a!)",
    "sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor",
    "sigmoid_backward.grad_input(Tensor grad_output, Tensor output, *, Tensor(a!) grad_input) -> Tensor(a!)",
    "tanh_backward(Tensor grad_output, Tensor output) -> Tensor",
    "tanh_backward.grad_input(Tensor grad_output, Tensor output, *, Tensor(a!) grad_input) -> Tensor(a!)",
    "gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor",
    "gelu_backward.grad_input(Tensor grad_output, Tensor self, *, str approximate='none', Tensor(a!) grad_input) -> "
    "Tensor(a!)",
    "silu_backward(Tensor grad_output, Tensor self) -> Tensor",
    "silu_backward.grad_input(Tensor grad_output, Tensor self, *, Tensor(a!) grad_input) -> Tensor(a!)",
    "maximum(Tensor self, Tensor other) -> Tensor",
    "maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "minimum(Tensor self, Tensor other) -> Tensor",
    "minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "eq.Scalar(Tensor self, Scalar other) -> Tensor",
    "eq.Tensor(Tensor self, Tensor other) -> Tensor",
    "eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    "eq.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "eq_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "eq_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "ne.Scalar(Tensor self, Scalar other) -> Tensor",
    "ne.Tensor(Tensor self, Tensor other) -> Tensor",
    "ne.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    "ne.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "ne_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "ne_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "lt.Scalar(Tensor self, Scalar other) -> Tensor",
    "lt.Tensor(Tensor self, Tensor other) -> Tensor",
    "lt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    "lt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "lt_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "lt_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "le.Scalar(Tensor self, Scalar other) -> Tensor",
    "le.Tensor(Tensor self, Tensor other) -> Tensor",
    "le.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    "le.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "le_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "le_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "gt.Scalar(Tensor self, Scalar other) -> Tensor",
    "gt.Tensor(Tensor self, Tensor other) -> Tensor",
    "gt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    "gt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "gt_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "gt_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "ge.Scalar(Tensor self, Scalar other) -> Tensor",
    "ge.Tensor(Tensor self, Tensor other) -> Tensor",
    "ge.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    "ge.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "ge_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "ge_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
    "masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
    "masked_fill.Scalar_out(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out) -> Tensor(a!)",
    "masked_fill.Tensor_out(Tensor self, Tensor mask, Tensor value, *, Tensor(a!) out) -> Tensor(a!)",
    "masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
    "masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)",
    "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    "addcmul.out(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor(a!) out) -> Tensor(a!)",
    "addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)",
    "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    "addcdiv.out(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor(a!) out) -> Tensor(a!)",
    "addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)",
    "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
    "lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor",
    "lerp.Scalar_out(Tensor self, Tensor end, Scalar weight, *, Tensor(a!) out) -> Tensor(a!)",
    "lerp.Tensor_out(Tensor self, Tensor end, Tensor weight, *, Tensor(a!) out) -> Tensor(a!)",
    "lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)",
    "lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)",
};
/* clang-format on */

/* ------------------------------------------------------------------------ */
/* Argument types */

typedef enum {
    K_OTHER = 0,
    K_TENSOR,
    K_TENSORLIST,
    K_INT,        /* int, SymInt */
    K_INTLIST,
    K_FLOAT,
    K_FLOATLIST,
    K_BOOL,
    K_BOOLLIST,
    K_SCALAR,
    K_SCALARLIST,
    K_STR,
    K_SCALARTYPE, /* written as its ScalarType code */
    K_LAYOUT,     /* code */
    K_MEMFMT,     /* code */
    K_DEVICE,
    K_GENERATOR
} akind;

typedef struct {
    akind k;
    int optional; /* "T?" */
    int writes;   /* an alias annotation with '!' */
} atype;

/* Classifies a schema type text ("Tensor(a!)", "SymInt[2]", "int[1]?", "Tensor?[]"). */
static void type_parse(const char *t, atype *o) {
    memset(o, 0, sizeof *o);
    char base[32];
    size_t n = 0;
    while (t[n] && (isalnum((unsigned char)t[n]) || t[n] == '_' || t[n] == ':') && n + 1 < sizeof base) {
        base[n] = t[n];
        n++;
    }
    base[n] = 0;
    int list = 0;
    for (const char *p = t + n; *p; p++) {
        if (*p == '(') {
            for (p++; *p && *p != ')'; p++)
                if (*p == '!') o->writes = 1;
            if (!*p) break;
        } else if (*p == '[') {
            list = 1;
        } else if (*p == '?') {
            o->optional = 1;
        }
    }
    static const struct {
        const char *name;
        akind one, many;
    } B[] = {
        {"Tensor", K_TENSOR, K_TENSORLIST}, {"int", K_INT, K_INTLIST},        {"SymInt", K_INT, K_INTLIST},
        {"float", K_FLOAT, K_FLOATLIST},    {"bool", K_BOOL, K_BOOLLIST},     {"Scalar", K_SCALAR, K_SCALARLIST},
        {"str", K_STR, K_OTHER},            {"ScalarType", K_SCALARTYPE, K_OTHER}, {"Layout", K_LAYOUT, K_OTHER},
        {"MemoryFormat", K_MEMFMT, K_OTHER}, {"Device", K_DEVICE, K_OTHER},  {"Generator", K_GENERATOR, K_OTHER},
    };
    o->k = K_OTHER;
    for (size_t i = 0; i < sizeof B / sizeof B[0]; i++)
        if (!strcmp(base, B[i].name)) o->k = list ? B[i].many : B[i].one;
}

static int is_tensorish(akind k) { return k == K_TENSOR || k == K_TENSORLIST; }

/* ------------------------------------------------------------------------ */
/* Schema parsing */

#define NAME_CAP 40
#define TYPE_CAP 40

typedef struct {
    char name[NAME_CAP];
    char type[TYPE_CAP];
    int kwonly;
    int has_default;
} sch_arg;

typedef struct {
    char op[64];           /* "aten::add" */
    char overload[NAME_CAP];
    int n;
    sch_arg a[JV_MAX_ARGS];
} schema;

/* copies [b, e) trimmed into dst (cap bytes); 0 when it does not fit */
static int copy_trim(char *dst, size_t cap, const char *b, const char *e) {
    while (b < e && isspace((unsigned char)*b)) b++;
    while (e > b && isspace((unsigned char)e[-1])) e--;
    size_t n = (size_t)(e - b);
    if (n >= cap) return 0;
    memcpy(dst, b, n);
    dst[n] = 0;
    return 1;
}

/* Parses one table line. 0 on a malformed line (a bug in the table). */
static int schema_parse(const char *s, schema *o) {
    memset(o, 0, sizeof *o);
    const char *lp = strchr(s, '(');
    if (!lp) return 0;
    char full[NAME_CAP + 8];
    if (!copy_trim(full, sizeof full, s, lp)) return 0;
    char *dot = strchr(full, '.');
    if (dot) {
        if (!copy_trim(o->overload, sizeof o->overload, dot + 1, dot + 1 + strlen(dot + 1))) return 0;
        *dot = 0;
    }
    const char *ns = strstr(full, "::") ? "" : "aten::";
    size_t ln = strlen(ns), lf = strlen(full);
    if (ln + lf >= sizeof o->op) return 0;
    memcpy(o->op, ns, ln);
    memcpy(o->op + ln, full, lf + 1);
    /* the argument list: up to the ')' that closes lp */
    int depth = 0, kw = 0;
    const char *p = lp + 1, *start = p;
    char quote = 0;
    for (;; p++) {
        char c = *p;
        if (!c) return 0;
        if (quote) {
            if (c == quote) quote = 0;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            continue;
        }
        if (c == '(' || c == '[') depth++;
        else if ((c == ')' || c == ']') && depth > 0) depth--;
        else if ((c == ',' || c == ')') && depth == 0) {
            char piece[128];
            if (!copy_trim(piece, sizeof piece, start, p)) return 0;
            if (!strcmp(piece, "*")) {
                kw = 1;
            } else if (piece[0]) {
                if (o->n >= JV_MAX_ARGS) return 0;
                sch_arg *a = &o->a[o->n];
                char *sp = strchr(piece, ' ');
                if (!sp) return 0;
                if (!copy_trim(a->type, sizeof a->type, piece, sp)) return 0;
                char *eq = strchr(sp, '=');
                if (!copy_trim(a->name, sizeof a->name, sp, eq ? eq : sp + strlen(sp))) return 0;
                a->has_default = eq != NULL;
                a->kwonly = kw;
                if (!a->name[0] || !a->type[0]) return 0;
                o->n++;
            }
            start = p + 1;
            if (c == ')') break;
        }
    }
    return 1;
}

int jv_ir_has_schema(const char *op) {
    if (!op) return 0;
    schema s;
    for (size_t i = 0; i < sizeof SCHEMAS / sizeof SCHEMAS[0]; i++)
        if (schema_parse(SCHEMAS[i], &s) && !strcmp(s.op, op)) return 1;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Value texts of traced calls */

static const char *skip_ws(const char *s) {
    while (*s && isspace((unsigned char)*s)) s++;
    return s;
}

/* 1 when s is one integer ("3", "-1"), not a list */
static int text_int(const char *s, long long *v) {
    s = skip_ws(s);
    if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+')) return 0;
    return jv_parse_ints(s, v, 1) == 1;
}

/* 1 when s is a Python bool ("True", "False"; also lower case) */
static int text_bool(const char *s, int *v) {
    if (!strcmp(s, "True") || !strcmp(s, "true")) return *v = 1, 1;
    if (!strcmp(s, "False") || !strcmp(s, "false")) return *v = 0, 1;
    return 0;
}

/* 1 when s is one number (not a list, not a bool) */
static int text_num(const char *s, double *v) {
    s = skip_ws(s);
    if (!*s || *s == '[' || *s == '(') return 0;
    return jv_parse_double(s, v);
}

static int text_is_list(const char *s) {
    s = skip_ws(s);
    return *s == '[' || *s == '(';
}

/* Parses a number list "[2.0, 2.0]" / "(1, 2)" into out (at most max). Returns the count, or -1. */
static int text_doubles(const char *s, double *out, int max) {
    s = skip_ws(s);
    if (*s != '[' && *s != '(') return -1;
    char close = *s == '[' ? ']' : ')';
    s = skip_ws(s + 1);
    int n = 0;
    while (*s != close) {
        const char *e = s;
        while (*e && *e != ',' && *e != close) e++;
        char buf[64];
        if (!copy_trim(buf, sizeof buf, s, e) || !buf[0] || n >= max) return -1;
        if (!jv_parse_double(buf, &out[n])) return -1;
        n++;
        s = *e == ',' ? skip_ws(e + 1) : e;
        if (!*s) return -1;
    }
    return *skip_ws(s + 1) ? -1 : n;
}

#define LIST_MAX 64

/* 1 when traced argument a can be written as schema type t (lenient: an
 * absent or unrecorded value fits any position, written as null). */
static int arg_fits(const jv_arg *a, const atype *t, int lenient) {
    long long iv[LIST_MAX];
    int bv[LIST_MAX];
    double dv[LIST_MAX];
    if (a->kind == JV_ARG_NONE) return t->optional || lenient || t->k == K_GENERATOR;
    if (a->kind == JV_ARG_TENSORLIST) return 0; /* shapes are not kept: no IR form */
    if (a->kind == JV_ARG_TENSOR) return t->k == K_TENSOR;
    /* a value */
    const char *v = a->value;
    if (!*v) return lenient && !is_tensorish(t->k);
    switch (t->k) {
    case K_TENSOR:
    case K_TENSORLIST:
    case K_GENERATOR: return 0;
    case K_SCALARTYPE: return text_int(v, iv) || jv_dtype_parse(v) != JV_DT_UNKNOWN;
    case K_INT:
    case K_LAYOUT:
    case K_MEMFMT: return text_int(v, iv);
    case K_FLOAT: return text_num(v, dv);
    case K_BOOL: return text_bool(v, bv);
    case K_SCALAR: return text_num(v, dv) || text_bool(v, bv);
    case K_INTLIST: return jv_parse_ints(v, iv, LIST_MAX) >= 0;
    case K_BOOLLIST: return jv_parse_bools(v, bv, LIST_MAX) >= 0;
    case K_FLOATLIST:
    case K_SCALARLIST: return text_doubles(v, dv, LIST_MAX) >= 0;
    case K_STR: return !text_num(v, dv) && !text_bool(v, bv) && !text_is_list(v);
    case K_DEVICE:
    case K_OTHER: return 1;
    }
    return 0;
}

/* How well schema s fits call c: 0 no; else the pass that accepts it (1 best). */
static int schema_fits(const schema *s, const jv_opcall *c, int pass) {
    int exact = pass <= 2, lenient = pass == 2 || pass == 4;
    if (c->nargs > s->n || (exact && c->nargs != s->n)) return 0;
    for (int i = c->nargs; i < s->n; i++)
        if (!s->a[i].has_default) return 0;
    for (int i = 0; i < c->nargs; i++) {
        atype t;
        type_parse(s->a[i].type, &t);
        if (!arg_fits(&c->args[i], &t, lenient)) return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Tensor bounds, the same for the writer and the reader */

#define IR_MAX_BYTES ((double)(1ULL << 50))
#define IR_MAX_DIM 4611686018427387904.0 /* 2^62 */

/* Why tensor t cannot be in the IR (dims or strides negative or past 2^62,
 * more than 2^50 bytes of elements or of storage), or NULL. Without strides t
 * gets dense ones (which must be in range too). */
static const char *tensor_problem(jv_tensor *t) {
    if (t->ndim < 0 || t->ndim > JV_MAX_DIMS) return "a tensor with too many dims";
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] < 0 || (double)t->shape[i] > IR_MAX_DIM) return "a dim that is negative or past 2^62";
        if (t->has_strides && (t->strides[i] < 0 || (double)t->strides[i] > IR_MAX_DIM))
            return "a stride that is negative or past 2^62";
    }
    if (!t->has_strides) {
        jv_tensor_set_contiguous(t);
        for (int i = 0; i < t->ndim; i++)
            if ((double)t->strides[i] > IR_MAX_DIM) return "a shape whose dense strides pass 2^62";
    }
    /* elements, and elements spanned in memory, times the element size (in doubles: no overflow) */
    double bpe = (double)jv_dtype_size(t->dtype), numel = 1, extent = 1;
    for (int i = 0; i < t->ndim; i++) numel *= (double)t->shape[i];
    if (numel * bpe > IR_MAX_BYTES) return "a tensor of more than 2^50 bytes";
    if (numel > 0) {
        for (int i = 0; i < t->ndim; i++) extent += ((double)t->shape[i] - 1) * (double)t->strides[i];
        if (extent * bpe > IR_MAX_BYTES) return "a tensor storage of more than 2^50 bytes";
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Writer */

/* An integer as a JSON number that prints exactly (cJSON prints doubles past
 * 1e15 with an exponent). */
static cJSON *json_int(long long v) {
    if (v > -1000000000000000LL && v < 1000000000000000LL) return cJSON_CreateNumber((double)v);
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return cJSON_CreateRaw(buf);
}

/* A float that reads back as a float ("2.0", not "2"): Python's repr, raw.
 * Non-finite values (no JSON form) are written as the strings "inf", "-inf",
 * "nan", which the reader accepts for float arguments. */
static cJSON *json_float(double v) {
    char buf[40];
    jv_fmt_pyfloat(buf, sizeof buf, v);
    if (!isfinite(v)) return cJSON_CreateString(buf);
    return cJSON_CreateRaw(buf);
}

static cJSON *json_int_list(const long long *v, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) {
        cJSON *e = json_int(v[i]);
        if (!e || !cJSON_AddItemToArray(a, e)) {
            cJSON_Delete(e);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static cJSON *json_i64_list(const int64_t *v, int n) {
    long long tmp[JV_MAX_DIMS];
    for (int i = 0; i < n && i < JV_MAX_DIMS; i++) tmp[i] = v[i];
    return json_int_list(tmp, n);
}

/* A traced tensor as {"shape", "dtype", "strides", "init"}; NULL on allocation failure. */
static cJSON *tensor_json(const jv_arg *a, int write_only) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    jv_tensor t = a->t;
    if (!t.has_strides) jv_tensor_set_contiguous(&t); /* replay needs strides: a trace without them is dense */
    jv_dtype dt = jv_dtype_parse(a->type);
    const char *init = write_only ? NULL : (jv_dtype_is_float(dt) ? "normal" : "zeros");
    cJSON *shape = json_i64_list(t.shape, t.ndim), *strides = json_i64_list(t.strides, t.ndim);
    cJSON *in = init ? cJSON_CreateString(init) : cJSON_CreateNull();
    if (!shape || !strides || !in || !cJSON_AddItemToObject(o, "shape", shape)) goto fail;
    shape = NULL;
    if (!cJSON_AddStringToObject(o, "dtype", a->type) || !cJSON_AddItemToObject(o, "strides", strides)) goto fail;
    strides = NULL;
    if (!cJSON_AddItemToObject(o, "init", in)) goto fail;
    return o;
fail:
    cJSON_Delete(shape);
    cJSON_Delete(strides);
    cJSON_Delete(in);
    cJSON_Delete(o);
    return NULL;
}

/* The JSON value of traced argument a as type t; NULL on allocation failure
 * (callers check arg_fits first, so every text parses). */
static cJSON *value_json(const jv_arg *a, const atype *t, int write_only) {
    if (a->kind == JV_ARG_NONE || (a->kind == JV_ARG_VALUE && !a->value[0])) return cJSON_CreateNull();
    if (a->kind == JV_ARG_TENSOR) return tensor_json(a, write_only);
    const char *v = a->value;
    long long iv[LIST_MAX];
    int bv[LIST_MAX];
    double dv[LIST_MAX];
    int n;
    switch (t->k) {
    case K_SCALARTYPE:
        if (!text_int(v, iv)) { /* a dtype name: its ScalarType code */
            jv_dtype dt = jv_dtype_parse(v);
            for (long long code = 0; code < 64; code++)
                if (dt != JV_DT_UNKNOWN && jv_dtype_of_scalar_type(code) == dt) return json_int(code);
        }
        /* fall through */
    case K_INT:
    case K_LAYOUT:
    case K_MEMFMT:
        if (text_int(v, iv)) return json_int(iv[0]);
        break;
    case K_FLOAT:
        if (text_num(v, dv)) return json_float(dv[0]);
        break;
    case K_BOOL:
        if (text_bool(v, bv)) return cJSON_CreateBool(bv[0]);
        break;
    case K_INTLIST:
        n = jv_parse_ints(v, iv, LIST_MAX);
        if (n >= 0) return json_int_list(iv, n);
        break;
    case K_BOOLLIST: {
        n = jv_parse_bools(v, bv, LIST_MAX);
        if (n < 0) break;
        cJSON *l = cJSON_CreateArray();
        for (int i = 0; l && i < n; i++) {
            cJSON *e = cJSON_CreateBool(bv[i]);
            if (!e || !cJSON_AddItemToArray(l, e)) {
                cJSON_Delete(e);
                cJSON_Delete(l);
                return NULL;
            }
        }
        return l;
    }
    case K_FLOATLIST:
    case K_SCALARLIST: {
        n = text_doubles(v, dv, LIST_MAX);
        if (n < 0) break;
        cJSON *l = cJSON_CreateArray();
        for (int i = 0; l && i < n; i++) {
            cJSON *e = json_float(dv[i]);
            if (!e || !cJSON_AddItemToArray(l, e)) {
                cJSON_Delete(e);
                cJSON_Delete(l);
                return NULL;
            }
        }
        return l;
    }
    default: break;
    }
    /* Scalar, str, Device and anything else: by the text's own form */
    if (text_bool(v, bv)) return cJSON_CreateBool(bv[0]);
    if (text_int(v, iv)) return json_int(iv[0]);
    if (text_num(v, dv)) return json_float(dv[0]);
    size_t len = strlen(v);
    if (len >= 2 && (v[0] == '\'' || v[0] == '"') && v[len - 1] == v[0]) { /* a quoted str */
        char *s = malloc(len - 1);
        if (!s) return NULL;
        memcpy(s, v + 1, len - 2);
        s[len - 2] = 0;
        cJSON *r = cJSON_CreateString(s);
        free(s);
        return r;
    }
    return cJSON_CreateString(v);
}

/* 1 when argument i of op (base name after "::") is only written by it */
static int write_only_arg(const char *base, int i, const sch_arg *sa, const atype *t) {
    if (i == 0 && (!strcmp(base, "copy_") || !strcmp(base, "fill_") || !strcmp(base, "zero_"))) return 1;
    return sa->kwonly && t->writes; /* out=, grad_input=, save_mean= ... */
}

jv_status jv_ir_entry(const jv_opcall *c, void **entry, jv_err *err) {
    *entry = NULL;
    const char *op = c->name ? c->name : "";
    schema s, best;
    int found = 0, fit = 0;
    for (int pass = 1; pass <= 4 && !fit; pass++) {
        for (size_t i = 0; i < sizeof SCHEMAS / sizeof SCHEMAS[0]; i++) {
            if (!schema_parse(SCHEMAS[i], &s) || strcmp(s.op, op)) continue;
            found = 1;
            if (schema_fits(&s, c, pass)) {
                best = s;
                fit = 1;
                break;
            }
        }
        if (!found) JV_FAIL(err, JV_ERR_NOTFOUND, "%s: no ATen schema in the replay IR table", op);
    }
    if (!fit) {
        /* say what the call was, for the log */
        char sig[256];
        size_t len = 0;
        sig[0] = 0;
        for (int i = 0; i < c->nargs && len < sizeof sig; i++) {
            const jv_arg *a = &c->args[i];
            const char *k = a->kind == JV_ARG_TENSOR       ? "Tensor"
                            : a->kind == JV_ARG_TENSORLIST ? "TensorList"
                            : a->kind == JV_ARG_NONE       ? "None"
                                                           : a->value;
            len += (size_t)snprintf(sig + len, sizeof sig - len, "%s%.24s", i ? ", " : "", k);
        }
        JV_FAIL(err, JV_ERR_FORMAT, "%s: the call (%s) fits none of the op's ATen overloads", op, sig);
    }
    const char *base = strstr(op, "::");
    base = base ? base + 2 : op;

    /* a tensor the reader would refuse is refused here */
    for (int i = 0; i < c->nargs; i++) {
        if (c->args[i].kind != JV_ARG_TENSOR) continue;
        if (jv_dtype_parse(c->args[i].type) == JV_DT_UNKNOWN)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: argument '%s' has dtype '%s', which the replay IR does not know", op,
                    best.a[i].name, c->args[i].type);
        jv_tensor t = c->args[i].t;
        const char *why = tensor_problem(&t);
        if (why) JV_FAIL(err, JV_ERR_FORMAT, "%s: argument '%s' is %s", op, best.a[i].name, why);
    }

    cJSON *root = cJSON_CreateObject();
    if (!root || !cJSON_AddStringToObject(root, "op_name", op)) goto oom;
    cJSON *ir = cJSON_AddObjectToObject(root, "replay_ir");
    cJSON *pos = ir ? cJSON_AddArrayToObject(ir, "list_pos_args") : NULL;
    cJSON *kw = ir ? cJSON_AddArrayToObject(ir, "list_kwargs") : NULL;
    if (!pos || !kw) goto oom;
    for (int i = 0; i < c->nargs; i++) {
        const sch_arg *sa = &best.a[i];
        atype t;
        type_parse(sa->type, &t);
        cJSON *v = value_json(&c->args[i], &t, write_only_arg(base, i, sa, &t));
        if (!v) goto oom;
        cJSON *a = cJSON_CreateObject();
        if (!a || !cJSON_AddItemToArray(sa->kwonly ? kw : pos, a)) { /* from here a belongs to root */
            cJSON_Delete(a);
            cJSON_Delete(v);
            goto oom;
        }
        if (!cJSON_AddStringToObject(a, "arg_name", sa->name) || !cJSON_AddStringToObject(a, "arg_type", sa->type) ||
            !cJSON_AddItemToObject(a, "value", v)) {
            cJSON_Delete(v);
            goto oom;
        }
    }
    *entry = root;
    return JV_OK;
oom:
    cJSON_Delete(root);
    JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory writing its replay IR entry", op);
}

/* ------------------------------------------------------------------------ */
/* Reader */

/* A growing string. */
typedef struct {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_putn(sbuf *b, const char *s, size_t n) {
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) {
        b->oom = 1; /* never: callers format numbers */
        return;
    }
    sb_putn(b, buf, (size_t)n);
}

/* s as a JSON string literal */
static void sb_json_str(sbuf *b, const char *s) {
    sb_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            sb_putn(b, e, 2);
        } else if (*p < 0x20) {
            sb_printf(b, "\\u%04x", *p);
        } else {
            sb_putn(b, (const char *)p, 1);
        }
    }
    sb_puts(b, "\"");
}

/* Which numbers of the document were written as floats: cJSON keeps only the
 * value, so the text is scanned for number tokens (outside strings), in the
 * order a depth-first walk of the tree meets the number nodes. */
typedef struct {
    const cJSON *node;
    int is_float;
} numflag;

typedef struct {
    numflag *v; /* sorted by node; NULL when unknown (then integral values read as ints) */
    size_t n;
} numflags;

static void count_numbers(const cJSON *j, size_t *n) {
    for (; j; j = j->next) {
        if (cJSON_IsNumber(j)) (*n)++;
        if (j->child) count_numbers(j->child, n);
    }
}

static void collect_numbers(const cJSON *j, numflag *v, size_t *n) {
    for (; j; j = j->next) {
        if (cJSON_IsNumber(j)) v[(*n)++].node = j;
        if (j->child) collect_numbers(j->child, v, n);
    }
}

static int numflag_cmp(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const numflag *)a)->node, y = (uintptr_t)((const numflag *)b)->node;
    return x < y ? -1 : x > y;
}

/* 0 on allocation failure */
static int numflags_build(numflags *f, const cJSON *root, const char *text, size_t len) {
    f->v = NULL;
    f->n = 0;
    size_t n = 0;
    count_numbers(root, &n);
    if (n == 0) return 1;
    numflag *v = calloc(n, sizeof *v);
    if (!v) return 0;
    size_t k = 0;
    collect_numbers(root, v, &k);
    size_t t = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '"') {
            for (i++; i < len && text[i] != '"'; i++)
                if (text[i] == '\\') i++;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            int flt = 0;
            while (i < len && text[i] && strchr("0123456789+-.eE", text[i])) {
                if (text[i] == '.' || text[i] == 'e' || text[i] == 'E') flt = 1;
                i++;
            }
            i--;
            if (t < n) v[t].is_float = flt;
            t++;
        }
    }
    if (t != n) { /* not the tokens cJSON saw: fall back to the values */
        free(v);
        return 1;
    }
    qsort(v, n, sizeof *v, numflag_cmp);
    f->v = v;
    f->n = n;
    return 1;
}

/* 1 when number node j was written as a float; without flags, when it is not integral */
static int num_is_float(const numflags *f, const cJSON *j) {
    if (f->v) {
        numflag key = {j, 0};
        const numflag *r = bsearch(&key, f->v, f->n, sizeof *f->v, numflag_cmp);
        if (r) return r->is_float;
    }
    double d = j->valuedouble;
    return !(d == floor(d) && fabs(d) < 9e15);
}

/* Where a reader error is. */
typedef struct {
    const char *src;
    int entry;
    const char *op;  /* NULL before op_name is known */
    const char *arg; /* NULL outside an argument */
    jv_err *err;
} rctx;

static jv_status rfail(const rctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static jv_status rfail(const rctx *x, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char where[200];
    if (x->entry < 0) snprintf(where, sizeof where, "%s", x->src);
    else if (!x->op) snprintf(where, sizeof where, "%s: entry %d", x->src, x->entry);
    else if (!x->arg) snprintf(where, sizeof where, "%s: entry %d (%.80s)", x->src, x->entry, x->op);
    else snprintf(where, sizeof where, "%s: entry %d (%.80s): argument '%.40s'", x->src, x->entry, x->op, x->arg);
    return jv_err_set(x->err, JV_ERR_FORMAT, __FILE__, __LINE__, "%s: %s", where, msg);
}

/* dtype spellings of trace files and of TraceLens' IR (its build_tensor keys) */
static jv_dtype ir_dtype(const char *s) {
    jv_dtype d = jv_dtype_parse(s);
    if (d != JV_DT_UNKNOWN) return d;
    static const struct {
        const char *name;
        jv_dtype dt;
    } A[] = {
        {"char", JV_DT_I8},          {"torch.float", JV_DT_F32},     {"torch.half", JV_DT_F16},
        {"torch.double", JV_DT_F64}, {"torch.long", JV_DT_I64},      {"torch.int", JV_DT_I32},
        {"torch.short", JV_DT_I16},  {"torch.int16", JV_DT_I16},     {"torch.complex64", JV_DT_C64},
        {"torch.complex128", JV_DT_C128},
        {"torch.float8_e4m3fn", JV_DT_F8E4M3},     {"torch.float8_e5m2", JV_DT_F8E5M2},
        {"torch.float8_e4m3fnuz", JV_DT_F8E4M3FNUZ}, {"torch.float8_e5m2fnuz", JV_DT_F8E5M2FNUZ},
        {"Float", JV_DT_F32},        {"Double", JV_DT_F64},          {"Half", JV_DT_F16},
        {"BFloat16", JV_DT_BF16},    {"Long", JV_DT_I64},            {"Int", JV_DT_I32},
        {"Bool", JV_DT_BOOL},
    };
    for (size_t i = 0; i < sizeof A / sizeof A[0]; i++)
        if (!strcmp(s, A[i].name)) return A[i].dt;
    return JV_DT_UNKNOWN;
}

/* an integral JSON number in [lo, 2^62] */
static int json_i64(const cJSON *j, double lo, long long *v) {
    if (!cJSON_IsNumber(j)) return 0;
    double d = j->valuedouble;
    if (!(d >= lo && d <= IR_MAX_DIM) || d != floor(d)) return 0;
    *v = (long long)d;
    return 1;
}

/* Reads a tensor object into t and dtype; appends its dims and strides text. */
static jv_status read_tensor(const rctx *x, const cJSON *o, jv_tensor *t) {
    memset(t, 0, sizeof *t);
    if (!cJSON_IsObject(o)) return rfail(x, "not a tensor object ({\"shape\", \"dtype\", \"strides\"})");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(o, "shape");
    const cJSON *strides = cJSON_GetObjectItemCaseSensitive(o, "strides");
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(o, "dtype");
    const cJSON *init = cJSON_GetObjectItemCaseSensitive(o, "init");
    if (!cJSON_IsArray(shape)) return rfail(x, "tensor without a shape list");
    int nd = cJSON_GetArraySize(shape);
    if (nd > JV_MAX_DIMS) return rfail(x, "tensor with %d dims (at most %d)", nd, JV_MAX_DIMS);
    t->ndim = nd;
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, shape) {
        long long v;
        if (!json_i64(e, 0, &v)) return rfail(x, "dim %d is not a non-negative integer below 2^62", i);
        t->shape[i++] = v;
    }
    if (strides && !cJSON_IsNull(strides)) {
        if (!cJSON_IsArray(strides)) return rfail(x, "strides is not a list");
        int ns = cJSON_GetArraySize(strides);
        if (ns != nd) return rfail(x, "%d strides for %d dims", ns, nd);
        i = 0;
        cJSON_ArrayForEach(e, strides) {
            long long v;
            if (!json_i64(e, 0, &v)) return rfail(x, "stride %d is not a non-negative integer below 2^62", i);
            t->strides[i++] = v;
        }
        t->has_strides = 1;
    }
    if (!cJSON_IsString(dtype)) return rfail(x, "tensor without a dtype");
    t->dtype = ir_dtype(dtype->valuestring);
    if (t->dtype == JV_DT_UNKNOWN) return rfail(x, "unknown dtype '%.40s'", dtype->valuestring);
    if (init && !cJSON_IsNull(init) && !cJSON_IsString(init)) return rfail(x, "init is neither a string nor null");
    const char *why = tensor_problem(t);
    if (why) return rfail(x, "%s", why);
    return JV_OK;
}

static void sb_dims(sbuf *b, const int64_t *v, int n) {
    sb_puts(b, "[");
    for (int i = 0; i < n; i++) sb_printf(b, "%s%lld", i ? ", " : "", (long long)v[i]);
    sb_puts(b, "]");
}

/* A float value text that reads back as a float ("2.0", "1e-05", "inf"). */
static void sb_float(sbuf *b, double v) {
    char buf[40];
    sb_puts(b, jv_fmt_pyfloat(buf, sizeof buf, v));
}

/* The four trace texts of one call, built argument by argument. */
typedef struct {
    sbuf dims, types, strides, conc;
    int n;
} texts;

static void texts_next(texts *T) {
    if (T->n++) {
        sb_puts(&T->dims, ", ");
        sb_puts(&T->types, ", ");
        sb_puts(&T->strides, ", ");
        sb_puts(&T->conc, ", ");
    }
}

static void texts_free(texts *T) {
    free(T->dims.p);
    free(T->types.p);
    free(T->strides.p);
    free(T->conc.p);
}

/* Appends argument j's value text for a non-tensor type k (into v) and its
 * trace type text (into type). */
static jv_status value_text(const rctx *x, const cJSON *j, akind k, const numflags *nf, sbuf *v, const char **type) {
    long long iv;
    *type = "Scalar";
    if (cJSON_IsBool(j)) {
        if (k != K_BOOL && k != K_SCALAR && k != K_OTHER) return rfail(x, "a bool where its type says otherwise");
        sb_puts(v, cJSON_IsTrue(j) ? "True" : "False");
        return JV_OK;
    }
    if (cJSON_IsNumber(j)) {
        int flt = num_is_float(nf, j);
        switch (k) {
        case K_INT:
        case K_SCALARTYPE:
        case K_LAYOUT:
        case K_MEMFMT:
        case K_DEVICE:
        case K_INTLIST: /* a single int for an int[N] (repeated) */
            if (!json_i64(j, -IR_MAX_DIM, &iv)) return rfail(x, "not an integer");
            sb_printf(v, "%lld", iv);
            return JV_OK;
        case K_FLOAT:
            sb_float(v, j->valuedouble);
            return JV_OK;
        case K_SCALAR:
        case K_OTHER:
            if (!flt && json_i64(j, -IR_MAX_DIM, &iv)) sb_printf(v, "%lld", iv);
            else sb_float(v, j->valuedouble);
            return JV_OK;
        default: return rfail(x, "a number where its type says otherwise");
        }
    }
    if (cJSON_IsString(j)) {
        const char *s = j->valuestring;
        int special = !strcmp(s, "inf") || !strcmp(s, "-inf") || !strcmp(s, "nan");
        if ((k == K_FLOAT || k == K_SCALAR) && special) {
            sb_puts(v, s);
            return JV_OK;
        }
        if (k != K_STR && k != K_DEVICE && k != K_OTHER && k != K_SCALAR)
            return rfail(x, "a string where its type says otherwise");
        *type = "";
        if (k == K_SCALAR) *type = "Scalar"; /* a complex "(1+2j)" */
        sb_puts(v, s);
        return JV_OK;
    }
    if (cJSON_IsArray(j)) {
        if (k != K_INTLIST && k != K_BOOLLIST && k != K_FLOATLIST && k != K_SCALARLIST && k != K_OTHER)
            return rfail(x, "a list where its type says otherwise");
        if (cJSON_GetArraySize(j) > LIST_MAX) return rfail(x, "a list of more than %d values", LIST_MAX);
        *type = "ScalarList";
        sb_puts(v, "[");
        int i = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, j) {
            if (i++) sb_puts(v, ", ");
            if (cJSON_IsBool(e) && (k == K_BOOLLIST || k == K_SCALARLIST || k == K_OTHER)) {
                sb_puts(v, cJSON_IsTrue(e) ? "True" : "False");
            } else if (cJSON_IsNumber(e) && k != K_BOOLLIST) {
                int flt = num_is_float(nf, e);
                if (k == K_INTLIST) {
                    if (!json_i64(e, -IR_MAX_DIM, &iv)) return rfail(x, "list element %d is not an integer", i - 1);
                    sb_printf(v, "%lld", iv);
                } else if (k == K_FLOATLIST || flt || !json_i64(e, -IR_MAX_DIM, &iv)) {
                    sb_float(v, e->valuedouble);
                } else {
                    sb_printf(v, "%lld", iv);
                }
            } else {
                return rfail(x, "list element %d is not what the type says", i - 1);
            }
        }
        sb_puts(v, "]");
        return JV_OK;
    }
    return rfail(x, "a value of no argument form (an object?)");
}

/* Appends one IR argument to the trace texts. */
static jv_status read_arg(rctx *x, const cJSON *a, const numflags *nf, texts *T) {
    x->arg = NULL;
    if (!cJSON_IsObject(a)) return rfail(x, "argument %d is not an object", T->n);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(a, "arg_name");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(a, "arg_type");
    char nbuf[16];
    snprintf(nbuf, sizeof nbuf, "#%d", T->n);
    x->arg = cJSON_IsString(name) && name->valuestring[0] ? name->valuestring : nbuf;
    if (!cJSON_IsString(type)) return rfail(x, "no arg_type");
    if (!cJSON_HasObjectItem(a, "value")) return rfail(x, "no value");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, "value");
    atype t;
    type_parse(type->valuestring, &t);
    texts_next(T);
    if (cJSON_IsNull(v)) { /* None */
        sb_puts(&T->dims, "[]");
        sb_puts(&T->types, "\"\"");
        sb_puts(&T->strides, "[]");
        sb_puts(&T->conc, "\"\"");
        return JV_OK;
    }
    if (t.k == K_TENSOR) {
        jv_tensor tn;
        JV_CHECK(read_tensor(x, v, &tn));
        sb_dims(&T->dims, tn.shape, tn.ndim);
        sb_json_str(&T->types, jv_dtype_trace_name(tn.dtype));
        sb_dims(&T->strides, tn.strides, tn.ndim);
        sb_puts(&T->conc, "\"\"");
        return JV_OK;
    }
    if (t.k == K_TENSORLIST) {
        if (!cJSON_IsArray(v)) return rfail(x, "a tensor list that is not a list");
        sb_puts(&T->dims, "[");
        sb_puts(&T->strides, "[");
        int i = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, v) {
            if (i++) {
                sb_puts(&T->dims, ", ");
                sb_puts(&T->strides, ", ");
            }
            if (cJSON_IsNull(e)) {
                sb_puts(&T->dims, "[]");
                sb_puts(&T->strides, "[]");
                continue;
            }
            jv_tensor tn;
            JV_CHECK(read_tensor(x, e, &tn));
            sb_dims(&T->dims, tn.shape, tn.ndim);
            sb_dims(&T->strides, tn.strides, tn.ndim);
        }
        sb_puts(&T->dims, "]");
        sb_puts(&T->strides, "]");
        sb_puts(&T->types, "\"TensorList\"");
        sb_puts(&T->conc, "\"\"");
        return JV_OK;
    }
    if (t.k == K_GENERATOR) return rfail(x, "a Generator other than None");
    sbuf val = {0};
    const char *tt = "";
    jv_status st = value_text(x, v, t.k, nf, &val, &tt);
    if (st == JV_OK && val.oom) st = JV_ERR_NOMEM;
    if (st == JV_OK) {
        sb_puts(&T->dims, "[]");
        sb_json_str(&T->types, tt);
        sb_puts(&T->strides, "[]");
        sb_json_str(&T->conc, val.p ? val.p : "");
    }
    free(val.p);
    return st;
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* Fills op from entry e. On failure op may hold a name and a partial call (freed by the caller). */
static jv_status read_entry(rctx *x, const cJSON *e, const numflags *nf, jv_ir_op *op) {
    if (!cJSON_IsObject(e)) return rfail(x, "not an object");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "op_name");
    if (!cJSON_IsString(name) || !name->valuestring[0]) return rfail(x, "no op_name");
    op->op_name = dup_str(name->valuestring);
    if (!op->op_name) JV_FAIL(x->err, JV_ERR_NOMEM, "%s: out of memory", x->src);
    x->op = op->op_name;
    const cJSON *ir = cJSON_GetObjectItemCaseSensitive(e, "replay_ir");
    if (!ir) { /* {"repro_ir": {"op_name", "replay_ir"}} wrappers */
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "repro_ir");
        if (cJSON_IsObject(r)) ir = cJSON_GetObjectItemCaseSensitive(r, "replay_ir");
    }
    if (!cJSON_IsObject(ir)) return rfail(x, "no replay_ir object");
    const cJSON *pos = cJSON_GetObjectItemCaseSensitive(ir, "list_pos_args");
    const cJSON *kw = cJSON_GetObjectItemCaseSensitive(ir, "list_kwargs");
    if (!cJSON_IsArray(pos)) return rfail(x, "replay_ir has no list_pos_args list");
    if (kw && !cJSON_IsNull(kw) && !cJSON_IsArray(kw)) return rfail(x, "list_kwargs is not a list");
    int n = cJSON_GetArraySize(pos) + (cJSON_IsArray(kw) ? cJSON_GetArraySize(kw) : 0);
    if (n > JV_MAX_ARGS) return rfail(x, "%d arguments (at most %d)", n, JV_MAX_ARGS);
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(e, "jarvis");
    op->extra = cJSON_IsObject(extra) ? (void *)extra : NULL;

    texts T;
    memset(&T, 0, sizeof T);
    sb_puts(&T.dims, "[");
    sb_puts(&T.types, "[");
    sb_puts(&T.strides, "[");
    sb_puts(&T.conc, "[");
    jv_status st = JV_OK;
    const cJSON *a;
    cJSON_ArrayForEach(a, pos) {
        st = read_arg(x, a, nf, &T);
        if (st != JV_OK) break;
    }
    if (st == JV_OK && cJSON_IsArray(kw)) {
        cJSON_ArrayForEach(a, kw) {
            st = read_arg(x, a, nf, &T);
            if (st != JV_OK) break;
        }
    }
    x->arg = NULL;
    sb_puts(&T.dims, "]");
    sb_puts(&T.types, "]");
    sb_puts(&T.strides, "]");
    sb_puts(&T.conc, "]");
    if (st == JV_OK && (T.dims.oom || T.types.oom || T.strides.oom || T.conc.oom)) st = JV_ERR_NOMEM;
    if (st == JV_ERR_NOMEM) jv_err_set(x->err, JV_ERR_NOMEM, __FILE__, __LINE__, "%s: out of memory", x->src);
    if (st == JV_OK) {
        jv_err e2;
        jv_err_clear(&e2);
        st = jv_opcall_from_trace(&op->call, op->op_name, T.dims.p, T.types.p, T.strides.p, T.conc.p, &e2);
        if (st == JV_ERR_NOMEM) jv_err_set(x->err, st, __FILE__, __LINE__, "%s: out of memory", x->src);
        else if (st != JV_OK) rfail(x, "%s", e2.msg); /* never: the texts are built well-formed */
    }
    texts_free(&T);
    return st;
}

/* The list of entries of a document: an array; an object wrapping one (the
 * first array member whose first element has an op_name, else the first
 * array member); or a single entry object. */
static const cJSON *entry_list(const cJSON *root, int *single) {
    *single = 0;
    if (cJSON_IsArray(root)) return root;
    if (!cJSON_IsObject(root)) return NULL;
    if (cJSON_HasObjectItem(root, "op_name")) {
        *single = 1;
        return root;
    }
    const cJSON *m, *first = NULL;
    cJSON_ArrayForEach(m, root) {
        if (!cJSON_IsArray(m)) continue;
        if (!first) first = m;
        if (cJSON_HasObjectItem(m->child, "op_name")) return m; /* a list of entries */
    }
    return first;
}

jv_status jv_ir_parse(const char *text, size_t len, const char *source, jv_ir *ir, jv_err *err) {
    memset(ir, 0, sizeof *ir);
    rctx x = {source ? source : "replay IR", -1, NULL, NULL, err};
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
        const char *ep = cJSON_GetErrorPtr();
        if (ep && ep >= text && ep <= text + len) at = (size_t)(ep - text);
        return rfail(&x, "not valid JSON (near byte %zu)", at);
    }
    size_t used = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
    for (size_t i = used; i < len; i++) {
        if (!isspace((unsigned char)text[i]) && text[i] != 0) {
            cJSON_Delete(root);
            return rfail(&x, "not valid JSON (text after the document at byte %zu)", i);
        }
    }
    int single;
    const cJSON *list = entry_list(root, &single);
    if (!list) {
        cJSON_Delete(root);
        return rfail(&x, "not a replay IR (a JSON array of {\"op_name\", \"replay_ir\"} entries)");
    }
    numflags nf;
    if (!numflags_build(&nf, root, text, used)) {
        cJSON_Delete(root);
        JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", x.src);
    }
    int n = single ? 1 : cJSON_GetArraySize(list);
    ir->doc = root;
    jv_status st = JV_OK;
    if (n > 0) {
        ir->ops = calloc((size_t)n, sizeof *ir->ops);
        if (!ir->ops) {
            st = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "%s: out of memory", x.src);
            n = 0;
        }
    }
    const cJSON *e = single ? list : list->child;
    for (int i = 0; i < n && st == JV_OK; i++, e = e->next) {
        jv_ir_op *op = &ir->ops[i];
        x.entry = i;
        x.op = NULL;
        x.arg = NULL;
        op->index = i;
        st = read_entry(&x, e, &nf, op);
        ir->n = i + 1; /* a failed entry's partial call and name are freed with the rest */
    }
    free(nf.v);
    if (st != JV_OK) jv_ir_free(ir);
    return st;
}

void jv_ir_free(jv_ir *ir) {
    if (!ir) return;
    for (int i = 0; i < ir->n; i++) {
        jv_opcall_free(&ir->ops[i].call);
        free(ir->ops[i].op_name);
    }
    free(ir->ops);
    cJSON_Delete(ir->doc);
    memset(ir, 0, sizeof *ir);
}

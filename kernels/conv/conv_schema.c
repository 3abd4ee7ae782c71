/* conv_schema.c: the ATen schemas of the conv family's ops: func lines of
 * aten/src/ATen/native/native_functions.yaml (the .out overloads marked autogen there are written as torch
 * registers them); without a namespace the op is aten::. ir/ writes a call's replay IR entry with the
 * overload that fits it (jv_family.schemas). */
#include <stddef.h>

#include "conv.h"

/* clang-format off */
/* The ATen schemas of the conv family's ops, for writing replay IR (see jv_family.schemas). */
const char *const jv_conv_schemas[] = {
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
    NULL,
};
/* clang-format on */

/* batchnorm: the batch-normalization family (aten::batch_norm,
 * _batch_norm_impl_index, native_batch_norm, cudnn_batch_norm,
 * miopen_batch_norm, _native_batch_norm_legit(_no_training),
 * _batch_norm_with_update / _no_update and the backward ops): its descriptor, parsed from a call, and its FLOPs/bytes
 * model (the minimal bytes of REFERENCE.md section 2).
 * Convention: x is [N, C, *] (C = x.shape[1]); statistics are per channel
 * over the other dims; y = (x - mean) * invstd * weight + bias. */
#ifndef JV_BATCHNORM_H
#define JV_BATCHNORM_H

#include "jv_family.h"

/* The op a call names. */
typedef enum {
    JV_BN_BATCH_NORM,        /* aten::batch_norm (composite; owns the kernels as the outermost op) */
    JV_BN_IMPL_INDEX,        /* aten::_batch_norm_impl_index */
    JV_BN_NATIVE,            /* aten::native_batch_norm */
    JV_BN_CUDNN,             /* aten::cudnn_batch_norm */
    JV_BN_MIOPEN,            /* aten::miopen_batch_norm */
    JV_BN_LEGIT,             /* aten::_native_batch_norm_legit (with or without running stats) */
    JV_BN_LEGIT_NO_TRAINING, /* aten::_native_batch_norm_legit_no_training (eval) */
    JV_BN_WITH_UPDATE,       /* aten::_batch_norm_with_update (training, running stats updated) */
    JV_BN_NO_UPDATE,         /* aten::_batch_norm_no_update (eval) */
    JV_BN_NATIVE_BWD,        /* aten::native_batch_norm_backward */
    JV_BN_BWD,               /* aten::batch_norm_backward */
    JV_BN_CUDNN_BWD,         /* aten::cudnn_batch_norm_backward (training) */
    JV_BN_MIOPEN_BWD         /* aten::miopen_batch_norm_backward (training) */
} jv_batchnorm_op;

/* The implementation the op name commits to; ANY when the dispatcher still chooses. */
typedef enum { JV_BN_IMPL_ANY, JV_BN_IMPL_NATIVE, JV_BN_IMPL_CUDNN, JV_BN_IMPL_MIOPEN } jv_batchnorm_impl;

/* A parsed batch-norm call: everything the model, a CPU reference and a replay need. */
typedef struct {
    jv_batchnorm_op op;
    jv_batchnorm_impl impl;
    int bwd;              /* 1 for the backward ops */
    jv_tensor x;          /* the input (backward: the saved forward input) */
    jv_tensor dy;         /* backward: grad_output (forward: zeroed) */
    int64_t c;            /* channels, x.shape[1] */
    int64_t n;            /* elements of x */
    jv_layout layout;     /* memory layout of x (contiguous, channels_last, ...) */
    int has_weight;       /* weight given (affine) */
    int has_bias;         /* forward: bias given; backward: grad_bias requested (output_mask[2]) */
    int has_running;      /* running_mean and running_var given */
    int has_saved;        /* backward: save_mean / save_invstd given */
    jv_dtype param_dtype; /* weight's dtype (else bias', else running_mean's, else x's): weight/bias grads */
    jv_dtype weight_dtype, bias_dtype;
    jv_dtype running_dtype; /* running_mean / running_var */
    jv_dtype stat_dtype;    /* save_mean / save_invstd: fp32 (fp64 for double x) unless the call shows it */
    int training;           /* batch statistics ("True"); 0: running statistics (eval) */
    double momentum, eps;   /* momentum 0.1 and eps 1e-5 when the call does not say */
    int output_mask[3];     /* backward: grad_input, grad_weight, grad_bias (all 1 when absent) */
} jv_batchnorm_desc;

extern const jv_family jv_batchnorm_family;
/* Its ATen schemas (batchnorm_schema.c, NULL-terminated: jv_family.schemas). */
extern const char *const jv_batchnorm_schemas[];

/* ---- replay (batchnorm_ref.c) ---- */

/* The replay operands of a parsed batch-norm call, in this order.
 * Forward: "input" IN; "weight", "bias" IN when given; "running_mean"
 * (NORMAL) and "running_var" (POSITIVE) when given: INOUT in training (updated
 * in place), IN in eval; "out" OUT with the input's shape, dtype and strides
 * (channels_last stays channels_last; a layout that is not dense gets
 * contiguous strides); in training, for the ops that return them (every
 * forward op but aten::batch_norm), "save_mean" and "save_invstd" OUT, [C] of
 * desc->stat_dtype.
 * Backward: "grad_out" IN, "input" IN, "weight" IN when given,
 * "running_mean" / "running_var" IN when given, "save_mean" IN and
 * "save_invstd" IN (POSITIVE) when given; then per output_mask "grad_input"
 * (the input's strides and dtype), "grad_weight", "grad_bias" ([C] of
 * desc->param_dtype).
 * Inputs are filled NORMAL unless said otherwise. JV_ERR_FORMAT, with the
 * reason in err, for a dtype other than fp64, fp32, fp16, bf16; eval (forward
 * or backward) without running statistics; a training backward without
 * save_mean / save_invstd; a training forward over an empty batch, or with
 * running statistics and one value per channel (no unbiased variance); a
 * grad_out whose shape is not the input's. */
jv_status jv_batchnorm_operands(const jv_desc *d, jv_operands *out, jv_err *err);

/* The CPU reference, in double over any strides and fp64/fp32/fp16/bf16
 * storage (each operand at its own dtype), operands found by name as
 * jv_batchnorm_operands lays them out. Per channel c over the n = N*spatial
 * values of x:
 *   training forward: mean, biased var (two passes), invstd = 1/sqrt(var + eps),
 *     out = (x - mean) * invstd * w + b (w = 1, b = 0 when absent),
 *     save_mean = mean, save_invstd = invstd,
 *     running_mean = (1 - m) * running_mean + m * mean,
 *     running_var = (1 - m) * running_var + m * var * n / (n - 1);
 *   eval forward: the same out with mean = running_mean, invstd = 1/sqrt(running_var + eps);
 *   training backward (mean, invstd = save_mean, save_invstd as given):
 *     grad_input = w * invstd * (dy - sum(dy)/n - (x - mean) * invstd^2 * sum(dy*(x - mean))/n),
 *     grad_weight = sum(dy * (x - mean)) * invstd, grad_bias = sum(dy);
 *   eval backward (mean, invstd from the running statistics): grad_input = dy * w * invstd,
 *     grad_weight and grad_bias as above.
 * s is ignored: every output element is computed (batch norm reads all of x
 * for any one output anyway). JV_ERR_FORMAT when ops do not fit the call. */
jv_status jv_batchnorm_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                                 jv_err *err);

/* The reproducer hook (batchnorm_repro.c, jv_family.repro): an MIOpenDriver bnorm / bnormfp16 / bnormbfp16
 * line in spatial mode (training forward -F 1 -s 1 with -r for running statistics; inference -F 2 -r 1;
 * training backward -b 1 -s 1) with the input's sizes and NCHW / NHWC (NCDHW / NDHWC) layout; and the torch
 * call (nn.functional.batch_norm, or aten::native_batch_norm_backward). No tool line (amd_none) for fp64, an
 * inference-mode backward, or another layout. */
void jv_batchnorm_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r);

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_batchnorm_desc *jv_batchnorm_of(const jv_desc *d) {
    return (const jv_batchnorm_desc *)(const void *)d->data;
}

#endif

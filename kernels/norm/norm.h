/* norm: the per-sample normalization family: layer norm (aten::layer_norm,
 * native_layer_norm and its backward), group norm (aten::group_norm,
 * native_group_norm and its backward), RMS norm (aten::rms_norm,
 * _fused_rms_norm and its backward) and instance norm (aten::instance_norm):
 * its descriptor, parsed from a call, and its FLOPs/bytes model.
 * Convention: x holds `rows` independent normalizations of `size` elements
 * each (rows * size = n): layer/RMS norm over the trailing normalized_shape,
 * group norm over (C/groups)*HxW per (sample, group), instance norm over HxW
 * per (sample, channel). The weight and bias hold `param_numel` elements
 * (normalized_shape for layer/RMS norm, C for group/instance norm).
 * Replayed: the RMS norm forwards aten::rms_norm, vLLM's _C::rms_norm and _C::fused_add_rms_norm (operands,
 * CPU reference norm_ref.c, CPU kernel norm_cpu.c, device kernel norm.cu, reproducer norm_repro.c); the other
 * ops (layer, group and instance norm, RMS norm backward, aten::_fused_rms_norm, AITER's RMS norms) are
 * analysis only. y = x / sqrt(mean(x^2) + eps) * weight over each row; fused_add_rms_norm first sets
 * residual = input + residual (rounded to its dtype), then input = rms_norm(residual). */
#ifndef JV_NORM_H
#define JV_NORM_H

#include "jv_family.h"

/* The op a call names. */
typedef enum {
    JV_NORM_LAYER_NORM,            /* aten::layer_norm (composite; owns the kernels as the outermost op) */
    JV_NORM_NATIVE_LAYER_NORM,     /* aten::native_layer_norm */
    JV_NORM_NATIVE_LAYER_NORM_BWD, /* aten::native_layer_norm_backward */
    JV_NORM_GROUP_NORM,            /* aten::group_norm */
    JV_NORM_NATIVE_GROUP_NORM,     /* aten::native_group_norm */
    JV_NORM_NATIVE_GROUP_NORM_BWD, /* aten::native_group_norm_backward */
    JV_NORM_RMS_NORM,              /* aten::rms_norm */
    JV_NORM_FUSED_RMS_NORM,        /* aten::_fused_rms_norm */
    JV_NORM_FUSED_RMS_NORM_BWD,    /* aten::_fused_rms_norm_backward */
    JV_NORM_INSTANCE_NORM,         /* aten::instance_norm (its backward runs as a batch norm backward) */
    JV_NORM_SERVING_RMS_NORM,      /* vLLM's _C::rms_norm, AITER's aiter::rms_norm / aiter::rmsnorm */
    JV_NORM_SERVING_ADD_RMS_NORM   /* vLLM's _C::fused_add_rms_norm: residual += x, then x = rms_norm(residual) */
} jv_norm_op;

/* Which normalization: sets what a row is and which statistics exist. */
typedef enum { JV_NORM_KIND_LAYER, JV_NORM_KIND_GROUP, JV_NORM_KIND_RMS, JV_NORM_KIND_INSTANCE } jv_norm_kind;

/* A parsed norm call: everything the model, a CPU reference and a replay need. */
typedef struct {
    jv_norm_op op;
    jv_norm_kind kind;
    int bwd;             /* 1 for the backward ops */
    jv_tensor x;         /* the input (backward: the saved forward input) */
    jv_tensor dy;        /* backward: grad_output (forward: zeroed) */
    jv_layout layout;    /* memory layout of x */
    int64_t n;           /* elements of x */
    int64_t rows;        /* independent normalizations (statistics computed: mean/rstd entries) */
    int64_t size;        /* elements per normalization */
    int64_t channels;    /* the sheet's num_channels: normalized size (layer/RMS), C (group/instance) */
    int64_t groups;      /* group norm: groups; instance norm: C; else 0 */
    int normalized_ndim; /* layer/RMS norm: trailing dims normalized */
    int64_t normalized_shape[JV_MAX_DIMS];
    int64_t param_numel; /* elements of weight / bias */
    int has_weight;      /* weight given (affine) */
    int has_bias;        /* forward: bias given; backward: grad_bias requested (output_mask[2]) */
    jv_dtype weight_dtype, bias_dtype;
    jv_dtype param_dtype; /* weight's dtype (else bias', else x's): weight/bias grads */
    jv_dtype stat_dtype;  /* mean / rstd: fp32 (fp64 for double x) unless the call shows it */
    int training;         /* statistics from the input (instance norm: use_input_stats; RMS norm: 0, as TraceLens) */
    int has_running;      /* instance norm: running_mean and running_var given */
    jv_dtype running_dtype;
    double eps;         /* 1e-5 when the call does not say (RMS norm: 0 = the dtype's epsilon) */
    double momentum;    /* instance norm; 0.1 when absent */
    int output_mask[3]; /* backward: grad_input, grad_weight, grad_bias (all 1 when absent; RMS: no grad_bias) */
    int mask_len;       /* entries the op's output_mask has: 3, RMS norm 2 */
    int serving;        /* a serving stack's RMS norm kernel: no statistics written */
    int has_residual;   /* fused_add_rms_norm: a residual read, updated and written */
    jv_dtype residual_dtype;
    int vllm;     /* a vLLM _C op (replayed; AITER's are not) */
    jv_tensor wt; /* the weight as traced (has_weight) */
    jv_tensor y;  /* _C::rms_norm: the traced result (has_y) */
    int has_y;
    jv_tensor res; /* fused_add_rms_norm: the traced residual */
} jv_norm_desc;

extern const jv_family jv_norm_family;

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_norm_desc *jv_norm_of(const jv_desc *d) {
    return (const jv_norm_desc *)(const void *)d->data;
}

/* 1 when call g is replayed (see above). */
int jv_norm_replayable(const jv_norm_desc *g);

/* The epsilon an RMS norm call adds: its eps, or for aten::rms_norm without one the input dtype's machine
 * epsilon (torch.finfo(dtype).eps, as PyTorch). */
double jv_norm_rms_eps(const jv_norm_desc *g);

/* Operand indices of a replayed RMS norm (jv_norm_operands order: the op's argument order; -1 when absent). */
typedef struct {
    int x, w, y, res; /* input, weight, the output (fused_add_rms_norm: x itself), residual */
} jv_norm_slots;

/* The slots of call g's operands. */
jv_norm_slots jv_norm_slots_of(const jv_norm_desc *g);

/* The replay operands: aten::rms_norm input (IN), weight (IN, when given), out (OUT); _C::rms_norm result
 * (OUT), input, weight (IN); _C::fused_add_rms_norm input, residual (INOUT), weight (IN); traced strides.
 * JV_ERR_FORMAT "the norm family has no replay yet" for the other ops. */
jv_status jv_norm_operands(const jv_desc *d, jv_operands *out, jv_err *err);

/* The CPU reference (jv_family.reference, full: sum of squares per row in double, each output rounded once;
 * fused_add_rms_norm stores the residual rounded and normalizes the stored values). */
jv_status jv_norm_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                            jv_err *err);

/* The reproducer hook: torch.nn.functional.rms_norm (with residual.add_ and input.copy_ for
 * fused_add_rms_norm); no AMD vendor tool. */
void jv_norm_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r);

extern const char *const jv_norm_schemas[];

#endif

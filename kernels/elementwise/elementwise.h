/* elementwise: the unary and binary elementwise families (aten::copy_, relu,
 * silu, clamp, fill_, upsample_nearest*, ... and aten::add, mul, where,
 * comparisons, *_backward, addcmul, lerp, ...): one descriptor for both,
 * parsed from a call, complete enough for a CPU reference and a GPU replay,
 * and their one FLOPs/bytes model.
 * Convention: out = f(in[0], ..., in[arity-1]) elementwise over the numpy
 * broadcast of the tensor operands; a Scalar operand (a Python number) has
 * shape () and moves no bytes; a 0-d tensor operand moves one element. */
#ifndef JV_ELEMENTWISE_H
#define JV_ELEMENTWISE_H

#include "jv_family.h"

/* The elementwise operation. One value covers an op, its in-place variant
 * (inplace flag) and its out= variant. */
typedef enum {
    /* binary family */
    JV_EW_ADD,
    JV_EW_SUB,
    JV_EW_RSUB,
    JV_EW_MUL,
    JV_EW_DIV,
    JV_EW_WHERE,
    JV_EW_THRESHOLD_BACKWARD,
    JV_EW_SIGMOID_BACKWARD,
    JV_EW_TANH_BACKWARD,
    JV_EW_GELU_BACKWARD,
    JV_EW_SILU_BACKWARD,
    JV_EW_MAXIMUM,
    JV_EW_MINIMUM,
    JV_EW_EQ,
    JV_EW_NE,
    JV_EW_LT,
    JV_EW_LE,
    JV_EW_GT,
    JV_EW_GE,
    JV_EW_MASKED_FILL,
    JV_EW_ADDCMUL,
    JV_EW_ADDCDIV,
    JV_EW_LERP,
    /* unary family (pow: both forms, see elementwise.c) */
    JV_EW_POW,
    JV_EW_COPY,
    JV_EW_CLONE,
    JV_EW_CONTIGUOUS,
    JV_EW_TO,
    JV_EW_RELU,
    JV_EW_GELU,
    JV_EW_SILU,
    JV_EW_SIGMOID,
    JV_EW_TANH,
    JV_EW_NEG,
    JV_EW_RSQRT,
    JV_EW_SQRT,
    JV_EW_EXP,
    JV_EW_LOG,
    JV_EW_ABS,
    JV_EW_RECIPROCAL,
    JV_EW_CLAMP,
    JV_EW_CLAMP_MIN,
    JV_EW_CLAMP_MAX,
    JV_EW_FILL,
    JV_EW_ZERO,
    JV_EW_HARDTANH,
    JV_EW_LEAKY_RELU,
    JV_EW_ERF,
    JV_EW_SIN,
    JV_EW_COS,
    JV_EW_NAN_TO_NUM,
    JV_EW_UPSAMPLE_NEAREST1D,
    JV_EW_UPSAMPLE_NEAREST2D,
    JV_EW_UPSAMPLE_NEAREST3D,
    JV_EW_OP_COUNT
} jv_ew_op;

/* What an operand slot holds. */
typedef enum {
    JV_EW_ABSENT = 0, /* an optional operand left None (clamp without a min) */
    JV_EW_TENSOR,     /* a tensor (0-d allowed): t as traced */
    JV_EW_SCALAR      /* a Python number: no memory traffic; value when known */
} jv_ew_kind;

/* One operand of an elementwise call. */
typedef struct {
    jv_ew_kind kind;
    int arg;          /* its argument index in the call; -1 when implied (zero_'s 0) */
    jv_tensor t;      /* TENSOR: shape, strides, dtype as traced. SCALAR: ndim 0 and the number's
                       * Python type: JV_DT_F64 (float), JV_DT_I64 (int), JV_DT_BOOL, JV_DT_C128
                       * (complex), JV_DT_UNKNOWN when the trace has no concrete value */
    jv_layout layout; /* TENSOR: the layout of its strides */
    int has_value;    /* SCALAR: value is known (complex: real part only) */
    double value;
    char type[24]; /* the recorded type text ("c10::BFloat16", "Scalar"), truncated */
} jv_ew_operand;

/* A parsed elementwise call. Scalar arguments carry PyTorch's defaults when
 * the trace omits them. */
typedef struct {
    jv_ew_op op;
    const char *name;    /* the op name as matched (static storage): "aten::add_" */
    int binary;          /* 1: parsed by jv_binary_family; 0: jv_unary_family */
    int arity;           /* 1..3 operand slots in in[] (some may be ABSENT or SCALAR) */
    jv_ew_operand in[3]; /* operands in math order: copy_: in[0] = src; fill_/zero_: in[0] = the fill
                          * value; where: cond, self, other; masked_fill: self, mask, value; clamp:
                          * self, min, max; lerp: self, end, weight; addcmul: self, tensor1, tensor2 */
    jv_tensor out;       /* the output: broadcast shape of the operands (upsample: the resized shape),
                          * its dtype (PyTorch type promotion; bool for comparisons) and strides */
    jv_layout out_layout;
    int out_arg;      /* argument the output is (in-place self, copy_ dst, out=) or, for
                       * aten::copy, whose shape and strides it copies; -1 for a new tensor */
    int inplace;      /* the name ends with '_': the output is self */
    int write_only;   /* fill_/zero_: the output is written without being read */
    int64_t n_out;    /* elements of out */
    jv_dtype compute; /* the first tensor argument's dtype (TraceLens: Input type[0]) */
    /* scalar arguments */
    double alpha;         /* add/sub/rsub: other's multiplier (1) */
    double threshold;     /* threshold_backward: grad where self <= threshold is zeroed (0 if unknown) */
    int has_min, has_max; /* clamp family / hardtanh: a Scalar bound is known */
    double min, max;      /* hardtanh defaults -1, 1 */
    double fill;          /* fill_ / masked_fill Scalar value; zero_ 0 (has_fill) */
    int has_fill;
    double slope;     /* leaky_relu negative_slope (0.01) */
    double value;     /* addcmul/addcdiv value (1) */
    int has_exponent; /* pow: the exponent is a Scalar with a known value */
    double exponent;
    int has_weight; /* lerp: the weight is a Scalar with a known value */
    double weight;
    double nan, posinf, neginf; /* nan_to_num: nan (0), posinf/neginf when has_ (else dtype max/lowest) */
    int has_posinf, has_neginf;
    int gelu_tanh;    /* gelu / gelu_backward approximate='tanh' */
    int rounding;     /* div rounding_mode: 0 true division, 1 'trunc', 2 'floor' */
    int spatial;      /* upsample: 1, 2 or 3 resized trailing dims */
    double scales[3]; /* upsample: scale per resized dim, 0 when not given */
} jv_elementwise_desc;

extern const jv_family jv_unary_family;
extern const jv_family jv_binary_family;
/* Their ATen schemas (elementwise_schema.c, NULL-terminated: jv_family.schemas). */
extern const char *const jv_unary_schemas[];
extern const char *const jv_binary_schemas[];

/* Replay operands of a parsed elementwise call (either family; elementwise_ref.c),
 * in argument order: every tensor operand in[k] as an IN operand named after
 * its ATen argument ("self", "other", "condition", "mask", "src", "grad_output",
 * "tensor1", "end", "weight", "min", "max", "exponent", ...), initialised
 * JV_INIT_MASK for bool tensors, where's condition and masked_fill's mask,
 * JV_INIT_POSITIVE for the inputs of sqrt, rsqrt, log and a pow base (so that
 * random data gives no NaN), else JV_INIT_NORMAL. Scalars are not operands.
 * The output: in-place ops write "self" (INOUT); copy_ / fill_ / zero_ write
 * "self" without reading it (OUT, JV_INIT_NONE); every other call (out=
 * included) writes an "out" OUT operand last, with desc->out's shape, dtype
 * and strides. aten::copy (functional) lists "self" (IN), "src", "out".
 * JV_ERR_FORMAT with the reason in err when the call cannot be replayed: a
 * Scalar whose value the trace does not record, a dtype that is unknown or
 * not numeric (fp8, complex), an output of unknown dtype. */
jv_status jv_elementwise_operands(const jv_desc *d, jv_operands *out, jv_err *err);

/* The operands as jv_elementwise_operands lists them (into ops), and where
 * each operand slot in[k] (slot[k], -1 when not a tensor) and the output
 * (*out) are among them: the one mapping device code and the reference share. */
jv_status jv_elementwise_slots(const jv_desc *d, int slot[3], int *out, jv_operands *ops, jv_err *err);

/* The strides of operand t broadcast against the output's dims, into bst[out->ndim] (0 where t's dim is 1 or
 * missing: its leading dims are aligned to the right); 0 when t does not broadcast to out. The CPU reference
 * and the device kernels' planning both read operands this way. */
int jv_elementwise_broadcast_strides(const jv_tensor *t, const jv_tensor *out, int64_t *bst);

/* The output's dims of size > 1 in its memory order (by stride, outermost first; stable), merged where each of
 * the nstream streams is contiguous across them (bst[s][dd]: stream s's stride over output dim dd; stream 0 is
 * usually the output itself), into shape[] and st[s][], outermost first. A single element gives one dim of
 * size 1 and stride 0. Returns the number of dims (>= 1). The reference, the CPU kernels and the device
 * kernels' planning all walk an output this way. */
int jv_elementwise_merge_dims(const jv_tensor *out, int nstream, const int64_t (*bst)[JV_MAX_DIMS], int64_t *shape,
                              int64_t (*st)[JV_MAX_DIMS]);

/* The CPU reference of a parsed elementwise call over operands laid out as
 * jv_elementwise_operands lists them (their strides and dtypes may differ
 * from the descriptor's; their shapes may not): reads the inputs with
 * jv_dtype_load semantics, computes in double with PyTorch's semantics for
 * every jv_ew_op (numpy broadcasting, 0-d tensors and Scalars broadcast),
 * and stores the output rounded to its dtype. An in-place self is read
 * before it is written, element by element. s naming the output operand:
 * only its listed logical indices are computed (others left untouched);
 * s NULL or naming another operand: every output element. JV_ERR_FORMAT when
 * the operands do not match the call or the call cannot be replayed;
 * JV_ERR_INTERNAL for a NULL buffer of a non-empty operand or a sample index
 * out of range. */
jv_status jv_elementwise_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                                   jv_err *err);

/* The reproducer hook of both families (elementwise_repro.c, jv_family.repro): the torch call
 * (torch.ops.aten.<op> with the call's tensors and Scalars in argument order and its scalar arguments: alpha,
 * rounding_mode, threshold, approximate, negative_slope, min/max_val, value, nan/posinf/neginf, output_size;
 * out= when traced so; copy_/fill_/zero_ as the tensor methods); no AMD tool line (amd_none says so). */
void jv_elementwise_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r);

/* The descriptor inside a parsed jv_desc of either family. */
static inline const jv_elementwise_desc *jv_elementwise_of(const jv_desc *d) {
    return (const jv_elementwise_desc *)(const void *)d->data;
}

#endif

/* conv: the convolution family (aten::convolution and aten::convolution_backward,
 * and the composites and backend ops around them: aten::_convolution,
 * aten::conv1d/2d/3d, aten::conv_transpose1d/2d/3d, aten::_convolution_mode,
 * aten::cudnn_convolution(_transpose), aten::miopen_convolution(_transpose),
 * aten::miopen_depthwise_convolution): its descriptor, parsed from a call,
 * and its FLOPs/bytes model.
 * Convention (PyTorch's): x [N, C_in, s...]; weight [C_out, C_in/groups, k...]
 * for a normal conv, [C_in, C_out/groups, k...] for a transposed one;
 * out [N, C_out, o...] with, per spatial dim,
 *   normal:     o = floor((s + 2p - d*(k-1) - 1) / stride) + 1
 *   transposed: o = (s-1)*stride - 2p + d*(k-1) + output_padding + 1.
 * A backward call (convolution_backward) describes the forward conv it
 * differentiates plus grad_out and the output_mask of the grads it computes. */
#ifndef JV_CONV_H
#define JV_CONV_H

#include "jv_family.h"

typedef enum {
    JV_CONV_CONVOLUTION,      /* aten::convolution */
    JV_CONV__CONVOLUTION,     /* aten::_convolution */
    JV_CONV_CONVND,           /* aten::conv1d / conv2d / conv3d */
    JV_CONV_CONV_TRANSPOSEND, /* aten::conv_transpose1d / 2d / 3d */
    JV_CONV_CONVOLUTION_MODE, /* aten::_convolution_mode (string padding) */
    JV_CONV_CUDNN,            /* aten::cudnn_convolution */
    JV_CONV_CUDNN_TRANSPOSE,  /* aten::cudnn_convolution_transpose */
    JV_CONV_MIOPEN,           /* aten::miopen_convolution, aten::miopen_depthwise_convolution */
    JV_CONV_MIOPEN_TRANSPOSE, /* aten::miopen_convolution_transpose */
    JV_CONV_BACKWARD          /* aten::convolution_backward */
} jv_conv_op;

/* How the padding was given: explicit numbers, or PyTorch's "valid" / "same"
 * strings (conv1d/2d/3d.padding and _convolution_mode). With "same", padding[]
 * holds the left padding d*(k-1)/2 and out = in (PyTorch pads one more on the
 * right when d*(k-1) is odd). */
typedef enum { JV_CONV_PAD_EXPLICIT = 0, JV_CONV_PAD_VALID, JV_CONV_PAD_SAME } jv_conv_pad_mode;

#define JV_CONV_MAX_SPATIAL 3

typedef struct {
    jv_conv_op op;
    int nd;                   /* spatial dims, 1..3 */
    int transposed;           /* 1: transposed (fractionally strided) convolution */
    int unbatched;            /* 1: the call's input had no batch dim; x (and out) carry N = 1 here */
    jv_tensor x;              /* input [N, C_in, s...] as traced (strides say the layout) */
    jv_tensor w;              /* weight as traced */
    int has_bias;             /* forward: a bias tensor was passed; backward: grad_bias computed (output_mask[2]) */
    jv_tensor bias;           /* forward bias [C_out] (ndim 0 when none or backward) */
    int has_grad_out;         /* backward: grad_out was traced */
    jv_tensor grad_out;       /* backward: grad of the output [N, C_out, o...] */
    int64_t n, c_in, c_out;   /* batch, input and output channels */
    int64_t out[JV_MAX_DIMS]; /* output shape [N, C_out, o...] (nd + 2 dims) */
    int64_t stride[JV_CONV_MAX_SPATIAL];
    int64_t padding[JV_CONV_MAX_SPATIAL];
    int64_t dilation[JV_CONV_MAX_SPATIAL];
    int64_t output_padding[JV_CONV_MAX_SPATIAL]; /* traced value (used only when transposed) */
    jv_conv_pad_mode pad_mode;
    int64_t groups;
    int output_mask[3];                       /* backward: grad_input, grad_weight, grad_bias; forward: all 0 */
    jv_layout layout;                         /* layout of x: JV_LAYOUT_CHANNELS_LAST for NHWC / NDHWC */
    jv_layout w_layout;                       /* layout of the weight */
    jv_dtype dtype;                           /* x's dtype: the compute dtype, and the output's */
    int benchmark, deterministic, allow_tf32; /* backend flags when traced (_convolution, cudnn, miopen); -1 unknown */
} jv_conv_desc;

extern const jv_family jv_conv_family;
/* Its ATen schemas (conv_schema.c, NULL-terminated: jv_family.schemas). */
extern const char *const jv_conv_schemas[];

/* The replay operands of a parsed conv call (conv_ref.c), in this order.
 * Forward (normal and transposed): "input" IN (x as traced; an unbatched call
 * gets its N = 1 batch dim), "weight" IN, "bias" IN when one was passed, "out"
 * OUT [N, C_out, o...] in x's dtype, channels_last (NHWC / NDHWC) when x is,
 * else contiguous. Backward (convolution_backward): "grad_output" IN (as traced;
 * else dense [N, C_out, o...] in x's layout and dtype), "input" IN, "weight" IN,
 * then per output_mask "grad_input" OUT (x's shape, dense in x's layout),
 * "grad_weight" OUT (w's shape, dense in w's layout), "grad_bias" OUT [C_out].
 * JV_ERR_FORMAT (reason in err) for a dtype other than fp32/fp16/bf16/fp64,
 * input/weight/bias/grad_output dtypes that differ, or an empty output_mask. */
jv_status jv_conv_operands(const jv_desc *d, jv_operands *out, jv_err *err);

/* A pointwise convolution as GEMMs: one out[M, N] = a[M, K] @ b[K, N] per computed output (forward: out;
 * backward: grad_input, grad_weight), a and b 2-D views of conv operands (shape, strides, dtype; the GEMM
 * family's jv_gemm_desc_mm makes an aten::mm of them), and per GEMM operand (a, b, out) the conv operand
 * (jv_conv_operands' index) whose buffer it reads or writes; out is dense row-major [M, N]. Over
 * channels_last data, with M = N * (spatial size), x is a row-major [M, C_in], grad_output and out
 * [M, C_out], and the weight a row-major [C_out, C_in], so
 *   forward      out[M, C_out]            = x[M, C_in] @ weight^T[C_in, C_out]
 *   grad_input   grad_input[M, C_in]      = grad_output[M, C_out] @ weight[C_out, C_in]
 *   grad_weight  grad_weight[C_out, C_in] = grad_output^T[C_out, M] @ x[M, C_in]
 * which is how cuDNN's GEMM engines compute PyTorch's 1x1 convolutions. */
typedef struct {
    jv_tensor a, b;
    int src[3]; /* conv operand index of a, b and out */
} jv_conv_gemm_step;

typedef struct {
    int n; /* 1 (forward, or a backward computing one gradient) or 2 */
    jv_conv_gemm_step step[2];
} jv_conv_gemm;

/* Fills *g and returns 1 when the parsed conv call d over ops (as jv_conv_operands lays them out) is a
 * pointwise convolution the GEMMs above compute: not transposed, one group, every kernel dim 1, stride 1,
 * no padding, no bias (forward) or grad_bias (backward), fp16 or bf16 operands of one dtype, x, out,
 * grad_output and grad_input dense channels_last, the weight dense with C_in innermost. Else returns 0
 * with the reason in why (cap bytes). */
int jv_conv_as_gemm(const jv_desc *d, const jv_operands *ops, jv_conv_gemm *g, char *why, size_t cap);

/* The CPU reference of a parsed conv call (jv_family.reference): PyTorch's
 * semantics (groups, stride, padding incl. "same" with its extra right pad,
 * dilation, output_padding, bias, 1d to 3d, normal and transposed, each grad of
 * the backward only when its output_mask bit is set) accumulated in double,
 * for any operand strides and fp32/fp16/bf16/fp64 storage. ops must be the
 * list jv_conv_operands gives for d (strides and dtypes may differ; names,
 * roles and shapes may not: JV_ERR_FORMAT). s non-NULL naming an OUT operand:
 * only its elements s->idx are computed (and no other output), each equal bit
 * for bit to the full run's; otherwise every output element is written.
 * JV_ERR_NOMEM when its double buffers (one batch entry of each activation and
 * the weight) cannot be allocated. */
jv_status jv_conv_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                            jv_err *err);

/* The reproducer hook (conv_repro.c, jv_family.repro): an MIOpenDriver conv / convfp16 / convbfp16 line
 * (forward -F 1; backward -F 2 data, 4 weights, 6 both) with the call's sizes, padding, strides, dilations,
 * groups, conv / trans mode, bias, and NCHW / NHWC (NCDHW / NDHWC) layouts from the strides; and the torch
 * call (torch.ops.aten.convolution / convolution_backward, or nn.functional.convNd for padding='same').
 * No tool line (amd_none) for fp64, a layout neither contiguous nor channels_last, an odd 'same' padding,
 * or a backward that computes only grad_bias. */
void jv_conv_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r);

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_conv_desc *jv_conv_of(const jv_desc *d) {
    return (const jv_conv_desc *)(const void *)d->data;
}

/* 1 when a GPU kernel name is a layout conversion that runs around convolutions
 * (batched_transpose*, nchwToNhwc*, nhwcToNchw*, transpose_*, *Transpose*). */
int jv_is_layout_kernel(const char *name);

#endif

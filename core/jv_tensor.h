/* jv_tensor: a tensor descriptor (shape, strides, dtype) and what can be told
 * from it without data: element counts, storage extent, memory layout
 * (contiguous, channels_last, transposed), broadcasting. */
#ifndef JV_TENSOR_H
#define JV_TENSOR_H

#include <stdint.h>

#include "jv_dtype.h"

#define JV_MAX_DIMS 8

typedef struct {
    int ndim; /* 0 for a scalar tensor */
    int64_t shape[JV_MAX_DIMS];
    int64_t strides[JV_MAX_DIMS]; /* in elements; valid when has_strides */
    int has_strides;              /* 0: strides unknown (treated as contiguous) */
    jv_dtype dtype;
} jv_tensor;

typedef enum {
    JV_LAYOUT_CONTIGUOUS = 0, /* row-major dense (or strides unknown) */
    JV_LAYOUT_CHANNELS_LAST,  /* 4-d NHWC or 5-d NDHWC in memory, not also contiguous */
    JV_LAYOUT_TRANSPOSED,     /* the last two dims swapped (a column-major matrix) */
    JV_LAYOUT_BROADCAST,      /* a zero stride on a dim of size > 1 (expanded view) */
    JV_LAYOUT_STRIDED         /* any other strides */
} jv_layout;

/* Number of elements, or -1 when a dim is negative or the product overflows int64. */
int64_t jv_tensor_numel(const jv_tensor *t);

/* 1 when a and b have the same rank and shape (strides and dtype aside). */
int jv_tensor_same_shape(const jv_tensor *a, const jv_tensor *b);

/* 1 when t's strides cover its numel elements exactly once, without gaps or
 * overlaps, in any dim order (a permutation of a contiguous layout; size-1
 * dims ignored); 1 for an empty tensor. */
int jv_tensor_dense(const jv_tensor *t);

/* 1 when the trailing k dims of t are row-major dense (unit stride innermost, each stride the product of the
 * sizes inside it; size-1 dims ignored); 1 for k <= 0. */
int jv_tensor_tail_dense(const jv_tensor *t, int k);

/* Fills contiguous (row-major) strides for t's shape. */
void jv_tensor_set_contiguous(jv_tensor *t);

/* Elements spanned in memory: 1 + sum((shape-1)*|stride|) (0 when numel is 0,
 * -1 on overflow). Equals numel for dense layouts. */
int64_t jv_tensor_extent(const jv_tensor *t);

/* The layout of t's strides (dims of size 1 are ignored). */
jv_layout jv_tensor_layout(const jv_tensor *t);

/* A short name for a layout ("contiguous", "channels_last", ...). */
const char *jv_layout_name(jv_layout l);

/* Broadcasts the shapes of a and b (numpy rules) into out (ndim and shape;
 * strides left contiguous, dtype left unset). Returns 0 when the shapes do not
 * broadcast. */
int jv_tensor_broadcast(const jv_tensor *a, const jv_tensor *b, jv_tensor *out);

/* Storage offset (in elements) of the element at multi-index idx[0..ndim-1]:
 * sum(idx[i] * stride[i]), row-major strides when t has none. */
int64_t jv_tensor_offset(const jv_tensor *t, const int64_t *idx);

/* Storage offset of the element at row-major logical index i (0 <= i < numel):
 * the i-th element when t is walked in shape order whatever its strides. */
int64_t jv_tensor_offset_at(const jv_tensor *t, int64_t i);

/* Splits row-major logical index i into a multi-index idx[0..ndim-1]. */
void jv_tensor_unravel(const jv_tensor *t, int64_t i, int64_t *idx);

/* PyTorch's suggest_memory_format() from t's strides alone: 1 when a 4-d t is
 * channels_last or a 5-d t channels_last_3d by c10's
 * is_channels_last_strides_2d_s4 / _3d_s5 (C, then the spatial dims from the
 * last, then N, each stride at least the running minimum; a zero C stride, a
 * size-0 dim, or N's stride equal to C's (the ambiguous N111 case) say
 * contiguous). 0 for other ranks and for tensors without strides. */
int jv_tensor_suggest_channels_last(const jv_tensor *t);

/* The strides PyTorch hands cuDNN for t (ATen's cudnn/Descriptors
 * fixSizeOneDimStride): t's strides (row-major when it has none), except that
 * each dim of size 1 gets the product of the sizes of the dims inner to it,
 * walking dims innermost first in the memory format's order: channels_last
 * (channels_last 1): C, then dims ndim-1 .. 2, then N; contiguous: dims
 * ndim-1 .. 2, then C, then N (a 1-d t: dim 0). Sizes of 1 do not multiply.
 * Writes t->ndim values to out. */
void jv_tensor_cudnn_strides(const jv_tensor *t, int channels_last, int64_t *out);

#endif

/* reduce: the reduction family (aten::sum, mean, max, min, amax, amin, prod,
 * norm, linalg_vector_norm, std, var, var_mean, std_mean, logsumexp, cumsum,
 * cumprod, argmax, argmin, any, all; aten::linalg_norm when no child op
 * carries the kernels): its descriptor, parsed from a call with the reduced
 * dims and keepdim read from Concrete Inputs, and its FLOPs/bytes model.
 * Convention: out = reduce(in) over the dims flagged in `reduced` (all of
 * them when `full`); cumsum/cumprod are scans (out has in's shape); binary
 * aten::max/min(self, other) are elementwise (out = broadcast shape). */
#ifndef JV_REDUCE_H
#define JV_REDUCE_H

#include "jv_family.h"

typedef enum {
    JV_REDUCE_SUM,
    JV_REDUCE_MEAN,
    JV_REDUCE_MAX,
    JV_REDUCE_MIN,
    JV_REDUCE_AMAX,
    JV_REDUCE_AMIN,
    JV_REDUCE_PROD,
    JV_REDUCE_NORM,
    JV_REDUCE_LINALG_VECTOR_NORM,
    JV_REDUCE_LINALG_NORM,
    JV_REDUCE_STD,
    JV_REDUCE_VAR,
    JV_REDUCE_VAR_MEAN,
    JV_REDUCE_STD_MEAN,
    JV_REDUCE_LOGSUMEXP,
    JV_REDUCE_CUMSUM,
    JV_REDUCE_CUMPROD,
    JV_REDUCE_ARGMAX,
    JV_REDUCE_ARGMIN,
    JV_REDUCE_ANY,
    JV_REDUCE_ALL,
    JV_REDUCE_TOPK
} jv_reduce_op;

typedef struct {
    jv_reduce_op op;
    jv_tensor in; /* self (binary max/min: the first operand) */
    int binary;   /* max/min(self, other): elementwise, other is the second operand */
    jv_tensor other;
    int full;         /* every dim reduced (no dim, "None", "" or []) */
    unsigned reduced; /* bit i: dim i of in is reduced */
    int keepdim;
    int scan;            /* cumsum/cumprod: one output per input element */
    jv_tensor out;       /* the result's shape (keepdim honoured) and dtype */
    int n_outputs;       /* 2: max/min.dim (values + int64 indices), var_mean/std_mean */
    jv_dtype out2_dtype; /* dtype of the second output */
    int64_t n_in, n_out; /* input and output element counts */
    char in_type[48];    /* self's traced type text (printed when its dtype is unknown) */
} jv_reduce_desc;

extern const jv_family jv_reduce_family;

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_reduce_desc *jv_reduce_of(const jv_desc *d) {
    return (const jv_reduce_desc *)(const void *)d->data;
}

#endif

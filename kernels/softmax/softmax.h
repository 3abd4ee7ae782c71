/* softmax: the softmax family (aten::_softmax, aten::_log_softmax and their
 * _backward_data ops; aten::softmax / aten::log_softmax when no child op
 * carries the kernels): its descriptor, parsed from a call, and its
 * FLOPs/bytes model. TraceLens has no softmax model.
 * Convention: forward out = softmax(in, dim) (log_softmax: its log), n =
 * elements of in; backward grad_input = f(grad_output, output) along dim. */
#ifndef JV_SOFTMAX_H
#define JV_SOFTMAX_H

#include "jv_family.h"

typedef enum { JV_SOFTMAX_FWD, JV_SOFTMAX_WEAK, JV_SOFTMAX_BWD } jv_softmax_kind;

typedef struct {
    jv_softmax_kind kind;
    int log; /* log_softmax */
    int bwd;
    jv_tensor in;       /* forward: self; backward: grad_output */
    jv_tensor saved;    /* backward: the forward's output */
    int has_dim;        /* 0: dim not recorded (traces without Concrete Inputs) */
    int dim;            /* normalised (>= 0) */
    jv_dtype out_dtype; /* forward: output; backward: grad_input (input_dtype) */
    int64_t n;          /* elements */
} jv_softmax_desc;

extern const jv_family jv_softmax_family;

/* The descriptor inside a parsed jv_desc of this family. */
static inline const jv_softmax_desc *jv_softmax_of(const jv_desc *d) {
    return (const jv_softmax_desc *)(const void *)d->data;
}

#endif

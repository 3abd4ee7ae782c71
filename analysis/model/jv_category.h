/* jv_category: the op category of a launcher op (GEMM, CONV_fwd, NORM_bwd,
 * elementwise, reduce, SDPA_fwd, ... , other), with TraceLens' names and rules
 * so that ops_summary_by_category reads the same. */
#ifndef JV_CATEGORY_H
#define JV_CATEGORY_H

/* Returns the category of op name; first_kernel is the name of the op's first
 * direct GPU event (used for native kernels of ops without a rule), or NULL.
 * The returned string is static. */
const char *jv_op_category(const char *name, const char *first_kernel);

/* 1 when op name is a backward op by the categorizer's rule (a name ending in _backward, Backward or _bwd, or
 * one of the SDPA backward ops): for ops no family parses, whose model would say. */
int jv_op_is_backward(const char *name);

#endif

/* jv_category: the op category of a launcher op (GEMM, CONV_fwd, NORM_bwd,
 * elementwise, reduce, SDPA_fwd, ... , other), with TraceLens' names and rules
 * so that ops_summary_by_category reads the same. */
#ifndef JV_CATEGORY_H
#define JV_CATEGORY_H

/* The categories, in no particular order (jv_opcat_name gives TraceLens' name of each). */
typedef enum {
    JV_OPCAT_GEMM,
    JV_OPCAT_MOE_FUSED,
    JV_OPCAT_CONV_FWD,
    JV_OPCAT_CONV_BWD,
    JV_OPCAT_NORM_FWD,
    JV_OPCAT_NORM_BWD,
    JV_OPCAT_SDPA_FWD,
    JV_OPCAT_SDPA_BWD,
    JV_OPCAT_ELEMENTWISE,
    JV_OPCAT_REDUCE,
    JV_OPCAT_TRITON,
    JV_OPCAT_INFERENCE_ATTENTION,
    JV_OPCAT_RECORD_PARAM_COMMS,
    JV_OPCAT_MULTI_TENSOR_APPLY,
    JV_OPCAT_OTHER,
    JV_OPCAT_COUNT
} jv_opcat;

/* The category of op name; first_kernel is the name of the op's first direct GPU event (used for native kernels
 * of ops without a rule), or NULL. */
jv_opcat jv_op_category_id(const char *name, const char *first_kernel);

/* TraceLens' name of category c ("GEMM", "CONV_fwd", ..., "other"): a static string, one pointer per category. */
const char *jv_opcat_name(jv_opcat c);

/* jv_opcat_name(jv_op_category_id(name, first_kernel)). */
const char *jv_op_category(const char *name, const char *first_kernel);

/* 1 when op name is a backward op by the categorizer's rule (a name ending in _backward, Backward or _bwd, or
 * one of the SDPA backward ops): for ops no family parses, whose model would say. */
int jv_op_is_backward(const char *name);

#endif

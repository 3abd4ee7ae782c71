/* jv_opcall: one call of an op with its positional arguments, as the profiler
 * records it (Input Dims, Input type, Input Strides, Concrete Inputs) or as a
 * replay IR entry lists it. Op-family descriptors are parsed from this form,
 * so a trace and a replay package describe an op the same way. */
#ifndef JV_OPCALL_H
#define JV_OPCALL_H

#include <stddef.h>

#include "jv_status.h"
#include "jv_tensor.h"

#define JV_MAX_ARGS 32

typedef enum {
    JV_ARG_NONE = 0,   /* an absent optional argument (Tensor? = None) */
    JV_ARG_TENSOR,     /* t is valid */
    JV_ARG_TENSORLIST, /* a list of tensors (shapes not kept) */
    JV_ARG_VALUE       /* a scalar, bool, int or list, as text in value */
} jv_arg_kind;

typedef struct {
    jv_arg_kind kind;
    jv_tensor t;       /* JV_ARG_TENSOR: shape, strides, dtype (JV_DT_UNKNOWN when the type is not known) */
    const char *type;  /* the recorded type text ("c10::BFloat16", "Scalar", ""); never NULL */
    const char *value; /* the recorded concrete value ("True", "[1, 1]", "1e-05"); "" when none; never NULL */
} jv_arg;

typedef struct {
    const char *name; /* op name ("aten::mm"); owned by the caller */
    int nargs;
    jv_arg args[JV_MAX_ARGS];
    void *docs[4]; /* parsed documents the strings point into */
    /* the name of the host annotation (user_annotation) around the traced call that its family reads
     * (jv_family.annotation: a serving step's sequence lengths), NULL when none; set by the caller after
     * jv_opcall_from_trace, owned by the caller */
    const char *annotation;
} jv_opcall;

/* Builds a call from the four raw JSON texts of a trace event's args (any may
 * be NULL or "" when the trace lacks it). Arguments past JV_MAX_ARGS are
 * dropped. JV_ERR_FORMAT (with a message in err) when a text is not the JSON
 * list the profiler writes; JV_ERR_NOMEM on allocation failure. On success
 * the call must be released with jv_opcall_free. */
jv_status jv_opcall_from_trace(jv_opcall *c, const char *name, const char *dims, const char *types, const char *strides,
                               const char *concrete, jv_err *err);

/* Releases what jv_opcall_from_trace allocated. Safe on a zeroed call. */
void jv_opcall_free(jv_opcall *c);

/* Argument i as a tensor, or NULL when it is missing or not a tensor. */
const jv_tensor *jv_opcall_tensor(const jv_opcall *c, int i);

/* Argument i as a tensor with at least one dim, or NULL (an absent optional,
 * a 0-d placeholder, or i < 0). */
const jv_tensor *jv_opcall_opt_tensor(const jv_opcall *c, int i);

/* Argument i's concrete value text, or NULL when it has none. */
const char *jv_opcall_value(const jv_opcall *c, int i);

/* Parses an int list value ("[1, 1]", "(2, 2)", "[]") or a single int ("3")
 * into out (at most max). Returns the count, or -1 when the text is not that. */
int jv_parse_ints(const char *s, long long *out, int max);

/* Parses a dtype argument recorded as a ScalarType code ("15"); JV_DT_UNKNOWN
 * when s is NULL, not one integer, or a code without a jv_dtype. */
jv_dtype jv_parse_scalar_type(const char *s);

/* Parses "True"/"False" (also "true"/"false"/"1"/"0"). Returns 1 and sets *v,
 * or 0 when the text is not a bool. */
int jv_parse_bool(const char *s, int *v);

/* Parses a bool list "[True, False]" into out (at most max). Returns the
 * count, or -1. */
int jv_parse_bools(const char *s, int *out, int max);

/* Parses a number ("1e-05", "0.1", "3"). Returns 1 and sets *v, or 0. */
int jv_parse_double(const char *s, double *v);

/* Optional bool argument i: *out = def when i < 0, the argument has no
 * value, or (with none_ok) its value is "None"; else the parsed bool.
 * Returns 0 when the value is not a bool. */
int jv_opcall_bool(const jv_opcall *c, int i, int def, int none_ok, int *out);

/* Optional number argument i, the same way; 0 when the value is not a
 * finite number. */
int jv_opcall_double(const jv_opcall *c, int i, double def, int none_ok, double *out);

#endif

/* jv_ir_args: what the replay IR writer (jv_ir_write.c) and reader
 * (jv_ir_read.c) share: the kinds of ATen argument types and the bounds of a
 * tensor in the IR. Private to ir/. */
#ifndef JV_IR_ARGS_H
#define JV_IR_ARGS_H

#include "jv_tensor.h"

/* The kind of an ATen schema argument type. */
typedef enum {
    K_OTHER = 0,
    K_TENSOR,
    K_TENSORLIST,
    K_INT, /* int, SymInt */
    K_INTLIST,
    K_FLOAT,
    K_FLOATLIST,
    K_BOOL,
    K_BOOLLIST,
    K_SCALAR,
    K_SCALARLIST,
    K_STR,
    K_SCALARTYPE, /* written as its ScalarType code */
    K_LAYOUT,     /* code */
    K_MEMFMT,     /* code */
    K_DEVICE,
    K_GENERATOR
} akind;

typedef struct {
    akind k;
    int optional; /* "T?" */
    int writes;   /* an alias annotation with '!' */
} atype;

/* Classifies a schema type text ("Tensor(a!)", "SymInt[2]", "int[1]?", "Tensor?[]"). */
void jv_ir_type_parse(const char *t, atype *o);

/* Tensor bounds, the same for the writer and the reader */
#define IR_MAX_BYTES ((double)(1ULL << 50))
#define IR_MAX_DIM   4611686018427387904.0 /* 2^62 */
#define LIST_MAX     64                    /* values of a list argument */

/* Why tensor t cannot be in the IR (dims or strides negative or past 2^62,
 * more than 2^50 bytes of elements or of storage), or NULL. Without strides t
 * gets dense ones (which must be in range too). */
const char *jv_ir_tensor_problem(jv_tensor *t);

#endif
